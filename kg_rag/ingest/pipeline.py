"""The chunk ingest pipeline: load → clean → chunk → embed → store, incrementally.

:class:`ChunkIngestor` reads like the steps it takes. For every document it

1. cleans the text (HTML is converted to Markdown-like text first),
2. compares a hash of everything that shapes its chunks with the stored one and stops there
   when they are equal (an unchanged re-ingest computes no embedding),
3. cuts it into document/section/paragraph/sentence chunks,
4. vectorises a batch of documents at once (paragraph vectors reused from the stored version
   by key, sentence vectors by late chunking, section/document vectors pooled), and
5. writes the batch (pending → chunks → version → done, so a crash is repaired by re-running).

The report lists the documents whose chunks changed (``changed_doc_ids``) and those removed
(``removed_doc_ids``): the engine re-extracts the graph for exactly those.
"""

from __future__ import annotations

import html
import json
import logging
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from kg_rag.config import ChunkingSettings
from kg_rag.embeddings import embedder_name, is_english_only
from kg_rag.errors import IngestError
from kg_rag.ingest.chunking import chunk_document
from kg_rag.ingest.clean import clean_text
from kg_rag.ingest.loaders import (
    DiscoveredFile,
    SkippedFile,
    SourceDocument,
    discover_files,
    html_to_text,
    load_file,
)
from kg_rag.ingest.prose import filter_non_prose
from kg_rag.models import CHUNK_LEVELS, Chunk, Document, stable_id
from kg_rag.stores.chunks import DocumentWrite, LanceChunkStore
from kg_rag.stores.ledger import crash_point
from kg_rag.text import contains_cjk, content_hash

__all__ = ["ChunkIngestor", "IngestNote", "IngestReport", "SkippedFile", "SourceDocument"]

logger = logging.getLogger(__name__)

# Models already warned about (the warning is useful once per process, not per batch).
_CJK_WARNED: set[str] = set()


def _zero_counts() -> dict[str, int]:
    return {str(level): 0 for level in CHUNK_LEVELS}


_TEXT_SHAPING = ("drop_non_prose", "max_run_chars", "min_word_share", "max_document_chars")
_CHUNK_CAPS = ("max_chunk_chars", "max_chunks_per_document")
_DEFAULT_CHUNKING = ChunkingSettings().model_dump(mode="json")


class IngestNote(BaseModel):
    """A file ingested only in part (a cap hit, non-prose text dropped), and what was left out."""

    path: str
    reason: str


class IngestReport(BaseModel):
    """What an ingest did.

    Attributes:
        files_seen: Files found (or documents given).
        documents_added: New documents stored.
        documents_updated: Documents whose content changed and were re-chunked.
        documents_unchanged: Documents skipped because nothing changed.
        documents_deleted: Documents removed (files gone, with ``remove_missing``).
        chunks_per_level: Chunks written per level.
        embeddings_computed: Texts that went through the embedding model.
        skipped: Files or documents not ingested, with the reason.
        notes: Files or documents ingested in part (a cap was hit, non-prose text dropped).
        changed_doc_ids: Documents added or updated (their graph must be re-extracted).
        removed_doc_ids: Documents deleted (their graph data must go).
        seconds: Wall time.
        stage_seconds: Wall time per chunk-layer stage: ``chunk`` (cleaning and chunking),
            ``embed`` (vectors), ``write`` (LanceDB writes), ``optimize`` (index upkeep, once
            per ingest).
        graph: Filled by the engine with its graph-extraction report.
        communities: Filled by the engine with its community report.
        failures: Filled by the engine: LLM failures still recorded in the knowledge base's
            ledger after this ingest (retried by the next ingest or ``kg-rag repair``).
    """

    files_seen: int = 0
    documents_added: int = 0
    documents_updated: int = 0
    documents_unchanged: int = 0
    documents_deleted: int = 0
    chunks_per_level: dict[str, int] = Field(default_factory=_zero_counts)
    embeddings_computed: int = 0
    skipped: list[SkippedFile] = Field(default_factory=list)
    notes: list[IngestNote] = Field(default_factory=list)
    changed_doc_ids: list[str] = Field(default_factory=list)
    removed_doc_ids: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    graph: Any = None
    communities: Any = None
    failures: list[Any] = Field(default_factory=list)

    def _summary_lines(self) -> list[str]:
        lines = [
            f"{self.files_seen} seen in {self.seconds:.1f} s: {self.documents_added} added, "
            f"{self.documents_updated} updated, {self.documents_unchanged} unchanged, "
            f"{self.documents_deleted} deleted",
            "chunks: "
            + ", ".join(f"{level} {n}" for level, n in self.chunks_per_level.items())
            + f"; {self.embeddings_computed} embeddings computed",
        ]
        if self.skipped:
            lines.append(f"skipped {len(self.skipped)}:")
            lines.extend(f"  {s.path}: {s.reason}" for s in self.skipped)
        if self.notes:
            lines.append(f"ingested in part {len(self.notes)}:")
            lines.extend(f"  {n.path}: {n.reason}" for n in self.notes)
        for name in ("graph", "communities"):
            value = getattr(self, name)
            if value is not None:
                lines.append(f"{name}: {value}")
        if self.failures:
            lines.append(f"{len(self.failures)} LLM failures recorded (retried next ingest):")
            lines.extend(f"  {f}"[:200] for f in self.failures[:20])
            if len(self.failures) > 20:
                lines.append(f"  ... and {len(self.failures) - 20} more")
        return lines

    def __str__(self) -> str:
        return "\n".join(self._summary_lines())

    def _repr_html_(self) -> str:
        rows = [
            ("seen", self.files_seen),
            ("added", self.documents_added),
            ("updated", self.documents_updated),
            ("unchanged", self.documents_unchanged),
            ("deleted", self.documents_deleted),
            *((f"{level} chunks", n) for level, n in self.chunks_per_level.items()),
            ("embeddings computed", self.embeddings_computed),
            ("seconds", f"{self.seconds:.1f}"),
        ]
        body = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{v}</td></tr>" for k, v in rows)
        skipped = "".join(
            f"<li><code>{html.escape(s.path)}</code>: {html.escape(s.reason)}</li>"
            for s in self.skipped
        )
        extra = f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else ""
        notes = "".join(
            f"<li><code>{html.escape(n.path)}</code>: {html.escape(n.reason)}</li>"
            for n in self.notes
        )
        if notes:
            extra += f"<p>Ingested in part:</p><ul>{notes}</ul>"
        return f"<table>{body}</table>{extra}"


class _Prepared(BaseModel):
    document: Document
    format: str
    ingest_hash: str
    label: str
    notes: list[str] = Field(default_factory=list)


class ChunkIngestor:
    """Ingest files or documents into a :class:`LanceChunkStore`, incrementally.

    Args:
        store: An opened chunk store (its embedder and vectorizer are used).
        settings: Cleaning and chunking settings.
        progress: Show a progress bar; ``None`` shows one when stderr is a terminal.
        batch_paragraphs: Paragraphs vectorised and written together.

    Example:
        >>> ingestor = ChunkIngestor(store, ChunkingSettings())  # doctest: +SKIP
        >>> print(ingestor.ingest_paths([Path("docs")]))  # doctest: +SKIP
    """

    def __init__(
        self,
        store: LanceChunkStore,
        settings: ChunkingSettings,
        *,
        progress: bool | None = None,
        batch_paragraphs: int = 512,
    ) -> None:
        self.store = store
        self.settings = settings
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.batch_paragraphs = batch_paragraphs

    # -- public --------------------------------------------------------------------------
    def ingest_paths(
        self,
        paths: Sequence[Path],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        remove_missing: bool = False,
    ) -> IngestReport:
        """Ingest files and folders (recursively).

        A file's doc_id is its path relative to the folder given (its name, for a file
        given directly), so re-ingesting the same folder updates the same documents.

        Args:
            paths: Files or folders.
            include: Only files matching one of these globs.
            exclude: Leave out files matching one of these globs.
            remove_missing: Delete stored documents that came from these folders but whose
                file is gone.

        Returns:
            The report; bad files are in ``skipped`` with their reason.
        """
        started = time.perf_counter()
        report = IngestReport()
        roots: list[Path] = []
        files: list[DiscoveredFile] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.exists():
                reason = "does not exist"
                if path.is_symlink():
                    try:
                        load_file(path)
                    except IngestError as exc:
                        reason = str(exc)
                report.skipped.append(SkippedFile(path=str(raw), reason=reason))
                continue
            if path.is_dir():
                roots.append(path.resolve())
            files.extend(discover_files([path], include=include, exclude=exclude))
        report.files_seen = len(files)
        seen: set[str] = set()

        def documents() -> Iterator[SourceDocument]:
            for f in files:
                if f.relative in seen:
                    report.skipped.append(
                        SkippedFile(path=str(f.path), reason=f"duplicate doc_id {f.relative!r}")
                    )
                    continue
                seen.add(f.relative)
                try:
                    doc = load_file(
                        f.path, doc_id=f.relative, max_chars=self.settings.max_document_chars
                    )
                except IngestError as exc:
                    report.skipped.append(SkippedFile(path=str(f.path), reason=str(exc)))
                    continue
                except Exception as exc:  # one bad file must not stop the others
                    logger.warning("cannot load %s", f.path, exc_info=True)
                    report.skipped.append(
                        SkippedFile(path=str(f.path), reason=f"{type(exc).__name__}: {exc}")
                    )
                    continue
                yield doc

        self._run(documents(), report, total=len(files))
        if remove_missing and roots:
            for doc in self.store.list_documents():
                if doc.doc_id in seen or not doc.source:
                    continue
                source = Path(doc.source)
                if any(source.is_relative_to(root) for root in roots) and not source.exists():
                    self.store.delete_document(doc.doc_id)
                    report.documents_deleted += 1
                    report.removed_doc_ids.append(doc.doc_id)
        report.seconds = time.perf_counter() - started
        return report

    def ingest_documents(self, docs: Iterable[SourceDocument]) -> IngestReport:
        """Ingest documents given in memory (doc_id from the caller, else from source/text).

        Returns:
            The report.
        """
        started = time.perf_counter()
        report = IngestReport()
        items = list(docs)
        report.files_seen = len(items)
        self._run(iter(items), report, total=len(items))
        report.seconds = time.perf_counter() - started
        return report

    def plan(
        self,
        sources: Sequence[Any],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
    ) -> tuple[list[tuple[Document, list[Chunk]]], int]:
        """What an ingest of ``sources`` would (re)chunk, without writing anything: the new or
        changed documents (and those an interrupted ingest left pending) with their chunks,
        and how many documents are unchanged. Unreadable files are left out (the ingest would
        skip them)."""
        items = list(sources)
        if items and all(isinstance(s, SourceDocument) for s in items):
            docs: list[SourceDocument] = list(items)
        else:
            docs = []
            paths = [Path(str(p)).expanduser() for p in items]
            files = discover_files(
                [p for p in paths if p.exists()], include=include, exclude=exclude
            )
            seen: set[str] = set()
            for f in files:
                if f.relative in seen:
                    continue
                seen.add(f.relative)
                try:
                    docs.append(
                        load_file(
                            f.path, doc_id=f.relative, max_chars=self.settings.max_document_chars
                        )
                    )
                except Exception:  # skipped by the ingest too
                    continue
        fingerprint = self._fingerprint()
        stored = self.store.document_hashes()
        pending = set(self.store.pending_documents())
        out: list[tuple[Document, list[Chunk]]] = []
        ids: set[str] = set()
        unchanged = 0
        for doc in docs:
            try:
                prepared = self._prepare(doc, fingerprint)
                doc_id = prepared.document.doc_id
                if doc_id in ids:
                    continue
                if stored.get(doc_id) == prepared.ingest_hash and doc_id not in pending:
                    unchanged += 1
                    continue
                ids.add(doc_id)
                prepared, chunks = self._chunk(prepared, IngestReport())
            except Exception:  # skipped by the ingest too
                continue
            out.append((prepared.document, chunks))
        return out, unchanged

    def delete(self, doc_id: str) -> bool:
        """Delete a document and its chunks; ``False`` when it was not stored."""
        existed = self.store.has_document(doc_id)
        self.store.delete_document(doc_id)
        return existed

    # -- steps ---------------------------------------------------------------------------
    def _fingerprint(self) -> str:
        chunking = self.settings.model_dump(mode="json")
        # The non-prose filter and the characters cap act through the cleaned text, which the
        # hash holds; the chunk caps count only away from their defaults, so a knowledge base
        # built before they existed is not re-chunked (and re-extracted) for nothing.
        for key in _TEXT_SHAPING:
            chunking.pop(key, None)
        for key in _CHUNK_CAPS:
            if chunking.get(key) == _DEFAULT_CHUNKING.get(key):
                chunking.pop(key, None)
        return json.dumps(
            {"chunking": chunking, "late_chunking": self.store.vectorizer.late_chunking},
            sort_keys=True,
        )

    def _prepare(self, doc: SourceDocument, fingerprint: str) -> _Prepared:
        text, title = doc.text, doc.title
        notes = list(doc.notes)
        if doc.format == "html":
            text, html_title = html_to_text(text)
            title = title or html_title
        cleaned = clean_text(text, self.settings)
        label = doc.source or doc.doc_id or title or "(document)"
        if self.settings.drop_non_prose:
            filtered = filter_non_prose(
                cleaned,
                max_run_chars=self.settings.max_run_chars,
                min_word_share=self.settings.min_word_share,
            )
            if filtered.changed:
                notes.append(filtered.describe())
                cleaned = filtered.text
        cap = self.settings.max_document_chars
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
        return _Prepared(
            document=document,
            format=doc.format,
            ingest_hash=ingest_hash,
            label=label,
            notes=notes,
        )

    def _warn_cjk(self, text: str) -> None:
        name = embedder_name(self.store.embedder)
        if (
            name in _CJK_WARNED
            or not contains_cjk(text)
            or not is_english_only(self.store.embedder)
        ):
            return
        _CJK_WARNED.add(name)
        logger.warning(
            "Chinese text is being ingested with the English-only embedder %s: its vectors "
            "carry little meaning for Chinese, so Chinese retrieval leans on BM25 (jieba). "
            "Use a multilingual embedder for better Chinese recall: "
            "KG_RAG_EMBEDDING__MODEL=multilingual-e5-small (or auto) for a new knowledge "
            "base, `kg-rag ingest --reembed` for this one.",
            name,
        )

    def _run(self, docs: Iterator[SourceDocument], report: IngestReport, total: int) -> None:
        from tqdm.auto import tqdm

        fingerprint = self._fingerprint()
        stored = self.store.document_hashes()
        pending = set(self.store.pending_documents())
        batch: list[tuple[_Prepared, list[Chunk]]] = []
        paragraphs = 0
        run_ids: set[str] = set()
        with tqdm(total=total, desc="ingest", unit="doc", disable=not self.progress) as bar:
            for doc in docs:
                bar.update(1)
                label = doc.source or doc.doc_id or doc.title or "(document)"
                try:
                    prepared = self._prepare(doc, fingerprint)
                except Exception as exc:  # one bad document must not stop the others
                    report.skipped.append(_skipped(label, "prepare", exc))
                    continue
                report.notes.extend(
                    IngestNote(path=prepared.label, reason=n) for n in prepared.notes
                )
                doc_id = prepared.document.doc_id
                if doc_id in run_ids:
                    report.skipped.append(
                        SkippedFile(path=prepared.label, reason=f"duplicate doc_id {doc_id!r}")
                    )
                    continue
                run_ids.add(doc_id)
                if stored.get(doc_id) == prepared.ingest_hash and doc_id not in pending:
                    report.documents_unchanged += 1
                    continue
                self._warn_cjk(prepared.document.text)
                t0 = time.perf_counter()
                try:
                    prepared, chunks = self._chunk(prepared, report)
                except Exception as exc:  # one bad document must not stop the others
                    report.skipped.append(_skipped(label, "chunk", exc))
                    continue
                finally:
                    _add_seconds(report, "chunk", t0)
                batch.append((prepared, chunks))
                paragraphs += sum(1 for c in chunks if c.level == "paragraph")
                if paragraphs >= self.batch_paragraphs:
                    self._flush(batch, report)
                    batch, paragraphs = [], 0
            self._flush(batch, report)
        if report.changed_doc_ids:
            t0 = time.perf_counter()
            self.store.optimize()
            _add_seconds(report, "optimize", t0)

    def _chunk(self, prepared: _Prepared, report: IngestReport) -> tuple[_Prepared, list[Chunk]]:
        """Chunk a document; one over ``max_chunks_per_document`` is cut before the chunk
        where the limit falls (and re-chunked, so its text and chunks agree)."""
        document = prepared.document
        metadata = {
            "source": document.source or document.doc_id,
            "title": document.title,
            **document.metadata,
        }
        cap = max(1, self.settings.max_chunks_per_document)
        text = document.text
        chunks = chunk_document(
            document.doc_id, text, fmt=prepared.format, settings=self.settings, metadata=metadata
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
                document.doc_id,
                text,
                fmt=prepared.format,
                settings=self.settings,
                metadata=metadata,
            )
        if len(chunks) == first:
            return prepared, chunks
        report.notes.append(
            IngestNote(
                path=prepared.label,
                reason=(
                    f"chunk cap: {first:,} chunks cut to {len(chunks):,} (the first "
                    f"{len(text):,} of {len(document.text):,} characters; "
                    f"chunking.max_chunks_per_document={cap:,})"
                ),
            )
        )
        capped = document.model_copy(update={"text": text, "content_hash": content_hash(text)})
        return prepared.model_copy(update={"document": capped}), chunks

    def _flush(self, batch: list[tuple[_Prepared, list[Chunk]]], report: IngestReport) -> None:
        if not batch:
            return
        ids = [p.document.doc_id for p, _ in batch]
        existing = {d for d in ids if self.store.has_document(d)}
        t0 = time.perf_counter()
        known = self.store.known_vectors(sorted(existing))
        vec = self.store.vectorizer.vectorize(
            [(p.document.title, chunks) for p, chunks in batch], known
        )
        _add_seconds(report, "embed", t0)
        report.embeddings_computed += vec.computed
        writes = [
            DocumentWrite(
                document=p.document,
                format=p.format,
                ingest_hash=p.ingest_hash,
                chunks=chunks,
                vectors=vec.vectors[i],
                vector_keys=vec.keys[i],
                index_texts=vec.texts[i],
            )
            for i, (p, chunks) in enumerate(batch)
        ]
        t0 = time.perf_counter()
        self.store.write_documents(writes)
        _add_seconds(report, "write", t0)
        crash_point("chunks")
        counts = Counter(c.level for _, chunks in batch for c in chunks)
        for level, n in counts.items():
            report.chunks_per_level[level] = report.chunks_per_level.get(level, 0) + n
        for doc_id in ids:
            if doc_id in existing:
                report.documents_updated += 1
            else:
                report.documents_added += 1
            report.changed_doc_ids.append(doc_id)


def _add_seconds(report: IngestReport, stage: str, since: float) -> None:
    report.stage_seconds[stage] = report.stage_seconds.get(stage, 0.0) + (
        time.perf_counter() - since
    )


def _skipped(label: str, stage: str, exc: Exception) -> SkippedFile:
    """The report line for a document that failed at ``stage``: an :class:`IngestError` says
    its own reason; anything else is logged with its traceback and named by its type."""
    if isinstance(exc, IngestError):
        return SkippedFile(path=label, reason=str(exc))
    logger.warning("cannot %s %s", stage, label, exc_info=exc)
    return SkippedFile(path=label, reason=f"{type(exc).__name__}: {exc}")
