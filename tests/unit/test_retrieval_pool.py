"""Pool rescoring (``RouterSettings.step_search = "pool"``): a graph-routed step ranks what
the whole question and the graph already found instead of searching the corpus again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import open_demo_engine

from kg_rag.config import ChunkingSettings
from kg_rag.demo import DEMO_QUESTIONS
from kg_rag.ingest.pipeline import ChunkIngestor, SourceDocument
from kg_rag.models import Evidence
from kg_rag.retrieval.chunks import hits_to_evidence, rescore_pool
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

DOCS = [
    ("tower", "The Eiffel Tower stands in Paris. It opened in 1889. It is 330 metres tall."),
    ("seine", "The Seine is a river. It flows through Paris to the sea."),
    ("louvre", "The Louvre holds the Mona Lisa. It opens at nine every morning."),
    ("beijing", "北京是中国的首都。故宫位于北京市中心。"),
    ("harbour", "The harbour of Marseille is old. Ferries leave it for Corsica daily."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> LanceChunkStore:
    s = LanceChunkStore(tmp_path_factory.mktemp("pool") / "kb", HashEmbeddings(64))
    s.open()
    ChunkIngestor(s, ChunkingSettings()).ingest_documents(
        [SourceDocument(doc_id=d, title=d, text=t) for d, t in DOCS]
    )
    return s


def _pool(store: LanceChunkStore) -> list[Evidence]:
    chunks = store.chunks_for_documents([d for d, _ in DOCS], level="paragraph")
    return [
        Evidence(
            chunk_id=c.chunk_id,
            doc_id=c.doc_id,
            text=c.text,
            score=0.0,
            char_start=c.char_start,
            char_end=c.char_end,
        )
        for c in chunks
    ]


@pytest.mark.parametrize(
    ("query", "doc", "sentence"),
    [
        ("When did the Eiffel Tower open", "tower", "It opened in 1889."),
        ("Which river flows to the sea", "seine", "It flows through Paris to the sea."),
        ("Where is the Mona Lisa", "louvre", "The Louvre holds the Mona Lisa."),
        ("故宫位于哪里", "beijing", "故宫位于北京市中心。"),
        (
            "Where do the ferries from Marseille go",
            "harbour",
            "Ferries leave it for Corsica daily.",
        ),
    ],
)
def test_the_pool_is_ranked_by_its_words_and_sentence_vectors(
    store: LanceChunkStore, query: str, doc: str, sentence: str
) -> None:
    ranked = rescore_pool(store, query, _pool(store), "sentence")
    assert [e.doc_id for e in ranked].count(doc) == 1 and ranked[0].doc_id == doc
    assert ranked[0].scores["relative"] == ranked[0].score == max(e.score for e in ranked)
    # The piece carries its sentence nearest the query by the stored vectors, as small-to-big
    # does (the hash embedder's vectors carry no meaning: which sentence that is, is not
    # asserted), and the sentence is one of the piece's.
    sims = store.sentence_similarity(query, [doc])[doc]
    best = max(sims, key=lambda s: (s[2], -s[0]))  # ties: the first sentence
    hit = (int(ranked[0].scores["hit_start"]), int(ranked[0].scores["hit_end"]))
    assert hit == best[:2] and ranked[0].char_start <= hit[0] < hit[1] <= ranked[0].char_end
    assert sentence in ranked[0].text
    # Paragraph granularity hands the piece whole: no hit sentence.
    whole = rescore_pool(store, query, _pool(store), "paragraph")
    assert whole[0].doc_id == doc and "hit_start" not in whole[0].scores


def test_the_pool_agrees_with_the_corpus_search_when_it_holds_the_corpus(
    store: LanceChunkStore,
) -> None:
    # With every paragraph in the pool, the pool's best piece is the corpus search's best.
    for query in ("Eiffel Tower 1889", "Seine river sea", "Mona Lisa Louvre", "Corsica ferries"):
        corpus = hits_to_evidence(store.search(query, mode="hybrid", level="paragraph", top_k=3))
        pooled = rescore_pool(store, query, _pool(store), "paragraph")
        assert pooled[0].chunk_id == corpus[0].chunk_id, query


def test_an_empty_pool_gives_nothing(store: LanceChunkStore) -> None:
    assert rescore_pool(store, "anything", [], "paragraph") == []


@pytest.mark.parametrize("step_search", ["pool", "corpus"])
def test_graph_steps_search_the_corpus_only_when_asked(
    demo_kb: Path, step_search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kg = open_demo_engine(demo_kb, step_search=step_search)
    searched: list[str] = []
    search = kg.pipeline.chunks.search

    def counted(query: str, *args: Any, **kwargs: Any) -> list[Evidence]:
        searched.append(query)
        return search(query, *args, **kwargs)

    monkeypatch.setattr(kg.pipeline.chunks, "search", counted)
    try:
        answer = kg.ask(DEMO_QUESTIONS[0])
    finally:
        kg.close()
    steps = answer.trace.steps
    graph = [
        s
        for s in steps
        if s.decision.route == "graph" and s.decision.granularity in ("paragraph", "sentence")
    ]
    assert graph, "the demo's first question takes the graph route"
    assert DEMO_QUESTIONS[0] in searched  # the whole question is searched either way
    graph_queries = {s.bound_query for s in graph}
    if step_search == "pool":
        assert not graph_queries & set(searched), "graph steps rescored the pool"
    else:
        assert graph_queries <= set(searched), "graph steps searched the corpus"
    assert answer.text.startswith("North Brabant"), answer.render_text()
