"""An in-memory stand-in for the wake service, for tests of the core.

``WakeSim`` holds one PR's comments and reviews, answers the core's reads from them
(details, own-post verdicts, permission lookups with injectable failures, gap reads)
and runs ``step`` until nothing more is needed, storing the mark encoded as the real
service does, so every poll also checks that the mark survives a round trip.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

import msgspec

from review_monitor import (
    Author,
    BadgeItem,
    GapRead,
    InlineComment,
    ItemDetail,
    LookupFailed,
    MonitorConfig,
    Notice,
    PageInfo,
    PermissionAnswer,
    PrRef,
    PrStatus,
)

from ._config import WakeConfig
from ._core import finish, next_due, step
from ._mark import WakeMark, decode_mark, encode_mark
from ._model import Binding, Decision, Facts, FloodGap, GapNeed, KnownPosts, LogLine, Step

__all__ = ["OwnVerdict", "SimItem", "WakeSim"]


@dataclass(frozen=True, slots=True)
class OwnVerdict:
    own: bool
    explanation: str


@dataclass(slots=True)
class SimItem:
    item: BadgeItem
    body: str
    inline: tuple[InlineComment, ...] = ()
    listed: bool = True  # False: GitHub gave it no parseable time, so the badge leaves it off


@dataclass
class WakeSim:
    config: WakeConfig = field(default_factory=WakeConfig)
    monitor: MonitorConfig = field(default_factory=MonitorConfig)
    pr: PrRef = field(default_factory=lambda: PrRef("octo-org", "octo-repo", 12))
    title: str = "chore(ci): force-cancel a closed pull request's runs"
    viewer: str = "alice"
    comments_window: int = 10
    reviews_window: int = 20
    seed: int = 0
    binding: Binding = field(init=False)
    state: Literal["OPEN", "CLOSED", "MERGED"] = "OPEN"
    mark: bytes | None = None
    permissions: dict[str, str] = field(default_factory=dict)  # lower-cased login -> level
    lookup_failures: dict[str, int] = field(default_factory=dict)  # login or "*" -> count
    own: dict[str, str] = field(default_factory=dict)  # item id -> explanation
    # The worker tools' posts on the PR, as the service reads them at each look.
    posts: KnownPosts = field(default_factory=KnownPosts)
    items: dict[str, SimItem] = field(default_factory=dict)  # in the order GitHub lists them
    decisions: list[Decision] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    logs: list[LogLine] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)
    detail_reads: list[str] = field(default_factory=list)
    rereads: list[str] = field(default_factory=list)  # held ids read again at release
    reread_failures: int = 0  # the next re-reads that fail (the service commits nothing)
    gap_reads: list[GapNeed] = field(default_factory=list)
    flood_gaps: list[FloodGap] = field(default_factory=list)  # the spans no read covered
    # The poll interval in force, as the budget governor reports it (None: the configured).
    interval: timedelta | None = None
    last_status: PrStatus | None = None

    def __post_init__(self) -> None:
        self.binding = Binding(self.pr, "w-1", spawned_by="orch-1")
        self._rng = random.Random(self.seed)
        self._next_db = 1000
        # A badge's start cursor names the oldest item it listed, as GitHub's cursor names a
        # position: a gap read goes back from there, never into what was posted after it.
        self._cursors: dict[str, tuple[str, datetime]] = {}

    # -- GitHub's side ---------------------------------------------------------------

    def comment(
        self,
        id: str,
        author: str | None,
        at: datetime,
        body: str = "Please rebase.",
        *,
        author_type: str = "User",
        viewer_did_author: bool | None = None,
        minimized: bool = False,
        listed: bool = True,
    ) -> None:
        self._add("comment", id, author, at, body, author_type, viewer_did_author, None, ())
        self.items[id].item = _replace_item(self.items[id].item, is_minimized=minimized)
        self.items[id].listed = listed

    def review(
        self,
        id: str,
        author: str | None,
        at: datetime,
        body: str = "",
        *,
        state: str = "COMMENTED",
        inline: tuple[tuple[str, str, int | None, str], ...] = (),  # id, path, line, body
        author_type: str = "User",
        viewer_did_author: bool | None = None,
    ) -> None:
        comments = tuple(
            InlineComment(i, self._db(), path, line, line, text, f"{self._url()}#discussion_r{i}")
            for i, path, line, text in inline
        )
        self._add("review", id, author, at, body, author_type, viewer_did_author, state, comments)

    def flood(
        self, prefix: str, count: int, author: str, start: datetime, every_s: int = 1
    ) -> None:
        for n in range(1, count + 1):
            self.comment(
                f"{prefix}{n}", author, start + timedelta(seconds=every_s * (n - 1)), f"spam {n}"
            )

    def delete(self, *ids: str) -> None:
        for i in ids:
            del self.items[i]

    def delete_prefix(self, prefix: str) -> None:
        self.delete(*[i for i in self.items if i.startswith(prefix)])

    def edit(self, id: str, body: str) -> None:
        self.items[id].body = body

    def minimize(self, id: str) -> None:
        self.items[id].item = _replace_item(self.items[id].item, is_minimized=True)

    # -- the service's side ----------------------------------------------------------

    def badge(self) -> PrStatus:
        comments, c_page = self._window("comment", self.comments_window)
        reviews, r_page = self._window("review", self.reviews_window)
        full = [
            c[0].created_at
            for c, p in ((comments, c_page), (reviews, r_page))
            if c and p.has_previous_page
        ]
        return PrStatus(
            pr=self.pr,
            title=self.title,
            url=self._url(),
            state=self.state,
            merged=self.state == "MERGED",
            is_draft=False,
            head_ref_oid="0" * 40,
            review_decision=None,
            check_state=None,
            comments=comments,
            reviews=reviews,
            person_comments_from=max(full, default=None),
            comments_page=c_page,
            reviews_page=r_page,
        )

    def poll(self, now: datetime, *, release: bool = False) -> Step | None:
        """A badge poll; None when a read failed (nothing committed, as the service)."""
        self.last_status = self.badge()
        return self._run(now, self.last_status, release=release)

    def tick(self, now: datetime, *, release: bool = False) -> Step | None:
        """A timer call with the last badge (``release``: an operator's release)."""
        return self._run(now, self.last_status, release=release)

    def due(self) -> datetime | None:
        return None if self.mark is None else next_due(decode_mark(self.mark))

    def current_mark(self) -> WakeMark | None:
        return None if self.mark is None else decode_mark(self.mark)

    def unwatch(self, now: datetime) -> Step:
        result = finish(
            self.binding,
            self.current_mark() or WakeMark(),
            self.last_status,
            config=self.config,
            now=now,
        )
        self._record(result)
        return result

    def woken(self) -> list[str]:
        """Every comment id woken, in order."""
        return [d.comment for d in self.decisions if d.outcome == "wake"]

    def final(self, comment: str) -> list[Decision]:
        return [
            d
            for d in self.decisions
            if d.comment == comment and d.outcome in ("wake", "skip", "drop")
        ]

    # -- internals -------------------------------------------------------------------

    def _run(self, now: datetime, status: PrStatus | None, *, release: bool = False) -> Step | None:
        facts = Facts(posts=self.posts)
        mark = self.current_mark()
        for _ in range(8):
            result = step(
                self.binding,
                mark,
                status,
                facts,
                config=self.config,
                monitor=self.monitor,
                now=now,
                rng=self._rng,
                release=release,
                interval=self.interval,
            )
            if result.done:
                self.mark = encode_mark(result.mark)
                self._record(result)
                return result
            if result.needs.rereads and self.reread_failures > 0:
                self.reread_failures -= 1
                return None
            facts = self._read(result, facts, now)
        raise AssertionError("the core kept asking for reads")

    def _record(self, result: Step) -> None:
        self.mark = encode_mark(result.mark)
        self.decisions += result.decisions
        self.notices += result.notices
        self.logs += result.logs
        self.flood_gaps += result.gaps

    def _read(self, result: Step, facts: Facts, now: datetime) -> Facts:
        needs = result.needs
        details = dict(facts.details)
        gone = set(facts.gone)
        for i in needs.details:
            self.detail_reads.append(i)
            if i in self.items:
                details[i] = self._detail(self.items[i])
            else:
                gone.add(i)
        own = dict(facts.own_posts)
        for i in needs.own_posts:
            explanation = self.own.get(i)
            own[i] = OwnVerdict(explanation is not None, explanation or "no post explains it")
        perms = dict(facts.permissions)
        for login in needs.permissions:
            self.lookups.append(login)
            perms[login] = self._lookup(login, now)
        gaps = dict(facts.gaps)
        for need in needs.gaps:
            self.gap_reads.append(need)
            gaps[need.connection] = self._gap(need)
        rereads = dict(facts.rereads)
        for i in needs.rereads:
            self.rereads.append(i)
            s = self.items.get(i)
            rereads[i] = None if s is None else self._detail(s)
        return Facts(
            details,
            frozenset(gone),
            own,
            perms,
            gaps,
            facts.own_post_state,
            rereads=rereads,
            posts=facts.posts,
        )

    def _lookup(self, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        for key in (login, "*"):
            if self.lookup_failures.get(key, 0) > 0:
                self.lookup_failures[key] -= 1
                return LookupFailed(login, 502, "server error")
        level = self.permissions.get(login, "none")
        trusted = level in self.monitor.trusted_permissions
        return PermissionAnswer(login, level, None, trusted, now)

    def _gap(self, need: GapNeed) -> GapRead:
        kind = "comment" if need.connection == "comments" else "review"
        listed = [s for s in self.items.values() if s.item.kind == kind]
        start_id, start_at = self._cursors[need.cursor]
        ids = [s.item.id for s in listed]
        if start_id in ids:
            older = listed[: ids.index(start_id)]
        else:  # deleted since: the position stays
            older = [s for s in listed if s.item.created_at < start_at]
        read: list[BadgeItem] = []
        pages = 0
        while older and pages < need.max_pages:
            page, older = older[-100:], older[:-100]
            pages += 1
            read = [s.item for s in page if s.listed] + read
            if any(s.item.created_at <= need.stop for s in page):
                break
        complete = not older or any(i.created_at <= need.stop for i in read)
        reached = read[0].created_at if read else None
        return GapRead(tuple(read), reached, complete, pages)

    def _window(self, kind: str, size: int) -> tuple[tuple[BadgeItem, ...], PageInfo]:
        all_items = [s for s in self.items.values() if s.item.kind == kind]
        shown = all_items[-size:]
        cursor = None
        if shown:
            cursor = f"{kind}-cursor-{len(self._cursors)}"
            self._cursors[cursor] = (shown[0].item.id, shown[0].item.created_at)
        page = PageInfo(len(all_items) > size, cursor)
        return tuple(s.item for s in shown if s.listed), page

    def _detail(self, s: SimItem) -> ItemDetail:
        return ItemDetail(
            s.item.id,
            s.item.kind,
            s.body,
            self._url(s.item),
            None,
            s.inline,
            is_minimized=s.item.is_minimized,
        )

    def _add(
        self,
        kind: Literal["comment", "review"],
        id: str,
        author: str | None,
        at: datetime,
        body: str,
        author_type: str,
        viewer_did_author: bool | None,
        state: str | None,
        inline: tuple[InlineComment, ...],
    ) -> None:
        if viewer_did_author is None:
            viewer_did_author = author == self.viewer
        item = BadgeItem(
            kind=kind,
            id=id,
            database_id=self._db(),
            created_at=at,
            author=None if author is None else Author(author, author_type),
            viewer_did_author=viewer_did_author,
            state=state,
        )
        self.items[id] = SimItem(item, body, inline)

    def _db(self) -> int:
        self._next_db += 1
        return self._next_db

    def _url(self, item: BadgeItem | None = None) -> str:
        base = f"https://{self.pr.host}/{self.pr.repo}/pull/{self.pr.number}"
        if item is None:
            return base
        anchor = "issuecomment" if item.kind == "comment" else "pullrequestreview"
        return f"{base}#{anchor}-{item.database_id}"


def _replace_item(item: BadgeItem, **changes: object) -> BadgeItem:
    return msgspec.structs.replace(item, **changes)
