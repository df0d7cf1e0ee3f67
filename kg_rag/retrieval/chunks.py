"""The chunks route: hybrid vector + BM25 search at a granularity, with small-to-big."""

from __future__ import annotations

from collections.abc import Sequence

from kg_rag.models import ChunkHit, ChunkLevel, Evidence, Granularity
from kg_rag.stores.chunks import LanceChunkStore

__all__ = ["ChunkRetriever", "hits_to_evidence", "levels_for"]


def levels_for(granularity: Granularity) -> list[ChunkLevel]:
    """Chunk levels searched for a granularity (``mixed`` searches sentences and paragraphs)."""
    if granularity == "mixed":
        return ["paragraph", "sentence"]
    return [granularity]


def hits_to_evidence(hits: Sequence[ChunkHit], route: str = "chunks") -> list[Evidence]:
    """Evidence from hits; a sentence hit is expanded to its parent paragraph (small-to-big),
    and several hits in one paragraph keep the best score."""
    out: dict[str, Evidence] = {}
    for hit in hits:
        chunk = hit.parent if (hit.chunk.level == "sentence" and hit.parent) else hit.chunk
        scores = dict(hit.scores)
        if chunk is not hit.chunk:
            scores["hit_start"] = float(hit.chunk.char_start)
            scores["hit_end"] = float(hit.chunk.char_end)
        ev = Evidence(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            text=chunk.text,
            score=hit.score,
            level=chunk.level,
            char_start=chunk.char_start,
            char_end=chunk.char_end,
            source=chunk.metadata.get("source", chunk.doc_id),
            route=route,
            scores=scores,
        )
        if chunk.chunk_id not in out or out[chunk.chunk_id].score < ev.score:
            out[chunk.chunk_id] = ev
    return sorted(out.values(), key=lambda e: (-e.score, e.chunk_id))


class ChunkRetriever:
    """Hybrid chunk search over a :class:`LanceChunkStore`."""

    def __init__(self, store: LanceChunkStore, candidates: int = 50) -> None:
        self.store = store
        self.candidates = candidates

    def search(
        self,
        query: str,
        granularity: Granularity = "paragraph",
        top_k: int = 5,
        *,
        mode: str = "hybrid",
        doc_ids: Sequence[str] | None = None,
    ) -> list[Evidence]:
        """Evidence for ``query`` at ``granularity`` (sentences expand to paragraphs)."""
        levels = levels_for(granularity)
        hits = self.store.search(
            query,
            mode=mode,  # type: ignore[arg-type]
            level=levels,
            top_k=top_k * (3 if "sentence" in levels else 1),
            doc_ids=doc_ids,
            expand_parent="sentence" in levels,
            candidates=self.candidates,
        )
        return hits_to_evidence(hits)[:top_k]
