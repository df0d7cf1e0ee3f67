"""OfflineExtractor: English and Chinese mentions, types, titles, relations, determinism."""

from __future__ import annotations

import pytest

from extraction.english import find_english_spans, split_sentences
from extraction.offline import OfflineExtractor
from extraction.schema import ChunkInput

pytestmark = pytest.mark.unit

BONETTI = ChunkInput(
    chunk_id="p1",
    doc_id="d1",
    title="Peter Bonetti",
    text=(
        "Peter Phillip Bonetti (born 27 September 1941 in Putney, London) is a former football "
        "goalkeeper for Chelsea and the St. Louis Stars. Bonetti was known for his safe handling. "
        "He studied at Peking University and later played in the 1970 World Cup."
    ),
)


def _types(entities: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {e.name: e.type for e in entities}


def test_english_entities_types_and_title() -> None:
    (result,) = OfflineExtractor(show_progress=False).extract([BONETTI])
    types = _types(result.entities)
    assert result.ok and result.llm_calls == 0 and result.doc_id == "d1"
    assert result.entities[0].name == "Peter Bonetti"  # the title comes first
    assert types["Peter Bonetti"] == "PERSON"
    assert types["27 September 1941"] == "DATE" and types["1941"] == "DATE"
    assert types["Putney"] == "LOCATION" and types["London"] == "LOCATION"
    assert types["Peking University"] == "ORGANIZATION"
    assert types["St. Louis Stars"] == "CONCEPT"
    assert "1970 World Cup" in types
    # Short forms join the title instead of becoming entities of their own.
    assert "Bonetti" not in types and "Peter Phillip Bonetti" not in types
    assert set(result.entities[0].aliases) == {"Peter Phillip Bonetti", "Bonetti"}


def test_relations_are_sentence_cooccurrences_weighted_by_closeness() -> None:
    (result,) = OfflineExtractor(show_progress=False).extract([BONETTI])
    strength = {frozenset((r.source, r.target)): r.strength for r in result.relations}
    close = strength[frozenset(("Putney", "London"))]
    far = strength[frozenset(("Putney", "St. Louis Stars"))]
    assert 0 < far < close <= 1
    # Different sentences, neither is the title: no relation.
    assert frozenset(("Chelsea", "Peking University")) not in strength
    # The title relates to every entity of its passage.
    assert frozenset(("Peter Bonetti", "Peking University")) in strength
    born = next(r for r in result.relations if {r.source, r.target} == {"Putney", "London"})
    assert born.type == "RELATED_TO"
    words = next(
        r for r in result.relations if {r.source, r.target} == {"27 September 1941", "Putney"}
    )
    assert words.description == "in"


def test_chinese_person_and_organization_with_relation() -> None:
    chunk = ChunkInput(chunk_id="z1", text="张三在北京大学工作。李四出生于浙江杭州。")
    (result,) = OfflineExtractor(show_progress=False).extract([chunk])
    types = _types(result.entities)
    assert types["张三"] == "PERSON"
    assert types["北京大学"] in ("ORGANIZATION", "LOCATION")
    assert types["李四"] == "PERSON" and types["杭州"] == "LOCATION"
    pairs = {frozenset((r.source, r.target)) for r in result.relations}
    assert frozenset(("张三", "北京大学")) in pairs
    assert frozenset(("张三", "李四")) not in pairs  # different sentences


def test_chinese_titles_dates_and_org_suffix() -> None:
    text = "周杰伦的专辑《范特西》于2001年发行。马云创立了阿里巴巴集团。"
    types = _types(OfflineExtractor(show_progress=False).find_entities(text))
    assert types["范特西"] == "WORK"
    assert types["2001年"] == "DATE" and "2001" not in types  # one mention per date
    assert types["阿里巴巴集团"] == "ORGANIZATION"


def test_question_entities_for_linking() -> None:
    extractor = OfflineExtractor(show_progress=False)
    names = [
        e.name
        for e in extractor.find_entities(
            "How many Publix stores are in the state where Hello Love's performer died?"
        )
    ]
    assert names == ["Publix", "Hello Love"]
    assert [
        e.name
        for e in extractor.find_entities("Who founded the Journal of Psychotherapy Integration?")
    ] == ["Journal of Psychotherapy Integration"]
    named = _types(extractor.find_entities("Who played Captain Miller in Saving Private Ryan?"))
    assert named["Captain Miller"] == "PERSON"


def test_sentence_initial_common_words_are_not_names() -> None:
    spans, _ = find_english_spans(
        "However, Born in Chongqing, Xu grew up. Returning home, he slept."
    )
    names = [s.name for s in spans]
    assert "However" not in names and "Born" not in names and "Returning" not in names
    assert "Chongqing" in names and "Xu" in names


def test_quoted_titles_are_works() -> None:
    spans, _ = find_english_spans('Ed Sheeran wrote the song "Thinking Out Loud" in 2014.')
    assert ("Thinking Out Loud", "WORK") in [(s.name, s.type) for s in spans]


def test_sentences_do_not_split_after_abbreviations() -> None:
    text = "Dr. Smith met G. Stanley Hall in St. Louis. They talked."
    assert len(split_sentences(text)) == 2


def test_comma_titles_alias_their_head() -> None:
    chunk = ChunkInput(
        chunk_id="p2",
        title="Johnnycake, West Virginia",
        text="Johnnycake is an unincorporated community in McDowell County, West Virginia.",
    )
    (result,) = OfflineExtractor(show_progress=False).extract([chunk])
    title = result.entities[0]
    assert title.name == "Johnnycake, West Virginia" and title.type == "LOCATION"
    assert "Johnnycake" in title.aliases
    assert "Johnnycake" not in _types(result.entities)


def test_disallowed_types_fall_back_or_drop() -> None:
    extractor = OfflineExtractor(entity_types=["PERSON", "CONCEPT"], show_progress=False)
    types = _types(extractor.find_entities("Marie Curie moved to Paris in 1891."))
    assert "1891" not in types  # dates are dropped, not turned into concepts
    assert types["Paris"] == "CONCEPT"


def test_extraction_is_deterministic_and_empty_text_is_fine() -> None:
    extractor = OfflineExtractor(show_progress=False)
    assert extractor.extract([BONETTI]) == extractor.extract([BONETTI])
    (empty,) = extractor.extract([ChunkInput(chunk_id="e", text="   ")])
    assert empty.ok and empty.entities == [] and empty.relations == []


def test_english_text_with_a_few_chinese_words_keeps_english_rules() -> None:
    text = "Xu Bing (徐冰) was born in Chongqing and taught at Peking University."
    types = _types(OfflineExtractor(show_progress=False).find_entities(text))
    assert types["Chongqing"] == "LOCATION"  # an English cue ("born in")
    assert types["Peking University"] == "ORGANIZATION"
    assert types["徐冰"] == "PERSON"  # found by jieba


@pytest.mark.parametrize(
    ("title", "text", "name", "expected"),
    [
        # a copula after the name that opens the sentence: the class noun outweighs the
        # pronoun guess for a title ("He" is the founder, not the airline)
        (
            "Brisk Osier",
            "**Brisk Osier** is a regional airline based at Tollow Field. "
            "He founded it after eleven years as a freight pilot.",
            "Brisk Osier",
            "ORGANIZATION",
        ),
        # … and outweighs the name's own words
        ("", "Harbour of Lanterns is a 2011 animated film.", "Harbour of Lanterns", "WORK"),
        (
            "",
            "Marrick Spur is one of the oldest clubs in the north.",
            "Marrick Spur",
            "ORGANIZATION",
        ),
        # an appositive with an indefinite article
        (
            "",
            "The fund was set up in 2006 by Orlen Vasko, a former bank analyst who built a "
            "portfolio of sports businesses.",
            "Orlen Vasko",
            "PERSON",
        ),
        (
            "",
            "The studio was bought in 2019 by Carrow Lane, a streaming company.",
            "Carrow Lane",
            "ORGANIZATION",
        ),
        # a class noun after a determiner, right before the name
        (
            "",
            "The fund completed its purchase of the club Dunwold Athletic in 2014.",
            "Dunwold Athletic",
            "ORGANIZATION",
        ),
        ("", "They walked along the river Ashwend at dawn.", "Ashwend", "LOCATION"),
        # an appositive with "the", a kin noun among the class nouns
        (
            "",
            "The first curator was chosen in 1921: Isolde Varne, the daughter of a keeper.",
            "Isolde Varne",
            "PERSON",
        ),
        ("", "Ashwend, the county town, stands on the Kell.", "Ashwend", "LOCATION"),
        # after a place's preposition a person's appositive is the subject's
        ("", "He was born in Ashwend, the son of a carrier.", "Ashwend", "LOCATION"),
        # the class noun before a copula, then the name
        ("", "The museum's first curator was Isolde Varne.", "Isolde Varne", "PERSON"),
        ("", "Its owner became the airline Brisk Osier in 1990.", "Brisk Osier", "ORGANIZATION"),
    ],
)
def test_a_class_noun_the_text_gives_a_name_types_it(
    title: str, text: str, name: str, expected: str
) -> None:
    (result,) = OfflineExtractor(show_progress=False).extract(
        [ChunkInput(chunk_id="c", doc_id="d", title=title, text=text)]
    )
    assert _types(result.entities)[name] == expected


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # a relational noun classifies films and clubs as often as people
        ("Sefton Reach was the winner of the 2009 Kell Prize.", "Sefton Reach"),
        # a copula after a name that does not open its sentence is not said of that name
        ("The company founded by Pell Marsh is a sports investor.", "Pell Marsh"),
    ],
)
def test_a_noun_that_does_not_classify_the_name_leaves_it_untyped(text: str, name: str) -> None:
    entities = OfflineExtractor(show_progress=False).find_entities(text)
    assert _types(entities)[name] == "CONCEPT"


@pytest.mark.parametrize(
    ("title", "text", "name"),
    [
        # a file's name as the title: the entity is named as the text writes it
        ("ansel_dray", "Ansel Dray (1841–1912) was a plant hunter from Harkmoor.", "Ansel Dray"),
        ("merrow-quill", "Merrow Quill is a paper mill on the River Harkmoor.", "Merrow Quill"),
        ("tollby mill", "The Tollby Mill was built in 1820 by Ansel Dray.", "Tollby Mill"),
        # a title as written stays the name
        ("Ansel Dray", "Ansel Dray was a plant hunter from Harkmoor.", "Ansel Dray"),
        ("ANSEL DRAY", "Ansel Dray was a plant hunter from Harkmoor.", "ANSEL DRAY"),
        # a lower-case title the text never writes keeps its own spelling
        ("ansel_dray", "He was a plant hunter from Harkmoor.", "ansel_dray"),
    ],
)
def test_a_file_name_title_takes_the_texts_spelling(title: str, text: str, name: str) -> None:
    chunk = ChunkInput(chunk_id="c1", doc_id="d1", title=title, text=text)
    (result,) = OfflineExtractor(show_progress=False).extract([chunk])
    assert result.entities[0].name == name
