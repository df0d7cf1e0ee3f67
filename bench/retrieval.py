"""Chunk-retrieval benchmark: recall of supporting passages, query latency, ingest throughput.

Every corpus passage becomes one document (title + text) in a fresh knowledge base; systems
search paragraphs and are scored by the passage ids (= doc ids) of their hits:

* ``dense``, ``bm25``, ``hybrid`` (the store's fusion of both: relative-score fusion, 0.75
  dense), ranked at paragraph level;
* more systems can be registered in :data:`bench._common.SYSTEMS` (see ``_common.py``).

It also measures ingest throughput (passages/s, all four chunk levels stored) against raw
embedding throughput of the same texts (the embedder alone, same batch size), interleaved
slice by slice, by wall clock (the JSON) and by CPU time (steadier on a shared machine).

``--kb-cache DIR`` keeps the ingested knowledge base (chunk store and offline graph) under
``DIR`` and reuses it on later runs: the key hashes the corpus passages the run ingests, the
source files of ingest, stores, extraction, communities and graph building, this benchmark's
ingest functions, the ingest-side settings and the embedder/LanceDB/networkx versions, so a
change to any of them ingests afresh (query-side code, e.g. ``kg_rag/retrieval`` and
``kg_rag/answer``, is not in the key: it never changes what is stored). A cached run copies the cached
folder into its temporary one (the cache itself is never written by a run) and reports the
ingest throughput measured when the cache was built.

``--late-chunking-ablation`` adds a second knowledge base whose sentences are embedded one by
one instead of by late chunking, and compares sentence-level recall and ingest speed.

Run: ``nice .venv/bin/python bench/retrieval.py --data ../shared/bench/musique-dev
[--json OUT] [--limit N] [--kb-cache DIR]``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.engine_systems  # registers ppr, engine, engine_fixed_paragraph
from bench._common import (
    SYSTEMS,
    BenchContext,
    Dataset,
    Passage,
    System,
    evaluate,
    hash_ingest_settings,
    hash_source_files,
    load_dataset,
    print_table,
    register_system,
    unique,
)
from kg_rag.config import ChunkingSettings, RetrievalSettings
from kg_rag.embeddings import LocalMiniLMEmbeddings
from kg_rag.ingest.pipeline import ChunkIngestor, IngestReport, SourceDocument
from kg_rag.stores.chunks import LanceChunkStore

DEFAULT_SYSTEMS = [
    "dense",
    "bm25",
    "hybrid",
    "ppr",
    "engine",
    "engine_fast",
    "engine_pool",
    "engine_fixed_paragraph",
]


def _chunk_system(
    ctx: BenchContext, mode: str, level: str = "paragraph", top_k: int = 10
) -> System:
    store: LanceChunkStore = ctx.store

    def run(question: str) -> list[str]:
        # Sentence hits are many per passage: fetch more and keep the first per passage.
        k = top_k * 5 if level == "sentence" else top_k
        hits = store.search(question, mode=mode, level=level, top_k=k)  # type: ignore[arg-type]
        return unique(h.chunk.doc_id for h in hits)[:top_k]

    return run


@register_system("dense")
def dense_system(ctx: BenchContext) -> System:
    """Vector search over paragraphs."""
    return _chunk_system(ctx, "dense")


@register_system("bm25")
def bm25_system(ctx: BenchContext) -> System:
    """BM25 over paragraphs (title + text tokens)."""
    return _chunk_system(ctx, "bm25")


@register_system("hybrid")
def hybrid_system(ctx: BenchContext) -> System:
    """Reciprocal-rank fusion of dense and BM25 over paragraphs."""
    return _chunk_system(ctx, "hybrid")


@register_system("dense_sentence")
def dense_sentence_system(ctx: BenchContext) -> System:
    """Vector search over sentences, scored by their passage."""
    return _chunk_system(ctx, "dense", level="sentence")


@register_system("hybrid_sentence")
def hybrid_sentence_system(ctx: BenchContext) -> System:
    """Hybrid search over sentences, scored by their passage."""
    return _chunk_system(ctx, "hybrid", level="sentence")


def source_documents(dataset: Dataset) -> list[SourceDocument]:
    """One document per passage; its id is the passage id."""
    return [SourceDocument(doc_id=p.id, title=p.title, text=p.text) for p in dataset.passages]


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    now = _clock()
    return now[0] - start[0], now[1] - start[1]


def embed_only(embedder: LocalMiniLMEmbeddings, passages: list[Passage]) -> tuple[float, float]:
    """Wall and CPU seconds the embedder alone takes on exactly the texts the ingest embeds."""
    texts = [f"{p.title}\n{p.text}" if p.title else p.text for p in passages]
    start = _clock()
    embedder.embed_array(texts)
    return _since(start)


def open_store(
    kb_dir: Path, embedder: LocalMiniLMEmbeddings, *, late_chunking: bool = True
) -> LanceChunkStore:
    """A new, opened chunk store."""
    store = LanceChunkStore(
        kb_dir, embedder, settings=RetrievalSettings(), late_chunking=late_chunking
    )
    store.open()
    return store


@dataclass
class Throughput:
    """Passages per second of the ingest and of the embedder alone, by wall and CPU time."""

    ingest: float
    embed_only: float
    ingest_cpu: float
    embed_only_cpu: float


def ingest_measured(
    store: LanceChunkStore, embedder: LocalMiniLMEmbeddings, dataset: Dataset, rounds: int = 8
) -> tuple[IngestReport, Throughput]:
    """Ingest the corpus in ``rounds`` slices, timing embed-only on each slice next to it.

    The machine is shared and its load drifts, so the two measurements are interleaved (their
    order swapped every round) and CPU time (this process, all threads: BLAS and LanceDB) is
    reported next to wall time: CPU time does not grow when other processes take the cores.
    """
    ingestor = ChunkIngestor(store, ChunkingSettings(), progress=False)
    docs = source_documents(dataset)
    size = -(-len(docs) // rounds)
    total = IngestReport()
    ingest_t = [0.0, 0.0]
    embed_t = [0.0, 0.0]
    for r in range(rounds):
        part = slice(r * size, (r + 1) * size)
        if not docs[part]:
            continue
        if r % 2:
            wall, cpu = embed_only(embedder, dataset.passages[part])
            embed_t[0] += wall
            embed_t[1] += cpu
        start = _clock()
        report = ingestor.ingest_documents(docs[part])
        wall, cpu = _since(start)
        ingest_t[0] += wall
        ingest_t[1] += cpu
        if not r % 2:
            wall, cpu = embed_only(embedder, dataset.passages[part])
            embed_t[0] += wall
            embed_t[1] += cpu
        total.files_seen += report.files_seen
        total.documents_added += report.documents_added
        total.embeddings_computed += report.embeddings_computed
        total.skipped.extend(report.skipped)
        for level, n in report.chunks_per_level.items():
            total.chunks_per_level[level] += n
    total.seconds = ingest_t[0]
    n = len(docs)
    rates = Throughput(n / ingest_t[0], n / embed_t[0], n / ingest_t[1], n / embed_t[1])
    return total, rates


def ingest_plain(store: LanceChunkStore, dataset: Dataset) -> IngestReport:
    """Ingest the corpus in one call."""
    return ChunkIngestor(store, ChunkingSettings(), progress=False).ingest_documents(
        source_documents(dataset)
    )


_ROOT = Path(__file__).resolve().parent.parent
# What the cached knowledge base is built by: a change to any of these ingests afresh.
_KB_SOURCES = (
    "kg_rag/ingest",
    "kg_rag/stores",
    "kg_rag/graph_build.py",
    "kg_rag/embeddings.py",
    "kg_rag/text.py",
    "kg_rag/config.py",
    "kg_rag/models.py",
    "extraction",
    "communities",
)
_READY = "READY.json"


def kb_cache_key(dataset: Dataset) -> str:
    """Hash of the passages ingested, of the code and settings that ingest them and build the
    graph (library sources, this benchmark's ingest functions) and of the packages involved."""
    import inspect

    h = hashlib.sha256()
    for p in dataset.passages:
        h.update(json.dumps([p.id, p.title, p.text]).encode())
    hash_source_files(h, _ROOT, _KB_SOURCES)
    for fn in (source_documents, open_store, ingest_measured, bench.engine_systems.build_graph):
        h.update(inspect.getsource(fn).encode())
    hash_ingest_settings(h)
    return h.hexdigest()[:16]


def build_kb(kb_dir: Path, embedder: LocalMiniLMEmbeddings, dataset: Dataset, graph: bool) -> Any:
    """Ingest the corpus into ``kb_dir`` (and build the graph when ``graph``).

    Returns (opened store, ingest report, throughput, the ``extras`` for the bench context).
    """
    store = open_store(kb_dir, embedder)
    report, rates = ingest_measured(store, embedder, dataset)
    ctx = BenchContext(dataset=dataset, store=store, kb_dir=kb_dir)
    if graph:
        bench.engine_systems.build_graph(ctx)
    return store, report, rates, ctx.extras


def cached_kb(
    cache: Path, kb_dir: Path, embedder: LocalMiniLMEmbeddings, dataset: Dataset
) -> tuple[LanceChunkStore, IngestReport, Throughput, dict[str, Any]]:
    """The knowledge base from ``cache`` (built there first when missing), copied to ``kb_dir``.

    The graph is always built into the cache, so every system can use it.
    """
    entry = cache / f"{dataset.name}-{kb_cache_key(dataset)}"
    ready = entry / _READY
    if not ready.exists():
        building = cache / f".{entry.name}.building"
        shutil.rmtree(building, ignore_errors=True)
        building.parent.mkdir(parents=True, exist_ok=True)
        store, report, rates, extras = build_kb(building / "kb", embedder, dataset, graph=True)
        extras["graph_store"].close()
        store.close()
        meta = {
            "report": report.model_dump(mode="json"),
            "rates": rates.__dict__,
            "graph_report": extras.get("graph_report", {}),
        }
        (building / _READY).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(entry, ignore_errors=True)
        building.rename(entry)  # atomic: a half-built entry is never READY
        print(f"kb cache: built {entry}")
    else:
        print(f"kb cache: reusing {entry}")
    meta = json.loads(ready.read_text(encoding="utf-8"))
    shutil.copytree(entry / "kb", kb_dir)
    store = open_store(kb_dir, embedder)
    extras = bench.engine_systems.open_graph(kb_dir, meta["graph_report"])
    return store, IngestReport.model_validate(meta["report"]), Throughput(**meta["rates"]), extras


def run_systems(ctx: BenchContext, names: list[str]) -> dict[str, dict[str, float]]:
    """Evaluate the named systems on the context's questions."""
    results = {}
    for name in names:
        system = SYSTEMS[name](ctx)
        system("warm-up question about lazy loads")
        if isinstance(ctx.store, LanceChunkStore):
            # Query vectors are cached; each system must pay for its own embeddings.
            ctx.store.clear_caches()
        results[name] = evaluate(system, ctx.dataset.questions)
    return results


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="dataset folder")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--limit", type=int, help="first N questions and a smaller corpus")
    parser.add_argument("--systems", nargs="*", default=DEFAULT_SYSTEMS, choices=sorted(SYSTEMS))
    parser.add_argument("--late-chunking-ablation", action="store_true")
    parser.add_argument(
        "--kb-cache",
        type=Path,
        help="keep the ingested knowledge base (chunks + graph) here and reuse it",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    started = time.perf_counter()
    dataset = load_dataset(args.data, args.limit)
    embedder = LocalMiniLMEmbeddings()
    embedder.embed_array(["warm-up sentence"] * 8)  # load weights outside the timings
    print(
        f"dataset {dataset.name}: {len(dataset.passages)} passages, {len(dataset.questions)} questions"
    )

    with tempfile.TemporaryDirectory(prefix="kg-rag-bench-") as tmp:
        kb_dir = Path(tmp) / "kb"
        if args.kb_cache is not None:
            store, report, rates, extras = cached_kb(args.kb_cache, kb_dir, embedder, dataset)
        else:
            store, report, rates, extras = build_kb(kb_dir, embedder, dataset, graph=False)
        ingest_rate, embed_rate = rates.ingest, rates.embed_only
        print(report)
        ctx = BenchContext(dataset=dataset, store=store, kb_dir=kb_dir, extras=extras)
        systems = run_systems(ctx, list(args.systems))
        ablation: dict[str, Any] = {}
        if args.late_chunking_ablation:
            late = run_systems(ctx, ["dense_sentence", "hybrid_sentence"])
            plain_store = open_store(Path(tmp) / "kb-plain", embedder, late_chunking=False)
            plain_report = ingest_plain(plain_store, dataset)
            plain_ctx = BenchContext(
                dataset=dataset, store=plain_store, kb_dir=Path(tmp) / "kb-plain"
            )
            plain = run_systems(plain_ctx, ["dense_sentence", "hybrid_sentence"])
            ablation = {
                "late_chunking": {
                    **late,
                    "ingest_passages_per_s": ingest_rate,
                    "embeddings": report.embeddings_computed,
                },
                "separate_sentences": {
                    **plain,
                    "ingest_passages_per_s": len(dataset.passages) / plain_report.seconds,
                    "embeddings": plain_report.embeddings_computed,
                },
            }
    result: dict[str, Any] = {
        "dataset": dataset.name,
        "systems": {
            name: {k: round(v, 4) for k, v in metrics.items()} for name, metrics in systems.items()
        },
        "ingest": {
            "passages_per_s": round(ingest_rate, 2),
            "embed_only_per_s": round(embed_rate, 2),
        },
    }
    print_table(
        f"Retrieval on {dataset.name} ({len(dataset.questions)} questions, paragraph level)",
        ["system", "R@2", "R@5", "R@10", "p50 ms", "p95 ms"],
        [
            [n, m["recall@2"], m["recall@5"], m["recall@10"], m["p50_ms"], m["p95_ms"]]
            for n, m in systems.items()
        ],
    )
    print_table(
        "Ingest throughput (passages/s)",
        ["measure", "wall clock", "CPU time"],
        [
            ["ingest (4 levels stored)", rates.ingest, rates.ingest_cpu],
            ["embedding only", rates.embed_only, rates.embed_only_cpu],
            ["ratio", rates.ingest / rates.embed_only, rates.ingest_cpu / rates.embed_only_cpu],
        ],
    )
    if ablation:
        print_table(
            "Late chunking vs separately embedded sentences (sentence level)",
            ["variant", "dense R@5", "hybrid R@5", "dense R@10", "embeddings", "ingest p/s"],
            [
                [
                    name,
                    v["dense_sentence"]["recall@5"],
                    v["hybrid_sentence"]["recall@5"],
                    v["dense_sentence"]["recall@10"],
                    v["embeddings"],
                    v["ingest_passages_per_s"],
                ]
                for name, v in ablation.items()
            ],
        )
        result["late_chunking_ablation"] = ablation
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
