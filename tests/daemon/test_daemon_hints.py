"""The daemon's webhook-hint path: a signed delivery polls its PR at once.

The daemon runs in process on virtual time with the hint listener on real loopback
HTTP; deliveries are posted from a worker thread while the event loop serves them.  The
poll interval is a minute of virtual time, so within the few virtual seconds a test
lets pass only a hint can explain a poll after the first round.  Deliveries follow the
shape of GitHub's ``issue_comment`` example in ``webhook-examples.json``, pointed at the
world's PR.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio.to_thread
import httpx
import pytest

from comment_wake.hints import github_signature

pytestmark = pytest.mark.anyio

SECRET = "daemon-hint-test-secret"
DELIVERY = "5d6a0f8e-0000-4000-8000-000000000001"
HINT_WITHIN = timedelta(seconds=5)  # virtual time from a delivery to its notice in the inbox
QUIET_FOR = timedelta(seconds=3)  # virtual time a refused delivery is watched for a poll
_PORT = re.compile(r"listening for GitHub webhook deliveries on \S+ port (\d+), path (\S+)")


@pytest.fixture
def comment_example(shared_dir: Path) -> dict[str, Any]:
    groups = json.loads((shared_dir / "github" / "webhook-examples.json").read_text())
    (group,) = [g for g in groups if g["name"] == "issue_comment"]
    return dict(group["examples"][0])


def _delivery(example: dict[str, Any], world: Any, comment_db: int) -> bytes:
    payload = copy.deepcopy(example)
    owner, name = world.pr.repo.split("/")
    payload["issue"]["number"] = world.pr.number
    payload["issue"]["pull_request"] = {
        "url": f"https://api.github.com/repos/{world.pr.repo}/pulls/{world.pr.number}"
    }
    payload["comment"]["id"] = comment_db
    repo = payload["repository"]
    repo["full_name"] = world.pr.repo
    repo["name"] = name
    repo["owner"]["login"] = owner
    repo["html_url"] = f"https://github.com/{world.pr.repo}"
    return json.dumps(payload).encode()


def _post(url: str, body: bytes, signature: str, delivery: str = DELIVERY) -> int:
    headers = {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": delivery,
        "x-hub-signature-256": signature,
    }
    return httpx.post(url, content=body, headers=headers, timeout=10).status_code


def _post_many(url: str, body: bytes, signature: str, deliveries: list[str]) -> list[int]:
    with httpx.Client(timeout=10) as client:
        return [
            client.post(
                url,
                content=body,
                headers={
                    "content-type": "application/json",
                    "x-github-event": "issue_comment",
                    "x-github-delivery": delivery,
                    "x-hub-signature-256": signature,
                },
            ).status_code
            for delivery in deliveries
        ]


async def _replay(run: Any, world: Any, body: bytes, ids: list[str]) -> list[int]:
    """The issue's replay: the signed delivery sent 10 times a second (virtual) under
    ``ids``, one id per request."""
    app = run.daemon.app
    url = f"http://127.0.0.1:{app.hint_port}{app.config.webhook.path}"
    signature = github_signature(SECRET.encode(), body)
    statuses: list[int] = []
    for start in range(0, len(ids), 10):
        statuses += await anyio.to_thread.run_sync(
            functools.partial(_post_many, url, body, signature, ids[start : start + 10])
        )
        await world.clock.advance(timedelta(seconds=1))
    return statuses


def _badge_times(world: Any) -> list[Any]:
    return [r.at for r in world.fake.requests if r.kind == "badge"]


async def _send(run: Any, body: bytes, signature: str) -> int:
    """POST the delivery to the running daemon's listener (real HTTP, from a thread)."""
    app = run.daemon.app
    url = f"http://127.0.0.1:{app.hint_port}{app.config.webhook.path}"
    return await anyio.to_thread.run_sync(functools.partial(_post, url, body, signature))


def _hinted(world: Any) -> Any:
    world.write_config("[webhook]\nenabled = true\nport = 0\n", poll="60s")
    world.bind()
    return world.running(environ={"COMMENT_WAKE_WEBHOOK_SECRET": SECRET})


async def test_the_listener_logs_the_port_and_path_it_listens_on(world: Any, logs: Any) -> None:
    async with _hinted(world) as run:
        app = run.daemon.app
        said = [m.groups() for m in map(_PORT.search, logs.messages()) if m is not None]
    assert [(str(app.hint_port), app.config.webhook.path)] == said


async def test_a_signed_delivery_wakes_the_worker_within_seconds_despite_a_minute_poll(
    world: Any, comment_example: dict[str, Any]
) -> None:
    async with _hinted(world) as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        body = _delivery(comment_example, world, 4242)
        sent = world.clock.now()
        assert 202 == await _send(run, body, github_signature(SECRET.encode(), body))
        await world.until(
            lambda: len(world.delivered_texts()) == 1, "the hinted notice", HINT_WITHIN
        )
        assert world.clock.now() - sent < HINT_WITHIN
        assert 1 == run.rounds()  # the first round only: the wake came from the hint's poll
    assert "please rename the widget" in world.delivered_texts()[0]


async def test_a_delivery_with_a_bad_signature_is_refused_and_polls_nothing(
    world: Any, comment_example: dict[str, Any]
) -> None:
    async with _hinted(world) as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        badges = world.fake.count("badge")
        body = _delivery(comment_example, world, 4242)
        assert 401 == await _send(run, body, github_signature(b"not the secret", body))
        await world.clock.advance(QUIET_FOR)
        assert badges == world.fake.count("badge")
    assert [] == world.delivered_texts()


async def test_one_delivery_replayed_190_times_in_20_seconds_polls_its_pr_once(
    world: Any, comment_example: dict[str, Any]
) -> None:
    async with _hinted(world) as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        before = len(_badge_times(world))
        sent = world.clock.now()
        statuses = await _replay(
            run, world, _delivery(comment_example, world, 4242), [DELIVERY] * 190
        )
        await world.clock.advance(timedelta(seconds=2))
        polls = _badge_times(world)[before:]
    half = timedelta(seconds=0.5)
    assert ([202] + [204] * 189, [sent + half]) == (statuses, polls)


async def test_replays_under_new_delivery_ids_poll_a_pr_once_per_hint_min_gap(
    world: Any, comment_example: dict[str, Any]
) -> None:
    async with _hinted(world) as run:
        before = len(_badge_times(world))
        sent = world.clock.now()
        ids = [f"5d6a0f8e-0000-4000-8000-{n:012d}" for n in range(190)]
        statuses = await _replay(run, world, _delivery(comment_example, world, 4242), ids)
        await world.clock.advance(timedelta(seconds=2))
        polls = [t - sent for t in _badge_times(world)[before:]]
    expected = [timedelta(seconds=s) for s in (0.5, 10.5, 20.5)]  # hint_min_gap: 10 s
    assert ([202] * 190, expected) == (statuses, polls)
