"""Evaluate systems on a question set: answer, judge, and report accuracy, intervals, tokens.

Each question is answered for its own user, with what that user's system knew when the
question was asked (`asked_at`): the memory system is built by the same `pipeline.ingest`
as ``memlab ingest``, one store per user, sessions played up to each question. Deletion
requests made in the conversation are carried out, with one rule: a question whose expected
answer rests on what the user later asked to delete (its evidence turns feed the doomed
memories) measures recall *before* the deletion, so it is answered just before the request
is carried out; every other question is answered after it.

    >>> result = eval_command("data/lab", "lab20", ["no_memory", "memory"], "offline")
    >>> sorted(result)
    ['questions', 'systems']
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby

import pandas as pd
from tqdm.auto import tqdm

from memlab import forget
from memlab.datasets import load_dataset
from memlab.embed import Embedder, get_embedder
from memlab.judge import judge_offline
from memlab.pipeline import DeletionRequest, IngestReport, carry_out, ingest
from memlab.stats import paired_difference_interval, wilson_interval
from memlab.store import Store
from memlab.systems import (
    SYSTEMS,
    MemoEmbedder,
    answer_full_context,
    answer_memory,
    answer_no_memory,
    history,
)
from memlab.types import CATEGORIES, Dataset, Question

COLUMNS = ["id", "user_id", "category", "system", "question", "answer", "correct", "reason",
           "memory_ids", "input_tokens"]


@dataclass
class Evaluation:
    """Everything a run produced: the per-answer table and each user's memory store."""

    dataset: Dataset
    results: pd.DataFrame
    stores: dict[str, Store] = field(default_factory=dict)
    reports: dict[str, IngestReport] = field(default_factory=dict)


def select(dataset: Dataset, set_name: str | None = None) -> list[Question]:
    """The questions of `set_name` (all questions when None), in file order."""
    chosen = [q for q in dataset.questions if set_name is None or set_name in q.sets]
    if not chosen:
        known = sorted({s for q in dataset.questions for s in q.sets})
        raise ValueError(f"no questions in set {set_name!r}; known sets: {known}")
    return chosen


def judge(question: Question, answer: str, backend: str = "offline") -> tuple[bool, str]:
    """(correct, reason) by the offline judge or, with backend openai, the LLM rubric judge."""
    if backend == "openai":
        from memlab.llm_backend import judge_llm

        return judge_llm(question, answer), "LLM judge (rubric for the category)"
    verdict = judge_offline(question, answer)
    return verdict.correct, verdict.reason


def doomed_refs(store: Store, requests: list[DeletionRequest]) -> set[str]:
    """Transcript turns whose memories these deletion requests would remove."""
    refs: set[str] = set()
    for request in requests:
        for memory in forget.memories_about(store, request.user_id, request.topic):
            refs.update(store.sources(request.user_id, memory.id))
    return refs


def _row(q: Question, system: str, ans, backend: str) -> dict:
    correct, reason = judge(q, ans.text, backend)
    return {"id": q.id, "user_id": q.user_id, "category": q.category, "system": system,
            "question": q.question, "answer": ans.text, "correct": bool(correct),
            "reason": reason, "memory_ids": list(ans.memory_ids),
            "input_tokens": int(ans.input_tokens)}


def evaluate(dataset: Dataset, questions: list[Question], systems: Iterable[str] = SYSTEMS, *,
             backend: str = "offline", embedder: Embedder | None = None,
             progress: bool | None = None) -> Evaluation:
    """Answer every question with every system and judge it; one row per (question, system).

    `progress`: None shows a bar on a terminal only (never in notebooks), False never.
    """
    systems = list(systems)
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system(s) {unknown}; choose from {', '.join(SYSTEMS)}")
    embedder = embedder or MemoEmbedder(get_embedder())
    order = {q.id: i for i, q in enumerate(questions)}
    rows: list[dict] = []
    run = Evaluation(dataset, pd.DataFrame(columns=COLUMNS))
    bar = tqdm(total=len(questions) * len(systems), file=sys.stderr, desc="eval",
               disable=None if progress is None else not progress)
    for user_id in dict.fromkeys(q.user_id for q in questions):
        store, cache, report = Store(), Store(), IngestReport()
        run.stores[user_id], run.reports[user_id] = store, report
        pending: list[DeletionRequest] = []
        own = sorted((q for q in questions if q.user_id == user_id), key=lambda q: q.asked_at)
        for asked_at, batch in groupby(own, key=lambda q: q.asked_at):
            batch = list(batch)
            if "memory" in systems:
                part = ingest(store, dataset, until=asked_at, users=[user_id],
                              embedder=embedder, backend=backend, defer_deletions=True)
                pending += part.deferred
                _merge(report, part)
                # One embedding call for the batch (retrieval then finds them cached).
                store.cached_embed(embedder, [q.question for q in batch], kind="query")
            if "full_context" in systems and backend != "openai":
                cache.cached_embed(embedder, [q.question for q in batch], kind="query")
            due = [r for r in pending if r.at <= asked_at]
            refs = doomed_refs(store, due) if due else set()
            before = [q for q in batch if q.answer is not None and refs & set(q.evidence)]
            after = [q for q in batch if q not in before]
            for group in (before, after):
                if group is after and due:
                    for request in due:
                        carry_out(store, request, report)
                    pending = [r for r in pending if r not in due]
                for q in group:
                    rows += [_row(q, s, _answer(s, q, dataset, store, cache, embedder, backend),
                                  backend) for s in systems]
                    bar.update(len(systems))
    bar.close()
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["_order"] = frame["id"].map(order)
    frame["_system"] = frame["system"].map({s: i for i, s in enumerate(systems)})
    run.results = frame.sort_values(["_order", "_system"]).drop(
        columns=["_order", "_system"]).reset_index(drop=True)
    return run


def _merge(total: IngestReport, part: IngestReport) -> None:
    total.sessions += part.sessions
    total.candidates += part.candidates
    total.ops.update(part.ops)
    total.log += part.log


def _answer(system: str, q: Question, dataset: Dataset, store: Store, cache: Store,
            embedder: Embedder, backend: str):
    if system == "no_memory":
        return answer_no_memory(q.question, backend=backend)
    if system == "full_context":
        return answer_full_context(q.question, history(dataset, q.user_id, q.asked_at),
                                   asked_at=q.asked_at, cache=cache, embedder=embedder,
                                   tz=dataset.timezone, backend=backend)
    return answer_memory(store, q.user_id, q.question, asked_at=q.asked_at, embedder=embedder,
                         tz=dataset.timezone, backend=backend)


# ---------------------------------------------------------------- tables
def summary(results: pd.DataFrame) -> dict:
    """The JSON summary of a results table: per system totals, tokens and categories."""
    out = {}
    for system, rows in results.groupby("system", sort=False):
        by_category = {c: {"correct": int(g["correct"].sum()), "total": int(len(g))}
                       for c in CATEGORIES if len(g := rows[rows["category"] == c])}
        correct, total = int(rows["correct"].sum()), int(len(rows))
        out[system] = {"correct": correct, "total": total,
                       "accuracy": round(correct / total, 4) if total else 0.0,
                       "avg_input_tokens": round(float(rows["input_tokens"].mean()), 1),
                       "by_category": by_category}
    return out


def eval_command(dataset_dir: str, set_name: str | None, systems: list[str], backend: str,
                 *, progress: bool | None = None) -> dict:
    """What ``memlab eval`` prints as JSON: ``{"systems": {...}, "questions": [...]}``."""
    dataset = load_dataset(dataset_dir)
    run = evaluate(dataset, select(dataset, set_name), systems, backend=backend,
                   progress=progress)
    questions = [{k: row[k] for k in ("id", "system", "answer", "correct", "memory_ids",
                                      "input_tokens")} for row in run.results.to_dict("records")]
    return {"systems": summary(run.results), "questions": questions}


def accuracy_table(results: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per system and category (and ``overall``) with 95% Wilson intervals."""
    rows = []
    for system, sys_rows in results.groupby("system", sort=False):
        for category in [*CATEGORIES, "overall"]:
            g = sys_rows if category == "overall" else sys_rows[sys_rows["category"] == category]
            if g.empty:
                continue
            k, n = int(g["correct"].sum()), len(g)
            low, high = wilson_interval(k, n)
            rows.append({"system": system, "category": category, "correct": k, "total": n,
                         "accuracy": k / n, "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows, columns=["system", "category", "correct", "total", "accuracy",
                                       "ci_low", "ci_high"])


def lab_table(results: pd.DataFrame) -> pd.DataFrame:
    """The lab's table: one row per system, "k/n" per category, overall and avg input tokens."""
    table = accuracy_table(results)
    table["cell"] = table["correct"].astype(str) + "/" + table["total"].astype(str)
    wide = table.pivot(index="system", columns="category", values="cell")
    order = [c for c in [*CATEGORIES, "overall"] if c in wide.columns]
    wide = wide[order].reindex(list(dict.fromkeys(results["system"])))
    tokens = results.groupby("system", sort=False)["input_tokens"].mean().round(0).astype(int)
    wide["avg_input_tokens"] = tokens
    wide.columns.name = None
    return wide


def paired_differences(results: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """accuracy(a) − accuracy(b) per category and overall, with Newcombe's paired interval."""
    rows = []
    for category in [*CATEGORIES, "overall"]:
        g = results if category == "overall" else results[results["category"] == category]
        left = g[g["system"] == a].set_index("id")["correct"]
        right = g[g["system"] == b].set_index("id")["correct"].reindex(left.index)
        if left.empty or right.isna().any():
            continue
        x, y = list(left.astype(bool)), list(right.astype(bool))
        low, high = paired_difference_interval(x, y)
        rows.append({"category": category, "n": len(x), "difference": (sum(x) - sum(y)) / len(x),
                     "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows, columns=["category", "n", "difference", "ci_low", "ci_high"])


def format_table(result: dict) -> str:
    """`eval_command`'s result as a plain-text table (what ``--format table`` prints)."""
    systems = result["systems"]
    categories = [c for c in CATEGORIES if any(c in s["by_category"] for s in systems.values())]
    header = ["system", *categories, "overall", "accuracy", "avg_input_tokens"]
    lines = []
    for name, s in systems.items():
        cells = [f"{s['by_category'][c]['correct']}/{s['by_category'][c]['total']}"
                 if c in s["by_category"] else "-" for c in categories]
        lines.append([name, *cells, f"{s['correct']}/{s['total']}", f"{s['accuracy']:.0%}",
                      f"{s['avg_input_tokens']:.0f}"])
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]
    render = [" | ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True))
              for row in [header, *lines]]
    return "\n".join([render[0], "-+-".join("-" * w for w in widths), *render[1:]])
