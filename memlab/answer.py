"""Answer a question from one user's memories, citing memory ids; abstain when unsupported.

The prompt (what an LLM would get, and what the token count measures) holds the injected
lines plus the retrieved memories and their supersede history (so "以前…?" can be
answered). The offline answerer reads exactly those memories through `memlab.extractive`:
it quotes the supporting memory — the current value, the value before it, the value held
at a date — and says 「不知道」 unless a memory supports the question beyond similarity
(same topic, the question's slot or content words, the right kind of answer; see
`memlab.focus`). It cannot do arithmetic across memories ("how many hours ahead?") or
rephrase; an LLM answerer can.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memlab import clock, llm
from memlab.embed import Embedder
from memlab.extractive import ABSTAIN, Item, respond
from memlab.focus import analyze, support
from memlab.layers import injected_lines
from memlab.prompts import build_answer_messages
from memlab.retrieve import Hit, retrieve
from memlab.store import Store, require_user
from memlab.tokens import count_messages
from memlab.types import Memory

__all__ = ["ABSTAIN", "Answer", "answer", "decide", "history_of", "supported_by"]


@dataclass
class Answer:
    """An answer: its text, the memory ids (or turn refs) it cites, the prompt, its tokens."""

    text: str
    memory_ids: list[str]
    messages: list[dict] = field(default_factory=list)
    input_tokens: int = 0


def history_of(store: Store, user_id: str, memories: list[Memory]) -> list[Memory]:
    """The superseded, trusted memories on the supersede chains leading to `memories`."""
    older = [m for m in store.memories(user_id, status="superseded") if m.source_trusted]
    by_successor = {m.superseded_by: m for m in older if m.superseded_by}
    found: dict[str, Memory] = {}
    for memory in memories:
        current = memory.id
        while current in by_successor and by_successor[current].id not in found:
            found[by_successor[current].id] = by_successor[current]
            current = by_successor[current].id
    return sorted(found.values(), key=lambda m: m.valid_from)


def _items(hits: list[Hit], history: list[Memory]) -> list[Item]:
    items = [Item(h.memory.id, h.memory.content, h.memory.valid_from, h.memory.key,
                  h.memory.value, True, None, h.score) for h in hits]
    items += [Item(m.id, m.content, m.valid_from, m.key, m.value, False, m.valid_to)
              for m in history]
    return items


def decide(store: Store, user_id: str, question: str, hits: list[Hit],
           asked_at: datetime | None = None, tz: str = "Asia/Taipei") -> tuple[str, list[str]]:
    """The offline answer (text, cited ids) from retrieved hits and their history."""
    history = history_of(store, user_id, [h.memory for h in hits])
    year = (asked_at or clock.now()).year
    return respond(question, _items(hits, history), year=year, tz=tz)


def answer(store: Store, user_id: str, question: str, *, asked_at: datetime | None = None,
           top_k: int = 5, embedder: Embedder | None = None, tz: str = "Asia/Taipei",
           backend: str | None = None) -> Answer:
    """Answer `question` for `user_id` from injected context + user-scoped retrieval."""
    require_user(user_id)
    hits = retrieve(store, user_id, question, top_k=top_k, embedder=embedder)
    history = history_of(store, user_id, [h.memory for h in hits])
    lines = injected_lines(store, user_id)
    shown = [h.memory for h in hits] + history
    messages = build_answer_messages(question, lines, shown)
    if (backend or llm.backend()) == "openai":
        from memlab.llm_backend import answer_llm

        text, ids = answer_llm(question, lines, shown)
    else:
        year = (asked_at or clock.now()).year
        text, ids = respond(question, _items(hits, history), year=year, tz=tz)
    return Answer(text, ids, messages, count_messages(messages))


def supported_by(question: str, memory: Memory, year: int = 2026) -> str:
    """Why `memory` does or does not support answering `question` (for notebooks and tests)."""
    verdict = support(analyze(question, year), memory.content, memory.key, memory.value)
    return ("✓ " if verdict.ok else "✗ ") + verdict.reason
