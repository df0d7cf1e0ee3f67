"""kg-rag: a hybrid graph + vector knowledge engine for multi-hop questions.

The public API is listed in ``__all__``; heavy modules load on first use, so
``import kg_rag`` stays fast and does no work.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kg_rag.config import Settings
from kg_rag.errors import (
    BudgetExceeded,
    ConfigError,
    ExtractionError,
    IngestError,
    KgRagError,
    LLMError,
    RetryableLLMError,
    SchemaMismatch,
    ServerError,
    StoreUnavailable,
    UnsafeCypherError,
)
from kg_rag.models import Chunk, ChunkHit, Community, Document, Entity, Evidence, Mention, Relation

if TYPE_CHECKING:
    from kg_rag.answer.trace import Answer, Citation, Trace
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.ingest.pipeline import IngestReport, SourceDocument
    from kg_rag.langchain import KgRagRetriever

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "BudgetExceeded",
    "Chunk",
    "ChunkHit",
    "Citation",
    "Community",
    "ConfigError",
    "Document",
    "Entity",
    "Evidence",
    "ExtractionError",
    "IngestError",
    "IngestReport",
    "KgRagError",
    "KgRagRetriever",
    "KnowledgeEngine",
    "LLMError",
    "Mention",
    "Relation",
    "RetryableLLMError",
    "SchemaMismatch",
    "ServerError",
    "Settings",
    "SourceDocument",
    "StoreUnavailable",
    "Trace",
    "UnsafeCypherError",
    "__version__",
]

_LAZY = {
    "Answer": "kg_rag.answer.trace",
    "Citation": "kg_rag.answer.trace",
    "Trace": "kg_rag.answer.trace",
    "KnowledgeEngine": "kg_rag.engine",
    "IngestReport": "kg_rag.ingest.pipeline",
    "SourceDocument": "kg_rag.ingest.pipeline",
    "KgRagRetriever": "kg_rag.langchain",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kg_rag' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
