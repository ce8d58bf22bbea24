"""The DuckDB store: one table (or two) per layer, and every SQL statement memlab runs.

Rules this module enforces:
- every read of memory data takes a ``user_id`` and filters on it in the SQL ``WHERE``
  clause, before any ranking (a missing user is a ``ScopeError``, never "all users");
- every state change runs in a transaction and writes an ``events`` row; a failure rolls
  the whole change back;
- a deleted memory keeps its id (so chains and events stay linked) but loses its content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from memlab import clock
from memlab.errors import NotFoundError, ScopeError
from memlab.types import Memory, Session, Turn, User

SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS memory_seq START 1;
CREATE SEQUENCE IF NOT EXISTS event_seq START 1;
CREATE TABLE IF NOT EXISTS users (id VARCHAR PRIMARY KEY, name VARCHAR);
CREATE TABLE IF NOT EXISTS turns (
    user_id VARCHAR NOT NULL, session_id VARCHAR NOT NULL, turn INTEGER NOT NULL,
    role VARCHAR NOT NULL, source_kind VARCHAR NOT NULL, name VARCHAR, text VARCHAR NOT NULL,
    attachment_kind VARCHAR, attachment_title VARCHAR, attachment_text VARCHAR,
    spoken_at TIMESTAMPTZ NOT NULL, tombstoned BOOLEAN NOT NULL DEFAULT FALSE, tombstone_reason VARCHAR,
    PRIMARY KEY (user_id, session_id, turn));
CREATE TABLE IF NOT EXISTS memories (
    id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, content VARCHAR NOT NULL,
    type VARCHAR NOT NULL, key VARCHAR, value VARCHAR,
    source_session_id VARCHAR NOT NULL, source_turn INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL, confidence VARCHAR NOT NULL, source_trusted BOOLEAN NOT NULL,
    status VARCHAR NOT NULL, superseded_by VARCHAR, valid_from TIMESTAMPTZ NOT NULL,
    valid_to TIMESTAMPTZ, evidence VARCHAR NOT NULL DEFAULT '',
    outward_action BOOLEAN NOT NULL DEFAULT FALSE);
CREATE TABLE IF NOT EXISTS memory_sources (
    user_id VARCHAR NOT NULL, memory_id VARCHAR NOT NULL, session_id VARCHAR NOT NULL,
    turn INTEGER NOT NULL, PRIMARY KEY (memory_id, session_id, turn));
CREATE TABLE IF NOT EXISTS memory_vectors (
    memory_id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, model VARCHAR NOT NULL,
    vector FLOAT[] NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    user_id VARCHAR NOT NULL, page VARCHAR NOT NULL, line_no INTEGER NOT NULL,
    text VARCHAR NOT NULL, memory_ids VARCHAR[] NOT NULL);
CREATE TABLE IF NOT EXISTS injected (
    user_id VARCHAR NOT NULL, line_no INTEGER NOT NULL, text VARCHAR NOT NULL,
    memory_ids VARCHAR[] NOT NULL, tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id BIGINT PRIMARY KEY, user_id VARCHAR NOT NULL, logged_at TIMESTAMPTZ NOT NULL, op VARCHAR NOT NULL,
    memory_id VARCHAR, target_id VARCHAR, source VARCHAR, actor VARCHAR NOT NULL,
    reason VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS embedding_cache (
    model VARCHAR NOT NULL, text_hash VARCHAR NOT NULL, kind VARCHAR NOT NULL,
    vector FLOAT[] NOT NULL, PRIMARY KEY (model, text_hash, kind));
"""

MEMORY_COLUMNS = list(Memory.model_fields)


def require_user(user_id: object) -> str:
    """Return `user_id` or refuse: memlab never reads or writes memory without a user."""
    if not isinstance(user_id, str) or not user_id.strip():
        raise ScopeError(
            "a user_id is required: memlab never reads or writes memories across users. "
            "Pass the user whose memories you want, e.g. user_id='u_017'."
        )
    return user_id


def text_hash(text: str) -> str:
    """Stable hash of a text, used as the embedding-cache key."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Store:
    """A memlab database: ``Store()`` is in memory, ``Store("x.duckdb")`` is a file."""

    def __init__(self, path: str | Path = ":memory:"):
        self.path = str(path)
        self.con = duckdb.connect(self.path)
        self.con.execute("SET TimeZone = 'UTC'")
        self.con.execute(SCHEMA)
        self._depth = 0

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """All writes inside commit together or not at all (nested blocks join the outer)."""
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self.con.begin()
        self._depth = 1
        try:
            yield self
        except BaseException:
            self.con.rollback()
            raise
        else:
            self.con.commit()
        finally:
            self._depth = 0

    def _frame(self, sql: str, params: list | tuple = ()) -> pd.DataFrame:
        # Built by hand rather than with .df(): duckdb's pandas bridge warns under pandas 3.
        cursor = self.con.execute(sql, list(params))
        return pd.DataFrame(cursor.fetchall(), columns=[d[0] for d in cursor.description])

    def _rows(self, sql: str, params: list | tuple = ()) -> list[dict]:
        cursor = self.con.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    # -- users and transcripts ----------------------------------------------------------
    def add_user(self, user: User) -> None:
        self.con.execute("INSERT OR REPLACE INTO users VALUES (?, ?)", [user.id, user.name])

    def user_ids(self) -> list[str]:
        """Admin/instructor view: the ids of every user in the store (no memory data)."""
        return [r[0] for r in self.con.execute("SELECT id FROM users ORDER BY id").fetchall()]

    def add_session(self, session: Session) -> None:
        """Store every turn of a session in the transcripts layer."""
        with self.transaction():
            for t in session.turns:
                kind = "user" if t.role == "user" else t.role
                att = t.attachment
                self.con.execute(
                    "INSERT INTO turns (user_id, session_id, turn, role, source_kind, name, text,"
                    " attachment_kind, attachment_title, attachment_text, spoken_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [t.user_id, t.session_id, t.turn, t.role, kind, t.name, t.text,
                     att.kind if att else None, att.title if att else None,
                     att.text if att else None, t.at],
                )

    def turns(self, user_id: str, session_id: str | None = None,
              include_tombstoned: bool = True) -> list[Turn]:
        """The user's transcript turns in time order (optionally one session's)."""
        require_user(user_id)
        sql = "SELECT * FROM turns WHERE user_id = ?"
        params: list = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if not include_tombstoned:
            sql += " AND NOT tombstoned"
        rows = self._rows(sql + " ORDER BY spoken_at, session_id, turn", params)
        return [_turn(r) for r in rows]

    def session_ids(self, user_id: str) -> list[str]:
        require_user(user_id)
        rows = self.con.execute(
            "SELECT session_id FROM turns WHERE user_id = ? GROUP BY session_id ORDER BY min(spoken_at)",
            [user_id]).fetchall()
        return [r[0] for r in rows]

    def tombstoned_refs(self, user_id: str) -> set[str]:
        require_user(user_id)
        rows = self.con.execute(
            "SELECT session_id, turn FROM turns WHERE user_id = ? AND tombstoned", [user_id]
        ).fetchall()
        return {f"{s}:{t}" for s, t in rows}

    def tombstone(self, user_id: str, refs: list[str], reason: str, actor: str = "user") -> None:
        """Mark transcript turns so (re-)consolidation skips them; the text itself stays."""
        require_user(user_id)
        with self.transaction():
            for ref in refs:
                session_id, _, turn = ref.partition(":")
                self.con.execute(
                    "UPDATE turns SET tombstoned = TRUE, tombstone_reason = ?"
                    " WHERE user_id = ? AND session_id = ? AND turn = ?",
                    [reason, user_id, session_id, int(turn)])
                self.log(user_id, "TOMBSTONE", source=ref, actor=actor, reason=reason)

    # -- notes layer --------------------------------------------------------------------
    def next_memory_id(self) -> str:
        return f"m{self.con.execute('SELECT nextval(?)', ['memory_seq']).fetchone()[0]}"

    def insert_memory(self, memory: Memory) -> None:
        require_user(memory.user_id)
        values = [getattr(memory, c) for c in MEMORY_COLUMNS]
        self.con.execute(
            f"INSERT INTO memories ({', '.join(MEMORY_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in MEMORY_COLUMNS)})", values)
        self.add_source(memory.user_id, memory.id, memory.source_session_id, memory.source_turn)

    def add_source(self, user_id: str, memory_id: str, session_id: str, turn: int) -> None:
        self.con.execute("INSERT OR IGNORE INTO memory_sources VALUES (?, ?, ?, ?)",
                         [user_id, memory_id, session_id, turn])

    def sources(self, user_id: str, memory_id: str) -> list[str]:
        """Every transcript turn a memory was drawn from (its own plus merged duplicates)."""
        require_user(user_id)
        rows = self.con.execute(
            "SELECT session_id, turn FROM memory_sources WHERE user_id = ? AND memory_id = ?"
            " ORDER BY session_id, turn", [user_id, memory_id]).fetchall()
        return [f"{s}:{t}" for s, t in rows]

    def get_memory(self, user_id: str, memory_id: str) -> Memory:
        require_user(user_id)
        rows = self._rows("SELECT * FROM memories WHERE user_id = ? AND id = ?",
                          [user_id, memory_id])
        if not rows:
            raise NotFoundError(
                f"no memory {memory_id!r} for user {user_id!r}; list them with "
                f"`memlab memories --user {user_id} --status all`")
        return _memory(rows[0])

    def memories(self, user_id: str, status: str | list[str] | None = "active") -> list[Memory]:
        """The user's memories with the given status(es); ``None`` or ``"all"`` means all."""
        require_user(user_id)
        sql, params = "SELECT * FROM memories WHERE user_id = ?", [user_id]
        if status not in (None, "all"):
            statuses = [status] if isinstance(status, str) else list(status)
            sql += f" AND status IN ({', '.join('?' for _ in statuses)})"
            params += statuses
        rows = self._rows(sql + " ORDER BY CAST(substr(id, 2) AS INTEGER)", params)
        return [_memory(r) for r in rows]

    def set_status(self, user_id: str, memory_id: str, status: str, *,
                   superseded_by: str | None = None, valid_to: datetime | None = None) -> None:
        require_user(user_id)
        self.con.execute(
            "UPDATE memories SET status = ?, superseded_by = coalesce(?, superseded_by),"
            " valid_to = coalesce(?, valid_to) WHERE user_id = ? AND id = ?",
            [status, superseded_by, valid_to, user_id, memory_id])

    def redact_memory(self, user_id: str, memory_id: str) -> None:
        """Delete a memory's content everywhere in the notes layer; keep the id as a stub."""
        require_user(user_id)
        self.con.execute(
            "UPDATE memories SET status = 'deleted', content = '', value = NULL, evidence = ''"
            " WHERE user_id = ? AND id = ?", [user_id, memory_id])

    # -- retrieval index ----------------------------------------------------------------
    def put_vector(self, user_id: str, memory_id: str, model: str, vector: np.ndarray) -> None:
        require_user(user_id)
        self.con.execute("INSERT OR REPLACE INTO memory_vectors VALUES (?, ?, ?, ?)",
                         [memory_id, user_id, model, vector.astype(float).tolist()])

    def delete_vectors(self, user_id: str, memory_ids: list[str]) -> None:
        require_user(user_id)
        for memory_id in memory_ids:
            self.con.execute("DELETE FROM memory_vectors WHERE user_id = ? AND memory_id = ?",
                             [user_id, memory_id])

    def vector_ids(self, user_id: str) -> list[str]:
        require_user(user_id)
        return [r[0] for r in self.con.execute(
            "SELECT memory_id FROM memory_vectors WHERE user_id = ?"
            " ORDER BY CAST(substr(memory_id, 2) AS INTEGER)",
            [user_id]).fetchall()]

    def similar(self, user_id: str, model: str, query: np.ndarray,
                statuses: tuple[str, ...] = ("active",), trusted_only: bool = True) -> list[tuple]:
        """(memory, cosine) for the user's memories, best first.

        The user filter sits in the WHERE clause, so ranking only ever sees this user's
        rows (filter-then-rank; never rank-then-filter).
        """
        require_user(user_id)
        placeholders = ", ".join("?" for _ in statuses)
        rows = self._rows(
            "SELECT m.*, list_cosine_similarity(v.vector, ?::FLOAT[]) AS score"
            " FROM memories m JOIN memory_vectors v ON v.memory_id = m.id"
            " WHERE m.user_id = ? AND v.user_id = ? AND v.model = ?"
            f" AND m.status IN ({placeholders})"
            + (" AND m.source_trusted" if trusted_only else "")
            + " ORDER BY score DESC, m.id",
            [query.astype(float).tolist(), user_id, user_id, model, *statuses])
        return [(_memory(r), float(r["score"])) for r in rows]

    def cached_embed(self, embedder, texts: list[str], kind: str = "passage") -> np.ndarray:
        """Embed texts, reusing vectors cached by (model, text hash) so reruns don't recompute."""
        hashes = [text_hash(t) for t in texts]
        found: dict[str, list[float]] = {}
        if hashes:
            rows = self.con.execute(
                "SELECT text_hash, vector FROM embedding_cache WHERE model = ? AND kind = ?"
                " AND list_contains(?::VARCHAR[], text_hash)",
                [embedder.name, kind, hashes]).fetchall()
            found = {h: v for h, v in rows}
        missing = [i for i, h in enumerate(hashes) if h not in found]
        if missing:
            fresh = embedder.embed([texts[i] for i in missing], kind=kind)
            for i, vector in zip(missing, fresh, strict=True):
                found[hashes[i]] = vector.tolist()
                self.con.execute("INSERT OR IGNORE INTO embedding_cache VALUES (?, ?, ?, ?)",
                                 [embedder.name, hashes[i], kind, vector.astype(float).tolist()])
        return np.asarray([found[h] for h in hashes], dtype=np.float32).reshape(
            len(texts), embedder.dim)

    def forget_cached(self, texts: list[str]) -> None:
        """Drop cached vectors of deleted texts (an embedding is a copy of its text)."""
        for t in texts:
            self.con.execute("DELETE FROM embedding_cache WHERE text_hash = ?", [text_hash(t)])

    # -- representations and injected context -------------------------------------------
    def set_page(self, user_id: str, page: str, lines: list[tuple[str, list[str]]]) -> None:
        require_user(user_id)
        self.con.execute("DELETE FROM pages WHERE user_id = ? AND page = ?", [user_id, page])
        for i, (text, ids) in enumerate(lines, start=1):
            self.con.execute("INSERT INTO pages VALUES (?, ?, ?, ?, ?)", [user_id, page, i, text, ids])

    def page(self, user_id: str, page: str | None = None) -> pd.DataFrame:
        require_user(user_id)
        sql = "SELECT page, line_no, text, memory_ids FROM pages WHERE user_id = ?"
        params: list = [user_id]
        if page:
            sql += " AND page = ?"
            params.append(page)
        return self._frame(sql + " ORDER BY page, line_no", params)

    def set_injected(self, user_id: str, lines: list[tuple[str, list[str], int]]) -> None:
        require_user(user_id)
        self.con.execute("DELETE FROM injected WHERE user_id = ?", [user_id])
        for i, (text, ids, tokens) in enumerate(lines, start=1):
            self.con.execute("INSERT INTO injected VALUES (?, ?, ?, ?, ?)",
                             [user_id, i, text, ids, tokens])

    def injected(self, user_id: str) -> pd.DataFrame:
        require_user(user_id)
        return self._frame(
            "SELECT line_no, text, memory_ids, tokens FROM injected WHERE user_id = ?"
            " ORDER BY line_no", [user_id])

    # -- audit log ----------------------------------------------------------------------
    def log(self, user_id: str, op: str, *, memory_id: str | None = None,
            target_id: str | None = None, source: str | None = None, actor: str = "system",
            reason: str = "", at: datetime | None = None) -> None:
        """Append an event. Callers pass reasons, never a deleted memory's content."""
        require_user(user_id)
        event_id = self.con.execute("SELECT nextval('event_seq')").fetchone()[0]
        self.con.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [event_id, user_id, at or clock.now(), op, memory_id, target_id,
                          source, actor, reason])

    def redact_events(self, user_id: str, texts: list[str]) -> None:
        """Cut deleted texts out of event reasons: an LLM's free-text reason ("moved to
        Tokyo") may quote what a deletion must remove. Ops, ids and times stay."""
        require_user(user_id)
        for text in sorted({t for t in texts if t and len(t) >= 2}, key=len, reverse=True):
            self.con.execute(
                "UPDATE events SET reason = replace(reason, ?, '[deleted]')"
                " WHERE user_id = ? AND contains(reason, ?)", [text, user_id, text])

    def events(self, user_id: str) -> pd.DataFrame:
        require_user(user_id)
        return self._frame(
            "SELECT id, logged_at, op, memory_id, target_id, source, actor, reason FROM events"
            " WHERE user_id = ? ORDER BY id", [user_id])


def _turn(row: dict) -> Turn:
    attachment = None
    if row["attachment_kind"]:
        attachment = {"kind": row["attachment_kind"], "title": row["attachment_title"] or "",
                      "text": row["attachment_text"] or ""}
    return Turn(session_id=row["session_id"], user_id=row["user_id"], turn=row["turn"],
                role=row["role"], text=row["text"], name=row["name"], attachment=attachment,
                at=row["spoken_at"])


def _memory(row: dict) -> Memory:
    return Memory(**{c: row[c] for c in MEMORY_COLUMNS})
