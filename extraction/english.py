"""Offline English mention finding: proper-noun runs, quoted titles and dates, typed by cues.

Rules, no model:

* **Names** are runs of capitalised tokens, joined by connectors inside names ("Bank *of*
  America", "Ludwig *van* Beethoven", "Battle *of the* Bulge"), with initials and abbreviations
  ("G. Stanley Hall", "St. Louis"). A sentence-initial word counts only if it is not a common
  word (closed-class list, or the same word written lower-case elsewhere in the text, or an
  ``-ly``/``-ing``/``-ed`` shape). A possessive ends a name ("Hello Love's performer").
* **Titles** in quotes ("Thinking Out Loud", ````The Cat''``) are ``WORK`` mentions.
* **Dates** ("27 September 1941", "September 27, 1941", "May 1990") and years are ``DATE``
  mentions, written as "27 September 1941"; a date's year is also a mention of its own, so
  "born in 1941" and "born 27 September 1941" share an entity.
* **Types** come first from a class noun the text gives the name ("X is a regional airline",
  "X, a former bank analyst", "the club X" → the type of the noun, :mod:`extraction.nouns`;
  such a span is ``classified`` and outweighs cue votes), then from the name's own words
  (``... University`` → ORGANIZATION, ``... River`` → LOCATION, ``Battle of ...`` → EVENT,
  ``Journal of ...`` → WORK), then from the words around it (an honorific or a role word
  before it, "(born" after it → PERSON; "in X" → LOCATION; "the album X" → WORK); otherwise
  ``CONCEPT``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.lexicon import (
    ABBREVIATIONS,
    ADJECTIVE_MODIFIERS,
    CALENDAR_WORDS,
    CONNECTORS,
    CORPORATE_SUFFIXES,
    EVENT_FIRST,
    EVENT_HEADS,
    HONORIFICS,
    HONORIFICS_STRIPPED,
    LOCATION_CUES,
    LOCATION_FIRST,
    LOCATION_HEADS,
    ORG_FIRST,
    ORG_HEADS,
    PERSON_CUES_BEFORE,
    STOPWORDS,
    WORK_CUES,
    WORK_FIRST,
    WORK_HEADS,
)
from extraction.nouns import class_noun_type

__all__ = ["Span", "find_english_spans", "split_sentences", "type_from_words"]

_ABBR = "|".join(sorted(ABBREVIATIONS, key=len, reverse=True))
_TOKEN = re.compile(
    rf"(?P<abbr>(?:[A-Z]\.){{2,}}|(?:{_ABBR})\.)"
    r"|(?P<init>[A-Z]\.(?=\s*[A-Z]))"
    r"|(?P<word>[^\W\d_][\w]*(?:['’\-][\w]+)*['’]?)"
    r"|(?P<num>\d+(?:[.,:]\d+)*(?:st|nd|rd|th|s)?)"
    r"|(?P<punct>``|''|[^\w\s])"
)
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
_DATES = [
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH}),?\s+(?P<y>\d{{3,4}})\b"
    ),
    re.compile(rf"\b(?P<m>{_MONTH})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{3,4}})\b"),
    re.compile(rf"\b(?P<m>{_MONTH}),?\s+(?P<y>\d{{4}})\b"),
]
_YEAR = re.compile(r"(?<![\d$£€.,:/-])(?P<y>1\d{3}|20\d{2})(?P<s>s)?(?![\d%]|[.,]\d)")
_QUOTED = re.compile(r"``\s*(?P<a>[^`'\"]{1,120}?)\s*''|[“\"]{1,2}(?P<b>[^“”\"]{1,120}?)[”\"]{1,2}")
_ROMAN = re.compile(r"^(?=[IVXLC]+$)M{0,3}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Span:
    """A mention found in the text: display name, type and character offsets."""

    name: str
    type: str
    start: int
    end: int
    strong: bool = False  # from an unambiguous cue (quotes, a date pattern)
    classified: bool = False  # typed by a noun the text classifies it with ("X is a Y")


@dataclass
class _Token:
    text: str
    start: int
    end: int
    kind: str

    @property
    def lower(self) -> str:
        return self.text.lower().rstrip(".")

    @property
    def cap(self) -> bool:
        return self.kind in ("word", "abbr", "init") and self.text[:1].isupper()

    @property
    def possessive(self) -> bool:
        return self.kind == "word" and (self.text.endswith(("'s", "’s", "'", "’")))


def _tokens(text: str) -> list[_Token]:
    return [
        _Token(m.group(0), m.start(), m.end(), m.lastgroup or "punct")
        for m in _TOKEN.finditer(text)
    ]


def _sentence_ranges(text: str, tokens: list[_Token]) -> list[tuple[int, int]]:
    """Token index ranges [start, end) of sentences."""
    ranges: list[tuple[int, int]] = []
    start = 0
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        boundary = False
        if nxt is not None and "\n" in text[tok.end : nxt.start]:
            boundary = True
        elif tok.kind == "punct" and tok.text in ".!?;" and nxt is not None:
            boundary = nxt.text[:1].isupper() or nxt.text[:1] in "\"“'`(" or nxt.kind == "num"
        if boundary:
            ranges.append((start, i + 1))
            start = i + 1
    if start < len(tokens):
        ranges.append((start, len(tokens)))
    return ranges


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character ranges ``(start, end)`` of the sentences of ``text``."""
    tokens = _tokens(text)
    return [(tokens[a].start, tokens[b - 1].end) for a, b in _sentence_ranges(text, tokens)]


def _date_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            month = m.group("m")
            day = m.groupdict().get("d")
            name = f"{int(day)} {month} {m.group('y')}" if day else f"{month} {m.group('y')}"
            spans.append(Span(name, "DATE", m.start(), m.end(), strong=True))
            taken.append((m.start(), m.end()))
    for m in _YEAR.finditer(text):
        name = m.group("y") + (m.group("s") or "")
        spans.append(Span(name, "DATE", m.start("y"), m.end(), strong=True))
    return spans


def _quoted_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in _QUOTED.finditer(text):
        group = "a" if m.group("a") is not None else "b"
        inner = m.group(group).strip(" ,.")
        words = inner.split()
        if not inner or not inner[0].isupper() or not 1 <= len(words) <= 10:
            continue
        spans.append(Span(inner, "WORK", m.start(group), m.end(group), strong=True))
    return spans


def _is_common(tok: _Token, lower_words: set[str]) -> bool:
    low = tok.lower
    if low in STOPWORDS or low in lower_words:
        return True
    return tok.kind == "word" and len(low) > 4 and low.endswith(("ly", "ing", "ed"))


def type_from_words(words: list[str]) -> str | None:
    """The type a name's own words give ("Peking University" → ORGANIZATION), or ``None``.

    Args:
        words: The name's words, lower-cased, without trailing dots.
    """
    if not words:
        return None
    head, first = words[-1], words[0]
    if "of" in words[1:-1]:
        # "Central Academy of Fine Arts", "Battle of the Bulge": the word before "of" decides.
        left_head = words[words.index("of", 1) - 1]
        for lexicons, kind in (
            ((EVENT_FIRST, EVENT_HEADS), "EVENT"),
            ((WORK_FIRST, WORK_HEADS), "WORK"),
            ((ORG_FIRST, ORG_HEADS), "ORGANIZATION"),
            ((LOCATION_FIRST, LOCATION_HEADS), "LOCATION"),
        ):
            if any(left_head in lexicon for lexicon in lexicons):
                return kind
    if len(words) >= 2:
        for lexicon, kind in (
            (ORG_HEADS, "ORGANIZATION"),
            (LOCATION_HEADS, "LOCATION"),
            (EVENT_HEADS, "EVENT"),
            (WORK_HEADS, "WORK"),
        ):
            if head in lexicon:
                return kind
        if first in LOCATION_FIRST:
            return "LOCATION"
        if first in HONORIFICS:
            return "PERSON"
    return None


# A noun phrase that classifies a name: up to five lower-case words, ending where a
# preposition, a relative word, a participle of place or origin, or punctuation begins.
_NP = (
    r"(?P<np>(?:[a-z0-9][\w'’-]*\s+){0,4}?[a-z][\w'’-]*)"
    r"(?=\s+(?:based|in|of|at|on|from|for|with|by|near|that|who|whom|which|whose|where|when|"
    r"founded|established|known|to|since|serving|owned|run|headquartered|located)\b"
    r"|\s*[,.;:()!?]|\s*$)"
)
# "X is a regional airline", "X (born 1949) was an English engineer", "X is one of the oldest
# clubs": a copula right after the name that opens its sentence, then an article and the
# noun phrase that says what the name is.
_COPULA_CLASS = re.compile(
    r"[*_]*\s*(?:\([^()]{0,80}\)\s*)?"
    r"(?:is|was|has\s+been|had\s+been|remains|remained|became)\s+"
    rf"(?P<article>a|an|the|one\s+of\s+the)\s+{_NP}"
)
# "Celeste Marrable, a former bank analyst who …": an appositive with an indefinite article;
# "Isobel Maskell, the daughter of …", "Tarnby, the county town": or with "the".
_APPOSITIVE_CLASS = re.compile(rf"[*_]*,\s+(?P<article>a|an|the)\s+{_NP}")
# "The museum's first curator was Isobel Maskell", "Its first keeper was X": the class noun
# before a copula, then the name.
_CLASS_COPULA = re.compile(
    r"(?:\b(?:the|its|his|her|their)|[A-Z][\w'’-]*['’]s)\s+(?:[a-z][\w'’-]*\s+){0,2}?"
    r"(?P<np>[a-z][\w'’-]*)\s+(?:is|was|became|remained)\s+$",
    re.IGNORECASE,
)
_DETERMINERS = frozenset(["the", "a", "an", "its", "his", "her", "their", "our", "this", "that"])
_LOCATIVE_PREPOSITIONS = frozenset(["in", "at", "near", "from", "into", "to", "outside"])


def _class_type(noun_phrase: str, productive: bool) -> str | None:
    """The entity type a class noun phrase gives the name it classifies ("regional airline" →
    ORGANIZATION, "former bank analyst" → PERSON, "2009 documentary" → WORK, "office tower"
    → the type a name ending in its head has), or ``None``. ``productive``: the agent
    suffixes count (after an indefinite article; "the older" is a comparative)."""
    words = noun_phrase.lower().split()
    if not words:
        return None
    head = words[-1]
    if head in WORK_CUES:
        return "WORK"
    kind = class_noun_type(noun_phrase, productive)
    if kind != "NAME":
        return kind
    singular = head[:-1] if head.endswith("s") else head
    if head in ORG_HEADS or singular in ORG_HEADS:
        return "ORGANIZATION"
    if head in LOCATION_HEADS or singular in LOCATION_HEADS:
        return "LOCATION"
    return None


def _classified(
    run: list[_Token], before: list[_Token], text: str, opens_sentence: bool
) -> str | None:
    """The type the text gives a name by classifying it with a noun: a copula after a name that
    opens its sentence, an appositive, or a class noun right before it after a determiner
    ("the airline Averholt Air", "her daughter Elowen")."""
    copula = _COPULA_CLASS.match(text, run[-1].end) if opens_sentence else None
    # "He was born in Tarnby, the son of a carrier": after a place's preposition, an
    # appositive that names a person is said of the clause's subject, not of the place.
    locative = bool(before) and before[-1].lower in _LOCATIVE_PREPOSITIONS
    for m in (copula, _APPOSITIVE_CLASS.match(text, run[-1].end)):
        if m is not None and (
            kind := _class_type(m.group("np"), m.group("article") in ("a", "an"))
        ):
            if m is not copula and locative and kind == "PERSON":
                continue
            return kind
    if (
        len(before) == 2
        and before[0].lower in _DETERMINERS
        and before[1].kind == "word"
        and before[1].text.islower()
    ):
        return _class_type(before[1].text, productive=False)
    reverse = _CLASS_COPULA.search(text, max(0, run[0].start - 80), run[0].start)
    if reverse is not None:
        return _class_type(reverse.group("np"), productive=True)  # a noun: "its keeper"
    return None


def _run_type(
    run: list[_Token], before: list[_Token], text: str, opens_sentence: bool = False
) -> tuple[str, bool]:
    """The run's type, and whether the text classifies it with a noun (that outweighs cues)."""
    low = [t.lower for t in run]
    prev = before[-1].lower if before else ""
    following = text[run[-1].end : run[-1].end + 12].lstrip().lower()
    if following.startswith(("(born", "( born", "(c.", "(née", "(nee")) or re.match(
        r"\(\s*\d{3,4}\s*[-–]", following
    ):
        return "PERSON", False
    # What the text calls the name outweighs what its own words suggest: "Harbour of Crows
    # is a 2011 animated film".
    classified = _classified(run, before, text, opens_sentence)
    if classified is not None:
        return classified, True
    by_words = type_from_words(low)
    if by_words is not None:
        return by_words, False
    if prev in HONORIFICS:
        return "PERSON", False
    if prev in PERSON_CUES_BEFORE:
        return "PERSON", False
    if prev in WORK_CUES:
        return "WORK", False
    if prev in LOCATION_CUES:
        return "LOCATION", False
    if (
        2 <= len(run) <= 4
        and all(t.kind == "init" or t.text.istitle() for t in run)
        and (following.startswith(("was born", ", who", "died")))
    ):
        return "PERSON", False
    return "CONCEPT", False


def _possessive_continues(tokens: list[_Token], end: int, b: int) -> bool:
    """ "People's Republic", "McDonald's Corporation": a possessive inside a name."""
    nxt = tokens[end + 1] if end + 1 < b else None
    return nxt is not None and nxt.cap and nxt.lower not in STOPWORDS


def _extend(text: str, tokens: list[_Token], i: int, b: int, consumed: set[int]) -> int:
    """Index of the last token of the name starting at ``i`` (sentence ends at ``b``)."""
    end = i
    while not tokens[end].possessive or _possessive_continues(tokens, end, b):
        k = end + 1
        hops = 0
        # Up to two joining words: lower-case connectors, or capitalised function words
        # inside title-case names ("Gone With The Wind").
        while (
            k < b
            and hops < 2
            and k not in consumed
            and tokens[k].text != "I"
            and (
                tokens[k].text in CONNECTORS
                or tokens[k].text == "-"  # "Zeta - Jones": the corpus's spaced hyphens
                or (tokens[k].cap and tokens[k].lower in STOPWORDS)
            )
        ):
            k += 1
            hops += 1
        if (
            k < b
            and k not in consumed
            and tokens[k].cap
            # "I" right after a name is a regnal number ("Albert I"), not the pronoun.
            and (tokens[k].lower not in STOPWORDS or (tokens[k].text == "I" and k == end + 1))
            and "\n" not in text[tokens[k - 1].end : tokens[k].start]
        ):
            end = k
            continue
        break
    # Capitalised function words closing a title ("the It'll Be Me singer").
    k = end + 1
    while (
        k < b
        and k - end <= 2
        and k not in consumed
        and tokens[k].cap
        and tokens[k].lower in STOPWORDS
        and tokens[k].text != "I"
    ):
        k += 1
    if k > end + 1 and (k >= b or not tokens[k].cap):
        end = k - 1
    return end


def _name_runs(
    text: str,
    tokens: list[_Token],
    sent: tuple[int, int],
    consumed: set[int],
    lower_words: set[str],
) -> list[Span]:
    spans: list[Span] = []
    a, b = sent
    # The first word of the sentence (after opening quotes/brackets) is capitalised anyway.
    initial = next((k for k in range(a, b) if tokens[k].kind != "punct"), b)
    i = a
    while i < b:
        tok = tokens[i]
        if (
            i in consumed
            or not tok.cap
            or tok.lower in STOPWORDS
            or tok.text == "I"
            or (i == initial and _is_common(tok, lower_words))
        ):
            i += 1
            continue
        end = _extend(text, tokens, i, b, consumed)
        first, last = i, end
        i = end + 1
        while first <= last and tokens[first].kind == "init" and first == last:
            first += 1
        if first > last:
            continue
        run = tokens[first : last + 1]
        opens = all(
            t.kind == "punct" or (k == first - 1 and t.lower == "the")
            for k, t in enumerate(tokens[a:first], start=a)
        )
        kind, classified = _run_type(run, tokens[max(a, first - 2) : first], text, opens)
        titled = len(run) >= 2 and run[0].lower in HONORIFICS_STRIPPED
        if titled:
            kind = "PERSON"
            # "Captain Miller" is kept whole; "Miller" follows as its short form (an alias).
            full = text[run[0].start : run[-1].end]
            if run[-1].possessive:
                full = re.sub(r"['’]s?$", "", full)
            spans.append(Span(full, kind, run[0].start, run[0].start + len(full)))
            run = run[1:]
        if (
            kind == "CONCEPT"
            and spans
            and spans[-1].type == "LOCATION"
            and text[spans[-1].end : run[0].start].strip() == ","
            and not text[run[-1].end :].lstrip().startswith(",")
        ):
            kind = "LOCATION"  # "in Putney, London)", but not "in China, Xu Bing, like ..."
        start = run[0].start
        prefix = tokens[first - 1] if first > a else None
        if (
            prefix is not None
            and prefix.kind == "num"
            and text[prefix.end : start].isspace()
            and (kind == "EVENT" or prefix.text[-2:] in ("st", "nd", "rd", "th"))
        ):
            start = prefix.start  # "1920 Summer Olympics", "26th Chess Olympiad"
        stop = run[-1].end
        name = text[start:stop]
        if run[-1].possessive:
            name = re.sub(r"['’]s?$", "", name)
            stop = start + len(name)
        if _ROMAN.match(name) or not any(ch.isalpha() for ch in name):
            continue
        if len(run) == 1 and (
            run[0].lower in CALENDAR_WORDS
            or run[0].text.lower() in CORPORATE_SUFFIXES
            or (len(run[0].text) == 1 and start == run[0].start)
        ):
            continue
        spans.append(Span(name, kind, start, stop, classified=classified))
        spans.extend(_of_parts(text, run, stop))
        spans.extend(_modifier(text, run, kind))
    return spans


def _modifier(text: str, run: list[_Token], kind: str) -> list[Span]:
    """The naming part of "West Chicago High School" / "Bubye River": "West Chicago",
    "Bubye". Such a name often reappears alone elsewhere and links the two."""
    if kind not in ("ORGANIZATION", "LOCATION") or len(run) < 2:
        return []
    heads = ORG_HEADS | LOCATION_HEADS
    end = len(run)
    while end > 0 and run[end - 1].lower in heads:
        end -= 1
    if end == 0 or end == len(run) or any(t.text in CONNECTORS for t in run[:end]):
        return []
    head = run[:end]
    if len(head) == 1 and (
        head[0].lower in STOPWORDS
        or head[0].lower in ADJECTIVE_MODIFIERS
        or head[0].kind != "word"
        or head[0].lower.endswith(("ian", "ean", "ese", "ish", "can", "ern"))
    ):
        return []
    return [Span(text[head[0].start : head[-1].end], "CONCEPT", head[0].start, head[-1].end)]


def _of_parts(text: str, run: list[_Token], stop: int) -> list[Span]:
    """The sides of "A B of C" and "A B's C" as mentions of their own when A B is already a
    name ("Gordon West of Everton", "Mao Zedong's Red Guards"); the whole run stays a mention
    too ("National Register of Historic Places")."""
    for k, tok in enumerate(run[:-1]):
        if tok.text == "of" and k >= 2 and run[k + 1].cap:
            left, right = run[:k], run[k + 1 :]
            if len(right) == 1 and right[0].text.endswith("s"):
                return []  # "House of Representatives": the plural alone is no name
        elif tok.possessive and k >= 1:
            left, right = run[: k + 1], run[k + 1 :]
        else:
            continue
        left_text = re.sub(r"['’]s?$", "", text[left[0].start : left[-1].end])
        return [
            Span(left_text, "CONCEPT", left[0].start, left[0].start + len(left_text)),
            Span(text[right[0].start : stop], "CONCEPT", right[0].start, stop),
        ]
    return []


def find_english_spans(text: str) -> tuple[list[Span], list[tuple[int, int]]]:
    """Find the mentions of ``text``.

    Args:
        text: English (or any Latin-script) text.

    Returns:
        ``(spans, sentences)``: mentions sorted by position, and sentence character ranges.
    """
    tokens = _tokens(text)
    if not tokens:
        return [], []
    sentences = _sentence_ranges(text, tokens)
    lower_words = {t.text for t in tokens if t.kind == "word" and t.text.islower()}
    strong = _date_spans(text) + _quoted_spans(text)
    consumed = {
        i for i, t in enumerate(tokens) for s in strong if s.start <= t.start and t.end <= s.end
    }
    spans = list(strong)
    for sent in sentences:
        spans.extend(_name_runs(text, tokens, sent, consumed, lower_words))
    spans.sort(key=lambda s: (s.start, -s.end))
    sentence_chars = [(tokens[a].start, tokens[b - 1].end) for a, b in sentences]
    return spans, sentence_chars
