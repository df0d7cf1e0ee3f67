"""Packing ranked evidence into a token budget (kg_rag.retrieval.packing)."""

from __future__ import annotations

import pytest

from kg_rag.models import Evidence
from kg_rag.retrieval.packing import answer_context, context_tokens, pack_evidence
from kg_rag.text import count_tokens

# One document: three "paragraphs" of 4, 5 and 3 tokens, then a tail; offsets are exact.
DOC = "alpha beta gamma delta. one two three four five. red green blue. tail words here."
P1 = (0, 23)
P2 = (24, 48)
P3 = (49, 64)


def _ev(
    cid: str, span: tuple[int, int], doc: str = "d", text: str | None = None, **scores: float
) -> Evidence:
    start, end = span
    return Evidence(
        chunk_id=cid,
        doc_id=doc,
        text=DOC[start:end] if text is None else text,
        score=1.0,
        char_start=start,
        char_end=end,
        scores=dict(scores),
    )


def _spans(packed: list[Evidence]) -> list[tuple[str, int, int]]:
    return [(e.chunk_id, e.char_start, e.char_end) for e in packed]


@pytest.mark.parametrize(
    ("ranked", "budget", "expected"),
    [
        # Everything fits: rank order kept.
        ([_ev("p2", P2), _ev("p1", P1)], 100, [("p2", 24, 48), ("p1", 0, 23)]),
        # The second piece crosses the budget: cut to its first tokens.
        ([_ev("p2", P2), _ev("p1", P1)], 8, [("p2", 24, 48), ("p1", 0, 10)]),
        # A piece inside a taken one costs nothing (paragraph inside its section).
        ([_ev("sec", (0, 64)), _ev("p2", P2), _ev("p3", P3)], 100, [("sec", 0, 64)]),
        # A section arriving after its paragraph absorbs it, paying only the new text.
        ([_ev("p2", P2), _ev("sec", (0, 64))], 16, [("p2", 0, 64)]),
        # Overlapping pieces merge into one span.
        ([_ev("a", (0, 30)), _ev("b", (24, 48))], 100, [("a", 0, 48)]),
        # Same offsets in another document are not merged.
        ([_ev("a", P1), _ev("b", P1, doc="e")], 100, [("a", 0, 23), ("b", 0, 23)]),
        # Budget 0: nothing.
        ([_ev("p1", P1)], 0, []),
    ],
)
def test_pack_evidence_table(
    ranked: list[Evidence], budget: int, expected: list[tuple[str, int, int]]
) -> None:
    packed = pack_evidence(ranked, budget)
    assert _spans(packed) == expected
    assert context_tokens(packed) <= budget
    for ev in packed:  # every piece stays a slice of its document
        assert ev.text == DOC[ev.char_start : ev.char_end]


def test_cut_keeps_the_hit_sentence_of_an_expanded_piece() -> None:
    # A paragraph expanded from its sentence "red green blue." (third sentence).
    para = _ev("p", (0, 64), hit_start=49.0, hit_end=64.0)
    packed = pack_evidence([para], 4)
    assert len(packed) == 1
    assert "red green blue" in packed[0].text
    assert count_tokens(packed[0].text) == 4


def test_cut_without_hit_keeps_the_start() -> None:
    packed = pack_evidence([_ev("p", (0, 64))], 3)
    assert packed[0].text == "alpha beta gamma"


def test_pieces_without_spans_are_taken_or_cut_never_merged() -> None:
    summary = Evidence(chunk_id="c1", doc_id="", text="a community summary of six words", score=1.0)
    packed = pack_evidence([summary, _ev("p1", P1), summary], 8)
    assert [e.chunk_id for e in packed] == ["c1", "p1"]
    assert packed[0].text == summary.text
    assert packed[1].text == "alpha beta"


def test_answer_context_fuses_whole_question_and_steps() -> None:
    whole = [_ev("a", P1), _ev("b", P2)]
    step = [_ev("c", P3), _ev("b", P2)]
    order = [e.chunk_id for e in answer_context(whole, [step])]
    assert order[0] == "b"  # in both lists
    assert set(order) == {"a", "b", "c"}


# -- routed granularity: the best pieces read whole, the next ones skimmed by their hit sentence --

TWO = "Alpha beta gamma. Delta epsilon zeta eta. Theta iota."  # sentences of 4, 5, 3 tokens
S1, S2, S3 = (0, 17), (18, 41), (42, 53)


def _para(cid: str, doc: str, hit: tuple[int, int] | None, **scores: float) -> Evidence:
    extra = {"hit_start": float(hit[0]), "hit_end": float(hit[1])} if hit else {}
    return Evidence(
        chunk_id=cid,
        doc_id=doc,
        text=TWO,
        score=1.0,
        char_start=0,
        char_end=len(TWO),
        scores={**extra, **scores},
    )


def _span(cid: str, doc: str, span: tuple[int, int], hit: tuple[int, int]) -> Evidence:
    """A piece of ``TWO`` other than the whole of it, with its hit sentence."""
    return Evidence(
        chunk_id=cid,
        doc_id=doc,
        text=TWO[span[0] : span[1]],
        score=1.0,
        char_start=span[0],
        char_end=span[1],
        scores={"hit_start": float(hit[0]), "hit_end": float(hit[1])},
    )


@pytest.mark.parametrize(
    ("ranked", "budget", "share", "expected"),
    [
        # The whole budget skims: both pieces' hit sentences instead of the first paragraph.
        ([_para("a", "d1", S2), _para("b", "d2", S3)], 10, 1.0, [("a", *S2), ("b", *S3)]),
        # Same budget, whole pieces (fixed granularity): the first paragraph, cut around its hit.
        ([_para("a", "d1", S2), _para("b", "d2", S3)], 10, None, [("a", 11, 53)]),
        # The first piece fills the read share (12 of 20 tokens); the next is skimmed.
        ([_para("a", "d1", S2), _para("b", "d2", S3)], 20, 0.4, [("a", 0, 53), ("b", *S3)]),
        # Nothing fits the read share (10 tokens): both skimmed, then widened while room is left.
        ([_para("a", "d1", S2), _para("b", "d2", S3)], 100, 0.9, [("a", 0, 53), ("b", 0, 53)]),
        # A skimmed piece without a hit sentence is taken whole when it fits.
        (
            [_para("a", "d1", S2), _para("b", "d2", None), _para("c", "d3", S1)],
            30,
            0.5,
            [("a", 0, 53), ("b", 0, 53), ("c", *S1)],
        ),
        # The first piece is too long for the read share (12 of 8 tokens): it is skimmed, not
        # passed over for the shorter piece below it, and widened first while room is left.
        (
            [_para("a", "d1", S2), _span("c", "d2", (18, 53), S3)],
            16,
            0.5,
            [("a", 0, 53), ("c", *S3)],
        ),
        # Skimming reaches further down the ranking than whole pieces would (a third piece in
        # 24 tokens); widening stops when a whole piece no longer fits.
        (
            [_para("a", "d1", S2), _para("b", "d2", S3), _para("c", "d3", S1)],
            24,
            0.5,
            [("a", 0, 53), ("b", *S3), ("c", *S1)],
        ),
    ],
)
def test_routed_pack_table(
    ranked: list[Evidence], budget: int, share: float | None, expected: list[tuple[str, int, int]]
) -> None:
    packed = pack_evidence(ranked, budget, sentence_share=share)
    assert [(e.chunk_id, e.char_start, e.char_end) for e in packed] == expected
    assert context_tokens(packed) <= budget
    for ev in packed:
        assert ev.text == TWO[ev.char_start : ev.char_end]
