"""The one error tree of kg-rag.

Every exception the library raises on purpose derives from :class:`KgRagError`::

    KgRagError
    ├── ConfigError               settings are missing or contradict each other
    ├── StoreUnavailable          a store (Neo4j, LanceDB) cannot be reached or opened
    │   └── ServerError           a managed server (Neo4j, LLM server) failed to start/stop
    ├── SchemaMismatch            a knowledge base was built with other settings (e.g. embedder)
    ├── IngestError               one document could not be loaded (recorded, never fatal for a batch)
    ├── LLMError                  an LLM call failed for good
    │   └── RetryableLLMError     an LLM call failed but may succeed when retried
    ├── ExtractionError           entity/relation extraction of a chunk failed after retries
    ├── UnsafeCypherError         generated Cypher was refused (not read-only, invalid, ...)
    │   └── CypherLimitError      it ran past its deadline or the server's memory limit
    ├── BudgetExceeded            a per-question cap on LLM calls or tokens was reached
    └── UnscriptedPromptError     the fake chat model got a prompt it was not scripted for

Messages say what to do next.
"""

from __future__ import annotations

__all__ = [
    "BudgetExceeded",
    "ConfigError",
    "CypherLimitError",
    "ExtractionError",
    "IngestError",
    "KgRagError",
    "LLMError",
    "RetryableLLMError",
    "SchemaMismatch",
    "ServerError",
    "StoreUnavailable",
    "UnsafeCypherError",
    "UnscriptedPromptError",
]


class KgRagError(Exception):
    """Root of every error kg-rag raises on purpose."""


class ConfigError(KgRagError):
    """Settings are missing, invalid or contradict each other."""


class StoreUnavailable(KgRagError):
    """A store (Neo4j, LanceDB) cannot be reached or opened."""


class ServerError(StoreUnavailable):
    """A managed local server (Neo4j or the LLM test server) failed to start or stop."""


class SchemaMismatch(KgRagError):
    """A knowledge base was built with different settings than those used to open it."""


class IngestError(KgRagError):
    """A single document could not be ingested; batches record it and go on."""


class LLMError(KgRagError):
    """An LLM call failed for good (after retries)."""


class RetryableLLMError(LLMError):
    """An LLM call failed in a way that may succeed on retry (timeout, malformed output)."""


class ExtractionError(KgRagError):
    """Entity/relation extraction of one chunk failed after all retries."""


class UnsafeCypherError(KgRagError):
    """Cypher was refused: it is not a single read-only statement, or it does not compile."""


class CypherLimitError(UnsafeCypherError):
    """Generated Cypher was stopped: it ran past its deadline or needed more memory than the
    server allows a transaction."""


class BudgetExceeded(KgRagError):
    """A per-question cap on LLM calls or tokens was reached."""


class UnscriptedPromptError(KgRagError):
    """The fake chat model received a prompt that no script entry matches."""
