"""Compare bashlex and tree-sitter-bash on the shell forms own-post detection must read.

A script, not a test (bashlex is not a dependency): ``pip install bashlex`` then
``python tests/ownpost/compare_shell_parsers.py``. The result is in docs/own-posts.md.
"""

from __future__ import annotations

CASES = {
    "and-or with env prefix": 'cd /x && GH_REPO=o/r gh pr comment 5 --body "hi $X" || true',
    "heredoc on stdin <<'EOF'": "gh pr comment 5 -F - <<'EOF'\nhello $X\nEOF\n",
    "heredoc <<EOF": "gh pr comment 5 -F - <<EOF\nhello\nEOF\n",
    "heredoc <<-EOF": "gh pr comment 5 -F - <<-EOF\n\thello\n\tEOF\n",
    "$(cat <<'EOF' ...) as an argument": "gh pr comment 5 --body \"$(cat <<'EOF'\nbody\nEOF\n)\"",
    "cat > file <<'EOF' then --body-file": (
        "cat > /tmp/b.md <<'EOF'\nbody\nEOF\ngh pr comment 5 -F /tmp/b.md"
    ),
    "pipeline and subshell": "(cd x; gh pr view 5 --json comments | jq .) || echo fail",
    "bash -lc wrapper": "bash -lc 'gh pr comment 5 -b \"x y\"'",
    "[[ test ]] before a post": '[[ -n "$X" ]] && gh pr comment 5 -b ok',
    "case statement": "case $x in a) gh pr comment 5 -b a;; esac",
    "arithmetic expansion": "echo $((1+2)) && gh pr comment 5 -b x",
    "ANSI-C string": "gh pr comment 5 -b $'a\\nb'",
}


def main() -> None:
    import bashlex  # type: ignore[import-untyped]
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    print(f"{'case':40} {'bashlex':10} tree-sitter-bash")
    for name, script in CASES.items():
        try:
            bashlex.parse(script)
            bl = "ok"
        except Exception as exc:  # bashlex raises several exception types
            bl = type(exc).__name__
        ts = "error" if parser.parse(script.encode()).root_node.has_error else "ok"
        print(f"{name:40} {bl:10} {ts}")


if __name__ == "__main__":
    main()
