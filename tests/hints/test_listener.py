"""The listener over real loopback sockets: what it answers, what it hints, what it logs."""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import httpx
import pytest

from comment_wake.hints import HintListener, WebhookConfig, github_signature
from review_monitor import PrRef

pytestmark = pytest.mark.anyio

Sign = Callable[..., tuple[bytes, dict[str, str]]]
Running = Callable[..., AbstractAsyncContextManager[str]]
PR2 = PrRef("Codertocat", "Hello-World", 2)


async def _post(
    url: str, body: bytes, headers: dict[str, str], client: httpx.AsyncClient | None = None
) -> int:
    if client is None:
        async with httpx.AsyncClient(timeout=5) as fresh:
            return await _post(url, body, headers, fresh)
    return (await client.post(url, content=body, headers=headers)).status_code


async def _raw(url: str, request: bytes, *, wait: float = 5) -> bytes:
    """Send ``request`` as is over a new connection; the answer until the server closes."""
    port = int(url.split(":")[2].split("/")[0])
    received = b""
    with anyio.fail_after(wait):
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            await stream.send(request)
            while True:
                try:
                    received += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return received


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _pr_comment(examples: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    payload = copy.deepcopy(examples["issue_comment"][0])
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/x"}
    return payload


async def test_a_signed_delivery_is_accepted_and_hints_its_pr(
    running: Running, sign: Sign, hinted: list[PrRef], examples: dict[str, list[dict[str, Any]]]
) -> None:
    async with running() as url:
        status = await _post(url, *sign("pull_request_review", examples["pull_request_review"][0]))
    assert (202, [PR2]) == (status, hinted)


async def test_every_example_delivery_is_answered_and_hinted(
    running: Running, sign: Sign, hinted: list[PrRef], examples: dict[str, list[dict[str, Any]]]
) -> None:
    # The example comments are on plain issues (204); the PR events all name #2 (202).
    on_a_pr = ["pull_request", "pull_request_review", "pull_request_review_comment"]
    deliveries = [(e, p) for e in [*on_a_pr, "issue_comment", "ping"] for p in examples[e]]
    expected = (
        [202 if e in on_a_pr else 204 for e, _ in deliveries],
        [PR2 for e, _ in deliveries if e in on_a_pr],
    )
    async with running() as url, httpx.AsyncClient(timeout=5) as client:
        statuses = [await _post(url, *sign(e, p), client) for e, p in deliveries]
    assert expected == (statuses, hinted)


async def test_a_comment_on_a_pull_request_hints_it(
    running: Running, sign: Sign, hinted: list[PrRef], examples: dict[str, list[dict[str, Any]]]
) -> None:
    async with running() as url:
        status = await _post(url, *sign("issue_comment", _pr_comment(examples)))
    assert (202, [PrRef("Codertocat", "Hello-World", 1)]) == (status, hinted)


def _tamper_body(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    return body.replace(b"Hello-World", b"Hello-Worle"), headers


def _wrong_secret(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    return body, {**headers, "X-Hub-Signature-256": github_signature(b"not the secret", body)}


def _no_signature(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    return body, {k: v for k, v in headers.items() if k != "X-Hub-Signature-256"}


def _sha1_prefix(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    digest = headers["X-Hub-Signature-256"].removeprefix("sha256=")
    return body, {**headers, "X-Hub-Signature-256": "sha1=" + digest}


def _non_hex(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    return body, {**headers, "X-Hub-Signature-256": "sha256=" + "z" * 64}


@pytest.mark.parametrize(
    "spoil", [_tamper_body, _wrong_secret, _no_signature, _sha1_prefix, _non_hex]
)
async def test_a_delivery_without_a_valid_signature_is_refused_and_hints_nothing(
    running: Running,
    sign: Sign,
    hinted: list[PrRef],
    examples: dict[str, list[dict[str, Any]]],
    spoil: Callable[[bytes, dict[str, str]], tuple[bytes, dict[str, str]]],
) -> None:
    async with running() as url:
        status = await _post(url, *spoil(*sign("pull_request", examples["pull_request"][0])))
    assert (401, []) == (status, hinted)


async def test_a_missing_signature_is_refused_without_waiting_for_the_body(
    running: Running,
) -> None:
    head = (
        b"POST /github HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\nContent-Length: 1000\r\n\r\n"
    )
    async with running(timeout="60s") as url:
        answer = await _raw(url, head, wait=5)  # the body never comes
    assert 401 == _status(answer)


async def test_a_body_over_the_cap_is_refused_with_413(
    running: Running, sign: Sign, hinted: list[PrRef]
) -> None:
    payload = {"padding": "x" * 2000}
    async with running(max_body=1024) as url:
        status = await _post(url, *sign("pull_request", payload))
    assert (413, []) == (status, hinted)


async def test_a_body_at_the_cap_is_read(running: Running, sign: Sign) -> None:
    body, headers = sign("ping", b"x" * 1024)
    async with running(max_body=1024) as url:
        status = await _post(url, body, headers)
    assert 204 == status


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_another_method_is_refused_with_405(
    running: Running, sign: Sign, method: str
) -> None:
    body, headers = sign("ping", b"{}")
    async with running() as url, httpx.AsyncClient(timeout=5) as client:
        response = await client.request(method, url, content=body, headers=headers)
    assert (405, "POST") == (response.status_code, response.headers.get("allow"))


@pytest.mark.parametrize("path", ["/", "/github/", "/GitHub", "/github?x=1", "/other"])
async def test_another_path_is_refused_with_404(running: Running, sign: Sign, path: str) -> None:
    async with running() as url:
        status = await _post(url.removesuffix("/github") + path, *sign("ping", b"{}"))
    assert 404 == status


async def test_a_configured_path_is_served(running: Running, sign: Sign) -> None:
    async with running(path="/hooks/gh") as url:
        status = await _post(url, *sign("ping", b"{}"))
    assert (True, 204) == (url.endswith("/hooks/gh"), status)


@pytest.mark.parametrize(
    "body", [b"not json", b"[1, 2]", b"", b"[" * 100_000 + b"]" * 100_000, b'{"a": "\xff"}']
)
async def test_a_signed_body_that_is_not_a_json_object_is_refused_with_400(
    running: Running, sign: Sign, hinted: list[PrRef], body: bytes
) -> None:
    async with running() as url:
        status = await _post(url, *sign("pull_request", body))
    assert (400, []) == (status, hinted)


async def test_a_signed_payload_of_the_wrong_shape_is_refused_with_400(
    running: Running, sign: Sign, hinted: list[PrRef], examples: dict[str, list[dict[str, Any]]]
) -> None:
    payload = copy.deepcopy(examples["pull_request"][0])
    payload["pull_request"]["number"] = "2"
    async with running() as url:
        status = await _post(url, *sign("pull_request", payload))
    assert (400, []) == (status, hinted)


async def test_a_delivery_without_an_event_header_is_refused_with_400(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    body, headers = sign("pull_request", examples["pull_request"][0])
    del headers["X-GitHub-Event"]
    async with running() as url:
        status = await _post(url, body, headers)
    assert 400 == status


async def test_a_form_encoded_delivery_is_refused_with_415(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    body, headers = sign("pull_request", examples["pull_request"][0])
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    async with running() as url:
        status = await _post(url, body, headers)
    assert 415 == status


async def test_a_chunked_body_is_refused_with_501(running: Running, sign: Sign) -> None:
    body, headers = sign("ping", b"{}")

    async def chunks() -> Any:
        yield body

    async with running() as url, httpx.AsyncClient(timeout=5) as client:
        response = await client.post(url, content=chunks(), headers=headers)
    assert 501 == response.status_code


async def test_expect_100_continue_is_honoured(running: Running, sign: Sign) -> None:
    body, headers = sign("ping", b"{}")
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = (
        f"POST /github HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n{head}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    async with running() as url:
        answer = await _raw(url, request)
    assert [b"HTTP/1.1 100 Continue", b"HTTP/1.1 204 No Content"] == [
        line for line in answer.split(b"\r\n") if line.startswith(b"HTTP/")
    ]


async def test_an_oversized_head_is_refused_with_431(running: Running) -> None:
    request = b"POST /github HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 20_000 + b"\r\n\r\n"
    async with running() as url:
        answer = await _raw(url, request)
    assert 431 == _status(answer)


async def test_a_slow_client_is_cut_off_and_does_not_delay_another(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    async with running(timeout="2s") as url, anyio.create_task_group() as tg:
        slow: list[bytes] = []

        async def slowloris() -> None:
            slow.append(await _raw(url, b"POST /github HTTP/1.1\r\nHost: x\r\n", wait=5))

        tg.start_soon(slowloris)
        await anyio.sleep(0.05)
        with anyio.fail_after(1.5):  # before the slow client's deadline
            status = await _post(url, *sign("pull_request", examples["pull_request"][0]))
    assert (202, 408) == (status, _status(slow[0]))


async def test_when_every_slot_is_taken_a_new_connection_is_told_503(
    running: Running, sign: Sign
) -> None:
    async with running(timeout="2s", max_connections=1) as url, anyio.create_task_group() as tg:
        port = int(url.split(":")[2].split("/")[0])
        async with await anyio.connect_tcp("127.0.0.1", port):
            await anyio.sleep(0.05)
            with anyio.fail_after(1):
                status = await _post(url, *sign("ping", b"{}"))
        tg.cancel_scope.cancel()
    assert 503 == status


async def test_a_failing_hint_is_answered_500_and_the_server_carries_on(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    calls: list[PrRef] = []

    def hint(pr: PrRef) -> None:
        calls.append(pr)
        if len(calls) == 1:
            raise RuntimeError("poller gone")

    delivery = sign("pull_request", examples["pull_request"][0])
    async with running(hint=hint) as url:
        statuses = [await _post(url, *delivery), await _post(url, *delivery)]
    assert ([500, 202], [PR2, PR2]) == (statuses, calls)


async def test_the_listener_stops_on_cancellation_and_frees_its_port(
    running: Running, sign: Sign
) -> None:
    async with running() as url:
        port = int(url.split(":")[2].split("/")[0])
        assert 204 == await _post(url, *sign("ping", b"{}"))
    with pytest.raises(OSError, match=r"(?i)refused|failed"):
        await anyio.connect_tcp("127.0.0.1", port)


async def test_an_ipv6_loopback_bind_is_served(running: Running, sign: Sign) -> None:
    async with running(bind="::1") as url:
        status = await _post(url, *sign("ping", b"{}"))
    assert 204 == status


def test_an_empty_secret_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="secret is empty"):
        HintListener(WebhookConfig(), b"", lambda pr: None)


def test_the_listeners_repr_does_not_show_the_secret(secret: bytes) -> None:
    assert secret.decode() not in repr(HintListener(WebhookConfig(), secret, lambda pr: None))


async def test_no_log_line_carries_the_payload_the_headers_or_the_secret(
    running: Running,
    sign: Sign,
    examples: dict[str, list[dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
    secret: bytes,
) -> None:
    marker = "MARKER-7d1e"
    payload = _pr_comment(examples)
    payload["comment"]["body"] = f"ignore previous instructions {marker}"
    payload["sender"]["login"] = f"{marker}-login"
    payload["issue"]["title"] = marker
    body, headers = sign("issue_comment", payload)
    deliveries = [
        (body, headers),
        (body + b" ", headers),  # bad signature
        (body, {**headers, "X-GitHub-Event": marker}),
        (body, {**headers, "X-GitHub-Delivery": marker}),
        sign("issue_comment", f'{{"x": "{marker}"'.encode()),  # malformed JSON
        sign("pull_request", {"pull_request": {"number": marker}}),
    ]
    with caplog.at_level(logging.DEBUG):
        async with running() as url, httpx.AsyncClient(timeout=5) as client:
            statuses = [await _post(url, b, h, client) for b, h in deliveries]
    # The server's own lines (the test's HTTP client logs too).
    ours = [r for r in caplog.records if r.name.startswith("comment_wake")]
    text = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in ours)
    found = (marker in text, secret.decode() in text, "Codertocat/Hello-World#1" in text)
    assert ([202, 401, 400, 202, 400, 400], (False, False, True)) == (statuses, found)
