"""The answer pipeline: it only orchestrates the stages of :mod:`kg_rag.answer.stages`.

gate → plan → for each wave of independent steps: link, route, retrieve, read (answer + grade),
rewrite and retry when weak → bind answers into later steps → synthesize with citations →
reflect (one bounded retry) — all recorded in the trace. Every stage is an injected part with an
LLM and an offline implementation; :func:`~kg_rag.answer.stages.staged` runs LLM → offline and
records each fallback. Retrieval (chunks, graph, communities) is reached through the retrievers
given to the constructor.

LLM cost per question is at most ``steps + 2`` calls: the plan, one read per step (weak evidence
is rewritten and searched again *before* the one read, by the offline grade), the synthesis;
comparison steps are decided without a call, routing asks the model only where the rules abstain.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel

from extraction.structured import StructuredMethod
from kg_rag.answer.checks import OfflineReflector, RuleGate
from kg_rag.answer.llm import LLMCaller
from kg_rag.answer.llm_stages import (
    LLMGate,
    LLMPlanner,
    LLMReflector,
    LLMRewriter,
    LLMRouter,
    LLMStepReader,
    model_key,
)
from kg_rag.answer.offline import OfflineRewriter
from kg_rag.answer.planner import RulePlanner, bind_query
from kg_rag.answer.reader import RELATED_LIMIT, OfflineStepReader, read_evidence
from kg_rag.answer.router import RuleRouter
from kg_rag.answer.stages import Run, StepContext, StepReading, staged
from kg_rag.answer.synthesizer import NOT_FOUND, ExtractiveSynthesizer, LLMSynthesizer, cite
from kg_rag.answer.trace import Answer, StepTrace, Trace
from kg_rag.config import RouterSettings
from kg_rag.errors import BudgetExceeded
from kg_rag.models import Evidence, Plan, PlanStep, Route, RouteDecision
from kg_rag.retrieval.chunks import ChunkRetriever, rescore_pool
from kg_rag.retrieval.community import CommunityRetriever, map_reduce_offline
from kg_rag.retrieval.fusion import WHOLE_LIST, WHOLE_RRF_K, fuse_final, fuse_whole_question, rrf
from kg_rag.retrieval.graph import EntityLinker, GraphRetriever
from kg_rag.retrieval.packing import answer_context, pack_evidence
from kg_rag.retrieval.rerank import SentenceFocus

__all__ = ["AnswerPipeline", "Depth"]

Depth = Literal["fast", "full"]
T = TypeVar("T")

log = logging.getLogger(__name__)
_UNBOUND = re.compile(r"#\d+")


class AnswerPipeline:
    """Runs questions against the retrieval routes through the injected stages.

    Args:
        chunks: the chunks route.
        graph: the graph route (None when the knowledge base has no graph).
        linker: entity linker of the graph route.
        community: the community route (None when no communities were built).
        settings: routing, grading, budget and fallback settings.
        model: a chat model, or None for the deterministic (offline) pipeline.
        top_k: evidence per step.
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
        structured_method: StructuredMethod = "function_calling",
    ) -> None:
        self.chunks = chunks
        self.structured_method: StructuredMethod = structured_method
        self.graph = graph
        self.linker = linker
        self.community = community
        self.settings = settings
        self.model = model if settings.mode != "rules" else None
        self.top_k = top_k
        # Retrieval work runs on threads only where it waits on a server (a Neo4j graph store):
        # in process (LanceDB on disk, the embedded graph) it is Python holding the GIL, and on
        # a small machine the thread hops and GIL contention cost more than the overlap gains
        # (musique-dev, 2 CPUs: full-depth p50 96-104 ms inline, 116-121 ms on threads).
        self.offload = graph is not None and getattr(graph.graph, "backend", "") == "neo4j"
        self.focus = SentenceFocus(chunks.store)
        # Offline stages: always present (the offline pipeline and every LLM stage's fallback).
        self.gate = RuleGate()
        self.planner = RulePlanner(linker.is_name if linker is not None else None)
        self.router = RuleRouter(top_k=top_k, has_communities=community is not None)
        self.reader = OfflineStepReader(linker, settings.grade_threshold, chunks.store)
        self.rewriter = OfflineRewriter()
        self.synthesizer = ExtractiveSynthesizer(self.reader.graph)
        self.reflector = OfflineReflector()
        # LLM stages (used when a model is configured).
        self.llm_gate = LLMGate() if settings.llm_gate else None
        self.llm_planner = LLMPlanner(settings.max_plan_steps)
        self.llm_router = LLMRouter(
            self.router, model_key(model), settings.max_top_k, enabled=settings.llm_route
        )
        self.llm_reader = LLMStepReader(settings.grade_threshold)
        self.llm_rewriter = LLMRewriter()
        self.llm_synthesizer = LLMSynthesizer()
        self.llm_reflector = LLMReflector() if settings.llm_reflect else None

    # -- public -------------------------------------------------------------------------
    async def aretrieve(
        self, question: str, top_k: int | None = None, depth: Depth = "full"
    ) -> tuple[list[Evidence], Answer | None]:
        """Evidence for ``question``, best first, and the answer object (``None`` when fast).

        ``depth="full"`` runs the whole pipeline (plan, routed steps, cited step evidence);
        ``depth="fast"`` only the whole-question search (hybrid fused with graph PPR).
        """
        if depth == "fast":
            whole = await self._whole_question(question)
            return whole.hits[: top_k or len(whole.hits)], None
        answer = await self.aask(question, gate=False)
        return answer.evidence[: top_k or len(answer.evidence)], answer

    async def aask(self, question: str, gate: bool = True) -> Answer:
        """Answer ``question`` with citations and a trace."""
        t0 = time.perf_counter()
        run = Run(
            trace=Trace(question=question),
            caller=self._caller(),
            on_fallback=self.settings.on_fallback,
        )
        trace = run.trace
        trace.stages = self._stage_names()
        if gate:
            llm_gate = self.llm_gate
            decision = await staged(
                "gate",
                run,
                (lambda: llm_gate.agate(question, run)) if llm_gate is not None else None,
                lambda: self.gate.agate(question, run),
            )
            trace.gate = decision.model_dump()
            if not decision.needs_kb:
                return self._finish(
                    run,
                    Answer(
                        question=question,
                        text=decision.reply,
                        short_answer=decision.reply,
                        trace=trace,
                    ),
                    t0,
                )
        plan = await staged(
            "planner",
            run,
            lambda: self.llm_planner.aplan(question, run),
            lambda: self.planner.aplan(question, run),
        )
        trace.plan = plan
        # The question and the steps that wait for no other step are embedded together.
        first = [
            _bound(s.query, {}) for s in plan.steps if not s.depends_on and s.kind != "compare"
        ]
        await self._work(self.chunks.store.embed_queries, [question, *first])
        whole = asyncio.create_task(self._whole_question(question, run.graph_memo))
        run.whole = whole
        answers: dict[int, str] = {}
        results: dict[int, StepTrace] = {}
        try:
            for wave in _waves(plan.steps):
                done = await asyncio.gather(*(self._run_step(step, answers, run) for step in wave))
                for st in done:
                    results[st.index] = st
                    if st.answer:
                        answers[st.index] = st.answer
        except BudgetExceeded as exc:  # a step's offline stages finished it; stop planning more
            run.truncated = True
            trace.notes.append(str(exc))
        trace.steps = [results[i] for i in sorted(results)]
        trace.whole_question = await whole
        context = answer_context(trace.whole_question.hits, [st.hits for st in trace.steps])
        llm_context = context
        if self.model is not None:  # what the answer model reads: focused, packed to budget
            llm_context = self.pack_context(await self._work(self.answer_context, trace))
        answer = await staged(
            "synthesizer",
            run,
            lambda: self.llm_synthesizer.asynthesize(question, plan, trace.steps, llm_context, run),
            lambda: self.synthesizer.asynthesize(question, plan, trace.steps, context, run),
        )
        answer = await self._reflect(question, plan, answer, context, run)
        answer.evidence = fuse_final(trace.whole_question.hits, _cited(answer, trace), self.top_k)
        answer.trace = trace
        return self._finish(run, answer, t0)

    def answer_context(self, trace: Trace) -> list[Evidence]:
        """The ranked evidence the answer model is handed before the budget cut: the
        whole-question ranking fused with the step hits (the same for every granularity);
        with routed granularity (no fixed one set) each piece's best sentence for the
        question, its steps and their answers marked, and the pieces reranked by it
        (:class:`~kg_rag.retrieval.rerank.SentenceFocus`)."""
        whole = trace.whole_question.hits if trace.whole_question is not None else []
        # k as in the whole-question fusion: with k=60 the whole-question list's 20th hit
        # outranked every step's first (bench/granularity.py, engine_paragraph evidence
        # recall@1024 .790 → .842, @512 .677 → .723).
        context = answer_context(whole, [st.hits for st in trace.steps], k=WHOLE_RRF_K)
        if self.settings.fixed_granularity is not None:
            return context
        queries = [trace.question, *(st.bound_query for st in trace.steps)]
        answers = [st.answer for st in trace.steps if st.answer]
        return self.focus.annotate(context, queries, answers)

    def pack_context(
        self, context: Sequence[Evidence], budget: int | None = None
    ) -> list[Evidence]:
        """``context`` cut to ``budget`` tokens (default ``context_tokens``): with routed
        granularity hit sentences first, widened where the budget allows; with a fixed one,
        whole pieces (:func:`~kg_rag.retrieval.packing.pack_evidence`)."""
        share = self.settings.sentence_share if self.settings.fixed_granularity is None else None
        return pack_evidence(context, budget or self.settings.context_tokens, sentence_share=share)

    # -- stages ---------------------------------------------------------------------------
    async def _work(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``: on a worker thread when :attr:`offload` (I/O to a server, so the
        other steps run meanwhile), else inline."""
        if self.offload:
            return await asyncio.to_thread(fn, *args)
        return fn(*args)

    def _caller(self) -> LLMCaller | None:
        if self.model is None:
            return None
        return LLMCaller(
            self.model,
            max_calls=self.settings.max_llm_calls,
            max_tokens=self.settings.max_tokens,
            max_retries=2,
            completion_reserve=self.settings.completion_reserve,
            method=self.structured_method,
        )

    def _stage_names(self) -> dict[str, str]:
        llm = self.model is not None
        return {
            "gate": "llm" if llm and self.llm_gate else "rules",
            "planner": "llm" if llm else "rules",
            "router": "rules+llm" if llm and self.settings.llm_route else "rules",
            "reader": "llm" if llm else "offline",
            "rewriter": "offline",
            "synthesizer": "llm" if llm else "extractive",
            "reflector": "llm" if llm and self.llm_reflector else "offline",
        }

    def _finish(self, run: Run, answer: Answer, t0: float) -> Answer:
        trace = run.trace
        caller = run.caller
        if caller is not None:
            trace.llm_calls = int(caller.usage.calls)
            trace.prompt_tokens = int(caller.usage.prompt_tokens)
            trace.completion_tokens = int(caller.usage.completion_tokens)
            trace.calls_by_stage = dict(run.stage_calls)
            if caller.exhausted:
                run.truncated = True
        if run.truncated and not any("cap" in note for note in trace.notes):
            used = f" ({trace.llm_calls} calls, {trace.prompt_tokens + trace.completion_tokens} tokens)"
            trace.notes.append(
                "LLM budget cap reached"
                + (used if caller is not None else "")
                + ": the remaining stages used their deterministic methods"
            )
        trace.truncated = run.truncated
        trace.ms = round((time.perf_counter() - t0) * 1000, 2)
        answer.trace = trace
        answer.truncated = run.truncated
        return answer

    async def _reflect(
        self, question: str, plan: Plan, answer: Answer, context: list[Evidence], run: Run
    ) -> Answer:
        """Check the answer; when it fails, one bounded retry over the whole context, then an
        honest "not found" when nothing supported is left."""
        check = await self.reflector.areflect(question, plan, answer, run)
        if self.llm_reflector is not None and check.ok:
            reflector = self.llm_reflector
            check = await staged(
                "reflector",
                run,
                lambda: reflector.areflect(question, plan, answer, run),
                lambda: self.reflector.areflect(question, plan, answer, run),
            )
        run.trace.reflection = {**check.model_dump(), "retried": False}
        steps = run.trace.steps
        if (
            check.ok
            or plan.comparison is not None
            or (steps and steps[-1].decision.route == "community")
        ):
            return answer
        final = run.trace.steps[-1] if run.trace.steps else None
        linked = final.linked_refs() if final else []
        best, _ = read_evidence(question, plan.answer_type, context, linked, self.reader.graph)
        retry = answer
        if best is not None and best.text != answer.short_answer:
            ev = context[best.evidence_index]
            retry = answer.model_copy(
                update={
                    "text": f"{best.text} [1]",
                    "short_answer": best.text,
                    "citations": [cite(ev, 1, *best.sentence)],
                }
            )
            second = await self.reflector.areflect(question, plan, retry, run)
            run.trace.reflection = {**second.model_dump(), "retried": True, "first": check.reason}
            if second.ok:
                return retry
        if not check.supported:
            run.trace.notes.append(f"reflection: {check.reason}; answered not found")
            return answer.model_copy(
                update={"text": NOT_FOUND, "short_answer": "", "citations": []}
            )
        return answer

    async def _retrieve(
        self, decision: RouteDecision, query: str, ctx: StepContext, st: StepTrace, run: Run
    ) -> list[Evidence]:
        top_k = max(1, min(decision.top_k, 4 * self.top_k, self.settings.max_top_k), self.top_k)
        if decision.route == "community" and self.community is not None:
            return await self._work(self.community.search, query, top_k)

        def search() -> Coroutine[Any, Any, list[Evidence]]:
            return self._work(self.chunks.search, query, decision.granularity, top_k * 2)

        if decision.route == "graph" and self.graph is not None and ctx.linked:
            seeds = list(ctx.linked) + await self._text2cypher_seeds(query, st, run)
            linked_ids = [le.entity_id for le in ctx.linked]
            pooled = (
                self.settings.step_search == "pool"
                and run.whole is not None
                and decision.granularity in ("paragraph", "sentence")
            )
            # The linked entities' neighbourhood is read once, beside the searches: the trace
            # records it and the reader takes the entities related to the linked ones from it.
            graph_part = asyncio.gather(
                self._work(
                    self.graph.retrieve,
                    seeds,
                    top_k * (4 if pooled else 2),
                    1,
                    True,
                    False,
                    run.graph_memo,
                ),
                self._work(self.graph.related, linked_ids, RELATED_LIMIT),
            )
            if pooled:
                (graph_ev, calls, _), (related, call) = await graph_part
                whole: StepTrace = await run.whole
                pool = list({e.chunk_id: e for e in [*whole.hits, *graph_ev]}.values())
                hybrid = await self._work(
                    rescore_pool, self.chunks.store, query, pool, decision.granularity
                )
            else:
                hybrid, ((graph_ev, calls, _), (related, call)) = await asyncio.gather(
                    search(), graph_part
                )
            ctx.related = sorted(related)
            st.cypher.extend([call, *calls])
            fused = rrf([(hybrid[: top_k * 2], 1.0), (graph_ev[: top_k * 2], 0.8)])[: top_k * 2]
            return _keep_leaders(fused, [hybrid[:1], graph_ev[:1]], top_k)
        return await search()

    async def _text2cypher_seeds(self, query: str, st: StepTrace, run: Run) -> list[Any]:
        """Entities named in the rows of validated, read-only LLM-written Cypher (Neo4j only);
        nothing when disabled, refused or failing (the templates still run)."""
        if not (self.settings.text2cypher and run.caller is not None and self.linker is not None):
            return []
        store = self.linker.graph
        if getattr(store, "backend", "") != "neo4j":
            return []
        from kg_rag.retrieval.text2cypher import Text2Cypher

        rows, call = await Text2Cypher(store, run.caller).run(query)
        st.cypher.append(call)
        if not rows:
            return []
        names = sorted({str(v) for row in rows for v in row.values() if isinstance(v, str)})
        return await self._work(self.linker.link, " ; ".join(names[:20]))

    async def _read(
        self, ctx: StepContext, evidence: list[Evidence], st: StepTrace, run: Run
    ) -> StepReading:
        if st.decision.route == "community" and self.community is not None:
            ids = {e.chunk_id for e in evidence}
            comms = [c for c in self.community.index.all() if c.community_id in ids]
            findings = map_reduce_offline(ctx.query, comms, top_n=3)
            reading = await self.reader.aread(ctx, evidence, run)
            return reading.model_copy(update={"answer": " ".join(findings), "reader": "map-reduce"})
        return await self.reader.aread(ctx, evidence, run)

    async def _run_step(self, step: PlanStep, answers: dict[int, str], run: Run) -> StepTrace:
        t0 = time.perf_counter()
        bound = _bound(step.query, answers)
        linked = await self._work(self.linker.link, bound) if self.linker is not None else []
        question = run.trace.question
        comp = run.trace.plan.comparison if run.trace.plan is not None else None
        if comp is not None and comp.order == "equal" and step.index in comp.value_steps:
            # "Is X the birthplace of A?": the name the question gives is the value this step
            # may find, so it is no name of the question to keep out of the answers.
            question = question.replace(comp.threshold, " ")
        ctx = StepContext(
            step=step,
            query=bound,
            linked=list(linked),
            answers=dict(answers),
            question=question,
        )
        if step.kind == "compare":  # decided from the value steps by the synthesizer
            return StepTrace(
                index=step.index,
                query=step.query,
                bound_query=bound,
                decision=RouteDecision(
                    route="chunks",
                    granularity="sentence",
                    top_k=0,
                    reason="comparison: decided from the value steps, no retrieval",
                ),
                answer_type=step.answer_type,
                ms=round((time.perf_counter() - t0) * 1000, 2),
            )
        decision = await staged(
            "router",
            run,
            lambda: self.llm_router.aroute(ctx, run),
            lambda: self.router.aroute(ctx, run),
        )
        if self.settings.fixed_granularity is not None:
            decision = decision.model_copy(update={"granularity": self.settings.fixed_granularity})
        st = StepTrace(
            index=step.index,
            query=step.query,
            bound_query=bound,
            decision=decision,
            linked_entities=[le.model_dump() for le in linked],
            answer_type=step.answer_type,
        )
        query = bound
        evidence: list[Evidence] = []
        reading: StepReading | None = None
        best: tuple[StepReading, list[Evidence], StepContext] | None = None
        for attempt in range(self.settings.max_retries + 1):
            st.attempts.append(f"{decision.route}/{decision.granularity}: {query}")
            evidence = await self._retrieve(decision, query, ctx, st, run)
            reading = await self._read(ctx, evidence, st, run)
            st.grades.append(reading.grade)
            if best is None or reading.grade.score > best[0].grade.score:
                best = (reading, evidence, ctx)
            if reading.grade.passed or attempt == self.settings.max_retries:
                break
            described = described_query(step, answers, run.trace.plan) if attempt == 0 else ""
            if described and described != query:
                # The earlier answer this step binds may be the wrong one (or no name at all:
                # "the lantern of X"): look again with the earlier steps' own words instead.
                query = described
                linked = (
                    await self._work(self.linker.link, query) if self.linker is not None else []
                )
                ctx = ctx.model_copy(update={"query": query, "linked": list(linked)})
                st.rewrites.append(query)
                route: Route = "graph" if linked and self.graph is not None else "chunks"
                decision = decision.model_copy(
                    update={
                        "route": route,
                        "reason": f"{decision.reason}; weak evidence → the earlier steps' words",
                    }
                )
                st.decision = decision
                continue
            query = await self.rewriter.arewrite(ctx, query, evidence, attempt + 1, run)
            st.rewrites.append(query)
            new_route: Route = (
                "chunks"
                if decision.route == "graph"
                else ("graph" if linked and self.graph is not None else decision.route)
            )
            if new_route != decision.route:
                decision = decision.model_copy(
                    update={
                        "route": new_route,
                        "reason": f"{decision.reason}; weak evidence → {new_route}",
                    }
                )
            st.decision = decision
        if best is not None and reading is not None and best[0] is not reading:
            # The best-graded attempt answers, not merely the last one.
            reading, evidence, ctx = best
        st.hits = evidence
        offline_reading = reading
        if run.caller is not None and evidence and st.decision.route != "community":
            final_reading = await staged(
                "reader",
                run,
                lambda: self.llm_reader.aread(ctx, evidence, run),
                lambda: _ready(offline_reading),
            )
            if final_reading is not offline_reading:
                st.grades.append(final_reading.grade)
            reading = final_reading
        if reading is not None:
            st.answer = reading.answer
            st.reader = reading.reader
            st.answer_entity_id = reading.entity_id
            if st.answer and st.answer_entity_id is None and self.linker is not None:
                ids = [le.entity_id for le in self.linker.link(st.answer, limit=1)]
                st.answer_entity_id = ids[0] if ids else None
        st.ms = round((time.perf_counter() - t0) * 1000, 2)
        return st

    async def _whole_question(
        self, question: str, graph_memo: dict[Any, Any] | None = None
    ) -> StepTrace:
        """Hybrid search and graph PPR for the question as a whole (trace step 0);
        ``graph_memo`` is the question's :attr:`Run.graph_memo`."""
        t0 = time.perf_counter()
        linked = await self._work(self.linker.link, question) if self.linker is not None else []
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
        search = self._work(self.chunks.search, question, "paragraph", size)
        if route == "graph":
            assert self.graph is not None
            full, (graph_ev, calls, _) = await asyncio.gather(
                search, self._work(self.graph.retrieve, linked, size, 1, False, True, graph_memo)
            )
            st.cypher.extend(calls)
        else:
            full, graph_ev = await search, []
        st.hits = fuse_whole_question(full, graph_ev)
        st.ms = round((time.perf_counter() - t0) * 1000, 2)
        return st


def described_query(step: PlanStep, answers: dict[int, str], plan: Plan | None) -> str:
    """``step``'s query with the earlier steps it binds written out as their own (bound)
    queries rather than their answers ("How many steps lead up to lantern of X" for "… up to
    #1"), or "" when it binds no answered step."""
    if plan is None or not step.depends_on:
        return ""
    queries = {s.index: s.query for s in plan.steps}
    words = {
        i: _bound(queries[i], answers) for i in step.depends_on if i in queries and i in answers
    }
    return _bound(step.query, {**answers, **words}) if words else ""


def _bound(query: str, answers: dict[int, str]) -> str:
    """A step's query with the earlier answers it names bound in (unanswered ones dropped)."""
    return _UNBOUND.sub("", bind_query(query, answers)).strip()


def _keep_leaders(
    fused: list[Evidence], leaders: Sequence[Sequence[Evidence]], window: int
) -> list[Evidence]:
    """``fused`` with each list's best hit inside its first ``window`` pieces: a fusion that
    rewards agreement can push one list's clear winner down (the paragraph that names the
    subject and states the fact, which PPR spreads thin), and the reader reads the window."""
    out = list(fused)
    for best in (lead[0] for lead in leaders if lead):
        at = next((i for i, e in enumerate(out) if e.chunk_id == best.chunk_id), None)
        if at is not None and at < window:
            continue
        piece = out.pop(at) if at is not None else best
        out.insert(window - 1, piece)
    return out


async def _ready(value: Any) -> Any:
    return value


def _cited(answer: Answer, trace: Trace) -> list[Evidence]:
    """The evidence the answer cites (it holds the step answers, e.g. a bridge entity the
    question never names)."""
    pool = {e.chunk_id: e for st in trace.steps for e in st.hits}
    if trace.whole_question is not None:
        pool.update({e.chunk_id: e for e in trace.whole_question.hits})
    cited = [pool[c.chunk_id] for c in answer.citations if c.chunk_id in pool]
    return list({e.chunk_id: e for e in cited}.values())


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
