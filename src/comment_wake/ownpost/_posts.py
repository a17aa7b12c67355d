"""What a tool call posts to GitHub: gh commands, gh api POSTs, MCP tools (pure)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from ._model import CallPlan, NamedPr, PlannedPost, PlannedWrite
from ._shell import ParsedScript, SimpleCommand, parse_argv, parse_script

__all__ = ["plan_mcp", "plan_patch", "plan_shell", "plan_write"]

_PR_URL = re.compile(
    r"^https?://(?P<host>[A-Za-z0-9.-]+)/(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+)"
    r"/(?:pull|issues)/(?P<number>[0-9]{1,10})(?:[/?#].*)?$"
)
_REPO = re.compile(
    r"^(?:(?P<host>[A-Za-z0-9.-]+\.[A-Za-z]+)/)?(?P<owner>[^/\s]+)/(?P<name>[^/\s]+)$"
)
_API_PATH = re.compile(
    r"^/?(?:https?://[^/]+/(?:api/v3/)?)?repos/(?P<owner>[^/]+)/(?P<name>[^/]+)/"
    r"(?:(?P<issue>issues)/(?P<inum>[0-9]+)/comments"
    r"|pulls/(?P<pnum>[0-9]+)/(?:comments(?:/[0-9]+/replies)?|reviews(?:/[0-9]+/events)?))/?$"
)
_GRAPHQL_POSTS = re.compile(
    r"\b(addComment|addPullRequestReview|addPullRequestReviewComment"
    r"|addPullRequestReviewThreadReply|submitPullRequestReview)\b"
)
_READS = frozenset({"curl", "wget", "http", "xh"})


# --- shell ----------------------------------------------------------------------------


def plan_shell(
    script: str | None = None,
    *,
    argv: tuple[str | None, ...] | None = None,
    cwd: str | None = None,
) -> CallPlan:
    """Analyse a shell call given as a script string or as an argv."""
    if script is not None:
        parsed = parse_script(script, cwd=cwd)
    elif argv is not None:
        parsed = parse_argv(argv, cwd=cwd)
    else:
        return CallPlan(complete=False)
    return _plan_commands(parsed)


def _plan_commands(parsed: ParsedScript) -> CallPlan:
    posts: list[PlannedPost] = []
    writes: list[PlannedWrite] = []
    others = 0
    reads = 0
    commands = parsed.commands
    planned = [_gh_post(cmd) for cmd in commands]
    inside = _parts_of_posts(commands, planned)
    for i, cmd in enumerate(commands):
        post = planned[i]
        if post is not None:
            posts.append(post)
            continue
        write = _shell_write(cmd)
        if write is not None:
            writes.append(write)
        if _feeds_next(cmd, commands[i + 1] if i + 1 < len(commands) else None):
            continue  # ``cat <<EOF | gh ... -F -``: the text went to the post, not the output
        if _is_read(cmd):
            reads += 1
        if i in inside:
            continue  # its output became the post's body: the post prints the only link
        others += 1
    if not parsed.complete:
        return CallPlan(complete=False, reads=reads)
    return CallPlan(
        posts=tuple(posts),
        writes=tuple(writes),
        all_post=bool(posts) and others == 0,
        reads=reads,
    )


def _parts_of_posts(
    commands: tuple[SimpleCommand, ...], planned: list[PlannedPost | None]
) -> set[int]:
    """Indexes of the commands that are part of a post: a command substitution inside a
    posting command's words (``--body "$(git log -1 --pretty=%B)"``), and a lone
    assignment whose variable a posting command of the call expands, with the
    substitutions in its value (``B=$(...); gh pr comment 12 --body "$B"``)."""
    owners = {c.ident: c.part_of for c in commands if c.ident}
    roots = {c.ident for c, p in zip(commands, planned, strict=True) if p is not None and c.ident}
    used = {
        name for c, p in zip(commands, planned, strict=True) if p is not None for name in c.uses
    }
    roots |= {
        c.ident
        for c in commands
        if c.assigns is not None and c.assigns in used and c.part_of == 0 and c.ident
    }
    inside: set[int] = set()
    for i, cmd in enumerate(commands):
        if planned[i] is not None:
            continue
        seen: set[int] = set()
        node = cmd.ident if cmd.assigns is not None else cmd.part_of
        while node and node not in seen:
            if node in roots:
                inside.add(i)
                break
            seen.add(node)
            node = owners.get(node, 0)
    return inside


def _feeds_next(cmd: SimpleCommand, nxt: SimpleCommand | None) -> bool:
    if nxt is None or cmd.writes is not None or cmd.writes_unknown:
        return False
    if cmd.name not in ("cat", "echo") or nxt.stdin is None:
        return False
    return _gh_post(nxt) is not None


def _is_read(cmd: SimpleCommand) -> bool:
    name = cmd.name
    if name in _READS:
        return True
    return name == "gh" and len(cmd.argv) > 1


def _shell_write(cmd: SimpleCommand) -> PlannedWrite | None:
    if cmd.name == "tee" and len(cmd.argv) == 2 and cmd.argv[1] is not None:
        return PlannedWrite(path=_path(cmd.cwd, cmd.argv[1]), text=cmd.stdin)
    if cmd.writes is None:
        return None
    text: str | None = None
    if cmd.name == "cat" and len(cmd.argv) == 1:
        text = cmd.stdin
    elif cmd.name == "echo" and all(a is not None for a in cmd.argv[1:]):
        args = [a for a in cmd.argv[1:] if a is not None]
        if not args or not args[0].startswith("-"):
            text = " ".join(args) + "\n"
    elif cmd.name == "printf" and len(cmd.argv) == 3 and cmd.argv[1] == "%s":
        text = cmd.argv[2]
    return PlannedWrite(path=cmd.writes, text=text)


def _path(cwd: str | None, path: str) -> str:
    if path.startswith("/") or cwd is None:
        return posixpath.normpath(path) if path.startswith("/") else path
    return posixpath.normpath(posixpath.join(cwd, path))


class _Args:
    """A pflag-style reading of argv: ``--flag value``, ``--flag=value``, ``-fvalue``."""

    def __init__(
        self,
        args: tuple[str | None, ...],
        *,
        valued: Mapping[str, str],
        boolean: Mapping[str, str],
    ) -> None:
        self.values: dict[str, list[str | None]] = {}
        self.flags: set[str] = set()
        self.positional: list[str | None] = []
        self.unknown_flag = False
        self.missing_value = False  # a flag that needs a value ended the argv: gh refuses
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg is None:
                self.positional.append(None)
                continue
            if arg == "--":
                self.positional.extend(args[i:])
                break
            if arg.startswith("--"):
                name, eq, value = arg[2:].partition("=")
                flag = "--" + name
                if flag in boolean:
                    self.flags.add(boolean[flag])
                elif flag not in valued:
                    self.unknown_flag = True
                elif eq:
                    self.values.setdefault(valued[flag], []).append(value)
                else:
                    self.missing_value = self.missing_value or i >= len(args)
                    value_arg = args[i] if i < len(args) else None
                    self.values.setdefault(valued[flag], []).append(value_arg)
                    i += 1
            elif arg.startswith("-") and len(arg) > 1:
                j = 1
                while j < len(arg):
                    short = "-" + arg[j]
                    if short in valued:
                        rest = arg[j + 1 :]
                        if rest.startswith("="):
                            rest = rest[1:]
                        if rest:
                            self.values.setdefault(valued[short], []).append(rest)
                        else:
                            self.missing_value = self.missing_value or i >= len(args)
                            value_arg = args[i] if i < len(args) else None
                            self.values.setdefault(valued[short], []).append(value_arg)
                            i += 1
                        break
                    if short in boolean:
                        self.flags.add(boolean[short])
                    else:
                        self.unknown_flag = True
                    j += 1
            else:
                self.positional.append(arg)

    def last(self, key: str) -> tuple[bool, str | None]:
        values = self.values.get(key)
        if not values:
            return False, None
        return True, values[-1]


_COMMENT_VALUED = {
    "-b": "body",
    "--body": "body",
    "-F": "body-file",
    "--body-file": "body-file",
    "-R": "repo",
    "--repo": "repo",
}
_COMMENT_BOOL = {
    "-e": "editor",
    "--editor": "editor",
    "-w": "web",
    "--web": "web",
    "--edit-last": "edit-last",
    "--create-if-none": "create-if-none",
    "--delete-last": "delete-last",
    "--yes": "yes",
}
_REVIEW_BOOL = {
    "-a": "approve",
    "--approve": "approve",
    "-r": "request-changes",
    "--request-changes": "request-changes",
    "-c": "comment",
    "--comment": "comment",
}
_API_VALUED = {
    "-X": "method",
    "--method": "method",
    "-f": "raw-field",
    "--raw-field": "raw-field",
    "-F": "field",
    "--field": "field",
    "-H": "header",
    "--header": "header",
    "--input": "input",
    "-q": "jq",
    "--jq": "jq",
    "-t": "template",
    "--template": "template",
    "-p": "preview",
    "--preview": "preview",
    "--hostname": "hostname",
    "--cache": "cache",
}
_API_BOOL = {
    "--paginate": "paginate",
    "--slurp": "slurp",
    "-i": "include",
    "--include": "include",
    "--silent": "silent",
    "--verbose": "verbose",
}


def _gh_post(cmd: SimpleCommand) -> PlannedPost | None:
    if cmd.name != "gh" or len(cmd.argv) < 2:
        return None
    env = dict(cmd.env)
    argv = cmd.argv
    if argv[1:3] in (("pr", "comment"), ("issue", "comment")):
        return _gh_comment(cmd, argv[3:], env, issue=argv[1] == "issue")
    if argv[1:3] == ("pr", "review"):
        return _gh_review(cmd, argv[3:], env)
    if argv[1] == "api":
        return _gh_api(cmd, argv[2:], env)
    return None


def _target(
    positional: list[str | None], repo: str | None, env: Mapping[str, str | None]
) -> NamedPr:
    """The PR a gh command names by number, ``#N`` or URL (plus ``--repo``/``GH_REPO``)."""
    host = env.get("GH_HOST")
    if repo is None and "GH_REPO" in env:
        repo = env["GH_REPO"]
        if repo is None:
            return NamedPr(named=True)
    owner = name = None
    if repo is not None:
        m = _REPO.match(repo)
        if m is None:
            return NamedPr(named=True)
        host, owner, name = m["host"] or host, m["owner"], m["name"]
    if not positional:
        if repo is not None:
            # ``--repo`` without a number: gh asks for the current branch's PR in that repo.
            return NamedPr(named=True, host=host, owner=owner, name=name)
        return NamedPr(named=False)
    selector = positional[0]
    if selector is None:
        return NamedPr(named=True, host=host, owner=owner, name=name)
    if selector.startswith("#"):
        selector = selector[1:]
    if selector.isdigit():
        return NamedPr(named=True, host=host, owner=owner, name=name, number=int(selector))
    m = _PR_URL.match(selector)
    if m is not None:
        return NamedPr(
            named=True,
            host=m["host"].lower(),
            owner=m["owner"],
            name=m["name"],
            number=int(m["number"]),
        )
    return NamedPr(named=True, host=host, owner=owner, name=name)  # a branch name


def _bodies_from(
    cmd: SimpleCommand, args: _Args
) -> tuple[tuple[str, ...], bool, tuple[str, ...]] | None:
    """(bodies, known, files) from ``--body``/``--body-file``; ``None``: no body given."""
    has_body, body = args.last("body")
    has_file, file = args.last("body-file")
    if has_body:
        return ((body,), True, ()) if body is not None else ((), False, ())
    if has_file:
        if file == "-":
            return ((cmd.stdin,), True, ()) if cmd.stdin is not None else ((), False, ())
        if file is None:
            return ((), False, ())
        return ((), True, (_path(cmd.cwd, file),))
    return None


def _gh_comment(
    cmd: SimpleCommand, rest: tuple[str | None, ...], env: Mapping[str, str | None], *, issue: bool
) -> PlannedPost | None:
    args = _Args(rest, valued=_COMMENT_VALUED, boolean=_COMMENT_BOOL)
    if args.missing_value or args.flags & {"web", "editor", "delete-last"}:
        return None
    bodies = _bodies_from(cmd, args)
    if bodies is None:
        return None  # no body: gh refuses when not interactive
    _, repo = args.last("repo")
    has_repo = "repo" in args.values
    tool = f"gh {'issue' if issue else 'pr'} comment"
    if "edit-last" in args.flags:
        tool += " --edit-last"
    pr = _target(args.positional, repo if has_repo else None, env)
    if has_repo and repo is None:
        pr = NamedPr(named=True)
    texts, known, files = bodies
    return PlannedPost(tool=tool, pr=pr, bodies=texts, body_known=known, body_files=files)


def _gh_review(
    cmd: SimpleCommand, rest: tuple[str | None, ...], env: Mapping[str, str | None]
) -> PlannedPost | None:
    args = _Args(rest, valued=_COMMENT_VALUED, boolean=_REVIEW_BOOL)
    verdicts = args.flags & {"approve", "request-changes", "comment"}
    if not verdicts or args.missing_value:
        return None
    bodies = _bodies_from(cmd, args) or ((), True, ())
    has_repo = "repo" in args.values
    _, repo = args.last("repo")
    pr = _target(args.positional, repo if has_repo else None, env)
    if has_repo and repo is None:
        pr = NamedPr(named=True)
    flag = sorted(verdicts)[0]
    texts, known, files = bodies
    return PlannedPost(
        tool=f"gh pr review --{flag}", pr=pr, bodies=texts, body_known=known, body_files=files
    )


def _gh_api(
    cmd: SimpleCommand, rest: tuple[str | None, ...], env: Mapping[str, str | None]
) -> PlannedPost | None:
    args = _Args(rest, valued=_API_VALUED, boolean=_API_BOOL)
    if args.missing_value or not args.positional or args.positional[0] is None:
        return None
    endpoint = args.positional[0].split("?", 1)[0]
    fields = [*args.values.get("raw-field", []), *args.values.get("field", [])]
    has_method, method = args.last("method")
    if has_method:
        if method is None or method.upper() != "POST":
            return None
    elif not fields and "input" not in args.values:
        return None  # no field: a GET
    host = args.last("hostname")[1] or env.get("GH_HOST")
    if endpoint.lstrip("/") == "graphql":
        query = _field(args, "query")
        if query is None or not query[1] or query[0] is None:
            return None
        if "mutation" not in query[0] or not _GRAPHQL_POSTS.search(query[0]):
            return None
        return PlannedPost(tool="gh api graphql", pr=NamedPr(named=True), body_known=False)
    m = _API_PATH.match(endpoint)
    if m is None:
        return None
    # ``{owner}``/``:owner`` placeholders are gh's current repository: unknown here.
    owner: str | None = None if m["owner"].startswith(("{", ":")) else m["owner"]
    name: str | None = None if m["name"].startswith(("{", ":")) else m["name"]
    number = int(m["inum"] or m["pnum"])
    pr = NamedPr(named=True, host=host, owner=owner, name=name, number=number)
    bodies: list[str] = []
    known = "input" not in args.values
    files: list[str] = []
    for raw in fields:
        if raw is None:
            known = False
            continue
        key, _, value = raw.partition("=")
        if key not in ("body", "comments[][body]"):
            continue
        if raw in args.values.get("field", []) and value.startswith("@"):
            source = value[1:]
            if source == "-":
                if cmd.stdin is None:
                    known = False
                else:
                    bodies.append(cmd.stdin)
            else:
                files.append(_path(cmd.cwd, source))
            continue
        bodies.append(value)
    return PlannedPost(
        tool="gh api", pr=pr, bodies=tuple(bodies), body_known=known, body_files=tuple(files)
    )


def _field(args: _Args, key: str) -> tuple[str | None, bool] | None:
    for raw in [*args.values.get("raw-field", []), *args.values.get("field", [])]:
        if raw is None:
            return (None, True)
        k, eq, v = raw.partition("=")
        if k == key and eq:
            return (v, True)
    return None


# --- MCP and file tools ---------------------------------------------------------------

_MCP_BODY_KEYS = ("body", "text", "message", "reply", "comment")
_MCP_PR_KEYS = (
    "pullNumber",
    "pull_number",
    "issue_number",
    "issueNumber",
    "prNumber",
    "pr",
    "number",
)


def mcp_tool_name(name: str) -> str | None:
    """``mcp__github__add_issue_comment`` or ``github__add_issue_comment`` to the tool."""
    if name.startswith("mcp__"):
        parts = name.split("__")
        return parts[-1] if len(parts) >= 3 else None
    if "__" in name:
        return name.rsplit("__", 1)[1]
    return None


def plan_mcp(name: str, args: Mapping[str, object]) -> CallPlan | None:
    """The plan of an MCP call; ``None`` when ``name`` is not an MCP tool name."""
    tool = mcp_tool_name(name)
    if tool is None:
        if name == "pr_reply_to_thread":
            tool = name
        else:
            return None
    posting = _mcp_posting(tool, args)
    if posting is None:
        return CallPlan(reads=1 if tool in ("pr_review_threads",) or tool.startswith("get_") else 0)
    return CallPlan(posts=(posting,), all_post=True)


def _mcp_posting(tool: str, args: Mapping[str, object]) -> PlannedPost | None:
    pending_inline = False
    if tool in ("add_issue_comment", "add_reply_to_pull_request_comment", "pr_reply_to_thread"):
        pass
    elif tool == "pull_request_review_write":
        method = args.get("method")
        if not (method == "submit_pending" or (method == "create" and args.get("event"))):
            return None
    elif tool in (
        "create_pull_request_review",
        "create_and_submit_pull_request_review",
        "submit_pending_pull_request_review",
    ):
        if tool == "create_pull_request_review" and not args.get("event"):
            return None
    elif tool in (
        "add_comment_to_pending_review",
        "add_pull_request_review_comment_to_pending_review",
    ):
        pending_inline = True
    else:
        return None
    body: object = None
    for key in _MCP_BODY_KEYS:
        if key in args:
            body = args[key]
            break
    bodies: tuple[str, ...] = (body,) if isinstance(body, str) else ()
    known = body is None or isinstance(body, str)
    return PlannedPost(
        tool=f"mcp {tool}",
        pr=_mcp_target(args),
        bodies=bodies,
        body_known=known,
        pending_inline=pending_inline,
    )


def _mcp_target(args: Mapping[str, object]) -> NamedPr:
    owner = args.get("owner")
    repo = args.get("repo") or args.get("repository")
    number: int | None = None
    found = False
    for key in _MCP_PR_KEYS:
        if key in args:
            found = True
            value = args[key]
            if isinstance(value, int) and not isinstance(value, bool):
                number = value
            elif isinstance(value, str) and value.lstrip("#").isdigit():
                number = int(value.lstrip("#"))
            break
    o = owner if isinstance(owner, str) else None
    r = repo if isinstance(repo, str) else None
    if r is not None and o is None and "/" in r:
        o, r = r.split("/", 1)
    if not found and o is None and r is None:
        return NamedPr(named=False)
    return NamedPr(named=True, owner=o, name=r, number=number)


def plan_write(path: object, content: object, *, edit: bool = False) -> CallPlan:
    """A file tool (Claude Code ``Write``/``Edit``): remember, or forget, the file's text."""
    if not isinstance(path, str):
        return CallPlan()
    text = content if isinstance(content, str) and not edit else None
    return CallPlan(writes=(PlannedWrite(path=posixpath.normpath(path), text=text),))


def plan_patch(patch: str, *, cwd: str | None) -> CallPlan:
    """Codex ``apply_patch``: added files are known, updated or deleted ones forgotten."""
    writes: list[PlannedWrite] = []
    current: str | None = None
    lines: list[str] = []
    for line in patch.splitlines():
        if line.startswith("*** "):
            if current is not None:
                writes.append(PlannedWrite(path=current, text="".join(lines)))
                current = None
            for prefix, keep in (("*** Add File: ", True), ("*** Update File: ", False)):
                if line.startswith(prefix):
                    path = _path(cwd, line[len(prefix) :].strip())
                    if keep:
                        current, lines = path, []
                    else:
                        writes.append(PlannedWrite(path=path, text=None))
            if line.startswith("*** Delete File: "):
                writes.append(PlannedWrite(path=_path(cwd, line[17:].strip()), text=None))
        elif current is not None and line.startswith("+"):
            lines.append(line[1:] + "\n")
    if current is not None:
        writes.append(PlannedWrite(path=current, text="".join(lines)))
    return CallPlan(writes=tuple(writes))
