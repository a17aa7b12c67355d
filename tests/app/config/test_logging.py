"""Logging: JSON lines off a terminal, text on one, and no token on any line."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from comment_wake._logging import REDACTED, configure_logging, redact

TOKEN = "gho_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DISCOVERED = "s3cr3t-token-from-gh-auth"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
            h.close()
    root.setLevel(level)


def _log_json(stream: io.StringIO) -> dict[str, object]:
    lines = stream.getvalue().splitlines()
    assert 1 == len(lines)
    record: dict[str, object] = json.loads(lines[0])
    return record


@pytest.mark.usefixtures("restore_root")
def test_auto_writes_json_lines_when_not_on_a_terminal() -> None:
    out = io.StringIO()
    configure_logging("auto", stream=out)
    logging.getLogger("comment_wake.test").info("polled %d PRs", 3, extra={"cost": 1})
    record = _log_json(out)
    assert ("info", "comment_wake.test", "polled 3 PRs", 1) == (
        record["level"],
        record["logger"],
        record["message"],
        record["cost"],
    )


@pytest.mark.usefixtures("restore_root")
def test_auto_writes_text_on_a_terminal() -> None:
    out = _Tty()
    configure_logging("auto", stream=out)
    logging.getLogger("comment_wake.test").warning("slow poll")
    assert out.getvalue().rstrip().endswith("warning comment_wake.test: slow poll")


@pytest.mark.usefixtures("restore_root")
def test_json_can_be_forced_on_a_terminal() -> None:
    out = _Tty()
    configure_logging("json", stream=out)
    logging.getLogger("comment_wake.test").info("x")
    assert "x" == _log_json(out)["message"]


@pytest.mark.usefixtures("restore_root")
def test_configuring_twice_keeps_one_handler() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure_logging("json", stream=first)
    configure_logging("json", stream=second)
    logging.getLogger("comment_wake.test").info("once")
    assert ("", 1) == (first.getvalue(), len(second.getvalue().splitlines()))


@pytest.mark.usefixtures("restore_root")
def test_the_level_filters_lines() -> None:
    out = io.StringIO()
    configure_logging("json", "warning", stream=out)
    logging.getLogger("comment_wake.test").info("quiet")
    assert "" == out.getvalue()


@pytest.mark.usefixtures("restore_root")
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_discovered_token_never_reaches_a_line(fmt: str) -> None:
    out = io.StringIO()
    redactor = configure_logging(fmt, stream=out)  # type: ignore[arg-type]
    redactor.add_secret(DISCOVERED)
    logging.getLogger("comment_wake.test").error("auth with %s failed", DISCOVERED)
    assert (False, True) == (DISCOVERED in out.getvalue(), REDACTED in out.getvalue())


@pytest.mark.usefixtures("restore_root")
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_token_shaped_value_in_an_argument_is_redacted(fmt: str) -> None:
    out = io.StringIO()
    configure_logging(fmt, stream=out)  # type: ignore[arg-type]
    logging.getLogger("comment_wake.test").info("header %r", {"Authorization": f"bearer {TOKEN}"})
    assert TOKEN not in out.getvalue()


@pytest.mark.usefixtures("restore_root")
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_token_in_a_traceback_is_redacted(fmt: str) -> None:
    out = io.StringIO()
    configure_logging(fmt, stream=out)  # type: ignore[arg-type]
    try:
        raise RuntimeError(f"request failed with token {TOKEN}")
    except RuntimeError:
        logging.getLogger("comment_wake.test").exception("poll failed")
    assert ("RuntimeError" in out.getvalue(), TOKEN in out.getvalue()) == (True, False)


@pytest.mark.usefixtures("restore_root")
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_token_in_an_extra_field_is_redacted(fmt: str) -> None:
    out = io.StringIO()
    configure_logging(fmt, stream=out)  # type: ignore[arg-type]
    logging.getLogger("comment_wake.test").info("x", extra={"detail": f"env GH_TOKEN={TOKEN}"})
    assert TOKEN not in out.getvalue()


@pytest.mark.parametrize(
    "token",
    [
        "ghp_" + "a" * 36,
        "gho_" + "B" * 36,
        "ghu_" + "9" * 36,
        "ghs_" + "c" * 36,
        "ghr_" + "D" * 36,
        "github_pat_" + "11ABCDEFG0" + "x_y" * 20,
    ],
)
def test_every_github_token_prefix_is_redacted(token: str) -> None:
    assert f"token={REDACTED}." == redact(f"token={token}.")


def test_ordinary_words_with_a_token_prefix_are_kept() -> None:
    assert "ghp_ is the prefix of classic tokens" == redact("ghp_ is the prefix of classic tokens")


def test_a_secret_too_short_to_be_a_token_does_not_blank_words() -> None:
    assert "the poll is done" == redact("the poll is done", ["the"])


def test_request_urls_logged_by_httpx_do_not_reach_the_log(restore_root: None) -> None:
    stream = io.StringIO()
    configure_logging("json", "debug", stream=stream)
    try:
        logging.getLogger("httpx").info("HTTP Request: GET /repos/o/r/collaborators/alice/perm")
        logging.getLogger("httpcore.http11").debug("send_request_headers.started")
    finally:
        for name in ("httpx", "httpcore"):
            logging.getLogger(name).setLevel(logging.NOTSET)

    assert "" == stream.getvalue()


def test_the_connection_pools_retry_warnings_do_not_reach_the_daemons_log(
    restore_root: None,
) -> None:
    # The store reports an unreachable server itself (StoreUnavailableError), once.
    stream = io.StringIO()
    configure_logging("json", "debug", stream=stream)
    try:
        logging.getLogger("psycopg.pool").warning("error connecting in 'review_monitor.store'")
    finally:
        logging.getLogger("psycopg.pool").setLevel(logging.NOTSET)

    assert "" == stream.getvalue()
