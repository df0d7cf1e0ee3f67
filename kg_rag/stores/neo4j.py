"""The graph store on a Neo4j server (Community edition is enough: no GDS, no APOC).

All Cypher comes from :mod:`kg_rag.stores.queries` and takes parameters. Writes go in
``UNWIND $rows`` batches; ranking and ordering (PPR, BFS selection, name matching) run in
:mod:`kg_rag.stores.ppr`, shared with the embedded store, so both give the same answers.
LLM-written Cypher goes through :meth:`Neo4jGraphStore.run_read_only` only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, Query, RoutingControl
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from kg_rag.config import Neo4jSettings
from kg_rag.errors import SchemaMismatch, StoreUnavailable
from kg_rag.models import Chunk, Community, Document, Entity, GraphPath, Mention, Relation, Subgraph
from kg_rag.stores import cypher_safety, neo4j_read_only, ppr
from kg_rag.stores import queries as q

__all__ = ["Neo4jGraphStore"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_BATCH_SIZE = 1000
_INDEX_WAIT_S = 120


def _batches(rows: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:300]


def _entity(record: Mapping[str, Any], *, with_vector: bool = True) -> Entity:
    vector = record["vector"]
    return Entity(
        entity_id=record["entity_id"],
        name=record["name"] or "",
        type=record["type"] or "CONCEPT",
        aliases=list(record["aliases"] or []),
        description=record["description"] or "",
        vector=list(vector) if with_vector and vector is not None else None,
    )


def _name_key_fields(name: str, aliases: Sequence[str]) -> dict[str, Any]:
    keys, compact = ppr.lookup_keys(name, aliases)
    return {"name_key": keys[0] if keys else "", "name_keys": keys, "compact_key": compact}


def _relation(record: Mapping[str, Any]) -> Relation:
    return Relation(
        source_id=record["source_id"],
        target_id=record["target_id"],
        type=record["type"],
        description=record["description"] or "",
        weight=record["weight"] if record["weight"] is not None else 1.0,
        evidence=sorted(record["evidence"] or []),
    )


class Neo4jGraphStore:
    """:class:`~kg_rag.stores.base.GraphStore` on Neo4j.

    Args:
        settings: Connection settings (uri, user, password, database, query timeout).
        driver: An existing driver to use instead of creating one (it is not closed by
            :meth:`close`); handy for tests and for sharing a pool.
        vector_dim: Dimension of entity vectors; when omitted it is taken from an existing
            vector index or from the first entity vectors written.
        batch_size: Rows per ``UNWIND`` write transaction.

    Example:
        >>> with Neo4jGraphStore(Settings().neo4j) as store:  # doctest: +SKIP
        ...     store.neighbourhood(["e_1"], hops=2)
    """

    backend = "neo4j"

    def __init__(
        self,
        settings: Neo4jSettings,
        *,
        driver: neo4j.Driver | None = None,
        vector_dim: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        self.settings = settings
        self._driver: neo4j.Driver | None = driver
        self._owns_driver = driver is None
        self._vector_dim = vector_dim
        self._index_dim: int | None = None
        self._batch_size = batch_size
        self._opened = False
        self._whole_graph: ppr.TransitionMatrix | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self) -> None:
        """Connect, then create constraints and indexes (and the vector index when its
        dimension is known). Idempotent."""
        if self._opened:
            return
        if self._driver is None:
            password = self.settings.password
            auth = (self.settings.user, password.get_secret_value() if password else "")
            self._driver = GraphDatabase.driver(self.settings.uri, auth=auth)
        try:
            self._driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise StoreUnavailable(
                f"Neo4j is not reachable at {self.settings.uri} ({_one_line(str(exc))}); "
                "start it with `kg-rag neo4j start` or fix neo4j.uri."
            ) from exc
        except Neo4jError as exc:
            raise StoreUnavailable(
                f"Neo4j refused the connection ({_one_line(str(exc))}); check "
                "KG_RAG_NEO4J__USER / KG_RAG_NEO4J__PASSWORD."
            ) from exc
        for statement in q.CONSTRAINTS:
            self._run(statement, {})
        records = self._run(q.VECTOR_INDEX_DIM, {"name": q.VECTOR_INDEX}, read=True)
        self._index_dim = int(records[0]["dim"]) if records else None
        self._opened = True
        if records and records[0]["quantized"]:
            # Neo4j's default quantized index scores with int8 vectors; rebuild it exact.
            self._run(q.DROP_VECTOR_INDEX, {})
            self._run(q.create_vector_index(int(records[0]["dim"])), {})
        if self._vector_dim is not None:
            self._ensure_vector_index(self._vector_dim)
        self._run(q.AWAIT_INDEXES, {"timeout": _INDEX_WAIT_S})
        self._backfill_name_keys()

    def _backfill_name_keys(self) -> None:
        """Give entities written before name keys existed their keys (a no-op after)."""
        while True:
            records = self._run(q.ENTITIES_WITHOUT_KEYS, {"limit": 5000}, read=True)
            if not records:
                return
            self._write(
                q.SET_NAME_KEYS,
                [
                    {"entity_id": r["entity_id"], **_name_key_fields(r["name"], r["aliases"] or [])}
                    for r in records
                ],
            )

    def close(self) -> None:
        """Close the driver if this store created it."""
        if self._driver is not None and self._owns_driver:
            self._driver.close()
            self._driver = None
        self._opened = False

    def refresh(self) -> bool:
        """Forget the cached whole-graph walk matrix (the engine calls this when the knowledge
        base changed under it: another writer may have changed the graph). Reads go to the
        server, so nothing else is cached.

        Returns:
            True when a cached matrix was dropped.
        """
        dropped = self._whole_graph is not None
        self._whole_graph = None
        return dropped

    def __enter__(self) -> Neo4jGraphStore:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def driver(self) -> neo4j.Driver:
        """The driver (after :meth:`open`)."""
        if self._driver is None or not self._opened:
            raise StoreUnavailable("Neo4jGraphStore is not open: call store.open() first.")
        return self._driver

    # -- plumbing ----------------------------------------------------------------------------
    def _run(
        self, cypher: str, params: Mapping[str, Any], *, read: bool = False
    ) -> list[neo4j.Record]:
        driver = self._driver if self._driver is not None else self.driver
        timeout = self.settings.query_timeout_s if read else None
        if not read:
            self._whole_graph = None
        try:
            result = driver.execute_query(
                Query(cypher, timeout=timeout),
                dict(params),
                routing_=RoutingControl.READ if read else RoutingControl.WRITE,
                database_=self.settings.database,
            )
        except (ServiceUnavailable, SessionExpired) as exc:
            raise StoreUnavailable(
                f"lost the connection to Neo4j at {self.settings.uri} ({_one_line(str(exc))}); "
                "check that the server is running."
            ) from exc
        except Neo4jError as exc:
            if "TransactionTimedOut" in (exc.code or ""):
                raise StoreUnavailable(
                    f"a Neo4j query ran past neo4j.query_timeout_s={timeout}s; raise it or "
                    "narrow the request."
                ) from exc
            raise StoreUnavailable(
                f"Neo4j at {self.settings.uri} failed a query ({_one_line(exc.message or str(exc))})"
            ) from exc
        except DriverError as exc:
            raise StoreUnavailable(
                f"the Neo4j driver failed ({_one_line(str(exc))}); check neo4j.uri and the server."
            ) from exc
        records: list[neo4j.Record] = result.records
        return records

    def _read(self, cypher: str, **params: Any) -> list[neo4j.Record]:
        self.driver  # noqa: B018 - raises when not open
        return self._run(cypher, params, read=True)

    def _write(self, cypher: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Send ``rows`` in batches; returns the sum of the ``n`` column, if any."""
        self.driver  # noqa: B018 - raises when not open
        total = 0
        for batch in _batches(rows, self._batch_size):
            records = self._run(cypher, {"rows": list(batch)})
            if records and "n" in records[0].keys():  # noqa: SIM118 - a Record iterates values
                total += int(records[0]["n"])
        return total

    def _in_transaction(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        self._whole_graph = None
        try:
            with self.driver.session(database=self.settings.database) as session:
                return session.execute_write(work)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise StoreUnavailable(
                f"lost the connection to Neo4j at {self.settings.uri} ({_one_line(str(exc))})."
            ) from exc

    def _ensure_vector_index(self, dim: int) -> None:
        if self._index_dim == dim:
            return
        if self._index_dim is not None:
            stored = self._run(q.COUNT_VECTORS, {}, read=True)[0]["n"]
            if stored:
                raise SchemaMismatch(
                    f"the Neo4j vector index holds {self._index_dim}-d entity vectors, got "
                    f"{dim}-d; re-embed with the original embedder or clear the database."
                )
            self._run(q.DROP_VECTOR_INDEX, {})
        self._run(q.create_vector_index(dim), {})
        self._run(q.AWAIT_INDEXES, {"timeout": _INDEX_WAIT_S})
        self._index_dim = dim

    # -- writes ------------------------------------------------------------------------------
    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Insert or replace entities by ``entity_id`` (the last duplicate in a batch wins)."""
        self.driver  # noqa: B018
        latest = list({e.entity_id: e for e in entities}.values())
        dims = {len(e.vector) for e in latest if e.vector is not None}
        if len(dims) > 1:
            raise SchemaMismatch(
                f"entity vectors of several dimensions in one batch: {sorted(dims)}"
            )
        if dims:
            dim = dims.pop()
            if self._vector_dim is not None and dim != self._vector_dim:
                raise SchemaMismatch(
                    f"entity vectors must have {self._vector_dim} dimensions, got {dim}; "
                    "re-embed with the knowledge base's embedder."
                )
            self._ensure_vector_index(dim)
        rows = [
            {
                "entity_id": e.entity_id,
                "name": e.name,
                "type": e.type,
                "aliases": list(e.aliases),
                "aliases_text": " | ".join(e.aliases),
                "search_text": "\n".join(ppr.search_keys(e.name, e.aliases)),
                **_name_key_fields(e.name, e.aliases),
                "description": e.description,
                "vector": None if e.vector is None else [float(x) for x in e.vector],
            }
            for e in latest
        ]
        self._write(q.UPSERT_ENTITIES, rows)

    def upsert_relations(self, relations: Sequence[Relation]) -> None:
        """Insert or update relations by (source, type, target); evidence is unioned.

        Relations whose endpoints are not stored entities are skipped (logged).
        """
        folded = ppr.fold_relations(relations)
        rows = [
            {
                "source_id": r.source_id,
                "target_id": r.target_id,
                "type": r.type,
                "description": r.description,
                "weight": float(r.weight),
                "evidence": list(r.evidence),
            }
            for r in folded
        ]
        written = self._write(q.UPSERT_RELATIONS, rows)
        if written < len(rows):
            logger.warning(
                "skipped %d relations whose entities are not stored", len(rows) - written
            )

    def upsert_mentions(self, mentions: Sequence[Mention]) -> None:
        """Record mentions; a chunk's document is the ``doc_id`` of its latest mention.

        Mentions of entities that are not stored are skipped (logged).
        """
        rows = [
            {"entity_id": m.entity_id, "chunk_id": m.chunk_id, "doc_id": m.doc_id} for m in mentions
        ]
        written = self._write(q.UPSERT_MENTIONS, rows)
        if written < len(rows):
            logger.warning(
                "skipped %d mentions of entities that are not stored", len(rows) - written
            )

    def upsert_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Create or update ``Chunk`` nodes (ids, document, level, parent, ordinal and a text
        preview of at most 200 characters) linked from their ``Document``."""
        latest = {c.chunk_id: c for c in chunks}
        rows = [
            {
                "chunk_id": c.chunk_id,
                "doc_id": c.doc_id,
                "level": c.level,
                "parent_id": c.parent_id,
                "ordinal": c.ordinal,
                "preview": c.text[: ppr.CHUNK_PREVIEW_CHARS],
            }
            for c in latest.values()
        ]
        self._write(q.UPSERT_CHUNKS, rows)

    def upsert_chunk_records(self, records: Sequence[ppr.ChunkRecord]) -> None:
        """Like :meth:`upsert_chunks`, from the embedded store's chunk records (export)."""
        rows = [
            {
                **r._asdict(),
                "preview": None if r.preview is None else r.preview[: ppr.CHUNK_PREVIEW_CHARS],
            }
            for r in {r.chunk_id: r for r in records}.values()
        ]
        self._write(q.UPSERT_CHUNKS, rows)

    def annotate_documents(self, documents: Sequence[Document]) -> None:
        """Set title, source and version on ``Document`` nodes that already exist (Neo4j
        only: for reading the graph in the Browser)."""
        rows = [
            {"doc_id": d.doc_id, "title": d.title, "source": d.source, "version": d.version}
            for d in documents
        ]
        self._write(q.ANNOTATE_DOCUMENTS, rows)

    @staticmethod
    def _community_row(c: Community) -> dict[str, Any]:
        return {
            "community_id": c.community_id,
            "level": c.level,
            "parent_id": c.parent_id,
            "members": sorted(set(c.members)),
            "title": c.title,
            "summary": c.summary,
            "findings": list(c.findings),
            "rank": float(c.rank),
            "content_hash": c.content_hash,
            "vector": None if c.vector is None else [float(x) for x in c.vector],
        }

    @staticmethod
    def _community_records(records: Sequence[neo4j.Record]) -> list[Community]:
        return [
            Community(
                community_id=r["community_id"],
                level=r["level"],
                parent_id=r["parent_id"],
                members=sorted(r["members"]),
                title=r["title"] or "",
                summary=r["summary"] or "",
                findings=list(r["findings"] or []),
                rank=r["rank"] if r["rank"] is not None else 0.0,
                content_hash=r["content_hash"] or "",
                vector=list(r["vector"]) if r["vector"] is not None else None,
            )
            for r in records
        ]

    def upsert_communities(self, communities: Sequence[Community]) -> None:
        """Replace the community layer in one transaction; members that are not stored
        entities are dropped, parents are linked with ``CHILD_OF`` when they exist."""
        latest = {c.community_id: c for c in communities}
        rows = [self._community_row(c) for c in latest.values()]

        def work(tx: neo4j.ManagedTransaction) -> None:
            tx.run(q.DELETE_ALL_COMMUNITIES).consume()
            for batch in _batches(rows, self._batch_size):
                tx.run(q.CREATE_COMMUNITIES, rows=list(batch)).consume()
            for batch in _batches(rows, self._batch_size):
                tx.run(q.LINK_COMMUNITY_MEMBERS, rows=list(batch)).consume()
            parents = [r for r in rows if r["parent_id"] is not None]
            for batch in _batches(parents, self._batch_size):
                tx.run(q.LINK_COMMUNITY_PARENTS, rows=list(batch)).consume()

        self._in_transaction(work)

    def apply_communities(self, upserts: Sequence[Community], removed: Sequence[str] = ()) -> None:
        """Change part of the community layer in one transaction: delete ``removed``, insert
        or replace ``upserts`` (members that are not stored entities are dropped, parents
        linked with ``CHILD_OF``); children of a replaced community stay linked to it.

        A delta write: of a replaced community only the member links it gained or lost
        (and a changed parent link) are written, so growing a large community by one member
        costs one link."""
        rows = [self._community_row(c) for c in {c.community_id: c for c in upserts}.values()]
        ids = [r["community_id"] for r in rows]
        gone = sorted(set(removed) - set(ids))
        stored = {c.community_id: c for c in self.get_communities(ids)}
        for row in rows:
            before = stored.get(row["community_id"])
            old = set(before.members) if before is not None else set()
            row["dropped"] = sorted(old - set(row["members"]))
            row["members"] = sorted(set(row["members"]) - old)
        parents = [r for r in rows if r["parent_id"] is not None]

        def work(tx: neo4j.ManagedTransaction) -> None:
            for id_batch in _batches(gone, self._batch_size):
                tx.run(q.DELETE_COMMUNITIES, ids=list(id_batch)).consume()
            for batch in _batches(rows, self._batch_size):
                tx.run(q.CREATE_COMMUNITIES, rows=list(batch)).consume()
            for batch in _batches(rows, self._batch_size):
                tx.run(q.UNLINK_COMMUNITY_CHANGES, rows=list(batch)).consume()
            for batch in _batches(rows, self._batch_size):
                tx.run(q.LINK_COMMUNITY_MEMBERS, rows=list(batch)).consume()
            for batch in _batches(parents, self._batch_size):
                tx.run(q.LINK_COMMUNITY_PARENTS, rows=list(batch)).consume()

        self._in_transaction(work)

    def community_changes(self) -> tuple[list[str], list[str]]:
        """(entity ids, community ids) changed since :meth:`clear_community_changes` (see
        :meth:`kg_rag.stores.embedded.EmbeddedGraphStore.community_changes`)."""
        entities = [r["id"] for r in self._read(q.DIRTY_ENTITIES)]
        communities = [r["id"] for r in self._read(q.DIRTY_COMMUNITIES)]
        return entities, communities

    def clear_community_changes(
        self, entities: Sequence[str] | None = None, communities: Sequence[str] = ()
    ) -> None:
        """Forget the given changes (all of them when ``entities`` is None)."""
        if entities is None:
            self._run(q.CLEAR_ALL_DIRTY, {})
            return
        for batch in _batches(sorted(set(entities)), self._batch_size):
            self._run(q.CLEAR_DIRTY_ENTITIES, {"ids": list(batch)})
        for batch in _batches(sorted(set(communities)), self._batch_size):
            self._run(q.CLEAR_DIRTY_COMMUNITIES, {"ids": list(batch)})

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        """Every relation with an endpoint in ``entity_ids``, sorted by (source, type,
        target)."""
        found: dict[tuple[str, str, str], Relation] = {}
        for batch in _batches(sorted(set(entity_ids)), self._batch_size):
            for r in self._read(q.RELATIONS_OF, ids=list(batch)):
                rel = _relation(r)
                found[(rel.source_id, rel.type, rel.target_id)] = rel
        return [found[k] for k in sorted(found)]

    def _community_reads(self, cypher: str, ids: Sequence[str]) -> list[Community]:
        found: dict[str, Community] = {}
        for batch in _batches(sorted(set(ids)), self._batch_size):
            for c in self._community_records(self._read(cypher, ids=list(batch))):
                found[c.community_id] = c
        return sorted(found.values(), key=lambda c: (c.level, c.community_id))

    def communities_of(self, entity_ids: Sequence[str]) -> list[Community]:
        """The communities (every level) with a member in ``entity_ids``, sorted by (level,
        id), vectors left out."""
        return self._community_reads(q.COMMUNITIES_OF, entity_ids)

    def get_communities(self, community_ids: Sequence[str]) -> list[Community]:
        """Communities by id (missing ids ignored), sorted by (level, id), vectors left
        out."""
        return self._community_reads(q.GET_COMMUNITIES, community_ids)

    def child_communities(self, community_ids: Sequence[str]) -> list[Community]:
        """The communities whose parent is in ``community_ids``, sorted by (level, id),
        vectors left out."""
        return self._community_reads(q.CHILD_COMMUNITIES, community_ids)

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """Delete entities with their relations, mentions and community memberships."""
        ids = sorted(set(entity_ids))
        self.driver  # noqa: B018
        for batch in _batches(ids, self._batch_size):
            self._run(q.DELETE_ENTITIES, {"ids": list(batch)})

    def delete_document(self, doc_id: str) -> None:
        """In one transaction: strip the document's chunks from relation evidence, delete
        relations left without evidence, the document's chunks (and so its mentions), and the
        entities left without any mention."""

        def work(tx: neo4j.ManagedTransaction) -> None:
            footprint = tx.run(q.DOCUMENT_FOOTPRINT, doc_id=doc_id).single()
            chunks = list(footprint["chunks"]) if footprint else []
            entities = list(footprint["entities"]) if footprint else []
            if not chunks:
                return
            tx.run(q.MARK_ENTITIES_DIRTY, ids=entities).consume()
            tx.run(q.STRIP_EVIDENCE, chunks=chunks).consume()
            tx.run(q.DELETE_DOCUMENT_CHUNKS, doc_id=doc_id).consume()
            tx.run(q.DELETE_DOCUMENT_NODE, doc_id=doc_id).consume()
            tx.run(q.DELETE_UNMENTIONED_ENTITIES, ids=entities).consume()

        self._in_transaction(work)

    # -- reads -------------------------------------------------------------------------------
    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Entities by id (missing ids are ignored), sorted by id, with their vectors."""
        records = self._read(q.GET_ENTITIES, ids=sorted(set(entity_ids)))
        return sorted((_entity(r) for r in records), key=lambda e: e.entity_id)

    def all_entities(self) -> list[Entity]:
        """Every entity, sorted by id, with its vector."""
        return [_entity(r) for r in self._read(q.ALL_ENTITIES)]

    def all_relations(self) -> list[Relation]:
        """Every relation, sorted by (source, type, target), evidence sorted."""
        relations = [_relation(r) for r in self._read(q.ALL_RELATIONS)]
        return sorted(relations, key=lambda r: (r.source_id, r.type, r.target_id))

    def all_mentions(self) -> list[Mention]:
        """Every mention, sorted by (entity_id, chunk_id)."""
        mentions = [
            Mention(entity_id=r["entity_id"], chunk_id=r["chunk_id"], doc_id=r["doc_id"])
            for r in self._read(q.ALL_MENTIONS)
        ]
        return sorted(mentions, key=lambda m: (m.entity_id, m.chunk_id))

    def all_chunks(self) -> list[ppr.ChunkRecord]:
        """Every ``Chunk`` node, by id."""
        records = [
            ppr.ChunkRecord(
                r["chunk_id"], r["doc_id"], r["level"], r["parent_id"], r["ordinal"], r["preview"]
            )
            for r in self._read(q.ALL_CHUNKS)
        ]
        return sorted(records, key=lambda c: c.chunk_id)

    def find_entities(self, text: str, limit: int = 10) -> list[Entity]:
        """Entities whose name or alias matches ``text``, best first (see
        :func:`kg_rag.stores.ppr.rank_name_matches`)."""
        needles = ppr.name_needles(text)
        if not needles or limit <= 0:
            return []
        candidates = [_entity(r) for r in self._read(q.NAME_CANDIDATES, needles=needles)]
        return ppr.rank_name_matches(text, candidates, limit)

    def entities_named(
        self, keys: Sequence[str], compact: Sequence[str] = (), aliases: bool = True
    ) -> list[Entity]:
        """Entities whose name or an alias normalizes to one of ``keys``, or whose name's
        compact form is in ``compact``, sorted by id, without vectors (range indexes on the
        name keys; aliases through the full-text index, filtered exactly)."""
        keys = sorted({k for k in keys if k})
        compact = sorted({k for k in compact if k})
        found: dict[str, Entity] = {}
        if keys:
            for record in self._read(q.ENTITIES_BY_NAME_KEY, keys=keys):
                found.setdefault(record["entity_id"], _entity(record, with_vector=False))
        if keys and aliases:
            queries = [
                {
                    "key": k,
                    "query": f'aliases_text:"{" ".join(q.lucene_escape(t) for t in k.split())}"',
                }
                for k in keys
            ]
            for record in self._read(q.ENTITIES_BY_ALIAS_KEY, queries=queries, per_key=50):
                found.setdefault(record["entity_id"], _entity(record, with_vector=False))
        if compact:
            for record in self._read(q.ENTITIES_BY_COMPACT_KEY, keys=compact):
                found.setdefault(record["entity_id"], _entity(record, with_vector=False))
        return [found[e] for e in sorted(found)]

    def has_entity_vectors(self) -> bool:
        """True when some entity carries a vector (vector linking is worth a query embedding).
        One query; scans the entities only when none has a vector."""
        if self._index_dim is None:
            return False
        return bool(self._read(q.ANY_ENTITY_VECTOR))

    def mention_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """entity_id → number of chunks that mention it (ids without mentions left out)."""
        records = self._read(q.MENTION_COUNTS, ids=sorted(set(entity_ids)))
        return {r["key"]: int(r["n"]) for r in sorted(records, key=lambda r: r["key"])}

    def search_fulltext(self, text: str, limit: int = 10) -> list[tuple[Entity, float]]:
        """Lucene full-text search over entity names and aliases (Neo4j only), best first."""
        query = " ".join(q.lucene_escape(t) for t in text.split())
        if not query or limit <= 0:
            return []
        records = self._read(q.FULLTEXT_ENTITIES, query=query, limit=limit)
        return [(_entity(r), float(r["score"])) for r in records]

    def similar_entities(
        self, vector: Sequence[float], limit: int = 10
    ) -> list[tuple[Entity, float]]:
        """Entities by cosine similarity of their vectors to ``vector``, best first (through
        the HNSW vector index: approximate on large graphs)."""
        self.driver  # noqa: B018
        if limit <= 0 or self._index_dim is None:
            return []
        if len(vector) != self._index_dim:
            raise SchemaMismatch(
                f"query vector has {len(vector)} dimensions, entities have {self._index_dim}; "
                "embed the query with the knowledge base's embedder."
            )
        records = self._read(q.SIMILAR_ENTITIES, k=limit, vector=[float(x) for x in vector])
        # Neo4j reports cosine as (1 + cos) / 2; report the cosine itself, like the embedded store.
        scored = [(_entity(r), 2.0 * float(r["score"]) - 1.0) for r in records]
        scored.sort(key=lambda item: (-round(item[1], 6), item[0].entity_id))
        return scored[:limit]

    def _existing(self, ids: Sequence[str]) -> list[str]:
        return sorted(
            r["entity_id"] for r in self._read(q.EXISTING_ENTITY_IDS, ids=sorted(set(ids)))
        )

    def _expand(self, frontier: list[str], seen: Collection[str], budget: int | None) -> list[str]:
        if budget is None:
            records = self._read(q.NEIGHBOUR_IDS, ids=frontier, seen=list(seen))
        else:
            records = self._read(
                q.NEIGHBOUR_IDS_LIMITED, ids=frontier, seen=list(seen), limit=budget
            )
        return list(records[0]["ids"])

    def _edges(self, cypher: str, **params: Any) -> list[ppr.Edge]:
        record = self._read(cypher, **params)[0]
        return list(
            zip(
                record["sources"],
                record["targets"],
                record["types"],
                [float(w) for w in record["weights"]],
                strict=True,
            )
        )

    def neighbourhood(self, entity_ids: Sequence[str], hops: int = 1, limit: int = 200) -> Subgraph:
        """Entities within ``hops`` (undirected) of the seeds — at most ``limit``, chosen in
        (distance, id) order — and the relations among them. Entities come without vectors."""
        seeds = self._existing(entity_ids)
        selected = sorted(ppr.bfs_levels(seeds, self._expand, max(hops, 0), max(limit, 0)))
        if not selected:
            return Subgraph()
        entities = [_entity(r, with_vector=False) for r in self._read(q.GET_ENTITIES, ids=selected)]
        relations = [_relation(r) for r in self._read(q.INDUCED_RELATIONS, ids=selected)]
        return Subgraph(
            entities=sorted(entities, key=lambda e: e.entity_id),
            relations=sorted(relations, key=lambda r: (r.source_id, r.type, r.target_id)),
        )

    def neighbour_ids(self, entity_ids: Sequence[str], limit: int = 200) -> set[str]:
        """The entities one relation away from the seeds among the first ``limit`` of their
        1-hop neighbourhood (what :meth:`neighbourhood` selects): the seeds' neighbours
        without reading their records or the relations among them."""
        seeds = self._existing(entity_ids)
        selected = ppr.bfs_levels(seeds, self._expand, 1, max(limit, 0))
        return {e for e, distance in selected.items() if distance == 1}

    def paths(
        self, source_id: str, target_id: str, max_hops: int = 3, limit: int = 10
    ) -> list[GraphPath]:
        """All shortest undirected paths (≤ ``max_hops``), sorted by (nodes, relation types)."""
        query = q.paths_query(max_hops)
        existing = self._existing([source_id, target_id])
        if source_id not in existing or target_id not in existing or limit <= 0:
            return []
        if source_id == target_id:
            return [GraphPath(nodes=[source_id], relations=[])]
        records = self._read(query, source=source_id, target=target_id, limit=limit)
        return [GraphPath(nodes=list(r["nodes"]), relations=list(r["types"])) for r in records]

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
        (``None``: the whole graph), undirected, with relation weights summed per pair. The
        adjacency is fetched with one query per hop and ranked in Python (no GDS needed).
        """
        positive = [s for s in seeds if seeds[s] > 0]
        existing = self._existing(positive) if positive else []
        if not existing:
            return []
        if max_hops is None:
            # The whole-graph walk matrix is cached until this store writes or is refreshed
            # (the engine refreshes it when the knowledge base folder changes).
            if self._whole_graph is None:
                ids = list(self._read(q.GRAPH_NODES)[0]["ids"])
                self._whole_graph = ppr.TransitionMatrix(ids, self._edges(q.ALL_EDGES))
            chosen = {s: seeds[s] for s in existing}
            if epsilon is not None:
                return self._whole_graph.rank_local(chosen, damping, limit, epsilon)
            return self._whole_graph.rank(chosen, damping, limit, tol)
        else:
            nodes = set(ppr.bfs_levels(existing, self._expand, max_hops))
            edges = self._edges(q.INDUCED_EDGES, ids=sorted(nodes))
        return ppr.personalized_pagerank(
            nodes, edges, {s: seeds[s] for s in existing}, damping, limit, tol
        )

    def chunks_for_entities(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        """entity_id → sorted chunk ids that mention it (ids without mentions are left out)."""
        records = self._read(q.CHUNKS_FOR_ENTITIES, ids=sorted(set(entity_ids)))
        return {r["key"]: sorted(r["ids"]) for r in sorted(records, key=lambda r: r["key"])}

    def entities_for_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """chunk_id → sorted entity ids mentioned in it (chunks without mentions left out)."""
        records = self._read(q.ENTITIES_FOR_CHUNKS, ids=sorted(set(chunk_ids)))
        return {r["key"]: sorted(r["ids"]) for r in sorted(records, key=lambda r: r["key"])}

    def communities(self, level: int | None = None) -> list[Community]:
        """Stored communities (optionally of one level), sorted by (level, id)."""
        return self._community_records(self._read(q.COMMUNITIES, level=level))

    def to_networkx(self) -> Any:
        """The entity graph as a ``networkx.Graph``: node attrs ``name``/``type``, edge attrs
        ``weight`` (summed over relations, in (source, type, target) order) and ``types``."""
        record = self._read(q.GRAPH_NODES)[0]
        nodes = zip(record["ids"], record["names"], record["types"], strict=True)
        return ppr.build_networkx(nodes, self._edges(q.ALL_EDGES))

    def counts(self) -> dict[str, int]:
        """Numbers of entities, relations, mentions, communities, chunks and documents."""
        record = self._read(q.COUNTS)[0]
        return {key: int(record[key]) for key in record.keys()}  # noqa: SIM118 - a Record iterates values

    # -- text2cypher -------------------------------------------------------------------------
    def run_read_only(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float | None = None,
        row_limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Run LLM-written Cypher only if it is one bounded, read-only statement.

        Checks (see :mod:`kg_rag.stores.cypher_safety`): lexical and expression screening,
        then ``EXPLAIN`` must report a read-only plan; then the statement runs once (never
        retried) in an explicit READ transaction, and at most ``row_limit`` rows are fetched.
        ``timeout_s`` is one deadline for ``EXPLAIN`` and the run together: the server stops
        the transaction at it, and this call returns at most
        :data:`~kg_rag.stores.neo4j_read_only.CLIENT_GRACE_S` later even if the server does
        not answer. Every driver error comes out as a :class:`~kg_rag.errors.KgRagError`.

        Args:
            cypher: The statement.
            params: Its parameters.
            timeout_s: The deadline in seconds (default: ``neo4j.query_timeout_s``).
            row_limit: Maximum rows returned; the rest are discarded unread.

        Raises:
            UnsafeCypherError: Refused, failed to compile, or failed.
            CypherLimitError: Ran past the deadline or the server's transaction memory limit.
            StoreUnavailable: The server cannot be reached or dropped the connection.
        """
        timeout = self.settings.query_timeout_s if timeout_s is None else timeout_s
        if row_limit <= 0:
            raise ValueError("row_limit must be positive")
        if timeout <= 0:
            raise ValueError("timeout_s must be positive")
        statement = cypher_safety.check_statement(cypher)
        rows = neo4j_read_only.run_bounded(
            self.driver,
            self.settings,
            statement,
            dict(params or {}),
            timeout_s=timeout,
            row_limit=row_limit,
        )
        logger.debug("read-only Cypher returned %d rows", len(rows))
        return rows
