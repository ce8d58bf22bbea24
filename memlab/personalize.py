"""Personalization: the same tasks done with and without the user's memories, compared by a
pairwise judge that sees each pair twice with the positions swapped.

Offline there is no model that writes, so each task in ``data/personalization/tasks.yaml``
carries neutral content (points, options, a time) and `respond` only decides how to present
it from the preferences it finds in memory: bullets and their number, terms kept in English,
the time zone, which options to avoid or prefer. That measures whether preferences are found
and used, not prose.

The offline pairwise judge is a rubric check (does the answer follow the preference: bullets,
at most N points, the right time, nothing the user avoids …). When the rubric cannot separate
two answers it falls back to answer A — the same position bias LLM judges show — and judging
again with A and B swapped turns such verdicts into ties. Preferences change the format, not
the facts: a rubric that only reads format cannot tell a wrong fact (see the human labels).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

import pandas as pd
import yaml

from memlab.answer import Answer
from memlab.datasets import dataset_path
from memlab.judge import keyword_in, normalize
from memlab.layers import injected_lines
from memlab.places import zone_of
from memlab.prompts import build_task_messages
from memlab.retrieve import retrieve
from memlab.stats import wilson_interval, win_rate_interval
from memlab.store import Store
from memlab.tokens import count_messages
from memlab.types import Memory

Winner = Literal["A", "B", "tie"]
_BULLET = re.compile(r"^\s*(?:[-*•・●]|\d+[.)、])\s*\S", re.M)
_BULLET_VALUES = ("條列", "重點", "編號", "bullet", "list")


@dataclass(frozen=True)
class Task:
    id: str
    user_id: str
    task: str
    prefers: list[str]
    rubric: dict
    render: dict


def load_tasks(folder: str | Path = "personalization") -> list[Task]:
    """The tasks of ``<folder>/tasks.yaml``."""
    raw = yaml.safe_load((dataset_path(folder) / "tasks.yaml").read_text(encoding="utf-8"))
    return [Task(t["id"], t["user"], t["task"], list(t.get("prefers", [])), dict(t["rubric"]),
                 dict(t["render"])) for t in raw]


def load_labels(folder: str | Path = "personalization") -> list[dict]:
    """Human pairwise labels of ``<folder>/human_labels.yaml`` (task, answer_a/b, label)."""
    return yaml.safe_load((dataset_path(folder) / "human_labels.yaml").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Preferences:
    """What the responder took from memory, with the ids it came from."""

    bullets: bool = False
    max_points: int | None = None
    zone: str | None = None
    place: str | None = None
    english_terms: bool = False
    avoid: frozenset[str] = frozenset()
    like: frozenset[str] = frozenset()
    memory_ids: tuple[str, ...] = field(default=())


def preferences(memories: list[Memory]) -> Preferences:
    """Read format, time zone, things to avoid and to prefer from memories' slots."""
    bullets, limit, zone, place, avoid, like, ids = False, None, None, None, set(), set(), []
    english = False
    for m in memories:
        base, value = (m.key or "").split(":", 1)[0], (m.value or "").strip()
        if base == "answer_format" and any(v in value.lower() for v in _BULLET_VALUES):
            bullets = True
            found = re.search(r"(?:最多|不超過|at most|max)\s*(\d+)", normalize(m.content))
            limit = int(found.group(1)) if found else limit
        elif base == "terminology" and value.lower() in ("英文", "原文", "english"):
            english = True
        elif base == "timezone" and zone_of(value):
            zone, place = zone_of(value), value
        elif base in ("base_city", "home_city") and zone_of(value):
            zone, place = zone or zone_of(value), place or value
            like.add(value)
        elif base == "diet" and ("素" in value or "vegetarian" in value.lower()) \
                and "不" not in value:
            avoid.add("meat")
        elif base in ("allergy", "food_avoid") and value:
            avoid.add(value)
        elif base in ("tool", "commute") and value:
            like.add(value)
        else:
            continue
        ids.append(m.id)
    return Preferences(bullets, limit, zone, place, english, frozenset(avoid), frozenset(like),
                       tuple(ids))


def _fits(tag: str, words: frozenset[str]) -> bool:
    tag = tag.lower()
    return any(tag == w.lower() or tag in w.lower() or w.lower() in tag for w in words)


def _zone_label(zone: str, prefs: Preferences | None) -> str:
    if prefs and prefs.place and zone_of(prefs.place) == zone:
        return prefs.place
    return {"Asia/Taipei": "台北", "Asia/Tokyo": "東京"}.get(zone, zone)


def respond(task: Task, prefs: Preferences | None, default_zone: str = "Asia/Taipei") -> str:
    """The offline response: the task's content presented as the preferences say."""
    r, p = task.render, prefs or Preferences()
    if r["kind"] == "points":
        lines = r["points"][:p.max_points] if p.bullets and p.max_points else list(r["points"])
        for term, original in (r.get("terms", {}) if p.english_terms else {}).items():
            lines = [re.sub(r"\s*" + re.escape(term) + r"\s*", f" {original} ", line).strip()
                     for line in lines]
    elif r["kind"] == "choice":
        options = [o for o in r["options"] if not any(_fits(t, p.avoid) for t in o["tags"])]
        liked = [o for o in options if any(_fits(t, p.like) for t in o["tags"])]
        chosen = (liked or options or r["options"])[0]
        lines = [f"推薦:{chosen['text']}"]
    else:
        zone = p.zone or default_zone
        if r["kind"] == "time":
            at = datetime.fromisoformat(r["at"]).replace(tzinfo=ZoneInfo(r["zone"]))
            shown = at.astimezone(ZoneInfo(zone))
            lines = [f"{_zone_label(zone, p)}時間 {shown:%H:%M}" + (
                f"(也就是{_zone_label(r['zone'], p)}時間 {at:%H:%M})" if zone != r["zone"] else "")]
        else:  # reminder: the user's wall-clock time, read in the zone remembered for them
            at = datetime.fromisoformat(r["at"]).replace(tzinfo=ZoneInfo(zone))
            fires = at - timedelta(minutes=int(r["minutes"]))
            lines = [f"好,{_zone_label(zone, p)}時間 {fires:%H:%M} 提醒你"]
        if prefs is None or prefs.zone is None:
            lines.append("(不知道你在哪個時區,先用預設時區)")
    if p.bullets:
        return "\n".join(f"・{line}" for line in lines)
    return ";".join(lines) + "。"


def _memories(store: Store, user_id: str, task: Task, top_k: int) -> tuple[list[str], list[Memory]]:
    lines = injected_lines(store, user_id)
    hits = [h.memory for h in retrieve(store, user_id, task.task, top_k=top_k)]
    injected_ids = {i for ids in store.injected(user_id)["memory_ids"] for i in ids}
    known = {m.id: m for m in store.memories(user_id, status="active")}
    injected = [known[i] for i in sorted(injected_ids) if i in known]
    return lines, list({m.id: m for m in injected + hits}.values())


def with_memory(store: Store, task: Task, *, backend: str = "offline", top_k: int = 5) -> Answer:
    """Do the task with the user's injected lines and retrieved memories (user-scoped)."""
    lines, memories = _memories(store, task.user_id, task, top_k)
    retrieved = [m for m in memories if not any(f"[{m.id}]" in line for line in lines)]
    messages = build_task_messages(task.task, lines, retrieved)
    if backend == "openai":
        from memlab.systems import _llm_answer

        text, ids = _llm_answer(messages, {m.id for m in memories})
    else:
        prefs = preferences(memories)
        text, ids = respond(task, prefs), list(prefs.memory_ids)
    return Answer(text, ids, messages, count_messages(messages))


def without_memory(task: Task, *, backend: str = "offline") -> Answer:
    """Do the task knowing nothing about the user."""
    messages = build_task_messages(task.task, [], [])
    if backend == "openai":
        from memlab.systems import _llm_answer

        text, _ = _llm_answer(messages, set())
    else:
        text = respond(task, None)
    return Answer(text, [], messages, count_messages(messages))


# ---------------------------------------------------------------- judging
def rubric_check(answer: str, rubric: dict) -> list[tuple[str, bool]]:
    """(check, passed) for each item of a task's rubric."""
    bullets = len(_BULLET.findall(answer))
    checks = []
    if rubric.get("bullets"):
        checks.append(("bullets", bullets >= 1 and bullets == len(
            [ln for ln in answer.splitlines() if ln.strip()])))
    if rubric.get("max_points"):
        checks.append((f"at most {rubric['max_points']} points",
                       1 <= bullets <= int(rubric["max_points"])))
    for word in rubric.get("contains", []):
        checks.append((f"says {word}", keyword_in(str(word), answer)))
    for word in rubric.get("avoids", []):
        checks.append((f"avoids {word}", not keyword_in(str(word), answer)))
    return checks


def pairwise_offline(a: str, b: str, rubric: dict) -> Winner:
    """One rubric verdict: the answer passing more checks wins; a draw goes to A
    (a position bias, made explicit; `swapped` exposes it as a tie)."""
    score_a = sum(ok for _, ok in rubric_check(a, rubric))
    score_b = sum(ok for _, ok in rubric_check(b, rubric))
    return "A" if score_a >= score_b else "B"


def swapped(judge_once: Callable[[str, str], Winner], a: str, b: str) -> Winner:
    """Judge (a, b) and (b, a); keep the verdict only if both orders agree, else 'tie'."""
    first = judge_once(a, b)
    second = {"A": "B", "B": "A", "tie": "tie"}[judge_once(b, a)]
    return first if first == second else "tie"


def judge_pair(task: Task, a: str, b: str, backend: str = "offline") -> Winner:
    """Which of two answers follows the user's preferences better, positions swapped."""
    if backend == "openai":
        from memlab.llm_backend import pairwise_swapped

        return pairwise_swapped(task.task, a, b, task.prefers)
    return swapped(lambda x, y: pairwise_offline(x, y, task.rubric), a, b)


def compare(store: Store, tasks: list[Task], *, backend: str = "offline") -> pd.DataFrame:
    """Each task done with memory (A) and without (B), and the swapped pairwise verdict."""
    rows = []
    for task in tasks:
        mine, plain = with_memory(store, task, backend=backend), without_memory(task,
                                                                              backend=backend)
        rows.append({"task": task.id, "with_memory": mine.text, "without_memory": plain.text,
                     "memory_ids": mine.memory_ids,
                     "verdict": judge_pair(task, mine.text, plain.text, backend)})
    return pd.DataFrame(rows, columns=["task", "with_memory", "without_memory", "memory_ids",
                                       "verdict"])


def win_rate(comparison: pd.DataFrame) -> dict:
    """Wins / ties / losses of "with memory", the win rate (ties count half) and its interval."""
    wins = int((comparison["verdict"] == "A").sum())
    ties = int((comparison["verdict"] == "tie").sum())
    losses = int((comparison["verdict"] == "B").sum())
    total = wins + ties + losses
    low, high = win_rate_interval(wins, ties, losses)
    return {"wins": wins, "ties": ties, "losses": losses,
            "win_rate": (wins + ties / 2) / total if total else 0.0, "ci_low": low, "ci_high": high}


def agreement(labels: list[dict], tasks: list[Task], backend: str = "offline") -> pd.DataFrame:
    """The pairwise judge's verdict next to each human label."""
    by_id = {t.id: t for t in tasks}
    rows = [{"id": lab["id"], "task": lab["task"], "human": lab["label"],
             "judge": (v := judge_pair(by_id[lab["task"]], lab["answer_a"], lab["answer_b"],
                                       backend)),
             "agree": v == lab["label"], "note": lab.get("note", "")} for lab in labels]
    return pd.DataFrame(rows, columns=["id", "task", "human", "judge", "agree", "note"])


def agreement_rate(table: pd.DataFrame) -> dict:
    """k agreeing of n human labels, with a Wilson interval."""
    k, n = int(table["agree"].sum()), len(table)
    low, high = wilson_interval(k, n)
    return {"agree": k, "total": n, "rate": k / n if n else 0.0, "ci_low": low, "ci_high": high}
