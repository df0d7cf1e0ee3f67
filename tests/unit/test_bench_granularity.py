"""The metric code of bench/granularity.py on a small hand-made corpus (no ingest)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench._common import Dataset, Passage, Question
from bench._granularity_kb import _section_sizes, build_documents
from bench.granularity import (
    GoldQuestion,
    Span,
    SystemResult,
    answer_sentence,
    build_gold,
    half_of,
    locate_all,
    score_context,
)
from kg_rag.models import Evidence
from kg_rag.text import count_tokens

PASSAGES = [
    Passage(
        "p-river",
        "Tallow River",
        "The Tallow River rises in the hills. It flows into Lake Amber. Its length is 40 km.",
    ),
    Passage(
        "p-lake", "Lake Amber", "Lake Amber lies in Corvia. The town of Mira stands on its shore."
    ),
    Passage("p-mira", "Mira", "Mira was founded in 1722 by fishermen. Its mayor is Ana Holt."),
    Passage("p-x1", "Quiet Hill", "Quiet Hill is a village. It has a church."),
    Passage("p-x2", "Old Mill", "The Old Mill was built of stone. It stopped working in 1950."),
]


def _docs_and_texts() -> tuple[list, dict[str, str]]:
    docs = build_documents(PASSAGES)
    return docs, {d.doc_id: d.text for d in docs}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 11, 12, 13])
def test_sections_hold_three_to_four_passages(n: int) -> None:
    for draw in range(4):
        sizes = _section_sizes(n, draw)
        assert sum(sizes) == n
        if n >= 3:
            assert all(3 <= s <= 4 for s in sizes) or n in (5,), sizes


def test_documents_are_deterministic_and_hold_every_passage_once() -> None:
    docs = build_documents(PASSAGES)
    assert docs == build_documents(list(reversed(PASSAGES)))  # order-free: hashed ids
    ids = [pid for d in docs for section in d.sections for pid in section]
    assert sorted(ids) == sorted(p.id for p in PASSAGES)
    for d in docs:
        assert d.text.startswith(f"# {d.title}\n")
        assert d.text.count("\n## Part ") == len(d.sections)
        for p in PASSAGES:
            if p.id in ids and p.id in {x for s in d.sections for x in s}:
                assert f"\n\n**{p.title}.** {p.text}" in d.text


@pytest.mark.parametrize(
    ("pid", "answers", "sentence", "by_overlap"),
    [
        ("p-river", ["Lake Amber"], "It flows into Lake Amber.", False),
        ("p-river", ["40 km"], "Its length is 40 km.", False),
        # Case-insensitive, whole words only ("Amber" inside no other word).
        ("p-lake", ["mira"], "The town of Mira stands on its shore.", False),
        # The body is searched before the bold title: "Mira" opens the passage's first sentence.
        ("p-mira", ["Mira"], "**Mira.** Mira was founded in 1722 by fishermen.", False),
        # A later alias matches when the first answer does not.
        ("p-mira", ["Anna Holt", "Ana Holt"], "Its mayor is Ana Holt.", False),
        # No whole-word match: the sentence sharing most answer words.
        ("p-mira", ["Mayor Holt"], "Its mayor is Ana Holt.", True),
    ],
)
def test_answer_sentence_table(
    pid: str, answers: list[str], sentence: str, by_overlap: bool
) -> None:
    docs, texts = _docs_and_texts()
    dataset = Dataset("t", PASSAGES, [])
    span = locate_all(dataset, docs, texts)[pid]
    found = answer_sentence(texts[span.doc_id], span, answers)
    assert found is not None
    got, overlap = found
    assert texts[got.doc_id][got.start : got.end] == sentence
    assert overlap is by_overlap


def test_answer_sentence_none_when_no_word_is_shared() -> None:
    docs, texts = _docs_and_texts()
    span = locate_all(Dataset("t", PASSAGES, []), docs, texts)["p-lake"]
    assert answer_sentence(texts[span.doc_id], span, ["Zebra"]) is None


def _gold() -> tuple[GoldQuestion, dict[str, str], dict[str, Span]]:
    docs, texts = _docs_and_texts()
    q = Question(
        "q1",
        "Who is the mayor of the town on the lake the Tallow flows into?",
        "Ana Holt",
        [],
        ["p-river", "p-lake", "p-mira"],
        3,
    )
    records = {
        "q1": {
            "decomposition": [
                {
                    "question": "Tallow River >> mouth",
                    "answer": "Lake Amber",
                    "support_id": "p-river",
                },
                {"question": "town on #1", "answer": "Mira", "support_id": "p-lake"},
                {"question": "mayor of #2", "answer": "Ana Holt", "support_id": "p-mira"},
            ]
        }
    }
    dataset = Dataset("t", PASSAGES, [q])
    located = locate_all(dataset, docs, texts)
    return build_gold(records, dataset, located, texts)[0], texts, located


def _piece(texts: dict[str, str], span: Span, cid: str = "c") -> Evidence:
    return Evidence(
        chunk_id=cid,
        doc_id=span.doc_id,
        text=texts[span.doc_id][span.start : span.end],
        score=1.0,
        char_start=span.start,
        char_end=span.end,
    )


def test_gold_has_one_sentence_per_step() -> None:
    gold, texts, _ = _gold()
    assert [texts[s.doc_id][s.start : s.end] for s in gold.sentences] == [
        "It flows into Lake Amber.",
        "The town of Mira stands on its shore.",
        "Its mayor is Ana Holt.",
    ]
    assert gold.dropped_steps == 0


@pytest.mark.parametrize(
    ("pieces", "recall", "whole", "precision"),
    [
        ("nothing", 0.0, 0.0, 0.0),
        ("all gold passages", 1.0, 1.0, 1.0),
        ("two gold passages", 2 / 3, 0.0, 1.0),
        ("gold sentence cut in half", 0.0, 0.0, 1.0),
        ("one gold + one distractor", 1 / 3, 0.0, None),
        ("text not a slice of its document", 0.0, 0.0, 0.0),
    ],
)
def test_score_context_table(
    pieces: str, recall: float, whole: float, precision: float | None
) -> None:
    gold, texts, located = _gold()
    river, lake, mira, x1 = (located[p] for p in ("p-river", "p-lake", "p-mira", "p-x1"))
    context = {
        "nothing": [],
        "all gold passages": [
            _piece(texts, s, c) for s, c in ((river, "a"), (lake, "b"), (mira, "c"))
        ],
        "two gold passages": [_piece(texts, river), _piece(texts, mira)],
        "gold sentence cut in half": [
            _piece(
                texts,
                Span(gold.sentences[0].doc_id, gold.sentences[0].start, gold.sentences[0].end - 5),
            )
        ],
        "one gold + one distractor": [_piece(texts, river), _piece(texts, x1)],
        "text not a slice of its document": [
            _piece(texts, river).model_copy(update={"text": "something else entirely"})
        ],
    }[pieces]
    scores = score_context(context, gold, texts)
    assert scores["recall"] == pytest.approx(recall)
    assert scores["whole"] == whole
    assert scores["tokens"] == sum(count_tokens(e.text) for e in context)
    if precision is not None:
        assert scores["precision"] == pytest.approx(precision)
    else:
        gold_tokens = count_tokens(context[0].text)
        assert scores["precision"] == pytest.approx(gold_tokens / scores["tokens"])


def test_halves_are_seeded_stable_and_split_the_questions() -> None:
    ids = [f"2hop__{n}_{n * 7}" for n in range(400)]
    halves = [half_of(i) for i in ids]
    assert halves == [half_of(i) for i in ids]  # a hash, not a draw: same id, same half
    assert set(halves) == {"dev", "test"}
    assert 150 < halves.count("dev") < 250  # about half each


@pytest.mark.parametrize(
    ("rows", "half", "recall"),
    [
        # qid → recall at one budget; each half's mean covers only its own questions.
        ([("a", 1.0), ("b", 0.0), ("c", 0.5)], None, 0.5),
        ([("a", 1.0), ("b", 0.0), ("c", 0.5)], "dev", None),
        ([("a", 1.0), ("b", 0.0), ("c", 0.5)], "test", None),
        ([], "dev", 0.0),
    ],
)
def test_summary_by_half_table(
    rows: list[tuple[str, float]], half: str | None, recall: float | None
) -> None:
    result = SystemResult()
    for qid, value in rows:
        result.add(256, {"recall": value}, qid)
    got = result.summary(half).get("256", {"recall": 0.0})["recall"]
    if recall is None:  # the mean of exactly that half's questions
        mine = [v for q, v in rows if half_of(q) == half]
        recall = round(sum(mine) / len(mine), 4) if mine else 0.0
    assert got == recall
