"""The loop's handling of each publisher outcome, on the real store."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

import pytest

from comment_wake.delivery import CommandFailedError, DeliveryConfig, DeliveryLoop
from review_monitor import Busy, Delivered, Gone, Notice
from review_monitor.store import Store, SyncStore
from review_monitor.testing import FixedClock, InMemoryPublisher

pytestmark = pytest.mark.anyio

NoticeFactory = Callable[..., Notice]
LoopFactory = Callable[..., DeliveryLoop]


async def enqueue(store: Store, clock: FixedClock, *notices: Notice) -> None:
    await store.call(SyncStore.enqueue, notices, at=clock.now())


async def test_a_workers_notices_go_out_in_enqueue_order(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    first, second = make_notice(item_ids=("IC_1",)), make_notice(number=8, item_ids=("IC_2",))
    await enqueue(store, clock, first, second)
    loop = make_loop()
    await loop.run_once()
    await loop.run_once()
    assert [first.key, second.key] == publishers["w-42"].delivered_keys


async def test_delivered_finishes_the_entry(
    store: Store, clock: FixedClock, make_loop: LoopFactory, make_notice: NoticeFactory
) -> None:
    notice = make_notice()
    await enqueue(store, clock, notice)
    await make_loop().run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("delivered", 1, clock.now()) == (entry.status, entry.attempts, entry.delivered_at)


async def test_a_busy_worker_does_not_hold_another_worker(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].busy(times=5)
    other = make_notice(worker="w-7")
    await enqueue(store, clock, make_notice(), other)
    await make_loop().run_once()
    assert [other.key] == publishers["w-7"].delivered_keys


async def test_busy_keeps_the_head_and_retries_after_the_backoff(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].busy(reason="mid-turn")
    notice = make_notice()
    await enqueue(store, clock, notice)
    loop = make_loop(
        config=DeliveryConfig.model_validate({"backoff_base": "10s", "backoff_jitter": 0.5})
    )
    start = clock.now()
    await loop.run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("pending", "busy", True) == (
        entry.status,
        entry.last_outcome,
        start + timedelta(seconds=5) <= entry.next_attempt_at <= start + timedelta(seconds=10),
    )
    clock.set(entry.next_attempt_at)
    await loop.run_once()
    assert [notice.key] == publishers["w-42"].delivered_keys


async def _first_busy_wait(
    answer: Busy,
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> timedelta:
    publishers["w-42"].script(answer)
    notice = make_notice()
    await enqueue(store, clock, notice)
    config = DeliveryConfig.model_validate({"backoff_base": "1s", "backoff_cap": "60s"})
    await make_loop(config=config).run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert entry.next_attempt_at is not None
    return entry.next_attempt_at - clock.now()


async def test_a_busy_answers_retry_after_raises_the_first_wait(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    answer = Busy("HTTP 429", retry_after=timedelta(seconds=30))
    wait = await _first_busy_wait(answer, store, clock, make_loop, make_notice, publishers)
    assert timedelta(seconds=30) == wait


async def test_a_busy_reason_that_says_retry_after_is_only_text(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    # A reason is the receiver's free text (a webhook's body): it never sets the delay.
    answer = Busy("HTTP 429: busy; retry after 50s")
    wait = await _first_busy_wait(answer, store, clock, make_loop, make_notice, publishers)
    assert wait <= timedelta(seconds=1)


async def test_busy_backoff_never_exceeds_its_cap(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].default = Busy("still busy")
    notice = make_notice()
    await enqueue(store, clock, notice)
    loop = make_loop(
        config=DeliveryConfig.model_validate({"backoff_base": "1s", "backoff_cap": "8s"})
    )
    waits = []
    for _ in range(12):
        await loop.run_once()
        entry = await store.call(SyncStore.entry_by_key, notice.key)
        assert entry is not None
        waits.append(entry.next_attempt_at - clock.now())
        clock.set(entry.next_attempt_at)
    assert timedelta(seconds=8) >= max(waits)


async def test_a_busy_head_absorbs_later_notices_for_the_same_pr(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    head, later = make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",))
    elsewhere = make_notice(number=9, item_ids=("IC_3",))
    await enqueue(store, clock, head, later, elsewhere)
    publishers["w-42"].busy()
    loop = make_loop()
    await loop.run_once()
    clock.advance(timedelta(hours=1))
    await loop.run_once()
    delivered = publishers["w-42"].delivered
    absorbed = await store.call(SyncStore.entry_by_key, later.key)
    assert absorbed is not None
    assert (["IC_1", "IC_2"], "merged") == ([i.id for i in delivered[0].items], absorbed.status)


async def test_a_busy_head_absorbs_later_notices_only_while_the_merge_fits(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    # Each later notice fits the head alone, but the head and two of them pass the build
    # limit: the head takes the first, and the rest go out after it, in order.
    head, b, c, d = (make_notice(item_ids=(f"IC_{n}",), text=f"{n} " * 1_600) for n in range(1, 5))
    await enqueue(store, clock, head, b, c, d)
    publishers["w-42"].busy()
    loop = make_loop()
    for _ in range(4):
        await loop.run_once()
        clock.advance(timedelta(hours=1))
    delivered = [[i.id for i in n.items] for n in publishers["w-42"].delivered]
    assert [["IC_1", "IC_2"], ["IC_3"], ["IC_4"]] == delivered


async def test_notices_arriving_during_a_busy_wait_join_the_head(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    head, later = make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",))
    await enqueue(store, clock, head)
    publishers["w-42"].busy()
    loop = make_loop()
    await loop.run_once()
    await enqueue(store, clock, later)
    clock.advance(timedelta(hours=1))
    await loop.run_once()
    assert [["IC_1", "IC_2"]] == [[i.id for i in n.items] for n in publishers["w-42"].delivered]


async def test_after_a_restart_a_busy_head_first_goes_out_unchanged(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    # The last attempt before a crash may have reached the worker, so the head keeps its
    # key until a live busy answer proves it did not.
    head, later = make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",))
    await enqueue(store, clock, head)
    publishers["w-42"].busy()
    await make_loop().run_once()
    await enqueue(store, clock, later)
    clock.advance(timedelta(hours=1))
    await make_loop().run_once()
    assert [head.key] == publishers["w-42"].delivered_keys


async def test_gone_hands_the_notice_to_the_orchestrator(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].gone("session ended")
    notice = make_notice(text="please rename")
    await enqueue(store, clock, notice)
    loop = make_loop()
    await loop.run_once()
    await loop.run_once()
    got = publishers["orch"].delivered
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert (1, "handoff", "orch", notice.items, "handed-off") == (
        len(got),
        got[0].kind,
        got[0].worker,
        got[0].items,
        entry.status,
    )
    assert "w-42" in got[0].text
    assert "session ended" in got[0].text
    assert got[0].text.endswith("please rename")


@pytest.mark.parametrize(
    ("answer", "why"), [(Gone("archived"), "gone: archived"), (None, "unknown or archived")]
)
async def test_a_worker_without_a_publisher_is_handed_off_unpublished(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
    answer: Gone | None,
    why: str,
) -> None:
    notice = make_notice(worker="w-old")
    await enqueue(store, clock, notice)
    loop = make_loop(route=lambda w: answer if w == "w-old" else publishers.get(w))
    await loop.run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("handed-off", True) == (entry.status, why in (entry.last_detail or ""))


async def test_gone_without_an_orchestrator_parks_the_notice(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].gone()
    notice = make_notice()
    await enqueue(store, clock, notice)
    await make_loop(orchestrator_of=lambda w: None).run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert "parked" == entry.status


async def test_a_gone_orchestrator_parks_the_hand_off_instead_of_handing_it_off_again(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].gone()
    publishers["orch"].gone()
    await enqueue(store, clock, make_notice())
    loop = make_loop()
    await loop.run_once()
    await loop.run_once()
    assert ["parked"] == [
        e.status for e in await store.call(SyncStore.entries, worker="orch", statuses=("parked",))
    ]


async def test_refused_parks_once_and_reports_it_loudly(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
    caplog: pytest.LogCaptureFixture,
) -> None:
    publishers["w-42"].refused("HTTP 401")
    notice = make_notice()
    await enqueue(store, clock, notice)
    loop = make_loop()
    with caplog.at_level(logging.ERROR, logger="comment_wake.delivery"):
        for _ in range(3):
            await loop.run_once()
            clock.advance(timedelta(hours=1))
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert (1, 1, "parked") == (
        len(publishers["w-42"].attempts),
        len(errors),
        (await store.call(SyncStore.entry_by_key, notice.key)).status,  # type: ignore[union-attr]
    )


async def test_a_publisher_fault_is_recorded_and_retried(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].script(CommandFailedError("exit 3", exit_code=3))
    notice = make_notice()
    await enqueue(store, clock, notice)
    loop = make_loop()
    await loop.run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    clock.set(entry.next_attempt_at)
    await loop.run_once()
    log = await store.call(SyncStore.attempts, entry.seq)
    assert [("error", "CommandFailedError: exit 3"), ("delivered", "")] == [
        (a.outcome, a.detail) for a in log
    ]


async def test_an_unexpected_exception_is_recorded_without_its_message(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].script(RuntimeError("token ghp_secret in a message"))
    notice = make_notice()
    await enqueue(store, clock, notice)
    await make_loop().run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("error", "RuntimeError (unexpected)") == (entry.last_outcome, entry.last_detail)


async def test_a_hanging_publisher_is_cut_off_by_the_attempt_limit(
    store: Store, clock: FixedClock, make_loop: LoopFactory, make_notice: NoticeFactory
) -> None:
    class Hangs:
        async def publish(self, notice: Notice) -> Delivered:
            import anyio

            await anyio.sleep_forever()
            raise AssertionError("unreachable")

    notice = make_notice()
    await enqueue(store, clock, notice)
    config = DeliveryConfig(
        publisher_timeout=timedelta(seconds=1), attempt_limit=timedelta(seconds=1)
    )
    await make_loop(route=lambda w: Hangs(), config=config).run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("pending", "error") == (entry.status, entry.last_outcome)


async def test_a_new_session_id_is_recorded_and_reported(
    store: Store,
    clock: FixedClock,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    publishers["w-42"].script(Delivered(session_id="sess-2"))
    seen: list[tuple[str, str]] = []
    notice = make_notice()
    await enqueue(store, clock, notice)
    await make_loop(on_session=lambda w, s: seen.append((w, s))).run_once()
    entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ([("w-42", "sess-2")], "sess-2") == (seen, entry.session_id)
