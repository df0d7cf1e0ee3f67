"""Shared fixtures. Integration and contract tests use servers started by ``scripts/test.sh``
(``kg-rag neo4j start`` and ``kg-rag llm-server start``); when a server is not reachable the
test fails with the command to run — it never skips."""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg_rag.config import Neo4jSettings, Settings

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Keep the suite out of the real user cache dir: the shared LLM response cache
    (``llm.response_cache="shared"``, the default) lives under ``$XDG_CACHE_HOME``."""
    path = tempfile.mkdtemp(prefix="kg-rag-test-cache-")
    config.add_cleanup(lambda: shutil.rmtree(path, ignore_errors=True))
    os.environ["XDG_CACHE_HOME"] = path


@pytest.fixture(autouse=True)
def _private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test gets its own empty user cache dir, so answers one test's fake model gave are
    never served to another (tests that count calls); within a test the shared cache works
    as it does for a user."""
    path = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(path))
        yield path


@pytest.fixture(scope="session")
def neo4j_settings() -> Neo4jSettings:
    """Settings of the running Neo4j (password from KG_RAG_NEO4J__PASSWORD)."""
    settings = Settings().neo4j
    if settings.password is None:
        pytest.fail(
            "KG_RAG_NEO4J__PASSWORD is not set: run the suite through scripts/test.sh, "
            "or export it and run `kg-rag neo4j start` first."
        )
    from neo4j import GraphDatabase

    try:
        with GraphDatabase.driver(
            settings.uri, auth=(settings.user, settings.password.get_secret_value())
        ) as driver:
            driver.verify_connectivity()
    except Exception as exc:  # pragma: no cover - message path
        pytest.fail(f"Neo4j is not reachable at {settings.uri} ({exc}); run `kg-rag neo4j start`.")
    return settings


@pytest.fixture(scope="session")
def llm_base_url() -> str:
    """Base URL (…/v1) of the running OpenAI-compatible LLM test server."""
    url = os.environ.get("KG_RAG_TEST_LLM_URL", "http://127.0.0.1:8765/v1")
    try:
        # /openapi.json answers even while the server is busy generating (/v1/models waits).
        with urllib.request.urlopen(url.removesuffix("/v1") + "/openapi.json", timeout=30) as resp:
            resp.read()
    except Exception as exc:  # pragma: no cover - message path
        pytest.fail(f"LLM server not reachable at {url} ({exc}); run `kg-rag llm-server start`.")
    return url


@pytest.fixture()
def artifacts_dir() -> Iterator[Path]:
    """Folder for test artifacts (screenshots, plots) kept after the run."""
    path = REPO / "test-artifacts"
    path.mkdir(exist_ok=True)
    yield path


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A local Ray cluster (2 CPUs, no dashboard) for the session, or the running cluster
    ``KG_RAG_TEST_RAY_ADDRESS`` names (e.g. one started with ``ray start --head``); yields
    the path of the file that arms :func:`kg_rag.ingest.executor.worker_fault` in its workers
    (write a stage name into it and a task of that stage kills its own worker)."""
    import ray

    from kg_rag.ingest.executor import KILL_WORKER_ENV, start_local_ray

    kill_file = tmp_path_factory.mktemp("ray") / "kill-worker"
    runtime_env = {"env_vars": {KILL_WORKER_ENV: str(kill_file)}}
    address = os.environ.get("KG_RAG_TEST_RAY_ADDRESS")
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        start_local_ray(num_cpus=2, runtime_env=runtime_env)
    yield kill_file
    ray.shutdown()
