"""From chunks to graph to communities: extraction → resolution → graph store, then Leiden
communities with summaries, then the community index. Incremental: only changed documents are
re-extracted, and only communities whose membership or member content changed are
re-summarized.

Each step is idempotent (ids are content-derived, writes are upserts or replacements), which
is what lets :mod:`kg_rag.ingest.stages` finish a killed ingest by running a step again.

Community ids hash level and sorted members (:func:`communities.community_id`), and Leiden
runs seeded on a canonical edge list whose weights are a function of the stored graph alone
(the number of evidence chunks per entity pair), so the same graph gives the same communities
and ids whether it was built in one ingest or many.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from kg_rag.config import Settings
from kg_rag.ingest.executor import Executor, LocalExecutor
from kg_rag.models import Community, Entity, Mention, Relation
from kg_rag.stores.base import GraphStore
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.stores.community_index import CommunityIndex
from kg_rag.stores.ledger import Failure, crash_point

__all__ = ["CommunityBuildReport", "GraphBuilder", "GraphReport"]

log = logging.getLogger(__name__)


class GraphReport(BaseModel):
    """What a graph update did."""

    chunks_extracted: int = 0
    documents_removed: int = 0
    entities: int = 0
    relations: int = 0
    mentions: int = 0
    merges: int = 0
    failures: list[Failure] = Field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    extractor: str = "offline"
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Wall time per step: ``delete`` (old graph data of changed documents), ``prepare``
    (reading the chunks, recording them in the graph store), ``extract``,
    ``resolve`` (against the stored entities), ``embed`` (entity vectors, when enabled),
    ``write`` (entities, relations, mentions)."""

    @property
    def changed(self) -> bool:
        """True when anything was written or removed."""
        return self.chunks_extracted > 0 or self.entities > 0 or self.documents_removed > 0

    def __str__(self) -> str:
        llm = ""
        if self.extractor == "llm":
            llm = (
                f", {self.llm_calls} LLM calls ({self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion tokens, {self.cache_hits} cached)"
            )
        return (
            f"{self.chunks_extracted} chunks extracted ({self.extractor}), "
            f"{self.entities} entities, {self.relations} relations, {self.mentions} mentions, "
            f"{self.merges} merges, {len(self.failures)} failures{llm}, {self.seconds:.1f}s"
        )


class CommunityBuildReport(BaseModel):
    """What a community recompute did."""

    communities: int = 0
    levels: int = 0
    summarized: int = 0
    unchanged: int = 0
    removed: int = 0
    retried: int = 0
    indexed: int = 0
    embedded: int = 0
    failures: list[Failure] = Field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Wall time per step: ``load`` (graph read), ``leiden``, ``summarize`` (contexts,
    fingerprints and summaries), ``write`` (the community layer), ``index``."""

    def __str__(self) -> str:
        llm = ""
        if self.llm_calls:
            llm = (
                f", {self.llm_calls} LLM calls ({self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion tokens)"
            )
        return (
            f"{self.communities} over {self.levels} levels, "
            f"{self.summarized} summarized, {self.unchanged} unchanged, {self.removed} removed, "
            f"{len(self.failures)} summary failures{llm}, {self.indexed} indexed "
            f"({self.embedded} embedded), {self.seconds:.1f}s"
        )


class _Lap:
    """Adds the time since the previous call to a named step of a ``stage_seconds`` dict."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into = into
        self.last = time.perf_counter()

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        self.into[step] = self.into.get(step, 0.0) + now - self.last
        self.last = now


class GraphBuilder:
    """Runs extraction, resolution and community building for one knowledge base."""

    def __init__(
        self,
        settings: Settings,
        chunks: LanceChunkStore,
        graph: GraphStore,
        index: CommunityIndex,
        embedder: Embeddings,
        llm: BaseChatModel | None,
        *,
        progress: bool | None = None,
    ) -> None:
        self.settings = settings
        self.chunks = chunks
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.llm = llm
        self.progress = progress
        self.budget: Any = None
        """An ``extraction.budget.CallBudget`` every LLM call of this build reserves from."""
        self.executor: Executor = LocalExecutor()
        """Where offline extraction runs (:mod:`kg_rag.ingest.extract`); writes stay here."""

    def _use_llm(self) -> bool:
        mode = self.settings.extraction.mode
        return self.llm is not None and mode in ("auto", "llm")

    @property
    def extracts_with_llm(self) -> bool:
        """True when extraction goes through the chat model (failures can be retried)."""
        return self._use_llm()

    @property
    def summarizes_with_llm(self) -> bool:
        """True when community summaries come from the chat model."""
        return self.llm is not None and self.settings.extraction.mode != "offline"

    def extract(self, inputs: Sequence[Any]) -> tuple[list[Any], Any, str]:
        """Extract entities/relations from chunk inputs: (extractions, LLM usage or None,
        extractor name). Offline extraction runs on :attr:`executor`; LLM extraction in
        this process (see :mod:`kg_rag.ingest.extract`)."""
        cfg = self.settings.extraction
        if self._use_llm():
            from extraction.llm import LLMExtractor
            from kg_rag.llm import response_cache

            assert self.llm is not None
            extractor = LLMExtractor(
                self.llm,
                entity_types=cfg.entity_types,
                relation_types=cfg.relation_types,
                max_retries=cfg.max_retries,
                concurrency=cfg.concurrency,
                gleaning=cfg.gleaning,
                cache=response_cache(self.settings, "extraction"),
                batch_tokens=cfg.batch_tokens,
                max_batch=cfg.max_batch,
                budget=self.budget,
            )
            results = extractor.extract(inputs)
            return list(results), extractor.usage.snapshot(), "llm"
        from kg_rag.ingest.extract import extract_offline

        return extract_offline(self.executor, inputs, cfg.entity_types), None, "offline"

    def update_graph(
        self, changed_doc_ids: Sequence[str], removed_doc_ids: Sequence[str]
    ) -> GraphReport:
        """Remove the graph data of changed/removed documents, then extract and write the
        changed ones (resolved against the entities already stored)."""
        from extraction.resolve import EntityResolver, ResolvedEntity
        from extraction.schema import ChunkInput

        t0 = time.perf_counter()
        report = GraphReport(documents_removed=len(removed_doc_ids))
        for doc_id in [*removed_doc_ids, *changed_doc_ids]:
            self.graph.delete_document(doc_id)
        lap = _Lap(report.stage_seconds)
        lap("delete")
        if not changed_doc_ids:
            report.seconds = time.perf_counter() - t0
            return report
        level = self.settings.extraction.level
        chunks = self.chunks.chunks_for_documents(list(changed_doc_ids), level=level)
        self.graph.upsert_chunks(chunks)
        changed = set(changed_doc_ids)
        titles = {d.doc_id: d.title for d in self.chunks.list_documents() if d.doc_id in changed}
        inputs = [
            ChunkInput(
                chunk_id=c.chunk_id, text=c.text, doc_id=c.doc_id, title=titles.get(c.doc_id, "")
            )
            for c in chunks
        ]
        lap("prepare")
        extractions, usage, kind = self.extract(inputs)
        lap("extract")
        report.chunks_extracted = len(inputs)
        report.extractor = kind
        if usage is not None:
            report.llm_calls = usage.calls
            report.prompt_tokens = usage.prompt_tokens
            report.completion_tokens = usage.completion_tokens
            report.cache_hits = usage.cache_hits
        report.failures = [
            Failure(
                kind="extraction",
                item_id=x.chunk_id,
                doc_id=x.doc_id,
                error=x.error,
                attempts=max(1, x.llm_calls),
            )
            for x in extractions
            if x.error
        ]
        existing = [
            ResolvedEntity(
                entity_id=e.entity_id,
                name=e.name,
                type=e.type,
                aliases=list(e.aliases),
                description=e.description,
                mentions=[],
            )
            for e in self._stored_candidates(extractions)
        ]
        resolver = EntityResolver(threshold=self.settings.extraction.resolution_threshold)
        result = resolver.resolve(extractions, existing)
        lap("resolve")
        doc_of = {c.chunk_id: c.doc_id for c in chunks}
        entities = [
            Entity(
                entity_id=e.entity_id,
                name=e.name,
                type=e.type,
                aliases=list(e.aliases),
                description=e.description,
            )
            for e in result.entities
        ]
        mentions = sorted(
            {
                (e.entity_id, cid, doc_of[cid])
                for e in result.entities
                for cid in e.mentions
                if cid in doc_of
            }
        )
        relations = [
            Relation(
                source_id=r.source_id,
                target_id=r.target_id,
                type=r.type,
                description=r.description,
                weight=r.weight,
                evidence=sorted(r.evidence),
            )
            for r in result.relations
        ]
        if self.settings.extraction.embed_entities and entities:
            texts = [f"{e.name} ({e.type})" for e in entities]
            for entity, vector in zip(entities, self.embedder.embed_documents(texts), strict=True):
                entity.vector = [float(x) for x in vector]
        lap("embed")
        self.graph.upsert_entities(entities)
        crash_point("graph-entities")
        self.graph.upsert_relations(relations)
        crash_point("graph-relations")
        self.graph.upsert_mentions(
            [Mention(entity_id=a, chunk_id=b, doc_id=c) for a, b, c in mentions]
        )
        lap("write")
        report.entities = len(entities)
        report.relations = len(relations)
        report.mentions = len(mentions)
        report.merges = len(result.merges)
        report.seconds = time.perf_counter() - t0
        log.info("%s", report)
        return report

    def _stored_candidates(self, extractions: Sequence[Any]) -> list[Entity]:
        """The stored entities resolution can join or merge these extractions with, found
        through the store's name index (:func:`extraction.resolve.stored_lookup_keys`), so a
        batch costs the same whatever is already stored; every entity on a store without one.
        """
        from extraction.resolve import stored_lookup_keys

        lookup = getattr(self.graph, "entities_named", None)
        if lookup is None:
            return list(self.graph.all_entities())
        names, compact = stored_lookup_keys(extractions)
        found: list[Entity] = []
        step = 5000  # keys per call: one Cypher parameter list stays small
        for start in range(0, max(len(names), len(compact)), step):
            found.extend(lookup(names[start : start + step], compact[start : start + step]))
        return list({e.entity_id: e for e in found}.values())

    def remove_orphans(self) -> int:
        """Delete entities no mention supports (left by a batch killed between writing
        entities and their mentions, on a store that cannot roll back); returns how many."""
        mentioned = {m.entity_id for m in self.graph.all_mentions()}
        orphans = [e.entity_id for e in self.graph.all_entities() if e.entity_id not in mentioned]
        if orphans:
            self.graph.delete_entities(orphans)
        return len(orphans)

    def _community_graph(self, relations: Sequence[Relation]) -> Any:
        """The graph Leiden clusters: one edge per entity pair, weighted by the number of
        evidence chunks of the relations between them.

        The stored relation weights are not used: an upsert replaces a weight with the
        strength summed over the *new* batch's evidence, so one graph built in one ingest or
        in several would carry different weights and get different communities (and ids).
        Evidence is unioned on every upsert and stripped on delete, so its count is a
        function of the stored graph alone.
        """
        import networkx as nx

        weights: dict[tuple[str, str], float] = {}
        for r in relations:
            if r.source_id == r.target_id:
                continue
            a, b = sorted((r.source_id, r.target_id))
            weights[(a, b)] = weights.get((a, b), 0.0) + float(max(1, len(r.evidence)))
        graph = nx.Graph()
        graph.add_nodes_from(sorted({e for pair in weights for e in pair}))
        graph.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weights.items()))
        return graph

    def build_communities(self, retry: Sequence[str] = ()) -> CommunityBuildReport:
        """Recompute communities and re-summarize only the changed ones (and ``retry``, the
        communities whose summary failed before); store them in the graph store.

        The community index is rebuilt by :meth:`index_communities` (a separate step, so a
        crash between the two is finished by redoing only the index).
        """
        from communities import (
            EntityInfo,
            ExtractiveSummarizer,
            LLMSummarizer,
            RelationInfo,
            detect_communities,
            update_communities,
        )

        t0 = time.perf_counter()
        cfg = self.settings.communities
        report = CommunityBuildReport()
        lap = _Lap(report.stage_seconds)
        entities = {e.entity_id: e for e in self.graph.all_entities()}
        relations = self.graph.all_relations()
        lap("load")
        records = detect_communities(
            self._community_graph(relations), max_cluster_size=cfg.max_cluster_size, seed=cfg.seed
        )
        lap("leiden")
        wanted = sorted({cid for r in relations for cid in r.evidence[:2]})
        previews = {c.chunk_id: c.text for c in self.chunks.get_chunks(wanted)}
        infos = [
            EntityInfo(entity_id=eid, name=e.name, type=e.type, description=e.description)
            for eid, e in entities.items()
        ]
        rel_infos = [
            RelationInfo(
                source_id=r.source_id,
                target_id=r.target_id,
                type=r.type,
                description=r.description,
                weight=r.weight,
                evidence=[previews[c][:300] for c in r.evidence[:2] if c in previews],
            )
            for r in relations
        ]
        extractive = ExtractiveSummarizer()
        summarizer: Any = extractive
        salt = f"extractive|{cfg.summary_token_budget}"
        if self.summarizes_with_llm:
            from extraction.structured import model_id
            from kg_rag.llm import response_cache

            assert self.llm is not None
            summarizer = LLMSummarizer(
                self.llm,
                max_retries=self.settings.extraction.max_retries,
                concurrency=self.settings.extraction.concurrency,
                cache=response_cache(self.settings, "community"),
                fallback=extractive,
                progress=self.progress,
                min_size=cfg.llm_min_size,
                budget=self.budget,
            )
            salt = f"{summarizer.prompt_version}|{model_id(self.llm)}|{cfg.summary_token_budget}"
        old = {c.community_id: c for c in self.graph.communities()}
        redo = set(retry)
        update = update_communities(
            records,
            infos,
            rel_infos,
            summarizer,
            # A community whose summary failed counts as changed: it is summarized again.
            previous=[
                (c.community_id, c.content_hash) for c in old.values() if c.community_id not in redo
            ],
            token_budget=cfg.summary_token_budget,
            salt=salt,
        )
        report.failures = [
            Failure(kind="summary", item_id=f.community_id, error=f.error, attempts=f.attempts)
            for f in getattr(summarizer, "failures", [])
        ]
        failed = {f.item_id for f in report.failures}
        usage = getattr(summarizer, "usage", None)
        if usage is not None:
            report.llm_calls = int(usage.calls)
            report.prompt_tokens = int(usage.prompt_tokens)
            report.completion_tokens = int(usage.completion_tokens)
        hashes = {p.community_id: p.content_hash for p in update.fingerprints}
        result: list[Community] = []
        for rec in records:
            rep = update.reports.get(rec.community_id)
            prev = old.get(rec.community_id)
            if rep is None and prev is not None and rec.community_id not in update.missing:
                title, summary, findings, rank = prev.title, prev.summary, prev.findings, prev.rank
            else:
                if rep is None:  # summary failed: keep the community with an extractive text
                    from communities import build_contexts

                    ctx = build_contexts(
                        [rec], infos, rel_infos, token_budget=cfg.summary_token_budget
                    )
                    rep = extractive.report(ctx[0])
                title, summary, findings, rank = (
                    rep.title,
                    rep.summary,
                    list(rep.findings),
                    rep.rating,
                )
            result.append(
                Community(
                    community_id=rec.community_id,
                    level=rec.level,
                    parent_id=rec.parent_id,
                    members=list(rec.members),
                    title=title,
                    summary=summary,
                    findings=findings,
                    rank=rank,
                    # A failed summary stores no hash of its own: the next build sees it as
                    # changed even if the ledger row were lost.
                    content_hash="" if rec.community_id in failed else hashes[rec.community_id],
                )
            )
        lap("summarize")
        self.graph.upsert_communities(result)
        lap("write")
        report.communities = len(result)
        report.levels = len({c.level for c in result})
        report.summarized = len(update.plan.to_summarize)
        report.unchanged = len(update.plan.unchanged)
        report.removed = len(update.plan.removed)
        report.retried = len(redo & set(hashes))
        report.seconds = time.perf_counter() - t0
        return report

    def index_communities(self, report: CommunityBuildReport | None = None) -> CommunityBuildReport:
        """Rebuild the community index from the communities stored in the graph store.

        A stored vector is reused when its community's id and embedded text are unchanged,
        so redoing this step (after a crash) embeds nothing twice.
        """
        t0 = time.perf_counter()
        report = report if report is not None else CommunityBuildReport()
        stored = self.graph.communities()
        previous = {c.community_id: c for c in self.index.all()}
        vectors = self.index.vectors()
        text = CommunityIndex.text_of
        keep = {
            c.community_id: vectors[c.community_id]
            for c in stored
            if c.community_id in vectors
            and c.community_id in previous
            and text(c) == text(previous[c.community_id])
        }
        report.embedded = self.index.replace(stored, reuse=keep)
        report.indexed = len(stored)
        report.stage_seconds["index"] = time.perf_counter() - t0
        if not report.communities:
            report.communities = len(stored)
            report.levels = len({c.level for c in stored})
        report.seconds += time.perf_counter() - t0
        return report
