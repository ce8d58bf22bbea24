"""Consolidation (stage 03): reviewable plans, one-transaction apply, supersede chains and
as-of answers, sync vs background writes, dreaming, and the never-overwrite property."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlab
from memlab import consolidate, forget, layers
from memlab.embed import BigramEmbedder
from memlab.errors import LLMError
from memlab.exercises.ex03 import choose_op, reminder_for, value_on
from memlab.extract import extract_offline
from memlab.history import as_of, chain, history, parse_day, previous
from memlab.pipeline import dream, ingest
from memlab.retrieve import retrieve
from memlab.store import Store
from memlab.types import Candidate
from memlab.writes import needed_now, write_session
from tests.fake_openai import Sleep, fake_openai_server  # noqa: F401  (the `fake_openai` fixture)

TAIPEI = ZoneInfo("Asia/Taipei")
U = "u_101"
CHANGES = ["employer", "home_city", "device:手機", "report_recipient:週報", "commute"]


@pytest.fixture(scope="module")
def lab_run(lab):
    store = Store()
    report = ingest(store, lab)
    yield store, report
    store.close()


def snapshot(store: Store) -> dict[str, list]:
    tables = [r[0] for r in store.con.execute(
        "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
    return {t: sorted(map(repr, store.con.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}


# -- the lab dataset ------------------------------------------------------------------------
def test_all_five_lab_changes_supersede(lab_run):
    store, report = lab_run
    for key in CHANGES:
        versions = history(store, U, key)
        assert list(versions["status"]) == ["superseded", "active"], (key, versions)
        old, new = versions.iloc[0], versions.iloc[1]
        assert old["superseded_by"] == new["id"] and old["valid_to"] == new["valid_from"]
        ops = [op for op in report.log if op.op == "SUPERSEDE" and op.candidate.key == key]
        assert [op.target_id for op in ops] == [old["id"]]
    assert previous(store, U, "employer").value == "小島選物"
    assert previous(store, U, "device:手機").value == "iPhone 13"


def test_lab_plan_is_a_noop_and_trivia_and_poison_are_not_active(lab_run, lab):
    store, report = lab_run
    plan = [op for op in report.log if op.candidate.source_session_id == "l06"
            and op.candidate.source_turn == 5]
    assert [op.op for op in plan] == ["NOOP"] and plan[0].candidate.is_plan
    events = store.events(U)
    assert "plan" in events[events["source"] == "l06:5"]["reason"].iloc[0]
    trivial = {r for p in lab.answer_key if p.kind == "trivial" for r in p.evidence}
    assert trivial == {"l04:1", "l06:1"}
    active = store.memories(U, status="active")
    assert not any(f"{m.source_session_id}:{m.source_turn}" in trivial for m in active)
    clip = [m for m in store.memories(U, status="all") if "digest-copy" in m.content]
    assert [(m.status, m.source_trusted) for m in clip] == [("quarantined", False)]
    assert not any("digest-copy" in t for t in layers.injected_lines(store, U))
    assert not any("digest-copy" in h.memory.content for h in retrieve(store, U, "摘要寄到哪", 20))


def test_lab_active_fewer_than_raw_and_every_memory_has_a_source(lab_run):
    store, report = lab_run
    memories = store.memories(U, status="all")
    assert len(store.memories(U, status="active")) < report.candidates
    assert all(m.source_session_id and m.source_turn >= 1 for m in memories)
    assert report.deleted and all(store.get_memory(U, i).status == "deleted" for i in report.deleted)


def test_as_of_and_history(lab_run):
    store, _ = lab_run
    assert as_of(store, U, "employer", "3 月 15 日", year=2026).value == "小島選物"
    assert as_of(store, U, "employer", "2026-03-20").value == "藍鵲支付"
    assert as_of(store, U, "employer", "2026-01-01") is None
    assert as_of(store, U, "home_city", "2026-04-01").value == "新北"  # the plan changed nothing
    first = history(store, U, "employer").iloc[0]["id"]
    assert [m.value for m in chain(store, U, first)] == ["小島選物", "藍鵲支付"]
    assert parse_day("2026年4月8日") == parse_day("2026-04-08")
    with pytest.raises(ValueError, match="year"):
        parse_day("4 月 8 日")


def test_xiaolin_as_of(after_s6):
    assert as_of(after_s6, "u_017", "base_city", "3 月 15 日", year=2026).value == "台北"
    assert as_of(after_s6, "u_017", "base_city", "2026-04-21").value == "東京"
    assert previous(after_s6, "u_017", "base_city").id == "m2"


# -- plan → review → apply ----------------------------------------------------------------
def _candidate(value: str, day: int, key: str | None = "base_city", trusted: bool = True,
               plan: bool = False, turn: int = 1, user: str = "u_x", content: str | None = None
               ) -> Candidate:
    return Candidate(user_id=user, content=content or f"{key} {value}", type="semantic", key=key,
                     value=value, source_session_id=f"d{day}", source_turn=turn,
                     created_at=datetime(2026, 1, 1, tzinfo=TAIPEI) + timedelta(days=day),
                     confidence="high", source_trusted=trusted, is_plan=plan, evidence=value)


def test_plan_is_reviewable_and_writes_nothing():
    store, emb = Store(), BigramEmbedder()
    consolidate.apply(store, "u_x", consolidate.plan(store, "u_x", [_candidate("台北", 1)]), emb)
    before = snapshot(store)
    ops = consolidate.plan(store, "u_x", [_candidate("東京", 5, plan=True), _candidate("東京", 9),
                                          _candidate("x@y.z", 9, key="forward", trusted=False)])
    assert snapshot(store) == before
    frame = consolidate.ops_frame(ops)
    assert list(frame["op"]) == ["NOOP", "SUPERSEDE", "QUARANTINE"]
    assert list(frame["target"]) == ["", "m1", ""] and frame["reason"].str.len().min() > 10
    ids = consolidate.apply(store, "u_x", ops, emb)
    assert ids == {"new:1": "m2", "new:2": "m3"}
    assert store.get_memory("u_x", "m1").superseded_by == "m2"


def test_apply_is_one_transaction(monkeypatch):
    store, emb = Store(), BigramEmbedder()
    ops = consolidate.plan(store, "u_x", [_candidate("台北", 1), _candidate("咖啡", 2, key="drink")])
    before = snapshot(store)
    calls = []
    original = store.insert_memory

    def failing(memory):
        calls.append(memory.id)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        original(memory)

    monkeypatch.setattr(store, "insert_memory", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        consolidate.apply(store, "u_x", ops, emb)
    assert snapshot(store) == before  # the first insert was rolled back with the second
    assert store.memories("u_x", status="all") == [] and store.events("u_x").empty


def test_older_statement_does_not_roll_back_and_duplicates_merge():
    store, emb = Store(), BigramEmbedder()
    for c in (_candidate("台北", 1), _candidate("東京", 10)):
        consolidate.apply(store, "u_x", consolidate.plan(store, "u_x", [c]), emb)
    ops = consolidate.plan(store, "u_x", [_candidate("大阪", 5), _candidate("東京", 12, turn=2)])
    assert [(o.op, o.target_id) for o in ops] == [("NOOP", None), ("MERGE", "m2")]
    consolidate.apply(store, "u_x", ops, emb)
    assert store.sources("u_x", "m2") == ["d10:1", "d12:2"]


# -- writes: sync in the session, the rest in the background ------------------------------
def test_sync_writes_only_what_every_session_needs(xiaolin):
    store = Store()
    s1, s3 = (s for s in xiaolin.sessions if s.id in ("s1", "s3"))
    ops = write_session(store, s1)
    assert {o.candidate.key for o in ops} == {"answer_format", "base_city"}
    assert any("條列" in t for t in layers.injected_lines(store, "u_017"))  # usable at once
    assert write_session(store, s3) == []  # an episode can wait
    assert not any(m.type == "episodic" for m in store.memories("u_017"))
    dream(store, "u_017")
    episodes = [m for m in store.memories("u_017") if m.type == "episodic"]
    assert len(episodes) == 1 and "週會" in episodes[0].content
    assert len(store.memories("u_017", status="all")) == 3  # dreaming merged, not duplicated
    c = extract_offline(s1.turns)
    assert [needed_now(x) for x in c] == [True, True]


def test_dream_rereads_transcripts_and_skips_tombstones(xiaolin):
    store = Store()
    for session in xiaolin.sessions[:6]:
        write_session(store, session, sync=False)  # transcripts only, nothing extracted yet
    assert store.memories("u_017", status="all") == []
    dream(store, "u_017")
    by_ref = {f"{m.source_session_id}:{m.source_turn}": m for m in store.memories("u_017", "all")}
    assert {"s1:2", "s1:3", "s3:1", "s6:1"} <= set(by_ref)
    assert by_ref["s1:3"].status == "superseded" and by_ref["s6:1"].status == "active"
    forget.delete_memory(store, "u_017", by_ref["s1:2"].id)
    assert "s1:2" in store.tombstoned_refs("u_017")
    report = dream(store, "u_017")
    assert not any("條列" in m.content for m in store.memories("u_017", status="all"))
    assert not any(op.candidate.source_turn == 2 and op.candidate.source_session_id == "s1"
                   for op in report.log)  # the tombstoned turn was never read again
    ids = [m.id for m in store.memories("u_017", status="all")]
    dream(store, "u_017")
    assert [m.id for m in store.memories("u_017", status="all")] == ids  # nothing new, ids kept


# -- exercises ----------------------------------------------------------------------------
def test_exercise_references_agree_with_the_system():
    tokyo = {"key": "base_city", "value": "台北", "status": "active", "at": "2026-03-02"}
    new = {"key": "base_city", "value": "東京", "trusted": True, "plan": False, "at": "2026-04-20"}
    assert choose_op(new, [tokyo]) == "SUPERSEDE"
    assert choose_op(new | {"plan": True}, [tokyo]) == "NOOP"
    assert value_on([("2026-03-02", "2026-04-20", "台北"), ("2026-04-20", None, "東京")],
                    "2026-03-15") == "台北"
    assert reminder_for("2026-04-21 10:00", "東京", 15, "東京") == "09:45"
    assert reminder_for("2026-04-21 10:00", "台北", 15, "東京") == "10:45"


def test_reminder_check_runs(capsys):
    assert memlab.check("03.3", reminder_for) is reminder_for
    assert "✓" in capsys.readouterr().out


# -- the property: nothing is ever overwritten --------------------------------------------
_candidates = st.lists(
    st.tuples(st.sampled_from(["city", "phone", None]), st.sampled_from(["A", "B", "C"]),
              st.booleans(), st.booleans(), st.integers(0, 40)),
    min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(_candidates, min_size=1, max_size=5),
       deletions=st.lists(st.integers(0, 30), max_size=2))
def test_nothing_is_ever_overwritten(batches, deletions):
    store, emb = Store(), BigramEmbedder()
    seen: dict[str, str] = {}  # memory id → content when first seen
    applied: list[tuple] = []  # (op, resolved id, candidate)
    deleted: set[str] = set()
    for b, batch in enumerate(batches):
        cands = [_candidate(v, day, key=k, trusted=trusted, plan=plan and k is not None,
                            turn=i + 1, content=f"{k or 'note'} {v} #{b}.{i}").model_copy(
                     update={"source_session_id": f"b{b}"})
                 for i, (k, v, trusted, plan, day) in enumerate(batch)]
        ops = consolidate.plan(store, "u_x", cands)
        ids = consolidate.apply(store, "u_x", ops, emb)
        for i, op in enumerate(ops):
            target = ids.get(op.target_id, op.target_id)
            applied.append((op.op, ids.get(f"new:{i}", target), op.candidate))
        if b < len(deletions) and deletions[b] < len(store.memories("u_x", status="all")):
            victim = store.memories("u_x", status="all")[deletions[b]]
            if victim.status != "deleted":
                deleted |= set(forget.delete_memory(store, "u_x", victim.id).memory_ids)
        rows = {m.id: m for m in store.memories("u_x", status="all")}
        for memory_id, content in seen.items():  # ids never change, content never rewritten
            assert memory_id in rows
            assert rows[memory_id].content == (content if memory_id not in deleted else "")
        seen.update({i: m.content for i, m in rows.items() if i not in seen})
        events = store.events("u_x")
        for op, memory_id, c in applied:  # every earlier content is still reachable
            ref = f"{c.source_session_id}:{c.source_turn}"
            if memory_id in deleted:
                assert rows[memory_id].status == "deleted"
                continue
            if op in ("ADD", "SUPERSEDE", "QUARANTINE"):
                assert rows[memory_id].content == c.content
            elif op == "MERGE":
                assert ref in store.sources("u_x", memory_id)
            assert ((events["source"] == ref) & (events["op"] == op)).any()
        for m in rows.values():  # chains are links, never cycles, never dangling
            if m.superseded_by:
                assert m.superseded_by in rows and m.valid_to is not None
            hops, link = 0, m
            while link.superseded_by and hops <= len(rows):
                link, hops = rows[link.superseded_by], hops + 1
            assert hops <= len(rows)
        for key in ("city", "phone"):
            assert sum(m.key == key and m.status == "active" for m in rows.values()) <= 1


# -- the LLM path: consolidation through the model, with offline guards --------------------


def _seeded() -> Store:
    store = Store()
    consolidate.apply(store, "u_x", consolidate.plan(store, "u_x", [_candidate("台北", 1)]),
                      BigramEmbedder())
    return store


def test_llm_decides_trusted_facts_guards_decide_plans_and_untrusted(llm_env):
    store = _seeded()
    llm_env.push({"op": "SUPERSEDE", "target_id": "m1", "reason": "moved"})
    ops = consolidate.plan(store, "u_x", [
        _candidate("東京", 5, plan=True), _candidate("x@y.z", 6, key="forward", trusted=False),
        _candidate("東京", 9)], backend="openai")
    assert [(o.op, o.target_id) for o in ops] == [("NOOP", None), ("QUARANTINE", None),
                                                   ("SUPERSEDE", "m1")]
    assert len(llm_env.requests) == 1  # neither the plan nor the pasted text reached the model
    shown = llm_env.requests[0]["messages"][1]["content"]
    assert "[m1]" in shown and "value: 東京" in shown
    assert ops[2].reason.startswith("LLM:")


def test_llm_cannot_roll_history_back(llm_env):
    store = _seeded()
    consolidate.apply(store, "u_x", consolidate.plan(store, "u_x", [_candidate("東京", 9)]),
                      BigramEmbedder())
    llm_env.push({"op": "SUPERSEDE", "target_id": "m2", "reason": "says Osaka"})
    [op] = consolidate.plan(store, "u_x", [_candidate("大阪", 3)], backend="openai")
    assert op.op == "NOOP" and "offline guard" in op.reason


def _ingest_rest_with_llm(store, xiaolin):
    return ingest(store, xiaolin, users=["u_017"], backend="openai")


def test_malformed_llm_output_writes_nothing(llm_env, xiaolin):
    store = Store()
    ingest(store, xiaolin, until=datetime(2026, 4, 9, tzinfo=TAIPEI), users=["u_017"])
    before = snapshot(store)
    llm_env.push(*["this is not json"] * 3)
    with pytest.raises(LLMError, match="3 attempt") as info:
        _ingest_rest_with_llm(store, xiaolin)
    assert "Nothing was written" in str(info.value)
    assert len(llm_env.requests) == 3  # 1 + MEMLAB_LLM_RETRIES, then stop
    assert snapshot(store) == before


def test_malformed_consolidation_writes_nothing(llm_env, xiaolin):
    store = Store()
    ingest(store, xiaolin, until=datetime(2026, 4, 9, tzinfo=TAIPEI), users=["u_017"])
    before = snapshot(store)
    tokyo = {"content": "人在東京", "type": "semantic", "key": "base_city", "value": "東京",
             "source_turn": 1, "confidence": "high", "source_trusted": True, "is_plan": False,
             "outward_action": False, "evidence": "我已經在東京了"}
    llm_env.push({"memories": [tokyo]}, {"op": "MERGE"}, {"op": "ADD"}, {"op": "maybe"})
    with pytest.raises(LLMError, match="ConsolidationDecision"):
        _ingest_rest_with_llm(store, xiaolin)
    assert snapshot(store) == before


def test_llm_timeout_is_reported_quickly(llm_env, monkeypatch, xiaolin):
    import time

    monkeypatch.setenv("MEMLAB_LLM_TIMEOUT", "1")
    store = Store()
    ingest(store, xiaolin, until=datetime(2026, 4, 9, tzinfo=TAIPEI), users=["u_017"])
    before = snapshot(store)
    llm_env.push(Sleep(10, '{"memories": []}'))
    start = time.monotonic()
    with pytest.raises(LLMError, match="timed out after 1s"):
        _ingest_rest_with_llm(store, xiaolin)
    assert time.monotonic() - start < 4 and snapshot(store) == before


def test_a_failed_first_session_leaves_an_empty_store(llm_env, xiaolin):
    store = Store()
    before = snapshot(store)
    llm_env.push(*["not json"] * 3)
    with pytest.raises(LLMError):
        _ingest_rest_with_llm(store, xiaolin)
    assert snapshot(store) == before and store.user_ids() == []
