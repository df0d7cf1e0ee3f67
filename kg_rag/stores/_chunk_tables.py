"""Record types, Arrow schemas and row conversions of :class:`~kg_rag.stores.chunks.LanceChunkStore`.

Kept apart from the store so the store module reads as operations, not table layouts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

from kg_rag.models import Chunk, Document

__all__ = [
    "CHUNK_COLUMNS",
    "DOC_COLUMNS",
    "SCHEMA_VERSION",
    "DocState",
    "DocumentVersion",
    "DocumentWrite",
    "now",
    "quote",
    "row_to_chunk",
    "row_to_document",
    "sql_in",
    "table_schemas",
]

SCHEMA_VERSION = "1"
CHUNK_COLUMNS = [
    "chunk_id",
    "doc_id",
    "level",
    "parent_id",
    "ordinal",
    "heading_path",
    "char_start",
    "char_end",
    "text",
    "metadata",
]
DOC_COLUMNS = [
    "doc_id",
    "source",
    "title",
    "format",
    "content_hash",
    "ingest_hash",
    "version",
    "status",
    "metadata",
]


class DocumentWrite(BaseModel):
    """One document's new version, chunked and vectorised, ready to store.

    Attributes:
        document: The document (``version`` is assigned by the store).
        format: Source format (``txt``, ``md``, ``html``, ``pdf``).
        ingest_hash: Hash of everything that shaped the chunks (text, title, metadata,
            chunking settings): equal hash → nothing to redo.
        chunks: The chunks, parents before children.
        vectors: ``(len(chunks), dim)`` float32 vectors.
        vector_keys: Per chunk, the key under which its vector can be reused.
        index_texts: Per chunk, the text its BM25 tokens are taken from (chunk text with its
            title/heading context).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    document: Document
    format: str = "txt"
    ingest_hash: str
    chunks: list[Chunk]
    vectors: Any
    vector_keys: list[str]
    index_texts: list[str]


class DocumentVersion(BaseModel):
    """One entry of a document's version history."""

    doc_id: str
    version: int
    content_hash: str
    title: str = ""
    source: str = ""
    created_at: str = ""
    chunks: int = 0
    current: bool = False


class DocState(BaseModel):
    ingest_hash: str
    status: str
    version: int
    metadata: dict[str, str] = Field(default_factory=dict)
    title: str = ""


def quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: Iterable[str]) -> str:
    return f"{column} IN ({', '.join(quote(v) for v in values)})"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def table_schemas(dim: int) -> dict[str, pa.Schema]:
    """Arrow schemas of the store's tables for vectors of ``dim`` floats."""
    string = pa.string()
    return {
        "documents": pa.schema(
            [
                ("doc_id", string),
                ("source", string),
                ("title", string),
                ("format", string),
                ("content_hash", string),
                ("ingest_hash", string),
                ("version", pa.int64()),
                ("status", string),
                ("metadata", string),
                ("text", string),
                ("updated_at", string),
            ]
        ),
        "document_versions": pa.schema(
            [
                ("doc_id", string),
                ("version", pa.int64()),
                ("content_hash", string),
                ("ingest_hash", string),
                ("title", string),
                ("source", string),
                ("format", string),
                ("metadata", string),
                ("text", string),
                ("chunks", string),
                ("created_at", string),
            ]
        ),
        "chunks": pa.schema(
            [
                ("chunk_id", string),
                ("doc_id", string),
                ("level", string),
                ("parent_id", string),
                ("ordinal", pa.int32()),
                ("heading_path", pa.list_(string)),
                ("char_start", pa.int64()),
                ("char_end", pa.int64()),
                ("text", string),
                ("metadata", string),
                ("tokens", string),
                ("vector_key", string),
                ("vector", pa.list_(pa.float32(), dim)),
            ]
        ),
    }


def row_to_chunk(row: Mapping[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=row["chunk_id"],
        doc_id=row["doc_id"],
        level=row["level"],
        parent_id=row["parent_id"],
        ordinal=row["ordinal"],
        heading_path=list(row["heading_path"] or []),
        char_start=row["char_start"],
        char_end=row["char_end"],
        text=row["text"],
        metadata=json.loads(row["metadata"] or "{}"),
    )


def row_to_document(row: Mapping[str, Any], *, with_text: bool) -> Document:
    return Document(
        doc_id=row["doc_id"],
        source=row["source"],
        title=row["title"],
        content_hash=row["content_hash"],
        version=row["version"],
        metadata=json.loads(row["metadata"] or "{}"),
        text=row["text"] if with_text else "",
    )
