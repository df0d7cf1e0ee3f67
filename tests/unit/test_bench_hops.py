"""``bench/answers.py --hops``: a generalization question's gold hops asked one by one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench._answers_data import hop_items

_BRIDGE: dict[str, Any] = {
    "id": "q1",
    "type": "bridge-3",
    "answer": "Tolva Reach",
    "answer_aliases": ["Tolva"],
    "hops": [
        {"question": "Who founded Ostrin Mills?", "answer": "Ada Quarrel", "doc": "a.md"},
        {"question": "Who taught #1?", "answer": "Bram Ovell", "doc": "b.md"},
        {"question": "Where was #2 born?", "answer": "Tolva Reach", "doc": "c.md"},
    ],
}


def test_bridge_hops_are_asked_with_earlier_answers_filled_in() -> None:
    items = hop_items(_BRIDGE, "en")
    assert [i.question for i in items] == [
        "Who founded Ostrin Mills?",
        "Who taught Ada Quarrel?",
        "Where was Bram Ovell born?",
    ]
    assert [i.type for i in items] == ["hop1", "hop2", "hop3"]
    assert [i.id for i in items] == ["q1#h1", "q1#h2", "q1#h3"]
    # the last hop answers the question: its aliases count; an inner hop has its own answer
    assert items[-1].answers == ("Tolva Reach", "Tolva")
    assert items[0].answers == ("Ada Quarrel",)
    assert items[1].hops[0].docs == ("b.md",)


@pytest.mark.parametrize(
    ("qtype", "last", "kept"),
    [
        ("comparison", {"question": "Which is earlier, #1 or #2?", "answer": "Ostrin"}, 2),
        ("yesno", {"question": "Is #1 the same as #2?", "answer": "no"}, 2),
        ("bridge-3", {"question": "Where was #2 born?", "answer": "Tolva"}, 3),
    ],
)
def test_deciding_hops_and_yes_no_hops_are_left_out(
    qtype: str, last: dict[str, str], kept: int
) -> None:
    row = {
        "id": "q2",
        "type": qtype,
        "answer": last["answer"],
        "hops": [
            {"question": "When was Ostrin founded?", "answer": "1901"},
            {"question": "When was Pellow founded?", "answer": "是"},
            last,
        ],
    }
    items = hop_items(row, "zh")
    # a yes/no hop answer (是) is never asked alone; the deciding hop of a comparison or a
    # yes/no question is not either
    assert len(items) == kept - 1
    assert items[0].question == "When was Ostrin founded?" and items[0].lang == "zh"
