"""LLM-mode ingest with a model that fails 30% of its calls (timeouts, HTTP 429, truncated JSON,
invalid JSON, schema-valid nonsense): the ingest completes, every chunk and community summary
that failed is in the knowledge base's failure ledger, a re-run with a healthy model repairs
all of them, and the knowledge base then equals a fault-free run's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import fingerprint, open_engine, write_corpus

from kg_rag.cli import EXIT_FAILURES_LEFT, main
from kg_rag.engine import KnowledgeEngine
from kg_rag.testing import FAULT_KINDS, FaultInjectingChatModel, graph_chat_model

pytestmark = pytest.mark.unit

_TEXT = re.compile(r'Text:\n"""\n(.*?)\n"""', re.DOTALL)
_CONTEXT = re.compile(r"Write the community report for:\n\n(.*?)(?:\nhuman: |\Z)", re.DOTALL)


def _engine(kb: Path, llm: Any, batch_tokens: int = 0) -> KnowledgeEngine:
    # Cache in the KB folder: the faulty run must not be served the healthy run's answers.
    kg = open_engine(kb, llm, mode="llm", response_cache="kb")
    # One retry: a chunk fails for good with probability 0.3² instead of 0.3³, so 30
    # documents are sure to leave failures of both kinds. One chunk per call (a failed batch
    # is retried chunk by chunk, which makes failures for good rarer); batches under faults
    # are tested below.
    kg.settings.extraction.max_retries = 1
    kg.settings.extraction.batch_tokens = batch_tokens
    # Every community summarized by the model: enough summary calls for faults of every kind.
    kg.settings.communities.llm_min_size = 1
    return kg


def _failed_items(model: FaultInjectingChatModel, pattern: re.Pattern[str]) -> set[str]:
    """Prompt blocks (chunk texts or community contexts) that never got a healthy reply; a
    batched extraction prompt holds several chunk texts."""
    asked = {block for f in model.faults for block in pattern.findall(f.prompt)}
    answered = {block for p in model.healthy_prompts for block in pattern.findall(p)}
    return asked - answered


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("faults") / "corpus", range(30))


@pytest.fixture(scope="module")
def healthy_kb(corpus: Path) -> Path:
    kb = corpus.parent / "healthy" / "kb"
    with _engine(kb, graph_chat_model()) as kg:
        report = kg.ingest([corpus])
    assert report.failures == [] and report.graph.extractor == "llm"
    return kb


def test_faulty_model_leaves_every_failure_in_the_ledger_and_a_healthy_rerun_repairs_all(
    corpus: Path, healthy_kb: Path
) -> None:
    kb = corpus.parent / "faulty" / "kb"
    faulty = FaultInjectingChatModel(inner=graph_chat_model(), rate=0.3, seed=11)
    with _engine(kb, faulty) as kg:
        report = kg.ingest([corpus])
        extraction_level = kg.settings.extraction.level
        chunks = kg.chunk_store.chunks_for_documents(
            [d.doc_id for d in kg.chunk_store.list_documents()], level=extraction_level
        )
    assert report.documents_added == 30
    assert {f.kind for f in faulty.faults} == set(FAULT_KINDS)
    # Every chunk and summary that never got a healthy reply is in the ledger, nothing else.
    by_text: dict[str, list[str]] = {}
    for c in chunks:
        by_text.setdefault(c.text, []).append(c.chunk_id)
    expected_chunks = {cid for t in _failed_items(faulty, _TEXT) for cid in by_text[t]}
    failures = {(f.kind, f.item_id) for f in report.failures}
    assert expected_chunks and {i for k, i in failures if k == "extraction"} == expected_chunks
    expected_summaries = _failed_items(faulty, _CONTEXT)
    assert expected_summaries
    assert len([i for k, i in failures if k == "summary"]) == len(expected_summaries)
    assert all(f.error for f in report.failures)
    text = str(report)
    assert f"{len(report.failures)} LLM failures recorded" in text
    assert "LLM calls" in text and report.graph.prompt_tokens > 0
    assert report.graph.llm_calls > report.graph.chunks_extracted  # retries are counted
    assert fingerprint(kb)["entities"] != fingerprint(healthy_kb)["entities"]

    # Without a model nothing can retry them: they stay recorded, nothing is rebuilt.
    offline = corpus.parent / "offline"
    shutil.copytree(kb.parent, offline)
    with open_engine(offline / "kb", None, mode="auto") as kg:
        again = kg.repair()
    assert again.graph.chunks_extracted == 0 and again.communities is None
    assert sorted(map(str, again.failures)) == sorted(map(str, report.failures))

    healed = FaultInjectingChatModel(inner=graph_chat_model(), rate=0.0, seed=11)
    with _engine(kb, healed) as kg:
        repaired = kg.repair()
    assert repaired.failures == []
    # Only the failed chunks and summaries cost calls: the rest come from the response cache.
    extraction_calls = [p for p in healed.healthy_prompts if _TEXT.search(p)]
    assert len(extraction_calls) == len(expected_chunks)
    assert repaired.graph.cache_hits == len(chunks) - len(expected_chunks)
    got, want = fingerprint(kb), fingerprint(healthy_kb)
    for key in ("entities", "relations", "mentions", "communities", "index", "chunks"):
        assert got[key] == want[key], key
    assert got == want


def test_batched_faulty_ingest_records_every_failure_and_repairs_to_the_healthy_kb(
    corpus: Path, healthy_kb: Path
) -> None:
    kb = corpus.parent / "faulty-batched" / "kb"
    faulty = FaultInjectingChatModel(inner=graph_chat_model(), rate=0.5, seed=5)
    with _engine(kb, faulty, batch_tokens=600) as kg:
        report = kg.ingest([corpus])
        chunks = kg.chunk_store.chunks_for_documents(
            [d.doc_id for d in kg.chunk_store.list_documents()], level=kg.settings.extraction.level
        )
    assert any(len(_TEXT.findall(p)) > 1 for p in faulty.healthy_prompts)  # it did batch
    by_text: dict[str, list[str]] = {}
    for c in chunks:
        by_text.setdefault(c.text, []).append(c.chunk_id)
    expected = {cid for t in _failed_items(faulty, _TEXT) for cid in by_text[t]}
    recorded = {f.item_id for f in report.failures if f.kind == "extraction"}
    assert expected and recorded == expected
    healed = FaultInjectingChatModel(inner=graph_chat_model(), rate=0.0)
    with _engine(kb, healed, batch_tokens=600) as kg:
        repaired = kg.repair()
    assert repaired.failures == []
    got, want = fingerprint(kb), fingerprint(healthy_kb)
    for key in ("entities", "relations", "mentions", "communities", "index", "chunks"):
        assert got[key] == want[key], key


def test_nothing_to_repair_makes_no_call(healthy_kb: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(healthy_kb, kb)
    model = FaultInjectingChatModel(inner=graph_chat_model(), rate=0.0)
    with _engine(kb, model) as kg:
        report = kg.repair()
    assert model.healthy_prompts == [] and report.failures == []
    assert report.graph.chunks_extracted == 0 and report.communities is None


@pytest.mark.parametrize(("rate", "code"), [(1.0, EXIT_FAILURES_LEFT), (0.0, 0)])
def test_cli_ingest_exits_non_zero_while_failures_remain(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rate: float,
    code: int,
) -> None:
    model = FaultInjectingChatModel(inner=graph_chat_model(), rate=rate, seed=3)
    kb = tmp_path / "kb"

    engine = _engine(kb, model)
    engine.close()  # reopened by the command's ``with`` block

    def fake_open(*args: Any, **kwargs: Any) -> KnowledgeEngine:
        return engine

    monkeypatch.setattr(KnowledgeEngine, "open", staticmethod(fake_open))
    small = tmp_path / "small"
    small.mkdir()
    for name in ("doc-000.md", "doc-001.md"):
        (small / name).write_text((corpus / name).read_text("utf-8"), "utf-8")
    assert main(["ingest", str(small), "--kb", str(kb)]) == code
    err = capsys.readouterr().err.strip().splitlines()
    if code:
        assert len(err) == 1 and "kg-rag repair" in err[0]
        model.rate = 0.0
        assert main(["repair", "--kb", str(kb)]) == 0
    else:
        assert err == []
