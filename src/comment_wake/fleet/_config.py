"""The ``[store]`` and ``[fleet]`` tables: where the store is, and this host in a fleet.

Without ``[store] url`` comment-wake keeps its SQLite store in the state directory, as
it always has, and ``[fleet]`` is not read.  With a ``postgresql://`` URL the daemons
of many hosts share one PostgreSQL store (docs/fleet.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from review_monitor import Duration

__all__ = ["FleetConfig", "StoreConfig"]

_SCHEMES = ("postgresql://", "postgres://")
_HOST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _has_password(url: str) -> bool:
    split = urlsplit(url)
    return bool(split.password) or "password" in parse_qs(split.query)


class StoreConfig(BaseModel):
    """The ``[store]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    # A PostgreSQL server for a fleet of hosts; unset: SQLite in the state directory.
    url: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_password_in_the_file(cls, data: Any) -> Any:
        url = data.get("url") if isinstance(data, Mapping) else None
        if isinstance(url, str) and _has_password(url):
            if isinstance(data, MutableMapping):
                data["url"] = "(not shown)"  # no message may carry it
            raise ValueError(
                "the store url holds a password, and the configuration file is never the "
                "place for one: remove it from the url and put it in $PGPASSWORD, a "
                "~/.pgpass file or a libpq service file (PGSERVICEFILE)"
            )
        return data

    @field_validator("url")
    @classmethod
    def _a_postgresql_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(_SCHEMES):
            raise ValueError(
                "url must be a PostgreSQL URL such as postgresql://comment-wake@db.internal/"
                "comment_wake?sslmode=verify-full (leave it unset for the SQLite store)"
            )
        return value


class FleetConfig(BaseModel):
    """The ``[fleet]`` table, read when ``[store] url`` is set."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    # This host's name in the fleet; unset: a UUID kept in the state directory (not the
    # hostname: a restarted container gets a new one).
    host_id: str | None = None
    # A host's lease is renewed this often and lapses this long after its last renewal.
    lease_renew: Duration = timedelta(seconds=10)
    lease_ttl: Duration = timedelta(seconds=30)

    @field_validator("host_id")
    @classmethod
    def _a_plain_name(cls, value: str | None) -> str | None:
        if value is not None and not _HOST_ID.fullmatch(value):
            raise ValueError(
                "host_id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a "
                "letter or digit"
            )
        return value

    @model_validator(mode="after")
    def _renewed_before_it_lapses(self) -> FleetConfig:
        if not timedelta(0) < self.lease_renew < self.lease_ttl:
            raise ValueError(
                "lease_renew must be more than 0s and less than lease_ttl (by default 10s and "
                "30s: a lease survives two missed renewals)"
            )
        return self
