"""Has anyone committed to this knowledge base since I last looked? (cheap, per question)

LanceDB table handles are pinned to the version they were opened at (the connection's
``read_consistency_interval`` is ``None``, LanceDB's fast default), and the embedded graph,
the entity linker and the community index keep in-memory copies. An engine opened before
another engine, thread or process ingests would answer from that old snapshot for good.

:class:`TableWatcher` answers the question in microseconds for a local folder: every commit
to a Lance table adds a manifest to its ``_versions`` folder (part of the Lance table format),
so the folder's inode and modification time change; a dropped and recreated table gets a new
folder. For a remote database (a URI) it asks LanceDB instead: ``checkout_latest()`` and
``version`` per table (about a millisecond each). Only when the answer is yes do the stores
move their handles to the latest version (``checkout_latest``) and reload what they cache.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["TableWatcher"]

Signature = tuple[tuple[str, int, int], ...]


class TableWatcher:
    """Watches every table of one LanceDB folder and says when any of them changed.

    Args:
        path: The knowledge-base folder (or a LanceDB URI).
        db: The open connection, used for remote URIs (a local folder is read directly).
    """

    def __init__(self, path: Path | str, db: Any = None) -> None:
        self.path = str(path)
        self.db = db
        self._remote = "://" in self.path
        self._handles: dict[str, Any] = {}
        self._seen: Signature | None = None
        self._lock = threading.Lock()

    def signature(self) -> Signature:
        """``(table, identity, version stamp)`` for every table, sorted."""
        return self._remote_signature() if self._remote else self._local_signature()

    def _local_signature(self) -> Signature:
        out = []
        try:
            entries = list(os.scandir(self.path))
        except OSError:
            return ()
        for entry in entries:
            if not entry.name.endswith(".lance"):
                continue
            try:
                st = os.stat(os.path.join(entry.path, "_versions"))
            except OSError:
                continue  # being created or dropped right now: the next look sees it
            out.append((entry.name, st.st_ino, st.st_mtime_ns))
        return tuple(sorted(out))

    def _remote_signature(self) -> Signature:
        if self.db is None:
            return ()
        out = []
        for name in self.db.list_tables().tables:
            handle = self._handles.get(name)
            if handle is None:
                handle = self._handles[name] = self.db.open_table(name)
            handle.checkout_latest()
            out.append((name, 0, int(handle.version)))
        return tuple(sorted(out))

    def changed(self) -> bool:
        """True when a table was committed to, created or dropped since the last call (the
        first call only takes the baseline and says False)."""
        with self._lock:
            now = self.signature()
            changed = self._seen is not None and now != self._seen
            self._seen = now
            return changed

    def reset(self) -> None:
        """Forget the baseline: the next :meth:`changed` takes a new one."""
        with self._lock:
            self._seen = None
