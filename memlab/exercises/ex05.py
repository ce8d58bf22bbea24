"""Exercises of 05_delete: cascade a deletion, decay a confidence."""

from __future__ import annotations

from memlab.check import register
from memlab.decay import decayed_confidence


def cascade_ids(memories: list[dict], seeds: list[str],
                derived: dict[str, list[str]]) -> list[str]:
    """Ids to delete for `seeds`: the seeds, every memory on their supersede chains (links
    both ways, followed transitively), and memories whose key is derived from a chosen
    memory's key (`derived`, e.g. {"base_city": ["timezone"]}), also transitively. Memories
    are {id, key, superseded_by}; the result is sorted by id number."""
    by_id = {m["id"]: m for m in memories}
    chosen = set(seeds)
    changed = True
    while changed:
        changed = False
        for m in memories:
            if m["id"] in chosen:
                continue
            linked = m["superseded_by"] in chosen or any(
                by_id[c]["superseded_by"] == m["id"] for c in chosen)
            implied = any(m["key"] in derived.get(by_id[c]["key"], []) for c in chosen)
            if linked or implied:
                chosen.add(m["id"])
                changed = True
    return sorted(chosen, key=lambda i: int(i[1:]))


_ROWS = [{"id": "m1", "key": "answer_format", "superseded_by": None},
         {"id": "m2", "key": "base_city", "superseded_by": "m4"},
         {"id": "m3", "key": None, "superseded_by": None},
         {"id": "m4", "key": "base_city", "superseded_by": "m7"},
         {"id": "m5", "key": "timezone", "superseded_by": None},
         {"id": "m6", "key": "diet", "superseded_by": None},
         {"id": "m7", "key": "base_city", "superseded_by": None}]
_DERIVED = {"base_city": ["timezone"]}
register("05.1", cascade_ids,
         cases=[(_ROWS, ["m7"], _DERIVED), (_ROWS, ["m2"], _DERIVED), (_ROWS, ["m4"], {}),
                (_ROWS, ["m6"], _DERIVED), (_ROWS, ["m5"], _DERIVED), (_ROWS, ["m1", "m3"], {})],
         hint="反覆擴張到不再變大:被選中的記憶取代的(superseded_by 指向它)、它取代的、"
              "以及 key 出現在 derived[被選中的 key] 裡的,都要加進來;最後依編號排序。")
register("05.2", decayed_confidence,
         cases=[("high", 10, 90), ("high", 90, 90), ("high", 200, 90), ("medium", 100, 90),
                ("low", 400, 90), ("high", 0, 30), ("medium", -5, 90), ("high", 365, 30)],
         hint="每滿一個半衰期降一級:high → medium → low → ask;用 // 算滿了幾個半衰期,"
              "負的天數當 0,最多降到 ask。")
