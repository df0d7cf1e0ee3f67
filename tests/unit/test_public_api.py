"""The public API is what ``kg_rag.__all__`` lists, and importing it does no work."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kg_rag

pytestmark = pytest.mark.unit


def test_every_public_name_resolves_and_is_documented() -> None:
    for name in kg_rag.__all__:
        obj = getattr(kg_rag, name)
        if name != "__version__":
            assert obj.__doc__, f"kg_rag.{name} has no docstring"


def test_unknown_attribute_is_a_clear_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = kg_rag.Nope  # type: ignore[attr-defined]


def test_import_loads_no_heavy_modules_and_reads_no_settings() -> None:
    code = (
        "import sys, kg_rag; "
        "heavy = [m for m in ('lancedb', 'neo4j', 'langchain_openai', 'graspologic', 'jieba') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"KG_RAG_NEO4J__BOLT_PORT": "not-a-number", "PATH": ""},
    )
    assert out.stdout.strip() == "[]"
