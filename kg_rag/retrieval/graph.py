"""The graph route: link a step's entities, expand them with templated graph queries, and rank
supporting chunks by personalized PageRank mass.

Linking tries, in order: exact normalized name, alias, and the store's full-text lookup for
capitalised spans that matched nothing. Every store call is recorded as a
:class:`~kg_rag.answer.trace.CypherCall` with the Cypher text the Neo4j store runs for it (the
embedded store answers the same templates in memory), so a trace can be replayed in Neo4j.
"""

from __future__ import annotations

import heapq
import math
import re
import threading
import time
from collections.abc import Callable, Container, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from extraction.language import HAN, generation, normalize_name
from kg_rag.answer.trace import CypherCall
from kg_rag.models import Entity, Evidence
from kg_rag.stores.base import GraphStore
from kg_rag.stores.chunks import LanceChunkStore

__all__ = ["EntityLinker", "GraphRetriever", "LinkedEntity"]

T = TypeVar("T")
# PPR scores, chunk scores, entity → chunks, hub → reached chunks, the calls that made them.
_Spread = tuple[
    dict[str, float], dict[str, float], dict[str, list[str]], dict[str, list[str]], list[CypherCall]
]

_TOKEN = re.compile(f"[\\w][\\w\\-.'’]*|[{HAN}]")
_CAPITAL_SPAN = re.compile(
    r"(?:[A-Z][\w\-.'’]*)(?:\s+(?:of|the|de|von|van|and)?\s*[A-Z][\w\-.'’]*)*"
)
_CJK = re.compile(f"[{HAN}]")
_STOP_KEYS = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "and",
        "or",
        "is",
        "was",
        "who",
        "what",
        "when",
        "where",
        "which",
        "how",
        "many",
        "much",
        "did",
        "does",
        "do",
        "name",
        "first",
    ]
)
_MAX_NGRAM = 8


def _content_keys(*names: str) -> set[str]:
    """The normalized words of ``names`` that are not function words (Chinese names whole)."""
    keys: set[str] = set()
    for name in names:
        norm = normalize_name(name)
        if _CJK.search(norm):
            keys.add(norm)
        else:
            keys.update(norm.split())
    return keys - _STOP_KEYS


_HUB_CHUNKS = 200  # bench/scale.py; musique-dev has 2 entities above it (of 14k)
_CACHE_ENTITIES = 100_000  # entities / mention counts a linker keeps before starting afresh
_PPR_TOL = 1e-7  # ranking of the top few hundred entities is settled long before 1e-13
_PPR_DAMPING = 0.85
# Forward-push threshold (bench/scale.py): the walk expands only nodes holding more than this
# residual mass per neighbour, so PPR costs about the same on a graph of 10k entities as on
# one of a million (whole-graph power iteration grew with it). On musique-dev the top 50
# entities agree with exact PPR to ~94% at 1e-5, ~99% at 1e-6.
_PPR_EPSILON = 1e-5
# Seed weighting (bench/fusion_tune.py, PPR R@5 alone, musique-dev / 2wiki-dev): a span
# written all in lower case ("director", "place of birth", "father") names a common noun, not
# an entity the question is about; seeding it like a name sends PPR mass to hub passages
# (x1: .549 / .708; x0.1: .646 / .797; x0: .661 / .807). Applied only when the text also
# links a capitalised span, so a question typed all in lower case keeps its seeds.
_COMMON_NOUN_WEIGHT = 0.0


def _common_noun(span: str) -> bool:
    """A Latin-script span with no capital letter and no digit (CJK has no case: never)."""
    return not _CJK.search(span) and not any(ch.isupper() or ch.isdigit() for ch in span)


class LinkedEntity(BaseModel):
    """An entity found in a query."""

    entity_id: str
    name: str
    type: str
    method: str
    span: str
    weight: float


def _cypher_for(name: str, params: dict[str, Any]) -> str:
    """The Cypher the Neo4j store runs for a templated operation (the embedded store answers
    the same templates in memory), so a trace can be replayed in Neo4j Browser."""
    from kg_rag.stores import queries as q

    if name == "neighbourhood":
        return "\n// then\n".join(
            [q.NEIGHBOUR_IDS_LIMITED.strip(), q.GET_ENTITIES.strip(), q.INDUCED_RELATIONS.strip()]
        )
    if name == "neighbour_ids":
        return q.NEIGHBOUR_IDS_LIMITED.strip()
    if name == "paths":
        return q.paths_query(int(params.get("max_hops", 3))).strip()
    if name == "ppr_adjacency":
        return "\n// then\n".join([q.NEIGHBOUR_IDS.strip(), q.INDUCED_EDGES.strip()])
    if name == "chunks_for_entities":
        return q.CHUNKS_FOR_ENTITIES.strip()
    if name == "mention_counts":
        return q.MENTION_COUNTS.strip()
    if name == "entities_for_chunks":
        return q.ENTITIES_FOR_CHUNKS.strip()
    return ""


class EntityLinker:
    """Finds knowledge-graph entities in free text (English n-grams, Chinese character spans).

    Every candidate span of the text (n-grams of up to 8 tokens; in Chinese runs, every
    2–12 character substring) is looked up at once through the store's name index
    (:meth:`~kg_rag.stores.base.GraphStore.entities_named`), so linking costs the same on a
    graph of a hundred entities as on one of a million; no entity is loaded that the text
    does not name. Stores without that index fall back to loading every entity once.
    """

    def __init__(
        self,
        graph: GraphStore,
        embed: Callable[[str], list[float]] | None = None,
        vector_threshold: float = 0.85,
    ) -> None:
        """Args:
        graph: the graph store.
        embed: embeds a span for vector linking (used only when entities carry vectors).
        vector_threshold: cosine similarity a vector match needs.
        """
        self.graph = graph
        self.embed = embed
        self.vector_threshold = vector_threshold
        self._has_vectors: bool | None = None
        self._full_index: dict[str, list[str]] | None = None  # stores without entities_named
        self._entities: dict[str, Entity] = {}  # entities seen by lookups (bounded below)
        self._mention_counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget cached entities and counts (call after the graph changed)."""
        with self._lock:
            self._full_index = None
            self._entities = {}
            self._mention_counts = {}
            self._has_vectors = None

    def _remember(self, entities: Sequence[Entity]) -> None:
        if len(self._entities) > _CACHE_ENTITIES:
            self._entities = {}
        for e in entities:
            self._entities[e.entity_id] = e

    def _lookup(self, keys: set[str], into: dict[str, Entity]) -> dict[str, list[str]]:
        """normalized span → sorted ids of the entities it names (name or alias); the
        entities go into ``into`` (and the cache)."""
        keys = {k for k in keys if k and k not in _STOP_KEYS}
        if not keys:
            return {}
        lookup = getattr(self.graph, "entities_named", None)
        if lookup is None:
            whole = self._whole_index()
            index = {k: whole[k] for k in sorted(keys) if k in whole}
            into.update({e: self._entities[e] for ids in index.values() for e in ids})
            return index
        found: list[Entity] = lookup(sorted(keys))
        with self._lock:
            self._remember(found)
        into.update({e.entity_id: e for e in found})
        index = {}
        for e in found:
            for name in [e.name, *e.aliases]:
                key = normalize_name(name)
                if key in keys and e.entity_id not in index.get(key, ()):
                    index.setdefault(key, []).append(e.entity_id)
        return {k: sorted(v) for k, v in index.items()}

    def is_name(self, text: str) -> bool:
        """Does the graph hold ``text`` (normalised) as an entity's name or alias?"""
        return bool(self._lookup({normalize_name(text)}, {}))

    def _whole_index(self) -> dict[str, list[str]]:
        with self._lock:
            if self._full_index is None:
                index: dict[str, list[str]] = {}
                entities = self.graph.all_entities()
                self._entities = {e.entity_id: e for e in entities}
                for e in entities:
                    for name in [e.name, *e.aliases]:
                        key = normalize_name(name)
                        if key and key not in _STOP_KEYS:
                            index.setdefault(key, []).append(e.entity_id)
                self._full_index = index
            return self._full_index

    def _vector_match(self, span: str) -> list[str]:
        """The entity whose name vector is closest to ``span``'s, above the threshold."""
        return [e.entity_id for e in self._vector_entities(span)]

    def _vector_entities(self, span: str) -> list[Entity]:
        if self.embed is None:
            return []
        if self._has_vectors is None:
            probe = getattr(self.graph, "has_entity_vectors", None)
            if probe is not None:
                self._has_vectors = bool(probe())
            else:
                sample = [e.entity_id for e in self.graph.all_entities()[:50]]
                self._has_vectors = any(e.vector for e in self.graph.get_entities(sample))
        if not self._has_vectors:
            return []
        best = self.graph.similar_entities(self.embed(span), limit=1)
        matched = [(e, score) for e, score in best if score >= self.vector_threshold]
        with self._lock:
            self._remember([e for e, _ in matched])
        return [e for e, _ in matched]

    def entity(self, entity_id: str) -> Entity | None:
        """An entity by id (cached once seen)."""
        found = self._entities.get(entity_id)
        if found is None:
            stored = self.graph.get_entities([entity_id])
            if stored:
                found = stored[0].model_copy(update={"vector": None})
                with self._lock:
                    self._remember([found])
        return found

    def names(self) -> dict[str, str]:
        """entity id → name for every entity (loads them all: for small graphs and tests)."""
        return {e.entity_id: e.name for e in self.graph.all_entities()}

    def _weights(self, ids: Sequence[str]) -> dict[str, float]:
        """Rarer entities weigh more (1 / log(2 + chunks mentioning them))."""
        missing = [i for i in ids if i not in self._mention_counts]
        if missing:
            if len(self._mention_counts) > _CACHE_ENTITIES:
                self._mention_counts = {}
            self._mention_counts.update(_mention_counts(self.graph, missing))
        return {i: 1.0 / math.log(2 + self._mention_counts.get(i, 0)) for i in ids}

    def _ngram_keys(self, tokens: Sequence[str]) -> set[str]:
        keys: set[str] = set()
        for n in range(min(_MAX_NGRAM, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                joiner = "" if _CJK.search(tokens[i]) else " "
                keys.add(normalize_name(joiner.join(tokens[i : i + n])))
        return keys

    def link(self, text: str, limit: int = 12) -> list[LinkedEntity]:
        """Entities mentioned in ``text``, longest spans first, at most ``limit``."""
        tokens = _TOKEN.findall(text)
        found: list[tuple[str, str, str]] = []  # (entity id, span, method)
        ents: dict[str, Entity] = {}
        if _CJK.search(text):
            import jieba

            # Chinese names are matched by characters, longest first: the segmenter cuts
            # names it does not know across their boundary (欧阳/明哲出生).
            cjk_index = self._lookup(_cjk_candidates(text), ents)
            taken = [False] * len(text)
            for start, end in _cjk_name_spans(text, cjk_index):
                if any(taken[start:end]):
                    continue
                span = text[start:end]
                for eid in cjk_index[normalize_name(span)]:
                    ent = ents[eid]
                    method = (
                        "exact" if normalize_name(ent.name) == normalize_name(span) else "alias"
                    )
                    found.append((eid, span, method))
                taken[start:end] = [True] * (end - start)
            tokens = [
                w
                for w, a, b in jieba.tokenize(text)
                if w.strip() and not any(taken[a:b]) and not _CJK.search(w)
            ]
        index = self._lookup(self._ngram_keys(tokens), ents)
        used = [False] * len(tokens)
        for n in range(min(_MAX_NGRAM, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if any(used[i : i + n]):
                    continue
                joiner = "" if _CJK.search(tokens[i]) else " "
                span = joiner.join(tokens[i : i + n])
                key = normalize_name(span)
                if (
                    not key
                    or key in _STOP_KEYS
                    or (n == 1 and len(key) < 3 and not _CJK.search(key))
                    or all(normalize_name(t) in _STOP_KEYS for t in tokens[i : i + n])
                ):
                    continue
                ids = index.get(key)
                if not ids:
                    continue
                for eid in ids:
                    ent = ents[eid]
                    method = "exact" if normalize_name(ent.name) == key else "alias"
                    found.append((eid, span, method))
                for j in range(i, i + n):
                    used[j] = True
        covered = " ".join(span for _, span, _ in found)
        for m in _CAPITAL_SPAN.finditer(text):
            span = m.group(0)
            if span in covered or normalize_name(span) in _STOP_KEYS or len(span) < 3:
                continue
            matches = self.graph.find_entities(span, limit=2)
            # "Orm Vell the elder" is not "Orm Vell the younger", however many words they share.
            told = generation(span)
            words = _content_keys(span)
            matches = [
                e
                for e in matches
                # A match shares a word that names something ("Was the X" shares only "the"
                # with "Orm Vell the younger"), and "the elder" is never "the younger".
                if words & _content_keys(e.name, *e.aliases)
                and (told is None or generation(e.name) in (None, told))
            ]
            with self._lock:
                self._remember(matches)
            ents.update({e.entity_id: e for e in matches})
            for ent in matches:
                found.append((ent.entity_id, span, "fulltext"))
            if not matches:
                for ent in self._vector_entities(span):
                    ents[ent.entity_id] = ent
                    found.append((ent.entity_id, span, "vector"))
        first: dict[str, tuple[str, str, str]] = {}
        for eid, span, method in found:  # the first (longest-span) link of an entity wins
            first.setdefault(eid, (eid, span, method))
        unique = list(first.values())
        weights = self._weights([e for e, _, _ in unique])
        named = any(not _common_noun(span) for _, span, _ in unique)
        linked = [
            LinkedEntity(
                entity_id=eid,
                name=ents[eid].name if eid in ents else span,
                type=ents[eid].type if eid in ents else "",
                method=method,
                span=span,
                weight=round(
                    weights.get(eid, 1.0)
                    * (len(span) ** 0.5)
                    * (0.5 if method == "fulltext" else 1.0)
                    * (_COMMON_NOUN_WEIGHT if named and _common_noun(span) else 1.0),
                    6,
                ),
            )
            for eid, span, method in unique
        ]
        linked = [le for le in linked if le.weight > 0]
        linked.sort(key=lambda le: (-le.weight, le.entity_id))
        return linked[:limit]


def _mention_counts(graph: GraphStore, ids: Sequence[str]) -> dict[str, int]:
    """Chunks mentioning each entity, without listing them where the store can count."""
    count = getattr(graph, "mention_counts", None)
    if count is not None:
        return dict(count(ids))
    return {eid: len(chunks) for eid, chunks in graph.chunks_for_entities(ids).items()}


_CJK_RUN = re.compile(f"[{HAN}0-9A-Za-z·]+")
_CJK_NAME_MAX = 12


def _cjk_candidates(text: str) -> set[str]:
    """Normalized forms of every substring of ``text``'s Chinese runs that could be a name
    (2–12 characters, holding a Chinese character): what :func:`_cjk_name_spans` may ask."""
    keys: set[str] = set()
    for run in _CJK_RUN.finditer(text):
        a, b = run.span()
        for i in range(a, b):
            for j in range(min(b, i + _CJK_NAME_MAX), i + 1, -1):
                piece = text[i:j]
                if _CJK.search(piece):
                    keys.add(normalize_name(piece))
    return keys


def _cjk_name_spans(text: str, index: Container[str]) -> list[tuple[int, int]]:
    """(start, end) of every substring of ``text``'s Chinese runs that is a known entity name
    (2–12 characters, holding a Chinese character), longest first."""
    spans: list[tuple[int, int]] = []
    for run in _CJK_RUN.finditer(text):
        a, b = run.span()
        for i in range(a, b):
            for j in range(min(b, i + _CJK_NAME_MAX), i + 1, -1):
                piece = text[i:j]
                if _CJK.search(piece) and normalize_name(piece) in index:
                    key = normalize_name(piece)
                    if key and key not in _STOP_KEYS:
                        spans.append((i, j))
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    return spans


class GraphRetriever:
    """Graph-route retrieval: neighbourhood, paths and PPR over a :class:`GraphStore`."""

    def __init__(self, graph: GraphStore, chunks: LanceChunkStore, linker: EntityLinker) -> None:
        self.graph = graph
        self.chunks = chunks
        self.linker = linker

    def _call(
        self, calls: list[CypherCall], name: str, params: dict[str, Any], fn: Callable[[], T]
    ) -> T:
        t0 = time.perf_counter()
        result = fn()
        rows = (
            len(result) if isinstance(result, list | dict) else len(getattr(result, "entities", []))
        )
        calls.append(
            CypherCall(
                name=name,
                cypher=_cypher_for(name, params),
                params=params,
                rows=rows,
                ms=round((time.perf_counter() - t0) * 1000, 2),
                backend=self.graph.backend,
            )
        )
        return result

    def related(self, entity_ids: Sequence[str], limit: int) -> tuple[set[str], CypherCall]:
        """Entities one relation away from ``entity_ids`` (their 1-hop neighbourhood, at most
        ``limit`` relations) and the recorded call."""
        calls: list[CypherCall] = []
        ids = sorted(set(entity_ids))
        found = self._call(
            calls,
            "neighbour_ids",
            {"ids": ids, "limit": limit},
            lambda: self.graph.neighbour_ids(ids, limit=limit),
        )
        return found, calls[0]

    def _spread(self, seeds: dict[str, float], seed_ids: list[str]) -> _Spread:
        """PPR from ``seeds`` and its mass spread over the chunks mentioning the ranked
        entities: (entity → PPR score, chunk → score, entity → its chunks, hub → the reached
        chunks it mentions, the calls made)."""
        calls: list[CypherCall] = []
        ranked = self._call(
            calls,
            "ppr_adjacency",
            {"ids": seed_ids, "seeds": seeds, "damping": _PPR_DAMPING, "max_hops": 3},
            lambda: self.graph.personalized_pagerank(
                seeds,
                damping=_PPR_DAMPING,
                limit=300,
                max_hops=None,
                tol=_PPR_TOL,
                epsilon=_PPR_EPSILON,
            ),
        )
        ppr = dict(ranked)
        top_entities = [e for e, _ in ranked]
        counts = self._call(
            calls,
            "mention_counts",
            {"ids": top_entities},
            lambda: _mention_counts(self.graph, top_entities),
        )
        # Hubs (entities mentioned in more than _HUB_CHUNKS chunks) are not fanned out: their
        # mass, spread over all their chunks, is added only to the chunks the other entities
        # reach, so the work is bounded however many chunks a hub gathers as the corpus grows.
        hubs = {e: n for e, n in counts.items() if n > _HUB_CHUNKS}
        regular = [e for e in top_entities if e in counts and e not in hubs]
        chunk_map = self._call(
            calls,
            "chunks_for_entities",
            {"ids": regular},
            lambda: self.graph.chunks_for_entities(regular),
        )
        chunk_scores: dict[str, float] = {}
        for eid, chunk_ids in chunk_map.items():
            # Spread an entity's mass over the chunks that mention it, so hubs don't dominate
            # (measured on musique-dev: 1/n beats 1/sqrt(n) and plain sums).
            share = ppr.get(eid, 0.0) / max(1, len(chunk_ids))
            for cid in chunk_ids:
                chunk_scores[cid] = chunk_scores.get(cid, 0.0) + share
        hub_chunks: dict[str, list[str]] = {}
        if hubs and chunk_scores:
            # Read from the reached chunks' side: a hub's own chunk list grows with the corpus
            # (reading and sorting it was the part of this call that did), while the chunks
            # the other entities reach are bounded by those entities, each under _HUB_CHUNKS.
            reached = sorted(chunk_scores)
            mentioned = self._call(
                calls,
                "entities_for_chunks",
                {"ids": reached},
                lambda: self.graph.entities_for_chunks(reached),
            )
            for cid in reached:
                # in id order, as each chunk's sum was always taken
                for eid in mentioned.get(cid, ()):
                    if eid in hubs:
                        chunk_scores[cid] += ppr.get(eid, 0.0) / hubs[eid]
                        hub_chunks.setdefault(eid, []).append(cid)
        return ppr, chunk_scores, chunk_map, hub_chunks, calls

    def retrieve(
        self,
        linked: Sequence[LinkedEntity],
        top_k: int = 10,
        hops: int = 1,
        expand: bool = True,
        neighbourhood: bool = True,
        memo: dict[Any, Any] | None = None,
    ) -> tuple[list[Evidence], list[CypherCall], dict[str, float]]:
        """Chunks ranked by PPR mass from the linked entities.

        ``expand`` also runs the seeds' neighbourhood (unless ``neighbourhood`` is False: the
        caller reads it with :meth:`related`) and the paths between the first two seeds, for
        the trace and the Browser replay.

        ``memo`` (a dict the caller keeps for one question) holds the PPR and its spread over
        the chunks by seeds: the whole question and its steps often link the same entities
        (14% of the graph retrievals on musique-dev repeat an earlier one's seeds), and the
        ranking does not depend on ``top_k``. The calls it saves are recorded again.

        Returns (evidence, the graph calls made, entity id → PPR score).
        """
        calls: list[CypherCall] = []
        if not linked:
            return [], calls, {}
        seeds = {le.entity_id: le.weight for le in linked}
        seed_ids = sorted(seeds)
        if expand:  # the neighbourhood and paths feed the trace (and Browser replay)
            if neighbourhood:
                self._call(
                    calls,
                    "neighbourhood",
                    {"ids": seed_ids, "hops": hops, "limit": 200},
                    lambda: self.graph.neighbourhood(seed_ids, hops=hops, limit=200),
                )
            if len(seed_ids) >= 2:
                a, b = seed_ids[0], seed_ids[1]
                self._call(
                    calls,
                    "paths",
                    {"source": a, "target": b, "max_hops": 3, "limit": 5},
                    lambda: self.graph.paths(a, b, max_hops=3, limit=5),
                )
        key = tuple(sorted(seeds.items()))
        spread = memo.get(key) if memo is not None else None
        if spread is None:
            spread = self._spread(seeds, seed_ids)
            if memo is not None:
                memo[key] = spread
        ppr, chunk_scores, chunk_map, hub_chunks, spread_calls = spread
        calls.extend(c.model_copy() for c in spread_calls)  # the memo's scores are only read
        best = heapq.nsmallest(top_k, chunk_scores, key=lambda c: (-chunk_scores[c], c))
        # The entities that brought each kept chunk its mass (only the kept ones are listed).
        kept = set(best)
        chunk_entities: dict[str, list[str]] = {cid: [] for cid in best}
        for source in (chunk_map, hub_chunks):
            for eid, chunk_ids in source.items():
                for cid in chunk_ids:
                    if cid in kept:
                        chunk_entities[cid].append(eid)
        by_id = {c.chunk_id: c for c in self.chunks.get_chunks(best)}
        evidence = [
            Evidence(
                chunk_id=cid,
                doc_id=by_id[cid].doc_id,
                text=by_id[cid].text,
                score=round(chunk_scores[cid], 8),
                level=by_id[cid].level,
                char_start=by_id[cid].char_start,
                char_end=by_id[cid].char_end,
                source=by_id[cid].metadata.get("source", by_id[cid].doc_id),
                route="graph",
                entity_ids=sorted(chunk_entities[cid]),
                scores={"ppr": round(chunk_scores[cid], 8)},
            )
            for cid in best
            if cid in by_id
        ]
        return evidence, calls, dict(ppr)
