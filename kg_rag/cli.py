"""The ``kg-rag`` command.

Subcommands import what they need lazily so ``kg-rag --help`` is instant. Every expected
failure is a :class:`~kg_rag.errors.KgRagError`; it is printed as one line and the command
exits with status 1. ``ingest`` and ``repair`` exit with status :data:`EXIT_FAILURES_LEFT`
when LLM failures remain recorded in the knowledge base (the work is kept; a later
``kg-rag repair`` or ``ingest`` retries exactly those).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kg_rag.config import Settings
from kg_rag.errors import KgRagError

__all__ = ["EXIT_FAILURES_LEFT", "main"]

EXIT_FAILURES_LEFT = 3
"""Exit status of ``ingest``/``repair`` when LLM failures remain in the ledger."""

Handler = Callable[[argparse.Namespace, Settings], int]


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings()
    kb = getattr(args, "kb", None)
    if kb is not None:
        settings.kb_dir = Path(kb)
    graph = getattr(args, "graph", None)
    if graph:
        settings.graph_backend = graph
    return settings


def _cmd_info(args: argparse.Namespace, settings: Settings) -> int:
    data = json.loads(settings.model_dump_json())
    print(json.dumps(data, indent=2))
    return 0


def _manage(server: Any, section: Any, action: str) -> int:
    """start / stop / status of a managed server module (neo4j_server or llm_server)."""
    if action == "start":
        server.start(section)
    elif action == "stop":
        server.stop(section)
    else:
        info = server.status(section)
        print(info.model_dump_json(indent=2))
        return 0 if info.running else 3
    return 0


def _cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "check":
        from kg_rag import neo4j_check

        protections = neo4j_check.check(settings.neo4j)
        print(neo4j_check.render(protections))
        return 0 if all(p.state in ("on", "n/a") for p in protections) else 2
    from kg_rag import neo4j_server

    return _manage(neo4j_server, settings.neo4j, args.action)


def _cmd_llm_server(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag import llm_server

    return _manage(llm_server, settings.llm_server, args.action)


def _finish_ingest(report: Any) -> int:
    print(report)
    failures = list(getattr(report, "failures", []) or [])
    if failures:
        print(
            f"kg-rag: {len(failures)} LLM failures remain recorded in the knowledge base; "
            "run `kg-rag repair` (or ingest again) once the model works to retry exactly those",
            file=sys.stderr,
        )
        return EXIT_FAILURES_LEFT
    return 0


def _cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    if args.reembed:
        from kg_rag.reembed import reembed

        print(reembed(settings, force=args.force))
        if not args.paths:
            return 0
    elif not args.paths:
        print("kg-rag ingest: give paths to ingest, or --reembed", file=sys.stderr)
        return 2
    if args.executor:
        settings.executor.kind = args.executor
    if args.ray_address:
        settings.executor.ray_address = args.ray_address
    with KnowledgeEngine.open(settings=settings) as kg:
        report = kg.ingest(
            [Path(p) for p in args.paths],
            include=args.include or (),
            exclude=args.exclude or (),
            remove_missing=args.remove_missing,
            max_llm_tokens=args.max_llm_tokens,
        )
    return _finish_ingest(report)


def _cmd_estimate(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(settings=settings) as kg:
        estimate = kg.estimate(
            [Path(p) for p in args.paths], include=args.include or (), exclude=args.exclude or ()
        )
    if args.json:
        data = estimate.model_dump()
        data.update(
            calls=estimate.calls,
            prompt_tokens=estimate.prompt_tokens,
            completion_tokens=estimate.completion_tokens,
        )
        print(json.dumps(data, indent=2))
    else:
        print(estimate)
    return 0


def _cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(settings=settings) as kg:
        report = kg.repair()
    return _finish_ingest(report)


def _cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(settings=settings) as kg:
        answer = kg.ask(args.question)
    if args.json:
        print(answer.to_json())
    else:
        print(answer.render_text())
    return 0


def _cmd_delete(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(settings=settings) as kg:
        removed = kg.delete(args.doc_id)
    print(f"{args.doc_id}: {'deleted' if removed else 'not found'}")
    return 0 if removed else 1


def _cmd_communities(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import KnowledgeEngine

    with KnowledgeEngine.open(settings=settings) as kg:
        report = kg.build_communities(full=args.action == "rebuild")
    print(f"communities: {report}")
    return 0


def _cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.engine import export_to_neo4j

    counts = export_to_neo4j(settings)
    print("exported to Neo4j: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 0


def _cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from kg_rag.demo import run_demo

    return run_demo(settings, fresh=args.fresh)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kg-rag",
        description="kg-rag: a hybrid graph + vector knowledge engine for multi-hop questions.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    def kb_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--kb", metavar="DIR", help="knowledge base folder (default: KG_RAG_KB_DIR)")
        p.add_argument("--graph", choices=["embedded", "neo4j"], help="graph backend")

    add("info", _cmd_info, "print the effective configuration (secrets masked)")

    p = add(
        "neo4j",
        _cmd_neo4j,
        "manage a local Neo4j 5 server (Bolt 7687, Browser 7474); `check` reports which "
        "protections for LLM-written Cypher the configured server has on (exit 2: some are off)",
    )
    p.add_argument("action", choices=["start", "stop", "status", "check"])

    p = add("llm-server", _cmd_llm_server, "manage the local llama.cpp test LLM server")
    p.add_argument("action", choices=["start", "stop", "status"])

    p = add("ingest", _cmd_ingest, "ingest files or folders into a knowledge base")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument(
        "--reembed",
        action="store_true",
        help="first re-embed the knowledge base with the configured embedding model "
        "(KG_RAG_EMBEDDING__MODEL; chunks, entity names, community summaries; the graph is "
        "kept)",
    )
    p.add_argument(
        "--force", action="store_true", help="with --reembed: even if the model is the same"
    )
    p.add_argument("--include", action="append", metavar="GLOB", help="only files matching")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip files matching")
    p.add_argument(
        "--remove-missing", action="store_true", help="delete documents whose file is gone"
    )
    p.add_argument(
        "--max-llm-tokens",
        type=int,
        metavar="N",
        help="stop sending LLM calls once N tokens would be passed; what is done is kept and "
        "the rest is recorded, so a later ingest or `kg-rag repair` goes on",
    )
    p.add_argument(
        "--executor",
        choices=["local", "ray"],
        help="where loading, cleaning, chunking, embedding and offline extraction run: in "
        "this process (local, the default) or as Ray tasks (needs the `ray` extra); this "
        "process writes every result either way (KG_RAG_EXECUTOR__KIND)",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="with --executor ray: the cluster to join (auto, ray://HOST:10001, HOST:6379); "
        "default: a local cluster on this machine (KG_RAG_EXECUTOR__RAY_ADDRESS)",
    )
    kb_option(p)

    p = add(
        "estimate",
        _cmd_estimate,
        "LLM calls and tokens an ingest of these paths would spend (nothing is sent)",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--include", action="append", metavar="GLOB", help="only files matching")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip files matching")
    p.add_argument("--json", action="store_true", help="print the estimate as JSON")
    kb_option(p)

    p = add(
        "repair",
        _cmd_repair,
        "finish an interrupted ingest and retry recorded LLM failures (reads no files)",
    )
    kb_option(p)

    p = add("ask", _cmd_ask, "answer a question from a knowledge base")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the answer and trace as JSON")
    kb_option(p)

    p = add("delete", _cmd_delete, "delete a document (chunks, mentions, orphaned entities)")
    p.add_argument("doc_id")
    kb_option(p)

    p = add(
        "communities",
        _cmd_communities,
        "`rebuild`: cluster the whole graph again (hierarchical Leiden), re-summarizing only "
        "communities whose content changed; `update`: the incremental update an ingest does",
    )
    p.add_argument("action", choices=["rebuild", "update"])
    kb_option(p)

    p = add("export", _cmd_export, "copy an embedded knowledge base into Neo4j")
    p.add_argument("target", choices=["neo4j"])
    kb_option(p)

    p = add("demo", _cmd_demo, "ingest the bundled demo corpus and answer multi-hop questions")
    p.add_argument("--fresh", action="store_true", help="rebuild the demo knowledge base")
    kb_option(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kg-rag`` command."""
    import logging

    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        settings = _settings(args)
        handler: Handler = args.handler
        return handler(args, settings)
    except KgRagError as exc:
        print(f"kg-rag: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("kg-rag: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
