"""The mention detector: the handle, case-insensitive, as a whole word, outside fenced
code, quote lines and HTML comments; and the skip marker on the first non-blank line."""

from __future__ import annotations

import pytest

from comment_wake.wake import check_handle, mentions, starts_with_marker

HANDLE = "/agent"


@pytest.mark.parametrize(
    "body",
    [
        "/agent please rebase",
        "Please rebase, /agent.",
        "(/agent) please",
        "/AGENT please rebase",
        "/Agent, please",
        "first line\n\n/agent second paragraph",
        "```\ncode\n```\n/agent after the fence",
        "<!-- hidden --> /agent after the comment",
        "<!--\nhidden\n-->\n/agent after a long comment",
        "x --> /agent (a stray comment end is plain text)",
        "> a quote\n/agent outside it",
        "`/agent` in inline code",
        "~~~\n```\n~~~\n/agent after a tilde fence that held a backtick line",
    ],
)
def test_a_visible_whole_word_handle_is_a_mention(body: str) -> None:
    assert True is mentions([body], HANDLE)


@pytest.mark.parametrize(
    "body",
    [
        "no handle here",
        "/agents please",
        "/agent-x please",
        "/agent_x please",
        "docs/agent is a path",
        "./agent is a path",
        "run /agent/build",
        "x@/agent",
        "```\n/agent inside a fence\n```",
        "```python\n/agent inside a fence with an info string\n```",
        "~~~\n/agent inside a tilde fence\n~~~",
        "````\n```\n/agent: a shorter fence does not close a longer one\n````",
        "```\n/agent in a fence never closed",
        "   ```\n/agent in an indented fence\n   ```",
        "> /agent in a quote",
        "   > /agent in an indented quote",
        "<!-- /agent in an HTML comment -->",
        "<!--\n/agent in a comment over lines\n-->",
        "<!-- never closed\n/agent",
        "a <!-- x --> b <!-- /agent --> c",
    ],
)
def test_a_hidden_or_partial_handle_is_no_mention(body: str) -> None:
    assert False is mentions([body], HANDLE)


def test_a_review_mentions_when_one_inline_comment_does() -> None:
    assert True is mentions(["Summary without it.", "nit", "/agent fix this line"], HANDLE)


def test_a_review_does_not_mention_when_no_text_does() -> None:
    assert False is mentions(["Summary.", "nit", "> /agent quoted"], HANDLE)


def test_a_handle_with_an_at_sign_is_matched_as_written() -> None:
    assert (True, False) == (
        mentions(["@my-agent go"], "@my-agent"),
        mentions(["@my-agent-two go"], "@my-agent"),
    )


def test_an_invalid_handle_mentions_nothing() -> None:
    assert False is mentions(["hello world"], "hello world")


@pytest.mark.parametrize("handle", ["", "  ", "two words", " /agent", "x" * 65])
def test_check_handle_refuses_what_cannot_be_a_handle(handle: str) -> None:
    assert check_handle(handle) is not None


def test_check_handle_accepts_a_slash_command() -> None:
    assert None is check_handle("/agent")


def test_a_200_kb_adversarial_body_is_scanned_in_one_pass() -> None:
    # Near-handles, unclosed comment openers and fence-like runs: every construct the
    # scan looks for, over and over, with no real mention.  Linear by construction (one
    # pass over the lines, literal or anchored patterns); this just must finish.
    unit = "/agen /agents <!-- -- ``` ~~ > x\n" + "<!--" * 8 + "\n-->\n" + "a" * 40 + "\n"
    body = (unit * (200_000 // len(unit) + 1))[:200_000]
    assert (200_000, False) == (len(body), mentions([body], HANDLE))


def test_a_200_kb_single_line_of_comment_openers_is_no_mention() -> None:
    body = "<!--" * 50_000 + "/agent"
    assert False is mentions([body], HANDLE)


@pytest.mark.parametrize(
    "texts",
    [
        ["/nowake just a note"],
        ["\n\n   /nowake after blank lines"],
        ["/NoWake in any case"],
        ["", "/nowake in the first inline comment of a review with no summary"],
    ],
)
def test_a_first_line_starting_with_the_marker_is_marked(texts: list[str]) -> None:
    assert True is starts_with_marker(texts, "/nowake")


@pytest.mark.parametrize(
    "texts",
    [
        ["note first\n/nowake on the second line"],
        ["a /nowake in the middle"],
        ["summary", "/nowake in an inline comment after a summary"],
    ],
)
def test_a_marker_not_on_the_first_non_blank_line_is_no_marker(texts: list[str]) -> None:
    assert False is starts_with_marker(texts, "/nowake")


def test_an_empty_marker_marks_nothing() -> None:
    assert False is starts_with_marker(["anything"], "")
