"""Migrate a knowledge base to another embedder without re-extracting its graph.

:func:`reembed` (CLI: ``kg-rag ingest --reembed``) recomputes every vector the knowledge
base holds with the new embedder — chunk vectors (all four levels, as an ingest would compute
them), entity-name vectors and community-summary vectors — and records the new model in
``kb_meta``. Documents, chunks (ids, text, BM25 tokens), entities, relations, mentions and
communities are left as they are.

It is restartable: the target model is written to ``kb_meta`` (``reembed_target``) before any
vector changes, and opening the knowledge base while it is there raises
:class:`~kg_rag.errors.SchemaMismatch` asking to run the migration again.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa
from langchain_core.embeddings import Embeddings
from pydantic import BaseModel

from kg_rag.config import Settings
from kg_rag.embedder_choice import (
    choose_model,
    detect_languages,
    is_auto,
    read_kb_meta,
    write_kb_meta,
)
from kg_rag.embeddings import build_embedder, embedder_dimensions, embedder_name, local_embedder
from kg_rag.errors import ConfigError
from kg_rag.ingest.vectorize import ChunkVectorizer
from kg_rag.stores._chunk_tables import now, row_to_chunk, table_schemas
from kg_rag.stores._level_tables import drop_level_tables
from kg_rag.stores.base import GraphStore
from kg_rag.stores.community_index import CommunityIndex

__all__ = ["ReembedReport", "reembed", "target_embedder"]

log = logging.getLogger(__name__)

_DOC_BATCH = 64


class ReembedReport(BaseModel):
    """What :func:`reembed` did."""

    kb_dir: str
    from_model: str
    to_model: str
    dimensions: int
    chunks: int = 0
    texts_embedded: int = 0
    entities: int = 0
    communities: int = 0
    seconds: float = 0.0
    skipped: bool = False
    """True when the knowledge base already used the target model (nothing was done)."""

    def __str__(self) -> str:
        if self.skipped:
            return f"{self.kb_dir}: already embedded with {self.to_model}; nothing to do"
        return (
            f"{self.kb_dir}: re-embedded {self.from_model} -> {self.to_model} "
            f"({self.dimensions}-d): {self.chunks} chunks ({self.texts_embedded} texts through "
            f"the model), {self.entities} entity names, {self.communities} community summaries "
            f"in {self.seconds:.1f} s; the graph is unchanged"
        )


def target_embedder(settings: Settings, db: Any) -> tuple[Embeddings, list[str]]:
    """The embedder to migrate to, and the corpus scripts when ``auto`` had to look."""
    if not is_auto(settings.embedding):
        return build_embedder(settings.embedding, settings.llm), []
    docs = db.open_table("documents").search().select(["text"]).limit(None).to_arrow()
    languages = detect_languages(t[:4000] for t in docs.column("text").to_pylist())
    model = choose_model(languages, settings.embedding)
    return local_embedder(model, settings.embedding.batch_size), languages


def _chunk_vectors(db: Any, vectorizer: ChunkVectorizer, dim: int) -> tuple[pa.Table, int]:
    """The chunks table with every vector recomputed (same rows, same order)."""
    docs = db.open_table("documents").search().select(["doc_id", "title"]).limit(None)
    titles = {r["doc_id"]: r["title"] or "" for r in docs.to_arrow().to_pylist()}
    table = db.open_table("chunks").to_arrow()
    rows = table.drop_columns(["vector"]).to_pylist()
    by_doc: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_doc[r["doc_id"]].append(i)
    matrix = np.zeros((len(rows), dim), dtype=np.float32)
    keys = [""] * len(rows)
    computed = 0
    doc_ids = sorted(by_doc)
    for start in range(0, len(doc_ids), _DOC_BATCH):
        batch = doc_ids[start : start + _DOC_BATCH]
        # The vectorizer wants parents before children, as chunk_document emits them.
        order = {
            d: sorted(
                by_doc[d],
                key=lambda i: (
                    ("document", "section", "paragraph", "sentence").index(rows[i]["level"]),
                    rows[i]["char_start"],
                    rows[i]["ordinal"],
                ),
            )
            for d in batch
        }
        docs_in = [(titles.get(d, ""), [row_to_chunk(rows[i]) for i in order[d]]) for d in batch]
        result = vectorizer.vectorize(docs_in)
        computed += result.computed
        for d, vectors, vkeys in zip(batch, result.vectors, result.keys, strict=True):
            for i, vec, key in zip(order[d], vectors, vkeys, strict=True):
                matrix[i] = vec
                keys[i] = key
    schema = table_schemas(dim)["chunks"]
    arrays = []
    for field in schema:
        if field.name == "vector":
            flat = pa.array(matrix.ravel(), type=pa.float32())
            arrays.append(pa.FixedSizeListArray.from_arrays(flat, dim))
        elif field.name == "vector_key":
            arrays.append(pa.array(keys, type=field.type))
        else:
            arrays.append(table.column(field.name).combine_chunks().cast(field.type))
    return pa.Table.from_arrays(arrays, schema=schema), computed


def _reembed_entities(graph: GraphStore, embedder: Embeddings, embed_all: bool) -> int:
    entities = graph.all_entities()
    todo = [e for e in entities if embed_all or e.vector is not None]
    if not todo:
        return 0
    old_dims = {len(e.vector) for e in todo if e.vector is not None}
    vectors = embedder.embed_documents([f"{e.name} ({e.type})" for e in todo])
    new_dim = len(vectors[0])
    if old_dims and old_dims != {new_dim}:
        # Stores fix the vector size of entities: clear the old vectors first.
        graph.upsert_entities([e.model_copy(update={"vector": None}) for e in entities])
    graph.upsert_entities(
        [
            e.model_copy(update={"vector": [float(x) for x in v]})
            for e, v in zip(todo, vectors, strict=True)
        ]
    )
    return len(todo)


def reembed(
    settings: Settings,
    *,
    embedder: Embeddings | None = None,
    graph_store: GraphStore | None = None,
    force: bool = False,
) -> ReembedReport:
    """Re-embed the knowledge base at ``settings.kb_dir`` with another embedder.

    Args:
        settings: Settings; ``embedding`` names the new embedder (``auto`` picks it from the
            stored documents' scripts) unless ``embedder`` is given.
        embedder: The embedder to migrate to.
        graph_store: The graph store (default: the one ``settings.graph_backend`` names).
        force: Re-embed even when the knowledge base already records the target model.

    Returns:
        A report of what was re-embedded.

    Raises:
        ConfigError: There is no knowledge base at ``settings.kb_dir``.
        SchemaMismatch: A Neo4j graph holds entity vectors of another size (drop its vector
            index first).
    """
    import lancedb

    from kg_rag.engine import build_graph_store

    started = time.perf_counter()
    kb_dir = settings.kb_dir
    meta = read_kb_meta(kb_dir)
    if not meta:
        raise ConfigError(f"No knowledge base at {kb_dir}: ingest documents first.")
    db = lancedb.connect(str(kb_dir))
    languages: list[str] = []
    if embedder is None:
        embedder, languages = target_embedder(settings, db)
    name = embedder_name(embedder)
    dim = embedder_dimensions(embedder)
    old = meta.get("embedding_model", "?")
    report = ReembedReport(kb_dir=str(kb_dir), from_model=old, to_model=name, dimensions=dim)
    if old == name and "reembed_target" not in meta and not force:
        report.skipped = True
        return report
    write_kb_meta(db, {"reembed_target": name, "reembed_from": old})
    # The level tables copy the old vectors: dropped here, rebuilt by the optimize() below.
    drop_level_tables(db)
    vectorizer = ChunkVectorizer(embedder)
    chunks, computed = _chunk_vectors(db, vectorizer, dim)
    report.chunks = chunks.num_rows
    report.texts_embedded = computed
    same_dim = int(meta.get("embedding_dimensions", "0")) == dim
    if same_dim:
        # In place: the table and its full-text index stay, only vectors are rewritten.
        (
            db.open_table("chunks")
            .merge_insert("chunk_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(chunks)
        )
    else:
        # A new vector size needs a new table; its indexes are rebuilt below.
        db.drop_table("chunks")
        db.create_table("chunks", chunks, schema=table_schemas(dim)["chunks"])
    graph = graph_store or build_graph_store(settings)
    graph.open()
    try:
        report.entities = _reembed_entities(graph, embedder, settings.extraction.embed_entities)
        index = CommunityIndex(db, embedder)
        communities = index.all()
        if communities:
            index.replace(communities)
        report.communities = len(communities)
    finally:
        graph.close()
    updates: dict[str, str | None] = {
        "embedding_model": name,
        "embedding_dimensions": str(dim),
        "reembedded_at": now(),
        "reembed_target": None,
        "reembed_from": None,
    }
    updates["embedding_selection"] = "auto" if languages else "setting"
    if languages:
        updates["corpus_languages"] = ",".join(languages)
    write_kb_meta(db, updates)
    _refresh_indexes(settings, embedder)
    report.seconds = time.perf_counter() - started
    log.info("%s", report)
    return report


def _refresh_indexes(settings: Settings, embedder: Embeddings) -> None:
    """Bring the full-text (and, past its threshold, the vector) index up to date."""
    from kg_rag.stores.chunks import LanceChunkStore

    store = LanceChunkStore(settings.kb_dir, embedder, settings=settings.retrieval)
    store.open()
    try:
        store.optimize()
    finally:
        store.close()
