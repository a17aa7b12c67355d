"""Mention mode's text rules: does a comment mention the binding's handle, and does it
start with the skip marker.  Pure, on the raw text (no rendering).

What counts as a mention: the handle, case-insensitive, as a whole word, in the text a
reader sees as the comment's own words, so not inside

* a fenced code block (``` or ~~~, closed by a fence of the same character at least as
  long, or by the end of the text);
* a quote line (a line whose first non-space character, within three spaces, is ``>``);
* an HTML comment (``<!--`` to ``-->``, across lines; unclosed: to the end of the text).

Whole word: no letter, digit, ``_``, ``-``, ``.``, ``/`` or ``@`` right before the handle,
and no letter, digit, ``_``, ``-`` or ``/`` right after it (so ``/agent`` is not found in
``/agents``, ``docs/agent`` or ``/agent/run``, and is in ``(/agent)`` and ``/agent,``).

Each hiding rule is one named, compiled pattern (``HIDING_RULES``), and the scan is one
pass over the lines: every pattern is anchored or a literal, with no nested repetition,
and each character is looked at a bounded number of times, so hostile input (a long run
of ``<!--``, of fences or of near-handles) costs time linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = [
    "HANDLE_MAX",
    "HIDING_RULES",
    "HidingRule",
    "check_handle",
    "mentions",
    "starts_with_marker",
    "visible_segments",
]

HANDLE_MAX = 64
"""The longest handle accepted (the scan's cost grows with it)."""


@dataclass(frozen=True, slots=True)
class HidingRule:
    """One kind of text that hides a mention: its name and its pattern."""

    name: str
    pattern: re.Pattern[str]


_FENCE = HidingRule("fenced-code", re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})"))
_QUOTE = HidingRule("quote", re.compile(r" {0,3}>"))
_COMMENT_OPEN = HidingRule("html-comment", re.compile(re.escape("<!--")))
_COMMENT_CLOSE = HidingRule("html-comment-end", re.compile(re.escape("-->")))

HIDING_RULES: tuple[HidingRule, ...] = (_FENCE, _QUOTE, _COMMENT_OPEN, _COMMENT_CLOSE)
"""The rules that hide text from the mention search, as data (module docstring)."""

# Whole-word guards around the escaped handle (one character each way, fixed width).
_BEFORE = r"(?<![\w./@-])"
_AFTER = r"(?![\w/-])"


def check_handle(handle: str) -> str | None:
    """Why ``handle`` cannot be a mention handle; None when it can."""
    if not handle.strip():
        return "the handle is empty"
    if handle != handle.strip() or any(c.isspace() for c in handle):
        return "the handle must be one word, without spaces"
    if len(handle) > HANDLE_MAX:
        return f"the handle is longer than {HANDLE_MAX} characters"
    return None


def _handle_pattern(handle: str) -> re.Pattern[str]:
    return re.compile(_BEFORE + re.escape(handle) + _AFTER, re.IGNORECASE)


def visible_segments(text: str) -> Iterator[str]:
    """The parts of ``text`` outside fenced code, quote lines and HTML comments, in order
    (one or more per line; a segment never spans a line break)."""
    fence: str | None = None  # the open fence's characters, while inside one
    in_comment = False
    for line in text.splitlines():
        if in_comment:
            end = _COMMENT_CLOSE.pattern.search(line)
            if end is None:
                continue
            # The rest of the line after the comment closes is plain text: no fence or
            # quote starts mid-line.
            segments, in_comment = _outside_comments(line[end.end() :])
            yield from segments
            continue
        if fence is not None:
            m = _FENCE.pattern.match(line)
            if (
                m is not None
                and m["fence"][0] == fence[0]
                and len(m["fence"]) >= len(fence)
                and not line[m.end() :].strip()
            ):
                fence = None
            continue
        m = _FENCE.pattern.match(line)
        if m is not None and not (m["fence"][0] == "`" and "`" in line[m.end() :]):
            fence = m["fence"]
            continue
        if _QUOTE.pattern.match(line) is not None:
            continue
        segments, in_comment = _outside_comments(line)
        yield from segments


def _outside_comments(line: str) -> tuple[list[str], bool]:
    """The parts of one line outside the HTML comments that open on it, and whether the
    last of those comments is still open at the line's end."""
    out: list[str] = []
    pos = 0
    while True:
        start = _COMMENT_OPEN.pattern.search(line, pos)
        if start is None:
            out.append(line[pos:])
            return out, False
        out.append(line[pos : start.start()])
        end = _COMMENT_CLOSE.pattern.search(line, start.end())
        if end is None:
            return out, True
        pos = end.end()


def mentions(texts: Iterable[str], handle: str) -> bool:
    """Some text in ``texts`` (a comment's body, a review's summary and inline comments)
    mentions ``handle`` outside fenced code, quote lines and HTML comments."""
    if check_handle(handle) is not None:
        return False
    pattern = _handle_pattern(handle)
    return any(
        pattern.search(segment) is not None for text in texts for segment in visible_segments(text)
    )


def starts_with_marker(texts: Iterable[str], marker: str) -> bool:
    """The first non-blank line of the first non-blank text starts with ``marker``
    (leading spaces ignored, case-insensitive); never for an empty marker."""
    wanted = marker.strip().casefold()
    if not wanted:
        return False
    # Imported here: the registry checks handles with this module, and the command line's
    # fast commands must not load the fence.
    from untrusted_fence import is_blank

    for text in texts:
        for line in text.splitlines():
            if not is_blank(line):
                return line.lstrip().casefold().startswith(wanted)
    return False
