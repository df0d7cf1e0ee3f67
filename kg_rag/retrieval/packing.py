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

With routed granularity (``sentence_share``) the unit is chosen per piece, by rank: the best
pieces are read whole, the next ones are skimmed (their hit sentence only, a few times cheaper
than the paragraph) so that the budget reaches further down the ranking, and skimmed sentences
are widened back to their paragraph while room is left.

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

__all__ = ["STEP_WEIGHT", "answer_context", "context_tokens", "focus_span", "pack_evidence"]

STEP_WEIGHT = 0.7
"""Weight of a step's hits against the whole-question ranking (1.0) in :func:`answer_context`."""


def answer_context(
    whole: Sequence[Evidence],
    steps: Sequence[Sequence[Evidence]],
    *,
    step_weight: float = STEP_WEIGHT,
    k: int = 60,
) -> list[Evidence]:
    """The ranked evidence the answer model is handed before packing: the whole-question
    ranking and each step's hits fused by weighted reciprocal rank (``k`` as in
    :func:`~kg_rag.retrieval.fusion.rrf`; a small ``k`` lets each step's first hits in
    before the whole-question list's tail)."""
    return rrf([(whole, 1.0)] + [(hits, step_weight) for hits in steps], k)


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
    level: str = ""
    """The unit handed over when it is not the evidence's own level (a hit sentence)."""

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


class _Packer:
    """Taken spans and the tokens they use; :meth:`add` merges a piece with what overlaps it."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.taken: list[_Span] = []
        self.used = 0

    def cost(self, piece: _Span) -> tuple[int, list[int], _Span]:
        """New tokens the piece would add, the taken spans it merges with, the merged span."""
        merged_with: list[int] = []
        union = piece
        if piece.spans:
            for i, old in enumerate(self.taken):
                if old.spans and old.ev.doc_id == piece.ev.doc_id:
                    joined = _union(old, union)
                    if joined is not None:
                        merged_with.append(i)
                        union = joined
        before = sum(self.taken[i].tokens() for i in merged_with)
        return count_tokens(union.text) - before, merged_with, union

    def add(self, piece: _Span, *, cut: bool) -> str:
        """Take ``piece``: ``"inside"`` (nothing new), ``"taken"``, ``"cut"`` (cut to the
        rest of the budget) or ``"full"`` (does not fit and was not cut)."""
        if not piece.text.strip():
            return "inside"
        cost, merged_with, union = self.cost(piece)
        if cost <= 0:
            return "inside"
        if self.used + cost > self.budget:
            if merged_with or not cut:
                return "full"
            part = _cut(piece, self.budget - self.used)
            if part is None:
                return "full"
            self.taken.append(part)
            self.used += part.tokens()
            return "cut"
        if merged_with:
            # The merged span takes the place of the best piece it absorbed.
            keep = min(merged_with)
            base = self.taken[keep]
            union = _Span(base.ev, union.start, union.end, union.text, True)
            for i in sorted(merged_with, reverse=True):
                del self.taken[i]
            self.taken.insert(keep, union)
        else:
            self.taken.append(piece)
        self.used += cost
        return "taken"

    def result(self) -> list[Evidence]:
        out = []
        for s in self.taken:
            if s.spans:
                update: dict[str, object] = {
                    "text": s.text,
                    "char_start": s.start,
                    "char_end": s.end,
                }
                if s.level:
                    update["level"] = s.level
                out.append(s.ev.model_copy(update=update))
            else:
                out.append(
                    s.ev if s.text == s.ev.text else s.ev.model_copy(update={"text": s.text})
                )
        return out


def _piece(ev: Evidence) -> _Span:
    return _Span(ev, ev.char_start, ev.char_end, ev.text, _has_span(ev))


def focus_span(ev: Evidence) -> tuple[int, int] | None:
    """The hit sentence inside ``ev`` (``hit_start``/``hit_end`` in its scores), if any."""
    if "hit_start" not in ev.scores or not _has_span(ev):
        return None
    start, end = int(ev.scores["hit_start"]), int(ev.scores.get("hit_end", 0))
    if ev.char_start <= start < end <= ev.char_end:
        return start, end
    return None


def _focus_piece(ev: Evidence) -> _Span | None:
    span = focus_span(ev)
    if span is None:
        return None
    a, b = span[0] - ev.char_start, span[1] - ev.char_start
    return _Span(
        ev, span[0], span[1], ev.text[a:b], True, "sentence" if (a, b) != (0, len(ev.text)) else ""
    )


def _take_within(packer: _Packer, piece: _Span, limit: float) -> str:
    """Take ``piece`` whole when its new tokens fit under ``limit`` (``"full"`` otherwise)."""
    cost, _, _ = packer.cost(piece)
    if cost <= 0:
        return "inside"
    if packer.used + cost > limit:
        return "full"
    return packer.add(piece, cut=False)


def pack_evidence(
    evidence: Sequence[Evidence], budget: int, *, sentence_share: float | None = None
) -> list[Evidence]:
    """The pieces handed to the answer model within ``budget`` tokens.

    With ``sentence_share`` set, the unit handed over is chosen per piece (routed
    granularity), the way a reader studies the best passages and skims the rest:

    1. *read*: pieces are taken whole, best first, until ``1 - sentence_share`` of the budget
       is spent or the next piece does not fit in it (that piece is skimmed, not passed over
       for smaller ones ranked below it);
    2. *skim*: from the first piece not read on, each further piece hands only its hit
       sentence (``hit_start``/``hit_end``), so the rest of the budget reaches several times
       as many pieces down the ranking (a piece without a hit sentence is taken whole when it
       fits);
    3. *widen*: budget still left widens the skimmed sentences to their whole piece, best
       first.

    Without it every piece is handed whole, best first, the last one cut at the budget.

    Args:
        evidence: Candidate evidence, best first.
        budget: Token budget for the evidence texts (:func:`kg_rag.text.count_tokens`).
        sentence_share: Share of the budget kept for the skimmed pieces' hit sentences
            (None: whole pieces).

    Returns:
        Evidence; whole pieces best first, then the skimmed ones. Merged pieces keep the
        first (best) piece's id and score, and a cut piece or a sentence its id with the span
        that was kept. Total tokens never exceed ``budget``.
    """
    packer = _Packer(budget)
    if sentence_share is None:
        for ev in evidence:
            if packer.used >= budget or packer.add(_piece(ev), cut=True) in ("cut", "full"):
                break
        return packer.result()
    head = budget * (1.0 - min(1.0, max(0.0, sentence_share)))
    skim_from = len(evidence)
    for i, ev in enumerate(evidence):
        if packer.used >= head:
            skim_from = i
            break
        if _take_within(packer, _piece(ev), head) == "full":
            # A piece too long for what is left of the read share is skimmed (and widened
            # when room is left) rather than passed over for smaller pieces ranked below it:
            # chosen on the dev half of bench/granularity.py (engine_routed evidence
            # recall@256 .705 → .766, the other budgets unchanged or up).
            skim_from = i
            break
    skimmed: list[Evidence] = []
    for i in range(skim_from, len(evidence)):
        if packer.used >= budget:
            break
        ev = evidence[i]
        sentence = _focus_piece(ev)
        if sentence is None:
            packer.add(_piece(ev), cut=False)
        elif packer.add(sentence, cut=False) != "full":
            skimmed.append(ev)
    for ev in skimmed:
        if packer.used >= budget:
            break
        packer.add(_piece(ev), cut=False)
    return packer.result()
