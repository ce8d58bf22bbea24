"""Classify an utterance: which CoALA memory type, worth remembering or not, which layer.

Offline strategy: a few cue rules decide the clear cases (slot phrasings, procedures,
chit-chat, one-off requests); everything else takes a similarity-weighted vote of its
nearest labelled examples in ``data/examples/classify.yaml``. The same file supplies the
LLM prompt's few-shot examples, so both strategies learn from one source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from memlab.embed import Embedder, get_embedder
from memlab.markers import CHITCHAT, REQUEST, is_plan
from memlab.slots import slot_for_key

EXAMPLES_PATH = Path(__file__).resolve().parent.parent / "data" / "examples" / "classify.yaml"
TYPES = ("working", "episodic", "semantic", "procedural", "none")
_PROCEDURE = re.compile(r"一律|每次都|以後都先|永遠先|^(?:以後|之後|每次)|以後(?:幫我|都|每次)|"
                        r"\b(?:always|whenever you|from now on)\b", re.I)
# "你幫我排過的行程" reports the past: an episode, not a request for now.
_PAST = re.compile(r"昨天|前天|上次|之前|上週|上禮拜|上個月|你幫我[^,,。]{0,6}?(?:過|的那)|"
                   r"\b(?:last|yesterday|ago)\b", re.I)
_TOGETHER = re.compile(r"我們|你幫我|一起|\b(?:we|you helped me|together)\b", re.I)


@dataclass(frozen=True)
class Classification:
    type: str  # working | episodic | semantic | procedural | none
    remember: bool
    key: str | None
    layer: str  # transcripts | notes | representations | injected
    agreement: float  # share of the neighbours' vote the winning type got (1.0 for rules)
    rule: str  # which cue rule decided, or "nearest examples"
    neighbours: list[str] = field(default_factory=list)  # ids of the nearest examples
    plan: bool = False  # names the future: kept as a plan, never replaces a fact


def layer_for(mtype: str, key: str | None) -> str:
    """Where a memory of this type belongs: procedures and always-needed slots are injected."""
    if mtype in ("none", "working"):
        return "transcripts"
    if mtype == "procedural":
        return "injected"
    slot = slot_for_key(key)
    return "injected" if slot is not None and slot.inject else "notes"


@lru_cache(maxsize=4)
def load_examples(path: str = str(EXAMPLES_PATH)) -> tuple[dict, ...]:
    """The labelled examples (one source for the offline classifier and the LLM prompt)."""
    return tuple(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


class Classifier:
    """Cue rules first, then a vote of the k nearest labelled examples."""

    def __init__(self, embedder: Embedder | None = None, examples: list[dict] | None = None,
                 k: int = 5):
        self.embedder = embedder or get_embedder()
        self.examples = list(examples if examples is not None else load_examples())
        self.k = k
        self._matrix = self.embedder.embed([e["text"] for e in self.examples], kind="passage")
        self._queries: dict[str, np.ndarray] = {}  # text → query vector (embedding is the cost)

    def prepare(self, texts: list[str]) -> None:
        """Embed many texts in one batch ahead of classifying them (much faster than one by one)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._queries))
        if len(self._queries) + len(missing) > 20_000:
            self._queries.clear()  # a bound, so a long ingest can't grow it without limit
        if missing:
            vectors = self.embedder.embed(missing, kind="query")
            self._queries.update(zip(missing, vectors, strict=True))

    def classify(self, text: str, exclude: str | None = None) -> Classification:
        """Type, worth keeping, key and layer of `text`; `exclude` leaves one example out."""
        from memlab.extract import match_slots  # late import: extract uses this module too

        plan = is_plan(text)
        slots = match_slots(text)
        if slots:
            first = slots[0]
            key = None if plan else first.key
            return Classification(first.type, True, key, layer_for(first.type, key), 1.0,
                                  "slot phrasing", plan=plan)
        if _PROCEDURE.search(text) and not CHITCHAT.search(text):
            return Classification("procedural", True, None, "injected", 1.0, "procedure cue")
        if CHITCHAT.search(text) and len(text) < 20:
            return Classification("none", False, None, "transcripts", 1.0, "chit-chat cue")
        if _PAST.search(text) and _TOGETHER.search(text) and not plan:
            return Classification("episodic", True, None, "notes", 1.0, "past event together")
        if REQUEST.search(text) and not plan and not _PAST.search(text) and len(text) < 25:
            return Classification("working", False, None, "transcripts", 1.0, "one-off request")
        return self._vote(text, exclude, plan)

    def _vote(self, text: str, exclude: str | None, plan: bool) -> Classification:
        self.prepare([text])
        scores = self._matrix @ self._queries[text]
        order = [i for i in np.argsort(-scores, kind="stable")
                 if self.examples[i]["id"] != exclude][: self.k]
        votes: dict[str, float] = {}
        for i in order:
            label = self.examples[i]["type"]
            votes[label] = votes.get(label, 0.0) + float(scores[i])
        winner = max(votes, key=lambda t: (votes[t], -TYPES.index(t)))
        agreement = votes[winner] / sum(votes.values())
        best = next(i for i in order if self.examples[i]["type"] == winner)
        remember = bool(self.examples[best]["remember"]) and winner not in ("none", "working")
        key = self.examples[best].get("key") if remember and not plan else None
        return Classification(winner, remember, key, layer_for(winner, key), round(agreement, 3),
                              "nearest examples", [self.examples[i]["id"] for i in order], plan)


@lru_cache(maxsize=1)
def default_classifier() -> Classifier:
    """The shared classifier the offline extractor falls back on (built once per process)."""
    return Classifier()


def predictions(classifier: Classifier, items: list[dict] | None = None,
                leave_one_out: bool = True) -> pd.DataFrame:
    """One row per labelled item: text, labelled vs predicted type, rule, and whether right.

    With `leave_one_out` each item is classified without itself among the neighbours, so the
    score is honest: an example cannot vote for its own label.
    """
    items = list(items if items is not None else classifier.examples)
    classifier.prepare([item["text"] for item in items])
    rows = []
    for item in items:
        label = classifier.classify(item["text"], exclude=item["id"] if leave_one_out else None)
        rows.append({"id": item["id"], "lang": item.get("lang", ""), "text": item["text"],
                     "labelled": item["type"], "predicted": label.type,
                     "remember": bool(item["remember"]), "predicted_remember": label.remember,
                     "rule": label.rule, "correct": label.type == item["type"]})
    return pd.DataFrame(rows, columns=["id", "lang", "text", "labelled", "predicted", "remember",
                                       "predicted_remember", "rule", "correct"])


def confusion(classifier: Classifier, items: list[dict] | None = None,
              leave_one_out: bool = True) -> pd.DataFrame:
    """Confusion matrix (rows: labelled type, columns: predicted type) as a DataFrame."""
    frame = predictions(classifier, items, leave_one_out)
    matrix = pd.crosstab(frame["labelled"], frame["predicted"])
    matrix = matrix.reindex(index=list(TYPES), columns=list(TYPES), fill_value=0)
    matrix.index.name, matrix.columns.name = "labelled", "predicted"
    return matrix
