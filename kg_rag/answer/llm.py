"""Budgeted LLM calls for the answer engine.

Every call goes through :class:`LLMCaller`, which holds the per-question caps on calls and
tokens as reservations (:class:`~extraction.budget.CallBudget`): each model call, retries
included, reserves its slot and its counted prompt tokens plus a share for the reply before
it is sent, so concurrent steps cannot overshoot ``max_calls``; a call that does not fit raises
:class:`~kg_rag.errors.BudgetExceeded` without being sent. Retry / repair / cache / accounting
follow :mod:`extraction.structured`.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from extraction.budget import CallBudget
from extraction.structured import (
    LLMUsage,
    ResponseCache,
    StructuredMethod,
    acall_structured,
    model_id,
)
from extraction.tokens import prompt_tokens
from kg_rag.answer.prompts import PROMPT_VERSION
from kg_rag.errors import BudgetExceeded, LLMError

__all__ = ["LLMCaller"]

T = TypeVar("T", bound=BaseModel)


class LLMCaller:
    """Structured and text calls to one chat model under a per-question budget.

    Args:
        model: any LangChain chat model.
        max_calls: cap on calls for the question (reserved before each call).
        max_tokens: cap on prompt + completion tokens for the question.
        max_retries: retries of a failed or malformed call.
        cache: optional response cache shared across questions.
        completion_reserve: tokens held for each reply when checking ``max_tokens``; the
            model's own completion limit (``max_tokens`` of a ``ChatOpenAI``) when lower.
        method: how structured calls steer the model (``llm.structured_method``).
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        max_calls: int,
        max_tokens: int,
        max_retries: int = 2,
        cache: ResponseCache | None = None,
        completion_reserve: int = 256,
        method: StructuredMethod = "function_calling",
    ) -> None:
        self.model = model
        self.method: StructuredMethod = method
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.cache = cache
        self.usage = LLMUsage()
        limit = getattr(model, "max_tokens", None)
        if isinstance(limit, int) and 0 < limit < completion_reserve:
            completion_reserve = limit
        self.budget = CallBudget(
            max_calls,
            max_tokens,
            completion_reserve=completion_reserve,
            error=BudgetExceeded,
        )

    @property
    def exhausted(self) -> bool:
        """True once a call was refused or the spent tokens reached the cap."""
        return self.budget.exhausted

    @property
    def tokens(self) -> int:
        """Tokens spent so far."""
        return int(self.usage.prompt_tokens + self.usage.completion_tokens)

    def _retries_left(self) -> int:
        """Retries that may still fit under the call cap (each one reserves its own call)."""
        left = self.max_calls - self.budget.calls - self.budget.in_flight - 1
        return max(0, min(self.max_retries, left))

    async def structured(self, schema: type[T], prompt: str, *, purpose: str) -> T:
        """One structured call (``schema`` validated), counted against the budget.

        Raises:
            BudgetExceeded: the call (or its first attempt) does not fit the budget.
            LLMError: no valid reply after the retries.
        """
        key = f"{PROMPT_VERSION}:{purpose}:{model_id(self.model)}:{prompt}"
        try:
            return await acall_structured(
                self.model,
                schema,
                [HumanMessage(content=prompt)],
                max_retries=self._retries_left(),
                usage=self.usage,
                cache=self.cache,
                cache_key=key,
                budget=self.budget,
                purpose=purpose,
                method=self.method,
            )
        except BudgetExceeded:
            raise
        except Exception as exc:
            raise LLMError(f"{purpose}: {exc}") from exc

    async def text(self, prompt: str, *, purpose: str) -> str:
        """One free-text call, counted against the budget.

        Raises:
            BudgetExceeded: the call does not fit the budget.
            LLMError: every attempt failed.
        """
        messages = [HumanMessage(content=prompt)]
        estimate = prompt_tokens(messages)
        last: Exception | None = None
        for _ in range(self._retries_left() + 1):
            reservation = self.budget.reserve(estimate, purpose)
            try:
                msg = await self.model.ainvoke(messages)
            except asyncio.CancelledError:
                reservation.release()
                raise
            except Exception as exc:
                reservation.commit()
                last = exc
                self.usage.add(calls=1, failures=1)
                continue
            meta: Any = getattr(msg, "usage_metadata", None) or {}
            prompt_used = int(meta.get("input_tokens", 0))
            completion = int(meta.get("output_tokens", 0))
            reservation.commit(prompt_used or estimate, completion)
            self.usage.add(calls=1, prompt_tokens=prompt_used, completion_tokens=completion)
            content = msg.content if isinstance(msg.content, str) else str(msg.content)
            return content
        raise LLMError(f"{purpose}: {last}") from last
