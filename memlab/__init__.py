"""memlab: a small long-term memory system for LLM agents, for teaching (course chapter S13).

Offline by default (no key, no network); set MEMLAB_BACKEND=openai to use an LLM.

    >>> import memlab
    >>> store = memlab.Store()                       # DuckDB in memory
    >>> report = memlab.ingest(store, memlab.load_dataset("xiaolin"))
    >>> [m.id for m in store.memories("u_017")]      # every read names its user
    ['m1', 'm3', 'm5']
"""

from __future__ import annotations

__version__ = "0.1.0"

from memlab.check import check
from memlab.datasets import load_dataset
from memlab.pipeline import dream, ingest
from memlab.store import Store

__all__ = ["Store", "__version__", "check", "dream", "ingest", "load_dataset", "require"]


def require(version: str) -> None:
    """Warn when a notebook written for memlab `version` runs on another major.minor."""
    want, have = version.split(".")[:2], __version__.split(".")[:2]
    if want != have:
        import warnings

        warnings.warn(f"this notebook was written for memlab {version}; installed is "
                      f"{__version__}. Run `make lab` again to reinstall.", stacklevel=2)
    else:
        print(f"memlab {__version__} ✓")
