"""Planners turn a question into reasoning steps.

:class:`RulePlanner` works offline: it splits comparisons ("A or B", "both"), conjunctions of
two questions, and nested bridge questions ("the X that/which/where ...", "X's Y") into steps
whose later queries carry ``#n`` placeholders for earlier answers. :class:`LLMPlanner` asks a
chat model for the same typed :class:`~kg_rag.models.Plan` and falls back to the rules.
"""

from __future__ import annotations

import logging
import re
from typing import Protocol

from kg_rag.models import Plan, PlanStep

__all__ = ["Planner", "RulePlanner", "bind_query"]

log = logging.getLogger(__name__)

_REL = r"(?:that|which|who|whose|where|when|whom)"
_COMPARE = re.compile(
    r"^(?P<pre>.*?)(?:,\s*|\s+)(?P<a>[^,?]+?)\s+or\s+(?P<b>[^,?]+?)\??$", re.IGNORECASE
)
_COMPARE_CUES = re.compile(
    r"\b(first|earlier|later|older|younger|longer|shorter|bigger|larger|smaller|more|less|"
    r"higher|lower|closer|farther|which|who)\b",
    re.IGNORECASE,
)
_BOTH = re.compile(
    r"^(?:are|were|is|was|do|did|does)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+both\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_CONJ = re.compile(
    r"^(?P<q1>(?:who|what|when|where|which|how)\b.+?)\s*,?\s+and\s+(?P<q2>(?:who|what|when|where|which|how)\b.+)$",
    re.IGNORECASE,
)
_ZH_COMPARE = re.compile(r"^(?P<a>.+?)(?:和|与|还是)(?P<b>.+?)(?:哪个|谁|哪一个)(?P<rest>.*)$")
_ZH_BRIDGE = re.compile(
    r"^(?P<owner>[\u4e00-\u9fffA-Za-z0-9·]{2,20}?)的"
    r"(?P<role>创始人|创办人|首席执行官|总裁|董事长|作者|导演|总部|父亲|母亲|妻子|丈夫|首都|所在地)"
    r"(?P<rest>.+)$"
)
_PLACEHOLDER = re.compile(r"#(\d+)")
_PRONOUN = re.compile(r"\b(it|he|she|they|him|her|them)\b", re.IGNORECASE)
_MAX_BRIDGES = 3


class Planner(Protocol):
    """Anything that turns a question into a :class:`Plan`."""

    async def aplan(self, question: str) -> Plan:
        """Plan ``question``."""
        ...


def bind_query(query: str, answers: dict[int, str]) -> str:
    """Replace ``#n`` placeholders with the answers of earlier steps (unknown ones stay)."""
    return _PLACEHOLDER.sub(lambda m: answers.get(int(m.group(1)), m.group(0)), query)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ,?？")


class RulePlanner:
    """Deterministic planning from the question's surface form (English and Chinese)."""

    name = "rules"

    async def aplan(self, question: str) -> Plan:
        """Plan ``question`` (async face of :meth:`plan`)."""
        return self.plan(question)

    def plan(self, question: str) -> Plan:
        """Split ``question`` into steps."""
        q = _clean(question)
        for strategy in (self._compare, self._both, self._conjunction, self._bridge):
            plan = strategy(q, question)
            if plan is not None:
                return plan
        return Plan(question=question, steps=[PlanStep(index=1, query=q)], strategy="single")

    # -- strategies -------------------------------------------------------------------
    def _compare(self, q: str, question: str) -> Plan | None:
        m = _ZH_COMPARE.match(q)
        if m:
            a, b, rest = _clean(m["a"]), _clean(m["b"]), _clean(m["rest"])
            return self._two_lookups(question, a, b, f"{a} {rest}", f"{b} {rest}")
        m = _COMPARE.match(q)
        if not m or not _COMPARE_CUES.search(m["pre"] or ""):
            return None
        a, b = _clean(m["a"]), _clean(m["b"])
        if not a or not b or len(a.split()) > 12 or len(b.split()) > 12:
            return None
        pre = _clean(re.sub(r"^(which|who)\s+", "", m["pre"], flags=re.IGNORECASE))
        wh = _compare_wh(pre)
        return self._two_lookups(question, a, b, f"{wh} {a} {pre}", f"{wh} {b} {pre}")

    def _both(self, q: str, question: str) -> Plan | None:
        m = _BOTH.match(q)
        if not m:
            return None
        a, b, rest = _clean(m["a"]), _clean(m["b"]), _clean(m["rest"])
        return self._two_lookups(question, a, b, f"{a} {rest}", f"{b} {rest}")

    @staticmethod
    def _two_lookups(question: str, a: str, b: str, qa: str, qb: str) -> Plan:
        steps = [
            PlanStep(index=1, query=_clean(qa), needs=f"facts about {a}"),
            PlanStep(index=2, query=_clean(qb), needs=f"facts about {b}"),
            PlanStep(
                index=3,
                query=_clean(question),
                needs="compare the two answers",
                depends_on=[1, 2],
                kind="compare",
            ),
        ]
        return Plan(question=question, steps=steps, strategy="compare")

    def _conjunction(self, q: str, question: str) -> Plan | None:
        m = _CONJ.match(q)
        if not m:
            return None
        q2 = _PRONOUN.sub("#1", _clean(m["q2"]), count=1)
        steps = [
            PlanStep(index=1, query=_clean(m["q1"])),
            PlanStep(index=2, query=q2, depends_on=[1] if "#1" in q2 else []),
        ]
        return Plan(question=question, steps=steps, strategy="conjunction")

    def _bridge(self, q: str, question: str) -> Plan | None:
        steps: list[PlanStep] = []
        m = _ZH_BRIDGE.match(q)
        if m:
            steps.append(
                PlanStep(
                    index=1, query=f"{m['owner']}的{m['role']}", needs=m["role"], kind="bridge"
                )
            )
            rest = _clean(f"#1{m['rest']}")
            steps.append(PlanStep(index=2, query=rest, needs="the final answer", depends_on=[1]))
            return Plan(question=question, steps=steps, strategy="bridge")
        final = _decompose(q, steps)
        if not steps:
            return None
        last = len(steps)
        steps.append(
            PlanStep(
                index=last + 1,
                query=_clean(final),
                needs="the final answer",
                depends_on=_deps(final),
                kind="lookup",
            )
        )
        return Plan(question=question, steps=steps, strategy="bridge")


_DET_WINDOW = 5
_REL_WORD = re.compile(rf"\b{_REL}\b", re.IGNORECASE)
_DET_WORD = re.compile(r"\b(the|a|an)\s", re.IGNORECASE)
_NAME = r"(?:[A-Z0-9][\w\-.]*)(?:(?:\s+|,\s*)(?:(?:of|the|and|de|von|van|du|la|le|for|in|on|No|a)\s+)*[A-Z0-9][\w\-.]*)*"
_OF_NAME = re.compile(
    rf"\bthe\s+(?P<noun>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}})\s+of\s+(?P<name>{_NAME}|#\d+)"
)
_POSS = re.compile(rf"(?P<owner>{_NAME})'s\s+(?P<noun>[a-z][\w\-]*)")


def _compare_wh(cue_text: str) -> str:
    """The question word that asks for the compared value: a date or a quantity."""
    if re.search(
        r"\b(first|earlier|later|older|younger|before|after|recent)\b", cue_text, re.IGNORECASE
    ):
        return "When"
    if re.search(
        r"\b(more|less|larger|bigger|smaller|longer|shorter|higher|lower|taller)\b",
        cue_text,
        re.IGNORECASE,
    ):
        return "How many"
    return ""


def _deps(query: str) -> list[int]:
    return sorted({int(n) for n in _PLACEHOLDER.findall(query)})


def _find_bridge(text: str) -> tuple[int, int, str, str] | None:
    """The innermost bridge in ``text``: (start, end, step query, head noun), or None."""
    for rel in reversed(list(_REL_WORD.finditer(text))):
        before = text[: rel.start()]
        dets = list(_DET_WORD.finditer(before))
        if not dets:
            continue
        det = dets[-1]
        head = before[det.end() :].strip(" ,")
        if det.start() == 0 or not head[:1].islower() or len(head.split()) > _DET_WINDOW:
            continue
        clause_end = len(text)
        clause = _clean(text[rel.end() : clause_end])
        if len(clause.split()) < 2:
            continue
        return det.start(), clause_end, _clean(f"{head} {rel.group(0)} {clause}"), head
    m = _POSS.search(text)
    if m and m.start() > 0:
        owner, noun = _clean(m["owner"]), _clean(m["noun"])
        return m.start(), m.end(), f"{noun} of {owner}", noun
    m = _OF_NAME.search(text)
    # "the X of Y" closing the question is the question itself ("Who is the father of Y?"),
    # unless Y is an earlier answer and a real question precedes it ("In which province is
    # the headquarters of #1" → "headquarters of #1", then "In which province is #2").
    closes = m is not None and m.end() >= len(text.rstrip(" ?"))
    if m and closes and m["name"].startswith("#") and len(text[: m.start()].split()) >= 3:
        closes = False
    if m and m.start() > 0 and not closes:
        noun, name = _clean(m["noun"]), _clean(m["name"])
        return m.start(), m.end(), f"{noun} of {name}", noun
    return None


def _decompose(text: str, steps: list[PlanStep], depth: int = 0) -> str:
    """Append the bridge steps of ``text`` to ``steps``; return ``text`` with ``#n``."""
    if len(steps) >= _MAX_BRIDGES or depth > 2 * _MAX_BRIDGES:
        return text
    found = _find_bridge(text)
    if found is None:
        return text
    start, end, step_query, head = found
    inner = _decompose(step_query, steps, depth + 1)
    if len(steps) >= _MAX_BRIDGES + 1:
        return text
    index = len(steps) + 1
    steps.append(
        PlanStep(
            index=index,
            query=_clean(inner),
            needs=f"the {head}",
            depends_on=_deps(inner),
            kind="bridge",
        )
    )
    outer = _clean(text[:start] + f" #{index} " + text[end:])
    return _decompose(outer, steps, depth + 1)
