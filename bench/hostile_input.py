"""Hostile input: time and peak memory of ingesting files built to hurt, one process each.

Builds a folder in a temporary directory:

* ``big.txt``: realistic English prose (``--txt-mb``, default 30 MB), generated from a seed:
  people, places, organisations and years in varied sentence shapes, 3-8 sentences per
  paragraph;
* ``base64_page.html``: an HTML article with a 2 MB base64 paragraph and a data-URI image;
* ``headings.md``: 10,000 headings, each with one short sentence;
* ``one_line.txt``: 3 MB of prose on one line (no paragraph break);
* ``hexdump.txt``, ``minified.txt``: an ``xxd``-style dump, 500 kB of JSON without spaces;
* bad files: a symlink loop, a two-link loop, a broken symlink, a binary renamed ``.txt``,
  an empty file, invalid UTF-8, an unsupported ``.docx``, an unreadable file (when not root);
* good files: ``good.md`` (English) and ``chinese.md`` (Chinese prose).

Each file is ingested offline (hash embedder, offline extraction, embedded graph) into its
own knowledge base by a child process; the parent reads the child's peak RSS from
``os.wait4``. Then the whole folder is ingested in one child (``--no-folder-run`` skips it) so
the report shows every bad file with its reason next to the complete good ones.

Targets: peak RSS < 2 GB for ``big.txt`` and for ``base64_page.html``.

Run: ``nice -n 10 .venv/bin/python bench/hostile_input.py [--txt-mb 30] [--json OUT]
[--max-document-chars N] [--no-caps] [--only FILE...] [--no-folder-run]``. ``--no-caps`` lifts
the characters and chunks-per-document caps, to see how memory grows with file size without
them.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table

TARGET_BYTES = 2 * 1024**3

_SYLLABLES = [
    "ka", "ri", "mo", "len", "tar", "vi", "so", "del", "an", "bru", "ce", "dor", "el", "fa",
    "gun", "ha", "is", "jo", "kel", "lu", "mar", "ne", "or", "pra", "qui", "ros", "sta", "tu",
]  # fmt: skip
_VERBS = ["founded", "joined", "left", "visited", "married", "studied at", "led", "sold"]
_NOUNS = ["company", "university", "museum", "railway", "newspaper", "orchestra", "bank"]
_ADJ = ["small", "famous", "northern", "old", "independent", "royal", "new", "quiet"]


class _Prose:
    """Deterministic English-like prose with recurring names (so extraction finds a graph)."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.people = [self._name(2) + " " + self._name(3) for _ in range(3000)]
        self.places = [self._name(3) for _ in range(800)]
        self.orgs = [f"{self._name(2)} {self.rng.choice(_NOUNS).title()}" for _ in range(1500)]

    def _name(self, parts: int) -> str:
        return "".join(self.rng.choice(_SYLLABLES) for _ in range(parts)).title()

    def sentence(self) -> str:
        r = self.rng
        person, place, org = r.choice(self.people), r.choice(self.places), r.choice(self.orgs)
        year = r.randrange(1700, 2024)
        shape = r.randrange(5)
        if shape == 0:
            return f"In {year}, {person} {r.choice(_VERBS)} the {org} in {place}."
        if shape == 1:
            return (
                f"The {r.choice(_ADJ)} {r.choice(_NOUNS)} of {place} was built by {person}, "
                f"who later worked for the {org}."
            )
        if shape == 2:
            return f"{person} was born in {place} and died there in {year}."
        if shape == 3:
            return (
                f"According to {r.choice(self.people)}, the {org} moved from {place} to "
                f"{r.choice(self.places)} after {year}, when its {r.choice(_ADJ)} director "
                "retired."
            )
        return f"Few people remember that {place} had a {r.choice(_ADJ)} {r.choice(_NOUNS)}."

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randrange(3, 9)))

    def write(self, path: Path, size: int, *, one_line: bool = False) -> None:
        written = 0
        sep = " " if one_line else "\n\n"
        with path.open("w", encoding="utf-8") as out:
            while written < size:
                block = self.paragraph() + sep
                out.write(block)
                written += len(block)


def build_folder(root: Path, txt_mb: float) -> dict[str, str]:
    """Write the hostile folder; returns file name → what it is."""
    root.mkdir(parents=True, exist_ok=True)
    prose = _Prose()
    what: dict[str, str] = {}
    prose.write(root / "big.txt", int(txt_mb * 1024**2))
    what["big.txt"] = f"{txt_mb:g} MB of prose"
    blob = base64.b64encode(random.Random(1).randbytes(1_500_000)).decode()
    (root / "base64_page.html").write_text(
        "<html><head><title>Harbour history</title></head><body><h1>Harbour history</h1>"
        f"<p>{prose.paragraph()}</p><p>{blob}</p>"
        f'<p>Map: <img src="data:image/png;base64,{blob[:40_000]}"> {prose.paragraph()}</p>'
        f"<h2>Later years</h2><p>{prose.paragraph()}</p></body></html>",
        encoding="utf-8",
    )
    what["base64_page.html"] = f"HTML with a {len(blob) / 1e6:.1f} MB base64 paragraph"
    (root / "headings.md").write_text(
        "".join(f"## Section {i}\n\n{prose.sentence()}\n\n" for i in range(10_000)),
        encoding="utf-8",
    )
    what["headings.md"] = "10,000 headings"
    prose.write(root / "one_line.txt", 3 * 1024**2, one_line=True)
    what["one_line.txt"] = "3 MB prose on one line"
    rng = random.Random(2)
    (root / "hexdump.txt").write_text(
        "\n".join(
            f"{i * 16:08x}: "
            + " ".join(f"{rng.randrange(65536):04x}" for _ in range(8))
            + "  ................"
            for i in range(20_000)
        ),
        encoding="utf-8",
    )
    what["hexdump.txt"] = "xxd-style dump"
    (root / "minified.txt").write_text(
        json.dumps([{"id": i, "v": rng.random()} for i in range(20_000)], separators=(",", ":")),
        encoding="utf-8",
    )
    what["minified.txt"] = "JSON without spaces"
    os.symlink("loop.txt", root / "loop.txt")
    what["loop.txt"] = "symlink to itself"
    os.symlink("loop_b.md", root / "loop_a.md")
    os.symlink("loop_a.md", root / "loop_b.md")
    what["loop_a.md"] = what["loop_b.md"] = "two-link symlink loop"
    os.symlink("missing-target.txt", root / "broken.txt")
    what["broken.txt"] = "broken symlink"
    (root / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + rng.randbytes(50_000))
    what["binary.txt"] = "binary renamed .txt"
    (root / "empty.txt").write_bytes(b"")
    what["empty.txt"] = "empty"
    (root / "invalid_utf8.txt").write_bytes(bytes([0x81, 0x8D, 0x8F, 0x90, 0x9D]) * 50)
    what["invalid_utf8.txt"] = "invalid UTF-8 (and not cp1252)"
    (root / "latin1.txt").write_bytes(("Café in Zürich. " * 40).encode("latin-1"))
    what["latin1.txt"] = "Latin-1 text (not UTF-8)"
    (root / "report.docx").write_bytes(b"PK\x03\x04" + rng.randbytes(1000))
    what["report.docx"] = "unsupported type"
    unreadable = root / "unreadable.txt"
    unreadable.write_text("secret", encoding="utf-8")
    unreadable.chmod(0)
    what["unreadable.txt"] = "mode 000" + (" (root reads it anyway)" if os.geteuid() == 0 else "")
    (root / "good.md").write_text(
        "# Harbour towns\n\n" + "\n\n".join(prose.paragraph() for _ in range(20)),
        encoding="utf-8",
    )
    what["good.md"] = "good English Markdown"
    (root / "chinese.md").write_text(
        "# 北京\n\n北京是中华人民共和国的首都，也是全国的政治、文化和国际交往中心。"
        "北京有三千多年的建城史和八百多年的建都史。\n\n"
        "## 历史\n\n元朝在此建立大都。明朝永乐皇帝于1420年迁都北京，修建了紫禁城。"
        "清朝继续以北京为首都，直到1912年。\n\n"
        "## 文化\n\n北京大学创办于1898年，是中国最早的国立综合性大学之一。"
        "鲁迅曾在北京大学任教，他的小说《阿Q正传》于1921年发表。",
        encoding="utf-8",
    )
    what["chinese.md"] = "good Chinese Markdown"
    return what


# -- the child: ingest, then print one JSON line -----------------------------------------
def _worker(kb: str, paths: list[str], max_document_chars: int | None, no_caps: bool) -> None:
    import resource

    from kg_rag.config import EmbeddingSettings, LLMSettings, Settings
    from kg_rag.engine import KnowledgeEngine
    from kg_rag.testing import HashEmbeddings

    settings = Settings(
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=256),
    )
    if max_document_chars is not None:
        settings.chunking.max_document_chars = max_document_chars
    if no_caps:
        settings.chunking.max_document_chars = 10**10
        settings.chunking.max_chunks_per_document = 10**10
    started = time.perf_counter()
    with KnowledgeEngine.open(
        kb, settings=settings, embedder=HashEmbeddings(256), progress=False
    ) as engine:
        report = engine.ingest([Path(p) for p in paths])
        stats = engine.stats()
        lengths = engine.chunk_store._table("chunks").to_arrow().column("text").to_pylist()
        small = [len(t) for t in lengths]
        levels = engine.chunk_store._table("chunks").to_arrow().column("level").to_pylist()
        longest_para = max(
            (n for n, lv in zip(small, levels, strict=True) if lv in ("paragraph", "sentence")),
            default=0,
        )
    out = {
        "seconds": time.perf_counter() - started,
        "self_peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "skipped": [s.model_dump() for s in report.skipped],
        "notes": [n.model_dump() for n in report.notes],
        "chunks": sum(report.chunks_per_level.values()),
        "longest_paragraph_or_sentence": longest_para,
        "entities": stats.get("entities", 0),
        "relations": stats.get("relations", 0),
        "documents": stats.get("documents", 0),
    }
    print("RESULT " + json.dumps(out))


def _run_child(
    kb: Path, paths: list[Path], max_document_chars: int | None, no_caps: bool = False
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", str(kb), *map(str, paths)]
    if max_document_chars is not None:
        cmd[2:2] = ["--max-document-chars", str(max_document_chars)]
    if no_caps:
        cmd[2:2] = ["--no-caps"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    stdout = proc.stdout.read() if proc.stdout else ""
    stderr = proc.stderr.read() if proc.stderr else ""
    result: dict[str, Any] = {"wall_s": seconds, "peak_rss": usage.ru_maxrss * 1024}
    line = next((ln for ln in stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None or os.waitstatus_to_exitcode(status) != 0:
        result["crash"] = (stderr or stdout).strip().splitlines()[-3:]
    else:
        result.update(json.loads(line[len("RESULT ") :]))
    return result


def _outcome(name: str, res: dict[str, Any]) -> tuple[str, str]:
    if "crash" in res:
        return "CRASH", " / ".join(res["crash"])
    skipped = [s["reason"] for s in res["skipped"] if Path(s["path"]).name == name]
    if skipped:
        return "skipped", skipped[0]
    notes = [n["reason"] for n in res["notes"] if Path(n["path"]).name == name]
    if notes:
        return "partial", "; ".join(notes)
    return "ingested", ""


def _mb(n: float) -> str:
    return f"{n / 1024**2:,.0f} MB"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--txt-mb", type=float, default=30.0, help="size of big.txt")
    parser.add_argument("--max-document-chars", type=int, default=None)
    parser.add_argument(
        "--no-caps", action="store_true", help="lift the characters and chunks caps"
    )
    parser.add_argument("--only", nargs="*", default=None, help="file names to run alone")
    parser.add_argument("--no-folder-run", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="write results here")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker[0], args.worker[1:], args.max_document_chars, args.no_caps)
        return {}
    with tempfile.TemporaryDirectory(prefix="kg-hostile-") as tmp:
        folder = Path(tmp) / "hostile"
        what = build_folder(folder, args.txt_mb)
        names = sorted(what) if args.only is None else args.only
        rows, results = [], {}
        for name in names:
            res = _run_child(
                Path(tmp) / f"kb-{name}", [folder / name], args.max_document_chars, args.no_caps
            )
            outcome, reason = _outcome(name, res)
            results[name] = {"what": what[name], "outcome": outcome, "reason": reason, **res}
            rows.append(
                [
                    name,
                    what[name],
                    outcome,
                    reason[:110],
                    f"{res['wall_s']:.1f}",
                    _mb(res["peak_rss"]),
                    str(res.get("chunks", "")),
                    str(res.get("longest_paragraph_or_sentence", "")),
                    str(res.get("entities", "")),
                ]
            )
            print(f"{name}: {outcome} {res['wall_s']:.1f} s {_mb(res['peak_rss'])}", flush=True)
        print_table(
            f"hostile folder (big.txt {args.txt_mb:g} MB), one process per file",
            ["file", "what", "outcome", "reason", "s", "peak RSS", "chunks", "max chunk", "ents"],
            rows,
        )
        folder_run = None
        if not args.no_folder_run:
            folder_run = _run_child(
                Path(tmp) / "kb-folder", [folder], args.max_document_chars, args.no_caps
            )
            ok = "crash" not in folder_run
            print(
                f"\nwhole folder in one process: {'ok' if ok else 'CRASH'} "
                f"{folder_run['wall_s']:.1f} s, peak {_mb(folder_run['peak_rss'])}, "
                f"{folder_run.get('documents', 0)} documents, "
                f"{len(folder_run.get('skipped', []))} skipped, "
                f"{folder_run.get('entities', 0)} entities, "
                f"{folder_run.get('relations', 0)} relations"
            )
            for s in folder_run.get("skipped", []):
                print(f"  skipped {Path(s['path']).name}: {s['reason']}")
            for n in folder_run.get("notes", []):
                print(f"  partial {Path(n['path']).name}: {n['reason']}")
        targets = {
            n: results[n]["peak_rss"] < TARGET_BYTES
            for n in ("big.txt", "base64_page.html")
            if n in results
        }
        print(f"\ntargets (peak < 2 GB): {targets}")
        summary = {
            "txt_mb": args.txt_mb,
            "max_document_chars": args.max_document_chars,
            "no_caps": args.no_caps,
            "files": results,
            "folder_run": folder_run,
            "targets_met": targets,
        }
        if args.json:
            args.json.write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")
        return summary


if __name__ == "__main__":
    main()
