"""Raw HTML read the way GitHub's renderer and a browser read it.

GitHub passes raw HTML through cmark-gfm verbatim (its tag filter escapes a few tag names),
parses the whole page with an HTML5 parser and keeps what its sanitizer allows.  This module
holds the parts the fence needs: the WHATWG tokenizer's states for the extent of each token
(data, tag open, end tag open, tag name, the attribute states, self-closing start tag, markup
declaration open, comment start / comment / comment end and their dash and bang states,
bogus comment, DOCTYPE read as a bogus comment, CDATA outside foreign content as a bogus
comment), the script and style text that the sanitizer removes, and the sanitizer's allowlist
as data.

The tokenizer only finds where tokens start and end; it never builds values.  Each state is
one regex step or one ``str.find``, and every step moves forward, so a scan is linear.  Input
is the raw text with CR already turned into LF (CR still counts as whitespace here, as the
tokenizer's preprocessing makes it LF).  End of file: a tag cut by it is dropped (nothing of
it shows), a comment cut by it is emitted (it still shows nothing); both reach ``stop``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "ALLOWED_ELEMENTS",
    "REMOVED_WITH_CONTENT",
    "TAG_FILTERED",
    "Token",
    "ascii_lower",
    "attribute_names",
    "factored",
    "raw_text_end",
    "shows",
    "tag_filtered",
    "token_at",
    "tokens",
]


def factored(words: list[str]) -> str:
    """A regex alternation of ``words`` (tag names: no character that needs escaping), factored
    by their first characters (the same strings): the engine tries one branch per character
    instead of every word."""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[:1], []).append(word[1:])
    branches = []
    for head, rests in sorted(heads.items()):
        if head:
            tail = factored(rests)
            branches.append(head + (f"(?:{tail})?" if "" in rests else f"(?:{tail})") * bool(tail))
    return "|".join(branches)


# GitHub's sanitizer allowlist: the elements of html-pipeline's SanitizationFilter ALLOWLIST
# (gjtorikian/html-pipeline, lib/html/pipeline/sanitization_filter.rb, the filter GitHub's
# own pipeline was published as).  Any other element is removed and its text content kept;
# attributes never show as text (an allowed one only changes how the element renders).
ALLOWED_ELEMENTS = frozenset(
    {
        "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a",
        "pre", "code", "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table",
        "thead", "tbody", "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var",
        "hr", "ruby", "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary", "details",
        "caption", "figure", "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small",
        "span", "time", "wbr",
    }
)  # fmt: skip
# Elements removed together with their content: the same filter's ``remove_contents``
# (script); style too, whose text no reader sees either (marking more rather than less).
REMOVED_WITH_CONTENT = frozenset({"script", "style"})
# cmark-gfm's tagfilter extension (GitHub Flavored Markdown spec, "Disallowed Raw HTML"):
# it turns the "<" of these tags into "&lt;", so they show as literal text.
TAG_FILTERED = frozenset(
    {"title", "textarea", "style", "xmp", "iframe", "noembed", "noframes", "script", "plaintext"}
)

START, END, COMMENT, BOGUS, DOCTYPE = "start", "end", "comment", "bogus", "doctype"

# Whitespace inside a tag (TAB, LF, FF, SPACE; CR is LF after preprocessing).  VT is not.
_WS = "\t\n\f\r "
_NAME_RE = re.compile(r"[^\t\n\f\r />]*+")
# From after the tag name to the ">" (or the end): the before / after attribute name,
# attribute name, before attribute value, attribute value (double-quoted, single-quoted,
# unquoted), after attribute value (quoted) and self-closing start tag states.  An attribute
# name may start with "=" (before attribute name state); a quote that is never closed runs to
# the end, where the tag is dropped.
_BODY_RE = re.compile(
    r"(?:[\t\n\f\r /]++"
    r"|(?:=[^\t\n\f\r />=]*+|[^\t\n\f\r />=]++)"
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+(?:"|\Z)|'[^']*+(?:'|\Z)|[^\t\n\f\r >]*+))?"""
    r")*+"
)
_ATTR_NAME_RE = re.compile(
    r"(=?[^\t\n\f\r />=]*+)"
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+(?:"|\Z)|'[^']*+(?:'|\Z)|[^\t\n\f\r >]*+))?"""
)
_COMMENT_END_RE = re.compile(r"--!?+>")
# cmark-gfm's tag filter: "<", an optional "/", the name in any case, then a space, TAB, LF,
# CR, ">" or "/>" (its isspace has no VT or FF).
_FILTER_RE = re.compile(
    r"</?+(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)(?:[ \t\n\r>]|/>)",
    re.I,
)
# The end of script or style text (the "appropriate end tag"), once the tag filter has
# escaped the forms it knows: only FF or a "/" not followed by ">" is left after the name.
_RAW_END_RE = {name: re.compile(rf"</{name}(?:\f|/(?!>))", re.I) for name in REMOVED_WITH_CONTENT}
_ATTRIBUTE_RE = re.compile(r"[^\t\n\f\r /]")
# The next "<" that is not an allowed element's plain tag ("<b>", "</div>"), which shows as
# it is: the data state skips those in one search (ASCII case only, as HTML folds it).
_NOT_PLAIN_RE = re.compile(
    "<(?!/?+(?:" + "|".join(sorted(ALLOWED_ELEMENTS, key=len, reverse=True)) + ")>)",
    re.I | re.A,
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(name: str) -> str:
    """``name`` with ASCII upper-case letters lowered (HTML folds no other letters)."""
    return name.translate(_ASCII_LOWER)


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind (``start``, ``end``, ``comment``, ``bogus``, ``doctype``), its
    span, a tag's lower-cased name and where its attributes start, whether it has any, and
    whether it was closed (False: the end cut it; ``end`` is then ``stop``)."""

    kind: str
    start: int
    end: int
    name: str = ""
    body: int = 0
    has_attributes: bool = False
    closed: bool = True


def tag_filtered(text: str, pos: int) -> bool:
    """Whether cmark-gfm's tag filter escapes the ``<`` at ``pos`` (it then shows as text)."""
    return _FILTER_RE.match(text, pos) is not None


def shows(token: Token) -> bool:
    """Whether the sanitizer lets a tag token render without hiding anything of its own
    source: an allowed element's tag with no attributes.  Comments never show."""
    if token.kind not in (START, END) or not token.closed:
        return False
    return token.name in ALLOWED_ELEMENTS and not token.has_attributes


def attribute_names(text: str, token: Token) -> list[str]:
    """The lower-cased attribute names of a tag token."""
    names: list[str] = []
    pos, stop = token.body, token.end - 1 if token.closed else token.end
    while pos < stop:
        if text[pos] in _WS or text[pos] == "/":
            pos += 1
            continue
        m = _ATTR_NAME_RE.match(text, pos, stop)
        assert m is not None  # the pattern matches at least the first character
        names.append(ascii_lower(m.group(1)))
        pos = max(m.end(), pos + 1)
    return names


def _tag(text: str, lt: int, name_at: int, kind: str, stop: int) -> Token:
    name_end = _NAME_RE.match(text, name_at, stop)
    assert name_end is not None  # the pattern can match empty
    body = _BODY_RE.match(text, name_end.end(), stop)
    assert body is not None
    end = body.end()
    has_attributes = _ATTRIBUTE_RE.search(text, name_end.end(), end) is not None
    name = ascii_lower(name_end.group())
    if end < stop and text[end] == ">":
        return Token(kind, lt, end + 1, name, name_end.end(), has_attributes)
    return Token(kind, lt, stop, name, name_end.end(), has_attributes, closed=False)


def _until_gt(text: str, lt: int, search_from: int, kind: str, stop: int) -> Token:
    gt = text.find(">", search_from, stop)
    if gt < 0:
        return Token(kind, lt, stop, closed=False)
    return Token(kind, lt, gt + 1)


def _comment(text: str, lt: int, stop: int) -> Token:
    # Comment start state: ">" closes at once ("<!-->"), and so does "->" ("<!--->").
    at = lt + 4
    if text.startswith(">", at, stop):
        return Token(COMMENT, lt, at + 1)
    if text.startswith("->", at, stop):
        return Token(COMMENT, lt, at + 2)
    # The comment and comment end states: the first "-->" or "--!>" closes.
    m = _COMMENT_END_RE.search(text, at, stop)
    if m is None:
        return Token(COMMENT, lt, stop, closed=False)
    return Token(COMMENT, lt, m.end())


def _markup(text: str, lt: int, stop: int) -> Token:
    """The markup declaration open state (``<!`` at ``lt``)."""
    if text.startswith("--", lt + 2, stop):
        return _comment(text, lt, stop)
    if ascii_lower(text[lt + 2 : min(lt + 9, stop)]) == "doctype":
        return _until_gt(text, lt, lt + 9, DOCTYPE, stop)
    # "[CDATA[" outside foreign content, and anything else: a bogus comment.
    return _until_gt(text, lt, lt + 2, BOGUS, stop)


def _one(text: str, lt: int, stop: int) -> Token | None:
    """The token that the ``<`` at ``lt`` opens (tag open state), or None when it is text."""
    nxt = text[lt + 1] if lt + 1 < stop else ""
    if nxt.isascii() and nxt.isalpha():
        return _tag(text, lt, lt + 1, START, stop)
    if nxt == "!":
        return _markup(text, lt, stop)
    if nxt == "?":
        return _until_gt(text, lt, lt + 2, BOGUS, stop)
    if nxt == "/":
        # End tag open state.
        after = text[lt + 2] if lt + 2 < stop else ""
        if after.isascii() and after.isalpha():
            return _tag(text, lt, lt + 2, END, stop)
        if after == ">":
            return Token(END, lt, lt + 3)  # "</>": dropped, nothing shows
        if not after:
            return None  # "</" at the end is text
        return _until_gt(text, lt, lt + 2, BOGUS, stop)
    return None


def token_at(text: str, lt: int, stop: int | None = None) -> Token | None:
    """The token that the ``<`` at ``lt`` opens, read up to ``stop`` (None: it is text)."""
    return _one(text, lt, len(text) if stop is None else stop)


def tokens(text: str, pos: int = 0, stop: int | None = None) -> Iterator[Token]:
    """The tokens of ``text[pos:stop]`` read from the data state, in order (text between
    them is character data).  A tag that cmark-gfm's tag filter escapes is text.  After a
    script or style start tag the text up to its end tag is one ``bogus`` token (removed
    with its content); an end that never comes runs to ``stop``."""
    stop = len(text) if stop is None else stop
    while (found := _NOT_PLAIN_RE.search(text, pos, stop)) is not None:
        lt = found.start()
        if tag_filtered(text, lt):
            pos = lt + 1
            continue
        token = _one(text, lt, stop)
        if token is None:
            pos = lt + 1
            continue
        yield token
        pos = token.end
        if token.kind == START and token.closed and token.name in REMOVED_WITH_CONTENT:
            raw = raw_text_end(text, pos, stop, token.name)
            yield Token(BOGUS, pos, stop if raw < 0 else raw, closed=raw >= 0)
            pos = stop if raw < 0 else raw


def raw_text_end(text: str, pos: int, stop: int, name: str) -> int:
    """Where script or style text that starts at ``pos`` ends, or -1 when it runs to
    ``stop``.  A comment opener inside it (the script data escaped states) can move the end
    later: it runs to ``stop`` then too (marking more rather than less)."""
    end = _RAW_END_RE[name].search(text, pos, stop)
    if end is None or text.find("<!--", pos, end.start()) >= 0:
        return -1
    return end.start()
