"""End to end, offline: a yes/no question claiming that a name is what a bridge finds ("Is X the
birthplace of both A and B?", "X是不是Y创办的") finds each value and compares it with the
name; the name the question gives may be found (it is the value asked about), and a wrong
name gives "no"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import open_demo_engine

from kg_rag import KnowledgeEngine

DOCS = {
    "corla_venn.md": "# Corla Venn\n\nCorla Venn was born in Tarnby in 1801. Corla Venn "
    "founded the Osk Rope Works on the river bank in 1832.\n",
    "pell_drayton.md": "# Pell Drayton\n\nPell Drayton was born in Tarnby in 1806. He was a "
    "sailmaker and later ran the Tarnby ferry.\n",
    "mira_holt.md": "# Mira Holt\n\nMira Holt was born in Varrowby in 1810. She kept the "
    "lighthouse on Greyness Point for thirty years.\n",
    "osk_rope_works.md": "# Osk Rope Works\n\nThe Osk Rope Works was a ropewalk at Tarnby. "
    "It closed in 1899.\n",
    "溪口绳行.md": "# 溪口绳行\n\n溪口绳行由柯岚于1820年创办，位于檀川镇。\n",
    "檀木书局.md": "# 檀木书局\n\n檀木书局由岑望山于1851年创办，以刻印地方志闻名。\n",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeEngine]:
    root = tmp_path_factory.mktemp("identity")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    kg = open_demo_engine(root / "kb")
    kg.ingest([corpus])
    yield kg
    kg.close()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Is Tarnby the birthplace of both Corla Venn and Pell Drayton?", "yes"),
        ("Is Tarnby the birthplace of both Corla Venn and Mira Holt?", "no"),
        ("Is Varrowby the birthplace of Mira Holt?", "yes"),
        ("Is Varrowby the birthplace of Pell Drayton?", "no"),
        ("Was Corla Venn born in Tarnby?", "yes"),
        ("Were Corla Venn and Mira Holt both born in Tarnby?", "no"),
        ("Was the founder of the Osk Rope Works born in Varrowby?", "no"),
        ("溪口绳行是不是柯岚创办的？", "yes"),
        ("檀木书局是柯岚创办的吗？", "no"),
        ("檀木书局是不是柯岚创办的？", "no"),
    ],
)
def test_identity_claims_answer_from_the_found_values(
    engine: KnowledgeEngine, question: str, expected: str
) -> None:
    answer = engine.ask(question)
    plan = answer.trace.plan
    assert plan is not None and plan.strategy == "equal-yesno"
    assert answer.short_answer == expected
    assert not answer.trace.fallbacks
