"""What the pipeline hands its answer model: answer_context (fused, focused, reranked) and
pack_context (cut to the token budget), on the demo knowledge base."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kg_rag.answer.trace import Answer
from kg_rag.engine import KnowledgeEngine
from kg_rag.retrieval.packing import context_tokens


@pytest.mark.parametrize("budget", [48, 256, 1024])
def test_routed_context_is_a_reordering_packed_within_budget(
    demo_engine: KnowledgeEngine, demo_answers: dict[str, Answer], budget: int
) -> None:
    pipeline = demo_engine.pipeline
    for question, answer in demo_answers.items():
        trace = answer.trace
        context = pipeline.answer_context(trace)
        pool = {e.chunk_id for e in trace.whole_question.hits} if trace.whole_question else set()
        pool |= {e.chunk_id for st in trace.steps for e in st.hits}
        assert {e.chunk_id for e in context} == pool, question  # rerank only reorders
        if pool:
            assert any("focus" in e.scores for e in context), question
        packed = pipeline.pack_context(context, budget)
        assert context_tokens(packed) <= budget
        assert packed or not pool
        for ev in packed:  # every handed piece is a span of its chunk's document text
            source = next(e for e in context if e.chunk_id == ev.chunk_id)
            if source.char_end > source.char_start:
                assert ev.char_start >= 0 and ev.char_end > ev.char_start


def test_fixed_granularity_hands_whole_pieces(
    demo_kb: Path,
    engine_with: Callable[..., KnowledgeEngine],
    demo_answers: dict[str, Answer],
) -> None:
    kg = engine_with(demo_kb, fixed_granularity="paragraph")
    for answer in demo_answers.values():
        context = kg.pipeline.answer_context(answer.trace)
        assert not any("focus" in e.scores for e in context)
        packed = kg.pipeline.pack_context(context, 4096)
        assert all(e.level != "sentence" for e in packed)


def test_small_budget_hands_sentences_when_routed(
    demo_engine: KnowledgeEngine, demo_answers: dict[str, Answer]
) -> None:
    levels = {
        e.level
        for answer in demo_answers.values()
        for e in demo_engine.pipeline.pack_context(
            demo_engine.pipeline.answer_context(answer.trace), 64
        )
    }
    assert "sentence" in levels
