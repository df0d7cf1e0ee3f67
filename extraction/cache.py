"""A response cache for validated LLM answers, keyed by prompt version, model and input.

One SQLite file can serve many knowledge bases (entries carry the model and prompt version
in their key), so the same files ingested into a second knowledge base cost no calls.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ResponseCache"]


class ResponseCache:
    """Validated LLM answers keyed by (prompt version, model, input hash).

    Backed by a SQLite file (safe for threads; other processes may share it) or, with no
    path, by a dict in memory. Nothing is opened until the first ``get``/``put``.

    Args:
        path: SQLite file to use (created with its folder on first use), or ``None``.

    Example:
        >>> cache = ResponseCache()
        >>> key = ResponseCache.make_key("extract-v1", "openai:gpt-4o-mini", "abc")
        >>> cache.put(key, {"entities": []})
        >>> cache.get(key)
        {'entities': []}
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._memory: dict[str, str] = {}
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @staticmethod
    def make_key(prompt_version: str, model_id: str, input_hash: str) -> str:
        """The cache key: sha256 of the three parts."""
        raw = "\x1f".join((prompt_version, model_id, input_hash))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            assert self.path is not None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)"
            )
            self._conn = conn
        return self._conn

    def get(self, key: str) -> Any | None:
        """The stored JSON value for ``key``, or ``None``."""
        with self._lock:
            if self.path is None:
                text = self._memory.get(key)
            else:
                row = (
                    self._connection()
                    .execute("SELECT value FROM responses WHERE key = ?", (key,))
                    .fetchone()
                )
                text = row[0] if row else None
        return json.loads(text) if text is not None else None

    def put(self, key: str, value: Mapping[str, Any] | Sequence[Any]) -> None:
        """Store a JSON-serializable value under ``key`` (replacing any older one)."""
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        with self._lock:
            if self.path is None:
                self._memory[key] = text
            else:
                self._connection().execute(
                    "INSERT OR REPLACE INTO responses (key, value, created) VALUES (?, ?, ?)",
                    (key, text, time.time()),
                )

    def __len__(self) -> int:
        with self._lock:
            if self.path is None:
                return len(self._memory)
            row = self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()
            return int(row[0])

    def close(self) -> None:
        """Close the SQLite connection, if one was opened."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
