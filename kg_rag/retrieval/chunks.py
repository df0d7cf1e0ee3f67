"""The chunks route: hybrid vector + BM25 search at a granularity, with small-to-big."""

from __future__ import annotations

from collections.abc import Sequence

from rank_bm25 import BM25Okapi

from kg_rag.models import ChunkHit, ChunkLevel, Evidence, Granularity
from kg_rag.stores._chunk_search import Candidate, fuse
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.text import bm25_tokens

__all__ = ["ChunkRetriever", "hits_to_evidence", "levels_for", "rescore_pool"]


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


def rescore_pool(
    store: LanceChunkStore, query: str, pool: Sequence[Evidence], granularity: Granularity
) -> list[Evidence]:
    """``pool`` ranked for ``query`` as a hybrid search would rank it, without searching the
    corpus: a step of a question rescores what the whole question and the graph already found.

    Dense: a piece's best stored sentence against the query (exact cosine over the documents'
    cached sentence vectors, which the reader reads next anyway); BM25 over the pool's own
    texts; fused by the store's own fusion (:func:`kg_rag.stores._chunk_search.fuse`, ranked by
    ``store.fusion``, as :meth:`LanceChunkStore.search` ranks). At ``sentence``
    granularity each piece carries its best sentence as the hit (``hit_start``/``hit_end``),
    as small-to-big expansion does.
    """
    pieces = list({e.chunk_id: e for e in pool}.values())
    if not pieces:
        return []
    sims = store.sentence_similarity(query, sorted({e.doc_id for e in pieces}))
    dense: list[float] = []
    best: list[tuple[int, int] | None] = []
    for e in pieces:
        inside = [
            (s, a, b) for a, b, s in sims.get(e.doc_id, []) if a >= e.char_start and b <= e.char_end
        ]
        top = max(inside, key=lambda t: (t[0], -t[1]), default=None)  # ties: the first
        dense.append(top[0] if top else 0.0)
        best.append((top[1], top[2]) if top else None)
    terms = bm25_tokens(query)
    sparse = (
        [
            float(x)
            for x in BM25Okapi([bm25_tokens(e.text) or [""] for e in pieces]).get_scores(terms)
        ]
        if terms
        else [0.0] * len(pieces)
    )
    fused = {
        e.chunk_id: {"dense": d, "bm25": b} for e, d, b in zip(pieces, dense, sparse, strict=True)
    }

    def ranked(method: str) -> list[Candidate]:
        order = sorted(fused, key=lambda cid: (-fused[cid][method], cid))
        return [({"chunk_id": cid}, fused[cid][method]) for cid in order]

    fuse(
        ranked("dense"),
        ranked("bm25"),
        fused,
        rrf_k=store.settings.rrf_k,
        dense_weight=store.query_dense_weight(query),
    )
    out: list[Evidence] = []
    for e, hit in zip(pieces, best, strict=True):
        scores = {**e.scores, **fused[e.chunk_id]}
        if granularity == "sentence" and hit is not None:
            scores["hit_start"], scores["hit_end"] = float(hit[0]), float(hit[1])
        score = scores[store.fusion]
        out.append(e.model_copy(update={"score": score, "scores": scores, "route": "chunks"}))
    return sorted(out, key=lambda e: (-e.score, e.chunk_id))
