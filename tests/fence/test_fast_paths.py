"""The fast paths give exactly what the straightforward definitions give (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from untrusted_fence import _ansi, _chars, _clean, _fence, _hidden, _inline, _markers
from untrusted_fence._hidden import mark_spans

# Characters that exercise the special cases: lookalikes, expansions, separators, marks.
_TRICKY = (
    "rnlI10O\"%&#;\n \t._-*|/\\'°₀\u00a0\u3000\u2028\u0415\u0435\u13a1\uff25\u0301\u00e9"
    "\u017f\u212a\u00df\ufb00\u2460\U0001d404\u6587\U0001f389\u27e6\u27e7"
)
tricky_text = st.text(alphabet=st.sampled_from(_TRICKY), max_size=60) | st.text(max_size=60)

_HIDDEN = "\u27e6hidden: "
_FRAGMENTS = [
    "END", "end of", " the ", "UNTRUSTED", "quoted", "QUOTED", "fence", "----", "<|im_end|>",
    "Human:", "\n", "## System", "<s>", "[INST]", "<|x|>", "===", "\u2014", "&#69;", "&#x45;",
    "&amp;", "&NewLine;", "N", "D", " ", "x",
    _HIDDEN + "a\nb\u27e7", _HIDDEN + "x\u27e7", "\u0415", "&#78;D", "<b>", "</b>", "&shy;",
    "&#8203;", "comment", "-", "<<<", "trusted", "un", "System", "===", "# ", "User", ":",
    "\u2236", "<|", "|>", "[", "]", "inst", "role", '"', "s>", "</", "\u1d07", "\U0001f1ea",
    "check", "output", "here", "quoted text", "ends", "<system", ">", "think", "\u00ab",
]  # fmt: skip
marker_text = st.lists(st.sampled_from(_FRAGMENTS), max_size=25).map("".join)


def _reference_fold(text: str) -> str:
    folded = "".join(_chars._fold_char(ord(c)) if ord(c) > 127 else c for c in text)
    raw = folded.encode("utf-8", "surrogatepass").translate(_chars._ASCII_FOLD_BYTES)
    out = raw.decode("utf-8", "surrogatepass")
    for char, expanded in _chars._ASCII_EXPANDING:
        out = out.replace(char, expanded)
    return out.replace("rn", "m")


@given(tricky_text)
def test_fold_equals_the_character_by_character_definition(text: str) -> None:
    assert _reference_fold(text) == _chars.fold(text)


@given(st.lists(st.sampled_from(["a\n", "\u0415", "\u00e9", "\u6587"]), max_size=80))
def test_fold_of_many_distinct_characters_equals_the_definition(parts: list[str]) -> None:
    text = "".join(parts) + "".join(chr(0x4E00 + i) for i in range(60))
    assert _reference_fold(text) == _chars.fold(text)


@given(tricky_text)
def test_casefold_fast_path_equals_str_casefold(text: str) -> None:
    assert text.casefold() == _chars.casefold(text)


@given(tricky_text)
def test_nonce_view_compaction_removes_exactly_the_separator_class(text: str) -> None:
    expected = _fence._COMPACT_RE.sub("", text)
    actual = _chars.delete_chars(text, _fence._COMPACT_ASCII, _fence._COMPACT_OTHERS)
    assert expected == actual


def test_no_hex_digit_folds_to_a_separator() -> None:
    # _views keeps only compacted views, which is sound only if a nonce holds no separator.
    folded = [_chars.fold(c) + c for c in "0123456789abcdef"]
    assert [] == [f for f in folded if _fence._COMPACT_RE.search(f)]


def _whole(text: str) -> str:
    parts, pos = [], 0
    for start, end in mark_spans(text):
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def _reference_any_match(text: str) -> bool:
    """Every rule on every whole view: no key prefilter, no changed-lines shortcut."""
    tagless = _markers._TAG_RE.sub("", text)
    variants = [text, _markers._decode(text), _whole(text), _markers._decode(_whole(text))]
    variants += [tagless, _markers._decode(tagless), _whole(tagless)]
    for rules in _markers._RULES:
        for v in variants:
            view = rules.view(v)
            if rules.rx.search(view) or rules.cross_search(view):
                return True
    return False


@given(marker_text)
def test_marker_detection_on_changed_lines_only_equals_detection_on_whole_views(
    text: str,
) -> None:
    assert _reference_any_match(text) == _markers.find_markers(text)


@given(marker_text | tricky_text)
def test_key_word_lines_hold_every_rule_match(text: str) -> None:
    # The split (line rules after newlines, the other groups on their key lines only) finds a
    # match exactly when the one combined regex finds one on the whole view.
    for rules in _markers._RULES:
        view = rules.view(text)
        compact = rules.compact(view)
        expected = rules.rx.search(view) is not None
        found = rules.line_at_start.match(view) or rules.line_after_newline.search(view)
        for group in rules.groups:
            chosen = rules.candidates(group, view, compact)
            found = found or (chosen is not None and group.rx.search(chosen))
        assert expected == bool(found)


def _reference_tidy(text: str) -> str:
    text = re.sub(r"[ \t]{33,}+", lambda m: m.group()[:32], text)
    text = re.sub(r"[ \t]++(?=\n|\Z)", "", text)
    return re.sub(r"\n{4,}+", "\n\n\n", text).strip("\n")


spacey_text = st.lists(
    st.sampled_from([" ", "\t", "\n", "a", "\u00e9", " " * 20, "\t" * 13, "\n\n\n"]), max_size=40
).map("".join)


@given(spacey_text)
def test_whitespace_tidying_equals_the_three_regex_definition(text: str) -> None:
    assert _reference_tidy(text) == _chars.tidy_whitespace(text)


ansi_text = st.lists(
    st.sampled_from(
        [
            "\x1b[",
            "\x9b",
            "31",
            "8",
            ";",
            ":",
            "m",
            "x",
            "\n",
            "\x1b]",
            "\x07",
            "\x1b\\",
            "0",
            "\x1b",
            "3",
            "4",
            "38;5;",
            "48;5;",
            "1",
        ]
    ),
    max_size=30,
).map("".join)


@given(ansi_text)
def test_ansi_removal_without_strings_or_conceal_equals_the_full_walk(text: str) -> None:
    assert _ansi._strip_with_hidden(text) == _ansi.strip_ansi(text)


@given(ansi_text)
def test_conceal_prefilter_finds_every_7_bit_sgr_8(text: str) -> None:
    sgrs = _ansi._SGR_RE.findall(text.replace("\x9b", "\x1b\\"))
    expected = any("8" in re.split("[;:]", p) for p in sgrs)
    assert expected == (_ansi._CONCEAL_7_RE.search(text) is not None)


class _ReferenceHtmlBlocks:
    """A position is in an HTML block when a line before it, outside fenced code, starts like
    HTML and no blank line ends between that line's start and the position."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.blank_ends = [m.end() for m in _hidden._BLANK_LINE_RE.finditer(text)]
        self.candidates = [
            i
            for i in range(len(text))
            if (i == 0 or text[i - 1] == "\n") and _hidden._HTML_BLOCK_START_RE.match(text, i)
        ]
        self.starts = list(self.candidates)
        blocks, _ = _reference_code_fences(text, self)
        self.starts = [i for i in self.candidates if not any(s <= i < e for s, e in blocks)]

    def _end_condition_line(self, start: int) -> int | None:
        """For HTML block types 1-5: the end of the line holding the end condition."""
        kind = _hidden._HTML_KIND_RE.match(self.text, start)
        if kind is None:
            return None
        close = _hidden._HTML_KIND_END.get(kind.group(1).casefold(), ">")
        found = self.text.lower().find(close, kind.start(1))
        if found < 0:
            return len(self.text) + 1
        line_end = self.text.find("\n", found)
        return len(self.text) + 1 if line_end < 0 else line_end + 1

    def contains(self, pos: int) -> bool:
        for start in self.starts:
            end = self._end_condition_line(start)
            if end is not None:
                if start < pos < end:
                    return True
            elif start < pos and not any(start < b <= pos for b in self.blank_ends):
                return True
        return False


def _reference_code_spans(text: str, fenced: list[tuple[int, int]]) -> list[tuple[int, int]]:
    html_blocks = _ReferenceHtmlBlocks(text)
    runs = [m.span() for m in _hidden._BACKTICKS_RE.finditer(text)]
    runs = [
        r
        for r in runs
        if not any(s <= r[0] < e for s, e in fenced) and not html_blocks.contains(r[0])
    ]
    # Code is what both readings of where paragraphs end agree on.
    every = [*_inline.strict_breaks(text), len(text)]
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    for start in starts:
        if text.startswith(("\t", "    "), start):
            end = text.find("\n", start)
            every.append(len(text) if end < 0 else end)  # an indented line ends a paragraph
    every += [m.end() for m in _inline._HTML_LINE_RE.finditer(text)]
    every += [m.end() for m in _inline._FENCE_LINE_RE.finditer(text)]
    every += [m.end() for m in _inline._DEFINITION_LINE_RE.finditer(text)]
    every += [m.end() for m in _inline._PIPE_LINE_RE.finditer(text)]
    blank = [m.start() for m in _hidden._BLANK_LINE_RE.finditer(text)] + [len(text)]
    agreed = _positions(_reference_pairing(text, runs, every))
    agreed &= _positions(_reference_pairing(text, runs, blank))
    spans: list[tuple[int, int]] = []
    for p in sorted(agreed):
        if spans and spans[-1][1] == p:
            spans[-1] = (spans[-1][0], p + 1)
        else:
            spans.append((p, p + 1))
    return spans


def _positions(spans: list[tuple[int, int]]) -> set[int]:
    return {p for s, e in spans for p in range(s, e)}


def _reference_pairing(
    text: str, runs: list[tuple[int, int]], breaks: list[int]
) -> list[tuple[int, int]]:
    """cmark-gfm's scan_to_closing_backticks, run by run, in each paragraph: a memo of where a
    run of each length was seen last, and a flag once a scan reached the paragraph's end."""
    spans, i = [], 0
    memo: dict[int, int] = {}
    scanned, paragraph = False, -1
    while i < len(runs):
        start = runs[i][0]
        limit = min(b for b in breaks if b >= runs[i][1])
        if limit != paragraph:
            memo, scanned, paragraph = {}, False, limit
        backslashes = len(text[:start]) - len(text[:start].rstrip("\\"))
        if backslashes % 2:
            start += 1  # an escaped first backtick is literal text
        length = runs[i][1] - start
        if not length or (scanned and memo.get(length, -1) <= runs[i][1]):
            i += 1
            continue
        closer = None
        for j in range(i + 1, len(runs)):
            if runs[j][0] > limit:
                break
            memo[runs[j][1] - runs[j][0]] = runs[j][0]
            if runs[j][1] - runs[j][0] == length:
                closer = j
                break
        if closer is None:
            scanned = True
            i += 1
        else:
            spans.append((start, runs[closer][1]))
            i = closer + 1
    return spans


markdown_text = st.lists(
    st.sampled_from(
        [
            "`",
            "``",
            "```",
            "\n",
            "\n\n",
            " \n \n",
            "<a>",
            "<!--",
            "  <p",
            "x",
            " ",
            "~~~",
            "\\",
            "- ",
            "> ",
            "#",
        ]
    ),
    max_size=40,
).map("".join)


@given(markdown_text)
def test_html_block_regions_equal_the_line_lookup(text: str) -> None:
    reference = _ReferenceHtmlBlocks(text)
    fast = _hidden._HtmlBlocks(text)
    _hidden._code_fences(text, fast)
    positions = range(len(text) + 1)
    assert [reference.contains(p) for p in positions] == [fast.contains(p) for p in positions]


@given(markdown_text)
def test_code_spans_equal_the_pairing_definition(text: str) -> None:
    html_blocks = _hidden._HtmlBlocks(text)
    blocks, _ = _hidden._code_fences(text, html_blocks)
    expected = _reference_code_spans(text, blocks)
    assert expected == _hidden._code_spans(text, _hidden._Regions(blocks), html_blocks)


_PIECE_CHARS = (
    "ae\u0301\u0323\u1100\u1161\u11a8\uac00\u0b47\u0b3e\u09c7\u09be\u2b1a\u2460\uff21\u200b"
    "\u2028\x07\r\n\u0378\ud800\ue000\u27e6\u00bd\u0344\u0f73\U0001d400\u3099\u304b"
)
piece_lists = st.lists(st.text(alphabet=st.sampled_from(_PIECE_CHARS), max_size=6), max_size=12)


@given(piece_lists)
def test_cleaning_pieces_in_one_call_equals_cleaning_each(pieces: list[str]) -> None:
    assert [_chars.clean_chars(p) for p in pieces] == _clean._clean_pieces(pieces)


_REFERENCE_FENCE_RE = re.compile(r"^ {0,3}(`{3,}+|~{3,}+)([^\n]*)$", re.M)


def _reference_code_fences(
    text: str, html_blocks: _ReferenceHtmlBlocks | None = None
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Line by line: a fence line opens fenced code unless an HTML block started before it
    outside fenced code holds it; a line inside fenced code never starts an HTML block."""
    if html_blocks is None:
        html_blocks = _ReferenceHtmlBlocks(text)
    candidates = html_blocks.candidates
    blocks, hidden = [], []
    opener: re.Match[str] | None = None
    html_blocks.starts = []
    for m in _REFERENCE_FENCE_RE.finditer(text):
        fence, info = m.group(1), m.group(2)
        if opener is None:
            html_blocks.starts = [i for i in candidates if not any(s <= i < e for s, e in blocks)]
            if fence[0] == "`" and "`" in info:
                continue
            # The info string is marked even when the line is HTML to the model: a tag line
            # inside a paragraph starts no HTML block in cmark-gfm, so the line may be a
            # real opener whose info string GitHub hides.
            words = info.strip().split(maxsplit=1)
            if words and _hidden._LANGUAGE_RE.fullmatch(words[0]) is None:
                hidden.append((m.start(2), m.end(2)))
            elif len(words) == 2:
                hidden.append((m.start(2) + info.index(words[0]) + len(words[0]), m.end(2)))
            if html_blocks.contains(m.start()):
                continue
            opener = m
        elif (
            fence[0] == opener.group(1)[0]
            and len(fence) >= len(opener.group(1))
            and not info.strip()
        ):
            blocks.append((opener.start(), m.end()))
            opener = None
    if opener is not None:
        blocks.append((opener.start(), len(text)))
    return blocks, hidden


fence_text = st.lists(
    st.sampled_from(["```", "````", "~~~", " ", "   ", "\n", "\n\n", "py", " x y", "`", "<a>"]),
    max_size=30,
).map("".join)


@given(fence_text)
@example("```~~~```\n<a>\n``` x y")  # a fence line under a tag line: its tail is marked
def test_code_fences_equal_the_line_by_line_definition(text: str) -> None:
    expected = _reference_code_fences(text)
    assert expected == _hidden._code_fences(text, _hidden._HtmlBlocks(text))


@given(st.text(alphabet=st.sampled_from("ab\n\u00e9\U0001f389"), max_size=30))
def test_blanking_out_equals_replacing_every_non_newline(text: str) -> None:
    assert re.sub(r"[^\n]", "x", text) == _ansi.blank_out(text)
