"""The sandbox a ``real_client`` test runs a real CLI in: a temporary ``HOME``, a worktree,
a fake ``gh`` first on PATH, the fake GitHub MCP server, and the scripted model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from realclient_cli import Cli, write_fake_gh, write_fake_mcp
from realclient_model import ModelServer, Step

__all__ = ["CODEX_FLAGS", "Sandbox"]

# A PATH with the fake gh first and nothing of the user's: node for the CLIs, the system.
SYSTEM_PATH = ["/usr/local/bin", "/usr/bin", "/bin"]


def _node_dir() -> list[str]:
    """The folder of the ``node`` the CLIs' launchers need (never the user's other tools)."""
    for folder in [*os.environ.get("PATH", "").split(os.pathsep), *SYSTEM_PATH]:
        if folder and os.access(os.path.join(folder, "node"), os.X_OK):
            return [folder]
    return []


@dataclass
class Sandbox:
    """One worker's world: a temporary HOME, a worktree, a fake gh, and the model server."""

    root: Path
    model: ModelServer
    home: Path = field(init=False)
    work: Path = field(init=False)
    bin: Path = field(init=False)
    gh_log: Path = field(init=False)
    mcp_log: Path = field(init=False)
    state: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.bin = self.root / "bin"
        self.state = self.root / "state"
        for folder in (self.home, self.work, self.state):
            folder.mkdir(parents=True, exist_ok=True)
        self.gh_log = self.root / "gh.log"
        self.mcp_log = self.root / "mcp.log"
        self.mcp_log.touch()
        write_fake_gh(self.bin, self.gh_log)
        self.mcp = write_fake_mcp(self.root / "mcp")

    def env(self) -> dict[str, str]:
        path = os.pathsep.join([str(self.bin), *_node_dir(), *SYSTEM_PATH])
        return {
            "HOME": str(self.home),
            "PATH": path,
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root),
            "FAKE_GH_LOG": str(self.gh_log),
            "COMMENT_WAKE_STATE_DIR": str(self.state),
            # Claude Code
            "ANTHROPIC_BASE_URL": self.model.url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "IS_SANDBOX": "1",  # as root, --dangerously-skip-permissions needs it
            # Codex
            "CODEX_HOME": str(self.home / ".codex"),
            "MOCK_API_KEY": "sk-test",
        }

    def gh_calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.gh_log.read_text().splitlines()]

    def mcp_server(self) -> dict[str, Any]:
        return {
            "command": sys.executable,
            "args": [str(self.mcp)],
            "env": {"FAKE_MCP_LOG": str(self.mcp_log)},
        }

    # --- Claude Code ---------------------------------------------------------------

    def claude(
        self,
        cli: Cli,
        prompt: str,
        script: dict[str, list[Step]],
        *extra: str,
        timeout: float = 120,
        skip_permissions: bool = True,
    ) -> tuple[str, list[dict[str, Any]]]:
        """Run ``claude -p`` once; (session id, stream events).  Without
        ``skip_permissions`` Claude runs only the tools ``extra``'s ``--allowedTools``
        names, as a headless worker does."""
        self.model.script.update(script)
        skip = ["--dangerously-skip-permissions"] if skip_permissions else []
        done = self.run(
            [cli.path, "-p", prompt, "--output-format", "stream-json", "--verbose", *skip, *extra],
            timeout=timeout,
        )
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        result = [e for e in events if e.get("type") == "result"]
        assert result, f"claude gave no result: {done.stderr[-2000:]}"
        return str(result[-1]["session_id"]), events

    def claude_transcript(self, session: str) -> Path:
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        assert found, f"no transcript for {session}"
        return found[0]

    # --- Codex ---------------------------------------------------------------------

    def codex_config(
        self, *, mcp: bool = False, extra_mcp: dict[str, dict[str, Any]] | None = None
    ) -> None:
        home = self.home / ".codex"
        home.mkdir(parents=True, exist_ok=True)
        text = (
            'model = "gpt-5.5"\n'
            'model_provider = "mock"\n'
            "[model_providers.mock]\n"
            'name = "mock"\n'
            f'base_url = "{self.model.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "MOCK_API_KEY"\n'
            "requires_openai_auth = false\n"
        )
        if mcp:
            text += (
                "[mcp_servers.github]\n"
                f"command = {json.dumps(sys.executable)}\n"
                f"args = [{json.dumps(str(self.mcp))}]\n"
                f"env = {{ FAKE_MCP_LOG = {json.dumps(str(self.mcp_log))} }}\n"
            )
        for name, server in (extra_mcp or {}).items():
            args = ", ".join(json.dumps(a) for a in server["args"])
            text += (
                f"[mcp_servers.{json.dumps(name)}]\n"
                f"command = {json.dumps(server['command'])}\n"
                f"args = [{args}]\n"
                # Python and the MCP SDK take seconds to start on a busy machine.  Codex
                # 0.171 starts the turn without a server that is not ready unless it is
                # ``required`` (measured here: "unsupported call" without it).
                "startup_timeout_sec = 60\n"
                "required = true\n"
            )
        (home / "config.toml").write_text(text)

    def codex(
        self, cli: Cli, prompt: str, script: dict[str, list[Step]], *, timeout: float = 120
    ) -> tuple[str, list[dict[str, Any]]]:
        """Run ``codex exec`` once; (thread id, stream events)."""
        self.model.script.update(script)
        done = self.run([cli.path, "exec", "--json", *CODEX_FLAGS, prompt], timeout=timeout)
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        started = [e for e in events if e.get("type") == "thread.started"]
        assert started, f"codex started no thread: {done.stderr[-2000:]}"
        return str(started[0]["thread_id"]), events

    def codex_rollouts(self) -> list[Path]:
        return sorted((self.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))

    # --- the worktree as a git checkout -------------------------------------------

    def commit_work(self, files: dict[str, str]) -> str:
        """Make the worktree a git checkout with ``files`` in one commit; its HEAD."""
        for name, text in files.items():
            (self.work / name).write_text(text, encoding="utf-8")
        env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(SYSTEM_PATH),
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@example.com",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@example.com",
        }
        for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "the widget"]):
            subprocess.run(["git", "-C", str(self.work), *args], env=env, check=True)
        done = subprocess.run(
            ["git", "-C", str(self.work), "rev-parse", "HEAD"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    # --- running -------------------------------------------------------------------

    def run(
        self, argv: Sequence[str], *, stdin: str | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(argv),
            input=stdin if stdin is not None else "",
            env=self.env(),
            cwd=self.work,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def recipe(
        self, name: str, notice_json: bytes, *args: str, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", f"comment_wake.delivery.recipes.{name}", *args]
        return self.run(argv, stdin=notice_json.decode(), timeout=timeout)


CODEX_FLAGS = ("--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox")
