"""A graph store that needs no server: LanceDB tables on disk, the graph in memory.

Tables (in the knowledge-base folder, beside the chunk layer's ``documents``,
``document_versions``, ``chunks`` and ``kb_meta``): ``entities``, ``relations``, ``mentions``,
``graph_chunks`` (chunk id → document, level, preview), ``communities`` and
``community_members``. Every write goes to LanceDB first, then to the in-memory graph, so a
failed write leaves memory as it was. Reads never touch disk.

Memory holds the whole graph, so it holds it compactly (a pydantic model instance costs
about a kilobyte; a knowledge base has hundreds of thousands of relations): entities and
relations are plain tuples (:class:`_EntityRow`, :class:`_RelationRow`), and the pydantic
:class:`~kg_rag.models.Entity` / :class:`~kg_rag.models.Relation` a read returns is built
then, a fresh object each time; ids, chunk ids, types and descriptions are interned, so an
id repeated in relation keys, evidence, mentions and indexes is one string; vectors are
numpy arrays rather than lists of float objects; the graph is a dict-of-dicts adjacency
(entity → neighbour → the keys of the relations between the two, one tuple shared by both
directions) rather than a ``networkx.Graph``, whose per-edge attribute dict and key set cost
several times more. :meth:`EmbeddedGraphStore.to_networkx` still builds the
``networkx.Graph`` export and community detection read.

Semantics mirror :class:`~kg_rag.stores.neo4j.Neo4jGraphStore` exactly (the contract suite
checks it); every ordering decision is shared in :mod:`kg_rag.stores.ppr`.
"""

from __future__ import annotations

import heapq
import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from kg_rag.embeddings import single_blas_thread
from kg_rag.errors import SchemaMismatch, StoreUnavailable
from kg_rag.models import (
    Chunk,
    Community,
    Entity,
    GraphPath,
    Mention,
    Relation,
    Subgraph,
    stable_id,
)
from kg_rag.stores import ppr
from kg_rag.stores.ledger import crash_point

__all__ = ["EmbeddedGraphStore"]

logger = logging.getLogger(__name__)

_DELETE_BATCH = 500
_FIND_MEMO = 4096  # find_entities results remembered (per text and limit)

RelKey = tuple[str, str, str]
"""(source_id, type, target_id): the identity of a relation."""


def _intern(text: str) -> str:
    """``text`` interned (one string object for every copy); anything but an exact ``str``
    (``sys.intern`` refuses a subclass such as ``numpy.str_``) is kept as it is."""
    return sys.intern(text) if type(text) is str else text


class _EntityRow(NamedTuple):
    """An entity as memory holds it (its vector apart, as an array): interned id, type and
    description, aliases as a tuple. :func:`_to_entity` builds the :class:`Entity`."""

    entity_id: str
    name: str
    type: str
    aliases: tuple[str, ...]
    description: str


class _RelationRow(NamedTuple):
    """A relation as memory holds it beside its :data:`RelKey`: interned description,
    weight, sorted interned evidence chunk ids. :func:`_to_relation` builds the
    :class:`Relation`."""

    description: str
    weight: float
    evidence: tuple[str, ...]


def _entity_row(entity: Entity) -> _EntityRow:
    return _EntityRow(
        _intern(entity.entity_id),
        entity.name,
        _intern(entity.type),
        tuple(entity.aliases),
        _intern(entity.description),
    )


# Reads build their models with the validating constructor: pydantic-core does it in Rust,
# faster than ``model_construct``'s Python (and it turns the tuples into fresh lists).


def _to_entity(row: _EntityRow, vector: list[float] | None = None) -> Entity:
    return Entity(
        entity_id=row.entity_id,
        name=row.name,
        type=row.type,
        aliases=row.aliases,  # type: ignore[arg-type]
        description=row.description,
        vector=vector,
    )


def _relation_key(source: str, type_: str, target: str) -> RelKey:
    return (_intern(source), _intern(type_), _intern(target))


def _relation_row(description: str, weight: float, evidence: Iterable[str]) -> _RelationRow:
    return _RelationRow(
        _intern(description), float(weight), tuple(sorted(_intern(c) for c in evidence))
    )


def _to_relation(key: RelKey, row: _RelationRow) -> Relation:
    return Relation(
        source_id=key[0],
        target_id=key[2],
        type=key[1],
        description=row.description,
        weight=row.weight,
        evidence=row.evidence,  # type: ignore[arg-type]
    )


def _relation_id(key: RelKey) -> str:
    """:attr:`Relation.relation_id` of the relation ``key``."""
    return stable_id(key[0], key[1], key[2], prefix="r_")


_SCHEMAS: dict[str, pa.Schema] = {
    "entities": pa.schema(
        [
            pa.field("entity_id", pa.string(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("type", pa.string()),
            pa.field("aliases", pa.list_(pa.string())),
            pa.field("description", pa.string()),
            # Not named "vector": LanceDB would demand one fixed length for every row.
            pa.field("embedding", pa.list_(pa.float64()), nullable=True),
        ]
    ),
    "relations": pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("source_id", pa.string()),
            pa.field("target_id", pa.string()),
            pa.field("type", pa.string()),
            pa.field("description", pa.string()),
            pa.field("weight", pa.float64()),
            pa.field("evidence", pa.list_(pa.string())),
        ]
    ),
    "mentions": pa.schema(
        [
            pa.field("mention_id", pa.string(), nullable=False),
            pa.field("entity_id", pa.string()),
            pa.field("chunk_id", pa.string()),
        ]
    ),
    "graph_chunks": pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string()),
            pa.field("level", pa.string(), nullable=True),
            pa.field("parent_id", pa.string(), nullable=True),
            pa.field("ordinal", pa.int64(), nullable=True),
            pa.field("preview", pa.string(), nullable=True),
        ]
    ),
    "communities": pa.schema(
        [
            pa.field("community_id", pa.string(), nullable=False),
            pa.field("level", pa.int64()),
            pa.field("parent_id", pa.string(), nullable=True),
            pa.field("title", pa.string()),
            pa.field("summary", pa.string()),
            pa.field("findings", pa.list_(pa.string())),
            pa.field("rank", pa.float64()),
            pa.field("content_hash", pa.string()),
            pa.field("embedding", pa.list_(pa.float64()), nullable=True),
        ]
    ),
    "community_members": pa.schema(
        [
            pa.field("membership_id", pa.string(), nullable=False),
            pa.field("community_id", pa.string()),
            pa.field("entity_id", pa.string()),
        ]
    ),
    # What changed in the graph since communities were last computed (see
    # ``community_changes``): "e:<entity id>" and "c:<community id>" keys.
    "community_dirty": pa.schema([pa.field("key", pa.string(), nullable=False)]),
}

_KEYS = {
    "entities": "entity_id",
    "relations": "relation_id",
    "mentions": "mention_id",
    "graph_chunks": "chunk_id",
    "communities": "community_id",
    "community_members": "membership_id",
    "community_dirty": "key",
}


def _mention_id(entity_id: str, chunk_id: str) -> str:
    return stable_id(entity_id, chunk_id, prefix="m_", length=40)


def _membership_id(community_id: str, entity_id: str) -> str:
    return stable_id(community_id, entity_id, prefix="cm_", length=40)


def _vectors_of(column: pa.ChunkedArray) -> list[np.ndarray | None]:
    """The rows of a list<float64> column as float64 arrays (``None`` for a null row),
    without a Python float object per component."""
    out: list[np.ndarray | None] = []
    for chunk in column.chunks:
        if len(chunk) == 0:
            continue
        offsets = chunk.offsets.to_numpy()
        values = chunk.values.to_numpy(zero_copy_only=False)
        nulls = chunk.is_null().to_numpy(zero_copy_only=False)
        for i in range(len(chunk)):
            out.append(None if nulls[i] else values[offsets[i] : offsets[i + 1]].copy())
    return out


def _sql_in(column: str, values: Sequence[str]) -> str:
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


def _check_dims(vectors: Iterable[Sequence[float] | None], known: int | None) -> int | None:
    dim = known
    for vector in vectors:
        if vector is None:
            continue
        if dim is None:
            dim = len(vector)
        elif len(vector) != dim:
            raise SchemaMismatch(
                f"entity vectors must all have {dim} dimensions, got one with {len(vector)}; "
                "re-embed the knowledge base with one embedder."
            )
    return dim


class EmbeddedGraphStore:
    """:class:`~kg_rag.stores.base.GraphStore` on LanceDB + an in-memory graph, for one
    knowledge base.

    Args:
        path: The knowledge-base folder (a LanceDB database; created on :meth:`open`).

    Example:
        >>> with EmbeddedGraphStore(Path("kb")) as store:  # doctest: +SKIP
        ...     store.upsert_entities(entities)
    """

    backend = "embedded"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._reset_memory()

    def _reset_memory(self) -> None:
        self._entities: dict[str, _EntityRow] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._search_text: dict[str, str] = {}
        # Tuples, not sets: almost every key names one entity (a set costs 216 bytes).
        self._name_keys: dict[str, tuple[str, ...]] = {}  # normalized name or alias → ids
        self._compact_keys: dict[str, tuple[str, ...]] = {}  # compact name → entity ids
        self._blob: tuple[str, list[int], list[str]] | None = None  # see _name_blob
        self._token_index: tuple[Any, dict[str, set[str]]] = (None, {})
        self._find_memo: tuple[Any, OrderedDict[tuple[str, int], list[str]]] = (
            None,
            OrderedDict(),
        )
        self._relations: dict[RelKey, _RelationRow] = {}
        # The undirected graph: entity → neighbour → keys of the relations between them (in
        # either direction); one tuple, shared by both directions. Every entity has an entry.
        self._adj: dict[str, dict[str, tuple[RelKey, ...]]] = {}
        # Each entity's neighbours sorted by id, built when a read first needs them and
        # dropped when a relation of that entity changes: a hub's neighbours are many and
        # grow with the corpus, and the reads that take the first ``limit`` of them by id
        # (neighbour_ids) sorted all of them on every call.
        self._sorted_adj: dict[str, list[str]] = {}
        self._chunks: dict[str, ppr.ChunkRecord] = {}
        self._entity_chunks: dict[str, set[str]] = {}
        self._chunk_entities: dict[str, set[str]] = {}
        # A chunk's entities sorted by id, built when a read first needs them and dropped when
        # one of its mentions changes: the graph route asks for the entities of every chunk
        # its top entities reach (about a thousand on musique-dev when a hub is among them),
        # and sorting each chunk's set on every call was most of that read.
        self._sorted_chunk_entities: dict[str, tuple[str, ...]] = {}
        self._sorted_entity_chunks: dict[str, tuple[str, ...]] = {}  # the same, by entity
        self._evidence_index: dict[str, set[RelKey]] = {}
        self._communities: dict[str, Community] = {}
        self._membership: dict[str, set[str]] = {}
        self._children: dict[str, set[str]] = {}  # community id → child community ids
        self._community_dirty: set[str] = set()
        self._vector_dim: int | None = None
        self._matrix: tuple[list[str], np.ndarray] | None = None
        self._whole_graph: ppr.TransitionMatrix | None = None
        self._dirty = False
        self._versions: dict[str, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self) -> None:
        """Create or open the tables and load them into memory. Idempotent."""
        with self._lock:
            if self._db is not None:
                return
            import lancedb

            try:
                self.path.mkdir(parents=True, exist_ok=True)
                db = lancedb.connect(str(self.path))
                tables = {
                    name: db.create_table(name, schema=schema, exist_ok=True)
                    for name, schema in _SCHEMAS.items()
                }
            except (OSError, ValueError, RuntimeError) as exc:
                raise StoreUnavailable(
                    f"cannot open the embedded graph store at {self.path} ({exc}); check the "
                    "folder exists and is writable."
                ) from exc
            self._reset_memory()
            self._db, self._tables = db, tables
            self._load()
            self._versions = {name: t.version for name, t in tables.items()}

    def refresh(self) -> bool:
        """Reload from disk when another engine or process committed to the graph tables
        since they were loaded (this store's own writes do not count).

        Returns:
            True when the graph was reloaded.
        """
        with self._lock:
            if self._db is None:
                return False
            stale = False
            for name, table in self._tables.items():
                table.checkout_latest()
                stale = stale or table.version != self._versions.get(name)
            if not stale:
                return False
            self._reset_memory()
            self._load()
            self._versions = {name: t.version for name, t in self._tables.items()}
            return True

    def _committed(self, name: str, before: int) -> None:
        """After a write: the table is still what memory holds only when the write was the
        one commit since the last load (a commit by someone else in between means reload)."""
        after = self._tables[name].version
        if self._versions.get(name) == before and after == before + 1:
            self._versions[name] = after

    def close(self) -> None:
        """Compact what was written and release the tables."""
        with self._lock:
            if self._db is None:
                return
            if self._dirty:
                for table in self._tables.values():
                    table.optimize()
            self._db, self._tables = None, {}

    def __enter__(self) -> EmbeddedGraphStore:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _table(self, name: str) -> Any:
        if self._db is None:
            raise StoreUnavailable("EmbeddedGraphStore is not open: call store.open() first.")
        return self._tables[name]

    def _load(self) -> None:
        rows = self._tables["entities"].to_arrow()
        vectors = _vectors_of(rows.column("embedding"))
        columns = rows.drop_columns(["embedding"]).to_pydict()
        for entity_id, name, type_, aliases, description, vector in zip(
            columns["entity_id"],
            columns["name"],
            columns["type"],
            columns["aliases"],
            columns["description"],
            vectors,
            strict=True,
        ):
            row = _EntityRow(
                _intern(entity_id),
                name,
                _intern(type_),
                tuple(aliases or ()),
                _intern(description),
            )
            self._put_entity(row, vector)
        del rows, columns, vectors
        columns = self._tables["relations"].to_arrow().to_pydict()
        for source, target, type_, description, weight, evidence in zip(
            columns["source_id"],
            columns["target_id"],
            columns["type"],
            columns["description"],
            columns["weight"],
            columns["evidence"],
            strict=True,
        ):
            self._put_relation(
                _relation_key(source, type_, target),
                _relation_row(description, weight, evidence or ()),
            )
        del columns
        for record in self._tables["graph_chunks"].to_arrow().to_pylist():
            self._put_chunk(ppr.ChunkRecord(**record))
        columns = self._tables["mentions"].to_arrow().select(["entity_id", "chunk_id"]).to_pydict()
        for entity_id, chunk_id in zip(columns["entity_id"], columns["chunk_id"], strict=True):
            self._put_mention(entity_id, chunk_id)
        del columns
        members: dict[str, list[str]] = {}
        columns = self._tables["community_members"].to_arrow().to_pydict()
        for cid, entity_id in zip(columns["community_id"], columns["entity_id"], strict=True):
            cid, entity_id = _intern(cid), _intern(entity_id)
            members.setdefault(cid, []).append(entity_id)
            self._membership.setdefault(entity_id, set()).add(cid)
        del columns
        for row in self._tables["communities"].to_arrow().to_pylist():
            cid = _intern(row["community_id"])
            self._communities[cid] = Community(
                community_id=cid,
                level=row["level"],
                parent_id=row["parent_id"],
                members=sorted(members.get(cid, [])),
                title=row["title"],
                summary=row["summary"],
                findings=list(row["findings"] or []),
                rank=row["rank"],
                content_hash=row["content_hash"],
                vector=row["embedding"],
            )
            if row["parent_id"] is not None:
                self._children.setdefault(row["parent_id"], set()).add(cid)
        for row in self._tables["community_dirty"].to_arrow().to_pylist():
            self._community_dirty.add(row["key"])
        logger.debug("loaded embedded graph from %s: %s", self.path, self._counts())

    # -- memory primitives (callers hold the lock and have written LanceDB already) ----------
    def _index_names(self, entity: _EntityRow, add: bool) -> None:
        keys, compact = ppr.lookup_keys(entity.name, entity.aliases)
        pairs = [(self._name_keys, k) for k in keys] + [(self._compact_keys, compact)]
        eid = entity.entity_id
        for index, key in pairs:
            if not key:
                continue
            ids = index.get(key, ())
            if add:
                if eid not in ids:
                    index[key] = (*ids, eid)
            elif eid in ids:
                rest = tuple(e for e in ids if e != eid)
                if rest:
                    index[key] = rest
                else:
                    del index[key]

    def _put_entity(self, entity: _EntityRow, vector: Sequence[float] | None) -> None:
        eid = entity.entity_id
        old = self._entities.get(eid)
        if old is not None:
            self._index_names(old, add=False)
        self._index_names(entity, add=True)
        self._entities[eid] = entity
        if vector is None:
            self._vectors.pop(eid, None)
        else:
            self._vectors[eid] = np.array(vector, dtype=np.float64)
            self._vector_dim = self._vector_dim or len(vector)
        self._search_text[eid] = "\n".join(ppr.search_keys(entity.name, entity.aliases))
        self._blob = None
        self._adj.setdefault(eid, {})
        self._matrix = None

    def _put_relation(self, key: RelKey, relation: _RelationRow) -> None:
        old = self._relations.get(key)
        if old is not None:
            self._unindex_evidence(key, old.evidence)
        self._relations[key] = relation
        for chunk in relation.evidence:
            self._evidence_index.setdefault(chunk, set()).add(key)
        source, _, target = key
        pair = self._adj.setdefault(source, {}).get(target, ())
        if key not in pair:
            pair = (*pair, key)
            self._adj[source][target] = pair
            self._adj.setdefault(target, {})[source] = pair
            self._sorted_adj.pop(source, None)
            self._sorted_adj.pop(target, None)

    def _drop_relation(self, key: RelKey) -> None:
        self._unindex_evidence(key, self._relations.pop(key).evidence)
        source, _, target = key
        pair = tuple(k for k in self._adj[source][target] if k != key)
        if pair:
            self._adj[source][target] = pair
            self._adj[target][source] = pair
        else:
            del self._adj[source][target]
            self._adj[target].pop(source, None)  # already gone for a self-loop
            self._sorted_adj.pop(source, None)
            self._sorted_adj.pop(target, None)

    def _unindex_evidence(self, key: RelKey, evidence: Iterable[str]) -> None:
        for chunk in evidence:
            keys = self._evidence_index.get(chunk)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._evidence_index[chunk]

    def _put_chunk(self, record: ppr.ChunkRecord) -> None:
        chunk_id = _intern(record.chunk_id)
        self._chunks[chunk_id] = record._replace(
            chunk_id=chunk_id,
            doc_id=_intern(record.doc_id),
            level=None if record.level is None else _intern(record.level),
            parent_id=None if record.parent_id is None else _intern(record.parent_id),
        )

    def _put_mention(self, entity_id: str, chunk_id: str) -> None:
        entity_id, chunk_id = _intern(entity_id), _intern(chunk_id)
        self._entity_chunks.setdefault(entity_id, set()).add(chunk_id)
        self._chunk_entities.setdefault(chunk_id, set()).add(entity_id)
        self._sorted_chunk_entities.pop(chunk_id, None)
        self._sorted_entity_chunks.pop(entity_id, None)

    def _drop_mention(self, entity_id: str, chunk_id: str) -> None:
        chunks = self._entity_chunks.get(entity_id)
        if chunks is not None:
            chunks.discard(chunk_id)
            if not chunks:
                del self._entity_chunks[entity_id]
        self._sorted_chunk_entities.pop(chunk_id, None)
        self._sorted_entity_chunks.pop(entity_id, None)
        entities = self._chunk_entities.get(chunk_id)
        if entities is not None:
            entities.discard(entity_id)
            if not entities:
                del self._chunk_entities[chunk_id]

    # -- LanceDB primitives -----------------------------------------------------------------
    def _upsert_rows(self, name: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        data = pa.Table.from_pylist(rows, schema=_SCHEMAS[name])
        before = self._table(name).version
        (
            self._table(name)
            .merge_insert(_KEYS[name])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(data)
        )
        self._committed(name, before)
        self._dirty = True
        self._whole_graph = None

    def _delete_rows(self, name: str, column: str, values: Iterable[str]) -> None:
        ordered = sorted(set(values))
        for start in range(0, len(ordered), _DELETE_BATCH):
            before = self._table(name).version
            self._table(name).delete(_sql_in(column, ordered[start : start + _DELETE_BATCH]))
            self._committed(name, before)
            self._dirty = True
            self._whole_graph = None

    @staticmethod
    def _relation_record(key: RelKey, relation: _RelationRow) -> dict[str, Any]:
        return {
            "relation_id": _relation_id(key),
            "source_id": key[0],
            "target_id": key[2],
            "type": key[1],
            "description": relation.description,
            "weight": relation.weight,
            "evidence": list(relation.evidence),
        }

    def _chunk_row(self, record: ppr.ChunkRecord) -> dict[str, Any]:
        return record._asdict()

    # -- writes ------------------------------------------------------------------------------
    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Insert or replace entities by ``entity_id`` (the last duplicate in a batch wins)."""
        with self._lock:
            self._table("entities")
            latest = {e.entity_id: e for e in entities}
            dim = _check_dims((e.vector for e in latest.values()), self._vector_dim)
            rows = [
                {
                    "entity_id": e.entity_id,
                    "name": e.name,
                    "type": e.type,
                    "aliases": list(e.aliases),
                    "description": e.description,
                    "embedding": None if e.vector is None else [float(x) for x in e.vector],
                }
                for e in latest.values()
            ]
            # Entities written again as they were change no community.
            changed = [
                eid
                for eid, e in latest.items()
                if (old := self._entities.get(eid)) is None
                or (old.name, old.type, old.aliases, old.description)
                != (e.name, e.type, tuple(e.aliases), e.description)
            ]
            self._upsert_rows("entities", rows)
            self._mark(entities=changed)
            for entity in latest.values():
                self._put_entity(_entity_row(entity), entity.vector)
            self._vector_dim = dim if self._vectors else None

    def upsert_relations(self, relations: Sequence[Relation]) -> None:
        """Insert or update relations by (source, type, target); evidence is unioned.

        Relations whose endpoints are not stored entities are skipped (logged).
        """
        with self._lock:
            self._table("relations")
            folded = ppr.fold_relations(relations)
            kept = [
                r for r in folded if r.source_id in self._entities and r.target_id in self._entities
            ]
            if len(kept) < len(folded):
                logger.warning(
                    "skipped %d relations whose entities are not stored", len(folded) - len(kept)
                )
            merged: list[tuple[RelKey, _RelationRow]] = []
            for relation in kept:
                key = _relation_key(relation.source_id, relation.type, relation.target_id)
                old = self._relations.get(key)
                evidence = set(relation.evidence) | (set(old.evidence) if old else set())
                merged.append((key, _relation_row(relation.description, relation.weight, evidence)))
            self._upsert_rows("relations", [self._relation_record(k, r) for k, r in merged])
            self._mark(entities={e for k, _ in merged for e in (k[0], k[2])})
            for key, row in merged:
                self._put_relation(key, row)

    def upsert_mentions(self, mentions: Sequence[Mention]) -> None:
        """Record mentions; a chunk's document is the ``doc_id`` of its latest mention.

        Mentions of entities that are not stored are skipped (logged).
        """
        with self._lock:
            self._table("mentions")
            kept = [m for m in mentions if m.entity_id in self._entities]
            if len(kept) < len(mentions):
                logger.warning(
                    "skipped %d mentions of entities that are not stored", len(mentions) - len(kept)
                )
            chunk_docs = {m.chunk_id: m.doc_id for m in kept}
            records = {}
            for chunk_id, doc_id in chunk_docs.items():
                old = self._chunks.get(chunk_id)
                records[chunk_id] = (
                    old._replace(doc_id=doc_id) if old else ppr.ChunkRecord(chunk_id, doc_id)
                )
            pairs = sorted({(m.entity_id, m.chunk_id) for m in kept})
            self._upsert_rows("graph_chunks", [self._chunk_row(r) for r in records.values()])
            self._upsert_rows(
                "mentions",
                [
                    {"mention_id": _mention_id(e, c), "entity_id": e, "chunk_id": c}
                    for e, c in pairs
                ],
            )
            for record in records.values():
                self._put_chunk(record)
            for entity_id, chunk_id in pairs:
                self._put_mention(entity_id, chunk_id)

    def upsert_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Record chunks (id, document, level, parent, ordinal and a text preview of at most
        :data:`ppr.CHUNK_PREVIEW_CHARS` characters); the text itself stays in the chunk layer."""
        with self._lock:
            self._table("graph_chunks")
            records = {
                c.chunk_id: ppr.ChunkRecord(
                    c.chunk_id,
                    c.doc_id,
                    c.level,
                    c.parent_id,
                    c.ordinal,
                    c.text[: ppr.CHUNK_PREVIEW_CHARS],
                )
                for c in chunks
            }
            self._upsert_rows("graph_chunks", [self._chunk_row(r) for r in records.values()])
            for record in records.values():
                self._put_chunk(record)

    def upsert_communities(self, communities: Sequence[Community]) -> None:
        """Replace the community layer; members that are not stored entities are dropped."""
        with self._lock:
            self._table("communities")
            for name in ("communities", "community_members"):
                before = self._table(name).version
                self._table(name).delete("true")
                self._committed(name, before)
            self._communities = {}
            self._membership = {}
            self._children = {}
            self._write_communities(communities)

    def apply_communities(self, upserts: Sequence[Community], removed: Sequence[str] = ()) -> None:
        """Change part of the community layer: delete the communities ``removed``, insert or
        replace ``upserts`` (by id; members that are not stored entities are dropped).

        Costs what changes, not what is stored: a replaced community's row is rewritten, but
        of its member rows only those of members it gained or lost (the incremental
        community update, :mod:`kg_rag.graph_build`, writes this way).
        """
        with self._lock:
            self._table("communities")
            latest = {
                c.community_id: c.model_copy(
                    update={"members": sorted({m for m in c.members if m in self._entities})}
                )
                for c in upserts
            }
            gone = (set(removed) - set(latest)) & set(self._communities)
            dropped: list[tuple[str, str]] = [
                (cid, m) for cid in gone for m in self._communities[cid].members
            ]
            added: list[tuple[str, str]] = []
            for cid, community in latest.items():
                before = self._communities.get(cid)
                old = set(before.members) if before is not None else set()
                new = set(community.members)
                dropped.extend((cid, m) for m in old - new)
                added.extend((cid, m) for m in new - old)
                if before is not None and before.parent_id != community.parent_id:
                    self._unlink_child(cid, before.parent_id)
            if dropped:
                self._delete_rows(
                    "community_members", "membership_id", [_membership_id(c, m) for c, m in dropped]
                )
            if gone:
                self._delete_rows("communities", "community_id", gone)
                for cid in gone:
                    self._unlink_child(cid, self._communities.pop(cid).parent_id)
            for cid, member in dropped:
                ids = self._membership.get(member)
                if ids is not None:
                    ids.discard(cid)
                    if not ids:
                        del self._membership[member]
            self._write_communities(list(latest.values()), members=added)

    def _unlink_child(self, cid: str, parent_id: str | None) -> None:
        if parent_id is None:
            return
        siblings = self._children.get(parent_id)
        if siblings is not None:
            siblings.discard(cid)
            if not siblings:
                del self._children[parent_id]

    def _write_communities(
        self, communities: Sequence[Community], members: Sequence[tuple[str, str]] | None = None
    ) -> None:
        """Write community rows and member rows (``members``: the (community, entity) pairs
        to add; ``None``: every member of ``communities``)."""
        latest = {c.community_id: c for c in communities}
        stored = {
            _intern(cid): c.model_copy(
                update={
                    "community_id": _intern(cid),
                    "members": sorted({_intern(m) for m in c.members if m in self._entities}),
                }
            )
            for cid, c in latest.items()
        }
        self._upsert_rows(
            "communities",
            [
                {
                    "community_id": c.community_id,
                    "level": c.level,
                    "parent_id": c.parent_id,
                    "title": c.title,
                    "summary": c.summary,
                    "findings": list(c.findings),
                    "rank": float(c.rank),
                    "content_hash": c.content_hash,
                    "embedding": None if c.vector is None else [float(x) for x in c.vector],
                }
                for c in stored.values()
            ],
        )
        pairs = (
            [(c.community_id, m) for c in stored.values() for m in c.members]
            if members is None
            else members
        )
        self._upsert_rows(
            "community_members",
            [
                {"membership_id": _membership_id(cid, m), "community_id": cid, "entity_id": m}
                for cid, m in pairs
            ],
        )
        for cid, community in stored.items():
            self._communities[cid] = community
            for member in community.members:
                self._membership.setdefault(member, set()).add(cid)
            if community.parent_id is not None:
                self._children.setdefault(community.parent_id, set()).add(cid)

    # -- what changed since communities were computed ----------------------------------------
    def _mark(self, entities: Iterable[str] = (), communities: Iterable[str] = ()) -> None:
        """Record entities whose relations or content changed and communities that lost
        members (persisted, so an ingest killed before its community step still knows)."""
        keys = {f"e:{e}" for e in entities} | {f"c:{c}" for c in communities}
        keys -= self._community_dirty
        if not keys:
            return
        self._upsert_rows("community_dirty", [{"key": k} for k in sorted(keys)])
        self._community_dirty |= keys

    def community_changes(self) -> tuple[list[str], list[str]]:
        """(entity ids, community ids) changed since :meth:`clear_community_changes`: entities
        written, endpoints of written or removed relations, neighbours of deleted entities;
        communities that lost a deleted member. Sorted; ids may no longer exist."""
        with self._lock:
            self._table("community_dirty")
            entities = sorted(k[2:] for k in self._community_dirty if k.startswith("e:"))
            communities = sorted(k[2:] for k in self._community_dirty if k.startswith("c:"))
            return entities, communities

    def clear_community_changes(
        self, entities: Sequence[str] | None = None, communities: Sequence[str] = ()
    ) -> None:
        """Forget the given changes (all of them when ``entities`` is None), once the
        communities they affect are written."""
        with self._lock:
            self._table("community_dirty")
            if entities is None:
                keys = set(self._community_dirty)
            else:
                keys = {f"e:{e}" for e in entities} | {f"c:{c}" for c in communities}
                keys &= self._community_dirty
            self._delete_rows("community_dirty", "key", keys)
            self._community_dirty -= keys

    # -- neighbourhood reads for the incremental community update ----------------------------
    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        """Every relation with an endpoint in ``entity_ids``, sorted by (source, type,
        target)."""
        with self._lock:
            self._table("relations")
            keys = {
                key
                for eid in set(entity_ids)
                for pair in self._adj.get(eid, {}).values()
                for key in pair
            }
            return [_to_relation(k, self._relations[k]) for k in sorted(keys)]

    def communities_of(self, entity_ids: Sequence[str]) -> list[Community]:
        """The communities (every level) with a member in ``entity_ids``, sorted by (level,
        id), vectors left out."""
        with self._lock:
            self._table("communities")
            ids = {c for e in set(entity_ids) for c in self._membership.get(e, ())}
            return self._community_list(ids)

    def get_communities(self, community_ids: Sequence[str]) -> list[Community]:
        """Communities by id (missing ids ignored), sorted by (level, id), vectors left
        out."""
        with self._lock:
            self._table("communities")
            return self._community_list(set(community_ids) & set(self._communities))

    def child_communities(self, community_ids: Sequence[str]) -> list[Community]:
        """The communities whose parent is in ``community_ids``, sorted by (level, id),
        vectors left out."""
        with self._lock:
            self._table("communities")
            ids = {c for p in set(community_ids) for c in self._children.get(p, ())}
            return self._community_list(ids)

    def _community_list(self, ids: Iterable[str]) -> list[Community]:
        found = [self._communities[c] for c in ids]
        return [
            c.model_copy(update={"members": sorted(c.members), "vector": None})
            for c in sorted(found, key=lambda c: (c.level, c.community_id))
        ]

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """Delete entities with their relations, mentions and community memberships."""
        with self._lock:
            self._table("entities")
            self._delete_entities({e for e in entity_ids if e in self._entities})

    def _delete_entities(self, ids: set[str]) -> None:
        if not ids:
            return
        rel_keys = {key for eid in ids for pair in self._adj[eid].values() for key in pair}
        mentions = [(e, c) for e in ids for c in self._entity_chunks.get(e, ())]
        memberships = [(c, e) for e in ids for c in self._membership.get(e, ())]
        self._mark(
            entities={n for eid in ids for n in self._adj[eid] if n not in ids},
            communities={c for c, _ in memberships},
        )
        self._delete_rows("relations", "relation_id", [_relation_id(k) for k in rel_keys])
        self._delete_rows("mentions", "mention_id", [_mention_id(e, c) for e, c in mentions])
        self._delete_rows(
            "community_members", "membership_id", [_membership_id(c, e) for c, e in memberships]
        )
        self._delete_rows("entities", "entity_id", ids)
        for key in rel_keys:
            self._drop_relation(key)
        for entity_id, chunk_id in mentions:
            self._drop_mention(entity_id, chunk_id)
        for community_id, entity_id in memberships:
            community = self._communities.get(community_id)
            if community is not None:
                community.members = [m for m in community.members if m != entity_id]
            self._membership.pop(entity_id, None)
        for eid in ids:
            self._index_names(self._entities.pop(eid), add=False)
            self._vectors.pop(eid, None)
            self._search_text.pop(eid)
            self._blob = None
            for neighbour in self._adj.pop(eid):  # none left unless memory lost a relation
                self._adj.get(neighbour, {}).pop(eid, None)
                self._sorted_adj.pop(neighbour, None)
            self._sorted_adj.pop(eid, None)
        if not self._vectors:
            self._vector_dim = None
        self._matrix = None

    def delete_document(self, doc_id: str) -> None:
        """Remove the document's chunks and mentions, strip its chunks from relation evidence,
        then delete relations left without evidence and entities left without mentions."""
        with self._lock:
            self._table("graph_chunks")
            chunks = {c for c, record in self._chunks.items() if record.doc_id == doc_id}
            if not chunks:
                return
            touched_entities = {e for c in chunks for e in self._chunk_entities.get(c, ())}
            touched_relations = {k for c in chunks for k in self._evidence_index.get(c, ())}
            # Marked before any row goes: a redo after a kill no longer finds what it touched.
            self._mark(
                entities=touched_entities
                | {e for k in touched_relations for e in (k[0], k[2]) if e in self._entities}
            )
            updated: list[tuple[RelKey, _RelationRow]] = []
            emptied: list[RelKey] = []
            for key in sorted(touched_relations):
                relation = self._relations[key]
                evidence = tuple(x for x in relation.evidence if x not in chunks)
                if evidence:
                    updated.append((key, relation._replace(evidence=evidence)))
                else:
                    emptied.append(key)
            self._upsert_rows("relations", [self._relation_record(k, r) for k, r in updated])
            self._delete_rows("relations", "relation_id", [_relation_id(k) for k in emptied])
            mentions = [(e, c) for c in chunks for e in self._chunk_entities.get(c, ())]
            self._delete_rows("mentions", "mention_id", [_mention_id(e, c) for e, c in mentions])
            self._delete_rows("graph_chunks", "chunk_id", chunks)
            crash_point("graph-delete")
            for key, relation in updated:
                self._put_relation(key, relation)
            for key in emptied:
                self._drop_relation(key)
            for entity_id, chunk_id in mentions:
                self._drop_mention(entity_id, chunk_id)
            for chunk_id in chunks:
                del self._chunks[chunk_id]
            self._delete_entities({e for e in touched_entities if e not in self._entity_chunks})

    # -- checkpoints (used by the ingest ledger to roll back an unfinished batch) ------------
    def checkpoint(self) -> dict[str, int]:
        """The current version of every graph table (see :meth:`restore`)."""
        with self._lock:
            return {name: int(self._table(name).version) for name in _SCHEMAS}

    def restore(self, checkpoint: dict[str, int]) -> None:
        """Put every graph table back to the versions of ``checkpoint`` and reload memory.

        A batch of writes killed halfway is undone exactly this way (descriptions and
        aliases it merged into stored entities included), before it is redone.
        """
        with self._lock:
            try:
                for name, version in checkpoint.items():
                    table = self._table(name)
                    if int(table.version) != int(version):
                        table.restore(int(version))
            finally:  # memory follows the tables, also when a restore failed halfway
                self._reset_memory()
                self._load()
                self._dirty = True

    # -- reads -------------------------------------------------------------------------------
    def _full(self, entity_id: str) -> Entity:
        vector = self._vectors.get(entity_id)
        return _to_entity(self._entities[entity_id], None if vector is None else vector.tolist())

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Entities by id (missing ids are ignored), sorted by id, with their vectors."""
        with self._lock:
            self._table("entities")
            return [self._full(e) for e in sorted(set(entity_ids)) if e in self._entities]

    def all_entities(self) -> list[Entity]:
        """Every entity, sorted by id, with its vector."""
        with self._lock:
            self._table("entities")
            return [self._full(e) for e in sorted(self._entities)]

    def all_relations(self) -> list[Relation]:
        """Every relation, sorted by (source, type, target), evidence sorted."""
        with self._lock:
            self._table("relations")
            return [_to_relation(k, self._relations[k]) for k in sorted(self._relations)]

    def all_mentions(self) -> list[Mention]:
        """Every mention, sorted by (entity_id, chunk_id)."""
        with self._lock:
            self._table("mentions")
            return [
                Mention(entity_id=e, chunk_id=c, doc_id=self._chunks[c].doc_id)
                for e in sorted(self._entity_chunks)
                for c in sorted(self._entity_chunks[e])
            ]

    def all_chunks(self) -> list[ppr.ChunkRecord]:
        """Every chunk the graph knows (from mentions or :meth:`upsert_chunks`), by id."""
        with self._lock:
            self._table("graph_chunks")
            return [self._chunks[c] for c in sorted(self._chunks)]

    def find_entities(self, text: str, limit: int = 10) -> list[Entity]:
        """Entities whose name or alias matches ``text``, best first (see
        :func:`kg_rag.stores.ppr.rank_name_matches`)."""
        with self._lock:
            self._table("entities")
            query = ppr.normalize_name(text)
            if not query:
                return []
            # Remembered per (text, limit) until the next entity write (which drops the name
            # blob): a question and its steps look up the same names.
            blob = self._name_blob()
            if self._find_memo[0] is not blob:
                self._find_memo = (blob, OrderedDict())
            memo = self._find_memo[1]
            ids = memo.get((text, limit))
            if ids is None:
                # What can score: a key holding the whole text (a substring search), or one
                # sharing a token with it (the token index; a substring search for a token
                # such as "the" also returns every "other" and "mother").
                found = self._containing(query)
                index = self._name_tokens(blob)
                for token in ppr.tokens(query):
                    found |= index.get(token, set())
                candidates = [self._entities[eid] for eid in sorted(found)]
                ids = [e.entity_id for e in ppr.rank_name_matches(text, candidates, limit)]
                memo[(text, limit)] = ids
                if len(memo) > _FIND_MEMO:
                    memo.popitem(last=False)
            return [self._full(eid) for eid in ids]

    def _name_blob(self) -> tuple[str, list[int], list[str]]:
        """Every entity's search text in one string (``\x00`` between entities), with each
        entity's start offset: a substring search is then one C-speed ``str.find`` pass
        instead of a Python loop over the entities (rebuilt after entity writes)."""
        if self._blob is None:
            ids = sorted(self._search_text)
            starts: list[int] = []
            position = 0
            for eid in ids:
                starts.append(position)
                position += len(self._search_text[eid]) + 1
            self._blob = ("\x00".join(self._search_text[e] for e in ids), starts, ids)
        return self._blob

    def _name_tokens(self, blob: Any) -> dict[str, set[str]]:
        """token → ids of the entities with a name or alias holding that token (built with the
        name blob ``blob``, rebuilt after entity writes)."""
        if self._token_index[0] is not blob:
            index: dict[str, set[str]] = {}
            for eid, search_text in self._search_text.items():
                for key in search_text.split("\n"):
                    for token in ppr.tokens(key):
                        index.setdefault(token, set()).add(eid)
            self._token_index = (blob, index)
        return self._token_index[1]

    def _containing(self, needle: str) -> set[str]:
        """Ids of the entities whose search text contains ``needle``."""
        import bisect

        blob, starts, ids = self._name_blob()
        found: set[str] = set()
        at = blob.find(needle)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            found.add(ids[i])
            nxt = starts[i + 1] if i + 1 < len(starts) else len(blob)
            at = blob.find(needle, nxt)
        return found

    def entities_named(
        self, keys: Sequence[str], compact: Sequence[str] = (), aliases: bool = True
    ) -> list[Entity]:
        """Entities whose name or an alias has a normalized form in ``keys``, or whose name
        has a compact form in ``compact`` (see :func:`kg_rag.stores.ppr.lookup_keys`), sorted
        by id, without vectors: an index lookup, whatever the size of the graph."""
        with self._lock:
            self._table("entities")
            found: set[str] = set()
            for key in keys:
                found.update(self._name_keys.get(key, ()))
            for key in compact:
                found.update(self._compact_keys.get(key, ()))
            out = [_to_entity(self._entities[e]) for e in sorted(found)]
        if not aliases:
            wanted = set(keys)
            out = [e for e in out if set(ppr.lookup_keys(e.name, [])[0]) & wanted]
        return out

    def has_entity_vectors(self) -> bool:
        """True when some entity carries a vector (vector linking is worth a query embedding)."""
        with self._lock:
            self._table("entities")
            return bool(self._vectors)

    def mention_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """entity_id → number of chunks that mention it (ids without mentions left out)."""
        with self._lock:
            self._table("mentions")
            return {
                e: len(self._entity_chunks[e])
                for e in sorted(set(entity_ids))
                if e in self._entity_chunks
            }

    def similar_entities(
        self, vector: Sequence[float], limit: int = 10
    ) -> list[tuple[Entity, float]]:
        """Entities by cosine similarity of their vectors to ``vector``, best first."""
        with self._lock:
            self._table("entities")
            if limit <= 0 or not self._vectors:
                return []
            if self._vector_dim is not None and len(vector) != self._vector_dim:
                raise SchemaMismatch(
                    f"query vector has {len(vector)} dimensions, entities have {self._vector_dim}; "
                    "embed the query with the knowledge base's embedder."
                )
            if self._matrix is None:
                ids = sorted(self._vectors)
                matrix = np.array([self._vectors[e] for e in ids], dtype=np.float64)
                norms = np.linalg.norm(matrix, axis=1, keepdims=True)
                self._matrix = (ids, matrix / np.where(norms == 0.0, 1.0, norms))
            ids, matrix = self._matrix
            query = np.asarray(vector, dtype=np.float64)
            norm = float(np.linalg.norm(query))
            if norm == 0.0:
                return []
            with single_blas_thread():
                sims = matrix @ (query / norm)
            # Best first, ties (to 6 decimals) by id; only the rows that can make the top
            # ``limit`` are sorted (every row tied with the last of them included).
            rounded = np.round(sims, 6)
            rows = np.arange(len(ids))
            if 0 < limit < len(ids):
                kth = np.partition(-rounded, limit - 1)[limit - 1]
                rows = np.nonzero(-rounded <= kth)[0]
            top = sorted(rows.tolist(), key=lambda i: (-float(rounded[i]), ids[i]))[:limit]
            return [(self._full(ids[i]), float(sims[i])) for i in top]

    def _neighbours_sorted(self, eid: str) -> list[str]:
        """``eid``'s neighbours sorted by id (kept until one of its relations changes)."""
        found = self._sorted_adj.get(eid)
        if found is None:
            found = self._sorted_adj[eid] = sorted(self._adj[eid])
        return found

    def _expand(self, frontier: list[str], seen: Any = (), budget: int | None = None) -> set[str]:
        found: set[str] = set()
        for node in frontier:
            found.update(self._adj[node])
        return found

    def _induced(self, ids: Iterable[str]) -> list[RelKey]:
        # The relations among ``ids``, each pair read from its lower end once.
        nodes = set(ids)
        adj = self._adj
        keys: list[RelKey] = []
        for u in nodes:
            if u not in adj:
                continue
            for v, pair in adj[u].items():
                if v in nodes and u <= v:
                    keys.extend(pair)
        return sorted(keys)

    def neighbourhood(self, entity_ids: Sequence[str], hops: int = 1, limit: int = 200) -> Subgraph:
        """Entities within ``hops`` (undirected) of the seeds — at most ``limit``, chosen in
        (distance, id) order — and the relations among them. Entities come without vectors."""
        with self._lock:
            self._table("entities")
            seeds = [e for e in entity_ids if e in self._entities]
            selected = ppr.bfs_levels(seeds, self._expand, max(hops, 0), max(limit, 0))
            return Subgraph(
                entities=[_to_entity(self._entities[e]) for e in sorted(selected)],
                relations=[_to_relation(k, self._relations[k]) for k in self._induced(selected)],
            )

    def neighbour_ids(self, entity_ids: Sequence[str], limit: int = 200) -> set[str]:
        """The entities one relation away from the seeds among the first ``limit`` of their
        1-hop neighbourhood (what :meth:`neighbourhood` selects): the seeds' neighbours
        without reading their records or the relations among them."""
        with self._lock:
            self._table("entities")
            # What ppr.bfs_levels(seeds, self._expand, 1, limit) selects at distance 1 (the
            # smallest ids among the neighbours that are not seeds), merged from the seeds'
            # sorted neighbour lists instead of sorting every neighbour of every seed.
            first = sorted({e for e in entity_ids if e in self._entities})[: max(limit, 0)]
            budget = limit - len(first)
            taken = set(first)
            found: set[str] = set()
            if budget <= 0:
                return found
            for node in heapq.merge(*(self._neighbours_sorted(e) for e in first)):
                if node not in taken:
                    taken.add(node)
                    found.add(node)
                    if len(found) >= budget:
                        break
            return found

    def paths(
        self, source_id: str, target_id: str, max_hops: int = 3, limit: int = 10
    ) -> list[GraphPath]:
        """All shortest undirected paths (≤ ``max_hops``), sorted by (nodes, relation types)."""
        if not 1 <= max_hops <= ppr.MAX_PATH_HOPS:
            raise ValueError(f"max_hops must be in 1..{ppr.MAX_PATH_HOPS}, got {max_hops}")
        with self._lock:
            self._table("entities")
            if source_id not in self._entities or target_id not in self._entities:
                return []

            def pair_types(a: str, b: str) -> list[str]:
                return sorted({key[1] for key in self._adj[a][b]})

            return ppr.lexicographic_shortest_paths(
                source_id,
                target_id,
                lambda node: self._adj[node],
                pair_types,
                max_hops,
                limit,
            )

    def personalized_pagerank(
        self,
        seeds: dict[str, float],
        damping: float = 0.85,
        limit: int = 50,
        max_hops: int | None = 3,
        tol: float | None = None,
        epsilon: float | None = None,
    ) -> list[tuple[str, float]]:
        """Entity ids ranked by personalized PageRank from weighted seeds.

        The walk runs on the subgraph induced by the entities within ``max_hops`` of a seed
        (``None``: the whole graph), undirected, with relation weights summed per pair.
        """
        with self._lock:
            self._table("entities")
            existing = [s for s in seeds if s in self._entities and seeds[s] > 0]
            if not existing:
                return []
            chosen = {s: seeds[s] for s in existing}
            if max_hops is None:
                if self._whole_graph is None:
                    self._whole_graph = ppr.TransitionMatrix(
                        self._entities,
                        [(k[0], k[2], k[1], r.weight) for k, r in self._relations.items()],
                    )
                if epsilon is not None:
                    return self._whole_graph.rank_local(chosen, damping, limit, epsilon)
                return self._whole_graph.rank(chosen, damping, limit, tol)
            nodes = ppr.bfs_levels(existing, self._expand, max_hops)
            edges = [(k[0], k[2], k[1], self._relations[k].weight) for k in self._induced(nodes)]
            return ppr.personalized_pagerank(nodes, edges, chosen, damping, limit, tol)

    def chunks_for_entities(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        """entity_id → sorted chunk ids that mention it (ids without mentions are left out)."""
        return self._sorted_mentions(entity_ids, self._entity_chunks, self._sorted_entity_chunks)

    def entities_for_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """chunk_id → sorted entity ids mentioned in it (chunks without mentions left out)."""
        return self._sorted_mentions(chunk_ids, self._chunk_entities, self._sorted_chunk_entities)

    def _sorted_mentions(
        self,
        ids: Sequence[str],
        index: Mapping[str, Collection[str]],
        sorted_cache: dict[str, tuple[str, ...]],
    ) -> dict[str, list[str]]:
        """``id`` → the sorted ids ``index`` holds for it, sorted once and kept in
        ``sorted_cache`` (emptied for an id when its mentions change)."""
        with self._lock:
            self._table("mentions")
            out: dict[str, list[str]] = {}
            for key in sorted(set(ids)):
                found = sorted_cache.get(key)
                if found is None:
                    members = index.get(key)
                    if members is None:
                        continue
                    found = sorted_cache[key] = tuple(sorted(members))
                out[key] = list(found)
            return out

    def communities(self, level: int | None = None) -> list[Community]:
        """Stored communities (optionally of one level), sorted by (level, id)."""
        with self._lock:
            self._table("communities")
            found = [c for c in self._communities.values() if level is None or c.level == level]
            return [
                c.model_copy(update={"members": sorted(c.members)})
                for c in sorted(found, key=lambda c: (c.level, c.community_id))
            ]

    def to_networkx(self) -> Any:
        """The entity graph as a ``networkx.Graph``: node attrs ``name``/``type``, edge attrs
        ``weight`` (summed over relations, in (source, type, target) order) and ``types``."""
        with self._lock:
            self._table("entities")
            nodes = [(e.entity_id, e.name, e.type) for e in self._entities.values()]
            edges = [(k[0], k[2], k[1], r.weight) for k, r in self._relations.items()]
            return ppr.build_networkx(nodes, edges)

    def _counts(self) -> dict[str, int]:
        return {
            "entities": len(self._entities),
            "relations": len(self._relations),
            "mentions": sum(len(c) for c in self._entity_chunks.values()),
            "communities": len(self._communities),
            "chunks": len(self._chunks),
            "documents": len({r.doc_id for r in self._chunks.values()}),
        }

    def counts(self) -> dict[str, int]:
        """Numbers of entities, relations, mentions, communities, chunks and documents."""
        with self._lock:
            self._table("entities")
            return self._counts()
