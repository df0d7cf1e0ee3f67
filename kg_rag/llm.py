"""Chat models built from :class:`~kg_rag.config.LLMSettings`, structured output, and accounting.

Only the engine's factory should call :func:`build_chat_model`; every other component receives
a LangChain ``BaseChatModel`` through its constructor (tests pass the fake from
``kg_rag.testing``).

Two traps of OpenAI-compatible servers are handled here (see ``PACKAGE-NOTES.md``):

* ``ChatOpenAI`` sends ``max_completion_tokens``, which the llama.cpp server ignores, so a junk
  model would generate up to the full context. For any endpoint other than OpenAI's own,
  ``max_tokens`` is sent as well, through ``extra_body``.
* ``response_format={"type": "json_schema"}`` is refused by the llama.cpp server (HTTP 500).
  :func:`structured_output` therefore defaults to ``method="function_calling"``: a forced tool
  call, which OpenAI, vLLM and the llama.cpp server all honour (llama.cpp turns the tool's JSON
  schema into a grammar, so even a tiny base model returns schema-valid arguments).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urlparse
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, SecretStr, ValidationError

from extraction.structured import ResponseCache
from kg_rag.config import LLMSettings, Settings
from kg_rag.errors import ConfigError, RetryableLLMError

__all__ = [
    "StructuredMethod",
    "UsageTracker",
    "build_chat_model",
    "response_cache",
    "structured_output",
]

StructuredMethod = Literal["function_calling", "json_mode", "json_schema"]
"""How :func:`structured_output` steers the model:

* ``"function_calling"`` (default): a forced tool call whose parameters are the schema. Works
  on OpenAI, vLLM and the llama.cpp server.
* ``"json_mode"``: ``response_format={"type": "json_object", "schema": ...}``. The llama.cpp
  server turns the schema into a grammar; OpenAI only promises *some* JSON object and needs the
  word "json" in the prompt.
* ``"json_schema"``: OpenAI's strict structured outputs. Refused by the llama.cpp server.
"""

_M = TypeVar("_M", bound=BaseModel)

# Local servers do not check the key, but the OpenAI client refuses to start without one.
_PLACEHOLDER_KEY = "not-needed"


def _is_openai(base_url: str | None) -> bool:
    if base_url is None:
        return True
    host = urlparse(base_url).hostname or ""
    return host == "api.openai.com"


def build_chat_model(
    settings: LLMSettings, *, callbacks: Sequence[BaseCallbackHandler] = ()
) -> BaseChatModel:
    """Build a ``ChatOpenAI`` for OpenAI or any OpenAI-compatible endpoint.

    Args:
        settings: The ``llm`` section of the settings.
        callbacks: Handlers attached to every call of the model (e.g. a :class:`UsageTracker`).

    Returns:
        A chat model; nothing is sent over the network until it is invoked.

    Raises:
        ConfigError: When neither ``base_url`` nor ``api_key`` is set.
    """
    if not settings.enabled:
        raise ConfigError(
            "No LLM configured: set KG_RAG_LLM__BASE_URL to an OpenAI-compatible endpoint "
            "(`kg-rag llm-server start` prints a local one) or KG_RAG_LLM__API_KEY for OpenAI."
        )
    # Imported here: langchain_openai pulls in openai and tiktoken, which offline runs never need.
    from langchain_openai import ChatOpenAI

    api_key = settings.api_key or SecretStr(_PLACEHOLDER_KEY)
    # OpenAI's reasoning models reject ``max_tokens``; other servers need it (see module doc).
    extra_body = None if _is_openai(settings.base_url) else {"max_tokens": settings.max_tokens}
    return ChatOpenAI(
        model=settings.model,
        base_url=settings.base_url,
        api_key=api_key,
        temperature=settings.temperature,
        max_completion_tokens=settings.max_tokens,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
        extra_body=extra_body,
        callbacks=list(callbacks) or None,
    )


def response_cache(settings: Settings, name: str) -> ResponseCache | None:
    """The response cache ``name`` (``"extraction"``, ``"community"``) as the settings place it
    (:attr:`~kg_rag.config.LLMSettings.response_cache`), or ``None`` when it is off.

    Entries are keyed by model, prompt version and input, so one shared file serves every
    knowledge base; nothing is opened until the first lookup.
    """
    mode = settings.llm.response_cache
    if mode == "off":
        return None
    folder = settings.llm.cache_dir if mode == "shared" else settings.kb_dir
    return ResponseCache(Path(folder) / f"{name}-cache.sqlite")


def structured_output(
    model: BaseChatModel,
    schema: type[_M],
    *,
    method: StructuredMethod = "function_calling",
    attempts: int = 1,
) -> Runnable[LanguageModelInput, _M]:
    """Wrap ``model`` so that it returns an instance of ``schema``.

    Pass ``settings.structured_method`` as ``method`` when the model came from settings.

    Args:
        model: Any LangChain chat model supporting tools (or ``response_format``).
        schema: The pydantic model to return.
        method: See :data:`StructuredMethod`; ``"function_calling"`` works everywhere.
        attempts: Calls made before giving up on output that does not fit the schema.

    Returns:
        A runnable giving a validated ``schema`` instance.

    Raises:
        RetryableLLMError: (when invoked) the model's output did not fit the schema
            ``attempts`` times in a row.
    """
    if attempts < 1:
        raise ConfigError(f"attempts must be >= 1, got {attempts}")
    if method == "json_mode":
        bound = model.bind(
            response_format={"type": "json_object", "schema": schema.model_json_schema()}
        )
        parser = PydanticOutputParser(pydantic_object=schema)
        chain: Runnable[LanguageModelInput, Any] = bound | parser
    else:
        chain = model.with_structured_output(schema, method=method)

    def check(value: Any) -> _M:
        if isinstance(value, schema):
            return value
        raise RetryableLLMError(
            f"The model returned no {schema.__name__} (got {type(value).__name__}); "
            "retry, or use a model that supports tool calls."
        )

    checked: Runnable[LanguageModelInput, _M] = chain | RunnableLambda(check)
    if attempts > 1:
        checked = checked.with_retry(
            retry_if_exception_type=(RetryableLLMError, OutputParserException, ValidationError),
            stop_after_attempt=attempts,
            wait_exponential_jitter=False,
        )
    return checked


class UsageTracker(BaseCallbackHandler):
    """Counts LLM calls, tokens and errors; safe to share across threads and event loops.

    Attach it with ``build_chat_model(settings, callbacks=[tracker])`` or per call through
    ``config={"callbacks": [tracker]}``. Every finished call counts once in ``calls``, failed
    ones also in ``errors``. Tokens come from ``AIMessage.usage_metadata`` when the provider
    reports it, else from ``LLMResult.llm_output["token_usage"]``.
    """

    # Run in the caller's thread even for async calls, so counts are final when a call returns.
    run_inline = True

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._calls = 0
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._errors = 0

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        prompt, completion = _token_usage(response)
        with self._lock:
            self._calls += 1
            self._prompt_tokens += prompt
            self._completion_tokens += completion

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        with self._lock:
            self._calls += 1
            self._errors += 1

    def snapshot(self) -> dict[str, int]:
        """Return the counts so far: calls, prompt/completion/total tokens, errors."""
        with self._lock:
            return {
                "calls": self._calls,
                "prompt_tokens": self._prompt_tokens,
                "completion_tokens": self._completion_tokens,
                "total_tokens": self._prompt_tokens + self._completion_tokens,
                "errors": self._errors,
            }

    def reset(self) -> None:
        """Set every count back to zero."""
        with self._lock:
            self._calls = self._prompt_tokens = self._completion_tokens = self._errors = 0


def _token_usage(response: LLMResult) -> tuple[int, int]:
    """(prompt, completion) tokens of one call, counted once even if reported twice."""
    prompt = completion = 0
    found = False
    for generations in response.generations:
        for generation in generations:
            if not isinstance(generation, ChatGeneration):
                continue
            message = generation.message
            if isinstance(message, AIMessage) and message.usage_metadata:
                found = True
                prompt += message.usage_metadata.get("input_tokens", 0)
                completion += message.usage_metadata.get("output_tokens", 0)
    if found:
        return prompt, completion
    usage = (response.llm_output or {}).get("token_usage") or {}
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
