"""The evaluation dashboard: its table function, and its controls driven without a browser."""

from __future__ import annotations

import pandas as pd
import pytest

from memlab.widgets.eval import ALL, EvalDashboard, question_table, selection_summary


@pytest.fixture
def results() -> pd.DataFrame:
    rows = [
        ("q1", "knowledge_update", "memory", "台中 [m24]", True, "matched ['台中']", ["m24"], 400),
        ("q1", "knowledge_update", "full_context", "板橋 [l03:9]", False, "mentions rejected value",
         ["l03:9"], 4000),
        ("q2", "abstention", "memory", "不知道", True, "abstained, as it should", [], 380),
        ("q2", "abstention", "full_context", "騎機車 [l10:3]", False, "answered a question that "
         "has no answer", ["l10:3"], 4100),
    ]
    return pd.DataFrame(
        [{"id": i, "user_id": "u_1", "category": c, "system": s, "question": f"{i}?",
          "answer": a, "correct": ok, "reason": r, "memory_ids": ids, "input_tokens": t}
         for i, c, s, a, ok, r, ids, t in rows])


def test_question_table_filters_and_explains(results):
    table = question_table(results, "memory", None)
    assert list(table["id"]) == ["q1", "q2"]
    assert list(table["memory_ids"]) == ["m24", ""]
    assert table["judgement"].iloc[0] == "✓ matched ['台中']"
    assert list(question_table(results, ALL, "abstention")["system"]) == ["memory", "full_context"]
    assert list(question_table(results, only_wrong=True)["system"]) == ["full_context"] * 2
    assert selection_summary(question_table(results, "memory")).startswith("2/2 題答對")
    assert selection_summary(question_table(results, "nobody")) == "沒有符合的題目"


def test_dashboard_controls_update_the_panel(results):
    board = EvalDashboard(results)
    assert "m24" in board.panel.value and "l10:3" in board.panel.value
    assert board.summary.value.startswith("<b>2/4")
    board.system.value = "full_context"
    assert "l03:9" in board.panel.value and "m24" not in board.panel.value
    assert "0/2" in board.summary.value
    board.category.value = "abstention"
    assert "l10:3" in board.panel.value and "l03:9" not in board.panel.value
    board.system.value = ALL
    board.only_wrong.value = True
    assert "l10:3" in board.panel.value and "不知道" not in board.panel.value
    board.system.value = "memory"
    assert "沒有題目" in board.panel.value and board.summary.value == "<b>沒有符合的題目</b>"


def test_dashboard_lists_only_systems_and_categories_present(results):
    board = EvalDashboard(results, system="memory", category="knowledge_update")
    assert list(board.system.options) == [ALL, "memory", "full_context"]
    assert list(board.category.options) == [ALL, "knowledge_update", "abstention"]
    assert len(board.table()) == 1
