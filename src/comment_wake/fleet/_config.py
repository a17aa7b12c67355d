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

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from comment_wake.config._file import store_url_problem
from comment_wake.store import GapLimits
from review_monitor import Duration

__all__ = ["FleetConfig", "StoreConfig"]

_HOST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class StoreConfig(BaseModel):
    """The ``[store]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    # A PostgreSQL server for a fleet of hosts; unset: SQLite in the state directory.
    url: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _a_postgresql_url_without_password(cls, data: Any) -> Any:
        url = data.get("url") if isinstance(data, Mapping) else None
        problem = store_url_problem(url) if isinstance(url, str) else None
        if problem is not None:
            if isinstance(data, MutableMapping):
                data["url"] = "(not shown)"  # no message may carry it
            raise ValueError(problem)
        return data


class FleetConfig(BaseModel):
    """The ``[fleet]`` table, read when ``[store] url`` is set."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    # This host's name in the fleet; unset: a UUID kept in the state directory (not the
    # hostname: a restarted container gets a new one).
    host_id: str | None = None
    # A host's lease is renewed this often and lapses this long after its last renewal.
    lease_renew: Duration = timedelta(seconds=10)
    lease_ttl: Duration = timedelta(seconds=30)
    # The flood gap pages beyond the first that the identity's owners may read in an hour,
    # all hosts together (the gap bucket; a third of it in any minute).
    gap_pages_per_hour: int = Field(default=60, ge=1, le=5000, strict=True)

    @property
    def gap_limits(self) -> GapLimits:
        """The identity's gap bucket, as the owners' flood gap reads spend from it."""
        return GapLimits(self.gap_pages_per_hour)

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
