"""Several engine processes serve queries over one Neo4j-backed knowledge base.

The demo corpus is ingested once into a knowledge base whose graph lives in the real Neo4j;
two more engine processes then open the same knowledge base folder (LanceDB chunks and
community index) and the same Neo4j database at the same time, and each retrieves and
answers every demo question. Both must give what the ingesting process gives: the engine
keeps no state a second reader would lack.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg_rag.config import EmbeddingSettings, LLMSettings, Neo4jSettings, Settings
from kg_rag.demo import DEMO_QUESTIONS, corpus_path
from kg_rag.engine import KnowledgeEngine
from kg_rag.testing import HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

DIMS = 256
REPO = Path(__file__).resolve().parents[2]

_SERVE = """
import json, sys
from pathlib import Path
from kg_rag.config import EmbeddingSettings, LLMSettings, Settings
from kg_rag.engine import KnowledgeEngine
from kg_rag.testing import HashEmbeddings

kb, questions = Path(sys.argv[1]), json.loads(sys.argv[2])
settings = Settings(
    graph_backend="neo4j", llm=LLMSettings(), embedding=EmbeddingSettings(provider="hash", dimensions=256)
)
settings.kb_dir = kb
settings.extraction.mode = "offline"
with KnowledgeEngine.open(kb, settings=settings, embedder=HashEmbeddings(256), progress=False) as kg:
    out = {}
    for q in questions:
        answer = kg.ask(q)
        out[q] = {
            "pid": __import__("os").getpid(),
            "backend": kg.graph_store.backend,
            "answer": answer.text,
            "citations": [c.chunk_id for c in answer.citations],
            "fast": [e.chunk_id for e in kg.retrieve(q, depth="fast")],
        }
print(json.dumps(out))
"""


QUERY_TIMEOUT_S = 120
"""Generous: this test is about several readers, not latency (a loaded CI box is slow)."""


def neo4j_settings_for(kb: Path, neo4j: Neo4jSettings) -> Settings:
    settings = Settings(
        graph_backend="neo4j",
        neo4j=neo4j.model_copy(update={"query_timeout_s": QUERY_TIMEOUT_S}),
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
    )
    settings.kb_dir = kb
    settings.extraction.mode = "offline"
    return settings


def test_two_engine_processes_answer_over_one_neo4j_knowledge_base(
    tmp_path: Path, empty_neo4j: Neo4jSettings
) -> None:
    password = empty_neo4j.password.get_secret_value() if empty_neo4j.password else ""
    kb = tmp_path / "kb"
    settings = neo4j_settings_for(kb, empty_neo4j)
    expected = {}
    with KnowledgeEngine.open(
        kb, settings=settings, embedder=HashEmbeddings(DIMS), progress=False
    ) as kg:
        kg.ingest([corpus_path()])
        assert kg.graph_store.backend == "neo4j" and kg.stats()["entities"] > 0
        for q in DEMO_QUESTIONS:
            answer = kg.ask(q)
            expected[q] = (
                answer.text,
                [c.chunk_id for c in answer.citations],
                [e.chunk_id for e in kg.retrieve(q, depth="fast")],
            )

    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_RAG_")}
    env.update(
        PYTHONPATH=str(REPO),
        KG_RAG_NEO4J__URI=empty_neo4j.uri,
        KG_RAG_NEO4J__USER=empty_neo4j.user,
        KG_RAG_NEO4J__PASSWORD=password,
        KG_RAG_NEO4J__DATABASE=empty_neo4j.database,
        KG_RAG_NEO4J__QUERY_TIMEOUT_S=str(QUERY_TIMEOUT_S),
    )
    # Both processes run at once: started together, read after both are running.
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(kb), json.dumps(DEMO_QUESTIONS)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    pids = {next(iter(o.values()))["pid"] for o in outputs}
    assert len(pids) == 2
    for served in outputs:
        for q in DEMO_QUESTIONS:
            got = served[q]
            assert got["backend"] == "neo4j"
            assert got["fast"], q
            assert (got["answer"], got["citations"], got["fast"]) == expected[q], q
