"""The incremental budget: incremental community updates run while the entities they changed
stay within a share of the graph, then one whole-graph run measures the modularity they had
lost and adapts the share (:func:`communities.local.adapt_budget`); plus the modularity
measure itself (:func:`communities.modularity`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from test_communities_engine_incremental import (
    CHANGES,
    _bridge,
    _new_entity,
    assert_valid,
    build,
    graph,
    open_kb,
    write,
)

from communities import CommunityRecord, community_id, detect_communities, modularity
from communities.local import adapt_budget

pytestmark = pytest.mark.unit


def _record(level: int, members: list[str], parent: str | None = None) -> CommunityRecord:
    return CommunityRecord(
        community_id=community_id(level, members),
        level=level,
        parent_id=parent,
        members=sorted(members),
        size=len(members),
    )


def _two_cliques() -> nx.Graph:
    g = nx.Graph()
    for side in "ab":
        names = [f"{side}{i}" for i in range(4)]
        g.add_weighted_edges_from((u, v, 1.0) for i, u in enumerate(names) for v in names[i + 1 :])
    g.add_edge("a0", "b0", weight=1.0)
    return g


def _weighted_karate() -> nx.Graph:
    g = nx.relabel_nodes(nx.karate_club_graph(), lambda n: f"k{n:02d}")
    for u, v in g.edges:
        g[u][v]["weight"] = 1.0 + (int(u[1:]) * int(v[1:])) % 3
    return g


def _reference(g: nx.Graph, records: list[CommunityRecord], level: int = 0) -> float:
    """networkx's modularity, nodes in no community counted as singletons."""
    from communities import node_membership

    membership = node_membership(records, level)
    parts: dict[str, set[str]] = {}
    for n in g:
        parts.setdefault(membership.get(n, "solo:" + n), set()).add(n)
    return float(nx.algorithms.community.modularity(g, list(parts.values())))


MODULARITY_CASES: list[tuple[str, Any]] = [
    (
        "two cliques, one per community",
        lambda g: [_record(0, ["a0", "a1", "a2", "a3"]), _record(0, ["b0", "b1", "b2", "b3"])],
    ),
    ("two cliques, one community", lambda g: [_record(0, sorted(g))]),
    ("two cliques, some nodes in none", lambda g: [_record(0, ["a1", "a2", "a3"])]),
    ("two cliques, members not in the graph", lambda g: [_record(0, ["a0", "a1", "zz"])]),
    ("karate, detected", lambda g: detect_communities(g, max_cluster_size=10)),
]


@pytest.mark.parametrize(
    ("name", "records"), MODULARITY_CASES, ids=[c[0] for c in MODULARITY_CASES]
)
@pytest.mark.parametrize("make", [_two_cliques, _weighted_karate])
def test_modularity_matches_networkx(name: str, records: Any, make: Any) -> None:
    g = make()
    recs = records(g)
    assert modularity(g, recs) == pytest.approx(_reference(g, recs), abs=1e-12)


def test_modularity_reads_the_given_level_and_an_empty_graph() -> None:
    g = _two_cliques()
    top = _record(0, sorted(g))
    halves = [_record(1, [f"{s}{i}" for i in range(4)], top.community_id) for s in "ab"]
    assert modularity(g, [top, *halves], level=1) == pytest.approx(
        _reference(g, [top, *halves], level=1)
    )
    assert modularity(g, [top, *halves], level=1) > modularity(g, [top, *halves], level=0)
    assert modularity(nx.Graph(), [top]) == 0.0


ADAPT_CASES = [
    # (budget, spent, loss, target, expected)
    ("loss on target: the share spent", 0.5, 0.4, 0.01, 0.01, 0.4),
    ("twice the target: half the share", 0.5, 0.6, 0.02, 0.01, 0.3),
    ("far over target: at most halved", 0.5, 0.6, 0.5, 0.01, 0.25),
    ("far under target: at most doubled", 0.5, 0.6, 0.0001, 0.01, 1.0),
    ("no loss: doubled", 0.3, 0.4, 0.0, 0.01, 0.6),
    ("a gain: doubled", 0.3, 0.4, -0.02, 0.01, 0.6),
    ("kept above the floor", 0.06, 0.07, 0.5, 0.01, 0.05),
    ("kept below the ceiling", 1.5, 1.6, 0.0, 0.01, 2.0),
    ("no loss allowed: the floor", 0.5, 0.6, 0.01, 0.0, 0.05),
]


@pytest.mark.parametrize(
    ("name", "budget", "spent", "loss", "target", "expected"),
    ADAPT_CASES,
    ids=[c[0] for c in ADAPT_CASES],
)
def test_adapt_budget(
    name: str, budget: float, spent: float, loss: float, target: float, expected: float
) -> None:
    assert adapt_budget(budget, spent, loss, target) == pytest.approx(expected)


def _drift(kb: Path) -> dict[str, float]:
    data: dict[str, float] = json.loads((kb / "community-drift.json").read_text())
    return data


@pytest.mark.parametrize(("name", "change"), CHANGES, ids=[c[0] for c in CHANGES])
def test_small_changes_stay_incremental_and_spend_the_budget(
    tmp_path: Path, name: str, change: Any
) -> None:
    kb = tmp_path / "kb"
    with open_kb(kb) as kg:
        write(kg, *graph())
        first = build(kg)
        assert first.full_reason == "first" and first.modularity is not None
        state = _drift(kb)
        assert state == {"budget": 0.5, "changed": 0, "clustered": 144}
        touched = change(kg)
        report = build(kg)
        assert report.incremental and report.full_reason == "", name
        assert report.local_budget == 0.5
        changed = _drift(kb)["changed"]
        assert 0 < changed <= len(touched) + 8  # the touched entities, neighbours of gone ones
        assert report.local_spent == pytest.approx(changed / 144, abs=1e-4)
        assert_valid(kg)


BUDGET_CASES = [
    # (name, local_budget, changes applied before the measured build, incremental?)
    ("within the budget", 0.5, [_new_entity, _bridge], True),
    ("the budget spent by the second change", 0.1, [_new_entity, _bridge], False),
    ("no budget", 0.0, [_new_entity], False),
]


@pytest.mark.parametrize(
    ("name", "budget", "changes", "incremental"),
    BUDGET_CASES,
    ids=[c[0] for c in BUDGET_CASES],
)
def test_a_spent_budget_clusters_the_whole_graph_and_measures_the_loss(
    tmp_path: Path, name: str, budget: float, changes: list[Any], incremental: bool
) -> None:
    kb = tmp_path / "kb"
    with open_kb(kb, local_budget=budget) as kg:
        write(kg, *graph())
        build(kg)
        for change in changes[:-1]:
            change(kg)
            assert build(kg).incremental
        changes[-1](kg)
        report = build(kg)
        assert report.incremental is incremental, name
        assert_valid(kg)
        state = _drift(kb)
        if incremental:
            assert report.modularity_loss is None and state["changed"] > 0
            return
        assert report.full_reason == "budget"
        assert report.modularity_loss is not None and report.modularity is not None
        assert state["changed"] == 0 and state["clustered"] == 144 + (_new_entity in changes)
        assert state["budget"] == pytest.approx(report.local_budget, abs=1e-4)
        assert report.local_spent is not None and report.local_spent > budget
        expected = adapt_budget(budget, report.local_spent, report.modularity_loss, 0.01)
        assert state["budget"] == pytest.approx(expected, rel=0.02)
        assert kg.graph_store.community_changes() == ([], [])


def test_rebuild_resets_what_was_spent_and_keeps_the_budget(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    with open_kb(kb, local_budget=0.4) as kg:
        write(kg, *graph())
        build(kg)
        _bridge(kg)
        assert build(kg).incremental and _drift(kb)["changed"] == 24
        report = build(kg, full=True)
        assert report.full_reason == "requested" and report.modularity_loss is None
        assert _drift(kb) == {"budget": 0.4, "changed": 0, "clustered": 144}


def test_a_knowledge_base_without_a_drift_record_starts_one(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    with open_kb(kb) as kg:
        write(kg, *graph())
        build(kg)
        (kb / "community-drift.json").unlink()
        _new_entity(kg)
        report = build(kg)
        assert report.incremental
        state = _drift(kb)
        assert state["budget"] == 0.5 and state["clustered"] == 145 and state["changed"] == 4


def test_untouched_communities_keep_ids_and_summaries_over_many_updates(tmp_path: Path) -> None:
    """Several incremental updates in a row: a community none of them touched (no member
    changed, no member's community re-clustered) keeps its id and its summary."""
    with open_kb(tmp_path / "kb") as kg:
        write(kg, *graph())
        build(kg)
        before = {c.community_id: c for c in kg.graph_store.communities()}
        touched: set[str] = set()
        for _, change in CHANGES:
            touched |= change(kg)
            assert build(kg).incremental
        after = {c.community_id: c for c in kg.graph_store.communities()}
        kept = [c for c in before.values() if c.level > 0 and not touched & set(c.members)]
        assert kept
        for old in kept:
            new = after.get(old.community_id)
            assert new is not None, old.community_id
            assert (new.summary, new.content_hash) == (old.summary, old.content_hash)
