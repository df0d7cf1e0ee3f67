"""Every Cypher statement kg-rag sends to Neo4j, in one place.

Values always travel as parameters. The few things Cypher cannot parameterize (labels,
relationship types, variable-length bounds, index options) are produced by functions here that
accept only allow-listed labels and bounded integers, never free text.

Data model::

    (:Document {doc_id})-[:HAS_CHUNK]->(:Chunk {chunk_id, doc_id, level, preview, ...})
    (:Chunk)-[:MENTIONS]->(:Entity {entity_id, name, type, aliases, description, vector, ...})
    (:Entity)-[:RELATED {type, description, weight, evidence}]->(:Entity)
    (:Entity)-[:IN_COMMUNITY]->(:Community {community_id, level, ...})-[:CHILD_OF]->(:Community)
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "LABELS",
    "REL_TYPES",
    "check_label",
    "check_rel_type",
    "count_label",
    "create_vector_index",
    "lucene_escape",
    "paths_query",
]

LABELS: Final = frozenset({"Entity", "Chunk", "Document", "Community"})
REL_TYPES: Final = frozenset({"RELATED", "MENTIONS", "HAS_CHUNK", "IN_COMMUNITY", "CHILD_OF"})

FULLTEXT_INDEX: Final = "entity_names"
VECTOR_INDEX: Final = "entity_vectors"
MAX_PATH_HOPS: Final = 10
MAX_VECTOR_DIM: Final = 4096


def check_label(label: str) -> str:
    """Return ``label`` if it is one of kg-rag's node labels, else raise ``ValueError``."""
    if label not in LABELS:
        raise ValueError(f"label {label!r} is not one of {sorted(LABELS)}")
    return label


def check_rel_type(rel_type: str) -> str:
    """Return ``rel_type`` if it is one of kg-rag's relationship types, else raise."""
    if rel_type not in REL_TYPES:
        raise ValueError(f"relationship type {rel_type!r} is not one of {sorted(REL_TYPES)}")
    return rel_type


def count_label(label: str) -> str:
    """``MATCH (n:<label>) RETURN count(n) AS n`` for an allow-listed label."""
    return f"MATCH (n:{check_label(label)}) RETURN count(n) AS n"


def lucene_escape(text: str) -> str:
    """Escape Lucene query syntax so user text is searched literally."""
    special = set('+-&|!(){}[]^"~*?:\\/')
    return "".join(f"\\{ch}" if ch in special else ch for ch in text)


# -- schema -----------------------------------------------------------------------------------

CONSTRAINTS: Final = (
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.entity_id IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.chunk_id IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.doc_id IS UNIQUE",
    "CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.community_id IS UNIQUE",
    "CREATE INDEX chunk_doc_id IF NOT EXISTS FOR (n:Chunk) ON (n.doc_id)",
    "CREATE INDEX community_level IF NOT EXISTS FOR (n:Community) ON (n.level)",
    "CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.aliases_text]",
    "CREATE INDEX entity_name_key IF NOT EXISTS FOR (n:Entity) ON (n.name_key)",
    "CREATE INDEX entity_compact_key IF NOT EXISTS FOR (n:Entity) ON (n.compact_key)",
    "CREATE TEXT INDEX entity_search_text IF NOT EXISTS FOR (n:Entity) ON (n.search_text)",
    "CREATE INDEX entity_community_dirty IF NOT EXISTS FOR (n:Entity) ON (n.community_dirty)",
    "CREATE INDEX community_dirty IF NOT EXISTS FOR (n:Community) ON (n.community_dirty)",
)

AWAIT_INDEXES: Final = "CALL db.awaitIndexes($timeout)"

VECTOR_INDEX_DIM: Final = """
SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN options.indexConfig.`vector.dimensions` AS dim,
       coalesce(options.indexConfig.`vector.quantization.enabled`, false) AS quantized
"""

DROP_VECTOR_INDEX: Final = "DROP INDEX entity_vectors IF EXISTS"

COUNT_VECTORS: Final = "MATCH (e:Entity) WHERE e.vector IS NOT NULL RETURN count(e) AS n"


def create_vector_index(dim: int) -> str:
    """``CREATE VECTOR INDEX`` for entity embeddings of ``dim`` dimensions (cosine).

    Quantization is off: Neo4j would otherwise score with int8 vectors (errors ~1e-3), and
    the scores would no longer match the embedded store's exact cosine. Index options cannot
    be parameters, so ``dim`` is checked to be a plain bounded int.
    """
    if type(dim) is not int or not 1 <= dim <= MAX_VECTOR_DIM:
        raise ValueError(f"vector dimension must be an int in 1..{MAX_VECTOR_DIM}, got {dim!r}")
    return (
        "CREATE VECTOR INDEX entity_vectors IF NOT EXISTS FOR (n:Entity) ON (n.vector) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dim}, "
        "`vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}"
    )


# -- writes -----------------------------------------------------------------------------------

UPSERT_ENTITIES: Final = """
UNWIND $rows AS row
MERGE (e:Entity {entity_id: row.entity_id})
SET e.community_dirty = CASE
        WHEN e.name IS NULL OR e.name <> row.name OR e.type <> row.type
             OR coalesce(e.aliases, []) <> row.aliases
             OR coalesce(e.description, '') <> row.description
        THEN true ELSE e.community_dirty END
SET e.name = row.name,
    e.type = row.type,
    e.aliases = row.aliases,
    e.aliases_text = row.aliases_text,
    e.search_text = row.search_text,
    e.name_key = row.name_key,
    e.name_keys = row.name_keys,
    e.compact_key = row.compact_key,
    e.description = row.description,
    e.vector = row.vector
"""

# Entities written before name keys existed (filled in on open, in batches).
ENTITIES_WITHOUT_KEYS: Final = """
MATCH (e:Entity) WHERE e.name_keys IS NULL
RETURN e.entity_id AS entity_id, e.name AS name, e.aliases AS aliases
LIMIT $limit
"""

SET_NAME_KEYS: Final = """
UNWIND $rows AS row
MATCH (e:Entity {entity_id: row.entity_id})
SET e.name_key = row.name_key, e.name_keys = row.name_keys, e.compact_key = row.compact_key
"""

# Evidence is a set: keep what is there and append the chunk ids not yet present.
UPSERT_RELATIONS: Final = """
UNWIND $rows AS row
MATCH (a:Entity {entity_id: row.source_id})
MATCH (b:Entity {entity_id: row.target_id})
MERGE (a)-[r:RELATED {type: row.type}]->(b)
SET r.description = row.description,
    r.weight = row.weight,
    r.evidence = coalesce(r.evidence, [])
        + [x IN row.evidence WHERE NOT x IN coalesce(r.evidence, [])],
    a.community_dirty = true,
    b.community_dirty = true
RETURN count(r) AS n
"""

UPSERT_MENTIONS: Final = """
UNWIND $rows AS row
MATCH (e:Entity {entity_id: row.entity_id})
MERGE (c:Chunk {chunk_id: row.chunk_id})
SET c.doc_id = row.doc_id
MERGE (d:Document {doc_id: row.doc_id})
MERGE (d)-[:HAS_CHUNK]->(c)
MERGE (c)-[:MENTIONS]->(e)
RETURN count(e) AS n
"""

UPSERT_CHUNKS: Final = """
UNWIND $rows AS row
MERGE (c:Chunk {chunk_id: row.chunk_id})
SET c.doc_id = row.doc_id,
    c.level = row.level,
    c.parent_id = row.parent_id,
    c.ordinal = row.ordinal,
    c.preview = row.preview
MERGE (d:Document {doc_id: row.doc_id})
MERGE (d)-[:HAS_CHUNK]->(c)
"""

# Titles for the Browser; only documents the graph already knows (through chunks) are touched.
ANNOTATE_DOCUMENTS: Final = """
UNWIND $rows AS row
MATCH (d:Document {doc_id: row.doc_id})
SET d.title = row.title, d.source = row.source, d.version = row.version
"""

# Neighbours and communities of a deleted entity are marked for the community update.
DELETE_ENTITIES: Final = """
UNWIND $ids AS id
MATCH (e:Entity {entity_id: id})
FOREACH (n IN [(e)-[:RELATED]-(m:Entity) | m] | SET n.community_dirty = true)
FOREACH (c IN [(e)-[:IN_COMMUNITY]->(k:Community) | k] | SET c.community_dirty = true)
DETACH DELETE e
"""

DELETE_ALL_COMMUNITIES: Final = "MATCH (c:Community) DETACH DELETE c"

CREATE_COMMUNITIES: Final = """
UNWIND $rows AS row
MERGE (c:Community {community_id: row.community_id})
SET c.level = row.level,
    c.parent_id = row.parent_id,
    c.title = row.title,
    c.summary = row.summary,
    c.findings = row.findings,
    c.rank = row.rank,
    c.content_hash = row.content_hash,
    c.vector = row.vector
"""

LINK_COMMUNITY_MEMBERS: Final = """
UNWIND $rows AS row
MATCH (c:Community {community_id: row.community_id})
UNWIND row.members AS member
MATCH (e:Entity {entity_id: member})
MERGE (e)-[:IN_COMMUNITY]->(c)
"""

LINK_COMMUNITY_PARENTS: Final = """
UNWIND $rows AS row
MATCH (c:Community {community_id: row.community_id})
MATCH (p:Community {community_id: row.parent_id})
MERGE (c)-[:CHILD_OF]->(p)
"""

DOCUMENT_FOOTPRINT: Final = """
MATCH (c:Chunk {doc_id: $doc_id})
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity)
RETURN collect(DISTINCT c.chunk_id) AS chunks, collect(DISTINCT e.entity_id) AS entities
"""

# Evidence may cite chunks whose entities are not the relation's endpoints, so every relation
# is checked, not only those around the document's entities.
STRIP_EVIDENCE: Final = """
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
WHERE any(x IN r.evidence WHERE x IN $chunks)
SET r.evidence = [x IN r.evidence WHERE NOT x IN $chunks],
    a.community_dirty = true,
    b.community_dirty = true
WITH r WHERE size(r.evidence) = 0
DELETE r
"""

DELETE_DOCUMENT_CHUNKS: Final = """
MATCH (c:Chunk {doc_id: $doc_id})
DETACH DELETE c
"""

DELETE_DOCUMENT_NODE: Final = """
MATCH (d:Document {doc_id: $doc_id})
DETACH DELETE d
"""

DELETE_UNMENTIONED_ENTITIES: Final = """
UNWIND $ids AS id
MATCH (e:Entity {entity_id: id})
WHERE NOT EXISTS { MATCH (e)<-[:MENTIONS]-(:Chunk) }
FOREACH (n IN [(e)-[:RELATED]-(m:Entity) | m] | SET n.community_dirty = true)
FOREACH (c IN [(e)-[:IN_COMMUNITY]->(k:Community) | k] | SET c.community_dirty = true)
DETACH DELETE e
"""

MARK_ENTITIES_DIRTY: Final = """
UNWIND $ids AS id
MATCH (e:Entity {entity_id: id})
SET e.community_dirty = true
"""

# Used by the write benchmark to compare against UNWIND batches.
MERGE_ONE_ENTITY: Final = """
MERGE (e:Entity {entity_id: $entity_id})
SET e.name = $name, e.type = $type, e.description = $description
"""

MERGE_ONE_RELATION: Final = """
MATCH (a:Entity {entity_id: $source_id})
MATCH (b:Entity {entity_id: $target_id})
MERGE (a)-[r:RELATED {type: $type}]->(b)
SET r.weight = $weight, r.description = $description, r.evidence = $evidence
"""

WIPE_BATCH: Final = """
MATCH (n) WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS n
"""

# -- reads ------------------------------------------------------------------------------------

_ENTITY_FIELDS = """
e.entity_id AS entity_id, e.name AS name, e.type AS type, e.aliases AS aliases,
e.description AS description, e.vector AS vector
"""

GET_ENTITIES: Final = f"""
UNWIND $ids AS id
MATCH (e:Entity {{entity_id: id}})
RETURN DISTINCT {_ENTITY_FIELDS}
"""

EXISTING_ENTITY_IDS: Final = """
UNWIND $ids AS id
MATCH (e:Entity {entity_id: id})
RETURN DISTINCT e.entity_id AS entity_id
"""

ALL_ENTITIES: Final = f"""
MATCH (e:Entity)
RETURN {_ENTITY_FIELDS}
ORDER BY entity_id
"""

_RELATION_FIELDS = """
a.entity_id AS source_id, b.entity_id AS target_id, r.type AS type,
r.description AS description, r.weight AS weight, r.evidence AS evidence
"""

ALL_RELATIONS: Final = f"""
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
RETURN {_RELATION_FIELDS}
ORDER BY source_id, type, target_id
"""

# Column-wise collects: one record of four lists decodes ~3x faster than one record per edge.
ALL_EDGES: Final = """
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
RETURN collect(a.entity_id) AS sources, collect(b.entity_id) AS targets,
       collect(r.type) AS types, collect(r.weight) AS weights
"""

GRAPH_NODES: Final = """
MATCH (e:Entity)
RETURN collect(e.entity_id) AS ids, collect(e.name) AS names, collect(e.type) AS types
"""

ALL_MENTIONS: Final = """
MATCH (c:Chunk)-[:MENTIONS]->(e:Entity)
RETURN e.entity_id AS entity_id, c.chunk_id AS chunk_id, c.doc_id AS doc_id
ORDER BY entity_id, chunk_id
"""

ALL_CHUNKS: Final = """
MATCH (c:Chunk)
RETURN c.chunk_id AS chunk_id, c.doc_id AS doc_id, c.level AS level,
       c.parent_id AS parent_id, c.ordinal AS ordinal, c.preview AS preview
ORDER BY chunk_id
"""

# A superset for name matching: every entity whose normalized names contain a needle, one
# CONTAINS per needle so the text index on search_text serves it (an any(...) over the list
# would scan every entity). The ranking itself happens in Python
# (kg_rag.stores.ppr.rank_name_matches).
NAME_CANDIDATES: Final = f"""
UNWIND $needles AS needle
MATCH (e:Entity)
WHERE e.search_text CONTAINS needle
RETURN DISTINCT {_ENTITY_FIELDS}
"""

FULLTEXT_ENTITIES: Final = f"""
CALL db.index.fulltext.queryNodes('entity_names', $query, {{limit: $limit}})
YIELD node AS e, score
RETURN {_ENTITY_FIELDS}, score
ORDER BY score DESC, entity_id
LIMIT $limit
"""

SIMILAR_ENTITIES: Final = f"""
CALL db.index.vector.queryNodes('entity_vectors', $k, $vector)
YIELD node AS e, score
RETURN {_ENTITY_FIELDS}, score
"""

# Exact name lookups through indexes (kg_rag.stores.ppr.lookup_keys): the normalized name and
# the compact name have range indexes; an alias is found through the full-text index and kept
# only when one of the entity's normalized names is the key.
ENTITIES_BY_NAME_KEY: Final = f"""
UNWIND $keys AS k
MATCH (e:Entity {{name_key: k}})
RETURN DISTINCT {_ENTITY_FIELDS}
"""

ENTITIES_BY_COMPACT_KEY: Final = f"""
UNWIND $keys AS k
MATCH (e:Entity {{compact_key: k}})
RETURN DISTINCT {_ENTITY_FIELDS}
"""

ENTITIES_BY_ALIAS_KEY: Final = f"""
UNWIND $queries AS aq
CALL db.index.fulltext.queryNodes('entity_names', aq.query, {{limit: $per_key}})
YIELD node AS e
WITH e, aq WHERE aq.key IN e.name_keys
RETURN DISTINCT {_ENTITY_FIELDS}
"""

ANY_ENTITY_VECTOR: Final = """
MATCH (e:Entity) WHERE e.vector IS NOT NULL
RETURN e.entity_id AS entity_id LIMIT 1
"""

_COMMUNITY_FIELDS: Final = """
OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
WITH c, collect(e.entity_id) AS members
RETURN c.community_id AS community_id, c.level AS level, c.parent_id AS parent_id,
       members, c.title AS title, c.summary AS summary, c.findings AS findings,
       c.rank AS rank, c.content_hash AS content_hash, null AS vector
ORDER BY level, community_id
"""

COMMUNITIES_OF: Final = (
    """
UNWIND $ids AS id
MATCH (:Entity {entity_id: id})-[:IN_COMMUNITY]->(k:Community)
WITH DISTINCT k AS c
"""
    + _COMMUNITY_FIELDS
)

GET_COMMUNITIES: Final = (
    """
UNWIND $ids AS id
MATCH (c:Community {community_id: id})
WITH DISTINCT c
"""
    + _COMMUNITY_FIELDS
)

CHILD_COMMUNITIES: Final = (
    """
UNWIND $ids AS id
MATCH (k:Community)-[:CHILD_OF]->(:Community {community_id: id})
WITH DISTINCT k AS c
"""
    + _COMMUNITY_FIELDS
)

RELATIONS_OF: Final = f"""
UNWIND $ids AS id
MATCH (x:Entity {{entity_id: id}})-[r:RELATED]-(:Entity)
WITH DISTINCT r
MATCH (a:Entity)-[r]->(b:Entity)
RETURN {_RELATION_FIELDS}
"""

DELETE_COMMUNITIES: Final = """
UNWIND $ids AS id
MATCH (c:Community {community_id: id})
DETACH DELETE c
"""

# An upserted community keeps its node (children link to it); the member links it lost
# and a parent link that changed go (the gained ones are merged by LINK_COMMUNITY_MEMBERS).
UNLINK_COMMUNITY_CHANGES: Final = """
UNWIND $rows AS row
MATCH (c:Community {community_id: row.community_id})
CALL (c, row) {
  UNWIND row.dropped AS member
  MATCH (:Entity {entity_id: member})-[m:IN_COMMUNITY]->(c)
  DELETE m
}
CALL (c, row) {
  MATCH (c)-[p:CHILD_OF]->(q:Community)
  WHERE row.parent_id IS NULL OR q.community_id <> row.parent_id
  DELETE p
}
REMOVE c.community_dirty
"""

DIRTY_ENTITIES: Final = """
MATCH (e:Entity) WHERE e.community_dirty = true
RETURN e.entity_id AS id ORDER BY id
"""

DIRTY_COMMUNITIES: Final = """
MATCH (c:Community) WHERE c.community_dirty = true
RETURN c.community_id AS id ORDER BY id
"""

CLEAR_DIRTY_ENTITIES: Final = """
UNWIND $ids AS id
MATCH (e:Entity {entity_id: id})
REMOVE e.community_dirty
"""

CLEAR_DIRTY_COMMUNITIES: Final = """
UNWIND $ids AS id
MATCH (c:Community {community_id: id})
REMOVE c.community_dirty
"""

CLEAR_ALL_DIRTY: Final = """
CALL () { MATCH (e:Entity) WHERE e.community_dirty = true REMOVE e.community_dirty }
CALL () { MATCH (c:Community) WHERE c.community_dirty = true REMOVE c.community_dirty }
"""

MENTION_COUNTS: Final = """
UNWIND $ids AS id
MATCH (c:Chunk)-[:MENTIONS]->(e:Entity {entity_id: id})
RETURN e.entity_id AS key, count(DISTINCT c) AS n
"""

NEIGHBOUR_IDS: Final = """
UNWIND $ids AS id
MATCH (:Entity {entity_id: id})-[:RELATED]-(m:Entity)
WITH DISTINCT m.entity_id AS entity_id
WHERE NOT entity_id IN $seen
RETURN collect(entity_id) AS ids
"""

# The ``limit`` smallest new ids: what a BFS capped at a node budget keeps of a level.
NEIGHBOUR_IDS_LIMITED: Final = """
UNWIND $ids AS id
MATCH (:Entity {entity_id: id})-[:RELATED]-(m:Entity)
WITH DISTINCT m.entity_id AS entity_id
WHERE NOT entity_id IN $seen
WITH entity_id ORDER BY entity_id LIMIT $limit
RETURN collect(entity_id) AS ids
"""

INDUCED_RELATIONS: Final = f"""
UNWIND $ids AS id
MATCH (a:Entity {{entity_id: id}})-[r:RELATED]->(b:Entity)
WHERE b.entity_id IN $ids
RETURN {_RELATION_FIELDS}
"""

INDUCED_EDGES: Final = """
UNWIND $ids AS id
MATCH (a:Entity {entity_id: id})-[r:RELATED]->(b:Entity)
WHERE b.entity_id IN $ids
RETURN collect(a.entity_id) AS sources, collect(b.entity_id) AS targets,
       collect(r.type) AS types, collect(r.weight) AS weights
"""


def paths_query(max_hops: int) -> str:
    """All shortest undirected paths of at most ``max_hops`` hops, sorted by (nodes, types).

    Variable-length bounds cannot be parameters, so ``max_hops`` is checked to be a small int.
    """
    if type(max_hops) is not int or not 1 <= max_hops <= MAX_PATH_HOPS:
        raise ValueError(f"max_hops must be an int in 1..{MAX_PATH_HOPS}, got {max_hops!r}")
    return f"""
MATCH (a:Entity {{entity_id: $source}})
MATCH (b:Entity {{entity_id: $target}})
MATCH p = allShortestPaths((a)-[:RELATED*..{max_hops}]-(b))
WITH DISTINCT [n IN nodes(p) | n.entity_id] AS nodes, [r IN relationships(p) | r.type] AS types
RETURN nodes, types
ORDER BY nodes, types
LIMIT $limit
"""


CHUNKS_FOR_ENTITIES: Final = """
UNWIND $ids AS id
MATCH (c:Chunk)-[:MENTIONS]->(e:Entity {entity_id: id})
RETURN e.entity_id AS key, collect(DISTINCT c.chunk_id) AS ids
"""

ENTITIES_FOR_CHUNKS: Final = """
UNWIND $ids AS id
MATCH (c:Chunk {chunk_id: id})-[:MENTIONS]->(e:Entity)
RETURN c.chunk_id AS key, collect(DISTINCT e.entity_id) AS ids
"""

COMMUNITIES: Final = """
MATCH (c:Community)
WHERE $level IS NULL OR c.level = $level
OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
WITH c, collect(e.entity_id) AS members
RETURN c.community_id AS community_id, c.level AS level, c.parent_id AS parent_id,
       members, c.title AS title, c.summary AS summary, c.findings AS findings,
       c.rank AS rank, c.content_hash AS content_hash, c.vector AS vector
ORDER BY level, community_id
"""

COUNTS: Final = """
CALL () { MATCH (n:Entity) RETURN count(n) AS entities }
CALL () { MATCH ()-[r:RELATED]->() RETURN count(r) AS relations }
CALL () { MATCH ()-[r:MENTIONS]->() RETURN count(r) AS mentions }
CALL () { MATCH (n:Community) RETURN count(n) AS communities }
CALL () { MATCH (n:Chunk) RETURN count(n) AS chunks }
CALL () { MATCH (n:Chunk) RETURN count(DISTINCT n.doc_id) AS documents }
RETURN entities, relations, mentions, communities, chunks, documents
"""

# Snapshots of the whole database, used to prove that refused Cypher changed nothing.
SNAPSHOT_NODES: Final = """
MATCH (n)
RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props
ORDER BY id
"""

SNAPSHOT_RELATIONSHIPS: Final = """
MATCH (a)-[r]->(b)
RETURN elementId(r) AS id, type(r) AS type, elementId(a) AS source, elementId(b) AS target,
       properties(r) AS props
ORDER BY id
"""

SNAPSHOT_TOKENS: Final = """
CALL () { CALL db.labels() YIELD label RETURN collect(label) AS labels }
CALL () { CALL db.relationshipTypes() YIELD relationshipType RETURN collect(relationshipType) AS types }
CALL () { CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS keys }
RETURN labels, types, keys
"""

SNAPSHOT_INDEXES: Final = "SHOW INDEXES YIELD name RETURN name ORDER BY name"

SNAPSHOT_CONSTRAINTS: Final = "SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name"

SNAPSHOT_USERS: Final = "SHOW USERS YIELD user RETURN user ORDER BY user"
