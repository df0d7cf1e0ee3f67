"""Deterministic, non-LLM answering pieces: content terms and stems, lexical grading, the
offline query rewriter, sentence offsets. The step reader lives in :mod:`kg_rag.answer.reader`,
comparisons in :mod:`kg_rag.answer.synthesizer`."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from extraction.language import ENGLISH_STOPWORDS, HAN
from kg_rag.answer.trace import Grade
from kg_rag.models import Evidence

__all__ = [
    "OfflineRewriter",
    "grade_evidence",
    "query_terms",
    "rewrite_query",
]

# Query terms drop the closed-class words, and also quantifiers, polarity words and the frame
# nouns of a question ("what kind of", "the name of") that say nothing about its content.
_STOP = ENGLISH_STOPWORDS | frozenset(
    [
        "him",
        "not",
        "no",
        "yes",
        "also",
        "about",
        "after",
        "before",
        "during",
        "another",
        "any",
        "many",
        "much",
        "other",
        "same",
        "some",
        "first",
        "kind",
        "type",
        "name",
        "named",
    ]
)
_WORD = re.compile(f"[A-Za-z0-9][A-Za-z0-9'\\-.]*|[{HAN}]+")
_CJK = re.compile(f"[{HAN}]")


# Phrasal verbs that say what one verb of the irregular table says (a closed class): "set up"
# is founding, "take over" buying, "pass away" dying, "shut down" closing.
_PHRASAL = (
    (re.compile(r"\b(?:set|sets|setting)\s+(?:it\s+|them\s+)?up\b", re.IGNORECASE), "founded"),
    (re.compile(r"\b(?:took|take|takes|taken|taking)\s+over\b", re.IGNORECASE), "bought"),
    (re.compile(r"\b(?:passed|pass|passes|passing)\s+away\b", re.IGNORECASE), "died"),
    (
        re.compile(r"\b(?:shut|shuts|shutting|closed|close|closes)\s+down\b", re.IGNORECASE),
        "closed",
    ),
)


def with_phrasal(text: str) -> str:
    """``text`` with the verb each phrasal verb means written after it ("was set up founded"):
    the words stay too, so "set up" matches "set up" best."""
    for rx, verb in _PHRASAL:
        if rx.search(text):
            text = rx.sub(rf"\g<0> {verb}", text)
    return text


def query_terms(text: str) -> list[str]:
    """Content terms of ``text``: lower-cased words without stop words; CJK via jieba; a
    phrasal verb as the verb it means (:data:`_PHRASAL`)."""
    text = with_phrasal(text)
    if not _CJK.search(text):  # no Han character: no word needs the segmenter
        return [
            low
            for tok in _WORD.findall(text)
            if (low := tok.lower().strip(".'-")) and low not in _STOP
        ]
    terms: list[str] = []
    for tok in _WORD.findall(text):
        if _CJK.match(tok):
            import jieba

            terms.extend(w for w in jieba.lcut(tok) if len(w) > 1 or _CJK.match(w))
        else:
            low = tok.lower().strip(".'-")
            if low and low not in _STOP:
                terms.append(low)
    return terms


# English irregular verb forms → a shared stem, and the agent/noun forms and the near-synonyms
# that name the same event ("birth" for born, "death" for died, "established" for founded,
# "acquired" for bought): a closed class of the language.
_IRREGULAR_FORMS = {
    "arose arisen arise": "arise",
    "awoke awoken awake": "awake",
    "bore borne bear": "bear",
    "beat beaten": "beat",
    "became become becomes": "become",
    "began begun begin": "begin",
    "bent bend": "bend",
    "bit bitten bite": "bite",
    "blew blown blow": "blow",
    "broke broken break": "break",
    "brought bring": "bring",
    "built build builder": "build",
    "bought buy buyer buyers acquired acquire acquires acquirer acquisition purchased purchase "
    "purchaser": "buy",
    "caught catch": "catch",
    "chose chosen choose": "choose",
    "came come": "come",
    "dealt deal": "deal",
    "dug dig": "dig",
    "drew drawn draw": "draw",
    "drove driven drive driver": "drive",
    "ate eaten eat": "eat",
    "fell fallen fall": "fall",
    "fed feed": "feed",
    "felt feel": "feel",
    "fought fight fighter": "fight",
    "found founded founder founders founding established establish establishes cofounded "
    "co-founded cofounder co-founder opened open opens opening": "found",
    "flew flown fly": "fly",
    "forgot forgotten forget": "forget",
    "froze frozen freeze": "freeze",
    "got gotten get": "get",
    "gave given give": "give",
    "went gone go goes": "go",
    "grew grown grow": "grow",
    "hung hang": "hang",
    "heard hear": "hear",
    "held hold": "hold",
    "hid hidden hide": "hide",
    "kept keep": "keep",
    "knew known know": "know",
    "laid lay": "lay",
    "led lead leader": "lead",
    "left leave leaves": "leav",
    "lent lend": "lend",
    "lost lose": "lose",
    "made make maker": "make",
    "meant mean": "mean",
    "met meet": "meet",
    "paid pay": "pay",
    "ran run runner": "run",
    "rode ridden ride": "ride",
    "rose risen rise": "rise",
    "said say": "say",
    "saw seen see": "see",
    "sold sell seller": "sell",
    "sent send": "send",
    "set": "set",
    "shot shoot": "shoot",
    "shut": "shut",
    "sang sung sing singer": "sing",
    "sank sunk sink": "sink",
    "sat sit": "sit",
    "slept sleep": "sleep",
    "spoke spoken speak speaker": "speak",
    "spent spend": "spend",
    "stood stand": "stand",
    "stole stolen steal": "steal",
    "struck strike": "strike",
    "swore sworn swear": "swear",
    "swam swum swim swimmer": "swim",
    "took taken take": "take",
    "taught teach teacher": "teach",
    "tore torn tear": "tear",
    "told tell": "tell",
    "thought think": "think",
    "threw thrown throw": "throw",
    "understood understand": "understand",
    "woke woken wake": "wake",
    "wore worn wear": "wear",
    "won win winner": "win",
    "wrote written write writer": "writ",
    "born birth birthplace birthday": "birth",
    "died dead death die dies": "death",
    "married marry marriage wife husband spouse": "marri",
    "headquartered headquarters headquarter based": "headquarter",
}
_IRREGULAR = {form: stem for forms, stem in _IRREGULAR_FORMS.items() for form in forms.split()}
# An irregular participle's simple past: the entry's first form when the participle is its
# second ("written" → "wrote", "taken" → "took").
_PAST_OF_PARTICIPLE = {
    forms.split()[1]: forms.split()[0]
    for forms in _IRREGULAR_FORMS
    if len(forms.split()) > 1 and not forms.split()[1].endswith("ed")
}


def past_of_participle(participle: str) -> str:
    """The simple past that goes with ``participle`` in the active voice: "written" →
    "wrote", "ordered" → "ordered", "built" → "built"."""
    return _PAST_OF_PARTICIPLE.get(participle.lower(), participle)


# The first form of each entry: the simple past ("became", "won", "wrote"), or for the few
# entries without one the form that stands for it ("born", "headquartered").
IRREGULAR_PAST = frozenset(forms.split()[0] for forms in _IRREGULAR_FORMS)


@functools.lru_cache(maxsize=65536)
def _stem(term: str) -> str:
    if term in _IRREGULAR:
        return _IRREGULAR[term]
    for suffix in ("ing", "ed", "es", "s"):
        if len(term) > len(suffix) + 3 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def _term_set(text: str) -> set[str]:
    return set(_terms_of(text))


@functools.lru_cache(maxsize=32768)
def _terms_of(text: str) -> frozenset[str]:
    """Stemmed content terms of ``text``, computed once per text (sentences recur across
    steps, retries and questions)."""
    return frozenset(_stem(t) for t in query_terms(text))


def grade_evidence(
    query: str, evidence: Sequence[Evidence], threshold: float, top: int = 3
) -> Grade:
    """Lexical + semantic coverage of the query's terms by the top evidence.

    The score mixes the share of query terms found in the best ``top`` pieces of evidence and
    the best dense similarity reported by the search (when present).
    """
    terms = _term_set(query)
    if not evidence:
        return Grade(score=0.0, passed=False, reason="no evidence", grader="lexical")
    best = sorted(evidence, key=lambda e: -e.score)[:top]
    seen: set[str] = set()
    for e in best:
        seen |= _term_set(e.text) & terms
    coverage = len(seen) / len(terms) if terms else 1.0
    dense = max((e.scores.get("dense", 0.0) for e in best), default=0.0)
    score = 0.7 * coverage + 0.3 * max(0.0, min(1.0, dense))
    missing = sorted(terms - seen)[:6]
    reason = f"{len(seen)}/{len(terms)} query terms covered" + (
        f"; missing {', '.join(missing)}" if missing else ""
    )
    return Grade(score=round(score, 4), passed=score >= threshold, reason=reason, grader="lexical")


def rewrite_query(query: str, names: Sequence[str], attempt: int) -> str:
    """Offline rewrite: keep content terms, add linked entity names and aliases.

    Attempt 1 adds names; later attempts drop the least informative half of the terms.
    """
    terms = query_terms(query)
    if attempt > 1 and len(terms) > 3:
        terms = sorted(terms, key=len, reverse=True)[: max(3, len(terms) // 2)]
    extra = [n for n in names if n.lower() not in query.lower()]
    return " ".join([*extra, *terms]).strip() or query


class OfflineRewriter:
    """Rewrites a weak step's query without a model: content terms plus the linked names."""

    name = "offline"

    async def arewrite(
        self, ctx: Any, query: str, evidence: Sequence[Evidence], attempt: int, run: Any = None
    ) -> str:
        """See :func:`rewrite_query`."""
        return rewrite_query(query, [le.name for le in ctx.linked], attempt)
