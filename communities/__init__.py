"""Hierarchical communities of an entity graph, with summaries.

Graph in, communities and reports out; this package knows nothing of stores or of ``kg_rag``::

    records = detect_communities(graph, max_cluster_size=10, seed=42)
    contexts = build_contexts(records, entities, relations, token_budget=1500)
    reports = ExtractiveSummarizer().summarize(contexts)          # offline
    reports = LLMSummarizer(chat_model).summarize(contexts)       # any LangChain chat model

    # after a re-ingest: summarize only what changed
    update = update_communities(new_records, entities, relations, summarizer, previous=stored)

Modules: :mod:`~communities.leiden` (detection), :mod:`~communities.summarize` (contexts and
summarizers), :mod:`~communities.incremental` (hashes and update plans),
:mod:`~communities.plot` (figures), :mod:`~communities.schema` (types),
:mod:`~communities.errors` (errors).
"""

from communities.errors import CommunityError, GraphInputError, SummaryError
from communities.incremental import (
    CommunityUpdate,
    HasContentHash,
    aupdate_communities,
    fingerprint,
    fingerprint_communities,
    plan_update,
    update_communities,
)
from communities.leiden import (
    community_id,
    detect_communities,
    levels,
    modularity,
    node_membership,
)
from communities.plot import draw_communities, plot_community_sizes
from communities.schema import (
    CommunityContext,
    CommunityFingerprint,
    CommunityRecord,
    CommunityReport,
    EntityInfo,
    RelationInfo,
    SummaryFailure,
    UpdatePlan,
)
from communities.summarize import (
    COMMUNITY_PROMPT,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    build_context,
    build_contexts,
    estimate_tokens,
    group_relations,
    weighted_degrees,
)

__all__ = [
    "COMMUNITY_PROMPT",
    "CommunityContext",
    "CommunityError",
    "CommunityFingerprint",
    "CommunityRecord",
    "CommunityReport",
    "CommunityUpdate",
    "EntityInfo",
    "ExtractiveSummarizer",
    "GraphInputError",
    "HasContentHash",
    "LLMSummarizer",
    "RelationInfo",
    "Summarizer",
    "SummaryError",
    "SummaryFailure",
    "UpdatePlan",
    "aupdate_communities",
    "build_context",
    "build_contexts",
    "community_id",
    "detect_communities",
    "draw_communities",
    "estimate_tokens",
    "fingerprint",
    "fingerprint_communities",
    "group_relations",
    "levels",
    "modularity",
    "node_membership",
    "plan_update",
    "plot_community_sizes",
    "update_communities",
    "weighted_degrees",
]
