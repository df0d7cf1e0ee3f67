"""A local Neo4j 5 Community server managed by kg-rag (``kg-rag neo4j start|stop|status``).

Neo4j comes from Maven Central, not from a download page or Docker: the first :func:`start`
runs Maven once to copy the jars of ``org.neo4j:neo4j`` (the Community DBMS and its server),
``org.neo4j.client:neo4j-browser`` and APOC core (``org.neo4j.procedure:apoc-core``/``-common``,
which langchain-neo4j needs to read the schema) into ``settings.cache_dir``, and compiles a launcher
(``kg_rag/java/KgRagNeo4j.java``) next to them; a stamp file marks both done, so later starts
download and compile nothing. Java 17+ and Maven are needed (Maven only for that first time).

The launcher runs the real server class (``CommunityBootstrapper``, what ``neo4j console``
runs) with Bolt and HTTP on 127.0.0.1, auth enabled and data under ``settings.home``, which
survives restarts. The ``neo4j`` user's password is handed over in an environment variable,
never on a command line, and is applied only to a fresh data folder: an existing folder keeps
the password it was created with. Neo4j Browser is served at ``http://127.0.0.1:<http_port>/browser/``.

The server is hardened for LLM-written Cypher (:data:`HARDENING`, see ``docs/security.md``): only
the APOC procedures schema reading needs are loaded, transactions have memory limits and a
timeout, ``LOAD CSV`` may not read file URLs, and the JVM does not exit on an
``OutOfMemoryError``. ``kg-rag neo4j check`` reports these for any server.

The JVM runs detached (its own session); its console log (``neo4j-console.log``) and pid file
(``neo4j.pid``) lie in ``settings.home``, Neo4j's own logs under ``settings.home/logs``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Final

from pydantic import BaseModel

from kg_rag._process import alive, file_lock, terminate
from kg_rag.config import Neo4jSettings
from kg_rag.errors import ConfigError, ServerError

__all__ = ["HARDENING", "SCHEMA_PROCEDURES", "Neo4jServerInfo", "start", "status", "stop"]

_JAVA_DIR = Path(__file__).resolve().parent / "java"
_LAUNCHER = "KgRagNeo4j"
_PASSWORD_ENV = "KG_RAG_NEO4J__PASSWORD"
_READY = "KG_RAG_NEO4J_READY"
_FAILED = "KG_RAG_NEO4J_FAILED"
_HOST = "127.0.0.1"
# Sized for a small machine (2 cores, ~24 GiB shared with LanceDB, the LLM server and tests).
_HEAP = "1g"
_PAGE_CACHE = "512m"
_JVM_FLAGS = (
    f"-Xms{_HEAP}",
    f"-Xmx{_HEAP}",
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    # No -XX:+ExitOnOutOfMemoryError: a query whose values outgrow the heap (Cypher does not
    # count expression values against the transaction memory limits) then fails alone with
    # Neo.TransientError.General.OutOfMemoryError instead of taking the server down.
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    # The same opens Neo4j's own start script passes on Java 17+.
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
)
# Defence in depth for LLM-written Cypher (the guard in kg_rag.stores.cypher_safety comes first):
# what any one query may reach and spend on this server. ``kg-rag neo4j check`` reports them.
SCHEMA_PROCEDURES: Final = (
    # What langchain-neo4j's refresh_schema calls; no other APOC procedure or function is loaded
    # (no apoc.cypher.*, apoc.periodic.*, apoc.load.*, ...). Built-in db.*/dbms.* stay.
    "apoc.meta.data",
    "apoc.meta.graph",
    "apoc.schema.nodes",
    "apoc.any.property",
)
HARDENING: Final[dict[str, str]] = {
    "dbms.security.procedures.allowlist": ",".join(SCHEMA_PROCEDURES),
    # apoc.meta.* reads kernel internals and refuses to run restricted.
    "dbms.security.procedures.unrestricted": ",".join(SCHEMA_PROCEDURES),
    # LOAD CSV FROM 'file:///...' is refused; the import folder stays set (to an empty folder):
    # unset, it would open the whole file system to file URLs.
    "dbms.security.allow_csv_import_from_file_urls": "false",
    # No transaction may take more than this of the 1 GiB heap, all of them together not more
    # than the global pool: a query that would exhaust the heap fails alone.
    "db.memory.transaction.max": "256m",
    "dbms.memory.transaction.total.max": "512m",
    # A bound for every transaction without its own timeout (Browser, scripts); LLM Cypher runs
    # with neo4j.query_timeout_s.
    "db.transaction.timeout": "300s",
    # Timeouts are enforced by a monitor thread: check often so they fire close to the limit.
    "db.transaction.monitor.check.interval": "200ms",
}
_MIN_JAVA = 17
_STOP_TIMEOUT_S = 120.0  # a clean shutdown checkpoints the stores: give it time
_MAVEN_TIMEOUT_S = 1800.0
_PORT_IN_USE = re.compile(r"Address (?:[\w.:\[\]-]*?):(\d+) is already in use")


class Neo4jServerInfo(BaseModel):
    """Where the managed Neo4j server is and whether it answers."""

    pid: int | None
    bolt_uri: str
    http_url: str
    version: str
    home: Path
    running: bool


def start(settings: Neo4jSettings, *, log: Callable[[str], None] = print) -> Neo4jServerInfo:
    """Start the server unless it already runs; return once Bolt accepts the password.

    Safe to call again, and from several processes at once (a lock file serializes starts).
    The first call downloads Neo4j with Maven and compiles the launcher; later calls do not.

    Raises:
        ConfigError: ``settings.password`` is not set.
        ServerError: Java or Maven is missing, a port is taken, the password differs from the
            one the data folder was created with, or the JVM died or did not answer in time.
            A server this call launched is stopped again before the error is raised.
    """
    password = _password(settings)
    home = _home(settings)
    with _lock(home / ".start.lock"):
        pid = _read_pid(home)
        if pid is not None:
            version = _wait_for_bolt(settings, password, pid, None, home, 0, time.monotonic())
            log(f"Neo4j {version} already running: {_bolt_uri(settings)} (pid {pid})")
            return _info(settings, pid, version, running=True)
        _check_port_free(settings, settings.bolt_port, "bolt", "KG_RAG_NEO4J__BOLT_PORT")
        _check_port_free(settings, settings.http_port, "http", "KG_RAG_NEO4J__HTTP_PORT")
        java = _java()
        dist = _ensure_installed(settings, log)
        started = time.monotonic()
        process, log_offset = _launch(settings, java, dist, password, home)
        log(f"Starting Neo4j {settings.version} (home {home}, log {_log_path(home)})")
        try:
            version = _wait_for_bolt(
                settings, password, process.pid, process, home, log_offset, started
            )
        except BaseException:
            # A start that reports failure (wrong password for the data folder, Ctrl-C, ...)
            # leaves no server behind.
            _abandon(process, home)
            raise
        log(
            f"Neo4j {version} running in {time.monotonic() - started:.0f} s: "
            f"{_bolt_uri(settings)}, Browser {_http_url(settings)}/browser/ (pid {process.pid})"
        )
        return _info(settings, process.pid, version, running=True)


def stop(settings: Neo4jSettings, *, log: Callable[[str], None] = print) -> bool:
    """Stop the server started by :func:`start` (clean shutdown: SIGTERM, then wait).

    Returns:
        True if a server was stopped, False if none of ours was running.

    Raises:
        ServerError: The process would not stop even after SIGKILL.
    """
    home = _home(settings)
    with _lock(home / ".start.lock"):
        pid = _read_pid(home)
        if pid is None:
            _pid_path(home).unlink(missing_ok=True)
            if _discover(settings) is not None:
                log(
                    f"A Neo4j server answers at {_http_url(settings)} but was not started from "
                    f"{home} (no live pid in {_pid_path(home)}): not stopping it"
                )
            else:
                log("Neo4j is not running")
            return False
        started = time.monotonic()
        _terminate(pid)
        _pid_path(home).unlink(missing_ok=True)
        log(f"Neo4j stopped (pid {pid}) in {time.monotonic() - started:.0f} s")
        return True


def status(settings: Neo4jSettings) -> Neo4jServerInfo:
    """Report the server without changing anything (needs no password).

    ``running`` means the HTTP endpoint answers as Neo4j; ``pid`` is None when no server
    started from ``settings.home`` is alive (one answering then was started elsewhere).
    """
    home = _home(settings, create=False)
    discovery = _discover(settings)
    version = str(discovery.get("neo4j_version", "")) if discovery is not None else ""
    return _info(settings, _read_pid(home), version, running=discovery is not None)


# --- install: jars from Maven Central, the launcher compiled once ------------------------------


def _ensure_installed(settings: Neo4jSettings, log: Callable[[str], None]) -> Path:
    """Make sure the jars and the compiled launcher are cached; return their folder.

    Layout: ``lib/*.jar`` (the classpath), ``lib/plugins/`` (APOC), ``classes/`` (launcher).
    """
    dist = settings.cache_dir.expanduser().resolve() / (
        f"{settings.version}-browser-{settings.browser_version}"
    )
    dist.mkdir(parents=True, exist_ok=True)
    lib, classes = dist / "lib", dist / "classes"
    pom_text = (_JAVA_DIR / "pom.xml").read_text()
    source_text = (_JAVA_DIR / f"{_LAUNCHER}.java").read_text()
    lib_key = _digest(pom_text, settings.version, settings.browser_version)
    classes_key = _digest(source_text, lib_key)
    with _lock(dist / ".install.lock"):
        if _stamp(lib) != lib_key:
            mvn = _tool(
                "mvn",
                "Maven is needed once to download Neo4j from Maven Central: "
                "install it (e.g. apt-get install maven) and run again",
            )
            log(
                f"Downloading Neo4j {settings.version} and Neo4j Browser "
                f"{settings.browser_version} with Maven into {lib} (only this once)"
            )
            (dist / "pom.xml").write_text(pom_text)
            partial = dist / "lib.partial"
            shutil.rmtree(partial, ignore_errors=True)
            _run(
                [
                    mvn,
                    "-B",
                    "-q",
                    "-f",
                    str(dist / "pom.xml"),
                    "dependency:copy-dependencies",
                    f"-DoutputDirectory={partial}",
                    "-DincludeScope=runtime",
                    f"-Dneo4j.version={settings.version}",
                    f"-Dbrowser.version={settings.browser_version}",
                ],
                cwd=dist,
                what=f"Maven could not download Neo4j {settings.version}",
                hint="check access to Maven Central (or the mirror in ~/.m2/settings.xml) "
                "and that the versions exist",
            )
            # Procedures load from the plugins folder; APOC's kernel extension (ApocConfig) only
            # from the classpath. Parent-first class loading makes both one set of classes.
            (partial / "plugins").mkdir()
            for jar in partial.glob("apoc-*.jar"):
                shutil.copy2(jar, partial / "plugins" / jar.name)
            shutil.rmtree(lib, ignore_errors=True)
            partial.replace(lib)
            (lib / ".complete").write_text(lib_key)
        if _stamp(classes) != classes_key:
            javac = _tool(
                "javac",
                "javac (a JDK, not just a JRE) is needed to compile the "
                "Neo4j launcher: install e.g. openjdk-17-jdk-headless or set JAVA_HOME",
            )
            log(f"Compiling the Neo4j launcher into {classes}")
            partial = dist / "classes.partial"
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            source = partial / f"{_LAUNCHER}.java"
            source.write_text(source_text)
            _run(
                [
                    javac,
                    "-nowarn",
                    "-encoding",
                    "UTF-8",
                    "-cp",
                    f"{lib}/*",
                    "-d",
                    str(partial),
                    str(source),
                ],
                cwd=dist,
                what="javac could not compile the Neo4j launcher",
                hint=f"is {settings.version} a Neo4j 5 version?",
            )
            shutil.rmtree(classes, ignore_errors=True)
            partial.replace(classes)
            (classes / ".complete").write_text(classes_key)
    return dist


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _stamp(folder: Path) -> str | None:
    try:
        return (folder / ".complete").read_text().strip()
    except OSError:
        return None


def _run(command: list[str], *, cwd: Path, what: str, hint: str) -> None:
    try:
        result = subprocess.run(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_MAVEN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        raise ServerError(f"{what}: no result after {_MAVEN_TIMEOUT_S:.0f} s; {hint}") from e
    if result.returncode != 0:
        raise ServerError(f"{what}: {_first_error(result.stdout + result.stderr)}; {hint}")


def _first_error(output: str) -> str:
    lines = [_plain(line) for line in output.splitlines() if line.strip()]
    for line in lines:
        if "ERROR" in line or "error:" in line:
            return line.replace("[ERROR] ", "")[:300]
    return lines[-1][:300] if lines else "no output"


def _plain(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line).strip()


def _tool(name: str, missing: str) -> str:
    """Find a JDK tool: ``$JAVA_HOME/bin`` first (not for mvn), then ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if name != "mvn" and java_home:
        candidate = Path(java_home) / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise ServerError(f"`{name}` was not found: {missing}")
    return found


def _java() -> str:
    java = _tool(
        "java",
        f"Neo4j 5 needs Java {_MIN_JAVA} or 21: install e.g. "
        "openjdk-17-jdk-headless, or set JAVA_HOME",
    )
    try:
        result = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ServerError(f"`{java} -version` failed ({e}): check the Java installation") from e
    match = re.search(r'version "(\d+)(?:\.(\d+))?', result.stderr + result.stdout)
    if match is None:
        return java  # an unusual build: let the JVM speak for itself if it cannot run Neo4j
    major = int(match.group(1))
    if major == 1 and match.group(2):
        major = int(match.group(2))
    if major < _MIN_JAVA:
        raise ServerError(
            f"Neo4j 5 needs Java {_MIN_JAVA} or 21 but {java} is Java {major}: install "
            "openjdk-17-jdk-headless (or newer) or point JAVA_HOME at one"
        )
    return java


# --- run and watch ------------------------------------------------------------------------------


def _launch(
    settings: Neo4jSettings, java: str, dist: Path, password: str, home: Path
) -> tuple[subprocess.Popen[bytes], int]:
    """Start the JVM detached; return it and the log offset where its output begins."""
    command = [
        java,
        *_JVM_FLAGS,
        "-cp",
        f"{dist / 'classes'}{os.pathsep}{dist / 'lib'}/*",
        _LAUNCHER,
        str(home),
        str(settings.bolt_port),
        str(settings.http_port),
        _PAGE_CACHE,
        str(dist / "lib" / "plugins"),
        *(f"{key}={value}" for key, value in HARDENING.items()),
    ]
    # The child gets the password and nothing else of ours that may be secret.
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_RAG_")}
    env[_PASSWORD_ENV] = password
    log_path = _log_path(home)
    with log_path.open("ab") as log_file:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log_file.write(f"\n--- {stamp} kg-rag: {' '.join(command)}\n".encode())
        log_file.flush()
        offset = log_file.tell()
        process = subprocess.Popen(
            command,
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    _pid_path(home).write_text(f"{process.pid}\n")
    return process, offset


def _wait_for_bolt(
    settings: Neo4jSettings,
    password: str,
    pid: int,
    process: subprocess.Popen[bytes] | None,
    home: Path,
    log_offset: int,
    started: float,
) -> str:
    """Wait until Bolt accepts the password; return the server version.

    For a server just launched (``process`` given) Bolt is tried only after the launcher
    printed its ready line, i.e. after it set the password of a fresh data folder.
    """
    from neo4j.exceptions import AuthError, ClientError, DriverError, Neo4jError

    log_path = _log_path(home)
    deadline = started + settings.start_timeout_s
    while True:
        output = _read_from(log_path, log_offset) if process is not None else ""
        exited = process.poll() is not None if process is not None else not _alive(pid)
        if exited or _FAILED in output:
            if process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=30)  # it is shutting down after a failure
            _pid_path(home).unlink(missing_ok=True)
            raise _startup_error(settings, output, log_path)
        if process is None or _READY in output:
            try:
                return _bolt_version(settings, password)
            except ClientError as e:
                if isinstance(e, AuthError) or ".Security." in (e.code or ""):
                    raise ServerError(
                        f"Neo4j at {_bolt_uri(settings)} rejects the password in "
                        f"{_PASSWORD_ENV}: the data folder {home} was created with another "
                        "password. Use that one, or run `kg-rag neo4j stop` and delete "
                        f"{home} to start afresh with this password (this deletes the graph)"
                    ) from e
            except (DriverError, Neo4jError, OSError):
                pass  # not serving yet
        if time.monotonic() > deadline:
            if process is not None:
                _terminate(pid)
                _pid_path(home).unlink(missing_ok=True)
            raise ServerError(
                f"Neo4j did not answer on {_bolt_uri(settings)} within "
                f"{settings.start_timeout_s:.0f} s: see {log_path}, or raise "
                "KG_RAG_NEO4J__START_TIMEOUT_S"
            )
        time.sleep(0.5)


def _bolt_version(settings: Neo4jSettings, password: str) -> str:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(
        _bolt_uri(settings),
        auth=(settings.user, password),
        connection_timeout=5.0,
        connection_acquisition_timeout=10.0,
    ) as driver:
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD versions RETURN versions[0] AS version",
            database_="system",
        )
    return str(records[0]["version"])


def _startup_error(settings: Neo4jSettings, output: str, log_path: Path) -> ServerError:
    """One actionable line about why the JVM died while starting."""
    match = _PORT_IN_USE.search(output)
    if match is not None:
        port = int(match.group(1))
        kind, env_name = (
            ("bolt", "KG_RAG_NEO4J__BOLT_PORT")
            if port == settings.bolt_port
            else ("http", "KG_RAG_NEO4J__HTTP_PORT")
        )
        return ServerError(_port_message(settings, port, kind, env_name))
    return ServerError(f"Neo4j exited while starting: {_last_error(output)} (see {log_path})")


def _last_error(output: str) -> str:
    """The most telling line of a failed start: Neo4j's first ERROR, else the launcher's reason."""
    lines = [_plain(line) for line in output.splitlines() if line.strip()]
    for line in lines:
        if " ERROR " in f" {line} ":
            return line[:300]
    for line in lines:
        if line.startswith(_FAILED) and "see the lines above" not in line:
            return line.removeprefix(_FAILED).strip()[:300]
    for line in lines:
        if re.search(r"Exception|Error:", line) and not line.startswith("at "):
            return line[:300]
    return lines[-1][:300] if lines else "no output"


def _read_from(path: Path, offset: int) -> str:
    try:
        with path.open("rb") as file:
            file.seek(offset)
            return file.read().decode(errors="replace")
    except OSError:
        return ""


def _abandon(process: subprocess.Popen[bytes], home: Path) -> None:
    """Stop a server this call launched and forget its pid file."""
    if process.poll() is None:
        _terminate(process.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=15)
    _pid_path(home).unlink(missing_ok=True)


def _terminate(pid: int) -> None:
    """SIGTERM (Neo4j shuts down cleanly), then SIGKILL if it lingers."""
    terminate(pid, "Neo4j", term_wait_s=_STOP_TIMEOUT_S, kill_wait_s=15.0)


# --- small helpers ----------------------------------------------------------------------------


def _password(settings: Neo4jSettings) -> str:
    if settings.password is None or not settings.password.get_secret_value():
        raise ConfigError(
            "No Neo4j password: set KG_RAG_NEO4J__PASSWORD (e.g. export "
            "KG_RAG_NEO4J__PASSWORD=choose-one) before starting the server"
        )
    return settings.password.get_secret_value()


def _home(settings: Neo4jSettings, *, create: bool = True) -> Path:
    home = settings.home.expanduser().resolve()
    if create:
        home.mkdir(parents=True, exist_ok=True)
    return home


def _pid_path(home: Path) -> Path:
    return home / "neo4j.pid"


def _log_path(home: Path) -> Path:
    return home / "neo4j-console.log"


def _bolt_uri(settings: Neo4jSettings) -> str:
    return f"bolt://{_HOST}:{settings.bolt_port}"


def _http_url(settings: Neo4jSettings) -> str:
    return f"http://{_HOST}:{settings.http_port}"


def _info(
    settings: Neo4jSettings, pid: int | None, version: str, *, running: bool
) -> Neo4jServerInfo:
    return Neo4jServerInfo(
        pid=pid,
        bolt_uri=_bolt_uri(settings),
        http_url=_http_url(settings),
        version=version,
        home=_home(settings, create=False),
        running=running,
    )


def _lock(path: Path) -> contextlib.AbstractContextManager[None]:
    return file_lock(path)


def _discover(settings: Neo4jSettings) -> dict[str, object] | None:
    """Neo4j's HTTP discovery document (no auth needed), or None if nothing like it answers."""
    try:
        with urllib.request.urlopen(f"{_http_url(settings)}/", timeout=2.0) as response:
            body = json.loads(response.read())
    except (OSError, ValueError):
        return None
    if isinstance(body, dict) and "neo4j_version" in body:
        return body
    return None


def _check_port_free(settings: Neo4jSettings, port: int, kind: str, env_name: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR: a port left in TIME_WAIT by our last stop is free; a listener is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((_HOST, port))
        except OSError as e:
            raise ServerError(_port_message(settings, port, kind, env_name)) from e


def _port_message(settings: Neo4jSettings, port: int, kind: str, env_name: str) -> str:
    other = _discover(settings)
    who = (
        f"a Neo4j {other.get('neo4j_version')} not started from {_home(settings, create=False)}"
        if other is not None
        else "another program"
    )
    return (
        f"Neo4j cannot start: {kind} port {port} on {_HOST} is already in use by {who}; "
        f"stop it or choose another port with {env_name}"
    )


def _read_pid(home: Path) -> int | None:
    """The pid in the pid file if that process is alive and is our launcher."""
    try:
        pid = int(_pid_path(home).read_text().strip())
    except (OSError, ValueError):
        return None
    if not _alive(pid):
        return None
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        # Guard against a recycled pid where /proc exists (Linux); elsewhere trust the file.
        if cmdline.exists() and _LAUNCHER.encode() not in cmdline.read_bytes():
            return None
    except OSError:
        return None
    return pid


def _alive(pid: int) -> bool:
    return alive(pid)
