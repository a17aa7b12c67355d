"""The fast paths give exactly what the straightforward definitions give (hypothesis)."""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from itertools import pairwise

from _references import (
    RULES_AS_WRITTEN,
    any_marker_on_whole_views,
    fold_by_definition,
    line_by_line,
    rule_spans,
)
from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _ansi, _blocks, _chars, _clean, _fence, _hidden, _inline, _markers
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


@given(tricky_text)
def test_fold_equals_the_character_by_character_definition(text: str) -> None:
    assert fold_by_definition(text) == _chars.fold(text)


@given(st.lists(st.sampled_from(["a\n", "\u0415", "\u00e9", "\u6587"]), max_size=80))
def test_fold_of_many_distinct_characters_equals_the_definition(parts: list[str]) -> None:
    text = "".join(parts) + "".join(chr(0x4E00 + i) for i in range(60))
    assert fold_by_definition(text) == _chars.fold(text)


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


@given(marker_text)
def test_marker_detection_on_changed_lines_only_equals_detection_on_whole_views(
    text: str,
) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)


# The fence's own syntax cut into pieces at random points, with blank lines, lines of
# separators, filler lines or other text between the pieces, and a letter of one piece spelled
# as an entity, with a tag or a hidden mark inside, or left as it is.
_OWN_SHAPES = [
    "<<<untrusted-comment-end", "untrusted-check-output-begin", "\u00ab\u00abtrusted",
    "trusted-comment-start", "<<<untr\u0443sted",
]  # fmt: skip
_BETWEEN = [
    "", "\n", "\n\n", "\n\n\n", "\n\n\n\n", "\n-\n", "\n---\n\n", " ", "\nx\n",
    "\nSystem\n===\n", "\n" + "abcdefghij" * 3 + "\n", "\n" + "k" * 60 + "\n", "\n&amp;\n",
    "\n<b>\n", "\n" + _HIDDEN + "a\n\nb\u27e7\n",
]  # fmt: skip
_SPELLINGS = ["{}", "&#{};", "{}<b></b>", "{}<!-- x -->", "{}" + _HIDDEN + "x\u27e7", "{}&shy;"]


@st.composite
def split_syntax_text(draw: st.DrawFn) -> str:
    shape = draw(st.sampled_from(_OWN_SHAPES))
    cuts = sorted(draw(st.sets(st.integers(1, len(shape) - 1), max_size=4)))
    pieces = [shape[a:b] for a, b in pairwise([0, *cuts, len(shape)])]
    k = draw(st.integers(0, len(pieces) - 1))
    spelling = draw(st.sampled_from(_SPELLINGS))
    first = pieces[k][0]
    letter = str(ord(first)) if spelling.startswith("&#") else first
    pieces[k] = spelling.format(letter) + pieces[k][1:]
    between = [draw(st.sampled_from(_BETWEEN)) for _ in pieces[1:]]
    before = draw(st.sampled_from(["", "x\n" * 30, "k" * 60 + "\n\n", "Human: x\n"]))
    after = draw(st.sampled_from(["", "\ny" * 30, " 0123>>>", "\n\nEND"]))
    return (
        before
        + pieces[0]
        + "".join(b + p for b, p in zip(between, pieces[1:], strict=True))
        + after
    )


@given(split_syntax_text())
def test_detection_of_own_syntax_split_over_lines_equals_detection_on_whole_views(
    text: str,
) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)


@given(split_syntax_text())
def test_the_cleaned_own_syntax_split_over_lines_holds_no_marker_in_any_whole_view(
    text: str,
) -> None:
    assert not any_marker_on_whole_views(_clean.clean(text))


@given(marker_text | tricky_text)
def test_probed_lines_hold_every_rule_match(text: str) -> None:
    # The split (each group on the lines where its probes are found) finds a match exactly
    # when the one combined regex finds one on the whole view.
    for rules in _markers._RULES:
        view = rules.view(text)
        expected = rules.rx.search(view) is not None
        scan = _markers._Scan(rules, view)
        found = [g for g in rules.groups if (c := scan.chosen(g)) is not None and g.search(c)]
        assert expected == bool(found)


@given(marker_text | tricky_text)
def test_matches_on_probed_lines_are_the_matches_on_the_whole_view(text: str) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        scan = _markers._Scan(rules, view)
        for group in rules.groups:
            expected = [(s, e) for s, e in group.spans(view) if e > s]
            assert expected == [(s, e) for s, e in scan.spans(group) if e > s]


def _reference_setext_lines(view: str, heading: re.Pattern[str]) -> list[int]:
    found = []
    for m in _markers._UNDERLINE_RE.finditer(view):
        start = view.rfind("\n", 0, m.start()) + 1
        if heading.fullmatch(view, start, m.start()) is not None:
            found.append(start)
    return found


underline_text = st.lists(
    st.sampled_from(["System", "User:", "x", "\n", "=", "-", "==", "--", " ", "\t", "> "]),
    max_size=30,
).map("".join)


@given(underline_text | marker_text)
def test_setext_headings_found_from_underline_ends_equal_the_underline_scan(text: str) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        expected = _reference_setext_lines(view, rules.setext_rx)
        assert expected == _markers._setext_lines(view, rules.setext_rx)


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


def _reference_code_spans(
    text: str, fenced: list[tuple[int, int]], html: list[tuple[int, int]], breaks: list[int]
) -> list[tuple[int, int]]:
    runs = [m.span() for m in _hidden._BACKTICKS_RE.finditer(text)]
    runs = [r for r in runs if not any(s <= r[0] < e for s, e in fenced + html)]
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
    # The other reading ends paragraphs at blank lines and where the block walk saw a block.
    blank = sorted({m.start() for m in _inline.BLANK_LINE_RE.finditer(text)} | set(breaks))
    blank.append(len(text))
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
def test_code_spans_equal_the_pairing_definition(text: str) -> None:
    # Fenced code and HTML blocks come from the block walk (tests/fence/test_blocks.py holds
    # it to cmark-gfm); the pairing of the backtick runs outside them is what is checked here.
    found = _blocks.blocks(text)
    expected = _reference_code_spans(text, found.fences, found.html, found.breaks)
    html_blocks = _hidden._HtmlBlocks(found.html)
    assert expected == _hidden._Code(text, html_blocks, found.fences, found.breaks).spans()


_PIECE_CHARS = (
    "ae\u0301\u0323\u1100\u1161\u11a8\uac00\u0b47\u0b3e\u09c7\u09be\u2b1a\u2460\uff21\u200b"
    "\u2028\x07\r\n\u0378\ud800\ue000\u27e6\u00bd\u0344\u0f73\U0001d400\u3099\u304b"
)
piece_lists = st.lists(st.text(alphabet=st.sampled_from(_PIECE_CHARS), max_size=6), max_size=12)


@given(piece_lists)
def test_cleaning_pieces_in_one_call_equals_cleaning_each(pieces: list[str]) -> None:
    assert [_chars.clean_chars(p) for p in pieces] == _clean._clean_pieces(pieces)


@given(st.text(alphabet=st.sampled_from("ab\n\u00e9\U0001f389"), max_size=30))
def test_blanking_out_equals_replacing_every_non_newline(text: str) -> None:
    assert re.sub(r"[^\n]", "x", text) == _ansi.blank_out(text)


def _reference_drop_invisible(text: str) -> str:
    if text.isascii():
        return "".join(c for c in text if c in "\t\n" or " " <= c <= "~")
    return "".join(c for c in text if c in "\t\n" or not _chars.is_forbidden(ord(c)))


@given(
    tricky_text
    | st.text(alphabet=st.sampled_from("a\x00\x7f\r\t\n\u200b\u00ad\U000e0041\u00e9"), max_size=20)
)
def test_dropping_invisible_characters_by_translate_equals_the_per_character_test(
    text: str,
) -> None:
    assert _reference_drop_invisible(text) == _markers._drop_invisible(text)


entity_text = st.lists(
    st.sampled_from(
        [*_FRAGMENTS, "&shy;", "&ZeroWidthSpace;", "&#x45;", "&eacute;", "&#123456789;", "&"]
    ),
    max_size=20,
).map("".join)


@given(entity_text)
def test_entity_decoded_spans_mapped_by_segments_equal_the_unit_mapping(text: str) -> None:
    # Where the direct path applies (the decoded view maps one for one), it finds the same
    # spans as mapping the decoded text unit by unit.
    marks = mark_spans(text)
    entities = _markers._entity_edits(text)
    for skip in _markers._skips(text, marks):
        units = _markers._units(text, skip, True)
        for rules in _markers._RULES:
            direct = _markers._direct_spans(text, _markers._decoded(skip, entities), rules)
            if direct is None:
                continue
            out, starts, ends = _markers._mapped(units, rules.view)
            expected = [(starts[s], ends[e - 1]) for s, e in _markers._view_matches(rules, out)]
            assert expected == direct


phrase_text = st.lists(
    st.sampled_from(
        ["END", "end", " OF ", "QUOTED", "TEXT", "text", "ends", "here", "comment", "quote", "d",
         "fin du texte cit\u00e9", "\u043a\u043e\u043d\u0435\u0446 \u0446\u0438\u0442",
         "-", "=", "_", " ", "*", "\n", "0", "x", "\u0443", "user input", "<<<", "untrusted",
         "fin de la citation", "fin del texto citado", "ende zitat", "ending", "quotation",
         "beginning", "fenced", "of", "the", "now"]
    ),
    max_size=14,
).map("".join)  # fmt: skip


@given(phrase_text | marker_text)
def test_the_phrase_guard_and_frame_change_nothing_the_phrase_rule_finds(text: str) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        guarded = re.compile(rules.line_rules[0], re.M)
        # The rule as first written: no guard, the frame as a branch per character.
        first = rules.line_rules[0].replace(rules.phrase_guard, "")
        plain = re.compile(first.replace(_markers._FRAME, r"(?:[^\w\n]|_)*+"), re.M)
        starts = [0] + [i + 1 for i, c in enumerate(view) if c == "\n"]
        expected = [bool(plain.match(view, p)) for p in starts]
        assert expected == [bool(guarded.match(view, p)) for p in starts]


def _reference_solid(line: str, inside_mark: bool) -> int:
    if inside_mark or "&" in line or "\u27e6" in line or "\u27e7" in line:
        return 0
    if any(chr(c) in line for c in _markers._stop_bytes()):
        return _markers._REACH
    return sum(1 for c in line if c.isascii() and c.isalnum())


def _reference_visible_lines(text: str, marks: list[tuple[int, int]]) -> str:
    """The lines that a mark touches and their neighbours, in runs of consecutive lines, with
    the marks cut out; the runs joined by the barrier.  A neighbour is the line next to a
    touched line, or a later (earlier) line when the lines between it and the nearest touched
    line before (after) it hold fewer than _REACH solid characters."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    ends = [i for i, c in enumerate(text) if c == "\n"] + [len(text)]

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    touched = {n for s, e in marks for n in range(line_of(s), line_of(e) + 1)}
    solid = [
        _reference_solid(
            text[starts[n] : ends[n]], any(s < ends[n] and e > starts[n] for s, e in marks)
        )
        for n in range(len(starts))
    ]
    reach = _markers._REACH
    chosen = []
    for n in range(len(starts)):
        before = [m for m in touched if m <= n]
        after = [m for m in touched if m >= n]
        near_before = before and (n - max(before) <= 1 or sum(solid[max(before) + 1 : n]) < reach)
        near_after = after and (min(after) - n <= 1 or sum(solid[n + 1 : min(after)]) < reach)
        if near_before or near_after:
            chosen.append(n)
    runs: list[list[int]] = []
    for n in chosen:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    pieces = []
    for run in runs:
        a, b = starts[run[0]], ends[run[-1]]
        inside = [(s, e) for s, e in marks if a <= s and e <= b]
        parts, pos = [], a
        for s, e in inside:
            parts.append(text[pos:s])
            pos = e
        parts.append(text[pos:b])
        pieces.append("".join(parts))
    return _markers._BARRIER.join(pieces)


mark_text = st.lists(
    st.sampled_from(
        ["a", "\n", " ", _HIDDEN + "x\u27e7", _HIDDEN + "a\nb\u27e7", "END", "&amp;", "\n\n",
         "abcdefghijklmnopqrstuvwxyz", _HIDDEN + "\nabcdefghijklmnopqrstuvwxyz\n\u27e7",
         "untrustedcommentbegin", "\n<<\n", "!", _HIDDEN + "\nuntrustedcommentbegin\n\u27e7"]
    ),
    max_size=20,
).map("".join)  # fmt: skip


@given(mark_text)
def test_visible_lines_with_neighbours_equal_the_line_by_line_definition(text: str) -> None:
    marks = mark_spans(text)
    assert _reference_visible_lines(text, marks) == _markers._visible_lines(text, marks)


@given(marker_text | phrase_text | tricky_text)
def test_rules_with_lookbehinds_after_a_literal_find_what_the_rules_as_written_find(
    text: str,
) -> None:
    for fast, written in zip(_markers._RULES, RULES_AS_WRITTEN, strict=True):
        assert rule_spans(written, text) == rule_spans(fast, text)


@given(mark_text)
def test_cutting_marks_with_one_regex_equals_cutting_the_mark_spans(text: str) -> None:
    assert _whole(text) == _hidden.cut_marks(text)


@given(
    st.lists(st.sampled_from(["a", "END UNTRUSTED\n", "<s>\n", "x\n", "Human: y\n"]), min_size=1)
)
def test_remembered_scans_of_long_views_give_what_fresh_scans_give(seeds: list[str]) -> None:
    texts = [seed * 1500 for seed in seeds + seeds[::-1]]
    for rules in _markers._RULES:
        for text in texts:
            view = rules.view(text)
            fresh = _markers._Scan(rules, view)
            expected = [s for g in rules.groups for s in fresh.spans(g)]
            assert expected == [
                s for g in rules.groups for s in _markers._scan_of(rules, view).spans(g)
            ]


def _reference_strict_breaks(text: str) -> list[int]:
    """Every ``_BREAK_RE`` break, each quote-line one tested where it is found."""
    out = []
    for m in _inline._BREAK_RE.finditer(text):
        start = m.start()
        if m.group("quote") is not None:
            line = text.rfind("\n", 0, start) + 1
            if text[line:start].lstrip(" \t").startswith(">"):
                markers = _inline._QUOTE_MARKERS_RE.match(text, start + 1)
                rest = start + 1 if markers is None else markers.end()
                inner = _inline._BLOCK_START_RE.match(text, rest)
                if inner is None or inner.group("quote") is not None:
                    continue
        out.append(start)
    return out


quote_text = st.lists(
    st.sampled_from(["\n", ">", "> ", " ", "\t", "   >", "    >", "x", "- ", "#", "```", "\n\n"]),
    max_size=40,
).map("".join)


@given(quote_text | markdown_text)
def test_strict_breaks_with_quote_lines_found_apart_equal_the_one_pass_definition(
    text: str,
) -> None:
    assert _reference_strict_breaks(text) == _inline.strict_breaks(text)


_BLOCK_LINES = [
    "- a", "* b", "+ c", "1. d", "2) e", "10. f", "-  g", "- [x]: /u", "- - h", "-", "> q", ">q",
    "> > r", "> - s", ">", "> [a]: /u", "> ---", "> a|b", "> -|-", "| -", "text", "[a]: /u",
    "[^n]: note", "  text", "    code", "\tcode", "```", "```py x", "~~~", "<div>", "<!--", "-->",
    "# h", "===", "---", "***", "a|b", "-|-", "", "", "", "  - i", "   > j", "<span>x</span>",
    "<s><!-->", "<div", "<DIV>", "<pre", "<?x", "<!x", "</p>", "<b>", "< b", "<script>",
]  # fmt: skip
block_text = st.lists(st.sampled_from(_BLOCK_LINES), max_size=30).map("\n".join) | st.lists(
    st.sampled_from(_BLOCK_LINES), max_size=30
).map(lambda lines: "".join(line + "\n" for line in lines))


@given(block_text | markdown_text)
def test_the_walk_with_its_runs_equals_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


def _reference_render_hidden(body: str) -> str:
    body = body.translate(_clean._MARK_LOOKALIKES)
    core = body.strip()
    if not core:
        return body
    lead, trail = body[: len(body) - len(body.lstrip())], body[len(body.rstrip()) :]
    return f"{lead}{_HIDDEN}{core}\u27e7{trail}"


@given(st.text(alphabet=st.sampled_from(" \t\na(\u2987\u2988\u27ea\u3000\u00e9x"), max_size=12))
def test_rendering_a_hidden_region_equals_translating_and_stripping_it(body: str) -> None:
    assert _reference_render_hidden(body) == _clean._render_hidden(body)


@given(tricky_text, st.lists(st.integers(min_value=0, max_value=60), max_size=8))
def test_masking_spans_equals_blanking_out_each(text: str, cuts: list[int]) -> None:
    bounds = sorted({min(c, len(text)) for c in cuts})
    spans = list(zip(bounds[::2], bounds[1::2], strict=False))
    expected, pos = "", 0
    for s, e in spans:
        expected += text[pos:s] + _ansi.blank_out(text[s:e])
        pos = e
    assert expected + text[pos:] == _clean._mask(text, spans)


_CODE_LINES = [*_BLOCK_LINES, "`a`", "a `b", "c` d", "``", "\\`x`", "` `", "x``y`z", "- `a", "> b`"]
code_line_text = st.lists(st.sampled_from(_CODE_LINES), max_size=30).map("\n".join)


def _code(text: str) -> _hidden._Code:
    found = _blocks.blocks(text)
    return _hidden._Code(text, _hidden._HtmlBlocks(found.html), found.fences, found.breaks)


@given(code_line_text | markdown_text)
def test_code_contains_without_pairing_equals_code_contains_after_pairing(text: str) -> None:
    paired = _code(text)
    pairings = paired._pairings()
    spans = _inline.intersect(pairings[0], pairings[1]) if pairings else []
    regions = _hidden._Regions(paired.blocks + spans)
    positions = range(len(text) + 1)
    assert [regions.contains(p) for p in positions] == [_code(text).contains(p) for p in positions]


def test_a_link_after_the_code_spans_of_its_paragraph_pairs_no_backticks() -> None:
    text = "Notes on `a.py`:\n\n- rename `f`; see [the docs](https://example.com/d).\n- ok\n\n"
    code = _code(text)
    tails = _inline.link_tails(text, code.contains)
    assert (1, None) == (len(tails), code._readings)


def test_every_ascii_letter_and_digit_stays_a_non_separator_in_every_view() -> None:
    # _markers._solid counts them as characters a compacted view keeps (fold's "rn" to "m" at
    # worst halves a run, which _REACH allows for).
    alnum = string.ascii_letters + string.digits
    for rules in _markers._RULES:
        assert [] == [c for c in alnum if not rules.full_compact(rules.view(c))]


comment_text = st.lists(
    st.sampled_from(
        ["<!--", "-->", "<!-->", "<!--->", "--!>", "-", "!", ">", "<", "x", " ", "\n", "\n\n",
         "`", "```\n", "<?", "?>", "<!x", "<![CDATA[", "]]>", "<s>", "<style/x>"]
    ),
    max_size=30,
).map("".join)  # fmt: skip


@given(comment_text)
def test_comments_found_in_one_regex_pass_equal_the_chunk_by_chunk_walk(text: str) -> None:
    found = _blocks.blocks(text)
    code = _hidden._Code(text, _hidden._HtmlBlocks(found.html), found.fences, found.breaks)
    assert _hidden._html_walk(text, code) == _hidden._html(text, code)


def test_an_unterminated_comment_after_closed_ones_hides_the_rest() -> None:
    text = "<!-- a --> b <!--> c <!-- d"
    found = _blocks.blocks(text)
    code = _hidden._Code(text, _hidden._HtmlBlocks(found.html), found.fences, found.breaks)
    assert [(0, 10), (13, 18), (21, len(text))] == _hidden._html(text, code)


span_lists = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12)


def _reference_merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
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


@given(span_lists)
def test_merging_spans_that_are_already_a_union_equals_the_span_by_span_merge(
    spans: list[tuple[int, int]],
) -> None:
    assert _reference_merge(spans) == _hidden.merge(spans)


@given(span_lists)
def test_merging_runs_found_by_maps_equals_the_span_by_span_merge(
    spans: list[tuple[int, int]],
) -> None:
    assert _reference_merge(spans) == _hidden._merge_walk(sorted(spans))


@given(span_lists, st.lists(st.integers(0, 60), max_size=10))
def test_expanding_replacements_that_touch_no_mark_equals_the_span_by_span_expansion(
    spans: list[tuple[int, int]], bounds: list[int]
) -> None:
    # Marks: sorted, disjoint, non-empty (as mark_spans gives them).
    cuts = sorted(set(bounds))
    marks = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
    assert _markers._expand_walk(_hidden.merge(spans), marks) == _markers._expand(spans, marks)


@given(st.lists(st.sampled_from(["a", "\n", _HIDDEN + "x\u27e7", _HIDDEN + "\u27e7"]), max_size=8))
def test_remembered_marks_of_long_texts_are_the_marks_found_afresh(parts: list[str]) -> None:
    text = "".join(parts) * 800 + _HIDDEN + "y\u27e7"
    fresh = [m.span() for m in _hidden._MARK_RE.finditer(text)]
    first = mark_spans(text)
    first.append((0, 0))  # a caller's change to the list it got changes nothing remembered
    assert fresh == mark_spans("".join([text]))


own_syntax_text = st.lists(
    st.sampled_from(
        ["<", "<<", "<<<", "\u00ab", "\u2039", "[", "(", "un", "u", "n", "trusted", "tr", "usted",
         "comment", "check", "output", "checkoutput", "end", "begin", "-", " ", "\n", "\u0443"]
    ),
    max_size=14,
).map("".join)  # fmt: skip


@given(own_syntax_text)
def test_the_own_syntax_rules_with_branches_find_what_the_rules_as_written_find(
    text: str,
) -> None:
    for fast, written in zip(_markers._RULES, RULES_AS_WRITTEN, strict=True):
        assert rule_spans(written, text) == rule_spans(fast, text)


@given(own_syntax_text | marker_text | split_syntax_text())
def test_the_own_syntax_across_lines_rule_finds_what_the_rule_as_written_finds(text: str) -> None:
    for fast, written in zip(_markers._RULES, RULES_AS_WRITTEN, strict=True):
        full = fast.full_compact(fast.view(text))
        expected = [m.span() for m in written.cross_rx.finditer(full)]
        assert expected == [m.span() for m in fast.cross_rx.finditer(full)]


@given(own_syntax_text | marker_text | tricky_text)
def test_searching_a_group_rule_by_rule_equals_searching_its_combined_regex(text: str) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        groups = [g for g in rules.groups if g.at_start is None]
        expected = [g.rx.search(view) is not None for g in groups]
        assert expected == [g.search(view) for g in groups]


@given(own_syntax_text | marker_text | split_syntax_text())
def test_the_key_led_test_of_the_rule_across_lines_equals_its_search(text: str) -> None:
    for rules in _markers._RULES:
        full = rules.full_compact(rules.view(text))
        expected = rules.cross_rx.search(full) is not None
        assert expected == (rules.cross_exists.search(full) is not None)


def test_a_stop_character_is_outside_every_word_and_bracket_of_the_own_syntax() -> None:
    # A line holding one is never inside a match of the fence's own syntax across lines, so a
    # variant's neighbourhood stops growing there.
    syntax = "<<<\u00ab\u2039\u226a\u3008[({untrusted comment check output begin end start"
    for rules in _markers._RULES:
        letters = set(rules.full_compact(rules.view(syntax))) | set(syntax)
        kept = [set(rules.full_compact(rules.view(chr(code)))) for code in _markers._stop_bytes()]
        assert [] == [k for k in kept if not k - letters]


@given(marker_text | mark_text)
def test_spans_of_cut_views_mapped_by_segments_equal_the_unit_mapping(text: str) -> None:
    for skip in _markers._skips(text, mark_spans(text)):
        units = _markers._units(text, skip, False)
        for rules in _markers._RULES:
            direct = _markers._direct_spans(text, [(s, e, "") for s, e in skip], rules)
            if direct is None:
                continue
            out, starts, ends = _markers._mapped(units, rules.view)
            expected = [(starts[s], ends[e - 1]) for s, e in _markers._view_matches(rules, out)]
            assert expected == direct
