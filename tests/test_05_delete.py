"""05_delete: the inspector API (view / edit / delete), deletion scope, dreams, decay, widget."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest

from memlab import clock, decay, forget, inspect_memory, layers
from memlab.answer import answer
from memlab.check import REGISTRY, check
from memlab.errors import NotFoundError
from memlab.exercises.ex05 import cascade_ids
from memlab.history import chain
from memlab.judge import is_abstention
from memlab.pipeline import carry_out, dream, ingest
from memlab.store import Store
from memlab.widgets.inspector import MemoryInspector

U = "u_017"
WORK = ["東京", "台北", "UTC+9", "UTC+8"]


@pytest.fixture(autouse=True)
def frozen_clock():
    with clock.frozen("2026-05-10T09:00:00+08:00"):
        yield


@pytest.fixture
def before_s8(xiaolin):
    """Every session ingested, s8's deletion request not yet carried out."""
    store = Store()
    store.report = ingest(store, xiaolin, users=[U], defer_deletions=True)
    yield store
    store.close()


def test_view_lists_quarantined_and_hides_history(before_s8):
    shown = inspect_memory.view(before_s8, U)
    assert list(shown["id"]) == ["m1", "m3", "m4", "m5", "m6"]
    assert shown.set_index("id").loc["m6", "status"] == "quarantined"
    assert "m2" in set(inspect_memory.view(before_s8, U, include_history=True)["id"])


def test_detail_shows_chain_sources_and_events(before_s8):
    card = inspect_memory.detail(before_s8, U, "m4")
    assert list(card["chain"]["id"]) == ["m2", "m4"]
    assert list(card["sources"]["ref"]) == ["s6:1"]
    assert "SUPERSEDE" in set(card["events"]["op"])
    with pytest.raises(NotFoundError):
        inspect_memory.detail(before_s8, U, "m99")


def test_edit_never_overwrites(before_s8):
    new = inspect_memory.edit(before_s8, U, "m1", "回答用條列,最多五點")
    old = before_s8.get_memory(U, "m1")
    assert old.content == "回答用條列,最多三點"  # old content still there
    assert (old.status, old.superseded_by) == ("superseded", new.id)
    assert old.valid_to == new.valid_from
    assert [m.id for m in chain(before_s8, U, new.id)] == ["m1", new.id]
    events = before_s8.events(U)
    edit = events[events["op"] == "EDIT"]
    assert list(zip(edit["memory_id"], edit["target_id"], edit["actor"], strict=True)) == [
        (new.id, "m1", "user")]
    assert "m1" not in before_s8.vector_ids(U) and new.id in before_s8.vector_ids(U)
    assert any("五點" in line for line in layers.injected_lines(before_s8, U))
    assert not any("三點" in line for line in layers.injected_lines(before_s8, U))
    assert before_s8.sources(U, new.id) == ["s1:2"]  # provenance kept
    dream(before_s8, U)  # re-reading s1:2 ("三點") does not bring the old value back
    current = [m.content for m in before_s8.memories(U) if m.key == "answer_format"]
    assert current == ["回答用條列,最多五點"]


def test_edit_refuses_history_and_empty_content(before_s8):
    with pytest.raises(ValueError, match="superseded"):
        inspect_memory.edit(before_s8, U, "m2", "在高雄上班")
    with pytest.raises(ValueError, match="empty"):
        inspect_memory.edit(before_s8, U, "m1", "  ")
    assert before_s8.get_memory(U, "m2").content == "在台北上班,時區 UTC+8"


def test_delete_reaches_every_layer_and_dream_does_not_resurrect(before_s8):
    before = inspect_memory.footprint(before_s8, U, ["m2", "m4"], WORK).set_index("layer")
    assert (before.loc[["notes", "index", "pages", "injected"], "count"] > 0).all()
    done = carry_out(before_s8, before_s8.report.deferred[0])
    assert done.memory_ids == ["m2", "m4"]
    assert set(done.tombstoned) >= {"s1:3", "s5:1", "s6:1"}
    after = inspect_memory.footprint(before_s8, U, ["m2", "m4"], WORK).set_index("layer")
    assert (after.loc[["notes", "index", "pages", "injected", "events"], "count"] == 0).all()
    live = [r for r in after.loc["transcripts", "found"].split(", ") if not r.endswith("*")]
    assert "s6:1" not in live and "s1:3" not in live
    table = inspect_memory.scope_table(before.reset_index(), after.reset_index())
    assert list(table["layer"]) == list(inspect_memory.LAYERS)
    checks = inspect_memory.verify_deletion(before_s8, U, ["m2", "m4"], WORK,
                                            questions=["我在哪個城市上班?"])
    assert checks["passed"].all(), checks
    assert not any(w in m.content for m in before_s8.memories(U, status="all") for w in WORK)
    assert is_abstention(answer(before_s8, U, "我在哪個城市上班?").text)


def test_delete_without_tombstones_is_undone_by_dream(before_s8):
    with before_s8.transaction():
        for memory_id in ["m2", "m4"]:
            before_s8.redact_memory(U, memory_id)
            before_s8.delete_vectors(U, [memory_id])
        layers.rebuild(before_s8, U)
    dream(before_s8, U)
    assert any("東京" in m.content for m in before_s8.memories(U))
    checks = inspect_memory.verify_deletion(before_s8, U, ["m2", "m4"], WORK, dream=False)
    assert not checks["passed"].all()


def test_inspector_delete_cascades_and_lab_target(xiaolin):
    from memlab.datasets import load_dataset

    lab = load_dataset("data/lab")
    store = Store()
    report = ingest(store, lab, defer_deletions=True)
    done = carry_out(store, report.deferred[0])
    assert done.memory_ids == ["m11"] and done.tombstoned == ["l03:11"]
    q = next(q for q in lab.questions if q.id == "q_del_allergy")
    checks = inspect_memory.verify_deletion(store, "u_101", ["m11"], ["蝦"], [q.question])
    assert checks["passed"].all(), checks


def test_diagnose_tells_not_retrieved_from_not_stored(before_s8):
    osaka = inspect_memory.diagnose(before_s8, U, "幫我排下週和大阪客戶的會議", "東京", top_k=2)
    assert osaka["stored"] == "m4" and osaka["retrieved"] == "—"
    assert osaka["verdict"].startswith("stored but not retrieved")
    assert inspect_memory.diagnose(before_s8, U, "我希望回答用什麼格式?", "條列")["verdict"] == "retrieved"
    assert inspect_memory.diagnose(before_s8, U, "我養的貓叫什麼?", "貓")["verdict"].startswith(
        "not stored")


def test_cascade_exercise():
    rows = [{"id": "m2", "key": "base_city", "superseded_by": "m4"},
            {"id": "m4", "key": "base_city", "superseded_by": None},
            {"id": "m5", "key": "timezone", "superseded_by": None},
            {"id": "m1", "key": "answer_format", "superseded_by": None}]
    assert cascade_ids(rows, ["m4"], {"base_city": ["timezone"]}) == ["m2", "m4", "m5"]
    assert cascade_ids(rows, ["m2"], {}) == ["m2", "m4"]
    assert cascade_ids(rows, ["m5"], {"base_city": ["timezone"]}) == ["m5"]
    assert {"05.1", "05.2"} <= set(REGISTRY)


def test_check_falls_back_on_unfinished_exercise(capsys):
    def unfinished(*args):
        raise NotImplementedError

    assert check("05.1", unfinished) is REGISTRY["05.1"].reference
    assert "05.1" in capsys.readouterr().out


@pytest.mark.parametrize(("level", "days", "half_life", "expected"), [
    ("high", 10, 90, "high"), ("high", 90, 90, "medium"), ("high", 200, 90, "low"),
    ("medium", 100, 90, "low"), ("low", 400, 90, "ask"), ("medium", -5, 90, "medium"),
    ("high", 365, 30, "ask")])
def test_decayed_confidence(level, days, half_life, expected):
    assert decay.decayed_confidence(level, days, half_life) == expected


def test_decay_table_uses_last_confirmation(before_s8):
    table = decay.decay_table(decay.last_confirmed(before_s8, U), clock.now(), half_life_days=30)
    rows = table.set_index("id")
    assert rows.loc["m1", "last_confirmed"] == "2026-03-02" and rows.loc["m1", "days"] == 68
    assert rows.loc["m1", "now_confidence"] == "low"
    assert rows.loc["m4", "now_confidence"] == "high"
    inspect_memory.edit(before_s8, U, "m1", "回答用條列,最多三點,附上來源")  # the user confirms
    again = decay.decay_table(decay.last_confirmed(before_s8, U), clock.now(), 30).set_index("id")
    assert "m1" not in again.index and (again["now_confidence"] == "high").sum() >= 3


def test_recency_and_ranking():
    assert decay.recency(0) == 1.0 and decay.recency(100) < decay.recency(10) < 1.0
    frame = pd.DataFrame([
        {"id": "a", "relevance": 0.9, "importance": 1, "hours_since": 2000},
        {"id": "b", "relevance": 0.7, "importance": 1, "hours_since": 10},
        {"id": "c", "relevance": 0.6, "importance": 3, "hours_since": 500}])
    only_relevance = decay.rank_with_recency(frame, w_recency=0, w_importance=0)
    assert list(only_relevance["id"]) == ["a", "b", "c"]
    mixed = decay.rank_with_recency(frame)
    assert list(mixed["id"]) == ["b", "c", "a"]  # recency lifts b over a
    assert mixed["score"].is_monotonic_decreasing
    assert mixed[["recency", "importance_n", "relevance_n"]].stack().between(0, 1).all()


def test_resolve_conflict():
    old = {"id": "m3", "at": "2026-01-19", "confidence": "high"}
    assert decay.resolve_conflict(old, {"id": "m18", "at": "2026-03-20", "confidence": "high"}) == "m18"
    assert decay.resolve_conflict(old, {"id": "m30", "at": "2026-04-01", "confidence": "low"}) == "ask"
    assert decay.resolve_conflict(old, {"id": "m9", "at": "2026-01-19", "confidence": "high"}) == "ask"
    assert decay.resolve_conflict({"id": "x", "at": "2026-01-19", "confidence": "low"},
                                  old) == "m3"


def test_inspector_widget_view_edit_delete(before_s8):
    panel = MemoryInspector(before_s8, U)
    assert panel.picker.value == "m1" and panel.content.value == "回答用條列,最多三點"
    assert "取代鏈" in panel.detail.value and "m6" in panel.listing.value
    panel.content.value = "回答用條列,最多四點"
    panel.save_button.click()
    new_id = panel.picker.value
    assert new_id != "m1" and "✓" in panel.message.value
    assert before_s8.get_memory(U, "m1").content == "回答用條列,最多三點"
    assert before_s8.get_memory(U, new_id).content == "回答用條列,最多四點"
    panel.picker.value = "m4"
    panel.delete_button.click()  # first click only arms
    assert before_s8.get_memory(U, "m4").status == "active" and "再按一次" in panel.message.value
    panel.delete_button.click()
    assert before_s8.get_memory(U, "m4").status == "deleted"
    assert before_s8.get_memory(U, "m2").status == "deleted"  # the chain went too
    assert "m4" not in set(panel.picker.options[i][1] for i in range(len(panel.picker.options)))
    panel.history.value = True
    assert "m4" in {v for _, v in panel.picker.options}
    panel.picker.value = "m4"
    assert panel.save_button.disabled and panel.delete_button.disabled


def test_inspector_reports_errors_in_the_message(before_s8):
    panel = MemoryInspector(before_s8, U)
    panel.history.value = True
    panel.picker.value = "m2"  # superseded: history can't be edited
    panel.save_button.disabled = False
    panel.save()
    assert "✗" in panel.message.value
    assert before_s8.get_memory(U, "m2").content == "在台北上班,時區 UTC+8"


def test_every_read_needs_a_user(before_s8):
    from memlab.errors import ScopeError

    with pytest.raises(ScopeError):
        inspect_memory.view(before_s8, "")
    with pytest.raises(ScopeError):
        forget.audit(before_s8, None, "東京")
    assert isinstance(clock.now(), datetime)
