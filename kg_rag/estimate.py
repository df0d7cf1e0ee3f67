"""What an ingest will cost in LLM calls and tokens, worked out before anything is sent.

:func:`estimate_ingest` runs the ingest's own planning without writing: the documents that are
new or changed (unchanged ones cost nothing), their chunks at the extraction level, the
extraction calls the extractor would make for them (its batches, exactly as they would be
sent) and which of those the response cache already answers. Prompt tokens are counted on the
real prompts with their tool schema (:mod:`extraction.tokens`). What cannot be counted before
the model answers is predicted from ratios:

* extraction completion tokens per prompt token,
* community-summary calls per extracted chunk (which communities form, and which are big
  enough for an LLM summary, is known only after extraction), their prompt and completion
  tokens per call. Communities are recomputed over the whole graph, so new chunks also
  change communities of stored ones: the share of communities re-summarized is taken as
  1.5 times the new chunks' share of all chunks (capped at all of them; measured on musique
  passages and on the generated ledger corpus);
* extraction failures: a chunk that failed before is expected to fail again and cost every
  attempt; new chunks fail at this knowledge base's past rate, each then redone alone with
  ``1 + max_retries`` calls.

The ratios come from this knowledge base's own history (:class:`UsageHistory`, updated after
every LLM ingest) when it has one, else from priors measured on passage collections
(:data:`PRIORS`). ``basis`` in the result says which.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extraction.tokens import prompt_tokens, tokenizer_name

__all__ = ["PRIORS", "IngestEstimate", "PhaseEstimate", "UsageHistory", "estimate_ingest"]

PRIORS: dict[str, float] = {
    "extraction_completion_per_prompt": 1.0,
    "summary_calls_per_chunk": 0.3,
    "summary_prompt_per_call": 1750.0,
    "summary_completion_per_call": 150.0,
    "extraction_failures_per_chunk": 0.0,
}
"""Ratios used before a knowledge base has history: measured on musique passages (about 0.3
LLM summaries per passage at ``communities.llm_min_size=10``, each near the 1,500-token
context budget plus the prompt and schema); completion per prompt token is a guess for a
real model (a reply lists every entity and relation with a short description)."""

_HISTORY_FILE = "llm-usage.json"


class PhaseEstimate(BaseModel):
    """Calls and tokens of one ingest phase."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class IngestEstimate(BaseModel):
    """What an ingest is expected to spend (see the module docstring for how).

    Attributes:
        documents: New or changed documents (the only ones extracted).
        unchanged: Documents already stored as they are (no cost).
        chunks: Chunks to extract (failed ones recorded earlier included).
        extraction: Extraction calls and tokens (``cached_calls`` cost nothing).
        summaries: Community-summary calls and tokens.
        basis: ``"priors"`` or ``"history"`` (this knowledge base's past ingests).
        tokenizer: How prompt tokens were counted.
    """

    documents: int = 0
    unchanged: int = 0
    chunks: int = 0
    extraction: PhaseEstimate = PhaseEstimate()
    summaries: PhaseEstimate = PhaseEstimate()
    basis: str = "priors"
    tokenizer: str = ""

    @property
    def calls(self) -> int:
        """LLM calls of both phases."""
        return self.extraction.calls + self.summaries.calls

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of both phases."""
        return self.extraction.prompt_tokens + self.summaries.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        """Completion tokens of both phases."""
        return self.extraction.completion_tokens + self.summaries.completion_tokens

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __str__(self) -> str:
        rows = [("extraction", self.extraction), ("community summaries", self.summaries)]
        lines = [
            f"{self.documents} documents to extract ({self.unchanged} unchanged), "
            f"{self.chunks} chunks; ratios from {self.basis}, tokens counted as "
            f"{self.tokenizer}",
        ]
        for name, phase in rows:
            lines.append(
                f"  {name}: {phase.calls} calls ({phase.cached_calls} cached), "
                f"{phase.prompt_tokens:,} prompt + {phase.completion_tokens:,} completion tokens"
            )
        lines.append(
            f"  total: {self.calls} calls, {self.prompt_tokens:,} prompt + "
            f"{self.completion_tokens:,} completion = {self.total_tokens:,} tokens"
        )
        return "\n".join(lines)


class UsageHistory(BaseModel):
    """What this knowledge base's LLM ingests spent, summed (``llm-usage.json`` in its folder)."""

    extraction_calls: int = 0
    extraction_prompt_tokens: int = 0
    extraction_completion_tokens: int = 0
    chunks_extracted: int = 0
    extraction_failures: int = 0
    summary_calls: int = 0
    summary_prompt_tokens: int = 0
    summary_completion_tokens: int = 0

    @classmethod
    def load(cls, kb_dir: Path) -> UsageHistory:
        """The history stored in ``kb_dir`` (empty when there is none or it is unreadable)."""
        path = Path(kb_dir) / _HISTORY_FILE
        try:
            return cls.model_validate(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError):
            return cls()

    def add_report(self, report: Any) -> None:
        """Add an :class:`~kg_rag.ingest.pipeline.IngestReport`'s LLM usage."""
        graph, comms = getattr(report, "graph", None), getattr(report, "communities", None)
        if graph is not None and getattr(graph, "extractor", "") == "llm":
            self.extraction_calls += graph.llm_calls
            self.extraction_prompt_tokens += graph.prompt_tokens
            self.extraction_completion_tokens += graph.completion_tokens
            self.chunks_extracted += graph.chunks_extracted
            self.extraction_failures += len(graph.failures)
        if comms is not None and graph is not None and graph.extractor == "llm":
            self.summary_calls += comms.llm_calls
            self.summary_prompt_tokens += comms.prompt_tokens
            self.summary_completion_tokens += comms.completion_tokens

    def save(self, kb_dir: Path) -> None:
        """Write the history into ``kb_dir``."""
        (Path(kb_dir) / _HISTORY_FILE).write_text(self.model_dump_json(indent=1), "utf-8")

    def ratios(self) -> dict[str, float] | None:
        """The ratios of :data:`PRIORS` as measured here, or ``None`` without enough history."""
        if self.extraction_prompt_tokens <= 0 or self.chunks_extracted <= 0:
            return None
        ratios = {
            "extraction_completion_per_prompt": self.extraction_completion_tokens
            / self.extraction_prompt_tokens,
            "summary_calls_per_chunk": self.summary_calls / self.chunks_extracted,
            "extraction_failures_per_chunk": self.extraction_failures / self.chunks_extracted,
        }
        if self.summary_calls:
            ratios["summary_prompt_per_call"] = self.summary_prompt_tokens / self.summary_calls
            ratios["summary_completion_per_call"] = (
                self.summary_completion_tokens / self.summary_calls
            )
        return {**PRIORS, **ratios}


def estimate_ingest(
    planned: list[tuple[list[Any], type[BaseModel], bool]],
    *,
    documents: int,
    unchanged: int,
    chunks: int,
    history: UsageHistory | None = None,
    summaries: bool = True,
    stored_chunks: int = 0,
    failed_chunks: int = 0,
    max_retries: int = 2,
    single_call_tokens: float | None = None,
) -> IngestEstimate:
    """Turn the extractor's planned calls into an estimate.

    Args:
        planned: ``LLMExtractor.planned_calls(...)``: messages, schema, cached per call.
        documents: New or changed documents.
        unchanged: Documents that cost nothing.
        chunks: Chunks to extract.
        history: This knowledge base's usage so far (its ratios replace the priors).
        summaries: Whether community summaries will be written with the model.
        stored_chunks: Chunks already in the knowledge base (whose communities may change).
        failed_chunks: Chunks among ``chunks`` whose extraction failed before.
        max_retries: Retries per failing call.
        single_call_tokens: Prompt tokens of one chunk sent alone (a failing chunk's retries);
            by default worked out from the planned calls.

    Returns:
        The estimate.
    """
    measured = history.ratios() if history is not None else None
    ratios = measured or PRIORS
    extraction = PhaseEstimate()
    for messages, schema, cached in planned:
        if cached:
            extraction.cached_calls += 1
            continue
        extraction.calls += 1
        extraction.prompt_tokens += prompt_tokens(messages, schema)
    if extraction.calls:
        # Failing chunks cost every attempt, each a call of about one chunk's prompt.
        per_call = extraction.prompt_tokens / extraction.calls
        per_chunk = per_call / max(1.0, (chunks - failed_chunks) / extraction.calls)
        single = single_call_tokens or (
            per_call if extraction.calls >= chunks else per_chunk + 0.7 * (per_call - per_chunk)
        )
        new_failures = (chunks - failed_chunks) * ratios["extraction_failures_per_chunk"]
        # A chunk that failed before has its first attempt planned already; a new failure
        # in a batch goes on alone, with every attempt.
        retries = round(failed_chunks * max_retries + new_failures * (1 + max_retries))
        extraction.calls += retries
        extraction.prompt_tokens += round(retries * single)
    extraction.completion_tokens = round(
        extraction.prompt_tokens * ratios["extraction_completion_per_prompt"]
    )
    phase = PhaseEstimate()
    fresh = chunks - extraction.cached_calls  # a cached entry is one chunk
    if summaries and extraction.calls:
        total = stored_chunks + fresh
        touched = min(1.0, 1.5 * fresh / max(1, total))
        phase.calls = round(total * touched * ratios["summary_calls_per_chunk"])
        phase.prompt_tokens = round(phase.calls * ratios["summary_prompt_per_call"])
        phase.completion_tokens = round(phase.calls * ratios["summary_completion_per_call"])
    return IngestEstimate(
        documents=documents,
        unchanged=unchanged,
        chunks=chunks,
        extraction=extraction,
        summaries=phase,
        basis="history" if measured else "priors",
        tokenizer=tokenizer_name(),
    )
