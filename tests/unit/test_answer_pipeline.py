"""The answer pipeline with a scripted chat model: plan binding, graded retries, budgets,
cited synthesis, router caching and the LLM stages' fallbacks.

Every test runs the real pipeline on the demo knowledge base; only the chat model is fake
(:class:`~kg_rag.testing.FakeChatModel`, scripted by regular expressions on the prompts of
:mod:`kg_rag.answer.prompts`; structured calls get the scripted text as tool arguments).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from kg_rag.answer import prompts
from kg_rag.answer.trace import Answer
from kg_rag.engine import KnowledgeEngine
from kg_rag.retrieval.text2cypher import PROMPT as TEXT2CYPHER_PROMPT
from kg_rag.testing import FakeChatModel, Response

pytestmark = pytest.mark.unit

EngineFactory = Callable[..., KnowledgeEngine]


def _marker(template: str) -> str:
    """A pattern matching prompts built from ``template`` (its fixed opening words)."""
    return re.escape(template[:40])


PLAN = _marker(prompts.PLANNER_PROMPT)
ROUTE = _marker(prompts.ROUTER_PROMPT)
GRADE = _marker(prompts.GRADER_PROMPT)
REWRITE = _marker(prompts.REWRITE_PROMPT)
STEP = _marker(prompts.STEP_ANSWER_PROMPT)
SYNTH = _marker(prompts.SYNTH_PROMPT)
TEXT2CYPHER = _marker(TEXT2CYPHER_PROMPT)

HQ_QUESTION = "Where is Brightwell Robotics headquartered?"


def plan_json(*steps: dict[str, Any], question: str = "q") -> str:
    return json.dumps({"question": question, "steps": list(steps)})


def one_step_plan(query: str = HQ_QUESTION) -> str:
    return plan_json({"index": 1, "query": query})


def route_json(
    route: str = "graph", granularity: str = "paragraph", reason: str = "scripted"
) -> str:
    return json.dumps({"route": route, "granularity": granularity, "reason": reason})


def grade_json(score: float) -> str:
    return json.dumps({"score": score, "reason": "scripted grade"})


def answer_json(answer: str) -> str:
    return json.dumps({"answer": answer, "evidence_numbers": [1]})


def script(
    *,
    plan: Response | list[Response],
    route: Response | list[Response] | None = None,
    grade: Response | list[Response] | None = None,
    rewrite: Response | list[Response] | None = None,
    step_answers: Sequence[tuple[str, Response]] = (),
    synth: Response | list[Response] = "See the evidence [1].",
) -> list[tuple[str, Response | list[Response]]]:
    """A script for every prompt the pipeline sends; step answers are matched by query text."""
    entries: list[tuple[str, Response | list[Response]]] = [(PLAN, plan)]
    entries.append((ROUTE, route if route is not None else route_json()))
    entries.append((GRADE, grade if grade is not None else grade_json(1.0)))
    entries.append(
        (REWRITE, rewrite if rewrite is not None else json.dumps({"query": "rewritten"}))
    )
    entries += [(STEP + r".*Query: " + re.escape(q), r) for q, r in step_answers]
    entries.append((STEP, answer_json("Eindhoven")))
    entries.append((SYNTH, synth))
    return entries


class PerCallTokens(BaseCallbackHandler):
    """Records the total tokens the model reported for each finished call, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.totals: list[int] = []
        self._lock = threading.Lock()

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        usage = (response.llm_output or {}).get("token_usage") or {}
        with self._lock:
            self.totals.append(int(usage.get("total_tokens", 0)))


def only_step(answer: Answer) -> Any:
    assert len(answer.trace.steps) == 1, answer.trace.steps
    return answer.trace.steps[0]


# -- 1. binding ----------------------------------------------------------------------------


def test_two_hop_plan_binds_step_one_answer_into_step_two(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    step1 = "Which company did Clara Okafor found after leaving Nimbus Analytics?"
    fake = FakeChatModel(
        script=script(
            plan=plan_json(
                {"index": 1, "query": step1},
                {"index": 2, "query": "Where is the headquarters of #1?", "depends_on": [1]},
            ),
            step_answers=[
                (step1, answer_json("Brightwell Robotics")),
                ("Where is the headquarters of Brightwell Robotics?", answer_json("Eindhoven")),
            ],
        )
    )
    kg = engine_with(demo_kb, fake)
    answer = kg.ask(
        "Where is the headquarters of the company Clara Okafor founded after leaving Nimbus Analytics?"
    )

    assert answer.trace.plan is not None and answer.trace.plan.planner == "llm"
    first, second = answer.trace.steps
    assert first.answer == "Brightwell Robotics"
    assert second.query == "Where is the headquarters of #1?"
    assert second.bound_query == "Where is the headquarters of Brightwell Robotics?"
    assert second.answer == "Eindhoven"
    # The model saw step 1's answer in step 2's prompts, only after it had produced it.
    prompts_seen = [c.prompt for c in fake.calls]
    produced_at = next(
        i for i, c in enumerate(fake.calls) if c.response == answer_json("Brightwell Robotics")
    )
    later = [i for i, p in enumerate(prompts_seen) if "headquarters of Brightwell Robotics" in p]
    assert later and min(later) > produced_at
    assert fake.calls_matching(
        ROUTE + r".*Step: Where is the headquarters of Brightwell Robotics\?"
    )
    assert not any("headquarters of #1" in p for p in prompts_seen), (
        "an unbound placeholder reached the model"
    )


def test_independent_steps_run_concurrently(demo_kb: Path, engine_with: EngineFactory) -> None:
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def slow_route(prompt: str) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.3)
        with lock:
            in_flight -= 1
        return route_json("chunks", "sentence")

    fake = FakeChatModel(
        script=script(
            plan=plan_json(
                {"index": 1, "query": "When was Nimbus Analytics founded?"},
                {"index": 2, "query": "When was Brightwell Robotics founded?"},
            ),
            route=slow_route,
        )
    )
    answer = engine_with(demo_kb, fake).ask(
        "Which was founded first, Nimbus Analytics or Brightwell Robotics?"
    )
    assert len(answer.trace.steps) == 2
    assert peak == 2, "the two independent steps were routed one after the other"


# -- 2. grading, rewriting, retries --------------------------------------------------------


@pytest.mark.parametrize("max_retries", [0, 1, 2])
def test_weak_grade_rewrites_and_retrieves_again_until_max_retries(
    demo_kb: Path, engine_with: EngineFactory, max_retries: int
) -> None:
    rewrites = ["Brightwell Robotics head office city", "Brightwell Robotics offices"]
    fake = FakeChatModel(
        script=script(
            plan=one_step_plan(),
            grade=grade_json(0.0),
            rewrite=[json.dumps({"query": q}) for q in rewrites],
        )
    )
    answer = engine_with(demo_kb, fake, max_retries=max_retries).ask(HQ_QUESTION)
    step = only_step(answer)

    assert len(fake.calls_matching(GRADE)) == max_retries + 1
    assert len(fake.calls_matching(REWRITE)) == max_retries
    assert [g.grader for g in step.grades] == ["llm"] * (max_retries + 1)
    assert not any(g.passed for g in step.grades)
    assert len(step.attempts) == max_retries + 1
    assert step.rewrites == rewrites[:max_retries]
    for attempt, query in zip(step.attempts[1:], step.rewrites, strict=True):
        assert attempt.endswith(query), "a retry must retrieve with the rewritten query"
    if max_retries:
        # The grader judged the second retrieval against the rewritten query.
        assert fake.calls_matching(GRADE + r".*Query: " + re.escape(rewrites[0]))
    assert answer.text


def test_passing_grade_does_not_retry(demo_kb: Path, engine_with: EngineFactory) -> None:
    fake = FakeChatModel(script=script(plan=one_step_plan(), grade=grade_json(0.9)))
    step = only_step(engine_with(demo_kb, fake, max_retries=3).ask(HQ_QUESTION))
    assert len(step.attempts) == 1 and step.rewrites == []
    assert len(fake.calls_matching(REWRITE)) == 0
    assert step.grades[0].passed and step.grades[0].score == pytest.approx(0.9)


# -- 3. budgets ----------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_call_budget_stops_at_the_cap_and_marks_truncated(
    demo_kb: Path, engine_with: EngineFactory, cap: int
) -> None:
    fake = FakeChatModel(script=script(plan=one_step_plan()))
    answer = engine_with(demo_kb, fake, max_llm_calls=cap).ask(HQ_QUESTION)
    assert len(fake.calls) <= cap
    assert answer.trace.llm_calls == len(fake.calls)
    assert answer.truncated and answer.trace.truncated
    assert any(f"({cap})" in note for note in answer.trace.notes), answer.trace.notes
    assert answer.text, "at the cap the best answer so far is still returned"


def test_call_budget_holds_when_a_structured_call_retries(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    # A malformed plan makes the structured call retry; the retries are model calls too.
    fake = FakeChatModel(script=script(plan="this is not JSON"))
    answer = engine_with(demo_kb, fake, max_llm_calls=2).ask(HQ_QUESTION)
    assert len(fake.calls) <= 2, f"the model got {len(fake.calls)} calls under a cap of 2"
    assert answer.truncated


def test_budget_reached_mid_step_keeps_that_step_in_the_trace(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    # plan + route fit under the cap; the grade call does not. The step has already
    # retrieved evidence: it must finish with the offline methods, not vanish from the trace.
    fake = FakeChatModel(script=script(plan=one_step_plan()))
    answer = engine_with(demo_kb, fake, max_llm_calls=2).ask(HQ_QUESTION)
    assert answer.truncated
    step = only_step(answer)
    assert step.attempts and step.hits
    assert step.grades and step.grades[-1].grader == "lexical"


@pytest.mark.parametrize("cap", [60, 250])
def test_token_budget_stops_once_the_cap_is_reached(
    demo_kb: Path, engine_with: EngineFactory, cap: int
) -> None:
    unbudgeted = FakeChatModel(script=script(plan=one_step_plan()))
    full = engine_with(demo_kb, unbudgeted).ask(HQ_QUESTION)
    assert full.trace.prompt_tokens + full.trace.completion_tokens > cap, "cap too high to bite"

    tokens = PerCallTokens()
    fake = FakeChatModel(script=script(plan=one_step_plan()), callbacks=[tokens])
    answer = engine_with(demo_kb, fake, max_tokens=cap).ask(HQ_QUESTION)
    assert answer.truncated
    assert len(tokens.totals) == len(fake.calls) < len(unbudgeted.calls)
    # The cap is checked before each call: no call starts once the cap is reached.
    assert sum(tokens.totals[:-1]) < cap
    assert answer.trace.prompt_tokens + answer.trace.completion_tokens == sum(tokens.totals)


# -- 4. LLM synthesis and citation checking ------------------------------------------------


def _evidence_numbers(prompt: str) -> dict[int, str]:
    """Evidence number → text, as listed in a synthesis prompt."""
    listing = prompt.split("Evidence:", 1)[1]
    return {
        int(n): text for n, text in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", listing, re.MULTILINE)
    }


def test_llm_synthesis_drops_unsupported_citations_and_maps_supported_ones(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    chosen: dict[str, int] = {}

    def synth(prompt: str) -> str:
        listed = _evidence_numbers(prompt)
        good = next(n for n, text in listed.items() if "headquartered in Eindhoven" in text)
        bad = next(n for n in listed if n != good)
        chosen.update(good=good, bad=bad)
        return (
            f"Brightwell Robotics is headquartered in Eindhoven [{good}]. "
            f"Purple zebras orbit Jupiter [{bad}]. Penguins compose symphonies [99]."
        )

    fake = FakeChatModel(script=script(plan=one_step_plan(), synth=synth))
    kg = engine_with(demo_kb, fake)
    answer = kg.ask(HQ_QUESTION)

    good, bad = chosen["good"], chosen["bad"]
    assert sorted(answer.unsupported_citations) == sorted({bad, 99})
    assert good not in answer.unsupported_citations
    assert not re.search(r"Jupiter\s*\[", answer.text) and "[99]" not in answer.text
    assert len(answer.citations) == 1
    (cite,) = answer.citations
    assert cite.supported and re.search(rf"Eindhoven\s*\[{cite.n}\]", answer.text)
    # [good] in the prompt named the Eindhoven passage: the citation maps to that chunk.
    (chunk,) = kg.chunk_store.get_chunks([cite.chunk_id])
    assert "headquartered in Eindhoven" in chunk.text and chunk.doc_id == cite.doc_id
    document = kg.chunk_store.get_document(cite.doc_id)
    assert document is not None
    assert document.text[cite.char_start : cite.char_end] == cite.quote
    assert "headquartered in Eindhoven" in cite.quote


# -- 5. router: cache, fallback, reasons ---------------------------------------------------


def test_llm_router_decision_is_cached_for_the_same_step(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    fake = FakeChatModel(
        script=script(
            plan=plan_json(
                {"index": 1, "query": HQ_QUESTION},
                {"index": 2, "query": HQ_QUESTION, "depends_on": [1]},
            ),
            route=route_json("chunks", "sentence"),
        )
    )
    answer = engine_with(demo_kb, fake).ask(HQ_QUESTION)
    assert len(answer.trace.steps) == 2
    assert [s.decision.router for s in answer.trace.steps] == ["llm", "llm"]
    assert answer.trace.steps[0].decision == answer.trace.steps[1].decision
    assert len(fake.calls_matching(ROUTE)) == 1, "same step text and context → one router call"


def test_llm_router_cache_outlives_one_question(demo_kb: Path, engine_with: EngineFactory) -> None:
    fake = FakeChatModel(
        script=script(plan=one_step_plan(), route=route_json("chunks", "sentence"))
    )
    kg = engine_with(demo_kb, fake)
    kg.ask(HQ_QUESTION)
    kg.ask(HQ_QUESTION)
    assert len(fake.calls_matching(ROUTE)) == 1


def test_llm_router_failure_falls_back_to_rules_with_a_reason(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    fake = FakeChatModel(script=script(plan=one_step_plan(), route="no JSON here"))
    step = only_step(engine_with(demo_kb, fake).ask(HQ_QUESTION))
    assert step.decision.router == "rules"
    assert step.decision.reason.startswith("LLM router failed")
    assert "Brightwell Robotics" in step.decision.reason, "the rules' own reason is kept"


def test_llm_route_without_a_reason_still_states_one(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    fake = FakeChatModel(script=script(plan=one_step_plan(), route=json.dumps({"route": "chunks"})))
    step = only_step(engine_with(demo_kb, fake).ask(HQ_QUESTION))
    assert step.decision.router == "llm" and step.decision.route == "chunks"
    assert step.decision.reason.strip(), "every routing decision in the trace carries a reason"


# -- other LLM stages and their fallbacks -----------------------------------------------------


def test_llm_planner_failure_falls_back_to_the_rule_plan(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    question = "Where is the headquarters of the company that Tomas Lindqvist left in 2008?"
    fake = FakeChatModel(
        script=script(
            plan="not a plan",
            step_answers=[
                ("company that Tomas Lindqvist left in 2008", answer_json("Orchard Systems"))
            ],
        )
    )
    answer = engine_with(demo_kb, fake).ask(question)
    plan = answer.trace.plan
    assert plan is not None and plan.planner == "rules" and plan.strategy == "bridge"
    assert any("planner failed" in note for note in answer.trace.notes)
    assert answer.trace.steps[1].bound_query.endswith("Orchard Systems")


def test_unknown_step_answer_falls_back_to_span_extraction(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    query = "Which company did Clara Okafor found after leaving Nimbus Analytics?"
    fake = FakeChatModel(
        script=script(plan=one_step_plan(query), step_answers=[(query, answer_json("unknown"))])
    )
    step = only_step(engine_with(demo_kb, fake).ask(query))
    assert step.answer and step.answer.lower() != "unknown"
    assert step.answer in " ".join(h.text for h in step.hits), (
        "an extracted span comes from the evidence"
    )


def test_text2cypher_is_not_attempted_on_the_embedded_store(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    fake = FakeChatModel(script=script(plan=one_step_plan()))
    answer = engine_with(demo_kb, fake, text2cypher=True).ask(HQ_QUESTION)
    assert not fake.calls_matching(TEXT2CYPHER)
    assert all(c.name != "text2cypher" for s in answer.trace.steps for c in s.cypher)
    assert only_step(answer).decision.route == "graph"


def test_rules_mode_never_calls_the_model(demo_kb: Path, engine_with: EngineFactory) -> None:
    fake = FakeChatModel(script=[])  # any call would raise UnscriptedPromptError
    kg = engine_with(demo_kb, fake, mode="rules")
    answer = kg.ask(HQ_QUESTION)
    assert fake.calls == [] and answer.trace.llm_calls == 0
    assert answer.text.startswith("Eindhoven")
