"""The ``command`` publisher: run an argv with the notice as JSON on standard input."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from subprocess import PIPE

import anyio
import anyio.abc
import msgspec

from review_monitor import Busy, Delivered, Gone, Notice, PublishOutcome, Refused

from ._child import EXIT_BUSY, EXIT_DELIVERED, EXIT_GONE, EXIT_REFUSED, child_environment
from ._errors import CommandFailedError, PublishTimeoutError
from ._text import printable_tail, session_id_from_first_line

__all__ = ["CommandPublisher"]

# Output kept from a child: enough for a session id and a readable last line of stderr.
_KEEP = 64 * 1024
# After the child exits, how long its output pipes may stay open (a grandchild holding them).
_DRAIN_GRACE = 1.0


def _env_for(notice: Notice, base: Mapping[str, str]) -> dict[str, str]:
    env = dict(base)
    env["COMMENT_WAKE_WORKER"] = notice.worker
    env["COMMENT_WAKE_PR"] = f"{notice.pr.repo}#{notice.pr.number}"
    env["COMMENT_WAKE_KIND"] = notice.kind
    env["COMMENT_WAKE_KEY"] = notice.key
    return env


def _kill_group(process: anyio.abc.Process) -> None:
    # The child leads its own session (start_new_session), so its pid is the group id and
    # this reaches every process it started, not only the direct child.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


class CommandPublisher:
    """Runs ``argv`` (never through a shell) once per notice.

    The child reads the notice as JSON on standard input and finds ``COMMENT_WAKE_WORKER``,
    ``COMMENT_WAKE_PR`` (``owner/name#N``), ``COMMENT_WAKE_KIND`` and ``COMMENT_WAKE_KEY``
    in its environment.  Of the daemon's own environment it gets only what ``CHILD_ENV``
    allows and the names in ``pass_env`` (a binding's ``--env NAME``), never
    ``WITHHELD_ENV`` or the names in ``withhold`` (the daemon's other secrets); then
    ``env``, set explicitly.  ``inherit_env=False`` passes nothing of the daemon's.

    Its exit code is the outcome: 0 delivered (a first stdout line ``session-id: <id>``
    reports a new session id), 75 busy, 69 gone, 78 refused.  Any other code or a signal
    raises ``CommandFailedError``; running past ``timeout`` seconds kills the child's whole
    process group and raises ``PublishTimeoutError``.  A command that cannot be started at
    all is a configuration fault: ``Refused``.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 60.0,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        pass_env: Collection[str] = (),
        withhold: Collection[str] = (),
    ) -> None:
        if isinstance(argv, str | bytes):
            raise TypeError("argv must be a list of arguments, never a shell string")
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a non-empty list of strings")
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.argv: tuple[str, ...] = tuple(argv)
        self.timeout = timeout
        self.cwd = cwd
        self._env = dict(env or {})
        self._inherit_env = inherit_env
        self.pass_env = frozenset(pass_env)
        self.withhold = frozenset(withhold)

    def __repr__(self) -> str:
        return f"CommandPublisher(argv={list(self.argv)!r}, timeout={self.timeout})"

    async def publish(self, notice: Notice) -> PublishOutcome:
        inherited = (
            child_environment(os.environ, extra=self.pass_env, withhold=self.withhold)
            if self._inherit_env
            else {}
        )
        base = {**inherited, **self._env}
        try:
            process = await anyio.open_process(
                list(self.argv),
                stdin=PIPE,
                stdout=PIPE,
                stderr=PIPE,
                cwd=self.cwd,
                env=_env_for(notice, base),
                start_new_session=True,
            )
        except OSError as exc:
            return Refused(f"cannot run {self.argv[0]!r}: {exc.strerror or type(exc).__name__}")
        stdout = bytearray()
        stderr = bytearray()
        exited: list[int] = []
        try:
            with anyio.move_on_after(self.timeout):
                await _run(process, msgspec.json.encode(notice), stdout, stderr, exited)
        finally:
            code = exited[0] if exited else None
            if code is None:  # the timeout, or the caller cancelled us
                _kill_group(process)
            with anyio.CancelScope(shield=True):
                await process.aclose()
        if code is None:
            raise PublishTimeoutError(
                f"{self.argv[0]!r} ran past its {self.timeout:g}s timeout and was killed"
            )
        return self._outcome(code, bytes(stdout), bytes(stderr))

    def _outcome(self, code: int, stdout: bytes, stderr: bytes) -> PublishOutcome:
        reason = printable_tail(stderr)
        if code == EXIT_DELIVERED:
            return Delivered(session_id=session_id_from_first_line(stdout))
        if code == EXIT_BUSY:
            return Busy(reason)
        if code == EXIT_GONE:
            return Gone(reason)
        if code == EXIT_REFUSED:
            return Refused(reason)
        if code < 0:
            message = f"{self.argv[0]!r} was killed by signal {-code}"
        else:
            message = f"{self.argv[0]!r} exited {code}, outside the exit-code contract"
        raise CommandFailedError(message, exit_code=code, stderr_tail=reason)


async def _run(
    process: anyio.abc.Process,
    payload: bytes,
    stdout: bytearray,
    stderr: bytearray,
    exited: list[int],
) -> None:
    """Feed, drain and wait; the exit code lands in ``exited`` the moment the child ends, so
    a timeout while draining a grandchild's output cannot undo a finished delivery."""
    assert process.stdout is not None
    assert process.stderr is not None
    async with anyio.create_task_group() as outer:
        outer.start_soon(_feed, process, payload)
        async with anyio.create_task_group() as drains:
            drains.start_soon(_drain, process.stdout, stdout)
            drains.start_soon(_drain, process.stderr, stderr)
            exited.append(await process.wait())
            # A grandchild may hold the pipes open after the child is done: read what
            # is there, briefly, then stop listening.
            drains.cancel_scope.deadline = anyio.current_time() + _DRAIN_GRACE
        outer.cancel_scope.cancel()


async def _feed(process: anyio.abc.Process, payload: bytes) -> None:
    assert process.stdin is not None
    try:
        await process.stdin.send(payload)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, BrokenPipeError):
        pass  # a child that exits without reading its input is judged by its exit code
    finally:
        with contextlib.suppress(anyio.BrokenResourceError, BrokenPipeError, OSError):
            await process.stdin.aclose()


async def _drain(stream: anyio.abc.ByteReceiveStream, sink: bytearray) -> None:
    try:
        async for chunk in stream:
            room = _KEEP - len(sink)
            if room > 0:
                sink.extend(chunk[:room])
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
