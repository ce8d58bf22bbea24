"""Exercises of 00_overview."""

from memlab.check import register
from memlab.reminders import reminder_time

register(
    "00.1", reminder_time,
    cases=[("2026-04-21 10:00", "Asia/Tokyo", 15, "Asia/Tokyo"),
           ("2026-04-21 10:00", "Asia/Taipei", 15, "Asia/Tokyo"),
           ("2026-04-21 09:00", "Asia/Tokyo", 30, "Asia/Taipei"),
           ("2026-11-02 08:00", "America/New_York", 10, "Asia/Taipei")],
    hint="先用 datetime.fromisoformat 讀時間,再用 replace(tzinfo=ZoneInfo(記得的時區)) 標上時區,"
         "減掉分鐘數後用 astimezone 換成要顯示的時區。",
)
