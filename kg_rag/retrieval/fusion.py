"""Fusion of evidence lists: the whole-question ranking (hybrid chunk search + graph PPR) and
the final ranking (whole-question ranking + the chunks the answer cites).

Pure functions over :class:`~kg_rag.models.Evidence` lists, keyed by chunk id; no store, no
I/O. The constants below hold for both shared dev sets at once (musique-dev: 100 questions,
1,890 passages; 2wiki-dev: 100 questions, 6,119 passages), measured with
``bench/fusion_tune.py`` and ``bench/retrieval.py`` (R@5 of passages).
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_rag.models import Evidence

__all__ = [
    "GRAPH_WEIGHT",
    "WHOLE_LIST",
    "WHOLE_RRF_K",
    "fuse_final",
    "fuse_whole_question",
    "rrf",
]

# bench/retrieval.py with these constants (R@5 musique-dev / 2wiki-dev): engine_fast .740 /
# .812, engine .731 / .802; hybrid .630 / .632, ppr .657 / .805. The grid figures below come
# from bench/fusion_tune.py's pickled lists (hybrid fetched 100 deep, so its min-max scores
# differ slightly from the engine's 50: 2wiki .815 there vs .812 in the bench).
# R@5 below is musique-dev / 2wiki-dev, `engine_fast` unless said; the best single component
# in the same runs (bench `ppr` after the seed weighting of kg_rag/retrieval/graph.py) is
# .657 / .805. Grid: bench/fusion_tune.py; RRF k ∈ {1,2,5,10,20,30,60}, PPR weight ∈ {0.7 … 2.5},
# lists of 10 … 100, max-normalised / min-max / z-score sums, interleaving.
# Share of a PPR rank against a hybrid rank: k1 w1.5 .769/.802, w1.75 .745/.807, w2 .740/.815,
# w2.5 .730/.818. 2 keeps musique above .73 and gives 2wiki the most.
GRAPH_WEIGHT = 2.0
# RRF's k: a small k lets the top of each list count (k60 w2: .722/.812; k5: .715/.820; k1:
# .740/.815); k60 with weight 0.5 (the former constants) was .712/.713 before the seed fix.
WHOLE_RRF_K = 1
# Hits taken from each list: at k=1 the tail hardly matters (20 … 100: .740/.815 at w2).
WHOLE_LIST = 50
# The final ranking (engine) must hold every cited chunk within the caller's top_k (the
# engine's contract: retrieve() returns what the answer is built on), so it cannot simply keep
# the whole-question top 5. fuse_final fills top_k with the new cited chunks and the head of
# the whole-question ranking: R@5 .733/.802 (R@2 .507/.672 = engine_fast's). Cited chunks on
# top (the former RRF k60, weight 2): .737/.802 but R@2 .456/.630; the whole-question top 5
# kept and cited after it: .740/.815, but then an answer may cite what retrieve() omits.


def _merge(prev: Evidence, ev: Evidence) -> Evidence:
    """One chunk seen in two lists: keep the first, union entity ids and per-method scores."""
    merged = sorted(set(prev.entity_ids) | set(ev.entity_ids))
    return prev.model_copy(update={"entity_ids": merged, "scores": {**ev.scores, **prev.scores}})


def _ranked(scores: dict[str, float], best: dict[str, Evidence]) -> list[Evidence]:
    order = sorted(scores, key=lambda c: (-scores[c], c))
    return [best[c].model_copy(update={"score": round(scores[c], 8)}) for c in order]


def rrf(lists: Sequence[tuple[Sequence[Evidence], float]], k: int = 60) -> list[Evidence]:
    """Weighted reciprocal-rank fusion: a chunk scores Σ weight / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    best: dict[str, Evidence] = {}
    for evidence, weight in lists:
        for rank, ev in enumerate(evidence):
            scores[ev.chunk_id] = scores.get(ev.chunk_id, 0.0) + weight / (k + rank + 1)
            best[ev.chunk_id] = _merge(best[ev.chunk_id], ev) if ev.chunk_id in best else ev
    return _ranked(scores, best)


def fuse_whole_question(
    hybrid: Sequence[Evidence],
    ppr: Sequence[Evidence],
    *,
    graph_weight: float = GRAPH_WEIGHT,
    k: int = WHOLE_RRF_K,
    size: int = WHOLE_LIST,
) -> list[Evidence]:
    """The whole-question ranking: hybrid chunk hits and PPR-ranked graph chunks, fused by
    weighted RRF with a small ``k`` (the first ranks of each list decide; a chunk in both
    lists rises). Without PPR hits the hybrid ranking is returned unchanged."""
    if not ppr:
        return list(hybrid)
    return rrf([(hybrid[:size], 1.0), (ppr[:size], graph_weight)], k)


def fuse_final(whole: Sequence[Evidence], cited: Sequence[Evidence], top_k: int) -> list[Evidence]:
    """The answer's evidence: every cited chunk (it holds a step answer, e.g. a bridge entity
    the question never names) within the first ``top_k``, the rest of those places filled by
    the whole-question ranking in its own order, then the rest of that ranking.

    So the whole-question ranking loses only as many of its first ``top_k`` places as the
    answer cites chunks it did not rank there.
    """
    seen = {e.chunk_id for e in whole[:top_k]}
    added = [e for e in dict((e.chunk_id, e) for e in cited).values() if e.chunk_id not in seen]
    keep = max(0, top_k - len(added))
    head = list(whole[:keep])
    if not head:
        return sorted(added, key=lambda e: (-e.score, e.chunk_id))
    # A cited chunk takes the score of the last kept one, so scores stay non-increasing.
    floor = head[-1].score
    added = [e.model_copy(update={"score": floor}) for e in added]
    taken = {e.chunk_id for e in head} | {e.chunk_id for e in added}
    return head + added + [e for e in whole[keep:] if e.chunk_id not in taken]
