"""Classify an utterance: which CoALA memory type, worth remembering or not, which layer.

Offline strategy: a few cue rules decide the clear cases (chit-chat, procedures, slot
phrasings); everything else takes a similarity-weighted vote of its nearest labelled
examples in ``data/examples/classify.yaml``. The same file supplies the LLM prompt's
few-shot examples, so both strategies learn from one source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from memlab.embed import Embedder, get_embedder
from memlab.slots import PLAN_MARKERS, slot_for_key

EXAMPLES_PATH = Path(__file__).resolve().parent.parent / "data" / "examples" / "classify.yaml"
TYPES = ("working", "episodic", "semantic", "procedural", "none")

_CHITCHAT = re.compile(
    r"好熱|好冷|好累|好睏|好餓|下雨|天氣|哈哈|謝謝|早安|晚安|午安|辛苦了|真的假的|"
    r"\b(?:thanks|thank you|lol|haha|so hot|so tired|good morning|good night)\b", re.I)
_PROCEDURE = re.compile(r"一律|每次都|以後都先|永遠先|\b(?:always|whenever you)\b", re.I)


@dataclass(frozen=True)
class Classification:
    type: str  # working | episodic | semantic | procedural | none
    remember: bool
    key: str | None
    layer: str  # transcripts | notes | representations | injected
    agreement: float  # share of the neighbours' vote the winning type got (1.0 for rules)
    rule: str  # which cue rule decided, or "nearest examples"
    neighbours: list[str] = field(default_factory=list)  # ids of the nearest examples


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

    def classify(self, text: str) -> Classification:
        from memlab.extract import match_slots  # late import: extract uses this module too

        slots = match_slots(text)
        if slots:
            key, _, mtype, _, _ = slots[0]
            return Classification(mtype, True, key, layer_for(mtype, key), 1.0, "slot phrasing")
        if _PROCEDURE.search(text) and not _CHITCHAT.search(text):
            return Classification("procedural", True, None, "injected", 1.0, "procedure cue")
        if _CHITCHAT.search(text) and len(text) < 20:
            return Classification("none", False, None, "transcripts", 1.0, "chit-chat cue")
        return self._vote(text)

    def _vote(self, text: str) -> Classification:
        query = self.embedder.embed([text], kind="query")[0]
        scores = self._matrix @ query
        top = np.argsort(-scores, kind="stable")[: self.k]
        votes: dict[str, float] = {}
        for i in top:
            label = self.examples[i]["type"]
            votes[label] = votes.get(label, 0.0) + float(scores[i])
        winner = max(votes, key=lambda t: (votes[t], -TYPES.index(t)))
        agreement = votes[winner] / sum(votes.values())
        best = next(i for i in top if self.examples[i]["type"] == winner)
        remember = bool(self.examples[best]["remember"]) and winner not in ("none", "working")
        key = self.examples[best].get("key") if remember else None
        if PLAN_MARKERS.search(text) and winner == "semantic":
            key = None  # a plan must not land in a fact's slot
        return Classification(winner, remember, key, layer_for(winner, key), round(agreement, 3),
                              "nearest examples", [self.examples[i]["id"] for i in top])


def confusion(classifier: Classifier, items: list[dict]):
    """Confusion matrix (rows: labelled type, columns: predicted type) as a DataFrame."""
    import pandas as pd

    pairs = [(item["type"], classifier.classify(item["text"]).type) for item in items]
    frame = pd.crosstab(pd.Series([p[0] for p in pairs], name="labelled"),
                        pd.Series([p[1] for p in pairs], name="predicted"))
    return frame.reindex(index=TYPES, columns=TYPES, fill_value=0)
