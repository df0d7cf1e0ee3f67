"""Gatekeeping for Cypher written by an LLM (text2cypher): only one read-only statement runs.

Three independent layers, each sufficient on its own for the common attacks:

1. **Lexical** (:func:`check_statement`): string literals and quoted names are masked, then the
   text must be one statement without comments, without any write / admin / import keyword,
   without ``apoc.*`` / ``dbms.*`` / ``gds.*``, and may ``CALL`` only allow-listed read
   procedures.
2. **Planner** (:func:`check_query_type`): ``EXPLAIN`` compiles the statement without running
   it; the plan's query type must be ``"r"`` (read-only).
3. **Execution** (in :meth:`~kg_rag.stores.neo4j.Neo4jGraphStore.run_read_only`): a READ
   access-mode transaction with a timeout and a row cap.

Every refusal raises :class:`~kg_rag.errors.UnsafeCypherError` with a one-line reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Final

from kg_rag.errors import UnsafeCypherError

__all__ = [
    "ALLOWED_PROCEDURES",
    "FORBIDDEN_KEYWORDS",
    "check_query_type",
    "check_statement",
    "mask_literals",
    "validate_read_only",
]

FORBIDDEN_KEYWORDS: Final = (
    "CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "FOREACH", "INSERT",
    "LOAD", "CSV", "PERIODIC", "COMMIT", "TRANSACTIONS", "GRANT", "REVOKE", "DENY", "ALTER",
    "RENAME", "START", "STOP", "TERMINATE", "USE", "SHOW", "ENABLE", "DEALLOCATE",
    "REALLOCATE", "EXPLAIN", "PROFILE", "CYPHER",
)  # fmt: skip

ALLOWED_PROCEDURES: Final = frozenset(
    {
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.schema.visualization",
        "db.schema.nodetypeproperties",
        "db.schema.reltypeproperties",
        "db.index.fulltext.querynodes",
        "db.index.fulltext.queryrelationships",
        "db.index.vector.querynodes",
    }
)

# A keyword is a whole word that is not a property access (``n.set``) or a parameter ($use).
_KEYWORD = re.compile(r"(?<![\w.$])(" + "|".join(FORBIDDEN_KEYWORDS) + r")(?![\w])", re.IGNORECASE)
_NAMESPACE = re.compile(r"(?<![\w$])(apoc|dbms|gds)\s*\.", re.IGNORECASE)
_CALL = re.compile(r"(?<![\w.$])CALL(?![\w])", re.IGNORECASE)
_PROCEDURE = re.compile(r"\s*([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_][\w]*)*)")
_MAX_CHARS = 20_000


def mask_literals(cypher: str) -> tuple[str, bool]:
    """Replace string literals with ``''`` and quoted names with ``` `_` ```; drop comments.

    Returns:
        The masked text and whether any comment was present.

    Raises:
        UnsafeCypherError: A string, quoted name or block comment is not terminated.
    """
    out: list[str] = []
    had_comment = False
    i, n = 0, len(cypher)
    while i < n:
        ch = cypher[i]
        nxt = cypher[i + 1] if i + 1 < n else ""
        if ch in "'\"":
            j = i + 1
            while j < n and cypher[j] != ch:
                # A backslash escapes the next character, whatever it is (\\, \', \").
                j += 2 if cypher[j] == "\\" else 1
            if j >= n:
                raise UnsafeCypherError("refused: unterminated string literal")
            out.append("''")
            i = j + 1
        elif ch == "`":
            j = i + 1
            while True:
                if j >= n:
                    raise UnsafeCypherError("refused: unterminated quoted name")
                if cypher[j] == "`":
                    if j + 1 < n and cypher[j + 1] == "`":  # `` is an escaped backtick
                        j += 2
                        continue
                    break
                j += 1
            out.append("`_`")
            i = j + 1
        elif ch == "/" and nxt == "/":
            had_comment = True
            j = cypher.find("\n", i)
            i = n if j < 0 else j
            out.append(" ")
        elif ch == "/" and nxt == "*":
            had_comment = True
            j = cypher.find("*/", i + 2)
            if j < 0:
                raise UnsafeCypherError("refused: unterminated block comment")
            out.append(" ")
            i = j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out), had_comment


def check_statement(cypher: str) -> str:
    """Lexical checks; returns the statement to run (trimmed, one trailing ``;`` removed).

    Raises:
        UnsafeCypherError: The text is not a single, comment-free, read-only statement that
            calls only allow-listed procedures.
    """
    if len(cypher) > _MAX_CHARS:
        raise UnsafeCypherError(f"refused: statement longer than {_MAX_CHARS} characters")
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in cypher):
        raise UnsafeCypherError("refused: control characters in the statement")
    masked, had_comment = mask_literals(cypher)
    if had_comment:
        raise UnsafeCypherError("refused: comments are not allowed in generated Cypher")
    body = masked.strip()
    statement = cypher.strip()
    if body.endswith(";"):
        body = body[:-1].rstrip()
        statement = statement[:-1].rstrip()
    if not body:
        raise UnsafeCypherError("refused: empty statement")
    if ";" in body:
        raise UnsafeCypherError("refused: more than one statement")
    # Fullwidth or otherwise compatible letters must not smuggle a keyword past the scan.
    body = unicodedata.normalize("NFKC", body)
    keyword = _KEYWORD.search(body)
    if keyword:
        raise UnsafeCypherError(f"refused: {keyword.group(1).upper()} is not allowed (read-only)")
    namespace = _NAMESPACE.search(body)
    if namespace:
        raise UnsafeCypherError(f"refused: {namespace.group(1).lower()}.* is not allowed")
    for call in _CALL.finditer(body):
        rest = body[call.end() :]
        if rest.lstrip().startswith(("{", "(")):
            continue  # a subquery; its body was checked with the rest of the text
        match = _PROCEDURE.match(rest)
        name = re.sub(r"\s+", "", match.group(1)).lower() if match else ""
        if name not in ALLOWED_PROCEDURES:
            shown = name or rest.strip()[:30]
            raise UnsafeCypherError(
                f"refused: procedure {shown!r} is not on the read-only allow-list"
            )
    return statement


def check_query_type(query_type: str | None) -> None:
    """Require the ``EXPLAIN`` plan's query type to be read-only (``"r"``).

    Raises:
        UnsafeCypherError: The planner reports a write, read-write or schema statement.
    """
    if query_type != "r":
        raise UnsafeCypherError(
            f"refused: the query plan is of type {query_type!r}, not read-only 'r'"
        )


def validate_read_only(
    cypher: str,
    params: Mapping[str, Any],
    explain: Callable[[str, Mapping[str, Any]], str | None],
) -> str:
    """Run every static check: lexical, then ``explain`` (which must compile the statement
    with ``EXPLAIN`` and return the plan's query type, or raise ``UnsafeCypherError``).

    Returns:
        The statement to execute.
    """
    statement = check_statement(cypher)
    check_query_type(explain(statement, params))
    return statement
