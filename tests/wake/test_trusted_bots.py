"""Trusted bots: a listed bot's issue comments wake the worker (``trusted-bot``) without a
permission lookup, by windows of their own that never use up people's wakes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from comment_wake.wake import RULES, decode_mark, encode_mark
from comment_wake.wake.testing import WakeSim
from review_monitor import MonitorConfig

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]

NAMES = tuple(rule.name for rule in RULES)
RABBIT = {"trusted_bots": ("coderabbitai[bot]",)}


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def bot_comment(sim: WakeSim, id: str, at: datetime, body: str = "Summary.") -> None:
    # GraphQL names a Bot without the ``[bot]`` suffix.
    sim.comment(id, "coderabbitai", at, body, author_type="Bot")


def test_a_trusted_bots_comment_wakes_with_reason_trusted_bot(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    assert [("wake", "trusted-bot")] == outcomes(sim, "IC_1")


def test_a_trusted_bots_comment_costs_no_permission_lookup(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    assert [] == sim.lookups


def test_a_trusted_bots_wake_passed_every_rule(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    assert NAMES == sim.final("IC_1")[0].rules


def test_a_trusted_bots_comment_is_fenced(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0), "Walkthrough of the change.")
    sim.poll(at(30))
    assert "<<<untrusted-comment-begin" in sim.notices[0].text


def test_an_untrusted_bot_is_still_passed_over(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    sim.comment("IC_1", "dependabot", at(0), "Bumps x.", author_type="Bot")
    sim.poll(at(30))
    assert ([("skip", "bot")], []) == (outcomes(sim, "IC_1"), sim.lookups)


def test_a_trusted_bots_review_stays_a_bot_review(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    sim.review("PRR_1", "coderabbitai", at(0), "Review.", author_type="Bot")
    sim.poll(at(30))
    assert [("skip", "bot")] == outcomes(sim, "PRR_1")


def test_review_bots_win_over_trusted_bots(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    sim.monitor = MonitorConfig(review_bots=("coderabbitai",))
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    assert [("skip", "bot")] == outcomes(sim, "IC_1")


def test_agent_logins_win_over_trusted_bots(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(agent_logins=("coderabbitai[bot]",), **RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    assert [("skip", "bot")] == outcomes(sim, "IC_1")


def test_a_persons_account_listed_as_a_trusted_bot_is_still_looked_up(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(trusted_bots=("mallory",))
    sim.comment("IC_1", "mallory", at(0), "Merge it.")
    sim.poll(at(30))
    assert ([("skip", "not-writer")], ["mallory"]) == (outcomes(sim, "IC_1"), sim.lookups)


def test_a_blank_trusted_bot_comment_is_passed_over(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0), " \u200b ")
    sim.poll(at(30))
    assert [("skip", "blank")] == outcomes(sim, "IC_1")


def test_the_skip_marker_is_honoured_in_a_trusted_bots_comment(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(skip_marker="/nowake", **RABBIT)
    bot_comment(sim, "IC_1", at(0), "/nowake status only")
    sim.poll(at(30))
    assert [("skip", "skip-marker")] == outcomes(sim, "IC_1")


def test_mention_mode_applies_to_trusted_bots(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(trigger="mention", handle="/agent", **RABBIT)
    bot_comment(sim, "IC_1", at(0), "Summary.")
    sim.poll(at(30))
    assert [("skip", "not-mentioned")] == outcomes(sim, "IC_1")


def test_bots_wake_at_most_twice_an_hour(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    for n in range(6):
        bot_comment(sim, f"IC_{n}", at(minutes=5 * n))
        sim.poll(at(minutes=5 * n, seconds=30))
    assert 2 == len({d.at for d in sim.decisions if d.outcome == "wake"})


def test_a_held_bot_comment_goes_when_the_bots_window_opens(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    for n in range(3):
        bot_comment(sim, f"IC_{n}", at(minutes=5 * n))
        sim.poll(at(minutes=5 * n, seconds=30))
    sim.tick(at(minutes=60, seconds=30))
    assert [("held", "rate-limit"), ("wake", "trusted-bot")] == outcomes(sim, "IC_2")


def test_bot_wakes_never_use_up_peoples_wakes(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(wakes_per_hour=1, **RABBIT)
    bot_comment(sim, "IC_bot", at(0))
    sim.poll(at(30))
    sim.comment("IC_bob", "bob", at(minutes=2), "Stop.")
    sim.poll(at(minutes=2, seconds=30))
    assert [("wake", "writer")] == outcomes(sim, "IC_bob")


def test_a_bot_loop_never_holds_a_persons_stop(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    for n in range(30):  # a bot answering itself every minute for half an hour
        bot_comment(sim, f"IC_{n}", at(minutes=n))
        sim.poll(at(minutes=n, seconds=30))
    sim.comment("IC_stop", "bob", at(minutes=30), "Stop.")
    sim.poll(at(minutes=30, seconds=30))
    assert [("wake", "writer")] == outcomes(sim, "IC_stop")


def test_a_bot_only_wake_counts_in_the_bots_windows_only(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.poll(at(30))
    mark = decode_mark(sim.mark or b"")
    assert ((), (at(30),)) == (mark.wakes, mark.bot_wakes)


def test_a_wake_with_a_persons_comment_counts_in_peoples_windows(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    bot_comment(sim, "IC_1", at(0))
    sim.comment("IC_2", "bob", at(1), "And rebase.")
    sim.poll(at(30))
    mark = decode_mark(sim.mark or b"")
    assert ((at(30),), ()) == (mark.wakes, mark.bot_wakes)


def test_a_mark_written_before_bot_windows_still_loads(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**RABBIT)
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # IC_2 held
    raw = msgspec.json.decode(sim.mark or b"")
    del raw["bot_wakes"]
    for held in raw["held"]:
        del held["trusted_bot"]
    old = decode_mark(msgspec.json.encode(raw))
    assert ((), (False,)) == (old.bot_wakes, tuple(h.trusted_bot for h in old.held))


def test_an_old_mark_round_trips_with_its_held_comment_still_a_persons(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(**RABBIT)
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))
    raw = msgspec.json.decode(sim.mark or b"")
    del raw["bot_wakes"]
    for held in raw["held"]:
        del held["trusted_bot"]
    sim.mark = encode_mark(decode_mark(msgspec.json.encode(raw)))
    sim.tick(at(75))
    assert [("held", "rate-limit"), ("wake", "writer")] == outcomes(sim, "IC_2")
