"""``comment-wake explain PR COMMENT`` (or ``explain COMMENT_URL``): the outcome and its
reason, then each rule in order, with its verdict and the evidence the daemon recorded
when it decided (pure, over the decision records).

The rules are the wake core's table (``comment_wake.wake.RULES``); which of them a
comment passed is the trace its decision recorded (``DecisionRecord.rules``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

from comment_wake.service import DecisionRecord, decode_record, describe_gap, namespace_of
from comment_wake.store import CommentOutcome, read_records
from comment_wake.wake import RULES as TRUST_RULES
from comment_wake.wake import FloodGap
from review_monitor import PrRef
from review_monitor.store import SyncStore

if TYPE_CHECKING:
    from comment_wake.registry import TranscriptReach

__all__ = [
    "COMMENT_URL_FORMS",
    "RULES",
    "Explanation",
    "RuleLine",
    "comment_query",
    "comment_target",
    "explain_comment",
    "explain_records",
    "find_records",
    "has_trace",
    "headline",
    "own_posts_matter",
    "render",
]

# The wake core's trust rules, in its order, then the rate limit that a comment passing
# them all meets.  Each line: the rule's name, the reasons that stop a comment there and
# what passing it means.
RATE_LIMIT = "rate-limit"
RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    *((rule.name, tuple(rule.reasons), rule.passes) for rule in TRUST_RULES),
    (RATE_LIMIT, ("rate-limit",), "the PR's rate limit allows a wake"),
)
_BEFORE_RULES = {
    "baseline": "it was already there when the PR was first watched (the baseline)",
    "flood-gap": "a flood pushed it out of the listing before it could be read",
}
# What the trigger rules' stops mean (docs/trust-rules.md, "Trigger modes").
_TRIGGER_STOPS = {
    "skip-marker": "its first non-blank line starts with the skip marker ([wake] skip_marker)",
    "mention": "mention mode, and it does not mention the binding's handle outside fenced "
    "code, quote lines and HTML comments",
}
# The pre-rule no decision names: a comment the floor has passed is never decided again.
_AT_OR_BELOW_FLOOR = "which is never decided: decided before, or older than the binding"
_UNTRACED = (
    "not recorded (decided by an earlier build): every rule before the stop is assumed passed"
)

Verdict = Literal["pass", "stop", "held", "retry", "not reached", "skipped", "unknown"]


class RuleLine(msgspec.Struct, frozen=True):
    """One rule in ``explain``'s walk: its name, its verdict for the comment, and the
    evidence."""

    rule: str
    verdict: Verdict
    evidence: str = ""


_URL_ID = re.compile(r"#(?:issuecomment|pullrequestreview|discussion_r)-?([0-9]{1,20})$")
COMMENT_URL_FORMS = (
    "https://HOST/owner/name/pull/N#issuecomment-ID (a comment), #pullrequestreview-ID "
    "(a review) or #discussion_rID (a review comment)"
)
"""The comment URLs ``explain`` takes alone, for its messages."""


def comment_target(text: str, *, host: str | None) -> tuple[PrRef, int] | None:
    """The pull request and database id a comment's URL names; None when ``text`` is not
    a pull request URL ending in a comment anchor.  A URL on another host than ``host``
    raises ``ValueError`` (as ``PrRef.parse``)."""
    stripped = text.strip()
    m = _URL_ID.search(stripped)
    if m is None or "://" not in stripped:
        return None
    return PrRef.parse(stripped, host=host), int(m[1])


def comment_query(text: str) -> tuple[str | None, int | None]:
    """``(node id, database id)`` from what the person typed: a GraphQL id, a database
    id, or the comment's URL."""
    text = text.strip()
    if text.isdigit():
        return None, int(text)
    m = _URL_ID.search(text)
    if m is not None:
        return None, int(m[1])
    return text, None


def find_records(store: SyncStore, pr: PrRef, comment: str) -> tuple[DecisionRecord, ...]:
    """The recorded decisions about ``comment`` on ``pr``, oldest first."""
    node, database = comment_query(comment)
    out = []
    for _, blob in read_records(store, namespace_of(pr)):
        r = decode_record(blob)
        if r is None:
            continue
        if (node is not None and r.comment == node) or (
            database is not None and r.database_id == database
        ):
            out.append(r)
    return tuple(sorted(out, key=lambda r: r.at))


def _permission(r: DecisionRecord) -> str:
    p = r.permission
    if p is None:
        return "no permission answer was recorded"
    if p.permission is None:
        return f"lookup for {p.login} failed ({p.failure})"
    role = f" (role {p.role_name})" if p.role_name and p.role_name != p.permission else ""
    when = f", answered {p.checked_at.isoformat()}" if p.checked_at else ""
    return f"{p.login} has {p.permission}{role}{when}"


def _rate(r: DecisionRecord) -> str:
    q = r.rate
    if q is None:
        return ""
    text = f"{q.wakes_in_hour}/{q.per_hour} wakes this hour, {q.wakes_in_day}/{q.per_day} today"
    if q.held:
        text += f", {q.held} held"
    if q.next_wake_at is not None:
        text += f", next wake not before {q.next_wake_at.isoformat()}"
    return text


def _trusted_bot(r: DecisionRecord) -> bool:
    """The comment passed the bot rule as a trusted bot's: it woke with ``trusted-bot``, or
    its author is a bot (only a ``trusted_bots`` one passes that rule)."""
    if r.reason == "trusted-bot":
        return True
    author = r.author or ""
    return "bot" in r.rules and (r.author_type == "Bot" or author.casefold().endswith("[bot]"))


def _pass_evidence(rule: str, r: DecisionRecord) -> str:
    if rule == "bot" and r.author is not None:
        who = f"{r.author} ({r.author_type or 'User'})"
        return f"{who}, in trusted_bots: trusted-bot" if _trusted_bot(r) else who
    if rule == "write-access" and _trusted_bot(r):
        return "a trusted bot: no permission lookup"
    if rule == "own-post":
        if r.viewer_did_author is False:
            return "GitHub says the token's login did not write it"
        # The matcher is asked only about comments written with the token's login.
        if r.own_post:  # the matcher's own words say why it is not the worker's
            return f"written with the token's login; {r.own_post}"
        if r.viewer_did_author:
            return (
                "written with the token's login, but no post in the worker's transcripts "
                "explains it (the matcher's answer was not recorded)"
            )
    if rule == "write-access":
        return _permission(r)
    if rule == "rate-limit":
        if r.reason == "operator-release":
            released = "released by an operator (comment-wake release): operator-release"
            return "; ".join(e for e in (released, _rate(r)) if e)
        return _rate(r)
    return ""


def has_trace(r: DecisionRecord) -> bool:
    """The record names the rules the comment passed.  An empty trace is one only when
    the first rule stopped the comment; otherwise an earlier build wrote the record."""
    if r.rules:
        return True
    return r.outcome in ("skip", "retry") and r.reason in TRUST_RULES[0].reasons


def explain_records(r: DecisionRecord) -> tuple[RuleLine, ...]:
    """Each rule for one decision: passed (as recorded), where it stopped, and what was
    not reached.  A record without a trace (an earlier build's) is explained from its
    reason, and says so on its first line."""
    if r.reason in _BEFORE_RULES:
        return (RuleLine("what is new", "skipped", _BEFORE_RULES[r.reason]),)
    if has_trace(r):
        passed = set(r.rules)
        untraced: tuple[RuleLine, ...] = ()
    else:
        passed = set(_inferred_passes(r))
        untraced = (RuleLine("trace", "unknown", _UNTRACED),)
    out: list[RuleLine] = list(untraced)
    stopped = False
    for rule, reasons, _ in RULES:
        if stopped:
            out.append(RuleLine(rule, "not reached"))
        elif rule in passed or (rule == RATE_LIMIT and r.outcome == "wake"):
            out.append(RuleLine(rule, "pass", _pass_evidence(rule, r)))
        else:
            stopped = True
            out.append(RuleLine(rule, _stop_verdict(r), _stop_evidence(rule, reasons, r)))
    return tuple(out)


def _inferred_passes(r: DecisionRecord) -> tuple[str, ...]:
    """The rules before the one whose reason the record carries (every rule for a wake,
    a held comment or a drop): what an earlier build's record implies."""
    names = tuple(rule.name for rule in TRUST_RULES)
    for i, rule in enumerate(TRUST_RULES):
        if r.reason in rule.reasons and r.outcome in ("skip", "retry"):
            return names[:i]
    return names


def _stop_verdict(r: DecisionRecord) -> Verdict:
    return "held" if r.outcome == "held" else "retry" if r.outcome == "retry" else "stop"


def _stop_evidence(rule: str, reasons: tuple[str, ...], r: DecisionRecord) -> str:
    # A reason that is not the rule's own (the watch ended or the PR closed while the
    # comment waited here) comes first, so the line says why it stopped.
    why = "" if r.reason in reasons else r.reason
    if rule == "write-access":
        parts: tuple[str, ...] = (why, _permission(r), r.detail)
    elif rule == RATE_LIMIT:
        parts = (why, r.detail, _rate(r))
    elif rule == "bot" and r.author is not None:
        parts = (why, f"{r.author} ({r.author_type or 'User'})")
    elif rule in _TRIGGER_STOPS and not why:
        parts = (_TRIGGER_STOPS[rule], r.detail)
    else:
        parts = (why, r.detail)
    return "; ".join(e for e in parts if e)


def _outcome(r: DecisionRecord) -> str:
    if r.outcome == "wake":
        to = f" worker {r.worker}" if r.worker else " the worker"
        key = f" (notice {r.notice_key[:12]})" if r.notice_key else ""
        return f"woke{to}{key}"
    return {"skip": "skipped", "drop": "dropped", "held": "held", "retry": "retry"}.get(
        r.outcome, r.outcome
    ) + f" ({r.reason})"


def headline(r: DecisionRecord) -> str:
    """The outcome and its reason in a few words: ``woke worker w1 (writer)``,
    ``skipped (not-writer)``, ``held (rate-limit)``."""
    if r.outcome == "wake":
        return f"woke worker {r.worker} ({r.reason})" if r.worker else f"woke ({r.reason})"
    verb = {"skip": "skipped", "drop": "dropped", "held": "held", "retry": "retry"}
    return f"{verb.get(r.outcome, r.outcome)} ({r.reason})"


def own_posts_matter(records: Sequence[DecisionRecord]) -> bool:
    """The own-post rule judged the comment: it was written with the token's login (the
    matcher is asked only then), so where its transcripts are is worth showing."""
    return any(r.viewer_did_author for r in records)


def _source_line(source: TranscriptReach) -> str:
    """One transcript the own-post rule reads, and whether this host reads it: its files,
    or why not (another host's is ``on host h2, not local``, never looked for)."""
    said = f"  {source.role} {source.agent}: {source.transcript}"
    if source.readable and source.files == (source.transcript,):
        return said
    return f"{said}: {source.where()}"


def render(
    pr: PrRef,
    comment: str,
    records: Sequence[DecisionRecord],
    addressed: Sequence[CommentOutcome] = (),
    gaps: Sequence[FloodGap] = (),
    sources: Sequence[TranscriptReach] = (),
) -> str:
    """``explain``'s text: the latest outcome and its reason first, then what the
    comment is, what its worker says became of it once delivered (``addressed``), then
    each decision with its rule walk.  With no decision, the PR's flood ``gaps``: the
    comment may have been created in one and never listed.  ``sources``: the
    transcripts the own-post rule reads for the PR's worker as bound now, and whether
    this host reads them (``Registry.transcript_reach``), shown last."""
    if not records:
        hint = ""
        if "#discussion_r" in comment:
            hint = (
                "; a review comment is decided with its review: give the review's URL "
                "(#pullrequestreview-ID) or id"
            )
        lines = [
            f"no decision about {comment} on {pr} is recorded (not seen yet; at or below "
            f"the floor, {_AT_OR_BELOW_FLOOR}; decided by a dry run; or pruned){hint}"
        ]
        if gaps:
            lines.append(
                f"{pr} has {len(gaps)} recorded flood gap(s); a comment in one was skipped:"
            )
            lines.extend(f"  {describe_gap(g)}" for g in gaps)
        return "\n".join(lines) + "\n"
    first = records[-1]
    # The spelling GitHub gave (``nameWithOwner``), as the decision recorded it.
    shown = first.pr if first.pr else str(pr)
    about = [f"{first.kind or 'item'} {first.comment} on {shown}"]
    if first.database_id is not None:
        about.append(f"database id {first.database_id}")
    if first.author is not None:
        about.append(f"by {first.author}")
    if first.created_at is not None:
        about.append(f"created {first.created_at.isoformat()}")
    lines = [headline(first), ", ".join(about)]
    for o in addressed:
        note = f": {o.note}" if o.note else ""
        lines.append(
            f"delivered to {o.worker} {o.delivered_at.isoformat()}; {o.outcome} "
            f"(as of {o.updated_at.isoformat()}){note}"
        )
    for r in records:
        lines.append("")
        lines.append(f"{r.at.isoformat()}: {_outcome(r)}")
        for rule in explain_records(r):
            ev = f": {rule.evidence}" if rule.evidence else ""
            lines.append(f"  {rule.rule:<13} {rule.verdict}{ev}")
    if sources:
        lines.append("")
        lines.append(
            "own-post transcripts of the PR's worker as bound now, as this host finds them:"
        )
        lines.extend(_source_line(s) for s in sources)
    return "\n".join(lines) + "\n"


class Explanation(msgspec.Struct, frozen=True):
    """One recorded decision and its rule walk (an item of ``explain --json``)."""

    record: DecisionRecord
    rules: tuple[RuleLine, ...]


def explain_comment(store: SyncStore, pr: PrRef, comment: str) -> tuple[Explanation, ...]:
    """Every recorded decision about ``comment`` on ``pr``, oldest first, explained."""
    return tuple(Explanation(r, explain_records(r)) for r in find_records(store, pr, comment))
