"""The daemon's JSON log: a decision's and a wake's facts are fields of the line, and at
``log_level = "debug"`` every HTTP request is a line with its route template, never a
login or a query string, while httpx stays quiet."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from comment_wake._logging import configure_logging

pytestmark = pytest.mark.anyio

PERMISSION = "/repos/{owner}/{repo}/collaborators/{login}/permission"


@pytest.fixture
def debug_lines() -> Iterator[io.StringIO]:
    """The root logger through ``configure_logging("json", "debug")`` into a buffer."""
    root = logging.getLogger()
    level = root.level
    quiet = {name: logging.getLogger(name).level for name in ("httpx", "httpcore", "psycopg.pool")}
    stream = io.StringIO()
    configure_logging("json", "debug", stream=stream)
    (handler,) = [h for h in root.handlers if getattr(h, "stream", None) is stream]
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(level)
        for name, old in quiet.items():
            logging.getLogger(name).setLevel(old)


async def _woken(world: Any) -> str:
    world.bind()
    async with world.running():
        comment = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
    return str(comment)


async def test_a_decision_line_carries_its_pr_comment_outcome_reason_worker_and_notice_key(
    world: Any, logs: Any
) -> None:
    comment = await _woken(world)
    [line] = [r for r in logs.records() if r.get("event") == "decided"]
    keys = ("pr", "host", "comment", "outcome", "reason", "worker")
    assert (
        (str(world.pr), "github.com", comment, "wake", "writer", world.worker),
        64,
        int,
    ) == (tuple(line[k] for k in keys), len(line["notice_key"]), type(line["database_id"]))


async def test_a_wake_line_carries_its_pr_worker_notice_key_and_comment_count(
    world: Any, logs: Any
) -> None:
    await _woken(world)
    [decided] = [r for r in logs.records() if r.get("event") == "decided"]
    [woke] = [r for r in logs.records() if r.get("event") == "queued"]
    assert (str(world.pr), world.worker, decided["notice_key"], 1) == (
        woke["pr"],
        woke["worker"],
        woke["notice_key"],
        woke["comments"],
    )


async def test_a_strangers_decision_fields_name_neither_the_author_nor_the_text(
    world: Any, logs: Any
) -> None:
    world.bind()
    async with world.running():
        world.fake.post_comment(world.pr, world.stranger, "STRANGER-TEXT")
        await world.until(
            lambda: any(r.get("event") == "decided" for r in logs.records()), "the decision"
        )
    [line] = [r for r in logs.records() if r.get("event") == "decided"]
    values = " ".join(str(v) for v in line.values())
    assert ("skip", "not-writer", False, False) == (
        line["outcome"],
        line["reason"],
        world.stranger in values,
        "STRANGER-TEXT" in values,
    )


async def test_at_debug_each_http_request_is_a_line_with_its_route_template(
    world: Any, debug_lines: io.StringIO
) -> None:
    await _woken(world)
    records = [json.loads(line) for line in debug_lines.getvalue().splitlines()]
    routes = {
        r["route"] for r in records if r["logger"] == "review_monitor.github" and "route" in r
    }
    lookup = next(r for r in records if r.get("route") == PERMISSION)
    assert ({"/graphql", "/user", PERMISSION} <= routes, "GET", 200, 1, int) == (
        True,
        lookup["method"],
        lookup["status"],
        lookup["points"],
        type(lookup["duration_ms"]),
    )


async def test_at_debug_no_line_names_a_login_or_a_query_and_httpx_says_nothing(
    world: Any, debug_lines: io.StringIO
) -> None:
    await _woken(world)
    records = [json.loads(line) for line in debug_lines.getvalue().splitlines()]
    requests = [r for r in records if "route" in r]
    said = " ".join(json.dumps(r) for r in requests)
    assert (True, False, False, False, []) == (
        len(requests) > 3,
        "maintainer" in said,
        "?" in said,
        "octo-worker" in said,  # the token's own login, in the preflight's lookup
        [r for r in records if r["logger"].startswith(("httpx", "httpcore"))],
    )


async def test_a_line_of_the_wake_core_is_logged_once(world: Any, logs: Any) -> None:
    from review_monitor.testing import Fault

    world.bind()
    async with world.running() as run:
        world.fake.inject(Fault(status=502, kind="permission", times=50))
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(
            lambda: any("was passed over as untrusted" in m for m in logs.messages()),
            "the core's line about the failed lookup",
        )
        await world.rounds(run, 1)
    lines = [m for m in logs.messages() if "was passed over as untrusted" in m]
    assert 1 == len(lines), lines
