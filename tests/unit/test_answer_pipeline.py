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

from kg_rag.answer.pipeline import described_query
from kg_rag.answer.stages import StageFallbackError, StepContext, StepReading
from kg_rag.answer.synthesizer import renumber_citations
from kg_rag.answer.trace import Grade
from kg_rag.engine import KnowledgeEngine
from kg_rag.errors import LLMError
from kg_rag.models import Evidence, Plan, PlanStep
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


def _plan_of(*queries: str) -> Plan:
    steps = [
        PlanStep(index=i + 1, query=q, depends_on=[int(n) for n in re.findall(r"#(\d+)", q)])
        for i, q in enumerate(queries)
    ]
    return Plan(question="q", steps=steps, strategy="bridge")


@pytest.mark.parametrize(
    ("queries", "answers", "described"),
    [
        (
            ("lantern of Tarvey Light", "How many steps lead up to #1"),
            {1: "Ostby"},
            "How many steps lead up to lantern of Tarvey Light",
        ),
        (
            ("founder of Quell Optics", "spouse of #1", "Where was #2 born"),
            {1: "Ada Venn", 2: "Ola Berg"},
            "Where was spouse of Ada Venn born",
        ),
        (("栎川伞铺的创办人", "#1的父亲"), {1: "比福茂"}, "栎川伞铺的创办人的父亲"),
        (("founder of Quell Optics", "Where was #1 born"), {}, ""),  # nothing answered to write out
        (("Where was Ada Venn born",), {}, ""),  # binds no earlier step
    ],
)
def test_a_step_can_be_written_with_the_earlier_steps_words(
    queries: tuple[str, ...], answers: dict[int, str], described: str
) -> None:
    plan = _plan_of(*queries)
    assert described_query(plan.steps[-1], answers, plan) == described


def test_a_weak_step_looks_again_with_the_earlier_steps_words_and_keeps_the_best_grade(
    demo_kb: Path, engine_with: EngineFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bridge 'Ostby' finds nothing for step 2: the retry asks with step 1's own words,
    and that attempt's reading (graded higher) answers, not the last or the first."""
    kg = engine_with(demo_kb)
    pipeline = kg.pipeline
    plan = _plan_of("the founder of Brightwell Robotics", "Where was #1 born")

    async def aplan(question: str, run: Any = None) -> Plan:
        return plan

    async def aread(ctx: StepContext, evidence: list[Evidence], run: Any = None) -> StepReading:
        if ctx.step.index == 1:
            return StepReading(answer="Ostby", grade=Grade(score=0.9, passed=True))
        good = "founder of Brightwell Robotics" in ctx.query
        return StepReading(
            answer="Lund" if good else "Nowhere",
            grade=Grade(score=0.3 if good else 0.1, passed=False),
        )

    monkeypatch.setattr(pipeline.planner, "aplan", aplan)
    monkeypatch.setattr(pipeline.reader, "aread", aread)
    answer = kg.ask("Where was the founder of Brightwell Robotics born?")
    step = answer.trace.steps[-1]
    assert step.bound_query == "Where was Ostby born"
    assert step.rewrites[0] == "Where was the founder of Brightwell Robotics born"
    assert [g.score for g in step.grades] == [0.1, 0.3]
    assert step.answer == "Lund"
