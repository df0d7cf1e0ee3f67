"""extraction.structured and extraction.repair: repair, retries, cache, accounting, sync face."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr

from extraction.errors import StructuredOutputError
from extraction.repair import repair_json, repair_json_candidates
from extraction.schema import ExtractedRelation, ExtractionOutput
from extraction.structured import (
    LLMUsage,
    ResponseCache,
    acall_structured,
    call_structured,
    model_id,
)
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit

VALID = json.dumps({"entities": [{"name": "Ada Lovelace", "type": "PERSON"}], "relations": []})
MESSAGES = [SystemMessage(content="Extract."), HumanMessage(content="Ada Lovelace wrote notes.")]


# --- repair ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ("{'a': 'x', 'ok': True, 'none': None}", {"a": "x", "ok": True, "none": None}),
        ('Sure! ```json\n{"a": 1}\n``` Hope that helps.', {"a": 1}),
        ('{name: "Ada", type: "PERSON"}', {"name": "Ada", "type": "PERSON"}),
        ('{"a": "x" "b": "y"}', {"a": "x", "b": "y"}),
        ('{"items": [{"x": 1}, {"x": 2}, {"x"', {"items": [{"x": 1}, {"x": 2}]}),
        ('{"a": {"b": [1, {"c": "unfinished', {"a": {"b": [1]}}),
    ],
)
def test_repair_fixes_common_model_mistakes(text: str, expected: object) -> None:
    assert repair_json(text) == expected


def test_repair_gives_none_without_json() -> None:
    assert repair_json("I cannot help with that.") is None
    assert repair_json_candidates("") == []


def test_truncated_object_offers_partial_member_reading_first() -> None:
    text = '{"entities": [{"name": "Paris", "type": "LOCATION", "description": "capital of Fr'
    first, second = repair_json_candidates(text)
    assert first == {"entities": [{"name": "Paris", "type": "LOCATION"}]}
    assert second == {"entities": []}


# --- schema ------------------------------------------------------------------------------------
def test_schema_rescales_strength_and_cleans_types() -> None:
    rel = ExtractedRelation(source=" A ", target="B", type="born in", strength=8)
    assert (rel.source, rel.type, rel.strength) == ("A", "BORN_IN", 0.8)
    assert (
        ExtractedRelation.model_validate({"source": "A", "target": "B", "strength": "75%"}).strength
        == 0.75
    )


# --- acall_structured --------------------------------------------------------------------------
async def test_malformed_then_valid_json_is_one_retry_and_success() -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", ["this is not json at all", VALID])])
    usage = LLMUsage()
    out = await acall_structured(fake, ExtractionOutput, MESSAGES, usage=usage, backoff_s=0)
    assert [e.name for e in out.entities] == ["Ada Lovelace"]
    assert (usage.calls, usage.retries, usage.failures) == (2, 1, 0)
    # The retry tells the model what was wrong, after the original messages.
    assert "not valid" in fake.calls[1].prompt
    assert fake.calls[1].prompt.startswith(fake.calls[0].prompt)


@pytest.mark.parametrize(
    "reply",
    [
        # cut off inside the second entity: the first alone would pass for the whole answer
        '{"entities": [{"name": "Ada Lovelace", "type": "PERSON"}, {"name": "Charles Bab',
        # cut off before the relations
        '{"entities": [{"name": "Ada Lovelace", "type": "PERSON"}], "relations": [',
        # a key without its value
        '{"entities": [{"name": "Ada Lovelace", "type": "PERSON"}], "relations": }',
    ],
)
async def test_truncated_tool_arguments_are_a_failed_attempt_not_partial_data(reply: str) -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", [reply, VALID])])
    usage = LLMUsage()
    out = await acall_structured(fake, ExtractionOutput, MESSAGES, usage=usage, backoff_s=0)
    assert [e.name for e in out.entities] == ["Ada Lovelace"]
    assert (usage.calls, usage.retries) == (2, 1)


async def test_truncated_every_time_fails_and_says_so() -> None:
    truncated = '{"entities": [{"name": "Ada Lovelace", "type": "PERSON"}, {"name": "Charles Bab'
    fake = FakeChatModel(script=[("Ada Lovelace", truncated)])
    with pytest.raises(StructuredOutputError, match="truncated"):
        await acall_structured(fake, ExtractionOutput, MESSAGES, max_retries=1, backoff_s=0)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"unexpected": true}', "unknown keys"),
        ('{"entities": [], "relations": [], "note": "x"}', "unknown keys"),
        ('{"result": "ok"}', "unknown keys"),
    ],
)
async def test_schema_valid_nonsense_is_refused(reply: str, problem: str) -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", reply)])
    with pytest.raises(StructuredOutputError, match=problem):
        await acall_structured(fake, ExtractionOutput, MESSAGES, max_retries=1, backoff_s=0)
    assert len(fake.calls) == 2


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("{'a': [1, 2,]}", [{"a": [1, 2]}]),
        ('```json\n{"a": true}\n```', [{"a": True}]),
        ('{"a": [1, 2', []),
        ('{"a": {"b": "cut', []),
        ('{"a": 1, "b": }', []),
    ],
)
def test_complete_only_repairs_syntax_but_not_truncation(text: str, complete: list[Any]) -> None:
    assert repair_json_candidates(text, complete_only=True) == complete


async def test_check_refuses_a_reply_and_the_next_one_is_taken() -> None:
    other = json.dumps({"entities": [{"name": "Grace Hopper", "type": "PERSON"}]})
    fake = FakeChatModel(script=[("Ada Lovelace", [other, VALID])])

    def check(out: ExtractionOutput) -> str | None:
        return None if out.entities[0].name == "Ada Lovelace" else "not in the text"

    out = await acall_structured(
        fake, ExtractionOutput, MESSAGES, backoff_s=0, check=check, max_retries=1
    )
    assert out.entities[0].name == "Ada Lovelace"
    assert "not in the text" in fake.calls[1].prompt


async def test_three_failures_raise_with_every_problem_recorded() -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", [RuntimeError("server down")])])
    usage = LLMUsage()
    with pytest.raises(StructuredOutputError) as info:
        await acall_structured(
            fake, ExtractionOutput, MESSAGES, max_retries=2, usage=usage, backoff_s=0
        )
    assert info.value.attempts == 3
    assert len(info.value.problems) == 3
    assert all("server down" in p for p in info.value.problems)
    assert (usage.calls, usage.retries, usage.failures) == (3, 2, 1)


async def test_schema_invalid_output_is_retried_then_fails() -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", '{"entities": "none"}')])
    with pytest.raises(StructuredOutputError):
        await acall_structured(fake, ExtractionOutput, MESSAGES, max_retries=1, backoff_s=0)
    assert len(fake.calls) == 2


async def test_wrapped_object_is_unwrapped() -> None:
    wrapped = json.dumps({"ExtractionOutput": json.loads(VALID)})
    fake = FakeChatModel(script=[("Ada Lovelace", wrapped)])
    out = await acall_structured(fake, ExtractionOutput, MESSAGES)
    assert out.entities[0].type == "PERSON"


async def test_token_accounting_comes_from_usage_metadata() -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", VALID)])
    usage = LLMUsage()
    await acall_structured(fake, ExtractionOutput, MESSAGES, usage=usage)
    # FakeChatModel counts \w+ tokens of the flattened prompt and of the reply.
    prompt = fake.calls[0].prompt
    assert usage.prompt_tokens == len(re.findall(r"\w+", prompt))
    assert usage.completion_tokens == len(re.findall(r"\w+", VALID))
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_cache_hit_costs_no_call(tmp_path: Path) -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", VALID)])
    usage = LLMUsage()
    with ResponseCache(tmp_path / "cache.sqlite") as cache:
        key = ResponseCache.make_key("v1", model_id(fake), "input-hash")
        first = await acall_structured(
            fake, ExtractionOutput, MESSAGES, usage=usage, cache=cache, cache_key=key
        )
        second = await acall_structured(
            fake, ExtractionOutput, MESSAGES, usage=usage, cache=cache, cache_key=key
        )
    assert first == second
    assert len(fake.calls) == 1
    assert (usage.calls, usage.cache_hits) == (1, 1)
    # The file outlives the object: a new cache on the same path still hits.
    again = ResponseCache(tmp_path / "cache.sqlite")
    assert again.get(key) == first.model_dump(mode="json")
    assert len(again) == 1
    again.close()


async def test_failures_are_not_cached() -> None:
    cache = ResponseCache()
    fake = FakeChatModel(script=[("Ada Lovelace", [ValueError("boom"), ValueError("boom"), VALID])])
    with pytest.raises(StructuredOutputError):
        await acall_structured(
            fake, ExtractionOutput, MESSAGES, max_retries=1, cache=cache, backoff_s=0
        )
    assert len(cache) == 0
    out = await acall_structured(fake, ExtractionOutput, MESSAGES, cache=cache)
    assert out.entities and len(cache) == 1


async def test_semaphore_caps_concurrent_calls() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def slow(_prompt: str) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        threading.Event().wait(0.05)
        with lock:
            active -= 1
        return VALID

    fake = FakeChatModel(script=[("Ada", slow)])
    semaphore = asyncio.Semaphore(2)
    await asyncio.gather(
        *(acall_structured(fake, ExtractionOutput, MESSAGES, semaphore=semaphore) for _ in range(6))
    )
    assert len(fake.calls) == 6
    assert peak <= 2


# --- sync face ---------------------------------------------------------------------------------
def test_call_structured_without_a_loop() -> None:
    fake = FakeChatModel(script=[("Ada Lovelace", VALID)])
    assert call_structured(fake, ExtractionOutput, MESSAGES).entities[0].name == "Ada Lovelace"


async def test_call_structured_inside_a_running_loop() -> None:
    # As in Jupyter: sync code called while an event loop runs in this thread.
    fake = FakeChatModel(script=[("Ada Lovelace", VALID)])
    out = call_structured(fake, ExtractionOutput, MESSAGES)
    assert out.entities[0].name == "Ada Lovelace"


class _LoopBoundChat(FakeChatModel):
    """Like an async HTTP client: it fails when used from another loop than its first one."""

    _loop: asyncio.AbstractEventLoop | None = PrivateAttr(default=None)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        if loop is not self._loop or loop.is_closed():
            raise RuntimeError("Event loop is closed")
        return self._generate(messages, stop, None, **kwargs)


def test_consecutive_sync_calls_share_one_event_loop() -> None:
    fake = _LoopBoundChat(script=[("Ada Lovelace", VALID)])
    usage = LLMUsage()
    for _ in range(3):
        call_structured(fake, ExtractionOutput, MESSAGES, usage=usage, max_retries=0)
    assert (usage.calls, usage.failures) == (3, 0)


def test_usage_add_is_thread_safe() -> None:
    usage = LLMUsage()

    def work() -> None:
        for _ in range(2000):
            usage.add(calls=1, prompt_tokens=2)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (usage.calls, usage.prompt_tokens) == (8000, 16000)
    other = LLMUsage(calls=1, cache_hits=2)
    usage.add(other)
    assert (usage.calls, usage.cache_hits) == (8001, 2)
    with pytest.raises(ValueError, match="no counter"):
        usage.add(bogus=1)
