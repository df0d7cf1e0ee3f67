"""``lexicographic_shortest_paths`` against a brute-force enumeration on seeded random graphs
(hubs included), for every hop limit and path limit the stores accept."""

from __future__ import annotations

import itertools
import random

import pytest

from kg_rag.stores.ppr import lexicographic_shortest_paths


def _graph(seed: int) -> tuple[dict[str, set[str]], dict[frozenset[str], list[str]]]:
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    adj: dict[str, set[str]] = {f"e{i:02d}": set() for i in range(n)}
    types: dict[frozenset[str], set[str]] = {}
    nodes = sorted(adj)
    hub = nodes[0]
    for _ in range(rng.randint(1, 3 * n)):
        a = hub if rng.random() < 0.3 else rng.choice(nodes)  # one node gathers many edges
        b = rng.choice(nodes)
        if a == b:
            continue
        adj[a].add(b)
        adj[b].add(a)
        types.setdefault(frozenset((a, b)), set()).add(rng.choice(["FOUNDED", "LED", "MET"]))
    return adj, {k: sorted(v) for k, v in types.items()}


def _brute_force(
    adj: dict[str, set[str]],
    types: dict[frozenset[str], list[str]],
    source: str,
    target: str,
    max_hops: int,
    limit: int,
) -> list[tuple[list[str], list[str]]]:
    if source == target:
        return [([source], [])]
    paths: list[list[str]] = []
    stack = [[source]]
    while stack:
        path = stack.pop()
        if path[-1] == target:
            paths.append(path)
            continue
        if len(path) - 1 < max_hops:
            stack.extend([*path, n] for n in adj[path[-1]] if n not in path)
    if not paths:
        return []
    shortest = min(len(p) for p in paths)
    out = [
        (p, list(combo))
        for p in paths
        if len(p) == shortest
        for combo in itertools.product(*(types[frozenset(e)] for e in itertools.pairwise(p)))
    ]
    return sorted(out)[:limit]


@pytest.mark.parametrize("seed", range(60))
def test_paths_equal_brute_force(seed: int) -> None:
    adj, types = _graph(seed)
    rng = random.Random(1000 + seed)
    nodes = sorted(adj)
    for _ in range(8):
        source, target = rng.choice(nodes), rng.choice(nodes)
        max_hops, limit = rng.randint(1, 4), rng.randint(1, 10)
        got = lexicographic_shortest_paths(
            source,
            target,
            lambda node: adj[node],
            lambda a, b: types[frozenset((a, b))],
            max_hops,
            limit,
        )
        want = _brute_force(adj, types, source, target, max_hops, limit)
        assert [(p.nodes, p.relations) for p in got] == want, (source, target, max_hops, limit)
