"""Fresh reads on the Neo4j backend: an engine opened before another engine ingests answers
from the new document without reopening (chunk tables, linker and PPR walk matrix refreshed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_rag.config import EmbeddingSettings, LLMSettings, Neo4jSettings, Settings
from kg_rag.demo import corpus_path
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.testing import HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

DIMS = 256
NEW_DOC = SourceDocument(
    doc_id="glimmerfen.md",
    format="md",
    text=(
        "# Glimmerfen Observatory\n\nThe Glimmerfen Observatory was founded by Zorvath "
        "Quenmere in 1931. Zorvath Quenmere directed the Glimmerfen Observatory until 1950."
    ),
)
QUESTION = "Who founded the Glimmerfen Observatory?"


def _open(kb: Path, neo4j: Neo4jSettings) -> KnowledgeEngine:
    settings = Settings(
        graph_backend="neo4j",
        neo4j=neo4j,
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
    )
    settings.kb_dir = kb
    settings.extraction.mode = "offline"
    return KnowledgeEngine.open(
        kb, settings=settings, embedder=HashEmbeddings(DIMS), progress=False
    )


def test_neo4j_engine_sees_another_engines_ingest(
    tmp_path: Path, empty_neo4j: Neo4jSettings
) -> None:
    kb = tmp_path / "kb"
    reader = _open(kb, empty_neo4j)
    try:
        reader.ingest([corpus_path()])
        before = reader.ask(QUESTION)
        assert NEW_DOC.doc_id not in {c.doc_id for c in before.citations}
        with _open(kb, empty_neo4j) as writer:
            writer.ingest([NEW_DOC])
        answer = reader.ask(QUESTION)
        assert NEW_DOC.doc_id in {c.doc_id for c in answer.citations}, answer.render_text()
        assert "Zorvath Quenmere" in answer.text
        assert reader.graph_store.find_entities("Zorvath Quenmere")
    finally:
        reader.close()
