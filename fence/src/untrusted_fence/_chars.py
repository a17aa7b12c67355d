"""Code point classes and character-level cleaning, decided against the pinned Unicode tables.

Speed: each code point's decision is made once and remembered, and a text is mapped by
``str.translate``, so every step stays in C and linear.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from . import _tables
from ._ucd import name, normalize

__all__ = [
    "ASCII_EXPANDING",
    "ASCII_FOLD_BYTES",
    "BRACKETS",
    "NEUTRAL_BRACKETS",
    "casefold",
    "clean_chars",
    "delete_chars",
    "fold",
    "is_forbidden",
    "is_unassigned",
    "strip_marks",
]

_FORBIDDEN_LO = [lo for lo, _ in _tables.FORBIDDEN]
_UNASSIGNED_LO = [lo for lo, _ in _tables.UNASSIGNED]
_MARKS_LO = [lo for lo, _ in _tables.COMBINING_MARKS]


def _in(table: tuple[tuple[int, int], ...], los: list[int], cp: int) -> bool:
    i = bisect_right(los, cp) - 1
    return i >= 0 and table[i][0] <= cp <= table[i][1]


def is_forbidden(cp: int) -> bool:
    """Whether a code point is in the forbidden set (Unicode 18.0.0, never the runtime's)."""
    return _in(_tables.FORBIDDEN, _FORBIDDEN_LO, cp)


def is_unassigned(cp: int) -> bool:
    """Whether a code point is unassigned (Cn) in Unicode 18.0.0 and not otherwise forbidden."""
    return _in(_tables.UNASSIGNED, _UNASSIGNED_LO, cp)


# Heavy brackets and their lookalikes: only the fence's own hidden marks may use these.
BRACKETS = "\u27e6\u27e7\u301a\u301b\u27ec\u27ed\u2983\u2984\u2985\u2986\u3016\u3017\u3010\u3011"
NEUTRAL_BRACKETS = "[][][][][][][]"
_BRACKET_MAP = {ord(b): n for b, n in zip(BRACKETS, NEUTRAL_BRACKETS, strict=True)}
_SPECIAL: dict[int, str | None] = {
    0x2028: "\n",  # line and paragraph separators (Zl, Zp) and NEL read as line breaks
    0x2029: "\n",
    0x0085: "\n",
    0x2800: " ",  # blank-looking visible characters that NFKC keeps
    0x1680: " ",
    0x13441: " ",  # EGYPTIAN HIEROGLYPH FULL BLANK
    0x13442: " ",  # EGYPTIAN HIEROGLYPH HALF BLANK
    0x16FE4: " ",  # KHITAN SMALL SCRIPT FILLER
    0x303F: " ",  # IDEOGRAPHIC HALF FILL SPACE
    0x1D159: " ",  # MUSICAL SYMBOL NULL NOTEHEAD
}


def _decide(cp: int) -> str | int | None:
    if cp in _SPECIAL:
        return _SPECIAL[cp]
    if cp in _BRACKET_MAP:
        return _BRACKET_MAP[cp]
    if is_forbidden(cp):
        return None
    if is_unassigned(cp):
        return "\ufffd"  # the documented rule for code points unassigned in 18.0.0
    return cp


# Memoised decisions, filled for the code points actually seen (plain dict: translate is fast).
_CHARMAP: dict[int, str | int | None] = {}


def _translate(text: str, table: dict[int, Any], decide: Callable[[int], Any]) -> str:
    for ch in set(text):
        if ord(ch) not in table:
            table[ord(ch)] = decide(ord(ch))
    out = text.translate(table)
    if len(table) > 1 << 17:
        table.clear()
    return out


_ASCII_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]++")
# Characters whose own decision keeps them, as they are seen.
_KEPT: set[str] = set()


def _all_kept(chars: set[str]) -> bool:
    """Whether the per-character decision keeps each of ``chars`` as it is."""
    for char in chars - _KEPT:
        if _decide(ord(char)) != ord(char):
            return False
        if len(_KEPT) < 1 << 16:
            _KEPT.add(char)
    return True


def clean_chars(text: str) -> str:
    """Character-level cleaning, idempotent and NFKC-stable: line separators become LF,
    blank-looking characters spaces, unassigned code points U+FFFD, heavy brackets plain ones;
    forbidden code points go, before and after NFKC (removal can make new compositions)."""
    if text.isascii():
        return _ASCII_CONTROL_RE.sub("", text)
    if _all_kept(set(text)) and normalize("NFKC", text) == text:
        return text  # (a shortcut: every character kept as it is, and already NFKC)
    text = _translate(text, _CHARMAP, _decide)
    while (again := normalize("NFKC", text)) != text:
        text = _translate(again, _CHARMAP, _decide)
    return text


_MARKMAP: dict[int, int | None] = {}


def _mark_or_keep(cp: int) -> int | None:
    return None if _in(_tables.COMBINING_MARKS, _MARKS_LO, cp) else cp


def strip_marks(text: str) -> str:
    """NFD with combining marks (Mn, Me) removed: a detection view, never shown."""
    if text.isascii():
        return text
    return _translate(normalize("NFD", text), _MARKMAP, _mark_or_keep)


_CONFUSABLES = {cp: target for cp, target in _tables.CONFUSABLES}


def _skeleton(text: str) -> str:
    # UTS #39 skeleton: NFD, prototype map, NFD.
    return normalize("NFD", normalize("NFD", text).translate(_CONFUSABLES))


def _letter_lookalikes() -> dict[int, str]:
    """Letters with no compatibility mapping and no confusables entry that still read as Latin
    letters: small capitals (``ᴇɴᴅ``), negative squared and circled letters, regional
    indicators.  Derived from the character names in the pinned tables."""
    ranges = [(0x0250, 0x02AF), (0x1D00, 0x1D2B), (0xA720, 0xA7FF), (0x1F100, 0x1F1FF)]
    out: dict[int, str] = {}
    for lo, hi in ranges:
        for cp in range(lo, hi + 1):
            match = _LOOKALIKE_NAME_RE.fullmatch(name(chr(cp)))
            if match is not None:
                out[cp] = match.group(1).lower()
    return out


_LOOKALIKE_NAME_RE = re.compile(
    r"(?:LATIN LETTER SMALL CAPITAL|LATIN CAPITAL LETTER SMALL CAPITAL"
    r"|(?:NEGATIVE )?(?:SQUARED|CIRCLED) LATIN CAPITAL LETTER"
    r"|REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])"
)
LETTER_LOOKALIKES = _letter_lookalikes()


def _fold_char(cp: int) -> str:
    text = chr(cp).translate(LETTER_LOOKALIKES)
    text = strip_marks(_skeleton(strip_marks(_skeleton(text).casefold())))
    return text.translate(LETTER_LOOKALIKES).replace("rn", "m").replace("l", "i")


_FOLDMAP: dict[int, str] = {}


# The fold of ASCII as a byte table (each character that folds to one character; bytes >= 0x80
# map to themselves), and the ASCII characters that fold to another length, with their folds.
ASCII_FOLD_BYTES = bytes(
    ord(_fold_char(c)) if len(_fold_char(c)) == 1 else c for c in range(128)
) + bytes(range(128, 256))
ASCII_EXPANDING = [(chr(c), _fold_char(c)) for c in range(128) if len(_fold_char(c)) != 1]


def fold(text: str) -> str:
    """A lossy detection view: lookalikes (UTS #39 skeleton), case and combining marks folded,
    character by character, then "rn" read as "m".  The patterns are folded too, so a letter
    and each of its lookalikes, in any script and either case, fold alike."""
    if text.isascii():
        text = text.encode("ascii").translate(ASCII_FOLD_BYTES).decode("ascii")
        for char, folded in ASCII_EXPANDING:
            if char in text:
                text = text.replace(char, folded)
    else:
        text = _translate(text, _FOLDMAP, _fold_char)
    return text.replace("rn", "m")


def casefold(text: str) -> str:
    """``str.casefold`` (a detection view)."""
    return text.casefold()


def delete_chars(text: str, ascii_chars: bytes, others: str = "") -> str:
    """``text`` without the ASCII characters ``ascii_chars`` and the characters ``others``."""
    out = text.encode("utf-8", "surrogatepass").translate(None, ascii_chars)
    text = out.decode("utf-8", "surrogatepass")
    for char in others:
        if char in text:
            text = text.replace(char, "")
    return text
