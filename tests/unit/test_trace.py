"""Offline answers to the demo questions and what they carry: citations that are exact slices
of the stored documents, a trace with routes and reasons, JSON, HTML and a Browser query."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest

from kg_rag.answer.trace import Answer
from kg_rag.demo import DEMO_QUESTIONS
from kg_rag.engine import KnowledgeEngine

pytestmark = pytest.mark.unit

# Facts of the demo corpus (kg_rag/demo/corpus), one per demo question, in order.
DEMO_FACTS = ("North Brabant", "Nimbus Analytics", "Malmö", "浙江大学")
CASES = list(zip(DEMO_QUESTIONS, DEMO_FACTS, strict=True))
IDS = [f"q{i + 1}" for i in range(len(DEMO_QUESTIONS))]


@pytest.mark.parametrize(("question", "fact"), CASES, ids=IDS)
def test_offline_demo_answer_is_correct_and_cited(
    demo_engine: KnowledgeEngine, demo_answers: dict[str, Answer], question: str, fact: str
) -> None:
    answer = demo_answers[question]
    assert answer.text.startswith(fact), answer.render_text()
    assert answer.citations, "the answer cites its evidence"
    assert not answer.truncated and answer.trace.llm_calls == 0
    assert any(fact in c.quote for c in answer.citations), "a citation shows the answer itself"
    for c in answer.citations:
        assert f"[{c.n}]" in answer.text
        document = demo_engine.chunk_store.get_document(c.doc_id)
        assert document is not None, c.doc_id
        assert document.text[c.char_start : c.char_end] == c.quote
        (chunk,) = demo_engine.chunk_store.get_chunks([c.chunk_id])
        assert chunk.doc_id == c.doc_id
        assert chunk.char_start <= c.char_start < c.char_end <= chunk.char_end


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_cited_chunks_are_part_of_the_answer_evidence(
    demo_answers: dict[str, Answer], question: str
) -> None:
    answer = demo_answers[question]
    evidence = {e.chunk_id for e in answer.evidence}
    missing = [c.quote for c in answer.citations if c.chunk_id not in evidence]
    assert not missing, f"cited but left out of answer.evidence: {missing}"


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_trace_records_plan_routes_reasons_and_grades(
    demo_answers: dict[str, Answer], question: str
) -> None:
    trace = demo_answers[question].trace
    assert trace.plan is not None and trace.plan.planner == "rules"
    assert len(trace.steps) == len(trace.plan.steps) >= 2, "every demo question needs several hops"
    for step in trace.steps:
        assert step.decision.route in {"graph", "community", "chunks"}
        assert step.decision.reason, f"step {step.index} has no reason"
        if trace.plan.steps[step.index - 1].kind == "compare":
            assert step.answer_type in ("NAME", "YESNO")  # decided from the value steps
            continue
        assert step.attempts and step.grades and len(step.grades) == len(step.attempts)
        assert step.hits, f"step {step.index} found no evidence"
        assert "#" not in step.bound_query, "placeholders are bound before retrieval"
        if step.decision.route == "graph":
            assert step.linked_entities and step.cypher
    assert trace.ms > 0


def test_bridge_steps_chain_their_answers(demo_answers: dict[str, Answer]) -> None:
    steps = demo_answers[DEMO_QUESTIONS[0]].trace.steps
    assert [s.answer for s in steps] == ["Brightwell Robotics", "Eindhoven", "North Brabant"]
    for earlier, later in itertools.pairwise(steps):
        assert earlier.answer in later.bound_query


def test_graph_calls_in_the_trace_carry_their_cypher(demo_answers: dict[str, Answer]) -> None:
    calls = [c for a in demo_answers.values() for s in a.trace.steps for c in s.cypher]
    assert {c.name for c in calls} >= {"neighbour_ids", "ppr_adjacency", "chunks_for_entities"}
    missing = sorted({c.name for c in calls if not c.cypher.strip()})
    assert not missing, f"graph calls recorded without the Cypher Neo4j runs for them: {missing}"
    assert all(c.params for c in calls)


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_answer_json_round_trips(demo_answers: dict[str, Answer], question: str) -> None:
    answer = demo_answers[question]
    text = answer.to_json()
    assert json.loads(text)["trace"]["steps"], "the JSON carries the trace"
    again = Answer.model_validate_json(text)
    assert again == answer
    assert again.to_json() == text


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_repr_html_shows_each_step_route_and_escapes_text(
    demo_answers: dict[str, Answer], question: str
) -> None:
    answer = demo_answers[question]
    page = answer._repr_html_()
    assert page.startswith("<div>") and page.endswith("</div>")
    # header row, the whole-question search (step 0), then one row per planned step
    assert page.count("<tr>") == len(answer.trace.steps) + 2
    assert "whole question" in page
    for step in answer.trace.steps:
        assert f"<b>{step.decision.route}</b>/{step.decision.granularity}" in page
        assert html.escape(step.decision.reason) in page
    for c in answer.citations:
        assert html.escape(c.quote[:200]) in page


def test_repr_html_escapes_markup_in_the_question(demo_answers: dict[str, Answer]) -> None:
    answer = demo_answers[DEMO_QUESTIONS[2]].model_copy(
        update={"question": "<script>alert(1)</script>"}
    )
    page = answer._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page


@pytest.mark.parametrize("question", DEMO_QUESTIONS, ids=IDS)
def test_browser_query_starts_with_param_lines_naming_the_evidence(
    demo_answers: dict[str, Answer], question: str
) -> None:
    answer = demo_answers[question]
    lines = answer.browser_query().splitlines()
    params: dict[str, list[str]] = {}
    for line in lines:
        m = re.fullmatch(r":param (\w+) => (.*);", line)
        if m is None:
            break
        params[m.group(1)] = json.loads(m.group(2))
    assert set(params) == {"chunkIds", "entityIds"}, lines[:3]
    assert lines[len(params)].startswith("MATCH"), "the Cypher follows the :param lines"
    cited = {c.chunk_id for c in answer.citations}
    assert (
        set(params["chunkIds"])
        == {e.chunk_id for e in answer.evidence if e.route != "community"} | cited
    )
    linked = {str(le["entity_id"]) for s in answer.trace.steps for le in s.linked_entities}
    assert linked and linked <= set(params["entityIds"])
    body = "\n".join(lines[len(params) :])
    assert "$chunkIds" in body and "$entityIds" in body


def test_render_text_lists_steps_and_citations(demo_answers: dict[str, Answer]) -> None:
    answer = demo_answers[DEMO_QUESTIONS[0]]
    text = str(answer)
    assert text.splitlines()[0] == f"Q: {answer.question}"
    for step in answer.trace.steps:
        assert f"step {step.index}: [{step.decision.route}/{step.decision.granularity}]" in text
    for c in answer.citations:
        assert f"[{c.n}] {c.source or c.doc_id} @{c.char_start}-{c.char_end}" in text


OVERVIEW_Q = "What are the main themes across the documents?"


@pytest.fixture(scope="module")
def overview_answer(demo_engine: KnowledgeEngine) -> Answer:
    return demo_engine.ask(OVERVIEW_Q)


def test_overview_question_is_answered_from_community_summaries(
    demo_engine: KnowledgeEngine, overview_answer: Answer
) -> None:
    (step,) = overview_answer.trace.steps
    assert step.decision.route == "community" and "overview" in step.decision.reason
    assert step.answer and overview_answer.text.startswith(step.answer[:20])
    communities = {c.community_id: c for c in demo_engine.graph_store.communities()}
    assert overview_answer.citations
    for c in overview_answer.citations:
        assert (
            c.chunk_id in communities and c.doc_id == f"community:{communities[c.chunk_id].level}"
        )
        assert c.quote.startswith(communities[c.chunk_id].title)


def test_every_citation_of_an_overview_answer_is_referenced_in_its_text(
    overview_answer: Answer,
) -> None:
    unreferenced = [
        c.n for c in overview_answer.citations if f"[{c.n}]" not in overview_answer.text
    ]
    assert not unreferenced, (
        f"citations listed but never marked in {overview_answer.text!r}: {unreferenced}"
    )


def test_browser_query_names_no_community_as_a_chunk(
    demo_engine: KnowledgeEngine, overview_answer: Answer
) -> None:
    params_line = overview_answer.browser_query().splitlines()[0]
    chunk_ids = set(json.loads(params_line.removeprefix(":param chunkIds => ").removesuffix(";")))
    community_ids = {c.community_id for c in demo_engine.graph_store.communities()}
    assert not chunk_ids & community_ids, "community ids are not Chunk nodes in Neo4j"


def test_graph_steps_read_the_linked_neighbourhood_once(
    demo_engine: KnowledgeEngine, demo_answers: dict[str, Answer]
) -> None:
    # The graph route reads the linked entities' neighbourhood beside its searches; the reader
    # takes the related entities from it instead of reading it again, so each graph attempt
    # records exactly one neighbourhood call, over the step's linked entities, and what it
    # yields is what the reader would read on its own.
    reader = demo_engine.pipeline.reader
    graph_steps = [
        s for a in demo_answers.values() for s in a.trace.steps if s.decision.route == "graph"
    ]
    assert len(graph_steps) >= 2, "the demo questions take the graph route"
    for step in graph_steps:
        calls = [c for c in step.cypher if c.name == "neighbour_ids"]
        graph_attempts = [a for a in step.attempts if a.startswith("graph/")]
        assert len(calls) == len(graph_attempts) >= 1, step.attempts
        linked = sorted({le["entity_id"] for le in step.linked_entities})
        assert calls[0].params["ids"] == linked
        shared, _ = demo_engine.pipeline.graph.related(linked, calls[0].params["limit"])
        assert shared == reader.graph.related(linked)
