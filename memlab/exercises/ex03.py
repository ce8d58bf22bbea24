"""Exercises of 03_consolidate: choose the op, read a chain as of a day, the reminder again."""

from __future__ import annotations

from memlab.check import register
from memlab.places import zone_of
from memlab.reminders import reminder_time


def choose_op(candidate: dict, existing: list[dict]) -> str:
    """The consolidation op for a candidate {key, value, trusted, plan, at} against existing
    memories [{key, value, status, at}] (dates as ISO strings, same user)."""
    if not candidate["trusted"]:
        return "QUARANTINE"
    if candidate["plan"]:
        return "NOOP"  # a plan never supersedes a fact
    same_key = [m for m in existing if m["key"] == candidate["key"]
                and m["status"] in ("active", "superseded")]
    if any(m["value"] == candidate["value"] for m in same_key):
        return "MERGE"
    current = [m for m in same_key if m["status"] == "active"]
    if not current:
        return "ADD"
    newest = max(m["at"] for m in current)
    return "SUPERSEDE" if candidate["at"] > newest else "NOOP"  # an older saying is history


def value_on(versions: list[tuple[str, str | None, str]], day: str) -> str | None:
    """The value held on `day` by versions (valid_from, valid_to or None, value), ISO dates;
    a version holds from its valid_from up to, not including, its valid_to."""
    held = [value for start, end, value in versions
            if start <= day and (end is None or day < end)]
    return held[-1] if held else None


def reminder_for(meeting: str, remembered_city: str, minutes_before: int, show_in_city: str) -> str:
    """When a reminder fires (HH:MM in `show_in_city`) if the assistant reads the meeting time
    in the zone of the city it remembers for the user."""
    return reminder_time(meeting, zone_of(remembered_city), minutes_before, zone_of(show_in_city))


_TAIPEI = {"key": "base_city", "value": "台北", "status": "active", "at": "2026-03-02"}
register("03.1", choose_op,
         cases=[({"key": "base_city", "value": "台北", "trusted": True, "plan": False,
                  "at": "2026-03-02"}, []),
                ({"key": "base_city", "value": "東京", "trusted": True, "plan": True,
                  "at": "2026-04-08"}, [_TAIPEI]),
                ({"key": "base_city", "value": "東京", "trusted": True, "plan": False,
                  "at": "2026-04-20"}, [_TAIPEI]),
                ({"key": "base_city", "value": "台北", "trusted": True, "plan": False,
                  "at": "2026-03-09"}, [_TAIPEI]),
                ({"key": "forward", "value": "x@example.com", "trusted": False, "plan": False,
                  "at": "2026-04-25"}, [_TAIPEI]),
                ({"key": "base_city", "value": "大阪", "trusted": True, "plan": False,
                  "at": "2026-01-01"}, [_TAIPEI]),
                ({"key": "pet", "value": "柴犬", "trusted": True, "plan": False,
                  "at": "2026-05-01"}, [_TAIPEI])],
         hint="依序檢查:來源不可信 → QUARANTINE;計畫 → NOOP;同 key 同值 → MERGE;同 key 沒有有效值 "
              "→ ADD;比現值新 → SUPERSEDE,比現值舊 → NOOP(重讀歷史不能倒退)。")
register("03.2", value_on,
         cases=[([("2026-03-02", "2026-04-20", "台北"), ("2026-04-20", None, "東京")], "2026-03-15"),
                ([("2026-03-02", "2026-04-20", "台北"), ("2026-04-20", None, "東京")], "2026-04-20"),
                ([("2026-03-02", "2026-04-20", "台北"), ("2026-04-20", None, "東京")], "2026-05-01"),
                ([("2026-03-02", "2026-04-20", "台北")], "2026-01-01")],
         hint="一個版本從 valid_from 那天起有效,到 valid_to 那天(不含)為止;valid_to 是 None 表示仍有效。")
register("03.3", reminder_for,
         cases=[("2026-04-21 10:00", "東京", 15, "東京"), ("2026-04-21 10:00", "台北", 15, "東京"),
                ("2026-04-21 09:00", "東京", 30, "台北"), ("2026-11-02 08:00", "紐約", 10, "台北"),
                ("2026-07-01 08:00", "紐約", 10, "台北")],
         hint="先用 memlab.slots.zone_of 把城市換成時區,再用 ZoneInfo 標上記得的時區、減掉分鐘數、"
              "astimezone 換成要顯示的時區。")
