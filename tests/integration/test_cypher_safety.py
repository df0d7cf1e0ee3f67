"""text2cypher safety on the real Neo4j: hostile LLM-written Cypher is refused and changes
nothing; benign reads run within their row limit and timeout."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from typing import Any

import neo4j
import pytest
from neo4j import GraphDatabase

from kg_rag.config import Neo4jSettings
from kg_rag.errors import UnsafeCypherError
from kg_rag.models import Entity, Relation
from kg_rag.stores import cypher_safety, queries
from kg_rag.stores.neo4j import Neo4jGraphStore

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

HOSTILE = [
    # plain writes
    "CREATE (n:Evil {x: 1}) RETURN n",
    "MERGE (n:Entity {entity_id: 'e_a'}) SET n.name = 'pwned' RETURN n",
    "MATCH (n) DELETE n",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n:Entity) SET n.name = 'pwned' RETURN n",
    "MATCH (n:Entity) SET n += {name: 'pwned'}",
    "MATCH (n:Entity) REMOVE n.name RETURN n",
    "MATCH (n:Entity) REMOVE n:Entity RETURN n",
    "MATCH (a:Entity), (b:Entity) CREATE (a)-[:EVIL]->(b)",
    "INSERT (:Evil)",
    # admin and write procedures
    "CALL dbms.security.createUser('eve', 'secret-password', false)",
    "CALL dbms.listConfig() YIELD name, value RETURN name, value",
    "CALL db.createLabel('Evil')",
    "CALL db.createProperty('evil')",
    "CALL db.createRelationshipType('EVIL')",
    "CALL `db`.`createLabel`('Evil')",
    "CALL db . createLabel('Evil')",
    "CALL db.clearQueryCaches()",
    "MATCH (n) CALL db.createLabel('Evil') RETURN n",
    "CALL db.index.fulltext.queryNodes('entity_names', 'alpha') YIELD node SET node.name = 'x'",
    # schema and administration commands
    "DROP CONSTRAINT entity_id",
    "CREATE INDEX evil FOR (n:Entity) ON (n.description)",
    "SHOW USERS",
    "ALTER USER neo4j SET PASSWORD 'owned-password'",
    "USE system CREATE USER eve SET PASSWORD 'secret-password'",
    "STOP DATABASE neo4j",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    # imports
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "LOAD CSV WITH HEADERS FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row",
    "USING PERIODIC COMMIT 100 LOAD CSV FROM 'file:///x.csv' AS row CREATE (:Evil)",
    # several statements
    "MATCH (n) RETURN n; MATCH (n) DETACH DELETE n",
    "MATCH (n) RETURN count(n) AS c;\nCREATE (:Evil)",
    "RETURN 1 AS x;;",
    # comment tricks
    "MATCH (n) RETURN n // harmless comment\nCREATE (:Evil)",
    "/* read only */ CREATE (:Evil)",
    "MATCH (n) RETURN n /* ; CREATE (:Evil) */",
    "MATCH (n) RETURN n /* unterminated; CREATE (:Evil)",
    # string-literal tricks
    "RETURN 'it\\'s fine'; CREATE (:Evil)",
    'RETURN "\\\\"; CREATE (:Evil) //"',
    "RETURN 'unterminated ; CREATE (:Evil)",
    "RETURN `odd``name; CREATE (:Evil)",
    # subqueries, loops and batching
    "CALL { CREATE (n:Evil) RETURN n } RETURN n",
    "MATCH (n) WITH n LIMIT 1 CALL (n) { DETACH DELETE n }",
    "MATCH (n:Entity) FOREACH (x IN [1] | SET n.evil = true)",
    "UNWIND range(1, 3) AS i CALL (i) { CREATE (:Evil {i: i}) } IN TRANSACTIONS OF 1 ROW",
    # case and whitespace obfuscation, odd characters
    "match (n) detach delete n",
    "MaTcH (n:Entity)\n\tSeT\tn.name='x'",
    "MATCH (n) RETURN n\x00CREATE (:Evil)",
    "\uff23\uff32\uff25\uff21\uff34\uff25 (:Evil)",
    # APOC
    "CALL apoc.create.node(['Evil'], {})",
    "RETURN apoc.cypher.runFirstColumnSingle('CREATE (n:Evil) RETURN n', {}) AS x",
    "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DETACH DELETE n', {})",
    # statement prefixes
    "EXPLAIN MATCH (n) DETACH DELETE n",
    "PROFILE MATCH (n) RETURN n",
    "CYPHER runtime=slotted MATCH (n) DETACH DELETE n",
    "",
]


def _digest(rows: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()


def database_state(driver: neo4j.Driver, database: str) -> dict[str, Any]:
    """Counts and checksums of everything a refused statement could have touched."""

    def rows(cypher: str, db: str = database) -> list[dict[str, Any]]:
        records, _, _ = driver.execute_query(cypher, database_=db)
        return [r.data() for r in records]

    nodes = rows(queries.SNAPSHOT_NODES)
    relationships = rows(queries.SNAPSHOT_RELATIONSHIPS)
    return {
        "nodes": len(nodes),
        "relationships": len(relationships),
        "node_checksum": _digest(nodes),
        "relationship_checksum": _digest(relationships),
        "tokens": _digest(rows(queries.SNAPSHOT_TOKENS)),
        "indexes": rows(queries.SNAPSHOT_INDEXES),
        "constraints": rows(queries.SNAPSHOT_CONSTRAINTS),
        "users": rows(queries.SNAPSHOT_USERS, "system"),
    }


@pytest.fixture()
def store(neo4j_settings: Neo4jSettings) -> Iterator[Neo4jGraphStore]:
    password = neo4j_settings.password.get_secret_value() if neo4j_settings.password else ""
    driver = GraphDatabase.driver(neo4j_settings.uri, auth=(neo4j_settings.user, password))
    while driver.execute_query(queries.WIPE_BATCH, {"batch": 10_000}).records[0]["n"]:
        pass
    graph = Neo4jGraphStore(neo4j_settings, driver=driver)
    graph.open()
    graph.upsert_entities(
        [Entity(entity_id=f"e_{c}", name=f"{c.upper()} entity", type="CONCEPT") for c in "abcdef"]
    )
    graph.upsert_relations(
        [
            Relation(source_id=f"e_{a}", target_id=f"e_{b}", type="NEXT", evidence=["c1"])
            for a, b in ["ab", "bc", "cd", "de", "ef"]
        ]
    )
    yield graph
    graph.close()
    driver.close()


def test_hostile_cypher_is_refused_and_changes_nothing(store: Neo4jGraphStore) -> None:
    assert len(HOSTILE) >= 20
    before = database_state(store.driver, store.settings.database)
    assert before["nodes"] == 6 and before["relationships"] == 5
    for cypher in HOSTILE:
        with pytest.raises(UnsafeCypherError) as refused:
            store.run_read_only(cypher, {}, timeout_s=5, row_limit=10)
        reason = str(refused.value)
        assert reason and "\n" not in reason, cypher
    assert database_state(store.driver, store.settings.database) == before


def test_each_layer_refuses_on_its_own(store: Neo4jGraphStore) -> None:
    driver, database = store.driver, store.settings.database
    # The planner layer: EXPLAIN reports writes and procedure writes as non-read plans.
    for cypher in ["CREATE (n:Evil)", "MATCH (n) SET n.x = 1", "CALL db.createLabel('Evil')"]:
        query_type = driver.execute_query(
            "EXPLAIN " + cypher, database_=database
        ).summary.query_type
        with pytest.raises(UnsafeCypherError):
            cypher_safety.check_query_type(query_type)
    # The execution layer: a READ transaction cannot write on this server.
    with (
        driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session,
        pytest.raises(neo4j.exceptions.Neo4jError),
    ):
        session.execute_read(lambda tx: tx.run("CREATE (:Evil)").consume())
    assert driver.execute_query("MATCH (n:Evil) RETURN count(n) AS n").records[0]["n"] == 0


def test_benign_reads_run(store: Neo4jGraphStore) -> None:
    names = store.run_read_only(
        "MATCH (e:Entity) RETURN e.name AS name ORDER BY name", {}, timeout_s=5, row_limit=3
    )
    assert names == [{"name": "A entity"}, {"name": "B entity"}, {"name": "C entity"}]
    one = store.run_read_only(
        "MATCH (e:Entity {entity_id: $id})-[r:RELATED]->(m) RETURN r.type AS type, m.name AS name;",
        {"id": "e_c"},
        timeout_s=5,
        row_limit=10,
    )
    assert one == [{"type": "NEXT", "name": "D entity"}]
    literal = store.run_read_only(
        "MATCH (e:Entity) WHERE e.name <> 'CREATE (x); DETACH DELETE e // SET' "
        "RETURN count(e) AS n, ';' AS semicolon",
        {},
        timeout_s=5,
        row_limit=10,
    )
    assert literal == [{"n": 6, "semicolon": ";"}]
    labels = store.run_read_only(
        "CALL db.labels() YIELD label RETURN label", {}, timeout_s=5, row_limit=50
    )
    assert {"label": "Entity"} in labels
    paths = store.run_read_only(
        "MATCH p = (:Entity {entity_id: 'e_a'})-[:RELATED*1..3]->(m) RETURN m.entity_id AS id ORDER BY id",
        {},
        timeout_s=5,
        row_limit=10,
    )
    assert paths == [{"id": "e_b"}, {"id": "e_c"}, {"id": "e_d"}]


def test_row_limit_caps_large_results(store: Neo4jGraphStore) -> None:
    rows = store.run_read_only(
        "UNWIND range(1, 1000000) AS x RETURN x", {}, timeout_s=10, row_limit=5
    )
    assert rows == [{"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}, {"x": 5}]


def test_slow_query_is_cut_off(store: Neo4jGraphStore) -> None:
    started = time.monotonic()
    with pytest.raises(UnsafeCypherError, match="timeout"):
        store.run_read_only(
            "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n",
            {},
            timeout_s=1.0,
            row_limit=1,
        )
    assert time.monotonic() - started < 15
