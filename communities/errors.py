"""Errors raised by :mod:`communities`.

The package does not import ``kg_rag``, so it carries its own small tree::

    CommunityError
    ├── GraphInputError      the graph cannot be clustered as given (e.g. two node ids that
    │                        print the same)
    └── SummaryError         a community could not be summarized (recorded, never raised by
                             the batch summarizers)
"""

from __future__ import annotations

__all__ = ["CommunityError", "GraphInputError", "SummaryError"]


class CommunityError(Exception):
    """Root of the errors raised by :mod:`communities`."""


class GraphInputError(CommunityError, ValueError):
    """The input graph cannot be clustered as given; the message says what to change."""


class SummaryError(CommunityError):
    """A community could not be summarized."""
