"""From chunks to graph to communities: extraction → resolution → graph store, then Leiden
communities with summaries, then the community index. Incremental: only changed documents are
re-extracted, and only communities whose membership or member content changed are
re-summarized.

Each step is idempotent (ids are content-derived, writes are upserts or replacements), which
is what lets :mod:`kg_rag.ingest.stages` finish a killed ingest by running a step again.

Community ids hash level and sorted members (:func:`communities.community_id`), and Leiden
runs seeded on a canonical edge list whose weights are a function of the stored graph alone
(the number of evidence chunks per entity pair), so a whole-graph run gives the same
communities and ids whether the graph was built in one ingest or many. After the first
ingest, communities are updated incrementally (:func:`communities.local.update_partition`:
only what the change touched is re-clustered, reading the graph through the store's
neighbourhood queries) until the entities they changed pass a budget that the measured
modularity loss keeps adapted (``community-drift.json`` in the knowledge base, see
:func:`communities.local.adapt_budget`); then the whole graph is clustered once.
``kg-rag communities rebuild`` runs the whole graph again.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
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

__all__ = ["RESUMMARIZE_GROWTH", "CommunityBuildReport", "GraphBuilder", "GraphReport"]

log = logging.getLogger(__name__)

RESUMMARIZE_GROWTH = 1.25
"""An incremental community update summarizes a large community again once it has this many
times the members it had when last summarized."""


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
    counted_prompt_tokens: int = 0
    """Prompt tokens of the answered calls as counted before sending (see ``LLMUsage``)."""
    failed_llm_calls: int = 0
    """Of ``llm_calls``, those made for chunks that failed (with their tokens below)."""
    failed_prompt_tokens: int = 0
    failed_completion_tokens: int = 0
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
    counted_prompt_tokens: int = 0
    """Prompt tokens of the answered calls as counted before sending (see ``LLMUsage``)."""
    incremental: bool = False
    """True when only the touched communities were re-clustered."""
    region_nodes: int = 0
    """Entities re-clustered by an incremental update."""
    carried: int = 0
    """Large communities whose members changed but whose summary was kept (see
    :meth:`GraphBuilder._carry`)."""
    full_reason: str = ""
    """Why the whole graph was clustered: ``first`` (no communities yet), ``requested``
    (``full=True``, ``kg-rag communities rebuild``), ``configured`` (incremental updates off
    or not supported by the store), ``budget`` (the incremental budget was spent), ``cost``
    (one update would re-cluster more than ``communities.max_incremental_share``); empty for
    an incremental update."""
    modularity: float | None = None
    """Level-0 modularity of a whole-graph run."""
    modularity_loss: float | None = None
    """What the incremental updates before a ``budget`` run had lost: the run's level-0
    modularity minus the stored partition's, on the entities both cover."""
    local_budget: float | None = None
    """The incremental budget after this build (share of the entities last clustered whole)."""
    local_spent: float | None = None
    """The share of the entities last clustered whole that the incremental updates since
    then changed (for a ``budget`` run: with this change, when the loss was measured)."""
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
        # An incremental update reads only what it touched: it does not count the levels.
        shape = "updated incrementally" if self.incremental else f"over {self.levels} levels"
        return (
            f"{self.communities} {shape}, "
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
            from kg_rag.llm import build_extractor

            assert self.llm is not None
            extractor = build_extractor(self.settings, self.llm, budget=self.budget)
            results = extractor.extract(inputs)
            return list(results), extractor.usage.snapshot(), "llm"
        from kg_rag.ingest.extract import extract_offline

        return extract_offline(self.executor, inputs, cfg.entity_types), None, "offline"

    def update_graph(
        self, changed_doc_ids: Sequence[str], removed_doc_ids: Sequence[str]
    ) -> GraphReport:
        """Remove the graph data of changed/removed documents, then extract and write the
        changed ones (resolved against the entities already stored)."""
        from extraction.resolve import EntityResolver, ResolvedEntity, harmonise_subject_types
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
        extractions = harmonise_subject_types(extractions, titles)
        lap("extract")
        report.chunks_extracted = len(inputs)
        report.extractor = kind
        if usage is not None:
            report.llm_calls = usage.calls
            report.prompt_tokens = usage.prompt_tokens
            report.completion_tokens = usage.completion_tokens
            report.counted_prompt_tokens = usage.counted_prompt_tokens
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
        failed = [x for x in extractions if x.error]
        report.failed_llm_calls = sum(x.llm_calls for x in failed)
        report.failed_prompt_tokens = sum(x.prompt_tokens for x in failed)
        report.failed_completion_tokens = sum(x.completion_tokens for x in failed)
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

    def _summarizer(self) -> tuple[Any, Any, str]:
        """(summarizer, extractive fallback, salt of the content hashes)."""
        from communities import ExtractiveSummarizer

        cfg = self.settings.communities
        extractive = ExtractiveSummarizer()
        summarizer: Any = extractive
        salt = f"extractive|{cfg.summary_token_budget}"
        if self.summarizes_with_llm:
            from kg_rag.llm import build_summarizer

            assert self.llm is not None
            summarizer = build_summarizer(
                self.settings,
                self.llm,
                fallback=extractive,
                budget=self.budget,
                progress=self.progress,
            )
            salt = (
                f"{summarizer.prompt_version}|{summarizer.runtime.model_id}|"
                f"{cfg.summary_token_budget}"
            )
        return summarizer, extractive, salt

    def _summarize(
        self,
        records: Sequence[Any],
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        old: dict[str, Community],
        redo: set[str],
        report: CommunityBuildReport,
    ) -> list[Community]:
        """Communities for ``records``: stored summaries kept where the content hash is
        unchanged, the others summarized (failures recorded in ``report``)."""
        from communities import EntityInfo, RelationInfo, build_contexts, update_communities

        cfg = self.settings.communities
        wanted = sorted({cid for r in relations for cid in r.evidence[:2]})
        previews = {c.chunk_id: c.text for c in self.chunks.get_chunks(wanted)}
        infos = [
            EntityInfo(entity_id=e.entity_id, name=e.name, type=e.type, description=e.description)
            for e in entities
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
        summarizer, extractive, salt = self._summarizer()
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
        failures = [
            Failure(kind="summary", item_id=f.community_id, error=f.error, attempts=f.attempts)
            for f in getattr(summarizer, "failures", [])
        ]
        report.failures.extend(failures)
        failed = {f.item_id for f in failures}
        usage = getattr(summarizer, "usage", None)
        if usage is not None:
            report.llm_calls += int(usage.calls)
            report.prompt_tokens += int(usage.prompt_tokens)
            report.completion_tokens += int(usage.completion_tokens)
            report.counted_prompt_tokens += int(usage.counted_prompt_tokens)
        hashes = {p.community_id: p.content_hash for p in update.fingerprints}
        result: list[Community] = []
        for rec in records:
            rep = update.reports.get(rec.community_id)
            prev = old.get(rec.community_id)
            if rep is None and prev is not None and rec.community_id not in update.missing:
                title, summary, findings, rank = prev.title, prev.summary, prev.findings, prev.rank
            else:
                if rep is None:  # summary failed: keep the community with an extractive text
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
        report.summarized += len(update.plan.to_summarize)
        report.unchanged += len(update.plan.unchanged)
        report.retried += len(redo & set(hashes))
        return result

    def build_communities(
        self, retry: Sequence[str] = (), *, full: bool | None = None
    ) -> CommunityBuildReport:
        """Update the communities after a graph change and re-summarize only the changed
        ones (and ``retry``, the communities whose summary failed before); store them in the
        graph store.

        By default (``communities.incremental``) only the communities the change touched are
        re-clustered (:func:`communities.local.update_partition`, reading the graph through
        the store's neighbourhood queries); the whole graph is clustered when there are no
        communities yet, when the change is too large a share of the graph, when the store
        cannot say what changed, or with ``full=True`` (``kg-rag communities rebuild``).

        The community index is updated by :meth:`index_communities` (a separate step, so a
        crash between the two is finished by redoing only the index).
        """
        cfg = self.settings.communities
        store: Any = self.graph
        can_local = all(
            hasattr(store, name)
            for name in (
                "community_changes",
                "apply_communities",
                "relations_of",
                "communities_of",
                "child_communities",
                "get_communities",
            )
        )
        reason = "requested" if full else ""
        if full is None:
            full = not cfg.incremental or not can_local
            reason = "configured" if full else ""
        if not full:
            report, reason = self._build_local(retry)
            if report is not None:
                return report
        return self._build_full(retry, can_local, reason)

    @property
    def _drift_file(self) -> Path:
        return Path(self.settings.kb_dir) / "community-drift.json"

    def _drift(self) -> dict[str, float] | None:
        """The incremental budget's state: ``clustered`` (entities of the last whole-graph
        run), ``changed`` (entities incremental updates changed since), ``budget`` (share of
        ``clustered`` they may change); ``None`` when nothing was recorded."""
        try:
            data = json.loads(self._drift_file.read_text(encoding="utf-8"))
            return {k: float(data[k]) for k in ("clustered", "changed", "budget")}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _save_drift(self, state: dict[str, float]) -> None:
        path = self._drift_file
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")
        tmp.replace(path)

    def _build_full(
        self, retry: Sequence[str], can_local: bool, reason: str = ""
    ) -> CommunityBuildReport:
        """Hierarchical Leiden over the whole graph; after a run of incremental updates
        (``reason == "budget"``) it measures what they had lost and adapts the budget."""
        from communities import detect_communities, modularity
        from communities.local import adapt_budget

        t0 = time.perf_counter()
        cfg = self.settings.communities
        report = CommunityBuildReport()
        lap = _Lap(report.stage_seconds)
        store: Any = self.graph
        changes = store.community_changes() if can_local else None
        entities = self.graph.all_entities()
        relations = self.graph.all_relations()
        lap("load")
        graph = self._community_graph(relations)
        records = detect_communities(graph, max_cluster_size=cfg.max_cluster_size, seed=cfg.seed)
        lap("leiden")
        stored = self.graph.communities()
        report.full_reason = reason or ("first" if not stored else "requested")
        report.modularity = round(modularity(graph, records), 4)
        state = self._drift()
        budget = state["budget"] if state is not None else cfg.local_budget
        if reason == "budget" and stored and changes is not None and state is not None:
            # What the incremental updates would have given, this one included, against
            # this run, on the same graph: the loss the budget is adapted to.
            drifted = self._drifted_partition(stored, changes, int(graph.number_of_nodes()))
            loss = report.modularity - modularity(graph, drifted)
            spent = (state["changed"] + len(changes[0])) / max(state["clustered"], 1.0)
            report.modularity_loss = round(loss, 4)
            report.local_spent = round(spent, 4)
            budget = adapt_budget(budget, spent, loss, cfg.max_modularity_loss)
        report.local_budget = round(budget, 4)
        lap("measure")
        old = {c.community_id: c for c in stored}
        # A community an incremental update continued under an older id has the same
        # members as this run's: its summary is checked against that community's hash.
        by_members = {(c.level, frozenset(c.members)): c for c in stored}
        compare = dict(old)
        for rec in records:
            if rec.community_id not in old:
                prev = by_members.get((rec.level, frozenset(rec.members)))
                if prev is not None:
                    compare[rec.community_id] = prev
        redo = set(retry)
        result = self._summarize(records, entities, relations, compare, redo, report)
        lap("summarize")
        current = {c.community_id for c in result}
        if can_local and stored:
            # Delta write: only what differs from the stored layer.
            written = [c for c in result if not _same_community(old.get(c.community_id), c)]
            gone = sorted(set(old) - current)
            # A community that lost a deleted member already reads without it in the store
            # (so it is not "written"), but the index still lists the member.
            stale = changes[1] if changes is not None else []
            # What the index must take in is recorded before the store is written: a crash
            # between the two would leave written communities that a rerun sees as unchanged
            # and never sends to the index.
            self._pend_index([*(c.community_id for c in written), *gone, *stale])
            store.apply_communities(written, gone)
        else:
            self._pend_index(None)
            self.graph.upsert_communities(result)
        if changes is not None:
            store.clear_community_changes(*changes)
        # Last: a build killed before this point is redone as a whole-graph run again.
        self._save_drift({"clustered": graph.number_of_nodes(), "changed": 0, "budget": budget})
        lap("write")
        report.communities = len(result)
        report.levels = len({c.level for c in result})
        report.removed = len(set(old) - current)
        report.seconds = time.perf_counter() - t0
        return report

    def _drifted_partition(
        self, stored: Sequence[Community], changes: tuple[list[str], list[str]], nodes: int
    ) -> list[Any]:
        """The partition an incremental update of ``stored`` for ``changes`` would give
        (computed, not written)."""
        from communities.local import update_partition

        cfg = self.settings.communities
        local = update_partition(
            _StoreView(self.graph),
            changes[0],
            changes[1],
            total_nodes=nodes,
            max_cluster_size=cfg.max_cluster_size,
            seed=cfg.seed,
            max_region_nodes=cfg.max_region_nodes,
            max_share=1.0,
        )
        records = {r.community_id: r for r in _StoreView._records(stored)}
        if local is not None:
            for cid in local.removed:
                records.pop(cid, None)
            records.update((r.community_id, r) for r in local.upserts)
        return list(records.values())

    def _carry(self, local: Any, targets: list[Any]) -> list[Community]:
        """Communities above the re-clustered ones that only gained or lost members: small
        ones join ``targets`` (summarized again); a large one keeps its summary under its
        new id until it has grown by :data:`RESUMMARIZE_GROWTH` since it was summarized
        (its content hash records that size, ``carried:<size>:<hash>``), so a level-0
        community touched by every batch is not summarized again on every batch."""
        store: Any = self.graph
        cfg = self.settings.communities
        previous = {
            c.community_id: c for c in store.get_communities(sorted(set(local.resized.values())))
        }
        carried: list[Community] = []
        for rec in local.upserts:
            old_id = local.resized.get(rec.community_id)
            if old_id is None:
                continue
            prev = previous.get(old_id)
            if prev is None or rec.size <= cfg.max_region_nodes:
                targets.append(rec)
                continue
            base, _, original = prev.content_hash.removeprefix("carried:").partition(":")
            if prev.content_hash.startswith("carried:") and base.isdigit():
                size, content_hash = int(base), original
            else:
                size, content_hash = len(prev.members), prev.content_hash
            if not content_hash or rec.size > RESUMMARIZE_GROWTH * size:
                targets.append(rec)
                continue
            carried.append(
                prev.model_copy(
                    update={
                        "community_id": rec.community_id,
                        "level": rec.level,
                        "parent_id": rec.parent_id,
                        "members": list(rec.members),
                        "content_hash": f"carried:{size}:{content_hash}",
                        "vector": None,
                    }
                )
            )
        return carried

    def _build_local(self, retry: Sequence[str]) -> tuple[CommunityBuildReport | None, str]:
        """The incremental update, or ``None`` with the reason the whole graph should be
        clustered instead."""
        from communities import CommunityRecord
        from communities.local import update_partition

        t0 = time.perf_counter()
        cfg = self.settings.communities
        store: Any = self.graph
        report = CommunityBuildReport()
        lap = _Lap(report.stage_seconds)
        counts = self.graph.counts()
        if not counts.get("communities"):
            return None, "first"
        changed, stale = store.community_changes()
        state = self._drift() or {
            "clustered": float(counts.get("entities", 0)),
            "changed": 0.0,
            "budget": cfg.local_budget,
        }
        spent = state["changed"] + len(changed)
        if changed and spent > state["budget"] * max(state["clustered"], 1.0):
            log.debug(
                "incremental budget spent (%d changed entities since the last whole-graph run, "
                "budget %.2f of %d): whole-graph run",
                spent,
                state["budget"],
                state["clustered"],
            )
            return None, "budget"
        view = _StoreView(store)
        local = update_partition(
            view,
            changed,
            stale,
            total_nodes=int(counts.get("entities", 0)),
            max_cluster_size=cfg.max_cluster_size,
            seed=cfg.seed,
            max_region_nodes=cfg.max_region_nodes,
            max_share=cfg.max_incremental_share,
        )
        if local is None:
            return None, "cost"
        lap("leiden")
        redo = set(retry)
        recomputed = set(local.recomputed)
        targets = [r for r in local.upserts if r.community_id in recomputed]
        upsert_ids = {r.community_id for r in local.upserts}
        carried = self._carry(local, targets)
        retried = [
            CommunityRecord(
                community_id=c.community_id,
                level=c.level,
                parent_id=c.parent_id,
                members=list(c.members),
                size=len(c.members),
            )
            for c in store.get_communities(sorted(redo - upsert_ids - set(local.removed)))
        ]
        targets.extend(retried)
        old = {
            c.community_id: c
            for c in store.get_communities(sorted({r.community_id for r in local.upserts} | redo))
        }
        members = sorted({m for r in targets for m in r.members})
        entities = self.graph.get_entities(members)
        # Every relation of the members, as the whole-graph build passes every relation:
        # summaries rank members by their degree in the whole graph.
        relations = store.relations_of(members)
        lap("load")
        result = self._summarize(targets, entities, relations, old, redo, report)
        summarized = {c.community_id for c in result}
        result.extend(carried)
        for rec in local.upserts:
            cid = rec.community_id
            if cid in summarized or cid in local.resized:
                continue
            result.append(old[cid].model_copy(update={"parent_id": rec.parent_id}))
        lap("summarize")
        self._pend_index([*(c.community_id for c in result), *local.removed, *stale])
        store.apply_communities(result, local.removed)  # after the pending ids, as above
        store.clear_community_changes(changed, stale)
        self._save_drift({**state, "changed": spent})
        lap("write")
        report.communities = int(self.graph.counts().get("communities", 0))
        # Kept: every stored community but the summarized ones and the carried ones (whose
        # content hash records the carry); the untouched ones were not even read.
        report.unchanged = report.communities - report.summarized - len(carried)
        report.removed = len(local.removed)
        report.region_nodes = local.region_nodes
        report.carried = len(carried)
        report.incremental = True
        report.local_budget = round(state["budget"], 4)
        report.local_spent = round(spent / max(state["clustered"], 1.0), 4)
        report.seconds = time.perf_counter() - t0
        return report, ""

    @property
    def _pending_file(self) -> Path:
        return Path(self.settings.kb_dir) / "community-index-pending.json"

    def _pend_index(self, ids: Sequence[str] | None) -> None:
        """Record what the community index must take in: ``ids`` (written or removed since
        it was last updated, added to what is already pending) or everything (``None``).
        Kept in the knowledge-base folder, so a crash before the index step loses nothing."""
        path = self._pending_file
        before = self._pending_index() if path.exists() else []
        if ids is None or before is None:
            data: dict[str, Any] = {"all": True}
        else:
            data = {"ids": sorted({*before, *ids})}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)

    def _pending_index(self) -> list[str] | None:
        """Community ids the index must update, or ``None`` for a full rebuild (also when
        nothing was recorded: a knowledge base from before incremental updates)."""
        try:
            data = json.loads(self._pending_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("all") or not isinstance(data.get("ids"), list):
            return None
        return [str(i) for i in data["ids"]]

    def index_communities(self, report: CommunityBuildReport | None = None) -> CommunityBuildReport:
        """Rebuild the community index from the communities stored in the graph store.

        A stored vector is reused when its community's id and embedded text are unchanged,
        so redoing this step (after a crash) embeds nothing twice.
        """
        t0 = time.perf_counter()
        report = report if report is not None else CommunityBuildReport()
        pending = self._pending_index()
        if pending is not None and self.index.exists():
            # (with no index table, or one whose first write was cut short, every stored
            # community is indexed below, not only the pending ones)
            changed = self.graph.get_communities(pending)  # type: ignore[attr-defined]
            present = {c.community_id for c in changed}
            report.embedded = self.index.apply(changed, [c for c in pending if c not in present])
            report.indexed = len(changed)
            self._pending_file.unlink(missing_ok=True)
            report.stage_seconds["index"] = time.perf_counter() - t0
            report.seconds += time.perf_counter() - t0
            return report
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
        self._pending_file.unlink(missing_ok=True)
        report.indexed = len(stored)
        report.stage_seconds["index"] = time.perf_counter() - t0
        if not report.communities:
            report.communities = len(stored)
            report.levels = len({c.level for c in stored})
        report.seconds += time.perf_counter() - t0
        return report


def _same_community(stored: Community | None, new: Community) -> bool:
    """True when writing ``new`` would not change the ``stored`` community (vectors live in
    the community index, not compared)."""
    if stored is None:
        return False
    keys = ("level", "parent_id", "title", "summary", "findings", "rank", "content_hash")
    return all(getattr(stored, k) == getattr(new, k) for k in keys) and sorted(
        stored.members
    ) == sorted(new.members)


def _evidence_weight(relation: Relation) -> float:
    return float(max(1, len(relation.evidence)))


class _StoreView:
    """:class:`communities.local.GraphView` over a graph store's neighbourhood reads; edge
    weights as in :meth:`GraphBuilder._community_graph` (evidence chunks per pair)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def adjacency(self, nodes: Sequence[str]) -> dict[str, dict[str, float]]:
        wanted = set(nodes)
        out: dict[str, dict[str, float]] = {}
        for start in range(0, len(nodes), 5000):
            for r in self.store.relations_of(list(nodes[start : start + 5000])):
                a, b = r.source_id, r.target_id
                if a == b:
                    continue
                w = _evidence_weight(r)
                for x, y in ((a, b), (b, a)):
                    if x in wanted:
                        row = out.setdefault(x, {})
                        row[y] = row.get(y, 0.0) + w
        return out

    @staticmethod
    def _records(communities: Sequence[Community]) -> list[Any]:
        from communities import CommunityRecord

        return [
            CommunityRecord(
                community_id=c.community_id,
                level=c.level,
                parent_id=c.parent_id,
                members=sorted(c.members),
                size=len(c.members),
            )
            for c in communities
        ]

    def communities_of(self, nodes: Sequence[str]) -> list[Any]:
        return self._records(self.store.communities_of(list(nodes)))

    def get(self, community_ids: Sequence[str]) -> list[Any]:
        return self._records(self.store.get_communities(list(community_ids)))

    def children(self, community_ids: Sequence[str]) -> list[Any]:
        return self._records(self.store.child_communities(list(community_ids)))
