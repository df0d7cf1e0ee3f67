"""The bundled demo: a small corpus written for kg-rag whose facts need 2–3 hops, ingested and
queried offline (no server, no API key)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kg_rag.config import Settings

__all__ = ["DEMO_QUESTIONS", "corpus_path", "run_demo"]

DEMO_QUESTIONS: tuple[str, ...] = (
    "In which province is the headquarters of the company that Clara Okafor founded after leaving Nimbus Analytics?",
    "Which company was founded first, Nimbus Analytics or Brightwell Robotics?",
    "Where is the headquarters of the company that Tomas Lindqvist left in 2008?",
    "蓝鲸科技的创始人毕业于哪所大学？",
)


def corpus_path() -> Path:
    """Folder of the demo documents (Markdown, text, HTML; English and Chinese)."""
    return Path(__file__).resolve().parent / "corpus"


def run_demo(settings: Settings, *, fresh: bool = False, out: object = print) -> int:
    """Ingest the demo corpus into ``settings.kb_dir`` (default ``.kg_rag/demo-kb``) and answer
    the demo questions, printing answers, citations and each step's route."""
    from kg_rag.engine import KnowledgeEngine

    emit = out if callable(out) else print
    if settings.kb_dir == Settings.model_fields["kb_dir"].default:
        settings = settings.model_copy(update={"kb_dir": Path(".kg_rag/demo-kb")})
    if fresh and settings.kb_dir.exists():
        shutil.rmtree(settings.kb_dir)
    emit(
        f"kg-rag demo — knowledge base: {settings.kb_dir} (graph: {settings.graph_backend}, "
        f"LLM: {'configured' if settings.llm.enabled else 'none, offline methods'})"
    )
    t0 = time.perf_counter()
    with KnowledgeEngine.open(settings=settings) as kg:
        report = kg.ingest([corpus_path()])
        emit(str(report))
        emit(f"ingest took {time.perf_counter() - t0:.1f}s; knowledge base: {kg.stats()}")
        for question in DEMO_QUESTIONS:
            emit("")
            answer = kg.ask(question)
            emit(answer.render_text())
    return 0
