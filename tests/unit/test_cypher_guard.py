"""The lexical / expression guard for LLM-written Cypher, without a server: a table of
statements it must let through and a table it must refuse (with the reason it gives)."""

from __future__ import annotations

import pytest

from kg_rag.errors import UnsafeCypherError
from kg_rag.stores.cypher_safety import Token, check_statement, tokenize

pytestmark = pytest.mark.unit

ALLOWED = [
    "MATCH (e:Entity) RETURN e.name AS name ORDER BY name",
    "match (e:Entity) where toLower(e.name) = 'orchard systems' return e.name as name",
    "MATCH (e:Entity {entity_id: $id})-[r:RELATED]->(m) RETURN r.type AS type, m.name AS name;",
    "MATCH (e:Entity) WHERE e.name <> 'CREATE (x); DETACH DELETE e // SET' RETURN count(e) AS n",
    'RETURN \'apoc.cypher.run("x")\' AS harmless_text, "LOAD CSV" AS also_text',
    "CALL db.labels() YIELD label RETURN label",
    "CALL `db`.`labels`() YIELD label RETURN label",
    "CALL db.index.fulltext.queryNodes('entity_names', 'alpha') YIELD node, score "
    "RETURN node.name, score",
    "MATCH p = (:Entity {entity_id: 'e_a'})-[:RELATED*1..3]->(m) RETURN m.entity_id AS id",
    "UNWIND range(1, 100000) AS x RETURN x",
    "UNWIND range(10, 1, -1) AS x RETURN x",
    "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.chunk_id, "
    "[(e)-[:RELATED]->(m) | m.name] AS neighbours LIMIT 10",
    "MATCH (a:Entity) WHERE any(x IN a.aliases WHERE toLower(x) = 'b') RETURN a {.name, .type}",
    "MATCH (e:`Entity`) RETURN e.`name` AS `the name`",
    "MATCH (e:Entity) WHERE e.name STARTS WITH '北京' RETURN e.name",
    "MATCH (e:Entity) RETURN count { (e)--() } AS degree",
    "MATCH (e:Entity) CALL (e) { MATCH (e)-[:RELATED]->(m) RETURN count(m) AS n } RETURN e.name, n",
    "RETURN point.distance(point({x: 1, y: 2}), point({x: 2, y: 3})) AS d, "
    "date('2020-01-01').year AS y",
    "MATCH (a:Entity)-[r:RELATED]-(b:Entity) RETURN a.name + ' -> ' + b.name AS edge LIMIT 5",
    "MATCH (n:Entity) WHERE n.set = 1 OR n.create = 2 RETURN n.load AS loaded",
    "MATCH (db:Entity) RETURN db",
    "  MATCH (e:Entity)\n\tRETURN e.name\r\n LIMIT 3  ",
]


@pytest.mark.parametrize("cypher", ALLOWED)
def test_allowed(cypher: str) -> None:
    assert check_statement(cypher) == cypher.strip().removesuffix(";").rstrip()


APOC_RUN = "runFirstColumnMany('CALL dbms.listConfig() YIELD name, value RETURN name', {})"

REFUSED: list[tuple[str, str]] = [
    # the attacks
    (f"RETURN `apoc`.cypher.{APOC_RUN} AS cfg", "apoc.*"),
    (
        'RETURN `apoc`.cypher.runFirstColumnMany(\'LOAD CSV FROM "file:///secret.csv" AS r '
        "RETURN r', {}) AS rows",
        "apoc.*",
    ),
    ("RETURN size([x IN range(1, 60000000) | toString(x)]) AS n", "range()"),
    ("RETURN size(reduce(s = 'x', i IN range(1, 31) | s + s)) AS n", "reduce()"),
    ("UNWIND range(1, 30000000) AS x WITH collect(x) AS xs RETURN size(xs)", "range()"),
    # quoting the namespace in every place
    (f"RETURN `apoc.cypher`.{APOC_RUN} AS x", "apoc.*"),
    ("RETURN `apoc.cypher.runFirstColumnMany`('RETURN 1', {}) AS x", "apoc.*"),
    (f"RETURN apoc.`cypher`.{APOC_RUN} AS x", "apoc.*"),
    (f"RETURN `APOC`.Cypher.{APOC_RUN} AS x", "apoc.*"),
    (f"RETURN ` apoc `.cypher.{APOC_RUN} AS x", "apoc.*"),
    (f"RETURN `ａｐｏｃ`.cypher.{APOC_RUN} AS x", "apoc.*"),
    (f"RETURN `ap\u200boc`.cypher.{APOC_RUN} AS x", "apoc.*"),
    (f"RETURN apoc . cypher . {APOC_RUN} AS x", "apoc.*"),
    (f"RETURN apoc\n.cypher\n.{APOC_RUN} AS x", "apoc.*"),
    ("CALL `apoc`.cypher.run('MATCH (n) RETURN n', {}) YIELD value RETURN value", "apoc.cypher"),
    ("CALL `apoc.cypher.run`('RETURN 1', {}) YIELD value RETURN value", "apoc.cypher.run"),
    ("CALL apoc.cypher.runMany('RETURN 1', {}) YIELD result RETURN result", "apoc.cypher"),
    ("CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'RETURN 1', {})", "apoc.periodic"),
    ("CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value", "apoc.load"),
    ("CALL apoc.import.csv([], [], {})", "apoc.import"),
    ("CALL apoc.export.csv.all('x.csv', {})", "apoc.export"),
    ("CALL apoc.meta.data() YIELD label RETURN label", "apoc.meta.data"),
    ("RETURN apoc.text.join(['a'], 'b') AS x", "apoc.*"),
    ("CALL dbms.listConfig() YIELD name, value RETURN name, value", "dbms.listconfig"),
    ("CALL DBMS.LISTCONFIG() YIELD name RETURN name", "dbms.listconfig"),
    ("CALL `dbms`.listConfig() YIELD name RETURN name", "dbms.listconfig"),
    ("CALL dbms.listConfig YIELD name RETURN name", "dbms.listconfig"),
    ("CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes RETURN attributes", "dbms"),
    ("CALL db.createLabel('Evil')", "db.createlabel"),
    ("RETURN db.nameFromElementId('x') AS x", "db.*"),
    ("RETURN gds.version() AS v", "gds.*"),
    ("RETURN 1.apoc.cypher.runFirstColumnMany('RETURN 1', {}) AS v", "after a '.'"),
    ("RETURN (1).`apoc`.cypher.runFirstColumnMany('RETURN 1', {}) AS v", "after a '.'"),
    ("MATCH (n) RETURN n.x.run('RETURN 1') AS v", "function 'n.x.run'"),
    ("RETURN custom.fn(1) AS v", "function 'custom.fn'"),
    # file and URL loading
    ("LOAD CSV FROM 'file:///secret.csv' AS row RETURN row", "LOAD"),
    ("load csv from 'file:///secret.csv' as row return row", "LOAD"),
    ("LoAd CsV WITH HEADERS FROM 'http://127.0.0.1:9/x' AS row RETURN row", "LOAD"),
    ("MATCH (n) CALL { LOAD CSV FROM 'file:///secret.csv' AS r RETURN r } RETURN r", "LOAD"),
    ("RETURN 1 AS x UNION LOAD CSV FROM 'file:///s.csv' AS x RETURN x", "LOAD"),
    # comments and unicode tricks
    ("RETURN 1 AS x // CALL dbms.listConfig()", "comments"),
    ("RETURN /* hidden */ `apoc`.cypher.runFirstColumnMany('RETURN 1', {}) AS x", "comments"),
    ("RETURN \\u0061poc.cypher.runFirstColumnMany('RETURN 1', {}) AS x", "unicode escapes"),
    # Neo4j decodes \u before lexing: what looks like one string is code
    (
        "RETURN 'x\\u0027 + `apoc`.cypher.runFirstColumnMany(\\u0027CALL dbms.listConfig() "
        "YIELD name RETURN name\\u0027, {}) + \\u0027' AS cfg",
        "unicode escapes",
    ),
    ("RETURN 'x\\u0027; CALL dbms.listConfig(); RETURN \\u0027' AS y", "unicode escapes"),
    ('RETURN "x\\u0022 + apoc.version() + \\u0022" AS y', "unicode escapes"),
    ("RETURN 'x\\\\u0027 AS y", "unicode escapes"),
    ("RETURN 'x\\U00000027 AS y", "unicode escapes"),
    ("RETURN ａｐｏｃ.cypher.runFirstColumnMany('RETURN 1', {}) AS x", "U+FF41"),
    ("RETURN\u00a0apoc.version() AS v", "U+00A0"),
    ("MATCH (n)\u2028RETURN n", "U+2028"),
    ("ＬＯＡＤ CSV FROM 'file:///s.csv' AS r RETURN r", "U+FF2C"),
    ("RETURN 1 AS x;\u200bCALL dbms.listConfig()", "U+200B"),
    # expressions the server's memory limits do not count
    ("RETURN size([x IN range(1, 200000) | x]) AS n", "range()"),
    ("UNWIND range(1, 1000) AS a UNWIND range(1, 1000) AS b RETURN count(*)", "range()"),
    ("RETURN [x IN range(1, 10000) | [y IN range(1, 10000) | y]] AS m", "range()"),
    ("RETURN size(range(0, 9223372036854775807)) AS n", "range()"),
    ("WITH 100000000 AS n RETURN size(range(1, n)) AS s", "integer literals"),
    ("RETURN size(range(1, $n)) AS s", "integer literals"),
    ("RETURN size(range(1, 10 * 10000000)) AS s", "integer literals"),
    ("RETURN size(range(1, 1e9)) AS s", "integer literals"),
    ("RETURN size(REDUCE(s = '', x IN [1, 2] | s + 'ab')) AS n", "reduce()"),
    (
        "WITH 'x' AS s " + " ".join("WITH s + s AS s" for _ in range(31)) + " RETURN size(s)",
        "concatenations",
    ),
    (
        "RETURN size(" + "replace(" * 31 + "'x'" + ", 'x', 'xx')" * 31 + ") AS n",
        "concatenations",
    ),
    (
        "MATCH (a:Entity) WITH collect(a.name) AS xs RETURN size([x IN xs | [y IN xs | x + y]])",
        "nested iterations",
    ),
    (
        "MATCH (a:Entity) WITH collect(a) AS xs "
        "RETURN size([x IN xs WHERE any(y IN xs WHERE y.name = x.name)])",
        "nested iterations",
    ),
    ("RETURN [x IN range(1, 1000) | [(a)-->(b) | b.name]] AS m", "nested iterations"),
    (
        "RETURN size([x IN range(1, 100000) | '" + "y" * 2000 + "' + toString(x)]) AS n",
        "too large",
    ),
    # several statements, prefixes and writes behind quoting
    ("MATCH (n) RETURN n; CALL dbms.listConfig()", "more than one statement"),
    ("RETURN 'a;b' AS x; RETURN 1", "more than one statement"),
    ("CYPHER runtime=slotted RETURN 1", "CYPHER"),
    ("EXPLAIN RETURN 1", "EXPLAIN"),
    ("USE system SHOW USERS", "USE"),
    ("MATCH (n) CALL { WITH n SET n.x = 1 } RETURN n", "SET"),
    ("UNWIND [1] AS i CALL (i) { RETURN i } IN TRANSACTIONS RETURN i", "TRANSACTIONS"),
    ("MATCH (n) RETURN n FINISH", "FINISH"),
    ("RETURN $`x` + `unterminated AS y", "unterminated quoted name"),
    ("RETURN 'unterminated AS y", "unterminated string"),
    ("RETURN 'bad \\u12' AS y", "unicode escapes"),
    ("RETURN 'C:\\\\q' + 'x\\'y' + \"\\\"\" AS y; RETURN 1", "more than one statement"),
    ("CALL", "CALL must name"),
    ("", "empty statement"),
    (";", "empty statement"),
    ("RETURN 1 AS x" + " " * 20_000, "longer than"),
]


@pytest.mark.parametrize(("cypher", "reason"), REFUSED)
def test_refused(cypher: str, reason: str) -> None:
    with pytest.raises(UnsafeCypherError) as refused:
        check_statement(cypher)
    message = str(refused.value)
    assert message.startswith("refused:") and "\n" not in message
    assert reason.lower() in message.lower(), (cypher, message)


def test_tables_are_large_enough() -> None:
    assert len(ALLOWED) >= 20 and len(REFUSED) >= 60


@pytest.mark.parametrize(
    ("cypher", "expected"),
    [
        (
            "MATCH (n:`odd``name`) RETURN n.x",
            [("word", "MATCH"), ("symbol", "("), ("word", "n"), ("symbol", ":"),
             ("quoted", "odd`name"), ("symbol", ")"), ("word", "RETURN"), ("word", "n"),
             ("symbol", "."), ("word", "x")],
        ),
        (
            "RETURN 'it\\'s \\q' <> \"b\" AS s",
            [("word", "RETURN"), ("string", "it's \\q"), ("symbol", "<>"), ("string", "b"),
             ("word", "AS"), ("word", "s")],
        ),
        (
            "MATCH ()-[*1..3]->() WHERE $p >= 2.5 RETURN 1",
            [("word", "MATCH"), ("symbol", "("), ("symbol", ")"), ("symbol", "-"),
             ("symbol", "["), ("symbol", "*"), ("number", "1"), ("symbol", ".."),
             ("number", "3"), ("symbol", "]"), ("symbol", "->"), ("symbol", "("),
             ("symbol", ")"), ("word", "WHERE"), ("param", "p"), ("symbol", ">="),
             ("number", "2.5"), ("word", "RETURN"), ("number", "1")],
        ),
    ],
)  # fmt: skip
def test_tokenize(cypher: str, expected: list[tuple[str, str]]) -> None:
    assert [(t.kind, t.text) for t in tokenize(cypher)] == expected


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("apoc", "apoc"),
        ("APOC", "apoc"),
        ("ａｐｏｃ", "apoc"),
        ("ap\u200boc", "apoc"),
        (" Db ", "db"),
    ],
)
def test_token_key_normalizes_names(text: str, key: str) -> None:
    assert Token("quoted", text, 0).key == key
