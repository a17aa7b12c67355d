"""The webhook publisher against a real loopback HTTP receiver."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from comment_wake.delivery import WebhookError, WebhookPublisher, verify_signature
from review_monitor import Busy, Delivered, Gone, Notice, Refused

NoticeFactory = Callable[..., Notice]
SECRET = "s3cr3t-webhook-key-do-not-log"

pytestmark = pytest.mark.anyio


class FixedClock:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def now(self) -> datetime:
        return self.t

    async def sleep_until(self, t: datetime) -> None:  # pragma: no cover - unused
        self.t = t


def _publisher(url: str, **kw: object) -> WebhookPublisher:
    return WebhookPublisher(url, SECRET, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (200, Delivered),
        (202, Delivered),
        (204, Delivered),
        (409, Busy),
        (423, Busy),
        (429, Busy),
        (503, Busy),
        (404, Gone),
        (410, Gone),
        (400, Refused),
        (401, Refused),
        (403, Refused),
        (422, Refused),
        (301, Refused),
    ],
)
async def test_status_maps_to_outcome(
    make_notice: NoticeFactory, receiver: Any, status: int, kind: type
) -> None:
    receiver.status = status
    outcome = await _publisher(receiver.url).publish(make_notice())
    assert kind is type(outcome)


@pytest.mark.parametrize("status", [500, 502, 504])
async def test_server_error_raises_for_retry(
    make_notice: NoticeFactory, receiver: Any, status: int
) -> None:
    receiver.status = status
    with pytest.raises(WebhookError) as caught:
        await _publisher(receiver.url).publish(make_notice())
    assert status == caught.value.status


async def test_receiver_verifies_the_signature(make_notice: NoticeFactory, receiver: Any) -> None:
    await _publisher(receiver.url).publish(make_notice())
    got = receiver.received[0]
    ok = verify_signature(
        SECRET,
        got.headers["X-Comment-Wake-Timestamp"],
        got.body,
        got.headers["X-Comment-Wake-Signature-256"],
        now=datetime.now(UTC),
    )
    assert ok


async def test_receiver_rejects_a_tampered_body(make_notice: NoticeFactory, receiver: Any) -> None:
    await _publisher(receiver.url).publish(make_notice())
    got = receiver.received[0]
    tampered = got.body.replace(b"alice", b"mallory")
    ok = verify_signature(
        SECRET,
        got.headers["X-Comment-Wake-Timestamp"],
        tampered,
        got.headers["X-Comment-Wake-Signature-256"],
        now=datetime.now(UTC),
    )
    assert not ok


async def test_receiver_rejects_a_stale_timestamp(
    make_notice: NoticeFactory, receiver: Any
) -> None:
    sent_at = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    publisher = _publisher(receiver.url, clock=FixedClock(sent_at))
    await publisher.publish(make_notice())
    got = receiver.received[0]
    ok = verify_signature(
        SECRET,
        got.headers["X-Comment-Wake-Timestamp"],
        got.body,
        got.headers["X-Comment-Wake-Signature-256"],
        now=datetime(2026, 3, 1, 12, 5, 1, tzinfo=UTC),
    )
    assert not ok


async def test_body_is_the_notice_and_key_is_the_idempotency_key(
    make_notice: NoticeFactory, receiver: Any
) -> None:
    notice = make_notice()
    await _publisher(receiver.url).publish(notice)
    got = receiver.received[0]
    assert (notice, notice.key, "application/json") == (
        msgspec.json.decode(got.body, type=Notice),
        got.headers["Idempotency-Key"],
        got.headers["Content-Type"],
    )


async def test_idempotency_key_is_stable_across_a_restart(
    make_notice: NoticeFactory, receiver: Any
) -> None:
    # A second interpreter (another hash seed, no shared state) builds the same notice
    # from its parts and publishes it: the receiver sees the same key both times.
    await _publisher(receiver.url).publish(make_notice())
    program = textwrap.dedent(
        f"""
        import anyio
        from datetime import UTC, datetime, timedelta
        from review_monitor import Notice, NoticeItem, NoticePr, PrRef, notice_key
        from comment_wake.delivery import WebhookPublisher
        pr = PrRef(owner="o", name="r", number=7)
        notice = Notice(
            version=1, kind="comment-wake", worker="w-42",
            key=notice_key("w-42", pr, "comment-wake", ["IC_1"]),
            pr=NoticePr(host="github.com", repo="o/r", number=7,
                        url="https://github.com/o/r/pull/7", title="Fix the parser"),
            items=(NoticeItem(id="IC_1", database_id=100, author="alice", kind="comment",
                              url="https://github.com/o/r/pull/7#issuecomment-100"),),
            text="alice commented on o/r#7",
            created_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
        anyio.run(WebhookPublisher({receiver.url!r}, {SECRET!r}).publish, notice)
        """
    )
    subprocess.run(
        [sys.executable, "-c", program],
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    keys = [r.headers["Idempotency-Key"] for r in receiver.received]
    assert 2 == len(keys)
    assert keys[0] == keys[1]


async def test_delivered_answer_may_report_a_new_session(
    make_notice: NoticeFactory, receiver: Any
) -> None:
    receiver.answer = b'{"session_id": "9b2e-new"}'
    outcome = await _publisher(receiver.url).publish(make_notice())
    assert Delivered(session_id="9b2e-new") == outcome


async def test_busy_carries_retry_after_as_a_field(
    make_notice: NoticeFactory, receiver: Any
) -> None:
    receiver.status = 429
    receiver.answer_headers = {"Retry-After": "30"}
    outcome = await _publisher(receiver.url).publish(make_notice())
    assert Busy("HTTP 429", retry_after=timedelta(seconds=30)) == outcome


async def test_slow_receiver_times_out_for_retry(make_notice: NoticeFactory, receiver: Any) -> None:
    receiver.delay = 5.0
    with pytest.raises(WebhookError) as caught:
        await _publisher(receiver.url, timeout=0.5).publish(make_notice())
    assert caught.value.status is None


async def test_connection_refused_raises_for_retry(make_notice: NoticeFactory) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(WebhookError):
        await _publisher(f"http://127.0.0.1:{port}/hook").publish(make_notice())


async def test_secret_never_appears_in_errors_repr_or_logs(
    make_notice: NoticeFactory, receiver: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    receiver.status = 500
    publisher = WebhookPublisher(receiver.url, SECRET)
    with pytest.raises(WebhookError) as caught:
        await publisher.publish(make_notice())
    seen = " ".join([str(caught.value), repr(publisher), caplog.text])
    assert SECRET not in seen


@pytest.mark.parametrize(
    "tail",
    [f"?token={SECRET}", f"?access_token={SECRET}", f"#token={SECRET}", f"?x=1&api_key={SECRET}"],
)
def test_a_credential_in_the_urls_query_or_fragment_is_refused_without_echoing_it(
    tail: str,
) -> None:
    with pytest.raises(ValueError, match="must not carry a credential") as caught:
        WebhookPublisher(f"http://127.0.0.1/hook{tail}", "k")
    assert SECRET not in str(caught.value)


def test_a_query_without_a_credential_is_kept() -> None:
    publisher = WebhookPublisher("http://127.0.0.1/hook?worker=w1&monkey=1", "k")
    assert "http://127.0.0.1/hook" == publisher.safe_url


def test_credentials_in_the_url_are_refused_without_echoing_them() -> None:
    with pytest.raises(ValueError, match="credentials") as caught:
        WebhookPublisher(f"http://user:{SECRET}@127.0.0.1/hook", "k")
    assert SECRET not in str(caught.value)


def test_headers_cannot_override_the_signature() -> None:
    with pytest.raises(ValueError, match="X-Comment-Wake-Signature-256"):
        WebhookPublisher(
            "http://127.0.0.1/hook", SECRET, headers={"X-Comment-Wake-Signature-256": "x"}
        )
