"""One vector table per chunk level, for :class:`~kg_rag.stores.chunks.LanceChunkStore` past
its ANN threshold.

Why: a search is always at one level (or two), and one IVF-PQ index over the whole
``chunks`` table makes every level search pay for the others: the ``level`` prefilter's cost
follows the rows of all levels, and the probed partitions hold every level's rows. On the
synthetic 100k-passage base (400k chunks) a paragraph search took ~26 ms through the shared
index, ~11 ms through an index of the paragraphs alone (the same share of each level's rows
probed, the same refine).

Layout: a table ``chunks_level_<level>`` per level of :data:`~kg_rag.models.CHUNK_LEVELS`
holds that level's rows (ids, the chunk packed in one column, and the vector), with its own
vector index (IVF, 8-bit scalar quantization, :func:`level_index_config`) once it has
``min_rows`` rows (exact search below). ``chunks`` stays the table of
record (BM25, reads by id or document, the vectors ingest reuses), so a knowledge base without
level tables — written before they existed, or by a version that does not keep them —
searches as it did, and :meth:`LevelTables.build` adds them on the next ``optimize()``.

They are used only while they mirror ``chunks``: ``kb_meta`` records the ``chunks`` table
version they were last brought up to (:data:`SYNCED_KEY`); a ``chunks`` version that differs
(a writer that does not know the level tables, a crash between the two writes) makes the
store search ``chunks`` alone until ``optimize()`` rebuilds them.
"""

from __future__ import annotations

import json
import logging
import math
import warnings
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pyarrow as pa

from kg_rag.models import CHUNK_LEVELS, Chunk
from kg_rag.stores._chunk_search import take_chunks
from kg_rag.stores._chunk_tables import CHUNK_COLUMNS, quote, row_to_chunk, sql_in, table_schemas

__all__ = [
    "REFINE",
    "SYNCED_KEY",
    "LevelTables",
    "drop_level_tables",
    "level_index_config",
    "level_table_name",
]

logger = logging.getLogger(__name__)

SYNCED_KEY = "level_tables_synced"
"""``kb_meta`` key: the ``chunks`` table version the level tables mirror."""

_PREFIX = "chunks_level_"


def level_table_name(level: str) -> str:
    """The table that holds the chunks of ``level``."""
    return f"{_PREFIX}{level}"


def level_schema(dim: int) -> pa.Schema:
    """``chunk_id`` and ``doc_id`` (deletes, document filters), the chunk packed in one JSON
    ``record`` (a hit is read from one column: a take of 10 rows costs ~1.2 ms against ~3.3
    ms for the ten chunk columns of ``chunks``) and the vector. No BM25 tokens: full-text
    stays on ``chunks``."""
    string = pa.string()
    vector = table_schemas(dim)["chunks"].field("vector")
    return pa.schema([("chunk_id", string), ("doc_id", string), ("record", string), vector])


def level_rows(rows: pa.Table | pa.RecordBatch, schema: pa.Schema) -> pa.Table:
    """Level-table rows of ``chunks``-table rows (the chunk columns and the vector)."""
    columns = {name: rows.column(name).to_pylist() for name in CHUNK_COLUMNS}
    records = [
        json.dumps(dict(zip(CHUNK_COLUMNS, values, strict=True)), ensure_ascii=False)
        for values in zip(*columns.values(), strict=True)
    ]
    return pa.Table.from_arrays(
        [
            pa.array(columns["chunk_id"], pa.string()),
            pa.array(columns["doc_id"], pa.string()),
            pa.array(records, pa.string()),
            rows.column("vector").cast(schema.field("vector").type),
        ],
        schema=schema,
    )


def take_records(table: Any, rows: Sequence[dict[str, Any]]) -> list[Chunk]:
    """The chunks of level-table rows that carry a row id, read in one take of the
    ``record`` column (:func:`~kg_rag.stores._chunk_search.take_chunks`, which reads a moved
    row by its id instead)."""
    return take_chunks(
        table, rows, ["chunk_id", "record"], lambda r: row_to_chunk(json.loads(r["record"]))
    )


REFINE = 2
"""Candidates re-ranked with the exact vectors, per hit asked, through a level's index."""


def level_index_config(rows: int) -> Any:
    """A level's vector index: IVF with sqrt(rows) partitions and 8-bit scalar-quantized
    vectors (cosine). Against IVF-PQ (48 sub-vectors) refined 10x, on the 100k paragraphs
    of the synthetic scale base, 32 of 316 partitions probed, top 50: recall@10 1.000 and
    recall@50 1.000 with a 2x refine (PQ: 1.000 and 1.000 at 10x, 0.96 and 0.79 at 2x),
    half the CPU per query (6.6 against 13.3 ms), built in 13 s instead of ~2 minutes."""
    from lancedb.index import IvfSq

    return IvfSq(distance_type="cosine", num_partitions=max(1, int(math.sqrt(rows))))


def _write_meta(db: Any, updates: dict[str, str | None]) -> None:
    from kg_rag.embedder_choice import write_kb_meta

    write_kb_meta(db, updates)


def drop_level_tables(db: Any) -> None:
    """Drop the level tables and their marker (a writer that replaces ``chunks`` wholesale,
    such as a re-embedding, calls this; the next ``optimize()`` builds them again)."""
    _write_meta(db, {SYNCED_KEY: None})
    existing = set(db.list_tables().tables)
    for level in CHUNK_LEVELS:
        if level_table_name(level) in existing:
            db.drop_table(level_table_name(level))


class LevelTables:
    """The level tables of one knowledge base (see the module docstring).

    Args:
        tables: level → LanceDB table, for every level of ``CHUNK_LEVELS``.
        min_rows: Rows a level needs before it gets its vector index.
    """

    def __init__(self, tables: dict[str, Any], min_rows: int) -> None:
        self.tables = tables
        self.dim = next(iter(tables.values())).schema.field("vector").type.list_size
        self.min_rows = min_rows
        self.nprobes: dict[str, int | None] = {}
        self.refresh_flags()

    # -- opening and building ----------------------------------------------------------------
    @classmethod
    def open(cls, db: Any, chunks: Any, min_rows: int) -> LevelTables | None:
        """The level tables when they exist, have this version's columns and mirror ``chunks``
        at its current version; None otherwise (search ``chunks`` alone)."""
        from kg_rag.embedder_choice import read_kb_meta

        synced = read_kb_meta(db).get(SYNCED_KEY)
        if synced is None or synced != str(chunks.version):
            return None
        existing = set(db.list_tables().tables)
        names = {level: level_table_name(level) for level in CHUNK_LEVELS}
        if not all(name in existing for name in names.values()):
            return None
        tables: dict[str, Any] = {lv: db.open_table(name) for lv, name in names.items()}
        expected = level_schema(int(chunks.schema.field("vector").type.list_size)).names
        if any(t.schema.names != expected for t in tables.values()):
            return None  # another layout of them: rebuilt by the next optimize()
        return cls(tables, min_rows)

    @classmethod
    def build(cls, db: Any, chunks: Any, dim: int, min_rows: int) -> LevelTables:
        """(Re)build the level tables from ``chunks`` (read level by level, in batches),
        index them and record them as synced."""
        _write_meta(db, {SYNCED_KEY: None})  # a build cut short is never taken for synced
        schema = level_schema(dim)
        existing = set(db.list_tables().tables)
        tables: dict[str, Any] = {}
        for level in CHUNK_LEVELS:
            name = level_table_name(level)
            if name in existing:
                db.drop_table(name)
            where = f"level = {quote(level)}"
            table = db.create_table(name, schema=schema)
            # Batch by batch (memory bounded by the batch; a generator handed to
            # create_table would deadlock: it reads through LanceDB's loop, which waits on it).
            reader = (
                chunks.search()
                .where(where)
                .select([*CHUNK_COLUMNS, "vector"])
                .limit(None)
                .to_batches(50_000)
            )
            for batch in reader:
                if batch.num_rows:
                    table.add(level_rows(batch, schema))
            tables[level] = table
        built = cls(tables, min_rows)
        built.optimize()
        for table in tables.values():
            # The batches' files were compacted into one: the tables are new and no reader
            # takes them before the marker below, so the versions before can go now, not in
            # a week (LanceDB warns about readers of older versions: there are none).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        built.mark_synced(db, chunks)
        logger.info(
            "level tables built: %s",
            ", ".join(f"{lv} {t.count_rows()}" for lv, t in tables.items()),
        )
        return built

    def mark_synced(self, db: Any, chunks: Any) -> None:
        """Record that the level tables mirror ``chunks`` at its current version."""
        _write_meta(db, {SYNCED_KEY: str(chunks.version)})

    def refresh_flags(self) -> None:
        """Which levels have their vector index, and how many partitions each probes."""
        for level, table in self.tables.items():
            indexed = any(
                "vector" in i.columns and i.index_type != "FTS" for i in table.list_indices()
            )
            # ~10% of the sqrt(rows) partitions, at least 20 (as for the chunks table).
            partitions = math.sqrt(max(1, table.count_rows()))
            self.nprobes[level] = max(20, math.ceil(0.1 * partitions)) if indexed else None

    # -- writes ------------------------------------------------------------------------------
    def replace_documents(self, doc_ids: Sequence[str], rows: pa.Table) -> None:
        """Delete the chunks of ``doc_ids`` and add ``rows`` (chunks-table rows), each to
        its level's table."""
        where = sql_in("doc_id", list(doc_ids)) if doc_ids else None
        levels = rows.column("level").to_pylist() if rows.num_rows else []
        for level, table in self.tables.items():
            if where is not None:
                table.delete(where)
            keep = [i for i, lv in enumerate(levels) if lv == level]
            if keep:
                table.add(level_rows(rows.take(keep), table.schema))

    def delete(self, where: str) -> None:
        """Delete matching rows from every level table."""
        for table in self.tables.values():
            table.delete(where)

    def optimize(self) -> None:
        """Index each level once it has ``min_rows`` rows; compact and update indexes."""
        created = False
        for level, table in self.tables.items():
            rows = table.count_rows()
            if self.nprobes.get(level) is None and rows >= self.min_rows:
                logger.info("building the vector index of the %s chunks (%d rows)", level, rows)
                table.create_index("vector", config=level_index_config(rows))
                created = True
        for table in self.tables.values():
            table.optimize()
        if created:
            self.refresh_flags()

    # -- search ------------------------------------------------------------------------------
    def targets(self, levels: Sequence[str] | None) -> list[tuple[str, Any, int | None]]:
        """(level, table, nprobes: None for an exact search) of each level searched."""
        wanted = list(levels) if levels is not None else list(CHUNK_LEVELS)
        return [(lv, self.tables[lv], self.nprobes.get(lv)) for lv in wanted if lv in self.tables]

    def take(self, rows: Sequence[dict[str, Any]]) -> list[Chunk]:
        """The chunks of level-table rows (search rows, or :class:`RowIds` rows: each from
        its level's table)."""
        out: list[Chunk] = []
        for level, table in self.tables.items():
            mine = [r for r in rows if r.get("_level") == level]
            if mine:
                out.extend(take_records(table, mine))
        return out
