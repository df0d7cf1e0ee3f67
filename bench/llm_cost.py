"""LLM cost of indexing and answering, counted as a paid API bills it.

A scripted chat model (:func:`kg_rag.testing.graph_chat_model` with ``tokenizer="cl100k"``)
answers every extraction and community-report prompt deterministically and reports usage in
``cl100k_base`` tokens (:mod:`extraction.tokens`: messages with their framing plus the tool
schema as sent with every call). Nothing leaves the machine; the tables are what a paid
endpoint would have been sent. Sections:

* **indexing**: LLM calls and prompt/completion tokens per passage, by phase (extraction,
  community summaries), on the first N passages of a corpus (default 100 of musique-dev);
* **questions**: LLM calls per question by plan length (1-4 steps), with rewrites allowed;
* **estimate**: ``KnowledgeEngine.estimate`` before the ingest against what it spent, on the
  report half of the first 4N passages (the first 2N: N for a new knowledge base, N more for
  one with history); ``--calibrate`` first measures the priors of
  :data:`kg_rag.estimate.PRIORS` on the dev half (passages 2N to 4N, as new knowledge bases of
  N) and prints them next to the ones in use. Every knowledge base keeps its response cache in its own folder.

Run: ``nice .venv/bin/python bench/llm_cost.py --data ../shared/bench/musique-dev``
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_dataset, print_table
from extraction.tokens import tokenizer_name
from kg_rag.answer import prompts
from kg_rag.config import EmbeddingSettings, RouterSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.testing import FakeChatModel, HashEmbeddings, graph_chat_model

DIMS = 256
PUBLISHED = [  # HippoRAG 2 paper, App. F: per-passage indexing tokens on MuSiQue
    ("GraphRAG (published)", 9910, 3100),
    ("LightRAG (published)", 5880, 1570),
    ("HippoRAG 2 (published)", 790, 260),
]


OVERRIDES: dict[str, dict[str, Any]] = {"extraction": {}, "communities": {}}
"""Settings sections changed from the command line (``--set communities.llm_min_size=10``)."""


def _settings(kb: Path, **router: Any) -> Settings:
    settings = Settings(
        kb_dir=kb,
        graph_backend="embedded",
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
        router=RouterSettings(**router),
    )
    for section, values in OVERRIDES.items():
        for name, value in values.items():
            setattr(getattr(settings, section), name, value)
    # Costs of each knowledge base on its own, and nothing written to the user's cache dir.
    settings.llm.response_cache = "kb"
    return settings


def _open(kb: Path, llm: Any, **router: Any) -> KnowledgeEngine:
    return KnowledgeEngine.open(
        kb, settings=_settings(kb, **router), embedder=HashEmbeddings(DIMS), llm=llm, progress=False
    )


def documents(data: Path, limit: int) -> list[SourceDocument]:
    """The first ``limit`` passages of the corpus, one document each (file order)."""
    dataset = load_dataset(data)
    return [
        SourceDocument(doc_id=p.id, title=p.title, text=p.text) for p in dataset.passages[:limit]
    ]


def indexing(kb: Path, docs: list[SourceDocument]) -> dict[str, Any]:
    """Ingest ``docs`` with the counting model; usage per phase."""
    model = graph_chat_model(tokenizer="cl100k")
    t0 = time.perf_counter()
    with _open(kb, model) as kg:
        report = kg.ingest(docs)
    graph, comms = report.graph, report.communities
    assert graph is not None and comms is not None
    return {
        "extraction": (graph.llm_calls, graph.prompt_tokens, graph.completion_tokens),
        "communities": (comms.llm_calls, comms.prompt_tokens, comms.completion_tokens),
        "entities": graph.entities,
        "relations": graph.relations,
        "community_count": comms.communities,
        "summarized": comms.summarized,
        "seconds": time.perf_counter() - t0,
        "model_calls": len(model.calls),
    }


def print_indexing(result: dict[str, Any], n: int) -> None:
    rows: list[list[Any]] = []
    total = [0, 0, 0]
    for phase in ("extraction", "communities"):
        calls, prompt, completion = result[phase]
        total = [total[0] + calls, total[1] + prompt, total[2] + completion]
        rows.append([phase, calls / n, prompt / n, completion / n])
    rows.append(["all-in", total[0] / n, total[1] / n, total[2] / n])
    for name, prompt, completion in PUBLISHED:
        rows.append([name, "-", float(prompt), float(completion)])
    print_table(
        f"Indexing cost per passage ({n} passages, {tokenizer_name()} tokens, schema included; "
        f"{result['entities']} entities, {result['relations']} relations, "
        f"{result['community_count']} communities, {result['summarized']} summarized)",
        ["phase", "calls", "prompt tok", "completion tok"],
        rows,
    )


# -- questions -------------------------------------------------------------------------------
def _marker(template: str) -> str:
    return re.escape(template[:40])


def _question_model(steps: int) -> FakeChatModel:
    plan = {
        "question": "q",
        "steps": [
            {
                "index": i + 1,
                "query": f"What is related to #{i}?" if i else "What is it?",
                "depends_on": [i] if i else [],
            }
            for i in range(steps)
        ],
    }
    read = {"answer": "Paris", "grade": 0.9, "evidence_numbers": [1], "reason": "scripted"}
    return FakeChatModel(
        script=[
            (_marker(prompts.PLANNER_PROMPT), json.dumps(plan)),
            (
                _marker(prompts.ROUTER_PROMPT),
                json.dumps({"route": "chunks", "granularity": "paragraph", "reason": "s"}),
            ),
            (_marker(prompts.STEP_READ_PROMPT), json.dumps(read)),
            (_marker(prompts.REWRITE_PROMPT), json.dumps({"query": "rewritten"})),
            (_marker(prompts.SYNTH_PROMPT), "Paris [1]."),
        ],
        tokenizer="cl100k",
    )


def questions(kb: Path, questions: list[str]) -> list[list[Any]]:
    """Calls per question by plan length (max_retries=1: weak steps are rewritten and searched
    again), with LLM routing of abstaining steps off (default) and on."""
    rows: list[list[Any]] = []
    for steps in (1, 2, 3, 4):
        for llm_route in (False, True):
            calls: list[int] = []
            tokens: list[int] = []
            rewrites = 0
            for q in questions:
                model = _question_model(steps)
                with _open(kb, model, max_retries=1, llm_route=llm_route) as kg:
                    answer = kg.ask(q)
                trace = answer.trace
                calls.append(len(model.calls))
                tokens.append(trace.prompt_tokens + trace.completion_tokens)
                rewrites += sum(len(st.rewrites) for st in trace.steps)
            rows.append(
                [
                    steps,
                    "on" if llm_route else "off (default)",
                    max(calls),
                    sum(calls) / len(calls),
                    steps + 2,
                    rewrites / len(questions),
                    sum(tokens) / len(tokens),
                ]
            )
    return rows


def _phases(report: Any) -> dict[str, tuple[int, int, int]]:
    graph, comms = report.graph, report.communities
    spent = {
        "extraction": (graph.llm_calls, graph.prompt_tokens, graph.completion_tokens),
        "summaries": (
            (comms.llm_calls, comms.prompt_tokens, comms.completion_tokens) if comms else (0, 0, 0)
        ),
    }
    spent["all"] = tuple(
        a + b for a, b in zip(spent["extraction"], spent["summaries"], strict=True)
    )
    return spent


def _error(e: float, a: float) -> str:
    return f"{(e - a) / a * 100:+.1f}%" if a else ("exact" if e == a else "n/a")


def _rows(label: str, est: Any, report: Any, detail: bool) -> list[list[Any]]:
    rows = []
    actual = _phases(report)
    estimated = {"extraction": est.extraction, "summaries": est.summaries, "all": est}
    for phase in ("all", "extraction", "summaries") if detail else ("all",):
        e_phase = estimated[phase]
        for name, e, a in zip(
            ("calls", "prompt tok", "completion tok"),
            (e_phase.calls, e_phase.prompt_tokens, e_phase.completion_tokens),
            actual[phase],
            strict=True,
        ):
            rows.append([label, est.basis, phase, name, e, a, _error(e, a)])
    return rows


def calibrate(root: Path, dev: list[SourceDocument], size: int) -> list[list[Any]]:
    """The priors measured on new knowledge bases of ``size`` passages each, over the ``dev``
    passages (summed, then divided), next to the ones :data:`kg_rag.estimate.PRIORS` holds."""
    from kg_rag.estimate import PRIORS

    keys = ("text", "completion", "chunks", "failures", "s_calls", "s_prompt", "s_completion")
    sums = dict.fromkeys(keys, 0)
    for start in range(0, len(dev), size):
        docs = dev[start : start + size]
        with _open(root / f"calibrate-{start}", graph_chat_model(tokenizer="cl100k")) as kg:
            before = kg.estimate(docs)
            report = kg.ingest(docs)
        graph, comms = report.graph, report.communities
        assert graph is not None and comms is not None
        values = (
            before.text_tokens,
            graph.completion_tokens,
            graph.chunks_extracted,
            len(graph.failures),
            comms.llm_calls,
            comms.prompt_tokens,
            comms.completion_tokens,
        )
        for key, value in zip(keys, values, strict=True):
            sums[key] += value
    chunks, calls = max(1, sums["chunks"]), max(1, sums["s_calls"])
    measured = {
        "extraction_completion_per_text_token": sums["completion"] / max(1, sums["text"]),
        "summary_calls_per_chunk": sums["s_calls"] / chunks,
        "summary_prompt_per_call": sums["s_prompt"] / calls,
        "summary_completion_per_call": sums["s_completion"] / calls,
        "extraction_failures_per_chunk": sums["failures"] / chunks,
    }
    return [
        [name, value, PRIORS[name], _error(PRIORS[name], value)] for name, value in measured.items()
    ]


def estimates(
    root: Path, docs: list[SourceDocument], others: list[SourceDocument], detail: bool = False
) -> list[Any]:
    """Estimate vs actual: a new knowledge base (priors), one that ingested ``others`` first
    (its own ratios), and a re-ingest of the same documents (cache and hashes)."""
    rows: list[list[Any]] = []
    fresh = root / "est-fresh"
    with _open(fresh, graph_chat_model(tokenizer="cl100k")) as kg:
        est = kg.estimate(docs)
        rows += _rows("new KB", est, kg.ingest(docs), detail)
        again = kg.estimate(docs)
        rows += _rows("re-ingest, unchanged", again, kg.ingest(docs), detail)
    grown = root / "est-history"
    with _open(grown, graph_chat_model(tokenizer="cl100k")) as kg:
        kg.ingest(others)
        est = kg.estimate(docs)
        rows += _rows(f"KB with {len(others)} passages", est, kg.ingest(docs), detail)
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/bench/musique-dev"))
    parser.add_argument("--passages", type=int, default=100)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["indexing", "questions", "estimate"]
    )
    parser.add_argument(
        "--phases", action="store_true", help="estimate vs actual per phase, not only in all"
    )
    parser.add_argument(
        "--calibrate", action="store_true", help="measure the estimate's priors on the dev half"
    )
    parser.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="SECTION.NAME=INT",
        help="override an extraction/communities setting, e.g. extraction.batch_tokens=0",
    )
    args = parser.parse_args(argv)
    for item in args.set:
        dotted, value = item.split("=", 1)
        section, name = dotted.split(".", 1)
        OVERRIDES[section][name] = int(value)
    docs = documents(args.data, args.passages)
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "kb"
        if "indexing" not in args.skip or "questions" not in args.skip:
            result = indexing(kb, docs)
            print_indexing(result, len(docs))
        if "questions" not in args.skip:
            qs = [q.question for q in load_dataset(args.data).questions[: args.questions]]
            print_table(
                f"LLM calls per question by plan length ({len(qs)} questions each, max_retries=1)",
                ["steps", "llm_route", "max calls", "mean calls", "steps+2", "rewrites", "tokens"],
                questions(kb, qs),
            )
        pool = documents(args.data, 4 * args.passages)
        report_half, dev_half = pool[: 2 * args.passages], pool[2 * args.passages :]
        if args.calibrate:
            print_table(
                f"Estimate priors measured on the dev half (passages {2 * args.passages}-"
                f"{4 * args.passages - 1}, new KBs of {args.passages}; fake model)",
                ["ratio", "measured", "in PRIORS", "PRIORS vs measured"],
                calibrate(Path(tmp), dev_half, args.passages),
            )
        if "estimate" not in args.skip:
            docs = report_half[: args.passages]
            others = report_half[args.passages : 2 * args.passages]
            print_table(
                f"Ingest estimate vs actual ({len(docs)} passages of the report half; fake "
                f"model, {tokenizer_name()} tokens)",
                ["ingest", "ratios", "phase", "count", "estimate", "actual", "error"],
                estimates(Path(tmp), docs, others, detail=args.phases),
            )


if __name__ == "__main__":
    main()
