"""Entity linking through the store's name index (kg_rag.retrieval.graph.EntityLinker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg_rag.models import Chunk, Entity, Mention
from kg_rag.retrieval.graph import (
    EntityLinker,
    GraphRetriever,
    _cjk_candidates,
    _cjk_name_spans,
)
from kg_rag.stores.embedded import EmbeddedGraphStore

ENTITIES = [
    Entity(entity_id="e_ada", name="Ada Lovelace", type="PERSON", aliases=["Countess Lovelace"]),
    Entity(entity_id="e_london", name="London", type="LOCATION"),
    Entity(entity_id="e_uni", name="University of London", type="ORGANIZATION"),
    Entity(entity_id="e_engine", name="Analytical Engine", type="WORK"),
    Entity(entity_id="e_director", name="director", type="CONCEPT"),
    Entity(entity_id="e_ouyang", name="欧阳明哲", type="PERSON"),
    Entity(entity_id="e_songcheng", name="松城大学", type="ORGANIZATION", aliases=["松大"]),
    Entity(entity_id="e_songcity", name="松城", type="LOCATION"),
    Entity(entity_id="e_which", name="Which", type="CONCEPT"),
    Entity(entity_id="e_orm", name="Orm Tessick", type="PERSON"),
    Entity(entity_id="e_orm_y", name="Orm Tessick the younger", type="PERSON"),
]


class NoIndexStore:
    """A store without ``entities_named``: the linker falls back to loading every entity."""

    def __init__(self, inner: EmbeddedGraphStore) -> None:
        self.inner = inner
        self.backend = inner.backend

    def __getattr__(self, name: str) -> Any:
        if name in ("entities_named", "mention_counts"):
            raise AttributeError(name)
        return getattr(self.inner, name)


class CountingStore(NoIndexStore):
    """Forwards everything (index included) and counts full loads."""

    def __init__(self, inner: EmbeddedGraphStore) -> None:
        super().__init__(inner)
        self.full_loads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def all_entities(self) -> list[Entity]:
        self.full_loads += 1
        return list(self.inner.all_entities())


@pytest.fixture()
def store(tmp_path: Path) -> Any:
    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    graph.upsert_entities(ENTITIES)
    # London is mentioned in three chunks, the university in one: rarer weighs more.
    graph.upsert_mentions(
        [Mention(entity_id="e_london", chunk_id=f"c{i}", doc_id="d") for i in range(3)]
        + [Mention(entity_id=e.entity_id, chunk_id="c9", doc_id="d") for e in ENTITIES]
    )
    yield graph
    graph.close()


CASES = [
    # (text, expected (entity id, span, method) in rank order)
    (
        "Where did Ada Lovelace study?",
        [("e_ada", "Ada Lovelace", "exact")],
    ),
    (
        "Was the Countess Lovelace born in London?",
        # a leading article belongs to the span ("the X" normalizes to "x")
        [("e_ada", "the Countess Lovelace", "alias"), ("e_london", "London", "exact")],
    ),
    (  # the longest span wins: the university, not London inside it
        "Who founded the University of London?",
        [("e_uni", "the University of London", "exact")],
    ),
    (  # a common noun is not seeded when a name is linked too
        "Who was the director of the Analytical Engine?",
        [("e_engine", "the Analytical Engine", "exact")],
    ),
    (  # ... but is when the text names nothing else
        "who was the director",
        [("e_director", "the director", "exact")],
    ),
    (  # stop words never link by name, whatever is stored under them
        "which of them, and which one",
        [],
    ),
    (  # Chinese: characters, longest first (the segmenter would cut 欧阳/明哲)
        "欧阳明哲出生于松城，任教于松城大学。",
        [
            ("e_songcheng", "松城大学", "exact"),
            ("e_ouyang", "欧阳明哲", "exact"),
            ("e_songcity", "松城", "exact"),
        ],
    ),
    (
        "松大的校长是谁？",
        [("e_songcheng", "松大", "alias")],
    ),
    (  # a capitalised span no name matches exactly goes to the store's name search
        "Tell me about Lovelace",
        [("e_ada", "Lovelace", "fulltext")],
    ),
    (  # ... which never answers "the elder" with "the younger", however many words match
        "Where was Orm Tessick The Elder born?",
        [("e_orm", "Orm Tessick", "exact")],
    ),
    (
        "Where was Orm Tessick the younger born?",
        [("e_orm_y", "Orm Tessick the younger", "exact")],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
@pytest.mark.parametrize("indexed", [True, False])
def test_link(store: Any, text: str, expected: list[tuple[str, str, str]], indexed: bool) -> None:
    graph = store if indexed else NoIndexStore(store)
    linked = EntityLinker(graph).link(text)
    got = [(le.entity_id, le.span, le.method) for le in linked]
    assert sorted(got) == sorted(expected)
    if len(expected) > 1 and not text.startswith("欧阳"):
        assert got == expected  # rank order: rarer entities and longer spans first


def test_link_weights_and_names(store: Any) -> None:
    linked = {le.entity_id: le for le in EntityLinker(store).link("Ada Lovelace in London")}
    assert linked["e_london"].name == "London" and linked["e_london"].type == "LOCATION"
    # London (4 chunks) weighs less per character than Ada Lovelace (1 chunk).
    per_char = {e: le.weight / len(le.span) ** 0.5 for e, le in linked.items()}
    assert per_char["e_ada"] > per_char["e_london"]


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Ada Lovelace", True),
        ("the University of London", True),  # a leading article is no part of the name
        ("Countess Lovelace", True),  # an alias
        ("松大", True),
        ("Lovelace", False),  # a word of a name is not the name
        ("London University", False),
        ("the director of London", False),
    ],
)
@pytest.mark.parametrize("indexed", [True, False])
def test_is_name(store: Any, text: str, held: bool, indexed: bool) -> None:
    graph = store if indexed else NoIndexStore(store)
    assert EntityLinker(graph).is_name(text) is held


def test_link_never_loads_every_entity(store: Any) -> None:
    counting = CountingStore(store)
    linker = EntityLinker(counting)
    for text, _ in CASES:
        linker.link(text)
    assert linker.entity("e_uni") is not None and linker.entity("missing") is None
    assert counting.full_loads == 0
    assert NoIndexStore(store).all_entities()  # the fallback path does load them


def test_link_sees_entities_written_after_it_was_built(store: Any) -> None:
    linker = EntityLinker(store)
    assert linker.link("Charles Babbage") == []
    store.upsert_entities([Entity(entity_id="e_cb", name="Charles Babbage", type="PERSON")])
    assert [le.entity_id for le in linker.link("Charles Babbage")] == ["e_cb"]


@pytest.mark.parametrize(
    ("text", "names", "spans"),
    [
        ("欧阳明哲出生", {"欧阳明哲"}, [(0, 4)]),
        ("松城大学在松城", {"松城大学", "松城"}, [(0, 4), (0, 2), (5, 7)]),
        ("no chinese here", {"here"}, []),
        ("去A松城", {"a松城", "松城"}, [(1, 4), (2, 4)]),
    ],
)
def test_cjk_name_spans_take_any_container(
    text: str, names: set[str], spans: list[tuple[int, int]]
) -> None:
    assert _cjk_name_spans(text, names) == spans
    # every span it can find is among the candidates the linker looks up
    assert names & _cjk_candidates(text) == {n for n in names if any(c >= "\u4e00" for c in n)}


class _Chunks:
    """The chunk store's ``get_chunks``: one chunk per id (the graph route reads only these)."""

    def get_chunks(self, ids: list[str]) -> list[Chunk]:
        return [
            Chunk(chunk_id=i, doc_id="d", level="paragraph", char_start=0, char_end=4, text=i)
            for i in ids
        ]


def test_graph_retrieve_memo_gives_the_same_evidence(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question's memo serves a later retrieval with the same seeds (any top_k) without
    running PPR again, and the evidence, the recorded calls and the scores are unchanged."""
    linker = EntityLinker(store)
    graph = GraphRetriever(store, _Chunks(), linker)  # type: ignore[arg-type]
    linked = linker.link("Was Ada Lovelace born in London?")
    plain = [graph.retrieve(linked, top_k=k, expand=e) for k, e in ((2, False), (5, True))]
    memo: dict[Any, Any] = {}
    first = graph.retrieve(linked, top_k=2, expand=False, memo=memo)
    runs = []
    monkeypatch.setattr(
        store,
        "personalized_pagerank",
        lambda *a, **k: runs.append(a) or [],  # must not run
    )
    second = graph.retrieve(linked, top_k=5, expand=True, memo=memo)
    assert not runs and len(memo) == 1
    for (ev, calls, ppr), (ev_m, calls_m, ppr_m) in zip(plain, (first, second), strict=True):
        assert ev_m == ev and ppr_m == ppr and ev
        assert [(c.name, c.params, c.rows) for c in calls_m] == [
            (c.name, c.params, c.rows) for c in calls
        ]
