"""What an answer carries: citations, per-step traces, and renderings (text, JSON, HTML,
and a Neo4j Browser query that draws the evidence subgraph)."""

from __future__ import annotations

import html
import json
from typing import Any

from pydantic import BaseModel, Field

from kg_rag.models import Evidence, Plan, RouteDecision

__all__ = ["Answer", "Citation", "CypherCall", "Grade", "StageFallback", "StepTrace", "Trace"]


class CypherCall(BaseModel):
    """A graph query a step ran (or, on the embedded store, the equivalent Neo4j query)."""

    name: str
    cypher: str
    params: dict[str, Any] = Field(default_factory=dict)
    rows: int = 0
    ms: float = 0.0
    backend: str = "embedded"


class Grade(BaseModel):
    """How well a step's evidence covers its query."""

    score: float
    passed: bool
    reason: str = ""
    grader: str = "lexical"


class StageFallback(BaseModel):
    """An LLM stage that failed (or was skipped) and was answered by its offline method."""

    stage: str
    error: str
    message: str = ""


class StepTrace(BaseModel):
    """Everything one step did."""

    index: int
    query: str
    bound_query: str
    decision: RouteDecision
    attempts: list[str] = Field(default_factory=list)
    rewrites: list[str] = Field(default_factory=list)
    linked_entities: list[dict[str, Any]] = Field(default_factory=list)
    cypher: list[CypherCall] = Field(default_factory=list)
    hits: list[Evidence] = Field(default_factory=list)
    grades: list[Grade] = Field(default_factory=list)
    answer: str = ""
    answer_entity_id: str | None = None
    answer_type: str = "NAME"
    reader: str = ""
    ms: float = 0.0

    def linked_refs(self) -> list[dict[str, Any]]:
        """The entities linked in this step's text (id, name, type, span, weight)."""
        return list(self.linked_entities)


class Trace(BaseModel):
    """The full trace of one question."""

    question: str
    plan: Plan | None = None
    steps: list[StepTrace] = Field(default_factory=list)
    whole_question: StepTrace | None = None
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: float = 0.0
    truncated: bool = False
    notes: list[str] = Field(default_factory=list)
    fallbacks: list[StageFallback] = Field(default_factory=list)
    gate: dict[str, Any] = Field(default_factory=dict)
    reflection: dict[str, Any] = Field(default_factory=dict)
    stages: dict[str, str] = Field(default_factory=dict)
    calls_by_stage: dict[str, int] = Field(default_factory=dict)


class Citation(BaseModel):
    """``[n]`` in the answer text maps to this chunk span."""

    n: int
    chunk_id: str
    doc_id: str
    source: str = ""
    char_start: int
    char_end: int
    quote: str
    supported: bool = True


class Answer(BaseModel):
    """A cited answer with its evidence and trace."""

    question: str
    text: str
    short_answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    trace: Trace
    truncated: bool = False
    conflicts: list[str] = Field(default_factory=list)
    unsupported_citations: list[int] = Field(default_factory=list)

    # -- renderings -------------------------------------------------------------------
    def to_json(self, indent: int = 2) -> str:
        """The answer, citations, evidence and trace as JSON."""
        return self.model_dump_json(indent=indent)

    def render_text(self) -> str:
        """A readable multi-line summary for terminals."""
        lines = [
            f"Q: {self.question}",
            f"A: {self.text}" + ("  (truncated)" if self.truncated else ""),
        ]
        whole = self.trace.whole_question
        if whole is not None:
            lines.append(
                f"  whole question: [{whole.decision.route}/{whole.decision.granularity}] "
                f"{len(whole.hits)} hits, {len(whole.linked_entities)} entities linked"
            )
        for step in self.trace.steps:
            lines.append(
                f"  step {step.index}: [{step.decision.route}/{step.decision.granularity}] "
                f"{step.bound_query} -> {step.answer or '?'}  ({step.decision.reason})"
            )
        for c in self.citations:
            mark = "" if c.supported else " (unsupported)"
            quote = c.quote if len(c.quote) <= 120 else c.quote[:117] + "..."
            lines.append(
                f"  [{c.n}] {c.source or c.doc_id} @{c.char_start}-{c.char_end}{mark}: {quote}"
            )
        for conflict in self.conflicts:
            lines.append(f"  conflict: {conflict}")
        for fb in self.trace.fallbacks:
            lines.append(f"  fallback: {fb.stage} ({fb.error}: {fb.message[:100]})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render_text()

    def browser_query(self) -> str:
        """Cypher for Neo4j Browser that draws this answer's evidence subgraph.

        The result starts with ``:param`` lines (paste the whole text into the Browser) and
        matches the evidence chunks, the entities they mention, the step answers' entities,
        and the relations among those entities.
        """
        chunk_ids = sorted(
            {e.chunk_id for e in self.evidence if e.route != "community"}
            | {c.chunk_id for c in self.citations if not c.doc_id.startswith("community:")}
        )
        entity_ids = sorted(
            {eid for e in self.evidence for eid in e.entity_ids}
            | {s.answer_entity_id for s in self.trace.steps if s.answer_entity_id}
            | {str(le["entity_id"]) for s in self.trace.steps for le in s.linked_entities}
        )
        return (
            f":param chunkIds => {json.dumps(chunk_ids)};\n"
            f":param entityIds => {json.dumps(entity_ids)};\n"
            "MATCH (c:Chunk) WHERE c.chunk_id IN $chunkIds\n"
            "OPTIONAL MATCH (d:Document)-[h:HAS_CHUNK]->(c)\n"
            "OPTIONAL MATCH (c)-[m:MENTIONS]->(e:Entity) WHERE e.entity_id IN $entityIds\n"
            "WITH collect(DISTINCT c) + collect(DISTINCT d) + collect(DISTINCT e) AS ns,\n"
            "     collect(DISTINCT h) + collect(DISTINCT m) AS rs\n"
            "OPTIONAL MATCH (x:Entity) WHERE x.entity_id IN $entityIds\n"
            "WITH ns, rs, collect(DISTINCT x) AS xs\n"
            "WITH ns + xs AS ns, rs\n"
            "OPTIONAL MATCH (a:Entity)-[r:RELATED]->(b:Entity)\n"
            "  WHERE a.entity_id IN $entityIds AND b.entity_id IN $entityIds\n"
            "WITH ns, rs, collect(DISTINCT r) AS related\n"
            "RETURN ns AS nodes, rs + related AS relationships"
        )

    def _repr_html_(self) -> str:
        esc = html.escape
        rows = []
        whole = [self.trace.whole_question] if self.trace.whole_question is not None else []
        for s in [*whole, *self.trace.steps]:
            grade = s.grades[-1].score if s.grades else float("nan")
            cypher = "<br>".join(
                f"<code>{esc(c.cypher)}</code> <small>{esc(json.dumps(c.params, default=str)[:200])}</small>"
                for c in s.cypher
            )
            rows.append(
                "<tr>"
                f"<td>{s.index}</td><td>{esc(s.bound_query)}</td>"
                f"<td><b>{esc(s.decision.route)}</b>/{esc(s.decision.granularity)}<br>"
                f"<small>{esc(s.decision.reason)}</small></td>"
                f"<td>{esc(' → '.join(s.rewrites) or '-')}</td>"
                f"<td>{grade:.2f}</td><td>{esc(s.answer or '?')}</td>"
                f"<td>{len(s.hits)}</td><td>{cypher or '-'}</td><td>{s.ms:.0f}</td>"
                "</tr>"
            )
        cites = "".join(
            f"<li>[{c.n}] <i>{esc(c.source or c.doc_id)}</i> {c.char_start}–{c.char_end}"
            f"{'' if c.supported else ' <b>(unsupported)</b>'}: {esc(c.quote[:200])}</li>"
            for c in self.citations
        )
        t = self.trace
        return (
            f"<div><p><b>Q:</b> {esc(self.question)}</p>"
            f"<p><b>A:</b> {esc(self.text)}{' <i>(truncated)</i>' if self.truncated else ''}</p>"
            "<table><thead><tr><th>#</th><th>query</th><th>route</th><th>rewrites</th>"
            "<th>grade</th><th>answer</th><th>hits</th><th>cypher</th><th>ms</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table><ol style='list-style:none'>{cites}</ol>"
            + "".join(
                f"<p><b>fallback</b> {esc(f.stage)}: {esc(f.error)} {esc(f.message[:200])}</p>"
                for f in t.fallbacks
            )
            + f"<p><small>{t.llm_calls} LLM calls, {t.prompt_tokens}+{t.completion_tokens} tokens, "
            f"{t.ms:.0f} ms</small></p></div>"
        )
