"""Forgetting beyond delete: confidence that decays, recency in ranking, conflicts.

Small pure functions (numbers in, numbers or DataFrames out) plus one reader of the store:

- `decayed_confidence`: a preference not confirmed for a long time drops a level per
  half-life (high → medium → low → "ask"), so the assistant asks before relying on it;
- `last_confirmed` / `decay_table`: when each active memory was last said or confirmed
  (its own turn, a MERGE that repeated it, a CONFIRM or an EDIT) and what it is worth now;
- `recency`, `rank_with_recency`: Generative Agents (Park et al. 2023) rank memories by
  recency + importance + relevance, each scaled to [0, 1];
- `resolve_conflict`: the newer, more certain statement wins; a tie goes to the user.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from memlab.store import Store, require_user

LEVELS = ("high", "medium", "low", "ask")
_RANK = {"high": 0, "medium": 1, "low": 2}


def decayed_confidence(level: str, days_since_confirmed: float, half_life_days: float = 90
                       ) -> str:
    """The confidence left after `days_since_confirmed`: one level down per full half-life
    (high → medium → low → "ask" the user before using it); never above `level`."""
    drops = int(max(0.0, days_since_confirmed) // half_life_days)
    return LEVELS[min(_RANK[level] + drops, len(LEVELS) - 1)]


def last_confirmed(store: Store, user_id: str) -> pd.DataFrame:
    """Each active memory and the last time the user said or confirmed it."""
    require_user(user_id)
    events = store.events(user_id)
    seen = events[events["op"].isin(["ADD", "SUPERSEDE", "MERGE", "CONFIRM", "EDIT"])]
    latest = seen.groupby("memory_id")["logged_at"].max().to_dict()
    rows = []
    for m in store.memories(user_id):
        when = max([m.valid_from] + ([latest[m.id]] if m.id in latest else []))
        rows.append({"id": m.id, "content": m.content, "type": m.type,
                     "confidence": m.confidence, "last_confirmed": when})
    return pd.DataFrame(rows, columns=["id", "content", "type", "confidence", "last_confirmed"])


def decay_table(memories: pd.DataFrame, now: datetime, half_life_days: float = 90) -> pd.DataFrame:
    """Add ``days`` since last confirmation and the ``now_confidence`` to `last_confirmed`'s
    table (dates shown as days, so outputs don't depend on the wall clock)."""
    out = memories.copy()
    out["days"] = [(now - t).days for t in out["last_confirmed"]]
    out["now_confidence"] = [decayed_confidence(c, d, half_life_days)
                             for c, d in zip(out["confidence"], out["days"], strict=True)]
    out["last_confirmed"] = [t.date().isoformat() for t in out["last_confirmed"]]
    return out


def recency(hours_since: float, decay_per_hour: float = 0.995) -> float:
    """Generative Agents' recency: exponential decay per hour since last access."""
    return decay_per_hour ** max(0.0, hours_since)


def _minmax(values: pd.Series) -> pd.Series:
    low, high = values.min(), values.max()
    return (values - low) / (high - low) if high > low else values * 0 + 1.0


def rank_with_recency(candidates: pd.DataFrame, w_recency: float = 1.0,
                      w_importance: float = 1.0, w_relevance: float = 1.0,
                      decay_per_hour: float = 0.995) -> pd.DataFrame:
    """Rank rows with columns id, relevance, importance (any scale) and hours_since.

    Each signal is min-max scaled to [0, 1] over the candidates, then weighted and summed
    (Park et al. 2023); best first, ties by id. Returns the scaled parts and the score.
    """
    out = candidates.copy()
    out["recency"] = _minmax(out["hours_since"].apply(lambda h: recency(h, decay_per_hour)))
    out["importance_n"] = _minmax(out["importance"].astype(float))
    out["relevance_n"] = _minmax(out["relevance"].astype(float))
    out["score"] = (w_recency * out["recency"] + w_importance * out["importance_n"]
                    + w_relevance * out["relevance_n"]).round(3)
    for column in ("recency", "importance_n", "relevance_n"):
        out[column] = out[column].round(3)
    return out.sort_values(["score", "id"], ascending=[False, True]).reset_index(drop=True)


def resolve_conflict(a: dict, b: dict) -> str:
    """Two memories that contradict each other ({id, at (ISO), confidence}): the id that
    wins, or "ask" when neither is both at least as new and at least as certain."""
    newer, older = (a, b) if a["at"] > b["at"] else (b, a)
    if a["at"] == b["at"]:
        if _RANK[a["confidence"]] == _RANK[b["confidence"]]:
            return "ask"
        return a["id"] if _RANK[a["confidence"]] < _RANK[b["confidence"]] else b["id"]
    return newer["id"] if _RANK[newer["confidence"]] <= _RANK[older["confidence"]] else "ask"
