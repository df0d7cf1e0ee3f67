"""One document from raw text to chunks: clean (HTML converted first), drop non-prose, cap,
hash, then chunk under the per-document chunk cap.

Pure functions of the document and the settings, so the ingest pipeline runs them in this
process or in a Ray worker (:mod:`kg_rag.ingest.executor`) with the same result.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from kg_rag.config import ChunkingSettings
from kg_rag.errors import IngestError
from kg_rag.ingest.chunking import chunk_document
from kg_rag.ingest.clean import clean_text
from kg_rag.ingest.loaders import SourceDocument, html_to_text
from kg_rag.ingest.prose import filter_non_prose
from kg_rag.models import Chunk, Document, stable_id
from kg_rag.text import content_hash

__all__ = ["PreparedDocument", "chunk_prepared", "prepare_document"]


class PreparedDocument(BaseModel):
    """A cleaned document, the hash of everything that shapes its chunks, and notes on what
    cleaning left out."""

    document: Document
    format: str
    ingest_hash: str
    label: str
    notes: list[str] = Field(default_factory=list)


def prepare_document(
    doc: SourceDocument, settings: ChunkingSettings, fingerprint: str
) -> PreparedDocument:
    """Clean ``doc`` and hash it with ``fingerprint`` (the chunking settings that matter).

    Raises:
        IngestError: Nothing is left after cleaning.
    """
    text, title = doc.text, doc.title
    notes = list(doc.notes)
    if doc.format == "html":
        text, html_title = html_to_text(text)
        title = title or html_title
    cleaned = clean_text(text, settings)
    label = doc.source or doc.doc_id or title or "(document)"
    if settings.drop_non_prose:
        filtered = filter_non_prose(
            cleaned,
            max_run_chars=settings.max_run_chars,
            min_word_share=settings.min_word_share,
        )
        if filtered.changed:
            notes.append(filtered.describe())
            cleaned = filtered.text
    cap = settings.max_document_chars
    if len(cleaned) > cap:
        cut = cleaned.rfind("\n\n", cap * 4 // 5, cap)
        cleaned = cleaned[: cut if cut > 0 else cap].rstrip()
        notes.append(
            f"truncated: only the first {len(cleaned):,} characters were ingested "
            f"(chunking.max_document_chars={cap:,}; raise it to ingest more)"
        )
    if not cleaned:
        raise IngestError("empty after cleaning" + (f" ({notes[-1]})" if notes else ""))
    doc_id = doc.doc_id or doc.source or stable_id(cleaned, prefix="doc_")
    metadata = dict(doc.metadata)
    ingest_hash = content_hash(
        cleaned,
        title,
        doc.source,
        doc.format,
        json.dumps(metadata, sort_keys=True),
        fingerprint,
    )
    document = Document(
        doc_id=doc_id,
        source=doc.source,
        title=title,
        content_hash=content_hash(cleaned),
        metadata=metadata,
        text=cleaned,
    )
    return PreparedDocument(
        document=document,
        format=doc.format,
        ingest_hash=ingest_hash,
        label=label,
        notes=notes,
    )


def chunk_prepared(
    prepared: PreparedDocument, settings: ChunkingSettings
) -> tuple[PreparedDocument, list[Chunk], str | None]:
    """Chunk a document; one over ``max_chunks_per_document`` is cut before the chunk where
    the limit falls (and re-chunked, so its text and chunks agree).

    Returns:
        The document (its text cut when the cap was hit), its chunks, and the note for the
        report when the cap was hit.

    Raises:
        IngestError: The cap leaves no text.
    """
    document = prepared.document
    metadata = {
        "source": document.source or document.doc_id,
        "title": document.title,
        **document.metadata,
    }
    cap = max(1, settings.max_chunks_per_document)
    text = document.text
    chunks = chunk_document(
        document.doc_id, text, fmt=prepared.format, settings=settings, metadata=metadata
    )
    first = len(chunks)
    while len(chunks) > cap:
        # Cut where the first chunk past the cap starts (a sentence: where its paragraph
        # starts), so no paragraph is kept in part.
        over = chunks[cap]
        cut = over.char_start
        if over.level == "sentence":
            parent = next(c for c in chunks if c.chunk_id == over.parent_id)
            cut = parent.char_start
        text = text[:cut].rstrip()
        if not text:
            raise IngestError(
                f"chunk cap: chunking.max_chunks_per_document={cap} leaves no text; raise it"
            )
        chunks = chunk_document(
            document.doc_id, text, fmt=prepared.format, settings=settings, metadata=metadata
        )
    if len(chunks) == first:
        return prepared, chunks, None
    note = (
        f"chunk cap: {first:,} chunks cut to {len(chunks):,} (the first "
        f"{len(text):,} of {len(document.text):,} characters; "
        f"chunking.max_chunks_per_document={cap:,})"
    )
    capped = document.model_copy(update={"text": text, "content_hash": content_hash(text)})
    return prepared.model_copy(update={"document": capped}), chunks, note
