"""Budgeted LLM calls for the answer engine.

Every call goes through :class:`LLMCaller`, which enforces the per-question caps on calls and
tokens (:class:`~kg_rag.errors.BudgetExceeded` at the cap), and reuses the retry / repair /
cache / accounting discipline of :mod:`extraction.structured`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from extraction.structured import LLMUsage, ResponseCache, acall_structured, model_id
from kg_rag.answer.prompts import PROMPT_VERSION
from kg_rag.errors import BudgetExceeded, LLMError

__all__ = ["LLMCaller"]

T = TypeVar("T", bound=BaseModel)


class LLMCaller:
    """Structured and text calls to one chat model under a per-question budget.

    Args:
        model: any LangChain chat model.
        max_calls: cap on calls for the question.
        max_tokens: cap on prompt + completion tokens for the question.
        max_retries: retries of a failed or malformed call.
        cache: optional response cache shared across questions.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        max_calls: int,
        max_tokens: int,
        max_retries: int = 2,
        cache: ResponseCache | None = None,
    ) -> None:
        self.model = model
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.cache = cache
        self.usage = LLMUsage()
        self.exhausted = False

    @property
    def tokens(self) -> int:
        """Tokens spent so far."""
        return int(self.usage.prompt_tokens + self.usage.completion_tokens)

    def _check_budget(self, purpose: str) -> None:
        if self.usage.calls >= self.max_calls:
            self.exhausted = True
            raise BudgetExceeded(f"LLM call cap ({self.max_calls}) reached before {purpose}")
        if self.tokens >= self.max_tokens:
            self.exhausted = True
            raise BudgetExceeded(f"token cap ({self.max_tokens}) reached before {purpose}")

    def _retries_left(self) -> int:
        """Retries that still fit under the call cap (a retry is a call)."""
        return max(0, min(self.max_retries, self.max_calls - int(self.usage.calls) - 1))

    async def structured(self, schema: type[T], prompt: str, *, purpose: str) -> T:
        """One structured call (``schema`` validated), counted against the budget."""
        self._check_budget(purpose)
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
            )
        except BudgetExceeded:
            raise
        except Exception as exc:
            raise LLMError(f"{purpose}: {exc}") from exc

    async def text(self, prompt: str, *, purpose: str) -> str:
        """One free-text call, counted against the budget."""
        self._check_budget(purpose)
        last: Exception | None = None
        for _ in range(self._retries_left() + 1):
            try:
                msg = await self.model.ainvoke([HumanMessage(content=prompt)])
            except Exception as exc:
                last = exc
                self.usage.add(calls=1, failures=1)
                continue
            meta: Any = getattr(msg, "usage_metadata", None) or {}
            self.usage.add(
                calls=1,
                prompt_tokens=int(meta.get("input_tokens", 0)),
                completion_tokens=int(meta.get("output_tokens", 0)),
            )
            content = msg.content if isinstance(msg.content, str) else str(msg.content)
            return content
        raise LLMError(f"{purpose}: {last}") from last
