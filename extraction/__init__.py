"""Entity and relation extraction, and entity resolution. Knows nothing of stores or kg_rag.

Plain inputs, own pydantic outputs::

    ChunkInput ──► LLMExtractor (any LangChain chat model) ──► ChunkExtraction ──► EntityResolver
               └─► OfflineExtractor (rules, no model)      ──┘                  ──► ResolutionResult

:mod:`extraction.llm_runtime` is the one LLM runtime (structured calls, repair, bounded retries,
response cache, usage accounting, budgets) that ``communities`` and ``kg_rag`` reuse for their
own schemas; :mod:`extraction.structured` is its single-call core.
"""

from extraction.errors import ExtractionError, ResolutionError, StructuredOutputError
from extraction.llm import PROMPT_VERSION, LLMExtractor
from extraction.llm_runtime import CallFailure, LLMRuntime
from extraction.normalize import (
    compact_name,
    entity_id,
    entity_key,
    normalize_name,
    normalize_type,
)
from extraction.offline import OfflineExtractor
from extraction.repair import repair_json
from extraction.resolve import (
    EntityResolver,
    MergeRecord,
    ResolutionResult,
    ResolvedEntity,
    ResolvedRelation,
    types_compatible,
)
from extraction.schema import (
    DEFAULT_ENTITY_TYPES,
    ChunkExtraction,
    ChunkInput,
    ExtractedEntity,
    ExtractedRelation,
    ExtractionOutput,
)
from extraction.structured import (
    LLMUsage,
    ResponseCache,
    acall_structured,
    call_structured,
    model_id,
    run_sync,
)

__all__ = [
    "DEFAULT_ENTITY_TYPES",
    "PROMPT_VERSION",
    "CallFailure",
    "ChunkExtraction",
    "ChunkInput",
    "EntityResolver",
    "ExtractedEntity",
    "ExtractedRelation",
    "ExtractionError",
    "ExtractionOutput",
    "LLMExtractor",
    "LLMRuntime",
    "LLMUsage",
    "MergeRecord",
    "OfflineExtractor",
    "ResolutionError",
    "ResolutionResult",
    "ResolvedEntity",
    "ResolvedRelation",
    "ResponseCache",
    "StructuredOutputError",
    "acall_structured",
    "call_structured",
    "compact_name",
    "entity_id",
    "entity_key",
    "model_id",
    "normalize_name",
    "normalize_type",
    "repair_json",
    "run_sync",
    "types_compatible",
]
