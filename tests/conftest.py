"""Shared fixtures: the 小林 dataset ingested up to s6 and to the end, in memory."""

from __future__ import annotations

import os
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["MEMLAB_BACKEND"] = "offline"  # tests that need the LLM path set it themselves

from memlab import clock  # noqa: E402
from memlab.datasets import load_dataset  # noqa: E402
from memlab.pipeline import ingest  # noqa: E402
from memlab.store import Store  # noqa: E402
from tests.fake_openai import fake_openai_server  # noqa: E402,F401  (the `fake_openai` fixture)

TAIPEI = ZoneInfo("Asia/Taipei")


@pytest.fixture(autouse=True)
def _wall_clock_after_each_test():
    """A test that freezes the clock and forgets to unfreeze it must not leak into others."""
    yield
    clock.unfreeze()
    os.environ.pop("MEMLAB_FROZEN_CLOCK", None)


@pytest.fixture(scope="session")
def xiaolin():
    return load_dataset("data/xiaolin")


@pytest.fixture(scope="session")
def lab():
    """The required lab's dataset (data/lab), loaded once."""
    return load_dataset("data/lab")


@pytest.fixture
def after_s6(xiaolin):
    """小林's store after s6 (2026-04-20), the state of the chapter's memory table."""
    store = Store()
    ingest(store, xiaolin, until=datetime(2026, 4, 21, tzinfo=TAIPEI))
    yield store
    store.close()


@pytest.fixture
def after_s8(xiaolin):
    """The store after every session, s8's deletion request included."""
    store = Store()
    report = ingest(store, xiaolin)
    store.report = report
    yield store
    store.close()


@pytest.fixture
def llm_env(monkeypatch, fake_openai):
    """LLM settings pointing at the scripted OpenAI-compatible server on 127.0.0.1.

    The backend stays as the test sets it (tests pass backend="openai" where they mean it).
    """
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("MEMLAB_MODEL", "fake-model")
    monkeypatch.setenv("MEMLAB_LLM_TIMEOUT", "5")
    monkeypatch.setenv("MEMLAB_LLM_RETRIES", "2")
    return fake_openai
