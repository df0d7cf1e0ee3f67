"""Community contexts and summaries: with any LangChain chat model, or extractive offline.

:func:`build_contexts` turns communities plus plain entity/relation inputs into
:class:`~communities.schema.CommunityContext` objects packed within a token budget (highest
weighted degree first). A summarizer turns contexts into
:class:`~communities.schema.CommunityReport` objects:

* :class:`LLMSummarizer` calls a chat model through an
  :class:`~extraction.llm_runtime.LLMRuntime` (repair, bounded retries, response cache keyed by
  prompt version + model + prompt, usage accounting, budget), a bounded number at a time. A community that cannot be summarized is recorded
  in :attr:`LLMSummarizer.failures` and, when a fallback is given, summarized by it instead;
  the batch never raises for one community.
* :class:`ExtractiveSummarizer` needs no model: title from the top entities, summary and
  findings from the top relations and their evidence, rating from size and weight.
  Deterministic.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from communities.schema import (
    ENTITIES_HEADER,
    RELATIONS_HEADER,
    TRUNCATED_NOTE,
    CommunityContext,
    CommunityRecord,
    CommunityReport,
    EntityInfo,
    RelationInfo,
    SummaryFailure,
    _entity_line,
    _evidence_line,
    _header,
    _relation_lines,
)
from extraction.budget import CallBudget
from extraction.cache import ResponseCache
from extraction.llm_runtime import CallFailure, LLMRuntime
from extraction.structured import LLMUsage, StructuredMethod, run_sync

__all__ = [
    "COMMUNITY_PROMPT",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "build_context",
    "build_contexts",
    "estimate_tokens",
    "group_relations",
    "weighted_degrees",
]

logger = logging.getLogger(__name__)

COMMUNITY_PROMPT = (
    "You write a report on one community of a knowledge graph from its entities (type, "
    "weighted degree, description) and relations with quoted evidence. Call CommunityReport: "
    "title: specific, at most 12 words, naming its central entities; summary: 2-5 sentences "
    "on what it is about and how members relate; findings: up to 5 one-sentence facts, each "
    "supported by the relations or evidence, never invented; rating: importance 0-10 from "
    "the number and weight of relations. Write in the evidence's language."
)
"""System prompt of ``prompt_version="community-v2"``; change the version when editing it."""

_MIN_ENTITY_CHARS = 40


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: one token per four characters, rounded up.

    Close enough for budgeting English and code; it over-counts nothing badly and needs no
    tokenizer. (CJK text runs nearer one token per character; budgets for it should be lower.)
    """
    return (len(text) + 3) // 4


def weighted_degrees(relations: Iterable[RelationInfo]) -> dict[str, float]:
    """Sum of relation weights at each entity (a relation counts once at each end)."""
    degree: dict[str, float] = defaultdict(float)
    for r in relations:
        degree[r.source_id] += r.weight
        if r.target_id != r.source_id:
            degree[r.target_id] += r.weight
    return dict(degree)


def group_relations(
    records: Sequence[CommunityRecord], relations: Sequence[RelationInfo]
) -> dict[str, list[RelationInfo]]:
    """The relations inside each community (both ends members), by community id.

    Works level by level (a node is in at most one community per level), so the cost is
    levels × relations, not communities × relations.
    """
    by_level: dict[int, dict[str, str]] = defaultdict(dict)
    for record in records:
        level_map = by_level[record.level]
        for node in record.members:
            level_map[node] = record.community_id
    grouped: dict[str, list[RelationInfo]] = {r.community_id: [] for r in records}
    for level_map in by_level.values():
        for rel in relations:
            cid = level_map.get(rel.source_id)
            if cid is not None and level_map.get(rel.target_id) == cid:
                grouped[cid].append(rel)
    return grouped


def build_context(
    record: CommunityRecord,
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    token_budget: int = 1500,
    **limits: int,
) -> CommunityContext:
    """The context of one community (see :func:`build_contexts`).

    Each call scans all ``relations``: for many communities use :func:`build_contexts`,
    which groups them once.
    """
    return build_contexts([record], entities, relations, token_budget=token_budget, **limits)[0]


def build_contexts(
    records: Sequence[CommunityRecord],
    entities: Iterable[EntityInfo] | Mapping[str, EntityInfo],
    relations: Sequence[RelationInfo],
    *,
    token_budget: int = 1500,
    max_evidence: int = 2,
    max_description_chars: int = 300,
    max_evidence_chars: int = 240,
) -> list[CommunityContext]:
    """Pack each community's entities, relations and evidence within ``token_budget``.

    Entities go in by weighted degree (highest first); after each entity, the relations
    linking it to entities already packed, heaviest first, each with its best evidence
    sentence. What budget is left then takes further evidence sentences (up to
    ``max_evidence`` per relation). The first entity always goes in, its description trimmed
    if need be, so no context is empty.

    Args:
        records: Communities (from :func:`~communities.leiden.detect_communities`).
        entities: Entity details (or a mapping id → details); members without details
            appear under their id.
        relations: All relations of the graph (those inside a community are picked out).
            Entity degrees left ``None`` are computed from these.
        token_budget: Estimated tokens (see :func:`estimate_tokens`) per rendered context.
        max_evidence: Evidence sentences kept per relation.
        max_description_chars: Entity and relation descriptions are cut to this length.
        max_evidence_chars: Evidence sentences are cut to this length.

    Returns:
        One context per record, in the order of ``records``.
    """
    entity_map = _entity_map(entities)
    degrees = weighted_degrees(relations)
    grouped = group_relations(records, relations)
    limits = _Limits(token_budget, max_evidence, max_description_chars, max_evidence_chars)
    contexts = []
    for record in records:
        members = []
        for node in record.members:
            info = entity_map.get(node) or EntityInfo(entity_id=node, name=node)
            if info.degree is None:
                info = info.model_copy(update={"degree": degrees.get(node, 0.0)})
            members.append(info)
        contexts.append(_pack(record, members, grouped[record.community_id], limits))
    return contexts


def _entity_map(entities: Iterable[EntityInfo] | Mapping[str, EntityInfo]) -> dict[str, EntityInfo]:
    values = entities.values() if isinstance(entities, Mapping) else entities
    return {e.entity_id: e for e in values}


@dataclass(frozen=True, slots=True)
class _Limits:
    budget: int
    evidence: int
    description_chars: int
    evidence_chars: int


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def _pack(
    record: CommunityRecord,
    members: list[EntityInfo],
    relations: list[RelationInfo],
    limits: _Limits,
) -> CommunityContext:
    members.sort(key=lambda e: (-(e.degree or 0.0), e.name, e.entity_id))
    by_node: dict[str, list[RelationInfo]] = defaultdict(list)
    for rel in relations:
        by_node[rel.source_id].append(rel)
        if rel.target_id != rel.source_id:
            by_node[rel.target_id].append(rel)

    # Every line is estimated on its own plus one for its newline, which never under-counts
    # the estimate of the joined text; headers and the truncation note are always reserved.
    used = sum(
        estimate_tokens(line) + 1
        for line in (
            _header(record.level, record.size),
            ENTITIES_HEADER,
            RELATIONS_HEADER,
            TRUNCATED_NOTE,
        )
    )
    truncated = False
    names: dict[str, str] = {}
    packed_entities: list[EntityInfo] = []
    # (relation with descriptions cut, its evidence sentences cut, how many are packed)
    packed_relations: list[tuple[RelationInfo, list[str], int]] = []
    seen: set[int] = set()

    for entity in members:
        description = _cut(entity.description, limits.description_chars)
        if description != entity.description:
            entity = entity.model_copy(update={"description": description})
        cost = estimate_tokens(_entity_line(entity)) + 1
        if used + cost > limits.budget:
            if packed_entities:
                truncated = True
                break
            # The first entity always goes in: trim its description to what is left.
            room = max(_MIN_ENTITY_CHARS, (limits.budget - used) * 4 - len(entity.name) - 20)
            entity = entity.model_copy(update={"description": _cut(description, room)})
            cost = estimate_tokens(_entity_line(entity)) + 1
            truncated = True
        used += cost
        names[entity.entity_id] = entity.name
        packed_entities.append(entity)

        links = [
            r
            for r in by_node.get(entity.entity_id, ())
            if r.source_id in names and r.target_id in names and id(r) not in seen
        ]
        links.sort(key=lambda r: (-r.weight, r.source_id, r.target_id, r.type, r.description))
        for rel in links:
            seen.add(id(rel))
            cut = rel.model_copy(
                update={
                    "description": _cut(rel.description, limits.description_chars),
                    "evidence": [],
                }
            )
            evidence = [_cut(s, limits.evidence_chars) for s in rel.evidence[: limits.evidence]]
            cost = sum(estimate_tokens(line) + 1 for line in _relation_lines(cut, names))
            if used + cost > limits.budget:
                truncated = True
                continue
            used += cost
            n_evidence = 0
            if evidence:
                first_cost = estimate_tokens(_evidence_line(evidence[0])) + 1
                if used + first_cost <= limits.budget:
                    used += first_cost
                    n_evidence = 1
            packed_relations.append((cut, evidence, n_evidence))

    # Leftover budget: further evidence, heaviest relations first.
    order = sorted(
        range(len(packed_relations)),
        key=lambda i: (-packed_relations[i][0].weight, i),
    )
    for i in order:
        rel, evidence, n_evidence = packed_relations[i]
        while n_evidence < len(evidence):
            cost = estimate_tokens(_evidence_line(evidence[n_evidence])) + 1
            if used + cost > limits.budget:
                break
            used += cost
            n_evidence += 1
        packed_relations[i] = (rel, evidence, n_evidence)

    final_relations = []
    for rel, evidence, n_evidence in packed_relations:
        if n_evidence < len(evidence):
            truncated = True
        final_relations.append(rel.model_copy(update={"evidence": evidence[:n_evidence]}))
    context = CommunityContext(
        community_id=record.community_id,
        level=record.level,
        size=record.size,
        entities=packed_entities,
        relations=final_relations,
        truncated=truncated,
    )
    context.token_estimate = estimate_tokens(context.render())
    return context


@runtime_checkable
class Summarizer(Protocol):
    """Anything that turns community contexts into reports."""

    def summarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Reports by community id (a community that failed may be missing)."""
        ...

    async def asummarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Async :meth:`summarize`."""
        ...


class ExtractiveSummarizer:
    """Offline community reports built from the context itself; deterministic.

    * title: the names of the top entities by weighted degree;
    * summary: size, the central entities with their types, the heaviest relations and one
      representative evidence sentence;
    * findings: the heaviest relations, as their description or best evidence sentence;
    * rating: ``1.5·ln(1 + size) + ln(1 + internal weight)``, capped at 10.

    Args:
        title_entities: Entities named in the title.
        max_findings: Findings per report.
    """

    def __init__(self, *, title_entities: int = 3, max_findings: int = 5) -> None:
        self.title_entities = title_entities
        self.max_findings = max_findings

    def report(self, context: CommunityContext) -> CommunityReport:
        """The report of one community."""
        names = {e.entity_id: e.name for e in context.entities}
        top = context.entities[: self.title_entities]
        top_names = [e.name for e in top]
        rest = context.size - len(top_names)
        if not top_names:
            title = f"Community {context.community_id}"
        elif rest > 0:
            title = f"{', '.join(top_names)} and {rest} more"
        else:
            title = _join_names(top_names)

        central = ", ".join(f"{e.name} ({e.type})" if e.type else e.name for e in top)
        sentences = [f"A community of {context.size} entities centred on {central}."]
        relations = sorted(
            context.relations,
            key=lambda r: (-r.weight, r.source_id, r.target_id, r.type),
        )
        if relations:
            links = "; ".join(_relation_phrase(r, names) for r in relations[:3])
            sentences.append(f"Main relations: {links}.")
            evidence = next((r.evidence[0] for r in relations if r.evidence), "")
            if evidence:
                sentences.append(f'Representative evidence: "{evidence}"')
        elif top and top[0].description:
            sentences.append(top[0].description)

        findings = []
        for rel in relations[: self.max_findings]:
            text = rel.description or (rel.evidence[0] if rel.evidence else "")
            phrase = _relation_phrase(rel, names)
            findings.append(f"{phrase}: {text}" if text else f"{phrase}.")
        for entity in context.entities:
            if len(findings) >= self.max_findings:
                break
            if entity.description and not relations:
                findings.append(f"{entity.name}: {entity.description}")

        internal = sum(r.weight for r in context.relations)
        rating = 1.5 * math.log1p(context.size) + math.log1p(max(internal, 0.0))
        return CommunityReport(
            title=title,
            summary=" ".join(sentences),
            findings=findings,
            rating=round(min(10.0, rating), 1),
        )

    def summarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Reports for every context, by community id."""
        return {c.community_id: self.report(c) for c in contexts}

    async def asummarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Same as :meth:`summarize` (no I/O to wait for)."""
        return self.summarize(contexts)


def _join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _relation_phrase(rel: RelationInfo, names: Mapping[str, str]) -> str:
    src = names.get(rel.source_id, rel.source_id)
    dst = names.get(rel.target_id, rel.target_id)
    return f"{src} {rel.type.replace('_', ' ').lower()} {dst}"


class LLMSummarizer:
    """Community reports from a LangChain chat model (structured output via a tool call).

    Args:
        model: Any chat model that supports tool calling (``ChatOpenAI``, the fake in
            ``kg_rag.testing``, ...).
        cache: Response cache; keys combine ``prompt_version``, the model id and the prompt.
        max_retries: Extra attempts per community after malformed output or an error.
        concurrency: Model calls in flight at once.
        prompt_version: Part of every cache key; change it when the prompt changes.
        usage: Counts are added here (a fresh :class:`~extraction.structured.LLMUsage` if
            omitted; read it from :attr:`usage`).
        fallback: Summarizer used for a community whose LLM call failed (e.g.
            :class:`ExtractiveSummarizer`); without one, the community is left out of the
            result. Failures are recorded either way.
        backoff_s: Sleep before retrying after an exception (doubled each time).
        progress: Show a progress bar; ``None`` shows one only on a terminal.
        min_size: Communities with fewer members are summarized by ``fallback`` without a
            call (a handful of entities is read as well from their extractive summary, and on
            a passage collection most communities are that small); ``prompt_version`` then
            names the threshold, so changing it re-summarizes.
        budget: Every call reserves its share here first; a community refused by it is
            recorded as a failure (``"budget: ..."``) and summarized by ``fallback``.
        method: How structured output is asked for (see
            :data:`~extraction.structured.StructuredMethod`).
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        cache: ResponseCache | None = None,
        max_retries: int = 2,
        concurrency: int = 4,
        prompt_version: str = "community-v2",
        usage: LLMUsage | None = None,
        fallback: Summarizer | None = None,
        backoff_s: float = 0.5,
        progress: bool | None = None,
        min_size: int = 1,
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
            usage=usage,
            progress=progress,
        )
        self.model = model
        self.min_size = max(1, min_size)
        self.prompt_version = (
            prompt_version if self.min_size == 1 else f"{prompt_version}|min{self.min_size}"
        )
        self.usage: LLMUsage = self.runtime.usage
        self.fallback = fallback
        self.failures: list[SummaryFailure] = []
        """Every community that could not be summarized, across calls, in order."""

    def messages(self, context: CommunityContext) -> list[BaseMessage]:
        """The prompt sent for ``context``."""
        return [
            SystemMessage(content=COMMUNITY_PROMPT),
            HumanMessage(content=f"Write the community report for:\n\n{context.render()}"),
        ]

    async def asummarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Reports by community id; failures go to :attr:`failures` (and the fallback).

        Args:
            contexts: Communities to summarize.

        Returns:
            ``{community_id: report}`` for every community that was summarized.
        """
        small = [c for c in contexts if c.size < self.min_size]
        if small and self.fallback is None:
            small = []  # nothing to summarize them without a call: they get one
        todo = [c for c in contexts if c.size >= self.min_size or not small]
        done = await self.runtime.amap(todo, self._one, desc="community reports")
        reports: dict[str, CommunityReport] = {}
        failed: list[CommunityContext] = list(small)
        for context, report in zip(todo, done, strict=True):
            if report is None:
                failed.append(context)
            else:
                reports[context.community_id] = report
        if failed and self.fallback is not None:
            reports.update(await self.fallback.asummarize(failed))
        # as_completed yields in completion order; give callers a stable order.
        return {
            c.community_id: reports[c.community_id] for c in contexts if c.community_id in reports
        }

    def summarize(self, contexts: Sequence[CommunityContext]) -> dict[str, CommunityReport]:
        """Synchronous :meth:`asummarize` (also works inside Jupyter's running loop)."""
        return run_sync(lambda: self.asummarize(contexts))

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache (the runtime's)."""
        return self.runtime.cache

    @property
    def budget(self) -> CallBudget | None:
        """The call/token budget (the runtime's)."""
        return self.runtime.budget

    async def _one(self, context: CommunityContext) -> CommunityReport | None:
        messages = self.messages(context)
        report = await self.runtime.atry(
            CommunityReport,
            messages,
            key=self.runtime.key(self.prompt_version, messages),
            purpose="community summary",
        )
        if isinstance(report, CallFailure):  # one community never sinks the batch
            self._record(context, report.error, report.attempts)
            return None
        return report

    def _record(self, context: CommunityContext, error: str, attempts: int) -> None:
        logger.warning("community %s not summarized: %s", context.community_id, error[:200])
        self.failures.append(
            SummaryFailure(community_id=context.community_id, error=error, attempts=attempts)
        )
