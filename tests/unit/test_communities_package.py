"""The communities package's public face and its place in the architecture."""

from __future__ import annotations

import subprocess
import sys

import pytest

import communities

pytestmark = pytest.mark.unit


def test_all_names_exist_and_are_documented() -> None:
    assert communities.__all__ == sorted(communities.__all__, key=lambda n: (not n.isupper(), n))
    for name in communities.__all__:
        obj = getattr(communities, name)
        if callable(obj):
            assert obj.__doc__, f"{name} has no docstring"


def test_communities_does_not_import_kg_rag_or_do_work_at_import() -> None:
    """Arrows go kg_rag → communities, never back; importing does no clustering or I/O."""
    code = (
        "import sys, communities, communities.plot\n"
        "bad = sorted(m for m in sys.modules if m == 'kg_rag' or m.startswith('kg_rag.'))\n"
        "heavy = sorted(m for m in ('graspologic', 'graspologic_native', 'matplotlib') "
        "if m in sys.modules)\n"
        "print(bad, heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[] []"
