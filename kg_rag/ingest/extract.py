"""Entity and relation extraction as executor batches (:mod:`kg_rag.ingest.executor`).

The offline extractor reads each chunk on its own, so extracting the chunks of an ingest in
batches of ``chunks_per_task`` (Ray) or all at once (in this process) gives the same
extractions in the same order. Resolution against the stored entities and every graph
write stay with the one writer (:meth:`kg_rag.graph_build.GraphBuilder.update_graph`).

LLM extraction is not split here: its calls wait on the network, not on this machine's
CPUs, and it shares one response cache, one token budget and one usage count per ingest, so
it runs in the writer's process with ``extraction.concurrency`` calls in flight whichever
executor is configured.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kg_rag.ingest.executor import Executor, batch_key

__all__ = ["extract_offline"]


@dataclass
class _OfflineContext:
    entity_types: list[str]
    show_progress: bool


def offline_extract_stage(ctx: _OfflineContext, batch: list[Any]) -> list[Any]:
    """Offline extraction of one batch of ``ChunkInput`` (same order)."""
    from extraction.offline import OfflineExtractor

    extractor = OfflineExtractor(entity_types=ctx.entity_types, show_progress=ctx.show_progress)
    return list(extractor.extract(batch))


def _batches(inputs: Sequence[Any], size: int | None) -> Iterator[list[Any]]:
    if size is None:
        yield list(inputs)
        return
    for start in range(0, len(inputs), size):
        yield list(inputs[start : start + size])


def extract_offline(
    executor: Executor, inputs: Sequence[Any], entity_types: Sequence[str]
) -> list[Any]:
    """Offline extractions of ``inputs`` (``extraction.schema.ChunkInput``), in order, run
    by ``executor`` in batches of its ``chunks_per_task``."""
    if not inputs:
        return []
    ctx = _OfflineContext(entity_types=list(entity_types), show_progress=executor.name == "local")
    out: list[Any] = []
    for part in executor.map(
        offline_extract_stage,
        _batches(inputs, executor.chunks_per_task),
        context=ctx,
        keys=lambda batch: batch_key(*(c.chunk_id for c in batch)),
    ):
        out.extend(part)
    return out
