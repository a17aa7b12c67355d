"""Own-post data: inputs, the serialisable state kept in the mark, and verdicts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from ._text import LinkRef

__all__ = [
    "CallPlan",
    "CommentText",
    "InlineText",
    "NamedPr",
    "OwnPostState",
    "OwnPostVerdict",
    "PendingCall",
    "PlannedPost",
    "PlannedWrite",
    "PostRecord",
    "PostRef",
    "Role",
    "SourceState",
    "TranscriptSource",
    "WrittenFile",
]

Role = Literal["worker", "orchestrator", "sibling"]


class TranscriptSource(msgspec.Struct, frozen=True):
    """A transcript to read: a Claude Code session file (its ``<session>/subagents/*.jsonl``
    are read with it) or a Codex rollout, and whose transcript it is."""

    path: str
    role: Role = "worker"


class InlineText(msgspec.Struct, frozen=True):
    """One inline comment of a review."""

    url: str
    body: str


class CommentText(msgspec.Struct, frozen=True):
    """A comment as the matcher sees it: an issue comment or a review with its inline ones."""

    id: str
    kind: Literal["comment", "review"]
    url: str
    created_at: datetime
    viewer_did_author: bool
    body: str
    inline: tuple[InlineText, ...] = ()


class NamedPr(msgspec.Struct, frozen=True):
    """The pull request a post named. ``named`` false: it named none (the current branch's).

    ``None`` parts are unknown (``{owner}`` placeholders, a branch name, ``$PR``)."""

    named: bool = True
    host: str | None = None
    owner: str | None = None
    name: str | None = None
    number: int | None = None

    def __str__(self) -> str:
        if not self.named:
            return "current branch"
        repo = f"{self.owner or '?'}/{self.name or '?'}"
        return f"{repo}#{self.number if self.number is not None else '?'}"


class PostRecord(msgspec.Struct, frozen=True):
    """One posting command of one successful tool call, inside the window.

    ``bodies`` holds the normalised-body hashes it posted (a review's body first, then its
    inline comments); ``body_known`` is false when any body was computed by the shell.
    ``links`` are the permalinks the call printed; ``links_count`` says whether they may
    be used (every command of the call posts, and it printed no more links than posts).
    """

    key: str  # "<transcript>#<call id>/<index>": stable across re-reads
    source: str
    role: Role
    line: int
    tool: str
    call_id: str
    pr: NamedPr
    bodies: tuple[str, ...]
    body_known: bool
    links: tuple[LinkRef, ...]
    links_count: bool
    started: datetime
    finished: datetime
    pending_inline: bool = False  # an inline comment added to a pending review


class PlannedPost(msgspec.Struct, frozen=True):
    """A posting command as read from the call, before its result says it succeeded.

    ``bodies`` are the literal texts; ``body_known`` is false when one was computed by the
    shell; ``body_files`` are files to look up among those the thread wrote."""

    tool: str
    pr: NamedPr
    bodies: tuple[str, ...] = ()
    body_known: bool = True
    body_files: tuple[str, ...] = ()
    pending_inline: bool = False


class PlannedWrite(msgspec.Struct, frozen=True):
    """A file a call writes; ``text`` ``None`` when its content is unknown (forget it)."""

    path: str
    text: str | None


class CallPlan(msgspec.Struct, frozen=True):
    """What one tool call does: its posts, its file writes, and whether all of it posts."""

    posts: tuple[PlannedPost, ...] = ()
    writes: tuple[PlannedWrite, ...] = ()
    all_post: bool = False
    complete: bool = True
    reads: int = 0  # commands recognised as reads of GitHub


class PendingCall(msgspec.Struct, frozen=True):
    """A posting or file-writing call whose result has not arrived yet."""

    call_id: str
    line: int
    started: datetime | None
    tool: str
    plan: CallPlan
    # What the client said of the call before its output arrived (Codex's
    # ``mcp_tool_call_end`` / ``item_completed``): "" nothing yet, "ok" or "failed".
    outcome: str = ""


class WrittenFile(msgspec.Struct, frozen=True):
    """A file the thread wrote, by path, as the hash of its normalised text."""

    path: str
    hash: str


class SourceState(msgspec.Struct, frozen=True):
    """One transcript reader: where it stopped and what it still needs from the past."""

    path: str
    format: str = "unknown"  # claude-code, codex, codex-legacy
    device: int = 0
    inode: int = 0
    offset: int = 0
    lines: int = 0
    unreadable: int = 0  # lines it could not parse, or of a type it does not know
    ignored: int = 0  # lines of a known type that hold nothing for own posts
    tool_calls: int = 0
    last_time: datetime | None = None
    turns: tuple[datetime, ...] = ()
    pending: tuple[PendingCall, ...] = ()
    open_calls: tuple[str, ...] = ()  # ids of non-posting calls still without a result
    seen_calls: tuple[str, ...] = ()  # recent call ids, so a repeated block is one call
    files: tuple[WrittenFile, ...] = ()

    @property
    def unpaired(self) -> int:
        return len(self.pending) + len(self.open_calls)


class OwnPostState(msgspec.Struct, frozen=True):
    """What the comment-wake service keeps in its per-PR mark.

    Round-trips through ``msgspec.msgpack`` and ``msgspec.json``. ``explained`` maps a post
    key to the comment id it explained: a post explains one comment, for good.
    """

    sources: tuple[SourceState, ...] = ()
    posts: tuple[PostRecord, ...] = ()
    explained: dict[str, str] = msgspec.field(default_factory=dict)


class PostRef(msgspec.Struct, frozen=True):
    """Where a post is: transcript file, line, tool and call id."""

    source: str
    line: int
    tool: str
    call_id: str
    role: Role


class OwnPostVerdict(msgspec.Struct, frozen=True):
    """The answer for one comment: own or not, which rule decided, and why in words."""

    own: bool
    rule: Literal["link", "body", "not-viewer", "no-match", "tie", "explained-before"]
    explanation: str
    post: PostRef | None = None
