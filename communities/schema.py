"""Pydantic types of :mod:`communities`: what goes in, what comes out.

Inputs are plain: :class:`EntityInfo` and :class:`RelationInfo` describe the entity graph the
caller already has (the engine converts its own records). Outputs are
:class:`CommunityRecord` (detection), :class:`CommunityContext` (what a summarizer sees),
:class:`CommunityReport` (a summary), :class:`CommunityFingerprint` and :class:`UpdatePlan`
(incremental updates).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CommunityContext",
    "CommunityFingerprint",
    "CommunityRecord",
    "CommunityReport",
    "EntityInfo",
    "RelationInfo",
    "SummaryFailure",
    "UpdatePlan",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CommunityRecord(_Model):
    """One community at one level of the hierarchy.

    Level 0 is the coarsest partition (one Leiden run over the whole graph); level ``k + 1``
    splits the level-``k`` communities that reached ``max_cluster_size``. A community that was
    small enough is not split, so it has no children and deeper levels do not cover its nodes.

    Attributes:
        community_id: ``"c"`` + 16 hex digits of sha1(level, sorted members): a community whose
            membership is unchanged keeps its id across runs.
        level: Depth in the hierarchy, 0 = coarsest.
        parent_id: The community one level up that contains this one (``None`` at level 0).
        members: Node ids (as strings), sorted.
        size: ``len(members)``.
    """

    community_id: str
    level: int
    parent_id: str | None = None
    members: list[str]
    size: int


class EntityInfo(_Model):
    """An entity as a summarizer sees it.

    Attributes:
        entity_id: The node id used in the graph.
        name: Display name.
        type: Entity type, e.g. ``PERSON``.
        description: Free text; trimmed when a context is packed.
        degree: Weighted degree; ``None`` lets the context builder compute it from the
            relations it is given.
    """

    entity_id: str
    name: str
    type: str = ""
    description: str = ""
    degree: float | None = None


class RelationInfo(_Model):
    """A relation between two entities, with its best evidence sentences first.

    Relations are treated as undirected for membership: a relation belongs to a community when
    both ends are members.
    """

    source_id: str
    target_id: str
    type: str = "RELATED_TO"
    description: str = ""
    weight: float = 1.0
    evidence: list[str] = Field(default_factory=list)


class CommunityContext(_Model):
    """What a summarizer is given for one community: members packed within a token budget.

    Attributes:
        community_id: Id of the community.
        level: Its level.
        size: Number of members (all of them, not only those packed).
        entities: Members packed, highest weighted degree first.
        relations: Relations among packed members, with the evidence sentences that fitted.
        truncated: Whether something was left out to respect the budget.
        token_estimate: Estimated tokens of :meth:`render`.
    """

    community_id: str
    level: int
    size: int
    entities: list[EntityInfo]
    relations: list[RelationInfo]
    truncated: bool = False
    token_estimate: int = 0

    def render(self) -> str:
        """The context as prompt text: a header, the entities, then relations with evidence."""
        lines = [_header(self.level, self.size), ENTITIES_HEADER]
        names: dict[str, str] = {}
        for e in self.entities:
            names[e.entity_id] = e.name
            lines.append(_entity_line(e))
        if self.relations:
            lines.append(RELATIONS_HEADER)
            for r in self.relations:
                lines.extend(_relation_lines(r, names))
        if self.truncated:
            lines.append(TRUNCATED_NOTE)
        return "\n".join(lines)


ENTITIES_HEADER = "Entities (name | type | degree | description):"
RELATIONS_HEADER = "Relations (source -[type]-> target | weight | description):"
TRUNCATED_NOTE = "(some members or relations were left out to fit the budget)"


def _header(level: int, size: int) -> str:
    # No community id: it means nothing to a model, and prompts without it can share a cache
    # entry whenever their content is the same.
    return f"Community at level {level} with {size} entities"


def _entity_line(e: EntityInfo) -> str:
    degree = f"{e.degree:g}" if e.degree is not None else "?"
    return f"- {e.name} | {e.type or '-'} | {degree} | {e.description}".rstrip(" |")


def _relation_lines(r: RelationInfo, names: dict[str, str]) -> list[str]:
    src = names.get(r.source_id, r.source_id)
    dst = names.get(r.target_id, r.target_id)
    head = f"- {src} -[{r.type}]-> {dst} | {r.weight:g}"
    if r.description:
        head += f" | {r.description}"
    return [head, *(_evidence_line(s) for s in r.evidence)]


def _evidence_line(sentence: str) -> str:
    return f'    evidence: "{sentence}"'


def _compact_schema(schema: dict[str, Any]) -> None:
    # Sent as the tool's parameters with every call; the prompt already says what each field
    # holds, so descriptions and bounds stay out of it (validation still applies them).
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        for key in ("description", "default", "maximum", "minimum"):
            prop.pop(key, None)


class CommunityReport(_Model):
    """A community summary: the schema the LLM fills in, and what the extractive summary gives."""

    model_config = ConfigDict(json_schema_extra=_compact_schema)

    title: str = Field(description="A short, specific name for the community (≤ 12 words).")
    summary: str = Field(
        description="2-5 sentences: who or what the community is about and how they relate."
    )
    findings: list[str] = Field(
        default_factory=list,
        description="Up to 5 key facts, each one sentence grounded in the given relations.",
    )
    rating: float = Field(
        ge=0.0,
        le=10.0,
        description="Importance from 0 (trivial) to 10 (central to the collection).",
    )


class SummaryFailure(_Model):
    """A community that could not be summarized, and why."""

    community_id: str
    error: str
    attempts: int = 1


class CommunityFingerprint(_Model):
    """A community's id with the hash of everything its summary depends on."""

    community_id: str
    level: int
    content_hash: str


class UpdatePlan(_Model):
    """Which communities to keep, summarize again, or delete after a recompute.

    Attributes:
        unchanged: Ids whose membership and member content are unchanged: keep their summary.
        to_summarize: Ids that are new or whose member content changed.
        removed: Ids stored before that no longer exist.
    """

    unchanged: list[str] = Field(default_factory=list)
    to_summarize: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
