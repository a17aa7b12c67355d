"""Paste a notice into a tmux pane (a last resort: no proof the agent read it).

    python -m comment_wake.delivery.recipes.tmux --target PANE [--tmux PATH] \
        [-L SOCKET_NAME] [--enter-delay 0.3] [--state-dir DIR]

Loads the notice's text into a named buffer, pastes it with bracketed paste (``-p``) so a
multi-line notice is one input, waits ``--enter-delay`` seconds (Codex reads an Enter that
follows a paste burst within 120 ms as a newline), then sends Enter.  A missing or dead
pane is gone (69); a pane in copy mode would swallow the paste, so it is busy (75); no tmux
is refused (78); a failing tmux command exits 1 for a retry.  A notice this recipe pasted
before (its key is kept under the state directory) exits 0 without pasting it again.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from ._common import (
    EXIT_BUSY,
    EXIT_GONE,
    EXIT_REFUSED,
    EXIT_RETRY,
    DeliveredKeys,
    delivered,
    fail,
    read_notice,
    recipe_state_dir,
    repeat,
    run_tool,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m comment_wake.delivery.recipes.tmux")
    parser.add_argument("--target", required=True, help="the pane, e.g. work:agent.0 or %%3")
    parser.add_argument("--tmux", default="tmux", help="the tmux executable")
    parser.add_argument("-L", dest="socket_name", default=None, help="tmux -L socket name")
    parser.add_argument("--enter-delay", type=float, default=0.3)
    parser.add_argument("--state-dir", default=None, help="where delivered keys are kept")
    args = parser.parse_args(argv)
    notice = read_notice(sys.stdin.buffer.read())
    if notice is None:
        return fail(EXIT_REFUSED, "tmux recipe: standard input is not a notice")
    keys = DeliveredKeys(recipe_state_dir(args.state_dir), "tmux")
    if keys.get(notice.key) is not None:
        return repeat("tmux", "")
    tmux = [args.tmux, *(["-L", args.socket_name] if args.socket_name else [])]
    target = ["-t", args.target]

    # display-message answers an unknown target with empty fields and exit 0, so the pane
    # id is what proves the pane exists.
    fields = "#{pane_id}|#{pane_dead}|#{pane_in_mode}"
    probe = run_tool([*tmux, "display-message", "-p", *target, fields], b"")
    if probe is None:
        return fail(EXIT_REFUSED, f"tmux recipe: cannot run {args.tmux!r}")
    pane_id, dead, in_mode = (
        probe.stdout.decode("utf-8", "replace").strip().split("|") + [""] * 3
    )[:3]
    if probe.code != 0 or not pane_id:
        return fail(EXIT_GONE, f"tmux recipe: no pane {args.target!r}")
    if dead == "1":
        return fail(EXIT_GONE, f"tmux recipe: pane {args.target!r} is dead")
    if in_mode == "1":
        return fail(EXIT_BUSY, f"tmux recipe: pane {args.target!r} is in copy mode")
    # Address the pane by its id from here on: a window renamed meanwhile cannot redirect it.
    target = ["-t", pane_id]

    buffer = f"comment-wake-{notice.key[:16]}"
    # A trailing newline inside a bracketed paste is text, not a submit: send Enter apart.
    text = notice.text.rstrip().encode("utf-8")
    for step, data in (
        ([*tmux, "load-buffer", "-b", buffer, "-"], text),
        ([*tmux, "paste-buffer", "-p", "-d", "-b", buffer, *target], b""),
    ):
        ran = run_tool(step, data)
        if ran is None or ran.code != 0:
            return fail(EXIT_RETRY, f"tmux recipe: {step[len(tmux)]} failed")
    time.sleep(args.enter_delay)
    ran = run_tool([*tmux, "send-keys", *target, "Enter"], b"")
    if ran is None or ran.code != 0:
        return fail(EXIT_RETRY, "tmux recipe: send-keys failed")
    return delivered(keys, notice, None)


if __name__ == "__main__":
    sys.exit(main())
