"""Exercises of 02_extract: plan or fact (clause-scoped), confidence, precision/recall."""

from __future__ import annotations

from memlab.check import register
from memlab.markers import is_plan


def confidence_of(source_trusted: bool, hedged: bool) -> str:
    """Three levels: untrusted text → "low"; the user's hedged words → "medium"; else "high"."""
    if not source_trusted:
        return "low"
    return "medium" if hedged else "high"


def precision_recall(hits: int, extracted: int, planted: int) -> tuple[float, float]:
    """(precision, recall) of extraction: hits over what was extracted, hits over what was
    planted; 0.0 when a denominator is 0."""
    precision = hits / extracted if extracted else 0.0
    recall = hits / planted if planted else 0.0
    return round(precision, 3), round(recall, 3)


register("02.1", is_plan,
         cases=[("下個月要搬去高雄",), ("我已經搬到高雄了",), ("我弟弟叫阿豪",),
                ("我每週一都會整理下週的待辦",), ("明年打算換一台筆電",),
                ("I'm moving to Osaka next month",), ("I moved to Osaka last year",)],
         hint="看同一個子句:有未來的詞(下個月、明年、打算、next month)才是計畫;"
              "「已經/現在」代表已經發生;「每週…都會」是習慣,後面的「下週」只是它的受詞。")
register("02.2", confidence_of,
         cases=[(True, False), (True, True), (False, False), (False, True)],
         hint="先看來源:不可信一律 low;可信的再看有沒有「好像、可能、應該」這類不確定的詞。")
register("02.3", precision_recall,
         cases=[(8, 10, 16), (0, 0, 5), (5, 5, 5), (3, 4, 0)],
         hint="precision = 命中 ÷ 擷取出的筆數;recall = 命中 ÷ 答案表的筆數;分母是 0 時回傳 0.0。")
