"""``scan``: read every transcript incrementally into the state; ``read_transcript`` for
the CLI. These are the only functions of the package that touch files."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import msgspec

from ._model import OwnPostState, PostRecord, SourceState, TranscriptSource
from ._readers import read_source

__all__ = [
    "FileReport",
    "ReportedPost",
    "check_readable",
    "read_transcript",
    "scan",
    "transcript_files",
]

_MAX_POSTS_PER_SOURCE = 512


def transcript_files(path: str) -> list[str]:
    """``path`` and, for a Claude Code session ``X.jsonl``, its ``X/subagents/*.jsonl``."""
    files = [path]
    if path.endswith(".jsonl"):
        folder = os.path.join(path[: -len(".jsonl")], "subagents")
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
        except OSError:
            names = []
        files.extend(os.path.join(folder, n) for n in names)
    return files


def check_readable(path: str) -> None:
    """Raise ``OSError`` when ``path`` or one of its subagents' files (``transcript_files``)
    cannot be opened: ``scan`` passes over a file it cannot open, which would read as "the
    agent posted nothing"."""
    for name in transcript_files(path):
        os.close(os.open(name, os.O_RDONLY))


def scan(
    state: OwnPostState,
    sources: Sequence[TranscriptSource],
    now: datetime,
    *,
    window: timedelta,
) -> OwnPostState:
    """Read what each source appended since the last scan; keep the posts in the window.

    Call it once per look, off the event loop; ``now`` closes the time of posts whose
    transcript lines carry no time (legacy Codex rollouts).
    """
    previous = {s.path: s for s in state.sources}
    readers: list[SourceState] = []
    posts = list(state.posts)
    keys = {p.key for p in posts}
    done: set[str] = set()
    for source in sources:
        for path in transcript_files(source.path):
            if path in done:
                continue
            done.add(path)
            result = read_source(previous.get(path, SourceState(path=path)), source.role, now)
            readers.append(result.state)
            for found in result.posts:
                if found.record.key not in keys:
                    keys.add(found.record.key)
                    posts.append(found.record)
    horizon = now - 2 * window
    readers = [_prune_turns(r, horizon) for r in readers]
    kept = _prune_posts(posts, readers, horizon)
    kept_keys = {p.key for p in kept}
    explained = {k: v for k, v in state.explained.items() if k in kept_keys}
    return OwnPostState(sources=tuple(readers), posts=tuple(kept), explained=explained)


def _latest_at_or_before(turns: Iterable[datetime], when: datetime) -> datetime | None:
    best: datetime | None = None
    for t in turns:
        if t <= when and (best is None or t > best):
            best = t
    return best


def _prune_turns(state: SourceState, horizon: datetime) -> SourceState:
    floor = _latest_at_or_before(state.turns, horizon)
    if floor is None:
        return state
    turns = tuple(t for t in state.turns if t >= floor)
    if turns == state.turns:
        return state
    return msgspec.structs.replace(state, turns=turns)


def _prune_posts(
    posts: list[PostRecord], readers: list[SourceState], horizon: datetime
) -> list[PostRecord]:
    floors = {r.path: _latest_at_or_before(r.turns, horizon) for r in readers}
    kept: list[PostRecord] = []
    for post in posts:
        # A transcript no longer listed keeps only its recent posts.
        floor = floors.get(post.source, horizon)
        if floor is None or post.finished >= floor:
            kept.append(post)
    kept.sort(key=lambda p: (p.started, p.key))
    counts: dict[str, int] = {}
    out: list[PostRecord] = []
    for post in reversed(kept):
        n = counts.get(post.source, 0)
        if n < _MAX_POSTS_PER_SOURCE:
            counts[post.source] = n + 1
            out.append(post)
    out.reverse()
    return out


@dataclass(frozen=True, slots=True)
class ReportedPost:
    """A post as ``comment-wake transcripts scan`` shows it."""

    tool: str
    line: int
    call_id: str
    pr: str | None  # None: named no PR (the current branch's)
    body: str | None  # None: unknown (computed by the shell)
    links: tuple[str, ...]
    links_count: bool
    started: datetime
    finished: datetime

    def to_json(self) -> dict[str, object]:
        return {
            "tool": self.tool,
            "line": self.line,
            "call_id": self.call_id,
            "pr": self.pr,
            "names_pr": self.pr is not None,
            "body": self.body,
            "links": list(self.links),
            "links_count": self.links_count,
            "started": self.started.isoformat(),
            "finished": self.finished.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class FileReport:
    """What one transcript file holds, as the readers see it."""

    path: str
    format: str
    lines: int
    unreadable: int
    tool_calls: int
    unpaired: int
    posts: tuple[ReportedPost, ...]
    ignored: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "format": self.format,
            "lines": self.lines,
            "unreadable": self.unreadable,
            "ignored": self.ignored,
            "tool_calls": self.tool_calls,
            "unpaired": self.unpaired,
            "posts": [p.to_json() for p in self.posts],
        }


def read_transcript(path: str, *, now: datetime | None = None) -> FileReport:
    """Read one transcript file from the start with the same reader ``scan`` uses."""
    result = read_source(SourceState(path=path), "worker", now or datetime.now(UTC))
    state = result.state
    posts = tuple(
        ReportedPost(
            tool=f.record.tool,
            line=f.record.line,
            call_id=f.record.call_id,
            pr=str(f.record.pr) if f.record.pr.named else None,
            body=None if f.texts is None else "\n\n".join(f.texts),
            links=tuple(link.url for link in f.record.links),
            links_count=f.record.links_count,
            started=f.record.started,
            finished=f.record.finished,
        )
        for f in result.posts
    )
    return FileReport(
        path=path,
        format=state.format,
        lines=state.lines,
        unreadable=state.unreadable,
        ignored=state.ignored,
        tool_calls=state.tool_calls,
        unpaired=state.unpaired,
        posts=posts,
    )
