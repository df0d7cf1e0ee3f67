"""Candidate retrieval and fusion for :meth:`~kg_rag.stores.chunks.LanceChunkStore.search`.

Each candidate is ``(row, score)``: the chunk row (columns of ``CHUNK_COLUMNS``) and the
method's score (cosine similarity for dense, BM25 for full-text).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kg_rag.embeddings import single_blas_thread
from kg_rag.models import Chunk
from kg_rag.stores._chunk_tables import CHUNK_COLUMNS, row_to_chunk, sql_in
from kg_rag.stores._memory_bm25 import MemoryBm25
from kg_rag.text import bm25_tokens

__all__ = [
    "Candidate",
    "ChunkSnapshot",
    "RowIds",
    "dense_query",
    "fuse",
    "indexed_candidates",
    "run_lance",
    "scan",
    "take_chunks",
    "unit_rows",
    "vector_matrix",
]

Candidate = tuple[dict[str, Any], float]
_MADE_CHUNKS = 20_000  # chunks a snapshot keeps made (see ChunkSnapshot.chunks)


def _async_table(table: Any) -> Any:
    """The ``AsyncTable`` behind a synchronous LanceDB table (the same handle and version;
    LanceDB 0.40 keeps it as ``_table`` and offers no public accessor)."""
    return table._table


def run_lance(coroutine: Any) -> Any:
    """Run a LanceDB coroutine on LanceDB's own background event loop and wait for it.

    LanceDB's synchronous query builder crosses to that loop several times per query (the
    table schema, three times, then every batch); under the pipeline's threads on a small
    machine each crossing waits for a wake-up. One crossing per read, with the concurrent
    parts of the read gathered inside it, is what the engine pays instead.
    """
    from lancedb.background_loop import LOOP

    return LOOP.run(coroutine)  # type: ignore[no-untyped-call]


def scan(table: Any, where: str, columns: Sequence[str]) -> Any:
    """The rows matching ``where`` (every one), with ``columns``, as an Arrow table."""
    return run_lance(_async_table(table).query().where(where).select(list(columns)).to_arrow())


def dense_query(
    table: Any,
    vector: Sequence[float],
    where: str | None,
    limit: int,
    nprobes: int | None,
    refine: int = 10,
) -> Any:
    """The async dense query (cosine; through the IVF index when ``nprobes``, re-ranked
    with the exact vectors of ``refine`` × ``limit`` candidates; exact otherwise, past any
    index when ``nprobes`` is 0) returning ``chunk_id``, ``_distance`` and ``_rowid``, not
    yet run."""
    dense = _async_table(table).query().nearest_to(list(vector)).column("vector")
    dense = dense.distance_type("cosine")
    if nprobes == 0:
        dense = dense.bypass_vector_index()
    elif nprobes is not None:
        # refine_factor re-ranks that many times the candidates with the exact vectors:
        # PQ distances alone lose neighbours (10x for PQ, 2x for 8-bit SQ).
        dense = dense.nprobes(nprobes).refine_factor(refine)
    if where:
        dense = dense.where(where)  # a prefilter: the async query's default
    return dense.select(["chunk_id", "_distance"]).with_row_id().limit(limit)


def indexed_candidates(
    table: Any,
    vector: Sequence[float] | None,
    text: str | None,
    where: str | None,
    limit: int,
    nprobes: int | None,
    *,
    dense_tables: Sequence[tuple[str, Any, int | None]] | None = None,
    dense_where: str | None = None,
    dense_refine: int = 10,
) -> tuple[list[Candidate], list[Candidate]]:
    """Dense (cosine, through the IVF-PQ index when ``nprobes``) and BM25 candidates (any
    of the query words, over the pre-tokenized ``tokens`` column) from LanceDB's indexes.

    All queries run concurrently in one call on LanceDB's loop (:func:`run_lance`) and
    return ids, row ids and scores only: a row is ``{"chunk_id", "_rowid"}``, and the store
    reads whole rows for the hits it keeps (:func:`take_chunks`), not for every candidate.
    ``vector`` None skips the dense query, ``text`` None the BM25 one.

    ``dense_tables`` — (tag, table, nprobes) of per-level tables — moves the dense query
    there (filtered by ``dense_where``, refined ``dense_refine`` times): one query per
    table, all in the same call, merged
    by similarity (exact on every side: refined or flat), ties by chunk id; each row carries
    its table's tag as ``_level``.
    """
    atable = _async_table(table)
    tokens = bm25_tokens(text) if text is not None else []
    if vector is None:
        dense_jobs: list[tuple[str | None, Any]] = []
    elif dense_tables is not None:
        dense_jobs = [
            (tag, dense_query(t, vector, dense_where, limit, probes, dense_refine))
            for tag, t, probes in dense_tables
        ]
    else:
        dense_jobs = [(None, dense_query(table, vector, where, limit, nprobes))]

    async def gather() -> list[Any]:
        jobs = [job for _, job in dense_jobs]
        if tokens:
            from lancedb.query import FullTextOperator, MatchQuery

            match = MatchQuery(
                " ".join(tokens),
                "tokens",
                boost=1.0,
                fuzziness=0,
                max_expansions=50,
                operator=FullTextOperator.OR,
                prefix_length=0,
                document_granularity=None,
            )
            sparse = atable.query().nearest_to_text(match)
            if where:
                sparse = sparse.where(where)
            jobs.append(sparse.select(["chunk_id", "_score"]).with_row_id().limit(limit))
        return list(await asyncio.gather(*(job.to_arrow() for job in jobs)))

    results = run_lance(gather())
    dense: list[Candidate] = []
    for (tag, _), found in zip(dense_jobs, results, strict=False):
        for row, distance in _id_rows(found, "_distance"):
            if tag is not None:
                row["_level"] = tag
            dense.append((row, 1.0 - distance))
    if len(dense_jobs) > 1:
        dense.sort(key=lambda c: (-c[1], c[0]["chunk_id"]))
        dense = dense[:limit]
    sparse_rows = _id_rows(results[len(dense_jobs)], "_score") if tokens else []
    return dense, sparse_rows


def _id_rows(found: Any, score: str) -> list[Candidate]:
    ids = found.column("chunk_id").to_pylist()
    row_ids = found.column("_rowid").to_pylist()
    scores = found.column(score).to_pylist()
    return [
        ({"chunk_id": c, "_rowid": r}, float(x))
        for c, r, x in zip(ids, row_ids, scores, strict=True)
    ]


def take_chunks(
    table: Any,
    rows: Sequence[dict[str, Any]],
    columns: Sequence[str] = CHUNK_COLUMNS,
    to_chunk: Callable[[dict[str, Any]], Chunk] = row_to_chunk,
) -> list[Chunk]:
    """The chunks of search rows that carry a row id (:func:`indexed_candidates`), read in
    one take of ``columns`` and made chunks by ``to_chunk`` (the chunks table's columns by
    default; a level table reads its packed record). A row id belongs to the table version
    the search read; should a write in between have moved the row, the chunk is read by its
    id instead."""
    if not rows:
        return []
    wanted = {r["_rowid"]: r["chunk_id"] for r in rows}
    try:
        taken = run_lance(
            _async_table(table).take_row_ids(list(wanted)).select(list(columns)).to_arrow()
        ).to_pylist()
    except Exception:  # a row id the table's current version no longer has: read by id
        taken = []
    ids = set(wanted.values())
    found = {r["chunk_id"]: to_chunk(r) for r in taken if r["chunk_id"] in ids}
    missing = sorted(ids - found.keys())
    if missing:
        read = scan(table, sql_in("chunk_id", missing), columns).to_pylist()
        found.update((r["chunk_id"], to_chunk(r)) for r in read)
    return [found[c] for c in dict.fromkeys(r["chunk_id"] for r in rows) if c in found]


class RowIds:
    """chunk id → row id of every row of the chunks table (or of the level tables) at one
    version, in sorted arrays (~30 bytes a row: 12 MB at 400k chunks).

    Past the ANN threshold a read by id was a filtered scan through the ``chunk_id`` index,
    10-25 ms for a handful of ids on 400k chunks; with the row ids known it is one take by
    row id (~1-5 ms). Built from one scan of the id column per table; valid for the table
    versions it was read from (the store drops it on every write, compaction and refresh),
    and a row id that points elsewhere all the same is read by id.

    Args:
        tables: tag → table; a row found in a table with a tag other than ``""`` carries it
            as ``_level`` (the level tables), one of the ``""`` table carries none.
    """

    def __init__(self, tables: Mapping[str, Any]) -> None:
        ids: list[Any] = []
        rows: list[Any] = []
        tags: list[Any] = []
        self.tags = list(tables)
        for n, table in enumerate(tables.values()):
            found = run_lance(
                _async_table(table).query().select(["chunk_id"]).with_row_id().to_arrow()
            )
            ids.append(np.asarray(found.column("chunk_id").to_pylist(), dtype=np.bytes_))
            rows.append(np.asarray(found.column("_rowid").to_numpy(), dtype=np.uint64))
            tags.append(np.full(found.num_rows, n, dtype=np.uint8))
        all_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.bytes_)
        order = np.argsort(all_ids, kind="stable")
        self.ids = all_ids[order]
        self.rows = np.concatenate(rows)[order] if rows else np.zeros(0, dtype=np.uint64)
        self.table_of = np.concatenate(tags)[order] if tags else np.zeros(0, dtype=np.uint8)

    def __len__(self) -> int:
        return len(self.ids)

    def find(self, chunk_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Search rows (``chunk_id``, ``_rowid``, and ``_level`` for a level table's) of the
        ids stored, in the order given; ids not stored are left out."""
        if not chunk_ids or not len(self.ids):
            return []
        wanted = np.asarray(list(chunk_ids), dtype=np.bytes_)
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        hit = self.ids[at] == wanted
        out: list[dict[str, Any]] = []
        for c, i, ok in zip(chunk_ids, at, hit, strict=True):
            if ok:
                row: dict[str, Any] = {"chunk_id": c, "_rowid": int(self.rows[i])}
                if tag := self.tags[int(self.table_of[i])]:
                    row["_level"] = tag
                out.append(row)
        return out


def fuse(
    dense: list[Candidate],
    sparse: list[Candidate],
    scores: dict[str, dict[str, float]],
    *,
    rrf_k: int,
    dense_weight: float,
) -> None:
    """Add ``rrf`` and ``relative`` fused scores to each candidate's score dict.

    ``rrf`` = Σ 1 / (k + rank). ``relative`` (relative-score fusion) min-max normalises each
    method's scores over its candidates and mixes them, ``dense_weight`` for dense and the
    rest for BM25; a candidate missing from one list gets 0 from it.
    """
    weights = {"dense": dense_weight, "bm25": 1.0 - dense_weight}
    for entry in scores.values():
        entry["rrf"] = 0.0
        entry["relative"] = 0.0
    for name, ranked in (("dense", dense), ("bm25", sparse)):
        if not ranked:
            continue
        values = [score for _, score in ranked]
        low, high = min(values), max(values)
        for rank, (row, score) in enumerate(ranked):
            entry = scores[row["chunk_id"]]
            entry["rrf"] += 1.0 / (rrf_k + rank + 1)
            normalised = (score - low) / (high - low) if high > low else 1.0
            entry["relative"] += weights[name] * normalised


def vector_matrix(table: Any, dim: int) -> npt.NDArray[np.float32]:
    """The ``vector`` column of an Arrow table as a (rows, dim) float32 matrix."""
    flat = table.column("vector").combine_chunks().flatten().to_numpy()
    return np.asarray(flat, dtype=np.float32).reshape(table.num_rows, dim)


def unit_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``matrix`` with every row scaled to unit length (a zero row stays zero), as a new
    float32 array."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0.0, 1.0, norms)).astype(np.float32, copy=False)


class ChunkSnapshot:
    """The chunks table in memory: every row, every unit vector and BM25 postings.

    Below the ANN threshold the chunk store searches and reads this instead of asking
    LanceDB: one matrix-vector product over every stored vector is exact, like LanceDB's
    brute-force scan, and takes about a millisecond where the scan took 20–50 ms on 12k–40k
    chunks (musique-dev, 2wiki-dev); BM25 scores like LanceDB's full-text index
    (:class:`~kg_rag.stores._memory_bm25.MemoryBm25`); a chunk by id is a dictionary lookup
    where a filtered read took 5–10 ms. Memory: rows × dimension × 4 bytes for the vectors
    (below 80 MB at the default threshold of 50,000 rows with 384 dimensions), the chunks' text
    and, until the postings are built from them, their BM25 tokens. It holds for
    the table version it was read from: the store drops it on every write, compaction and
    refresh.
    """

    def __init__(self, table: Any, dim: int) -> None:
        scan = table.search().select([*CHUNK_COLUMNS, "vector", "tokens"]).limit(None).to_arrow()
        self.rows = scan.select(CHUNK_COLUMNS)
        # BM25 postings are built on the first full-text search from this read of the table
        # (a later read could see a newer version whose row positions differ).
        self._tokens: Any = scan.column("tokens")
        self._bm25: MemoryBm25 | None = None
        self._bm25_lock = threading.Lock()
        self.chunk_ids: list[str] = scan.column("chunk_id").to_pylist()
        self.position = {cid: n for n, cid in enumerate(self.chunk_ids)}
        self.starts: list[int] = scan.column("char_start").to_pylist()
        self.ends: list[int] = scan.column("char_end").to_pylist()
        self.matrix = unit_rows(vector_matrix(scan, dim))
        by_level: dict[str, list[int]] = {}
        by_doc: dict[str, list[int]] = {}
        levels = scan.column("level").to_pylist()
        docs = scan.column("doc_id").to_pylist()
        for n, (doc, level) in enumerate(zip(docs, levels, strict=True)):
            by_level.setdefault(level, []).append(n)
            by_doc.setdefault(doc, []).append(n)
        self.levels = levels
        # Chunks made from rows, by row position: a question's graph evidence, step searches
        # and reader reads mostly ask again for chunks its searches already returned, and
        # the Arrow take plus model building was ~20% of the graph route's time. Chunks are
        # never changed after they are made (the store's read cache shares them the same way).
        self._made: dict[int, Chunk] = {}
        self.by_level = {k: np.asarray(v, dtype=np.int64) for k, v in by_level.items()}
        self.by_doc = {k: np.asarray(v, dtype=np.int64) for k, v in by_doc.items()}

    def chunks(self, positions: Sequence[int]) -> list[Chunk]:
        """The chunks at these row positions, in that order."""
        if not len(positions):
            return []
        made = self._made
        missing = [p for p in dict.fromkeys(positions) if p not in made]
        if not missing:
            return [made[p] for p in positions]
        fresh = dict(
            zip(missing, map(row_to_chunk, self.rows.take(missing).to_pylist()), strict=True)
        )
        out = [fresh[p] if p in fresh else made[p] for p in positions]
        if len(made) + len(fresh) > _MADE_CHUNKS:
            # Bounded: start afresh (a new dict: a reader on another thread keeps the old one).
            self._made = made = {}
        made.update(fresh)
        return out

    def scope(self, levels: Sequence[str] | None, doc_ids: Iterable[str] | None) -> Any:
        """Row positions of these levels within these documents (None: every row)."""
        if doc_ids is not None:
            parts = [self.by_doc[d] for d in doc_ids if d in self.by_doc]
            rows = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
            if levels is not None:
                wanted = set(levels)
                rows = rows[[self.levels[i] in wanted for i in rows]] if len(rows) else rows
            return rows
        if levels is None:
            return None
        parts = [self.by_level[lv] for lv in levels if lv in self.by_level]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

    def candidates(self, ranked: Sequence[tuple[int, float]]) -> list[Candidate]:
        """Search candidates for ranked row positions: the chunk id and the row position (the
        store takes the rows of the hits it keeps from :meth:`chunks`)."""
        return [({"chunk_id": self.chunk_ids[i], "_row": i}, x) for i, x in ranked]

    def bm25(self, tokens: Sequence[str], rows: Any, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` rows (positions) among ``rows`` (None: every row) that score best by
        BM25 for these query words, with their score, best first (:class:`MemoryBm25`)."""
        with self._bm25_lock:
            if self._bm25 is None:
                self._bm25 = MemoryBm25(self._tokens.to_pylist())
                self._tokens = None
            index = self._bm25
        return index.search(tokens, rows, limit)

    def nearest(self, vector: Sequence[float], rows: Any, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` rows (positions) most similar to ``vector`` among ``rows``, with
        their cosine similarity, best first (ties by position)."""
        q = np.asarray(vector, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        if rows is None:
            rows = np.arange(len(self.chunk_ids))
        if limit <= 0 or len(rows) == 0:
            return []
        # One BLAS thread: a matrix-vector product this size gains nothing from more, and
        # waking them stalls the pipeline's other threads on a small machine.
        with single_blas_thread():
            if 8 * len(rows) < len(self.chunk_ids):  # a few documents: only their rows
                sims = self.matrix[rows] @ q
            else:  # one product over everything beats copying most of the matrix
                sims = (self.matrix @ q)[rows]
        if len(sims) > limit:
            top = np.argpartition(-sims, limit - 1)[:limit]
        else:
            top = np.arange(len(sims))
        top = top[np.lexsort((top, -sims[top]))]
        return [(int(rows[i]), float(sims[i])) for i in top]
