"""``KnowledgeEngine.estimate`` against what the real llama.cpp server reports it was sent.

The estimate counts prompts in cl100k tokens with the tool schema, as OpenAI bills them. The
llama.cpp server counts its own tokenizer and chat template, and not the schema (it turns it
into a grammar; the Gemma template also drops the system message): on a new knowledge base its
prompt counts are a fraction of the estimate's. A knowledge base's history measures that
ratio, and its reply lengths and failure rate, so once it has ingested something the
estimate for the next documents holds within ±20% of the server's own usage. Extraction only
(communities too small for LLM summaries) to keep the run short on a CPU server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_rag.config import EmbeddingSettings, ExtractionSettings, LLMSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest.loaders import SourceDocument
from kg_rag.llm import build_chat_model
from kg_rag.testing import HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.llm, pytest.mark.timeout(900)]

_FACTS = [
    ("Marie Curie", "Marie Curie was born in Warsaw and worked in Paris with Pierre Curie."),
    ("Alan Turing", "Alan Turing studied at King's College in Cambridge and worked at Bletchley."),
    ("Ada Lovelace", "Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage."),
    ("Niels Bohr", "Niels Bohr founded an institute in Copenhagen and met Werner Heisenberg."),
    ("Lise Meitner", "Lise Meitner worked in Berlin with Otto Hahn before moving to Stockholm."),
    ("Enrico Fermi", "Enrico Fermi left Rome for New York and later built a reactor in Chicago."),
]


def _docs(rows: list[tuple[str, str]]) -> list[SourceDocument]:
    return [
        SourceDocument(doc_id=title.lower().replace(" ", "-"), title=title, text=text)
        for title, text in rows
    ]


def _spent(report: object) -> tuple[int, int, int]:
    graph = report.graph  # type: ignore[attr-defined]
    comms = report.communities  # type: ignore[attr-defined]
    return (
        graph.llm_calls + (comms.llm_calls if comms else 0),
        graph.prompt_tokens + (comms.prompt_tokens if comms else 0),
        graph.completion_tokens + (comms.completion_tokens if comms else 0),
    )


def _within(estimate: int, actual: int, tolerance: float = 0.2) -> bool:
    return abs(estimate - actual) <= tolerance * max(1, actual)


def test_estimate_matches_the_servers_usage_once_the_kb_has_history(
    llm_base_url: str, tmp_path: Path
) -> None:
    # Replies cut at 8 tokens and no retries: the 270M base model's reply lengths and
    # failures would otherwise vary too much over six chunks to judge an estimate by (at 24
    # tokens: calls and prompt tokens within 20%, completion +24%).
    llm = LLMSettings(
        base_url=llm_base_url, model="local", max_tokens=8, timeout_s=180, max_retries=0
    )
    settings = Settings(
        graph_backend="embedded",
        llm=llm.model_copy(update={"response_cache": "kb"}),
        embedding=EmbeddingSettings(provider="hash", dimensions=64),
        extraction=ExtractionSettings(mode="llm", max_retries=0, concurrency=2),
    )
    settings.communities.llm_min_size = 10_000  # extractive summaries: extraction calls only
    kb = tmp_path / "kb"
    with KnowledgeEngine.open(
        kb,
        settings=settings,
        llm=build_chat_model(llm),
        embedder=HashEmbeddings(64),
        progress=False,
    ) as kg:
        first, second = _docs(_FACTS[:3]), _docs(_FACTS[3:])
        fresh = kg.estimate(first)
        spent_first = _spent(kg.ingest(first))
        assert spent_first[0] > 0 and spent_first[1] > 0, "the server reports usage"
        # Without history: one call per chunk planned (priors know no failure rate of this
        # model), prompts counted as OpenAI bills them, above what the server counts.
        assert fresh.basis == "priors" and fresh.calls >= len(first)
        assert fresh.prompt_tokens > spent_first[1]

        estimate = kg.estimate(second)
        spent = _spent(kg.ingest(second))

    assert estimate.basis == "history"
    named = zip(
        ("calls", "prompt", "completion"),
        (estimate.calls, estimate.prompt_tokens, estimate.completion_tokens),
        spent,
        strict=True,
    )
    for name, e, a in named:
        assert _within(e, a), f"{name}: estimate {e} vs server {a} (first ingest {spent_first})"
