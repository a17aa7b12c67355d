"""``python -m comment_wake`` runs the CLI: the ``comment_wake.cli`` package's ``main``."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata


def test_python_m_comment_wake_version_prints_the_installed_versions_and_exits_0() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    expected = "".join(
        f"{dist} {metadata.version(dist)}\n"
        for dist in ("comment-wake", "pr-review-monitor", "untrusted-fence")
    )
    assert (0, expected, "") == (done.returncode, done.stdout, done.stderr)
    assert done.stdout.startswith(f"comment-wake {metadata.version('comment-wake')}\n")
