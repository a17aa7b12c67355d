"""End to end on PostgreSQL: two fleet daemons sharing one store, SIGKILLed at random.

The SQLite kill proof's story (``harness.run_proof``) at a third of its length, played
against two daemons (hosts ``h1`` and ``h2``, the PRs dealt out between them) on one
PostgreSQL schema, with 1 s leases renewed every 0.3 s (``"1000ms"``, ``"300ms"``): each
kill of the reader's host hands the reader lease over or its restart takes it back (the
first such kill holds the restart until the other host reads, so every run fails over),
each kill of an owner leaves its PRs' comments to be decided when it is back.  Each test
checks one property of what reached the workers' inboxes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _postgres import PostgresServer, fresh_schema

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def proof(
    harness: ModuleType, postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    workdir: Path = tmp_path_factory.mktemp("fleet-e2e")
    third = harness.Settings(
        hosts=2,
        story_seconds=20.0,
        kills=10,
        trusted=37,
        untrusted=14,
        verdicts=3,
        settle_seconds=45.0,
        # Twelve wakes an "hour" (60 s): the gap and the windows are still checked, but
        # no PR's comment waits out a window, which would add a minute to the suite and
        # prove nothing the SQLite proof does not.
        wakes_per_hour=12,
        lease_ttl_s=1.0,
        lease_renew_s=0.3,
    )
    with fresh_schema(postgres_server) as url:
        yield harness.run_proof(dataclasses.replace(third, store_url=url), workdir)


def test_both_daemons_were_killed_under_faults(proof: Any) -> None:
    assert proof.kills >= 10
    assert {"h1", "h2"} == set(proof.killed)
    assert {"5xx", "secondary-limit", "partial-graphql"} <= set(proof.faults)


def test_the_reader_lease_moved_between_the_hosts(proof: Any) -> None:
    assert ["h1", "h2"] == sorted(proof.readers)


def test_every_trusted_comment_reached_its_worker(proof: Any) -> None:
    assert proof.trusted >= 30
    assert [] == proof.lost


def test_no_trusted_comment_reached_its_worker_twice(proof: Any) -> None:
    assert [] == proof.duplicated


def test_nothing_untrusted_reached_a_worker(proof: Any) -> None:
    assert [] == proof.untrusted_delivered


def test_the_rate_limit_held_across_kills(proof: Any) -> None:
    assert [] == proof.rate_limit_violations


def test_the_token_never_reached_the_daemons_output(proof: Any) -> None:
    assert proof.leaked_token is False
