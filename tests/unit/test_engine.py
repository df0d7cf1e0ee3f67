"""The Python API of ``KnowledgeEngine``: sync and async faces, use inside a running event loop
(Jupyter), delete, incremental re-ingest, the LangChain retriever, and opening errors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from langchain_core.documents import Document as LCDocument

from kg_rag.answer.trace import Citation
from kg_rag.demo import DEMO_QUESTIONS, corpus_path
from kg_rag.engine import KnowledgeEngine, run_sync
from kg_rag.errors import SchemaMismatch
from kg_rag.ingest.pipeline import SourceDocument
from kg_rag.models import Evidence
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

EngineFactory = Callable[..., KnowledgeEngine]
IDS = [f"q{i + 1}" for i in range(len(DEMO_QUESTIONS))]
PROVINCE_Q = DEMO_QUESTIONS[0]  # answered through eindhoven.html (→ North Brabant)


def chunk_ids(items: Sequence[Evidence | Citation]) -> list[str]:
    return [e.chunk_id for e in items]


# -- sync / async / running loop -------------------------------------------------------------


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_sync_and_async_give_the_same_evidence(demo_engine: KnowledgeEngine, question: str) -> None:
    sync_evidence = demo_engine.retrieve(question)
    async_evidence = asyncio.run(demo_engine.aretrieve(question))
    assert len(sync_evidence) == demo_engine.settings.retrieval.top_k
    assert chunk_ids(sync_evidence) == chunk_ids(async_evidence)
    sync_answer = demo_engine.ask(question)
    async_answer = asyncio.run(demo_engine.aask(question))
    assert sync_answer.text == async_answer.text
    assert chunk_ids(sync_answer.citations) == chunk_ids(async_answer.citations)


async def test_aask_and_aretrieve_from_async_code(demo_engine: KnowledgeEngine) -> None:
    answer, evidence = await asyncio.gather(
        demo_engine.aask(DEMO_QUESTIONS[2]), demo_engine.aretrieve(DEMO_QUESTIONS[2], top_k=3)
    )
    assert answer.text.startswith("Malmö")
    assert len(evidence) == 3
    assert [e.score for e in evidence] == sorted((e.score for e in evidence), reverse=True)


def test_ask_works_inside_a_running_event_loop(demo_engine: KnowledgeEngine) -> None:
    async def notebook_cell() -> tuple[str, int, int]:
        asyncio.get_running_loop()  # a Jupyter cell runs inside the kernel's loop
        answer = demo_engine.ask(DEMO_QUESTIONS[2])  # the sync face, called from the loop
        evidence = demo_engine.retrieve(DEMO_QUESTIONS[2], top_k=2)
        return answer.text, len(evidence), run_sync(asyncio.sleep(0, result=7))

    text, n, seven = asyncio.run(notebook_cell())
    assert text.startswith("Malmö") and n == 2 and seven == 7


def test_retrieve_respects_top_k_and_orders_best_first(demo_engine: KnowledgeEngine) -> None:
    for k in (1, 3, 8):
        evidence = demo_engine.retrieve(PROVINCE_Q, top_k=k)
        assert len(evidence) == k
        assert [e.score for e in evidence] == sorted((e.score for e in evidence), reverse=True)
        assert len(set(chunk_ids(evidence))) == k


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_retrieve_returns_the_passages_the_answer_cites(
    demo_engine: KnowledgeEngine, question: str
) -> None:
    answer = demo_engine.ask(question)
    retrieved = set(chunk_ids(demo_engine.retrieve(question)))
    assert len(answer.citations) <= demo_engine.settings.retrieval.top_k
    missing = [c.quote for c in answer.citations if c.chunk_id not in retrieved]
    assert not missing, f"retrieve() left out passages the answer is built on: {missing}"


# -- LangChain retriever -------------------------------------------------------------------


def test_as_retriever_returns_langchain_documents_with_chunk_ids(
    demo_engine: KnowledgeEngine,
) -> None:
    retriever = demo_engine.as_retriever(top_k=4)
    docs = retriever.invoke(DEMO_QUESTIONS[2])
    assert len(docs) == 4 and all(isinstance(d, LCDocument) for d in docs)
    assert [d.metadata["chunk_id"] for d in docs] == chunk_ids(
        demo_engine.retrieve(DEMO_QUESTIONS[2], top_k=4)
    )
    stored = {
        c.chunk_id: c
        for c in demo_engine.chunk_store.get_chunks([d.metadata["chunk_id"] for d in docs])
    }
    for d in docs:
        chunk = stored[d.metadata["chunk_id"]]
        assert d.page_content == chunk.text
        assert d.metadata["doc_id"] == chunk.doc_id
        assert (d.metadata["char_start"], d.metadata["char_end"]) == (
            chunk.char_start,
            chunk.char_end,
        )
    async_docs = asyncio.run(retriever.ainvoke(DEMO_QUESTIONS[2]))
    assert [d.metadata["chunk_id"] for d in async_docs] == [d.metadata["chunk_id"] for d in docs]


# -- delete and re-ingest ------------------------------------------------------------------


def test_delete_removes_chunks_and_orphaned_entities_and_changes_answers(
    kb_copy: Path, engine_with: EngineFactory
) -> None:
    kg = engine_with(kb_copy)
    assert kg.ask(PROVINCE_Q).text.startswith("North Brabant")
    before = kg.stats()
    chunks_before = sum(kg.chunk_store.chunk_counts().values())
    own_chunks = kg.chunk_store.chunks_for_documents(["eindhoven.html"])
    assert own_chunks

    assert kg.delete("eindhoven.html") is True

    after = kg.stats()
    assert after["documents"] == before["documents"] - 1
    assert sum(kg.chunk_store.chunk_counts().values()) == chunks_before - len(own_chunks)
    assert kg.chunk_store.chunks_for_documents(["eindhoven.html"]) == []
    assert kg.chunk_store.get_document("eindhoven.html") is None
    for key in ("entities", "relations", "mentions", "chunks"):
        assert after[key] < before[key], key
    names = {e.name for e in kg.graph_store.all_entities()}
    assert "North Brabant" not in names, "an entity only that document mentioned must go"
    assert "Eindhoven" in names, "an entity another document still mentions must stay"
    assert all(m.doc_id != "eindhoven.html" for m in kg.graph_store.all_mentions())

    answer = kg.ask(PROVINCE_Q)
    assert "North Brabant" not in answer.text
    assert all(e.doc_id != "eindhoven.html" for e in answer.evidence)
    assert all(h.doc_id != "eindhoven.html" for s in answer.trace.steps for h in s.hits)
    assert kg.delete("eindhoven.html") is False


def test_reingesting_an_unchanged_corpus_extracts_nothing(
    kb_copy: Path, engine_with: EngineFactory
) -> None:
    kg = engine_with(kb_copy)
    before = kg.stats()
    report = kg.ingest([corpus_path()])
    assert report.documents_unchanged == before["documents"]
    assert report.documents_added == report.documents_updated == 0
    assert report.embeddings_computed == 0
    assert report.graph is not None and report.graph.chunks_extracted == 0
    assert kg.stats() == before


def test_reingest_after_delete_extracts_only_that_document(
    kb_copy: Path, engine_with: EngineFactory
) -> None:
    kg = engine_with(kb_copy)
    before = kg.stats()
    kg.delete("eindhoven.html")
    report = kg.ingest([corpus_path()])
    assert report.documents_added == 1 and report.changed_doc_ids == ["eindhoven.html"]
    extraction_level = kg.settings.extraction.level
    expected = len(kg.chunk_store.chunks_for_documents(["eindhoven.html"], level=extraction_level))
    assert report.graph.chunks_extracted == expected > 0
    assert kg.stats() == before
    assert kg.ask(PROVINCE_Q).text.startswith("North Brabant")


def test_ingest_source_documents_from_the_caller(kb_copy: Path, engine_with: EngineFactory) -> None:
    kg = engine_with(kb_copy)
    note = SourceDocument(
        doc_id="note-quillon",
        title="Quillon Ventures",
        text="Quillon Ventures is a fund based in Porto. Quillon Ventures was founded by Ada Brennan in 1999.",
    )
    report = kg.ingest([note])
    assert report.documents_added == 1 and report.graph.chunks_extracted > 0
    answer = kg.ask("Who founded Quillon Ventures?")
    assert answer.text.startswith("Ada Brennan")
    assert any(c.doc_id == "note-quillon" for c in answer.citations)


# -- opening -----------------------------------------------------------------------------------


def test_opening_with_another_embedder_is_refused(demo_kb: Path) -> None:
    with pytest.raises(SchemaMismatch, match="hash-256"):
        KnowledgeEngine.open(demo_kb, embedder=HashEmbeddings(64), progress=False)


def test_stats_count_documents_and_graph_records(demo_engine: KnowledgeEngine) -> None:
    stats = demo_engine.stats()
    assert stats["documents"] == len(list(corpus_path().iterdir()))
    assert stats["entities"] == len(demo_engine.graph_store.all_entities())
    assert stats["relations"] == len(demo_engine.graph_store.all_relations())
    assert stats["communities"] > 0


def test_question_spans_link_by_entity_vectors_when_names_differ(tmp_path: Path) -> None:
    from kg_rag.config import Settings
    from kg_rag.demo import corpus_path
    from kg_rag.testing import HashEmbeddings

    settings = Settings(kb_dir=tmp_path / "kb")
    settings.extraction.embed_entities = True
    with KnowledgeEngine.open(settings=settings, embedder=HashEmbeddings(64), progress=False) as kg:
        kg.ingest([corpus_path()], communities=False)
        stored = kg.graph_store.get_entities([e.entity_id for e in kg.graph_store.all_entities()])
        assert stored and all(e.vector for e in stored)
        linker = kg.pipeline.linker
        assert linker is not None
        # "Brightwell Robotics Headquarters" is no entity name or alias; its hashed vector
        # shares two of three words with the "Brightwell Robotics" entity.
        linked = linker.link("Tell me about Brightwell Robotics Headquarters")
        methods = {le.name: le.method for le in linked}
        assert methods.get("Brightwell Robotics") in {"exact", "vector"}
        linker.vector_threshold = 0.0
        vec = linker._vector_match("Brightwell Robotics Headquarters")
        assert vec and vec[0] in {e.entity_id for e in stored if e.name == "Brightwell Robotics"}


def test_fast_retrieve_is_the_whole_question_search_without_planning(
    demo_engine: KnowledgeEngine,
) -> None:
    question = DEMO_QUESTIONS[0]
    fast = demo_engine.retrieve(question, top_k=5, depth="fast")
    answer = demo_engine.ask(question)
    assert answer.trace.whole_question is not None
    whole = [e.chunk_id for e in answer.trace.whole_question.hits[:5]]
    assert [e.chunk_id for e in fast] == whole
    # The full retrieval also holds the chunk with the last hop's answer (North Brabant),
    # which the whole-question search alone does not rank first.
    full = demo_engine.retrieve(question, top_k=5)
    assert any("North Brabant" in e.text for e in full)
    assert [e.chunk_id for e in full] != whole


def test_removing_a_file_recomputes_communities_without_its_entities(tmp_path: Path) -> None:
    import shutil

    from kg_rag.testing import HashEmbeddings

    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_path(), corpus)
    with KnowledgeEngine.open(tmp_path / "kb", embedder=HashEmbeddings(64), progress=False) as kg:
        kg.ingest([corpus])
        (corpus / "orchard-systems.md").unlink()
        report = kg.ingest([corpus], remove_missing=True)
        assert report.removed_doc_ids and report.communities is not None
        alive = {e.entity_id for e in kg.graph_store.all_entities()}
        members = {m for c in kg.graph_store.communities() for m in c.members}
        assert members and members <= alive
        indexed = {m for c in kg.community_index.all() for m in c.members}
        assert indexed <= alive
