"""extraction.llm_runtime: structured methods, usage, budgets, failures as values, the one sync
face, the concurrent map; and kg_rag's builders honouring ``llm.structured_method``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, Field

from extraction.budget import CallBudget
from extraction.errors import StructuredOutputError
from extraction.llm_runtime import CallFailure, LLMRuntime, run_sync
from extraction.structured import LLMUsage, acall_structured
from kg_rag.config import EmbeddingSettings, LLMSettings, Settings
from kg_rag.llm import build_extractor, build_summarizer
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit

PROMPT = [HumanMessage(content="Name a city as JSON.")]


class _City(BaseModel):
    name: str
    population: int


class _ScriptedChat(BaseChatModel):
    """Replies with the scripted texts in order, as plain content; usage as configured."""

    replies: list[str]
    seen_kwargs: list[dict[str, Any]] = Field(default_factory=list)
    usage_style: str = "metadata"  # "metadata" | "response_metadata" | "none"

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
        if self.usage_style == "metadata":
            message = AIMessage(
                content=text,
                usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
            )
        elif self.usage_style == "response_metadata":
            message = AIMessage(
                content=text,
                response_metadata={"token_usage": {"prompt_tokens": 9, "completion_tokens": 4}},
            )
        else:
            message = AIMessage(content=text)
        return ChatResult(generations=[ChatGeneration(message=message)])


# --- structured methods ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        '{"name": "Paris", "population": 2100000}',
        'Sure:\n```json\n{"name": "Paris", "population": 2100000}\n```',
        "{'name': 'Paris', 'population': 2100000,}",
    ],
)
async def test_json_mode_sends_the_schema_and_parses_the_content(reply: str) -> None:
    chat = _ScriptedChat(replies=[reply])

    city = await acall_structured(chat, _City, PROMPT, method="json_mode")

    assert city == _City(name="Paris", population=2_100_000)
    response_format = chat.seen_kwargs[0]["response_format"]
    assert response_format["type"] == "json_object"
    assert response_format["schema"]["properties"]["population"]["type"] == "integer"
    assert "tools" not in chat.seen_kwargs[0]


async def test_json_mode_retries_what_misses_the_schema_with_a_json_note() -> None:
    chat = _ScriptedChat(
        replies=["not json at all", '{"name": "Oslo"}', '{"name": "Oslo", "population": 700000}']
    )
    usage = LLMUsage()

    city = await acall_structured(
        chat, _City, PROMPT, method="json_mode", max_retries=2, usage=usage, backoff_s=0
    )

    assert city.population == 700_000
    assert (usage.calls, usage.retries, usage.failures) == (3, 2, 0)
    assert chat.replies == []


async def test_json_mode_gives_up_after_the_last_attempt_saying_what_was_wrong() -> None:
    chat = _ScriptedChat(replies=["nope", '{"name": "Rome", "population": 1, "mayor": "x"}'])

    with pytest.raises(StructuredOutputError) as info:
        await acall_structured(chat, _City, PROMPT, method="json_mode", max_retries=1)

    assert info.value.attempts == 2
    assert "no JSON object" in info.value.problems[0]
    assert "unknown keys ['mayor']" in info.value.problems[1]


async def test_function_calling_refuses_a_plain_text_reply() -> None:
    fake = FakeChatModel(script=[("city", "just text, no tool")])

    with pytest.raises(StructuredOutputError, match="_City"):
        await acall_structured(fake, _City, PROMPT, max_retries=0)


@pytest.mark.parametrize(
    ("style", "expected"),
    [("metadata", (7, 3)), ("response_metadata", (9, 4)), ("none", (0, 0))],
)
async def test_usage_comes_from_what_the_provider_reports(
    style: str, expected: tuple[int, int]
) -> None:
    chat = _ScriptedChat(replies=['{"name": "Lima", "population": 9}'], usage_style=style)
    runtime = LLMRuntime(chat, method="json_mode")

    await runtime.acall(_City, PROMPT)

    assert (runtime.usage.prompt_tokens, runtime.usage.completion_tokens) == expected
    assert runtime.usage.calls == 1


# --- failures as values, budgets --------------------------------------------------------------
class _Boom(FakeChatModel):
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise TimeoutError("slow server")


@pytest.mark.parametrize(
    ("runtime_kwargs", "model", "error", "attempts", "budget"),
    [
        ({"max_retries": 1}, FakeChatModel(script=[("city", "{bad")]), "No valid _City", 2, False),
        ({"max_retries": 2}, _Boom(script=[]), "TimeoutError: slow server", 3, False),
        (
            {"budget": CallBudget(max_calls=0)},
            FakeChatModel(script=[]),
            "budget: LLM call cap",
            0,
            True,
        ),
    ],
)
async def test_atry_returns_failures_as_values(
    runtime_kwargs: dict[str, Any], model: Any, error: str, attempts: int, budget: bool
) -> None:
    runtime = LLMRuntime(model, backoff_s=0, **runtime_kwargs)

    failure = await runtime.atry(_City, PROMPT, purpose="a city")

    assert isinstance(failure, CallFailure)
    assert error in failure.error
    assert (failure.attempts, failure.budget) == (attempts, budget)
    assert runtime.usage.failures == (0 if budget else 1)


async def test_cache_is_used_only_with_a_key(tmp_path: Path) -> None:
    from extraction.cache import ResponseCache

    fake = FakeChatModel(script=[("city", json.dumps({"name": "Bern", "population": 1}))])
    runtime = LLMRuntime(fake, cache=ResponseCache(tmp_path / "c.sqlite"))
    key = runtime.key("v1", PROMPT)

    for _ in range(3):
        await runtime.acall(_City, PROMPT, key=key)
    await runtime.acall(_City, PROMPT)  # no key: always sent

    assert len(fake.calls) == 2
    assert runtime.usage.cache_hits == 2
    assert runtime.cached(key, _City) == _City(name="Bern", population=1)
    assert runtime.key("v2", PROMPT) != key


# --- amap and run_sync ----------------------------------------------------------------------
async def test_amap_keeps_input_order_and_caps_concurrency() -> None:
    class _Slow(FakeChatModel):
        active: int = 0
        peak: int = 0

        async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
            self.active += 1
            self.peak = max(self.peak, self.active)
            await asyncio.sleep(0.01)
            self.active -= 1
            return await super()._agenerate(*args, **kwargs)

    slow = _Slow(script=[(r"city (\d+)", lambda p: json.dumps({"name": p[-2:], "population": 1}))])
    runtime = LLMRuntime(slow, concurrency=3, progress=False)

    async def one(n: int) -> str:
        city = await runtime.acall(_City, [HumanMessage(content=f"city {n:02d}")])
        return city.name

    names = await runtime.amap(list(range(10)), one, desc="cities")

    assert names == [f"{n:02d}" for n in range(10)]
    assert slow.peak == 3


async def test_run_sync_inside_a_running_loop_takes_a_coroutine_or_a_factory() -> None:
    async def seven() -> int:
        await asyncio.sleep(0)
        return 7

    assert run_sync(seven()) == 7
    assert run_sync(seven) == 7


def test_sync_call_without_a_loop() -> None:
    fake = FakeChatModel(script=[("city", json.dumps({"name": "Kyiv", "population": 3}))])

    assert LLMRuntime(fake).call(_City, PROMPT).name == "Kyiv"


# --- kg_rag builds its runtimes from settings ------------------------------------------------
@pytest.mark.parametrize("method", ["function_calling", "json_mode", "json_schema"])
def test_structured_method_setting_reaches_extractor_and_summarizer(
    method: Any, tmp_path: Path
) -> None:
    settings = Settings(
        kb_dir=tmp_path,
        llm=LLMSettings(structured_method=method, response_cache="off"),
        embedding=EmbeddingSettings(provider="hash"),
    )
    fake = FakeChatModel(script=[])

    assert build_extractor(settings, fake).runtime.method == method
    assert build_summarizer(settings, fake).runtime.method == method


def test_extraction_in_json_mode_gives_the_same_graph_as_tool_calls(tmp_path: Path) -> None:
    from extraction.schema import ChunkInput
    from kg_rag.testing import graph_chat_model

    chunk = ChunkInput(
        chunk_id="c1", text="Ada Lovelace worked with Charles Babbage in London.", title="Ada"
    )
    graphs = []
    for method in ("function_calling", "json_mode"):
        settings = Settings(kb_dir=tmp_path, llm=LLMSettings(structured_method=method))
        settings.llm.response_cache = "off"
        model = graph_chat_model()
        (result,) = build_extractor(settings, model, show_progress=False).extract([chunk])
        assert result.error is None
        graphs.append((result.entities, result.relations))
        assert bool(model.calls[0].tools) == (method == "function_calling")

    assert graphs[0] == graphs[1]
    assert graphs[0][0]


@pytest.mark.parametrize("method", ["function_calling", "json_mode", "json_schema"])
def test_structured_method_setting_reaches_the_answer_stages(method: Any, tmp_path: Path) -> None:
    from kg_rag import KnowledgeEngine

    settings = Settings(
        kb_dir=tmp_path,
        llm=LLMSettings(structured_method=method, response_cache="off"),
        embedding=EmbeddingSettings(provider="hash"),
    )
    with KnowledgeEngine.open(settings=settings, llm=FakeChatModel(script=[])) as kg:
        caller = kg.pipeline._caller()
        assert caller is not None and caller.method == method


async def test_the_answer_caller_calls_in_the_method_it_was_given() -> None:
    from kg_rag.answer.llm import LLMCaller

    chat = _ScriptedChat(replies=['{"name": "Paris", "population": 2100000}'])
    caller = LLMCaller(chat, max_calls=3, max_tokens=10_000, method="json_mode")

    city = await caller.structured(_City, "Which city?", purpose="test")

    assert city.name == "Paris"
    assert chat.seen_kwargs[0]["response_format"]["type"] == "json_object"
