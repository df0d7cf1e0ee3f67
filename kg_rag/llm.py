"""Chat models and LLM-runtime components built from :class:`~kg_rag.config.Settings`.

Only the engine's factory should call :func:`build_chat_model`; every other component receives
a LangChain ``BaseChatModel`` through its constructor (tests pass the fake from
``kg_rag.testing``). Structured calls, retries, repair, cache, usage and budgets all go
through one runtime, :mod:`extraction.llm_runtime`; this module builds its users from the
settings, once for every caller: :func:`build_extractor` and :func:`build_summarizer` (the
ingest and ``kg-rag estimate`` use the same ones), :func:`response_cache`.

Two traps of OpenAI-compatible servers are handled here (see ``PACKAGE-NOTES.md``):

* ``ChatOpenAI`` sends ``max_completion_tokens``, which the llama.cpp server ignores, so a junk
  model would generate up to the full context. For any endpoint other than OpenAI's own,
  ``max_tokens`` is sent as well, through ``extra_body``.
* ``response_format={"type": "json_schema"}`` is refused by the llama.cpp server (HTTP 500),
  so ``llm.structured_method`` defaults to ``"function_calling"``: a forced tool call, which
  OpenAI, vLLM and the llama.cpp server all honour (llama.cpp turns the tool's JSON schema
  into a grammar, so even a tiny base model returns schema-valid arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from extraction.cache import ResponseCache
from kg_rag.config import LLMSettings, Settings
from kg_rag.errors import ConfigError

if TYPE_CHECKING:
    from communities.summarize import LLMSummarizer, Summarizer
    from extraction.budget import CallBudget
    from extraction.llm import LLMExtractor

__all__ = [
    "build_chat_model",
    "build_extractor",
    "build_summarizer",
    "response_cache",
]


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
        callbacks: LangChain handlers attached to every call of the model.

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


def build_extractor(
    settings: Settings,
    model: BaseChatModel,
    *,
    budget: CallBudget | None = None,
    show_progress: bool = True,
) -> LLMExtractor:
    """The LLM extractor the ingest uses (and ``kg-rag estimate`` plans with): the
    ``extraction`` section, ``llm.structured_method`` and the extraction response cache."""
    from extraction.llm import LLMExtractor

    cfg = settings.extraction
    return LLMExtractor(
        model,
        entity_types=cfg.entity_types,
        relation_types=cfg.relation_types,
        max_retries=cfg.max_retries,
        concurrency=cfg.concurrency,
        gleaning=cfg.gleaning,
        cache=response_cache(settings, "extraction"),
        batch_tokens=cfg.batch_tokens,
        max_batch=cfg.max_batch,
        budget=budget,
        show_progress=show_progress,
        method=settings.llm.structured_method,
    )


def build_summarizer(
    settings: Settings,
    model: BaseChatModel,
    *,
    fallback: Summarizer | None = None,
    budget: CallBudget | None = None,
    progress: bool | None = None,
) -> LLMSummarizer:
    """The LLM community summarizer of the ingest: retries and concurrency of the
    ``extraction`` section, ``communities.llm_min_size``, ``llm.structured_method`` and the
    community response cache."""
    from communities.summarize import LLMSummarizer

    return LLMSummarizer(
        model,
        max_retries=settings.extraction.max_retries,
        concurrency=settings.extraction.concurrency,
        cache=response_cache(settings, "community"),
        fallback=fallback,
        progress=progress,
        min_size=settings.communities.llm_min_size,
        budget=budget,
        method=settings.llm.structured_method,
    )
