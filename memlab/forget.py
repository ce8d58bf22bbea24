"""Forgetting: invalidate vs delete, deletion across every layer, and the audit that proves it.

`delete_memory` / `delete_about` remove memories from every layer in one transaction:

| layer          | what happens                                                        |
|----------------|---------------------------------------------------------------------|
| notes          | the row keeps its id and status ``deleted``; its content is erased  |
| retrieval index| its vector is removed, and cached vectors of its text are dropped   |
| representations / injected | rebuilt from what is left                               |
| transcripts    | every turn it came from, or that would re-extract it, is tombstoned |
| events         | a DELETE event (who, when, why) that never copies the content       |

Deletion cascades along supersede chains (a superseded "台北" reveals as much as the active
"東京") and to derived slots (a time zone reveals the place). Tombstones stop
re-consolidation ("dreaming") from bringing a memory back; the raw text of a tombstoned turn
stays until the product decides to purge transcripts, and `audit` reports it as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from memlab import layers
from memlab.errors import NotFoundError
from memlab.extract import extract_offline, match_slots
from memlab.slots import keys_for_text, slot_for_key
from memlab.store import Store, require_user
from memlab.types import Memory


@dataclass
class Deletion:
    memory_ids: list[str] = field(default_factory=list)
    tombstoned: list[str] = field(default_factory=list)


def _base(key: str | None) -> str | None:
    return key.split(":", 1)[0] if key else None


def _cascade(store: Store, user_id: str, seeds: list[Memory]) -> list[Memory]:
    """The seeds plus their supersede chains and the memories derived from them."""
    everything = {m.id: m for m in store.memories(user_id, status="all") if m.status != "deleted"}
    chosen: dict[str, Memory] = {m.id: m for m in seeds}
    changed = True
    while changed:
        changed = False
        for m in list(everything.values()):
            if m.id in chosen:
                continue
            linked = m.superseded_by in chosen or any(
                c.superseded_by == m.id for c in chosen.values())
            derived = any((slot := slot_for_key(c.key)) and _base(m.key) in slot.derived
                          for c in chosen.values())
            if linked or derived:
                chosen[m.id] = m
                changed = True
    return sorted(chosen.values(), key=lambda m: int(m.id[1:]) if m.id[1:].isdigit() else 0)


def _turns_to_tombstone(store: Store, user_id: str, doomed: list[Memory]) -> list[str]:
    refs = set()
    for m in doomed:
        refs.update(store.sources(user_id, m.id))
    keys = {m.key for m in doomed if m.key}
    if keys:  # turns that would re-extract the same slot on the next dream
        for c in extract_offline(store.turns(user_id, include_tombstoned=False)):
            if c.key in keys:
                refs.add(f"{c.source_session_id}:{c.source_turn}")
    return sorted(refs)


def delete_memories(store: Store, user_id: str, seeds: list[Memory], *, actor: str = "user",
                    reason: str = "the user asked to delete it") -> Deletion:
    """Delete memories (with their chains and derived data) from every layer, atomically."""
    require_user(user_id)
    doomed = _cascade(store, user_id, seeds)
    refs = _turns_to_tombstone(store, user_id, doomed)
    with store.transaction():
        for m in doomed:
            store.redact_memory(user_id, m.id)
            store.delete_vectors(user_id, [m.id])
            store.forget_cached([m.content, m.evidence])
            store.log(user_id, "DELETE", memory_id=m.id, actor=actor, reason=reason)
        store.redact_events(user_id, [t for m in doomed for t in (m.content, m.value, m.evidence)])
        if refs:
            store.tombstone(user_id, refs, reason="deleted memory: skip on re-consolidation",
                            actor=actor)
        layers.rebuild(store, user_id)
    return Deletion([m.id for m in doomed], refs)


def delete_memory(store: Store, user_id: str, memory_id: str, **kwargs) -> Deletion:
    """Delete one memory by id (and its chain); unknown or already deleted ids are errors."""
    memory = store.get_memory(user_id, memory_id)
    if memory.status == "deleted":
        raise NotFoundError(f"memory {memory_id} of {user_id} is already deleted")
    return delete_memories(store, user_id, [memory], **kwargs)


def memories_about(store: Store, user_id: str, topic: str) -> list[Memory]:
    """Memories a request like "我在哪裡上班" is about: by slot cue words and slot phrasings."""
    keys = keys_for_text(topic) | {_base(k) for k, *_ in match_slots(topic)}
    live = [m for m in store.memories(user_id, status="all") if m.status != "deleted"]
    return [m for m in live if _base(m.key) in keys]


def delete_about(store: Store, user_id: str, topic: str, **kwargs) -> Deletion:
    """Delete everything remembered about `topic` (e.g. "我在哪裡上班")."""
    found = memories_about(store, user_id, topic)
    if not found:
        raise NotFoundError(f"no memory of {user_id} matches {topic!r}; list them with "
                            f"`memlab memories --user {user_id} --status all`")
    # The reason names the request, not the topic's words: events never copy what was deleted.
    return delete_memories(store, user_id, found,
                           reason=kwargs.pop("reason", "deletion request by topic"), **kwargs)


def invalidate(store: Store, user_id: str, memory_id: str, reason: str, actor: str = "user") -> None:
    """Mark a memory as no longer current but keep it as history (not a deletion)."""
    memory = store.get_memory(user_id, memory_id)
    with store.transaction():
        store.set_status(user_id, memory.id, "superseded")
        store.delete_vectors(user_id, [memory.id])
        store.log(user_id, "INVALIDATE", memory_id=memory.id, actor=actor, reason=reason)
        layers.rebuild(store, user_id)


def audit(store: Store, user_id: str, text: str) -> pd.DataFrame:
    """Every place in any layer of this user where `text` still appears (layer, id, detail)."""
    require_user(user_id)
    hits = []
    tombstoned = store.tombstoned_refs(user_id)
    for t in store.turns(user_id):
        body = t.text + (t.attachment.text if t.attachment else "")
        if text in body:
            hits.append({"layer": "transcripts", "id": t.ref, "status":
                         "tombstoned" if t.ref in tombstoned else "live", "text": t.text})
    indexed = set(store.vector_ids(user_id))
    for m in store.memories(user_id, status="all"):
        if text in m.content or text in (m.value or "") or text in m.evidence:
            hits.append({"layer": "notes", "id": m.id, "status": m.status, "text": m.content})
            if m.id in indexed:
                hits.append({"layer": "index", "id": m.id, "status": "indexed", "text": m.content})
    for _, row in store.page(user_id).iterrows():
        if text in row["text"]:
            hits.append({"layer": "pages", "id": f"{row['page']}:{row['line_no']}",
                         "status": "live", "text": row["text"]})
    for _, row in store.injected(user_id).iterrows():
        if text in row["text"]:
            hits.append({"layer": "injected", "id": f"line {row['line_no']}", "status": "live",
                         "text": row["text"]})
    for _, row in store.events(user_id).iterrows():
        if text in (row["reason"] or ""):
            hits.append({"layer": "events", "id": str(row["id"]), "status": row["op"],
                         "text": row["reason"]})
    return pd.DataFrame(hits, columns=["layer", "id", "status", "text"])
