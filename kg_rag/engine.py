"""``KnowledgeEngine``: the Python API of kg-rag.

One async core, one thin sync face: ``ingest``/``ask``/``retrieve``/``delete`` run their async
twins (``aingest``/``aask``/...), also inside Jupyter's running loop. Open and close
explicitly, or use a ``with`` block::

    with KnowledgeEngine.open("my-kb") as kg:
        kg.ingest([Path("docs/")])
        print(kg.ask("Which company did the co-founder of X start after leaving Y?"))
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from extraction.structured import run_sync
from kg_rag.answer.pipeline import AnswerPipeline, Depth
from kg_rag.answer.trace import Answer
from kg_rag.config import Settings
from kg_rag.embedder_choice import (
    choose_model,
    detect_languages,
    is_auto,
    recorded_model,
    sample_texts,
    write_kb_meta,
)
from kg_rag.embeddings import LOCAL_MODELS, build_embedder, embedder_name, local_embedder
from kg_rag.errors import ConfigError, SchemaMismatch
from kg_rag.graph_build import CommunityBuildReport, GraphBuilder, GraphReport
from kg_rag.ingest.executor import Executor, build_executor
from kg_rag.ingest.pipeline import ChunkIngestor, IngestReport, SourceDocument
from kg_rag.ingest.stages import ledger_for, run_stages
from kg_rag.models import CHUNK_LEVELS, Evidence
from kg_rag.retrieval.chunks import ChunkRetriever
from kg_rag.retrieval.community import CommunityRetriever
from kg_rag.retrieval.graph import EntityLinker, GraphRetriever
from kg_rag.stores._level_tables import level_table_name
from kg_rag.stores.base import GraphStore
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.stores.community_index import CommunityIndex
from kg_rag.stores.freshness import TableWatcher
from kg_rag.stores.ledger import Failure, IngestLedger

__all__ = ["KnowledgeEngine", "export_to_neo4j", "open_embedder", "run_sync"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def build_graph_store(settings: Settings) -> GraphStore:
    """The graph store named by ``settings.graph_backend``."""
    if settings.graph_backend == "neo4j":
        from kg_rag.stores.neo4j import Neo4jGraphStore

        if settings.neo4j.password is None:
            raise ConfigError("graph_backend is neo4j but KG_RAG_NEO4J__PASSWORD is not set")
        return Neo4jGraphStore(settings.neo4j)
    from kg_rag.stores.embedded import EmbeddedGraphStore

    return EmbeddedGraphStore(settings.kb_dir)


def open_embedder(settings: Settings) -> tuple[Embeddings, bool]:
    """The embedder for the knowledge base at ``settings.kb_dir``, and whether it is still to
    be chosen from the first ingest's documents (``model="auto"`` on a new knowledge base).

    With ``auto`` an existing knowledge base gets the model it records; otherwise the settings'
    embedder is built (and the chunk store checks it against the record on open).
    """
    if not is_auto(settings.embedding):
        return build_embedder(settings.embedding, settings.llm), False
    recorded = recorded_model(settings.kb_dir)
    if recorded is not None and recorded.lower() not in {m.lower() for m in LOCAL_MODELS}:
        raise SchemaMismatch(
            f"The knowledge base at {settings.kb_dir} was built with embedding model "
            f"{recorded!r}, which is not a local model: configure that embedder "
            "(KG_RAG_EMBEDDING__PROVIDER / __MODEL) or pass embedder= to open it."
        )
    model = recorded or settings.embedding.english_model
    return local_embedder(model, settings.embedding.batch_size), recorded is None


class KnowledgeEngine:
    """Ingest documents, build the graph and communities, answer multi-hop questions.

    Build it with :meth:`open` (which constructs the configured stores and models) or pass
    your own components to the constructor; nothing is read or connected until ``open()``.

    Args:
        settings: all settings (each component gets its own section).
        chunk_store: the LanceDB chunk store.
        graph_store: an embedded or Neo4j graph store.
        embedder: the embedder used for chunks, entities and community summaries.
        llm: a chat model; None runs every stage with its deterministic method.
        progress: show progress bars (default: when attached to a terminal).
    """

    def __init__(
        self,
        settings: Settings,
        chunk_store: LanceChunkStore,
        graph_store: GraphStore,
        embedder: Embeddings,
        llm: BaseChatModel | None = None,
        *,
        progress: bool | None = None,
    ) -> None:
        self.settings = settings
        self.chunk_store = chunk_store
        self.graph_store = graph_store
        self.embedder = embedder
        self.llm = llm
        self.progress = progress
        self._opened = False
        self._pipeline: AnswerPipeline | None = None
        self._watch: TableWatcher | None = None
        self._watch_lock = threading.Lock()
        self._last_look = 0.0
        self.choose_embedder = False
        """Set by :meth:`open` for ``model="auto"`` on a new knowledge base: the first ingest
        picks the embedder from its documents' scripts (see :mod:`kg_rag.embedder_choice`)."""

    # -- lifecycle --------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        kb_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        llm: BaseChatModel | None = None,
        embedder: Embeddings | None = None,
        graph_store: GraphStore | None = None,
        progress: bool | None = None,
    ) -> KnowledgeEngine:
        """Open (creating if needed) a knowledge base.

        Args:
            kb_dir: the knowledge base folder (default: ``settings.kb_dir``).
            settings: settings; default ``Settings()`` (environment and ``.env``).
            llm: a chat model; default built from ``settings.llm`` when configured.
            embedder: default from ``settings.embedding`` (local MiniLM).
            graph_store: default from ``settings.graph_backend``.
            progress: show progress bars.
        """
        settings = (settings or Settings()).model_copy(deep=True)
        if kb_dir is not None:
            settings.kb_dir = Path(kb_dir)
        choose = False
        if embedder is None:
            embedder, choose = open_embedder(settings)
        if llm is None and settings.llm.enabled and settings.router.mode != "rules":
            from kg_rag.llm import build_chat_model

            llm = build_chat_model(settings.llm)
        engine = cls(
            settings,
            LanceChunkStore(settings.kb_dir, embedder, settings=settings.retrieval),
            graph_store or build_graph_store(settings),
            embedder,
            llm,
            progress=progress,
        )
        engine.choose_embedder = choose
        engine.open_stores()
        return engine

    def open_stores(self) -> None:
        """Open the chunk and graph stores (idempotent)."""
        if self._opened:
            return
        self.settings.kb_dir.mkdir(parents=True, exist_ok=True)
        self.chunk_store.open()
        self.graph_store.open()
        self._watch = TableWatcher(self.chunk_store.path, self.chunk_store.db)
        self._watch.changed()  # the baseline
        self._last_look = time.monotonic()
        self._opened = True

    def refresh(self, *, force: bool = False) -> bool:
        """See what other engines, threads or processes committed since this engine last
        looked, without reopening: stores move to the latest table versions and reload what
        they cache, and the answer pipeline (entity linker, community index) is rebuilt.

        Called before every question and every ingest (``retrieval.refresh_interval_s``
        sets how often); costs a stat per table when nothing changed.

        Args:
            force: Look now, whatever the interval.

        Returns:
            True when something had changed and was reloaded.
        """
        interval = self.settings.retrieval.refresh_interval_s
        if self._watch is None or (interval < 0 and not force):
            return False
        with self._watch_lock:
            now = time.monotonic()
            if not force and interval > 0 and now - self._last_look < interval:
                return False
            self._last_look = now
            if not self._watch.changed():
                return False
            self.chunk_store.refresh()
            refresh_graph = getattr(self.graph_store, "refresh", None)
            if callable(refresh_graph):
                refresh_graph()
            self._pipeline = None
            return True

    def close(self) -> None:
        """Close the stores."""
        if self._opened:
            self.graph_store.close()
            self.chunk_store.close()
            self._watch = None
            self._opened = False

    def __enter__(self) -> KnowledgeEngine:
        self.open_stores()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- components -------------------------------------------------------------------
    @property
    def community_index(self) -> CommunityIndex:
        """The community summary index in the knowledge base folder."""
        return CommunityIndex(self.chunk_store.db, self.embedder)

    def _builder(self, max_llm_tokens: int | None = None) -> GraphBuilder:
        builder = GraphBuilder(
            self.settings,
            self.chunk_store,
            self.graph_store,
            self.community_index,
            self.embedder,
            self.llm,
            progress=self.progress,
        )
        if max_llm_tokens is not None:
            from extraction.budget import CallBudget

            builder.budget = CallBudget(
                max_tokens=max_llm_tokens, completion_reserve=self.settings.llm.max_tokens
            )
        return builder

    @property
    def pipeline(self) -> AnswerPipeline:
        """The answer pipeline (built on first use, rebuilt after ingest)."""
        if self._pipeline is None:
            # Cosines live on each model's own scale (e5's crowd into 0.8-0.95), so the
            # embedder may say what a name match needs.
            threshold = getattr(self.embedder, "name_match_threshold", 0.85)
            linker = EntityLinker(
                self.graph_store, embed=self.chunk_store.embed_query, vector_threshold=threshold
            )
            index = self.community_index
            has_communities = bool(index.all())
            self._pipeline = AnswerPipeline(
                ChunkRetriever(self.chunk_store, self.settings.retrieval.candidates),
                GraphRetriever(self.graph_store, self.chunk_store, linker),
                linker,
                CommunityRetriever(index) if has_communities else None,
                self.settings.router,
                self.llm,
                top_k=self.settings.retrieval.top_k,
                structured_method=self.settings.llm.structured_method,
            )
        return self._pipeline

    # -- ingest -----------------------------------------------------------------------
    async def aingest(
        self,
        sources: Sequence[Path | str] | Iterable[SourceDocument],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        remove_missing: bool = False,
        graph: bool = True,
        communities: bool = True,
        max_llm_tokens: int | None = None,
        executor: Executor | str | None = None,
    ) -> IngestReport:
        """Async :meth:`ingest`."""
        return await asyncio.to_thread(
            self.ingest,
            sources,
            include=include,
            exclude=exclude,
            remove_missing=remove_missing,
            graph=graph,
            communities=communities,
            max_llm_tokens=max_llm_tokens,
            executor=executor,
        )

    def ingest(
        self,
        sources: Sequence[Path | str] | Iterable[SourceDocument],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        remove_missing: bool = False,
        graph: bool = True,
        communities: bool = True,
        max_llm_tokens: int | None = None,
        executor: Executor | str | None = None,
    ) -> IngestReport:
        """Ingest files/folders (paths) or :class:`SourceDocument` objects.

        ``executor`` says where loading, cleaning, chunking, embedding and offline
        extraction run: ``"local"`` (this process), ``"ray"`` (Ray tasks; ``pip install
        'kgrag-engine[ray]'``), an :class:`~kg_rag.ingest.executor.Executor`, or ``None``
        for ``settings.executor.kind`` (default local). Whichever runs the work, this
        process writes every result, in input order, so the knowledge base is the same.

        ``max_llm_tokens`` caps the LLM tokens this ingest may spend (calls are reserved
        before they are sent): past the cap, chunks and summaries are recorded as failures
        (``budget: ...``), what was done is kept, and the next ingest or ``repair`` goes on.

        Chunks are updated incrementally; the graph is re-extracted only for changed
        documents and cleaned for removed ones; communities are recomputed and only changed
        ones re-summarized. Bad files are reported in the returned report and skipped.

        Every stage after chunking is recorded in the knowledge base's ingest ledger
        (:mod:`kg_rag.stores.ledger`), so an ingest killed anywhere is finished by the next
        one; LLM extraction and summary failures are recorded there too and retried by the
        next ingest (``report.failures`` lists those still failing).
        """
        self.open_stores()
        items = list(sources)
        if self.choose_embedder:
            # Before the ledger: a switch replaces the (still empty) chunk store.
            self._choose_embedder(items, include, exclude)
        self.refresh(force=True)  # stale memory must not shape what this ingest writes
        # The ledger exists before any chunk is written: created later, it would take the
        # new documents for complete ones of an older knowledge base.
        ledger = ledger_for(self.chunk_store)
        runner = build_executor(executor, self.settings.executor)
        try:
            report = self._ingest_with(
                runner,
                ledger,
                items,
                include=include,
                exclude=exclude,
                remove_missing=remove_missing,
                graph=graph,
                communities=communities,
                max_llm_tokens=max_llm_tokens,
            )
        finally:
            if runner is not executor:  # built here: release what it started
                runner.close()
        self._pipeline = None
        self.refresh(force=True)  # absorbs this ingest's own commits (and any made meanwhile)
        return report

    def _ingest_with(
        self,
        runner: Executor,
        ledger: IngestLedger,
        items: list[Any],
        *,
        include: Sequence[str],
        exclude: Sequence[str],
        remove_missing: bool,
        graph: bool,
        communities: bool,
        max_llm_tokens: int | None,
    ) -> IngestReport:
        """The chunk layer, then the ledger's stages, with ``runner`` doing the work."""
        ingestor = ChunkIngestor(
            self.chunk_store, self.settings.chunking, progress=self.progress, executor=runner
        )
        if items and all(isinstance(s, SourceDocument) for s in items):
            report = ingestor.ingest_documents(items)
        else:
            paths = [Path(str(p)) for p in items]
            report = ingestor.ingest_paths(
                paths, include=include, exclude=exclude, remove_missing=remove_missing
            )
        if graph:
            builder = self._builder(max_llm_tokens)
            builder.executor = runner
            stages = run_stages(self.chunk_store, builder, ledger, communities=communities)
            report.graph = stages.graph or GraphReport()
            report.communities = stages.communities
            report.failures = list(stages.failures)
            if report.graph.extractor == "llm":
                from kg_rag.estimate import UsageHistory

                history = UsageHistory.load(self.settings.kb_dir)
                history.add_report(report)
                history.save(self.settings.kb_dir)
        return report

    def _choose_embedder(
        self, items: list[Any], include: Sequence[str], exclude: Sequence[str]
    ) -> None:
        """``model="auto"``: pick the embedder from the documents of the first ingest and
        record the choice; the knowledge base holds nothing yet, so switching is free."""
        if self.chunk_store.list_documents():
            self.choose_embedder = False
            return
        languages = detect_languages(sample_texts(items, include=include, exclude=exclude))
        if not languages:
            return  # nothing readable yet: choose at the next ingest
        model = choose_model(languages, self.settings.embedding)
        if model.lower() != embedder_name(self.embedder).lower():
            embedder = local_embedder(model, self.settings.embedding.batch_size)
            db = self.chunk_store.db
            self.chunk_store.close()
            # Empty tables sized for the old model's vectors, and its kb_meta record.
            # (and the chunks' level tables, when a large ingest was cut short before this)
            levels = [level_table_name(level) for level in CHUNK_LEVELS]
            for name in ("kb_meta", "chunks", "documents", "document_versions", *levels):
                if name in db.list_tables().tables:
                    db.drop_table(name)
            self.embedder = embedder
            self.chunk_store = LanceChunkStore(
                self.settings.kb_dir, embedder, settings=self.settings.retrieval
            )
            self.chunk_store.open()
        write_kb_meta(
            self.chunk_store.db,
            {"embedding_selection": "auto", "corpus_languages": ",".join(languages)},
        )
        log.info("embedding model %s chosen for scripts %s", model, ", ".join(languages))
        self.choose_embedder = False
        self._pipeline = None

    def reembed(self, embedder: Embeddings | None = None, *, force: bool = False) -> Any:
        """Migrate this knowledge base to ``embedder`` (default: the one the settings name)
        without re-extracting the graph; the engine then uses the new embedder.

        Returns:
            A :class:`kg_rag.reembed.ReembedReport`.
        """
        from kg_rag.reembed import reembed

        self.close()
        report = reembed(
            self.settings, embedder=embedder, graph_store=self.graph_store, force=force
        )
        if embedder is None:
            embedder, _ = open_embedder(self.settings)  # auto: the model just recorded
        self.embedder = embedder
        self.chunk_store = LanceChunkStore(
            self.settings.kb_dir, embedder, settings=self.settings.retrieval
        )
        self._pipeline = None
        self.open_stores()
        return report

    def estimate(
        self,
        sources: Sequence[Path | str] | Iterable[SourceDocument],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
    ) -> Any:
        """What :meth:`ingest` of ``sources`` would spend in LLM calls and tokens, worked out
        without sending anything or writing to the knowledge base: only new or changed
        documents count, and calls the response cache answers are free (so a re-ingest costs
        what changed). See :mod:`kg_rag.estimate`.

        Returns:
            A :class:`kg_rag.estimate.IngestEstimate`.
        """
        from extraction.schema import ChunkInput
        from kg_rag.estimate import IngestEstimate, UsageHistory, estimate_ingest
        from kg_rag.llm import build_extractor

        self.open_stores()
        items = list(sources)
        ingestor = ChunkIngestor(self.chunk_store, self.settings.chunking, progress=False)
        planned_docs, unchanged = ingestor.plan(items, include=include, exclude=exclude)
        level = self.settings.extraction.level
        inputs = [
            ChunkInput(chunk_id=c.chunk_id, text=c.text, doc_id=d.doc_id, title=d.title)
            for d, chunks in planned_docs
            for c in chunks
            if c.level == level
        ]
        builder = self._builder()
        failed = {f.item_id for f in ledger_for(self.chunk_store).failures("extraction")}
        stored_docs = [d.doc_id for d in self.chunk_store.list_documents()]
        stored_chunks = len(self.chunk_store.chunks_for_documents(stored_docs, level=level))
        if failed and builder.extracts_with_llm:
            known = {i.chunk_id for i in inputs}
            titles = {d.doc_id: d.title for d in self.chunk_store.list_documents()}
            for c in self.chunk_store.get_chunks(sorted(failed - known)):
                inputs.append(
                    ChunkInput(
                        chunk_id=c.chunk_id,
                        text=c.text,
                        doc_id=c.doc_id,
                        title=titles.get(c.doc_id, ""),
                    )
                )
        seen = len(planned_docs)
        if not builder.extracts_with_llm or self.llm is None:
            return IngestEstimate(
                documents=seen,
                unchanged=unchanged,
                chunks=len(inputs),
                basis="offline (no LLM configured)",
            )
        cfg = self.settings.extraction
        extractor = build_extractor(self.settings, self.llm, show_progress=False)
        from extraction.schema import ExtractionOutput
        from extraction.tokens import count_tokens, prompt_tokens

        # A failing chunk's retries go alone: the prompt and schema plus that chunk.
        alone = [i for i in inputs if i.chunk_id in failed] or inputs
        overhead = prompt_tokens(
            extractor.build_messages(ChunkInput(chunk_id="-", text="")), ExtractionOutput
        )
        texts = sum(count_tokens(i.title) + count_tokens(i.text) for i in alone)
        planned = extractor.planned_calls(inputs)
        # Completion priors follow the text sent: the chunks the cache does not answer.
        sent = sum(
            count_tokens(i.title) + count_tokens(i.text)
            for i in inputs
            if not extractor.is_cached(i)
        )
        return estimate_ingest(
            planned,
            text_tokens=sent,
            single_call_tokens=overhead + texts / max(1, len(alone)),
            documents=seen,
            unchanged=unchanged,
            chunks=len(inputs),
            history=UsageHistory.load(self.settings.kb_dir),
            summaries=builder.summarizes_with_llm,
            stored_chunks=stored_chunks,
            failed_chunks=len(failed),
            max_retries=cfg.max_retries,
        )

    def repair(self, *, communities: bool = True) -> IngestReport:
        """Finish what an interrupted ingest left and retry every recorded LLM failure,
        without reading any file (``kg-rag repair``)."""
        return self.ingest([], communities=communities)

    def failures(self) -> list[Failure]:
        """LLM failures recorded in the knowledge base (retried by the next ingest)."""
        self.open_stores()
        return ledger_for(self.chunk_store).failures()

    def build_communities(self, *, full: bool = True) -> CommunityBuildReport:
        """Recompute communities now (normally done by :meth:`ingest`): hierarchical Leiden
        over the whole graph (``kg-rag communities rebuild``), or with ``full=False`` the
        incremental update of what changed since the last build."""
        self.open_stores()
        self.refresh(force=True)
        builder = self._builder()
        result = builder.index_communities(builder.build_communities(full=full))
        self._pipeline = None
        self.refresh(force=True)
        return result

    def delete(self, doc_id: str) -> bool:
        """Delete a document: its chunks, mentions and every entity/relation left without
        evidence; communities are recomputed."""
        self.open_stores()
        self.refresh(force=True)
        ledger = ledger_for(self.chunk_store)
        ingestor = ChunkIngestor(self.chunk_store, self.settings.chunking, progress=False)
        removed = ingestor.delete(doc_id)
        run_stages(self.chunk_store, self._builder(), ledger)
        self._pipeline = None
        self.refresh(force=True)
        return removed

    async def adelete(self, doc_id: str) -> bool:
        """Async :meth:`delete`."""
        return await asyncio.to_thread(self.delete, doc_id)

    # -- ask --------------------------------------------------------------------------
    async def aask(self, question: str) -> Answer:
        """Answer ``question``: plan, route, retrieve, grade, bind, synthesize (with trace)."""
        self.open_stores()
        self.refresh()
        return await self.pipeline.aask(question)

    def ask(self, question: str) -> Answer:
        """Sync :meth:`aask`."""
        return run_sync(self.aask(question))

    async def aretrieve(
        self, question: str, top_k: int | None = None, depth: Depth = "full"
    ) -> list[Evidence]:
        """Evidence only, best first.

        Args:
            question: the question.
            top_k: how many pieces (default ``retrieval.top_k``).
            depth: ``"full"`` runs the same pipeline as :meth:`aask` (plan, routed steps, the
                chunks holding the step answers); ``"fast"`` only searches the whole question
                (hybrid fused with PPR from its linked entities) — no planning, lower latency.
        """
        self.open_stores()
        self.refresh()
        evidence, _ = await self.pipeline.aretrieve(
            question, top_k or self.settings.retrieval.top_k, depth
        )
        return evidence

    def retrieve(
        self, question: str, top_k: int | None = None, depth: Depth = "full"
    ) -> list[Evidence]:
        """Sync :meth:`aretrieve`."""
        return run_sync(self.aretrieve(question, top_k, depth))

    def as_retriever(self, top_k: int | None = None) -> Any:
        """A LangChain ``BaseRetriever`` over this engine."""
        from kg_rag.langchain import KgRagRetriever

        return KgRagRetriever(engine=self, top_k=top_k or self.settings.retrieval.top_k)

    def stats(self) -> dict[str, int]:
        """Counts of documents, chunks and graph records."""
        self.refresh()
        counts = dict(self.graph_store.counts())
        counts["documents"] = len(self.chunk_store.list_documents())
        return counts


def export_to_neo4j(settings: Settings) -> dict[str, int]:
    """Copy the embedded knowledge base at ``settings.kb_dir`` into the configured Neo4j."""
    from kg_rag.stores.embedded import EmbeddedGraphStore
    from kg_rag.stores.export import export_to_neo4j as _export
    from kg_rag.stores.neo4j import Neo4jGraphStore

    if settings.neo4j.password is None:
        raise ConfigError("set KG_RAG_NEO4J__PASSWORD (and KG_RAG_NEO4J__URI) to export to Neo4j")
    embedded = EmbeddedGraphStore(settings.kb_dir)
    neo = Neo4jGraphStore(settings.neo4j)
    embedded.open()
    neo.open()
    try:
        return dict(_export(embedded, neo, progress=True))
    finally:
        neo.close()
        embedded.close()
