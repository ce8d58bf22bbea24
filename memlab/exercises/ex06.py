"""Exercises of 06_evaluate: plan questions from an answer key, a Wilson interval, ship or not."""

from __future__ import annotations

from math import sqrt

from memlab.check import register

# Which planted items each category's questions are written from, and which of their turns
# the question's evidence lists.
_FROM_KEY = {
    "information_extraction": (("fact", "preference"), "evidence"),
    "multi_session": (("multi_session",), "evidence"),
    "knowledge_update": (("change",), "both"),
    "temporal_reasoning": (("change",), "replaced_by"),
    "abstention": (("deletion",), "evidence"),
}


def plan_questions(answer_key: list[dict], category: str) -> list[tuple[str, tuple[str, ...]]]:
    """(plant id, evidence refs) for each question of `category` the answer key calls for.

    information_extraction: one per fact or preference, evidence = its evidence;
    multi_session: one per multi_session item, evidence = its evidence;
    knowledge_update: one per change, evidence = old statement(s) then the new one(s);
    temporal_reasoning: one per change ("when did I say it changed?"), evidence = the new one(s);
    abstention: one per deletion target (after the deletion the answer must be 不知道).
    Sorted by plant id.
    """
    kinds, refs = _FROM_KEY[category]
    out = []
    for plant in answer_key:
        if plant["kind"] not in kinds:
            continue
        old, new = list(plant.get("evidence", [])), list(plant.get("replaced_by", []))
        evidence = old + new if refs == "both" else new if refs == "replaced_by" else old
        out.append((plant["id"], tuple(evidence)))
    return sorted(out)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval for k correct out of n (n > 0), clipped to [0, 1]."""
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


DANGEROUS = ("knowledge_update", "abstention")


def ship_decision(before: dict[str, float], after: dict[str, float],
                  max_drop: float = 0.10) -> dict:
    """Ship only if overall accuracy did not fall and no dangerous category (knowledge
    update, abstention) fell by more than `max_drop`; `check` lists every category that fell
    by more than `max_drop`, sorted."""
    fell = sorted(c for c in before if c != "overall" and c in after
                  and before[c] - after[c] > max_drop + 1e-9)
    ship = after.get("overall", 0.0) >= before.get("overall", 0.0) and not any(
        c in DANGEROUS for c in fell)
    return {"ship": ship, "check": fell}


_KEY = [
    {"id": "f1", "kind": "fact", "evidence": ["s1:2"]},
    {"id": "p1", "kind": "preference", "evidence": ["s1:4"]},
    {"id": "c1", "kind": "change", "evidence": ["s1:3"], "replaced_by": ["s6:1"]},
    {"id": "c0", "kind": "change", "evidence": ["s2:1", "s2:3"], "replaced_by": ["s5:1"]},
    {"id": "m1", "kind": "multi_session", "evidence": ["s2:1", "s7:5"]},
    {"id": "t1", "kind": "trivial", "evidence": ["s1:5"]},
    {"id": "x1", "kind": "poison", "evidence": ["s7:1"]},
    {"id": "d1", "kind": "deletion", "evidence": ["s3:3"]},
]
register(
    "06.1", plan_questions,
    cases=[(_KEY, c) for c in _FROM_KEY] + [([], "knowledge_update")],
    hint="先依類別挑出對應 kind 的項目;knowledge_update 的出處是舊說法加新說法"
         "(evidence + replaced_by),temporal_reasoning 只要新說法;最後依 id 排序。",
)


def _close(got, expected) -> bool:
    return (isinstance(got, tuple | list) and len(got) == 2
            and all(abs(float(g) - e) < 1e-6 for g, e in zip(got, expected, strict=True)))


register(
    "06.2", wilson,
    cases=[(15, 20), (19, 20), (0, 10), (10, 10), (2, 5), (8, 30)],
    hint="p = k/n;分母 1 + z²/n;中心 (p + z²/2n)/分母;半寬 z·√(p(1−p)/n + z²/4n²)/分母。",
    same=_close,
)
register(
    "06.3", ship_decision,
    cases=[({"overall": 0.70, "knowledge_update": 0.80, "abstention": 1.0},
            {"overall": 0.85, "knowledge_update": 0.40, "abstention": 1.0}),
           ({"overall": 0.70, "knowledge_update": 0.80, "multi_session": 0.5},
            {"overall": 0.85, "knowledge_update": 0.80, "multi_session": 0.9}),
           ({"overall": 0.80, "abstention": 1.0, "temporal_reasoning": 0.6},
            {"overall": 0.82, "abstention": 0.5, "temporal_reasoning": 0.3}),
           ({"overall": 0.80, "information_extraction": 0.9},
            {"overall": 0.75, "information_extraction": 0.9}),
           ({"overall": 0.60, "multi_session": 0.6, "knowledge_update": 0.6},
            {"overall": 0.70, "multi_session": 0.4, "knowledge_update": 0.55})],
    hint="先找出掉超過 max_drop 的類別(排序後放進 check);只要總分沒退步、"
         "而且 check 裡沒有 knowledge_update 或 abstention,才上線。",
)
