"""A memory inspector panel for users: pick a memory, view it, edit it, delete it.

A thin layer over `memlab.inspect_memory` (whose functions return DataFrames and are
tested); callbacks update widget values and HTML, never print into Output areas.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab import inspect_memory
from memlab.errors import NotFoundError
from memlab.store import Store


def _table(title: str, frame: pd.DataFrame) -> str:
    head = f"<h4>{html.escape(title)}</h4>"
    if frame.empty:
        return head + "<p><i>(沒有)</i></p>"
    return head + frame.astype(object).where(frame.notna(), "").to_html(index=False, escape=True)


class MemoryInspector:
    """View / edit / delete one user's memories. Delete asks for a second click."""

    def __init__(self, store: Store, user_id: str, embedder=None):
        self.store, self.user_id, self.embedder = store, user_id, embedder
        self.history = widgets.Checkbox(value=False, description="顯示歷史(失效、已刪除)")
        self.picker = widgets.Dropdown(description="記憶", options=[])
        self.content = widgets.Textarea(description="內容", layout=widgets.Layout(width="60%"))
        self.save_button = widgets.Button(description="儲存修改", icon="pencil")
        self.delete_button = widgets.Button(description="刪除", icon="trash", button_style="danger")
        self.message = widgets.HTML()
        self.listing = widgets.HTML()
        self.detail = widgets.HTML()
        self._armed: str | None = None  # the id a first click on "刪除" armed
        self.history.observe(lambda _: self.refresh(), names="value")
        self.picker.observe(lambda _: self.show(), names="value")
        self.save_button.on_click(lambda _: self.save())
        self.delete_button.on_click(lambda _: self.delete())
        self.widget = widgets.VBox([
            widgets.HBox([self.picker, self.history]), self.content,
            widgets.HBox([self.save_button, self.delete_button]), self.message,
            self.detail, self.listing])
        self.refresh()

    def frame(self) -> pd.DataFrame:
        return inspect_memory.view(self.store, self.user_id, include_history=self.history.value)

    def refresh(self, select: str | None = None) -> None:
        frame = self.frame()
        options = [(f"{r.id} [{r.status}] {r.content or '(已刪除)'}", r.id) for r in frame.itertuples()]
        keep = select or self.picker.value
        self.picker.options = options
        ids = [v for _, v in options]
        self.picker.value = keep if keep in ids else (ids[0] if ids else None)
        self.listing.value = _table(f"{self.user_id} 的記憶", frame)
        self.show()

    def show(self) -> None:
        """Fill the editor and the detail panel for the picked memory."""
        self._armed = None
        memory_id = self.picker.value
        if memory_id is None:
            self.content.value, self.detail.value = "", ""
            return
        memory = self.store.get_memory(self.user_id, memory_id)
        self.content.value = memory.content
        editable = memory.status in inspect_memory.EDITABLE
        self.save_button.disabled = not editable
        self.delete_button.disabled = memory.status == "deleted"
        parts = inspect_memory.detail(self.store, self.user_id, memory_id)
        self.detail.value = (_table("取代鏈", parts["chain"]) + _table("出處", parts["sources"])
                             + _table("稽核紀錄", parts["events"]))

    def save(self) -> None:
        memory_id = self.picker.value
        try:
            new = inspect_memory.edit(self.store, self.user_id, memory_id, self.content.value,
                                      embedder=self.embedder)
        except (ValueError, NotFoundError) as exc:
            self.message.value = f"<b>✗</b> {html.escape(str(exc))}"
            return
        self.message.value = f"✓ {memory_id} 已由 {new.id} 取代(舊內容留在取代鏈和稽核紀錄)"
        self.refresh(select=new.id)

    def delete(self) -> None:
        memory_id = self.picker.value
        if memory_id is None:
            return
        if self._armed != memory_id:
            self._armed = memory_id
            self.message.value = f"再按一次「刪除」確認:{memory_id} 會從每一層刪除(連同取代鏈與衍生資料)"
            return
        done = inspect_memory.delete(self.store, self.user_id, memory_id)
        self.message.value = (f"✓ 已刪除 {', '.join(done.memory_ids)};tombstone:"
                              f"{', '.join(done.tombstoned) or '—'}")
        self.refresh()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
