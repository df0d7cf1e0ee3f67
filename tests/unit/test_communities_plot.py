"""communities.plot: figures for notebooks (rendered with the Agg backend)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import networkx as nx
import pytest

from communities import detect_communities, draw_communities, plot_community_sizes

matplotlib.use("Agg")

pytestmark = pytest.mark.unit


def _graph() -> nx.Graph:
    base = nx.planted_partition_graph(5, 12, 0.6, 0.02, seed=2)
    return nx.relabel_nodes(base, {n: f"n{n}" for n in base})


def test_size_plot_has_one_position_per_level(artifacts_dir: Path) -> None:
    graph = _graph()
    records = detect_communities(graph, max_cluster_size=8)
    levels = sorted({r.level for r in records})
    assert len(levels) >= 2
    fig = plot_community_sizes(records)
    ax = fig.axes[0]
    assert [int(t) for t in ax.get_xticks()] == levels
    assert f"{len(records)} communities" in ax.get_title()
    out = artifacts_dir / "community_sizes.png"
    fig.savefig(out)
    assert out.stat().st_size > 1000


def test_size_plot_of_nothing() -> None:
    fig = plot_community_sizes([])
    assert "0 communities" in fig.axes[0].get_title()


def test_draw_colours_nodes_by_community_and_is_reproducible(artifacts_dir: Path) -> None:
    graph = _graph()
    records = detect_communities(graph, max_cluster_size=100)
    fig = draw_communities(graph, records, level=0)
    collection = fig.axes[0].collections[-1]  # the nodes, drawn after the edges
    colours = {tuple(c) for c in collection.get_facecolors()}
    assert len(colours) == len([r for r in records if r.level == 0]) == 5
    offsets = collection.get_offsets().tolist()
    # Same graph built in another order → same picture.
    shuffled = nx.Graph()
    shuffled.add_edges_from(reversed(list(graph.edges())))
    again = draw_communities(shuffled, records, level=0).axes[0].collections[-1]
    assert again.get_offsets().tolist() == offsets
    out = artifacts_dir / "communities_level0.png"
    fig.savefig(out)
    assert out.stat().st_size > 1000


def test_draw_large_graph_is_capped() -> None:
    graph = nx.relabel_nodes(nx.path_graph(300), str)
    records = detect_communities(graph)
    fig = draw_communities(graph, records, level=0, max_nodes=50)
    assert "50 nodes" in fig.axes[0].get_title()
