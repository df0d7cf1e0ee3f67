"""Errors raised by the ``extraction`` package (it does not import ``kg_rag``)::

    ExtractionError               root of every error this package raises on purpose
    ├── StructuredOutputError     an LLM call gave no schema-valid output after its retries
    ├── BudgetSpent               a call did not fit a :class:`~extraction.budget.CallBudget`
    └── ResolutionError           entity resolution was asked something impossible
                                  (e.g. to undo a merge it never made)

Batch APIs (:meth:`~extraction.llm.LLMExtractor.aextract`) never raise these for one bad chunk:
they record the message in :attr:`~extraction.schema.ChunkExtraction.error` and go on.
"""

from __future__ import annotations

__all__ = ["BudgetSpent", "ExtractionError", "ResolutionError", "StructuredOutputError"]


class ExtractionError(Exception):
    """Root of every error the ``extraction`` package raises on purpose."""


class StructuredOutputError(ExtractionError):
    """An LLM call returned no output that validates against the schema, after retries.

    Attributes:
        attempts: How many model calls were made.
        problems: One line per failed attempt (exception or validation problem).
    """

    def __init__(self, message: str, *, attempts: int, problems: list[str]) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.problems = problems


class BudgetSpent(ExtractionError):
    """A call was refused because it would pass a cap on calls or tokens (nothing was sent)."""


class ResolutionError(ExtractionError):
    """Entity resolution could not do what was asked (e.g. undo an unknown merge)."""
