"""WebhookConfig (the [webhook] table) and load_secret."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import BaseModel, ValidationError

from comment_wake.hints import WebhookConfig, WebhookSecretError, load_secret


def test_the_defaults_are_off_on_loopback_port_8787_path_github() -> None:
    config = WebhookConfig()
    expected = (False, "127.0.0.1", 8787, "/github", "COMMENT_WAKE_WEBHOOK_SECRET", 10)
    actual = (
        config.enabled,
        config.bind,
        config.port,
        config.path,
        config.secret_env,
        config.timeout.total_seconds(),
    )
    assert expected == actual


def test_durations_are_written_as_in_the_rest_of_the_file() -> None:
    assert timedelta(seconds=30) == WebhookConfig.model_validate({"timeout": "30s"}).timeout


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2", "::1"])
def test_a_loopback_bind_is_accepted(bind: str) -> None:
    assert bind == WebhookConfig(bind=bind).bind


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "192.168.1.5"])
def test_a_non_loopback_bind_is_refused_unless_allowed(bind: str) -> None:
    with pytest.raises(ValidationError, match="not a loopback address"):
        WebhookConfig(bind=bind)


def test_a_non_loopback_bind_is_accepted_when_explicitly_allowed() -> None:
    assert "0.0.0.0" == WebhookConfig(bind="0.0.0.0", allow_non_loopback=True).bind


def test_a_host_name_bind_is_refused_with_what_to_write() -> None:
    with pytest.raises(ValidationError, match=r"IP address such as 127\.0\.0\.1"):
        WebhookConfig(bind="localhost")


def test_a_secret_in_the_file_is_refused_and_the_message_does_not_echo_it() -> None:
    with pytest.raises(ValidationError) as info:
        WebhookConfig.model_validate({"secret": "hunter2-committed"})
    assert ("secret_env" in str(info.value), "hunter2" in str(info.value)) == (True, False)


def test_a_secret_in_the_file_is_not_echoed_by_an_enclosing_model() -> None:
    class Settings(BaseModel):
        webhook: WebhookConfig = WebhookConfig()

    with pytest.raises(ValidationError) as info:
        Settings.model_validate({"webhook": {"secret": "hunter2-committed"}})
    assert ("webhook" in str(info.value), "hunter2" in str(info.value)) == (True, False)


def test_a_secret_pasted_into_secret_env_is_not_echoed() -> None:
    with pytest.raises(ValidationError) as info:
        WebhookConfig.model_validate({"secret_env": "hunter2-committed!"})
    assert ("secret_env" in str(info.value), "hunter2" in str(info.value)) == (True, False)


def test_an_unknown_key_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="prot"):
        WebhookConfig.model_validate({"prot": 1})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("path", "github"),
        ("path", "/git hub"),
        ("port", 70000),
        ("max_body", 100),
        ("max_body", 26 * 1024 * 1024),
        ("secret_env", "MY-SECRET"),
        ("timeout", "0s"),
        ("timeout", "1h"),
        ("max_connections", 0),
    ],
)
def test_an_out_of_range_value_is_refused(key: str, value: object) -> None:
    with pytest.raises(ValidationError, match=key):
        WebhookConfig.model_validate({key: value})


def test_the_config_is_frozen() -> None:
    config = WebhookConfig()
    with pytest.raises(ValidationError):
        config.port = 1


def test_the_secret_is_read_from_the_named_environment_variable() -> None:
    config = WebhookConfig(secret_env="HOOK_SECRET")
    assert b"s3cret" == load_secret(config, {"HOOK_SECRET": "s3cret"})


@pytest.mark.parametrize("environ", [{}, {"COMMENT_WAKE_WEBHOOK_SECRET": ""}, {"X": "y"}])
def test_a_missing_secret_names_the_variable_to_set(environ: dict[str, str]) -> None:
    with pytest.raises(WebhookSecretError, match="COMMENT_WAKE_WEBHOOK_SECRET"):
        load_secret(WebhookConfig(), environ)
