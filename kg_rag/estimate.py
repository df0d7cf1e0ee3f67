"""What an ingest will cost in LLM calls and tokens, worked out before anything is sent.

:func:`estimate_ingest` runs the ingest's own planning without writing: the documents that are
new or changed (unchanged ones cost nothing), their chunks at the extraction level, the
extraction calls the extractor would make for them (its batches, exactly as they would be
sent) and which of those the response cache already answers. Prompt tokens are counted on the
real prompts with their tool schema (:mod:`extraction.tokens`). What cannot be counted before
the model answers is predicted from ratios:

* extraction completion tokens: per prompt token as this knowledge base's history measured
  them, or before it has history per token of the chunk texts sent (a reply lists what the
  text names, whatever prompt and schema surround it, so the text is what predicts it);
* community-summary calls per extracted chunk (which communities form, and which are big
  enough for an LLM summary, is known only after extraction), their prompt and completion
  tokens per call. Communities are recomputed over the whole graph, so new chunks also
  change communities of stored ones: the share of communities re-summarized is taken as
  1.5 times the new chunks' share of all chunks (capped at all of them; measured on musique
  passages and on the generated ledger corpus);
* extraction failures: a chunk that failed before is expected to fail again and cost every
  attempt (and change no community); new chunks fail at this knowledge base's past rate, each
  then redone alone with every attempt. A failing attempt's completion comes from the history's
  failed calls, the others' from its healthy ones;
* the provider's prompt count against the estimate's own (cl100k, schema included): 1 for a
  provider that counts like OpenAI, else as the history measured it.

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
    "extraction_completion_per_text_token": 8.8,
    "extraction_completion_per_prompt": 1.0,
    "summary_calls_per_chunk": 0.235,
    "summary_prompt_per_call": 1670.0,
    "summary_completion_per_call": 107.0,
    "extraction_failures_per_chunk": 0.025,
    "prompt_reported_per_counted": 1.0,
    "failed_completion_per_call": 0.0,
}
"""Ratios used before a knowledge base has history, measured by ``bench/llm_cost.py
--calibrate`` on the dev half of musique-dev passages (passages 200-399, as two new knowledge
bases of 100) with
the scripted model of :mod:`kg_rag.testing` (every name and co-occurring pair, with
descriptions), at the default settings (``communities.llm_min_size=10``); the bench reports
the estimate on the other half (passages 0-199). The failure rate is the scripted model's
(it misses the names of 2.5% of those passages, and of none of the generated test corpus). A real model's replies run shorter or longer than the
scripted one's: a knowledge base's own history (:class:`UsageHistory`) replaces every ratio
after its first LLM ingest (the history measures completion per prompt token: its batches
and prompts are the ones the next ingest sends; ``extraction_completion_per_prompt`` here is
only its fallback). ``prompt_reported_per_counted`` relates the provider's prompt counts to
the cl100k count with schema the estimate makes: 1 for a provider that bills like OpenAI; a
knowledge base's history measures it (the llama.cpp server, for one, counts its own tokenizer
and template and not the tool schema, which it turns into a grammar)."""

_HISTORY_FILE = "llm-usage.json"

_TOUCHED_PER_SHARE = 1.5
"""Share of communities re-summarized per share of new chunks (capped at all of them),
measured on musique passages (``bench/llm_cost.py``) and the generated ledger corpus of the
tests: new chunks also change communities of stored ones (upper levels hold many entities)."""


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
        text_tokens: Tokens of those chunks' titles and texts the cache does not answer.
        extraction: Extraction calls and tokens (``cached_calls`` cost nothing).
        summaries: Community-summary calls and tokens.
        basis: ``"priors"`` or ``"history"`` (this knowledge base's past ingests).
        tokenizer: How prompt tokens were counted.
    """

    documents: int = 0
    unchanged: int = 0
    chunks: int = 0
    text_tokens: int = 0
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
    extraction_counted_prompt_tokens: int = 0
    summary_counted_prompt_tokens: int = 0
    extraction_failed_calls: int = 0
    extraction_failed_prompt_tokens: int = 0
    extraction_failed_completion_tokens: int = 0

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
            self.extraction_counted_prompt_tokens += graph.counted_prompt_tokens
            self.extraction_failed_calls += graph.failed_llm_calls
            self.extraction_failed_prompt_tokens += graph.failed_prompt_tokens
            self.extraction_failed_completion_tokens += graph.failed_completion_tokens
            self.extraction_failures += len(graph.failures)
        if comms is not None and graph is not None and graph.extractor == "llm":
            self.summary_calls += comms.llm_calls
            self.summary_prompt_tokens += comms.prompt_tokens
            self.summary_completion_tokens += comms.completion_tokens
            self.summary_counted_prompt_tokens += comms.counted_prompt_tokens

    def save(self, kb_dir: Path) -> None:
        """Write the history into ``kb_dir``."""
        (Path(kb_dir) / _HISTORY_FILE).write_text(self.model_dump_json(indent=1), "utf-8")

    def ratios(self) -> dict[str, float] | None:
        """The ratios of :data:`PRIORS` as measured here, or ``None`` without enough history."""
        if self.extraction_prompt_tokens <= 0 or self.chunks_extracted <= 0:
            return None
        healthy_prompt = self.extraction_prompt_tokens - self.extraction_failed_prompt_tokens
        healthy_completion = (
            self.extraction_completion_tokens - self.extraction_failed_completion_tokens
        )
        ratios = {
            "extraction_completion_per_prompt": (
                healthy_completion / healthy_prompt
                if healthy_prompt > 0
                else self.extraction_completion_tokens / self.extraction_prompt_tokens
            ),
            "summary_calls_per_chunk": self.summary_calls / self.chunks_extracted,
            "extraction_failures_per_chunk": self.extraction_failures / self.chunks_extracted,
        }
        if self.extraction_failed_calls:
            ratios["failed_completion_per_call"] = (
                self.extraction_failed_completion_tokens / self.extraction_failed_calls
            )
        counted = self.extraction_counted_prompt_tokens + self.summary_counted_prompt_tokens
        if counted > 0:
            reported = self.extraction_prompt_tokens
            if self.summary_counted_prompt_tokens:
                reported += self.summary_prompt_tokens
            ratios["prompt_reported_per_counted"] = reported / counted
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
    text_tokens: int | None = None,
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
        text_tokens: Tokens of the titles and texts of the chunks to extract that the cache
            does not answer (what the priors predict completion tokens from); without it,
            completion follows prompt tokens.

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
    failing_calls = failing_prompt = 0.0
    if extraction.calls:
        # Failing chunks cost every attempt, each a call of about one chunk's prompt.
        per_call = extraction.prompt_tokens / extraction.calls
        per_chunk = per_call / max(1.0, (chunks - failed_chunks) / extraction.calls)
        single = single_call_tokens or (
            per_call if extraction.calls >= chunks else per_chunk + 0.7 * (per_call - per_chunk)
        )
        new_failures = (chunks - failed_chunks) * ratios["extraction_failures_per_chunk"]
        # A failure sent alone has its first attempt planned already; one in a batch (the
        # planned calls hold fewer calls than chunks) goes on alone, with every attempt.
        alone_attempts = max_retries if extraction.calls >= chunks else 1 + max_retries
        retries = round((failed_chunks + new_failures) * alone_attempts)
        # The planned first attempts of chunks that failed before fail again, too.
        share = failed_chunks / max(1, chunks - extraction.cached_calls)
        failing_calls = retries + extraction.calls * share
        failing_prompt = retries * single + extraction.prompt_tokens * share
        extraction.calls += retries
        extraction.prompt_tokens += round(retries * single)
    # Counted as cl100k with the schema; the provider's own count may differ.
    scale = ratios["prompt_reported_per_counted"]
    if measured or text_tokens is None:
        healthy = max(0.0, extraction.prompt_tokens - failing_prompt) * scale
        extraction.completion_tokens = round(
            healthy * ratios["extraction_completion_per_prompt"]
            + failing_calls * ratios["failed_completion_per_call"]
        )
    else:
        extraction.completion_tokens = round(
            text_tokens * ratios["extraction_completion_per_text_token"]
        )
    extraction.prompt_tokens = round(extraction.prompt_tokens * scale)
    phase = PhaseEstimate()
    # Chunks answered by the cache, or expected to fail again, change no community.
    fresh = max(0, chunks - extraction.cached_calls - failed_chunks)
    if summaries and extraction.calls and fresh:
        total = stored_chunks + fresh
        touched = min(1.0, _TOUCHED_PER_SHARE * fresh / max(1, total))
        phase.calls = round(total * touched * ratios["summary_calls_per_chunk"])
        phase.prompt_tokens = round(phase.calls * ratios["summary_prompt_per_call"])
        phase.completion_tokens = round(phase.calls * ratios["summary_completion_per_call"])
    return IngestEstimate(
        text_tokens=text_tokens or 0,
        documents=documents,
        unchanged=unchanged,
        chunks=chunks,
        extraction=extraction,
        summaries=phase,
        basis="history" if measured else "priors",
        tokenizer=tokenizer_name(),
    )
