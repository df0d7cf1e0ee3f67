"""kill -9 during ingest, then ingest again: the knowledge base converges to the fingerprint of
an uninterrupted run (documents and hashes, chunk ids, entities with descriptions and aliases,
relations with evidence and weights, mention count, communities with members and summaries,
community index, ledger).

Each run is a child process killed with SIGKILL, either by itself right after a named commit
(``KG_RAG_TEST_CRASH_AFTER``, see :mod:`kg_rag.stores.ledger`) or by this test at a seeded random
moment. Full ingest: 30 documents into an empty knowledge base. Incremental: 5 of them changed,
3 deleted and 2 added, over the complete knowledge base of the first 30.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import fingerprint, open_engine, run_child, write_corpus

from kg_rag.ingest.stages import ledger_for

pytestmark = pytest.mark.unit

BOUNDARIES = ["graph-entities:1", "graph-relations:1", "graph:1", "communities:1", "index:1"]
FULL_CASES = ["chunks:1", "chunks:3", *BOUNDARIES, "random:0", "random:1", "random:2"]
INCREMENTAL_CASES = [
    "chunks:1",
    "graph-delete:1",
    "removal-document:2",
    "removal:1",
    *BOUNDARIES,
    "random:3",
    "random:4",
    "random:5",
]
RESULTS: list[tuple[str, str, bool, bool]] = []


class Setup:
    """The corpora and the fingerprints of uninterrupted runs (built once per module).

    Every run reads the same folder (``corpus``), filled with the version it needs: the
    stored source paths, and so the documents' hashes, are the same in every knowledge base,
    and files deleted from it are removed by ``remove_missing``.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.corpus = root / "corpus"
        self.v1 = write_corpus(root / "v1", range(30))
        self.v2 = write_corpus(root / "v2", range(30))
        write_corpus(self.v2, range(5), version=1)  # 5 changed
        for seed in (27, 28, 29):  # 3 deleted
            (self.v2 / f"doc-{seed:03d}.md").unlink()
        write_corpus(self.v2, [30, 31])  # 2 added
        self.use(self.v1)
        run_child(root / "warm-up" / "kb", self.corpus)  # starts the forkserver
        code, self.full_seconds = run_child(root / "full" / "kb", self.corpus)
        assert code == 0
        self.full = fingerprint(root / "full" / "kb")
        shutil.copytree(root / "full", root / "base")
        self.use(self.v2)
        code, self.incremental_seconds = run_child(root / "full" / "kb", self.corpus)
        assert code == 0
        self.incremental = fingerprint(root / "full" / "kb")

    def use(self, version: Path) -> Path:
        """Make ``corpus`` hold exactly the files of ``version``."""
        shutil.rmtree(self.corpus, ignore_errors=True)
        shutil.copytree(version, self.corpus)
        return self.corpus


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    return Setup(tmp_path_factory.mktemp("crash"))


def _crash_and_rerun(setup: Setup, kb: Path, case: str, seconds: float) -> bool:
    """Run the crashing ingest, then a clean one; returns whether the first was killed."""
    point, _, n = case.partition(":")
    if point == "random":
        delay = random.Random(1000 + int(n)).uniform(0.02, 0.95 * seconds)
        code, _ = run_child(kb, setup.corpus, kill_after_s=delay)
    else:
        code, _ = run_child(kb, setup.corpus, crash_after=case)
    assert run_child(kb, setup.corpus)[0] == 0
    return code != 0


def _check(kind: str, case: str, killed: bool, got: dict[str, Any], want: dict[str, Any]) -> None:
    differ = sorted(k for k in want if got[k] != want[k])
    RESULTS.append((kind, case, killed, not differ))
    assert not differ, f"{kind} {case}: {differ} differ from the uninterrupted run"


def test_uninterrupted_runs_are_complete(setup: Setup) -> None:
    for fp in (setup.full, setup.incremental):
        assert fp["entities"] and fp["relations"] and fp["communities"]
        assert len({level for _, level, *_ in fp["communities"]}) >= 2
        assert {stage for _, stage in fp["ledger"]} == {"indexed"}
        assert fp["index"] == sorted((c[0], c[4]) for c in fp["communities"])
    assert len(setup.incremental["documents"]) == 29
    changed = {d for d, *_ in setup.full["documents"]} ^ {
        d for d, *_ in setup.incremental["documents"]
    }
    assert changed == {"doc-027.md", "doc-028.md", "doc-029.md", "doc-030.md", "doc-031.md"}


@pytest.mark.parametrize("case", FULL_CASES)
def test_full_ingest_killed_then_rerun_converges(setup: Setup, case: str) -> None:
    kb = setup.root / f"full-{case.replace(':', '-')}" / "kb"
    setup.use(setup.v1)
    killed = _crash_and_rerun(setup, kb, case, setup.full_seconds)
    if not case.startswith("random"):
        assert killed, f"the crash hook {case} never fired"
    _check("full", case, killed, fingerprint(kb), setup.full)


@pytest.mark.parametrize("case", INCREMENTAL_CASES)
def test_incremental_ingest_killed_then_rerun_converges(setup: Setup, case: str) -> None:
    folder = setup.root / f"inc-{case.replace(':', '-')}"
    shutil.copytree(setup.root / "base", folder)
    setup.use(setup.v2)
    killed = _crash_and_rerun(setup, folder / "kb", case, setup.incremental_seconds)
    if not case.startswith("random"):
        assert killed, f"the crash hook {case} never fired"
    _check("incremental", case, killed, fingerprint(folder / "kb"), setup.incremental)


def test_killed_twice_then_rerun_converges(setup: Setup) -> None:
    folder = setup.root / "inc-twice"
    shutil.copytree(setup.root / "base", folder)
    setup.use(setup.v2)
    assert run_child(folder / "kb", setup.corpus, crash_after="graph-relations:1")[0] != 0
    assert run_child(folder / "kb", setup.corpus, crash_after="communities:1")[0] != 0
    assert run_child(folder / "kb", setup.corpus)[0] == 0
    _check(
        "incremental",
        "graph-relations:1 then communities:1",
        True,
        fingerprint(folder / "kb"),
        setup.incremental,
    )


def test_removal_killed_then_rerun_without_rollback_converges(setup: Setup) -> None:
    """A removal killed inside a document's delete, on a store that cannot roll back to the
    removal's checkpoint (here: the checkpoint is gone), is redone and the entities it left
    without mentions are removed."""
    folder = setup.root / "inc-no-rollback"
    shutil.copytree(setup.root / "base", folder)
    setup.use(setup.v2)
    assert run_child(folder / "kb", setup.corpus, crash_after="graph-delete:1")[0] != 0
    with open_engine(folder / "kb") as kg:
        ledger = ledger_for(kg.chunk_store)
        removing = {d: r.ingest_hash for d, r in ledger.rows().items() if r.stage == "removing"}
        assert removing, "the killed removal left no row at 'removing'"
        ledger.set_stage(removing, "removing")  # no checkpoint to roll back to
    assert run_child(folder / "kb", setup.corpus)[0] == 0
    _check(
        "incremental",
        "graph-delete:1, no rollback",
        True,
        fingerprint(folder / "kb"),
        setup.incremental,
    )


def test_removal_killed_then_document_back_converges(setup: Setup) -> None:
    """A removal killed halfway, then one of its documents put back before the rerun: the
    rerun ends as an uninterrupted ingest of the folder as it now is (the document's graph
    written again, nothing of the cut removal left)."""
    back = setup.root / "v2-back"
    shutil.rmtree(back, ignore_errors=True)
    shutil.copytree(setup.v2, back)
    shutil.copy(setup.v1 / "doc-027.md", back / "doc-027.md")
    want_folder = setup.root / "inc-back-want"
    shutil.copytree(setup.root / "base", want_folder)
    setup.use(back)
    assert run_child(want_folder / "kb", setup.corpus)[0] == 0
    want = fingerprint(want_folder / "kb")
    folder = setup.root / "inc-back"
    shutil.copytree(setup.root / "base", folder)
    setup.use(setup.v2)
    assert run_child(folder / "kb", setup.corpus, crash_after="graph-delete:1")[0] != 0
    setup.use(back)
    assert run_child(folder / "kb", setup.corpus)[0] == 0
    _check("incremental", "graph-delete:1, document back", True, fingerprint(folder / "kb"), want)


def test_print_convergence_table() -> None:
    """Not a check: the table of the cases above (run with ``-s`` to see it)."""
    print("\n| ingest | crash point | killed | converged |\n|---|---|---|---|")
    for kind, case, killed, ok in RESULTS:
        print(
            f"| {kind} | {case} | {'yes' if killed else 'no (finished first)'} | {'yes' if ok else 'NO'} |"
        )
