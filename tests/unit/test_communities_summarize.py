"""communities.summarize: context packing, extractive and LLM summaries (fake chat model)."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from communities import (
    CommunityContext,
    CommunityRecord,
    CommunityReport,
    EntityInfo,
    ExtractiveSummarizer,
    LLMSummarizer,
    RelationInfo,
    build_contexts,
    detect_communities,
    estimate_tokens,
    weighted_degrees,
)
from extraction.structured import ResponseCache
from kg_rag.testing import FakeChatModel

pytestmark = pytest.mark.unit


def _world() -> tuple[list[EntityInfo], list[RelationInfo]]:
    """Two groups: a physics circle around Marie Curie and a football club."""
    entities = [
        EntityInfo(
            entity_id="curie",
            name="Marie Curie",
            type="PERSON",
            description="Physicist and chemist who pioneered research on radioactivity.",
        ),
        EntityInfo(
            entity_id="pierre",
            name="Pierre Curie",
            type="PERSON",
            description="French physicist, husband of Marie Curie.",
        ),
        EntityInfo(
            entity_id="sorbonne",
            name="Sorbonne",
            type="ORGANIZATION",
            description="University in Paris.",
        ),
        EntityInfo(
            entity_id="polonium",
            name="Polonium",
            type="CONCEPT",
            description="Chemical element discovered in 1898.",
        ),
        EntityInfo(
            entity_id="club", name="FC Example", type="ORGANIZATION", description="A football club."
        ),
        EntityInfo(
            entity_id="coach",
            name="Jane Coach",
            type="PERSON",
            description="Head coach of FC Example.",
        ),
        EntityInfo(
            entity_id="stadium",
            name="Example Arena",
            type="LOCATION",
            description="Home ground of FC Example.",
        ),
    ]
    relations = [
        RelationInfo(
            source_id="curie",
            target_id="pierre",
            type="MARRIED_TO",
            weight=3.0,
            description="Marie and Pierre Curie were married in 1895.",
            evidence=[
                "Marie married Pierre Curie in 1895.",
                "The Curies worked together in Paris.",
            ],
        ),
        RelationInfo(
            source_id="curie",
            target_id="polonium",
            type="DISCOVERED",
            weight=2.0,
            evidence=["In 1898 Marie Curie discovered polonium."],
        ),
        RelationInfo(source_id="pierre", target_id="polonium", type="DISCOVERED", weight=1.0),
        RelationInfo(
            source_id="curie",
            target_id="sorbonne",
            type="WORKED_AT",
            weight=2.0,
            evidence=["She became the first woman professor at the Sorbonne."],
        ),
        RelationInfo(
            source_id="coach",
            target_id="club",
            type="COACHES",
            weight=2.0,
            evidence=["Jane Coach has led FC Example since 2020."],
        ),
        RelationInfo(source_id="club", target_id="stadium", type="PLAYS_AT", weight=1.0),
        RelationInfo(source_id="coach", target_id="stadium", type="VISITS", weight=0.5),
    ]
    return entities, relations


def _graph(relations: list[RelationInfo]) -> nx.Graph:
    graph = nx.Graph()
    for r in relations:
        graph.add_edge(r.source_id, r.target_id, weight=r.weight)
    return graph


World = tuple[list[CommunityRecord], list[EntityInfo], list[RelationInfo]]


@pytest.fixture()
def world() -> World:
    entities, relations = _world()
    records = detect_communities(_graph(relations), max_cluster_size=10)
    return records, entities, relations


def _contexts(world: World, **kw: int) -> list[CommunityContext]:
    records, entities, relations = world
    return build_contexts(records, entities, relations, **kw)


def _report_json(title: str = "The Curie circle") -> str:
    return json.dumps(
        {
            "title": title,
            "summary": "Marie Curie and colleagues.",
            "findings": ["a", "b"],
            "rating": 7.5,
        }
    )


# --- contexts -----------------------------------------------------------------------------


def test_contexts_pack_members_by_degree_with_their_relations(world: World) -> None:
    contexts = _contexts(world)
    assert len(contexts) == 2
    curie = next(c for c in contexts if any(e.entity_id == "curie" for e in c.entities))
    assert next(e.entity_id for e in curie.entities) == "curie"  # highest weighted degree
    assert curie.entities[0].degree == pytest.approx(7.0)
    assert {(r.source_id, r.target_id) for r in curie.relations} == {
        ("curie", "pierre"),
        ("curie", "polonium"),
        ("pierre", "polonium"),
        ("curie", "sorbonne"),
    }
    # No relation crosses communities.
    assert not any(r.source_id == "coach" for r in curie.relations)
    text = curie.render()
    assert "Marie Curie" in text and "In 1898 Marie Curie discovered polonium." in text
    assert not curie.truncated
    assert curie.token_estimate == estimate_tokens(text)


def test_budget_is_respected_and_truncation_reported(world: World) -> None:
    roomy = _contexts(world, token_budget=2000)
    tight = _contexts(world, token_budget=110)
    for big, small in zip(roomy, tight, strict=True):
        assert small.token_estimate <= 110
        assert small.entities, "the first entity always goes in"
        assert small.entities[0].entity_id == big.entities[0].entity_id
    assert any(c.truncated for c in tight)
    assert sum(len(c.render()) for c in tight) < sum(len(c.render()) for c in roomy)


def test_evidence_is_capped_per_relation(world: World) -> None:
    one = _contexts(world, max_evidence=1)
    married = next(r for c in one for r in c.relations if r.type == "MARRIED_TO")
    assert married.evidence == ["Marie married Pierre Curie in 1895."]
    two = _contexts(world, max_evidence=2)
    married = next(r for c in two for r in c.relations if r.type == "MARRIED_TO")
    assert len(married.evidence) == 2


def test_members_without_details_still_appear() -> None:
    record = CommunityRecord(community_id="c1", level=0, members=["x", "y"], size=2)
    (context,) = build_contexts(
        [record], [], [RelationInfo(source_id="x", target_id="y", weight=2.0)]
    )
    assert {e.name for e in context.entities} == {"x", "y"}
    assert all(e.degree == 2.0 for e in context.entities)
    assert weighted_degrees([RelationInfo(source_id="x", target_id="x", weight=2.0)]) == {"x": 2.0}


# --- extractive ---------------------------------------------------------------------------


def test_extractive_summary_is_deterministic_and_names_the_top_entity(world: World) -> None:
    records, entities, relations = world
    first = ExtractiveSummarizer().summarize(build_contexts(records, entities, relations))
    shuffled_e, shuffled_r = list(entities), list(relations)
    random.Random(4).shuffle(shuffled_e)
    random.Random(5).shuffle(shuffled_r)
    second = ExtractiveSummarizer().summarize(build_contexts(records, shuffled_e, shuffled_r))
    assert first == second
    curie_id = next(r.community_id for r in records if "curie" in r.members)
    report = first[curie_id]
    assert report.title.startswith("Marie Curie")
    assert "Marie Curie" in report.summary
    assert any("married to" in f for f in report.findings)
    assert "Marie married Pierre Curie in 1895." in report.summary
    club_id = next(r.community_id for r in records if "club" in r.members)
    assert "FC Example" in first[club_id].title or "Jane Coach" in first[club_id].title
    # Bigger, denser community → higher rating.
    assert 0 < first[club_id].rating < report.rating <= 10


# --- LLM ----------------------------------------------------------------------------------


def test_llm_report_is_parsed(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(
        script=[
            (r"Marie Curie", _report_json("The Curie circle")),
            (r"FC Example", _report_json("FC Example and its coach")),
        ]
    )
    summarizer = LLMSummarizer(fake, backoff_s=0, progress=False)
    reports = summarizer.summarize(contexts)
    assert list(reports) == [c.community_id for c in contexts]
    titles = sorted(r.title for r in reports.values())
    assert titles == ["FC Example and its coach", "The Curie circle"]
    assert all(isinstance(r, CommunityReport) and r.rating == 7.5 for r in reports.values())
    assert len(fake.calls) == 2 and summarizer.usage.calls == 2
    assert all(call.tools == ["CommunityReport"] for call in fake.calls)
    assert "community report" in fake.calls[0].prompt.lower()
    assert summarizer.failures == []


def test_malformed_output_is_retried(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(
        script=[
            (r"previous answer was not valid", _report_json("Repaired")),
            (r"Marie Curie", '{"title": "no summary and rating 42", "rating": 42}'),
            (r"FC Example", _report_json("Club")),
        ]
    )
    summarizer = LLMSummarizer(fake, max_retries=2, backoff_s=0, progress=False)
    reports = summarizer.summarize(contexts)
    assert sorted(r.title for r in reports.values()) == ["Club", "Repaired"]
    assert summarizer.usage.retries == 1 and summarizer.usage.calls == 3
    assert summarizer.failures == []


def test_failure_is_recorded_and_the_batch_goes_on(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(
        script=[
            (r"Marie Curie", "this is not JSON at all"),
            (r"FC Example", _report_json("Club")),
        ]
    )
    summarizer = LLMSummarizer(fake, max_retries=1, backoff_s=0, progress=False)
    reports = summarizer.summarize(contexts)
    curie_id = next(
        c.community_id for c in contexts if any(e.name == "Marie Curie" for e in c.entities)
    )
    assert curie_id not in reports
    assert [r.title for r in reports.values()] == ["Club"]
    assert [f.community_id for f in summarizer.failures] == [curie_id]
    assert summarizer.failures[0].attempts == 2
    assert summarizer.usage.failures == 1
    assert len(fake.calls_matching("Marie Curie")) == 2


def test_model_errors_fall_back_to_extractive(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(
        script=[
            (r"Marie Curie", RuntimeError("server down")),
            (r"FC Example", _report_json("Club")),
        ]
    )
    summarizer = LLMSummarizer(
        fake, max_retries=0, backoff_s=0, fallback=ExtractiveSummarizer(), progress=False
    )
    reports = summarizer.summarize(contexts)
    assert len(reports) == 2
    assert any(r.title.startswith("Marie Curie") for r in reports.values())
    assert "server down" in summarizer.failures[0].error


def test_cache_avoids_repeat_calls(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(script=[(r"community report", _report_json())])
    cache = ResponseCache()
    first = LLMSummarizer(fake, cache=cache, progress=False).summarize(contexts)
    second_run = LLMSummarizer(fake, cache=cache, progress=False)
    second = second_run.summarize(contexts)
    assert first == second
    assert len(fake.calls) == 2
    assert second_run.usage.cache_hits == 2 and second_run.usage.calls == 0
    other_version = LLMSummarizer(fake, cache=cache, prompt_version="community-v3", progress=False)
    other_version.summarize(contexts)
    assert len(fake.calls) == 4, "the prompt version is part of the cache key"


async def test_async_summarize_respects_concurrency(world: World) -> None:
    contexts = _contexts(world)
    fake = FakeChatModel(script=[(r"community report", _report_json())])
    summarizer = LLMSummarizer(fake, concurrency=1, progress=False)
    reports = await summarizer.asummarize(contexts)
    assert len(reports) == 2
    # summarize() also works while a loop is running (as in Jupyter).
    assert summarizer.summarize(contexts) == reports
    with pytest.raises(ValueError):
        LLMSummarizer(fake, concurrency=0)


def test_concurrency_is_bounded() -> None:
    import threading
    import time

    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(prompt: str) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return _report_json()

    contexts = [
        CommunityContext(
            community_id=f"c{i}",
            level=0,
            size=2,
            entities=[EntityInfo(entity_id=f"e{i}", name=f"Entity {i}")],
            relations=[],
        )
        for i in range(6)
    ]
    fake = FakeChatModel(script=[(r"community report", slow)])
    reports = LLMSummarizer(fake, concurrency=2, progress=False).summarize(contexts)
    assert list(reports) == [f"c{i}" for i in range(6)]
    assert state["peak"] == 2
