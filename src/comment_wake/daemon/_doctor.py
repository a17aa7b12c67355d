"""``comment-wake doctor``: the checks worth making before a first run, one line each.

Reactions: adding one is a write that notifies nobody but is visible, so doctor never
probes with a real reaction.  A classic token lists its scopes in ``X-OAuth-Scopes``;
``repo`` (or ``public_repo`` for public repositories) lets it react, and doctor says
so or fails.  Fine-grained and app tokens list no scopes: doctor cannot tell without
writing, so it warns and says which permission the token needs.

Bound pull requests: one badge query per 100 PRs (the poll's own query, with windows of one
item, so about one point) says whether each exists and is open.  A recipe binding
(``python -m comment_wake.delivery.recipes.codex ...``) runs its CLI (``codex``, ``claude``,
``tmux`` or the one its flag names), so doctor looks for that CLI too, not only for Python.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Literal

import httpx
import msgspec

from comment_wake.config import AppConfig
from comment_wake.ownpost import detect_format
from comment_wake.registry import (
    CallbackSpec,
    CommandSpec,
    InboxSpec,
    PublisherSpec,
    Registry,
    TranscriptReach,
    WebhookSpec,
    WorkerRecord,
)
from review_monitor import GitHubError, PrRef, is_valid_login
from review_monitor.github import GitHubClient, read_badges

__all__ = ["Check", "run_checks"]

Status = Literal["ok", "WARN", "FAIL"]
_PRS_PER_QUERY = 100  # what one badge query reads
_RECIPE_MODULE = "comment_wake.delivery.recipes."
# Each recipe's CLI: the flag that names it, and the program it runs by default.
_RECIPE_CLIS = {"claude": "claude", "codex": "codex", "tmux": "tmux"}


class Check(msgspec.Struct, frozen=True):
    """One line of ``doctor``'s report: what was checked, ok / WARN / FAIL, and why."""

    name: str
    status: Status
    message: str


async def run_checks(
    config: AppConfig,
    registry: Registry,
    *,
    token: str | None,
    token_problem: str | None,
    now: datetime,
    transport: httpx.AsyncBaseTransport | None = None,
    environ: Mapping[str, str] | None = None,
    host_id: str | None = None,
) -> list[Check]:
    """Every check, in order.  ``host_id``: this host's id in fleet mode (a PostgreSQL
    store), where only the workers and orchestrators bound on this host have their
    transcripts and publishers checked here (their host's doctor checks the others)."""
    environ = os.environ if environ is None else environ
    checks: list[Check] = []
    workers = [w for w in registry.workers() if not w.archived]
    fleet = registry.store.dialect == "postgresql"

    def here(bound_on: str | None) -> bool:
        return not fleet or bound_on is None or bound_on == host_id

    local = [w for w in workers if here(w.host_id)]
    bosses = [o for o in registry.orchestrators() if here(o.host_id)]
    if token is None:
        checks.append(Check("token", "FAIL", token_problem or "no token"))
    else:
        checks += await _github_checks(config, registry, token, workers, now, transport)
    for w in local:
        checks.append(_transcripts_check(registry, w.worker))
        checks.append(await _publisher_check(f"publisher {w.worker}", w.publisher, registry))
    for o in bosses:
        checks.append(await _publisher_check(f"publisher {o.id}", o.publisher, registry))
    checks += _reach_checks(registry, local, host_id)
    elsewhere = len(workers) - len(local) + len(registry.orchestrators()) - len(bosses)
    if elsewhere:
        checks.append(
            Check(
                "other hosts",
                "ok",
                f"{elsewhere} worker(s) and orchestrator(s) are bound on other hosts: the "
                "doctor there checks their transcripts and publishers",
            )
        )
    if not workers:
        checks.append(Check("bindings", "WARN", "no worker is bound yet: comment-wake bind --help"))
    return checks


def _reach_checks(
    registry: Registry, local: list[WorkerRecord], host_id: str | None
) -> list[Check]:
    """WARN, one line per transcript the own-post checks of this host's workers read but
    cannot read here: their orchestrators' (wherever bound), and those of their siblings
    bound on other hosts (a worker bound here has its own ``transcripts`` check above).
    Each line says what is lost, on whose PRs."""
    mine = {w.worker for w in local}
    found: dict[tuple[str, str], tuple[TranscriptReach, list[str]]] = {}
    for w in local:
        for reach in registry.transcript_reach(w.worker, here=host_id):
            if reach.readable or reach.agent in mine:
                continue
            found.setdefault((reach.agent, reach.transcript), (reach, []))[1].append(w.worker)
    return [_reach_check(reach, readers) for reach, readers in found.values()]


def _reach_check(reach: TranscriptReach, readers: list[str]) -> Check:
    who = f"{'orchestrator' if reach.role == 'orchestrator' else 'worker'} {reach.agent}"
    prs = f"on the PRs of {', '.join(readers)}"
    name = f"transcript {reach.agent}"
    if reach.reach == "elsewhere":
        return Check(
            name,
            "WARN",
            f"{who} is bound on host {reach.host_id}, not here, and its transcript "
            f"({reach.transcript}) is there: its own posts {prs} are not recognised on this "
            "host, except those made through the posting tools (by id)",
        )
    if reach.reach == "missing":
        return Check(
            name,
            "WARN",
            f"{reach.transcript} of {who} is not found on this host: its own posts {prs} are "
            "not recognised; check the session id or path (comment-wake list) and "
            "CLAUDE_CONFIG_DIR / CODEX_HOME",
        )
    return Check(
        name,
        "WARN",
        f"{reach.problem}: a transcript of {who} that cannot be opened here; the comments "
        f"{prs} are not decided until it can be (fix its permissions)",
    )


async def _github_checks(
    config: AppConfig,
    registry: Registry,
    token: str,
    workers: list[WorkerRecord],
    now: datetime,
    transport: httpx.AsyncBaseTransport | None,
) -> list[Check]:
    out: list[Check] = []
    # The client and the permissions component as the daemon assembles them (the root's
    # ``open_monitor``, over the registry's store, without the lease): doctor checks what
    # runs.
    from comment_wake.app import open_monitor

    async with open_monitor(config, registry.store, token=token, transport=transport) as monitor:
        client = monitor.client
        try:
            answer = await client.rest_get("/user")
        except GitHubError as exc:
            what = type(exc).__name__
            fix = (
                "the token is wrong or expired: set GH_TOKEN (or run gh auth login)"
                if "Auth" in what
                else f"check [github] host/api_url ({config.github.api_url or 'default'})"
            )
            return [Check("token", "FAIL", f"GET /user failed ({what}); {fix}")]
        body = answer.body
        login = body.get("login") if isinstance(body, dict) else None
        if answer.status != 200 or not isinstance(login, str) or not is_valid_login(login):
            return [
                Check("token", "FAIL", f"GET /user answered HTTP {answer.status}; set GH_TOKEN")
            ]
        out.append(Check("token", "ok", f"authenticated as {login} on {client.host}"))
        permissions = monitor.permissions
        repos = sorted({w.pr.repo for w in workers})
        for repo in repos:
            try:
                problem = await permissions.preflight(repo, login, now)
            except (GitHubError, ValueError) as exc:
                problem = f"the permission call on {repo} failed ({type(exc).__name__})"
            if problem is None:
                out.append(Check(f"push access {repo}", "ok", "collaborator permissions readable"))
            else:
                out.append(Check(f"push access {repo}", "FAIL", problem))
        out += await _pr_checks(client, [w.pr for w in workers])
        out.append(_reaction_check(config, answer.headers))
    return out


async def _pr_checks(client: GitHubClient, bound: list[PrRef]) -> list[Check]:
    """FAIL for a bound PR GitHub does not find, WARN for one merged or closed."""
    prs = sorted({p for p in bound if p.host == client.host}, key=str)
    out: list[Check] = []
    for start in range(0, len(prs), _PRS_PER_QUERY):
        chunk = prs[start : start + _PRS_PER_QUERY]
        try:
            batch = await read_badges(client, chunk, comments_window=1, reviews_window=1)
        except GitHubError as exc:
            what = type(exc).__name__
            out += [Check(f"pr {p}", "FAIL", f"could not be read ({what})") for p in chunk]
            continue
        missing = set(batch.missing)
        for pr in chunk:
            status = batch.statuses.get(pr)
            if pr in missing:
                out.append(
                    Check(
                        f"pr {pr}",
                        "FAIL",
                        "not found: check the number, or whether the token can see the "
                        "repository; comment-wake unbind it if it is gone",
                    )
                )
            elif status is None:
                out.append(Check(f"pr {pr}", "WARN", "could not be read this time; try again"))
            elif status.merged or status.state == "MERGED":
                out.append(Check(f"pr {pr}", "WARN", _finished("merged")))
            elif status.state != "OPEN":
                out.append(Check(f"pr {pr}", "WARN", _finished("closed")))
            else:
                out.append(Check(f"pr {pr}", "ok", "open"))
    return out


def _finished(how: str) -> str:
    return (
        f"{how}: its comments wake nobody (only open PRs do); archive or unbind the worker "
        "when its work is done"
    )


def _reaction_check(config: AppConfig, headers: Mapping[str, str]) -> Check:
    if config.delivery.reaction_content is None:
        return Check("reactions", "ok", "acknowledgement reactions are off ([delivery] reaction)")
    lowered = {k.lower(): v for k, v in headers.items()}
    scopes = lowered.get("x-oauth-scopes")
    if scopes is None:
        return Check(
            "reactions",
            "WARN",
            "the token lists no scopes (fine-grained or app token), so this cannot be "
            "checked without reacting; give it 'Pull requests: Read and write' (and "
            "'Issues: Read and write') on the bound repositories",
        )
    have = {s.strip() for s in scopes.split(",") if s.strip()}
    if have & {"repo", "public_repo"}:
        return Check("reactions", "ok", f"the token's scopes allow reactions ({scopes})")
    return Check(
        "reactions",
        "FAIL",
        "the token's scopes do not allow reactions: add the repo scope (gh auth refresh "
        '-s repo), or set [delivery] reaction = ""',
    )


def _transcripts_check(registry: Registry, worker: str) -> Check:
    record = registry.worker(worker)
    name = f"transcripts {worker}"
    if record is None or not record.transcripts:
        return Check(
            name,
            "WARN",
            "no transcript is bound: the worker's own posts are recognised only by "
            "[wake] agent_logins; bind with --transcript, --claude-session or --codex-thread",
        )
    found = registry.transcripts(worker)
    own = [t for t in found if t.role == "worker"]
    if not own:
        return Check(
            name,
            "FAIL",
            "the bound transcript cannot be found now; check the session id or path "
            "(comment-wake list) and CLAUDE_CONFIG_DIR / CODEX_HOME",
        )
    empty = []
    for t in found:
        try:
            kind = detect_format(t.path)
        except OSError as exc:
            return Check(name, "FAIL", f"{t.path} is not readable ({exc.strerror})")
        if kind == "unknown":
            return Check(
                name,
                "FAIL",
                f"{t.path} is not a Claude Code or Codex transcript (none of its first lines "
                "is in their formats); bind the session's .jsonl file",
            )
        if kind == "empty":
            empty.append(t.path)
    if empty:
        return Check(
            name,
            "WARN",
            f"{', '.join(empty)} empty so far (a session just begun?); the rest readable",
        )
    return Check(name, "ok", f"{len(found)} transcript file(s) readable")


def _recipe_cli(argv: tuple[str, ...]) -> tuple[str, str] | None:
    """For ``... -m comment_wake.delivery.recipes.NAME [--NAME PATH] ...``: NAME and the CLI
    it runs; None for any other command."""
    for i, arg in enumerate(argv[:-1]):
        if arg == "-m" and argv[i + 1].startswith(_RECIPE_MODULE):
            recipe = argv[i + 1][len(_RECIPE_MODULE) :]
            if recipe not in _RECIPE_CLIS:
                return None
            cli = _RECIPE_CLIS[recipe]
            rest = argv[i + 2 :]
            flag = f"--{recipe}"
            for j, option in enumerate(rest):
                if option == "--":
                    break
                if option == flag and j + 1 < len(rest):
                    cli = rest[j + 1]
                elif option.startswith(flag + "="):
                    cli = option[len(flag) + 1 :]
            return recipe, cli
    return None


async def _publisher_check(name: str, spec: PublisherSpec, registry: Registry) -> Check:
    if isinstance(spec, CommandSpec):
        program = spec.argv[0]
        found = shutil.which(program)
        if found is None:
            return Check(name, "FAIL", f"{program} is not an executable file or on PATH")
        recipe = _recipe_cli(spec.argv)
        if recipe is not None:
            recipe_name, cli = recipe
            cli_found = shutil.which(cli)
            if cli_found is None:
                return Check(
                    name,
                    "FAIL",
                    f"the {recipe_name} recipe runs {cli}, which is not an executable file or "
                    f"on PATH: install it, or name it with --{recipe_name} PATH",
                )
            return Check(name, "ok", f"{recipe_name} recipe, {cli_found}")
        return Check(name, "ok", f"command {found}")
    if isinstance(spec, InboxSpec):
        root = Path(spec.root) if spec.root else registry.inbox_root
        probe = root if root.exists() else next((p for p in root.parents if p.exists()), root)
        if os.access(probe, os.W_OK | os.X_OK):
            return Check(name, "ok", f"inbox under {root}")
        return Check(name, "FAIL", f"{probe} is not writable; fix its permissions or --inbox DIR")
    if isinstance(spec, WebhookSpec):
        if not os.environ.get(spec.secret_env):
            return Check(name, "FAIL", f"set the environment variable {spec.secret_env}")
        try:
            async with httpx.AsyncClient(timeout=5.0, follow_redirects=False) as http:
                response = await http.request("OPTIONS", spec.url)
        except httpx.HTTPError as exc:
            return Check(name, "FAIL", f"{spec.url} does not answer ({type(exc).__name__})")
        return Check(name, "ok", f"{spec.url} answers (HTTP {response.status_code} to OPTIONS)")
    if isinstance(spec, CallbackSpec):
        if registry.has_callback(spec.name):
            return Check(name, "ok", f"callback {spec.name!r} is registered in this process")
        return Check(
            name,
            "FAIL",
            f"callback {spec.name!r} exists only inside the process that registered it; the "
            "daemon cannot call it: bind with --command, --webhook or --inbox",
        )
    return Check(name, "FAIL", f"unknown publisher kind {type(spec).__name__}")  # type: ignore[unreachable]
