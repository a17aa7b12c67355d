"""The scan's runs over whole stretches of text give exactly what walking them line by line
gives (hypothesis)."""

from __future__ import annotations

import re

from _references import line_by_line
from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _blocks, _hidden, _html5

# Lines that start with "[" (footnote definitions and link-reference definitions among them),
# fences that close, fail to close or cannot open, and the lines around them.
_SCAN_LINES = [
    "[a", "[fence-like marker removed] x", "[a]: /u", "[a]:", "[^n]: note", "[^n", "[^ x]: y",
    "[", "[[x]]", "  [a", "x", "text [a", "", "", "", "===", "---", "-|-", "a|b", "|x|",
    "```", "````", "```py x", "``` x`", "``", "~~~", "~~~~", "~~~ a`b", "   ```", "    ```",
    "  ~~~", "```  ", "```\t", "``` x", "~~~ ", "- a", "1. b", "2. c", "> q", "<div>", "<b>",
    "# h", "    code", "\tx", "-", "* * *",
]  # fmt: skip
scan_text = st.lists(st.sampled_from(_SCAN_LINES), max_size=30).map("\n".join) | st.lists(
    st.sampled_from(_SCAN_LINES), max_size=30
).map(lambda lines: "".join(line + "\n" for line in lines))


# A fenced code block whose opening and closing runs differ in length or kind, with lines inside
# that may close it or not, between other lines.
_OPENERS = ["```", "````", "~~~", "~~~~", "  ```py", "   ~~~ x", "``` a`", "    ```", "```x y"]
_CLOSERS = ["```", "````", "`````", "~~~", "~~~~", "   ```", "    ```", "``` ", "```\t", "``` x"]
_INSIDE = ["x", "", "  ``", "[a", "- a", "<div>", *_CLOSERS]


@st.composite
def fence_text(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(_SCAN_LINES), max_size=4))
    lines.append(draw(st.sampled_from(_OPENERS)))
    lines += draw(st.lists(st.sampled_from(_INSIDE), max_size=5))
    lines += draw(st.lists(st.sampled_from(_CLOSERS), max_size=2))
    lines += draw(st.lists(st.sampled_from(_SCAN_LINES), max_size=4))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@given(scan_text)
def test_runs_of_bracket_lines_equal_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


@given(fence_text())
def test_whole_fenced_blocks_in_one_step_equal_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


# Simple list items and block quotes at the top level (each opened and run in one step),
# with the lines that continue, end or interrupt them, the last one with or without a newline.
_SIMPLE_LINES = [
    "- a", "* b", "1. c", "2. d", "> q", "> r", "x", "y z", "", "", "```", "~~~", "  - e",
    "  f", ">", "- ", "[a", "<b>", "# h", "---", "    code", "  ```", "\tx",
]  # fmt: skip
simple_text = st.lists(st.sampled_from(_SIMPLE_LINES), max_size=12).map("\n".join) | st.lists(
    st.sampled_from(_SIMPLE_LINES), max_size=12
).map(lambda lines: "".join(line + "\n" for line in lines))


@given(simple_text)
def test_simple_containers_opened_with_their_runs_equal_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


# Lists of simple items at the top level with lazy lines, ended by empty lines and what
# follows them (at column 0 or indented).
_ITEM_LINES = ["- a", "* b", "1. c", "2. d", "x", "y z", "", "- [a"]
_AFTER_LIST = [
    "x",
    "    code",
    "  f",
    "   g",
    "  ```",
    "```",
    "~~~",
    "- b",
    "> q",
    "\tx",
    "# h",
    "[a",
]


@st.composite
def list_text(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(_SCAN_LINES), max_size=2))
    lines.append(draw(st.sampled_from(["- a", "1. c", "2. d"])))
    lines += draw(st.lists(st.sampled_from(_ITEM_LINES), max_size=6))
    lines += [""] * draw(st.integers(0, 2))
    lines += draw(st.lists(st.sampled_from(_AFTER_LIST), max_size=3))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@given(list_text())
def test_whole_lists_in_one_step_equal_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


# Block quotes at the top level with their lazy lines, ended by an empty line or not.
_QUOTE_LINES = ["> q", "> r", ">r", ">", "> - a", "> [a", ">  x", "lazy", "", "", "x", "# h", "- a"]
quote_text = st.tuples(
    st.lists(st.sampled_from(_QUOTE_LINES), max_size=10).map("\n".join),
    st.sampled_from(["", "\n", "\n\nx", "\n\n> q\n", "\n\n\n- a"]),
).map("".join)


@given(quote_text)
def test_whole_block_quotes_in_one_step_equal_the_line_by_line_walk(text: str) -> None:
    assert line_by_line(text) == _blocks.blocks(text)


# Tags with and without attributes, of allowed elements and others, in any case, with the
# whitespace and line breaks (and quote markers after them) a tag may hold.
_TAG_PIECES = [
    "<", "</", "<<", "b", "B", "s", "span", "SPAN", "abbr", "ab", "h1", "h9", "x", "script",
    "details", "-", "1", " ", "\t", "\v", "\n", "\n>", "\n> ", "\n\n", "/", ">", "/>", "=", "x=1",
    "'a'", '"b"', "a", "<!--", "ſ", "K", "\u00df",
]  # fmt: skip
_NAMES = ["b", "s", "span", "abbr", "ab", "a", "h1", "h9", "x", "script", "details", "rp", "q-1"]
_TAG_SPACES = ["", " ", "\t", "\v", "\n", "\n>", "\n > ", "  ", "\n\n"]


@st.composite
def one_tag(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_NAMES))
    name = "".join(c.upper() if draw(st.booleans()) else c for c in name)
    attributes = draw(st.sampled_from(["", " x=1", " a='b'", "\nc", " =x", " -"]))
    space = draw(st.sampled_from(_TAG_SPACES))
    slash = draw(st.sampled_from(["", "/"]))
    end = draw(st.sampled_from([">", "/>", "", "x>"]))
    return f"<{slash}{name}{attributes}{space}{end}"


tag_text = st.lists(one_tag() | st.sampled_from(_TAG_PIECES), max_size=12).map("".join)


@given(tag_text)
def test_unshown_tags_found_in_one_pass_are_the_tags_less_the_shown_ones(text: str) -> None:
    expected = [
        (m.span(), m.groups())
        for m in _hidden._TAG_RE.finditer(text)
        if m.group(2) or _html5.ascii_lower(m.group(1)) not in _html5.ALLOWED_ELEMENTS
    ]
    assert expected == [(m.span(), m.groups()) for m in _hidden._UNSHOWN_TAG_RE.finditer(text)]


def test_no_character_but_those_the_gate_admits_casefolds_into_a_details_or_rp_tag() -> None:
    # _raw_html casefolds the text only where _DETAILS_OR_RP_RE finds "<" and a character
    # whose casefold starts with "d" or "r"; only "<" casefolds to a string holding "<", and no
    # character to the empty string.
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    heads = [c for c in chars if c.casefold()[:1] in ("d", "r")]
    gate = _hidden._DETAILS_OR_RP_RE
    assert (["<"], [], []) == (
        [c for c in chars if "<" in c.casefold()],
        [c for c in heads if gate.fullmatch("<" + c) is None],
        [c for c in chars if not c.casefold()],
    )


_CONTAINER_PIECES = [
    "\n", ">", "> ", "-", "- ", "+ ", "* ", "1.", "1) ", "123456789. ", "1234567890. ", " ",
    "  ", "    ", "\t", "<", "<a", "</", "<!", "<?", "<1", "x", "*", "\n\n",
]  # fmt: skip
container_line = st.lists(st.sampled_from(_CONTAINER_PIECES[1:]), max_size=4).map("".join)
container_lines = st.lists(
    st.tuples(container_line, st.sampled_from(["<a", "<!", "x", "", " <"])).map("".join),
    max_size=6,
).map("\n".join)
container_text = (
    st.lists(st.sampled_from(_CONTAINER_PIECES), max_size=30).map("".join)
    | container_lines
    | container_lines.map(lambda text: "\n" + text)
)


@given(container_text)
def test_container_html_lines_found_after_newlines_equal_the_line_start_scan(text: str) -> None:
    every_line = re.compile(f"^{_hidden._CONTAINER_HTML}", re.M)
    expected = [m.end() for m in every_line.finditer(text)]
    assert expected == _hidden._container_html_starts(text)


@given(
    st.lists(st.text(alphabet="abc1", min_size=1, max_size=4), min_size=1, max_size=8),
    st.lists(st.text(alphabet="abc1", max_size=5), max_size=10),
)
def test_a_factored_alternation_matches_exactly_its_words(
    words: list[str], probes: list[str]
) -> None:
    tree = re.compile(f"(?:{_html5.factored(words)})")
    candidates = probes + words + [w[:-1] for w in words] + [w + "a" for w in words]
    expected = [c for c in candidates if c in words]
    assert expected == [c for c in candidates if tree.fullmatch(c) is not None]


_HTML_STARTS = [
    "<", "</", "<!--", "<?", "<![CDATA[", "<!x", "<!", "div", "DIV", "di", "divx", "h1", "H6", "h7",
    "address", "addres", "col", "colgroup", "colgrou", "script", "pre", "p", "param", "ul", "u",
    " ", "\t", "\v", ">", "/>", "/", "\n", "x", "\u017f", "\u212a", "tbody", "t", "td", "tr",
]  # fmt: skip
_OTHER_NAMES = ["h1", "h6", "h7", "col-x", "divx", "addres", "tabl", "s", "b"]
_BLOCK_NAMES = [*_blocks._BLOCK_TAG_NAMES, *_OTHER_NAMES]


@st.composite
def html_start(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_BLOCK_NAMES))
    name = "".join(c.upper() if draw(st.booleans()) else c for c in name)
    slash = draw(st.sampled_from(["", "/"]))
    return f"<{slash}{name}{draw(st.sampled_from([' ', chr(9), chr(11), '>', '/>', '', 'x']))}"


html_start_text = st.lists(html_start() | st.sampled_from(_HTML_STARTS), max_size=8).map("".join)


@given(html_start_text)
def test_html_block_starts_by_the_factored_tag_names_equal_the_listed_names(text: str) -> None:
    listed = re.compile(_blocks._html_start(_blocks._BLOCK_TAGS), re.I)
    expected = [(m.span(), m.lastgroup) for i in range(len(text)) if (m := listed.match(text, i))]
    actual = [
        (m.span(), m.lastgroup)
        for i in range(len(text))
        if (m := _blocks._HTML_START_RE.match(text, i))
    ]
    assert expected == actual


@given(html_start_text)
def test_tag_text_runs_by_the_factored_tag_names_equal_the_listed_names(text: str) -> None:
    listed = re.compile(_blocks._html_start(_blocks._BLOCK_TAGS), re.I)
    not_start = re.sub(r"\?P<\w+>", "", listed.pattern[1:]).replace("$", "(?=\n)")
    runs = re.compile(rf"(?:<(?i:(?!{not_start}))[^\n]*+\n)++")
    lines = text + "\n"
    expected = [m.end() for i in range(len(lines)) if (m := runs.match(lines, i))]
    actual = [m.end() for i in range(len(lines)) if (m := _blocks._TAG_TEXT_RUN_RE.match(lines, i))]
    assert expected == actual


def test_the_regex_whitespace_class_is_what_str_isspace_holds() -> None:
    # _SHOWN_INFO_RE reads an info string as _info_tail's strip and split do.
    space = re.compile(r"\s")
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert [] == [c for c in chars if (space.fullmatch(c) is not None) != c.isspace()]


_INFO_PIECES = [
    "py",
    "python",
    "c++",
    "x" * 30,
    "yy",
    "a b",
    " ",
    "\t",
    "\u00a0",
    "\u3000",
    "{",
    "`",
    "é",
]
info_text = st.lists(st.sampled_from(_INFO_PIECES), max_size=5).map("".join)


@given(info_text, st.sampled_from(["", "x\n", "- "]))
def test_info_tails_found_past_the_regex_equal_the_tail_of_each_info_string(
    info: str, before: str
) -> None:
    text = f"{before}{info}\n"
    start, end = len(before), len(before) + len(info)
    expected = _hidden._info_tail(text, start, end)
    assert expected == _hidden._code_fences(text, _blocks.Blocks(infos=[(start, end)]))
