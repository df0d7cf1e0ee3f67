"""Entity resolution: chunk-level extractions in, one entity per real-world thing out.

Stages, each merge recorded as a :class:`MergeRecord`:

1. **Key** — mentions with the same :func:`~extraction.normalize.entity_key` (type + normalized
   name: case, width, punctuation, articles) are one *group*, whose id is
   :func:`~extraction.normalize.entity_id` of that key. This is not a merge; it is identity.
2. **Type wildcard** (``"type_wildcard"``) — a ``CONCEPT`` group (type unknown) joins the typed
   group with exactly the same normalized name (the most mentioned one if several).
3. **Compact name** (``"compact"``) — same type, same name without spaces ("Wal-Mart" /
   "Walmart").
4. **Alias** (``"alias"``) — a name that is the alias of exactly one other compatible entity
   (aliases come from extractions, from entities already stored, and from the ``aliases``
   table given to the resolver, which is trusted even when ambiguous).
5. **Embedding** (``"embedding"``) — names whose embeddings have cosine similarity ≥
   ``threshold``, same type only. Up to ``full_matrix_limit`` entities of a type are compared
   all against all (a numpy matrix in row blocks); above that only names sharing a word are
   compared, to stay fast.

Types are **never** merged across incompatible types: equal canonical types are compatible, and
``CONCEPT`` is a wildcard only for exact-name (stages 2 and 4) matches.

The kept entity of a merge is: an already stored entity, else a typed one over ``CONCEPT``,
else the more mentioned, else the smaller id. The result keeps the layer before merges
(``groups``, ``group_relations``), so :meth:`EntityResolver.unmerge` undoes any one merge
exactly.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from extraction.errors import ResolutionError
from extraction.normalize import (
    WILDCARD_TYPES,
    compact_name,
    entity_id,
    normalize_name,
    normalize_type,
    subject_name,
)
from extraction.schema import ChunkExtraction

__all__ = [
    "EntityResolver",
    "MergeReason",
    "MergeRecord",
    "ResolutionResult",
    "ResolvedEntity",
    "ResolvedRelation",
    "harmonise_subject_types",
    "stored_lookup_keys",
    "types_compatible",
]

logger = logging.getLogger(__name__)

MergeReason = Literal["type_wildcard", "compact", "alias", "embedding"]
EmbedFn = Callable[[list[str]], list[list[float]]]

_MAX_DESCRIPTION = 1000
_MAX_BLOCK = 200  # names sharing a word this common are not compared by that word


class ResolvedEntity(BaseModel):
    """An entity after resolution.

    Attributes:
        entity_id: ``e_`` + sha1 of the kept group's type and normalized name.
        name: Display name (the most frequent surface form of the kept group).
        type: Canonical type.
        aliases: Other surface forms, sorted.
        description: Distinct descriptions joined, at most 1,000 characters.
        mentions: Sorted chunk ids that mention it.
    """

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list)
    description: str = ""
    mentions: list[str] = Field(default_factory=list)


class ResolvedRelation(BaseModel):
    """A relation between resolved entities, with the chunks that support it.

    Attributes:
        weight: Sum of the extracted strengths over its evidence.
        evidence: Sorted chunk ids.
    """

    model_config = ConfigDict(extra="forbid")

    source_id: str
    target_id: str
    type: str = "RELATED_TO"
    description: str = ""
    weight: float = 0.0
    evidence: list[str] = Field(default_factory=list)


class MergeRecord(BaseModel):
    """One merge: ``merged_id`` was folded into ``kept_id``.

    Attributes:
        reason: Which stage merged them.
        score: 1.0 for name matches, the cosine similarity for embedding merges.
        merged_snapshot: The merged entity as it was just before the merge.
    """

    model_config = ConfigDict(extra="forbid")

    kept_id: str
    merged_id: str
    reason: MergeReason
    score: float
    merged_snapshot: ResolvedEntity


class ResolutionResult(BaseModel):
    """What :meth:`EntityResolver.resolve` returns.

    Attributes:
        entities: Resolved entities touched by the new extractions, sorted by id (stored
            entities that nothing new touched are not repeated).
        relations: Relations between them, sorted by (source, type, target).
        merges: Every merge, in the order made.
        id_map: Group id (pre-merge) → resolved entity id.
        groups: The entities before merges (one per exact key), kept for :meth:`unmerge`.
        group_relations: The relations before merges.
        existing_ids: Ids of the stored entities passed in.
        new_ids: Group ids seen in the extractions.
    """

    model_config = ConfigDict(extra="forbid")

    entities: list[ResolvedEntity] = Field(default_factory=list)
    relations: list[ResolvedRelation] = Field(default_factory=list)
    merges: list[MergeRecord] = Field(default_factory=list)
    id_map: dict[str, str] = Field(default_factory=dict)
    groups: list[ResolvedEntity] = Field(default_factory=list)
    group_relations: list[ResolvedRelation] = Field(default_factory=list)
    existing_ids: list[str] = Field(default_factory=list)
    new_ids: list[str] = Field(default_factory=list)

    def mention_pairs(self) -> list[tuple[str, str]]:
        """Sorted ``(entity_id, chunk_id)`` provenance pairs."""
        return sorted((e.entity_id, c) for e in self.entities for c in e.mentions)


def harmonise_subject_types(
    extractions: Sequence[ChunkExtraction], titles: dict[str, str]
) -> list[ChunkExtraction]:
    """One type for a document's subject across its chunks: the type of its first chunk
    that types it.

    A page's lead defines its subject ("Averholt Air is a regional airline"); a later chunk
    read alone may guess otherwise (a "he" there is the founder) and, typed apart, the
    subject would become two entities. ``extractions`` are in document order;
    ``titles`` maps a document id to its title. Returns the extractions, the subject's
    entities retyped where they disagreed (copies; the others as given)."""
    lead: dict[str, str] = {}
    out: list[ChunkExtraction] = []
    for x in extractions:
        title = titles.get(x.doc_id, "")
        key = normalize_name(subject_name(title)) if title else ""
        if not key:
            out.append(x)
            continue
        changed = False
        entities = []
        for e in x.entities:
            kind = normalize_type(e.type)
            if normalize_name(e.name) == key and kind not in WILDCARD_TYPES:
                first = lead.setdefault(x.doc_id, e.type)
                if normalize_type(first) != kind:
                    e = e.model_copy(update={"type": first})
                    changed = True
            entities.append(e)
        out.append(x.model_copy(update={"entities": entities}) if changed else x)
    return out


def types_compatible(a: str, b: str, *, exact_name: bool) -> bool:
    """Whether entities of types ``a`` and ``b`` may be merged.

    Equal canonical types always may; a wildcard type (``CONCEPT``) may join any type only
    when the names match exactly (``exact_name``).
    """
    a, b = normalize_type(a), normalize_type(b)
    if a == b:
        return True
    return exact_name and (a in WILDCARD_TYPES or b in WILDCARD_TYPES)


def stored_lookup_keys(
    extractions: Sequence[ChunkExtraction], aliases: dict[str, str] | None = None
) -> tuple[list[str], list[str]]:
    """The keys that find every stored entity :meth:`EntityResolver.resolve` could join or
    merge with these extractions, so a caller can pass those instead of every stored entity.

    Returns:
        ``(names, compact)``: the normalized names and aliases of the extracted entities
        (and, for a trusted alias table, the canonical names they point to), and the compact
        forms of their names. A stored entity matters to the resolver only when its name or
        an alias is one of ``names`` (same id, type wildcard, alias stages: stored entities are
        never merged with each other, so an alias only they share cannot link anything new)
        or its name's compact form is one of ``compact`` (compact stage). With the default
        ``embed=None`` the result is the same as resolving against every stored entity.
    """
    table = {normalize_name(k): normalize_name(v) for k, v in (aliases or {}).items() if k and v}
    names: set[str] = set()
    compact: set[str] = set()
    for extraction in extractions:
        if extraction.error is not None:
            continue
        for entity in extraction.entities:
            for raw in (entity.name, *entity.aliases):
                key = normalize_name(raw)
                if key:
                    names.add(key)
                    if key in table:
                        names.add(table[key])
            if normalize_name(entity.name):
                compact.add(compact_name(entity.name))
    names |= {k for k, v in table.items() if v in names}
    return sorted(names), sorted(compact)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, item: str) -> str:
        parent = self.parent.setdefault(item, item)
        if parent != item:
            parent = self.parent[item] = self.find(parent)
        return parent

    def union(self, kept: str, merged: str) -> None:
        self.parent[self.find(merged)] = self.find(kept)


def _merge_texts(parts: Iterable[str], limit: int = _MAX_DESCRIPTION) -> str:
    seen: set[str] = set()
    kept: list[str] = []
    size = 0
    for part in parts:
        text = " ".join(part.split())
        key = text.casefold()
        if not text or key in seen:
            continue
        if size + len(text) + 1 > limit:
            break
        seen.add(key)
        kept.append(text)
        size += len(text) + 1
    return " ".join(kept)


def _group_entity(members: list[ResolvedEntity], root: ResolvedEntity) -> ResolvedEntity:
    """The entity a set of groups makes, named and identified after ``root``."""
    kind = root.type
    if kind in WILDCARD_TYPES:
        typed = Counter(m.type for m in members if m.type not in WILDCARD_TYPES)
        if typed:
            kind = sorted(typed.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    root_key = normalize_name(root.name)
    aliases: dict[str, str] = {}
    for member in members:
        for name in (member.name, *member.aliases):
            key = normalize_name(name)
            if key and key != root_key and key not in aliases:
                aliases[key] = name
            elif key == root_key and name != root.name and name not in aliases.values():
                aliases[f"{key}\x00{name}"] = name  # another spelling of the same key
    ordered = [root, *sorted((m for m in members if m is not root), key=lambda m: m.entity_id)]
    return ResolvedEntity(
        entity_id=root.entity_id,
        name=root.name,
        type=kind,
        aliases=sorted(set(aliases.values())),
        description=_merge_texts(m.description for m in ordered),
        mentions=sorted({c for m in members for c in m.mentions}),
    )


class EntityResolver:
    """Resolve extracted entities into unique entities and merged relations.

    Args:
        embed: Optional function from names to vectors (e.g. a LangChain embedder's
            ``embed_documents``); enables the embedding stage.
        threshold: Cosine similarity at or above which two same-type names merge.
        aliases: Trusted alias → canonical name table (any spelling; normalized here).
        full_matrix_limit: Above this many entities of one type, embedding candidates are
            only compared when their names share a word.

    Example:
        >>> from extraction.schema import ChunkExtraction, ExtractedEntity
        >>> chunks = [
        ...     ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name="IBM", type="ORG")]),
        ...     ChunkExtraction(chunk_id="c2", entities=[ExtractedEntity(name="I.B.M.", type="org")]),
        ... ]
        >>> [(e.name, e.type, e.mentions) for e in EntityResolver().resolve(chunks).entities]
        [('IBM', 'ORGANIZATION', ['c1', 'c2'])]
    """

    def __init__(
        self,
        embed: EmbedFn | None = None,
        threshold: float = 0.9,
        aliases: dict[str, str] | None = None,
        *,
        full_matrix_limit: int = 4000,
    ) -> None:
        self.embed = embed
        self.threshold = threshold
        self.aliases = {
            normalize_name(k): normalize_name(v) for k, v in (aliases or {}).items() if k and v
        }
        self.full_matrix_limit = full_matrix_limit

    # -- public ----------------------------------------------------------------------------
    def resolve(
        self,
        extractions: Sequence[ChunkExtraction],
        existing: Sequence[ResolvedEntity] = (),
    ) -> ResolutionResult:
        """Group, merge and relate the entities of ``extractions``.

        Args:
            extractions: Per-chunk results (failed ones, with ``error`` set, are skipped).
            existing: Entities already stored; new mentions join them, and they are always
                the kept side of a merge.

        Returns:
            The resolved entities and relations, the merges, and the pre-merge layer.
        """
        groups, group_relations, new_ids = self._groups(extractions, existing)
        existing_ids = sorted({e.entity_id for e in existing})
        merges = self._find_merges(groups, set(existing_ids))
        return self._materialize(groups, group_relations, merges, existing_ids, new_ids)

    def unmerge(self, result: ResolutionResult, record: MergeRecord) -> ResolutionResult:
        """Undo one merge of ``result`` (later merges stay).

        Args:
            result: A result of :meth:`resolve` (or of an earlier ``unmerge``).
            record: One of ``result.merges``.

        Returns:
            A new result in which ``record.merged_id`` is an entity of its own again, with its
            own mentions, aliases and relations.

        Raises:
            ResolutionError: ``record`` is not one of ``result.merges``.
        """
        remaining = [
            m
            for m in result.merges
            if not (m.kept_id == record.kept_id and m.merged_id == record.merged_id)
        ]
        if len(remaining) == len(result.merges):
            raise ResolutionError(
                f"No merge of {record.merged_id} into {record.kept_id} in this result; pass a "
                "record from result.merges."
            )
        groups = {g.entity_id: g for g in result.groups}
        return self._materialize(
            groups, result.group_relations, remaining, result.existing_ids, result.new_ids
        )

    # -- grouping --------------------------------------------------------------------------
    def _groups(
        self, extractions: Sequence[ChunkExtraction], existing: Sequence[ResolvedEntity]
    ) -> tuple[dict[str, ResolvedEntity], list[ResolvedRelation], list[str]]:
        surface: dict[str, Counter[str]] = defaultdict(Counter)
        kinds: dict[str, str] = {}
        descriptions: dict[str, list[str]] = defaultdict(list)
        alias_names: dict[str, list[str]] = defaultdict(list)
        mentions: dict[str, set[str]] = defaultdict(set)
        relation_acc = _RelationAcc()
        for extraction in extractions:
            if extraction.error is not None:
                continue
            local: dict[str, str] = {}
            for entity in extraction.entities:
                key = normalize_name(entity.name)
                if not key:
                    continue
                kind = normalize_type(entity.type)
                gid = entity_id(entity.name, kind)
                kinds[gid] = kind
                surface[gid][entity.name] += 1
                descriptions[gid].append(entity.description)
                alias_names[gid].extend(entity.aliases)
                mentions[gid].add(extraction.chunk_id)
                local.setdefault(key, gid)
                for alias in entity.aliases:
                    local.setdefault(normalize_name(alias), gid)
            for relation in extraction.relations:
                source = local.get(normalize_name(relation.source))
                target = local.get(normalize_name(relation.target))
                if source is None or target is None or source == target:
                    continue
                relation_acc.add(
                    source,
                    target,
                    relation.type or "RELATED_TO",
                    relation.description,
                    relation.strength,
                    [extraction.chunk_id],
                )
        groups: dict[str, ResolvedEntity] = {}
        for stored in existing:
            groups[stored.entity_id] = stored.model_copy(deep=True)
        for gid, names in surface.items():
            # The most frequent spelling; on a tie the shorter ("IBM" over "I.B.M."); a
            # spelling in lower case only (a file's name as its title: "ansel_dray") last.
            name = sorted(
                names.items(), key=lambda kv: (kv[0].islower(), -kv[1], len(kv[0]), kv[0])
            )[0][0]
            new = ResolvedEntity(
                entity_id=gid,
                name=name,
                type=kinds[gid],
                aliases=sorted({*names, *alias_names[gid]} - {name}),
                description=_merge_texts(descriptions[gid]),
                mentions=sorted(mentions[gid]),
            )
            if gid in groups:  # an already stored entity seen again
                new = _group_entity([groups[gid], new], groups[gid])
            groups[gid] = new
        return groups, relation_acc.relations(), sorted(surface)

    # -- merging ---------------------------------------------------------------------------
    def _find_merges(
        self, groups: dict[str, ResolvedEntity], existing: set[str]
    ) -> list[MergeRecord]:
        uf = _UnionFind()
        merges: list[MergeRecord] = []
        members: dict[str, list[str]] = {gid: [gid] for gid in groups}

        def rank(gid: str) -> tuple[int, int, int, str]:
            g = groups[gid]
            return (
                0 if gid in existing else 1,
                1 if g.type in WILDCARD_TYPES else 0,
                -len(g.mentions),
                gid,
            )

        def merge(a: str, b: str, reason: MergeReason, score: float) -> None:
            ra, rb = uf.find(a), uf.find(b)
            if ra == rb:
                return
            if ra in existing and rb in existing:
                return  # stored entities are not merged with each other here
            kept, merged = sorted((ra, rb), key=rank)
            snapshot = _group_entity([groups[m] for m in members[merged]], groups[merged])
            uf.union(kept, merged)
            members[kept].extend(members.pop(merged))
            merges.append(
                MergeRecord(
                    kept_id=kept,
                    merged_id=merged,
                    reason=reason,
                    score=round(score, 4),
                    merged_snapshot=snapshot,
                )
            )

        by_name: dict[str, list[str]] = defaultdict(list)
        for gid in sorted(groups):
            by_name[normalize_name(groups[gid].name)].append(gid)

        # 2. CONCEPT joins the typed entity of exactly the same name.
        for gids in by_name.values():
            typed = sorted((g for g in gids if groups[g].type not in WILDCARD_TYPES), key=rank)
            if typed:
                for gid in gids:
                    if groups[gid].type in WILDCARD_TYPES:
                        merge(typed[0], gid, "type_wildcard", 1.0)

        # 3. Same type, same name without spaces.
        by_compact: dict[tuple[str, str], list[str]] = defaultdict(list)
        for gid in sorted(groups):
            by_compact[(groups[gid].type, compact_name(groups[gid].name))].append(gid)
        for gids in by_compact.values():
            for gid in gids[1:]:
                merge(gids[0], gid, "compact", 1.0)

        # 4. Aliases: the trusted table, then aliases that point to exactly one entity.
        self._alias_merges(groups, by_name, uf, merge)

        # 5. Embedding similarity within a type.
        if self.embed is not None:
            for a, b, score in self._embedding_pairs(groups, uf):
                merge(a, b, "embedding", score)
        return merges

    def _alias_merges(
        self,
        groups: dict[str, ResolvedEntity],
        by_name: dict[str, list[str]],
        uf: _UnionFind,
        merge: Callable[[str, str, MergeReason, float], None],
    ) -> None:
        for name_key, gids in sorted(by_name.items()):
            canonical = self.aliases.get(name_key)
            if canonical is None or canonical == name_key:
                continue
            for gid in gids:
                targets = [
                    t
                    for t in by_name.get(canonical, [])
                    if types_compatible(groups[gid].type, groups[t].type, exact_name=True)
                ]
                if targets:
                    merge(targets[0], gid, "alias", 1.0)
        alias_owners: dict[str, set[str]] = defaultdict(set)
        for gid in sorted(groups):
            for alias in groups[gid].aliases:
                key = normalize_name(alias)
                if key and key != normalize_name(groups[gid].name):
                    alias_owners[key].add(gid)
        for key, owners in sorted(alias_owners.items()):
            roots = {uf.find(o) for o in owners}
            if len(roots) != 1:
                continue  # ambiguous short form ("Bush"): leave it alone
            owner = sorted(owners)[0]
            for gid in by_name.get(key, []):
                if types_compatible(groups[gid].type, groups[owner].type, exact_name=True):
                    merge(owner, gid, "alias", 1.0)

    def _embedding_pairs(
        self, groups: dict[str, ResolvedEntity], uf: _UnionFind
    ) -> list[tuple[str, str, float]]:
        assert self.embed is not None
        roots = sorted({uf.find(g) for g in groups})
        by_type: dict[str, list[str]] = defaultdict(list)
        for root in roots:
            by_type[groups[root].type].append(root)
        names = [groups[r].name for r in roots]
        vectors = np.asarray(self.embed(names), dtype=np.float32) if names else np.zeros((0, 0))
        if len(vectors) != len(roots):
            raise ResolutionError(
                f"embed returned {len(vectors)} vectors for {len(roots)} names; it must return "
                "one vector per name."
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms == 0, 1.0, norms)
        row_of = {r: i for i, r in enumerate(roots)}
        pairs: dict[tuple[str, str], float] = {}
        for _kind, ids in sorted(by_type.items()):
            if len(ids) < 2:
                continue
            full = len(ids) <= self.full_matrix_limit
            blocks = [ids] if full else _word_blocks(ids, groups)
            for block in blocks:
                matrix = vectors[[row_of[g] for g in block]]
                for start in range(0, len(block), 1024):
                    sims = matrix[start : start + 1024] @ matrix.T
                    rows, cols = np.nonzero(sims >= self.threshold)
                    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
                        i = start + r
                        if i < c:
                            a, b = block[i], block[c]
                            pairs[(a, b)] = max(pairs.get((a, b), 0.0), float(sims[r, c]))
        return sorted(((a, b, s) for (a, b), s in pairs.items()), key=lambda t: (-t[2], t[0], t[1]))

    # -- output ----------------------------------------------------------------------------
    def _materialize(
        self,
        groups: dict[str, ResolvedEntity],
        group_relations: list[ResolvedRelation],
        merges: list[MergeRecord],
        existing_ids: list[str],
        new_ids: list[str],
    ) -> ResolutionResult:
        uf = _UnionFind()
        for record in merges:
            uf.union(record.kept_id, record.merged_id)
        components: dict[str, list[ResolvedEntity]] = defaultdict(list)
        for gid in sorted(groups):
            components[uf.find(gid)].append(groups[gid])
        new = set(new_ids)
        entities: list[ResolvedEntity] = []
        id_map: dict[str, str] = {}
        for root, members in sorted(components.items()):
            for member in members:
                id_map[member.entity_id] = root
            if any(m.entity_id in new for m in members):
                entities.append(_group_entity(members, groups[root]))
        # Most relations are untouched by merges: reuse them; sum up only those that merges
        # make coincide.
        mapped: dict[tuple[str, str, str], list[ResolvedRelation]] = defaultdict(list)
        for rel in group_relations:
            source, target = id_map.get(rel.source_id), id_map.get(rel.target_id)
            if source is None or target is None or source == target:
                continue
            mapped[(source, rel.type, target)].append(rel)
        acc = _RelationAcc()
        relations: list[ResolvedRelation] = []
        for (source, type_, target), rels in mapped.items():
            if len(rels) == 1 and (rels[0].source_id, rels[0].target_id) == (source, target):
                relations.append(rels[0])
                continue
            for rel in rels:
                acc.add(source, target, type_, rel.description, rel.weight, rel.evidence)
        relations.extend(acc.relations())
        relations.sort(key=lambda r: (r.source_id, r.type, r.target_id))
        return ResolutionResult(
            entities=entities,
            relations=relations,
            merges=list(merges),
            id_map=id_map,
            groups=[groups[g] for g in sorted(groups)],
            group_relations=sorted(
                group_relations, key=lambda r: (r.source_id, r.type, r.target_id)
            ),
            existing_ids=existing_ids,
            new_ids=new_ids,
        )


def _description(texts: list[str] | None) -> str:
    if not texts:
        return ""
    if len(texts) == 1:
        return " ".join(texts[0].split())[:500]
    return _merge_texts(texts, limit=500)


class _RelationAcc:
    """Relations being summed up, keyed by (source, type, target); plain data for speed."""

    def __init__(self) -> None:
        self.weights: dict[tuple[str, str, str], float] = {}
        self.evidence: dict[tuple[str, str, str], set[str]] = {}
        self.descriptions: dict[tuple[str, str, str], list[str]] = {}

    def add(
        self,
        source: str,
        target: str,
        type_: str,
        description: str,
        weight: float,
        evidence: Iterable[str],
    ) -> None:
        ident = (source, type_, target)
        self.weights[ident] = self.weights.get(ident, 0.0) + weight
        self.evidence.setdefault(ident, set()).update(evidence)
        if description:
            texts = self.descriptions.setdefault(ident, [])
            if description not in texts:
                texts.append(description)

    def relations(self) -> list[ResolvedRelation]:
        return [
            ResolvedRelation(
                source_id=ident[0],
                target_id=ident[2],
                type=ident[1],
                description=_description(self.descriptions.get(ident)),
                weight=round(weight, 6),
                evidence=sorted(self.evidence[ident]),
            )
            for ident, weight in sorted(self.weights.items())
        ]


def _word_blocks(ids: list[str], groups: dict[str, ResolvedEntity]) -> list[list[str]]:
    """Blocks of ids whose names share a word (very common words are not used)."""
    by_word: dict[str, list[str]] = defaultdict(list)
    for gid in ids:
        for word in set(normalize_name(groups[gid].name).split()):
            by_word[word].append(gid)
    blocks = {tuple(v) for v in by_word.values() if 2 <= len(v) <= _MAX_BLOCK}
    return [list(b) for b in sorted(blocks)]
