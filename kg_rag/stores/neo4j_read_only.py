"""Running one screened, LLM-written statement on Neo4j within a hard deadline.

:meth:`~kg_rag.stores.neo4j.Neo4jGraphStore.run_read_only` screens the text
(:mod:`kg_rag.stores.cypher_safety`) and hands it here. The statement is compiled with
``EXPLAIN`` and then run once in an explicit READ transaction: no managed transaction
function, so the driver retries nothing (a transient memory error retried five times was how
a 10 s timeout became 49 s). The server ends the transaction at the deadline; the driver has
no client-side deadline of its own, so the work runs in a thread the caller stops waiting for
:data:`CLIENT_GRACE_S` after it. Every driver exception is mapped into the kg-rag error tree.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import neo4j
from neo4j import Query
from neo4j.exceptions import DriverError, Neo4jError

from kg_rag.config import Neo4jSettings
from kg_rag.errors import CypherLimitError, StoreUnavailable, UnsafeCypherError
from kg_rag.stores import cypher_safety

__all__ = ["CLIENT_GRACE_S", "run_bounded"]

CLIENT_GRACE_S = 0.5
"""How long past its deadline a call waits for the server before it gives up."""


def run_bounded(
    driver: neo4j.Driver,
    settings: Neo4jSettings,
    statement: str,
    params: Mapping[str, Any],
    *,
    timeout_s: float,
    row_limit: int,
) -> list[dict[str, Any]]:
    """``EXPLAIN`` (must be read-only), then run ``statement`` once; at most ``row_limit`` rows.

    Raises:
        UnsafeCypherError: Does not compile, is not read-only, or failed on the server.
        CypherLimitError: Ran past ``timeout_s`` (+ :data:`CLIENT_GRACE_S`) or past the
            server's transaction memory limit.
        StoreUnavailable: The server cannot be reached or dropped the connection.
    """
    deadline = time.monotonic() + timeout_s
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def work() -> None:
        try:
            outcome["rows"] = _explain_and_run(
                driver, settings, statement, params, deadline, timeout_s, row_limit
            )
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=work, name="kg-rag-read-only-cypher", daemon=True).start()
    if not finished.wait(timeout_s + CLIENT_GRACE_S):
        raise CypherLimitError(
            f"stopped: no answer within the {timeout_s}s deadline; narrow the query "
            "(or raise neo4j.query_timeout_s)"
        )
    if "error" in outcome:
        raise outcome["error"]
    rows: list[dict[str, Any]] = outcome["rows"]
    return rows


def _explain_and_run(
    driver: neo4j.Driver,
    settings: Neo4jSettings,
    statement: str,
    params: Mapping[str, Any],
    deadline: float,
    timeout_s: float,
    row_limit: int,
) -> list[dict[str, Any]]:
    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise CypherLimitError(f"stopped: ran past the {timeout_s}s deadline")
        return remaining

    try:
        with driver.session(
            database=settings.database,
            default_access_mode=neo4j.READ_ACCESS,
            fetch_size=min(row_limit, 1000),
        ) as session:
            try:
                # An auto-commit run: the driver retries nothing.
                plan = session.run(Query("EXPLAIN " + statement, timeout=left()), dict(params))
                query_type = plan.consume().query_type
            except Neo4jError as exc:
                if _limit_reason(exc) is None:
                    raise UnsafeCypherError(
                        f"refused: does not compile ({_one_line(exc.message or str(exc))})"
                    ) from exc
                raise
            cypher_safety.check_query_type(query_type)
            with session.begin_transaction(timeout=left()) as tx:
                result = tx.run(statement, dict(params))
                rows = [record.data() for record in result.fetch(row_limit)]
                tx.rollback()
            return rows
    except Neo4jError as exc:
        reason = _limit_reason(exc)
        if reason is not None:
            raise CypherLimitError(f"stopped: {reason} ({timeout_s}s deadline)") from exc
        raise UnsafeCypherError(f"failed: {_one_line(exc.message or str(exc))}") from exc
    except (DriverError, OSError) as exc:  # ServiceUnavailable, SessionExpired, ...
        raise StoreUnavailable(
            f"lost the connection to Neo4j at {settings.uri} while running generated Cypher "
            f"({_one_line(str(exc))}); check that the server is running."
        ) from exc


def _limit_reason(exc: Neo4jError) -> str | None:
    """Why the server stopped a transaction, if it was a time or memory limit."""
    code = exc.code or ""
    if "TransactionTimedOut" in code or "Terminated" in code:
        return "ran past the deadline"
    if "OutOfMemory" in code or "MemoryPool" in code:
        return "needed more memory than the server allows one transaction"
    return None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:300]
