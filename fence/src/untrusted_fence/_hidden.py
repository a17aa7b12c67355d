"""Regions of raw Markdown that GitHub does not show a reader.

Runs on the raw text (CRLF already LF, nothing else changed), the way cmark-gfm parses it, and
errs towards marking too much: a false "hidden" shows the worker the text with a warning, a
miss would hide it from the people reading the pull request.  Every scan is one regex pass or
a left-to-right walk; nothing rescans from every position.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, chain, compress, islice
from operator import gt, itemgetter, le, lt

from . import _html5, _inline
from ._blocks import Blocks, blocks
from ._recent import registered

__all__ = ["MARK_CLOSE", "MARK_OPEN", "cut_marks", "hidden_spans", "mark_spans", "merge"]

MARK_OPEN = "\u27e6hidden: "
MARK_CLOSE = "\u27e7"
# The fence's own hidden marks, as it renders them; recognised first so cleaning is idempotent.
_MARK_RE = re.compile("\u27e6hidden: [^\u27e6\u27e7]*+\u27e7")

# A literal first character lets the regex engine skip ahead to each run quickly.
_BACKTICKS_RE = re.compile(r"``*+")
# The first word of a code-fence info string only picks the highlighting; a word that cannot be
# a language name is treated as hidden text like the rest of the info string.
_LANGUAGE_RE = re.compile(r"[A-Za-z0-9+#._-]{1,32}")
_HTML_START_RE = re.compile(r"<(?:!--|\?|!\[CDATA\[|![A-Za-z])")
_HTML_END = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}
# An inline open or closing tag as cmark-gfm reads raw HTML in a paragraph (a complete tag;
# anything else is escaped and shows as text; its whitespace includes VT and FF).  Group 2
# holds the attributes.
# A line break inside a tag may be followed by block quote markers, which cmark-gfm strips
# from a paragraph's lines ("> a <x\n> t=1>" is the tag "<x\nt=1>").
_TAG_WS = r"(?:[ \t\v\f\r]|\n(?:[ \t]{0,3}+>)*+)"
_ATTR = (
    rf"{_TAG_WS}++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    rf"""(?:{_TAG_WS}*+={_TAG_WS}*+(?:"[^"]*+"|'[^']*+'|[^ \t\n\v\f\r"'=<>`]++))?"""
)
_TAG_AFTER_OPEN = rf"/?+([A-Za-z][A-Za-z0-9-]*+)((?:{_ATTR})*+){_TAG_WS}*+/?>"
_TAG_RE = re.compile(f"<{_TAG_AFTER_OPEN}")


# The tags ``_TAG_RE`` finds less those that show (an allowed element's, without attributes),
# which hold no "<" after their first character: the search from inside one finds the same
# next tag as the search from its end.
# (The names in any ASCII case: "(?a" keeps "\u017f" from matching "s".)
_SHOWN_NAMES = _html5.factored(sorted(_html5.ALLOWED_ELEMENTS))
_SHOWN_TAG_AFTER_OPEN = rf"/?+(?ai:{_SHOWN_NAMES}){_TAG_WS}*+/?>"
_UNSHOWN_TAG_RE = re.compile(f"<(?=/?+[A-Za-z])(?!{_SHOWN_TAG_AFTER_OPEN}){_TAG_AFTER_OPEN}")
_NO_BLANK = r"\n(?![ \t]*+\n)"
_TITLE = (
    rf"""(?:"(?:[^"\n]|{_NO_BLANK})*+"|'(?:[^'\n]|{_NO_BLANK})*+'"""
    rf"|\((?:[^()\n]|{_NO_BLANK})*+\))"
)
_DEST = r"(?:<[^<>\n]*+>|[^ \t\n<>()]++)"
# Block quotes and list items before a definition (an item's marker, then its text).
_PREFIX = r"(?:[ \t]{0,3}+(?:>[ \t]?+|(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++))*+[ \t]{0,3}+"
_CONTAINER = rf"^{_PREFIX}"
_NEXT = r"(?:\n(?:[ \t]{0,3}+>[ \t]?+)*+)?[ \t]*+"
# A label may run over lines (not over a blank one): cmark-gfm joins them with a space.  A
# label that starts with "^" is a footnote's only as cmark-gfm's footnote scanner reads one
# ("[^" and one or more characters other than "]", space, TAB or a line end, then "]:"); any
# other ("[^]: x", "[^a b]: x") is a link-reference definition.
_FOOTNOTE_LABEL_AHEAD = r"(?!\^[^\] \t\n]++\]:)"
_LABEL = r"(?:[^\[\]\\\n]|\\.|\n(?![ \t]*+\n))"
_LINK_DEF_BODY = (
    rf"\[{_FOOTNOTE_LABEL_AHEAD}{_LABEL}{{1,999}}+\]:[ \t]*+{_NEXT}(?:{_DEST})?"
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


def merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping, non-touching union of spans."""
    ordered = sorted(spans)
    # Already a union when every bound is below the next one (each span non-empty, each end
    # before the next start): checked in C, instead of one Python step per span.  Both views
    # of the marker rules often find the same span: then again without the duplicates.
    if _strictly_increasing(ordered):
        return ordered
    ordered = list(dict.fromkeys(ordered))
    if _strictly_increasing(ordered):
        return ordered
    return _merge_walk(ordered)


def _strictly_increasing(ordered: list[tuple[int, int]]) -> bool:
    flat = list(chain.from_iterable(ordered))
    return all(map(lt, flat, islice(flat, 1, None)))


def _merge_walk(ordered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """:func:`merge` of sorted spans, by maps of C functions: a run of spans starts where a
    start lies past the furthest end before it (touching spans join), and ends at the furthest
    end of its spans."""
    starts = list(map(itemgetter(0), ordered))
    ends = list(map(itemgetter(1), ordered))
    kept = list(map(lt, starts, ends))  # empty spans go
    if not all(kept):
        starts, ends = list(compress(starts, kept)), list(compress(ends, kept))
    if not starts:
        return []
    # The furthest end so far: the ends themselves when no span lies inside an earlier one
    # (checked in C; a running max calls a function per span).
    reach = ends if all(map(le, ends, islice(ends, 1, None))) else list(accumulate(ends, max))
    new_run = [True, *map(gt, islice(starts, 1, None), reach)]
    last_of_run = [*islice(new_run, 1, None), True]
    return list(zip(compress(starts, new_run), compress(reach, last_of_run), strict=True))


class _Regions:
    """Sorted disjoint spans with O(log n) membership."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = merge(spans)
        self.starts = [s for s, _ in self.spans]

    def contains(self, pos: int) -> bool:
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.spans[i][1]

    def meets(self, start: int, end: int) -> bool:
        """Whether a span overlaps ``[start, end)``."""
        i = bisect_left(self.starts, end) - 1
        return i >= 0 and self.spans[i][1] > start


def cut_marks(text: str) -> str:
    """``text`` with every one of the fence's own hidden marks cut out (one regex pass)."""
    return _MARK_RE.sub("", text)


def mark_spans(text: str) -> list[tuple[int, int]]:
    """The fence's own hidden marks in ``text``."""
    if MARK_OPEN not in text:
        return []
    if len(text) < _LONG:
        return list(map(re.Match.span, _MARK_RE.finditer(text)))
    # One cleaning step asks for the marks of the same long text several times (the step,
    # marker detection, the rewrite, the fixed-point proof): the last few are kept.
    for seen, spans in _RECENT_MARKS:
        if seen is text or seen == text:
            return list(spans)
    found = list(map(re.Match.span, _MARK_RE.finditer(text)))
    _RECENT_MARKS[:] = [(text, found), *_RECENT_MARKS[:2]]
    return list(found)


_LONG = 4096
_RECENT_MARKS: list[tuple[str, list[tuple[int, int]]]] = registered([])


class _HtmlBlocks:
    """Whether a position lies in an HTML block (GitHub passes such a block through as HTML,
    so code syntax inside it is inert).  The blocks come from the block walk (``_blocks``),
    which starts them by cmark-gfm's seven start conditions, outside fenced code, and ends
    them by its end conditions.  ``contained``: the content lines of each block that starts
    inside a block quote or list item."""

    def __init__(
        self, spans: list[tuple[int, int]], contained: list[list[tuple[int, int]]] | None = None
    ) -> None:
        self.spans = spans
        self.regions = _Regions(spans)
        self.contained = contained or []

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
    shown = _SHOWN_INFO_RE.fullmatch
    for start, end in found.infos:
        if shown(text, start, end) is None:
            spans += _info_tail(text, start, end)
    return spans


# An info string that is empty or one word that can be a language name (``\s`` is what
# ``str.isspace`` holds): ``_info_tail`` gives nothing for it.
_SHOWN_INFO_RE = re.compile(r"\s*+(?:[A-Za-z0-9+#._-]{1,32}+\s*+)?")


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


class _Code:
    """Code blocks and code spans, paired only when a candidate hidden construct asks (pairing
    backtick runs costs more than every other scan on text with much inline code)."""

    def __init__(
        self,
        text: str,
        html: _HtmlBlocks,
        blocks: list[tuple[int, int]],
        breaks: list[int] | None = None,
        indented: list[tuple[int, int]] | None = None,
    ) -> None:
        self.text = text
        self.html = html
        self.blocks = blocks
        self.breaks = breaks
        # Indented code blocks: apart from ``contains`` (which other scans read as it is).
        self.indented = _Regions(indented or [])
        self.regions: _Regions | None = None
        self._readings: list[list[tuple[int, int]]] | None = None
        self._fenced = _Regions(blocks)
        # The paragraph ends of the blank-line reading (none without a backtick), and for each
        # paragraph asked about, its first and last backtick.
        self._ends: list[int] | None = None
        self._ticks: dict[int, tuple[int, int]] = {}

    def _pairings(self) -> list[list[tuple[int, int]]]:
        """The code spans of each reading of where paragraphs end (see
        ``_inline.code_span_readings``), outside the block walk's code and HTML blocks."""
        if self._readings is None:
            self._readings = []
            if "`" in self.text:
                runs = _code_runs(self.text, self._fenced, self.html)
                readings = _inline.code_span_readings(self.text, runs, self.breaks or [])
                self._readings += readings
        return self._readings

    def _unpaired(self, pos: int) -> bool:
        """Whether no code span of the blank-line reading of the paragraphs can hold ``pos``
        (then neither can a span both readings agree on), found without pairing: a span
        holding ``pos`` opens with a backtick run at or before it and closes with one after
        it, and no paragraph end of that reading lies from the opener's end to the closer's
        start, so a backtick lies from the paragraph end before ``pos`` to ``pos``, and one
        from ``pos`` to the paragraph end after it.  Each paragraph is searched once."""
        text = self.text
        ends = self._ends
        if ends is None:
            ends = self._ends = []
            if "`" in text:
                ends += [m.start() for m in _inline.BLANK_LINE_RE.finditer(text)]
                ends += self.breaks or []
                ends.sort()
                ends.append(len(text))
        i = bisect_left(ends, pos)  # ends[i - 1] < pos <= ends[i]
        if not ends or i == len(ends):
            return not ends
        ticks = self._ticks.get(i)
        if ticks is None:
            start, end = (max(ends[i - 1], 0) if i else 0), ends[i] + 1
            ticks = self._ticks[i] = (text.find("`", start, end), text.rfind("`", start, end))
        first, last = ticks
        return first < 0 or first > pos or last < pos

    def spans(self) -> list[tuple[int, int]]:
        """The code spans both readings of the paragraphs agree on: text counts as code (inert)
        only when it is code whichever way the paragraphs end."""
        pairings = self._pairings()
        return _inline.intersect(pairings[0], pairings[1]) if pairings else []

    def contains(self, pos: int) -> bool:
        """Whether ``pos`` is code in both readings of the paragraphs (with the HTML blocks)."""
        if self.regions is None:
            if self._unpaired(pos):
                return self._fenced.contains(pos)
            self.regions = _Regions(self.blocks + self.spans())
        return self.regions.contains(pos)

    def readings(self) -> list[Callable[[int], bool]]:
        """Each way the code spans can pair: an image hides text if any reading makes it
        one, and a footnote reference counts only if no reading puts it in code."""
        pairings = self._pairings()
        if not pairings:
            return [self.contains]
        return [_Regions(self.blocks + spans).contains for spans in pairings]


def _html(text: str, code: _Code) -> list[tuple[int, int]]:
    """Comments, processing instructions, declarations and CDATA outside code, each to the
    close cmark-gfm gives it as inline raw HTML (a close inside code does not count), or to the
    end of the text when there is none.  A browser ends such a chunk earlier (a comment at
    ``--!>``, the others at the first ``>``, as bogus comments) and reads the rest of it as
    HTML, which is tokenized too: a ``<style/x>`` there swallows the rest of the text."""
    if _only_plain_comments(text, code):
        return _plain_comments(text)
    return _html_walk(text, code)


# Where a browser and cmark-gfm read a chunk differently, or code decides: a "--!" (a comment
# close "--!>"), "<?", "<![" or "<!" before a letter, and backticks or code blocks.
_OTHER_CHUNK_RE = re.compile(r"<(?:\?|!\[|![A-Za-z])")
# A comment from "<!" (the close may start inside the opener: "<!-->") to the first "-->".
_PLAIN_COMMENT_RE = re.compile(r"<!(?=--).*?-->", re.S)


def _only_plain_comments(text: str, code: _Code) -> bool:
    """Whether every chunk of ``text`` is a comment that the first ``-->`` closes for cmark-gfm
    and a browser alike, with no code anywhere (a close or an opener inside code would not
    count): then :func:`_plain_comments` gives what :func:`_html_walk` gives."""
    if code.blocks or "`" in text or "--!" in text:
        return False
    return _OTHER_CHUNK_RE.search(text) is None


def _plain_comments(text: str) -> list[tuple[int, int]]:
    """The comments of ``text`` in one regex pass (see :func:`_only_plain_comments`), the last
    one unterminated when no ``-->`` follows it.  The pass stops at the last ``-->``, so no
    opener scans to the end of the text for a close."""
    last_close = text.rfind("-->")
    spans = list(map(re.Match.span, _PLAIN_COMMENT_RE.finditer(text, 0, last_close + 3)))
    tail = text.find("<!--", spans[-1][1] if spans else 0)
    if tail >= 0:
        spans.append((tail, len(text)))
    return spans


def _html_walk(text: str, code: _Code) -> list[tuple[int, int]]:
    """:func:`_html` by its definition, chunk by chunk."""
    spans: list[tuple[int, int]] = []
    rests: list[tuple[int, int]] = []
    pos = 0
    while (m := _HTML_START_RE.search(text, pos)) is not None:
        start = m.start()
        if code.contains(start):
            pos = start + 1
            continue
        opener = m.group()
        close = ">" if opener.startswith("<!") and opener[2:3].isalpha() else _HTML_END[opener]
        # "<!-->" and "<!--->" are complete comments, so the search starts inside the opener.
        end = text.find(close, start + 2)
        raw_end = end + len(close)  # the chunk's end by the first close, code or not
        while end >= 0 and code.contains(end):
            # cmark-gfm escapes code, so a close inside code never ends the comment.
            end = text.find(close, end + 1)
        if opener == "<!--":
            browser = _comment_close(text, start, start + 2)
            browser = -1 if browser < 0 else text.index(">", browser) + 1
        else:
            browser = text.find(">", start + 2) + 1 or -1
        if end < 0:
            if browser < 0 or opener != "<!--":
                spans.append((start, len(text)))  # unterminated: GitHub hides the rest
                break
            end = browser  # "<!-- a --!>" with no "-->" after it: a comment in an HTML block
        else:
            end += len(close)
            if 0 <= browser < raw_end:
                rests.append((browser, raw_end))
        spans.append((start, end))
        pos = end
    return spans + _tokenized(text, rests)[0]


_COMMENT_CLOSE_RE = re.compile(r"--!?+>")


def _comment_close(text: str, start: int, pos: int) -> int:
    """Where the first close of the comment opened at ``start`` begins, searching from ``pos``
    (-1: none), by the HTML5 comment states: ``-->`` from inside the opener (so ``<!-->`` and
    ``<!--->`` close at once), and ``--!>`` after it."""
    while (m := _COMMENT_CLOSE_RE.search(text, pos)) is not None:
        if m.end() - m.start() == 3 or m.start() >= start + 4:
            return m.start()
        pos = m.start() + 1
    return -1


# An HTML block whose lines reach the page as they are: its first line starts with the tag
# (top level, or indented under a list item).  One that starts inside a block quote or list
# item carries the containers' markers, which a browser never sees: ``_contained_html``
# reads its content lines.
_VERBATIM_START_RE = re.compile(r"[ \t]*+<")


def _block_html(text: str, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """Raw HTML inside HTML blocks, read by the HTML5 tokenizer (GitHub renders the block
    verbatim and the page is parsed as HTML5): comments, bogus comments (``<! x>``, ``</3 x>``,
    ``<!-x->``, ``<?``), DOCTYPE, tags the sanitizer strips or that carry attributes, and script
    or style text.  A token still open where its block ends (an unclosed attribute value or
    comment) swallows the Markdown after it: it runs to the end of the text.  The blocks are
    the block walk's (cmark-gfm's start and end conditions)."""
    verbatim = [
        (start, min(end, len(text)))
        for start, end in html.spans
        if _VERBATIM_START_RE.match(text, start)
    ]
    return _tokenized(text, verbatim)[0]


# A line inside block quotes or list items that starts like HTML ("> <div @x=...>"): an HTML
# block inside the container, which cmark-gfm also passes through.
_CONTAINER_HTML = (
    r"(?:[ \t]{0,3}+(?:>[ \t]?+|(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++))++[ \t]*+(?=<[A-Za-z/!?])"
)
_CONTAINER_HTML_RE = re.compile(_CONTAINER_HTML)
# The same after a newline: a literal first character lets the search skip to each line.
_CONTAINER_HTML_LINE_RE = re.compile(f"\n{_CONTAINER_HTML}")


def _contained_html(text: str, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """The HTML blocks that start inside a block quote or list item, tokenized as the page
    holds them: their content lines joined, without the containers' markers (cmark-gfm
    passes the block's content).  A token spanning lines marks the markers between too; one
    still open at the block's end hides the rest of the text."""
    spans: list[tuple[int, int]] = []
    for lines in html.contained:
        content = "\n".join(text[a:b] for a, b in lines)
        starts: list[int] = []
        pos = 0
        for a, b in lines:
            starts.append(pos)
            pos += b - a + 1

        def place(at: int, lines: list[tuple[int, int]] = lines, starts: list[int] = starts) -> int:
            k = bisect_right(starts, at) - 1
            return lines[k][0] + at - starts[k]

        found, _, closed = _tokenized(content, [(0, len(content))])
        spans += [(place(a), place(b)) for a, b in found]
        if not closed:
            spans[-1] = (spans[-1][0], len(text))
            break
    return spans


def _container_html_starts(text: str) -> list[int]:
    """Where the ``<`` of each line inside a container that starts like HTML lies."""
    first = _CONTAINER_HTML_RE.match(text)
    starts = [] if first is None else [first.end()]
    starts += map(re.Match.end, _CONTAINER_HTML_LINE_RE.finditer(text))
    return starts


def _container_html(text: str, code: _Code, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """The first line of each line inside a container that starts like HTML but starts no
    HTML block in the block walk (read whole by ``_contained_html``), tokenized: a token still
    open at the end of the line hides the rest of the text (more rather than less, should
    cmark-gfm read it as a block)."""
    blocks = []
    contained = _Regions([(lines[0][0], lines[-1][1]) for lines in html.contained])
    for at in _container_html_starts(text):
        if not code.contains(at) and not contained.contains(at):
            line_end = text.find("\n", at)
            blocks.append((at, len(text) if line_end < 0 else line_end))
    return _tokenized(text, blocks)[0]


def _tokenized(
    text: str, blocks: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bool]:
    """The hidden spans of the tokens in ``blocks``, the extent of every token, and whether
    every token closed (a token open at its block's end hides the rest of the text, and the
    scan stops there)."""
    spans: list[tuple[int, int]] = []
    extents: list[tuple[int, int]] = []
    for start, end in blocks:
        for token in _html5.tokens(text, start, end):
            if not token.closed:
                spans.append((token.start, len(text)))
                return spans, extents, False
            extents.append((token.start, token.end))
            if not _html5.shows(token):  # all but an allowed tag without attributes
                spans.append((token.start, token.end))
    return spans, extents, True


# Type parameters that are also framing words (``Option<Context>``, ``List<User>``): the marker
# rules accept them only right after an identifier, which a hidden mark around the tag would
# hide from them, so these stay unmarked there (GitHub hides one such word; nothing more).
_GENERIC_WORDS = frozenset(
    {"context", "document", "documents", "information", "prompt", "user", "parameter"}
)


def _after_identifier(text: str, pos: int) -> bool:
    return pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "_:.")


def _inline_tags(text: str, code: _Code) -> list[tuple[int, int]]:
    """Inline open and closing tags outside code (CommonMark's raw HTML) that do not show: with
    attributes, or of an element the sanitizer strips (``<payload>``, ``List<Data>``: GitHub
    renders nothing of them).  Tags cmark-gfm's tag filter escapes show as text."""
    spans = []
    raw_reach = 0
    for m in _UNSHOWN_TAG_RE.finditer(text):
        name = _html5.ascii_lower(m.group(1))
        if not m.group(2) and name in _GENERIC_WORDS and _after_identifier(text, m.start()):
            continue
        shown = not m.group(2) and name in _html5.ALLOWED_ELEMENTS
        if shown or _html5.tag_filtered(text, m.start()) or code.contains(m.start()):
            continue
        if name in _html5.REMOVED_WITH_CONTENT and m.group()[1] != "/":
            if m.start() >= raw_reach:  # not inside the text of an earlier one
                raw_reach = _raw_text_end(text, code, m.end(), name)
                spans.append((m.start(), raw_reach))
        else:
            spans.append(m.span())
    return spans


def _raw_text_end(text: str, code: _Code, pos: int, name: str) -> int:
    """Where script or style text after an inline start tag ends (its end tag, outside code,
    where it is verbatim), or the end of the text."""
    end = pos
    while (end := _html5.raw_text_end(text, end, len(text), name)) >= 0:
        if not code.contains(end):
            return end
        end += 1
    return len(text)


# A label cmark-gfm's footnote scanner accepts (no space or TAB: "[^a b]" is a link label).
_FOOTNOTE_LABEL_RE = re.compile(r"[^\] \t\n]++")


def _footnotes(
    text: str, code: _Code, found: Blocks, hidden: _Regions, marks: _Regions
) -> list[tuple[int, int]]:
    """Footnote definitions and references as GitHub shows them.  An unreferenced definition
    is dropped with every line it holds (the block walk's, inside containers too), and so is
    one whose label an earlier definition already has.  A referenced one shows its text
    under a number, never its label: each reference that may show and the definition's head
    (``[^label]:``) are marked whole, so the next cleaning step reads neither as a footnote
    (the definition's text is then a paragraph, shown as before).  A reference counts only
    where it surely shows: outside ``hidden``, outside code in every reading of the code
    spans and indented code, outside an escaped ``\\[``, the block walk's HTML blocks and what
    may be one; and a definition is not referenced from inside itself.  A label that holds
    one of the fence's own ``marks`` (masked) holds a space, so it is no footnote's: such a
    reference counts for nothing, and such a definition is a link-reference definition,
    hidden whole."""
    if not _inline.holds(text, "[^"):
        return []
    defs = [
        (m.start(1) - 2, m.start(), m.end(), m.group(1))
        for m in _FOOTNOTE_DEF_RE.finditer(text)
        if not code.contains(m.start())
    ]
    for pos in found.brackets:
        m = _FOOTNOTE_DEF_AT_RE.match(text, pos) if text.startswith("[^", pos) else None
        if m is not None and not code.contains(pos):
            defs.append((pos, m.start(), m.end(), m.group(1)))
    defs += [(start, start, end, label) for start, end, label in found.footnotes]
    if not defs:
        return []
    defs.sort()
    readings = code.readings()
    in_html = _inline.in_html_paragraph(text)
    indented = _Regions(found.indented)

    def plain_label(pos: int) -> bool:
        # Not in an HTML block (literal there), and no mark in the label.
        if code.html.contains(pos):
            return False
        return not marks.spans or not marks.meets(pos, text.find("]", pos))

    def shows(pos: int) -> bool:
        return (
            plain_label(pos)
            and not hidden.contains(pos)
            and not in_html(pos)
            and not indented.contains(pos)
            and not _inline.escaped(text, pos)
            and not any(r(pos) for r in readings)
        )

    def may_show(pos: int) -> bool:
        return (
            plain_label(pos)
            and not indented.contains(pos)
            and not _inline.escaped(text, pos)
            and not code.contains(pos)
        )

    refs = _inline.footnote_refs(text, shows)
    first: dict[str, int] = {}  # a label's key -> the "[" of its first definition
    spans = []
    for bracket, start, end, label in defs:
        if marks.spans and marks.meets(bracket, bracket + len(label) + 2):
            spans.append((start, end))
            continue
        key = _inline.label_key(label)
        if first.setdefault(key, bracket) != bracket:
            spans.append((start, end))  # a later definition of the same label
            continue
        places = refs.get(key, [])
        if not any(pos < start or pos >= end for pos in places):
            spans.append((start, end))
        elif _FOOTNOTE_LABEL_RE.fullmatch(label) is not None:
            spans.append((bracket, bracket + len(label) + 4))  # "[^label]:"
    # Every reference that may show as a number is marked (one that counts for nothing, in
    # what may be an HTML block, say, is marked too: more rather than less).
    for key, places in _inline.footnote_refs(text, may_show).items():
        if key in first and _FOOTNOTE_LABEL_RE.fullmatch(key) is not None:
            spans += [(pos, text.index("]", pos) + 1) for pos in places]
    return spans


_ELEMENT_TAG_RE = {
    name: re.compile(rf"</?+{name}(?=[\t\n\f\r />])", re.I) for name in ("details", "rp")
}
_SUMMARY_CLOSE_RE = re.compile(r"</summary(?=[\t\n\f\r />])[^>]*+>", re.I)
_SUMMARY_OPEN_RE = re.compile(r"[ \t\n\f\r]*+<summary(?=[\t\n\f\r />])", re.I)
_RUBY_CLOSE_RE = re.compile(r"</ruby(?=[\t\n\f\r />])", re.I)


def _element_tags(text: str, code: _Code, name: str) -> list[_html5.Token]:
    """The open and closing tags of one element outside code (indented code too: cmark-gfm
    escapes it), read as the tokenizer reads them (a closing tag is a token of kind
    ``end``)."""
    found = []
    pos = 0
    while (m := _ELEMENT_TAG_RE[name].search(text, pos)) is not None:
        token = _html5.token_at(text, m.start())
        pos = m.end()
        if token is None or code.contains(m.start()) or code.indented.contains(m.start()):
            continue
        found.append(token)
        pos = token.end
    return found


class _Trim:
    """Spans without the whitespace at either side (a mark holds the stripped text anyway, so
    a body that is only a mark already is that mark).  Many bodies can share a start or an
    end: each is trimmed once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}

    def __call__(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        if start not in self.starts:
            pos = start
            while pos < len(text) and text[pos].isspace():
                pos += 1
            self.starts[start] = pos
        if end not in self.ends:
            pos = end
            while pos > 0 and text[pos - 1].isspace():
                pos -= 1
            self.ends[end] = pos
        first = min(self.starts[start], end)
        return first, max(first, self.ends[end])


def _details(text: str, code: _Code) -> list[tuple[int, int]]:
    """The bodies of collapsed ``<details>`` (without an ``open`` attribute): a reader must
    open them to see them, so they are marked (a ``<summary>`` right at the start shows).
    Nested elements pair up as the tree builder pairs them; a collapsed one hides all it
    holds, and one never closed runs to the end of the text."""
    spans: list[tuple[int, int]] = []
    stack: list[tuple[int, bool]] = []  # (body start, collapsed)
    summaries = [m.end() for m in _SUMMARY_CLOSE_RE.finditer(text)]
    trim = _Trim(text)
    for token in _element_tags(text, code, "details"):
        if token.kind == _html5.START:
            if not token.closed:
                break
            body = token.end
            if _SUMMARY_OPEN_RE.match(text, body):
                i = bisect_left(summaries, body)
                body = summaries[i] if i < len(summaries) else body
            stack.append((body, "open" not in _html5.attribute_names(text, token)))
        elif stack:
            body, collapsed = stack.pop()
            if collapsed:
                spans.append(trim(body, max(body, token.start)))
    spans += [trim(body, len(text)) for body, collapsed in stack if collapsed]
    return spans


_RUBY_OPEN_RE = re.compile(r"<ruby(?=[\t\n\f\r />])", re.I)


def _rp(text: str, code: _Code) -> list[tuple[int, int]]:
    """``<rp>`` elements with their content (shown only where ruby is not supported): to the
    matching ``</rp>``, nested ones counted, or the next ``</ruby>`` when a ``<ruby>`` is open
    (one after the last ``</ruby>``), or the end of the text.  A close on a later line than
    the ``<rp>`` may come after a block cmark-gfm opened (``<p>``, ``<blockquote>``), which the
    tree builder does not let it close across: the rest of the text is marked then."""
    spans: list[tuple[int, int]] = []
    ruby_closes = [m.start() for m in _RUBY_CLOSE_RE.finditer(text)]
    ruby_opens = [m.start() for m in _RUBY_OPEN_RE.finditer(text)]

    def in_ruby(pos: int) -> bool:
        i = bisect_left(ruby_opens, pos) - 1
        j = bisect_left(ruby_closes, pos) - 1
        return i >= 0 and (j < 0 or ruby_opens[i] > ruby_closes[j])

    def close(start: int, end: int) -> bool:
        """Mark ``text[start:end]``; False when it is marked to the end of the text."""
        if "\n" in text[start:end]:
            spans.append((start, len(text)))
            return False
        spans.append((start, end))
        return True

    depth, opened = 0, 0
    for token in [*_element_tags(text, code, "rp"), None]:
        at = len(text) if token is None else token.start
        if depth:
            i = bisect_left(ruby_closes, opened)
            if i < len(ruby_closes) and ruby_closes[i] < at and in_ruby(opened):
                depth = 0  # </ruby> closes every open <rp>
                if not close(opened, ruby_closes[i]):
                    break
            elif token is None:
                spans.append((opened, len(text)))
        if token is None:
            break
        if token.kind == _html5.START:
            opened = token.start if depth == 0 else opened
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0 and not close(opened, token.end):
                break
    return spans


_DECLARATION_RE = re.compile(r"<![A-Za-z]")


def _quoted_declarations(text: str, code: _Code) -> list[tuple[int, int]]:
    """Declarations (``<!X ...>``) over lines of a block quote: cmark-gfm strips the quote
    markers from a paragraph's lines, so a ``>`` that is one does not close a declaration
    (``> <!X\n> t>`` is the declaration ``<!X\nt>``).  Each such one, from its opener to the
    first ``>`` that is no marker (or the end of the text); ``_html`` has the others."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _DECLARATION_RE.search(text, pos)) is not None:
        start = pos = m.start() + 2
        if code.contains(m.start()):
            continue
        skipped = False
        while (gt := text.find(">", pos)) >= 0:
            line_start = text.rfind("\n", start, gt) + 1
            if line_start == 0 or text[line_start:gt].strip(" \t>"):
                break  # on the opener's line, or after text: it closes
            skipped, pos = True, gt + 1
        end = len(text) if gt < 0 else gt + 1
        if skipped:
            spans.append((m.start(), end))
        pos = end
    return spans


_DETAILS_OR_RP_RE = re.compile("<[DdRr]")


def _raw_html(text: str, code: _Code, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """Every span of raw HTML that GitHub does not show (``text`` holds a ``<``)."""
    spans = _html(text, code) + _block_html(text, html) + _inline_tags(text, code)
    spans += _container_html(text, code, html) + _contained_html(text, html)
    if "<!" in text and ">" in text:
        spans += _quoted_declarations(text, code)
    # Only "<" casefolds to a string holding "<", and only "D", "d", "R" and "r" to one that
    # starts with "d" or "r": without such a pair the casefolded text holds neither name.
    if _DETAILS_OR_RP_RE.search(text) is not None:
        lowered = text.casefold() if not text.isascii() else text.lower()
        if "<details" in lowered:
            spans += _details(text, code)
        if "<rp" in lowered:
            spans += _rp(text, code)
    if _inline.holds(text, "[^"):
        tail = len(text.rstrip())
        if any(end >= tail for _, end in spans):
            # cmark-gfm renders footnote definitions after everything else, so what hides the
            # rest of the text (an unclosed comment, attribute value or <details>) hides them.
            defs = _FOOTNOTE_DEF_RE.finditer(text)
            spans += [m.span() for m in defs if not code.contains(m.start())]
    return spans


_NO_BLOCKS = Blocks()


def hidden_spans(text: str, marks: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Spans of ``text`` that GitHub does not display (merged, sorted).  ``marks``: where
    ``text`` holds the fence's own hidden marks, masked (a footnote label cannot hold one)."""
    holds = _inline.holds
    needed = "<" in text or holds(text, "```") or holds(text, "~~~") or holds(text, "]:")
    found = blocks(text) if needed else _NO_BLOCKS
    html = _HtmlBlocks(found.html, found.contained_html)
    code = _Code(text, html, found.fences, found.breaks, found.indented)
    spans = _code_fences(text, found)
    if "<" in text:
        spans += _raw_html(text, code, html)
    if holds(text, "![") or holds(text, "[^"):
        labels = _inline.link_labels(text)
        for reading in code.readings():
            spans += _inline.images(text, reading, labels)
    if holds(text, "]("):
        spans += _inline.link_tails(text, code.contains)
    if "|" in text:
        spans += _inline.table_excess(text, code.contains)
    if holds(text, "]:"):
        spans += [m.span() for m in _LINK_DEF_RE.finditer(text) if not code.contains(m.start())]
        for pos in found.brackets:
            if (m := _LINK_DEF_AT_RE.match(text, pos)) is not None and not code.contains(pos):
                spans.append(m.span())
        spans += _footnotes(text, code, found, _Regions(merge(spans)), _Regions(marks or []))
    return merge(spans)
