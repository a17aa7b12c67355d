"""parse_head: the strict request-head parser."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comment_wake.hints._http import MAX_HEAD, HttpError, parse_head, render_answer


def test_a_delivery_head_is_parsed_with_lower_case_header_names() -> None:
    head = parse_head(
        b"POST /github HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event:  ping \r\nContent-Length: 2"
    )
    expected = (
        "POST",
        "/github",
        {"host": "127.0.0.1", "x-github-event": "ping", "content-length": "2"},
    )
    assert expected == (head.method, head.target, head.headers)


def test_http_1_0_is_accepted() -> None:
    assert "GET" == parse_head(b"GET / HTTP/1.0").method


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        pytest.param(b"", 400, id="empty"),
        pytest.param(b"POST /github", 400, id="no version"),
        pytest.param(b"POST  /github HTTP/1.1", 400, id="two spaces"),
        pytest.param(b"post /github HTTP/1.1", 400, id="lower-case method"),
        pytest.param(b"POST github HTTP/1.1", 400, id="target without slash"),
        pytest.param(b"POST http://x/github HTTP/1.1", 400, id="absolute target"),
        pytest.param(b"POST /github HTTP/2.0", 505, id="http 2"),
        pytest.param(b"POST /github HTTP/1.1\nHost: x", 400, id="bare LF"),
        pytest.param(b"POST /github HTTP/1.1\r\nHost: x\ry", 400, id="bare CR"),
        pytest.param(b"POST /github HTTP/1.1\r\nHost: x\r\n folded", 400, id="folded header"),
        pytest.param(b"POST /github HTTP/1.1\r\nHost : x", 400, id="space before colon"),
        pytest.param(b"POST /github HTTP/1.1\r\nNoColon", 400, id="no colon"),
        pytest.param(b"POST /github HTTP/1.1\r\nX-A: a\x00b", 400, id="NUL in a value"),
        pytest.param(
            b"POST /github HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1",
            400,
            id="repeated content-length",
        ),
        pytest.param(
            b"POST /github HTTP/1.1\r\nX-Hub-Signature-256: a\r\nx-hub-signature-256: b",
            400,
            id="repeated signature",
        ),
        pytest.param(
            b"POST /github HTTP/1.1\r\n" + b"X-A: 1\r\n" * 101 + b"X-B: 2",
            431,
            id="too many headers",
        ),
        pytest.param(b"POST /" + b"a" * MAX_HEAD + b" HTTP/1.1", 431, id="too long"),
    ],
)
def test_a_malformed_head_is_refused_with_its_status(raw: bytes, status: int) -> None:
    with pytest.raises(HttpError) as info:
        parse_head(raw)
    assert status == info.value.status


def test_a_repeated_ordinary_header_is_joined() -> None:
    assert "a, b" == parse_head(b"GET / HTTP/1.1\r\nAccept: a\r\nAccept: b").header("accept")


def test_an_answer_closes_the_connection_and_states_its_length() -> None:
    expected = (
        b"HTTP/1.1 202 Accepted\r\nConnection: close\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\n202 Accepted\n"
    )
    assert expected == render_answer(202)


@settings(max_examples=200)
@given(
    st.lists(
        st.sampled_from([b"POST /github HTTP/1.1", b"\r\n", b"\n", b"\r", b":", b" ", b"\t"])
        | st.binary(max_size=12),
        max_size=12,
    )
)
def test_any_bytes_parse_or_raise_http_error_only(pieces: list[bytes]) -> None:
    outcome: object
    try:
        outcome = parse_head(b"".join(pieces)).target[:1]
    except HttpError as exc:
        outcome = exc.status // 100 in (4, 5)
    assert outcome in ("/", True)
