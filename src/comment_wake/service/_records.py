"""Decision records: what the daemon decided about each comment, with the evidence, in the store.

Every decision the wake core makes is kept as an application record (one namespace per
pull request, ``comment-wake/decisions/HOST/owner/name#N`` in lower case, keyed
``COMMENT/TIME/OUTCOME``) so ``comment-wake explain`` and ``status`` can answer from the
store alone.  A record carries what the rules used: the comment's author and kind as the
badge listed them, the permission answer (or the failed lookup) with its time, the own-post
matcher's explanation
(in ``own_post``, and in ``detail`` when it stopped the comment; it names the transcript
file and line, never the comment's text), and the PR's rate-limit state.
The service builds them from what the step itself read and commits them in the step's
own transaction, with the mark and the notices: a decision is never stored without its
evidence, nor evidence without its decision.  The daemon's periodic prune deletes them
with everything else after ``prune_after``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

import msgspec

from comment_wake.wake import WakeConfig, WakeMark, release_at
from review_monitor import LookupFailed, PermissionAnswer, PrRef

__all__ = [
    "DECISIONS",
    "DecisionRecord",
    "PermissionEvidence",
    "RateEvidence",
    "decode_record",
    "encode_record",
    "latest_by_comment",
    "namespace_of",
    "permission_evidence",
    "pr_of_namespace",
    "rate_evidence",
    "record_key",
]

DECISIONS = "comment-wake/decisions/"
"""The prefix of every decision namespace."""


class PermissionEvidence(msgspec.Struct, frozen=True):
    """The permission answer a decision used: GitHub's answer, or why there was none."""

    login: str
    permission: str | None  # None: the lookup failed
    role_name: str | None = None
    trusted: bool = False
    checked_at: datetime | None = None
    failure: str | None = None  # the failed lookup's status and reason


class RateEvidence(msgspec.Struct, frozen=True):
    """The PR's rate-limit state right after the decision."""

    wakes_in_hour: int
    per_hour: int
    wakes_in_day: int
    per_day: int
    held: int
    held_until: datetime | None
    next_wake_at: datetime | None  # when the next wake may go; None: now


class DecisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One decision about one comment or review, with its evidence."""

    at: datetime
    host: str
    pr: str  # owner/name#N
    comment: str  # the GraphQL node id
    outcome: str  # wake, held, retry, skip, drop
    reason: str
    detail: str = ""
    database_id: int | None = None
    kind: str | None = None  # comment or review
    created_at: datetime | None = None
    author: str | None = None
    author_type: str | None = None
    viewer_did_author: bool | None = None
    permission: PermissionEvidence | None = None
    rate: RateEvidence | None = None
    worker: str | None = None
    notice_key: str | None = None
    own_post: str | None = None  # the own-post matcher's explanation, when it judged it
    # The names of the trust rules the comment passed, in order (``Decision.rules``);
    # empty in a record an earlier build wrote (see ``explain.has_trace``).
    rules: tuple[str, ...] = ()


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(DecisionRecord)


def encode_record(record: DecisionRecord) -> bytes:
    return _encoder.encode(record)


def decode_record(blob: bytes) -> DecisionRecord | None:
    """The record, or None for a value this build cannot read (skipped, never fatal)."""
    try:
        return _decoder.decode(blob)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def namespace_of(pr: PrRef) -> str:
    """The application-record namespace of a PR's decision records: its names with an
    ASCII case fold (GitHub's names are case-insensitive; the records keep the spelling)."""
    host, owner, name, number = pr.key
    return f"{DECISIONS}{host}/{owner}/{name}#{number}"


def pr_of_namespace(namespace: str) -> PrRef | None:
    if not namespace.startswith(DECISIONS):
        return None
    host, _, ref = namespace[len(DECISIONS) :].partition("/")
    try:
        return PrRef.parse(ref, host=host)
    except ValueError:
        return None


def _stamp(t: datetime) -> str:
    # Fixed width, so a comment's keys sort by time.
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def record_key(record: DecisionRecord) -> str:
    return f"{record.comment}/{_stamp(record.at)}/{record.outcome}"


def permission_evidence(answer: PermissionAnswer | LookupFailed) -> PermissionEvidence:
    if isinstance(answer, PermissionAnswer):
        return PermissionEvidence(
            login=answer.login,
            permission=answer.permission,
            role_name=answer.role_name,
            trusted=answer.trusted,
            checked_at=answer.checked_at,
        )
    status = "no answer" if answer.status is None else f"HTTP {answer.status}"
    return PermissionEvidence(login=answer.login, permission=None, failure=status)


def rate_evidence(
    mark: WakeMark, config: WakeConfig, now: datetime, *, bots: bool = False
) -> RateEvidence:
    """The rate-limit state of a PR from its wake mark, at ``now``: people's windows, or
    (``bots``) the trusted bots' own."""
    wakes = mark.bot_wakes if bots else mark.wakes
    in_hour = sum(1 for w in wakes if now - config.wake_hour_window < w <= now)
    in_day = sum(1 for w in wakes if now - config.wake_day_window < w <= now)
    release = release_at(wakes, config, bots=bots)
    return RateEvidence(
        wakes_in_hour=in_hour,
        per_hour=config.bot_wakes_per_hour if bots else config.wakes_per_hour,
        wakes_in_day=in_day,
        per_day=config.bot_wakes_per_day if bots else config.wakes_per_day,
        held=len(mark.held),
        held_until=mark.held_until,
        next_wake_at=release if release is not None and release > now else None,
    )


def latest_by_comment(records: Iterable[DecisionRecord]) -> Mapping[str, DecisionRecord]:
    """Each comment's latest record."""
    out: dict[str, DecisionRecord] = {}
    for r in records:
        old = out.get(r.comment)
        if old is None or old.at <= r.at:
            out[r.comment] = r
    return out
