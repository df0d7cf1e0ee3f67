"""The executor seam of the ingest, without a Ray cluster: every stage goes through the
executor, batch sizes do not change the knowledge base, results are taken in order and
lazily, embedders travel to workers by name, and the worker-kill test hook fires once."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import open_engine, write_corpus

from kg_rag.config import ExecutorSettings
from kg_rag.embeddings import LocalMiniLMEmbeddings
from kg_rag.errors import ConfigError
from kg_rag.ingest.executor import (
    KILL_WORKER_ENV,
    Executor,
    LocalExecutor,
    RayExecutor,
    build_executor,
)
from kg_rag.ingest.workers import EmbedderHandle, worker_embedder
from kg_rag.testing import HashEmbeddings, knowledge_base_fingerprint

REPO = Path(__file__).resolve().parents[2]


class RecordingExecutor(LocalExecutor):
    """In-process, in batches of the given sizes, recording (stage, batch length)."""

    name = "recording"

    def __init__(self, documents_per_task: int, chunks_per_task: int | None) -> None:
        super().__init__(documents_per_task=documents_per_task, chunks_per_task=chunks_per_task)
        self.calls: list[tuple[str, int]] = []

    def map(
        self,
        stage: Callable[[Any, Any], Any],
        batches: Iterable[Any],
        *,
        context: Any = None,
        keys: Callable[[Any], str] | None = None,
    ) -> Iterator[Any]:
        for batch in batches:
            size = len(batch.docs) if hasattr(batch, "docs") else len(batch)
            assert keys is not None and len(keys(batch)) == 16
            self.calls.append((stage.__name__, size))
            yield stage(context, batch)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("exec-corpus") / "docs", range(30))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> dict[str, Any]:
    with open_engine(tmp_path_factory.mktemp("exec-ref") / "kb") as kg:
        kg.ingest([corpus])
        return knowledge_base_fingerprint(kg)


@pytest.mark.parametrize(
    ("documents_per_task", "chunks_per_task"),
    [(1, None), (4, 7), (7, 1), (64, 500)],
)
def test_every_stage_runs_on_the_executor_and_batch_sizes_change_nothing(
    tmp_path: Path,
    corpus: Path,
    reference: dict[str, Any],
    documents_per_task: int,
    chunks_per_task: int | None,
) -> None:
    executor = RecordingExecutor(documents_per_task, chunks_per_task)
    with open_engine(tmp_path / "kb") as kg:
        report = kg.ingest([corpus], executor=executor)
        assert knowledge_base_fingerprint(kg) == reference
    stages = {name for name, _ in executor.calls}
    assert stages == {"load_stage", "embed_stage", "offline_extract_stage"}
    loads = [n for name, n in executor.calls if name == "load_stage"]
    assert sum(loads) == 30 and max(loads) == min(documents_per_task, 30)
    extracted = [n for name, n in executor.calls if name == "offline_extract_stage"]
    assert sum(extracted) == report.graph.chunks_extracted
    if chunks_per_task is not None:
        assert max(extracted) <= chunks_per_task


def test_local_map_yields_in_order_and_pulls_one_batch_per_result() -> None:
    pulled: list[int] = []

    def batches() -> Iterator[int]:
        for i in range(5):
            pulled.append(i)
            yield i

    results = LocalExecutor().map(lambda ctx, b: ctx * b, batches(), context=10)
    assert next(results) == 0 and pulled == [0]
    assert next(results) == 10 and pulled == [0, 1]
    assert list(results) == [20, 30, 40]


@pytest.mark.parametrize(
    ("spec", "kind", "expected"),
    [
        (None, "local", LocalExecutor),
        (None, "ray", RayExecutor),
        ("local", "ray", LocalExecutor),
        ("ray", "local", RayExecutor),
    ],
)
def test_build_executor_by_name_or_setting(spec: str | None, kind: str, expected: type) -> None:
    executor = build_executor(spec, ExecutorSettings(kind=kind))  # type: ignore[arg-type]
    assert type(executor) is expected
    assert isinstance(executor, Executor)


def test_build_executor_passes_an_executor_through_and_refuses_unknown_names() -> None:
    mine = RecordingExecutor(2, 3)
    assert build_executor(mine, ExecutorSettings()) is mine
    with pytest.raises(ConfigError, match="'local' or 'ray'"):
        build_executor("dask", ExecutorSettings())


def test_ray_executor_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    executor = RayExecutor()
    with pytest.raises(ConfigError, match=r"kgrag-engine\[ray\]"):
        list(executor.map(lambda ctx, b: b, [1]))


@pytest.mark.parametrize(
    ("make", "travels_by_name"),
    [
        (lambda: LocalMiniLMEmbeddings(batch_size=8), True),
        (lambda: HashEmbeddings(32), False),
    ],
)
def test_embedders_travel_to_workers_by_name_when_they_are_local_models(
    make: Callable[[], Any], travels_by_name: bool
) -> None:
    embedder = make()
    vector = embedder.embed_query("Greta Holm founded Tessel Works in Kelmouth.")
    payload = pickle.dumps(EmbedderHandle(embedder))
    if travels_by_name:
        assert len(payload) < 1000  # the name, not the loaded weights
    copy = pickle.loads(payload)
    other = copy.get()
    assert type(other) is type(embedder) and (other is not embedder)
    assert other.embed_query("Greta Holm founded Tessel Works in Kelmouth.") == pytest.approx(
        vector, abs=1e-6
    )
    if travels_by_name:
        assert pickle.loads(payload).get() is other  # one model per process


def test_worker_embedder_builds_each_model_once_per_process() -> None:
    first = worker_embedder("all-MiniLM-L6-v2", 16)
    assert worker_embedder("ALL-MINILM-L6-V2", 16) is first
    assert worker_embedder("all-MiniLM-L6-v2", 32) is not first


_CHILD = """
import sys
from kg_rag.ingest.executor import worker_fault
for i, stage in enumerate(sys.argv[1].split(",")):
    worker_fault(stage)
    print(i, flush=True)
"""


@pytest.mark.parametrize(
    ("armed", "calls", "survived"),
    [
        ("embed_stage", "load_stage,embed_stage,embed_stage", 1),  # dies at its first embed
        ("embed_stage:2", "embed_stage,embed_stage,embed_stage,embed_stage", 2),
        ("load_stage:1", "embed_stage,load_stage,embed_stage,load_stage", 3),
        ("offline_extract_stage", "load_stage,embed_stage", 2),  # never armed for these
        ("", "load_stage,embed_stage", 2),
    ],
)
def test_the_worker_kill_hook_fires_once_for_the_armed_stage(
    tmp_path: Path, armed: str, calls: str, survived: int
) -> None:
    arm = tmp_path / "kill"
    if armed:
        arm.write_text(armed, encoding="utf-8")
    env = {**os.environ, KILL_WORKER_ENV: str(arm), "PYTHONPATH": str(REPO)}
    for attempt in range(2):
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, calls],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = done.stdout.split()
        if attempt == 0 and survived < len(calls.split(",")):
            assert done.returncode == -signal.SIGKILL, done.stderr
            assert len(lines) == survived
            assert not arm.exists() and list(tmp_path.glob("kill.fired-*"))
        else:  # disarmed (or never armed): runs through
            assert done.returncode == 0, done.stderr
            assert len(lines) == len(calls.split(","))
