"""The real llama.cpp server over HTTP: plain calls, structured output, token accounting, and
the server manager itself.

The model (Gemma 3 270M base) writes junk, so only plumbing is asserted: non-empty text,
schema-valid objects, counted tokens — never answer quality.
"""

from __future__ import annotations

import asyncio
import socket
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from extraction.llm_runtime import LLMRuntime
from kg_rag.config import LLMServerSettings, LLMSettings, Settings
from kg_rag.errors import ServerError
from kg_rag.llm import build_chat_model
from kg_rag.llm_server import MODEL_ALIAS, start, status, stop

pytestmark = [pytest.mark.integration, pytest.mark.llm, pytest.mark.timeout(300)]


class Fact(BaseModel):
    """One fact about a city."""

    city: str = Field(max_length=40, description="Name of the city")
    year: int = Field(description="A year in the city's history")
    capital: bool = Field(description="Whether the city is a capital")


@pytest.fixture()
def llm_settings(llm_base_url: str) -> LLMSettings:
    return LLMSettings(
        base_url=llm_base_url, model=MODEL_ALIAS, max_tokens=48, timeout_s=120, max_retries=1
    )


@pytest.fixture()
def server_settings(llm_base_url: str) -> LLMServerSettings:
    url = urlparse(llm_base_url)
    assert url.hostname is not None and url.port is not None
    # Same cache dir as `kg-rag llm-server start` (KG_RAG_LLM_SERVER__* apply), host/port of the URL.
    return Settings().llm_server.model_copy(update={"host": url.hostname, "port": url.port})


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# --- calls through LangChain ---------------------------------------------------------------


def test_plain_call_returns_text_and_reports_usage(llm_settings: LLMSettings) -> None:
    model = build_chat_model(llm_settings)

    reply = model.invoke("Write one sentence about Paris.")

    assert isinstance(reply.content, str)
    assert reply.content.strip()
    usage = reply.usage_metadata
    assert usage is not None
    assert usage["input_tokens"] > 0
    # max_tokens travels in extra_body: without it the server would fill the whole context.
    assert 0 < usage["output_tokens"] <= llm_settings.max_tokens


def test_async_calls_on_one_runtime_are_counted(llm_settings: LLMSettings) -> None:
    settings = llm_settings.model_copy(update={"max_tokens": 128})
    runtime = LLMRuntime(build_chat_model(settings), max_retries=2)

    async def two_calls() -> None:
        await asyncio.gather(
            runtime.acall(Fact, [HumanMessage(content="One fact about Rome as JSON.")]),
            runtime.acall(Fact, [HumanMessage(content="One fact about Oslo as JSON.")]),
        )

    asyncio.run(two_calls())

    assert 2 <= runtime.usage.calls <= 6
    assert runtime.usage.prompt_tokens > 0
    assert runtime.usage.completion_tokens > 0


@pytest.mark.parametrize("method", ["function_calling", "json_mode"])
def test_structured_output_is_schema_valid(llm_settings: LLMSettings, method: str) -> None:
    # llama.cpp turns the schema into a grammar; max_length bounds the only free-text field,
    # so the JSON always closes within max_tokens. Retries guard against the odd miss.
    settings = llm_settings.model_copy(update={"max_tokens": 128})
    runtime = LLMRuntime(build_chat_model(settings), method=method, max_retries=2)  # type: ignore[arg-type]

    fact = runtime.call(
        Fact,
        [HumanMessage(content="Give one fact about Rome as JSON with keys city, year, capital.")],
    )

    assert isinstance(fact, Fact)
    assert len(fact.city) <= 40
    assert 1 <= runtime.usage.calls <= 3


def test_default_structured_method_is_function_calling() -> None:
    assert LLMSettings().structured_method == "function_calling"


# --- the server manager --------------------------------------------------------------------


def test_status_reports_running_and_version(server_settings: LLMServerSettings) -> None:
    info = status(server_settings)

    assert info.running
    assert info.version == metadata.version("llama-cpp-python")
    assert info.model_alias == MODEL_ALIAS
    assert info.base_url.endswith(f":{server_settings.port}/v1")


def test_start_again_is_harmless(server_settings: LLMServerSettings) -> None:
    before = status(server_settings)
    lines: list[str] = []

    info = start(server_settings, log=lines.append)

    assert info.running
    assert info.pid == before.pid
    assert len(lines) == 1
    assert "already running" in lines[0]


def test_stop_when_nothing_runs_returns_false(tmp_path: Path) -> None:
    settings = LLMServerSettings(port=_free_port(), cache_dir=tmp_path)
    lines: list[str] = []

    assert stop(settings, log=lines.append) is False
    assert status(settings).running is False
    assert status(settings).pid is None


def test_start_on_a_taken_port_says_so(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        settings = LLMServerSettings(port=port, cache_dir=tmp_path, start_timeout_s=30)

        with pytest.raises(ServerError, match=f"Port {port} .* taken"):
            start(settings, log=lambda _: None)


def test_a_server_that_dies_points_at_its_log(tmp_path: Path) -> None:
    # A corrupt model file makes llama.cpp exit while loading.
    settings = LLMServerSettings(port=_free_port(), cache_dir=tmp_path, start_timeout_s=60)
    status(settings).model_path.write_bytes(b"not a gguf file")

    try:
        with pytest.raises(ServerError, match=r"exited .* see .*llama-server-\d+\.log"):
            start(settings, log=lambda _: None)
        assert status(settings).pid is None
    finally:
        stop(settings, log=lambda _: None)  # never leave a stray server behind
