"""Notebook 04: user isolation, retrieval metrics, read timing, the debug helper, the widget."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

import memlab
import memlab.exercises  # noqa: F401  (registers 04.1 and 04.2)
from memlab import clock
from memlab.check import REGISTRY
from memlab.embed import get_embedder
from memlab.readpath import (
    compare_reads,
    compare_scoping,
    diagnose,
    embedder_check,
    english_cases,
    evidence_cases,
    filter_then_rank,
    leak_attempts,
    mean_reciprocal_rank,
    rank_of,
    tool_read,
    verdict_of,
    wrong_way_search,
)
from memlab.retrieve import retrieve
from memlab.store import Store
from memlab.types import Memory
from memlab.widgets.search import SearchDashboard, search_table

TAIPEI = ZoneInfo("Asia/Taipei")
OSAKA = "幫我排下週和大阪客戶的會議"
ATTEMPTS = [
    "週報要寄給誰?", "我的狗叫豆花嗎?", "我妹妹叫什麼名字?", "我用什麼 app 記筆記?",
    "我在藍鵲支付的職稱是什麼?", "我週末去抱石嗎?", "我住在台中嗎?", "我的手機是 Pixel 9 嗎?",
    "我喝咖啡加不加糖?", "阿哲的通勤方式是什麼?",
]


@pytest.fixture(scope="module")
def e5():
    return get_embedder("e5")


@pytest.fixture(scope="module")
def shared(e5):
    """小林 + 阿美 (xiaolin, to the end) and 阿哲 (lab) in one store."""
    with clock.frozen("2026-05-10T09:00:00+08:00"):  # restored afterwards: no leak into other tests
        store = Store()
        memlab.ingest(store, memlab.load_dataset("xiaolin"), embedder=e5)
        memlab.ingest(store, memlab.load_dataset("lab"), embedder=e5)
    yield store
    store.close()


@pytest.fixture(scope="module")
def after_s6_e5(e5):
    store = Store()
    memlab.ingest(store, memlab.load_dataset("xiaolin"), users=["u_017"],
                  until=datetime(2026, 4, 21, tzinfo=TAIPEI), embedder=e5)
    yield store
    store.close()


def _memory(memory_id: str, user_id: str, content: str) -> Memory:
    at = datetime(2026, 3, 1, tzinfo=TAIPEI)
    return Memory(id=memory_id, user_id=user_id, content=content, type="semantic",
                  source_session_id="x1", source_turn=1, created_at=at, confidence="high",
                  source_trusted=True, valid_from=at)


@pytest.fixture
def constructed():
    """User a has one memory; user b has three memories close to the query."""
    embedder = get_embedder("bigram")
    store = Store()
    rows = [("m1", "a", "回答請用英文"), ("m2", "b", "週報寄給 Leo"),
            ("m3", "b", "週報每週五寄出"), ("m4", "b", "週報副本寄給美玲")]
    vectors = embedder.embed([c for _, _, c in rows])
    for (memory_id, user_id, content), vector in zip(rows, vectors, strict=True):
        store.insert_memory(_memory(memory_id, user_id, content))
        store.put_vector(user_id, memory_id, embedder.name, vector)
    yield store, embedder
    store.close()


# -- filter-then-rank and the wrong way ---------------------------------------------------

def test_filter_then_rank_only_ranks_the_users_rows():
    rows = [("b", "m9", 0.99), ("a", "m2", 0.5), ("a", "m10", 0.5), ("a", "m3", 0.7)]
    assert filter_then_rank(rows, "a", 2) == ["m3", "m10"]  # tie broken by id string
    assert filter_then_rank(rows, "c", 3) == []
    top1_then_filter = [m for u, m, _ in sorted(rows, key=lambda r: -r[2])[:1] if u == "a"]
    assert top1_then_filter == []  # the wrong order loses a's memories


def test_wrong_way_leaks_without_filter_and_loses_with_it(constructed):
    store, embedder = constructed
    unfiltered = wrong_way_search(store, "a", "週報寄給誰", top_k=2, filter_after=False,
                                  embedder=embedder)
    assert {m.user_id for m, _ in unfiltered} == {"b"}  # leak: b's memories handed to a
    assert wrong_way_search(store, "a", "週報寄給誰", top_k=2, embedder=embedder) == []  # lost
    right = store.similar("a", embedder.name, embedder.embed(["週報寄給誰"], kind="query")[0])
    assert [m.id for m, _ in right] == ["m1"]


def test_compare_scoping_on_the_shared_store(shared, e5):
    frame = compare_scoping(shared, "u_042", "週報要寄給誰?", embedder=e5)
    assert list(frame["leaked"]) == [5, 0, 0]
    assert list(frame["own_lost"]) == [2, 2, 0]
    assert frame.iloc[2]["returned"] == "m7, m8"


def test_user_b_ten_attempts_on_a_leak_nothing(shared, e5):
    table = leak_attempts(shared, victim="u_101", attacker="u_042", queries=ATTEMPTS, embedder=e5)
    assert len(table) == 10
    assert table["leaks"].sum() == 0
    assert (table["leaked_ids"] == "").all()
    own = {m.id for m in shared.memories("u_042", status="all")}
    for retrieved in table["retrieved"]:
        assert set(retrieved.split(", ")) <= own
    assert table["answer"].str.startswith("不知道").all()


def test_leak_detector_is_not_vacuous(shared, e5):
    # Asking as the owner must register the owner's memories as "leaks": the check can fire.
    table = leak_attempts(shared, victim="u_101", attacker="u_101", queries=ATTEMPTS[:3],
                          embedder=e5)
    assert (table["leaks"] > 0).all()


# -- metrics ------------------------------------------------------------------------------

def test_mrr_and_rank_of():
    assert mean_reciprocal_rank([1, 2, 4]) == pytest.approx((1 + 0.5 + 0.25) / 3)
    assert mean_reciprocal_rank([None, 2]) == pytest.approx(0.25)
    assert mean_reciprocal_rank([]) == 0.0
    assert rank_of(["m3", "m1", "m4"], {"m4", "m1"}) == 2
    assert rank_of(["m3"], {"m9"}) is None


def test_exercises_04_registered_and_pass_their_reference():
    for exercise_id in ("04.1", "04.2"):
        exercise = REGISTRY[exercise_id]
        assert exercise.cases
        assert memlab.check(exercise_id, exercise.reference) is exercise.reference


def test_evidence_cases_point_at_the_evidence_memories(shared):
    lab = memlab.load_dataset("lab")
    cases, passages = evidence_cases(shared, lab, "u_101")
    assert len(cases) >= 15
    assert all(set(c.gold) <= set(passages) for c in cases)
    notes = next(c for c in cases if "筆記" in c.query and "app" in c.query)
    assert "Obsidian" in passages[notes.gold[0]]


def test_minilm_is_english_only(shared, e5):
    lab = memlab.load_dataset("lab")
    checks = {"zh": evidence_cases(shared, lab, "u_101"), "en": english_cases()}
    table = embedder_check({"e5": e5, "minilm": get_embedder("minilm")}, checks)
    mrr = table.set_index(["embedder", "check"])["mrr"]
    assert mrr[("minilm", "en")] >= 0.9
    assert mrr[("minilm", "zh")] < mrr[("e5", "zh")] - 0.2


# -- when to read -------------------------------------------------------------------------

def test_osaka_auto_retrieval_misses_the_timezone_tool_read_gets_it(after_s6_e5, e5):
    table = compare_reads(after_s6_e5, "u_017", OSAKA, top_k=2, embedder=e5)
    assert list(table["has_timezone"]) == [False, True, True]
    assert "m4" not in table.iloc[0]["memory_ids"]
    assert "m4" in table.iloc[2]["memory_ids"]


def test_tool_read_searches_when_the_injected_layer_lacks_the_timezone(e5):
    store = Store()
    memlab.ingest(store, memlab.load_dataset("xiaolin"), users=["u_017"],
                  until=datetime(2026, 4, 21, tzinfo=TAIPEI), embedder=e5)
    store.set_injected("u_017", [])
    trace = tool_read(store, "u_017", OSAKA, embedder=e5)
    call = trace[trace["tool"] == "search_memory"].iloc[0]
    assert call["argument"] == "時區"
    assert call["ids"].split(", ")[0] == "m4"
    store.close()


# -- not stored vs not retrieved ----------------------------------------------------------

def test_diagnose_tells_the_cases_apart(after_s6_e5, shared, e5):
    assert verdict_of(diagnose(after_s6_e5, "u_017", OSAKA, "東京", top_k=2, embedder=e5)) \
        == "not retrieved"
    assert verdict_of(diagnose(after_s6_e5, "u_017", "我在哪個城市上班?", "m4", embedder=e5)) \
        == "retrieved"
    assert verdict_of(diagnose(after_s6_e5, "u_017", "我以前在哪裡上班?", "台北", embedder=e5)) \
        == "inactive"
    deleted = diagnose(shared, "u_017", "我在哪個城市上班?", "東京", embedder=e5)
    assert verdict_of(deleted) == "not stored"
    assert bool(deleted.iloc[0]["ok"])  # said in the transcript, yet not stored
    never = diagnose(shared, "u_101", "我養的貓叫什麼?", "貓", embedder=e5)
    assert verdict_of(never) == "not stored" and not never.iloc[0]["ok"]


def test_diagnose_not_indexed(e5):
    store = Store()
    memlab.ingest(store, memlab.load_dataset("xiaolin"), users=["u_017"],
                  until=datetime(2026, 4, 21, tzinfo=TAIPEI), embedder=e5)
    store.delete_vectors("u_017", ["m4"])
    assert verdict_of(diagnose(store, "u_017", "我在哪個城市上班?", "m4", embedder=e5)) \
        == "not indexed"
    store.close()


# -- widget -------------------------------------------------------------------------------

def test_search_table_and_dashboard_callbacks(shared, e5):
    table = search_table(shared, "u_101", "週報要寄給誰?", top_k=3, embedder=e5)
    assert list(table["rank"]) == [1, 2, 3]
    assert {"cosine", "lexical", "slot", "score"} <= set(table.columns)
    assert table.iloc[0]["id"] == "m35"
    assert search_table(shared, "u_101", "  ", embedder=e5).empty

    dash = SearchDashboard(shared, user_id="u_101", query="週報要寄給誰?", top_k=3, embedder=e5)
    assert "m35" in dash.panel.value and "週報要寄給誰" in dash.summary.value
    dash.user.value = "u_042"  # another user: only their own memories, never u_101's
    assert "m35" not in dash.panel.value and "m7" in dash.panel.value
    dash.top_k.value = 1
    assert len(dash.table()) == 1
    dash.query.value = ""
    assert "沒有結果" in dash.panel.value
    assert {h.memory.user_id for h in retrieve(shared, "u_042", "週報要寄給誰?", embedder=e5)} \
        == {"u_042"}
