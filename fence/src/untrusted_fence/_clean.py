"""The seed's cleaning (docs/fence.md, "Cleaning"), applied to each piece of the worker's view.

It runs after rendering, never before: removing a zero-width character or NFKC of ``﹣﹣﹥``
before cmark-gfm would close an HTML comment GitHub keeps open.  Tag characters (U+E0020 to
U+E007E) spell ASCII invisibly ("ASCII smuggling"): a run of them is shown decoded in a hidden
mark, then removed.  Concealed ANSI text and command-string payloads are hidden too.
"""

from __future__ import annotations

import re
from typing import Literal

from . import _tables
from ._ansi import strip_ansi
from ._chars import clean_chars

__all__ = ["SPACE_RUN_CAP", "WHITESPACE", "Cleaned", "clean_text", "is_blank"]

Cleaned = list[tuple[Literal["shown", "hidden"], str]]

_TAG_RUN_RE = re.compile("[\U000e0000-\U000e007f]++")
SPACE_RUN_CAP = 32
_LONG_SPACE_RE = re.compile(rf"[ \t]{{{SPACE_RUN_CAP + 1},}}+")


def _tag_note(run: str) -> Cleaned:
    spelled = "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)
    return [("hidden", f'tag characters "{spelled}"')] if spelled else []


def clean_text(text: str, *, code: bool = False) -> Cleaned:
    """``text`` cleaned, as shown and hidden parts in order (a hidden part: tag characters
    spelled out, a concealed or payload ANSI span).  ``code``: no space-run cap."""
    out: Cleaned = []
    pos = 0
    for m in _TAG_RUN_RE.finditer(text):
        out += _without_tags(text[pos : m.start()], code)
        out += _tag_note(m.group())
        pos = m.end()
    return out + _without_tags(text[pos:], code)


def _without_tags(text: str, code: bool) -> Cleaned:
    ansi = strip_ansi(text)
    out: Cleaned = []
    pos = 0
    for s, e in ansi.hidden:
        out += [("shown", _chars(ansi.text[pos:s], code)), ("hidden", _chars(ansi.text[s:e], code))]
        pos = e
    out.append(("shown", _chars(ansi.text[pos:], code)))
    return [(k, t) for k, t in out if t]


def _chars(text: str, code: bool) -> str:
    text = clean_chars(text)
    if not code and "  " in text:
        text = _LONG_SPACE_RE.sub(lambda m: m.group()[:SPACE_RUN_CAP], text)
    return text


# White space: the ASCII controls that break lines or space text, and the code points of
# categories Zs, Zl and Zp in the pinned tables (a test checks this list against them).
WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_BLANK_RE = re.compile(
    "["
    + re.escape(WHITESPACE)
    + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _tables.FORBIDDEN)
    + "]*+"
)


def is_blank(text: str) -> bool:
    """The seed's ``blank`` rule on the raw text: nothing but white space and the invisible
    characters cleaning removes.  One linear scan, no rendering: it runs before
    ``write-access``, on anyone's text.  Text that only GitHub hides (an HTML comment) is not
    blank here; a rendered :class:`View` with nothing shown decides that, after it."""
    return _BLANK_RE.fullmatch(text) is not None
