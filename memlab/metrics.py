"""How well extraction did against a dataset's answer key, and what the injected layer costs.

The answer key lists what was *planted* in the conversations. Each planted statement is a
turn (``l02:7``); a fact that changes has two (the first saying and the later one), a
multi-session fact has one per session. Against that list:

- recall: share of planted statements some trusted, non-plan candidate was drawn from;
- precision: share of trusted, non-plan candidates drawn from a planted statement. A
  candidate from an unplanned turn counts against precision even when it is reasonable
  (the key lists what was planted, not everything true), so `label_candidates` shows them
  for a human to judge; one drawn from a passing detail is plainly wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from memlab.types import Dataset

RECALLED_KINDS = ("fact", "preference", "change", "multi_session")
DAILY_PROMPTS = 40  # the chapter's example: 40 questions a day


@dataclass(frozen=True)
class Statement:
    """One planted statement: which answer-key entry, which turn, what it says."""

    plant_id: str
    kind: str
    ref: str
    summary: str


def statements(dataset: Dataset) -> list[Statement]:
    """The planted statements extraction should find (facts, preferences, changes, multi)."""
    found = []
    for plant in dataset.answer_key:
        if plant.kind in RECALLED_KINDS:
            for ref in [*plant.evidence, *plant.replaced_by]:
                found.append(Statement(plant.id, plant.kind, ref, plant.summary))
    return found


def _ref(item) -> str:
    return f"{item.source_session_id}:{item.source_turn}"


def _counted(item) -> bool:
    return bool(item.source_trusted) and not getattr(item, "is_plan", False)


def _said_by_user(dataset: Dataset, ref: str, item) -> bool:
    evidence = getattr(item, "evidence", "") or ""
    try:
        return bool(evidence) and evidence in dataset.turn(ref).text
    except KeyError:
        return False


def label_candidates(dataset: Dataset, items: Iterable) -> pd.DataFrame:
    """One row per candidate (or memory): its source turn and what the answer key says of it.

    ``verdict`` is ``planted`` (drawn from a planted statement), ``trivial`` (from a passing
    detail: wrong), ``poison`` (from the planted injection), ``unplanned`` (not in the key),
    or ``not counted`` (untrusted or a plan: they never become active facts).
    """
    by_ref: dict[str, list[str]] = {}
    for s in statements(dataset):
        by_ref.setdefault(s.ref, []).append(s.plant_id)
    flagged = {ref: plant.kind for plant in dataset.answer_key
               if plant.kind in ("trivial", "poison") for ref in plant.evidence}
    rows = []
    for item in items:
        ref = _ref(item)
        if not _counted(item):
            verdict = "not counted"
        elif ref in by_ref:
            verdict = "planted"
        elif flagged.get(ref) == "poison" and _said_by_user(dataset, ref, item):
            verdict = "unplanned"  # the user's own request in the turn that pasted the page
        else:
            verdict = flagged.get(ref, "unplanned")
        rows.append({"ref": ref, "content": item.content, "key": item.key,
                     "trusted": bool(item.source_trusted),
                     "plan": bool(getattr(item, "is_plan", False)),
                     "verdict": verdict, "plants": ", ".join(by_ref.get(ref, []))})
    return pd.DataFrame(rows, columns=["ref", "content", "key", "trusted", "plan", "verdict",
                                       "plants"])


def recall_table(dataset: Dataset, items: Iterable) -> pd.DataFrame:
    """One row per planted statement: was anything extracted from its turn, and what."""
    found: dict[str, list[str]] = {}
    for item in items:
        if _counted(item):
            found.setdefault(_ref(item), []).append(item.content)
    rows = [{"plant": s.plant_id, "kind": s.kind, "ref": s.ref, "summary": s.summary,
             "found": s.ref in found, "extracted": " / ".join(found.get(s.ref, []))}
            for s in statements(dataset)]
    return pd.DataFrame(rows, columns=["plant", "kind", "ref", "summary", "found", "extracted"])


def precision_recall(dataset: Dataset, items: Iterable, label: str = "candidates") -> pd.DataFrame:
    """One row: how many were counted, how many planted, precision and recall (0–1)."""
    items = list(items)
    labels = label_candidates(dataset, items)
    counted = labels[labels["verdict"] != "not counted"]
    hits = int((counted["verdict"] == "planted").sum())
    recall = recall_table(dataset, items)
    return pd.DataFrame([{
        "what": label, "total": len(items), "counted": len(counted), "planted": hits,
        "unplanned": int((counted["verdict"] == "unplanned").sum()),
        "wrong": int(counted["verdict"].isin(["trivial", "poison"]).sum()),
        "precision": round(hits / len(counted), 3) if len(counted) else 0.0,
        "recall": round(float(recall["found"].mean()), 3) if len(recall) else 0.0,
    }])


def daily_injected_tokens(tokens_per_prompt: int, prompts_per_day: int = DAILY_PROMPTS) -> int:
    """Input tokens the injected layer costs a day: it rides along with every prompt.

    >>> daily_injected_tokens(500, 40)
    20000
    """
    return tokens_per_prompt * prompts_per_day
