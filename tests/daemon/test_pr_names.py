"""A pull request bound in other letter case than GitHub's: one comment wakes its one
worker once, the watch takes GitHub's spelling, and ``explain`` finds the decision by
any spelling or by the comment's URL alone (in-process daemon on virtual time, the
commands through ``cli.main``)."""

from __future__ import annotations

from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.config import load_config
from comment_wake.daemon import Daemon
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import TwoSpellingsError, open_sync_store
from review_monitor import PrRef

pytestmark = pytest.mark.anyio

TYPED = PrRef("Octo", "Repo", 1)  # FakeGitHub's repository is octo/repo
URL = "https://github.com/octo/repo/pull/1#issuecomment-4242"


def _cli(world: Any, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, *world.location()])
    out, err = capsys.readouterr()
    return code, out, err


async def _woken_once(world: Any) -> Any:
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind("w1", TYPED, orchestrator="orch", publisher=InboxSpec())
    async with world.running() as run:
        trusted = world.fake.post_comment(
            world.pr, "maintainer", "please rename the widget", database_id=4242
        )
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        await world.rounds(run, 3)
    return run, trusted


async def test_one_comment_on_a_pr_bound_in_other_case_wakes_its_worker_once(
    world: Any,
) -> None:
    run, trusted = await _woken_once(world)
    assert ([(trusted,)], [(trusted, "wake", "writer")], 1) == (
        run.events.wakes,
        [o for o in run.events.outcomes() if o[0] == trusted],
        len(world.delivered_texts()),
    )


async def test_the_watch_takes_githubs_spelling_from_the_first_poll(world: Any) -> None:
    await _woken_once(world)
    with open_sync_store(world.state_dir / "state.db") as db:
        assert ["octo/repo#1"] == [str(w.pr) for w in db.watches()]


async def test_list_shows_githubs_spelling_once_polled(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    await _woken_once(world)
    code, out, _ = _cli(world, capsys, "list")
    assert (0, "worker w1  octo/repo#1 (github.com)  bound") == (code, out.splitlines()[0][:42])


async def test_explain_finds_the_decision_under_the_spelling_typed_at_bind(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    await _woken_once(world)
    code, out, _ = _cli(world, capsys, "explain", "Octo/Repo#1", "4242")
    assert (0, "woke worker w1 (writer)") == (code, out.splitlines()[0])


async def test_explain_takes_the_comments_url_alone(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    await _woken_once(world)
    code, out, _ = _cli(world, capsys, "explain", URL)
    assert (0, "woke worker w1 (writer)") == (code, out.splitlines()[0])


async def test_explain_takes_the_pr_as_a_url(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    await _woken_once(world)
    code, out, _ = _cli(world, capsys, "explain", "https://github.com/Octo/Repo/pull/1", "4242")
    assert (0, "woke worker w1 (writer)") == (code, out.splitlines()[0])


def test_explain_given_a_lone_text_that_is_no_comment_url_says_both_forms(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    code, _, err = _cli(world, capsys, "explain", "octo/repo#1")
    assert (2, 1) == (code, len(err.splitlines()))
    assert "explain PR COMMENT), or the comment's URL alone" in err


def test_explain_refuses_a_comment_url_of_another_pr(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    code, _, err = _cli(world, capsys, "explain", "octo/repo#2", URL)
    assert (2, "the comment's URL is on octo/repo#1, not on octo/repo#2") == (
        code,
        err.split(": ", 1)[1].split(":")[0],
    )


def test_explain_refuses_a_comment_url_on_another_host(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    code, _, err = _cli(world, capsys, "explain", URL.replace("github.com", "ghe.example.com"))
    assert 2 == code
    assert "on ghe.example.com, but the host is github.com" in err


async def test_the_embedding_api_explains_by_the_comments_url_alone(world: Any) -> None:
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind("w1", TYPED, orchestrator="orch", publisher=InboxSpec())
    async with world.running() as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename it", database_id=4242)
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        [by_url] = await run.daemon.app.explain(URL)
        [by_typed] = await run.daemon.app.explain("Octo/Repo#1", "4242")
    assert ("wake", "wake") == (by_url.record.outcome, by_typed.record.outcome)


async def test_a_daemon_on_a_store_binding_one_pr_in_two_spellings_refuses_to_start(
    world: Any,
) -> None:
    world.bind()  # w1 on octo/repo#1; then what an earlier build let ``bind w2`` add
    with open_sync_store(world.state_dir / "state.db") as db, db.write(at=world.clock.now()) as tx:
        tx.execute(
            "INSERT INTO watches (thread_id, pr_key, host, owner, name, number, tool, "
            "added_at) VALUES ('w2', 'github.com/octo/repo#1', 'github.com', 'Octo', 'Repo', "
            "1, 'pr_review_monitor', '2999-01-01T00:00:00.000000Z')"
        )
    daemon = Daemon(
        load_config(world.config),
        world.state_dir,
        token=world.token,
        clock=world.clock,
        transport=world.fake.transport(),
        environ={},
    )
    with pytest.raises(TwoSpellingsError, match="worker w1 to octo/repo#1 and worker w2 to Octo"):
        await _unwrapped(daemon.run())


async def _unwrapped(run: Any) -> None:
    try:
        await run
    except BaseExceptionGroup as group:
        leaves = group.exceptions
        while len(leaves) == 1 and isinstance(leaves[0], BaseExceptionGroup):
            leaves = leaves[0].exceptions
        raise leaves[0] from None
