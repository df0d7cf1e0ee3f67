"""The ingest series of ``bench/scale.py``: a growing knowledge base, per-stage seconds per
passage, peak memory.

Text: the shared bench passages (``/work/shared/bench/*/corpus.jsonl``, musique-dev and
2wiki-dev, 8,009 passages), read at run time and never copied. Past the first pass over them,
passage ``i`` is passage ``i mod 8009`` with every capitalised word changed by a suffix drawn
from a hash of (word, pass), plus one sentence from another passage changed the same way: the
prose, sentence shapes and entity density stay real, and every pass brings new entity names
(as a growing collection does), so the graph keeps growing instead of re-finding the same
entities.

Extraction is the real offline extractor; vectors come from :class:`kg_rag.testing.HashEmbeddings`
(384-d, synthetic), so the bench measures the pipeline, not the embedder (all-MiniLM-L6-v2
embeds ~130 sentences/s on this machine: 0.02-0.05 s per passage, flat in corpus size).

Each size runs in a fresh process (so its peak resident memory is its own), ingesting the
passages in batches of ``--batch`` documents, one ``KnowledgeEngine.ingest`` per batch: the
cost of a late batch against an early one is what "grows with what is already stored" means.
"""

from __future__ import annotations

import hashlib
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SHARED = Path("/work/shared/bench")
_CAPITAL = re.compile(r"\b([A-Z][a-z]{2,})\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SYLLABLES = ["ar", "en", "is", "or", "un", "ael", "ith", "ova", "ek", "amb", "ul", "ien"]


def load_passages(root: Path = SHARED) -> list[tuple[str, str]]:
    """(title, text) of every passage of the shared bench corpora, in file order."""
    out: list[tuple[str, str]] = []
    for path in sorted(root.glob("*/corpus.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                out.append((row.get("title", ""), row["text"]))
    if not out:
        raise SystemExit(f"no corpus.jsonl under {root}: pass --corpus DIR")
    return out


def _variant(word: str, generation: int) -> str:
    digest = hashlib.blake2b(f"{word}|{generation}".encode(), digest_size=4).digest()
    return word + _SYLLABLES[digest[0] % len(_SYLLABLES)] + _SYLLABLES[digest[1] % len(_SYLLABLES)]


def _rename(text: str, generation: int) -> str:
    if generation == 0:
        return text
    return _CAPITAL.sub(lambda m: _variant(m.group(1), generation), text)


def generated_passages(n: int, passages: list[tuple[str, str]]) -> Iterator[tuple[str, str, str]]:
    """(doc_id, title, text) of ``n`` passages (see the module docstring); deterministic."""
    size = len(passages)
    for i in range(n):
        generation, base = divmod(i, size)
        title, text = passages[base]
        if generation:
            other = passages[(base * 7919 + generation) % size][1]
            sentences = [s for s in _SENTENCE.split(other) if len(s) > 20]
            if sentences:
                text = f"{text} {sentences[generation % len(sentences)]}"
        yield f"p{i:06d}", _rename(title, generation), _rename(text, generation)


def _rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_ingest(n: int, batch: int, corpus: Path, log: Path | None = None) -> dict[str, Any]:
    """Ingest ``n`` generated passages in batches into a fresh embedded knowledge base.

    Each batch records its wall seconds per stage and the CPU seconds of the whole process
    (``cpu_s``): on a shared machine wall time follows the other tenants' load, and
    :func:`per_passage` can scale each stage by its batch's CPU / wall ratio. With ``log``,
    each batch is also appended there as one JSON line when it finishes."""
    from kg_rag.config import Settings
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.ingest.loaders import SourceDocument
    from kg_rag.testing import HashEmbeddings

    passages = load_passages(corpus)
    batches: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kg-rag-scale-ingest-") as tmp:
        settings = Settings(kb_dir=Path(tmp) / "kb")
        settings.llm.base_url = None  # offline: no chat model, whatever the environment says
        settings.llm.api_key = None
        settings.extraction.mode = "offline"
        engine = KnowledgeEngine.open(
            settings=settings, embedder=HashEmbeddings(dimensions=384), progress=False
        )
        docs = [
            SourceDocument(doc_id=d, title=t, text=x) for d, t, x in generated_passages(n, passages)
        ]
        with engine:
            for start in range(0, n, batch):
                part = docs[start : start + batch]
                t0, c0 = time.perf_counter(), _cpu_s()
                report = engine.ingest(part)
                wall, cpu = time.perf_counter() - t0, _cpu_s() - c0
                stages = {f"chunk.{k}": v for k, v in report.stage_seconds.items()}
                if report.graph is not None:
                    stages.update({f"graph.{k}": v for k, v in report.graph.stage_seconds.items()})
                if report.communities is not None:
                    stages.update(
                        {f"communities.{k}": v for k, v in report.communities.stage_seconds.items()}
                    )
                counts = engine.graph_store.counts()
                comm = report.communities
                batches.append(
                    {
                        "communities_incremental": bool(comm and comm.incremental),
                        "communities_region_nodes": comm.region_nodes if comm else 0,
                        "communities_summarized": comm.summarized if comm else 0,
                        "stored_before": start,
                        "passages": len(part),
                        "wall_s": wall,
                        "cpu_s": cpu,
                        "stages_s": stages,
                        "entities": counts["entities"],
                        "relations": counts["relations"],
                        "communities": counts["communities"],
                        "rss_peak_mb": _rss_peak_mb(),
                    }
                )
                if log is not None:
                    with log.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps({"n": n, **batches[-1]}) + "\n")
                print(
                    f"  {start + len(part):,} passages: batch {wall:.1f} s ({cpu:.1f} s CPU), "
                    f"{counts['entities']:,} entities, {counts['communities']:,} communities"
                    + (
                        f" (incremental: {comm.region_nodes:,} entities re-clustered, "
                        f"{comm.summarized:,} summarized)"
                        if comm and comm.incremental
                        else " (whole graph)"
                    ),
                    file=sys.stderr,
                    flush=True,
                )
    return {"passages": n, "batch": batch, "batches": batches, "rss_peak_mb": _rss_peak_mb()}


def ingest_series(sizes: list[int], batch: int, corpus: Path) -> dict[int, dict[str, Any]]:
    """Run :func:`run_ingest` for each size in its own process."""
    results: dict[int, dict[str, Any]] = {}
    root = Path(__file__).resolve().parent.parent
    for n in sizes:
        print(f"ingest series: {n:,} passages in batches of {batch:,}", file=sys.stderr, flush=True)
        code = (
            "import json, sys; from pathlib import Path; "
            "from bench._scale_ingest import run_ingest; "
            f"print(json.dumps(run_ingest({n}, {batch}, Path({str(corpus)!r}))))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, stdout=subprocess.PIPE, text=True, check=True
        )
        results[n] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


STAGES = [
    ("chunk", ["chunk.chunk"]),
    ("embed", ["chunk.embed"]),
    ("write", ["chunk.write", "chunk.optimize"]),
    ("extract", ["graph.extract"]),
    ("resolve", ["graph.resolve"]),
    ("graph write", ["graph.delete", "graph.prepare", "graph.write", "graph.embed"]),
    (
        "communities",
        ["communities.load", "communities.leiden", "communities.measure", "communities.summarize"],
    ),
    ("community write", ["communities.write", "communities.index"]),
]


def per_passage(batches: list[dict[str, Any]], cpu: bool = False) -> dict[str, float]:
    """Milliseconds per passage per stage over ``batches`` (plus ``total``); with ``cpu``,
    each batch's wall times scaled by its CPU / wall ratio (CPU-equivalent milliseconds)."""
    passages = sum(b["passages"] for b in batches) or 1

    def scale(b: dict[str, Any]) -> float:
        return b["cpu_s"] / b["wall_s"] if cpu and b.get("cpu_s") and b["wall_s"] else 1.0

    out = {
        name: 1000
        * sum(b["stages_s"].get(k, 0.0) * scale(b) for b in batches for k in keys)
        / passages
        for name, keys in STAGES
    }
    out["total"] = 1000 * sum(b["wall_s"] * scale(b) for b in batches) / passages
    return out
