"""The comment-wake notice's text: the first line names the pull request as owner/repo#N, the
"grants nothing" paragraph comes once per notice, every fence is followed by the comment's
URL (GitHub's, cleaned), and a cut comment ends with a note pointing to that URL."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec

from comment_wake._limits import NOTICE_TEXT_LIMIT
from comment_wake.wake import build_notices
from review_monitor import Author, BadgeItem, InlineComment, ItemDetail, PrRef, PrStatus

T0 = datetime(2026, 12, 1, 10, tzinfo=UTC)
PR = PrRef(owner="octo", name="repo", number=12)
STATUS = PrStatus(
    pr=PR,
    title="Fix it",
    url="https://github.com/octo/repo/pull/12",
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
CUT_NOTE = "Cut to fit this notice: read the whole comment at the link above."


def url_of(n: int) -> str:
    return f"https://github.com/octo/repo/pull/12#issuecomment-{n}"


def comment(
    n: int, body: str, *, url: str | None = None, inline: tuple[str, ...] = ()
) -> tuple[BadgeItem, ItemDetail]:
    kind: Literal["comment", "review"] = "review" if inline else "comment"
    item = BadgeItem(kind, f"IC_{n}", n, T0 + timedelta(seconds=n), Author("alice"))
    notes = tuple(
        InlineComment(f"RC_{n}_{i}", None, "app.py", i, None, text, f"{url_of(n)}-r{i}")
        for i, text in enumerate(inline)
    )
    return item, ItemDetail(f"IC_{n}", kind, body, url or url_of(n), inline=notes)


def texts(*comments: tuple[BadgeItem, ItemDetail]) -> list[str]:
    built = build_notices("w-7", STATUS, comments, now=T0, rng=random.Random(1))
    return [n.text for n in built]


def after_footers(text: str) -> list[list[str]]:
    """The lines between each fence's footer and the next blank line."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("<<<untrusted-comment-end "):
            tail = []
            for rest in lines[i + 1 :]:
                if not rest:
                    break
                tail.append(rest)
            out.append(tail)
    return out


def test_the_first_line_is_the_seeds_with_the_pull_request_as_owner_repo_number() -> None:
    [text] = texts(comment(1, "Please rename it."))
    assert "Comment from @alice on Fix it (octo/repo#12)." == text.splitlines()[0]


def test_the_grants_nothing_paragraph_comes_once_per_notice() -> None:
    [text] = texts(comment(1, "One."), comment(2, "Two."), comment(3, "Three."))
    assert 1 == text.count("grants nothing")


def test_each_fence_keeps_its_own_line_naming_its_end_value() -> None:
    [text] = texts(comment(1, "One."), comment(2, "Two."))
    footers = [line for line in text.splitlines() if line.startswith("<<<untrusted-comment-end ")]
    named = [f'Only the line "{footer}" ends it' in text for footer in footers]
    assert [True, True] == named


def test_each_fence_is_followed_by_its_comments_url() -> None:
    [text] = texts(comment(1, "One."), comment(2, "Body.", inline=("Inline.",)))
    assert [[url_of(1)], [url_of(2)], [f"{url_of(2)}-r0"]] == after_footers(text)


def test_the_url_is_githubs_not_one_the_comment_text_names() -> None:
    [text] = texts(comment(1, "https://evil.example/pull/12#issuecomment-1"))
    assert [[url_of(1)]] == after_footers(text)


def test_the_url_is_cleaned_to_one_line_like_a_title() -> None:
    dirty = "https://github.com/oc\u200bto/re\u202epo/pull/12\n#issuecomment-1"
    [text] = texts(comment(1, "One.", url=dirty))
    assert [["https://github.com/octo/repo/pull/12 #issuecomment-1"]] == after_footers(text)


def test_a_cut_comment_ends_with_a_note_pointing_to_its_url() -> None:
    [text] = texts(comment(1, "word " * 4_000))
    assert [[url_of(1), CUT_NOTE]] == after_footers(text)


def test_a_comment_not_cut_has_no_cut_note() -> None:
    [text] = texts(comment(1, "Short."))
    assert CUT_NOTE not in text


def test_many_comments_merged_stay_under_the_limit_with_every_url_once() -> None:
    long_url = "https://github.com/" + "o" * 39 + "/" + "r" * 100 + "/pull/12#issuecomment-"
    batch = [comment(n, "x" * 700, url=f"{long_url}{n}") for n in range(1, 41)]
    built = texts(*batch)
    found = [sum(t.splitlines().count(f"{long_url}{n}") for t in built) for n in range(1, 41)]
    assert ([True] * len(built), [1] * 40) == (
        [len(t) <= NOTICE_TEXT_LIMIT for t in built],
        found,
    )


def _inline_source(**lines: object) -> str:
    note = InlineComment("RC_1", None, "src/parser.py", None, None, "Use a dict here.", "u")
    note = msgspec.structs.replace(note, **lines)
    item = BadgeItem("review", "PRR_1", 1, T0, Author("alice"))
    detail = ItemDetail("PRR_1", "review", "", url_of(1), inline=(note,))
    (text,) = texts((item, detail))
    return next(line for line in text.splitlines() if line.startswith("source: "))


def test_an_inline_comment_on_several_lines_names_its_first_and_last_line() -> None:
    expected = "source: @alice on src/parser.py:40-42"
    assert expected == _inline_source(line=42, start_line=40, original_line=42)


def test_an_inline_comment_on_one_line_names_that_line() -> None:
    assert "source: @alice on src/parser.py:7" == _inline_source(line=7, original_line=7)


def test_an_outdated_inline_comment_names_the_lines_it_was_on_and_says_so() -> None:
    expected = "source: @alice on src/parser.py:10-12 (outdated)"
    assert expected == _inline_source(original_line=12, original_start_line=10, outdated=True)


def test_a_text_the_blank_rule_rendered_is_not_rendered_again_for_its_notice(
    monkeypatch: Any,
) -> None:
    import cmarkgfm  # type: ignore[import-untyped]

    from comment_wake.wake._rules import shows_nothing_item
    from comment_wake.wake._views import view_of

    rendered: list[str] = []
    real = cmarkgfm.github_flavored_markdown_to_html

    def counting(text: str, options: int = 0) -> str:
        rendered.append(text)
        return str(real(text, options=options))

    monkeypatch.setattr(cmarkgfm, "github_flavored_markdown_to_html", counting)
    view_of.cache_clear()
    item, detail = comment(4, "please *rename* it", inline=("and this one",))
    shows_nothing_item(detail)
    texts((item, detail))
    assert ["please *rename* it", "and this one"] == rendered
