"""Deterministic, non-LLM answering pieces: lexical grading, query rewriting, step-answer
span extraction, and comparison of step answers. Used offline and as LLM fallbacks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kg_rag.answer.trace import Grade
from kg_rag.models import Evidence

__all__ = [
    "AnswerSpan",
    "compare_answers",
    "extract_answer",
    "grade_evidence",
    "query_terms",
    "rewrite_query",
    "split_sentences_with_offsets",
]

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "as",
        "into",
        "than",
        "then",
        "there",
        "their",
        "they",
        "he",
        "she",
        "his",
        "her",
        "him",
        "them",
        "we",
        "you",
        "i",
        "me",
        "my",
        "our",
        "your",
        "not",
        "no",
        "yes",
        "many",
        "much",
        "first",
        "name",
        "named",
        "kind",
        "type",
        "any",
        "some",
        "same",
        "other",
        "another",
        "also",
        "about",
        "after",
        "before",
        "during",
        "#1",
        "#2",
        "#3",
        "#4",
        "#5",
    ]
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-.]*|[\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENT_END = re.compile(r"(?<=[.!?。！？；])[\"'”’)\]]*\s+|(?<=[。！？；])")
_NAME = re.compile(
    r"(?:[A-Z][\w\-.'’]*|[0-9]{1,4}(?:st|nd|rd|th)?)(?:(?:\s+|,\s*)(?:(?:of|the|and|de|von|van|du|la|le|for|on)\s+)*"
    r"[A-Z][\w\-.'’]*)*"
)
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
_DATE = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December)(?:\s+\d{1,2})?(?:,?\s+\d{3,4})?\b|\b(?:1[0-9]{3}|20[0-9]{2})\b"
)
_NUMBER = re.compile(r"\b\d[\d,.]*(?:\s+(?:million|billion|thousand|percent|%))?")
_ABBREV = frozenset(
    [
        "Dr",
        "Mr",
        "Mrs",
        "Ms",
        "St",
        "Jr",
        "Sr",
        "Prof",
        "Gen",
        "Col",
        "Lt",
        "Mt",
        "No",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "U.S",
        "Inc",
        "Co",
        "Ltd",
    ]
)


def query_terms(text: str) -> list[str]:
    """Content terms of ``text``: lower-cased words without stop words; CJK via jieba."""
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


_IRREGULAR = {
    "left": "leav",
    "leave": "leav",
    "led": "lead",
    "won": "win",
    "wrote": "writ",
    "written": "writ",
    "write": "writ",
    "began": "begin",
    "begun": "begin",
    "became": "become",
    "born": "birth",
    "birthplace": "birth",
    "died": "death",
    "dead": "death",
    "die": "death",
    "sold": "sell",
    "bought": "buy",
    "built": "build",
    "founder": "found",
    "headquarter": "headquarter",
}


def _stem(term: str) -> str:
    if term in _IRREGULAR:
        return _IRREGULAR[term]
    for suffix in ("ing", "ed", "es", "s"):
        if len(term) > len(suffix) + 3 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def _term_set(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text)}


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


def split_sentences_with_offsets(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` (English and Chinese end marks)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_END.finditer(text):
        word = text[max(0, m.start() - 6) : m.start()].split()
        if word and (word[-1].rstrip(".") in _ABBREV or re.fullmatch(r"[A-Z]\.", word[-1])):
            continue
        end = m.start() if m.start() > start else m.end()
        if text[start:end].strip():
            spans.append((start, end))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for s, e in spans:  # trim whitespace so offsets point at the sentence itself
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out


@dataclass
class AnswerSpan:
    """A candidate answer span inside one piece of evidence."""

    text: str
    score: float
    evidence_index: int
    start: int  # offsets inside the evidence text
    end: int
    sentence: tuple[int, int]
    kind: str


_PREP_CUES = {
    "where": re.compile(r"\b(in|at|near|from|to)\s+(the\s+)?$", re.IGNORECASE),
    "who": re.compile(r"\b(by|to|with)\s+$", re.IGNORECASE),
}


def _wh_word(query: str) -> str:
    if _PLACE_Q.search(query):
        return "where"
    m = re.search(r"\b(where|who|whom)\b", query, re.IGNORECASE)
    return m.group(1).lower().replace("whom", "who") if m else ""


_PLACE_Q = re.compile(
    r"\b(which|what|in which|in what)\s+(province|country|city|state|county|region|town|"
    r"continent|district|area)\b|\b(headquarter|headquarters|located|based)\b",
    re.IGNORECASE,
)
_CJK_NAME_FLAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})


def _cjk_words(sentence: str) -> list[tuple[str, int, str]]:
    """(word, offset, POS flag) of the CJK words (≥ 2 characters) in ``sentence``."""
    import jieba.posseg as pseg

    out: list[tuple[str, int, str]] = []
    pos = 0
    pairs = [(p.word, p.flag) for p in pseg.cut(sentence)]
    merged: list[tuple[str, str]] = []
    for word, flag in pairs:
        # jieba often splits an unknown full name into surname (nr, 1 char) + given name.
        if (
            merged
            and merged[-1][1] == "nr"
            and len(merged[-1][0]) == 1
            and _CJK.match(word)
            and len(word) <= 2
        ):
            merged[-1] = (merged[-1][0] + word, "nr")
        else:
            merged.append((word, flag))
    for word, flag in merged:
        start = sentence.find(word, pos)
        if start < 0:
            continue
        pos = start + len(word)
        if (
            len(word) >= 2
            and _CJK.match(word)
            and (flag.startswith("n") or flag in _CJK_NAME_FLAGS)
        ):
            out.append((word, start, flag))
    return out


def _expected_kind(query: str) -> str:
    q = query.lower()
    if re.search(r"\b(when|what year|what date|which year|what century)\b|哪一年|什么时候|何时", q):
        return "DATE"
    if re.search(r"\b(how many|how much|what percentage|how old|how long|population)\b|多少|几", q):
        return "NUMBER"
    return "NAME"


def _span_kind(span: str) -> str:
    if _DATE.fullmatch(span.strip()) or _YEAR.fullmatch(span.strip()):
        return "DATE"
    if re.fullmatch(r"[\d,.\s%]+(?:million|billion|thousand|percent)?", span.strip()):
        return "NUMBER"
    return "NAME"


def extract_answer(
    query: str,
    evidence: Sequence[Evidence],
    entity_names: dict[str, str] | None = None,
    top: int = 5,
) -> AnswerSpan | None:
    """The most likely answer span for ``query`` in the best ``top`` pieces of evidence.

    Candidates are capitalised names, dates, numbers, known entity names and CJK words in the
    sentences that overlap the query most; spans already in the query are excluded. The
    score favours higher-ranked evidence, sentences sharing more query terms, spans of the
    expected kind (a date for "when", a number for "how many") and spans near query terms.
    """
    if not evidence:
        return None
    terms = _term_set(query)
    # Terms inside the query's names identify the topic; the others (verbs, relation nouns)
    # say which sentence holds the answer, so they weigh more.
    name_terms = {t for m in _NAME.finditer(query) for t in _term_set(m.group(0))}
    q_low = query.lower()
    expected = _expected_kind(query)
    cue = _PREP_CUES.get(_wh_word(query))
    best: AnswerSpan | None = None
    ranked = sorted(range(len(evidence)), key=lambda i: -evidence[i].score)[:top]
    for rank, idx in enumerate(ranked):
        ev = evidence[idx]
        known = [entity_names[e] for e in ev.entity_ids if entity_names and e in entity_names]
        for s_start, s_end in split_sentences_with_offsets(ev.text):
            sentence = ev.text[s_start:s_end]
            shared = _term_set(sentence) & terms
            if not shared and len(terms) > 1:
                continue
            overlap = sum(0.5 if t in name_terms else 1.5 for t in shared)
            candidates: list[tuple[int, int]] = []
            for rx in (_NAME, _DATE, _NUMBER):
                candidates += [(m.start(), m.end()) for m in rx.finditer(sentence)]
            for name in known:
                pos = sentence.find(name)
                if pos >= 0:
                    candidates.append((pos, pos + len(name)))
            cjk_names: set[str] = set()
            if _CJK.search(sentence):
                for word, start, flag in _cjk_words(sentence):
                    candidates.append((start, start + len(word)))
                    if flag in _CJK_NAME_FLAGS:
                        cjk_names.add(word)
            positions = [sentence.lower().find(t) for t in terms]
            anchors = [p for p in positions if p >= 0]
            for c_start, c_end in candidates:
                span = sentence[c_start:c_end].strip(" ,.;:'\"")
                if len(span) < 2 or span.lower() in _STOP:
                    continue
                span_terms = _term_set(span)
                if span.lower() in q_low or (span_terms and span_terms <= terms):
                    continue
                kind = _span_kind(span)
                type_bonus = 2.0 if kind == expected else (0.6 if expected == "NAME" else 0.3)
                dist = min((abs(a - c_start) for a in anchors), default=200)
                proximity = 1.0 / (1.0 + dist / 40.0)
                known_bonus = 1.3 if (span in known or span in cjk_names) else 1.0
                if cue and cue.search(sentence[max(0, c_start - 12) : c_start]):
                    known_bonus *= 1.5
                score = (
                    (1.0 / (1 + 0.3 * rank))
                    * (overlap + 0.5)
                    * type_bonus
                    * (0.5 + proximity)
                    * known_bonus
                )
                if best is None or score > best.score:
                    off = sentence.find(span, c_start)
                    best = AnswerSpan(
                        text=span,
                        score=score,
                        evidence_index=idx,
                        start=s_start + off,
                        end=s_start + off + len(span),
                        sentence=(s_start, s_end),
                        kind=kind,
                    )
    return best


def compare_answers(question: str, options: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """Pick between ``(option name, its step answer)`` pairs for a comparison question.

    Dates/numbers are compared: "first/earlier/older" pick the smallest year, "later/younger/
    more recent" the largest; "more/larger/longer/higher" the largest number, "less/smaller/
    shorter/lower" the smallest. Returns (winner, reason) or None when not decidable.
    """
    q = question.lower()
    values: list[tuple[float, str]] = []
    for name, answer in options:
        nums = _YEAR.findall(answer) or re.findall(r"\d[\d,]*\.?\d*", answer)
        if nums:
            values.append((float(nums[0].replace(",", "")), name))
    if len(values) < 2:
        return None
    if re.search(r"\b(first|earlier|earliest|older|oldest|before)\b|更早|先", q):
        v, name = min(values)
        return name, f"earliest date ({int(v)})"
    if re.search(r"\b(later|latest|younger|youngest|more recent|after)\b|更晚", q):
        v, name = max(values)
        return name, f"latest date ({int(v)})"
    if re.search(r"\b(less|fewer|smaller|shorter|lower)\b|更少|更小", q):
        v, name = min(values)
        return name, f"smallest value ({v:g})"
    if re.search(r"\b(more|larger|bigger|longer|higher|taller)\b|更多|更大", q):
        v, name = max(values)
        return name, f"largest value ({v:g})"
    return None
