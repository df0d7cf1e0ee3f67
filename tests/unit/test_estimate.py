"""``KnowledgeEngine.estimate``/``kg-rag estimate`` before an ingest, and ``max_llm_tokens``.

Estimates are checked against what the ingest then spends, with the deterministic fake model
counting cl100k tokens as a paid API would. Calls and prompt tokens are counted on the real
prompts, so they hold within ±20% even on a new knowledge base; completion tokens and
community summaries follow ratios, which a knowledge base with history measures itself
(``llm-usage.json``), so there all three hold. The same bounds are measured on 100 musique-dev
passages by ``bench/llm_cost.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import fingerprint, open_engine, write_corpus

from kg_rag.cli import EXIT_FAILURES_LEFT, main
from kg_rag.engine import KnowledgeEngine
from kg_rag.estimate import IngestEstimate
from kg_rag.testing import graph_chat_model

pytestmark = pytest.mark.unit


def _engine(kb: Path, model: Any, response_cache: str = "shared") -> KnowledgeEngine:
    return open_engine(kb, model, mode="llm", response_cache=response_cache)


def _spent(report: Any) -> tuple[int, int, int]:
    graph, comms = report.graph, report.communities
    return (
        graph.llm_calls + (comms.llm_calls if comms else 0),
        graph.prompt_tokens + (comms.prompt_tokens if comms else 0),
        graph.completion_tokens + (comms.completion_tokens if comms else 0),
    )


def _within(estimate: int, actual: int, tolerance: float = 0.2) -> bool:
    return abs(estimate - actual) <= tolerance * actual


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("estimate")
    return write_corpus(root / "a", range(0, 24)), write_corpus(root / "b", range(100, 124))


def test_estimate_sends_nothing_and_writes_nothing(tmp_path: Path, corpora: Any) -> None:
    model = graph_chat_model(tokenizer="cl100k")
    with _engine(tmp_path / "kb", model) as kg:
        estimate = kg.estimate([corpora[0]])
        assert model.calls == [] and kg.chunk_store.list_documents() == []
    assert isinstance(estimate, IngestEstimate)
    assert estimate.documents == 24 and estimate.unchanged == 0 and estimate.calls > 0
    assert estimate.basis == "priors" and "calls" in str(estimate)


def test_new_knowledge_base_extraction_calls_and_prompt_tokens_within_20_percent(
    tmp_path: Path, corpora: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counted on the real prompts; the summary share rests on priors measured on passages.
    # The generated corpus gives the scripted model no failures: with the prior failure rate
    # (measured on musique passages) at 0, the planned calls are what the ingest makes.
    from kg_rag.estimate import PRIORS

    monkeypatch.setitem(PRIORS, "extraction_failures_per_chunk", 0.0)
    with _engine(tmp_path / "kb", graph_chat_model(tokenizer="cl100k")) as kg:
        estimate = kg.estimate([corpora[0]])
        graph = kg.ingest([corpora[0]]).graph
    assert _within(estimate.extraction.calls, graph.llm_calls), (estimate, graph)
    assert _within(estimate.extraction.prompt_tokens, graph.prompt_tokens), (estimate, graph)


def test_with_history_calls_and_both_token_counts_within_20_percent(
    tmp_path: Path, corpora: Any
) -> None:
    with _engine(tmp_path / "kb", graph_chat_model(tokenizer="cl100k")) as kg:
        kg.ingest([corpora[0]])
        assert (tmp_path / "kb" / "llm-usage.json").exists()
        estimate = kg.estimate([corpora[1]])
        actual = _spent(kg.ingest([corpora[1]]))
    assert estimate.basis == "history"
    got = (estimate.calls, estimate.prompt_tokens, estimate.completion_tokens)
    for name, e, a in zip(("calls", "prompt", "completion"), got, actual, strict=True):
        assert _within(e, a), (name, e, a)


def test_unchanged_files_cost_nothing_and_cached_chunks_are_free(
    tmp_path: Path, corpora: Any
) -> None:
    with _engine(tmp_path / "kb", graph_chat_model(tokenizer="cl100k"), "kb") as kg:
        kg.ingest([corpora[0]])
        again = kg.estimate([corpora[0]])
        assert again.calls == 0 and again.unchanged == 24 and again.documents == 0
        assert _spent(kg.ingest([corpora[0]]))[0] == 0
    # Same files into a knowledge base whose response cache holds them: free as well.
    other = tmp_path / "other" / "kb"
    other.mkdir(parents=True)
    for part in (tmp_path / "kb").glob("extraction-cache.sqlite*"):  # with its WAL
        (other / part.name).write_bytes(part.read_bytes())
    with _engine(other, graph_chat_model(tokenizer="cl100k"), "kb") as kg:
        warm = kg.estimate([corpora[0]])
        assert warm.extraction.calls == 0 and warm.extraction.cached_calls == warm.chunks > 0
        assert kg.ingest([corpora[0]]).graph.llm_calls == 0


@pytest.mark.parametrize("share", [0.1, 0.4, 0.8])
def test_max_llm_tokens_stops_at_the_cap_keeps_the_work_and_resumes(
    tmp_path: Path, corpora: Any, share: float
) -> None:
    model = graph_chat_model(tokenizer="cl100k")
    full = tmp_path / "full" / "kb"
    # Pinned to the KB folder: a shared cache would hand the capped run the full run's answers.
    with _engine(full, graph_chat_model(tokenizer="cl100k"), "kb") as kg:
        total = sum(_spent(kg.ingest([corpora[0]]))[1:])
    cap = int(total * share)
    kb = tmp_path / "capped" / "kb"
    with _engine(kb, model, "kb") as kg:
        report = kg.ingest([corpora[0]], max_llm_tokens=cap)
        reserve = kg.settings.llm.max_tokens
    spent = sum(_spent(report)[1:])
    longest = max(len(c.response) for c in model.calls)  # characters ≥ tokens of a reply
    assert spent <= cap + max(0, longest - reserve)
    assert report.failures and all("budget" in f.error for f in report.failures)
    assert report.documents_added == 24  # chunks and what was extracted are kept
    with _engine(kb, graph_chat_model(tokenizer="cl100k"), "kb") as kg:
        resumed = kg.repair()
    assert resumed.failures == []
    got, want = fingerprint(kb), fingerprint(full)
    for key in ("entities", "relations", "mentions", "communities"):
        assert got[key] == want[key], key


def test_cli_estimate_prints_and_json(
    tmp_path: Path, corpora: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    engine = _engine(tmp_path / "kb", graph_chat_model(tokenizer="cl100k"))
    engine.close()
    monkeypatch.setattr(KnowledgeEngine, "open", staticmethod(lambda *a, **k: engine))
    assert main(["estimate", str(corpora[0]), "--kb", str(tmp_path / "kb")]) == 0
    assert "total:" in capsys.readouterr().out
    assert main(["estimate", str(corpora[0]), "--json", "--kb", str(tmp_path / "kb")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["calls"] > 0 and data["documents"] == 24
    code = main(
        ["ingest", str(corpora[0]), "--max-llm-tokens", "500", "--kb", str(tmp_path / "kb")]
    )
    assert code == EXIT_FAILURES_LEFT


@pytest.mark.parametrize(
    ("mode", "second_calls_zero"), [("shared", True), ("kb", False), ("off", False)]
)
def test_response_cache_shared_across_knowledge_bases(
    tmp_path: Path, corpora: Any, mode: str, second_calls_zero: bool
) -> None:
    def engine(kb: Path, model: Any) -> KnowledgeEngine:
        kg = _engine(kb, model)
        kg.settings.llm.response_cache = mode  # type: ignore[assignment]
        kg.settings.llm.cache_dir = tmp_path / "user-cache"
        return kg

    with engine(tmp_path / "one" / "kb", graph_chat_model()) as kg:
        first = kg.ingest([corpora[0]])
    assert first.graph.llm_calls > 0
    second_model = graph_chat_model()
    with engine(tmp_path / "two" / "kb", second_model) as kg:
        estimate = kg.estimate([corpora[0]])
        second = kg.ingest([corpora[0]])
    extraction_prompts = second_model.calls_matching("You build a knowledge graph")
    assert (second.graph.llm_calls == 0) is second_calls_zero
    assert (extraction_prompts == []) is second_calls_zero
    assert (estimate.extraction.calls == 0) is second_calls_zero
    assert (tmp_path / "user-cache" / "extraction-cache.sqlite").exists() is (mode == "shared")
    assert (tmp_path / "one" / "kb" / "extraction-cache.sqlite").exists() is (mode == "kb")
    if mode == "shared":  # another model name is another key
        other = graph_chat_model()
        other.model_name = "other-model"
        with engine(tmp_path / "three" / "kb", other) as kg:
            assert kg.ingest([corpora[0]]).graph.llm_calls > 0


def test_default_response_cache_is_shared_in_the_user_cache_dir(
    tmp_path: Path, corpora: Any, _private_user_cache: Path
) -> None:
    from kg_rag.config import LLMSettings

    defaults = LLMSettings()
    assert defaults.response_cache == "shared"
    # The suite's own user cache dir (tests/conftest.py), never the real one.
    assert defaults.cache_dir == _private_user_cache / "kg-rag" / "responses"
    assert not defaults.cache_dir.is_relative_to(Path.home() / ".cache")
    with _engine(tmp_path / "one" / "kb", graph_chat_model()) as kg:
        assert kg.ingest([corpora[0]]).graph.llm_calls > 0
    second = graph_chat_model()
    with _engine(tmp_path / "two" / "kb", second) as kg:
        assert kg.estimate([corpora[0]]).extraction.calls == 0
        assert kg.ingest([corpora[0]]).graph.llm_calls == 0
    assert second.calls_matching("You build a knowledge graph") == []
    assert (defaults.cache_dir / "extraction-cache.sqlite").exists()


def _planned(n: int, cached: int = 0) -> list[Any]:
    from langchain_core.messages import HumanMessage

    from extraction.schema import ExtractionOutput

    return [
        ([HumanMessage(content=f"text number {i} " * 20)], ExtractionOutput, i < cached)
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("reported_per_counted", "failed"),
    [(1.0, 0), (0.15, 0), (2.0, 0), (1.0, 2), (0.5, 3)],
)
def test_history_scales_prompts_to_the_providers_count_and_prices_failures_apart(
    reported_per_counted: float, failed: int
) -> None:
    from extraction.tokens import prompt_tokens
    from kg_rag.estimate import UsageHistory, estimate_ingest

    # A history: 10 chunks, 10 calls of 100 counted tokens each, 2 of them failed with
    # 5-token replies, the healthy ones answering 3 completion tokens per prompt token.
    history = UsageHistory(
        extraction_calls=10,
        chunks_extracted=10,
        extraction_counted_prompt_tokens=1000,
        extraction_prompt_tokens=round(1000 * reported_per_counted),
        extraction_completion_tokens=round(800 * reported_per_counted * 3) + 10,
        extraction_failed_calls=2,
        extraction_failed_prompt_tokens=round(200 * reported_per_counted),
        extraction_failed_completion_tokens=10,
        extraction_failures=2,
    )
    ratios = history.ratios()
    assert ratios is not None
    assert ratios["prompt_reported_per_counted"] == pytest.approx(reported_per_counted, 0.01)
    assert ratios["extraction_completion_per_prompt"] == pytest.approx(3.0, 0.01)
    assert ratios["failed_completion_per_call"] == pytest.approx(5.0)

    planned = _planned(6)
    counted = sum(prompt_tokens(m, s) for m, s, _ in planned)
    estimate = estimate_ingest(
        planned,
        documents=6,
        unchanged=0,
        chunks=6,
        history=history,
        summaries=False,
        failed_chunks=failed,
        max_retries=1,
    )
    # Alone, a chunk that failed before costs one more attempt; new chunks fail at 20%.
    retries = round((failed + (6 - failed) * 0.2) * 1)
    assert estimate.extraction.calls == 6 + retries
    per_call = counted / 6
    assert estimate.extraction.prompt_tokens == pytest.approx(
        (counted + retries * per_call) * reported_per_counted, rel=0.01
    )
    failing_calls = retries + failed
    healthy = (counted + retries * per_call - failing_calls * per_call) * reported_per_counted
    assert estimate.extraction.completion_tokens == pytest.approx(
        healthy * 3.0 + failing_calls * 5.0, rel=0.02
    )


def test_priors_predict_completion_from_the_text_sent() -> None:
    from kg_rag.estimate import PRIORS, estimate_ingest

    for text_tokens in (0, 100, 5000):
        estimate = estimate_ingest(
            _planned(4, cached=1), documents=4, unchanged=0, chunks=4, text_tokens=text_tokens
        )
        assert estimate.basis == "priors" and estimate.extraction.cached_calls == 1
        assert estimate.extraction.completion_tokens == round(
            text_tokens * PRIORS["extraction_completion_per_text_token"]
        )
        assert estimate.text_tokens == text_tokens
