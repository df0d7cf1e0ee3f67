"""communities.incremental: content hashes and re-summarizing only what changed."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from communities import (
    CommunityFingerprint,
    CommunityRecord,
    EntityInfo,
    ExtractiveSummarizer,
    LLMSummarizer,
    RelationInfo,
    UpdatePlan,
    detect_communities,
    fingerprint,
    fingerprint_communities,
    plan_update,
    update_communities,
)
from kg_rag.models import Community
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit


def _world(seed: int = 3) -> tuple[list[EntityInfo], list[RelationInfo]]:
    """Six planted groups of 8 entities (so Leiden splits some of them at level 1)."""
    base = nx.planted_partition_graph(6, 14, 0.5, 0.02, seed=seed)
    rng = random.Random(seed)
    entities = [
        EntityInfo(
            entity_id=f"e{n:03d}",
            name=f"Entity {n}",
            type="THING",
            description=f"Thing number {n}.",
        )
        for n in base.nodes
    ]
    relations = [
        RelationInfo(
            source_id=f"e{u:03d}",
            target_id=f"e{v:03d}",
            type="LINKED",
            weight=float(rng.randint(1, 3)),
            evidence=[f"{u} is linked to {v}."],
        )
        for u, v in base.edges
    ]
    return entities, relations


def _records(relations: list[RelationInfo]) -> list[CommunityRecord]:
    graph = nx.Graph()
    for r in relations:
        graph.add_edge(r.source_id, r.target_id, weight=r.weight)
    return detect_communities(graph, max_cluster_size=10, seed=42)


def _fake() -> FakeChatModel:
    report = json.dumps({"title": "T", "summary": "S.", "findings": ["F."], "rating": 5})
    return FakeChatModel(script=[(r"community report", report)])


def _stored(records: list[CommunityRecord], prints: list[CommunityFingerprint]) -> list[Community]:
    hashes = {p.community_id: p.content_hash for p in prints}
    return [
        Community(
            community_id=r.community_id,
            level=r.level,
            parent_id=r.parent_id,
            members=r.members,
            content_hash=hashes[r.community_id],
        )
        for r in records
    ]


def test_changing_one_description_resummarizes_only_its_communities() -> None:
    entities, relations = _world()
    records = _records(relations)
    assert len({r.level for r in records}) >= 2, "the test needs a hierarchy"
    fake = _fake()
    first = update_communities(records, entities, relations, LLMSummarizer(fake, progress=False))
    assert len(fake.calls) == len(records) == len(first.plan.to_summarize)
    stored = _stored(records, first.fingerprints)

    changed = entities[17].entity_id
    entities[17] = entities[17].model_copy(update={"description": "Now something else."})
    records_again = _records(relations)
    assert [r.community_id for r in records_again] == [r.community_id for r in records]

    fake.reset()
    second = update_communities(
        records_again, entities, relations, LLMSummarizer(fake, progress=False), previous=stored
    )
    containing = sorted(r.community_id for r in records if changed in r.members)
    assert 1 <= len(containing) < len(records)
    assert second.plan.to_summarize == containing
    assert len(fake.calls) == len(containing)
    assert all("Now something else." in call.prompt for call in fake.calls)
    assert len(second.plan.unchanged) == len(records) - len(containing)
    assert second.plan.removed == []
    assert sorted(second.reports) == containing and second.missing == []


def test_relation_change_touches_only_communities_holding_both_ends() -> None:
    entities, relations = _world()
    records = _records(relations)
    before = {
        p.community_id: p.content_hash
        for p in fingerprint_communities(records, entities, relations)
    }
    top = {m: r.community_id for r in records if r.level == 0 for m in r.members}
    # A relation inside a level-0 community (there are some in a planted partition).
    i = next(
        k for k, r in enumerate(relations) if top.get(r.source_id, "?") == top.get(r.target_id)
    )
    rel = relations[i]
    relations[i] = rel.model_copy(update={"evidence": ["A new sentence from a new document."]})
    after = {
        p.community_id: p.content_hash
        for p in fingerprint_communities(records, entities, relations)
    }
    changed = {cid for cid in before if before[cid] != after[cid]}
    expected = {
        r.community_id for r in records if rel.source_id in r.members and rel.target_id in r.members
    }
    assert changed == expected
    assert 1 <= len(expected) < len(records)


def test_hash_ignores_input_order_and_uses_salt() -> None:
    entities, relations = _world()
    records = _records(relations)
    prints = fingerprint_communities(records, entities, relations)
    shuffled_e, shuffled_r = list(entities), list(relations)
    random.Random(1).shuffle(shuffled_e)
    random.Random(2).shuffle(shuffled_r)
    assert (
        fingerprint_communities(records, {e.entity_id: e for e in shuffled_e}, shuffled_r) == prints
    )
    salted = fingerprint_communities(records, entities, relations, salt="community-v2")
    assert all(a.content_hash != b.content_hash for a, b in zip(prints, salted, strict=True))
    assert fingerprint(records[0], entities, relations) == prints[0]


def test_plan_update_cases() -> None:
    old = [("c1", "h1"), ("c2", "h2"), ("c3", "h3"), ("c4", "")]
    new = [
        CommunityFingerprint(community_id="c1", level=0, content_hash="h1"),
        CommunityFingerprint(community_id="c2", level=0, content_hash="h2-changed"),
        CommunityFingerprint(community_id="c4", level=0, content_hash="h4"),
        CommunityFingerprint(community_id="c5", level=1, content_hash="h5"),
    ]
    assert plan_update(old, new) == UpdatePlan(
        unchanged=["c1"], to_summarize=["c2", "c4", "c5"], removed=["c3"]
    )
    assert plan_update([], new).to_summarize == ["c1", "c2", "c4", "c5"]
    assert plan_update(old, []).removed == ["c1", "c2", "c3", "c4"]


def test_structural_change_removes_and_adds_communities() -> None:
    entities, relations = _world()
    entities.append(EntityInfo(entity_id="x1", name="X1"))
    entities.append(EntityInfo(entity_id="x2", name="X2"))
    relations.append(RelationInfo(source_id="x1", target_id="x2"))
    records = _records(relations)
    summarizer = ExtractiveSummarizer()
    first = update_communities(records, entities, relations, summarizer)
    pair = next(r.community_id for r in records if r.members == ["x1", "x2"])

    relations = [r for r in relations if r.source_id != "x1"]
    relations.append(RelationInfo(source_id="x1", target_id="e000"))
    second = update_communities(
        _records(relations),
        entities,
        relations,
        summarizer,
        previous=_stored(records, first.fingerprints),
    )
    assert pair in second.plan.removed
    assert second.plan.to_summarize, "the community that took x1 in is new"
    assert set(second.reports) == set(second.plan.to_summarize)
