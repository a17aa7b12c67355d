"""A renamed key is still read for one release, with one warning naming the new key
(issue 26, item 5: ``[delivery] poll_interval`` is ``scan_interval``)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from comment_wake.config import ConfigError, parse_config


def test_scan_interval_sets_the_outbox_scan() -> None:
    config = parse_config('[delivery]\nscan_interval = "2s"\n')
    assert timedelta(seconds=2) == config.delivery.scan_interval


def test_the_old_poll_interval_key_is_still_read(caplog: pytest.LogCaptureFixture) -> None:
    config = parse_config('[delivery]\npoll_interval = "3s"\n')
    assert timedelta(seconds=3) == config.delivery.scan_interval


def test_the_old_key_gives_one_warning_naming_the_new_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="comment_wake.delivery"):
        parse_config('[delivery]\npoll_interval = "3s"\n')
    warned = [r.getMessage() for r in caplog.records if "poll_interval" in r.getMessage()]
    assert (1, True) == (len(warned), "scan_interval" in warned[0])


def test_both_keys_together_are_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('[delivery]\npoll_interval = "3s"\nscan_interval = "2s"\n', source="cw.toml")
    assert any("scan_interval" in p for p in caught.value.problems)
