"""Benchmark systems backed by the knowledge graph and the answer engine.

Registers, for ``bench/retrieval.py``:

* ``ppr`` — link the question's entities (names and aliases), run personalized PageRank over
  the offline-extracted graph, rank passages by the entity mass they mention;
* ``engine`` — the passages ``KnowledgeEngine.retrieve`` returns offline (planner, routed
  steps, whole-question hybrid + PPR, cited step evidence);
* ``engine_fast`` — ``retrieve(depth="fast")``: the whole-question search only (hybrid fused
  with graph PPR), no planning;
* ``engine_fixed_paragraph`` — the same with every step's granularity fixed to paragraph,
  the A/B baseline for routed granularity;
* ``engine_context`` / ``engine_context_rerank`` — the passages of the answer model's context
  before the budget cut, without and with the sentence-focus rerank (not in the defaults).

The graph is built once per run on the benchmark's own chunk store (offline extractor), and
its build time is reported (or reused with the chunk store from ``--kb-cache``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench._common import BenchContext, System, register_system, unique
from kg_rag.config import Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.graph_build import GraphBuilder
from kg_rag.stores.community_index import CommunityIndex
from kg_rag.stores.embedded import EmbeddedGraphStore


def build_graph(ctx: BenchContext) -> EmbeddedGraphStore:
    """Build the offline graph on the context's chunk store (once) and keep it in ``extras``."""
    graph = ctx.extras.get("graph_store")
    if graph is not None:
        return graph  # type: ignore[no-any-return]
    settings = Settings(kb_dir=ctx.kb_dir)
    graph = EmbeddedGraphStore(ctx.kb_dir)
    graph.open()
    builder = GraphBuilder(
        settings,
        ctx.store,
        graph,
        CommunityIndex(ctx.store.db, ctx.store.embedder),
        ctx.store.embedder,
        None,
        progress=False,
    )
    started = time.perf_counter()
    report = builder.update_graph([d.doc_id for d in ctx.store.list_documents()], [])
    seconds = time.perf_counter() - started
    print(
        f"{report}; graph build {seconds:.1f}s ({len(ctx.dataset.passages) / seconds:.0f} passages/s)"
    )
    ctx.extras["graph_store"] = graph
    ctx.extras["graph_report"] = {
        "seconds": round(seconds, 2),
        "entities": report.entities,
        "relations": report.relations,
        "entities_per_passage": round(report.entities / max(1, len(ctx.dataset.passages)), 2),
        "relations_per_passage": round(report.relations / max(1, len(ctx.dataset.passages)), 2),
    }
    return graph


def open_graph(kb_dir: Path, graph_report: dict[str, Any]) -> dict[str, Any]:
    """``extras`` for a knowledge base whose graph is already built (``--kb-cache``)."""
    graph = EmbeddedGraphStore(kb_dir)
    graph.open()
    print(f"graph: reused from the kb cache ({graph_report})")
    return {"graph_store": graph, "graph_report": dict(graph_report)}


def _engine(ctx: BenchContext, **router: Any) -> KnowledgeEngine:
    """An engine over the benchmark's chunk store, with the graph built once."""
    key = ("engine", tuple(sorted(router.items())))
    if key in ctx.extras:
        return ctx.extras[key]  # type: ignore[no-any-return]
    settings = Settings(kb_dir=ctx.kb_dir)
    settings.router = settings.router.model_copy(update={"mode": "rules", **router})
    graph = build_graph(ctx)
    engine = KnowledgeEngine(settings, ctx.store, graph, ctx.store.embedder, None, progress=False)
    engine.open_stores()  # both stores are open already: opening again is a no-op
    ctx.extras[key] = engine
    return engine


@register_system("ppr")
def ppr_system(ctx: BenchContext) -> System:
    engine = _engine(ctx)
    pipeline = engine.pipeline

    def run(question: str) -> list[str]:
        assert pipeline.linker is not None and pipeline.graph is not None
        linked = pipeline.linker.link(question)
        evidence, _, _ = pipeline.graph.retrieve(linked, top_k=30)
        return unique(e.doc_id for e in evidence)

    return run


def _engine_system(ctx: BenchContext, depth: Any = "full", **router: Any) -> System:
    engine = _engine(ctx, **router)

    def run(question: str) -> list[str]:
        return unique(e.doc_id for e in engine.retrieve(question, top_k=30, depth=depth))

    return run


@register_system("engine")
def engine_system(ctx: BenchContext) -> System:
    return _engine_system(ctx)


@register_system("engine_fast")
def engine_fast_system(ctx: BenchContext) -> System:
    return _engine_system(ctx, depth="fast")


@register_system("engine_pool")
def engine_pool_system(ctx: BenchContext) -> System:
    """The full engine with graph steps rescoring the whole question's pool
    (``RouterSettings.step_search = "pool"``) instead of searching the corpus again."""
    return _engine_system(ctx, step_search="pool")


@register_system("engine_fixed_paragraph")
def engine_fixed_system(ctx: BenchContext) -> System:
    return _engine_system(ctx, fixed_granularity="paragraph")


@register_system("engine_context")
def engine_context_system(ctx: BenchContext) -> System:
    """The passages of what the pipeline hands its answer model, before the budget cut
    (``AnswerPipeline.answer_context``: whole question fused with the step hits, no rerank)."""
    from kg_rag.retrieval.fusion import WHOLE_RRF_K
    from kg_rag.retrieval.packing import answer_context

    engine = _engine(ctx)

    def run(question: str) -> list[str]:
        trace = engine.ask(question).trace
        whole = trace.whole_question.hits if trace.whole_question is not None else []
        fused = answer_context(whole, [st.hits for st in trace.steps], k=WHOLE_RRF_K)
        return unique(e.doc_id for e in fused)

    return run


@register_system("engine_context_rerank")
def engine_context_rerank_system(ctx: BenchContext) -> System:
    """The same context with routed granularity: sentence focus and rerank
    (:class:`kg_rag.retrieval.rerank.SentenceFocus`)."""
    engine = _engine(ctx)

    def run(question: str) -> list[str]:
        trace = engine.ask(question).trace
        return unique(e.doc_id for e in engine.pipeline.answer_context(trace))

    return run
