"""Where the per-batch ingest work runs: in this process, or as tasks on a Ray cluster.

The ingest pipeline hands every stage that does not write (loading, cleaning and chunking a
batch of documents; embedding a batch of chunks; extracting entities from a batch of chunks)
to an :class:`Executor` as ``executor.map(stage, batches, context=...)`` and applies the
results itself, in batch order: the calling process stays the one writer of LanceDB and the
graph store, whichever executor ran the work. The same stage functions run under both
executors, so a Ray ingest ends with the knowledge base a local one would have built.

* :class:`LocalExecutor` (default) calls the stage function in this process, one batch after
  the other, lazily (a batch is built only when the previous result was taken).
* :class:`RayExecutor` submits each batch as a Ray task (at most ``max_in_flight`` ahead of
  the writer), yields the results in submission order, and lets Ray re-run a task whose
  worker died (``max_retries``): stage functions are pure functions of their batch, so a
  re-run returns the same result. A batch is named by a hash of its content
  (:func:`batch_key`), which names its task in Ray's logs and state API.

A crash of the writer itself is covered by the knowledge base's ingest ledger
(:mod:`kg_rag.ingest.stages`): the next ingest re-submits only what was not committed.
"""

from __future__ import annotations

import collections
import glob
import logging
import os
import signal
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

from kg_rag.config import ExecutorSettings
from kg_rag.errors import ConfigError, StoreUnavailable
from kg_rag.text import content_hash

__all__ = [
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "batch_key",
    "build_executor",
    "start_local_ray",
]

log = logging.getLogger(__name__)

C = TypeVar("C")
T = TypeVar("T")
R = TypeVar("R")

Stage = Callable[[C, T], R]
"""A stage function: ``stage(context, batch) -> result``; module-level, so a Ray worker can
import it by name, and pure (its result depends only on its arguments)."""


def batch_key(*parts: str) -> str:
    """The content key of a batch: a short hash of the ids and content hashes it holds."""
    return content_hash(*parts)[:16]


@runtime_checkable
class Executor(Protocol):
    """Runs a stage function over batches; results come back in batch order.

    Attributes:
        name: ``"local"`` or ``"ray"`` (reported with the ingest).
        documents_per_task: Documents one load/clean/chunk batch holds.
        chunks_per_task: Chunks one extraction batch holds; ``None`` extracts every chunk
            of an ingest as one batch (the in-process default, so LLM calls are packed over
            the whole ingest as before).
    """

    name: str
    documents_per_task: int
    chunks_per_task: int | None

    def map(
        self,
        stage: Callable[[Any, T], R],
        batches: Iterable[T],
        *,
        context: Any = None,
        keys: Callable[[T], str] | None = None,
    ) -> Iterator[R]:
        """``stage(context, batch)`` for every batch, results in batch order.

        ``batches`` is consumed lazily (a bounded number ahead of the results taken), so a
        generator that reads the stores as it goes sees the writes of earlier results.
        ``keys`` names a batch (for logs and task names).
        """
        ...

    def close(self) -> None:
        """Release what the executor started (a local Ray cluster it started itself)."""
        ...


class LocalExecutor:
    """Runs every stage in this process, batch after batch (the default)."""

    name = "local"

    def __init__(self, *, documents_per_task: int = 1, chunks_per_task: int | None = None):
        self.documents_per_task = documents_per_task
        self.chunks_per_task = chunks_per_task

    def map(
        self,
        stage: Callable[[Any, T], R],
        batches: Iterable[T],
        *,
        context: Any = None,
        keys: Callable[[T], str] | None = None,
    ) -> Iterator[R]:
        """See :meth:`Executor.map`."""
        for batch in batches:
            yield stage(context, batch)

    def close(self) -> None:
        """Nothing to release."""


KILL_WORKER_ENV = "KG_RAG_TEST_KILL_WORKER"
"""Test hook: a file path. When that file exists and holds ``stage`` or ``stage:N``, the
task of that stage that comes after N others renames the file away (only one task can) and
SIGKILLs its own worker, so the tests see Ray re-run the task on a fresh worker."""


def worker_fault(stage: str) -> None:
    """Kill this worker once if :data:`KILL_WORKER_ENV` arms ``stage`` (a no-op otherwise)."""
    armed = os.environ.get(KILL_WORKER_ENV)
    if not armed or not os.path.exists(armed):
        return
    try:
        with open(armed, encoding="utf-8") as fh:
            wanted, _, after = fh.read().strip().partition(":")
        if wanted != stage:
            return
        # Every task of the stage leaves a mark; the one that finds more than N goes.
        with open(f"{armed}.seen.{uuid.uuid4().hex}", "w", encoding="utf-8"):
            pass
        seen = len(glob.glob(glob.escape(armed) + ".seen.*"))
        if seen <= int(after or "0"):
            return
        os.rename(armed, f"{armed}.fired-{os.getpid()}")  # atomic: one task wins
    except (OSError, ValueError):
        return
    os.kill(os.getpid(), signal.SIGKILL)


def _call(stage: Callable[[Any, Any], Any], context: Any, batch: Any) -> Any:
    """The one Ray task: runs ``stage`` in a worker (the context arrives resolved)."""
    worker_fault(getattr(stage, "__name__", ""))
    return stage(context, batch)


class RayExecutor:
    """Runs every stage as Ray tasks; this process applies the results.

    Nothing is started in the constructor: the first :meth:`map` connects to the cluster
    named by ``settings.ray_address`` (or the one this process is connected to already),
    else starts a local one with ``settings.ray_num_cpus`` CPUs on loopback; :meth:`close`
    shuts down only a cluster this executor started.

    Args:
        settings: The ``executor`` section (batch sizes, retries, address).
    """

    name = "ray"

    def __init__(self, settings: ExecutorSettings | None = None) -> None:
        self.settings = settings or ExecutorSettings(kind="ray")
        self.documents_per_task = max(1, self.settings.documents_per_task)
        self.chunks_per_task: int | None = max(1, self.settings.chunks_per_task)
        self._ray: Any = None
        self._remote: Any = None
        self._started = False
        self._window = 0

    def _connect(self) -> Any:
        if self._ray is not None:
            return self._ray
        try:
            import ray as ray_module
        except ImportError as exc:
            raise ConfigError(
                "executor 'ray' needs Ray: pip install 'kgrag-engine[ray]' (or pip install "
                "ray), or use the local executor (KG_RAG_EXECUTOR__KIND=local)"
            ) from exc
        ray: Any = ray_module  # typed loosely: the stubs vary across Ray releases
        if not ray.is_initialized():
            address = self.settings.ray_address
            if address is None:
                start_local_ray(num_cpus=self.settings.ray_num_cpus)
                self._started = True
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self._window = self.settings.max_in_flight or max(2, 2 * cpus)
        self._remote = ray.remote(max_retries=self.settings.max_retries)(_call)
        self._ray = ray
        return ray

    def map(
        self,
        stage: Callable[[Any, T], R],
        batches: Iterable[T],
        *,
        context: Any = None,
        keys: Callable[[T], str] | None = None,
    ) -> Iterator[R]:
        """See :meth:`Executor.map`: at most ``max_in_flight`` tasks run ahead of the
        results taken; a task whose worker dies is re-run by Ray up to ``max_retries``
        times, an exception raised by the stage itself is raised here."""
        ray = self._connect()
        context_ref = ray.put(context)  # shipped once, not once per task
        name = getattr(stage, "__name__", "stage")
        pending: collections.deque[Any] = collections.deque()
        items = iter(batches)
        exhausted = False
        while True:
            while not exhausted and len(pending) < self._window:
                try:
                    batch = next(items)
                except StopIteration:
                    exhausted = True
                    break
                task = f"kg-rag:{name}" + (f":{keys(batch)}" if keys is not None else "")
                pending.append(self._remote.options(name=task).remote(stage, context_ref, batch))
            if not pending:
                return
            yield ray.get(pending.popleft())

    def close(self) -> None:
        """Shut down the local cluster this executor started (a joined one is left)."""
        if self._ray is not None and self._started:
            self._ray.shutdown()
        self._ray = None
        self._remote = None
        self._started = False


def start_local_ray(
    *, num_cpus: int | None = None, runtime_env: dict[str, Any] | None = None, attempts: int = 3
) -> None:
    """Start a local Ray cluster on this machine (no dashboard), retrying a failed start.

    Ray gives its node agents a fixed few seconds to come up; on a machine whose CPUs are
    busy a start can miss that window, and the next attempt (imports now cached) usually
    makes it.

    Raises:
        StoreUnavailable: No attempt succeeded.
    """
    import ray as ray_module

    ray: Any = ray_module
    last: Exception | None = None
    for attempt in range(1, attempts + 1):
        try:
            ray.init(
                num_cpus=num_cpus,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                runtime_env=runtime_env,
                # A worker replacing one that died must be given time to start on a busy box.
                _system_config={"worker_register_timeout_seconds": 180},
            )
        except Exception as exc:  # Ray raises a bare Exception when its node times out
            last = exc
            log.warning("local Ray start %d/%d failed: %s", attempt, attempts, exc)
            ray.shutdown()
            continue
        log.info("started a local Ray cluster")
        return
    raise StoreUnavailable(
        f"could not start a local Ray cluster ({last}); the machine may be overloaded: start "
        "one with `ray start --head` and pass its address (--ray-address / "
        "KG_RAG_EXECUTOR__RAY_ADDRESS), or use the local executor"
    ) from last


def build_executor(spec: Executor | str | None, settings: ExecutorSettings) -> Executor:
    """The executor ``spec`` names: an :class:`Executor` as given, ``"local"`` or ``"ray"``,
    or ``None`` for ``settings.kind``.

    Raises:
        ConfigError: An unknown name.
    """
    if spec is not None and not isinstance(spec, str):
        return spec
    kind = spec or settings.kind
    if kind == "local":
        return LocalExecutor()
    if kind == "ray":
        return RayExecutor(settings)
    raise ConfigError(f"unknown executor {kind!r}: use 'local' or 'ray'")
