"""Finding the GitHub token the way ``gh`` does, without ever printing it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping

from ._errors import TokenNotFoundError

__all__ = ["find_token"]

_PUBLIC_HOSTS = ("github.com", "api.github.com")


def _is_enterprise_server(host: str) -> bool:
    return host not in _PUBLIC_HOSTS and not host.endswith(".ghe.com")


def _env_names(host: str) -> tuple[str, ...]:
    # gh reads GH_ENTERPRISE_TOKEN for an Enterprise Server host; checking it first keeps a
    # github.com token in GH_TOKEN from being sent to another host when both are set.
    if _is_enterprise_server(host):
        return ("GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
    return ("GH_TOKEN", "GITHUB_TOKEN")


def find_token(
    host: str = "github.com",
    *,
    env: Mapping[str, str] | None = None,
    gh: str | None = None,
    timeout: float = 10.0,
) -> str:
    """The token for ``host``: ``GH_TOKEN``, then ``GITHUB_TOKEN``, then ``gh auth token``.

    For a GitHub Enterprise Server host, ``GH_ENTERPRISE_TOKEN`` and
    ``GITHUB_ENTERPRISE_TOKEN`` come first and ``gh`` is asked with ``--hostname HOST``.
    ``env`` defaults to ``os.environ``; ``gh`` is the executable (default: ``gh`` on PATH).
    Raises ``TokenNotFoundError`` saying what to set.  No message carries a token.
    """
    host = host.strip().lower()
    environ = os.environ if env is None else env
    names = _env_names(host)
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    from_gh, why = _ask_gh(host, environ, gh, timeout)
    if from_gh:
        return from_gh
    raise TokenNotFoundError(
        f"no GitHub token for {host}: set {' or '.join(names)}, "
        f"or sign in with `gh auth login{_hostname_flag(host)}` ({why})"
    )


def _hostname_flag(host: str) -> str:
    return "" if host in _PUBLIC_HOSTS else f" --hostname {host}"


def _ask_gh(
    host: str, environ: Mapping[str, str], gh: str | None, timeout: float
) -> tuple[str | None, str]:
    executable = gh or shutil.which("gh", path=environ.get("PATH"))
    if executable is None:
        return None, "gh is not on PATH"
    command = [executable, "auth", "token"]
    if host not in _PUBLIC_HOSTS:
        command += ["--hostname", host]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(environ),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"`gh auth token` did not answer within {timeout:g}s"
    except OSError as exc:
        return None, f"`gh auth token` could not run: {type(exc).__name__}"
    if done.returncode != 0:
        # gh's own stderr is not echoed: it is not ours to vouch for.
        return None, f"`gh auth token` exited with status {done.returncode}"
    token = done.stdout.strip()
    if not token or len(token.split()) != 1:
        return None, "`gh auth token` printed no token"
    return token, ""
