"""Graph-store benchmark. Not part of the test suite; prints tables.

1. **Neo4j writes**: the same entities and relations written with one auto-commit ``MERGE``
   per row, versus :class:`Neo4jGraphStore`'s batched ``UNWIND $rows … MERGE`` (1000 rows a
   transaction). Acceptance: batched ≥ 10 × per-row.
2. **Query latency** on a synthetic preferential-attachment graph (50k entities, ~100k
   relations, hubs like a real extracted graph) in both stores: neighbourhood (1 and 2 hops),
   shortest paths (≤ 3 hops), personalized PageRank (1-, 2-, 3-hop scope and whole graph),
   name lookup. Same queries on both stores; p50 / p95 in milliseconds, and whether both
   stores returned the same answers.

**It wipes the Neo4j database it connects to** (``KG_RAG_NEO4J__*`` settings). ``--no-neo4j``
runs the embedded store alone.

Run: ``nice .venv/bin/python bench/graph.py [--entities 50000] [--queries 40]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table as table
from kg_rag.config import Settings
from kg_rag.models import Entity, Relation
from kg_rag.stores import queries
from kg_rag.stores.embedded import EmbeddedGraphStore

REL_TYPES = ["KNOWS", "PART_OF", "LOCATED_IN", "WORKS_FOR", "RELATED_TO"]
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "dun", "ar", "is", "os", "ul"]


def name(rng: random.Random, i: int) -> str:
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).title()
    return f"{word} {i}"


def synthetic(n_entities: int, m: int, seed: int) -> tuple[list[Entity], list[Relation]]:
    """Preferential attachment: each new entity links to ``m`` earlier ones picked in
    proportion to their degree (so a few hubs gather thousands of relations)."""
    rng = random.Random(seed)
    entities = [
        Entity(entity_id=f"e{i:06d}", name=name(rng, i), type="CONCEPT") for i in range(n_entities)
    ]
    targets: list[int] = list(range(m))
    relations: list[Relation] = []
    for i in range(m, n_entities):
        chosen: set[int] = set()
        while len(chosen) < m:
            chosen.add(rng.choice(targets))
        for j in sorted(chosen):
            relations.append(
                Relation(
                    source_id=f"e{i:06d}",
                    target_id=f"e{j:06d}",
                    type=rng.choice(REL_TYPES),
                    weight=round(rng.uniform(0.5, 2.0), 2),
                    evidence=[f"c{i // 5:06d}"],
                )
            )
            targets.extend([i, j])
    return entities, relations


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def wipe(driver: Any, database: str) -> None:
    while driver.execute_query(queries.WIPE_BATCH, {"batch": 20_000}, database_=database).records[
        0
    ]["n"]:
        pass


# ---------------------------------------------------------------------------------------
# 1. write throughput


def bench_writes(settings: Any, n_rows: int) -> None:
    from kg_rag.stores.neo4j import Neo4jGraphStore

    entities, relations = synthetic(n_rows, 1, seed=3)
    relations = relations[: n_rows - 1]
    store = Neo4jGraphStore(settings)
    store.open()
    driver, db = store.driver, settings.database
    results: list[list[Any]] = []
    try:
        wipe(driver, db)
        t_ent, _ = timed(
            lambda: [
                driver.execute_query(
                    queries.MERGE_ONE_ENTITY,
                    {"entity_id": e.entity_id, "name": e.name, "type": e.type, "description": ""},
                    database_=db,
                )
                for e in entities
            ]
        )
        t_rel, _ = timed(
            lambda: [
                driver.execute_query(
                    queries.MERGE_ONE_RELATION,
                    {
                        "source_id": r.source_id,
                        "target_id": r.target_id,
                        "type": r.type,
                        "weight": r.weight,
                        "description": "",
                        "evidence": r.evidence,
                    },
                    database_=db,
                )
                for r in relations
            ]
        )
        per_row = (len(entities) + len(relations)) / (t_ent + t_rel)
        results.append(
            ["per-row MERGE (auto-commit)", len(entities) / t_ent, len(relations) / t_rel, per_row]
        )
        wipe(driver, db)
        t_ent_b, _ = timed(lambda: store.upsert_entities(entities))
        t_rel_b, _ = timed(lambda: store.upsert_relations(relations))
        batched = (len(entities) + len(relations)) / (t_ent_b + t_rel_b)
        results.append(
            ["UNWIND batches of 1000", len(entities) / t_ent_b, len(relations) / t_rel_b, batched]
        )
        table(
            f"Neo4j writes: {len(entities):,} entities + {len(relations):,} relations (rows/s)",
            ["method", "entities/s", "relations/s", "overall/s"],
            results,
        )
        ratio = batched / per_row
        print(
            f"  batched / per-row = {ratio:.1f}x  (acceptance >= 10x: {'PASS' if ratio >= 10 else 'FAIL'})"
        )
    finally:
        wipe(driver, db)
        store.close()


# ---------------------------------------------------------------------------------------
# 2. query latency


def percentiles(samples: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return statistics.median(ms), p95


def bench_queries(
    stores: dict[str, Any], entities: list[Entity], n_queries: int, seed: int
) -> None:
    rng = random.Random(seed)
    ids = [e.entity_id for e in entities]
    seeds = [rng.choice(ids) for _ in range(n_queries)]
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(n_queries)]
    names = [rng.choice(entities).name.split()[0] for _ in range(n_queries)]
    workloads: list[tuple[str, int, Callable[[Any, int], Any]]] = [
        ("neighbourhood 1 hop", n_queries, lambda s, i: s.neighbourhood([seeds[i]], hops=1)),
        (
            "neighbourhood 2 hops (≤200)",
            n_queries,
            lambda s, i: s.neighbourhood([seeds[i]], hops=2),
        ),
        ("paths ≤3 hops", n_queries, lambda s, i: s.paths(*pairs[i], max_hops=3, limit=10)),
        (
            "PPR 1-hop scope",
            n_queries,
            lambda s, i: s.personalized_pagerank({seeds[i]: 1.0}, max_hops=1),
        ),
        (
            "PPR 2-hop scope",
            n_queries,
            lambda s, i: s.personalized_pagerank({seeds[i]: 1.0}, max_hops=2),
        ),
        (
            "PPR 3-hop scope (default)",
            max(5, n_queries // 4),
            lambda s, i: s.personalized_pagerank({seeds[i]: 1.0}, max_hops=3),
        ),
        (
            "PPR whole graph",
            max(3, n_queries // 8),
            lambda s, i: s.personalized_pagerank({seeds[i]: 1.0}, max_hops=None),
        ),
        ("find_entities", n_queries, lambda s, i: s.find_entities(names[i])),
    ]
    rows: list[list[Any]] = []
    for label, count, fn in workloads:
        answers: dict[str, list[Any]] = {}
        row: list[Any] = [label, count]
        for backend, store in stores.items():
            fn(store, 0)  # warm-up (plan caches, lazy structures)
            samples, outs = [], []
            for i in range(count):
                elapsed, out = timed(lambda store=store, i=i, fn=fn: fn(store, i))
                samples.append(elapsed)
                outs.append(out)
            answers[backend] = outs
            row.extend(percentiles(samples))
        if len(answers) == 2:
            left, right = answers.values()
            same = sum(1 for a, b in zip(left, right, strict=True) if _same(a, b))
            row.append(f"{same}/{count}")
        rows.append(row)
    header = ["query", "n"]
    for backend in stores:
        header += [f"{backend} p50 ms", f"{backend} p95 ms"]
    if len(stores) == 2:
        header.append("same answer")
    table(f"Query latency on {len(entities):,} entities", header, rows)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and a and isinstance(a[0], tuple) and isinstance(a[0][1], float):
        return [n for n, _ in a] == [n for n, _ in b] and all(
            abs(x - y) < 1e-6 for (_, x), (_, y) in zip(a, b, strict=True)
        )
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=50_000)
    parser.add_argument("--attach", type=int, default=2, help="relations added per new entity")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--write-rows", type=int, default=5_000)
    parser.add_argument("--no-neo4j", action="store_true")
    parser.add_argument("--skip-writes", action="store_true", help="skip the write benchmark")
    args = parser.parse_args()

    settings = Settings().neo4j
    use_neo4j = not args.no_neo4j
    if use_neo4j and settings.password is None:
        sys.exit("set KG_RAG_NEO4J__PASSWORD (or pass --no-neo4j)")
    if use_neo4j:
        print(f"Neo4j at {settings.uri} (database {settings.database!r} is wiped)")
        if not args.skip_writes:
            bench_writes(settings, args.write_rows)

    entities, relations = synthetic(args.entities, args.attach, seed=11)
    stores: dict[str, Any] = {}
    loads: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        embedded = EmbeddedGraphStore(Path(tmp) / "kb")
        embedded.open()
        t_e, _ = timed(lambda: embedded.upsert_entities(entities))
        t_r, _ = timed(lambda: embedded.upsert_relations(relations))
        embedded.close()
        t_open, _ = timed(embedded.open)
        loads.append(["embedded", t_e, t_r, t_open])
        stores["embedded"] = embedded
        if use_neo4j:
            from kg_rag.stores.neo4j import Neo4jGraphStore

            neo = Neo4jGraphStore(settings)
            neo.open()
            wipe(neo.driver, settings.database)
            t_e, _ = timed(lambda: neo.upsert_entities(entities))
            t_r, _ = timed(lambda: neo.upsert_relations(relations))
            loads.append(["neo4j", t_e, t_r, 0.0])
            stores["neo4j"] = neo
        table(
            f"Loading {len(entities):,} entities and {len(relations):,} relations (seconds)",
            ["store", "entities", "relations", "reopen"],
            [[r[0], *[f"{x:.2f}" for x in r[1:]]] for r in loads],
        )
        try:
            bench_queries(stores, entities, args.queries, seed=5)
        finally:
            for store in stores.values():
                if store.backend == "neo4j":
                    wipe(store.driver, settings.database)
                store.close()


if __name__ == "__main__":
    main()
