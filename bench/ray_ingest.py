"""Ingest wall time, in-process against a local Ray cluster, on the same passages.

    python bench/ray_ingest.py [--data ../shared/bench/musique-dev] [--docs 200]
        [--cpus 2] [--embedder minilm|hash] [--ray-address ADDR] [--json OUT]

Each passage is one document (title + text), offline extraction, embedded graph, the
default local MiniLM unless ``--embedder hash``. The local executor ingests into one fresh
knowledge base; the Ray executor into two more (the first run pays for starting workers and
loading the model in each, the second finds them warm). Cluster start-up is timed apart.
Every run must give the same knowledge-base fingerprint; the table says whether it did.
Run it niced on a shared machine; Ray only pays off with more CPUs (or machines) than the
one writer needs.

Measured 2026-12-01 on this 2-core machine while four other sessions kept it at a load of
~13 (nice 10; the cluster was a ``ray start --head --num-cpus=2`` started beforehand,
``--ray-address``), 200 musique-dev passages, 1,338 chunks, MiniLM, offline extraction:
local 203.7 s, Ray cold 84.0 s, Ray warm 79.0 s, all three fingerprints equal. The 2.4x is
not parallel speed-up on 2 cores: the Linux scheduler (autogroup) gives the cluster's
processes, started in their own session, their own share of the busy CPUs beside the
bench's, so Ray got more CPU than the in-process run. On an idle 2-core box expect Ray to
be no faster (task and serialization overhead, one writer).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import load_dataset, print_table

from kg_rag.config import EmbeddingSettings, ExecutorSettings, LLMSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.executor import RayExecutor
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.testing import HashEmbeddings, knowledge_base_fingerprint

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "musique-dev"


def _settings(kb: Path, embedder: str) -> Settings:
    embedding = (
        EmbeddingSettings(provider="hash", dimensions=256)
        if embedder == "hash"
        else EmbeddingSettings()
    )
    settings = Settings(graph_backend="embedded", llm=LLMSettings(), embedding=embedding)
    settings.kb_dir = kb
    settings.extraction.mode = "offline"
    return settings


def _run(
    kb: Path, docs: list[SourceDocument], embedder: str, executor: Any
) -> tuple[float, dict[str, Any], Any]:
    settings = _settings(kb, embedder)
    emb = HashEmbeddings(256) if embedder == "hash" else None
    with KnowledgeEngine.open(kb, settings=settings, embedder=emb, progress=False) as kg:
        t0 = time.perf_counter()
        report = kg.ingest(docs, executor=executor)
        seconds = time.perf_counter() - t0
        return seconds, knowledge_base_fingerprint(kg), report


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    passages = sorted(load_dataset(args.data).passages, key=lambda p: p.id)[: args.docs]
    docs = [SourceDocument(doc_id=p.id, title=p.title, text=p.text, format="txt") for p in passages]
    rows: list[list[Any]] = []
    out: dict[str, Any] = {"docs": len(docs), "cpus": args.cpus, "embedder": args.embedder}
    with tempfile.TemporaryDirectory(prefix="kg-rag-ray-bench-") as tmp:
        root = Path(tmp)
        local_s, want, report = _run(root / "local", docs, args.embedder, None)
        chunks = sum(report.chunks_per_level.values())
        rows.append(["local (in-process)", local_s, local_s / len(docs) * 1000, "-", "reference"])
        out["local_s"] = local_s

        import ray

        t0 = time.perf_counter()
        if args.ray_address:
            ray.init(address=args.ray_address, log_to_driver=False)
        else:
            from kg_rag.ingest.executor import start_local_ray

            start_local_ray(num_cpus=args.cpus)
        start_s = time.perf_counter() - t0
        out["ray_start_s"] = start_s
        executor = RayExecutor(ExecutorSettings(kind="ray"))
        try:
            for label, name in (("ray, cold workers", "ray_cold"), ("ray, warm", "ray_warm")):
                seconds, got, _ = _run(root / name, docs, args.embedder, executor)
                same = "same" if got == want else "DIFFERENT"
                rows.append([label, seconds, seconds / len(docs) * 1000, local_s / seconds, same])
                out[f"{name}_s"] = seconds
                out[f"{name}_fingerprint"] = same
        finally:
            ray.shutdown()
    print_table(
        f"Ingest of {len(docs)} passages ({chunks} chunks), {args.embedder} embedder, "
        f"offline extraction, {args.cpus} CPUs for Ray (cluster start {start_s:.1f} s, "
        "not in the rows)",
        ["executor", "seconds", "ms/doc", "speed-up", "fingerprint"],
        rows,
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
