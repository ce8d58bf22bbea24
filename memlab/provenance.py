"""Provenance: from a memory id back to the exact sentence it was drawn from.

Every memory carries its source session and turn and the sentence it came from, so a spot
check takes one call: `provenance` lists the memory's session turn by turn with the source
turns marked, and `provenance_html` shows it with the sentence highlighted. `spot_check`
draws a few memories at random (seeded) and checks each sentence is really in its turn.
"""

from __future__ import annotations

import html
import random

import pandas as pd

from memlab.store import Store, require_user
from memlab.types import Memory, Turn

_MARK = '<mark style="background:#ffe066">{}</mark>'


def _body(turn: Turn) -> str:
    return turn.text + (f"\n[{turn.attachment.kind}] {turn.attachment.text}" if turn.attachment else "")


def provenance(store: Store, user_id: str, memory_id: str) -> pd.DataFrame:
    """The memory's source session(s), one row per turn: which turns it came from and where.

    Columns: ``ref``, ``role``, ``text``, ``source`` (this turn is one of its sources),
    ``evidence`` (the source sentence, when this turn holds it), ``tombstoned``.
    """
    require_user(user_id)
    memory = store.get_memory(user_id, memory_id)
    refs = set(store.sources(user_id, memory_id)) | {_ref(memory)}
    sessions = sorted({ref.split(":", 1)[0] for ref in refs}, key=_session_order(store, user_id))
    tombstoned = store.tombstoned_refs(user_id)
    rows = []
    for session_id in sessions:
        for turn in store.turns(user_id, session_id):
            holds = bool(memory.evidence) and memory.evidence in _body(turn) and turn.ref in refs
            rows.append({"ref": turn.ref, "role": turn.role, "text": turn.text,
                         "source": turn.ref in refs, "evidence": memory.evidence if holds else "",
                         "tombstoned": turn.ref in tombstoned})
    return pd.DataFrame(rows, columns=["ref", "role", "text", "source", "evidence", "tombstoned"])


def _ref(memory: Memory) -> str:
    return f"{memory.source_session_id}:{memory.source_turn}"


def _session_order(store: Store, user_id: str):
    order = {s: i for i, s in enumerate(store.session_ids(user_id))}
    return lambda session_id: order.get(session_id, len(order))


def highlight(text: str, sentence: str) -> str:
    """`text` HTML-escaped, with the first occurrence of `sentence` wrapped in <mark>."""
    if not sentence or sentence not in text:
        return html.escape(text)
    before, _, after = text.partition(sentence)
    return html.escape(before) + _MARK.format(html.escape(sentence)) + html.escape(after)


def provenance_html(store: Store, user_id: str, memory_id: str) -> str:
    """The memory and its session as HTML, the source sentence highlighted in its turn."""
    memory = store.get_memory(user_id, memory_id)
    head = (f"<p><b>{html.escape(memory.id)}</b> [{html.escape(memory.status)}] "
            f"{html.escape(memory.content) or '<i>(內容已刪除)</i>'} — 出處 {_ref(memory)},"
            f"{'可信' if memory.source_trusted else '不可信'},信心 {memory.confidence}</p>")
    turns = {t.ref: t for t in store.turns(user_id)}
    rows = []
    for _, row in provenance(store, user_id, memory_id).iterrows():
        body = _body(turns[row["ref"]])
        text = highlight(body, row["evidence"]) if row["evidence"] else html.escape(body)
        style = "font-weight:bold;" if row["source"] else "color:#666;"
        if row["tombstoned"]:
            style += "text-decoration:line-through;"
        text = text.replace("\n", "<br>")
        top = 'style="vertical-align:top;white-space:nowrap"'
        rows.append(f'<tr style="{style}"><td {top}>{row["ref"]}</td><td {top}>{row["role"]}</td>'
                    f"<td>{text}</td></tr>")
    return head + "<table>" + "".join(rows) + "</table>"


def spot_check(store: Store, user_id: str, n: int = 5, seed: int = 0,
               statuses: tuple[str, ...] = ("active", "superseded")) -> pd.DataFrame:
    """`n` memories drawn at random (seeded): content, source, sentence, and whether that
    sentence really is in the source turn (``found``)."""
    pool = store.memories(user_id, status=list(statuses))
    chosen = sorted(random.Random(seed).sample(pool, min(n, len(pool))),
                    key=lambda m: int(m.id[1:]) if m.id[1:].isdigit() else 0)
    rows = []
    for memory in chosen:
        turns = {t.ref: t for t in store.turns(user_id, memory.source_session_id)}
        turn = turns.get(_ref(memory))
        found = turn is not None and bool(memory.evidence) and memory.evidence in _body(turn)
        rows.append({"id": memory.id, "content": memory.content, "source": _ref(memory),
                     "sentence": memory.evidence, "found": found})
    return pd.DataFrame(rows, columns=["id", "content", "source", "sentence", "found"])
