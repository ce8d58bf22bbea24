"""The whole write path, session by session, and background re-consolidation ("dreaming").

`ingest` plays a dataset as if the conversations happened at their dates: store each
session's turns, extract candidates, plan and apply consolidation ops, carry out any
deletion request the user made, and rebuild the pages and the injected context.
`dream` re-reads a user's transcripts (skipping tombstoned turns) and re-consolidates:
duplicates merge, history is not rolled back, deleted memories stay deleted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from memlab import consolidate, forget, layers, llm
from memlab.embed import Embedder, get_embedder
from memlab.errors import NotFoundError
from memlab.extract import deletion_request, extract_offline
from memlab.store import Store, require_user
from memlab.types import Candidate, Dataset, Op, Turn


@dataclass(frozen=True)
class DeletionRequest:
    """A user's request to forget something, found in a turn (``ref``) at time ``at``."""

    user_id: str
    ref: str
    topic: str
    at: datetime


@dataclass
class IngestReport:
    """What an ingest did: candidate and op counts, deletions, and the resulting memories."""

    sessions: int = 0
    candidates: int = 0
    ops: Counter = field(default_factory=Counter)
    deleted: list[str] = field(default_factory=list)
    tombstoned: list[str] = field(default_factory=list)
    log: list[Op] = field(default_factory=list)
    deferred: list[DeletionRequest] = field(default_factory=list)

    def summary(self) -> dict:
        return {"sessions": self.sessions, "candidates": self.candidates,
                "ops": dict(sorted(self.ops.items())), "deleted": self.deleted,
                "tombstoned": self.tombstoned}


def extract(turns: list[Turn], tz: str = "Asia/Taipei", backend: str | None = None,
            classifier=None) -> list[Candidate]:
    """Candidates from one session's turns, by the configured backend."""
    if not turns:
        return []
    if (backend or llm.backend()) == "openai":
        from memlab.classify import load_examples
        from memlab.llm_backend import extract_llm
        from memlab.slots import SLOTS

        first = turns[0]
        return extract_llm(turns, first.user_id, first.session_id, first.at,
                           list(load_examples()), sorted({s.key for s in SLOTS}))
    return extract_offline(turns, tz=tz, classifier=classifier)


def consolidate_session(store: Store, user_id: str, turns: list[Turn], embedder: Embedder,
                        tz: str, report: IngestReport, backend: str | None = None,
                        classifier=None) -> None:
    candidates = extract(turns, tz, backend, classifier)
    ops = consolidate.plan(store, user_id, candidates, embedder, backend=backend)
    consolidate.apply(store, user_id, ops, embedder, at=turns[-1].at if turns else None)
    report.candidates += len(candidates)
    report.ops.update(op.op for op in ops)
    report.log += ops


def ingest(store: Store, dataset: Dataset, *, until: datetime | None = None,
           users: list[str] | None = None, embedder: Embedder | None = None,
           backend: str | None = None, classifier=None,
           defer_deletions: bool = False) -> IngestReport:
    """Play the dataset's sessions (optionally up to `until`) through the write path.

    Users are processed one after another in the dataset's order, each user's sessions in
    time order, so memory ids are reproducible. Sessions already in the store are skipped.
    Deletion requests in the conversation are carried out as they come, unless
    `defer_deletions`: then they are only listed in ``report.deferred`` for the caller to
    carry out later with `carry_out` (an evaluation asks some questions "before" them).
    """
    embedder = embedder or get_embedder()
    report = IngestReport()
    for user in dataset.users:
        if users is not None and user.id not in users:
            continue
        known = set(store.session_ids(user.id))
        for session in dataset.sessions:
            if session.user_id != user.id or (until is not None and session.date > until):
                continue
            if session.id in known:
                continue  # already ingested: ingest is idempotent, re-running a cell is safe
            # One transaction per session: a failed extraction (say, unusable LLM output)
            # leaves the store exactly as it was before this session.
            with store.transaction():
                store.add_user(user)  # inside: a failed first session leaves no trace at all
                store.add_session(session)
                consolidate_session(store, user.id, session.turns, embedder, dataset.timezone,
                                    report, backend, classifier)
                if defer_deletions:
                    report.deferred += deletion_requests(session.turns)
                else:
                    _apply_deletion_requests(store, user.id, session.turns, report)
                layers.rebuild(store, user.id)
            report.sessions += 1
    return report


def deletion_requests(turns: list[Turn]) -> list[DeletionRequest]:
    """The requests to forget something that the user makes in these turns, in order."""
    found = []
    for turn in turns:
        topic = deletion_request(turn.text) if turn.role == "user" else None
        if topic:
            found.append(DeletionRequest(turn.user_id, turn.ref, topic, turn.at))
    return found


def carry_out(store: Store, request: DeletionRequest, report: IngestReport | None = None
              ) -> forget.Deletion:
    """Delete what a deletion request is about, from every layer (nothing found: no-op)."""
    try:
        done = forget.delete_about(store, request.user_id, request.topic,
                                   reason=f"deletion request at {request.ref}")
    except NotFoundError:
        return forget.Deletion()  # nothing remembered about it: nothing to delete
    if report is not None:
        report.deleted += done.memory_ids
        report.tombstoned += done.tombstoned
    return done


def _apply_deletion_requests(store: Store, user_id: str, turns: list[Turn],
                             report: IngestReport) -> None:
    for request in deletion_requests(turns):
        carry_out(store, request, report)


def dream(store: Store, user_id: str | None = None, *, embedder: Embedder | None = None,
          tz: str = "Asia/Taipei", backend: str | None = None) -> IngestReport:
    """Re-consolidate from transcripts (skipping tombstoned turns) and rebuild the layers.

    Without `user_id` it runs for every user (an instructor/admin job).
    """
    embedder = embedder or get_embedder()
    report = IngestReport()
    for uid in [require_user(user_id)] if user_id is not None else store.user_ids():
        for session_id in store.session_ids(uid):
            turns = store.turns(uid, session_id, include_tombstoned=False)
            if turns:
                consolidate_session(store, uid, turns, embedder, tz, report, backend)
                report.sessions += 1
        layers.rebuild(store, uid)
    return report
