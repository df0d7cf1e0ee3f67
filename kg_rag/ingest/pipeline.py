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

import json
import logging
import sys
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kg_rag.config import ChunkingSettings
from kg_rag.embeddings import embedder_name, is_english_only
from kg_rag.errors import IngestError
from kg_rag.ingest.executor import Executor, LocalExecutor, batch_key
from kg_rag.ingest.loaders import (
    DiscoveredFile,
    SkippedFile,
    SourceDocument,
    discover_files,
    load_file,
)
from kg_rag.ingest.prepare import PreparedDocument, chunk_prepared, prepare_document
from kg_rag.ingest.report import IngestNote, IngestReport
from kg_rag.ingest.vectorize import ChunkVectorizer, VectorizedChunks
from kg_rag.ingest.workers import EmbedderHandle
from kg_rag.models import Chunk, Document
from kg_rag.stores.chunks import DocumentWrite, LanceChunkStore
from kg_rag.stores.ledger import crash_point
from kg_rag.text import contains_cjk

__all__ = ["ChunkIngestor", "IngestNote", "IngestReport", "SkippedFile", "SourceDocument"]

logger = logging.getLogger(__name__)

# Models already warned about (the warning is useful once per process, not per batch).
_CJK_WARNED: set[str] = set()


_TEXT_SHAPING = ("drop_non_prose", "max_run_chars", "min_word_share", "max_document_chars")
_CHUNK_CAPS = ("max_chunk_chars", "max_chunks_per_document")
_DEFAULT_CHUNKING = ChunkingSettings().model_dump(mode="json")

_Prepared = PreparedDocument


# -- the stages an executor runs (pure functions of their batch) ---------------------------
@dataclass
class _Source:
    """One input of the load stage: a file, a document given in memory, or a duplicate."""

    name: str
    path: Path | None = None
    relative: str = ""
    document: SourceDocument | None = None
    skip: SkippedFile | None = None


@dataclass
class _LoadContext:
    settings: ChunkingSettings
    fingerprint: str
    unchanged: Mapping[str, str]
    """doc_id -> ingest hash of the stored documents an equal hash leaves as they are."""


@dataclass
class _Loaded:
    """What the load stage made of one source."""

    prepared: PreparedDocument | None = None
    chunks: list[Chunk] = field(default_factory=list)
    unchanged: bool = False
    skipped: SkippedFile | None = None
    chunk_note: str | None = None
    seconds: float = 0.0


def load_stage(ctx: _LoadContext, batch: list[_Source]) -> list[_Loaded]:
    """Load, clean, hash and (unless unchanged) chunk every source of ``batch``."""
    return [_load_one(ctx, source) for source in batch]


def _load_one(ctx: _LoadContext, source: _Source) -> _Loaded:
    if source.skip is not None:
        return _Loaded(skipped=source.skip)
    doc = source.document
    if doc is None:
        assert source.path is not None
        try:
            doc = load_file(
                source.path, doc_id=source.relative, max_chars=ctx.settings.max_document_chars
            )
        except IngestError as exc:
            return _Loaded(skipped=SkippedFile(path=str(source.path), reason=str(exc)))
        except Exception as exc:  # one bad file must not stop the others
            logger.warning("cannot load %s", source.path, exc_info=True)
            reason = f"{type(exc).__name__}: {exc}"
            return _Loaded(skipped=SkippedFile(path=str(source.path), reason=reason))
    label = doc.source or doc.doc_id or doc.title or "(document)"
    try:
        prepared = prepare_document(doc, ctx.settings, ctx.fingerprint)
    except Exception as exc:  # one bad document must not stop the others
        return _Loaded(skipped=_skipped(label, "prepare", exc))
    if ctx.unchanged.get(prepared.document.doc_id) == prepared.ingest_hash:
        # Only the id, label and notes are read: the text does not travel back.
        bare = prepared.document.model_copy(update={"text": ""})
        return _Loaded(prepared=prepared.model_copy(update={"document": bare}), unchanged=True)
    t0 = time.perf_counter()
    try:
        prepared, chunks, note = chunk_prepared(prepared, ctx.settings)
    except Exception as exc:  # one bad document must not stop the others
        skipped = _skipped(label, "chunk", exc)
        return _Loaded(prepared=prepared, skipped=skipped, seconds=time.perf_counter() - t0)
    return _Loaded(
        prepared=prepared, chunks=chunks, chunk_note=note, seconds=time.perf_counter() - t0
    )


@dataclass
class _EmbedContext:
    embedder: EmbedderHandle
    late_chunking: bool


@dataclass
class _EmbedBatch:
    key: str
    docs: list[tuple[str, list[Chunk]]]
    """(title, chunks) per document."""
    known: dict[str, npt.NDArray[np.float32]]
    """Vectors by key from the stored versions of these documents (not embedded again)."""


@dataclass
class _Embedded:
    vectors: VectorizedChunks
    seconds: float


def embed_stage(ctx: _EmbedContext, batch: _EmbedBatch) -> _Embedded:
    """Vectors for the chunks of a batch of documents (one batched model call)."""
    t0 = time.perf_counter()
    vectorizer = ChunkVectorizer(ctx.embedder.get(), late_chunking=ctx.late_chunking)
    vectors = vectorizer.vectorize(batch.docs, batch.known)
    return _Embedded(vectors=vectors, seconds=time.perf_counter() - t0)


class ChunkIngestor:
    """Ingest files or documents into a :class:`LanceChunkStore`, incrementally.

    Args:
        store: An opened chunk store (its embedder and vectorizer are used).
        settings: Cleaning and chunking settings.
        progress: Show a progress bar; ``None`` shows one when stderr is a terminal.
        batch_paragraphs: Paragraphs vectorised and written together.
        executor: Where loading, cleaning, chunking and embedding run
            (:mod:`kg_rag.ingest.executor`; default: this process). Writes always happen
            here, in input order.

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
        executor: Executor | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.batch_paragraphs = batch_paragraphs
        self.executor: Executor = executor or LocalExecutor()

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

        sources: list[_Source] = []
        for f in files:
            if f.relative in seen:
                reason = f"duplicate doc_id {f.relative!r}"
                sources.append(
                    _Source(name=f.relative, skip=SkippedFile(path=str(f.path), reason=reason))
                )
                continue
            seen.add(f.relative)
            sources.append(_Source(name=f.relative, path=f.path, relative=f.relative))

        self._run(sources, report)
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
        self._run(
            [_Source(name=d.doc_id or d.source or str(i), document=d) for i, d in enumerate(items)],
            report,
        )
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
                prepared = prepare_document(doc, self.settings, fingerprint)
                doc_id = prepared.document.doc_id
                if doc_id in ids:
                    continue
                if stored.get(doc_id) == prepared.ingest_hash and doc_id not in pending:
                    unchanged += 1
                    continue
                ids.add(doc_id)
                prepared, chunks, _ = chunk_prepared(prepared, self.settings)
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

    def _run(self, sources: list[_Source], report: IngestReport) -> None:
        """Load/clean/chunk and embed through the executor; write here, in input order."""
        from tqdm.auto import tqdm

        stored = self.store.document_hashes()
        pending = set(self.store.pending_documents())
        load_ctx = _LoadContext(
            settings=self.settings,
            fingerprint=self._fingerprint(),
            unchanged={d: h for d, h in stored.items() if d not in pending},
        )
        embed_ctx = _EmbedContext(
            embedder=EmbedderHandle(self.store.embedder),
            late_chunking=self.store.vectorizer.late_chunking,
        )
        step = max(1, self.executor.documents_per_task)
        groups = (sources[i : i + step] for i in range(0, len(sources), step))
        run_ids: set[str] = set()
        # Batches handed to the embed stage, oldest first: results come back in this order.
        in_flight: deque[tuple[list[_Prepared], list[list[Chunk]], set[str]]] = deque()
        bar = tqdm(total=len(sources), desc="ingest", unit="doc", disable=not self.progress)

        def chunked() -> Iterator[tuple[_Prepared, list[Chunk]]]:
            loaded = self.executor.map(
                load_stage,
                groups,
                context=load_ctx,
                keys=lambda batch: batch_key(*(s.name for s in batch)),
            )
            for outcomes in loaded:
                for out in outcomes:
                    bar.update(1)
                    if out.seconds:
                        report.stage_seconds["chunk"] = (
                            report.stage_seconds.get("chunk", 0.0) + out.seconds
                        )
                    if out.prepared is None:
                        assert out.skipped is not None
                        report.skipped.append(out.skipped)
                        continue
                    prepared = out.prepared
                    report.notes.extend(
                        IngestNote(path=prepared.label, reason=n) for n in prepared.notes
                    )
                    doc_id = prepared.document.doc_id
                    if doc_id in run_ids:
                        reason = f"duplicate doc_id {doc_id!r}"
                        report.skipped.append(SkippedFile(path=prepared.label, reason=reason))
                        continue
                    run_ids.add(doc_id)
                    if out.unchanged:
                        report.documents_unchanged += 1
                        continue
                    if out.skipped is not None:
                        report.skipped.append(out.skipped)
                        continue
                    self._warn_cjk(prepared.document.text)
                    if out.chunk_note is not None:
                        report.notes.append(IngestNote(path=prepared.label, reason=out.chunk_note))
                    yield prepared, out.chunks

        def batches() -> Iterator[_EmbedBatch]:
            batch: list[tuple[_Prepared, list[Chunk]]] = []
            paragraphs = 0
            for prepared, chunks in chunked():
                batch.append((prepared, chunks))
                paragraphs += sum(1 for c in chunks if c.level == "paragraph")
                if paragraphs >= self.batch_paragraphs:
                    yield self._embed_batch(batch, in_flight)
                    batch, paragraphs = [], 0
            if batch:
                yield self._embed_batch(batch, in_flight)

        try:
            for embedded in self.executor.map(
                embed_stage, batches(), context=embed_ctx, keys=lambda b: b.key
            ):
                self._write(*in_flight.popleft(), embedded, report)
        finally:
            bar.close()
        if report.changed_doc_ids:
            t0 = time.perf_counter()
            self.store.optimize()
            _add_seconds(report, "optimize", t0)

    def _embed_batch(
        self,
        batch: list[tuple[_Prepared, list[Chunk]]],
        in_flight: deque[tuple[list[_Prepared], list[list[Chunk]], set[str]]],
    ) -> _EmbedBatch:
        """The embed stage's input for ``batch`` (the stored vectors it may reuse); the rest
        of the batch waits in ``in_flight`` for its vectors."""
        ids = [p.document.doc_id for p, _ in batch]
        existing = {d for d in ids if self.store.has_document(d)}
        in_flight.append(([p for p, _ in batch], [c for _, c in batch], existing))
        return _EmbedBatch(
            key=batch_key(*(f"{p.document.doc_id}:{p.ingest_hash}" for p, _ in batch)),
            docs=[(p.document.title, chunks) for p, chunks in batch],
            known=self.store.known_vectors(sorted(existing)),
        )

    def _write(
        self,
        prepared: list[_Prepared],
        chunked: list[list[Chunk]],
        existing: set[str],
        embedded: _Embedded,
        report: IngestReport,
    ) -> None:
        """Write one embedded batch (the one writer: always this process)."""
        report.stage_seconds["embed"] = report.stage_seconds.get("embed", 0.0) + embedded.seconds
        vec = embedded.vectors
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
            for i, (p, chunks) in enumerate(zip(prepared, chunked, strict=True))
        ]
        t0 = time.perf_counter()
        self.store.write_documents(writes)
        _add_seconds(report, "write", t0)
        crash_point("chunks")
        counts = Counter(c.level for chunks in chunked for c in chunks)
        for level, n in counts.items():
            report.chunks_per_level[level] = report.chunks_per_level.get(level, 0) + n
        for p in prepared:
            doc_id = p.document.doc_id
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
