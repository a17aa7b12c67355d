"""The wake mark: versions, round trips, and what it refuses."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from comment_wake.wake import (
    MARK_VERSION,
    Handled,
    Held,
    MarkError,
    Pending,
    WakeMark,
    decode_mark,
    encode_mark,
    next_due,
)
from review_monitor import Author, BadgeItem, InlineComment, ItemDetail

T = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)


def _full_mark() -> WakeMark:
    item = BadgeItem("review", "PRR_1", 7, T, Author("bob"), state="COMMENTED")
    detail = ItemDetail(
        "PRR_1",
        "review",
        "body",
        "https://x/1",
        inline=(InlineComment("RC_1", 8, "a.py", 3, 3, "fix", "https://x/2"),),
    )
    return WakeMark(
        baseline_done=True,
        floor=T,
        handled=(Handled("IC_1", T),),
        comments_seen_to=T,
        wakes=(T,),
        held=(Held(item, detail, T),),
        held_until=T,
        pending=(Pending(item, detail, 2, T),),
        own_posts=b"\x00\xffopaque",
    )


def test_mark_survives_a_round_trip() -> None:
    mark = _full_mark()
    assert mark == decode_mark(encode_mark(mark))


def test_encoded_mark_carries_its_version() -> None:
    assert MARK_VERSION == msgspec.json.decode(encode_mark(WakeMark()))["version"]


def test_plain_ids_fixture_loads_as_handled_ids_without_a_baseline(repo_root: Path) -> None:
    data = (repo_root / "fixtures" / "marks" / "v0-plain-ids.json").read_bytes()
    mark = decode_mark(data)
    expected = ("IC_kwDOKx0v3c5yGq1A", "IC_kwDOKx0v3c5yGq2B", "PRR_kwDOKx0v3c5zH0aC")
    assert (True, expected, None) == (mark.baseline_done, mark.legacy_ids, mark.floor)


def test_plain_ids_under_a_comments_key_load() -> None:
    mark = decode_mark(b'{"comments": ["IC_1", "IC_2"]}')
    assert ("IC_1", "IC_2") == mark.legacy_ids


@pytest.mark.parametrize(
    "data",
    [b"not json", b"[1, 2]", b'"IC_1"', b'{"version": 99}', b'{"version": 1, "floor": 3}'],
)
def test_unreadable_mark_raises_mark_error(data: bytes) -> None:
    with pytest.raises(MarkError):
        decode_mark(data)


def test_a_version_1_mark_loads_with_its_listed_at_as_both_connections_proof() -> None:
    v1 = msgspec.json.decode(encode_mark(_full_mark()))
    v1.update(version=1, listed_at="2025-06-02T09:00:00Z")
    for key in ("comments_proven_at", "reviews_proven_at", "comments_listed", "reviews_listed"):
        v1.pop(key)
    expected = msgspec.structs.replace(_full_mark(), comments_proven_at=T, reviews_proven_at=T)
    assert expected == decode_mark(msgspec.json.encode(v1))


def test_a_marks_retry_times_are_stored_under_their_old_keys() -> None:
    raw = msgspec.json.decode(encode_mark(_full_mark()))
    assert ("next_try", "next_retry") == (
        next(k for k in raw["held"][0] if k in ("next_try", "retry_at")),
        next(k for k in raw["pending"][0] if k in ("next_retry", "retry_at")),
    )


def test_the_old_names_next_try_and_next_retry_read_retry_at() -> None:
    mark = _full_mark()
    (held,), (pending,) = mark.held, mark.pending
    later = msgspec.structs.replace(held, retry_at=T)
    assert (T, T) == (later.next_try, pending.next_retry)


def test_a_deferred_gap_read_is_due_again_at_its_retry_time() -> None:
    assert T == next_due(WakeMark(baseline_done=True, gap_retry_at=T))


def test_a_mark_written_before_deferred_gaps_has_no_gap_retry() -> None:
    old = msgspec.json.encode({"version": MARK_VERSION, "baseline_done": True})
    assert None is decode_mark(old).gap_retry_at
