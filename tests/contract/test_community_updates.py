"""The store reads and writes the incremental community update uses, on both stores: what
changed since communities were computed, neighbourhood and community reads by id, and a
partial community write."""

from __future__ import annotations

from typing import Any

import contract_data as data
import pytest

from kg_rag.models import Community

pytestmark = pytest.mark.contract


def loaded(store: Any) -> Any:
    store.upsert_entities(data.entities())
    store.upsert_relations(data.relations())
    store.upsert_mentions(data.mentions())
    store.upsert_communities(data.communities())
    store.clear_community_changes()
    return store


def test_changes_record_written_entities_and_relation_endpoints(store: Any) -> None:
    loaded(store)
    assert store.community_changes() == ([], [])
    store.upsert_entities(data.entities())  # as stored: nothing changed
    assert store.community_changes() == ([], [])
    store.upsert_entities([data.entities()[6].model_copy(update={"description": "new"})])
    assert store.community_changes() == (["e_carol"], [])
    store.upsert_relations(
        [r for r in data.relations() if r.source_id == "e_louvre"]  # louvre → paris
    )
    assert store.community_changes() == (["e_carol", "e_louvre", "e_paris"], [])
    store.clear_community_changes(["e_carol", "e_paris"])
    assert store.community_changes() == (["e_louvre"], [])
    store.clear_community_changes()
    assert store.community_changes() == ([], [])


def test_changes_survive_reopening(store_factory: Any) -> None:
    store = loaded(store_factory())
    store.upsert_entities([data.entities()[0].model_copy(update={"description": "new"})])
    again = store_factory()
    assert again.community_changes() == (["e_alice"], [])


def test_deleting_a_document_marks_what_it_touched(store: Any) -> None:
    """d3 (c5, c6) is the only evidence of alice-FOUNDED-acme and carol-VISITED-louvre, and
    the only mention of carol: carol goes, louvre (her neighbour) and the endpoints of the
    stripped relation are marked, and so is every community carol was in."""
    loaded(store)
    store.upsert_communities(
        [*data.communities(), Community(community_id="kc", level=0, members=["e_carol", "e_bob"])]
    )
    store.clear_community_changes()
    store.delete_document("d3")
    entities, communities = store.community_changes()
    assert {"e_louvre", "e_alice", "e_acme"} <= set(entities)
    assert communities == ["k1", "kc"]


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (["e_carol"], [("e_carol", "VISITED", "e_louvre")]),
        (
            ["e_paris"],
            [
                ("e_acme", "LOCATED_IN", "e_paris"),
                ("e_louvre", "LOCATED_IN", "e_paris"),
                ("e_paris", "CAPITAL_OF", "e_france"),
            ],
        ),
        (["e_island", "e_ghost"], []),
        (
            ["e_bob", "e_carol"],
            [
                ("e_alice", "KNOWS", "e_bob"),
                ("e_bob", "KNOWS", "e_alice"),
                ("e_bob", "WORKS_AT", "e_acme"),
                ("e_carol", "VISITED", "e_louvre"),
            ],
        ),
    ],
)
def test_relations_of(store: Any, ids: list[str], expected: list[tuple[str, str, str]]) -> None:
    loaded(store)
    got = store.relations_of(ids)
    assert [(r.source_id, r.type, r.target_id) for r in got] == expected


@pytest.mark.parametrize(
    ("method", "ids", "expected"),
    [
        ("communities_of", ["e_alice"], ["k0a", "k1"]),
        ("communities_of", ["e_paris", "e_bob"], ["k0a", "k0b", "k1"]),
        ("communities_of", ["e_ghost", "nobody"], []),
        ("get_communities", ["k1", "k0b", "missing"], ["k0b", "k1"]),
        ("child_communities", ["k1"], ["k0a", "k0b"]),
        ("child_communities", ["k0a"], []),
    ],
)
def test_community_reads(store: Any, method: str, ids: list[str], expected: list[str]) -> None:
    loaded(store)
    got = getattr(store, method)(ids)
    # Sorted by (level, id); members as communities() gives them.
    assert [c.community_id for c in got] == expected
    full = {c.community_id: c for c in store.communities()}
    for c in got:
        assert c.members == full[c.community_id].members
        assert c.parent_id == full[c.community_id].parent_id
        assert c.content_hash == full[c.community_id].content_hash


def test_apply_communities_changes_only_what_it_is_given(store: Any) -> None:
    """Replace k1 by a new parent (children follow by their parent_id), drop k0b, add one."""
    loaded(store)
    k0a = next(c for c in data.communities() if c.community_id == "k0a")
    store.apply_communities(
        [
            Community(community_id="k1", level=1, members=["e_alice", "e_bob", "e_acme"]),
            k0a.model_copy(update={"title": "Acme people"}),
            Community(community_id="k0c", level=0, parent_id="k1", members=["e_carol"]),
        ],
        removed=["k0b"],
    )
    got = {c.community_id: c for c in store.communities()}
    assert sorted(got) == ["k0a", "k0c", "k1"]
    assert got["k1"].members == ["e_acme", "e_alice", "e_bob"]
    assert got["k0a"].title == "Acme people" and got["k0a"].parent_id == "k1"
    assert got["k0c"].members == ["e_carol"]
    assert [c.community_id for c in store.child_communities(["k1"])] == ["k0a", "k0c"]
    assert store.counts()["communities"] == 3


def test_apply_communities_keeps_children_of_a_replaced_parent(store: Any) -> None:
    loaded(store)
    store.apply_communities([Community(community_id="k1", level=1, members=["e_alice"])])
    assert [c.community_id for c in store.child_communities(["k1"])] == ["k0a", "k0b"]
    assert {c.community_id: c.members for c in store.communities()}["k1"] == ["e_alice"]


@pytest.mark.parametrize(
    ("members", "parent", "reads"),
    [
        # gains e_carol (a delta write adds one member link)
        (
            ["e_acme", "e_alice", "e_bob", "e_carol"],
            "k1",
            {"e_carol": ["k0a", "k1"], "e_alice": ["k0a", "k1"]},
        ),
        # loses e_alice, the others stay linked
        (["e_acme", "e_bob"], "k1", {"e_alice": ["k1"], "e_bob": ["k0a", "k1"]}),
        # loses one, gains one; a member that is no stored entity is dropped
        (["e_acme", "e_bob", "e_louvre", "e_ghost"], "k1", {"e_alice": ["k1"]}),
        # moves under a new parent k2
        (["e_acme", "e_alice", "e_bob"], "k2", {"e_alice": ["k0a", "k1", "k2"]}),
        # becomes a root
        (["e_acme", "e_alice", "e_bob"], None, {"e_bob": ["k0a", "k1"]}),
    ],
)
def test_apply_communities_replaces_members_and_parent(
    store: Any, members: list[str], parent: str | None, reads: dict[str, list[str]]
) -> None:
    """A community replaced under its id ends up with exactly its new members and parent,
    whatever it had before (the stores write only the member links that changed)."""
    loaded(store)
    k0a = next(c for c in data.communities() if c.community_id == "k0a")
    upserts = [k0a.model_copy(update={"members": members, "parent_id": parent})]
    if parent == "k2":
        upserts.insert(
            0, Community(community_id="k2", level=1, members=["e_acme", "e_alice", "e_bob"])
        )
    store.apply_communities(upserts)
    got = {c.community_id: c for c in store.communities()}
    stored = [m for m in members if m != "e_ghost"]
    assert got["k0a"].members == sorted(stored)
    assert got["k0a"].parent_id == parent
    assert store.get_communities(["k0a"])[0].members == sorted(stored)
    for entity, ids in reads.items():
        assert [c.community_id for c in store.communities_of([entity])] == ids
    under_k1 = [c.community_id for c in store.child_communities(["k1"])]
    assert under_k1 == (["k0a", "k0b"] if parent == "k1" else ["k0b"])
    if parent == "k2":
        assert [c.community_id for c in store.child_communities(["k2"])] == ["k0a"]
