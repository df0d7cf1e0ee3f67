"""Fresh reads: an engine opened before another engine, thread or process ingests sees the
new data without reopening (chunk tables, embedded graph, linker, community index)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.stores.freshness import TableWatcher

pytestmark = pytest.mark.unit

DIMS = 256  # the hash embedder's size in conftest.py: the subprocess must open the same KB

NEW_DOC = SourceDocument(
    doc_id="glimmerfen.md",
    title="Glimmerfen Observatory",
    format="md",
    text=(
        "# Glimmerfen Observatory\n\n"
        "The Glimmerfen Observatory was founded by Zorvath Quenmere in 1931. "
        "Zorvath Quenmere later directed the Glimmerfen Observatory until 1950."
    ),
)
QUESTION = "Who founded the Glimmerfen Observatory?"


def _doc_ids(kg: KnowledgeEngine, question: str) -> set[str]:
    return {e.doc_id for e in kg.retrieve(question, depth="fast")}


def test_engine_opened_before_an_ingest_sees_it(
    kb_copy: Path, engine_with: Callable[..., KnowledgeEngine]
) -> None:
    reader = engine_with(kb_copy)
    # Warm every cache: chunk tables, the embedded graph and its PPR matrix, the linker.
    assert NEW_DOC.doc_id not in _doc_ids(reader, QUESTION)
    reader.ask(QUESTION)
    documents_before = reader.stats()["documents"]
    writer = engine_with(kb_copy)
    writer.ingest([NEW_DOC])
    assert NEW_DOC.doc_id in _doc_ids(reader, QUESTION)
    answer = reader.ask(QUESTION)
    assert NEW_DOC.doc_id in {c.doc_id for c in answer.citations}, answer.render_text()
    assert "Zorvath Quenmere" in answer.text
    assert reader.stats()["documents"] == documents_before + 1
    assert reader.graph_store.find_entities("Zorvath Quenmere")
    # ... and a delete by the other engine is seen too.
    assert writer.delete(NEW_DOC.doc_id)
    assert NEW_DOC.doc_id not in _doc_ids(reader, QUESTION)
    assert not reader.graph_store.find_entities("Zorvath Quenmere")
    assert reader.stats()["documents"] == documents_before


@pytest.mark.parametrize("interval", [-1.0, 3600.0])
def test_refresh_interval_keeps_the_snapshot_between_looks(
    kb_copy: Path, engine_with: Callable[..., KnowledgeEngine], interval: float
) -> None:
    reader = engine_with(kb_copy)
    reader.settings.retrieval.refresh_interval_s = interval  # never / at most hourly
    reader.retrieve(QUESTION, depth="fast")
    engine_with(kb_copy).ingest([NEW_DOC])
    assert NEW_DOC.doc_id not in _doc_ids(reader, QUESTION)  # the old behaviour, on request
    assert reader.refresh(force=True)
    assert NEW_DOC.doc_id in _doc_ids(reader, QUESTION)


def test_nothing_changed_means_no_reload(
    kb_copy: Path, engine_with: Callable[..., KnowledgeEngine]
) -> None:
    kg = engine_with(kb_copy)
    kg.retrieve(QUESTION, depth="fast")
    pipeline = kg.pipeline
    assert not kg.refresh()
    kg.retrieve(QUESTION, depth="fast")
    assert kg.pipeline is pipeline  # caches kept
    # The engine's own ingest does not make its embedded graph reload from disk.
    kg.ingest([NEW_DOC])
    graph_memory = kg.graph_store._entities  # type: ignore[attr-defined]
    assert not kg.refresh(force=True)
    assert kg.graph_store._entities is graph_memory  # type: ignore[attr-defined]
    assert NEW_DOC.doc_id in _doc_ids(kg, QUESTION)


def test_reader_thread_sees_a_writer_thread(
    kb_copy: Path, engine_with: Callable[..., KnowledgeEngine]
) -> None:
    reader = engine_with(kb_copy)
    errors: list[BaseException] = []
    done = threading.Event()
    seen: list[bool] = []

    def read() -> None:
        try:
            while not done.is_set():
                seen.append(NEW_DOC.doc_id in _doc_ids(reader, QUESTION))
        except BaseException as exc:  # reported below
            errors.append(exc)

    writer = engine_with(kb_copy)

    def write() -> None:
        try:
            writer.ingest([NEW_DOC])
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    writer_thread = threading.Thread(target=write)
    writer_thread.start()
    writer_thread.join(120)
    done.set()
    thread.join(60)
    assert not errors, errors
    assert seen and not seen[0]
    assert NEW_DOC.doc_id in _doc_ids(reader, QUESTION)


def test_engine_sees_an_ingest_by_another_process(
    kb_copy: Path, engine_with: Callable[..., KnowledgeEngine], tmp_path: Path
) -> None:
    reader = engine_with(kb_copy)
    assert NEW_DOC.doc_id not in _doc_ids(reader, QUESTION)
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from kg_rag.config import EmbeddingSettings, LLMSettings, Settings
        from kg_rag.engine import KnowledgeEngine
        from kg_rag.ingest.loaders import SourceDocument
        from kg_rag.testing import HashEmbeddings

        kb = Path({str(kb_copy)!r})
        settings = Settings(
            kb_dir=kb, graph_backend="embedded", llm=LLMSettings(),
            embedding=EmbeddingSettings(provider="hash", dimensions={DIMS}),
        )
        doc = SourceDocument.model_validate_json({NEW_DOC.model_dump_json()!r})
        with KnowledgeEngine.open(
            kb, settings=settings, embedder=HashEmbeddings({DIMS}), progress=False
        ) as kg:
            kg.ingest([doc])
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_RAG_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=300)
    answer = reader.ask(QUESTION)
    assert NEW_DOC.doc_id in {c.doc_id for c in answer.citations}, answer.render_text()


def test_watcher_sees_commits_creates_and_drops(tmp_path: Path) -> None:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(tmp_path))
    table = db.create_table("t", pa.table({"x": [1]}))
    watcher = TableWatcher(tmp_path)
    assert not watcher.changed()  # baseline
    assert not watcher.changed()
    table.add(pa.table({"x": [2]}))
    assert watcher.changed()
    assert not watcher.changed()
    db.create_table("u", pa.table({"x": [1]}))
    assert watcher.changed()
    db.drop_table("u")
    assert watcher.changed()
    db.drop_table("t")
    db.create_table("t", pa.table({"x": [1]}))  # same name, same version number
    assert watcher.changed()
    assert TableWatcher(tmp_path / "missing").signature() == ()
