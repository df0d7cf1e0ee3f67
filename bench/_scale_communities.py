"""The community-quality series of ``bench/scale.py``: one corpus ingested at once (one
whole-graph Leiden run) against the same corpus ingested in batches with incremental
community updates (:func:`communities.local.update_partition`).

Reported for the final knowledge base of each run: the modularity of the level-0 partition on
the graph Leiden clusters (one edge per entity pair, weighted by evidence chunks; entities in
no community count as singletons), the number of communities (all levels, level 0), the
number of levels, the share of entities in a level-0 community, and the seconds the
community stage took over the whole run. Runs: ``one-shot``; ``batches`` (default settings:
a batch that touches more than ``max_incremental_share`` of the graph is clustered whole);
``batches, always local`` (``max_incremental_share = 1`` and an unbounded incremental budget:
every batch after the first is a local update, the worst case for quality); and the latter
followed by ``kg-rag communities rebuild``. Each batched run also lists, per batch, the
community stage's ms per passage, whether it was a local update or why the whole graph was
clustered, and the measured loss and budget.

Offline extraction, :class:`kg_rag.testing.HashEmbeddings` vectors (the embedder does not
touch communities).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import networkx as nx


def _passages(corpus: Path) -> list[tuple[str, str, str]]:
    out = []
    with corpus.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            row = json.loads(line)
            out.append((f"p{i:05d}", row.get("title", ""), row["text"]))
    return out


def quality(engine: Any) -> dict[str, Any]:
    """Modularity of the stored level-0 partition and community counts."""
    store = engine.graph_store
    builder = engine._builder()
    graph: nx.Graph = builder._community_graph(store.all_relations())
    comms = store.communities()
    level0 = [set(c.members) & set(graph) for c in comms if c.level == 0]
    covered = set().union(*level0) if level0 else set()
    parts = [p for p in level0 if p] + [{n} for n in graph if n not in covered]
    return {
        "modularity": round(float(nx.algorithms.community.modularity(graph, parts)), 4),
        "communities": len(comms),
        "level0": len(level0),
        "levels": len({c.level for c in comms}),
        "covered": round(len(covered) / max(graph.number_of_nodes(), 1), 4),
        "entities": graph.number_of_nodes(),
    }


def run(corpus: Path, batches: int, share: float | None, rebuild: bool = False) -> dict[str, Any]:
    """Ingest ``corpus`` in ``batches`` batches; ``share`` overrides
    ``communities.max_incremental_share``."""
    from kg_rag.config import Settings
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.ingest.loaders import SourceDocument
    from kg_rag.testing import HashEmbeddings

    docs = [SourceDocument(doc_id=d, title=t, text=x) for d, t, x in _passages(corpus)]
    size = -(-len(docs) // batches)
    seconds = 0.0
    local = 0
    with tempfile.TemporaryDirectory(prefix="kg-rag-comm-quality-") as tmp:
        settings = Settings(kb_dir=Path(tmp) / "kb")
        settings.llm.base_url = None
        settings.llm.api_key = None
        settings.extraction.mode = "offline"
        if share is not None:
            settings.communities.max_incremental_share = share
            settings.communities.local_budget = 1e9
            settings.communities.max_modularity_loss = 1e9
        engine = KnowledgeEngine.open(
            settings=settings, embedder=HashEmbeddings(dimensions=384), progress=False
        )
        with engine:
            per_batch = []
            for start in range(0, len(docs), size):
                report = engine.ingest(docs[start : start + size])
                if report.communities is not None:
                    c = report.communities
                    step = sum(c.stage_seconds.values())
                    seconds += step
                    local += int(c.incremental)
                    per_batch.append(
                        {
                            "passages": len(docs[start : start + size]),
                            "ms_per_passage": round(1000 * step / max(1, size), 2),
                            "mode": "local" if c.incremental else c.full_reason,
                            "loss": c.modularity_loss,
                            "budget": c.local_budget,
                            "spent": c.local_spent,
                            "entities": int(engine.graph_store.counts().get("entities", 0)),
                            "region_nodes": c.region_nodes,
                            "stages_s": {k: round(v, 2) for k, v in c.stage_seconds.items()},
                        }
                    )
            out = {
                "batches": batches,
                "local_updates": local,
                "community_s": round(seconds, 1),
                "per_batch": per_batch,
            }
            out.update(quality(engine))
            if rebuild:
                t0 = time.perf_counter()
                engine.build_communities(full=True)
                rebuilt = quality(engine)
                rebuilt["rebuild_s"] = round(time.perf_counter() - t0, 1)
                out["rebuilt"] = rebuilt
    return out


def community_series(corpus: Path, batches: int = 10) -> dict[str, Any]:
    """The four runs of the module docstring."""
    return {
        "one-shot": run(corpus, 1, None),
        "batches": run(corpus, batches, None),
        "batches, always local": run(corpus, batches, 1.0, rebuild=True),
    }


def print_communities(results: dict[str, Any]) -> None:
    """One table row per run."""
    from bench._common import print_table

    rows = []
    for name, r in results.items():
        entries = [(name, r)]
        if "rebuilt" in r:
            entries.append((f"{name}, then rebuild", r["rebuilt"]))
        for label, q in entries:
            rows.append(
                [
                    label,
                    f"{q.get('local_updates', '-')}",
                    f"{q['modularity']:.4f}",
                    f"{q['communities']:,}",
                    f"{q['level0']:,}",
                    str(q["levels"]),
                    f"{q['covered']:.3f}",
                    f"{q.get('community_s', q.get('rebuild_s', 0.0)):.1f}",
                ]
            )
    print_table(
        "Communities: one-shot against batched ingest with incremental updates",
        [
            "run",
            "local updates",
            "level-0 modularity",
            "communities",
            "level 0",
            "levels",
            "covered",
            "community s",
        ],
        rows,
    )


def _cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def local_cost(groups: int, change: int = 40) -> dict[str, Any]:
    """CPU seconds of one incremental community update (and of a whole-graph build) on a
    graph of ``groups`` groups of three 4-cliques, after ``change`` new entities, each
    linked to two entities of one clique, spread over the graph."""
    from kg_rag.config import Settings
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.models import Entity, Mention, Relation
    from kg_rag.testing import HashEmbeddings

    def node(g: int, c: int, i: int) -> str:
        return f"n{g:05d}{c}_{i}"

    entities, relations, mentions = [], [], []
    for g in range(groups):
        for c in range(3):
            ids = [node(g, c, i) for i in range(4)]
            chunk = f"k{g:05d}{c}"
            entities += [Entity(entity_id=e, name=e, type="PERSON") for e in ids]
            mentions += [Mention(entity_id=e, chunk_id=chunk, doc_id=chunk) for e in ids]
            pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
            for d in range(c):
                pairs += [(node(g, c, d), node(g, d, c)), (node(g, c, d + 1), node(g, d, c + 1))]
            if g:
                pairs.append((node(g - 1, 0, 0), node(g, 1, 1)))
            relations += [
                Relation(source_id=a, target_id=b, type="KNOWS", evidence=[chunk]) for a, b in pairs
            ]
    with tempfile.TemporaryDirectory(prefix="kg-rag-comm-local-") as tmp:
        settings = Settings(kb_dir=Path(tmp) / "kb")
        settings.llm.base_url = None
        settings.llm.api_key = None
        settings.extraction.mode = "offline"
        engine = KnowledgeEngine.open(
            settings=settings, embedder=HashEmbeddings(dimensions=64), progress=False
        )
        with engine:
            store = engine.graph_store
            store.upsert_entities(entities)
            store.upsert_relations(relations)
            store.upsert_mentions(mentions)
            builder = engine._builder()
            c0 = _cpu()
            builder.index_communities(builder.build_communities())
            whole = _cpu() - c0
            step = max(1, groups // change)
            new = [
                Entity(entity_id=f"new{k:04d}", name=f"new{k}", type="PERSON")
                for k in range(change)
            ]
            links = [
                Relation(
                    source_id=e.entity_id,
                    target_id=node(k * step % groups, 1, i),
                    type="KNOWS",
                    evidence=[f"x{k}"],
                )
                for k, e in enumerate(new)
                for i in (0, 2)
            ]
            store.upsert_entities(new)
            store.upsert_relations(links)
            store.upsert_mentions(
                [
                    Mention(entity_id=e.entity_id, chunk_id=f"x{k}", doc_id=f"x{k}")
                    for k, e in enumerate(new)
                ]
            )
            builder = engine._builder()
            c0 = _cpu()
            report = builder.index_communities(builder.build_communities())
            local = _cpu() - c0
            return {
                "entities": len(entities),
                "whole_cpu_s": round(whole, 2),
                "local_cpu_s": round(local, 3),
                "incremental": report.incremental,
                "region_nodes": report.region_nodes,
                "summarized": report.summarized,
            }
