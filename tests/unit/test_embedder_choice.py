"""Per-knowledge-base embedder choice (``model="auto"``) and the ``reembed`` migration.

The models are stood in for by named hash embedders (fast, deterministic; each has its own
name, so the knowledge base's record tells them apart); one test runs the real e5 end to end.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kg_rag.config import EmbeddingSettings, ExtractionSettings, LLMSettings, Settings
from kg_rag.embedder_choice import (
    choose_model,
    detect_languages,
    is_auto,
    read_kb_meta,
    recorded_model,
    sample_texts,
    write_kb_meta,
)
from kg_rag.engine import KnowledgeEngine
from kg_rag.errors import ConfigError, SchemaMismatch
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.multilingual import E5SmallEmbeddings
from kg_rag.reembed import reembed
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit


class NamedHash(HashEmbeddings):
    """A hash embedder posing as a local model (its own name, size and language claim)."""

    def __init__(self, name: str, dimensions: int, *, english_only: bool = False) -> None:
        super().__init__(dimensions)
        self.model_name = name
        self.english_only = english_only
        self.salt = name

    def _embed(self, text: str) -> list[float]:
        # Another "model" gives other vectors for the same text.
        return super()._embed(f"{self.salt} {text}")


FAKES = {
    "all-MiniLM-L6-v2": ("all-MiniLM-L6-v2", 24, True),
    "multilingual-e5-small": ("multilingual-e5-small", 24, False),
    "use-multilingual-v3": ("use-multilingual-v3", 32, False),
}


def fake_local(model: str, batch_size: int = 64) -> HashEmbeddings:
    name, dim, english = FAKES[model]
    return NamedHash(name, dim, english_only=english)


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kg_rag.engine.local_embedder", fake_local)
    monkeypatch.setattr("kg_rag.reembed.local_embedder", fake_local)
    import kg_rag.embeddings

    monkeypatch.setattr(kg_rag.embeddings, "local_embedder", fake_local)


def settings_for(kb: Path, model: str, **extraction: object) -> Settings:
    return Settings(
        kb_dir=kb,
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="local", model=model),
        extraction=ExtractionSettings(**extraction),  # type: ignore[arg-type]
    )


ZH_DOCS = [
    SourceDocument(doc_id="a", title="林秋白", text="林秋白出生于沅柯镇，毕业于北辰大学物理系。"),
    SourceDocument(
        doc_id="b", title="北辰大学", text="北辰大学于1921年在霁川市创办，首任校长是周慕远。"
    ),
    SourceDocument(
        doc_id="c",
        title="Halvorsen Labs",
        text="Halvorsen Labs was founded in Brackwater by Ingrid Halvorsen.",
    ),
]
EN_DOCS = [
    SourceDocument(
        doc_id="x", title="Brackwater", text="Brackwater is a town on the Brack River in Eastmarch."
    ),
    SourceDocument(
        doc_id="y",
        title="Ingrid Halvorsen",
        text="Ingrid Halvorsen studied at Keswick Polytechnic, says 陈墨.",
    ),
]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["林秋白毕业于北辰大学。"], ["cjk"]),
        (["Halvorsen Labs is in Brackwater."], ["latin"]),
        (["陈墨在 Halvorsen Labs 工作，研发了 RiverEye 传感器。"], ["cjk"]),
        (["The translator Maya Lindqvist rendered 《北风手记》 into English."], ["latin"]),
        (["第一段中文。", "An English paragraph."], ["cjk", "latin"]),
        (["東京は日本の首都です。"], ["cjk"]),
        (["", "   \n"], []),
        ([], []),
    ],
)
def test_detect_languages(texts: list[str], expected: list[str]) -> None:
    assert detect_languages(texts) == expected


def test_choose_model_follows_the_settings() -> None:
    s = EmbeddingSettings(model="auto")
    assert choose_model(["latin"], s) == "all-MiniLM-L6-v2"
    assert choose_model(["cjk"], s) == "multilingual-e5-small"
    assert choose_model(["cjk", "latin"], s) == "multilingual-e5-small"
    custom = EmbeddingSettings(model="auto", multilingual_model="use-multilingual-v3")
    assert choose_model(["cjk"], custom) == "use-multilingual-v3"
    both = EmbeddingSettings(model="auto", english_model="multilingual-e5-small")
    assert choose_model(["latin"], both) == "multilingual-e5-small"


@pytest.mark.parametrize(
    ("texts", "model"),
    [
        (["Brackwater is a town on the Brack River."], "all-MiniLM-L6-v2"),
        (["The translator rendered 《北风手记》 into English in 1998."], "all-MiniLM-L6-v2"),
        (["林秋白毕业于北辰大学，后来在鹭屿市工作。"], "multilingual-e5-small"),
        (["陈墨在 Halvorsen Labs 工作，研发了 RiverEye 传感器。"], "multilingual-e5-small"),
        (["An English report.", "另一份中文报告。"], "multilingual-e5-small"),
        (["東京は日本の首都です。"], "multilingual-e5-small"),
        (["서울은 한국의 수도이다."], "multilingual-e5-small"),
    ],
)
def test_auto_settings_choose_by_corpus(texts: list[str], model: str) -> None:
    """``auto`` (the default): English corpora keep MiniLM, Chinese/mixed ones get e5."""
    assert is_auto(EmbeddingSettings())
    settings = EmbeddingSettings()
    assert is_auto(settings)
    assert choose_model(detect_languages(texts), settings) == model
    assert not is_auto(EmbeddingSettings(model="all-MiniLM-L6-v2"))
    assert not is_auto(EmbeddingSettings(provider="hash"))


def test_sample_texts_reads_folders_and_documents(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(10):
        (folder / f"{i:02d}.txt").write_text(f"第{i}篇文档。" * 3, encoding="utf-8")
    (folder / "skip.md").write_text("English only", encoding="utf-8")
    texts = sample_texts([folder], exclude=["*.md"], limit=4)
    assert 1 <= len(texts) <= 4 and all("文档" in t for t in texts)
    assert sample_texts(ZH_DOCS, limit=2) == [ZH_DOCS[0].text, ZH_DOCS[1].text]
    assert sample_texts([tmp_path / "missing"]) == []


def test_auto_picks_multilingual_for_chinese_and_records_it(
    tmp_path: Path, fake_models: None
) -> None:
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(settings=settings_for(kb, "auto")) as kg:
        assert kg.choose_embedder and kg.embedder.model_name == "all-MiniLM-L6-v2"  # type: ignore[attr-defined]
        kg.ingest(ZH_DOCS)
        assert kg.embedder.model_name == "multilingual-e5-small"  # type: ignore[attr-defined]
        assert kg.chunk_store.search("北辰大学", mode="dense", top_k=1)
    meta = read_kb_meta(kb)
    assert meta["embedding_model"] == "multilingual-e5-small"
    assert meta["embedding_selection"] == "auto"
    assert meta["corpus_languages"] == "cjk,latin"
    # Reopened with auto: the recorded model, and a later English ingest does not switch it.
    with KnowledgeEngine.open(settings=settings_for(kb, "auto")) as kg:
        assert not kg.choose_embedder
        assert kg.embedder.model_name == "multilingual-e5-small"  # type: ignore[attr-defined]
        kg.ingest(EN_DOCS)
        assert recorded_model(kb) == "multilingual-e5-small"
        assert kg.stats()["documents"] == 5


@pytest.mark.parametrize(
    ("docs", "model", "languages"),
    [
        (EN_DOCS, "all-MiniLM-L6-v2", "latin"),
        (ZH_DOCS[:2], "multilingual-e5-small", "cjk"),
    ],
)
def test_auto_on_a_new_kb(
    tmp_path: Path, fake_models: None, docs: list[SourceDocument], model: str, languages: str
) -> None:
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(settings=settings_for(kb, "auto")) as kg:
        kg.ingest(docs)
    meta = read_kb_meta(kb)
    assert (meta["embedding_model"], meta["corpus_languages"]) == (model, languages)


def test_forced_model_against_another_record_says_how_to_migrate(
    tmp_path: Path, fake_models: None
) -> None:
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(settings=settings_for(kb, "auto")) as kg:
        kg.ingest(ZH_DOCS)
    with pytest.raises(SchemaMismatch, match=r"kg-rag ingest --reembed"):
        KnowledgeEngine.open(settings=settings_for(kb, "all-MiniLM-L6-v2"))
    # A knowledge base built with a non-local embedder is not opened by auto.
    hashed = tmp_path / "hashed"
    with KnowledgeEngine.open(
        hashed, settings=settings_for(hashed, "auto"), embedder=HashEmbeddings(8)
    ) as kg:
        kg.ingest(EN_DOCS, graph=False)
    with pytest.raises(SchemaMismatch, match="'hash-8', which is not a local model"):
        KnowledgeEngine.open(settings=settings_for(hashed, "auto"))
    # A forced model is never switched, whatever the corpus.
    other = tmp_path / "kb2"
    with KnowledgeEngine.open(settings=settings_for(other, "all-MiniLM-L6-v2")) as kg:
        assert not kg.choose_embedder
        kg.ingest(ZH_DOCS)
    assert recorded_model(other) == "all-MiniLM-L6-v2"
    assert "embedding_selection" not in read_kb_meta(other)


def _graph_state(
    kg: KnowledgeEngine,
) -> tuple[list[tuple[str, str, str]], list[object], list[object]]:
    g = kg.graph_store
    entities = [(e.entity_id, e.name, e.type) for e in g.all_entities()]
    relations = sorted(
        (r.source_id, r.type, r.target_id, tuple(r.evidence)) for r in g.all_relations()
    )
    mentions = sorted((m.entity_id, m.chunk_id) for m in g.all_mentions())
    return entities, relations, mentions  # type: ignore[return-value]


def _chunk_vectors(kg: KnowledgeEngine) -> dict[str, np.ndarray]:
    table = kg.chunk_store.db.open_table("chunks").to_arrow()
    ids = table.column("chunk_id").to_pylist()
    vecs = table.column("vector").to_pylist()
    return {i: np.asarray(v, dtype=np.float32) for i, v in zip(ids, vecs, strict=True)}


@pytest.mark.parametrize("target", ["multilingual-e5-small", "use-multilingual-v3"])
def test_reembed_keeps_the_graph_and_replaces_every_vector(
    tmp_path: Path, fake_models: None, target: str
) -> None:
    """Same size (24 → 24) rewrites vectors in place; another size (24 → 32) rebuilds the
    chunks table. Either way the graph is untouched and the KB reopens with the new model."""
    kb = tmp_path / "kb"
    old = settings_for(kb, "all-MiniLM-L6-v2", embed_entities=True)
    with KnowledgeEngine.open(settings=old) as kg:
        kg.ingest(ZH_DOCS + EN_DOCS)
        graph_before = _graph_state(kg)
        vectors_before = _chunk_vectors(kg)
        entity_vectors = {e.entity_id: e.vector for e in kg.graph_store.all_entities()}
        communities_before = {c.community_id: c.summary for c in kg.community_index.all()}
        community_vectors = kg.community_index.vectors()
        dense_before = [h.chunk.chunk_id for h in kg.chunk_store.search("Brackwater", top_k=3)]
    assert graph_before[0] and graph_before[1] and communities_before
    assert all(v is not None for v in entity_vectors.values())

    new = settings_for(kb, target, embed_entities=True)
    report = reembed(new)
    assert (report.from_model, report.to_model) == ("all-MiniLM-L6-v2", target)
    assert report.chunks == len(vectors_before) and report.texts_embedded > 0
    assert report.entities == len(entity_vectors) and report.communities == len(communities_before)
    assert "graph is unchanged" in str(report)

    with pytest.raises(SchemaMismatch, match="--reembed"):
        KnowledgeEngine.open(settings=old)
    with KnowledgeEngine.open(settings=new) as kg:
        assert kg.embedder.model_name == target  # type: ignore[attr-defined]
        assert _graph_state(kg) == graph_before
        assert {c.community_id: c.summary for c in kg.community_index.all()} == communities_before
        after = _chunk_vectors(kg)
        assert after.keys() == vectors_before.keys()
        dim = FAKES[target][1]
        # Every vector is the new model's: exactly what a fresh ingest with it gives.
        fresh_kb = tmp_path / "fresh"
        with KnowledgeEngine.open(settings=settings_for(fresh_kb, target)) as fresh:
            fresh.ingest(ZH_DOCS + EN_DOCS, graph=False)
            expected = _chunk_vectors(fresh)
        for cid, vec in after.items():
            assert vec.shape == (dim,)
            assert np.allclose(vec, expected[cid], atol=1e-6)
            if dim == vectors_before[cid].shape[0]:
                assert not np.allclose(vec, vectors_before[cid])
        for e in kg.graph_store.all_entities():
            assert e.vector is not None and len(e.vector) == dim
            assert e.vector != entity_vectors[e.entity_id]
        assert all(len(v) == dim for v in kg.community_index.vectors().values())
        assert kg.community_index.vectors().keys() == community_vectors.keys()
        # Search and answering run on the migrated knowledge base (BM25 index rebuilt too).
        assert kg.chunk_store.search("Brackwater", mode="bm25", top_k=3)
        assert len(kg.chunk_store.search("Brackwater", mode="hybrid", top_k=3)) == len(dense_before)
        assert kg.ask("林秋白毕业于哪所大学？").text
    assert read_kb_meta(kb)["embedding_dimensions"] == str(FAKES[target][1])
    # Again with the same model: nothing to do.
    assert reembed(new).skipped


def test_engine_reembed_switches_the_open_engine(tmp_path: Path, fake_models: None) -> None:
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(settings=settings_for(kb, "all-MiniLM-L6-v2")) as kg:
        kg.ingest(ZH_DOCS)
        kg.settings.embedding.model = "auto"  # auto: the stored documents are Chinese
        report = kg.reembed()
        assert report.to_model == "multilingual-e5-small"
        assert kg.embedder.model_name == "multilingual-e5-small"  # type: ignore[attr-defined]
        assert kg.chunk_store.search("北辰大学", mode="dense", top_k=1)
    meta = read_kb_meta(kb)
    assert (meta["embedding_selection"], meta["corpus_languages"]) == ("auto", "cjk,latin")


def test_half_done_migration_blocks_opening(tmp_path: Path, fake_models: None) -> None:
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(settings=settings_for(kb, "all-MiniLM-L6-v2")) as kg:
        kg.ingest(EN_DOCS)
        write_kb_meta(kg.chunk_store.db, {"reembed_target": "use-multilingual-v3"})
    with pytest.raises(SchemaMismatch, match="half-way through a migration"):
        KnowledgeEngine.open(settings=settings_for(kb, "all-MiniLM-L6-v2"))
    # Running the migration again finishes it.
    report = reembed(settings_for(kb, "use-multilingual-v3"))
    assert not report.skipped
    with KnowledgeEngine.open(settings=settings_for(kb, "use-multilingual-v3")) as kg:
        assert kg.stats()["documents"] == 2
    with pytest.raises(ConfigError, match="No knowledge base"):
        reembed(settings_for(tmp_path / "nothing", "use-multilingual-v3"))


def test_real_e5_auto_end_to_end(tmp_path: Path) -> None:
    """The real multilingual-e5-small through auto: chosen for Chinese, no English-only
    warning, and the Chinese query finds its passage by dense search alone."""
    import logging

    kb = tmp_path / "kb"
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("kg_rag.ingest.pipeline").addHandler(handler)
    try:
        with KnowledgeEngine.open(settings=settings_for(kb, "auto")) as kg:
            kg.ingest(ZH_DOCS, graph=False)
            hits = kg.chunk_store.search(
                "林秋白在哪所大学读书", mode="dense", level="paragraph", top_k=1
            )
            embedder = kg.embedder
            late = kg.chunk_store.vectorizer.late_chunking
    finally:
        logging.getLogger("kg_rag.ingest.pipeline").removeHandler(handler)
    assert recorded_model(kb) == "multilingual-e5-small"
    assert hits[0].chunk.doc_id == "a"
    # The numpy e5 offers token states: its sentences were late-chunked.
    assert isinstance(embedder, E5SmallEmbeddings) and late
    assert not [r for r in records if "English-only" in r.getMessage()]


def test_cli_ingest_reembed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from kg_rag.cli import main

    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("KG_RAG_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("KG_RAG_EMBEDDING__PROVIDER", "hash")
    monkeypatch.setenv("KG_RAG_EMBEDDING__DIMENSIONS", "32")
    docs = tmp_path / "docs"
    docs.mkdir()
    for d in ZH_DOCS + EN_DOCS:
        (docs / f"{d.doc_id}.txt").write_text(f"{d.title}\n\n{d.text}", encoding="utf-8")
    kb = str(tmp_path / "kb")
    assert main(["ingest", str(docs), "--kb", kb]) == 0
    monkeypatch.setenv("KG_RAG_EMBEDDING__DIMENSIONS", "48")
    capsys.readouterr()
    assert main(["ingest", "--kb", kb]) == 2  # neither paths nor --reembed
    assert main(["ask", "Where is Brackwater?", "--kb", kb]) == 1
    assert "--reembed" in capsys.readouterr().err
    assert main(["ingest", "--reembed", "--kb", kb]) == 0
    assert "re-embedded hash-32 -> hash-48 (48-d)" in capsys.readouterr().out
    assert main(["ask", "Where is Brackwater?", "--kb", kb]) == 0
    assert main(["ingest", "--reembed", "--kb", kb]) == 0
    assert "nothing to do" in capsys.readouterr().out


@pytest.mark.parametrize("target", ["multilingual-e5-small", "use-multilingual-v3"])
def test_reembed_rebuilds_the_level_tables(tmp_path: Path, fake_models: None, target: str) -> None:
    """Past the ANN threshold the chunk store keeps a copy of each level's vectors in its
    level tables: a re-embedding (same size in place, or another size) drops them and the
    optimize() after it builds them again from the new vectors, so searches never compare a
    new query vector with an old chunk vector."""
    kb = tmp_path / "kb"

    def large(settings: Settings) -> Settings:
        settings.retrieval.ann_index_min_rows = 10
        settings.retrieval.ann_level_min_rows = 10**6  # exact per level: too few rows for PQ
        return settings

    with KnowledgeEngine.open(settings=large(settings_for(kb, "all-MiniLM-L6-v2"))) as kg:
        kg.ingest(ZH_DOCS + EN_DOCS, graph=False)
        assert kg.chunk_store.level_tables is not None
    reembed(large(settings_for(kb, target)))
    with KnowledgeEngine.open(settings=large(settings_for(kb, target))) as kg:
        levels = kg.chunk_store.level_tables
        assert levels is not None
        chunks = _chunk_vectors(kg)
        copies: dict[str, np.ndarray] = {}
        for table in levels.tables.values():
            rows = table.to_arrow()
            for cid, vec in zip(
                rows.column("chunk_id").to_pylist(), rows.column("vector").to_pylist(), strict=True
            ):
                copies[cid] = np.asarray(vec, dtype=np.float32)
        assert copies.keys() == chunks.keys()
        assert all(np.array_equal(copies[c], chunks[c]) for c in chunks)
        assert all(v.shape == (FAKES[target][1],) for v in copies.values())
        hits = kg.chunk_store.search("Brackwater", mode="dense", level="paragraph", top_k=2)
        assert hits and all(h.chunk.level == "paragraph" for h in hits)
