"""Reminders in the user's time zone: why a stale location memory makes you 45 minutes late."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo


def reminder_time(meeting: str, remembered_zone: str, minutes_before: int, show_in: str) -> str:
    """When the reminder fires, as HH:MM in `show_in`.

    The assistant reads the wall-clock `meeting` time ("2026-04-21 10:00") in the zone it
    *remembers* for the user, subtracts `minutes_before`, and shows the result in `show_in`.

    >>> reminder_time("2026-04-21 10:00", "Asia/Tokyo", 15, "Asia/Tokyo")
    '09:45'
    >>> reminder_time("2026-04-21 10:00", "Asia/Taipei", 15, "Asia/Tokyo")
    '10:45'
    """
    start = datetime.fromisoformat(meeting).replace(tzinfo=ZoneInfo(remembered_zone))
    fires = start - timedelta(minutes=minutes_before)
    return fires.astimezone(ZoneInfo(show_in)).strftime("%H:%M")
