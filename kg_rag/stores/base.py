"""Store protocols. Algorithms (ranking, routing, Leiden) live outside the stores.

``GraphStore`` has two implementations, :class:`~kg_rag.stores.neo4j.Neo4jGraphStore` and
:class:`~kg_rag.stores.embedded.EmbeddedGraphStore`; ``tests/contract`` runs one suite on both
and proves the templated operations give the same answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from kg_rag.models import Chunk, Community, Entity, GraphPath, Mention, Relation, Subgraph

__all__ = ["GraphStore"]


@runtime_checkable
class GraphStore(Protocol):
    """Batch-first graph storage of entities, relations, mentions and communities."""

    backend: str

    def open(self) -> None:
        """Connect / load, and create constraints and indexes. Idempotent."""

    def close(self) -> None:
        """Release connections and flush."""

    # -- writes (idempotent: keys are content-derived) -----------------------------------
    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Insert or update entities by ``entity_id``."""

    def upsert_relations(self, relations: Sequence[Relation]) -> None:
        """Insert or update relations by (source, type, target); evidence is unioned."""

    def upsert_mentions(self, mentions: Sequence[Mention]) -> None:
        """Record that entities are mentioned in chunks."""

    def upsert_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Record chunk ids with their document, level and a text preview (≤ 200 chars).

        Chunks are also created implicitly by mentions; a document's chunks are what
        :meth:`delete_document` removes."""

    def upsert_communities(self, communities: Sequence[Community]) -> None:
        """Replace the community layer with ``communities`` (ids are stable)."""

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """Delete entities with their relations, mentions and community memberships."""

    def delete_document(self, doc_id: str) -> None:
        """Remove the document's mentions and evidence, then every entity or relation
        left without evidence."""

    # -- reads -------------------------------------------------------------------------
    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Entities by id (missing ids are ignored), sorted by id."""

    def all_entities(self) -> list[Entity]:
        """Every entity, sorted by id."""

    def all_relations(self) -> list[Relation]:
        """Every relation, sorted by (source, type, target)."""

    def all_mentions(self) -> list[Mention]:
        """Every mention, sorted by (entity_id, chunk_id)."""

    def find_entities(self, text: str, limit: int = 10) -> list[Entity]:
        """Entities whose name or alias matches ``text`` (case-insensitive exact first,
        then full-text / substring), best first."""

    def entities_named(
        self, keys: Sequence[str], compact: Sequence[str] = (), aliases: bool = True
    ) -> list[Entity]:
        """Entities whose name or an alias normalizes to one of ``keys``, or whose name's
        compact form is in ``compact`` (keys from :func:`kg_rag.stores.ppr.lookup_keys`),
        sorted by id, vectors left out. Served from an index: entity linking and incremental
        resolution call it instead of loading every entity. ``aliases=False`` matches names
        only (one index lookup for many keys: the reader's scan of a passage's substrings)."""

    def mention_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """entity_id → number of chunks that mention it (ids without mentions left out)."""

    def similar_entities(
        self, vector: Sequence[float], limit: int = 10
    ) -> list[tuple[Entity, float]]:
        """Entities by cosine similarity of their vectors to ``vector``, best first."""

    def neighbourhood(self, entity_ids: Sequence[str], hops: int = 1, limit: int = 200) -> Subgraph:
        """Entities within ``hops`` (undirected) of the seeds, and relations among them."""

    def neighbour_ids(self, entity_ids: Sequence[str], limit: int = 200) -> set[str]:
        """The entities one relation away from the seeds among the first ``limit`` of their
        1-hop neighbourhood: ``neighbourhood(entity_ids, 1, limit).neighbours_of(entity_ids)``
        without reading the entities and relations."""

    def paths(
        self, source_id: str, target_id: str, max_hops: int = 3, limit: int = 10
    ) -> list[GraphPath]:
        """Shortest undirected paths (≤ ``max_hops``) between two entities, sorted."""

    def personalized_pagerank(
        self,
        seeds: dict[str, float],
        damping: float = 0.85,
        limit: int = 50,
        max_hops: int | None = 3,
        tol: float | None = None,
        epsilon: float | None = None,
    ) -> list[tuple[str, float]]:
        """Entity ids ranked by personalized PageRank from weighted seeds (undirected,
        relation weights), highest first; the walk stays within ``max_hops`` of the seeds
        (``None``: the whole graph). With ``epsilon`` (and ``max_hops=None``) the scores are
        approximated by forward push from the seeds
        (:meth:`kg_rag.stores.ppr.TransitionMatrix.rank_local`): the work no longer grows with
        the graph."""

    def chunks_for_entities(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        """entity_id → sorted chunk ids that mention it."""

    def entities_for_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """chunk_id → sorted entity ids mentioned in it."""

    def communities(self, level: int | None = None) -> list[Community]:
        """Stored communities (optionally of one level), sorted by (level, id)."""

    def to_networkx(self) -> Any:
        """The whole entity graph as a ``networkx.Graph`` (weights summed per pair)."""

    def counts(self) -> dict[str, int]:
        """Numbers of entities, relations, mentions and communities."""
