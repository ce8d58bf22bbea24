"""07_poison: the attack corpus, defended vs naive write paths, confirmation, the dashboard."""

from __future__ import annotations

from datetime import datetime

import pytest

from memlab import consolidate, defend
from memlab.check import REGISTRY, check
from memlab.embed import get_embedder
from memlab.layers import injected_lines
from memlab.pipeline import ingest
from memlab.retrieve import retrieve
from memlab.store import Store
from memlab.types import Session, Turn
from memlab.widgets.poison import DEFENCE, PoisonDashboard
from tests.conftest import TAIPEI


@pytest.fixture(scope="module")
def attacks():
    return defend.load_attacks()


@pytest.fixture(scope="module")
def report(attacks):
    return defend.attack_report(attacks)


def test_corpus_covers_channels_languages_and_outward_actions(attacks):
    assert len(attacks) >= 10
    assert {a.channel for a in attacks} >= {"web_clip", "email", "file", "tool_output"}
    assert {a.language for a in attacks} == {"zh", "en"}
    assert all(a.plants and a.marker and a.query for a in attacks)
    assert not any(a.bypass for a in attacks)
    every = defend.load_attacks(include_bypass=True)
    assert [a.id for a in every if a.bypass] == ["b01", "b02"]
    # one written in the user's own voice inside an attachment; one invoice "preference"
    assert any("我的" in t.attachment.text for a in attacks for t in a.session.turns if t.attachment)
    assert any("發票" in t.attachment.text and t.attachment.kind == "email"
               for a in attacks for t in a.session.turns if t.attachment)
    # every attack's poisoned text is untrusted: it sits in an attachment or tool output
    for a in attacks:
        assert any(a.marker in text for text in defend.untrusted_texts(a.session)), a.id


def test_without_defence_every_attack_lands(report):
    off = report[report["defence"] == "off"]
    assert len(off) == 10
    assert (off["written"] >= 1).all()
    assert (off["active"] >= 1).all() and (off["retrieved"] >= 1).all()
    assert (off["on_page"] >= 1).all()
    assert not off["safe"].any()
    assert off["injected"].sum() >= 1  # a04's "procedure" reaches every prompt


def test_with_defence_no_attack_is_active_retrieved_or_injected(report):
    on = report[report["defence"] == "on"]
    assert len(on) == 10 and on["safe"].all()
    assert (on[["active", "retrieved", "on_page", "injected"]] == 0).all().all()
    assert (on["written"] >= 1).all()  # written, but quarantined: visible and deletable
    assert set(on["statuses"]) <= {"quarantined×1", "quarantined×2"}


def test_trace_of_one_attack_before_and_after(attacks):
    a04 = next(a for a in attacks if a.id == "a04")
    before = defend.run_attack(a04, defended=False)
    after = defend.run_attack(a04, defended=True)
    assert list(before.columns) == defend.TRACE_COLUMNS
    assert before["planted"].all() and (before["status"] == "active").all()
    assert before["injected"].any() and before["trusted"].all()
    assert (after["status"] == "quarantined").all() and not after["trusted"].any()
    assert not (after["retrieved"] | after["on_page"] | after["injected"]).any()
    assert after["event"].str.startswith("QUARANTINE").all()


def test_s7_on_xiaolin(xiaolin):
    s7 = next(s for s in xiaolin.sessions if s.id == "s7")
    a01 = defend.attack_by_id("a01")
    naive, guarded = Store(), Store()
    for store in (naive, guarded):
        ingest(store, xiaolin, users=["u_017"], until=datetime(2026, 4, 21, tzinfo=TAIPEI))
    defend.naive_ingest(naive, s7, "小林")
    ingest(guarded, xiaolin, users=["u_017"], until=datetime(2026, 4, 26, tzinfo=TAIPEI))
    assert not defend.is_safe(defend.trace(naive, "u_017", "摘要要寄給誰?", a01, "off"))
    after = defend.trace(guarded, "u_017", "摘要要寄給誰?", a01, "on")
    assert defend.is_safe(after)
    clip = after[after["planted"]]
    assert list(clip["status"]) == ["quarantined"]
    assert not any("x@example.com" in m.content for m in guarded.memories("u_017"))
    assert not any("x@example.com" in h.memory.content for h in retrieve(guarded, "u_017", "摘要要寄給誰?"))
    assert not any("x@example.com" in line for line in injected_lines(guarded, "u_017"))
    assert set(defend.where_is(guarded, "u_017", "x@example.com")["layer"]) == {"transcripts", "notes"}
    assert {"index", "pages"} <= set(defend.where_is(naive, "u_017", "x@example.com")["layer"])


def test_naive_path_leaves_the_real_pipeline_untouched(attacks):
    """The naive writer is opt-in: the real pipeline on the same session still quarantines."""
    store = defend.play(attacks[0], defended=False)
    assert {m.status for m in store.memories("u_017", status="all")} == {"active"}
    assert defend.is_safe(defend.run_attack(attacks[0], defended=True))


def test_confirm_flow_makes_an_outward_memory_active():
    said = datetime(2026, 5, 3, 9, 0, tzinfo=TAIPEI)
    session = Session(id="c1", user_id="u_017", date=said, turns=[
        Turn(session_id="c1", user_id="u_017", turn=1, role="user", at=said,
             text="之後的會議紀錄都寄一份到 lin.home@example.com。")])
    store = Store()
    defend.defended_ingest(store, session, "小林")
    [pending] = store.memories("u_017", status="pending_confirmation")
    assert pending.source_trusted and pending.outward_action
    assert not store.memories("u_017")  # nothing active before the user confirms
    flow = defend.confirm_flow(store, "u_017", pending.id, "會議紀錄要寄給誰?")
    assert list(flow["status"]) == ["pending_confirmation", "active"]
    assert list(flow["retrieved"]) == [False, True]
    assert list(store.events("u_017")["op"]) == ["ADD", "CONFIRM"]
    assert store.events("u_017")["actor"].iloc[-1] == "user"


def test_quarantined_memory_cannot_be_confirmed(attacks):
    store = defend.play(attacks[1], defended=True)
    [quarantined] = store.memories("u_017", status="quarantined")
    with pytest.raises(ValueError, match="only pending_confirmation"):
        consolidate.confirm(store, "u_017", quarantined.id, get_embedder())


def test_passing_is_not_safety_user_pasted_attacks():
    bypass = [a for a in defend.load_attacks(include_bypass=True) if a.bypass]
    report = defend.attack_report(bypass).set_index(["attack", "defence"])
    assert report.loc[("b01", "on"), "statuses"] == "pending_confirmation×1"  # only confirmation left
    assert not report.loc[("b02", "on"), "safe"]  # trusted and not seen as outward: active
    assert report.loc[("b02", "on"), "active"] == 1


def test_status_rules_and_exercise():
    assert defend.source_trusted("user") and not defend.source_trusted("user", "email")
    assert not defend.source_trusted("tool")
    assert defend.initial_status(False, True) == "quarantined"
    assert defend.initial_status(True, True) == "pending_confirmation"
    assert defend.initial_status(True, False) == "active"
    import memlab.exercises  # noqa: F401  (registers every exercise)

    exercise = REGISTRY["07.1"]
    for role, kind, outward in exercise.cases:
        expected = defend.initial_status(defend.source_trusted(role, kind), outward)
        assert exercise.reference(role, kind, outward) == expected


def test_exercise_check_reports_a_wrong_answer(capsys):
    fn = check("07.1", lambda role, kind, outward: "active")
    assert fn is REGISTRY["07.1"].reference
    assert "✗ 練習 07.1" in capsys.readouterr().out


def test_dashboard_callbacks_without_a_browser():
    every = defend.load_attacks(include_bypass=True)
    board = PoisonDashboard(every, attack="a04", defended=False)
    assert "✗" in board.summary.value and "notes@share-drop.example" in board.panel.value
    board.defence.value = next(k for k, v in DEFENCE.items() if v)
    assert board.defended and "✓" in board.summary.value and "quarantined" in board.panel.value
    board.attack.value = "b02"
    assert "✗" in board.summary.value and "Mallory" in board.panel.value
    assert set(board._cache) == {("a04", False), ("a04", True), ("b02", True)}
