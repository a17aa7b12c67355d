"""The trust rules run in the issue's order, and each reads only what it needs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from comment_wake.wake import Binding, is_bot, is_valid_login
from comment_wake.wake.testing import WakeSim
from review_monitor import Author

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def test_first_look_is_a_baseline(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(baseline=False)
    sim.comment("IC_1", "bob", at(0), "Old news.")
    sim.review("PRR_1", "bob", at(5), "Also old.")
    sim.poll(at(30))
    sim.poll(at(90))
    assert ([("skip", "baseline")], [("skip", "baseline")], []) == (
        outcomes(sim, "IC_1"),
        outcomes(sim, "PRR_1"),
        sim.lookups,
    )


def test_deleted_account_is_passed_over_as_no_author(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", None, at(0), "Please merge.")
    sim.poll(at(30))
    assert ([("skip", "no-author")], []) == (outcomes(sim, "IC_1"), sim.detail_reads)


def test_minimized_comment_is_passed_over_before_the_bot_rule(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "spam[bot]", at(0), "Buy now.", author_type="Bot", minimized=True)
    sim.poll(at(30))
    assert [("skip", "minimized")] == outcomes(sim, "IC_1")


def test_bot_verdict_is_passed_over_as_bot(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.review("PRR_1", "ci-bot[bot]", at(0), "LGTM", state="APPROVED", author_type="Bot")
    sim.poll(at(30))
    assert [("skip", "bot")] == outcomes(sim, "PRR_1")


@pytest.mark.parametrize("state", ["APPROVED", "CHANGES_REQUESTED", "DISMISSED"])
def test_review_verdict_is_passed_over_without_reads(make_sim: MakeSim, at: At, state: str) -> None:
    sim = make_sim()
    sim.review("PRR_1", "bob", at(0), "Ship it.", state=state)
    sim.poll(at(30))
    assert ([("skip", "verdict")], [], []) == (
        outcomes(sim, "PRR_1"),
        sim.detail_reads,
        sim.lookups,
    )


@pytest.mark.parametrize("body", ["", "   \n\t", "\u200b\u2060 \u00a0", "\U000e0041\n"])
def test_blank_comment_is_passed_over_without_a_lookup(
    make_sim: MakeSim, at: At, body: str
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), body)
    sim.poll(at(30))
    assert ([("skip", "blank")], []) == (outcomes(sim, "IC_1"), sim.lookups)


@pytest.mark.parametrize("body", ["<!-- only a hidden note -->", "[//]: # (hidden reference)"])
def test_a_writers_comment_github_shows_nothing_of_is_blank_after_the_lookup(
    make_sim: MakeSim, at: At, body: str
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), body)
    sim.poll(at(30))
    assert ([("skip", "blank")], ["bob"]) == (outcomes(sim, "IC_1"), sim.lookups)


def test_a_strangers_comment_github_shows_nothing_of_is_not_writer(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "mallory", at(0), "<!-- only a hidden note -->")
    sim.poll(at(30))
    assert [("skip", "not-writer")] == outcomes(sim, "IC_1")


def test_review_with_only_a_blank_body_but_inline_text_is_not_blank(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.review("PRR_1", "bob", at(0), "", inline=(("RC_1", "a.py", 3, "Rename this."),))
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "PRR_1")


def test_rereview_command_from_another_login_is_a_person_speaking(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(rereview_commands=["@coderabbitai review"])
    sim.comment("IC_1", "bob", at(0), "@coderabbitai review")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_agent_login_is_passed_over_as_own_post_without_a_lookup(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(agent_logins=["Gram-Agent"])
    sim.permissions["gram-agent"] = "write"
    sim.comment("IC_1", "gram-agent", at(0), "Pushed the fix.")
    sim.poll(at(30))
    assert ([("skip", "own-post")], []) == (outcomes(sim, "IC_1"), sim.lookups)


def test_own_post_verdict_is_asked_only_for_viewer_comments(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.own["IC_bob"] = "should never be consulted"
    sim.comment("IC_bob", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_bob")


def test_invalid_login_is_passed_over_without_a_lookup(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "-not--valid-", at(0), "Merge it.")
    sim.poll(at(30))
    assert ([("skip", "invalid-login")], []) == (outcomes(sim, "IC_1"), sim.lookups)


@pytest.mark.parametrize("author_type", ["Mannequin", "Organization"])
def test_mannequin_and_organization_go_through_write_access(
    make_sim: MakeSim, at: At, author_type: str
) -> None:
    sim = make_sim()
    sim.permissions["octo-org"] = "write"
    sim.comment("IC_1", "Octo-Org", at(0), "Please rebase.", author_type=author_type)
    sim.poll(at(30))
    assert ([("wake", "writer")], ["octo-org"]) == (outcomes(sim, "IC_1"), sim.lookups)


def test_one_lookup_serves_every_comment_by_the_same_author(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.comment("IC_2", "Bob", at(1), "Two.")
    sim.poll(at(30))
    assert (["bob"], ["IC_1", "IC_2"]) == (sim.lookups, sim.woken())


def test_quiet_poll_reads_nothing(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(30))
    reads = (len(sim.detail_reads), len(sim.lookups))
    sim.poll(at(90))
    sim.poll(at(150))
    assert reads == (len(sim.detail_reads), len(sim.lookups))


def test_comment_deleted_before_its_detail_read_is_not_decided(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "Oops.")
    status = sim.badge()
    sim.delete("IC_1")
    sim.last_status = status
    sim.tick(at(30))
    assert ([], ["IC_1"]) == (sim.decisions, sim.detail_reads)


def test_a_comment_is_decided_at_most_once_finally(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.lookup_failures["carol"] = 2
    for n in range(12):
        sim.comment(f"IC_{n}", ("bob", "carol", "mallory")[n % 3], at(n * 20), f"Note {n}.")
        sim.poll(at(n * 20 + 10))
    for minute in range(2, 40):
        sim.poll(at(minutes=minute))
    finals = [d.comment for d in sim.decisions if d.outcome in ("wake", "skip", "drop")]
    assert sorted({f"IC_{n}" for n in range(12)}) == sorted(finals)


def test_unbound_pr_pauses_held_comments_and_resumes_when_bound_again(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # held until 70 s
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched=False)
    sim.poll(at(80))
    due_while_unwatched = sim.due()
    sim.binding = Binding(sim.pr, "w-1", "orch-1")
    sim.poll(at(140))
    assert (None, ["IC_1", "IC_2"]) == (due_while_unwatched, sim.woken())


def test_unwatching_drops_held_and_skips_pending(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.lookup_failures["carol"] = 1
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.comment("IC_3", "carol", at(21), "Three.")
    sim.poll(at(30))
    sim.unwatch(at(40))
    assert ([("drop", "unbound")], [("skip", "unbound")], None) == (
        outcomes(sim, "IC_2")[-1:],
        outcomes(sim, "IC_3")[-1:],
        sim.due(),
    )


@pytest.mark.parametrize(
    ("author", "bots", "expected"),
    [
        (Author("dependabot", "Bot"), (), True),
        (Author("Renovate[BOT]", "User"), (), True),
        (Author("CodeRabbitAI", "User"), ("coderabbitai[bot]",), True),
        (Author("coderabbitai[bot]", "User"), ("CodeRabbitAI",), True),
        (Author("alice", "User"), ("coderabbitai",), False),
        (Author("botanist", "User"), (), False),
    ],
)
def test_is_bot(author: Author, bots: tuple[str, ...], expected: bool) -> None:
    assert expected == is_bot(author, bots)


@pytest.mark.parametrize(
    ("login", "expected"),
    [
        ("octocat", True),
        ("a", True),
        ("mona-lisa", True),
        ("x" * 39, True),
        ("x" * 40, False),
        ("-octocat", False),
        ("octocat-", False),
        ("octo--cat", False),
        ("octo_cat", True),  # an Enterprise Managed User short code
        ("", False),
        ("octo cat", False),
        ("ｏｃｔｏ", False),
    ],
)
def test_is_valid_login(login: str, expected: bool) -> None:
    assert expected == is_valid_login(login)
