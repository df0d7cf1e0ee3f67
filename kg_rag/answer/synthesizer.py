"""Synthesis: the final answer with ``[n]`` citations mapped to chunk spans.

:class:`ExtractiveSynthesizer` (offline) answers with the final step's answer, or decides a
comparison from the typed plan (the earliest/latest date, the smallest/largest number, yes when
the values agree or every claim was verified), and cites the sentences that hold each step's
answer. :class:`LLMSynthesizer` orders the evidence against "lost in the middle" (best pieces at
both ends), lets the model answer with ``[n]`` markers, checks every citation against its chunk
(unsupported ones are dropped and flagged) and renumbers the rest in order of appearance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from extraction.language import normalize_name, split_sentences
from kg_rag.answer import offline
from kg_rag.answer.prompts import SYNTH_PROMPT
from kg_rag.answer.question import YEAR_QUESTION, date_key, number_value, year_only
from kg_rag.answer.reader import read_evidence
from kg_rag.answer.stages import Run
from kg_rag.answer.trace import Answer, Citation, StepTrace, Trace
from kg_rag.errors import LLMError
from kg_rag.models import Evidence, Plan

__all__ = [
    "ExtractiveSynthesizer",
    "LLMSynthesizer",
    "cite",
    "decide_comparison",
    "order_for_context",
    "renumber_citations",
]

_MARK = re.compile(r"\[(\d+)\]")
_SUPPORT_MIN = 0.3
NOT_FOUND = "No answer found in the knowledge base."
# Nationality and origin words ("American", "French", "Norwegian"): how encyclopedic text
# states what "the same nationality/country" compares.
_DEMONYM = re.compile(r"\b[A-Z][a-z]+(?:an|ian|ese|ish|ic|i|ch)\b")


def order_for_context(evidence: Sequence[Evidence]) -> list[Evidence]:
    """Best evidence at both ends, weakest in the middle (against lost-in-the-middle)."""
    ranked = sorted(evidence, key=lambda e: -e.score)
    front = ranked[0::2]
    back = ranked[1::2]
    return front + back[::-1]


def cite(ev: Evidence, n: int, start: int, end: int, supported: bool = True) -> Citation:
    """Citation ``[n]`` of the span ``start:end`` of ``ev``'s text (offsets in its document)."""
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
    for s, e in split_sentences(ev.text):
        if s <= pos < e:
            return s, e
    return None


def _same(a: str, b: str) -> bool:
    na, nb = normalize_name(a), normalize_name(b)
    return bool(na) and bool(nb) and (na == nb or na in nb or nb in na)


def _first_sentence_demonyms(st: StepTrace, option: str) -> set[str]:
    """Origin words in the first sentence of the best evidence about ``option``."""
    for ev in st.hits[:3]:
        if option and option.split()[0] not in ev.text:
            continue
        spans = split_sentences(ev.text)
        if spans:
            s, e = spans[0]
            words = set(_DEMONYM.findall(ev.text[s:e]))
            return {w for w in words if w not in option}
    return set()


def _said_together(st: StepTrace, value: str, name: str) -> bool:
    """Whether the step's best evidence places the value it found inside ``name``: "born in
    Bergen, Norway" (or "Bergen in Norway", "槐阴县棠浦镇") answers "Was X born in Norway?"
    with Bergen."""
    if not value or not name or name in value:
        return False
    forms = (f"{value}, {name}", f"{value} in {name}", f"{value} ({name}", f"{name}{value}")
    return any(form in ev.text for ev in st.hits[:3] for form in forms)


def decide_comparison(plan: Plan, steps: Sequence[StepTrace]) -> tuple[str, str] | None:
    """(answer, reason) for a comparison or yes/no plan; None when the values do not decide."""
    comp = plan.comparison
    if comp is None:
        return None
    by_index = {st.index: st for st in steps}
    values = [by_index[i].answer if i in by_index else "" for i in comp.value_steps]
    if comp.order == "all":
        ok = bool(values) and all(v.lower() == "yes" for v in values)
        return ("yes" if ok else "no"), (
            "every claim is supported" if ok else "a claim is not supported"
        )
    if comp.order == "equal":
        if not values:
            return None
        # A value not found leaves the claim unsupported: "no", as for ``all``.
        ok = all(
            v and (_same(v, comp.threshold) or _said_together(by_index[i], v, comp.threshold))
            for i, v in zip(comp.value_steps, values, strict=True)
        )
        seen = " and ".join(v or "nothing" for v in values)
        return ("yes" if ok else "no"), (
            f"{seen} {'name' if ok else 'do not all name'} {comp.threshold}"
        )
    if comp.order == "same":
        if len(values) == 2 and all(values):
            if _same(values[0], values[1]):
                return "yes", f"both: {values[0]}"
            a = _first_sentence_demonyms(by_index[comp.value_steps[0]], comp.options[0])
            b = _first_sentence_demonyms(by_index[comp.value_steps[1]], comp.options[1])
            if a & b:
                return "yes", f"both: {', '.join(sorted(a & b))}"
            return "no", f"{values[0]} vs {values[1]}"
        return None
    if comp.order in ("gt", "lt"):
        if not values or not values[0]:
            return None
        # Without a threshold the second option's value is the bar: "Was A founded before B?"
        bar = comp.threshold or (values[1] if len(values) > 1 else "")
        found, limit = _comparable(values[0]), _comparable(bar)
        if found is None or limit is None or found[1] != limit[1]:
            return None
        if comp.factor != 1.0 and not comp.threshold:
            if found[1] != "number":
                return None  # "twice as …" scales a quantity, never a date
            limit = (limit[0] * comp.factor, limit[1])
            bar = f"{comp.factor:g} × {bar}"
        above = found[0] > limit[0]
        ok = above if comp.order == "gt" else found[0] < limit[0]
        relation = "above" if above else ("equal to" if found[0] == limit[0] else "below")
        return ("yes" if ok else "no"), f"{values[0]} is {relation} {bar}"
    read = [(c, i) for i, value in enumerate(values) if value and (c := _comparable(value))]
    if len({kind for (_, kind), _ in read}) > 1:
        # "$210 million" beside "$14.5 million": what one reads as a year the other shows to
        # be an amount; both are compared as numbers
        numbers = [(number_value(values[i]), i) for _, i in read]
        read = [((n, "number"), i) for n, i in numbers if n is not None]
    keyed: list[tuple[Any, int]] = [
        (key if kind == "date" else (key, 0, 0), i) for (key, kind), i in read
    ]
    if len(keyed) < 2:
        return None
    keyed.sort()
    winner = keyed[0][1] if comp.order == "min" else keyed[-1][1]
    option = comp.options[winner]
    if re.match(r"^\s*(?:who|whom)\b", plan.question, re.IGNORECASE):
        # "Who died first, the director of X or the director of Y?": the person, not the phrase.
        planned = {s.index: s for s in plan.steps}.get(comp.value_steps[winner])
        deps = planned.depends_on if planned is not None else []
        bridge = [by_index[d].answer for d in deps if d in by_index]
        if bridge and bridge[0]:
            option = bridge[0]
    pretty = ", ".join(f"{comp.options[i]}: {values[i]}" for _, i in keyed)
    return option, f"{'smallest' if comp.order == 'min' else 'largest'} value ({pretty})"


def _comparable(text: str) -> tuple[Any, str] | None:
    """(sortable key, "date" | "number") of a value or threshold."""
    key = date_key(text)
    if (
        key is not None
        and key[0] != 0
        and (key[1] or key[2] or re.search(r"年|\b1\d{3}\b|\b20\d{2}\b", text))
    ) and not re.search(
        r"\d[\d,]*\s*(?:km|kilomet|metre|meter|mile|million|billion|thousand|万|亿|人|公里|米)"
        r"|[$£€¥]\s?\d",
        text,
    ):
        return key, "date"
    number = number_value(text)
    return None if number is None else (number, "number")


class ExtractiveSynthesizer:
    """The offline synthesizer (see the module docstring)."""

    name = "extractive"

    def __init__(self, graph_view: Any = None) -> None:
        self.graph_view = graph_view

    async def asynthesize(
        self,
        question: str,
        plan: Plan,
        steps: Sequence[StepTrace],
        evidence: Sequence[Evidence],
        run: Run | None = None,
    ) -> Answer:
        """The extractive answer."""
        return self.synthesize(question, plan, steps, list(evidence[:10]))

    def synthesize(
        self, question: str, plan: Plan, steps: Sequence[StepTrace], evidence: list[Evidence]
    ) -> Answer:
        citations: list[Citation] = []
        refs: list[int] = []
        for st in steps:
            if not st.answer or st.answer.lower() in ("yes", "no"):
                continue
            if st.decision.route == "community":  # cite the communities the findings came from
                for ev in st.hits[:3]:
                    citations.append(cite(ev, len(citations) + 1, 0, len(ev.text)))
                    refs.append(len(citations))
                continue
            for ev in st.hits:
                span = _sentence_with(ev, st.answer)
                if span is not None:
                    citations.append(cite(ev, len(citations) + 1, *span))
                    refs.append(len(citations))
                    break
        final = steps[-1] if steps else None
        text, note = "", ""
        if plan.comparison is not None:
            decided = decide_comparison(plan, steps)
            if decided is not None:
                text, why = decided
                note = f" ({why})"
        elif final is not None and final.answer:
            text = final.answer
        if not text and plan.comparison is None:
            best, _ = read_evidence(
                question,
                plan.answer_type,
                evidence,
                final.linked_refs() if final else [],
                self.graph_view,
            )
            if best is not None:
                text = best.text
                ev = evidence[best.evidence_index]
                citations.append(cite(ev, len(citations) + 1, *best.sentence))
                refs.append(len(citations))
        if plan.comparison is None and YEAR_QUESTION.search(question):
            text = year_only(text)  # "In what year …": the step read the full date
        short = text
        if not text:
            text = NOT_FOUND
        marks = "".join(f"[{n}]" for n in sorted(set(refs)))
        chain = [
            st.answer for st in steps[:-1] if st.answer and st.answer.lower() not in ("yes", "no")
        ]
        via = f" (via {' → '.join(chain)})" if chain and plan.strategy == "bridge" else ""
        community = final is not None and final.decision.route == "community"
        conflicts = (
            _offline_conflicts(final, plan, self.graph_view) if final and not community else []
        )
        return Answer(
            question=question,
            text=f"{text}{note} {marks}{via}".strip(),
            short_answer=short,
            citations=citations,
            evidence=evidence,
            trace=Trace(question=question),
            conflicts=conflicts,
        )


def _offline_conflicts(final: StepTrace, plan: Plan, graph_view: Any) -> list[str]:
    """Different answers from different documents with nearly equal support."""
    if final.answer_type == "YESNO" or plan.comparison is not None:
        return []
    found: list[tuple[float, str, str]] = []
    for ev in final.hits[:3]:
        best, _ = read_evidence(
            final.bound_query,
            final.answer_type,  # type: ignore[arg-type]
            [ev],
            final.linked_refs(),
            None,
        )
        if best is not None:
            found.append((best.score, best.text, ev.doc_id))
    found.sort(reverse=True)
    if len(found) >= 2:
        (s1, a1, d1), (s2, a2, d2) = found[0], found[1]
        if d1 != d2 and not _same(a1, a2) and s2 >= 0.9 * s1:
            return [f"'{a1}' ({d1}) vs '{a2}' ({d2}) for: {final.bound_query}"]
    return []


def _supported(sentence: str, ev: Evidence) -> bool:
    terms = set(offline.query_terms(_MARK.sub("", sentence)))
    if not terms:
        return True
    found = set(offline.query_terms(ev.text)) & terms
    return len(found) / len(terms) >= _SUPPORT_MIN


def renumber_citations(
    raw: str, evidence: Sequence[Evidence]
) -> tuple[str, list[Citation], list[int]]:
    """Keep the ``[n]`` markers of ``raw`` whose evidence supports their sentence, renumbered
    1, 2, ... in order of first appearance (one pass per sentence, so markers out of order —
    "A [2] and B [1]" — map correctly); returns (text, citations, dropped numbers)."""
    citations: list[Citation] = []
    unsupported: list[int] = []
    renumber: dict[int, int] = {}
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?。！？])\s+", raw.strip()):

        def sub(m: re.Match[str], sentence: str = sentence) -> str:
            n = int(m.group(1))
            if not 1 <= n <= len(evidence) or not _supported(sentence, evidence[n - 1]):
                unsupported.append(n)
                return ""
            if n not in renumber:
                renumber[n] = len(renumber) + 1
                ev = evidence[n - 1]
                citations.append(cite(ev, renumber[n], 0, len(ev.text)))
            return f"[{renumber[n]}]"

        out.append(_MARK.sub(sub, sentence))
    text = re.sub(r"\s+", " ", " ".join(out)).strip()
    text = re.sub(r"\s+([.,;:!?。，])", r"\1", text)
    return text, citations, sorted(set(unsupported))


class LLMSynthesizer:
    """Writes the answer with the model; every citation is checked against its chunk."""

    name = "llm"

    async def asynthesize(
        self,
        question: str,
        plan: Plan,
        steps: Sequence[StepTrace],
        evidence: Sequence[Evidence],
        run: Run,
    ) -> Answer:
        """One text call; a reply with no supported citation is an error (so the extractive
        synthesizer answers and the fallback is recorded)."""
        ordered = order_for_context(list(evidence[:10]))
        if not ordered:
            raise LLMError("synthesize: no evidence")
        listing = "\n".join(
            f"[{i + 1}] ({e.source or e.doc_id}) {e.text[:900]}" for i, e in enumerate(ordered)
        )
        findings = "; ".join(f"{st.bound_query} → {st.answer}" for st in steps if st.answer) or "-"
        raw = await run.caller.text(
            SYNTH_PROMPT.format(question=question, findings=findings, evidence=listing),
            purpose="synthesize",
        )
        text, citations, unsupported = renumber_citations(raw, ordered)
        if not citations:
            raise LLMError("synthesize: the reply cites no supporting evidence")
        conflicts = [
            s
            for s in re.split(r"(?<=[.!?。！？])\s+", text)
            if re.search(r"\b(conflict|contradict|disagree)", s, re.I)
        ]
        final = steps[-1].answer if steps else ""
        return Answer(
            question=question,
            text=text,
            short_answer=final or _MARK.sub("", text.split(". ")[0]).strip(),
            citations=citations,
            evidence=list(evidence[:10]),
            trace=Trace(question=question),
            conflicts=conflicts,
            unsupported_citations=unsupported,
        )
