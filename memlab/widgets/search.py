"""A search dashboard: pick a user, type a query, see that user's hits with score parts.

The panel only displays what `search_table` returns (a DataFrame over
`memlab.retrieve.retrieve`, which filters by user in SQL before ranking). Changing a
control updates ``summary.value`` and ``panel.value``; nothing is printed.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab.embed import Embedder, get_embedder
from memlab.retrieve import W_LEXICAL, W_SLOT, hits_frame, retrieve
from memlab.store import Store


def search_table(store: Store, user_id: str, query: str, top_k: int = 5,
                 embedder: Embedder | None = None) -> pd.DataFrame:
    """The user's top-k hits for `query` with rank, score and its parts (empty query: none)."""
    if not user_id or not query.strip():
        return pd.DataFrame(columns=["rank", *hits_frame([]).columns])
    frame = hits_frame(retrieve(store, user_id, query, top_k=top_k, embedder=embedder))
    frame.insert(0, "rank", range(1, len(frame) + 1))
    return frame


def search_summary(table: pd.DataFrame, user_id: str | None, query: str) -> str:
    if not query.strip():
        return "輸入一個問題再按 Enter。"
    return (f"{user_id} 的記憶裡,和「{query}」最接近的 {len(table)} 筆"
            f"(score = cosine + {W_LEXICAL}×lexical + {W_SLOT}×slot)")


class SearchDashboard:
    """Controls (user, query, top-k) over `search_table`; `refresh()` redraws."""

    def __init__(self, store: Store, user_id: str | None = None, query: str = "",
                 top_k: int = 5, embedder: Embedder | None = None):
        self.store = store
        self.embedder = embedder or get_embedder()
        users = store.user_ids()
        self.user = widgets.Dropdown(options=users, value=user_id or (users[0] if users else None),
                                     description="使用者")
        self.query = widgets.Text(value=query, description="問題", continuous_update=False,
                                  placeholder="例如:我在哪個城市上班?")
        self.top_k = widgets.IntSlider(value=top_k, min=1, max=10, description="top-k")
        self.summary = widgets.HTML()
        self.panel = widgets.HTML()
        for control in (self.user, self.query, self.top_k):
            control.observe(lambda _: self.refresh(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.user, self.query, self.top_k]),
                                    self.summary, self.panel])
        self.refresh()

    def table(self) -> pd.DataFrame:
        return search_table(self.store, self.user.value, self.query.value, self.top_k.value,
                            self.embedder)

    def refresh(self) -> None:
        """Re-run the search and redraw (updates widget values; prints nothing)."""
        table = self.table()
        self.summary.value = f"<b>{html.escape(search_summary(table, self.user.value, self.query.value))}</b>"
        if table.empty:
            self.panel.value = "<p><i>(沒有結果)</i></p>"
            return
        self.panel.value = table.style.hide(axis="index").format(precision=3).to_html()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
