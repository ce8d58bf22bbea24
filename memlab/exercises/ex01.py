"""Exercises of 01_classify: type → layer, the chapter's 先試一下, invalidate vs delete, cost."""

from __future__ import annotations

from memlab.check import register
from memlab.metrics import daily_injected_tokens


def layer_of(memory_type: str, needed_every_session: bool) -> str:
    """Which layer a memory of this CoALA type goes to (the chapter's layer table)."""
    if memory_type in ("working", "none"):
        return "transcripts"  # this turn only: it stays in the conversation record
    if memory_type == "procedural" or needed_every_session:
        return "injected"  # how to work, or needed every time: loaded into every prompt
    return "notes"  # looked up when relevant


def try_it_first() -> dict[str, tuple[str, str]]:
    """The chapter's three 先試一下 items: (type, layer) of each."""
    return {"不吃香菜": ("semantic", "notes"),
            "上週二討論退款流程": ("episodic", "notes"),
            "整理會議筆記一律先列待辦": ("procedural", "injected")}


def forget_action(user_asked_to_delete: bool, statement_changed: bool) -> str:
    """What happens to an old memory: "delete" only on request, "invalidate" when the user's
    statement changed (history is kept), else "keep"."""
    if user_asked_to_delete:
        return "delete"
    return "invalidate" if statement_changed else "keep"


register("01.1", layer_of,
         cases=[("working", False), ("none", False), ("episodic", False), ("semantic", False),
                ("semantic", True), ("procedural", True), ("procedural", False),
                ("episodic", True)],
         hint="working 與不值得記的留在 transcripts;procedural 或每次都用得到的放 injected;"
              "其餘放 notes,需要時再查。")
register("01.2", try_it_first, cases=[()],
         hint="香菜是偏好(semantic),只在點餐時才需要;討論退款流程是一件發生過的事;"
              "整理筆記的做法每次都要照做。")
register("01.3", forget_action,
         cases=[(False, True), (True, False), (True, True), (False, False)],
         hint="說法改變 ≠ 要求刪除:改變要保留歷史,刪除只在使用者要求時做。")
register("01.4", daily_injected_tokens,
         cases=[(500, 40), (120, 40), (1000, 25), (0, 40)],
         hint="注入層每一次提問都會被送出去:每次的 token 數 × 每天提問次數。")
