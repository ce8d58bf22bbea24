"""Panels for notebooks 01–03: try the classifier, trace a memory to its sentence, watch
every layer of a user with its supersede chains.

Each panel is thin: it calls a function that returns a DataFrame or HTML (tested on its
own) and writes the result into an ``HTML`` widget's ``value``; nothing is printed.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from memlab.classify import Classifier
from memlab.layers import layer_tables
from memlab.provenance import provenance_html
from memlab.store import Store
from memlab.widgets.layers import render_layer
from memlab.widgets.timeline import timeline_svg


def classification_frame(classifier: Classifier, texts: list[str]) -> pd.DataFrame:
    """How the offline classifier reads each text: type, keep?, key, layer, rule, neighbours."""
    by_id = {e["id"]: e["text"] for e in classifier.examples}
    rows = []
    for text in texts:
        label = classifier.classify(text)
        rows.append({"text": text, "type": label.type, "remember": label.remember,
                     "key": label.key or "", "layer": label.layer, "plan": label.plan,
                     "rule": label.rule, "agreement": label.agreement,
                     "nearest": " / ".join(by_id[i] for i in label.neighbours[:3])})
    return pd.DataFrame(rows, columns=["text", "type", "remember", "key", "layer", "plan",
                                       "rule", "agreement", "nearest"])


class _Panel:
    widget: widgets.Widget

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class ClassifierExplorer(_Panel):
    """Type a sentence, press 分類: see its type, layer, the rule or the nearest examples."""

    def __init__(self, classifier: Classifier, text: str = ""):
        self.classifier = classifier
        self.text = widgets.Text(value=text, description="句子", layout={"width": "60%"})
        self.button = widgets.Button(description="分類")
        self.panel = widgets.HTML()
        self.button.on_click(lambda _: self.refresh())
        self.widget = widgets.VBox([widgets.HBox([self.text, self.button]), self.panel])
        self.refresh()

    def refresh(self) -> None:
        if not self.text.value.strip():
            self.panel.value = "<i>輸入一句話再按「分類」。</i>"
            return
        frame = classification_frame(self.classifier, [self.text.value.strip()])
        self.panel.value = frame.to_html(index=False, escape=True)


class ProvenanceViewer(_Panel):
    """Pick a memory id: see its session with the source sentence highlighted."""

    def __init__(self, store: Store, user_id: str, memory_id: str | None = None):
        self.store, self.user_id = store, user_id
        ids = [m.id for m in store.memories(user_id, status="all")]
        self.memory = widgets.Dropdown(options=ids, value=memory_id or (ids[0] if ids else None),
                                       description="記憶 id")
        self.panel = widgets.HTML()
        self.memory.observe(lambda _: self.refresh(), names="value")
        self.widget = widgets.VBox([self.memory, self.panel])
        self.refresh()

    def refresh(self) -> None:
        if self.memory.value is None:
            self.panel.value = "<i>這位使用者還沒有記憶。</i>"
            return
        self.panel.value = provenance_html(self.store, self.user_id, self.memory.value)


LAYERS_SIDE_BY_SIDE = ("notes", "pages", "injected", "index")


def dashboard_html(store: Store, user_id: str) -> str:
    """One user's layers side by side, the supersede chains as a timeline, the events log."""
    tables = layer_tables(store, user_id)
    notes = tables["notes"][["id", "status", "content", "key", "source", "superseded_by"]]
    shown = {"notes": notes, "pages": tables["pages"][["page", "text"]],
             "injected": tables["injected"][["text", "tokens"]], "index": tables["index"]}
    grow = {"notes": "3 1 560px", "pages": "2 1 320px", "injected": "1 1 240px", "index": "0 1 120px"}
    columns = "".join(f'<div style="flex:{grow[name]};overflow:auto">'
                      f"{render_layer(name, shown[name])}</div>" for name in LAYERS_SIDE_BY_SIDE)
    events = tables["events"][["id", "op", "memory_id", "target_id", "source", "actor", "reason"]]
    return (f"<h3>使用者 {html.escape(user_id)}</h3>"
            f'<div style="display:flex;flex-wrap:wrap;gap:12px">{columns}</div>'
            f"<h4>取代鏈(時間軸)</h4>{timeline_svg(store, user_id)}"
            f"{render_layer('transcripts', tables['transcripts'])}"
            f"{render_layer('events', events)}")


class MemoryDashboard(_Panel):
    """Pick a user: every layer side by side with statuses, chains on a timeline, events."""

    def __init__(self, store: Store, user_id: str | None = None):
        self.store = store
        users = store.user_ids()
        self.user = widgets.Dropdown(options=users, value=user_id or (users[0] if users else None),
                                     description="使用者")
        self.button = widgets.Button(description="重新整理")
        self.panel = widgets.HTML()
        self.user.observe(lambda _: self.refresh(), names="value")
        self.button.on_click(lambda _: self.refresh())
        self.widget = widgets.VBox([widgets.HBox([self.user, self.button]), self.panel])
        self.refresh()

    def refresh(self) -> None:
        """Re-read the store (new users included) and redraw the panel."""
        users = self.store.user_ids()
        if list(self.user.options) != users:
            current = self.user.value
            self.user.options = users
            self.user.value = current if current in users else (users[0] if users else None)
        self.panel.value = (dashboard_html(self.store, self.user.value) if self.user.value
                            else "<i>還沒有使用者。</i>")
