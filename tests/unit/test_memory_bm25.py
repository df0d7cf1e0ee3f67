"""In-memory BM25 (kg_rag.stores._memory_bm25) against LanceDB's full-text index on one table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg_rag.config import ChunkingSettings
from kg_rag.ingest.pipeline import ChunkIngestor, SourceDocument
from kg_rag.stores._memory_bm25 import MAX_TOKEN_LENGTH, MemoryBm25, analyze
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

LONG = "x" * (MAX_TOKEN_LENGTH + 6)

DOCS = [
    SourceDocument(
        doc_id="mill",
        title="Varnholt Mill",
        text=(
            "The Varnholt mill ground rye for the villages. Millers ground wheat there too.\n\n"
            "Its wheel turned until the river froze; the wheels were rebuilt in 1911."
        ),
    ),
    SourceDocument(
        doc_id="cafe",
        title="Café Ormel",
        text="Café Ormel served coffee to the millers. Its owner, Hélène Varga, baked bread.",
    ),
    SourceDocument(
        doc_id="school",
        title="Teaching",
        format="md",
        text=(
            "# Schools\n\nThe teachers taught reading. A teacher taught arithmetic.\n\n"
            "## Founding\n\nThe school was founded by Varga's brother in 1902."
        ),
    ),
    SourceDocument(
        doc_id="ferry",
        title="Ferry",
        text=f"The ferry crossed daily. Its registry code was {LONG} and nobody read it.",
    ),
    SourceDocument(
        doc_id="zh",
        title="渡口",
        text="青石渡口的渡船每天往返两岸。渡口旁的茶馆由林秋生开设。",
    ),
    SourceDocument(
        doc_id="mixed",
        title="Mixed",
        text="The Ormel ferry (渡船) carried rye and coffee; the rye went to the mill.",
    ),
]

QUERIES = [
    # (query, level, doc_ids)
    ("mill", None, None),
    ("millers grinding rye", "sentence", None),
    ("wheels", "paragraph", None),
    ("wheel wheels wheel", None, None),  # a repeated word counts each time
    ("cafe", None, None),  # the unaccented word against "Café"
    ("Café Hélène", "sentence", None),
    ("Helene", None, None),
    ("teaching teachers taught", None, None),
    ("school founded brother", "section", None),
    ("ferry registry " + LONG, None, None),  # the over-long word is not indexed
    ("渡口 渡船", None, None),
    ("茶馆 林秋生", "sentence", None),
    ("rye coffee ferry", "paragraph", ["mixed", "cafe"]),
    ("rye", "document", ["mill"]),
    ("the of and", None, None),  # stopwords only: no tokens
    ("zeppelin", None, None),  # no document has it
    ("Ormel 渡船 rye", None, None),
    ("Varga", "sentence", ["school", "cafe", "ferry"]),
]


@pytest.fixture()
def store(tmp_path: Path) -> LanceChunkStore:
    s = LanceChunkStore(tmp_path / "kb", HashEmbeddings())
    s.open()
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(DOCS)
    return s


@pytest.mark.parametrize(("query", "level", "doc_ids"), QUERIES)
def test_in_memory_bm25_scores_equal_the_full_text_index(
    store: LanceChunkStore,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    level: Any,
    doc_ids: list[str] | None,
) -> None:
    """The same chunks with the same BM25 scores as LanceDB's full-text search (stems,
    accents folded after stemming, repeated query words, Chinese words, dropped long words,
    level and document filters); equal scores may come in another order."""
    fast = store.search(query, mode="bm25", level=level, doc_ids=doc_ids, top_k=20)
    assert store._chunks_in_memory is not None  # served from memory
    store.clear_caches()
    monkeypatch.setattr(store, "_snapshot", lambda load=True: None)
    slow = store.search(query, mode="bm25", level=level, doc_ids=doc_ids, top_k=20)
    assert sorted((h.chunk.chunk_id, round(h.score, 4)) for h in fast) == sorted(
        (h.chunk.chunk_id, round(h.score, 4)) for h in slow
    )
    assert [h.score for h in fast] == sorted((h.score for h in fast), reverse=True)
    if doc_ids is not None:
        assert {h.chunk.doc_id for h in fast} <= set(doc_ids)
    if level is not None:
        assert {h.chunk.level for h in fast} == ({level} if fast else set())


def test_a_write_is_searched_at_once(store: LanceChunkStore) -> None:
    """The postings belong to the snapshot a write drops: a new document's words are found
    by the next search."""
    assert store.search("lighthouse keeper", mode="bm25") == []
    ChunkIngestor(store, ChunkingSettings()).ingest_documents(
        [SourceDocument(doc_id="light", title="Light", text="The lighthouse keeper rowed out.")]
    )
    hits = store.search("lighthouse keeper", mode="bm25")
    assert hits and {h.chunk.doc_id for h in hits} == {"light"}


@pytest.mark.parametrize(
    ("tokens", "terms"),
    [
        ("running runs ran", ["run", "run", "ran"]),
        ("Universities université", ["universiti", "universite"]),
        ("tekezé tekeze", ["tekeze", "tekez"]),  # stemmed, then folded
        ("北京大学 北京", ["北京大学", "北京"]),
        (f"a {LONG} b", ["a", "b"]),
        ("", []),
    ],
)
def test_analyzer_matches_the_index_configuration(tokens: str, terms: list[str]) -> None:
    assert analyze(tokens) == terms


def test_scope_limit_and_order() -> None:
    """Rows outside the scope never come back; the limit keeps the best; ties go by row; a
    row with both words beats one with a word twice."""
    index = MemoryBm25(["apple pear", "apple", None, "pear pear", "apple", "plum"])
    assert [r for r, _ in index.search(["apple"], None, 10)] == [1, 4, 0]
    assert [r for r, _ in index.search(["apple"], None, 2)] == [1, 4]
    import numpy as np

    assert [r for r, _ in index.search(["apple", "pear"], np.asarray([0, 3, 5]), 10)] == [0, 3]
    assert index.search(["cherry"], None, 10) == []
    assert index.search(["apple"], None, 0) == []
    assert MemoryBm25([]).search(["apple"], None, 5) == []
