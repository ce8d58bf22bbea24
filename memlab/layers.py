"""The representation and injected layers, rebuilt from the notes layer, and a view of all.

Both are *derived*: they are rebuilt from the user's active, trusted memories after every
change, so a superseded, quarantined or deleted memory cannot linger in them. Every line
cites the memory ids it came from.

- pages: ``preferences`` (how to answer: format, language, time zone), ``profile`` (facts
  about the user), ``procedures`` (how to do recurring tasks), ``timeline`` (episodes);
- injected: the few lines loaded into *every* prompt, chosen for being needed every
  session, under a token budget (500 tokens × 40 questions a day is 20,000 tokens a day).
"""

from __future__ import annotations

import pandas as pd

from memlab.slots import slot_for_key, utc_offset, zone_of
from memlab.store import Store, require_user
from memlab.tokens import count_tokens
from memlab.types import Memory

DEFAULT_BUDGET = 120  # tokens; the chapter's advanced project allows up to 1,000
PAGES = ("preferences", "profile", "procedures", "timeline")


def _usable(memories: list[Memory]) -> list[Memory]:
    return [m for m in memories if m.status == "active" and m.source_trusted]


def _zone_line(m: Memory) -> tuple[str, list[str]] | None:
    zone = zone_of(m.value or "")
    if not zone:
        return None
    return f"時區:{zone}({utc_offset(zone, m.valid_from)}),依據 {m.value}", [m.id]


def build_pages(memories: list[Memory]) -> dict[str, list[tuple[str, list[str]]]]:
    """Page name → lines (text, cited memory ids) from the user's memories."""
    pages: dict[str, list[tuple[str, list[str]]]] = {p: [] for p in PAGES}
    for m in _usable(memories):
        slot = slot_for_key(m.key)
        if m.type == "episodic":
            pages["timeline"].append((f"{m.valid_from:%Y-%m-%d} {m.content} [{m.id}]", [m.id]))
        elif m.type == "procedural":
            pages["procedures"].append((f"{m.content} [{m.id}]", [m.id]))
        else:
            page = slot.page if slot else "profile"
            pages[page].append((f"{m.content} [{m.id}]", [m.id]))
            if slot is not None and "timezone" in slot.derived:
                zone = _zone_line(m)  # derived data: a place implies a time zone
                if zone:
                    pages["preferences"].append((f"{zone[0]} [{m.id}]", zone[1]))
    return pages


def build_injected(memories: list[Memory], budget: int = DEFAULT_BUDGET
                   ) -> list[tuple[str, list[str], int]]:
    """The injected lines (text, ids, tokens): always-needed memories, by priority, in budget."""
    chosen = []
    for m in _usable(memories):
        slot = slot_for_key(m.key)
        priority = slot.inject if slot and slot.inject else (5 if m.type == "procedural" else 0)
        if priority:
            text = m.content
            if slot is not None and "timezone" in slot.derived and zone_of(m.value or ""):
                text = f"時區 {utc_offset(zone_of(m.value), m.valid_from)}({m.value})"
            chosen.append((priority, m.valid_from, f"{text} [{m.id}]", [m.id]))
    lines, used = [], 0
    for _, _, text, ids in sorted(chosen, key=lambda x: (x[0], x[1])):
        tokens = count_tokens(text)
        if used + tokens > budget:
            break  # the rest stays retrievable; it is just not paid for in every prompt
        lines.append((text, ids, tokens))
        used += tokens
    return lines


def rebuild(store: Store, user_id: str, budget: int = DEFAULT_BUDGET) -> None:
    """Rebuild the user's pages and injected context from the notes layer (one transaction)."""
    require_user(user_id)
    memories = store.memories(user_id, status="active")
    with store.transaction():
        for page, lines in build_pages(memories).items():
            store.set_page(user_id, page, lines)
        store.set_injected(user_id, build_injected(memories, budget))


def injected_lines(store: Store, user_id: str) -> list[str]:
    return list(store.injected(user_id)["text"])


def notes_frame(store: Store, user_id: str, status: str | list[str] | None = "all") -> pd.DataFrame:
    """The notes layer as a table: id, content, type, source, status, superseded_by, ..."""
    rows = [{"id": m.id, "content": m.content, "type": m.type, "key": m.key,
             "source": f"{m.source_session_id}:{m.source_turn}",
             "sources": ", ".join(store.sources(user_id, m.id)),
             "trusted": m.source_trusted, "confidence": m.confidence, "status": m.status,
             "superseded_by": m.superseded_by or "",
             "valid_from": m.valid_from.date().isoformat(),
             "valid_to": m.valid_to.date().isoformat() if m.valid_to else ""}
            for m in store.memories(user_id, status=status)]
    return pd.DataFrame(rows, columns=["id", "content", "type", "key", "source", "sources",
                                       "trusted", "confidence", "status", "superseded_by",
                                       "valid_from", "valid_to"])


def transcripts_frame(store: Store, user_id: str) -> pd.DataFrame:
    tombstoned = store.tombstoned_refs(user_id)
    rows = [{"ref": t.ref, "role": t.role, "text": t.text,
             "attachment": t.attachment.kind if t.attachment else "",
             "tombstoned": t.ref in tombstoned} for t in store.turns(user_id)]
    return pd.DataFrame(rows, columns=["ref", "role", "text", "attachment", "tombstoned"])


def layer_tables(store: Store, user_id: str) -> dict[str, pd.DataFrame]:
    """Every layer of one user, bottom to top, as DataFrames (what the dashboard shows)."""
    require_user(user_id)
    return {
        "transcripts": transcripts_frame(store, user_id),
        "notes": notes_frame(store, user_id),
        "index": pd.DataFrame({"memory_id": store.vector_ids(user_id)}),
        "pages": store.page(user_id),
        "injected": store.injected(user_id),
        "events": store.events(user_id).drop(columns=["logged_at"]),
    }
