"""What a webhook URL may be, and how it is shown: the rules the registry checks at
``bind`` and the publisher keeps, without the publisher's HTTP client.

A URL is written to the store, shown by ``list`` and named in errors and log lines, so it
must not carry a credential: the notices are signed with the secret ``--secret-env``
names instead.  A credential in the user part (``https://user:pass@host``) or in a query
or fragment parameter whose name says so (``?token=``, ``?access_token=``, ``#token=``,
``?api_key=``, ``?sig=`` ...) is refused; ``safe_url`` drops all three parts for display.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

__all__ = ["safe_url", "webhook_url_problem"]

# A parameter name that says it holds a credential: the whole name, or its last part
# after ``_`` or ``-`` (``access_token``, ``x-api-key``), never a word that merely ends so
# (``monkey``).
_CREDENTIAL_NAME = re.compile(
    r"(?:^|.*[_-])(?:token|secret|pass|password|passwd|pwd|key|apikey|auth|authorization"
    r"|credential|credentials|sig|signature|jwt|session)$"
)


def safe_url(url: str) -> str:
    """``url`` without its user part, query or fragment: what may be shown or logged."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def webhook_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a webhook's URL, or None.  The message never quotes the
    credential it found, only where it is."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        return "a webhook url must be http(s)://host/path"
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        return "a webhook url must be http(s)://host/path"
    if parts.username is not None or parts.password is not None:
        return (
            "a webhook url must not carry credentials (user:password@); the notices are "
            "signed with the secret --secret-env names"
        )
    for where, piece in (("query", parts.query), ("fragment", parts.fragment)):
        for name, _ in parse_qsl(piece, keep_blank_values=True):
            if _CREDENTIAL_NAME.fullmatch(name.lower()):
                return (
                    f"a webhook url must not carry a credential: its {where} has {name}=...; "
                    "the url is stored and shown, so drop it: the notices are signed with "
                    "the secret --secret-env names, which the receiver checks instead"
                )
    return None
