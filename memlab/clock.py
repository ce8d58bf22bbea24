"""A clock notebooks and tests can freeze, so every timestamp they print is reproducible.

    >>> from memlab import clock
    >>> with clock.frozen("2026-05-10T09:00:00+08:00"):
    ...     clock.now().isoformat()
    '2026-05-10T09:00:00+08:00'
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_frozen: datetime | None = None


def _parse(at: datetime | str) -> datetime:
    value = datetime.fromisoformat(at) if isinstance(at, str) else at
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def now() -> datetime:
    """The current time: the frozen time if set (or MEMLAB_FROZEN_CLOCK), else the wall clock."""
    if _frozen is not None:
        return _frozen
    env = os.environ.get("MEMLAB_FROZEN_CLOCK")
    return _parse(env) if env else datetime.now(UTC)


def freeze(at: datetime | str) -> datetime:
    """Freeze `now()` at `at` until `unfreeze()`; returns the frozen time."""
    global _frozen
    _frozen = _parse(at)
    return _frozen


def unfreeze() -> None:
    """Return to the wall clock."""
    global _frozen
    _frozen = None


@contextmanager
def frozen(at: datetime | str) -> Iterator[datetime]:
    """Freeze the clock for the duration of a `with` block."""
    global _frozen
    previous = _frozen
    try:
        yield freeze(at)
    finally:
        _frozen = previous
