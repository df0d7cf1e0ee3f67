"""A graph step's evidence: the fusion of its chunk search and its PPR list keeps each list's
best piece inside the window the reader reads."""

from __future__ import annotations

import pytest

from kg_rag.answer.pipeline import _keep_leaders
from kg_rag.models import Evidence

pytestmark = pytest.mark.unit


def _ev(*ids: str) -> list[Evidence]:
    return [Evidence(chunk_id=i, doc_id="d", text=i, score=1.0) for i in ids]


@pytest.mark.parametrize(
    ("fused", "leaders", "window", "expected"),
    [
        # The search's winner fell to 6th behind pieces both lists share: back in the window.
        ("abcdef", ["f", "a"], 3, "abfcde"),
        # Already inside: nothing moves.
        ("abcdef", ["b", "a"], 3, "abcdef"),
        # A winner missing from the fused list (cut off) comes in at the window's end.
        ("abcde", ["z", "a"], 4, "abczde"),
        # Both leaders outside: each takes the last place of the window in turn.
        ("abcdef", ["e", "f"], 3, "abfecd"),
        # An empty list has no leader.
        ("abc", ["", "c"], 2, "acb"),
    ],
)
def test_each_lists_best_piece_is_read(
    fused: str, leaders: list[str], window: int, expected: str
) -> None:
    out = _keep_leaders(_ev(*fused), [_ev(*lead[:1]) for lead in leaders], window)
    assert "".join(e.chunk_id for e in out) == expected
    assert len({e.chunk_id for e in out}) == len(out)  # nothing read twice
