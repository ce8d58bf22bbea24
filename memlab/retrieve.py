"""Retrieval: find one user's memories for a query — filter by user first, then rank.

The score blends three signals, because e5 cosines alone don't separate "related" from
"unrelated" well (unrelated texts still score ~0.8):

- ``cosine``: embedding similarity, computed in DuckDB over this user's rows only;
- ``lexical``: share of the query's character bigrams found in the memory;
- ``slot``: the query's cue words point at the memory's slot (城市 → base_city), or the
  query names the memory's value (東京).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from memlab.embed import Embedder, char_bigrams, get_embedder
from memlab.slots import keys_for_text
from memlab.store import Store, require_user
from memlab.types import Memory

W_LEXICAL, W_SLOT = 0.5, 0.3
# Question words carry no content: "我在哪個城市上班?" should match on 城市/上班, not on 我在.
_STOP = set("我你的了嗎呢吧是在有什麼哪個誰幾怎樣多少時候要會把給用都也就還")


@dataclass(frozen=True)
class Hit:
    memory: Memory
    score: float
    cosine: float
    lexical: float
    slot: bool


def content_bigrams(text: str) -> set[str]:
    """Bigrams of a text that don't consist only of function words."""
    return {g for g in char_bigrams(text) if not all(ch in _STOP for ch in g)}


def lexical_overlap(query: str, text: str) -> float:
    q = content_bigrams(query)
    return len(q & content_bigrams(text)) / len(q) if q else 0.0


def retrieve(store: Store, user_id: str, query: str, top_k: int = 5,
             embedder: Embedder | None = None) -> list[Hit]:
    """The user's top-k active, trusted memories for `query`, best first.

    Only this user's rows reach the ranking: the SQL filters on user_id before ordering.
    Quarantined, pending, superseded and deleted memories are never returned.
    """
    require_user(user_id)
    embedder = embedder or get_embedder()
    query_vector = store.cached_embed(embedder, [query], kind="query")[0]
    keys = keys_for_text(query)
    hits = []
    for memory, cosine in store.similar(user_id, embedder.name, query_vector):
        lexical = lexical_overlap(query, memory.content)
        slot = bool(memory.key) and (memory.key.split(":", 1)[0] in keys or (
            len(memory.value or "") >= 2 and memory.value.lower() in query.lower()))
        hits.append(Hit(memory, cosine + W_LEXICAL * lexical + W_SLOT * slot, cosine, lexical, slot))
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    return hits[:top_k]


def hits_frame(hits: list[Hit]) -> pd.DataFrame:
    """Hits as a table: id, user_id, content, score and its parts."""
    return pd.DataFrame(
        [{"id": h.memory.id, "user_id": h.memory.user_id, "content": h.memory.content,
          "score": round(h.score, 3), "cosine": round(h.cosine, 3),
          "lexical": round(h.lexical, 3), "slot": h.slot} for h in hits],
        columns=["id", "user_id", "content", "score", "cosine", "lexical", "slot"])
