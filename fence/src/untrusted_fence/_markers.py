"""Fence-like markers in plain text: where they are, and the text with each one replaced.

A marker reads like the fence's own framing or a prompt's structure: ``BEGIN UNTRUSTED``,
``<<<untrusted-comment-end …>>>``, ``<|im_end|>``, ``<system>``, ``Assistant:``, ``# System``,
"END OF QUOTED TEXT" as a whole line (in several languages), ``{"role": "system"}``.

Every rule is searched in two views of the text: its casefold and its lookalike fold (UTS #39
skeleton, case, combining marks; from :mod:`._chars`).  Both may change lengths (``ß`` to
``ss``, ``rn`` to ``m``), so a match is mapped back character by character on its own line (the
views map a text line by line).  The patterns allow separators between a word's letters
(``E.N.D``).  With ``decode=True`` the text with HTML entities decoded (``&#69;ND``), with
one-line tags cut out (``E<b>N</b>D``), and both, is searched too; a match there covers every
entity or tag inside it.

Every rule matches inside one line (a setext heading's underline is only looked at), except the
fence's own syntax, also looked for with all separators and line breaks removed
(``<<<untrusted-`` on one line, ``comment-end`` on the next).
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from itertools import accumulate

from ._chars import ASCII_EXPANDING, casefold, delete_chars, fold, is_forbidden

__all__ = ["REPLACEMENT", "has_marker", "holds_marker", "marker_spans", "merge", "neutralise"]

REPLACEMENT = "[fence-like marker removed]"

View = Callable[[str], str]
Span = tuple[int, int]

# -- the words --------------------------------------------------------------------------------
_SEPS = " \t._-*|/\\"
# Anything but a letter or a digit on a line, as a whole-line phrase's frame: the same run as
# (?:[^\w\n]|_)*+, as class runs instead of a branch per character.
_FRAME = r"[^\w\n]*+(?:_[^\w\n]*+)*+"
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
_JSON_ROLES = ("system", "user", "assistant", "developer", "tool", "model")
_DELIMS = "-=%#*~_<>{}|+:^\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2500\u2501\u2550"
_OPENERS = "<«‹≪〈《⟨⟪❬❮⦑⧼﹤＜[({"
_SINGLE_OPENERS = "«‹≪〈《⟨⟪❬❮⦑⧼﹤＜"  # a bracket that opens the fence's syntax alone
_COLONS = ":\u2236\ua789\u02d0\u02f8\u205a\u0589\ufe13\ufe55\uff1a"
_BARS = "|\u00a6\u2502\u2503\u2223\u01c0\uff5c\u2758\u23d0\u05c0"


# -- the rules ---------------------------------------------------------------------------------
def _cls(chars: str | set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


class _Rules:
    """Every rule for one view, its words passed through the view (so that ``ß`` in a rule
    and ``ss`` in a text, or ``е`` and ``e``, meet): ``anywhere``, the rules that match inside a
    line, ``first_line`` and ``next_lines``, those that match at a line's start, and ``cross``,
    the fence's own syntax on the view with separators and line breaks removed."""

    def __init__(self, view: View, casefold_view: bool) -> None:
        self.view = view
        self.pieces: dict[str, str] = {}  # each character's own view (the view per call is slow)
        seps = {view(c) for c in _SEPS}
        # (The lookalike view folds "|" to "i": a letter is no separator.)
        self.seps = {c for c in seps if len(c) == 1 and not c.isalnum() and c != "\n"}
        sep = _cls(self.seps) + "*+"

        def letter(c: str) -> str:
            # In the lookalike view, Cyrillic "у" folds to "y", which reads as "u".
            return "[uy]" if c == "u" and not casefold_view else re.escape(c)

        def word(w: str) -> str:
            return sep.join(letter(c) for c in view(w) if c not in self.seps)

        def alt(words: tuple[str, ...]) -> str:
            return "(?:" + "|".join(word(w) for w in sorted(words, key=len, reverse=True)) + ")"

        start, stop = r"(?<![^\W_])", r"(?![^\W_])"  # no letter or digit before / after

        def started(words: tuple[str, ...]) -> str:
            # ``start`` then alt(words), with the lookbehind after each word's first letter: a
            # regex that starts with a letter is only entered where one stands.
            out = []
            for w in sorted(words, key=len, reverse=True):
                first, *rest = [letter(c) for c in view(w) if c not in self.seps]
                out.append(f"{first}(?<![^\\W_]{first})" + "".join(sep + c for c in rest))
            return "(?:" + "|".join(out) + ")"

        bounds, of, the = alt(_BOUNDS), word("of"), word("the")
        lt, gt = re.escape(view("<")), re.escape(view(">"))
        lb, rb = re.escape(view("[")), re.escape(view("]"))
        colon = _cls({view(c) for c in _COLONS if len(view(c)) == 1})
        bars = {view(c) for c in _BARS if len(view(c)) == 1}
        bar = _cls(bars)
        delims = {view(c) for c in _DELIMS if len(view(c)) == 1 and not view(c).isalnum()}
        delim, no_angle = _cls(delims), _cls(delims - {"<", ">"})
        first_of_run = _cls(delims - {">"})
        sep_no_run = rf"(?:(?!{no_angle}{{3}}){_cls(self.seps)})*+"
        opener = _cls({view(c) for c in _OPENERS} | set(_OPENERS))
        single = _cls(_SINGLE_OPENERS)
        trusted = rf"(?:{word('un')}{sep})?{word('trusted')}"
        kinds = rf"(?:{word('comment')}|{word('check')}{sep}{word('output')})"
        own_tail = rf"{word('trusted')}{sep}{kinds}{sep}{bounds}"
        nouns, line_bounds = alt(_STRONG + _WEAK), alt(_LINE_BOUNDS)
        # A whole line of phrase words: every letter of the vocabulary, or any non-ASCII
        # character, then the frame to the line's end.  Implied by the phrase; it makes most
        # lines fail at once instead of trying each way to read them as nouns and bounds.
        vocabulary = (*_LINE_BOUNDS, *_STRONG, *_WEAK, *_FOREIGN, "of", "the", "here", "now")
        letters = {c for w in vocabulary for c in view(w)} | self.seps | {"y"}
        firsts = {view(w)[0] for w in vocabulary} | {"y"}
        ascii_letters = "".join(sorted(c for c in letters if c.isascii()))
        ascii_firsts = "".join(sorted(c for c in firsts if c.isascii()))
        guard = (
            rf"(?=[{re.escape(ascii_firsts)}\u0080-\U0010ffff]"
            rf"[{re.escape(ascii_letters)}\u0080-\U0010ffff]++{_FRAME}$)"
        )
        tag_tail = rf"{stop}[^<>\n]{{0,80}}+{gt}"
        quote = _cls({view(c) for c in "\"'"})
        s_open, s_close = rf"{lt}{word('s')}{gt}", rf"{lt}/{word('s')}{gt}"
        # Lists, quotes, emphasis and heading markers before a role line.
        lead = r"[ \t]*+(?:(?:[>#*_~+\-]++|[0-9]{1,3}[.)])[ \t]*+)*+"

        # Rules that match anywhere in a line.
        rules = {
            # BEGIN/END and a strong noun ("the" only after "of": "start the user input
            # handler" is prose).
            "bound_strong": rf"{started(_BOUNDS)}{sep}(?:{of}{sep}(?:{the}{sep})?)?{alt(_STRONG)}",
            # BEGIN/END after a run of three delimiters, not a heredoc (<<-END or <<<END).  A
            # run is only tried where it starts: inside one, the possessive run would take the
            # rest of it again, quadratic on "=" * N.  (The lookbehinds after its first
            # character, so that the engine skips ahead to a delimiter.)  The separators after
            # a run stop where another run starts, which is tried on its own: otherwise each run
            # of "--- --- …" would read the rest of the line (separators include "-").
            "delims_bound": (
                rf"{first_of_run}(?:(?<={no_angle})(?<!{no_angle}{no_angle}){no_angle}{{2,}}+"
                rf"|(?<=<)(?<!<<)<{{2,}}+[ \t]++)"
                rf"{sep_no_run}{start}{bounds}{stop}"
            ),
            "bound_delims": rf"{started(_BOUNDS)}{stop}[ \t]*+{delim}{{3,}}+",
            # The fence's own syntax: "(un)trusted", the kinds, the bounds, in any bracket.
            # (The optional "un" as two branches, each led by a letter.)
            "own": rf"{word('un')}{sep}{own_tail}|{own_tail}",
            "own_kind_bound": (
                rf"{started(('comment', 'check output'))}"
                rf"[{re.escape(view('-'))}_]++{bounds}{stop}"
            ),
            "own_bracket": (
                rf"{opener}(?:(?<!{opener}{opener}){opener}++|(?<={single}))[ \t]*+{trusted}"
                rf"(?:{sep}{kinds})?(?:{sep}{bounds})?"
            ),
            # The fence's own header's words.
            "own_words": (
                rf"{word('between')}{sep}{the}{sep}{word('next')}{sep}{word('two')}{sep}"
                rf"{word('marker')}{sep}{word('lines')}"
                rf"|{word('quoted')}{sep}{word('as')}{sep}{word('untrusted')}{sep}{word('data')}"
            ),
            "chat": (
                rf"{lt}[ \t]*+(?:{bar}[ \t]*+)?{alt(_CHAT)}{stop}"
                rf"(?:[ \t]*+{bar})?(?:[ \t]*+{gt})?"
            ),
            "square": rf"{lb}[ \t]*+/?[ \t]*+{alt(_SQUARE)}[ \t]*+{rb}",
            "double_angle_sys": rf"{lt}{lt}[ \t]*+/?{word('sys')}[ \t]*+{gt}{gt}",
            # <s> and </s> on their own (not <s>struck</s> inside a sentence).
            "bos_eos": (
                rf"{s_open}(?=[\s<\[]|$)|{s_close}(?<![^\s>\]]{s_close})|{s_close}(?=[<\[])"
            ),
            "tag": (
                rf"{lt}/?[ \t]*+(?:{alt(_TAGS)}|[\w-]{{0,40}}_{word('instructions')})"
                rf"{tag_tail}"
            ),
            "soft_tag": rf"{lt}(?<![\w:.]{lt})/?[ \t]*+{alt(_SOFT_TAGS)}{tag_tail}",
            "json_role": (
                rf"{quote}{word('role')}{quote}[ \t]*+:[ \t]*+{quote}{alt(_JSON_ROLES)}{quote}"
            ),
        }
        if casefold_view:
            # Any token between bars (<|x|>).  Bars fold to letters in the lookalike view, so
            # this rule is the casefold view's alone.
            not_bar = _cls(bars | {"\n", "<", ">"}).replace("[", "[^", 1)
            rules["chat_bars"] = rf"{lt}[ \t]*+{bar}{not_bar}{{0,40}}+{bar}[ \t]*+{gt}"
        # Rules that match a whole line, or its start.
        line_rules = {
            "phrase": (
                rf"{_FRAME}{guard}(?:"
                rf"{line_bounds}{sep}(?:{of}{sep})?(?:{the}{sep})?(?:{nouns}{sep}){{0,3}}{nouns}"
                rf"|(?:{nouns}{sep}){{1,4}}{line_bounds}(?:{sep}(?:{word('here')}|{word('now')}))?"
                rf"|{alt(_FOREIGN)}"
                rf"){_FRAME}$"
            ),
            "role_line": rf"{lead}{alt(_ROLES)}[ \t]*+(?:[*_]{{1,2}}[ \t]*+)?{colon}",
            "heading": (
                rf"[ \t]*+(?:>[ \t]*+)*+#{{1,6}}+[ \t]*+{alt(_HEADINGS)}[ \t]*+(?:{colon}|$)"
            ),
            # A role heading underlined (setext): the heading line is the marker.
            "setext": (
                rf"(?:>[ \t]*+)*+{alt(_HEADINGS)}[ \t]*+{colon}?[ \t]*+"
                r"(?=\n[ \t]{0,3}+(?:=++|-++)[ \t]*+(?:\n|\Z))"
            ),
        }
        # Each rule alone: the engine skips ahead to a rule's first character (a literal or a
        # class), where a single regex of them all would enter every branch at every position
        # (16 ms against 3 ms on 64 KiB of prose, each view).  The line rules together, led by
        # a line break (the first line matched on its own).
        self.anywhere = [re.compile(r) for r in rules.values()]
        lines = "|".join(f"(?:{r})" for r in line_rules.values())
        self.first_line = re.compile(f"(?:{lines})", re.M)
        self.next_lines = re.compile(f"\n(?=[^\n])(?:{lines})", re.M)

        # The fence's own syntax with every separator and line break removed.
        self.drop = "".join(sorted(self.seps)) + "\n"

        def compact(w: str) -> str:
            return "".join(letter(c) for c in view(w) if c not in self.drop)

        trusted_c = rf"(?:{compact('un')})?{compact('trusted')}"
        kinds_c = f"(?:{compact('comment')}|{compact('check output')})"
        rest = kinds_c + "(?:" + "|".join(map(compact, _BOUNDS)) + ")"
        self.cross = re.compile(
            rf"(?:(?<!{opener}){opener}{{2,}}+|{single}){trusted_c}(?:{rest})?|{trusted_c}{rest}"
        )
        # The key as literals, found before the regex runs (every match holds one).
        key = view("trusted")
        self.cross_literals = {key} if casefold_view else {key, key.replace("u", "y")}


@lru_cache(maxsize=1)
def _all_rules() -> tuple[_Rules, ...]:
    """The rules in the casefold view and in the lookalike fold, built on first use:
    building them takes about a quarter of a second, which a process that fences nothing
    (a hook's ``inbox take``, the worker tools' start-up) must not pay."""
    return (_Rules(casefold, casefold_view=True), _Rules(fold, casefold_view=False))


# -- one view: its matches, mapped back ----------------------------------------------------------
def _view_spans(rules: _Rules, view: str) -> list[Span]:
    """The matches of every rule in ``view`` (spans of the view)."""
    spans = [m.span() for rx in rules.anywhere for m in rx.finditer(view)]
    first = rules.first_line.match(view)
    if first is not None:
        spans.append(first.span())
    spans += [(m.start() + 1, m.end()) for m in rules.next_lines.finditer(view)]
    return [(s, e) for s, e in spans if e > s] + _cross_spans(rules, view)


def _cross_spans(rules: _Rules, view: str) -> list[Span]:
    """The fence's own syntax over line breaks and separators (spans of ``view``)."""
    drop_ascii = "".join(c for c in rules.drop if c.isascii()).encode("ascii")
    drop_others = "".join(c for c in rules.drop if not c.isascii())
    compact = delete_chars(view, drop_ascii, drop_others)
    if not any(k in compact for k in rules.cross_literals) or not rules.cross.search(compact):
        return []
    keep = [i for i, c in enumerate(view) if c not in rules.drop]
    return [(keep[m.start()], keep[m.end() - 1] + 1) for m in rules.cross.finditer(compact)]


def _line_map(rules: _Rules, line: str, view_line: str) -> tuple[list[int], list[int]] | None:
    """For each character of ``view_line`` (the view of ``line``), the start and end of the
    characters of ``line`` it comes from, with any that fold to nothing after them (None: the
    characters' views do not make the line's)."""
    cache = rules.pieces
    if len(cache) > 1 << 16:
        cache.clear()
    pieces = []
    for c in line:
        piece = cache.get(c)
        if piece is None:
            piece = cache[c] = rules.view(c)
        pieces.append(piece)
    starts = [i for i, piece in enumerate(pieces) for _ in piece]
    chars = "".join(pieces)
    if rules.view is fold and "rn" in chars:
        # fold() reads "rn" as "m" over the whole text: the "m" comes from both characters.
        merged_starts, i = [], 0
        while i < len(chars):
            merged_starts.append(starts[i])
            i += 2 if chars[i : i + 2] == "rn" else 1
        chars, starts = chars.replace("rn", "m"), merged_starts
    # A character ends where the next one starts (at least one past its own start: "ß" is "ss").
    ends = [max(s + 1, after) for s, after in zip(starts, [*starts[1:], len(line)], strict=False)]
    return (starts, ends) if chars == view_line else None


def _line_starts(text: str) -> list[int]:
    return list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))


def _back(rules: _Rules, text: str, view: str, spans: list[Span]) -> list[Span]:
    """Spans of ``view`` as spans of ``text``: each end mapped on its own line (the views map
    a text line by line), a character that came from several covering all of them."""
    # A view of the text's length maps it character for character: casefold never shortens a
    # character, and fold only shortens "rn" (to "m") in ASCII that no character lengthens.
    if len(view) == len(text) and (
        rules.view is casefold
        or (text.isascii() and not any(c in text for c, _ in ASCII_EXPANDING))
    ):
        return spans
    t_starts, v_starts = _line_starts(text), _line_starts(view)
    if len(t_starts) != len(v_starts):  # (never: no character's view holds a line break)
        return [(0, len(text))]
    maps: dict[int, tuple[list[int], list[int]] | None] = {}

    def point(p: int, end: bool) -> int:
        k = bisect_right(v_starts, p) - 1
        line_start, line_end = t_starts[k], t_starts[k + 1] - 1
        if k not in maps:
            v_line = view[v_starts[k] : v_starts[k + 1] - 1]
            maps[k] = _line_map(rules, text[line_start:line_end], v_line)
        found = maps[k]
        off = p - v_starts[k]
        if found is None:
            return line_end if end else line_start  # (the whole line)
        if off >= len(found[0]):  # the line break itself
            return line_end + 1 if end else line_end
        return line_start + (found[1][off] if end else found[0][off])

    return [(point(s, False), point(e - 1, True)) for s, e in spans]


def _plain_spans(text: str) -> list[Span]:
    """The markers in the casefold and lookalike views of ``text`` (spans of ``text``)."""
    out: list[Span] = []
    for rules in _all_rules():
        view = rules.view(text)
        found = _view_spans(rules, view)
        if found:
            out += _back(rules, text, view, found)
    return out


# -- entities decoded, tags cut ------------------------------------------------------------------
_ENTITY_RE = re.compile(
    r"&(?:#[0-9]{1,8}+;?|#[xX][0-9a-fA-F]{1,8}+;?|[A-Za-z][A-Za-z0-9]{1,31}+;?)"
)
# An HTML tag (or a comment) on one line: cut out in the tag-free view.
_TAG_RE = re.compile(r"<[^<>\n]{0,200}+>")

_Edit = tuple[int, int, str]  # a span of the text and what the view reads there instead


@lru_cache(maxsize=4096)
def _decode_entity(entity: str) -> str:
    """``html.unescape`` of one entity, invisible characters dropped (``EN&shy;D``)."""
    return "".join(
        c
        for c in html.unescape(entity)
        if c in "\t\n" or " " <= c <= "~" or (ord(c) > 0x7E and not is_forbidden(ord(c)))
    )


def _edit_lists(text: str) -> list[list[_Edit]]:
    """The edits of the entity-decoded view, the tag-cut view and the tag-cut view with the
    entities outside tags decoded (those that differ from the text, and from each other)."""
    entities: list[_Edit] = []
    for m in _ENTITY_RE.finditer(text):
        decoded = _decode_entity(m.group())
        if decoded != m.group():
            entities.append((m.start(), m.end(), decoded))
    tags: list[_Edit] = [(m.start(), m.end(), "") for m in _TAG_RE.finditer(text)]
    out = [entities] if entities else []
    if tags:
        out.append(tags)
        ends = [e for _, e, _ in tags]
        outside = []
        for s, e, decoded in entities:
            k = bisect_right(ends, s)  # the first tag that ends after the entity starts
            if k == len(tags) or tags[k][0] >= e:
                outside.append((s, e, decoded))
        if outside:
            out.append(sorted(tags + outside))
    return out


class _Edited:
    """A text with edits made: ``joined``, and :meth:`back` from its spans to the text's (a
    span that touches an edit's replacement covers the whole edit)."""

    def __init__(self, text: str, edits: list[_Edit]) -> None:
        # (offset in joined, start and end in the text, kept as it is), non-empty pieces only
        self.pieces: list[tuple[int, int, int, bool]] = []
        parts: list[str] = []
        pos = total = 0
        for s, e, replacement in [*edits, (len(text), len(text), "")]:
            for a, b, piece, kept in ((pos, s, text[pos:s], True), (s, e, replacement, False)):
                if piece:
                    self.pieces.append((total, a, b, kept))
                    parts.append(piece)
                    total += len(piece)
            pos = e
        self.joined = "".join(parts)
        self.offsets = [piece[0] for piece in self.pieces]

    def back(self, span: Span) -> Span:
        offset, start, end, kept = self.pieces[bisect_right(self.offsets, span[0]) - 1]
        first = start + span[0] - offset if kept else start
        offset, start, end, kept = self.pieces[bisect_right(self.offsets, span[1] - 1) - 1]
        return first, start + span[1] - offset if kept else end


# -- the API ---------------------------------------------------------------------------------------
def merge(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, overlapping and touching ones joined."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def marker_spans(text: str, decode: bool = False) -> list[Span]:
    """Sorted, merged spans of ``text`` covering each marker found in any view (with ``decode``,
    also in the entity-decoded and tag-cut views)."""
    spans = _plain_spans(text)
    if decode:
        for edits in _edit_lists(text):
            edited = _Edited(text, edits)
            spans += [edited.back(span) for span in _plain_spans(edited.joined)]
    return merge(spans)


def holds_marker(text: str, decode: bool = False) -> bool:
    """Whether any view of ``text`` holds a marker (:func:`marker_spans`: on most text, which
    has none, an early stop would save nothing)."""
    return bool(marker_spans(text, decode))


has_marker = holds_marker
"""Deprecated alias of ``holds_marker`` (its old name), kept for one release."""


def _replace(text: str, spans: list[Span]) -> str:
    pieces, pos = [], 0
    for s, e in spans:
        pieces += [text[pos:s], REPLACEMENT]
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)


# A replacement can make a new marker only with what stands next to it; a few passes reach a
# fixed point on anything seen so far.
_MAX_PASSES = 6


def neutralise(text: str, decode: bool = False) -> str:
    """Every marker replaced by :data:`REPLACEMENT`, again until no view finds one.  After
    ``_MAX_PASSES`` passes, each line a marker touches is replaced whole; failing that, the
    whole text."""
    for _ in range(_MAX_PASSES):
        spans = marker_spans(text, decode)
        if not spans:
            return text
        text = _replace(text, spans)
    spans = marker_spans(text, decode)
    if not spans:
        return text
    lines = _line_starts(text)
    hit: set[int] = set()
    for s, e in spans:
        hit.update(range(bisect_right(lines, s) - 1, bisect_right(lines, max(s, e - 1))))
    text = "\n".join(REPLACEMENT if i in hit else ln for i, ln in enumerate(text.split("\n")))
    return REPLACEMENT if holds_marker(text, decode) else text
