"""With ``[store] url`` set, every command that opens the store opens the PostgreSQL
server, never a SQLite file in the state directory, and says where the store is as
``SyncStore.where`` does (no password, no parameters)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, Registry
from comment_wake.tools import worker_tools

from .conftest import PR, fleet_config


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@pytest.fixture
def bound(tmp_path: Path, postgres_url: str) -> list[str]:
    """A worker bound in the PostgreSQL store; the location options of its host."""
    state = tmp_path / "state"
    with Registry.open(state, store=postgres_url) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-42", PR, orchestrator="o-1", publisher=InboxSpec())
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\nurl = "{postgres_url}"\n', encoding="utf-8")
    return ["--config", str(config), "--state-dir", str(state)]


# One command of each family that opens the store, with the exit status that shows it
# read the PostgreSQL store's worker (a SQLite store here would be missing: exit 1).
COMMANDS = [
    (["status"], 0),
    (["list"], 0),
    (["unbind", "w-none"], 2),  # a light registry command: the id is not in the store
    (["orchestrator", "add", "o-2", "--inbox"], 0),  # a command that creates state
    (["poll", "octo/repo#1"], 0),
    (["release", "octo/repo#1"], 1),  # read the (empty) mark: nothing is held
    (["unpark", "w-42"], 0),
    (["explain", "octo/repo#1", "IC_none"], 1),  # read the records: none
]


@pytest.mark.parametrize(("argv", "status"), COMMANDS, ids=[c[0][0] for c in COMMANDS])
def test_every_command_that_opens_the_store_opens_the_store_url(
    argv: list[str],
    status: int,
    bound: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main([*argv, *bound])
    out, err = capsys.readouterr()
    assert (status, False, "state.db" in out + err) == (
        code,
        (tmp_path / "state" / "state.db").exists(),
        False,
    ), (out, err)


def _shown(url: str) -> str:
    """``url`` as the store shows it: user, host, port and database only."""
    split = urlsplit(url)
    return f"postgresql://{split.username}@{split.hostname}:{split.port}{split.path}"


def test_status_names_the_engine_and_where_the_store_is_without_its_parameters(
    bound: list[str], postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["status", *bound])
    out = capsys.readouterr().out
    assert (0, f"store: {_shown(postgres_url)} (postgresql)") == (code, out.splitlines()[0])


def test_bind_prints_where_the_store_is_without_its_parameters(
    bound: list[str], postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bind", "w-7", "octo/repo#2", "--orchestrator", "o-1", "--inbox", *bound])
    lines = capsys.readouterr().out.splitlines()
    assert (0, [f"  store: {_shown(postgres_url)}"]) == (
        code,
        [line for line in lines if line.startswith("  store:")],
    )


def test_the_worker_tools_open_the_store_url(bound: list[str], postgres_url: str) -> None:
    config = fleet_config(postgres_url)
    with worker_tools("w-42", config, Path(bound[3])) as tools:
        assert "WorkerTools" == type(tools).__name__


def test_a_light_command_refuses_a_store_url_holding_a_password_without_showing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[store]\nurl = "postgresql://cw:s3cret-pw@db/cw"\n', encoding="utf-8")
    code = main(["list", "--config", str(config), "--state-dir", str(tmp_path / "state")])
    err = capsys.readouterr().err
    assert (2, True, False) == (code, "PGPASSWORD" in err, "s3cret-pw" in err)


def test_unpark_sends_the_prs_worker_the_notices_parked_for_an_earlier_worker(
    bound: list[str], postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import UTC, datetime

    from comment_wake.store import open_sync_store
    from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key

    at = datetime.now(UTC)
    notice = Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key("w-old", PR, "comment-wake", ("IC_1",)),
        worker="w-old",
        pr=NoticePr(host=PR.host, repo=PR.repo, number=PR.number, url="u", title="t"),
        items=(NoticeItem("IC_1", 1, "u", "alice", "comment"),),
        text="hello",
        created_at=at,
    )
    with open_sync_store(postgres_url) as db:
        (seq,) = db.enqueue([notice], at=at)
        db.park(seq, at=at, detail="host-lost: host h1's lease lapsed")
    code = main(["unpark", "w-42", *bound])
    capsys.readouterr()
    with open_sync_store(postgres_url) as db:
        waiting = [e.worker for e in db.entries()]
    assert (0, ["w-42"]) == (code, waiting)
