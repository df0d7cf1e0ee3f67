"""Retrieval routes: chunks (hybrid search), graph (linking, templated Cypher, PPR), community."""
