"""Every notice fits a hook, with room for a hand-off: its text never exceeds
``NOTICE_BUILD_LIMIT`` (``NOTICE_BUILD_LIMIT`` less ``HANDOFF_HEADER_MAX``; Claude Code drops
hook output over 10,000 characters).  A text too long for a notice of its own is cut with
its URL; a batch or a review too long for one notice becomes several parts, in order, split
only after a fence's URL line (issue 25, items 2 and 3)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from comment_wake._limits import NOTICE_BUILD_LIMIT
from comment_wake.wake import build_notice, build_notices
from review_monitor import Author, BadgeItem, InlineComment, ItemDetail, PrRef, PrStatus

T0 = datetime(2026, 12, 1, 10, tzinfo=UTC)
PR = PrRef(owner="acme", name="widget", number=12)
STATUS = PrStatus(
    pr=PR,
    title="Fix it",
    url="https://github.com/acme/widget/pull/12",
    state="OPEN",
    merged=False,
    is_draft=False,
    head_ref_oid="abc",
    review_decision=None,
    check_state=None,
    comments=(),
    reviews=(),
    person_comments_from=None,
)


def comment(n: int, body: str, inline: tuple[str, ...] = ()) -> tuple[BadgeItem, ItemDetail]:
    url = f"https://github.com/acme/widget/pull/12#issuecomment-{n}"
    kind = "review" if inline else "comment"
    item = BadgeItem(kind, f"IC_{n}", n, T0 + timedelta(seconds=n), Author("alice"))
    notes = tuple(
        InlineComment(f"RC_{n}_{i}", None, "app.py", i, None, text, f"{url}-r{i}")
        for i, text in enumerate(inline)
    )
    return item, ItemDetail(f"IC_{n}", kind, body, url, inline=notes)


def notices(*comments: tuple[BadgeItem, ItemDetail]) -> list[str]:
    built = build_notices("w-7", STATUS, comments, now=T0, rng=random.Random(1))
    return [n.text for n in built]


def test_a_long_comment_is_cut_to_fit_and_says_where_to_read_the_rest() -> None:
    texts = notices(comment(1, "word " * 4_000))
    url = "https://github.com/acme/widget/pull/12#issuecomment-1"
    assert (1, True, True, True) == (
        len(texts),
        len(texts[0]) <= NOTICE_BUILD_LIMIT,
        f"{url}\nCut to fit this notice: read the whole comment at the link above." in texts[0],
        [line.startswith("<<<untrusted-comment-end ") for line in texts[0].splitlines()].count(True)
        == 1,
    )


def test_a_batch_too_long_for_one_notice_becomes_several_in_order() -> None:
    built = build_notices(
        "w-7",
        STATUS,
        [comment(n, f"Comment {n}: " + "x" * 5_000) for n in range(1, 4)],
        now=T0,
        rng=random.Random(1),
    )
    items = [[i.id for i in n.items] for n in built]
    sizes = [len(n.text) <= NOTICE_BUILD_LIMIT for n in built]
    keys = {n.key for n in built}
    assert ([["IC_1"], ["IC_2"], ["IC_3"]], [True] * 3, 3) == (items, sizes, len(keys))


def test_comments_that_fit_together_stay_one_notice() -> None:
    texts = notices(comment(1, "One."), comment(2, "Two."))
    assert [True] == [("One." in t and "Two." in t) for t in texts]


@pytest.mark.parametrize("size", [9_000, 9_500, 12_000, 60_000])
def test_a_review_with_long_inline_comments_goes_out_in_parts_each_within_the_limit(
    size: int,
) -> None:
    texts = notices(comment(1, "r" * size, inline=("i" * size, "j" * size)))
    assert [True] * 3 == [len(t) <= NOTICE_BUILD_LIMIT for t in texts]


@pytest.mark.parametrize("count", [20, 40])
def test_a_review_with_many_inline_comments_is_split_whole_never_cut(count: int) -> None:
    inline = tuple(
        f"Inline note {i}: " + "please rename this variable. " * 12 for i in range(count)
    )
    built = build_notices("w-7", STATUS, [comment(1, "Summary.", inline)], now=T0, rng=None)
    fits = all(len(n.text) <= NOTICE_BUILD_LIMIT for n in built)
    cut = any("Cut to fit this notice" in n.text for n in built)
    every = all(any(f"Inline note {i}: " in n.text for n in built) for i in range(count))
    assert (True, False, True) == (fits, cut, every)


def test_each_part_says_which_it_is_at_the_end_of_its_first_line() -> None:
    inline = tuple("x" * 3_000 for _ in range(4))
    built = build_notices("w-7", STATUS, [comment(1, "Summary.", inline)], now=T0, rng=None)
    firsts = [n.text.splitlines()[0] for n in built]
    expected = [
        f"Comment from @alice on Fix it (acme/widget#12) (part {i} of {len(built)})."
        for i in range(1, len(built) + 1)
    ]
    assert (expected, [(n.part, n.parts) for n in built]) == (
        firsts,
        [(i, len(built)) for i in range(1, len(built) + 1)],
    )


def test_each_part_repeats_the_instruction_and_carries_its_own_items() -> None:
    inline = tuple("x" * 3_000 for _ in range(4))
    built = build_notices("w-7", STATUS, [comment(1, "Summary.", inline)], now=T0, rng=None)
    items = [i.id for n in built for i in n.items]
    ends = {n.text.splitlines()[-1] for n in built}
    assert (["IC_1", *(f"RC_1_{i}" for i in range(4))], 1, len(built)) == (
        items,
        len(ends),
        len({n.key for n in built}),
    )


def test_a_single_notice_has_no_part_label() -> None:
    [built] = build_notices("w-7", STATUS, [comment(1, "Short.")], now=T0, rng=None)
    assert ((1, 1), False) == ((built.part, built.parts), "(part " in built.text)


def test_build_notice_refuses_a_batch_that_needs_several() -> None:
    batch = [comment(n, "x" * 6_000) for n in range(1, 3)]
    with pytest.raises(ValueError, match="2 notices"):
        build_notice("w-7", STATUS, batch, now=T0, rng=random.Random(1))
