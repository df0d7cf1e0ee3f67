"""Graph algorithms shared by both graph stores, so that both give identical answers.

The stores only differ in how they *fetch* graph data (Cypher vs. in-memory networkx); every
ranking and ordering decision is made here, in one place:

* :func:`personalized_pagerank` — power iteration over an undirected, weight-summed graph;
* :func:`bfs_levels` — breadth-first expansion in a deterministic (distance, id) order;
* :func:`lexicographic_shortest_paths` — all shortest paths, enumerated in sorted order;
* :func:`search_keys`, :func:`name_needles`, :func:`rank_name_matches` — entity name matching;
* :func:`fold_relations`, :func:`build_networkx`, :class:`ChunkRecord` — write and export
  helpers both stores use the same way.

Neo4j Community has no Graph Data Science library, so PPR runs here in Python for Neo4j too:
the store fetches the weighted adjacency with one Cypher query per BFS level.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

import networkx as nx
import numpy as np
from scipy import sparse

from extraction.language import HAN, KANA, normalize_name
from kg_rag.models import GraphPath, Relation

__all__ = [
    "CHUNK_PREVIEW_CHARS",
    "MAX_PATH_HOPS",
    "ChunkRecord",
    "Edge",
    "NamedEntity",
    "bfs_levels",
    "build_networkx",
    "fold_relations",
    "lexicographic_shortest_paths",
    "lookup_keys",
    "name_needles",
    "normalize_name",
    "personalized_pagerank",
    "rank_name_matches",
    "search_keys",
    "tokens",
]

Edge = tuple[str, str, str, float]
"""A relation as plain data: (source_id, target_id, type, weight)."""

CHUNK_PREVIEW_CHARS = 200
"""Longest chunk text preview a graph store keeps (the text lives in the chunk layer)."""
MAX_PATH_HOPS = 10
"""Longest path :meth:`paths` accepts on every store."""


class ChunkRecord(NamedTuple):
    """What the graph store knows about a chunk (its text lives in the chunk layer)."""

    chunk_id: str
    doc_id: str
    level: str | None = None
    parent_id: str | None = None
    ordinal: int | None = None
    preview: str | None = None


def fold_relations(relations: Sequence[Relation]) -> list[Relation]:
    """Merge duplicates within one batch the way sequential ``MERGE`` rows do: evidence is
    unioned in order, description and weight come from the last row."""
    folded: dict[tuple[str, str, str], Relation] = {}
    for relation in relations:
        key = (relation.source_id, relation.type, relation.target_id)
        evidence = list(dict.fromkeys(relation.evidence))
        previous = folded.get(key)
        if previous is not None:
            evidence = previous.evidence + [x for x in evidence if x not in previous.evidence]
        folded[key] = relation.model_copy(update={"evidence": evidence})
    return list(folded.values())


def build_networkx(nodes: Iterable[tuple[str, str, str]], edges: Iterable[Edge]) -> Any:
    """A ``networkx.Graph`` from (id, name, type) nodes and (source, target, type, weight)
    relations, summing weights per unordered pair in sorted relation order."""
    graph = nx.Graph()
    for entity_id, name, type_ in sorted(nodes):
        graph.add_node(entity_id, name=name, type=type_)
    for source, target, type_, weight in sorted(edges, key=lambda e: (e[0], e[2], e[1])):
        if graph.has_edge(source, target):
            data = graph[source][target]
            data["weight"] += float(weight)
            if type_ not in data["types"]:
                data["types"] = sorted([*data["types"], type_])
        else:
            graph.add_edge(source, target, weight=float(weight), types=[type_])
    return graph


# Scores are compared after rounding so that two nodes whose scores differ only by floating
# noise are ordered by id, the same way on every backend.
_SCORE_DIGITS = 12
_MAX_ITER = 1000
_TOL = 1e-13


def personalized_pagerank(
    nodes: Iterable[str],
    edges: Iterable[Edge],
    seeds: Mapping[str, float],
    damping: float = 0.85,
    limit: int = 50,
    tol: float | None = None,
) -> list[tuple[str, float]]:
    """Personalized PageRank on an undirected graph whose pair weights are summed relations.

    Every input is canonicalised (nodes sorted, edges sorted by (source, type, target) before
    their weights are summed per unordered pair) so the result does not depend on the order in
    which a backend returned its rows — Neo4j and the embedded store get bit-identical scores.

    Args:
        nodes: Node ids in scope (seeds outside it are ignored).
        edges: Relations among ``nodes``; self-loops, non-positive weights and edges leaving the
            scope are ignored.
        seeds: Seed id → positive weight (normalized to a teleport distribution).
        damping: Probability of following an edge rather than teleporting back to the seeds.
        limit: Number of results.

    Returns:
        ``(node_id, score)`` with score > 0, highest first, ties broken by id.
    """
    return TransitionMatrix(nodes, edges).rank(seeds, damping, limit, tol)


class TransitionMatrix:
    """The random-walk matrix of a graph, built once and reused for many PPR queries.

    Stores keep one for the whole graph (rebuilt after their own writes), so a query costs
    only the power iterations.
    """

    def __init__(self, nodes: Iterable[str], edges: Iterable[Edge]) -> None:
        order = sorted(set(nodes))
        index = {node: i for i, node in enumerate(order)}
        size = len(order)
        kept = [
            (index[source], index[target], float(weight))
            for source, target, _type, weight in edges
            if source in index and target in index
        ]
        if kept:
            raw = np.array(kept, dtype=np.float64)
            first, second, weights = (
                raw[:, 0].astype(np.int64),
                raw[:, 1].astype(np.int64),
                raw[:, 2],
            )
            mask = (first != second) & (weights > 0.0)
            low = np.minimum(first, second)[mask]
            high = np.maximum(first, second)[mask]
            weights = weights[mask]
            # Canonical order (pair, then weight) before summing parallel relations, so the
            # sums are bit-identical whatever order a backend returned its rows in.
            ordering = np.lexsort((weights, high, low))
            low, high, weights = low[ordering], high[ordering], weights[ordering]
        else:
            low = high = np.zeros(0, dtype=np.int64)
            weights = np.zeros(0, dtype=np.float64)
        if len(low):
            starts = np.flatnonzero(np.r_[True, (low[1:] != low[:-1]) | (high[1:] != high[:-1])])
            pair_low, pair_high = low[starts], high[starts]
            pair_weight = np.add.reduceat(weights, starts)
            rows = np.concatenate([pair_low, pair_high])
            cols = np.concatenate([pair_high, pair_low])
            vals = np.concatenate([pair_weight, pair_weight])
            adjacency = sparse.csr_matrix((vals, (rows, cols)), shape=(size, size))
        else:
            adjacency = sparse.csr_matrix((size, size), dtype=np.float64)
        degree = np.asarray(adjacency.sum(axis=1)).ravel()
        self.dangling = degree == 0.0
        inv_degree = np.zeros(size, dtype=np.float64)
        inv_degree[~self.dangling] = 1.0 / degree[~self.dangling]
        # Row-stochastic transition matrix, transposed once so each step is one mat-vec.
        self.transition_t = (sparse.diags(inv_degree) @ adjacency).T.tocsr()
        # Row u of the (symmetric) adjacency over u's weighted degree is where a push from u
        # goes (:meth:`rank_local`).
        self.adjacency = adjacency.tocsr()
        self.inv_degree = inv_degree
        self.neighbours = np.diff(self.adjacency.indptr)
        self.order = order
        self.index = index

    def _teleport(self, seeds: Mapping[str, float]) -> np.ndarray | None:
        teleport = np.zeros(len(self.order), dtype=np.float64)
        for seed in sorted(seeds):
            weight = float(seeds[seed])
            if seed in self.index and weight > 0.0:
                teleport[self.index[seed]] += weight
        total = teleport.sum()
        if total <= 0.0:
            return None
        normalized: np.ndarray = teleport / total
        return normalized

    def _top(
        self, scores: np.ndarray, candidates: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` best of ``candidates`` by rounded score, ties by id."""
        candidates = candidates[scores[candidates] > 0.0]
        rounded = np.round(scores[candidates], _SCORE_DIGITS)
        if len(candidates) > limit:
            # Everything scoring at least the limit-th best is kept, so ties at the cut are
            # settled by id below, as a full sort would.
            cut = np.partition(rounded, len(rounded) - limit)[len(rounded) - limit]
            keep = rounded >= cut
            candidates, rounded = candidates[keep], rounded[keep]
        # ``order`` is sorted, so a smaller index is a smaller id: ties go to the smaller id.
        ranked = candidates[np.lexsort((candidates, -rounded))][:limit]
        order = self.order  # plain lists: indexing numpy scalars one by one was most of this
        return list(zip([order[i] for i in ranked.tolist()], scores[ranked].tolist(), strict=True))

    def rank_local(
        self,
        seeds: Mapping[str, float],
        damping: float = 0.85,
        limit: int = 50,
        epsilon: float = 1e-6,
    ) -> list[tuple[str, float]]:
        """PPR from ``seeds`` by forward push (Andersen, Chung and Lang 2006): only nodes
        whose residual mass exceeds ``epsilon`` per neighbour are expanded, so the work is
        bounded by about ``1 / (epsilon * (1 - damping))`` edge visits however large the
        graph; nodes far from the seeds are never touched.

        Scores approximate :meth:`rank`'s from below, each by at most ``epsilon`` times the
        node's number of neighbours; the ranking of the well-scored head is what retrieval
        reads. Same semantics otherwise (undirected, weight-summed, dangling mass back to the
        seeds), same ordering of ties.
        """
        if not 0.0 < damping < 1.0:
            raise ValueError(f"damping must be in (0, 1), got {damping}")
        teleport = self._teleport(seeds)
        if teleport is None or limit <= 0:
            return []
        seed_idx = np.flatnonzero(teleport)
        residual = teleport.copy()
        scores = np.zeros_like(residual)
        indptr, indices, weights = (
            self.adjacency.indptr,
            self.adjacency.indices,
            self.adjacency.data,
        )
        size = len(residual)
        ever = np.zeros(size, dtype=bool)
        ever[seed_idx] = True
        threshold = epsilon * np.maximum(self.neighbours, 1)
        active = seed_idx
        while active.size:
            mass = residual[active]
            residual[active] = 0.0
            scores[active] += (1.0 - damping) * mass
            dangling = self.dangling[active]
            if dangling.any():
                residual[seed_idx] += damping * float(mass[dangling].sum()) * teleport[seed_idx]
                active, mass = active[~dangling], mass[~dangling]
            if active.size:
                starts = indptr[active]
                counts = indptr[active + 1] - starts
                total = int(counts.sum())
                offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
                cols = indices[offsets]
                share = np.repeat(damping * mass * self.inv_degree[active], counts)
                # bincount over the whole index space is one fast pass; np.add.at on the
                # touched columns alone is many times slower for the sizes met here.
                residual += np.bincount(cols, weights=weights[offsets] * share, minlength=size)
                ever[cols] = True
            active = np.flatnonzero(residual > threshold)
        return self._top(scores, np.flatnonzero(ever), limit)

    def rank(
        self,
        seeds: Mapping[str, float],
        damping: float = 0.85,
        limit: int = 50,
        tol: float | None = None,
    ) -> list[tuple[str, float]]:
        """PPR from ``seeds``: ``(node_id, score)`` with score > 0, best first, ties by id.

        ``tol`` is the L1 change at which the power iteration stops (default 1e-13, what the
        contract suite checks against networkx); rankings settle far earlier, so retrieval
        passes a looser one.
        """
        if not 0.0 < damping < 1.0:
            raise ValueError(f"damping must be in (0, 1), got {damping}")
        found = self._teleport(seeds)
        if found is None or limit <= 0:
            return []
        teleport = found
        dangling = self.dangling
        scores = teleport.copy()
        for _ in range(_MAX_ITER):
            # Mass on dangling nodes (no edges in scope) teleports back to the seeds, like
            # networkx.pagerank with dangling=None.
            dangling_mass = float(scores[dangling].sum())
            updated = (
                damping * (self.transition_t @ scores)
                + (damping * dangling_mass + 1.0 - damping) * teleport
            )
            delta = float(np.abs(updated - scores).sum())
            scores = updated
            if delta < (_TOL if tol is None else tol):
                break
        return self._top(scores, np.flatnonzero(scores > 0.0), limit)


def bfs_levels(
    seeds: Sequence[str],
    expand: Callable[[list[str], Collection[str], int | None], Iterable[str]],
    hops: int | None,
    limit: int | None = None,
) -> dict[str, int]:
    """Breadth-first expansion from ``seeds`` in (distance, id) order.

    Args:
        seeds: Existing start nodes.
        expand: ``expand(frontier, seen, budget)`` returns the undirected neighbours of a
            frontier (one call per level, so a remote store needs one query per hop). It may
            leave out ids in ``seen`` and, when ``budget`` is not ``None``, return only the
            ``budget`` smallest new ids — the rest would be dropped here anyway.
        hops: Maximum distance; ``None`` expands until nothing new is found.
        limit: Stop once this many nodes are selected; within the last level the smallest ids
            win, so the selection is the same on every backend.

    Returns:
        Node id → distance from the nearest seed, insertion-ordered by (distance, id).
    """
    selected: dict[str, int] = {}
    frontier = sorted(set(seeds))
    if limit is not None:
        frontier = frontier[: max(limit, 0)]
    for node in frontier:
        selected[node] = 0
    depth = 0
    while frontier and (hops is None or depth < hops):
        if limit is not None and len(selected) >= limit:
            break
        depth += 1
        budget = None if limit is None else limit - len(selected)
        fresh = sorted(set(expand(frontier, selected.keys(), budget)) - selected.keys())
        if budget is not None:
            fresh = fresh[:budget]
        for node in fresh:
            selected[node] = depth
        frontier = fresh
    return selected


def lexicographic_shortest_paths(
    source: str,
    target: str,
    neighbours: Callable[[str], Iterable[str]],
    pair_types: Callable[[str, str], Sequence[str]],
    max_hops: int,
    limit: int,
) -> list[GraphPath]:
    """All shortest undirected paths of at most ``max_hops`` hops, sorted by (nodes, types).

    Paths that differ only in which parallel relation they use are distinct (their type lists
    differ); equal (nodes, types) pairs are reported once. Enumeration walks the shortest-path
    DAG with sorted neighbours, so it stops after ``limit`` paths without producing the rest.

    Args:
        source: Start node (must exist).
        target: End node (must exist).
        neighbours: Undirected neighbours of a node.
        pair_types: Sorted distinct relation types between two adjacent nodes (any direction).
        max_hops: Longest path length considered.
        limit: Number of paths.
    """
    if limit <= 0:
        return []
    if source == target:
        return [GraphPath(nodes=[source], relations=[])]
    # Breadth-first from both ends, always widening the smaller frontier, until the two balls
    # meet: the third level around a hub can hold most of the graph, and meeting in the middle
    # never builds it.
    dist = ({source: 0}, {target: 0})
    frontiers = [[source], [target]]
    depths = [0, 0]
    length: int | None = None
    while length is None and depths[0] + depths[1] < max_hops:
        if not frontiers[0] or not frontiers[1]:
            break
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        seen, other = dist[side], dist[1 - side]
        depths[side] += 1
        fresh: set[str] = set()
        for node in frontiers[side]:
            for nxt in neighbours(node):
                if nxt not in seen:
                    fresh.add(nxt)
        for node in fresh:
            seen[node] = depths[side]
        met = [depths[side] + other[node] for node in fresh if node in other]
        if met:
            length = min(met)
        frontiers[side] = list(fresh)
    if length is None:
        return []
    from_source, to_target = dist
    reach = depths[1]  # to_target is exact up to this distance

    results: list[GraphPath] = []

    def on_shortest(nxt: str, at: int) -> bool:
        """Whether ``nxt``, ``at`` hops from the source, can lie on a shortest path: exactly
        ``length - at`` hops from the target where that ball reaches, else exactly ``at`` hops
        from the source (a node beyond the target's ball that leads nowhere dead-ends below)."""
        left = length - at
        if left <= reach:
            return to_target.get(nxt) == left
        return from_source.get(nxt) == at

    # Whether a node at a depth reaches the target does not depend on the path that led to
    # it: a (node, depth) that reached nothing once is not walked again (below a hub every
    # node of the next level is a candidate, and most lead nowhere).
    dead: set[tuple[str, int]] = set()
    arrivals = 0

    def walk(path: list[str]) -> bool:
        nonlocal arrivals
        node = path[-1]
        if node == target:
            arrivals += 1
            steps = [pair_types(a, b) for a, b in itertools.pairwise(path)]
            for combo in itertools.product(*steps):
                results.append(GraphPath(nodes=list(path), relations=list(combo)))
                if len(results) >= limit:
                    return True
            return False
        at = len(path)
        # Only the neighbours on a shortest path are sorted, not a hub's whole adjacency.
        for nxt in sorted(n for n in set(neighbours(node)) if on_shortest(n, at)):
            if (nxt, at) in dead:
                continue
            before = arrivals
            if walk([*path, nxt]):
                return True
            if arrivals == before:
                dead.add((nxt, at))
        return False

    walk([source])
    return results


# -- entity name matching ------------------------------------------------------------------

_CJK = HAN + KANA
# CJK ideographs and kana are single tokens (names are not space-separated); elsewhere a
# token is a run of word characters.
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_SPACE = re.compile(r"\s+")


def tokens(text: str) -> list[str]:
    """Tokens of an already normalized string."""
    return _TOKEN.findall(text)


def search_keys(name: str, aliases: Sequence[str]) -> list[str]:
    """Distinct normalized name and aliases (the name first)."""
    return list(_search_keys(name, tuple(aliases)))


@functools.lru_cache(maxsize=65536)
def _search_keys(name: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    keys: list[str] = []
    for raw in [name, *aliases]:
        key = normalize_name(raw)
        if key and key not in keys:
            keys.append(key)
    return tuple(keys)


def lookup_keys(name: str, aliases: Sequence[str]) -> tuple[list[str], str]:
    """The keys a store indexes an entity under for exact lookups
    (:meth:`~kg_rag.stores.base.GraphStore.entities_named`): the distinct
    :func:`extraction.normalize.normalize_name` forms of its name and aliases (what entity
    linking and resolution compare), and the compact form of its name (resolution's
    "Wal-Mart" = "Walmart" stage, :func:`extraction.normalize.compact_name`)."""
    from extraction.normalize import compact_name
    from extraction.normalize import normalize_name as entity_key_name

    keys: list[str] = []
    for raw in [name, *aliases]:
        key = entity_key_name(raw)
        if key and key not in keys:
            keys.append(key)
    return keys, compact_name(name)


def name_needles(text: str) -> list[str]:
    """Strings of which at least one is contained in the search keys of every entity that
    :func:`rank_name_matches` can score above zero (a superset filter for a store scan)."""
    query = normalize_name(text)
    if not query:
        return []
    return sorted({query, *tokens(query)})


@functools.lru_cache(maxsize=65536)
def _key_tokens(key: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(key))


@functools.lru_cache(maxsize=65536)
def _joined_tokens(text: str) -> str:
    """``text``'s tokens, each closed by ``\x00`` on both sides (no token holds one): a token
    sequence lies inside another exactly when its joined form is a substring of the other's."""
    return "\x00" + "\x00".join(_key_tokens(text)) + "\x00"


def _match_score(query: str, query_tokens: frozenset[str], key: str) -> tuple[int, float]:
    if key == query:
        return 3, 1.0
    if query in key:
        return 2, len(query) / len(key)
    joined = _joined_tokens(key)
    if len(joined) > 1 and joined in _joined_tokens(query):  # the key's tokens, in a row
        return 2, len(key) / len(query)
    key_tokens = _key_tokens(key)
    if not key_tokens:
        return 0, 0.0
    shared = query_tokens.intersection(key_tokens)
    if not shared:
        return 0, 0.0
    return 1, sum(1 for t in key_tokens if t in shared) / len(key_tokens)


class NamedEntity(Protocol):
    """What :func:`rank_name_matches` reads of a candidate: a
    :class:`~kg_rag.models.Entity`, or a store's compact row of one."""

    @property
    def entity_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> Sequence[str]: ...


_Named = TypeVar("_Named", bound=NamedEntity)


def rank_name_matches(text: str, entities: Iterable[_Named], limit: int) -> list[_Named]:
    """Rank candidate entities against ``text``.

    Tiers, best first: an exact (normalized) name or alias; the text inside a name/alias, or a
    name/alias appearing as whole tokens inside the text (closer lengths first); shared tokens
    (fraction of the name's tokens found). Ties go to the smaller id.
    """
    query = normalize_name(text)
    if not query or limit <= 0:
        return []
    query_tokens = frozenset(tokens(query))
    scored: list[tuple[int, float, str, _Named]] = []
    for entity in entities:
        best = (0, 0.0)
        for key in search_keys(entity.name, entity.aliases):
            best = max(best, _match_score(query, query_tokens, key))
        if best[0] > 0:
            scored.append((best[0], round(best[1], 9), entity.entity_id, entity))
    scored.sort(key=lambda item: (-item[0], -item[1], item[2]))
    return [item[3] for item in scored[:limit]]
