"""Scenario files (TOML, ``docs/scenarios.md``): parsed and checked, with errors that name
the bad key or event."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from comment_wake.wake import WakeConfig
from review_monitor import MonitorConfig, PrRef, parse_duration

__all__ = [
    "EVENT_KINDS",
    "Event",
    "InlineSpec",
    "PrSpec",
    "Scenario",
    "ScenarioError",
    "WorkerSpec",
    "load_scenario",
    "parse_scenario",
]

_MONITOR_KEYS = ("permission_ttl", "permission_retries", "trusted_permissions", "review_bots")
_TOP_KEYS = frozenset(
    {
        "name",
        "description",
        "start",
        "poll_every",
        "end",
        "config",
        "github",
        "prs",
        "workers",
        "events",
        "expect",
    }
)
_LEVELS = ("admin", "maintain", "write", "triage", "read", "none")
_AUTHOR_TYPES = ("User", "Bot", "Mannequin", "Organization")
_REVIEW_STATES = ("COMMENTED", "APPROVED", "CHANGES_REQUESTED", "DISMISSED")
_ROLES = ("worker", "orchestrator")
_PR_STATES = ("OPEN", "CLOSED", "MERGED")
_TRIGGERS = ("any", "mention")

# Per event kind: (required keys, optional keys), besides ``at``, ``kind`` and ``pr``.
EVENT_KINDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "comment": (
        frozenset({"id", "author"}),
        frozenset({"author_type", "body", "created_at", "database_id", "viewer_did_author"}),
    ),
    "review": (
        frozenset({"id", "author"}),
        frozenset(
            {
                "author_type",
                "state",
                "body",
                "submitted_at",
                "database_id",
                "viewer_did_author",
                "inline",
            }
        ),
    ),
    "edit": (frozenset({"id", "body"}), frozenset()),
    "delete": (frozenset({"id"}), frozenset()),
    "minimize": (frozenset({"id"}), frozenset()),
    "merge": (frozenset(), frozenset()),
    "close": (frozenset(), frozenset()),
    "reopen": (frozenset(), frozenset()),
    "archive": (frozenset({"worker"}), frozenset()),
    "flood": (
        frozenset({"count", "author"}),
        frozenset({"author_type", "id_prefix", "body", "every"}),
    ),
    "permission-change": (frozenset({"login", "permission"}), frozenset()),
    "github-outage": (frozenset(), frozenset({"failures", "status"})),
    "permission-outage": (frozenset(), frozenset({"login", "failures", "status"})),
    "restart": (frozenset(), frozenset()),
    "poll": (frozenset(), frozenset()),
}
"""Each scenario event kind with its required and optional keys (docs/scenarios.md)."""
_NO_PR = frozenset(
    {"archive", "permission-change", "github-outage", "permission-outage", "restart"}
)


class ScenarioError(ValueError):
    """A scenario that cannot be run; the message names the file, key or event."""


@dataclass(frozen=True, slots=True)
class InlineSpec:
    id: str
    database_id: int | None
    path: str
    line: int | None
    body: str


@dataclass(frozen=True, slots=True)
class PrSpec:
    ref: PrRef
    title: str
    state: str = "OPEN"
    worker: str | None = None
    watched: bool = True
    # An earlier build's mark (version 0, plain handled ids), in the store before the
    # first poll; None: no mark, so the first look is a baseline.
    mark_v0: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    id: str
    transcript: Path | None = None
    role: str = "worker"
    spawned_by: str | None = None
    archived: bool = False
    # The binding's own trigger mode and handle (``bind --trigger``, ``--handle``);
    # None: the [config]'s.
    trigger: str | None = None
    handle: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One ``[[events]]`` entry; ``number`` is its 1-based place in the file."""

    number: int
    at: datetime
    kind: str
    pr: PrRef | None
    args: Mapping[str, Any]
    inline: tuple[InlineSpec, ...] = ()

    def where(self) -> str:
        return f"event {self.number} ({self.kind})"


@dataclass(frozen=True, slots=True)
class Scenario:
    path: Path | None
    name: str
    description: str
    start: datetime
    poll_every: timedelta
    end: datetime
    wake: WakeConfig
    monitor: MonitorConfig
    viewer: str
    host: str
    permissions: Mapping[str, str]
    prs: tuple[PrSpec, ...]
    workers: tuple[WorkerSpec, ...]
    events: tuple[Event, ...]  # in time order (file order within one time)
    expect: Mapping[str, Any] = field(default_factory=dict)


def load_scenario(path: Path | str) -> Scenario:
    """Read and check the scenario at ``path`` (TOML); ``ScenarioError`` says what to fix."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the scenario: {exc.strerror}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    try:
        return parse_scenario(raw, base=path.parent, path=path)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


def parse_scenario(
    raw: Mapping[str, Any], *, base: Path | None = None, path: Path | None = None
) -> Scenario:
    """Check a decoded scenario; relative transcript paths are read from ``base``."""
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise ScenarioError(f"unknown top-level key {unknown[0]!r}")
    if "start" not in raw:
        raise ScenarioError("the key 'start' (the time of the first poll) is missing")
    start = _time(raw["start"], "start")
    poll_every = _duration(raw.get("poll_every", "60s"), "poll_every")
    if poll_every <= timedelta(0):
        raise ScenarioError("'poll_every' must be positive")
    wake, monitor = _config(_table(raw.get("config", {}), "config"), poll_every)
    github = _table(raw.get("github", {}), "github")
    _only(github, {"viewer", "host", "permissions"}, "[github]")
    viewer = _str(github.get("viewer", "octo-user"), "github.viewer")
    host = _str(github.get("host", "github.com"), "github.host")
    permissions: dict[str, str] = {}
    for login, level in _table(github.get("permissions", {}), "github.permissions").items():
        level = _str(level, f"github.permissions.{login}")
        if level not in _LEVELS:
            raise ScenarioError(
                f"github.permissions.{login}: {level!r} is not one of {', '.join(_LEVELS)}"
            )
        permissions[login] = level
    prs = tuple(_pr(p, k, host) for k, p in enumerate(_list(raw.get("prs", []), "prs"), 1))
    if not prs:
        raise ScenarioError("a scenario needs at least one [[prs]] entry")
    if len({p.ref for p in prs}) != len(prs):
        raise ScenarioError("[[prs]]: a pull request is listed twice")
    workers = tuple(
        _worker(w, k, base) for k, w in enumerate(_list(raw.get("workers", []), "workers"), 1)
    )
    ids = [w.id for w in workers]
    if len(set(ids)) != len(ids):
        raise ScenarioError("[[workers]]: a worker id is listed twice")
    for w in workers:
        if w.spawned_by is not None and w.spawned_by not in ids:
            raise ScenarioError(f"worker {w.id!r}: spawned_by {w.spawned_by!r} is not a worker")
    events = [
        _event(e, k, prs, host, ids)
        for k, e in enumerate(_list(raw.get("events", []), "events"), 1)
    ]
    events.sort(key=lambda e: (e.at, e.number))
    last = max((e.at for e in events), default=start)
    end = _time(raw["end"], "end") if "end" in raw else max(last, start) + timedelta(minutes=30)
    if end < start:
        raise ScenarioError("'end' is before 'start'")
    return Scenario(
        path=path,
        name=_str(raw.get("name", path.stem if path else "scenario"), "name"),
        description=_str(raw.get("description", ""), "description"),
        start=start,
        poll_every=poll_every,
        end=end,
        wake=wake,
        monitor=monitor,
        viewer=viewer,
        host=host,
        permissions=permissions,
        prs=prs,
        workers=workers,
        events=tuple(events),
        expect=_table(raw.get("expect", {}), "expect"),
    )


# -- parts -------------------------------------------------------------------------


def _config(table: Mapping[str, Any], poll_every: timedelta) -> tuple[WakeConfig, MonitorConfig]:
    wake_keys = set(WakeConfig.model_fields)
    wake_args: dict[str, Any] = {}
    monitor_args: dict[str, Any] = {"poll_interval": poll_every}
    for key, value in table.items():
        if key in wake_keys:
            wake_args[key] = value
        elif key in _MONITOR_KEYS:
            monitor_args[key] = value
        else:
            raise ScenarioError(
                f"config.{key}: unknown key; a scenario's [config] takes the wake's keys and "
                f"the monitor's {', '.join(_MONITOR_KEYS)}"
            )
    try:
        wake = WakeConfig(**wake_args)
        monitor = MonitorConfig(**monitor_args)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ScenarioError(f"config.{where}: {first['msg']}") from None
    return wake, monitor


def _pr(raw: object, k: int, host: str) -> PrSpec:
    where = f"prs[{k}]"
    table = _table(raw, where)
    _only(table, {"repo", "number", "title", "state", "worker", "watched", "mark_v0"}, where)
    repo = _str(_need(table, "repo", where), f"{where}.repo")
    number = _int(_need(table, "number", where), f"{where}.number")
    try:
        ref = PrRef.parse(f"{repo}#{number}", host=host)
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    state = _str(table.get("state", "OPEN"), f"{where}.state")
    if state not in _PR_STATES:
        raise ScenarioError(f"{where}.state: {state!r} is not one of {', '.join(_PR_STATES)}")
    worker = table.get("worker")
    mark_v0: tuple[str, ...] | None = None
    if "mark_v0" in table:
        ids = table["mark_v0"]
        if not isinstance(ids, list):
            raise ScenarioError(f"{where}.mark_v0: expected an array of comment ids")
        mark_v0 = tuple(_str(i, f"{where}.mark_v0[{n}]") for n, i in enumerate(ids, 1))
        if not all(mark_v0):
            raise ScenarioError(f"{where}.mark_v0: a comment id is empty")
    return PrSpec(
        ref=ref,
        title=_str(table.get("title", "A change"), f"{where}.title"),
        state=state,
        worker=None if worker is None else _str(worker, f"{where}.worker"),
        watched=_bool(table.get("watched", True), f"{where}.watched"),
        mark_v0=mark_v0,
    )


def _worker(raw: object, k: int, base: Path | None) -> WorkerSpec:
    where = f"workers[{k}]"
    table = _table(raw, where)
    _only(table, {"id", "transcript", "role", "spawned_by", "archived", "trigger", "handle"}, where)
    role = _str(table.get("role", "worker"), f"{where}.role")
    if role not in _ROLES:
        raise ScenarioError(f"{where}.role: {role!r} is not one of {', '.join(_ROLES)}")
    transcript: Path | None = None
    if "transcript" in table:
        transcript = Path(_str(table["transcript"], f"{where}.transcript"))
        if not transcript.is_absolute() and base is not None:
            transcript = base / transcript
        if not transcript.is_file():
            raise ScenarioError(f"{where}.transcript: no file {transcript}")
    spawned_by = table.get("spawned_by")
    trigger = table.get("trigger")
    if trigger is not None and trigger not in _TRIGGERS:
        raise ScenarioError(f"{where}.trigger: {trigger!r} is not one of {', '.join(_TRIGGERS)}")
    handle = table.get("handle")
    return WorkerSpec(
        id=_str(_need(table, "id", where), f"{where}.id"),
        transcript=transcript,
        role=role,
        spawned_by=None if spawned_by is None else _str(spawned_by, f"{where}.spawned_by"),
        archived=_bool(table.get("archived", False), f"{where}.archived"),
        trigger=trigger,
        handle=None if handle is None else _str(handle, f"{where}.handle"),
    )


def _event(raw: object, k: int, prs: tuple[PrSpec, ...], host: str, workers: list[str]) -> Event:
    table = _table(raw, f"events[{k}]")
    kind = _str(_need(table, "kind", f"events[{k}]"), f"events[{k}].kind")
    if kind not in EVENT_KINDS:
        raise ScenarioError(
            f"event {k}: unknown kind {kind!r}; one of {', '.join(sorted(EVENT_KINDS))}"
        )
    where = f"event {k} ({kind})"
    required, optional = EVENT_KINDS[kind]
    allowed = required | optional | {"at", "kind"} | (set() if kind in _NO_PR else {"pr"})
    extra = sorted(set(table) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r}")
    missing = sorted(required - set(table))
    if missing:
        raise ScenarioError(f"{where}: the key {missing[0]!r} is missing")
    at = _time(_need(table, "at", where), f"{where}.at")
    pr: PrRef | None = None
    if kind not in _NO_PR:
        pr = _event_pr(table.get("pr"), prs, host, where)
    args: dict[str, Any] = {}
    for key in sorted(required | optional):
        if key in table and key != "inline":
            args[key] = _arg(kind, key, table[key], f"{where}.{key}")
    if kind == "archive" and args["worker"] not in workers:
        raise ScenarioError(f"{where}.worker: {args['worker']!r} is not a worker")
    inline: tuple[InlineSpec, ...] = ()
    if "inline" in table:
        inline = tuple(
            _inline(i, f"{where}.inline[{n}]")
            for n, i in enumerate(_list(table["inline"], f"{where}.inline"), 1)
        )
    return Event(number=k, at=at, kind=kind, pr=pr, args=args, inline=inline)


def _event_pr(value: object, prs: tuple[PrSpec, ...], host: str, where: str) -> PrRef:
    if value is None:
        if len(prs) != 1:
            raise ScenarioError(f"{where}: 'pr' is needed when the scenario has several PRs")
        return prs[0].ref
    text = _str(value, f"{where}.pr")
    try:
        ref = PrRef.parse(text, host=host)
    except ValueError as exc:
        raise ScenarioError(f"{where}.pr: {exc}") from None
    if ref not in {p.ref for p in prs}:
        raise ScenarioError(f"{where}.pr: {text} is not in [[prs]]")
    return ref


def _arg(kind: str, key: str, value: object, where: str) -> Any:
    if key in ("database_id", "count", "failures"):
        number = _int(value, where)
        if number < (0 if key == "failures" else 1):
            raise ScenarioError(f"{where}: must be positive")
        return number
    if key == "viewer_did_author":
        return _bool(value, where)
    if key == "every":
        return _duration(value, where)
    if key in ("created_at", "submitted_at"):
        # Any string is served verbatim, so an unparseable time can be modelled.
        if isinstance(value, datetime):
            return _time(value, where)
        text = _str(value, where)
        try:
            return _time(text, where)
        except ScenarioError:
            return text
    if key == "status":
        if value == "timeout":
            return "timeout"
        status = _int(value, where)
        if not 400 <= status <= 599:
            raise ScenarioError(f'{where}: an HTTP error status (400 to 599) or "timeout"')
        return status
    text = _str(value, where)
    if key == "author_type" and text not in _AUTHOR_TYPES:
        raise ScenarioError(f"{where}: {text!r} is not one of {', '.join(_AUTHOR_TYPES)}")
    if key == "state" and text not in _REVIEW_STATES:
        raise ScenarioError(f"{where}: {text!r} is not one of {', '.join(_REVIEW_STATES)}")
    if key == "permission" and text not in _LEVELS:
        raise ScenarioError(f"{where}: {text!r} is not one of {', '.join(_LEVELS)}")
    return text


def _inline(raw: object, where: str) -> InlineSpec:
    table = _table(raw, where)
    _only(table, {"id", "database_id", "path", "line", "body"}, where)
    line = table.get("line")
    db = table.get("database_id")
    return InlineSpec(
        id=_str(_need(table, "id", where), f"{where}.id"),
        database_id=None if db is None else _int(db, f"{where}.database_id"),
        path=_str(_need(table, "path", where), f"{where}.path"),
        line=None if line is None else _int(line, f"{where}.line"),
        body=_str(table.get("body", ""), f"{where}.body"),
    )


# -- scalars -----------------------------------------------------------------------


def _need(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise ScenarioError(f"{where}: the key {key!r} is missing")
    return table[key]


def _only(table: Mapping[str, Any], keys: set[str], where: str) -> None:
    extra = sorted(set(table) - keys)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r}")


def _table(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: expected a table")
    return value


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where}: expected an array of tables")
    return value


def _str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: expected a string")
    return value


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScenarioError(f"{where}: expected an integer")
    return value


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(f"{where}: expected true or false")
    return value


def _time(value: object, where: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ScenarioError(
                f"{where}: {value!r} is not an RFC 3339 time (2026-01-05T09:00:00Z)"
            ) from None
    if not isinstance(value, datetime):
        raise ScenarioError(f"{where}: expected an RFC 3339 time")
    if value.tzinfo is None:
        raise ScenarioError(f"{where}: the time needs an offset (Z for UTC)")
    return value.astimezone(UTC)


def _duration(value: object, where: str) -> timedelta:
    try:
        return parse_duration(_str(value, where))
    except ValueError:
        raise ScenarioError(
            f'{where}: {value!r} is not a duration (an integer and s, m, h or d: "90s")'
        ) from None
