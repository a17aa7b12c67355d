"""The daemon's webhook-hint path, end to end: a signed delivery polls its PR at once.

The poll interval is a minute, so within a test's few seconds only a hint can explain a
poll after the first round.  Deliveries follow the shape of GitHub's ``issue_comment``
example in ``webhook-examples.json``, pointed at the world's PR.
"""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from comment_wake.hints import github_signature

SECRET = "daemon-hint-test-secret"
HINT_WITHIN = 5.0  # seconds from a delivery to its notice in the inbox
QUIET_FOR = 3.0  # seconds a refused delivery is watched for a poll it must not cause
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


def _post(url: str, body: bytes, signature: str) -> int:
    headers = {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "5d6a0f8e-0000-4000-8000-000000000001",
        "x-hub-signature-256": signature,
    }
    return httpx.post(url, content=body, headers=headers, timeout=10).status_code


def _hinted_daemon(world: Any) -> tuple[Any, str]:
    world.write_config("[webhook]\nenabled = true\nport = 0\n", poll="60s")
    world.bind()
    daemon = world.start(env=world.env(COMMENT_WAKE_WEBHOOK_SECRET=SECRET))
    line = daemon.wait_for(lambda m: _PORT.search(m) is not None)
    daemon.wait_rounds(1)
    found = _PORT.search(line)
    assert found is not None
    return daemon, f"http://127.0.0.1:{found[1]}{found[2]}"


def test_a_signed_delivery_wakes_the_worker_within_seconds_despite_a_minute_poll(
    world: Any, comment_example: dict[str, Any]
) -> None:
    daemon, url = _hinted_daemon(world)
    world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    body = _delivery(comment_example, world, 4242)
    sent = time.monotonic()
    assert 202 == _post(url, body, github_signature(SECRET.encode(), body))
    world.wait_until(lambda: len(world.delivered_texts()) == 1, "the hinted notice", HINT_WITHIN)
    assert time.monotonic() - sent < HINT_WITHIN
    assert 1 == daemon.rounds()  # the first round only: the wake came from the hint's poll
    assert "please rename the widget" in world.delivered_texts()[0]
    assert 0 == daemon.stop()


def test_a_delivery_with_a_bad_signature_is_refused_and_polls_nothing(
    world: Any, comment_example: dict[str, Any]
) -> None:
    daemon, url = _hinted_daemon(world)
    world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    badges = world.fake.count("badge")
    body = _delivery(comment_example, world, 4242)
    assert 401 == _post(url, body, github_signature(b"not the secret", body))
    time.sleep(QUIET_FOR)
    assert badges == world.fake.count("badge")
    assert [] == world.delivered_texts()
    assert 0 == daemon.stop()
