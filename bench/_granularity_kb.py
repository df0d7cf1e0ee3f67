"""Long documents for ``bench/granularity.py``: built from a passage set, ingested once, cached.

Every passage goes into a multi-section Markdown document: passages are ordered by a seeded
hash of their id and taken 12 at a time; each document is cut into ``##`` sections of 3–4
passages (how many sections is drawn from the same hash), and each passage is one paragraph
that starts with its title in bold. Document titles and headings are neutral (``Collection
017``, ``Part 2``): the grouping is random, so a topical heading would be invented, and the
heading path is embedded with every chunk.

The documents are ingested through the normal pipeline (all four chunk levels, offline graph)
into ``<cache>/granularity-<key>/kb``; the key hashes the generated documents, the ingest-side
sources and settings and the packages involved, so a change to any of them ingests afresh.
Query-side code (``kg_rag/retrieval``, ``kg_rag/answer``, the store's search module) is not in
the key: it never changes what is stored. Nothing here reads the gold data.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._common import (
    BenchContext,
    Dataset,
    Passage,
    hash_ingest_settings,
    hash_source_files,
)

ROOT = Path(__file__).resolve().parent.parent
SEED = "kg-rag granularity v1"
PER_DOCUMENT = 12
READY = "READY.json"

# What the cached knowledge base is built by (config.py and models.py enter through the
# classes that shape ingest, so new query-side settings do not force a 20-minute re-ingest).
_SOURCES = (
    "kg_rag/ingest",
    "kg_rag/stores",
    "kg_rag/graph_build.py",
    "kg_rag/embeddings.py",
    "kg_rag/text.py",
    "extraction",
    "communities",
)
_QUERY_ONLY = ("kg_rag/stores/_chunk_search.py",)


@dataclass(frozen=True)
class LongDocument:
    """A generated document: its id, title, Markdown text and the passage ids it holds, by
    section."""

    doc_id: str
    title: str
    text: str
    sections: tuple[tuple[str, ...], ...]


def _rank(key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{SEED}\n{key}".encode()).digest()[:8], "big")


def _section_sizes(n: int, draw: int) -> list[int]:
    """``n`` passages in sections of 3–4 (fewer than 3: one section); ``draw`` picks how many
    sections among the counts that allow it, and the sizes are as even as possible."""
    if n < 3:
        return [n] if n else []
    low, high = -(-n // 4), n // 3
    count = low + draw % (high - low + 1) if high >= low else low
    base, extra = divmod(n, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def paragraph(p: Passage) -> str:
    """A passage as one Markdown paragraph that starts with its title in bold."""
    return f"**{p.title.strip()}.** {' '.join(p.text.split())}"


def build_documents(passages: list[Passage]) -> list[LongDocument]:
    """The long documents of a passage set (deterministic: same passages, same documents)."""
    ordered = sorted(passages, key=lambda p: (_rank(p.id), p.id))
    docs = []
    for n, start in enumerate(range(0, len(ordered), PER_DOCUMENT)):
        group = ordered[start : start + PER_DOCUMENT]
        title = f"Collection {n + 1:03d}"
        parts = [f"# {title}"]
        sections: list[tuple[str, ...]] = []
        taken = 0
        for s, size in enumerate(_section_sizes(len(group), _rank(f"doc{n}"))):
            members = group[taken : taken + size]
            taken += size
            parts.append(f"## Part {s + 1}")
            parts.extend(paragraph(p) for p in members)
            sections.append(tuple(p.id for p in members))
        docs.append(
            LongDocument(
                doc_id=f"gran-{n + 1:03d}",
                title=title,
                text="\n\n".join(parts) + "\n",
                sections=tuple(sections),
            )
        )
    return docs


def _ingest(kb_dir: Path, docs: list[LongDocument], embedder: Any) -> tuple[Any, dict[str, Any]]:
    from kg_rag.config import ChunkingSettings, RetrievalSettings
    from kg_rag.ingest.pipeline import ChunkIngestor, SourceDocument
    from kg_rag.stores.chunks import LanceChunkStore

    store = LanceChunkStore(kb_dir, embedder, settings=RetrievalSettings())
    store.open()
    started = time.perf_counter()
    report = ChunkIngestor(store, ChunkingSettings(), progress=False).ingest_documents(
        SourceDocument(doc_id=d.doc_id, title=d.title, text=d.text, format="md") for d in docs
    )
    return store, {
        "seconds": round(time.perf_counter() - started, 1),
        "chunks_per_level": dict(report.chunks_per_level),
        "skipped": len(report.skipped),
    }


def cache_key(docs: list[LongDocument]) -> str:
    """Hash of the documents and of everything that shapes what their ingest stores."""
    from kg_rag import models

    h = hashlib.sha256()
    for d in docs:
        h.update(json.dumps([d.doc_id, d.title, d.text]).encode())
    hash_source_files(h, ROOT, _SOURCES, _QUERY_ONLY)
    for obj in (models.Chunk, models.Document, models.Entity, models.Relation, _ingest):
        h.update(inspect.getsource(obj).encode())
    import bench.engine_systems

    h.update(inspect.getsource(bench.engine_systems.build_graph).encode())
    hash_ingest_settings(h)
    return h.hexdigest()[:16]


def cached_kb(
    cache: Path, kb_dir: Path, docs: list[LongDocument], dataset: Dataset, embedder: Any
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The ingested documents (chunk store + offline graph) copied from ``cache`` into
    ``kb_dir``, built in the cache first when missing.

    Returns:
        (opened chunk store, bench ``extras`` with the graph store, build facts).
    """
    import bench.engine_systems
    from kg_rag.config import RetrievalSettings
    from kg_rag.stores.chunks import LanceChunkStore

    entry = cache / f"granularity-{cache_key(docs)}"
    ready = entry / READY
    if not ready.exists():
        building = cache / f".{entry.name}.building"
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        store, facts = _ingest(building / "kb", docs, embedder)
        print(f"ingest: {facts}")
        ctx = BenchContext(dataset=dataset, store=store, kb_dir=building / "kb")
        bench.engine_systems.build_graph(ctx)
        ctx.extras["graph_store"].close()
        store.close()
        facts["graph"] = ctx.extras["graph_report"]
        facts["documents"] = len(docs)
        (building / READY).write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(entry, ignore_errors=True)
        building.rename(entry)  # atomic: a half-built entry is never READY
        print(f"kb cache: built {entry}")
    else:
        print(f"kb cache: reusing {entry}")
    facts = json.loads(ready.read_text(encoding="utf-8"))
    shutil.copytree(entry / "kb", kb_dir)
    store = LanceChunkStore(kb_dir, embedder, settings=RetrievalSettings())
    store.open()
    extras = bench.engine_systems.open_graph(kb_dir, facts["graph"])
    return store, extras, facts
