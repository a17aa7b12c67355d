"""``[store]`` and ``[fleet]``: a PostgreSQL URL without its password, a plain host id,
a lease renewed before it lapses; and the state directory's host identity."""

from __future__ import annotations

import stat
from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.config import ConfigError, parse_config
from comment_wake.fleet import HOST_ID_FILE, host_identity


def _problems(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="test.toml")
    return str(caught.value)


def test_without_a_store_url_the_store_is_sqlite() -> None:
    assert None is parse_config("", source="test.toml").store.url


def test_a_postgresql_url_is_read() -> None:
    url = "postgresql://cw@db.internal/comment_wake?sslmode=verify-full"
    assert url == parse_config(f'[store]\nurl = "{url}"\n', source="t").store.url


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://cw:s3cret-pw@db.internal/comment_wake",
        "postgresql://cw@db.internal/comment_wake?password=s3cret-pw",
    ],
)
def test_a_url_with_a_password_is_refused_without_showing_it(url: str) -> None:
    said = _problems(f'[store]\nurl = "{url}"\n')
    assert ("PGPASSWORD" in said, "s3cret-pw" in said) == (True, False)


def test_a_url_of_another_kind_is_refused_with_an_example() -> None:
    assert "postgresql://" in _problems('[store]\nurl = "mysql://db/cw"\n')


def test_a_host_id_with_a_slash_is_refused() -> None:
    assert "host_id must be" in _problems('[fleet]\nhost_id = "a/b"\n')


def test_a_lease_renewed_no_faster_than_it_lapses_is_refused() -> None:
    assert "lease_renew must be" in _problems('[fleet]\nlease_renew = "30s"\n')


def test_the_lease_times_default_to_ten_and_thirty_seconds() -> None:
    fleet = parse_config("", source="t").fleet
    assert (timedelta(seconds=10), timedelta(seconds=30)) == (fleet.lease_renew, fleet.lease_ttl)


def test_a_state_directory_keeps_one_identity(tmp_path: Path) -> None:
    assert host_identity(tmp_path) == host_identity(tmp_path)


def test_the_identity_file_is_the_owners_alone(tmp_path: Path) -> None:
    host_identity(tmp_path)
    assert 0o600 == stat.S_IMODE((tmp_path / HOST_ID_FILE).stat().st_mode)


def test_without_a_configured_host_id_the_claim_names_the_host(tmp_path: Path) -> None:
    identity = host_identity(tmp_path)
    assert identity.claim == identity.host_id


def test_a_configured_host_id_keeps_the_directorys_claim(tmp_path: Path) -> None:
    claim = host_identity(tmp_path).claim
    identity = host_identity(tmp_path, "web-7")
    assert ("web-7", claim) == (identity.host_id, identity.claim)


def test_two_directories_have_two_claims(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert host_identity(a).claim != host_identity(b).claim


def test_a_damaged_identity_file_says_how_to_fix_it(tmp_path: Path) -> None:
    (tmp_path / HOST_ID_FILE).write_text("not a uuid\n")
    with pytest.raises(ValueError, match="remove it to give this state directory"):
        host_identity(tmp_path)
