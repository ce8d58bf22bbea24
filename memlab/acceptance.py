"""The required lab's acceptance checks, each a function returning a table a notebook shows.

- `memory_report`: raw extracted candidates vs active memories, the passing details, the
  pasted page's instruction, provenance of every memory, and spot checks back to the
  exact sentence;
- `deletion_step`: delete the lab's deletion target (the answer key's ``deletion`` item)
  through `memlab.forget`, re-ask the questions that depend on it, and check that no
  retrieval result contains the deleted memory;
- `token_growth`: prompt tokens per question as the history grows with seeded distractor
  sessions (full context grows, memory stays flat).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd

from memlab import forget
from memlab.answer import answer
from memlab.embed import Embedder
from memlab.judge import is_abstention
from memlab.pipeline import IngestReport, ingest
from memlab.prompts import build_history_messages
from memlab.retrieve import retrieve
from memlab.store import Store
from memlab.tokens import count_messages
from memlab.types import Dataset, Session, Turn


def _plants(dataset: Dataset, kind: str, user_id: str) -> list:
    return [p for p in dataset.answer_key if p.kind == kind and p.user in (None, user_id)]


def _from_refs(store: Store, user_id: str, refs: set[str], status="all") -> list:
    return [m for m in store.memories(user_id, status=status)
            if refs & set(store.sources(user_id, m.id))]


def memory_report(store: Store, report: IngestReport, dataset: Dataset, user_id: str
                  ) -> pd.DataFrame:
    """The lab's acceptance checks on one user's memory store: (check, value, ok) rows."""
    everything = store.memories(user_id, status="all")
    active = store.memories(user_id, status="active")
    injected_ids = {i for ids in store.injected(user_id)["memory_ids"] for i in ids}
    rows = [("raw extracted candidates", report.candidates, None),
            ("active memories after consolidation", len(active), len(active) < report.candidates)]
    trivial = _plants(dataset, "trivial", user_id)
    kept = [p.id for p in trivial if _from_refs(store, user_id, set(p.evidence), "active")]
    rows.append(("passing details that became active memories",
                 f"{len(kept)} of {len(trivial)}" + (f" ({', '.join(kept)})" if kept else ""),
                 len(kept) < len(trivial) if trivial else None))
    for plant in _plants(dataset, "poison", user_id):
        untrusted = [m for m in _from_refs(store, user_id, set(plant.evidence))
                     if not m.source_trusted]
        bad = [m.id for m in untrusted if m.status == "active" or m.id in injected_ids]
        hits = retrieve(store, user_id, plant.summary, top_k=len(everything) or 1)
        bad += [h.memory.id for h in hits if not h.memory.source_trusted]
        states = ", ".join(f"{m.id} {m.status}" for m in untrusted) or "nothing extracted"
        rows.append((f"pasted page's instruction ({plant.id})", states, not bad))
    traced = [m for m in everything if _turn_of(dataset, m) is not None]
    rows.append(("memories with a source session and turn",
                 f"{len(traced)}/{len(everything)}", len(traced) == len(everything)))
    return pd.DataFrame(rows, columns=["check", "value", "ok"])


def _turn_of(dataset: Dataset, memory) -> Turn | None:
    try:
        turn = dataset.turn(f"{memory.source_session_id}:{memory.source_turn}")
    except KeyError:
        return None
    return turn if turn.user_id == memory.user_id else None


def spot_check(store: Store, dataset: Dataset, user_id: str, n: int = 5) -> pd.DataFrame:
    """`n` active memories traced back to the exact sentence of the turn they came from."""
    rows = []
    for memory in store.memories(user_id, status="active")[:n]:
        turn = _turn_of(dataset, memory)
        said = (turn.text + "\n" + (turn.attachment.text if turn.attachment else "")) if turn else ""
        rows.append({"id": memory.id, "content": memory.content,
                     "source": f"{memory.source_session_id}:{memory.source_turn}",
                     "sentence": memory.evidence,
                     "found_in_turn": bool(memory.evidence) and memory.evidence in said})
    return pd.DataFrame(rows, columns=["id", "content", "source", "sentence", "found_in_turn"])


@dataclass
class DeletionCheck:
    """What the deletion step did and what re-asking and retrieval showed afterwards."""

    deleted: list[str]
    tombstoned: list[str]
    reasked: pd.DataFrame
    retrieval: pd.DataFrame
    audit: pd.DataFrame


def deletion_step(store: Store, dataset: Dataset, user_id: str, *,
                  embedder: Embedder | None = None) -> DeletionCheck:
    """Delete the answer key's deletion target(s) and verify: re-asked questions say 不知道
    and no retrieval result, for any of the user's questions, contains a deleted memory."""
    refs = {r for p in _plants(dataset, "deletion", user_id) for r in p.evidence}
    seeds = [m for m in _from_refs(store, user_id, refs) if m.status != "deleted"]
    contents = [m.content for m in seeds]
    done = forget.delete_memories(store, user_id, seeds, reason="the lab's deletion step") \
        if seeds else forget.Deletion()
    questions = [q for q in dataset.questions if q.user_id == user_id]
    dependent = [q for q in questions if refs & set(q.evidence)]
    reasked = []
    for q in dependent:
        a = answer(store, user_id, q.question, asked_at=q.asked_at, embedder=embedder)
        reasked.append({"id": q.id, "question": q.question, "answer": a.text,
                        "says_dont_know": is_abstention(a.text)})
    total = len(store.memories(user_id, status="all")) or 1
    retrieval = []
    for q in questions:
        hits = retrieve(store, user_id, q.question, top_k=total, embedder=embedder)
        found = sorted({h.memory.id for h in hits} & set(done.memory_ids))
        retrieval.append({"id": q.id, "results": len(hits), "deleted_ids_in_results": found})
    audits = [forget.audit(store, user_id, text).assign(searched=text) for text in contents]
    audit = pd.concat(audits, ignore_index=True) if audits else pd.DataFrame(
        columns=["layer", "id", "status", "text", "searched"])
    return DeletionCheck(done.memory_ids, done.tombstoned,
                         pd.DataFrame(reasked, columns=["id", "question", "answer",
                                                        "says_dont_know"]),
                         pd.DataFrame(retrieval, columns=["id", "results",
                                                          "deleted_ids_in_results"]), audit)


# ---------------------------------------------------------------- distractors and tokens
# Everyday requests that state nothing about the user: they lengthen the history only.
_DISTRACTOR_TURNS = [
    ("今天的天氣適合出門嗎?", "看起來多雲,記得帶把傘比較保險。"),
    ("幫我把「謝謝你的幫忙」翻成英文。", "Thank you for your help."),
    ("推薦一部輕鬆的電影。", "可以看《總是有愛在隔壁》,節奏輕鬆。"),
    ("寫一句給同事的生日祝福。", "生日快樂!祝你新的一歲工作順利、天天開心。"),
    ("解釋一下什麼是 API。", "API 是程式之間溝通的約定:你照格式發出請求,它照格式回覆。"),
    ("幫我想三個會議破冰的問題。", "1. 最近學到的新東西?2. 最推薦的午餐店?3. 週末做了什麼?"),
    ("一杯拿鐵大概多少熱量?", "中杯全脂拿鐵大約 190 大卡,換成燕麥奶會少一些。"),
    ("Markdown 的表格怎麼寫?", "用 | 分欄、第二列用 --- 分隔表頭,例如 | a | b |。"),
    ("有什麼提神的方法?", "起來走動五分鐘、喝杯水,或到窗邊曬點太陽。"),
    ("幫我潤飾:「這個功能下週上線」。", "「這項功能預計於下週正式上線。」"),
    ("番茄鐘是什麼?", "工作 25 分鐘、休息 5 分鐘為一輪,四輪後休息久一點。"),
    ("簡單介紹一下京都。", "京都是日本古都,寺廟與庭園很多,春秋兩季最熱門。"),
    ("怎麼寫一封請假信?", "寫清楚日期、原因(可簡略)、交接安排,最後致謝。"),
    ("給我一個簡單的晚餐點子。", "番茄炒蛋配白飯,十五分鐘就能上桌。"),
    ("Excel 怎麼凍結第一列?", "檢視 → 凍結窗格 → 凍結頂端列。"),
    ("好,謝謝。", "不客氣!"),
]


def distractor_sessions(user_id: str, n: int, start: datetime, end: datetime,
                        seed: int = 0) -> list[Session]:
    """`n` seeded filler sessions spread between `start` and `end` (ids x01, x02, …)."""
    rng = random.Random(seed)
    span = (end - start) / (n + 1)
    sessions = []
    for k in range(1, n + 1):
        at = (start + span * k).replace(hour=14, minute=0, second=0, microsecond=0)
        pairs = rng.sample(_DISTRACTOR_TURNS, rng.randint(3, 6))
        turns = [Turn(session_id=f"x{k:02d}", user_id=user_id, turn=i, role=role, text=text,
                      at=at + timedelta(minutes=i - 1))
                 for i, (role, text) in enumerate(
                     ((r, t) for pair in pairs for r, t in zip(("user", "assistant"), pair, strict=True)),
                     start=1)]
        sessions.append(Session(id=f"x{k:02d}", user_id=user_id, date=at, turns=turns))
    return sessions


def token_growth(dataset: Dataset, user_id: str, questions: list[str], *, distractors: int = 30,
                 seed: int = 0, every: int = 5, embedder: Embedder | None = None
                 ) -> pd.DataFrame:
    """Average prompt tokens per question as sessions accumulate (real + distractor).

    Returns rows (sessions, system, avg_input_tokens) measured every `every` sessions.
    """
    own = [s for s in dataset.sessions if s.user_id == user_id]
    extra = distractor_sessions(user_id, distractors, own[0].date, own[-1].date, seed)
    merged = sorted(own + extra, key=lambda s: s.date)
    grown = dataset.model_copy(update={"sessions": merged, "questions": [], "answer_key": []})
    store, rows = Store(), []
    for count in range(every, len(merged) + every, every):
        count = min(count, len(merged))
        now = merged[count - 1].turns[-1].at
        ingest(store, grown, until=now, users=[user_id], embedder=embedder)
        turns = [t for s in merged[:count] for t in s.turns]
        full = [count_messages(build_history_messages(q, turns)) for q in questions]
        memory = [answer(store, user_id, q, asked_at=now, embedder=embedder).input_tokens
                  for q in questions]
        rows += [{"sessions": count, "system": "full_context",
                  "avg_input_tokens": sum(full) / len(full)},
                 {"sessions": count, "system": "memory",
                  "avg_input_tokens": sum(memory) / len(memory)}]
        if count == len(merged):
            break
    return pd.DataFrame(rows, columns=["sessions", "system", "avg_input_tokens"])
