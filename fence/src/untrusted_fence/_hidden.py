"""Regions of raw Markdown that GitHub does not show a reader.

Runs on the raw text (CRLF already LF, nothing else changed), the way cmark-gfm parses it, and
errs towards marking too much: a false "hidden" shows the worker the text with a warning, a
miss would hide it from the people reading the pull request.  Every scan is one regex pass or
a left-to-right walk; nothing rescans from every position.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ._blocks import Blocks, blocks

__all__ = ["MARK_CLOSE", "MARK_OPEN", "hidden_spans", "mark_spans", "merge"]

MARK_OPEN = "\u27e6hidden: "
MARK_CLOSE = "\u27e7"
# The fence's own hidden marks, as it renders them; recognised first so cleaning is idempotent.
_MARK_RE = re.compile("\u27e6hidden: [^\u27e6\u27e7]*+\u27e7")

# A literal first character lets the regex engine skip ahead to each run quickly.
_BACKTICKS_RE = re.compile(r"``*+")
# The first word of a code-fence info string only picks the highlighting; a word that cannot be
# a language name is treated as hidden text like the rest of the info string.
_LANGUAGE_RE = re.compile(r"[A-Za-z0-9+#._-]{1,32}")
_BLANK_LINE_RE = re.compile(r"\n[ \t]*+\n")
_HTML_START_RE = re.compile(r"<(?:!--|\?|!\[CDATA\[|![A-Za-z])")
_HTML_END = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}
_ATTR = (
    r"[ \t\n]++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    r"""(?:[ \t\n]*+=[ \t\n]*+(?:"[^"]*+"|'[^']*+'|[^ \t\n"'=<>`]++))?"""
)
_TAG_RE = re.compile(rf"<([A-Za-z][A-Za-z0-9-]*+)(?:{_ATTR})++[ \t\n]*+/?>")
# Tags GitHub's tag filter escapes: they show as literal text.
_FILTERED_TAGS = {
    "title", "textarea", "style", "xmp", "iframe", "noembed", "noframes", "script", "plaintext",
}  # fmt: skip
_NO_BLANK = r"\n(?![ \t]*+\n)"
_TITLE = (
    rf"""(?:"(?:[^"\n]|{_NO_BLANK})*+"|'(?:[^'\n]|{_NO_BLANK})*+'"""
    rf"|\((?:[^()\n]|{_NO_BLANK})*+\))"
)
_DEST = r"(?:<[^<>\n]*+>|[^ \t\n<>()]++)"
_IMAGE_RE = re.compile(
    rf"!\[[^\[\]\n]*+\](?:\([ \t\n]*+(?:{_DEST})?(?:[ \t\n]++{_TITLE})?[ \t\n]*+\)|\[[^\[\]\n]*+\])"
)
# A link's "(destination title)" after the "]" (the match includes the "]", which is not
# hidden; starting on a literal instead of a lookbehind lets the engine skip ahead quickly).
_LINK_TAIL_RE = re.compile(rf"\]\([ \t\n]*+(?:{_DEST})?(?:[ \t\n]++{_TITLE})?[ \t\n]*+\)")
# Block quotes and list items before a definition (an item's marker, then its text).
_PREFIX = r"(?:[ \t]{0,3}+(?:>[ \t]?+|(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++))*+[ \t]{0,3}+"
_CONTAINER = rf"^{_PREFIX}"
_NEXT = r"(?:\n(?:[ \t]{0,3}+>[ \t]?+)*+)?[ \t]*+"
# A label may run over lines (not over a blank one): cmark-gfm joins them with a space.
_LABEL = r"(?:[^\[\]\\\n]|\\.|\n(?![ \t]*+\n))"
_LINK_DEF_BODY = (
    rf"\[(?!\^){_LABEL}{{1,999}}+\]:[ \t]*+{_NEXT}(?:{_DEST})?"
    rf"(?:[ \t]*+{_NEXT}{_TITLE})?[^\n]*+"
)
_LINK_DEF_RE = re.compile(rf"{_CONTAINER}{_LINK_DEF_BODY}", re.M)
_LINK_DEF_AT_RE = re.compile(_LINK_DEF_BODY)
_FOOTNOTE_DEF_BODY = (
    r"\[\^([^\]\n]++)\]:[^\n]*+"
    # Continuation lines up to a blank line or the next definition (after its containers too,
    # which also keeps the scans from every definition linear in total).
    rf"(?:\n(?![ \t]*+\n)(?!{_PREFIX}\[\^)[^\n]++|\n[ \t]*+\n(?=[ \t]{{4}})[^\n]++)*+"
)
_FOOTNOTE_DEF_RE = re.compile(rf"{_CONTAINER}{_FOOTNOTE_DEF_BODY}", re.M)
_FOOTNOTE_DEF_AT_RE = re.compile(_FOOTNOTE_DEF_BODY)
_FOOTNOTE_REF_RE = re.compile(r"\[\^([^\]\n]++)\](?!:)")


def merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping, non-touching union of spans."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


class _Regions:
    """Sorted disjoint spans with O(log n) membership."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = merge(spans)
        self.starts = [s for s, _ in self.spans]

    def contains(self, pos: int) -> bool:
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.spans[i][1]


def mark_spans(text: str) -> list[tuple[int, int]]:
    """The fence's own hidden marks in ``text``."""
    if MARK_OPEN not in text:
        return []
    return [m.span() for m in _MARK_RE.finditer(text)]


class _HtmlBlocks:
    """Whether a position lies in an HTML block (GitHub passes such a block through as HTML,
    so code syntax inside it is inert).  The blocks come from the block walk (``_blocks``),
    which starts them by cmark-gfm's seven start conditions, outside fenced code, and ends
    them by its end conditions."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.regions = _Regions(spans)

    def contains(self, pos: int) -> bool:
        return self.regions.contains(pos)


def _info_tail(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The part of an opening fence's info string (``text[start:end]``) that GitHub does not
    show: all of it after the first word, or all of it when the first word cannot be a
    language name."""
    info = text[start:end]
    words = info.strip().split(maxsplit=1)
    if words and _LANGUAGE_RE.fullmatch(words[0]) is None:
        return [(start, end)]
    if len(words) == 2:
        return [(start + info.index(words[0]) + len(words[0]), end)]
    return []


def _code_fences(text: str, found: Blocks) -> list[tuple[int, int]]:
    """The hidden info-string tails of the opening fences the block walk found (inside block
    quotes and list items too)."""
    spans: list[tuple[int, int]] = []
    for start, end in found.infos:
        spans += _info_tail(text, start, end)
    return spans


def _code_spans(
    text: str, fenced: _Regions, html: _HtmlBlocks, breaks: list[int] | None = None
) -> list[tuple[int, int]]:
    """Code spans outside fenced code and HTML blocks.  A span never pairs across a blank line
    or one of the block walk's ``breaks`` (a line that starts a new block, such as a heading,
    a footnote definition or a table row, starts new inline text)."""
    if "`" not in text:
        return []
    runs = [m.span() for m in _BACKTICKS_RE.finditer(text)]
    excluded = merge(fenced.spans + html.regions.spans)
    if excluded:
        # Drop the runs that start inside a fenced block or an HTML block, region by region.
        starts = [s for s, _ in runs]
        kept: list[tuple[int, int]] = []
        last = 0
        for a, b in excluded:
            i = bisect_left(starts, a, last)
            kept += runs[last:i]
            last = max(i, bisect_left(starts, b, i))
        kept += runs[last:]
        runs = kept
    # The next run of the same length, and of one less (for an opener whose first backtick is
    # escaped), for every run (one pass from the right).  A closer is inside the code span,
    # where a backslash is literal, so its whole run counts.
    following = [-1] * len(runs)
    shorter = [-1] * len(runs)
    seen: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = seen.get(length, -1)
        shorter[i] = seen.get(length - 1, -1)
        seen[length] = i
    blanks = [m.start() for m in _BLANK_LINE_RE.finditer(text)]
    if breaks:
        blanks = sorted(blanks + breaks)  # two sorted runs: a linear merge
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start = runs[i][0]
        escaped = _escaped(text, start)
        j = shorter[i] if escaped else following[i]
        if escaped:
            start += 1
        if j >= 0 and start < runs[i][1]:
            b = bisect_right(blanks, runs[i][1])
            if b >= len(blanks) or runs[j][0] <= blanks[b]:
                spans.append((start, runs[j][1]))
                i = j + 1
                continue
        i += 1
    return spans


def _escaped(text: str, pos: int) -> bool:
    """Whether the character at ``pos`` follows an odd number of backslashes."""
    count = 0
    while pos - count > 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


class _Code:
    """Code blocks and code spans, paired only when a candidate hidden construct asks (pairing
    backtick runs costs more than every other scan on text with much inline code)."""

    def __init__(
        self,
        text: str,
        html: _HtmlBlocks,
        blocks: list[tuple[int, int]],
        breaks: list[int] | None = None,
    ) -> None:
        self.text = text
        self.html = html
        self.blocks = blocks
        self.breaks = breaks
        self.regions: _Regions | None = None

    def contains(self, pos: int) -> bool:
        if self.regions is None:
            fenced = _Regions(self.blocks)
            spans = _code_spans(self.text, fenced, self.html, self.breaks)
            self.regions = _Regions(self.blocks + spans)
        return self.regions.contains(pos)


def _html(text: str, code: _Code) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _HTML_START_RE.search(text, pos)) is not None:
        start = m.start()
        if code.contains(start):
            pos = start + 1
            continue
        opener = m.group()
        if opener.startswith("<!") and opener[2:3].isalpha():
            close, skip = ">", 2
        else:
            # "<!-->" and "<!--->" are complete comments, so the search starts inside the opener.
            close, skip = _HTML_END[opener], 2
        end = text.find(close, start + skip)
        while end >= 0 and code.contains(end):
            # cmark-gfm escapes code, so a close inside code never ends the comment.
            end = text.find(close, end + 1)
        if end < 0:
            spans.append((start, len(text)))  # unterminated: GitHub hides the rest
            break
        spans.append((start, end + len(close)))
        pos = end + len(close)
    return spans


def _footnotes(text: str, code: _Code, found: Blocks) -> list[tuple[int, int]]:
    """Footnote definitions that nothing references: GitHub drops them, with every line they
    hold.  A reference inside code is code, and an escaped ``\\[`` is text: neither counts."""
    if "[^" not in text:
        return []
    defs = [
        (m.start(), m.end(), m.group(1))
        for m in _FOOTNOTE_DEF_RE.finditer(text)
        if not code.contains(m.start())
    ]
    for pos in found.brackets:
        m = _FOOTNOTE_DEF_AT_RE.match(text, pos) if text.startswith("[^", pos) else None
        if m is not None and not code.contains(pos):
            defs.append((m.start(), m.end(), m.group(1)))
    defs += found.footnotes
    if not defs:
        return []
    refs: set[str] = {
        m.group(1).casefold()
        for m in _FOOTNOTE_REF_RE.finditer(text)
        if not code.contains(m.start()) and not _escaped(text, m.start())
    }
    return [(start, end) for start, end, label in defs if label.casefold() not in refs]


_DETAILS_OPEN_RE = re.compile(r"<details(?=[\s>/])([^<>]*+)>", re.I)
_DETAILS_CLOSE_RE = re.compile(r"</details\s*+>", re.I)
_SUMMARY_CLOSE_RE = re.compile(r"</summary\s*+>", re.I)
_SUMMARY_OPEN_RE = re.compile(r"\s*+<summary(?=[\s>/])", re.I)
_OPEN_ATTR_RE = re.compile(r"(?:^|\s)open(?:\s|=|/|$)", re.I)
_RP_RE = re.compile(r"<rp(?=[\s>/])[^<>]*+>[^<]*+(?:</rp\s*+>)?", re.I)


def _details(text: str, code: _Code) -> list[tuple[int, int]]:
    """The bodies of collapsed ``<details>`` (without ``open``): a reader must open them to
    see them, so they are marked (the ``<summary>`` shows)."""
    closes = [m.start() for m in _DETAILS_CLOSE_RE.finditer(text)]
    summaries = [m.end() for m in _SUMMARY_CLOSE_RE.finditer(text)]
    spans = []
    trimmed: dict[int, int] = {}
    for m in _DETAILS_OPEN_RE.finditer(text):
        if code.contains(m.start()) or _OPEN_ATTR_RE.search(m.group(1)):
            continue
        i = bisect_left(closes, m.end())
        end = closes[i] if i < len(closes) else len(text)
        body = m.end()
        if _SUMMARY_OPEN_RE.match(text, body):
            j = bisect_left(summaries, body)
            if j < len(summaries) and summaries[j] <= end:
                body = summaries[j]
        # Without the whitespace around it (a mark holds the stripped text anyway), so that
        # a body that is only a mark already is that mark.
        while body < end and text[body].isspace():
            body += 1
        if end not in trimmed:  # many bodies can share one end: trim it once
            stop = end
            while stop > 0 and text[stop - 1].isspace():
                stop -= 1
            trimmed[end] = stop
        spans.append((body, max(body, trimmed[end])))
    return spans


_NO_BLOCKS = Blocks()


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that GitHub does not display (merged, sorted)."""
    needed = "```" in text or "~~~" in text or "<" in text or "]:" in text
    found = blocks(text) if needed else _NO_BLOCKS
    html = _HtmlBlocks(found.html)
    code = _Code(text, html, found.fences, found.breaks)
    spans = _code_fences(text, found)
    if "<" in text:
        spans += _html(text, code)
        lowered = text.casefold() if not text.isascii() else text.lower()
        if "<details" in lowered:
            spans += _details(text, code)
        if "<rp" in lowered:
            spans += [m.span() for m in _RP_RE.finditer(text) if not code.contains(m.start())]
        spans += [
            m.span()
            for m in _TAG_RE.finditer(text)
            if m.group(1).casefold() not in _FILTERED_TAGS and not code.contains(m.start())
        ]
    if "](" in text or "![" in text:
        spans += [m.span() for m in _IMAGE_RE.finditer(text) if not code.contains(m.start())]
        tails = [(m.start() + 1, m.end()) for m in _LINK_TAIL_RE.finditer(text)]
        spans += [tail for tail in tails if not code.contains(tail[0])]
    if "]:" in text:
        spans += [m.span() for m in _LINK_DEF_RE.finditer(text) if not code.contains(m.start())]
        for pos in found.brackets:
            if (m := _LINK_DEF_AT_RE.match(text, pos)) is not None and not code.contains(pos):
                spans.append(m.span())
        spans += _footnotes(text, code, found)
    return merge(spans)
