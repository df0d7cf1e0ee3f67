"""The query series of ``bench/scale.py``: engine ``retrieve`` latency on a large knowledge
base written directly through the store APIs.

What is synthetic (everything is, so 100k passages build in minutes on two cores):

* **Entities**: ``0.6 × passages`` of them (60k at 100k passages), names from a syllable grammar
  ("Velmora Istrakan"), types PERSON / ORGANIZATION / LOCATION / WORK in turn.
* **Passages**: each is one document chunk, one paragraph chunk and two sentence chunks (the
  chunk store's real levels and parent links). A passage mentions 4 entities: 3 from a
  neighbourhood of the entity list (so the graph has local structure and communities) and 1
  drawn from a Zipf law (so there are hubs, as in real corpora); its two sentences name them
  among Zipf-distributed filler words. Mentions are on the paragraph chunk (the extraction
  level); relations join consecutive entities of a passage, with that chunk as evidence.
* **Vectors**: clustered random unit vectors (384-d) for chunks, as in the chunk-search series;
  queries are embedded by :class:`kg_rag.testing.HashEmbeddings` (so both sizes pay the same
  tiny, constant embedding cost; the real model adds ~10 ms per query at any size).
* **Communities**: none are written (the community route is not measured here).

Questions are built from stored names: one- and two-entity questions and bridge questions
("Who founded the organization that X joined?"), so ``full`` depth plans several steps.
All sizes are opened in one process and every question runs on each in turn (the shared
machine's load drifts; interleaving hits all sizes alike); the memory reported per size is what
opening it and answering its first questions added to the process.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384
_SYL = [
    "vel", "mor", "ist", "rak", "an", "dor", "eth", "kal", "lun", "mir", "nor", "ost", "pel",
    "quin", "ras", "sev", "tal", "ur", "vor", "wen", "yl", "zar", "bel", "cor", "dal", "fen",
    "gar", "hal", "iv", "jor", "kes", "lor", "mar", "nev", "or", "pra", "ril", "sol", "tor",
    "ven",
]  # fmt: skip
_TYPES = ["PERSON", "ORGANIZATION", "LOCATION", "WORK"]
_RELS = ["WORKED_WITH", "LOCATED_IN", "FOUNDED", "MEMBER_OF", "CREATED"]


def clustered_write(
    doc_id: str, text: str, chunks: list[Any], rng: np.random.Generator, centers: np.ndarray
) -> Any:
    """A ``DocumentWrite`` of ``chunks`` whose unit vectors lie near random ``centers``."""
    from kg_rag.models import Document
    from kg_rag.stores.chunks import DocumentWrite

    vectors = centers[rng.integers(0, len(centers), size=len(chunks))]
    vectors = vectors + 0.5 * rng.standard_normal((len(chunks), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return DocumentWrite(
        document=Document(doc_id=doc_id, source="", content_hash=doc_id, text=text),
        ingest_hash=doc_id,
        chunks=chunks,
        vectors=vectors,
        vector_keys=[f"t:{c.chunk_id}" for c in chunks],
        index_texts=[c.text for c in chunks],
    )


def entity_name(i: int) -> str:
    """A unique two-word name for entity ``i`` (up to 40^5 of them)."""
    n = len(_SYL)
    digits = [(i // n**k) % n for k in range(5)]
    first = _SYL[digits[0]] + _SYL[digits[1]]
    last = _SYL[digits[2]] + _SYL[digits[3]] + _SYL[(digits[4] + digits[0]) % n]
    return f"{first.capitalize()} {last.capitalize()}"


def _filler(rng: np.random.Generator, n: int) -> str:
    ranks = np.minimum(rng.zipf(1.15, size=n), 20_000)
    return " ".join(f"w{r}" for r in ranks)


def build_kb(passages: int, kb_dir: Path, seed: int = 3) -> dict[str, Any]:
    """Write the synthetic knowledge base (see the module docstring) into ``kb_dir``."""
    from kg_rag.models import Chunk, Entity, Mention, Relation
    from kg_rag.stores.chunks import DocumentWrite, LanceChunkStore
    from kg_rag.stores.embedded import EmbeddedGraphStore
    from kg_rag.testing import HashEmbeddings

    rng = np.random.default_rng(seed)
    n_entities = max(100, int(0.6 * passages))
    centers = rng.standard_normal((256, DIM)).astype(np.float32)
    names = [entity_name(i) for i in range(n_entities)]
    t0 = time.perf_counter()
    store = LanceChunkStore(kb_dir, HashEmbeddings(dimensions=DIM))
    store.open()
    graph = EmbeddedGraphStore(kb_dir)
    graph.open()
    graph.upsert_entities(
        [
            Entity(entity_id=f"e{i:07d}", name=names[i], type=_TYPES[i % len(_TYPES)])
            for i in range(n_entities)
        ]
    )
    relations: dict[tuple[str, str, str], Relation] = {}
    mentions: list[Mention] = []
    paragraph_chunks: list[Chunk] = []
    writes: list[DocumentWrite] = []

    def flush() -> None:
        if writes:
            store.write_documents(writes)
            writes.clear()

    for p in range(passages):
        doc_id = f"d{p:07d}"
        home = int(rng.integers(n_entities))
        picks = [(home + int(o)) % n_entities for o in rng.integers(-40, 40, size=3)]
        picks.append(min(int(rng.zipf(1.4)) - 1, n_entities - 1))
        ids = list(dict.fromkeys(picks))
        ents = [names[i] for i in ids]
        s1 = f"{ents[0]} {_filler(rng, 6)} {ents[min(1, len(ents) - 1)]} {_filler(rng, 5)}."
        s2 = f"{ents[-1]} {_filler(rng, 7)} {ents[len(ents) // 2]} {_filler(rng, 4)}."
        text = f"{s1} {s2}"
        spans = [(0, len(text)), (0, len(text)), (0, len(s1)), (len(s1) + 1, len(text))]
        levels = ["document", "paragraph", "sentence", "sentence"]
        parents = [None, f"{doc_id}-0", f"{doc_id}-1", f"{doc_id}-1"]
        chunks = [
            Chunk(
                chunk_id=f"{doc_id}-{k}",
                doc_id=doc_id,
                level=levels[k],  # type: ignore[arg-type]
                parent_id=parents[k],
                ordinal=max(0, k - 2),
                char_start=spans[k][0],
                char_end=spans[k][1],
                text=text[spans[k][0] : spans[k][1]],
            )
            for k in range(4)
        ]
        writes.append(clustered_write(doc_id, text, chunks, rng, centers))
        paragraph = chunks[1]
        paragraph_chunks.append(paragraph)
        for i in ids:
            mentions.append(
                Mention(entity_id=f"e{i:07d}", chunk_id=paragraph.chunk_id, doc_id=doc_id)
            )
        for a, b in itertools.pairwise(ids):
            key = (f"e{a:07d}", _RELS[(a + b) % len(_RELS)], f"e{b:07d}")
            old = relations.get(key)
            evidence = [*(old.evidence if old else []), paragraph.chunk_id]
            relations[key] = Relation(
                source_id=key[0],
                target_id=key[2],
                type=key[1],
                weight=float(len(evidence)),
                evidence=evidence,
            )
        if len(writes) >= 2000:
            flush()
    flush()
    chunk_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    rels = list(relations.values())
    for start in range(0, len(paragraph_chunks), 50_000):
        graph.upsert_chunks(paragraph_chunks[start : start + 50_000])
    for start in range(0, len(rels), 50_000):
        graph.upsert_relations(rels[start : start + 50_000])
    for start in range(0, len(mentions), 100_000):
        graph.upsert_mentions(mentions[start : start + 100_000])
    graph_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    store.optimize()
    optimize_s = time.perf_counter() - t2
    counts = graph.counts()
    graph.close()
    store.close()
    return {
        "passages": passages,
        "chunks": passages * 4,
        "entities": counts["entities"],
        "relations": counts["relations"],
        "mentions": counts["mentions"],
        "chunk_write_s": chunk_s,
        "graph_write_s": graph_s,
        "optimize_s": optimize_s,
        "names": names,
    }


def questions(names: list[str], n: int, seed: int = 17) -> list[str]:
    """``n`` questions naming stored entities (one-entity, two-entity and bridge forms)."""
    rng = np.random.default_rng(seed)
    forms = [
        "Where was {a} born?",
        "What is the connection between {a} and {b}?",
        "Who founded the organization that {a} joined?",
        "Did {a} and {b} work together?",
        "Which place is {a} located in?",
        "Who created the work that {a} is known for, and where was its author born?",
    ]
    out = []
    for i in range(n):
        a, b = (names[int(j)] for j in rng.integers(0, len(names), size=2))
        out.append(forms[i % len(forms)].format(a=a, b=b))
    return out


def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB."""
    fields = {}
    with open(f"/proc/{os.getpid()}/status", encoding="ascii") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


KB_VERSION = 1
"""Bump when :func:`build_kb` changes what it writes (cached knowledge bases are rebuilt)."""


def cached_kb(passages: int, cache: Path | None, tmp: Path) -> tuple[Path, dict[str, Any]]:
    """The synthetic knowledge base of ``passages``: from ``cache`` when built there before
    (building it there first), else built in ``tmp``. Returns (folder, build facts)."""
    if cache is None:
        tmp.mkdir(parents=True, exist_ok=True)
        kb_dir = tmp / "kb"
        built = build_kb(passages, kb_dir)
        return kb_dir, built
    entry = cache / f"synthetic-{passages}-v{KB_VERSION}"
    facts = entry / "facts.json"
    if not facts.exists():
        building = cache / f".{entry.name}.building"
        import shutil

        shutil.rmtree(building, ignore_errors=True)
        built = build_kb(passages, building / "kb")
        (building / "facts.json").write_text(json.dumps(built))
        shutil.rmtree(entry, ignore_errors=True)
        building.rename(entry)
    built = json.loads(facts.read_text())
    built["cached"] = True
    return entry / "kb", built


def _open_engine(kb_dir: Path) -> Any:
    from kg_rag.config import Settings
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.stores.chunks import LanceChunkStore
    from kg_rag.stores.embedded import EmbeddedGraphStore
    from kg_rag.testing import HashEmbeddings

    settings = Settings(kb_dir=kb_dir)
    settings.llm.base_url = None  # offline, whatever the environment says
    settings.llm.api_key = None
    embedder = HashEmbeddings(dimensions=DIM)
    engine = KnowledgeEngine(
        settings, LanceChunkStore(kb_dir, embedder), EmbeddedGraphStore(kb_dir), embedder
    )
    engine.open_stores()
    return engine


def run_queries(sizes: list[int], n_queries: int, cache: str | None = None) -> dict[str, Any]:
    """Open (building, or reusing from ``cache``) a knowledge base per size and time
    ``engine.retrieve`` at both depths.

    The machine is shared and its load drifts, so every question runs on every size in turn
    (sizes interleaved), as in the chunk-search series. Resident memory per size is what
    opening it and its first queries added to the process.
    """
    from bench._common import percentile

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="kg-rag-scale-query-") as tmp:
        engines: dict[int, Any] = {}
        qs: dict[int, list[str]] = {}
        for n in sizes:
            kb_dir, built = cached_kb(n, Path(cache) if cache else None, Path(tmp) / str(n))
            names = built.pop("names")
            before = _rss_mb()[0]
            t0 = time.perf_counter()
            engine = _open_engine(kb_dir)
            open_s = time.perf_counter() - t0
            qs[n] = questions(names, n_queries + 3)
            t0 = time.perf_counter()
            engine.retrieve(qs[n][0], depth="fast")
            first_s = time.perf_counter() - t0
            for q in qs[n][1:3]:
                engine.retrieve(q, depth="full")
            engines[n] = engine
            out[str(n)] = dict(
                built, open_s=open_s, first_query_s=first_s, rss_mb=_rss_mb()[0] - before
            )
            print(f"  {n:,} passages open: {open_s:.1f} s", file=sys.stderr, flush=True)
        times: dict[tuple[int, str], list[float]] = {}
        for i in range(3, n_queries + 3):
            for depth in ("fast", "full"):
                for n, engine in engines.items():
                    t0 = time.perf_counter()
                    engine.retrieve(qs[n][i], depth=depth)
                    times.setdefault((n, depth), []).append((time.perf_counter() - t0) * 1000)
        for (n, depth), values in times.items():
            out[str(n)][f"{depth}_p50_ms"] = percentile(values, 50)
            out[str(n)][f"{depth}_p95_ms"] = percentile(values, 95)
        for engine in engines.values():
            engine.close()
        out["rss_peak_mb"] = _rss_mb()[1]
        out["queries"] = n_queries
        return out


def query_series(
    sizes: list[int], n_queries: int, cache: Path | None = None
) -> dict[int, dict[str, Any]]:
    """Run :func:`run_queries` in a fresh process; returns size → numbers."""
    root = Path(__file__).resolve().parent.parent
    print(f"query series: {sizes} passages", file=sys.stderr, flush=True)
    code = (
        "import json; from bench._scale_query import run_queries; "
        f"print(json.dumps(run_queries({sizes!r}, {n_queries}, "
        f"{str(cache) if cache else None!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, stdout=subprocess.PIPE, text=True, check=True
    )
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    return {n: {**raw[str(n)], "queries": raw["queries"]} for n in sizes}
