"""Benchmark of the community layer. Not part of the test suite; prints tables.

1. **Leiden wall time** of :func:`communities.detect_communities` on seeded synthetic graphs
   of about 10k / 50k / 100k edges (power-law cluster graphs with string ids, random weights,
   inserted in shuffled order), against ``graspologic_native.hierarchical_leiden`` called
   directly on the same edge list. Also shown: native on an edge list made by hand from the
   networkx graph (what "calling native directly on the graph" costs) and graspologic's Python
   wrapper ``graspologic.partition.hierarchical_leiden``. Runs are interleaved; medians.
2. **LLM summary calls** for a full build vs a re-ingest where one document changed
   (content only, and content plus one relation), counted on ``kg_rag.testing.FakeChatModel``.

Run: ``nice .venv/bin/python bench/communities.py [--sizes 10000 50000 100000] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import random
import statistics
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# This script is named like the package it measures: keep its own folder off the import path,
# or ``import communities`` would import this file.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import graspologic_native as gn  # noqa: E402
import networkx as nx  # noqa: E402

from communities import (  # noqa: E402
    CommunityRecord,
    EntityInfo,
    LLMSummarizer,
    RelationInfo,
    detect_communities,
    update_communities,
)
from communities.leiden import _canonical_edges  # noqa: E402
from kg_rag.models import Community  # noqa: E402
from kg_rag.testing import FakeChatModel  # noqa: E402

# ---------------------------------------------------------------------------------------
# 1. Leiden wall time


def synthetic_graph(edges_wanted: int, seed: int) -> nx.Graph:
    """A power-law cluster graph with about ``edges_wanted`` edges, string ids, weights 1-3,
    built in shuffled order (as an ingest would)."""
    m = 5
    base = nx.powerlaw_cluster_graph(max(m + 1, edges_wanted // m), m, 0.3, seed=seed)
    rng = random.Random(seed)
    edges = [
        (f"entity-{u:06d}", f"entity-{v:06d}", float(rng.randint(1, 3))) for u, v in base.edges
    ]
    rng.shuffle(edges)
    graph = nx.Graph()
    graph.add_weighted_edges_from(edges)
    return graph


def _time(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call; CPU time is what machine load disturbs least."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_leiden(sizes: list[int], repeats: int, max_cluster_size: int, wrapper: bool) -> None:
    print(
        f"\n## Leiden wall time (median of {repeats} interleaved runs; "
        f"max_cluster_size={max_cluster_size}, seed=42)\n"
    )
    print(
        "native = graspologic_native.hierarchical_leiden on the edge list detect_communities "
        "builds;\nby hand = native on `[(str(u), str(v), float(w)) for u, v, w in "
        "graph.edges(data='weight')]`, list building included;\nratios use medians of wall "
        "time, and (in brackets) minimums of process CPU time, which machine load disturbs "
        "least.\n"
    )
    header = (
        "| edges | nodes | communities | levels | native (s) | by hand (s) "
        + ("| graspologic wrapper (s) " if wrapper else "")
        + "| detect_communities (s) | ratio vs native | ratio vs by hand |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    wrapper_fn: Callable[..., Any] | None = None
    if wrapper:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from graspologic.partition import hierarchical_leiden

        wrapper_fn = hierarchical_leiden
    for size in sizes:
        graph = synthetic_graph(size, seed=size)
        row = _leiden_row(graph, repeats, max_cluster_size, wrapper_fn)
        print(row, flush=True)


def _leiden_row(
    graph: nx.Graph,
    repeats: int,
    max_cluster_size: int,
    wrapper_fn: Callable[..., Any] | None,
) -> str:
    _, canonical = _canonical_edges(graph, "weight")

    def native() -> None:
        gn.hierarchical_leiden(edges=canonical, max_cluster_size=max_cluster_size, seed=42)

    def by_hand() -> None:
        edges = [(str(u), str(v), float(w)) for u, v, w in graph.edges(data="weight", default=1.0)]
        gn.hierarchical_leiden(edges=edges, max_cluster_size=max_cluster_size, seed=42)

    def ours() -> list[CommunityRecord]:
        return detect_communities(graph, max_cluster_size=max_cluster_size, seed=42)

    runs: dict[str, Callable[[], Any]] = {"native": native, "by_hand": by_hand, "ours": ours}
    if wrapper_fn is not None:
        runs["wrapper"] = lambda: wrapper_fn(
            graph, max_cluster_size=max_cluster_size, random_seed=42
        )
    walls: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    ours()  # warm up (first call imports the extension)
    for i in range(repeats):
        names = list(runs)
        # Rotate the order so drift in machine load hits every method alike.
        names = names[i % len(names) :] + names[: i % len(names)]
        for name in names:
            wall, cpu = _time(runs[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
    med = {k: statistics.median(v) for k, v in walls.items()}
    low = {k: min(v) for k, v in cpus.items()}
    records = ours()
    return (
        f"| {len(canonical):,} | {graph.number_of_nodes():,} | {len(records):,} "
        f"| {len({r.level for r in records})} | {med['native']:.3f} | {med['by_hand']:.3f} "
        + (f"| {med['wrapper']:.3f} " if wrapper_fn is not None else "")
        + f"| {med['ours']:.3f} "
        f"| {med['ours'] / med['native']:.2f} ({low['ours'] / low['native']:.2f}) "
        f"| {med['ours'] / med['by_hand']:.2f} ({low['ours'] / low['by_hand']:.2f}) |"
    )


# ---------------------------------------------------------------------------------------
# 2. LLM summary calls: full build vs re-ingest with one changed document


@dataclass
class Corpus:
    """Synthetic documents over topics; each mentions a few entities and relates them."""

    docs: dict[str, list[tuple[str, str]]]  # doc id → relations (source, target) it states
    texts: dict[str, str]  # doc id → version marker (changes when the document changes)


def synthetic_corpus(topics: int, per_topic: int, docs: int, seed: int) -> Corpus:
    rng = random.Random(seed)
    pool = {t: [f"t{t:02d}-e{i:02d}" for i in range(per_topic)] for t in range(topics)}
    out: dict[str, list[tuple[str, str]]] = {}
    for d in range(docs):
        topic = rng.randrange(topics)
        mentioned = rng.sample(pool[topic], k=rng.randint(3, 5))
        if rng.random() < 0.15:  # a cross-topic mention links the topics loosely
            mentioned.append(rng.choice(pool[rng.randrange(topics)]))
        out[f"doc{d:04d}"] = [(a, b) for a, b in itertools.pairwise(mentioned) if a != b]
    return Corpus(docs=out, texts={d: "v1" for d in out})


def knowledge(corpus: Corpus) -> tuple[list[EntityInfo], list[RelationInfo]]:
    """Entities and relations as extraction + resolution would merge them from the corpus."""
    snippets: dict[str, list[str]] = defaultdict(list)
    evidence: dict[tuple[str, str], list[str]] = defaultdict(list)
    for doc, pairs in sorted(corpus.docs.items()):
        version = corpus.texts[doc]
        for a, b in pairs:
            key = (min(a, b), max(a, b))
            evidence[key].append(f"In {doc} ({version}), {a} works with {b}.")
            for e in (a, b):
                line = f"{e} appears in {doc} ({version})."
                if line not in snippets[e]:
                    snippets[e].append(line)
    entities = [
        EntityInfo(entity_id=e, name=e.upper(), type="THING", description=" ".join(lines)[:400])
        for e, lines in sorted(snippets.items())
    ]
    relations = [
        RelationInfo(
            source_id=a, target_id=b, type="WORKS_WITH", weight=float(len(ev)), evidence=ev[:3]
        )
        for (a, b), ev in sorted(evidence.items())
    ]
    return entities, relations


def communities_of(relations: list[RelationInfo]) -> list[CommunityRecord]:
    graph = nx.Graph()
    for r in relations:
        graph.add_edge(r.source_id, r.target_id, weight=r.weight)
    return detect_communities(graph, max_cluster_size=10, seed=42)


def bench_summaries(seed: int) -> None:
    report = json.dumps({"title": "T", "summary": "S.", "findings": ["F."], "rating": 5})
    fake = FakeChatModel(script=[(r"community report", report)])
    corpus = synthetic_corpus(topics=30, per_topic=20, docs=400, seed=seed)
    entities, relations = knowledge(corpus)
    records = communities_of(relations)
    summarizer = LLMSummarizer(fake, progress=False)
    start = time.perf_counter()
    full = update_communities(records, entities, relations, summarizer)
    full_s = time.perf_counter() - start
    hashes = {p.community_id: p.content_hash for p in full.fingerprints}
    stored = [
        Community(
            community_id=r.community_id,
            level=r.level,
            members=r.members,
            content_hash=hashes[r.community_id],
        )
        for r in records
    ]
    full_calls = len(fake.calls)

    print(
        f"\n## LLM summary calls (FakeChatModel; {len(corpus.docs)} documents, {len(entities)} entities, {len(relations)} relations)\n"
    )
    print(
        "| scenario | communities | levels | summarized | unchanged | removed | LLM calls | share of full build |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| full build | {len(records)} | {len({r.level for r in records})} | {len(full.plan.to_summarize)} "
        f"| 0 | 0 | {full_calls} | 100% |"
    )
    rng = random.Random(seed + 1)
    changed_docs = rng.sample(sorted(corpus.docs), k=5)

    def scenario(name: str, edit: Callable[[Corpus, str], None]) -> None:
        calls, summarized, unchanged, removed, comms = [], [], [], [], []
        for doc in changed_docs:
            edited = Corpus(
                docs={k: list(v) for k, v in corpus.docs.items()}, texts=dict(corpus.texts)
            )
            edit(edited, doc)
            ents, rels = knowledge(edited)
            recs = communities_of(rels)
            fake.reset()
            upd = update_communities(
                recs, ents, rels, LLMSummarizer(fake, progress=False), previous=stored
            )
            calls.append(len(fake.calls))
            summarized.append(len(upd.plan.to_summarize))
            unchanged.append(len(upd.plan.unchanged))
            removed.append(len(upd.plan.removed))
            comms.append(len(recs))
        med = statistics.median
        print(
            f"| {name} (median of {len(changed_docs)} docs; calls min–max {min(calls)}–{max(calls)}) "
            f"| {med(comms):.0f} | – | {med(summarized):.0f} | {med(unchanged):.0f} | {med(removed):.0f} "
            f"| {med(calls):.0f} | {100 * med(calls) / full_calls:.1f}% |"
        )

    def content_only(c: Corpus, doc: str) -> None:
        c.texts[doc] = "v2"

    def content_and_relation(c: Corpus, doc: str) -> None:
        c.texts[doc] = "v2"
        pairs = c.docs[doc]
        # The new version states one relation more, between two entities it already mentions.
        ends = sorted({e for p in pairs for e in p})
        if len(ends) >= 3:
            c.docs[doc] = [*pairs, (ends[0], ends[-1])]

    scenario("re-ingest, one document's text changed", content_only)
    scenario("re-ingest, one document changed + 1 relation", content_and_relation)
    print(f"\n(full build with the fake model took {full_s:.2f}s)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-cluster-size", type=int, default=10)
    parser.add_argument(
        "--no-wrapper", action="store_true", help="skip graspologic's Python wrapper"
    )
    parser.add_argument("--skip-leiden", action="store_true")
    parser.add_argument("--skip-summaries", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if not args.skip_leiden:
        bench_leiden(args.sizes, max(3, args.repeats), args.max_cluster_size, not args.no_wrapper)
    if not args.skip_summaries:
        bench_summaries(args.seed)


if __name__ == "__main__":
    main()
