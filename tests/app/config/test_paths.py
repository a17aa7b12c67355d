"""The state directory: --state-dir > $COMMENT_WAKE_STATE_DIR > config > XDG default."""

from __future__ import annotations

from pathlib import Path

from comment_wake._paths import (
    STATE_DIR_ENV,
    inbox_root,
    resolve_state_dir,
    store_path,
    xdg_state_dir,
)


def test_the_flag_wins(tmp_path: Path) -> None:
    env = {STATE_DIR_ENV: "/from/env", "XDG_STATE_HOME": "/xdg"}
    assert Path("/from/flag") == resolve_state_dir("/from/flag", "/from/config", env=env)


def test_the_environment_wins_over_the_config() -> None:
    env = {STATE_DIR_ENV: "/from/env"}
    assert Path("/from/env") == resolve_state_dir(None, "/from/config", env=env)


def test_the_config_wins_over_the_platform_default() -> None:
    env = {"XDG_STATE_HOME": "/xdg"}
    assert Path("/from/config") == resolve_state_dir(None, "/from/config", env=env)


def test_the_default_follows_xdg_state_home() -> None:
    assert Path("/xdg/comment-wake") == resolve_state_dir(env={"XDG_STATE_HOME": "/xdg"})


def test_without_xdg_state_home_the_default_is_under_local_state(tmp_path: Path) -> None:
    expected = tmp_path / ".local" / "state" / "comment-wake"
    assert expected == resolve_state_dir(env={}, home=tmp_path)


def test_a_relative_xdg_state_home_is_ignored(tmp_path: Path) -> None:
    # The XDG spec: relative paths are invalid and must be ignored.
    expected = tmp_path / ".local" / "state" / "comment-wake"
    assert expected == xdg_state_dir({"XDG_STATE_HOME": "rel/dir"}, tmp_path)


def test_an_empty_environment_variable_does_not_count() -> None:
    env = {STATE_DIR_ENV: "", "XDG_STATE_HOME": "/xdg"}
    assert Path("/xdg/comment-wake") == resolve_state_dir(env=env)


def test_the_store_and_the_inbox_live_in_the_state_directory() -> None:
    state = Path("/s")
    assert (Path("/s/state.db"), Path("/s/inbox")) == (store_path(state), inbox_root(state))
