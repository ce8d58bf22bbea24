"""A user-facing memory inspector: view, edit and delete one user's memories.

Every function takes a ``user_id`` and only ever touches that user's rows. The three verbs:

- view: `view` lists the memories a user can see (with provenance and status), `detail`
  shows one memory's supersede chain, source turns and audit events;
- edit: `edit` never overwrites. It writes a *new* memory, marks the old one ``superseded``
  (linked with ``superseded_by``) and logs an ``EDIT`` event, so the old content stays
  reachable through the chain and the events;
- delete: `delete` is `memlab.forget.delete_memory` (every layer, chains and derived data,
  tombstones on the source turns).

To prove a deletion, `footprint` lists where memories still appear, layer by layer,
`scope_table` puts two footprints side by side, and `verify_deletion` runs the chapter's
checks (after a dream) as a table of passed / failed rows. `diagnose` tells "not stored"
apart from "stored but not retrieved".
"""

from __future__ import annotations

import pandas as pd

from memlab import clock, forget, layers
from memlab.embed import Embedder, get_embedder
from memlab.forget import Deletion
from memlab.history import chain
from memlab.store import Store, require_user
from memlab.types import Memory

LAYERS = ("transcripts", "notes", "index", "pages", "injected", "events")
EDITABLE = ("active", "pending_confirmation")


def view(store: Store, user_id: str, include_history: bool = False) -> pd.DataFrame:
    """What the user sees: current memories (and, with `include_history`, superseded,
    quarantined and deleted stubs), with source, trust, confidence and status."""
    frame = layers.notes_frame(store, user_id)
    if not include_history:
        frame = frame[frame["status"].isin(["active", "pending_confirmation", "quarantined"])]
    return frame[["id", "content", "type", "source", "trusted", "confidence", "status",
                  "superseded_by", "valid_from"]].reset_index(drop=True)


def detail(store: Store, user_id: str, memory_id: str) -> dict[str, pd.DataFrame]:
    """One memory in full: its chain (oldest first), its source turns and its events."""
    require_user(user_id)
    store.get_memory(user_id, memory_id)  # NotFoundError names the user and the id
    links = chain(store, user_id, memory_id)
    ids = {m.id for m in links}
    chain_frame = pd.DataFrame(
        [{"id": m.id, "content": m.content, "status": m.status,
          "superseded_by": m.superseded_by or "", "valid_from": m.valid_from.date().isoformat(),
          "valid_to": m.valid_to.date().isoformat() if m.valid_to else ""} for m in links],
        columns=["id", "content", "status", "superseded_by", "valid_from", "valid_to"])
    turns = {t.ref: t for t in store.turns(user_id)}
    tombstoned = store.tombstoned_refs(user_id)
    refs = store.sources(user_id, memory_id)
    sources = pd.DataFrame(
        [{"ref": r, "text": turns[r].text if r in turns else "", "tombstoned": r in tombstoned}
         for r in refs], columns=["ref", "text", "tombstoned"])
    events = store.events(user_id)
    mine = events[events["memory_id"].isin(ids) | events["target_id"].isin(ids)]
    return {"chain": chain_frame, "sources": sources.reset_index(drop=True),
            "events": mine[["id", "op", "memory_id", "target_id", "source", "actor",
                            "reason"]].reset_index(drop=True)}


def edit(store: Store, user_id: str, memory_id: str, content: str, *, value: str | None = None,
         embedder: Embedder | None = None, actor: str = "user",
         reason: str = "the user edited this memory in the inspector") -> Memory:
    """Replace a memory's content the way consolidation does: a new row supersedes the old.

    The new memory keeps the old one's type, key and source turn (its provenance is the
    conversation plus the user's edit, logged as an ``EDIT`` event); the old row keeps its
    content, gets ``valid_to`` and ``superseded_by``, and leaves the retrieval index.
    `value` is the slot value of a keyed memory (default: the new content).
    """
    old = store.get_memory(user_id, memory_id)
    if old.status not in EDITABLE:
        raise ValueError(f"{memory_id} of {user_id} is {old.status}; only {', '.join(EDITABLE)} "
                         "memories can be edited (history stays as it was)")
    if not content.strip():
        raise ValueError("the new content is empty: to remove a memory, delete it instead")
    embedder = embedder or get_embedder()
    now = clock.now()
    new = old.model_copy(update={
        "id": store.next_memory_id(), "content": content.strip(),
        "value": (value if value is not None else content.strip()) if old.key else None,
        "created_at": now, "valid_from": now, "valid_to": None, "superseded_by": None,
        "status": old.status, "confidence": "high", "source_trusted": True})
    with store.transaction():
        store.insert_memory(new)
        for ref in store.sources(user_id, old.id):
            session_id, _, turn = ref.partition(":")
            store.add_source(user_id, new.id, session_id, int(turn))
        store.set_status(user_id, old.id, "superseded", superseded_by=new.id, valid_to=now)
        store.delete_vectors(user_id, [old.id])
        if new.status == "active":
            store.put_vector(user_id, new.id, embedder.name,
                             store.cached_embed(embedder, [new.content])[0])
        store.log(user_id, "EDIT", memory_id=new.id, target_id=old.id, actor=actor, reason=reason)
        layers.rebuild(store, user_id)
    return new


def delete(store: Store, user_id: str, memory_id: str, actor: str = "user",
           reason: str = "the user deleted it in the inspector") -> Deletion:
    """Delete a memory from every layer (with its chain and derived data); see memlab.forget."""
    return forget.delete_memory(store, user_id, memory_id, actor=actor, reason=reason)


def _cites(ids_column: pd.Series, ids: set[str]) -> pd.Series:
    return ids_column.apply(lambda cited: bool(set(cited) & ids))


def footprint(store: Store, user_id: str, memory_ids: list[str], words: list[str] = ()
              ) -> pd.DataFrame:
    """Where `memory_ids` (and any of `words`) still appear, one row per layer.

    ``found`` lists what is there: memory ids in notes (live rows only, not deleted stubs)
    and in the index, cited lines in pages and injected, transcript turns containing a word
    (``*`` marks a tombstoned turn), events whose reason contains a word.
    """
    tables = layers.layer_tables(store, user_id)
    ids = set(memory_ids)
    notes = tables["notes"]
    live = notes[notes["id"].isin(ids) & (notes["status"] != "deleted")]
    pages, injected = tables["pages"], tables["injected"]
    turns = tables["transcripts"]

    def has_word(text: str) -> bool:
        return any(w in (text or "") for w in words)

    said = turns[turns["text"].apply(has_word)]
    events = tables["events"]
    found = {
        "transcripts": [r.ref + ("*" if r.tombstoned else "") for r in said.itertuples()],
        "notes": [f"{r.id} ({r.status})" for r in live.itertuples()],
        "index": sorted(ids & set(tables["index"]["memory_id"]), key=lambda i: int(i[1:])),
        "pages": [f"{r.page}:{r.line_no}" for r in pages[
            _cites(pages["memory_ids"], ids) | pages["text"].apply(has_word)].itertuples()],
        "injected": [f"line {r.line_no}" for r in injected[
            _cites(injected["memory_ids"], ids) | injected["text"].apply(has_word)].itertuples()],
        "events": [str(r.id) for r in events[events["reason"].apply(has_word)].itertuples()],
    }
    return pd.DataFrame([{"layer": name, "count": len(found[name]), "found": ", ".join(found[name])}
                         for name in LAYERS], columns=["layer", "count", "found"])


def scope_table(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Two footprints side by side: layer, before, after (``*`` = tombstoned turn)."""
    return pd.DataFrame({"layer": before["layer"], "before": before["found"],
                         "after": after["found"].where(after["found"] != "", "—")})


def diagnose(store: Store, user_id: str, question: str, word: str, top_k: int = 5
             ) -> dict[str, object]:
    """"It forgot": is `word` not stored at all, stored but not retrieved, or retrieved?"""
    from memlab.retrieve import retrieve

    stored = [m.id for m in store.memories(user_id, status="all")
              if m.status != "deleted" and word in (m.content + (m.value or ""))]
    active = [m.id for m in store.memories(user_id) if word in m.content]
    hits = [h.memory.id for h in retrieve(store, user_id, question, top_k=top_k)]
    retrieved = [i for i in hits if i in active]
    if retrieved:
        verdict = "retrieved"
    elif active:
        verdict = "stored but not retrieved: fix retrieval"
    elif stored:
        verdict = "stored but not active (superseded / quarantined)"
    else:
        verdict = "not stored (never said, or deleted)"
    return {"question": question, "word": word, "stored": ", ".join(stored) or "—",
            "retrieved": ", ".join(retrieved) or "—", "top_k": ", ".join(hits) or "—",
            "verdict": verdict}


def verify_deletion(store: Store, user_id: str, memory_ids: list[str], words: list[str],
                    questions: list[str] = (), dream: bool = True) -> pd.DataFrame:
    """The chapter's deletion acceptance as a table (check, passed, detail).

    With `dream` it first re-consolidates (a background pass), then checks every layer,
    the tombstones, retrieval and the answers to `questions` (they should abstain).
    """
    from memlab.answer import answer
    from memlab.judge import is_abstention
    from memlab.pipeline import dream as run_dream
    from memlab.retrieve import retrieve

    require_user(user_id)
    if dream:
        run_dream(store, user_id)
    ids = set(memory_ids)
    rows = store.memories(user_id, status="all")
    doomed = [m for m in rows if m.id in ids]
    back = [m.id for m in rows if m.status != "deleted" and any(w in m.content for w in words)]
    sources = {r for m in doomed for r in store.sources(user_id, m.id)}
    where = footprint(store, user_id, memory_ids, words).set_index("layer")["found"]
    checks = [
        ("notes: status deleted, content erased",
         all(m.status == "deleted" and m.content == "" for m in doomed) and len(doomed) == len(ids),
         ", ".join(f"{m.id}={m.status}" for m in doomed)),
        ("not re-extracted by the dream", not back, ", ".join(back) or "—"),
        ("index: no vectors", where["index"] == "", where["index"] or "—"),
        ("pages: no line cites or mentions it", where["pages"] == "", where["pages"] or "—"),
        ("injected: no line cites or mentions it", where["injected"] == "",
         where["injected"] or "—"),
        ("events: no reason quotes it", where["events"] == "", where["events"] or "—"),
        ("transcripts: source turns tombstoned", sources <= store.tombstoned_refs(user_id),
         ", ".join(sorted(sources)) or "—"),
    ]
    for q in questions:
        hits = [h.memory for h in retrieve(store, user_id, q, top_k=10)]
        leaked = [m.id for m in hits if m.id in ids or any(w in m.content for w in words)]
        checks.append((f"retrieval for {q!r} misses it", not leaked, ", ".join(leaked) or "—"))
        said = answer(store, user_id, q).text
        checks.append((f"answer to {q!r} abstains", is_abstention(said), said))
    return pd.DataFrame(checks, columns=["check", "passed", "detail"])
