"""Which pull request a webhook delivery is about (pure).

A delivery is only a hint to poll a PR soon, so only the repository, the number and the
host are read, each checked strictly; nothing else in the payload (bodies, logins,
states) is read or kept, because the poll that follows reads everything from the API.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from review_monitor import PrRef

__all__ = ["HINT_EVENTS", "Verdict", "classify_delivery", "matching_watch", "pr_of_delivery"]

HINT_EVENTS = frozenset(
    {"issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment"}
)
"""The events that hint at activity on a pull request."""

_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")
_MAX_NUMBER = 9_999_999_999  # PrRef's text form allows ten digits
_MAX_URL = 2048


class Verdict(enum.Enum):
    """A delivery that names no pull request to poll."""

    NOT_A_PR = "not about a pull request"  # ping, other events, a comment on an issue
    MALFORMED = "malformed payload"  # the fields read have the wrong shape


def _number(value: object) -> int | None:
    # bool is an int in Python; a forged ``true`` must not read as PR #1.
    if type(value) is not int or not 1 <= value <= _MAX_NUMBER:
        return None
    return value


def _host(html_url: object, full_name: str) -> str | None:
    """The host of ``https://HOST/owner/name``, when the URL names exactly that repository."""
    if not isinstance(html_url, str) or not html_url.isascii() or len(html_url) > _MAX_URL:
        return None
    if any(c.isspace() or not c.isprintable() for c in html_url):
        return None
    try:
        parts = urlsplit(html_url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("https", "http") or parts.username is not None:
        return None
    if parts.password is not None or parts.query or parts.fragment:
        return None
    hostname = parts.hostname
    if hostname is None or _HOST.fullmatch(hostname) is None:
        return None
    if parts.path != f"/{full_name}":
        return None
    return hostname if port is None else f"{hostname}:{port}"


def _repository(payload: Mapping[str, object]) -> tuple[str, str, str] | None:
    repo = payload.get("repository")
    if not isinstance(repo, Mapping):
        return None
    full_name = repo.get("full_name")
    if not isinstance(full_name, str) or full_name.count("/") != 1:
        return None
    owner, name = full_name.split("/")
    if _OWNER.fullmatch(owner) is None or _NAME.fullmatch(name) is None:
        return None
    if name in (".", ".."):
        return None
    host = _host(repo.get("html_url"), full_name)
    if host is None:
        return None
    return owner, name, host


def _pr_number(event: str, payload: Mapping[str, object]) -> int | Verdict:
    if event == "issue_comment":
        issue = payload.get("issue")
        if not isinstance(issue, Mapping):
            return Verdict.MALFORMED
        number = _number(issue.get("number"))
        if number is None:
            return Verdict.MALFORMED
        marker = issue.get("pull_request")
        if marker is None:
            return Verdict.NOT_A_PR  # a comment on a plain issue
        return number if isinstance(marker, Mapping) else Verdict.MALFORMED
    pull = payload.get("pull_request")
    if not isinstance(pull, Mapping):
        return Verdict.MALFORMED
    number = _number(pull.get("number"))
    if number is None:
        return Verdict.MALFORMED
    # ``pull_request`` deliveries repeat the number at the top; two numbers must agree.
    if "number" in payload and _number(payload["number"]) != number:
        return Verdict.MALFORMED
    return number


def classify_delivery(event: str, payload: Mapping[str, object]) -> PrRef | Verdict:
    """The PR a delivery of ``event`` hints at, or why there is none."""
    if event not in HINT_EVENTS:
        return Verdict.NOT_A_PR
    number = _pr_number(event, payload)
    if isinstance(number, Verdict):
        return number
    repo = _repository(payload)
    if repo is None:
        return Verdict.MALFORMED
    owner, name, host = repo
    return PrRef(owner=owner, name=name, number=number, host=host)


def pr_of_delivery(event: str, payload: Mapping[str, object]) -> PrRef | None:
    """The PR to poll for a delivery of ``event`` (the ``X-GitHub-Event`` header), or None.

    None for ``ping`` and other events, for a comment on a plain issue, and for any payload
    whose repository, number or host has the wrong shape.  Never raises on a forged payload.
    """
    verdict = classify_delivery(event, payload)
    return verdict if isinstance(verdict, PrRef) else None


def matching_watch(pr: PrRef, watched: Iterable[PrRef]) -> PrRef | None:
    """The watched PR that ``pr`` names, ignoring case in the owner, name and host.

    GitHub names are case-insensitive: a binding written ``octo/repo#3`` must still
    receive the hint of a delivery that spells the repository ``Octo/Repo``.
    """
    key = (pr.host.casefold(), pr.owner.casefold(), pr.name.casefold(), pr.number)
    for candidate in watched:
        if key == (
            candidate.host.casefold(),
            candidate.owner.casefold(),
            candidate.name.casefold(),
            candidate.number,
        ):
            return candidate
    return None
