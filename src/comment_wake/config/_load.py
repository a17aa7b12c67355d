"""Reading the configuration file: TOML in, ``AppConfig`` or a ``ConfigError`` out.

Every problem is reported, each naming the file, the table and the key, and saying what
to write instead.  No value from the file is quoted unless a validator chose to (a
secret pasted into the wrong key must not reach a terminal or a log).
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ._model import TABLES, AppConfig

__all__ = [
    "CONFIG_ENV",
    "ConfigError",
    "default_config_path",
    "find_config",
    "load_config",
    "parse_config",
]

CONFIG_ENV = "COMMENT_WAKE_CONFIG"
"""The environment variable naming the configuration file (after ``--config``)."""

_PREFIXES = ("Value error, ", "Assertion failed, ")


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


def load_config(path: Path | str | None) -> AppConfig:
    """Read and validate ``path``; None gives the defaults."""
    if path is None:
        return AppConfig()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(str(path), ["the file is not UTF-8 text; save it as UTF-8"]) from None
    except OSError as exc:
        raise ConfigError(
            str(path), [f"cannot read the file ({exc.strerror or type(exc).__name__})"]
        ) from None
    return parse_config(text, source=str(path))


def parse_config(text: str, *, source: str = "<config>") -> AppConfig:
    """Validate TOML ``text``; ``source`` names it in messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from None
    try:
        return AppConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(source, [_problem(e, data) for e in exc.errors()]) from None


def _fields(model: type[BaseModel]) -> list[str]:
    return list(model.model_fields)


def _model_at(table: str | None) -> type[BaseModel]:
    if table is None:
        return AppConfig
    annotation = AppConfig.model_fields[table].annotation
    assert isinstance(annotation, type)
    assert issubclass(annotation, BaseModel)
    return annotation


def _suggest(key: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, choices, n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


# Strict types: a quoted "74" is not a number; say how to write one.
_TYPE_MESSAGES = {
    "int_type": "must be a whole number, written without quotes (a quoted number is text)",
    "float_type": "must be a number, written without quotes (a quoted number is text)",
    "bool_type": "must be true or false, written without quotes",
}


def _message(error: Mapping[str, Any]) -> str:
    if error["type"] in _TYPE_MESSAGES:
        return _TYPE_MESSAGES[error["type"]]
    msg = str(error["msg"])
    for prefix in _PREFIXES:
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    return msg


def _problem(error: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    table = str(loc[0]) if loc and loc[0] in TABLES else None
    rest = loc[1:] if table is not None else loc
    where = f"in [{table}]" if table is not None else "at the top level"
    if kind == "extra_forbidden" and len(rest) == 1:
        key = str(rest[0])
        if table is None and isinstance(data.get(key), Mapping):
            return (
                f"unknown table [{key}]; the tables are "
                + ", ".join(f"[{t}]" for t in TABLES)
                + _suggest(key, TABLES)
            )
        known = [f for f in _fields(_model_at(table)) if table is not None or f not in TABLES]
        return (
            f"unknown key `{key}` {where}; remove it or use one of the keys "
            f"docs/configuration.md lists{_suggest(key, known)}"
        )
    if table is not None and not rest:
        if kind in ("model_type", "model_attributes_type", "dict_type"):
            return f"[{table}] must be a table: write [{table}] on its own line, keys below it"
        return f"in [{table}]: {_message(error)}"
    key = ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in rest)
    key = key.replace(".[", "[")
    return f"`{key}` {where}: {_message(error)}"
