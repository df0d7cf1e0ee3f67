"""Helpers of the crash and fault-injection tests: a generated corpus, a knowledge-base
fingerprint, and an ingest run in a child process (which may be killed).

The corpus is made of short documents about invented people, organizations and places whose
names recur across documents, so the graph is connected enough to have communities at more
than one level. Everything is seeded: the same call writes the same files.
"""

from __future__ import annotations

import os
import random
import signal
import time
import warnings
from pathlib import Path
from typing import Any

from kg_rag.config import EmbeddingSettings, ExtractionSettings, LLMSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.stages import ledger_for
from kg_rag.testing import HashEmbeddings

DIMS = 64

# The forkserver that starts the ingest children imports this module (and lancedb) and then
# only forks: it never opens a database, so no lancedb state is mid-operation at fork time,
# which is the case lancedb's warning is about.
warnings.filterwarnings("ignore", message="lancedb fork support is experimental")

_FIRST = ["Alma", "Boris", "Celia", "Darius", "Edda", "Folke", "Greta", "Hollis", "Ines", "Jorund"]
_LAST = ["Varga", "Holm", "Quint", "Osei", "Marlow", "Berg", "Strand", "Kovac", "Lind", "Rask"]
_ORG = [
    "Tessel Works",
    "Brinmoor Labs",
    "Quarry Bank",
    "Ostwind Press",
    "Velden Group",
    "Norrow Mills",
]
_PLACE = ["Kelmouth", "Ardvik", "Sollen", "Marrow", "Tiberg", "Eskow", "Lunden", "Frayne"]
_VERBS = ["founded", "joined", "left", "advised", "funded", "moved to", "wrote about", "met"]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _sentence(rng: random.Random) -> str:
    a = _person(rng)
    b = rng.choice([*_ORG, *_PLACE, _person(rng)])
    c = rng.choice(_PLACE)
    return f"{a} {rng.choice(_VERBS)} {b} in {c} in {rng.randint(1950, 2020)}."


def document(seed: int, paragraphs: int = 2) -> str:
    """One Markdown document: a heading and short paragraphs of 3–4 sentences."""
    rng = random.Random(seed)
    title = rng.choice([*_ORG, *_PLACE])
    body = [" ".join(_sentence(rng) for _ in range(rng.randint(3, 4))) for _ in range(paragraphs)]
    return f"# {title} notes {seed}\n\n" + "\n\n".join(body) + "\n"


def write_corpus(folder: Path, seeds: range | list[int], version: int = 0) -> Path:
    """Write ``doc-<seed>.md`` for every seed (``version`` changes the text)."""
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        (folder / f"doc-{seed:03d}.md").write_text(document(seed * 1000 + version), "utf-8")
    return folder


def settings(kb: Path, *, mode: str = "offline", response_cache: str = "shared") -> Settings:
    """Embedded store, hash embedder, given extraction mode and response-cache placement
    (``"kb"`` where a test counts calls of two knowledge bases); environment ignored."""
    s = Settings(
        graph_backend="embedded",
        llm=LLMSettings(response_cache=response_cache),  # type: ignore[arg-type]
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
        extraction=ExtractionSettings(mode=mode),  # type: ignore[arg-type]
    )
    s.kb_dir = kb
    return s


def open_engine(
    kb: Path, llm: Any = None, *, mode: str = "offline", response_cache: str = "shared"
) -> KnowledgeEngine:
    """An engine on ``kb`` (embedded graph, hash embedder)."""
    return KnowledgeEngine.open(
        kb,
        settings=settings(kb, mode=mode, response_cache=response_cache),
        embedder=HashEmbeddings(DIMS),
        llm=llm,
        progress=False,
    )


def fingerprint(kb: Path) -> dict[str, Any]:
    """Everything a converged ingest must agree on, as sorted plain values."""
    with open_engine(kb) as kg:
        docs = kg.chunk_store.list_documents()
        hashes = kg.chunk_store.document_hashes()
        ids = [d.doc_id for d in docs]
        chunks = kg.chunk_store.chunks_for_documents(ids)
        graph = kg.graph_store
        ledger = ledger_for(kg.chunk_store)
        return {
            "documents": sorted((d.doc_id, d.content_hash, hashes.get(d.doc_id, "")) for d in docs),
            "chunks": sorted(c.chunk_id for c in chunks),
            "entities": sorted(
                (e.entity_id, e.description, tuple(e.aliases)) for e in graph.all_entities()
            ),
            "relations": sorted(
                (r.relation_id, tuple(r.evidence), round(r.weight, 6))
                for r in graph.all_relations()
            ),
            "mentions": len(graph.all_mentions()),
            "communities": sorted(
                (c.community_id, c.level, c.parent_id or "", tuple(c.members), c.summary)
                for c in graph.communities()
            ),
            "index": sorted((c.community_id, c.summary) for c in kg.community_index.all()),
            "ledger": sorted((d, r.stage) for d, r in ledger.rows().items()),
            "failures": [str(f) for f in ledger.failures()],
        }


def _child(kb: str, corpus: str, crash_after: str | None, ready: Any) -> None:
    """The ingest a child process runs (``crash_after`` arms the test hook)."""
    import kg_rag.ingest.pipeline as pipeline

    for name in [n for n in os.environ if n.startswith("KG_RAG_")]:
        del os.environ[name]
    if crash_after:
        os.environ["KG_RAG_TEST_CRASH_AFTER"] = crash_after
    # Several chunk commits per ingest, so there are chunk-stage boundaries to kill at.
    defaults = pipeline.ChunkIngestor.__init__.__kwdefaults__
    assert defaults is not None
    defaults["batch_paragraphs"] = 12
    with open_engine(Path(kb)) as kg:
        ready.set()
        kg.ingest([Path(corpus)], remove_missing=True)


_PRELOAD = [
    "ledger_corpus",
    "lancedb",
    "kg_rag.engine",
    "kg_rag.graph_build",
    "kg_rag.ingest.stages",
    "extraction.offline",
    "extraction.resolve",
    "communities",
    "graspologic_native",
    "tqdm.auto",
]


def _context() -> Any:
    """A forkserver context whose server has imported kg_rag and lancedb (but opened no
    database), so each child starts in milliseconds instead of seconds of imports."""
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def run_child(
    kb: Path, corpus: Path, *, crash_after: str | None = None, kill_after_s: float | None = None
) -> tuple[int, float]:
    """Run one ingest in a child process.

    Args:
        crash_after: ``KG_RAG_TEST_CRASH_AFTER`` for the child (it kills itself there).
        kill_after_s: Kill the child this long after it opened the knowledge base.

    Returns:
        The exit status (``-9`` when killed) and the seconds from the opened knowledge base
        to the end.
    """
    ctx = _context()
    ready = ctx.Event()
    proc = ctx.Process(target=_child, args=(str(kb), str(corpus), crash_after, ready))
    proc.start()
    assert ready.wait(timeout=120) or proc.exitcode is not None, "the child never started"
    started = time.perf_counter()
    if kill_after_s is not None:
        proc.join(timeout=kill_after_s)
        if proc.is_alive():
            os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=300)
    code = proc.exitcode
    if code not in (0, -signal.SIGKILL):
        raise AssertionError(f"ingest child failed with exit code {code}")
    return int(code or 0), time.perf_counter() - started
