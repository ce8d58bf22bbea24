"""Consolidation: decide what each candidate does to the notes layer, then apply it.

`plan` returns a reviewable list of ops and changes nothing; `apply` carries them out in
one transaction. The outcomes:

- ADD: nothing like it yet;
- MERGE: a duplicate (same slot and value, or a near-identical text): keep one row and
  add the new source turn to its provenance;
- SUPERSEDE: a newer value for the same slot: the old row is marked ``superseded``, linked
  with ``superseded_by`` and given ``valid_to``; never overwritten;
- NOOP: no new information, a plan (plans never supersede facts), or a statement older
  than the current value (re-reading history must not roll it back);
- QUARANTINE: from an untrusted source (pasted page, e-mail, tool output): stored so the
  user can see and delete it, never active, never retrieved or injected.

A trusted memory that asks for an outward action (send, share, pay) is added as
``pending_confirmation`` until the user confirms it.

With ``MEMLAB_BACKEND=openai`` an LLM chooses the op for each trusted fact, shown the
candidate and the user's closest memories; the offline rules stay as guards around it:
untrusted text is quarantined and a plan is a NOOP whatever the model says, and a model's
SUPERSEDE of a newer value by an older statement becomes a NOOP.
"""

from __future__ import annotations

import re
from datetime import datetime

import numpy as np
import pandas as pd

from memlab import llm
from memlab.embed import Embedder, char_bigrams
from memlab.slots import slot_for_key, zone_of
from memlab.store import Store, require_user
from memlab.types import Candidate, Memory, Op

NEAR_DUPLICATE_COSINE = 0.95  # e5 cosines of merely related texts reach ~0.9
NEAR_DUPLICATE_OVERLAP = 0.6  # and the wording must overlap too


def _same(a: str | None, b: str | None) -> bool:
    return (a or "").replace(" ", "").lower() == (b or "").replace(" ", "").lower()


def _overlap(a: str, b: str) -> float:
    x, y = set(char_bigrams(a)), set(char_bigrams(b))
    return len(x & y) / max(1, min(len(x), len(y)))


def _as_pending(candidate: Candidate, temp_id: str) -> Memory:
    return Memory(id=temp_id, status="active", valid_from=candidate.created_at,
                  **candidate.model_dump(exclude={"is_plan"}))


def plan(store: Store, user_id: str, candidates: list[Candidate],
         embedder: Embedder | None = None, backend: str | None = None) -> list[Op]:
    """Ops for `candidates` against the user's memories (and against earlier ops in the list).

    Nothing is written: review the list (`ops_frame`), then `apply` it. `backend` is
    "offline" or "openai" (default: $MEMLAB_BACKEND).
    """
    require_user(user_id)
    memories = store.memories(user_id, status=["active", "superseded", "pending_confirmation",
                                               "quarantined"])
    use_llm = (backend or llm.backend()) == "openai"
    ops: list[Op] = []
    for candidate in candidates:
        if candidate.user_id != user_id:
            raise ValueError(f"candidate for {candidate.user_id} given to user {user_id}'s plan")
        if use_llm and candidate.source_trusted and not candidate.is_plan:
            op = _decide_llm(store, candidate, memories, embedder)
        else:  # offline, and the guards of the LLM path: untrusted text, plans
            op = _decide(store, candidate, memories, embedder)
        ops.append(op)
        if op.op in ("ADD", "SUPERSEDE"):
            new = _as_pending(candidate, f"new:{len(ops) - 1}")
            memories.append(new)
            if op.op == "SUPERSEDE":
                old = next(m for m in memories if m.id == op.target_id)
                old.status, old.superseded_by = "superseded", new.id
    return ops


def _decide(store: Store, c: Candidate, memories: list[Memory], embedder) -> Op:
    ref = f"{c.source_session_id}:{c.source_turn}"
    if not c.source_trusted:
        for m in memories:
            if m.status == "quarantined" and m.key == c.key and _same(m.value, c.value):
                return Op(op="NOOP", candidate=c, reason=f"already quarantined as {m.id}")
        return Op(op="QUARANTINE", candidate=c,
                  reason=f"untrusted source ({ref} is pasted or tool content): never auto-active")
    if c.is_plan:
        return Op(op="NOOP", candidate=c, reason="a plan, not a fact yet: plans never supersede facts")
    if c.key:
        same_key = [m for m in memories if m.key == c.key]
        for m in same_key:
            if _same(m.value, c.value):
                return Op(op="MERGE", candidate=c, target_id=m.id,
                          reason=f"duplicate of {m.id}: same {c.key} and value; provenance added")
        implied = _implied_by(c, memories)
        if implied:
            return Op(op="MERGE", candidate=c, target_id=implied.id,
                      reason=f"no new information: already implied by {implied.id}")
        current = [m for m in same_key if m.status in ("active", "pending_confirmation")]
        same_key = [m for m in same_key if m.status != "quarantined"]
        if current:
            target = max(current, key=lambda m: m.valid_from)
            if c.created_at <= target.valid_from:
                return Op(op="NOOP", candidate=c,
                          reason=f"older than the current value {target.id}: history, not an update")
            return Op(op="SUPERSEDE", candidate=c, target_id=target.id,
                      reason=f"new value for {c.key}: {target.id} becomes history")
        return Op(op="ADD", candidate=c, reason=f"new {c.key}")
    duplicate = _near_duplicate(store, c, memories, embedder)
    if duplicate:
        return Op(op="MERGE", candidate=c, target_id=duplicate.id,
                  reason=f"near-duplicate of {duplicate.id}; provenance added")
    return Op(op="ADD", candidate=c, reason=f"new {c.type} memory")


SHOWN_TO_LLM = 5  # existing memories shown with each candidate


def _closest(store: Store, c: Candidate, memories: list[Memory], embedder) -> list[Memory]:
    """The memories an LLM sees for `c`: same slot first, then the most similar others."""
    pool = [m for m in memories if m.status in ("active", "superseded", "pending_confirmation")]
    same = [m for m in pool if c.key and m.key and m.key.split(":")[0] == c.key.split(":")[0]]
    rest = [m for m in pool if m not in same]
    if rest and embedder is not None:
        vectors = store.cached_embed(embedder, [c.content] + [m.content for m in rest])
        order = np.argsort(-(vectors[1:] @ vectors[0]), kind="stable")
        rest = [rest[i] for i in order]
    else:
        rest.sort(key=lambda m: -_overlap(m.content, c.content))
    return (same + rest)[:SHOWN_TO_LLM]


def _decide_llm(store: Store, c: Candidate, memories: list[Memory], embedder) -> Op:
    from memlab.llm_backend import consolidate_llm

    shown = _closest(store, c, memories, embedder)
    op = consolidate_llm(c, shown)
    target = next((m for m in shown if m.id == op.target_id), None)
    if op.op == "SUPERSEDE" and target is not None and c.created_at <= target.valid_from:
        return Op(op="NOOP", candidate=c, reason=f"the LLM chose SUPERSEDE of {target.id}, but "
                  "the candidate is older: history, not an update (offline guard)")
    if op.op == "SUPERSEDE" and target is not None and target.status == "superseded":
        return Op(op="NOOP", candidate=c, reason=f"the LLM chose SUPERSEDE of {target.id}, "
                  "which is already history (offline guard)")
    return op.model_copy(update={"reason": f"LLM: {op.reason}"})


def ops_frame(ops: list[Op]) -> pd.DataFrame:
    """A plan as a reviewable table: one row per op, nothing applied yet."""
    rows = [{"#": i, "op": op.op, "target": op.target_id or "",
             "source": f"{op.candidate.source_session_id}:{op.candidate.source_turn}",
             "key": op.candidate.key or "", "content": op.candidate.content,
             "trusted": op.candidate.source_trusted, "plan": op.candidate.is_plan,
             "reason": op.reason} for i, op in enumerate(ops)]
    return pd.DataFrame(rows, columns=["#", "op", "target", "source", "key", "content", "trusted",
                                       "plan", "reason"])


def _implied_by(c: Candidate, memories: list[Memory]) -> Memory | None:
    """A time-zone statement adds nothing when the active place already implies that zone."""
    if not c.key or c.key != "timezone":
        return None
    for m in memories:
        slot = slot_for_key(m.key)
        if (m.status == "active" and slot is not None and "timezone" in slot.derived
                and zone_of(m.value or "") == zone_of(c.value or "")):
            return m
    return None


def _near_duplicate(store: Store, c: Candidate, memories: list[Memory], embedder) -> Memory | None:
    pool = [m for m in memories if m.type == c.type and m.key is None and m.status == "active"]
    pool = [m for m in pool if _overlap(m.content, c.content) >= NEAR_DUPLICATE_OVERLAP]
    if not pool:
        return None
    if embedder is None:
        return pool[0]
    vectors = store.cached_embed(embedder, [c.content] + [m.content for m in pool])
    scores = vectors[1:] @ vectors[0]
    best = int(np.argmax(scores))
    return pool[best] if scores[best] >= NEAR_DUPLICATE_COSINE else None


def apply(store: Store, user_id: str, ops: list[Op], embedder: Embedder,
          actor: str = "system", at: datetime | None = None) -> dict[str, str]:
    """Carry out `ops` in one transaction; returns planned temp ids → memory ids.

    If anything fails, nothing is written (the transaction rolls back).
    """
    require_user(user_id)
    ids: dict[str, str] = {}
    with store.transaction():
        new = [op.candidate.content for op in ops if op.op in ("ADD", "SUPERSEDE")]
        store.cached_embed(embedder, new)  # one batch now; each insert then hits the cache
        for i, op in enumerate(ops):
            c = op.candidate
            ref = f"{c.source_session_id}:{c.source_turn}"
            target = ids.get(op.target_id, op.target_id) if op.target_id else None
            if c.user_id != user_id:
                raise ValueError(f"op {i} is for {c.user_id}, not {user_id}: nothing was applied")
            if op.op in ("MERGE", "SUPERSEDE"):
                store.get_memory(user_id, target)  # NotFoundError (and a rollback) if unknown
            memory_id = None
            if op.op in ("ADD", "SUPERSEDE", "QUARANTINE"):
                memory_id = _insert(store, c, op, embedder)
                ids[f"new:{i}"] = memory_id
            if op.op == "SUPERSEDE":
                store.set_status(user_id, target, "superseded", superseded_by=memory_id,
                                 valid_to=c.created_at)
            if op.op == "MERGE":
                store.add_source(user_id, target, c.source_session_id, c.source_turn)
            reason = re.sub(r"new:\d+", lambda m: ids.get(m.group(0), m.group(0)), op.reason)
            store.log(user_id, op.op, memory_id=memory_id or target,
                      target_id=target if op.op == "SUPERSEDE" else None, source=ref,
                      actor=actor, reason=reason, at=at or c.created_at)
    return ids


def _insert(store: Store, c: Candidate, op: Op, embedder: Embedder) -> str:
    status = "active"
    if op.op == "QUARANTINE":
        status = "quarantined"
    elif c.outward_action:
        status = "pending_confirmation"
    memory = Memory(id=store.next_memory_id(), status=status, valid_from=c.created_at,
                    **c.model_dump(exclude={"is_plan"}))
    store.insert_memory(memory)
    if status == "active":  # only active memories are ever retrievable
        vector = store.cached_embed(embedder, [memory.content])[0]
        store.put_vector(c.user_id, memory.id, embedder.name, vector)
    return memory.id


def confirm(store: Store, user_id: str, memory_id: str, embedder: Embedder,
            actor: str = "user") -> None:
    """The user confirms a pending (outward-action) memory: it becomes active and indexed."""
    memory = store.get_memory(user_id, memory_id)
    if memory.status != "pending_confirmation":
        raise ValueError(f"{memory_id} is {memory.status}; only pending_confirmation memories "
                         "can be confirmed")
    with store.transaction():
        store.set_status(user_id, memory_id, "active")
        store.put_vector(user_id, memory_id, embedder.name,
                         store.cached_embed(embedder, [memory.content])[0])
        store.log(user_id, "CONFIRM", memory_id=memory_id, actor=actor,
                  reason="the user confirmed this outward-action memory")
