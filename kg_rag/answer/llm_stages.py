"""The LLM implementations of the answer stages.

Each takes the question's :class:`~kg_rag.answer.stages.Run` (its budgeted
:class:`~kg_rag.answer.llm.LLMCaller` and trace) and raises on any failure — an LLM error, a
spent budget, a reply that does not fit — so the pipeline's :func:`~kg_rag.answer.stages.staged`
combinator records the fallback and runs the offline twin. None of them swallows an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from kg_rag.answer.prompts import (
    GATE_PROMPT,
    PLANNER_PROMPT,
    REFLECT_PROMPT,
    REWRITE_PROMPT,
    ROUTER_PROMPT,
    STEP_READ_PROMPT,
)
from kg_rag.answer.router import RuleRouter
from kg_rag.answer.stages import GateDecision, Reflection, Run, StepContext, StepReading
from kg_rag.answer.trace import Answer, Grade
from kg_rag.errors import LLMError
from kg_rag.models import Evidence, Plan, RouteDecision

__all__ = [
    "LLMGate",
    "LLMPlanner",
    "LLMReflector",
    "LLMRewriter",
    "LLMRouter",
    "LLMStepReader",
]


class LLMPlanner:
    """Plans with a chat model; a plan with bad numbering or more than ``max_steps`` steps is an
    error (so the rules plan is used, whatever the model says)."""

    name = "llm"

    def __init__(self, max_steps: int = 5) -> None:
        self.max_steps = max_steps

    async def aplan(self, question: str, run: Run) -> Plan:
        """Ask the model for a typed plan of ``question``."""
        plan: Plan = await run.caller.structured(
            Plan, PLANNER_PROMPT.format(question=question), purpose="plan"
        )
        if not plan.steps:
            raise LLMError("plan: the model returned no steps")
        if not all(s.index == i + 1 for i, s in enumerate(plan.steps)):
            raise LLMError("plan: steps are not numbered 1..n")
        if len(plan.steps) > self.max_steps:
            raise LLMError(f"plan: {len(plan.steps)} steps (at most {self.max_steps})")
        if any(d >= s.index for s in plan.steps for d in s.depends_on):
            raise LLMError("plan: a step depends on itself or a later step")
        plan.question = question
        plan.planner = "llm"
        return plan


class LLMRouter:
    """Routes by rules where they are confident, asks the model only where they abstain (no
    entity linked, no overview cue), and caches its decisions across questions.

    Disabled (``enabled=False``, the default of ``RouterSettings.llm_route``) it never calls the
    model: the rules' decision stands, so a question costs at most steps + 2 calls."""

    name = "llm"

    def __init__(
        self, rules: RuleRouter, model_key: str = "", max_top_k: int = 20, *, enabled: bool = True
    ) -> None:
        self.rules = rules
        self.model_key = model_key
        self.max_top_k = max_top_k
        self.enabled = enabled
        self._cache: dict[tuple[str, str, str], RouteDecision] = {}

    def abstains(self, ctx: StepContext) -> bool:
        """True when the rules have no signal for this step."""
        decision = self.rules.route(ctx)
        return decision.route == "chunks"

    async def aroute(self, ctx: StepContext, run: Run) -> RouteDecision:
        """Route ``ctx``'s step (rules first; the model where they abstain)."""
        if not self.enabled or not self.abstains(ctx):
            return self.rules.route(ctx)
        linked = ", ".join(le.name for le in ctx.linked[:8])
        key = (self.model_key, ctx.query, linked)
        if key in self._cache:
            return self._cache[key].model_copy()
        decision: RouteDecision = await run.caller.structured(
            RouteDecision,
            ROUTER_PROMPT.format(
                query=ctx.query, linked=linked or "(none)", needs=ctx.step.needs or "-"
            ),
            purpose="route",
        )
        decision.router = "llm"
        decision.top_k = max(1, min(decision.top_k, 4 * self.rules.top_k, self.max_top_k))
        decision.reason = decision.reason.strip() or "LLM router (no reason given)"
        self._cache[key] = decision
        return decision.model_copy()


class _Reading(BaseModel):
    answer: str = ""
    grade: float = 0.0
    evidence_numbers: list[int] = Field(default_factory=list)
    reason: str = ""


class LLMStepReader:
    """Reads a step's evidence in one call: the answer span, a grade and the evidence used."""

    name = "llm"

    def __init__(self, threshold: float = 0.35, evidence: int = 5) -> None:
        self.threshold = threshold
        self.evidence = evidence

    async def aread(self, ctx: StepContext, evidence: Sequence[Evidence], run: Run) -> StepReading:
        """One structured call over the top evidence."""
        if not evidence:
            return StepReading(
                grade=Grade(score=0.0, passed=False, reason="no evidence", grader="llm"),
                reader=self.name,
            )
        text = "\n".join(
            f"[{i + 1}] {e.text[:700]}" for i, e in enumerate(evidence[: self.evidence])
        )
        r: _Reading = await run.caller.structured(
            _Reading,
            STEP_READ_PROMPT.format(
                query=ctx.query, answer_type=ctx.step.answer_type.lower(), evidence=text
            ),
            purpose="step-read",
        )
        answer = r.answer.strip()
        if answer.lower() in ("unknown", "none", "n/a"):
            answer = ""
        score = max(0.0, min(1.0, r.grade))
        used = [n - 1 for n in r.evidence_numbers if 1 <= n <= min(len(evidence), self.evidence)]
        return StepReading(
            answer=answer,
            evidence_index=used[0] if used else None,
            grade=Grade(
                score=score,
                passed=bool(answer) and score >= self.threshold,
                reason=r.reason or f"graded {score:.2f} by the model",
                grader="llm",
            ),
            reader=self.name,
        )


class _Rewrite(BaseModel):
    query: str


class LLMRewriter:
    """Rewrites a weak step's query with the model."""

    name = "llm"

    async def arewrite(
        self, ctx: StepContext, query: str, evidence: Sequence[Evidence], attempt: int, run: Run
    ) -> str:
        """A better query (an empty reply is an error)."""
        seen = " | ".join(e.text[:160] for e in evidence[:2]) or "(none)"
        r: _Rewrite = await run.caller.structured(
            _Rewrite, REWRITE_PROMPT.format(query=query, evidence=seen), purpose="rewrite"
        )
        if not r.query.strip():
            raise LLMError("rewrite: empty query")
        return r.query.strip()


class _Gate(BaseModel):
    needs_kb: bool
    reply: str = ""
    reason: str = ""


class LLMGate:
    """Asks the model whether a message needs the knowledge base."""

    name = "llm"

    async def agate(self, question: str, run: Run) -> GateDecision:
        """Gate ``question``."""
        g: _Gate = await run.caller.structured(
            _Gate, GATE_PROMPT.format(question=question), purpose="gate"
        )
        if not g.needs_kb and not g.reply.strip():
            raise LLMError("gate: no reply for a message that needs no knowledge base")
        return GateDecision(needs_kb=g.needs_kb, reason=g.reason, reply=g.reply.strip(), gate="llm")


class _Reflect(BaseModel):
    supported: bool
    answers_question: bool
    reason: str = ""


class LLMReflector:
    """Asks the model whether the answer is supported by its citations and on the question."""

    name = "llm"

    async def areflect(self, question: str, plan: Plan, answer: Answer, run: Run) -> Reflection:
        """Check ``answer``."""
        cited = {c.chunk_id for c in answer.citations}
        pool = [e for e in answer.evidence if e.chunk_id in cited] or list(answer.evidence[:3])
        text = "\n".join(f"[{i + 1}] {e.text[:600]}" for i, e in enumerate(pool[:4]))
        r: _Reflect = await run.caller.structured(
            _Reflect,
            REFLECT_PROMPT.format(question=question, answer=answer.text, evidence=text or "-"),
            purpose="reflect",
        )
        return Reflection(
            supported=r.supported,
            answers_question=r.answers_question,
            reason=r.reason,
            reflector="llm",
        )


def model_key(model: Any) -> str:
    """The cache key of a chat model."""
    from extraction.structured import model_id

    return model_id(model) if model is not None else ""
