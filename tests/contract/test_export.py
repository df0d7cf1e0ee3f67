"""``export_to_neo4j`` copies an embedded knowledge base into Neo4j, idempotently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import contract_data as data
import lancedb
import pytest

from kg_rag.config import Neo4jSettings
from kg_rag.stores.embedded import EmbeddedGraphStore
from kg_rag.stores.export import export_to_neo4j
from kg_rag.stores.neo4j import Neo4jGraphStore

pytestmark = [pytest.mark.contract, pytest.mark.neo4j]


def state(store: Any) -> tuple[Any, ...]:
    return (
        store.counts(),
        store.all_entities(),
        store.all_relations(),
        store.all_mentions(),
        store.communities(),
        sorted(store.to_networkx().edges(data="weight")),
        store.personalized_pagerank({"e_alice": 1.0}, max_hops=None),
    )


def test_export_copies_everything_and_is_idempotent(
    tmp_path: Path, clean_neo4j: tuple[Neo4jSettings, Any]
) -> None:
    settings, driver = clean_neo4j
    kb = tmp_path / "kb"
    embedded = EmbeddedGraphStore(kb)
    embedded.open()
    data.load(embedded)
    embedded.upsert_chunks([data.chunk("c2", "Bob works at Acme too.")])
    # The chunk layer's table, as the ingest pipeline writes it (text plus other columns).
    lancedb.connect(str(kb)).create_table(
        "chunks",
        data=[
            {
                "chunk_id": c,
                "doc_id": d,
                "level": "paragraph",
                "text": f"Text of {c}. " * 40,
                "vector": [0.1, 0.2],
            }
            for c, d in [*data.CHUNK_DOCS.items(), ("c_unmentioned", "d1")]
        ],
    )
    lancedb.connect(str(kb)).create_table(
        "documents",
        data=[
            {"doc_id": d, "source": f"{d}.md", "title": f"Title {d}", "version": 2, "text": "..."}
            for d in ["d1", "d2", "d3", "d_not_in_graph"]
        ],
    )
    neo = Neo4jGraphStore(settings, driver=driver)
    neo.open()
    try:
        counts = export_to_neo4j(embedded, neo, progress=False)
        assert counts == {
            "entities": 8,
            "relations": 9,
            "chunks": 6,
            "mentions": 16,
            "documents": 3,
            "communities": 3,
        }
        titles = driver.execute_query(
            "MATCH (d:Document) RETURN d.doc_id AS id, d.title AS title ORDER BY id"
        ).records
        assert [(r["id"], r["title"]) for r in titles] == [
            ("d1", "Title d1"),
            ("d2", "Title d2"),
            ("d3", "Title d3"),
        ]
        assert state(neo) == state(embedded)
        previews = {c.chunk_id: c.preview for c in neo.all_chunks()}
        assert previews["c2"] == "Bob works at Acme too."  # the graph's own preview wins
        assert previews["c1"] == ("Text of c1. " * 40)[:200]
        assert "c_unmentioned" not in previews

        export_to_neo4j(embedded, neo, progress=False)
        assert state(neo) == state(embedded)
        assert neo.counts()["chunks"] == 6

        export_to_neo4j(embedded, neo, progress=False, all_chunks=True)
        assert neo.counts()["chunks"] == 7
    finally:
        neo.close()
        embedded.close()
