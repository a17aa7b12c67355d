"""Mutation checks of the comment-wake core, the own-post matcher and the permission cache.

Each mutation is one exact textual edit of one source file that re-opens a hole the
rules close (the seed's list of mutation checks, plus the gap read and the host-keyed
permission cache).  For each one the script applies the edit, runs the test folders
that should notice, records which tests failed, and puts the file back byte for byte.
A mutation no test notices is a missing test: the script exits non-zero.

Run it from anywhere with the project's interpreter::

    .venv/bin/python tests/mutation/run.py            # every mutation
    .venv/bin/python tests/mutation/run.py --list     # the table, without running
    .venv/bin/python tests/mutation/run.py --only floor-removed --all-failures

By default the mutations are applied to a scratch copy of the last commit (``git archive
HEAD``), imported ahead of the editable install through ``PYTHONPATH``, so tests other
people run in the working tree meanwhile never see a mutated file; commit what you want
checked.  ``--in-place`` mutates the working tree itself instead.  Either way the script
refuses to start while a file it mutates has uncommitted changes, refuses a mutation
whose ``old`` snippet does not occur exactly once (a refactor made it stale: update it,
never delete it), requires the unmutated suites to pass first, restores every file in a
``finally`` and checks it is byte-identical afterwards.

The last line printed is one JSON object: ``{"mutations": n, "caught": m}``.
Exit status: 0 all caught, 1 some not caught, 2 the run could not be made.

This file is not a test module: pytest collects nothing from ``tests/mutation/``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

REPO = Path(__file__).resolve().parents[2]
CORE = "src/comment_wake/wake/_core.py"
RATE = "src/comment_wake/wake/_rate.py"
RULES = "src/comment_wake/wake/_rules.py"
MENTION = "src/comment_wake/wake/_mention.py"
EXPLAIN = "src/comment_wake/app/_explain.py"
POSTS = "src/comment_wake/ownpost/_posts.py"
READERS = "src/comment_wake/ownpost/_readers.py"
MATCH = "src/comment_wake/ownpost/_match.py"
PERMISSIONS = "monitor/src/review_monitor/_permissions.py"
POSTING = "monitor/src/review_monitor/_posts.py"
POST_SENDER = "src/comment_wake/delivery/_posts.py"
POST_PLAN = "src/comment_wake/delivery/_post_plan.py"
SEEN = "monitor/src/review_monitor/_seen.py"
BADGE = "monitor/src/review_monitor/_badge.py"
NOTICES = "monitor/src/review_monitor/_notices.py"
SWEEP_BOOK = "monitor/src/review_monitor/_sweep_book.py"
FENCE_WRITER = "fence/src/untrusted_fence/_writer.py"
FENCE_RENDER = "fence/src/untrusted_fence/_render.py"
FENCE_SETTLE = "fence/src/untrusted_fence/_settle.py"
FENCE_CLEAN = "fence/src/untrusted_fence/_clean.py"
FENCE_MARKERS = "fence/src/untrusted_fence/_markers.py"
FENCE_FENCE = "fence/src/untrusted_fence/_fence.py"
FENCE_ANSI = "fence/src/untrusted_fence/_ansi.py"
DELIVERY_LOOP = "src/comment_wake/delivery/_loop.py"
CLI_MAIN = "src/comment_wake/cli/__init__.py"
MISSING = "monitor/src/review_monitor/_missing.py"
POLLER = "monitor/src/review_monitor/_poller.py"
OBSERVATIONS = "monitor/src/review_monitor/_observations.py"
REGISTRY_SNAPSHOT = "src/comment_wake/registry/_snapshot.py"
REGISTRY = "src/comment_wake/registry/_registry.py"
TOOLS = "src/comment_wake/tools/_tools.py"
BUCKETS = "src/comment_wake/store/_buckets.py"
CONTENT = "src/comment_wake/store/_content.py"
SERVICE = "src/comment_wake/service/_service.py"
SYNC_STORE = "monitor/src/review_monitor/_store/_sync.py"
APP_ROOT = "src/comment_wake/app/_root.py"
MONITOR = "monitor/src/review_monitor/_monitor.py"
FLEET = "monitor/src/review_monitor/_fleet.py"
JANITOR = "src/comment_wake/fleet/_janitor.py"
LEASES = "monitor/src/review_monitor/_store/_leases.py"
OWNERS = "monitor/src/review_monitor/_store/_owners.py"
VIRTUAL_CLOCK = "monitor/src/review_monitor/testing/_clock.py"

WAKE_SUITES = ("tests/wake", "tests/replay")
OWNPOST_SUITES = ("tests/ownpost", "tests/replay")
CLIENT_SUITES = ("tests/monitor/client", "tests/replay")
TRUST_SUITES = ("tests/wake", "tests/service")
NOTICES_SUITES = ("tests/monitor/notices",)
EXPLAIN_SUITES = ("tests/daemon/test_records.py",)
SWEEP_SUITES = ("tests/monitor/sweep", "tests/monitor/e2e/test_sweep_e2e.py")
FENCE_SUITES = ("tests/fence",)
# Source roots put ahead of the editable install when running on a scratch copy.
SOURCE_ROOTS = ("src", "monitor/src", "fence/src")
PYTEST_TIMEOUT_S = 1200


@dataclass(frozen=True, slots=True)
class Mutation:
    name: str
    check: str  # which rule it breaks, in the seed's or the words
    path: str  # relative to the repository root
    old: str  # must occur exactly once in the file
    new: str
    suites: tuple[str, ...]


STRANGER_COST = ("tests/service/test_strangers_cost_nothing.py",)
# Killed by the race's postgresql case (its postgres_url fixture: run with the test server's
# plugin); on SQLite a lock is a no-op, BEGIN IMMEDIATE serialises the writers anyway.
RACES = ("tests/fleet/test_invariant_races.py",)
CONTENT_SUITES = ("tests/delivery/loop/test_content_bucket.py", "tests/delivery/loop/test_ack.py")
DEFERRED_GAPS = ("tests/service/test_deferred_gaps.py",)

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "stranger-review-read-in-full",
        "issue 25: a stranger's review is read to its first page of inline comments only",
        BADGE,
        "            if review_id in first_page_only:\n",
        "            if False:\n",
        STRANGER_COST,
    ),
    Mutation(
        "blank-stops-on-a-first-page",
        "issue 25: a partial read can pass blank, never stop on it",
        RULES,
        "    if s.read.more_inline is not None:\n        return None\n",
        "    if False:\n        return None\n",
        STRANGER_COST,
    ),
    Mutation(
        "writer-review-not-read-whole",
        "issue 25: a writer's review is read whole after write-access",
        RULES,
        '        return Ask("rest", s.item.id)  # a writer\'s review: now read all of it\n',
        "        pass\n",
        STRANGER_COST,
    ),
    Mutation(
        "blank-renders-before-write-access",
        "issue 24: the blank rule renders a stranger's text (a 64 KiB ']](' costs seconds)",
        RULES,
        '    return Stop("blank") if is_blank_item(s.read) else None\n',
        '    return Stop("blank") if shows_nothing_item(s.read) else None\n',
        ("tests/service/test_strangers_cost_nothing.py", "tests/wake/test_rule_order.py"),
    ),
    Mutation(
        "floor-removed",
        "seed: removing the floor fails the replay test",
        SEEN,
        "(i for i in items if i.id not in known and (floor is None or i.created_at > floor)),",
        "(i for i in items if i.id not in known),",
        WAKE_SUITES,
    ),
    Mutation(
        "links-from-read-gh-pr-view",
        "seed: taking links from read calls fails the gh pr view test",
        POSTS,
        '    if argv[1] == "api":\n        return _gh_api(cmd, argv[2:], env)\n    return None\n',
        '    if argv[1] == "api":\n        return _gh_api(cmd, argv[2:], env)\n'
        '    if argv[1:3] == ("pr", "view"):\n'
        '        return PlannedPost(tool="gh pr view", pr=NamedPr(named=False), body_known=False)\n'
        "    return None\n",
        OWNPOST_SUITES,
    ),
    Mutation(
        "links-from-read-gh-api-get",
        "seed: taking links from read calls fails the gh api GET test",
        POSTS,
        '        if method is None or method.upper() != "POST":\n            return None\n',
        "        if method is None:\n            return None\n",
        OWNPOST_SUITES,
    ),
    Mutation(
        "sibling-bodies-match",
        'seed: matching sibling bodies fails the "Thanks!" test',
        MATCH,
        '    if post.role == "sibling":\n        return False\n',
        '    if post.role == "sibling":\n'
        "        return _same_pr(post.pr, pr, require_repo=False)\n",
        OWNPOST_SUITES,
    ),
    Mutation(
        "retry-timer-first-pending-only",
        "seed: removing the earliest-due retry timer fails the stranded-retry test",
        CORE,
        "    due = [p.retry_at for p in mark.pending]\n",
        "    due = [p.retry_at for p in mark.pending[:1]]\n",
        WAKE_SUITES,
    ),
    Mutation(
        "retry-timer-latest-due",
        "seed: removing the earliest-due retry timer (timer set for the latest instead)",
        CORE,
        "    return min(due, default=None)\n",
        "    return max(due, default=None)\n",
        WAKE_SUITES,
    ),
    Mutation(
        "grace-window-removed",
        "seed: removing the grace window fails the late-comment test",
        SEEN,
        "    return None if newest is None else newest - lag\n",
        "    return newest\n",
        WAKE_SUITES,
    ),
    Mutation(
        "posting-call-links-regardless",
        "seed: taking a posting call's links regardless fails the chained-read test",
        READERS,
        "        links_count = plan.all_post and len(links) <= len(plan.posts)\n",
        "        links_count = True\n",
        OWNPOST_SUITES,
    ),
    Mutation(
        "posting-call-links-beyond-its-posts",
        "seed: a call that printed more links than it posted still counts its links",
        READERS,
        "        links_count = plan.all_post and len(links) <= len(plan.posts)\n",
        "        links_count = plan.all_post\n",
        OWNPOST_SUITES,
    ),
    Mutation(
        "flood-gap-floor-removed",
        "seed: removing the flood-gap floor fails the flood-skip test (gap_pages = 0)",
        CORE,
        "    raises = (lagged, whole_from)\n",
        "    raises = (lagged, None)\n",
        WAKE_SUITES,
    ),
    Mutation(
        "p8-floor-raised-first",
        "seed: the previous order (floor raised before new comments) fails the P8 test",
        CORE,
        "    floor = mark.floor\n    before: dict",
        "    floor = _max_time(mark.floor, whole_from)\n    before: dict",
        WAKE_SUITES,
    ),
    Mutation(
        "non-gh-command-harmless",
        "seed: treating a non-gh command as harmless fails the curl test",
        POSTS,
        "            continue  # its output became the post's body: the post prints the only "
        "link\n        others += 1\n",
        "            continue  # its output became the post's body: the post prints the only "
        'link\n        others += 1 if cmd.name == "gh" else 0\n',
        OWNPOST_SUITES,
    ),
    Mutation(
        "retry-timer-kept-while-merged",
        "seed: leaving the retry time set after a merge fails the reopen test (timer runs)",
        CORE,
        "    if not mark.active:\n        return None\n    due = ",
        "    due = ",
        WAKE_SUITES,
    ),
    Mutation(
        "retry-timer-not-rearmed-on-reopen",
        "seed: leaving the retry time set after a merge fails the reopen test (stranded)",
        CORE,
        "        pending=tuple(pending),\n        active=ctx.eligible,\n",
        "        pending=tuple(pending),\n        active=mark.active and ctx.eligible,\n",
        WAKE_SUITES,
    ),
    Mutation(
        "rate-limit-removed",
        "seed: removing the rate limit fails four tests, including the loop cap",
        CORE,
        "        release = release_at(lane_wakes, ctx.config, bots=bots)\n        limited = ",
        "        release = None\n        limited = ",
        WAKE_SUITES,
    ),
    Mutation(
        "trusted-bots-share-people-windows",
        "issue 27: a wake carrying only trusted bots' comments counts in the bots' own "
        "windows, never in people's",
        CORE,
        "    if all(item.id in ctx.bots for item, _ in batch):\n",
        "    if False:\n",
        WAKE_SUITES,
    ),
    Mutation(
        "mention-found-in-fenced-code",
        "issue 27: a handle inside fenced code is not a mention",
        MENTION,
        '        if m is not None and not (m["fence"][0] == "`" and "`" in line[m.end() :]):\n'
        '            fence = m["fence"]\n',
        '        if False:\n            fence = m["fence"]\n',
        WAKE_SUITES,
    ),
    Mutation(
        "rate-limit-min-gap-removed",
        "issue: wakes at least 1 minute apart",
        RATE,
        "    earliest = ordered[-1] + config.wake_min_gap\n",
        "    earliest = ordered[-1]\n",
        WAKE_SUITES,
    ),
    Mutation(
        "rate-limit-hourly-cap-removed",
        "issue: at most 6 wakes in any 60 minutes",
        RATE,
        "        (per_hour, config.wake_hour_window),\n",
        "",
        WAKE_SUITES,
    ),
    Mutation(
        "rate-limit-daily-cap-removed",
        "issue: at most 24 wakes in any 24 hours",
        RATE,
        "        (per_day, config.wake_day_window),\n",
        "",
        WAKE_SUITES,
    ),
    Mutation(
        "handled-capacity-rise-removed",
        "seed: more than 64 handled inside the window raises the floor",
        SEEN,
        "    if excess > 0:\n",
        "    if False:\n",
        WAKE_SUITES,
    ),
    Mutation(
        "gap-read-removed",
        "issue: after a flood, read the gap back to the floor (never asked for)",
        CORE,
        "        elif readable:\n",
        "        elif False:\n",
        WAKE_SUITES,
    ),
    Mutation(
        "flood-continuity-by-time",
        "issue 25: a listing that overlaps the last one by id needs no flood read (a trickle "
        "drained the hourly pages)",
        CORE,
        "            and not set(last).isdisjoint(i.id for i in listed)\n",
        "            and False\n",
        WAKE_SUITES,
    ),
    Mutation(
        "late-check-floor-not-held",
        "issue 25: the floor waits for a deferred late-listing check (a comment listed late "
        "fell below it)",
        CORE,
        "        lagged = min(lagged, look.hold)  # the floor waits for a deferred late check\n",
        "        pass\n",
        WAKE_SUITES,
    ),
    Mutation(
        "flood-gap-not-recorded",
        "issue 25: what no read covered is a recorded flood-gap",
        CORE,
        "        gaps = _flood_gaps(ctx, floor, look)\n",
        "        gaps = ()\n",
        WAKE_SUITES,
    ),
    Mutation(
        "gap-read-items-ignored",
        "issue: the comments a gap read found are decided too",
        CORE,
        "        for item in (*(gap.items if gap is not None else ()), *listed):\n",
        "        for item in listed:\n",
        WAKE_SUITES,
    ),
    Mutation(
        "core-recomputes-trust",
        "issue: one trust decision, the permission answer's trusted (maintain trusted)",
        RULES,
        "    if answer.trusted:",
        "    if answer.permission in s.monitor.trusted_permissions:",
        TRUST_SUITES,
    ),
    Mutation(
        "rules-trace-dropped",
        "issue: a decision carries the trace of the rules its comment passed",
        CORE,
        "        if verdict is None or isinstance(verdict, Note):\n"
        "            passed.append(rule.name)\n",
        "        if verdict is None or isinstance(verdict, Note):\n            pass\n",
        WAKE_SUITES,
    ),
    Mutation(
        "explain-infers-despite-trace",
        "issue: explain shows the recorded trace instead of inferring it from the reason",
        EXPLAIN,
        "        passed = set(r.rules)\n",
        "        passed = set(_inferred_passes(r))\n",
        EXPLAIN_SUITES,
    ),
    Mutation(
        "pushed-out-per-connection-ignored",
        "seed: a skipped comment is never delivered later, even if the flood is deleted "
        "(when an older item of the other connection kept the floor low)",
        CORE,
        "    return limit is not None and item.created_at < limit\n",
        "    return False\n",
        WAKE_SUITES,
    ),
    Mutation(
        "monitor-reviews-floor-ignored",
        "issue: the monitor's notices use the seen set's floor (a deleted flood replays)",
        NOTICES,
        "    candidates = unseen(new.reviews, mark.reviews_floor, ",
        "    candidates = unseen(new.reviews, None, ",
        NOTICES_SUITES,
    ),
    Mutation(
        "permission-cache-ignores-host",
        "issue: the permission cache is keyed by host, repo and login",
        PERMISSIONS,
        "        return (self._api.host.casefold(), repo.casefold(), login.casefold())\n",
        '        return ("", repo.casefold(), login.casefold())\n',
        CLIENT_SUITES,
    ),
    Mutation(
        "held-released-unread",
        "issue: held comments are read again at their release (deleted, minimized, revoked)",
        CORE,
        "    if h.item.id not in ctx.facts.rereads:\n        return _Need(reread=h.item.id)\n",
        "    if h.item.id not in ctx.facts.rereads:\n        return _Trusted(h.detail)\n",
        WAKE_SUITES,
    ),
    Mutation(
        "future-wake-kept-in-the-future",
        "issue: after the clock steps back, a wake waits at most the windows' lengths",
        RATE,
        "    return tuple(sorted(min(w, now) for w in wakes if w > now - keep))\n",
        "    return tuple(sorted(w for w in wakes if w > now - keep))\n",
        WAKE_SUITES,
    ),
    Mutation(
        "sweep-settling-skipped",
        "issue: a PR stays dirty until a badge is read sweep_grace after its updatedAt",
        SWEEP_BOOK,
        "        if badge_at < swept.updated_at + self.grace:\n",
        "        if False:\n",
        SWEEP_SUITES,
    ),
    Mutation(
        "sweep-safety-net-off",
        "issue: every badge is read at least once per full_badge_interval",
        SWEEP_BOOK,
        "        if now + interval > badge_at + self.full_interval:\n",
        "        if False:\n",
        SWEEP_SUITES,
    ),
    Mutation(
        "sweep-net-slots-off",
        "issue 28: the safety net's reads are spread over its rounds, no round over 12 points",
        SWEEP_BOOK,
        "        if badge_at < net_slot(pr, now + interval, self.full_interval) - interval / 2:\n",
        "        if False:\n",
        SWEEP_SUITES,
    ),
    Mutation(
        "slot-reads-unpacked",
        "issue 28: the net's slot reads fill whole batches (a batch of 74 costs what 10 do)",
        SWEEP_BOOK,
        "        return by_slot[: fill + (len(by_slot) - fill) // batch * batch]\n",
        "        return by_slot\n",
        SWEEP_SUITES,
    ),
    Mutation(
        "sweep-fields-ignored",
        "issue: a field the sweep shows changed (a failing check) gets a full badge",
        SWEEP_BOOK,
        "        if swept != entry:\n",
        "        if swept.updated_at != entry.updated_at:\n",
        SWEEP_SUITES,
    ),
    Mutation(
        "fence-comment-shown",
        "fence: an HTML comment is hidden from readers, so the view puts it in a hidden mark",
        FENCE_WRITER,
        '        w.emit("hidden", serialised[: serialised.find("-->", 4) + 3])\n',
        '        w.emit("text", serialised[: serialised.find("-->", 4) + 3])\n',
        FENCE_SUITES,
    ),
    Mutation(
        "fence-rp-content-shown",
        "fence: <rp> content shows only in browsers without ruby: hidden",
        FENCE_WRITER,
        '    elif tag in REMOVED_WITH_CONTENT or tag == "rp":  # <rp>: only browsers without ruby',
        "    elif tag in REMOVED_WITH_CONTENT:  # <rp>: only browsers without ruby",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-collapsed-details-shown-open",
        "fence: a collapsed <details>'s content is marked collapsed, not shown as if open",
        FENCE_WRITER,
        '    if "open" in node.attributes:\n        yield children\n',
        "    if True:\n        yield children\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-attributes-never-hidden",
        "fence: an attribute no reader sees (a title, a class) is shown in a hidden mark",
        FENCE_WRITER,
        "        if rule is None or not rule.fullmatch(value):\n",
        "        if False:\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-cmark-attribute-value-unchecked",
        "fence: an attribute cmark-gfm writes is structure only with cmark-gfm's own value",
        FENCE_WRITER,
        "        if rule is None or not rule.fullmatch(value):\n",
        "        if rule is None:\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-script-text-shown",
        "fence: <script> and <style> go with their content: their text is hidden",
        FENCE_WRITER,
        '        _attributes(node, tag, w)\n        w.emit("hidden", text_of(node))\n',
        '        _attributes(node, tag, w)\n        w.emit("text", text_of(node))\n',
        FENCE_SUITES,
    ),
    Mutation(
        "fence-notes-shown",
        "fence: what cmark-gfm or the HTML parser dropped (a definition) is put back hidden",
        FENCE_WRITER,
        '                w.emit("hidden", w.texts[int(number)])\n',
        '                w.emit("text", w.texts[int(number)])\n',
        FENCE_SUITES,
    ),
    Mutation(
        "fence-definitions-dropped",
        "fence: link-reference and footnote definitions cmark-gfm consumes are shown hidden",
        FENCE_RENDER,
        '    definitions = _definitions(text, positioned) if "]:" in text else {}\n',
        "    definitions: dict[int, str] = {}\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-info-words-and-extra-cells-dropped",
        "fence: a code fence's info words after the first and a row's extra cells are hidden",
        FENCE_RENDER,
        '        if kept and name in ("pre", "tr") and 0 < line <= len(lines):\n',
        "        if False:\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-parser-dropped-tokens-lost",
        "fence: a doctype or a duplicate attribute the HTML parser drops is shown hidden",
        FENCE_RENDER,
        "    out = _dropped_tokens(out, note)\n",
        "    pass\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-markers-looked-for-only-in-the-view",
        "fence: markers are looked for in the plain text too (E**N**D, E<!-- -->ND read END)",
        FENCE_SETTLE,
        '    found = marker_spans("".join([_part(k, t) for k, t in pieces]))\n',
        "    found = []\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-hidden-fragments-not-decoded",
        "fence: a hidden fragment is searched entity-decoded and tag-cut (&#69;ND in a comment)",
        FENCE_SETTLE,
        '        if kind in ("hidden", "raw", "target"):\n',
        "        if False:\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-mark-brackets-replaced",
        "fence: a marker's replacement never takes a mark's bracket (the marks stay balanced)",
        FENCE_SETTLE,
        "        if kind in _BRACKETS:\n            while",
        "        if False:\n            while",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-cleaning-hidden-part-shown",
        "fence: what cleaning finds hidden (tag characters, concealed ANSI) is in a hidden mark",
        FENCE_SETTLE,
        '            if kind == "hidden" or part_kind == "hidden":\n',
        '            if kind == "hidden":\n',
        FENCE_SUITES,
    ),
    Mutation(
        "fence-concealed-ansi-shown",
        "fence: ANSI text in its own background colour is hidden",
        FENCE_CLEAN,
        '        out += [("shown", _chars(ansi.text[pos:s], code)), ("hidden", _chars(',
        '        out += [("shown", _chars(ansi.text[pos:s], code)), ("shown", _chars(',
        FENCE_SUITES,
    ),
    Mutation(
        "fence-blank-prefix-match",
        "issue 24: blank is only white space and invisible characters (not any text's prefix)",
        FENCE_CLEAN,
        "    return _BLANK_RE.fullmatch(text) is not None\n",
        "    return _BLANK_RE.match(text) is not None\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-markers-not-decoded",
        "fence: markers are looked for with entities decoded and tags cut (&#69;ND, E<b>N</b>D)",
        FENCE_MARKERS,
        "    if decode:\n        for edits in _edit_lists(text):\n",
        "    if False:\n        for edits in _edit_lists(text):\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-markers-across-lines-missed",
        "fence: the fence's own syntax is found across separators and line breaks",
        FENCE_MARKERS,
        "    return [(s, e) for s, e in spans if e > s] + _cross_spans(rules, view)\n",
        "    return [(s, e) for s, e in spans if e > s]\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-markers-lookalikes-missed",
        "fence: markers are looked for in the lookalike fold too (Cyrillic, outlined letters)",
        FENCE_MARKERS,
        "    return (_Rules(casefold, casefold_view=True), _Rules(fold, casefold_view=False))\n",
        "    return (_Rules(casefold, casefold_view=True),)\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-line-markers-only-on-the-first-line",
        "fence: a whole-line marker (a role line, END OF COMMENT) is found on any line",
        FENCE_MARKERS,
        "    spans += [(m.start() + 1, m.end()) for m in rules.next_lines.finditer(view)]\n",
        "",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-nonce-never-redrawn",
        "seed: the nonce is drawn again while the body holds it",
        FENCE_FENCE,
        "    return not any(n in v for v in views for n in needles)\n",
        "    return True\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-nonce-lookalikes-unchecked",
        "fence: the nonce is drawn again while a casefold or lookalike view of the body holds it",
        FENCE_FENCE,
        "    views = [v.translate(_SEPARATORS) for v in (casefold(body), fold(body))]\n",
        "    views = [body]\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-cut-splits-hidden-mark",
        "fence: a cut never falls inside a hidden mark (its close would be lost)",
        FENCE_FENCE,
        '        if kind == "mark" and text == HIDDEN_OPEN:\n',
        "        if False:\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-cut-leaves-collapsed-open",
        "fence: a cut inside collapsed content closes the collapsed mark",
        FENCE_FENCE,
        '    out += [("close", "\\u27e7")] * opened\n',
        "",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-cut-not-settled",
        "fence: a cut can complete a marker: the cut view is settled again",
        FENCE_FENCE,
        "        kept = list(settle(kept))\n",
        "        pass\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-source-line-not-settled",
        "fence: the source line and the view can make a marker: the body is settled again",
        FENCE_FENCE,
        "        pieces = list(settle(pieces))\n",
        "        pass\n",
        FENCE_SUITES,
    ),
    Mutation(
        "fence-sgr-padding-shown",
        "fence: a zero-padded SGR parameter (08, 041) conceals as the unpadded one does",
        FENCE_ANSI,
        "?0*(?:8|4[0-8]|10[0-7])",
        "?(?:8|4[0-8]|10[0-7])",
        FENCE_SUITES,
    ),
    Mutation(
        "merge-judged-against-the-head",
        "issue 25: a busy head takes in later notices only while the merge fits the limit",
        DELIVERY_LOOP,
        "            if not can_merge(merged, e.notice):\n",
        "            if not can_merge(head.notice, e.notice):\n",
        ("tests/delivery/loop/test_outcomes.py",),
    ),
    Mutation(
        "hook-exits-2",
        "issue 25: a hook's inbox take never exits 2, which Claude Code reads as 'block'",
        CLI_MAIN,
        "            status = _NOT_BLOCKING\n",
        "            pass\n",
        ("tests/delivery/test_cli_inbox_hook_never_blocks.py",),
    ),
    Mutation(
        "missing-pr-flat-interval",
        "issue 25: a PR answered NOT_FOUND is read again after 1, 2, 4, 8 minutes, not only "
        "every missing_pr_interval",
        MISSING,
        "    return min(cap, MISSING_FIRST_RETRY * (1 << doublings))\n",
        "    return cap\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "poll-request-ignores-the-gap",
        "issue 25: a poll request is served no sooner than hint_min_gap after the last read",
        POLLER,
        "            if (last := self._looked.get(pr)) is None or last + gap <= now\n",
        "            if True\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "first-look-takes-all-as-history",
        "issue 25: a comment made after the watch began is new at the first look",
        SEEN,
        "    return None if watched_since is None else watched_since - WATCH_CLOCK_SKEW\n",
        "    return None\n",
        ("tests/wake", "tests/monitor/notices"),
    ),
    Mutation(
        "rewatch-forgets-what-was-decided",
        "issue 25: a re-watch starts again but never decides again what the old watch decided",
        CORE,
        "        handled=ended.mark.handled,\n",
        "        handled=(),\n",
        WAKE_SUITES,
    ),
    Mutation(
        "snapshot-reloaded-every-look",
        "issue 26: a look reads the binding from the registry snapshot, not every record",
        REGISTRY_SNAPSHOT,
        "        return self._snapshot.binding(pr)\n",
        "        return self._registry.snapshot().binding(pr)\n",
        ("tests/app/test_quiet_rounds.py",),
    ),
    Mutation(
        "registry-write-keeps-the-version",
        "issue 26: every registry write moves the registry version in its transaction",
        REGISTRY,
        "    put_record(tx, namespace, key, blob)\n    bump_registry(tx)\n",
        "    put_record(tx, namespace, key, blob)\n",
        ("tests/app/registry/test_version.py",),
    ),
    Mutation(
        "commit-ignores-a-moved-registry",
        "issue 26: a commit re-reads the registry version and steps again when it moved",
        SERVICE,
        "                if version is not None and read_registry_version(tx) != version:\n",
        "                if False:\n",
        ("tests/service/test_registry_moves.py",),
    ),
    Mutation(
        "quiet-prs-observed-again",
        "issue 26: a PR the sweep proves unchanged is told nothing",
        POLLER,
        "            await self._end_round()\n",
        "            for pr in quiet:\n"
        "                if (seen := self.observations.latest(pr)) is not None:\n"
        "                    self.observations.publish(seen)\n"
        "            await self._end_round()\n",
        ("tests/monitor/e2e/test_sweep_e2e.py", "tests/app/test_quiet_rounds.py"),
    ),
    Mutation(
        "repeats-told-to-deciders",
        "issue 28: the safety net's read that finds nothing new tells no decider",
        OBSERVATIONS,
        "            return  # nothing new to decide on\n",
        "            pass\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "repeats-kept-from-the-stream",
        "issue 28: the reader ships repeats, so a new reader's sweep book knows every badge",
        OBSERVATIONS,
        '            and not getattr(listener, "keeps_repeats", False)\n',
        "            and True\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "owner-never-reads-unread-prs",
        "issue 28: a PR the reader cannot read is polled by its owner, as before fleet mode",
        MONITOR,
        "                tg.start_soon(self._poll_unread, fleet, identity)\n",
        "                pass\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "new-reader-forgets-missing-prs",
        "issue 28: a new reader starts from the last one's NOT_FOUND backoff",
        MONITOR,
        "        poller.seed_missing(state.missing)  # not read again before their backoff ends\n",
        "        pass\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "reader-state-never-saved",
        "issue 28: the reader keeps its failover state in a table",
        MONITOR,
        "            tg.start_soon(self._keep_reader_state, identity, poller, state)\n",
        "            pass\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "budget-row-rewritten-every-tick",
        "issue 28: a host writes the shared budget row only when it heard something new",
        MONITOR,
        "            if limits and limits != written:\n",
        "            if limits:\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "virtual-clock-wakes-one-sleeper-a-pass",
        "the test clock wakes every sleeper due at one instant together, as an event loop",
        VIRTUAL_CLOCK,
        "            while self._sleepers and self._sleepers[0][0] == due:\n",
        "            if self._sleepers and self._sleepers[0][0] == due:\n",
        ("tests/monitor/poller/test_virtual_clock.py",),
    ),
    Mutation(
        "fleet-scan-reads-other-hosts-transcripts",
        "issue 28: a fleet host's own-post scan reads only its own host's agents' files",
        REGISTRY_SNAPSHOT,
        "            if here is None or agent.host_id is None or agent.host_id == here\n",
        "            if True\n",
        ("tests/fleet/test_transcript_reach.py",),
    ),
    Mutation(
        "settling-prs-mixed-with-changes",
        "issue 28: a round's changes are read before its settling PRs (one checks query)",
        POLLER,
        '                (settling if reason == "settling" else changed).append(pr)\n',
        "                changed.append(pr)\n",
        ("tests/monitor/e2e/test_sweep_e2e.py",),
    ),
    Mutation(
        "fleet-bodies-not-shipped",
        "issue 28: the reader ships a batch's prefetched bodies in the observations",
        FLEET,
        "                item = msgspec.structs.replace(item, bodies=found)\n",
        "                pass\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "unsettled-repeat-not-retold",
        "issue 28: a listener that failed is told the PR again though a repeat replaced it",
        OBSERVATIONS,
        "            not again\n",
        "            True\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "follower-trusts-the-readers-repeat",
        "issue 28: an owner is told a repeat that replaced an observation it missed",
        FLEET,
        "                item = msgspec.structs.replace(item, repeat=item.repeats(latest))\n",
        "                pass\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "full-window-repeats",
        "issue 28: a full window is never a repeat (a comment listed late may hide behind it)",
        OBSERVATIONS,
        "            and not badge.comments_page.has_previous_page\n",
        "            and True\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "unsettled-observation-dropped",
        "issue 26: a listener that raised gets the observation again at the next round's end",
        OBSERVATIONS,
        "                self._unsettled[listener.name][pr] = self._rounds\n",
        "                pass\n",
        ("tests/monitor/poller",),
    ),
    Mutation(
        "notices-without-timers",
        "issue 26: a waiting verdict on a quiet PR is retried by the notices' own timer",
        NOTICES,
        "        due = min((w.retry_at for w in mark.waiting), default=None)\n",
        "        due = None\n",
        NOTICES_SUITES,
    ),
    Mutation(
        "own-post-id-ignores-recorded-ids",
        "issue 27: a post the tools made is passed over by the id GitHub gave it, unread",
        RULES,
        "    known = posts.ids.get(s.item.id)\n",
        "    known = None\n",
        ("tests/wake/test_own_post_id.py",),
    ),
    Mutation(
        "own-post-matched-by-marker-alone",
        "issue 27: before its id is known, a post matches its intent's marker and body hash, "
        "never a marker alone (a changed text wakes)",
        RULES,
        "            if intent is not None and intent[1] == text_sha256(text):\n",
        "            if True:\n",
        ("tests/wake/test_own_post_id.py",),
    ),
    Mutation(
        "review-commented-check-dropped",
        "issue 27: a review GitHub answers in any state but COMMENTED is an error",
        POSTING,
        '    if made.state != "COMMENTED" or made.submitted_at is None:\n',
        "    if made.submitted_at is None:\n",
        ("tests/monitor/client", "tests/monitor/fake"),
    ),
    Mutation(
        "lost-post-adopts-another-author",
        "issue 27: a post whose answer was lost is found only among the token login's items",
        POST_SENDER,
        "    return item.author is not None and item.author.casefold() == viewer.casefold()\n",
        "    return True\n",
        ("tests/delivery/loop/test_posts.py",),
    ),
    Mutation(
        "lost-post-sent-again-unsearched",
        "issue 27: a post left sending is looked for twice before it is sent again",
        POST_PLAN,
        "    return Search(final=True) if now >= last else Wait(last)\n",
        "    return Create()\n",
        ("tests/delivery/loop/test_posts.py",),
    ),
    Mutation(
        "fence-not-checked-at-commit",
        "issue 28: a mark's commit writes nothing when its PR changed owner since the look",
        SYNC_STORE,
        "            if fence is not None and not check_fence(tx, pr, fence):\n",
        "            if False:\n",
        ("tests/service/test_fence.py", "tests/monitor/store/test_owners.py"),
    ),
    Mutation(
        "another-host-decides-a-pr",
        "issue 28: a host decides only the PRs it owns",
        SERVICE,
        "            if owner is None or owner.host_id != self._host_id:\n",
        "            if owner is None:\n",
        ("tests/service/test_fence.py",),
    ),
    Mutation(
        "rebind-keeps-the-epoch",
        "issue 28: a new owner moves the epoch on, so a deposed host's fence fails",
        OWNERS,
        "    epoch = 1 if before is None else before.epoch + 1\n",
        "    epoch = 1 if before is None else before.epoch\n",
        ("tests/monitor/store/test_owners.py", "tests/app/registry/test_pr_owners.py"),
    ),
    Mutation(
        "registry-lock-dropped",
        "issue 28: a registry write takes the registry's lock before its first read (one live "
        "worker per PR, one binding per worker, one kind per id)",
        REGISTRY,
        "            tx.lock(_REGISTRY_LOCK)\n",
        "            pass\n",
        RACES,
    ),
    Mutation(
        "post-cap-lock-dropped",
        "issue 28: the hourly post cap is counted under the worker's post lock",
        TOOLS,
        "        tx.lock(_post_lock(self.worker))\n        made = count_posts(",
        "        made = count_posts(",
        RACES,
    ),
    Mutation(
        "progress-lock-dropped",
        "issue 28: a progress call looks for the progress comment under the worker's post lock",
        TOOLS,
        "            # progress comment and both create one.\n"
        "            tx.lock(_post_lock(self.worker))\n",
        "            # progress comment and both create one.\n",
        RACES,
    ),
    Mutation(
        "message-cap-lock-dropped",
        "issue 28: the message cap per PR is counted under the PR's message-cap lock",
        TOOLS,
        '            tx.lock(f"message-cap:{record.pr.key_text}")\n',
        "",
        RACES,
    ),
    Mutation(
        "content-lock-dropped",
        "issue 28: a content bucket's level is read under the identity's bucket lock",
        BUCKETS,
        "    tx.lock(f\"{table.removesuffix('_buckets')}:{identity}\")\n",
        "",
        RACES,
    ),
    Mutation(
        "reactions-not-shed-first",
        "issue 28: a reaction takes a content token only while the bucket keeps the posts' reserve",
        CONTENT,
        "    keep = limits.post_reserve if reaction else (0, 0)\n",
        "    keep = (0, 0)\n",
        CONTENT_SUITES,
    ),
    Mutation(
        "deferred-gap-given-up",
        "issue 28: a deferred gap read stays above the floor and is read at a later look",
        CORE,
        "            elif not view.late and name in ctx.facts.deferred_gaps:\n",
        "            elif False:\n",
        DEFERRED_GAPS,
    ),
    Mutation(
        "lease-lock-dropped",
        "issue 28: a lease is read under its lock, so racing holders are told who holds it",
        LEASES,
        '    tx.lock(f"lease:{name}")\n',
        "",
        RACES,
    ),
    Mutation(
        "pr-claim-lock-dropped",
        "issue 28: a claim reads a PR's owner under the PR's lock (one owner per epoch)",
        OWNERS,
        "    tx.lock(pr_lock(pr))\n"
        "    before = read_owner(tx, pr)\n"
        "    if before is not None and (",
        "    before = read_owner(tx, pr)\n    if before is not None and (",
        ("tests/monitor/store/test_owners.py",),
    ),
    Mutation(
        "fleet-delivery-serves-everyone",
        "issue 28: a host delivers only to the workers and orchestrators bound on it",
        APP_ROOT,
        "            recipients = None if host is None else registry.recipients\n",
        "            recipients = None\n",
        ("tests/fleet/test_fleet_daemons.py",),
    ),
    Mutation(
        "every-host-reads",
        "issue 28: one host per identity holds the reader lease and polls for the fleet",
        MONITOR,
        "            if not isinstance(outcome, HeldLease):\n",
        "            if False:\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "owners-follow-every-pr",
        "issue 28: a host follows the stream's items of the PRs it owns only",
        FLEET,
        "            return cursor, follow_stream(tx, self._identity, cursor, self._host_id)\n",
        "            return cursor, follow_stream(tx, self._identity, cursor, None)\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
    Mutation(
        "janitor-judges-at-once",
        "issue 28: the janitor judges only after holding its lease two lives without a break",
        JANITOR,
        "    if held_since is None or now - held_since < 2 * ttl:\n",
        "    if held_since is None:\n",
        ("tests/fleet/test_janitor.py",),
    ),
    Mutation(
        "janitor-hands-off-after-one-life",
        "issue 28: a host is lost only after its lease expired three lives ago",
        JANITOR,
        "    return frozenset(h for h, expires in expiries.items() if expires + 3 * ttl <= now)\n",
        "    return frozenset(h for h, expires in expiries.items() if expires + ttl <= now)\n",
        ("tests/fleet/test_janitor.py",),
    ),
    Mutation(
        "stale-head-attempted-again",
        "seed 001: a notice is delivered once; a head whose attempt ended during the look waits",
        DELIVERY_LOOP,
        "            if entry.worker in self._ended:\n",
        "            if False:\n",
        ("tests/delivery/loop/test_run.py",),
    ),
    Mutation(
        "recipients-cached-past-a-registry-write",
        "issue 28: a host delivers to the workers bound on it, as the registry says now",
        REGISTRY,
        "            if cached is not None and cached[0] == version:\n",
        "            if cached is not None:\n",
        ("tests/app/registry/test_pr_owners.py",),
    ),
    Mutation(
        "hint-delay-from-the-take",
        "issue 28: a fleet hint's way to the reader is part of its delay, not added to it",
        POLLER,
        "        at = (now if seen_at is None else min(seen_at, now)) + self._hint_delay\n",
        "        at = now + self._hint_delay\n",
        ("tests/monitor/poller/test_poller.py",),
    ),
    Mutation(
        "hint-seen-ahead-of-now",
        "issue 28: a host whose clock runs ahead cannot put a fleet hint off",
        POLLER,
        "        at = (now if seen_at is None else min(seen_at, now)) + self._hint_delay\n",
        "        at = (now if seen_at is None else seen_at) + self._hint_delay\n",
        ("tests/monitor/poller/test_poller.py",),
    ),
    Mutation(
        "deposed-reader-drops-waiting-requests",
        "issue 28: a poll request waiting in a reader that stops reading goes to the next",
        MONITOR,
        "        if poller is not None:\n            hints, polls = poller.waiting()\n",
        "        if False:\n            hints, polls = poller.waiting()\n",
        ("tests/fleet/test_fleet_monitor.py",),
    ),
)


class SetupError(Exception):
    """The run cannot be made as asked; nothing was mutated."""


@dataclass(frozen=True, slots=True)
class Outcome:
    mutation: Mutation
    caught: bool
    failed: tuple[str, ...]  # tests that failed or errored
    note: str
    seconds: float


# -- preparing ---------------------------------------------------------------------------


def dirty_files(paths: Sequence[str]) -> list[str]:
    """Files among ``paths`` whose working copy differs from HEAD (or is untracked)."""
    result = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--", *paths],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line[3:] for line in result.stdout.splitlines() if line.strip()]


def check_snippets(root: Path, mutations: Sequence[Mutation]) -> None:
    """Every ``old`` occurs exactly once, and the edit changes the file."""
    problems = []
    for m in mutations:
        text = (root / m.path).read_text(encoding="utf-8")
        count = text.count(m.old)
        if count != 1:
            problems.append(f"{m.name}: its snippet occurs {count} times in {m.path} (stale?)")
        elif m.old == m.new:
            problems.append(f"{m.name}: the edit changes nothing")
    if problems:
        raise SetupError("refusing to run:\n  " + "\n  ".join(problems))


@contextmanager
def snapshot_of_head() -> Iterator[Path]:
    """The last commit extracted to a scratch directory, beside a link to ``../shared``."""
    with tempfile.TemporaryDirectory(prefix="comment-wake-mutation-") as tmp:
        work = Path(tmp) / REPO.name
        archive = subprocess.run(
            ["git", "archive", "--format=tar", "HEAD"], cwd=REPO, capture_output=True, check=True
        )
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(work, filter="data")
        shared = REPO.parent / "shared"
        if shared.is_dir():
            (Path(tmp) / "shared").symlink_to(shared, target_is_directory=True)
        yield work


def pytest_env(work: Path, *, in_place: bool) -> dict[str, str]:
    env = dict(os.environ)
    # A mutated file and its revert can share an mtime second; never trust a stale .pyc.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if not in_place:
        roots = [str(work / r) for r in SOURCE_ROOTS]
        if env.get("PYTHONPATH"):
            roots.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(roots)
    return env


def check_imports_from(work: Path, env: dict[str, str]) -> None:
    code = (
        "import comment_wake, review_monitor, untrusted_fence\n"
        "for m in (comment_wake, review_monitor, untrusted_fence): print(m.__file__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True
    )
    files = out.stdout.split()
    if out.returncode != 0 or len(files) != 3:
        raise SetupError(f"cannot import the packages: {out.stderr.strip()}")
    outside = [f for f in files if not Path(f).resolve().is_relative_to(work.resolve())]
    if outside:
        raise SetupError(f"the packages do not import from {work}: {outside}")


# -- running -----------------------------------------------------------------------------


def run_pytest(
    work: Path, suites: Sequence[str], env: dict[str, str], *, fail_fast: bool
) -> tuple[int | None, tuple[str, ...], str]:
    """(exit code or None on timeout, failing test ids, the tail of the output)."""
    with tempfile.TemporaryDirectory(prefix="mutation-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--hypothesis-seed=0",
            f"--junitxml={junit}",
            *(["-x"] if fail_fast else []),
            *suites,
        ]
        proc = subprocess.Popen(
            cmd,
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=PYTEST_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            return None, (), output[-2000:]
        failed = failing_tests(junit) if junit.exists() else ()
        return proc.returncode, failed, output[-2000:]


def failing_tests(junit: Path) -> tuple[str, ...]:
    failed = []
    for case in ET.parse(junit).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            module = case.get("classname", "")
            failed.append(f"{module.rsplit('.', 1)[-1]}::{case.get('name', '?')}")
    return tuple(failed)


def existing(work: Path, suites: Sequence[str]) -> tuple[str, ...]:
    """The suites present in ``work``; never none, which would run the whole tree."""
    present = tuple(s for s in suites if (work / s).exists())
    if not present:
        raise SetupError(f"none of the test paths exist: {', '.join(suites)}")
    return present


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def apply_and_run(work: Path, m: Mutation, env: dict[str, str], *, fail_fast: bool) -> Outcome:
    target = work / m.path
    original = target.read_bytes()
    before = digest(original)
    text = original.decode("utf-8")
    if text.count(m.old) != 1:
        raise SetupError(f"{m.name}: its snippet no longer occurs exactly once in {m.path}")
    mutated = text.replace(m.old, m.new, 1)
    compile(mutated, str(target), "exec")  # a mutation must be valid Python, not a crash
    started = time.monotonic()
    try:
        target.write_text(mutated, encoding="utf-8")
        code, failed, tail = run_pytest(work, existing(work, m.suites), env, fail_fast=fail_fast)
    finally:
        target.write_bytes(original)
        if digest(target.read_bytes()) != before:
            raise SystemExit(f"FATAL: {target} was not restored byte for byte")
    seconds = time.monotonic() - started
    if code is None:
        return Outcome(m, True, (), f"timed out after {PYTEST_TIMEOUT_S} s", seconds)
    if code == 1 and failed:
        return Outcome(m, True, failed, "", seconds)
    if code == 0:
        return Outcome(m, False, (), "every test passed", seconds)
    # Collection errors, usage errors, no tests: not a catch, and not a clean miss.
    last = tail.strip().splitlines()[-1:] or ["no output"]
    return Outcome(m, False, failed, f"pytest exit {code}: {last[0]}", seconds)


# -- reporting ---------------------------------------------------------------------------


def print_table(outcomes: Sequence[Outcome]) -> None:
    width = max(len(o.mutation.name) for o in outcomes)
    print(f"{'mutation':<{width}}  caught  tests that caught it")
    print(f"{'-' * width}  ------  --------------------")
    for o in outcomes:
        caught = "yes" if o.caught else "NO"
        tests = list(o.failed) or [o.note or "-"]
        print(f"{o.mutation.name:<{width}}  {caught:<6}  {tests[0]}")
        for extra in tests[1:]:
            print(f"{'':<{width}}  {'':<6}  {extra}")
        if o.note and o.failed:
            print(f"{'':<{width}}  {'':<6}  ({o.note})")


def print_list(mutations: Sequence[Mutation]) -> None:
    for m in mutations:
        print(f"{m.name}\n  {m.check}\n  {m.path}  ->  {', '.join(m.suites)}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutations")
    parser.add_argument("--list", action="store_true", help="list the mutations and stop")
    parser.add_argument(
        "--in-place", action="store_true", help="mutate the working tree, not a copy of HEAD"
    )
    parser.add_argument(
        "--all-failures",
        action="store_true",
        help="run each suite to the end (no -x) to name every test that catches a mutation",
    )
    return parser.parse_args(argv)


def select(names: Sequence[str] | None) -> tuple[Mutation, ...]:
    if not names:
        return MUTATIONS
    known = {m.name: m for m in MUTATIONS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SetupError(f"unknown mutation(s): {', '.join(unknown)}")
    return tuple(known[n] for n in names)


def _terminate(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM into an exception so every ``finally`` restores its file.
    raise KeyboardInterrupt(f"signal {signum}")


def run(args: argparse.Namespace) -> int:
    mutations = select(args.only)
    if args.list:
        print_list(mutations)
        return 0
    paths = sorted({m.path for m in mutations})
    dirty = dirty_files(paths)
    if dirty:
        raise SetupError(
            "refusing to start: uncommitted changes in files it mutates: " + ", ".join(dirty)
        )
    with contextmanager_for(args.in_place) as work:
        check_snippets(work, mutations)
        env = pytest_env(work, in_place=args.in_place)
        check_imports_from(work, env)
        suites = existing(work, sorted({s for m in mutations for s in m.suites}))
        print(f"baseline: {' '.join(suites)} in {work}", flush=True)
        code, failed, tail = run_pytest(work, suites, env, fail_fast=True)
        if code != 0:
            raise SetupError(f"the unmutated suites do not pass ({code}): {failed}\n{tail}")
        outcomes = []
        for m in mutations:
            print(f"mutating: {m.name} ({m.path})", flush=True)
            outcomes.append(apply_and_run(work, m, env, fail_fast=not args.all_failures))
    print()
    print_table(outcomes)
    caught = sum(o.caught for o in outcomes)
    print(json.dumps({"mutations": len(outcomes), "caught": caught}))
    return 0 if caught == len(outcomes) else 1


@contextmanager
def contextmanager_for(in_place: bool) -> Iterator[Path]:
    if in_place:
        yield REPO
    else:
        with snapshot_of_head() as work:
            yield work


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    if shutil.which("git") is None:
        print("git is required", file=sys.stderr)
        return 2
    try:
        return run(parse_args(argv))
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
