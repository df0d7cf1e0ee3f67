"""The ingest report: what an ingest did (counts, skipped files, notes, stage timings)."""

from __future__ import annotations

import html
from typing import Any

from pydantic import BaseModel, Field

from kg_rag.ingest.loaders import SkippedFile
from kg_rag.models import CHUNK_LEVELS

__all__ = ["IngestNote", "IngestReport"]


def _zero_counts() -> dict[str, int]:
    return {str(level): 0 for level in CHUNK_LEVELS}


class IngestNote(BaseModel):
    """A file ingested only in part (a cap hit, non-prose text dropped), and what was left out."""

    path: str
    reason: str


class IngestReport(BaseModel):
    """What an ingest did.

    Attributes:
        files_seen: Files found (or documents given).
        documents_added: New documents stored.
        documents_updated: Documents whose content changed and were re-chunked.
        documents_unchanged: Documents skipped because nothing changed.
        documents_deleted: Documents removed (files gone, with ``remove_missing``).
        chunks_per_level: Chunks written per level.
        embeddings_computed: Texts that went through the embedding model.
        skipped: Files or documents not ingested, with the reason.
        notes: Files or documents ingested in part (a cap was hit, non-prose text dropped).
        changed_doc_ids: Documents added or updated (their graph must be re-extracted).
        removed_doc_ids: Documents deleted (their graph data must go).
        seconds: Wall time.
        stage_seconds: Wall time per chunk-layer stage: ``chunk`` (cleaning and chunking),
            ``embed`` (vectors), ``write`` (LanceDB writes), ``optimize`` (index upkeep, once
            per ingest).
        graph: Filled by the engine with its graph-extraction report.
        communities: Filled by the engine with its community report.
        failures: Filled by the engine: LLM failures still recorded in the knowledge base's
            ledger after this ingest (retried by the next ingest or ``kg-rag repair``).
    """

    files_seen: int = 0
    documents_added: int = 0
    documents_updated: int = 0
    documents_unchanged: int = 0
    documents_deleted: int = 0
    chunks_per_level: dict[str, int] = Field(default_factory=_zero_counts)
    embeddings_computed: int = 0
    skipped: list[SkippedFile] = Field(default_factory=list)
    notes: list[IngestNote] = Field(default_factory=list)
    changed_doc_ids: list[str] = Field(default_factory=list)
    removed_doc_ids: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    graph: Any = None
    communities: Any = None
    failures: list[Any] = Field(default_factory=list)

    def _summary_lines(self) -> list[str]:
        lines = [
            f"{self.files_seen} seen in {self.seconds:.1f} s: {self.documents_added} added, "
            f"{self.documents_updated} updated, {self.documents_unchanged} unchanged, "
            f"{self.documents_deleted} deleted",
            "chunks: "
            + ", ".join(f"{level} {n}" for level, n in self.chunks_per_level.items())
            + f"; {self.embeddings_computed} embeddings computed",
        ]
        if self.skipped:
            lines.append(f"skipped {len(self.skipped)}:")
            lines.extend(f"  {s.path}: {s.reason}" for s in self.skipped)
        if self.notes:
            lines.append(f"ingested in part {len(self.notes)}:")
            lines.extend(f"  {n.path}: {n.reason}" for n in self.notes)
        for name in ("graph", "communities"):
            value = getattr(self, name)
            if value is not None:
                lines.append(f"{name}: {value}")
        if self.failures:
            lines.append(f"{len(self.failures)} LLM failures recorded (retried next ingest):")
            lines.extend(f"  {f}"[:200] for f in self.failures[:20])
            if len(self.failures) > 20:
                lines.append(f"  ... and {len(self.failures) - 20} more")
        return lines

    def __str__(self) -> str:
        return "\n".join(self._summary_lines())

    def _repr_html_(self) -> str:
        rows = [
            ("seen", self.files_seen),
            ("added", self.documents_added),
            ("updated", self.documents_updated),
            ("unchanged", self.documents_unchanged),
            ("deleted", self.documents_deleted),
            *((f"{level} chunks", n) for level, n in self.chunks_per_level.items()),
            ("embeddings computed", self.embeddings_computed),
            ("seconds", f"{self.seconds:.1f}"),
        ]
        body = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{v}</td></tr>" for k, v in rows)
        skipped = "".join(
            f"<li><code>{html.escape(s.path)}</code>: {html.escape(s.reason)}</li>"
            for s in self.skipped
        )
        extra = f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else ""
        notes = "".join(
            f"<li><code>{html.escape(n.path)}</code>: {html.escape(n.reason)}</li>"
            for n in self.notes
        )
        if notes:
            extra += f"<p>Ingested in part:</p><ul>{notes}</ul>"
        return f"<table>{body}</table>{extra}"
