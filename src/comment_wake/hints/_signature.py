"""GitHub's delivery signature: ``X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>``."""

from __future__ import annotations

import hashlib
import hmac
import re

__all__ = ["github_signature", "is_signature_shaped", "verify_github_signature"]

_PREFIX = "sha256="
_SHAPE = re.compile(r"sha256=[0-9a-fA-F]{64}")


def github_signature(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for ``body`` signed with ``secret``."""
    return _PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def is_signature_shaped(header: str | None) -> bool:
    """True when ``header`` looks like a SHA-256 signature (checked before reading a body)."""
    return header is not None and _SHAPE.fullmatch(header) is not None


def verify_github_signature(secret: bytes, body: bytes, header: str | None) -> bool:
    """True when ``header`` signs exactly ``body`` with ``secret``.

    Anything malformed (absent, another prefix, not 64 hex digits, an empty secret) is
    False, never an exception.  The digests are compared in constant time.
    """
    if not secret or not is_signature_shaped(header):
        return False
    assert header is not None  # is_signature_shaped checked it
    expected = hmac.new(secret, body, hashlib.sha256).hexdigest().encode("ascii")
    given = header[len(_PREFIX) :].lower().encode("ascii")
    return hmac.compare_digest(expected, given)
