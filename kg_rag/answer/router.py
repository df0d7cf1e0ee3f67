"""Routers pick, per step, where evidence comes from and at which granularity.

:class:`RuleRouter` is deterministic and also serves offline: linked entities → graph,
overview/theme questions → community, otherwise chunks; the granularity follows the kind of
information needed (a date or number → sentence, a description → section, a whole-document
question → document). :class:`LLMRouter` asks a chat model for a :class:`RouteDecision`,
caches it by (step text, context), and falls back to the rules on failure.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

from kg_rag.models import Granularity, PlanStep, RouteDecision

__all__ = ["LLMRouter", "RouteContext", "Router", "RuleRouter"]

log = logging.getLogger(__name__)

_GLOBAL = re.compile(
    r"\b(main|overall|major|key|common|recurring)\s+(themes?|topics?|ideas?|trends?)\b|"
    r"\b(summari[sz]e|overview|in general|across (all|the) (documents|corpus))\b|"
    r"(主要|总体|概述|总结|主题|整体)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(
    r"^\s*(when|what year|what date|how many|how much|how old|how long|how far|what percentage)\b|"
    r"\b(year|date|born|died|founded|population|number of)\b|(哪一年|什么时候|多少|几)",
    re.IGNORECASE,
)
_SECTION = re.compile(
    r"^\s*(why|how does|how do|how did|explain|describe)\b|\b(history of|process|reasons?)\b|"
    r"(为什么|如何|怎样|介绍)",
    re.IGNORECASE,
)
_DOCUMENT = re.compile(
    r"\b(whole|entire) (document|article|report|book)\b|(全文|整篇)", re.IGNORECASE
)


class RouteContext(dict[str, Any]):
    """What a router may look at besides the step: linked entities, earlier answers."""


class Router(Protocol):
    """Anything that routes a step."""

    async def aroute(self, step: PlanStep, query: str, context: RouteContext) -> RouteDecision:
        """Decide the route of ``step`` (``query`` is its text with earlier answers bound)."""
        ...


def rule_granularity(query: str) -> tuple[Granularity, str]:
    """Granularity from the kind of information the query needs, with the reason."""
    if _DOCUMENT.search(query):
        return "document", "asks about a whole document"
    if _SENTENCE.search(query):
        return "sentence", "asks for a precise fact (date, number)"
    if _SECTION.search(query):
        return "section", "asks for an explanation or description"
    return "paragraph", "asks for an entity or short fact"


class RuleRouter:
    """Deterministic routing; the offline router and the LLM router's fallback."""

    name = "rules"

    def __init__(self, top_k: int = 5, has_communities: bool = True) -> None:
        self.top_k = top_k
        self.has_communities = has_communities

    async def aroute(self, step: PlanStep, query: str, context: RouteContext) -> RouteDecision:
        """Route ``step`` (async face of :meth:`route`)."""
        return self.route(step, query, context)

    def route(self, step: PlanStep, query: str, context: RouteContext) -> RouteDecision:
        """Route ``step``: graph when entities are linked, community for overviews, else chunks."""
        granularity, why = rule_granularity(query)
        if (step.kind == "global" or _GLOBAL.search(query)) and self.has_communities:
            return RouteDecision(
                route="community",
                granularity="document",
                top_k=self.top_k,
                reason="overview/theme question → community summaries",
            )
        linked = context.get("linked", [])
        if linked:
            names = ", ".join(str(e.get("name")) for e in linked[:3])
            return RouteDecision(
                route="graph",
                granularity=granularity,
                top_k=self.top_k,
                reason=f"entities linked ({names}) → graph expansion + PPR; {why}",
            )
        return RouteDecision(
            route="chunks",
            granularity=granularity,
            top_k=self.top_k,
            reason=f"no entity linked → hybrid chunk search; {why}",
        )


class LLMRouter:
    """Routes with a chat model; decisions cached by (step text, context); rules on failure."""

    name = "llm"

    def __init__(self, fallback: RuleRouter, model_key: str = "") -> None:
        """Args:
        fallback: the rule router used when the call fails or the budget is spent.
        model_key: identifies the model in the cache key (decisions of one model are reused
            across questions).
        """
        self.fallback = fallback
        self.model_key = model_key
        self._cache: dict[tuple[str, str, str], RouteDecision] = {}

    async def aroute(
        self, step: PlanStep, query: str, context: RouteContext, caller: Any = None
    ) -> RouteDecision:
        """Ask the model (through ``caller``, an :class:`~kg_rag.answer.llm.LLMCaller` that
        holds the question's budget) for a decision; cached by (step text, context)."""
        linked = ", ".join(str(e.get("name")) for e in context.get("linked", [])[:8])
        key = (self.model_key, query, linked)
        if key in self._cache:
            return self._cache[key].model_copy()
        if caller is None:
            return self.fallback.route(step, query, context)
        from kg_rag.answer.prompts import ROUTER_PROMPT

        try:
            decision: RouteDecision = await caller.structured(
                RouteDecision,
                ROUTER_PROMPT.format(
                    query=query, linked=linked or "(none)", needs=step.needs or "-"
                ),
                purpose="route",
            )
        except Exception as exc:  # the rules always have an answer
            log.info("LLM routing failed (%s); using rules", exc)
            decision = self.fallback.route(step, query, context)
            decision.reason = f"LLM router failed ({type(exc).__name__}); rules: {decision.reason}"
            return decision
        decision.router = "llm"
        decision.reason = decision.reason.strip() or "LLM router (no reason given)"
        self._cache[key] = decision
        return decision.model_copy()
