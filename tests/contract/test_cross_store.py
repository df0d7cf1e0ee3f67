"""Both stores side by side on the same random graph: every protocol method, same answer."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from kg_rag.config import Neo4jSettings
from kg_rag.models import Community, Entity, Mention, Relation
from kg_rag.stores.embedded import EmbeddedGraphStore
from kg_rag.stores.neo4j import Neo4jGraphStore

pytestmark = [pytest.mark.contract, pytest.mark.neo4j]

WORDS = ["North", "River", "Stone", "Bridge", "Saint", "Lake", "Hill", "Port", "Green", "Old"]
TYPES = ["PERSON", "LOCATION", "ORGANIZATION"]
REL_TYPES = ["KNOWS", "PART_OF", "LOCATED_IN", "WORKS_FOR"]


def random_graph(seed: int) -> tuple[list[Entity], list[Relation], list[Mention], list[Community]]:
    """A few hundred entities with duplicate-ish names, parallel and reversed relations."""
    rng = random.Random(seed)
    entities = []
    for i in range(240):
        name = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i % 37}"
        entities.append(
            Entity(
                entity_id=f"e{i:04d}",
                name=name,
                type=rng.choice(TYPES),
                aliases=[name.split()[0]] if i % 11 == 0 else [],
                vector=[rng.uniform(-1, 1) for _ in range(4)],
            )
        )
    chunks = [(f"c{j:03d}", f"d{j // 8:02d}") for j in range(120)]
    relations = []
    for _ in range(700):
        a, b = rng.sample(range(240), 2) if rng.random() < 0.97 else (rng.randrange(240),) * 2
        relations.append(
            Relation(
                source_id=f"e{a:04d}",
                target_id=f"e{b:04d}",
                type=rng.choice(REL_TYPES),
                weight=round(rng.uniform(0.1, 3.0), 3),
                evidence=[rng.choice(chunks)[0] for _ in range(rng.randint(1, 2))],
            )
        )
    doc_of = dict(chunks)
    mentions = [
        Mention(entity_id=f"e{rng.randrange(240):04d}", chunk_id=c, doc_id=doc_of[c])
        for c, _ in chunks
        for _ in range(4)
    ]
    communities = [
        Community(
            community_id=f"k{k:02d}",
            level=k % 2,
            parent_id=None if k % 2 else f"k{k + 1:02d}",
            members=[f"e{m:04d}" for m in range(k * 10, k * 10 + 12)],
            title=f"community {k}",
        )
        for k in range(20)
    ]
    return entities, relations, mentions, communities


def snapshot(store: Any, rng: random.Random) -> dict[str, Any]:
    """Every read the protocol offers, on sampled arguments."""
    ids = [e.entity_id for e in store.all_entities()]
    picks = [rng.sample(ids, 3) for _ in range(6)] if len(ids) >= 3 else []
    out: dict[str, Any] = {
        "counts": store.counts(),
        "entities": store.all_entities(),
        "relations": store.all_relations(),
        "mentions": store.all_mentions(),
        "communities": store.communities(),
        "level0": store.communities(level=0),
        "graph_nodes": sorted(store.to_networkx().nodes(data=True)),
        "graph_edges": sorted(
            (min(a, b), max(a, b), d["weight"], tuple(d["types"]))
            for a, b, d in store.to_networkx().edges(data=True)
        ),
        "chunks_for": store.chunks_for_entities(ids[:40]),
        "entities_for": store.entities_for_chunks([f"c{j:03d}" for j in range(0, 120, 3)]),
    }
    for n, (a, b, c) in enumerate(picks):
        out[f"nbr1_{n}"] = store.neighbourhood([a], hops=1)
        out[f"nbr2_{n}"] = store.neighbourhood([a, b], hops=2, limit=25)
        out[f"nid_{n}"] = sorted(store.neighbour_ids([a, b, "missing"], limit=6))
        out[f"nid_all_{n}"] = sorted(store.neighbour_ids([c]))
        out[f"paths_{n}"] = store.paths(a, c, max_hops=4, limit=7)
        out[f"paths_short_{n}"] = store.paths(b, c, max_hops=2)
        out[f"ppr_{n}"] = store.personalized_pagerank({a: 1.0, b: 0.5}, limit=30)
        out[f"ppr1_{n}"] = store.personalized_pagerank({c: 1.0}, damping=0.5, max_hops=1)
        out[f"ppr_all_{n}"] = store.personalized_pagerank({a: 2.0}, max_hops=None, limit=300)
    for word in [*WORDS[:5], "river stone", "Saint Lake 3", "nothing here"]:
        out[f"find_{word}"] = [e.entity_id for e in store.find_entities(word, limit=15)]
    return out


def assert_same(left: dict[str, Any], right: dict[str, Any]) -> None:
    assert left.keys() == right.keys()
    for key in left:
        if key.startswith("ppr"):
            assert [n for n, _ in left[key]] == [n for n, _ in right[key]], key
            for (_, x), (_, y) in zip(left[key], right[key], strict=True):
                assert x == pytest.approx(y, abs=1e-6), key
        else:
            assert left[key] == right[key], key


def test_same_data_same_answers(tmp_path: Path, clean_neo4j: tuple[Neo4jSettings, Any]) -> None:
    neo4j_settings, neo4j_driver = clean_neo4j
    embedded = EmbeddedGraphStore(tmp_path / "kb")
    neo = Neo4jGraphStore(neo4j_settings, driver=neo4j_driver, batch_size=128)
    embedded.open()
    neo.open()
    try:
        entities, relations, mentions, communities = random_graph(seed=7)
        for store in (embedded, neo):
            store.upsert_entities(entities)
            # Two halves, so evidence unions across calls as well as within a batch.
            store.upsert_relations(relations[:350])
            store.upsert_relations(relations[300:])
            store.upsert_mentions(mentions)
            store.upsert_communities(communities)
        assert embedded.counts()["relations"] > 500
        assert_same(snapshot(embedded, random.Random(1)), snapshot(neo, random.Random(1)))

        query = [0.3, -0.2, 0.9, 0.1]
        left = embedded.similar_entities(query, limit=5)
        right = neo.similar_entities(query, limit=5)
        assert [e.entity_id for e, _ in left] == [e.entity_id for e, _ in right]
        assert [s for _, s in left] == pytest.approx([s for _, s in right], abs=1e-5)

        for store in (embedded, neo):
            for doc in ("d00", "d03", "d07", "d11"):
                store.delete_document(doc)
            store.delete_entities(["e0005", "e0100"])
        assert_same(snapshot(embedded, random.Random(2)), snapshot(neo, random.Random(2)))
        assert nx.is_isomorphic(embedded.to_networkx(), neo.to_networkx())
    finally:
        embedded.close()
        neo.close()


def test_same_graph_and_seed_give_identical_communities_on_both_stores(
    tmp_path: Path, clean_neo4j: tuple[Neo4jSettings, Any]
) -> None:
    from communities import detect_communities

    neo4j_settings, neo4j_driver = clean_neo4j
    embedded = EmbeddedGraphStore(tmp_path / "kb")
    neo = Neo4jGraphStore(neo4j_settings, driver=neo4j_driver, batch_size=128)
    embedded.open()
    neo.open()
    try:
        entities, with_duplicates, _, _ = random_graph(seed=11)
        # One relation per (source, type, target): a repeated key is an update (last wins),
        # so only then is the insertion order free. It differs per store: detection must not
        # care.
        unique = {(r.source_id, r.type, r.target_id): r for r in with_duplicates}
        relations = list(unique.values())
        embedded.upsert_entities(entities)
        embedded.upsert_relations(relations)
        neo.upsert_entities(entities[::-1])
        neo.upsert_relations(relations[::-1])
        found = [
            detect_communities(store.to_networkx(), max_cluster_size=8, seed=42)
            for store in (embedded, neo)
        ]
        assert found[0] == found[1]
        assert len(found[0]) > 5 and len({r.level for r in found[0]}) >= 2
        again = detect_communities(embedded.to_networkx(), max_cluster_size=8, seed=42)
        assert again == found[0]
    finally:
        neo.close()
        embedded.close()
