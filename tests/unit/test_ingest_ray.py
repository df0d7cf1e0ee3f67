"""Ingest on a local Ray cluster builds the knowledge base the in-process ingest builds.

200 generated documents go through the Ray executor (loading, cleaning, chunking, embedding
and offline extraction as tasks, this process the one writer) and must give the same
fingerprint (ids and content hashes of documents, chunks, entities, relations, mentions,
communities and the community index) as the local executor; so must a run in which one
worker is SIGKILLed in the middle of each stage (Ray re-runs its task), an incremental
re-ingest, and ``kg-rag ingest --executor ray``. The local MiniLM is loaded once per worker,
not once per task, and gives the same vectors there.

One Ray cluster (2 CPUs) serves the whole session (``ray_cluster`` in tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ledger_corpus import open_engine, write_corpus

from kg_rag.config import EmbeddingSettings, ExecutorSettings, LLMSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest import pipeline
from kg_rag.ingest.executor import RayExecutor
from kg_rag.testing import knowledge_base_fingerprint

DOCS = 200
REPO = Path(__file__).resolve().parents[2]


def ray_executor(**overrides: Any) -> RayExecutor:
    """Small batches, so 200 documents make many tasks of every stage."""
    fields: dict[str, Any] = {"documents_per_task": 9, "chunks_per_task": 60, **overrides}
    return RayExecutor(ExecutorSettings(kind="ray", **fields))


def ingest(kb: Path, corpus: Path, executor: Any = None) -> tuple[dict[str, Any], Any]:
    with open_engine(kb) as kg:
        report = kg.ingest([corpus], remove_missing=True, executor=executor)
        return knowledge_base_fingerprint(kg), report


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("ray-corpus") / "docs", range(DOCS))


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> tuple[dict[str, Any], Any]:
    """The in-process ingest everything here is compared with."""
    return ingest(tmp_path_factory.mktemp("ray-local") / "kb", corpus)


def test_200_documents_on_ray_give_the_local_fingerprint(
    ray_cluster: Path, tmp_path: Path, corpus: Path, local: tuple[dict[str, Any], Any]
) -> None:
    want, want_report = local
    got, report = ingest(tmp_path / "kb", corpus, ray_executor())
    assert len(want["documents"]) == DOCS
    assert len(want["entities"]) > 20 and len(want["communities"]) > 1
    for kind in want:
        assert got[kind] == want[kind], kind
    assert report.documents_added == want_report.documents_added == DOCS
    assert report.chunks_per_level == want_report.chunks_per_level
    assert report.embeddings_computed == want_report.embeddings_computed
    assert report.graph.chunks_extracted == want_report.graph.chunks_extracted
    assert report.graph.entities == want_report.graph.entities


@pytest.mark.parametrize(
    "armed",
    [
        "load_stage:4",  # the fifth load/clean/chunk task
        "embed_stage:0",  # the first embedding task
        "offline_extract_stage:2",  # an extraction task once two have run
    ],
)
def test_a_worker_killed_mid_run_is_rerun_and_the_fingerprint_still_matches(
    ray_cluster: Path,
    tmp_path: Path,
    corpus: Path,
    local: tuple[dict[str, Any], Any],
    armed: str,
) -> None:
    ray_cluster.write_text(armed, encoding="utf-8")
    try:
        got, report = ingest(tmp_path / "kb", corpus, ray_executor(max_retries=2))
        fired = list(ray_cluster.parent.glob(ray_cluster.name + ".fired-*"))
        assert fired, f"no worker was killed for {armed}"
    finally:
        ray_cluster.unlink(missing_ok=True)
        for mark in ray_cluster.parent.glob(ray_cluster.name + ".*"):
            mark.unlink()
    assert got == local[0]
    assert report.documents_added == DOCS and not report.skipped


def test_incremental_reingest_on_ray_matches_local(
    ray_cluster: Path, tmp_path: Path, local: tuple[dict[str, Any], Any], corpus: Path
) -> None:
    # Both knowledge bases read one folder (a document's source path is in its hash): the
    # 200 documents, then 15 changed, 5 removed and 10 new.
    docs = tmp_path / "docs"
    shutil.copytree(corpus, docs)
    runs = {"local": None, "ray": ray_executor()}
    for name, executor in runs.items():
        ingest(tmp_path / name, docs, executor)
    write_corpus(docs, range(15), version=1)
    for seed in range(190, 195):
        (docs / f"doc-{seed:03d}.md").unlink()
    write_corpus(docs, range(DOCS, DOCS + 10))
    fingerprints = {}
    for name, executor in runs.items():
        fingerprints[name], report = ingest(tmp_path / name, docs, executor)
        assert report.documents_updated == 15 and report.documents_added == 10
        assert report.documents_deleted == 5 and report.documents_unchanged == DOCS - 20
    assert fingerprints["ray"] == fingerprints["local"]
    assert len(fingerprints["ray"]["documents"]) == DOCS + 5


def test_the_local_minilm_is_loaded_once_per_worker_and_gives_the_local_vectors(
    ray_cluster: Path, tmp_path: Path
) -> None:
    import ray

    from kg_rag.ingest.workers import worker_embedder_loads

    corpus = write_corpus(tmp_path / "docs", range(12))
    settings = Settings(
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(),  # the default local all-MiniLM-L6-v2
    )
    settings.extraction.mode = "offline"
    vectors = {}
    for name, executor in (("local", None), ("ray", ray_executor(documents_per_task=1))):
        with KnowledgeEngine.open(tmp_path / name, settings=settings, progress=False) as kg:
            # One document per embedding task: twelve tasks over two workers.

            defaults = pipeline.ChunkIngestor.__init__.__kwdefaults__
            assert defaults is not None
            old = defaults["batch_paragraphs"]
            defaults["batch_paragraphs"] = 1
            try:
                kg.ingest([corpus], executor=executor)
            finally:
                defaults["batch_paragraphs"] = old
            docs = [d.doc_id for d in kg.chunk_store.list_documents()]
            vectors[name] = kg.chunk_store.known_vectors(docs)  # vector key -> vector

    @ray.remote
    def loads() -> tuple[int, dict[str, int]]:
        return os.getpid(), worker_embedder_loads()

    seen = dict(ray.get([loads.remote() for _ in range(40)]))
    assert any(seen.values()), "no worker loaded the model"
    for pid, counts in seen.items():
        assert all(n == 1 for n in counts.values()), (pid, counts)
    assert vectors["ray"].keys() == vectors["local"].keys()
    assert len(vectors["local"]) > 12
    for key, vec in vectors["local"].items():
        np.testing.assert_allclose(vectors["ray"][key], vec, atol=2e-5)


def test_the_command_line_ingests_on_a_running_cluster(
    ray_cluster: Path, tmp_path: Path, corpus: Path, local: tuple[dict[str, Any], Any]
) -> None:
    import ray

    address = ray.get_runtime_context().gcs_address
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_RAG_")}
    env.update(
        PYTHONPATH=str(REPO),
        KG_RAG_GRAPH_BACKEND="embedded",
        KG_RAG_EMBEDDING__PROVIDER="hash",
        KG_RAG_EMBEDDING__DIMENSIONS="64",
        KG_RAG_EXTRACTION__MODE="offline",
        KG_RAG_EXECUTOR__DOCUMENTS_PER_TASK="25",
    )
    kb = tmp_path / "kb"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "kg_rag.cli", "ingest", str(corpus), "--kb", str(kb)),
            *("--remove-missing", "--executor", "ray", "--ray-address", address),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{DOCS} added" in done.stdout
    with open_engine(kb) as kg:
        assert knowledge_base_fingerprint(kg) == local[0]
