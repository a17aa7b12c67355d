"""Command-publisher adapters for real agents, each runnable with ``python -m``.

- ``comment_wake.delivery.recipes.claude``: headless resume of a Claude Code session.
- ``comment_wake.delivery.recipes.codex``: headless resume of a Codex thread.
- ``comment_wake.delivery.recipes.tmux``: a bracketed paste into a tmux pane.

Each reads the notice JSON the command publisher writes on standard input, hands the
notice's text to the agent, and answers with the command publisher's exit-code contract
(``docs/notice.md``; recipes in ``docs/recipes/``).
"""

__all__: list[str] = []
