"""Which embedder a knowledge base uses: the ``kb_meta`` record, and ``model="auto"``.

A knowledge base records the embedding model it was built with (``kb_meta`` in its LanceDB
folder, written by :class:`~kg_rag.stores.chunks.LanceChunkStore` on first open). With
``KG_RAG_EMBEDDING__MODEL=auto`` the model is chosen per knowledge base:

* an existing knowledge base is opened with the model it records, so queries embed with the
  model its vectors came from;
* a new (empty) one starts with ``english_model``; its first ingest samples the documents,
  and when some are mostly CJK text (:func:`detect_languages`) the engine switches to
  ``multilingual_model`` before anything is embedded, and records the languages it saw.

Any other model name forces that model: opening a knowledge base built with another one
raises :class:`~kg_rag.errors.SchemaMismatch`, and :func:`kg_rag.reembed.reembed` migrates it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from kg_rag.config import EmbeddingSettings
from kg_rag.ingest.loaders import SourceDocument, discover_files, load_file
from kg_rag.text import cjk_ratio

__all__ = [
    "CJK_DOC_RATIO",
    "KB_META",
    "choose_model",
    "detect_languages",
    "is_auto",
    "read_kb_meta",
    "recorded_model",
    "sample_texts",
    "write_kb_meta",
]

KB_META = "kb_meta"

CJK_DOC_RATIO = 0.2
"""A document counts as CJK when at least this share of its non-space characters are CJK.
A Chinese text that cites English names stays far above it (names are a few characters of a
sentence); an English text quoting one Chinese name stays far below."""

_SAMPLE_DOCS = 64
_SAMPLE_CHARS = 4000


def is_auto(settings: EmbeddingSettings) -> bool:
    """True when the embedder is chosen per knowledge base (local provider, model "auto")."""
    return settings.provider == "local" and settings.model.lower() == "auto"


def read_kb_meta(db_or_dir: Any) -> dict[str, str]:
    """The ``kb_meta`` key/values of a knowledge base (empty when there is none yet).

    Args:
        db_or_dir: An open ``lancedb`` connection or the knowledge base folder (not created
            when missing).
    """
    if isinstance(db_or_dir, str | Path):
        path = Path(db_or_dir)
        if not path.is_dir():
            return {}
        import lancedb

        db = lancedb.connect(str(path))
    else:
        db = db_or_dir
    if KB_META not in db.list_tables().tables:
        return {}
    rows = db.open_table(KB_META).to_arrow().to_pylist()
    return {str(r["key"]): str(r["value"]) for r in rows}


def write_kb_meta(db: Any, updates: Mapping[str, str | None]) -> dict[str, str]:
    """Set (or, for ``None``, remove) ``kb_meta`` keys; returns the new key/values."""
    values = read_kb_meta(db)
    for key, value in updates.items():
        if value is None:
            values.pop(key, None)
        else:
            values[key] = value
    table = pa.table({"key": list(values), "value": list(values.values())})
    if KB_META in db.list_tables().tables:
        db.open_table(KB_META).add(table, mode="overwrite")
    else:
        db.create_table(KB_META, table)
    return values


def recorded_model(kb_dir: Path | str) -> str | None:
    """The embedding model a knowledge base records, or ``None`` for a new one."""
    return read_kb_meta(kb_dir).get("embedding_model")


def detect_languages(texts: Iterable[str]) -> list[str]:
    """The scripts of a corpus: ``"cjk"`` when some text is mostly CJK, ``"latin"`` when some
    text is mostly not; sorted (``[]`` for no text)."""
    found: set[str] = set()
    for text in texts:
        if not text.strip():
            continue
        found.add("cjk" if cjk_ratio(text) >= CJK_DOC_RATIO else "latin")
        if len(found) == 2:
            break
    return sorted(found)


def choose_model(languages: Sequence[str], settings: EmbeddingSettings) -> str:
    """The model ``auto`` picks for a corpus of these scripts."""
    return settings.multilingual_model if "cjk" in languages else settings.english_model


def sample_texts(
    sources: Sequence[Path | str] | Sequence[SourceDocument],
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    limit: int = _SAMPLE_DOCS,
) -> list[str]:
    """Up to ``limit`` document texts spread over the sources (each cut to a few thousand
    characters), for :func:`detect_languages`. Unreadable files are left out (the ingest
    reports them)."""
    if all(isinstance(s, SourceDocument) for s in sources):
        docs = list(sources)
        step = max(1, len(docs) // limit)
        return [d.text[:_SAMPLE_CHARS] for d in docs[::step][:limit]]  # type: ignore[union-attr]
    paths = [Path(str(s)) for s in sources]
    try:
        files = list(
            discover_files([p for p in paths if p.exists()], include=include, exclude=exclude)
        )
    except Exception:  # the ingest itself reports bad paths
        return []
    step = max(1, len(files) // limit)
    texts = []
    for f in files[::step][:limit]:
        try:
            texts.append(load_file(f.path, doc_id=f.relative).text[:_SAMPLE_CHARS])
        except Exception:  # a file the ingest will skip and report
            continue
    return texts
