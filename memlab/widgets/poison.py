"""A poisoning dashboard: pick an attack, switch the defence on or off, see the trace.

The panel only displays what `memlab.defend.run_attack` returns (a plain DataFrame, tested
on its own); changing a control updates ``summary.value`` and ``panel.value`` and prints
nothing. Traces are computed once per (attack, defence) and kept.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab.defend import Attack, is_safe, run_attack

SHOWN = ["memory_id", "content", "source", "planted", "trusted", "status", "retrieved",
         "on_page", "injected", "event"]
DEFENCE = {"防線開啟(真正的管線)": True, "防線關閉(天真的寫入)": False}


def _style(row: pd.Series) -> list[str]:
    live = row["planted"] and (row["status"] == "active" or row["retrieved"] or row["injected"])
    colour = "#fce8e6" if live else "#e6f4ea" if row["planted"] else "#ffffff"
    return [f"background-color: {colour}"] * len(row)


class PoisonDashboard:
    """Controls over `run_attack`; `refresh()` redraws from the chosen attack and defence."""

    def __init__(self, attacks: list[Attack], attack: str | None = None, defended: bool = True,
                 embedder=None):
        self.attacks = {a.id: a for a in attacks}
        self.embedder = embedder
        self._cache: dict[tuple[str, bool], pd.DataFrame] = {}
        options = [(f"{a.id} · {a.channel} · {a.plants}", a.id) for a in attacks]
        self.attack = widgets.Dropdown(options=options, value=attack or attacks[0].id,
                                       description="攻擊", layout=widgets.Layout(width="60%"))
        self.defence = widgets.ToggleButtons(options=list(DEFENCE),
                                             value=next(k for k, v in DEFENCE.items()
                                                        if v == defended))
        self.summary = widgets.HTML()
        self.panel = widgets.HTML()
        for control in (self.attack, self.defence):
            control.observe(lambda _: self.refresh(), names="value")
        self.widget = widgets.VBox([self.attack, self.defence, self.summary, self.panel])
        self.refresh()

    @property
    def defended(self) -> bool:
        return DEFENCE[self.defence.value]

    def table(self) -> pd.DataFrame:
        key = (self.attack.value, self.defended)
        if key not in self._cache:
            self._cache[key] = run_attack(self.attacks[key[0]], key[1], self.embedder)
        return self._cache[key]

    def refresh(self) -> None:
        """Redraw the verdict and the trace (updates widget values; prints nothing)."""
        table = self.table()
        attack = self.attacks[self.attack.value]
        verdict = "✓ 沒有植入的記憶生效、被檢索或被注入" if is_safe(table) else \
            "✗ 植入的記憶生效了(或被檢索、被注入)"
        self.summary.value = (f"<b>{html.escape(verdict)}</b><br>想植入:"
                              f"{html.escape(attack.plants)}<br><i>{html.escape(attack.note)}</i>")
        self.panel.value = table[SHOWN].style.apply(_style, axis=1).hide(axis="index").to_html()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
