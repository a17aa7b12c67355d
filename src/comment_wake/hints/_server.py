"""The webhook listener: a small HTTP/1.1 server on anyio sockets that turns signed
deliveries into ``hint(pr)`` calls.

It runs in the daemon's own event loop (so ``hint`` may call ``Poller.poll_now``
directly) and stops when its task group is cancelled.  Each connection carries one
request, has one deadline for the whole exchange and holds one of a fixed number of
slots, so a slow or hostile client delays nobody else.  Logs carry a status, a fixed
reason and a validated ``owner/name#N``; never a header value, a body or the secret.
A delivery whose ``X-GitHub-Delivery`` id was seen recently hints nothing; refused
deliveries are counted, the first of a quiet period logged at once and the rest in one
summary line per period on the injected clock.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import anyio
import msgspec
from anyio.abc import SocketAttribute, SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream

from review_monitor import Clock, PrRef, SystemClock, format_duration

from ._config import WebhookConfig
from ._http import MAX_HEAD, HttpError, RequestHead, parse_head, render_answer
from ._ledger import DeliveryIds, HintCounts, Tally, is_delivery_id
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
    kind: str | None = None  # the HintCounts field it counts in


class HintListener:
    """Serve GitHub webhook deliveries on ``config.bind:config.port``; see ``serve``.

    ``clock`` dates the delivery ids it remembers and the summary lines (default: the
    wall clock); ``counts`` says what it answered so far."""

    def __init__(
        self,
        config: WebhookConfig,
        secret: bytes,
        hint: Hint,
        *,
        logger: logging.Logger | None = None,
        clock: Clock | None = None,
        summary_every: timedelta | None = None,
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
        self._clock: Clock = clock or SystemClock()
        self._ids = DeliveryIds()
        self._tally = Tally() if summary_every is None else Tally(summary_every)
        self._summary_armed: anyio.Event | None = None

    @property
    def counts(self) -> HintCounts:
        """What the listener answered since it started, by kind."""
        return self._tally.counts

    def __repr__(self) -> str:  # never the secret
        return f"HintListener(bind={self._config.bind!r}, port={self._config.port})"

    async def serve(self, *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled.  ``await task_group.start(listener.serve)`` returns the
        port (the ephemeral one when ``port = 0``) once connections are accepted."""
        listener = await anyio.create_tcp_listener(
            local_host=self._config.bind, local_port=self._config.port
        )
        self._summary_armed = anyio.Event()
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(self._summaries)
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
                    self._count(answer)
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
            return _Answer(401, "signature mismatch", kind="bad_signatures")
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
            return _Answer(401, "no X-Hub-Signature-256 signature", kind="unsigned")
        delivery = head.header("x-github-delivery")
        if delivery is not None and not is_delivery_id(delivery):
            return _Answer(400, "malformed X-GitHub-Delivery")
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
        delivery = head.header("x-github-delivery")
        if delivery is not None and not self._ids.first_time(delivery, self._clock.now()):
            return _Answer(204, "a delivery already seen", kind="duplicates")
        try:
            self._hint(verdict)
        except Exception as exc:
            self._log.error("the webhook hint for %s failed: %s", verdict, type(exc).__name__)
            if delivery is not None:
                self._ids.forget(delivery)
            return _Answer(500, "hint failed")
        self._log.debug("webhook %s: poll %s soon", event, verdict)
        return _Answer(202, "hinted", verdict, kind="hinted")

    # -- counting, and the summary lines -------------------------------------------

    def _count(self, answer: _Answer) -> None:
        if answer.kind is None or not self._tally.count(answer.kind, self._clock.now()):
            return
        every = format_duration(self._tally.every)
        if answer.kind == "duplicates":
            self._log.info(
                "a webhook delivery came again (the same X-GitHub-Delivery) and polls "
                "nothing; repeats in the next %s are summarised in one line",
                every,
            )
        else:
            reason = (
                f"its signature does not match the secret in {self._config.secret_env}"
                if answer.kind == "bad_signatures"
                else "it has no X-Hub-Signature-256 signature (is the webhook's secret set?)"
            )
            self._log.warning(
                "refused a webhook delivery: %s; refusals in the next %s are summarised "
                "in one line",
                reason,
                every,
            )
        if self._summary_armed is not None:
            self._summary_armed.set()

    async def _summaries(self) -> None:
        """One line per period with what was refused in it, on the injected clock."""
        while True:
            due = self._tally.summary_due
            if due is None:
                self._summary_armed = anyio.Event()
                await self._summary_armed.wait()
                continue
            await self._clock.sleep_until(due)
            counts = self._tally.summary(self._clock.now())
            if counts is not None:
                self._summarise(counts)

    def _summarise(self, counts: HintCounts) -> None:
        parts = []
        if counts.bad_signatures:
            parts.append(
                f"{counts.bad_signatures} with a signature that does not match the secret "
                f"in {self._config.secret_env}"
            )
        if counts.unsigned:
            parts.append(f"{counts.unsigned} with no X-Hub-Signature-256 signature")
        if counts.duplicates:
            parts.append(f"{counts.duplicates} repeated (a delivery id already seen)")
        if not parts:
            return
        level = logging.WARNING if counts.bad_signatures or counts.unsigned else logging.INFO
        self._log.log(
            level,
            "webhook deliveries in the last %s: refused %s; %d hinted a poll",
            format_duration(self._tally.every),
            ", ".join(parts),
            counts.hinted,
        )
