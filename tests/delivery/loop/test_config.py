"""``DeliveryConfig``: keys, durations and the reaction name."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from comment_wake.delivery import DeliveryConfig
from comment_wake.delivery._ack import reaction_content


def test_durations_are_written_as_strings() -> None:
    config = DeliveryConfig.model_validate({"backoff_base": "2s", "backoff_cap": "5m"})
    assert (timedelta(seconds=2), timedelta(minutes=5)) == (config.backoff_base, config.backoff_cap)


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="reactoin"):
        DeliveryConfig.model_validate({"reactoin": "eyes"})


def test_an_unknown_reaction_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValidationError, match="rocket"):
        DeliveryConfig.model_validate({"reaction": "thumbsup-ish"})


def test_a_cap_below_its_base_is_refused() -> None:
    with pytest.raises(ValidationError, match="backoff_cap"):
        DeliveryConfig.model_validate({"backoff_base": "1m", "backoff_cap": "10s"})


def test_an_attempt_limit_below_the_publisher_timeout_is_refused() -> None:
    with pytest.raises(ValidationError, match="attempt_limit"):
        DeliveryConfig.model_validate({"publisher_timeout": "5m", "attempt_limit": "1m"})


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("eyes", "EYES"),
        ("+1", "THUMBS_UP"),
        ("-1", "THUMBS_DOWN"),
        ("ROCKET", "ROCKET"),
        ("", None),
    ],
)
def test_reaction_names_map_to_githubs_contents(name: str, content: str | None) -> None:
    assert content == reaction_content(name)
