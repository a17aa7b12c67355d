"""The walk: GitHub's sanitized HTML tree to the pieces of the worker's view.

A piece is ``(kind, text)``:

- ``text``: what a reader sees (``cell``: the same in a table, where ``|`` is escaped);
- ``code``: a code block's or inline code's text, verbatim;
- ``markup``: the writer's light Markdown for structure (list markers, headings' ``#``, fences,
  table pipes, line breaks with their quote and list prefixes), which a reader sees as such;
- ``inline``: its inline markup (``**``, ``~~``, ``<sup>``, backticks, a link's brackets),
  which a reader does not see as text;
- ``hidden``: a raw fragment no reader sees (a comment, an attribute, script text);
- ``target``: a link's href or an image's src that the sanitizer keeps;
- ``open`` and ``close``: around the content of a collapsed ``<details>``.

The walk is iterative: a text nests as deep as the guards allow, deeper than Python's
recursion limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ._allowlist import BLOCKS, CMARK_ATTRIBUTES, ELEMENTS, REMOVED_WITH_CONTENT, shown_target

__all__ = ["Piece", "siblings", "text_of", "walk"]

Piece = tuple[str, str]

# Inline elements that change meaning, written as light Markdown or as their tag.
_WRAPS = {
    "em": ("*", "*"), "i": ("*", "*"), "strong": ("**", "**"), "b": ("**", "**"),
    "del": ("~~", "~~"), "s": ("~~", "~~"), "strike": ("~~", "~~"),
    "sup": ("<sup>", "</sup>"), "sub": ("<sub>", "</sub>"), "ins": ("<ins>", "</ins>"),
    "kbd": ("<kbd>", "</kbd>"), "q": ('"', '"'),
}  # fmt: skip
# Containers whose white-space-only text is layout between blocks, not text.
_LAYOUT = frozenset(
    {"ul", "ol", "table", "thead", "tbody", "tfoot", "tr", "blockquote", "section", "details", "dl"}
)
_SPACE = " \t\n\r\f"  # HTML's white space: what a browser collapses (not U+2028 or U+00A0)
_HTML_SPACE_RE = re.compile("[ \t\n\r\f]+")
_BACKTICKS_RE = re.compile("`+")
_RUNS = {"`": _BACKTICKS_RE, "~": re.compile("~+")}


@dataclass
class _Writer:
    notes: str  # the name of the render's note attribute
    texts: Sequence[str]
    pieces: list[Piece] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    counters: list[int | None] = field(default_factory=list)  # per list: next number, or None
    at_line_start: bool = True
    pending: int = 0  # 1: a line break before the next output, 2: a blank line
    outer: int = 0  # how many prefixes the blank line keeps: those open where it was asked
    fresh: bool = False  # right after a list marker or a heading's "#": no break before content
    code: int = 0  # inside <pre>
    inline_code: int = 0
    cells: int = 0

    def emit(self, kind: str, text: str) -> None:
        if self.texts and self.notes in text:
            # A note whose tag the text swallowed (into an attribute value, a comment): its
            # own texts there in a hidden fragment, else nothing.
            swallowed = self._swallowed if kind == "hidden" else ""
            text = re.sub(rf" {self.notes}=([0-9_]+)", swallowed, text)
        if not text:
            return
        if self.pending and kind != "close":
            pending, self.pending = self.pending, 0
            if self.pieces:
                self.newline(blank=pending == 2)
            elif self.prefixes:
                self.pieces.append(("markup", "".join(self.prefixes)))
        if self.cells and kind == "text":
            kind = "cell"
        self.pieces.append((kind, text))
        if kind != "hidden":
            self.at_line_start = False
            self.fresh = False

    def _swallowed(self, note: re.Match[str]) -> str:
        return " ".join(self.texts[int(n)] for n in note.group(1).split("_"))

    def newline(self, blank: bool = False) -> None:
        if self.pieces and self.pieces[-1][0] in ("text", "cell"):
            kind, text = self.pieces[-1]
            self.pieces[-1] = (kind, text.rstrip(" "))
        if blank:  # (between two blocks: inside the containers both are in)
            self.pieces.append(("markup", "\n" + "".join(self.prefixes[: self.outer]).rstrip()))
        self.pieces.append(("markup", "\n" + "".join(self.prefixes)))
        self.at_line_start = True

    def breaks(self, level: int) -> None:
        """A line break (1) or a blank line (2) before whatever comes next."""
        if not self.fresh:
            self.outer = min(self.outer, len(self.prefixes)) if self.pending else len(self.prefixes)
            self.pending = max(self.pending, level)

    def text(self, node: LexborNode) -> None:
        raw = node.text_content or ""
        if self.code:
            for i, line in enumerate(raw.split("\n")):
                if i:
                    self.newline()
                self.emit("code", line)
            return
        if self.inline_code:
            self.emit("code", raw.replace("\n", " "))
            return
        text = raw.strip(_SPACE)
        if not text:
            parent = node.parent
            layout = parent is None or parent.tag in _LAYOUT
            if raw and not (layout or self.at_line_start or self.pending or self.fresh):
                self.emit("text", " ")
            return
        text = _HTML_SPACE_RE.sub(" ", text)
        after_space = self.at_line_start or (self.pieces and self.pieces[-1][1][-1:] == " ")
        if raw[0] in _SPACE and not after_space and not self.pending:
            text = " " + text
        if raw[-1] in _SPACE:
            text += " "
        self.emit("text", text)


# A handler writes an element: what comes before its content, then ``yield``s the nodes to walk
# (its children, usually), then writes what comes after them.  A plain function walks nothing.
Steps = Iterator[list[LexborNode]]
Handler = Callable[[LexborNode, str, str | None, _Writer], Steps | None]


def walk(first: LexborNode | None, notes: str = "", texts: Sequence[str] = ()) -> list[Piece]:
    """The pieces of the fragment whose first top-level node is ``first``.  An attribute named
    ``notes`` is a note the render put in: its value numbers the ``texts`` it hides."""
    w = _Writer(notes or "\0", texts)
    stack: list[LexborNode | Steps] = [*reversed(siblings(first))]
    while stack:
        item = stack.pop()
        steps = _enter(item, w) if isinstance(item, LexborNode) else item
        if steps is None:
            continue
        nodes = next(steps, None)
        if nodes is not None:  # walk the nodes, then resume the handler
            stack.append(steps)
            stack.extend(reversed(nodes))
    return w.pieces


def siblings(first: LexborNode | None) -> list[LexborNode]:
    """``first`` and its following siblings, in document order."""
    nodes = []
    while first is not None:
        nodes.append(first)
        first = first.next
    return nodes


def text_of(node: LexborNode) -> str:
    """The text of ``node``'s descendants, in order.  (selectolax's ``text(deep=True)`` of
    a fragment's first node reads on into its siblings.)"""
    parts = []
    stack = [node.child] if node.child is not None else []
    while stack:
        current = stack.pop()
        if current.next is not None:
            stack.append(current.next)
        if current.tag == "-text":
            parts.append(current.text_content or "")
        elif current.child is not None:
            stack.append(current.child)
    return "".join(parts)


def _attributes(node: LexborNode, tag: str, w: _Writer, skip: tuple[str, ...] = ()) -> str | None:
    """Emit every attribute no reader sees as hidden; return the shown link target, if any."""
    target = None
    for name, value in node.attributes.items():
        value = value or ""
        if name in skip:
            continue
        if name == w.notes:  # the render's note: the texts it puts back, hidden
            for number in value.split("_"):
                w.emit("hidden", w.texts[int(number)])
            continue
        if target is None and name in ("href", "src") and shown_target(tag, name, value):
            target = value
            continue
        rule = CMARK_ATTRIBUTES.get(name)
        if rule is None or not rule.fullmatch(value):
            w.emit("hidden", f'{name}="{value}"' if value else name)
    return target


def _enter(node: LexborNode, w: _Writer) -> Steps | None:
    tag = node.tag
    if tag == "-text":
        w.text(node)
    elif tag == "-comment":
        # (CDATA parses as a comment too.)  A comment's data never holds "-->", so its
        # serialisation ends at the first one (a fragment's first node serialises its
        # following siblings with it).
        serialised = node.html or ""
        w.emit("hidden", serialised[: serialised.find("-->", 4) + 3])
    elif tag is None:
        w.emit("hidden", node.html or "")  # a processing instruction (a bogus comment)
    elif tag.startswith("-"):
        pass  # a doctype: a fragment parse drops it (the render's pre-pass hides it)
    elif tag in REMOVED_WITH_CONTENT or tag == "rp":  # <rp>: only browsers without ruby show it
        _attributes(node, tag, w)
        w.emit("hidden", text_of(node))
    elif tag == "template":
        _attributes(node, tag, w)  # the sanitizer drops them with the tag: no reader sees them
        return _template(node)
    elif tag == "img":
        _image(node, w)
    else:
        target = _attributes(node, tag, w)
        handler = _HANDLERS.get(tag, _plain) if tag in ELEMENTS else _plain
        return handler(node, tag, target, w)
    return None


_TEMPLATE_TAG_RE = re.compile(r"<(/?)template\b", re.I)


def _template(node: LexborNode) -> Steps:
    """The parser keeps a template's content apart; the sanitizer unwraps it (shown).  Its
    HTML: the template's serialisation up to its own end tag (a fragment's first node
    serialises its following siblings with it)."""
    html = node.html or ""
    end = len(html)
    depth = 0
    for m in _TEMPLATE_TAG_RE.finditer(html):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            end = m.start()
            break
    yield siblings(LexborHTMLParser(html[html.find(">") + 1 : end], is_fragment=True).root)


def _plain(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    """A block on lines of its own, an inline wrapper, or an element the sanitizer unwraps."""
    if tag in BLOCKS:
        w.breaks(2)
        yield siblings(node.child)
        w.breaks(2)
    elif tag in _WRAPS and tag in ELEMENTS and not (w.code or w.inline_code):
        before, after = _WRAPS[tag]
        w.emit("inline", before)
        yield siblings(node.child)
        w.emit("inline", after)
    else:
        yield siblings(node.child)


def _image(node: LexborNode, w: _Writer) -> None:
    src = node.attributes.get("src") or ""
    alt = node.attributes.get("alt") or ""
    if shown_target("img", "src", src) and not w.code:
        w.emit("inline", "![")
        w.emit("hidden", alt)
        w.emit("inline", "](")
        w.emit("target", src)
        w.emit("inline", ")")
        _attributes(node, "img", w, skip=("src", "alt"))
    else:
        _attributes(node, "img", w)


def _link(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    if node.attributes.get("class") == "footnote-backref":
        return  # cmark-gfm's "↩" back to the reference
    if target is None:
        yield siblings(node.child)
        return
    # In a code block a link's syntax would read as text: its target follows it.
    w.emit("inline", "" if w.code else "[")
    yield siblings(node.child)
    w.emit("inline", " <" if w.code else "](")
    w.emit("target", target)
    w.emit("inline", ">" if w.code else ")")


def _sup(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    if node.attributes.get("class") == "footnote-ref":
        w.emit("markup", f"[^{text_of(node).strip()}]")
    else:
        yield from _plain(node, tag, target, w)


def _heading(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(2)
    if tag not in ("h7", "h8"):  # allowed, but no browser knows them: a block of text
        w.emit("markup", "#" * int(tag[1]) + " ")
        w.fresh = True
    yield siblings(node.child)
    w.fresh = False  # an empty heading: what follows is no part of it
    w.breaks(2)


def _quote(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(2)
    w.prefixes.append("> ")
    yield siblings(node.child)
    w.prefixes.pop()
    w.breaks(2)


def _list(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(1 if w.counters else 2)  # a list in a list item starts on the next line
    start = node.attributes.get("start") or "1"
    w.counters.append(None if tag == "ul" else int(start) if start.isdigit() else 1)
    yield siblings(node.child)
    w.counters.pop()
    w.breaks(2)


def _item(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    number = w.counters[-1] if w.counters else None
    if number is None:
        mark = "- "
    else:
        mark = f"{number}. "
        w.counters[-1] = number + 1
    w.breaks(1)
    w.emit("markup", mark)
    w.fresh = True
    w.prefixes.append(" " * len(mark))
    box = node.child  # a task box is written here; its <input> writes nothing
    if box is not None and box.tag == "input" and box.attributes.get("type") == "checkbox":
        w.emit("markup", "[x] " if "checked" in box.attributes else "[ ] ")
        w.fresh = True
    yield siblings(node.child)
    w.prefixes.pop()
    w.fresh = False  # an empty item: what follows starts on a line of its own
    w.breaks(1)


def _code_block(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(2)
    lang = node.attributes.get("lang") or ""
    # Backticks, or tildes when the info word holds a backtick (a backtick fence's cannot).
    mark = "~" if "`" in lang else "`"
    w.emit("markup", mark * 3)  # made longer than any run inside when the block ends
    start = len(w.pieces) - 1
    w.emit("code", lang)
    w.newline()
    w.code += 1
    yield siblings(node.child)
    w.code -= 1
    runs = [len(m) for k, t in w.pieces[start:] if k == "code" for m in _RUNS[mark].findall(t)]
    fence = mark * max(3, max(runs, default=0) + 1)
    w.pieces[start] = ("markup", fence)
    if not w.at_line_start:
        w.newline()
    w.emit("markup", fence)
    w.breaks(2)


def _inline_code(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    if w.code:
        yield siblings(node.child)
        return
    w.emit("inline", "`")
    start = len(w.pieces) - 1
    w.inline_code += 1
    yield siblings(node.child)
    w.inline_code -= 1
    texts = [t for k, t in w.pieces[start + 1 :] if k == "code"]
    runs = [len(m) for t in texts for m in _BACKTICKS_RE.findall(t)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if texts and (texts[0].startswith("`") or texts[-1].endswith("`")) else ""
    w.pieces[start] = ("inline", ticks + pad)
    w.emit("inline", pad + ticks)


def _table_row(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(1)
    w.emit("markup", "|")
    cells = siblings(node.child)
    yield cells
    if node.parent is not None and node.parent.tag == "thead":
        w.newline()
        w.emit("markup", "|" + " --- |" * sum(c.tag in ("td", "th") for c in cells))
    w.breaks(1)


def _cell(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.emit("markup", " ")
    w.cells += 1
    yield siblings(node.child)
    w.cells -= 1
    w.emit("markup", " |")


def _details(node: LexborNode, tag: str, target: str | None, w: _Writer) -> Steps:
    w.breaks(2)
    children = siblings(node.child)
    if "open" in node.attributes:
        yield children
    else:  # collapsed: the first <summary> child shows; the rest is one click away
        summary = next((c for c in children if c.tag == "summary"), None)
        if summary is not None:
            yield [summary]
        w.emit("open", "\u27e6collapsed: ")
        yield [c for c in children if c is not summary]
        if w.pending:  # after a block (a code fence): on a line of its own
            w.pending = 0
            w.newline()
        w.emit("close", "\u27e7")
    w.breaks(2)


def _line_break(node: LexborNode, tag: str, target: str | None, w: _Writer) -> None:
    w.newline()


def _rule(node: LexborNode, tag: str, target: str | None, w: _Writer) -> None:
    w.breaks(2)
    w.emit("markup", "---")
    w.breaks(2)


_HANDLERS: dict[str, Handler] = {
    "a": _link, "sup": _sup, "blockquote": _quote, "ul": _list, "ol": _list, "li": _item,
    "pre": _code_block, "code": _inline_code, "tr": _table_row, "td": _cell, "th": _cell,
    "details": _details, "br": _line_break, "hr": _rule,
    **{f"h{n}": _heading for n in range(1, 9)},
}  # fmt: skip
