"""Answer benchmark: EM / F1 of the engine's answers, per question type and per hop.

Sets (``--sets``, default every one found):

* ``musique-dev``, ``2wiki-dev`` (``--data-root``, default ``../shared/bench``): one document
  per passage (title + text, doc id = passage id), offline graph and communities;
* ``gen-en``, ``gen-zh`` (``--gen-root``, default ``bench/data/generalization``) and
  ``gen2-en`` … ``gen34-zh`` (``bench/data/generalization2`` to ``…34``, invented corpora
  written without reading the engine): the files of ``corpus/<lang>/`` through the normal
  ingest pipeline; ``--split dev|test|all`` picks the questions (default dev: tuning reads
  the dev half, and the test half is run only when asked for by name).

Each question is asked once through ``KnowledgeEngine.ask`` (offline, router mode ``rules``;
``--llm`` uses the chat model configured by ``KG_RAG_LLM__*``). The prediction is
``Answer.short_answer``, or else the answer text without ``[n]`` markers and trailing
parenthesised notes. Scores: EM and F1 (SQuAD normalisation, best over answer + aliases,
characters for CJK), "contained" (a gold string inside the prediction), by type; per hop:
whether the hop's gold answer is some step's answer or in the evidence text, and whether its
gold document is among the evidence documents @5/@10; LLM calls, tokens, latency, routes,
granularities, plan strategies and fallbacks. Gold fields are read for scoring only; the
engine gets the question text and the documents, nothing else.

Ingest is slow (2wiki-dev: ~10 min), so each set's knowledge base is cached under
``--kb-cache`` (default ``.kg_rag/bench-cache``), keyed by a hash of the documents ingested
(the ``--limit``-shrunk corpus is a different key), the ingest-related settings, and the
source files that determine ingest output (extraction, communities, ingest, graph build,
embeddings, stores, config). Answering code is not in the key: edit
``kg_rag/answer`` or ``kg_rag/retrieval`` and rerun at once. ``--rebuild`` forces a fresh
ingest.

Run: ``nice .venv/bin/python bench/answers.py [--sets musique-dev 2wiki-dev gen-en gen-zh
gen2-en gen2-zh gen3-en gen3-zh gen4-en gen4-zh gen5-en gen5-zh gen6-en gen6-zh gen7-en gen7-zh
gen8-en gen8-zh gen9-en gen9-zh gen10-en gen10-zh gen11-en gen11-zh gen12-en gen12-zh gen13-en gen13-zh gen14-en gen14-zh gen15-en gen15-zh
gen16-en gen16-zh gen17-en gen17-zh
gen18-en gen18-zh gen19-en gen19-zh gen20-en gen20-zh gen21-en gen21-zh
gen22-en gen22-zh gen23-en gen23-zh gen24-en gen24-zh gen25-en gen25-zh] [--limit N] [--llm]
[--json OUT] [--show-failures N]``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import shutil
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._answers_data import (
    AnswerSet,
    Item,
    contains_either,
    in_text,
    load_generalization,
    load_shared,
    path_match,
    score,
)
from bench._common import percentile, print_table, unique
from bench.retrieval import source_documents
from kg_rag.answer.trace import Answer
from kg_rag.config import Settings
from kg_rag.engine import KnowledgeEngine

REPO = Path(__file__).resolve().parent.parent
SHARED_SETS = ("musique-dev", "2wiki-dev")
# name → (language, folder under bench/data; ``--gen-root`` replaces the first set's)
GEN_SETS = {
    "gen-en": ("en", "generalization"),
    "gen-zh": ("zh", "generalization"),
    "gen2-en": ("en", "generalization2"),
    "gen2-zh": ("zh", "generalization2"),
    "gen3-en": ("en", "generalization3"),
    "gen3-zh": ("zh", "generalization3"),
    "gen4-en": ("en", "generalization4"),
    "gen4-zh": ("zh", "generalization4"),
    "gen5-en": ("en", "generalization5"),
    "gen5-zh": ("zh", "generalization5"),
    "gen6-en": ("en", "generalization6"),
    "gen6-zh": ("zh", "generalization6"),
    "gen7-en": ("en", "generalization7"),
    "gen7-zh": ("zh", "generalization7"),
    "gen8-en": ("en", "generalization8"),
    "gen8-zh": ("zh", "generalization8"),
    "gen9-en": ("en", "generalization9"),
    "gen9-zh": ("zh", "generalization9"),
    "gen10-en": ("en", "generalization10"),
    "gen10-zh": ("zh", "generalization10"),
    "gen11-en": ("en", "generalization11"),
    "gen11-zh": ("zh", "generalization11"),
    "gen12-en": ("en", "generalization12"),
    "gen12-zh": ("zh", "generalization12"),
    "gen13-en": ("en", "generalization13"),
    "gen13-zh": ("zh", "generalization13"),
    "gen14-en": ("en", "generalization14"),
    "gen14-zh": ("zh", "generalization14"),
    "gen15-en": ("en", "generalization15"),
    "gen15-zh": ("zh", "generalization15"),
    "gen16-en": ("en", "generalization16"),
    "gen16-zh": ("zh", "generalization16"),
    "gen17-en": ("en", "generalization17"),
    "gen17-zh": ("zh", "generalization17"),
    "gen18-en": ("en", "generalization18"),
    "gen18-zh": ("zh", "generalization18"),
    "gen19-en": ("en", "generalization19"),
    "gen19-zh": ("zh", "generalization19"),
    "gen20-en": ("en", "generalization20"),
    "gen20-zh": ("zh", "generalization20"),
    "gen21-en": ("en", "generalization21"),
    "gen21-zh": ("zh", "generalization21"),
    "gen22-en": ("en", "generalization22"),
    "gen22-zh": ("zh", "generalization22"),
    "gen23-en": ("en", "generalization23"),
    "gen23-zh": ("zh", "generalization23"),
    "gen24-en": ("en", "generalization24"),
    "gen24-zh": ("zh", "generalization24"),
    "gen25-en": ("en", "generalization25"),
    "gen25-zh": ("zh", "generalization25"),
    # bridge questions whose first hop describes the unnamed entity in varied ways (kept out
    # of the composed "gen" totals, like the yes/no sets)
    "gen26-en": ("en", "generalization26"),
    "gen26-zh": ("zh", "generalization26"),
    "gen27-en": ("en", "generalization27"),
    "gen27-zh": ("zh", "generalization27"),
    # later hops: facts stated from the other side, by pronoun or class noun, in tables
    "gen28-en": ("en", "generalization28"),
    "gen28-zh": ("zh", "generalization28"),
    # ordinary questions, each relation worded several ways, facts in prose, tables and lists
    "gen29-en": ("en", "generalization29"),
    "gen29-zh": ("zh", "generalization29"),
    # blind: beekeeping cooperatives / stone-bridge guilds, distractor names, facts from the
    # other side, by pronoun, in tables (written after gen29, scored before any change)
    "gen30-en": ("en", "generalization30"),
    "gen30-zh": ("zh", "generalization30"),
    # blind: astronomy societies and observatories / 渔业与海岛, the same kinds of traps (written
    # after gen30, scored before any change)
    "gen31-en": ("en", "generalization31"),
    "gen31-zh": ("zh", "generalization31"),
    # blind: clockmaking and tower clocks / 陶瓷窑口与瓷厂 (written after gen31, scored before
    # any change)
    "gen32-en": ("en", "generalization32"),
    "gen32-zh": ("zh", "generalization32"),
    # blind: rowing clubs and boatbuilders / 茶山、茶号与制茶师傅 (written after gen32, scored
    # before any change made from it)
    "gen33-en": ("en", "generalization33"),
    "gen33-zh": ("zh", "generalization33"),
    # blind: bell foundries and change ringing / 刺绣作坊与丝绸织造 (written after gen33, scored
    # before any change made from it)
    "gen34-en": ("en", "generalization34"),
    "gen34-zh": ("zh", "generalization34"),
    # yes/no claims of every shape (kept out of the composed "gen" totals)
    "yn1-en": ("en", "yesno1"),
    "yn1-zh": ("zh", "yesno1"),
    "yn2-en": ("en", "yesno2"),
    "yn2-zh": ("zh", "yesno2"),
}
ALL_SETS = (*SHARED_SETS, *GEN_SETS)

INGEST_SOURCES = (
    "extraction/*.py",
    "communities/*.py",
    "kg_rag/ingest/*.py",
    "kg_rag/graph_build.py",
    "kg_rag/embeddings.py",
    "kg_rag/stores/*.py",
)
"""Not in the key: ``kg_rag/models.py`` and ``kg_rag/text.py``, shared with answering (plans,
question parsing); after a change there that alters what is stored, pass ``--rebuild``."""
CACHE_FORMAT = 1
"""Bump when this script changes how it ingests."""

WARM_UP = {"en": "warm-up question about lazy loads", "zh": "预热用的问题是什么？"}
"""Asked before the timings, in the set's language (loads models, tables, jieba)."""
_MARKERS = re.compile(r"\[\d+\]")
_NO_ANSWER = ("no answer found", "未找到", "没有找到")

log = logging.getLogger(__name__)


# -- knowledge-base cache -----------------------------------------------------------------


def _ingest_settings(kb_dir: Path) -> Settings:
    """Offline ingest settings: no chat model, offline extraction and summaries."""
    settings = Settings(kb_dir=kb_dir)
    settings.router = settings.router.model_copy(update={"mode": "rules"})
    settings.extraction = settings.extraction.model_copy(update={"mode": "offline"})
    return settings


def cache_key(aset: AnswerSet) -> str:
    """sha256 over the documents the set ingests, ingest settings and ingest source files."""
    h = hashlib.sha256(f"kg-rag bench/answers cache v{CACHE_FORMAT}\n{aset.name}\n".encode())
    settings = _ingest_settings(Path("."))
    for section in ("embedding", "chunking", "extraction", "communities"):
        h.update(getattr(settings, section).model_dump_json().encode())
    if aset.dataset is not None:
        for p in aset.dataset.passages:
            h.update(json.dumps([p.id, p.title, p.text], ensure_ascii=False).encode() + b"\n")
    else:
        assert aset.corpus_dir is not None
        for f in sorted(aset.corpus_dir.rglob("*")):
            if f.is_file():
                h.update(f.relative_to(aset.corpus_dir).as_posix().encode() + b"\0")
                h.update(hashlib.sha256(f.read_bytes()).digest())
    for pattern in INGEST_SOURCES:
        for f in sorted(REPO.glob(pattern)):
            if aset.dataset is not None and f.name == "loaders.py":
                continue  # shared sets are handed over as documents: no file is loaded
            h.update(f.relative_to(REPO).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def _ingest(aset: AnswerSet, kb_dir: Path) -> dict[str, Any]:
    started = time.perf_counter()
    with KnowledgeEngine.open(kb_dir, settings=_ingest_settings(kb_dir), progress=False) as kg:
        if aset.dataset is not None:
            report = kg.ingest(source_documents(aset.dataset))
        else:
            assert aset.corpus_dir is not None
            report = kg.ingest([aset.corpus_dir])
        stats = kg.stats()
    seconds = time.perf_counter() - started
    print(f"  {report}")  # chunks, graph and communities
    if report.skipped:
        print(f"  skipped {len(report.skipped)} files: {report.skipped[:3]}")
    return {"seconds": round(seconds, 1), "stats": stats, "skipped": len(report.skipped)}


def ensure_kb(aset: AnswerSet, cache_root: Path, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    """The set's cached knowledge base folder, ingesting it first on a miss or ``rebuild``.

    Layout: ``<cache_root>/<set>-<corpus>-<key[:16]>/kb`` plus ``meta.json``, written last
    (a folder without it is an interrupted ingest and is redone); ``<corpus>`` is ``full`` or
    ``limitN``. Building a new key removes the older keys of the same set and corpus, so a
    ``--limit`` run never evicts the full knowledge base.
    """
    key = cache_key(aset)
    stem = f"{aset.name}-{aset.corpus}"
    entry = cache_root / f"{stem}-{key[:16]}"
    meta_path = entry / "meta.json"
    if meta_path.exists() and not rebuild:
        meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        print(f"{aset.name}: KB cache hit {entry}")
        return entry / "kb", {**meta, "hit": True}
    print(f"{aset.name}: KB cache {'rebuild' if rebuild else 'miss'}, ingesting into {entry}")
    partial = cache_root / f"{stem}-{key[:16]}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    built = _ingest(aset, partial / "kb")
    stale = re.compile(rf"^{re.escape(stem)}-[0-9a-f]{{16}}(\.partial)?$")
    for old in cache_root.iterdir():
        if old != partial and old.is_dir() and stale.match(old.name):
            shutil.rmtree(old)
    partial.rename(entry)
    docs = len(aset.dataset.passages) if aset.dataset is not None else None
    meta = {
        "key": key,
        "set": aset.name,
        "corpus": aset.corpus,
        "documents": docs,
        "built_at": time.time(),
        **built,
    }
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return entry / "kb", {**meta, "hit": False}


def open_engine(kb_dir: Path, use_llm: bool) -> KnowledgeEngine:
    """An engine over a cached KB: offline with router mode ``rules``, or the configured LLM."""
    settings = Settings(kb_dir=kb_dir)
    if use_llm:
        if not settings.llm.enabled:
            raise SystemExit("--llm: set KG_RAG_LLM__BASE_URL and/or KG_RAG_LLM__API_KEY first")
        if settings.router.mode == "rules":
            settings.router = settings.router.model_copy(update={"mode": "auto"})
    else:
        settings.router = settings.router.model_copy(update={"mode": "rules"})
    return KnowledgeEngine.open(kb_dir, settings=settings, progress=False)


# -- one question -------------------------------------------------------------------------


def prediction(answer: Answer) -> str:
    """The bare answer: ``short_answer``, else the text without citations and notes."""
    short = str(getattr(answer, "short_answer", "") or "").strip()
    if short:
        return short
    text = _MARKERS.sub("", answer.text).strip()
    while (cut := _trailing_note(text)) is not None and cut > 0:
        text = text[:cut].strip()
    return "" if text.lower().startswith(_NO_ANSWER) else text


def _trailing_note(text: str) -> int | None:
    """Where a final balanced ``(...)`` / ``（...）`` group starts, or None."""
    if not text.endswith((")", "）")):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] in ")）":
            depth += 1
        elif text[i] in "(（":
            depth -= 1
            if depth == 0:
                return i
    return None


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


@dataclass
class HopResult:
    """Did the engine find this hop? ``None``: no gold for that check."""

    hop: int
    gold_answer: str
    gold_docs: list[str]
    step_answer: bool | None
    evidence_answer: bool | None
    doc_at_5: bool | None
    doc_at_10: bool | None


@dataclass
class Row:
    """One question's outcome (gold included: this is the scoring side)."""

    id: str
    type: str
    question: str
    gold: list[str]
    prediction: str = ""
    text: str = ""
    em: float = 0.0
    f1: float = 0.0
    contained: float = 0.0
    error: str = ""
    ms: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    strategy: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    evidence_docs: list[str] = field(default_factory=list)
    hops: list[HopResult] = field(default_factory=list)


def _doc_hit(golds: Sequence[str], docs: Sequence[tuple[str, str]], by_path: bool) -> bool:
    for gold in golds:
        for doc_id, source in docs:
            if (
                (gold == doc_id)
                if not by_path
                else (path_match(gold, doc_id) or path_match(gold, source))
            ):
                return True
    return False


def score_hops(item: Item, answer: Answer, by_path: bool) -> list[HopResult]:
    """Per-hop checks against the step answers, the evidence text and the evidence docs."""
    step_answers = [s.answer for s in answer.trace.steps if s.answer]
    texts = [e.text for e in answer.evidence[:10]]
    sources = {e.doc_id: e.source for e in answer.evidence}
    docs = [(d, sources[d]) for d in unique(e.doc_id for e in answer.evidence)]
    out = []
    for n, hop in enumerate(item.hops, start=1):
        has_answer = bool(hop.answer.strip())
        out.append(
            HopResult(
                n,
                hop.answer,
                list(hop.docs),
                any(contains_either(hop.answer, s) for s in step_answers) if has_answer else None,
                in_text(hop.answer, texts) if has_answer else None,
                _doc_hit(hop.docs, docs[:5], by_path) if hop.docs else None,
                _doc_hit(hop.docs, docs[:10], by_path) if hop.docs else None,
            )
        )
    return out


def ask_one(engine: KnowledgeEngine, item: Item, by_path: bool) -> Row:
    """Ask one question (the question text only) and score it."""
    row = Row(item.id, item.type, item.question, list(item.answers))
    started = time.perf_counter()
    try:
        answer = engine.ask(item.question)
    except Exception as exc:  # a benchmark records failures and moves on
        row.ms = (time.perf_counter() - started) * 1000
        row.error = f"{type(exc).__name__}: {exc}"
        log.warning("%s failed: %s", item.id, row.error)
        return row
    row.ms = (time.perf_counter() - started) * 1000
    trace = answer.trace
    row.prediction = prediction(answer)
    row.text = answer.text
    s = score(row.prediction, item.answers)
    row.em, row.f1, row.contained = s.em, s.f1, s.contained
    row.llm_calls = trace.llm_calls
    row.prompt_tokens = trace.prompt_tokens
    row.completion_tokens = trace.completion_tokens
    row.strategy = trace.plan.strategy if trace.plan is not None else ""
    row.steps = [
        {
            "index": st.index,
            "query": st.query,
            "bound_query": st.bound_query,
            "answer": st.answer,
            "route": st.decision.route,
            "granularity": st.decision.granularity,
        }
        for st in trace.steps
    ]
    row.fallbacks = [
        {k: str(_field(f, k) or "") for k in ("stage", "error", "message")}
        for f in getattr(trace, "fallbacks", None) or []
    ]
    row.evidence_docs = unique(e.doc_id for e in answer.evidence)[:10]
    row.hops = score_hops(item, answer, by_path)
    return row


# -- aggregation --------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _opt_mean(values: Sequence[bool | None]) -> float | None:
    known = [float(v) for v in values if v is not None]
    return _mean(known) if known else None


def summarize(rows: Sequence[Row]) -> dict[str, Any]:
    """Means over the rows: scores, calls, tokens, latency."""
    ms = [r.ms for r in rows]
    return {
        "n": len(rows),
        "em": _mean([r.em for r in rows]),
        "f1": _mean([r.f1 for r in rows]),
        "contained": _mean([r.contained for r in rows]),
        "answered": _mean([float(bool(r.prediction)) for r in rows]),
        "errors": sum(1 for r in rows if r.error),
        "llm_calls": _mean([r.llm_calls for r in rows]),
        "prompt_tokens": _mean([r.prompt_tokens for r in rows]),
        "completion_tokens": _mean([r.completion_tokens for r in rows]),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
    }


def by_type(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Scores per question type."""
    types = sorted({r.type for r in rows})
    return {
        t: {
            k: v
            for k, v in summarize([r for r in rows if r.type == t]).items()
            if k in ("n", "em", "f1", "contained", "answered")
        }
        for t in types
    }


def by_hop(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Per hop position: share of questions whose hop was found, by each check."""
    out: dict[str, dict[str, Any]] = {}
    depth = max((len(r.hops) for r in rows), default=0)
    for n in range(1, depth + 1):
        hops = [r.hops[n - 1] for r in rows if len(r.hops) >= n]
        out[str(n)] = {
            "n": len(hops),
            "step_answer": _opt_mean([h.step_answer for h in hops]),
            "evidence_answer": _opt_mean([h.evidence_answer for h in hops]),
            "doc@5": _opt_mean([h.doc_at_5 for h in hops]),
            "doc@10": _opt_mean([h.doc_at_10 for h in hops]),
        }
    return out


def counts(rows: Sequence[Row]) -> dict[str, dict[str, int]]:
    """Routes, granularities, plan strategies and fallback stages chosen over the set."""
    return {
        "route": dict(Counter(s["route"] for r in rows for s in r.steps).most_common()),
        "granularity": dict(Counter(s["granularity"] for r in rows for s in r.steps).most_common()),
        "strategy": dict(Counter(r.strategy or "-" for r in rows if not r.error).most_common()),
        "fallback": dict(
            Counter(f["stage"] or "?" for r in rows for f in r.fallbacks).most_common()
        ),
    }


# -- sets and output ----------------------------------------------------------------------


def load_set(name: str, args: argparse.Namespace) -> AnswerSet | None:
    """The named set, or None (with a note) when its files are not there."""
    if name in SHARED_SETS:
        folder = args.data_root / name
        if not (folder / "questions.jsonl").exists():
            print(f"{name}: not found under {args.data_root}, skipped")
            return None
        return load_shared(folder, args.limit)
    lang, folder = GEN_SETS[name]
    root = args.gen_root if folder == "generalization" else REPO / "bench" / "data" / folder
    if not (root / "questions.jsonl").exists() or not (root / "corpus" / lang).is_dir():
        print(f"{name}: no questions.jsonl or corpus/{lang} under {root}, skipped")
        return None
    hops = getattr(args, "hops", False)  # bench/probes.py builds its own arguments
    aset = load_generalization(root, lang, args.split, args.limit, name, hops)
    if not aset.items:
        print(f"{name}: no {lang} questions in split {args.split!r}, skipped")
        return None
    return aset


def run_set(aset: AnswerSet, args: argparse.Namespace) -> dict[str, Any]:
    """Build or reuse the set's KB, ask every question, aggregate."""
    docs = f"{len(aset.dataset.passages)} passages" if aset.dataset else str(aset.corpus_dir)
    print(f"\n== {aset.name}: {len(aset.items)} questions over {docs}")
    kb_dir, cache = ensure_kb(aset, args.kb_cache, args.rebuild)
    rows: list[Row] = []
    with open_engine(kb_dir, args.llm) as engine:
        lang = aset.items[0].lang if aset.items else "en"
        engine.retrieve(WARM_UP.get(lang, WARM_UP["en"]), depth="fast")
        started = time.perf_counter()
        for i, item in enumerate(aset.items, start=1):
            rows.append(ask_one(engine, item, aset.doc_match == "path"))
            if i % 10 == 0 or i == len(aset.items):
                em = _mean([r.em for r in rows])
                print(
                    f"  [{i}/{len(aset.items)}] EM {em:.3f}  {time.perf_counter() - started:.0f}s"
                )
    return {
        "summary": summarize(rows),
        "by_type": by_type(rows),
        "by_hop": by_hop(rows),
        "counts": counts(rows),
        "cache": {"dir": str(kb_dir.parent), **cache},
        "questions": [asdict(r) for r in rows],
        "_rows": rows,
    }


def _cell(v: Any) -> Any:
    return "-" if v is None else v


def print_set(name: str, res: dict[str, Any], show_failures: int) -> None:
    """Per-type, per-hop and count tables, and the first wrong predictions."""
    print_table(
        f"{name}: by type",
        ["type", "n", "EM", "F1", "contained", "answered"],
        [
            [t, m["n"], m["em"], m["f1"], m["contained"], m["answered"]]
            for t, m in res["by_type"].items()
        ],
    )
    print_table(
        f"{name}: per hop (share of questions whose hop n was found)",
        ["hop", "n", "step answer", "in evidence", "doc@5", "doc@10"],
        [
            [
                h,
                m["n"],
                *(_cell(m[k]) for k in ("step_answer", "evidence_answer", "doc@5", "doc@10")),
            ]
            for h, m in res["by_hop"].items()
        ],
    )
    print_table(
        f"{name}: choices",
        ["what", "value", "count"],
        [[kind, value, n] for kind, c in res["counts"].items() for value, n in c.items()]
        or [["-", "-", 0]],
    )
    wrong = [r for r in res["_rows"] if not r.em][:show_failures]
    if wrong:
        print(f"\n{name}: {len(wrong)} wrong predictions")
    for r in wrong:
        print(f"- {r.id} [{r.type}] {r.question}")
        print(f"    gold: {' | '.join(r.gold)}")
        print(f"    pred: {r.prediction!r}" + (f"  ERROR {r.error}" if r.error else ""))
        if r.text and r.text != r.prediction:
            print(f"    text: {r.text[:200]}")
        for s in r.steps:
            print(
                f"    step {s['index']} [{s['route']}/{s['granularity']}] {s['bound_query']} -> {s['answer'] or '?'}"
            )
        found = [
            f"{h.hop}:{'y' if h.step_answer or h.evidence_answer or h.doc_at_10 else 'n'}"
            for h in r.hops
        ]
        print(f"    hops found: {' '.join(found)}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", choices=ALL_SETS, help="default: every set found")
    parser.add_argument("--data-root", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--gen-root", type=Path, default=REPO / "bench" / "data" / "generalization")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--kb-cache", type=Path, default=REPO / ".kg_rag" / "bench-cache")
    parser.add_argument("--rebuild", action="store_true", help="ingest again even on a cache hit")
    parser.add_argument(
        "--limit", type=int, help="first N questions per set (and a smaller corpus)"
    )
    parser.add_argument("--llm", action="store_true", help="answer with the KG_RAG_LLM__* model")
    parser.add_argument("--json", type=Path, help="write everything here")
    parser.add_argument("--show-failures", type=int, default=0, metavar="N")
    parser.add_argument(
        "--hops",
        action="store_true",
        help="generalization sets: ask each gold hop as its own question (earlier hop answers "
        "filled in; deciding hops of comparisons and yes/no left out): the reader on "
        "single-fact questions the set's author worded",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("jieba").propagate = False  # it has its own handler: print its lines once
    args.kb_cache.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    for name in args.sets or ALL_SETS:
        aset = load_set(name, args)
        if aset is not None:
            results[name] = run_set(aset, args)

    print_table(
        f"Answers ({'LLM' if args.llm else 'offline, rules'}; prediction = short answer)",
        [
            "set",
            "n",
            "EM",
            "F1",
            "contained",
            "answered",
            "errors",
            "LLM calls",
            "prompt tok",
            "compl tok",
            "p50 ms",
            "p95 ms",
            "KB cache",
        ],
        [
            [
                name,
                *(
                    res["summary"][k]
                    for k in (
                        "n",
                        "em",
                        "f1",
                        "contained",
                        "answered",
                        "errors",
                        "llm_calls",
                        "prompt_tokens",
                        "completion_tokens",
                        "p50_ms",
                        "p95_ms",
                    )
                ),
                "hit" if res["cache"]["hit"] else "built",
            ]
            for name, res in results.items()
        ],
    )
    for name, res in results.items():
        print_set(name, res, args.show_failures)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    out = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "sets": {
            name: {k: v for k, v in res.items() if k != "_rows"} for name, res in results.items()
        },
    }
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
