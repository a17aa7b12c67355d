"""``match``: which comments are the worker's own posts (pure; time is an argument).

Rule 4 of the trust rule, exactly: a comment with ``viewerDidAuthor`` is the worker's own
when its permalink was printed by a call that only posted (a link match), or when every
text it carries equals a body posted to this PR in the call's time interval (a whole-body
match). When unsure, nothing is recorded: a wrong "own post" silences a person.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from review_monitor import PrRef

from ._model import CommentText, NamedPr, OwnPostState, OwnPostVerdict, PostRecord, PostRef
from ._text import body_hash, normalise_body, parse_link

__all__ = ["match"]


@dataclass(frozen=True, slots=True)
class _Candidate:
    comment: CommentText
    posts: tuple[PostRecord, ...]  # the main post first, then inline posts of a review
    inside: bool  # the comment's time lies inside the main post's own interval
    distance: float  # seconds from the main post's interval

    @property
    def score(self) -> tuple[int, float]:
        return (0 if self.inside else 1, self.distance)


def match(
    state: OwnPostState,
    pr: PrRef,
    comments: Sequence[CommentText],
    *,
    window: timedelta,
    skew: timedelta,
) -> tuple[OwnPostState, dict[str, OwnPostVerdict]]:
    """Answer own or not for each comment of ``pr``; record which posts explained which.

    ``window`` is ``own_post_window`` (the search starts at the turn already running that
    long before the comment); ``skew`` is ``post_clock_skew``.
    """
    verdicts: dict[str, OwnPostVerdict] = {}
    explained = dict(state.explained)
    by_key = {p.key: p for p in state.posts}
    before = {comment_id: key for key, comment_id in explained.items()}
    turns = {s.path: s.turns for s in state.sources}
    open_comments: list[CommentText] = []
    for comment in comments:
        if comment.id in verdicts:
            continue
        if not comment.viewer_did_author:
            verdicts[comment.id] = OwnPostVerdict(
                own=False,
                rule="not-viewer",
                explanation="not own: GitHub says the viewer did not author it",
            )
            continue
        key = before.get(comment.id)
        if key is not None and key in by_key:
            earlier = by_key[key]
            verdicts[comment.id] = OwnPostVerdict(
                own=True,
                rule="explained-before",
                explanation=f"own post: explained earlier by {_where(earlier)}",
                post=_ref(earlier),
            )
            continue
        open_comments.append(comment)

    used = set(explained)

    def in_window(post: PostRecord, comment: CommentText) -> bool:
        cutoff = comment.created_at - window
        floor = _latest_at_or_before(turns.get(post.source, ()), cutoff)
        if floor is None:
            floor = cutoff if post.source not in turns else None
        return floor is None or post.started >= floor

    # 1. Link matches: a permalink names one item, so it wins over everything else.
    remaining: list[CommentText] = []
    for comment in open_comments:
        post = _link_match(comment, state.posts, used, in_window)
        if post is None:
            remaining.append(comment)
            continue
        used.add(post.key)
        explained[post.key] = comment.id
        verdicts[comment.id] = OwnPostVerdict(
            own=True,
            rule="link",
            explanation=f"own post: its link was printed by {_where(post)}",
            post=_ref(post),
        )

    # 2. Whole-body matches, resolved for the whole batch: inside the call's interval
    # first, then nearest in time; an exact tie records nothing.
    candidates: list[_Candidate] = []
    for comment in remaining:
        candidates.extend(_body_candidates(comment, state.posts, used, pr, skew, in_window))
    candidates.sort(key=lambda c: c.score)
    decided: dict[str, str] = {}
    for cand in candidates:
        cid = cand.comment.id
        if cid in decided or any(p.key in used for p in cand.posts):
            continue
        rivals = [
            other
            for other in candidates
            if other is not cand
            and other.score == cand.score
            and other.comment.id not in decided
            and not any(p.key in used for p in other.posts)
            and (
                other.comment.id == cid
                or {p.key for p in other.posts} & {p.key for p in cand.posts}
            )
        ]
        if rivals:
            for other in (cand, *rivals):
                if other.comment.id not in decided:
                    decided[other.comment.id] = "tie"
                    verdicts[other.comment.id] = OwnPostVerdict(
                        own=False,
                        rule="tie",
                        explanation="not own: posts in the transcripts tie for it exactly, "
                        "so nothing is recorded",
                    )
            continue
        decided[cid] = "body"
        main = cand.posts[0]
        for post in cand.posts:
            used.add(post.key)
            explained[post.key] = cid
        extra = f" and {len(cand.posts) - 1} inline post(s)" if len(cand.posts) > 1 else ""
        verdicts[cid] = OwnPostVerdict(
            own=True,
            rule="body",
            explanation=f"own post: the same text was posted to {_pr_text(main.pr, pr)} by "
            f"{_where(main)}{extra}",
            post=_ref(main),
        )

    for comment in remaining:
        if comment.id not in verdicts:
            verdicts[comment.id] = OwnPostVerdict(
                own=False,
                rule="no-match",
                explanation="not own: no post in the transcripts explains it",
            )
    new_state = OwnPostState(sources=state.sources, posts=state.posts, explained=explained)
    return new_state, verdicts


def _latest_at_or_before(turns: Iterable[datetime], when: datetime) -> datetime | None:
    best: datetime | None = None
    for t in turns:
        if t <= when and (best is None or t > best):
            best = t
    return best


def _link_match(
    comment: CommentText,
    posts: Sequence[PostRecord],
    used: set[str],
    in_window: object,
) -> PostRecord | None:
    wanted = set()
    for url in (comment.url, *(i.url for i in comment.inline)):
        link = parse_link(url)
        if link is not None:
            wanted.add(link.identity)
    if not wanted:
        return None
    assert callable(in_window)
    for post in posts:
        if post.key in used or not post.links_count or not in_window(post, comment):
            continue
        if any(link.identity in wanted for link in post.links):
            return post
    return None


def _texts(comment: CommentText) -> list[str]:
    texts = [comment.body, *(i.body for i in comment.inline)]
    return [body_hash(t) for t in texts if normalise_body(t)]


def _body_candidates(
    comment: CommentText,
    posts: Sequence[PostRecord],
    used: set[str],
    pr: PrRef,
    skew: timedelta,
    in_window: object,
) -> list[_Candidate]:
    assert callable(in_window)
    texts = _texts(comment)
    if not texts:
        return []
    at = comment.created_at
    usable = [
        p
        for p in posts
        if p.key not in used
        and p.body_known
        and p.bodies
        and _counts_bodies(p, pr)
        and in_window(p, comment)
        and p.started - skew <= at
        and (p.pending_inline or at <= p.finished + skew)
    ]
    whole = [p for p in usable if not p.pending_inline and sorted(p.bodies) == sorted(texts)]
    out = [_candidate(comment, (p,)) for p in whole]
    if out or len(texts) == 1:
        return out
    # A review whose body and inline comments were posted by separate calls (an MCP
    # pending review): the body by one post, each inline text by a distinct other post.
    main_text, inline_texts = (
        (texts[0], texts[1:])
        if normalise_body(comment.body)
        else (
            None,
            texts,
        )
    )
    mains = [p for p in usable if not p.pending_inline and p.bodies == (main_text,)]
    if main_text is not None and not mains:
        return []
    chosen: list[PostRecord] = []
    for text in inline_texts:
        pick = next(
            (p for p in usable if p.bodies == (text,) and p not in chosen and p not in mains[:1]),
            None,
        )
        if pick is None:
            return []
        chosen.append(pick)
    if main_text is None:
        return [_candidate(comment, tuple(chosen))]
    return [_candidate(comment, (m, *chosen)) for m in mains[:1]]


def _candidate(comment: CommentText, posts: tuple[PostRecord, ...]) -> _Candidate:
    main = posts[0]
    at = comment.created_at
    if main.started <= at <= main.finished:
        return _Candidate(comment, posts, inside=True, distance=0.0)
    distance = min(
        abs((at - main.started).total_seconds()), abs((at - main.finished).total_seconds())
    )
    return _Candidate(comment, posts, inside=False, distance=distance)


def _counts_bodies(post: PostRecord, pr: PrRef) -> bool:
    """Whose bodies count: the worker's for this PR or none named; the orchestrator's only
    when it named this PR, repository included; a sibling's never."""
    if post.role == "sibling":
        return False
    if post.role == "worker":
        return not post.pr.named or _same_pr(post.pr, pr, require_repo=False)
    return post.pr.named and _same_pr(post.pr, pr, require_repo=True)


def _same_pr(named: NamedPr, pr: PrRef, *, require_repo: bool) -> bool:
    if named.number is None or named.number != pr.number:
        return False
    if named.host is not None and named.host.lower() != pr.host.lower():
        return False
    for have, want in ((named.owner, pr.owner), (named.name, pr.name)):
        if have is None:
            if require_repo:
                return False
        elif have.lower() != want.lower():
            return False
    return True


def _ref(post: PostRecord) -> PostRef:
    return PostRef(
        source=post.source, line=post.line, tool=post.tool, call_id=post.call_id, role=post.role
    )


def _where(post: PostRecord) -> str:
    return (
        f"`{post.tool}` (call {post.call_id}, {post.role} transcript {post.source} "
        f"line {post.line}, {post.started:%Y-%m-%dT%H:%M:%S}Z to "
        f"{post.finished:%Y-%m-%dT%H:%M:%S}Z)"
    )


def _pr_text(named: NamedPr, pr: PrRef) -> str:
    return str(pr) if named.named else f"{pr} (the current branch)"
