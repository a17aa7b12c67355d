"""The named kill points: parsing and a real SIGKILL in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from comment_wake.delivery import KILL_AT_ENV, KillSwitch, parse_kill_at


def test_a_kill_spec_names_a_point_and_an_optional_count() -> None:
    assert [("published", 1), ("ack-sent", 3)] == [
        parse_kill_at("published"),
        parse_kill_at("ack-sent:3"),
    ]


@pytest.mark.parametrize("spec", ["nowhere", "published:0", "published:x"])
def test_a_bad_kill_spec_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=KILL_AT_ENV):
        parse_kill_at(spec)


def test_no_variable_means_no_switch() -> None:
    assert KillSwitch.from_env({}) is None


def _reach(spec: str | None, points: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != KILL_AT_ENV}
    if spec is not None:
        env[KILL_AT_ENV] = spec
    code = (
        "from comment_wake.delivery import kill_point\n"
        f"for p in {points!r}.split(): kill_point(p); print(p, flush=True)\n"
    )
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)


def test_the_process_is_killed_the_nth_time_it_reaches_the_point() -> None:
    done = _reach("merged:2", "merged published merged ack-sent")
    assert (-signal.SIGKILL, b"merged\npublished\n") == (done.returncode, done.stdout)


def test_an_unarmed_process_passes_every_point() -> None:
    done = _reach(None, "merged published")
    assert (0, b"merged\npublished\n") == (done.returncode, done.stdout)
