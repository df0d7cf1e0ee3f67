"""`kg-rag neo4j check` verdicts from what a server reports (no server: the rows are given)."""

from __future__ import annotations

from typing import Any

import pytest

from kg_rag import neo4j_check
from kg_rag.neo4j_server import HARDENING

pytestmark = pytest.mark.unit

HARDENED = {**HARDENING, "server.directories.import": "/srv/neo4j/import"}
DEFAULTS = {
    "dbms.security.allow_csv_import_from_file_urls": "true",
    "server.directories.import": "",
    "db.memory.transaction.max": "0B",
    "dbms.memory.transaction.total.max": "0.00MiB",
    "db.transaction.timeout": "0s",
    "dbms.security.procedures.allowlist": "*",
}
APOC_FULL = ["apoc.cypher.run", "apoc.periodic.iterate", "apoc.load.json", "apoc.meta.data"]


def fake_rows(
    config: dict[str, str] | None,
    procedures: list[str] | None,
    jvm: list[str] | None,
    edition: str = "enterprise",
) -> Any:
    def rows(cypher: str) -> list[dict[str, Any]] | None:
        if cypher.startswith("SHOW PROCEDURES"):
            return None if procedures is None else [{"name": n} for n in procedures]
        if cypher.startswith("SHOW FUNCTIONS"):
            return None if procedures is None else [{"name": "toLower"}]
        if "listConfig" in cypher:
            return None if config is None else [{"name": k, "value": v} for k, v in config.items()]
        if "queryJmx" in cypher:
            return None if jvm is None else [{"args": jvm}]
        if "components" in cypher:
            return [{"edition": edition}]
        raise AssertionError(cypher)

    return rows


@pytest.mark.parametrize(
    ("config", "procedures", "jvm", "can_write", "edition", "expected"),
    [
        (HARDENED, ["db.labels", "apoc.meta.data"], ["-Xmx1g"], True, "community",
         ["on"] * 8 + ["n/a"]),
        (HARDENED, ["db.labels"], ["-Xmx1g"], False, "enterprise", ["on"] * 9),
        (DEFAULTS, APOC_FULL, ["-XX:+ExitOnOutOfMemoryError"], True, "enterprise",
         ["off"] * 9),
        (None, None, None, None, "enterprise", ["unknown"] * 9),
        ({**HARDENED, "db.transaction.timeout": "0ms"}, ["db.labels"], [], False, "enterprise",
         ["on", "on", "on", "on", "on", "off", "on", "on", "on"]),
    ],
)  # fmt: skip
def test_verdicts(
    config: dict[str, str] | None,
    procedures: list[str] | None,
    jvm: list[str] | None,
    can_write: bool | None,
    edition: str,
    expected: list[str],
) -> None:
    report = neo4j_check._report(fake_rows(config, procedures, jvm, edition), can_write)
    assert [p.state for p in report] == expected
    text = neo4j_check.render(report)
    assert len(text.splitlines()) == len(report)
    for protection in report:
        if protection.state == "off":
            assert protection.detail, protection.name


@pytest.mark.parametrize(
    ("value", "set_"),
    [("256.00MiB", True), ("5m", True), ("300s", True), ("1", True), ("0", False),
     ("0B", False), ("0.00MiB", False), ("0s", False), ("", False), ("  ", False)],
)  # fmt: skip
def test_nonzero(value: str, set_: bool) -> None:
    assert neo4j_check._nonzero(value) is set_
