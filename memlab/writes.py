"""When to write: a few facts at once (in the session), the rest in the background.

A synchronous write makes a memory usable in the very next turn but costs the session
time and attention; a background write ("dreaming", `memlab.pipeline.dream`) costs the
session nothing but lands later. Many systems do both, and so does this module:
`write_session` stores the transcript, then writes *now* only what every session needs
(the slots of the injected layer and procedures: answer format, time zone, ...); the rest
waits for `dream`, which re-reads the transcripts.
"""

from __future__ import annotations

from memlab import consolidate, layers
from memlab.embed import Embedder, get_embedder
from memlab.extract import extract_offline
from memlab.slots import slot_for_key
from memlab.store import Store
from memlab.types import Candidate, Op, Session


def needed_now(candidate: Candidate) -> bool:
    """Written in the session: a procedure, or a slot the injected layer carries."""
    slot = slot_for_key(candidate.key)
    return candidate.type == "procedural" or bool(slot and slot.inject)


def write_session(store: Store, session: Session, embedder: Embedder | None = None,
                  tz: str = "Asia/Taipei", sync: bool = True) -> list[Op]:
    """Store a session's transcript; with `sync`, write its always-needed facts right away.

    Returns the ops applied now; everything else is left for `memlab.pipeline.dream`.
    """
    embedder = embedder or get_embedder()
    ops: list[Op] = []
    with store.transaction():
        store.add_session(session)
        if sync:
            now = [c for c in extract_offline(session.turns, tz=tz) if needed_now(c)]
            ops = consolidate.plan(store, session.user_id, now, embedder, backend="offline")
            consolidate.apply(store, session.user_id, ops, embedder, actor="sync write")
        layers.rebuild(store, session.user_id)
    return ops
