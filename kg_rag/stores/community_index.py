"""Community summaries with vectors in LanceDB, for the community route (both graph backends
store the community structure itself; this table makes the summaries searchable)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from langchain_core.embeddings import Embeddings

from kg_rag.embeddings import single_blas_thread
from kg_rag.models import Community

__all__ = ["CommunityIndex"]

logger = logging.getLogger(__name__)

TABLE = "community_index"
_EMBED_CHARS = 320


class CommunityIndex:
    """A LanceDB table of community summaries and their vectors.

    Args:
        db: an open ``lancedb`` connection (the knowledge base folder).
        embedder: embeds summaries and queries.
    """

    def __init__(self, db: Any, embedder: Embeddings) -> None:
        self.db = db
        self.embedder = embedder
        self._cache: list[Community] | None = None
        self._matrix: np.ndarray | None = None

    def _schema(self, dim: int) -> pa.Schema:
        return pa.schema(
            [
                pa.field("community_id", pa.string()),
                pa.field("level", pa.int32()),
                pa.field("payload", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), dim)),
            ]
        )

    def _table(self) -> Any | None:
        """The open index table, or None when there is none. A table whose first write was
        cut short (a process killed while creating it leaves a folder with no version to
        open) is dropped, so the next write creates it again from the stored communities."""
        if TABLE not in self.db.list_tables().tables:
            return None
        try:
            return self.db.open_table(TABLE)
        except ValueError as exc:
            logger.warning(
                "community index: %s (a write was cut short); dropped, rebuilt on the next write",
                exc,
            )
            self.db.drop_table(TABLE)
            return None

    def exists(self) -> bool:
        """Is there an index table to change (see :meth:`_table`)?"""
        return self._table() is not None

    @staticmethod
    def text_of(community: Community) -> str:
        """The text embedded for ``community``: its title and the opening of its summary."""
        return f"{community.title}. {community.summary}"[:_EMBED_CHARS]

    def replace(
        self, communities: Sequence[Community], reuse: dict[str, list[float]] | None = None
    ) -> int:
        """Store ``communities``; vectors in ``reuse`` (by id) are kept, others embedded.

        Returns the number of summaries embedded.
        """
        reuse = reuse or {}
        todo = [c for c in communities if c.community_id not in reuse]
        vectors = dict(reuse)
        if todo:
            # Title and the summary's opening are what a query matches; the cap keeps a build
            # with thousands of communities from spending minutes embedding long summaries.
            texts = [self.text_of(c) for c in todo]
            for c, v in zip(todo, self.embedder.embed_documents(texts), strict=True):
                vectors[c.community_id] = v
        self._cache = None
        if not communities:
            if self._table() is not None:
                self.db.drop_table(TABLE)
            return len(todo)
        dim = len(next(iter(vectors.values())))
        rows = [
            {
                "community_id": c.community_id,
                "level": c.level,
                "payload": c.model_copy(update={"vector": None}).model_dump_json(),
                "vector": [float(x) for x in vectors[c.community_id]],
            }
            for c in communities
        ]
        # One overwrite commit: a process killed here leaves the old index or the new one.
        self.db.create_table(TABLE, data=rows, schema=self._schema(dim), mode="overwrite")
        return len(todo)

    def apply(self, communities: Sequence[Community], removed: Sequence[str] = ()) -> int:
        """Change part of the index: drop ``removed``, insert or replace ``communities`` (a
        stored vector is kept when the community's embedded text is unchanged).

        Costs what changes, not what is stored; without an index yet, this is
        :meth:`replace`. Returns the number of summaries embedded.
        """
        table = self._table()
        if table is None:
            return self.replace(communities)
        ids = sorted({c.community_id for c in communities})
        old: dict[str, tuple[str, list[float]]] = {}
        for start in range(0, len(ids), 500):
            rows = (
                table.search()
                .where(_sql_in(ids[start : start + 500]))
                .select(["community_id", "payload", "vector"])
                .limit(None)
                .to_arrow()
                .to_pylist()
            )
            for row in rows:
                payload = Community.model_validate(json.loads(row["payload"]))
                old[row["community_id"]] = (self.text_of(payload), row["vector"])
        todo = [
            c
            for c in communities
            if c.community_id not in old or old[c.community_id][0] != self.text_of(c)
        ]
        vectors = {cid: vec for cid, (_, vec) in old.items()}
        if todo:
            texts = [self.text_of(c) for c in todo]
            for c, v in zip(todo, self.embedder.embed_documents(texts), strict=True):
                vectors[c.community_id] = v
        self._cache = None
        gone = sorted(set(removed) | set(ids))
        for start in range(0, len(gone), 500):
            table.delete(_sql_in(gone[start : start + 500]))
        if communities:
            dim = len(next(iter(vectors.values())))
            rows = [
                {
                    "community_id": c.community_id,
                    "level": c.level,
                    "payload": c.model_copy(update={"vector": None}).model_dump_json(),
                    "vector": [float(x) for x in vectors[c.community_id]],
                }
                for c in {c.community_id: c for c in communities}.values()
            ]
            table.add(pa.Table.from_pylist(rows, schema=self._schema(dim)))
        return len(todo)

    def vectors(self) -> dict[str, list[float]]:
        """community id → stored vector."""
        opened = self._table()
        if opened is None:
            return {}
        table = opened.to_arrow()
        ids = table.column("community_id").to_pylist()
        vecs = table.column("vector").to_pylist()
        return dict(zip(ids, vecs, strict=True))

    def all(self) -> list[Community]:
        """Every stored community, sorted by (level, id)."""
        if self._cache is None:
            opened = self._table()
            if opened is None:
                return []
            table = opened.to_arrow()
            comms = [
                Community.model_validate(json.loads(p)) for p in table.column("payload").to_pylist()
            ]
            vecs = table.column("vector").to_pylist()
            order = sorted(range(len(comms)), key=lambda i: (comms[i].level, comms[i].community_id))
            self._cache = [comms[i] for i in order]
            self._matrix = np.asarray([vecs[i] for i in order], dtype=np.float32)
        return list(self._cache)

    def search(
        self, query: str, level: int | None = None, top_k: int = 5
    ) -> list[tuple[Community, float]]:
        """Communities (optionally of one level) by cosine similarity to ``query``."""
        comms = self.all()
        if not comms or self._matrix is None:
            return []
        q = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        norms = np.linalg.norm(self._matrix, axis=1) * (np.linalg.norm(q) or 1.0)
        with single_blas_thread():
            sims = (self._matrix @ q) / np.where(norms == 0, 1.0, norms)
        order = sorted(
            (i for i in range(len(comms)) if level is None or comms[i].level == level),
            key=lambda i: (-float(sims[i]), comms[i].community_id),
        )
        return [(comms[i], round(float(sims[i]), 6)) for i in order[:top_k]]


def _sql_in(ids: Sequence[str]) -> str:
    quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
    return f"community_id IN ({quoted})"
