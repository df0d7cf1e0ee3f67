"""The GraphStore contract: one suite, run on EmbeddedGraphStore and Neo4jGraphStore.

Expected values are worked out by hand from ``contract_data`` (or, for PageRank, by networkx),
so both stores are held to the same answers.
"""

from __future__ import annotations

from typing import Any

import contract_data as data
import networkx as nx
import pytest

from kg_rag.models import Community, Entity, GraphPath, Mention, Relation
from kg_rag.stores.base import GraphStore

pytestmark = pytest.mark.contract


def rel_keys(relations: list[Relation]) -> list[tuple[str, str, str]]:
    return [(r.source_id, r.type, r.target_id) for r in relations]


def test_store_satisfies_protocol_and_open_is_idempotent(store: Any) -> None:
    assert isinstance(store, GraphStore)
    store.open()
    assert store.counts() == {
        "entities": 0,
        "relations": 0,
        "mentions": 0,
        "communities": 0,
        "chunks": 0,
        "documents": 0,
    }


def test_counts_after_load(store: Any) -> None:
    data.load(store)
    assert store.counts() == {
        "entities": 8,
        "relations": 9,
        "mentions": 16,
        "communities": 3,
        "chunks": 6,
        "documents": 3,
    }


def test_upserts_are_idempotent(store: Any) -> None:
    data.load(store)
    before = (store.counts(), store.all_entities(), store.all_relations(), store.all_mentions())
    data.load(store)
    after = (store.counts(), store.all_entities(), store.all_relations(), store.all_mentions())
    assert after == before


def test_entities_round_trip_sorted_with_vectors(store: Any) -> None:
    store.upsert_entities(data.entities())
    got = store.get_entities(["e_paris", "missing", "e_alice", "e_alice"])
    assert [e.entity_id for e in got] == ["e_alice", "e_paris"]
    assert got[0] == data.entities()[0]
    everything = store.all_entities()
    assert [e.entity_id for e in everything] == sorted(e.entity_id for e in data.entities())
    assert {e.entity_id: e for e in everything} == {e.entity_id: e for e in data.entities()}


def test_entity_upsert_replaces_fields_and_last_duplicate_wins(store: Any) -> None:
    store.upsert_entities(data.entities())
    first = Entity(entity_id="e_bob", name="Robert", type="PERSON", aliases=["Bobby"])
    second = Entity(entity_id="e_bob", name="Robert Jones", type="PERSON", description="later")
    store.upsert_entities([first, second])
    (bob,) = store.get_entities(["e_bob"])
    assert bob == second  # the vector is gone too: an upsert replaces the record
    assert store.counts()["entities"] == 8


def test_relations_sorted_evidence_unioned_last_fields_win(store: Any) -> None:
    store.upsert_entities(data.entities())
    store.upsert_relations(data.relations())
    keys = rel_keys(store.all_relations())
    assert keys == sorted(keys)
    acme_paris = next(r for r in store.all_relations() if r.source_id == "e_acme")
    assert acme_paris.evidence == ["c1", "c3"]
    store.upsert_relations(
        [
            Relation(
                source_id="e_alice",
                target_id="e_acme",
                type="WORKS_AT",
                weight=7.0,
                evidence=["c9"],
            ),
            Relation(
                source_id="e_alice",
                target_id="e_acme",
                type="WORKS_AT",
                description="CTO",
                weight=5.0,
                evidence=["c7", "c1"],
            ),
        ]
    )
    works = next(
        r for r in store.all_relations() if (r.source_id, r.type) == ("e_alice", "WORKS_AT")
    )
    assert works == Relation(
        source_id="e_alice",
        target_id="e_acme",
        type="WORKS_AT",
        description="CTO",
        weight=5.0,
        evidence=["c1", "c7", "c9"],
    )
    assert store.counts()["relations"] == 9


def test_relations_and_mentions_of_unknown_entities_are_skipped(store: Any) -> None:
    store.upsert_entities(data.entities())
    store.upsert_relations(
        [
            Relation(source_id="e_alice", target_id="e_nobody", type="KNOWS"),
            Relation(source_id="e_alice", target_id="e_carol", type="KNOWS", evidence=["c1"]),
        ]
    )
    store.upsert_mentions(
        [
            Mention(entity_id="e_nobody", chunk_id="c99", doc_id="d9"),
            Mention(entity_id="e_carol", chunk_id="c1", doc_id="d1"),
        ]
    )
    assert rel_keys(store.all_relations()) == [("e_alice", "KNOWS", "e_carol")]
    assert store.all_mentions() == [Mention(entity_id="e_carol", chunk_id="c1", doc_id="d1")]
    assert store.counts()["chunks"] == 1


def test_chunks_and_entities_both_ways(store: Any) -> None:
    data.load(store)
    assert store.chunks_for_entities(["e_carol", "e_acme", "missing"]) == {
        "e_acme": ["c1", "c2", "c3", "c5"],
        "e_carol": ["c6"],
    }
    assert store.entities_for_chunks(["c1", "c404"]) == {"c1": ["e_acme", "e_alice", "e_paris"]}
    mentions = store.all_mentions()
    assert [(m.entity_id, m.chunk_id) for m in mentions] == sorted(
        (e, c) for c, ids in data.CHUNK_ENTITIES.items() for e in ids
    )
    assert all(m.doc_id == data.CHUNK_DOCS[m.chunk_id] for m in mentions)


def test_upsert_chunks_keeps_a_short_preview(store: Any) -> None:
    data.load(store)
    store.upsert_chunks([data.chunk("c1", "x" * 500), data.chunk("c5", "short text")])
    chunks = {c.chunk_id: c for c in store.all_chunks()}
    assert chunks["c1"].preview == "x" * 200
    assert chunks["c1"].level == "paragraph" and chunks["c1"].ordinal == 1
    assert chunks["c5"].preview == "short text"
    assert chunks["c2"].preview is None  # known only from mentions
    assert store.counts()["chunks"] == 6


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("acme", ["e_acme"]),
        ("  ACME   corporation ", ["e_acme"]),
        ("smith", ["e_alice"]),
        ("Where did Alice Smith work?", ["e_alice"]),
        ("Paris France", ["e_france", "e_paris"]),
        ("Jones and Carol", ["e_carol", "e_bob"]),
        ("zzz", []),
        ("", []),
    ],
)
def test_find_entities(store: Any, text: str, expected: list[str]) -> None:
    store.upsert_entities(data.entities())
    assert [e.entity_id for e in store.find_entities(text)] == expected


def test_find_entities_sees_writes_and_deletes(store: Any) -> None:
    store.upsert_entities(data.entities())
    assert store.find_entities("Lisbon") == []
    store.upsert_entities([Entity(entity_id="e_lisbon", name="Lisbon", aliases=["Lisboa"])])
    assert [e.entity_id for e in store.find_entities("lisboa")] == ["e_lisbon"]
    assert [e.entity_id for e in store.find_entities("isbo")] == ["e_lisbon"]  # a substring
    store.upsert_entities([Entity(entity_id="e_lisbon", name="Porto")])
    assert store.find_entities("lisboa") == []
    store.delete_entities(["e_lisbon", "e_paris"])
    assert store.find_entities("Porto") == [] and store.find_entities("Paris") == []
    assert [e.entity_id for e in store.find_entities("Louvre")] == ["e_louvre"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ship", ["e_ship", "e_harbour"]),  # a whole token of both names
        ("other", ["e_ship", "e_varn"]),  # the whole text inside a name (closer lengths first)
        ("other Lake", []),  # "other" is inside "Mother" and "Brothers", a token of neither
        ("Varn Brothers", ["e_varn", "e_harbour"]),  # the whole name, then one token shared
        ("rothers", ["e_varn"]),  # the text inside a name
        ("Harbour Ship Varn", ["e_harbour", "e_ship", "e_varn"]),  # all tokens, then half
    ],
)
def test_find_entities_matches_whole_tokens_or_the_whole_text(
    store: Any, text: str, expected: list[str]
) -> None:
    store.upsert_entities(
        [
            Entity(entity_id="e_ship", name="Mother Ship"),
            Entity(entity_id="e_varn", name="Varn Brothers"),
            Entity(entity_id="e_harbour", name="Varn Harbour Ship"),
        ]
    )
    assert [e.entity_id for e in store.find_entities(text)] == expected


def test_find_entities_exact_before_substring_and_limit(store: Any) -> None:
    store.upsert_entities(
        [
            Entity(entity_id="z_exact", name="Lyon"),
            Entity(entity_id="a_long", name="Lyon Part-Dieu"),
            Entity(entity_id="b_alias", name="Lugdunum", aliases=["lyon"]),
        ]
    )
    assert [e.entity_id for e in store.find_entities("LYON")] == ["b_alias", "z_exact", "a_long"]
    assert [e.entity_id for e in store.find_entities("lyon", limit=1)] == ["b_alias"]


@pytest.mark.parametrize(
    ("keys", "compact", "expected"),
    [
        (["acme corp"], [], ["e_acme"]),  # a name
        (["acme"], [], ["e_acme"]),  # an alias
        # aliases; "A. Smith" normalizes to "smith" (punctuation and a leading article go)
        (["acme corporation", "smith"], [], ["e_acme", "e_alice"]),
        (["alice"], [], []),  # one word of a name is no name
        (["paris", "france", "zzz"], [], ["e_france", "e_paris"]),
        ([], ["acmecorp"], ["e_acme"]),  # compact name
        ([], ["acme corp"], []),  # compact keys have no spaces
        (["carol"], ["bobjones"], ["e_bob", "e_carol"]),
        ([], [], []),
    ],
)
def test_entities_named(
    store: Any, keys: list[str], compact: list[str], expected: list[str]
) -> None:
    store.upsert_entities(data.entities())
    found = store.entities_named(keys, compact)
    assert [e.entity_id for e in found] == expected
    assert all(e.vector is None for e in found)


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["acme corp"], ["e_acme"]),  # a name
        (["acme", "acme corporation"], []),  # aliases only: not with aliases=False
        (["acme corp", "smith", "paris"], ["e_acme", "e_paris"]),
    ],
)
def test_entities_named_by_name_only(store: Any, keys: list[str], expected: list[str]) -> None:
    store.upsert_entities(data.entities())
    found = store.entities_named(keys, aliases=False)
    assert [e.entity_id for e in found] == expected


def test_entities_named_follows_renames_and_deletes(store: Any) -> None:
    store.upsert_entities(data.entities())
    store.upsert_entities([Entity(entity_id="e_acme", name="Acme Holdings", type="ORGANIZATION")])
    assert store.entities_named(["acme", "acme corp"]) == []
    assert [e.entity_id for e in store.entities_named(["acme holdings"])] == ["e_acme"]
    store.delete_entities(["e_paris"])
    assert store.entities_named(["paris"]) == []


def test_has_entity_vectors(store: Any) -> None:
    store.upsert_entities([Entity(entity_id="e_plain", name="Plain")])
    assert store.has_entity_vectors() is False
    store.upsert_entities(data.entities())
    assert store.has_entity_vectors() is True


def test_mention_counts(store: Any) -> None:
    data.load(store)
    ids = ["e_alice", "e_acme", "e_island", "e_louvre", "missing"]
    expected = {e: len(c) for e, c in store.chunks_for_entities(ids).items()}
    assert store.mention_counts(ids) == expected
    assert "missing" not in expected and len(set(expected.values())) > 1


def test_similar_entities(store: Any) -> None:
    store.upsert_entities(data.entities())
    found = store.similar_entities([0.9, 0.1, 0.0, 0.0], limit=3)
    assert [e.entity_id for e, _ in found] == ["e_alice", "e_acme", "e_bob"]
    norm = (0.9**2 + 0.1**2) ** 0.5
    assert found[0][1] == pytest.approx(0.9 / norm, abs=1e-5)
    assert found[1][1] == pytest.approx((0.54 + 0.08) / norm, abs=1e-5)


def test_neighbourhood(store: Any) -> None:
    data.load(store)
    one = store.neighbourhood(["e_alice"], hops=1)
    assert [e.entity_id for e in one.entities] == ["e_acme", "e_alice", "e_bob"]
    assert all(e.vector is None for e in one.entities)
    assert rel_keys(one.relations) == [
        ("e_alice", "FOUNDED", "e_acme"),
        ("e_alice", "KNOWS", "e_bob"),
        ("e_alice", "WORKS_AT", "e_acme"),
        ("e_bob", "KNOWS", "e_alice"),
        ("e_bob", "WORKS_AT", "e_acme"),
    ]
    two = store.neighbourhood(["e_alice", "missing"], hops=2)
    assert [e.entity_id for e in two.entities] == ["e_acme", "e_alice", "e_bob", "e_paris"]
    assert ("e_acme", "LOCATED_IN", "e_paris") in rel_keys(two.relations)
    assert store.neighbourhood(["e_island"], hops=3).entities == [data.entities()[-1].model_copy()]


def test_neighbourhood_limit_keeps_nearest_then_smallest_ids(store: Any) -> None:
    data.load(store)
    sub = store.neighbourhood(["e_paris"], hops=2, limit=4)
    # distance 1: acme, france, louvre; distance 2 (alice, bob, carol) → alice only
    assert [e.entity_id for e in sub.entities] == ["e_acme", "e_france", "e_louvre", "e_paris"]
    sub = store.neighbourhood(["e_paris"], hops=2, limit=5)
    assert [e.entity_id for e in sub.entities] == [
        "e_acme",
        "e_alice",
        "e_france",
        "e_louvre",
        "e_paris",
    ]
    assert rel_keys(sub.relations) == [
        ("e_acme", "LOCATED_IN", "e_paris"),
        ("e_alice", "FOUNDED", "e_acme"),
        ("e_alice", "WORKS_AT", "e_acme"),
        ("e_louvre", "LOCATED_IN", "e_paris"),
        ("e_paris", "CAPITAL_OF", "e_france"),
    ]
    assert store.neighbourhood(["e_paris"], hops=0).entities[0].entity_id == "e_paris"


@pytest.mark.parametrize(
    ("seeds", "limit"),
    [
        (["e_paris"], 200),
        (["e_paris"], 3),  # the seed and two neighbours: acme, france (smallest ids)
        (["e_alice", "e_bob"], 200),  # seeds related to each other are not neighbours
        (["e_alice", "missing"], 2),
        (["e_island"], 10),  # no relations at all
        (["missing"], 10),
        ([], 10),
    ],
)
def test_neighbour_ids_are_the_neighbourhoods_neighbours(
    store: Any, seeds: list[str], limit: int
) -> None:
    data.load(store)
    expected = store.neighbourhood(seeds, hops=1, limit=limit).neighbours_of(seeds)
    assert store.neighbour_ids(seeds, limit=limit) == expected


def test_neighbour_ids_limit_keeps_the_smallest_ids(store: Any) -> None:
    data.load(store)
    assert store.neighbour_ids(["e_paris"]) == {"e_acme", "e_france", "e_louvre"}
    assert store.neighbour_ids(["e_paris"], limit=3) == {"e_acme", "e_france"}
    assert "e_bob" not in store.neighbour_ids(["e_alice", "e_bob"])


def test_neighbour_ids_follow_relation_writes(store: Any) -> None:
    """A neighbour added or deleted after a read is seen by the next read (the embedded
    store keeps each entity's sorted neighbours between reads)."""
    data.load(store)
    assert store.neighbour_ids(["e_paris"], limit=3) == {"e_acme", "e_france"}
    store.upsert_entities([Entity(entity_id="e_aaa", name="Aaa", type="ORGANIZATION")])
    store.upsert_relations([Relation(source_id="e_aaa", target_id="e_paris", type="BASED_IN")])
    assert store.neighbour_ids(["e_paris"], limit=3) == {"e_aaa", "e_acme"}
    assert store.neighbour_ids(["e_aaa"]) == {"e_paris"}
    store.delete_entities(["e_aaa"])
    assert store.neighbour_ids(["e_paris"], limit=3) == {"e_acme", "e_france"}


def test_paths(store: Any) -> None:
    data.load(store)
    assert store.paths("e_alice", "e_france", max_hops=3) == [
        GraphPath(
            nodes=["e_alice", "e_acme", "e_paris", "e_france"],
            relations=["FOUNDED", "LOCATED_IN", "CAPITAL_OF"],
        ),
        GraphPath(
            nodes=["e_alice", "e_acme", "e_paris", "e_france"],
            relations=["WORKS_AT", "LOCATED_IN", "CAPITAL_OF"],
        ),
    ]
    assert store.paths("e_alice", "e_france", max_hops=2) == []
    assert store.paths("e_bob", "e_alice") == [
        GraphPath(nodes=["e_bob", "e_alice"], relations=["KNOWS"])
    ]
    assert store.paths("e_alice", "e_island") == []
    assert store.paths("e_alice", "missing") == []
    assert store.paths("e_carol", "e_carol") == [GraphPath(nodes=["e_carol"], relations=[])]
    assert len(store.paths("e_alice", "e_france", limit=1)) == 1


def test_paths_sorted_by_nodes_when_several_routes(store: Any) -> None:
    data.load(store)
    store.upsert_entities([Entity(entity_id="e_berlin", name="Berlin")])
    store.upsert_relations(
        [
            Relation(source_id="e_alice", target_id="e_berlin", type="VISITED"),
            Relation(source_id="e_berlin", target_id="e_paris", type="TRAIN_TO"),
        ]
    )
    got = store.paths("e_alice", "e_paris", max_hops=4)
    assert [p.nodes for p in got] == [
        ["e_alice", "e_acme", "e_paris"],
        ["e_alice", "e_acme", "e_paris"],
        ["e_alice", "e_berlin", "e_paris"],
    ]
    assert [p.relations for p in got][2] == ["VISITED", "TRAIN_TO"]
    assert all(p.length == 2 for p in got)


def ppr_oracle(seeds: dict[str, float], damping: float, ball: set[str] | None) -> dict[str, float]:
    graph = nx.Graph()
    graph.add_nodes_from(e.entity_id for e in data.entities())
    for r in data.relations():
        if r.source_id == r.target_id:
            continue
        if graph.has_edge(r.source_id, r.target_id):
            graph[r.source_id][r.target_id]["weight"] += r.weight
        else:
            graph.add_edge(r.source_id, r.target_id, weight=r.weight)
    if ball is not None:
        graph = graph.subgraph(ball).copy()
    scores: dict[str, float] = nx.pagerank(
        graph, alpha=damping, personalization=seeds, weight="weight", tol=1e-14, max_iter=10_000
    )
    return {k: v for k, v in scores.items() if v > 0}


@pytest.mark.parametrize(
    ("seeds", "max_hops", "ball"),
    [
        ({"e_alice": 1.0}, 2, {"e_alice", "e_bob", "e_acme", "e_paris"}),
        (
            {"e_alice": 1.0, "e_louvre": 3.0},
            1,
            {"e_alice", "e_bob", "e_acme", "e_louvre", "e_paris", "e_carol"},
        ),
        ({"e_france": 2.0, "e_carol": 1.0}, None, None),
    ],
)
def test_personalized_pagerank_matches_networkx(
    store: Any, seeds: dict[str, float], max_hops: int | None, ball: set[str] | None
) -> None:
    data.load(store)
    got = store.personalized_pagerank(dict(seeds), damping=0.85, limit=50, max_hops=max_hops)
    expected = ppr_oracle(seeds, 0.85, ball)
    assert [node for node, _ in got] == sorted(expected, key=lambda n: (-round(expected[n], 9), n))
    for node, score in got:
        assert score == pytest.approx(expected[node], abs=1e-9)
    assert sum(score for _, score in got) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize(
    ("seeds", "epsilon", "abs_error"),
    [
        ({"e_france": 2.0, "e_carol": 1.0}, 1e-13, 1e-10),
        ({"e_alice": 1.0}, 1e-13, 1e-10),
        ({"e_alice": 1.0, "e_island": 1.0}, 1e-13, 1e-10),  # a seed with no edges
        ({"e_bob": 1.0}, 1e-4, 1e-3),
        ({"e_paris": 1.0, "e_alice": 0.5}, 1e-3, 1e-2),
    ],
)
def test_personalized_pagerank_by_forward_push(
    store: Any, seeds: dict[str, float], epsilon: float, abs_error: float
) -> None:
    data.load(store)
    got = store.personalized_pagerank(dict(seeds), limit=50, max_hops=None, epsilon=epsilon)
    expected = ppr_oracle(seeds, 0.85, None)
    for node, score in got:
        assert score == pytest.approx(expected[node], abs=abs_error)
        assert score <= expected[node] + 1e-12  # push approximates from below
    assert got[0][0] == max(expected, key=lambda n: (expected[n], n))
    if epsilon < 1e-10:
        assert [n for n, _ in got] == sorted(expected, key=lambda n: (-round(expected[n], 9), n))


def test_personalized_pagerank_edge_cases(store: Any) -> None:
    data.load(store)
    assert store.personalized_pagerank({"missing": 1.0}) == []
    assert store.personalized_pagerank({"e_alice": 0.0}) == []
    assert store.personalized_pagerank({"e_island": 1.0}) == [("e_island", pytest.approx(1.0))]
    top = store.personalized_pagerank({"e_alice": 1.0, "missing": 5.0}, limit=2)
    assert [n for n, _ in top] == ["e_alice", "e_acme"]


def test_delete_document_cleans_up(store: Any) -> None:
    data.load(store)
    store.delete_document("d2")
    # c3/c4 are gone: france and island lose their only mentions; louvre keeps c6
    assert [e.entity_id for e in store.all_entities()] == [
        "e_acme",
        "e_alice",
        "e_bob",
        "e_carol",
        "e_louvre",
        "e_paris",
    ]
    relations = store.all_relations()
    assert rel_keys(relations) == [
        ("e_acme", "LOCATED_IN", "e_paris"),
        ("e_alice", "FOUNDED", "e_acme"),
        ("e_alice", "KNOWS", "e_bob"),
        ("e_alice", "WORKS_AT", "e_acme"),
        ("e_bob", "KNOWS", "e_alice"),
        ("e_bob", "WORKS_AT", "e_acme"),
        ("e_carol", "VISITED", "e_louvre"),
    ]
    assert relations[0].evidence == ["c1"]
    assert store.entities_for_chunks(["c3", "c4"]) == {}
    assert store.chunks_for_entities(["e_paris"]) == {"e_paris": ["c1"]}
    assert {c.community_id: c.members for c in store.communities()}["k0b"] == [
        "e_louvre",
        "e_paris",
    ]
    assert store.counts() == {
        "entities": 6,
        "relations": 7,
        "mentions": 10,
        "communities": 3,
        "chunks": 4,
        "documents": 2,
    }
    store.delete_document("d2")  # deleting again changes nothing
    store.delete_document("never-seen")
    assert store.counts()["entities"] == 6


def test_delete_document_keeps_entities_without_any_mentions_elsewhere(store: Any) -> None:
    data.load(store)
    store.upsert_entities([Entity(entity_id="e_manual", name="Manual")])
    store.upsert_relations([Relation(source_id="e_manual", target_id="e_carol", type="KNOWS")])
    for doc in ("d1", "d2", "d3"):
        store.delete_document(doc)
    assert [e.entity_id for e in store.all_entities()] == ["e_manual"]
    assert store.all_relations() == []
    assert store.counts()["chunks"] == 0


def test_delete_entities(store: Any) -> None:
    data.load(store)
    store.delete_entities(["e_acme", "missing"])
    assert "e_acme" not in {e.entity_id for e in store.all_entities()}
    assert all("e_acme" not in (r.source_id, r.target_id) for r in store.all_relations())
    assert store.chunks_for_entities(["e_acme"]) == {}
    assert store.entities_for_chunks(["c5"]) == {"c5": ["e_alice"]}
    assert {c.community_id: c.members for c in store.communities()}["k0a"] == ["e_alice", "e_bob"]
    assert store.counts()["relations"] == 5
    assert store.counts()["chunks"] == 6


def test_communities_round_trip_and_replace(store: Any) -> None:
    data.load(store)
    got = store.communities()
    assert [(c.level, c.community_id) for c in got] == [(0, "k0a"), (0, "k0b"), (1, "k1")]
    k0a = got[0]
    expected = data.communities()[1]
    assert k0a == expected.model_copy(update={"members": sorted(expected.members)})
    assert got[1].members == ["e_france", "e_louvre", "e_paris"]  # the unknown member is dropped
    assert got[1].parent_id == "k1" and got[1].vector is None
    assert [c.community_id for c in store.communities(level=1)] == ["k1"]
    assert store.communities(level=7) == []
    store.upsert_communities([Community(community_id="k_new", level=0, members=["e_carol"])])
    assert [c.community_id for c in store.communities()] == ["k_new"]
    store.upsert_communities([])
    assert store.communities() == []


def test_to_networkx(store: Any) -> None:
    data.load(store)
    graph = store.to_networkx()
    assert isinstance(graph, nx.Graph) and not graph.is_directed()
    assert sorted(graph.nodes) == sorted(e.entity_id for e in data.entities())
    assert graph.nodes["e_acme"] == {"name": "Acme Corp", "type": "ORGANIZATION"}
    assert graph.number_of_edges() == 7
    assert graph["e_alice"]["e_acme"] == {"weight": 3.0, "types": ["FOUNDED", "WORKS_AT"]}
    assert graph["e_alice"]["e_bob"]["weight"] == pytest.approx(1.0)
    assert graph.degree("e_island") == 0


def test_state_survives_reopening(store_factory: Any) -> None:
    first = store_factory()
    data.load(first)
    first.upsert_chunks([data.chunk("c1", "Alice works at Acme in Paris.")])
    snapshot = (
        first.counts(),
        first.all_entities(),
        first.all_relations(),
        first.all_mentions(),
        first.communities(),
        first.all_chunks(),
        first.personalized_pagerank({"e_bob": 1.0}),
    )
    first.close()
    second = store_factory()
    assert (
        second.counts(),
        second.all_entities(),
        second.all_relations(),
        second.all_mentions(),
        second.communities(),
        second.all_chunks(),
        second.personalized_pagerank({"e_bob": 1.0}),
    ) == snapshot
    second.delete_document("d1")
    assert second.counts()["documents"] == 2
