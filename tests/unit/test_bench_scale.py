"""The scale bench's generators (bench/_scale_ingest.py, bench/_scale_query.py) are
deterministic and give what their docstrings promise."""

from __future__ import annotations

import re

import pytest

from bench._scale_ingest import generated_passages, per_passage
from bench._scale_query import entity_name, questions

PASSAGES = [
    ("Peter Bonetti", "Peter Bonetti played for Chelsea. He was born in Putney, London."),
    ("Nile", "The Nile flows through Egypt and Sudan. It is long."),
    ("Kyoto", "Kyoto was the capital of Japan for centuries."),
]


def test_first_pass_is_the_passages_themselves() -> None:
    got = list(generated_passages(3, PASSAGES))
    assert [(t, x) for _, t, x in got] == PASSAGES
    assert [d for d, _, _ in got] == ["p000000", "p000001", "p000002"]


@pytest.mark.parametrize("n", [4, 7, 9])
def test_later_passes_rename_capitalised_words_deterministically(n: int) -> None:
    first = list(generated_passages(n, PASSAGES))
    assert first == list(generated_passages(n, PASSAGES))
    later = first[3:]
    names = {w for _, _, x in later for w in re.findall(r"\b[A-Z][a-z]{2,}\w*", x)}
    originals = {w for _, x in PASSAGES for w in re.findall(r"\b[A-Z][a-z]{2,}\b", x)}
    assert names and not names & originals  # every name is new: the graph keeps growing
    assert len({x for _, _, x in first}) == n
    # the lower-case prose is kept
    assert all("was" in x or "flows" in x or "played" in x for _, _, x in later)


def test_entity_names_are_unique_and_two_words() -> None:
    names = [entity_name(i) for i in range(70_000)]
    assert len(set(names)) == len(names)
    assert all(len(n.split()) == 2 and n.istitle() for n in names[::997])


def test_questions_name_stored_entities() -> None:
    names = [entity_name(i) for i in range(50)]
    qs = questions(names, 12)
    assert len(qs) == 12 and qs == questions(names, 12)
    assert all(any(n in q for n in names) for q in qs)


def test_per_passage_sums_stage_groups() -> None:
    batches = [
        {"passages": 10, "wall_s": 2.0, "stages_s": {"chunk.write": 0.5, "chunk.optimize": 0.5}},
        {"passages": 30, "wall_s": 6.0, "stages_s": {"graph.resolve": 4.0}},
    ]
    ms = per_passage(batches)
    assert ms["write"] == pytest.approx(25.0) and ms["resolve"] == pytest.approx(100.0)
    assert ms["total"] == pytest.approx(200.0) and ms["extract"] == 0.0
