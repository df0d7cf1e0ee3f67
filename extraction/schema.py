"""Pydantic types of the extraction package: the LLM output schema and per-chunk results.

:class:`ExtractionOutput` is what an LLM is asked to return (its JSON schema becomes the tool's
parameters, its docstrings the descriptions the model reads, so they are written for the model).
:class:`ChunkInput` goes in, :class:`ChunkExtraction` comes out, for the LLM and the offline
extractor alike.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

__all__ = [
    "DEFAULT_ENTITY_TYPES",
    "BatchExtractionOutput",
    "BatchPart",
    "ChunkExtraction",
    "ChunkInput",
    "ExtractedEntity",
    "ExtractedRelation",
    "ExtractionOutput",
]

DEFAULT_ENTITY_TYPES: tuple[str, ...] = (
    "PERSON",
    "ORGANIZATION",
    "LOCATION",
    "EVENT",
    "WORK",
    "CONCEPT",
)
"""Entity types used when the caller gives none (the same as kg_rag's default settings)."""

_SPACES = re.compile(r"\s+")
_TYPE_JUNK = re.compile(r"[^0-9A-Z_]+")


def _clean_text(value: Any) -> Any:
    return _SPACES.sub(" ", value).strip() if isinstance(value, str) else value


def _clean_type(value: Any) -> Any:
    # Models write "Person", "organisation", "place name": one upper-case token is what the
    # rest of the pipeline compares, so normalise the spelling here (synonyms: normalize.py).
    if not isinstance(value, str):
        return value
    cleaned = _TYPE_JUNK.sub("_", value.strip().upper()).strip("_")
    return cleaned or "CONCEPT"


def _compact_schema(schema: dict[str, Any]) -> None:
    """Sent with every call as the tool's parameters: the prompt already says what each field
    means, so per-field descriptions, defaults and length bounds are left out (about 60% of
    the schema's tokens)."""
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        for key in ("description", "default", "minLength", "maximum", "minimum"):
            prop.pop(key, None)


_CleanStr = Annotated[str, BeforeValidator(_clean_text)]
_TypeStr = Annotated[str, BeforeValidator(_clean_type)]


class ExtractedEntity(BaseModel):
    """An entity named in the text."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_compact_schema)

    name: _CleanStr = Field(min_length=1, description="Name as written in the text, fullest form.")
    type: _TypeStr = Field(description="One of the allowed entity types.")
    description: _CleanStr = Field(default="", description="One sentence, based only on the text.")
    aliases: list[str] = Field(
        default_factory=list, description="Other names the text uses for it (may be empty)."
    )

    @field_validator("aliases", mode="before")
    @classmethod
    def _clean_aliases(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            return [a for a in (_clean_text(v) for v in value if isinstance(v, str)) if a]
        return value


class ExtractedRelation(BaseModel):
    """A relation the text states between two extracted entities."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_compact_schema)

    source: _CleanStr = Field(min_length=1, description="Name of the source entity.")
    target: _CleanStr = Field(min_length=1, description="Name of the target entity.")
    type: _TypeStr = Field(default="RELATED_TO", description="Relation type, UPPER_SNAKE_CASE.")
    description: _CleanStr = Field(default="", description="How they are related, per the text.")
    strength: float = Field(
        default=0.5, ge=0.0, le=1.0, description="0..1; 1 = explicit and central."
    )

    @field_validator("strength", mode="before")
    @classmethod
    def _scale_strength(cls, value: Any) -> Any:
        # Models often answer on a 1-10 or 0-100 scale; rescale instead of failing the chunk.
        if isinstance(value, str):
            try:
                value = float(value.strip().rstrip("%"))
            except ValueError:
                return 0.5
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value
        number = float(value)
        if math.isnan(number):
            return 0.5
        if number > 1.0:
            number = number / 10.0 if number <= 10.0 else number / 100.0
        return min(1.0, max(0.0, number))


class ExtractionOutput(BaseModel):
    """Entities named in the text and the relations the text states between them."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_compact_schema)

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)


class BatchPart(BaseModel):
    """What one numbered text of a batch names."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_compact_schema)

    n: int = Field(description="The text's number.")
    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)


class BatchExtractionOutput(BaseModel):
    """One item per numbered text: its entities and relations."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_compact_schema)

    texts: list[BatchPart] = Field(default_factory=list)


class ChunkInput(BaseModel):
    """A piece of text to extract from.

    Attributes:
        chunk_id: Caller's id; results carry it back.
        text: The text.
        doc_id: Caller's document id, passed through to the result.
        title: Title of the document or section, when known. The offline extractor treats it
            as an entity of the chunk; the LLM prompt shows it as context.
    """

    model_config = ConfigDict(extra="forbid")

    chunk_id: str
    text: str
    doc_id: str = ""
    title: str = ""


class ChunkExtraction(BaseModel):
    """What was extracted from one chunk.

    Attributes:
        chunk_id: The input's id.
        doc_id: The input's document id.
        entities: Entities, unique by normalized name within the chunk.
        relations: Relations whose endpoints are names of ``entities``.
        error: Why extraction failed after retries (entities and relations are then empty);
            ``None`` on success.
        llm_calls: Model calls made for this chunk (retries and gleaning included; 0 when
            served from the cache or extracted offline).
        cached: True when every answer came from the response cache.
        prompt_tokens: Prompt tokens the provider reported for those calls (a batched call
            counts with its first chunk).
        completion_tokens: Completion tokens, likewise.
    """

    model_config = ConfigDict(extra="forbid")

    chunk_id: str
    doc_id: str = ""
    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    error: str | None = None
    llm_calls: int = 0
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def ok(self) -> bool:
        """True when extraction succeeded."""
        return self.error is None
