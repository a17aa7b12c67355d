"""The outbox of posts a worker's tools asked for, and the own-post records by id.

A tool call (``reply``, ``review``, ``progress``) writes one ``posts`` row: the intent, with
its key (the 128 random bits of the hidden marker), its PR and the SHA-256 of the body.
The daemon's post sender posts it with its token and records, in one transaction, the ids
GitHub gave (``post_ids``), which the wake's ``own-post-id`` rule passes over with
certainty.  A row is ``queued`` until it is sent, ``sending`` from just before the request
to the answer (a crash or a lost answer leaves it there, and the sender looks for the key
before posting again), then ``posted`` or ``failed``.

A progress comment is one row per worker and PR: a later text waits in ``pending_body``
for the row's ``next_attempt_at`` (the progress gap), and only the latest text is kept.

Functions over the ``SyncStore`` run their own transaction; those taking a ``ReadTx`` or
``WriteTx`` run inside the caller's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, Literal

import msgspec

from comment_wake._post_marker import text_sha256 as body_sha256
from review_monitor import PrRef
from review_monitor.github import Posted, ReviewLine
from review_monitor.store import (
    Migration,
    ReadTx,
    SyncStore,
    Tables,
    WriteTx,
    parse_store_time,
    store_time,
)

from ._hosts import of_workers

__all__ = [
    "POSTS",
    "Post",
    "PostStatus",
    "PostTarget",
    "PostTool",
    "count_posts",
    "due_posts",
    "fail_post",
    "insert_post",
    "next_post_at",
    "post_by_key",
    "posts",
    "pr_key",
    "pr_posts",
    "progress_post",
    "prune_posts",
    "record_posted",
    "requeue_post",
    "schedule_post",
    "sending_post",
    "set_progress_text",
    "wrote_progress",
]

PostTool = Literal["reply", "review", "progress"]
"""The tool that asked for a post."""
PostStatus = Literal["queued", "sending", "posted", "failed"]
"""A post's state: waiting, sent with no answer yet, posted, or refused for good."""

_V1 = (
    """CREATE TABLE posts (
        key TEXT PRIMARY KEY,
        worker TEXT NOT NULL,
        host TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        pr_key TEXT NOT NULL,
        tool TEXT NOT NULL CHECK (tool IN ('reply', 'review', 'progress')),
        body TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        target BLOB NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'posted', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        sent_at TEXT,
        searched_at TEXT,
        node_id TEXT,
        database_id INTEGER,
        url TEXT,
        review_database_id INTEGER,
        failure TEXT,
        pending_body TEXT,
        written_at TEXT,
        recreated INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX posts_due ON posts (next_attempt_at) WHERE status IN ('queued', 'sending') "
    "OR pending_body IS NOT NULL",
    "CREATE INDEX posts_by_pr ON posts (pr_key, created_at)",
    "CREATE INDEX posts_by_worker ON posts (worker, created_at)",
    "CREATE UNIQUE INDEX posts_progress ON posts (worker, pr_key) WHERE tool = 'progress'",
    """CREATE TABLE post_ids (
        node_id TEXT PRIMARY KEY,
        key TEXT NOT NULL REFERENCES posts (key) ON DELETE CASCADE,
        pr_key TEXT NOT NULL,
        recorded_at TEXT NOT NULL
    )""",
    "CREATE INDEX post_ids_by_pr ON post_ids (pr_key)",
)
POSTS = Tables("comment_wake.posts", (Migration(1, "the outbox of posts, own posts by id", _V1),))
"""The posts the worker tools asked for and the ids GitHub gave them, a part of the store
the app registers."""


class PostTarget(msgspec.Struct, frozen=True, kw_only=True):
    """What a post answers or is pinned to: the comment a reply answers (its node id,
    database id, kind and URL), or the commit and line comments of a review."""

    comment_id: str = ""
    comment_database_id: int | None = None
    comment_kind: str = ""  # comment, review or review-comment (a notice item's kind)
    comment_url: str = ""
    commit: str = ""
    lines: tuple[ReviewLine, ...] = ()

    @property
    def in_thread(self) -> bool:
        """A reply goes in the comment's review thread (GitHub needs its database id);
        any other reply is a PR comment linking the comment."""
        return self.comment_kind == "review-comment" and self.comment_database_id is not None


class Post(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the outbox of posts."""

    key: str
    worker: str
    pr: PrRef
    tool: PostTool
    body: str
    body_sha256: str
    target: PostTarget
    status: PostStatus
    attempts: int
    next_attempt_at: datetime
    sent_at: datetime | None
    searched_at: datetime | None
    node_id: str | None
    database_id: int | None
    url: str | None
    review_database_id: int | None
    failure: str | None
    pending_body: str | None
    written_at: datetime | None
    recreated: int
    created_at: datetime
    updated_at: datetime


def pr_key(pr: PrRef) -> str:
    """One PR as the table keys it: its folded identity, ``PrRef.key_text``."""
    return pr.key_text


_COLUMNS = (
    "key, worker, host, repo, number, tool, body, body_sha256, target, status, attempts, "
    "next_attempt_at, sent_at, searched_at, node_id, database_id, url, review_database_id, "
    "failure, pending_body, written_at, recreated, created_at, updated_at"
)
_TARGET = msgspec.json.Decoder(PostTarget)


def _time(value: str | None) -> datetime | None:
    return None if value is None else parse_store_time(value)


def _post(row: tuple[Any, ...]) -> Post:
    owner, _, name = row[3].partition("/")
    return Post(
        key=row[0],
        worker=row[1],
        pr=PrRef(owner=owner, name=name, number=row[4], host=row[2]),
        tool=row[5],
        body=row[6],
        body_sha256=row[7],
        target=_TARGET.decode(row[8]),
        status=row[9],
        attempts=row[10],
        next_attempt_at=parse_store_time(row[11]),
        sent_at=_time(row[12]),
        searched_at=_time(row[13]),
        node_id=row[14],
        database_id=row[15],
        url=row[16],
        review_database_id=row[17],
        failure=row[18],
        pending_body=row[19],
        written_at=_time(row[20]),
        recreated=row[21],
        created_at=parse_store_time(row[22]),
        updated_at=parse_store_time(row[23]),
    )


def _select(
    tx: ReadTx, where: str, args: Sequence[object], *, limit: int | None = None
) -> tuple[Post, ...]:
    # No limit: no LIMIT clause (SQLite's ``LIMIT -1`` is an error on PostgreSQL).
    sql = f"SELECT {_COLUMNS} FROM posts WHERE {where} ORDER BY created_at, key"
    if limit is None:
        return tuple(_post(r) for r in tx.execute(sql, tuple(args)).fetchall())
    rows = tx.execute(f"{sql} LIMIT ?", (*args, limit)).fetchall()
    return tuple(_post(r) for r in rows)


# -- the tools' writes ------------------------------------------------------------------


def count_posts(tx: ReadTx, worker: str, since: datetime) -> int:
    """How many posts ``worker`` asked for since ``since`` (a progress comment once)."""
    row = tx.execute(
        "SELECT count(*) FROM posts WHERE worker = ? AND created_at > ?",
        (worker, store_time(since)),
    ).fetchone()
    return int(row[0])


def insert_post(
    tx: WriteTx,
    *,
    key: str,
    worker: str,
    pr: PrRef,
    tool: PostTool,
    body: str,
    target: PostTarget | None = None,
) -> None:
    """Write the intent of one post, queued now."""
    now = store_time(tx.at)
    tx.execute(
        "INSERT INTO posts (key, worker, host, repo, number, pr_key, tool, body, body_sha256, "
        "target, status, next_attempt_at, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
        (
            key,
            worker,
            pr.host,
            pr.repo,
            pr.number,
            pr_key(pr),
            tool,
            body,
            body_sha256(body),
            msgspec.json.encode(target or PostTarget()),
            now,
            now,
            now,
        ),
    )


def progress_post(tx: ReadTx, worker: str, pr: PrRef) -> Post | None:
    """``worker``'s progress comment on ``pr``, if it asked for one."""
    found = _select(tx, "tool = 'progress' AND worker = ? AND pr_key = ?", (worker, pr_key(pr)))
    return found[0] if found else None


def set_progress_text(tx: WriteTx, key: str, body: str, due: datetime) -> None:
    """Make ``body`` the progress comment's next text: the text to create while it is not
    posted yet (or failed: it is tried again), else the text written at ``due`` or later
    (a text already waiting is replaced: only the latest is written)."""
    stamp = store_time(tx.at)
    tx.execute(
        "UPDATE posts SET "
        "body = CASE WHEN status IN ('queued', 'failed') THEN ? ELSE body END, "
        "body_sha256 = CASE WHEN status IN ('queued', 'failed') THEN ? ELSE body_sha256 END, "
        "pending_body = CASE WHEN status IN ('queued', 'failed') THEN NULL ELSE ? END, "
        "next_attempt_at = CASE WHEN status IN ('queued', 'failed') THEN ? "
        "WHEN status = 'posted' THEN ? ELSE next_attempt_at END, "
        "failure = CASE WHEN status = 'failed' THEN NULL ELSE failure END, "
        "status = CASE WHEN status = 'failed' THEN 'queued' ELSE status END, "
        "updated_at = ? WHERE key = ?",
        (body, body_sha256(body), body, stamp, store_time(due), stamp, key),
    )


# -- the sender's reads and writes ------------------------------------------------------


def due_posts(
    db: SyncStore, now: datetime, *, limit: int = 50, workers: Collection[str] | None = None
) -> tuple[Post, ...]:
    """Posts to send, look for or edit now, oldest first; ``workers``: only theirs (fleet
    mode: the workers bound on this host)."""
    mine, args = of_workers(workers, "worker")
    with db.read() as tx:
        return _select(
            tx,
            "(status IN ('queued', 'sending') OR pending_body IS NOT NULL) "
            f"AND next_attempt_at <= ?{mine}",
            (store_time(now), *args),
            limit=limit,
        )


def next_post_at(db: SyncStore, *, workers: Collection[str] | None = None) -> datetime | None:
    """When the next post falls due; None with nothing to send.  ``workers`` as in
    ``due_posts``."""
    mine, args = of_workers(workers, "worker")
    with db.read() as tx:
        row = tx.execute(
            "SELECT min(next_attempt_at) FROM posts "
            f"WHERE (status IN ('queued', 'sending') OR pending_body IS NOT NULL){mine}",
            args,
        ).fetchone()
    return None if row[0] is None else parse_store_time(row[0])


def post_by_key(tx: ReadTx, key: str) -> Post | None:
    """The post of ``key``, inside ``tx``; None when there is none."""
    found = _select(tx, "key = ?", (key,))
    return found[0] if found else None


def posts(db: SyncStore, *, worker: str | None = None, pr: PrRef | None = None) -> tuple[Post, ...]:
    """The posts asked for (one worker's, one PR's, or all), oldest first."""
    where = ["1 = 1"]
    args: list[object] = []
    if worker is not None:
        where.append("worker = ?")
        args.append(worker)
    if pr is not None:
        where.append("pr_key = ?")
        args.append(pr_key(pr))
    with db.read() as tx:
        return _select(tx, " AND ".join(where), args)


def sending_post(tx: WriteTx, key: str, body: str) -> None:
    """Just before the request: the post is ``sending``, sent now with ``body`` (a
    progress edit's text leaves ``pending_body``), one attempt more.  A crash from here
    on leaves it ``sending``, and the sender looks for its key before posting again."""
    tx.execute(
        "UPDATE posts SET status = 'sending', sent_at = ?, searched_at = NULL, "
        "attempts = attempts + 1, body = ?, body_sha256 = ?, "
        "pending_body = CASE WHEN pending_body = ? THEN NULL ELSE pending_body END, "
        "updated_at = ? WHERE key = ?",
        (store_time(tx.at), body, body_sha256(body), body, store_time(tx.at), key),
    )


def record_posted(
    tx: WriteTx,
    key: str,
    posted: Posted,
    *,
    next_at: datetime,
    review_node_id: str | None = None,
) -> None:
    """GitHub has the post: record the ids it gave (the own-post records by id, which the
    wake reads: the post's, and ``review_node_id``, the review GitHub made to hold a reply
    in a review thread), and when a progress text still waiting may be written
    (``next_at``).  A post no longer there is left alone."""
    stamp = store_time(tx.at)
    # One statement updates the row and gives its PR (no read before the write); every
    # row is fetched, so SQLite's statement is done before the next.
    found = tx.execute(
        "UPDATE posts SET status = 'posted', node_id = ?, database_id = ?, url = ?, "
        "review_database_id = ?, failure = NULL, written_at = ?, next_attempt_at = ?, "
        "updated_at = ? WHERE key = ? RETURNING pr_key",
        (
            posted.node_id,
            posted.database_id,
            posted.html_url,
            posted.review_database_id,
            stamp,
            store_time(next_at),
            stamp,
            key,
        ),
    ).fetchall()
    if not found:
        return
    for node in (posted.node_id, review_node_id):
        if node:
            tx.execute(
                "INSERT INTO post_ids (node_id, key, pr_key, recorded_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (node_id) DO NOTHING",
                (node, key, str(found[0][0]), stamp),
            )


def schedule_post(tx: WriteTx, key: str, at: datetime, *, searched: bool = False) -> None:
    """Try the post again at ``at`` (``searched``: its key was just looked for)."""
    tx.execute(
        "UPDATE posts SET next_attempt_at = ?, "
        "searched_at = CASE WHEN ? = 1 THEN ? ELSE searched_at END, updated_at = ? "
        "WHERE key = ?",
        (store_time(at), int(searched), store_time(tx.at), store_time(tx.at), key),
    )


def requeue_post(tx: WriteTx, key: str, *, recreate: bool = False) -> None:
    """Post again from scratch: after a search that found nothing twice, or (``recreate``)
    when a person deleted the progress comment (done once only)."""
    stamp = store_time(tx.at)
    tx.execute(
        "UPDATE posts SET status = 'queued', sent_at = NULL, searched_at = NULL, "
        "next_attempt_at = ?, recreated = recreated + ?, "
        "pending_body = CASE WHEN ? = 1 THEN NULL ELSE pending_body END, updated_at = ? "
        "WHERE key = ?",
        (stamp, int(recreate), int(recreate), stamp, key),
    )
    if recreate:
        tx.execute(
            "UPDATE posts SET node_id = NULL, database_id = NULL, url = NULL WHERE key = ?", (key,)
        )


def fail_post(tx: WriteTx, key: str, failure: str) -> None:
    """GitHub refused the post for good (``failure`` names why, in a few words)."""
    tx.execute(
        "UPDATE posts SET status = 'failed', failure = ?, pending_body = NULL, updated_at = ? "
        "WHERE key = ?",
        (failure, store_time(tx.at), key),
    )


def wrote_progress(tx: WriteTx, key: str, *, next_at: datetime) -> None:
    """A progress edit landed: a text still waiting goes at ``next_at``."""
    stamp = store_time(tx.at)
    tx.execute(
        "UPDATE posts SET status = 'posted', written_at = ?, next_attempt_at = ?, "
        "updated_at = ? WHERE key = ?",
        (stamp, store_time(next_at), stamp, key),
    )


# -- the wake's read --------------------------------------------------------------------


def pr_posts(
    tx: ReadTx, pr: PrRef, *, since: datetime
) -> tuple[dict[str, tuple[str, str]], dict[int, tuple[str, str]], dict[str, tuple[str, str]]]:
    """What the wake's ``own-post-id`` rule reads of ``pr``: the node ids recorded for its
    posts and the database ids of the reviews GitHub made to hold its replies (each to its
    post's tool and key), and its intents asked for since ``since`` whose ids are not known
    (each key to its tool and body hash)."""
    key = pr_key(pr)
    ids = {
        node: (tool, post_key)
        for node, tool, post_key in tx.execute(
            "SELECT i.node_id, p.tool, p.key FROM post_ids i JOIN posts p ON p.key = i.key "
            "WHERE i.pr_key = ?",
            (key,),
        )
    }
    reviews = {
        int(review): (tool, post_key)
        for review, tool, post_key in tx.execute(
            "SELECT review_database_id, tool, key FROM posts "
            "WHERE pr_key = ? AND tool = 'reply' AND review_database_id IS NOT NULL",
            (key,),
        )
    }
    intents = {
        post_key: (tool, sha)
        for post_key, tool, sha in tx.execute(
            "SELECT key, tool, body_sha256 FROM posts "
            "WHERE pr_key = ? AND node_id IS NULL AND created_at > ?",
            (key, store_time(since)),
        )
    }
    return ids, reviews, intents


def prune_posts(db: SyncStore, *, before: datetime) -> int:
    """Delete posts settled before ``before`` and their id records, except progress
    comments (one per worker and PR, edited for as long as the worker works).  Returns how
    many posts."""
    with db.write(at=before) as tx:
        # post_ids goes with its post (ON DELETE CASCADE).
        cur = tx.execute(
            "DELETE FROM posts WHERE tool != 'progress' AND status IN ('posted', 'failed') "
            "AND updated_at < ?",
            (store_time(before),),
        )
        return cur.rowcount
