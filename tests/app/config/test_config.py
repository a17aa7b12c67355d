"""The configuration file: defaults, every table, and errors naming file, table and key."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.config import (
    CONFIG_ENV,
    AppConfig,
    ConfigError,
    default_config_path,
    find_config,
    load_config,
    parse_config,
)


def _problems(text: str) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="cw.toml")
    return caught.value.problems


def test_no_file_gives_the_defaults() -> None:
    assert AppConfig() == load_config(None)


def test_an_empty_file_gives_the_defaults() -> None:
    assert AppConfig() == parse_config("")


def test_every_table_reaches_its_model() -> None:
    config = parse_config(
        """
        state_dir = "/srv/cw"
        prune_after = "7d"
        log_format = "json"
        [github]
        host = "ghe.example.com"
        [monitor]
        poll_interval = "2s"
        [wake]
        wake_min_gap = "1s"
        [delivery]
        backoff_base = "1s"
        [webhook]
        port = 9000
        """
    )
    got = (
        str(config.state_dir),
        config.prune_after,
        config.log_format,
        config.github.host,
        config.monitor.poll_interval,
        config.wake.wake_min_gap,
        config.delivery.backoff_base,
        config.webhook.port,
    )
    expected = (
        "/srv/cw",
        timedelta(days=7),
        "json",
        "ghe.example.com",
        timedelta(seconds=2),
        timedelta(seconds=1),
        timedelta(seconds=1),
        9000,
    )
    assert expected == got


@pytest.mark.parametrize(
    ("text", "seconds"), [("90s", 90), ("5m", 300), ("2h", 7200), ("1d", 86400)]
)
def test_durations_are_an_integer_and_a_unit(text: str, seconds: int) -> None:
    config = parse_config(f'[monitor]\npoll_interval = "{text}"')
    assert timedelta(seconds=seconds) == config.monitor.poll_interval


def test_an_unknown_key_is_named_with_its_table() -> None:
    (problem,) = _problems('[monitor]\npolll_interval = "5m"')
    assert problem.startswith("unknown key `polll_interval` in [monitor]")


def test_an_unknown_key_suggests_the_closest_known_one() -> None:
    (problem,) = _problems('[monitor]\npolll_interval = "5m"')
    assert problem.endswith("did you mean `poll_interval`?")


def test_an_unknown_top_level_key_says_so() -> None:
    (problem,) = _problems('stat_dir = "/x"')
    assert problem.startswith("unknown key `stat_dir` at the top level")


def test_an_unknown_table_lists_the_tables() -> None:
    (problem,) = _problems("[monitr]\nx = 1")
    assert problem.startswith("unknown table [monitr]; the tables are [github], [monitor]")


def test_a_bad_duration_names_table_and_key_and_says_what_to_write() -> None:
    (problem,) = _problems('[wake]\nwake_min_gap = "5 minutes"')
    assert problem.startswith("`wake_min_gap` in [wake]: not a duration")
    assert "an integer followed by ms, s, m, h or d" in problem


def test_a_bare_number_is_not_a_duration() -> None:
    (problem,) = _problems("[monitor]\npoll_interval = 60")
    assert problem.startswith("`poll_interval` in [monitor]:")


def test_a_bad_list_item_names_its_index() -> None:
    (problem,) = _problems('[monitor]\npermission_retries = ["1m", "soon"]')
    assert problem.startswith("`permission_retries[1]` in [monitor]:")


def test_a_rule_across_keys_names_the_table() -> None:
    (problem,) = _problems('[delivery]\nbackoff_base = "1h"\nbackoff_cap = "1m"')
    assert "in [delivery]: backoff_cap must be at least backoff_base" == problem


def test_a_table_written_as_a_value_says_how_to_write_it() -> None:
    (problem,) = _problems("monitor = 3")
    assert problem.startswith("[monitor] must be a table")


def test_every_problem_is_reported_at_once() -> None:
    problems = _problems('[monitor]\nbatch_size = 0\n[wake]\nfloor_lag = "x"')
    assert 2 == len(problems)


def test_the_message_names_the_file() -> None:
    with pytest.raises(ConfigError, match=r"^invalid configuration in cw\.toml:"):
        parse_config("[monitor]\nbatch_size = 0", source="cw.toml")


def test_invalid_toml_is_reported_with_its_position() -> None:
    (problem,) = _problems("[monitor\n")
    assert problem.startswith("not valid TOML:")
    assert "line 1" in problem


def test_a_secret_in_the_file_is_refused_and_never_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('[webhook]\nsecret = "hunter2-very-secret"')
    assert "secret_env" in str(caught.value)
    assert "hunter2-very-secret" not in str(caught.value)


def test_a_bad_value_is_not_quoted_back() -> None:
    # A token pasted into the wrong key must not reach the terminal.
    with pytest.raises(ConfigError) as caught:
        parse_config('log_format = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"')
    assert "ghp_" not in str(caught.value)


def test_log_format_accepts_only_its_choices() -> None:
    (problem,) = _problems('log_format = "xml"')
    assert problem.startswith("`log_format` at the top level:")


def test_prune_after_must_be_positive() -> None:
    (problem,) = _problems('prune_after = "0s"')
    assert "prune_after must be more than 0s" in problem


def test_load_config_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[monitor]\npoll_interval = "3s"\n')
    assert timedelta(seconds=3) == load_config(path).monitor.poll_interval


def test_load_config_names_the_file_it_could_not_parse(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[monitor]\nbatch_size = 0\n")
    with pytest.raises(ConfigError, match=f"in {path}"):
        load_config(path)


def test_a_config_named_by_flag_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file \\(named by --config\\)"):
        find_config(tmp_path / "missing.toml", env={}, home=tmp_path)


def test_the_flag_wins_over_the_environment(tmp_path: Path) -> None:
    flag, env = tmp_path / "flag.toml", tmp_path / "env.toml"
    flag.touch()
    env.touch()
    assert flag == find_config(flag, env={CONFIG_ENV: str(env)}, home=tmp_path)


def test_the_environment_names_the_file_when_no_flag_does(tmp_path: Path) -> None:
    env = tmp_path / "env.toml"
    env.touch()
    assert env == find_config(None, env={CONFIG_ENV: str(env)}, home=tmp_path)


def test_the_default_file_is_read_only_when_it_exists(tmp_path: Path) -> None:
    assert find_config(None, env={}, home=tmp_path) is None
    default = default_config_path({}, tmp_path)
    default.parent.mkdir(parents=True)
    default.touch()
    assert tmp_path / ".config" / "comment-wake" / "config.toml" == find_config(
        None, env={}, home=tmp_path
    )


def test_xdg_config_home_moves_the_default_file(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert tmp_path / "cfg" / "comment-wake" / "config.toml" == default_config_path(env, tmp_path)


def test_the_light_read_finds_the_files_state_dir_and_host(tmp_path: Path) -> None:
    from comment_wake.config import FileLocation, read_location

    path = tmp_path / "config.toml"
    path.write_text('state_dir = "~/cw"\n[github]\nhost = "ghe.example.com"\npoll = 1\n')
    assert FileLocation(Path("~/cw"), "ghe.example.com") == read_location(path)


def test_the_light_read_refuses_a_value_that_is_not_a_string(tmp_path: Path) -> None:
    from comment_wake.config import ConfigError, read_location

    path = tmp_path / "config.toml"
    path.write_text("state_dir = 7\n")
    with pytest.raises(ConfigError, match="`state_dir` at the top level: write it as a string"):
        read_location(path)


def test_the_light_read_of_no_file_is_nothing() -> None:
    from comment_wake.config import FileLocation, read_location

    assert FileLocation() == read_location(None)


def test_mention_mode_without_a_handle_says_what_to_set() -> None:
    (problem,) = _problems('[wake]\ntrigger = "mention"')
    assert "set handle in [wake]" in problem


def test_mention_mode_with_a_handle_is_read() -> None:
    config = parse_config('[wake]\ntrigger = "mention"\nhandle = "/agent"')
    assert ("mention", "/agent") == (config.wake.trigger, config.wake.handle)
