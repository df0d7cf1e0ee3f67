"""Normalization and EntityResolver: keys, merges, type safety, embeddings, unmerge."""

from __future__ import annotations

import re

import pytest

from extraction.errors import ResolutionError
from extraction.normalize import entity_id, entity_key, normalize_name, normalize_type
from extraction.offline import OfflineExtractor
from extraction.resolve import (
    EntityResolver,
    ResolvedEntity,
    harmonise_subject_types,
    types_compatible,
)
from extraction.schema import ChunkExtraction, ChunkInput, ExtractedEntity, ExtractedRelation
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit


def _chunk(
    chunk_id: str,
    entities: list[tuple[str, str]],
    relations: list[tuple[str, str, float]] = (),  # type: ignore[assignment]
    aliases: dict[str, list[str]] | None = None,
) -> ChunkExtraction:
    aliases = aliases or {}
    return ChunkExtraction(
        chunk_id=chunk_id,
        entities=[
            ExtractedEntity(
                name=n, type=t, description=f"{n} in {chunk_id}.", aliases=aliases.get(n, [])
            )
            for n, t in entities
        ],
        relations=[ExtractedRelation(source=s, target=o, strength=w) for s, o, w in relations],
    )


def _by_name(result) -> dict[str, ResolvedEntity]:  # type: ignore[no-untyped-def]
    return {e.name: e for e in result.entities}


# --- normalization ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("IBM", "I.B.M."),
        ("IBM", "ＩＢＭ"),  # full width
        ("The Beatles", "beatles"),
        ("Zürich", "Zurich"),
        ("Marks & Spencer", "Marks and Spencer"),
        ("北京 大学", "北京大学"),
        ("Coleridge-Taylor", "Coleridge Taylor"),
    ],
)
def test_normalize_name_folds_variants(a: str, b: str) -> None:
    assert normalize_name(a) == normalize_name(b)


def test_normalize_keeps_different_names_apart() -> None:
    assert normalize_name("3.5") != normalize_name("35")
    assert normalize_name("Paris") != normalize_name("Parish")


def test_keys_and_ids_are_deterministic_and_typed() -> None:
    assert normalize_type("org") == "ORGANIZATION" and normalize_type("") == "CONCEPT"
    assert entity_key("I.B.M.", "org") == "ORGANIZATION:ibm"
    assert entity_id("IBM", "ORGANIZATION") == entity_id("ＩＢＭ", "organisation")
    assert entity_id("IBM", "ORGANIZATION") != entity_id("IBM", "PERSON")
    assert entity_id("IBM", "ORGANIZATION").startswith("e_")


def test_type_compatibility_table() -> None:
    assert types_compatible("PERSON", "per", exact_name=False)
    assert types_compatible("CONCEPT", "PERSON", exact_name=True)
    assert not types_compatible("CONCEPT", "PERSON", exact_name=False)
    assert not types_compatible("PERSON", "LOCATION", exact_name=True)


# --- resolution ----------------------------------------------------------------------------------
def test_same_key_spellings_become_one_entity_with_aliases() -> None:
    result = EntityResolver().resolve(
        [
            _chunk("c1", [("IBM", "ORGANIZATION")]),
            _chunk("c2", [("I.B.M.", "ORGANIZATION")]),
            _chunk("c3", [("ＩＢＭ", "ORGANIZATION"), ("IBM", "ORGANIZATION")]),
        ]
    )
    (ibm,) = result.entities
    assert ibm.entity_id == entity_id("IBM", "ORGANIZATION")
    assert ibm.name == "IBM"  # the most frequent spelling
    assert set(ibm.aliases) == {"I.B.M.", "ＩＢＭ"}
    assert ibm.mentions == ["c1", "c2", "c3"]
    assert result.merges == []  # same key is identity, not a merge


def test_concept_joins_typed_entity_of_the_same_name() -> None:
    result = EntityResolver().resolve(
        [_chunk("c1", [("Hank Snow", "PERSON")]), _chunk("c2", [("hank snow", "CONCEPT")])]
    )
    (snow,) = result.entities
    assert snow.type == "PERSON" and snow.mentions == ["c1", "c2"]
    (merge,) = result.merges
    assert merge.reason == "type_wildcard"
    assert merge.kept_id == entity_id("Hank Snow", "PERSON")


def test_incompatible_types_never_merge_even_with_identical_embeddings() -> None:
    def same_vector(names: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in names]

    result = EntityResolver(embed=same_vector, threshold=0.5).resolve(
        [_chunk("c1", [("Jordan", "PERSON")]), _chunk("c2", [("Jordan", "LOCATION")])]
    )
    assert {(e.name, e.type) for e in result.entities} == {
        ("Jordan", "PERSON"),
        ("Jordan", "LOCATION"),
    }
    assert result.merges == []


def test_embedding_merges_same_type_above_threshold() -> None:
    embed = HashEmbeddings(dimensions=256).embed_documents
    chunks = [
        _chunk("c1", [("Apollo Program", "EVENT"), ("Gemini Project", "EVENT")]),
        _chunk("c2", [("program Apollo", "EVENT")]),
    ]
    result = EntityResolver(embed=embed, threshold=0.95).resolve(chunks)
    names = _by_name(result)
    assert "Gemini Project" in names  # different words stay apart
    merged = [m for m in result.merges if m.reason == "embedding"]
    assert len(merged) == 1 and merged[0].score >= 0.95
    kept = result.entities[[e.entity_id for e in result.entities].index(merged[0].kept_id)]
    assert set(kept.mentions) == {"c1", "c2"}


def test_blocked_embedding_path_finds_word_sharing_pairs() -> None:
    embed = HashEmbeddings(dimensions=256).embed_documents
    chunks = [_chunk(f"c{i}", [(f"Filler Name {i} X{i}", "WORK")]) for i in range(6)]
    chunks.append(_chunk("a", [("Apollo Program", "WORK")]))
    chunks.append(_chunk("b", [("Program Apollo", "WORK")]))
    blocked = EntityResolver(embed=embed, threshold=0.95, full_matrix_limit=3).resolve(chunks)
    assert [m.reason for m in blocked.merges] == ["embedding"]


def test_alias_from_extraction_merges_unique_short_form() -> None:
    result = EntityResolver().resolve(
        [
            _chunk("c1", [("Peter Bonetti", "PERSON")], aliases={"Peter Bonetti": ["Bonetti"]}),
            _chunk(
                "c2",
                [("Bonetti", "CONCEPT"), ("Chelsea", "ORGANIZATION")],
                [("Bonetti", "Chelsea", 0.5)],
            ),
        ]
    )
    names = _by_name(result)
    assert "Bonetti" not in names
    assert names["Peter Bonetti"].mentions == ["c1", "c2"]
    (rel,) = result.relations
    assert rel.source_id == names["Peter Bonetti"].entity_id


def test_ambiguous_short_form_is_left_alone() -> None:
    result = EntityResolver().resolve(
        [
            _chunk("c1", [("George W. Bush", "PERSON")], aliases={"George W. Bush": ["Bush"]}),
            _chunk(
                "c2", [("George H. W. Bush", "PERSON")], aliases={"George H. W. Bush": ["Bush"]}
            ),
            _chunk("c3", [("Bush", "CONCEPT")]),
        ]
    )
    assert "Bush" in _by_name(result)
    assert result.merges == []


def test_trusted_alias_table() -> None:
    resolver = EntityResolver(aliases={"Big Blue": "IBM"})
    result = resolver.resolve(
        [_chunk("c1", [("IBM", "ORGANIZATION")]), _chunk("c2", [("Big Blue", "ORGANIZATION")])]
    )
    (ibm,) = result.entities
    assert ibm.name == "IBM" and "Big Blue" in ibm.aliases
    assert [m.reason for m in result.merges] == ["alias"]


def test_relations_are_summed_and_keep_evidence() -> None:
    chunks = [
        _chunk("c1", [("Ada", "PERSON"), ("London", "LOCATION")], [("Ada", "London", 0.5)]),
        _chunk("c2", [("Ada", "PERSON"), ("London", "LOCATION")], [("Ada", "London", 0.25)]),
        _chunk("c3", [("Ada", "PERSON")], [("Ada", "Nowhere", 0.9)]),  # unknown endpoint
    ]
    result = EntityResolver().resolve(chunks)
    (rel,) = result.relations
    assert rel.weight == pytest.approx(0.75)
    assert rel.evidence == ["c1", "c2"]
    assert result.mention_pairs()[0][1] == "c1"


def test_failed_chunks_are_skipped() -> None:
    bad = ChunkExtraction(chunk_id="x", error="boom")
    result = EntityResolver().resolve([bad, _chunk("c1", [("Ada", "PERSON")])])
    assert [e.name for e in result.entities] == ["Ada"]


def test_unmerge_restores_entity_mentions_and_relations() -> None:
    chunks = [
        _chunk(
            "c1",
            [("Hank Snow", "PERSON"), ("Nashville", "LOCATION")],
            [("Hank Snow", "Nashville", 0.5)],
        ),
        _chunk(
            "c2",
            [("hank snow", "CONCEPT"), ("RCA Victor", "ORGANIZATION")],
            [("hank snow", "RCA Victor", 0.4)],
        ),
    ]
    resolver = EntityResolver()
    merged = resolver.resolve(chunks)
    (record,) = merged.merges
    assert len(merged.entities) == 3
    assert record.merged_snapshot.mentions == ["c2"]

    undone = resolver.unmerge(merged, record)
    assert undone.merges == []
    restored = {e.entity_id: e for e in undone.entities}[record.merged_id]
    assert restored.type == "CONCEPT" and restored.mentions == ["c2"]
    kept = {e.entity_id: e for e in undone.entities}[record.kept_id]
    assert kept.mentions == ["c1"]
    assert {r.source_id for r in undone.relations} == {record.kept_id, record.merged_id}
    assert {e.entity_id for e in undone.entities} == {
        record.kept_id,
        record.merged_id,
        entity_id("Nashville", "LOCATION"),
        entity_id("RCA Victor", "ORGANIZATION"),
    }
    with pytest.raises(ResolutionError):
        resolver.unmerge(undone, record)


def test_unmerge_keeps_later_merges() -> None:
    chunks = [
        _chunk("c1", [("Hank Snow", "PERSON")], aliases={"Hank Snow": ["The Singing Ranger"]}),
        _chunk("c2", [("hank snow", "CONCEPT")]),
        _chunk("c3", [("Singing Ranger", "CONCEPT")]),
    ]
    resolver = EntityResolver()
    merged = resolver.resolve(chunks)
    assert [m.reason for m in merged.merges] == ["type_wildcard", "alias"]
    undone = resolver.unmerge(merged, merged.merges[0])
    snow = {e.entity_id: e for e in undone.entities}[merged.merges[0].kept_id]
    assert snow.mentions == ["c1", "c3"]  # the alias merge stays


def test_existing_entities_are_kept_and_absorb_new_mentions() -> None:
    stored = ResolvedEntity(
        entity_id=entity_id("Ada Lovelace", "PERSON"),
        name="Ada Lovelace",
        type="PERSON",
        aliases=["Ada"],
        mentions=["old"],
    )
    untouched = ResolvedEntity(entity_id="e_other", name="Other", type="PERSON", mentions=["old"])
    result = EntityResolver().resolve(
        [_chunk("new", [("Ada Lovelace", "PERSON"), ("ada", "CONCEPT")])],
        existing=[stored, untouched],
    )
    (ada,) = result.entities  # "Other" is not repeated
    assert ada.entity_id == stored.entity_id
    assert ada.mentions == ["new", "old"]
    assert all(m.kept_id == stored.entity_id for m in result.merges)


def test_resolution_is_deterministic() -> None:
    chunks = [
        _chunk("c2", [("B", "PERSON"), ("A", "PERSON")], [("A", "B", 0.3)]),
        _chunk("c1", [("A", "PERSON")]),
    ]
    assert EntityResolver().resolve(chunks) == EntityResolver().resolve(chunks)


# -- incremental resolution: the stored entities found by stored_lookup_keys suffice ----------

_STORED = [
    ResolvedEntity(entity_id="s_ibm", name="IBM", type="ORGANIZATION", aliases=["Big Blue"]),
    ResolvedEntity(entity_id="s_walmart", name="Walmart", type="ORGANIZATION"),
    ResolvedEntity(entity_id="s_paris", name="Paris", type="LOCATION"),
    ResolvedEntity(entity_id="s_bush1", name="George Bush", type="PERSON", aliases=["Bush"]),
    ResolvedEntity(entity_id="s_bush2", name="Jeb Bush", type="PERSON", aliases=["Bush"]),
    ResolvedEntity(entity_id="s_nile", name="Nile", type="LOCATION"),
    ResolvedEntity(entity_id="s_kyoto", name="Kyoto", type="LOCATION", aliases=["Heian-kyo"]),
    ResolvedEntity(entity_id="s_lone", name="Lonely Name", type="CONCEPT"),
    *[
        ResolvedEntity(entity_id=f"s_filler{i}", name=f"Filler {i}", type="PERSON")
        for i in range(30)
    ],
]
_STORED.append(
    ResolvedEntity(
        entity_id=entity_id("Ada Lovelace", "PERSON"), name="Ada Lovelace", type="PERSON"
    )
)


@pytest.mark.parametrize(
    ("chunks", "alias_table"),
    [
        ([_chunk("c1", [("IBM", "ORG"), ("Paris", "LOC")], [("IBM", "Paris", 1.0)])], None),
        ([_chunk("c1", [("Wal-Mart", "ORG")])], None),  # compact stage joins the stored one
        ([_chunk("c1", [("Big Blue", "CONCEPT")])], None),  # a stored alias
        ([_chunk("c1", [("Bush", "PERSON")])], None),  # ambiguous among stored: left alone
        (  # a new alias naming a stored entity
            [_chunk("c1", [("Heian Capital", "LOCATION")], aliases={"Heian Capital": ["Kyoto"]})],
            None,
        ),
        ([_chunk("c1", [("Ada Lovelace", "PERSON")])], None),  # same id as a stored entity
        ([_chunk("c1", [("nile", "CONCEPT")]), _chunk("c2", [("Nile", "LOCATION")])], None),
        ([_chunk("c1", [("Brand New", "PERSON")])], None),  # nothing stored matters
        ([_chunk("c1", [("Blue Giant", "ORGANIZATION")])], {"Blue Giant": "IBM"}),  # table
        ([_chunk("c1", [("Lonely Name", "PERSON"), ("Filler 3", "PERSON")])], None),
    ],
)
def test_resolving_against_looked_up_entities_equals_resolving_against_all(
    chunks: list[ChunkExtraction], alias_table: dict[str, str] | None
) -> None:
    from extraction.normalize import compact_name
    from extraction.resolve import stored_lookup_keys

    resolver = EntityResolver(aliases=alias_table)
    full = resolver.resolve(chunks, _STORED)
    names, compact = stored_lookup_keys(chunks, alias_table)
    wanted, squeezed = set(names), set(compact)
    candidates = [
        e
        for e in _STORED
        if {normalize_name(n) for n in (e.name, *e.aliases)} & wanted
        or compact_name(e.name) in squeezed
    ]
    assert len(candidates) < len(_STORED) // 2  # the lookup really narrows the stored set
    part = resolver.resolve(chunks, candidates)
    assert part.entities == full.entities
    assert part.relations == full.relations
    assert part.merges == full.merges
    assert {k: v for k, v in part.id_map.items() if k in part.new_ids} == {
        k: v for k, v in full.id_map.items() if k in full.new_ids
    }


@pytest.mark.parametrize(
    ("title", "chunks", "expected"),
    [
        # the lead's type wins over a later chunk's guess, and the later chunk keeps its alias
        (
            "Brisk Osier",
            [
                [("Brisk Osier", "ORGANIZATION")],
                [("Brisk Osier", "PERSON"), ("Tollow", "LOCATION")],
            ],
            [["ORGANIZATION"], ["ORGANIZATION", "LOCATION"]],
        ),
        # a chunk that leaves it untyped stays so (the resolver joins it by name); the first
        # chunk that types it leads
        (
            "Marrick Spur (club)",
            [
                [("Marrick Spur", "CONCEPT")],
                [("Marrick Spur", "LOCATION")],
                [("Marrick Spur", "ORG")],
            ],
            [["CONCEPT"], ["LOCATION"], ["LOCATION"]],
        ),
        # a title's full-width parenthesised qualifier is no part of the subject's name
        (
            "甘棠数据（公司）",
            [[("甘棠数据", "ORGANIZATION")], [("甘棠数据", "PERSON")]],
            [["ORGANIZATION"], ["ORGANIZATION"]],
        ),
        # other names are left as they are
        (
            "Orlen Vasko",
            [[("Orlen Vasko", "PERSON"), ("Dunwold", "LOCATION")], [("Dunwold", "ORGANIZATION")]],
            [["PERSON", "LOCATION"], ["ORGANIZATION"]],
        ),
    ],
)
def test_a_documents_subject_takes_the_type_of_its_first_typed_chunk(
    title: str, chunks: list[list[tuple[str, str]]], expected: list[list[str]]
) -> None:
    extractions = [
        _chunk(f"c{i}", ents).model_copy(update={"doc_id": "d"}) for i, ents in enumerate(chunks)
    ]
    subject = re.split(r"\s*[(（]", title)[0]
    other = _chunk("x", [(subject, "PERSON")]).model_copy(update={"doc_id": "other"})
    out = harmonise_subject_types([*extractions, other], {"d": title, "other": "Elsewhere"})
    assert [[e.type for e in x.entities] for x in out[:-1]] == expected
    assert out[-1].entities[0].type == "PERSON"  # another document's mention is its own


def test_a_subject_guessed_otherwise_in_a_later_chunk_stays_one_entity() -> None:
    chunks = [
        ChunkInput(
            chunk_id="c0",
            doc_id="d",
            title="Brisk Osier",
            text="**Brisk Osier** is a regional airline based at Tollow Field.",
        ),
        ChunkInput(
            chunk_id="c1",
            doc_id="d",
            title="Brisk Osier",
            text="Orlen Vasko founded Osier in 1978. He had flown freight for eleven years.",
        ),
    ]
    extractions = OfflineExtractor(show_progress=False).extract(chunks)
    result = EntityResolver().resolve(harmonise_subject_types(extractions, {"d": "Brisk Osier"}))
    (subject,) = [e for e in result.entities if e.name == "Brisk Osier"]
    assert subject.type == "ORGANIZATION"
    assert "Osier" in subject.aliases


def test_a_lower_case_file_name_spelling_is_never_the_display_name() -> None:
    result = EntityResolver().resolve(
        [
            _chunk("c1", [("ansel_dray", "PERSON")]),
            _chunk("c2", [("ansel_dray", "PERSON")]),
            _chunk("c3", [("Ansel Dray", "PERSON")]),
        ]
    )
    (dray,) = result.entities
    assert dray.name == "Ansel Dray"  # although "ansel_dray" is the more frequent spelling
    assert dray.aliases == ["ansel_dray"]
