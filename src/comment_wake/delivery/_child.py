"""The command publisher's contract without running anything: which environment a child
gets and what its exit statuses mean.  The registry checks a binding against these rules
without importing the publisher (anyio) itself."""

from __future__ import annotations

from collections.abc import Collection, Mapping

__all__ = [
    "CHILD_ENV",
    "EXIT_BUSY",
    "EXIT_DELIVERED",
    "EXIT_GONE",
    "EXIT_REFUSED",
    "WITHHELD_ENV",
    "child_env_allows",
    "child_environment",
]

EXIT_DELIVERED = 0
"""A command publisher's exit status for delivered."""
EXIT_BUSY = 75  # EX_TEMPFAIL
"""A command publisher's exit status for busy (EX_TEMPFAIL)."""
EXIT_GONE = 69  # EX_UNAVAILABLE
"""A command publisher's exit status for gone (EX_UNAVAILABLE)."""
EXIT_REFUSED = 78  # EX_CONFIG
"""A command publisher's exit status for refused (EX_CONFIG)."""


CHILD_ENV: tuple[str, ...] = (
    # the session
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TZ",
    "TMPDIR",
    # the locale
    "LANG",
    "LANGUAGE",
    "LC_*",
    # the XDG base directories
    "XDG_*",
    # proxies and CA bundles, in both spellings tools read
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    # comment-wake's settings that hold no secret
    "COMMENT_WAKE_STATE_DIR",
    "COMMENT_WAKE_CONFIG",
    "COMMENT_WAKE_INBOX",
    "COMMENT_WAKE_SESSION_ID",
    # the agents' own settings
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_*",
    "ANTHROPIC_*",
    "OPENAI_*",
    # where tmux finds its server (the tmux recipe)
    "TMUX",
    "TMUX_TMPDIR",
)
"""The daemon's environment variables a command publisher's child gets (``NAME_*``: every
name with that prefix); any other variable is withheld unless the binding names it
(``--env NAME``), and ``WITHHELD_ENV`` never passes."""

WITHHELD_ENV = frozenset(
    {
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "GH_ENTERPRISE_TOKEN",
        "GITHUB_ENTERPRISE_TOKEN",
        "COMMENT_WAKE_WEBHOOK_SECRET",
    }
)
"""The daemon's own secrets (its GitHub token variables, the webhook secret's default
variable): a command publisher's child never sees them, and no binding may pass them."""

_EXACT = frozenset(n for n in CHILD_ENV if not n.endswith("*"))
_PREFIXES = tuple(n[:-1] for n in CHILD_ENV if n.endswith("*"))


def child_env_allows(name: str) -> bool:
    """Whether ``CHILD_ENV`` passes ``name`` to a command publisher's child."""
    return name not in WITHHELD_ENV and (name in _EXACT or name.startswith(_PREFIXES))


def child_environment(
    environ: Mapping[str, str],
    *,
    extra: Collection[str] = (),
    withhold: Collection[str] = (),
) -> dict[str, str]:
    """The part of ``environ`` a command publisher's child gets: the names ``CHILD_ENV``
    allows and the ``extra`` names a binding adds, never ``WITHHELD_ENV`` or ``withhold``
    (the daemon's other secrets)."""
    return {
        k: v
        for k, v in environ.items()
        if (child_env_allows(k) or k in extra) and k not in WITHHELD_ENV and k not in withhold
    }
