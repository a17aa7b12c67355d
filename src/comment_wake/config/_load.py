"""Reading the configuration file: TOML in, ``AppConfig`` or a ``ConfigError`` out.

Every problem is reported, each naming the file, the table and the key, and saying what
to write instead.  No value from the file is quoted unless a validator chose to (a
secret pasted into the wrong key must not reach a terminal or a log).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ._file import ConfigError, parse_toml, read_toml
from ._model import TABLES, AppConfig

__all__ = ["load_config", "parse_config"]

_PREFIXES = ("Value error, ", "Assertion failed, ")


def load_config(path: Path | str | None) -> AppConfig:
    """Read and validate ``path``; None gives the defaults."""
    if path is None:
        return AppConfig()
    return _validate(read_toml(Path(path)), source=str(path))


def parse_config(text: str, *, source: str = "<config>") -> AppConfig:
    """Validate TOML ``text``; ``source`` names it in messages."""
    return _validate(parse_toml(text, source=source), source=source)


def _validate(data: dict[str, Any], *, source: str) -> AppConfig:
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
