"""``RegistrySnapshot``: the registry as of one read transaction, and ``RegistryBook``,
the daemon's copy of it, reloaded only when the registry version moves.

A look at a PR needs its binding (who owns it, since when it is watched) and, for the
own-post check, its worker's transcript specs with its orchestrator's and siblings'.
Reading them from the store at every look decoded every worker's record per look, which
grew with the fleet (issue 26).  The snapshot reads every record once; the book keeps it
and reads only the registry version (``review_monitor.store``'s counter, moved in the
same transaction as every registry write and every watch change) to know it is current.
Transcript *files* are still resolved at each scan (``Registry.transcript_sources``,
with its one-minute cache), so a new compaction file or a moved session is found.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

import msgspec

from comment_wake.wake import Binding
from review_monitor import PrRef, Watch

from ._model import OrchestratorRecord, TranscriptSpec, WorkerRecord

if TYPE_CHECKING:
    from comment_wake.ownpost import TranscriptSource

    from ._registry import Registry

__all__ = ["RegistryBook", "RegistrySnapshot", "Role", "SpecGroup", "TranscriptAgent"]

Role = Literal["worker", "orchestrator", "sibling"]
SpecGroup = tuple[Role, tuple[TranscriptSpec, ...]]
"""A role and the transcript specs read under it, closest role first."""
TranscriptAgent = tuple[Role, WorkerRecord | OrchestratorRecord]
"""A role and the worker or orchestrator whose transcripts are read under it."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _archive_order(record: WorkerRecord) -> tuple[bool, datetime]:
    return (record.archived_at is not None, record.archived_at or _EPOCH)


class RegistrySnapshot:
    """The workers, orchestrators and watches as of one read, at registry ``version``."""

    def __init__(
        self,
        version: int,
        workers: Iterable[WorkerRecord],
        orchestrators: Iterable[OrchestratorRecord],
        watch_starts: Mapping[Watch, datetime],
    ) -> None:
        self.version = version
        self._workers = {w.worker: w for w in sorted(workers, key=lambda w: w.worker)}
        self._orchestrators = {o.id: o for o in orchestrators}
        self._starts = dict(watch_starts)
        self.watched: tuple[PrRef, ...] = tuple(sorted({w.pr for w in self._starts}))
        """Every PR some thread watches (a worker, or another watcher)."""
        self._team: dict[str, list[WorkerRecord]] = defaultdict(list)
        owner: dict[PrRef, WorkerRecord] = {}
        for record in self._workers.values():
            self._team[record.orchestrator].append(record)
            # A PR's owner: its live worker (the first by id), else its last archived one.
            found = owner.get(record.pr)
            if (
                found is None
                or (found.archived and not record.archived)
                or (
                    found.archived
                    and record.archived
                    and _archive_order(record) > _archive_order(found)
                )
            ):
                owner[record.pr] = record
        self._bindings = {pr: self._binding_of(pr, r) for pr, r in owner.items()}

    def _binding_of(self, pr: PrRef, record: WorkerRecord) -> Binding:
        since = None if record.archived else self._starts.get(Watch(record.worker, pr))
        return Binding(
            pr=pr,
            worker=record.worker,
            spawned_by=record.orchestrator,
            archived=record.archived,
            watched=since is not None,
            watched_since=since,
            trigger=record.trigger,
            handle=record.handle,
            post_tools=record.post_tools,
        )

    def binding(self, pr: PrRef) -> Binding:
        """Who owns ``pr`` (spelled as asked): its live worker, else its last archived one,
        else nobody."""
        found = self._bindings.get(pr)
        if found is None:
            return Binding(pr=pr, worker=None)
        # PrRef compares names case-insensitively; the binding keeps the asker's spelling
        # (GitHub's, from the badge), as the registry's answer always did.
        return found if str(found.pr) == str(pr) else msgspec.structs.replace(found, pr=pr)

    def worker(self, worker: str) -> WorkerRecord | None:
        return self._workers.get(worker)

    def workers(self) -> tuple[WorkerRecord, ...]:
        """Every worker, archived ones too, sorted by id."""
        return tuple(self._workers.values())

    def orchestrators(self) -> tuple[OrchestratorRecord, ...]:
        return tuple(self._orchestrators.values())

    def transcript_groups(self, worker: str, *, here: str | None = None) -> tuple[SpecGroup, ...]:
        """The transcript specs to read for ``worker``'s own posts: its own (role
        ``worker``), its orchestrator's and its siblings'; () for an unknown worker.
        ``here``: this fleet host, whose scan leaves out the agents bound on another host
        (their files are there; a file by the same path here is some other agent's, whose
        posts must never hide a writer's comment).  None: a single host reads them all."""
        return tuple(
            (role, agent.transcripts)
            for role, agent in self.transcript_agents(worker)
            if here is None or agent.host_id is None or agent.host_id == here
        )

    def transcript_agents(self, worker: str) -> tuple[TranscriptAgent, ...]:
        """Whose transcripts ``worker``'s own-post check reads, closest role first: the
        worker, its orchestrator, its siblings; () for an unknown worker."""
        me = self._workers.get(worker)
        if me is None:
            return ()
        agents: list[TranscriptAgent] = [("worker", me)]
        boss = self._orchestrators.get(me.orchestrator)
        if boss is not None:
            agents.append(("orchestrator", boss))
        agents.extend(("sibling", s) for s in self._team[me.orchestrator] if s is not me)
        return tuple(agents)

    def moved_since(self, before: RegistrySnapshot) -> frozenset[PrRef]:
        """The PRs whose binding differs from ``before``'s (bound, unbound, archived,
        re-bound, watched again)."""
        prs = self._bindings.keys() | before._bindings.keys()
        return frozenset(pr for pr in prs if self.binding(pr) != before.binding(pr))


class RegistryBook:
    """The registry as the daemon reads it: a ``RegistrySnapshot`` kept in memory and
    reloaded when the registry version moved (``refresh``: one read of the version when
    it did not).  It is the wake's ``BindingSource``; ``version`` is the registry version
    its answers hold as of, which the wake's commit checks inside its transaction.
    ``on_load`` is called with each snapshot it loads, the first one included (the
    daemon's registry cache, in fleet mode)."""

    def __init__(
        self,
        registry: Registry,
        *,
        on_load: Callable[[RegistrySnapshot], None] | None = None,
    ) -> None:
        self._registry = registry
        self._on_load = on_load
        self._snapshot = registry.snapshot()
        if on_load is not None:
            on_load(self._snapshot)

    @property
    def snapshot(self) -> RegistrySnapshot:
        return self._snapshot

    def refresh(self) -> frozenset[PrRef]:
        """Reload when the registry version moved; the PRs whose binding changed (blocking:
        call it off the event loop)."""
        if self._registry.version() == self._snapshot.version:
            return frozenset()
        before, self._snapshot = self._snapshot, self._registry.snapshot()
        if self._on_load is not None:
            self._on_load(self._snapshot)
        return self._snapshot.moved_since(before)

    def version(self) -> int:
        return self._snapshot.version

    def binding(self, pr: PrRef) -> Binding:
        return self._snapshot.binding(pr)

    def transcripts(self, worker: str) -> tuple[TranscriptSource, ...]:
        """``worker``'s transcript files, resolved now (blocking: file lookups)."""
        groups = self._snapshot.transcript_groups(worker, here=self._registry.fleet_host)
        return self._registry.transcript_sources(groups)
