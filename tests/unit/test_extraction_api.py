"""The extraction package's public face: ``__all__`` is complete and importable, and the
package never imports kg_rag (arrows go kg_rag → extraction only)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import extraction

pytestmark = pytest.mark.unit

PACKAGE = Path(extraction.__file__).parent


def test_every_name_in_all_exists() -> None:
    for name in extraction.__all__:
        assert getattr(extraction, name) is not None
    public_modules = {"llm", "offline", "resolve", "schema", "structured", "normalize", "errors"}
    exported_from = {
        getattr(extraction, n).__module__.split(".")[-1]
        for n in extraction.__all__
        if hasattr(getattr(extraction, n), "__module__")
    }
    assert public_modules <= exported_from


@pytest.mark.parametrize("module", sorted(p.stem for p in PACKAGE.glob("*.py")))
def test_modules_do_not_import_kg_rag(module: str) -> None:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert not {name for name in imported if name.split(".")[0] == "kg_rag"}
    importlib.import_module(f"extraction.{module}" if module != "__init__" else "extraction")
