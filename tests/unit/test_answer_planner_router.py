"""Rule planner, router and offline answering pieces."""

from __future__ import annotations

import pytest

from kg_rag.answer import offline
from kg_rag.answer.planner import RulePlanner, bind_query
from kg_rag.answer.router import RouteContext, RuleRouter
from kg_rag.models import Evidence, PlanStep

pytestmark = pytest.mark.unit


@pytest.fixture()
def planner() -> RulePlanner:
    return RulePlanner()


def test_bridge_question_becomes_dependent_steps(planner: RulePlanner) -> None:
    plan = planner.plan(
        "Who was the first president of the association which published Journal of Psychotherapy Integration?"
    )
    assert plan.strategy == "bridge"
    assert [s.query for s in plan.steps] == [
        "association which published Journal of Psychotherapy Integration",
        "Who was the first president of #1",
    ]
    assert plan.steps[1].depends_on == [1]


def test_nested_bridges_chain_three_steps(planner: RulePlanner) -> None:
    plan = planner.plan(
        "Who was in charge of the country where the composer of Aschenbrodel was a citizen?"
    )
    assert [s.query for s in plan.steps] == [
        "composer of Aschenbrodel",
        "country where #1 was a citizen",
        "Who was in charge of #2",
    ]
    assert [s.depends_on for s in plan.steps] == [[], [1], [2]]


def test_comparison_splits_into_two_lookups_and_a_compare(planner: RulePlanner) -> None:
    plan = planner.plan("Which company was founded first, Nimbus Analytics or Brightwell Robotics?")
    assert plan.strategy == "compare"
    # Each lookup asks for the compared value ("first" → a date).
    assert plan.steps[0].query.startswith("When Nimbus Analytics")
    assert plan.steps[1].query.startswith("When Brightwell Robotics")
    assert plan.steps[2].kind == "compare" and plan.steps[2].depends_on == [1, 2]


def test_conjunction_binds_pronoun_to_first_answer(planner: RulePlanner) -> None:
    plan = planner.plan("Which company did Clara Okafor found, and where is it based?")
    assert plan.strategy == "conjunction"
    assert plan.steps[1].query == "where is #1 based"
    assert plan.steps[1].depends_on == [1]


def test_chinese_bridge_and_comparison(planner: RulePlanner) -> None:
    plan = planner.plan("蓝鲸科技的创始人毕业于哪所大学？")
    assert [s.query for s in plan.steps] == ["蓝鲸科技的创始人", "#1毕业于哪所大学"]
    compare = planner.plan("北京大学和清华大学哪个更早成立？")
    assert compare.strategy == "compare" and len(compare.steps) == 3


def test_of_placeholder_bridge_adds_a_hop(planner: RulePlanner) -> None:
    plan = planner.plan(
        "In which province is the headquarters of the company that Clara Okafor founded after leaving Nimbus Analytics?"
    )
    assert [s.query for s in plan.steps] == [
        "company that Clara Okafor founded after leaving Nimbus Analytics",
        "headquarters of #1",
        "In which province is #2",
    ]
    assert len(planner.plan("Who is the father of the singer that wrote Blue Moon?").steps) == 2


def test_simple_question_is_one_step(planner: RulePlanner) -> None:
    plan = planner.plan("When was Nimbus Analytics founded?")
    assert plan.strategy == "single" and len(plan.steps) == 1


def test_bind_query_replaces_known_placeholders_only() -> None:
    assert bind_query("Who led #1 after #2?", {1: "Acme"}) == "Who led Acme after #2?"


def test_router_rules() -> None:
    router = RuleRouter(top_k=4)
    step = PlanStep(index=1, query="q")
    d = router.route(step, "What are the main themes across the documents?", RouteContext())
    assert d.route == "community"
    d = router.route(step, "When was Acme founded?", RouteContext(linked=[{"name": "Acme"}]))
    assert (d.route, d.granularity) == ("graph", "sentence")
    assert "Acme" in d.reason
    d = router.route(step, "Why did the project fail?", RouteContext())
    assert (d.route, d.granularity) == ("chunks", "section")
    no_comm = RuleRouter(has_communities=False)
    assert no_comm.route(step, "Summarize the overall topics", RouteContext()).route == "chunks"


def _ev(text: str, score: float = 1.0, cid: str = "c1", doc: str = "d1") -> Evidence:
    return Evidence(chunk_id=cid, doc_id=doc, text=text, score=score)


def test_extract_answer_prefers_expected_kind_and_excludes_query_spans() -> None:
    ev = [
        _ev(
            "Brightwell Robotics was founded in 2018 by Clara Okafor. It is headquartered in Eindhoven."
        )
    ]
    when = offline.extract_answer("When was Brightwell Robotics founded?", ev)
    assert when is not None and when.text == "2018"
    who = offline.extract_answer("Who founded Brightwell Robotics?", ev)
    assert who is not None and who.text == "Clara Okafor"
    where = offline.extract_answer("Where is Brightwell Robotics headquartered?", ev)
    assert where is not None and where.text == "Eindhoven"
    assert ev[0].text[where.start : where.end] == "Eindhoven"


def test_grade_is_weak_without_matching_terms() -> None:
    good = offline.grade_evidence(
        "founder of Brightwell Robotics", [_ev("Brightwell Robotics founder")], 0.4
    )
    bad = offline.grade_evidence(
        "founder of Brightwell Robotics", [_ev("Tulips grow in spring")], 0.4
    )
    assert good.passed and not bad.passed and good.score > bad.score


def test_compare_answers_by_date() -> None:
    opts = [("Nimbus Analytics", "2009"), ("Brightwell Robotics", "2018")]
    assert offline.compare_answers("Which was founded first, A or B?", opts) == (
        "Nimbus Analytics",
        "earliest date (2009)",
    )
    assert offline.compare_answers("Which was founded later?", opts)[0] == "Brightwell Robotics"  # type: ignore[index]
    assert offline.compare_answers("Which is nicer?", opts) is None


def test_sentence_offsets_handle_abbreviations_and_chinese() -> None:
    text = "Dr. Smith went home. 他很好！Then U.S. Steel grew."
    spans = offline.split_sentences_with_offsets(text)
    assert [text[s:e] for s, e in spans] == [
        "Dr. Smith went home.",
        "他很好！",
        "Then U.S. Steel grew.",
    ]
