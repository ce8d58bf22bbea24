"""The read path, taken apart for notebook 04: scope, metrics, timing and debugging.

- isolation: `filter_then_rank` (the right order, on plain rows) and `wrong_way_search`,
  a clearly labelled TEACHING-ONLY function that ranks *every* user's memories and filters
  afterwards (or not at all), so the notebook can show what leaks and what gets lost;
  `compare_scoping` puts both next to the real, SQL-filtered read; `leak_attempts` runs a
  user's deliberate attempts to reach another user's memories and counts what leaks;
- retrieval quality: `rank_of`, `mean_reciprocal_rank`, `embedder_check` (top-1 / MRR per
  embedder on a small zh/en check built from a dataset's question evidence);
- when to read: `auto_read` (retrieve by the user's sentence) vs `tool_read` (a
  deterministic stand-in for an agent that decides what it needs and calls memory tools);
- debugging: `diagnose` separates "never stored" from "stored but not retrieved".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from memlab.answer import answer
from memlab.embed import Embedder, get_embedder
from memlab.retrieve import retrieve
from memlab.store import Store, _memory, require_user
from memlab.types import Dataset, Memory

# -- isolation ---------------------------------------------------------------------------


def filter_then_rank(rows: list[tuple[str, str, float]], user_id: str, k: int) -> list[str]:
    """Memory ids of `user_id`'s top-k rows (user_id, memory_id, score), best first.

    Filter first, then rank: other users' rows never compete for the k places. Ties go
    to the smaller memory id, so the order is reproducible.
    """
    mine = [(memory_id, score) for owner, memory_id, score in rows if owner == user_id]
    mine.sort(key=lambda r: (-r[1], r[0]))
    return [memory_id for memory_id, _ in mine[:k]]


def wrong_way_search(store: Store, user_id: str, query: str, top_k: int = 5,
                     filter_after: bool = True, embedder: Embedder | None = None
                     ) -> list[tuple[Memory, float]]:
    """TEACHING ONLY — the WRONG way: rank every user's memories, then filter (or don't).

    This is what happens with a global vector index (an HNSW index applied before the
    ``WHERE user_id``) or a forgotten filter. With ``filter_after=False`` other users'
    memories come back (a leak); with ``filter_after=True`` the user's own memories may
    have been pushed out of the global top-k (lost). Never use this to answer anyone.
    """
    require_user(user_id)
    embedder = embedder or get_embedder()
    vector = store.cached_embed(embedder, [query], kind="query")[0]
    rows = store._rows(  # deliberately unscoped: no user_id in the WHERE clause
        "SELECT m.*, list_cosine_similarity(v.vector, ?::FLOAT[]) AS score"
        " FROM memories m JOIN memory_vectors v ON v.memory_id = m.id"
        " WHERE v.model = ? AND m.status = 'active' AND m.source_trusted"
        " ORDER BY score DESC, m.id LIMIT ?",
        [vector.astype(float).tolist(), embedder.name, top_k])
    found = [(_memory(r), float(r["score"])) for r in rows]
    if filter_after:
        found = [(m, s) for m, s in found if m.user_id == user_id]
    return found


def compare_scoping(store: Store, user_id: str, query: str, top_k: int = 5,
                    embedder: Embedder | None = None) -> pd.DataFrame:
    """One row per way of scoping a search: what came back, what leaked, what was lost."""
    embedder = embedder or get_embedder()
    vector = store.cached_embed(embedder, [query], kind="query")[0]
    right = store.similar(user_id, embedder.name, vector)[:top_k]
    ways = {
        "✗ 不過濾(全部人一起排)": wrong_way_search(store, user_id, query, top_k, False, embedder),
        "✗ 先取全體 top-k 再過濾": wrong_way_search(store, user_id, query, top_k, True, embedder),
        "✓ SQL 先過濾使用者再排序": right,
    }
    own = {m.id for m, _ in right}
    rows = []
    for way, found in ways.items():
        ids = [m.id for m, _ in found]
        rows.append({"way": way, "returned": ", ".join(ids) or "(沒有)",
                     "other_users": ", ".join(f"{m.id}({m.user_id})" for m, _ in found
                                              if m.user_id != user_id) or "",
                     "leaked": sum(m.user_id != user_id for m, _ in found),
                     "own_lost": len(own - set(ids))})
    return pd.DataFrame(rows)


def leak_attempts(store: Store, victim: str, attacker: str, queries: list[str],
                  top_k: int = 5, embedder: Embedder | None = None) -> pd.DataFrame:
    """The attacker asks each query as themselves; count the victim's memories that reach
    the attacker's retrieval, the answer's citations, or the prompt that would be sent."""
    require_user(victim)
    require_user(attacker)
    embedder = embedder or get_embedder()
    theirs = store.memories(victim, status="all")
    victim_ids = {m.id for m in theirs}
    texts = [m.content for m in theirs if len(m.content) >= 4]
    rows = []
    for query in queries:
        hits = retrieve(store, attacker, query, top_k=top_k, embedder=embedder)
        result = answer(store, attacker, query, top_k=top_k, embedder=embedder)
        # The attacker's own question is in the prompt too; it may quote the victim's facts.
        prompt = "\n".join(str(msg.get("content", "")) for msg in result.messages)
        prompt = prompt.replace(query, "")
        leaked = ({h.memory.id for h in hits} | set(result.memory_ids)) & victim_ids
        in_prompt = [t for t in texts if t in prompt]
        rows.append({"query": query, "retrieved": ", ".join(h.memory.id for h in hits),
                     "answer": result.text, "leaked_ids": ", ".join(sorted(leaked)),
                     "victim_text_in_prompt": len(in_prompt),
                     "leaks": len(leaked) + len(in_prompt)})
    return pd.DataFrame(rows)


# -- retrieval metrics -------------------------------------------------------------------


def rank_of(ranked_ids: list[str], gold: set[str] | list[str]) -> int | None:
    """1-based position of the first gold id in a ranking, or None when absent."""
    for position, memory_id in enumerate(ranked_ids, start=1):
        if memory_id in gold:
            return position
    return None


def mean_reciprocal_rank(ranks: list[int | None]) -> float:
    """Mean of 1/rank over queries; a query whose answer was not found counts 0."""
    if not ranks:
        return 0.0
    return sum(1.0 / r for r in ranks if r) / len(ranks)


@dataclass(frozen=True)
class RetrievalCase:
    """One query of a retrieval check, the passage ids that answer it, and its language."""

    query: str
    gold: tuple[str, ...]
    lang: str


def evidence_cases(store: Store, dataset: Dataset, user_id: str
                   ) -> tuple[list[RetrievalCase], dict[str, str]]:
    """Cases from the dataset's questions: the gold passages are the user's memories drawn
    from a question's evidence turns. Returns (cases, passages id → text); questions whose
    evidence became no memory (abstention, deleted) are skipped."""
    memories = [m for m in store.memories(user_id, status=["active", "superseded"])
                if m.source_trusted and m.content]
    passages = {m.id: m.content for m in memories}
    cases = []
    for q in dataset.questions:
        if q.user_id != user_id or q.category == "abstention":
            continue
        gold = tuple(m.id for m in memories
                     if set(store.sources(user_id, m.id)) & set(q.evidence))
        if gold:
            cases.append(RetrievalCase(q.question, gold, "zh"))
    return cases, passages


# English facts about a made-up user and questions phrased unlike them (no shared keywords
# where possible), so the check measures meaning rather than word overlap.
EN_PASSAGES = {
    "e1": "Answer with the conclusion first and put the details after it.",
    "e2": "Keep design jargon in English instead of translating it.",
    "e3": "Takes notes in Obsidian.",
    "e4": "Has a Shiba Inu dog named Douhua.",
    "e5": "Goes bouldering at the climbing gym on weekends.",
    "e6": "The weekly report is sent to Leo.",
    "e7": "Lives in Taichung.",
    "e8": "Drinks coffee black, no sugar and no milk.",
    "e9": "Commutes by scooter, about fifteen minutes each way.",
    "e10": "Younger sister is called Xiaoqing.",
}
EN_QUERIES = [
    ("What should you tell me first when you reply?", "e1"),
    ("Which app do I write my notes in?", "e3"),
    ("What is my pet called?", "e4"),
    ("What sport do I do on Saturdays and Sundays?", "e5"),
    ("Who receives my weekly summary?", "e6"),
    ("Which city is my home?", "e7"),
    ("How do I take my coffee?", "e8"),
    ("How do I get to the office?", "e9"),
]


def english_cases() -> tuple[list[RetrievalCase], dict[str, str]]:
    return [RetrievalCase(q, (g,), "en") for q, g in EN_QUERIES], dict(EN_PASSAGES)


def rank_cases(embedder: Embedder, cases: list[RetrievalCase],
               passages: dict[str, str]) -> list[int | None]:
    """Rank every passage by cosine for each case; the gold's 1-based rank per case."""
    ids = sorted(passages, key=lambda i: (len(i), i))
    passage_vectors = embedder.embed([passages[i] for i in ids], kind="passage")
    query_vectors = embedder.embed([c.query for c in cases], kind="query")
    ranks = []
    for case, scores in zip(cases, query_vectors @ passage_vectors.T, strict=True):
        order = sorted(range(len(ids)), key=lambda j: (-round(float(scores[j]), 6), j))
        ranks.append(rank_of([ids[j] for j in order], set(case.gold)))
    return ranks


def embedder_check(embedders: dict[str, Embedder],
                   checks: dict[str, tuple[list[RetrievalCase], dict[str, str]]]
                   ) -> pd.DataFrame:
    """top-1 and MRR for each embedder on each check (e.g. {"zh": ..., "en": ...})."""
    rows = []
    for name, embedder in embedders.items():
        for lang, (cases, passages) in checks.items():
            ranks = rank_cases(embedder, cases, passages)
            rows.append({"embedder": name, "check": lang, "queries": len(cases),
                         "passages": len(passages),
                         "top1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
                         "mrr": round(mean_reciprocal_rank(ranks), 3)})
    return pd.DataFrame(rows)


# -- when to read: automatic retrieval vs memory as a tool -------------------------------

TIMEZONE = re.compile(r"時區|UTC[+-]\d|Asia/|time ?zone", re.IGNORECASE)
# What a task needs to know, by cue words: the "agent" asks its memory for these.
TASK_NEEDS = (
    (re.compile(r"會議|開會|排|提醒|約|meeting|schedule|remind", re.I), "時區"),
    (re.compile(r"摘要|整理|回答|summar|answer", re.I), "格式"),
)


def auto_read(store: Store, user_id: str, request: str, top_k: int = 2,
              embedder: Embedder | None = None) -> pd.DataFrame:
    """Automatic retrieval: the harness searches with the user's sentence as it is."""
    hits = retrieve(store, user_id, request, top_k=top_k, embedder=embedder)
    return pd.DataFrame([{"id": h.memory.id, "content": h.memory.content,
                          "score": round(h.score, 3)} for h in hits],
                        columns=["id", "content", "score"])


def tool_read(store: Store, user_id: str, request: str, top_k: int = 2,
              embedder: Embedder | None = None) -> pd.DataFrame:
    """Memory as a tool, played by rules: decide what the task needs, then call tools.

    Step 1 reads the injected layer (already in every prompt); for each need the task's
    cue words imply (排/會議 → 時區) it calls ``search_memory(need)`` unless the injected
    lines already cover it. Returns the tool-call trace: step, tool, argument, result, ids.
    """
    require_user(user_id)
    injected = store.injected(user_id)
    trace = [{"step": 1, "tool": "read_injected", "argument": "",
              "result": " / ".join(injected["text"]),
              "ids": ", ".join(i for ids in injected["memory_ids"] for i in ids)}]
    for cue, need in TASK_NEEDS:
        if not cue.search(request):
            continue
        covered = need == "時區" and any(TIMEZONE.search(t) for t in injected["text"])
        if covered:
            trace.append({"step": len(trace) + 1, "tool": "(不用查)", "argument": need,
                          "result": "注入層已經有了", "ids": ""})
            continue
        hits = retrieve(store, user_id, need, top_k=top_k, embedder=embedder)
        trace.append({"step": len(trace) + 1, "tool": "search_memory", "argument": need,
                      "result": " / ".join(h.memory.content for h in hits),
                      "ids": ", ".join(h.memory.id for h in hits)})
    return pd.DataFrame(trace)


def compare_reads(store: Store, user_id: str, request: str, top_k: int = 2,
                  embedder: Embedder | None = None) -> pd.DataFrame:
    """Does each way of reading find the time zone a scheduling request needs?"""
    auto = auto_read(store, user_id, request, top_k, embedder)
    injected = store.injected(user_id)
    tool = tool_read(store, user_id, request, top_k, embedder)
    tool_tools = tool[tool["tool"] == "search_memory"]
    rows = [
        (f"自動檢索(用原句,top-{top_k})", list(auto["id"]), list(auto["content"])),
        ("自動檢索 + 注入層", list(auto["id"]) + [i for ids in injected["memory_ids"] for i in ids],
         list(auto["content"]) + list(injected["text"])),
        ("記憶當工具(自己決定查什麼)", [i for s in tool["ids"] for i in s.split(", ") if i],
         list(tool["result"])),
    ]
    return pd.DataFrame([{"strategy": name, "memory_ids": ", ".join(dict.fromkeys(ids)),
                          "has_timezone": any(TIMEZONE.search(t) for t in texts),
                          "tool_calls": len(tool_tools) if "工具" in name else 0}
                         for name, ids, texts in rows])


# -- debugging: not stored vs not retrieved ----------------------------------------------

_MEMORY_ID = re.compile(r"^m\d+$")


def _matches(memory: Memory, expected: str) -> bool:
    if _MEMORY_ID.match(expected):
        return memory.id == expected
    return expected in memory.content or bool(memory.value and expected in memory.value)


def diagnose(store: Store, user_id: str, question: str, expected: str, top_k: int = 5,
             embedder: Embedder | None = None) -> pd.DataFrame:
    """Walk an expected memory (an id like ``m4`` or a text like ``東京``) down the read path.

    Rows: said in a transcript? stored (any status)? active? in the index? its rank for
    this question; and a last row ``verdict``: one of ``not stored``, ``inactive``,
    ``not indexed``, ``not retrieved``, ``retrieved``.
    """
    require_user(user_id)
    embedder = embedder or get_embedder()
    by_id = bool(_MEMORY_ID.match(expected))
    turns = [] if by_id else [t.ref for t in store.turns(user_id) if expected in t.text]
    stored = [m for m in store.memories(user_id, status="all") if _matches(m, expected)]
    active = [m for m in stored if m.status == "active" and m.source_trusted]
    indexed = [m for m in active if m.id in set(store.vector_ids(user_id))]
    ranking = [h.memory.id for h in retrieve(store, user_id, question, top_k=10_000,
                                             embedder=embedder)]
    rank = rank_of(ranking, {m.id for m in indexed})
    if not stored:
        verdict = "not stored"
    elif not active:
        verdict = "inactive"
    elif not indexed:
        verdict = "not indexed"
    elif rank is None or rank > top_k:
        verdict = "not retrieved"
    else:
        verdict = "retrieved"
    rows = [
        ("對話裡說過?", None if by_id else bool(turns),
         "(用 ID 查,略過)" if by_id else ", ".join(turns) or "沒有"),
        ("存成記憶?", bool(stored),
         ", ".join(f"{m.id}({m.status})" for m in stored) or "notes 層沒有"),
        ("有效而且可信?", bool(active), ", ".join(m.id for m in active) or "沒有有效的"),
        ("在檢索索引裡?", bool(indexed), ", ".join(m.id for m in indexed) or "沒有"),
        (f"這題的名次(取前 {top_k})", rank is not None and rank <= top_k,
         f"第 {rank} 名 / 共 {len(ranking)} 筆" if rank else "排不到"),
        ("verdict", verdict == "retrieved", verdict),
    ]
    return pd.DataFrame(rows, columns=["step", "ok", "detail"])


def verdict_of(frame: pd.DataFrame) -> str:
    """The verdict row of a `diagnose` table."""
    return str(frame.loc[frame["step"] == "verdict", "detail"].iloc[0])

