"""The community route: search community summaries at a level; map-reduce for global questions."""

from __future__ import annotations

from collections.abc import Sequence

from kg_rag.answer.offline import query_terms
from kg_rag.models import Community, Evidence
from kg_rag.stores.community_index import CommunityIndex

__all__ = ["CommunityRetriever", "map_reduce_offline"]


class CommunityRetriever:
    """Searches the community summary index (LanceDB, vectors + text)."""

    def __init__(self, index: CommunityIndex, level: int | None = None) -> None:
        self.index = index
        self.level = level

    def search(self, query: str, top_k: int = 5) -> list[Evidence]:
        """Community summaries most similar to ``query`` as evidence (route ``community``)."""
        found = self.index.search(query, level=self.level, top_k=top_k)
        return [
            Evidence(
                chunk_id=c.community_id,
                doc_id=f"community:{c.level}",
                text=f"{c.title}. {c.summary} " + " ".join(c.findings),
                score=score,
                level="document",
                source=f"community {c.community_id} (level {c.level})",
                route="community",
                entity_ids=c.members[:50],
                scores={"dense": score},
            )
            for c, score in found
        ]


def map_reduce_offline(query: str, communities: Sequence[Community], top_n: int = 5) -> list[str]:
    """Global question offline: map each community to its findings that share query terms,
    reduce by ranking the findings by overlap × community rank."""
    terms = set(query_terms(query))
    scored: list[tuple[float, str]] = []
    for c in communities:
        for finding in c.findings or [c.summary]:
            overlap = len(set(query_terms(finding)) & terms)
            if overlap:
                scored.append((overlap * (1.0 + c.rank), finding))
    if not scored:  # an overview question ("main themes"): the communities' titles are the answer
        ranked = sorted(communities, key=lambda c: (-c.rank, c.community_id))
        return [f"{c.title}." for c in ranked[:top_n] if c.title]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [f for _, f in scored[:top_n]]
