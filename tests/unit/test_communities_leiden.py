"""communities.leiden: deterministic hierarchical Leiden with stable ids."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from communities import (
    CommunityRecord,
    GraphInputError,
    community_id,
    detect_communities,
    levels,
    node_membership,
)

pytestmark = pytest.mark.unit


def _clustered_graph(n: int = 600, seed: int = 7) -> nx.Graph:
    """A planted-partition graph with string ids and varied weights."""
    base = nx.planted_partition_graph(12, n // 12, 0.3, 0.01, seed=seed)
    rng = random.Random(seed)
    graph = nx.Graph()
    for u, v in base.edges():
        graph.add_edge(f"entity:{u:04d}", f"entity:{v:04d}", weight=rng.choice([1.0, 2.0, 3.5]))
    return graph


def _shuffled_copy(graph: nx.Graph, seed: int) -> nx.Graph:
    rng = random.Random(seed)
    nodes = list(graph.nodes)
    edges = [(u, v, d) for u, v, d in graph.edges(data=True)]
    rng.shuffle(nodes)
    rng.shuffle(edges)
    copy = nx.Graph()
    copy.add_nodes_from(nodes)
    # Flip some edges too: graspologic-native is sensitive to which end comes first.
    copy.add_edges_from((v, u, d) if rng.random() < 0.5 else (u, v, d) for u, v, d in edges)
    return copy


@pytest.fixture(scope="module")
def graph() -> nx.Graph:
    return _clustered_graph()


@pytest.fixture(scope="module")
def records(graph: nx.Graph) -> list[CommunityRecord]:
    return detect_communities(graph, max_cluster_size=10, seed=42)


def test_same_input_same_communities(graph: nx.Graph, records: list[CommunityRecord]) -> None:
    again = detect_communities(graph, max_cluster_size=10, seed=42)
    assert [r.model_dump() for r in again] == [r.model_dump() for r in records]


@pytest.mark.parametrize("shuffle_seed", [1, 2, 3])
def test_insertion_order_does_not_matter(
    graph: nx.Graph, records: list[CommunityRecord], shuffle_seed: int
) -> None:
    shuffled = _shuffled_copy(graph, shuffle_seed)
    assert list(shuffled.nodes) != list(graph.nodes)
    again = detect_communities(shuffled, max_cluster_size=10, seed=42)
    assert [r.model_dump() for r in again] == [r.model_dump() for r in records]


def test_hierarchy_is_consistent(records: list[CommunityRecord]) -> None:
    by_id = {r.community_id: r for r in records}
    assert len(by_id) == len(records), "ids are unique"
    assert levels(records)[0] == 0 and len(levels(records)) >= 2
    for record in records:
        assert record.members == sorted(record.members)
        assert record.size == len(record.members) >= 2
        assert record.community_id == community_id(record.level, record.members)
        if record.level == 0:
            assert record.parent_id is None
        else:
            parent = by_id[record.parent_id]  # type: ignore[index]
            assert parent.level == record.level - 1
            assert set(record.members) <= set(parent.members)
    # Each level partitions (part of) the nodes: no node is in two communities of one level.
    for level in levels(records):
        seen: set[str] = set()
        for record in (r for r in records if r.level == level):
            assert not seen & set(record.members)
            seen |= set(record.members)


def test_only_large_communities_are_split(records: list[CommunityRecord]) -> None:
    parents = {r.parent_id for r in records if r.parent_id}
    for record in records:
        if record.community_id in parents:
            assert record.size >= 10
    # Every level-0 node is covered: the graph is connected enough that Leiden drops no one.
    assert sum(r.size for r in records if r.level == 0) == 600


def test_level_zero_finds_planted_blocks(records: list[CommunityRecord]) -> None:
    """The 12 planted blocks of 50 nodes come back at level 0 (modulo a few nodes)."""
    top = [r for r in records if r.level == 0]
    assert 10 <= len(top) <= 14
    for record in top:
        blocks = {int(m.split(":")[1]) // 50 for m in record.members}
        assert len(blocks) <= 2


def test_seed_is_used(graph: nx.Graph, records: list[CommunityRecord]) -> None:
    others = [detect_communities(graph, max_cluster_size=10, seed=s) for s in (1, 2, 3)]
    assert any([r.community_id for r in o] != [r.community_id for r in records] for o in others)


def test_empty_and_edgeless_graphs_give_nothing() -> None:
    assert detect_communities(nx.Graph()) == []
    edgeless = nx.Graph()
    edgeless.add_nodes_from(["a", "b", "c"])
    assert detect_communities(edgeless) == []
    only_loops = nx.Graph([("a", "a"), ("b", "b")])
    assert detect_communities(only_loops) == []
    zero_weight = nx.Graph()
    zero_weight.add_edge("a", "b", weight=0.0)
    zero_weight.add_edge("c", "d", weight=float("nan"))
    assert detect_communities(zero_weight) == []


def test_many_components_and_isolated_nodes() -> None:
    graph = nx.Graph()
    for i in range(40):
        graph.add_edges_from([(f"k{i}a", f"k{i}b"), (f"k{i}b", f"k{i}c"), (f"k{i}a", f"k{i}c")])
    graph.add_edge("pair-x", "pair-y")
    graph.add_nodes_from(["lonely-1", "lonely-2"])
    records = detect_communities(graph, max_cluster_size=10)
    assert len(records) == 41
    assert all(r.level == 0 for r in records)
    member_sets = {frozenset(r.members) for r in records}
    assert frozenset({"pair-x", "pair-y"}) in member_sets
    assert frozenset({"k7a", "k7b", "k7c"}) in member_sets
    assert not any("lonely-1" in r.members for r in records)


def test_min_size_drops_small_communities() -> None:
    graph = nx.Graph([("a", "b"), ("c", "d"), ("d", "e"), ("c", "e")])
    assert {r.size for r in detect_communities(graph)} == {2, 3}
    assert {r.size for r in detect_communities(graph, min_size=3)} == {3}


def test_directed_and_multigraphs_are_folded(graph: nx.Graph) -> None:
    expected = detect_communities(graph)
    directed = nx.DiGraph()
    directed.add_edges_from(graph.edges(data=True))
    assert detect_communities(directed) == expected
    multi = nx.MultiGraph()
    for u, v, data in graph.edges(data=True):
        # Split each weight over two parallel edges: the folded weight is the same.
        multi.add_edge(u, v, weight=data["weight"] / 2)
        multi.add_edge(v, u, weight=data["weight"] / 2)
    assert detect_communities(multi) == expected


def test_weights_matter() -> None:
    """Heavy edges hold a community together: a ring of 4-cliques, joined by heavy bridges."""
    graph = nx.Graph()
    for c in range(6):
        nodes = [f"g{c}n{i}" for i in range(4)]
        graph.add_edges_from((a, b, {"weight": 1.0}) for a in nodes for b in nodes if a < b)
    for c in range(6):
        graph.add_edge(f"g{c}n0", f"g{(c + 1) % 6}n1", weight=0.1)
    light = detect_communities(graph, max_cluster_size=100)
    assert sorted(r.size for r in light) == [4] * 6
    for c in range(0, 6, 2):
        graph.add_edge(f"g{c}n0", f"g{c + 1}n1", weight=50.0)
    heavy = detect_communities(graph, max_cluster_size=100)
    assert sorted(r.size for r in heavy) == [8] * 3


def test_node_ids_that_print_the_same_are_refused() -> None:
    graph = nx.Graph([(1, "1"), ("1", "x")])
    with pytest.raises(GraphInputError, match="unique string ids"):
        detect_communities(graph)


def test_non_string_ids_are_used_as_strings() -> None:
    graph = nx.Graph([(1, 2), (2, 3), (1, 3), (10, 11)])
    records = detect_communities(graph)
    assert {tuple(r.members) for r in records} == {("1", "2", "3"), ("10", "11")}


def test_ids_stable_when_membership_is_unchanged() -> None:
    graph = nx.Graph([("a", "b"), ("b", "c"), ("a", "c"), ("x", "y")])
    before = {frozenset(r.members): r.community_id for r in detect_communities(graph)}
    graph.add_edge("p", "q")
    after = {frozenset(r.members): r.community_id for r in detect_communities(graph)}
    assert after[frozenset("abc")] == before[frozenset("abc")]
    assert after[frozenset("xy")] == before[frozenset("xy")]
    assert community_id(0, ["b", "a"]) == community_id(0, ["a", "b"]) != community_id(1, "ab")


def test_node_membership_falls_back_to_coarser_levels(records: list[CommunityRecord]) -> None:
    top = node_membership(records, 0)
    deepest = node_membership(records, max(levels(records)))
    assert set(top) == set(deepest)
    by_id = {r.community_id: r for r in records}
    for node, cid in deepest.items():
        assert node in by_id[cid].members
    assert any(by_id[cid].level > 0 for cid in deepest.values())


def test_bad_arguments() -> None:
    with pytest.raises(GraphInputError):
        detect_communities(nx.Graph([("a", "b")]), max_cluster_size=0)
    with pytest.raises(GraphInputError):
        detect_communities(nx.Graph([("a", "b")]), resolution=0)
    bad = nx.Graph()
    bad.add_edge("a", "b", weight="heavy")
    with pytest.raises(GraphInputError, match="number"):
        detect_communities(bad)


def test_rows_in_any_order_give_the_same_records(graph: nx.Graph) -> None:
    """The grouping does not rely on graspologic-native listing rows by cluster."""
    import graspologic_native as gn

    from communities.leiden import _canonical_edges, _records

    _, edges = _canonical_edges(graph, "weight")
    rows = gn.hierarchical_leiden(edges=edges, max_cluster_size=10, seed=42)
    shuffled = list(rows)
    random.Random(0).shuffle(shuffled)
    assert _records(shuffled, 2) == _records(list(rows), 2) == detect_communities(graph)
