"""Granularity benchmark: how much of the needed evidence reaches the answer model within a
token budget, on long multi-section documents.

The documents are built from a passage set (see :mod:`bench._granularity_kb`: 12 passages per
document by a seeded hash, 3–4 per ``##`` section, each a paragraph that opens with its title
in bold) and ingested once through the normal pipeline (four chunk levels, offline graph).

Gold (scoring only; nothing in ``kg_rag/`` reads it): for every reasoning step of a question's
``decomposition``, the *answer-bearing sentence* — the sentence of the step's ``support_id``
passage that contains the step's answer (word match, body before title; aliases for the last
step; else the sentence sharing most answer words; a step with no such sentence is left out
and counted).

Each system turns a question into ranked evidence; :func:`kg_rag.retrieval.packing.pack_evidence`
then cuts it at a budget B ∈ {256, 512, 1024, 2048} tokens exactly as the engine hands it to
the answer model (expanded, deduplicated, best first). On that context:

* **evidence recall@B** — share of answer-bearing sentences wholly inside the context;
* **whole-hop recall@B** — share of questions with every step's sentence inside;
* **precision@B** — share of context tokens that lie in the question's gold passages.

Systems (one run): ``hybrid_<g>`` — the whole question searched at one fixed granularity g
(sentence → its paragraph, paragraph, section, document, mixed), the baseline a plain RAG
gives; ``engine_<g>`` — the full offline pipeline with every step's granularity fixed to g;
``engine_routed`` — the pipeline with per-step routed granularity (rules, offline);
``engine_llm`` — the same with the configured chat model (``KG_RAG_LLM__*``; only with
``--llm``): LLM router where the rules abstain, and a listwise LLM rerank of the context head.
Ablations: ``engine_routed_whole`` (focus + rerank, whole pieces) and
``engine_paragraph_rerank`` (fixed paragraphs + rerank) separate the rerank from the routed
unit choice; ``hybrid_sentence_bare`` hands sentence hits without small-to-big.

Every table is printed for all questions and for two halves drawn by a seeded hash of the
question id (:func:`half_of`): the packing constants (``RouterSettings.sentence_share``) are
chosen on the dev half; the test half is reported, never tuned on.

Run: ``nice .venv/bin/python bench/granularity.py --data ../shared/bench/musique-dev
[--limit N] [--json OUT] [--kb-cache DIR] [--systems ...] [--llm]``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import Dataset, load_dataset, percentile, print_table
from bench._granularity_kb import LongDocument, build_documents, cached_kb
from kg_rag.ingest.chunking import split_sentences
from kg_rag.models import Evidence
from kg_rag.retrieval.packing import pack_evidence
from kg_rag.text import count_tokens

BUDGETS = (256, 512, 1024, 2048)
GRANULARITIES = ("sentence", "paragraph", "section", "document", "mixed")
Ranker = Callable[[str], list[Evidence]]
"""question → candidate evidence, best first (before the budget cut)."""
Packer = Callable[[list[Evidence], int], list[Evidence]]
"""(candidate evidence, budget) → the context handed to the answer model."""


# -- gold ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """A character span of a stored (cleaned) document."""

    doc_id: str
    start: int
    end: int


@dataclass
class GoldQuestion:
    """A question's gold: per step the answer-bearing sentence, and its gold passages."""

    qid: str
    question: str
    hops: int
    sentences: list[Span]
    passages: list[Span]
    dropped_steps: int = 0
    fallback_steps: int = 0


def read_decompositions(data_dir: Path) -> dict[str, dict[str, Any]]:
    """Question id → its record (with ``decomposition``) from ``questions.jsonl``."""
    out = {}
    with (data_dir / "questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                out[row["id"]] = row
    return out


def locate_passages(text: str, doc_id: str, titles: Sequence[tuple[str, str]]) -> dict[str, Span]:
    """Span of each passage ``(id, title)`` in a stored document, found in order by its bold
    title opening a paragraph; a passage runs to the next blank line."""
    out: dict[str, Span] = {}
    cursor = 0
    for pid, title in titles:
        marker = f"**{title.strip()}.**"
        at = text.find(marker, cursor)
        if at < 0:
            continue
        end = text.find("\n\n", at)
        end = len(text.rstrip()) if end < 0 else end
        out[pid] = Span(doc_id, at, end)
        cursor = end
    return out


_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def answer_sentence(text: str, passage: Span, answers: Sequence[str]) -> tuple[Span, bool] | None:
    """The sentence of ``passage`` that holds one of ``answers`` and whether it was found by
    word overlap rather than by a whole-word match; ``None`` when no sentence shares a word.

    The body (after the bold title) is searched before the title; a match that runs over a
    sentence end takes every sentence it touches.
    """
    sentences = split_sentences(text, passage.start, passage.end)
    if not sentences:
        return None
    title_end = text.find(".**", passage.start, passage.end)
    body_start = passage.start if title_end < 0 else title_end + 3
    for answer in answers:
        answer = answer.strip()
        if not answer:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(answer) + r"(?!\w)", re.IGNORECASE)
        match = pattern.search(text, body_start, passage.end) or pattern.search(
            text, passage.start, passage.end
        )
        if match is None:
            continue
        touched = [(s, e) for s, e in sentences if s < match.end() and e > match.start()]
        if touched:
            return Span(passage.doc_id, touched[0][0], touched[-1][1]), False
    wanted = set().union(*(_words(a) for a in answers))
    best = max(sentences, key=lambda se: (len(wanted & _words(text[se[0] : se[1]])), -se[0]))
    if not wanted & _words(text[best[0] : best[1]]):
        return None
    return Span(passage.doc_id, best[0], best[1]), True


def build_gold(
    records: dict[str, dict[str, Any]],
    dataset: Dataset,
    located: dict[str, Span],
    texts: dict[str, str],
) -> list[GoldQuestion]:
    """Gold sentences and passages of the dataset's questions (from ``decomposition``)."""
    out = []
    for q in dataset.questions:
        row = records[q.id]
        gold = GoldQuestion(q.id, q.question, int(q.hops or 0), [], [])
        gold.passages = [located[p] for p in q.supporting_ids if p in located]
        steps = row.get("decomposition") or []
        for n, step in enumerate(steps):
            span = located.get(step["support_id"])
            if span is None:
                gold.dropped_steps += 1
                continue
            answers = [step["answer"]]
            if n == len(steps) - 1:
                answers += [q.answer, *q.answer_aliases]
            found = answer_sentence(texts[span.doc_id], span, answers)
            if found is None:
                gold.dropped_steps += 1
                continue
            gold.sentences.append(found[0])
            gold.fallback_steps += int(found[1])
        out.append(gold)
    return out


# -- metrics ------------------------------------------------------------------------------


def _span_of(ev: Evidence, texts: dict[str, str]) -> Span | None:
    """The evidence's span when its text is that slice of its stored document."""
    doc = texts.get(ev.doc_id)
    if doc is None or ev.char_end <= ev.char_start:
        return None
    if doc[ev.char_start : ev.char_end] != ev.text:
        return None
    return Span(ev.doc_id, ev.char_start, ev.char_end)


def score_context(
    context: Sequence[Evidence], gold: GoldQuestion, texts: dict[str, str]
) -> dict[str, float]:
    """Evidence recall, whole-hop recall, precision and tokens of one packed context.

    A gold sentence counts when one piece holds it whole; precision is the share of context
    tokens inside the gold passages (0 for an empty context).
    """
    spans = [_span_of(ev, texts) for ev in context]
    inside = [
        any(
            s is not None and s.doc_id == g.doc_id and s.start <= g.start and s.end >= g.end
            for s in spans
        )
        for g in gold.sentences
    ]
    total = sum(count_tokens(ev.text) for ev in context)
    gold_tokens = 0
    for s in spans:
        if s is None:
            continue
        for p in gold.passages:
            if p.doc_id == s.doc_id and p.start < s.end and s.start < p.end:
                a, b = max(p.start, s.start), min(p.end, s.end)
                gold_tokens += count_tokens(texts[s.doc_id][a:b])
    return {
        "recall": sum(inside) / len(inside) if inside else 0.0,
        "whole": float(bool(inside) and all(inside)),
        "precision": gold_tokens / total if total else 0.0,
        "tokens": float(total),
    }


SPLIT_SEED = "kg-rag granularity split v1"
HALVES = ("dev", "test")


def half_of(qid: str) -> str:
    """``"dev"`` or ``"test"`` by a seeded hash of the question id: packing and rerank
    constants are tuned on the dev half only; the test half is reported, never tuned on."""
    digest = hashlib.sha256(f"{SPLIT_SEED}\n{qid}".encode()).digest()
    return HALVES[digest[0] & 1]


@dataclass
class SystemResult:
    """A system's metrics per budget and question, and its latency."""

    per_budget: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    qids: dict[int, list[str]] = field(default_factory=dict)

    def add(self, budget: int, scores: dict[str, float], qid: str = "") -> None:
        bucket = self.per_budget.setdefault(budget, {})
        for k, v in scores.items():
            bucket.setdefault(k, []).append(v)
        self.qids.setdefault(budget, []).append(qid)

    def summary(self, half: str | None = None) -> dict[str, Any]:
        """Means per budget and metric over every question, or over one half's
        (:func:`half_of`); latency percentiles over every question."""
        out: dict[str, Any] = {}
        for b, m in sorted(self.per_budget.items()):
            ids = self.qids.get(b, [])
            keep = [i for i in range(len(ids)) if half is None or half_of(ids[i]) == half]
            out[str(b)] = {
                k: round(statistics.fmean([v[i] for i in keep]), 4) if keep else 0.0
                for k, v in m.items()
            }
        out["p50_ms"] = round(percentile(self.latencies_ms, 50), 1)
        out["p95_ms"] = round(percentile(self.latencies_ms, 95), 1)
        return out


def whole_pieces(ranked: list[Evidence], budget: int) -> list[Evidence]:
    """The fixed-granularity cut: whole pieces best first, the last one cut at the budget."""
    return pack_evidence(ranked, budget)


def evaluate_system(
    ranker: Ranker,
    golds: Sequence[GoldQuestion],
    texts: dict[str, str],
    budgets: Sequence[int] = BUDGETS,
    pack: Packer = whole_pieces,
) -> SystemResult:
    """Rank once per question (timed, with the pack at the largest budget), score every
    budget's packed context; questions without any gold sentence are left out."""
    result = SystemResult()
    for gold in golds:
        if not gold.sentences:
            continue
        started = time.perf_counter()
        ranked = ranker(gold.question)
        pack(ranked, max(budgets))
        result.latencies_ms.append((time.perf_counter() - started) * 1000)
        for b in budgets:
            result.add(b, score_context(pack(ranked, b), gold, texts), gold.qid)
    return result


# -- systems ------------------------------------------------------------------------------


def hybrid_ranker(store: Any, granularity: str, top_k: int = 40) -> Ranker:
    """The whole question searched at one granularity (small-to-big for sentences)."""
    from kg_rag.retrieval.chunks import ChunkRetriever

    retriever = ChunkRetriever(store)

    def run(question: str) -> list[Evidence]:
        return retriever.search(question, granularity, top_k)  # type: ignore[arg-type]

    return run


def bare_sentence_ranker(store: Any, top_k: int = 60) -> Ranker:
    """Sentence hits handed as they are (no small-to-big): not one of the fixed systems the
    issue defines, shown for what sentences alone would give."""
    from kg_rag.retrieval.chunks import hits_to_evidence

    def run(question: str) -> list[Evidence]:
        hits = store.search(question, mode="hybrid", level="sentence", top_k=top_k)
        return hits_to_evidence(hits)

    return run


def engine_ranker(engine: Any) -> Ranker:
    """What the pipeline hands its answer model before the cut
    (:meth:`~kg_rag.answer.pipeline.AnswerPipeline.answer_context`)."""

    def run(question: str) -> list[Evidence]:
        trace = engine.ask(question).trace
        return engine.pipeline.answer_context(trace)  # type: ignore[no-any-return]

    return run


def make_engine(kb_dir: Path, store: Any, graph: Any, fixed: str | None, llm: bool) -> Any:
    """An engine over the benchmark's stores: rules routing (or the configured model), with
    every step's granularity fixed to ``fixed`` when given."""
    from kg_rag.config import Settings
    from kg_rag.engine import KnowledgeEngine

    settings = Settings(kb_dir=kb_dir)
    model = None
    if llm:
        from kg_rag.llm import build_chat_model

        if not settings.llm.enabled:
            raise SystemExit("--llm: set KG_RAG_LLM__BASE_URL and/or KG_RAG_LLM__API_KEY first")
        model = build_chat_model(settings.llm)
    update: dict[str, Any] = {"mode": "auto" if llm else "rules", "fixed_granularity": fixed}
    settings.router = settings.router.model_copy(update=update)
    engine = KnowledgeEngine(settings, store, graph, store.embedder, model, progress=False)
    engine.open_stores()
    return engine


def default_systems(llm: bool) -> list[str]:
    names = [f"hybrid_{g}" for g in GRANULARITIES] + ["hybrid_sentence_bare"]
    names += [f"engine_{g}" for g in GRANULARITIES]
    names += ["engine_routed", "engine_routed_whole", "engine_paragraph_rerank"]
    return names + (["engine_llm"] if llm else [])


def system_for(name: str, kb_dir: Path, store: Any, graph: Any) -> tuple[Ranker, Packer]:
    """Ranker and packer of a system name (see the module docstring).

    ``engine_routed_whole`` is ``engine_routed`` (focus + rerank) packed as whole pieces, and
    ``engine_paragraph_rerank`` fixed paragraphs with the rerank: the two ablations that
    separate the rerank from the routed unit choice.
    """
    kind, _, g = name.partition("_")
    if name == "hybrid_sentence_bare":
        return bare_sentence_ranker(store), whole_pieces
    if kind == "hybrid" and g in GRANULARITIES:
        return hybrid_ranker(store, g), whole_pieces
    if name in ("engine_routed", "engine_routed_whole"):
        engine = make_engine(kb_dir, store, graph, None, llm=False)
        pack = whole_pieces if name == "engine_routed_whole" else engine.pipeline.pack_context
        return engine_ranker(engine), pack
    if name == "engine_llm":
        from kg_rag.retrieval.rerank import LLMListwiseReranker

        engine = make_engine(kb_dir, store, graph, None, llm=True)
        listwise = LLMListwiseReranker(engine.pipeline.model)

        def llm_ranked(question: str) -> list[Evidence]:
            trace = engine.ask(question).trace
            steps = [st.bound_query for st in trace.steps]
            ranked, _ = listwise.rerank(question, steps, engine.pipeline.answer_context(trace))
            return ranked

        return llm_ranked, engine.pipeline.pack_context
    if name == "engine_paragraph_rerank":
        engine = make_engine(kb_dir, store, graph, "paragraph", llm=False)
        focus = engine.pipeline.focus

        def reranked(question: str) -> list[Evidence]:
            trace = engine.ask(question).trace
            queries = [trace.question, *(st.bound_query for st in trace.steps)]
            answers = [st.answer for st in trace.steps if st.answer]
            return focus.annotate(engine.pipeline.answer_context(trace), queries, answers)

        return reranked, whole_pieces
    if kind == "engine" and g in GRANULARITIES:
        engine = make_engine(kb_dir, store, graph, g, llm=False)
        return engine_ranker(engine), engine.pipeline.pack_context
    raise SystemExit(f"unknown system {name!r}; choose from {default_systems(True)}")


# -- run ----------------------------------------------------------------------------------


def stored_texts(store: Any, docs: Sequence[LongDocument]) -> dict[str, str]:
    """The cleaned text of every stored document (what chunk offsets point into)."""
    out = {}
    for d in docs:
        stored = store.get_document(d.doc_id)
        if stored is not None:
            out[d.doc_id] = stored.text
    return out


def locate_all(
    dataset: Dataset, docs: Sequence[LongDocument], texts: dict[str, str]
) -> dict[str, Span]:
    """Passage id → its span in the stored documents."""
    by_id = {p.id: p for p in dataset.passages}
    located: dict[str, Span] = {}
    for d in docs:
        if d.doc_id not in texts:
            continue
        titles = [(pid, by_id[pid].title) for section in d.sections for pid in section]
        located.update(locate_passages(texts[d.doc_id], d.doc_id, titles))
    return located


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="dataset folder")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--limit", type=int, help="first N questions and a smaller corpus")
    parser.add_argument("--systems", nargs="*", help="systems to run (default: all)")
    parser.add_argument("--llm", action="store_true", help="add engine_llm (KG_RAG_LLM__*)")
    parser.add_argument(
        "--kb-cache",
        type=Path,
        default=Path(__file__).resolve().parent.parent / ".kg_rag" / "bench-cache",
        help="where the ingested long documents are kept and reused",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    started = time.perf_counter()
    from kg_rag.embeddings import LocalMiniLMEmbeddings

    dataset = load_dataset(args.data, args.limit)
    records = read_decompositions(args.data)
    docs = build_documents(dataset.passages)
    embedder = LocalMiniLMEmbeddings()
    embedder.embed_array(["warm-up sentence"] * 8)
    names = args.systems or default_systems(args.llm)
    print(
        f"dataset {dataset.name}: {len(dataset.passages)} passages in {len(docs)} documents, "
        f"{len(dataset.questions)} questions"
    )
    results: dict[str, SystemResult] = {}
    with tempfile.TemporaryDirectory(prefix="kg-rag-gran-") as tmp:
        kb_dir = Path(tmp) / "kb"
        store, extras, facts = cached_kb(args.kb_cache, kb_dir, docs, dataset, embedder)
        texts = stored_texts(store, docs)
        located = locate_all(dataset, docs, texts)
        golds = build_gold(records, dataset, located, texts)
        steps = sum(
            len(r.get("decomposition") or []) for r in (records[q.id] for q in dataset.questions)
        )
        dropped = sum(g.dropped_steps for g in golds)
        fallback = sum(g.fallback_steps for g in golds)
        print(
            f"gold: {steps} steps, {steps - dropped} answer-bearing sentences "
            f"({fallback} by word overlap, {dropped} steps without one); "
            f"{len(located)}/{len(dataset.passages)} passages located"
        )
        for name in names:
            ranker, pack = system_for(name, kb_dir, store, extras["graph_store"])
            ranker("warm-up question about lazy loads")
            store.clear_caches()
            t0 = time.perf_counter()
            results[name] = evaluate_system(ranker, golds, texts, pack=pack)
            print(f"  {name}: {time.perf_counter() - t0:.0f} s")
        extras["graph_store"].close()
    summary = {name: r.summary() for name, r in results.items()}
    halves = {h: {name: r.summary(h) for name, r in results.items()} for h in HALVES}
    counts = {h: sum(1 for g in golds if g.sentences and half_of(g.qid) == h) for h in HALVES}
    out: dict[str, Any] = {
        "dataset": dataset.name,
        "questions": len(golds),
        "documents": len(docs),
        "gold": {"steps": steps, "sentences": steps - dropped, "by_overlap": fallback},
        "kb": facts,
        "systems": summary,
        "halves": {h: {"questions": counts[h], "systems": halves[h]} for h in HALVES},
    }
    scopes: list[tuple[str, dict[str, Any]]] = [(f"{len(golds)} questions", summary)]
    scopes += [(f"{h} half, {counts[h]} questions", halves[h]) for h in HALVES]
    for scope, table in scopes:
        for metric, label in (
            ("recall", "evidence recall@B"),
            ("whole", "whole-hop recall@B"),
            ("precision", "precision@B"),
            ("tokens", "context tokens used"),
        ):
            if metric == "tokens" and table is not summary:
                continue
            print_table(
                f"{label} ({dataset.name}, {scope}, {len(docs)} long documents)",
                ["system", *[f"B={b}" for b in BUDGETS]],
                [[n, *[s[str(b)][metric] for b in BUDGETS]] for n, s in table.items()],
            )
    print_table(
        "latency per question (rank + pack), ms",
        ["system", "p50", "p95"],
        [[n, s["p50_ms"], s["p95_ms"]] for n, s in summary.items()],
    )
    if "engine_routed" in summary and "hybrid_paragraph" in summary:
        # The latency acceptance: the full pipeline against a fixed-paragraph hybrid
        # search, same run.
        routed, plain = summary["engine_routed"]["p50_ms"], summary["hybrid_paragraph"]["p50_ms"]
        ratio = round(routed / plain, 2) if plain else 0.0
        out["latency_ratio"] = {"engine_routed_p50_ms": routed, "hybrid_paragraph_p50_ms": plain}
        out["latency_ratio"]["ratio"] = ratio
        print(f"\nengine_routed p50 {routed} ms / hybrid_paragraph p50 {plain} ms = {ratio}x")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
