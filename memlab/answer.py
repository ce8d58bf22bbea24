"""Answer a question from one user's memories, citing memory ids; abstain when unsupported.

The offline answerer is extractive and honest about its limits: it returns the best
supporting memory (or the value it held at a date, or the value before the current one),
and says 「不知道」 unless the memory is supported by more than one cosine: the question's
slot cue words must point at the memory's slot, or enough of the question's content words
must appear in it. It cannot do arithmetic across memories ("how many hours ahead?") or
combine two memories into one answer; an LLM answerer can.

Both answerers see the same prompt: the injected lines plus the retrieved memories; its
exact token count is the cost of the memory system.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from memlab import llm
from memlab.embed import Embedder
from memlab.judge import normalize_dates
from memlab.layers import injected_lines
from memlab.prompts import build_answer_messages
from memlab.retrieve import Hit, lexical_overlap, retrieve
from memlab.slots import keys_for_text
from memlab.store import Store, require_user
from memlab.tokens import count_messages
from memlab.types import Memory

ABSTAIN = "不知道:我的記憶裡沒有這件事。"
MIN_LEXICAL = 0.34  # without a slot match, a third of the question's content bigrams must match
_WHEN = re.compile(r"什麼時候|何時|哪一天|哪天|幾月幾[日號]|\b(?:when|what date|which day)\b", re.I)
_BEFORE = re.compile(r"以前|之前|原本|原來|先前|過去|\b(?:used to|before|previously|formerly)\b", re.I)


@dataclass
class Answer:
    text: str
    memory_ids: list[str]
    messages: list[dict] = field(default_factory=list)
    input_tokens: int = 0


def _date(at: datetime, tz: str) -> str:
    local = at.astimezone(ZoneInfo(tz))
    return f"{local.year} 年 {local.month} 月 {local.day} 日"


def _cite(memory: Memory, text: str | None = None) -> str:
    return f"{text or memory.content} [{memory.id}]"


def _history(store: Store, user_id: str, keys: set[str]) -> list[Memory]:
    """The user's memories on these slots, active and superseded, oldest first."""
    rows = store.memories(user_id, status=["active", "superseded"])
    rows = [m for m in rows if m.key and m.key.split(":", 1)[0] in keys and m.source_trusted]
    return sorted(rows, key=lambda m: m.valid_from)


def decide(store: Store, user_id: str, question: str, hits: list[Hit],
           asked_at: datetime | None = None, tz: str = "Asia/Taipei") -> tuple[str, list[str]]:
    """The offline answer (text, cited ids) from retrieved hits and the slot history."""
    keys = keys_for_text(question)
    year = (asked_at or datetime.now()).year
    as_of = sorted(normalize_dates(question, year))
    if keys and (as_of or _BEFORE.search(question)):
        history = _history(store, user_id, keys)
        if as_of:
            moment = datetime(as_of[0].year, as_of[0].month, as_of[0].day, 23, 59,
                              tzinfo=ZoneInfo(tz))
            held = [m for m in history if m.valid_from <= moment
                    and (m.valid_to is None or m.valid_to > moment)]
            if held:
                return _cite(held[-1]), [held[-1].id]
        else:
            earlier = [m for m in history if m.status == "superseded"]
            if earlier:
                return _cite(earlier[-1]), [earlier[-1].id]
    supported = [h for h in hits if h.slot or h.lexical >= MIN_LEXICAL]
    if not supported:
        return ABSTAIN, []
    best = max(supported, key=lambda h: (h.slot, h.score))
    if _WHEN.search(question):
        return _cite(best.memory, f"{_date(best.memory.valid_from, tz)}({best.memory.content})"), [
            best.memory.id]
    return _cite(best.memory), [best.memory.id]


def answer(store: Store, user_id: str, question: str, *, asked_at: datetime | None = None,
           top_k: int = 5, embedder: Embedder | None = None, tz: str = "Asia/Taipei",
           backend: str | None = None) -> Answer:
    """Answer `question` for `user_id` from injected context + user-scoped retrieval."""
    require_user(user_id)
    hits = retrieve(store, user_id, question, top_k=top_k, embedder=embedder)
    lines = injected_lines(store, user_id)
    memories = [h.memory for h in hits]
    messages = build_answer_messages(question, lines, memories)
    if (backend or llm.backend()) == "openai":
        from memlab.llm_backend import answer_llm

        text, ids = answer_llm(question, lines, memories)
    else:
        text, ids = decide(store, user_id, question, hits, asked_at, tz)
    return Answer(text, ids, messages, count_messages(messages))


def supported_by(question: str, memory: Memory) -> float:
    """How much of the question's content a memory covers (0–1); for notebooks and tests."""
    return lexical_overlap(question, memory.content)
