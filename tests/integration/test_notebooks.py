"""Every notebook in ``notebooks/`` executes top to bottom without an error.

Run with nbclient on the ``python3`` kernel of the interpreter running the tests (jupyter
replaces the kernelspec's ``python`` with it), in a temporary working directory so nothing is
left in the repository. Notebooks that talk to Neo4j get the environment of the test run
(``KG_RAG_NEO4J__PASSWORD``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

pytestmark = [pytest.mark.integration]

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_notebooks_exist() -> None:
    assert any(p.name == "01_quickstart.ipynb" for p in NOTEBOOKS), NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_without_errors(path: Path, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells, f"{path.name} has no code"
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{path.name} failed:\n{exc}")
    errors = [
        out
        for cell in code_cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, errors
    assert all(c.get("execution_count") for c in code_cells), "every code cell ran"
