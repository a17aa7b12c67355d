"""The webhook signature: HMAC-SHA256 over ``timestamp + "." + raw body`` (pure)."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime

__all__ = ["SIGNATURE_PREFIX", "sign", "verify_signature"]

SIGNATURE_PREFIX = "sha256="
DEFAULT_TOLERANCE = 300  # seconds a receiver accepts between its clock and the timestamp


def _secret_bytes(secret: str | bytes) -> bytes:
    return secret.encode("utf-8") if isinstance(secret, str) else secret


def sign(secret: str | bytes, timestamp: int | str, body: bytes) -> str:
    """The ``X-Comment-Wake-Signature-256`` value: ``sha256=<hex>``."""
    message = str(timestamp).encode("ascii") + b"." + body
    digest = hmac.new(_secret_bytes(secret), message, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify_signature(
    secret: str | bytes,
    timestamp: str | int,
    body: bytes,
    signature: str,
    now: datetime | float,
    tolerance: int = DEFAULT_TOLERANCE,
) -> bool:
    """True when ``signature`` signs ``timestamp`` and the raw ``body`` with ``secret`` and
    ``timestamp`` (Unix seconds) is within ``tolerance`` seconds of ``now``.

    For receivers: pass the two headers as received and the body bytes exactly as read,
    before any JSON parsing.  The comparison is constant-time.
    """
    ts = str(timestamp)
    if not ts.isascii() or not ts.isdigit() or len(ts) > 12:
        return False
    current = now.timestamp() if isinstance(now, datetime) else float(now)
    if abs(current - int(ts)) > tolerance:
        return False
    expected = sign(secret, ts, body)
    return hmac.compare_digest(expected.encode("ascii"), signature.encode("utf-8", "replace"))
