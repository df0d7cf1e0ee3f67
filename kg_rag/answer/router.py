"""Routers pick, per step, where evidence comes from and at which granularity.

:class:`RuleRouter` is deterministic and also serves offline: linked entities → graph,
overview/theme questions → community, otherwise chunks; the granularity follows the kind of
information needed (a date or number → sentence, a description → section, a whole-document
question → document). :class:`~kg_rag.answer.llm_stages.LLMRouter` asks a chat model only
where the rules abstain, and caches its decisions across questions.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from kg_rag.answer.stages import StepContext
from kg_rag.models import Granularity, RouteDecision

__all__ = ["RuleRouter", "rule_granularity"]

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

    async def aroute(self, ctx: StepContext, run: Any = None) -> RouteDecision:
        """Route ``ctx``'s step (async face of :meth:`route`)."""
        return self.route(ctx)

    def route(self, ctx: StepContext) -> RouteDecision:
        """Route a step: graph when entities are linked, community for overviews, else chunks."""
        query = ctx.query
        granularity, why = rule_granularity(query)
        if (ctx.step.kind == "global" or _GLOBAL.search(query)) and self.has_communities:
            return RouteDecision(
                route="community",
                granularity="document",
                top_k=self.top_k,
                reason="overview/theme question → community summaries",
            )
        if ctx.linked:
            names = ", ".join(le.name for le in ctx.linked[:3])
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
