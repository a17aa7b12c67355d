"""Shared helpers for the webhook hint tests: the example payloads, a running listener,
and signed deliveries."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from comment_wake.hints import HintListener, WebhookConfig, github_signature
from review_monitor import PrRef

SECRET = b"It's a Secret to Everybody"

Running = Callable[..., AbstractAsyncContextManager[str]]


@pytest.fixture
def examples(shared_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """``webhook-examples.json`` by event name."""
    groups = json.loads((shared_dir / "github" / "webhook-examples.json").read_text())
    return {group["name"]: group["examples"] for group in groups}


@pytest.fixture
def secret() -> bytes:
    """The secret ``running`` and ``sign`` use unless told otherwise."""
    return SECRET


@pytest.fixture
def hinted() -> list[PrRef]:
    """Every PR the listener under test hinted, in order."""
    return []


@pytest.fixture
def running(hinted: list[PrRef]) -> Running:
    """``async with running(**config) as url:`` serves a listener on an ephemeral loopback
    port that appends each hint to ``hinted``; it is cancelled on exit."""

    @asynccontextmanager
    async def run(
        *, secret: bytes = SECRET, hint: Callable[[PrRef], None] | None = None, **config: Any
    ) -> AsyncIterator[str]:
        cfg = WebhookConfig(**{"port": 0, "enabled": True, **config})
        listener = HintListener(cfg, secret, hint or hinted.append)
        async with anyio.create_task_group() as tg:
            port = await tg.start(listener.serve)
            host = f"[{cfg.bind}]" if ":" in cfg.bind else cfg.bind
            yield f"http://{host}:{port}{cfg.path}"
            tg.cancel_scope.cancel()

    return run


def signed(
    event: str,
    payload: dict[str, Any] | bytes,
    *,
    secret: bytes = SECRET,
    delivery: str | None = None,
) -> tuple[bytes, dict[str, str]]:
    """A delivery as GitHub sends it: the body and its headers, with a new
    ``X-GitHub-Delivery`` id unless ``delivery`` gives one."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid1()),
        "X-Hub-Signature-256": github_signature(secret, body),
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/044aadd",
    }
    return body, headers


@pytest.fixture
def sign() -> Callable[..., tuple[bytes, dict[str, str]]]:
    """``sign(event, payload, secret=...)``: a signed delivery's body and headers."""
    return signed
