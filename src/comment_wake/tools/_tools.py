"""``WorkerTools``: what a bound worker's notice tells it to use, over the state store.

Each tool acts only for its own worker's PR (the registry's current binding) and only on
comments delivered to that worker on that PR (not those of a PR it was bound to before);
anything else raises ``ToolRefused`` with one line saying what to fix.  The tools write
store rows only (an outbox entry, an outcome, an owed reaction, a watch); the daemon's
delivery loop and acknowledger do the rest, so a crash anywhere loses and repeats nothing.
Results carry no comment text: URLs, logins, times and outcomes only.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Protocol, cast, get_args

import msgspec

from comment_wake._post_marker import new_post_key
from comment_wake.app._explain import comment_query
from comment_wake.app._state import pr_key as state_key
from comment_wake.app._status import read_daemon_state, read_status
from comment_wake.delivery import WORKER_MESSAGE_KIND, WORKER_REPORT_KIND
from comment_wake.delivery._ack import reaction_content
from comment_wake.registry import Registry, WorkerRecord
from comment_wake.store import (
    Addressed,
    CommentOutcome,
    Post,
    PostTarget,
    PostTool,
    address,
    count_posts,
    insert_post,
    outcome_summary,
    outcomes,
    owing,
    posts,
    progress_post,
    set_progress_text,
)
from comment_wake.wake import NOTICE_KIND, WakeConfig, one_line_title
from review_monitor import Clock, NoticeItem, NoticePr, PrRef
from review_monitor.github import ReviewLine
from review_monitor.store import SyncStore, WriteTx, count_enqueued, enqueue_notices
from untrusted_fence import is_blank, one_line

from ._messages import LinksTooLongError, WorkerKind, worker_notice
from ._posting import checkout_head, post_body, text_problem, working_dir

__all__ = ["ToolLimits", "ToolRefused", "Tools", "UnavailableTools", "WorkerTools"]

_ADDRESSED: Final = get_args(Addressed)
_ACTIONS: Final = ("status", "watch", "unwatch")
_SENT_KINDS: Final = (WORKER_MESSAGE_KIND, WORKER_REPORT_KIND)  # the hourly cap counts both
# A GraphQL node id as GitHub gives comments and reviews (IC_..., PRRC_..., PRR_...).
_NODE_ID: Final = re.compile(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_-]{4,200}")
_LINE_FIELDS: Final = frozenset(ReviewLine.__struct_fields__)
_POSTS_SHOWN: Final = 20


class ToolRefused(Exception):
    """A tool call that cannot be done; the message is one line saying what to fix."""


class Tools(Protocol):
    """What the MCP server serves: ``WorkerTools``, or ``UnavailableTools``."""

    @property
    def worker(self) -> str: ...

    def posting(self) -> bool: ...
    def message_orchestrator(self, text: str) -> str: ...
    def report(self, text: str, comment_ids: Sequence[str] = ()) -> str: ...
    def pr_review_monitor(self, action: str = "status") -> dict[str, Any]: ...
    def comment_addressed(
        self, comment_ids: Sequence[str], outcome: str, note: str = ""
    ) -> dict[str, Any]: ...
    def reply(self, comment: str, text: str, addressed: str | None = None) -> dict[str, Any]: ...
    def review(
        self, summary: str, comments: Sequence[Mapping[str, Any]], commit: str
    ) -> dict[str, Any]: ...
    def progress(self, text: str) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class UnavailableTools:
    """The tools of a worker whose state cannot be read (no store at the path, a damaged
    one): the server still starts, and every call answers ``why``."""

    worker: str
    why: str

    def posting(self) -> bool:
        return False

    def message_orchestrator(self, text: str) -> str:
        raise ToolRefused(self.why)

    def report(self, text: str, comment_ids: Sequence[str] = ()) -> str:
        raise ToolRefused(self.why)

    def pr_review_monitor(self, action: str = "status") -> dict[str, Any]:
        raise ToolRefused(self.why)

    def comment_addressed(
        self, comment_ids: Sequence[str], outcome: str, note: str = ""
    ) -> dict[str, Any]:
        raise ToolRefused(self.why)

    def reply(self, comment: str, text: str, addressed: str | None = None) -> dict[str, Any]:
        raise ToolRefused(self.why)

    def review(
        self, summary: str, comments: Sequence[Mapping[str, Any]], commit: str
    ) -> dict[str, Any]:
        raise ToolRefused(self.why)

    def progress(self, text: str) -> dict[str, Any]:
        raise ToolRefused(self.why)


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """The caps on what one worker may send its orchestrator, and post."""

    messages_per_hour: int = 20  # message_orchestrator and report together
    text_max: int = 20_000  # characters of one message or report
    comment_ids_max: int = 50  # comments one call may name
    posts_per_hour: int = 30  # reply, review and progress comments made together
    progress_min_gap: timedelta = timedelta(minutes=5)  # between two progress writes
    review_lines_max: int = 100  # line comments in one review


class WorkerTools:
    """The tools of one worker, ``worker``, over ``store`` (sync; each call a short
    transaction, safe while the daemon runs)."""

    def __init__(
        self,
        worker: str,
        *,
        store: SyncStore,
        registry: Registry,
        clock: Clock,
        wake: WakeConfig,
        pickup_reaction: str = "eyes",
        done_reaction: str = "+1",
        limits: ToolLimits = ToolLimits(),
        rng: random.Random | None = None,
        host_id: str | None = None,
    ) -> None:
        self.worker = worker
        self._host_id = host_id  # fleet mode: whose daemon's figures this host reads
        self._store = store
        self._registry = registry
        self._clock = clock
        self._wake = wake
        self._pickup = reaction_content(pickup_reaction)
        self._done = reaction_content(done_reaction)
        self._limits = limits
        self._rng = rng

    # -- the tools -------------------------------------------------------------------

    def message_orchestrator(self, text: str) -> str:
        """Send ``text`` to the worker's orchestrator (kind ``worker-message``)."""
        return self._send(WORKER_MESSAGE_KIND, text, ())

    def report(self, text: str, comment_ids: Sequence[str] = ()) -> str:
        """Send a report to the orchestrator linked to the delivered ``comment_ids``."""
        return self._send(WORKER_REPORT_KIND, text, comment_ids)

    def pr_review_monitor(self, action: str = "status") -> dict[str, Any]:
        """``status`` (the PR as comment-wake sees it), ``watch`` or ``unwatch``."""
        record = self._record()
        if action not in _ACTIONS:
            raise ToolRefused(f"unknown action {action!r}; use one of {', '.join(_ACTIONS)}")
        if action == "status":
            return self._status(record)
        changed = self._registry.set_watching(self.worker, action == "watch")
        verb = "now watching" if action == "watch" else "stopped watching"
        if not changed:
            verb = "already watching" if action == "watch" else "was not watching"
        result = self._status(record)
        result["result"] = f"{verb} {_name(record.pr)}"
        return result

    def comment_addressed(
        self, comment_ids: Sequence[str], outcome: str, note: str = ""
    ) -> dict[str, Any]:
        """Record what became of delivered comments; ``done`` owes the done reaction."""
        record = self._record()
        addressed = _outcome(outcome)
        rows = self._delivered(record, comment_ids)
        flat = one_line(note, 300)  # shown to the operator: cleaned like a title
        with self._store.write(at=self._clock.now()) as tx:
            owe = self._address(tx, rows, addressed, flat)
        return {
            "outcome": outcome,
            "comments": [_public(r, outcome) for r in rows],
            "reaction": "owed" if owe else "none",
        }

    # -- the posting tools (issue 27) -------------------------------------------------

    def reply(self, comment: str, text: str, addressed: str | None = None) -> dict[str, Any]:
        """Answer a comment delivered to this worker on its PR, or one of its own posts:
        in the thread of a review comment, else as a PR comment linking it.  ``addressed``
        records the delivered comment's outcome as ``comment_addressed`` does."""
        record = self._posting_record()
        refuse(text_problem(text, "reply"))
        outcome = None if addressed is None else _outcome(addressed)
        delivered, target = self._reply_target(record, comment)
        if outcome is not None and delivered is None:
            raise ToolRefused(
                "addressed applies to a comment delivered to you, not to your own post; "
                "leave it out"
            )
        key = new_post_key()
        link = None if target.in_thread else target.comment_url
        now = self._clock.now()
        with self._store.write(at=now) as tx:
            body = post_body(text, self.worker, key, replying_to=link)
            self._queue_post(tx, now, record, "reply", key, body, target)
            if outcome is not None and delivered is not None:
                self._address(tx, [delivered], outcome, "")
        result = {"status": "queued", "key": key, "comment": target.comment_url}
        if outcome is not None:
            result["outcome"] = outcome
        return result

    def review(
        self, summary: str, comments: Sequence[Mapping[str, Any]], commit: str
    ) -> dict[str, Any]:
        """Post one comment-only review of ``commit``, which must be both the worker's
        checkout and the PR's head: a summary and line comments, never a verdict."""
        record = self._posting_record()
        refuse(text_problem(summary, "summary", blank_ok=True))
        lines = self._review_lines(comments)
        if is_blank(summary) and not lines:
            raise ToolRefused("the review is empty; give a summary or line comments")
        commit = commit.strip().lower()
        if re.fullmatch(r"[0-9a-f]{40}", commit) is None:
            raise ToolRefused("commit must be the full 40-hex SHA of the commit you reviewed")
        workdir = working_dir(record, self._registry.homes)
        if workdir is None:
            raise ToolRefused(
                f"no checkout is known for worker {self.worker}; bind it again with --workdir"
            )
        try:
            head = checkout_head(workdir)
        except ValueError as exc:
            raise ToolRefused(str(exc)) from None
        if head != commit:
            raise ToolRefused(
                f"your checkout's HEAD is {head}, not {commit}; review the commit you have "
                "checked out"
            )
        pr_head = self._pr_head(record)
        if pr_head is not None and pr_head != commit:
            raise ToolRefused(
                f"the pull request's head on GitHub is {pr_head}, not {commit}; fetch and "
                "check out the new head, then review again"
            )
        key = new_post_key()
        target = PostTarget(commit=commit, lines=lines)
        now = self._clock.now()
        with self._store.write(at=now) as tx:
            body = post_body(summary, self.worker, key)
            self._queue_post(tx, now, record, "review", key, body, target)
        return {"status": "queued", "key": key, "commit": commit, "line_comments": len(lines)}

    def progress(self, text: str) -> dict[str, Any]:
        """Keep one progress comment on the PR at ``text``: created on the first call,
        then edited at most once per gap (the latest text wins)."""
        record = self._posting_record()
        refuse(text_problem(text, "progress text"))
        now = self._clock.now()
        gap = self._limits.progress_min_gap
        with self._store.write(at=now) as tx:
            # The worker's post lock before the read: two calls cannot both find no
            # progress comment and both create one.
            tx.lock(_post_lock(self.worker))
            post = progress_post(tx, self.worker, record.pr)
            if post is None:
                key = new_post_key()
                body = post_body(text, self.worker, key)
                self._queue_post(tx, now, record, "progress", key, body)
                return {"status": "queued", "key": key, "write": "create"}
            due = max(now, post.written_at + gap) if post.written_at is not None else now
            set_progress_text(tx, post.key, post_body(text, self.worker, post.key), due)
        return {
            "status": "queued",
            "key": post.key,
            "write": "edit" if post.node_id is not None else "create",
            "not_before": _iso(due),
        }

    def posting(self) -> bool:
        """Whether the posting tools are on for this worker now."""
        record = self._registry.worker(self.worker)
        return record is not None and record.post_tools

    def _posting_record(self) -> WorkerRecord:
        record = self._record()
        if not record.post_tools:
            raise ToolRefused(
                f"the posting tools are off for worker {self.worker}; an operator turns them "
                "on with `comment-wake bind --post-tools` (they post under the user's login)"
            )
        return record

    def _queue_post(
        self,
        tx: WriteTx,
        now: datetime,
        record: WorkerRecord,
        tool: PostTool,
        key: str,
        body: str,
        target: PostTarget | None = None,
    ) -> None:
        """Write a post's intent inside ``tx``, refused over the hourly cap (counted in the
        transaction that inserts, under the worker's post-cap lock taken before the count:
        servers side by side cannot both see room for one more)."""
        tx.lock(_post_lock(self.worker))
        made = count_posts(tx, self.worker, now - timedelta(hours=1))
        if made >= self._limits.posts_per_hour:
            raise ToolRefused(
                f"{made} posts in the last hour, the most a worker may make; wait, or say "
                "more in one post"
            )
        insert_post(
            tx, key=key, worker=self.worker, pr=record.pr, tool=tool, body=body, target=target
        )

    def _reply_target(
        self, record: WorkerRecord, comment: str
    ) -> tuple[CommentOutcome | None, PostTarget]:
        """The delivered comment (None for an own post) and what a reply to it answers."""
        node, database = comment_query(comment)
        for post in posts(self._store, worker=self.worker, pr=record.pr):
            if post.node_id is None:
                continue
            if (node is not None and node == post.node_id) or (
                node is None and database is not None and database == post.database_id
            ):
                in_thread = post.tool == "reply" and post.target.in_thread
                kind = "review" if post.tool == "review" else "comment"
                return None, PostTarget(
                    comment_id=post.node_id,
                    comment_database_id=post.database_id,
                    comment_kind="review-comment" if in_thread else kind,
                    comment_url=post.url or "",
                )
        row = self._delivered(record, [comment])[0]
        return row, PostTarget(
            comment_id=row.subject_id,
            comment_database_id=row.database_id,
            comment_kind=row.item_kind,
            comment_url=row.url,
        )

    def _review_lines(self, comments: Sequence[Mapping[str, Any]]) -> tuple[ReviewLine, ...]:
        if len(comments) > self._limits.review_lines_max:
            raise ToolRefused(
                f"{len(comments)} line comments; post at most {self._limits.review_lines_max}"
            )
        lines: list[ReviewLine] = []
        for n, raw in enumerate(comments, 1):
            unknown = sorted(set(raw) - _LINE_FIELDS)
            if unknown:
                raise ToolRefused(
                    f"line comment {n} takes no {', '.join(repr(k[:40]) for k in unknown[:5])}; "
                    "give path, line, body and optionally start_line and side (LEFT or RIGHT)"
                )
            try:
                line = msgspec.convert(raw, ReviewLine)
            except (msgspec.ValidationError, TypeError) as exc:
                raise ToolRefused(
                    f"line comment {n}: {exc}; give path, line, body and optionally "
                    "start_line and side (LEFT or RIGHT)"
                ) from None
            problem = text_problem(line.body, f"body of line comment {n}")
            if problem is None and (line.line < 1 or not line.path.strip()):
                problem = f"line comment {n} needs a path and a line of 1 or more"
            if (
                problem is None
                and line.start_line is not None
                and not (1 <= line.start_line < line.line)
            ):
                problem = f"line comment {n}: start_line must be from 1 to line - 1"
            refuse(problem)
            lines.append(line)
        return tuple(lines)

    def _pr_head(self, record: WorkerRecord) -> str | None:
        """The PR's head as the daemon's last badge of it gave it; None before one."""
        fleet = self._store.dialect == "postgresql"
        daemon = read_daemon_state(self._store, self._host_id if fleet else None)
        return None if daemon is None else daemon.pr_heads.get(state_key(record.pr))

    def _address(
        self, tx: WriteTx, rows: Sequence[CommentOutcome], outcome: Addressed, note: str
    ) -> bool:
        """Record ``outcome`` for delivered ``rows`` inside ``tx``; whether the done
        reaction is owed."""
        pickup = self._pickup
        done = self._done if outcome == "done" else None
        owe = done is not None and done != pickup
        address(tx, self.worker, [r.subject_id for r in rows], outcome, note)
        if owe:
            for row in rows:
                owing(row.seq, [row.subject_id], done or "", row.host)(tx)
        return owe

    # -- helpers ---------------------------------------------------------------------

    def _record(self) -> WorkerRecord:
        record = self._registry.worker(self.worker)
        if record is None:
            raise ToolRefused(
                f"no worker {self.worker!r} is bound; bind it with `comment-wake bind` "
                "and start this server with its id"
            )
        if record.archived:
            raise ToolRefused(f"worker {self.worker!r} is archived; bind it again to use its tools")
        return record

    def _send(self, kind: WorkerKind, text: str, comment_ids: Sequence[str]) -> str:
        record = self._record()
        if is_blank(text):
            raise ToolRefused("the text is blank; say what the orchestrator should know")
        if len(text) > self._limits.text_max:
            raise ToolRefused(
                f"the text has {len(text)} characters; keep it under {self._limits.text_max}"
            )
        linked = self._delivered(record, comment_ids) if comment_ids else ()
        now = self._clock.now()
        pr = self._notice_pr(record)
        try:
            notice = worker_notice(
                kind,
                worker=self.worker,
                orchestrator=record.orchestrator,
                pr=pr,
                text=text,
                comments=[
                    NoticeItem(r.subject_id, r.database_id, r.url, r.author, r.item_kind)
                    for r in linked
                ],
                at=now,
                rng=self._rng,
            )
        except LinksTooLongError as error:
            raise ToolRefused(str(error)) from None
        # Count and insert in one write transaction, under the PR's message-cap lock taken
        # before the count: servers running side by side cannot both see room for one
        # more under the cap (SQLite's BEGIN IMMEDIATE serialises them anyway; PostgreSQL
        # needs the lock).  A refusal rolls the insert back; a repeated text (its key
        # already there) is no new send.
        with self._store.write(at=now) as tx:
            tx.lock(f"message-cap:{record.pr.key_text}")
            sent = count_enqueued(tx, record.pr, _SENT_KINDS, now - timedelta(hours=1))
            if not enqueue_notices(tx, [notice]):
                return f"already sent to orchestrator {record.orchestrator} (the same text)"
            if sent >= self._limits.messages_per_hour:
                raise ToolRefused(
                    f"{sent} messages and reports in the last hour, the most a worker may "
                    "send; wait, or put what is left in one message"
                )
        noun = "message" if kind == WORKER_MESSAGE_KIND else "report"
        return f"{noun} queued for orchestrator {record.orchestrator}"

    def _delivered(
        self, record: WorkerRecord, comment_ids: Sequence[str]
    ) -> tuple[CommentOutcome, ...]:
        if not comment_ids:
            raise ToolRefused("name at least one comment (its node id, database id or URL)")
        if len(comment_ids) > self._limits.comment_ids_max:
            raise ToolRefused(f"name at most {self._limits.comment_ids_max} comments per call")
        # Every PR the worker was ever woken on, current first: a comment of an earlier
        # binding is found, to be refused naming both PRs, never acted on.
        mine = sorted(outcomes(self._store, worker=self.worker), key=lambda r: _pr(r) != record.pr)
        by_node: dict[str, CommentOutcome] = {}
        by_db: dict[int, CommentOutcome] = {}
        for r in mine:
            by_node.setdefault(r.subject_id, r)
            if r.database_id is not None:
                by_db.setdefault(r.database_id, r)
        found: dict[str, CommentOutcome] = {}
        for raw in comment_ids:
            node, database = comment_query(raw)
            if node is not None and _NODE_ID.fullmatch(node) is None:
                raise ToolRefused(
                    f"{_shown(raw)} is not a comment id; give the node id (IC_...), the "
                    "database id or the comment's URL from the notice"
                )
            row = by_node.get(node) if node is not None else by_db.get(database or 0)
            if row is None:
                raise ToolRefused(
                    f"{_shown(raw)} was not delivered to worker {self.worker} on "
                    f"{_name(record.pr)}; a tool acts only on its own worker's comments"
                )
            if _pr(row) != record.pr:
                raise ToolRefused(
                    f"{_shown(raw)} was delivered to worker {self.worker} on "
                    f"{row.repo}#{row.number}, not on its current PR {_name(record.pr)}; "
                    "a tool acts only on the comments of the worker's current PR"
                )
            found[row.subject_id] = row
        return tuple(found.values())

    def _notice_pr(self, record: WorkerRecord) -> NoticePr:
        title = ""
        for entry in reversed(
            self._store.entries(worker=self.worker, statuses=("delivered", "pending", "parked"))
        ):
            if entry.notice.kind == NOTICE_KIND:
                title = entry.notice.pr.title
                break
        pr = record.pr
        return NoticePr(
            host=pr.host,
            repo=pr.repo,
            number=pr.number,
            url=f"https://{pr.host}/{pr.repo}/pull/{pr.number}",
            title=one_line_title(title),
        )

    def _status(self, record: WorkerRecord) -> dict[str, Any]:
        now = self._clock.now()
        report = read_status(
            self._store,
            self._wake,
            now,
            inbox=self._registry.inbox_root,
            host_id=self._host_id,
        )
        line = next((p for p in report.prs if self.worker in p.workers), None)
        rows = outcomes(self._store, worker=self.worker, pr=record.pr)
        summary = outcome_summary(rows)
        watching = line is not None
        pr = self._notice_pr(record)
        result: dict[str, Any] = {
            "worker": self.worker,
            "pr": _name(record.pr),
            "url": pr.url,
            "title": pr.title,
            "state": "watching" if watching else "not watched",
            # As the daemon last read it: open, draft, merged, closed or gone.
            "pr_state": line.state if line else None,
            "held": line.held if line else 0,
            "held_until": _iso(line.held_until) if line else None,
            "wakes_left_hour": line.wakes_left_hour if line else None,
            "wakes_left_day": line.wakes_left_day if line else None,
            "next_wake_at": _iso(line.next_wake_at) if line else None,
            "pending_retries": line.pending_retries if line else 0,
            "summary": {
                "delivered": summary.delivered,
                "open": summary.open,
                "done": summary.done,
                "declined": summary.declined,
                "handed_off": summary.handed_off,
                "failed": summary.failed,
            },
            "open_comments": [_public(r, r.outcome) for r in rows if r.outcome == "open"],
        }
        mine = posts(self._store, worker=self.worker, pr=record.pr)
        if mine:
            # The last posts the tools asked for, a refusal's reason with it (issue 27).
            result["posts"] = [_post_line(p) for p in mine[-_POSTS_SHOWN:]]
        return result


def _post_line(post: Post) -> dict[str, Any]:
    line: dict[str, Any] = {
        "key": post.key,
        "tool": post.tool,
        "status": post.status,
        "url": post.url,
        "asked_at": _iso(post.created_at),
    }
    if post.failure is not None:
        line["failure"] = post.failure
    return line


def _outcome(value: str) -> Addressed:
    if value not in _ADDRESSED:
        raise ToolRefused(f"unknown outcome {value!r}; use one of {', '.join(_ADDRESSED)}")
    return cast(Addressed, value)


def refuse(problem: str | None) -> None:
    """Refuse the call with ``problem`` (one line), when there is one."""
    if problem is not None:
        raise ToolRefused(problem)


def _public(row: CommentOutcome, outcome: str) -> dict[str, Any]:
    return {
        "id": row.subject_id,
        "url": row.url,
        "author": row.author,
        "delivered_at": _iso(row.delivered_at),
        "outcome": outcome,
    }


def _pr(row: CommentOutcome) -> PrRef:
    owner, _, name = row.repo.partition("/")
    return PrRef(owner=owner, name=name, number=row.number, host=row.host)


def _name(pr: PrRef) -> str:
    return f"{pr.repo}#{pr.number}"


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat().replace("+00:00", "Z")


def _shown(raw: str) -> str:
    flat = "".join(ch if ch.isprintable() else "?" for ch in raw)
    return repr(flat[:80])


def _post_lock(worker: str) -> str:
    """The lock of ``worker``'s posts (``WriteTx.lock``): its hourly cap and its progress
    comments, each a count or a look before an insert."""
    return f"post-cap:{worker}"
