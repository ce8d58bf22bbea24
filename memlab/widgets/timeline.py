"""Supersede chains drawn as a timeline: one row per slot, one bar per value it held.

`chains_frame` is the data (tested); `timeline_svg` draws it as plain SVG, so it renders in
JupyterLab, in an exported HTML page and in a test without a browser.
"""

from __future__ import annotations

import html
from datetime import datetime

import pandas as pd

from memlab import clock
from memlab.store import Store, require_user

COLOURS = {"active": "#34a853", "superseded": "#fbbc04", "deleted": "#9e9e9e",
           "quarantined": "#ea4335", "pending_confirmation": "#4285f4"}


def chains_frame(store: Store, user_id: str) -> pd.DataFrame:
    """Every version of every keyed memory, oldest first within its slot.

    Columns: key, id, value, status, valid_from, valid_to ('' while current), superseded_by.
    A deleted version keeps its place in the chain but shows no value.
    """
    require_user(user_id)
    rows = []
    for m in store.memories(user_id, status="all"):
        if not m.key or m.status in ("quarantined", "pending_confirmation"):
            continue
        rows.append({"key": m.key, "id": m.id, "value": m.value or "",
                     "status": m.status, "valid_from": m.valid_from, "valid_to": m.valid_to,
                     "superseded_by": m.superseded_by or ""})
    frame = pd.DataFrame(rows, columns=["key", "id", "value", "status", "valid_from", "valid_to",
                                        "superseded_by"])
    return frame.sort_values(["key", "valid_from", "id"], kind="stable").reset_index(drop=True)


def _x(at: datetime, start: datetime, end: datetime, left: int, width: int) -> float:
    span = max((end - start).total_seconds(), 1.0)
    return left + width * (at - start).total_seconds() / span


def timeline_svg(store: Store, user_id: str, now: datetime | None = None,
                 only_chains: bool = False) -> str:
    """The chains as an SVG timeline (bars coloured by status, arrows for supersede links).

    `only_chains` keeps only slots that changed at least once.
    """
    frame = chains_frame(store, user_id)
    if only_chains:
        changed = frame.groupby("key")["id"].transform("count") > 1
        frame = frame[changed]
    if frame.empty:
        return "<p><i>(還沒有帶 key 的記憶)</i></p>"
    now = now or clock.now()
    start = min(frame["valid_from"])
    end = max([now, *frame["valid_from"]])
    keys = list(dict.fromkeys(frame["key"]))
    left, width, row_h = 170, 560, 30
    height = row_h * len(keys) + 54
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" '
             f'height="{height}" font-family="sans-serif" font-size="12">']
    position: dict[str, tuple[float, float]] = {}
    for row_no, key in enumerate(keys):
        y = 10 + row_no * row_h
        parts.append(f'<text x="4" y="{y + 15}">{html.escape(key)}</text>')
        for _, r in frame[frame["key"] == key].iterrows():
            x0 = _x(r["valid_from"], start, end, left, width)
            until = r["valid_to"] if pd.notna(r["valid_to"]) else end
            x1 = max(_x(until, start, end, left, width), x0 + 4)
            label = r["value"] if r["status"] != "deleted" else "(已刪除)"
            parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0:.1f}" height="20" rx="3" '
                         f'fill="{COLOURS.get(r["status"], "#ccc")}" opacity="0.85">'
                         f'<title>{r["id"]} {html.escape(label)} [{r["status"]}]</title></rect>')
            parts.append(f'<text x="{x0 + 4:.1f}" y="{y + 14}">{r["id"]} '
                         f"{html.escape(label[:18])}</text>")
            position[r["id"]] = (x0, y)
    for _, r in frame[frame["superseded_by"] != ""].iterrows():
        if r["superseded_by"] in position:  # an arrowhead where the newer value took over
            x, y = position[r["superseded_by"]]
            parts.append(f'<path d="M{x - 5:.1f},{y - 6} L{x:.1f},{y - 1} L{x + 5:.1f},{y - 6} Z" '
                         f'fill="#333"><title>{r["id"]} → {r["superseded_by"]}</title></path>')
    axis_y = height - 26
    month = datetime(start.year, start.month, 1, tzinfo=start.tzinfo)
    while True:  # a faint line at the start of every month
        month = datetime(month.year + month.month // 12, month.month % 12 + 1, 1, tzinfo=start.tzinfo)
        if month >= end:
            break
        x = _x(month, start, end, left, width)
        parts.insert(1, f'<line x1="{x:.1f}" y1="6" x2="{x:.1f}" y2="{axis_y - 12}" stroke="#ddd"/>'
                        f'<text x="{x:.1f}" y="{axis_y}" text-anchor="middle" fill="#999">'
                        f"{month.month} 月</text>")
    for at, anchor in ((start, "start"), (end, "end")):
        parts.append(f'<text x="{_x(at, start, end, left, width):.1f}" y="{axis_y + 16}" '
                     f'text-anchor="{anchor}" fill="#555">{at.date().isoformat()}</text>')
    parts.append("</svg>")
    return "".join(parts)
