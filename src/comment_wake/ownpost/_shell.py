"""Shell parsing with tree-sitter-bash: a command string to the simple commands it runs.

A value the shell would compute (``$VAR``, ``$(git log)``, globs, ``~``) is ``None``:
unknown, never guessed. The one computed value that is read is the body idiom
``"$(cat <<'EOF' ... EOF)"``, whose result is the heredoc text without trailing newlines.
"""

from __future__ import annotations

import itertools
import os.path
import posixpath
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

__all__ = ["ParsedScript", "SimpleCommand", "parse_argv", "parse_script"]

_MAX_DEPTH = 6  # nested ``bash -c`` levels followed before giving up
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# Wrappers that run their argument command unchanged; anything else is a command of its own.
_WRAPPERS = frozenset({"timeout", "env", "command", "nice", "nohup", "time", "exec"})
_STATEMENT_LIKE = frozenset(
    {
        "test_command",
        "declaration_command",
        "unset_command",
        "negated_command",
        "c_style_for_statement",
        "for_statement",
        "while_statement",
        "if_statement",
        "case_statement",
        "function_definition",
    }
)


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command: argv (``None`` for an unknown word) and what feeds it.

    ``stdin`` is the literal text on its standard input (a heredoc, or ``cat <<EOF |``),
    ``None`` when there is none or it is unknown. ``writes`` is the file its standard
    output replaces (``> file``), ``writes_unknown`` is set when that target is unknown or
    appended to. ``cwd`` is the directory a preceding literal ``cd`` moved to.
    """

    argv: tuple[str | None, ...]
    env: tuple[tuple[str, str | None], ...] = ()
    stdin: str | None = None
    writes: str | None = None
    writes_unknown: bool = False
    cwd: str | None = None
    nested: bool = False  # ran inside a command substitution
    # ``ident``: this command's id, unique in the process; ``part_of``: the id of the
    # command (or the lone ``NAME=value`` assignment) in whose words this one ran as a
    # command substitution, 0 for none.  ``assigns``: the variable a lone assignment
    # sets; ``uses``: the variables its words expand.
    ident: int = 0
    part_of: int = 0
    assigns: str | None = None
    uses: tuple[str, ...] = ()

    @property
    def name(self) -> str | None:
        if not self.argv or self.argv[0] is None:
            return None
        return posixpath.basename(self.argv[0])


@dataclass(frozen=True, slots=True)
class ParsedScript:
    """The simple commands of a script, wrappers unwrapped and ``bash -c`` followed.

    ``complete`` is false when the parser reported a syntax error or a wrapper's script
    could not be read; then the commands are a best effort and nothing should be trusted.
    """

    commands: tuple[SimpleCommand, ...]
    complete: bool = True


_IDS = itertools.count(1)


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@dataclass(slots=True)
class _Walk:
    src: bytes
    cwd: str | None
    depth: int
    out: list[SimpleCommand] = field(default_factory=list)
    complete: bool = True
    owner: int = 0  # the command whose words are being read

    def new_id(self) -> int:
        return next(_IDS)

    def text(self, node: tree_sitter.Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def parse_script(script: str, *, cwd: str | None = None, _depth: int = 0) -> ParsedScript:
    """Parse ``script`` as bash and return its simple commands in order."""
    src = script.replace("\r\n", "\n").encode("utf-8", "surrogatepass")
    tree = _parser().parse(src)
    walk = _Walk(src=src, cwd=cwd, depth=_depth)
    if tree.root_node.has_error:
        walk.complete = False
    _visit(walk, tree.root_node, nested=False)
    commands: list[SimpleCommand] = []
    for cmd in walk.out:
        expanded = _expand(cmd, _depth)
        if not expanded.complete:
            walk.complete = False
        commands.extend(expanded.commands)
    return ParsedScript(commands=tuple(commands), complete=walk.complete)


def parse_argv(argv: tuple[str | None, ...], *, cwd: str | None = None) -> ParsedScript:
    """The simple commands an argv runs (``["bash", "-lc", script]`` is followed)."""
    return _expand(SimpleCommand(argv=argv, cwd=cwd), 0)


# --- unwrapping -----------------------------------------------------------------------


def _expand(cmd: SimpleCommand, depth: int) -> ParsedScript:
    argv = _unwrap(cmd.argv)
    if argv is None:
        return ParsedScript((replace(cmd, argv=(None,)),), complete=True)
    cmd = replace(cmd, argv=argv)
    name = cmd.name
    if name in _SHELLS:
        script = _shell_script(argv)
        if script is _NOT_A_SCRIPT:
            return ParsedScript((cmd,))
        if script is None or depth >= _MAX_DEPTH:
            return ParsedScript((replace(cmd, argv=(None,)),), complete=False)
        assert isinstance(script, str)
        inner = parse_script(script, cwd=cmd.cwd, _depth=depth + 1)
        return ParsedScript(
            tuple(
                replace(c, nested=c.nested or cmd.nested, part_of=c.part_of or cmd.part_of)
                for c in inner.commands
            ),
            complete=inner.complete,
        )
    return ParsedScript((cmd,))


_NOT_A_SCRIPT = object()


def _shell_script(argv: tuple[str | None, ...]) -> object:
    """The script of ``bash [-opts]c SCRIPT``; ``_NOT_A_SCRIPT`` when there is no ``-c``."""
    for i, arg in enumerate(argv[1:], start=1):
        if arg is None:
            return None
        if arg.startswith("--"):
            continue
        if arg.startswith("-") and len(arg) > 1:
            if "c" in arg[1:]:
                return argv[i + 1] if i + 1 < len(argv) else None
            continue
        return _NOT_A_SCRIPT  # ``bash script.sh``: a script file, not a string
    return _NOT_A_SCRIPT


def _unwrap(argv: tuple[str | None, ...]) -> tuple[str | None, ...] | None:
    """Strip ``timeout``/``env``/``command``/``nice``/``nohup`` wrappers; ``None``: unknown."""
    for _ in range(8):
        if not argv or argv[0] is None:
            return argv
        name = posixpath.basename(argv[0])
        if name not in _WRAPPERS:
            return argv
        rest = list(argv[1:])
        if name == "timeout":
            while rest and rest[0] is not None and rest[0].startswith("-"):
                flag = rest.pop(0)
                if flag in ("-s", "--signal", "-k", "--kill-after") and rest:
                    rest.pop(0)
            if not rest:
                return argv
            rest.pop(0)  # the duration
        elif name == "env":
            while rest and (rest[0] is None or rest[0].startswith("-") or "=" in rest[0]):
                if rest[0] is None:
                    return None
                flag = rest.pop(0)
                if flag in ("-u", "--unset", "-C", "--chdir") and rest:
                    rest.pop(0)
        elif name == "nice":
            while rest and rest[0] is not None and rest[0].startswith("-"):
                flag = rest.pop(0)
                if flag in ("-n", "--adjustment") and rest:
                    rest.pop(0)
        else:
            while rest and rest[0] is not None and rest[0].startswith("-"):
                rest.pop(0)
        if not rest:
            return argv
        argv = tuple(rest)
    return None


# --- tree walking ---------------------------------------------------------------------


def _visit(w: _Walk, node: tree_sitter.Node, *, nested: bool, stdin: str | None = None) -> None:
    t = node.type
    if t == "command":
        _command(w, node, nested=nested, stdin=stdin, redirects=())
    elif t == "redirected_statement":
        _redirected(w, node, nested=nested)
    elif t == "pipeline":
        _pipeline(w, node, nested=nested)
    elif t in ("heredoc_body", "heredoc_start", "heredoc_end", "comment"):
        return
    elif t in _STATEMENT_LIKE:
        # A shell construct that is itself a command (``[[ ]]``, ``export``, loops): it
        # counts as a non-posting command, and commands inside it are visited too.
        w.out.append(SimpleCommand(argv=(None,), nested=nested, cwd=w.cwd, part_of=w.owner))
        for child in node.children:
            _visit(w, child, nested=nested)
    elif (
        t == "variable_assignment"
        and node.parent is not None
        and node.parent.type
        in (
            "program",
            "list",
            "compound_statement",
            "subshell",
        )
    ):
        name = node.child_by_field_name("name")
        ident = w.new_id()
        w.out.append(
            SimpleCommand(
                argv=(None,),
                nested=nested,
                cwd=w.cwd,
                ident=ident,
                part_of=w.owner,
                assigns=w.text(name) if name is not None else None,
            )
        )
        outer, w.owner = w.owner, ident
        for child in node.children:
            _visit(w, child, nested=nested)
        w.owner = outer
    elif t in ("command_substitution", "process_substitution"):
        for child in node.children:
            _visit(w, child, nested=True)
    else:
        for child in node.children:
            _visit(w, child, nested=nested)


def _pipeline(w: _Walk, node: tree_sitter.Node, *, nested: bool) -> None:
    previous: str | None = None
    first = True
    for child in node.children:
        if not child.is_named:
            continue
        before = len(w.out)
        _visit(w, child, nested=nested, stdin=None if first else previous)
        first = False
        produced = w.out[before:]
        previous = _literal_output(produced[-1]) if len(produced) == 1 else None


def _literal_output(cmd: SimpleCommand) -> str | None:
    """What ``cat <<EOF`` or ``echo TEXT`` print, when that is literal."""
    if cmd.name == "cat" and len(cmd.argv) == 1 and cmd.writes is None:
        return cmd.stdin
    if cmd.name == "echo" and cmd.writes is None and all(a is not None for a in cmd.argv):
        args = [a for a in cmd.argv[1:] if a is not None]
        if args and args[0].startswith("-"):
            return None
        return " ".join(args) + "\n"
    return None


def _redirected(w: _Walk, node: tree_sitter.Node, *, nested: bool) -> None:
    body = node.child_by_field_name("body")
    redirects = [c for c in node.children if c.type in ("file_redirect", "heredoc_redirect")]
    extra: list[str | None] = []
    if body is not None and redirects:
        # tree-sitter-bash drops a lone "-" (as in ``-F - <<EOF``) between a command and
        # its heredoc; the words in that gap are the command's arguments.
        gap = w.src[body.end_byte : redirects[0].start_byte].decode("utf-8", "replace")
        for word in gap.split():
            extra.append(word if word.replace("-", "") == "" or word.isalnum() else None)
    if body is not None and body.type == "command":
        _command(w, body, nested=nested, stdin=None, redirects=tuple(redirects), extra=extra)
    elif body is not None:
        _visit(w, body, nested=nested)
    for redirect in redirects:
        if redirect.type == "heredoc_redirect":
            _heredoc_tail(w, redirect, nested=nested)
        else:
            for child in redirect.children:
                if child.type in ("command_substitution", "process_substitution"):
                    _visit(w, child, nested=True)


def _heredoc_tail(w: _Walk, redirect: tree_sitter.Node, *, nested: bool) -> None:
    """Statements tree-sitter places inside a heredoc redirect (``<<EOF | gh ...``)."""
    producer = w.out[-1] if w.out else None
    for child in redirect.children:
        if child.type == "pipeline":
            previous = _literal_output(producer) if producer is not None else None
            for stage in child.children:
                if stage.is_named:
                    before = len(w.out)
                    _visit(w, stage, nested=nested, stdin=previous)
                    produced = w.out[before:]
                    previous = _literal_output(produced[-1]) if len(produced) == 1 else None
        elif child.is_named and child.type not in (
            "heredoc_start",
            "heredoc_body",
            "heredoc_end",
        ):
            _visit(w, child, nested=nested)


def _command(
    w: _Walk,
    node: tree_sitter.Node,
    *,
    nested: bool,
    stdin: str | None,
    redirects: tuple[tree_sitter.Node, ...],
    extra: list[str | None] | None = None,
) -> None:
    argv: list[str | None] = []
    env: list[tuple[str, str | None]] = []
    inline_redirects = list(redirects)
    ident = w.new_id()
    outer, w.owner = w.owner, ident
    try:
        _words(w, node, argv, env, inline_redirects)
    finally:
        w.owner = outer
    uses = tuple(sorted(_variables(w, node)))
    _finish_command(w, argv, env, inline_redirects, extra, stdin, nested, ident, uses)


def _words(
    w: _Walk,
    node: tree_sitter.Node,
    argv: list[str | None],
    env: list[tuple[str, str | None]],
    inline_redirects: list[tree_sitter.Node],
) -> None:
    for child in node.children:
        fname = _field_name(node, child)
        if child.type == "variable_assignment":
            name = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            env.append(
                (
                    w.text(name) if name is not None else "",
                    _value(w, value) if value is not None else "",
                )
            )
            if value is not None:
                _visit_substitutions(w, value)
        elif child.type == "command_name":
            argv.append(_value(w, child.children[0]) if child.children else None)
            _visit_substitutions(w, child)
        elif fname == "argument" or child.type in (
            "word",
            "string",
            "raw_string",
            "number",
            "concatenation",
            "simple_expansion",
            "expansion",
            "command_substitution",
            "ansi_c_string",
        ):
            argv.append(_value(w, child))
            _visit_substitutions(w, child)
        elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            inline_redirects.append(child)


def _variables(w: _Walk, node: tree_sitter.Node) -> set[str]:
    """The variables a command's words expand (``$B``, ``${B}``), outside substitutions."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("command_substitution", "process_substitution"):
            continue
        if n.type in ("simple_expansion", "expansion"):
            for c in n.children:
                if c.type == "variable_name":
                    found.add(w.text(c))
        stack.extend(n.children)
    return found


def _finish_command(
    w: _Walk,
    argv: list[str | None],
    env: list[tuple[str, str | None]],
    inline_redirects: list[tree_sitter.Node],
    extra: list[str | None] | None,
    stdin: str | None,
    nested: bool,
    ident: int,
    uses: tuple[str, ...],
) -> None:
    if extra:
        argv.extend(extra)
    writes: str | None = None
    writes_unknown = False
    for redirect in inline_redirects:
        if redirect.type == "heredoc_redirect":
            stdin = _heredoc_value(w, redirect)
        elif redirect.type == "herestring_redirect":
            value_nodes = [c for c in redirect.children if c.is_named]
            stdin = _value(w, value_nodes[-1]) if value_nodes else None
            stdin = None if stdin is None else stdin + "\n"
        else:
            op = "".join(w.text(c) for c in redirect.children if not c.is_named)
            dest = redirect.child_by_field_name("destination")
            descriptor = redirect.child_by_field_name("descriptor")
            if descriptor is not None and w.text(descriptor) != "1":
                continue
            if op in (">", ">|", "&>"):
                target = _value(w, dest) if dest is not None else None
                if target is None:
                    writes_unknown = True
                else:
                    writes = _join(w.cwd, target)
            elif op in (">>", "&>>"):
                writes_unknown = True
            elif op == "<":
                stdin = None
    if argv and argv[0] == "cd":
        target = argv[1] if len(argv) > 1 else None
        w.cwd = _join(w.cwd, target) if target is not None else None
    w.out.append(
        SimpleCommand(
            argv=tuple(argv),
            env=tuple(env),
            stdin=stdin,
            writes=writes,
            writes_unknown=writes_unknown,
            cwd=w.cwd,
            nested=nested,
            ident=ident,
            part_of=w.owner,
            uses=uses,
        )
    )


def _field_name(parent: tree_sitter.Node, child: tree_sitter.Node) -> str | None:
    for i, c in enumerate(parent.children):
        if c.id == child.id:
            return parent.field_name_for_child(i)
    return None


def _join(cwd: str | None, path: str) -> str:
    if path.startswith("/") or cwd is None:
        return posixpath.normpath(path) if path.startswith("/") else path
    return posixpath.normpath(os.path.join(cwd, path))


def _visit_substitutions(w: _Walk, node: tree_sitter.Node) -> None:
    """Commands inside ``$(...)`` run too, except the ``$(cat <<'EOF' ...)`` body idiom."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("command_substitution", "process_substitution"):
            if _cat_heredoc(w, n) is None:
                _visit(w, n, nested=True)
            continue
        stack.extend(n.children)


# --- values ---------------------------------------------------------------------------

_GLOB = frozenset("*?[")
_BRACES = re.compile(r"(?<!\\)\{[^{}'\"]*(?:,|\.\.)[^{}'\"]*\}")


def _value(w: _Walk, node: tree_sitter.Node) -> str | None:
    t = node.type
    if t in ("word", "number"):
        if node.named_child_count:
            return None
        return _unquoted_word(w.text(node))
    if t == "raw_string":
        return w.text(node)[1:-1]
    if t in ("string", "translated_string"):
        try:
            return _double_quoted(w, node)
        except _Unknown:
            return None
    if t == "ansi_c_string":
        return _ansi_c(w.text(node))
    if t == "concatenation":
        parts: list[str] = []
        for child in node.children:
            v = _value(w, child)
            if v is None:
                return None
            parts.append(v)
        text = "".join(parts)
        if "{" in text and _BRACES.search(w.text(node)):
            return None  # ``{a,b}``: brace expansion the shell would compute
        return text
    return None


def _unquoted_word(text: str) -> str | None:
    if text.startswith("~"):
        return None
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 < len(text):
                if text[i + 1] != "\n":
                    out.append(text[i + 1])
                i += 2
                continue
            i += 1
            continue
        if ch in _GLOB or ch in "$`":
            return None
        if ch == "{" and ("," in text or ".." in text):
            return None
        out.append(ch)
        i += 1
    return "".join(out)


def _double_quoted(w: _Walk, node: tree_sitter.Node) -> str | None:
    src = w.src
    start = node.start_byte + (2 if node.type == "translated_string" else 1)
    end = node.end_byte - 1
    parts: list[str] = []
    pos = start
    for child in node.children:
        if child.start_byte < start or child.end_byte > end:
            continue
        if child.start_byte > pos:
            parts.append(_dq_unescape(src[pos : child.start_byte].decode("utf-8", "replace")))
        if child.type == "string_content":
            parts.append(_dq_unescape(w.text(child)))
        elif child.type == "command_substitution":
            body = _cat_heredoc(w, child)
            if body is None:
                return None
            parts.append(body)
        else:
            return None
        pos = child.end_byte
    if pos < end:
        parts.append(_dq_unescape(src[pos:end].decode("utf-8", "replace")))
    text = "".join(parts)
    return text


def _dq_unescape(text: str) -> str:
    if "$" in text.replace("\\$", "") or "`" in text.replace("\\`", ""):
        # Should not happen (expansions are child nodes), but never guess.
        raise _Unknown
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class _Unknown(Exception):
    pass


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
_ANSI.update({"f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})


def _ansi_c(text: str) -> str | None:
    body = text[2:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI:
            out.append(_ANSI[nxt])
            i += 2
        elif nxt == "x":
            digits = ""
            j = i + 2
            while j < len(body) and len(digits) < 2 and body[j] in "0123456789abcdefABCDEF":
                digits += body[j]
                j += 1
            if not digits:
                return None
            out.append(chr(int(digits, 16)))
            i = j
        else:
            return None  # octal, \u, \c...: rare in bodies; unknown rather than guessed
    return "".join(out)


def _heredoc_value(w: _Walk, redirect: tree_sitter.Node) -> str | None:
    start = end = None
    strip_tabs = False
    for child in redirect.children:
        if child.type == "heredoc_start":
            start = child
        elif child.type == "heredoc_end":
            end = child
        elif child.type == "<<-":
            strip_tabs = True
    if start is None or end is None:
        return None
    delimiter = w.text(start)
    quoted = any(q in delimiter for q in "'\"\\")
    newline = w.src.find(b"\n", start.end_byte)
    if newline < 0 or newline >= end.start_byte:
        raw = ""
    else:
        raw = w.src[newline + 1 : end.start_byte].decode("utf-8", "replace")
    if strip_tabs:
        raw = "\n".join(line.lstrip("\t") for line in raw.split("\n"))
    if quoted:
        return raw
    if "$" in raw or "`" in raw:
        return None
    return raw.replace("\\\n", "").replace("\\\\", "\\")


def _cat_heredoc(w: _Walk, node: tree_sitter.Node) -> str | None:
    """The value of ``$(cat <<'EOF' ... EOF)``, or ``None`` when it is anything else."""
    inner = [c for c in node.children if c.is_named]
    if len(inner) != 1 or inner[0].type != "redirected_statement":
        return None
    body = inner[0].child_by_field_name("body")
    redirects = [c for c in inner[0].children if c.type == "heredoc_redirect"]
    if body is None or body.type != "command" or len(redirects) != 1:
        return None
    if [c for c in inner[0].children if c.is_named and c.id != body.id][1:]:
        return None
    if w.text(body).strip() != "cat":
        return None
    if any(
        c.is_named and c.type not in ("heredoc_start", "heredoc_body", "heredoc_end")
        for c in redirects[0].children
    ):
        return None
    value = _heredoc_value(w, redirects[0])
    return None if value is None else value.rstrip("\n")
