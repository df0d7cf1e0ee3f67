"""Local community updates: re-cluster only where the graph changed.

:func:`~communities.leiden.detect_communities` clusters the whole graph; after an ingest that
touched a small part of it, :func:`update_partition` keeps the stored hierarchical partition
and changes it only around the change, reading the graph through a :class:`GraphView` (the
neighbourhood of given nodes, the communities of given nodes) so that its cost follows the
size of the change, not of the graph:

1. **Gone nodes** (deleted, or left without any relation) leave every community they were in.
2. **New nodes** (with relations, in no community) join, level by level, the community their
   neighbours link them to most strongly (summed edge weight; ties to the smaller id), down
   to the deepest level where a neighbour is; nodes no clustered neighbour reaches are
   *orphans*.
3. **Touched communities**: for every changed node (and every community that lost a member),
   its chain of communities from level 0 down. The region re-clustered for that node is its
   community at the shallowest level whose size is at most ``max_region_nodes`` (a large
   level-0 community is not re-clustered whole: its touched descendants are). Touched
   communities under the same parent (level 0: the root, with the orphans) are re-clustered
   together, so a new edge between two of them can merge them.
4. **Local Leiden**: hierarchical Leiden on the subgraph induced by each region's members,
   with the same settings; its communities replace the touched ones and their descendants,
   one level below their parent. Ancestors gain and lose the members that moved.

**Ids survive an update** (:func:`_keep_ids`): an ancestor that gained or lost members keeps
its id (so its untouched children are not written again), and a re-clustered community takes
the id of the community it replaces when most of its members were in it, or most of that
community's members are in it (greedy by overlap, ties to the smaller id). Only a community
that continues none gets a new id, :func:`~communities.leiden.community_id` of its members
(salted when that id is already in use). A whole-graph run ids every community by its
members again.

When the regions hold more than ``max_share`` of the graph's nodes the update says so
(``None``): a whole-graph run then costs about the same and clusters better.

Each update keeps the partition valid but drifts from what a whole-graph run finds: new
entities join the communities they link to without the large communities above them being
split or merged again, so level-0 modularity slowly falls as the graph grows. The caller
bounds that drift (:mod:`kg_rag.graph_build`): incremental updates run until the entities they
changed pass a budget (a share of the entities the last whole-graph run clustered), then the
whole graph is clustered once; that run measures how much modularity the updates had lost, and
:func:`adapt_budget` scales the budget towards a target loss. With a budget proportional to
the graph, the whole-graph runs come at geometrically spaced sizes, so their cost per entity
stays bounded as the graph grows.

The result stays a valid hierarchy (at each level a node is in at most one community, every
community's members are a subset of its parent's, parents one level up); it is not the
partition a whole-graph run would find, which is what ``kg-rag communities rebuild`` is for.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import networkx as nx
from pydantic import Field

from communities.leiden import _canonical_edges, community_id, detect_communities
from communities.schema import CommunityRecord, _Model

__all__ = ["GraphView", "LocalUpdate", "adapt_budget", "update_partition"]

logger = logging.getLogger(__name__)


class GraphView(Protocol):
    """The reads :func:`update_partition` needs; each costs what it returns."""

    def adjacency(self, nodes: Sequence[str]) -> Mapping[str, Mapping[str, float]]:
        """node → {neighbour: edge weight} for each of ``nodes`` that has an edge (positive
        weights, no self-loops); nodes without edges may be left out."""
        ...

    def communities_of(self, nodes: Sequence[str]) -> Sequence[CommunityRecord]:
        """The stored communities (every level) with a member in ``nodes``."""
        ...

    def get(self, community_ids: Sequence[str]) -> Sequence[CommunityRecord]:
        """Stored communities by id (missing ids ignored)."""
        ...

    def children(self, community_ids: Sequence[str]) -> Sequence[CommunityRecord]:
        """The stored communities whose parent is in ``community_ids``."""
        ...


class LocalUpdate(_Model):
    """What :func:`update_partition` changes in the stored partition.

    Attributes:
        upserts: Communities to write (new, or stored ones whose members or parent changed),
            sorted by (level, id).
        recomputed: Ids in ``upserts`` that were re-clustered: their summaries are checked
            against the stored content hash.
        resized: Ids in ``upserts`` of kept communities above the re-clustered ones whose
            members changed (they keep their id), mapped to their stored id: the caller
            decides whether a large community's summary is redone or carried over.
            The others in ``upserts`` only got a new ``parent_id``.
        removed: Stored ids to delete (not in ``upserts``), sorted.
        region_nodes: Nodes re-clustered, all regions together.
        regions: Number of local Leiden runs.
    """

    upserts: list[CommunityRecord] = Field(default_factory=list)
    recomputed: list[str] = Field(default_factory=list)
    resized: dict[str, str] = Field(default_factory=dict)
    removed: list[str] = Field(default_factory=list)
    region_nodes: int = 0
    regions: int = 0


def _record(level: int, parent_id: str | None, members: Iterable[str]) -> CommunityRecord:
    ordered = sorted(members)
    return CommunityRecord(
        community_id=community_id(level, ordered),
        level=level,
        parent_id=parent_id,
        members=ordered,
        size=len(ordered),
    )


def update_partition(
    view: GraphView,
    changed_nodes: Iterable[str],
    changed_communities: Iterable[str] = (),
    *,
    total_nodes: int,
    total_edges: int = 0,
    max_cluster_size: int = 10,
    seed: int = 42,
    resolution: float = 1.0,
    min_size: int = 2,
    max_region_nodes: int = 2000,
    max_share: float = 0.5,
) -> LocalUpdate | None:
    """Update a stored hierarchical partition around a change (see the module docstring).

    Args:
        view: Reads of the current graph and the stored communities.
        changed_nodes: Nodes whose relations or content changed (gone nodes included).
        changed_communities: Stored communities that lost members some other way.
        total_nodes: Nodes in the graph (for ``max_share``, and to scale the resolution).
        total_edges: Edges in the graph (to scale the resolution of a level-0 region; 0:
            estimated from ``total_nodes``).
        max_cluster_size, seed, resolution, min_size: As for
            :func:`~communities.leiden.detect_communities`.
        max_region_nodes: Largest community re-clustered whole; larger ones have their
            touched descendants re-clustered instead.
        max_share: Above this share of ``total_nodes`` re-clustered, give up (``None``).

    Returns:
        The changes, or ``None`` when a whole-graph run should be done instead.
    """
    dirty = sorted(set(changed_nodes))
    adjacency: dict[str, Mapping[str, float]] = dict(view.adjacency(dirty))
    alive = {n for n in dirty if adjacency.get(n)}
    gone = set(dirty) - alive

    known: dict[str, CommunityRecord] = {}

    def learn(records: Iterable[CommunityRecord]) -> None:
        for r in records:
            known.setdefault(r.community_id, r)

    learn(view.communities_of(dirty))
    learn(view.get(sorted(set(changed_communities))))
    _learn_ancestors(view, known)
    chains = _chains(known.values())
    fresh = sorted(n for n in alive if n not in chains)
    if fresh:
        reach = sorted({m for n in fresh for m in adjacency[n]} - set(dirty))
        learn(view.communities_of(reach))
        _learn_ancestors(view, known)
        chains = _chains(known.values())

    members: dict[str, set[str]] = {cid: set(r.members) for cid, r in known.items()}
    for node in gone:
        for cid in chains.pop(node, []):
            members[cid].discard(node)
    orphans = _assign(fresh, adjacency, chains, members)

    # Regions: parent id (None = root) → (touched communities, extra nodes).
    regions: dict[str | None, tuple[set[str], set[str]]] = {}

    def touch(chain: list[str], node: str | None) -> None:
        for depth, cid in enumerate(chain):
            if len(members[cid]) <= max_region_nodes:
                parent = chain[depth - 1] if depth else None
                regions.setdefault(parent, (set(), set()))[0].add(cid)
                return
        parent = chain[-1] if chain else None
        extras = regions.setdefault(parent, (set(), set()))[1]
        if node is not None and node not in gone:
            extras.add(node)

    old_chains = _chains(known.values())
    for node in dirty:
        chain = chains.get(node) or old_chains.get(node) or []
        if chain or node in alive:
            touch(chain, node)
    for cid in sorted(set(changed_communities) & set(known)):
        touch(_ancestry(cid, known), None)
    for node in orphans:
        regions.setdefault(None, (set(), set()))[1].add(node)

    region_members = {
        parent: sorted((set().union(*(members[t] for t in touched)) | extras) - gone)
        for parent, (touched, extras) in regions.items()
    }
    region_nodes = sum(len(m) for m in region_members.values())
    if region_nodes > max_share * max(total_nodes, 1):
        logger.debug(
            "local update would re-cluster %d of %d nodes: whole-graph run instead",
            region_nodes,
            total_nodes,
        )
        return None

    # Everything under a touched community is replaced.
    replaced: dict[str, CommunityRecord] = {}
    frontier = sorted({t for touched, _ in regions.values() for t in touched})
    for cid in frontier:
        replaced[cid] = known[cid]
    while frontier:
        below = [c for c in view.children(frontier) if c.community_id not in replaced]
        for c in below:
            replaced[c.community_id] = c
        frontier = sorted(c.community_id for c in below)

    # Ancestors (kept communities whose members moved): new ids top-down.
    new_id: dict[str, str | None] = {}
    upserts: dict[str, CommunityRecord] = {}
    recomputed: set[str] = set()
    resized: dict[str, str] = {}
    removed: set[str] = set(replaced)
    kept = sorted(
        (r for cid, r in known.items() if cid not in replaced),
        key=lambda r: (r.level, r.community_id),
    )
    for rec in kept:
        parent = new_id.get(rec.parent_id, rec.parent_id) if rec.parent_id else None
        if rec.parent_id is not None and parent is None:
            new_id[rec.community_id] = None  # its parent was dropped
            removed.add(rec.community_id)
            continue
        ids = members[rec.community_id]
        if len(ids) < min_size:
            new_id[rec.community_id] = None
            removed.add(rec.community_id)
            continue
        # Same id: the community continues, its untouched children stay as they are.
        new_id[rec.community_id] = rec.community_id
        if ids != set(rec.members) or parent != rec.parent_id:
            updated = _record(rec.level, parent, ids).model_copy(
                update={"community_id": rec.community_id}
            )
            upserts[rec.community_id] = updated
            if ids != set(rec.members):
                resized[rec.community_id] = rec.community_id
    # Untouched children of a dropped community go with it.
    moved = sorted(c for c, n in new_id.items() if n is None)
    while moved:
        follow = []
        for child in view.children(moved):
            cid = child.community_id
            if cid in replaced or cid in new_id:
                continue
            parent = new_id.get(child.parent_id or "", child.parent_id)
            new_id[cid] = cid if parent is not None else None
            if parent is None:
                removed.add(cid)
                follow.append(cid)
            else:
                upserts[cid] = child.model_copy(update={"parent_id": parent})
        moved = sorted(follow)

    # Local Leiden per region.
    regions_run = 0
    same: set[str] = set()
    for parent_old in sorted(regions, key=lambda p: (p is not None, p or "")):
        nodes = region_members[parent_old]
        parent = new_id.get(parent_old, parent_old) if parent_old is not None else None
        if len(nodes) < min_size or (parent_old is not None and parent is None):
            continue
        if parent_old is None:
            level, scope_nodes, scope_edges = 0, total_nodes, total_edges
        else:
            level, scope_nodes, scope_edges = (
                known[parent_old].level + 1,
                len(members[parent_old]),
                0,
            )
        touched, _ = regions[parent_old]
        inside = set(nodes)
        start = {n: i for i, t in enumerate(sorted(touched)) for n in members[t] if n in inside}
        regions_run += 1
        clustered = _cluster_region(
            _induced(view, nodes, adjacency),
            start,
            level=level,
            parent=parent,
            scope_nodes=scope_nodes,
            scope_edges=scope_edges,
            max_cluster_size=max_cluster_size,
            seed=seed,
            resolution=resolution,
            min_size=min_size,
        )
        for rec in _keep_ids(clustered, replaced, upserts, view):
            if replaced.get(rec.community_id) == rec:
                same.add(rec.community_id)  # re-clustered as it was: nothing to write
                continue
            upserts[rec.community_id] = rec
            recomputed.add(rec.community_id)
    removed -= set(upserts) | same
    return LocalUpdate(
        upserts=sorted(upserts.values(), key=lambda r: (r.level, r.community_id)),
        recomputed=sorted(recomputed),
        resized={k: v for k, v in sorted(resized.items()) if k not in recomputed},
        removed=sorted(removed),
        region_nodes=region_nodes,
        regions=regions_run,
    )


def adapt_budget(
    budget: float,
    spent: float,
    loss: float,
    target: float,
    *,
    lowest: float = 0.05,
    highest: float = 2.0,
    step: float = 2.0,
) -> float:
    """The next incremental budget, from the modularity loss measured when a run of
    incremental updates had changed ``spent`` (a share of the entities clustered whole).

    The loss grows about linearly with the share changed, so the budget becomes the share at
    which the loss would have been ``target`` (``spent * target / loss``), moved by at most
    ``step`` either way from ``budget`` per run (one measurement is noisy), and kept within
    [``lowest``, ``highest``]. No loss (or a gain) scales the budget up by ``step``.

    Args:
        budget: The budget the run had.
        spent: The share the run had changed when it was measured.
        loss: Level-0 modularity of a whole-graph run minus that of the incremental
            partition, on the same graph.
        target: The loss a run may reach (``communities.max_modularity_loss``).
        lowest, highest: Bounds of the result.
        step: Largest factor of change.

    Returns:
        The next budget.
    """
    if target <= 0:
        return lowest
    wanted = spent * target / loss if loss > 0 else budget * step
    wanted = min(budget * step, max(budget / step, wanted))
    return min(highest, max(lowest, wanted))


def _keep_ids(
    records: Sequence[CommunityRecord],
    replaced: Mapping[str, CommunityRecord],
    taken: Mapping[str, CommunityRecord],
    view: GraphView,
) -> list[CommunityRecord]:
    """Re-identify one region's re-clustered ``records`` (ids from their members) so that
    communities continue the ids of the ``replaced`` ones they stand for.

    Level by level from the top, a record's candidates are the replaced communities at its
    level under the same parent (its parent's final id). Pairs are taken greedily by member
    overlap (larger first; ties to the smaller old id, then the smaller new id), each old and
    each new community at most once, when the overlap is more than half of either of the two.
    A record that continues none keeps its member id unless that id is in use (in ``taken``,
    this update's other writes, or stored and not replaced): then a salted one.
    """
    final: dict[str, str] = {}
    by_place: dict[tuple[int, str | None], list[CommunityRecord]] = {}
    for old in replaced.values():
        by_place.setdefault((old.level, old.parent_id), []).append(old)
    out: list[CommunityRecord] = []
    used: set[str] = set()
    for level in sorted({r.level for r in records}):
        group = [
            r.model_copy(update={"parent_id": final.get(r.parent_id, r.parent_id)})
            if r.parent_id is not None
            else r
            for r in records
            if r.level == level
        ]
        pairs: list[tuple[int, str, str]] = []
        for rec in group:
            mine = set(rec.members)
            for old in by_place.get((level, rec.parent_id), []):
                shared = len(mine & set(old.members))
                if shared and (2 * shared > len(mine) or 2 * shared > len(old.members)):
                    pairs.append((-shared, old.community_id, rec.community_id))
        chosen: dict[str, str] = {}
        for _, old_id, new_id in sorted(pairs):
            if old_id in used or new_id in chosen:
                continue
            chosen[new_id] = old_id
            used.add(old_id)
        fresh = [r.community_id for r in group if r.community_id not in chosen]
        stored = {r.community_id for r in view.get(fresh)} if fresh else set()
        for rec in group:
            cid = chosen.get(rec.community_id)
            if cid is None:
                cid, salt = rec.community_id, 0
                while (
                    cid in taken
                    or cid in used
                    or (cid in stored and cid not in replaced)
                    or cid in final.values()
                ):
                    salt += 1
                    cid = community_id(rec.level, [*rec.members, f"\x00{salt}"])
                    stored |= {r.community_id for r in view.get([cid])}
            final[rec.community_id] = cid
            used.add(cid)
            out.append(rec.model_copy(update={"community_id": cid}))
    return out


def _learn_ancestors(view: GraphView, known: dict[str, CommunityRecord]) -> None:
    while True:
        missing = sorted(
            {r.parent_id for r in known.values() if r.parent_id and r.parent_id not in known}
        )
        if not missing:
            return
        found = list(view.get(missing))
        for r in found:
            known[r.community_id] = r
        if not found:
            return


def _chains(records: Iterable[CommunityRecord]) -> dict[str, list[str]]:
    """node → ids of its communities, level 0 first."""
    by_node: dict[str, list[tuple[int, str]]] = {}
    for r in records:
        for m in r.members:
            by_node.setdefault(m, []).append((r.level, r.community_id))
    return {n: [cid for _, cid in sorted(pairs)] for n, pairs in by_node.items()}


def _ancestry(cid: str, known: Mapping[str, CommunityRecord]) -> list[str]:
    chain = [cid]
    while (parent := known[chain[-1]].parent_id) is not None and parent in known:
        chain.append(parent)
    return chain[::-1]


def _assign(
    fresh: Sequence[str],
    adjacency: Mapping[str, Mapping[str, float]],
    chains: dict[str, list[str]],
    members: dict[str, set[str]],
) -> list[str]:
    """Put each fresh node in the chain its neighbours link it to most; returns the nodes
    no clustered neighbour reaches (passes repeat while a pass places someone, so a chain of
    new nodes hanging off a community joins it whatever their order)."""
    pending = list(fresh)
    while pending:
        rest = []
        for node in pending:
            chain: list[str] = []
            while True:
                depth = len(chain)
                score: dict[str, float] = {}
                for neighbour, weight in adjacency[node].items():
                    theirs = chains.get(neighbour)
                    if theirs and len(theirs) > depth and theirs[:depth] == chain:
                        score[theirs[depth]] = score.get(theirs[depth], 0.0) + weight
                if not score:
                    break
                chain.append(min(score, key=lambda c: (-score[c], c)))
            if chain:
                chains[node] = chain
                for cid in chain:
                    members[cid].add(node)
            else:
                rest.append(node)
        if len(rest) == len(pending):
            return rest
        pending = rest
    return []


def _induced(
    view: GraphView, nodes: Sequence[str], known: Mapping[str, Mapping[str, float]]
) -> nx.Graph:
    inside = set(nodes)
    missing = [n for n in nodes if n not in known]
    adjacency = dict(known)
    if missing:
        adjacency.update(view.adjacency(missing))
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_weighted_edges_from(
        (a, b, w)
        for a in nodes
        for b, w in adjacency.get(a, {}).items()
        if b in inside and a < b and w > 0
    )
    return graph


def _cluster_region(
    graph: nx.Graph,
    start: Mapping[str, int],
    *,
    level: int,
    parent: str | None,
    scope_nodes: int,
    scope_edges: int,
    max_cluster_size: int,
    seed: int,
    resolution: float,
    min_size: int,
) -> list[CommunityRecord]:
    """One region: a flat Leiden run, started from the current communities, gives the
    region's communities at ``level``; those of ``max_cluster_size`` or more are split by
    hierarchical Leiden on their own subgraph, as the whole-graph run splits them.

    The region is part of a larger graph (the whole graph at level 0, the parent community
    deeper): modularity's null model counts edges of that whole, so the resolution is scaled
    by the region's share of its edge weight (estimated from the region's edges per node, or
    per edge when ``scope_edges`` is known), which keeps a region from shattering into more,
    smaller communities than a run over the whole would find.
    """
    import graspologic_native as gn

    names, edges = _canonical_edges(graph, "weight")
    if not edges:
        return []
    weight = sum(float(w) for _, _, w in edges)
    if scope_edges > 0:
        scope_weight = weight / len(edges) * scope_edges
    else:
        scope_weight = weight / max(len(names), 1) * max(scope_nodes, len(names))
    scaled = resolution * min(1.0, weight / scope_weight) if scope_weight > 0 else resolution
    present = {n for a, b, _ in edges for n in (a, b)}
    fresh = itertools.count(max(start.values(), default=-1) + 1)
    starting = {n: start[n] if n in start else next(fresh) for n in sorted(present)}
    _, partition = gn.leiden(
        edges=edges,
        starting_communities=starting,
        resolution=max(scaled, 1e-9),
        seed=seed,
        use_modularity=True,
    )
    clusters: dict[int, list[str]] = {}
    for node, cluster in partition.items():
        clusters.setdefault(cluster, []).append(node)
    out: list[CommunityRecord] = []
    for group in sorted((sorted(g) for g in clusters.values()), key=lambda g: g[0]):
        if len(group) < min_size:
            continue
        record = _record(level, parent, group)
        out.append(record)
        if len(group) < max_cluster_size:
            continue
        below = detect_communities(
            graph.subgraph(group),
            max_cluster_size=max_cluster_size,
            seed=seed,
            resolution=resolution,
            min_size=min_size,
        )
        top = [r for r in below if r.level == 0]
        if len(top) == 1 and top[0].members == record.members:
            continue  # Leiden does not split it: a leaf, as in the whole-graph run
        out.extend(_relevel(below, level + 1, record.community_id))
    return out


def _relevel(
    records: Sequence[CommunityRecord], offset: int, parent: str | None
) -> list[CommunityRecord]:
    """Records of a local run placed ``offset`` levels down under ``parent``, re-identified."""
    ids: dict[str, str] = {}
    out = []
    for rec in sorted(records, key=lambda r: r.level):
        level = rec.level + offset
        up = parent if rec.parent_id is None else ids[rec.parent_id]
        new = _record(level, up, rec.members)
        ids[rec.community_id] = new.community_id
        out.append(new)
    return out
