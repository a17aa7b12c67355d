"""The cleaning pipeline: raw text to the cleaned body (without the fence around it)."""

from __future__ import annotations

import re

from . import _tables
from ._ansi import blank_out, strip_ansi
from ._chars import clean_chars, is_tidy, tidy_whitespace
from ._hidden import MARK_CLOSE, MARK_OPEN, hidden_spans, mark_spans, merge
from ._inline import holds
from ._markers import REPLACEMENT, find_markers, neutralise

__all__ = ["WHITESPACE", "clean", "hidden_regions", "is_blank", "shows_nothing", "visible_text"]

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_MAX_STEPS = 4


def _has_surrogate(text: str) -> bool:
    # A strict encode fails exactly on lone surrogates, and is much cheaper than a regex scan.
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _normalise_newlines(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _SURROGATE_RE.sub("\ufffd", text) if _has_surrogate(text) else text


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with every span blanked out (see ``blank_out``)."""
    parts, pos = [], 0
    for s, e in spans:
        # Most spans lie within one line: their blank is a run of "x" as long.
        blank = "x" * (e - s) if text.find("\n", s, e) < 0 else blank_out(text[s:e])
        parts += [text[pos:s], blank]
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


# Lookalikes of the hidden mark's brackets that the character cleaning keeps (they are
# ordinary brackets in visible text): inside a hidden region they become plain ones, so
# hidden text cannot seem to close its mark early.
_MARK_LOOKALIKES = str.maketrans("\u2987\u2988\u3018\u3019\u2997\u2998\u27ea\u27eb", "()[][]<>")


def _render_hidden(body: str) -> str:
    """A cleaned hidden region inside a hidden mark."""
    if body.isascii() and body and not body[0].isspace() and not body[-1].isspace():
        return f"{MARK_OPEN}{body}{MARK_CLOSE}"  # no lookalike to replace, nothing to strip
    body = body.translate(_MARK_LOOKALIKES)
    core = body.strip()
    if not core:
        return body  # whitespace hides nothing
    lead = body[: len(body) - len(body.lstrip())]
    trail = body[len(body.rstrip()) :]
    return f"{lead}{MARK_OPEN}{core}{MARK_CLOSE}{trail}"


# A stable code point (no decomposition, combining class 0, in no composition pair, kept by
# clean_chars): cleaning a join of pieces on it equals joining the cleaned pieces, since no
# step of clean_chars looks across it.  The count check below makes sure it really separates.
_SEPARATOR = "\u2b1a"


def _clean_pieces(pieces: list[str]) -> list[str]:
    """``[clean_chars(p) for p in pieces]``, with one call instead of one per piece."""
    if len(pieces) > 4:
        # clean_chars keeps the separator, makes none (no code point's NFKC holds it) and
        # composes it with nothing (no decomposition holds it), so the join splits back into
        # as many pieces exactly when no piece holds it.
        cleaned = clean_chars(_SEPARATOR.join(pieces)).split(_SEPARATOR)
        if len(cleaned) == len(pieces):
            return cleaned
    return [clean_chars(p) for p in pieces]


def _step(text: str) -> str:
    text = _normalise_newlines(text)
    ansi = strip_ansi(text)
    plain = ansi.text
    atoms = mark_spans(plain)
    masked = _mask(ansi.masked, atoms) if atoms else ansi.masked
    hidden = merge(hidden_spans(masked, atoms) + list(ansi.hidden) + atoms)
    # Alternating visible and hidden pieces of the plain text, starting with a visible one.
    pieces: list[str] = []
    pos = 0
    ai = 0
    for start, end in hidden:
        pieces.append(plain[pos:start])
        cur = start
        while ai < len(atoms) and atoms[ai][0] < end:
            a_start, a_end = atoms[ai]
            pieces += [plain[cur:a_start], ""]
            pieces += [plain[a_start + len(MARK_OPEN) : a_end - len(MARK_CLOSE)], ""]
            cur = a_end
            ai += 1
        pieces.append(plain[cur:end])
        pos = end
    pieces.append(plain[pos:])
    cleaned = _clean_pieces(pieces)
    cleaned[1::2] = [_render_hidden(piece) for piece in cleaned[1::2]]
    return neutralise(tidy_whitespace("".join(cleaned)))


# Every scan of ``hidden_spans`` but the one of code-fence info strings needs one of these in
# the text (the test of _surely_nothing_hidden holds the two to each other).
_SCAN_TRIGGERS = ("<", "](", "![", "[^", "|", "]:")
# A run of three or more backticks (tildes) whose line's rest, the info string if the run opens
# fenced code, has a hidden tail (see ``_hidden._info_tail``): it is not blank, and not one word
# of at most 32 language-name characters between spaces.  The lookbehind after the literal lets
# a match start only where a run starts (so each run is read once: linear), and keeps the
# literal first, which the engine skips ahead to.
_SHOWN_INFO = r"(?![^\S\n]*+(?:[A-Za-z0-9+#._-]{1,32}+[^\S\n]*+)?(?![^\n]))"
_HIDDEN_INFO_RES = (
    re.compile(r"```(?<!````)`*+" + _SHOWN_INFO),
    re.compile(r"~~~(?<!~~~~)~*+" + _SHOWN_INFO),
)


def _surely_nothing_hidden(text: str) -> bool:
    """A sufficient condition for ``not hidden_spans(text)``, without the Markdown scan: no
    scan but the one of info strings can find anything, and no run of three backticks or
    tildes has an info string with a hidden tail (whether or not the run opens a fence: the
    walk opens one only at a run, and its info string is the rest of the line)."""
    if any(holds(text, trigger) for trigger in _SCAN_TRIGGERS):
        return False
    return not any(
        c in text and r.search(text) for c, r in zip("`~", _HIDDEN_INFO_RES, strict=True)
    )


def _settled(text: str) -> bool:
    """Whether ``_step(text) == text``, decided without running the whole step (a sufficient
    condition: False only means "not proven").

    ``text`` must hold no marker in any view (``find_markers(text)`` is False), which every
    output of :func:`_step` satisfies, since :func:`neutralise` returns only such texts.  Each
    part of the step is then shown to leave ``text`` alone:

    - the marks are the only heavy brackets, each with stripped, non-empty content, so they are
      the step's atoms and render back unchanged;
    - with each mark replaced by the stable separator, ``clean_chars`` changes nothing, so every
      piece (visible text, mark content) is already clean; this also rules out CR, surrogates
      and ANSI (all forbidden), so newline normalisation and ANSI removal change nothing;
    - whitespace is already tidy;
    - the Markdown scan of the masked text finds nothing hidden outside the marks themselves.
    """
    atoms = mark_spans(text)
    count = len(atoms)
    if text.count(MARK_OPEN[0]) != count or text.count(MARK_CLOSE) != count:
        return False
    # _render_hidden gives a mark back unchanged only when its content is non-empty and
    # stripped (the marks are the step's atoms, so each one is rendered again).
    inner = len(MARK_OPEN)
    for start, end in atoms:
        if end - start == inner + 1 or text[start + inner].isspace() or text[end - 2].isspace():
            return False
    pieces = text.replace(MARK_OPEN, _SEPARATOR).replace(MARK_CLOSE, _SEPARATOR)
    if clean_chars(pieces) != pieces or not is_tidy(text):
        return False
    # (A text that surely hides nothing gives a masked text that surely hides nothing: masking
    # adds no trigger, and a fence line that shows its info string holds no mark.)
    if _surely_nothing_hidden(text):
        return True  # the marks are the whole of what is hidden
    if not count:
        return not hidden_spans(text)
    masked = _mask(text, atoms)
    if _surely_nothing_hidden(masked):
        return True
    return merge(hidden_spans(masked, atoms) + atoms) == merge(atoms)


def clean(text: str) -> str:
    """The cleaned text: what the fence puts in its body (idempotent).

    Control sequences and forbidden code points are gone, the text is NFKC (Unicode 18.0.0),
    every region GitHub does not show is wrapped in a hidden mark, and every marker shape is
    replaced by ``[fence-like marker removed]``.
    """
    # The fixed-point loop: a step is repeated until it changes nothing.  When the step's
    # output provably is a fixed point (_settled), the repeat that would only confirm it is
    # skipped; it costs about as much as the first step and on typical text finds nothing.
    for _ in range(_MAX_STEPS):
        again = _step(text)
        if again == text or _settled(again):
            return again
        text = again
    return text


def one_line(text: str, max_chars: int = 200) -> str:
    """``text`` cleaned, its whitespace collapsed to single spaces on one line, and cut to
    ``max_chars`` with an ellipsis: for a title or a name in a plain header line."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    line = _joined(" ".join(clean(text).split()))
    if len(line) <= max_chars:
        return line
    return _joined(line[: max_chars - 1].rstrip() + "…", max_chars)


def _joined(line: str, max_chars: int | None = None) -> str:
    """``line`` (a join of cleaned text) with the markers the join made rewritten, to a fixed
    point: collapsing line breaks can put "END" and "UNTRUSTED" side by side, and a cut can
    end a word early."""
    for _ in range(_MAX_STEPS):
        if not find_markers(line):
            return line
        line = " ".join(neutralise(line).split())
        if max_chars is not None and len(line) > max_chars:
            line = line[: max_chars - 1].rstrip() + "…"
    return line if not find_markers(line) else REPLACEMENT


def hidden_regions(text: str) -> list[str]:
    """The hidden regions of ``text``, cleaned, in order (what the hidden marks hold)."""
    cleaned = clean(text)
    return [cleaned[s + len(MARK_OPEN) : e - len(MARK_CLOSE)] for s, e in mark_spans(cleaned)]


def visible_text(text: str) -> str:
    """The cleaned text with every hidden mark cut out: what a GitHub reader sees."""
    cleaned = clean(text)
    parts, pos = [], 0
    for s, e in mark_spans(cleaned):
        parts.append(cleaned[pos:s])
        pos = e
    parts.append(cleaned[pos:])
    return "".join(parts)


def shows_nothing(text: str) -> bool:
    """True when nothing visible is left after cleaning (hidden regions do not count)."""
    return not visible_text(text).strip()


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
    """The seed's ``blank`` rule, decided on the raw text: it holds nothing but white space
    and the invisible characters cleaning removes (zero-width, bidi, control, tag characters,
    variation selectors).  One linear scan, no rendering: it runs before ``write-access``,
    on any commenter's text.  Text that only GitHub hides (an HTML comment) is not blank
    here; :func:`shows_nothing` decides that, after ``write-access``."""
    return _BLANK_RE.fullmatch(text) is not None
