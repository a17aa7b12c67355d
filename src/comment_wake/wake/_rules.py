"""The trust rules: one table of named rules, each with its reasons, the reads it needs
and a pure predicate, which the core iterates and ``explain`` prints; and the helpers
the predicates use."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from comment_wake._post_marker import marker_keys, text_sha256
from review_monitor import (
    BadgeItem,
    ItemDetail,
    LookupFailed,
    MonitorConfig,
    PrStatus,
    is_bot,
    is_valid_login,
)
from untrusted_fence import is_blank

from ._config import WakeConfig
from ._mention import mentions, starts_with_marker
from ._model import Binding, Facts, Reason, Trigger
from ._views import view_of

__all__ = [
    "RULES",
    "RULE_NAMES",
    "Ask",
    "Failed",
    "Need",
    "Note",
    "Rule",
    "Stop",
    "Subject",
    "Verdict",
    "closed_detail",
    "command_form",
    "handle_of",
    "is_agent_login",
    "is_blank_item",
    "is_bot",
    "is_rereview_command",
    "is_trusted_bot",
    "is_valid_login",
    "is_verdict",
    "item_texts",
    "normalise_body",
    "shows_nothing_item",
    "trigger_of",
]


def is_verdict(item: BadgeItem) -> bool:
    """A review that approves, requests changes or was dismissed: not a comment."""
    return item.kind == "review" and item.state != "COMMENTED"


def is_agent_login(login: str, agent_logins: Iterable[str]) -> bool:
    folded = login.casefold()
    return any(folded == agent.casefold() for agent in agent_logins)


def item_texts(detail: ItemDetail) -> tuple[str, ...]:
    """Every text a comment carries: its body and, for a review, each inline comment."""
    return (detail.body, *(inline.body for inline in detail.inline))


def is_blank_item(detail: ItemDetail) -> bool:
    """Every text it carries is nothing but white space and invisible characters (the seed's
    rule, on the raw text: cheap, safe before anyone's write access is known)."""
    return all(is_blank(text) for text in item_texts(detail))


def shows_nothing_item(detail: ItemDetail) -> bool:
    """A reader on GitHub sees none of its text: only hidden parts (an HTML comment, a
    link-reference definition).  This renders the text, so only a writer's comment gets it."""
    return all(not view_of(text).shows_anything for text in item_texts(detail))


def command_form(text: str) -> str:
    """A text as a command compares: trimmed, runs of whitespace made one space, case
    folded (``ownpost``'s ``normalise_body`` does not fold case: a post is matched as
    written)."""
    return " ".join(text.split()).casefold()


normalise_body = command_form
"""Deprecated: the old name of ``command_form``, kept for one release."""


def is_rereview_command(detail: ItemDetail, commands: Iterable[str]) -> bool:
    """Every non-blank text it carries equals a configured re-review command."""
    wanted = {command_form(c) for c in commands}
    wanted.discard("")
    texts = [command_form(t) for t in item_texts(detail) if not is_blank(t)]
    return bool(wanted) and bool(texts) and all(t in wanted for t in texts)


def _bot_name(login: str) -> str:
    # As ``review_monitor.is_bot`` compares ``review_bots``: case folded, without any
    # ``[bot]`` suffix (GraphQL names a Bot without it, REST with it).
    return login.casefold().removesuffix("[bot]")


def is_trusted_bot(item: BadgeItem, config: WakeConfig, monitor: MonitorConfig) -> bool:
    """An issue comment by a bot that ``trusted_bots`` lists (logins compared as the bot
    rule compares ``review_bots``).  Not a review (a bot's review stays the monitor's
    ``bot-review`` notice), not a person's account however it is listed, and never a login
    that ``review_bots`` or ``agent_logins`` names: those win."""
    author = item.author
    if item.kind != "comment" or author is None or not config.trusted_bots:
        return False
    if not is_bot(author):  # only a Bot or a ``[bot]`` login
        return False
    name = _bot_name(author.login)
    if name in {_bot_name(b) for b in (*monitor.review_bots, *config.agent_logins)}:
        return False
    return name in {_bot_name(b) for b in config.trusted_bots}


def trigger_of(binding: Binding, config: WakeConfig) -> Trigger:
    """The binding's trigger mode, else the configuration's."""
    return binding.trigger if binding.trigger is not None else config.trigger


def handle_of(binding: Binding, config: WakeConfig) -> str | None:
    """The binding's mention handle, else the configuration's (None: none set)."""
    return binding.handle if binding.handle is not None else config.handle


# -- the rules table -----------------------------------------------------------------

Need = Literal["details", "intent-body", "rest", "own-post", "permission"]
"""A read a rule may ask for beyond the badge: the comment's detail (its body and the first
page of a review's inline comments; all of them for the token's own login), the same
detail asked for only while the PR has a post whose id is not recorded yet
(``intent-body``), the rest of a review's inline comments, the own-post matcher's verdict,
or the author's permission answer."""


@dataclass(frozen=True, slots=True)
class Subject:
    """What a rule looks at: one comment as the badge listed it, and what was read."""

    item: BadgeItem
    # Given to every rule from the first that needs "details"; None there only for a held
    # comment deleted before its release (the ``exists`` rule stops it).
    detail: ItemDetail | None
    binding: Binding
    status: PrStatus
    facts: Facts
    config: WakeConfig
    monitor: MonitorConfig

    @property
    def login(self) -> str:
        """The author's login (the ``author`` rule has passed)."""
        assert self.item.author is not None, "a rule after 'author' ran without an author"
        return self.item.author.login

    @property
    def read(self) -> ItemDetail:
        """The detail read (the rule declared it needs ``details``)."""
        assert self.detail is not None, "a rule read the detail without declaring it"
        return self.detail


@dataclass(frozen=True, slots=True)
class Stop:
    """The comment is passed over here, with this reason."""

    reason: Reason
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Ask:
    """The rule cannot decide before this read; ``key`` is the item id or the login."""

    need: Need
    key: str


@dataclass(frozen=True, slots=True)
class Failed:
    """The read the rule needs failed (a permission lookup): retry on the schedule."""

    status: int | None


@dataclass(frozen=True, slots=True)
class Note:
    """The comment passes, and the decision records why it may (``trusted-bot``: the
    bot rule passed a trusted bot's comment, which wakes with that reason)."""

    reason: Reason


Verdict = Stop | Ask | Failed | Note | None
"""A rule's answer; None (or a ``Note``): the comment passes it."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One trust rule: its name, the reasons it gives (those it stops a comment with, and
    the one a ``Note`` it passes a comment with records), the reads it may ask for, what
    passing it means, and its predicate (pure)."""

    name: str
    reasons: tuple[Reason, ...]
    needs: tuple[Need, ...]
    passes: str
    check: Callable[[Subject], Verdict]


def _bound(s: Subject) -> Verdict:
    return None if s.binding.is_bound else Stop("unbound")


def _open(s: Subject) -> Verdict:
    return None if s.status.is_open else Stop("pr-closed", closed_detail(s.status))


def _author(s: Subject) -> Verdict:
    return Stop("no-author") if s.item.author is None else None


def _minimized(s: Subject) -> Verdict:
    return Stop("minimized") if s.item.is_minimized else None


def _bot(s: Subject) -> Verdict:
    assert s.item.author is not None
    if not is_bot(s.item.author, s.monitor.review_bots):
        return None
    return Note("trusted-bot") if is_trusted_bot(s.item, s.config, s.monitor) else Stop("bot")


def _verdict(s: Subject) -> Verdict:
    return Stop("verdict", s.item.state or "") if is_verdict(s.item) else None


def _own_post_id(s: Subject) -> Verdict:
    # Issue 27: a post the worker tools made is known by the id GitHub gave it, recorded
    # in the transaction that saw the answer.  Before that (a poll between the post and
    # its record, a crash), by the marker of one of this PR's intents on a text whose hash
    # is the intent's.  Only on the token's own login: a stranger who copies a marker
    # cannot author as that login, and cannot match a hash of a body they never saw.
    if not s.item.viewer_did_author:
        return None
    posts = s.facts.posts
    known = posts.ids.get(s.item.id)
    if known is None and s.item.kind == "review" and s.item.database_id is not None:
        known = posts.reviews.get(s.item.database_id)  # the review holding a reply
    if known is not None:
        return Stop("own-post", f"posted by `{known[0]}` (key {known[1]})")
    if not posts.intents:
        return None
    detail = s.detail if s.detail is not None else s.facts.details.get(s.item.id)
    if detail is None:
        # Deleted since the badge: ``exists`` decides it.
        return None if s.item.id in s.facts.gone else Ask("intent-body", s.item.id)
    for text in item_texts(detail):
        for key in marker_keys(text):
            intent = posts.intents.get(key)
            if intent is not None and intent[1] == text_sha256(text):
                return Stop("own-post", f"posted by `{intent[0]}` (key {key}, id not recorded)")
    return None


def _exists(s: Subject) -> Verdict:
    # Reached with no detail only by a held comment whose read at release found nothing.
    return Stop("deleted") if s.detail is None else None


def _blank(s: Subject) -> Verdict:
    # A review read to its first page only may pass here, never stop: what is unread may
    # hold text.  ``shown`` decides it again on the whole text.
    if s.read.more_inline is not None:
        return None
    return Stop("blank") if is_blank_item(s.read) else None


def _shown(s: Subject) -> Verdict:
    if s.read.more_inline is not None:
        return Ask("rest", s.item.id)  # a writer's review: now read all of it
    return Stop("blank", "nothing shown on GitHub") if shows_nothing_item(s.read) else None


def _skip_marker(s: Subject) -> Verdict:
    texts = item_texts(s.read)
    if s.read.more_inline is not None and all(is_blank(t) for t in texts):
        return None  # the first text with words may be on a page not read yet
    return Stop("skip-marker") if starts_with_marker(texts, s.config.skip_marker) else None


def _mention(s: Subject) -> Verdict:
    if trigger_of(s.binding, s.config) == "any":
        return None
    handle = handle_of(s.binding, s.config)
    if handle is None:
        return Stop("not-mentioned", "no handle is set for mention mode")
    if mentions(item_texts(s.read), handle):
        return None
    # A review read to its first page only may pass here, never stop (as ``blank``): the
    # mention may be on a page not read yet, and its whole read decides again.
    return None if s.read.more_inline is not None else Stop("not-mentioned")


def _rereview(s: Subject) -> Verdict:
    if s.item.viewer_did_author and is_rereview_command(s.read, s.config.rereview_commands):
        return Stop("rereview-command")
    return None


def _own_post(s: Subject) -> Verdict:
    if is_agent_login(s.login, s.config.agent_logins):
        return Stop("own-post", "agent login")
    if not s.item.viewer_did_author:
        return None  # the matcher is asked only about comments the token's login wrote
    verdict = s.facts.own_posts.get(s.item.id)
    if verdict is None:
        return Ask("own-post", s.item.id)
    return Stop("own-post", verdict.explanation) if verdict.own else None


def _login(s: Subject) -> Verdict:
    if is_trusted_bot(s.item, s.config, s.monitor):
        return None  # no lookup is made with it (write-access)
    return None if is_valid_login(s.login) else Stop("invalid-login")


def _write_access(s: Subject) -> Verdict:
    if is_trusted_bot(s.item, s.config, s.monitor):
        return None  # a bot is not a collaborator: trusted by the list, no lookup
    login = s.login.lower()
    answer = s.facts.permissions.get(login)
    if answer is None:
        return Ask("permission", login)
    if isinstance(answer, LookupFailed):
        return Failed(answer.status)
    if answer.trusted:  # the monitor's one trust decision (role names included)
        return None
    return Stop("not-writer", f"permission {answer.permission}")


RULES: tuple[Rule, ...] = (
    Rule(
        "bound",
        ("unbound",),
        (),
        "the PR is bound to a live worker that an orchestrator spawned",
        _bound,
    ),
    Rule("open", ("pr-closed",), (), "the pull request is open", _open),
    Rule("author", ("no-author",), (), "the author's account exists", _author),
    Rule("minimized", ("minimized",), (), "not hidden (minimized)", _minimized),
    Rule(
        "bot",
        ("bot", "trusted-bot"),
        (),
        "not written by a bot, or an issue comment by one in trusted_bots (trusted-bot)",
        _bot,
    ),
    Rule("verdict", ("verdict",), (), "not a bare review verdict", _verdict),
    Rule(
        "own-post-id",
        ("own-post",),
        ("intent-body",),
        "not a post the worker tools made (by the id GitHub gave it, or its intent's marker)",
        _own_post_id,
    ),
    Rule(
        "exists",
        ("deleted",),
        ("details",),
        "it still exists when its text is read (again at a held comment's release)",
        _exists,
    ),
    Rule("blank", ("blank",), ("details",), "not blank", _blank),
    Rule(
        "skip-marker",
        ("skip-marker",),
        ("details",),
        "its first non-blank line does not start with the skip marker",
        _skip_marker,
    ),
    Rule(
        "mention",
        ("not-mentioned",),
        ("details",),
        "the trigger is any comment, or it mentions the binding's handle",
        _mention,
    ),
    Rule(
        "rereview",
        ("rereview-command",),
        ("details",),
        "not a re-review command of the worker's login",
        _rereview,
    ),
    Rule("own-post", ("own-post",), ("own-post",), "not the worker's own post", _own_post),
    Rule("login", ("invalid-login",), (), "the author's login is a GitHub login", _login),
    Rule(
        "write-access",
        ("not-writer", "lookup-failed"),
        ("permission",),
        "the author has write access (a trusted bot: not looked up)",
        _write_access,
    ),
    # After write-access on purpose: seeing what GitHub shows means rendering the text, which
    # a stranger must never make the daemon do (seed: "not blank"; docs/trust-rules.md),
    # and reading a long review's every page, which a stranger must never cost.
    Rule(
        "shown",
        ("blank",),
        ("details", "rest"),
        "a reader on GitHub sees some of its text (read whole, for a long review)",
        _shown,
    ),
)
"""The trust rules in the order the core runs them (docs/trust-rules.md): a comment
passes each in turn, and the first that stops it decides it with one of its reasons."""

RULE_NAMES: tuple[str, ...] = tuple(r.name for r in RULES)


def closed_detail(status: PrStatus) -> str:
    return "merged" if status.merged else "closed"
