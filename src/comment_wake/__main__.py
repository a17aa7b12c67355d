"""``python -m comment_wake`` and the ``comment-wake`` script (``run``)."""

import sys

INTERRUPTED = 130  # as comment_wake.cli._errors.INTERRUPTED, without importing the CLI first


def run() -> None:
    """Run the command line.  Ctrl-C at any moment after Python started, even while the
    command line is still being imported, exits 130 without a traceback, as git and gh do
    (issue 25, item 18: ``comment-wake mcp`` interrupted at start-up printed 46 lines)."""
    try:
        from comment_wake.cli import main

        status = main()
    except KeyboardInterrupt:
        status = INTERRUPTED
    sys.exit(status)


if __name__ == "__main__":
    run()
