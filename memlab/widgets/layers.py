"""A dashboard of every memory layer of one user, side by side, refreshed as cells run."""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab.layers import layer_tables
from memlab.store import Store

TITLES = {"transcripts": "Transcripts(逐字稿)", "notes": "Notes(記憶)",
          "index": "Retrieval index(向量索引)", "pages": "Representations(整理頁)",
          "injected": "Injected(注入層)", "events": "Events(稽核紀錄)"}
_STATUS_COLOURS = {"active": "#e6f4ea", "superseded": "#fef7e0", "quarantined": "#fce8e6",
                   "pending_confirmation": "#e8f0fe", "deleted": "#eeeeee"}


def _style_row(row: pd.Series) -> list[str]:
    colour = _STATUS_COLOURS.get(row.get("status", ""), "")
    if row.get("tombstoned") is True:
        colour = "#eeeeee"
    return [f"background-color: {colour}" if colour else ""] * len(row)


def render_layer(name: str, frame: pd.DataFrame) -> str:
    """One layer as an HTML block (title, row count, coloured by status)."""
    title = f"<h4>{html.escape(TITLES.get(name, name))} — {len(frame)} 筆</h4>"
    if frame.empty:
        return title + "<p><i>(空的)</i></p>"
    frame = frame.astype(object).where(frame.notna(), "")  # show blanks, not "nan"/"None"
    styled = frame.style.apply(_style_row, axis=1).hide(axis="index")
    return title + styled.to_html()


class LayerDashboard:
    """Pick a user and a layer set; call `refresh()` (or `watch()`) to follow changes.

    The panel only displays what `memlab.layers.layer_tables` returns.
    """

    def __init__(self, store: Store, user_id: str | None = None,
                 layers: tuple[str, ...] = tuple(TITLES)):
        self.store = store
        users = store.user_ids()
        self.user = widgets.Dropdown(options=users, value=user_id or (users[0] if users else None),
                                     description="使用者")
        self.layers = widgets.SelectMultiple(options=list(TITLES), value=list(layers),
                                             description="層", rows=len(TITLES))
        self.refresh_button = widgets.Button(description="重新整理", icon="refresh")
        self.panel = widgets.HTML()
        self.user.observe(lambda _: self.refresh(), names="value")
        self.layers.observe(lambda _: self.refresh(), names="value")
        self.refresh_button.on_click(lambda _: self.refresh())
        self.widget = widgets.VBox([widgets.HBox([self.user, self.layers, self.refresh_button]),
                                    self.panel])
        self._hooked = False
        self.refresh()

    def tables(self) -> dict[str, pd.DataFrame]:
        if not self.user.value:
            return {}
        tables = layer_tables(self.store, self.user.value)
        return {name: tables[name] for name in self.layers.value}

    def refresh(self) -> None:
        """Re-read the store and redraw (updates `panel.value`; prints nothing)."""
        users = self.store.user_ids()
        if list(self.user.options) != users:
            current = self.user.value
            self.user.options = users
            self.user.value = current if current in users else (users[0] if users else None)
        self.panel.value = "".join(render_layer(n, f) for n, f in self.tables().items())

    def watch(self) -> LayerDashboard:
        """Refresh after every cell that runs in this notebook (an IPython post_run_cell hook)."""
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None and not self._hooked:
            shell.events.register("post_run_cell", lambda *_: self.refresh())
            self._hooked = True
        return self

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
