"""The LLM runtime: one object per job for structured calls, retries, repair, cache, usage and
budgets, shared by ``extraction``, ``communities`` and ``kg_rag``.

:class:`LLMRuntime` bundles what every structured call of a job needs — the chat model, how it
is steered (:data:`~extraction.structured.StructuredMethod`), retries and back-off, the
response cache, the usage counts, the call/token budget and the concurrency cap — and runs
calls through :func:`extraction.structured.acall_structured` (repair, validation, retries with
a note, cache, accounting, reservations). :meth:`LLMRuntime.atry` turns a failure into a
:class:`CallFailure` value (a batch must never sink for one item) and :meth:`LLMRuntime.amap`
runs many items at most ``concurrency`` at a time with a progress bar, in input order: the
loop :class:`~extraction.llm.LLMExtractor` and :class:`~communities.summarize.LLMSummarizer`
both need. :func:`~extraction.structured.run_sync` is the one sync face of every async API.

This module imports nothing of ``kg_rag`` or ``communities``, so the one-way arrows hold:
``communities → extraction`` and ``kg_rag → both`` may import it. kg_rag builds its users
from the settings (``llm.structured_method``, retries, concurrency, response cache) in
:func:`kg_rag.llm.build_extractor` and :func:`kg_rag.llm.build_summarizer`.

Example::

    runtime = LLMRuntime(chat_model, cache=ResponseCache("cache.sqlite"), max_retries=2)
    report = runtime.call(Report, messages, key=runtime.key("report-v1", messages))
    print(runtime.usage.calls, runtime.usage.total_tokens)
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel
from tqdm import tqdm

from extraction.budget import CallBudget
from extraction.cache import ResponseCache
from extraction.errors import BudgetSpent, StructuredOutputError
from extraction.structured import (
    LLMUsage,
    StructuredMethod,
    acall_structured,
    messages_hash,
    model_id,
    run_sync,
)

__all__ = ["CallFailure", "LLMRuntime", "StructuredMethod", "run_sync"]

T = TypeVar("T", bound=BaseModel)
I = TypeVar("I")  # noqa: E741 - an item of amap
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class CallFailure:
    """A structured call that gave up: what went wrong and how many attempts it made.

    Attributes:
        error: The last problem (``"budget: ..."`` when the budget refused the call).
        attempts: Attempts made (0 when nothing was sent).
        budget: True when the budget refused it (a repair with more budget may succeed).
    """

    error: str
    attempts: int
    budget: bool = False


class LLMRuntime:
    """Structured calls to one chat model under one job's policy.

    Args:
        model: Any LangChain chat model that supports tool calling (or ``response_format``
            with ``method="json_mode"``).
        method: How structured output is asked for (``llm.structured_method``).
        max_retries: Extra attempts per call after malformed output or an exception.
        backoff_s: Sleep before retrying after an exception, doubled each time.
        concurrency: Model calls in flight at once, across every call of this runtime on one
            event loop.
        cache: Response cache: consulted before a call, filled after a success.
        budget: Every attempt reserves its call (and counted prompt tokens) here first.
        usage: Counts are added here (a fresh :class:`~extraction.structured.LLMUsage` if
            omitted).
        progress: Progress bars in :meth:`amap`: ``True``/``False``, or ``None`` for "only
            when stderr is a terminal".
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        method: StructuredMethod = "function_calling",
        max_retries: int = 2,
        backoff_s: float = 0.5,
        concurrency: int = 4,
        cache: ResponseCache | None = None,
        budget: CallBudget | None = None,
        usage: LLMUsage | None = None,
        progress: bool | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.model = model
        self.method: StructuredMethod = method
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.concurrency = concurrency
        self.cache = cache
        self.budget = budget
        self.usage = usage if usage is not None else LLMUsage()
        self.progress = progress
        self.model_id = model_id(model)
        # One semaphore per event loop: asyncio primitives belong to the loop they run on.
        self._semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    def key(self, prompt_version: str, messages: Sequence[BaseMessage], *extra: str) -> str:
        """The cache key of ``messages``: prompt version, this model's id and the input."""
        return ResponseCache.make_key(
            prompt_version, self.model_id, messages_hash(messages, *extra)
        )

    def cached(self, key: str, schema: type[T]) -> T | None:
        """The cached answer under ``key`` when it still validates as ``schema`` (no count)."""
        if self.cache is None:
            return None
        stored = self.cache.get(key)
        if stored is None:
            return None
        try:
            return schema.model_validate(stored)
        except ValueError:
            return None

    def store(self, key: str, value: BaseModel) -> None:
        """Cache ``value`` under ``key`` (nothing without a cache)."""
        if self.cache is not None:
            self.cache.put(key, value.model_dump(mode="json"))

    def semaphore(self) -> asyncio.Semaphore:
        """The concurrency cap of the running event loop."""
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.concurrency)
        return semaphore

    async def acall(
        self,
        schema: type[T],
        messages: list[BaseMessage],
        *,
        key: str | None = None,
        check: Callable[[T], str | None] | None = None,
        purpose: str = "",
        usage: LLMUsage | None = None,
    ) -> T:
        """One structured call (see :func:`~extraction.structured.acall_structured`).

        Args:
            schema: The pydantic model to return.
            messages: The prompt.
            key: Cache key (:meth:`key`); ``None`` keeps the call out of the cache.
            check: Validation beyond the schema (what is wrong, or ``None``).
            purpose: What the call is for, named in a budget refusal.
            usage: Counts go here instead of :attr:`usage` (e.g. one item's own counts, added
                to :attr:`usage` by the caller).

        Raises:
            StructuredOutputError: No valid output after the retries.
            BudgetSpent: The budget refused an attempt (or the budget's own error).
        """
        return await acall_structured(
            self.model,
            schema,
            messages,
            max_retries=self.max_retries,
            usage=usage if usage is not None else self.usage,
            cache=self.cache if key is not None else None,
            cache_key=key,
            semaphore=self.semaphore(),
            backoff_s=self.backoff_s,
            check=check,
            budget=self.budget,
            purpose=purpose,
            method=self.method,
        )

    async def atry(
        self,
        schema: type[T],
        messages: list[BaseMessage],
        *,
        key: str | None = None,
        check: Callable[[T], str | None] | None = None,
        purpose: str = "",
        usage: LLMUsage | None = None,
    ) -> T | CallFailure:
        """:meth:`acall`, with a failure returned as a :class:`CallFailure` instead of raised.

        Any exception counts as a failure (one item must never sink a batch); cancellation
        still propagates.
        """
        try:
            return await self.acall(
                schema, messages, key=key, check=check, purpose=purpose, usage=usage
            )
        except StructuredOutputError as exc:
            return CallFailure(str(exc), exc.attempts)
        except BudgetSpent as exc:
            return CallFailure(f"budget: {exc}", 0, budget=True)
        except Exception as exc:
            if self.budget is not None and str(exc) in self.budget.refused:
                return CallFailure(f"budget: {exc}", 0, budget=True)  # the budget's own error
            return CallFailure(f"{type(exc).__name__}: {exc}", 1)

    def call(
        self,
        schema: type[T],
        messages: list[BaseMessage],
        *,
        key: str | None = None,
        check: Callable[[T], str | None] | None = None,
        purpose: str = "",
    ) -> T:
        """Synchronous :meth:`acall` (also works inside a running loop, e.g. Jupyter)."""
        return run_sync(lambda: self.acall(schema, messages, key=key, check=check, purpose=purpose))

    async def amap(
        self,
        items: Sequence[I],
        work: Callable[[I], Awaitable[R]],
        *,
        desc: str,
        unit: str = "item",
        weight: Callable[[I], int] | None = None,
        done: int = 0,
    ) -> list[R]:
        """``work(item)`` for every item, concurrently, results in input order.

        Concurrency is capped by the calls themselves (:meth:`semaphore`), so ``work`` may
        make several calls per item. A progress bar counts ``weight(item)`` per finished item
        (1 by default) on top of ``done`` already finished before.
        """

        async def one(item: I) -> tuple[int, R]:
            result = await work(item)
            return (weight(item) if weight is not None else 1), result

        tasks = [asyncio.ensure_future(one(item)) for item in items]
        total = done + sum(weight(i) if weight is not None else 1 for i in items)
        disable = not sys.stderr.isatty() if self.progress is None else not self.progress
        with tqdm(total=total, initial=done, desc=desc, unit=unit, disable=disable) as bar:
            try:
                for finished in asyncio.as_completed(tasks):
                    step, _ = await finished
                    bar.update(step)
            except BaseException:
                for task in tasks:
                    task.cancel()
                raise
        return [task.result()[1] for task in tasks]
