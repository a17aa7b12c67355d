"""The scan's runs over whole stretches of text give exactly what walking them line by line
gives (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _blocks


def _line_by_line(text: str) -> _blocks.Blocks:
    """The block walk with only the plain runs, fenced code and HTML blocks skipped at the top
    level (every other line walked on its own)."""
    walk = _blocks._Walk()
    walk.runs = False
    start, size = 0, len(text)
    while start <= size:
        if not walk.stack:
            start = walk.skip(text, start)
            if start > size:
                break
        end = text.find("\n", start)
        end = size if end < 0 else end
        walk.line(text, start, end)
        start = end + 1
    walk.truncate(0, size)
    return walk.out


# Lines that start with "[" (footnote definitions and link-reference definitions among them),
# fences that close, fail to close or cannot open, and the lines around them.
_SCAN_LINES = [
    "[a", "[fence-like marker removed] x", "[a]: /u", "[a]:", "[^n]: note", "[^n", "[^ x]: y",
    "[", "[[x]]", "  [a", "x", "text [a", "", "", "", "===", "---", "-|-", "a|b", "|x|",
    "```", "````", "```py x", "``` x`", "``", "~~~", "~~~~", "~~~ a`b", "   ```", "    ```",
    "  ~~~", "```  ", "```\t", "``` x", "~~~ ", "- a", "1. b", "2. c", "> q", "<div>", "<b>",
    "# h", "    code", "\tx", "-", "* * *",
]  # fmt: skip
scan_text = st.lists(st.sampled_from(_SCAN_LINES), max_size=30).map("\n".join) | st.lists(
    st.sampled_from(_SCAN_LINES), max_size=30
).map(lambda lines: "".join(line + "\n" for line in lines))


# A fenced code block whose opening and closing runs differ in length or kind, with lines inside
# that may close it or not, between other lines.
_OPENERS = ["```", "````", "~~~", "~~~~", "  ```py", "   ~~~ x", "``` a`", "    ```", "```x y"]
_CLOSERS = ["```", "````", "`````", "~~~", "~~~~", "   ```", "    ```", "``` ", "```\t", "``` x"]
_INSIDE = ["x", "", "  ``", "[a", "- a", "<div>", *_CLOSERS]


@st.composite
def fence_text(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(_SCAN_LINES), max_size=4))
    lines.append(draw(st.sampled_from(_OPENERS)))
    lines += draw(st.lists(st.sampled_from(_INSIDE), max_size=5))
    lines += draw(st.lists(st.sampled_from(_CLOSERS), max_size=2))
    lines += draw(st.lists(st.sampled_from(_SCAN_LINES), max_size=4))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@given(scan_text)
def test_runs_of_bracket_lines_equal_the_line_by_line_walk(text: str) -> None:
    assert _line_by_line(text) == _blocks.blocks(text)


@given(fence_text())
def test_whole_fenced_blocks_in_one_step_equal_the_line_by_line_walk(text: str) -> None:
    assert _line_by_line(text) == _blocks.blocks(text)
