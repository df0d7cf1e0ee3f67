"""Deterministic test doubles that run the production code paths unchanged.

* :class:`FakeChatModel` is a real LangChain ``BaseChatModel``: it answers from a script of
  ``(pattern, response)`` entries, supports ``bind_tools`` and therefore
  ``with_structured_output``, records every call, reports token usage, and raises
  :class:`~kg_rag.errors.UnscriptedPromptError` on a prompt no entry matches.
* :class:`HashEmbeddings` is a LangChain ``Embeddings`` that hashes tokens into a fixed-size
  vector: no model, same text → same vector, shared words → nearby vectors. It counts calls.

Users can test their own code against kg-rag with these, too.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from kg_rag.errors import UnscriptedPromptError

__all__ = ["FakeCall", "FakeChatModel", "HashEmbeddings", "Response"]

Response = str | BaseException | Callable[[str], str]
"""A scripted reply: text (JSON args when tools are bound), an exception to raise, or a
function of the prompt text."""

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass
class FakeCall:
    """One recorded call: the flattened prompt, the tools bound, and what was returned."""

    prompt: str
    tools: list[str]
    response: str
    pattern: str


@dataclass
class _Entry:
    pattern: re.Pattern[str]
    responses: list[Response]
    used: int = 0


def _flatten(messages: Sequence[BaseMessage]) -> str:
    parts = []
    for m in messages:
        content = m.content if isinstance(m.content, str) else json.dumps(m.content)
        parts.append(f"{m.type}: {content}")
    return "\n".join(parts)


def _count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


class FakeChatModel(BaseChatModel):
    """A scripted chat model.

    Args:
        script: ``(pattern, response_or_responses)`` pairs. ``pattern`` is a regular
            expression searched in the flattened prompt (``"role: content"`` lines); the
            first matching entry answers. A list of responses is consumed in order and its
            last item repeats. A response may be an exception (raised) or a callable of the
            prompt text.

    Example:
        >>> fake = FakeChatModel(script=[("capital of France", "Paris")])
        >>> fake.invoke("What is the capital of France?").content
        'Paris'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[tuple[str, Response | list[Response]]]
    model_name: str = "fake-chat"

    _entries: list[_Entry] = PrivateAttr(default_factory=list)
    _calls: list[FakeCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, __context: Any) -> None:
        self._entries = [
            _Entry(re.compile(p, re.IGNORECASE | re.DOTALL), r if isinstance(r, list) else [r])
            for p, r in self.script
        ]

    @property
    def _llm_type(self) -> str:
        return "kg-rag-fake-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    @property
    def calls(self) -> list[FakeCall]:
        """Every call made so far, in order."""
        return list(self._calls)

    def calls_matching(self, pattern: str) -> list[FakeCall]:
        """Calls whose prompt matches ``pattern`` (regular expression, case-insensitive)."""
        rx = re.compile(pattern, re.IGNORECASE | re.DOTALL)
        return [c for c in self._calls if rx.search(c.prompt)]

    def reset(self) -> None:
        """Forget recorded calls and rewind every response list."""
        with self._lock:
            self._calls.clear()
            for e in self._entries:
                e.used = 0

    def _next_response(self, prompt: str) -> tuple[Response, str]:
        with self._lock:
            for entry in self._entries:
                if entry.pattern.search(prompt):
                    idx = min(entry.used, len(entry.responses) - 1)
                    entry.used += 1
                    return entry.responses[idx], entry.pattern.pattern
        snippet = prompt[-300:].replace("\n", " | ")
        raise UnscriptedPromptError(
            f"FakeChatModel has no script entry matching this prompt (…{snippet}); "
            "add a (pattern, response) pair to its script."
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = _flatten(messages)
        response, pattern = self._next_response(prompt)
        tools: list[dict[str, Any]] = kwargs.get("tools") or []
        tool_names = [t["function"]["name"] for t in tools]
        if isinstance(response, BaseException):
            with self._lock:
                self._calls.append(FakeCall(prompt, tool_names, f"<raised {response!r}>", pattern))
            raise response
        text = response(prompt) if callable(response) else response
        with self._lock:
            self._calls.append(FakeCall(prompt, tool_names, text, pattern))
        usage = {
            "input_tokens": _count_tokens(prompt),
            "output_tokens": _count_tokens(text),
            "total_tokens": _count_tokens(prompt) + _count_tokens(text),
        }
        if tool_names:
            message = self._tool_message(text, tool_names[0], usage)
        else:
            message = AIMessage(content=text, usage_metadata=usage)
        token_usage = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
        }
        return ChatResult(
            generations=[ChatGeneration(message=message)],
            llm_output={"token_usage": token_usage, "model_name": self.model_name},
        )

    @staticmethod
    def _tool_message(text: str, tool_name: str, usage: dict[str, int]) -> AIMessage:
        call_id = f"call_{uuid.uuid5(uuid.NAMESPACE_OID, text).hex[:12]}"
        try:
            args = json.loads(text)
            if not isinstance(args, dict):
                raise ValueError("tool arguments must be a JSON object")
        except ValueError as exc:
            return AIMessage(
                content="",
                invalid_tool_calls=[
                    {
                        "name": tool_name,
                        "args": text,
                        "id": call_id,
                        "error": str(exc),
                        "type": "invalid_tool_call",
                    }
                ],
                usage_metadata=usage,
            )
        return AIMessage(
            content="",
            tool_calls=[{"name": tool_name, "args": args, "id": call_id, "type": "tool_call"}],
            usage_metadata=usage,
        )

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools like an OpenAI model: scripted replies become the first tool's args."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        kwargs.pop("ls_structured_output_format", None)
        return self.bind(tools=formatted, **kwargs)


class HashEmbeddings(Embeddings):
    """Deterministic bag-of-words hashing embedder (no model). Counts texts and calls.

    Args:
        dimensions: Vector size.
    """

    def __init__(self, dimensions: int = 64) -> None:
        self.dimensions = dimensions
        self.model_name = f"hash-{dimensions}"
        self.calls = 0
        self.texts_embedded = 0
        self._lock = threading.Lock()

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * self.dimensions
        tokens = [t.lower() for t in _TOKEN.findall(text)] or [""]
        for tok in tokens:
            h = hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest()
            idx = int.from_bytes(h[:4], "little") % self.dimensions
            vec[idx] += 1.0 if h[4] & 1 else -1.0
        norm = sum(v * v for v in vec) ** 0.5 or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts."""
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(texts)
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]
