"""Decision records in the store: pruned by age, explained rule by rule (in process)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from comment_wake.app._explain import comment_query, explain_records
from comment_wake.service import DecisionRecord, PermissionEvidence, namespace_of
from comment_wake.service._records import encode_record, record_key
from comment_wake.store import (
    open_sync_store,
    owing,
    prune_reactions,
    prune_records,
    put_record,
    reactions,
    read_record,
    records_under,
    settle_reactions,
)
from comment_wake.wake import RULES
from review_monitor import Notice, NoticePr, PrRef
from review_monitor.store import SyncStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PR = PrRef("octo", "repo", 1)
RULE_NAMES = tuple(rule.name for rule in RULES)


def _record(
    comment: str,
    at: datetime,
    reason: str = "writer",
    outcome: str = "wake",
    rules: tuple[str, ...] = (),
) -> DecisionRecord:
    return DecisionRecord(
        at=at,
        host=PR.host,
        pr=str(PR),
        comment=comment,
        outcome=outcome,
        reason=reason,
        rules=rules,
    )


def _put(store: SyncStore, r: DecisionRecord) -> None:
    with store.write(at=r.at) as tx:
        put_record(tx, namespace_of(PR), record_key(r), encode_record(r))


def test_prune_records_deletes_only_old_records_under_the_prefix(tmp_path: Path) -> None:
    store = open_sync_store(tmp_path / "state.db")
    _put(store, _record("IC_old", T0))
    _put(store, _record("IC_new", T0 + timedelta(days=40)))
    with store.write(at=T0) as tx:
        put_record(tx, "comment-wake/workers", "w1", b"{}")
    pruned = prune_records(store, "comment-wake/decisions/", before=T0 + timedelta(days=10))
    kept = [key.split("/")[0] for _, key, _ in records_under(store, "comment-wake/decisions/")]
    assert (1, ["IC_new"]) == (pruned, kept)
    assert b"{}" == read_record(store, "comment-wake/workers", "w1")
    store.close()


def test_prune_reactions_keeps_pending_ones_whatever_their_age(tmp_path: Path) -> None:
    store = open_sync_store(tmp_path / "state.db")
    _enqueue_and_deliver(store)
    settle_reactions(store, "EYES", done=["IC_done"], at=T0)
    pruned = prune_reactions(store, before=T0 + timedelta(days=1))
    left = [r.subject_id for r in reactions(store)]
    assert (1, ["IC_pending"]) == (pruned, left)
    store.close()


def _enqueue_and_deliver(store: SyncStore) -> None:
    notice = Notice(
        version=1,
        kind="comment-wake",
        key="k1",
        worker="w1",
        pr=NoticePr(host="github.com", repo="octo/repo", number=1, url="", title=""),
        items=(),
        text="x",
        created_at=T0,
    )
    [seq] = store.enqueue([notice], at=T0)
    owe = owing(seq, ["IC_done", "IC_pending"], "EYES", "github.com")
    store.mark_delivered(seq, at=T0, also=owe)


def _verdicts(r: DecisionRecord) -> list[tuple[str, str]]:
    return [(line.rule, line.verdict) for line in explain_records(r)]


def test_explain_stops_at_the_first_rule_the_trace_does_not_pass() -> None:
    r = _record("IC_x", T0, reason="bot", outcome="skip", rules=RULE_NAMES[:4])
    expected = [
        *((name, "pass") for name in RULE_NAMES[:4]),
        ("bot", "stop"),
        *((name, "not reached") for name in RULE_NAMES[5:]),
        ("rate-limit", "not reached"),
    ]
    assert expected == _verdicts(r)


def test_explain_a_wake_passes_every_rule_and_shows_the_permission_answer() -> None:
    answer = PermissionEvidence(login="maintainer", permission="write", checked_at=T0)
    r = DecisionRecord(
        at=T0,
        host=PR.host,
        pr=str(PR),
        comment="IC_x",
        outcome="wake",
        reason="writer",
        permission=answer,
        rules=RULE_NAMES,
    )
    access = next(line for line in explain_records(r) if line.rule == "write-access")
    assert ("pass", f"maintainer has write, answered {T0.isoformat()}") == (
        access.verdict,
        access.evidence,
    )


def test_explain_a_wake_shows_every_rule_passing() -> None:
    r = _record("IC_x", T0, rules=RULE_NAMES)
    assert [*RULE_NAMES, "rate-limit"] == [
        rule for rule, verdict in _verdicts(r) if verdict == "pass"
    ]


def test_explain_shows_where_a_retried_comment_stopped_when_its_watch_ended() -> None:
    # A comment whose lookup failed is skipped "unbound" when the worker is archived: the
    # trace says it passed every rule up to write access, which the reason alone cannot.
    stop = RULE_NAMES.index("write-access")
    r = _record("IC_x", T0, reason="unbound", outcome="skip", rules=RULE_NAMES[:stop])
    line = explain_records(r)[stop]
    assert ("write-access", "stop", "unbound; no permission answer was recorded") == (
        line.rule,
        line.verdict,
        line.evidence,
    )


def test_explain_of_a_comment_the_first_rule_stopped_needs_no_trace() -> None:
    r = _record("IC_x", T0, reason="unbound", outcome="skip")
    assert ("bound", "stop") == _verdicts(r)[0]


def test_explain_of_a_record_without_a_trace_says_the_passes_are_inferred() -> None:
    r = _record("IC_x", T0, reason="bot", outcome="skip")
    assert [("trace", "unknown"), *((name, "pass") for name in RULE_NAMES[:4])] == _verdicts(r)[:5]


def test_a_comment_is_found_by_node_id_database_id_or_url() -> None:
    url = "https://github.com/octo/repo/pull/1#issuecomment-1234"
    assert [("IC_abc", None), (None, 1234), (None, 1234)] == [
        comment_query("IC_abc"),
        comment_query("1234"),
        comment_query(url),
    ]
