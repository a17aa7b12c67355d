"""The webhook listener: a small HTTP/1.1 server on anyio sockets that turns signed
deliveries into ``hint(pr)`` calls.

It runs in the daemon's own event loop (so ``hint`` may call ``Poller.poll_now``
directly) and stops when its task group is cancelled.  Each connection carries one
request, has one deadline for the whole exchange and holds one of a fixed number of
slots, so a slow or hostile client delays nobody else.  Logs carry a status, a fixed
reason and a validated ``owner/name#N``; never a header value, a body or the secret.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import msgspec
from anyio.abc import SocketAttribute, SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream

from review_monitor import PrRef

from ._config import WebhookConfig
from ._http import MAX_HEAD, HttpError, RequestHead, parse_head, render_answer
from ._payload import HINT_EVENTS, Verdict, classify_delivery
from ._signature import is_signature_shaped, verify_github_signature

__all__ = ["Hint", "HintListener"]

Hint = Callable[[PrRef], None]
"""Called from the event loop with the PR a delivery names (``Poller.poll_now``)."""

_log = logging.getLogger("comment_wake.hints")
_EVENT = re.compile(r"[a-z_]{1,64}")
_LENGTH = re.compile(r"[0-9]{1,10}")
_LINGER = 1.0  # seconds to drain what a refused client still sends before closing


@dataclass(frozen=True)
class _Answer:
    status: int
    note: str  # a fixed phrase, safe to log
    pr: PrRef | None = None


class HintListener:
    """Serve GitHub webhook deliveries on ``config.bind:config.port``; see ``serve``."""

    def __init__(
        self,
        config: WebhookConfig,
        secret: bytes,
        hint: Hint,
        *,
        logger: logging.Logger | None = None,
    ) -> None:
        if not secret:
            raise ValueError("the webhook secret is empty")
        self._config = config
        self._secret = secret
        self._hint = hint
        self._log = logger or _log
        self._slots = config.max_connections
        self._refusals = config.max_connections
        self._timeout = config.timeout.total_seconds()

    def __repr__(self) -> str:  # never the secret
        return f"HintListener(bind={self._config.bind!r}, port={self._config.port})"

    async def serve(self, *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled.  ``await task_group.start(listener.serve)`` returns the
        port (the ephemeral one when ``port = 0``) once connections are accepted."""
        listener = await anyio.create_tcp_listener(
            local_host=self._config.bind, local_port=self._config.port
        )
        async with listener:
            port = listener.extra(SocketAttribute.local_port)
            self._log.info(
                "listening for GitHub webhook deliveries on %s port %d, path %s",
                self._config.bind,
                port,
                self._config.path,
            )
            task_status.started(port)
            await listener.serve(self._connection)

    async def _connection(self, stream: SocketStream) -> None:
        async with stream:
            try:
                if self._slots <= 0:
                    self._log.debug("webhook connection refused: all slots busy")
                    # Answering takes a brief linger; past a second set of slots a
                    # flood is simply closed.
                    if self._refusals > 0:
                        self._refusals -= 1
                        try:
                            await self._finish(stream, _Answer(503, "all slots busy"))
                        finally:
                            self._refusals += 1
                    return
                self._slots -= 1
                try:
                    answer = await self._exchange(stream)
                    self._log.debug("webhook delivery answered %d: %s", answer.status, answer.note)
                    await self._finish(stream, answer)
                finally:
                    self._slots += 1
            except Exception as exc:  # one connection's fault must never stop the server
                self._log.debug("webhook connection failed: %s", type(exc).__name__)

    async def _exchange(self, stream: SocketStream) -> _Answer:
        with anyio.move_on_after(self._timeout):
            return await self._read_request(stream, BufferedByteReceiveStream(stream))
        return _Answer(408, "the client was too slow")

    async def _finish(self, stream: SocketStream, answer: _Answer) -> None:
        """Answer, then drain briefly: closing with unread input would reset the
        connection and could lose the answer before the client reads it."""
        extra = (("Allow", "POST"),) if answer.status == 405 else ()
        with anyio.move_on_after(_LINGER):
            await stream.send(render_answer(answer.status, extra))
            await stream.send_eof()
            while True:
                try:
                    await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break

    async def _read_request(self, stream: SocketStream, rx: BufferedByteReceiveStream) -> _Answer:
        try:
            head = parse_head(await rx.receive_until(b"\r\n\r\n", MAX_HEAD))
        except anyio.DelimiterNotFound:
            return _Answer(431, "head too large")
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return _Answer(400, "closed before the head ended")
        except HttpError as exc:
            return _Answer(exc.status, exc.note)
        refusal = self._refuse_before_body(head)
        if refusal is not None:
            return refusal
        length = int(head.headers["content-length"])
        if head.header("expect") is not None:
            if head.headers["expect"].lower() != "100-continue":
                return _Answer(417, "unsupported expectation")
            await stream.send(render_answer(100))
        try:
            body = await rx.receive_exactly(length) if length else b""
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return _Answer(400, "closed before the body ended")
        if not verify_github_signature(self._secret, body, head.header("x-hub-signature-256")):
            self._log.warning(
                "refused a webhook delivery: its signature does not match the secret in %s",
                self._config.secret_env,
            )
            return _Answer(401, "signature mismatch")
        return self._deliver(head, body)

    def _refuse_before_body(self, head: RequestHead) -> _Answer | None:
        """Everything decided from the head alone, before a byte of the body is read."""
        if head.target != self._config.path:
            return _Answer(404, "unknown path")
        if head.method != "POST":
            return _Answer(405, "not a POST")
        if head.header("transfer-encoding") is not None:
            return _Answer(501, "transfer-encoding is not supported")
        if not is_signature_shaped(head.header("x-hub-signature-256")):
            return _Answer(401, "no X-Hub-Signature-256 signature")
        length = head.header("content-length")
        if length is None:
            return _Answer(411, "no content-length")
        if _LENGTH.fullmatch(length) is None:
            return _Answer(400, "malformed content-length")
        if int(length) > self._config.max_body:
            return _Answer(413, "body over max_body")
        return None

    def _deliver(self, head: RequestHead, body: bytes) -> _Answer:
        event = head.header("x-github-event")
        if event is None or _EVENT.fullmatch(event) is None:
            return _Answer(400, "no X-GitHub-Event")
        if event not in HINT_EVENTS:
            return _Answer(204, "ping" if event == "ping" else "an event that hints nothing")
        media = (head.header("content-type") or "application/json").split(";")[0].strip()
        if media.lower() != "application/json":
            return _Answer(415, "not application/json")
        try:
            payload = msgspec.json.decode(body)
        except (msgspec.DecodeError, RecursionError):
            return _Answer(400, "body is not JSON")
        if not isinstance(payload, dict):
            return _Answer(400, "body is not a JSON object")
        verdict = classify_delivery(event, payload)
        if verdict is Verdict.MALFORMED:
            return _Answer(400, verdict.value)
        if isinstance(verdict, Verdict):
            return _Answer(204, verdict.value)
        try:
            self._hint(verdict)
        except Exception as exc:
            self._log.error("the webhook hint for %s failed: %s", verdict, type(exc).__name__)
            return _Answer(500, "hint failed")
        self._log.info("webhook %s: poll %s soon", event, verdict)
        return _Answer(202, "hinted", verdict)
