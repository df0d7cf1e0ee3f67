"""Fixtures shared by the integration tests."""

from __future__ import annotations

import pytest
from neo4j import GraphDatabase

from kg_rag.config import Neo4jSettings
from kg_rag.stores import queries


@pytest.fixture
def empty_neo4j(neo4j_settings: Neo4jSettings) -> Neo4jSettings:
    """The settings of the running Neo4j, its database wiped first (in batches, as
    ``queries.WIPE_BATCH`` deletes), for a test that builds a knowledge base from nothing."""
    password = neo4j_settings.password.get_secret_value() if neo4j_settings.password else ""
    with GraphDatabase.driver(neo4j_settings.uri, auth=(neo4j_settings.user, password)) as drv:
        while drv.execute_query(
            queries.WIPE_BATCH, {"batch": 10_000}, database_=neo4j_settings.database
        ).records[0]["n"]:
            pass
    return neo4j_settings
