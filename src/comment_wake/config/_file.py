"""Finding and reading the configuration file without validating it: what a command that
needs only the state directory (a hook's ``inbox take``, ``list``, ``release``) reads,
with the standard library alone.  ``_load`` validates the whole file (``run``, ``doctor``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "CONFIG_ENV",
    "ConfigError",
    "configured_state_dir",
    "default_config_path",
    "find_config",
    "parse_toml",
    "read_toml",
]

CONFIG_ENV = "COMMENT_WAKE_CONFIG"
"""The environment variable naming the configuration file (after ``--config``)."""


class ConfigError(Exception):
    """The configuration cannot be used.  ``problems`` holds one line per problem."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"invalid configuration in {source}:\n{lines}")


def default_config_path(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """``$XDG_CONFIG_HOME/comment-wake/config.toml``, else ``~/.config/comment-wake/...``."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_CONFIG_HOME", "")
    if not base or not os.path.isabs(base):
        base = str((home or Path.home()) / ".config")
    return Path(base) / "comment-wake" / "config.toml"


def find_config(
    cli: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Path | None:
    """The file to read: ``--config``, else ``$COMMENT_WAKE_CONFIG``, else the default path
    if it exists; None means the built-in defaults.  A file named explicitly must exist."""
    environ = os.environ if env is None else env
    for explicit, how in ((cli, "--config"), (environ.get(CONFIG_ENV) or None, CONFIG_ENV)):
        if explicit is not None:
            path = Path(explicit).expanduser()
            if path.is_dir():
                raise ConfigError(
                    str(path),
                    [
                        f"is a directory, not a file (named by {how}); name the "
                        f"configuration file itself, for example {path / 'config.toml'}"
                    ],
                )
            if not path.is_file():
                raise ConfigError(
                    str(path),
                    [
                        f"no such file (named by {how}); create it, or point {how} at your "
                        "configuration file"
                    ],
                )
            return path
    default = default_config_path(environ, home)
    return default if default.is_file() else None


def read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML as a table; ``ConfigError`` when it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(str(path), ["the file is not UTF-8 text; save it as UTF-8"]) from None
    except OSError as exc:
        raise ConfigError(
            str(path), [f"cannot read the file ({exc.strerror or type(exc).__name__})"]
        ) from None
    return parse_toml(text, source=str(path))


def parse_toml(text: str, *, source: str) -> dict[str, Any]:
    """``text`` parsed; ``ConfigError`` naming ``source`` when it is not valid TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from None


def configured_state_dir(path: Path | None) -> Path | None:
    """The file's top-level ``state_dir``, read without validating the rest (None: no file,
    or no such key).  The same key ``AppConfig.state_dir`` reads, with the same check: a
    path as a string."""
    if path is None:
        return None
    value = read_toml(path).get("state_dir")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(
            str(path),
            ["`state_dir` at the top level: Input is not a valid path; write it as a string"],
        )
    return Path(value)
