"""The incremental community budget on the real Neo4j (the embedded store's cases are in
tests/unit/test_communities_budget.py): small changes are incremental and keep untouched ids
and summaries, a spent budget clusters the whole graph and measures the loss.

The test starts from an empty database (the ``empty_neo4j`` fixture)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kg_rag.config import EmbeddingSettings, LLMSettings, Neo4jSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.models import Entity, Mention, Relation
from kg_rag.testing import HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

DIMS = 64
GROUPS = 8


def _node(g: int, c: int, i: int) -> str:
    return f"n{g:02d}{c}_{i}"


def _graph() -> tuple[list[Entity], list[Relation], list[Mention]]:
    """``GROUPS`` groups of three 4-cliques, cliques of a group linked, groups in a chain."""
    entities, relations, mentions = [], [], []
    for g in range(GROUPS):
        for c in range(3):
            chunk = f"k{g:02d}{c}"
            ids = [_node(g, c, i) for i in range(4)]
            entities += [Entity(entity_id=e, name=f"N {e}", type="PERSON") for e in ids]
            mentions += [Mention(entity_id=e, chunk_id=chunk, doc_id=f"d{chunk}") for e in ids]
            pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
            pairs += [(_node(g, c, d), _node(g, d, c)) for d in range(c)]
            if g and c == 1:
                pairs.append((_node(g - 1, 0, 0), _node(g, 1, 1)))
            relations += [
                Relation(source_id=a, target_id=b, type="KNOWS", evidence=[chunk]) for a, b in pairs
            ]
    return entities, relations, mentions


def _newcomer(kg: KnowledgeEngine, name: str, group: int) -> set[str]:
    links = [_node(group, 2, i) for i in range(3)]
    kg.graph_store.upsert_entities([Entity(entity_id=name, name=name.title(), type="PERSON")])
    kg.graph_store.upsert_relations(
        [Relation(source_id=name, target_id=t, type="KNOWS", evidence=[f"x_{name}"]) for t in links]
    )
    kg.graph_store.upsert_mentions(
        [Mention(entity_id=name, chunk_id=f"x_{name}", doc_id=f"dx_{name}")]
    )
    return {name, *links}


def _build(kg: KnowledgeEngine) -> Any:
    builder = kg._builder()
    return builder.index_communities(builder.build_communities())


@pytest.mark.parametrize(
    ("budget", "modes"),
    [(0.5, ["", ""]), (0.06, ["", "budget"])],
    ids=["within the budget", "spent on the second change"],
)
def test_budget_on_neo4j(
    tmp_path: Path, empty_neo4j: Neo4jSettings, budget: float, modes: list[str]
) -> None:
    settings = Settings(
        graph_backend="neo4j",
        neo4j=empty_neo4j,
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
    )
    settings.kb_dir = tmp_path / "kb"
    settings.extraction.mode = "offline"
    settings.communities.local_budget = budget
    with KnowledgeEngine.open(
        settings.kb_dir, settings=settings, embedder=HashEmbeddings(DIMS), progress=False
    ) as kg:
        entities, relations, mentions = _graph()
        kg.graph_store.upsert_entities(entities)
        kg.graph_store.upsert_relations(relations)
        kg.graph_store.upsert_mentions(mentions)
        assert _build(kg).full_reason == "first"
        before = {c.community_id: c for c in kg.graph_store.communities()}
        touched: set[str] = set()
        for step, (name, group) in enumerate([("ada", 2), ("bea", 5)]):
            touched |= _newcomer(kg, name, group)
            report = _build(kg)
            assert report.full_reason == modes[step]
            assert report.incremental is (modes[step] == "")
        state = json.loads((settings.kb_dir / "community-drift.json").read_text())
        after = {c.community_id: c for c in kg.graph_store.communities()}
        if modes[-1] == "budget":
            assert report.modularity_loss is not None and state["changed"] == 0
            assert state["clustered"] == 3 * 4 * GROUPS + 2
            return
        assert state["changed"] == 8
        kept = [c for c in before.values() if c.level > 0 and not touched & set(c.members)]
        assert kept
        for old in kept:
            assert after[old.community_id].content_hash == old.content_hash
