"""Rescoring candidate evidence before the budget cut: which sentence of a piece matters, and
which pieces come first.

:class:`SentenceFocus` (offline) searches the sentences of the candidate documents with every
query a question produced (the question and each step's bound query) and marks, in each
candidate piece, its best-matching sentence (``hit_start``/``hit_end``), how many sentence hits
it holds (``hit_count``) and the best sentence score (``focus``). Sentences that hold a step's
answer count as hits of that step. :func:`kg_rag.retrieval.packing.pack_evidence` uses the marks
to hand a hit sentence instead of its whole paragraph when the budget is tight, and to widen
where hits cluster.

The same pass reranks: a piece's place is its fused rank blended with the rank of its best
sentence (reciprocal-rank fusion of the two orders), so a paragraph whose one sentence answers
a step moves up even when the paragraph as a whole matched weakly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kg_rag.models import Evidence

__all__ = ["SentenceFocus"]

_RRF_K = 60


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
            if not inside:
                out.append(ev)
                continue
            best = max(inside, key=lambda s: (s[3], -s[0]))
            scores = dict(ev.scores)
            scores["focus"] = round(best[3], 6)
            scores["hit_count"] = float(len(inside))
            if "hit_start" not in scores:
                scores["hit_start"] = float(best[0])
                scores["hit_end"] = float(best[1])
            out.append(ev.model_copy(update={"scores": scores}))
        if not self.rerank:
            return out
        by_focus = sorted(
            (i for i, e in enumerate(out) if "focus" in e.scores),
            key=lambda i: (-out[i].scores["focus"], i),
        )
        focus_rank = {i: r for r, i in enumerate(by_focus)}
        fused = {
            i: 1.0 / (_RRF_K + i + 1)
            + (1.0 / (_RRF_K + focus_rank[i] + 1) if i in focus_rank else 0.0)
            for i in range(len(out))
        }
        return [out[i] for i in sorted(fused, key=lambda i: (-fused[i], i))]
