"""From chunks to graph to communities: extraction → resolution → graph store, then Leiden
communities with summaries. Incremental: only changed documents are re-extracted, and only
communities whose membership or member content changed are re-summarized."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from kg_rag.config import Settings
from kg_rag.models import Community, Entity, Mention, Relation
from kg_rag.stores.base import GraphStore
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.stores.community_index import CommunityIndex

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
    failures: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    extractor: str = "offline"
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """True when anything was written or removed."""
        return self.chunks_extracted > 0 or self.entities > 0 or self.documents_removed > 0

    def __str__(self) -> str:
        return (
            f"graph: {self.chunks_extracted} chunks extracted ({self.extractor}), "
            f"{self.entities} entities, {self.relations} relations, {self.mentions} mentions, "
            f"{self.merges} merges, {len(self.failures)} failures, {self.seconds:.1f}s"
        )


class CommunityBuildReport(BaseModel):
    """What a community recompute did."""

    communities: int = 0
    levels: int = 0
    summarized: int = 0
    unchanged: int = 0
    removed: int = 0
    failures: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        return (
            f"communities: {self.communities} over {self.levels} levels, "
            f"{self.summarized} summarized, {self.unchanged} unchanged, {self.removed} removed, "
            f"{self.seconds:.1f}s"
        )


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

    def _use_llm(self) -> bool:
        mode = self.settings.extraction.mode
        return self.llm is not None and mode in ("auto", "llm")

    def _cache_path(self, name: str) -> Any:
        return self.settings.kb_dir / f"{name}-cache.sqlite"

    def extract(self, inputs: Sequence[Any]) -> tuple[list[Any], int, str]:
        """Extract entities/relations from chunk inputs: (extractions, llm calls, extractor)."""
        from extraction.offline import OfflineExtractor

        cfg = self.settings.extraction
        if self._use_llm():
            from extraction.llm import LLMExtractor
            from extraction.structured import ResponseCache

            assert self.llm is not None
            extractor = LLMExtractor(
                self.llm,
                entity_types=cfg.entity_types,
                relation_types=cfg.relation_types,
                max_retries=cfg.max_retries,
                concurrency=cfg.concurrency,
                gleaning=cfg.gleaning,
                cache=ResponseCache(self._cache_path("extraction")),
            )
            results = extractor.extract(inputs)
            return list(results), int(extractor.usage.calls), "llm"
        return list(OfflineExtractor(entity_types=cfg.entity_types).extract(inputs)), 0, "offline"

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
        extractions, calls, kind = self.extract(inputs)
        report.chunks_extracted = len(inputs)
        report.llm_calls = calls
        report.extractor = kind
        report.failures = [f"{x.chunk_id}: {x.error}" for x in extractions if x.error]
        existing = [
            ResolvedEntity(
                entity_id=e.entity_id,
                name=e.name,
                type=e.type,
                aliases=list(e.aliases),
                description=e.description,
                mentions=[],
            )
            for e in self.graph.all_entities()
        ]
        resolver = EntityResolver(threshold=self.settings.extraction.resolution_threshold)
        result = resolver.resolve(extractions, existing)
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
        self.graph.upsert_entities(entities)
        self.graph.upsert_relations(relations)
        self.graph.upsert_mentions(
            [Mention(entity_id=a, chunk_id=b, doc_id=c) for a, b, c in mentions]
        )
        report.entities = len(entities)
        report.relations = len(relations)
        report.mentions = len(mentions)
        report.merges = len(result.merges)
        report.seconds = time.perf_counter() - t0
        log.info("%s", report)
        return report

    def build_communities(self) -> CommunityBuildReport:
        """Recompute communities; re-summarize only the changed ones; store and index them."""
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
        records = detect_communities(
            self.graph.to_networkx(), max_cluster_size=cfg.max_cluster_size, seed=cfg.seed
        )
        entities = {e.entity_id: e for e in self.graph.all_entities()}
        relations = self.graph.all_relations()
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
        if self.llm is not None and self.settings.extraction.mode != "offline":
            from extraction.structured import ResponseCache, model_id

            summarizer = LLMSummarizer(
                self.llm,
                cache=ResponseCache(self._cache_path("community")),
                fallback=extractive,
                progress=self.progress,
            )
            salt = f"{summarizer.prompt_version}|{model_id(self.llm)}|{cfg.summary_token_budget}"
        old = {c.community_id: c for c in self.graph.communities()}
        update = update_communities(
            records,
            infos,
            rel_infos,
            summarizer,
            previous=[(c.community_id, c.content_hash) for c in old.values()],
            token_budget=cfg.summary_token_budget,
            salt=salt,
        )
        report.failures = [
            f"{f.community_id}: {f.error}" for f in getattr(summarizer, "failures", [])
        ]
        report.llm_calls = int(getattr(getattr(summarizer, "usage", None), "calls", 0))
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
                    content_hash=hashes[rec.community_id],
                )
            )
        self.graph.upsert_communities(result)
        unchanged = set(update.plan.unchanged)
        keep = {cid: v for cid, v in self.index.vectors().items() if cid in unchanged}
        self.index.replace(result, reuse=keep)
        report.communities = len(result)
        report.levels = len({c.level for c in result})
        report.summarized = len(update.plan.to_summarize)
        report.unchanged = len(update.plan.unchanged)
        report.removed = len(update.plan.removed)
        report.seconds = time.perf_counter() - t0
        return report
