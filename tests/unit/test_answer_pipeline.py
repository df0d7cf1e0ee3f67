"""The answer pipeline with a scripted chat model: the LLM stages run, every fallback is
recorded in the trace naming its stage, strict mode raises on an unexpected fallback, and the
question costs at most steps + 2 calls.

Every test runs the real pipeline on the demo knowledge base; only the chat model is fake
(:class:`~kg_rag.testing.FakeChatModel`, scripted by regular expressions on the prompts of
:mod:`kg_rag.answer.prompts`). Fallbacks raise unless a test expects them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_markers import PLAN, READ, ROUTE, SYNTH

from kg_rag.answer.stages import StageFallbackError
from kg_rag.answer.synthesizer import renumber_citations
from kg_rag.engine import KnowledgeEngine
from kg_rag.errors import LLMError
from kg_rag.models import Evidence
from kg_rag.retrieval.text2cypher import PROMPT as TEXT2CYPHER_PROMPT
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit

EngineFactory = Callable[..., KnowledgeEngine]


QUESTION = "Where is Brightwell Robotics headquartered?"


def plan_json(*queries: str) -> str:
    steps = [{"index": i + 1, "query": q} for i, q in enumerate(queries)]
    return json.dumps({"question": "q", "steps": steps})


def read_json(answer: str, grade: float = 0.9) -> str:
    return json.dumps({"answer": answer, "grade": grade, "evidence_numbers": [1], "reason": "s"})


def script(**over: Any) -> list[tuple[str, Any]]:
    entries = {
        PLAN: plan_json(QUESTION),
        ROUTE: json.dumps({"route": "chunks", "granularity": "paragraph", "reason": "scripted"}),
        READ: read_json("Eindhoven"),
        SYNTH: "Brightwell Robotics is headquartered in Eindhoven [1].",
    }
    entries.update(over)
    return list(entries.items())


def test_llm_stages_answer_without_fallbacks(demo_kb: Path, engine_with: EngineFactory) -> None:
    model = FakeChatModel(script=script())
    kg = engine_with(demo_kb, model, on_fallback="raise")
    answer = kg.ask(QUESTION)
    assert answer.trace.fallbacks == []
    assert answer.trace.steps[0].answer == "Eindhoven"
    assert answer.trace.steps[0].reader == "llm"
    assert "Eindhoven" in answer.text and answer.citations
    # plan + one read per step + synthesis
    assert answer.trace.llm_calls <= len(answer.trace.steps) + 2


@pytest.mark.parametrize(
    ("stage", "broken"),
    [
        ("planner", {PLAN: LLMError("planner down")}),
        ("planner", {PLAN: json.dumps({"question": "q", "steps": [{"index": 3, "query": "x"}]})}),
        ("reader", {READ: LLMError("reader down")}),
        ("synthesizer", {SYNTH: LLMError("synth down")}),
        ("synthesizer", {SYNTH: "Sorry, I cannot help with that."}),
    ],
)
def test_a_failing_llm_stage_is_recorded_by_name(
    demo_kb: Path, engine_with: EngineFactory, stage: str, broken: dict[str, Any]
) -> None:
    model = FakeChatModel(script=script(**broken))
    kg = engine_with(demo_kb, model, on_fallback="record")
    answer = kg.ask(QUESTION)
    stages = [f.stage for f in answer.trace.fallbacks]
    assert stage in stages, answer.trace.fallbacks
    fb = answer.trace.fallbacks[stages.index(stage)]
    assert fb.error and fb.message
    assert answer.text  # the offline stage still answered


def test_strict_mode_raises_on_an_unexpected_fallback(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    model = FakeChatModel(script=script(**{READ: LLMError("reader down")}))
    kg = engine_with(demo_kb, model, on_fallback="raise")
    with pytest.raises(StageFallbackError, match="reader"):
        kg.ask(QUESTION)


def test_text2cypher_is_not_attempted_on_the_embedded_store(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    fake = FakeChatModel(script=script())
    answer = engine_with(demo_kb, fake, text2cypher=True, on_fallback="raise").ask(QUESTION)
    assert not fake.calls_matching(re.escape(TEXT2CYPHER_PROMPT[:40]))
    assert all(c.name != "text2cypher" for s in answer.trace.steps for c in s.cypher)
    assert answer.trace.steps[0].decision.route == "graph"


def test_rules_mode_never_calls_the_model(demo_kb: Path, engine_with: EngineFactory) -> None:
    model = FakeChatModel(script=[])
    kg = engine_with(demo_kb, model, mode="rules")
    answer = kg.ask(QUESTION)
    assert model.calls == [] and answer.trace.fallbacks == []


def test_gate_answers_small_talk_without_retrieval(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    kg = engine_with(demo_kb)
    answer = kg.ask("What is 6 * 7?")
    assert answer.short_answer == "42" and answer.trace.steps == []
    assert answer.trace.gate["needs_kb"] is False


def _ev(n: int) -> Evidence:
    return Evidence(chunk_id=f"c{n}", doc_id="d", text=f"alpha beta gamma {n}", score=1.0)


def test_out_of_order_citation_markers_renumber_correctly() -> None:
    text, cites, dropped = renumber_citations("Alpha beta [2] and gamma [1].", [_ev(1), _ev(2)])
    assert text == "Alpha beta [1] and gamma [2]."
    assert [c.chunk_id for c in cites] == ["c2", "c1"] and dropped == []
