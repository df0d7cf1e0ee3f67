"""The answer pipeline: plan → route each step → retrieve → grade (rewrite and retry) → step
answer bound into later steps → cited synthesis, all recorded in a trace.

Independent steps of a plan run concurrently; store calls run in worker threads. Without a
chat model every stage uses its deterministic method; with one, the LLM stages are used under
a per-question budget and fall back to the deterministic ones on failure.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from extraction.structured import model_id
from kg_rag.answer import offline
from kg_rag.answer.llm import LLMCaller
from kg_rag.answer.planner import RulePlanner, bind_query
from kg_rag.answer.prompts import (
    GRADER_PROMPT,
    PLANNER_PROMPT,
    REWRITE_PROMPT,
    STEP_ANSWER_PROMPT,
)
from kg_rag.answer.router import LLMRouter, RouteContext, RuleRouter
from kg_rag.answer.synthesizer import synthesize
from kg_rag.answer.trace import Answer, Grade, StepTrace, Trace
from kg_rag.config import RouterSettings
from kg_rag.errors import BudgetExceeded, LLMError
from kg_rag.models import Evidence, Plan, PlanStep, Route, RouteDecision
from kg_rag.retrieval.chunks import ChunkRetriever
from kg_rag.retrieval.community import CommunityRetriever, map_reduce_offline
from kg_rag.retrieval.fusion import WHOLE_LIST, fuse_final, fuse_whole_question, rrf
from kg_rag.retrieval.graph import EntityLinker, GraphRetriever

__all__ = ["AnswerPipeline", "Depth", "fuse"]

Depth = Literal["fast", "full"]

log = logging.getLogger(__name__)
_UNBOUND = re.compile(r"#\d+")


def fuse(lists: Sequence[tuple[Sequence[Evidence], float]], k: int = 60) -> list[Evidence]:
    """Weighted reciprocal-rank fusion of evidence lists (by chunk id)."""
    return rrf(lists, k)


class _StepAnswer(BaseModel):
    answer: str
    evidence_numbers: list[int] = Field(default_factory=list)


class _Grade(BaseModel):
    score: float
    reason: str = ""


class _Rewrite(BaseModel):
    query: str


class AnswerPipeline:
    """Runs questions against the retrieval routes.

    Args:
        chunks: the chunks route.
        graph: the graph route (None when the knowledge base has no graph).
        linker: entity linker of the graph route.
        community: the community route (None when no communities were built).
        settings: routing, grading and budget settings.
        model: a chat model, or None for the deterministic (offline) pipeline.
    """

    def __init__(
        self,
        chunks: ChunkRetriever,
        graph: GraphRetriever | None,
        linker: EntityLinker | None,
        community: CommunityRetriever | None,
        settings: RouterSettings,
        model: BaseChatModel | None = None,
        top_k: int = 5,
    ) -> None:
        self.chunks = chunks
        self.graph = graph
        self.linker = linker
        self.community = community
        self.settings = settings
        self.model = model if settings.mode != "rules" else None
        self.top_k = top_k
        self.rule_planner = RulePlanner()
        self.rule_router = RuleRouter(top_k=top_k, has_communities=community is not None)
        self.llm_router = LLMRouter(self.rule_router, model_id(model) if model is not None else "")

    # -- public -------------------------------------------------------------------------
    async def aretrieve(
        self, question: str, top_k: int | None = None, depth: Depth = "full"
    ) -> tuple[list[Evidence], Answer | None]:
        """Evidence for ``question``, best first, and the answer object (``None`` when fast).

        ``depth="full"`` runs the whole pipeline (plan, routed steps, cited step evidence);
        ``depth="fast"`` only the whole-question search (hybrid fused with graph PPR), for
        latency-bound callers.
        """
        if depth == "fast":
            whole = await self._whole_question(question)
            return whole.hits[: top_k or len(whole.hits)], None
        answer = await self.aask(question)
        return answer.evidence[: top_k or len(answer.evidence)], answer

    async def aask(self, question: str) -> Answer:
        """Answer ``question`` with citations and a trace."""
        t0 = time.perf_counter()
        caller = self._caller()
        trace = Trace(question=question)
        plan = await self._plan(question, caller, trace)
        trace.plan = plan
        answers: dict[int, str] = {}
        results: dict[int, StepTrace] = {}
        truncated = False
        # The whole question is searched (hybrid + graph PPR) while the steps run.
        whole = asyncio.create_task(self._whole_question(question))
        try:
            for wave in _waves(plan.steps):
                done = await asyncio.gather(
                    *(self._run_step(step, answers, caller, trace) for step in wave)
                )
                for st in done:
                    results[st.index] = st
                    if st.answer:
                        answers[st.index] = st.answer
        except BudgetExceeded as exc:
            truncated = True
            trace.notes.append(str(exc))
        trace.steps = [results[i] for i in sorted(results)]
        trace.whole_question = await whole
        context = fuse([(trace.whole_question.hits, 1.0)] + [(st.hits, 0.7) for st in trace.steps])
        try:
            answer = await synthesize(question, plan, trace.steps, context, caller, self.linker)
        except BudgetExceeded as exc:
            truncated = True
            trace.notes.append(str(exc))
            answer = await synthesize(question, plan, trace.steps, context, None, self.linker)
        answer.evidence = self._final_evidence(
            answer, trace.steps, trace.whole_question, self.top_k
        )
        if caller is not None:
            trace.llm_calls = int(caller.usage.calls)
            trace.prompt_tokens = int(caller.usage.prompt_tokens)
            trace.completion_tokens = int(caller.usage.completion_tokens)
        truncated = truncated or (caller is not None and caller.exhausted)
        if caller is not None and caller.exhausted and not trace.notes:
            trace.notes.append("LLM budget reached; later stages used deterministic methods")
        trace.truncated = truncated
        trace.ms = round((time.perf_counter() - t0) * 1000, 2)
        answer.trace = trace
        answer.truncated = truncated
        return answer

    # -- stages ---------------------------------------------------------------------------
    def _caller(self) -> LLMCaller | None:
        if self.model is None:
            return None
        return LLMCaller(
            self.model,
            max_calls=self.settings.max_llm_calls,
            max_tokens=self.settings.max_tokens,
            max_retries=2,
        )

    async def _plan(self, question: str, caller: LLMCaller | None, trace: Trace) -> Plan:
        if caller is not None:
            try:
                plan = await caller.structured(
                    Plan, PLANNER_PROMPT.format(question=question), purpose="plan"
                )
                plan.question = question
                plan.planner = "llm"
                if plan.steps and all(s.index == i + 1 for i, s in enumerate(plan.steps)):
                    return plan
                trace.notes.append("LLM plan had bad step numbering; used rules")
            except (LLMError, BudgetExceeded) as exc:
                trace.notes.append(f"LLM planner failed ({exc}); used rules")
        return self.rule_planner.plan(question)

    async def _route(
        self, step: PlanStep, query: str, ctx: RouteContext, caller: LLMCaller | None
    ) -> RouteDecision:
        if caller is not None:
            return await self.llm_router.aroute(step, query, ctx, caller)
        return self.rule_router.route(step, query, ctx)

    async def _retrieve(
        self,
        decision: RouteDecision,
        query: str,
        linked: list[Any],
        st: StepTrace,
        caller: LLMCaller | None,
    ) -> list[Evidence]:
        top_k = max(decision.top_k, self.top_k)
        if decision.route == "community" and self.community is not None:
            return await asyncio.to_thread(self.community.search, query, top_k)
        search = asyncio.to_thread(self.chunks.search, query, decision.granularity, top_k * 2)
        if decision.route == "graph" and self.graph is not None and linked:
            linked = list(linked) + await self._text2cypher_seeds(query, st, caller)
            # The chunk search and the graph walk are independent: run them side by side.
            hybrid, (graph_ev, calls, _) = await asyncio.gather(
                search, asyncio.to_thread(self.graph.retrieve, linked, top_k * 2)
            )
            st.cypher.extend(calls)
            return fuse([(hybrid, 1.0), (graph_ev, 0.8)])[: top_k * 2]
        return await search

    async def _text2cypher_seeds(
        self, query: str, st: StepTrace, caller: LLMCaller | None
    ) -> list[Any]:
        """Entities named in the rows of validated, read-only LLM-written Cypher (Neo4j only);
        nothing when disabled, refused or failing (the templates still run)."""
        if not (self.settings.text2cypher and caller is not None and self.linker is not None):
            return []
        store = self.linker.graph
        if getattr(store, "backend", "") != "neo4j":
            return []
        from kg_rag.retrieval.text2cypher import Text2Cypher

        rows, call = await Text2Cypher(store, caller).run(query)
        st.cypher.append(call)
        if not rows:
            return []
        names = sorted({str(v) for row in rows for v in row.values() if isinstance(v, str)})
        return await asyncio.to_thread(self.linker.link, " ; ".join(names[:20]))

    async def _grade(self, query: str, evidence: list[Evidence], caller: LLMCaller | None) -> Grade:
        if caller is not None and evidence:
            text = "\n".join(f"[{i + 1}] {e.text[:600]}" for i, e in enumerate(evidence[:4]))
            try:
                g = await caller.structured(
                    _Grade, GRADER_PROMPT.format(query=query, evidence=text), purpose="grade"
                )
                score = max(0.0, min(1.0, g.score))
                return Grade(
                    score=score,
                    passed=score >= self.settings.grade_threshold,
                    reason=g.reason,
                    grader="llm",
                )
            except (LLMError, BudgetExceeded):
                pass
        return offline.grade_evidence(query, evidence, self.settings.grade_threshold)

    async def _rewrite(
        self,
        query: str,
        evidence: list[Evidence],
        names: list[str],
        attempt: int,
        caller: LLMCaller | None,
    ) -> str:
        if caller is not None:
            seen = " | ".join(e.text[:160] for e in evidence[:2]) or "(none)"
            try:
                r = await caller.structured(
                    _Rewrite, REWRITE_PROMPT.format(query=query, evidence=seen), purpose="rewrite"
                )
                if r.query.strip():
                    return r.query.strip()
            except (LLMError, BudgetExceeded):
                pass
        return offline.rewrite_query(query, names, attempt)

    async def _step_answer(
        self, query: str, evidence: list[Evidence], caller: LLMCaller | None, st: StepTrace
    ) -> None:
        names = self.linker.names() if self.linker is not None else {}
        if caller is not None and evidence:
            text = "\n".join(f"[{i + 1}] {e.text[:700]}" for i, e in enumerate(evidence[:5]))
            try:
                r = await caller.structured(
                    _StepAnswer,
                    STEP_ANSWER_PROMPT.format(query=query, evidence=text),
                    purpose="step-answer",
                )
                if r.answer.strip() and r.answer.strip().lower() != "unknown":
                    st.answer = r.answer.strip()
                    return
            except (LLMError, BudgetExceeded):
                pass
        if st.decision.route == "community" and self.community is not None:
            # Offline global answer: map-reduce over the retrieved community summaries.
            ids = {e.chunk_id for e in evidence}
            comms = [c for c in self.community.index.all() if c.community_id in ids]
            findings = map_reduce_offline(query, comms, top_n=3)
            st.answer = " ".join(findings)
            return
        span = offline.extract_answer(query, evidence, names)
        if span is not None:
            st.answer = span.text
            if self.linker is not None:
                linked_ids = [le.entity_id for le in self.linker.link(span.text, limit=1)]
                st.answer_entity_id = linked_ids[0] if linked_ids else None

    async def _run_step(
        self, step: PlanStep, answers: dict[int, str], caller: LLMCaller | None, trace: Trace
    ) -> StepTrace:
        t0 = time.perf_counter()
        bound = _UNBOUND.sub("", bind_query(step.query, answers)).strip()
        linked = await asyncio.to_thread(self.linker.link, bound) if self.linker is not None else []
        ctx = RouteContext(linked=[le.model_dump() for le in linked], answers=dict(answers))
        decision = await self._route(step, bound, ctx, caller)
        if self.settings.fixed_granularity is not None:
            decision = decision.model_copy(update={"granularity": self.settings.fixed_granularity})
        st = StepTrace(
            index=step.index,
            query=step.query,
            bound_query=bound,
            decision=decision,
            linked_entities=[le.model_dump() for le in linked],
        )
        query = bound
        evidence: list[Evidence] = []
        for attempt in range(self.settings.max_retries + 1):
            st.attempts.append(f"{decision.route}/{decision.granularity}: {query}")
            evidence = await self._retrieve(decision, query, linked, st, caller)
            grade = await self._grade(query, evidence, caller)
            st.grades.append(grade)
            if grade.passed or attempt == self.settings.max_retries:
                break
            query = await self._rewrite(
                query, evidence, [le.name for le in linked], attempt + 1, caller
            )
            st.rewrites.append(query)
            if decision.route == "graph":
                decision = decision.model_copy(
                    update={
                        "route": "chunks",
                        "reason": decision.reason + "; weak evidence → chunks",
                    }
                )
            elif linked and self.graph is not None:
                decision = decision.model_copy(
                    update={"route": "graph", "reason": decision.reason + "; weak evidence → graph"}
                )
            st.decision = decision
        st.hits = evidence
        if step.kind != "compare":  # a comparison is decided by the synthesizer
            await self._step_answer(bound, evidence, caller, st)
        st.ms = round((time.perf_counter() - t0) * 1000, 2)
        return st

    async def _whole_question(self, question: str) -> StepTrace:
        """Hybrid search and graph PPR for the question as a whole (trace step 0)."""
        t0 = time.perf_counter()
        linked = (
            await asyncio.to_thread(self.linker.link, question) if self.linker is not None else []
        )
        route: Route = "graph" if linked and self.graph is not None else "chunks"
        st = StepTrace(
            index=0,
            query=question,
            bound_query=question,
            decision=RouteDecision(
                route=route,
                granularity="paragraph",
                top_k=self.top_k,
                reason="whole question: hybrid search fused with PPR from its linked entities",
            ),
            linked_entities=[le.model_dump() for le in linked],
        )
        size = max(self.top_k, WHOLE_LIST)
        search = asyncio.to_thread(self.chunks.search, question, "paragraph", size)
        if route == "graph":
            assert self.graph is not None
            full, (graph_ev, calls, _) = await asyncio.gather(
                search, asyncio.to_thread(self.graph.retrieve, linked, size, 1, False)
            )
            st.cypher.extend(calls)
        else:
            full, graph_ev = await search, []
        st.hits = fuse_whole_question(full, graph_ev)
        st.ms = round((time.perf_counter() - t0) * 1000, 2)
        return st

    @staticmethod
    def _final_evidence(
        answer: Answer, steps: Sequence[StepTrace], whole: StepTrace, top_k: int
    ) -> list[Evidence]:
        """The answer's evidence: the whole-question ranking fused with the chunks the answer
        cites (they hold the step answers, e.g. a bridge entity the question never names)."""
        pool = {e.chunk_id: e for st in steps for e in st.hits}
        pool.update({e.chunk_id: e for e in whole.hits})
        cited = [pool[c.chunk_id] for c in answer.citations if c.chunk_id in pool]
        cited = list({e.chunk_id: e for e in cited}.values())
        return fuse_final(whole.hits, cited, top_k)


def _waves(steps: Sequence[PlanStep]) -> list[list[PlanStep]]:
    """Group steps into waves whose dependencies are all in earlier waves."""
    done: set[int] = set()
    pending = list(steps)
    waves: list[list[PlanStep]] = []
    while pending:
        wave = [s for s in pending if all(d in done or d >= s.index for d in s.depends_on)]
        if not wave:  # a cycle or a dangling dependency: run the rest in order
            wave = pending[:1]
        waves.append(wave)
        done |= {s.index for s in wave}
        pending = [s for s in pending if s.index not in done]
    return waves
