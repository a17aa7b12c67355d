"""What the commands that work on a state store share: where the config and the store are,
opening the registry (creating the store only for the commands that create state), and
finding a registered worker or orchestrator."""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from comment_wake._paths import resolve_state_dir, store_target
from comment_wake.cli._errors import CliError
from comment_wake.config import find_config, read_location
from review_monitor import parse_duration

if TYPE_CHECKING:
    from comment_wake.config import AppConfig
    from comment_wake.registry import OrchestratorRecord, Registry, WorkerRecord
    from review_monitor.store import SyncStore

__all__ = [
    "COMMAND_CONNECT_TIMEOUT",
    "Location",
    "add_location_options",
    "load_location",
    "open_command_store",
    "open_registry",
    "registered",
    "seconds",
    "state_location",
]


COMMAND_CONNECT_TIMEOUT = 3.0
"""How long, in seconds, a short command waits for a PostgreSQL store before its one-line
error.  Every command that opens the store opens it through ``open_registry`` or
``open_command_store``, which pass it; ``run`` (the daemon) and ``mcp`` (a worker's tool
server) open it elsewhere and keep the store's default, 10 s, to wait through a server's
restart or failover."""


def add_location_options(p: argparse.ArgumentParser) -> None:
    """``--config`` and ``--state-dir``, with the order in which each is looked for."""
    p.add_argument(
        "--config",
        type=Path,
        default=None,
        help="the configuration file (default: $COMMENT_WAKE_CONFIG, else "
        "~/.config/comment-wake/config.toml if it exists)",
    )
    p.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="the state directory (default: $COMMENT_WAKE_STATE_DIR, the config's state_dir, "
        "else $XDG_STATE_HOME/comment-wake or ~/.local/state/comment-wake)",
    )


def load_location(args: argparse.Namespace) -> tuple[AppConfig, Path]:
    """The configuration, validated whole, and the state directory the options name;
    raises ``ConfigError``, or ``CliError`` (exit 2) when the state directory is a file."""
    from comment_wake.config import load_config  # pydantic: only where the config is used

    config = load_config(find_config(args.config))
    return config, _directory(resolve_state_dir(args.state_dir, config.state_dir))


@dataclass(frozen=True)
class Location:
    """Where a light command works: the state directory (the local lock, the inboxes, the
    host id, the caches), the store's ``[store] url`` (None: SQLite in the state
    directory) and the file's GitHub host (None: the default)."""

    state_dir: Path
    store_url: str | None = None
    github_host: str | None = None

    @property
    def store(self) -> Path | str:
        """The store's target: the url, else ``STATE_DIR/state.db``."""
        return store_target(self.state_dir, self.store_url)


def state_location(args: argparse.Namespace) -> Location:
    """Where the options say the state and the store are, for a command that needs nothing
    else of the configuration (a hook's ``inbox take``, ``list``): of the file only
    ``state_dir``, ``[github] host`` and ``[store] url`` are read, so the command starts
    as fast as Python does."""
    found = read_location(find_config(args.config))
    return Location(
        _directory(resolve_state_dir(args.state_dir, found.state_dir)),
        found.store_url,
        found.github_host,
    )


def _directory(state_dir: Path) -> Path:
    if state_dir.exists() and not state_dir.is_dir():
        raise CliError(
            f"the state directory {state_dir} is a file, not a directory; pass another "
            "--state-dir (or $COMMENT_WAKE_STATE_DIR, state_dir)",
            2,
        )
    return state_dir


def open_command_store(
    target: Path | str, *, create: bool, check_spellings: bool = True
) -> SyncStore:
    """``open_sync_store`` for a short command: a PostgreSQL server that does not answer
    is ``StoreUnavailableError`` (one line from ``main``) within
    ``COMMAND_CONNECT_TIMEOUT``, and the pool's own retry warnings stay quiet."""
    from comment_wake._logging import quiet_libraries
    from comment_wake.store import open_sync_store

    quiet_libraries()
    return open_sync_store(
        target,
        create=create,
        check_spellings=check_spellings,
        connect_timeout=COMMAND_CONNECT_TIMEOUT,
    )


def open_registry(
    config: AppConfig | None,
    state_dir: Path,
    *,
    create: bool,
    store_url: str | None = None,
    check_spellings: bool = True,
    daemon_secrets: Collection[str] = (),
) -> Registry:
    """The registry over the store: ``config``'s ``[store] url`` (or ``store_url``), else
    ``state_dir``'s SQLite file.  Only a command that creates state (bind, orchestrator
    add, run) passes ``create``; for any other a missing store raises
    ``StoreMissingError`` (one line at the command line), so a mistyped ``--state-dir``
    never makes a new, empty store.  ``config`` None: a command that builds no publisher
    (``state_location``'s), with the default publisher timeout.  A PostgreSQL store is
    waited for ``COMMAND_CONNECT_TIMEOUT`` (``open_command_store``)."""
    from comment_wake._logging import quiet_libraries
    from comment_wake.registry import Registry

    quiet_libraries()
    url = config.store.url if config is not None else store_url
    open_ = functools.partial(
        Registry.open,
        state_dir,
        store=url,
        create=create,
        check_spellings=check_spellings,
        daemon_secrets=daemon_secrets,
        connect_timeout=COMMAND_CONNECT_TIMEOUT,
    )
    if config is None:
        return open_()
    host_id = None
    if url is not None and create:
        # Fleet mode: what this command binds, it binds on this host (its daemon reads the
        # worker's transcripts and decides its PR).
        from comment_wake._paths import private_dir
        from comment_wake.fleet import host_identity

        host_id = host_identity(private_dir(state_dir), config.fleet.host_id).host_id
    return open_(publisher_timeout=config.delivery.publisher_timeout, host_id=host_id)


def registered(
    registry: Registry, ident: str, state_dir: Path
) -> WorkerRecord | OrchestratorRecord:
    """The worker or orchestrator ``ident``; ``CliError`` (exit 2) when neither is."""
    found = registry.worker(ident) or registry.orchestrator(ident)
    if found is None:
        raise CliError(
            f"no worker or orchestrator {ident!r} is registered in {state_dir}; "
            "see `comment-wake list` (and check --state-dir)",
            2,
        )
    return found


def seconds(text: str) -> float:
    """An option's duration, as argparse's ``type``: the configuration's syntax (``"90s"``,
    ``"5m"``, ``"2h"``, ``"1d"``), or a bare number of seconds as before."""
    try:
        value = float(text)
    except ValueError:
        try:
            value = parse_duration(text).total_seconds()
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc}, or a number of seconds") from None
    # Checked for both spellings: "0s" is refused here as "0" is.
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"not a duration: {text!r}; write a positive number of seconds, or a duration "
            'such as "90s" or "5m"'
        )
    return value
