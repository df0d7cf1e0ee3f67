"""Shared fixtures of the answer-engine unit tests.

The demo corpus is ingested once per session into a temporary knowledge base (hash embedder,
offline extraction: about two seconds); tests that change a knowledge base work on a copy of
that folder, and tests that need a chat model open a second engine on the same folder with a
:class:`~kg_rag.testing.FakeChatModel`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kg_rag.answer.trace import Answer
from kg_rag.config import EmbeddingSettings, LLMSettings, RouterSettings, Settings
from kg_rag.demo import DEMO_QUESTIONS, corpus_path
from kg_rag.engine import KnowledgeEngine
from kg_rag.testing import HashEmbeddings

DIMS = 256
"""Vector size of the hash embedder every demo knowledge base here is built with."""


def offline_settings(kb_dir: Path | None = None, **router: Any) -> Settings:
    """Settings for an offline, embedded knowledge base, whatever the environment says.

    Explicit arguments win over ``KG_RAG_*`` variables, so a configured LLM endpoint or a
    Neo4j backend in the environment cannot leak into the unit tests.
    """
    settings = Settings(
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
        router=RouterSettings(**router),
    )
    if kb_dir is not None:
        settings.kb_dir = kb_dir
    return settings


def open_demo_engine(kb_dir: Path, llm: Any = None, **router: Any) -> KnowledgeEngine:
    """Open an engine on ``kb_dir`` with the hash embedder, an optional chat model and
    router settings (budgets, retries, text2cypher)."""
    return KnowledgeEngine.open(
        kb_dir,
        settings=offline_settings(kb_dir, **router),
        embedder=HashEmbeddings(DIMS),
        llm=llm,
        progress=False,
    )


@pytest.fixture(scope="session")
def demo_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folder of the demo knowledge base (built once; treat it as read-only)."""
    kb = tmp_path_factory.mktemp("demo") / "kb"
    with open_demo_engine(kb) as kg:
        report = kg.ingest([corpus_path()])
    assert report.documents_added == len(list(corpus_path().iterdir()))
    return kb


@pytest.fixture(scope="session")
def demo_engine(demo_kb: Path) -> Iterator[KnowledgeEngine]:
    """An offline engine on the shared demo knowledge base (read-only use)."""
    kg = open_demo_engine(demo_kb)
    yield kg
    kg.close()


@pytest.fixture(scope="session")
def demo_answers(demo_engine: KnowledgeEngine) -> dict[str, Answer]:
    """The offline answers to the demo questions, asked once."""
    return {q: demo_engine.ask(q) for q in DEMO_QUESTIONS}


@pytest.fixture()
def kb_copy(demo_kb: Path, tmp_path: Path) -> Path:
    """A private copy of the demo knowledge base, free to change."""
    dst = tmp_path / "kb"
    shutil.copytree(demo_kb, dst)
    return dst


@pytest.fixture()
def engine_with() -> Iterator[Callable[..., KnowledgeEngine]]:
    """``engine_with(kb_dir, llm=None, **router_settings)`` opens an engine closed at teardown."""
    opened: list[KnowledgeEngine] = []

    def make(kb_dir: Path, llm: Any = None, **router: Any) -> KnowledgeEngine:
        kg = open_demo_engine(kb_dir, llm, **router)
        opened.append(kg)
        return kg

    yield make
    for kg in opened:
        kg.close()
