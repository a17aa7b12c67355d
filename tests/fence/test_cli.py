"""The command line, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "untrusted_fence", *args],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_json_output_has_the_documented_fields_and_layout() -> None:
    done = _run(["--json", "--source", "@alice"], b"hello <!-- x -->")
    assert done.returncode == 0
    obj = json.loads(done.stdout)
    assert sorted(obj) == ["body", "footer", "nonce", "opener", "text", "truncated"]
    lines = obj["text"].split("\n")
    assert lines[-1] == obj["footer"]
    opener_at = lines.index(obj["opener"])
    assert "\n".join(lines[opener_at + 1 : -1]) == obj["body"]
    assert obj["truncated"] is False


def test_plain_output_is_the_text_and_a_newline() -> None:
    done = _run([], b"hi")
    text = done.stdout.decode("utf-8")
    assert text.endswith(">>>\n")
    assert text.count("\n") == len(text.rstrip("\n").split("\n"))


def test_empty_input_gives_an_empty_body() -> None:
    obj = json.loads(_run(["--json"], b"").stdout)
    assert obj["body"] == ""


def test_invalid_utf8_becomes_replacement_characters() -> None:
    obj = json.loads(_run(["--json"], b"a\xff\xfeb").stdout)
    assert obj["body"] == "a\ufffd\ufffdb"


def test_ten_mebibytes_of_input_are_handled_and_truncated() -> None:
    data = (b"line of text <!-- c --> \x1b[31m" + b"x" * 90 + b"\n") * (10 * 1024 * 8)
    done = _run(["--json", "--kind", "check-output"], data)
    assert done.returncode == 0
    obj = json.loads(done.stdout)
    assert obj["truncated"] is True
    assert obj["body"].split("\n")[-1].startswith("[truncated: at least ")


def test_max_chars_is_honoured() -> None:
    obj = json.loads(_run(["--json", "--max-chars", "5"], b"abcdefghij").stdout)
    assert obj["body"].split("\n") == ["abcde", "[truncated: 5 more characters not shown]"]


def test_usage_errors_exit_2() -> None:
    assert _run(["--kind", "issue"], b"").returncode == 2
    assert _run(["--max-chars", "-1"], b"").returncode == 2


def test_the_readme_quickstart_sample_is_fenced() -> None:
    sample = (REPO / "fixtures" / "fence" / "sample-comment.md").read_bytes()
    done = _run(["--source", "sample"], sample)
    assert done.returncode == 0
    assert "source: sample" in done.stdout.decode("utf-8")


def test_console_script_is_declared() -> None:
    pyproject = (REPO / "fence" / "pyproject.toml").read_text(encoding="utf-8")
    assert 'untrusted-fence = "untrusted_fence.__main__:main"' in pyproject
