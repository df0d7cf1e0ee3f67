"""The ingest ledger: how far each document got, and what failed, kept in the knowledge base.

Two LanceDB tables beside the chunk and graph tables (no existing schema changes):

* ``ingest_ledger``: one row per document whose graph has been (or is being) written:
  ``doc_id``, the ``ingest_hash`` of the chunk version the row describes, and its ``stage``.
  The chunk stage needs no row: the ``documents`` table's ``status`` (``pending`` → ``done``)
  already records it. The stages after it are, in order:

  ========================  ===================================================================
  ``graph-pending``         the graph of this version is being written (a crash leaves it here)
  ``graph``                 entities, relations and mentions are stored
  ``communities``           communities were recomputed from a graph that includes it
  ``indexed``               the community index was rebuilt from those communities: complete
  ``removing``              the document is gone and its graph is being removed (a crash
                            leaves it here)
  ``removed``               the document is gone and so is its graph; communities still hold it
  ``removed-communities``   communities are recomputed without it; the index still holds it
  ========================  ===================================================================

  A row reaches a stage only after the data of that stage is committed, and every stage is
  idempotent, so a process killed anywhere is finished by running the stages again: a row
  behind its data is redone, a row never ahead of it.
* ``ingest_failures``: every chunk whose LLM extraction failed (or whose replies failed
  validation) and every community whose summary failed, with the error. The next ingest (or
  ``kg-rag repair``) retries exactly those; a success deletes the row.

A test hook, :func:`crash_point`, kills the process right after a named commit when the
environment variable ``KG_RAG_TEST_CRASH_AFTER`` says so (``"graph:1"``: after the first
graph commit). It exists for the kill -9 tests and does nothing otherwise.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, get_args

import pyarrow as pa
from pydantic import BaseModel

__all__ = [
    "CRASH_ENV",
    "STAGES",
    "Failure",
    "FailureKind",
    "IngestLedger",
    "LedgerRow",
    "Stage",
    "crash_point",
]

Stage = Literal[
    "graph-pending",
    "graph",
    "communities",
    "indexed",
    "removing",
    "removed",
    "removed-communities",
]
STAGES: tuple[Stage, ...] = get_args(Stage)
FailureKind = Literal["extraction", "summary"]

LEDGER_TABLE = "ingest_ledger"
FAILURE_TABLE = "ingest_failures"
_BATCH = 500

_SCHEMAS = {
    LEDGER_TABLE: pa.schema(
        [
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("ingest_hash", pa.string()),
            pa.field("stage", pa.string()),
            # For graph-pending rows: the graph store's checkpoint taken before the batch
            # (JSON), so an unfinished batch can be rolled back exactly; empty otherwise.
            pa.field("checkpoint", pa.string()),
            pa.field("updated_at", pa.string()),
        ]
    ),
    FAILURE_TABLE: pa.schema(
        [
            pa.field("failure_id", pa.string(), nullable=False),
            pa.field("kind", pa.string()),
            pa.field("item_id", pa.string()),
            pa.field("doc_id", pa.string()),
            pa.field("error", pa.string()),
            pa.field("attempts", pa.int64()),
            pa.field("updated_at", pa.string()),
        ]
    ),
}
_KEYS = {LEDGER_TABLE: "doc_id", FAILURE_TABLE: "failure_id"}

CRASH_ENV = "KG_RAG_TEST_CRASH_AFTER"
"""Test hook: ``"<point>:<n>"`` SIGKILLs the process right after the n-th commit at
``<point>`` (``chunks``, ``removal``, ``graph``, ``communities``, ``index``, or the finer
``graph-entities``/``graph-relations``). Never set it outside tests."""

_crash_lock = threading.Lock()
_crash_counts: dict[str, int] = {}


def crash_point(point: str) -> None:
    """Kill this process with SIGKILL if :data:`CRASH_ENV` names this point and count.

    Called right after each commit the ledger cares about; a no-op unless the variable is set.
    """
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    name, _, count = wanted.rpartition(":")
    if name != point:
        return
    with _crash_lock:
        _crash_counts[point] = _crash_counts.get(point, 0) + 1
        seen = _crash_counts[point]
    if seen >= int(count or "1"):
        os.kill(os.getpid(), signal.SIGKILL)


class LedgerRow(BaseModel):
    """How far one document got: the chunk version (``ingest_hash``) and the stage reached."""

    doc_id: str
    ingest_hash: str
    stage: Stage
    checkpoint: str = ""


class Failure(BaseModel):
    """One failed LLM item, kept until a retry succeeds.

    Attributes:
        kind: ``"extraction"`` (item is a chunk id) or ``"summary"`` (a community id).
        item_id: The chunk or community.
        doc_id: The chunk's document (empty for communities).
        error: What the last attempt got.
        attempts: Model calls the item has cost so far, over all runs.
    """

    kind: FailureKind
    item_id: str
    doc_id: str = ""
    error: str
    attempts: int = 1

    @property
    def failure_id(self) -> str:
        """The row key: kind and item."""
        return f"{self.kind}:{self.item_id}"

    def __str__(self) -> str:
        where = f" ({self.doc_id})" if self.doc_id else ""
        return f"{self.kind} {self.item_id}{where}: {self.error}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _sql_in(column: str, values: Sequence[str]) -> str:
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


class IngestLedger:
    """The ``ingest_ledger`` and ``ingest_failures`` tables of one knowledge base.

    Args:
        db: An open ``lancedb`` connection (the knowledge base folder, e.g.
            ``LanceChunkStore.db``).

    Nothing is read in the constructor; :meth:`open` creates the tables.
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self._tables: dict[str, Any] = {}

    def open(self, existing_documents: Mapping[str, str] | None = None) -> None:
        """Create missing tables.

        Args:
            existing_documents: doc_id → ingest hash of the documents stored before the
                ledger existed (a knowledge base built by an older kg-rag). When the ledger
                table is created they are recorded as complete, so opening an old knowledge
                base does not rebuild its graph.
        """
        if self._tables:
            return
        names = set(self.db.list_tables().tables)
        for name, schema in _SCHEMAS.items():
            if name in names:
                self._tables[name] = self.db.open_table(name)
                continue
            self._tables[name] = self.db.create_table(name, schema=schema, exist_ok=True)
            if name == LEDGER_TABLE and existing_documents:
                self.set_stage(existing_documents, "indexed")

    def _table(self, name: str) -> Any:
        if not self._tables:
            self.open()
        return self._tables[name]

    def _upsert(self, name: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        data = pa.Table.from_pylist(rows, schema=_SCHEMAS[name])
        (
            self._table(name)
            .merge_insert(_KEYS[name])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(data)
        )

    def _delete(self, name: str, column: str, values: Iterable[str]) -> None:
        ordered = sorted(set(values))
        for start in range(0, len(ordered), _BATCH):
            self._table(name).delete(_sql_in(column, ordered[start : start + _BATCH]))

    # -- stages -----------------------------------------------------------------------------
    def rows(self) -> dict[str, LedgerRow]:
        """Every row, by doc_id."""
        table = self._table(LEDGER_TABLE).to_arrow().to_pylist()
        return {
            r["doc_id"]: LedgerRow(
                doc_id=r["doc_id"],
                ingest_hash=r["ingest_hash"],
                stage=r["stage"],
                checkpoint=r["checkpoint"] or "",
            )
            for r in table
        }

    def set_stage(self, hashes: Mapping[str, str], stage: Stage, *, checkpoint: str = "") -> None:
        """Record that the documents (doc_id → ingest hash) reached ``stage``."""
        stamp = _now()
        rows = [
            {
                "doc_id": d,
                "ingest_hash": h,
                "stage": stage,
                "checkpoint": checkpoint,
                "updated_at": stamp,
            }
            for d, h in sorted(hashes.items())
        ]
        for start in range(0, len(rows), _BATCH):
            self._upsert(LEDGER_TABLE, rows[start : start + _BATCH])

    def advance(self, moves: Mapping[Stage, Stage]) -> int:
        """Move every row at a key stage to its value stage (one commit per move, so a
        batch moves all at once); returns the rows moved."""
        moved = 0
        table = self._table(LEDGER_TABLE)
        for old, new in moves.items():
            where = f"stage = '{old}'"
            n = int(table.count_rows(where))
            if n:
                table.update(
                    where=where, values={"stage": new, "checkpoint": "", "updated_at": _now()}
                )
                moved += n
        return moved

    def finish_batch(self, checkpoint: str, stage: Stage = "graph") -> None:
        """Move the ``graph-pending`` rows of the batch ``checkpoint`` names to ``stage``, in
        one commit (a batch is never half marked)."""
        quoted = "'" + checkpoint.replace("'", "''") + "'"
        self._table(LEDGER_TABLE).update(
            where=f"stage = 'graph-pending' AND checkpoint = {quoted}",
            values={"stage": stage, "checkpoint": "", "updated_at": _now()},
        )

    def forget_checkpoints(self) -> None:
        """Clear the checkpoint of every ``graph-pending`` row (after a rollback: an old
        checkpoint must never be restored again over later batches)."""
        self._table(LEDGER_TABLE).update(
            where="stage = 'graph-pending' AND checkpoint != ''", values={"checkpoint": ""}
        )

    def drop(self, doc_ids: Iterable[str] = (), *, stage: Stage | None = None) -> None:
        """Delete the rows of ``doc_ids``, or every row at ``stage``."""
        if stage is not None:
            self._table(LEDGER_TABLE).delete(f"stage = '{stage}'")
        self._delete(LEDGER_TABLE, "doc_id", doc_ids)

    # -- failures ---------------------------------------------------------------------------
    def failures(self, kind: FailureKind | None = None) -> list[Failure]:
        """Recorded failures (of one kind), sorted by kind and item."""
        rows = self._table(FAILURE_TABLE).to_arrow().to_pylist()
        out = [
            Failure(
                kind=r["kind"],
                item_id=r["item_id"],
                doc_id=r["doc_id"] or "",
                error=r["error"],
                attempts=r["attempts"],
            )
            for r in rows
            if kind is None or r["kind"] == kind
        ]
        return sorted(out, key=lambda f: (f.kind, f.item_id))

    def record_failures(self, failures: Sequence[Failure]) -> None:
        """Store (or replace) failures; attempts add up with a row already there."""
        if not failures:
            return
        before = {f.failure_id: f for f in self.failures()}
        stamp = _now()
        rows = []
        for f in failures:
            old = before.get(f.failure_id)
            rows.append(
                {
                    "failure_id": f.failure_id,
                    "kind": f.kind,
                    "item_id": f.item_id,
                    "doc_id": f.doc_id,
                    "error": f.error,
                    "attempts": f.attempts + (old.attempts if old else 0),
                    "updated_at": stamp,
                }
            )
        for start in range(0, len(rows), _BATCH):
            self._upsert(FAILURE_TABLE, rows[start : start + _BATCH])

    def clear_failures(self, kind: FailureKind, item_ids: Iterable[str] | None = None) -> None:
        """Delete failures of ``kind`` for ``item_ids`` (all of that kind when ``None``)."""
        if item_ids is None:
            self._table(FAILURE_TABLE).delete(f"kind = '{kind}'")
            return
        self._delete(FAILURE_TABLE, "failure_id", [f"{kind}:{i}" for i in item_ids])
