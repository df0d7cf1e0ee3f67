"""Fixtures for the GraphStore contract suite: every test runs on both stores.

The Neo4j store runs against the real server (``neo4j_settings`` from ``tests/conftest.py``),
on a database wiped at the start of each test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kg_rag.config import Neo4jSettings
from kg_rag.stores import queries
from kg_rag.stores.embedded import EmbeddedGraphStore

StoreFactory = Callable[[], Any]


def wipe_neo4j(driver: Any, database: str) -> None:
    """Delete every node and relationship, in batches so a large leftover graph is fine."""
    while True:
        records, _, _ = driver.execute_query(
            queries.WIPE_BATCH, {"batch": 10_000}, database_=database
        )
        if records[0]["n"] == 0:
            return


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_settings: Neo4jSettings) -> Iterator[Any]:
    """One driver for the whole session (stores get it injected)."""
    from neo4j import GraphDatabase

    password = neo4j_settings.password.get_secret_value() if neo4j_settings.password else ""
    driver = GraphDatabase.driver(neo4j_settings.uri, auth=(neo4j_settings.user, password))
    yield driver
    driver.close()


@pytest.fixture()
def clean_neo4j(neo4j_settings: Neo4jSettings, neo4j_driver: Any) -> tuple[Neo4jSettings, Any]:
    """Settings and driver of a freshly wiped Neo4j database."""
    wipe_neo4j(neo4j_driver, neo4j_settings.database)
    return neo4j_settings, neo4j_driver


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A callable that opens a (new handle on the same) store; the first call starts clean."""
    opened: list[Any] = []
    if request.param == "embedded":

        def make() -> Any:
            store = EmbeddedGraphStore(tmp_path / "kb")
            store.open()
            opened.append(store)
            return store

    else:
        from kg_rag.stores.neo4j import Neo4jGraphStore

        settings = request.getfixturevalue("neo4j_settings")
        driver = request.getfixturevalue("neo4j_driver")
        wipe_neo4j(driver, settings.database)

        def make() -> Any:
            store = Neo4jGraphStore(settings, driver=driver)
            store.open()
            opened.append(store)
            return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture()
def store(store_factory: StoreFactory) -> Any:
    """An open, empty store of each kind."""
    return store_factory()
