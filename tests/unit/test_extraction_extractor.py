"""LLMExtractor with the fake chat model: failures, cache, gleaning, clean-up, accounting."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from extraction.llm import PROMPT_VERSION, LLMExtractor
from extraction.schema import ChunkInput
from extraction.structured import ResponseCache
from kg_rag.testing import FakeChatModel, Response

Script = list[tuple[str, Response | list[Response]]]

pytestmark = pytest.mark.unit


def _reply(
    entities: list[tuple[str, str]], relations: Sequence[tuple[str, str, float]] = ()
) -> str:
    return json.dumps(
        {
            "entities": [{"name": n, "type": t, "description": f"{n} here"} for n, t in entities],
            "relations": [
                {"source": s, "target": o, "type": "related to", "strength": w}
                for s, o, w in relations
            ],
        }
    )


CURIE = ChunkInput(chunk_id="c1", doc_id="d1", text="Marie Curie worked in Paris.")
TURING = ChunkInput(chunk_id="c2", doc_id="d1", text="Alan Turing was born in London.")
BROKEN = ChunkInput(chunk_id="c3", doc_id="d2", text="Nobody knows this broken chunk.")

SCRIPT: Script = [
    ("may have been missed", _reply([])),
    (
        "Marie Curie",
        _reply([("Marie Curie", "PERSON"), ("Paris", "LOCATION")], [("Marie Curie", "Paris", 0.9)]),
    ),
    (
        "Alan Turing",
        _reply([("Alan Turing", "person"), ("London", "GPE")], [("Alan Turing", "London", 8)]),
    ),
    ("broken chunk", [RuntimeError("model crashed")]),
]


def test_failed_chunk_is_recorded_and_the_batch_continues() -> None:
    fake = FakeChatModel(script=SCRIPT)
    extractor = LLMExtractor(fake, max_retries=2, backoff_s=0, show_progress=False)
    results = extractor.extract([CURIE, BROKEN, TURING])
    assert [r.chunk_id for r in results] == ["c1", "c3", "c2"]
    ok, broken, turing = results
    assert broken.error is not None and "model crashed" in broken.error
    assert broken.entities == [] and broken.llm_calls == 3 and broken.doc_id == "d2"
    assert ok.error is None and {e.name for e in ok.entities} == {"Marie Curie", "Paris"}
    assert turing.ok and turing.llm_calls == 1
    assert extractor.usage.failures == 1
    assert extractor.usage.calls == 5


def test_types_and_strengths_are_canonicalized() -> None:
    fake = FakeChatModel(script=SCRIPT)
    (turing,) = LLMExtractor(fake, show_progress=False).extract([TURING])
    assert {e.name: e.type for e in turing.entities} == {
        "Alan Turing": "PERSON",
        "London": "LOCATION",
    }
    (rel,) = turing.relations
    assert (rel.source, rel.target, rel.type, rel.strength) == (
        "Alan Turing",
        "London",
        "RELATED_TO",
        0.8,
    )


def test_same_chunk_twice_with_one_cache_costs_one_call() -> None:
    fake = FakeChatModel(script=SCRIPT)
    cache = ResponseCache()
    first = LLMExtractor(fake, cache=cache, show_progress=False).extract([CURIE])[0]
    second_extractor = LLMExtractor(fake, cache=cache, show_progress=False)
    second = second_extractor.extract([CURIE])[0]
    assert len(fake.calls) == 1
    assert not first.cached and first.llm_calls == 1
    assert second.cached and second.llm_calls == 0
    assert second.entities == first.entities
    assert second_extractor.usage.cache_hits == 1 and second_extractor.usage.calls == 0


def test_prompt_version_is_part_of_the_cache_key() -> None:
    fake = FakeChatModel(script=SCRIPT)
    cache = ResponseCache()
    LLMExtractor(fake, cache=cache, show_progress=False).extract([CURIE])
    LLMExtractor(
        fake, cache=cache, prompt_version=PROMPT_VERSION + "-next", show_progress=False
    ).extract([CURIE])
    assert len(fake.calls) == 2


def test_gleaning_adds_missed_entities() -> None:
    script: Script = [
        (
            "may have been missed",
            _reply(
                [("Pierre Curie", "PERSON"), ("Marie Curie", "PERSON")],
                [("Pierre Curie", "Marie Curie", 0.7)],
            ),
        ),
        ("Marie Curie", _reply([("Marie Curie", "PERSON")])),
    ]
    chunk = ChunkInput(chunk_id="c9", text="Marie Curie married Pierre Curie.")
    fake = FakeChatModel(script=script)
    (result,) = LLMExtractor(fake, gleaning=1, show_progress=False).extract([chunk])
    assert [e.name for e in result.entities] == ["Marie Curie", "Pierre Curie"]
    assert len(result.relations) == 1
    assert result.llm_calls == 2
    # The gleaning prompt shows the model what it already found.
    assert '"Marie Curie"' in fake.calls[1].prompt


def test_gleaning_failure_keeps_the_first_pass() -> None:
    script: Script = [
        ("may have been missed", [RuntimeError("glean broke")]),
        ("Marie Curie", _reply([("Marie Curie", "PERSON")])),
    ]
    fake = FakeChatModel(script=script)
    (result,) = LLMExtractor(fake, gleaning=2, max_retries=0, show_progress=False).extract([CURIE])
    assert result.ok and [e.name for e in result.entities] == ["Marie Curie"]


def test_relation_endpoints_missing_from_entities() -> None:
    # "Paris" is in the text but not listed: it is added. "Atlantis" is not in the text: the
    # relation is dropped. A self-relation is dropped too.
    reply = _reply(
        [("Marie Curie", "PERSON")],
        [
            ("Marie Curie", "Paris", 0.6),
            ("Marie Curie", "Atlantis", 0.9),
            ("Marie Curie", "marie curie", 1),
        ],
    )
    fake = FakeChatModel(script=[("Marie Curie", reply)])
    (result,) = LLMExtractor(fake, show_progress=False).extract([CURIE])
    assert {e.name: e.type for e in result.entities} == {
        "Marie Curie": "PERSON",
        "Paris": "CONCEPT",
    }
    assert [(r.source, r.target) for r in result.relations] == [("Marie Curie", "Paris")]


def test_duplicate_entities_merge_within_a_chunk() -> None:
    reply = json.dumps(
        {
            "entities": [
                {"name": "Marie Curie", "type": "PERSON", "description": "A physicist."},
                {"name": "marie  curie", "type": "PERSON", "description": "Born in Warsaw."},
                {"name": "Paris", "type": "SPACESHIP"},
            ]
        }
    )
    fake = FakeChatModel(script=[("Marie Curie", reply)])
    (result,) = LLMExtractor(fake, show_progress=False).extract([CURIE])
    curie, paris = result.entities
    assert curie.description == "A physicist. Born in Warsaw."
    assert paris.type == "CONCEPT"  # not an allowed type


def test_prompt_lists_allowed_types() -> None:
    extractor = LLMExtractor(
        FakeChatModel(script=[]), entity_types=["person", "org"], relation_types=["works_at"]
    )
    system = extractor.build_messages(CURIE)[0].content
    assert "PERSON, ORGANIZATION" in system and "WORKS_AT" in system


async def test_aextract_inside_a_loop_and_sync_face_agree() -> None:
    fake = FakeChatModel(script=SCRIPT)
    extractor = LLMExtractor(fake, concurrency=2, show_progress=False)
    asynchronous = await extractor.aextract([CURIE, TURING])
    synchronous = extractor.extract([CURIE, TURING])  # called with a running loop
    assert [r.entities for r in asynchronous] == [r.entities for r in synchronous]
    assert extractor.usage.calls == 4


def test_bad_concurrency_is_refused() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        LLMExtractor(FakeChatModel(script=[]), concurrency=0)


# -- validation of replies -----------------------------------------------------------------------
ADA = ChunkInput(
    chunk_id="a1",
    doc_id="d9",
    title="Notes",
    text="Ada Lovelace wrote the first program with Charles Babbage in London.",
)


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (_reply([("Ada Lovelace", "PERSON"), ("Grace Hopper", "PERSON")]), "not in the text"),
        (_reply([("Isaac Newton", "PERSON")]), "not in the text"),
        (_reply([]), "no entities"),
        (json.dumps({"unexpected": True}), "unknown keys"),
        ('{"entities": [{"name": "Ada Lovelace", "type": "PERSON"}, {"name": "Cha', "truncated"),
    ],
)
def test_a_wrong_reply_is_retried_then_recorded(bad: str, problem: str) -> None:
    good = _reply([("Ada Lovelace", "PERSON"), ("Charles Babbage", "PERSON")])
    retried = LLMExtractor(
        FakeChatModel(script=[("Ada Lovelace", [bad, good])]), max_retries=1, backoff_s=0
    )
    (ok,) = retried.extract([ADA])
    assert ok.error is None and {e.name for e in ok.entities} == {"Ada Lovelace", "Charles Babbage"}
    assert ok.llm_calls == 2
    failing = LLMExtractor(
        FakeChatModel(script=[("Ada Lovelace", bad)]), max_retries=1, backoff_s=0
    )
    (failed,) = failing.extract([ADA])
    assert failed.error is not None and problem in failed.error
    assert failed.entities == [] and failed.relations == []


@pytest.mark.parametrize(
    "entities",
    [
        [("ada lovelace", "PERSON")],  # other case
        [("Lovelace, Ada", "PERSON")],  # not as written, but alias below is
        [("London", "LOCATION"), ("Notes", "WORK")],  # the title counts
    ],
)
def test_names_found_in_the_text_or_title_pass(entities: list[tuple[str, str]]) -> None:
    reply = json.loads(_reply(entities))
    for e in reply["entities"]:
        if e["name"] == "Lovelace, Ada":
            e["aliases"] = ["Ada Lovelace"]
    extractor = LLMExtractor(
        FakeChatModel(script=[("Ada Lovelace", json.dumps(reply))]), max_retries=0, backoff_s=0
    )
    (result,) = extractor.extract([ADA])
    assert result.error is None


def test_an_empty_reply_passes_when_the_text_names_nothing() -> None:
    plain = ChunkInput(chunk_id="p1", text="it was raining and nobody came to the meeting.")
    extractor = LLMExtractor(
        FakeChatModel(script=[("raining", _reply([]))]), max_retries=0, backoff_s=0
    )
    (result,) = extractor.extract([plain])
    assert result.error is None and result.entities == []
