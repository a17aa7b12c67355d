"""The little HTTP/1.1 this listener speaks (pure): parse a request head, write an answer.

Deliberately strict, because a lenient parser is where request smuggling lives: lines end
in CRLF only, no folded headers, no control characters, one ``Content-Length`` and no
``Transfer-Encoding`` (GitHub and ``gh webhook forward`` always send a length), one
request per connection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MAX_HEAD", "HttpError", "RequestHead", "parse_head", "render_answer"]

MAX_HEAD = 16 * 1024  # bytes of request line and headers
_MAX_HEADERS = 100
_METHOD = re.compile(rb"[A-Z]{1,16}")
_TARGET = re.compile(rb"/[\x21-\x7e]{0,2047}")
_VERSION = re.compile(rb"HTTP/([0-9])\.([0-9])")
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
_BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
# Headers whose repetition would make the request ambiguous.
_SINGLE = frozenset(
    {
        "content-length",
        "content-type",
        "expect",
        "host",
        "transfer-encoding",
        "x-github-delivery",
        "x-github-event",
        "x-hub-signature-256",
    }
)

_REASONS = {
    100: "Continue",
    202: "Accepted",
    204: "No Content",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    417: "Expectation Failed",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
    505: "HTTP Version Not Supported",
}


class HttpError(Exception):
    """The head cannot be served: answer ``status``; ``note`` is a fixed phrase for logs."""

    def __init__(self, status: int, note: str) -> None:
        super().__init__(f"{status}: {note}")
        self.status = status
        self.note = note


@dataclass(frozen=True)
class RequestHead:
    method: str
    target: str
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


def parse_head(raw: bytes) -> RequestHead:
    """Parse the request line and headers (``raw`` without the final blank line)."""
    if len(raw) > MAX_HEAD:
        raise HttpError(431, "head too large")
    lines = raw.split(b"\r\n")
    if any(b"\r" in line or b"\n" in line for line in lines):
        raise HttpError(400, "bare CR or LF")
    request_line, header_lines = lines[0], lines[1:]
    parts = request_line.split(b" ")
    if len(parts) != 3:
        raise HttpError(400, "malformed request line")
    method, target, version = parts
    if _METHOD.fullmatch(method) is None or _TARGET.fullmatch(target) is None:
        raise HttpError(400, "malformed request line")
    m = _VERSION.fullmatch(version)
    if m is None:
        raise HttpError(400, "malformed request line")
    if m[1] != b"1":
        raise HttpError(505, "unsupported HTTP version")
    if len(header_lines) > _MAX_HEADERS:
        raise HttpError(431, "too many headers")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, colon, value = line.partition(b":")
        if not colon or _TOKEN.fullmatch(name) is None:
            raise HttpError(400, "malformed header")  # also a folded line (starts with SP)
        value = value.strip(b" \t")
        if _BAD_VALUE.search(value):
            raise HttpError(400, "control character in a header")
        key = name.decode("ascii").lower()
        text = value.decode("latin-1")
        if key in headers:
            if key in _SINGLE:
                raise HttpError(400, f"repeated {key} header")
            text = f"{headers[key]}, {text}"
        headers[key] = text
    return RequestHead(
        method=method.decode("ascii"), target=target.decode("ascii"), headers=headers
    )


def render_answer(status: int, extra: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A complete answer with a short fixed body; every connection closes after one."""
    reason = _REASONS[status]
    if status == 100:
        return b"HTTP/1.1 100 Continue\r\n\r\n"
    body = b"" if status == 204 else f"{status} {reason}\n".encode("ascii")
    lines = [f"HTTP/1.1 {status} {reason}", "Connection: close"]
    if status != 204:
        lines += ["Content-Type: text/plain; charset=utf-8", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body
