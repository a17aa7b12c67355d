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

from . import _html5

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
# An inline open or closing tag as cmark-gfm reads raw HTML in a paragraph (a complete tag;
# anything else is escaped and shows as text; its whitespace includes VT and FF).  Group 2
# holds the attributes.
_ATTR = (
    r"[ \t\n\v\f\r]++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    r"""(?:[ \t\n\v\f\r]*+=[ \t\n\v\f\r]*+(?:"[^"]*+"|'[^']*+'|[^ \t\n\v\f\r"'=<>`]++))?"""
)
_TAG_RE = re.compile(rf"</?+([A-Za-z][A-Za-z0-9-]*+)((?:{_ATTR})*+)[ \t\n\v\f\r]*+/?>")
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


_HTML_LINE_RE = re.compile(r"\n[ \t]{0,3}+<[A-Za-z/!?]")


# The HTML block types 1-5 of the CommonMark spec, by their start, and their end conditions.
_HTML_KIND_RE = re.compile(
    r"[ \t]{0,3}+<(!--|\?|!\[CDATA\[|![A-Za-z]|(?:script|pre|style|textarea)(?=[ \t\v\f\r>\n]|$))",
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
        self._closes: dict[str, tuple[int, int]] = {}  # end condition: (searched from, found)
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
            found = self._close(close, kind.start(1))
            if found < 0:
                end = len(text) + 1
            else:
                line_end = text.find("\n", found)
                end = len(text) + 1 if line_end < 0 else line_end + 1
        return end

    def _close(self, close: str, pos: int) -> int:
        """``_find_ci(text, close, pos)``, remembering the last answer for each end condition:
        blocks are asked for in order, so one search serves every later start it covers."""
        searched = self._closes.get(close)
        if searched is not None and searched[0] <= pos and (searched[1] < 0 or searched[1] >= pos):
            return searched[1]
        found = _find_ci(self.text, close, pos)
        self._closes[close] = (pos, found)
        return found

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


def _code_spans(text: str, fenced: _Regions, html: _HtmlBlocks) -> list[tuple[int, int]]:
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

    def __init__(self, text: str, html: _HtmlBlocks, blocks: list[tuple[int, int]]) -> None:
        self.text = text
        self.html = html
        self.blocks = blocks
        self.regions: _Regions | None = None

    def contains(self, pos: int) -> bool:
        if self.regions is None:
            fenced = _Regions(self.blocks)
            self.regions = _Regions(self.blocks + _code_spans(self.text, fenced, self.html))
        return self.regions.contains(pos)


def _html(text: str, code: _Code) -> list[tuple[int, int]]:
    """Comments, processing instructions, declarations and CDATA outside code, each to the
    close cmark-gfm gives it as inline raw HTML (a close inside code does not count), or to the
    end of the text when there is none.  A browser ends such a chunk earlier (a comment at
    ``--!>``, the others at the first ``>``, as bogus comments) and reads the rest of it as
    HTML, which is tokenized too: a ``<style/x>`` there swallows the rest of the text."""
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


def _footnotes(text: str, code: _Code) -> list[tuple[int, int]]:
    if "[^" not in text:
        return []
    defs = [m for m in _FOOTNOTE_DEF_RE.finditer(text) if not code.contains(m.start())]
    if not defs:
        return []
    refs: set[str] = {m.group(1).casefold() for m in _FOOTNOTE_REF_RE.finditer(text)}
    return [m.span() for m in defs if m.group(1).casefold() not in refs]


def _verbatim_blocks(text: str, html: _HtmlBlocks) -> list[list[tuple[int, int]]]:
    """Two readings of the HTML blocks whose lines GitHub passes through verbatim (``html``
    is finished); the truth is one of them, so the marks of both are taken.

    In the first, a candidate line inside an earlier block is part of that block (as inside
    a real block).  In the second, every candidate starts a block and cuts the one before it
    (as when the earlier candidate was really a paragraph line, which types 1-6 interrupt),
    except inside a block of types 1-5, which runs to its end condition."""
    nested: list[tuple[int, int]] = []
    cut: list[tuple[int, int]] = []
    reach = closed_kind = 0  # the nested block's end; the end of a type 1-5 block
    for start, end in html.spans:
        start -= 1  # the spans start one past the block's first character
        end = min(end, len(text))
        if start >= reach:
            reach = end
            nested.append((start, end))
        if start >= closed_kind:
            if cut and cut[-1][1] > start:
                cut[-1] = (cut[-1][0], start)
            cut.append((start, end))
            if _HTML_KIND_RE.match(text, start) is not None:
                closed_kind = end
    return [nested, cut]


def _block_html(text: str, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """Raw HTML inside HTML blocks, read by the HTML5 tokenizer (GitHub renders the block
    verbatim and the page is parsed as HTML5): comments, bogus comments (``<! x>``, ``</3 x>``,
    ``<!-x->``, ``<?``), DOCTYPE, tags the sanitizer strips or that carry attributes, and script
    or style text.  A token still open where its block ends (an unclosed attribute value or
    comment) swallows the Markdown after it: it runs to the end of the text.

    Both readings of ``_verbatim_blocks`` count.  The second is not tokenized again where it
    reads as the first: from a block start outside any token, both read the same tokens, so
    only a start or end of its blocks inside a token of the first (a token cut short there),
    and the parts of its blocks beyond the first's, can add marks."""
    nested, cut = _verbatim_blocks(text, html)
    spans, extents, finished = _tokenized(text, nested)
    if not finished:
        return spans  # the rest of the text is marked already
    # The first token of the first reading that a block of the second starts or ends inside.
    bounds = sorted({b for block in cut for b in block})
    i = 0
    for start, end in extents:
        i = bisect_right(bounds, start, i)
        if i < len(bounds) and bounds[i] < end:
            spans.append((start, len(text)))
            return spans
    # The parts of the second reading's blocks beyond the end of the first's block they start
    # in (its state there is the data state, as the first's is).
    beyond = []
    j = 0
    for start, end in cut:
        while j + 1 < len(nested) and nested[j + 1][0] <= start:
            j += 1
        if end > nested[j][1]:
            beyond.append((max(start, nested[j][1]), end))
    return spans + _tokenized(text, beyond)[0]


# A line inside block quotes or list items that starts like HTML ("> <div @x=...>"): an HTML
# block inside the container, which cmark-gfm also passes through.
_CONTAINER_HTML_RE = re.compile(
    r"^(?:[ \t]{0,3}+(?:>[ \t]?+|(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++))++[ \t]*+(?=<[A-Za-z/!?])", re.M
)


def _container_html(text: str, code: _Code) -> list[tuple[int, int]]:
    """The first line of each HTML block inside a container, tokenized (its later lines carry
    the container's markers, which a browser never sees, so a token still open at the end of
    the line hides the rest of the text)."""
    blocks = []
    for m in _CONTAINER_HTML_RE.finditer(text):
        if not code.contains(m.end()):
            line_end = text.find("\n", m.end())
            blocks.append((m.end(), len(text) if line_end < 0 else line_end))
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
    for m in _TAG_RE.finditer(text):
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


_ELEMENT_TAG_RE = {
    name: re.compile(rf"</?+{name}(?=[\t\n\f\r />])", re.I) for name in ("details", "rp")
}
_SUMMARY_CLOSE_RE = re.compile(r"</summary(?=[\t\n\f\r />])[^>]*+>", re.I)
_SUMMARY_OPEN_RE = re.compile(r"[ \t\n\f\r]*+<summary(?=[\t\n\f\r />])", re.I)
_RUBY_CLOSE_RE = re.compile(r"</ruby(?=[\t\n\f\r />])", re.I)


def _element_tags(text: str, code: _Code, name: str) -> list[_html5.Token]:
    """The open and closing tags of one element outside code, read as the tokenizer reads
    them (a closing tag is a token of kind ``end``)."""
    found = []
    pos = 0
    while (m := _ELEMENT_TAG_RE[name].search(text, pos)) is not None:
        token = _html5.token_at(text, m.start())
        pos = m.end()
        if token is None or code.contains(m.start()):
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


def _rp(text: str, code: _Code) -> list[tuple[int, int]]:
    """``<rp>`` elements with their content (shown only where ruby is not supported): to the
    matching ``</rp>``, nested ones counted, or the next ``</ruby>``, or the end of the text."""
    spans: list[tuple[int, int]] = []
    ruby_closes = [m.start() for m in _RUBY_CLOSE_RE.finditer(text)]
    depth, opened = 0, 0
    for token in [*_element_tags(text, code, "rp"), None]:
        at = len(text) if token is None else token.start
        if depth:
            i = bisect_left(ruby_closes, opened)
            if i < len(ruby_closes) and ruby_closes[i] < at:
                spans.append((opened, ruby_closes[i]))  # </ruby> closes every open <rp>
                depth = 0
            elif token is None:
                spans.append((opened, len(text)))
        if token is None:
            break
        if token.kind == _html5.START:
            opened = token.start if depth == 0 else opened
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                spans.append((opened, token.end))
    return spans


def _raw_html(text: str, code: _Code, html: _HtmlBlocks) -> list[tuple[int, int]]:
    """Every span of raw HTML that GitHub does not show (``text`` holds a ``<``)."""
    spans = _html(text, code) + _block_html(text, html) + _inline_tags(text, code)
    spans += _container_html(text, code)
    lowered = text.casefold() if not text.isascii() else text.lower()
    if "<details" in lowered:
        spans += _details(text, code)
    if "<rp" in lowered:
        spans += _rp(text, code)
    if "[^" in text:
        tail = len(text.rstrip())
        if any(end >= tail for _, end in spans):
            # cmark-gfm renders footnote definitions after everything else, so what hides the
            # rest of the text (an unclosed comment, attribute value or <details>) hides them.
            defs = _FOOTNOTE_DEF_RE.finditer(text)
            spans += [m.span() for m in defs if not code.contains(m.start())]
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
        spans += _raw_html(text, code, html)
    if "](" in text or "![" in text:
        spans += [m.span() for m in _IMAGE_RE.finditer(text) if not code.contains(m.start())]
        tails = [(m.start() + 1, m.end()) for m in _LINK_TAIL_RE.finditer(text)]
        spans += [tail for tail in tails if not code.contains(tail[0])]
    if "]:" in text:
        spans += [m.span() for m in _LINK_DEF_RE.finditer(text) if not code.contains(m.start())]
        spans += _footnotes(text, code)
    return merge(spans)
