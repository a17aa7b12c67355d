"""``one_line``: a cleaned, single-line, capped title for a plain header line."""

from __future__ import annotations

import pytest

from untrusted_fence import clean, one_line


def test_one_line_collapses_lines_and_runs_of_whitespace() -> None:
    assert "fix: the thing" == one_line("fix:\n\tthe   thing \r\n")


def test_one_line_is_cleaned_like_a_fenced_body() -> None:
    title = "rename\u200b the \u202eflag"
    assert " ".join(clean(title).split()) == one_line(title)


def test_one_line_caps_with_an_ellipsis() -> None:
    assert ("x" * 9 + "…", 10) == (one_line("x" * 50, 10), len(one_line("x" * 50, 10)))


def test_one_line_refuses_a_cap_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        one_line("title", 0)
