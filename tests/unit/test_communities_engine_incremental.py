"""Incremental communities through the engine (embedded store): after a small change only the
touched communities are re-clustered and re-summarized, the stored hierarchy stays valid, the
community index follows, and a full rebuild gives what a fresh build of the same graph
gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import DIMS, settings

from kg_rag.engine import KnowledgeEngine
from kg_rag.models import Community, Entity, Mention, Relation
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

GROUPS = 12


def open_kb(kb: Path, **communities: Any) -> KnowledgeEngine:
    s = settings(kb)
    for key, value in communities.items():
        setattr(s.communities, key, value)
    return KnowledgeEngine.open(kb, settings=s, embedder=HashEmbeddings(DIMS), progress=False)


def node(g: int, c: int, i: int) -> str:
    return f"n{g:02d}{c}_{i}"


def graph() -> tuple[list[Entity], list[Relation], list[Mention]]:
    """``GROUPS`` groups of three 4-cliques (see test_communities_local.groups); each clique
    is one document (chunk ``k{g}{c}``) holding its edges and the edges to earlier cliques."""
    entities, relations, mentions = [], [], []
    for g in range(GROUPS):
        for c in range(3):
            chunk, doc = f"k{g:02d}{c}", f"d{g:02d}{c}"
            ids = [node(g, c, i) for i in range(4)]
            entities += [Entity(entity_id=e, name=f"N {e}", type="PERSON") for e in ids]
            mentions += [Mention(entity_id=e, chunk_id=chunk, doc_id=doc) for e in ids]
            pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
            for d in range(c):
                pairs += [(node(g, c, d), node(g, d, c)), (node(g, c, d + 1), node(g, d, c + 1))]
            if g and c == 1:
                pairs.append((node(g - 1, 0, 0), node(g, 1, 1)))
            relations += [
                Relation(source_id=a, target_id=b, type="KNOWS", evidence=[chunk]) for a, b in pairs
            ]
    return entities, relations, mentions


def write(kg: KnowledgeEngine, entities: Any = (), relations: Any = (), mentions: Any = ()) -> None:
    kg.graph_store.upsert_entities(list(entities))
    kg.graph_store.upsert_relations(list(relations))
    kg.graph_store.upsert_mentions(list(mentions))


def build(kg: KnowledgeEngine, full: bool | None = None) -> Any:
    builder = kg._builder()
    return builder.index_communities(builder.build_communities(full=full))


def assert_valid(kg: KnowledgeEngine) -> None:
    stored = kg.graph_store.communities()
    by_id = {c.community_id: c for c in stored}
    entities = {e.entity_id for e in kg.graph_store.all_entities()}
    per_level: dict[int, set[str]] = {}
    for c in stored:
        assert len(c.members) >= 2 and set(c.members) <= entities
        seen = per_level.setdefault(c.level, set())
        assert not seen & set(c.members)
        seen.update(c.members)
        if c.level:
            parent = by_id[c.parent_id or ""]
            assert parent.level == c.level - 1 and set(c.members) <= set(parent.members)
        else:
            assert c.parent_id is None
    assert sorted(c.community_id for c in kg._builder().index.all()) == sorted(by_id)


def _isolated(kg: KnowledgeEngine) -> set[str]:
    write(
        kg,
        [Entity(entity_id="lonely", name="Lonely", type="PERSON")],
        mentions=[Mention(entity_id="lonely", chunk_id="k_new", doc_id="d_new")],
    )
    return {"lonely"}


def _edge_inside(kg: KnowledgeEngine) -> set[str]:
    a, b = node(3, 1, 0), node(3, 1, 2)
    write(kg, relations=[Relation(source_id=a, target_id=b, type="MET", evidence=["k031", "kx"])])
    return {a, b}


def _bridge(kg: KnowledgeEngine) -> set[str]:
    pairs = [(node(2, c, i), node(7, c, i)) for c in range(3) for i in range(4)]
    write(
        kg,
        relations=[
            Relation(source_id=a, target_id=b, type="MET", evidence=["kb"]) for a, b in pairs
        ],
    )
    return {n for p in pairs for n in p}


def _new_entity(kg: KnowledgeEngine) -> set[str]:
    new = Entity(entity_id="newcomer", name="Newcomer", type="PERSON")
    rels = [
        Relation(source_id="newcomer", target_id=node(5, 2, i), type="KNOWS", evidence=["k_new"])
        for i in range(3)
    ]
    write(kg, [new], rels, [Mention(entity_id="newcomer", chunk_id="k_new", doc_id="d_new")])
    return {"newcomer", *(node(5, 2, i) for i in range(3))}


def _delete_doc(kg: KnowledgeEngine) -> set[str]:
    gone = {node(9, 2, i) for i in range(4)}
    kg.graph_store.delete_document("d092")
    return gone | {node(9, 0, 2), node(9, 1, 2), node(9, 0, 3), node(9, 1, 3)}


CHANGES: list[tuple[str, Callable[[KnowledgeEngine], set[str]]]] = [
    ("an isolated entity", _isolated),
    ("an edge inside a community", _edge_inside),
    ("a bridge between two groups", _bridge),
    ("a new entity linked into a clique", _new_entity),
    ("a deleted document", _delete_doc),
]


@pytest.mark.parametrize(("name", "change"), CHANGES, ids=[c[0] for c in CHANGES])
@pytest.mark.parametrize("max_region_nodes", [200, 5])
def test_small_change_updates_only_touched_communities(
    tmp_path: Path, name: str, change: Callable[[KnowledgeEngine], set[str]], max_region_nodes: int
) -> None:
    with open_kb(tmp_path / "kb", max_region_nodes=max_region_nodes) as kg:
        write(kg, *graph())
        first = build(kg)
        assert not first.incremental and first.communities > GROUPS
        before = {c.community_id: c for c in kg.graph_store.communities()}
        touched = change(kg)
        report = build(kg)
        assert report.incremental, name
        assert_valid(kg)
        after = {c.community_id: c for c in kg.graph_store.communities()}
        for cid, old in before.items():
            if touched & set(old.members):
                continue
            assert cid in after, f"{name}: untouched community {cid} lost its id"
            new = after[cid]
            assert (new.title, new.summary) == (old.title, old.summary)
            if new.members == old.members:
                assert new.content_hash == old.content_hash
            else:  # a group above the cap gained or lost members: its summary is carried
                assert old.level == 0 and max_region_nodes == 5, name
                assert new.content_hash.startswith("carried:")
        if name == "an isolated entity":
            assert after == before and report.summarized == 0
        if name == "a deleted document":
            members = {m for c in after.values() for m in c.members}
            assert not members & {node(9, 2, i) for i in range(4)}
        assert report.summarized < len(before) / 3
        assert kg.graph_store.community_changes() == ([], [])


def test_full_rebuild_equals_a_fresh_build_of_the_same_graph(tmp_path: Path) -> None:
    """Same communities, parents and content hashes (a summary whose hash is unchanged is
    kept, as in any build, so its text may be the one written first)."""
    with open_kb(tmp_path / "steps") as kg:
        write(kg, *graph())
        build(kg)
        for _, change in CHANGES:
            change(kg)
            assert build(kg).incremental
        rebuilt = build(kg, full=True)
        assert not rebuilt.incremental
        assert_valid(kg)
        got = [
            (c.community_id, c.level, c.parent_id, tuple(c.members), c.content_hash)
            for c in kg.graph_store.communities()
        ]
        entities = kg.graph_store.all_entities()
        relations = kg.graph_store.all_relations()
        mentions = kg.graph_store.all_mentions()
    with open_kb(tmp_path / "fresh") as kg:
        write(kg, entities, relations, mentions)
        build(kg)
        fresh = [
            (c.community_id, c.level, c.parent_id, tuple(c.members), c.content_hash)
            for c in kg.graph_store.communities()
        ]
    assert got and got == fresh


def test_incremental_off_and_large_changes_cluster_the_whole_graph(tmp_path: Path) -> None:
    with open_kb(tmp_path / "off", incremental=False) as kg:
        write(kg, *graph())
        build(kg)
        _new_entity(kg)
        assert not build(kg).incremental
    with open_kb(tmp_path / "large", max_incremental_share=0.05) as kg:
        write(kg, *graph())
        build(kg)
        _bridge(kg)  # 24 of 144 entities touched: above 5%
        assert not build(kg).incremental
        assert kg.graph_store.community_changes() == ([], [])


def test_stored_communities_from_a_full_build_are_kept_when_nothing_changed(
    tmp_path: Path,
) -> None:
    with open_kb(tmp_path / "kb") as kg:
        write(kg, *graph())
        build(kg)
        before: list[Community] = kg.graph_store.communities()
        report = build(kg)
        assert report.incremental and report.region_nodes == 0 and report.summarized == 0
        assert kg.graph_store.communities() == before


def test_index_takes_in_updates_a_crash_left_pending(tmp_path: Path) -> None:
    """Two incremental builds, the first one's index step lost (a crash): the next index
    step takes in both."""
    with open_kb(tmp_path / "kb") as kg:
        write(kg, *graph())
        build(kg)
        _new_entity(kg)
        kg._builder().build_communities()  # no index step
        _bridge(kg)
        build(kg)
        assert_valid(kg)
