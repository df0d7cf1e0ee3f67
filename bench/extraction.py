"""Offline extraction on a multi-hop corpus: speed, graph size, and how well it links questions.

Usage::

    nice python bench/extraction.py --data /work/shared/bench/musique-dev

The corpus folder holds ``corpus.jsonl`` (``id``, ``title``, ``text``) and ``questions.jsonl``
(``question``, ``supporting_ids``). Passages are extracted with :class:`OfflineExtractor`
(title as context), resolved with :class:`EntityResolver`, and questions are run through the
same extractor. Printed:

* throughput and graph size: passages/s, entities and relations per passage, resolved
  entities, merges by reason;
* **coverage** (the usefulness proxy): per question, the fraction of its supporting passages
  that share at least one entity name (or alias) with the entities found in the question;
  also how many corpus passages share one (noise);
* **overlap R@k**: passages ranked by the IDF-weighted entity names they share with the question;
* **ppr R@k**: personalized PageRank over the resolved co-occurrence graph seeded with the
  question's entities (IDF-weighted), passages ranked by the PageRank mass of their entities
  (summed, or each entity's mass spread over the passages that mention it);
* **bm25 R@k** on title + text, as a reference point without any graph.

Not part of the test suite; prints tables only.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import cast

import numpy as np
import scipy.sparse as sp

# Run as a script, this file's folder leads sys.path and its name would shadow the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from extraction import ChunkInput, EntityResolver, OfflineExtractor, normalize_name  # noqa: E402
from extraction.schema import ChunkExtraction, ExtractedEntity  # noqa: E402


def _load(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _names(entities: list[ExtractedEntity]) -> set[str]:
    keys: set[str] = set()
    for entity in entities:
        for name in (entity.name, *entity.aliases):
            key = normalize_name(name)
            if key:
                keys.add(key)
    return keys


def _table(rows: list[tuple[str, str]], title: str) -> None:
    width = max(len(k) for k, _ in rows)
    print(f"\n{title}")
    print("-" * (width + 14))
    for key, value in rows:
        print(f"{key:<{width}}  {value:>10}")


def _ppr(
    matrix: sp.csr_matrix, seeds: dict[int, float], damping: float = 0.85, iters: int = 50
) -> np.ndarray:
    n = matrix.shape[0]
    restart = np.zeros(n)
    for idx, weight in seeds.items():
        restart[idx] += weight
    restart /= restart.sum()
    scores = restart.copy()
    for _ in range(iters):
        new = damping * (matrix @ scores) + (1 - damping) * restart
        if np.abs(new - scores).sum() < 1e-8:
            return np.asarray(new)
        scores = new
    return np.asarray(scores)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/bench/musique-dev"))
    parser.add_argument("--limit", type=int, default=0, help="passages to use (0 = all)")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--no-dates", action="store_true", help="drop DATE entities")
    parser.add_argument("--title-weight", type=float, default=0.5)
    parser.add_argument("--max-distance", type=int, default=30, help="max words between pairs")
    parser.add_argument("--damping", type=float, default=0.85, help="PageRank damping")
    args = parser.parse_args(argv)

    corpus = _load(args.data / "corpus.jsonl")
    questions = _load(args.data / "questions.jsonl")
    if args.limit:
        corpus = corpus[: args.limit]
    types = ["PERSON", "ORGANIZATION", "LOCATION", "EVENT", "WORK", "CONCEPT"]
    if not args.no_dates:
        types.append("DATE")
    extractor = OfflineExtractor(
        entity_types=types,
        title_weight=args.title_weight,
        max_pair_distance=args.max_distance,
        show_progress=False,
    )
    chunks = [
        ChunkInput(chunk_id=str(p["id"]), text=str(p["text"]), title=str(p["title"]))
        for p in corpus
    ]
    extractor.find_entities("Warm up the tokenizer (and jieba if needed).")
    start = time.perf_counter()
    extractions: list[ChunkExtraction] = extractor.extract(chunks)
    extract_s = time.perf_counter() - start

    start = time.perf_counter()
    result = EntityResolver().resolve(extractions)
    resolve_s = time.perf_counter() - start

    n = len(chunks)
    per_entities = [len(x.entities) for x in extractions]
    per_relations = [len(x.relations) for x in extractions]
    type_counts = Counter(e.type for e in result.entities)
    merge_counts = Counter(m.reason for m in result.merges)
    _table(
        [
            ("passages", f"{n}"),
            ("errors", f"{sum(1 for x in extractions if x.error)}"),
            ("extract seconds", f"{extract_s:.2f}"),
            ("passages / s", f"{n / extract_s:.0f}"),
            ("entities / passage", f"{statistics.mean(per_entities):.1f}"),
            ("relations / passage", f"{statistics.mean(per_relations):.1f}"),
            ("resolve seconds", f"{resolve_s:.2f}"),
            ("resolved entities", f"{len(result.entities)}"),
            ("resolved relations", f"{len(result.relations)}"),
            *((f"merges: {r}", f"{c}") for r, c in sorted(merge_counts.items())),
            *((f"type {t}", f"{c}") for t, c in sorted(type_counts.items())),
        ],
        "Offline extraction",
    )

    # Passage → entity names (for the overlap proxies) and → resolved entity ids (for PPR).
    passage_keys = {x.chunk_id: _names(x.entities) for x in extractions}
    df: Counter[str] = Counter(k for keys in passage_keys.values() for k in keys)
    idf = {k: math.log(n / c) for k, c in df.items()}
    index = {e.entity_id: i for i, e in enumerate(result.entities)}
    by_name: dict[str, set[int]] = defaultdict(set)
    for entity in result.entities:
        for name in (entity.name, *entity.aliases):
            by_name[normalize_name(name)].add(index[entity.entity_id])
    rows, cols, vals = [], [], []
    for rel in result.relations:
        a, b = index[rel.source_id], index[rel.target_id]
        rows += [a, b]
        cols += [b, a]
        vals += [rel.weight, rel.weight]
    adjacency = sp.csr_matrix((vals, (rows, cols)), shape=(len(index), len(index)))
    out_weight = np.asarray(adjacency.sum(axis=0)).ravel()
    out_weight[out_weight == 0] = 1.0
    transition = (adjacency @ sp.diags(1.0 / out_weight)).tocsr()
    entity_passages: dict[int, list[str]] = defaultdict(list)
    for entity in result.entities:
        for chunk_id in entity.mentions:
            entity_passages[index[entity.entity_id]].append(chunk_id)
    passage_ids = [c.chunk_id for c in chunks]
    known = set(passage_ids)

    # Reference point: BM25 over title + text, same questions.
    from rank_bm25 import BM25Okapi

    def tokens(text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    bm25 = BM25Okapi([tokens(f"{p['title']} {p['text']}") for p in corpus])
    bm25_hits: list[float] = []

    coverage, any_cov, all_cov, linked, noise, overlap_hits = [], [], [], [], [], []
    ppr_hits: dict[str, list[float]] = {"sum": [], "spread": []}
    start = time.perf_counter()
    for q in questions:
        gold = [str(g) for g in cast("list[object]", q["supporting_ids"]) if g in known]
        if not gold:
            continue
        bm25_scores = bm25.get_scores(tokens(str(q["question"])))
        bm25_top = {passage_ids[i] for i in np.argsort(-bm25_scores, kind="stable")[: args.k]}
        bm25_hits.append(len(bm25_top & set(gold)) / len(gold))
        q_keys = _names(extractor.find_entities(str(q["question"])))
        shared = [g for g in gold if passage_keys[g] & q_keys]
        coverage.append(len(shared) / len(gold))
        any_cov.append(1.0 if shared else 0.0)
        all_cov.append(1.0 if len(shared) == len(gold) else 0.0)
        noise.append(sum(1 for keys in passage_keys.values() if keys & q_keys))
        scores = {pid: sum(idf[k] for k in passage_keys[pid] & q_keys) for pid in passage_ids}
        top = sorted(passage_ids, key=lambda p: (-scores[p], p))[: args.k]
        overlap_hits.append(len(set(top) & set(gold)) / len(gold))
        seeds: dict[int, float] = {}
        for key in q_keys:
            for idx in by_name.get(key, ()):
                seeds[idx] = seeds.get(idx, 0.0) + idf.get(key, 1.0)
        linked.append(1.0 if seeds else 0.0)
        mass = _ppr(transition, seeds, damping=args.damping) if seeds else None
        for variant in ("sum", "spread"):
            if mass is None:
                ppr_hits[variant].append(0.0)
                continue
            pscore: dict[str, float] = defaultdict(float)
            for idx, pids in entity_passages.items():
                # "spread": an entity's mass is shared among the passages that mention it.
                share = mass[idx] / (len(pids) if variant == "spread" else 1)
                for pid in pids:
                    pscore[pid] += share
            top = sorted(passage_ids, key=lambda p: (-pscore.get(p, 0.0), p))[: args.k]
            ppr_hits[variant].append(len(set(top) & set(gold)) / len(gold))
    query_s = time.perf_counter() - start

    _table(
        [
            ("questions", f"{len(coverage)}"),
            ("questions with a linked entity", f"{statistics.mean(linked):.3f}"),
            ("coverage (mean frac. of gold sharing)", f"{statistics.mean(coverage):.3f}"),
            ("questions: >=1 gold shares", f"{statistics.mean(any_cov):.3f}"),
            ("questions: all gold share", f"{statistics.mean(all_cov):.3f}"),
            ("passages sharing per question (noise)", f"{statistics.mean(noise):.1f}"),
            (f"overlap R@{args.k}", f"{statistics.mean(overlap_hits):.3f}"),
            (
                f"ppr R@{args.k} (passage = sum of entity mass)",
                f"{statistics.mean(ppr_hits['sum']):.3f}",
            ),
            (
                f"ppr R@{args.k} (mass spread over passages)",
                f"{statistics.mean(ppr_hits['spread']):.3f}",
            ),
            (f"bm25 R@{args.k} (reference, no graph)", f"{statistics.mean(bm25_hits):.3f}"),
            ("query seconds (all)", f"{query_s:.2f}"),
        ],
        "Usefulness for multi-hop linking",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
