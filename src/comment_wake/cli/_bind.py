"""``comment-wake bind | unbind | archive | list | orchestrator add|remove``.

Each command opens the registry in the state directory for one short transaction, so it
is safe while the daemon runs.  Exit 0 on success; 2 for a usage error or refused input,
the message on stderr saying what to fix; 1 when the store itself fails.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from comment_wake._paths import resolve_state_dir
from comment_wake.cli._common import (
    add_location_options,
    load_location,
    open_registry,
    seconds,
    state_location,
)
from comment_wake.cli._mcp import mcp_instructions
from comment_wake.config import ConfigError
from comment_wake.delivery import safe_url
from comment_wake.registry import (
    ClaudeSession,
    CodexThread,
    CommandSpec,
    InboxSpec,
    OrchestratorRecord,
    PublisherSpec,
    Registry,
    RegistryError,
    TranscriptPath,
    TranscriptSpec,
    WebhookSpec,
    WorkerRecord,
    describe_transcript,
)

if TYPE_CHECKING:
    from comment_wake.config import AppConfig

__all__ = ["register"]


class _Usage(Exception):
    """A flag combination argparse cannot express; exit 2 with the message."""


def _publisher_flags(p: argparse.ArgumentParser) -> None:
    p.set_defaults(command_verbatim=False)  # ``--command --`` sets it (cli._parse)
    how = p.add_argument_group("publisher (exactly one)")
    one = how.add_mutually_exclusive_group(required=True)
    one.add_argument(
        "--command",
        dest="command_argv",
        nargs=argparse.REMAINDER,
        metavar="ARGV",
        help="run this program with its arguments per notice (never through a shell); "
        "it must come last: everything after it is the command.  A word of the command "
        "that is one of these options is refused; after `--command --` every word is the "
        "command's, verbatim",
    )
    one.add_argument("--webhook", metavar="URL", help="POST each notice to this URL")
    one.add_argument(
        "--inbox",
        nargs="?",
        const="",
        metavar="DIR",
        help="write each notice into an inbox (default root: STATE_DIR/inbox)",
    )
    how.add_argument(
        "--secret-env",
        metavar="NAME",
        help="with --webhook: the environment variable that holds the signing secret",
    )
    how.add_argument(
        "--env",
        dest="env_names",
        action="append",
        default=[],
        metavar="NAME",
        help="with --command, before it: also give the command the daemon's variable NAME "
        "(repeatable; a Codex provider's env_key, say); the daemon's secrets are refused",
    )
    how.add_argument(
        "--timeout",
        type=seconds,
        metavar="DURATION",
        help="with --command or --webhook: the time one delivery may take, as in the "
        'configuration ("90s", "5m") or in seconds (default: [delivery] publisher_timeout)',
    )


def _transcript_flags(p: argparse.ArgumentParser) -> None:
    where = p.add_argument_group("transcript (at most one)")
    one = where.add_mutually_exclusive_group()
    one.add_argument("--transcript", metavar="PATH", help="the transcript file (.jsonl)")
    one.add_argument(
        "--claude-session", metavar="ID", help="a Claude Code session id (needs --cwd)"
    )
    one.add_argument("--codex-thread", metavar="ID", help="a Codex thread id")
    where.add_argument(
        "--cwd", metavar="DIR", help="with --claude-session: the directory it runs in"
    )


def _own_options(p: argparse.ArgumentParser) -> frozenset[str]:
    # The options a word after --command would have been meant for (help aside: a
    # command's own --help is common and never meant for bind).
    return frozenset(p._option_string_actions) - {"-h", "--help"}


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    bind = subparsers.add_parser(
        "bind",
        help="bind a worker to a pull request and watch it",
        description="Bind WORKER to the pull request PR (owner/name#N) and watch it: a "
        "trusted comment on it then wakes WORKER through its publisher.  Binding a worker "
        "again replaces its binding.",
    )
    bind.add_argument("worker", metavar="WORKER", help="the worker's id")
    bind.add_argument(
        "pr",
        metavar="PR",
        help="the pull request: owner/name#N, owner/name/pull/N or its URL "
        "(https://HOST/owner/name/pull/N; HOST must be --host)",
    )
    bind.add_argument(
        "--orchestrator", required=True, metavar="ID", help="the orchestrator that spawned it"
    )
    bind.add_argument(
        "--host", default=None, help="the GitHub host (default: [github] host, github.com)"
    )
    trigger = bind.add_argument_group("what wakes it (default: the [wake] table's)")
    trigger.add_argument(
        "--trigger",
        choices=("any", "mention"),
        default=None,
        help="any: every comment that passes the trust rules; mention: only one that "
        "mentions the handle (default: [wake] trigger)",
    )
    trigger.add_argument(
        "--handle",
        metavar="TEXT",
        default=None,
        help='the handle a comment mentions in mention mode, such as "/agent" (not a '
        "GitHub login: the token's login is your own; default: [wake] handle)",
    )
    posting = bind.add_argument_group("posting on the pull request (docs/worker-tools.md)")
    posting.add_argument(
        "--post-tools",
        action="store_true",
        help="offer the worker the reply, review and progress tools: they post under the "
        "token's login, your own (default: off, or [delivery] post_tools)",
    )
    posting.add_argument(
        "--workdir",
        metavar="DIR",
        default=None,
        help="the worker's checkout, where the review tool reads HEAD (default: its Claude "
        "Code session's --cwd, or its Codex rollout's)",
    )
    _publisher_flags(bind)
    _transcript_flags(bind)
    add_location_options(bind)
    bind.set_defaults(handler=_run("bind", _bind, create=True), own_options=_own_options(bind))

    for name, verb, fn in (
        ("unbind", "forget a worker and stop watching its pull request", _unbind),
        (
            "archive",
            "keep a worker's record but stop waking it (its notices go to its orchestrator)",
            _archive,
        ),
    ):
        p = subparsers.add_parser(name, help=verb, description=verb[0].upper() + verb[1:] + ".")
        p.add_argument("worker", metavar="WORKER", help="the worker's id")
        add_location_options(p)
        p.set_defaults(handler=_run_light(name, fn, check_spellings=False))

    listing = subparsers.add_parser(
        "list",
        help="list the bound workers and the orchestrators",
        description="List every worker (archived ones too) and every orchestrator.",
    )
    listing.add_argument("--json", action="store_true", help="one JSON document on stdout")
    add_location_options(listing)
    listing.set_defaults(handler=_run_light("list", _list, check_spellings=False))

    orch = subparsers.add_parser(
        "orchestrator",
        help="register the orchestrators that spawn workers",
        description="Orchestrators spawn workers and take the notices a worker can no longer take.",
    )
    actions = orch.add_subparsers(dest="orchestrator_command", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        help="register (or update) an orchestrator",
        description="Register orchestrator ID: its publisher for hand-offs and its transcript.",
    )
    add.add_argument("id", metavar="ID", help="the orchestrator's id")
    _publisher_flags(add)
    _transcript_flags(add)
    add_location_options(add)
    add.set_defaults(
        handler=_run("orchestrator add", _add_orchestrator, create=True),
        own_options=_own_options(add),
    )
    remove = actions.add_parser(
        "remove",
        help="forget an orchestrator that has no workers",
        description="Forget orchestrator ID; refused while a worker names it.",
    )
    remove.add_argument("id", metavar="ID", help="the orchestrator's id")
    add_location_options(remove)
    remove.set_defaults(handler=_run_light("orchestrator remove", _remove_orchestrator))


# -- running a command -------------------------------------------------------------------

_Handler = Callable[[argparse.Namespace, Registry, "AppConfig"], int]
_LightHandler = Callable[[argparse.Namespace, Registry], int]


def _run(name: str, fn: _Handler, *, create: bool = False) -> Callable[[argparse.Namespace], int]:
    # bind and orchestrator add: they create the store, and read the whole configuration
    # (the host, the publisher timeout, the webhook's secret a binding must not pass on).
    # The store's own failures (missing, damaged, read-only, a full disk, one PR under two
    # spellings) are one line from ``main``, exit 1.
    def handler(args: argparse.Namespace) -> int:
        try:
            config, state_dir = load_location(args)
            with open_registry(
                config,
                state_dir,
                create=create,
                daemon_secrets=(config.webhook.secret_env,),
            ) as registry:
                return fn(args, registry, config)
        except (_Usage, ConfigError, RegistryError) as exc:
            print(f"comment-wake {name}: {exc}", file=sys.stderr)
            return 2

    return handler


def _run_light(
    name: str, fn: _LightHandler, *, check_spellings: bool = True
) -> Callable[[argparse.Namespace], int]:
    # A command that builds no publisher and binds nothing (unbind, archive, list,
    # orchestrator remove) reads only the state directory of the configuration: it starts
    # without pydantic (issue 26: a fast command line).  ``unbind``, ``archive`` and
    # ``list`` open a store that binds one PR under two spellings: they are how it is fixed.
    def handler(args: argparse.Namespace) -> int:
        try:
            where = state_location(args)
            with open_registry(
                None,
                where.state_dir,
                store_url=where.store_url,
                create=False,
                check_spellings=check_spellings,
            ) as registry:
                return fn(args, registry)
        except (_Usage, ConfigError, RegistryError) as exc:
            print(f"comment-wake {name}: {exc}", file=sys.stderr)
            return 2

    return handler


def _publisher(args: argparse.Namespace) -> PublisherSpec:
    if args.secret_env is not None and args.webhook is None:
        raise _Usage("--secret-env goes with --webhook")
    if args.timeout is not None and args.inbox is not None:
        raise _Usage("--timeout goes with --command or --webhook")
    if args.env_names and args.command_argv is None:
        raise _Usage("--env goes with --command (and before it)")
    if args.command_argv is not None:
        if not args.command_argv:
            raise _Usage("--command needs the program to run, for example --command notify W1")
        if not args.command_verbatim:
            _refuse_own_options(args.command_argv, args.own_options)
        env = tuple(dict.fromkeys(args.env_names))
        return CommandSpec(tuple(args.command_argv), timeout=args.timeout, env=env)
    if args.webhook is not None:
        if not args.secret_env:
            raise _Usage(
                "--webhook needs --secret-env NAME, the environment variable that holds the "
                "secret the notices are signed with"
            )
        return WebhookSpec(args.webhook, args.secret_env, timeout=args.timeout)
    root = str(Path(args.inbox).expanduser().absolute()) if args.inbox else None
    return InboxSpec(root)


def _refuse_own_options(argv: Sequence[str], own: frozenset[str]) -> None:
    # ``bind W PR --command notify --inbox --state-dir S`` once bound into the default
    # store with the command ``notify --inbox --state-dir S`` (issue 25, item 12).
    for word in argv:
        if word.split("=", 1)[0] in own:
            raise _Usage(
                f"{word.split('=', 1)[0]} comes after --command, so it would be the "
                "command's, not bind's: put --command last, or write --command -- CMD... "
                "to give the command every word that follows"
            )


def _transcripts(args: argparse.Namespace) -> tuple[TranscriptSpec, ...]:
    if args.cwd is not None and args.claude_session is None:
        raise _Usage("--cwd goes with --claude-session")
    if args.transcript is not None:
        return (TranscriptPath(args.transcript),)
    if args.claude_session is not None:
        if args.cwd is None:
            raise _Usage("--claude-session needs --cwd DIR, the directory the session runs in")
        return (ClaudeSession(args.claude_session, args.cwd),)
    if args.codex_thread is not None:
        return (CodexThread(args.codex_thread),)
    return ()


def _orchestrator_elsewhere(registry: Registry, orchestrator: str) -> str | None:
    """Fleet mode: the warning for an orchestrator added on another host than this bind's
    (its transcripts are there, so its own posts on this PR are recognised only when made
    through the posting tools); None when it is here."""
    record = registry.orchestrator(orchestrator)
    if record is None or record.host_id == registry.host_id:
        return None
    return (
        f"orchestrator {orchestrator} was added on host {record.host_id or '(a single host)'}, "
        f"not on this host ({registry.host_id}): its transcripts are there, so its own posts "
        "on this PR are told apart only when made through the posting tools (by id); a post "
        "it makes any other way may wake this worker"
    )


def _bind(args: argparse.Namespace, registry: Registry, config: AppConfig) -> int:
    publisher = _publisher(args)
    if isinstance(publisher, CommandSpec):
        from comment_wake.delivery.recipes._common import session_id_warning

        warning = session_id_warning(publisher.argv)
        if warning is not None:
            print(f"comment-wake bind: warning: {warning}", file=sys.stderr)
    trigger = args.trigger if args.trigger is not None else config.wake.trigger
    if trigger == "mention" and args.handle is None and config.wake.handle is None:
        raise _Usage(
            'mention mode needs a handle to look for: give --handle TEXT (such as "/agent"), '
            "or set handle in [wake]"
        )
    if args.workdir is not None and not Path(args.workdir).is_dir():
        raise _Usage(f"--workdir {args.workdir}: no such directory; give the worker's checkout")
    before = registry.worker(args.worker)
    record = registry.bind(
        args.worker,
        args.pr,
        orchestrator=args.orchestrator,
        publisher=publisher,
        transcripts=_transcripts(args),
        host=args.host or config.github.host,
        trigger=args.trigger,
        handle=args.handle,
        post_tools=args.post_tools or config.delivery.post_tools,
        workdir=None if args.workdir is None else str(Path(args.workdir).resolve()),
    )
    print(
        f"bound {record.worker} to {record.pr} on {record.pr.host} "
        f"(orchestrator {record.orchestrator}); watching it"
    )
    if trigger == "mention":
        handle = record.handle if record.handle is not None else config.wake.handle
        print(f"  wakes only for comments that mention {handle}")
    if record.post_tools:
        print(
            "  posting tools: on (reply, review, progress); they post under the token's "
            "login, your own, each post marked as an agent's"
        )
    if before is not None and before.pr != record.pr and not before.archived:
        print(f"{before.pr} is no longer watched: {record.worker} moved to {record.pr}")
    for warning in _transcript_warnings(record.transcripts):
        print(f"comment-wake bind: warning: {warning}", file=sys.stderr)
    elsewhere = _orchestrator_elsewhere(registry, record.orchestrator)
    if elsewhere is not None:
        print(f"comment-wake bind: warning: {elsewhere}", file=sys.stderr)
    state_dir = resolve_state_dir(args.state_dir, config.state_dir)
    print(f"  store: {registry.store.where}")
    print(f"  publisher: {_describe_publisher(record.publisher)}")
    print(f"  transcripts: {_describe_transcripts(record.transcripts)}")
    print(mcp_instructions(record.worker, state_dir, args.config, post_tools=record.post_tools))
    return 0


def _transcript_warnings(specs: Sequence[TranscriptSpec]) -> list[str]:
    """What a binding's transcripts leave unrecognised (issue 25, item 13)."""
    from comment_wake.ownpost import detect_format

    if not specs:
        return [
            "no transcript: comment-wake cannot tell the worker's own posts from yours, so "
            "a comment it posts with your token's login wakes it as if you had written it "
            "(unless that login is in [wake] agent_logins); bind again with --transcript, "
            "--claude-session or --codex-thread"
        ]
    return [
        f"the transcript {spec.path} is empty (a session just begun?): the worker's posts "
        "are recognised as it grows"
        for spec in specs
        if isinstance(spec, TranscriptPath) and detect_format(spec.path) == "empty"
    ]


def _unbind(args: argparse.Namespace, registry: Registry) -> int:
    record = registry.unbind(args.worker)
    print(f"unbound {record.worker} from {record.pr}; no longer watching it")
    return 0


def _archive(args: argparse.Namespace, registry: Registry) -> int:
    record = registry.archive(args.worker)
    print(f"archived {record.worker} ({record.pr}); its notices now go to {record.orchestrator}")
    # The seed's rule: only a PR bound to a live worker is polled (one live worker per PR).
    print(
        f"{record.pr} is no longer polled: comments on it from now on are never seen (only a "
        "PR bound to a live worker wakes anyone); bind a worker to it to watch it again"
    )
    return 0


def _add_orchestrator(args: argparse.Namespace, registry: Registry, config: AppConfig) -> int:
    record = registry.add_orchestrator(args.id, _publisher(args), _transcripts(args))
    print(f"orchestrator {record.id} registered ({_describe_publisher(record.publisher)})")
    return 0


def _remove_orchestrator(args: argparse.Namespace, registry: Registry) -> int:
    record = registry.remove_orchestrator(args.id)
    print(f"orchestrator {record.id} removed")
    return 0


# -- list ----------------------------------------------------------------------------------


def _describe_publisher(spec: PublisherSpec) -> str:
    if isinstance(spec, CommandSpec):
        passed = f" (also gets ${', $'.join(spec.env)})" if spec.env else ""
        return "command " + " ".join(spec.argv) + passed
    if isinstance(spec, WebhookSpec):
        # A URL stored before credentials in it were refused is shown without them.
        return f"webhook {safe_url(spec.url)} (secret in ${spec.secret_env})"
    if isinstance(spec, InboxSpec):
        return f"inbox {spec.root}" if spec.root else "inbox"
    return f"callback {spec.name}"


def _describe_transcripts(specs: Sequence[TranscriptSpec]) -> str:
    return ", ".join(describe_transcript(spec) for spec in specs) or "-"


def _worker_json(record: WorkerRecord) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(record)
    out["pr"] = {"ref": str(record.pr), **out["pr"]}
    return out


def _orchestrator_json(record: OrchestratorRecord) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(record)
    return out


def _list(args: argparse.Namespace, registry: Registry) -> int:
    workers = registry.list()
    orchestrators = registry.orchestrators()
    if args.json:
        document = {
            "workers": [
                _worker_json(msgspec.structs.replace(w, pr=registry.spelled(w.pr))) for w in workers
            ],
            "orchestrators": [_orchestrator_json(o) for o in orchestrators],
        }
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(document)).decode() + "\n")
        return 0
    if not workers and not orchestrators:
        print(
            "no workers and no orchestrators; add them with `comment-wake orchestrator add` "
            "and `comment-wake bind`"
        )
        return 0
    for w in workers:
        state = "archived" if w.archived else "bound"
        pr = registry.spelled(w.pr)  # GitHub's spelling once polled
        print(
            f"worker {w.worker}  {pr} ({w.pr.host})  {state}  orchestrator {w.orchestrator}\n"
            f"  publisher: {_describe_publisher(w.publisher)}\n"
            f"  transcripts: {_describe_transcripts(w.transcripts)}"
        )
        if w.post_tools:
            where = f", checkout {w.workdir}" if w.workdir else ""
            print(f"  posting tools: on{where}")
        if w.trigger is not None or w.handle is not None:
            trigger = w.trigger or "[wake] trigger"
            handle = w.handle if w.handle is not None else "[wake] handle"
            print(f"  trigger: {trigger}, handle: {handle}")
    for o in orchestrators:
        print(
            f"orchestrator {o.id}\n"
            f"  publisher: {_describe_publisher(o.publisher)}\n"
            f"  transcripts: {_describe_transcripts(o.transcripts)}"
        )
    return 0
