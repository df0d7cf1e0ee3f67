"""Pydantic types shared across the engine: documents, chunks, graph records and answers.

Ids are derived from content (see :func:`stable_id`), so re-running any step converges to the
same knowledge base.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CHUNK_LEVELS",
    "AnswerType",
    "Chunk",
    "ChunkHit",
    "ChunkLevel",
    "Community",
    "Comparison",
    "Document",
    "Entity",
    "GraphPath",
    "Mention",
    "Relation",
    "Subgraph",
    "stable_id",
]

ChunkLevel = Literal["document", "section", "paragraph", "sentence"]
CHUNK_LEVELS: tuple[ChunkLevel, ...] = ("document", "section", "paragraph", "sentence")


def stable_id(*parts: str, prefix: str = "", length: int = 16) -> str:
    """A short, deterministic id: ``prefix`` + the first ``length`` hex digits of sha1(parts)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:length]
    return f"{prefix}{digest}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Document(_Model):
    """One source document, as cleaned and stored."""

    doc_id: str
    source: str
    title: str = ""
    content_hash: str
    version: int = 1
    metadata: dict[str, str] = Field(default_factory=dict)
    text: str = ""


class Chunk(_Model):
    """A span of a document's cleaned text at one granularity, linked to its parent."""

    chunk_id: str
    doc_id: str
    level: ChunkLevel
    parent_id: str | None = None
    ordinal: int = 0
    heading_path: list[str] = Field(default_factory=list)
    char_start: int
    char_end: int
    text: str
    metadata: dict[str, str] = Field(default_factory=dict)


class ChunkHit(_Model):
    """A chunk returned by a search, with its fused score and the per-method scores."""

    chunk: Chunk
    score: float
    scores: dict[str, float] = Field(default_factory=dict)
    parent: Chunk | None = None


class Entity(_Model):
    """A resolved entity; ``entity_id`` comes from its normalized name and type."""

    entity_id: str
    name: str
    type: str = "CONCEPT"
    aliases: list[str] = Field(default_factory=list)
    description: str = ""
    vector: list[float] | None = None


class Mention(_Model):
    """Provenance: entity ``entity_id`` is mentioned in chunk ``chunk_id`` of ``doc_id``."""

    entity_id: str
    chunk_id: str
    doc_id: str


class Relation(_Model):
    """A typed, weighted relation between two entities with the chunks that support it."""

    source_id: str
    target_id: str
    type: str = "RELATED_TO"
    description: str = ""
    weight: float = 1.0
    evidence: list[str] = Field(default_factory=list)

    @property
    def relation_id(self) -> str:
        """Deterministic id of (source, type, target)."""
        return stable_id(self.source_id, self.type, self.target_id, prefix="r_")


class Community(_Model):
    """A community of entities at one level of the hierarchy, with its summary."""

    community_id: str
    level: int
    parent_id: str | None = None
    members: list[str] = Field(default_factory=list)
    title: str = ""
    summary: str = ""
    findings: list[str] = Field(default_factory=list)
    rank: float = 0.0
    content_hash: str = ""
    vector: list[float] | None = None


class GraphPath(_Model):
    """A path between entities: node ids in order and the relation types between them."""

    nodes: list[str]
    relations: list[str]

    @property
    def length(self) -> int:
        """Number of hops."""
        return len(self.relations)


class Subgraph(_Model):
    """Entities and relations of a neighbourhood (plain data; ``to_networkx`` for analysis)."""

    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)

    def to_networkx(self) -> Any:
        """Return a ``networkx.MultiDiGraph`` with entity and relation attributes."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        for e in self.entities:
            graph.add_node(e.entity_id, name=e.name, type=e.type)
        for r in self.relations:
            graph.add_edge(r.source_id, r.target_id, key=r.type, type=r.type, weight=r.weight)
        return graph

    def neighbours_of(self, entity_ids: Iterable[str]) -> set[str]:
        """Entities one relation away from ``entity_ids`` (``entity_ids`` themselves left out)."""
        ids = set(entity_ids)
        out: set[str] = set()
        for r in self.relations:
            if r.source_id in ids:
                out.add(r.target_id)
            if r.target_id in ids:
                out.add(r.source_id)
        return out - ids


# -- answering --------------------------------------------------------------------------

Route = Literal["graph", "community", "chunks"]
Granularity = Literal["document", "section", "paragraph", "sentence", "mixed"]


class Evidence(_Model):
    """One piece of retrieved evidence with its provenance."""

    chunk_id: str
    doc_id: str
    text: str
    score: float
    level: str = "paragraph"
    char_start: int = 0
    char_end: int = 0
    source: str = ""
    route: str = "chunks"
    entity_ids: list[str] = Field(default_factory=list)
    scores: dict[str, float] = Field(default_factory=dict)


AnswerType = Literal[
    "PERSON", "LOCATION", "ORGANIZATION", "DATE", "NUMBER", "YESNO", "NAME", "TEXT"
]
"""What a step (or a question) asks for: the reader keeps only candidates that fit."""


class PlanStep(_Model):
    """One reasoning step; ``#n`` in ``query`` is replaced by step n's answer.

    ``answer_type`` is what the step asks for (a person for "who", a date for "when", ...);
    ``subject`` names the option a comparison step looks up (empty for other steps).
    """

    index: int
    query: str
    needs: str = ""
    depends_on: list[int] = Field(default_factory=list)
    kind: Literal["lookup", "bridge", "compare", "verify", "aggregate", "global"] = "lookup"
    answer_type: AnswerType = "NAME"
    subject: str = ""


class Comparison(_Model):
    """How the final step of a comparison or yes/no plan decides.

    ``options`` are the compared names as the question gives them; ``value_steps[i]`` is the
    step whose answer is option i's value. ``order`` says which value wins: ``min`` (earliest,
    smallest), ``max`` (latest, largest), ``same`` (yes when the values agree), ``all`` (yes
    when every value step found support), ``equal`` (yes when every value names
    ``threshold``: "Is X the birthplace of both A and B?"), or ``gt`` / ``lt`` (yes when the one
    value is above / below ``threshold``, a number or a date as the question gives it). Without
    a threshold the second value is the bar, times ``factor`` ("more than twice as many N as
    B": 2).
    """

    options: list[str]
    value_steps: list[int]
    order: Literal["min", "max", "same", "all", "equal", "gt", "lt"]
    attribute: str = ""
    threshold: str = ""
    factor: float = 1.0


class Plan(_Model):
    """A question split into steps; the last step answers the question."""

    question: str
    steps: list[PlanStep]
    strategy: str = "single"
    planner: str = "rules"
    answer_type: AnswerType = "NAME"
    comparison: Comparison | None = None


class RouteDecision(_Model):
    """Where a step's evidence comes from and at which granularity."""

    route: Route
    granularity: Granularity = "paragraph"
    top_k: int = 5
    filters: dict[str, str] = Field(default_factory=dict)
    reason: str = ""
    router: str = "rules"
