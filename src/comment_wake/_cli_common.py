"""What the commands that work on a state store share: where the config and the store are."""

from __future__ import annotations

import argparse
from pathlib import Path

from comment_wake._paths import resolve_state_dir
from comment_wake.config import AppConfig, find_config, load_config

__all__ = ["add_location_options", "load_location"]


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
    """The configuration and the state directory the options name; raises ``ConfigError``."""
    config = load_config(find_config(args.config))
    return config, resolve_state_dir(args.state_dir, config.state_dir)
