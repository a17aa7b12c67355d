"""Every configuration key with its unit and default, read from the models themselves.

``docs/configuration.md`` is checked against ``key_rows()`` by a test, so the document
cannot drift from the code.
"""

from __future__ import annotations

import types
import typing
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from review_monitor import format_duration

from ._model import TABLES, AppConfig

__all__ = ["KeyRow", "key_rows", "render_default"]


class KeyRow(typing.NamedTuple):
    table: str | None  # None: a top-level key
    key: str
    unit: str
    default: str


def _unit(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unit(typing.get_args(annotation)[0])
    if origin is Literal:
        return "one of " + ", ".join(f'"{a}"' for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return " or ".join(_unit(a) for a in parts)
    if origin is tuple:
        return f"list of {_unit(typing.get_args(annotation)[0])}"
    simple = {
        timedelta: "duration",
        int: "integer",
        float: "number",
        bool: "boolean",
        str: "string",
        Path: "path",
    }
    return simple.get(annotation, getattr(annotation, "__name__", str(annotation)))


def render_default(value: object) -> str:
    """A default as a TOML value (durations as ``"5m"``); ``(unset)`` for None."""
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, timedelta):
        return f'"{format_duration(value)}"'
    if isinstance(value, str | Path):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(render_default(v) for v in value) + "]"
    return str(value)


def _rows(table: str | None, model: type[BaseModel]) -> list[KeyRow]:
    rows = []
    for key, field in model.model_fields.items():
        if table is None and key in TABLES:
            continue
        annotation: Any = field.annotation
        unit = "duration" if field.metadata and annotation is timedelta else _unit(annotation)
        rows.append(KeyRow(table, key, unit, render_default(field.get_default())))
    return rows


def key_rows() -> list[KeyRow]:
    """Top-level keys first, then each table's keys in declaration order."""
    rows = _rows(None, AppConfig)
    for table in TABLES:
        model = AppConfig.model_fields[table].annotation
        assert isinstance(model, type)
        assert issubclass(model, BaseModel)
        rows.extend(_rows(table, model))
    return rows
