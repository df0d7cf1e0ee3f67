"""Fusion variants measured offline on the engine's own candidate lists.

For every question the engine's inputs to fusion are computed once and pickled: the
whole-question hybrid list, the PPR chunk list from the linked entities and, from a full
``ask`` run, the chunks the answer cites. Fusion variants (pure functions of
those lists, :mod:`kg_rag.retrieval.fusion`) are then scored in milliseconds, so a grid can be
read on both dev sets. The gold ids are read only by :func:`bench._common.recall_at_k`.

Run: ``nice .venv/bin/python bench/fusion_tune.py --data ../shared/bench/musique-dev
--kb-cache /tmp/kbcache --pickle /tmp/musique.pkl`` (uses the same knowledge-base cache as
``bench/retrieval.py``; the pickle is reused when it exists). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import BenchContext, load_dataset, print_table, recall_at_k, unique
from bench.engine_systems import _engine
from bench.retrieval import LocalMiniLMEmbeddings, cached_kb
from kg_rag.models import Evidence
from kg_rag.retrieval.fusion import fuse_final, fuse_whole_question, rrf

LIST_SIZE = 100


def precompute(data: Path, cache: Path, limit: int | None) -> dict[str, Any]:
    """Candidate lists per question (see the module docstring)."""
    dataset = load_dataset(data, limit)
    embedder = LocalMiniLMEmbeddings()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kg-rag-tune-") as tmp:
        kb = Path(tmp) / "kb"
        store, _, _, extras = cached_kb(cache, kb, embedder, dataset)
        ctx = BenchContext(dataset=dataset, store=store, kb_dir=kb, extras=extras)
        engine = _engine(ctx)
        p = engine.pipeline
        assert p.linker is not None and p.graph is not None
        for q in dataset.questions:
            hybrid = p.chunks.search(q.question, "paragraph", LIST_SIZE)
            linked = p.linker.link(q.question)
            ppr, _, _ = p.graph.retrieve(linked, LIST_SIZE, 1, False)
            answer = engine.ask(q.question)
            assert answer.trace is not None and answer.trace.whole_question is not None
            trace = answer.trace
            pool = {e.chunk_id: e for st in trace.steps for e in st.hits}
            pool.update({e.chunk_id: e for e in trace.whole_question.hits})
            cited = [pool[c.chunk_id] for c in answer.citations if c.chunk_id in pool]
            rows.append(
                {
                    "question": q.question,
                    "gold": list(q.supporting_ids),  # read by scoring only
                    "hybrid": hybrid,
                    "ppr": ppr,
                    "cited": list({e.chunk_id: e for e in cited}.values()),
                }
            )
    return {"name": dataset.name, "rows": rows}


def _variants() -> dict[str, Callable[[dict[str, Any]], list[Evidence]]]:
    """Whole-question fusions (and the chosen one with the final fusion) to compare."""
    out: dict[str, Callable[[dict[str, Any]], list[Evidence]]] = {
        "hybrid": lambda r: r["hybrid"],
        "ppr": lambda r: r["ppr"],
        "former: rrf k60, ppr 0.5, 30 each": lambda r: rrf(
            [(r["hybrid"][:30], 1.0), (r["ppr"][:30], 0.5)], 60
        ),
    }
    for k in (1, 5, 60):
        for w in (1.0, 1.5, 2.0):
            out[f"rrf k{k}, ppr {w}"] = lambda r, k=k, w=w: fuse_whole_question(
                r["hybrid"], r["ppr"], graph_weight=w, k=k
            )
    out["chosen + fuse_final (engine)"] = lambda r: fuse_final(
        fuse_whole_question(r["hybrid"], r["ppr"]), r["cited"], 5
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--kb-cache", type=Path, required=True)
    parser.add_argument("--pickle", type=Path, required=True, help="candidate lists (reused)")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args(argv)
    if not args.pickle.exists():
        args.pickle.write_bytes(pickle.dumps(precompute(args.data, args.kb_cache, args.limit)))
    data = pickle.loads(args.pickle.read_bytes())
    rows = data["rows"]
    table = []
    for name, fn in _variants().items():
        ranked = [unique(e.doc_id for e in fn(row)) for row in rows]
        table.append(
            [name]
            + [
                statistics.fmean(
                    recall_at_k(r, row["gold"], k) for r, row in zip(ranked, rows, strict=True)
                )
                for k in (2, 5, 10)
            ]
        )
    print_table(
        f"Fusion variants on {data['name']} ({len(rows)} questions)",
        ["variant", "R@2", "R@5", "R@10"],
        table,
    )


if __name__ == "__main__":
    main()
