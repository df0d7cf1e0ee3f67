"""LanceChunkStore: documents, their versions and multi-granularity chunks in one LanceDB folder.

Tables (other components add theirs — entities, relations, communities — to the same folder
through :attr:`LanceChunkStore.db`):

* ``kb_meta``: key/value facts about the knowledge base (embedding model and dimension).
* ``documents``: one row per current document, with its cleaned text and a ``status``: a
  document is ``pending`` while its chunks are being replaced and ``done`` after, so a crash
  mid-ingest leaves it pending and the next ingest redoes it.
* ``document_versions``: every version of every document (text and chunk layout) for history
  and rollback.
* ``chunks``: chunks of all four levels with their vector, their BM25 tokens (``tokens``,
  pre-tokenized: jieba for Chinese, words for Latin script; indexed by LanceDB's full-text index
  with a whitespace tokenizer and English stemming) and the key that lets later ingests reuse
  their vector.

Search is dense (cosine), BM25, or hybrid. Hybrid fuses both candidate lists by
*relative-score fusion* by default: each list's scores are min-max normalised and mixed 0.75
dense / 0.25 BM25 (Weaviate's default ``alpha``; Bruch et al. 2023, "An Analysis of Fusion
Functions for Hybrid Retrieval", find such convex combinations beat reciprocal-rank fusion).
Plain reciprocal-rank fusion (k = 60) is one argument away and its score is always reported:
on MuSiQue, whose distractors were picked to be lexically close, RRF let the weaker BM25 list
pull hybrid recall below dense alone (bench/retrieval.py).
Below ``ann_index_min_rows`` chunks the store searches its table in memory; from there on
each level has its own vector table and index (:mod:`kg_rag.stores._level_tables`), and
``chunks`` keeps the full-text and scalar indexes. A knowledge base indexed before the level
tables existed (one IVF-PQ index over ``chunks``) searches through that index until its next
``optimize()`` adds them.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from langchain_core.embeddings import Embeddings

from kg_rag.config import RetrievalSettings
from kg_rag.embeddings import (
    embedder_dimensions,
    embedder_name,
    single_blas_thread,
    vocabulary_coverage,
)
from kg_rag.errors import SchemaMismatch, StoreUnavailable
from kg_rag.ingest.vectorize import ChunkVectorizer
from kg_rag.models import CHUNK_LEVELS, Chunk, ChunkHit, ChunkLevel, Document
from kg_rag.stores._chunk_search import (
    Candidate,
    ChunkSnapshot,
    RowIds,
    fuse,
    indexed_candidates,
    scan,
    take_chunks,
    unit_rows,
    vector_matrix,
)
from kg_rag.stores._chunk_tables import (
    CHUNK_COLUMNS,
    DOC_COLUMNS,
    SCHEMA_VERSION,
    DocState,
    DocumentVersion,
    DocumentWrite,
    now,
    quote,
    row_to_chunk,
    row_to_document,
    sql_in,
    table_schemas,
)
from kg_rag.stores._level_tables import REFINE, LevelTables
from kg_rag.text import bm25_tokens

__all__ = ["DocumentVersion", "DocumentWrite", "LanceChunkStore", "SearchMode"]

logger = logging.getLogger(__name__)

SearchMode = Literal["dense", "bm25", "hybrid"]


_CHUNK_CACHE = 20000
_SENTENCE_CACHE = 4000
_EXACT_SCOPE_DOCS = 1000
"""A search within at most this many documents is exact past the ANN threshold (a flat scan
of their rows, found by the ``doc_id`` index): faster than the IVF-PQ index with a tight
prefilter, and it cannot miss rows in unprobed partitions."""


@dataclass(frozen=True)
class _SentenceVectors:
    """A document's sentence spans and their unit vectors, in stored order."""

    spans: list[tuple[int, int]]
    matrix: npt.NDArray[np.float32]


class LanceChunkStore:
    """Chunks, documents and versions of one knowledge base, in a LanceDB folder.

    Nothing is opened in the constructor: call :meth:`open` (or use ``with``).

    Args:
        path: The knowledge base folder (created on open).
        embedder: The embedder the knowledge base is (or will be) built with; its model name
            and dimension are recorded on first open and checked on every later one.
        settings: Search defaults (RRF k, candidates, ANN threshold).
        late_chunking: Sentence vectors by late chunking when the embedder supports it.
        fusion: How hybrid search ranks: ``"relative"`` (relative-score fusion, default) or
            ``"rrf"`` (reciprocal-rank fusion, k from ``settings.rrf_k``). Both scores are
            always reported in :attr:`ChunkHit.scores`.
        dense_weight: Share of the dense score in relative-score fusion (0.75 is Weaviate's
            default ``alpha``).

    Example:
        >>> from kg_rag.testing import HashEmbeddings
        >>> store = LanceChunkStore(tmp_path, HashEmbeddings())  # doctest: +SKIP
        >>> store.open()  # doctest: +SKIP
    """

    def __init__(
        self,
        path: Path | str,
        embedder: Embeddings,
        *,
        settings: RetrievalSettings | None = None,
        late_chunking: bool = True,
        fusion: Literal["relative", "rrf"] = "relative",
        dense_weight: float = 0.75,
    ) -> None:
        self.path = Path(path)
        self.embedder = embedder
        self.settings = settings or RetrievalSettings()
        self.vectorizer = ChunkVectorizer(embedder, late_chunking=late_chunking)
        self.fusion = fusion
        self.dense_weight = dense_weight
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._dim = 0
        self._docs: dict[str, DocState] = {}
        # doc_id -> (latest recorded version, its ingest hash)
        self._latest: dict[str, tuple[int, str]] = {}
        self._query_cache: OrderedDict[str, list[float]] = OrderedDict()
        # Read caches of what is stored (chunks by id; a document's sentence vectors), emptied
        # by every write here and whenever refresh() finds a table moved on.
        self._chunk_cache: OrderedDict[str, Chunk] = OrderedDict()
        self._sentence_cache: OrderedDict[str, _SentenceVectors] = OrderedDict()
        # The chunks table in memory while it is below the ANN threshold (read in one scan,
        # emptied with the caches): exact dense search and reads by id without a query.
        self._chunks_in_memory: ChunkSnapshot | None = None
        # Past the ANN threshold: chunk id → row id, built by the first search (never by a
        # read: ingest reads after each batch write), emptied with the caches.
        self._row_ids: RowIds | None = None
        self._lock = threading.Lock()
        self._has_fts = False
        self._has_ann = False
        self._chunks_ann = False
        self._levels: LevelTables | None = None
        self._nprobes = 20

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def db(self) -> Any:
        """The ``lancedb`` connection (other components keep their tables here too)."""
        if self._db is None:
            raise StoreUnavailable("LanceChunkStore is not open: call store.open() first.")
        return self._db

    @property
    def model_name(self) -> str:
        """Name of the embedding model."""
        return embedder_name(self.embedder)

    @property
    def dimensions(self) -> int:
        """Vector dimension (known after :meth:`open`)."""
        return self._dim

    @property
    def has_ann_index(self) -> bool:
        """True past the ANN threshold: once the level tables or (in a knowledge base indexed
        before they existed) the IVF-PQ index over ``chunks`` exist (``ann_index_min_rows``)."""
        return self._has_ann

    @property
    def level_tables(self) -> LevelTables | None:
        """The per-level vector tables while they mirror ``chunks`` (None: not built yet, or
        out of date until the next :meth:`optimize`)."""
        return self._levels

    @property
    def ann_nprobes(self) -> int:
        """IVF partitions probed per vector query when the ANN index is used."""
        return self._nprobes

    @property
    def is_open(self) -> bool:
        """True between :meth:`open` and :meth:`close`."""
        return self._db is not None

    def open(self) -> None:
        """Connect, create missing tables, and check the embedder matches the knowledge base.

        Raises:
            SchemaMismatch: The knowledge base was built with another embedding model or
                dimension.
            StoreUnavailable: The folder cannot be opened.
        """
        if self._db is not None:
            return
        import lancedb

        try:
            self.path.mkdir(parents=True, exist_ok=True)
            db = lancedb.connect(str(self.path))
        except Exception as exc:
            raise StoreUnavailable(
                f"Cannot open the knowledge base at {self.path}: {exc}. Check the path and "
                "its permissions."
            ) from exc
        self._db = db
        try:
            self._check_meta()
            self._open_tables()
            self._load_state()
        except Exception:
            self._db = None
            self._tables = {}
            self._levels = None
            raise

    def close(self) -> None:
        """Forget the connection (LanceDB holds no server resources)."""
        self._db = None
        self._tables = {}
        self._levels = None

    def __enter__(self) -> LanceChunkStore:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open_or_none(self, name: str) -> Any:
        try:
            return self.db.open_table(name)
        except ValueError:
            return None

    def _check_meta(self) -> None:
        name = self.model_name
        meta = self._open_or_none("kb_meta")
        if meta is None:
            dim = embedder_dimensions(self.embedder)
            rows = {
                "embedding_model": name,
                "embedding_dimensions": str(dim),
                "schema_version": SCHEMA_VERSION,
                "created_at": now(),
            }
            self.db.create_table(
                "kb_meta", pa.table({"key": list(rows), "value": list(rows.values())})
            )
            self._dim = dim
            return
        values = {r["key"]: r["value"] for r in meta.to_arrow().to_pylist()}
        built_model = values.get("embedding_model", "?")
        built_dim = int(values.get("embedding_dimensions", "0"))
        if "reembed_target" in values:
            raise SchemaMismatch(
                f"The knowledge base at {self.path} is half-way through a migration from "
                f"{built_model!r} to {values['reembed_target']!r}: finish it with `kg-rag "
                f"ingest --reembed --kb {self.path}` (KG_RAG_EMBEDDING__MODEL="
                f"{values['reembed_target']})."
            )
        if built_model != name:
            raise SchemaMismatch(
                f"The knowledge base at {self.path} was built with embedding model "
                f"{built_model!r} ({built_dim}-d), not {name!r}: open it with that embedder "
                f"(KG_RAG_EMBEDDING__MODEL={built_model}, or 'auto'), migrate it with `kg-rag "
                f"ingest --reembed --kb {self.path}`, or ingest into a new knowledge base folder."
            )
        dim = int(getattr(self.embedder, "dimensions", 0) or 0) or built_dim
        if dim != built_dim:
            raise SchemaMismatch(
                f"The knowledge base at {self.path} holds {built_dim}-d vectors of "
                f"{built_model!r}; this embedder gives {dim}-d: use the same dimensions."
            )
        if values.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
            raise SchemaMismatch(
                f"The knowledge base at {self.path} has chunk schema "
                f"{values.get('schema_version')}, this kg-rag needs {SCHEMA_VERSION}: re-ingest "
                "into a new folder."
            )
        self._dim = built_dim

    def _open_tables(self) -> None:
        for name, schema in table_schemas(self._dim).items():
            table = self._open_or_none(name)
            if table is None:
                table = self.db.create_table(name, schema=schema)
            elif set(table.schema.names) != set(schema.names):
                raise SchemaMismatch(
                    f"Table {name!r} in {self.path} has columns {table.schema.names}; expected "
                    f"{schema.names}. Re-ingest into a new knowledge base folder."
                )
            self._tables[name] = table
        self._refresh_index_flags()

    def _refresh_index_flags(self) -> None:
        chunks = self._tables["chunks"]
        indices = list(chunks.list_indices())
        self._has_fts = any(i.index_type == "FTS" for i in indices)
        self._chunks_ann = any("vector" in i.columns and i.index_type != "FTS" for i in indices)
        self._levels = LevelTables.open(self.db, chunks, self.settings.ann_level_min_rows)
        built = any(n.startswith("chunks_level_") for n in self.db.list_tables().tables)
        self._has_ann = self._chunks_ann or built
        if self._chunks_ann:
            # Probe ~10% of the IVF partitions (sqrt(rows) of them), at least 20: on MuSiQue
            # vectors 20 probes of 110 partitions with refine 10 kept 98.7% of the exact
            # top 10; a fixed 20 of 316 partitions would probe a smaller share at 100k rows.
            partitions = math.sqrt(max(1, self._tables["chunks"].count_rows()))
            self._nprobes = max(20, math.ceil(0.1 * partitions))

    def _load_state(self) -> None:
        docs = self._tables["documents"]
        rows = docs.search().select(
            ["doc_id", "ingest_hash", "status", "version", "metadata", "title"]
        )
        self._docs = {
            r["doc_id"]: DocState(
                ingest_hash=r["ingest_hash"],
                status=r["status"],
                version=r["version"],
                metadata=json.loads(r["metadata"] or "{}"),
                title=r["title"] or "",
            )
            for r in rows.limit(None).to_arrow().to_pylist()
        }
        versions = (
            self._tables["document_versions"].search().select(["doc_id", "version", "ingest_hash"])
        )
        self._latest = {}
        for r in versions.limit(None).to_arrow().to_pylist():
            if r["version"] > self._latest.get(r["doc_id"], (0, ""))[0]:
                self._latest[r["doc_id"]] = (r["version"], r["ingest_hash"])

    def _table(self, name: str) -> Any:
        if self._db is None:
            raise StoreUnavailable("LanceChunkStore is not open: call store.open() first.")
        return self._tables[name]

    def refresh(self) -> bool:
        """Move every table to its latest version and reload the document state, so what
        another engine or process committed is seen (see :mod:`kg_rag.stores.freshness`).

        Returns:
            True when a table had moved on.
        """
        if self._db is None:
            return False
        with self._lock:
            moved = False
            for table in self._tables.values():
                before = table.version
                table.checkout_latest()
                moved = moved or table.version != before
            if moved:
                self._forget_reads()
                self._load_state()
            # Level tables are written after ``chunks`` and recorded in kb_meta after them:
            # look again whatever moved (refresh runs only when some table did).
            self._refresh_index_flags()
            return moved

    def _forget_reads(self) -> None:
        self._chunk_cache.clear()
        self._sentence_cache.clear()
        self._chunks_in_memory = None
        self._row_ids = None

    # -- document state (for the ingest pipeline) ------------------------------------------
    def document_hashes(self) -> dict[str, str]:
        """doc_id → ingest hash of every completely stored document (pending ones excluded)."""
        self._table("documents")
        return {d: s.ingest_hash for d, s in self._docs.items() if s.status == "done"}

    def pending_documents(self) -> list[str]:
        """Documents whose last write did not finish (they must be ingested again)."""
        self._table("documents")
        return sorted(d for d, s in self._docs.items() if s.status != "done")

    def has_document(self, doc_id: str) -> bool:
        """True when the document is stored (done or pending)."""
        self._table("documents")
        return doc_id in self._docs

    def known_vectors(self, doc_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Vectors of the stored chunks of ``doc_ids`` by vector key (for reuse on re-ingest)."""
        ids = [d for d in doc_ids if d in self._docs]
        if not ids:
            return {}
        out: dict[str, npt.NDArray[np.float32]] = {}
        for start in range(0, len(ids), 500):
            table = (
                self._table("chunks")
                .search()
                .where(sql_in("doc_id", ids[start : start + 500]))
                .select(["vector_key", "vector"])
                .limit(None)
                .to_arrow()
            )
            if table.num_rows == 0:
                continue
            keys = table.column("vector_key").to_pylist()
            matrix = vector_matrix(table, self._dim)
            for key, row in zip(keys, matrix, strict=True):
                if key and not key.startswith("m:"):
                    out[key] = row
        return out

    # -- writes ------------------------------------------------------------------------------
    def write_documents(self, writes: Sequence[DocumentWrite]) -> list[Document]:
        """Store new versions of documents, replacing their chunks.

        The order makes a crash recoverable: the version is recorded, the documents are
        marked ``pending``, their chunks are replaced, and only then are they marked ``done``.
        A re-run re-ingests any pending document (and reuses a version row left unused).

        Args:
            writes: Documents with their chunks and vectors (one doc_id at most once).

        Returns:
            The stored documents, with their new version numbers.
        """
        if not writes:
            return []
        docs_table = self._table("documents")
        stamp = now()
        stored: list[Document] = []
        doc_rows: list[dict[str, Any]] = []
        version_rows: list[dict[str, Any]] = []
        for w in writes:
            doc_id = w.document.doc_id
            last, last_hash = self._latest.get(doc_id, (0, ""))
            state = self._docs.get(doc_id)
            current = state is not None and state.status == "done" and state.version == last
            # A crash after the version row was written leaves it unused: take its number
            # again instead of recording the same content twice.
            version = last if last and last_hash == w.ingest_hash and not current else last + 1
            document = w.document.model_copy(update={"version": version})
            stored.append(document)
            meta_json = json.dumps(document.metadata, sort_keys=True, ensure_ascii=False)
            doc_rows.append(
                {
                    "doc_id": doc_id,
                    "source": document.source,
                    "title": document.title,
                    "format": w.format,
                    "content_hash": document.content_hash,
                    "ingest_hash": w.ingest_hash,
                    "version": version,
                    "status": "pending",
                    "metadata": meta_json,
                    "text": document.text,
                    "updated_at": stamp,
                }
            )
            layout = [c.model_dump() for c in w.chunks]
            version_rows.append(
                {
                    "doc_id": doc_id,
                    "version": version,
                    "content_hash": document.content_hash,
                    "ingest_hash": w.ingest_hash,
                    "title": document.title,
                    "source": document.source,
                    "format": w.format,
                    "metadata": meta_json,
                    "text": document.text,
                    "chunks": json.dumps(layout, ensure_ascii=False),
                    "created_at": stamp,
                }
            )
        schemas = table_schemas(self._dim)
        ids = [w.document.doc_id for w in writes]
        # 1. the version (history first: a crash later leaves a version that is reused)
        (
            self._table("document_versions")
            .merge_insert(["doc_id", "version"])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(pa.Table.from_pylist(version_rows, schema=schemas["document_versions"]))
        )
        for w, document in zip(writes, stored, strict=True):
            self._latest[document.doc_id] = (document.version, w.ingest_hash)
        # 2. the documents, pending: from here on a crash makes the next ingest redo them
        (
            docs_table.merge_insert("doc_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(pa.Table.from_pylist(doc_rows, schema=schemas["documents"]))
        )
        for row, document in zip(doc_rows, stored, strict=True):
            self._docs[document.doc_id] = DocState(
                ingest_hash=row["ingest_hash"],
                status="pending",
                version=document.version,
                metadata=document.metadata,
                title=document.title,
            )
        # 3. the chunks
        with self._lock:
            self._forget_reads()
        chunks_table = self._table("chunks")
        chunks_table.delete(sql_in("doc_id", ids))
        chunk_data = self._chunk_table(writes, schemas["chunks"])
        if chunk_data.num_rows:
            chunks_table.add(chunk_data)
        if self._levels is not None:
            self._levels.replace_documents(ids, chunk_data)
            self._levels.mark_synced(self.db, chunks_table)
        # 4. done
        docs_table.update(where=sql_in("doc_id", ids), values={"status": "done"})
        for document in stored:
            self._docs[document.doc_id].status = "done"
        return stored

    def _chunk_table(self, writes: Sequence[DocumentWrite], schema: pa.Schema) -> pa.Table:
        columns: dict[str, list[Any]] = {name: [] for name in schema.names if name != "vector"}
        vectors = []
        for w in writes:
            matrix = np.asarray(w.vectors, dtype=np.float32).reshape(len(w.chunks), self._dim)
            vectors.append(matrix)
            for c, key, index_text in zip(w.chunks, w.vector_keys, w.index_texts, strict=True):
                columns["chunk_id"].append(c.chunk_id)
                columns["doc_id"].append(c.doc_id)
                columns["level"].append(c.level)
                columns["parent_id"].append(c.parent_id)
                columns["ordinal"].append(c.ordinal)
                columns["heading_path"].append(list(c.heading_path))
                columns["char_start"].append(c.char_start)
                columns["char_end"].append(c.char_end)
                columns["text"].append(c.text)
                columns["metadata"].append(
                    json.dumps(c.metadata, sort_keys=True, ensure_ascii=False)
                )
                columns["tokens"].append(" ".join(bm25_tokens(index_text)))
                columns["vector_key"].append(key)
        flat = np.concatenate(vectors).ravel() if vectors else np.zeros(0, dtype=np.float32)
        arrays = [
            pa.array(columns[name], type=schema.field(name).type)
            for name in schema.names
            if name != "vector"
        ]
        arrays.append(
            pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), self._dim)
        )
        return pa.Table.from_arrays(arrays, schema=schema)

    def delete_document(self, doc_id: str) -> None:
        """Delete a document, its chunks and its version history (no error if absent)."""
        where = f"doc_id = {quote(doc_id)}"
        with self._lock:
            self._forget_reads()
        self._table("chunks").delete(where)
        if self._levels is not None:
            self._levels.delete(where)
            self._levels.mark_synced(self.db, self._table("chunks"))
        self._table("documents").delete(where)
        self._table("document_versions").delete(where)
        self._docs.pop(doc_id, None)
        self._latest.pop(doc_id, None)

    def optimize(self) -> None:
        """Compact files and bring indexes up to date; build the full-text index once there
        are chunks, and the level tables with their vector indexes once there are
        ``ann_index_min_rows`` of them (or when they are missing or out of date past it)."""
        chunks = self._table("chunks")
        rows = chunks.count_rows()
        if rows == 0:
            return
        from lancedb.index import FTS

        created = False
        if not self._has_fts:
            # Tokens are pre-segmented (jieba for Chinese): split on whitespace only, then
            # lower-case, fold accents and stem English words.
            chunks.create_index(
                "tokens",
                config=FTS(
                    base_tokenizer="whitespace",
                    lower_case=True,
                    stem=True,
                    remove_stop_words=False,
                    ascii_folding=True,
                    max_token_length=64,
                ),
            )
            created = True
        past_threshold = self._has_ann
        if not past_threshold and rows >= self.settings.ann_index_min_rows:
            self._create_scalar_indexes(rows)
            past_threshold = created = True
        chunks.optimize()
        if past_threshold and self._levels is None:
            self._levels = LevelTables.build(
                self.db, chunks, self._dim, self.settings.ann_level_min_rows
            )
            created = True
        elif self._levels is not None:
            self._levels.optimize()
            self._levels.mark_synced(self.db, chunks)
        if created:
            self._refresh_index_flags()
        with self._lock:  # compaction renumbers rows
            self._forget_reads()

    def _create_scalar_indexes(self, rows: int) -> None:
        # Scalar indexes keep id lookups (parents, get_chunks) and level filters fast; the
        # vectors are indexed per level (the level tables).
        from lancedb.index import Bitmap, BTree

        logger.info("indexing %d chunks by id, document and level", rows)
        chunks = self._table("chunks")
        chunks.create_index("chunk_id", config=BTree())
        chunks.create_index("doc_id", config=BTree())
        chunks.create_index("level", config=Bitmap())

    # -- versions --------------------------------------------------------------------------
    def document_versions(self, doc_id: str) -> list[DocumentVersion]:
        """The document's version history, oldest first."""
        rows = (
            self._table("document_versions")
            .search()
            .where(f"doc_id = {quote(doc_id)}")
            .select(
                ["doc_id", "version", "content_hash", "title", "source", "created_at", "chunks"]
            )
            .limit(None)
            .to_arrow()
            .to_pylist()
        )
        current = self._docs.get(doc_id)
        out = [
            DocumentVersion(
                doc_id=r["doc_id"],
                version=r["version"],
                content_hash=r["content_hash"],
                title=r["title"],
                source=r["source"],
                created_at=r["created_at"],
                chunks=len(json.loads(r["chunks"])),
                current=current is not None and current.version == r["version"],
            )
            for r in rows
        ]
        return sorted(out, key=lambda v: v.version)

    def rollback(self, doc_id: str, version: int) -> Document:
        """Make an earlier version current again (recorded as a new version).

        Vectors of chunks the current version shares with the old one are reused; the rest
        are computed.

        Raises:
            KeyError: No such version of the document.
        """
        rows = (
            self._table("document_versions")
            .search()
            .where(f"doc_id = {quote(doc_id)} AND version = {int(version)}")
            .limit(None)
            .to_arrow()
            .to_pylist()
        )
        if not rows:
            raise KeyError(f"document {doc_id!r} has no version {version}; see document_versions()")
        row = rows[0]
        chunks = [Chunk.model_validate(c) for c in json.loads(row["chunks"])]
        vec = self.vectorizer.vectorize([(row["title"], chunks)], self.known_vectors([doc_id]))
        document = Document(
            doc_id=doc_id,
            source=row["source"],
            title=row["title"],
            content_hash=row["content_hash"],
            metadata=json.loads(row["metadata"] or "{}"),
            text=row["text"],
        )
        write = DocumentWrite(
            document=document,
            format=row["format"],
            ingest_hash=row["ingest_hash"],
            chunks=chunks,
            vectors=vec.vectors[0],
            vector_keys=vec.keys[0],
            index_texts=vec.texts[0],
        )
        stored = self.write_documents([write])[0]
        self.optimize()
        return stored

    # -- reads -----------------------------------------------------------------------------
    def _select(self, where: str) -> list[Chunk]:
        return [
            row_to_chunk(r) for r in scan(self._table("chunks"), where, CHUNK_COLUMNS).to_pylist()
        ]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id, in the order asked (missing ids are left out)."""
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted:
            return []
        snapshot = self._snapshot(load=False)
        if snapshot is not None:
            return snapshot.chunks(
                [p for i in wanted if (p := snapshot.position.get(i)) is not None]
            )
        found: dict[str, Chunk] = {}
        with self._lock:
            for i in wanted:
                if (hit := self._chunk_cache.get(i)) is not None:
                    found[i] = hit
                    self._chunk_cache.move_to_end(i)  # least recently used goes first
        missing = [i for i in wanted if i not in found]
        fetched: list[Chunk] = []
        row_ids = self._row_ids
        if row_ids is not None and missing:
            rows = row_ids.find(missing)
            levels = self._levels
            fetched = take_chunks(self._table("chunks"), [r for r in rows if "_level" not in r])
            if levels is not None:
                fetched += levels.take([r for r in rows if "_level" in r])
            taken = {c.chunk_id for c in fetched}
            missing = [i for i in missing if i not in taken]  # read by id below
        for start in range(0, len(missing), 500):
            fetched += self._select(sql_in("chunk_id", missing[start : start + 500]))
        found.update((c.chunk_id, c) for c in fetched)
        self._remember_chunks(fetched)
        return [found[i] for i in wanted if i in found]

    def _remember_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Keep chunks just read (fetched by id, or returned by a search) in the read cache: a
        question's graph evidence and small-to-big parents are mostly chunks its searches
        have already returned, and each id lookup is a query of its own."""
        with self._lock:
            for c in chunks:
                self._chunk_cache[c.chunk_id] = c
                self._chunk_cache.move_to_end(c.chunk_id)
            while len(self._chunk_cache) > _CHUNK_CACHE:
                self._chunk_cache.popitem(last=False)

    def sentence_similarity(
        self, query: str, doc_ids: Sequence[str]
    ) -> dict[str, list[tuple[int, int, float]]]:
        """doc id → [(char_start, char_end, cosine)] of every stored sentence of ``doc_ids``
        against ``query``'s vector: exact, from the documents' sentence vectors (the
        in-memory snapshot below the ANN threshold; above it read once per document and
        kept until the next write)."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        snapshot = self._snapshot()
        have = (
            {d: self._sentences_in(snapshot, d) for d in ids}
            if snapshot is not None
            else self._read_sentences(ids)
        )
        q = np.asarray(self.embed_query(query), dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        out: dict[str, list[tuple[int, int, float]]] = {}
        with single_blas_thread():
            for d in ids:
                sv = have[d]
                if sv.spans:
                    sims = sv.matrix @ q
                    out[d] = [(a, b, float(x)) for (a, b), x in zip(sv.spans, sims, strict=True)]
        return out

    @staticmethod
    def _sentences_in(snapshot: ChunkSnapshot, doc_id: str) -> _SentenceVectors:
        rows = snapshot.scope(["sentence"], [doc_id])
        return _SentenceVectors(
            spans=[(snapshot.starts[i], snapshot.ends[i]) for i in rows],
            matrix=snapshot.matrix[rows],
        )

    def _read_sentences(self, ids: list[str]) -> dict[str, _SentenceVectors]:
        """The documents' sentence vectors from the read cache, the rest read by filter."""
        with self._lock:
            have = {d: v for d in ids if (v := self._sentence_cache.get(d)) is not None}
            for d in have:
                self._sentence_cache.move_to_end(d)  # least recently used goes first
        missing = [d for d in ids if d not in have]
        columns = ["doc_id", "char_start", "char_end", "vector"]
        for start in range(0, len(missing), 500):
            part = missing[start : start + 500]
            where = f"{sql_in('doc_id', part)} AND level = 'sentence'"
            table = scan(self._table("chunks"), where, columns)
            rows: dict[str, list[int]] = {d: [] for d in part}
            for n, d in enumerate(table.column("doc_id").to_pylist()):
                rows[d].append(n)
            starts = table.column("char_start").to_pylist()
            ends = table.column("char_end").to_pylist()
            matrix = unit_rows(vector_matrix(table, self._dim))
            for d, idx in rows.items():
                have[d] = _SentenceVectors(
                    spans=[(starts[i], ends[i]) for i in idx], matrix=matrix[idx]
                )
        with self._lock:
            for d in missing:
                self._sentence_cache[d] = have[d]
            while len(self._sentence_cache) > _SENTENCE_CACHE:
                self._sentence_cache.popitem(last=False)
        return have

    def _snapshot(self, load: bool = True) -> ChunkSnapshot | None:
        """The chunks table in memory (:class:`ChunkSnapshot`), read in one scan while it is
        below the ANN threshold; None from there on (the level tables and scalar indexes serve).
        Reads by id pass ``load=False``: they use a snapshot a search has read, but do not
        read one themselves (ingest reads a batch's chunks after each write, which drops it).
        """
        if self._has_ann:
            return None
        with self._lock:
            if self._chunks_in_memory is None and load:
                self._chunks_in_memory = ChunkSnapshot(self._table("chunks"), self._dim)
            return self._chunks_in_memory

    def chunks_for_documents(
        self, doc_ids: Sequence[str], level: ChunkLevel | None = None
    ) -> list[Chunk]:
        """The chunks of documents (optionally of one level), by document then text order."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return []
        snapshot = self._snapshot(load=False)
        out: list[Chunk] = []
        if snapshot is not None:
            out = snapshot.chunks(snapshot.scope([level] if level else None, ids))
            ids_to_read: list[str] = []
        else:
            ids_to_read = ids
        for start in range(0, len(ids_to_read), 500):
            where = sql_in("doc_id", ids_to_read[start : start + 500])
            if level is not None:
                where += f" AND level = {quote(level)}"
            out.extend(self._select(where))
        rank = {lvl: i for i, lvl in enumerate(CHUNK_LEVELS)}
        order = {d: i for i, d in enumerate(ids)}
        return sorted(out, key=lambda c: (order[c.doc_id], c.char_start, rank[c.level], c.char_end))

    def parent(self, chunk: Chunk) -> Chunk | None:
        """The chunk's parent (a sentence's paragraph, ...), or ``None`` for a document chunk."""
        if chunk.parent_id is None:
            return None
        found = self.get_chunks([chunk.parent_id])
        return found[0] if found else None

    def children(self, chunk_id: str) -> list[Chunk]:
        """The chunk's children in order."""
        return sorted(self._select(f"parent_id = {quote(chunk_id)}"), key=lambda c: c.ordinal)

    def get_document(self, doc_id: str) -> Document | None:
        """The current version of a document, with its cleaned text."""
        rows = (
            self._table("documents")
            .search()
            .where(f"doc_id = {quote(doc_id)}")
            .limit(1)
            .to_arrow()
            .to_pylist()
        )
        if not rows:
            return None
        return row_to_document(rows[0], with_text=True)

    def document_titles(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """doc id → title of each stored document among ``doc_ids`` (kept in memory)."""
        return {d: s.title for d in doc_ids if (s := self._docs.get(d)) is not None}

    def list_documents(self) -> list[Document]:
        """Every stored document (without text: use :meth:`get_document`), sorted by id."""
        rows = self._table("documents").search().select(DOC_COLUMNS).limit(None).to_arrow()
        docs = [row_to_document(r, with_text=False) for r in rows.to_pylist()]
        return sorted(docs, key=lambda d: d.doc_id)

    def chunk_counts(self) -> dict[str, int]:
        """Number of stored chunks per level."""
        table = self._table("chunks")
        return {level: table.count_rows(f"level = {quote(level)}") for level in CHUNK_LEVELS}

    # -- search ----------------------------------------------------------------------------
    def embed_query(self, text: str) -> list[float]:
        """The query's vector (cached: repeated queries are not embedded again)."""
        with self._lock:
            cached = self._query_cache.get(text)
            if cached is not None:
                self._query_cache.move_to_end(text)
                return cached
        vector = [float(x) for x in self.embedder.embed_query(text)]
        with self._lock:
            self._query_cache[text] = vector
            if len(self._query_cache) > 2048:
                self._query_cache.popitem(last=False)
        return vector

    def embed_queries(self, texts: Sequence[str]) -> None:
        """Embed the queries not cached yet in one batch and cache them (a question and the
        steps that do not wait for another step's answer are known together: one forward
        pass costs less than one per query). Embedders without ``embed_query_array`` embed
        one by one."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._query_cache]
        if not missing:
            return
        batch = getattr(self.embedder, "embed_query_array", None)
        if batch is None or len(missing) == 1:
            for text in missing:
                self.embed_query(text)
            return
        rows = batch(missing)
        with self._lock:
            for text, row in zip(missing, rows, strict=True):
                self._query_cache[text] = [float(x) for x in row]
            while len(self._query_cache) > 2048:
                self._query_cache.popitem(last=False)

    def query_dense_weight(self, query: str) -> float:
        """The dense share of relative-score fusion for ``query``: :attr:`dense_weight` times
        the share of the query's tokens the embedder knows
        (:func:`~kg_rag.embeddings.vocabulary_coverage`). A Chinese question read by
        English-only MiniLM is mostly ``[UNK]``; its vector matches noise, so BM25 (jieba)
        carries the ranking instead of being outvoted by it. Full coverage (any English query,
        a multilingual embedder) leaves :attr:`dense_weight` as it is."""
        return self.dense_weight * vocabulary_coverage(self.embedder, query)

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks clear it to time the embedding too)."""
        with self._lock:
            self._query_cache.clear()

    def clear_caches(self) -> None:
        """Forget cached query vectors and cached reads (chunks by id, sentence vectors):
        benchmarks clear them so that each system pays for its own. The row ids of chunk ids
        stay: like an index, they hold for the table version, not for a query."""
        with self._lock:
            self._query_cache.clear()
            row_ids = self._row_ids
            self._forget_reads()
            self._row_ids = row_ids

    def _scope(
        self,
        level: ChunkLevel | Sequence[ChunkLevel] | None,
        doc_ids: Sequence[str] | None,
        where: Mapping[str, str] | None,
    ) -> tuple[list[str] | None, list[str] | None]:
        """The levels and the documents a search may return (None: any)."""
        levels: list[str] | None = None
        if level is not None:
            levels = [level] if isinstance(level, str) else [str(lv) for lv in level]
        ids: set[str] | None = set(doc_ids) if doc_ids is not None else None
        if where:
            matching = {
                d
                for d, s in self._docs.items()
                if all(s.metadata.get(k) == v for k, v in where.items())
            }
            ids = matching if ids is None else ids & matching
        return levels, (sorted(ids) if ids is not None else None)

    @staticmethod
    def _sql(levels: list[str] | None, ids: list[str] | None) -> str | None:
        clauses = []
        if levels is not None:
            clauses.append(sql_in("level", levels))
        if ids is not None:
            clauses.append(sql_in("doc_id", ids))
        return " AND ".join(clauses) or None

    def search(
        self,
        query: str,
        *,
        mode: SearchMode = "hybrid",
        level: ChunkLevel | Sequence[ChunkLevel] | None = None,
        top_k: int = 10,
        doc_ids: Sequence[str] | None = None,
        where: dict[str, str] | None = None,
        expand_parent: bool = False,
        candidates: int = 50,
    ) -> list[ChunkHit]:
        """Search chunks by vector, BM25, or both fused by reciprocal rank.

        Args:
            query: The question or keywords (any language; Chinese is segmented for BM25).
            mode: ``"dense"``, ``"bm25"`` or ``"hybrid"``.
            level: Only chunks of this level (or these levels).
            top_k: Hits to return.
            doc_ids: Only chunks of these documents.
            where: Only documents whose metadata has all these key/values.
            expand_parent: Attach each hit's parent chunk (small-to-big).
            candidates: Hits taken from each method before fusion (hybrid).

        Returns:
            Hits, best first. ``scores`` holds ``dense`` (cosine similarity), ``bm25`` and,
            for hybrid, ``rrf``; ``score`` is the one that ranked the hit.
        """
        if top_k <= 0:
            return []
        levels, ids = self._scope(level, doc_ids, where)
        if ids is not None and not ids:
            return []
        pool = max(candidates, top_k) if mode == "hybrid" else top_k
        dense: list[tuple[dict[str, Any], float]] = []
        sparse: list[tuple[dict[str, Any], float]] = []
        # Below the ANN threshold both methods search the table in memory (exact, and
        # scored like LanceDB); above it LanceDB's indexes answer all in one call. Either
        # way candidates are ids and scores: rows are taken below for the hits only.
        snapshot = self._snapshot()
        with_dense = mode in ("dense", "hybrid")
        with_bm25 = mode in ("bm25", "hybrid") and self._has_fts
        vector = self.embed_query(query) if with_dense else None
        if snapshot is not None:
            scope = snapshot.scope(levels, ids)
            if vector is not None:
                dense = snapshot.candidates(snapshot.nearest(vector, scope, pool))
            if with_bm25:
                sparse = snapshot.candidates(snapshot.bm25(bm25_tokens(query), scope, pool))
        elif vector is not None or with_bm25:
            dense, sparse = self._indexed(vector, query if with_bm25 else None, levels, ids, pool)
        rows: dict[str, dict[str, Any]] = {}
        scores: dict[str, dict[str, float]] = {}
        for name, ranked in (("dense", dense), ("bm25", sparse)):
            for row, score in ranked:
                rows.setdefault(row["chunk_id"], row)
                scores.setdefault(row["chunk_id"], {})[name] = score
        key: str = mode
        if mode == "hybrid":
            fuse(
                dense,
                sparse,
                scores,
                rrf_k=self.settings.rrf_k,
                dense_weight=self.query_dense_weight(query),
            )
            key = self.fusion
        ordered = sorted(scores, key=lambda cid: (-scores[cid].get(key, 0.0), cid))[:top_k]
        found = self._hit_chunks([rows[cid] for cid in ordered], snapshot)
        hits = [
            ChunkHit(chunk=found[cid], score=scores[cid].get(key, 0.0), scores=scores[cid])
            for cid in ordered
        ]
        if snapshot is None:  # the snapshot serves reads by id while it is there
            self._remember_chunks([h.chunk for h in hits])
        if expand_parent:
            parents = {
                c.chunk_id: c
                for c in self.get_chunks([h.chunk.parent_id for h in hits if h.chunk.parent_id])
            }
            hits = [
                h.model_copy(update={"parent": parents.get(h.chunk.parent_id or "")}) for h in hits
            ]
        return hits

    def _indexed(
        self,
        vector: Sequence[float] | None,
        text: str | None,
        levels: list[str] | None,
        ids: list[str] | None,
        pool: int,
    ) -> tuple[list[Candidate], list[Candidate]]:
        """Candidates past the ANN threshold, in one call on LanceDB's loop: BM25 over
        ``chunks``; dense over the level tables (each level its own index), or, within a few
        documents, exact over their rows of ``chunks``; through the index over ``chunks``
        only while the level tables are not built (or out of date)."""
        sql = self._sql(levels, ids)
        chunks = self._table("chunks")
        if self._row_ids is None:
            version = chunks.version
            # Chunks are read from the level tables when there are (one packed column).
            row_ids = RowIds(self._levels.tables if self._levels is not None else {"": chunks})
            with self._lock:
                if self._row_ids is None and chunks.version == version:
                    self._row_ids = row_ids
        if ids is not None and len(ids) <= _EXACT_SCOPE_DOCS:
            return indexed_candidates(chunks, vector, text, sql, pool, 0)
        if self._levels is not None:
            return indexed_candidates(
                chunks,
                vector,
                text,
                sql,
                pool,
                None,
                dense_tables=self._levels.targets(levels),
                dense_where=self._sql(None, ids),
                dense_refine=REFINE,
            )
        return indexed_candidates(
            chunks, vector, text, sql, pool, self._nprobes if self._chunks_ann else None
        )

    def _hit_chunks(
        self, rows: Sequence[dict[str, Any]], snapshot: ChunkSnapshot | None
    ) -> dict[str, Chunk]:
        """chunk id → chunk for the search rows kept as hits: from the snapshot (rows carry
        a row position) or else from the chunk read cache, the rest in one take by row id."""
        if snapshot is not None:
            taken = snapshot.chunks([r["_row"] for r in rows])
            return {c.chunk_id: c for c in taken}
        found: dict[str, Chunk] = {}
        with self._lock:
            for r in rows:
                if (hit := self._chunk_cache.get(r["chunk_id"])) is not None:
                    found[hit.chunk_id] = hit
        missing = [r for r in rows if r["chunk_id"] not in found]
        levels = self._levels
        from_levels = [r for r in missing if "_level" in r] if levels is not None else []
        if levels is not None and from_levels:
            found.update((c.chunk_id, c) for c in levels.take(from_levels))
        # A level row whose tables went out of date meanwhile is read from ``chunks`` by id
        # (``take_chunks`` keeps only rows whose id matches).
        rest = [r for r in missing if r["chunk_id"] not in found]
        found.update((c.chunk_id, c) for c in take_chunks(self._table("chunks"), rest))
        return found
