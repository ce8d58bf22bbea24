"""The three systems an evaluation compares, on one answer step.

| system | prompt it would send (counted exactly, o200k) | offline answerer |
|---|---|---|
| ``no_memory`` | the question alone | says 不知道: nothing to read |
| ``full_context`` | every turn of the user's sessions up to the question | reads the user's sentences |
| ``memory`` | injected lines + this user's retrieved memories and history | `memlab.answer` |

(In the full-context prompt, attachments and tool output are fenced as untrusted.)

The full-context baseline ranks the user's sentences by e5 cosine, keeps those that pass the
same support rules as the memory answerer (`memlab.focus`) and, having no supersede chain,
lets the newest of the near-best win. What it cannot do: tell a plan from a fact, know that
the user asked to delete something (the transcript still says it), read assistant turns, or
combine facts. With ``backend="openai"`` each system sends its prompt to the LLM instead.
"""

from __future__ import annotations

import re
from datetime import datetime

import numpy as np

from memlab.answer import Answer, answer
from memlab.embed import Embedder, get_embedder
from memlab.extract import split_sentences
from memlab.extractive import ABSTAIN, Item, respond
from memlab.prompts import build_history_messages, build_question_messages
from memlab.store import Store
from memlab.tokens import count_messages
from memlab.types import Dataset, Turn

SYSTEMS = ("no_memory", "full_context", "memory")


class MemoEmbedder:
    """An embedder that remembers the vectors it computed (same name and vectors as the one
    it wraps), so the stores of one evaluation run embed each text once. It is a cache of
    the harness, held in this process only; it is not a memory layer and stores nothing."""

    def __init__(self, inner: Embedder):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self._seen: dict[tuple[str, str], np.ndarray] = {}

    def embed(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (kind, t) not in self._seen))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing, kind=kind), strict=True):
                self._seen[(kind, text)] = vector
        return np.asarray([self._seen[(kind, t)] for t in texts], dtype=np.float32).reshape(
            len(texts), self.dim)


def history(dataset: Dataset, user_id: str, asked_at: datetime) -> list[Turn]:
    """Every turn of `user_id`'s sessions spoken up to `asked_at`, in time order."""
    return [t for s in dataset.sessions if s.user_id == user_id and s.date <= asked_at
            for t in s.turns if t.at <= asked_at]


def user_sentences(turns: list[Turn]) -> list[tuple[str, str, datetime]]:
    """(turn ref, sentence, time) for each sentence the user said (attachments excluded)."""
    return [(t.ref, sentence, t.at) for t in turns if t.role == "user"
            for sentence in split_sentences(t.text)]


_CITATION = re.compile(r"\[([^\[\]\s]+)\]")  # [m4], [l03:11], [lme_x/s1:2]


def _llm_answer(messages: list[dict], shown: set[str]) -> tuple[str, list[str]]:
    """(answer, cited ids) from the LLM; only ids that were shown count as citations."""
    from memlab.llm import structured
    from memlab.llm_backend import AnswerResult

    result = structured(messages, AnswerResult)
    cited = [*result.cited, *_CITATION.findall(result.answer)]
    return result.answer, list(dict.fromkeys(i for i in cited if i in shown))


def answer_no_memory(question: str, *, backend: str = "offline") -> Answer:
    """The no-memory baseline: the prompt is the question; offline it can only say 不知道."""
    messages = build_question_messages(question)
    text, ids = _llm_answer(messages, set()) if backend == "openai" else (ABSTAIN, [])
    return Answer(text, ids, messages, count_messages(messages))


def answer_full_context(question: str, turns: list[Turn], *, asked_at: datetime,
                        cache: Store | None = None, embedder: Embedder | None = None,
                        tz: str = "Asia/Taipei", backend: str = "offline") -> Answer:
    """The full-context baseline: the whole history in the prompt; cites turn refs.

    `cache` is a store used only for its embedding cache (never the memory store: cached
    vectors of a deleted memory's text must not come back through a baseline).
    """
    messages = build_history_messages(question, turns)
    if backend == "openai":
        text, ids = _llm_answer(messages, {t.ref for t in turns})
        return Answer(text, ids, messages, count_messages(messages))
    found = user_sentences(turns)
    items: list[Item] = []
    if found:
        cache = cache or Store()
        embedder = embedder or get_embedder()
        query = cache.cached_embed(embedder, [question], kind="query")[0]
        vectors = cache.cached_embed(embedder, [s for _, s, _ in found], kind="passage")
        scores = vectors @ np.asarray(query)
        items = [Item(ref, sentence, at, score=float(score))
                 for (ref, sentence, at), score in zip(found, scores, strict=True)]
    text, ids = respond(question, items, year=asked_at.year, tz=tz, newest_wins=True)
    return Answer(text, list(dict.fromkeys(ids)), messages, count_messages(messages))


def answer_memory(store: Store, user_id: str, question: str, *, asked_at: datetime,
                  embedder: Embedder | None = None, tz: str = "Asia/Taipei",
                  backend: str = "offline") -> Answer:
    """The memory system: injected context + this user's retrieved memories, ids cited."""
    return answer(store, user_id, question, asked_at=asked_at, embedder=embedder, tz=tz,
                  backend=backend)
