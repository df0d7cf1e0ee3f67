"""Fusion of evidence lists: the whole-question ranking (hybrid + graph PPR) and the final
ranking (the whole-question ranking + the chunks the answer cites)."""

from __future__ import annotations

from collections.abc import Sequence

from kg_rag.models import Evidence

__all__ = ["fuse", "fuse_final", "fuse_whole_question"]

_GRAPH_WEIGHT = 0.5
_CITED_WEIGHT = 2.0


def fuse(lists: Sequence[tuple[Sequence[Evidence], float]], k: int = 60) -> list[Evidence]:
    """Weighted reciprocal-rank fusion of evidence lists (by chunk id)."""
    scores: dict[str, float] = {}
    best: dict[str, Evidence] = {}
    for evidence, weight in lists:
        for rank, ev in enumerate(evidence):
            scores[ev.chunk_id] = scores.get(ev.chunk_id, 0.0) + weight / (k + rank + 1)
            prev = best.get(ev.chunk_id)
            if prev is None:
                best[ev.chunk_id] = ev
            else:
                merged = sorted(set(prev.entity_ids) | set(ev.entity_ids))
                best[ev.chunk_id] = prev.model_copy(
                    update={"entity_ids": merged, "scores": {**ev.scores, **prev.scores}}
                )
    order = sorted(scores, key=lambda c: (-scores[c], c))
    return [best[c].model_copy(update={"score": round(scores[c], 8)}) for c in order]


def fuse_whole_question(hybrid: Sequence[Evidence], ppr: Sequence[Evidence]) -> list[Evidence]:
    """The whole-question ranking from the hybrid chunk search and the graph PPR chunks."""
    return fuse([(hybrid, 1.0), (ppr, _GRAPH_WEIGHT)])


def fuse_final(whole: Sequence[Evidence], cited: Sequence[Evidence]) -> list[Evidence]:
    """The answer's evidence: the whole-question ranking fused with the chunks it cites."""
    return fuse([(whole, 1.0), (cited, _CITED_WEIGHT)])
