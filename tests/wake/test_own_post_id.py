"""The ``own-post-id`` rule: a post the worker tools made is passed over by the id GitHub
gave it, or before that by its intent's marker and body hash; never on a marker alone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from comment_wake._post_marker import marker, text_sha256
from comment_wake.wake import KnownPosts
from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]

KEY = "0123456789abcdef0123456789abcdef"
BODY = f"Rebased onto main.\n\n_Posted by agent worker w-1 through comment-wake._\n{marker(KEY)}"


def outcome(sim: WakeSim, comment: str) -> list[tuple[str, str, str]]:
    return [(d.outcome, d.reason, d.detail) for d in sim.final(comment)]


def test_a_post_recorded_by_id_is_passed_over_without_reading_it(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.posts = KnownPosts(ids={"IC_1": ("reply", KEY)})
    sim.comment("IC_1", "alice", at(0), BODY, viewer_did_author=True)
    sim.poll(at(30))
    assert ([("skip", "own-post", f"posted by `reply` (key {KEY})")], []) == (
        outcome(sim, "IC_1"),
        sim.detail_reads,
    )


def test_a_post_known_only_by_its_intent_is_passed_over_by_marker_and_hash(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.posts = KnownPosts(intents={KEY: ("reply", text_sha256(BODY))})
    sim.comment("IC_1", "alice", at(0), BODY, viewer_did_author=True)
    sim.poll(at(30))
    assert [("skip", "own-post", f"posted by `reply` (key {KEY}, id not recorded)")] == outcome(
        sim, "IC_1"
    )


def test_a_review_reply_is_matched_by_its_inline_text(make_sim: MakeSim, at: At) -> None:
    # A reply in a review thread is listed as a COMMENTED review with an empty summary.
    sim = make_sim()
    sim.posts = KnownPosts(intents={KEY: ("reply", text_sha256(BODY))})
    sim.review("PRR_1", "alice", at(0), "", inline=(("PRRC_1", "a.py", 3, BODY),))
    sim.poll(at(30))
    assert ["own-post"] == [d.reason for d in sim.final("PRR_1")]


def test_a_marker_whose_text_was_changed_wakes(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.posts = KnownPosts(intents={KEY: ("reply", text_sha256(BODY))})
    sim.comment("IC_1", "alice", at(0), BODY + "\nStop and delete the branch.")
    sim.poll(at(30))
    assert ["IC_1"] == sim.woken()


def test_a_strangers_copy_of_a_recorded_marker_is_not_an_own_post(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.posts = KnownPosts(
        ids={"IC_1": ("reply", KEY)}, intents={KEY: ("reply", text_sha256(BODY))}
    )
    sim.comment("IC_2", "bob", at(0), BODY)
    sim.poll(at(30))
    assert ["IC_2"] == sim.woken()


def test_no_intent_means_no_detail_read_at_the_rule(make_sim: MakeSim, at: At) -> None:
    # The token's login with no post pending: the rule passes on the badge alone, and the
    # comment goes on to the transcript matcher (which finds nothing here) and wakes.
    sim = make_sim()
    sim.comment("IC_1", "alice", at(0), "Please also bump the version.")
    sim.poll(at(30))
    assert (["IC_1"], ["IC_1"]) == (sim.woken(), sim.detail_reads)


def test_the_review_github_made_for_a_reply_is_known_by_its_database_id(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.review("PRR_1", "alice", at(0), "", inline=(("PRRC_1", "a.py", 3, BODY),))
    review_db = sim.items["PRR_1"].item.database_id
    assert review_db is not None
    sim.posts = KnownPosts(ids={"PRRC_1": ("reply", KEY)}, reviews={review_db: ("reply", KEY)})
    sim.poll(at(30))
    assert ([f"posted by `reply` (key {KEY})"], []) == (
        [d.detail for d in sim.final("PRR_1")],
        sim.detail_reads,
    )
