"""GitHub's sanitizer allowlist, as data: html-pipeline 2.14's ``SanitizationFilter``
(lib/html/pipeline/sanitization_filter.rb), the last public version of the filter GitHub's
pipeline was built on, plus ``input`` for the task list's checkboxes.

An element outside :data:`ELEMENTS` is unwrapped: the element goes, its content stays (and
shows).  :data:`REMOVED_WITH_CONTENT` go with their content.  Attributes never show as text;
the only ones that change what a reader sees are a link's target, an image's source, a
``<details>``'s ``open``, an ``<ol>``'s ``start``, a ``<pre>``'s ``lang`` (the highlighting
named by a code block's first info word) and a checkbox's ``checked``.
"""

from __future__ import annotations

import re

__all__ = ["BLOCKS", "CMARK_ATTRIBUTES", "ELEMENTS", "REMOVED_WITH_CONTENT", "shown_target"]

ELEMENTS = frozenset(
    {
        "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a",
        "pre", "code", "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table",
        "thead", "tbody", "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var",
        "hr", "ruby", "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary", "details",
        "caption", "figure", "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "span",
        "time", "wbr", "input",
    }
)  # fmt: skip
REMOVED_WITH_CONTENT = frozenset({"script", "style"})

# Elements that start a line of their own in the view (a browser lays them out as blocks).
BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "caption", "center", "dd", "details",
        "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
        "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "header", "hgroup", "hr", "li",
        "listing", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul",
    }
)  # fmt: skip

# The protocols each target may use (":relative" is a URL without a scheme).
_PROTOCOLS = {
    ("a", "href"): ("http", "https", "mailto", "github-windows", "github-mac", "x-github-client"),
    ("img", "src"): ("http", "https"),
}
# A scheme as the sanitizer reads one: letters, digits and "+-." before the first ":" that
# comes before any "/", "?" or "#".
_SCHEME_RE = re.compile(r"([^/?#:]*):")

# Attributes cmark-gfm writes itself: structure, not content of the comment.  A value that
# matches is neither shown nor hidden (a footnote's id repeats its label, which the footnote
# definition's hidden mark already carries).
CMARK_ATTRIBUTES: dict[str, re.Pattern[str]] = {
    "data-sourcepos": re.compile(r"\d+:\d+-\d+:\d+"),
    "lang": re.compile(r"[^\s]*"),
    "align": re.compile(r"left|center|right"),
    "type": re.compile(r"checkbox"),
    "checked": re.compile(r""),
    "disabled": re.compile(r""),
    "start": re.compile(r"-?\d+"),
    "open": re.compile(r""),
    "class": re.compile(r"footnotes|footnote-ref|footnote-backref|task-list-item"),
    "id": re.compile(r"fn(?:ref)?-.*"),
    "data-footnotes": re.compile(r""),
    "data-footnote-ref": re.compile(r""),
    "data-footnote-backref": re.compile(r""),
    "data-footnote-backref-idx": re.compile(r"\d+(?:-\d+)?"),
    "aria-label": re.compile(r"Back to reference \d+(?:-\d+)?"),
}


def shown_target(tag: str, name: str, value: str) -> bool:
    """Whether the sanitizer keeps ``value`` as ``tag``'s link target or image source."""
    allowed = _PROTOCOLS.get((tag, name))
    if allowed is None:
        return False
    m = _SCHEME_RE.match(value)
    return m is None or m.group(1).lower() in allowed
