"""ChunkIngestor: incremental ingest, bad files, deletions, crash repair, report."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from kg_rag.config import ChunkingSettings
from kg_rag.ingest import pipeline as pipeline_module
from kg_rag.ingest.pipeline import ChunkIngestor, IngestReport, SourceDocument
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "tower.md").write_text(
        "# Eiffel Tower\n\nThe tower stands in Paris. It opened in 1889.\n\n"
        "## Builders\n\nGustave Eiffel's company built it.\n",
        encoding="utf-8",
    )
    (root / "beijing.txt").write_text("Beijing is the capital of China.", encoding="utf-8")
    (root / "sub" / "river.txt").write_text(
        "The Seine flows through Paris.\n\nIt reaches the sea at Le Havre.", encoding="utf-8"
    )
    return root


def open_store(path: Path, embedder: HashEmbeddings) -> LanceChunkStore:
    store = LanceChunkStore(path, embedder)
    store.open()
    return store


def chunk_rows(store: LanceChunkStore, doc_id: str) -> dict[str, tuple[str, int, int]]:
    return {
        c.chunk_id: (c.text, c.char_start, c.char_end) for c in store.chunks_for_documents([doc_id])
    }


def test_folder_ingest_reports_and_stores_all_levels(tmp_path: Path, corpus: Path) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    report = ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    assert report.files_seen == 3
    assert report.documents_added == 3
    assert sorted(report.changed_doc_ids) == ["beijing.txt", "sub/river.txt", "tower.md"]
    assert report.chunks_per_level == store.chunk_counts()
    assert report.chunks_per_level["section"] == 4  # tower.md has two, the others one each
    assert "3 added" in str(report) and "<table>" in report._repr_html_()
    doc = store.get_document("tower.md")
    assert doc is not None and doc.title == "Eiffel Tower" and doc.version == 1
    for c in store.chunks_for_documents(["tower.md"]):
        assert doc.text[c.char_start : c.char_end] == c.text


def test_unchanged_reingest_computes_no_embeddings(tmp_path: Path, corpus: Path) -> None:
    embedder = HashEmbeddings()
    store = open_store(tmp_path / "kb", embedder)
    ingestor = ChunkIngestor(store, ChunkingSettings())
    first = ingestor.ingest_paths([corpus])
    assert first.embeddings_computed > 0
    calls = embedder.calls
    second = ingestor.ingest_paths([corpus])
    assert embedder.calls == calls  # not one call to the embedder
    assert second.embeddings_computed == 0
    assert second.documents_unchanged == 3
    assert second.changed_doc_ids == [] and second.removed_doc_ids == []
    # Also after re-opening the knowledge base (state comes from disk).
    reopened = open_store(tmp_path / "kb", embedder)
    third = ChunkIngestor(reopened, ChunkingSettings()).ingest_paths([corpus])
    assert third.documents_unchanged == 3 and embedder.calls == calls


def test_changed_file_replaces_only_its_chunks(tmp_path: Path, corpus: Path) -> None:
    embedder = HashEmbeddings()
    store = open_store(tmp_path / "kb", embedder)
    ingestor = ChunkIngestor(store, ChunkingSettings())
    ingestor.ingest_paths([corpus])
    others = {d: chunk_rows(store, d) for d in ("beijing.txt", "tower.md")}
    before = chunk_rows(store, "sub/river.txt")
    texts_before = embedder.texts_embedded

    (corpus / "sub" / "river.txt").write_text(
        "The Seine flows through Paris.\n\nIt reaches the English Channel.", encoding="utf-8"
    )
    report = ingestor.ingest_paths([corpus])
    assert report.changed_doc_ids == ["sub/river.txt"]
    assert report.documents_updated == 1 and report.documents_unchanged == 2
    # Only the edited paragraph (= its one sentence) is embedded; the first is reused.
    assert report.embeddings_computed == 1
    assert embedder.texts_embedded - texts_before == 1
    after = chunk_rows(store, "sub/river.txt")
    assert after != before
    assert "It reaches the English Channel." in {t for t, _, _ in after.values()}
    assert "It reaches the sea at Le Havre." not in {t for t, _, _ in after.values()}
    for doc_id, rows in others.items():
        assert chunk_rows(store, doc_id) == rows
    assert [v.version for v in store.document_versions("sub/river.txt")] == [1, 2]


def test_bad_files_are_reported_and_the_rest_ingests(tmp_path: Path, corpus: Path) -> None:
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> junk")
    (corpus / "blob.txt").write_bytes(b"\x00\x01\x02\x03 binary \x00")
    (corpus / "empty.md").write_text("  \n", encoding="utf-8")
    store = open_store(tmp_path / "kb", HashEmbeddings())
    report = ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    reasons = {Path(s.path).name: s.reason for s in report.skipped}
    assert set(reasons) == {"broken.pdf", "blob.txt", "empty.md"}
    assert "corrupt PDF" in reasons["broken.pdf"]
    assert "binary" in reasons["blob.txt"]
    assert "empty" in reasons["empty.md"]
    assert report.documents_added == 3 and report.files_seen == 6
    assert "broken.pdf" in str(report)


def test_missing_path_is_reported(tmp_path: Path) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    report = ChunkIngestor(store, ChunkingSettings()).ingest_paths([tmp_path / "nope"])
    assert [s.reason for s in report.skipped] == ["does not exist"]


def test_removed_file_and_delete_remove_chunks(tmp_path: Path, corpus: Path) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    ingestor = ChunkIngestor(store, ChunkingSettings())
    ingestor.ingest_paths([corpus])
    (corpus / "beijing.txt").unlink()
    kept = ingestor.ingest_paths([corpus])  # without remove_missing nothing is deleted
    assert kept.removed_doc_ids == [] and store.has_document("beijing.txt")
    report = ingestor.ingest_paths([corpus], remove_missing=True)
    assert report.removed_doc_ids == ["beijing.txt"] and report.documents_deleted == 1
    assert store.chunks_for_documents(["beijing.txt"]) == []
    assert store.get_document("beijing.txt") is None
    assert ingestor.delete("tower.md") is True
    assert ingestor.delete("tower.md") is False
    assert store.chunks_for_documents(["tower.md"]) == []
    assert [d.doc_id for d in store.list_documents()] == ["sub/river.txt"]
    assert all(h.chunk.doc_id == "sub/river.txt" for h in store.search("Paris tower", top_k=10))


def test_crash_mid_ingest_is_repaired_by_rerunning(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    (corpus / "beijing.txt").write_text("Beijing is a huge city in China.", encoding="utf-8")

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("power cut")

    with monkeypatch.context() as patch:
        # Fails after the document is marked pending and its old chunks are deleted.
        patch.setattr(LanceChunkStore, "_chunk_table", crash)
        with pytest.raises(RuntimeError):
            ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    restarted = open_store(tmp_path / "kb", HashEmbeddings())
    assert restarted.pending_documents() == ["beijing.txt"]
    # Even if the file went back to its old content, a pending document is redone.
    (corpus / "beijing.txt").write_text("Beijing is the capital of China.", encoding="utf-8")
    report = ChunkIngestor(restarted, ChunkingSettings()).ingest_paths([corpus])
    assert report.changed_doc_ids == ["beijing.txt"]
    assert restarted.pending_documents() == []
    assert [c.text for c in restarted.chunks_for_documents(["beijing.txt"], level="paragraph")] == [
        "Beijing is the capital of China."
    ]


def test_documents_in_memory_ids_and_metadata(tmp_path: Path) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    ingestor = ChunkIngestor(store, ChunkingSettings())
    docs = [
        SourceDocument(doc_id="p1", title="Alpha", text="Alpha text.", metadata={"lang": "en"}),
        SourceDocument(text="No id given.", source="mem://b"),
        SourceDocument(text="No id, no source."),
        SourceDocument(doc_id="h1", text="<h1>Head</h1><p>Body text.</p>", format="html"),
        SourceDocument(doc_id="p1", text="duplicate id"),
    ]
    report = ingestor.ingest_documents(docs)
    assert report.documents_added == 4
    assert [s.reason for s in report.skipped] == ["duplicate doc_id 'p1'"]
    ids = {d.doc_id for d in store.list_documents()}
    assert {"p1", "mem://b", "h1"} <= ids and len(ids) == 4
    html_doc = store.get_document("h1")
    assert html_doc is not None and html_doc.title == "Head" and "<p>" not in html_doc.text
    hit = store.search("Alpha", where={"lang": "en"}, top_k=5)[0]
    assert hit.chunk.doc_id == "p1" and hit.chunk.metadata["lang"] == "en"
    # Changing only the metadata is a change, too.
    again = ingestor.ingest_documents(
        [SourceDocument(doc_id="p1", title="Alpha", text="Alpha text.", metadata={"lang": "fr"})]
    )
    assert again.changed_doc_ids == ["p1"] and again.embeddings_computed == 0


def test_chinese_with_english_only_embedder_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbeddings()
    embedder.english_only = True  # type: ignore[attr-defined]
    monkeypatch.setattr(pipeline_module, "_CJK_WARNED", set())
    store = open_store(tmp_path / "kb", embedder)
    ingestor = ChunkIngestor(store, ChunkingSettings())
    with caplog.at_level(logging.WARNING, logger="kg_rag.ingest.pipeline"):
        ingestor.ingest_documents([SourceDocument(doc_id="en", text="Only English here.")])
        assert not caplog.records
        ingestor.ingest_documents(
            [
                SourceDocument(doc_id="zh1", text="北京是中国的首都。"),
                SourceDocument(doc_id="zh2", text="上海是最大的城市。"),
            ]
        )
    warnings = [r for r in caplog.records if "BM25" in r.getMessage()]
    assert len(warnings) == 1 and "hash-64" in warnings[0].getMessage()


def test_report_lists_skips_and_defaults() -> None:
    report = IngestReport(files_seen=2)
    assert report.chunks_per_level == {"document": 0, "section": 0, "paragraph": 0, "sentence": 0}
    report.graph = "3 entities"
    assert "graph: 3 entities" in str(report)


def test_rerun_after_a_crash_reuses_the_unfinished_version(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path / "kb", HashEmbeddings())
    ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    (corpus / "beijing.txt").write_text("Beijing hosted the 2008 Olympics.", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(LanceChunkStore, "_chunk_table", lambda *a, **k: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            ChunkIngestor(store, ChunkingSettings()).ingest_paths([corpus])
    restarted = open_store(tmp_path / "kb", HashEmbeddings())
    ChunkIngestor(restarted, ChunkingSettings()).ingest_paths([corpus])
    versions = restarted.document_versions("beijing.txt")
    assert [(v.version, v.current) for v in versions] == [(1, False), (2, True)]
    doc = restarted.get_document("beijing.txt")
    assert doc is not None and doc.version == 2 and "Olympics" in doc.text
