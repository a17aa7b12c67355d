"""A scenario's ``[expect]`` table checked against its replay (``replay --check``).

``check_expectations(scenario.expect, result)`` lists, one line each, every way the
replay breaks the output contract (docs/scenarios.md: the keys of each line type, times
with ``Z``, the order within an instant, the reasons each outcome may carry, per comment
``retry``* then at most one ``held`` then at most one final decision) and every
expectation it does not meet.  The test suite checks every scenario with it.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from comment_wake._limits import NOTICE_TEXT_LIMIT
from review_monitor import parse_duration

from ._runner import ReplayResult

__all__ = ["check_expectations"]

# The output contract (docs/scenarios.md), checked on every scenario's output.
_KEYS = {
    "decision": ["type", "at", "pr", "comment", "outcome", "reason", "detail"],
    "wake": ["type", "at", "pr", "worker", "comments", "part", "parts", "notice"],
    "notice": ["type", "at", "pr", "worker", "kind", "items"],
    "log": ["type", "at", "level", "pr", "message"],
    "gap": [
        "type", "at", "pr", "connection", "start", "end", "pages_read", "pages_allowed", "reason"
    ],
}  # fmt: skip
_RANK = {"decision": 0, "wake": 1, "notice": 2, "log": 3, "gap": 4}
_SKIP_REASONS = {
    "baseline", "unbound", "pr-closed", "no-author", "minimized", "bot", "verdict",
    "blank", "skip-marker", "not-mentioned", "rereview-command", "own-post", "not-writer",
    "lookup-failed", "invalid-login", "flood-gap",
}  # fmt: skip
_REASONS = {
    "wake": {"writer", "trusted-bot", "operator-release"},
    "held": {"rate-limit"},
    "retry": {"lookup-failed"},
    "drop": {"pr-closed", "unbound", "deleted"},
    "skip": _SKIP_REASONS,
}
# Per comment: a retry per failed lookup, at most one held, at most one final decision.
_GRAMMAR = re.compile(r"(retry )*(held )?((wake|skip|drop) )?")


def _contract(lines: list[dict[str, Any]]) -> list[str]:
    """How the lines break the output contract, whatever the scenario expects."""
    out: list[str] = []
    for line in lines:
        if list(line) != _KEYS.get(line["type"]):
            out.append(f"a {line['type']} line has the keys {list(line)}")
        if not str(line["at"]).endswith("Z"):
            out.append(f"a time without Z: {line['at']}")
    for a, b in itertools.pairwise(lines):
        when_a, when_b = datetime.fromisoformat(a["at"]), datetime.fromisoformat(b["at"])
        if (when_b, _RANK[b["type"]]) < (when_a, _RANK[a["type"]]):
            out.append(f"a {b['type']} line at {b['at']} after a {a['type']} line at {a['at']}")
    sequences: dict[str, str] = {}
    for d in (line for line in lines if line["type"] == "decision"):
        if d["reason"] not in _REASONS[d["outcome"]]:
            out.append(f"{d['comment']}: {d['outcome']} with reason {d['reason']!r}")
        sequences[d["comment"]] = sequences.get(d["comment"], "") + d["outcome"] + " "
    for comment, seq in sorted(sequences.items()):
        if _GRAMMAR.fullmatch(seq) is None:
            out.append(f"{comment}: decided {seq.strip()!r}, not retry* held? final?")
    for w in (line for line in lines if line["type"] == "wake"):
        if len(w["notice"]) > NOTICE_TEXT_LIMIT:
            out.append(
                f"a wake notice at {w['at']} has {len(w['notice'])} characters, over a "
                f"hook's {NOTICE_TEXT_LIMIT}"
            )
    return out


def check_expectations(expect: Mapping[str, Any], result: ReplayResult) -> list[str]:
    """Every way ``result`` differs from its scenario's ``[expect]`` table, one line each
    (with every way its lines break the output contract); empty when it matches."""
    lines = [line.to_json() for line in result.lines]
    decisions = [d for d in lines if d["type"] == "decision"]
    wakes = [w for w in lines if w["type"] == "wake"]
    logs = [g["message"] for g in lines if g["type"] == "log"]
    notices = "\n".join(w["notice"] for w in wakes)
    out: list[str] = _contract(lines)

    def differ(what: str, want: object, got: object) -> None:
        if want != got:
            out.append(f"{what}: expected {want!r}, got {got!r}")

    finals: dict[str, list[dict[str, Any]]] = {}
    for d in decisions:
        if d["outcome"] in ("wake", "skip", "drop"):
            finals.setdefault(d["comment"], []).append(d)
    twice = sorted(c for c, ds in finals.items() if len(ds) > 1)
    differ("comments decided twice", [], twice)
    woken = [d["comment"] for d in decisions if d["outcome"] == "wake"]
    for key, want in expect.items():
        if key == "wake":
            differ("woken", want, woken)
        elif key == "wakes":
            differ("wake lines", want, len(wakes))
        elif key == "batches":
            differ("batches", want, [w["comments"] for w in wakes])
        elif key == "wake_times":
            differ("wake times", want, [w["at"] for w in wakes])
        elif key == "skip":
            got = {c: finals.get(c, [{}])[-1].get("reason") for c in want}
            outcomes = {c: finals.get(c, [{}])[-1].get("outcome") for c in want}
            differ("skip reasons", dict(want), got)
            differ("skip outcomes", dict.fromkeys(want, "skip"), outcomes)
        elif key == "skip_count":
            got_counts = Counter(d["reason"] for d in decisions if d["outcome"] == "skip")
            differ("skips by reason", dict(want), {r: got_counts[r] for r in want})
        elif key in ("held", "drop"):
            outcome = key
            differ(
                outcome,
                sorted(want),
                sorted({d["comment"] for d in decisions if d["outcome"] == outcome}),
            )
        elif key == "final":
            got_final = {
                c: " ".join(str(d.get(k)) for k in ("outcome", "reason"))
                for c in want
                for d in finals.get(c, [{}])[-1:]
            }
            differ("final decisions", dict(want), got_final)
        elif key == "final_times":
            got_times = {c: finals.get(c, [{}])[-1].get("at") for c in want}
            differ("final decision times", dict(want), got_times)
        elif key == "retries":
            got_retries = Counter(d["comment"] for d in decisions if d["outcome"] == "retry")
            differ("retries", dict(want), {c: got_retries[c] for c in want})
        elif key == "retry_times":
            differ(
                "retry times",
                want,
                [d["at"] for d in decisions if d["outcome"] == "retry"][1:]
                + [
                    d["at"]
                    for d in decisions
                    if d["reason"] == "lookup-failed" and d["outcome"] == "skip"
                ],
            )
        elif key == "never":
            differ(
                "decided but should not be",
                [],
                sorted({d["comment"] for d in decisions} & set(want)),
            )
        elif key == "detail":
            got_detail = {c: finals.get(c, [{}])[-1].get("detail") for c in want}
            differ("details", dict(want), got_detail)
        elif key == "log":
            for text in want:
                if not any(text in m for m in logs):
                    out.append(f"no log line contains {text!r}: {logs!r}")
        elif key == "log_lacks":
            for text in want:
                if any(text in m for m in logs):
                    out.append(f"a log line contains {text!r}: {logs!r}")
        elif key == "notice_contains":
            for text in want:
                if text not in notices:
                    out.append(f"no wake notice contains {text!r}")
        elif key == "notice_lacks":
            for text in want:
                if text in notices:
                    out.append(f"a wake notice contains {text!r}")
        elif key == "fence_closes_after":
            out += _inside_fence(notices, want)
        elif key == "notice_kinds":
            differ("monitor notices", want, [n["kind"] for n in lines if n["type"] == "notice"])
        elif key == "permission_lookups":
            differ("permission lookups", want, _lookups(result))
        elif key == "gap_requests":
            differ("gap requests", want, _count(result, "gap"))
        elif key == "flood_gaps":
            differ("flood gaps", want, [g["connection"] for g in lines if g["type"] == "gap"])
        elif key == "max_wakes_within":
            # One wake may be several notices (each fits a hook), all made at one time.
            times = sorted({datetime.fromisoformat(w["at"]) for w in wakes})
            for rule in want:
                window = parse_duration(rule["window"])
                most = max((sum(1 for t in times if s <= t < s + window) for s in times), default=0)
                if most > rule["max"]:
                    out.append(f"{most} wakes within {rule['window']} (at most {rule['max']})")
        elif key == "min_wake_gap":
            times = sorted({datetime.fromisoformat(w["at"]) for w in wakes})
            gaps = [b - a for a, b in itertools.pairwise(times)]
            if gaps and min(gaps) < parse_duration(want):
                out.append(f"two wakes {min(gaps)} apart (at least {want})")
        elif key == "max_notice_chars":
            longest = max((len(w["notice"]) for w in wakes), default=0)
            if longest > want:
                out.append(f"a wake notice of {longest} characters (at most {want})")
        elif key == "min_wakes":
            if len(wakes) < want:
                out.append(f"only {len(wakes)} wakes (at least {want})")
        else:
            out.append(f"unknown expectation {key!r}")
    return out


def _count(result: ReplayResult, kind: str) -> int:
    return sum(1 for r in result.requests if r.kind == kind)


def _lookups(result: ReplayResult) -> int:
    """Permission lookups of authors.  The monitor's start-up preflight (``GET /user``,
    then one lookup of the token's own login per repository, at every start) is not
    counted."""
    count, preflight = 0, False
    for r in result.requests:
        if r.path == "/user":
            preflight = True
        elif r.kind == "permission":
            count += 0 if preflight else 1
        else:
            preflight = False
    return count


def _inside_fence(notices: str, text: str) -> list[str]:
    begin = re.search(r"<<<untrusted-comment-begin ([0-9a-f]+)>>>", notices)
    if begin is None:
        return ["no fence in the notice"]
    end = notices.rfind(f"<<<untrusted-comment-end {begin[1]}>>>")
    where = notices.find(text)
    if not begin.end() < where < end:
        return [f"{text!r} is not inside the fence"]
    return []
