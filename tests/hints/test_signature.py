"""verify_github_signature: GitHub's X-Hub-Signature-256 over the raw body."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from comment_wake.hints import github_signature, verify_github_signature

SECRET = b"It's a Secret to Everybody"
BODY = b"Hello, World!"


def test_githubs_documented_example_verifies() -> None:
    # The example from GitHub's "Validating webhook deliveries" page.
    header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert verify_github_signature(SECRET, BODY, header)


def test_the_signature_is_the_hex_hmac_sha256_of_the_body() -> None:
    expected = "sha256=" + hmac.new(SECRET, BODY, hashlib.sha256).hexdigest()
    assert expected == github_signature(SECRET, BODY)


def test_upper_case_hex_verifies() -> None:
    header = "sha256=" + github_signature(SECRET, BODY).removeprefix("sha256=").upper()
    assert verify_github_signature(SECRET, BODY, header)


@pytest.mark.parametrize(
    ("secret", "body", "header"),
    [
        pytest.param(SECRET, BODY + b" ", github_signature(SECRET, BODY), id="tampered body"),
        pytest.param(b"another secret", BODY, github_signature(SECRET, BODY), id="wrong secret"),
        pytest.param(SECRET, BODY, None, id="missing header"),
        pytest.param(SECRET, BODY, "", id="empty header"),
        pytest.param(
            SECRET,
            BODY,
            "sha1=" + hmac.new(SECRET, BODY, hashlib.sha1).hexdigest(),
            id="sha1 prefix",
        ),
        pytest.param(
            SECRET,
            BODY,
            github_signature(SECRET, BODY).removeprefix("sha256="),
            id="no prefix",
        ),
        pytest.param(SECRET, BODY, "sha256=" + "g" * 64, id="non-hex"),
        pytest.param(SECRET, BODY, github_signature(SECRET, BODY)[:-2], id="too short"),
        pytest.param(SECRET, BODY, github_signature(SECRET, BODY) + "00", id="too long"),
        pytest.param(SECRET, BODY, " " + github_signature(SECRET, BODY), id="leading space"),
        pytest.param(SECRET, BODY, "sha256=" + "٣" * 64, id="non-ascii digits"),
        pytest.param(b"", BODY, github_signature(b"", BODY), id="empty secret"),
    ],
)
def test_a_wrong_or_malformed_signature_is_refused(
    secret: bytes, body: bytes, header: str | None
) -> None:
    assert verify_github_signature(secret, body, header) is False
