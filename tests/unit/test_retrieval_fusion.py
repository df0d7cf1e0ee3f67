"""Fusion of evidence lists (kg_rag.retrieval.fusion)."""

from __future__ import annotations

from kg_rag.models import Evidence
from kg_rag.retrieval.fusion import fuse_final, fuse_whole_question, rrf


def _ev(cid: str, score: float = 1.0, route: str = "chunks") -> Evidence:
    return Evidence(chunk_id=cid, doc_id=cid, text=cid, score=score, route=route)


def test_rrf_rewards_agreement_and_merges_provenance() -> None:
    a = [_ev("x"), _ev("y")]
    b = [_ev("y", route="graph").model_copy(update={"entity_ids": ["e1"]}), _ev("z")]
    fused = rrf([(a, 1.0), (b, 1.0)], k=60)
    assert fused[0].chunk_id == "y"
    assert fused[0].entity_ids == ["e1"]


def test_whole_question_without_ppr_is_the_hybrid_ranking() -> None:
    hybrid = [_ev("a"), _ev("b"), _ev("c")]
    assert [e.chunk_id for e in fuse_whole_question(hybrid, [])] == ["a", "b", "c"]


def test_whole_question_top_ppr_hit_leads_at_small_k() -> None:
    hybrid = [_ev("a"), _ev("b"), _ev("c")]
    ppr = [_ev("p", route="graph"), _ev("b", route="graph")]
    order = [e.chunk_id for e in fuse_whole_question(hybrid, ppr, graph_weight=2.0, k=1)]
    assert order[0] == "b"  # in both lists
    assert order[1] == "p"  # PPR's first outweighs hybrid's first at weight 2
    assert set(order) == {"a", "b", "c", "p"}


def test_final_puts_every_cited_chunk_within_top_k() -> None:
    whole = [_ev(c, score=1.0 - i / 10) for i, c in enumerate("abcdefg")]
    cited = [_ev("f"), _ev("b"), _ev("z"), _ev("z")]
    fused = fuse_final(whole, cited, top_k=4)
    # b is already in the first 4; f and z are not: two places go to them.
    assert [e.chunk_id for e in fused] == ["a", "b", "f", "z", "c", "d", "e", "g"]
    assert [e.score for e in fused] == sorted((e.score for e in fused), reverse=True)


def test_final_without_new_citations_is_the_whole_ranking() -> None:
    whole = [_ev(c) for c in "abc"]
    assert [e.chunk_id for e in fuse_final(whole, [_ev("b")], top_k=5)] == ["a", "b", "c"]
