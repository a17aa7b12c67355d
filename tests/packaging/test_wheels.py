"""The three distributions as wheels, installed (not editable) into a fresh virtualenv.

From a clean copy of the tracked files, ``pip wheel`` builds ``untrusted-fence``,
``pr-review-monitor`` and ``comment-wake``; a new ``python -m venv`` installs the three
wheels (their dependencies from the index, through pip's cache), and there
``comment-wake --help`` and ``comment-wake demo`` run: the demo's story and FakeGitHub's
schema must travel as package data.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

_ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str | Path, cwd: Path | None = None, timeout: float = 600) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert 0 == done.returncode, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fresh venv's ``bin`` directory, with the three wheels installed."""
    if shutil.which("git") is None or not (_ROOT / ".git").exists():
        pytest.skip("needs git and a checkout to copy the tracked files from")
    base = tmp_path_factory.mktemp("wheels")
    clean = base / "src"
    files = _run("git", "ls-files", "-z", cwd=_ROOT).split("\0")
    for name in filter(None, files):
        source = _ROOT / name
        if source.is_file():
            target = clean / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    wheels = base / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        wheels,
        "./fence",
        "./monitor",
        ".",
        cwd=clean,
    )
    built = sorted(wheels.glob("*.whl"))
    assert 3 == len(built), built
    venv = base / "venv"
    _run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / "bin"
    _run(bin_dir / "python", "-m", "pip", "install", "-q", *built)
    return bin_dir


def test_the_installed_wheels_are_not_editable(installed: Path) -> None:
    location = _run(
        installed / "python", "-c", "import comment_wake, sys; print(comment_wake.__file__)"
    )
    assert "site-packages" in location
    assert str(_ROOT) not in location


def test_comment_wake_help_lists_the_demo(installed: Path) -> None:
    out = _run(installed / "comment-wake", "--help")
    assert "demo" in out
    assert "run" in out


def test_comment_wake_demo_plays_from_the_installed_wheels(installed: Path, tmp_path: Path) -> None:
    out = _run(installed / "comment-wake", "demo", "--json", "--dir", tmp_path, cwd=tmp_path)
    summary = json.loads(out.splitlines()[-1])
    assert (True, []) == (summary["ok"], summary["failures"])
