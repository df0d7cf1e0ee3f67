"""Candidate retrieval and fusion for :meth:`~kg_rag.stores.chunks.LanceChunkStore.search`.

Each candidate is ``(row, score)``: the chunk row (columns of ``CHUNK_COLUMNS``) and the
method's score (cosine similarity for dense, BM25 for full-text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg_rag.stores._chunk_tables import CHUNK_COLUMNS
from kg_rag.text import bm25_tokens

__all__ = ["Candidate", "bm25_candidates", "dense_candidates", "fuse"]

Candidate = tuple[dict[str, Any], float]


def dense_candidates(
    table: Any, vector: Sequence[float], where: str | None, limit: int, nprobes: int | None
) -> list[Candidate]:
    """Nearest chunks by cosine similarity (through the IVF-PQ index when ``nprobes``)."""
    query = table.search(list(vector), vector_column_name="vector").distance_type("cosine")
    if nprobes is not None:
        # refine_factor re-ranks 10x the candidates with the exact vectors: PQ distances
        # alone lose neighbours.
        query = query.nprobes(nprobes).refine_factor(10)
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select([*CHUNK_COLUMNS, "_distance"]).limit(limit).to_arrow().to_pylist()
    return [(r, 1.0 - float(r["_distance"])) for r in rows]


def bm25_candidates(table: Any, text: str, where: str | None, limit: int) -> list[Candidate]:
    """Best chunks by BM25 over the pre-tokenized ``tokens`` column (any of the words)."""
    tokens = bm25_tokens(text)
    if not tokens:
        return []
    from lancedb.query import FullTextOperator, MatchQuery

    match = MatchQuery(
        " ".join(tokens),
        "tokens",
        boost=1.0,
        fuzziness=0,
        max_expansions=50,
        operator=FullTextOperator.OR,
        prefix_length=0,
        document_granularity=None,
    )
    query = table.search(match, query_type="fts")
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select([*CHUNK_COLUMNS, "_score"]).limit(limit).to_arrow().to_pylist()
    return [(r, float(r["_score"])) for r in rows]


def fuse(
    dense: list[Candidate],
    sparse: list[Candidate],
    scores: dict[str, dict[str, float]],
    *,
    rrf_k: int,
    dense_weight: float,
) -> None:
    """Add ``rrf`` and ``relative`` fused scores to each candidate's score dict.

    ``rrf`` = Σ 1 / (k + rank). ``relative`` (relative-score fusion) min-max normalises each
    method's scores over its candidates and mixes them, ``dense_weight`` for dense and the
    rest for BM25; a candidate missing from one list gets 0 from it.
    """
    weights = {"dense": dense_weight, "bm25": 1.0 - dense_weight}
    for entry in scores.values():
        entry["rrf"] = 0.0
        entry["relative"] = 0.0
    for name, ranked in (("dense", dense), ("bm25", sparse)):
        if not ranked:
            continue
        values = [score for _, score in ranked]
        low, high = min(values), max(values)
        for rank, (row, score) in enumerate(ranked):
            entry = scores[row["chunk_id"]]
            entry["rrf"] += 1.0 / (rrf_k + rank + 1)
            normalised = (score - low) / (high - low) if high > low else 1.0
            entry["relative"] += weights[name] * normalised
