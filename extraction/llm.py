"""Entity and relation extraction with any LangChain chat model.

One structured call per chunk (see :mod:`extraction.structured` for repair, retries, cache and
accounting), an optional gleaning pass that asks for what was missed, and a clean-up that
makes the output consistent:

* entity names are de-duplicated within the chunk by normalized name (first type wins,
  descriptions and aliases are merged);
* types are canonicalized (``"org"`` → ``ORGANIZATION``); a type outside ``entity_types``
  becomes ``CONCEPT`` (when ``CONCEPT`` is allowed), so the graph keeps the entity;
* a relation endpoint that is not an extracted entity is **added** as a ``CONCEPT`` entity when
  the name occurs in the chunk text (models often relate things they forgot to list), and the
  relation is **dropped** otherwise (the name is then likely invented). Self-relations are
  dropped; duplicates keep the highest strength.

A reply is *checked* before it is accepted (and before it is cached): every entity must be
named in the chunk (its name or an alias, compared normalized; the title counts), and an empty
reply is refused when the offline extractor finds names in the text. A refused reply is
retried with a note saying what was wrong, like malformed JSON.

A chunk that fails after retries comes back with ``error`` set and no entities; the others
go on. The caller records it (kg_rag keeps a failure ledger and retries it on the next ingest).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from tqdm import tqdm

from extraction.errors import StructuredOutputError
from extraction.normalize import normalize_name, normalize_type
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
    messages_hash,
    model_id,
    run_sync,
)

__all__ = ["PROMPT_VERSION", "LLMExtractor"]

logger = logging.getLogger(__name__)

PROMPT_VERSION = "extract-v1"
"""Version of the prompt templates below; part of every cache key. Bump it when they change."""

_SYSTEM = """You build a knowledge graph from text.
Entities: what the text names, of these types: {entity_types}. Write each name as the text \
writes it, in its fullest form; give a one-sentence description based only on the text.
Relations: pairs of extracted entities that the text relates directly. `source` and `target` \
must be names of extracted entities. {relation_rule} Give a short description and a strength \
from 0 to 1 (1 = stated explicitly and central to the text).
Extract only what the text supports. Answer by calling the ExtractionOutput tool."""

_USER = '{title_line}Text:\n"""\n{text}\n"""'

_GLEAN = (
    "Some entities or relations in the text may have been missed. Call the tool again with "
    "only the missing ones (empty lists if nothing was missed)."
)


class LLMExtractor:
    """Extract entities and relations from chunks with a chat model.

    Args:
        model: Any LangChain chat model that supports tool calling.
        entity_types: Allowed entity types (upper case).
        relation_types: Allowed relation types; empty means free ``UPPER_SNAKE_CASE`` types.
        max_retries: Retries per call after malformed output or an exception.
        concurrency: Model calls in flight at once.
        gleaning: Extra "anything missed?" passes per chunk (0 = none).
        cache: Response cache; a chunk seen before (same prompt version, model and text)
            costs no call.
        prompt_version: Part of the cache key; change it to invalidate cached answers.
        backoff_s: Sleep before retrying after an exception (doubled per retry).
        show_progress: Show a progress bar (only when stderr is a terminal).

    Example::

        extractor = LLMExtractor(chat_model, cache=ResponseCache(".cache/extract.sqlite"))
        results = extractor.extract([ChunkInput(chunk_id="c1", text="Ada Lovelace ...")])
        failed = [r.chunk_id for r in results if r.error]
        print(extractor.usage.calls, extractor.usage.total_tokens)
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        entity_types: Sequence[str] = DEFAULT_ENTITY_TYPES,
        relation_types: Sequence[str] = (),
        max_retries: int = 2,
        concurrency: int = 4,
        gleaning: int = 0,
        cache: ResponseCache | None = None,
        prompt_version: str = PROMPT_VERSION,
        backoff_s: float = 0.5,
        show_progress: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.model = model
        self.entity_types = [normalize_type(t) for t in entity_types] or list(DEFAULT_ENTITY_TYPES)
        self.relation_types = [normalize_type(t) for t in relation_types]
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.gleaning = max(0, gleaning)
        self.cache = cache
        self.prompt_version = prompt_version
        self.backoff_s = backoff_s
        self.show_progress = show_progress
        self.usage = LLMUsage()
        self._model_id = model_id(model)

    # -- prompts -------------------------------------------------------------------------
    def build_messages(self, chunk: ChunkInput) -> list[BaseMessage]:
        """The prompt for one chunk (public so callers can inspect or log it)."""
        if self.relation_types:
            rule = "Allowed relation types: " + ", ".join(self.relation_types) + "."
        else:
            rule = "Name each relation type in UPPER_SNAKE_CASE (e.g. BORN_IN, MEMBER_OF)."
        system = _SYSTEM.format(entity_types=", ".join(self.entity_types), relation_rule=rule)
        title_line = f"Title: {chunk.title}\n" if chunk.title else ""
        return [
            SystemMessage(content=system),
            HumanMessage(content=_USER.format(title_line=title_line, text=chunk.text)),
        ]

    def _key(self, messages: Sequence[BaseMessage]) -> str:
        return ResponseCache.make_key(
            self.prompt_version, self._model_id, messages_hash(messages, "ExtractionOutput")
        )

    # -- extraction ----------------------------------------------------------------------
    async def aextract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """Extract from every chunk, at most ``concurrency`` model calls at a time.

        Args:
            chunks: The chunks; results come back in the same order.

        Returns:
            One :class:`ChunkExtraction` per chunk; failed chunks have ``error`` set.
        """
        semaphore = asyncio.Semaphore(self.concurrency)
        results: list[ChunkExtraction | None] = [None] * len(chunks)

        async def run(index: int, chunk: ChunkInput) -> None:
            results[index] = await self._extract_one(chunk, semaphore)

        tasks = [asyncio.create_task(run(i, c)) for i, c in enumerate(chunks)]
        disable = not (self.show_progress and sys.stderr.isatty())
        with tqdm(total=len(tasks), desc="extract", unit="chunk", disable=disable) as bar:
            for finished in asyncio.as_completed(tasks):
                await finished
                bar.update(1)
        failed = sum(1 for r in results if r is not None and r.error)
        if failed:
            logger.warning("Extraction failed for %d of %d chunks.", failed, len(chunks))
        return [r for r in results if r is not None]

    def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """Synchronous :meth:`aextract` (also works inside a running loop, e.g. Jupyter)."""
        return run_sync(lambda: self.aextract(chunks))

    async def _extract_one(
        self, chunk: ChunkInput, semaphore: asyncio.Semaphore
    ) -> ChunkExtraction:
        usage = LLMUsage()
        messages = self.build_messages(chunk)
        try:
            output = await self._call(messages, usage, semaphore, self.check_reply(chunk))
        except StructuredOutputError as exc:
            self.usage.add(usage)
            return ChunkExtraction(
                chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, error=str(exc), llm_calls=usage.calls
            )
        entities = list(output.entities)
        relations = list(output.relations)
        for _ in range(self.gleaning):
            so_far = ExtractionOutput(entities=entities, relations=relations)
            glean_messages = [
                *messages,
                AIMessage(content=json.dumps(so_far.model_dump(mode="json"), ensure_ascii=False)),
                HumanMessage(content=_GLEAN),
            ]
            try:
                more = await self._call(glean_messages, usage, semaphore)
            except StructuredOutputError as exc:
                # The first pass succeeded: keep its result rather than failing the chunk.
                logger.warning("Gleaning failed for chunk %s: %s", chunk.chunk_id, exc)
                break
            known = {normalize_name(e.name) for e in entities}
            new_entities = [e for e in more.entities if normalize_name(e.name) not in known]
            if not new_entities and not more.relations:
                break
            entities.extend(new_entities)
            relations.extend(more.relations)
        self.usage.add(usage)
        clean_entities, clean_relations = self._clean(entities, relations, chunk.text)
        return ChunkExtraction(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            entities=clean_entities,
            relations=clean_relations,
            llm_calls=usage.calls,
            cached=usage.calls == 0 and usage.cache_hits > 0,
        )

    def check_reply(self, chunk: ChunkInput) -> Callable[[ExtractionOutput], str | None]:
        """The validation a first-pass reply for ``chunk`` must pass (see the module doc)."""
        haystack = f" {normalize_name(chunk.title)} {normalize_name(chunk.text)} "
        expects_names: list[bool] = []

        def found(name: str) -> bool:
            key = normalize_name(name)
            if not key:
                return False
            if any(ord(ch) >= 0x2E80 for ch in key):  # CJK: no spaces between words
                return key in haystack
            return f" {key} " in haystack

        def check(output: ExtractionOutput) -> str | None:
            missing = [e.name for e in output.entities if not any(map(found, [e.name, *e.aliases]))]
            if missing:
                return f"entities not in the text: {missing[:5]}"
            if not output.entities:
                if not expects_names:
                    from extraction.offline import OfflineExtractor

                    found_offline = OfflineExtractor().extract([chunk])[0].entities
                    expects_names.append(len(found_offline) >= 2)
                if expects_names[0]:
                    return "no entities, but the text names several"
            return None

        return check

    async def _call(
        self,
        messages: list[BaseMessage],
        usage: LLMUsage,
        semaphore: asyncio.Semaphore,
        check: Callable[[ExtractionOutput], str | None] | None = None,
    ) -> ExtractionOutput:
        return await acall_structured(
            self.model,
            ExtractionOutput,
            messages,
            max_retries=self.max_retries,
            usage=usage,
            cache=self.cache,
            cache_key=self._key(messages) if self.cache is not None else None,
            semaphore=semaphore,
            backoff_s=self.backoff_s,
            check=check,
        )

    # -- clean-up ------------------------------------------------------------------------
    def _canonical_type(self, type_: str) -> str:
        canonical = normalize_type(type_)
        if canonical in self.entity_types or "CONCEPT" not in self.entity_types:
            return canonical
        return "CONCEPT"

    def _clean(
        self,
        entities: Sequence[ExtractedEntity],
        relations: Sequence[ExtractedRelation],
        text: str,
    ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        by_key: dict[str, ExtractedEntity] = {}
        for entity in entities:
            key = normalize_name(entity.name)
            if not key:
                continue
            kept = by_key.get(key)
            if kept is None:
                by_key[key] = entity.model_copy(update={"type": self._canonical_type(entity.type)})
                continue
            if entity.description and entity.description not in kept.description:
                kept.description = f"{kept.description} {entity.description}".strip()
            kept.aliases = _unique([*kept.aliases, *entity.aliases, entity.name], kept.name)
        for alias_owner in list(by_key.values()):
            alias_owner.aliases = _unique(alias_owner.aliases, alias_owner.name)

        text_key = normalize_name(text)
        best: dict[tuple[str, str, str], ExtractedRelation] = {}
        for relation in relations:
            ends: list[str] = []
            for name in (relation.source, relation.target):
                key = normalize_name(name)
                if key and key not in by_key and f" {key} " in f" {text_key} ":
                    by_key[key] = ExtractedEntity(name=name, type="CONCEPT")
                ends.append(key)
            source_key, target_key = ends
            if source_key not in by_key or target_key not in by_key or source_key == target_key:
                continue
            rel_type = relation.type or "RELATED_TO"
            if self.relation_types and rel_type not in self.relation_types:
                rel_type = "RELATED_TO"
            cleaned = relation.model_copy(
                update={
                    "source": by_key[source_key].name,
                    "target": by_key[target_key].name,
                    "type": rel_type,
                }
            )
            ident = (source_key, rel_type, target_key)
            if ident not in best or best[ident].strength < cleaned.strength:
                best[ident] = cleaned
        return list(by_key.values()), list(best.values())


def _unique(names: Sequence[str], exclude: str) -> list[str]:
    seen = {normalize_name(exclude)}
    out: list[str] = []
    for name in names:
        key = normalize_name(name)
        if key and key not in seen:
            seen.add(key)
            out.append(name)
    return out
