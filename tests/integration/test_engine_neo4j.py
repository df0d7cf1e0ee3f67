"""The answer engine on the real Neo4j: the Browser query of a demo answer draws its evidence,
the Neo4j backend answers like the embedded one, and hostile text2cypher output is refused
end to end without changing the database.

Each test wipes the database first (the contract suite wipes it too).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase

from kg_rag.answer import prompts
from kg_rag.answer.trace import Answer
from kg_rag.config import EmbeddingSettings, LLMSettings, Neo4jSettings, RouterSettings, Settings
from kg_rag.demo import DEMO_QUESTIONS, corpus_path
from kg_rag.engine import KnowledgeEngine, export_to_neo4j
from kg_rag.retrieval.text2cypher import PROMPT as TEXT2CYPHER_PROMPT
from kg_rag.stores import queries
from kg_rag.testing import FakeChatModel, HashEmbeddings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

DIMS = 256
IDS = [f"q{i + 1}" for i in range(len(DEMO_QUESTIONS))]


def settings_for(
    kb: Path, neo4j: Neo4jSettings, backend: str = "embedded", **router: Any
) -> Settings:
    settings = Settings(
        graph_backend=backend,  # type: ignore[arg-type]
        neo4j=neo4j,
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=DIMS),
        router=RouterSettings(**router),
    )
    settings.kb_dir = kb
    settings.extraction.mode = "offline"
    return settings


def open_engine(settings: Settings, llm: Any = None) -> KnowledgeEngine:
    return KnowledgeEngine.open(
        settings.kb_dir, settings=settings, llm=llm, embedder=HashEmbeddings(DIMS), progress=False
    )


@pytest.fixture(scope="module")
def driver(neo4j_settings: Neo4jSettings) -> Iterator[Driver]:
    password = neo4j_settings.password.get_secret_value() if neo4j_settings.password else ""
    with GraphDatabase.driver(neo4j_settings.uri, auth=(neo4j_settings.user, password)) as drv:
        yield drv


def wipe(driver: Driver, database: str) -> None:
    while driver.execute_query(queries.WIPE_BATCH, {"batch": 10_000}, database_=database).records[
        0
    ]["n"]:
        pass


def snapshot(driver: Driver, database: str) -> tuple[int, int, str]:
    """Node and relationship counts and a checksum of every node's labels and properties."""
    records = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props", database_=database
    ).records
    rows = sorted(
        json.dumps([sorted(r["labels"]), r["props"]], sort_keys=True, default=str) for r in records
    )
    rels = driver.execute_query(
        "MATCH ()-[r]->() RETURN count(r) AS n, collect(type(r) + ':' + coalesce(r.type, '')) AS types",
        database_=database,
    ).records[0]
    digest = hashlib.sha256("\n".join(rows + sorted(rels["types"])).encode()).hexdigest()
    return len(rows), int(rels["n"]), digest


@pytest.fixture(scope="module")
def embedded_kb(tmp_path_factory: pytest.TempPathFactory, neo4j_settings: Neo4jSettings) -> Path:
    """The demo corpus in an embedded knowledge base (read-only for the tests)."""
    kb = tmp_path_factory.mktemp("embedded") / "kb"
    with open_engine(settings_for(kb, neo4j_settings)) as kg:
        kg.ingest([corpus_path()])
    return kb


@pytest.fixture(scope="module")
def embedded_answers(embedded_kb: Path, neo4j_settings: Neo4jSettings) -> dict[str, Answer]:
    with open_engine(settings_for(embedded_kb, neo4j_settings)) as kg:
        return {q: kg.ask(q) for q in DEMO_QUESTIONS}


def split_browser_query(text: str) -> tuple[dict[str, Any], str]:
    """(params, Cypher) of a Browser query: its ``:param`` lines become driver parameters."""
    params: dict[str, Any] = {}
    body: list[str] = []
    for line in text.splitlines():
        m = re.fullmatch(r":param (\w+) => (.*);", line)
        if m:
            params[m.group(1)] = json.loads(m.group(2))
        else:
            body.append(line)
    return params, "\n".join(body)


# -- Browser query -------------------------------------------------------------------------------


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_browser_query_of_a_demo_answer_returns_its_evidence_nodes(
    question: str,
    embedded_kb: Path,
    embedded_answers: dict[str, Answer],
    neo4j_settings: Neo4jSettings,
    driver: Driver,
) -> None:
    wipe(driver, neo4j_settings.database)
    exported = export_to_neo4j(settings_for(embedded_kb, neo4j_settings))
    assert exported["entities"] > 0 and exported["chunks"] > 0

    answer = embedded_answers[question]
    params, cypher = split_browser_query(answer.browser_query())
    assert set(params) == {"chunkIds", "entityIds"}
    records = driver.execute_query(cypher, params, database_=neo4j_settings.database).records
    assert len(records) == 1
    nodes, relationships = records[0]["nodes"], records[0]["relationships"]

    chunk_nodes = {n["chunk_id"] for n in nodes if "Chunk" in n.labels}
    entity_nodes = {n["entity_id"] for n in nodes if "Entity" in n.labels}
    assert set(params["chunkIds"]) <= chunk_nodes, "every evidence chunk is drawn"
    assert {c.chunk_id for c in answer.citations} <= chunk_nodes, "every cited chunk is drawn"
    linked = {str(le["entity_id"]) for s in answer.trace.steps for le in s.linked_entities}
    assert linked <= entity_nodes, "the entities the steps linked are drawn"
    assert entity_nodes <= set(params["entityIds"])
    assert {n["doc_id"] for n in nodes if "Document" in n.labels} >= {
        c.doc_id for c in answer.citations
    }
    types = {r.type for r in relationships}
    assert {"HAS_CHUNK", "MENTIONS"} <= types <= {"HAS_CHUNK", "MENTIONS", "RELATED"}


# -- Neo4j backend ---------------------------------------------------------------------------------


def test_neo4j_backend_answers_the_demo_like_the_embedded_store(
    tmp_path: Path,
    embedded_answers: dict[str, Answer],
    neo4j_settings: Neo4jSettings,
    driver: Driver,
) -> None:
    wipe(driver, neo4j_settings.database)
    with open_engine(settings_for(tmp_path / "kb", neo4j_settings, backend="neo4j")) as kg:
        assert kg.graph_store.backend == "neo4j"
        kg.ingest([corpus_path()])
        for question in DEMO_QUESTIONS:
            answer, embedded = kg.ask(question), embedded_answers[question]
            assert answer.text == embedded.text, question
            assert [c.chunk_id for c in answer.citations] == [
                c.chunk_id for c in embedded.citations
            ]
            assert [s.decision.route for s in answer.trace.steps] == [
                s.decision.route for s in embedded.trace.steps
            ]
            graph_calls = [c for s in answer.trace.steps for c in s.cypher]
            assert graph_calls and {c.backend for c in graph_calls} == {"neo4j"}


# -- text2cypher safety end to end ---------------------------------------------------------------

HOSTILE = [
    "MATCH (n) DETACH DELETE n",
    "CREATE (:Evil {x: 1}) RETURN 1",
    "MATCH (n:Entity) SET n.name = 'pwned' RETURN n.name AS name",
    "MATCH (n) RETURN n.name AS name; MATCH (n) DETACH DELETE n",
    "CALL dbms.security.createUser('eve', 'secret-password', false)",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
]
BENIGN = "MATCH (e:Entity) WHERE toLower(e.name) = 'orchard systems' RETURN e.name AS name"
HQ = "Where is the headquarters of Orchard Systems?"


def fake_model(cypher: str) -> FakeChatModel:
    def synth(prompt: str) -> str:
        listing = prompt.split("Evidence:", 1)[1]
        n = next(
            int(m[0])
            for m in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", listing, re.M)
            if "Malmö" in m[1]
        )
        return f"The headquarters of Orchard Systems are in Malmö [{n}]."

    def marker(template: str) -> str:
        return re.escape(template[:40])

    return FakeChatModel(
        script=[
            (
                marker(prompts.PLANNER_PROMPT),
                json.dumps({"question": HQ, "steps": [{"index": 1, "query": HQ}]}),
            ),
            (
                marker(prompts.ROUTER_PROMPT),
                json.dumps({"route": "graph", "granularity": "paragraph", "reason": "s"}),
            ),
            (marker(TEXT2CYPHER_PROMPT), json.dumps({"cypher": cypher})),
            (
                marker(prompts.STEP_READ_PROMPT),
                json.dumps({"answer": "Malmö", "grade": 1.0, "evidence_numbers": [1]}),
            ),
            (marker(prompts.SYNTH_PROMPT), synth),
        ]
    )


def test_hostile_text2cypher_is_refused_and_the_answer_falls_back_to_templates(
    embedded_kb: Path, neo4j_settings: Neo4jSettings, driver: Driver
) -> None:
    wipe(driver, neo4j_settings.database)
    export_to_neo4j(settings_for(embedded_kb, neo4j_settings))
    before = snapshot(driver, neo4j_settings.database)
    assert before[0] > 0 and before[1] > 0
    settings = settings_for(embedded_kb, neo4j_settings, backend="neo4j", text2cypher=True)

    for cypher in [*HOSTILE, BENIGN]:
        fake = fake_model(cypher)
        with open_engine(settings, fake) as kg:
            answer = kg.ask(HQ)
        assert fake.calls_matching(re.escape(TEXT2CYPHER_PROMPT[:40])), "text2cypher was asked"
        (step,) = answer.trace.steps
        t2c = [c for c in step.cypher if c.name == "text2cypher"]
        assert len(t2c) == 1 and t2c[0].cypher == cypher and t2c[0].backend == "neo4j"
        templates = {c.name for c in step.cypher} - {"text2cypher"}
        assert {"neighbour_ids", "ppr_adjacency", "chunks_for_entities"} <= templates, (
            "templates still ran"
        )
        assert "Malmö" in answer.text and answer.citations and not answer.unsupported_citations
        if cypher == BENIGN:
            assert "refused" not in t2c[0].params and t2c[0].rows == 1
        else:
            assert str(t2c[0].params.get("refused", "")).startswith("refused"), (
                cypher,
                t2c[0].params,
            )
            assert t2c[0].rows == 0
        assert snapshot(driver, neo4j_settings.database) == before, (
            f"the database changed after {cypher!r}"
        )
