"""The panels of notebooks 01–03, driven without a browser: clicks, selections, refreshes."""

from __future__ import annotations

import re

import pytest

from memlab.classify import default_classifier
from memlab.pipeline import ingest
from memlab.store import Store
from memlab.types import User
from memlab.widgets.stages import (
    ClassifierExplorer,
    MemoryDashboard,
    ProvenanceViewer,
    classification_frame,
    dashboard_html,
)
from memlab.widgets.timeline import chains_frame, timeline_svg


def test_classification_frame():
    frame = classification_frame(default_classifier(), ["我不吃香菜。", "今天好熱。"])
    assert list(frame["type"]) == ["semantic", "none"]
    assert list(frame["layer"]) == ["notes", "transcripts"]
    assert frame.loc[0, "rule"] == "slot phrasing" and frame.loc[0, "key"] == "food_avoid:香菜"


def test_classifier_explorer_click_updates_the_panel():
    explorer = ClassifierExplorer(default_classifier())
    assert "輸入一句話" in explorer.panel.value
    explorer.text.value = "整理會議筆記一律先列待辦。"
    explorer.button.click()
    assert "procedural" in explorer.panel.value and "injected" in explorer.panel.value
    explorer.text.value = "上週二我們討論了退款流程。"
    explorer.button.click()
    assert "episodic" in explorer.panel.value and "procedural" not in explorer.panel.value


def test_provenance_viewer_follows_the_dropdown(after_s6):
    viewer = ProvenanceViewer(after_s6, "u_017", "m1")
    assert "<mark" in viewer.panel.value and "以後回答都用條列" in viewer.panel.value
    viewer.memory.value = "m4"
    assert "我已經在東京了" in viewer.panel.value and "s6:1" in viewer.panel.value
    assert "以後回答都用條列" not in viewer.panel.value  # another session now
    assert viewer.memory.options == ("m1", "m2", "m3", "m4")


def test_chains_frame_and_timeline(after_s6):
    chains = chains_frame(after_s6, "u_017")
    city = chains[chains["key"] == "base_city"]
    assert list(city["id"]) == ["m2", "m4"] and list(city["status"]) == ["superseded", "active"]
    assert city.iloc[0]["superseded_by"] == "m4"
    svg = timeline_svg(after_s6, "u_017")
    assert svg.startswith("<svg") and svg.count("<rect") == len(chains)
    assert "m2 台北" in svg and "m4 東京" in svg and "m2 → m4" in svg
    only = timeline_svg(after_s6, "u_017", only_chains=True)
    assert only.count("<rect") == 2 and "answer_format" not in only


def test_timeline_of_deleted_chain_shows_no_value(after_s8):
    svg = timeline_svg(after_s8, "u_017")
    assert "東京" not in svg and "台北" not in svg and "(已刪除)" in svg


def test_dashboard_html_has_every_layer(after_s6):
    page = dashboard_html(after_s6, "u_017")
    for title in ("Notes", "Representations", "Injected", "Retrieval index", "Transcripts",
                  "Events"):
        assert title in page
    assert "<svg" in page and "superseded" in page and "SUPERSEDE" in page
    assert not re.search(r"0x[0-9a-f]{6,}", page)  # nothing run-dependent


def test_memory_dashboard_switches_user_and_sees_new_users(xiaolin):
    store = Store()
    ingest(store, xiaolin, users=["u_017"])
    dashboard = MemoryDashboard(store, "u_017")
    assert "使用者 u_017" in dashboard.panel.value and dashboard.user.options == ("u_017",)
    ingest(store, xiaolin, users=["u_042"])
    dashboard.button.click()
    assert dashboard.user.options == ("u_017", "u_042")
    dashboard.user.value = "u_042"
    assert "使用者 u_042" in dashboard.panel.value and "高雄" in dashboard.panel.value
    assert "條列" not in dashboard.panel.value  # one user's layers only


def test_empty_store_panels():
    store = Store()
    assert "還沒有使用者" in MemoryDashboard(store).panel.value
    store.add_user(User(id="u_new"))
    assert "還沒有記憶" in ProvenanceViewer(store, "u_new").panel.value
    assert "還沒有帶 key" in timeline_svg(store, "u_new")


@pytest.mark.parametrize("cls", [ClassifierExplorer, MemoryDashboard, ProvenanceViewer])
def test_panels_print_nothing(cls, capsys, after_s6):
    args = {ClassifierExplorer: (default_classifier(),), MemoryDashboard: (after_s6,),
            ProvenanceViewer: (after_s6, "u_017")}[cls]
    cls(*args)
    assert capsys.readouterr().out == ""
