"""``comment-wake explain owner/name#N COMMENT``: each rule in order, with its verdict and
the evidence the daemon recorded when it decided (pure, over the decision records)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import msgspec

from comment_wake.service._records import DecisionRecord, decode_record, namespace_of
from review_monitor import PrRef, SyncStore

__all__ = [
    "RULES",
    "Explanation",
    "RuleLine",
    "comment_query",
    "explain_comment",
    "explain_records",
    "find_records",
    "render",
]

# The rules in the order the wake core runs them (docs/trust-rules.md), each with the
# reasons that stop a comment there and what passing it means.
RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("bound", ("unbound",), "the PR is bound to a live worker that an orchestrator spawned"),
    ("open", ("pr-closed",), "the pull request is open"),
    ("author", ("no-author",), "the author's account exists"),
    ("minimized", ("minimized",), "not hidden (minimized)"),
    ("bot", ("bot",), "not written by a bot"),
    ("verdict", ("verdict",), "not a bare review verdict"),
    ("blank", ("blank",), "not blank"),
    ("rereview", ("rereview-command",), "not a re-review command of the worker's login"),
    ("own-post", ("own-post",), "not the worker's own post"),
    ("login", ("invalid-login",), "the author's login is a GitHub login"),
    ("write-access", ("not-writer", "lookup-failed"), "the author has write access"),
    ("rate-limit", ("rate-limit",), "the PR's rate limit allows a wake"),
)
_BEFORE_RULES = {
    "baseline": "it was already there when the PR was first watched (the baseline)",
    "old": "it is at or below the floor: decided before, or older than the binding",
    "flood-gap": "a flood pushed it out of the listing before it could be read",
}

Verdict = Literal["pass", "stop", "held", "retry", "not reached", "skipped"]


class RuleLine(msgspec.Struct, frozen=True):
    rule: str
    verdict: Verdict
    evidence: str = ""


_URL_ID = re.compile(r"#(?:issuecomment|pullrequestreview|discussion_r)-?([0-9]{1,20})$")


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
    for _, blob in store.records(namespace_of(pr)):
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


def _pass_evidence(rule: str, r: DecisionRecord) -> str:
    if rule == "bot" and r.author is not None:
        return f"{r.author} ({r.author_type or 'User'})"
    if rule == "own-post":
        if r.viewer_did_author is False:
            return "GitHub says the token's login did not write it"
        # The matcher is asked only about comments written with the token's login.
        if r.viewer_did_author or r.own_post:
            said = f": {r.own_post}" if r.own_post else " (the matcher's answer was not recorded)"
            return (
                "written with the token's login, but no post in the worker's transcripts "
                f"explains it{said}"
            )
    if rule == "write-access":
        return _permission(r)
    if rule == "rate-limit":
        return _rate(r)
    return ""


def explain_records(r: DecisionRecord) -> tuple[RuleLine, ...]:
    """Each rule for one decision: passed, where it stopped, and what was not reached."""
    if r.reason in _BEFORE_RULES:
        return (RuleLine("what is new", "skipped", _BEFORE_RULES[r.reason]),)
    stop_at = len(RULES)
    for i, (_, reasons, _) in enumerate(RULES):
        if r.reason in reasons:
            stop_at = i
            break
    out: list[RuleLine] = []
    for i, (rule, _, _) in enumerate(RULES):
        if i < stop_at:
            out.append(RuleLine(rule, "pass", _pass_evidence(rule, r)))
        elif i == stop_at:
            verdict: Verdict = (
                "held" if r.outcome == "held" else "retry" if r.outcome == "retry" else "stop"
            )
            evidence = r.detail
            if rule == "write-access":
                evidence = "; ".join(e for e in (_permission(r), r.detail) if e)
            elif rule == "rate-limit":
                evidence = "; ".join(e for e in (r.detail, _rate(r)) if e)
            elif rule == "bot" and r.author is not None:
                evidence = f"{r.author} ({r.author_type or 'User'})"
            out.append(RuleLine(rule, verdict, evidence))
        else:
            out.append(RuleLine(rule, "not reached"))
    return tuple(out)


def _outcome(r: DecisionRecord) -> str:
    if r.outcome == "wake":
        to = f" worker {r.worker}" if r.worker else " the worker"
        key = f" (notice {r.notice_key[:12]})" if r.notice_key else ""
        return f"woke{to}{key}"
    return {"skip": "skipped", "drop": "dropped", "held": "held", "retry": "retry"}.get(
        r.outcome, r.outcome
    ) + f" ({r.reason})"


def render(pr: PrRef, comment: str, records: Sequence[DecisionRecord]) -> str:
    if not records:
        return (
            f"no decision about {comment} on {pr} is recorded (not seen yet, decided by "
            "a dry run, or pruned)\n"
        )
    first = records[-1]
    about = [f"{first.kind or 'item'} {first.comment} on {pr}"]
    if first.database_id is not None:
        about.append(f"database id {first.database_id}")
    if first.author is not None:
        about.append(f"by {first.author}")
    if first.created_at is not None:
        about.append(f"created {first.created_at.isoformat()}")
    lines = [", ".join(about)]
    for r in records:
        lines.append("")
        lines.append(f"{r.at.isoformat()}: {_outcome(r)}")
        for rule in explain_records(r):
            ev = f": {rule.evidence}" if rule.evidence else ""
            lines.append(f"  {rule.rule:<13} {rule.verdict}{ev}")
    return "\n".join(lines) + "\n"


class Explanation(msgspec.Struct, frozen=True):
    """One recorded decision and its rule walk (an item of ``explain --json``)."""

    record: DecisionRecord
    rules: tuple[RuleLine, ...]


def explain_comment(store: SyncStore, pr: PrRef, comment: str) -> tuple[Explanation, ...]:
    """Every recorded decision about ``comment`` on ``pr``, oldest first, explained."""
    return tuple(Explanation(r, explain_records(r)) for r in find_records(store, pr, comment))
