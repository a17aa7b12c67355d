"""Marker neutralisation: every shape of a fence marker becomes a neutral replacement.

Detection runs every rule on several views of the text: casefold and the lookalike fold (UTS
#39 skeleton, case, combining marks, letters without a compatibility mapping), each also with
HTML entities decoded (invisible characters they name dropped), with hidden marks cut out
(the visible projection) and with HTML tags cut out (``E<b>N</b>D``).  Separators between the
letters of a marker word are allowed by the patterns themselves.  Matches are mapped back to
the text and replaced; the whole loop repeats until no view matches.

Every rule matches inside one line, except the fence's own syntax, which is also looked for
with every line break and separator removed (``<<<`` on one line, ``untrusted-comment-end`` on
the next).  A rule only runs on the lines that hold one of its key words (plain substring
tests in C), so the cost on ordinary text is a few scans.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from ._chars import casefold, delete_chars, fold, is_forbidden
from ._hidden import mark_spans, merge

__all__ = ["REPLACEMENT", "find_cross_markers", "find_markers", "neutralise"]

REPLACEMENT = "[fence-like marker removed]"

View = Callable[[str], str]

_SEPS = " \t._-*|/\\"
_BOUNDS = ("begin", "end", "start")
# Nouns that make "BEGIN/END <noun>" a marker anywhere in a line.
_STRONG = (
    "untrusted", "quoted", "fence", "fenced", "injected", "passphrase", "ambiguity", "trusted",
    "user input", "tool output",
)  # fmt: skip
# Nouns that make it a marker only as a whole line ("END OF COMMENT", "quoted text ends here").
_WEAK = (
    "quote", "quotation", "instructions", "external", "comment", "text", "content", "message",
    "prompt", "context", "citation", "excerpt",
)  # fmt: skip
_LINE_BOUNDS = (
    "begin", "begins", "beginning", "end", "ends", "ending", "start", "starts", "stop", "stops",
    "close", "closes", "closing", "finish", "finishes",
)  # fmt: skip
# "End of quoted text" in other languages: markers as a whole line.
_FOREIGN = (
    "fin du texte cite", "fin de la citation", "fin du commentaire", "fin del texto citado",
    "fin de la cita", "fin del comentario", "ende des zitierten textes", "ende des zitats",
    "ende zitat", "ende des kommentars", "fine del testo citato", "fine della citazione",
    "fim do texto citado", "fim da citacao", "einde van de geciteerde tekst", "einde citaat",
    "koniec cytatu", "konec citace", "slut pa citat", "alinti sonu", "конец цитаты",
    "конец цитируемого текста", "конец комментария", "кінець цитати", "引用结束", "引用結束",
    "引用終了", "引用ここまで", "引用終わり", "인용 끝", "نهاية الاقتباس", "סוף ציטוט",
    "अंत उद्धरण", "kết thúc trích dẫn", "akhir kutipan",
)  # fmt: skip
_CHAT = (
    "im_start", "im_end", "im_sep", "endoftext", "eot_id", "eom_id", "start_header_id",
    "end_header_id", "begin_of_text", "end_of_text", "start_of_turn", "end_of_turn", "bos",
    "eos", "fim_prefix", "fim_suffix", "fim_middle", "fim_pad", "file_sep", "repo_name",
    "endofprompt", "startoftext",
)  # fmt: skip
# Mistral and Llama tokens in square brackets.
_SQUARE = (
    "inst", "system_prompt", "tool_calls", "available_tools", "tool_results", "tool_content",
    "sys",
)  # fmt: skip
# Framing tags: markers wherever they stand.
_TAGS = (
    "untrusted", "quoted", "trigger_comment", "pr_body", "issue_body", "comments",
    "review_comments", "system", "instructions", "instruction", "external", "fence",
    "user_input", "tool_output", "function_calls", "function_results", "invoke",
    "tool_call", "tool_use", "tool_result", "tool_response", "think", "thinking",
    "important", "admin", "assistant", "sysprompt", "system_prompt", "human", "developer",
    "im_start", "im_end",
)  # fmt: skip
# Framing tags that are also generic type parameters or HTML elements: markers unless they
# follow an identifier (``Option<Context>``, ``List<User>``).
_SOFT_TAGS = ("context", "document", "documents", "information", "prompt", "user", "parameter")
_ROLES = ("human", "assistant", "system", "user", "ai", "h", "a", "model", "developer", "bot")
_HEADINGS = (
    "system", "instructions", "instruction", "response", "input", "human", "assistant", "user",
    "prompt", "system prompt",
)  # fmt: skip
_DELIMS = "-=%#*~_<>{}|+:^\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2500\u2501\u2550"
_OPENERS = "<«‹≪〈《⟨⟪❬❮⦑⧼﹤＜[({"
_COLONS = ":\u2236\ua789\u02d0\u02f8\u205a\u0589\ufe13\ufe55\uff1a"
_BARS = "|\u00a6\u2502\u2503\u2223\u01c0\uff5c\u2758\u23d0\u05c0"


@dataclass(frozen=True, slots=True)
class _Group:
    """Rules that run only on the lines holding one of their keys."""

    rules: list[str]
    rx: re.Pattern[str]
    keys: list[str]
    key_rx: re.Pattern[str] | None
    view_keys: list[str]
    view_key_rx: re.Pattern[str] | None


class _Rules:
    """Every rule of one view, split for speed: the line rules (a role line, a heading, a
    whole-line phrase) are searched after each newline, which the regex engine finds with a
    fast literal scan; every other rule only runs on the lines that hold one of its keys (a
    substring of the line's compacted form, found by ``str.find``, or a match of a key regex
    that starts with a literal).  ``rx`` is all of them as one regex, for the slow path and for
    the test that the split finds exactly what it finds."""

    def __init__(self, view: View, casefold_view: bool) -> None:
        self.view = view
        seps = {view(c) for c in _SEPS}
        seps = {c for c in seps if len(c) == 1 and not c.isalnum() and c != "\n"}
        self.sep_ascii = "".join(sorted(c for c in seps if c.isascii())).encode("ascii")
        self.sep_others = "".join(sorted(c for c in seps if not c.isascii()))
        self.seps = seps
        sep = "[" + "".join(re.escape(c) for c in sorted(seps)) + "]*+"
        keyed: list[str] = []
        line_rules: list[str] = []
        keys: set[str] = set()
        view_keys: set[str] = set()
        key_res: list[str] = []
        view_key_res: list[str] = []
        self.groups: list[_Group] = []

        def group() -> None:
            """Close the rules added since the last group, with the keys added since."""
            done = sum(len(g.rules) for g in self.groups)
            rules = keyed[done:]
            if not rules:
                return
            self.groups.append(
                _Group(
                    rules,
                    re.compile("|".join(f"(?:{r})" for r in rules), re.M),
                    sorted(k for k in keys if k),
                    re.compile("|".join(key_res)) if key_res else None,
                    sorted(view_keys),
                    re.compile("|".join(view_key_res)) if view_key_res else None,
                )
            )
            keys.clear()
            view_keys.clear()
            key_res.clear()
            view_key_res.clear()

        def letter(c: str) -> str:
            # In the lookalike view, Cyrillic "у" folds to "y", which reads as "u".
            return "[uy]" if c == "u" and not casefold_view else re.escape(c)

        def word(w: str) -> str:
            folded = view(w)
            return sep.join(letter(c) for c in folded if c not in seps)

        def alt(words: tuple[str, ...] | list[str]) -> str:
            return "(?:" + "|".join(word(w) for w in sorted(words, key=len, reverse=True)) + ")"

        def compact_alt(words: tuple[str, ...] | list[str]) -> str:
            # The compacted form of alt(words): no separators, so a literal-led search.
            folded = sorted({self.compact(view(w)) for w in words}, key=len, reverse=True)
            return "(?:" + "|".join(re.escape(f) for f in folded) + ")"

        def key(*words: str) -> None:
            keys.update(self.compact(view(w)) for w in words)

        start = r"(?<![^\W_])"
        stop = r"(?![^\W_])"
        bounds = alt(_BOUNDS)
        of, the = word("of"), word("the")
        # BEGIN/END followed by a strong noun, anywhere.
        # ("the" only after "of": "start the user input handler" is prose.)
        keyed.append(rf"{start}{bounds}{sep}(?:{of}{sep}(?:{the}{sep})?)?{alt(_STRONG)}")
        key_res += [
            re.escape(self.compact(view(b)))
            + f"(?:{re.escape(view('of'))}(?:{re.escape(view('the'))})?)?{compact_alt(_STRONG)}"
            for b in _BOUNDS
        ]
        group()
        # Whole-line paraphrases and other languages' words.
        frame = r"(?:[^\w\n]|_)*+"
        nouns = alt(_STRONG + _WEAK)
        line_bounds = alt(_LINE_BOUNDS)
        phrase = (
            rf"{line_bounds}{sep}(?:{of}{sep})?(?:{the}{sep})?(?:{nouns}{sep}){{0,3}}{nouns}"
            rf"|(?:{nouns}{sep}){{1,4}}{line_bounds}(?:{sep}(?:{word('here')}|{word('now')}))?"
            rf"|{alt(_FOREIGN)}"
        )
        line_rules.append(rf"{frame}(?:{phrase}){frame}$")
        group()
        # BEGIN/END next to a run of three delimiters (not a heredoc such as <<-END or <<<END).
        # (Only delimiters that stay punctuation: the lookalike view folds "|" to "i".)
        delims = "".join(
            sorted({view(c) for c in _DELIMS if len(view(c)) == 1 and not view(c).isalnum()})
        )
        delim = "[" + re.escape(delims) + "]"
        no_angle = "[" + re.escape(delims.replace("<", "").replace(">", "")) + "]"
        # (A run is only tried where it starts: tried inside a run, the possessive run would
        # take every later character of it again, quadratic on "=" * N.)
        keyed.append(
            rf"(?:(?<!{no_angle}){no_angle}{{3,}}+|(?<!<)<{{3,}}+[ \t]++){sep}{start}{bounds}{stop}"
        )
        keyed.append(rf"{start}{bounds}{stop}[ \t]*+{delim}{{3,}}+")
        view_key_res.append(rf"{delim}{{3}}")
        group()
        # The fence's own syntax: "(un)trusted", the kinds, begin/end, in any bracket.
        trusted = rf"(?:{word('un')}{sep})?{word('trusted')}"
        kinds = rf"(?:{word('comment')}|{word('check')}{sep}{word('output')})"
        keyed.append(rf"{trusted}{sep}{kinds}{sep}{bounds}")
        keyed.append(rf"{start}{kinds}[{re.escape(view('-'))}_]++{bounds}{stop}")
        openers = "".join(sorted({view(c) for c in _OPENERS} | set(_OPENERS)))
        opener = "[" + re.escape(openers) + "]"
        single = "[" + re.escape("«‹≪〈《⟨⟪❬❮⦑⧼﹤＜") + "]"
        keyed.append(
            rf"(?:(?<!{opener}){opener}{{2,}}+|{single})[ \t]*+{trusted}(?:{sep}{kinds})?"
            rf"(?:{sep}{bounds})?"
        )
        keyed.append(
            rf"{word('between')}{sep}{the}{sep}{word('next')}{sep}{word('two')}{sep}"
            rf"{word('marker')}{sep}{word('lines')}"
            rf"|{word('quoted')}{sep}{word('as')}{sep}{word('untrusted')}{sep}{word('data')}"
        )
        key("trusted", "trysted", "markerlines")
        key(*(k + b for k in ("comment", "checkoutput") for b in _BOUNDS))
        group()
        # Chat-template tokens.
        bars = "".join(sorted({view(c) for c in _BARS if len(view(c)) == 1}))
        bar = "[" + re.escape(bars) + "]"
        lt, gt = re.escape(view("<")), re.escape(view(">"))
        if casefold_view:
            # Bars fold to letters in the lookalike view, so this rule runs on casefold only.
            not_bar = "[^\n<>" + bar[1:-1] + "]"
            keyed.append(rf"{lt}[ \t]*+{bar}{not_bar}{{0,40}}+{bar}[ \t]*+{gt}")
            view_key_res.append(rf"{bar}[ \t]?{gt}")
            group()
        keyed.append(
            rf"{lt}[ \t]*+(?:{bar}[ \t]*+)?{alt(_CHAT)}{stop}(?:[ \t]*+{bar})?(?:[ \t]*+{gt})?"
        )
        key_res.append(rf"{lt}[{re.escape(bars)}]?{compact_alt(_CHAT)}")
        group()
        lb, rb = re.escape(view("[")), re.escape(view("]"))
        keyed.append(rf"{lb}[ \t]*+/?[ \t]*+{alt(_SQUARE)}[ \t]*+{rb}")
        keyed.append(rf"{lt}{lt}[ \t]*+/?{word('sys')}[ \t]*+{gt}{gt}")
        key_res.append(rf"{lb}{compact_alt(_SQUARE)}{rb}|{lt}{lt}{re.escape(view('sys'))}")
        group()
        # <s> and </s> on their own (not <s>struck</s> inside a sentence).
        s_open, s_close = rf"{lt}{word('s')}{gt}", rf"{lt}/{word('s')}{gt}"
        keyed.append(rf"{s_open}(?=[\s<\[]|$)|(?<![^\s>\]]){s_close}|{s_close}(?=[<\[])")
        view_keys.update([view("<s>"), view("</s>")])
        group()
        # Framing tags.
        tag_tail = rf"{stop}[^<>\n]{{0,80}}+{gt}"
        instructions = rf"[\w-]{{0,40}}_{word('instructions')}"
        keyed.append(rf"{lt}/?[ \t]*+(?:{alt(_TAGS)}|{instructions}){tag_tail}")
        keyed.append(rf"(?<![\w:.]){lt}/?[ \t]*+{alt(_SOFT_TAGS)}{tag_tail}")
        key_res.append(rf"{lt}{compact_alt(_TAGS + _SOFT_TAGS)}")
        key("instructions")
        group()
        # {"role": "system"}
        quote = "[" + re.escape("".join(sorted({view(c) for c in "\"'"}))) + "]"
        role = alt(("system", "user", "assistant", "developer", "tool", "model"))
        keyed.append(rf"{quote}{word('role')}{quote}[ \t]*+:[ \t]*+{quote}{role}{quote}")
        key("role")
        group()
        # Role lines, after list, quote, emphasis and heading markers.
        colons = {view(c) for c in _COLONS if len(view(c)) == 1}
        colon = "[" + re.escape("".join(sorted(colons))) + "]"
        lead = r"[ \t]*+(?:(?:[>#*_~+\-]++|[0-9]{1,3}[.)])[ \t]*+)*+"
        line_rules.append(rf"{lead}{alt(_ROLES)}[ \t]*+(?:[*_]{{1,2}}[ \t]*+)?{colon}")
        # Headings that are only a role or an instruction word.
        line_rules.append(
            rf"[ \t]*+(?:>[ \t]*+)*+#{{1,6}}+[ \t]*+{alt(_HEADINGS)}[ \t]*+(?:{colon}|$)"
        )
        line = "|".join(f"(?:{r})" for r in line_rules)
        self.line_at_start = re.compile(f"(?:{line})", re.M)
        self.line_after_newline = re.compile(f"\n(?:{line})", re.M)
        self.rx = re.compile("|".join([f"(?:{r})" for r in keyed] + [f"(?:^(?:{line}))"]), re.M)
        # The fence's own syntax across line breaks and separators (fully compacted view).
        own = [
            rf"(?:{re.escape(view('un'))})?{re.escape(view('trusted'))}"
            rf"(?:{re.escape(view('comment'))}|{re.escape(self.compact(view('checkoutput')))})"
            rf"(?:{'|'.join(re.escape(view(b)) for b in _BOUNDS)})",
            rf"(?:{opener}{{2,}}+|{single})(?:{re.escape(view('un'))})?{re.escape(view('trusted'))}",
        ]
        self.cross_rx = re.compile("|".join(own))
        self.cross_key = view("trusted")
        # A setext heading whose text is a role or instruction word.
        self.setext_rx = re.compile(rf"(?:>[ \t]*+)*+{alt(_HEADINGS)}[ \t]*+{colon}?[ \t]*+")

    def compact(self, text: str) -> str:
        return delete_chars(text, self.sep_ascii, self.sep_others)

    def full_compact(self, text: str) -> str:
        return delete_chars(text, self.sep_ascii + b"\n", self.sep_others)

    def candidates(self, group: _Group, view: str, compact: str) -> str | None:
        """The lines of ``view`` that hold a key of ``group``, joined by newlines (None when
        there are none)."""
        hits: set[int] = set()
        half = (view.count("\n") + 1) // 2
        pairs = ((group.keys, group.key_rx, compact), (group.view_keys, group.view_key_rx, view))
        # Many occurrences (counted in C): the whole view, without a Python step per line.
        count = 0
        for keys, key_rx, text in pairs:
            count += sum(text.count(k) for k in keys)
            if key_rx is not None and count <= half:
                count += len(key_rx.findall(text))
        if count == 0:
            return None
        if count > half:
            return view
        for keys, key_rx, text in pairs:
            positions: list[int] = []
            for k in keys:
                pos = text.find(k)
                while pos >= 0:
                    positions.append(pos)
                    nl = text.find("\n", pos)
                    pos = -1 if nl < 0 else text.find(k, nl)
            found = key_rx.search(text) if key_rx is not None else None
            while found is not None and key_rx is not None:
                positions.append(found.start())
                nl = text.find("\n", found.start())
                found = None if nl < 0 else key_rx.search(text, nl)
            if positions:
                ends = [m.start() for m in _NEWLINE_RE.finditer(text)]
                hits.update(bisect_right(ends, p) for p in positions)
        if not hits:
            return None
        if len(hits) * 2 > view.count("\n") + 1:
            return view
        split = view.split("\n")
        return "\n".join([split[i] for i in sorted(hits)])

    def search(self, text: str) -> bool:
        view = self.view(text)
        if self.line_at_start.match(view) or self.line_after_newline.search(view):
            return True
        compact = self.compact(view)
        for g in self.groups:
            chosen = self.candidates(g, view, compact)
            if chosen is not None and g.rx.search(chosen) is not None:
                return True
        return self.cross_search(view)

    def cross_search(self, view: str) -> bool:
        if (
            self.cross_key in view or self.cross_key in self.compact(view)
        ) and self.cross_rx.search(self.full_compact(view)) is not None:
            return True
        return _setext_lines(view, self.setext_rx) != []


_NEWLINE_RE = re.compile("\n")
_UNDERLINE_RE = re.compile(r"\n[ \t]{0,3}+(?:=++|-++)[ \t]*+(?=\n|$)")


def _setext_lines(view: str, heading: re.Pattern[str]) -> list[int]:
    """Start offsets of the lines that a setext underline makes a role heading."""
    found = []
    for m in _UNDERLINE_RE.finditer(view):
        end = m.start()
        start = view.rfind("\n", 0, end) + 1
        if heading.fullmatch(view, start, end) is not None:
            found.append(start)
    return found


_CASEFOLD_RULES = _Rules(casefold, casefold_view=True)
_FOLD_RULES = _Rules(fold, casefold_view=False)
_RULES = (_CASEFOLD_RULES, _FOLD_RULES)

_ENTITY_RE = re.compile(
    r"&(?:#[0-9]{1,8}+;?|#[xX][0-9a-fA-F]{1,8}+;?|[A-Za-z][A-Za-z0-9]{1,31}+;?)"
)
# An HTML tag (or a comment) on one line: cut out in the tag-free view.
_TAG_RE = re.compile(r"<[^<>\n]{0,200}+>")


def _drop_invisible(text: str) -> str:
    """``text`` without the forbidden code points (what an entity may decode to)."""
    if text.isascii():
        return "".join(c for c in text if c in "\t\n" or " " <= c <= "~")
    return "".join(c for c in text if c in "\t\n" or not is_forbidden(ord(c)))


def _decode(text: str) -> str:
    return _drop_invisible(html.unescape(text))


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def _visible_lines(text: str, marks: list[tuple[int, int]]) -> str:
    """The visible projection of the lines that hold a hidden mark, one chunk per group."""
    newlines = [m.start() for m in _NEWLINE_RE.finditer(text)]

    def line_start(pos: int) -> int:
        i = bisect_right(newlines, pos - 1) - 1  # the last newline before pos
        return newlines[i] + 1 if i >= 0 else 0

    def line_end(pos: int) -> int:
        i = bisect_right(newlines, pos - 1)  # the first newline at or after pos
        return newlines[i] if i < len(newlines) else len(text)

    chunks: list[str] = []
    i = 0
    while i < len(marks):
        start, end = line_start(marks[i][0]), line_end(marks[i][1])
        parts, pos = [], start
        while i < len(marks) and marks[i][0] < end:
            parts.append(text[pos : marks[i][0]])
            pos = marks[i][1]
            end = max(end, line_end(pos))
            i += 1
        parts.append(text[pos:end])
        chunks.append("".join(parts))
    return "\n".join(chunks)


def _lines_with(text: str, needle: str) -> str:
    """The lines of ``text`` that hold ``needle``."""
    lines: list[str] = []
    pos = text.find(needle)
    while pos >= 0:
        start, end = _line_bounds(text, pos, pos)
        lines.append(text[start:end])
        pos = text.find(needle, end)
    return "\n".join(lines)


def _variants(text: str) -> list[str]:
    """The entity-decoded, visible and tag-free variants, on the lines where they differ."""
    variants = []
    if "&" in text:
        variants.append(_decode(_lines_with(text, "&")))
    marks = mark_spans(text)
    if marks:
        visible = _visible_lines(text, marks)
        variants.append(visible)
        if "&" in visible:
            variants.append(_decode(visible))
    if "<" in text and ">" in text:
        tagged = _lines_with(text, "<")
        if _TAG_RE.search(tagged):
            tagless = _TAG_RE.sub("", tagged)
            variants.append(tagless)
            if "&" in tagless:
                variants.append(_decode(tagless))
            if marks:
                tm = mark_spans(tagless)
                if tm:
                    variants.append(_visible_lines(tagless, tm))
    return variants


def find_cross_markers(text: str) -> bool:
    """Whether the rules that span lines (the fence's own syntax over line breaks, setext role
    headings) match ``text``: all that joining marker-free lines can make."""
    return any(r.cross_search(r.view(text)) for r in _RULES)


def find_markers(text: str) -> bool:
    """Whether any view of ``text`` holds a marker shape."""
    if any(r.search(text) for r in _RULES):
        return True
    return any(r.search(v) for v in _variants(text) for r in _RULES)


# -- slow path: map view matches back to text positions ------------------------------------


def _units(text: str, skip: list[tuple[int, int]], decode: bool) -> list[tuple[str, int, int]]:
    units: list[tuple[str, int, int]] = []
    pos = 0
    bounds = [*skip, (len(text), len(text))]
    for start, end in bounds:
        seg = text[pos:start]
        if decode and "&" in seg:
            last = 0
            for m in _ENTITY_RE.finditer(seg):
                units += [
                    (c, pos + last + i, pos + last + i + 1)
                    for i, c in enumerate(seg[last : m.start()])
                ]
                units.append((_decode(m.group()), pos + m.start(), pos + m.end()))
                last = m.end()
            units += [(c, pos + last + i, pos + last + i + 1) for i, c in enumerate(seg[last:])]
        else:
            units += [(c, pos + i, pos + i + 1) for i, c in enumerate(seg)]
        pos = max(pos, end)
    return units


def _mapped(units: list[tuple[str, int, int]], view: View) -> tuple[str, list[int], list[int]]:
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for unit, s, e in units:
        for piece in view(unit):
            chars.append(piece)
            starts.append(s)
            ends.append(e)
    out = "".join(chars)
    if view is fold and "rn" in out:
        # fold() turns "rn" into "m" over the whole text; do the same here, keeping positions.
        i = 0
        c2: list[str] = []
        s2: list[int] = []
        e2: list[int] = []
        while i < len(chars):
            if chars[i] == "r" and i + 1 < len(chars) and chars[i + 1] == "n":
                c2.append("m")
                s2.append(starts[i])
                e2.append(ends[i + 1])
                i += 2
            else:
                c2.append(chars[i])
                s2.append(starts[i])
                e2.append(ends[i])
                i += 1
        out, starts, ends = "".join(c2), s2, e2
    return out, starts, ends


def _skips(chunk: str, marks: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    skips: list[list[tuple[int, int]]] = [[]]
    if marks:
        skips.append(marks)
    if "<" in chunk:
        tags = [m.span() for m in _TAG_RE.finditer(chunk)]
        if tags:
            skips.append(merge(tags))
            if marks:
                skips.append(merge(tags + marks))
    return skips


_ASCII_FOLD_BYTES = bytes(
    ord(fold(chr(c))) if len(fold(chr(c))) == 1 else c for c in range(128)
) + bytes(range(128, 256))


def _view_matches(rules: _Rules, view: str) -> list[tuple[int, int]]:
    """Every match of ``rules`` in ``view``, by group: a group's regex runs only when its keys
    occur (the same split as :meth:`_Rules.search`)."""
    spans: list[tuple[int, int]] = []
    m0 = rules.line_at_start.match(view)
    if m0 is not None:
        spans.append(m0.span())
    spans += [(m.start() + 1, m.end()) for m in rules.line_after_newline.finditer(view)]
    compact = rules.compact(view)
    for group in rules.groups:
        if rules.candidates(group, view, compact) is not None:
            spans += [m.span() for m in group.rx.finditer(view)]
    return [(s, e) for s, e in spans if e > s]


def _direct_spans(
    chunk: str, skip: list[tuple[int, int]], rules: _Rules
) -> list[tuple[int, int]] | None:
    """The matches of ``rules`` in the view of ``chunk`` without ``skip``, mapped back by
    segment offsets, when the view maps the kept text character for character (None
    otherwise: the caller maps unit by unit)."""
    segments, pos = [], 0
    for s, e in skip:
        segments.append((pos, s))
        pos = e
    segments.append((pos, len(chunk)))
    joined = "".join(chunk[s:e] for s, e in segments) if skip else chunk
    view = rules.view(joined)
    if rules.view is fold:
        if not joined.isascii() or view != joined.encode("ascii").translate(
            _ASCII_FOLD_BYTES
        ).decode("ascii"):
            return None
    elif len(view) != len(joined):
        return None  # casefold never shortens: equal length means one for one
    found = _view_matches(rules, view)
    if not skip:
        return found
    offsets, total = [], 0
    for s, e in segments:
        offsets.append(total)
        total += e - s

    def back(p: int) -> int:
        i = bisect_right(offsets, p) - 1
        while i > 0 and segments[i][1] == segments[i][0]:
            i -= 1
        return segments[i][0] + p - offsets[i]

    return [(back(s), back(e - 1) + 1) for s, e in found]


def _chunk_spans(chunk: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    found: list[tuple[int, int]] = []
    for skip in _skips(chunk, marks):
        direct = [_direct_spans(chunk, skip, rules) for rules in _RULES]
        if all(d is not None for d in direct):
            found += [span for d in direct if d is not None for span in d]
            if "&" not in chunk:
                continue
        for decode in (True,) if all(d is not None for d in direct) else (False, True):
            if decode and "&" not in chunk:
                continue
            units = _units(chunk, skip, decode)
            for rules in _RULES:
                out, starts, ends = _mapped(units, rules.view)
                found += [
                    (starts[m.start()], ends[m.end() - 1])
                    for m in rules.rx.finditer(out)
                    if m.end() > m.start()
                ]
    return found or None


def _expand(spans: list[tuple[int, int]], marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    # A replacement never cuts a hidden mark: it swallows any mark it overlaps.  Marks are
    # sorted and disjoint, so their ends are sorted too: a bisect finds the first candidate.
    ends = [me for _, me in marks]
    out = []
    for s, e in merge(spans):
        i = bisect_right(ends, s)
        while i < len(marks) and marks[i][0] < e:
            ms, me = marks[i]
            if not (s <= ms and me <= e) and not (ms < s and e < me):
                s, e = min(s, ms), max(e, me)
            i += 1
        out.append((s, e))
    return merge(out)


def _whole_spans(text: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The matches in the whole text's views that map it character for character (the base,
    visible and tag-free variants): one regex pass per group instead of a slow-path mapping per
    line.  What they miss (entity-decoded variants, expanding views) the line pass finds."""
    spans: list[tuple[int, int]] = []
    for skip in _skips(text, marks):
        for rules in _RULES:
            spans += _direct_spans(text, skip, rules) or []
    return spans


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    pieces, pos = [], 0
    for s, e in spans:
        pieces += [text[pos:s], REPLACEMENT]
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)


def _cross_pass(text: str) -> str:
    """Replace the fence's own syntax split over lines, and setext role headings."""
    marks = mark_spans(text)
    spans: list[tuple[int, int]] = []
    units = _units(text, [], False)
    for rules in _RULES:
        out, starts, ends = _mapped(units, rules.view)
        if rules.cross_rx.search(rules.full_compact(out)) is not None:
            keep = [i for i, c in enumerate(out) if c not in rules.seps and c != "\n"]
            compact = "".join(out[i] for i in keep)
            spans += [
                (starts[keep[m.start()]], ends[keep[m.end() - 1]])
                for m in rules.cross_rx.finditer(compact)
            ]
        for p in _setext_lines(out, rules.setext_rx):
            line_end = out.find("\n", p)
            spans.append((starts[p], ends[line_end - 1]))
    if not spans:
        return text
    return _replace(text, _expand(spans, marks))


def _pass(text: str) -> str:
    marks = mark_spans(text)
    whole = _whole_spans(text, marks)
    if whole:
        return _replace(text, _expand(whole, marks))
    # Chunks: lines, except that a hidden mark holding newlines keeps its lines together.
    cuts = [0]
    mi = 0
    for m in _NEWLINE_RE.finditer(text):
        while mi < len(marks) and marks[mi][1] <= m.start():
            mi += 1
        if mi < len(marks) and marks[mi][0] <= m.start() < marks[mi][1]:
            continue
        cuts.append(m.end())
    cuts.append(len(text) + 1)
    out: list[str] = []
    changed = False
    first = 0  # the first mark not before the chunk (marks and chunks are both in order)
    for a, b in pairwise(cuts):
        chunk = text[a : b - 1] if b <= len(text) else text[a:]
        nl = "\n" if b <= len(text) else ""
        while first < len(marks) and marks[first][0] < a:
            first += 1
        if not find_markers(chunk):
            out.append(chunk + nl)
            continue
        changed = True
        local = []
        for s, e in marks[first:]:
            if e > a + len(chunk):
                break
            local.append((s - a, e - a))
        spans = _chunk_spans(chunk, local)
        if spans is None:
            out.append(REPLACEMENT + nl)
            continue
        out.append(_replace(chunk, _expand(spans, local)) + nl)
    if not changed:
        return _cross_pass(text)
    return "".join(out)


_MAX_PASSES = 8


def neutralise(text: str) -> str:
    """Rewrite every marker shape (in any view) to :data:`REPLACEMENT`, to a fixed point."""
    for _ in range(_MAX_PASSES):
        if not find_markers(text):
            return text
        text = _pass(text)
    # Could not reach a fixed point: nothing of the text is worth the risk.
    return REPLACEMENT if find_markers(text) else text
