"""The seed's own-post cases and the issue's Proof list, end to end: transcripts written in
the real formats, scanned, then matched against comments as GitHub lists them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from comment_wake.ownpost import CommentText, OwnPostState, match

T0 = datetime(2026, 8, 3, 14, 0, 0, tzinfo=UTC)
S = timedelta(seconds=1)
MakeComment = Callable[..., CommentText]


def url(n: int, number: int = 7) -> str:
    return f"https://github.com/acme/widget/pull/{number}#issuecomment-{n}"


def test_worker_comment_is_own_while_the_users_on_the_same_login_is_delivered(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Fix the retry budget and say so on the PR.", T0)
    worker.bash(
        "gh pr comment 7 --body 'Pushed the fix.'",
        at=T0 + 60 * S,
        done=T0 + 62 * S,
        stdout=url(501) + "\n",
    )
    own = make_comment("Pushed the fix.", T0 + 61 * S, url=url(501))
    user = make_comment("Pushed the fix? Then rebase please.", T0 + 90 * S)

    verdicts = world.look([own, user])

    assert (True, "link") == (verdicts[own.id].own, verdicts[own.id].rule)
    assert (False, "no-match") == (verdicts[user.id].own, verdicts[user.id].rule)


@pytest.mark.parametrize("word", ["Stop.", "ok", "rebase", "go", "test"])
def test_users_short_word_is_delivered_although_worker_commands_contain_it(
    world: Any, make_comment: MakeComment, word: str
) -> None:
    worker = world.claude()
    worker.prompt("Carry on.", T0)
    worker.bash("echo stop && git status | grep -i ok", at=T0 + 10 * S, done=T0 + 11 * S)
    worker.bash(
        "git rebase origin/main && go test ./... && make test", at=T0 + 20 * S, done=T0 + 40 * S
    )
    worker.bash("rm -f ok.txt; grep -f rebase.txt go.mod", at=T0 + 50 * S, done=T0 + 51 * S)
    user = make_comment(word, T0 + 30 * S)

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_hold_off_is_delivered_after_the_worker_read_it_back(
    world: Any, make_comment: MakeComment
) -> None:
    text = "Please hold off on the merge until I look."
    user = make_comment(text, T0 + 30 * S, url=url(777))
    worker = world.claude()
    worker.prompt("Watch the PR.", T0)
    worker.bash(
        "gh pr view 7 --json comments --jq '.comments[] | [.url, .body] | @tsv'",
        at=T0 + 40 * S,
        done=T0 + 41 * S,
        stdout=f"{url(777)}\t{text}\n",
    )
    worker.bash(
        "gh api -X GET repos/acme/widget/issues/7/comments -f per_page=100",
        at=T0 + 50 * S,
        done=T0 + 51 * S,
        stdout=f'[{{"html_url":"{url(777)}","body":"{text}"}}]',
    )

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_thanks_is_delivered_although_a_sibling_said_it_here_and_the_worker_on_another_pr(
    world: Any, make_comment: MakeComment
) -> None:
    sibling = world.claude("sibling", role="sibling")
    sibling.prompt("Thank the reviewer on acme/widget#7.", T0)
    sibling.bash(
        "gh pr comment 7 --repo acme/widget --body 'Thanks!'",
        at=T0 + 10 * S,
        done=T0 + 12 * S,
        stdout=url(601) + "\n",
    )
    worker = world.claude()
    worker.prompt("Thank them on the voice PR.", T0)
    worker.bash(
        "gh pr comment 99 --body 'Thanks!'",
        at=T0 + 10 * S,
        done=T0 + 12 * S,
        stdout=url(602, number=99) + "\n",
    )
    user = make_comment("Thanks!", T0 + 11 * S, url=url(603))

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_sibling_post_is_recognised_by_the_link_its_posting_call_printed(
    world: Any, make_comment: MakeComment
) -> None:
    sibling = world.claude("sibling", role="sibling")
    sibling.prompt("Say thanks.", T0)
    sibling.bash(
        "gh pr comment 7 --repo acme/widget --body 'Thanks!'",
        at=T0 + 10 * S,
        done=T0 + 12 * S,
        stdout=url(601) + "\n",
    )
    siblings = make_comment("Thanks!", T0 + 11 * S, url=url(601))

    verdict = world.look([siblings])[siblings.id]

    assert (True, "link") == (verdict.own, verdict.rule)


def test_one_post_explains_one_comment(world: Any, make_comment: MakeComment) -> None:
    worker = world.claude()
    worker.prompt("Finish up.", T0)
    worker.bash("gh pr review 7 --comment -b 'Done.'", at=T0 + 10 * S, done=T0 + 12 * S)
    workers = make_comment("Done.", T0 + 11 * S, kind="review")
    users = make_comment("Done.", T0 + 25 * S)

    verdicts = world.look([workers, users])

    assert [True, False] == [verdicts[workers.id].own, verdicts[users.id].own]


def test_a_post_explains_one_comment_for_good_across_looks_and_a_restart(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Finish up.", T0)
    worker.bash("gh pr review 7 --comment -b 'Done.'", at=T0 + 10 * S, done=T0 + 12 * S)
    workers = make_comment("Done.", T0 + 11 * S, kind="review")
    world.look([workers])
    world.state = msgspec.json.decode(msgspec.json.encode(world.state), type=OwnPostState)
    users = make_comment("Done.", T0 + 13 * S)

    verdict = world.look([users])[users.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_post_chained_with_gh_pr_view_does_not_hide_the_users_comment(
    world: Any, make_comment: MakeComment
) -> None:
    user = make_comment("Please hold off on the merge.", T0 + 10 * S, url=url(888))
    worker = world.claude()
    worker.prompt("Reply, then check.", T0)
    worker.bash(
        # gh pr review prints nothing: the only link in the output is the user's, read back.
        "gh pr review 7 --comment -b 'Looking into it.' && "
        "gh pr view 7 --json comments --jq '.comments[].url'",
        at=T0 + 9 * S,
        done=T0 + 12 * S,
        stdout=f"{url(888)}\n",
    )

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_post_beside_a_curl_of_the_comments_does_not_take_the_users_link(
    world: Any, make_comment: MakeComment
) -> None:
    user = make_comment("Why is CI red?", T0 + 10 * S, url=url(901))
    worker = world.claude()
    worker.prompt("Answer.", T0)
    worker.bash(
        "gh pr review 7 --comment -b 'On it.'; "
        "curl -s https://api.github.com/repos/acme/widget/issues/7/comments",
        at=T0 + 9 * S,
        done=T0 + 12 * S,
        stdout=f'[{{"html_url":"{url(901)}"}}]',
    )

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_post_beside_another_command_still_matches_by_body(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Answer.", T0)
    worker.bash(
        "cd /work/widget && gh pr comment 7 -b 'On it.'",
        at=T0 + 9 * S,
        done=T0 + 12 * S,
        stdout=url(900) + "\n",
    )
    own = make_comment("On it.", T0 + 10 * S, url=url(900))

    verdict = world.look([own])[own.id]

    assert (True, "body") == (verdict.own, verdict.rule)


@pytest.mark.parametrize("offset", [-10, 10], ids=["clock-10s-slow", "clock-10s-fast"])
def test_post_explains_a_comment_when_the_clocks_disagree_by_ten_seconds(
    world: Any, make_comment: MakeComment, offset: int
) -> None:
    worker = world.claude()
    worker.prompt("Review yourself.", T0)
    worker.bash("gh pr review 7 --comment -b 'Self-review done.'", at=T0 + 10 * S, done=T0 + 12 * S)
    # GitHub's createdAt lies just outside the call's interval by the local clock's error.
    created = (T0 + 10 * S if offset < 0 else T0 + 12 * S) + offset * S
    own = make_comment("Self-review done.", created, kind="review")

    verdict = world.look([own])[own.id]

    assert (True, "body") == (verdict.own, verdict.rule)


@pytest.mark.parametrize("offset", [-31, 31], ids=["before-skew", "after-skew"])
def test_body_posted_outside_the_skew_explains_nothing(
    world: Any, make_comment: MakeComment, offset: int
) -> None:
    worker = world.claude()
    worker.prompt("Review yourself.", T0)
    worker.bash(
        "gh pr review 7 --comment -b 'Self-review done.'", at=T0 + 100 * S, done=T0 + 102 * S
    )
    created = (T0 + 100 * S if offset < 0 else T0 + 102 * S) + offset * S
    users = make_comment("Self-review done.", created, kind="review")

    verdict = world.look([users])[users.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_comment_not_authored_by_the_viewer_is_never_own(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr comment 7 -b 'Hi.'", at=T0 + 9 * S, done=T0 + 12 * S, stdout=url(5) + "\n")
    stranger = make_comment("Hi.", T0 + 10 * S, url=url(5), viewer=False)

    verdict = world.look([stranger])[stranger.id]

    assert (False, "not-viewer") == (verdict.own, verdict.rule)


def test_failed_command_posted_nothing(world: Any, make_comment: MakeComment) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr comment 7 -b 'Ship it.'", at=T0 + 9 * S, done=T0 + 12 * S, failed=True)
    user = make_comment("Ship it.", T0 + 10 * S)

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_exact_tie_between_two_comments_records_nothing(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr review 7 --comment -b 'Done.'", at=T0 + 10 * S, done=T0 + 12 * S)
    first = make_comment("Done.", T0 + 8 * S)
    second = make_comment("Done.", T0 + 14 * S)

    verdicts = world.look([first, second])

    assert [("tie", False), ("tie", False)] == [
        (verdicts[c.id].rule, verdicts[c.id].own) for c in (first, second)
    ]


def test_comment_inside_the_calls_interval_wins_over_a_nearer_one_outside(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr review 7 --comment -b 'Done.'", at=T0 + 10 * S, done=T0 + 20 * S)
    outside = make_comment("Done.", T0 + 21 * S)
    inside = make_comment("Done.", T0 + 12 * S)

    verdicts = world.look([outside, inside])

    assert [False, True] == [verdicts[outside.id].own, verdicts[inside.id].own]


def test_orchestrator_body_counts_only_when_it_named_this_pr(
    world: Any, make_comment: MakeComment
) -> None:
    orchestrator = world.claude("orchestrator", role="orchestrator")
    orchestrator.prompt("Nudge the workers.", T0)
    orchestrator.bash("gh pr comment --body 'Please rebase.'", at=T0 + 10 * S, done=T0 + 12 * S)
    orchestrator.bash(
        "gh pr comment 7 --repo acme/widget --body 'Please add tests.'",
        at=T0 + 20 * S,
        done=T0 + 22 * S,
    )
    unnamed = make_comment("Please rebase.", T0 + 11 * S)
    named = make_comment("Please add tests.", T0 + 21 * S)

    verdicts = world.look([unnamed, named])

    assert [False, True] == [verdicts[unnamed.id].own, verdicts[named.id].own]


def test_worker_post_naming_no_pr_counts_for_its_own_pr(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr comment --body 'Rebased.'", at=T0 + 10 * S, done=T0 + 12 * S)
    own = make_comment("Rebased.", T0 + 11 * S)

    verdict = world.look([own])[own.id]

    assert (True, "body") == (verdict.own, verdict.rule)


@pytest.mark.parametrize(
    ("turns", "own"),
    [((0,), True), ((0, 30), False)],
    ids=["post-in-the-turn-running-2h-before", "post-in-an-earlier-turn"],
)
def test_window_starts_at_the_turn_already_running_two_hours_before(
    world: Any, make_comment: MakeComment, turns: tuple[int, ...], own: bool
) -> None:
    worker = world.claude()
    worker.prompt("Long task.", T0)
    worker.bash(
        "gh pr comment --edit-last -b 'Status: working.'",
        at=T0 + 60 * S,
        done=T0 + 62 * S,
        stdout=url(321) + "\n",
    )
    for minutes in turns[1:]:
        worker.prompt("Another task.", T0 + timedelta(minutes=minutes))
    created = T0 + timedelta(hours=2, minutes=40)  # 2 h before: T0 + 40 min
    edited = make_comment("Status: done.", created, url=url(321))

    verdict = world.look([edited], now=created + 60 * S)[edited.id]

    assert own == verdict.own


def test_review_with_inline_comments_matches_by_link_of_an_inline_comment(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.codex()
    worker.prompt("Reply inline.", T0)
    inline_url = "https://github.com/acme/widget/pull/7#discussion_r4242"
    worker.exec(
        "gh api repos/acme/widget/pulls/7/comments/4200/replies -f body='Fixed in abc123.'",
        f'{{"id":4242,"html_url":"{inline_url}","body":"Fixed in abc123."}}',
        at=T0 + 10 * S,
        done=T0 + 12 * S,
    )
    review = make_comment(
        "",
        T0 + 11 * S,
        kind="review",
        url="https://github.com/acme/widget/pull/7#pullrequestreview-4243",
        inline=[(inline_url, "Fixed in abc123.")],
    )

    verdict = world.look([review])[review.id]

    assert (True, "link") == (verdict.own, verdict.rule)


def test_lookalike_host_link_is_not_taken_as_a_link(world: Any, make_comment: MakeComment) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash(
        'gh pr comment 7 -b "$(git log -1 --format=%s)"',
        at=T0 + 10 * S,
        done=T0 + 12 * S,
        stdout="https://github.com.evil.example/acme/widget/pull/7#issuecomment-700\n",
    )
    user = make_comment("Looks good", T0 + 11 * S, url=url(700))

    verdict = world.look([user])[user.id]

    assert (False, "no-match") == (verdict.own, verdict.rule)


def test_body_computed_by_the_shell_matches_only_by_link(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash(
        'gh pr comment 7 -b "$SUMMARY"', at=T0 + 10 * S, done=T0 + 12 * S, stdout=url(71) + "\n"
    )
    own = make_comment("whatever the variable held", T0 + 11 * S, url=url(71))

    verdict = world.look([own])[own.id]

    assert (True, "link") == (verdict.own, verdict.rule)


def test_explanation_names_the_rule_the_post_and_the_transcript_line(
    world: Any, make_comment: MakeComment
) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr comment 7 -b 'Hi.'", at=T0 + 9 * S, done=T0 + 12 * S, stdout=url(5) + "\n")
    own = make_comment("Hi.", T0 + 10 * S, url=url(5))

    verdict = world.look([own])[own.id]

    assert verdict.post is not None
    assert ("gh pr comment", 3, world.sources[0].path) == (
        verdict.post.tool,
        verdict.post.line,
        verdict.post.source,
    )
    assert f"{world.sources[0].path} line 3" in verdict.explanation


def test_state_round_trips_through_msgpack_and_json(world: Any, make_comment: MakeComment) -> None:
    worker = world.claude()
    worker.prompt("Post.", T0)
    worker.bash("gh pr comment 7 -b 'Hi.'", at=T0 + 9 * S, done=T0 + 12 * S, stdout=url(5) + "\n")
    world.look([make_comment("Hi.", T0 + 10 * S, url=url(5))])

    via_msgpack = msgspec.msgpack.decode(msgspec.msgpack.encode(world.state), type=OwnPostState)
    via_json = msgspec.json.decode(msgspec.json.encode(world.state), type=OwnPostState)

    assert [world.state, world.state] == [via_msgpack, via_json]


def test_match_is_pure_and_leaves_the_given_state_alone(make_comment: MakeComment) -> None:
    from review_monitor import PrRef

    state = OwnPostState()
    pr = PrRef(owner="acme", name="widget", number=7)
    c = make_comment("Hi.", T0)

    _new_state, verdicts = match(
        state, pr, [c], window=timedelta(hours=2), skew=timedelta(seconds=30)
    )

    assert (OwnPostState(), False) == (state, verdicts[c.id].own)
