"""Synthesis: the final answer with ``[n]`` citations mapped to chunk spans.

Offline, the answer is extractive: the final step's answer span (or, for comparisons, the
option that wins on the compared value), cited at the sentences that contain each step's
answer. With a chat model, evidence is ordered against "lost in the middle" (best pieces at
the start and the end), the model answers with ``[n]`` markers, and every citation is checked
against its chunk: unsupported ones are dropped and flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kg_rag.answer import offline
from kg_rag.answer.prompts import SYNTH_PROMPT
from kg_rag.answer.trace import Answer, Citation, StepTrace, Trace
from kg_rag.errors import LLMError
from kg_rag.models import Evidence, Plan

__all__ = ["order_for_context", "synthesize"]

_MARK = re.compile(r"\[(\d+)\]")
_SUPPORT_MIN = 0.3


def order_for_context(evidence: Sequence[Evidence]) -> list[Evidence]:
    """Best evidence at both ends, weakest in the middle (against lost-in-the-middle)."""
    ranked = sorted(evidence, key=lambda e: -e.score)
    front = ranked[0::2]
    back = ranked[1::2]
    return front + back[::-1]


def _cite(ev: Evidence, n: int, start: int, end: int, supported: bool = True) -> Citation:
    return Citation(
        n=n,
        chunk_id=ev.chunk_id,
        doc_id=ev.doc_id,
        source=ev.source,
        char_start=ev.char_start + start,
        char_end=ev.char_start + end,
        quote=ev.text[start:end],
        supported=supported,
    )


def _sentence_with(ev: Evidence, needle: str) -> tuple[int, int] | None:
    pos = ev.text.find(needle)
    if pos < 0:
        return None
    for s, e in offline.split_sentences_with_offsets(ev.text):
        if s <= pos < e:
            return s, e
    return None


def _option_names(plan: Plan) -> list[str]:
    return [
        s.needs.removeprefix("facts about ").strip()
        for s in plan.steps
        if s.needs.startswith("facts about ")
    ]


async def synthesize(
    question: str,
    plan: Plan,
    steps: Sequence[StepTrace],
    evidence: Sequence[Evidence],
    caller: Any | None,
    linker: Any | None,
) -> Answer:
    """Build the cited :class:`Answer` (the caller fills in the trace's totals)."""
    top = list(evidence[:10])
    if caller is not None and top:
        try:
            return await _llm_answer(question, steps, top, caller)
        except LLMError:
            pass
    return _extractive_answer(question, plan, steps, top, linker)


def _extractive_answer(
    question: str,
    plan: Plan,
    steps: Sequence[StepTrace],
    evidence: list[Evidence],
    linker: Any | None,
) -> Answer:
    citations: list[Citation] = []
    markers: dict[int, list[int]] = {}  # step index → citation numbers
    for st in steps:
        if not st.answer:
            continue
        if st.decision.route == "community":  # cite the communities the findings came from
            for ev in st.hits[:3]:
                citations.append(_cite(ev, len(citations) + 1, 0, len(ev.text)))
                markers.setdefault(st.index, []).append(len(citations))
            continue
        for ev in st.hits:
            span = _sentence_with(ev, st.answer)
            if span is not None:
                citations.append(_cite(ev, len(citations) + 1, *span))
                markers.setdefault(st.index, []).append(len(citations))
                break
    final = steps[-1] if steps else None
    text = final.answer if final and final.answer else ""
    note = ""
    if plan.strategy == "compare":
        names = _option_names(plan)
        options = [(n, st.answer) for n, st in zip(names, steps, strict=False) if st.answer]
        decided = offline.compare_answers(question, options)
        if decided is not None:
            text, why = decided
            note = f" ({why})"
    if not text:
        names_map = linker.names() if linker is not None else {}
        found = offline.extract_answer(question, evidence, names_map)
        if found is not None:
            text = found.text
            ev = evidence[found.evidence_index]
            citations.append(_cite(ev, len(citations) + 1, *found.sentence))
            markers.setdefault(0, []).append(len(citations))
    if not text:
        text = "No answer found in the knowledge base."
    refs = "".join(f"[{n}]" for n in sorted({n for ns in markers.values() for n in ns}))
    chain = [st.answer for st in steps[:-1] if st.answer]
    via = f" (via {' → '.join(chain)})" if chain and plan.strategy == "bridge" else ""
    community = final is not None and final.decision.route == "community"
    conflicts = _offline_conflicts(final, linker) if final and not community else []
    return Answer(
        question=question,
        text=f"{text}{note} {refs}{via}".strip(),
        citations=citations,
        evidence=evidence,
        trace=Trace(question=question),
        conflicts=conflicts,
    )


def _offline_conflicts(final: StepTrace, linker: Any | None) -> list[str]:
    """Different answers from different documents with nearly equal support."""
    names = linker.names() if linker is not None else {}
    found: list[tuple[float, str, str]] = []
    for ev in final.hits[:3]:
        span = offline.extract_answer(final.bound_query, [ev], names)
        if span is not None:
            found.append((span.score, span.text, ev.doc_id))
    found.sort(reverse=True)
    if len(found) >= 2:
        (s1, a1, d1), (s2, a2, d2) = found[0], found[1]
        if d1 != d2 and a1.lower() != a2.lower() and s2 >= 0.9 * s1:
            return [f"'{a1}' ({d1}) vs '{a2}' ({d2}) for: {final.bound_query}"]
    return []


def _supported(sentence: str, ev: Evidence) -> bool:
    terms = set(offline.query_terms(_MARK.sub("", sentence)))
    if not terms:
        return True
    found = set(offline.query_terms(ev.text)) & terms
    return len(found) / len(terms) >= _SUPPORT_MIN


async def _llm_answer(
    question: str, steps: Sequence[StepTrace], evidence: list[Evidence], caller: Any
) -> Answer:
    ordered = order_for_context(evidence)
    listing = "\n".join(
        f"[{i + 1}] ({e.source or e.doc_id}) {e.text[:900]}" for i, e in enumerate(ordered)
    )
    findings = "; ".join(f"{st.bound_query} → {st.answer}" for st in steps if st.answer) or "-"
    raw = await caller.text(
        SYNTH_PROMPT.format(question=question, findings=findings, evidence=listing),
        purpose="synthesize",
    )
    citations: list[Citation] = []
    unsupported: list[int] = []
    renumber: dict[int, int] = {}
    out_sentences: list[str] = []
    for sentence in re.split(r"(?<=[.!?。！？])\s+", raw.strip()):
        kept = sentence
        for m in _MARK.finditer(sentence):
            n = int(m.group(1))
            if not 1 <= n <= len(ordered) or not _supported(sentence, ordered[n - 1]):
                unsupported.append(n)
                kept = kept.replace(m.group(0), "")
                continue
            if n not in renumber:
                renumber[n] = len(renumber) + 1
                ev = ordered[n - 1]
                citations.append(_cite(ev, renumber[n], 0, len(ev.text)))
            kept = kept.replace(m.group(0), f"[[{renumber[n]}]]")
        out_sentences.append(kept)
    text = " ".join(out_sentences).replace("[[", "[").replace("]]", "]")
    conflicts = [
        s for s in out_sentences if re.search(r"\b(conflict|contradict|disagree)", s, re.I)
    ]
    return Answer(
        question=question,
        text=re.sub(r"\s+", " ", text).strip(),
        citations=citations,
        evidence=evidence,
        trace=Trace(question=question),
        conflicts=conflicts,
        unsupported_citations=sorted(set(unsupported)),
    )
