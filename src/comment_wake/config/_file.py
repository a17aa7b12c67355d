"""Finding and reading the configuration file without validating it: what a command that
needs only the state directory (a hook's ``inbox take``, ``list``, ``release``) reads,
with the standard library alone.  ``_load`` validates the whole file (``run``, ``doctor``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CONFIG_ENV",
    "ConfigError",
    "FileLocation",
    "default_config_path",
    "find_config",
    "parse_toml",
    "read_location",
    "read_toml",
    "store_url_problem",
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


@dataclass(frozen=True)
class FileLocation:
    """What a light command reads of the file: where the state is, which GitHub host and
    where the store is (None: not set there)."""

    state_dir: Path | None = None
    github_host: str | None = None
    store_url: str | None = None


def read_location(path: Path | None) -> FileLocation:
    """The file's top-level ``state_dir``, its ``[github] host`` and its ``[store] url``,
    read without validating the rest (no file: none).  The same keys ``AppConfig`` reads,
    with a string's check each; a store url that is not PostgreSQL's, or that holds a
    password, is refused as ``AppConfig`` refuses it."""
    if path is None:
        return FileLocation()
    data = read_toml(path)
    github = data.get("github")
    store = data.get("store")
    found = {
        "`state_dir` at the top level": data.get("state_dir"),
        "`host` in [github]": github.get("host") if isinstance(github, dict) else None,
        "`url` in [store]": store.get("url") if isinstance(store, dict) else None,
    }
    wrong = [
        f"{key}: write it as a string"
        for key, v in found.items()
        if v is not None and not isinstance(v, str)
    ]
    if wrong:
        raise ConfigError(str(path), wrong)
    state_dir, host, url = found.values()
    if url is not None:
        problem = store_url_problem(url)
        if problem is not None:
            raise ConfigError(str(path), [f"`url` in [store]: {problem}"])
    return FileLocation(None if state_dir is None else Path(state_dir), host, url)


STORE_URL_SCHEMES = ("postgresql://", "postgres://")


def store_url_problem(url: str, *, source: str = "the configuration file") -> str | None:
    """What is wrong with a store url (None: nothing): it must be PostgreSQL's, and hold
    no password (``source``, where it was given, is never the place for one).  The
    message never quotes the url."""
    from urllib.parse import parse_qs, urlsplit

    if not url.startswith(STORE_URL_SCHEMES):
        return (
            "url must be a PostgreSQL URL such as postgresql://comment-wake@db.internal/"
            "comment_wake?sslmode=verify-full (leave it unset for the SQLite store)"
        )
    split = urlsplit(url)
    if split.password or "password" in parse_qs(split.query):
        return (
            f"the store url holds a password, and {source} is never the place for one: "
            "remove it from the url and put it in $PGPASSWORD, a ~/.pgpass file or a "
            "libpq service file (PGSERVICEFILE)"
        )
    return None
