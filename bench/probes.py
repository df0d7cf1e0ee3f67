"""Paraphrase probes: new phrasings of dev questions over the generalization sets' corpora.

``bench/data/probes/probes.jsonl`` holds 280 questions (en and zh) that ask, in other words,
what a dev-half question of a generalization set asks and the engine answered: a comparison
asked as "Is A older than B?", a bridge asked as a statement and a pronoun, 哪所大学是X的母校
for X的母校是哪所大学. The facts are known to be readable from the corpus, so a failure is the
phrasing. Eight probe sets, the first five written at different points of one stop:

* ``p1`` (35): comparisons and yes/no questions, written before any rule they led to;
* ``p2`` (22): the same types in other phrasings, written after ``p1``'s first rules;
* ``p3`` (42): bridge and single-hop phrasings, written after the rules ``p1`` and ``p2`` led to;
* ``p4`` (40): every type, written after all of those rules and run once before its own;
* ``p5`` (30, English): bridge and single-hop phrasings, written after ``p4``'s rules;
* ``p6`` (33 English, 22 Chinese): every type, written in a later stop after the rules of
  ``531a7b6`` and run once before its own;
* ``p7`` (30, English): every type, written after ``6d1388f`` and run once before its own;
* ``p8`` (26, English): not rephrasings but new questions about facts of two dev corpora
  (gen20, gen12) that their dev questions do not ask, written after ``fd02f17`` and run once
  before their own.

All eight are **dev data**: they come from dev-half questions and were tuned on. The held-out
measure stays the generalization sets' test halves (``bench/answers.py --split test``).

Each probe runs on its set's knowledge base, built or reused exactly as ``bench/answers.py``
builds it (same cache, same key), and is scored as that bench scores (contained answer).

Run: ``nice .venv/bin/python bench/probes.py [--probes p1 p2 p3 p4 p5 p6 p7 p8] [--kb-cache DIR]
[--json OUT]``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench._answers_data import Item  # noqa: E402
from bench._common import print_table  # noqa: E402
from bench.answers import ask_one, ensure_kb, load_set, open_engine  # noqa: E402

PROBES = REPO / "bench" / "data" / "probes" / "probes.jsonl"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--probes", nargs="*", default=["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]
    )
    parser.add_argument("--kb-cache", type=Path, default=REPO / ".kg_rag" / "bench-cache")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("jieba").propagate = False
    args.kb_cache.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(line) for line in PROBES.read_text(encoding="utf-8").splitlines() if line]
    rows = [r for r in rows if r["probe"] in args.probes]
    by_set: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_set[row["set"]].append(row)
    # load_set reads the set's own questions only to name its corpus; the probes replace them
    set_args = argparse.Namespace(
        data_root=REPO.parent / "shared" / "bench",
        gen_root=REPO / "bench" / "data" / "generalization",
        split="all",
        limit=None,
    )
    results: list[dict[str, Any]] = []
    for name, probes in by_set.items():
        aset = load_set(name, set_args)
        if aset is None:
            continue
        kb_dir, _ = ensure_kb(aset, args.kb_cache, rebuild=False)
        with open_engine(kb_dir, use_llm=False) as engine:
            for probe in probes:
                item = Item(probe["id"], probe["question"], probe["probe"], tuple(probe["answers"]))
                result = ask_one(engine, item, by_path=True)
                results.append(
                    {**probe, "prediction": result.prediction, "contained": result.contained}
                )
    table = []
    for probe in args.probes:
        for lang in ("en", "zh"):
            mine = [r for r in results if r["probe"] == probe and r["lang"] == lang]
            if mine:
                table.append([probe, lang, len(mine), int(sum(r["contained"] for r in mine))])
    print_table(
        "Paraphrase probes (dev data; contained answers)",
        ["probe", "lang", "n", "contained"],
        table,
    )
    out = {"rows": results, "table": table}
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
