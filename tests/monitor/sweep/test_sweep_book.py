"""Which PRs need a full badge, from what the sweep saw (pure; time is an argument)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec

from review_monitor import InMemoryObservations, Observation, PrRef, PrStatus
from review_monitor._sweep_book import SweepBook, net_slot
from review_monitor.poll import SweepEntry

T0 = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
S = timedelta(seconds=1)
M = timedelta(minutes=1)
PR = PrRef("octo-org", "app", 7)


def badge(updated_at: datetime, **changes: object) -> PrStatus:
    status = PrStatus(
        pr=PR,
        title="a change",
        url="https://github.com/octo-org/app/pull/7",
        state="OPEN",
        merged=False,
        is_draft=False,
        head_ref_oid="a" * 40,
        review_decision=None,
        check_state="SUCCESS",
        comments=(),
        reviews=(),
        person_comments_from=None,
        node_id="PR_7",
        updated_at=updated_at,
    )
    return msgspec.structs.replace(status, **changes)


def entry(status: PrStatus, **changes: object) -> SweepEntry:
    found = SweepEntry.of(status)
    assert found is not None
    return msgspec.structs.replace(found, **changes)


class Book(SweepBook):
    """The book over its own observation stream, where ``badge_read`` publishes."""

    def __init__(self) -> None:
        self.source = InMemoryObservations()
        super().__init__(grace=30 * S, full_interval=10 * M, latest=self.source.latest)

    def badge_read(self, status: PrStatus, at: datetime) -> None:
        self.source.publish(
            Observation(pr=status.pr, read_at=at, badge=status, watches=(), interval=M)
        )


def book() -> Book:
    return Book()


def test_a_pr_never_badged_is_due_first() -> None:
    assert "first" == book().due(PR, T0, M)


def test_a_pr_swept_unchanged_and_settled_needs_no_badge() -> None:
    b = book()
    status = badge(T0 - 5 * M)
    b.badge_read(status, T0)
    b.swept({PR: entry(status)})
    assert None is b.due(PR, T0 + M, M)


def test_a_pr_the_sweep_did_not_read_is_due_unswept() -> None:
    b = book()
    b.badge_read(badge(T0 - 5 * M), T0)
    b.swept({PR: None})
    assert "unswept" == b.due(PR, T0 + M, M)


def test_a_moved_updated_at_makes_the_pr_changed() -> None:
    b = book()
    status = badge(T0 - 5 * M)
    b.badge_read(status, T0)
    b.swept({PR: entry(status, updated_at=T0 + 10 * S)})
    assert "changed" == b.due(PR, T0 + M, M)


def test_a_check_state_the_sweep_shows_changed_makes_the_pr_changed() -> None:
    b = book()
    status = badge(T0 - 5 * M)
    b.badge_read(status, T0)
    b.swept({PR: entry(status, check_state="FAILURE")})
    assert "changed" == b.due(PR, T0 + M, M)


def test_a_badge_read_within_the_grace_of_updated_at_leaves_the_pr_settling() -> None:
    b = book()
    status = badge(T0 - 29 * S)
    b.badge_read(status, T0)
    b.swept({PR: entry(status)})
    assert "settling" == b.due(PR, T0 + M, M)


def test_a_badge_read_the_grace_after_updated_at_settles_the_pr() -> None:
    b = book()
    status = badge(T0 - 30 * S)
    b.badge_read(status, T0)
    b.swept({PR: entry(status)})
    assert None is b.due(PR, T0 + M, M)


def test_the_safety_net_reads_a_badge_in_the_round_that_holds_the_prs_slot() -> None:
    b = book()
    slot = net_slot(PR, T0 + 10 * M, 10 * M)  # the PR's slot in the ten minutes before
    read = slot - 8 * M  # two minutes after the slot before
    status = badge(read - 5 * M)
    b.badge_read(status, read)
    b.swept({PR: entry(status)})
    # The round starting a minute before the slot ends at it; the next one holds it.
    assert (None, "slot") == (b.due(PR, slot - M, M), b.due(PR, slot - M + S, M))


def test_the_safety_net_reads_a_badge_before_it_would_pass_the_full_interval() -> None:
    b = book()
    status = badge(T0 - 5 * M)
    b.badge_read(status, T0)
    b.swept({PR: entry(status)})
    assert (False, "safety-net") == (
        b.due(PR, T0 + 9 * M, M) == "safety-net",
        b.due(PR, T0 + 9 * M + S, M),
    )


def test_a_pr_whose_slot_read_waited_stays_due() -> None:
    b = book()
    slot = net_slot(PR, T0 + 10 * M, 10 * M)
    status = badge(slot - 10 * M)
    b.badge_read(status, slot - 5 * M)
    b.swept({PR: entry(status)})
    assert "slot" == b.due(PR, slot + 2 * M, M)


def test_slot_reads_fill_the_last_batch_then_take_whole_batches() -> None:
    b = book()
    slots = [PrRef("octo-org", "app", n) for n in range(1, 11)]
    # Beside 5 other badges in batches of 4: 3 fill the second batch, then one whole batch.
    assert 7 == len(b.slot_reads(slots, 5, 4, T0, M))


def test_slot_reads_take_the_earliest_slots_first() -> None:
    b = book()
    slots = [PrRef("octo-org", "app", n) for n in range(1, 4)]
    first = min(slots, key=lambda pr: net_slot(pr, T0 + M, 10 * M))
    # One fills the batch the 3 others start; two cannot make a whole batch, and wait.
    assert [first] == b.slot_reads(slots, 3, 4, T0, M)


def test_the_safety_net_spreads_prs_read_together_over_its_rounds() -> None:
    prs = [PrRef("octo-org", "app", n) for n in range(1, 1001)]
    rounds = [T0 + k * M for k in range(10)]
    per_round = [sum(1 for pr in prs if at <= net_slot(pr, at + M, 10 * M)) for at in rounds]
    assert (1000, True) == (sum(per_round), max(per_round) <= 130)


def test_a_badge_that_left_an_item_off_is_not_vouched_for_by_the_sweep() -> None:
    b = book()
    status = badge(T0 - 5 * M, left_off=1)
    b.badge_read(status, T0)
    b.swept({PR: entry(badge(T0 - 5 * M))})
    assert "first" == b.due(PR, T0 + M, M)


def test_a_pr_the_stream_forgot_is_due_first_again() -> None:
    b = book()
    b.badge_read(badge(T0 - 5 * M), T0)
    b.source.forget([])
    assert ({}, "first") == (b.node_ids([PR]), b.due(PR, T0 + M, M))
