"""The stages after chunking, driven by the ingest ledger: removal → graph → communities →
community index. Re-running them finishes exactly what an earlier run did not.

:func:`run_stages` reads where every document stands (:class:`~kg_rag.stores.ledger.IngestLedger`
beside the chunk store's ``documents`` table) and does what is left, each step committed
before its ledger rows move on:

1. **Roll back** a graph batch that was killed halfway (rows at ``graph-pending``): the
   embedded store restores the table versions recorded with the rows; a store that cannot
   roll back gets the batch's documents deleted again and entities left without mentions
   removed.
2. **Removal**: documents with a ledger row but no longer in the chunk store lose their graph
   data (``removing`` with a checkpoint while it is under way, then ``removed``). A removal
   killed halfway is rolled back like a graph batch and redone; where the store cannot roll
   back, it is redone and the entities left without mentions are removed.
3. **Graph**: documents whose stored chunk version has no ``graph`` row yet (new, changed,
   re-added, or pending) are extracted, resolved and written as one batch. When LLM
   extraction failures are recorded and a chat model is there to retry them, every document
   is in the batch: successful chunks come from the
   response cache (no model call), the failed ones are retried, and the graph is resolved in
   one pass, so it ends exactly as a run without failures would have left it (resolution
   prefers entities already stored, so repairing a few chunks against the rest would give
   ids that depend on which chunks failed).
4. **Communities**: recomputed when any row is at ``graph`` or ``removed``, or a summary
   failure is recorded and a chat model can retry it (those communities are summarized
   again). Offline extraction failures are reported but not recorded: they would fail again.
5. **Index**: the community index is rebuilt from the stored communities when any row is at
   ``communities`` or ``removed-communities``.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from kg_rag.graph_build import CommunityBuildReport, GraphBuilder, GraphReport
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.stores.ledger import Failure, IngestLedger, crash_point

__all__ = ["StageReport", "run_stages"]

log = logging.getLogger(__name__)

_REMOVED = ("removed", "removed-communities")


class StageReport(BaseModel):
    """What :func:`run_stages` did.

    Attributes:
        graph: The graph batch (``None`` when no document needed one).
        communities: The community and index steps (``None`` when nothing changed).
        removed: Documents whose graph data was removed.
        rolled_back: Documents of an unfinished graph batch that was undone first.
        failures: Failures still recorded after this run (extraction and summary).
    """

    graph: GraphReport | None = None
    communities: CommunityBuildReport | None = None
    removed: list[str] = Field(default_factory=list)
    rolled_back: list[str] = Field(default_factory=list)
    failures: list[Failure] = Field(default_factory=list)


def _rollback(builder: GraphBuilder, checkpoint: str) -> bool:
    restore: Callable[[dict[str, int]], None] | None = getattr(builder.graph, "restore", None)
    versions = json.loads(checkpoint).get("versions") if checkpoint else None
    if restore is None or not versions:
        return False
    try:
        restore({str(k): int(v) for k, v in versions.items()})
    except Exception as exc:  # e.g. the versions were cleaned up: redo without rollback
        log.warning("could not roll back the unfinished graph batch (%s); redoing it", exc)
        return False
    return True


def _checkpoint(builder: GraphBuilder) -> str:
    """A new batch id and the graph tables' versions, where the store can roll back to them."""
    checkpoint_of: Callable[[], dict[str, int]] | None = getattr(builder.graph, "checkpoint", None)
    return json.dumps(
        {
            "batch": uuid.uuid4().hex,
            "versions": checkpoint_of() if checkpoint_of is not None else None,
        },
        sort_keys=True,
    )


def run_stages(
    chunks: LanceChunkStore,
    builder: GraphBuilder,
    ledger: IngestLedger,
    *,
    communities: bool = True,
) -> StageReport:
    """Finish every stage the ledger says is not done (see the module docstring).

    Args:
        chunks: The opened chunk store (its ``done`` documents are the chunk stage).
        builder: Extraction, resolution and community building over the stores.
        ledger: The knowledge base's ledger.
        communities: Also recompute communities and the index (else rows wait at ``graph``
            for a later run).

    Returns:
        What was done, and the failures still recorded.
    """
    report = StageReport()
    done = chunks.document_hashes()
    stored = {d.doc_id for d in chunks.list_documents()}
    rows = ledger.rows()

    # 1. roll back an unfinished graph batch
    unfinished = {d: r for d, r in rows.items() if r.stage == "graph-pending"}
    if unfinished:
        report.rolled_back = sorted(unfinished)
        checkpoints = {r.checkpoint for r in unfinished.values() if r.checkpoint}
        rolled = len(checkpoints) == 1 and _rollback(builder, checkpoints.pop())
        if not rolled:
            for doc_id in sorted(unfinished):
                builder.graph.delete_document(doc_id)
            builder.remove_orphans()
        # Never restore that checkpoint again: later batches may commit over it.
        ledger.forget_checkpoints()
        log.info("rolled back an unfinished graph batch of %d documents", len(unfinished))

    # 2. removal (a removal killed halfway is rolled back to its checkpoint and redone; on a
    # store that cannot roll back it is redone and the entities it left without mentions,
    # which a redo no longer reaches through the deleted mentions, are removed; a document
    # of that removal that is back in the store has its graph back with the rollback, or else
    # keeps its "removing" row and the graph step below writes its graph again)
    interrupted = {r.checkpoint for r in rows.values() if r.stage == "removing"}
    rolled = len(interrupted) == 1 and _rollback(builder, next(iter(interrupted)))
    back = {d: r.ingest_hash for d, r in rows.items() if r.stage == "removing" and d in stored}
    if rolled and back:
        # rolled back, its graph is whole again: only communities wait on it
        ledger.set_stage(back, "graph")
        rows = ledger.rows()
    gone = {d: r for d, r in rows.items() if d not in stored and r.stage not in _REMOVED}
    if gone:
        hashes = {d: r.ingest_hash for d, r in gone.items()}
        ledger.set_stage(hashes, "removing", checkpoint=_checkpoint(builder))
        for doc_id in sorted(gone):
            builder.graph.delete_document(doc_id)
            crash_point("removal-document")
    if interrupted and not rolled:
        builder.remove_orphans()
    if gone:
        ledger.set_stage(hashes, "removed")
        ledger.clear_failures(
            "extraction", [f.item_id for f in ledger.failures("extraction") if f.doc_id in gone]
        )
        report.removed = sorted(gone)
        crash_point("removal")

    # 3. graph (recorded extraction failures are retried only when the model is there to
    # retry them; without it they stay recorded)
    old_failures = ledger.failures("extraction")
    if old_failures and builder.extracts_with_llm:
        todo = sorted(done)
    else:
        todo = sorted(
            d
            for d, h in done.items()
            if d not in rows
            or rows[d].ingest_hash != h
            or rows[d].stage in ("graph-pending", "removing", *_REMOVED)
        )
    if todo:
        checkpoint = _checkpoint(builder)
        ledger.set_stage({d: done[d] for d in todo}, "graph-pending", checkpoint=checkpoint)
        graph_report = builder.update_graph(todo, [])
        graph_report.documents_removed = len(report.removed)
        in_batch = set(todo)
        # Offline extraction is deterministic: its failures would fail again, so they are
        # reported but not kept for retry.
        new_failures = graph_report.failures if graph_report.extractor == "llm" else []
        failed_now = {f.item_id for f in new_failures}
        ledger.record_failures(new_failures)
        ledger.clear_failures(
            "extraction",
            [
                f.item_id
                for f in old_failures
                if f.doc_id in in_batch and f.item_id not in failed_now
            ],
        )
        ledger.finish_batch(checkpoint)
        report.graph = graph_report
        crash_point("graph")
    elif report.removed:
        report.graph = GraphReport(documents_removed=len(report.removed))

    # 4. communities
    if communities:
        stages = {r.stage for r in ledger.rows().values()}
        summary_failures = ledger.failures("summary") if builder.summarizes_with_llm else []
        community_report: CommunityBuildReport | None = None
        if stages & {"graph", "removed"} or summary_failures:
            community_report = builder.build_communities(
                retry=[f.item_id for f in summary_failures]
            )
            failed_now = {f.item_id for f in community_report.failures}
            ledger.record_failures(community_report.failures)
            ledger.clear_failures(
                "summary", [f.item_id for f in summary_failures if f.item_id not in failed_now]
            )
            ledger.advance({"graph": "communities", "removed": "removed-communities"})
            crash_point("communities")
            stages = {r.stage for r in ledger.rows().values()}
        # 5. index
        if stages & {"communities", "removed-communities"}:
            community_report = builder.index_communities(community_report)
            ledger.advance({"communities": "indexed"})
            ledger.drop(stage="removed-communities")
            crash_point("index")
        report.communities = community_report
    report.failures = ledger.failures()
    return report


def ledger_for(chunks: LanceChunkStore) -> IngestLedger:
    """The ledger of the knowledge base ``chunks`` is open on (created on first use; a
    knowledge base built before the ledger existed has its documents recorded complete)."""
    ledger = IngestLedger(chunks.db)
    ledger.open(existing_documents=chunks.document_hashes())
    return ledger


def pending_work(chunks: LanceChunkStore, ledger: IngestLedger) -> dict[str, Any]:
    """A summary of what :func:`run_stages` would do now (for status lines and tests)."""
    done = chunks.document_hashes()
    rows = ledger.rows()
    stored = {d.doc_id for d in chunks.list_documents()}
    return {
        "graph": sorted(d for d, h in done.items() if d not in rows or rows[d].ingest_hash != h),
        "unfinished": sorted(d for d, r in rows.items() if r.stage != "indexed"),
        "removed": sorted(d for d in rows if d not in stored),
        "failures": len(ledger.failures()),
    }
