"""Structured LLM calls with repair, bounded retries, a response cache and usage accounting.

The core of the LLM runtime (:mod:`extraction.llm_runtime` bundles it with the settings of
one job: model, method, retries, cache, usage, budget, concurrency), shared by ``extraction``,
``communities`` and ``kg_rag``. One call turns a chat model into a validated pydantic object:

1. The cache is asked first; a hit costs no call.
2. The model is called as ``method`` says (:data:`StructuredMethod`): by default through
   ``with_structured_output(schema, method="function_calling", include_raw=True)``, a forced
   tool call, which OpenAI, vLLM and the llama.cpp server honour.
3. When LangChain could not parse the reply, the raw message is repaired
   (:mod:`extraction.repair`): tool-call arguments in ``invalid_tool_calls``, or JSON in the
   content (code fences, prose around it, quotes, trailing commas), then validated with
   pydantic. Truncated JSON is **not** repaired into a partial answer: a reply cut off by a
   token limit has lost what came after the cut (measured: 143 vs 151 entities, 82 vs 124
   relations against a healthy run), so it is a failed attempt like any other.
4. A reply is also refused when its top-level object has keys the schema does not know
   (``{"unexpected": true}`` would otherwise validate as an empty answer), and when the
   caller's ``check`` finds it wrong (e.g. entities that are not in the text).
5. Refused output is retried (with a note saying what was wrong); exceptions from the model
   are retried after a short back-off. After ``max_retries`` retries a
   :class:`~extraction.errors.StructuredOutputError` says what every attempt got.

Usage (calls, tokens, retries, failures, cache hits) is added to an :class:`LLMUsage` the
caller passes, so one object can total a whole batch.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, PrivateAttr, ValidationError

from extraction.budget import CallBudget
from extraction.cache import ResponseCache
from extraction.errors import StructuredOutputError
from extraction.repair import repair_json_candidates
from extraction.tokens import prompt_tokens as count_prompt_tokens

__all__ = [
    "LLMUsage",
    "ResponseCache",
    "StructuredMethod",
    "acall_structured",
    "call_structured",
    "messages_hash",
    "model_id",
    "run_sync",
    "unknown_keys",
]

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

_PROBLEM_CHARS = 300

StructuredMethod = Literal["function_calling", "json_mode", "json_schema"]
"""How a structured call steers the model (``llm.structured_method`` in kg_rag's settings):

* ``"function_calling"`` (default): a forced tool call whose parameters are the schema. Works
  on OpenAI, vLLM and the llama.cpp server (which turns the schema into a grammar).
* ``"json_mode"``: ``response_format={"type": "json_object", "schema": ...}`` and the reply's
  content parsed as JSON. The llama.cpp server turns the schema into a grammar; OpenAI only
  promises *some* JSON object and needs the word "json" in the prompt.
* ``"json_schema"``: OpenAI's strict structured outputs. Refused by the llama.cpp server.
"""


class LLMUsage(BaseModel):
    """Counts of LLM work; safe to update from several threads and tasks.

    Attributes:
        calls: Model invocations (each retry and gleaning pass is one).
        prompt_tokens: Input tokens reported by the provider.
        completion_tokens: Output tokens reported by the provider.
        failures: Structured calls that gave up after their retries.
        retries: Attempts beyond the first.
        cache_hits: Answers served from a :class:`ResponseCache`.
        counted_prompt_tokens: Prompt tokens of the answered calls that reported usage, as
            :func:`extraction.tokens.prompt_tokens` counts them before sending (cl100k,
            schema included): ``prompt_tokens / counted_prompt_tokens`` is how the provider's
            count (its tokenizer, its template, the schema sent or not) relates to the count
            estimates are made in.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0
    retries: int = 0
    cache_hits: int = 0
    counted_prompt_tokens: int = 0

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: LLMUsage | None = None, **deltas: int) -> None:
        """Add another usage's counts and/or named deltas, atomically.

        Args:
            other: Counts to add (e.g. one chunk's usage into a batch total).
            **deltas: Field name → amount, e.g. ``add(calls=1, retries=1)``.
        """
        amounts = dict(deltas)
        if other is not None:
            for name, value in other.snapshot().model_dump().items():
                amounts[name] = amounts.get(name, 0) + value
        with self._lock:
            for name, value in amounts.items():
                if name not in LLMUsage.model_fields:
                    raise ValueError(f"LLMUsage has no counter {name!r}")
                setattr(self, name, getattr(self, name) + value)

    def snapshot(self) -> LLMUsage:
        """A consistent copy of the counts."""
        with self._lock:
            return LLMUsage(**{name: getattr(self, name) for name in LLMUsage.model_fields})

    def reset(self) -> None:
        """Set every count back to zero."""
        with self._lock:
            for name in LLMUsage.model_fields:
                setattr(self, name, 0)


def model_id(model: BaseChatModel) -> str:
    """A stable name for a chat model, used in cache keys: ``"<llm type>:<model name>"``, with
    ``@<base url>`` for an OpenAI-compatible endpoint other than OpenAI's."""
    name = ""
    for attr in ("model_name", "model", "model_id", "deployment_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            name = value
            break
    try:
        llm_type = model._llm_type
    except Exception:  # a model without _llm_type still gets a usable id
        llm_type = type(model).__name__
    # Two servers may serve different models under one name: a cache shared across
    # knowledge bases must tell them apart.
    base = getattr(model, "openai_api_base", None)
    if isinstance(base, str) and base and "api.openai.com" not in base:
        name = f"{name}@{base.rstrip('/')}"
    return f"{llm_type}:{name}" if name else llm_type


def messages_hash(messages: Sequence[BaseMessage], *extra: str) -> str:
    """sha256 of the messages' roles and contents (and any extra strings)."""
    digest = hashlib.sha256()
    for message in messages:
        content = (
            message.content
            if isinstance(message.content, str)
            else json.dumps(message.content, sort_keys=True, ensure_ascii=False)
        )
        digest.update(f"{message.type}\x1e{content}\x1f".encode())
    for item in extra:
        digest.update(f"{item}\x1f".encode())
    return digest.hexdigest()


def _token_counts(raw: Any) -> tuple[int, int]:
    if isinstance(raw, AIMessage):
        if raw.usage_metadata:
            return raw.usage_metadata.get("input_tokens", 0), raw.usage_metadata.get(
                "output_tokens", 0
            )
        usage = (raw.response_metadata or {}).get("token_usage") or {}
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return 0, 0


def unknown_keys(schema: type[BaseModel], data: Any) -> list[str]:
    """Top-level keys of ``data`` that ``schema`` has no field (or alias) for, sorted."""
    if not isinstance(data, dict):
        return []
    known = set(schema.model_fields)
    known.update(f.alias for f in schema.model_fields.values() if f.alias)
    return sorted(str(k) for k in data if k not in known)


def _validate(schema: type[T], data: Any) -> T | None:
    """Validate ``data``, also trying the wrappers models put around the real object.

    An object with keys the schema does not know is refused: with all-default fields it would
    otherwise validate as an empty answer."""
    tries = [data]
    if isinstance(data, dict) and len(data) == 1 and not set(data) & set(schema.model_fields):
        # {"ExtractionOutput": {...}}, {"arguments": "{...}"}: with all-default fields the
        # wrapper itself would validate (as an empty object), so the inner value goes first.
        (inner,) = data.values()
        if isinstance(inner, str) and _is_json(inner):
            inner = json.loads(inner)
        if isinstance(inner, dict):
            tries.insert(0, inner)
    for candidate in tries:
        if unknown_keys(schema, candidate):
            continue
        try:
            return schema.model_validate(candidate)
        except ValidationError:
            continue
    return None


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _parse_reply(schema: type[T], reply: Any) -> tuple[T | None, str]:
    """The validated object from a ``with_structured_output(include_raw=True)`` reply, or
    ``None`` and a description of what was wrong."""
    if not isinstance(reply, dict):
        return (reply, "") if isinstance(reply, schema) else (None, f"unexpected {reply!r:.80}")
    parsed = reply.get("parsed")
    raw = reply.get("raw")
    if isinstance(parsed, schema):
        if isinstance(raw, AIMessage) and raw.tool_calls:
            # Re-check the arguments: a wrapped object (or one of unknown keys only) parses
            # as an all-default one.
            call_args = raw.tool_calls[0].get("args")
            value = _validate(schema, call_args)
            if value is not None:
                return value, ""
            extra = unknown_keys(schema, call_args)
            if extra:
                fields = ", ".join(schema.model_fields)
                return None, f"unknown keys {extra[:5]} (the tool takes {fields})"
        return parsed, ""
    problem = str(reply.get("parsing_error") or "")
    candidates: list[Any] = []
    if isinstance(raw, AIMessage):
        candidates.extend(call.get("args") for call in raw.tool_calls)
        for bad in raw.invalid_tool_calls:
            args = bad.get("args")
            if isinstance(args, str):
                readings = repair_json_candidates(args, complete_only=True)
                candidates.extend(readings)
                if not readings and repair_json_candidates(args):
                    problem = problem or "truncated JSON (the reply was cut off)"
            problem = problem or f"invalid tool call: {bad.get('error') or 'bad JSON'}"
        if isinstance(raw.content, str) and raw.content.strip():
            candidates.extend(repair_json_candidates(raw.content, complete_only=True))
        extra = sorted({k for c in candidates for k in unknown_keys(schema, c)})
        if extra and not problem:
            problem = f"unknown keys {extra[:5]}"
        if not problem and not raw.tool_calls and not raw.invalid_tool_calls:
            what = "no tool call in reply" if reply.get("tool", True) else "no JSON object"
            problem = f"{what} (content: {str(raw.content)[:120]!r})"
    for candidate in candidates:
        value = _validate(schema, candidate)
        if value is not None:
            return value, ""
    return None, (problem or "reply does not fit the schema")[:_PROBLEM_CHARS]


async def acall_structured(
    model: BaseChatModel,
    schema: type[T],
    messages: list[BaseMessage],
    *,
    max_retries: int = 2,
    usage: LLMUsage | None = None,
    cache: ResponseCache | None = None,
    cache_key: str | None = None,
    semaphore: asyncio.Semaphore | None = None,
    backoff_s: float = 0.5,
    check: Callable[[T], str | None] | None = None,
    budget: CallBudget | None = None,
    purpose: str = "",
    method: StructuredMethod = "function_calling",
) -> T:
    """Call ``model`` and return a validated ``schema`` instance.

    Args:
        model: Any LangChain chat model that supports tool calling (or ``response_format``
            for ``method="json_mode"``).
        schema: The pydantic model to return.
        messages: The prompt.
        max_retries: Extra attempts after the first (malformed output or exceptions).
        usage: Counts are added here.
        cache: Consulted before calling and filled after a success.
        cache_key: Key in ``cache``; by default derived from the model, the schema and the
            messages (prefer :meth:`ResponseCache.make_key` with a prompt version).
        semaphore: Held during each model call (not during back-off), to cap concurrency.
        backoff_s: Sleep before retrying after an exception, doubled each time.
        check: Validation beyond the schema: returns what is wrong with a parsed answer
            (retried like malformed output) or ``None`` when it is acceptable. Cached
            answers are checked too.
        budget: Each attempt reserves a call (and its counted prompt tokens) here before it
            is sent; a cache hit reserves nothing.
        purpose: What the call is for, named in a budget refusal.
        method: How the model is steered (:data:`StructuredMethod`).

    Returns:
        The validated object.

    Raises:
        StructuredOutputError: No valid output after ``max_retries`` retries.
        Exception: ``budget``'s error when an attempt does not fit it (nothing is sent).
    """
    usage = usage if usage is not None else LLMUsage()
    key = None
    if cache is not None:
        key = cache_key or ResponseCache.make_key(
            "", model_id(model), messages_hash(messages, schema.__name__)
        )
        stored = cache.get(key)
        if stored is not None:
            value = _validate(schema, stored)
            if value is not None and check is not None and check(value) is not None:
                value = None
            if value is not None:
                usage.add(cache_hits=1)
                return value
            logger.warning("Ignoring a cached %s that no longer validates.", schema.__name__)
    try:
        runnable = _structured_runnable(model, schema, method)
    except NotImplementedError as exc:
        usage.add(failures=1)
        raise StructuredOutputError(
            f"{model_id(model)} does not support tool calling, which structured output needs; "
            "use a chat model with bind_tools (ChatOpenAI works with OpenAI-compatible servers).",
            attempts=0,
            problems=[str(exc)],
        ) from exc
    conversation = list(messages)
    problems: list[str] = []
    attempts = max(0, max_retries) + 1
    last_exc: BaseException | None = None
    for attempt in range(attempts):
        if attempt:
            usage.add(retries=1)
            if last_exc is not None and backoff_s > 0:
                await asyncio.sleep(backoff_s * 2 ** (attempt - 1))
        last_exc = None
        try:
            async with semaphore if semaphore is not None else contextlib.nullcontext():
                reply = await _invoke(runnable, conversation, schema, budget, purpose)
        except _Refused as refused:  # the budget is spent: nothing was sent, nothing to retry
            if attempt:
                usage.add(failures=1)
            raise refused.error from last_exc
        except Exception as exc:  # model/transport errors are retried, then recorded
            usage.add(calls=1)
            last_exc = exc
            problems.append(f"attempt {attempt + 1}: {type(exc).__name__}: {exc}"[:_PROBLEM_CHARS])
            logger.debug("LLM call failed (attempt %d): %r", attempt + 1, exc)
            continue
        prompt_tokens, completion_tokens = _token_counts(
            reply.get("raw") if isinstance(reply, dict) else None
        )
        counted = count_prompt_tokens(conversation, schema) if prompt_tokens else 0
        usage.add(
            calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            counted_prompt_tokens=counted,
        )
        value, problem = _parse_reply(schema, reply)
        if value is not None and check is not None:
            wrong = check(value)
            if wrong is not None:
                value, problem = None, wrong[:_PROBLEM_CHARS]
        if value is not None:
            if cache is not None and key is not None:
                cache.put(key, value.model_dump(mode="json"))
            return value
        problems.append(f"attempt {attempt + 1}: {problem}")
        # Tell the model what went wrong; the original messages stay first, unchanged.
        conversation = [
            *messages,
            HumanMessage(
                content=f"Your previous answer was not valid ({problem[:160]}). "
                + (
                    f"Reply again with one complete, valid JSON object for {schema.__name__}."
                    if method == "json_mode"
                    else f"Call the {schema.__name__} tool again with complete, valid JSON "
                    "arguments."
                )
            ),
        ]
    usage.add(failures=1)
    raise StructuredOutputError(
        f"No valid {schema.__name__} from {model_id(model)} after {attempts} attempt(s): "
        f"{problems[-1] if problems else 'no attempt made'}",
        attempts=attempts,
        problems=problems,
    ) from last_exc


def _structured_runnable(model: BaseChatModel, schema: type[BaseModel], method: str) -> Any:
    """A runnable whose reply is ``{"raw": AIMessage, "parsed": ..., "tool": bool}``-like
    (what ``with_structured_output(include_raw=True)`` gives), for every method."""
    if method != "json_mode":
        return model.with_structured_output(schema, method=method, include_raw=True)
    bound = model.bind(
        response_format={"type": "json_object", "schema": schema.model_json_schema()}
    )

    async def wrap(message: Any) -> dict[str, Any]:
        # Parsed by _parse_reply from the content (repaired, validated, unknown keys refused).
        return {"raw": message, "parsed": None, "parsing_error": None, "tool": False}

    return bound | RunnableLambda(wrap)


class _Refused(Exception):
    """Carries a budget's refusal past the retry loop's ``except Exception``."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


async def _invoke(
    runnable: Any,
    conversation: list[BaseMessage],
    schema: type[BaseModel],
    budget: CallBudget | None,
    purpose: str,
) -> Any:
    """One model call under ``budget``: reserved before it is sent, settled after."""
    if budget is None:
        return await runnable.ainvoke(conversation)
    estimate = count_prompt_tokens(conversation, schema) if budget.max_tokens is not None else 0
    try:
        reservation = budget.reserve(estimate, purpose or schema.__name__)
    except Exception as exc:
        raise _Refused(exc) from exc
    try:
        reply = await runnable.ainvoke(conversation)
    except asyncio.CancelledError:
        reservation.release()
        raise
    except Exception:
        reservation.commit()
        raise
    raw = reply.get("raw") if isinstance(reply, dict) else None
    prompt, completion = _token_counts(raw)
    if not prompt and not completion:  # the provider reported nothing: count what was sent
        prompt = estimate
    reservation.commit(prompt, completion)
    return reply


class _LoopThread:
    """One event loop, run forever in a daemon thread, for every synchronous call.

    Async HTTP clients (``ChatOpenAI``'s httpx pool) bind their connections to the loop they
    first ran on; a fresh ``asyncio.run`` loop per call would leave the next call with
    connections of a closed loop ("Event loop is closed"). Reusing one loop avoids that.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="extraction-sync-loop", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def is_current_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread


_SYNC_LOOP = _LoopThread()  # nothing starts until the first synchronous call


def run_sync(work: Coroutine[Any, Any, R] | Callable[[], Coroutine[Any, Any, R]]) -> R:
    """Run a coroutine (or the one ``work()`` makes) to completion from synchronous code.

    The one sync face of every async API in kg-rag, ``extraction`` and ``communities``.
    Works with or without a running event loop in the calling thread (scripts, Jupyter): the
    coroutine runs on one long-lived background loop shared by all synchronous calls, so async
    HTTP clients (``ChatOpenAI``'s connection pool binds to the loop it first ran on) keep
    working from one call to the next, where a fresh ``asyncio.run`` loop per call would leave
    them with connections of a closed loop. Do not mix these synchronous calls with
    ``await``-ing the same model from another loop.
    """

    def make() -> Coroutine[Any, Any, R]:
        return work if asyncio.iscoroutine(work) else work()

    if _SYNC_LOOP.is_current_thread():
        # Called from a coroutine already on the background loop: blocking it would deadlock.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: asyncio.run(make())).result()
    future = asyncio.run_coroutine_threadsafe(make(), _SYNC_LOOP.loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()  # e.g. KeyboardInterrupt: do not leave the work running
        raise


def call_structured(
    model: BaseChatModel,
    schema: type[T],
    messages: list[BaseMessage],
    *,
    max_retries: int = 2,
    usage: LLMUsage | None = None,
    cache: ResponseCache | None = None,
    cache_key: str | None = None,
    backoff_s: float = 0.5,
    check: Callable[[T], str | None] | None = None,
    budget: CallBudget | None = None,
    purpose: str = "",
    method: StructuredMethod = "function_calling",
) -> T:
    """Synchronous :func:`acall_structured` (works inside a running loop, e.g. Jupyter).

    Raises:
        StructuredOutputError: No valid output after ``max_retries`` retries.
    """
    return run_sync(
        lambda: acall_structured(
            model,
            schema,
            messages,
            max_retries=max_retries,
            usage=usage,
            cache=cache,
            cache_key=cache_key,
            backoff_s=backoff_s,
            check=check,
            budget=budget,
            purpose=purpose,
            method=method,
        )
    )
