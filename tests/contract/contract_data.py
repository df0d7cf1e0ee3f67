"""A small hand-made graph whose expected answers can be worked out by hand."""

from __future__ import annotations

from typing import Any

from kg_rag.models import Chunk, Community, Entity, Mention, Relation


def entities() -> list[Entity]:
    """Eight entities; ``e_island`` has no relations."""
    return [
        Entity(
            entity_id="e_alice",
            name="Alice Smith",
            type="PERSON",
            aliases=["A. Smith"],
            description="An engineer.",
            vector=[1.0, 0.0, 0.0, 0.0],
        ),
        Entity(entity_id="e_bob", name="Bob Jones", type="PERSON", vector=[0.0, 1.0, 0.0, 0.0]),
        Entity(
            entity_id="e_acme",
            name="Acme Corp",
            type="ORGANIZATION",
            aliases=["Acme", "ACME Corporation"],
            vector=[0.6, 0.8, 0.0, 0.0],
        ),
        Entity(entity_id="e_paris", name="Paris", type="LOCATION", vector=[0.0, 0.0, 1.0, 0.0]),
        Entity(entity_id="e_france", name="France", type="LOCATION", vector=[0.0, 0.0, 0.6, 0.8]),
        Entity(entity_id="e_louvre", name="Louvre", type="LOCATION", vector=[0.0, 0.0, 0.0, 1.0]),
        Entity(entity_id="e_carol", name="Carol", type="PERSON"),
        Entity(entity_id="e_island", name="Isolated Island", type="LOCATION"),
    ]


def relations() -> list[Relation]:
    """Nine relations, including a parallel pair (alice→acme) and a reversed pair (alice↔bob)."""
    return [
        Relation(
            source_id="e_alice", target_id="e_acme", type="WORKS_AT", weight=2.0, evidence=["c1"]
        ),
        Relation(
            source_id="e_alice", target_id="e_acme", type="FOUNDED", weight=1.0, evidence=["c5"]
        ),
        Relation(
            source_id="e_bob", target_id="e_acme", type="WORKS_AT", weight=1.0, evidence=["c2"]
        ),
        Relation(
            source_id="e_acme",
            target_id="e_paris",
            type="LOCATED_IN",
            weight=1.0,
            evidence=["c3", "c1"],
        ),
        Relation(
            source_id="e_paris",
            target_id="e_france",
            type="CAPITAL_OF",
            weight=3.0,
            evidence=["c3"],
        ),
        Relation(
            source_id="e_louvre",
            target_id="e_paris",
            type="LOCATED_IN",
            weight=1.0,
            evidence=["c4"],
        ),
        Relation(source_id="e_alice", target_id="e_bob", type="KNOWS", weight=0.5, evidence=["c2"]),
        Relation(source_id="e_bob", target_id="e_alice", type="KNOWS", weight=0.5, evidence=["c2"]),
        Relation(
            source_id="e_carol", target_id="e_louvre", type="VISITED", weight=1.0, evidence=["c6"]
        ),
    ]


CHUNK_DOCS = {"c1": "d1", "c2": "d1", "c3": "d2", "c4": "d2", "c5": "d3", "c6": "d3"}
CHUNK_ENTITIES = {
    "c1": ["e_alice", "e_acme", "e_paris"],
    "c2": ["e_bob", "e_acme", "e_alice"],
    "c3": ["e_acme", "e_paris", "e_france"],
    "c4": ["e_louvre", "e_paris", "e_island"],
    "c5": ["e_alice", "e_acme"],
    "c6": ["e_carol", "e_louvre"],
}


def mentions() -> list[Mention]:
    """Mentions over six chunks in three documents."""
    return [
        Mention(entity_id=e, chunk_id=c, doc_id=CHUNK_DOCS[c])
        for c, ids in CHUNK_ENTITIES.items()
        for e in ids
    ]


def communities() -> list[Community]:
    """Two level-0 communities under one level-1 community."""
    return [
        Community(
            community_id="k1",
            level=1,
            members=[e.entity_id for e in entities()],
            title="Everything",
            summary="All of it.",
            rank=2.0,
        ),
        Community(
            community_id="k0a",
            level=0,
            parent_id="k1",
            members=["e_bob", "e_alice", "e_acme"],
            title="People at Acme",
            summary="Alice and Bob work at Acme.",
            findings=["Alice founded Acme."],
            rank=1.5,
            content_hash="h0a",
            vector=[0.1, 0.2, 0.3, 0.4],
        ),
        Community(
            community_id="k0b",
            level=0,
            parent_id="k1",
            members=["e_paris", "e_france", "e_louvre", "e_ghost"],
            title="Paris",
            rank=0.5,
        ),
    ]


def chunk(chunk_id: str, text: str) -> Chunk:
    """A chunk of its document per :data:`CHUNK_DOCS`."""
    return Chunk(
        chunk_id=chunk_id,
        doc_id=CHUNK_DOCS[chunk_id],
        level="paragraph",
        ordinal=int(chunk_id[1:]),
        char_start=0,
        char_end=len(text),
        text=text,
    )


def load(store: Any) -> None:
    """Write the whole example graph."""
    store.upsert_entities(entities())
    store.upsert_relations(relations())
    store.upsert_mentions(mentions())
    store.upsert_communities(communities())
