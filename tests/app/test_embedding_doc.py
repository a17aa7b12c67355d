"""The first ``python`` block of docs/embedding.md runs as written and does what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "embedding.md"


def _first_python_block() -> str:
    found = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert found is not None, "docs/embedding.md has no ```python block"
    return found[1]


@pytest.mark.slow
def test_the_embedding_example_delivers_the_writer_and_decides_the_stranger(
    tmp_path: Path,
) -> None:
    script = tmp_path / "example.py"
    script.write_text(_first_python_block(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},  # no GH_TOKEN, no config: it needs none
    )
    fenced = re.search(
        r"<<<untrusted-comment-begin ([0-9a-f]+)>>>\n(.*?)<<<untrusted-comment-end \1>>>",
        done.stdout,
        re.S,
    )
    assert (0, "", True, True) == (
        done.returncode,
        done.stderr,
        fenced is not None and "Please rebase onto main." in fenced[2],
        "reason='not-writer'" in done.stdout,
    )
