"""Sentence focus and rerank over candidate evidence (kg_rag.retrieval.rerank)."""

from __future__ import annotations

from typing import Any

import pytest

from kg_rag.models import Chunk, ChunkHit, Evidence
from kg_rag.retrieval.rerank import SentenceFocus

DOC = "Ash Lake is deep. Its town is Vell. Vell has a mill. Birch Hill is high. It has a fort."
SENTENCES = [(0, 17), (18, 35), (36, 52), (53, 72), (73, 87)]
PARA_A = (0, 52)  # sentences 0–2
PARA_B = (53, 87)  # sentences 3–4


class TextSentenceStore:
    """A sentence search over one document's text: query → [(sentence index, score)]."""

    def __init__(self, text: str, spans: list[tuple[int, int]], table: dict[str, Any]) -> None:
        self.text, self.spans, self.table = text, spans, table
        self.calls: list[dict[str, Any]] = []

    def search(self, query: str, **kw: Any) -> list[ChunkHit]:
        self.calls.append({"query": query, **kw})
        assert kw["level"] == "sentence"
        hits = []
        for i, score in self.table[query]:
            s, e = self.spans[i]
            chunk = Chunk(
                chunk_id=f"s{i}",
                doc_id="d",
                level="sentence",
                char_start=s,
                char_end=e,
                text=self.text[s:e],
            )
            hits.append(ChunkHit(chunk=chunk, score=score))
        return hits


class FakeSentenceStore(TextSentenceStore):
    """Answers a sentence search over :data:`DOC` from a table."""

    def __init__(self, table: dict[str, list[tuple[int, float]]]) -> None:
        super().__init__(DOC, SENTENCES, table)


def _ev(cid: str, span: tuple[int, int], **scores: float) -> Evidence:
    return Evidence(
        chunk_id=cid,
        doc_id="d",
        text=DOC[span[0] : span[1]],
        score=1.0,
        char_start=span[0],
        char_end=span[1],
        scores=scores,
    )


@pytest.mark.parametrize(
    ("table", "answers", "focus_a", "count_a", "first"),
    [
        # The best sentence of A for any query is its focus; B's better sentence only ties
        # the ranks (fused first + focus second vs. the reverse): fused order kept.
        ({"q": [(1, 0.9), (3, 0.95)], "s": [(2, 0.4)]}, [], (18, 35), 2.0, "a"),
        # A sentence naming a step answer gets the bonus (a hit of that step).
        ({"q": [(1, 0.5), (2, 0.6), (3, 0.9)], "s": []}, ["Vell"], (36, 52), 2.0, "a"),
        # No sentence hit inside A: A is left as it was and B, with one, moves ahead.
        ({"q": [(4, 0.3)], "s": []}, [], None, None, "b"),
    ],
)
def test_focus_table(
    table: dict[str, list[tuple[int, float]]],
    answers: list[str],
    focus_a: tuple[int, int] | None,
    count_a: float | None,
    first: str,
) -> None:
    store = FakeSentenceStore(table)
    out = SentenceFocus(store).annotate(
        [_ev("a", PARA_A), _ev("b", PARA_B)], ["q", "s", "q"], answers
    )
    a = next(e for e in out if e.chunk_id == "a")
    if focus_a is None:
        assert "hit_start" not in a.scores
    else:
        assert (a.scores["hit_start"], a.scores["hit_end"]) == focus_a
        assert a.scores["hit_count"] == count_a
    assert out[0].chunk_id == first
    assert [c["query"] for c in store.calls] == ["q", "s"]  # each query searched once
    assert all(c["doc_ids"] == ["d"] for c in store.calls)


ZH = "青湖很深。它的镇是维尔。维尔有一座磨坊。"
ZH_SENTENCES = [(0, 5), (5, 12), (12, 20)]


@pytest.mark.parametrize(
    ("text", "spans", "table", "step_hit", "expected"),
    [
        # English: the best sentence for every query replaces the hit a step's small-to-big
        # search found the piece by.
        (DOC, SENTENCES, {"q": [(2, 0.9)]}, (0, 17), (36, 52)),
        # English: no sentence hit inside the piece: the step's hit is kept.
        (DOC, SENTENCES, {"q": [(4, 0.9)]}, (0, 17), (0, 17)),
        # Chinese: the same, on a Chinese paragraph.
        (ZH, ZH_SENTENCES, {"q": [(1, 0.4), (2, 0.7)]}, (0, 5), (12, 20)),
        (ZH, ZH_SENTENCES, {"q": []}, (5, 12), (5, 12)),
    ],
)
def test_best_sentence_replaces_the_step_hit(
    text: str,
    spans: list[tuple[int, int]],
    table: dict[str, Any],
    step_hit: tuple[int, int],
    expected: tuple[int, int],
) -> None:
    end = spans[2][1]
    piece = Evidence(
        chunk_id="a",
        doc_id="d",
        text=text[:end],
        score=1.0,
        char_start=0,
        char_end=end,
        scores={"hit_start": float(step_hit[0]), "hit_end": float(step_hit[1])},
    )
    store = TextSentenceStore(text, spans, table)
    out = SentenceFocus(store, rerank=False).annotate([piece], ["q"])
    assert (out[0].scores["hit_start"], out[0].scores["hit_end"]) == tuple(map(float, expected))


def test_pieces_without_spans_pass_through() -> None:
    summary = Evidence(chunk_id="c", doc_id="", text="a community summary", score=1.0)
    store = FakeSentenceStore({})
    assert SentenceFocus(store).annotate([summary], ["q"]) == [summary]
    assert store.calls == []


# -- listwise rerank with a chat model ------------------------------------------------------


def _pieces(n: int) -> list[Evidence]:
    return [
        Evidence(chunk_id=f"c{i}", doc_id="d", text=f"passage number {i}", score=1.0)
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("reply", "window", "expected", "reason"),
    [
        ("3 > 1 > 2", 5, ["c2", "c0", "c1", "c3", "c4"], None),
        # Repeats and out-of-range numbers are dropped; the unnamed keep their order.
        ("[2] > [2] > [9] > [4]", 5, ["c1", "c3", "c0", "c2", "c4"], None),
        # Only the window is reordered; the tail follows unchanged.
        ("2 > 1", 2, ["c1", "c0", "c2", "c3", "c4"], None),
        ("none of them", 5, ["c0", "c1", "c2", "c3", "c4"], "named no passage"),
        (RuntimeError("server down"), 5, ["c0", "c1", "c2", "c3", "c4"], "call failed"),
    ],
)
def test_listwise_rerank_table(
    reply: Any, window: int, expected: list[str], reason: str | None
) -> None:
    from kg_rag.retrieval.rerank import RERANK_PROMPT_VERSION, LLMListwiseReranker
    from kg_rag.testing import FakeChatModel

    fake = FakeChatModel(script=[(RERANK_PROMPT_VERSION, reply)])
    ranked, why = LLMListwiseReranker(fake, window=window).rerank("q?", ["step one"], _pieces(5))
    assert [e.chunk_id for e in ranked] == expected
    assert (why is None) if reason is None else (reason in (why or ""))
    prompt = fake.calls[0].prompt
    assert "Step 1: step one" in prompt
    assert f"[{window}] passage number {window - 1}" in prompt
    assert f"[{window + 1}]" not in prompt
