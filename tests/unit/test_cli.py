"""The ``kg-rag`` command through :func:`kg_rag.cli.main`: ingest, ask (text and JSON), delete,
info with masked secrets, and one-line errors with exit status 1.

The CLI reads its settings from the environment: every ``KG_RAG_*`` variable is cleared and
the hash embedder selected, so the commands open the same kind of knowledge base as the
session's demo knowledge base (built with ``HashEmbeddings(256)``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kg_rag.answer.trace import Answer
from kg_rag.cli import main
from kg_rag.demo import DEMO_QUESTIONS, corpus_path

pytestmark = pytest.mark.unit

DOCS = len(list(corpus_path().iterdir()))


@pytest.fixture(autouse=True)
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A clean environment (no .env, no KG_RAG_* variables) with the hash embedder."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("KG_RAG_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("KG_RAG_EMBEDDING__PROVIDER", "hash")
    monkeypatch.setenv("KG_RAG_EMBEDDING__DIMENSIONS", "256")
    return tmp_path


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kg-rag: error: ")
    return lines[0]


def test_ingest_then_reingest_is_incremental(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb"
    assert main(["ingest", str(corpus_path()), "--kb", str(kb)]) == 0
    out = capsys.readouterr().out
    assert f"{DOCS} added" in out and "chunks extracted" in out
    assert main(["ingest", str(corpus_path()), "--kb", str(kb)]) == 0
    out = capsys.readouterr().out
    assert f"{DOCS} unchanged" in out and "0 added" in out
    assert "graph: 0 chunks extracted" in out


def test_ingest_exclude_glob_skips_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb"
    assert main(["ingest", str(corpus_path()), "--kb", str(kb), "--exclude", "*.html"]) == 0
    assert f"{DOCS - 1} added" in capsys.readouterr().out


def test_ask_json_prints_a_valid_answer_with_its_trace(
    demo_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = DEMO_QUESTIONS[2]
    assert main(["ask", question, "--kb", str(demo_kb), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["question"] == question
    assert data["trace"]["steps"] and all(s["decision"]["reason"] for s in data["trace"]["steps"])
    answer = Answer.model_validate_json(out)
    assert answer.text.startswith("Malmö") and answer.citations


def test_ask_prints_answer_steps_and_citations(
    demo_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", DEMO_QUESTIONS[0], "--kb", str(demo_kb)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Q: {DEMO_QUESTIONS[0]}\nA: North Brabant")
    assert "step 1: [" in out and "step 3: [" in out
    assert "eindhoven.html @" in out


def test_delete_reports_and_sets_the_exit_status(
    kb_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["delete", "eindhoven.html", "--kb", str(kb_copy)]) == 0
    assert capsys.readouterr().out.strip() == "eindhoven.html: deleted"
    assert main(["delete", "eindhoven.html", "--kb", str(kb_copy)]) == 1
    assert capsys.readouterr().out.strip() == "eindhoven.html: not found"
    assert main(["ask", DEMO_QUESTIONS[0], "--kb", str(kb_copy), "--json"]) == 0
    answer = Answer.model_validate_json(capsys.readouterr().out)
    assert "North Brabant" not in answer.text


def test_info_masks_secrets_set_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KG_RAG_NEO4J__PASSWORD", "s3cret-neo4j-pw")
    monkeypatch.setenv("KG_RAG_LLM__API_KEY", "sk-secret-api-key")
    monkeypatch.setenv("KG_RAG_NEO4J__URI", "bolt://db.example:7687")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "s3cret-neo4j-pw" not in out and "sk-secret-api-key" not in out
    data = json.loads(out)
    assert data["neo4j"]["password"] == "**********"
    assert data["llm"]["api_key"] == "**********"
    assert data["neo4j"]["uri"] == "bolt://db.example:7687", "the environment was read"
    assert data["embedding"]["provider"] == "hash"


def test_info_shows_no_password_when_none_is_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info"]) == 0
    assert json.loads(capsys.readouterr().out)["neo4j"]["password"] is None


def test_opening_a_kb_built_with_another_embedder_fails_in_one_line(
    demo_kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KG_RAG_EMBEDDING__DIMENSIONS", "64")
    assert main(["ask", "Where is Malmö?", "--kb", str(demo_kb)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error_line(captured.err)
    assert "hash-256" in line and "hash-64" in line


def test_neo4j_backend_without_password_fails_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "Where is Malmö?", "--kb", str(tmp_path / "kb"), "--graph", "neo4j"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "KG_RAG_NEO4J__PASSWORD" in line


def test_export_without_password_fails_in_one_line(
    demo_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "neo4j", "--kb", str(demo_kb)]) == 1
    assert "KG_RAG_NEO4J__PASSWORD" in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("action", ["update", "rebuild"])
def test_communities_rebuild_and_update(
    kb_copy: Path, capsys: pytest.CaptureFixture[str], action: str
) -> None:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(kb_copy) as kg:
        before = sorted((c.community_id, tuple(c.members)) for c in kg.graph_store.communities())
    assert main(["communities", action, "--kb", str(kb_copy)]) == 0
    out = capsys.readouterr().out
    # A rebuild clusters the whole graph and counts its levels; an update with nothing
    # changed stays incremental and reads only what it touched.
    shape = " levels, " if action == "rebuild" else " updated incrementally, "
    assert out.startswith("communities: ") and shape in out
    with KnowledgeEngine.open(kb_copy) as kg:
        after = sorted((c.community_id, tuple(c.members)) for c in kg.graph_store.communities())
    # Nothing changed since the demo ingest: an update keeps everything; a rebuild of the
    # same graph finds the same communities.
    assert after == before
