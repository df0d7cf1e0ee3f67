"""Process plumbing shared by the managed local servers (Neo4j, the LLM test server)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from kg_rag.errors import ServerError

__all__ = ["alive", "file_lock", "terminate"]


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, or our exited child, counts as dead)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our child (start and stop in one process)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # An orphan that init has not reaped yet is dead too.
    with contextlib.suppress(OSError, IndexError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    return True


def terminate(
    pid: int, what: str, *, term_wait_s: float, kill_wait_s: float, group: bool = False
) -> None:
    """SIGTERM ``pid`` (or its process group), wait, then SIGKILL if it lingers.

    Raises:
        ServerError: it survived both signals.
    """
    for sig, wait_s in ((signal.SIGTERM, term_wait_s), (signal.SIGKILL, kill_wait_s)):
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not alive(pid):
                return
            time.sleep(0.1)
    raise ServerError(f"{what} (pid {pid}) did not stop: kill it by hand (kill -9 {pid})")


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (created if missing) for the block."""
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
