"""Packing evidence into the answer model's context: ranked pieces in, a token budget out.

:func:`answer_context` is the ranked candidate list the answer model is given (the
whole-question ranking fused with every step's hits); :func:`pack_evidence` takes pieces best
first until a token budget is spent:

* a piece that lies inside one already taken (a paragraph inside a taken section, a sentence's
  paragraph taken twice) costs nothing and adds nothing;
* a piece that overlaps or contains taken pieces of the same document is merged with them into
  one span, and only its new tokens are paid for (the budget is never spent twice on a text);
* the piece that crosses the budget is cut to what is left: around its hit sentence when it is
  a small-to-big expansion (the sentence that matched is what must survive), else its start.

Pure functions over :class:`~kg_rag.models.Evidence`; an evidence ``text`` must be the slice
``[char_start:char_end]`` of its document for spans to merge (chunks are); pieces that are not
(community summaries) are taken whole or cut, never merged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kg_rag.models import Evidence
from kg_rag.retrieval.fusion import rrf
from kg_rag.text import count_tokens, token_spans

__all__ = ["STEP_WEIGHT", "answer_context", "context_tokens", "pack_evidence"]

STEP_WEIGHT = 0.7
"""Weight of a step's hits against the whole-question ranking (1.0) in :func:`answer_context`."""


def answer_context(
    whole: Sequence[Evidence],
    steps: Sequence[Sequence[Evidence]],
    *,
    step_weight: float = STEP_WEIGHT,
) -> list[Evidence]:
    """The ranked evidence the answer model is handed before packing: the whole-question
    ranking and each step's hits fused by weighted reciprocal rank."""
    return rrf([(whole, 1.0)] + [(hits, step_weight) for hits in steps])


def context_tokens(evidence: Sequence[Evidence]) -> int:
    """Tokens of the evidence texts (:func:`kg_rag.text.count_tokens`)."""
    return sum(count_tokens(e.text) for e in evidence)


@dataclass
class _Span:
    ev: Evidence
    start: int
    end: int
    text: str
    spans: bool

    def tokens(self) -> int:
        return count_tokens(self.text)


def _has_span(ev: Evidence) -> bool:
    return ev.char_end > ev.char_start and len(ev.text) == ev.char_end - ev.char_start


def _union(a: _Span, b: _Span) -> _Span | None:
    """One span covering two overlapping or touching spans of a document (None when apart)."""
    if b.start > a.end or a.start > b.end:
        return None
    first, second = (a, b) if a.start <= b.start else (b, a)
    if second.end <= first.end:
        return _Span(first.ev, first.start, first.end, first.text, True)
    text = first.text + second.text[first.end - second.start :]
    return _Span(first.ev, first.start, second.end, text, True)


def _cut(piece: _Span, tokens: int) -> _Span | None:
    """``piece`` cut to ``tokens`` whole tokens: a window around its hit sentence when it has
    one (``hit_start``/``hit_end`` in its scores), else its first tokens."""
    spans = token_spans(piece.text)
    if tokens <= 0 or not spans:
        return None
    if len(spans) <= tokens:
        return piece
    first = 0
    hit = piece.ev.scores
    if piece.spans and "hit_start" in hit:
        rel = int(hit["hit_start"]) - piece.start
        inside = [i for i, (s, _) in enumerate(spans) if s >= rel]
        if inside:
            hit_len = sum(
                1 for s, e in spans if s >= rel and e <= int(hit.get("hit_end", 0)) - piece.start
            )
            # Centre the window on the hit sentence (the sentence first when it is longer).
            first = max(0, inside[0] - max(0, (tokens - hit_len) // 2))
            first = min(first, len(spans) - tokens)
    last = first + tokens - 1
    a, b = spans[first][0], spans[last][1]
    return _Span(piece.ev, piece.start + a, piece.start + b, piece.text[a:b], piece.spans)


def pack_evidence(evidence: Sequence[Evidence], budget: int) -> list[Evidence]:
    """The pieces handed to the answer model within ``budget`` tokens, in rank order.

    Args:
        evidence: Candidate evidence, best first.
        budget: Token budget for the evidence texts (:func:`kg_rag.text.count_tokens`).

    Returns:
        Evidence, best first; merged pieces keep the first (best) piece's id and score, and a
        cut piece its id with the span that was kept. Total tokens never exceed ``budget``.
    """
    taken: list[_Span] = []
    used = 0
    for ev in evidence:
        if used >= budget:
            break
        piece = _Span(ev, ev.char_start, ev.char_end, ev.text, _has_span(ev))
        if not piece.text.strip():
            continue
        merged_with: list[int] = []
        union = piece
        if piece.spans:
            for i, old in enumerate(taken):
                if old.spans and old.ev.doc_id == ev.doc_id:
                    joined = _union(old, union)
                    if joined is not None:
                        merged_with.append(i)
                        union = joined
        before = sum(taken[i].tokens() for i in merged_with)
        cost = count_tokens(union.text) - before
        if cost <= 0:
            continue  # inside what is taken already
        if used + cost > budget:
            if merged_with:
                # Only whole new text is worth a cut merge; keep what is taken.
                break
            cut = _cut(piece, budget - used)
            if cut is not None:
                taken.append(cut)
                used += cut.tokens()
            break
        if merged_with:
            # The merged span takes the place of the best piece it absorbed.
            keep = min(merged_with)
            base = taken[keep]
            union = _Span(base.ev, union.start, union.end, union.text, True)
            for i in sorted(merged_with, reverse=True):
                del taken[i]
            taken.insert(keep, union)
        else:
            taken.append(piece)
        used += cost
    out = []
    for s in taken:
        if s.spans:
            out.append(
                s.ev.model_copy(update={"text": s.text, "char_start": s.start, "char_end": s.end})
            )
        else:
            out.append(s.ev if s.text == s.ev.text else s.ev.model_copy(update={"text": s.text}))
    return out
