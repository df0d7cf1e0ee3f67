"""Entity and relation extraction with any LangChain chat model.

One structured call per chunk (through an :class:`~extraction.llm_runtime.LLMRuntime`: repair,
retries, cache, accounting, budget), an optional gleaning pass that asks for what was missed, and a clean-up that
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

**Batches.** With ``batch_tokens`` set (and no gleaning), short chunks are packed, in input
order, several to a call (numbered texts, one :class:`~extraction.schema.BatchPart` each), so
the system prompt and the tool schema are paid once per batch instead of once per chunk. Each
chunk's part is checked and cleaned exactly as a single reply would be; a chunk whose part is
missing or refused, or whose batch failed, goes on alone through the single-chunk path (with
its retries and notes). A model that answers each text as it would alone therefore gives the
same graph batched or not.

A chunk that fails after retries comes back with ``error`` set and no entities; the others
go on. The caller records it (kg_rag keeps a failure ledger and retries it on the next ingest).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from extraction.budget import CallBudget
from extraction.cache import ResponseCache
from extraction.llm_runtime import CallFailure, LLMRuntime
from extraction.normalize import normalize_name, normalize_type
from extraction.schema import (
    DEFAULT_ENTITY_TYPES,
    BatchExtractionOutput,
    ChunkExtraction,
    ChunkInput,
    ExtractedEntity,
    ExtractedRelation,
    ExtractionOutput,
)
from extraction.structured import LLMUsage, StructuredMethod, run_sync
from extraction.tokens import count_tokens

__all__ = ["PROMPT_VERSION", "LLMExtractor"]

logger = logging.getLogger(__name__)

PROMPT_VERSION = "extract-v2"
"""Version of the prompt templates below; part of every cache key. Bump it when they change."""

_SYSTEM = """You build a knowledge graph from text.
Entities: names in the text of types {entity_types}; name as written, fullest form; \
description: one sentence from the text.
Relations: source and target are extracted entity names the text relates directly; \
{relation_rule} description: short; strength 0-1 (1 = explicit, central).
Extract only what the text supports. Call the {tool} tool."""

_BATCH_NOTE = " One item per numbered text, n = its number."

_USER = '{title_line}Text:\n"""\n{text}\n"""'

_GLEAN = (
    "Some entities or relations in the text may have been missed. Call the tool again with "
    "only the missing ones (empty lists if nothing was missed)."
)
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")


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
        batch_tokens: Pack chunks of up to this many text tokens together, several to a call
            (0: one chunk per call); at most a third of the model's ``max_tokens`` when it
            has one, so the batch's reply fits. Ignored with gleaning.
        max_batch: Most chunks in one call.
        budget: Every call reserves its share here first; a chunk refused by it comes back
            with an error starting ``"budget: "`` and no call is made for it.
        method: How structured output is asked for (see
            :data:`~extraction.structured.StructuredMethod`).

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
        batch_tokens: int = 0,
        max_batch: int = 4,
        budget: CallBudget | None = None,
        method: StructuredMethod = "function_calling",
    ) -> None:
        self.runtime = LLMRuntime(
            model,
            method=method,
            max_retries=max_retries,
            backoff_s=backoff_s,
            concurrency=concurrency,
            cache=cache,
            budget=budget,
            progress=None if show_progress else False,
        )
        self.model = model
        self.entity_types = [normalize_type(t) for t in entity_types] or list(DEFAULT_ENTITY_TYPES)
        self.relation_types = [normalize_type(t) for t in relation_types]
        self.gleaning = max(0, gleaning)
        self.prompt_version = prompt_version
        self.usage: LLMUsage = self.runtime.usage
        self.batch_tokens = max(0, batch_tokens) if not self.gleaning else 0
        limit = getattr(model, "max_tokens", None)
        if isinstance(limit, int) and limit > 0:
            # A batch's reply holds every text's entities and relations (about twice the
            # text's tokens): keep it within the model's completion limit.
            self.batch_tokens = min(self.batch_tokens, limit // 3)
        self.max_batch = max(1, max_batch)

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache (the runtime's)."""
        return self.runtime.cache

    @property
    def budget(self) -> CallBudget | None:
        """The call/token budget (the runtime's)."""
        return self.runtime.budget

    # -- prompts -------------------------------------------------------------------------
    def _system(self, tool: str) -> str:
        if self.relation_types:
            rule = "type: one of " + ", ".join(self.relation_types) + ";"
        else:
            rule = "type: UPPER_SNAKE_CASE (BORN_IN);"
        return _SYSTEM.format(
            entity_types=", ".join(self.entity_types), relation_rule=rule, tool=tool
        )

    def build_messages(self, chunk: ChunkInput) -> list[BaseMessage]:
        """The prompt for one chunk (public so callers can inspect or log it)."""
        title_line = f"Title: {chunk.title}\n" if chunk.title else ""
        return [
            SystemMessage(content=self._system("ExtractionOutput")),
            HumanMessage(content=_USER.format(title_line=title_line, text=chunk.text)),
        ]

    def build_batch_messages(self, chunks: Sequence[ChunkInput]) -> list[BaseMessage]:
        """The prompt for several chunks in one call (numbered from 1)."""
        parts = []
        for n, chunk in enumerate(chunks, start=1):
            title_line = f"Title: {chunk.title}\n" if chunk.title else ""
            parts.append(f"[{n}] " + _USER.format(title_line=title_line, text=chunk.text))
        return [
            SystemMessage(content=self._system("BatchExtractionOutput") + _BATCH_NOTE),
            HumanMessage(content="\n\n".join(parts)),
        ]

    def batches(self, chunks: Sequence[ChunkInput]) -> list[list[int]]:
        """Indexes of ``chunks`` grouped into calls: input order, at most ``max_batch``
        chunks and ``batch_tokens`` text tokens each; a longer chunk goes alone."""
        groups: list[list[int]] = []
        current: list[int] = []
        size = 0
        for i, chunk in enumerate(chunks):
            tokens = (
                count_tokens(chunk.title) + count_tokens(chunk.text) if self.batch_tokens else 0
            )
            if not self.batch_tokens or tokens > self.batch_tokens:
                groups.append([i])
                continue
            if current and (len(current) >= self.max_batch or size + tokens > self.batch_tokens):
                groups.append(current)
                current, size = [], 0
            current.append(i)
            size += tokens
        if current:
            groups.append(current)
        return sorted(groups)

    def _key(self, messages: Sequence[BaseMessage]) -> str:
        return self.runtime.key(self.prompt_version, messages, "ExtractionOutput")

    def is_cached(self, chunk: ChunkInput) -> bool:
        """True when the response cache holds an answer for ``chunk`` (it would cost no call)."""
        if self.cache is None:
            return False
        return self.cache.get(self._key(self.build_messages(chunk))) is not None

    def planned_calls(
        self, chunks: Sequence[ChunkInput]
    ) -> list[tuple[list[BaseMessage], type[BaseModel], bool]]:
        """The first calls :meth:`aextract` would make for ``chunks``, sent nowhere: per call
        its messages, its tool schema and whether the response cache already answers it
        (retries, gleaning and chunks redone alone come on top)."""
        planned: list[tuple[list[BaseMessage], type[BaseModel], bool]] = []
        todo: list[ChunkInput] = []
        for chunk in chunks:
            if self.is_cached(chunk):
                planned.append((self.build_messages(chunk), ExtractionOutput, True))
            else:
                todo.append(chunk)
        for group in self.batches(todo):
            if len(group) == 1:
                planned.append((self.build_messages(todo[group[0]]), ExtractionOutput, False))
            else:
                batch = [todo[i] for i in group]
                planned.append((self.build_batch_messages(batch), BatchExtractionOutput, False))
        return planned

    # -- extraction ----------------------------------------------------------------------
    async def aextract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """Extract from every chunk, at most ``concurrency`` model calls at a time.

        Args:
            chunks: The chunks; results come back in the same order.

        Returns:
            One :class:`ChunkExtraction` per chunk; failed chunks have ``error`` set.
        """
        results: list[ChunkExtraction | None] = [None] * len(chunks)
        todo = list(range(len(chunks)))
        if self.batch_tokens:
            # Answers are cached per chunk (batch replies too), so a chunk seen before costs
            # nothing whatever batch it falls in now.
            todo = []
            for i, chunk in enumerate(chunks):
                hit = self._cached(chunk)
                if hit is None:
                    todo.append(i)
                else:
                    self.usage.add(cache_hits=1)
                    results[i] = hit

        async def run(group: list[int]) -> None:
            if len(group) == 1:
                results[group[0]] = await self._extract_one(chunks[group[0]])
            else:
                batch = [chunks[i] for i in group]
                for i, result in zip(group, await self._extract_batch(batch), strict=True):
                    results[i] = result

        groups = [[todo[j] for j in g] for g in self.batches([chunks[i] for i in todo])]
        await self.runtime.amap(
            groups, run, desc="extract", unit="chunk", weight=len, done=len(chunks) - len(todo)
        )
        failed = sum(1 for r in results if r is not None and r.error)
        if failed:
            logger.warning("Extraction failed for %d of %d chunks.", failed, len(chunks))
        return [r for r in results if r is not None]

    def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """Synchronous :meth:`aextract` (also works inside a running loop, e.g. Jupyter)."""
        return run_sync(lambda: self.aextract(chunks))

    async def _extract_batch(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """One call for ``chunks``; a chunk whose part is missing or refused goes alone."""
        usage = LLMUsage()
        messages = self.build_batch_messages(chunks)
        parts: dict[int, ExtractionOutput] = {}
        output = await self.runtime.atry(
            BatchExtractionOutput, messages, usage=usage, purpose="extraction"
        )
        self.usage.add(usage)
        if isinstance(output, CallFailure):
            if output.budget:
                return [self._failed(c, output.error) for c in chunks]
            logger.info(
                "Batch of %d chunks failed, extracting them one by one: %s",
                len(chunks),
                output.error,
            )
        else:
            for part in output.texts:
                parts.setdefault(
                    part.n, ExtractionOutput(entities=part.entities, relations=part.relations)
                )
        results: list[ChunkExtraction] = []
        for n, chunk in enumerate(chunks, start=1):
            reply = parts.get(n)
            if reply is not None and self.check_reply(chunk)(reply) is None:
                # Under the chunk's own key: see aextract.
                self.runtime.store(self._key(self.build_messages(chunk)), reply)
                entities, relations = self._clean(reply.entities, reply.relations, chunk.text)
                results.append(
                    ChunkExtraction(
                        chunk_id=chunk.chunk_id,
                        doc_id=chunk.doc_id,
                        entities=entities,
                        relations=relations,
                        llm_calls=usage.calls if n == 1 else 0,
                        prompt_tokens=usage.prompt_tokens if n == 1 else 0,
                        completion_tokens=usage.completion_tokens if n == 1 else 0,
                    )
                )
            else:
                results.append(await self._extract_one(chunk))
        return results

    def _cached(self, chunk: ChunkInput) -> ChunkExtraction | None:
        """The chunk's cached answer, cleaned, when the cache holds a valid one."""
        output = self.runtime.cached(self._key(self.build_messages(chunk)), ExtractionOutput)
        if output is None or self.check_reply(chunk)(output) is not None:
            return None
        entities, relations = self._clean(output.entities, output.relations, chunk.text)
        return ChunkExtraction(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            entities=entities,
            relations=relations,
            cached=True,
        )

    @staticmethod
    def _failed(chunk: ChunkInput, error: str, usage: LLMUsage | None = None) -> ChunkExtraction:
        spent = usage if usage is not None else LLMUsage()
        return ChunkExtraction(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            error=error,
            llm_calls=spent.calls,
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
        )

    async def _extract_one(self, chunk: ChunkInput) -> ChunkExtraction:
        usage = LLMUsage()
        messages = self.build_messages(chunk)
        output = await self.runtime.atry(
            ExtractionOutput,
            messages,
            key=self._key(messages),
            check=self.check_reply(chunk),
            purpose="extraction",
            usage=usage,
        )
        if isinstance(output, CallFailure):
            self.usage.add(usage)
            return self._failed(chunk, output.error, usage)
        entities = list(output.entities)
        relations = list(output.relations)
        for _ in range(self.gleaning):
            so_far = ExtractionOutput(entities=entities, relations=relations)
            glean_messages = [
                *messages,
                AIMessage(content=json.dumps(so_far.model_dump(mode="json"), ensure_ascii=False)),
                HumanMessage(content=_GLEAN),
            ]
            more = await self.runtime.atry(
                ExtractionOutput,
                glean_messages,
                key=self._key(glean_messages),
                purpose="extraction",
                usage=usage,
            )
            if isinstance(more, CallFailure):
                # The first pass succeeded: keep its result rather than failing the chunk.
                logger.warning("Gleaning failed for chunk %s: %s", chunk.chunk_id, more.error)
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
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
        )

    def check_reply(self, chunk: ChunkInput) -> Callable[[ExtractionOutput], str | None]:
        """The validation a first-pass reply for ``chunk`` must pass (see the module doc)."""
        # Also without possessives: "Mao Zedong's" names Mao Zedong, but normalizes to
        # "mao zedongs" (apostrophes are dropped).
        plain = _POSSESSIVE.sub("", chunk.text)
        haystack = (
            f" {normalize_name(chunk.title)} {normalize_name(chunk.text)} {normalize_name(plain)} "
        )
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
