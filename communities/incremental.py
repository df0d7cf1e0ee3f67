"""Incremental community updates: summarize again only what changed.

A community's id already fixes its level and membership (see
:func:`~communities.leiden.community_id`). Its *content hash* adds everything its summary is
made from: each member's name, type and description, and each relation among members with
its description, weight and evidence. After a re-ingest, :func:`plan_update` compares the new
fingerprints with the stored ones:

* same id, same hash → unchanged, keep the stored summary;
* new id, or same id with another hash → summarize;
* stored id that is gone → remove.

Leiden is a global algorithm, so a change in the graph's *structure* (an added or removed
relation) can move nodes between communities far from the change; a change in content only
(descriptions, evidence) never changes membership, and re-summarizes exactly the communities
that contain a changed member, at every level.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from pydantic import Field

from communities.schema import (
    CommunityFingerprint,
    CommunityRecord,
    CommunityReport,
    EntityInfo,
    RelationInfo,
    UpdatePlan,
    _Model,
)
from communities.summarize import Summarizer, _entity_map, build_contexts, group_relations
from extraction.structured import run_sync

__all__ = [
    "CommunityUpdate",
    "HasContentHash",
    "aupdate_communities",
    "fingerprint",
    "fingerprint_communities",
    "plan_update",
    "update_communities",
]


class HasContentHash(Protocol):
    """Anything with a community id and a content hash (e.g. ``kg_rag.models.Community``)."""

    @property
    def community_id(self) -> str: ...

    @property
    def content_hash(self) -> str: ...


def _digest(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def _entity_digest(entity: EntityInfo | None, node: str) -> str:
    if entity is None:
        return _digest("missing", node)
    return _digest(entity.entity_id, entity.name, entity.type, entity.description)


def _relation_digest(rel: RelationInfo) -> str:
    return _digest(
        rel.source_id,
        rel.target_id,
        rel.type,
        rel.description,
        repr(float(rel.weight)),
        *rel.evidence,
    )


def fingerprint(
    record: CommunityRecord,
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    *,
    salt: str = "",
) -> CommunityFingerprint:
    """The fingerprint of one community (see :func:`fingerprint_communities`).

    Each call scans all ``relations``: for many communities use
    :func:`fingerprint_communities`, which groups them once.
    """
    return fingerprint_communities([record], entities, relations, salt=salt)[0]


def fingerprint_communities(
    records: Sequence[CommunityRecord],
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    *,
    salt: str = "",
) -> list[CommunityFingerprint]:
    """Content hashes of ``records``.

    Args:
        records: Communities from :func:`~communities.leiden.detect_communities`.
        entities: Member details, or a mapping id → details (a member without details
            hashes as "missing").
        relations: All relations; those among members enter the hash.
        salt: Mixed into every hash: pass what else the summaries depend on (prompt
            version, model, token budget) so changing it re-summarizes everything.

    Returns:
        One fingerprint per record, in the order of ``records``.
    """
    entity_map = _entity_map(entities)
    entity_digests: dict[str, str] = {}
    relation_digests: dict[int, str] = {}
    grouped = group_relations(records, relations)
    out = []
    for record in records:
        digest = hashlib.sha256()
        digest.update(f"{salt}\x1e{record.level}\x1e".encode())
        for node in record.members:
            d = entity_digests.get(node)
            if d is None:
                d = entity_digests[node] = _entity_digest(entity_map.get(node), node)
            digest.update(f"{node}\x1f{d}\x1e".encode())
        rel_digests = []
        for rel in grouped[record.community_id]:
            d = relation_digests.get(id(rel))
            if d is None:
                d = relation_digests[id(rel)] = _relation_digest(rel)
            rel_digests.append(d)
        # Sorted: the hash must not depend on the order relations were listed in.
        for d in sorted(rel_digests):
            digest.update(d.encode())
        out.append(
            CommunityFingerprint(
                community_id=record.community_id,
                level=record.level,
                content_hash=digest.hexdigest(),
            )
        )
    return out


def plan_update(
    old: Iterable[HasContentHash | tuple[str, str]],
    new: Iterable[HasContentHash | tuple[str, str]],
) -> UpdatePlan:
    """What to keep, summarize and remove after a recompute.

    Args:
        old: Communities stored before: objects with ``community_id`` and ``content_hash``
            (e.g. ``kg_rag.models.Community``) or ``(community_id, content_hash)`` pairs. An
            empty hash counts as changed.
        new: Fingerprints of the recomputed communities (same forms).

    Returns:
        The plan; each list sorted.
    """
    stored = dict(map(_pair, old))
    unchanged: list[str] = []
    to_summarize: list[str] = []
    current: set[str] = set()
    for cid, content_hash in map(_pair, new):
        current.add(cid)
        previous = stored.get(cid)
        if previous and previous == content_hash:
            unchanged.append(cid)
        else:
            to_summarize.append(cid)
    removed = [cid for cid in stored if cid not in current]
    return UpdatePlan(
        unchanged=sorted(unchanged), to_summarize=sorted(to_summarize), removed=sorted(removed)
    )


def _pair(item: HasContentHash | tuple[str, str]) -> tuple[str, str]:
    if isinstance(item, tuple):
        return item[0], item[1]
    return item.community_id, item.content_hash


class CommunityUpdate(_Model):
    """Result of :func:`update_communities`.

    Attributes:
        fingerprints: One per current community, in the order of the records.
        plan: What was kept, summarized and removed.
        reports: New reports for ``plan.to_summarize`` (a failed one is missing).
        missing: Ids in ``plan.to_summarize`` that got no report.
    """

    fingerprints: list[CommunityFingerprint]
    plan: UpdatePlan
    reports: dict[str, CommunityReport] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)


async def aupdate_communities(
    records: Sequence[CommunityRecord],
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    summarizer: Summarizer,
    *,
    previous: Iterable[HasContentHash | tuple[str, str]] = (),
    token_budget: int = 1500,
    salt: str = "",
) -> CommunityUpdate:
    """Fingerprint ``records``, plan against ``previous`` and summarize what changed.

    Args:
        records: The recomputed communities.
        entities: Member details.
        relations: All relations of the graph.
        summarizer: Makes the reports (LLM or extractive).
        previous: What is stored now; empty for a first build (everything is summarized).
        token_budget: Per-community context budget (see
            :func:`~communities.summarize.build_contexts`).
        salt: See :func:`fingerprint_communities`.

    Returns:
        Fingerprints, the plan and the new reports; storing them is the caller's job.
    """
    entity_list = list(_entity_map(entities).values())
    fingerprints = fingerprint_communities(records, entity_list, relations, salt=salt)
    plan = plan_update(previous, fingerprints)
    wanted = set(plan.to_summarize)
    changed = [r for r in records if r.community_id in wanted]
    contexts = build_contexts(changed, entity_list, relations, token_budget=token_budget)
    reports = await summarizer.asummarize(contexts) if contexts else {}
    missing = [cid for cid in plan.to_summarize if cid not in reports]
    return CommunityUpdate(fingerprints=fingerprints, plan=plan, reports=reports, missing=missing)


def update_communities(
    records: Sequence[CommunityRecord],
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    summarizer: Summarizer,
    *,
    previous: Iterable[HasContentHash | tuple[str, str]] = (),
    token_budget: int = 1500,
    salt: str = "",
) -> CommunityUpdate:
    """Synchronous :func:`aupdate_communities` (works inside a running loop, e.g. Jupyter)."""
    return run_sync(
        lambda: aupdate_communities(
            records,
            entities,
            relations,
            summarizer,
            previous=previous,
            token_budget=token_budget,
            salt=salt,
        )
    )
