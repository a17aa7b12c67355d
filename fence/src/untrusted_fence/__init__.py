"""untrusted-fence: clean untrusted text and wrap it in a fence it cannot close or imitate.

- :func:`fence` cleans a text and fences it with a fresh nonce (:class:`Fenced`).
- :func:`clean` is the cleaned body alone (idempotent); :func:`shows_nothing` says whether
  anything visible is left; :func:`visible_text` and :func:`hidden_regions` split it the way a
  GitHub reader sees it.  :func:`is_blank` is the cheap raw check (only white space and
  invisible characters), safe to run on any commenter's text.
- :data:`MARKER_REPLACEMENT` is what every marker shape is rewritten to; hidden regions are
  wrapped in :data:`HIDDEN_OPEN` ... :data:`HIDDEN_CLOSE`.
- Unicode decisions use the pinned tables (:data:`UNICODE_VERSION`), never the interpreter's.
"""

from ._chars import is_forbidden, is_unassigned
from ._clean import (
    WHITESPACE,
    clean,
    hidden_regions,
    is_blank,
    one_line,
    shows_nothing,
    visible_text,
)
from ._fence import DEFAULT_MAX_CHARS, NONCE_HEX_DIGITS, Fenced, Kind, fence
from ._hidden import MARK_CLOSE as HIDDEN_CLOSE
from ._hidden import MARK_OPEN as HIDDEN_OPEN
from ._markers import REPLACEMENT as MARKER_REPLACEMENT
from ._markers import find_markers as has_marker
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
    "clean",
    "fence",
    "has_marker",
    "hidden_regions",
    "is_blank",
    "is_forbidden",
    "is_unassigned",
    "one_line",
    "shows_nothing",
    "visible_text",
]
