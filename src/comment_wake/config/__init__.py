"""The app's configuration: one TOML file, one table per package, every key defaulted.

``load_config(find_config(args.config))`` is what a command does; ``docs/configuration.md``
lists every key with its unit and default (a test keeps it true to the models).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._file import (
        CONFIG_ENV,
        ConfigError,
        FileLocation,
        default_config_path,
        find_config,
        read_location,
    )
    from ._load import (
        load_config,
        parse_config,
    )
    from ._model import TABLES, AppConfig, LogFormat, LogLevel
    from ._reference import KeyRow, key_rows, render_default

__all__ = [
    "CONFIG_ENV",
    "TABLES",
    "AppConfig",
    "ConfigError",
    "FileLocation",
    "KeyRow",
    "LogFormat",
    "LogLevel",
    "default_config_path",
    "find_config",
    "key_rows",
    "load_config",
    "parse_config",
    "read_location",
    "render_default",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._file": (
            "CONFIG_ENV",
            "ConfigError",
            "FileLocation",
            "default_config_path",
            "find_config",
            "read_location",
        ),
        "._load": ("load_config", "parse_config"),
        "._model": ("TABLES", "AppConfig", "LogFormat", "LogLevel"),
        "._reference": ("KeyRow", "key_rows", "render_default"),
    },
)
