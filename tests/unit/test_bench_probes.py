"""The paraphrase probes' data: well formed, each on a set that exists, none a test question."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench.answers import GEN_SETS  # noqa: E402

PROBES = REPO / "bench" / "data" / "probes" / "probes.jsonl"


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in PROBES.read_text(encoding="utf-8").splitlines() if line]


def test_every_probe_is_well_formed_and_on_a_generalization_set() -> None:
    rows = _rows()
    assert len(rows) == 280
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["set"] in GEN_SETS, row
        assert str(row["set"]).endswith(str(row["lang"])), row
        assert row["probe"] in ("p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"), row
        answers = row["answers"]
        assert isinstance(answers, list) and answers and all(answers), row


def test_no_probe_is_a_question_of_a_test_half() -> None:
    """The probes rephrase dev questions; none may repeat a test-half question, which stays
    held out."""
    test_questions: set[str] = set()
    for folder in sorted((REPO / "bench" / "data").glob("generalization*")):
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("split") == "test":
                    test_questions.add(" ".join(row["question"].split()).lower())
    assert test_questions
    for row in _rows():
        assert " ".join(str(row["question"]).split()).lower() not in test_questions, row
