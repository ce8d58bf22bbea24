"""Exercises of 04_retrieve: filter-then-rank over plain rows, and mean reciprocal rank."""

from __future__ import annotations

from memlab.check import register
from memlab.readpath import filter_then_rank, mean_reciprocal_rank

_ROWS = [("u_017", "m1", 0.82), ("u_101", "m35", 0.91), ("u_101", "m31", 0.88),
         ("u_017", "m3", 0.86), ("u_042", "m7", 0.80), ("u_101", "m27", 0.87),
         ("u_017", "m4", 0.81), ("u_101", "m16", 0.85), ("u_042", "m8", 0.79)]

register(
    "04.1", filter_then_rank,
    cases=[(_ROWS, "u_017", 2), (_ROWS, "u_042", 5), (_ROWS, "u_017", 5), (_ROWS, "u_999", 3),
           ([("a", "m2", 0.5), ("a", "m10", 0.5), ("b", "m1", 0.9)], "a", 1)],
    hint="先只留下 user_id 相同的列,再依分數由高到低排(同分時 memory_id 小的在前),最後取前 k 個 ID。"
         "順序反過來(先取全體前 k 再過濾)就會漏掉自己的記憶。",
)


def _close(got, expected) -> bool:
    try:
        return abs(float(got) - float(expected)) < 1e-9
    except (TypeError, ValueError):
        return False


register(
    "04.2", mean_reciprocal_rank,
    cases=[([1, 2, 4],), ([1, 1, 1],), ([None, 2],), ([None, None],), ([],), ([3],)],
    hint="每一題取 1 / 名次,沒找到(None)算 0;把所有題加起來除以題數;沒有題目時回傳 0.0。",
    same=_close,
)
