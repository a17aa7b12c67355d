"""Body normalisation and GitHub permalink extraction (pure)."""

from __future__ import annotations

import hashlib
import re

import msgspec

__all__ = ["LinkRef", "body_hash", "find_links", "normalise_body", "parse_link"]


class LinkRef(msgspec.Struct, frozen=True, order=True):
    """A permalink naming one issue comment, review or review comment.

    ``kind`` is ``issuecomment``, ``pullrequestreview`` or ``discussion_r``; ``item`` is the
    database id. Two links name the same item when host, kind and item agree.
    """

    host: str
    owner: str
    name: str
    number: int
    kind: str
    item: int
    section: str = "pull"  # "pull" or "issues", as printed

    @property
    def url(self) -> str:
        kind = self.kind if self.kind == "discussion_r" else f"{self.kind}-"
        path = f"{self.owner}/{self.name}/{self.section}/{self.number}"
        return f"https://{self.host}/{path}#{kind}{self.item}"

    @property
    def identity(self) -> tuple[str, str, int]:
        return (self.host.lower(), self.kind, self.item)


# The host must end right before the path: "github.com.evil.example/..." has no "/" after
# "github.com", so it never matches. The owner/name character sets are GitHub's.
_LINK = re.compile(
    r"https://(?P<host>[A-Za-z0-9.-]+)/(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+)"
    r"/(?P<section>pull|issues)/(?P<number>[0-9]{1,10})(?:/files|/changes)?"
    r"#(?P<kind>issuecomment-|pullrequestreview-|discussion_r)(?P<item>[0-9]{1,20})(?![0-9])"
)
_HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$")


def _link(m: re.Match[str]) -> LinkRef | None:
    host = m["host"].lower()
    if not _HOST.match(host) or host.startswith("api."):
        return None
    return LinkRef(
        host=host,
        owner=m["owner"],
        name=m["name"],
        number=int(m["number"]),
        kind=m["kind"].rstrip("-"),
        item=int(m["item"]),
        section=m["section"],
    )


def find_links(text: str) -> tuple[LinkRef, ...]:
    """Every distinct comment, review or review-comment permalink in ``text``, in order."""
    if "#" not in text:
        return ()
    seen: set[tuple[str, str, int]] = set()
    out: list[LinkRef] = []
    for m in _LINK.finditer(text):
        link = _link(m)
        if link is not None and link.identity not in seen:
            seen.add(link.identity)
            out.append(link)
    return tuple(out)


def parse_link(url: str) -> LinkRef | None:
    """The permalink ``url`` names, or ``None`` when it is not exactly one permalink."""
    m = _LINK.fullmatch(url.strip())
    return None if m is None else _link(m)


def normalise_body(text: str) -> str:
    """Trim and collapse every run of whitespace (line breaks included) to one space."""
    return " ".join(text.split())


def body_hash(text: str) -> str:
    """A short stable digest of the normalised body; the state keeps this, never the text."""
    return hashlib.sha256(normalise_body(text).encode("utf-8")).hexdigest()[:32]
