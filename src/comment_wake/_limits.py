"""Limits shared by the wake (which builds notices) and delivery (which hands them out)."""

from __future__ import annotations

__all__ = ["HANDOFF_HEADER_MAX", "NOTICE_BUILD_LIMIT", "NOTICE_TEXT_LIMIT"]

# A notice's text never exceeds this many characters.  Claude Code hands hook output
# (UserPromptSubmit, SessionStart) to the model whole up to 10,000 characters and replaces
# 10,001 with a file and a 2 KB preview: measured on Claude Code 2.1.197 and 2.1.332
# (tests/real_clients, test_claude_hook_output_reaches_the_model_whole_only_up_to_10000_
# characters).  9,500 leaves room for the lines a hook adds around the notices.
NOTICE_TEXT_LIMIT = 9_500

# A hand-off puts one header paragraph (and a blank line) in front of the notice it hands
# on; every builder, and every merge, leaves this much free so a hand-off never cuts.
HANDOFF_HEADER_MAX = 1_000

NOTICE_BUILD_LIMIT = NOTICE_TEXT_LIMIT - HANDOFF_HEADER_MAX
"""What a notice's text may hold when it is built or merged (8,500 characters)."""
