"""LanceChunkStore: search modes, filters, small-to-big, versions, schema checks, ANN index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg_rag.config import ChunkingSettings, RetrievalSettings
from kg_rag.errors import SchemaMismatch, StoreUnavailable
from kg_rag.ingest.pipeline import ChunkIngestor, SourceDocument
from kg_rag.models import Chunk
from kg_rag.stores.chunks import LanceChunkStore, SearchMode
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

DOCS = [
    SourceDocument(
        doc_id="tower",
        title="Eiffel Tower",
        text="The Eiffel Tower stands in Paris. It opened in 1889.\n\nIt is 330 metres tall.",
        metadata={"lang": "en", "topic": "paris"},
    ),
    SourceDocument(
        doc_id="seine",
        title="Seine",
        text="The Seine is a river that flows through Paris to the sea.",
        metadata={"lang": "en", "topic": "paris"},
    ),
    SourceDocument(
        doc_id="beijing",
        title="北京",
        text="北京是中华人民共和国的首都。故宫位于北京市中心！",
        metadata={"lang": "zh"},
    ),
    SourceDocument(
        doc_id="guide",
        title="Guide",
        format="md",
        text="# Museums\n\nThe Louvre holds the Mona Lisa.\n\n## Hours\n\nIt opens at nine.",
        metadata={"lang": "en", "topic": "museums"},
    ),
]


@pytest.fixture()
def store(tmp_path: Path) -> LanceChunkStore:
    s = LanceChunkStore(tmp_path / "kb", HashEmbeddings())
    s.open()
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(DOCS)
    return s


def test_methods_need_open(tmp_path: Path) -> None:
    s = LanceChunkStore(tmp_path / "kb", HashEmbeddings())
    assert not (tmp_path / "kb").exists()  # nothing happens in the constructor
    with pytest.raises(StoreUnavailable, match=r"open\(\)"):
        s.search("x")


def test_other_embedding_model_is_a_clear_error(tmp_path: Path, store: LanceChunkStore) -> None:
    with pytest.raises(SchemaMismatch, match="built with embedding model 'hash-64'"):
        LanceChunkStore(tmp_path / "kb", HashEmbeddings(dimensions=32)).open()
    same = LanceChunkStore(tmp_path / "kb", HashEmbeddings())
    same.open()
    assert same.dimensions == 64 and {"documents", "chunks"} <= set(same.db.list_tables().tables)


def test_hybrid_fuses_dense_and_bm25(store: LanceChunkStore) -> None:
    hits = store.search("Eiffel Tower Paris", level="paragraph", top_k=3)
    assert hits[0].chunk.doc_id == "tower"
    top = hits[0].scores
    assert set(top) == {"dense", "bm25", "rrf", "relative"}
    # The best candidate of both lists gets the full weight of both after normalisation.
    assert hits[0].score == top["relative"] == pytest.approx(1.0)
    assert top["rrf"] == pytest.approx(2 / 61)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    dense = store.search("Eiffel Tower Paris", mode="dense", top_k=2)
    assert set(dense[0].scores) == {"dense"} and dense[0].score == dense[0].scores["dense"]
    bm25 = store.search("Eiffel Tower Paris", mode="bm25", top_k=2)
    assert set(bm25[0].scores) == {"bm25"}


def test_fusion_weights_and_rrf(store: LanceChunkStore) -> None:
    query = "river flows Paris"
    dense = [h.chunk.chunk_id for h in store.search(query, mode="dense", top_k=5)]
    store.dense_weight = 1.0  # all weight on dense: hybrid keeps the dense order
    assert [h.chunk.chunk_id for h in store.search(query, top_k=5)] == dense
    store.dense_weight = 0.0
    bm25 = [h.chunk.chunk_id for h in store.search(query, mode="bm25", top_k=50)]
    assert len(bm25) >= 3
    # The last BM25 candidate normalises to 0 and ties with dense-only ones: compare the rest.
    assert [h.chunk.chunk_id for h in store.search(query, top_k=2)] == bm25[:2]
    store.fusion = "rrf"
    hits = store.search(query, top_k=5)
    assert [h.score for h in hits] == [h.scores["rrf"] for h in hits]
    assert hits == sorted(hits, key=lambda h: -h.scores["rrf"])


def test_bm25_finds_a_chinese_term(store: LanceChunkStore) -> None:
    hits = store.search("故宫", mode="bm25", level="sentence", top_k=3)
    assert hits and hits[0].chunk.text == "故宫位于北京市中心！"
    # A word jieba keeps whole in the document is found from a shorter query word, too.
    assert store.search("人民", mode="bm25", top_k=1)[0].chunk.doc_id == "beijing"


def test_bm25_stems_english(store: LanceChunkStore) -> None:
    hits = store.search("flowing rivers", mode="bm25", level="paragraph", top_k=1)
    assert hits[0].chunk.doc_id == "seine"


def test_filters_by_level_document_and_metadata(store: LanceChunkStore) -> None:
    sentences = store.search("Paris", level="sentence", top_k=20)
    assert sentences and {h.chunk.level for h in sentences} == {"sentence"}
    mixed = store.search("Paris", level=["paragraph", "document"], top_k=20)
    assert {h.chunk.level for h in mixed} == {"paragraph", "document"}
    only_seine = store.search("Paris", doc_ids=["seine"], top_k=20)
    assert only_seine and {h.chunk.doc_id for h in only_seine} == {"seine"}
    museums = store.search("opens", where={"topic": "museums"}, top_k=20)
    assert museums and {h.chunk.doc_id for h in museums} == {"guide"}
    assert store.search("Paris", where={"topic": "nothing"}) == []
    assert store.search("Paris", doc_ids=["tower"], where={"lang": "zh"}) == []


def test_small_to_big_and_tree_navigation(store: LanceChunkStore) -> None:
    hits = store.search("330 metres tall", level="sentence", top_k=1, expand_parent=True)
    hit = hits[0]
    assert hit.chunk.text == "It is 330 metres tall."
    assert hit.parent is not None and hit.parent.level == "paragraph"
    assert hit.parent.chunk_id == hit.chunk.parent_id
    section = store.parent(hit.parent)
    assert section is not None and section.level == "section"
    document = store.parent(section)
    assert document is not None and document.level == "document" and store.parent(document) is None
    paragraphs = store.children(section.chunk_id)
    assert [p.text for p in paragraphs] == [
        "The Eiffel Tower stands in Paris. It opened in 1889.",
        "It is 330 metres tall.",
    ]
    headings = {c.text: c.heading_path for c in store.chunks_for_documents(["guide"], "paragraph")}
    assert headings == {
        "The Louvre holds the Mona Lisa.": ["Museums"],
        "It opens at nine.": ["Museums", "Hours"],
    }


def test_get_chunks_keeps_order_and_skips_missing(store: LanceChunkStore) -> None:
    chunks = store.chunks_for_documents(["seine", "tower"], level="paragraph")
    assert [c.doc_id for c in chunks] == ["seine", "tower", "tower"]
    ids = [chunks[2].chunk_id, "missing", chunks[0].chunk_id]
    assert [c.chunk_id for c in store.get_chunks(ids)] == [chunks[2].chunk_id, chunks[0].chunk_id]


def test_cached_chunks_follow_writes_and_other_processes(
    tmp_path: Path, store: LanceChunkStore
) -> None:
    """get_chunks caches by id; a re-ingest, a delete, or another store's write (seen on
    refresh) must not leave a stale chunk behind (same id, moved offsets)."""
    [first] = store.chunks_for_documents(["guide"], level="sentence")[-1:]
    assert store.get_chunks([first.chunk_id]) == [first]  # now cached
    moved = "# Museums\n\nNew opening line here.\n\n" + DOCS[3].text.split("\n\n", 1)[1]
    ChunkIngestor(store, ChunkingSettings()).ingest_documents(
        [SourceDocument(doc_id="guide", title="Guide", format="md", text=moved)]
    )
    fresh = {c.chunk_id: c for c in store.chunks_for_documents(["guide"])}
    assert store.get_chunks([first.chunk_id]) == [fresh[first.chunk_id]]
    assert fresh[first.chunk_id].char_start > first.char_start  # same sentence, moved on
    other = LanceChunkStore(tmp_path / "kb", HashEmbeddings())
    other.open()
    cid = next(iter(fresh))
    assert store.get_chunks([cid])
    other.delete_document("guide")
    store.refresh()
    assert store.get_chunks([cid]) == []
    assert store.sentence_similarity("opening", ["guide"]) == {}


@pytest.mark.parametrize(
    "query", ["Eiffel Tower opened", "how tall is it", "北京的首都", "Mona Lisa", "river sea"]
)
def test_sentence_similarity_is_the_dense_cosine(store: LanceChunkStore, query: str) -> None:
    """Every stored sentence of the documents, with the cosine a dense search gives it."""
    docs = ["tower", "beijing", "guide"]
    sims = store.sentence_similarity(query, docs)
    hits = store.search(query, mode="dense", level="sentence", top_k=50, doc_ids=docs)
    want = {(h.chunk.doc_id, h.chunk.char_start, h.chunk.char_end): h.score for h in hits}
    got = {(d, a, b): s for d, rows in sims.items() for a, b, s in rows}
    assert set(got) == set(want) and len(got) == len(
        store.chunks_for_documents(docs, level="sentence")
    )
    for key, score in want.items():
        assert got[key] == pytest.approx(score, abs=1e-4)
    assert store.sentence_similarity(query, docs) == sims  # again, from the cache


def test_sentence_vectors_from_the_snapshot_equal_the_filtered_read(
    store: LanceChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small table's sentence vectors come from the in-memory dense matrix (one scan);
    the result equals the filtered read's, and a write drops the matrix."""
    docs = ["tower", "beijing", "guide"]
    from_matrix = store.sentence_similarity("Eiffel Tower opened", docs)
    assert store._chunks_in_memory is not None and set(docs) <= set(store._chunks_in_memory.by_doc)
    store.clear_caches()
    with monkeypatch.context() as m:
        m.setattr(store, "_snapshot", lambda load=True: None)
        assert _close(store.sentence_similarity("Eiffel Tower opened", docs), from_matrix)
    moved = "# Museums\n\nA new first line here.\n\n" + DOCS[3].text.split("\n\n", 1)[1]
    ChunkIngestor(store, ChunkingSettings()).ingest_documents(
        [SourceDocument(doc_id="guide", title="Guide", format="md", text=moved)]
    )
    assert store._chunks_in_memory is None  # the write (and its compaction) forgot it
    fresh = store.sentence_similarity("new first line", ["guide"])
    store.clear_caches()
    monkeypatch.setattr(store, "_snapshot", lambda load=True: None)
    assert _close(store.sentence_similarity("new first line", ["guide"]), fresh)


def _close(
    a: dict[str, list[tuple[int, int, float]]], b: dict[str, list[tuple[int, int, float]]]
) -> bool:
    """Same spans in the same order, cosines equal to float32 rounding."""
    return a.keys() == b.keys() and all(
        [s[:2] for s in a[d]] == [s[:2] for s in b[d]]
        and all(x[2] == pytest.approx(y[2], abs=1e-5) for x, y in zip(a[d], b[d], strict=True))
        for d in a
    )


SEARCH_CASES = [
    # (query, mode, level, doc_ids, where)
    ("Eiffel Tower opened", "dense", None, None, None),
    ("Eiffel Tower opened", "hybrid", "paragraph", None, None),
    ("river through Paris", "hybrid", "sentence", None, None),
    ("river through Paris", "dense", ["sentence", "paragraph"], None, None),
    ("museum guide", "hybrid", "section", None, None),
    ("museum guide", "dense", "document", None, None),
    ("Forbidden City palace", "hybrid", "sentence", ["beijing", "tower"], None),
    ("Forbidden City palace", "dense", None, ["beijing"], None),
    ("北京 故宫", "hybrid", "paragraph", None, None),
    ("iron lattice height metres", "hybrid", "sentence", ["guide"], None),
    ("nothing like this at all", "dense", "paragraph", ["seine"], None),
    ("Eiffel", "hybrid", "paragraph", [], None),
    ("Paris river tower", "hybrid", "paragraph", None, {"topic": "paris"}),
    ("Paris river tower", "dense", "sentence", ["seine", "guide"], {"lang": "en"}),
    ("opens at nine", "dense", None, None, {"topic": "museums"}),
]


@pytest.mark.parametrize(("query", "mode", "level", "doc_ids", "where"), SEARCH_CASES)
def test_in_memory_dense_search_equals_the_table_scan(
    store: LanceChunkStore,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    mode: SearchMode,
    level: Any,
    doc_ids: list[str] | None,
    where: dict[str, str] | None,
) -> None:
    """Below the ANN threshold dense candidates come from the in-memory matrix; hits, their
    order, scores and chunks equal LanceDB's own brute-force scan for varied levels,
    document filters and modes."""
    fast = store.search(query, mode=mode, level=level, doc_ids=doc_ids, where=where, top_k=8)
    store.clear_caches()
    monkeypatch.setattr(store, "_snapshot", lambda load=True: None)
    slow = store.search(query, mode=mode, level=level, doc_ids=doc_ids, where=where, top_k=8)
    # The same hits with the same scores; equal scores (to float rounding) may swap.
    assert len(fast) == len(slow)
    for f, s in zip(fast, slow, strict=True):
        assert f.score == pytest.approx(s.score, abs=1e-5)
    by_id = {h.chunk.chunk_id: h for h in slow}
    for f in fast:
        if f.chunk.chunk_id not in by_id:  # only a tie at the cut may differ
            assert f.score == pytest.approx(slow[-1].score, abs=1e-5)
            continue
        assert f.chunk == by_id[f.chunk.chunk_id].chunk
        assert f.scores == pytest.approx(by_id[f.chunk.chunk_id].scores, abs=1e-5)
    if doc_ids is not None:
        assert {h.chunk.doc_id for h in fast} <= set(doc_ids)
    if level is not None:
        assert {h.chunk.level for h in fast} <= ({level} if isinstance(level, str) else set(level))


def test_reads_from_the_snapshot_equal_the_table_reads(
    store: LanceChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks by id (in the order asked, unknown ids left out), a document's chunks by level
    and a chunk's parent read from the in-memory snapshot equal the table's own reads."""
    ids = [c.chunk_id for c in store.chunks_for_documents(["tower", "guide", "beijing"])]
    asked = [ids[5], "ch_missing", ids[0], ids[-1], ids[5]]
    calls = [
        lambda: store.get_chunks(asked),
        lambda: store.chunks_for_documents(["guide", "tower"]),
        lambda: store.chunks_for_documents(["beijing", "seine"], level="sentence"),
        lambda: store.chunks_for_documents(["nowhere"]),
        lambda: [store.parent(c) for c in store.get_chunks(ids)],
    ]
    assert store.get_chunks(asked) and store._chunks_in_memory is None  # reads load none
    store.search("Eiffel")  # a search reads the snapshot; reads use it from then on
    fast = [call() for call in calls]
    assert store._chunks_in_memory is not None
    store.clear_caches()
    monkeypatch.setattr(store, "_snapshot", lambda load=True: None)
    assert [call() for call in calls] == fast
    assert [c.chunk_id for c in fast[0]] == [ids[5], ids[0], ids[-1]]


def test_snapshot_chunks_are_made_once(
    store: LanceChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot hands out the chunk it made for a row again (in the order asked, repeats
    included) and starts afresh past its bound, reading the same chunks."""
    import kg_rag.stores._chunk_search as chunk_search

    store.search("Eiffel")
    snapshot = store._snapshot()
    assert snapshot is not None
    first = snapshot.chunks([3, 0, 3])
    again = snapshot.chunks([0, 3, 1])
    assert again[0] is first[1] and again[1] is first[0] and first[0] is first[2]
    monkeypatch.setattr(chunk_search, "_MADE_CHUNKS", 2)
    fresh = [p for p in range(len(snapshot.chunk_ids)) if p not in snapshot._made][:2]
    bounded = snapshot.chunks([fresh[0], 0, fresh[1]])
    assert sorted(snapshot._made) == sorted(fresh)  # started afresh with the new ones
    assert [c.chunk_id for c in bounded] == [snapshot.chunk_ids[p] for p in (fresh[0], 0, fresh[1])]
    assert bounded[1] == first[1]


def test_read_caches_evict_the_least_recently_used(
    store: LanceChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk (a document's sentence vectors) read again moves to the back of its cache, so
    a full cache evicts the one read longest ago, not the one stored first. (Sentence vectors
    are cached per document above the ANN threshold; below it the dense matrix holds them.)"""
    import kg_rag.stores.chunks as chunks_module

    monkeypatch.setattr(store, "_snapshot", lambda load=True: None)
    monkeypatch.setattr(chunks_module, "_CHUNK_CACHE", 2)
    monkeypatch.setattr(chunks_module, "_SENTENCE_CACHE", 2)
    a, b, c = (store.chunks_for_documents([d])[0].chunk_id for d in ("tower", "seine", "guide"))
    reads: list[str] = []
    select = store._select

    def counted(where: str) -> list[Chunk]:
        reads.append(where)
        return select(where)

    monkeypatch.setattr(store, "_select", counted)
    for cid in (a, b, a, c):  # a is read again after b: b is the least recently used
        store.get_chunks([cid])
    reads.clear()
    store.get_chunks([a])
    assert reads == [], "a was read recently and stays cached"
    store.get_chunks([b])
    assert len(reads) == 1, "b was read longest ago and was evicted"

    table_reads: list[str] = []
    real_table = store._table

    def tracked(name: str) -> Any:
        table_reads.append(name)
        return real_table(name)

    for doc in ("tower", "seine", "tower", "guide"):
        store.sentence_similarity("opening", [doc])
    monkeypatch.setattr(store, "_table", tracked)
    store.sentence_similarity("opening", ["tower"])
    assert table_reads == [], "tower's sentence vectors were read recently and stay cached"
    store.sentence_similarity("opening", ["seine"])
    assert table_reads, "seine's were read longest ago and were evicted"


def test_embed_query_is_cached(store: LanceChunkStore) -> None:
    embedder = store.embedder
    assert isinstance(embedder, HashEmbeddings)
    before = embedder.calls
    store.search("cached question", mode="dense")
    store.search("cached question", mode="hybrid")
    assert embedder.calls == before + 1


def test_queries_known_together_are_embedded_in_one_call(store: LanceChunkStore) -> None:
    embedder = store.embedder
    assert isinstance(embedder, HashEmbeddings)
    texts = ["who opened the tower", "how tall is it", "which river flows to the sea"]
    before = embedder.calls
    store.embed_queries([*texts, texts[0]])
    assert embedder.calls == before + 1  # one batch, the repeat embedded once
    for text in texts:
        assert store.embed_query(text) == embedder.embed_documents([text])[0]
    after = embedder.calls
    store.embed_queries(texts)  # all cached: nothing to embed
    for text in texts:
        store.search(text, mode="dense")
    assert embedder.calls == after


def test_versions_and_rollback(store: LanceChunkStore) -> None:
    ingestor = ChunkIngestor(store, ChunkingSettings())
    ingestor.ingest_documents(
        [SourceDocument(doc_id="seine", title="Seine", text="The Seine is 777 km long.")]
    )
    assert [v.version for v in store.document_versions("seine")] == [1, 2]
    assert store.document_versions("seine")[1].current
    restored = store.rollback("seine", 1)
    assert restored.version == 3
    assert "flows through Paris" in restored.text
    current = store.get_document("seine")
    assert current is not None and current.version == 3 and current.text == restored.text
    paragraphs = store.chunks_for_documents(["seine"], level="paragraph")
    assert [p.text for p in paragraphs] == [
        "The Seine is a river that flows through Paris to the sea."
    ]
    assert store.search("777", mode="bm25", doc_ids=["seine"]) == []
    with pytest.raises(KeyError, match="no version 9"):
        store.rollback("seine", 9)


def test_delete_document(store: LanceChunkStore) -> None:
    store.delete_document("tower")
    assert store.get_document("tower") is None
    assert store.chunks_for_documents(["tower"]) == []
    assert store.document_versions("tower") == []
    assert "tower" not in {h.chunk.doc_id for h in store.search("Eiffel Tower", top_k=20)}


def test_level_tables_are_built_past_the_threshold(tmp_path: Path) -> None:
    """Past ``ann_index_min_rows`` the vectors go to one table per level, each indexed once it
    has ``ann_level_min_rows`` rows (here the sentences, not the paragraphs); ``chunks`` gets
    its scalar indexes and no vector index."""
    s = LanceChunkStore(
        tmp_path / "kb",
        HashEmbeddings(32),
        settings=RetrievalSettings(ann_index_min_rows=300, ann_level_min_rows=256),
    )
    s.open()
    docs = _numbered_docs(100)
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(docs[:40])
    kinds = {i.index_type for i in s.db.open_table("chunks").list_indices()}
    assert kinds == {"FTS"} and not s.has_ann_index  # 240 chunks: below the threshold
    assert not any(t.startswith("chunks_level_") for t in s.db.list_tables().tables)
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(docs[40:])
    kinds = {i.index_type for i in s.db.open_table("chunks").list_indices()}
    assert kinds == {"FTS", "BTree", "Bitmap"} and s.has_ann_index
    levels = s.level_tables
    assert levels is not None
    counts = {lv: t.count_rows() for lv, t in levels.tables.items()}
    assert counts == {"document": 100, "section": 100, "paragraph": 100, "sentence": 300}
    assert counts == {lv: n for lv, n in s.chunk_counts().items()}
    assert levels.nprobes["sentence"] == 20 and levels.nprobes["paragraph"] is None
    hits = s.search("Item42 group0", level="paragraph", top_k=3)
    assert hits[0].chunk.doc_id == "d42"
    hits = s.search("Third line 42", level="sentence", top_k=3)
    assert hits[0].chunk == s.get_chunks([hits[0].chunk.chunk_id])[0]
    assert hits[0].chunk.doc_id == "d42" and hits[0].chunk.text == "Third line 42."


def _numbered_docs(n: int) -> list[SourceDocument]:
    return [
        SourceDocument(
            doc_id=f"d{i}",
            text=f"Item{i} belongs to group{i % 7}. Second line {i}. Third line {i}.",
        )
        for i in range(n)
    ]


def _builder_candidates(
    table: Any, vector: list[float], text: str, where: str | None, limit: int, nprobes: int
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Dense and BM25 candidates read through LanceDB's synchronous query builder, whole
    rows, one query after the other: how the store searched before it gathered both in one
    call on LanceDB's loop."""
    from lancedb.query import FullTextOperator, MatchQuery

    from kg_rag.text import bm25_tokens

    dense = table.search(vector, vector_column_name="vector").distance_type("cosine")
    dense = dense.nprobes(nprobes).refine_factor(10)
    match = MatchQuery(
        " ".join(bm25_tokens(text)),
        "tokens",
        boost=1.0,
        fuzziness=0,
        max_expansions=50,
        operator=FullTextOperator.OR,
        prefix_length=0,
        document_granularity=None,
    )
    sparse = table.search(match, query_type="fts")
    if where:
        dense = dense.where(where, prefilter=True)
        sparse = sparse.where(where, prefilter=True)
    d = dense.select(["chunk_id", "_distance"]).limit(limit).to_arrow().to_pylist()
    b = sparse.select(["chunk_id", "_score"]).limit(limit).to_arrow().to_pylist()
    return (
        [(r["chunk_id"], 1.0 - r["_distance"]) for r in d],
        [(r["chunk_id"], r["_score"]) for r in b],
    )


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("Item42 group0", "level IN ('paragraph')"),
        ("group3 Second line", None),
        ("Item17 belongs", "level IN ('sentence', 'document')"),
        ("Second line 99", "doc_id IN ('d19', 'd99') AND level IN ('sentence')"),
    ],
)
def test_indexed_search_gathers_the_builder_candidates(
    tmp_path: Path, query: str, where: str | None
) -> None:
    """Past the ANN threshold the dense and BM25 candidates, read together in one call on
    LanceDB's loop with ids only, are the synchronous builder's, in the same order with the
    same scores; the hits' chunks taken by row id equal the chunks read by id, and a row id
    a later write moved falls back to the read by id."""
    from kg_rag.stores._chunk_search import indexed_candidates, run_lance, take_chunks

    s = LanceChunkStore(
        tmp_path / "kb", HashEmbeddings(32), settings=RetrievalSettings(ann_index_min_rows=300)
    )
    s.open()
    docs = [
        SourceDocument(doc_id=f"d{i}", text=f"Item{i} belongs to group{i % 7}. Second line {i}.")
        for i in range(100)
    ]
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(docs)
    assert s.has_ann_index
    table = s.db.open_table("chunks")
    vector = s.embed_query(query)
    dense, sparse = indexed_candidates(table, vector, query, where, 20, s.ann_nprobes)
    ref_dense, ref_sparse = _builder_candidates(table, vector, query, where, 20, s.ann_nprobes)
    assert dense and sparse
    assert [r["chunk_id"] for r, _ in dense] == [c for c, _ in ref_dense]
    assert [x for _, x in dense] == pytest.approx([x for _, x in ref_dense], abs=1e-6)
    assert [r["chunk_id"] for r, _ in sparse] == [c for c, _ in ref_sparse]
    assert [x for _, x in sparse] == pytest.approx([x for _, x in ref_sparse], abs=1e-6)
    rows = [r for r, _ in dense[:5]]
    taken = take_chunks(table, rows)
    assert taken == s.get_chunks([r["chunk_id"] for r in rows])
    # Delete documents stored before the hits' and compact: the hits' rows move, and the
    # row ids the search returned point elsewhere or nowhere.
    for d in range(10):
        s.delete_document(f"d{d}")
    s.optimize()
    table = s.db.open_table("chunks")
    stale = run_lance(
        table._table.take_row_ids([r["_rowid"] for r in rows]).select(["chunk_id"]).to_arrow()
    )
    assert stale.column("chunk_id").to_pylist() != [r["chunk_id"] for r in rows]
    now = {c.chunk_id: c for c in s.get_chunks([r["chunk_id"] for r in rows])}
    assert now and {c.chunk_id: c for c in take_chunks(table, rows)} == now


ZH_DOCS = [
    SourceDocument(
        doc_id="chaoyin",
        title="潮音唱片",
        text=(
            "潮音唱片是一家独立唱片公司，1992年由罗慧敏创建，总部位于青榆市。"
            "2015年，潮音唱片被华岳传媒收购，但保留了原有的品牌。"
        ),
    ),
    SourceDocument(
        doc_id="others",
        title="其他",
        text=(
            "2001年，她创办了星衡传感，将研究成果转化为商用涂层。"
            "2019年，三人重新聚首，举办了巡回演出。"
            "欧阳静澜于2011年在青榆市逝世，享年八十三岁。"
            "2016年 沧澜科学奖"
        ),
    ),
]


@pytest.mark.parametrize(
    "query", ["潮音唱片是哪一年创建的", "罗慧敏创建的唱片公司", "华岳传媒收购了哪家公司"]
)
def test_hybrid_leans_on_bm25_for_what_the_embedder_cannot_read(tmp_path: Path, query: str) -> None:
    from kg_rag.embeddings import LocalMiniLMEmbeddings

    # English-only MiniLM reads these Chinese questions as mostly [UNK]: its cosines rank
    # sentences by their digits. Fusion weighs dense by the share of the query it can read,
    # so the hybrid ranking starts where BM25's does.
    s = LanceChunkStore(tmp_path / "kb", LocalMiniLMEmbeddings())
    s.open()
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(ZH_DOCS)
    assert s.query_dense_weight(query) < 0.5 * s.dense_weight
    assert s.query_dense_weight("Who founded the label?") == s.dense_weight
    bm25 = s.search(query, mode="bm25", level="sentence", top_k=3)
    hybrid = s.search(query, level="sentence", top_k=3)
    assert bm25[0].chunk.doc_id == "chaoyin"
    assert hybrid[0].chunk.chunk_id == bm25[0].chunk.chunk_id
    s.close()


def _large_store(path: Path, **settings: int) -> LanceChunkStore:
    """A store past its ANN threshold once 50 numbered documents are in (300 chunks)."""
    merged = {"ann_index_min_rows": 300, "ann_level_min_rows": 256, **settings}
    s = LanceChunkStore(path, HashEmbeddings(32), settings=RetrievalSettings(**merged))
    s.open()
    return s


def _ranking(hits: list[Any]) -> list[tuple[str, float]]:
    """(chunk id, score) of each hit, with the id blanked where another candidate has the
    same score (hash vectors tie often, and LanceDB breaks ties in its own order), the last
    hit's included: a candidate past the cut may tie with it."""
    scores = [round(h.score, 5) for h in hits]
    return [
        (h.chunk.chunk_id if scores.count(x) == 1 and x != scores[-1] else "tie", x)
        for h, x in zip(hits, scores, strict=True)
    ]


SEARCHES: list[tuple[str, SearchMode, Any, list[str] | None]] = [
    ("Item42 group0", "hybrid", "paragraph", None),
    ("Third line 17", "hybrid", "sentence", None),
    ("Second line 3 group3", "dense", "sentence", None),
    ("Item8 belongs", "dense", ["paragraph", "sentence"], None),
    ("group5 Item61", "hybrid", None, None),
    ("Second line 70", "hybrid", "sentence", ["d70", "d71", "d2"]),
    ("Item33", "dense", ["document", "section"], None),
    ("line 9", "bm25", "sentence", None),
]


@pytest.mark.parametrize(("query", "mode", "level", "doc_ids"), SEARCHES)
def test_level_tables_rank_as_the_exact_search_in_memory(
    tmp_path: Path, query: str, mode: SearchMode, level: Any, doc_ids: list[str] | None
) -> None:
    """Past the threshold (vectors searched per level table: IVF-PQ where a level has the
    rows, exact below; within a few documents exact over ``chunks``) a search gives the
    hits and scores of the exact in-memory search below it. Every partition is probed at
    this size, so the index can be held to exactness."""
    docs = _numbered_docs(100)
    large = _large_store(tmp_path / "large")
    ChunkIngestor(large, ChunkingSettings()).ingest_documents(docs)
    assert large.level_tables is not None and large.level_tables.nprobes["sentence"]
    small = LanceChunkStore(tmp_path / "small", HashEmbeddings(32))
    small.open()
    ChunkIngestor(small, ChunkingSettings()).ingest_documents(docs)
    assert not small.has_ann_index
    kwargs: dict[str, Any] = {"mode": mode, "level": level, "top_k": 8, "doc_ids": doc_ids}
    got = large.search(query, **kwargs)
    assert got and _ranking(got) == _ranking(small.search(query, **kwargs))
    assert [h.chunk for h in got] == large.get_chunks([h.chunk.chunk_id for h in got])


def _drop_to_the_old_layout(store: LanceChunkStore) -> None:
    """What a knowledge base indexed before the level tables looks like: one IVF-PQ index
    over ``chunks`` (with its scalar indexes), no level tables, no marker."""
    from lancedb.index import IvfPq

    from kg_rag.stores._level_tables import drop_level_tables

    drop_level_tables(store.db)
    chunks = store.db.open_table("chunks")
    # As the store built it: sqrt(rows) partitions, sub-vectors of 8 dimensions.
    config = IvfPq(distance_type="cosine", num_partitions=24, num_sub_vectors=4)
    chunks.create_index("vector", config=config)


def test_a_knowledge_base_of_the_old_layout_searches_then_migrates(tmp_path: Path) -> None:
    """Opened by this version, a knowledge base with one IVF-PQ index over ``chunks`` and no
    level tables searches through that index and takes incremental ingests (changed,
    removed and new documents); its ``optimize()`` then adds the level tables, which hold
    every chunk of each level, and searches rank as the exact search does."""
    from kg_rag.embedder_choice import read_kb_meta
    from kg_rag.stores._level_tables import SYNCED_KEY

    docs = _numbered_docs(110)
    s = _large_store(tmp_path / "kb")
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(docs[:100])
    _drop_to_the_old_layout(s)
    s.close()
    s = _large_store(tmp_path / "kb")
    assert s.has_ann_index and s.level_tables is None and s._chunks_ann
    dense, _ = s._indexed(s.embed_query("Item7"), None, ["sentence"], None, 5)
    assert dense and not any("_level" in r for r, _ in dense)  # the old index answered
    s.delete_document("d6")  # a write while the level tables are not there
    assert s.level_tables is None
    assert "d6" not in {h.chunk.doc_id for h in s.search("Item6 group6", top_k=20)}
    # An incremental ingest (one changed document, ten new) ends with optimize(), which
    # adds the level tables.
    changed = SourceDocument(doc_id="d5", text="Item5 moved to group9. Fresh words here.")
    ChunkIngestor(s, ChunkingSettings()).ingest_documents([changed, *docs[100:]])
    levels = s.level_tables
    assert levels is not None
    assert read_kb_meta(s.db)[SYNCED_KEY] == str(s.db.open_table("chunks").version)
    assert {lv: t.count_rows() for lv, t in levels.tables.items()} == s.chunk_counts()
    dense, _ = s._indexed(s.embed_query("Item7"), None, ["sentence"], None, 5)
    assert dense and all(r["_level"] == "sentence" for r, _ in dense)
    assert s.search("Fresh words here", level="sentence", top_k=1)[0].chunk.doc_id == "d5"
    assert s.search("Item104 group6", level="paragraph", top_k=1)[0].chunk.doc_id == "d104"
    exact = LanceChunkStore(tmp_path / "exact", HashEmbeddings(32))
    exact.open()
    ChunkIngestor(exact, ChunkingSettings()).ingest_documents(
        [d for d in docs if d.doc_id not in {"d5", "d6"}] + [changed]
    )
    # Dense only: BM25 statistics of a full-text index that saw deletions differ slightly
    # from a fresh one's (LanceDB's, not the level tables' doing).
    for query, _, level, doc_ids in SEARCHES:
        kwargs: dict[str, Any] = {"mode": "dense", "level": level, "top_k": 5, "doc_ids": doc_ids}
        assert _ranking(s.search(query, **kwargs)) == _ranking(exact.search(query, **kwargs))


def test_level_tables_follow_writes_and_step_aside_when_out_of_date(tmp_path: Path) -> None:
    """Ingests and deletions reach the level tables (recorded as synced); a write to
    ``chunks`` that does not (a writer that does not know them) leaves them out of date:
    the store then searches ``chunks`` alone, and ``optimize()`` rebuilds them."""
    from kg_rag.embedder_choice import read_kb_meta
    from kg_rag.stores._level_tables import SYNCED_KEY

    s = _large_store(tmp_path / "kb")
    docs = _numbered_docs(100)
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(docs)
    changed = SourceDocument(doc_id="d9", text="Item9 sailed away. Quiet harbour words.")
    ChunkIngestor(s, ChunkingSettings()).ingest_documents([changed])
    s.delete_document("d8")
    levels = s.level_tables
    assert levels is not None
    assert {lv: t.count_rows() for lv, t in levels.tables.items()} == s.chunk_counts()
    assert read_kb_meta(s.db)[SYNCED_KEY] == str(s.db.open_table("chunks").version)
    top = s.search("Quiet harbour words", mode="dense", level="sentence", top_k=1)
    assert top[0].chunk.text == "Quiet harbour words."
    assert "d8" not in {h.chunk.doc_id for h in s.search("Item8 group1", top_k=20)}
    # Behind the store's back: chunks moves on, the level tables do not.
    s.db.open_table("chunks").delete("doc_id = 'd7'")
    s.close()
    s = _large_store(tmp_path / "kb")
    assert s.has_ann_index and s.level_tables is None
    found = s.search("Item7 group0", mode="dense", level="paragraph", top_k=20)
    assert found and "d7" not in {h.chunk.doc_id for h in found}
    s.optimize()
    levels = s.level_tables
    assert levels is not None
    assert {lv: t.count_rows() for lv, t in levels.tables.items()} == s.chunk_counts()
    found = s.search("Item7 group0", mode="dense", level="paragraph", top_k=20)
    assert found and "d7" not in {h.chunk.doc_id for h in found}


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        (["d3-p", "d1-s0"], ["d3-p", "d1-s0"]),  # the order asked
        (["nope", "d2-s1", "d2-s1x"], ["d2-s1"]),  # ids not stored are left out
        (["d0-p"], ["d0-p"]),  # the first id in sort order
        (["d4-s1"], ["d4-s1"]),  # the last
        (["a", "zzz"], []),  # before the first, after the last
        ([], []),
    ],
)
def test_row_ids_find_stored_ids(tmp_path: Path, asked: list[str], expected: list[str]) -> None:
    import lancedb
    import pyarrow as pa

    from kg_rag.stores._chunk_search import RowIds, run_lance

    ids = [f"d{d}-{k}" for d in range(5) for k in ("p", "s0", "s1")]
    table = lancedb.connect(str(tmp_path)).create_table(
        "t", pa.table({"chunk_id": ids[::-1], "n": list(range(len(ids)))})
    )
    rows = RowIds({"": table}).find(asked)
    assert all("_level" not in r for r in rows)
    assert [r["chunk_id"] for r in rows] == expected
    taken = run_lance(table._table.take_row_ids([r["_rowid"] for r in rows]).to_arrow())
    assert taken.column("chunk_id").to_pylist() == expected


def test_reads_by_id_past_the_threshold_take_by_row_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the threshold the first search reads chunk id → row id once; reads by id then
    take rows by row id instead of a filtered scan (an id not among them is still read by
    filter). A write forgets the row ids and a read never reads them: ingest reads by id
    after each batch write."""
    import kg_rag.stores.chunks as chunks_module

    s = _large_store(tmp_path / "kb")
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(_numbered_docs(60))
    assert s._row_ids is None
    wanted = [c.chunk_id for c in s.chunks_for_documents(["d3", "d50"])]
    s.clear_caches()
    assert s._row_ids is None and s.get_chunks(wanted)  # a read does not build them
    assert s._row_ids is None
    s.search("Item3 group3", level="paragraph", top_k=2)
    row_ids = s._row_ids
    assert row_ids is not None and len(row_ids) == 360
    s.clear_caches()  # forgets reads, not the row ids
    assert s._row_ids is row_ids
    scans: list[str] = []
    real = chunks_module.scan
    monkeypatch.setattr(
        chunks_module,
        "scan",
        lambda table, where, cols: scans.append(where) or real(table, where, cols),
    )
    s.clear_caches()
    s.search("Item3 group3", level="paragraph", top_k=2)
    got = s.get_chunks([*wanted, "ch_missing"])
    assert [c.chunk_id for c in got] == wanted and got[0].doc_id == "d3"
    assert scans == ["chunk_id IN ('ch_missing')"]
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(
        [SourceDocument(doc_id="d3", text="Item3 left. Nothing else.")]
    )
    assert s._row_ids is None
    assert [c.doc_id for c in s.get_chunks(wanted)] == ["d50"] * len(
        [w for w in wanted if w in {c.chunk_id for c in s.chunks_for_documents(["d50"])}]
    )


def test_row_ids_over_several_tables_tag_their_rows(tmp_path: Path) -> None:
    import lancedb
    import pyarrow as pa

    from kg_rag.stores._chunk_search import RowIds

    db = lancedb.connect(str(tmp_path))
    para = db.create_table("p", pa.table({"chunk_id": ["b", "d"]}))
    sent = db.create_table("s", pa.table({"chunk_id": ["a", "c", "e"]}))
    rows = RowIds({"paragraph": para, "sentence": sent}).find(["e", "b", "x", "a"])
    assert [(r["chunk_id"], r["_level"]) for r in rows] == [
        ("e", "sentence"),
        ("b", "paragraph"),
        ("a", "sentence"),
    ]
