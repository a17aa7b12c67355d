"""Regions of raw Markdown that GitHub does not show a reader.

Runs on the raw text (CRLF already LF, nothing else changed), the way cmark-gfm parses it, and
errs towards marking too much: a false "hidden" shows the worker the text with a warning, a
miss would hide it from the people reading the pull request.  Every scan is one regex pass or
a left-to-right walk; nothing rescans from every position.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable

from . import _inline

__all__ = ["MARK_CLOSE", "MARK_OPEN", "hidden_spans", "mark_spans", "merge"]

MARK_OPEN = "\u27e6hidden: "
MARK_CLOSE = "\u27e7"
# The fence's own hidden marks, as it renders them; recognised first so cleaning is idempotent.
_MARK_RE = re.compile("\u27e6hidden: [^\u27e6\u27e7]*+\u27e7")

# Indented by spaces only: a tab reaches column 4, which makes the line indented code.
_FENCE_RE = re.compile(r" {0,3}+(`{3,}+|~{3,}+)([^\n]*+)")
_FENCE_AFTER_NEWLINE_RE = re.compile(r"\n {0,3}+(`{3,}+|~{3,}+)([^\n]*+)")
# A fence line after block-quote or list-item markers ("> ```js", "- ```py", "1. > ~~~"):
# cmark-gfm opens fenced code there too, and does not show the info string after the language.
_LIST_ITEM_RE = re.compile(r"^[ \t]*+(?:[-+*]|[0-9]{1,9}+[.)])[ \t]", re.M)
_INDENTED_FENCE_RE = re.compile(r"^(?: {4}|\t)[ \t]*+(`{3,}+|~{3,}+)([^\n]*+)", re.M)
_CONTAINER_FENCE_RE = re.compile(
    r"^[ \t]{0,3}+(?:>[ \t]*+|(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++)++(`{3,}+|~{3,}+)([^\n]*+)", re.M
)
# A literal first character lets the regex engine skip ahead to each run quickly.
_BACKTICKS_RE = re.compile(r"``*+")
# The first word of a code-fence info string only picks the highlighting; a word that cannot be
# a language name is treated as hidden text like the rest of the info string.
_LANGUAGE_RE = re.compile(r"[A-Za-z0-9+#._-]{1,32}")
_BLANK_LINE_RE = re.compile(r"\n[ \t]*+\n")
_HTML_BLOCK_START_RE = re.compile(r"[ \t]{0,3}+<[A-Za-z/!?]")
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
_CONTAINER = r"^(?:[ \t]{0,3}+>[ \t]?+)*+[ \t]{0,3}+"
_NEXT = r"(?:\n(?:[ \t]{0,3}+>[ \t]?+)*+)?[ \t]*+"
_LINK_DEF_RE = re.compile(
    rf"{_CONTAINER}\[(?!\^)(?:[^\[\]\\\n]|\\.){{1,999}}+\]:[ \t]*+{_NEXT}(?:{_DEST})?"
    rf"(?:[ \t]*+{_NEXT}{_TITLE})?[^\n]*+",
    re.M,
)
_FOOTNOTE_DEF_RE = re.compile(
    rf"{_CONTAINER}\[\^([^\]\n]++)\]:[^\n]*+"
    rf"(?:\n(?![ \t]*+\n)(?![ \t]{{0,3}}\[\^)[^\n]++|\n[ \t]*+\n(?=[ \t]{{4}})[^\n]++)*+",
    re.M,
)


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


_HTML_LINE_RE = re.compile(r"\n[ \t]{0,3}+<[A-Za-z/!?]")


# The HTML block types 1-5 of the CommonMark spec, by their start, and their end conditions.
_HTML_KIND_RE = re.compile(
    r"[ \t]{0,3}+<(!--|\?|!\[CDATA\[|![A-Za-z]|(?:script|pre|style|textarea)(?=[ \t>\n]|$))",
    re.I,
)
_HTML_KIND_END = {
    "!--": "-->", "?": "?>", "![cdata[": "]]>", "script": "</script>", "pre": "</pre>",
    "style": "</style>", "textarea": "</textarea>",
}  # fmt: skip


def _find_ci(text: str, needle: str, start: int) -> int:
    """``text.find(needle, start)`` with ASCII case ignored (needle is lower case)."""
    if needle.startswith("</"):
        m = re.compile(re.escape(needle), re.I).search(text, start)
        return -1 if m is None else m.start()
    return text.find(needle, start)


class _HtmlBlocks:
    """Whether a position lies in a block that starts like raw HTML (GitHub passes such a
    block through as HTML up to the next blank line, so code syntax inside it is inert).

    The candidates are every line that starts like HTML; ``_code_fences`` accepts the ones
    that start outside a fenced code block, in one left-to-right walk with the fences (a line
    inside fenced code is code, whatever it looks like, as in cmark-gfm)."""

    def __init__(self, text: str) -> None:
        # A block starts at a line that starts like HTML: at a paragraph start, and also inside
        # a paragraph, since HTML blocks of types 1-6 interrupt one (treating every such line
        # as a start errs towards making code syntax inert, hence towards marking more).
        self.text = text
        self.starts: list[int] = []
        self.blank_ends: list[int] = []
        if "<" in text:
            self.blank_ends = [m.end() for m in _BLANK_LINE_RE.finditer(text)]
            if _HTML_BLOCK_START_RE.match(text, 0):
                self.starts.append(0)
            self.starts += [m.start() + 1 for m in _HTML_LINE_RE.finditer(text)]
        self.spans: list[tuple[int, int]] = []
        self.regions = _Regions([])
        self._next = 0  # the first candidate not yet accepted or dropped
        self.reach = 0  # the furthest end of an accepted block

    def end_of(self, start: int) -> int:
        """Where the block that starts at ``start`` ends (one past the text: at its end)."""
        text = self.text
        i = bisect_right(self.blank_ends, start)
        end = self.blank_ends[i] if i < len(self.blank_ends) else len(text) + 1
        kind = _HTML_KIND_RE.match(text, start)
        if kind is not None:
            # Types 1-5 end at the line holding their end condition, blank lines or not.
            opener = kind.group(1).casefold()
            close = _HTML_KIND_END.get(opener, ">")  # "<!" and a letter: type 4
            found = _find_ci(text, close, kind.start(1))
            if found < 0:
                end = len(text) + 1
            else:
                line_end = text.find("\n", found)
                end = len(text) + 1 if line_end < 0 else line_end + 1
        return end

    def accept(self, before: int) -> None:
        """Accept the candidates that start before ``before`` (outside fenced code)."""
        starts = self.starts
        while self._next < len(starts) and starts[self._next] < before:
            start = starts[self._next]
            self._next += 1
            end = self.end_of(start)
            self.spans.append((start + 1, end))
            self.reach = max(self.reach, end)

    def skip(self, before: int) -> None:
        """Drop the candidates that start before ``before`` (lines of fenced code)."""
        self._next = bisect_left(self.starts, before, self._next)

    def inside(self, pos: int) -> bool:
        """Whether ``pos`` lies in an accepted block (every accepted one starts before it)."""
        return pos < self.reach

    def finish(self) -> None:
        self.accept(len(self.text) + 1)
        self.regions = _Regions(self.spans)

    def contains(self, pos: int) -> bool:
        return self.regions.contains(pos)


def _info_tail(m: re.Match[str]) -> list[tuple[int, int]]:
    """The part of an opening fence's info string (group 2) that GitHub does not show: all of
    it after the first word, or all of it when the first word cannot be a language name."""
    info = m.group(2)
    words = info.strip().split(maxsplit=1)
    if words and _LANGUAGE_RE.fullmatch(words[0]) is None:
        return [(m.start(2), m.end(2))]
    if len(words) == 2:
        return [(m.start(2) + info.index(words[0]) + len(words[0]), m.end(2))]
    return []


def _container_info_tails(text: str) -> list[tuple[int, int]]:
    """Info-string tails of fence lines inside block quotes and list items.  Every such line
    counts as an opener (one that is really a line of code gets its tail marked: too much
    rather than too little).  A fence line indented by four columns or more after a list item
    ("1.  a" then a blank line then "    ```js x") can be a fence inside the item, so after the
    first list item such lines count as openers too."""
    spans = []
    matches = list(_CONTAINER_FENCE_RE.finditer(text))
    item = _LIST_ITEM_RE.search(text)
    if item is not None:
        matches += _INDENTED_FENCE_RE.finditer(text, item.end())
    for m in matches:
        if m.group(1)[0] == "`" and "`" in m.group(2):
            continue  # not a fence: backticks in the info string
        spans += _info_tail(m)
    return spans


def _code_fences(
    text: str, html: _HtmlBlocks
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Fenced code blocks (whole, fence lines included) and hidden info-string tails, in one
    walk with the HTML blocks: a fence line inside an HTML block is HTML, and a line that
    starts like HTML inside fenced code is code."""
    blocks: list[tuple[int, int]] = []
    hidden: list[tuple[int, int]] = []
    if "```" not in text and "~~~" not in text:
        html.finish()
        return blocks, hidden
    opener: tuple[int, str] | None = None  # line start and fence of the open block
    first = _FENCE_RE.match(text)
    # Later fence lines are found after their newline (a literal the regex engine scans for).
    later = _FENCE_AFTER_NEWLINE_RE.finditer(text, first.end() if first else 0)
    for m in itertools.chain([first] if first else [], later):
        fence, info = m.group(1, 2)
        line_start = m.start() + (m.group()[0] == "\n")
        if opener is None:
            html.accept(line_start)
            if fence[0] == "`" and "`" in info:
                continue  # not a fence: backticks in the info string
            if html.inside(line_start):
                # HTML to this model, but an HTML block that cmark-gfm would not start (a tag
                # line inside a paragraph) leaves this line a real opener: mark its info string
                # either way (as raw HTML it would show: too much rather than too little).
                hidden += _info_tail(m)
                continue
            opener = (line_start, fence)
            hidden += _info_tail(m)
        else:
            html.skip(line_start)
            of = opener[1]
            if fence[0] == of[0] and len(fence) >= len(of) and not info.strip():
                blocks.append((opener[0], m.end()))
                opener = None
    if opener is not None:
        blocks.append((opener[0], len(text)))
        html.skip(len(text) + 1)
    html.finish()
    return blocks, hidden


def _code_runs(text: str, fenced: _Regions, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """The backtick runs of ``text`` outside fenced code and the model's HTML blocks."""
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
    return runs


def _code_spans(text: str, fenced: _Regions, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """Code spans as every reading of the paragraphs agrees (see ``_inline.pair_code_spans``)."""
    if "`" not in text:
        return []
    return _inline.pair_code_spans(text, _code_runs(text, fenced, html))


def _escaped(text: str, pos: int) -> bool:
    """Whether the character at ``pos`` follows an odd number of backslashes."""
    count = 0
    while pos - count > 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


class _Code:
    """Code blocks and code spans, paired only when a candidate hidden construct asks (pairing
    backtick runs costs more than every other scan on text with much inline code)."""

    def __init__(self, text: str, html: _HtmlBlocks, blocks: list[tuple[int, int]]) -> None:
        self.text = text
        self.html = html
        self.blocks = blocks
        self.regions: _Regions | None = None
        self._readings: list[list[tuple[int, int]]] | None = None

    def _pairings(self) -> list[list[tuple[int, int]]]:
        """The code spans of each reading (see ``_inline.code_span_readings``): first with
        the model's HTML blocks, then, when it has any, without them (they can be wider
        than cmark-gfm's)."""
        if self._readings is None:
            self._readings = []
            if "`" in self.text:
                fenced = _Regions(self.blocks)
                runs = _code_runs(self.text, fenced, self.html)
                self._readings += _inline.code_span_readings(self.text, runs)
                if self.html.regions.spans:
                    runs = _code_runs(self.text, fenced, _HtmlBlocks(""))
                    self._readings += _inline.code_span_readings(self.text, runs)
        return self._readings

    def contains(self, pos: int) -> bool:
        """Whether ``pos`` is code in both readings of the paragraphs (with the HTML blocks)."""
        if self.regions is None:
            pairings = self._pairings()
            spans = _inline.intersect(pairings[0], pairings[1]) if pairings else []
            self.regions = _Regions(self.blocks + spans)
        return self.regions.contains(pos)

    def readings(self) -> list[Callable[[int], bool]]:
        """Each way the code spans can pair: an image hides text if any reading makes it
        one, and a footnote reference counts only if no reading puts it in code."""
        pairings = self._pairings()
        if not pairings:
            return [self.contains]
        return [_Regions(self.blocks + spans).contains for spans in pairings]


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


def _footnotes(text: str, code: _Code, hidden: _Regions) -> list[tuple[int, int]]:
    """Unreferenced footnote definitions.  A reference counts only where it surely shows:
    outside ``hidden``, outside code in every reading of the code spans, and outside what
    may be an HTML block; and a definition is not referenced from inside itself."""
    if "[^" not in text:
        return []
    defs = [m for m in _FOOTNOTE_DEF_RE.finditer(text) if not code.contains(m.start())]
    if not defs:
        return []
    readings = code.readings()
    in_html = _inline.in_html_paragraph(text)

    def shows(pos: int) -> bool:
        return not hidden.contains(pos) and not in_html(pos) and not any(r(pos) for r in readings)

    refs = _inline.footnote_refs(text, shows)
    spans = []
    for m in defs:
        start, end = m.span()
        places = refs.get(_inline.label_key(m.group(1)), [])
        if not any(pos < start or pos >= end for pos in places):
            spans.append((start, end))
    return spans


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


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that GitHub does not display (merged, sorted)."""
    html = _HtmlBlocks(text)
    blocks, info_tails = _code_fences(text, html)
    code = _Code(text, html, blocks)
    spans = list(info_tails)
    if "```" in text or "~~~" in text:
        spans += _container_info_tails(text)
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
    if "![" in text or "[^" in text:
        labels = _inline.link_labels(text)
        for reading in code.readings():
            spans += _inline.images(text, reading, labels)
    if "](" in text:
        spans += _inline.link_tails(text, code.contains)
    if "|" in text:
        spans += _inline.table_excess(text, code.contains)
    if "]:" in text:
        spans += [m.span() for m in _LINK_DEF_RE.finditer(text) if not code.contains(m.start())]
        spans += _footnotes(text, code, _Regions(spans))
    return merge(spans)
