"""Copy an embedded knowledge base into Neo4j (``kg-rag export neo4j --kb DIR``), for
exploring it in Neo4j Browser.

The copy is idempotent: every write is an upsert keyed by content-derived ids, and the
community layer is replaced, so exporting twice leaves Neo4j as after the first export.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tqdm import tqdm

from kg_rag.models import Document
from kg_rag.stores.embedded import EmbeddedGraphStore
from kg_rag.stores.neo4j import Neo4jGraphStore
from kg_rag.stores.ppr import CHUNK_PREVIEW_CHARS, ChunkRecord

__all__ = ["export_to_neo4j"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
CHUNK_TABLE = "chunks"
DOCUMENT_TABLE = "documents"
_STEP = 1000


def _chunk_previews(embedded: EmbeddedGraphStore, chunk_ids: set[str] | None) -> list[ChunkRecord]:
    """Chunk records with previews from the chunk layer's ``chunks`` table (if there is one).

    Args:
        embedded: The open embedded store (its folder holds the chunk layer too).
        chunk_ids: Only these chunks; ``None`` for every chunk in the table.
    """
    import lancedb

    db = lancedb.connect(str(embedded.path))
    try:
        table = db.open_table(CHUNK_TABLE)
    except (FileNotFoundError, ValueError):
        return []
    names = set(table.schema.names)
    if not {"chunk_id", "doc_id", "text"} <= names:
        logger.warning("the %r table has no chunk_id/doc_id/text columns; no previews", CHUNK_TABLE)
        return []
    columns = [
        c for c in ("chunk_id", "doc_id", "level", "parent_id", "ordinal", "text") if c in names
    ]
    rows = table.search().select(columns).limit(max(table.count_rows(), 1)).to_arrow().to_pylist()
    return [
        ChunkRecord(
            chunk_id=row["chunk_id"],
            doc_id=row["doc_id"],
            level=row.get("level"),
            parent_id=row.get("parent_id"),
            ordinal=row.get("ordinal"),
            preview=(row["text"] or "")[:CHUNK_PREVIEW_CHARS],
        )
        for row in rows
        if chunk_ids is None or row["chunk_id"] in chunk_ids
    ]


def _documents(embedded: EmbeddedGraphStore) -> list[Document]:
    """Documents from the chunk layer's ``documents`` table (if there is one), without text."""
    import lancedb

    db = lancedb.connect(str(embedded.path))
    try:
        table = db.open_table(DOCUMENT_TABLE)
    except (FileNotFoundError, ValueError):
        return []
    names = set(table.schema.names)
    if not {"doc_id", "source"} <= names:
        return []
    columns = [c for c in ("doc_id", "source", "title", "version", "content_hash") if c in names]
    rows = table.search().select(columns).limit(max(table.count_rows(), 1)).to_arrow().to_pylist()
    return [
        Document(
            doc_id=row["doc_id"],
            source=row["source"] or "",
            title=row.get("title") or "",
            version=row.get("version") or 1,
            content_hash=row.get("content_hash") or "",
        )
        for row in rows
    ]


def _send(
    items: Sequence[T], write: Callable[[Sequence[T]], None], bar: tqdm[Any], label: str
) -> int:
    bar.set_postfix_str(label)
    for start in range(0, len(items), _STEP):
        batch = items[start : start + _STEP]
        write(batch)
        bar.update(len(batch))
    return len(items)


def export_to_neo4j(
    embedded: EmbeddedGraphStore,
    neo4j: Neo4jGraphStore,
    progress: bool = True,
    *,
    all_chunks: bool = False,
) -> dict[str, int]:
    """Copy entities, relations, chunks (with previews), mentions, document titles and
    communities.

    Both stores must be open. Neo4j keeps anything it held before that the knowledge base
    does not contain (clear it first for a mirror).

    Args:
        embedded: The source knowledge base.
        neo4j: The destination.
        progress: Show a progress bar (only on a terminal).
        all_chunks: Also copy chunks that no entity is mentioned in (every level).

    Returns:
        Number of records copied per kind.
    """
    entities = embedded.all_entities()
    relations = embedded.all_relations()
    mentions = embedded.all_mentions()
    communities = embedded.communities()
    graph_chunks = {c.chunk_id: c for c in embedded.all_chunks()}
    previews = _chunk_previews(embedded, None if all_chunks else set(graph_chunks))
    for record in previews:
        known = graph_chunks.get(record.chunk_id)
        graph_chunks[record.chunk_id] = record if known is None or known.preview is None else known
    chunks = [graph_chunks[c] for c in sorted(graph_chunks)]

    total = len(entities) + len(relations) + len(chunks) + len(mentions) + len(communities)
    disable = not (progress and sys.stderr.isatty())
    with tqdm(total=total, desc="export to Neo4j", unit="rec", disable=disable) as bar:
        counts = {
            "entities": _send(entities, neo4j.upsert_entities, bar, "entities"),
            "relations": _send(relations, neo4j.upsert_relations, bar, "relations"),
            "chunks": _send(chunks, neo4j.upsert_chunk_records, bar, "chunks"),
            "mentions": _send(mentions, neo4j.upsert_mentions, bar, "mentions"),
        }
        documents = [d for d in _documents(embedded) if d.doc_id in {c.doc_id for c in chunks}]
        neo4j.annotate_documents(documents)
        counts["documents"] = len(documents)
        bar.set_postfix_str("communities")
        # One call: upsert_communities replaces the whole layer.
        neo4j.upsert_communities(communities)
        bar.update(len(communities))
        counts["communities"] = len(communities)
    logger.info("exported %s from %s to %s", counts, embedded.path, neo4j.settings.uri)
    return counts
