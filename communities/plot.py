"""Pictures of communities for notebooks: sizes per level, and the graph coloured by community.

matplotlib is imported when a function is called (it is a notebook/dev dependency, not a
runtime one). The figures are built with :class:`matplotlib.figure.Figure` directly, not
``pyplot``, so nothing global changes and they render in Jupyter and save under the Agg backend.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import networkx as nx

from communities.leiden import node_membership
from communities.schema import CommunityRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["draw_communities", "plot_community_sizes"]


def plot_community_sizes(records: Sequence[CommunityRecord], *, log: bool = True) -> Figure:
    """Distribution of community sizes at each level (one box per level, points overlaid).

    Args:
        records: Output of :func:`~communities.leiden.detect_communities`.
        log: Use a logarithmic size axis (sizes span orders of magnitude).

    Returns:
        A figure with one axes; its title gives the number of communities.
    """
    from matplotlib.figure import Figure

    sizes: dict[int, list[int]] = defaultdict(list)
    for record in records:
        sizes[record.level].append(record.size)
    levels = sorted(sizes)
    fig = Figure(figsize=(max(4.0, 1.6 * len(levels) + 2), 4.0))
    ax = fig.add_subplot()
    if levels:
        ax.boxplot([sizes[lv] for lv in levels], positions=levels, widths=0.5, showfliers=False)
        for lv in levels:
            values = sizes[lv]
            # Spread the points a little (deterministically) so equal sizes stay visible.
            offsets = [((i * 37) % 21 - 10) / 60 for i in range(len(values))]
            ax.scatter([lv + o for o in offsets], values, s=8, alpha=0.5)
        ax.set_xticks(levels, [f"{lv}\n({len(sizes[lv])})" for lv in levels])
        if log:
            ax.set_yscale("log")
    ax.set_xlabel("level (number of communities)")
    ax.set_ylabel("members")
    ax.set_title(f"Community sizes: {len(records)} communities on {len(levels)} levels")
    fig.tight_layout()
    return fig


def draw_communities(
    graph: nx.Graph,
    records: Sequence[CommunityRecord],
    level: int = 0,
    *,
    seed: int = 42,
    max_nodes: int = 2000,
    labels: bool | None = None,
) -> Figure:
    """The graph drawn with a seeded spring layout, nodes coloured by community at ``level``.

    A node whose community was not split down to ``level`` takes its deepest community above
    it; nodes in no community are grey.

    Args:
        graph: The graph the communities were computed on.
        records: Output of :func:`~communities.leiden.detect_communities`.
        level: Level whose communities give the colours.
        seed: Layout seed (same seed, same picture).
        max_nodes: Draw only the highest-degree nodes beyond this many (layout cost grows
            quickly).
        labels: Draw node names; by default only for graphs of up to 60 nodes.

    Returns:
        A figure with one axes.
    """
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    if graph.number_of_nodes() > max_nodes:
        ranked = sorted(graph.degree, key=lambda nd: (-nd[1], str(nd[0])))
        graph = graph.subgraph([node for node, _ in ranked[:max_nodes]])
    membership = node_membership(records, level)
    communities = sorted(set(membership.values()))
    palette = colormaps["tab20"]
    colour_of = {cid: palette(i % 20) for i, cid in enumerate(communities)}
    nodes = sorted(graph.nodes, key=str)
    colours = [colour_of.get(membership.get(str(n), ""), (0.8, 0.8, 0.8, 1.0)) for n in nodes]
    # Layout over a copy built in sorted order, so insertion order does not move the picture.
    ordered = nx.Graph()
    ordered.add_nodes_from(nodes)
    pairs = [(u, v) if str(u) <= str(v) else (v, u) for u, v in graph.edges()]
    ordered.add_edges_from(sorted(pairs, key=lambda e: (str(e[0]), str(e[1]))))
    positions = nx.spring_layout(ordered, seed=seed)

    fig = Figure(figsize=(8.0, 8.0))
    ax = fig.add_subplot()
    nx.draw_networkx_edges(ordered, positions, ax=ax, alpha=0.2, width=0.5)
    nx.draw_networkx_nodes(
        ordered, positions, nodelist=nodes, node_color=colours, node_size=30, ax=ax
    )
    if labels or (labels is None and len(nodes) <= 60):
        nx.draw_networkx_labels(ordered, positions, ax=ax, font_size=7)
    ax.set_title(f"{len(communities)} communities at level {level} ({len(nodes)} nodes)")
    ax.set_axis_off()
    fig.tight_layout()
    return fig
