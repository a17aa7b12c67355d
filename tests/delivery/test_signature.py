"""verify_signature: what a receiver accepts and rejects (pure)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from comment_wake.delivery import sign, verify_signature

BODY = b'{"kind":"comment-wake"}'
T = 1_767_225_600


def test_sign_is_hmac_sha256_over_timestamp_dot_body() -> None:
    expected = "sha256=" + hmac.new(b"k", f"{T}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert expected == sign("k", T, BODY)


def test_a_fresh_signature_verifies() -> None:
    assert verify_signature("k", str(T), BODY, sign("k", T, BODY), now=T + 299)


@pytest.mark.parametrize("skew", [-301, 301, 10_000])
def test_a_timestamp_more_than_five_minutes_off_is_rejected(skew: int) -> None:
    assert not verify_signature("k", str(T), BODY, sign("k", T, BODY), now=T + skew)


def test_another_secret_is_rejected() -> None:
    assert not verify_signature("k2", str(T), BODY, sign("k", T, BODY), now=T)


def test_a_signature_moved_to_another_timestamp_is_rejected() -> None:
    assert not verify_signature("k", str(T + 1), BODY, sign("k", T, BODY), now=T)


@pytest.mark.parametrize("timestamp", ["", "12.5", "-1", "1e9", "١٢٣", " 1767225600"])
def test_a_malformed_timestamp_is_rejected(timestamp: str) -> None:
    assert not verify_signature("k", timestamp, BODY, sign("k", T, BODY), now=T)


@pytest.mark.parametrize("signature", ["", "sha1=abc", "sha256=", "sha256=zz", "é"])
def test_a_malformed_signature_is_rejected(signature: str) -> None:
    assert not verify_signature("k", str(T), BODY, signature, now=T)
