"""Optional text2cypher for the graph route (Neo4j only).

The chat model writes one Cypher statement grounded in the live schema (read through
langchain-neo4j's ``Neo4jGraph``); it runs only through
:meth:`~kg_rag.stores.neo4j.Neo4jGraphStore.run_read_only` — lexical screening, ``EXPLAIN``
must report a read-only plan, a READ transaction with a timeout and a row limit. Anything
refused or failing returns ``None`` so the caller falls back to the templated queries.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from pydantic import BaseModel

from kg_rag.answer.trace import CypherCall
from kg_rag.errors import KgRagError, StoreUnavailable

__all__ = ["Text2Cypher"]

log = logging.getLogger(__name__)

PROMPT = """Write ONE read-only Cypher query for Neo4j 5 that finds the answer to the question.
Use only the labels, relationship types and properties in the schema. Entities are
(:Entity {{name, type, description}}); relations are [:RELATED {{type, description}}];
(:Chunk {{chunk_id, preview}})-[:MENTIONS]->(:Entity). Match names case-insensitively with
toLower(). Return names and, where possible, chunk ids. No writes, no procedures.

Schema:
{schema}

Question: {question}"""


class _Cypher(BaseModel):
    cypher: str


class Text2Cypher:
    """LLM-written, validated, read-only Cypher against a :class:`Neo4jGraphStore`.

    Args:
        store: the Neo4j graph store (provides ``run_read_only`` and the driver settings).
        caller: an :class:`~kg_rag.answer.llm.LLMCaller`.
        row_limit: rows fetched at most.
    """

    def __init__(self, store: Any, caller: Any, row_limit: int = 50) -> None:
        self.store = store
        self.caller = caller
        self.row_limit = row_limit
        self._schema: str | None = None

    def schema(self) -> str:
        """The live graph schema as text (cached)."""
        if self._schema is None:
            from langchain_neo4j import Neo4jGraph
            from neo4j.exceptions import DriverError, Neo4jError

            s = self.store.settings
            try:
                graph = Neo4jGraph(
                    url=s.uri,
                    username=s.user,
                    password=s.password.get_secret_value() if s.password else None,
                    database=s.database,
                    refresh_schema=False,
                    timeout=s.query_timeout_s,
                )
                try:
                    graph.refresh_schema()
                    self._schema = graph.get_schema
                finally:
                    graph.close()
            except (ValueError, Neo4jError, DriverError, OSError) as exc:
                # ValueError: langchain-neo4j's wording for "cannot connect" / "no APOC".
                raise StoreUnavailable(
                    f"could not read the graph schema for text2cypher from {s.uri} "
                    f"({' '.join(str(exc).split())[:200]}); it needs APOC's apoc.meta.data"
                ) from exc
        return self._schema

    async def run(self, question: str) -> tuple[list[dict[str, Any]] | None, CypherCall]:
        """Generate and run Cypher for ``question``: (rows, or None on refusal/failure; the call)."""
        t0 = time.perf_counter()
        call = CypherCall(name="text2cypher", cypher="", backend="neo4j")
        try:
            out = await self.caller.structured(
                _Cypher,
                PROMPT.format(schema=self.schema(), question=question),
                purpose="text2cypher",
            )
            cypher = re.sub(r"^```(?:cypher)?|```$", "", out.cypher.strip()).strip()
            call.cypher = cypher
            rows: list[dict[str, Any]] = self.store.run_read_only(
                cypher, {}, row_limit=self.row_limit
            )
        except KgRagError as exc:
            call.params = {"refused": str(exc)}
            log.info("text2cypher refused or failed: %s", exc)
            return None, call
        call.rows = len(rows)
        call.ms = round((time.perf_counter() - t0) * 1000, 2)
        return rows, call
