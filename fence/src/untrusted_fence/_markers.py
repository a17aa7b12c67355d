"""Marker neutralisation: every shape of a fence marker becomes a neutral replacement.

Detection runs every rule on several views of the text: casefold and the lookalike fold (UTS
#39 skeleton, case, combining marks, letters without a compatibility mapping), each also with
HTML entities decoded (invisible characters they name dropped), with hidden marks cut out
(the visible projection) and with HTML tags cut out (``E<b>N</b>D``).  Separators between the
letters of a marker word are allowed by the patterns themselves.  Matches are mapped back to
the text and replaced; the whole loop repeats until no view matches.

Every rule matches inside one line, except the fence's own syntax, which is also looked for
with every line break and separator removed (``<<<`` on one line, ``untrusted-comment-end`` on
the next).  A group of rules only runs on the lines where one of its probes is found (a
substring, a regex that starts with a literal, or a run of character classes in a byte shape
of the view, each one pass in C), so the cost on ordinary text is a few scans per view.
"""

from __future__ import annotations

import html
import re
import string
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, islice, pairwise, repeat
from operator import add, itemgetter, le, lt, sub

from ._chars import (
    ASCII_FOLD_BYTES,
    casefold,
    delete_chars,
    delete_chars_utf8,
    fold,
    is_forbidden,
)
from ._hidden import MARK_CLOSE, MARK_OPEN, cut_marks, mark_spans, merge
from ._recent import registered

__all__ = ["REPLACEMENT", "find_cross_markers", "find_markers", "neutralise"]

REPLACEMENT = "[fence-like marker removed]"

View = Callable[[str], str]

_SEPS = " \t._-*|/\\"
# Anything but a letter or a digit on a line, as a whole-line phrase's frame: the same run as
# (?:[^\w\n]|_)*+, matched about twice as fast (a class run instead of a branch per character).
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
_DELIMS = "-=%#*~_<>{}|+:^\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2500\u2501\u2550"
_OPENERS = "<«‹≪〈《⟨⟪❬❮⦑⧼﹤＜[({"
_COLONS = ":\u2236\ua789\u02d0\u02f8\u205a\u0589\ufe13\ufe55\uff1a"
_BARS = "|\u00a6\u2502\u2503\u2223\u01c0\uff5c\u2758\u23d0\u05c0"


# A trie of words, letter by letter ("" marks a word's end).
_Trie = dict[str, "_Trie"]

# Bytes that continue a UTF-8 sequence: deleted from a shape, so that a shape has one byte per
# code point (positions and lines are the view's own).
_CONTINUATION = bytes(range(0x80, 0xC0))


def _shape_table(classes: dict[str, str]) -> bytes:
    """A translate table from UTF-8 bytes to class bytes: each character of ``classes[code]``
    becomes ``code``, a newline stays, every other byte becomes ``.``.  A non-ASCII member is
    represented by its lead byte (which other characters share: a shape over-approximates, so a
    probe on it is still a necessary condition)."""
    table = bytearray(b"." * 256)
    table[0x0A] = 0x0A
    for code, chars in classes.items():
        for char in chars:
            table[char.encode("utf-8")[0]] = ord(code)
    return bytes(table)


@dataclass(frozen=True, slots=True)
class _Probe:
    """A necessary condition of a group's rules, found line by line: a literal or a regex that
    starts with a literal (the engine skips ahead to it), on the compacted view, the view, or a
    shape (a byte string of character classes, one byte per character of the view)."""

    on: str  # "compact", "view" or a shape's name
    literal: str | bytes | None = None
    rx: re.Pattern[str] | re.Pattern[bytes] | None = None
    non_ascii: bool = False  # the literal holds a non-ASCII character
    # A literal that every match of ``rx`` starts with: where it is not found (a count the
    # scan keeps for every probe that needs it), the regex is not run.  For a literal probe, a
    # part of its literal with no separator, counted on the compacted view (where the
    # tag probes count it too): where it is not found, neither is the literal.
    needs: str | None = None


@dataclass(frozen=True, slots=True)
class _Group:
    """Rules that run only on the lines where one of their probes is found."""

    rules: list[str]
    rx: re.Pattern[str]
    probes: list[_Probe]
    # Line rules: searched at the start and after each newline of the chosen lines.
    at_start: re.Pattern[str] | None = None
    after_newline: re.Pattern[str] | None = None
    # A second condition: a chosen line also holds one of these.
    gates: list[_Probe] | None = None
    # Each rule alone: the group matches somewhere exactly when one of them does, and a rule
    # that starts with a letter or a class is searched by skipping ahead to it (the engine
    # enters every branch of an alternation at every position).
    alone: tuple[re.Pattern[str], ...] = ()

    def search(self, chosen: str) -> bool:
        if self.at_start is not None and self.after_newline is not None:
            return bool(self.at_start.match(chosen) or self.after_newline.search(chosen))
        if self.alone:
            return any(rx.search(chosen) is not None for rx in self.alone)
        return self.rx.search(chosen) is not None

    def spans(self, chosen: str) -> list[tuple[int, int]]:
        if self.at_start is not None and self.after_newline is not None:
            m0 = self.at_start.match(chosen)
            found = [m0.span()] if m0 is not None else []
            return found + [(m.start() + 1, m.end()) for m in self.after_newline.finditer(chosen)]
        if self.alone and not self.search(chosen):
            return []  # (each rule alone is searched faster than the combined regex)
        return [m.span() for m in self.rx.finditer(chosen)]


class _Scan:
    """One view of a text with what the probes need of it, each built once: the compacted
    view, the shapes, the lines."""

    def __init__(self, rules: _Rules, view: str) -> None:
        self.rules = rules
        self.view = view
        self._compact: str | None = None
        self._compact_utf8: bytes | None = None
        self._full_compact_utf8: bytes | None = None
        self._raw: bytes | None = None
        self._shapes: dict[str, bytes] = {}
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None
        self._hits: dict[int, list[int] | None] = {}
        # The counts of the literals probed so far (a gate's word is also another probe's
        # start), by target.
        self._counts: dict[tuple[str, str | bytes], int] = {}
        # Whether a needed literal is found, by target (where its count is not known).
        self._found: dict[tuple[str, str | bytes], bool] = {}
        self.line_count = view.count("\n") + 1

    @property
    def raw(self) -> bytes:
        """The view in UTF-8 (encoded once, for the compacted view and the shapes)."""
        if self._raw is None:
            self._raw = self.view.encode("utf-8", "surrogatepass")
        return self._raw

    @property
    def compact_utf8(self) -> bytes:
        """The compacted view in UTF-8."""
        if self._compact_utf8 is None:
            self._compact_utf8 = self.rules.compact_utf8(self.view, self.raw)
        return self._compact_utf8

    @property
    def compact(self) -> str:
        if self._compact is None:
            self._compact = self.compact_utf8.decode("utf-8", "surrogatepass")
        return self._compact

    @property
    def full_compact_utf8(self) -> bytes:
        """The compacted view in UTF-8 without its line breaks (what the rules across lines
        read)."""
        if self._full_compact_utf8 is None:
            self._full_compact_utf8 = self.compact_utf8.translate(None, b"\n")
        return self._full_compact_utf8

    def shape(self, name: str) -> bytes:
        shape = self._shapes.get(name)
        if shape is None:
            table = self.rules.shape_tables[name]
            shape = self._shapes[name] = self.raw.translate(table, _CONTINUATION)
        return shape

    def target(self, probe: _Probe) -> str | bytes:
        if probe.on == "compact":
            return self.compact
        if probe.on == "view":
            return self.view
        return self.shape(probe.on)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.view.split("\n")
        return self._lines

    @property
    def starts(self) -> list[int]:
        """The offset of each line in the view."""
        if self._starts is None:
            self._starts = [0, *accumulate(len(line) + 1 for line in self.lines)][:-1]
        return self._starts

    def hit_lines(self, group: _Group) -> list[int] | None:
        """The indices of the lines where a probe of ``group`` is found (and a gate, when the
        group has gates), sorted (None: many, take the whole view; []: none)."""
        if not group.probes:
            return None
        key = id(group)
        if key not in self._hits:
            self._hits[key] = self._hit_lines(group)
        return self._hits[key]

    def _hit_lines(self, group: _Group) -> list[int] | None:
        # Every probe and gate is counted (in C) before any hit is placed on its line: when
        # the probes, or the gates, are found nowhere, no line is chosen, and a gate found on
        # many lines (a common word) costs no walk over its hits.
        gate_counts = None
        if group.gates:
            gate_counts = self._probe_counts(group.gates)
            if gate_counts is not None and not gate_counts:
                return []
        probe_counts = self._probe_counts(group.probes)
        if probe_counts is not None and not probe_counts:
            return []
        gated = None
        if gate_counts is not None:
            gated = self._lines_of(gate_counts)
            if gated is not None and not gated:
                return []
        hits = None if probe_counts is None else self._lines_of(probe_counts)
        if hits is None:
            if gated is None:
                return None
            hits = gated
        elif gated is not None:
            hits &= gated
        return sorted(hits)

    def _probe_counts(self, probes: list[_Probe]) -> list[tuple[_Probe, str | bytes]] | None:
        """The probes found in their targets, with the targets (None: found more often than
        on half of the lines)."""
        half = self.line_count // 2
        counted: list[tuple[_Probe, str | bytes]] = []
        total = 0
        view_ascii = self.view.isascii()
        for probe in probes:
            if probe.non_ascii and view_ascii:
                continue
            if (
                probe.literal is not None
                and probe.needs is not None
                and not self._present("compact", probe.needs, self.compact)
            ):
                continue
            text = self.target(probe)
            if probe.literal is not None:
                n = self._count(probe.on, probe.literal, text)
            else:
                assert probe.rx is not None
                if probe.needs is not None and not self._present(probe.on, probe.needs, text):
                    continue
                n = len(probe.rx.findall(text))  # type: ignore[arg-type]
            if n:
                total += n
                if total > half:
                    return None
                counted.append((probe, text))
        return counted

    def _present(self, on: str, needle: str, text: str | bytes) -> bool:
        """Whether ``needle`` is in ``text``: its count when one is known, else a search that
        stops at the first occurrence (a needed literal is often early, or absent)."""
        key = (on, needle)
        n = self._counts.get(key)
        if n is not None:
            return n > 0
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = needle in text
        return found

    def _count(self, on: str, needle: str | bytes, text: str | bytes) -> int:
        key = (on, needle)
        n = self._counts.get(key)
        if n is None:
            if self._found.get(key) is False:
                return 0
            n = self._counts[key] = text.count(needle)  # type: ignore[arg-type]
        return n

    def _lines_of(self, counted: list[tuple[_Probe, str | bytes]]) -> set[int] | None:
        """The lines where the counted probes are found (None: more than half of them)."""
        half = self.line_count // 2
        hits: set[int] = set()
        for probe, text in counted:
            line, last = 0, 0
            nl = "\n" if isinstance(text, str) else b"\n"
            pos = self._next(probe, text, 0)
            while pos >= 0:
                line += text.count(nl, last, pos)  # type: ignore[arg-type]
                hits.add(line)
                end = text.find(nl, pos)  # type: ignore[arg-type]
                if end < 0:
                    break
                line += 1
                last = end + 1
                pos = self._next(probe, text, last)
        if len(hits) > half:
            return None
        return hits

    @staticmethod
    def _next(probe: _Probe, text: str | bytes, start: int) -> int:
        if probe.literal is not None:
            return text.find(probe.literal, start)  # type: ignore[arg-type]
        assert probe.rx is not None
        m = probe.rx.search(text, start)  # type: ignore[arg-type]
        return -1 if m is None else m.start()

    def chosen(self, group: _Group) -> str | None:
        """The lines of the view that hold a probe of ``group``, joined by newlines (None when
        there are none)."""
        hits = self.hit_lines(group)
        if hits is None:
            return self.view
        if not hits:
            return None
        lines = self.lines
        return "\n".join([lines[i] for i in hits])

    def spans(self, group: _Group) -> list[tuple[int, int]]:
        """Every match of ``group`` in the view, found on the chosen lines only."""
        hits = self.hit_lines(group)
        if hits is None:
            return group.spans(self.view)
        if not hits:
            return []
        lines, starts = self.lines, self.starts
        found = group.spans("\n".join([lines[i] for i in hits]))
        if not found:
            return []
        # Map offsets in the joined lines back to the view.
        offsets, total = [], 0
        for i in hits:
            offsets.append(total)
            total += len(lines[i]) + 1

        def back(p: int) -> int:
            k = bisect_right(offsets, p) - 1
            return starts[hits[k]] + p - offsets[k]

        return [(back(s), back(e - 1) + 1) if e > s else (back(s), back(s)) for s, e in found]


class _Rules:
    """Every rule of one view, split for speed: the rules are grouped, and a group only runs
    on the lines where one of its probes is found (a necessary condition of its rules: a
    substring of the line's compacted form or of the line, found by ``str.find``, a match of a
    regex that starts with a literal, or a run of character classes in a shape of the view,
    found in a byte string).  The line rules (a role line, a heading, a whole-line phrase) are
    a group too, searched at the start and after each newline of their chosen lines.  ``rx`` is
    all of them as one regex, for the test that the split finds exactly what it finds."""

    def __init__(self, view: View, casefold_view: bool, fast: bool = True) -> None:
        # fast=False builds the rules as first written (a lookbehind before a word, not after
        # its first letter), for the test that the rewrite finds the same.
        self.view = view
        seps = {view(c) for c in _SEPS}
        seps = {c for c in seps if len(c) == 1 and not c.isalnum() and c != "\n"}
        self.sep_ascii = "".join(sorted(c for c in seps if c.isascii())).encode("ascii")
        self.sep_others = "".join(sorted(c for c in seps if not c.isascii()))
        self.seps = seps
        sep = "[" + "".join(re.escape(c) for c in sorted(seps)) + "]*+"
        keyed: list[str] = []
        line_rules: list[str] = []
        probes: list[_Probe] = []
        gates: list[_Probe] = []
        line_probes: list[_Probe] = []
        self.groups: list[_Group] = []
        self.shape_tables: dict[str, bytes] = {}

        def group() -> None:
            """Close the rules added since the last group, with the probes added since."""
            done = sum(len(g.rules) for g in self.groups if g.at_start is None)
            rules = keyed[done:]
            if not rules:
                return
            rx = re.compile("|".join(f"(?:{r})" for r in rules), re.M)
            alone = tuple(re.compile(r, re.M) for r in rules) if fast and len(rules) > 1 else ()
            self.groups.append(
                _Group(rules, rx, list(probes), gates=list(gates) or None, alone=alone)
            )
            probes.clear()
            gates.clear()

        def letter(c: str) -> str:
            # In the lookalike view, Cyrillic "у" folds to "y", which reads as "u".
            return "[uy]" if c == "u" and not casefold_view else re.escape(c)

        def literal_rx(text: str) -> str:
            # A compacted word as a regex, with the lookalike view's "u" or "y".
            return "".join(letter(c) for c in text)

        def spellings(text: str) -> list[str]:
            # Every spelling of a compacted word that literal_rx matches.
            out = [""]
            for c in text:
                out = [o + v for o in out for v in (("u", "y") if letter(c) == "[uy]" else (c,))]
            return out

        def add(into: list[_Probe], on: str, literal: str | bytes | None = None,
                rx: str | bytes | None = None, needs: str | None = None) -> None:  # fmt: skip
            # A literal with a non-ASCII character never occurs in an ASCII text.
            non_ascii = isinstance(literal, str) and not literal.isascii()
            compiled = re.compile(rx) if rx is not None else None
            into.append(_Probe(on, literal, compiled, non_ascii, needs))

        def fixed(text: str) -> str:
            # The start of literal_rx(text) that is a plain literal (up to a "[uy]").
            return text if casefold_view else text.split("u")[0]

        def word(w: str) -> str:
            folded = view(w)
            return sep.join(letter(c) for c in folded if c not in seps)

        def alt(words: tuple[str, ...] | list[str]) -> str:
            return "(?:" + "|".join(word(w) for w in sorted(words, key=len, reverse=True)) + ")"

        def started(words: tuple[str, ...] | list[str]) -> str:
            # ``start`` then alt(words), with the lookbehind after each word's first letter: a
            # regex that starts with letters is only tried where one of them stands.
            if not fast:
                return start + alt(words)
            out = []
            for w in sorted(words, key=len, reverse=True):
                first, *rest = [c for c in view(w) if c not in seps]
                lead = letter(first)
                tail = "".join(sep + letter(c) for c in rest)
                out.append(f"{lead}(?<![^\\W_]{lead}){tail}")
            return "(?:" + "|".join(out) + ")"

        def compact_alt(words: tuple[str, ...] | list[str]) -> str:
            # The compacted form of alt(words): no separators, so a literal-led search.
            folded = sorted({self.compact(view(w)) for w in words}, key=len, reverse=True)
            return "(?:" + "|".join(literal_rx(f) for f in folded) + ")"

        def key(*words: str) -> None:
            found = {k for w in words for k in spellings(self.compact(view(w))) if k}
            for k in sorted(found):
                add(probes, "compact", literal=k)

        start = r"(?<![^\W_])"
        stop = r"(?![^\W_])"
        bounds = alt(_BOUNDS)
        of, the = word("of"), word("the")
        # BEGIN/END followed by a strong noun, anywhere.
        # ("the" only after "of": "start the user input handler" is prose.)
        keyed.append(rf"{started(_BOUNDS)}{sep}(?:{of}{sep}(?:{the}{sep})?)?{alt(_STRONG)}")
        for b in _BOUNDS:
            add(
                probes,
                "compact",
                rx=re.escape(self.compact(view(b)))
                + f"(?:{re.escape(view('of'))}(?:{re.escape(view('the'))})?)?"
                + compact_alt(_STRONG),
                needs=self.compact(view(b)),
            )
        group()

        # Whole-line paraphrases and other languages' words.
        def trie(words: tuple[str, ...]) -> str:
            # alt(words) as a trie (a branch per distinct next letter, so a line is tried
            # against each letter once, not against each word): the same language, and since
            # the phrase rule is anchored at both ends of the line, the same matches.
            if not fast:
                return alt(words)
            root: _Trie = {}
            for w in words:
                node = root
                for c in view(w):
                    if c not in seps:
                        node = node.setdefault(letter(c), {})
                node[""] = {}

            def emit(node: _Trie) -> str:
                branches = [tok + emit(child) for tok, child in node.items() if tok]
                if not branches:
                    return ""
                rest = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
                return f"(?:{sep}{rest})?" if "" in node else f"{sep}{rest}"

            return "(?:" + "|".join(tok + emit(child) for tok, child in root.items()) + ")"

        frame = _FRAME
        nouns = trie(_STRONG + _WEAK)
        line_bounds = trie(_LINE_BOUNDS)
        phrase = (
            rf"{line_bounds}{sep}(?:{of}{sep})?(?:{the}{sep})?(?:{nouns}{sep}){{0,3}}{nouns}"
            rf"|(?:{nouns}{sep}){{1,4}}{line_bounds}(?:{sep}(?:{word('here')}|{word('now')}))?"
            rf"|{trie(_FOREIGN)}"
        )
        # A guard that fails fast on most lines (a phrase line is its frame, the letters of
        # its words and separators, and its frame again; "<<<untrusted-comment-end 0123>>>"
        # would otherwise try every way to read it as nouns and a line bound).  It is implied
        # by the phrase, so it changes nothing it finds (a test checks).
        vocabulary = (*_LINE_BOUNDS, *_STRONG, *_WEAK, *_FOREIGN, "of", "the", "here", "now")
        letters = {c for w in vocabulary for c in view(w) if c not in seps}
        if not casefold_view and "u" in letters:
            letters.add("y")
        firsts = {c for w in vocabulary for c in view(w)[:1]}
        if not casefold_view and "u" in firsts:
            firsts.add("y")
        # (Any non-ASCII character passes: a short class is checked faster.)
        chars = re.escape("".join(sorted(c for c in letters | seps if c.isascii())))
        first = re.escape("".join(sorted(c for c in firsts if c.isascii())))
        # (Every phrase starts with a word of two letters or more: a letter, then letters and
        # separators, then the frame to the end of the line.)
        assert all(len([c for c in view(w) if c not in seps]) > 1 for w in vocabulary)
        self.phrase_guard = rf"(?=[{first}\u0080-\U0010ffff][{chars}\u0080-\U0010ffff]++{frame}$)"
        line_rules.append(rf"{frame}{self.phrase_guard}(?:{phrase}){frame}$")
        # (No probes: its words, "end", "fin", "start", are in most lines of prose anyway.)
        phrase_rule = line_rules.pop()
        # BEGIN/END next to a run of three delimiters (not a heredoc such as <<-END or <<<END).
        # (Only delimiters that stay punctuation: the lookalike view folds "|" to "i".)
        delims = "".join(
            sorted({view(c) for c in _DELIMS if len(view(c)) == 1 and not view(c).isalnum()})
        )
        delim = "[" + re.escape(delims) + "]"
        no_angle = "[" + re.escape(delims.replace("<", "").replace(">", "")) + "]"
        # (A run is only tried where it starts: tried inside a run, the possessive run would
        # take every later character of it again, quadratic on "=" * N.  As written, the
        # lookbehind first; the same with the run's first character first, as one class, and
        # the lookbehinds after it, so that the engine skips ahead to a delimiter instead of
        # trying the rule at every position.)
        first_of_run = "[" + re.escape(delims.replace(">", "")) + "]"
        run = (
            rf"{first_of_run}(?:(?<={no_angle})(?<!{no_angle}{no_angle}){no_angle}{{2,}}+"
            rf"|(?<=<)(?<!<<)<{{2,}}+[ \t]++)"
            if fast
            else rf"(?:(?<!{no_angle}){no_angle}{{3,}}+|(?<!<)<{{3,}}+[ \t]++)"
        )
        keyed.append(rf"{run}{sep}{start}{bounds}{stop}")
        keyed.append(rf"{started(_BOUNDS)}{stop}[ \t]*+{delim}{{3,}}+")
        self.shape_tables["delim"] = _shape_table({"d": delims})
        add(probes, "delim", literal=b"ddd")
        for b in _BOUNDS:  # both rules hold a bound word
            add(gates, "compact", literal=self.compact(view(b)))
        group()
        # The fence's own syntax: "(un)trusted", the kinds, begin/end, in any bracket.
        trusted = rf"(?:{word('un')}{sep})?{word('trusted')}"
        kinds = rf"(?:{word('comment')}|{word('check')}{sep}{word('output')})"
        own_tail = rf"{word('trusted')}{sep}{kinds}{sep}{bounds}"
        # (As written, the optional "un" first; the same as "un" then the rest, or the rest,
        # with a letter first in each branch, which the engine checks before entering it.)
        keyed.append(
            rf"(?:{word('un')}{sep}{own_tail}|{own_tail})"
            if fast
            else rf"{trusted}{sep}{kinds}{sep}{bounds}"
        )
        keyed.append(
            rf"{started(('comment', 'check output'))}[{re.escape(view('-'))}_]++{bounds}{stop}"
        )
        openers = "".join(sorted({view(c) for c in _OPENERS} | set(_OPENERS)))
        opener = "[" + re.escape(openers) + "]"
        single = "[" + re.escape("«‹≪〈《⟨⟪❬❮⦑⧼﹤＜") + "]"
        # (A run of two or more openers not after one, or a single bracket: as written, the
        # lookbehind first; the same with the first opener first and the lookbehinds after
        # it, so the rule starts with a class the engine skips ahead to.)
        bracket = (
            rf"{opener}(?:(?<!{opener}{opener}){opener}++|(?<={single}))"
            if fast
            else rf"(?:(?<!{opener}){opener}{{2,}}+|{single})"
        )
        keyed.append(rf"{bracket}[ \t]*+{trusted}(?:{sep}{kinds})?(?:{sep}{bounds})?")
        keyed.append(
            rf"{word('between')}{sep}{the}{sep}{word('next')}{sep}{word('two')}{sep}"
            rf"{word('marker')}{sep}{word('lines')}"
            rf"|{word('quoted')}{sep}{word('as')}{sep}{word('untrusted')}{sep}{word('data')}"
        )
        key("trusted", "trysted", "markerlines")
        bound_alt = "(?:" + "|".join(literal_rx(self.compact(view(b))) for b in _BOUNDS) + ")"
        for k in ("comment", "checkoutput"):
            compacted = self.compact(view(k))
            add(probes, "compact", rx=literal_rx(compacted) + bound_alt, needs=fixed(compacted))
        group()
        # Chat-template tokens.
        bars = "".join(sorted({view(c) for c in _BARS if len(view(c)) == 1}))
        bar = "[" + re.escape(bars) + "]"
        lt, gt = re.escape(view("<")), re.escape(view(">"))
        if casefold_view:
            # Bars fold to letters in the lookalike view, so this rule runs on casefold only.
            not_bar = "[^\n<>" + bar[1:-1] + "]"
            keyed.append(rf"{lt}[ \t]*+{bar}{not_bar}{{0,40}}+{bar}[ \t]*+{gt}")
            self.shape_tables["bar"] = _shape_table({"b": bars, "s": " \t", "g": view(">")})
            # (Class "g" is ">" alone, which compaction keeps: no ">", no probe found.)
            add(probes, "bar", literal=b"bg", needs=view(">"))
            add(probes, "bar", literal=b"bsg", needs=view(">"))
            group()
        keyed.append(
            rf"{lt}[ \t]*+(?:{bar}[ \t]*+)?{alt(_CHAT)}{stop}(?:[ \t]*+{bar})?(?:[ \t]*+{gt})?"
        )
        add(probes, "compact", rx=rf"{lt}[{re.escape(bars)}]?{compact_alt(_CHAT)}", needs=view("<"))
        group()
        lb, rb = re.escape(view("[")), re.escape(view("]"))
        keyed.append(rf"{lb}[ \t]*+/?[ \t]*+{alt(_SQUARE)}[ \t]*+{rb}")
        keyed.append(rf"{lt}{lt}[ \t]*+/?{word('sys')}[ \t]*+{gt}{gt}")
        add(probes, "compact", rx=rf"{lb}{compact_alt(_SQUARE)}{rb}", needs=view("["))
        # (A literal holding "<" is looked for only where the compacted view holds one.)
        add(probes, "compact", literal=view("<") + view("<") + view("sys"), needs=view("<"))
        group()
        # <s> and </s> on their own (not <s>struck</s> inside a sentence).
        s_open, s_close = rf"{lt}{word('s')}{gt}", rf"{lt}/{word('s')}{gt}"
        # (The lookbehind after the literal: a regex that starts with a literal is fast.)
        lone_close = rf"{s_close}(?<![^\s>\]]{s_close})" if fast else rf"(?<![^\s>\]]){s_close}"
        keyed.append(rf"{s_open}(?=[\s<\[]|$)|{lone_close}|{s_close}(?=[<\[])")
        add(probes, "view", literal=view("<s>"), needs=view("<"))
        add(probes, "view", literal=view("</s>"), needs=view("<"))
        group()
        # Framing tags.
        tag_tail = rf"{stop}[^<>\n]{{0,80}}+{gt}"
        instructions = rf"[\w-]{{0,40}}_{word('instructions')}"
        keyed.append(rf"{lt}/?[ \t]*+(?:{alt(_TAGS)}|{instructions}){tag_tail}")
        soft = rf"{lt}(?<![\w:.]{lt})" if fast else rf"(?<![\w:.]){lt}"
        keyed.append(rf"{soft}/?[ \t]*+{alt(_SOFT_TAGS)}{tag_tail}")
        add(probes, "compact", rx=rf"{lt}{compact_alt(_TAGS + _SOFT_TAGS)}", needs=view("<"))
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
        # The heading's probe: its words follow its "#" run.  (A role line has no good probe:
        # "a" and "h" are roles, and a colon after a letter is common; it runs with the phrase
        # rule after every newline.)
        heads = sorted({c for w in _HEADINGS for c in spellings(view(w)[0])})
        add(line_probes, "view", rx="#[ \t]*+[" + re.escape("".join(heads)) + "]", needs="#")
        role_rule, heading_rule = line_rules
        # (Each line rule needs a character on the line: an empty line, common between
        # paragraphs, fails at one lookahead instead of entering both rules.)
        for rules, line_group_probes in (
            ([phrase_rule, role_rule], []),
            ([heading_rule], line_probes),
        ):
            line = "|".join(f"(?:{r})" for r in rules)
            self.groups.append(
                _Group(
                    rules,
                    re.compile(f"^(?:{line})", re.M),
                    line_group_probes,
                    re.compile(f"(?=[^\n])(?:{line})", re.M),
                    re.compile(f"\n(?=[^\n])(?:{line})", re.M),
                )
            )
        self.line_rules = [phrase_rule, *line_rules]
        line = "|".join(f"(?:{r})" for r in self.line_rules)
        self.rx = re.compile("|".join([f"(?:{r})" for r in keyed] + [f"(?:^(?:{line}))"]), re.M)
        # The fence's own syntax across line breaks and separators (fully compacted view).
        un, literal_key = re.escape(view("un")), re.escape(view("trusted"))
        rest = (
            rf"(?:{re.escape(view('comment'))}|{re.escape(self.compact(view('checkoutput')))})"
            rf"(?:{'|'.join(re.escape(view(b)) for b in _BOUNDS)})"
        )
        # (Fast: each optional "un" and the opener run's choice as branches that start with a
        # letter or a bracket class, the same matches as written.)
        own = (
            [
                rf"{un}{literal_key}{rest}",
                rf"{literal_key}{rest}",
                rf"{opener}{opener}++(?:{un})?{literal_key}",
                rf"{single}(?:{un})?{literal_key}",
            ]
            if fast
            else [
                rf"(?:{un})?{literal_key}{rest}",
                rf"(?:{opener}{{2,}}+|{single})(?:{un})?{literal_key}",
            ]
        )
        self.cross_rx = re.compile("|".join(own))
        # Whether cross_rx matches, led by its key (every match holds it): the rest of the
        # fence's words after it, or a bracket run or a single bracket (and "un") before it.
        before = [f"{opener}{opener}", single]
        behind = "|".join(f"(?<={b}{u}{literal_key})" for b in before for u in ("", un))
        self.cross_exists = re.compile(rf"{literal_key}(?:{rest}|{behind})")
        self.cross_key = view("trusted")
        self.cross_key_utf8 = self.cross_key.encode("utf-8")
        # A setext heading whose text is a role or instruction word.
        self.setext_rx = re.compile(rf"(?:>[ \t]*+)*+{alt(_HEADINGS)}[ \t]*+{colon}?[ \t]*+")

    def compact(self, text: str) -> str:
        return delete_chars(text, self.sep_ascii, self.sep_others)

    def compact_utf8(self, text: str, raw: bytes) -> bytes:
        """``compact(text)`` in UTF-8, from ``raw``, the UTF-8 of ``text``."""
        return delete_chars_utf8(text, self.sep_ascii, self.sep_others, raw)

    def full_compact(self, text: str) -> str:
        return delete_chars(text, self.sep_ascii + b"\n", self.sep_others)

    def scan(self, text: str) -> _Scan:
        """The view of ``text``, ready for the probes."""
        return _scan_of(self, self.view(text))

    def search(self, text: str) -> bool:
        return self.view_search(self.scan(text))

    def view_search(self, scan: _Scan) -> bool:
        if self.groups_search(scan):
            return True
        return self.cross_search(scan.view, full_utf8=scan.full_compact_utf8)

    def groups_search(self, scan: _Scan) -> bool:
        """Whether a group matches ``scan``'s view, each on the lines its probes choose."""
        for g in self.groups:
            chosen = scan.chosen(g)
            if chosen is not None and g.search(chosen):
                return True
        return False

    def cross_search(self, view: str, full_utf8: bytes | None = None) -> bool:
        """The rules that span lines: the fence's own syntax with line breaks and separators
        removed, and setext role headings (``full_utf8``: the compacted view in UTF-8 without
        line breaks, when it is at hand)."""
        # (The key test only skips the regex: every match holds the key.  A line break inside
        # the key counts too: "trus" at the end of one line, "ted" on the next.  It is made on
        # the UTF-8 bytes, where a deletion is one translate and the key is found where it is
        # found in the text.)
        full = full_utf8
        if full is None:
            full = delete_chars_utf8(view, self.sep_ascii + b"\n", self.sep_others)
        if self.cross_key_utf8 in full:
            text = full.decode("utf-8", "surrogatepass")
            if self.cross_exists.search(text) is not None:
                return True
        return _setext_lines(view, self.setext_rx) != []


_NEWLINE_RE = re.compile("\n")
_UNDERLINE_RE = re.compile(r"\n[ \t]{0,3}+(?:=++|-++)[ \t]*+(?=\n|$)")
# The last "=" or "-" of a line (its end found by a literal-led search), and the whole line.
_UNDERLINE_ENDS = (re.compile(r"=[ \t]*+(?:\n|\Z)"), re.compile(r"-[ \t]*+(?:\n|\Z)"))
_UNDERLINE_LINE_RE = re.compile(r"[ \t]{0,3}+(?:=++|-++)[ \t]*+")


def _setext_lines(view: str, heading: re.Pattern[str]) -> list[int]:
    """Start offsets of the lines that a setext underline makes a role heading (the lines
    before each match of ``_UNDERLINE_RE``, found from the underlines' last characters)."""
    found = set()
    for end_rx in _UNDERLINE_ENDS:
        pos = 0
        while (m := end_rx.search(view, pos)) is not None:
            stop = m.end() - 1 if view[m.end() - 1 : m.end()] == "\n" else m.end()
            pos = max(m.end(), pos + 1)
            start = view.rfind("\n", 0, m.start()) + 1
            if start == 0 or _UNDERLINE_LINE_RE.fullmatch(view, start, stop) is None:
                continue
            above = view.rfind("\n", 0, start - 1) + 1
            if heading.fullmatch(view, above, start - 1) is not None:
                found.add(above)
    return sorted(found)


_CASEFOLD_RULES = _Rules(casefold, casefold_view=True)
_FOLD_RULES = _Rules(fold, casefold_view=False)
_RULES = (_CASEFOLD_RULES, _FOLD_RULES)

_ENTITY_RE = re.compile(
    r"&(?:#[0-9]{1,8}+;?|#[xX][0-9a-fA-F]{1,8}+;?|[A-Za-z][A-Za-z0-9]{1,31}+;?)"
)
# An HTML tag (or a comment) on one line: cut out in the tag-free view.
_TAG_RE = re.compile(r"<[^<>\n]{0,200}+>")


_PRINTABLE_ASCII = bytes([0x09, 0x0A, *range(0x20, 0x7F)])
# Decisions for the characters seen so far: None (forbidden: dropped) or the character.
_INVISIBLE: dict[int, int | None] = {}


def _drop_invisible(text: str) -> str:
    """``text`` without the forbidden code points (what an entity may decode to): one
    translate, with a decision per distinct character."""
    if text.isascii():
        if not text.encode("ascii").translate(None, _PRINTABLE_ASCII):
            return text
        return "".join(c for c in text if c in "\t\n" or " " <= c <= "~")
    for char in set(text):
        cp = ord(char)
        if cp not in _INVISIBLE:
            if len(_INVISIBLE) > 1 << 16:
                _INVISIBLE.clear()
            keep = char in "\t\n" or (cp > 0x7E and not is_forbidden(cp)) or " " <= char <= "~"
            _INVISIBLE[cp] = cp if keep else None
    return text.translate(_INVISIBLE)


def _decode(text: str) -> str:
    return _drop_invisible(html.unescape(text))


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def _own_syntax_reach() -> int:
    """Solid characters (below) that a neighbourhood must hold on each side of a changed range:
    twice the longest compacted run the fence's own syntax across lines needs (the shortest
    match that holds a given character: a bracket pair, "untrusted", a kind and a bound), since
    fold's "rn" to "m" can halve a run of ASCII letters."""
    longest = 0
    for rules in _RULES:
        v, c = rules.view, rules.compact
        kind = max(len(c(v("comment"))), len(c(v("check output"))))
        bound = max(len(c(v(b))) for b in _BOUNDS)
        trusted = len(c(v("un"))) + len(c(v("trusted")))
        longest = max(longest, trusted + kind + bound, 2 + trusted)
    return 2 * longest


_REACH = _own_syntax_reach()
_ALNUM = (string.ascii_letters + string.digits).encode("ascii")
_NOT_ALNUM = bytes(c for c in range(256) if c not in _ALNUM)


def _stop_bytes() -> bytes:
    """The ASCII characters that no match of the fence's own syntax across lines can hold: in
    every view, compacted, each leaves a character that none of the syntax's words or
    brackets has.  A line holding one is never inside such a match."""
    stops = []
    for code in range(0x20, 0x7F):
        char = chr(code)
        if all(
            (kept := r.full_compact(r.view(char)))
            and any(c not in _cross_alphabet(r) for c in kept)
            for r in _RULES
        ):
            stops.append(code)
    return bytes(stops)


def _cross_alphabet(rules: _Rules) -> set[str]:
    words = "untrusted comment check output " + " ".join(_BOUNDS)
    return set(rules.view(words)) | {c for o in _OPENERS for c in rules.view(o) + o}


# The state of a line for _solid in one match: no match, a character that gives 0 (an entity's
# "&", a hidden mark's bracket); group 1 set, a stop character and none of those (_REACH);
# otherwise neither (its letters and digits count).
_ZERO_CHARS = re.escape("&" + MARK_OPEN[0] + MARK_CLOSE)
# (A stop character that also gives 0, "&", is left out of the stop class.)
_STOP_CHARS = re.escape(_stop_bytes().decode("ascii").replace("&", ""))
_SOLID_RE = re.compile(
    f"[^{_ZERO_CHARS}{_STOP_CHARS}]*+(?:([{_STOP_CHARS}])[^{_ZERO_CHARS}]*+)?\\Z"
)


def _solid(text: str, start: int, end: int) -> int:
    """A lower bound of the characters the line ``text[start:end]`` keeps in every view and
    variant once compacted (separators and line breaks removed): its ASCII letters and digits
    (each folds to letters or digits, "rn" to "m" at worst halves them), or 0 when a variant
    may change the line (an entity, a hidden mark's bracket).  A line that no match of the
    fence's own syntax across lines can hold (it has a character of :func:`_stop_bytes`)
    counts as :data:`_REACH`: no such match reaches past it."""
    # Matched in place, once: no slice and no encoding for most lines.
    m = _SOLID_RE.match(text, start, end)
    if m is None:
        return 0
    if m.start(1) >= 0:
        return _REACH
    return len(text[start:end].encode("utf-8", "surrogatepass").translate(None, _NOT_ALNUM))


def _with_neighbours(
    text: str, ranges: list[tuple[int, int]], marks: list[tuple[int, int]] | None = None
) -> list[tuple[int, int]]:
    """Line ranges (sorted, each from a line start to a line end) grown by the line before and
    the line after, merged where they meet: a setext heading and its underline are neighbours,
    so a change on either line is seen with the other one.  Each range grows further, line by
    line, until the lines it gained on that side hold :data:`_REACH` solid characters (or it
    meets the next range, or the text ends): the fence's own syntax may be split over blank
    lines, lines of separators or short lines ("<<<", two blank lines, then the rest), and a
    changed line must be seen with all of it.  A line inside one of ``marks`` (the text's hidden
    marks, which a further variant may cut out) counts as empty.

    Each line is looked at at most once from each side, so many ranges stay linear."""
    size = len(text)
    ends = [e for _, e in marks] if marks else []
    count = len(ends)
    rfind, find = text.rfind, text.find

    def solid(start: int, end: int) -> int:
        if start == end:
            return 0  # (an empty line: no match needed)
        if count:
            i = bisect_right(ends, start)
            if i < count and marks[i][0] < end:  # type: ignore[index]
                return 0
        return _solid(text, start, end)

    out: list[tuple[int, int]] = []
    last = len(ranges) - 1
    for k, (start, end) in enumerate(ranges):
        floor = out[-1][1] if out else -1
        # The line before, then more while the lines gained hold too little; the same after.
        got = 0
        while start > 0 and start - 1 > floor:
            line_start = rfind("\n", 0, start - 1) + 1
            got += solid(line_start, start - 1)
            start = line_start
            if got >= _REACH:
                break
        ceiling = ranges[k + 1][0] if k < last else size + 1
        got = 0
        while end < size and end + 1 < ceiling:
            found = find("\n", end + 1)
            line_end = size if found < 0 else found
            got += solid(end + 1, line_end)
            end = line_end
            if got >= _REACH:
                break
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _visible_lines(text: str, marks: list[tuple[int, int]]) -> str:
    """The visible projection of the lines that hold a hidden mark and of their neighbours,
    ranges that are not neighbours joined by the barrier."""
    return _VisibleLines(text, marks).variant


class _VisibleLines:
    """The visible variant of a text built line by line: its changed lines (the lines that
    hold a mark, marks cut out, runs of them joined by the barrier) at once, the variant (those
    lines with their neighbours) only when asked for.  Every line of the variant that is not a
    changed line is a line of the text as it is, or the barrier.

    Line bounds come from ``find`` and ``rfind``, each over text not scanned before (a line
    end is only looked for past the current one), so many marks on one line stay linear."""

    def __init__(self, text: str, marks: list[tuple[int, int]]) -> None:
        self.text = text
        self.marks = marks
        ranges: list[tuple[int, int]] = []
        changed: list[str] = []
        i = 0
        count = len(marks)
        size = len(text)
        while i < count:
            start = text.rfind("\n", 0, marks[i][0]) + 1
            end = -1
            first = i
            while i < count and (end < 0 or marks[i][0] < end):
                if marks[i][1] > end:
                    found = text.find("\n", marks[i][1])
                    end = size if found < 0 else found
                i += 1
            ranges.append((start, end))
            if changed:
                changed.append(_BARRIER)
            pos = start
            for mark_start, mark_end in marks[first:i]:
                changed.append(text[pos:mark_start])
                pos = mark_end
            changed.append(text[pos:end])
        self.ranges = ranges
        self.changed = "".join(changed)
        self._variant: str | None = None

    @property
    def variant(self) -> str:
        if self._variant is None:
            # One join of every piece, the barrier between ranges.
            text, marks = self.text, self.marks
            count = len(marks)
            parts: list[str] = []
            k = 0
            for start, end in _with_neighbours(text, self.ranges, marks):
                if parts:
                    parts.append(_BARRIER)
                pos = start
                while k < count and marks[k][0] < end:
                    parts.append(text[pos : marks[k][0]])
                    pos = marks[k][1]
                    k += 1
                parts.append(text[pos:end])
            self._variant = "".join(parts)
        return self._variant


# Between lines of a variant that are not neighbours in the text: a line that no rule matches
# and that the rules spanning lines cannot cross (no letter, no separator, not forbidden), so
# that two distant lines ("System" and a later "===") never read as a setext heading.
_BARRIER = "\n\ufffd\n"


def _lines_with(text: str, needle: str, marks: list[tuple[int, int]]) -> str:
    """The lines of ``text`` that hold ``needle`` and their neighbours (``marks``: the hidden
    marks of ``text``), ranges that are not neighbours joined by the barrier."""
    ranges: list[tuple[int, int]] = []
    pos = text.find(needle)
    while pos >= 0:
        ranges.append(_line_bounds(text, pos, pos))
        pos = text.find(needle, ranges[-1][1])
    return _BARRIER.join(text[s:e] for s, e in _with_neighbours(text, ranges, marks))


def _dense(text: str, count: int) -> bool:
    """Whether ``count`` occurrences are on more than half of the lines of ``text`` at most:
    then a variant is built from the whole text (in C) instead of line by line."""
    return count * 2 > text.count("\n") + 1


def _lines_or_whole(text: str, needle: str, marks: list[tuple[int, int]]) -> str:
    """The lines of ``text`` that hold ``needle``, or all of ``text`` when most lines do (the
    other lines are the text's own: a variant with them finds nothing more per line, and the
    rules that span lines see the whole variant)."""
    return text if _dense(text, text.count(needle)) else _lines_with(text, needle, marks)


def _visible(text: str, marks: list[tuple[int, int]]) -> str:
    """The visible projection of the lines that hold a mark (or of the whole text)."""
    if _dense(text, len(marks)):
        return cut_marks(text)
    return _visible_lines(text, marks)


def _variants(text: str) -> list[str | _VisibleLines]:
    """The entity-decoded, visible and tag-free variants, on the lines where they differ (the
    visible one built line by line not made yet)."""
    variants: list[str | _VisibleLines] = []
    marks = mark_spans(text)
    if "&" in text:
        variants.append(_decode(_lines_or_whole(text, "&", marks)))
    if marks:
        if _dense(text, len(marks)):
            visible = cut_marks(text)
            variants.append(visible)
            if "&" in visible:
                variants.append(_decode(visible))
        else:
            lines = _VisibleLines(text, marks)
            variants.append(lines)
            # (Its characters are the text's and the barrier's: no "&" in the text, none in it.)
            if "&" in text and "&" in lines.variant:
                variants.append(_decode(lines.variant))
    if "<" in text and ">" in text:
        tagged = _lines_or_whole(text, "<", marks)
        if _TAG_RE.search(tagged):
            tagless = _TAG_RE.sub("", tagged)
            variants.append(tagless)
            if "&" in tagless:
                variants.append(_decode(tagless))
            if marks:
                tm = mark_spans(tagless)
                if tm:
                    variants.append(_visible(tagless, tm))
    return variants


def find_cross_markers(text: str) -> bool:
    """Whether the rules that span lines (the fence's own syntax over line breaks, setext role
    headings) match ``text``: all that joining marker-free lines can make."""
    return any(r.cross_search(r.view(text)) for r in _RULES)


def find_markers(text: str) -> bool:
    """Whether any view of ``text`` holds a marker shape."""
    scans = []
    for r in _RULES:
        scan = r.scan(text)
        if r.view_search(scan):
            return True
        scans.append(scan)
    # (A variant equal to one already searched finds nothing new: the hidden-cut variant of
    # the tag-free one is often the hidden-cut variant itself.)
    variants: dict[str, None] = {}
    by_lines: list[_VisibleLines] = []
    for variant in _variants(text):
        if isinstance(variant, _VisibleLines):
            by_lines.append(variant)
        elif variant != text:
            variants[variant] = None
    if not variants and not by_lines:
        return False
    for r, scan in zip(_RULES, scans, strict=True):
        # The lines of the views searched so far (none holds a match), a set built only for a
        # variant whose changed lines are not known.
        searched: list[str] = []
        for visible in by_lines:
            lines = r.view(visible.changed).split("\n")
            if _groups_on_lines(r, lines):
                return True
            if _may_cross(r, scan, visible, lines) and r.cross_search(r.view(visible.variant)):
                return True
            searched += lines
        known: set[str] | None = None
        for variant in variants:
            if known is None:
                known = set(scan.lines)
                known.update(searched)
            if _new_lines_search(r, r.view(variant), known):
                return True
    return False


def _groups_on_lines(rules: _Rules, lines: list[str]) -> bool:
    """Whether a group of ``rules`` matches one of ``lines`` (a view's lines).

    For a visible variant built line by line, ``lines`` is the view of its changed lines: the
    views map a text line by line (no character folds to a string holding a line break, and
    "rn" never spans one: a test checks), so the view of any other line of the variant is a
    line of the text's view, which holds no match of a group."""
    return rules.groups_search(_Scan(rules, "\n".join(dict.fromkeys(lines))))


def _blocking(rules: _Rules, chars: set[str]) -> set[str]:
    """The characters of ``chars`` whose view is one character that compaction keeps (no
    separator, no line break) and that the key of the rules across lines does not hold: next
    to a cut, one of them stands in the compacted variant right at the cut.  A hidden mark's
    bracket never does (where two marks touch, it is cut out too)."""
    key = set(rules.cross_key)
    out = set()
    for char in chars:
        if char in (MARK_OPEN[0], MARK_CLOSE):
            continue
        folded = rules.view(char)
        if len(folded) == 1 and folded not in rules.seps and folded != "\n" and folded not in key:
            out.add(char)
    return out


def _may_cross(rules: _Rules, scan: _Scan, visible: _VisibleLines, lines: list[str]) -> bool:
    """Whether the rules across lines may match the view of ``visible``'s variant, when they
    match nothing in ``scan`` (the text's view) and ``lines`` (the view of its changed lines).

    A match of the fence's own syntax holds its key.  The variant's view, compacted, is the
    text's, compacted, on every stretch between two cuts (the views map character by
    character, except fold's "rn" to "m", which the key does not hold), so where the text's
    compacted view lacks the key, a key in the variant's holds the characters on both sides of
    a cut: not so when each cut has a blocking character (:func:`_blocking`) right before or
    right after its mark.  A setext heading's two lines are next to each other in the variant
    only as they are in the text unless one of them is a changed line: not so when no changed
    line reads as a heading or an underline."""
    if any(
        _UNDERLINE_LINE_RE.fullmatch(line) or rules.setext_rx.fullmatch(line)
        for line in dict.fromkeys(lines)
    ):
        return True
    if rules.cross_key_utf8 in scan.full_compact_utf8:
        return True
    text, marks = visible.text, visible.marks
    size = len(text)
    before = [text[s - 1] if s else "\n" for s, _ in marks]
    after = [text[e] if e < size else "\n" for _, e in marks]
    blocking = _blocking(rules, set(before) | set(after))
    if all(map(blocking.__contains__, before)):
        return False
    return not all(b in blocking or a in blocking for b, a in zip(before, after, strict=True))


def _new_lines_search(rules: _Rules, view: str, known: set[str]) -> bool:
    """Whether ``rules`` match ``view`` (a variant's view), given that no rule matches any line
    in ``known`` (lines of views already searched, which it grows by the lines of ``view``).

    Every group's rules match inside one line (the probes choose lines on that ground): a line
    of ``view`` that is in ``known`` holds no match, so the groups run on the other lines only
    (a variant is the lines that hold a mark, a tag or an entity and their neighbours, which
    are the text's own lines).  The rules that span lines see the whole view."""
    if rules.cross_search(view):
        return True
    new = [line for line in dict.fromkeys(view.split("\n")) if line not in known]
    if not new:
        return False
    known.update(new)
    return rules.groups_search(_Scan(rules, "\n".join(new)))


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
                entity = m.group()
                decoded = _decode_entity(entity)
                if decoded == entity:
                    # (Not an entity: its characters map one for one, as in _entity_edits.)
                    units += [(c, pos + m.start() + i, pos + m.start() + i + 1)
                              for i, c in enumerate(entity)]  # fmt: skip
                else:
                    units.append((decoded, pos + m.start(), pos + m.end()))
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


_LONG_SCAN = 4096
# The scans of the last few long views: the rewrite asks for the views that detection has
# just scanned (the same text, the same view), and gets their compacted forms, shapes and
# probed lines without a second pass.
_RECENT_SCANS: list[_Scan] = registered([])


def _scan_of(rules: _Rules, view: str) -> _Scan:
    if len(view) < _LONG_SCAN:
        return _Scan(rules, view)
    for scan in _RECENT_SCANS:
        if scan.rules is rules and (scan.view is view or scan.view == view):
            return scan
    scan = _Scan(rules, view)
    _RECENT_SCANS[:] = [scan, *_RECENT_SCANS[:3]]
    return scan


def _view_matches(rules: _Rules, view: str) -> list[tuple[int, int]]:
    """Every match of ``rules`` in ``view``, by group: a group's regex runs only on the lines
    where its probes are found (the same split as :meth:`_Rules.search`)."""
    scan = _scan_of(rules, view)
    spans = [span for group in rules.groups for span in scan.spans(group)]
    return [(s, e) for s, e in spans if e > s]


# An edit of a chunk: its span and what the view reads there instead (tags and hidden marks
# are cut out, entities decoded).
_Edit = tuple[int, int, str]


def _direct_spans(chunk: str, edits: list[_Edit], rules: _Rules) -> list[tuple[int, int]] | None:
    """The matches of ``rules`` in the view of ``chunk`` with ``edits`` made (sorted, disjoint),
    mapped back by segment offsets, when the view maps the edited text character for character
    (None otherwise: the caller maps unit by unit).  A match that starts or ends in an edit's
    replacement covers the whole edit."""
    if not edits:
        return _matches_one_for_one(chunk, rules)
    if not any(map(itemgetter(2), edits)):
        # Cuts only: the kept segments lie between the edits.
        cut = _Cut(chunk, edits)
        found = _matches_one_for_one(cut.joined, rules)
        return cut.back(found) if found else found
    # (offset in the edited text, start and end in chunk, kept as it is)
    segments: list[tuple[int, int, int, bool]] = []
    parts: list[str] = []
    pos = total = 0
    for s, e, replacement in edits:
        if s > pos:
            segments.append((total, pos, s, True))
            parts.append(chunk[pos:s])
            total += s - pos
        if replacement:
            segments.append((total, s, e, False))
            parts.append(replacement)
            total += len(replacement)
        pos = e
    if pos < len(chunk):
        segments.append((total, pos, len(chunk), True))
        parts.append(chunk[pos:])
    found = _matches_one_for_one("".join(parts), rules)
    if not found:
        return found
    offsets = [seg[0] for seg in segments]
    out = []
    for s, e in found:
        offset, start, _, kept = segments[bisect_right(offsets, s) - 1]
        first = start + s - offset if kept else start
        offset, start, end, kept = segments[bisect_right(offsets, e - 1) - 1]
        out.append((first, start + e - offset if kept else end))
    return out


class _Cut:
    """A text with sorted, disjoint spans cut out (touching allowed): the kept segments lie
    between the spans, joined; :meth:`back` maps matches in the joined text to the text."""

    def __init__(self, text: str, cuts: list[tuple[int, int]] | list[_Edit]) -> None:
        self.kept_starts = [0, *map(itemgetter(1), cuts)]
        kept_ends = [*map(itemgetter(0), cuts), len(text)]
        self.joined = "".join(map(text.__getitem__, map(slice, self.kept_starts, kept_ends)))
        self._kept_ends = kept_ends

    def back(self, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``found`` (spans of the joined text) as spans of the text.  Some segments are
        empty: a position maps to the last segment starting at or before it, which is the
        non-empty one.  Every step is a map of a C function, not a Python step per cut or per
        match."""
        offsets = list(accumulate(map(sub, self._kept_ends, self.kept_starts), initial=0))
        # shift[k + 1]: what turns an offset in segment k into a position in the text.
        shift = [0, *map(sub, self.kept_starts, offsets)]
        starts = list(map(itemgetter(0), found))
        ends = list(map(itemgetter(1), found))
        at_start = list(map(bisect_right, repeat(offsets), starts))
        lasts = list(map(sub, ends, repeat(1)))
        # (A span's last character usually lies in its first character's segment, that is,
        # before the next segment's offset: then the ends need no search of their own.)
        if all(map(lt, lasts, map(offsets.__getitem__, at_start))):
            at_end = at_start
        else:
            at_end = list(map(bisect_right, repeat(offsets), lasts))
        return list(
            zip(
                map(add, starts, map(shift.__getitem__, at_start)),
                map(add, ends, map(shift.__getitem__, at_end)),
                strict=True,
            )
        )


def _matches_one_for_one(joined: str, rules: _Rules) -> list[tuple[int, int]] | None:
    """The matches of ``rules`` in the view of ``joined`` when the view maps it character for
    character (None otherwise)."""
    if rules.view is fold:
        # (Only an ASCII text can map one for one: the test comes before the view is built.)
        if not joined.isascii():
            return None
        view = fold(joined)
        if view != joined.encode("ascii").translate(ASCII_FOLD_BYTES).decode("ascii"):
            return None
        return _view_matches(rules, view)
    view = rules.view(joined)
    if len(view) != len(joined):
        return None  # casefold never shortens: equal length means one for one
    return _view_matches(rules, view)


@lru_cache(maxsize=4096)
def _decode_entity(entity: str) -> str:
    return _decode(entity)


def _entity_edits(text: str) -> list[_Edit]:
    """The entities of ``text`` that decode to something else, as edits."""
    if "&" not in text:
        return []
    edits = []
    for m in _ENTITY_RE.finditer(text):
        entity = m.group()
        decoded = _decode_entity(entity)
        if decoded != entity:
            edits.append((m.start(), m.end(), decoded))
    return edits


def _decoded(skip: list[tuple[int, int]], entities: list[_Edit]) -> list[_Edit]:
    """The edits of ``skip`` (cut out) and of the entities outside it (decoded)."""
    kept: list[_Edit] = []
    k = 0
    for s, e, decoded in entities:
        while k < len(skip) and skip[k][1] <= s:
            k += 1
        if k < len(skip) and skip[k][0] < e:
            continue  # inside (or across) a cut: the cut wins
        kept.append((s, e, decoded))
    return sorted([(s, e, "") for s, e in skip] + kept)


def _chunk_spans(chunk: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    found: list[tuple[int, int]] = []
    entities = _entity_edits(chunk)
    for skip in _skips(chunk, marks):
        direct = [_direct_spans(chunk, [(s, e, "") for s, e in skip], r) for r in _RULES]
        if all(d is not None for d in direct):
            found += [span for d in direct if d is not None for span in d]
            if not entities:
                continue  # (an "&" that is no entity decodes to itself)
            decoded = [_direct_spans(chunk, _decoded(skip, entities), r) for r in _RULES]
            if all(d is not None for d in decoded):
                found += [span for d in decoded if d is not None for span in d]
                continue
        for decode in (True,) if all(d is not None for d in direct) else (False, True):
            if decode and not entities:
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
    merged = merge(spans)
    # No replacement overlaps a mark (each ends before the next starts, touching allowed):
    # checked in C, instead of a bisect per replacement.
    flat = list(chain.from_iterable(sorted(merged + marks)))
    if all(map(le, flat, islice(flat, 1, None))):
        return merged
    return _expand_walk(merged, marks)


def _expand_walk(
    merged: list[tuple[int, int]], marks: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """:func:`_expand` of merged spans, span by span."""
    ends = [me for _, me in marks]
    out = []
    for s, e in merged:
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
    line.  What they miss (entity-decoded variants, expanding views) the line pass finds.

    The spans are those of :func:`_direct_spans` over the edits of every variant (each cut,
    and each again with the entities outside it decoded), in another order and with fewer
    repeats (the rewrite merges them): a cut is joined once for both views, and a span both
    views find is mapped back once."""
    spans: list[tuple[int, int]] = []
    skips = _skips(text, marks)
    # (The same cuts give the same matches: cutting tags and marks is cutting the marks alone
    # when every tag is inside a mark.)
    distinct: list[list[tuple[int, int]]] = []
    for skip in skips:
        if skip not in distinct:
            distinct.append(skip)
    for skip in distinct:
        if not skip:
            for rules in _RULES:
                spans += _matches_one_for_one(text, rules) or []
            continue
        cut = _Cut(text, skip)
        found: list[tuple[int, int]] = []
        for rules in _RULES:
            found += _matches_one_for_one(cut.joined, rules) or []
        if found:
            spans += cut.back(list(dict.fromkeys(found)))
    entities = _entity_edits(text)
    if entities:
        decoded_lists: list[list[_Edit]] = []
        for skip in distinct:
            edits = _decoded(skip, entities)
            # (No entity outside the cut: the cut-only list, done above.)
            if len(edits) > len(skip) and edits not in decoded_lists:
                decoded_lists.append(edits)
        for edits in decoded_lists:
            for rules in _RULES:
                spans += _direct_spans(text, edits, rules) or []
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
    # Every variant detection looks at (hidden marks or tags cut out, entities decoded): a
    # heading "System<!-- x -->" over "===" is one in the visible variant only.
    for skip in _skips(text, marks):
        for decode in (False, True) if "&" in text else (False,):
            units = _units(text, skip, decode)
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
                    spans.append((starts[p], ends[(line_end if line_end >= 0 else len(out)) - 1]))
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
