"""Finding and running the real Claude Code and Codex CLIs for the ``real_client`` tests.

The CLIs come from ``COMMENT_WAKE_CLAUDE`` / ``COMMENT_WAKE_CODEX`` or from the cache that
``.ci/run`` fills (``${XDG_CACHE_HOME:-~/.cache}/comment-wake/npm/<package>@<version>``),
never from a user's PATH.  Each run gets a temporary ``HOME`` (and ``CODEX_HOME``), a fake
``gh`` first on PATH, and a base URL that points at the mock model server.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLAUDE_VERSION",
    "CODEX_VERSION",
    "Cli",
    "cache_dir",
    "codex_namespace",
    "find_claude",
    "find_codex",
    "required",
    "write_fake_gh",
    "write_fake_mcp",
]

# The versions .ci/run installs: keep both in step with it.
CLAUDE_VERSION = "2.1.332"
CODEX_VERSION = "0.171.0"


@dataclass(frozen=True)
class Cli:
    name: str  # "claude-code" or "codex-cli"
    path: str
    version: str


def codex_namespace(server: str) -> str:
    """What Codex names an MCP server's tools: ``mcp__<server>``, each hyphen an underscore."""
    return "mcp__" + server.replace("-", "_")


def required() -> bool:
    """No ``real_client`` test may skip: ``COMMENT_WAKE_REQUIRE_REAL_CLIENTS=1`` or CI."""
    return (
        os.environ.get("COMMENT_WAKE_REQUIRE_REAL_CLIENTS") == "1"
        or os.environ.get("CI", "").lower() == "true"
    )


def header_lines() -> list[str]:
    """One line per CLI found, for pytest's header; the reason for one that is not."""
    lines = []
    for found in (find_claude(), find_codex()):
        if isinstance(found, Cli):
            lines.append(f"real_client: {found.name} {found.version} ({found.path})")
        else:
            lines.append(f"real_client: {found}")
    return lines


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "comment-wake" / "npm"


def _version(path: str) -> str | None:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or not words:
        return None
    return next((w for w in words if w[:1].isdigit()), None)


@functools.cache
def _find(env: str, package: str, version: str, binary: str) -> Cli | str:
    """The CLI, or why it is not here."""
    given = os.environ.get(env)
    if given:
        path = given
    else:
        path = str(
            cache_dir() / f"{package.replace('/', '+')}@{version}/node_modules/.bin/{binary}"
        )
    if not os.access(path, os.X_OK):
        return f"{binary} not found at {path} (set {env} or run .ci/run's install step)"
    found = _version(path)
    if found is None:
        return f"{path} --version failed"
    name = "claude-code" if binary == "claude" else "codex-cli"
    return Cli(name=name, path=path, version=found)


def find_claude() -> Cli | str:
    return _find("COMMENT_WAKE_CLAUDE", "@anthropic-ai/claude-code", CLAUDE_VERSION, "claude")


def find_codex() -> Cli | str:
    return _find("COMMENT_WAKE_CODEX", "@openai/codex", CODEX_VERSION, "codex")


# A fake gh: logs its argv, answers like gh does when stdout is not a terminal.  PR 13
# fails (a rejected post); ``gh api`` prints the created comment's JSON.
FAKE_GH = r"""
import json, os, re, sys
args = sys.argv[1:]
with open(os.environ["FAKE_GH_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
stdin = "" if sys.stdin.isatty() else sys.stdin.read()
text = " ".join(args)
if re.search(r"\b13\b", text):
    print("GraphQL: Could not resolve to a PullRequest with the number of 13.", file=sys.stderr)
    sys.exit(1)
counter = os.environ["FAKE_GH_LOG"] + ".n"
n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(n))
if args[:2] in (["pr", "comment"], ["issue", "comment"]):
    print(f"https://github.com/acme/widget/pull/12#issuecomment-{4000 + n}")
elif args[:2] == ["pr", "review"]:
    pass
elif args[:1] == ["api"]:
    if any(a in ("-f", "-F", "--raw-field", "--field", "POST") for a in args):
        url = f"https://github.com/acme/widget/pull/12#issuecomment-{4000 + n}"
        print(json.dumps({"id": 4000 + n, "html_url": url}))
    else:
        print(json.dumps([{"id": 99, "html_url": "https://github.com/acme/widget/pull/12#issuecomment-99"}]))
else:
    print("")
"""


def write_fake_gh(bin_dir: Path, log: Path) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / "gh"
    path.write_text(f"#!{sys.executable}\n" + FAKE_GH)
    path.chmod(0o755)
    log.touch()
    return path


# A fake GitHub MCP server over stdio (newline-delimited JSON-RPC): one posting tool.
FAKE_MCP = r"""
import json, os, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    mid = msg.get("id")
    method = msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-03-26"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "github", "version": "1.0.0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{
            "name": "add_issue_comment",
            "description": "Add a comment to an issue or pull request",
            "inputSchema": {"type": "object", "properties": {
                "owner": {"type": "string"}, "repo": {"type": "string"},
                "issue_number": {"type": "number"}, "body": {"type": "string"}},
                "required": ["owner", "repo", "issue_number", "body"]}}]}})
    elif method == "tools/call":
        params = msg.get("params", {})
        with open(os.environ["FAKE_MCP_LOG"], "a") as log:
            log.write(json.dumps(params) + "\n")
        number = params.get("arguments", {}).get("issue_number")
        if number == 13:
            send({"jsonrpc": "2.0", "id": mid, "result": {"isError": True, "content": [
                {"type": "text", "text": "failed to create comment: 404 Not Found"}]}})
        else:
            url = f"https://github.com/acme/widget/pull/{number}#issuecomment-5001"
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [
                {"type": "text", "text": json.dumps({"id": "5001", "url": url})}]}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
"""


def write_fake_mcp(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fake_github_mcp.py"
    path.write_text(textwrap.dedent(FAKE_MCP))
    return path
