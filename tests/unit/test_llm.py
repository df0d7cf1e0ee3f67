"""build_chat_model, structured_output and UsageTracker, without any server."""

from __future__ import annotations

import asyncio
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult, Generation, LLMResult
from pydantic import BaseModel, Field, SecretStr

from kg_rag.config import LLMServerSettings, LLMSettings
from kg_rag.errors import ConfigError, RetryableLLMError, ServerError
from kg_rag.llm import UsageTracker, build_chat_model, structured_output

pytestmark = pytest.mark.unit


class _ScriptedChat(BaseChatModel):
    """Replies with the scripted texts in order and reports fixed token usage."""

    replies: list[str]
    seen_kwargs: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen_kwargs.append(kwargs)
        if not self.replies:
            raise AssertionError(f"unscripted prompt: {messages!r}")
        text = self.replies.pop(0)
        message = AIMessage(
            content=text,
            usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


class _City(BaseModel):
    name: str
    population: int


# --- build_chat_model ----------------------------------------------------------------------


def test_build_chat_model_refuses_when_no_llm_is_configured() -> None:
    with pytest.raises(ConfigError, match="KG_RAG_LLM__BASE_URL"):
        build_chat_model(LLMSettings())


def test_build_chat_model_passes_settings_through_for_a_compatible_server() -> None:
    from langchain_openai import ChatOpenAI

    tracker = UsageTracker()
    settings = LLMSettings(
        base_url="http://127.0.0.1:8765/v1",
        model="gemma",
        temperature=0.3,
        max_tokens=77,
        timeout_s=12.5,
        max_retries=4,
    )
    model = build_chat_model(settings, callbacks=[tracker])

    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:8765/v1"
    assert model.model_name == "gemma"
    assert model.temperature == 0.3
    assert model.max_tokens == 77
    assert model.request_timeout == 12.5
    assert model.max_retries == 4
    # llama.cpp ignores max_completion_tokens: max_tokens must travel in the body too.
    assert model.extra_body == {"max_tokens": 77}
    assert model.openai_api_key is not None  # a placeholder: the client needs one
    assert model.callbacks == [tracker]


def test_build_chat_model_for_openai_sends_no_extra_max_tokens() -> None:
    model = build_chat_model(LLMSettings(api_key=SecretStr("sk-test"), max_tokens=50))

    assert model.extra_body is None  # type: ignore[attr-defined]
    assert model.openai_api_key.get_secret_value() == "sk-test"  # type: ignore[attr-defined]
    assert model.max_tokens == 50  # type: ignore[attr-defined]


# --- structured_output ---------------------------------------------------------------------


def test_structured_output_json_mode_sends_schema_and_parses() -> None:
    chat = _ScriptedChat(replies=['{"name": "Paris", "population": 2100000}'])

    city = structured_output(chat, _City, method="json_mode").invoke("a city as json")

    assert city == _City(name="Paris", population=2_100_000)
    response_format = chat.seen_kwargs[0]["response_format"]
    assert response_format["type"] == "json_object"
    assert response_format["schema"]["properties"]["population"]["type"] == "integer"


def test_structured_output_retries_output_that_misses_the_schema() -> None:
    chat = _ScriptedChat(
        replies=["not json at all", '{"name": "Oslo"}', '{"name": "Oslo", "population": 700000}'],
    )

    city = structured_output(chat, _City, method="json_mode", attempts=3).invoke("city")

    assert city.population == 700_000
    assert chat.replies == []


def test_structured_output_gives_up_after_the_last_attempt() -> None:
    chat = _ScriptedChat(replies=["nope", "nope"])

    with pytest.raises(OutputParserException):
        structured_output(chat, _City, method="json_mode", attempts=2).invoke("city")


def test_structured_output_rejects_zero_attempts() -> None:
    with pytest.raises(ConfigError):
        structured_output(_ScriptedChat(replies=[]), _City, attempts=0)


def test_retryable_error_when_the_model_makes_no_tool_call() -> None:
    from langchain_openai import ChatOpenAI

    # A tool-calling model that answers in plain text instead: the parser yields None.
    class _NoTools(_ScriptedChat):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(**kwargs)

    chat = _NoTools(replies=["just text"])
    assert not isinstance(chat, ChatOpenAI)
    with pytest.raises(RetryableLLMError, match="no _City"):
        structured_output(chat, _City, method="function_calling").invoke("city")


# --- UsageTracker --------------------------------------------------------------------------


def _chat_result(prompt: int, completion: int) -> LLMResult:
    message = AIMessage(
        content="hi",
        usage_metadata={
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        },
    )
    # OpenAI also reports the same numbers in llm_output: they must not count twice.
    return LLMResult(
        generations=[[ChatGeneration(message=message)]],
        llm_output={"token_usage": {"prompt_tokens": prompt, "completion_tokens": completion}},
    )


def test_usage_tracker_counts_tokens_from_usage_metadata_once() -> None:
    tracker = UsageTracker()
    tracker.on_llm_end(_chat_result(12, 5), run_id=uuid.uuid4())
    tracker.on_llm_end(_chat_result(3, 2), run_id=uuid.uuid4())

    assert tracker.snapshot() == {
        "calls": 2,
        "prompt_tokens": 15,
        "completion_tokens": 7,
        "total_tokens": 22,
        "errors": 0,
    }


def test_usage_tracker_falls_back_to_llm_output_and_counts_errors() -> None:
    tracker = UsageTracker()
    result = LLMResult(
        generations=[[Generation(text="x")]],
        llm_output={"token_usage": {"prompt_tokens": 9, "completion_tokens": 4}},
    )
    tracker.on_llm_end(result, run_id=uuid.uuid4())
    tracker.on_llm_end(LLMResult(generations=[[]], llm_output=None), run_id=uuid.uuid4())
    tracker.on_llm_error(TimeoutError("slow"), run_id=uuid.uuid4())

    snap = tracker.snapshot()
    assert snap["calls"] == 3
    assert snap["errors"] == 1
    assert (snap["prompt_tokens"], snap["completion_tokens"]) == (9, 4)

    tracker.reset()
    assert set(tracker.snapshot().values()) == {0}


def test_usage_tracker_is_thread_safe() -> None:
    tracker = UsageTracker()

    def work() -> None:
        for _ in range(500):
            tracker.on_llm_end(_chat_result(1, 1), run_id=uuid.uuid4())

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert tracker.snapshot()["calls"] == 4000
    assert tracker.snapshot()["total_tokens"] == 8000


def test_usage_tracker_sees_sync_and_async_calls() -> None:
    tracker = UsageTracker()
    chat = _ScriptedChat(replies=["a", "b", "c"], seen_kwargs=[], callbacks=[tracker])

    chat.invoke("one")
    asyncio.run(chat.ainvoke("two"))

    async def gathered() -> None:
        other = _ScriptedChat(replies=["d", "e"])
        await asyncio.gather(
            other.ainvoke("x", config={"callbacks": [tracker]}),
            other.ainvoke("y", config={"callbacks": [tracker]}),
        )

    asyncio.run(gathered())

    snap = tracker.snapshot()
    assert snap["calls"] == 4
    assert snap["prompt_tokens"] == 28
    assert snap["completion_tokens"] == 12


# --- llm_server without a server -----------------------------------------------------------


def test_llm_server_start_without_the_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    from kg_rag import llm_server

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real_find_spec(name, *a),
    )
    settings = LLMServerSettings(cache_dir=tmp_path)

    with pytest.raises(ServerError, match=r"pip install -e '\.\[llm-server\]'"):
        llm_server.start(settings, log=lambda _: None)
    assert not any(tmp_path.iterdir())  # nothing assembled, nothing started
