"""``Registry``: workers bound to pull requests, and the orchestrators that spawned them.

Records live in the state store's application records (``comment_wake.store``, namespaces
``comment-wake/workers`` and ``comment-wake/orchestrators``, JSON), so binding a worker and
adding its ``pr_review_monitor`` watch happen in one transaction, as do unbinding and
removing it.  Everything is checked before that transaction starts (files, ids, specs)
or inside it (the orchestrator exists, the PR has no other worker), under the
registry's lock taken before the transaction's first read, and a refusal raises
``RefusedInputError`` with nothing written.

The registry is the service's ``BindingSource`` (``binding``, ``transcripts``) and gives
the delivery loop its ``route``, ``orchestrator_of`` and ``on_session``.  It reads with
short transactions on its own connection, so a daemon should give it its own
``SyncStore`` rather than share the one its async ``Store`` uses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from comment_wake._paths import inbox_root as default_inbox_root
from comment_wake._paths import private_dir, store_target
from comment_wake.delivery import WITHHELD_ENV
from comment_wake.ownpost import TranscriptSource
from comment_wake.store import (
    delete_record,
    get_record,
    open_sync_store,
    put_record,
    read_record,
    read_records,
    record_items,
    requeue_untaken,
)
from comment_wake.wake import Binding, Trigger, check_handle
from review_monitor import Clock, Gone, PrRef, Publisher, SystemClock
from review_monitor.store import (
    LOCAL_HOST,
    ReadTx,
    SyncStore,
    WriteTx,
    add_watch,
    bump_registry,
    claim_pr,
    read_registry_version,
    read_watch_starts,
    release_pr,
    remove_watch,
)

from ._errors import RefusedInputError, UnknownWorkerError
from ._model import (
    ClaudeSession,
    CodexThread,
    CommandSpec,
    OrchestratorRecord,
    PublisherSpec,
    TranscriptPath,
    TranscriptSpec,
    WebhookSpec,
    WorkerRecord,
)
from ._publishers import build_publisher, publisher_problem
from ._reach import TranscriptReach, reach_of
from ._snapshot import RegistrySnapshot, SpecGroup
from ._transcripts import (
    AgentHomes,
    resolve_transcript,
    session_id_problem,
    transcript_files_of,
)

if TYPE_CHECKING:
    from comment_wake.delivery import NoticeCallback

__all__ = ["ORCHESTRATORS", "WORKERS", "Registry", "id_problem"]

_REGISTRY_LOCK = "registry"
"""The lock every registry write transaction takes first (``WriteTx.lock``)."""
WORKERS = "comment-wake/workers"
"""The application-record namespace of the registry's workers."""
ORCHESTRATORS = "comment-wake/orchestrators"
"""The application-record namespace of the registry's orchestrators."""

# The inbox publisher's rule for a directory name: every worker id must be usable there.
_ID = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,127}")
_PREVIOUS_KEPT = 16
_RESOLVE_TTL = timedelta(minutes=1)  # session ids a binding remembers after it moved on


def id_problem(value: str, what: str) -> str | None:
    """Why ``value`` cannot be a worker or orchestrator id, or None."""
    if _ID.fullmatch(value) is None:
        return (
            f"{what} {value!r} is not a usable id: use letters, digits and ._@+- "
            "(at most 128, not starting with a dot)"
        )
    return None


def new_id_problem(value: str, what: str) -> str | None:
    """Why ``value`` cannot be a new id, or None: also one starting with ``-``, which every
    command line reads as an option.  Ids registered before this rule stay usable
    (``comment-wake unbind -- -w``)."""
    if value.startswith("-"):
        return (
            f"{what} {value!r} starts with '-', which a command line reads as an option: "
            "start it with a letter or a digit"
        )
    return id_problem(value, what)


def _not_a_transcript(path: Path) -> str | None:
    """Why ``path`` is not a Claude Code or Codex transcript, or None (an empty file is
    one: a session just begun)."""
    # The transcript readers (a shell parser among them) only where a file is bound: the
    # commands that open the registry to read it start without them.
    from comment_wake.ownpost import detect_format

    try:
        found = detect_format(path)
    except OSError as exc:
        return f"transcript {path} cannot be read ({exc.strerror or type(exc).__name__})"
    if found == "unknown":
        return (
            f"{path} is not a Claude Code or Codex transcript (none of its first lines is "
            f"in their formats); give the session's .jsonl file (`comment-wake transcripts "
            f"scan {path}` shows what it holds)"
        )
    return None


def _put(tx: WriteTx, namespace: str, key: str, blob: bytes) -> None:
    # Every registry write moves the registry version in its own transaction: the wake's
    # snapshot of the bindings reloads when, and only when, it moved.
    put_record(tx, namespace, key, blob)
    bump_registry(tx)


def _delete(tx: WriteTx, namespace: str, key: str) -> None:
    delete_record(tx, namespace, key)
    bump_registry(tx)


def _bound_worker(tx: ReadTx, worker: str) -> WorkerRecord:
    blob = get_record(tx, WORKERS, worker)
    if blob is None:
        raise UnknownWorkerError(f"no worker {worker!r} is bound; see `comment-wake list`")
    return _decode_worker(blob)


def _decode_worker(blob: bytes) -> WorkerRecord:
    return msgspec.json.decode(blob, type=WorkerRecord)


def _decode_orchestrator(blob: bytes) -> OrchestratorRecord:
    return msgspec.json.decode(blob, type=OrchestratorRecord)


def _as_specs(transcripts: TranscriptSpec | Sequence[TranscriptSpec] | None) -> tuple[object, ...]:
    if transcripts is None:
        return ()
    if isinstance(transcripts, TranscriptPath | ClaudeSession | CodexThread):
        return (transcripts,)
    return tuple(transcripts)


class Registry:
    """The worker and orchestrator registry over one state store (sync API).

    ``daemon_secrets`` names the environment variables that hold the daemon's secrets
    beyond ``WITHHELD_ENV`` (the hint listener's ``secret_env``): like ``WITHHELD_ENV``
    and every webhook publisher's secret variable, no command's child gets them and no
    binding may pass them with ``--env``.
    """

    def __init__(
        self,
        store: SyncStore,
        *,
        inbox_root: Path,
        clock: Clock | None = None,
        homes: AgentHomes | None = None,
        callbacks: Mapping[str, NoticeCallback] | None = None,
        publisher_timeout: timedelta = timedelta(minutes=2),
        environ: Mapping[str, str] | None = None,
        daemon_secrets: Collection[str] = (),
        host_id: str | None = None,
    ) -> None:
        self._store = store
        # The fleet host this registry binds on (None: a single host's store).
        self.host_id = host_id
        self._owned: SyncStore | None = None
        self.inbox_root = inbox_root
        self._clock: Clock = clock or SystemClock()
        self.homes = homes or AgentHomes.from_env()
        self._callbacks = dict(callbacks or {})
        self._timeout = publisher_timeout
        self._environ = environ
        self._daemon_secrets = frozenset(daemon_secrets)
        self._publishers: dict[tuple[str, bytes], Publisher] = {}
        self._resolved: dict[bytes, tuple[datetime, tuple[Path, ...]]] = {}
        self._secrets: tuple[int, frozenset[str]] | None = None  # (registry version, names)
        self._recipients: tuple[int, frozenset[str]] | None = None  # (registry version, ids)

    @classmethod
    def open(
        cls,
        state_dir: Path,
        *,
        inbox_root: Path | None = None,
        store: str | None = None,
        clock: Clock | None = None,
        homes: AgentHomes | None = None,
        callbacks: Mapping[str, NoticeCallback] | None = None,
        publisher_timeout: timedelta = timedelta(minutes=2),
        environ: Mapping[str, str] | None = None,
        create: bool = True,
        check_spellings: bool = True,
        daemon_secrets: Collection[str] = (),
        host_id: str | None = None,
        connect_timeout: float | None = None,
    ) -> Registry:
        """Open (creating unless not ``create``, and migrating) the store: ``store``, a
        ``postgresql://`` URL (``[store] url``), else ``state_dir/state.db``; the default
        inbox root is ``state_dir/inbox``.  ``close`` closes the store it opened.
        ``host_id``: the fleet host it binds on (fleet mode); ``connect_timeout``: how
        long a PostgreSQL server is waited for (``open_sync_store``).
        A store that binds one PR under two spellings is refused (``TwoSpellingsError``)
        unless ``check_spellings`` is False (unbind, archive and list open it to fix it)."""
        folder = private_dir(state_dir) if create else state_dir
        db = open_sync_store(
            store_target(folder, store),
            clock=clock,
            create=create,
            check_spellings=check_spellings,
            connect_timeout=connect_timeout,
        )
        registry = cls(
            db,
            inbox_root=inbox_root or default_inbox_root(state_dir),
            clock=clock,
            homes=homes,
            callbacks=callbacks,
            publisher_timeout=publisher_timeout,
            environ=environ,
            daemon_secrets=daemon_secrets,
            host_id=host_id,
        )
        registry._owned = db
        return registry

    @property
    def store(self) -> SyncStore:
        """The state store the registry reads and writes."""
        return self._store

    def close(self) -> None:
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads ---------------------------------------------------------------------

    def worker(self, worker: str) -> WorkerRecord | None:
        blob = read_record(self._store, WORKERS, worker)
        return None if blob is None else _decode_worker(blob)

    def orchestrator(self, orchestrator: str) -> OrchestratorRecord | None:
        blob = read_record(self._store, ORCHESTRATORS, orchestrator)
        return None if blob is None else _decode_orchestrator(blob)

    def workers(self) -> tuple[WorkerRecord, ...]:
        """Every worker, archived ones too, sorted by id."""
        return tuple(_decode_worker(b) for _, b in read_records(self._store, WORKERS))

    def orchestrators(self) -> tuple[OrchestratorRecord, ...]:
        return tuple(_decode_orchestrator(b) for _, b in read_records(self._store, ORCHESTRATORS))

    def recipients(self) -> frozenset[str]:
        """The workers (archived ones too: their notices are handed off from here) and
        orchestrators bound on this registry's host: whom its delivery loop serves.

        The delivery loop asks at every pass, and the records are the whole fleet's, so
        the answer is worked out again only when the registry version moved (one short
        read otherwise)."""
        with self._store.read() as tx:
            version = read_registry_version(tx)
            cached = self._recipients
            if cached is not None and cached[0] == version:
                return cached[1]
            workers = [_decode_worker(b) for _, b in record_items(tx, WORKERS)]
            orchestrators = [_decode_orchestrator(b) for _, b in record_items(tx, ORCHESTRATORS)]
        here = frozenset(
            [w.worker for w in workers if w.host_id == self.host_id]
            + [o.id for o in orchestrators if o.host_id == self.host_id]
        )
        self._recipients = (version, here)
        return here

    def hosts_and_orchestrators(self) -> tuple[dict[str, str | None], dict[str, str]]:
        """Each worker's and orchestrator's fleet host (None: a single host's record), and
        each worker's orchestrator, from one read (the janitor's view)."""
        with self._store.read() as tx:
            workers = [_decode_worker(b) for _, b in record_items(tx, WORKERS)]
            orchestrators = [_decode_orchestrator(b) for _, b in record_items(tx, ORCHESTRATORS)]
        hosts: dict[str, str | None] = {o.id: o.host_id for o in orchestrators}
        hosts.update({w.worker: w.host_id for w in workers})
        return hosts, {w.worker: w.orchestrator for w in workers}

    def spelled(self, pr: PrRef) -> PrRef:
        """``pr`` as GitHub spells it once a poll has read it (its watch takes
        ``nameWithOwner``); as given while unwatched or not polled yet."""
        return next((w.pr for w in self._store.watches() if w.pr == pr), pr)

    def siblings(self, worker: str) -> tuple[WorkerRecord, ...]:
        """The other workers of ``worker``'s orchestrator, archived ones too."""
        me = self.worker(worker)
        if me is None:
            return ()
        return tuple(
            w for w in self.workers() if w.orchestrator == me.orchestrator and w.worker != worker
        )

    # -- writes --------------------------------------------------------------------

    @contextmanager
    def _write(self, *, at: datetime) -> Iterator[WriteTx]:
        """A registry write transaction.  Every registry write checks what it reads (one
        live worker per PR, an id not taken by the other kind, an orchestrator's workers,
        the record it rewrites), so each takes the registry's lock before its first read:
        on PostgreSQL (READ COMMITTED) two binds of one PR cannot both see it free."""
        with self._store.write(at=at) as tx:
            tx.lock(_REGISTRY_LOCK)
            yield tx

    def add_orchestrator(
        self,
        orchestrator: str,
        publisher: PublisherSpec,
        transcripts: TranscriptSpec | Sequence[TranscriptSpec] | None = None,
    ) -> OrchestratorRecord:
        """Register (or update) an orchestrator: where its hand-offs go, what it wrote."""
        self._refuse(id_problem(orchestrator, "orchestrator id"))
        self._refuse(publisher_problem(publisher, self._callbacks))
        self._refuse(self._secret_problem(orchestrator, publisher))
        specs = self._checked_transcripts(transcripts)
        now = self._clock.now()
        with self._write(at=now) as tx:
            if get_record(tx, WORKERS, orchestrator) is not None:
                self._refuse(
                    f"{orchestrator!r} is already a worker's id; give the orchestrator another id"
                )
            old = get_record(tx, ORCHESTRATORS, orchestrator)
            if old is None:
                self._refuse(new_id_problem(orchestrator, "orchestrator id"))
            record = OrchestratorRecord(
                id=orchestrator,
                publisher=publisher,
                transcripts=specs,
                added_at=now if old is None else _decode_orchestrator(old).added_at,
                host_id=self.host_id,
            )
            _put(tx, ORCHESTRATORS, orchestrator, msgspec.json.encode(record))
        return record

    def remove_orchestrator(self, orchestrator: str) -> OrchestratorRecord:
        """Forget an orchestrator that no worker names any more."""
        with self._write(at=self._clock.now()) as tx:
            blob = get_record(tx, ORCHESTRATORS, orchestrator)
            if blob is None:
                raise UnknownWorkerError(f"no orchestrator {orchestrator!r} is registered")
            users = [
                key
                for key, b in record_items(tx, WORKERS)
                if _decode_worker(b).orchestrator == orchestrator
            ]
            if users:
                self._refuse(
                    f"orchestrator {orchestrator!r} still has workers ({', '.join(users)}); "
                    "unbind them first"
                )
            _delete(tx, ORCHESTRATORS, orchestrator)
        return _decode_orchestrator(blob)

    def bind(
        self,
        worker: str,
        pr: PrRef | str,
        *,
        orchestrator: str,
        publisher: PublisherSpec,
        transcripts: TranscriptSpec | Sequence[TranscriptSpec] | None = None,
        host: str = "github.com",
        post_tools: bool = False,
        workdir: str | None = None,
        trigger: Trigger | None = None,
        handle: str | None = None,
    ) -> WorkerRecord:
        """Bind ``worker`` to ``pr`` and watch it, in one transaction.  ``post_tools``
        turns its posting tools on; ``workdir`` is its checkout (the review tool reads HEAD
        there).

        Binding a worker again replaces its binding (and moves its watch when the PR
        changed; an archived worker comes back).  In fleet mode, the PR's notices that
        were delivered into an inbox on another host and never taken there are queued
        again for ``worker``, in the same transaction.  Refused, with nothing written: a bad
        id or PR reference, an orchestrator that is not registered, a publisher spec that
        cannot work, a transcript that does not exist, a PR another live worker has, a
        handle that cannot be one (``check_handle``).  ``trigger`` and ``handle`` None:
        the ``[wake]`` table's, whatever it says when a comment comes.
        """
        self._refuse(id_problem(worker, "worker id"))
        if handle is not None:
            why = check_handle(handle)
            self._refuse(None if why is None else f"--handle {handle!r}: {why}")
        ref = self._pr(pr, host)
        self._refuse(publisher_problem(publisher, self._callbacks))
        self._refuse(self._secret_problem(worker, publisher))
        specs = self._checked_transcripts(transcripts)
        now = self._clock.now()
        with self._write(at=now) as tx:
            if get_record(tx, ORCHESTRATORS, orchestrator) is None:
                self._refuse(
                    f"unknown orchestrator {orchestrator!r}: register it first with "
                    f"`comment-wake orchestrator add {orchestrator} ...`"
                )
            if get_record(tx, ORCHESTRATORS, worker) is not None:
                self._refuse(f"{worker!r} is an orchestrator's id; give the worker another id")
            for key, blob in record_items(tx, WORKERS):
                other = _decode_worker(blob)
                if key != worker and other.pr == ref and not other.archived:
                    self._refuse(
                        f"{ref} is already bound to worker {key!r}; unbind or archive it first"
                    )
            old_blob = get_record(tx, WORKERS, worker)
            if old_blob is None:
                self._refuse(new_id_problem(worker, "worker id"))
            old = None if old_blob is None else _decode_worker(old_blob)
            if old is not None and old.pr != ref:
                remove_watch(tx, worker, old.pr)
                release_pr(tx, old.pr, worker)
            record = WorkerRecord(
                worker=worker,
                pr=ref,
                orchestrator=orchestrator,
                publisher=publisher,
                transcripts=specs,
                bound_at=now,
                post_tools=post_tools,
                workdir=workdir,
                trigger=trigger,
                handle=handle,
                host_id=self.host_id,
            )
            _put(tx, WORKERS, worker, msgspec.json.encode(record))
            add_watch(tx, worker, ref)
            claim_pr(tx, ref, self.host_id or LOCAL_HOST, worker)
            if self.host_id is not None:
                # Fleet mode: the PR's notices delivered into an inbox on another host
                # and never taken there go to this worker (claim_pr holds the PR's lock).
                requeue_untaken(tx, ref, host_id=self.host_id, worker=worker)
        self._forget_publisher(worker)
        return record

    def unbind(self, worker: str) -> WorkerRecord:
        """Forget ``worker`` and stop watching its PR, in one transaction."""
        with self._write(at=self._clock.now()) as tx:
            record = _bound_worker(tx, worker)
            _delete(tx, WORKERS, worker)
            remove_watch(tx, worker, record.pr)
            release_pr(tx, record.pr, worker)
        self._forget_publisher(worker)
        return record

    def archive(self, worker: str) -> WorkerRecord:
        """Keep ``worker``'s record (its transcripts still tell its siblings' posts apart)
        but stop watching its PR; its pending notices go to its orchestrator."""
        now = self._clock.now()
        with self._write(at=now) as tx:
            record = _bound_worker(tx, worker)
            if not record.archived:
                record = msgspec.structs.replace(record, archived=True, archived_at=now)
                _put(tx, WORKERS, worker, msgspec.json.encode(record))
            remove_watch(tx, worker, record.pr)
            release_pr(tx, record.pr, worker)
        self._forget_publisher(worker)
        return record

    def watching(self, worker: str) -> datetime | None:
        """Since when ``worker``'s PR is watched for it; None when it is not (unwatched with
        ``pr_review_monitor``, archived, or no such worker)."""
        record = self.worker(worker)
        if record is None:
            return None
        return self._store.watched_since(worker, record.pr)

    def set_watching(self, worker: str, on: bool) -> bool:
        """Start (``on``) or stop watching ``worker``'s PR for it, as the worker's own
        ``pr_review_monitor`` ``watch`` / ``unwatch`` do; False when nothing changed.
        Stopping drops its held comments and pending retries as a close does (the service
        decides them ``unbound``); a watch started again begins from a fresh baseline, so
        comments posted while unwatched never wake it.  An archived worker cannot watch."""
        now = self._clock.now()
        with self._write(at=now) as tx:
            record = _bound_worker(tx, worker)
            if not on:
                return remove_watch(tx, worker, record.pr)
            if record.archived:
                self._refuse(f"worker {worker!r} is archived; bind it again to watch its PR")
            return add_watch(tx, worker, record.pr)

    def update_session(self, worker: str, session_id: str) -> bool:
        """A publisher reported that ``worker`` (or an orchestrator) now answers as
        ``session_id``: its Claude or Codex transcript follows, keeping the old id among
        ``previous``.  False when nothing changed or nobody has that id."""
        self._refuse(session_id_problem(session_id, "session id"))
        with self._write(at=self._clock.now()) as tx:
            for namespace in (WORKERS, ORCHESTRATORS):
                blob = get_record(tx, namespace, worker)
                if blob is None:
                    continue
                record: WorkerRecord | OrchestratorRecord = (
                    _decode_worker(blob) if namespace == WORKERS else _decode_orchestrator(blob)
                )
                specs = tuple(_follow(s, session_id) for s in record.transcripts)
                if record.session_id == session_id and specs == record.transcripts:
                    return False
                updated = msgspec.structs.replace(record, transcripts=specs, session_id=session_id)
                _put(tx, namespace, worker, msgspec.json.encode(updated))
                return True
        return False

    on_session = update_session
    """The delivery loop's ``on_session(worker, new_session_id)``."""

    # -- the service's binding source ---------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        """Every worker, orchestrator and watch, read in one transaction."""
        with self._store.read() as tx:
            return RegistrySnapshot(
                read_registry_version(tx),
                (_decode_worker(b) for _, b in record_items(tx, WORKERS)),
                (_decode_orchestrator(b) for _, b in record_items(tx, ORCHESTRATORS)),
                read_watch_starts(tx),
            )

    def version(self) -> int:
        """The registry version: it moves with every registry write and watch change."""
        return self._store.registry_version()

    def binding(self, pr: PrRef) -> Binding:
        """Who owns ``pr``: its live worker, else its last archived one, else nobody."""
        return self.snapshot().binding(pr)

    def transcripts(self, worker: str) -> tuple[TranscriptSource, ...]:
        """The files to read for ``worker``'s own posts: its own (role ``worker``), its
        orchestrator's and its siblings'.  Files that do not exist (yet, or any more)
        are left out, as are an agent's bound on another fleet host; a file is listed
        once, under the closest role."""
        return self.transcript_sources(
            self.snapshot().transcript_groups(worker, here=self.fleet_host)
        )

    @property
    def fleet_host(self) -> str | None:
        """The fleet host whose agents' transcripts are local: ``host_id`` on a
        PostgreSQL store; None on a single host's store, where every agent is local."""
        return self.host_id if self._store.dialect == "postgresql" else None

    def transcript_sources(self, groups: Sequence[SpecGroup]) -> tuple[TranscriptSource, ...]:
        """The files of ``groups`` (``RegistrySnapshot.transcript_groups``), resolved now;
        a file is listed once, under the closest role."""
        out: list[TranscriptSource] = []
        seen: set[str] = set()
        for role, specs in groups:
            for spec in specs:
                for path in self._files(spec):
                    text = str(path)
                    if text not in seen:
                        seen.add(text)
                        out.append(TranscriptSource(path=text, role=role))
        return tuple(out)

    def transcript_reach(self, worker: str, *, here: str | None) -> tuple[TranscriptReach, ...]:
        """Each transcript ``worker``'s own-post check reads (its own, its orchestrator's,
        its siblings'), as this host, ``here``, can read it now: resolved and opened as
        the scan does.  In fleet mode (a PostgreSQL store) an agent bound on another host
        than ``here`` is ``elsewhere`` and never looked for; () for an unknown worker."""
        fleet = self._store.dialect == "postgresql"
        out: list[TranscriptReach] = []
        for role, agent in self.snapshot().transcript_agents(worker):
            ident = agent.worker if isinstance(agent, WorkerRecord) else agent.id
            elsewhere = fleet and agent.host_id is not None and agent.host_id != here
            for spec in agent.transcripts:
                files = None if elsewhere else self._files(spec)
                out.append(reach_of(ident, role, spec, agent.host_id, files))
        return tuple(out)

    # -- the delivery loop's routing -----------------------------------------------

    def route(self, worker: str) -> Publisher | Gone | None:
        """``worker``'s publisher; ``Gone`` once archived; an orchestrator's id routes to
        the orchestrator (its hand-offs); None for an id nobody has."""
        record = self.worker(worker)
        if record is not None:
            if record.archived:
                return Gone("archived")
            return self._publisher(worker, record.publisher)
        boss = self.orchestrator(worker)
        if boss is not None:
            return self._publisher(worker, boss.publisher)
        return None

    def orchestrator_of(self, worker: str) -> tuple[str, Publisher] | None:
        """The orchestrator that takes ``worker``'s notices once it is gone."""
        record = self.worker(worker)
        if record is None:
            return None
        boss = self.orchestrator(record.orchestrator)
        if boss is None:
            return None
        return boss.id, self._publisher(boss.id, boss.publisher)

    def has_callback(self, name: str) -> bool:
        """A ``CallbackSpec(name)`` can be called in this process."""
        return name in self._callbacks

    def publisher_for(self, spec: PublisherSpec) -> Publisher:
        """A fresh publisher for ``spec`` (``Unavailable`` when it cannot work now)."""
        return build_publisher(
            spec,
            inbox_root=self.inbox_root,
            default_timeout=self._timeout,
            environ=os.environ if self._environ is None else self._environ,
            callbacks=self._callbacks,
            withhold=self.secret_names(),
        )

    def secret_names(self) -> frozenset[str]:
        """The environment variables no command's child gets: ``WITHHELD_ENV``, the
        ``daemon_secrets`` and every registered webhook publisher's secret variable
        (worked out again only when the registry version moved: every publisher built
        asks, and reading every record each time grew with the fleet)."""
        version = self._store.registry_version()
        if self._secrets is None or self._secrets[0] != version:
            specs = self._publisher_specs()
            hooks = {p.secret_env for _, p in specs if isinstance(p, WebhookSpec)}
            self._secrets = (version, WITHHELD_ENV | self._daemon_secrets | hooks)
        return self._secrets[1]

    # -- helpers -------------------------------------------------------------------

    def _files(self, spec: TranscriptSpec) -> tuple[Path, ...]:
        # ``transcripts`` runs on the daemon's event loop at every look; a Codex lookup
        # lists every day folder, so a found answer is kept a minute while its files exist
        # (a new compaction window or a moved session shows up at the next lookup).
        key = msgspec.json.encode(spec)
        now = self._clock.now()
        cached = self._resolved.get(key)
        if (
            cached is not None
            and now - cached[0] < _RESOLVE_TTL
            and all(p.is_file() for p in cached[1])
        ):
            return cached[1]
        files = tuple(transcript_files_of(spec, self.homes))
        if files:
            self._resolved[key] = (now, files)
        else:
            self._resolved.pop(key, None)
        return files

    def _publisher(self, owner: str, spec: PublisherSpec) -> Publisher:
        # One instance per owner and spec: a webhook publisher keeps its connections.
        key = (owner, msgspec.json.encode(spec))
        found = self._publishers.get(key)
        if found is None:
            found = self._publishers[key] = self.publisher_for(spec)
        return found

    def _forget_publisher(self, owner: str) -> None:
        for key in [k for k in self._publishers if k[0] == owner]:
            del self._publishers[key]

    def _publisher_specs(self) -> list[tuple[str, PublisherSpec]]:
        """Every worker's and orchestrator's id with its publisher spec."""
        return [
            *((w.worker, w.publisher) for w in self.workers()),
            *((o.id, o.publisher) for o in self.orchestrators()),
        ]

    def _secret_problem(self, owner: str, publisher: PublisherSpec) -> str | None:
        """Why ``publisher`` would hand a secret to a command's child, or None: its
        ``--env`` names a secret, or its webhook secret is a name another command passes."""
        others = [(who, spec) for who, spec in self._publisher_specs() if who != owner]
        if isinstance(publisher, CommandSpec):
            hooks = {spec.secret_env for _, spec in others if isinstance(spec, WebhookSpec)}
            for name in publisher.env:
                if name in self._daemon_secrets:
                    return (
                        f"--env {name} names one of the daemon's own secrets, which no "
                        "worker's command may see; give the worker a credential of its own "
                        "under another name"
                    )
                if name in hooks:
                    return (
                        f"--env {name} names a webhook publisher's signing secret, which no "
                        "worker's command may see; give that secret a variable of its own"
                    )
        if isinstance(publisher, WebhookSpec):
            for who, spec in others:
                if isinstance(spec, CommandSpec) and publisher.secret_env in spec.env:
                    return (
                        f"--secret-env {publisher.secret_env} is passed to {who}'s command "
                        "(--env); keep the signing secret in a variable no command gets"
                    )
        return None

    @staticmethod
    def _refuse(problem: str | None) -> None:
        if problem is not None:
            raise RefusedInputError(problem)

    @staticmethod
    def _pr(pr: PrRef | str, host: str) -> PrRef:
        if isinstance(pr, PrRef):
            # A ref built in code meets the rules a typed one does (the number GitHub can
            # hold, GitHub's name rules): checked through its ``owner/name#N`` form.
            host = pr.host
            pr = str(pr)
        if not isinstance(pr, str):
            raise RefusedInputError("the pull request must be a PrRef or owner/name#N")
        if not host or "/" in host or any(c.isspace() for c in host):
            raise RefusedInputError(f"not a host name: {host!r}; write it as github.example.com")
        try:
            return PrRef.parse(pr, host=host.lower())
        except ValueError as exc:
            raise RefusedInputError(str(exc)) from None

    def _checked_transcripts(
        self, transcripts: TranscriptSpec | Sequence[TranscriptSpec] | None
    ) -> tuple[TranscriptSpec, ...]:
        out: list[TranscriptSpec] = []
        for spec in _as_specs(transcripts):
            out.append(self._checked(spec))
        return tuple(out)

    def _checked(self, spec: object) -> TranscriptSpec:
        if isinstance(spec, TranscriptPath):
            path = Path(spec.path).expanduser()
            if not path.is_file():
                raise RefusedInputError(
                    f"transcript {spec.path} does not exist (or is not a file); give the "
                    "path of the worker's .jsonl transcript"
                )
            self._refuse(_not_a_transcript(path))
            return TranscriptPath(str(path.resolve()))
        if isinstance(spec, ClaudeSession):
            self._refuse(session_id_problem(spec.session_id, "Claude Code session id"))
            cwd = Path(spec.cwd).expanduser()
            if not cwd.is_dir():
                raise RefusedInputError(
                    f"--cwd {spec.cwd} is not a directory; give the directory the Claude Code "
                    "session runs in (its worktree)"
                )
            checked = msgspec.structs.replace(spec, cwd=str(cwd.resolve()))
            if not resolve_transcript(checked, self.homes):
                raise RefusedInputError(
                    f"no transcript for Claude Code session {spec.session_id} under "
                    f"{self.homes.claude / 'projects'} (looked for the folder of {checked.cwd} "
                    "and every project); check the session id and --cwd, or set "
                    "CLAUDE_CONFIG_DIR if Claude Code keeps its files elsewhere"
                )
            return checked
        if isinstance(spec, CodexThread):
            self._refuse(session_id_problem(spec.thread_id, "Codex thread id"))
            if not resolve_transcript(spec, self.homes):
                raise RefusedInputError(
                    f"no rollout for Codex thread {spec.thread_id} under "
                    f"{self.homes.codex / 'sessions'} or archived_sessions; check the thread "
                    "id, or set CODEX_HOME if Codex keeps its files elsewhere"
                )
            return spec
        raise RefusedInputError(
            f"unknown transcript kind {type(spec).__name__}: use TranscriptPath, ClaudeSession "
            "or CodexThread (--transcript, --claude-session with --cwd, or --codex-thread)"
        )

    # Last in the class: a method named ``list`` would shadow the builtin below it.
    def list(self) -> tuple[WorkerRecord, ...]:
        """Every worker, archived ones too, sorted by id (the same as ``workers``)."""
        return self.workers()


def _follow(spec: TranscriptSpec, session_id: str) -> TranscriptSpec:
    if isinstance(spec, ClaudeSession) and spec.session_id != session_id:
        kept = (*(p for p in spec.previous if p != session_id), spec.session_id)
        return msgspec.structs.replace(spec, session_id=session_id, previous=kept[-_PREVIOUS_KEPT:])
    if isinstance(spec, CodexThread) and spec.thread_id != session_id:
        kept = (*(p for p in spec.previous if p != session_id), spec.thread_id)
        return msgspec.structs.replace(spec, thread_id=session_id, previous=kept[-_PREVIOUS_KEPT:])
    return spec
