"""The DuckDB store: user scope on every read, transactions, redaction, the embedding cache."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memlab import consolidate
from memlab.embed import BigramEmbedder
from memlab.errors import NotFoundError, ScopeError
from memlab.store import Store
from memlab.types import Candidate, Memory

AT = datetime(2026, 3, 2, 9, tzinfo=UTC)


def memory(store: Store, user_id: str, content: str, **kw) -> Memory:
    m = Memory(id=store.next_memory_id(), user_id=user_id, content=content, type="semantic",
               source_session_id="s1", source_turn=1, created_at=AT, confidence="high",
               source_trusted=True, valid_from=AT, **kw)
    store.insert_memory(m)
    return m


@pytest.mark.parametrize("bad", [None, "", "   ", 17])
def test_every_read_refuses_a_missing_user(bad):
    store = Store()
    for read in (store.memories, store.turns, store.events, store.injected, store.page,
                 store.vector_ids, store.tombstoned_refs, store.session_ids):
        with pytest.raises(ScopeError, match="user_id is required"):
            read(bad)
    with pytest.raises(ScopeError):
        store.similar(bad, "m", np.ones(3))


def test_reads_never_cross_users():
    store = Store()
    a, b = memory(store, "u_a", "A 的秘密"), memory(store, "u_b", "B 的秘密")
    for m in (a, b):
        store.put_vector(m.user_id, m.id, "bg", np.ones(4))
    assert [m.id for m in store.memories("u_a")] == [a.id]
    assert [m.id for m, _ in store.similar("u_b", "bg", np.ones(4))] == [b.id]
    with pytest.raises(NotFoundError):
        store.get_memory("u_b", a.id)  # knowing another user's id is not enough


def test_every_memory_read_filters_on_user_in_sql():
    """A static check: each SELECT from a memory table in store.py names user_id in WHERE."""
    source = Path("memlab/store.py").read_text()
    selects = re.findall(r'"SELECT .*?(?:"\)|"\s*\n\s*"[^"]*")', source, flags=re.S)
    memory_tables = ("memories", "memory_vectors", "turns", "pages", "injected", "events",
                     "memory_sources")
    for sql in re.findall(r'SELECT[^;]*?FROM (\w+)([^)]*)', source):
        table, rest = sql
        if table in memory_tables:
            assert "user_id = ?" in rest, f"unscoped read of {table}: {rest[:80]}"
    assert selects  # the regex really found the SQL


def test_a_failed_write_leaves_the_store_as_it_was():
    store = Store()
    memory(store, "u", "before")
    with pytest.raises(RuntimeError), store.transaction():
        memory(store, "u", "half-written")
        store.log("u", "ADD", reason="about to fail")
        raise RuntimeError("boom")
    assert [m.content for m in store.memories("u")] == ["before"]
    assert store.events("u").empty


def test_apply_is_atomic():
    store, embedder = Store(), BigramEmbedder()
    good = Candidate(user_id="u", content="住在台中", type="semantic", key="home_city", value="台中",
                     source_session_id="s1", source_turn=1, created_at=AT, confidence="high",
                     source_trusted=True)
    ops = consolidate.plan(store, "u", [good, good.model_copy(update={"content": "x"})], embedder)
    ops[1] = ops[1].model_copy(update={"op": "SUPERSEDE", "target_id": "m404"})
    with pytest.raises(NotFoundError, match="m404"):
        consolidate.apply(store, "u", ops, embedder)
    assert store.memories("u", status="all") == [] and store.vector_ids("u") == []


def test_redaction_keeps_id_and_drops_content():
    store = Store()
    m = memory(store, "u", "在台北上班", evidence="我在台北上班")
    store.redact_memory("u", m.id)
    kept = store.get_memory("u", m.id)
    assert (kept.status, kept.content, kept.evidence, kept.value) == ("deleted", "", "", None)


def test_embedding_cache_reuses_vectors(monkeypatch):
    store, embedder = Store(), BigramEmbedder()
    first = store.cached_embed(embedder, ["我在台北上班", "today"])
    calls = []
    monkeypatch.setattr(embedder, "embed", lambda texts, kind="passage": calls.append(texts))
    again = store.cached_embed(embedder, ["today", "我在台北上班"])
    assert calls == [] and np.allclose(again[::-1], first)
    store.forget_cached(["today"])
    count = store.con.execute("SELECT count(*) FROM embedding_cache").fetchone()[0]
    assert count == 1


def test_file_store_persists(tmp_path):
    path = tmp_path / "m.duckdb"
    with Store(path) as store:
        memory(store, "u", "persisted")
    with Store(path) as store:
        assert [m.content for m in store.memories("u")] == ["persisted"]
        assert store.next_memory_id() == "m2"  # ids keep counting across sessions
