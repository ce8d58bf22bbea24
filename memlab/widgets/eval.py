"""An evaluation dashboard: pick a system and a category, see every question with its
answer, the memory ids it cited and the judge's verdict.

The panel only displays what `question_table` returns (a plain DataFrame, tested on its
own); changing a control updates ``panel.value`` and ``summary.value`` and prints nothing.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab.stats import wilson_interval
from memlab.types import CATEGORIES

ALL = "(全部)"
_COLOURS = {True: "#e6f4ea", False: "#fce8e6"}


def question_table(results: pd.DataFrame, system: str | None = None,
                   category: str | None = None, only_wrong: bool = False) -> pd.DataFrame:
    """The rows of an evaluation for one system / category (None = all), one per answer."""
    rows = results
    if system not in (None, ALL):
        rows = rows[rows["system"] == system]
    if category not in (None, ALL):
        rows = rows[rows["category"] == category]
    if only_wrong:
        rows = rows[~rows["correct"].astype(bool)]
    table = rows.assign(
        memory_ids=rows["memory_ids"].map(lambda ids: ", ".join(ids)),
        judgement=[("✓ " if ok else "✗ ") + reason
                   for ok, reason in zip(rows["correct"], rows["reason"], strict=True)])
    return table[["id", "system", "category", "question", "answer", "memory_ids",
                  "judgement", "input_tokens"]].reset_index(drop=True)


def selection_summary(table: pd.DataFrame) -> str:
    """'k/n correct (acc, 95% CI lo–hi), avg tokens' for the rows shown."""
    if table.empty:
        return "沒有符合的題目"
    k, n = int(table["judgement"].str.startswith("✓").sum()), len(table)
    low, high = wilson_interval(k, n)
    return (f"{k}/{n} 題答對({k / n:.0%},95% 信賴區間 {low:.0%}–{high:.0%});"
            f"平均輸入 {table['input_tokens'].mean():.0f} tokens")


def _style(row: pd.Series) -> list[str]:
    colour = _COLOURS[row["judgement"].startswith("✓")]
    return [f"background-color: {colour}"] * len(row)


class EvalDashboard:
    """Controls over an evaluation's results table; `refresh()` redraws from the filters."""

    def __init__(self, results: pd.DataFrame, system: str | None = None,
                 category: str | None = None):
        self.results = results
        systems = list(dict.fromkeys(results["system"]))
        categories = [c for c in CATEGORIES if c in set(results["category"])]
        self.system = widgets.Dropdown(options=[ALL, *systems], value=system or ALL,
                                       description="系統")
        self.category = widgets.Dropdown(options=[ALL, *categories], value=category or ALL,
                                         description="類別")
        self.only_wrong = widgets.Checkbox(value=False, description="只看答錯的")
        self.summary = widgets.HTML()
        self.panel = widgets.HTML()
        for control in (self.system, self.category, self.only_wrong):
            control.observe(lambda _: self.refresh(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.system, self.category, self.only_wrong]),
                                    self.summary, self.panel])
        self.refresh()

    def table(self) -> pd.DataFrame:
        return question_table(self.results, self.system.value, self.category.value,
                              self.only_wrong.value)

    def refresh(self) -> None:
        """Redraw the summary line and the table (updates widget values; prints nothing)."""
        table = self.table()
        self.summary.value = f"<b>{html.escape(selection_summary(table))}</b>"
        if table.empty:
            self.panel.value = "<p><i>(沒有題目)</i></p>"
            return
        self.panel.value = table.style.apply(_style, axis=1).hide(axis="index").to_html()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
