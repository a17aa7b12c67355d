"""Merging a later notice into a busy head (pure)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from comment_wake.delivery._merge import can_merge, merge_notices
from review_monitor import Notice, PrRef, notice_key

NoticeFactory = Callable[..., Notice]


def test_items_are_the_union_in_order(make_notice: NoticeFactory) -> None:
    head = make_notice(item_ids=("IC_1", "IC_2"), text="a")
    later = make_notice(item_ids=("IC_2", "IC_3"), text="b")
    merged = merge_notices(head, later)
    assert ["IC_1", "IC_2", "IC_3"] == [item.id for item in merged.items]


def test_text_holds_both_texts_head_first(make_notice: NoticeFactory) -> None:
    head = make_notice(item_ids=("IC_1",), text="first comment\n")
    later = make_notice(item_ids=("IC_2",), text="second comment")
    assert "first comment\n\nsecond comment" == merge_notices(head, later).text


def test_key_is_recomputed_over_the_union(make_notice: NoticeFactory) -> None:
    head = make_notice(item_ids=("IC_1",))
    later = make_notice(item_ids=("IC_2",))
    expected = notice_key("w-42", PrRef("o", "r", 7), "comment-wake", ["IC_2", "IC_1"])
    assert expected == merge_notices(head, later).key


def test_merged_key_equals_the_key_of_one_notice_with_both_items(
    make_notice: NoticeFactory,
) -> None:
    merged = merge_notices(make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",)))
    assert make_notice(item_ids=("IC_1", "IC_2")).key == merged.key


def test_head_keeps_its_creation_time_and_pr(make_notice: NoticeFactory) -> None:
    head = make_notice(item_ids=("IC_1",))
    merged = merge_notices(head, make_notice(item_ids=("IC_2",)))
    assert (head.created_at, head.pr, head.worker) == (merged.created_at, merged.pr, merged.worker)


def test_a_repeat_of_a_merged_notice_leaves_the_head_unchanged(
    make_notice: NoticeFactory,
) -> None:
    head = merge_notices(make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",)))
    assert head == merge_notices(head, make_notice(item_ids=("IC_2",)))


def test_a_comment_wake_mixed_with_another_kind_stays_a_comment_wake(
    make_notice: NoticeFactory,
) -> None:
    head = make_notice(kind="check-failed", item_ids=("CR_1",))
    later = make_notice(kind="comment-wake", item_ids=("IC_2",))
    assert "comment-wake" == merge_notices(head, later).kind


@pytest.mark.parametrize(
    "other",
    [{"worker": "w-other"}, {"number": 8}, {"kind": "handoff"}],
)
def test_notices_for_another_worker_or_pr_or_a_handoff_do_not_merge(
    make_notice: NoticeFactory, other: dict[str, object]
) -> None:
    head = make_notice(item_ids=("IC_1",))
    later = make_notice(item_ids=("IC_2",), **other)
    with pytest.raises(ValueError, match="same worker"):
        merge_notices(head, later)
    assert not can_merge(head, later)


def test_notices_whose_merged_text_would_not_fit_a_hook_with_a_hand_off_do_not_merge(
    make_notice: Callable[..., Notice],
) -> None:
    # NOTICE_BUILD_LIMIT (8,500): room is left for a hand-off's header.
    head = make_notice(item_ids=("IC_1",), text="a" * 5_000)
    later = make_notice(item_ids=("IC_2",), text="b" * 3_600)
    fits = make_notice(item_ids=("IC_3",), text="c" * 3_400)
    assert (False, True) == (can_merge(head, later), can_merge(head, fits))


def test_notices_of_one_pr_in_two_letter_cases_merge(make_notice: NoticeFactory) -> None:
    head = make_notice(item_ids=("IC_1",))
    typed = msgspec.structs.replace(head.pr, repo="O/R")
    later = msgspec.structs.replace(make_notice(item_ids=("IC_2",)), pr=typed)
    assert can_merge(head, later)
