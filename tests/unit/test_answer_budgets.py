"""Per-question LLM budgets are reservations: concurrent steps never pass ``max_llm_calls``, the
token cap is held before a call is sent and marks the answer truncated, and ``top_k``, plan
length and rewrites stay within the settings whatever the model replies.

The pipeline tests run three independent steps (one wave, run side by side) against a fake
model whose step reads take a while, so the reads overlap: with a check of "calls so far"
instead of a reservation all three pass it at once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from prompt_markers import PLAN, READ, ROUTE, SYNTH
from pydantic import BaseModel

from extraction.budget import CallBudget
from extraction.errors import BudgetSpent
from extraction.structured import LLMUsage, acall_structured
from kg_rag.answer.llm import LLMCaller
from kg_rag.answer.llm_stages import LLMPlanner, LLMRouter
from kg_rag.answer.router import RuleRouter
from kg_rag.answer.stages import Run, StepContext
from kg_rag.answer.trace import Trace
from kg_rag.engine import KnowledgeEngine
from kg_rag.errors import BudgetExceeded, LLMError
from kg_rag.models import PlanStep
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit

EngineFactory = Callable[..., KnowledgeEngine]


STEPS = (
    "Where is Brightwell Robotics headquartered?",
    "Who founded Brightwell Robotics?",
    "When was Brightwell Robotics founded?",
)


class _Echo(BaseModel):
    text: str = ""


def _slow(reply: str, seconds: float = 0.05) -> Callable[[str], str]:
    def answer(prompt: str) -> str:
        time.sleep(seconds)  # the fake answers in a worker thread: calls overlap
        return reply

    return answer


def _plan(n: int, *, question: str = "q") -> str:
    steps = [{"index": i + 1, "query": STEPS[i % len(STEPS)]} for i in range(n)]
    return json.dumps({"question": question, "steps": steps})


def _read(grade: float = 0.9, answer: str = "Eindhoven") -> str:
    return json.dumps({"answer": answer, "grade": grade, "evidence_numbers": [1], "reason": "r"})


def _script(**over: Any) -> list[tuple[str, Any]]:
    entries: dict[str, Any] = {
        PLAN: _plan(3),
        ROUTE: json.dumps({"route": "chunks", "granularity": "paragraph", "reason": "s"}),
        READ: _slow(_read()),
        SYNTH: "Brightwell Robotics is headquartered in Eindhoven [1].",
    }
    entries.update(over)
    return list(entries.items())


# -- the budget itself ---------------------------------------------------------------------------
@pytest.mark.parametrize(("cap", "tasks"), [(1, 4), (3, 8), (5, 5), (6, 3)])
async def test_concurrent_structured_calls_never_pass_the_call_cap(cap: int, tasks: int) -> None:
    fake = FakeChatModel(script=[("echo", _slow('{"text": "ok"}'))])
    budget = CallBudget(max_calls=cap)
    usage = LLMUsage()

    async def one(i: int) -> bool:
        try:
            await acall_structured(
                fake, _Echo, [HumanMessage(f"echo {i}")], budget=budget, usage=usage, max_retries=0
            )
        except BudgetSpent:
            return False
        return True

    done = await asyncio.gather(*(one(i) for i in range(tasks)))
    assert len(fake.calls) == budget.calls == sum(done) == min(cap, tasks)
    assert budget.in_flight == 0
    assert budget.exhausted is (tasks > cap)


@pytest.mark.parametrize("cap", [1, 2, 3, 4])
async def test_retries_reserve_their_own_calls(cap: int) -> None:
    # Every reply is malformed: each retry is a call and must fit the cap too.
    fake = FakeChatModel(script=[("echo", "not json")])
    budget = CallBudget(max_calls=cap)
    with pytest.raises((BudgetSpent, Exception)):
        await acall_structured(
            fake, _Echo, [HumanMessage("echo")], budget=budget, max_retries=5, backoff_s=0
        )
    assert len(fake.calls) == budget.calls == cap


async def test_a_cancelled_call_gives_its_reservation_back() -> None:
    fake = FakeChatModel(script=[("slow", _slow('{"text": "a"}', 0.5)), ("fast", '{"text": "b"}')])
    budget = CallBudget(max_calls=1)
    task = asyncio.create_task(
        acall_structured(fake, _Echo, [HumanMessage("slow")], budget=budget, max_retries=0)
    )
    await asyncio.sleep(0.05)
    assert budget.in_flight == 1
    with pytest.raises(BudgetSpent):  # the slot is held while the call is in flight
        budget.reserve(0, "another call")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert budget.in_flight == 0 and budget.calls == 0
    value = await acall_structured(fake, _Echo, [HumanMessage("fast")], budget=budget)
    assert value.text == "b" and budget.calls == 1


@pytest.mark.parametrize(
    ("max_tokens", "reserve", "sent"),
    [(10_000, 100, True), (60, 0, True), (40, 30, False), (5, 0, False)],
)
async def test_token_cap_is_checked_before_sending(
    max_tokens: int, reserve: int, sent: bool
) -> None:
    fake = FakeChatModel(script=[("echo", '{"text": "ok"}')])
    budget = CallBudget(max_tokens=max_tokens, completion_reserve=reserve)
    messages = [HumanMessage("echo these few words back please")]
    if sent:
        await acall_structured(fake, _Echo, messages, budget=budget)
        assert budget.calls == 1 and budget.tokens > 0
    else:
        with pytest.raises(BudgetSpent, match="token cap"):
            await acall_structured(fake, _Echo, messages, budget=budget)
        assert fake.calls == [] and budget.exhausted


# -- the answer pipeline ---------------------------------------------------------------------------
@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 8])
def test_concurrent_steps_never_pass_max_llm_calls(
    demo_kb: Path, engine_with: EngineFactory, cap: int
) -> None:
    model = FakeChatModel(script=_script())
    answer = engine_with(demo_kb, model, max_llm_calls=cap).ask("Tell me about Brightwell")
    needed = 1 + 3 + 1  # plan, three reads side by side, synthesis
    assert len(model.calls) == answer.trace.llm_calls <= cap
    assert len(model.calls) == min(cap, needed)
    assert answer.truncated is (cap < needed)
    if answer.truncated:
        assert any("cap" in note for note in answer.trace.notes)
        assert any(f.error == "BudgetExceeded" for f in answer.trace.fallbacks)


@pytest.mark.parametrize("max_tokens", [400, 900, 1500, 2000, 3000, 100_000])
def test_token_cap_holds_and_marks_the_answer_truncated(
    demo_kb: Path, engine_with: EngineFactory, max_tokens: int
) -> None:
    model = FakeChatModel(script=_script())
    answer = engine_with(demo_kb, model, max_tokens=max_tokens).ask("Tell me about Brightwell")
    trace = answer.trace
    spent = trace.prompt_tokens + trace.completion_tokens
    assert spent <= max_tokens  # every reply here is shorter than the reserve
    refused = any(f.error == "BudgetExceeded" for f in trace.fallbacks)
    assert answer.truncated is refused
    assert refused is (len(model.calls) < 5)
    if max_tokens == 100_000:
        assert not answer.truncated and len(model.calls) == 5


def test_a_reply_longer_than_the_reserve_marks_the_answer_truncated(
    demo_kb: Path, engine_with: EngineFactory
) -> None:
    long_reason = " ".join(["word"] * 1500)
    model = FakeChatModel(
        script=_script(
            **{
                READ: _slow(
                    json.dumps(
                        {
                            "answer": "Eindhoven",
                            "grade": 0.9,
                            "evidence_numbers": [1],
                            "reason": long_reason,
                        }
                    )
                )
            }
        )
    )
    answer = engine_with(demo_kb, model, max_tokens=3000, completion_reserve=64).ask(
        "Tell me about Brightwell"
    )
    trace = answer.trace
    assert trace.prompt_tokens + trace.completion_tokens > 3000 or len(model.calls) < 5
    assert answer.truncated and any("cap" in n for n in trace.notes)


@pytest.mark.parametrize(("steps", "limit"), [(9, 5), (5, 4), (3, 2), (4, 4)])
def test_plan_length_is_bounded_by_settings(
    demo_kb: Path, engine_with: EngineFactory, steps: int, limit: int
) -> None:
    model = FakeChatModel(script=_script(**{PLAN: _plan(steps)}))
    answer = engine_with(demo_kb, model, max_plan_steps=limit).ask("Tell me about Brightwell")
    plan = answer.trace.plan
    assert plan is not None
    if steps > limit:
        assert plan.planner != "llm"
        assert any(f.stage == "planner" and "at most" in f.message for f in answer.trace.fallbacks)
    else:
        assert plan.planner == "llm" and len(plan.steps) == steps


@pytest.mark.parametrize(("asked", "limit"), [(1000, 20), (1000, 3), (2, 20), (0, 20)])
async def test_llm_router_top_k_is_bounded(asked: int, limit: int) -> None:
    reply = {"route": "chunks", "granularity": "paragraph", "top_k": asked, "reason": "r"}
    model = FakeChatModel(script=[(ROUTE, json.dumps(reply))])
    router = LLMRouter(RuleRouter(top_k=5), "fake", max_top_k=limit)
    run = Run(trace=Trace(question="q"), caller=LLMCaller(model, max_calls=5, max_tokens=10**6))
    ctx = StepContext(step=PlanStep(index=1, query="what do small robots do"), query="what do")
    decision = await router.aroute(ctx, run)
    assert 1 <= decision.top_k <= min(limit, 20)
    assert decision.top_k == max(1, min(asked, 20, limit))


@pytest.mark.parametrize("limit", [1, 3, 8])
def test_pipeline_retrieves_at_most_max_top_k(
    demo_kb: Path, engine_with: EngineFactory, limit: int
) -> None:
    reply = {"route": "chunks", "granularity": "paragraph", "top_k": 1000, "reason": "r"}
    model = FakeChatModel(script=_script(**{PLAN: _plan(1), ROUTE: json.dumps(reply)}))
    answer = engine_with(demo_kb, model, max_top_k=limit, llm_route=True).ask(
        "Tell me about Brightwell"
    )
    for st in answer.trace.steps:
        assert st.decision.top_k <= max(limit, 20)
        assert len(st.hits) <= 2 * max(limit, 5)


@pytest.mark.parametrize("retries", [0, 1, 2])
def test_rewrites_are_bounded_by_max_retries(
    demo_kb: Path, engine_with: EngineFactory, retries: int
) -> None:
    model = FakeChatModel(script=_script(**{READ: _slow(_read(grade=0.0, answer=""))}))
    answer = engine_with(demo_kb, model, max_retries=retries).ask("Tell me about Brightwell")
    assert answer.trace.steps
    for st in answer.trace.steps:
        assert len(st.rewrites) <= retries
        assert len(st.attempts) <= retries + 1
    assert answer.trace.llm_calls <= len(answer.trace.steps) + 2


def test_planner_rejects_a_plan_longer_than_its_bound() -> None:
    model = FakeChatModel(script=[(PLAN, _plan(4))])
    run = Run(trace=Trace(question="q"), caller=LLMCaller(model, max_calls=5, max_tokens=10**6))
    with pytest.raises(LLMError, match="at most 3"):
        asyncio.run(LLMPlanner(max_steps=3).aplan("q", run))


def test_the_caller_raises_budget_exceeded_without_sending() -> None:
    model = FakeChatModel(script=[(PLAN, _plan(1))])
    caller = LLMCaller(model, max_calls=0, max_tokens=10**6)
    run = Run(trace=Trace(question="q"), caller=caller)
    with pytest.raises(BudgetExceeded, match="call cap"):
        asyncio.run(LLMPlanner().aplan("q", run))
    assert model.calls == [] and caller.exhausted


def _chain(n: int) -> str:
    steps = [
        {
            "index": i + 1,
            "query": f"what is linked to #{i}" if i else "what is it about",
            "depends_on": [i] if i else [],
        }
        for i in range(n)
    ]
    return json.dumps({"question": "q", "steps": steps})


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
@pytest.mark.parametrize("llm_route", [False, True])
def test_a_question_costs_at_most_steps_plus_two_calls_unless_llm_routing_is_on(
    demo_kb: Path, engine_with: EngineFactory, steps: int, llm_route: bool
) -> None:
    # Steps that link no entity: the rules abstain, so only an LLM router would call.
    model = FakeChatModel(script=_script(**{PLAN: _chain(steps), READ: _read(answer="")}))
    answer = engine_with(demo_kb, model, llm_route=llm_route).ask("Tell me about it")
    assert len(answer.trace.steps) == steps
    routed = len(model.calls_matching(ROUTE))
    assert len(model.calls) == answer.trace.llm_calls
    if llm_route:
        assert routed >= 1 and answer.trace.llm_calls == steps + 2 + routed
    else:
        assert routed == 0 and answer.trace.llm_calls <= steps + 2
