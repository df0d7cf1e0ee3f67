"""The stages of answering, as swappable parts, and the one fallback combinator.

Each stage is a protocol with an LLM implementation (:mod:`kg_rag.answer.llm_stages`) and an
offline one (:mod:`kg_rag.answer.planner`, :mod:`~kg_rag.answer.router`,
:mod:`~kg_rag.answer.reader`, :mod:`~kg_rag.answer.checks`, :mod:`~kg_rag.answer.synthesizer`).
:class:`AnswerPipeline` only orchestrates them; :func:`staged` runs a stage's LLM
implementation and, when it fails or the budget is spent, its offline one, writing a
:class:`StageFallback` (stage, exception type, message) into the trace. With
``RouterSettings.on_fallback="raise"`` a fallback raises :class:`StageFallbackError` instead,
so tests fail on a fallback they did not expect.

Typed models cross every seam: :class:`StepContext` (what a router, reader or rewriter may look
at; its linked entities are the linker's own :class:`~kg_rag.retrieval.graph.LinkedEntity`), :class:`StepReading` (a reader's answer and grade), :class:`GateDecision`,
:class:`Reflection`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

from kg_rag.answer.trace import Answer, Grade, StageFallback, StepTrace, Trace
from kg_rag.errors import BudgetExceeded, KgRagError
from kg_rag.models import Evidence, Plan, PlanStep, RouteDecision
from kg_rag.retrieval.graph import LinkedEntity

__all__ = [
    "GateDecision",
    "Planner",
    "Reflection",
    "Reflector",
    "RetrievalGate",
    "Rewriter",
    "Router",
    "Run",
    "StageFallbackError",
    "StepContext",
    "StepReader",
    "StepReading",
    "Synthesizer",
    "staged",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


class StageFallbackError(KgRagError):
    """An LLM stage fell back to its offline implementation while fallbacks were set to raise
    (``RouterSettings.on_fallback="raise"``, used by tests)."""


class StepContext(BaseModel):
    """What a router, reader or rewriter may look at for one step."""

    step: PlanStep
    query: str  # the step's text with earlier answers bound
    linked: list[LinkedEntity] = Field(default_factory=list)
    answers: dict[int, str] = Field(default_factory=dict)
    question: str = ""  # the whole question (a bridge step never answers with its names)
    related: list[str] | None = None
    """Entities one relation away from ``linked``, when the step's retrieval read them (the
    graph route does, in parallel with its searches); ``None``: not read yet."""


class StepReading(BaseModel):
    """A step reader's result: the answer span (empty when none) and the evidence grade."""

    answer: str = ""
    entity_id: str | None = None
    evidence_index: int | None = None
    sentence: tuple[int, int] | None = None
    grade: Grade
    reader: str = "offline"


class GateDecision(BaseModel):
    """Whether a question needs the knowledge base; ``reply`` answers it when it does not."""

    needs_kb: bool
    reason: str = ""
    reply: str = ""
    gate: str = "rules"


class Reflection(BaseModel):
    """A check of the final answer against its citations and the question."""

    supported: bool
    answers_question: bool
    reason: str = ""
    reflector: str = "offline"

    @property
    def ok(self) -> bool:
        """True when the answer is supported and answers the question."""
        return self.supported and self.answers_question


@dataclass
class Run:
    """One question's run: its trace, its LLM caller (None offline) and the fallback policy."""

    trace: Trace
    caller: Any = None  # kg_rag.answer.llm.LLMCaller
    on_fallback: Literal["record", "raise"] = "record"
    truncated: bool = False
    stage_calls: dict[str, int] = field(default_factory=dict)
    whole: Any = None
    """The whole-question retrieval (an ``asyncio.Task`` giving its ``StepTrace``) once
    started: steps rescore its hits instead of searching the corpus again."""
    graph_memo: dict[Any, Any] = field(default_factory=dict)
    """The graph route's PPR spreads of this question by seeds
    (:meth:`~kg_rag.retrieval.graph.GraphRetriever.retrieve`'s ``memo``)."""

    def fallback(self, stage: str, exc: BaseException) -> None:
        """Record that ``stage`` fell back (and raise when the policy says so)."""
        note = StageFallback(stage=stage, error=type(exc).__name__, message=str(exc)[:500])
        self.trace.fallbacks.append(note)
        if isinstance(exc, BudgetExceeded):
            self.truncated = True
        log.info("%s fell back to its offline method: %s: %s", stage, note.error, note.message)
        if self.on_fallback == "raise":
            raise StageFallbackError(
                f"stage {stage!r} fell back ({note.error}: {note.message}); set "
                "RouterSettings.on_fallback='record' to allow it"
            ) from exc


async def staged(
    stage: str,
    run: Run,
    primary: Callable[[], Awaitable[T]] | None,
    fallback: Callable[[], Awaitable[T]],
) -> T:
    """Run ``primary`` (an LLM stage) and, when it fails, ``fallback`` (its offline twin).

    ``primary`` is None when no model is configured: then the offline stage is the chosen
    method, not a fallback, and nothing is recorded. Every failure of ``primary`` — an LLM
    error, a spent budget, an invalid reply — is recorded in ``run.trace.fallbacks``.
    """
    if primary is not None and run.caller is not None:
        try:
            result = await primary()
            run.stage_calls[stage] = run.stage_calls.get(stage, 0) + 1
            return result
        except StageFallbackError:
            raise
        except Exception as exc:  # every failure is recorded, then the offline stage answers
            run.fallback(stage, exc)
    return await fallback()


class RetrievalGate(Protocol):
    """Decides whether a question needs the knowledge base at all."""

    async def agate(self, question: str, run: Run) -> GateDecision:
        """Gate ``question``."""
        ...


class Planner(Protocol):
    """Turns a question into a typed :class:`~kg_rag.models.Plan`."""

    async def aplan(self, question: str, run: Run) -> Plan:
        """Plan ``question``."""
        ...


class Router(Protocol):
    """Routes a step: where its evidence comes from and at which granularity."""

    async def aroute(self, ctx: StepContext, run: Run) -> RouteDecision:
        """Route ``ctx``'s step."""
        ...


class StepReader(Protocol):
    """Reads a step's evidence: the answer span and a grade, in one pass."""

    async def aread(self, ctx: StepContext, evidence: Sequence[Evidence], run: Run) -> StepReading:
        """Answer and grade ``ctx``'s step from ``evidence``."""
        ...


class Rewriter(Protocol):
    """Rewrites a step's query when its evidence was weak."""

    async def arewrite(
        self, ctx: StepContext, query: str, evidence: Sequence[Evidence], attempt: int, run: Run
    ) -> str:
        """A better query than ``query``."""
        ...


class Synthesizer(Protocol):
    """Writes the cited final answer."""

    async def asynthesize(
        self,
        question: str,
        plan: Plan,
        steps: Sequence[StepTrace],
        evidence: Sequence[Evidence],
        run: Run,
    ) -> Answer:
        """The answer to ``question`` from the steps and the evidence."""
        ...


class Reflector(Protocol):
    """Checks a final answer against its citations and the question."""

    async def areflect(self, question: str, plan: Plan, answer: Answer, run: Run) -> Reflection:
        """Check ``answer``."""
        ...
