"""The offline retrieval gate and the offline reflector.

:class:`RuleGate` answers, without the knowledge base, messages that need none: greetings and
thanks, arithmetic (evaluated safely), and questions about the conversation itself (kg-rag
keeps no conversation history, and says so). Everything else goes to the knowledge base.

:class:`OfflineReflector` checks the final answer: it must occur in the evidence it cites (or,
for a decided comparison, be one of the options; for a yes/no question, be yes or no), and it
must be of the kind the question asks for (a date for "when", a number for "how many", not a
name the question already gives).
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

from extraction.language import HAN, normalize_name
from kg_rag.answer.question import DATE_RX
from kg_rag.answer.stages import GateDecision, Reflection
from kg_rag.answer.trace import Answer
from kg_rag.models import Plan

__all__ = ["OfflineReflector", "RuleGate", "safe_arithmetic"]

_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|thx|bye|goodbye|"
    r"你好|您好|嗨|谢谢|多谢|再见|早上好|晚上好)[\s!.,，。！~]*(?:there|you|kg-rag)?[\s!.,，。！~]*$",
    re.IGNORECASE,
)
_CONVERSATION = re.compile(
    r"\b(?:what (?:did|was) (?:i|my) (?:just )?(?:ask|say|question)|my (?:last|previous) "
    r"question|what have we (?:talked|discussed)|repeat (?:my|the) (?:last )?question)\b|"
    r"我(?:刚才|之前|上一个)(?:问|说)了?什么|我的上一个问题",
    re.IGNORECASE,
)
_ARITH = re.compile(
    r"^\s*(?:what\s+is|what's|compute|calculate|计算)?\s*(?P<expr>[\d\s.+\-*/()×÷^%]+?)\s*"
    r"(?:=|等于(?:多少|几)?)?\s*[?？]?\s*$",
    re.IGNORECASE,
)
_OPS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def safe_arithmetic(expr: str) -> float | None:
    """The value of a plain arithmetic expression, or None (no names, no calls, small powers)."""
    expr = expr.replace("×", "*").replace("÷", "/").replace("^", "**")
    if not re.search(r"\d\s*[-+*/%]", expr):
        return None
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise ValueError("power too large")
            return float(_OPS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return float(_OPS[type(node.op)](ev(node.operand)))
        raise ValueError("not arithmetic")

    try:
        return ev(tree)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


class RuleGate:
    """Offline retrieval gate (see the module docstring)."""

    name = "rules"

    async def agate(self, question: str, run: Any = None) -> GateDecision:
        """Gate ``question``."""
        return self.gate(question)

    def gate(self, question: str) -> GateDecision:
        """Decide whether ``question`` needs the knowledge base."""
        zh = bool(re.search(rf"[{HAN}]", question))
        if _GREETING.match(question):
            reply = (
                "你好！请问关于知识库有什么问题？" if zh else "Hello! Ask me about your documents."
            )
            return GateDecision(needs_kb=False, reason="greeting", reply=reply)
        m = _ARITH.match(question)
        if m:
            value = safe_arithmetic(m["expr"])
            if value is not None:
                shown = f"{value:g}" if value != int(value) else str(int(value))
                return GateDecision(needs_kb=False, reason="arithmetic", reply=shown)
        if _CONVERSATION.search(question):
            reply = (
                "我不保存对话记录：每个问题都单独回答。"
                if zh
                else "kg-rag keeps no conversation history: each question is answered on its own."
            )
            return GateDecision(needs_kb=False, reason="about the conversation", reply=reply)
        return GateDecision(needs_kb=True, reason="asks for facts")


def _kind_ok(short: str, plan: Plan) -> tuple[bool, str]:
    kind = plan.answer_type
    if kind == "YESNO":
        return short.lower() in ("yes", "no"), "a yes/no question needs yes or no"
    if kind == "DATE":
        return bool(DATE_RX.search(short)), "a 'when' question needs a date"
    if kind == "NUMBER":
        return bool(re.search(r"\d|[一二三四五六七八九十百千万亿两]", short)), "needs a number"
    if kind in ("PERSON", "LOCATION", "ORGANIZATION") and DATE_RX.fullmatch(short.strip()):
        return False, f"a {kind.lower()} question got a date"
    norm = normalize_name(short)
    if norm and norm == normalize_name(plan.question):
        return False, "the answer repeats the question"
    return True, ""


class OfflineReflector:
    """Offline check of the final answer (see the module docstring)."""

    name = "offline"

    async def areflect(
        self, question: str, plan: Plan, answer: Answer, run: Any = None
    ) -> Reflection:
        """Check ``answer``."""
        short = answer.short_answer.strip()
        if not short:
            return Reflection(supported=False, answers_question=False, reason="no answer")
        if plan.comparison is not None:
            options = [normalize_name(o) for o in plan.comparison.options]
            ok = short.lower() in ("yes", "no") or any(
                o and (o in normalize_name(short) or normalize_name(short) in o) for o in options
            )
            decided = bool(plan.comparison.value_steps)
            return Reflection(
                supported=decided,
                answers_question=ok or bool(answer.citations),
                reason="decided from the compared values" if ok else "answer is not an option",
            )
        quotes = [c.quote for c in answer.citations] + [e.text for e in answer.evidence[:10]]
        supported = any(short in q for q in quotes)
        fits, why = _kind_ok(short, plan)
        reason = "answer found in its evidence" if supported else "answer not in its evidence"
        return Reflection(
            supported=supported,
            answers_question=fits,
            reason=reason if fits else f"{reason}; {why}",
        )
