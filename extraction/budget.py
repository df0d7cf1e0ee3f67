"""Caps on LLM calls and tokens, held as reservations.

A check of the form "calls so far < cap" lets concurrent work overshoot: three steps of one
wave all see two calls made and all go. :class:`CallBudget` instead *reserves* a call (and
the tokens it may spend: its prompt as counted before sending plus a share for the reply)
before the request goes out, and settles the reservation with the provider's counts when the
reply arrives. A request that is cancelled before its reply releases its reservation; one
that failed still counts as a call (the provider saw it). So the calls made never exceed
``max_calls``, and the tokens only exceed ``max_tokens`` when a reply runs past
``completion_reserve``; :attr:`CallBudget.exhausted` is then set, so the caller can mark its
result truncated.

Usable from threads and event loops alike (one lock, no awaits inside it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from extraction.errors import BudgetSpent

__all__ = ["CallBudget", "Reservation"]


class Reservation:
    """One reserved call: :meth:`commit` it with what it spent, or :meth:`release` it."""

    def __init__(self, budget: CallBudget, tokens: int) -> None:
        self._budget = budget
        self.tokens = tokens
        self._open = True

    def commit(self, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """The call was made: count it and the tokens the provider reported."""
        if self._open:
            self._open = False
            self._budget._settle(self, calls=1, tokens=prompt_tokens + completion_tokens)

    def release(self) -> None:
        """The call was never answered (cancelled): give the reservation back."""
        if self._open:
            self._open = False
            self._budget._settle(self, calls=0, tokens=0)


class CallBudget:
    """Per-job caps on LLM calls and tokens (``None``: no cap).

    Args:
        max_calls: Most model calls (each retry is one).
        max_tokens: Most prompt + completion tokens.
        completion_reserve: Tokens held back for each call's reply when checking
            ``max_tokens`` (a model's completion limit is the safe value).
        error: Builds the exception raised when a reservation does not fit (default
            :class:`~extraction.errors.BudgetSpent`; ``kg_rag`` passes its ``BudgetExceeded``).

    Example:
        >>> budget = CallBudget(max_calls=1)
        >>> budget.reserve(10).commit(10, 5)
        >>> budget.calls, budget.tokens
        (1, 15)
    """

    def __init__(
        self,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        *,
        completion_reserve: int = 0,
        error: Callable[[str], Exception] = BudgetSpent,
    ) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.completion_reserve = max(0, completion_reserve)
        self._error = error
        self._lock = threading.Lock()
        self.calls = 0
        self.tokens = 0
        self._reserved_calls = 0
        self._reserved_tokens = 0
        self.exhausted = False
        self.refused: list[str] = []

    def reserve(self, prompt_tokens: int = 0, purpose: str = "a call") -> Reservation:
        """Reserve one call of about ``prompt_tokens`` prompt tokens.

        Raises:
            Exception: ``error(message)`` when the call (or its tokens) would pass a cap; the
                budget is then marked :attr:`exhausted`.
        """
        need = max(0, prompt_tokens) + self.completion_reserve
        with self._lock:
            message = None
            if self.max_calls is not None and self.calls + self._reserved_calls >= self.max_calls:
                message = f"LLM call cap ({self.max_calls}) reached before {purpose}"
            elif (
                self.max_tokens is not None
                and self.tokens + self._reserved_tokens + need > self.max_tokens
            ):
                message = (
                    f"token cap ({self.max_tokens}) reached before {purpose} "
                    f"({self.tokens} spent, {self._reserved_tokens} reserved, {need} needed)"
                )
            if message is not None:
                self.exhausted = True
                self.refused.append(message)
                raise self._error(message)
            self._reserved_calls += 1
            self._reserved_tokens += need
            return Reservation(self, need)

    def _settle(self, reservation: Reservation, *, calls: int, tokens: int) -> None:
        with self._lock:
            self._reserved_calls -= 1
            self._reserved_tokens -= reservation.tokens
            self.calls += calls
            self.tokens += tokens
            if self.max_tokens is not None and self.tokens >= self.max_tokens:
                self.exhausted = True

    @property
    def in_flight(self) -> int:
        """Calls reserved and not yet settled."""
        with self._lock:
            return self._reserved_calls
