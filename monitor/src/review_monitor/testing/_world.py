"""``World``: the methods a test calls to change what FakeGitHub holds.

Open pull requests, post comments and reviews, edit, delete, minimize and corrupt them,
merge, close and reopen, push, add checks, set collaborator permissions and hide a
repository.  Each takes the store's lock, so it is safe while the fake serves requests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from review_monitor._model import PrRef

from ._nodes import Actor, Check, Comment, Inline, Item, Nodes, Now, Pr, Review

__all__ = ["ROLES", "World"]

# GitHub's legacy base permission of each role, stated here apart from the monitor's own
# table (``review_monitor._permissions``) so that the fake cannot share a mistake with it.
ROLES = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}


_KINDS = {"Comment": "comment", "Review": "review", "Inline": "review-comment"}


@dataclass(frozen=True)
class FakeItem:
    """One item on a fake PR as ``FakeGitHub.items`` gives it."""

    kind: str  # comment, review or review-comment
    id: str
    database_id: int
    author: str | None
    body: str
    state: str | None = None  # a review's
    path: str | None = None  # a review comment's
    line: int | None = None


class World:
    """FakeGitHub's data face: every mutator and every read of the data a test makes."""

    def __init__(self, *, clock: Now | None, viewer: str, host: str) -> None:
        self._nodes = Nodes(clock=clock, viewer=viewer, host=host)

    @property
    def clock(self) -> Now:
        return self._nodes.clock

    @clock.setter
    def clock(self, clock: Now) -> None:
        self._nodes.clock = clock

    @property
    def host(self) -> str:
        return self._nodes.host

    @host.setter
    def host(self, host: str) -> None:
        self._nodes.host = host

    @property
    def viewer(self) -> str:
        """The token's login."""
        return self._nodes.viewer.login

    def add_repo(self, repo: str) -> None:
        """Add ``owner/name`` (adding a PR adds its repository too)."""
        with self._nodes.lock:
            self._nodes.repo(repo, create=True)

    def add_pr(
        self,
        repo: str,
        number: int | None = None,
        *,
        title: str = "A change",
        author: str = "octocat",
        draft: bool = False,
        head_oid: str | None = None,
    ) -> PrRef:
        """Open a pull request; returns its reference on this fake's host."""
        nodes = self._nodes
        with nodes.lock:
            r = nodes.repo(repo, create=True)
            if number is None:
                number = max(r.prs, default=0) + 1
            if number in r.prs:
                raise ValueError(f"{repo}#{number} exists already")
            seq = nodes.next()
            pr = Pr(
                repo=r,
                id=f"PR_fake{seq}",
                number=number,
                title=title,
                author=Actor.of(author, None, seq),
                head_ref_oid=head_oid or hashlib.sha1(f"head{seq}".encode()).hexdigest(),
                updated_at=nodes.now(),
                is_draft=draft,
            )
            r.prs[number] = pr
            nodes.add(pr)
            return PrRef(owner=r.owner, name=r.name, number=number, host=nodes.host)

    def _new_item_fields(
        self,
        author: str | None,
        author_type: str | None,
        body: str,
        at: datetime | None,
        database_id: int | None = None,
    ) -> dict[str, Any]:
        seq = self._nodes.next()
        return {
            "seq": seq,
            "database_id": 1_000_000 + seq if database_id is None else database_id,
            "author": None if author is None else Actor.of(author, author_type, seq),
            "body": body,
            "created_at": (at or self._nodes.now()).astimezone(UTC),
        }

    def post_comment(
        self,
        pr: PrRef,
        author: str | None,
        body: str,
        *,
        author_type: str | None = None,
        at: datetime | None = None,
        node_id: str | None = None,
        database_id: int | None = None,
        listed_late: timedelta | None = None,
    ) -> str:
        """Post an issue comment; returns its node id.  ``author=None``: a deleted account.
        A login ending in ``[bot]`` is a Bot unless ``author_type`` says otherwise.
        ``node_id`` and ``database_id`` choose the ids (replays name their comments).
        ``listed_late``: the PR's ``updatedAt`` moves now, but the comments connection
        lists the comment only that much later (GitHub sometimes lists one late)."""
        nodes = self._nodes
        with nodes.lock:
            p = nodes.pr(pr)
            nodes.check_new_id(node_id)
            f = self._new_item_fields(author, author_type, body, at, database_id)
            item = Comment(
                id=node_id or f"IC_fake{f['seq']}",
                url=f"{p.url}#issuecomment-{f['database_id']}",
                listed_at=None if listed_late is None else nodes.now() + listed_late,
                **f,
            )
            p.comments.append(item)
            nodes.touch(p)
            nodes.add_item(item, p)
            return item.id

    def post_review(
        self,
        pr: PrRef,
        author: str | None,
        state: str = "COMMENTED",
        body: str = "",
        *,
        inline: Sequence[tuple[str, int | None, str]] = (),
        author_type: str | None = None,
        at: datetime | None = None,
        node_id: str | None = None,
        database_id: int | None = None,
        inline_ids: Sequence[tuple[str | None, int | None]] = (),
        listed_late: timedelta | None = None,
    ) -> str:
        """Submit a review (``APPROVED``, ``CHANGES_REQUESTED``, ``COMMENTED``, or
        ``PENDING``: not submitted) with inline comments ``(path, line, body)``.
        ``node_id``, ``database_id`` and ``inline_ids`` (node id, database id per inline
        comment, None parts assigned) choose the ids.  ``listed_late`` as for
        ``post_comment``; a submitted review moves the PR's ``updatedAt``."""
        if state not in ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"):
            raise ValueError(f"not a review state: {state!r}")
        nodes = self._nodes
        with nodes.lock:
            p = nodes.pr(pr)
            nodes.check_new_id(node_id)
            for inline_id, _ in inline_ids:
                nodes.check_new_id(inline_id)
            f = self._new_item_fields(author, author_type, body, at, database_id)
            review = Review(
                id=node_id or f"PRR_fake{f['seq']}",
                url=f"{p.url}#pullrequestreview-{f['database_id']}",
                state=state,
                submitted_at=None if state == "PENDING" else f["created_at"],
                listed_at=None if listed_late is None else nodes.now() + listed_late,
                **f,
            )
            for k, (path, line, text) in enumerate(inline):
                chosen_id, chosen_db = inline_ids[k] if k < len(inline_ids) else (None, None)
                g = self._new_item_fields(author, author_type, text, f["created_at"], chosen_db)
                comment = Inline(
                    id=chosen_id or f"PRRC_fake{g['seq']}",
                    url=f"{p.url}#discussion_r{g['database_id']}",
                    path=path,
                    line=line,
                    original_line=line,
                    **g,
                )
                review.inline.append(comment)
                nodes.add_item(comment, p)
            p.reviews.append(review)
            nodes.add_item(review, p)
            if state != "PENDING":
                nodes.touch(p)
            return review.id

    def edit(self, item_id: str, body: str, *, at: datetime | None = None) -> None:
        """Edit a comment's or review's body (its id stays; ``lastEditedAt`` and the PR's
        ``updatedAt`` move, as GitHub moves them)."""
        with self._nodes.lock:
            nodes = self._nodes
            item = nodes.item(item_id)
            item.body = body
            item.last_edited_at = (at or nodes.now()).astimezone(UTC)
            pr = nodes.parent.get(item_id)
            if pr is not None:
                pr.updated_at = max(pr.updated_at, item.last_edited_at)

    @property
    def list_posts_late(self) -> timedelta | None:
        """How much later than made a comment, review or reply posted over REST is listed,
        by the GraphQL connections and the REST listings alike (None: at once).  The PR's
        ``updatedAt`` moves at once."""
        return self._nodes.posts_listed_late

    @list_posts_late.setter
    def list_posts_late(self, late: timedelta | None) -> None:
        with self._nodes.lock:
            self._nodes.posts_listed_late = late

    def lock(self, pr: PrRef, locked: bool = True) -> None:
        """Lock (or unlock) the PR's conversation.  Posting on it is then refused with
        GitHub's 403, unless the token has write access (``set_push_access``), as on GitHub,
        where collaborators with write access may still comment."""
        with self._nodes.lock:
            self._nodes.touch(self._nodes.pr(pr)).locked = locked

    def set_diff(self, pr: PrRef, diff: Mapping[str, Iterable[int]]) -> None:
        """The right-side lines of each path a review comment may be on (a PR with no diff
        set refuses every line comment, as a PR without that file would)."""
        with self._nodes.lock:
            self._nodes.pr(pr).diff = {path: frozenset(lines) for path, lines in diff.items()}

    def delete(self, item_id: str) -> None:
        """Delete a comment (it leaves every listing; its node id no longer resolves)."""
        with self._nodes.lock:
            self._nodes.item(item_id).deleted = True

    def minimize(self, item_id: str) -> None:
        """Hide a comment as GitHub's "minimize" does (still listed, ``isMinimized``)."""
        with self._nodes.lock:
            self._nodes.item(item_id).is_minimized = True

    def dismiss(self, review_id: str) -> None:
        with self._nodes.lock:
            item = self._nodes.item(review_id)
            if not isinstance(item, Review):
                raise KeyError(f"{review_id} is not a review")
            item.state = "DISMISSED"

    def corrupt(self, node_id: str, field_name: str, value: Any) -> None:
        """Answer ``value`` for a GraphQL field of one node from now on (malformed data:
        ``corrupt(id, "createdAt", "yesterday")``, ``corrupt(id, "author", None)``)."""
        with self._nodes.lock:
            node = self._nodes.by_id[node_id]
            node.overrides[field_name] = value

    def merge(self, pr: PrRef) -> None:
        with self._nodes.lock:
            p = self._nodes.touch(self._nodes.pr(pr))
            p.state, p.merged = "MERGED", True

    def close(self, pr: PrRef) -> None:
        with self._nodes.lock:
            self._nodes.touch(self._unmerged(pr)).state = "CLOSED"

    def reopen(self, pr: PrRef) -> None:
        with self._nodes.lock:
            self._nodes.touch(self._unmerged(pr)).state = "OPEN"

    def _unmerged(self, pr: PrRef) -> Pr:
        p = self._nodes.pr(pr)
        if p.merged:
            raise ValueError(f"{pr} is merged")
        return p

    def set_draft(self, pr: PrRef, draft: bool) -> None:
        with self._nodes.lock:
            self._nodes.touch(self._nodes.pr(pr)).is_draft = draft

    def set_review_decision(self, pr: PrRef, decision: str | None) -> None:
        with self._nodes.lock:
            self._nodes.touch(self._nodes.pr(pr)).review_decision = decision

    def push(self, pr: PrRef, oid: str | None = None) -> str:
        """Move the PR's head to a new commit (checks belong to a head commit)."""
        nodes = self._nodes
        with nodes.lock:
            p = nodes.touch(nodes.pr(pr))
            p.head_ref_oid = oid or hashlib.sha1(f"push{nodes.next()}".encode()).hexdigest()
            return p.head_ref_oid

    def head(self, pr: PrRef) -> str:
        with self._nodes.lock:
            return self._nodes.pr(pr).head_ref_oid

    def add_check_run(
        self,
        pr: PrRef,
        name: str,
        *,
        conclusion: str | None = "FAILURE",
        status: str = "COMPLETED",
        title: str | None = None,
        summary: str | None = None,
        text: str | None = None,
        details_url: str | None = None,
    ) -> str:
        """Add a check run on the PR's current head; returns its node id."""

        def build(p: Pr, seq: int) -> Check:
            return Check(
                id=f"CR_fake{seq}",
                seq=seq,
                typename="CheckRun",
                name=name,
                status=status,
                conclusion=conclusion if status == "COMPLETED" else None,
                title=title,
                summary=summary,
                text=text,
                details_url=details_url or f"{p.repo.html}/runs/{seq}",
                database_id=2_000_000 + seq,
            )

        return self._add_check(pr, build)

    def add_status(
        self,
        pr: PrRef,
        context: str,
        state: str = "FAILURE",
        *,
        description: str | None = None,
        target_url: str | None = None,
    ) -> str:
        """Add a commit status context on the PR's current head; returns its node id."""

        def build(_p: Pr, seq: int) -> Check:
            return Check(
                id=f"SC_fake{seq}",
                seq=seq,
                typename="StatusContext",
                name=context,
                state=state,
                summary=description,
                details_url=target_url,
            )

        return self._add_check(pr, build)

    def _add_check(self, pr: PrRef, build: Callable[[Pr, int], Check]) -> str:
        """Add the check ``build(pr, seq)`` makes on the PR's current head."""
        with self._nodes.lock:
            p = self._nodes.pr(pr)
            check = build(p, self._nodes.next())
            p.checks.setdefault(p.head_ref_oid, []).append(check)
            self._nodes.add(check)
            return check.id

    def set_permission(self, repo: str, login: str, role: str | None) -> None:
        """A collaborator's role: admin, maintain, write, triage, read, none (None: not
        listed, so the permission route answers 404)."""
        with self._nodes.lock:
            r = self._nodes.repo(repo, create=True)
            if role is None:
                r.permissions.pop(login.lower(), None)
                return
            if role not in ROLES:
                raise ValueError(f"not a role: {role!r}; use one of {', '.join(ROLES)}")
            r.permissions[login.lower()] = (ROLES[role], role)

    def set_push_access(self, repo: str, allowed: bool) -> None:
        """Whether the token may read collaborator permissions (GitHub answers 403 if not)."""
        with self._nodes.lock:
            self._nodes.repo(repo, create=True).push_access = allowed

    def hide_repo(self, repo: str, hidden: bool = True) -> None:
        """The token loses (or regains) access: GraphQL answers NOT_FOUND, REST 404."""
        with self._nodes.lock:
            self._nodes.repo(repo).hidden = hidden

    def reactions(self, subject_id: str) -> tuple[tuple[str, str], ...]:
        """``(content, login)`` of each reaction added to a comment or review."""
        with self._nodes.lock:
            return tuple(self._nodes.item(subject_id).reactions)

    def items(self, pr: PrRef) -> tuple[FakeItem, ...]:
        """Every comment, review and review comment on ``pr`` that is not deleted, in the
        order they were made, as a test reads them (listed late or not)."""
        with self._nodes.lock:
            p = self._nodes.pr(pr)
            made: list[Item] = [*p.comments]
            for review in p.reviews:
                made += [review, *review.inline]
            return tuple(
                FakeItem(
                    kind=_KINDS[type(item).__name__],
                    id=item.id,
                    database_id=item.database_id,
                    author=None if item.author is None else item.author.login,
                    body=item.body,
                    state=getattr(item, "state", None),
                    path=getattr(item, "path", None),
                    line=getattr(item, "line", None),
                )
                for item in sorted(made, key=lambda i: i.seq)
                if not item.deleted
            )
