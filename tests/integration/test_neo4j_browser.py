"""Neo4j Browser, served by the managed server, renders in headless Chromium.

Needs the running server (``kg-rag neo4j start``) and Debian's ``chromium``
(``apt-get install -y chromium``). Leaves test-artifacts/neo4j-browser.png behind.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest

from kg_rag.config import Neo4jSettings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found is not None:
            return found
    pytest.fail("Chromium is not installed: run `apt-get install -y chromium` (Debian/Ubuntu)")


def _browser_url(settings: Neo4jSettings) -> str:
    return f"http://127.0.0.1:{settings.http_port}/browser/"


def _run_chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """One headless Chromium run in a fresh profile; a run that exits nonzero (headless
    Chromium on a loaded CI machine now and then dies before it prints anything) is tried once
    more, and the result says how both ended."""
    runs: list[subprocess.CompletedProcess[str]] = []
    for _ in range(2):
        with tempfile.TemporaryDirectory(prefix="kg-rag-chromium-") as profile:
            run = subprocess.run(
                [_chromium(), *_FLAGS, f"--user-data-dir={profile}", *args],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        runs.append(run)
        if run.returncode == 0:
            break
    if len(runs) > 1:
        ends = "; ".join(_exit(r.returncode) for r in runs)
        print(f"chromium {args[0]}: {ends}")
        run.stderr = f"[runs: {ends}]\n{run.stderr}"
    return run


def _exit(code: int) -> str:
    """``code`` in words: a negative return code is the signal that ended the process."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def test_browser_page_is_served(neo4j_settings: Neo4jSettings) -> None:
    with urllib.request.urlopen(_browser_url(neo4j_settings), timeout=10) as response:
        html = response.read().decode()
    assert "<title>Neo4j Browser</title>" in html


def test_browser_renders_in_chromium(neo4j_settings: Neo4jSettings, artifacts_dir: Path) -> None:
    url = _browser_url(neo4j_settings)
    screenshot = artifacts_dir / "neo4j-browser.png"
    screenshot.unlink(missing_ok=True)

    shot = _run_chromium(
        f"--screenshot={screenshot}",
        "--window-size=1400,900",
        "--virtual-time-budget=15000",
        url,
    )
    assert screenshot.is_file(), f"no screenshot; chromium said: {shot.stderr[-2000:]}"
    size = screenshot.stat().st_size
    print(f"screenshot {screenshot} ({size / 1024:.0f} KiB)")
    assert size > 10 * 1024, f"screenshot is only {size} bytes: the page probably did not render"

    dom = _run_chromium("--dump-dom", "--virtual-time-budget=15000", url)
    assert dom.returncode == 0, (
        f"chromium --dump-dom: {_exit(dom.returncode)}\n{dom.stderr[-2000:]}"
    )
    html = dom.stdout
    # Rendered by the Browser's React app, none of it is in the served index.html.
    for marker in ('data-testid="main"', 'data-testid="navigationDBMS"', "Connect to Neo4j"):
        assert marker in html, f"the Browser app did not render ({marker!r} missing)"
    # The connect form is filled from the server's discovery document: Bolt on our port.
    assert f'value="127.0.0.1:{neo4j_settings.bolt_port}"' in html
