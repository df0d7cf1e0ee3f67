"""Hierarchical Leiden communities over a networkx graph, deterministic and with stable ids.

The clustering is graspologic's hierarchical Leiden, run by its Rust core
(``graspologic_native.hierarchical_leiden``) on an edge list built here. The Python wrapper
``graspologic.partition.hierarchical_leiden`` is not used: it walks the graph in Python once
more (type checks, an id mapper, one object per result row) and importing ``graspologic`` pulls
in scipy, scikit-learn and ``pkg_resources``. Given the same edge list, both give the same
partition (checked when this module was written).

What this module adds:

* **Order independence.** graspologic-native's result depends on the order of the edge list
  (even on which end of an edge comes first), so edges are given in a canonical order: nodes
  sorted by their string id, each edge oriented from the smaller to the larger, edges sorted.
  The same graph and seed give the same communities however the graph was built.
* **Input hygiene.** Directed graphs and multigraphs are folded into one undirected edge per
  pair, weights summed. Self-loops are dropped (an entity related to itself says nothing
  about its community), and so are edges whose weight is not a positive finite number
  (modularity has no meaning for them).
* **Stable ids.** A community id hashes its level and sorted members, so a community whose
  membership does not change keeps its id and its summary can be reused.
* **Singletons dropped.** Isolated nodes belong to no community, and communities with fewer than
  ``min_size`` members (default 2) are dropped: a one-entity "community" has nothing to
  summarize. An empty or edgeless graph gives no communities.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import time
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

import networkx as nx
import numpy as np

from communities.errors import GraphInputError
from communities.schema import CommunityRecord

__all__ = ["community_id", "detect_communities", "levels", "modularity", "node_membership"]

logger = logging.getLogger(__name__)

_CLUSTER = attrgetter("cluster")
_NODE = attrgetter("node")
_FIELDS = frozenset(CommunityRecord.model_fields)


def community_id(level: int, members: Iterable[str]) -> str:
    """The id of the community at ``level`` with ``members`` (order does not matter).

    Args:
        level: Hierarchy level.
        members: Member node ids.

    Returns:
        ``"c"`` followed by 16 hex digits of sha1 over the level and the sorted members.
    """
    payload = "\x1f".join([str(level), *sorted(members)])
    return "c" + hashlib.sha1(payload.encode("utf-8")).hexdigest()[:16]


def detect_communities(
    graph: nx.Graph,
    *,
    max_cluster_size: int = 10,
    seed: int = 42,
    weight: str = "weight",
    resolution: float = 1.0,
    min_size: int = 2,
) -> list[CommunityRecord]:
    """Hierarchical Leiden communities of ``graph``.

    Args:
        graph: Any networkx graph (directed and multigraphs are folded to undirected, parallel
            weights summed). Node ids are used through ``str()``.
        max_cluster_size: Communities of at least this many members are split again at the next
            level (graspologic's ``max_cluster_size``).
        seed: Seed of Leiden's random generator.
        weight: Edge attribute holding the weight; a missing attribute counts as 1.
        resolution: Leiden resolution; higher gives more, smaller communities.
        min_size: Communities with fewer members are dropped.

    Returns:
        Communities sorted by level (0 = coarsest), then size (largest first), then first
        member. Every community's members are a subset of its parent's.

    Raises:
        GraphInputError: Two distinct nodes have the same ``str()``, or an argument is out of
            range.
    """
    if max_cluster_size < 1:
        raise GraphInputError(f"max_cluster_size must be >= 1, got {max_cluster_size}")
    if not resolution > 0:
        raise GraphInputError(f"resolution must be > 0, got {resolution}")
    started = time.perf_counter()
    names, edges = _canonical_edges(graph, weight)
    if not edges:
        logger.debug("graph has no usable edges (%d nodes): no communities", len(names))
        return []
    # Imported here: the extension module is only needed once there is work to do.
    import graspologic_native as gn

    rows = gn.hierarchical_leiden(
        edges=edges,
        max_cluster_size=max_cluster_size,
        seed=seed,
        resolution=resolution,
    )
    records = _records(rows, min_size)
    logger.debug(
        "leiden: %d nodes, %d edges -> %d communities on %d levels in %.3fs",
        len(names),
        len(edges),
        len(records),
        len(levels(records)),
        time.perf_counter() - started,
    )
    return records


def _canonical_edges(graph: nx.Graph, weight: str) -> tuple[list[str], list[tuple[str, str, Any]]]:
    """Undirected, deduplicated, positively weighted edges in a canonical order.

    Weights are passed as found (any real number; graspologic-native reads them as floats).
    """
    nodes = list(graph)
    names = [str(node) for node in nodes]
    n = len(names)
    order = sorted(range(n), key=names.__getitem__)
    sorted_names = [names[i] for i in order]
    if len(set(sorted_names)) != n:
        dupes = sorted({a for a, b in itertools.pairwise(sorted_names) if a == b})
        raise GraphInputError(
            f"distinct nodes print the same id {dupes[:5]}: give nodes unique string ids"
        )
    if n < 2:
        return sorted_names, []
    index = dict(zip([nodes[i] for i in order], range(n), strict=True))
    if graph.is_directed() or graph.is_multigraph():
        return sorted_names, _folded_edges(graph, weight, index, sorted_names)

    # Hot path, a simple undirected graph: read the adjacency once, keep each pair from its
    # lower end (already oriented, no duplicates), build the tuples graspologic-native takes
    # as we go, then put them in key order. This is about twice as fast as going through
    # ``graph.edges(data=...)`` and numpy.
    keys: list[int] = []
    raw: list[Any] = []
    tuples: list[tuple[str, str, Any]] = []
    for u, nbrs in graph.adjacency():
        iu = index[u]
        base = iu * n
        name = sorted_names[iu]
        for v, attrs in nbrs.items():
            iv = index[v]
            if iu < iv:
                w = attrs.get(weight, 1.0)
                keys.append(base + iv)
                raw.append(w)
                tuples.append((name, sorted_names[iv], w))
    if not keys:
        return sorted_names, []
    keep = _usable(_weights(raw, weight))
    order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable").tolist()
    if keep is None:
        return sorted_names, [tuples[i] for i in order]
    return sorted_names, [tuples[i] for i in order if keep[i]]


def _weights(raw: list[Any], weight: str) -> np.ndarray[Any, np.dtype[np.float64]]:
    try:
        return np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise GraphInputError(f"edge attribute {weight!r} must be a number: {exc}") from exc


def _usable(wts: np.ndarray[Any, np.dtype[np.float64]]) -> list[bool] | None:
    """Which weights Leiden can use (positive, finite); ``None`` when all are."""
    keep = (wts > 0) & np.isfinite(wts)
    if bool(keep.all()):
        return None
    logger.debug("dropped %d edges whose weight is not a positive number", int((~keep).sum()))
    return [bool(k) for k in keep.tolist()]


def _folded_edges(
    graph: nx.Graph, weight: str, index: dict[Any, int], sorted_names: list[str]
) -> list[tuple[str, str, Any]]:
    """Directed graphs and multigraphs: one undirected edge per pair, weights summed."""
    n = len(sorted_names)
    src: list[int] = []
    dst: list[int] = []
    raw: list[Any] = []
    for u, v, w in graph.edges(data=weight, default=1.0):
        iu, iv = index[u], index[v]
        if iu != iv:
            src.append(min(iu, iv))
            dst.append(max(iu, iv))
            raw.append(w)
    wts = _weights(raw, weight)
    keys = np.asarray(src, dtype=np.int64) * n + np.asarray(dst, dtype=np.int64)
    keep = _usable(wts)
    if keep is not None:
        mask = np.asarray(keep, dtype=bool)
        keys, wts = keys[mask], wts[mask]
    if keys.size == 0:
        return []
    # Sorted pair keys are the canonical order; equal neighbours are both directions of one
    # pair or parallel edges, folded into one edge with their weights summed.
    order = np.argsort(keys, kind="stable")
    keys, wts = keys[order], wts[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    if starts.size != keys.size:
        wts = np.add.reduceat(wts, starts)
        keys = keys[starts]
    label = sorted_names.__getitem__
    return list(
        zip(
            map(label, (keys // n).tolist()),
            map(label, (keys % n).tolist()),
            wts.tolist(),
            strict=True,
        )
    )


def _records(rows: list[Any], min_size: int) -> list[CommunityRecord]:
    """Group graspologic-native's rows (one per node and level) into community records."""
    if not rows:
        return []
    # Column reads are the cheapest way through the rows (each attribute read builds a Python
    # object in the extension); cluster ids are unique across levels, so they alone group.
    clusters = np.fromiter(map(_CLUSTER, rows), dtype=np.int64, count=len(rows))
    nodes = list(map(_NODE, rows))
    if clusters.size > 1 and bool((clusters[1:] < clusters[:-1]).any()):
        # graspologic-native lists rows by level and cluster; sort only if that ever changes.
        order = np.argsort(clusters, kind="stable")
        clusters = clusters[order]
        nodes = [nodes[i] for i in order.tolist()]
        rows = [rows[i] for i in order.tolist()]
    bounds = np.flatnonzero(np.r_[True, clusters[1:] != clusters[:-1], True]).tolist()

    groups: list[tuple[int, int, int | None, list[str]]] = []
    for start, stop in itertools.pairwise(bounds):
        if stop - start < min_size:
            continue
        row = rows[start]
        members = nodes[start:stop]
        members.sort()
        groups.append((row.level, row.cluster, row.parent_cluster, members))
    # Parents first, so a child finds its parent's id.
    groups.sort(key=lambda g: g[0])

    ids: dict[int, str] = {}
    records: list[CommunityRecord] = []
    for level, cluster, parent_cluster, members in groups:
        cid = "c" + hashlib.sha1("\x1f".join([str(level), *members]).encode()).hexdigest()[:16]
        ids[cluster] = cid
        parent_id = ids.get(parent_cluster) if parent_cluster is not None else None
        # model_construct: every field is built here with its type; validating the member
        # strings again would double this function's cost.
        records.append(
            CommunityRecord.model_construct(
                set(_FIELDS),
                community_id=cid,
                level=level,
                parent_id=parent_id,
                members=members,
                size=len(members),
            )
        )
    records.sort(key=lambda r: (r.level, -r.size, r.members[0]))
    return records


def levels(records: Iterable[CommunityRecord]) -> list[int]:
    """The levels present in ``records``, ascending."""
    return sorted({r.level for r in records})


def node_membership(records: Iterable[CommunityRecord], level: int) -> dict[str, str]:
    """Map each node to its community at ``level``, or its deepest one above it.

    Deeper levels only split the communities that were large, so a node whose community was
    not split keeps the coarser community it is in.

    Args:
        records: Output of :func:`detect_communities`.
        level: The level to read.

    Returns:
        ``{node_id: community_id}`` for every node in some community at a level ``<= level``.
    """
    membership: dict[str, str] = {}
    for record in sorted(records, key=lambda r: r.level):
        if record.level > level:
            break
        for node in record.members:
            membership[node] = record.community_id
    return membership


def modularity(
    graph: nx.Graph,
    records: Iterable[CommunityRecord],
    *,
    level: int = 0,
    weight: str = "weight",
    resolution: float = 1.0,
) -> float:
    """Newman modularity of the partition ``records`` gives at ``level`` on ``graph``.

    The graph is read as :func:`detect_communities` reads it (undirected, parallel weights
    summed, self-loops and unusable weights dropped); a node in no community at ``level`` (or
    above it, see :func:`node_membership`) counts as a community of its own, members that are
    not nodes of the graph are ignored.

    Args:
        graph: The clustered graph.
        records: Communities, e.g. the output of :func:`detect_communities` or the stored ones.
        level: The level whose partition is measured.
        weight: Edge attribute holding the weight.
        resolution: The resolution of the null-model term.

    Returns:
        ``sum_c (in_c / m - resolution * (deg_c / 2m) ** 2)``; 0 for a graph without edges.
    """
    names, edges = _canonical_edges(graph, weight)
    if not edges:
        return 0.0
    membership = node_membership(records, level)
    label: dict[str, int] = {}
    ids = [label.setdefault(membership.get(n, "\x00" + n), len(label)) for n in names]
    index = {n: i for i, n in enumerate(names)}
    src = np.fromiter((index[a] for a, _, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((index[b] for _, b, _ in edges), dtype=np.int64, count=len(edges))
    wts = np.fromiter((float(w) for _, _, w in edges), dtype=np.float64, count=len(edges))
    comm = np.asarray(ids, dtype=np.int64)
    total = float(wts.sum())
    inside = float(wts[comm[src] == comm[dst]].sum())
    degree = np.bincount(comm[src], weights=wts, minlength=len(label)) + np.bincount(
        comm[dst], weights=wts, minlength=len(label)
    )
    return inside / total - resolution * float(((degree / (2.0 * total)) ** 2).sum())
