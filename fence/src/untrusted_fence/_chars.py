"""Code point classes and character-level cleaning, decided against the pinned Unicode tables.

Speed: most text is made of a few common, assigned, allowed blocks.  Those are recognised by
a short character class; only runs outside it go through a memoised per-code-point decision
(``str.translate``), so every step stays in C and linear.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from . import _tables
from ._recent import registered
from ._ucd import name, normalize

__all__ = [
    "ASCII_EXPANDING",
    "ASCII_FOLD_BYTES",
    "BRACKETS",
    "NEUTRAL_BRACKETS",
    "casefold",
    "clean_chars",
    "delete_chars",
    "delete_chars_utf8",
    "fold",
    "is_forbidden",
    "is_tidy",
    "is_unassigned",
    "strip_marks",
    "tidy_whitespace",
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


def _is_mark(cp: int) -> bool:
    return _in(_tables.COMBINING_MARKS, _MARKS_LO, cp)


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


# Common blocks, every code point of which is assigned, allowed and not special in 18.0.0
# (checked by a test).  Anything else goes through _CHARMAP.
_COMMON = (
    "\t\n\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0377\u037a-\u037f\u0384-\u038a"
    "\u0400-\u052f\u2010-\u2027\u2030-\u205e\u2070-\u2071\u2074-\u208e\u20a0-\u20c0"
    "\u2100-\u218b\u2190-\u2426\u2440-\u244a\u2460-\u27e5\u27e8-\u27eb\u27ee-\u27ff\u2801-\u2982\u2987-\u2b73"
    "\u3001-\u3009\u3041-\u3096\u30a1-\u30ff\u4e00-\u9fff\uac00-\ud7a3"
)
_SUSPECT_RE = re.compile(f"[^{_COMMON}]++")
_ASCII_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]++")


# Short runs seen before (an emoji, an accented letter outside the common blocks) are looked up
# instead of translated again: text such as a comment repeats the same few runs many times.
_FIXED_RUNS: dict[str, str] = {}


def _fix_run(match: re.Match[str]) -> str:
    run = match.group()
    fixed = _FIXED_RUNS.get(run)
    if fixed is None:
        fixed = _translate(run, _CHARMAP, _decide)
        if len(run) <= 16:
            if len(_FIXED_RUNS) > 1 << 14:
                _FIXED_RUNS.clear()
            _FIXED_RUNS[run] = fixed
    return fixed


_PLAIN_ASCII = bytes([0x09, 0x0A, *range(0x20, 0x7F)])
# Characters whose own decision keeps them (filled for the characters actually seen).
_KEPT: set[str] = set()


def _all_kept(chars: set[str]) -> bool:
    """Whether the per-character decision keeps each of ``chars`` as it is."""
    unknown = chars - _KEPT
    if not unknown:
        return True
    if len(_KEPT) > 1 << 17:
        _KEPT.clear()
    kept = True
    for char in unknown:
        cp = ord(char)
        if cp not in _CHARMAP:
            _CHARMAP[cp] = _decide(cp)
        if _CHARMAP[cp] == cp:
            _KEPT.add(char)
        else:
            kept = False
    return kept


def clean_chars(text: str) -> str:
    """Character-level cleaning; idempotent and NFKC-stable (Unicode 18.0.0).

    Line separators become LF; blank-looking visible characters become spaces; forbidden code
    points are removed before and after NFKC (removal can make new compositions); code points
    unassigned in Unicode 18.0.0 become U+FFFD; heavy brackets become plain ones.
    """
    # Bytes other than TAB, LF and printable ASCII, found with one C-level pass (a regex scan
    # costs a step per character): often there are none, or only a few distinct characters
    # that are all kept, and then the per-character decisions change nothing.
    raw = text.encode("utf-8", "surrogatepass")
    rest = raw.translate(None, _PLAIN_ASCII)
    if not rest:
        return text
    if len(raw) == len(text):
        return _ASCII_CONTROL_RE.sub("", text)
    if not _all_kept(_distinct(rest.decode("utf-8", "surrogatepass"))):
        text = _SUSPECT_RE.sub(_fix_run, text)
    while (again := normalize("NFKC", text)) != text:
        text = _SUSPECT_RE.sub(_fix_run, again)
    return text


_LONG_SPACE_RE = re.compile(r"[ \t]{33,}+")
_BLANK_LINES_RE = re.compile(r"\n{4,}+")
# (A literal of two characters: the regex engine skips ahead faster than str.__contains__.)
_SPACE_BEFORE_NEWLINE_RE = re.compile(" \n")


def tidy_whitespace(text: str) -> str:
    """Trailing spaces go, runs of spaces are capped at 32, runs of blank lines at two."""
    # Each regex runs only when a plain substring test says it can match (scanning every
    # space with a regex costs more than the whole test).  The tests read a tab as a space.
    probe = text.replace("\t", " ") if "\t" in text else text
    if " " * 33 in probe:
        text = _LONG_SPACE_RE.sub(lambda m: m.group()[:32], text)
    if probe.endswith(" ") or _SPACE_BEFORE_NEWLINE_RE.search(probe):
        text = "\n".join([line.rstrip(" \t") for line in text.split("\n")])
    if "\n\n\n\n" in text:
        text = _BLANK_LINES_RE.sub("\n\n\n", text)
    return text.strip("\n")


def is_tidy(text: str) -> bool:
    """``tidy_whitespace(text) == text``, by substring tests (every change it makes shortens
    the text): no run of 33 spaces, no space at a line's end, no four line feeds in a row, no
    line feed first or last."""
    if "\t" in text:
        return tidy_whitespace(text) == text
    return not (
        text.startswith("\n")
        or text.endswith(("\n", " "))
        or " " * 33 in text
        or "\n\n\n\n" in text
        or _SPACE_BEFORE_NEWLINE_RE.search(text)
    )


_MARKMAP: dict[int, int | None] = {}


def _mark_or_keep(cp: int) -> int | None:
    return None if _is_mark(cp) else cp


_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]++")
_NON_ASCII_SPLIT_RE = re.compile(r"([^\x00-\x7f]++)")


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


def _fold_slow(text: str) -> str:
    text = text.translate(LETTER_LOOKALIKES)
    text = strip_marks(_skeleton(strip_marks(_skeleton(text).casefold())))
    text = text.translate(LETTER_LOOKALIKES)
    return text.replace("rn", "m").replace("l", "i")


_FOLDMAP: dict[int, str] = {}


def _fold_char(cp: int) -> str:
    return _fold_slow(chr(cp))


# The fold of ASCII as a byte table (each character that folds to one character; bytes >= 0x80
# map to themselves), and the ASCII characters that fold to another length, with their folds.
ASCII_FOLD_BYTES = bytes(
    ord(_fold_char(c)) if len(_fold_char(c)) == 1 else c for c in range(128)
) + bytes(range(128, 256))
ASCII_EXPANDING = [(chr(c), _fold_char(c)) for c in range(128) if len(_fold_char(c)) != 1]


_LONG = 4096
_Fn = Callable[[str], str]


def _remember_long(fn: _Fn) -> _Fn:
    """``fn`` with its results for the last four long inputs kept: one fence call computes the
    same view of the same long text twice (marker detection, then the nonce check), and
    detection views up to three texts in between (the text, its visible and tag-free
    variants)."""
    recent: list[tuple[str, str]] = registered([])

    def remembered(text: str) -> str:
        if len(text) < _LONG:
            return fn(text)
        for seen, result in recent:
            if seen is text or seen == text:
                return result
        result = fn(text)
        recent[:] = [(text, result), *recent[:3]]
        return result

    return functools.wraps(fn)(remembered)


@_remember_long
def fold(text: str) -> str:
    """A lossy detection view: lookalikes (UTS #39 skeleton), case and combining marks folded.

    Only for detection, character by character.  The same function is applied to the patterns,
    so a letter and each of its lookalikes, in any script and either case, fold alike.
    """
    # ASCII through a byte table (bytes >= 0x80 map to themselves), then the non-ASCII
    # characters: one replace per distinct character when there are few, else run by run.
    # The last step, "rn" to "m", is taken on the ASCII letters' bytes (in UTF-8, faster than
    # on a wide string), and again at the end only where a folded non-ASCII character can make
    # a new pair: the pairs of ASCII letters are the same before and after (the other steps
    # change no "r" or "n" and make none from ASCII characters).
    raw = text.encode("utf-8", "surrogatepass")
    ascii_folded = raw.translate(ASCII_FOLD_BYTES)
    if b"rn" in ascii_folded:
        ascii_folded = ascii_folded.replace(b"rn", b"m")
    text = ascii_folded.decode("utf-8", "surrogatepass")
    joins = False
    if not raw.isascii():
        text, joins = _fold_non_ascii(text, raw)
    for char, folded in ASCII_EXPANDING:
        if char in text:
            text = text.replace(char, folded)
    return text.replace("rn", "m") if joins else text


_ASCII_BYTES = bytes(range(128))
_FEW_DISTINCT = 48


def _fold_non_ascii(text: str, raw: bytes) -> tuple[str, bool]:
    """``text`` with its non-ASCII characters folded, and whether a folded one holds an "r" or
    an "n" (or may: many distinct characters are folded run by run)."""
    distinct = _distinct(raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    if len(distinct) <= _FEW_DISTINCT:
        changes = {c: f for c in distinct if (f := _fold_of(c)) != c}
        # Replacing one character after another is only the same as one simultaneous
        # mapping when no replacement holds a character that is itself replaced.
        if not any(ch in changes for f in changes.values() for ch in f):
            for char, folded in changes.items():
                text = text.replace(char, folded)
            return text, any("r" in f or "n" in f for f in changes.values())
    return "\n".join([ln if ln.isascii() else _fold_line(ln) for ln in text.split("\n")]), True


def _distinct(text: str) -> set[str]:
    """``set(text)``, found by taking out one character after another (each a pass in C) while
    each takes out a sixteenth of what is left; then by ``set`` (a step per character)."""
    found: set[str] = set()
    while text:
        char = text[0]
        found.add(char)
        rest = text.replace(char, "")
        if (len(text) - len(rest)) * 16 < len(text):
            found.update(rest)
            return found
        text = rest
    return found


def _fold_of(char: str) -> str:
    cp = ord(char)
    folded = _FOLDMAP.get(cp)
    if folded is None:
        if len(_FOLDMAP) > 1 << 17:
            _FOLDMAP.clear()
        folded = _FOLDMAP[cp] = _fold_char(cp)
    return folded


def _fold_line(line: str) -> str:
    parts = _NON_ASCII_SPLIT_RE.split(line)
    parts[1::2] = [_RUN_CACHE.get(run) or _fold_run(run) for run in parts[1::2]]
    return "".join(parts)


@_remember_long
def casefold(text: str) -> str:
    """``str.casefold``, with a fast path for ASCII (where it is ``lower``)."""
    if text.isascii():
        return text.encode("ascii").lower().decode("ascii")
    # str.casefold maps character by character.  The ASCII letters are lowered in the UTF-8
    # bytes (every byte of a longer sequence is >= 0x80, which ``lower`` leaves alone); then
    # each of the few distinct other characters that casefold changes is replaced.
    raw = text.encode("utf-8", "surrogatepass")
    distinct = _distinct(raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    if len(distinct) > _FEW_DISTINCT:
        return text.casefold()
    changes = {c: f for c in distinct if (f := c.casefold()) != c}
    # (One replacement after another is one simultaneous mapping only when no replacement
    # holds a character that is itself replaced.)
    if any(ch in changes for f in changes.values() for ch in f):
        return text.casefold()
    out = raw.lower().decode("utf-8", "surrogatepass")
    for char, folded in changes.items():
        out = out.replace(char, folded)
    return out


def delete_chars(text: str, ascii_chars: bytes, others: str = "") -> str:
    """``text`` without the ASCII characters ``ascii_chars`` and the non-ASCII characters
    ``others``."""
    return delete_chars_utf8(text, ascii_chars, others).decode("utf-8", "surrogatepass")


def delete_chars_utf8(
    text: str, ascii_chars: bytes, others: str = "", raw: bytes | None = None
) -> bytes:
    """:func:`delete_chars` in UTF-8 (for a search of bytes, no decoding back).  ``raw``, when
    given, is the UTF-8 of ``text`` (not encoded again: UTF-8 is self-synchronising, so
    deleting a character's bytes deletes the character)."""
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    out = raw.translate(None, ascii_chars)
    if others and not raw.isascii():
        for char in _present(text, raw, others):
            out = out.replace(char.encode("utf-8", "surrogatepass"), b"")
    return out


def _present(text: str, raw: bytes, chars: str) -> list[str]:
    """Those of the non-ASCII ``chars`` that occur in ``text`` (``raw`` is its UTF-8)."""
    # A character of k bytes adds k - 1 to the length, so there are at most twice as many
    # non-ASCII bytes as the UTF-8 adds.
    if (len(raw) - len(text)) * 16 <= len(raw):
        # Few non-ASCII bytes: the characters are looked for among them alone.
        rest = raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
        return [char for char in chars if char in rest]
    # (A scan of the text finds a character faster than one of many bytes.)
    return [char for char in chars if char in text]


_RUN_CACHE: dict[str, str] = {}


def _fold_run(run: str) -> str:
    folded = _translate(run, _FOLDMAP, _fold_char)
    if len(run) <= 16:
        if len(_RUN_CACHE) > 1 << 14:
            _RUN_CACHE.clear()
        _RUN_CACHE[run] = folded
    return folded
