"""Gatekeeping for Cypher written by an LLM (text2cypher): only one bounded read runs.

Three independent layers:

1. **Lexical** (:func:`check_statement`): a small Cypher lexer (:func:`tokenize`) splits the
   text into strings, backtick-quoted names, parameters, numbers, words and symbols, so that
   no check depends on how a name is spelled. Names are compared with their quotes removed,
   NFKC-normalized and case-folded (``\\`apoc\\`.cypher``, ``\\`apoc.cypher\\`.run`` and
   ``APOC.cypher`` are one name). Refused: comments, several statements, unicode escapes
   anywhere (Neo4j decodes them before lexing, so they could end a string early),
   backslashes or non-ASCII characters outside strings and quoted names, every write / admin / import
   keyword, every name in the ``apoc``/``dbms``/``db``/``gds`` namespaces except the
   allow-listed read procedures after ``CALL`` (so nothing that runs a string as Cypher, such
   as ``apoc.cypher.*`` or ``apoc.periodic.*``, and no ``LOAD CSV`` / ``apoc.load.*``), and
   namespaced functions outside a short allow-list of pure ones (``date.*``, ``point.*``, ...).
   Cypher does not count expression values against the transaction memory limit, so the
   expressions must be bounded too: ``range()`` takes literal bounds, ranges multiply to at
   most :data:`MAX_GENERATED` values, ``reduce()`` (the string doubler) is refused, iterations
   (``[x IN ... | ...]``, ``any(x IN ...)``, pattern comprehensions) do not nest, and a cost
   estimate (generated values × longest string literal × 2 ** concatenations) stays under
   :data:`MAX_VALUE_COST`.
2. **Planner** (:func:`check_query_type`): ``EXPLAIN`` compiles the statement without running
   it; the plan's query type must be ``"r"`` (read-only).
3. **Execution** (in :meth:`~kg_rag.stores.neo4j.Neo4jGraphStore.run_read_only`): an explicit
   READ transaction (never retried) with a server-side timeout, a client-side deadline and a
   row cap; the managed server adds a procedure allow-list, transaction memory limits and no
   file import (:data:`kg_rag.neo4j_server.HARDENING`).

Every refusal raises :class:`~kg_rag.errors.UnsafeCypherError` with a one-line reason.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from kg_rag.errors import UnsafeCypherError

__all__ = [
    "ALLOWED_FUNCTION_NAMESPACES",
    "ALLOWED_PROCEDURES",
    "FORBIDDEN_KEYWORDS",
    "FORBIDDEN_NAMESPACES",
    "MAX_GENERATED",
    "MAX_VALUE_COST",
    "Token",
    "check_query_type",
    "check_statement",
    "tokenize",
    "validate_read_only",
]

FORBIDDEN_KEYWORDS: Final = frozenset(
    {
        "CREATE", "MERGE", "DELETE", "DETACH", "NODETACH", "SET", "REMOVE", "DROP",
        "FOREACH", "INSERT", "LOAD", "CSV", "PERIODIC", "COMMIT", "TRANSACTIONS", "GRANT",
        "REVOKE", "DENY", "ALTER", "RENAME", "START", "STOP", "TERMINATE", "USE", "SHOW",
        "ENABLE", "DEALLOCATE", "REALLOCATE", "EXPLAIN", "PROFILE", "CYPHER", "IMPORT",
        "FINISH",
    }
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
"""Read procedures LLM Cypher may ``CALL`` (compared case-folded, quotes removed)."""

FORBIDDEN_NAMESPACES: Final = frozenset({"apoc", "apocext", "dbms", "db", "gds", "genai", "sys"})
"""No name in these namespaces may appear (except :data:`ALLOWED_PROCEDURES` after CALL)."""

ALLOWED_FUNCTION_NAMESPACES: Final = frozenset(
    {"date", "datetime", "localdatetime", "localtime", "time", "duration", "point", "vector"}
)
"""Namespaced functions LLM Cypher may call: Cypher's own pure value functions."""

MAX_GENERATED: Final = 100_000
"""Most values all ``range()`` calls of one statement may generate (their spans multiplied)."""

MAX_VALUE_COST: Final = 1 << 26
"""Bound on generated values × longest string literal × 2 ** (number of ``+``)."""

_MAX_CHARS = 20_000
_MAX_CONCATENATIONS = 16
_ITERATORS = frozenset({"any", "all", "none", "single"})

TokenKind = Literal["word", "quoted", "string", "number", "param", "symbol"]


@dataclass(frozen=True)
class Token:
    """One lexical unit of a Cypher statement.

    Attributes:
        kind: ``word`` (unquoted name or keyword), ``quoted`` (a backtick-quoted name),
            ``string``, ``number``, ``param`` (``$name``) or ``symbol``.
        text: The name without quotes, the decoded string, or the symbol itself.
        start: Offset in the statement.
    """

    kind: TokenKind
    text: str
    start: int

    @property
    def key(self) -> str:
        """A name as Neo4j would resolve it, to compare against lists: NFKC, case-folded,
        invisible format characters removed."""
        folded = unicodedata.normalize("NFKC", self.text).casefold()
        return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf").strip()

    def is_word(self, *words: str) -> bool:
        """True for an unquoted word equal (case-insensitively) to one of ``words``."""
        return self.kind == "word" and self.text.upper() in words


_UNICODE_ESCAPE = re.compile(r"\\+[uU]")
_SYMBOLS = ("<>", "<=", ">=", "=~", "..", "+=", "->", "<-", "::", "!=", "||")
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", "'": "'", '"': '"', "\\": "\\"}


def tokenize(cypher: str) -> list[Token]:
    """Split a statement into :class:`Token` s.

    Raises:
        UnsafeCypherError: A comment, an unterminated string / quoted name, a backslash or a
            non-ASCII character outside strings and quoted names.
    """
    if _UNICODE_ESCAPE.search(cypher):
        # Neo4j decodes \uXXXX before it splits the text into tokens (inside strings too):
        # 'a\u0027 + x' is the string 'a' followed by code. No escape, no ambiguity.
        raise UnsafeCypherError(
            "refused: unicode escapes (\\u) are not allowed; write the character itself"
        )
    tokens: list[Token] = []
    i, n = 0, len(cypher)
    while i < n:
        ch = cypher[i]
        nxt = cypher[i + 1] if i + 1 < n else ""
        if ch in " \t\r\n":
            i += 1
        elif ch == "/" and nxt and nxt in "/*":
            raise UnsafeCypherError("refused: comments are not allowed in generated Cypher")
        elif ch in "'\"":
            text, end = _read_string(cypher, i)
            tokens.append(Token("string", text, i))
            i = end
        elif ch == "`":
            text, end = _read_quoted(cypher, i)
            tokens.append(Token("quoted", text, i))
            i = end
        elif ch == "$":
            j = i + 1
            if j < n and cypher[j] == "`":
                text, j = _read_quoted(cypher, j)
            else:
                while j < n and (cypher[j].isascii() and (cypher[j].isalnum() or cypher[j] == "_")):
                    j += 1
                text = cypher[i + 1 : j]
            if not text:
                raise UnsafeCypherError("refused: a '$' without a parameter name")
            tokens.append(Token("param", text, i))
            i = j
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            j = i + 1
            while j < n and cypher[j].isascii() and (cypher[j].isalnum() or cypher[j] == "_"):
                j += 1
            tokens.append(Token("word", cypher[i:j], i))
            i = j
        elif ch.isascii() and ch.isdigit():
            j = i + 1
            while j < n and cypher[j].isascii() and (cypher[j].isalnum() or cypher[j] in "._"):
                if cypher[j] == "." and not cypher[j + 1 : j + 2].isdigit():
                    break  # 1..3 is a range in a pattern, 1.x a property of a number
                j += 1
            tokens.append(Token("number", cypher[i:j], i))
            i = j
        elif ch == "\\":
            raise UnsafeCypherError(
                "refused: a backslash outside a string literal (unicode escapes in names)"
            )
        elif not ch.isascii() or not ch.isprintable():
            raise UnsafeCypherError(
                f"refused: character U+{ord(ch):04X} outside a string literal or quoted name"
            )
        else:
            two = cypher[i : i + 2]
            symbol = two if two in _SYMBOLS else ch
            tokens.append(Token("symbol", symbol, i))
            i += len(symbol)
    return tokens


def _read_string(cypher: str, start: int) -> tuple[str, int]:
    quote, j, n = cypher[start], start + 1, len(cypher)
    out: list[str] = []
    while j < n:
        ch = cypher[j]
        if ch == quote:
            return "".join(out), j + 1
        if ch == "\\":
            code = cypher[j + 1 : j + 2]
            out.append(_ESCAPES.get(code, "\\" + code))  # Neo4j keeps unknown escapes as is
            j += 2
            continue
        out.append(ch)
        j += 1
    raise UnsafeCypherError("refused: unterminated string literal")


def _read_quoted(cypher: str, start: int) -> tuple[str, int]:
    j, n = start + 1, len(cypher)
    out: list[str] = []
    while j < n:
        if cypher[j] == "`":
            if cypher[j + 1 : j + 2] == "`":  # `` is an escaped backtick
                out.append("`")
                j += 2
                continue
            return "".join(out), j + 1
        out.append(cypher[j])
        j += 1
    raise UnsafeCypherError("refused: unterminated quoted name")


def check_statement(cypher: str) -> str:
    """Lexical and expression checks; returns the statement to run (trimmed, one trailing
    ``;`` removed).

    Raises:
        UnsafeCypherError: The text is not one comment-free, read-only, bounded statement
            that calls only allow-listed procedures and functions.
    """
    if len(cypher) > _MAX_CHARS:
        raise UnsafeCypherError(f"refused: statement longer than {_MAX_CHARS} characters")
    tokens = tokenize(cypher)
    statement = cypher.strip()
    if tokens and tokens[-1].text == ";" and tokens[-1].kind == "symbol":
        tokens.pop()
        statement = statement[:-1].rstrip()
    if not tokens:
        raise UnsafeCypherError("refused: empty statement")
    if any(t.kind == "symbol" and t.text == ";" for t in tokens):
        raise UnsafeCypherError("refused: more than one statement")
    _check_keywords(tokens)
    _check_names(tokens)
    _check_expressions(tokens)
    return statement


def _check_keywords(tokens: list[Token]) -> None:
    for k, token in enumerate(tokens):
        if token.kind != "word" or token.text.upper() not in FORBIDDEN_KEYWORDS:
            continue
        before = tokens[k - 1] if k else None
        if before is not None and before.kind == "symbol" and before.text == ".":
            continue  # a property (n.set)
        raise UnsafeCypherError(f"refused: {token.text.upper()} is not allowed (read-only)")


def _check_names(tokens: list[Token]) -> None:
    """Every dotted name, quotes removed: namespaces, procedures and functions."""
    k = 0
    while k < len(tokens):
        token = tokens[k]
        if token.kind not in ("word", "quoted"):
            k += 1
            continue
        if _after_dot(tokens, k):
            # A property. Neo4j cannot call one, but refuse what would read as a hidden call.
            follower = tokens[k + 1].text if k + 1 < len(tokens) else ""
            hides = follower == "." and token.key.split(".")[0] in FORBIDDEN_NAMESPACES
            if follower == "(" or hides:
                raise UnsafeCypherError(f"refused: {token.key!r} after a '.' may not be called")
            k += 1
            continue
        parts, end = _dotted(tokens, k)
        called = end < len(tokens) and tokens[end].text == "(" and tokens[end].kind == "symbol"
        after_call = k > 0 and tokens[k - 1].is_word("CALL")
        name = ".".join(parts)
        if after_call:
            if name not in ALLOWED_PROCEDURES:
                raise UnsafeCypherError(
                    f"refused: procedure {name!r} is not on the read-only allow-list"
                )
        elif parts[0] in FORBIDDEN_NAMESPACES and (called or len(parts) > 1):
            raise UnsafeCypherError(f"refused: {parts[0]}.* is not allowed")
        elif called and len(parts) > 1 and parts[0] not in ALLOWED_FUNCTION_NAMESPACES:
            raise UnsafeCypherError(f"refused: function {name!r} is not allowed")
        k = end
    for k, token in enumerate(tokens):
        if token.is_word("CALL"):
            after = tokens[k + 1] if k + 1 < len(tokens) else None
            if after is None or not (after.kind in ("word", "quoted") or after.text in "({"):
                raise UnsafeCypherError("refused: CALL must name a procedure or open a subquery")


def _after_dot(tokens: list[Token], k: int) -> bool:
    return k > 0 and tokens[k - 1].kind == "symbol" and tokens[k - 1].text == "."


def _dotted(tokens: list[Token], k: int) -> tuple[list[str], int]:
    """The parts of the dotted name starting at ``k`` (each quoted part split on dots too)."""
    parts = tokens[k].key.split(".")
    end = k + 1
    while (
        end + 1 < len(tokens)
        and tokens[end].kind == "symbol"
        and tokens[end].text == "."
        and tokens[end + 1].kind in ("word", "quoted")
    ):
        parts.extend(tokens[end + 1].key.split("."))
        end += 2
    return [part.strip() for part in parts], end


def _check_expressions(tokens: list[Token]) -> None:
    """Bound what expressions can build (values the server's memory limits do not count)."""
    generated = 1
    for k, token in enumerate(tokens):
        if token.kind != "word" or _after_dot(tokens, k) or not _opens_call(tokens, k):
            continue
        name = token.text.lower()
        if name == "reduce":
            raise UnsafeCypherError("refused: reduce() is not allowed in generated Cypher")
        if name == "range":
            generated *= _range_span(tokens, k + 2)
            if generated > MAX_GENERATED:
                raise UnsafeCypherError(
                    f"refused: range() would generate more than {MAX_GENERATED} values"
                )
    _check_iterations(tokens)
    pluses = sum(1 for t in tokens if t.kind == "symbol" and t.text in ("+", "||"))
    pluses += sum(
        1 for k, t in enumerate(tokens) if t.is_word("REPLACE") and _opens_call(tokens, k)
    )
    if pluses > _MAX_CONCATENATIONS:
        raise UnsafeCypherError(
            f"refused: more than {_MAX_CONCATENATIONS} concatenations in one statement"
        )
    longest = max((len(t.text) for t in tokens if t.kind == "string"), default=1)
    if generated * max(longest, 1) * math.pow(2, pluses) > MAX_VALUE_COST:
        raise UnsafeCypherError(
            "refused: the statement could build values too large for the server "
            "(fewer generated values, shorter literals or fewer concatenations)"
        )


def _opens_call(tokens: list[Token], k: int) -> bool:
    nxt = tokens[k + 1] if k + 1 < len(tokens) else None
    return nxt is not None and nxt.kind == "symbol" and nxt.text == "("


def _range_span(tokens: list[Token], k: int) -> int:
    """Number of values of ``range(<int>, <int>[, <int>])`` whose arguments start at ``k``."""
    values: list[int] = []
    while True:
        sign = 1
        if k < len(tokens) and tokens[k].kind == "symbol" and tokens[k].text in "+-":
            sign = -1 if tokens[k].text == "-" else 1
            k += 1
        if k >= len(tokens) or tokens[k].kind != "number" or not tokens[k].text.isdigit():
            raise UnsafeCypherError("refused: range() takes integer literals only")
        values.append(sign * int(tokens[k].text))
        k += 1
        if k < len(tokens) and tokens[k].text == ")" and tokens[k].kind == "symbol":
            break
        if k >= len(tokens) or tokens[k].text != "," or len(values) == 3:
            raise UnsafeCypherError("refused: range() takes integer literals only")
        k += 1
    if len(values) < 2:
        raise UnsafeCypherError("refused: range() takes integer literals only")
    start, stop = values[0], values[1]
    step = values[2] if len(values) == 3 else 1
    if step == 0:
        raise UnsafeCypherError("refused: range() with step 0")
    return max(0, (stop - start) // step + 1)


def _check_iterations(tokens: list[Token]) -> None:
    """No iteration (list / pattern comprehension, quantifier) inside another one."""
    stack: list[bool] = []  # per open bracket: does it hold an iteration?
    depth = 0  # open brackets that hold an iteration
    for k, token in enumerate(tokens):
        if token.kind != "symbol":
            continue
        if token.text in "([{":
            iterates = _starts_iteration(tokens, k)
            if iterates and depth:
                raise UnsafeCypherError(
                    "refused: nested iterations (a comprehension or any/all/none/single "
                    "inside another) are not allowed"
                )
            stack.append(iterates)
            depth += iterates
        elif token.text in ")]}" and stack:
            depth -= stack.pop()


def _starts_iteration(tokens: list[Token], k: int) -> bool:
    opener = tokens[k].text
    first = tokens[k + 1] if k + 1 < len(tokens) else None
    second = tokens[k + 2] if k + 2 < len(tokens) else None
    if first is None:
        return False
    variable_in = first.kind in ("word", "quoted") and second is not None and second.is_word("IN")
    if opener == "[":
        if variable_in:
            return True  # [x IN list | ...]
        pattern = first.kind == "symbol" and first.text == "("
        named_pattern = (
            first.kind in ("word", "quoted")
            and second is not None
            and second.text == "="
            and k + 3 < len(tokens)
            and tokens[k + 3].text == "("
        )
        return pattern or named_pattern  # [(a)-->(b) | ...], [p = (a)-->() | ...]
    if opener == "(" and k > 0 and tokens[k - 1].kind == "word":
        return variable_in and tokens[k - 1].text.lower() in _ITERATORS
    return False


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
