"""Local community updates (:func:`communities.local.update_partition`): a small change
re-clusters only the communities it touches, the hierarchy stays valid, untouched
communities keep their ids."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import networkx as nx
import pytest

from communities import CommunityRecord, community_id, detect_communities
from communities.local import LocalUpdate, update_partition

pytestmark = pytest.mark.unit

MAX = 5  # max_cluster_size: groups of 12 are split again into their cliques


class MemoryView:
    """A GraphView over a networkx graph and a list of records, counting what it reads."""

    def __init__(self, graph: nx.Graph, records: Sequence[CommunityRecord]) -> None:
        self.graph = graph
        self.records = {r.community_id: r for r in records}
        self.read_nodes = 0

    def adjacency(self, nodes: Sequence[str]) -> Mapping[str, Mapping[str, float]]:
        self.read_nodes += len(nodes)
        return {
            n: {m: float(d.get("weight", 1.0)) for m, d in self.graph.adj[n].items() if m != n}
            for n in nodes
            if n in self.graph and self.graph.degree(n)
        }

    def communities_of(self, nodes: Sequence[str]) -> list[CommunityRecord]:
        wanted = set(nodes)
        return [r for r in self.records.values() if wanted & set(r.members)]

    def get(self, community_ids: Sequence[str]) -> list[CommunityRecord]:
        return [self.records[c] for c in community_ids if c in self.records]

    def children(self, community_ids: Sequence[str]) -> list[CommunityRecord]:
        wanted = set(community_ids)
        return [r for r in self.records.values() if r.parent_id in wanted]


def groups(n: int, cliques: int = 3, size: int = 4) -> nx.Graph:
    """``n`` groups of ``cliques`` cliques of ``size`` nodes; the cliques of a group are tied
    by two edges per pair, group ``g`` to group ``g + 1`` by one edge. Node ``n{g}{c}_{i}``:
    Leiden puts each group in one level-0 community and splits it into its cliques."""
    graph = nx.Graph()
    for g in range(n):
        for c in range(cliques):
            nodes = [f"n{g}{c}_{i}" for i in range(size)]
            graph.add_edges_from(
                (a, b, {"weight": 1.0}) for i, a in enumerate(nodes) for b in nodes[i + 1 :]
            )
            for d in range(c):
                graph.add_edge(f"n{g}{c}_{d}", f"n{g}{d}_{c}", weight=1.0)
                graph.add_edge(f"n{g}{c}_{(d + 1) % size}", f"n{g}{d}_{(c + 1) % size}", weight=1.0)
        if g:
            graph.add_edge(f"n{g - 1}0_0", f"n{g}1_1", weight=1.0)
    return graph


def apply(records: Sequence[CommunityRecord], update: LocalUpdate) -> list[CommunityRecord]:
    kept = {r.community_id: r for r in records if r.community_id not in set(update.removed)}
    kept.update({r.community_id: r for r in update.upserts})
    return sorted(kept.values(), key=lambda r: (r.level, r.community_id))


def assert_valid(records: Sequence[CommunityRecord], graph: nx.Graph) -> None:
    """Every node in at most one community per level, parents one level up and supersets,
    ids unique, members are nodes with edges."""
    by_id = {r.community_id: r for r in records}
    assert len(by_id) == len(records)
    seen: dict[int, set[str]] = {}
    for r in records:
        assert r.size == len(r.members) >= 2
        level = seen.setdefault(r.level, set())
        assert not level & set(r.members), f"a node is in two level-{r.level} communities"
        level.update(r.members)
        for m in r.members:
            assert m in graph and graph.degree(m) > 0
        if r.level == 0:
            assert r.parent_id is None
        else:
            parent = by_id[r.parent_id or ""]
            assert parent.level == r.level - 1
            assert set(r.members) <= set(parent.members)


def _add_node_to_clique(g: nx.Graph) -> list[str]:
    g.add_edge("x", "n31_2", weight=1.0)
    g.add_edge("x", "n31_3", weight=1.0)
    return ["x"]


def _add_isolated(g: nx.Graph) -> list[str]:
    g.add_node("lonely")
    return ["lonely"]


def _edge_inside(g: nx.Graph) -> list[str]:
    g["n50_1"]["n50_2"]["weight"] = 4.0
    return ["n50_1", "n50_2"]


def _bridge(g: nx.Graph) -> list[str]:
    pairs = [(f"n2{c}_{i}", f"n5{c}_{i}") for c in range(2) for i in range(4)]
    g.add_edges_from((a, b, {"weight": 3.0}) for a, b in pairs)
    return sorted({n for p in pairs for n in p})


def _delete_node(g: nx.Graph) -> list[str]:
    nbrs = sorted(g.adj["n41_3"])
    g.remove_node("n41_3")
    return ["n41_3", *nbrs]


def _new_pair(g: nx.Graph) -> list[str]:
    g.add_edge("p", "q", weight=2.0)
    return ["p", "q"]


def _new_chain_off_clique(g: nx.Graph) -> list[str]:
    # z2 only reaches the clique through z1: placed on the second pass
    g.add_edge("z2", "z1", weight=1.0)
    g.add_edge("z1", "n11_3", weight=1.0)
    return ["z2", "z1"]


def _isolate_node(g: nx.Graph) -> list[str]:
    nbrs = sorted(g.adj["n01_2"])
    g.remove_edges_from([("n01_2", n) for n in nbrs])
    return ["n01_2", *nbrs]


CASES: list[tuple[str, Callable[[nx.Graph], list[str]]]] = [
    ("add a node linked into a clique", _add_node_to_clique),
    ("add an isolated node", _add_isolated),
    ("add weight to an edge inside a community", _edge_inside),
    ("bridge two communities", _bridge),
    ("delete a node", _delete_node),
    ("add a new connected pair", _new_pair),
    ("add a chain of new nodes", _new_chain_off_clique),
    ("a node loses all its edges", _isolate_node),
]


@pytest.mark.parametrize(("name", "change"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("max_region", [2000, 8])
def test_update_keeps_a_valid_hierarchy_and_untouched_ids(
    name: str, change: Callable[[nx.Graph], list[str]], max_region: int
) -> None:
    graph = groups(6)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    assert {r.level for r in before} == {0, 1}
    old = graph.copy()
    changed = change(graph)
    # What the change reaches: the changed nodes and their neighbours, before and after.
    reach = set(changed)
    for g in (old, graph):
        reach |= {m for n in changed if n in g for m in g.adj[n]}
    view = MemoryView(graph, before)
    update = update_partition(
        view,
        changed,
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=MAX,
        max_region_nodes=max_region,
        max_share=1.0,
    )
    assert update is not None
    after = apply(before, update)
    assert_valid(after, graph)
    # Every node with an edge that was clustered before is still clustered at level 0.
    level0 = {m for r in after if r.level == 0 for m in r.members}
    clustered = {m for r in before if r.level == 0 for m in r.members if graph.degree(m)}
    assert clustered <= level0
    # Communities the change does not reach keep their id.
    touched = reach
    ids_after = {r.community_id: r for r in after}
    for r in before:
        if not touched & set(r.members):
            assert r.community_id in ids_after, f"{name}: an untouched community lost its id"
            if max_region == 8:  # below the groups' size: only touched cliques re-clustered
                assert r.community_id not in update.recomputed
    # Only what the change reached was read: far less than the whole graph.
    if name not in ("bridge two communities",):
        assert view.read_nodes <= 40, view.read_nodes


@pytest.mark.parametrize(
    ("change", "expect"),
    [
        (_add_node_to_clique, "x joins the community of n03_2"),
        (_new_pair, "p and q form a new level-0 community"),
        (_new_chain_off_clique, "z1 and z2 join the community of n11_3"),
        (_delete_node, "n41_3 is in no community"),
        (_add_isolated, "nothing changes"),
    ],
)
def test_what_each_change_does(change: Callable[[nx.Graph], list[str]], expect: str) -> None:
    graph = groups(6)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    changed = change(graph)
    update = update_partition(
        MemoryView(graph, before),
        changed,
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=MAX,
        max_share=1.0,
    )
    assert update is not None
    after = apply(before, update)
    level0 = {m: r for r in after if r.level == 0 for m in r.members}
    if expect.startswith("x joins"):
        assert level0["x"] is level0["n31_2"]
        assert level0["x"].size == 13  # the group is not shattered into its cliques
    elif expect.startswith("p and q"):
        assert level0["p"].members == ["p", "q"]
    elif expect.startswith("z1 and z2"):
        assert level0["z1"] is level0["n11_3"] is level0["z2"]
    elif expect.startswith("n41_3"):
        assert all("n41_3" not in r.members for r in after)
    else:
        assert update.upserts == [] and update.removed == []


def test_a_large_community_is_not_reclustered_whole() -> None:
    """With a cap below the level-0 community's size, only its touched child is re-clustered:
    the level-0 community gains the new member and keeps its id, its other children are not
    written again."""
    graph = groups(6)
    before = detect_communities(graph, max_cluster_size=5, seed=42)
    top = [r for r in before if r.level == 0]
    assert len(top) == 6 and {r.size for r in top} == {12}
    home = next(r for r in top if "n01_2" in r.members)
    children = [r for r in before if r.parent_id == home.community_id]
    assert len(children) == 3
    graph.add_edge("new", "n01_2")
    graph.add_edge("new", "n01_3")
    update = update_partition(
        MemoryView(graph, before),
        ["new"],
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=5,
        max_region_nodes=6,
        max_share=1.0,
    )
    assert update is not None
    after = apply(before, update)
    assert_valid(after, graph)
    root = [r for r in after if r.level == 0 and "new" in r.members]
    assert len(root) == 1 and root[0].size == 13
    untouched = [r for r in children if "n01_2" not in r.members]
    assert len(untouched) == 2
    assert root[0].community_id == home.community_id
    assert update.resized == {home.community_id: home.community_id}
    by_id = {r.community_id: r for r in after}
    written = {r.community_id for r in update.upserts}
    for child in untouched:
        assert by_id[child.community_id].parent_id == root[0].community_id
        assert child.community_id not in written and child.community_id not in update.removed
    assert update.region_nodes == 5  # the clique of n01_2 and the new node


def test_a_change_touching_most_of_the_graph_asks_for_a_full_run() -> None:
    graph = groups(4)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    changed = sorted(graph)[:20]
    update = update_partition(
        MemoryView(graph, before),
        changed,
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=MAX,
        max_share=0.3,
    )
    assert update is None


def test_no_change_changes_nothing() -> None:
    graph = groups(3)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    update = update_partition(
        MemoryView(graph, before), [], total_nodes=graph.number_of_nodes(), max_share=1.0
    )
    assert update == LocalUpdate()


def _merge_two_cliques(g: nx.Graph) -> list[str]:
    pairs = [(f"n20_{i}", f"n21_{j}") for i in range(4) for j in range(4)]
    g.add_edges_from((a, b, {"weight": 5.0}) for a, b in pairs)
    return sorted({n for p in pairs for n in p})


@pytest.mark.parametrize(
    ("change", "node", "keeps"),
    [
        # re-clustered whole (cap above the group size): the group continues its id
        (_add_node_to_clique, "x", "n31_2"),
        (_new_chain_off_clique, "z1", "n11_3"),
        (_delete_node, "n41_2", "n41_2"),
        (_edge_inside, "n50_1", "n50_1"),
        (_merge_two_cliques, "n20_0", "n20_0"),
        # a community that continues none: the id of its members
        (_new_pair, "p", None),
    ],
)
@pytest.mark.parametrize("max_region", [2000, 8])
def test_a_community_keeps_its_id_through_an_update(
    change: Callable[[nx.Graph], list[str]], node: str, keeps: str | None, max_region: int
) -> None:
    graph = groups(6)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    changed = change(graph)
    update = update_partition(
        MemoryView(graph, before),
        changed,
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=MAX,
        max_region_nodes=max_region,
        max_share=1.0,
    )
    assert update is not None
    after = apply(before, update)
    assert_valid(after, graph)
    old_ids = {r.community_id for r in before}
    for level in (0, 1):
        now = [r for r in after if r.level == level and node in r.members]
        if keeps is None:
            assert [r.community_id for r in now] == [community_id(level, now[0].members)]
            assert now[0].community_id not in old_ids
            break
        was = [r for r in before if r.level == level and keeps in r.members]
        assert len(now) == len(was) == 1
        # the level-0 group barely changes; a level-1 clique may be split or merged, but the
        # node's clique then still continues one of the old ids
        if level == 0 or set(now[0].members) == set(was[0].members) | {node}:
            assert now[0].community_id == was[0].community_id
        else:
            assert now[0].community_id in old_ids | {community_id(1, now[0].members)}
    # the written communities are the changed ones: nothing is rewritten as it was
    stored = {r.community_id: r for r in before}
    for rec in update.upserts:
        assert stored.get(rec.community_id) != rec


def test_a_new_community_whose_member_id_is_taken_gets_a_salted_id() -> None:
    """A continued community keeps an id made from members it no longer has; a new community
    with exactly those members gets another id."""
    graph = groups(6)
    before = detect_communities(graph, max_cluster_size=MAX, seed=42)
    home = next(r for r in before if r.level == 0 and "n01_2" in r.members)
    # The community of n01_2 carries the member id of its clique n00 (as if it had been
    # continued by an update after those members grew).
    clique = sorted(m for m in home.members if m.startswith("n00_"))
    taken = community_id(0, clique)
    renamed = [
        r.model_copy(
            update={
                "community_id": taken if r.community_id == home.community_id else r.community_id,
                "parent_id": taken if r.parent_id == home.community_id else r.parent_id,
            }
        )
        for r in before
    ]
    # Cut the clique n00 off its group: it becomes a level-0 community of its own.
    cut = [(a, b) for a, b in graph.edges if (a in clique) != (b in clique)]
    graph.remove_edges_from(cut)
    update = update_partition(
        MemoryView(graph, renamed),
        sorted({n for e in cut for n in e}),
        total_nodes=graph.number_of_nodes(),
        max_cluster_size=MAX,
        max_share=1.0,
    )
    assert update is not None
    after = apply(renamed, update)
    assert_valid(after, graph)
    level0 = {r.community_id: r for r in after if r.level == 0}
    assert taken in level0  # the group continues its id
    alone = [r for r in level0.values() if set(r.members) == set(clique)]
    assert len(alone) == 1 and alone[0].community_id not in (taken, home.community_id)
