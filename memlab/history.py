"""Supersede chains as history: what a slot held, when, and what replaced it.

Consolidation never overwrites: a newer value supersedes the old row, which keeps its
content, gets ``valid_to`` and links to its successor with ``superseded_by``. So questions
about the past stay answerable:

    >>> as_of(store, "u_101", "employer", "2026-03-15").value      # doctest: +SKIP
    '小島選物'
    >>> previous(store, "u_101", "employer").value                   # doctest: +SKIP
    '小島選物'

Deleted memories are not history: they are skipped (their content is gone anyway).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pandas as pd

from memlab.store import Store, require_user
from memlab.types import Memory

_ZH_DAY = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日號]")


def parse_day(when: date | datetime | str, year: int | None = None) -> date:
    """A day from a date, an ISO string ("2026-03-15") or "3 月 15 日" (needs `year`)."""
    if isinstance(when, datetime):
        return when.date()
    if isinstance(when, date):
        return when
    match = _ZH_DAY.search(when)
    if match:
        if not (match.group(1) or year):
            raise ValueError(f"{when!r} has no year: pass year=2026 (or an ISO date)")
        return date(int(match.group(1) or year), int(match.group(2)), int(match.group(3)))
    try:
        return date.fromisoformat(when.strip())
    except ValueError:
        raise ValueError(f"can't read a day from {when!r}; use 2026-03-15 or 3 月 15 日") from None


def _on_key(memory: Memory, key: str) -> bool:
    return bool(memory.key) and (memory.key == key or memory.key.startswith(key + ":"))


def versions(store: Store, user_id: str, key: str) -> list[Memory]:
    """Every trusted, not-deleted memory on slot `key` (``employer`` or ``device:手機``), oldest first."""
    require_user(user_id)
    rows = store.memories(user_id, status=["active", "superseded"])
    return sorted((m for m in rows if _on_key(m, key) and m.source_trusted),
                  key=lambda m: (m.valid_from, int(m.id[1:]) if m.id[1:].isdigit() else 0))


def chain(store: Store, user_id: str, memory_id: str) -> list[Memory]:
    """The supersede chain through one memory, oldest first (follows links both ways)."""
    everything = {m.id: m for m in store.memories(user_id, status="all")}
    if memory_id not in everything:
        raise KeyError(f"no memory {memory_id!r} for user {user_id!r}")
    start = everything[memory_id]
    earlier = {m.superseded_by: m for m in everything.values() if m.superseded_by}
    while start.id in earlier:  # walk back to the first version
        start = earlier[start.id]
    out, seen = [start], {start.id}
    while out[-1].superseded_by and out[-1].superseded_by not in seen:
        out.append(everything[out[-1].superseded_by])
        seen.add(out[-1].id)
    return out


def history(store: Store, user_id: str, key: str) -> pd.DataFrame:
    """What slot `key` held over time: one row per version with its validity and source."""
    rows = [{"id": m.id, "value": m.value, "content": m.content, "status": m.status,
             "valid_from": m.valid_from.date().isoformat(),
             "valid_to": m.valid_to.date().isoformat() if m.valid_to else "",
             "source": f"{m.source_session_id}:{m.source_turn}",
             "superseded_by": m.superseded_by or ""}
            for m in versions(store, user_id, key)]
    return pd.DataFrame(rows, columns=["id", "value", "content", "status", "valid_from",
                                       "valid_to", "source", "superseded_by"])


def as_of(store: Store, user_id: str, key: str, when: date | datetime | str,
          tz: str = "Asia/Taipei", year: int | None = None) -> Memory | None:
    """The memory slot `key` held at the end of day `when` (in `tz`), or None if none yet."""
    day = parse_day(when, year)
    moment = datetime.combine(day, time(23, 59, 59), tzinfo=ZoneInfo(tz))
    held = [m for m in versions(store, user_id, key)
            if m.valid_from <= moment and (m.valid_to is None or m.valid_to > moment)]
    return held[-1] if held else None


def previous(store: Store, user_id: str, key: str) -> Memory | None:
    """The value slot `key` held before its current one ("where did I work before?")."""
    earlier = [m for m in versions(store, user_id, key) if m.status == "superseded"]
    return earlier[-1] if earlier else None
