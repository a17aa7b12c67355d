"""The replay's output lines: JSON objects (``--json``) or a readable timeline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = ["Line", "format_json", "format_timeline", "iso", "sort_lines"]

# Within one instant: decisions, then wakes, then the monitor's notices, then logs.
_RANK = {"decision": 0, "wake": 1, "notice": 2, "log": 3, "gap": 4}


def iso(t: datetime) -> str:
    """RFC 3339 in UTC with ``Z``; milliseconds only when the time has a fraction."""
    t = t.astimezone(UTC)
    spec = "milliseconds" if t.microsecond else "seconds"
    return t.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


@dataclass(frozen=True, slots=True)
class Line:
    """One output line; ``fields`` in output order, after ``type`` and ``at``."""

    type: str
    at: datetime
    fields: Mapping[str, Any]
    seq: int  # arrival order: keeps a step's own order within one instant and PR
    created: datetime | None = None  # a decision's comment creation time, when known

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "at": iso(self.at), **self.fields}


def sort_lines(lines: Iterable[Line]) -> list[Line]:
    """Time order; within one instant by type, then PR; decisions then by the comment's
    creation time and id (several steps of one PR may decide at one instant)."""

    def key(line: Line) -> tuple[datetime, int, str, datetime, str, int]:
        pr = str(line.fields.get("pr") or "")
        if line.type != "decision":
            return (line.at, _RANK[line.type], pr, line.at, "", line.seq)
        created = line.created if line.created is not None else line.at
        return (line.at, _RANK[line.type], pr, created, str(line.fields["comment"]), line.seq)

    return sorted(lines, key=key)


def format_json(lines: Sequence[Line]) -> str:
    """The lines as JSON, one object a line (``comment-wake replay --json``)."""
    return "".join(json.dumps(line.to_json(), ensure_ascii=False) + "\n" for line in lines)


def format_timeline(lines: Sequence[Line]) -> str:
    """The lines as a readable timeline."""
    out: list[str] = []
    for line in lines:
        f = line.fields
        head = f"{iso(line.at)}  {line.type:<8}"
        if line.type == "decision":
            detail = f" ({f['detail']})" if f["detail"] else ""
            out.append(f"{head}  {f['pr']}  {f['comment']}: {f['outcome']} {f['reason']}{detail}")
        elif line.type == "wake":
            ids = ", ".join(f["comments"])
            part = f" (part {f['part']} of {f['parts']})" if f["parts"] > 1 else ""
            out.append(f"{head}  {f['pr']}  worker {f['worker']} woken for {ids}{part}")
            out.extend(f"    | {text}" for text in str(f["notice"]).splitlines())
        elif line.type == "notice":
            ids = ", ".join(f["items"])
            out.append(f"{head}  {f['pr']}  worker {f['worker']} gets {f['kind']} ({ids})")
        elif line.type == "gap":
            start = f["start"] or "the last look"
            out.append(
                f"{head}  {f['pr']}  {f['connection']} between {start} and {f['end']} unread "
                f"({f['pages_read']} of {f['pages_allowed']} pages): {f['reason']}"
            )
        else:
            where = f"  {f['pr']}" if f["pr"] else ""
            out.append(f"{head}{where}  {f['level']}: {f['message']}")
    return "".join(text + "\n" for text in out)
