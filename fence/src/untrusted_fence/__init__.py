"""untrusted-fence: show an AI agent what a reader on GitHub sees of untrusted text, inside a
fence the text cannot close, imitate or hide things in (docs/fence.md).

- :func:`render` renders a text as GitHub does into a :class:`View`: the visible text as light
  Markdown, every fragment no reader sees inside :data:`HIDDEN_OPEN` ... :data:`HIDDEN_CLOSE`,
  cleaned, free of markers.  :func:`plain` does the same for a text that is not Markdown.
- :func:`fence` cuts a view (or renders a string) and fences it with a fresh nonce.
- :func:`is_blank` is the seed's cheap raw check, safe on anyone's text; :func:`shows_nothing`
  renders.  :func:`one_line` is for titles.

Importing the package imports nothing: each name is loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._chars import is_forbidden, is_unassigned
    from ._clean import WHITESPACE, is_blank
    from ._fence import DEFAULT_MAX_CHARS, NONCE_HEX_DIGITS, Fenced, Kind, fence, one_line
    from ._markers import REPLACEMENT as MARKER_REPLACEMENT
    from ._markers import has_marker, holds_marker
    from ._render import View, clean, plain, render, shows_nothing
    from ._settle import HIDDEN_CLOSE, HIDDEN_OPEN
    from ._tables import UNICODE_VERSION

__all__ = [
    "DEFAULT_MAX_CHARS",
    "HIDDEN_CLOSE",
    "HIDDEN_OPEN",
    "MARKER_REPLACEMENT",
    "NONCE_HEX_DIGITS",
    "UNICODE_VERSION",
    "WHITESPACE",
    "Fenced",
    "Kind",
    "View",
    "clean",
    "fence",
    "has_marker",
    "holds_marker",
    "is_blank",
    "is_forbidden",
    "is_unassigned",
    "one_line",
    "plain",
    "render",
    "shows_nothing",
]

# Each public name, by the private module that holds it (MARKER_REPLACEMENT is REPLACEMENT there).
_MODULES = {
    "_chars": ("is_forbidden", "is_unassigned"),
    "_clean": ("WHITESPACE", "is_blank"),
    "_fence": ("DEFAULT_MAX_CHARS", "NONCE_HEX_DIGITS", "Fenced", "Kind", "fence", "one_line"),
    "_markers": ("MARKER_REPLACEMENT", "has_marker", "holds_marker"),
    "_render": ("View", "clean", "plain", "render", "shows_nothing"),
    "_settle": ("HIDDEN_CLOSE", "HIDDEN_OPEN"),
    "_tables": ("UNICODE_VERSION",),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'untrusted_fence' has no attribute {name!r}")
    own_name = "REPLACEMENT" if name == "MARKER_REPLACEMENT" else name
    value = getattr(importlib.import_module(f".{module}", __name__), own_name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
