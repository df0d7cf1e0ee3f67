"""Rescoring candidate evidence before the budget cut: which sentence of a piece matters, and
which pieces come first.

:class:`SentenceFocus` (offline) searches the sentences of the candidate documents with every
query a question produced (the question and each step's bound query) and marks, in each
candidate piece, its best-matching sentence (``hit_start``/``hit_end``, replacing the sentence
a step's small-to-big search found it by), how many sentence hits
it holds (``hit_count``), the best sentence score (``focus``; a sentence naming a step's answer
scores one more) and how many of the steps' answers the piece names (``answers``).
:func:`kg_rag.retrieval.packing.pack_evidence` hands the marked sentence instead of its whole
paragraph for the pieces it skims.

The same pass reranks (graph-aware in the sense that the steps' resolved entities vote): a
piece's place is its fused rank blended by reciprocal-rank fusion with its rank by (answers
named, best sentence), so a paragraph that names a bridge entity, or whose one sentence answers
a step, moves up even when the paragraph as a whole matched weakly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kg_rag.models import Evidence
from kg_rag.retrieval.fusion import WHOLE_RRF_K

__all__ = ["RERANK_PROMPT_VERSION", "LLMListwiseReranker", "SentenceFocus"]

_RRF_K = WHOLE_RRF_K
"""The whole-question fusion's k (kg_rag/retrieval/fusion.py): the first ranks of each order
decide."""


def _spans(ev: Evidence) -> bool:
    return ev.char_end > ev.char_start and len(ev.text) == ev.char_end - ev.char_start


class SentenceFocus:
    """Offline sentence-level focus and rerank over candidate evidence.

    Args:
        store: The chunk store (its sentence chunks are searched, restricted to the candidate
            documents).
        per_query: Sentence hits taken per query.
        rerank: Also reorder the pieces (fused rank blended with their best sentence's rank).
    """

    def __init__(self, store: Any, per_query: int = 40, rerank: bool = True) -> None:
        self.store = store
        self.per_query = per_query
        self.rerank = rerank

    def annotate(
        self,
        evidence: Sequence[Evidence],
        queries: Sequence[str],
        answers: Sequence[str] = (),
    ) -> list[Evidence]:
        """``evidence`` with focus marks (and reranked when ``rerank``).

        Args:
            evidence: Candidate evidence, best first.
            queries: The queries whose sentences matter (question, step queries).
            answers: Step answers: a sentence of a piece that names one is a hit.
        """
        pieces = [e for e in evidence if _spans(e)]
        if not pieces:
            return list(evidence)
        doc_ids = sorted({e.doc_id for e in pieces})
        sentences: dict[str, tuple[str, int, int, str, float]] = {}
        for query in dict.fromkeys(q for q in queries if q.strip()):
            hits = self.store.search(
                query, mode="hybrid", level="sentence", top_k=self.per_query, doc_ids=doc_ids
            )
            for h in hits:
                c = h.chunk
                old = sentences.get(c.chunk_id)
                if old is None or old[4] < h.score:
                    sentences[c.chunk_id] = (c.doc_id, c.char_start, c.char_end, c.text, h.score)
        patterns = [
            re.compile(r"(?<!\w)" + re.escape(a.strip()) + r"(?!\w)", re.IGNORECASE)
            for a in dict.fromkeys(answers)
            if len(a.strip()) > 1
        ]
        by_doc: dict[str, list[tuple[int, int, str, float]]] = {}
        for doc_id, start, end, text, score in sentences.values():
            bonus = 1.0 if any(p.search(text) for p in patterns) else 0.0
            by_doc.setdefault(doc_id, []).append((start, end, text, score + bonus))
        out: list[Evidence] = []
        for ev in evidence:
            inside = [
                s
                for s in by_doc.get(ev.doc_id, [])
                if _spans(ev) and ev.char_start <= s[0] and s[1] <= ev.char_end
            ]
            named = sum(1 for p in patterns if p.search(ev.text))
            if not inside and not named:
                out.append(ev)
                continue
            scores = dict(ev.scores)
            scores["answers"] = float(named)
            scores["focus"] = 0.0
            if inside:
                best = max(inside, key=lambda s: (s[3], -s[0]))
                scores["focus"] = round(best[3], 6)
                scores["hit_count"] = float(len(inside))
                # The best sentence for every query (naming a step's answer first) replaces the
                # small-to-big hit of the one step that found the piece: chosen on the dev half
                # of bench/granularity.py (engine_routed evidence recall@512 .827 → .838).
                scores["hit_start"] = float(best[0])
                scores["hit_end"] = float(best[1])
            out.append(ev.model_copy(update={"scores": scores}))
        if not self.rerank:
            return out
        # A piece naming more of the steps' answers (a bridge entity is named in the passage
        # that answers a step and in the one the next step reads) ranks first, then by its
        # best sentence.
        by_focus = sorted(
            (i for i, e in enumerate(out) if "focus" in e.scores),
            key=lambda i: (-out[i].scores["answers"], -out[i].scores["focus"], i),
        )
        focus_rank = {i: r for r, i in enumerate(by_focus)}
        fused = {
            i: 1.0 / (_RRF_K + i + 1)
            + (1.0 / (_RRF_K + focus_rank[i] + 1) if i in focus_rank else 0.0)
            for i in range(len(out))
        }
        return [out[i] for i in sorted(fused, key=lambda i: (-fused[i], i))]


RERANK_PROMPT_VERSION = "listwise-rerank-v1"
_NUMBER = re.compile(r"\d+")


class LLMListwiseReranker:
    """Listwise rerank of the head of the candidate list by a chat model.

    The model sees the question, its step queries and the first ``window`` pieces (numbered,
    each cut to ``chars`` characters) and answers their numbers, most useful first (``3 > 1 >
    2``). Pieces it does not name keep their order after those it names; a reply without a
    usable number keeps the order, and the reason is returned. One call per question: not
    wired into :class:`~kg_rag.answer.pipeline.AnswerPipeline`, whose LLM cost is capped at
    ``steps + 2`` calls; callers that can afford the call apply it to
    :meth:`~kg_rag.answer.pipeline.AnswerPipeline.answer_context` before packing.

    Args:
        model: A LangChain chat model.
        window: How many of the first pieces the model reorders.
        chars: Characters of each piece shown.
    """

    def __init__(self, model: Any, window: int = 20, chars: int = 300) -> None:
        self.model = model
        self.window = window
        self.chars = chars

    def prompt(self, question: str, steps: Sequence[str], evidence: Sequence[Evidence]) -> str:
        """The rerank prompt (version :data:`RERANK_PROMPT_VERSION`)."""
        lines = [
            f"[{RERANK_PROMPT_VERSION}] Rank the passages by how much they help answer the "
            "question (every step). Reply with passage numbers only, most useful first, "
            "separated by '>'.",
            f"Question: {question}",
        ]
        lines += [f"Step {i + 1}: {s}" for i, s in enumerate(steps)]
        for i, ev in enumerate(evidence[: self.window]):
            lines.append(f"[{i + 1}] {' '.join(ev.text.split())[: self.chars]}")
        return "\n".join(lines)

    def parse(self, reply: str, n: int) -> list[int] | None:
        """Zero-based piece indexes in the model's order (unknown and repeated numbers
        dropped); ``None`` when the reply names none of the ``n`` pieces."""
        order = list(dict.fromkeys(int(m) - 1 for m in _NUMBER.findall(reply)))
        order = [i for i in order if 0 <= i < n]
        return order or None

    def rerank(
        self, question: str, steps: Sequence[str], evidence: Sequence[Evidence]
    ) -> tuple[list[Evidence], str | None]:
        """``evidence`` with its head reordered, and why it was kept as it was (or None)."""
        head = list(evidence[: self.window])
        if len(head) < 2:
            return list(evidence), None
        try:
            reply = self.model.invoke(self.prompt(question, steps, head))
        except Exception as exc:  # the order without the model is still a good order
            return list(evidence), f"rerank call failed: {exc}"
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        order = self.parse(text, len(head))
        if order is None:
            return list(evidence), f"rerank reply named no passage: {text[:80]!r}"
        named = set(order)
        ranked = [head[i] for i in order] + [e for i, e in enumerate(head) if i not in named]
        return ranked + list(evidence[self.window :]), None
