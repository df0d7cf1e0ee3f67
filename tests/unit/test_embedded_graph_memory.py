"""The embedded graph store's compact memory (rows, interned strings, dict adjacency) answers
exactly as the pydantic objects and the ``networkx.Graph`` it replaced: checked against a
networkx reference built from the stored relations, on varied graphs, after writes, deletes
and a reload from disk."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from kg_rag.models import Entity, Mention, Relation
from kg_rag.stores import ppr
from kg_rag.stores.embedded import EmbeddedGraphStore

GraphSpec = tuple[list[str], list[tuple[str, str, str, float, list[str]]]]


def _star() -> GraphSpec:
    nodes = [f"e{i}" for i in range(12)]
    edges = [("e0", n, "HUB", 1.0 + i / 10, [f"c{i % 3}"]) for i, n in enumerate(nodes[1:8])]
    edges += [("e8", "e9", "PAIR", 2.0, ["c3"])]  # e10, e11 stay isolated
    return nodes, edges


def _parallel() -> GraphSpec:
    # Relations both ways between a pair, several types on a pair, a self-loop, a cycle.
    nodes = ["a", "b", "c", "d", "e"]
    edges = [
        ("a", "b", "X", 1.0, ["c0"]),
        ("b", "a", "X", 0.5, ["c1"]),
        ("a", "b", "Y", 0.25, ["c0", "c2"]),
        ("b", "c", "X", 1.0, ["c1"]),
        ("c", "c", "SELF", 3.0, ["c2"]),
        ("c", "d", "Z", 1.0, ["c2"]),
        ("d", "a", "Z", 2.0, ["c3"]),
        ("d", "e", "X", 0.0, ["c3"]),
    ]
    return nodes, edges


def _random(seed: int) -> Callable[[], GraphSpec]:
    def build() -> GraphSpec:
        rng = random.Random(seed)
        nodes = [f"n{i:02d}" for i in range(30)]
        edges = []
        for _ in range(70):
            a, b = rng.choice(nodes), rng.choice(nodes)
            chunks = sorted({f"c{rng.randrange(8)}" for _ in range(rng.randrange(1, 3))})
            edges.append((a, b, rng.choice(["R", "S", "T"]), round(rng.random(), 3), chunks))
        return nodes, edges

    return build


GRAPHS = {"star": _star, "parallel": _parallel, "random1": _random(1), "random2": _random(2)}


def _fill(store: EmbeddedGraphStore, spec: GraphSpec) -> None:
    nodes, edges = spec
    store.upsert_entities(
        [
            # The shared alias makes name keys that index several entities.
            Entity(
                entity_id=n,
                name=f"Name {n}",
                type="PERSON",
                aliases=[f"{n} alias", f"group {i % 3}"],
            )
            for i, n in enumerate(nodes)
        ]
    )
    store.upsert_relations(
        [
            Relation(source_id=a, target_id=b, type=t, weight=w, evidence=ev)
            for a, b, t, w, ev in edges
        ]
    )
    chunks = sorted({c for *_, ev in edges for c in ev})
    store.upsert_mentions(
        [
            Mention(entity_id=n, chunk_id=c, doc_id=f"d{int(c[1:]) % 3}")
            for i, n in enumerate(nodes)
            for c in chunks[i % len(chunks) : i % len(chunks) + 1]
        ]
    )


def _reference(store: EmbeddedGraphStore) -> Any:
    """The graph as the store used to hold it: an undirected networkx.Graph whose edges carry
    the set of keys of the relations between the two entities."""
    graph = nx.Graph()
    graph.add_nodes_from(e.entity_id for e in store.all_entities())
    for r in store.all_relations():
        key = (r.source_id, r.type, r.target_id)
        if graph.has_edge(r.source_id, r.target_id):
            graph[r.source_id][r.target_id]["keys"].add(key)
        else:
            graph.add_edge(r.source_id, r.target_id, keys={key})
    return graph


def _expected(store: EmbeddedGraphStore, graph: Any) -> dict[str, Any]:
    relations = {(r.source_id, r.type, r.target_id): r for r in store.all_relations()}
    nodes = sorted(graph.nodes)

    def expand(frontier: list[str], seen: Any = (), budget: int | None = None) -> set[str]:
        return {n for node in frontier for n in graph.adj[node]}

    def induced(ids: Any) -> list[tuple[str, str, str]]:
        return sorted(k for _, _, d in graph.subgraph(ids).edges(data=True) for k in d["keys"])

    out: dict[str, Any] = {}
    for seed in nodes:
        for hops, limit in [(1, 200), (2, 200), (3, 4)]:
            selected = ppr.bfs_levels([seed], expand, hops, limit)
            out[f"hood {seed} {hops} {limit}"] = (
                sorted(selected),
                [relations[k] for k in induced(selected)],
            )
        scope = ppr.bfs_levels([seed], expand, 3)
        edges = [(k[0], k[2], k[1], relations[k].weight) for k in induced(scope)]
        out[f"ppr {seed}"] = ppr.personalized_pagerank(scope, edges, {seed: 1.0}, 0.85, 50)
        whole = [(k[0], k[2], k[1], r.weight) for k, r in relations.items()]
        out[f"ppr* {seed}"] = ppr.personalized_pagerank(nodes, whole, {seed: 1.0}, 0.85, 50)
        out[f"rels {seed}"] = [
            relations[k]
            for k in sorted({k for _, _, d in graph.edges(seed, data=True) for k in d["keys"]})
        ]
        for target in nodes[::3]:

            def types(a: str, b: str) -> list[str]:
                return sorted({k[1] for k in graph[a][b]["keys"]})

            out[f"paths {seed} {target}"] = ppr.lexicographic_shortest_paths(
                seed, target, lambda n: graph.adj[n], types, 4, 10
            )
    return out


def _actual(store: EmbeddedGraphStore) -> dict[str, Any]:
    nodes = sorted(e.entity_id for e in store.all_entities())
    out: dict[str, Any] = {}
    for seed in nodes:
        for hops, limit in [(1, 200), (2, 200), (3, 4)]:
            sub = store.neighbourhood([seed], hops=hops, limit=limit)
            out[f"hood {seed} {hops} {limit}"] = (
                [e.entity_id for e in sub.entities],
                sub.relations,
            )
        out[f"ppr {seed}"] = store.personalized_pagerank({seed: 1.0}, max_hops=3)
        out[f"ppr* {seed}"] = store.personalized_pagerank({seed: 1.0}, max_hops=None)
        out[f"rels {seed}"] = store.relations_of([seed])
        for target in nodes[::3]:
            out[f"paths {seed} {target}"] = store.paths(seed, target, max_hops=4)
    return out


def _names(store: EmbeddedGraphStore, nodes: list[str]) -> dict[str, list[str]]:
    """What the name indexes answer for every entity ever written (deleted ones too)."""
    out: dict[str, list[str]] = {}
    for i, n in enumerate(nodes):
        for text in [f"Name {n}", f"group {i % 3}"]:
            keys, compact = ppr.lookup_keys(text, [])
            out[f"named {text}"] = [e.entity_id for e in store.entities_named(keys, [compact])]
            out[f"find {text}"] = [e.entity_id for e in store.find_entities(text, limit=50)]
    return out


def _expected_names(store: EmbeddedGraphStore, nodes: list[str]) -> dict[str, list[str]]:
    """:func:`_names` by a scan of the stored entities."""
    entities = store.all_entities()
    out: dict[str, list[str]] = {}
    for i, n in enumerate(nodes):
        for text in [f"Name {n}", f"group {i % 3}"]:
            keys, compact = ppr.lookup_keys(text, [])
            out[f"named {text}"] = [
                e.entity_id
                for e in entities
                if set(ppr.lookup_keys(e.name, e.aliases)[0]) & set(keys)
                or ppr.lookup_keys(e.name, [])[1] == compact
            ]
            ranked = ppr.rank_name_matches(text, entities, 50)
            out[f"find {text}"] = [e.entity_id for e in ranked]
    return out


def _same_networkx(a: Any, b: Any) -> bool:
    def edges(g: Any) -> list[Any]:
        return sorted((min(u, v), max(u, v), sorted(d.items())) for u, v, d in g.edges(data=True))

    return sorted(a.nodes(data=True)) == sorted(b.nodes(data=True)) and edges(a) == edges(b)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_reads_match_a_networkx_reference(tmp_path: Path, name: str) -> None:
    spec = GRAPHS[name]()
    with EmbeddedGraphStore(tmp_path / "kb") as store:
        _fill(store, spec)
        assert _actual(store) == _expected(store, _reference(store))
        assert _names(store, spec[0]) == _expected_names(store, spec[0])
        # Deletes drop relations pair by pair; what is left must still agree. The second
        # document holds evidence of relations that went with the deleted entities.
        store.delete_document("d1")
        store.delete_entities([spec[0][1], spec[0][-1]])
        store.delete_document("d2")
        assert len(store.all_relations()) > 0
        graph = _reference(store)
        after = _actual(store)
        assert after == _expected(store, graph)
        names = _names(store, spec[0])
        assert names == _expected_names(store, spec[0])
        entities = store.all_entities()
        export = ppr.build_networkx(
            [(e.entity_id, e.name, e.type) for e in entities],
            [(r.source_id, r.target_id, r.type, r.weight) for r in store.all_relations()],
        )
        assert _same_networkx(store.to_networkx(), export)
    with EmbeddedGraphStore(tmp_path / "kb") as store:  # loaded from disk
        assert _actual(store) == after
        assert _names(store, spec[0]) == names
        assert _same_networkx(store.to_networkx(), export)


def test_reads_build_equal_fresh_pydantic_objects(tmp_path: Path) -> None:
    entity = Entity(
        entity_id="e1",
        name="Ada Lovelace",
        type="PERSON",
        aliases=["Ada", "Countess of Lovelace"],
        description="a mathematician",
        vector=[0.1, 0.2, 0.30000000000000004],
    )
    other = Entity(entity_id="e2", name="Charles Babbage", type="PERSON")
    relation = Relation(
        source_id="e1",
        target_id="e2",
        type="WORKED_WITH",
        description="engine notes",
        weight=0.75,
        evidence=["c2", "c1"],
    )
    stored = relation.model_copy(update={"evidence": ["c1", "c2"]})
    with EmbeddedGraphStore(tmp_path / "kb") as store:
        store.upsert_entities([entity, other])
        store.upsert_relations([relation])
        reads = [store.get_entities(["e1", "e2"]), store.all_entities()]
        assert all(found == [entity, other] for found in reads)
        assert store.all_relations() == [stored]
        assert store.relations_of(["e2"]) == [stored]
        sub = store.neighbourhood(["e1"])
        assert sub.entities == [entity.model_copy(update={"vector": None}), other]
        assert sub.relations == [stored]
        assert store.find_entities("Ada Lovelace") == [entity]
        assert store.entities_named(["ada"]) == [entity.model_copy(update={"vector": None})]
        # Each read builds its own objects: changing one changes neither the store nor the
        # next read.
        first = store.get_entities(["e1"])[0]
        first.aliases.append("changed")
        assert first.vector is not None
        first.vector[0] = 9.0
        store.all_relations()[0].evidence.append("c9")
        assert store.get_entities(["e1"]) == [entity]
        assert store.all_relations() == [stored]
    with EmbeddedGraphStore(tmp_path / "kb") as store:  # the same after a reload
        assert store.all_entities() == [entity, other]
        assert store.all_relations() == [stored]
        vector = store.get_entities(["e1"])[0].vector
        assert vector == entity.vector and all(type(x) is float for x in vector or [])


def _stored(mapping: Any, value: str) -> str:
    """The key object of ``mapping`` equal to ``value``."""
    return next(k for k in mapping if k == value)


def _assert_one_string_per_id(store: EmbeddedGraphStore) -> None:
    source, type_, target = next(iter(store._relations))
    assert source is _stored(store._entities, "ent0")
    assert target is _stored(store._entities, "ent1")
    assert _stored(store._adj, "ent1") is target and _stored(store._adj["ent0"], "ent1") is target
    assert _stored(store._entity_chunks, "ent1") is target
    chunk = _stored(store._chunks, "ch1")
    assert store._relations[(source, type_, target)].evidence[0] is chunk
    assert _stored(store._evidence_index, "ch1") is chunk
    assert next(iter(store._entity_chunks["ent1"])) is chunk
    assert _stored(store._chunk_entities, "ch1") is chunk


def test_repeated_ids_are_one_string_in_memory(tmp_path: Path) -> None:
    # Ids built at run time (not literals, which Python shares anyway) arrive as distinct
    # string objects from each batch and from disk.
    def fresh(*parts: str) -> str:
        return "".join(parts)

    with EmbeddedGraphStore(tmp_path / "kb") as store:
        store.upsert_entities(
            [Entity(entity_id=fresh("ent", str(i)), name=f"N{i}") for i in range(3)]
        )
        store.upsert_relations(
            [
                Relation(
                    source_id=fresh("ent", "0"),
                    target_id=fresh("ent", "1"),
                    evidence=[fresh("ch", "1")],
                )
            ]
        )
        store.upsert_mentions(
            [Mention(entity_id=fresh("ent", "1"), chunk_id=fresh("ch", "1"), doc_id="d")]
        )
        _assert_one_string_per_id(store)
    with EmbeddedGraphStore(tmp_path / "kb") as store:  # loaded from disk
        _assert_one_string_per_id(store)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("limit", [1, 3, 7, 40])
def test_similar_entities_equal_a_full_sort(tmp_path: Path, seed: int, limit: int) -> None:
    """Only the rows that can reach the top ``limit`` are sorted; the result equals sorting
    every entity by rounded similarity then id, ties at the cut included (vectors drawn from
    a few values, so many entities tie)."""
    rng = random.Random(seed)
    store = EmbeddedGraphStore(tmp_path / "kb")
    store.open()
    vectors = {f"e{i:02d}": [float(rng.choice([0, 1, 2])) for _ in range(4)] for i in range(30)}
    vectors["e30"] = [0.0, 0.0, 0.0, 0.0]  # no direction: similarity 0
    store.upsert_entities(
        [Entity(entity_id=k, name=f"N {k}", vector=v) for k, v in vectors.items()]
    )
    query = [1.0, 2.0, 0.5, 1.0]

    def cosine(v: list[float]) -> float:
        nv = sum(x * x for x in v) ** 0.5 or 1.0
        nq = sum(x * x for x in query) ** 0.5
        return sum(a * b for a, b in zip(v, query, strict=True)) / (nv * nq)

    want = sorted(vectors, key=lambda k: (-round(cosine(vectors[k]), 6), k))[:limit]
    got = store.similar_entities(query, limit=limit)
    assert [e.entity_id for e, _ in got] == want
    for e, score in got:
        assert score == pytest.approx(cosine(vectors[e.entity_id]), abs=1e-6)
