"""``kg-rag neo4j check``: which protections for LLM-written Cypher a Neo4j server has on.

Works on any Neo4j 5 the settings point at (the managed one or a user's own); it reads the
server's procedures, functions and configuration and probes write access in a transaction
that is always rolled back, so it changes nothing. What cannot be read with the configured
user's privileges is reported as unknown. The settings are described in ``docs/security.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from kg_rag.config import Neo4jSettings
from kg_rag.errors import StoreUnavailable

__all__ = ["Protection", "check", "render"]

State = Literal["on", "off", "unknown", "n/a"]

# APOC namespaces that run a string as Cypher or reach files and URLs.
_DANGEROUS_PREFIXES = (
    "apoc.cypher.",
    "apoc.periodic.",
    "apoc.load.",
    "apoc.import.",
    "apoc.export.",
    "apoc.trigger.",
    "apoc.custom.",
    "apoc.util.",
)


_WRITE_STATE: dict[bool | None, State] = {True: "off", False: "on", None: "unknown"}


class Protection(BaseModel):
    """One protection and whether the server has it."""

    name: str
    state: State
    detail: str


def check(settings: Neo4jSettings) -> list[Protection]:
    """Connect with ``settings`` and report each protection.

    Raises:
        StoreUnavailable: The server cannot be reached or refuses the login.
    """
    from neo4j import GraphDatabase
    from neo4j.exceptions import DriverError, Neo4jError

    password = settings.password.get_secret_value() if settings.password else ""
    try:
        with GraphDatabase.driver(settings.uri, auth=(settings.user, password)) as driver:
            driver.verify_connectivity()

            def rows(cypher: str, database: str = settings.database) -> list[dict[str, Any]] | None:
                try:
                    records, _, _ = driver.execute_query(cypher, database_=database)
                except Neo4jError:
                    return None  # not permitted (or not available) for this user
                return [r.data() for r in records]

            return _report(rows, _can_write(driver, settings.database))
    except (DriverError, Neo4jError, OSError) as exc:
        raise StoreUnavailable(
            f"cannot check Neo4j at {settings.uri} ({' '.join(str(exc).split())[:200]}); "
            "start it (`kg-rag neo4j start`) or fix KG_RAG_NEO4J__URI / __USER / __PASSWORD"
        ) from exc


def _can_write(driver: Any, database: str) -> bool | None:
    """Try a write in a transaction that is rolled back: False when the user is refused."""
    from neo4j.exceptions import ClientError, Neo4jError

    try:
        with driver.session(database=database) as session, session.begin_transaction() as tx:
            tx.run("CREATE (n:KgRagWriteProbe) RETURN count(n) AS n").consume()
            tx.rollback()
    except ClientError as exc:
        if "Security" in (exc.code or "") or "Forbidden" in (exc.code or ""):
            return False
        return None
    except Neo4jError:
        return None
    return True


def _report(
    rows: Callable[..., list[dict[str, Any]] | None], can_write: bool | None
) -> list[Protection]:
    out: list[Protection] = []
    procedures = rows("SHOW PROCEDURES YIELD name RETURN name")
    functions = rows("SHOW FUNCTIONS YIELD name RETURN name")
    if procedures is None or functions is None:
        out.append(
            Protection(
                name="no Cypher-from-string or file procedures",
                state="unknown",
                detail="cannot list procedures with this user",
            )
        )
    else:
        names = sorted({str(r["name"]) for r in procedures + functions})
        bad = [n for n in names if n.lower().startswith(_DANGEROUS_PREFIXES)]
        out.append(
            Protection(
                name="no Cypher-from-string or file procedures",
                state="off" if bad else "on",
                detail=(
                    f"{len(bad)} loaded, e.g. {', '.join(bad[:4])}: set "
                    "dbms.security.procedures.allowlist"
                    if bad
                    else f"none of apoc.cypher/periodic/load/import/export among {len(names)}"
                ),
            )
        )
    config_rows = rows("CALL dbms.listConfig() YIELD name, value RETURN name, value")
    config = {str(r["name"]): str(r["value"]) for r in config_rows or []}

    def setting(name: str, label: str, good: Callable[[str], bool], hint: str) -> None:
        if config_rows is None:
            out.append(
                Protection(
                    name=label,
                    state="unknown",
                    detail=f"{name}: cannot read the configuration (needs admin)",
                )
            )
            return
        value = config.get(name, "")
        ok = good(value)
        out.append(
            Protection(
                name=label,
                state="on" if ok else "off",
                detail=f"{name}={value or '(unset)'}" + ("" if ok else f"; {hint}"),
            )
        )

    setting(
        "dbms.security.allow_csv_import_from_file_urls",
        "LOAD CSV from file URLs refused",
        lambda v: v.lower() == "false",
        "set it to false",
    )
    setting(
        "server.directories.import",
        "file URLs confined to an import folder",
        bool,
        "unset, file URLs reach the whole file system",
    )
    setting(
        "db.memory.transaction.max",
        "per-transaction memory limit",
        _nonzero,
        "set e.g. 256m (0 is unlimited)",
    )
    setting(
        "dbms.memory.transaction.total.max",
        "global transaction memory limit",
        _nonzero,
        "set e.g. 512m (0 is unlimited)",
    )
    setting(
        "db.transaction.timeout",
        "server transaction timeout",
        _nonzero,
        "set e.g. 300s (0 is none)",
    )
    setting(
        "dbms.security.procedures.allowlist",
        "procedure allow-list",
        lambda v: bool(v) and v.strip() != "*",
        "list only the procedures you need",
    )
    jmx = rows(
        "CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes "
        "RETURN attributes.InputArguments.value AS args"
    )
    if jmx and jmx[0].get("args") is not None:
        exits = any("ExitOnOutOfMemoryError" in str(a) for a in jmx[0]["args"])
        out.append(
            Protection(
                name="survives a query's OutOfMemoryError",
                state="off" if exits else "on",
                detail="-XX:+ExitOnOutOfMemoryError is set"
                if exits
                else "no -XX:+ExitOnOutOfMemoryError",
            )
        )
    else:
        out.append(
            Protection(
                name="survives a query's OutOfMemoryError",
                state="unknown",
                detail="cannot read the JVM arguments",
            )
        )
    edition = rows("CALL dbms.components() YIELD edition RETURN edition")
    if edition and str(edition[0]["edition"]).lower() == "community" and can_write:
        out.append(
            Protection(
                name="read-only user",
                state="n/a",
                detail="Community edition has no roles; the READ transaction "
                "kg-rag uses refuses writes",
            )
        )
        return out
    out.append(
        Protection(
            name="read-only user",
            state=_WRITE_STATE[can_write],
            detail={
                True: "this user may write: give kg-rag's query user a read-only role "
                "(see docs/security.md); the READ transaction still refuses writes",
                False: "writes are refused for this user",
                None: "could not probe write access",
            }[can_write],
        )
    )
    return out


def _nonzero(value: str) -> bool:
    """A limit that is set and not 0 (Neo4j's "unlimited"), whatever its unit."""
    return re.fullmatch(r"\s*(0+(\.0*)?\s*[a-z]*)?\s*", value.lower()) is None


def render(protections: list[Protection]) -> str:
    """One line per protection: state, name, detail."""
    width = max(len(p.name) for p in protections)
    return "\n".join(f"{p.state:<7}  {p.name:<{width}}  {p.detail}" for p in protections)
