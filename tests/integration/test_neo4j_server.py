"""The managed Neo4j server (kg_rag.neo4j_server) against the real, already started server.

Needs ``kg-rag neo4j start`` (scripts/test.sh does it) and KG_RAG_NEO4J__PASSWORD.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver, GraphDatabase
from pydantic import SecretStr

from kg_rag import neo4j_server
from kg_rag.config import Neo4jSettings
from kg_rag.errors import ConfigError, ServerError

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture()
def driver(neo4j_settings: Neo4jSettings) -> Iterator[Driver]:
    assert neo4j_settings.password is not None
    with GraphDatabase.driver(
        neo4j_settings.uri,
        auth=(neo4j_settings.user, neo4j_settings.password.get_secret_value()),
    ) as drv:
        yield drv


@pytest.fixture()
def label() -> str:
    """A throwaway label prefix, so a test never touches anything it did not create."""
    return f"KgRagTest{uuid.uuid4().hex[:10]}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_driver_reaches_neo4j_5(driver: Driver, neo4j_settings: Neo4jSettings) -> None:
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
    )
    component = records[0]
    print(f"Neo4j {component['versions'][0]} {component['edition']} at {neo4j_settings.uri}")
    assert component["versions"][0].startswith("5.")
    assert component["edition"] == "community"


def test_langchain_neo4j_graph_sees_the_schema(neo4j_settings: Neo4jSettings, label: str) -> None:
    from langchain_neo4j import Neo4jGraph

    assert neo4j_settings.password is not None
    graph = Neo4jGraph(
        url=neo4j_settings.uri,
        username=neo4j_settings.user,
        password=neo4j_settings.password.get_secret_value(),
        database=neo4j_settings.database,
        refresh_schema=False,
    )
    person, org, rel = f"{label}Person", f"{label}Org", f"{label.upper()}_WORKS_AT"
    try:
        # Labels cannot be parameters; these are generated above, never user input.
        graph.query(
            f"CREATE (:`{person}` {{name: $p}})-[:`{rel}` {{since: 2020}}]->"
            f"(:`{org}` {{name: $o}})",
            {"p": "Ada", "o": "Analytical Engines Ltd"},
        )
        graph.refresh_schema()  # apoc.meta.data: APOC core ships with the managed server
        assert person in graph.schema
        assert org in graph.schema
        assert f"(:{person})-[:{rel}]->(:{org})" in graph.schema
    finally:
        graph.query(f"MATCH (n) WHERE n:`{person}` OR n:`{org}` DETACH DELETE n")
        graph.close()


def test_start_again_is_harmless(neo4j_settings: Neo4jSettings) -> None:
    lines: list[str] = []
    started = time.monotonic()
    info = neo4j_server.start(neo4j_settings, log=lines.append)
    elapsed = time.monotonic() - started
    assert info.running
    assert info.version.startswith("5.")
    assert info.bolt_uri == f"bolt://127.0.0.1:{neo4j_settings.bolt_port}"
    assert elapsed < 10, f"start() on a running server took {elapsed:.1f} s"
    assert len(lines) == 1 and "already running" in lines[0], lines
    status = neo4j_server.status(neo4j_settings)
    assert status.running and status.pid == info.pid


def test_status_needs_no_password(neo4j_settings: Neo4jSettings) -> None:
    info = neo4j_server.status(neo4j_settings.model_copy(update={"password": None}))
    assert info.running
    assert info.version.startswith("5.")


@pytest.mark.parametrize("which", ["bolt_port", "http_port"])
def test_port_taken_is_one_line_naming_it(
    neo4j_settings: Neo4jSettings, tmp_path: Path, which: str
) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = int(blocker.getsockname()[1])
        other = "http_port" if which == "bolt_port" else "bolt_port"
        settings = neo4j_settings.model_copy(
            update={which: port, other: _free_port(), "home": tmp_path / "neo4j"}
        )
        with pytest.raises(ServerError) as caught:
            neo4j_server.start(settings, log=lambda _: None)
    message = str(caught.value)
    print(message)
    assert "\n" not in message
    assert f"port {port}" in message
    assert "already in use" in message


def test_port_taken_found_in_the_log_of_a_dead_jvm() -> None:
    # When the port is grabbed between the check and the JVM's bind, the log tells.
    output = (
        "2026-01-01 ERROR Failed to start Neo4j on 127.0.0.1:7474: Address 127.0.0.1:7474 "
        "is already in use, cannot bind to it.\n"
        "Caused by: org.neo4j.configuration.helpers.PortBindException: Address "
        "127.0.0.1:7474 is already in use, cannot bind to it.\n"
        "KG_RAG_NEO4J_FAILED Neo4j did not start (exit code 1); see the lines above\n"
    )
    settings = Neo4jSettings(bolt_port=_free_port(), http_port=7474)
    error = neo4j_server._startup_error(settings, output, Path("neo4j-console.log"))
    assert "http port 7474" in str(error) and "\n" not in str(error)
    other = neo4j_server._startup_error(
        settings, "java.lang.IllegalStateException: boom\n", Path("x.log")
    )
    assert "boom" in str(other) and "x.log" in str(other)


def test_wrong_password_is_a_clear_error(neo4j_settings: Neo4jSettings) -> None:
    wrong = "definitely-not-the-password"
    settings = neo4j_settings.model_copy(update={"password": SecretStr(wrong)})
    with pytest.raises(ServerError) as caught:
        neo4j_server.start(settings, log=lambda _: None)
    message = str(caught.value)
    print(message)
    assert "\n" not in message
    assert "rejects the password" in message
    assert "KG_RAG_NEO4J__PASSWORD" in message
    assert "delete" in message
    assert wrong not in message


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # the process ended meanwhile
        return b""


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_failed_start_leaves_no_server_behind(
    neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    """A data folder created with one password, started with another: the start reports the
    mismatch and stops the server it launched (ports free, no pid file, the JVM gone)."""
    settings = neo4j_settings.model_copy(
        update={
            "home": tmp_path / "neo4j",
            "bolt_port": _free_port(),
            "http_port": _free_port(),
            "password": SecretStr("first-password"),
        }
    )
    first = neo4j_server.start(settings, log=lambda _: None)
    assert first.pid is not None
    neo4j_server.stop(settings, log=lambda _: None)
    other = settings.model_copy(update={"password": SecretStr("second-password")})
    with pytest.raises(ServerError, match="rejects the password"):
        neo4j_server.start(other, log=lambda _: None)
    assert not (settings.home / "neo4j.pid").exists()
    assert not _listening(settings.bolt_port) and not _listening(settings.http_port)
    info = neo4j_server.status(other)
    assert info.pid is None and not info.running
    home = str(settings.home.resolve()).encode()
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if home in _read(p)], (
        "a JVM for the failed start is still alive"
    )


def test_managed_server_applies_the_hardening(neo4j_settings: Neo4jSettings) -> None:
    from kg_rag import neo4j_check

    protections = {p.name: p for p in neo4j_check.check(neo4j_settings)}
    assert len(protections) >= 8
    off = [p for p in protections.values() if p.state not in ("on", "n/a")]
    assert off == [], off
    assert "apoc.meta.data" in protections["procedure allow-list"].detail
    from kg_rag.cli import main

    assert main(["neo4j", "check"]) == 0


def test_missing_password_is_a_config_error(tmp_path: Path) -> None:
    settings = Neo4jSettings(password=None, home=tmp_path / "neo4j")
    with pytest.raises(ConfigError, match="KG_RAG_NEO4J__PASSWORD"):
        neo4j_server.start(settings, log=lambda _: None)


def test_vector_and_fulltext_indexes(driver: Driver, label: str) -> None:
    node = f"{label}Chunk"
    vector_index, text_index = f"{label}_vec", f"{label}_ft"
    rows = [
        {"id": "a", "text": "Marie Curie discovered polonium", "vec": [1.0, 0.0, 0.0]},
        {"id": "b", "text": "Ada Lovelace wrote the first program", "vec": [0.0, 1.0, 0.0]},
        {"id": "c", "text": "Polonium and radium are elements", "vec": [0.7, 0.0, 0.7]},
    ]
    try:
        driver.execute_query(
            f"UNWIND $rows AS r CREATE (:`{node}` {{id: r.id, text: r.text, vec: r.vec}})",
            {"rows": rows},
        )
        driver.execute_query(
            f"CREATE VECTOR INDEX `{vector_index}` FOR (n:`{node}`) ON n.vec OPTIONS "
            "{indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}"
        )
        driver.execute_query(
            f"CREATE FULLTEXT INDEX `{text_index}` FOR (n:`{node}`) ON EACH [n.text]"
        )
        driver.execute_query("CALL db.awaitIndexes(60)")

        records, _, _ = driver.execute_query(
            "CALL db.index.vector.queryNodes($index, 2, $q) YIELD node, score "
            "RETURN node.id AS id, score",
            {"index": vector_index, "q": [0.9, 0.1, 0.0]},
        )
        assert [r["id"] for r in records] == ["a", "c"]
        assert records[0]["score"] > records[1]["score"]

        records, _, _ = driver.execute_query(
            "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score "
            "RETURN node.id AS id ORDER BY score DESC",
            {"index": text_index, "q": "polonium"},
        )
        assert sorted(r["id"] for r in records) == ["a", "c"]

        _, summary, _ = driver.execute_query(f"EXPLAIN MATCH (n:`{node}`) RETURN n.id")
        assert summary.plan is not None
    finally:
        driver.execute_query(f"DROP INDEX `{vector_index}` IF EXISTS")
        driver.execute_query(f"DROP INDEX `{text_index}` IF EXISTS")
        driver.execute_query(f"MATCH (n:`{node}`) DETACH DELETE n")
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name WHERE name IN $names RETURN name",
        {"names": [vector_index, text_index]},
    )
    assert records == []
