"""The full LLM answer path over HTTP against the real llama.cpp test server.

The server runs a 270M *base* model: its plans, routes and answers are junk, so quality is not
asserted — only that every LLM stage is reached over HTTP, that tokens and calls are counted,
that the answer comes back valid (cited, or flagged) within its budget, and that whatever the
model got wrong is recorded as a fallback in the trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kg_rag.config import EmbeddingSettings, LLMSettings, RouterSettings, Settings
from kg_rag.demo import DEMO_QUESTIONS, corpus_path
from kg_rag.engine import KnowledgeEngine
from kg_rag.llm import build_chat_model
from kg_rag.testing import HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.llm]

MAX_CALLS = 6


@pytest.fixture(scope="module")
def llm_engine(
    llm_base_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KnowledgeEngine]:
    """The demo corpus (offline extraction, to keep ingest fast) with the real chat model."""
    model = build_chat_model(LLMSettings(base_url=llm_base_url, model="local", max_tokens=96))
    settings = Settings(
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=256),
        router=RouterSettings(max_llm_calls=MAX_CALLS, max_retries=1),
    )
    settings.extraction.mode = "offline"
    kb: Path = tmp_path_factory.mktemp("llm") / "kb"
    kg = KnowledgeEngine.open(
        kb, settings=settings, llm=model, embedder=HashEmbeddings(256), progress=False
    )
    report = kg.ingest([corpus_path()])
    assert report.graph.extractor == "offline" and report.graph.llm_calls == 0
    assert report.communities.llm_calls == 0, "offline extraction mode keeps ingest off the LLM"
    yield kg
    kg.close()


def test_ask_runs_every_stage_through_the_real_server(llm_engine: KnowledgeEngine) -> None:
    question = DEMO_QUESTIONS[2]
    answer = llm_engine.ask(question)
    trace = answer.trace

    # The model was really called over HTTP, and accounted for.
    assert 0 < trace.llm_calls <= MAX_CALLS
    assert trace.prompt_tokens > 0 and trace.completion_tokens > 0

    # Who planned and who routed is recorded; any fallback says why.
    plan = trace.plan
    assert plan is not None and plan.planner in {"llm", "rules"} and plan.steps
    stages = {"gate", "planner", "router", "reader", "rewriter", "synthesizer", "reflector"}
    for fallback in trace.fallbacks:  # every fallback names its stage and says why
        assert fallback.stage in stages and fallback.error and fallback.message, fallback
    if plan.planner == "rules":
        assert any(f.stage == "planner" for f in trace.fallbacks), trace.fallbacks
    assert trace.steps, "at least the first step ran"
    for step in trace.steps:
        assert step.decision.router in {"llm", "rules"} and step.decision.reason
        assert step.attempts and step.grades
    if answer.truncated:
        assert trace.truncated and any("cap" in note for note in trace.notes), (
            trace.notes,
            trace.fallbacks,
            trace.llm_calls,
        )

    # A valid answer: text, and every [n] either maps to a citation or was flagged.
    assert answer.text.strip()
    assert (
        answer.citations
        or answer.unsupported_citations
        or answer.text == "No answer found in the knowledge base."
    )
    evidence_ids = {e.chunk_id for e in answer.evidence}
    for c in answer.citations:
        assert f"[{c.n}]" in answer.text
        assert c.chunk_id in evidence_ids
        if not c.doc_id.startswith("community:"):
            document = llm_engine.chunk_store.get_document(c.doc_id)
            assert document is not None and document.text[c.char_start : c.char_end] == c.quote
    again = type(answer).model_validate_json(answer.to_json())
    assert again.trace.llm_calls == trace.llm_calls
