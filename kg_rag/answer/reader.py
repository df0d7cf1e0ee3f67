"""The offline step reader: reads a step's evidence and returns its answer and a grade.

No word of any corpus is needed. Candidates are whole entity mentions — the graph entities a
chunk mentions, dates, numbers, full capitalised names, Chinese person/place/organisation
words — in the sentences that share the step's terms. A candidate scores by:

* the rank of its evidence and how many of the step's terms its sentence shares (relation
  words weigh more than the words of the names the step already knows);
* **answer-type fit**: who → a person, where → a place, when → a date, which company → an
  organisation, how many → a number (谁/哪里/哪一年/哪家/多少 alike), from the graph entity's
  type, the shape of the span, or the preposition before it;
* **the graph**: a candidate related in the graph to an entity the step links gets a bonus
  (that is how a bridge is found from the evidence rather than from the question's words);
* votes: the same candidate in several pieces of evidence adds up.

Verification steps ("Is A based in B?") answer yes when one sentence about the subject holds
every other name of the claim (or, without names, most of its terms).
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import unicodedata
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from extraction.chinese import (
    _freq,
    closes_with_admin_unit,
    find_chinese_spans,
    glued_after_name,
    pos_tags,
)
from extraction.language import (
    AUXILIARIES,
    GENERATION_WORDS,
    HAN,
    NON_NAME_WORDS,
    ZH_ERA_YEAR,
    is_participle,
    normalize_name,
    split_sentences,
)
from extraction.lexicon import (
    CALENDAR_WORDS,
    CHINESE_ADMIN_UNITS,
    CHINESE_KIN_WORDS,
    CHINESE_ORG_LEGAL_FORMS,
    CHINESE_SURNAMES,
    HONORIFICS,
)
from kg_rag.answer.offline import IRREGULAR_PAST, _stem, _term_set, with_phrasal
from kg_rag.answer.question import (
    BARE_YEAR,
    CONVERSE_ROLES,
    DATE_RX,
    FIRM_OR_PERSON_VERB,
    IN_NTH_YEAR,
    KIN_GENDER,
    MEASURE_VERB_Q,
    TITLED_WORKS,
    YEAR_QUESTION,
    ZH_CLASSIFIERS,
    ZH_EVENT_WORDS,
    ZH_FORMER_TIME,
    ZH_NAME_ASKED,
    ZH_TIME_CLOSERS,
    date_key,
    find_dates,
    head_noun_type,
    is_past_participle,
    zh_noun_type,
)
from kg_rag.answer.stages import StepContext, StepReading
from kg_rag.answer.trace import Grade
from kg_rag.cosine_scale import to_reference_cosine
from kg_rag.models import AnswerType, Evidence

__all__ = ["OfflineStepReader", "read_evidence"]

_log = logging.getLogger(__name__)
_V = TypeVar("_V")
_CJK = re.compile(f"[{HAN}]")
_ZH_NUMERAL_CHAR = re.compile(r"[零〇一二三四五六七八九十两百千万亿\d]")
_CAP_NAME = re.compile(
    r"(?:[A-Z][\w\-.'’]*|[0-9]+(?:st|nd|rd|th))(?:(?:\s+|,\s+(?=[A-Z][a-z]+\b(?!\s+[A-Z])))"
    # a word before "$" is a currency's ("for US$412 million"), no name's
    r"(?:(?:of|the|and|de|del|der|di|da|von|van|du|la|le|y|for|on|&)\s+)*[A-Z][\w\-.'’]*(?![\w\-.'’]|\$))*"
)
# A quantity, never a piece of an ordinal or a code ("35th", "B-29" stay whole or out), nor
# of a decimal before a Chinese unit ("3.1万" is whole, not "3"), nor of a number written with
# thousands separators beside Chinese characters ("共有1,200个座位" holds 1,200, not 200).
_NUMBER = re.compile(
    r"\b\d(?:\d|,(?=\d))*(?:\.\d+)?(?:\s+(?:million|billion|thousand)\b)?(?!\w|[,.]\d)"
    r"|(?<![A-Za-z0-9.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:万|亿)?(?![A-Za-z0-9])"
)
# A lower-case particle that opens a name ("de Vries & Co", "van Loon Brothers"): no English
# word, so before a capitalised name it is part of it, unless a capitalised word before it
# already opened the name ("Ada van Loon").
_NAME_PARTICLE = re.compile(r"\b(?:de|del|della|van|von|du|da|di|der|den|ten|ter)\s+$")


def _particle_start(sentence: str, a: int) -> int:
    """Where the name at ``a`` starts when a name particle opens it (else ``a``)."""
    m = _NAME_PARTICLE.search(sentence, max(0, a - 6), a)
    if m is None or not sentence[a : a + 1].isupper():
        return a
    before = sentence[: m.start()].split()
    return a if before and before[-1][:1].isupper() else m.start()


_ACRONYM = re.compile(r"[A-Z]{2,6}")
_WHOSE_NOUN = re.compile(r"^\s*whose\s+([a-z][a-z\-]*)\b", re.IGNORECASE)


# A name, then an indefinite appositive whose participle's agent follows "by":
# "Quenby Optical Instruments, a smaller company founded in 1995 in Lusk Harbour by ".
_APPOSED_AGENT = re.compile(
    r"(?P<name>[A-Z][\w'’\-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'’\-]*)*),\s+(?:a|an)\s+"
    r"[^,;()]*?\b(?P<verb>[a-z]+ed)\b[^,;()]*?\bby\s+(?:the\s+[a-z]+\s+)?$"
)


def _agent_of_another(
    sentence: str, a: int, names: Sequence[str], relation_terms: Collection[str]
) -> bool:
    """Is the name at ``a`` the agent ("by Z") of the step's relation participle in an
    appositive of another name than the step's ("Y, a smaller company founded … by Z")?"""
    m = _APPOSED_AGENT.search(sentence, max(0, a - 160), a)
    if m is None or m.end() != a or not _same_verb(m["verb"], relation_terms):
        return False
    other = set(normalize_name(m["name"]).split())
    return bool(other) and not any(
        n and (other <= set(normalize_name(n).split()) or set(normalize_name(n).split()) <= other)
        for n in names
    )


def _in_subject_appositive(
    sentence: str, a: int, b: int, names: Sequence[str], relation_terms: Collection[str]
) -> bool:
    """Is the span ``a:b`` inside the appositive of a step's name, with the step's verb after
    it ("Jethro Hurrell junior, the first coxswain of the Ulverstaithe lifeboat, was born …
    at Ulvercote": Ulverstaithe is not where he was born)?"""
    if ", " not in sentence:
        return False
    spans = _subject_appositives(sentence, tuple(names), frozenset(relation_terms))
    return any(start < a and b <= close for start, close in spans)


@functools.lru_cache(maxsize=4096)
def _subject_appositives(
    sentence: str, names: tuple[str, ...], relation_terms: frozenset[str]
) -> tuple[tuple[int, int], ...]:
    """(start, end) of each appositive of one of ``names`` in ``sentence`` that the step's
    verb follows and does not stand in (see :func:`_in_subject_appositive`)."""
    found = []
    for name in names:
        if not name or len(name) < 3:
            continue
        for m in _rx(rf"\b{re.escape(name)}\b").finditer(sentence):
            gen = _GENERATION_SUFFIX.match(sentence, m.end())
            start = gen.end() if gen else m.end()
            if not sentence.startswith(", ", start):
                continue
            close = sentence.find(",", start + 1)
            if close < 0:
                continue
            inside = re.findall(r"[a-z]+", sentence[start:close])
            after = re.findall(r"[a-z]+", sentence[close : close + 80])[:6]
            if any(_same_verb(w, relation_terms) for w in after) and not any(
                _same_verb(w, relation_terms) for w in inside
            ):
                found.append((start, close))
    return tuple(found)


# A bare role noun right before a name labels it: "bassist Nadia Quell", "keyboard player
# Lise Farr", "singer and guitarist Wendell Pelgrave" (a line-up, a cast, a crew).
_TITLE_BEFORE_NAME = re.compile(
    r"(?:^|[,;:(]\s*|\b(?:and|with|by|of|the)\s+)"
    r"(?P<role>(?:[a-z][a-z\-]+\s+)?[a-z][a-z\-]+)\s+(?=[A-Z][a-z])"
)


@functools.lru_cache(maxsize=4096)
def _titled_names(sentence: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(start of the name, its role words) for each name a bare role noun labels."""
    found = []
    for m in _TITLE_BEFORE_NAME.finditer(sentence):
        words = [w for w in m["role"].split() if w not in _ROLE_FILLER]
        if words and head_noun_type(words[-1]) == "PERSON":
            found.append((m.end(), tuple(words)))
    return tuple(found)


_ROLE_FILLER = frozenset(["the", "a", "an", "and", "or", "of", "with", "by", "his", "her", "its"])


def _role_factor(
    own: Sequence[str] | None, roles: Iterable[Sequence[str]], asked: Callable[[str], bool]
) -> float:
    """×2 for a name whose role words (``own``) are all asked, ×0.5 for one given another
    role where the sentence gives some name (``roles``) the asked one; else 1."""
    if own is None:
        return 1.0
    if all(asked(w) for w in own):
        return 2.0
    return 0.5 if any(all(asked(w) for w in words) for words in roles) else 1.0


def _title_factor(sentence: str, a: int, asked: Callable[[str], bool]) -> float:
    """:func:`_role_factor` of the name at ``a`` among the names a bare role noun labels
    ("bassist Nadia Quell, …, keyboard player Lise Farr" for who plays bass)."""
    titled = _titled_names(sentence)
    own = next((words for start, words in titled if start == a), None)
    return _role_factor(own, (words for _, words in titled), asked)


# A field of a fact sheet or an infobox, at the start of its line: "Owner: Pellinor Maritime
# (since 2004)", "Founder: …", "Born: 9 February 1996, Saltrigg".
_FIELD = re.compile(r"[ \t]*(?P<label>[A-Z][a-z]+(?:[ \t]+[a-z]+){0,2})[ \t]*:[ \t]+")


# A field's value: up to the end of its sentence or a semicolon, without the full stop.
_FIELD_VALUE = re.compile(r"[^.;\n]{1,60}?(?=\s*(?:[.;\n]|$))")


def _field_factor(sentence: str, a: int, asked: Callable[[str], bool]) -> float:
    """×_SLOT_BONUS for a value in the field whose label the step asks ("Owner: Y" for who
    owns X), ×0.5 for one in a field labelled with another role ("Founder: Z"); else 1."""
    start = sentence.rfind("\n", 0, a) + 1
    m = _FIELD.match(sentence, start)
    if m is None or m.end() > a:
        return 1.0
    label = m["label"].lower().split()[-1]
    if asked(label):
        return _SLOT_BONUS
    return 0.5 if head_noun_type(label) == "PERSON" else 1.0


# A name and the role it was given, after "as": "elected the Reverend Orm Vell, vicar of
# Tollby, as the first Master of the Guild, and Ada Moe as its first Secretary".
_AS_ROLE = re.compile(
    r"(?:\s*,[^;]{0,80}?,)?\s+as\s+(?:(?:the|its|his|her|their|a|an)\s+)?(?:[a-z]+\s+)?"
    r"(?P<role>[A-Za-z]+)\b"
)
_ANY_AS_ROLE = re.compile(
    r"\bas\s+(?:(?:the|its|his|her|their|a|an)\s+)?(?:[a-z]+\s+)?(?P<role>[A-Za-z]+)\b"
)


@functools.lru_cache(maxsize=4096)
def _as_roles(sentence: str) -> tuple[tuple[str], ...]:
    """The role word after each "as" in ``sentence``, lower-cased."""
    return tuple((r["role"].lower(),) for r in _ANY_AS_ROLE.finditer(sentence))


def _as_role_factor(sentence: str, b: int, asked: Callable[[str], bool]) -> float:
    """:func:`_role_factor` of the name ending at ``b`` among the names "as" gives a role."""
    m = _AS_ROLE.match(sentence, b)
    own = (m["role"].lower(),) if m is not None else None
    return _role_factor(own, _as_roles(sentence), asked)


def _said_short(best: _Candidate, pool: Iterable[_Candidate]) -> _Candidate:
    """``best``, or the typed name it opens when ``best`` is one word of unknown type and the
    evidence supports that name nearly as well ("Glasshaven" beside "Glasshaven Records":
    the name said short)."""
    if best.kind != "NAME" or " " in best.text:
        return best
    whole = [
        c
        for c in pool
        if c.kind in _TYPED_KINDS
        and c.text.startswith(best.text + " ")
        and c.score >= _SHORT_NAME_SHARE * best.score
    ]
    return max(whole, key=lambda c: (c.score, len(c.text), c.text)) if whole else best


def _whose_factor(sentence: str, a: int, b: int, noun: str) -> float:
    """For "Whose N …?": ×2 for the name the N is of ("the daughter of Jabez Kitching",
    "Jabez Kitching's daughter"), ×0.3 for the N herself ("Ruth Kitching, the daughter of …",
    "his daughter Ruth"); else 1."""
    n = rf"{re.escape(noun)}s?"
    before = sentence[max(0, a - 60) : a]
    after = sentence[b : b + 60]
    of_it = _rx(rf"\b{n}\s+of\s+(?:the\s+)?(?:[a-z\-]+\s+){{0,2}}$", re.IGNORECASE)
    owner = _rx(rf"^['’]s?\s+(?:[a-z\-]+\s+)?{n}\b", re.IGNORECASE)
    if of_it.search(before) or owner.match(after):
        return 2.0
    named = _rx(
        rf"(?:\b(?:his|her|their|its|a|the)|['’]s?)\s+(?:[a-z\-]+\s+)?{n}\s*,?\s*$", re.IGNORECASE
    )
    apposed = _rx(rf"^\s*,\s+(?:the|a|an|his|her|their)\s+(?:[a-z\-]+\s+)?{n}\b")
    if named.search(before) or apposed.match(after):
        return 0.3
    return 1.0


_FIRM_FIT = 0.9
"""The fit of a body's name for a who-question whose verb a firm may do ("Who bought X")."""
_WORK_MISFIT = 0.3
"""The fit of a person's or a place's name for a question that asks a work ("which book")."""
_SHORT_NAME_SHARE = 0.75
"""A one-word name gives way to the typed name it opens when that scores this share of it."""
_SHORT_LINE_WORDS = 8
"""A line of fewer words than this, ended by a line break, is a cell, a label or a heading."""


_ITALIC_CLOSE = re.compile(r"[^*_\n]{1,150}?(?<![*_\s])[*_](?![*_])")


def _in_italics(sentence: str, start: int) -> bool:
    """Does a name at ``start`` open a run in single asterisks or underscores ("She wrote *A
    Primer of the Straw Skep* in 1894")? English prints the titles of works in italics, which
    Markdown writes so; bold (``**X**``) marks no title."""
    return (
        start > 0
        and sentence[start - 1] in "*_"
        and (start < 2 or sentence[start - 2] not in "*_")
        and _ITALIC_CLOSE.match(sentence, start) is not None
    )


# A speaker's name before a turn of a transcript ("ADA MOE: In Varrby, …",
# "Q: …"): the turn opens there, as a sentence does.
_SPEAKER_TAG = re.compile(r"\s*[A-Z][A-Z.'’\- ]{0,40}:\s*")


def _cap_names(sentence: str) -> list[re.Match[str]]:
    """The ``_CAP_NAME`` matches of ``sentence``, none running over a line break that ends a
    short line: "Position\nCentre-forward\nCurrent club" is a table's cells, not one name;
    a long line's break wraps prose, and a name may run on over it."""
    out: list[re.Match[str]] = []
    pos = 0
    while (m := _CAP_NAME.search(sentence, pos)) is not None:
        end = m.end()
        nl = sentence.find("\n", m.start(), end)
        while nl >= 0:
            line = sentence[sentence.rfind("\n", 0, nl) + 1 : nl]
            if len(line.split()) < _SHORT_LINE_WORDS:
                end = nl
                break
            nl = sentence.find("\n", nl + 1, end)
        cut = _CAP_NAME.match(sentence, m.start(), end) if end < m.end() else m
        if cut is not None:
            out.append(cut)
        pos = max(end, m.start() + 1)
    return out


# Patterns built from names and terms, compiled once each (re's own cache holds only 512).
_rx = functools.lru_cache(maxsize=8192)(re.compile)

RELATED_LIMIT = 300
"""Relations read around a step's linked entities to find the candidates they relate to."""


_TRAILING_DETERMINER = re.compile(r"(?:\s+(?:The|An|This|That|These|Those))+$")


def _without_determiner(name: str) -> int:
    """The length of ``name`` without the articles and demonstratives that end it (a name
    of one word is left whole; "A" may end one: "Model A", "Vitamin A")."""
    cut = _TRAILING_DETERMINER.search(name)
    return cut.start() if cut else len(name)


# Landforms and waters that close a place's name: 雀嘴岭, 荻背岗, 荻溪, 荻澳岛.
_ZH_LANDFORMS = frozenset("山岭峰岗坡峪谷峡河江湖溪涧泉潭岛湾滩洲屿礁")


def _zh_landform_name(name: str) -> bool:
    """Is ``name`` a place's name closed by a landform or a water (雀嘴岭, 荻溪), not a common
    noun the dictionary holds (茶山, 小溪)?"""
    return len(name) >= 2 and name[-1] in _ZH_LANDFORMS and not _zh_in_lexicon(name)


# The nouns a step asks a post by: 职务, 职位, 头衔 …
_ZH_POST_NOUNS = frozenset(["职务", "职位", "头衔", "官职", "职称", "岗位", "公职"])
# A verb of taking a post, then the post up to the end of its clause: 出任副厂长.
_ZH_TOOK_POST = re.compile(
    rf"(?:担任|出任|升任|改任|就任|接任|转任|任)(?P<post>[{HAN}]{{2,10}}?)(?=[，,。；;、]|$)"
)


def _zh_posts(sentence: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of the posts ``sentence`` gives the people ``names``: the run of nouns right
    before a name that ends in a noun of a person's role (公方厂长韩定邦, 私方副厂长郗承业), and
    what a verb of taking a post after the name takes (郗承业于1956年出任副厂长)."""
    out: list[tuple[int, int]] = []
    for name in names:
        if len(name) < 2 or not _CJK.match(name):
            continue
        for start, end in _occurrences(name, sentence):
            clause = re.split(r"[，,。；;、：:（(]", sentence[:start])[-1]
            run = 0
            for k, (word, flag) in enumerate(reversed(pos_tags(clause))):
                if not flag.startswith("n") or flag == "nr":
                    break
                if k == 0 and (len(word) < 2 or zh_noun_type(word) != "PERSON"):
                    break
                run += len(word)
            if run >= 2:
                out.append((start - run, start))
            took = _ZH_TOOK_POST.search(re.split(r"[，,。；;]", sentence[end:])[0])
            if took is not None and zh_noun_type(took["post"][-2:]) == "PERSON":
                out.append((end + took.start("post"), end + took.end("post")))
    return out


def _occurrences(needle: str, text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-overlapping occurrence of ``needle`` in ``text``, left to
    right: what ``re.finditer(re.escape(needle), text)`` gives, without compiling a pattern
    for every new name."""
    if not needle:
        return [(i, i) for i in range(len(text) + 1)]
    out: list[tuple[int, int]] = []
    at = text.find(needle)
    while at >= 0:
        out.append((at, at + len(needle)))
        at = text.find(needle, at + len(needle))
    return out


# Chinese verbs that say one relation (a closed set of the language's common synonyms): a
# step asked with one is answered by a sentence that uses another.
_ZH_VERB_GROUPS = (
    ("收购", "买下", "并购", "兼并", "购入", "买入", "盘下"),
    ("创办", "创立", "创建", "开办", "兴办", "创设", "设立", "开设", "建立"),
    ("出版", "刊行", "印行", "刊印"),
    ("改名", "更名", "易名", "改称"),
    ("迁往", "迁到", "迁至", "搬到", "搬往", "迁入"),
    ("合并", "并入"),
    ("建成", "建于", "修建", "兴建", "建造", "落成", "竣工", "始建"),
)
_ZH_VERB_GROUP = {verb: group for group in _ZH_VERB_GROUPS for verb in group}
_ZH_AFTER_CLAUSE = re.compile(r"(?:以|之)?[后前]")


def _zh_said_otherwise(terms: Collection[str], sentence: str) -> set[str]:
    """The Chinese relation ``terms`` that ``sentence`` says with another verb of their group
    (买下 says 收购, 创建 says 创办)."""
    return {t for t in terms if any(w != t and w in sentence for w in _ZH_VERB_GROUP.get(t, ()))}


_QUANTIFIERS = frozenset(
    [
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "twelve",
        "twenty",
        "several",
        "many",
        "some",
        "few",
        "numerous",
        "various",
    ]
)


def _noun_adjunct(sentence: str, a: int, b: int) -> bool:
    """Is the name at ``sentence[a:b]`` a noun adjunct between a count and a plural noun
    ("with the backing of two Varn shipowners")? It classes the things counted; it is not
    where they or anyone else were."""
    before = re.search(r"(\w+)\s+$", sentence[max(0, a - 20) : a])
    after = _NEXT_WORD.match(sentence, b)
    return (
        before is not None
        and before.group(1).lower() in _QUANTIFIERS
        and after is not None
        and after.group(1).endswith("s")
        and not after.group(1).endswith("ss")
        and after.group(1) not in NON_NAME_WORDS
    )


_APPOSITIVE_NOUN = re.compile(
    r",\s+(?:(?:a|an)\s+(?:(?:former|late|young|retired|wealthy|local|leading)\s+)?"
    r"(?:[a-z][\w\-]*\s+)?(?P<noun>[a-z][\w\-]*)\b"
    # … or a bare noun of a body or a post: "Nadia Ferrow, guitarist of the band …"
    r"|(?P<bare>[a-z][\w\-]*)\s+(?:of|at)\s)"
)


def _person_appositive(sentence: str, start: int, end: int) -> bool:
    """Is the name at ``sentence[start:end]`` (a word, not a Chinese name) followed by an
    indefinite appositive whose noun is a person's ("Orm Vell, a former chief clerk",
    "Ada Moe, a salt merchant")? No person's name takes "the" before it."""
    if _CJK.search(sentence[start:end]) or _article_before(sentence, start, sentence[start:end]):
        return False
    m = _APPOSITIVE_NOUN.match(sentence, end)
    return m is not None and head_noun_type(m["noun"] or m["bare"]) == "PERSON"


def _name_occurrences(name: str, text: str) -> list[tuple[int, int]]:
    """Where the graph's entity ``name`` is written in ``text``: anywhere for a Chinese name
    (no spaces part words), and for a name in an alphabet only where no letter or digit
    touches it ("American" is not in "Americans", "Ford" not in "Fordism"; "London-based"
    and "Ford's" still write the name)."""
    found = _occurrences(name, text)
    if not name or _CJK.search(name[0] + name[-1]):
        return found
    return [
        (a, b)
        for a, b in found
        if not (a > 0 and text[a - 1].isalnum()) and not (b < len(text) and text[b].isalnum())
    ]


_ZH_CLAUSE_BREAK = re.compile(r"[，,；;。：:！？!?]")
_EN_WORD = re.compile(r"[a-z][a-z'\-]*")
_LOWER_WORD = re.compile(r"(?<![\w\-])[a-z][a-z'\-]+\b")
# Units of measure that follow a number ("214 kilometres", "3,200 ft", "12 years").
# A Chinese classifier or measure after a number makes it a count, never a year: 床位1200张,
# 1500名学生 (年 itself is not one).
_ZH_CLASSIFIER = re.compile(
    r"(?:个|张|名|位|人|座|所|家|本|部|件|台|辆|架|条|只|头|匹|棵|间|层|次|户|篇|首|种|项|场|届|"
    r"万|亿|千|百|米|公里|千米|平方|吨|元|岁|册|卷|艘|枚|颗)"
)
_UNIT = re.compile(
    r"\s?(?:km|kilomet(?:re|er)s?|miles?|mi|met(?:re|er)s?|m|cm|mm|ft|feet|foot|inch(?:es)?|"
    r"yards?|fathoms?|furlongs?|knots?|kg|kilograms?|grams?|g|pounds?|lbs?|ounces?|oz|stones?|"
    r"hundredweights?|cwt|qrs?|tonnes?|tons?|acres?|hectares?|ha|lit(?:re|er)s?|gallons?|pints?|"
    r"bushels?|dollars?|euros?|shillings?|pence|guineas?|francs?|yuan|"
    r"square\s+(?:miles?|kilomet(?:re|er)s?|met(?:re|er)s?|feet)|sq\s?(?:mi|km|m|ft)|"
    r"years?|months?|weeks?|days?|hours?|minutes?|seconds?|per\s?cent|percent|%)(?![\w])"
)
# The smaller unit of a measure written in two ("3 tons 2 cwt", "5 feet 6 inches",
# "2 hours and 40 minutes").
_NEXT_MEASURE = re.compile(r"\s+(?:and\s+)?\d+(?:\.\d+)?(?=\s?[a-z%])")


def _compound_measure_end(sentence: str, unit: re.Match[str]) -> int:
    """Where the measure whose first unit is ``unit`` ends: after each further number in
    another unit that follows it."""
    end, seen = unit.end(), {unit.group(0).strip().rstrip("s")}
    while (more := _NEXT_MEASURE.match(sentence, end)) is not None:
        nxt = _UNIT.match(sentence, more.end())
        if nxt is None or (name := nxt.group(0).strip().rstrip("s")) in seen:
            break
        seen.add(name)
        end = nxt.end()
    return end


_HOW_MUCH_DID = re.compile(
    r"\bhow\s+much\s+(?:did|does|do|was|is|were|has|had|will|would)\b", re.IGNORECASE
)
# Verbs of sale and payment (stems, as _stem gives them): with "how much" they ask a price.
_EXCHANGE_STEMS = frozenset(
    ["fetch", "sell", "buy", "pay", "cost", "spend", "charg", "earn", "price", "auction"]
)
_CURRENCY_AFTER = re.compile(
    r"\s?(?:(?:million|billion|thousand)\s+)?(?:dollars?|euros?|pounds?|shillings?|pence|"
    r"guineas?|francs?|yuan|yen|marks?|crowns?|kronor|rupees?)\b"
)


def _currency_before(sentence: str, a: int) -> bool:
    """Does a currency sign stand right before ``sentence[a]`` ("£6.2 million")?"""
    return a > 0 and unicodedata.category(sentence[a - 1]) == "Sc"


def _is_money(sentence: str, a: int) -> bool:
    """Is the amount at ``a`` written with its currency sign (on it or right before it)?"""
    return unicodedata.category(sentence[a]) == "Sc" or _currency_before(sentence, a)


_MEASURE_Q = re.compile(
    r"^(?:how\s+(?:long|tall|high|far|deep|wide|big|large|heavy)\b)|"
    r"\b(?:length|height|depth|elevation|distance|weight|area|size|width|duration)\s+of\b|"
    # the measure noun as the wh-word's noun: "What length was the boat?"
    r"^(?:what|which)\s+(?:length|height|depth|elevation|distance|weight|area|size|width|"
    r"duration)\b",
    re.IGNORECASE,
)
# "Norwegian-born", "London-based", "Italian": modifiers, not names of entities.
_MODIFIER_FORM = re.compile(r"-(?:born|based|language|speaking|era|style)$")
_MODIFIER = re.compile(rf"{_MODIFIER_FORM.pattern}|(?:ian|ese|ish|ic|an)$")
_NEXT_WORD = re.compile(r"\s+([a-z][a-z\-]*)\b")
_DEMONYM = re.compile(r"[a-z](?:ian|ese|ish|ican)$")
_ARTICLE_BEFORE = re.compile(r"\b(?:[Aa]n?|[Tt]he)\s+(?:[a-z][a-z\-]*\s+){0,2}$")
_LOCATIVE = re.compile(r"\b(?:in|at|near|from|to|into|across|outside|of)\s+(?:the\s+)?$")
# A second name joined to the one just read: "… of Queen A and King B", "… of A and his
# wife, B".
_PAIR_AFTER = re.compile(r"\s+and\s+(?:(?:the|his|her|their)\s+)?(?:[a-z]+,?\s+)?[A-Z]")
# A relational noun of people, then "of": the name after it is a person's ("the pupil of X",
# "the widow of X"), where "of" otherwise places a name ("the capital of X").
_PERSON_OF = re.compile(r"\b([A-Za-z]+)s?\s+of\s+$")
# Nouns of someone's kin: "the nephew of X" (:data:`_KIN_OF`) names X only as a relative.
_KIN_NOUNS = (*KIN_GENDER, "child", "children", "heir", "widow", "widower")
_PERSON_RELATIONS = frozenset([*_KIN_NOUNS, *CONVERSE_ROLES, "spouse", "friend"])
_AGENTIVE = re.compile(r"\b(?:by|with|and|to|of)\s+$")
# A place named as a landmark, not as what holds the subject: "north of the border with X",
# "near X", "16 km from X", "bordering X".
_LANDMARK_BEFORE = re.compile(
    r"\b(?:border(?:s|ed|ing)?(?:\s+(?:with|of))?|near(?:by)?|close\s+to|next\s+to|adjacent\s+to|"
    r"(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)\s+of|"
    r"(?:km|kilometres|kilometers|miles|mi)\s+(?:\w+\s+)?(?:of|from))\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_ARTICLES = frozenset(["the", "a", "an"])
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=[A-Z])")
_THE_BEFORE = re.compile(r"\b[Tt]he\s+$")


def _short_form(sentence: str, a: int, span: str) -> bool:
    """Is ``span`` (at ``sentence[a:]``) one capitalised class noun after "the" ("the
    Society", "the Company", "the River"): a short form of a name, not a name?"""
    return (
        " " not in span
        and span[:1].isupper()
        and _THE_BEFORE.search(sentence[max(0, a - 5) : a]) is not None
        and head_noun_type(span, False) in ("ORGANIZATION", "LOCATION")
    )


# Capitalised words that are no name alone: function and common words, months and days.
_CAP_STOP = frozenset(w.capitalize() for w in NON_NAME_WORDS | CALENDAR_WORDS)
_CJK_FLAGS = {
    "nr": "PERSON",
    "nrfg": "PERSON",
    "nrt": "PERSON",
    "ns": "LOCATION",
    "nt": "ORGANIZATION",
}
_TYPE_ALIASES = {
    "PERSON": "PERSON",
    "LOCATION": "LOCATION",
    "GPE": "LOCATION",
    "PLACE": "LOCATION",
    "ORGANIZATION": "ORGANIZATION",
    "ORG": "ORGANIZATION",
    "DATE": "DATE",
    "NUMBER": "NUMBER",
}


# A sentence's cosine similarity to the step above the floor counts like shared relation words.
# Both are on all-MiniLM-L6-v2's scale (unrelated sentences near 0.1–0.3, paraphrases at 0.5
# and above); other embedders' cosines are mapped onto it by their measured scale.
_SLOT_BONUS = 2.5  # a name in the role a relative clause asks for (_zh_slot, _en_slot)
_DENSE_FLOOR = 0.3
_DENSE_WEIGHT = 5.0


@dataclass
class _Candidate:
    text: str
    kind: str  # PERSON, LOCATION, ORGANIZATION, DATE, NUMBER, or NAME (unknown)
    score: float = 0.0
    votes: int = 0
    evidence_index: int = 0
    sentence: tuple[int, int] = (0, 0)
    entity_id: str | None = None
    scores: list[float] = field(default_factory=list)
    about: list[float] = field(default_factory=list)  # scores in passages about the subject
    modifier: bool = False  # used as an adjective ("a Chinese journalist")


def _fit(expected: AnswerType, kind: str) -> float:
    """How well a candidate of ``kind`` fits an answer of type ``expected``."""
    if kind == "TITLE":  # a work's title answers "which film/novel", not who/where/which firm
        return 1.0 if expected in ("NAME", "TEXT") else 0.1
    if kind == "NOUN":  # a common noun answers only an open question, and weakly
        return 0.4 if expected in ("NAME", "TEXT") else 0.05
    if expected in ("NAME", "TEXT"):
        return {"DATE": 0.35, "NUMBER": 0.3}.get(kind, 1.0)
    if expected == kind:
        return 1.0
    if expected in ("DATE", "NUMBER"):
        return 0.25 if {expected, kind} == {"DATE", "NUMBER"} else 0.02
    if kind == "NAME":  # a name of unknown type
        return 0.45
    if kind in ("DATE", "NUMBER"):
        return 0.02
    if {expected, kind} == {"LOCATION", "ORGANIZATION"}:
        return 0.3
    return 0.08


_HAN_RUN = re.compile(f"[{HAN}]{{3,}}")
_HAN_ONLY = re.compile(f"[{HAN}]+")
# A renaming verb and its new name: "改名为X", "更名为X", "改称X"; a step asking what
# something was renamed ("改成了什么名字", "更名为什么") reads the name after it.
_ZH_RENAME_Q = re.compile(r"(?:改|更|易)(?:名|称)|改成了?什么名|改叫")
# A step that asks another name a thing goes by: its nickname, byname, 俗称, 绰号 …
_NICKNAME_Q = re.compile(
    r"\b(?:nick-?names?|by-?names?|sobriquets?|pet\s+names?)\b"
    r"|\b(?:what|which)\s+name\b.*\b(?:known|go(?:es)?|went|called)\b"
    r"|\bknown\s+(?:as|by)\s+what\b"
    # "What did the railway call its station", "What was the boat christened"
    r"|^\s*what\s+(?:did|do|does|was|were|is)\b.*\b(?:call|name|christen|dub)(?:ed)?\b"
    r"|俗称|别称|别名|绰号|外号|诨号|昵称|雅号|美称|爱称|人称|又称|又名|叫什么外号",
    re.IGNORECASE,
)
# The name such a phrase gives, in quotes after it: 'known as "the Old Brindle"', 'nicknamed
# "Old Thunder"', 俗称“小雀舌”, 人称“蒲老焙”.
_NICKNAME_GIVEN = re.compile(
    r"(?:\bnick-?named|\bknown\s+(?:locally\s+|widely\s+|simply\s+)?as|\bcalled|\bdubbed"
    r"|\b(?:named|christened|called|dubbed)\s+(?:it|him|her|them)"
    r"|\bnick-?name\s+(?:was|is)|俗称|别称|别名|绰号|外号|诨号|昵称|雅号|美称|爱称|人称|又称|又名"
    r"|称作|称为|称之为|叫作|叫做|唤作)"
    r"[\s:：,，]*(?P<open>[\"“‘'「『])(?P<name>[^\"“”‘’'「」『』]{1,40}?)[\"”’'」』]",
    re.IGNORECASE,
)
_ZH_RENAMED = re.compile(
    rf"(?:改名|更名|易名|改称|改叫)(?:为|作|成)?[“\"《]?(?P<name>[{HAN}A-Za-z0-9]{{2,12}}?)"
    r"(?=[”\"》，。；、,.;（(]|$|此后|后来|以后|之后)"
)
# After a name, a copula and a possessive pronoun before the asked noun: the name is that
# noun of the one the pronoun stands for ("Vell remained her mentor", "Ada Moe was his
# second wife", "Harl Works became its owner").
_EN_POSSESSED_ROLE = (
    r"\s+(?:was|is|were|are|remained|became|had\s+been|has\s+been|served\s+as)\s+"
    r"(?:her|his|their|its)\s+(?:[a-z]+\s+){{0,2}}{head}s?\b"
)
# … and the asked noun first, then the copula and the name (up to where the name starts): "Its
# first president was the dyer Ada Moe" (a class noun may stand before the name).
_EN_ROLE_BEFORE_NAME = (
    r"\b(?:[Ii]ts|[Hh]is|[Hh]er|[Tt]heir|[Tt]he|[Oo]ur)\s+(?:[a-z]+\s+)?{head}\s+"
    # a time it has held since may stand before the copula: "Our team leader since 2016 has
    # been Ada Moe"
    r"(?:(?:since|from|until|in)\s+\d{{4}}\s+)?"
    r"(?:was|is|were|are|became|had\s+been|has\s+been)\s+"
    r"(?:(?:the|a|an)\s+(?:[a-z][\w\-]*\s+){{0,2}})?$"
)
# Who someone learned under, as Chinese says it: 拜Y为师 ("拜药商邵鹤年为师": a class noun may
# stand before the name), 师从Y / 师事Y / 受业于Y.
_ZH_TOOK_AS_TEACHER = re.compile(
    rf"拜(?P<took>[{HAN}A-Za-z·]{{2,12}}?)为师|(?:师从|师事|受业于|从学于)(?P<under>[{HAN}·]{{2,12}})"
)


@functools.lru_cache(maxsize=64)
def _zh_unit_names(units: frozenset[str]) -> re.Pattern[str]:
    """Names of the administrative ``units`` (县, 市 …) after a locative verb, another unit or
    a break: 位于蕺溪县…, 苍梧市西街, 、蕺溪县."""
    unit = "|".join(sorted(units))
    return re.compile(
        rf"(?:位于|地处|坐落于|设在|设于|迁往|迁到|在|于|省|市|县|区|[，、。（(：:])"
        rf"(?P<n>[{HAN}]{{2,3}}?(?:{unit}))"
    )


def _slot_spans(slot: re.Pattern[str], sentence: str) -> list[tuple[int, int]]:
    """The stretches of ``sentence`` that fill ``slot``: each of its alternatives captures one
    named group, the name it holds (:data:`_ZH_TOOK_AS_TEACHER`, :data:`_ZH_TOOK_AS_PUPIL`)."""
    return [m.span(m.lastgroup or 0) for m in slot.finditer(sentence)]


_ZH_TEACHER_NOUNS = frozenset(["师父", "师傅", "老师", "导师", "恩师", "业师", "先生"])
# Who someone took as a pupil, as Chinese says it: 收Y为徒 (为弟子, 为学生), a name with its
# teacher's in brackets after it ("宁小棉（苏映萝弟子）"), Y在X门下 (under X's tutelage): Y is the
# pupil, the converse of the teacher nouns above.
_ZH_PUPIL_NOUNS = frozenset(["徒弟", "弟子", "学生", "门生", "高徒", "学徒", "门徒", "徒"])
_ZH_PUPIL_NOUN = (
    rf"(?:(?:关门|入室|得意)?(?:{'|'.join(sorted(_ZH_PUPIL_NOUNS, key=len, reverse=True))}))"
)
_ZH_TOOK_AS_PUPIL = re.compile(
    rf"收(?P<took>[{HAN}A-Za-z·]{{2,12}}?)为{_ZH_PUPIL_NOUN}"
    rf"|(?P<named>[{HAN}·]{{2,8}})[（(][{HAN}·]{{2,8}}?的?{_ZH_PUPIL_NOUN}[)）]"
    rf"|(?P<disciple>[{HAN}·]{{2,8}}?)(?:曾|早年|先后)?(?:在|投入|拜入|投到)[{HAN}·]{{1,8}}?门下"
)


# Who someone learned under, as English says it: a verb of learning, what was learned, then
# where it came from ("learned the ropes from Y", "studied law under Y", "trained with Y",
# "was apprenticed to Y", "was taught by Y"; a class noun may stand before the name).
_EN_LEARNED_FROM = re.compile(
    r"(?:\b(?i:learn(?:ed|t|s|ing)?|stud(?:ied|ies|y|ying)|train(?:ed|s|ing)?|schooled|"
    r"tutored)\b[^.;:,]{0,30}?\b(?:from|under|with)"
    r"|\b(?i:apprenticed)\b[^.;:,]{0,20}?\b(?:to|under|with)"
    r"|\b(?:taught|coached|tutored|trained)\s+by)"
    # only "the" and a class noun may stand before the name: "with her cousin Y" is no
    # teacher's
    r"\s+(?:the\s+(?:[a-z][\w'’-]*\s+){0,2})?$"
)
# The nouns of the one someone learned under (the English converse of pupil and student).
_EN_TEACHER_NOUNS = frozenset(
    k for k, v in CONVERSE_ROLES.items() if "pupil" in v or "student" in v
)
# 该 / 此 + a noun points back to something named before ("常驻该园", "此校"): never a name.
_ZH_ANAPHOR = re.compile(f"[该此][{HAN}]{{1,2}}")
_HAN_NAME = re.compile(f"[{HAN}]{{2,4}}")  # a Chinese personal name: two to four characters
# Entity types worth finding by name in passages whose extraction missed them.
_KNOWN_NAME_TYPES = frozenset(["PERSON", "ORGANIZATION", "LOCATION", "WORK"])


@dataclass
class GraphView:
    """What the reader may ask the graph: entities named in chunks, their types, relations."""

    linker: Any = None  # kg_rag.retrieval.graph.EntityLinker
    store: Any = None  # kg_rag.stores.chunks.LanceChunkStore (sentence vectors)

    def sentence_similarity(
        self, query: str, evidence: Sequence[Evidence]
    ) -> dict[str, list[tuple[int, int, float]]]:
        """doc id → [(start, end, cosine)] of every stored sentence of ``evidence``'s documents
        against ``query`` (exact cosine over the documents' sentence vectors)."""
        if self.store is None or not evidence:
            return {}
        docs = sorted({e.doc_id for e in evidence})
        return dict(self.store.sentence_similarity(query, docs))

    def doc_titles(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """doc id → document title (what each document is about), when the store keeps them."""
        titles = getattr(self.store, "document_titles", None)
        return dict(titles(sorted(set(doc_ids)))) if titles is not None and doc_ids else {}

    def names_in(self, texts: Sequence[str]) -> list[tuple[str, str, str]]:
        """(entity id, name, type) of the graph's Chinese names of three or more characters
        written in ``texts``: a name the segmenter missed in one passage ("该报隶属于锦帆传媒")
        is still the entity another passage defined. One index lookup of every Han substring
        of three to eight characters, on names only (no alias search per substring)."""
        graph = getattr(self.linker, "graph", None)
        if graph is None or not texts:
            return []
        keys: set[str] = set()
        for text in texts:
            for run in _HAN_RUN.findall(text):
                for n in range(3, min(8, len(run)) + 1):
                    keys.update(run[i : i + n] for i in range(len(run) - n + 1))
        if not keys:
            return []
        return [
            (e.entity_id, e.name, e.type)
            for e in graph.entities_named(sorted(keys), aliases=False)
            if _CJK.match(e.name) and e.type.upper() in _KNOWN_NAME_TYPES
        ]

    def chunk_entities(self, chunk_ids: Sequence[str]) -> dict[str, list[tuple[str, str, str]]]:
        """chunk id → [(entity id, name, type)] for the entities each chunk mentions."""
        if self.linker is None or not chunk_ids:
            return {}
        mentions = self.linker.graph.entities_for_chunks(list(chunk_ids))
        out: dict[str, list[tuple[str, str, str]]] = {}
        for cid, ids in mentions.items():
            for eid in ids:
                ent = self.linker.entity(eid)
                if ent is not None:
                    out.setdefault(cid, []).append((eid, ent.name, ent.type))
        return out

    def usage(self, names: Sequence[str], entity_ids: Sequence[str | None]) -> dict[str, list[str]]:
        """name → the sentences the graph keeps about it (the descriptions of the entity
        ``entity_ids`` gives, else of the entities so named): how the corpus uses a name."""
        if self.linker is None or not names:
            return {}
        out: dict[str, list[str]] = {}
        unnamed = {normalize_name(n): n for n, e in zip(names, entity_ids, strict=True) if not e}
        found = self.linker.graph.entities_named(sorted(k for k in unnamed if k))
        by_key: dict[str, list[str]] = {}
        for ent in found:
            by_key.setdefault(normalize_name(ent.name), []).append(ent.description or "")
        for name, eid in zip(names, entity_ids, strict=True):
            if eid:
                ent = self.linker.entity(eid)
                out[name] = [ent.description or ""] if ent is not None else []
            else:
                out[name] = by_key.get(normalize_name(name), [])
        return out

    def related(self, entity_ids: Sequence[str]) -> set[str]:
        """Entities one relation away from ``entity_ids`` (the neighbourhood the graph route
        reads, :data:`RELATED_LIMIT` relations at most)."""
        if self.linker is None or not entity_ids:
            return set()
        found: set[str] = self.linker.graph.neighbour_ids(list(entity_ids), limit=RELATED_LIMIT)
        return found


def _get(le: Any, key: str) -> str:
    """A field of a linked entity, given as a model or as a dict."""
    value = le.get(key, "") if isinstance(le, dict) else getattr(le, key, "")
    return str(value or "")


_ZH_PROPER_FLAGS = frozenset([*_CJK_FLAGS, "nz"])  # jieba's tags of names


def _zh_proper_stem(text: str) -> bool:
    """Does the Chinese ``text`` hold a proper name: a word the segmenter tags as one, or a
    word of two or more characters its lexicon lacks?"""
    return any(
        flag in _ZH_PROPER_FLAGS or (len(word) > 1 and not _zh_in_lexicon(word))
        for word, flag in pos_tags(text)
        if _CJK.match(word)
    )


def _partners(name: str) -> bool:
    """Is ``name`` partners' names joined by an ampersand ("Lintel & Moss", "AT&T")? Only a
    firm is named so: no person, and no place or work one would ask for by a person noun."""
    return "&" in name.strip("&").strip()


def _kind_of_span(span: str, before: str, expected: AnswerType) -> str:
    if DATE_RX.fullmatch(span):
        return "DATE"
    if re.fullmatch(r"[\d,.\s]+(?:million|billion|thousand|万|亿)?", span):
        return "NUMBER"
    related = _PERSON_OF.search(before)
    if related is not None and related.group(1).lower() in _PERSON_RELATIONS:
        return "PERSON"  # "the pupil of Bram Oake", "a daughter of Orm Vell": a person's
    if _LOCATIVE.search(before):
        return "LOCATION"
    if _partners(span):
        return "ORGANIZATION"
    # A name holding a typed noun: "River Osk", "Brenna County", "Dunmore University".
    for word in span.split()[1:] + span.split()[:1]:
        kind = head_noun_type(word.lower().strip(".,'’"))
        if kind in ("LOCATION", "ORGANIZATION") and len(span.split()) > 1:
            return kind
    return "NAME"


# Titles carry a gender in English as kin nouns do (:data:`KIN_GENDER`).
_TITLE_GENDER = {
    **dict.fromkeys(
        [
            "king",
            "prince",
            "duke",
            "archduke",
            "count",
            "earl",
            "baron",
            "marquess",
            "lord",
            "sir",
            "emperor",
            "tsar",
            "sultan",
            "mr",
        ],
        "m",
    ),
    **dict.fromkeys(
        [
            "queen",
            "princess",
            "duchess",
            "archduchess",
            "countess",
            "baroness",
            "marchioness",
            "lady",
            "dame",
            "empress",
            "tsarina",
            "sultana",
            "mrs",
            "miss",
            "ms",
        ],
        "f",
    ),
}


def _article_before(sentence: str, start: int, name: str) -> bool:
    """Is the English name at ``start`` written after a lower-case "the" ("the Kell
    Arboretum")? A person's name takes no article, except after a title ("the Duke of Orm")
    or as a generation ("the younger")."""
    first = name.split(maxsplit=1)[0].lower().rstrip(".") if name.strip() else ""
    return (
        sentence[max(0, start - 4) : start] == "the "
        and (start == 4 or not sentence[start - 5].isalnum())
        and first not in HONORIFICS
        and not _CJK.match(name)
    )


def _title_gender(span: str) -> str | None:
    """The gender ("m" or "f") of the title the name opens with ("Queen Maren", "Duke Orm of
    Quenmark"), else None."""
    first = span.split(maxsplit=1)[0].lower().rstrip(".") if span.strip() else ""
    return _TITLE_GENDER.get(first)


_APPOSITIVE_GENDERED = re.compile(
    r"\s*,\s+(?:an?|the|his|her|their|its)\s+(?:[a-z][\w\-]*\s+){0,2}(?P<noun>[A-Za-z]+)"
    r"(?=\s*(?:[,.;:)]|$|\s+(?:of|and|who|from|in|at|to|for|with)\b))"
)
_NOUN_GENDER = {
    **dict.fromkeys(["man", "boy", "widower", "actor"], "m"),
    **dict.fromkeys(["woman", "girl", "lady", "widow"], "f"),
}


def _appositive_gender(sentence: str, end: int) -> str | None:
    """The gender ("m" or "f") of the noun of an appositive right after a name ("Ada Moe, an
    actress", "Orm Vell, her husband", "Ada Moe, his second wife"): a kin noun, a title, a
    noun of a man or a woman, or an -ess noun of a woman (actress, heiress, duchess)."""
    m = _APPOSITIVE_GENDERED.match(sentence, end)
    if m is None:
        return None
    noun = m["noun"].lower()
    found = KIN_GENDER.get(noun) or _TITLE_GENDER.get(noun) or _NOUN_GENDER.get(noun)
    if found is None and len(noun) > 5 and noun.endswith("ess") and not noun.endswith("ness"):
        found = "f"  # actress, heiress, poetess (not business, witness: -ness, too short)
    return found


_HONORIFIC = re.compile(r"(?:Hon|Dr|Rev|Mr|Mrs|Ms|Prof|Gen|Col|Capt|Lt|Sgt)\.\s+(?=[A-Z])")
_OF_THE = " of the "


def _split_people(
    sentence: str,
    names: Sequence[re.Match[str]],
    spans: list[tuple[int, int, str, str | None]],
    expected: AnswerType,
) -> list[tuple[int, int, str, str | None]]:
    """``spans`` with every "A B and C D" (two full names, or titled names, joined by "and")
    read as two people: "starring Ama Quell and Orm Bask" names two, not one; and with the
    person of "Ama Quell of the Osk Party" (a full name without a title before "of the") as a
    candidate of its own. ``names``: the sentence's ``_CAP_NAME`` matches."""
    out = list(spans)
    for m in names:
        left, of, _ = m.group(0).partition(_OF_THE)
        if of and len(left.split()) >= 2 and _title_gender(left) is None:
            out.append((m.start(), m.start() + len(left), "PERSON", None))
    for m in names:
        parts = m.group(0).split(" and ")
        if len(parts) < 2 or not all(
            len(p.split()) >= 2 or _title_gender(p) is not None for p in parts
        ):
            continue
        out = [sp for sp in out if not (sp[0] == m.start() and sp[1] > m.start() + len(parts[0]))]
        at = m.start()
        for part in parts:
            end = at + _without_determiner(part)
            out.append((at, end, _kind_of_span(part, sentence[:at], expected), None))
            at += len(part) + len(" and ")
    return out


def _carries_org_noun(span: str) -> bool:
    """Does the name hold an organisation's noun ("Tollby University", "Varn General
    Hospital")? Whatever preposition led to it, it names an institution, not a place."""
    words = span.split()
    return len(words) > 1 and any(
        head_noun_type(w.lower().strip(".,'’")) == "ORGANIZATION" for w in words
    )


def _sentences(text: str) -> list[tuple[int, int]]:
    spans = split_sentences(text)
    return spans or [(0, len(text))]


def is_word_not_name(name: str) -> bool:
    """Is the two-character "name" ``name`` a word of the dictionary whose first character is
    no common surname (索引, 嘉禾, 宁可)? jieba tags such words ``nr`` on a guess at a rare
    surname (索); an unknown pair (岑明) or one opening with a common surname (高明) may
    still be a name."""
    return (
        len(name) == 2
        and _CJK.match(name) is not None
        and name[0] not in CHINESE_SURNAMES
        and _freq(name) > 0
    )


_COUNTED_NOUN = re.compile(r"\bhow\s+many\s+([a-z]+s)\b", re.IGNORECASE)
# An ordinal before a role noun asked ("the first principal of X", "its founding editor").
_ORDINAL_ROLE = re.compile(
    r"\b(first|second|third|fourth|fifth|last|founding)\s+([a-z][\w\-]*)\b", re.IGNORECASE
)
# A value said to be the former one ("原为1万元", "originally 40"), or the one it was raised or
# changed to ("提高到5万元", "increased to 120"); and a question that asks the first value.
_FORMER_VALUE = re.compile(
    r"(?:原为|原先为|原先是|原来是|原来为|原是|起初为|起初是|最初为|最初是|初为)$"
    r"|\b(?:originally|initially|formerly|at\s+first)\s+(?:was\s+|were\s+|had\s+|of\s+)?$",
    re.IGNORECASE,
)
_CHANGED_TO = re.compile(
    r"(?:提高|增加|增|上调|下调|涨|升|提升|调整|改|降低|降|减少|减|扩大|扩充|缩减)(?:到|至|为)$"
    r"|\b(?:raised|increased|rose|risen|grew|grown|went\s+up|climbed|cut|reduced|lowered|"
    r"fell|dropped|expanded|doubled|changed)\s+to\s+$",
    re.IGNORECASE,
)
_ASKS_ORIGINAL = re.compile(
    r"原来|原先|最初|起初|当初|一开始|\b(?:originally|initially|at\s+first)\b", re.IGNORECASE
)
_ORDINAL_ITEM = re.compile(
    r"头一|第[一二三四五六七八九十\d]|首[版届任次]|初版|\b(?:first|second|third|last)\b",
    re.IGNORECASE,
)
# A successor named in a clause of the year a tenure ended: "…until 1991, when his daughter Y
# took over", "…, when Y succeeded him".
_SUCCESSOR_BEFORE = re.compile(r"\bwhen\s+(?:(?:his|her|their|the)\s+)?(?:[a-z]+\s+){0,2}$")
_SUCCESSOR_AFTER = re.compile(
    r"\s+(?:took\s+over|succeeded|replaced|stepped\s+in|was\s+appointed|became|followed)\b"
)
# A relative clause of someone's kin after a name: "X, whose father had kept the lock".
_WHOSE_KIN_VERB = re.compile(
    rf",?\s+whose\s+(?:{'|'.join(_KIN_NOUNS)})s?\s+(?:had\s+|has\s+|was\s+|were\s+)?"
    r"(?:also\s+|once\s+|long\s+)?([a-z]+)\b"
)


def _relates(verb: str, terms: Collection[str]) -> bool:
    """Is ``verb`` the relation of ``terms``: the same stem, or the stem of an agent noun
    among them ("kept" for keeper)?"""
    stem = _stem(verb)
    return stem in terms or bool(_agent_forms(stem) & set(terms))


# A merger and what it formed: "merged with Y to form Z", "… and the combined business took the
# name Z", "merged into Z".
_MERGE_VERB = re.compile(r"\b(?:merg(?:e|ed|es|ing)|amalgamat\w*)\b", re.IGNORECASE)
_MERGER_RESULT = re.compile(
    r"\b(?:to\s+form|forming|formed|took\s+the\s+name|under\s+the\s+name|renamed|"
    r"merged\s+into)\s+(?:the\s+)?(?:[\w'’&-]+\s+){0,2}$",
    re.IGNORECASE,
)
_UNITS_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine)"
# English cardinals in words, two to ninety-nine and round hundreds (a closed class).
_NUMBER_WORD = (
    rf"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-{_UNITS_WORD})?"
    r"|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    rf"|sixteen|seventeen|eighteen|nineteen|(?:a|{_UNITS_WORD})\s+hundred)"
)
_NUMBER_WORDS = re.compile(rf"\b{_NUMBER_WORD}\b", re.IGNORECASE)
# An age in words: "aged seventy-eight", "at the age of eighty", "He was seventy-eight."
_AGE_IN_WORDS = re.compile(
    rf"\b(?:aged|age\s+of|(?:he|she)\s+was)\s+(?P<n>{_NUMBER_WORD})\b", re.IGNORECASE
)
_WORD_AFTER_NUMBER = re.compile(r"\s+([A-Za-z]+)\b")
# What a value is said at: a year ("in 2017", "2017年") or a funding round ("Series B",
# "B轮", "天使轮", "seed round").
_ASKED_AT = re.compile(
    r"(?P<year>(?<![\d.,])(?:1[5-9]|20)\d{2}(?![\d.,%])(?=年|[^\d年]|$)(?![名人元家座位个所]))"
    r"|(?:\bSeries\s+(?P<series>[A-H])\b|(?<![A-Za-z])(?P<zh_round>[A-H])\+?轮"
    r"|(?P<named_round>天使|种子)轮|\b(?P<en_round>seed|angel)\s+round\b)",
    re.IGNORECASE,
)
# What ends the clause a value is said in.
_QUALIFIER_CLAUSE = re.compile(r"[，,；;。\n|]")


def _qualifiers(text: str, start: int, end: int) -> dict[str, list[tuple[int, str]]]:
    """(offset, value) of each year and funding round in ``text[start:end]``, by class."""
    out: dict[str, list[tuple[int, str]]] = {}
    for m in _ASKED_AT.finditer(text, start, end):
        if m["year"]:
            out.setdefault("year", []).append((m.start(), m["year"]))
        else:
            label = m["series"] or m["zh_round"] or m["named_round"] or m["en_round"]
            out.setdefault("round", []).append(
                (m.start(), label.lower().replace("种子", "seed").replace("天使", "angel"))
            )
    return out


def _qualifier_factor(
    sentence: str, a: int, b: int, asked_at: dict[str, list[tuple[int, str]]]
) -> float:
    """How a value at ``sentence[a:b]`` fits the year or round the question asks it at: the
    nearest qualifier of that class in its clause is the one asked (×2) or another (×0.35);
    a clause without one says nothing."""
    starts = [m.end() for m in _QUALIFIER_CLAUSE.finditer(sentence, 0, a)]
    stop = _QUALIFIER_CLAUSE.search(sentence, b)
    clause = (starts[-1] if starts else 0, stop.start() if stop else len(sentence))
    found = _qualifiers(sentence, *clause)
    factor = 1.0
    for cls, asked in asked_at.items():
        near = [(abs(at - a), v) for at, v in found.get(cls, []) if not a <= at < b]
        if not near:
            continue
        value = min(near)[1]
        factor *= 2.0 if value in {v for _, v in asked} else 0.35
    return factor


def _row_year_factor(
    text: str, a: int, asked: Sequence[tuple[int, str]], tenure: str | None = None
) -> float:
    """For a name in a table row: ×2 when the row writes the year asked, ×0.35 when it writes
    only another year, 1.0 when it writes none. With ``tenure`` ("start" for "since 2012",
    "end" for "until 1991") a span of years in the row that begins or ends at the year asked
    says whether the row's holder came then or left then: "| X | 1986–2012 |" ended in 2012,
    so it is not who has held the post since 2012 (×0.35), "| Y | 2012– |" is (×2)."""
    start = text.rfind("\n", 0, a) + 1
    end = text.find("\n", a)
    row = text[start : end if end >= 0 else len(text)]
    if "|" not in row:
        return 1.0
    years = {v for _, v in _qualifiers(row, 0, len(row)).get("year", [])}
    if not years:
        return 1.0
    wanted = {v for _, v in asked}
    spans = [(m["first"], m["last"] or "") for m in _YEAR_SPAN.finditer(row)]
    if tenure is not None:
        began = any(first in wanted for first, _ in spans)
        ended = any(last in wanted for _, last in spans)
        if began != ended:
            return 2.0 if began == (tenure == "start") else 0.35
    elif spans and not years & wanted and all(w.isdigit() for w in wanted):
        # "in 1979" read off "| Piers Gorrell | 1966–1983 |": the row's span holds the year
        held = any(
            int(first) <= int(w) <= int(last or "9999") for first, last in spans for w in wanted
        )
        return 2.0 if held else 0.35
    return 2.0 if years & wanted else 0.35


# A span of years in a table cell: "1986–2012", "2012–", "2012-present".
_YEAR_SPAN = re.compile(
    r"(?<![\d.,])(?P<first>(?:1[5-9]|20)\d{2})\s*[–—-]\s*"
    r"(?:(?P<last>(?:1[5-9]|20)\d{2})(?![\d.,])|(?:present|now|today)\b|(?=\s*\|))",
    re.IGNORECASE,
)
# The preposition before the year a holder is asked at: "since 2012" asks who came then,
# "until 1991" who left then.
_TENURE_START = re.compile(r"\b(?:since|starting\s+in|beginning\s+in)\s+(?:1[5-9]|20)\d{2}\b", re.I)
_TENURE_END = re.compile(r"\b(?:until|till|up\s+to)\s+(?:1[5-9]|20)\d{2}\b", re.I)


def _tenure(query: str) -> str | None:
    """ "start" when ``query`` asks a holder since a year, "end" when until a year, else None."""
    start, end = _TENURE_START.search(query), _TENURE_END.search(query)
    if (start is None) == (end is None):
        return None
    return "start" if start is not None else "end"


# A question about who holds a post now: "Who is the head coach of X?", "Who directs X?",
# "… currently runs", "现任所长是谁", "现在的院长". A past tense ("Who was …", "Who directed …")
# or a year ("… in 2016") asks another time.
_NOW_WORDS = re.compile(
    r"\b(?:current(?:ly)?|now|today|nowadays|presently|at\s+present)\b|现任|现在|目前|如今|眼下|当前"
)
_PRESENT_WHO = re.compile(
    r"^\s*(?:who|(?:the\s+)?(?:person|one)\s+who|whoever)\s+"
    r"(?:is\b|has\s+been\b|(?!was\b|has\b|does\b)[a-z]+s\b)",
    re.IGNORECASE,
)
# Who made or did a thing once holds no post: "Who is the founder of X" asks the founding,
# whenever it was ("who is" asks the holder now only of a post).
_ONCE_AGENTS = frozenset(
    [
        *("founder", "co-founder", "cofounder", "creator", "author", "writer", "architect"),
        *("designer", "builder", "inventor", "discoverer", "winner", "recipient", "maker"),
        *("composer", "illustrator", "translator", "painter", "sculptor", "donor", "buyer"),
    ]
)
# A span of years that has ended, said of the name before it in its clause: "X managed the club
# from 2011 to 2018", "X, who led it from 1994 to 2012", "X (1994–2012)", "X（1994—2012年任所长）".
_ENDED_TENURE = re.compile(
    r"(?:\bfrom\s+|\bbetween\s+|[(（]\s*)?(?:1[5-9]|20)\d{2}\s*(?:年)?\s*"
    r"(?:[–—-]+|\bto\b|\band\b|\buntil\b|\btill\b|至|到)\s*(?:1[5-9]|20)\d{2}(?!\d)"
    r"|\buntil\s+(?:1[5-9]|20)\d{2}\b"
)
# … and one that goes on: "Y, who has been head coach since 2018", "2017年起" ("Y（1955年— ）"
# may be a living person's birth year: no tenure).
_OPEN_TENURE = re.compile(
    r"\bsince\s+(?:(?:the\s+)?(?:spring|summer|autumn|fall|winter|end|start)\s+(?:of\s+)?)?"
    r"(?:1[5-9]|20)\d{2}\b|(?:1[5-9]|20)\d{2}\s*年?\s*[–—-]+\s*(?:present|now|today)"
    r"|(?:1[5-9]|20)\d{2}\s*年(?:起|以来)|至今"
)
# The one a successor followed: "She succeeded X", "took over from X", "接替X" (X held it before).
_PREDECESSOR_BEFORE = re.compile(
    r"(?:\b(?:succeeded|replaced|took\s+over\s+from|followed|retired\s+as)\s+"
    r"(?:(?:the\s+)?(?:long-serving|veteran|retiring|founding|outgoing)\s+)?"
    r"(?:[a-z]+\s+){0,2}|接替|接过|前任|原任)$"
)
# The successor: "… was succeeded by Y", "由Y接任", "Y接任".
_SUCCESSOR_MARK = re.compile(
    r"\b(?:succeeded|replaced|followed)\s+by\s+(?:[a-z]+\s+){0,2}$"
    r"|\b(?:current|present|incumbent)\s+(?:[a-z\-]+\s+){0,2}$|(?:现任|现)[^，,。]{0,8}$"
)
# … or the successor as the subject: "Y succeeded X", "Y, who took over from X", "乔Y接替父亲".
_SUCCEEDS_AFTER = re.compile(
    r"^\s*(?:,\s*who\s+)?(?:succeeded|replaced|took\s+over)\b|^[^，,。]{0,4}?(?:接任|继任|接替|接过)"
)
# A clause that opens with the year a tenure began: "Since 2015 the line has been run by Y".
_SINCE_OPENING = re.compile(
    r"\bsince\s+(?:1[5-9]|20)\d{2}\b[^.;]*\b(?:has|have)\s+been\b|(?:1[5-9]|20)\d{2}\s*年(?:起|以来)",
    re.IGNORECASE,
)
# A name, then the verb of leaving a post: "X stepped down", "X, who retired in …", "X转任名誉董事长".
_LEFT_POST = re.compile(
    r"^\s*(?:,\s*who\s+)?(?:stepped\s+down|retired|resigned)\b"
    r"|^[^，,。]{0,4}?(?:转任|改任|调任|卸任|退休|离任|辞去|辞任)"
)
# A naming event: "renamed", "adopted the name", "began trading as", "更名", "改称".
_NAMING_EVENT = re.compile(
    r"\b(?:re-?named|rebranded|(?:adopted|took|assumed)\s+the\s+(?:new\s+)?name|"
    r"changed\s+its\s+name|became\s+known\s+as|(?:began|started)\s+trading\s+as)\b"
    r"|更名|改名|改称|易名",
    re.IGNORECASE,
)
# … and a founding said in the same place: "founded in 1861 as X, renamed Y in 1974".
_FOUNDING_WORD = re.compile(
    r"\b(?:found(?:ed|ing)?|established|set\s+up|opened|started)\b|成立|创办|创立|创建|开办|始创",
    re.IGNORECASE,
)
_ZH_FOUNDING = frozenset(["成立", "创办", "创立", "创建", "建立", "开办"])
# A name that owns the kin noun after it: "X之子", "X的女儿", "X's son".
_KIN_OF_NAME = re.compile(
    r"(?:之|的)(?:长|次|幼|独)?(?:子|女|儿子|女儿|孙|孙子|孙女|妻|夫人|丈夫|侄|外甥|女婿)"
    r"|['’]s\s+(?:eldest\s+|younger\s+|elder\s+|only\s+)?"
    r"(?:son|daughter|wife|husband|nephew|niece|grandson|granddaughter|son-in-law)\b"
)
_FORMER_BEFORE = re.compile(r"\b(?:former|previous|then|late|retired)\s+(?:[a-z\-]+\s+){0,2}$")


def _asks_now(query: str, bare: bool = True) -> bool:
    """Does ``query`` ask who holds a post now (see :data:`_NOW_WORDS`)? ``bare``: a noun
    phrase with no verb may ask it (not when it is of a person: "teacher of X" is no post)."""
    if re.search(r"\b(?:1[5-9]|20)\d{2}\b|\d{4}年", query):
        return False
    if _NOW_WORDS.search(query):
        return True
    copula = re.match(r"^\s*who\s+(?:is|has\s+been)\s+(?:the\s+)?([a-z\-]+)", query, re.I)
    if copula is not None and copula.group(1).lower() in _ONCE_AGENTS:
        return False
    if _PRESENT_WHO.match(query) is not None:
        return True
    # "head coach of Tarnby City", as a step of "Name the head coach of …": a post named with
    # no verb and no time is its holder now ("first principal of X", "founder of X" are not)
    np = re.match(r"^\s*(?:the\s+)?((?:[a-z\-]+\s+){0,2}[a-z\-]+)\s+of\s+\S", query)
    if not bare or np is None or _ORDINAL_ITEM.search(np.group(1)):
        return False
    words = np.group(1).lower().split()
    return (
        words[-1] not in _ONCE_AGENTS
        and words[-1] not in KIN_GENDER
        and not any(w in AUXILIARIES or w in NON_NAME_WORDS or is_participle(w) for w in words)
        and head_noun_type(words[-1]) == "PERSON"
    )


def _holder_now_factor(sentence: str, a: int, b: int) -> float:
    """For a question about who holds a post now, the weight of the name at ``sentence[a:b]``:
    ×0.4 when its clause says its tenure ended ("X managed the club from 2011 to 2018", "She
    succeeded X", "the former director X", "X stepped down"), ×1.5 when it says the tenure
    goes on ("Y, who has been head coach since 2018", "was succeeded by Y", "现任院长Y"), else
    1.0 (also for a name that owns the kin after it: "X之子Y")."""
    before = sentence[max(0, a - 40) : a]
    after = re.split(r"[;；。]|\.\s", sentence[b : b + 80], maxsplit=1)[0]
    if _SUCCESSOR_MARK.search(before) or _SUCCEEDS_AFTER.search(after):
        return 1.5
    if _PREDECESSOR_BEFORE.search(before) or _FORMER_BEFORE.search(before):
        return 0.4
    if _LEFT_POST.search(after):
        return 0.4
    if _KIN_OF_NAME.match(after):
        return 1.0  # "由裴某之子裴某出任", "X's son Y took over": the kin holds it, not X
    lead = after[:60]  # (the clause: ``after`` stops at its end)
    if _ENDED_TENURE.search(lead):
        return 0.4
    if _OPEN_TENURE.search(lead):
        return 1.5
    # "Since 2015 the company has been run by Y": the clause opens with the year it began
    clause = re.split(r"[;；。]|\.\s|,\s+(?:and|but)\s", sentence[:a])[-1]
    since = _SINCE_OPENING.search(clause)
    if (
        since is not None
        and not _ENDED_TENURE.search(clause)
        # the clause the year opens, not a later one ("2011年起，由Y出任，X本人转任…")
        and len(re.findall(r"[,，]", clause[since.end() :])) <= 1
    ):
        return 1.5
    return 1.0


def _initials(name: str) -> str:
    """The initials of a name of two or more capitalised words ("Altamere Aircraft Works" →
    "AAW"; "of", "and", "the" skipped), or "" for another name."""
    words = [w for w in name.split() if w[:1].isupper() and w.lower() not in ("the",)]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


# A capitalised word right after a span (no comma, no stop between): the span is a cut name.
_CUT_NAME_AFTER = re.compile(r" (?!(?:I|A|The|An)\b)[A-Z][a-z]")
_ZH_NUMBERED_INSTITUTION = re.compile(
    rf"第[一二三四五六七八九十\d]{{1,3}}[{HAN}]{{0,4}}?"
    r"(?:人民医院|医院|中学|小学|大学|学院|学校|研究所|研究院|实验室|工厂|厂|分院|分公司|分店)"
)


# What may follow a Chinese name: a conjunction (和, 与, 及) with something after it to join,
# a pause, 的, a bracket or the end. A 和 before a pause joins nothing, so it ends the name
# ("专家温景和，毕业后…": the name is 温景和).
_ZH_NAME_END = r"[和与及](?![，,。；;、！!？?）)」”]|$)|[、，,。；;的（(]|$"


@functools.lru_cache(maxsize=4096)
def _cjk_candidates(sentence: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, kind) of Chinese names in ``sentence``: titles in 《》, jieba's
    person/place/organisation words, a surname joined to its given name, nouns followed by a
    place or org suffix, the offline extractor's spans, and a person named after a role noun.

    Memoised: a sentence is read by every step whose evidence holds it and again by the
    synthesizer's checks, and part-of-speech tagging is the costliest part of reading it."""
    words = pos_tags(sentence)
    out: list[tuple[int, int, str]] = []
    for m in re.finditer(r"《([^《》]{1,30})》", sentence):
        out.append((m.start(1), m.end(1), "TITLE"))  # a work: a book, film, album …
    # Then the offline extractor's spans: where it and a raw jieba tag read the same stretch
    # differently (主持人祁朔: a person, which jieba tags a place), the extractor's type wins.
    for span in find_chinese_spans(sentence)[0]:
        span_kind = _TYPE_ALIASES.get(span.type.upper(), "NAME")
        if (
            span_kind not in ("DATE", "NUMBER")
            and sentence[span.start : span.start + 1] not in "于在从向和与及"
        ):
            out.append((span.start, span.end, span_kind))
    pos = 0
    i = 0
    while i < len(words):
        word, flag = words[i]
        start = sentence.find(word, pos)
        if start < 0:
            i += 1
            continue
        end = start + len(word)
        kind = _CJK_FLAGS.get(flag)
        if flag == "nr" and i + 1 < len(words):
            nxt, nflag = words[i + 1]
            # jieba splits unknown names: surname + given name (1–2 characters).
            after = words[i + 2][1] if i + 2 < len(words) else "x"
            if (
                len(word) <= 2
                and _CJK.match(nxt)
                and len(nxt) <= 2
                and nxt not in ZH_EVENT_WORDS  # 岑州 + 去世/t: the event after a name
                and (
                    not nflag.startswith(("v", "p", "u", "c", "d", "r", "m", "q", "f", "a", "t"))
                    # 谭 + 启明/v + 担任: a lone surname takes a two-character given name that
                    # jieba read as a word when a verb, particle or stop follows it.
                    or (
                        len(word) == 1
                        and len(nxt) == 2
                        and nflag.startswith(("v", "a"))
                        and after.startswith(("v", "p", "u", "x"))
                    )
                    # 岑伯 + 年/m + 是: a unit of time with no numeral before it is no time
                    # phrase; it ends a three-character name.
                    or (
                        len(word) == 2
                        and len(nxt) == 1
                        and nflag == "m"
                        and not _ZH_NUMERAL_CHAR.match(nxt)
                        and after.startswith(("v", "p", "u", "x"))
                    )
                )
            ) and len(word) + len(nxt) <= 4:
                end = start + len(word) + len(nxt) - (1 if glued_after_name(nxt) else 0)
                i += 1
                if closes_with_admin_unit(sentence[start:end]):
                    kind = "LOCATION"  # 江 + 城市 is the city 江城市, as the extractor reads it
        if (
            i + 1 < len(words)
            and flag.startswith("n")
            and len(words[i + 1][0]) == 1
            and zh_noun_type(word + words[i + 1][0]) in ("LOCATION", "ORGANIZATION")
            and words[i + 1][1].startswith("n")
        ):
            # A name and its one-character place or organisation suffix: 柳溪 + 市.
            kind = zh_noun_type(word + words[i + 1][0])
            end += len(words[i + 1][0])
            i += 1
        if kind is None and flag.startswith("n") and len(word) >= 2:
            # jieba's plain nouns (商业, 技术) are common nouns; nz/nrt/… and unknown
            # words may be names.
            kind = "NOUN" if flag in ("n", "vn", "an", "ng") else "NAME"
        if kind == "PERSON" and is_word_not_name(sentence[start:end]):
            kind = "NAME"  # 索引/nr: a dictionary word on a guess at a rare surname
        if _ZH_COUNTED.match(sentence[start:end]) or word in CHINESE_KIN_WORDS:
            kind = None  # "二人", "三位": a count of people; 哥哥: a kinship noun, no name
        if kind is not None and _CJK.match(word):
            out.append((start, end, kind))
        pos = end
        i += 1
    # A numbered institution of a place: "鹭川市第一人民医院", "栖棠县第二中学" (jieba cuts it
    # 鹭川市/第一/人民/医院院长): the place, the ordinal, and up to the first institution noun.
    for a, b, kind in list(out):
        if kind != "LOCATION":
            continue
        numbered = _ZH_NUMBERED_INSTITUTION.match(sentence, b)
        if numbered is not None:
            out.append((a, numbered.end(), "ORGANIZATION"))
    # A person named right after a role noun: "吉他手何北川", "校长为欧阳明哲".
    from extraction.lexicon import CHINESE_COMPOUND_SURNAMES, CHINESE_SURNAMES

    for w, _a, b in _tokens_with_offsets(words, sentence):
        if len(w) < 2 or zh_noun_type(w) != "PERSON":
            continue
        at = b + (1 if sentence[b : b + 1] in ("为", "是") else 0)
        rest = sentence[at : at + 5]
        surname = (
            2
            if rest[:2] in CHINESE_COMPOUND_SURNAMES
            else (1 if rest[:1] in CHINESE_SURNAMES else 0)
        )
        if not surname:
            continue
        size = f"{{{surname + 1},{surname + 2}}}"
        name = re.match(rf"[{HAN}]{size}?(?={_ZH_NAME_END})", rest)
        if name is not None:
            out.append((at, at + len(name.group(0)), "PERSON"))
    return tuple(out)


def _tokens_with_offsets(
    words: Sequence[tuple[str, str]], sentence: str
) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    pos = 0
    for w, _ in words:
        start = sentence.find(w, pos)
        if start < 0:
            continue
        out.append((w, start, start + len(w)))
        pos = start + len(w)
    return out


# "多部电影", "这家公司": a count or a pointer, not a name.
_ZH_QUANTIFIER = re.compile(
    r"^[一二三四五六七八九十两几多数每各该这那此某本其全]+[个部家所座位条本首支名间只幅件种篇张项届]?$"
)


_GENDERED_PRONOUN = re.compile(r"\b(?:(he|him|his|himself)|(she|her|hers|herself))\b", re.I)


def _pronoun_gender(sentence: str) -> str:
    """ "he" or "she": the first gendered pronoun of ``sentence``; "" when it has none."""
    m = _GENDERED_PRONOUN.search(sentence)
    return "" if m is None else ("he" if m.group(1) else "she")


# A marriage verb and what may stand between it and the name it marries ("married the
# oboist Y", "was married to Y", "wed Y"): the name is a spouse.
_MARRIED_BEFORE = re.compile(
    r"\b(?:married|marries|marry|wed|weds|wedded)\s+(?:to\s+)?(?:(?:the|a|an)\s+)?"
    r"(?:[a-z][\w-]*\s+){0,2}$"
)
_SPOUSE_NOUNS = frozenset(["wife", "husband", "spouse", "widow", "widower", "partner"])


# What opens a fronted phrase of time before a clause's subject (a closed class).
_FRONTED_TIME = (
    "In|On|By|From|After|Before|During|Until|Within|Later|Then|Soon|Afterwards|Eventually|"
    "Meanwhile|Next"
)


def _pronoun_start(opening: str, zh: str, subjects: str) -> re.Pattern[str]:
    """A sentence that goes on about the previous one's subject: it opens with one of the
    ``opening`` words or ``zh`` characters, or has one of the ``subjects`` pronouns after a
    comma ("With …, it is …") or after a short fronted phrase of time without one ("In 1846
    he founded …", "Later she …"), or 他/她 after a fronted phrase of time ("三年后，即咸丰四年
    （1854年），他病故于…")."""
    return re.compile(
        rf"^\s*(?:(?:{opening})\b|[{zh}])|[,，]\s*(?:{subjects})\s+[a-z]|[，,]\s*[他她](?![们的])"
        rf"|^\s*(?:{_FRONTED_TIME})\b[^,.;:]{{0,24}}?\s(?:{subjects})\s+[a-z]"
    )


# A pronoun or a definite class noun ("The city …") of anything.
_PRONOUN_START = _pronoun_start(
    r"It|He|She|They|Its|His|Her|Their|This|The\s+(?:company|city|town|band|firm|river|film|"
    r"book|school|university)",
    "它他她其该",
    "it|he|she|they",
)
# The pronouns of a person: "It", "Its", "This" and "The company" are another thing's.
_PERSON_PRONOUN_START = _pronoun_start("He|She|They|His|Her|Their", "他她", "he|she|they")
_DEFINED_CHECK = 4
"""How many leading candidates the reader checks against the corpus's definitions of them."""
_TYPED_KINDS = frozenset(["PERSON", "LOCATION", "ORGANIZATION"])
"""Types extraction may guess wrong for a name, which the corpus's definition then overrides
(a name of unknown type, ``NAME``, already fits any asked noun part way)."""
_DEFINITE_START = re.compile(r"^\s*The\s+([a-z][a-z-]+)\b")
# A definite class noun anywhere in a sentence ("the company", "The studio's"): it may name
# the document's own subject.
_THE_NOUN = re.compile(r"\b[Tt]he\s+([a-z][a-z-]+)\b(?!\s+of\b)")
# After the class noun of a definition: a preposition, a participle or a relative word ends
# the noun phrase ("a concert hall in Pellworth", "an orchestra founded in 1911").
_DEFINITION_END = (
    r"(?=\s+(?:in|of|on|at|for|from|with|by|near|that|which|who|based|founded|located|built|set|"
    r"run|owned)\b|\s*[,.;:(]|$)"
)
# What follows a name that a copula and an article define: " is a concert hall in …" → hall.
_COPULA_DEFINITION = re.compile(
    # a closing emphasis and a bracket may stand before the copula: "**Ada Moe** (1914–1998)
    # was a mountain guide" (as in :func:`_defined_as`)
    r"[*_”\"’]{0,2}(?:\s*\([^()]{0,80}\))?"
    r"\s+(?:is|was|are|were)\s+(?:an?|the|one\s+of\s+the)\s+"
    rf"((?:[\w-]+\s+){{0,3}}?[a-z][\w-]*){_DEFINITION_END}"
)


def _own_subjects(
    titles: Mapping[str, str],
    pieces: Sequence[tuple[str, str]],
    expected: str,
    q_norm: str,
    linked_norms: Collection[str],
) -> dict[str, tuple[str, dict[str, str]]]:
    """doc id → (the name a document is about, {class noun it is called by: its type}) for
    the documents whose own subject may answer: titled with a name that is none of the
    question's, defined with a class noun of the asked kind ("Marlwick Owl Studio is a
    studio …": "the studio" then names it)."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for doc_id, heading in titles.items():
        # (a page title may open with a word of its own: "About Pellucid Owl Studios")
        words = heading.split()
        while len(words) > 1 and words[0].lower() in NON_NAME_WORDS:
            words = words[1:]
        title = " ".join(words)
        norm = normalize_name(title)
        if not _CAP_NAME.fullmatch(title) or norm in q_norm or norm in linked_norms:
            continue
        defined = _subject_nouns([title], [text for d, text in pieces if d == doc_id])
        classes: dict[str, str] = {
            noun: kind
            for noun in defined | {n[:-1] for n in defined if n.endswith("s")}
            if (kind := head_noun_type(noun)) != "NAME" and expected in ("NAME", kind)
        }
        if classes:
            out[doc_id] = (title, classes)
    return out


def _subject_nouns(names: Sequence[str], texts: Sequence[str]) -> frozenset[str]:
    """The class nouns a text may call an English subject by ("the hall" for Alcombe Hall):
    the last word of each of its names, and the head noun a text defines it as with a
    copula and an article ("Alcombe Hall is a concert hall in …" → hall)."""
    nouns: set[str] = set()
    for name in names:
        if not name or _CJK.search(name):
            continue
        last = name.split()[-1].lower()
        if last.isalpha() and len(last) > 2:
            nouns.add(last)
        for text in texts:
            # Each occurrence of the name, then the definition after it (one pattern for all
            # names: a pattern per name would be compiled anew for every question).
            start = text.find(name)
            while start != -1:
                m = _COPULA_DEFINITION.match(text, start + len(name))
                if m is not None:
                    nouns.add(m.group(1).split()[-1])
                start = text.find(name, m.end() if m is not None else start + 1)
    return frozenset(nouns)


_ZH_COUNTED = re.compile(
    r"^[一二两三四五六七八九十几数多]+[人位名个]?$|^[一二两三四五六七八九十几数]+[人位名个]"
)
# Between a role noun and the name it introduces: "吉他手何北川", "校长为欧阳明哲",
# "the guitarist, Tom Reed", "its founder Ada Moe".
_LOCATIVE_GAP = re.compile(r"\b(?:in|at|on)\s*$")
_CAPITALS_RUN = re.compile(r"[A-Z][A-Z'’\-.]+(?:\s+(?:&\s+)?[A-Z][A-Z'’\-.]*)+")


_AFTER_NUMBER = re.compile(r"\d[\d,.]*\s*$")


def _shouted_word(span: str, sentence: str, start: int, lower_words: Container[str]) -> bool:
    """Is ``span`` one word in capitals that names nothing: a unit after a number ("a 900
    TEU feeder", "12 MW"), a word of the language the evidence writes in lower case elsewhere,
    or one word of a heading in capitals ("HOLM & SONS")? (An acronym such as "NASA" is
    written in capitals only.)"""
    if " " in span or len(span) < 2 or not span.isupper():
        return False
    number = _AFTER_NUMBER.search(sentence, 0, start)
    if span.lower() in lower_words or (
        number is not None and not DATE_RX.fullmatch(number.group(0).strip())
    ):
        return True  # (after a year, "In 1981 IBM sold …", it may well be a name)
    # a word of a run in capitals ("HOLM & SONS, ROPE MAKERS"): a heading's
    end = start + len(span)
    return any(m.start() <= start and end <= m.end() for m in _CAPITALS_RUN.finditer(sentence))


# Eponymous things: a name closing on one of these nouns is named after a person, never one
# (no surname is one of them).
_THING_HEAD = re.compile(
    r"\s(?:Medal|Prize|Award|Cup|Trophy|Shield|Lecture|Fellowship|Scholarship|Stakes|"
    r"Memorial|Bursary|Chair)$"
)
_APPOSITION_GAP = re.compile(
    r"^(?:\s*[,，:：]?\s*[\"“《]?|为|是|即|由|于|自|在|至|:\s*"
    r"|(?:\s+(?:was|is|are|were|in|at|by|on)){1,2}\s+)$"
)


_ZH_FUNCTION_FLAGS = ("f", "p", "u", "r", "m", "q", "c", "d", "x", "y", "e", "o")


def _head_compounds(
    sentence: str, head: str, known: Container[str] = ()
) -> list[tuple[int, int, str]]:
    """Chinese names that end in the question's head noun ("什么文学奖" → "白鹭文学奖"): the
    run of characters before each occurrence of ``head`` back to punctuation or 的; when the
    run is no ``known`` name but a shorter run is, that one (承接瑞纶绸庄: a verb and its
    object, the known 瑞纶绸庄)."""
    out: list[tuple[int, int, str]] = []
    if len(head) < 2:
        return out
    for start, end in _occurrences(head, sentence):
        a = start
        while (
            a > 0
            and start - a < 6
            and _CJK.match(sentence[a - 1])
            and sentence[a - 1] not in "的了和与及在于是为由从把被将获得"
        ):
            a -= 1
        # Function words end the run (中, a localizer, in 《X》中担任女主角), and so does a verb
        # right before the noun, which is then its object (担任女主角); a verb further in is
        # a piece of the name (澄明/v 光学实验室).
        nominal = 0
        for k, (word, flag) in enumerate(reversed(_zh_words(sentence[a:start]))):
            if flag.startswith(_ZH_FUNCTION_FLAGS) or (k == 0 and flag.startswith("v")):
                break
            nominal += len(word)
        a = start - nominal
        if sentence[a:end] not in known:
            a = next((x for x in range(a + 1, start) if sentence[x:end] in known), a)
        if a < start and not _ZH_QUANTIFIER.match(sentence[a:start]):
            out.append((a, end, "NAME"))
    return out


# A wh-word with its classifier: 谁, 哪家, 哪一位.
_ZH_WH_PHRASE = re.compile(r"谁|哪[一]?[家位个所座条部间种]?")


def _zh_nominal_end(text: str, at: int) -> int:
    """Where the nouns jieba reads from ``text[at:]`` on end (``at`` itself when none)."""
    for word, flag in _zh_words(text[at:]):
        if not flag.startswith("n"):
            break
        at += len(word)
    return at


def _zh_relative(query: str, names: Sequence[str], terms: set[str]) -> tuple[list[str], str] | None:
    """The verbs of a Chinese relative clause and the role its noun plays in them.

    收购蓝海食品的公司 ("the company that acquired X") puts the verb before the named subject:
    the noun asked for is the verb's agent (``"agent"``). 白帆乐队签约的唱片公司 ("the label
    X signed with") puts it after: the noun is X's object or partner (``"partner"``). ``None``
    when the step is no such phrase, or the clause has verbs on both sides of the name."""
    clause, sep, _ = query.rpartition("的")
    if not sep or not clause:
        return None
    if any(clause.endswith(w) for w in ZH_TIME_CLOSERS):
        return None  # "X读硕士时的导师": a time adverbial (when X studied), no relative clause
    found = sorted((clause.find(n), n) for n in names if len(n) > 1 and n in clause)
    if not found:
        return None
    pos, name = found[0]
    # The words written on to the name are the rest of a longer name the linker read only in
    # part (鹭川瓷业集团是谁创立的, linked as 鹭川: 瓷业 and 集团 are no verbs of the clause).
    # So are the words of the wh-phrase (哪家公司收购的: 哪家, 公司).
    spans = [(pos, _zh_nominal_end(clause, pos + len(name)))]
    spans += [(m.start(), _zh_nominal_end(clause, m.end())) for m in _ZH_WH_PHRASE.finditer(clause)]
    verbs = [
        t
        for t in terms
        if len(t) > 1
        and t in clause
        and t not in name
        and name not in t
        and not any(a <= clause.find(t) < b for a, b in spans)
    ]
    before = [v for v in verbs if clause.find(v) + len(v) <= pos]
    after = [v for v in verbs if clause.find(v) >= pos + len(name)]
    if before and not after:
        return before, "agent"
    if after and not before:
        # "X是由谁创办的": 由/被 before the wh-word asks for the verb's agent, and so does the
        # cleft "X是谁创办的" (the wh-word is the verb's subject; "X是和谁签约的" asks a
        # partner); so does an agent noun as the clause's head ("关帝庙重修的出资人" is who
        # paid, not what X did it with).
        agentive = re.search(r"[由被是](?:谁|哪)", clause) or _zh_agent_verb(query)
        return after, "agent" if agentive else "partner"
    return None


# An agent noun made from a verb: 创办人 is who 创办, 设计者 who 设计 ("X的创办人是谁").
_ZH_AGENT_NOUN = re.compile(rf"(?:^|的)([{HAN}]{{2}})(?:人|者)(?:是谁|是哪位|叫什么)?$")


def _zh_agent_verb(query: str) -> str:
    """The verb of the agent noun a Chinese step asks for ("X的创办人" → "创办"), or ""."""
    m = _ZH_AGENT_NOUN.search(query)
    if m is None:
        return ""
    words = _zh_words(m.group(1))
    return m.group(1) if len(words) == 1 and words[0][1].startswith("v") else ""


# English relative clauses: "the company that acquired X" asks for the verb's agent, "the
# company (that was) bought by X" and "the company X bought" for its patient.
_EN_REL_ACTIVE = re.compile(r"\b(?:that|which|who)\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)$")
_EN_REL_PASSIVE = re.compile(
    r"\b(?:(?:that|which|who)\s+(?:was|were|is|are|had\s+been|has\s+been)\s+)?"
    r"(?P<verb>[a-z]+)\s+by\s+(?P<rest>.+)$"
)
_EN_PASSIVE_BEFORE = re.compile(
    r"^\s*(?:,[^,]{0,60},\s*)?(?:was|were|is|are|had\s+been|has\s+been|being)\s+(?:[a-z]+ly\s+)?$"
)
# "ordered by the rival X": an article and up to two lower-case modifiers between by and the
# name.
# (a phrasal verb's particle stands between the verb and its by or its object: "taken over by
# X", "took over X", "picked up X")
_EN_PARTICLE = r"(?:\s+(?:over|up|out|off|back|down))?"
_EN_BY_AFTER = re.compile(
    rf"^{_EN_PARTICLE}\s+by\s+(?:(?:the|a|an|its|their|his|her)\s+(?:[a-z]+\s+){{0,2}})?$"
)
_EN_OBJECT_AFTER = re.compile(rf"^{_EN_PARTICLE}\s+(?:the\s+|a\s+|an\s+)?$")
_EN_SUBJECT_BEFORE = re.compile(r"^\s*(?:,[^,]{0,60},\s*)?(?:[a-z]+ly\s+)?$")


def _en_relative(query: str, names: Sequence[str]) -> tuple[str, str] | None:
    """The verb (as a stem) of an English relative clause in ``query`` and the role its noun
    plays: ``"agent"`` for "the company that acquired X", ``"patient"`` for "the company (that
    was) bought by X". ``None`` when the clause does not name one of ``names`` after the verb."""
    for rx, role in ((_EN_REL_PASSIVE, "patient"), (_EN_REL_ACTIVE, "agent")):
        m = rx.search(query)
        if m is None or (
            not is_participle(m["verb"])
            and not m["verb"].endswith("ed")
            and m["verb"] not in IRREGULAR_PAST  # "the company that took over X"
        ):
            continue
        if m["verb"] in ("was", "were", "is", "are", "been"):
            continue
        if any(n and n in m["rest"] for n in names):
            return _stem(m["verb"]), role
    # An agent noun and "of": "the director of X" asks for who directed X.
    m = _EN_AGENT_OF.search(query)
    if m is not None and any(n and n in m["rest"] for n in names):
        noun = m["noun"].lower().removesuffix("s")
        return noun[:-2], "agent"
    return None


_EN_AGENT_OF = re.compile(r"\b(?P<noun>[A-Za-z]{3,}(?:er|or)s?)\s+of\s+(?P<rest>.+)$")


def _en_slot(
    sentence: str, start: int, end: int, relative: tuple[str, str], names: Sequence[str]
) -> bool:
    """Whether ``sentence[start:end]`` fills the role :func:`_en_relative` asks for: the name
    after "VERBed by" or before an active VERB (agent); the subject of "was VERBed" or the
    object of an active VERB (patient). A subject named in the sentence must stand in the
    other role's place."""
    verb, role = relative
    subject = [sentence.find(n) for n in names if n and n in sentence]
    for m in _EN_WORD_AT.finditer(sentence):
        if _stem(m.group(0).lower()) != verb:
            continue
        v0, v1 = m.start(), m.end()
        passive_before = end <= v0 and _EN_PASSIVE_BEFORE.match(sentence[end:v0]) is not None
        by_after = start >= v1 and _EN_BY_AFTER.match(sentence[v1:start]) is not None
        active_before = end <= v0 and _EN_SUBJECT_BEFORE.match(sentence[end:v0]) is not None
        object_after = start >= v1 and _EN_OBJECT_AFTER.match(sentence[v1:start]) is not None
        if role == "agent":
            if by_after and (not subject or min(subject) < v0):
                return True
            if active_before and (not subject or all(p >= v1 for p in subject)):
                return True
        else:
            if passive_before and (not subject or all(p >= v1 for p in subject)):
                return True
            if object_after and (not subject or min(subject) < v0):
                return True
    return False


_EN_WORD_AT = re.compile(r"[A-Za-z][a-z]+")
_ZH_PARTY = "与和同跟向"  # X与Y签约: the other party of the verb stands between these and it
_ZH_AGENT = "被由"  # X被Y收购, X由Y创办: the agent stands between these and the verb
_ZH_OBJECT_GAP = ("", "了", "过", "下", "给", "到", "为")  # X签下了Y


def _zh_marked(sentence: str, relative: tuple[list[str], str]) -> list[tuple[int, int]]:
    """The words between 被/由 (agent) or 与/和 (partner) and the asked verb: a name the
    segmenter did not find is still the one the construction gives (被奔腾光电收购)."""
    verbs, role = relative
    markers = _ZH_AGENT if role == "agent" else _ZH_PARTY
    out = []
    for verb in verbs:
        found = list(re.finditer(f"[{markers}]([{HAN}]{{2,8}}?){re.escape(verb)}", sentence))
        if role == "partner":
            # …签约秋蝉唱片，: the verb's object, when it fills the rest of its clause.
            gaps = "|".join(g for g in _ZH_OBJECT_GAP if g)
            found += re.finditer(
                f"{re.escape(verb)}(?:{gaps})?(?![于在从向自与和])([{HAN}]{{2,6}})(?=[，,。；;：:！？!?]|$)",
                sentence,
            )
        for m in found:
            words = _zh_words(m.group(1))
            if "的" not in m.group(1) and words and words[-1][1].startswith(("n", "j")):
                # "由律所合伙人X创立": a role noun before the name is no part of it.
                lead = max(
                    (i + 1 for i, (w, _) in enumerate(words[:-1]) if zh_noun_type(w) == "PERSON"),
                    default=0,
                )
                skip = sum(len(w) for w, _ in words[:lead])
                if m.end(1) - m.start(1) - skip >= 2:
                    out.append((m.start(1) + skip, m.end(1)))
    return out


def _other_role(relative: tuple[_V, str], other: str = "partner") -> tuple[_V, str]:
    """The same verb(s) with the other role of the pair: agent ↔ ``other`` (the Chinese
    partner, the English patient)."""
    verbs, role = relative
    return verbs, (other if role == "agent" else "agent")


def _zh_words(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's (word, part of speech) for ``text`` (memoised in :func:`pos_tags`)."""
    return pos_tags(text)


_ZH_DEMONSTRATIVE_NP = re.compile(rf"(?:这|该|此)[家所座个部支间位条]?(?=[{HAN}])")


def _zh_slot(
    sentence: str, start: int, end: int, relative: tuple[list[str], str], names: Sequence[str]
) -> bool:
    """Whether ``sentence[start:end]`` fills the role :func:`_zh_relative` asks for: between
    被/由 and the verb, or right before the verb with the subject after it (agent); between
    与/和 and the verb, or right after the verb (partner). The subject may go unnamed in the
    sentence (乐队与潮音唱片签约 in a passage about the band), but when named it must stand
    where the construction puts it."""
    verbs, role = relative
    subject = [sentence.find(n) for n in names if len(n) > 1 and n in sentence]
    # "严某创立了这间书局": a demonstrative noun phrase (这间书局, 该社) names the subject again.
    subject += [m.start() for m in _ZH_DEMONSTRATIVE_NP.finditer(sentence)]
    for verb in verbs:
        for m in re.finditer(re.escape(verb), sentence):
            v0, v1 = m.start(), m.end()
            gap = sentence[end:v0]
            near = end <= v0 and len(gap) <= 8 and not _ZH_CLAUSE_BREAK.search(gap)
            near = near and "的" not in gap
            marked_by = sentence[start - 1 : start] if start > 0 else ""
            if role == "agent" and near:
                if marked_by and marked_by in _ZH_AGENT:
                    if not subject or min(subject) < start:
                        return True
                elif subject and all(p >= v1 for p in subject):
                    return True
            if role == "partner":
                party = near and bool(marked_by) and marked_by in _ZH_PARTY
                if party and (not subject or min(subject) < start):
                    return True
                direct = start >= v1 and sentence[v1:start] in _ZH_OBJECT_GAP
                if direct and (not subject or min(subject) < v0):
                    return True
    return False


_ZH_CLAUSE_VERB = re.compile(r"生|逝|卒|死|在|于|是|为|有")


def _zh_life_bonus(sentence: str, start: int, end: int, event: str) -> float:
    """Chinese "1928年2月生", "生于1928年", "2011年逝世": the verb beside the date says which."""
    # The rest of the date's clause: "2009年在松城逝世" holds the verb a few words on. A
    # year in brackets glosses the reign year before it, and the clause goes on after the
    # bracket; a time phrase opening the sentence is the adverbial of the clause after its
    # comma ("光绪二十七年（1901年），濮某病逝于…").
    rest = sentence[end : end + 24]
    rest = rest[1:] if rest[:1] in "）)" else rest
    opening = re.split(r"[，,。；;]", sentence[:start])[-1]
    if rest[:1] in "，," and len(opening) <= 8 and not _ZH_CLAUSE_VERB.search(opening):
        rest = rest[1:]
    after = re.split(r"[，,。；;、）)]", rest[:12], maxsplit=1)[0]
    before = sentence[max(0, start - 3) : start]
    born = bool(re.match(r"(?:出)?生|诞生|降生|出世", after))
    died = bool(_ZH_LIFE_VERB["death"].search(after)) or "卒" in after
    if event == "birth":
        near = born or bool(re.search(r"(?:出)?生[于在]$", before))
        other = died
    else:
        near = died or bool(re.search(r"(?:卒|死|逝世)于$", before))
        other = born
    return 2.0 if near else (0.5 if other else 1.0)


# Chinese birth and death: the verb, and the verb with the preposition before its place.
_ZH_LIFE_VERB = {
    "birth": re.compile(r"出生|生于|生在|诞生|降生|出世"),
    "death": re.compile(r"去世|逝世|病逝|病故|故去|过世|亡故|辞世|离世|谢世|身故|卒于|死于"),
}
# Where someone is from asks where they were born: "hometown", "a native of", 老家, 故乡.
_ORIGIN_Q = re.compile(
    r"\b(?:hometown|home\s+town|native\s+of|birth\s+town)\b|老家|故乡|家乡|出生地|哪里人"
    # "Where did X come from", "From which village did X come", "X hailed from where"
    r"|\b(?:come|comes|came|hail|hails|hailed)\s+from\b"
    r"|^\s*from\s+(?:which|what|where)\b.*\b(?:come|comes|came|hail|hails|hailed)\b",
    re.IGNORECASE,
)
_ZH_LIFE_BEFORE = {
    "birth": re.compile(r"(?:出生|诞生|生)(?:于|在)$"),
    "death": re.compile(r"(?:去世|逝世|病逝|死|卒)(?:于|在)$"),
}


def _zh_life_slots(
    sentence: str,
    event: str,
    spans: Sequence[tuple[int, int, str, str | None]],
    others: Sequence[tuple[int, int]],
) -> set[int]:
    """Starts of the places of ``sentence`` that a birth or death verb takes as its object
    ("他生于上蕨溪村"), unless another person (``others``: their spans) stands just before."""
    before = _ZH_LIFE_BEFORE[event]
    return {
        x
        for x, _, kind, _ in spans
        if kind == "LOCATION"
        and before.search(sentence[max(0, x - 4) : x]) is not None
        and not any(x - 6 <= y <= x for _, y in others)
    }


def _zh_life_place_bonus(
    sentence: str,
    start: int,
    end: int,
    event: str,
    others: Sequence[tuple[int, int]],
    slots: set[int],
) -> float:
    """A place as the object of a birth or death verb (its start in ``slots``, from
    :func:`_zh_life_slots`) is where the subject was born or died, and the sentence's other
    places are not ("…——一个位于岑川镇北面的小村子"); a place before the verb with another
    person between them ("搬到岑川镇，他的弟弟闻人朗便出生在镇上") is where that person was."""
    if start in slots:
        return 2.5
    if slots - {start}:
        return 0.5
    m = _ZH_LIFE_VERB[event].search(sentence, end)
    if m is not None and any(end <= x and y <= m.start() for x, y in others):
        return 0.5
    return 1.0


def _life_date_bonus(sentence: str, pos: int, event: str) -> float:
    """Encyclopedic "(7 March 1934 – 12 July 1995)": the first date is the birth, the second
    the death; "(born 1950)" a birth."""
    open_at = max(sentence.rfind("(", 0, pos), sentence.rfind("（", 0, pos))
    if open_at < 0 or ")" in sentence[open_at:pos] or "）" in sentence[open_at:pos]:
        return 1.0
    inside = sentence[open_at:pos]
    dash = bool(re.search(r"[–—\-－~～至]|\bto\b|\bd\.", inside))
    if event == "birth":
        return 0.5 if dash else 1.8
    return 1.8 if dash else 0.6


def _zh_in_lexicon(word: str) -> bool:
    """Is ``word`` in the segmenter's dictionary (县城, 京城), not a name it guessed (砾城)?"""
    import jieba

    jieba.initialize()
    return bool(jieba.dt.FREQ.get(word))


def _zh_common_word(name: str) -> bool:
    """Is ``name`` one jieba word tagged a common noun or verb (商业, 回国), not a name?"""
    words = _zh_words(name)
    return len(words) == 1 and words[0][1] in ("n", "vn", "an", "ng", "v", "vd", "a", "d")


def _zh_whole_firm(best: _Candidate, sentence: str) -> _Candidate:
    """A firm's name read without its own name, as its trade and legal form ("种业股份有限公司"
    of "稷川穗岭种业股份有限公司"): the words before it back to a verb, a function word or a
    break are its name. Any other candidate is returned as it is."""
    if not best.text.endswith(tuple(CHINESE_ORG_LEGAL_FORMS)):
        return best
    at = sentence.find(best.text)
    if at <= 0:
        return best
    start = at
    lead = sentence[max(0, at - 12) : at]
    lead = lead[max((lead.rfind(c) for c in lead if not _CJK.match(c)), default=-1) + 1 :]
    for word, flag in reversed(_zh_words(lead)):
        # (a rare character the segmenter knows nothing of, x, is a piece of the name: 苓)
        if flag.startswith("v") or (flag.startswith(_ZH_FUNCTION_FLAGS) and flag != "x"):
            break
        # a function character the segmenter glued on (了霁阳): the name starts after it
        cut = max((word.rfind(c) for c in _ZH_NAME_BREAK if c in word), default=-1)
        start -= len(word) - cut - 1
        if cut >= 0:
            break
    if start == at:
        return best
    return replace(best, text=sentence[start : at + len(best.text)], entity_id=None)


# A surname with a title after it ("温先生", "邵老师") stands for a person the text has named in
# full with a title ("温景和先生"): the full name answers.
_ZH_PERSON_TITLE = "先生|老师|师傅|师父|教授|女士"
_ZH_SURNAME_TITLE = re.compile(rf"(?P<surname>[{HAN}]{{1,2}})(?P<title>{_ZH_PERSON_TITLE})")


def _zh_full_name_of_title(
    best: _Candidate, texts: Sequence[str], teacher: bool = False
) -> _Candidate:
    """``best`` when it is a full name; for a surname and a title ("温先生"), the full name the
    texts write with a title ("导师是温景和先生"), the first text first. For a step that asks a
    teacher, a two-character name the first text writes right before one more character and a
    title ("导师是葛蔚和先生", 和 read as "and") is cut: the title closes the whole name."""
    m = _ZH_SURNAME_TITLE.fullmatch(best.text)
    if m is None and teacher and len(best.text) == 2 and best.text[0] in CHINESE_SURNAMES:
        run = _rx(rf"{re.escape(best.text)}[^\W\d的了是在与及把被从向为](?={_ZH_PERSON_TITLE})")
        found = run.search(texts[0]) if texts else None
        return replace(best, text=found.group(0), entity_id=None) if found is not None else best
    if m is None or m["surname"] not in CHINESE_SURNAMES:
        return best
    full = _rx(rf"{re.escape(m['surname'])}(?![老小])[{HAN}]{{1,2}}?(?={_ZH_PERSON_TITLE})")
    for text in texts:
        found = full.search(text)
        if found is not None:
            return replace(best, text=found.group(0), kind="PERSON", entity_id=None)
    return best


# Chinese verbs of the events a date is asked for, by event (a closed class of the language):
# 成立 and 创办 say one founding, 歇业 and 倒闭 one closing.
_ZH_EVENT_FAMILIES = (
    frozenset(
        [
            "成立",
            "创办",
            "创立",
            "创建",
            "建立",
            "开办",
            "兴办",
            "创设",
            "设立",
            "开设",
            "开业",
            "开张",
            "开馆",
            "建成",
            "落成",
            "始建",
        ]
    ),
    frozenset(["歇业", "关门", "倒闭", "停业", "关闭", "停办", "解散"]),
    frozenset(["加入", "并入", "合并"]),
    frozenset(["收购", "买下", "并购", "兼并", "出售", "卖给"]),
    frozenset(["迁往", "迁到", "迁至", "搬到", "搬往", "迁入", "迁址"]),
    frozenset(["改名", "更名", "易名", "改称", "改组", "改制"]),
)
_ZH_OTHER_EVENT_WORDS = frozenset().union(*_ZH_EVENT_FAMILIES)


def _zh_event_date_factor(sentence: str, end: int, event: Collection[str]) -> float:
    """How the date ending at ``end`` dates the asked ``event``: the clause it opens (after a
    comma too: "2016年3月，鼎味轩正式加入臻和餐饮集团") tells its event. A verb of the asked
    event there, or none, says nothing against it (1.0); only another event's verb (加入 for
    创办于哪一年) makes it another event's date (0.5)."""
    stop = re.compile(r"[。；;！？\n|]").search(sentence, end)
    clause = sentence[end : stop.start() if stop else len(sentence)]
    # the clause the date opens, and the one after its comma when it stands first
    parts = re.split(r"[，,]", clause)
    said = parts[0] + (parts[1] if len(parts) > 1 and not parts[0].strip() else "")
    if any(w in said for w in event):
        return 1.0  # (成立一年的云栈网络: a verb of the event may only modify a name there)
    if any(w in said for w in _ZH_OTHER_EVENT_WORDS):
        return 0.5
    return 1.0


# Characters that end a phrase inside a sentence (的, conjunctions, prepositions, verbs of
# being): no run of a name crosses them.
_ZH_NAME_BREAK = frozenset("的和与及或在于是为把被从到至向、了着过")


_ZH_DEMONSTRATIVE = re.compile(r"^[那这该][个座家所位条本首支名种间艘部]?")


# A Chinese step that asks the value of its subject's attribute: "X的馆址原来是什么地方",
# "X的校址在哪里" (an adverb of time may stand before the copula).
_ZH_ATTRIBUTE_ASKED = re.compile(
    rf"的([{HAN}]{{2,4}}?)(?:{ZH_FORMER_TIME})?(?:是|在|位于|为)"
    # (the generic wh-words: "在哪个县" asks a unit of the address, not the whole value)
    r"(?:什么地方|什么|哪里|哪儿|何处|何地)[？?]?$"
)
# … and what a sentence says that attribute is: "馆址在县城药王庙旧址，", "厂址原为…。"
_ZH_ATTRIBUTE_SAID = re.compile(
    rf"(?:原来|原先|本来|最初|当初|原)?(?:在|位于|设在|为|是)(?P<value>[{HAN}]{{2,12}}?)(?=[，。；、,;]|$)"
)


def _zh_head_noun(query: str) -> str:
    """The noun a Chinese wh-word asks for ("获得过什么文学奖" → "文学奖"), or ""."""
    import jieba

    # "1930年开办的书铺叫什么", "那座桥的名字是什么": a naming predicate asks the name of the
    # noun before it, which heads the question
    query = ZH_NAME_ASKED.sub("", query)
    one = re.search(rf"(?:哪一|哪)[个部家所座位条本首支名种]([{HAN}])[？?]?$", query)
    if one is not None:
        return one.group(1)  # "迁到了哪座城": a one-character noun ends the question
    m = re.search(rf"(?:什么|哪一|哪)[个部家所座位条本首支名种]?([{HAN}]{{2,6}})", query)
    if m is None:
        # A step naming an entity by a relative clause: "林墨曾就读的大学" → 大学; the copula
        # and wh-word after it ask for it ("谷少川的导师是谁" → 导师).
        tail = re.search(
            rf"的([{HAN}]{{1,6}}?)(?:是谁|是什么|是多少|是哪[里位个家所座]?)?[？?]?$", query
        )
        if tail is None:
            return ""
        # "那座桥", "这家绸庄": a demonstrative and its measure word point, the noun heads
        noun = _ZH_DEMONSTRATIVE.sub("", tail.group(1)) or tail.group(1)
        words = [w for w in jieba.lcut(noun) if w.strip()]
        if words and len(words[-1]) < 2 and len(words) >= 2:
            return "".join(words[-2:])  # 周末 + 版: a one-character head takes its modifier
        if len(words) == 1:
            return str(words[0])  # "苏世仁修建的桥": a one-character noun heads the phrase alone
        return words[-1] if words and len(words[-1]) >= 2 else ""
    words = [w for w in jieba.lcut(m.group(1)) if w.strip()]
    # 哪家酒店集团收购, 哪家硅片企业: a run of common nouns is one noun phrase, headed by its
    # last noun (集团, 企业); the nouns before it say what kind.
    tagged = _zh_words(m.group(1))
    nouns = [w for w, _ in itertools.takewhile(lambda wf: wf[1] == "n", tagged)]
    if len(nouns) >= 2 and all(len(w) >= 2 for w in nouns):  # 笔 in 哪一笔交易 is a measure
        return nouns[-1]
    if (
        len(tagged) >= 2
        and tagged[0][1].startswith("v")
        and tagged[1][1] == "n"
        and len(tagged[1][0]) >= 2
    ):
        # 哪家出版集团: a verb that classes the nouns after it (出版, publishing) modifies
        # them; the last of them is the head (集团)
        nouns = [w for w, _ in itertools.takewhile(lambda wf: wf[1] == "n", tagged[1:])]
        if all(len(w) >= 2 for w in nouns):
            return nouns[-1]
    return words[0] if words and len(words[0]) >= 2 else ""


# A preposition is no noun: "under which teacher", "from which port" ask for a teacher and a
# port, "the club with which she won" for a club.
_EN_NOT_HEAD = (
    r"(?!(?:under|from|with|after|before|during|since|into|onto|over|through|among|between|"
    r"about|against|towards?|across|along|around|behind|beside|beyond|near|upon|within|without"
    r")\s)"
)
_EN_HEAD = re.compile(
    rf"^{_EN_NOT_HEAD}(?:the\s+|a\s+|an\s+)?(?:[a-z]+\s+){{0,2}}?{_EN_NOT_HEAD}(?P<a>[a-z]{{3,}})\s+"
    r"(?:(?:in|on|at|from|by|for|with|to)\s+"
    r"(?=which|whom|whose))?(?:that|which|who|whom|whose|where|when|of)\b|"
    # (a copula or an auxiliary after the wh-word is no noun: "what are the colours of X")
    r"\b(?:which|what)\s+(?!(?:is|are|was|were|does|did|has|have|had)\b)(?P<b>[a-z]{3,})\b"
)


_FRAME = re.compile(r"\b(?:the\s+)?(?:name|kind|type|sort|form)\s+of\s+(?:an?\s+|the\s+)?")
_EN_COPULA_HEAD = re.compile(
    r"^(?:what|which|who)\s+(?:is|was|are|were)\s+(?:the\s+|an?\s+)?(?:[a-z]+\s+){0,2}?"
    r"(?P<c>[a-z]{3,})\s+(?:of|in|at|for|from|on|that|which|who|where|near|by)\b"
)


# "What was Bellcombe Line's flagship": the noun the owner's 's takes, at the end of the step.
_EN_OWNED_HEAD = re.compile(
    r"^(?:what|which|who)\s+(?:is|was|are|were)\s+.+?['’]s?\s+(?P<c>[a-z]{3,})\s*\??$"
)


def _head_noun(query: str) -> str:
    """The noun the step asks for: "river that runs through X" → "river", "which prize …" →
    "prize", "获得过什么文学奖" → "文学奖"; "" when there is none."""
    if _CJK.search(query):
        return _zh_head_noun(query)
    # Frame nouns say how the answer is asked for, not what it is: "what kind of plane" asks
    # for a plane, "the name of the airport" for an airport.
    low = _FRAME.sub("", query.lower())
    m = _EN_HEAD.search(low) or _EN_COPULA_HEAD.search(low) or _EN_OWNED_HEAD.search(low)
    if m is None:
        return ""
    head = m.groupdict().get("a") or m.groupdict().get("b") or m.groupdict().get("c") or ""
    before = low[: m.start("a")].split() if m.groupdict().get("a") else []
    if before and before[-1] not in ("the", "a", "an") and is_past_participle(head):
        # "year founded of X": a past participle after a noun says which one; the noun heads
        head = before[-1]
    return "" if head in ("one", "year", "kind", "type", "name", "part") else head


# Place nouns by the rank they take in an English address, small to large: "Tulsa, Oklahoma,
# United States" names a city, then a state, then a country (a construction of the language).
_ADDRESS_RANK = {
    **dict.fromkeys(
        [
            "city",
            "town",
            "village",
            "hamlet",
            "suburb",
            "neighbourhood",
            "neighborhood",
            "borough",
            "commune",
        ],
        0,
    ),
    **dict.fromkeys(["county", "district", "parish", "prefecture", "department"], 1),
    **dict.fromkeys(["state", "province", "region", "territory"], 2),
    **dict.fromkeys(["country", "nation"], 3),
}
_ADDRESS_ITEM = r"[A-Z][\w\-'’.]*(?:\s+(?:(?:of|de|the)\s+)?[A-Z][\w\-'’.]*)*"
_ADDRESS = re.compile(rf"{_ADDRESS_ITEM}(?:,\s+{_ADDRESS_ITEM})+")


def _address_items(sentence: str) -> list[tuple[int, int]]:
    """Spans of the places of every address ("Varn, Westmark, Kestria") in ``sentence``."""
    return [item for m in _ADDRESS.finditer(sentence) for item in _items(m)]


def _items(m: re.Match[str]) -> list[tuple[int, int]]:
    return [
        (m.start() + x.start(), m.start() + x.start() + len(x.group(0).rstrip(".")))
        for x in re.finditer(_ADDRESS_ITEM, m.group(0))
    ]


def _address_factor(sentence: str, a: int, b: int, head: str) -> float:
    """×1.5 when the place at ``sentence[a:b]`` stands where an address puts the asked noun
    (the city first, the country last, a state just before the country), ×0.7 when it stands
    elsewhere in the address, 1 when it is in none."""
    rank = _ADDRESS_RANK.get(head)
    if rank is None:
        return 1.0
    for m in _ADDRESS.finditer(sentence):
        if not (m.start() <= a and b <= m.end()):
            continue
        items = _items(m)
        index = next((i for i, (s, e) in enumerate(items) if s == a and e == b), None)
        if index is None:
            return 1.0
        n = len(items)
        if rank == 0:
            want = {0}
        elif rank == 3:
            want = {n - 1}
        elif rank == 2:
            want = {n - 1} if n == 2 else {n - 2}
        else:
            want = set(range(n - 1))
        return 1.5 if index in want else 0.7
    return 1.0


def _place_head(head: str, expected: AnswerType) -> str:
    """The address noun a place step asks for: its head noun, or "city" for a birthplace, a
    hometown, or a where-question without a head noun ("Where was X born?", "Where is X
    headquartered?") or with the bare noun "place" ("the place of birth of X"): the most
    specific place an address gives ("Varn" in "Varn, Kestria")."""
    if head in _LOCALITY_NOUNS or (head in ("", "place") and expected == "LOCATION"):
        return "city"
    return head


_LOCALITY_NOUNS = frozenset(["birthplace", "hometown", "deathplace"])
_STREET_TOWN = re.compile(r"(?:\s*,\s*|\s+in\s+)([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
# The class nouns of the names of streets and squares, which lie inside a town.
_STREET_NOUNS = frozenset(
    [
        "street",
        "road",
        "lane",
        "avenue",
        "boulevard",
        "square",
        "terrace",
        "alley",
        "row",
        "crescent",
        "mews",
    ]
)
_PLACE_CLASSES = "|".join(sorted(_ADDRESS_RANK, key=len, reverse=True))
_CLASS_OF = re.compile(rf"\b({_PLACE_CLASSES})\s+of\s+(?:the\s+)?$", re.IGNORECASE)
_CLASS_IS = re.compile(
    rf"^(?:\s*\([^)]{{0,80}}\))?(?:\s*,[^,.]{{0,80}},)?\s+(?:is|was)\s+(?:a|an|the)\s+"
    rf"(?:[\w\-]+\s+){{0,3}}?({_PLACE_CLASSES})\b",
    re.IGNORECASE,
)

_CLASS_AFTER = re.compile(rf"\s+({_PLACE_CLASSES})\b")  # "Maharashtra state", lower case


def place_size(name: str, texts: Sequence[str]) -> float | None:
    """How large a place ``name`` is on the address scale (0 = a city, 1 = a country), read
    from sentences that use it (``texts``): the class noun it carries ("Jefferson County"),
    is defined by ("X is a landlocked country") or follows ("the city of X"), else the
    position it takes in addresses ("Tulsa, Oklahoma" puts Oklahoma above Tulsa); None when
    the sentences say nothing of it."""
    return _size_from(*_place_evidence(name, texts))


def _size_from(classes: Sequence[float], positions: Sequence[float]) -> float | None:
    """The mean size the class nouns give, else the mean address position, else None."""
    if classes:
        return sum(classes) / len(classes)
    if positions:
        return sum(positions) / len(positions)
    return None


def _place_evidence(name: str, texts: Sequence[str]) -> tuple[list[float], list[float]]:
    """The sizes the class nouns of ``name`` give, and the positions it takes in addresses
    (see :func:`place_size`)."""
    top = max(_ADDRESS_RANK.values())
    words = name.split(" of ")[0].split()  # "Eastern Region of Varn" is a region
    if len(words) > 1 and words[-1].lower() in _ADDRESS_RANK:
        return [_ADDRESS_RANK[words[-1].lower()] / top], []  # the name says its class
    classes: list[float] = []
    positions: list[float] = []
    for text in texts:
        for start, end in _bounded(name, text):
            of = _CLASS_OF.search(text[max(0, start - 40) : start])
            if of:
                classes.append(_ADDRESS_RANK[of.group(1).lower()] / top)
            is_a = _CLASS_IS.match(text[end : end + 200]) or _CLASS_AFTER.match(
                text[end : end + 20]
            )
            if is_a:
                classes.append(_ADDRESS_RANK[is_a.group(1).lower()] / top)
        for items in _addresses(text):
            if name in items and len(items) > 1:
                positions.append(items.index(name) / (len(items) - 1))
    return classes, positions


def _word_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _bounded(name: str, text: str) -> list[tuple[int, int]]:
    """(start, end) of ``name`` in ``text`` where no word character or hyphen touches it on
    either side, left to right without overlaps (a plain scan: names are new in every
    question, so a compiled pattern per name would be compiled once and used once)."""
    out: list[tuple[int, int]] = []
    if not name:
        return out
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not _word_char(text[at - 1])) and (
            end == len(text) or not _word_char(text[end])
        ):
            out.append((at, end))
            at = text.find(name, end)
        else:
            at = text.find(name, at + 1)
    return out


@functools.lru_cache(maxsize=8192)
def _addresses(text: str) -> tuple[tuple[str, ...], ...]:
    """The places of every address in ``text``, in order (read once per text: every place
    candidate of a step looks its name up in the same passages)."""
    return tuple(
        tuple(m.group(0)[s - m.start() : e - m.start()] for s, e in _items(m))
        for m in _ADDRESS.finditer(text)
    )


def _size_factor(size: float | None, head: str) -> float:
    """×1.5 for a place as large as the asked noun (a country for "which country"), ×0.6
    for one two steps or more off the address scale (a district or a city for it)."""
    rank = _ADDRESS_RANK.get(head)
    if size is None or rank is None:
        return 1.0
    gap = abs(size - rank / max(_ADDRESS_RANK.values()))
    return 1.5 if gap < 0.25 else (0.6 if gap > 0.5 else 1.0)


_CLOCK = re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.\s?m\.?|[ap]m\b)", re.IGNORECASE)
_CLOCK_Q = re.compile(r"\bwhat\s+time\b|几点", re.IGNORECASE)
_COUNT_Q = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bpopulation\b|多少[个位名所座人]", re.I)
_DECIMAL = re.compile(r"\d\.\d")
_SIGN = re.compile(r"\s?[°′″]")


# The measure word a Chinese count is asked in (多少担, 几卷) and a count written in Chinese
# numerals with its classifier (四卷; never an ordinal, 第四卷).
_ZH_ASKED_MEASURE = re.compile(rf"(?:多少|几)([{HAN}])")
_ZH_NUMERAL_COUNT = re.compile(rf"(?<!第)[一二三四五六七八九十两百千]+{ZH_CLASSIFIERS}")
_ZH_COUNT_ONLY = re.compile(rf"[一二三四五六七八九十两百千\d]+(?:{ZH_CLASSIFIERS}|人|户)")
# Counters that count people or things alike: 多少人 is answered by 1200名 as well.
_ZH_GENERAL_COUNTERS = frozenset("个名位人口")


def _digit_counts(sentence: str, end: int, kind: str, zh_measure: str, counted: str) -> bool:
    """Is a one-character span a count of what is asked? A lone digit is mostly a piece of
    something else (a list mark, "3月"), a count only with the measure word or noun asked
    right after it ("共5孔" for 几孔, "5 arches" for how many arches)."""
    if kind != "NUMBER" or not sentence[end - 1 : end].isdigit():
        return False
    if zh_measure:
        return sentence.startswith(zh_measure, end)
    return _counts_noun(sentence, end, counted)


def _counts_noun(sentence: str, end: int, counted: str) -> bool:
    """Is the word right after a number ending at ``end`` the noun ``counted`` (a stem)?"""
    after = _WORD_AFTER_NUMBER.match(sentence, end)
    return bool(counted) and after is not None and _stem(after.group(1).lower()) == counted


def _zh_other_measure(span: str, after: str, asked: str) -> bool:
    """Is the number ``span`` (followed by ``after``) counted in another measure word than the
    one asked? ("162丈" for 多少担; 万/亿 are part of the number, not its measure; "78%" for
    多少家 is a share, no count at all.)"""
    unit = span[-1] if _CJK.match(span[-1]) and span[-1] not in "万亿" else after
    if unit in ("%", "％"):
        return True
    if not unit or not _CJK.match(unit) or unit == asked:
        return False
    return not {unit, asked} <= _ZH_GENERAL_COUNTERS


# Nouns and phrases that ask a sum of money in Chinese (a closed class of the language): the
# answer is written in a currency (3.8亿元), not in another unit (32平方公里, 48家, 78%).
_ZH_MONEY_Q = re.compile(
    r"价格|价钱|多少钱|金额|产值|收入|营收|利润|融资额?|投资额?|资本|奖金|对价|作价|成交价|售价|"
    r"造价|费用|薪水|工资"
)
_ZH_CURRENCY = re.compile(r"(?:万|亿)?(?:美元|欧元|英镑|日元|港元|元|两|文|块)")


def _zh_not_money(sentence: str, end: int) -> bool:
    """Is the number ending at ``end`` written with a unit that is no currency (32平方公里,
    48家, 78%)? A number with no unit after it may still be a sum."""
    if _ZH_CURRENCY.match(sentence, end):
        return False
    return _ZH_UNIT_AFTER.match(sentence, end) is not None


def _foreign_unit(sentence: str, end: int, terms: set[str]) -> bool:
    """Does a unit the step does not ask for follow the number ending at ``end``? A count
    ("the population", "how many districts") is a bare number; "82,278 sq mi" or "102 °"
    measures something else. A unit the step names ("how many years") is no objection."""
    unit = _UNIT.match(sentence, end) or _SIGN.match(sentence, end)
    if unit is None:
        return False
    words = _term_set(unit.group(0))
    return not (words & terms)


def _attributive(sentence: str, a: int, b: int, span: str, kind: str) -> bool:
    """Is the word at ``sentence[a:b]`` an adjective — "a Chinese journalist", "the
    Norwegian-born conductor", "was Norwegian" — and so no name of a person, place or firm?
    It has an adjective's ending ("-ese", "-ian", "-born"); a graph entity or a word after a
    preposition counts only after an article and before the noun it modifies, and a word
    followed by a function word ("Japan is", "Japan and") stays a name. A word the graph
    types as a place with a demonym's own ending ("-ian", "-ese", "-ish", "-ican") needs no
    article before a lower-case noun ("transformed American industry"). Two or three capitalised words whose last has the
    ending ("a Northern Irish actor", "the South African team") are one adjective when an
    article stands before them and a lower-case noun after."""
    if _CJK.search(span) or not _MODIFIER.search(span):
        return False
    after = _NEXT_WORD.match(sentence, b)
    if " " in span:
        words = span.split()
        return (
            len(words) <= 3
            and all(w[:1].isupper() and w.isalpha() for w in words)
            and after is not None
            and after.group(1) not in NON_NAME_WORDS
            and _ARTICLE_BEFORE.search(sentence, 0, a) is not None
        )
    if (
        kind == "LOCATION"
        and _DEMONYM.search(span)
        and after is not None
        and after.group(1) not in NON_NAME_WORDS
    ):
        return True
    if kind != "NAME":
        return (
            after is not None
            and after.group(1) not in NON_NAME_WORDS
            and _ARTICLE_BEFORE.search(sentence, 0, a) is not None
        )
    return (
        after is None or after.group(1) not in NON_NAME_WORDS or bool(_MODIFIER_FORM.search(span))
    )


# A year counted in Chinese numerals after a name makes the name an era: 咸丰元年, 光绪二十七年.
_ZH_ERA_YEAR = re.compile(r"[元正一二三四五六七八九十廿]{1,4}年")

# A Chinese quantity is its number with the unit or measure word written after it (a closed
# class of the language): 全长563公里, 人口7200人, 3.1万人, 融资2.4亿元, 16支球队, 410万人次,
# 3000余人. The unit belongs to the answer, as the sentence writes it.
_ZH_UNIT_AFTER = re.compile(
    r"(?:多|余)?(?:平方(?:公里|千米|米)|立方米|公里|千米|厘米|毫米|米|里|丈|尺|寸|亩|公顷|"
    r"吉瓦时|兆瓦时|千瓦时|吉瓦|兆瓦|千瓦|瓦|公斤|千克|克|吨|斤|担|毫升|升|"
    r"美元|欧元|英镑|日元|港元|元|人次|人|户|岁|个月|小时|分钟|天|倍|次|%|％|海里|级|孔|"
    rf"{ZH_CLASSIFIERS})"
)
# A measure in Chinese numerals with its unit ("享年七十六岁", "长四十二米"); a count of
# things in the classifier asked is read apart (:data:`_ZH_NUMERAL_COUNT`).
_ZH_NUMERAL_UNIT = re.compile(
    r"(?<![第一二三四五六七八九十两百千万零〇])[一二三四五六七八九十两百千万零〇]+"
    r"(?:多|余)?(?P<unit>平方(?:公里|千米|米)|公里|千米|厘米|毫米|海里|米|里|丈|尺|亩|公顷|公斤|"
    r"千克|吨|斤|担|岁|级|孔|倍)"
)


def _zh_with_unit(number: str, sentence: str) -> str:
    """``number`` with the unit ``sentence`` writes right after it (563 → 563公里), or as it
    is when no unit follows or the number already ends in one."""
    if not number or (_CJK.match(number[-1]) and number[-1] not in "万亿"):
        return number
    for start, end in _occurrences(number, sentence):
        unit = _ZH_UNIT_AFTER.match(sentence, end)
        # not the tail of a longer number (200 in 7200, 1万 in 3.1万)
        if unit is not None and not re.match(r"[\d.,]", sentence[start - 1 : start]):
            return number + unit.group(0)
    return number


def _zh_era_date(date: str, sentence: str) -> str:
    """The era year ``sentence`` writes with the Western year ``date`` in brackets after it:
    "嘉庆二十年（1815年）" for 1815年 is one date, written both ways, and answers as a whole;
    ``date`` as it is when the sentence writes no era year before it."""
    m = _rx(rf"{ZH_ERA_YEAR}\s*[（(]\s*(?:公元)?{re.escape(date)}\s*[）)]").search(sentence)
    return m.group(0) if m is not None else date


_INDEFINITE_BEFORE = re.compile(r"\b[Aa]n?\s+((?:[a-z][a-z\-]*\s+){0,3})$")


def _indefinite_head(sentence: str, a: int, b: int, span: str) -> bool:
    """Is the one capitalised word at ``sentence[a:b]`` the head of an indefinite noun
    phrase — "a live EP by the band", "an MP for the county"? A name takes no indefinite
    article, so the word is a common noun, however it is written."""
    if " " in span or _CJK.search(span):
        return False
    article = _INDEFINITE_BEFORE.search(sentence, 0, a)
    if article is None or any(w in NON_NAME_WORDS for w in article.group(1).split()):
        return False  # "a studio album by Kessa": the preposition ends the noun phrase
    rest = sentence[b:].lstrip()
    after = _NEXT_WORD.match(sentence, b)
    return (
        not rest or rest[0] in ",.;:)" or (after is not None and after.group(1) in NON_NAME_WORDS)
    )


_OFFICE = re.compile(r"(?:The\s+)?([A-Z][a-z]+)\s+of\s+\S")


def _office_title(span: str) -> bool:
    """Is ``span`` an office, "President of Velmora", "Mayor of Tamsk": a person noun and
    "of", which names the post, not the person who holds it?"""
    m = _OFFICE.match(span)
    return m is not None and head_noun_type(m.group(1).lower()) == "PERSON"


def _by_surname(text: str, surname: str) -> bool:
    """Does ``text`` name a person by ``surname`` alone? After the first mention a person
    goes by the surname ("Marsh was born in …"), but "Clara Marsh" or "the Marsh Foundation"
    is someone or something else."""
    for m in _rx(rf"\b{re.escape(surname)}\b(?!\s+[A-Z])").finditer(text):
        before = text[: m.start()].split()
        if not before or not before[-1][:1].isupper() or before[-1] in _CAP_STOP:
            return True
    return False


def _surname_only(
    span: str, shared: set[str], linked_names: Sequence[str], firms: Collection[str] = ()
) -> bool:
    """Is the one term ``span`` shares with a linked name the last word of both ("Astrid
    Young" beside "Neil Young"), or the last word of ``span`` and any word of a linked name
    that is no person's (``firms``: "Ada Holm" beside "Holm Instruments", named after her)?"""
    last = _term_set(span.split()[-1]) if span.split() else set()
    if len(span.split()) < 2 or shared != last:
        return False
    return any(
        len(n.split()) > 1 and _term_set(n.split()[-1]) == last for n in linked_names if n
    ) or any(
        # (a word before a comma ends a person's name: "Ada Holm, 3rd Baroness Vell")
        len(n.split()) > 1 and any(_term_set(w) == last for w in n.split()[:-1] if w[-1] != ",")
        for n in firms
    )


def _names_head(span: str, head: str) -> bool:
    """Does the name ``span`` carry the noun ``head`` ("River Osk" for river, "白鹭文学奖"
    for 文学奖)?"""
    if not head:
        return False
    if _CJK.search(head):
        return span.endswith(head) and len(span) > len(head)
    # Number agrees: "United States" carries "states", not the "state" asked for.
    words = [w.lower() for w in span.split()]
    return len(words) > 1 and (head in words or (head.endswith("s") and head[:-1] in words))


_QUALIFIER = re.compile(r"(?<=\w)\s+\(([^()]{1,60})\)")
_PARENTHETICAL = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")
_TITLE_LIST = re.compile(r"\s*[,，、;；]\s*")


# A clause dating what a quantity question asks by an event: "After the gallery went in, …",
# "… once its third floor was added", "following the merger".
_AFTER_EVENT = re.compile(
    r"\b(?:after|once|following|since)\s+(?P<clause>(?:the|its|his|her|their|a)\s+[^,?]+)",
    re.IGNORECASE,
)
# The verbs of the life events a question may ask the date of by a noun ("the death of X").
_LIFE_VERBS = {"birth": frozenset(["born", "bear"]), "death": frozenset(["died", "die"])}
_OTHER_EVENT = 0.3
"""A date's score when another event's participle dates it (see _event_date_factor)."""
# The verbs of a life event told of someone, and the name that may be its subject.
_LIFE_EVENT_VERBS = {"birth": r"(?:was|had\s+been)\s+born\b", "death": r"(?:died|had\s+died)\b"}
_LIFE_NAME = (
    r"(?P<name>[A-Z][\w'’.\-]*(?:\s+(?:[A-Z][\w'’.\-]*|junior|senior|the\s+younger|"
    r"the\s+elder|of|de|van|von))*)\s*(?:\([^()]*\)\s*)?"
)
# The subject of a life event: "X junior was born in 1834 at Y", "X (1801-1874) died at Y".
_LIFE_SUBJECT = {
    event: re.compile(_LIFE_NAME + r",?\s+" + verb) for event, verb in _LIFE_EVENT_VERBS.items()
}
# … and the sentence's opening name, when an appositive, a relative clause or an adverbial
# stands between it and the verb: "X, the first foreman of the Y Company, was born in …", "X
# junior, who founded the Y Works, was born at …", "X, for thirty years the overlooker of Y
# Mill, was born …" (the name inside the clause is no subject).
_LIFE_SUBJECT_APPOSED = {
    event: re.compile(r"^\s*" + _LIFE_NAME + r",\s+[^;:.]{3,100}?,\s+" + verb)
    for event, verb in _LIFE_EVENT_VERBS.items()
}
# A name after an article or a preposition is inside a noun phrase, no verb's subject.
_INSIDE_PHRASE = re.compile(r"\b(?:the|a|an|of|in|at|on|by|for|from|with|to|into|near)\s+$")


_NOT_NAME_WORDS = frozenset(
    ["in", "on", "at", "the", "he", "she", "it", "they", "his", "her", "this", "that", "there"]
)


# A life event whose subject is someone's kin: "…, where his only son, who was given his own
# name, was born", "her daughter died at Varn".
_KIN_LIFE_SUBJECT = {
    event: re.compile(
        rf"\b(?:[Hh]is|[Hh]er|[Tt]heir|[A-Z][\w'-]*'s?)\s+(?:[a-z]+\s+){{0,2}}"
        rf"(?:{'|'.join(_KIN_NOUNS)})s?\b(?:\s*,[^,.;]{{0,60}},)?\s+" + verb
    )
    for event, verb in (
        ("birth", r"(?:was|were|had\s+been)\s+born\b"),
        ("death", r"(?:died|had\s+died)\b"),
    )
}


_GENERATION_WORDS = frozenset(["junior", "senior", "younger", "elder", "jr", "sr", "ii", "iii"])
_OTHERS_EVENT = 0.4
"""A place's or date's share when the sentence tells another person's life event…"""
_NAMESAKES_EVENT = 0.1
"""… and when that person is a namesake told apart by a generation word ("X junior was born
at Cradmoor" for the elder X): the same name, certainly another person."""


def _another_is_born(sentence: str, event: str, names: Sequence[str]) -> float:
    """1.0, or the share (:data:`_OTHERS_EVENT`, :data:`_NAMESAKES_EVENT`) left to a place or
    date of ``sentence`` when its life event ``event`` is told of someone none of ``names`` is:
    its subject a name with a word none of them has ("X junior was born at Cradmoor" for a
    question about X, "Ada Moe was born in 1850" for one about Orm Vell), or someone's kin
    ("…, where his only son was born")."""
    if _KIN_LIFE_SUBJECT[event].search(sentence):
        return _OTHERS_EVENT
    m = _LIFE_SUBJECT_APPOSED[event].match(sentence)
    if m is not None and any(n and n in sentence[m.end("name") : m.end()] for n in names):
        return 1.0  # "X, who founded the Y Works, was born …" for whoever founded the Y Works
    m = m or next(
        (
            m
            for m in _LIFE_SUBJECT[event].finditer(sentence)
            if not _INSIDE_PHRASE.search(sentence, 0, m.start())
        ),
        None,
    )
    if m is None:
        return 1.0
    said = set(normalize_name(m["name"]).split()) - _NOT_NAME_WORDS
    if not said:
        return 1.0  # "He was born …", "The boy was born …": no name
    owned = [set(normalize_name(n).split()) for n in names if n]
    if any(
        said & words and (said ^ words) and (said ^ words) <= _GENERATION_WORDS for words in owned
    ):
        # the name with or without the generation word asked: "X junior was born …" for
        # the elder X, "X was born …" (the father) for X junior
        return _NAMESAKES_EVENT
    if any(said <= words for words in owned):
        return 1.0
    return _OTHERS_EVENT


_OWN_EVENT = 1.5
"""… and when the step's own event's participle dates it ("was established in 1846")."""
# A participle and a preposition right before a date name the event it dates: "founded in
# 1856", "completed on 4 May 1879".
_EVENT_BEFORE_DATE = re.compile(r"\b([a-z]+)\s+(?:in|on|during)\s+(?:the\s+)?(?:year\s+)?$")


# A life span in brackets after a name: "Ezra Vell (1797-1868)", "(b. 1833)", "(died 1907)",
# "(c. 1790 – 1851)". Its years are the birth and the death, no other event's.
_LIFE_SPAN = re.compile(
    r"\(\s*(?:(?:b|d|born|died|c|ca|fl)\.?\s*)?\d{3,4}"
    r"(?:\s*[-–—]\s*(?:(?:c|ca)\.?\s*)?\d{2,4})?\s*\)"
)


def _in_life_span(sentence: str, a: int) -> bool:
    """Is offset ``a`` inside a bracketed life span ("Ezra Vell (1797-1868)")?"""
    start = sentence.rfind("(", max(0, a - 12), a + 1)
    if start < 0:
        return False
    m = _LIFE_SPAN.match(sentence, start)
    return m is not None and m.end() > a


# A date in a phrase of time that opens its sentence ("In 1931 …", "By about 1880, …").
_FRONTED_DATE = re.compile(rf"\s*(?:{_FRONTED_TIME})\s+(?:(?:about|around|early|late|the)\s+)?$")


def _fronted_date_verbs(sentence: str, a: int, b: int) -> list[str]:
    """The verbs of the clause a fronted date at ``sentence[a:b]`` dates ("In 1931 the two
    companies were merged": merged; "By 1880 it owned five": owned; "In 1846 he moved and
    founded …": both), past a parenthetical phrase after the date ("In 1931, weakened by
    losses, they merged"); none when the date is not fronted."""
    if _FRONTED_DATE.fullmatch(sentence, 0, a) is None:
        return []
    rest = sentence[b:]
    if rest.lstrip().startswith(","):
        comma = rest.find(",", rest.find(",") + 1)
        rest = rest[comma + 1 :] if 0 <= comma < 80 else rest[rest.find(",") + 1 :]
    clause = re.split(r"[,;:()]", rest, maxsplit=1)[0]
    return [
        word
        for word in _EN_WORD.findall(clause)[:16]
        if word.islower() and (is_participle(word) or word in IRREGULAR_PAST)
    ]


def _event_date_factor(
    sentence: str, a: int, relation_terms: Collection[str], scan: bool = False, b: int = -1
) -> float:
    """:data:`_OTHER_EVENT` for a date another event's participle dates ("was founded in 1856"
    for when the company merged), :data:`_OWN_EVENT` for one the step's own verb's participle
    dates; 1.0 when there is none. A date that opens the sentence dates the verb of its clause
    (``b``, the date's end: :func:`_fronted_date_verbs`)."""
    m = _EVENT_BEFORE_DATE.search(sentence, max(0, a - 30), a)
    verb = m.group(1) if m is not None and m.end() == a else ""
    if not verb and b > a and (verbs := _fronted_date_verbs(sentence, a, b)):
        return _OWN_EVENT if any(_same_verb(v, relation_terms) for v in verbs) else _OTHER_EVENT
    # "Its founder died in 1876": a past form with no passive dates its own event too
    if not (is_participle(verb) or verb in IRREGULAR_PAST):
        if not scan:
            return 1.0
        # "He retired from the firm in 1872 and died at his house on 2 October 1884": the
        # date's own verb is the nearest one before it in its clause, past what it governs
        # (``scan``, for a life event's date).
        verb = ""
        clause = re.split(r"[,;:()]|\b(?:who|which|that|whose|and|but)\b", sentence[:a])[-1]
        words = re.findall(r"[A-Za-z][A-Za-z'’-]*", clause)[-8:]
        for k in range(len(words) - 1, -1, -1):
            word = words[k]
            # (a participle may open the sentence: "Born at X on 4 May 1862, …")
            opening = k == 0 and clause.lstrip().startswith(word)
            if (word.islower() or opening) and is_participle(word.lower()):
                verb = word.lower()
                break
        if not verb:
            return 1.0
    return _OWN_EVENT if _same_verb(verb, relation_terms) else _OTHER_EVENT


# The verb after "did"/"does" and its subject: "When did Harl Mills close", "did the firm move".
_DID_VERB = re.compile(
    r"\b(?:did|does|do)\s+(?:(?:the|a|an|its|his|her|their)\s+)?"
    r"(?:[A-Z][\w'’.&-]*(?:\s+(?:(?:of|and|the|de|von|van)\s+)?[A-Z][\w'’.&-]*)*|[a-z][\w-]*)"
    # a generation word is part of the name: "When did Orm Vell junior marry"
    rf"(?:,?\s+(?:{GENERATION_WORDS}))?"
    r"\s+([a-z]+)\b"
)


def _same_verb(verb: str, terms: Collection[str]) -> bool:
    """Is ``verb`` (any form) one of the stemmed ``terms``: "closed" for "close"?"""
    stem = _stem(verb.lower())
    return verb in terms or stem in terms or stem.rstrip("e") in {t.rstrip("e") for t in terms}


# A generation word after a name in evidence, which makes it another person's name.
_GENERATION_SUFFIX = re.compile(
    rf"\s+(?:{GENERATION_WORDS}|Junior|Senior|Jr\.|Sr\.|Jr\b|Sr\b)(?![\w-])"
)
# A name the question writes with a generation word ("Orm Vell the younger", "Ada Moe Jr.",
# "Orm Vell The Younger" as a plan writes it); in evidence, see _GENERATION_AFTER.
_GENERATION_NAME = re.compile(
    r"(?P<name>(?:[A-Z][\w'’-]*\s+)*[A-Z][\w'’-]*)\s*,?\s+"
    rf"(?i:{GENERATION_WORDS}|jr\.?|sr\.?)(?![\w])"
)


# A Markdown pipe table: a header row, a separator row of dashes, then body rows.
_TABLE_ROW = re.compile(r"[ \t]*\|.*\|[ \t]*")
_TABLE_RULE = re.compile(r"[ \t]*\|(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*")


def _after_line_breaks(text: str, at: int) -> int:
    """Where the next line of ``text`` starts after the line breaks at ``at``."""
    while at < len(text) and text[at] in "\r\n":
        at += 1
    return at


# A bracketed aside in a cell: a gloss of what precedes it ("光绪十年（1884年）").
_ASIDE = re.compile(r"[（(][^）)]*[）)]")


@dataclass(frozen=True)
class _TableRow:
    start: int  # where the row's line starts in the text
    end: int
    header: tuple[str, ...]
    cells: tuple[str, ...]
    bounds: tuple[tuple[int, int], ...]  # each cell's span in the text
    rows: tuple[tuple[str, ...], ...]  # every body row of its table
    index: int  # this row's place among them


@functools.lru_cache(maxsize=4096)
def _table_rows(text: str) -> tuple[_TableRow, ...]:
    """The body rows of the Markdown pipe tables in ``text``, each with its table's header."""
    if "|" not in text:
        return ()
    lines: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    out: list[_TableRow] = []
    i = 0
    while i + 2 < len(lines):
        head, rule = (text[a:b] for a, b in lines[i : i + 2])
        if not (_TABLE_ROW.fullmatch(head) and _TABLE_RULE.fullmatch(rule)):
            i += 1
            continue
        header = tuple(c.strip() for c in head.strip().strip("|").split("|"))
        body: list[tuple[int, int, tuple[str, ...], tuple[tuple[int, int], ...]]] = []
        j = i + 2
        while j < len(lines) and _TABLE_ROW.fullmatch(text[lines[j][0] : lines[j][1]]):
            a, b = lines[j]
            bars = [k for k in range(a, b) if text[k] == "|"]
            bounds = tuple((x + 1, y) for x, y in itertools.pairwise(bars))
            body.append((a, b, tuple(text[x:y].strip() for x, y in bounds), bounds))
            j += 1
        rows = tuple(r[2] for r in body)
        out += [
            _TableRow(a, b, header, cells, bounds, rows, k)
            for k, (a, b, cells, bounds) in enumerate(body)
        ]
        i = j
    return tuple(out)


def _cell_fit(cell: str, query: str, terms: set[str] | frozenset[str]) -> bool:
    """Does the question name ``cell`` (a name it writes, or at least half of its terms)?"""
    if not cell or cell.strip("()-–— ") == "":
        return False
    if _CJK.search(cell):
        cell = _ASIDE.sub("", cell).strip()  # 光绪十年（1884年）: the gloss is an aside
        return bool(cell) and cell in query
    own = _term_set(cell)
    if not own:
        # A label of words the terms leave out ("First", "Second" for editions, rounds,
        # terms of office): the question names it when it writes every one of them.
        words = re.findall(r"[a-z]+", cell.lower())
        low = query.lower()
        return bool(words) and all(re.search(rf"\b{w}\b", low) for w in words)
    return 2 * len(own & terms) >= len(own)


def _header_named(header: str, query: str, terms: set[str]) -> bool:
    """Does the question name a table's column? A Chinese header's word may sit inside a
    longer word of the question (出资 in 出资人)."""
    if _CJK.search(header):
        words = _term_set(header)
        words |= {w[:-1] for w in words if w.endswith(("者", "人"))}  # 出资者: who 出资
        return any(len(w) >= 2 and w in query for w in words)
    return bool(_term_set(header) & terms)


# A cell that holds a quantity or a date: it opens on a digit, or on a word of approximation
# before one ("about 1,900", "约120人").
_NUMERIC_CELL = re.compile(r"(?:[~≈]|(?i:about|around|approx\.?|c\.|ca\.|over|約|约|近|逾))?\s*\d")


def _is_key_value(rows: tuple[tuple[str, ...], ...]) -> bool:
    """Is this two-column table a record of one subject, its first column the labels of the
    second's values ("| Founded | 1981 |", "| Founder | Ada Varn |", "| 员工 | 120人 |")?

    The values of such a record are of different kinds, some quantities or dates and some
    not, while its labels are words; a list of like things ("| Year | Event |", "| Director
    | In office |") has one kind of value per column.
    """
    if len(rows) < 2 or any(len(r) != 2 for r in rows):
        return False
    labels, values = [r[0] for r in rows], [r[1] for r in rows]
    if not all(labels) or any(_NUMERIC_CELL.match(c) for c in labels):
        return False
    numeric = sum(bool(_NUMERIC_CELL.match(c)) for c in values)
    return 0 < numeric < len(values)


# A step that asks who held a post right before or after someone: "X's predecessor",
# "predecessor of X", "Who preceded X", "the successor of X", "Who succeeded X", "X的前任",
# "X的继任者", "接替X的人". The verbs' direction turns with the side their object is on.
_BEFORE_NOUN = re.compile(r"\bpredecessor\b|前任", re.IGNORECASE)
_AFTER_NOUN = re.compile(r"\bsuccessor\b|继任者|接任者|接班人", re.IGNORECASE)
_AFTER_VERB = re.compile(
    r"\b(?:succeed(?:ed|s)?|replaced?|took\s+over\s+from|follow(?:ed|s)?)\b|接替|接任|继任",
    re.IGNORECASE,
)
_BEFORE_VERB = re.compile(r"\bpreceded\b", re.IGNORECASE)
_ROW_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _adjacent_asked(query: str, name_at: int) -> int:
    """-1 when ``query`` asks who came right before the holder it names at ``name_at``, +1
    when it asks who came right after, 0 when it asks neither."""
    if _BEFORE_NOUN.search(query):
        return -1
    if _AFTER_NOUN.search(query):
        return 1
    for verb, sign in ((_AFTER_VERB, 1), (_BEFORE_VERB, -1)):
        m = verb.search(query)
        if m is not None:  # "Who succeeded X" asks X's successor; "X succeeded whom", the other
            return sign if name_at >= m.end() else -sign
    return 0


def _named_cell(cell: str, query: str, terms: frozenset[str]) -> bool:
    """Does the question write the holder ``cell`` names (a cell that is no date or number)?"""
    cell = _ASIDE.sub("", cell).strip()
    return (
        len(cell) > 1
        and not _NUMERIC_CELL.match(cell)
        and cell.lower() in query.lower()
        and _cell_fit(cell, query, terms)
    )


@functools.lru_cache(maxsize=4096)
def _adjacent_row(row: _TableRow, query: str, terms: frozenset[str]) -> tuple[int, int] | None:
    """For a step that asks the holder before or after someone a row of a table of holders
    names (see :func:`_adjacent_asked`), (the index in ``row.rows`` of the row it asks, the
    column the named holder is in): the row before or after the named row, in the order of
    the rows' first years when every row has one, else as the table lists them. ``None`` when
    the step asks no such thing."""
    if _adjacent_asked(query, 0) == 0:
        return None
    named = [
        (i, k, c)
        for i, r in enumerate(row.rows)
        for k, c in enumerate(r)
        if c and _named_cell(c, query, terms)
    ]
    if len({i for i, _, _ in named}) != 1:
        return None  # no row named, or several: nothing to count from
    at, col, cell = named[0]
    sign = _adjacent_asked(query, query.lower().find(_ASIDE.sub("", cell).strip().lower()))
    order = list(range(len(row.rows)))
    years = [_ROW_YEAR.search(" ".join(r)) for r in row.rows]
    if all(years):
        order.sort(key=lambda i: int(years[i].group(1)))  # type: ignore[union-attr]
    k = order.index(at) + sign
    return (order[k], col) if 0 <= k < len(order) else None


def _table_factor(
    text: str, pos: int, query: str, terms: Collection[str], expected: str = ""
) -> float:
    """How a table places the value at ``text[pos]``: ×3 in the row the question names
    (a row label or cell it writes) and the column whose header it names ("1881" for "in
    1881", "River" for "which river"); ×0.3 in another row of a table whose row the question
    names, or in another column than the one it names; 1 otherwise (outside tables, or in
    the named row when no header is named: the answer may be the table's subject); ×0.1 for
    a label of a record table (see :func:`_is_key_value`). A step that asks a person reads
    the column a person noun heads ("制茶人", "Skipper") when the header it names is none
    ("获奖茶品" shares 获奖 with "获奖者", but the winner is the maker)."""
    terms = set(terms)
    for row in _table_rows(text):
        if not row.start <= pos < row.end:
            continue
        col = next((k for k, (a, b) in enumerate(row.bounds) if a <= pos < b), None)
        if col is None:
            return 1.0
        if col == 0 and _is_key_value(row.rows):
            return 0.1  # "| Founder | Ada Varn |": a label names a field, not a value
        asked = _adjacent_row(row, query, frozenset(terms))
        if asked is not None:
            # "predecessor of X": the row before X's, in the column X's name is in
            asked_row, named_col = asked
            return 3.0 if row.index == asked_row and col == named_col else 0.3
        hits = {k for k, c in enumerate(row.cells) if k != col and _cell_fit(c, query, terms)}
        if not hits:
            others = any(
                any(k != col and _cell_fit(c, query, terms) for k, c in enumerate(r))
                for r in row.rows
            )
            return 0.3 if others else 1.0
        named = {
            k
            for k, h in enumerate(row.header)
            if k not in hits and k < len(row.cells) and _header_named(h, query, terms)
        }
        if expected == "PERSON":
            people = {
                k
                for k, h in enumerate(row.header)
                if k not in hits and k < len(row.cells) and _person_header(h)
            }
            if people and named and not named & people:
                named = people  # the header named holds a thing; the people are beside it
        if col in named:
            return 3.0
        return 0.3 if named else 1.0
    return 1.0


def _person_header(header: str) -> bool:
    """Does a table's column ``header`` name people ("制茶人", "Skipper", "Winners")?"""
    words = header.strip().split()
    if not words:
        return False
    if _CJK.search(header):
        return zh_noun_type(header.strip()) == "PERSON"
    return head_noun_type(words[-1].lower().removesuffix("s")) == "PERSON"


# A negation earlier in the clause of a name: what the clause says is denied of it ("was not
# related to Captain Hugh Kestley", "not to be confused with X", "并非X", "从未…X").
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|never|neither|nor)\b|\bconfused\s+with\b|\bunrelated\s+to\b)[^,.;:!?]{0,40}$"
    r"|(?:不是|并非|并不是|从未|从来没有|没有|不曾|无关)[^，。；：！？,.;]{0,12}$",
    re.IGNORECASE,
)


# The verb of a birth or a death shortly before a place, in its clause: "was born in X", "died
# at X" (not "…where she was born, and moved to X").
_EN_LIFE_BEFORE = {
    "birth": re.compile(r"\b(?:born|birth|birthplace)\b[^.;,]{0,25}$", re.IGNORECASE),
    "death": re.compile(r"\b(?:died|death|buried)\b[^.;,]{0,25}$", re.IGNORECASE),
}


# A relative clause on the place: "Ebbsfield, the coastal town where she was born",
# "Tarnby, where he died".
_EN_LIFE_AFTER = {
    event: re.compile(
        r"^[^.;,]{0,40},\s+(?:the\s+(?:[a-z-]+\s+){0,3})?(?:where|in\s+which)\s+"
        r"(?:he|she|they|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+" + verb,
        re.IGNORECASE,
    )
    for event, verb in (
        ("birth", r"(?:was|were|had\s+been)\s+born\b"),
        ("death", r"(?:died|was\s+buried|were\s+buried)\b"),
    )
}


def _en_life_place_bonus(sentence: str, a: int, event: str, b: int | None = None) -> float:
    """A place the asked life event's verb introduces ("He was born in Varnford" for a birth),
    or a relative clause on it tells of ("Ebbsfield, the town where she was born"), counts
    more; one the other event's verb introduces ("died at Varnport") less, unless its own
    relative clause tells of the asked event."""
    before = sentence[max(0, a - 40) : a]
    after = sentence[b:] if b is not None else ""
    other_event = "death" if event == "birth" else "birth"
    if _EN_LIFE_AFTER[event].match(after) and not _EN_LIFE_AFTER[other_event].match(after):
        # the place's own relative clause says it, whatever a verb before it says too ("has
        # died at home in Grisby, the village where he was born")
        return 1.5
    own = (
        _EN_LIFE_BEFORE[event].search(before) is not None
        or _EN_LIFE_AFTER[event].match(after) is not None
    )
    other = (
        _EN_LIFE_BEFORE[other_event].search(before) is not None
        or _EN_LIFE_AFTER[other_event].match(after) is not None
    )
    if own and not other:
        return 1.5
    if other and not own:
        return 0.5
    return 1.0


# After a person's name, a word that tells a father from a son of the same name: "Alder
# Quayne the younger" is another person than Alder Quayne.
_GENERATION_AFTER = re.compile(
    r",?\s+(?:the\s+(?:[Yy]ounger|[Ee]lder)|Jr\b\.?|Sr\b\.?|[Jj]unior\b|[Ss]enior\b|I{2,3}\b|IV\b)"
)


def _mentioned(text: str, name: str, holders: Collection[str] = ()) -> bool:
    """Does ``text`` write ``name`` other than as part of one of the longer names
    ``holders`` (栎川电子 in 栎川电子科技 is the other company's name) or of a namesake told
    apart by a generation word ("Alder Quayne the younger")?"""
    start = text.find(name)
    while start >= 0:
        if not any(
            text.startswith(h, start - k)
            for h in holders
            for k in _offsets(h, name)
            if start - k >= 0
        ) and not _GENERATION_AFTER.match(text, start + len(name)):
            return True
        start = text.find(name, start + 1)
    return False


# "the eldest son of the mine captain Orm Vell": a name after a kin noun and "of" is the
# relative of the sentence's subject, who is someone else.
_KIN_OF = re.compile(
    rf"\b(?:{'|'.join(sorted(_KIN_NOUNS))})s?\s+of\s+"
    r"(?:(?:the|a|an|his|her|their)\s+)?(?:[a-z][\w-]*\s+){0,3}$"
)


# A Chinese name is someone's kin when a kin noun follows it: 林某的侄子, 林某之女.
_ZH_KIN_OF = re.compile(
    f"[的之]?(?:{'|'.join(sorted(CHINESE_KIN_WORDS, key=len, reverse=True))})"
    "|之[子女父母妻夫兄弟姊妹侄孙婿]"  # the written form: 林某之女
)


_ZH_FIRST_FORMS = ("头一", "第一", "首", "初")
# (An office's holders, 首任/第一任, are read by ZH_TERM_OF_OFFICE's rules.)
_ZH_FIRST = re.compile(rf"(?:{'|'.join(_ZH_FIRST_FORMS)})(?P<noun>[版次批届期])")


def _only_as_kin(text: str, name: str) -> bool:
    """Does ``text`` write ``name`` only as someone's kin ("the son of Orm Vell", 林某的侄子)?
    A namesake told apart by a generation word ("Orm Vell junior") is no mention of
    ``name``."""
    starts = [i for i in _offsets(text, name) if not _GENERATION_AFTER.match(text, i + len(name))]
    return bool(starts) and all(
        _KIN_OF.search(text, max(0, i - 60), i) or _ZH_KIN_OF.match(text, i + len(name))
        for i in starts
    )


def _offsets(text: str, part: str) -> list[int]:
    """Every offset of ``part`` in ``text``."""
    out, i = [], text.find(part)
    while i >= 0:
        out.append(i)
        i = text.find(part, i + 1)
    return out


def names_topic(title: str, names: Collection[str]) -> bool:
    """Whether a document titled ``title`` is about one of ``names`` (normalized): the title,
    without a trailing parenthetical ("Varrow (city)"), is the name or ends with it as whole
    words ("About Wren Records", 关于秋蝉唱片). A title that lists after commas names its
    subject first ("Holm & Sons, rope makers, Varrby": about the firm, not the
    town), unless the whole title is the name ("Springfield, Illinois")."""
    bare = _PARENTHETICAL.sub("", title)
    whole = normalize_name(bare)
    norm = normalize_name(_TITLE_LIST.split(bare, 1)[0])
    if not norm:
        return False
    for name in names:
        if not name or len(name) < 2:
            continue
        if norm == name or whole == name:
            return True
        if norm.endswith(name):
            before = norm[: len(norm) - len(name)]
            if before.endswith(" ") or (_CJK.match(name[0]) and len(name) > 2):
                return True
    return False


# A name right after these is the event's agent, not the owner of a value after it.
_AGENT_BEFORE = re.compile(r"(?:\bby|\bwith|[由被与和])\s*$")
_LATTER = re.compile(r"^\s*(?:后者|[Tt]he\s+latter\b)")


def _breaks_before(sentence: str, a: int) -> list[int]:
    """Offsets of the clause breaks (commas, semicolons, colons) before offset ``a``."""
    return [m.start() for m in _ZH_CLAUSE_BREAK.finditer(sentence, 0, max(0, a))]


def _said_of_the_latter(sentence: str, a: int, names: Sequence[str]) -> bool:
    """Whether offset ``a`` is in a clause opened by "the latter" (后者) that points back past
    the subject: "…的同城对手是鸥岭海燕俱乐部，后者成立于1960年" says 1960 of the rival."""
    breaks = _breaks_before(sentence, a)
    if not breaks or not _LATTER.match(sentence[breaks[-1] + 1 : a]):
        return False
    before = sentence[(breaks[-2] + 1 if len(breaks) > 1 else 0) : breaks[-1]]
    # The latter of the clause before is its last name: the subject's only when it closes it.
    return not any(n and before.rstrip().endswith(n) for n in names)


_ZH_MODIFIER_AFTER = re.compile(f"[{HAN}]{{1,3}}的")


# "N由Y担任": the role N is given to Y (由 before the name, a verb of taking office after it).
_ZH_TAKE_ROLE = ("担任", "出任", "接任", "继任", "兼任", "充任")


def _zh_holds_role(
    sentence: str, a: int, b: int, head: str, spans: Sequence[tuple[int, int, str, str | None]]
) -> float:
    """How the name at ``a:b`` stands to a clause that ends in the asked noun: its subject
    holds the role (2.0: 苏映雪在片中饰演女主角 for 《X》的女主角); a name in a modifier inside
    the clause does not (0.5: 她在周明执导的《X》中担任女主角); 1.0 when no such clause."""
    if (
        sentence[:a].endswith("由")
        and head in sentence[max(0, a - len(head) - 6) : a]
        and sentence.startswith(_ZH_TAKE_ROLE, b)
    ):
        return 2.0  # 总编辑由邵启明担任: the role is given to the name after 由
    for e0, _ in _occurrences(head, sentence):
        gap = sentence[b:e0]
        if e0 < b or len(gap) > 16 or _ZH_CLAUSE_BREAK.search(gap):
            continue
        if _ZH_MODIFIER_AFTER.match(sentence, b) or (sentence[:a].endswith("是") and "的" in gap):
            # 是鸿新剪铺创办人卜允昌的侄子: a name after the copula opens the noun phrase the
            # asked noun heads; it modifies the noun, the clause's subject holds the role
            return 0.5
        breaks = _breaks_before(sentence, a)
        clause_start = breaks[-1] + 1 if breaks else 0
        if not any(
            clause_start <= sp[0] < a and sp[2] not in ("DATE", "NUMBER", "NOUN") for sp in spans
        ):
            return 2.0
    return 1.0


_OPEN_PAREN = ("（", "(")
_CLOSE_PAREN = ("）", ")")


def _gloss_of(sentence: str, a: int, b: int, names: Sequence[str]) -> bool:
    """Is ``sentence[a:b]`` another name written in brackets beside a name: a linked
    entity's ("鹊桥唱片（Magpie Records）", "Magpie Records (鹊桥唱片)"), which names the
    subject again and answers nothing about it, or a Latin gloss of a Chinese name?"""
    before, after = sentence[:a].rstrip(), sentence[b:].lstrip()
    if before.endswith(_OPEN_PAREN) and after.startswith(_CLOSE_PAREN):
        head = before[:-1].rstrip()
        if _ends_with_name(head, names):
            return True
        # A Latin gloss of the Chinese name before it (彼得·韦恩（Peter Wayne）) is that name
        # again, a candidate already.
        return bool(head) and _CJK.match(head[-1]) is not None and not _CJK.search(sentence[a:b])
    if after.startswith(_OPEN_PAREN):
        inner = after[1:].split(")")[0].split("）")[0].strip()
        # A name, not a year: "Salt Meridian (2009)" dates the album.
        return any(c.isalpha() for c in inner) and any(inner == n for n in names if len(n) >= 2)
    if any(map(str.isdigit, sentence[a:b])):
        return False
    # A bracket right after a linked name that lists other names glosses it: "Velmora (Вельмора,
    # Wildfire)", "Lumo (Finnish: Lumi)". An item with a digit or a lower-case word ("born 1950",
    # "in Paris") says something about the name, and the items after it are no gloss.
    opened = max(before.rfind(p) for p in _OPEN_PAREN)
    if opened >= 0 and not any(c in before[opened:] for c in _CLOSE_PAREN):
        head = before[:opened].rstrip()
        words = head.split()
        if _LABEL_OPEN.match(before, opened + 1) and words and words[-1][:1].isupper():
            # A bracket that opens with a language label glosses the name before it, linked
            # or not: "Tamsk Falls (Vell: Ostra-na-Vira, "The Roaring Mist")".
            return True
        if after[:1] in (",", ";", "，", "；", *_CLOSE_PAREN):
            *earlier, last = re.split(r"[,;，；]", before[opened + 1 :])
            if _GLOSS_LABEL.fullmatch(last.strip()) is not None and not any(
                _NOT_GLOSS.search(item) for item in earlier
            ):
                return _ends_with_name(head, names)
    # "Ostrava Nights, also known as Lumenfall": another name of the linked one.
    alias = _alias_before(before)
    if alias is not None:
        return _ends_with_name(before[: alias.start()].rstrip(), names)
    return False


def _alias_before(before: str) -> re.Match[str] | None:
    """``_ALIAS_BEFORE`` at the end of ``before``, searched in its tail first: a search from
    every offset of a long sentence costs more than the rest of the reading. A match that
    reaches the tail's first character may go on further left: the whole text is searched."""
    if not any(word in before for word in _ALIAS_WORDS):
        return None
    tail = len(before) - _ALIAS_TAIL
    if tail > 0:
        found = _ALIAS_BEFORE.search(before, tail)
        if found is None or found.start() > tail:
            return found
    return _ALIAS_BEFORE.search(before)


def _ends_with_name(text: str, names: Sequence[str]) -> bool:
    """Does ``text`` end with one of ``names`` (two characters or more)?"""
    return any(len(n) >= 2 and text.endswith(n) for n in names if n)


# A language label inside a gloss bracket ("(Russian: Вельмора"), up to the candidate.
_GLOSS_LABEL = re.compile(r"(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s*[:：])?")
# A language label opening a bracket: "(Russian: ", "(Tokaleya Tonga: ".
_LABEL_OPEN = re.compile(r"\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s*[:：]")
# What makes a bracket item a statement about a name rather than another name of it.
_NOT_GLOSS = re.compile(r"\d|(?<![\w'’-])[a-z]")
# An alias phrase after a name, up to the candidate: ", also known as \"", "(a.k.a. ".
_ALIAS_TAIL = 64  # longer than any alias phrase with its punctuation
_ALIAS_LEADS = ("also", "better", "formerly", "otherwise")  # … known as / called
_ALIAS_WORDS = (*_ALIAS_LEADS, "a.k.a")  # every alias phrase holds one of these
_ALIAS_BEFORE = re.compile(
    rf"\s*[,(（]?\s*(?:{'|'.join(_ALIAS_LEADS)})\s+(?:known\s+as|called)\s*[\"“'‘]?$"
    r"|\s*[,(（]?\s*a\.k\.a\.?\s*[\"“'‘]?$"
)


# An appositive noun phrase after a name and its relative clause: ", the coastal town where
# she was born", ", a firm in which he invested".
_APPOSITIVE_RELATIVE = re.compile(
    r",\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,3}?(?:where|in\s+which|at\s+which|when|that|which|who)"
    r"\s+[^,;.]{1,80}"
)


def _defined_as(noun: str, texts: Sequence[str]) -> set[str]:
    """Normalized names that ``texts`` define as a ``noun`` with a copula and an article, or
    with an appositive after a comma: "The Tin Wicks are an indie rock band", "Harwick was a
    small port town", "endowed by Orm Vell, a salt merchant" (up to four modifiers between the
    article and the noun). A bracket may stand between the name and its copula: "Varn Airport
    (IATA: VRN) is a public airport", "Orm Vell (1801–1877) was a salt merchant"."""
    rx = _rx(
        r"(?P<x>(?:The\s+)?[A-Z][\w'’.-]*(?:\s+(?:(?:of|the)\s+){0,2}[A-Z][\w'’.-]*)*)"
        # a title's closing emphasis or quote may stand after it: "*The Salt Road* is a book"
        r"[*_”\"’]{0,2}"
        r"(?:\s*\([^()]{0,80}\))?"
        r"(?:\s+(?:is|are|was|were)\s+(?:an?|the|one\s+of\s+the)|,\s+(?:an?|the))\s+"
        rf"(?:[\w-]+\s+){{0,4}}?{re.escape(noun)}(?:s|es)?\b"
    )
    return {normalize_name(m["x"]) for text in texts for m in rx.finditer(text)}


_ZH_INDEFINITE = re.compile(r"[一两几每某][家座所个位条间部本支种]$")


def _zh_defined_as(noun: str, texts: Sequence[str]) -> set[str]:
    """Names that ``texts`` define as a ``noun`` with 是 and a classifier: "仁和斋是沙汀镇的一家
    中药铺" defines 仁和斋 as a 药铺 (the name opens its clause)."""
    rx = _rx(
        rf"(?:^|[，。；：！？、\s])(?P<x>[{HAN}]{{2,8}}?)是[^，。；]{{0,12}}?"
        rf"[一这][家座所个位条间部本支][^，。；]{{0,4}}?{re.escape(noun)}"
    )
    return {m["x"] for text in texts for m in rx.finditer(text)}


# English agent nouns are made from the verb or noun they do: drum → drummer, guitar →
# guitarist, direct → director, write → writer, library → librarian is left out (a changed stem).
_AGENT_SUFFIXES = ("er", "ers", "or", "ors", "ist", "ists", "ian", "ians")


@functools.lru_cache(maxsize=16384)
def _agent_forms(term: str) -> frozenset[str]:
    """The agent nouns ``term`` (a stemmed word) makes: "drum" → "drummer", "drummers";
    "write" → "writer"; "compos" → "composer". Empty for a word shorter than three letters."""
    if len(term) < 3 or not term.isalpha():
        return frozenset()
    forms = {term + s for s in _AGENT_SUFFIXES}
    forms |= {term + term[-1] + s for s in _AGENT_SUFFIXES}  # a doubled final consonant
    if term.endswith("e"):
        forms |= {term + s[1:] for s in _AGENT_SUFFIXES if s[0] == "e"}
    return frozenset(forms)


@functools.lru_cache(maxsize=8192)
def _agent_forms_of(terms: frozenset[str]) -> frozenset[str]:
    """Every agent noun the words of a sentence make (:func:`_agent_forms` of each)."""
    return frozenset().union(*(_agent_forms(w) for w in terms))


def _word_end(text: str, end: int) -> int:
    """``end`` moved to the end of the Latin word it falls in (CJK text is left as is)."""
    while end < len(text) and text[end].isascii() and text[end].isalpha():
        end += 1
    return end


_REDUCED_RELATIVE = re.compile(
    r",\s+(?P<verb>[a-z]+)\s+(?:(?:in|on|at|by|during|around|about|from|c\.)\s+)?(?:the\s+year\s+)?"
)


def _reduced_relative(gap: str) -> bool:
    """Is ``gap`` (the text between a name and a value) a participle clause opening on that
    name: ", founded in ", ", opened on ", ", built "?"""
    m = _REDUCED_RELATIVE.fullmatch(gap)
    return m is not None and is_participle(m["verb"])


def _owner_before(
    spans: Sequence[tuple[int, int, str, str | None]], a: int
) -> tuple[int, int, str, str | None] | None:
    """The name nearest before offset ``a`` of a sentence: what a value there is said of
    ("…rivals are Kelmoor Rovers, founded in 1923", "…鸥岭海燕俱乐部，后者成立于1960年")."""
    names = [sp for sp in spans if sp[1] <= a and sp[2] not in ("DATE", "NUMBER", "NOUN")]
    return max(names, key=lambda sp: (sp[1], sp[1] - sp[0]), default=None)


def read_evidence(
    query: str,
    expected: AnswerType,
    evidence: Sequence[Evidence],
    linked: Sequence[Any],
    graph: GraphView | None = None,
    top: int = 6,
    question: str = "",
    related: Collection[str] | None = None,
) -> tuple[_Candidate | None, float]:
    """The best answer candidate for ``query`` in ``evidence`` and the best sentence overlap.

    ``question`` is the whole question when ``query`` is one of its steps: a name it gives is
    never the answer (it asks about that name). ``related``: the entities one relation away
    from the linked ones when the caller has read them already (else read here)."""
    if not evidence:
        return None, 0.0
    terms = _term_set(query)
    # A bracket after a name qualifies it ("Whispers (Ilsa Varn Song)"): the names inside are
    # not what the step asks about, so they may answer it.
    # A bracket that names a kinsman ("Ada Moe (Granddaughter of Orm Moe)") says how he is
    # related; he stays a name of the question, not an answer to another kin noun.
    qualifiers = " ".join(
        m.group(1)
        for m in _QUALIFIER.finditer(f"{query} {question}")
        if not any(w.lower() in KIN_GENDER for w in m.group(1).split())
    )
    if qualifiers:
        bare = _QUALIFIER.sub("", query)
        linked = [
            le
            for le in linked
            if not (_get(le, "span") and _get(le, "span") in qualifiers) or _get(le, "span") in bare
        ]
        query_for_names, question_for_names = bare, _QUALIFIER.sub("", question)
    else:
        query_for_names, question_for_names = query, question
    own_terms = _term_set(query_for_names) if qualifiers else terms
    linked_names = [_get(le, "name") for le in linked] + [_get(le, "span") for le in linked]
    linked_ids = {_get(le, "entity_id") for le in linked} - {""}
    name_terms = {t for n in linked_names for t in _term_set(n)}
    for m in _CAP_NAME.finditer(query):
        name_terms |= _term_set(m.group(0))
    relation_terms = terms - name_terms
    if _CJK.search(query):  # an event word jieba cut apart in the question (伞铺开张)
        relation_terms |= {w for w in ZH_EVENT_WORDS if w in query and w not in terms}
        # "first" is written 头一/第一/首/初 before the counted noun: 头一版 is 初版
        relation_terms |= {
            f"{first}{m['noun']}" for m in _ZH_FIRST.finditer(query) for first in _ZH_FIRST_FORMS
        }
    # "plays drums" is said "drummer Ola Brenn": a relation word's agent noun shares it.
    agent_forms = {t: _agent_forms(t) for t in relation_terms} if not _CJK.search(query) else {}
    linked_terms = {t for n in linked_names for t in _term_set(n)}
    life_event = (
        "birth"
        if "birth" in terms or _ZH_LIFE_VERB["birth"].search(query) or _ORIGIN_Q.search(query)
        else (
            "death"
            if "death" in terms or _ZH_LIFE_VERB["death"].search(query) or "卒" in query
            else None
        )
    )
    q_norm = normalize_name(query_for_names) + " " + normalize_name(question_for_names)
    # "the father of Orm Vell the younger": the name without its generation word is
    # another person of the family, who may answer.
    other_generation = {
        normalize_name(m["name"])
        for m in _GENERATION_NAME.finditer(f"{query_for_names} {question_for_names}")
    }
    # "How long is the Tallow", "the height of …": a measure, answered with its unit.
    measure = bool(_MEASURE_Q.search(query) or MEASURE_VERB_Q.search(query))
    # A measure that is no price ("What length was X", not "What did X cost"): money is not it.
    priced = bool(terms & {"cost", "price", "pay", "sum", "fee", "worth", "value"})
    # "How much did X fetch when it was sold", "How much was paid for Y": a verb of sale or
    # payment with "how much" asks a price, which the evidence writes with its currency.
    sale_price = (
        expected == "NUMBER"
        and not measure
        and _HOW_MUCH_DID.search(query) is not None
        and bool({_stem(t) for t in terms} & _EXCHANGE_STEMS)
    )
    # "After the gallery went in, how many …", "… once its third floor was added": the value
    # asked is the one the evidence gives after it tells of that event.
    after_event = (
        _AFTER_EVENT.search(query) if expected == "NUMBER" and not _CJK.search(query) else None
    )
    event_terms = (
        {t for t in _term_set(after_event["clause"]) if not t.isdigit()} - name_terms
        if after_event is not None
        else set()
    )
    # "How many staff did X have in 2017", "B轮融资额是多少": the qualifiers the value is
    # asked at (a year, a funding round); a value is said at the one nearest it in its clause.
    asked_at = _qualifiers(query, 0, len(query)) if expected == "NUMBER" else {}
    # "2013年…奖授予了谁", "Who won the X Medal in 2016": the year a holder is asked at.
    year_at = (
        {"year": _qualifiers(query, 0, len(query)).get("year", [])}
        if expected in ("PERSON", "NAME", "ORGANIZATION")
        else {}
    )
    if not year_at.get("year"):
        year_at = {}
    tenure = _tenure(query) if year_at else None
    # "how many pages": the noun counted; a number written before another plural noun
    # ("1,200 copies") counts something else.
    ordinal_role = (
        _ORDINAL_ROLE.search(query)
        if expected not in ("DATE", "NUMBER") and not _CJK.search(query)
        else None
    )
    # The role with its ordinal, and the role alone, as a sentence may name them.
    with_ordinal = role_alone = None
    if ordinal_role is not None:
        role = re.escape(ordinal_role.group(2))
        with_ordinal = re.compile(
            rf"\b{ordinal_role.group(1)}\s+(?:[a-z]+\s+)?{role}\b", re.IGNORECASE
        )
        role_alone = re.compile(rf"\b{role}\b", re.IGNORECASE)
    # "the brewery that X merged with": a party to the merger is asked, not what it formed.
    merging = _MERGE_VERB.search(query) is not None
    # "原来的奖金是多少", "How many beds did it originally have": the first value is asked.
    asks_original = _ASKS_ORIGINAL.search(query) is not None
    # … unless the question dates the value or asks an edition's or a term's own ("在光绪三十
    # 二年有多少人口", "头一版印了多少部", "the first edition"): then no value is the latest
    dated_query = bool(find_dates(query)) or _ORDINAL_ITEM.search(query) is not None
    counted_m = _COUNTED_NOUN.search(query) if expected == "NUMBER" else None
    counted = _stem(counted_m.group(1).lower()) if counted_m is not None else ""
    clock = bool(_CLOCK_Q.search(query))  # "What time does X close?": a time of day
    count = bool(_COUNT_Q.search(query))
    # "每天能产卤多少担", "分为几卷": the measure word the count is asked in.
    zh_measure_m = _ZH_ASKED_MEASURE.search(query)
    zh_measure = zh_measure_m.group(1) if zh_measure_m else ""
    # "收购价格是多少", "工业总产值多少": a sum of money, written in a currency.
    zh_money = expected == "NUMBER" and bool(_ZH_MONEY_Q.search(query))
    head = _head_noun(query)
    # "Which book did X write": the asked noun is a work's, which no person or place is.
    work_asked = expected == "NAME" and head in TITLED_WORKS and not _CJK.search(query)
    place_head = _place_head(head, expected)
    kin_gender = KIN_GENDER.get(head) if expected in ("PERSON", "NAME") else None
    defined_as_head = (
        (_zh_defined_as if _CJK.search(query) else _defined_as)(
            head, [e.text for e in evidence[:top]]
        )
        if head
        else set()
    )
    cjk_query = bool(_CJK.search(query))
    zh_head = head if cjk_query else ""
    age_asked = (
        not cjk_query
        and expected == "NUMBER"
        and re.search(r"(?i)\bhow\s+old\b", query) is not None
    )
    # "X的馆址原来是什么地方": the attribute whose value the step asks (see _ZH_ATTRIBUTE_ASKED)
    asked_attr = _ZH_ATTRIBUTE_ASKED.search(query) if cjk_query else None
    zh_attribute = asked_attr.group(1) if asked_attr is not None else ""
    attribute_words = (
        (zh_attribute, *(n for n in linked_names if n and _CJK.match(n)))
        if zh_attribute.endswith(("址", "所在地"))
        else (zh_attribute,)
    )
    renaming = cjk_query and bool(_ZH_RENAME_Q.search(query))
    nickname = _NICKNAME_Q.search(query) is not None
    # "X担任什么职务": the post a person held, which a text writes as the title before the
    # name (私方副厂长郗承业) or after the verb of taking it (郗承业出任副厂长).
    post_asked = cjk_query and zh_head in _ZH_POST_NOUNS
    # the asked noun as a text may write it: a teacher is as often called a mentor or a tutor
    head_forms = (
        "(?:" + "|".join(sorted(_EN_TEACHER_NOUNS)) + ")"
        if head in _EN_TEACHER_NOUNS
        else re.escape(head)
    )
    possessed_role = (
        _rx(_EN_POSSESSED_ROLE.format(head=head_forms)) if head and not cjk_query else None
    )
    role_before = (
        _rx(_EN_ROLE_BEFORE_NAME.format(head=head_forms)) if head and not cjk_query else None
    )
    if expected == "PERSON" and not cjk_query:
        # "Who leads the team at X": the agent noun of the step's verb before a copula ("Our
        # team leader since 2016 has been Y"), where the step asks no noun of its own
        acts = frozenset(t for t in relation_terms if t.isalpha())
        doers = sorted(a for a in _agent_forms_of(acts) if a not in (head or ""))
        if doers and role_before is None:
            role_before = _rx(_EN_ROLE_BEFORE_NAME.format(head=f"(?:{'|'.join(doers)})"))
    zh_units = frozenset(set(zh_head) & CHINESE_ADMIN_UNITS)  # 城市 → 市, 省份 → 省
    zh_teacher = zh_head in _ZH_TEACHER_NOUNS
    zh_pupil = zh_head in _ZH_PUPIL_NOUNS
    zh_firm = bool(zh_head) and zh_noun_type(zh_head) == "ORGANIZATION"  # 集团, 公司, 出版社
    # "the teacher of X", "Who taught X": a name that X learned from
    en_teacher = not cjk_query and (head in _EN_TEACHER_NOUNS or "teach" in relation_terms)
    # "the pupil of Y" answers "the teacher of X": the converse nouns of the asked one
    converse_terms = {_stem(c) for c in CONVERSE_ROLES.get(head, ())} if not cjk_query else set()
    # The step asks for a thing that is none of person/place/organisation (a novel, a prize).
    work_head = (
        expected in ("NAME", "TEXT")
        and bool(head)
        and (zh_noun_type(head) if _CJK.search(head) else head_noun_type(head)) == "NAME"
    )
    linked_norms = {normalize_name(n) for n in linked_names if n}
    role_asked: Callable[[str], bool] | None = None
    field_asked: Callable[[str], bool] | None = None
    if not cjk_query:
        # the role the step asks, as a line-up writes it before a name: its noun
        # ("guitarist"), or the agent noun of its words ("plays bass" → "bassist")
        verbs = {*relation_terms, *(t[:-1] for t in relation_terms if t.endswith("s"))}
        agents = _agent_forms_of(frozenset(verbs))  # "owns" → "owner", "founded" → "founder"
        person_head = (
            head if head and (expected == "PERSON" or head_noun_type(head) == "PERSON") else ""
        )

        def _asked(word: str) -> bool:
            return word == person_head or word in agents or _stem(word) in relation_terms

        def _field(word: str) -> bool:  # "Owner:", "Born:", "Club:"
            return _asked(word) or word == head

        if expected in ("PERSON", "NAME"):
            role_asked = _asked
        field_asked = _field
    # "Altamere Aircraft Works (AAW)": the initials of a name the question gives are that name
    asked_initials = {
        initials
        for n in [*linked_names, *_CAP_NAME.findall(f"{query} {question}")]
        if n and (initials := _initials(n))
    }
    # A Chinese name the question links is a word of its own, and so is a stretch the question
    # writes itself (金鼎厨艺奖 when the segmenter knows no such name).
    zh_written = (
        {p for p in re.split(rf"[^{HAN}]+|的", query) if len(p) >= 3}
        | {n for n in linked_names if n and len(n) >= 2 and _CJK.match(n)}
        if cjk_query
        else set()
    )
    named = [n for n in linked_names if n]
    relative = _zh_relative(query, named, terms) if cjk_query else None
    if cjk_query and relative is None and (agent_verb := _zh_agent_verb(query)):
        relative = ([agent_verb], "agent")  # "X的创办人": who 创办 X
    en_relative = None if cjk_query else _en_relative(query, named)
    surnames = [
        words[-1]
        for le in linked
        if _get(le, "type").upper() == "PERSON"
        and len(words := _get(le, "name").split()) > 1
        and words[-1][:1].isupper()
        and len(words[-1]) > 2
    ]
    view = graph or GraphView()
    # A document titled with the subject's name is about it: its sentences say "It was
    # founded in 1911" without repeating the name.
    titles = view.doc_titles([e.doc_id for e in evidence[:top]])
    topic_docs = {d for d, title in titles.items() if names_topic(title, linked_norms)}
    # The reader reads the top pieces, and further down the pieces of a document about the
    # subject: all of it is about the subject, so a piece ranked lower for not naming it
    # ("The company's head office is in …") may still say what is asked.
    order = list(range(min(top, len(evidence)))) + [
        i for i in range(top, min(2 * top, len(evidence))) if evidence[i].doc_id in topic_docs
    ]
    ranked = [evidence[i] for i in order]
    firm_agent = expected == "PERSON" and FIRM_OR_PERSON_VERB.match(query) is not None
    # "Whose daughter did X marry?": the answer is the one the daughter is of
    whose = _WHOSE_NOUN.match(query) if not cjk_query else None
    whose_noun = whose[1].lower() if whose is not None else ""
    mentions = view.chunk_entities([e.chunk_id for e in ranked])
    subject_kinds = {
        kind
        for le in linked
        if (kind := _TYPE_ALIASES.get(_get(le, "type").upper())) in ("PERSON", "ORGANIZATION")
    }
    # The names the step asks about that are no person's: a person may share one's word
    # ("Ada Holm" for Holm Instruments, named after her)
    linked_firms = [
        n
        for le in linked
        if _TYPE_ALIASES.get(_get(le, "type").upper()) != "PERSON" and (n := _get(le, "name"))
    ]
    # The people the step asks about (no name with an article is a person's: "The Golden
    # Skep" is a prize whatever type the graph gave it).
    linked_people = [
        n
        for le in linked
        if _TYPE_ALIASES.get(_get(le, "type").upper()) == "PERSON"
        and (n := _get(le, "name"))
        and not n.startswith("The ")
    ]
    # "Who directs X?", "X现任院长是谁": the holder of a post now, not a former one
    holder_now = expected in ("PERSON", "NAME") and _asks_now(query, bare=not linked_people)
    # Chinese names the graph knows from any passage read here: the segmenter may miss one
    # in another passage (奔腾/v + 电子/n), where the name is still written out.
    zh_known = (
        sorted(
            {
                ent
                for ents in mentions.values()
                for ent in ents
                if _CJK.match(ent[1]) and len(ent[1]) > 1 and ent[2].upper() not in ("DATE",)
            }
            | set(view.names_in([e.text for e in ranked]))
        )
        if cjk_query
        else []
    )
    known_names = {name for _, name, _ in zh_known}
    if related is None:
        related = view.related(sorted(linked_ids)) if linked_ids else set()
    similar = view.sentence_similarity(query, ranked)
    pool: dict[str, _Candidate] = {}
    holds: set[tuple[str, str]] = set()  # (unit, the unit an address writes right after it)
    best_overlap = 0.0
    lower_words = {w for ev in ranked for w in _LOWER_WORD.findall(ev.text)}

    # Longer Chinese names that hold a linked one (栎川电子科技 holds 栎川电子): written there,
    # the linked name is part of another entity's, not a mention of the subject.
    holders = {
        n: [k for _, k, _ in zh_known if n in k and k != n and k not in linked_names]
        for n in linked_names
        if n and _CJK.match(n[0])
    }

    def names_subject(text: str) -> bool:
        return any(
            n
            and _mentioned(text, n, holders.get(n, ()))
            and not _only_as_kin(text, n)
            # "Upper Quillhaven" names another place than Quillhaven
            and (cjk_query or _names_alone(n, text))
            for n in linked_names
        )

    # A Chinese step's event (成立于哪一年: a founding), as the family of verbs that say it.
    zh_event = (
        next((f for f in _ZH_EVENT_FAMILIES if any(w in query for w in f)), frozenset())
        if cjk_query and expected == "DATE"
        else frozenset()
    )
    # "When was X founded": a founding, not a renaming, unless the step asks one
    founding_date = (
        expected == "DATE"
        and ("found" in relation_terms or bool(zh_event & _ZH_FOUNDING))
        and not _NAMING_EVENT.search(query)
        and not re.search(r"\bnamed?\b|名", query)
    )
    # The step's own event verb, when it has one ("merged", "founded"): a date another
    # event's participle dates is not its date.
    # Or the verb after "did" ("When did X close?"): the evidence writes it as a participle.
    step_event = not cjk_query and (
        any(
            is_participle(w) and (w in relation_terms or _stem(w) in relation_terms)
            # "When was X set up": the phrasal verb's meaning is the participle
            for w in _EN_WORD.findall(with_phrasal(query).lower())
        )
        or any(_same_verb(m.group(1), relation_terms) for m in _DID_VERB.finditer(query))
    )
    # "The hall opened in 1908" in a document about Alcombe Hall: the class noun the subject
    # is called by goes on about it as a pronoun does.
    subject_nouns = (
        _subject_nouns(named, [ev.text for ev in ranked]) if not cjk_query else frozenset()
    )
    own_subjects = (
        _own_subjects(
            titles, [(ev.doc_id, ev.text) for ev in ranked], expected, q_norm, linked_norms
        )
        if not cjk_query and expected in ("ORGANIZATION", "LOCATION", "PERSON", "NAME")
        else {}
    )
    # "predecessor of X" where a table of holders in the evidence lists X: the row before
    # X's says who it was, though it shares no word with the step (where each piece's asked
    # rows start)
    adjacent_rows = [
        [
            r.start
            for r in _table_rows(ev.text)
            if (asked := _adjacent_row(r, query, frozenset(terms))) is not None
            and asked[0] == r.index
        ]
        if _adjacent_asked(query, 0)
        else []
        for ev in ranked
    ]
    by_table = any(adjacent_rows)
    for rank, ev in enumerate(ranked):
        text = ev.text
        ents = mentions.get(ev.chunk_id, [])
        subject_here = names_subject(text) or any(_by_surname(text, s) for s in surnames)
        # A piece of a document about the subject may open with "It …" / "该公司…": the
        # pronoun goes on about the subject although the name is in an earlier piece.
        previous_about_subject = ev.doc_id in topic_docs
        subject_gender = ""  # "he" or "she", once a sentence about the subject says which
        doc_title = titles.get(ev.doc_id, "")
        other_title = bool(doc_title) and not (
            _term_set(doc_title) & name_terms
            or (cjk_query and any(n in doc_title or doc_title in n for n in named))
        )
        # a piece of another person's document that names none of the people asked about
        # (see others_he below)
        others_document = (
            not cjk_query
            and other_title
            and bool(linked_people)
            and not any(p in text for p in linked_people)
        )
        adjacent = adjacent_rows[rank]
        for s_start, s_end in _sentences(text):
            sentence = text[s_start:s_end]
            # a table's header row ("| Chair | Term |" above "|---|---|") names columns
            header_row = sentence.lstrip().startswith("|") and bool(
                _TABLE_RULE.match(text, _after_line_breaks(text, s_end))
            )
            sent_terms = _term_set(sentence)
            subject_in_sentence = names_subject(sentence) or any(
                _by_surname(sentence, s) for s in surnames
            )
            shared_name = sent_terms & name_terms
            # "The Varn Bell Foundry was founded in 1762" for the Varn Vale Bell Foundry: a
            # sentence that names a near-namesake and not the subject speaks of the other one,
            # and the words of the subject's name it shares are that one's.
            namesake_sentence = (
                not cjk_query
                and not subject_in_sentence
                and _names_namesake(sentence, linked_names, linked_norms)
            )
            if namesake_sentence:
                shared_name = set()
            # (read only where a pronoun may carry the subject on)
            gender = (
                _pronoun_gender(sentence)
                if not cjk_query and not subject_in_sentence and previous_about_subject
                else ""
            )
            if (
                not subject_in_sentence
                and previous_about_subject
                # "He married Ada Moe. She was the daughter of …": "she" is not "he"
                and not (gender and subject_gender and gender != subject_gender)
                and (
                    _PRONOUN_START.search(sentence)
                    or (
                        (definite_start := _DEFINITE_START.match(sentence)) is not None
                        and definite_start.group(1) in subject_nouns
                    )
                )
            ):
                # "It has a population of …": a sentence opening with a pronoun goes on
                # about the subject of the one before.
                subject_in_sentence = True
                shared_name = shared_name | linked_terms
                # (the pronoun that carried the subject on says which it is; a sentence that
                # names the subject may have another's: "His successor is Ada Moe")
                subject_gender = gender or subject_gender
            previous_about_subject = subject_in_sentence
            # "He was born in Varn" in a piece that does not name the subject, of a document
            # titled with another name (no word of the subject's): the pronoun is that other
            # one, and so is the birth.
            others_pronoun = (
                life_event is not None
                and not subject_in_sentence
                and other_title
                and _PRONOUN_START.search(sentence) is not None
            )
            # "He won the Golden Skep twice, in 1971 and 1986" in a piece that names none of
            # the people asked about, of a document titled with another name: the pronoun is
            # that other person, and so is what the sentence tells.
            others_he = others_document and _PERSON_PRONOUN_START.search(sentence) is not None
            # "郗远山，咸丰元年生于…，是邴守拙的长子", "Ada, the niece of X, was born in …": the
            # subject is named only as another's kin, and the birth told is that other one's.
            others_life = others_pronoun or (
                life_event is not None
                and not subject_in_sentence
                and any(n and n in sentence and _only_as_kin(sentence, n) for n in linked_names)
            )
            # "X junior was born in 1834 at Cradmoor, under the hill": for the elder X, no
            # place or date of the sentence is his.
            others_event = (
                _another_is_born(sentence, life_event, linked_names)
                if life_event is not None and not cjk_query
                else 1.0
            )
            shared_rel = sent_terms & relation_terms
            ordinal_factor = 1.0
            if with_ordinal is not None and role_alone is not None:
                # "Who was the first principal of X": a sentence that names the role with that
                # ordinal says who held it first; one with the role alone ("while she was
                # principal") speaks of whoever held it at that time
                if with_ordinal.search(sentence):
                    ordinal_factor = 1.3
                elif role_alone.search(sentence):
                    ordinal_factor = 0.5
            if agent_forms:
                # Either way round: "drummer Ola" for "plays drums", "directed by Ola" for
                # "the director of".
                shared_rel |= {
                    t
                    for t, forms in agent_forms.items()
                    if forms & sent_terms or t in _agent_forms_of(frozenset(sent_terms))
                }
            if converse_terms & sent_terms:
                # "she became the pupil of Y" says who her teacher was
                shared_rel |= {t for t in relation_terms if t == _stem(head)} or {head}
            if cjk_query:
                # Chinese words are matched as characters: 就读 is in "就读于".
                shared_rel |= {t for t in relation_terms if len(t) > 1 and t in sentence}
                shared_rel |= _zh_said_otherwise(relation_terms, sentence)
                if life_event is not None and _ZH_LIFE_VERB[life_event].search(sentence):
                    shared_rel.add(life_event)  # 生于 says 出生: one event, other words
                shared_name |= {t for t in name_terms if len(t) > 1 and t in sentence}
            overlap = 1.5 * len(shared_rel) + 0.6 * len(shared_name)
            # Meaning, not only words: "head office" answers "headquartered".
            lo, hi = ev.char_start + s_start, ev.char_start + s_end
            dense = max(
                (sim for a0, b0, sim in similar.get(ev.doc_id, []) if a0 < hi and b0 > lo),
                default=0.0,
            )
            dense = to_reference_cosine(
                dense, getattr(view.store, "embedder", None), "zh" if cjk_query else "en"
            )
            overlap += _DENSE_WEIGHT * max(0.0, dense - _DENSE_FLOOR)
            if any(s_start <= r < s_end for r in adjacent):
                overlap = max(overlap, 1.5 + 0.6 * len(name_terms))
            if terms:
                best_overlap = max(best_overlap, (len(shared_rel) + len(shared_name)) / len(terms))
            if overlap == 0 and len(terms) > 1:
                continue
            spans: list[tuple[int, int, str, str | None]] = []
            attached: set[tuple[int, int]] = set()
            renamed: set[tuple[int, int]] = set()
            posts: set[tuple[int, int]] = set()
            own = {e[0] for e in ents}
            for ent_id, name, etype in ents + [e for e in zh_known if e[0] not in own]:
                for start, end in _name_occurrences(name, sentence):
                    kind = _TYPE_ALIASES.get(etype.upper(), "NAME")
                    if kind == "PERSON" and _THING_HEAD.search(name):
                        kind = "NAME"  # "the Emberlin Medal": named after a person, not one
                    if kind == "NAME" and _partners(name):
                        kind = "ORGANIZATION"  # "Lintel & Moss", whatever the extraction made
                    if _CAPITALS_RUN.fullmatch(sentence[start:end]) or _shouted_word(
                        sentence[start:end], sentence, start, lower_words
                    ):
                        continue  # a heading in capitals, whatever the extraction made of it
                    if kind == "NAME" and _CJK.match(name) and _zh_common_word(name):
                        kind = "NOUN"
                    elif kind == "PERSON" and (
                        _article_before(sentence, start, name) or name.startswith("The ")
                    ):
                        kind = "NAME"  # "the Kell Arboretum": no person's name takes "the"
                    elif kind in ("ORGANIZATION", "LOCATION", "NAME") and _person_appositive(
                        sentence, start, end
                    ):
                        # "by Orm Vell, a former chief clerk at …": the text calls him a
                        # person, whatever type another mention gave the name
                        kind = "PERSON"
                    if kind == "NAME" and _in_italics(sentence, start):
                        kind = "TITLE"  # "*A Primer of the Straw Skep*": a work's title
                    spans.append((start, end, kind, ent_id))
            sentence_dates = find_dates(sentence)
            for d_start, d_end, _ in sentence_dates:
                spans.append((d_start, d_end, "DATE", None))
            if clock:
                spans += [(m.start(), m.end(), "DATE", None) for m in _CLOCK.finditer(sentence)]
            compound_end = -1
            for m in _NUMBER.finditer(sentence):
                if m.start() < compound_end:
                    continue  # "24 cwt 1 qr 7 lb": the smaller units are part of one measure
                if not DATE_RX.fullmatch(m.group(0)) or _ZH_CLASSIFIER.match(sentence, m.end()):
                    unit = _UNIT.match(sentence, m.end()) if measure else None
                    # "£6.2 million": the currency sign is part of the amount
                    at = m.start() - 1 if _currency_before(sentence, m.start()) else m.start()
                    end = _compound_measure_end(sentence, unit) if unit else m.end()
                    if unit is not None and end > unit.end():
                        compound_end = end
                    spans.append((at, end, "NUMBER", None))
            if age_asked:
                # "How old was X when he died": an age in words ("aged seventy-eight", "He was
                # seventy-eight.") or the year of life it was ("in his seventy-second year")
                spans += [
                    (m.start("n"), m.end("n"), "NUMBER", None)
                    for m in _AGE_IN_WORDS.finditer(sentence)
                ]
                spans += [
                    (m.start(), m.end(), "NUMBER", None) for m in IN_NTH_YEAR.finditer(sentence)
                ]
                # (the day of a date is no age: "died on 11 December 1829")
                spans = [
                    sp
                    for sp in spans
                    if sp[2] != "NUMBER" or not any(a <= sp[0] < b for a, b, _ in sentence_dates)
                ]
            if zh_measure and expected == "NUMBER":
                # "享年七十六岁" for 多少岁, "九海里" for 多少海里: a measure in Chinese
                # numerals in the unit asked (in another unit it answers nothing asked)
                spans += [
                    (m.start(), m.end(), "NUMBER", None)
                    for m in _ZH_NUMERAL_UNIT.finditer(sentence)
                    if m.group("unit").startswith(zh_measure)
                ]
            if counted:
                # "sixty-four tons of cheese" for how many tons: a count in words before the
                # noun counted (only there: "one of its founders" counts nothing asked)
                spans += [
                    (m.start(), m.end(), "NUMBER", None)
                    for m in _NUMBER_WORDS.finditer(sentence)
                    if _counts_noun(sentence, m.end(), counted)
                ]
            if zh_measure:
                # A count in Chinese numerals in the measure word asked: 共四卷 for 几卷 (not
                # 一部, which is the indefinite article, nor 三百部 for it).
                spans += [
                    (m.start(), m.end(), "NUMBER", None)
                    for m in _ZH_NUMERAL_COUNT.finditer(sentence)
                    if m.group(0)[:-1] != "一" and not _zh_other_measure(m.group(0), "", zh_measure)
                ]
            if post_asked:
                for p0, p1 in _zh_posts(sentence, linked_names):
                    spans.append((p0, p1, "NAME", None))
                    posts.add((p0, p1))
            if nickname:
                # The quoted name a naming phrase gives is the nickname asked for, whatever
                # else the segmenter or the capitals make of its words.
                for m in _NICKNAME_GIVEN.finditer(sentence):
                    spans.append((m.start("name"), m.end("name"), "NAME", None))
                    renamed.add((m.start("name"), m.end("name")))
            if _CJK.search(sentence):
                spans += [(a, b, k, None) for a, b, k in _cjk_candidates(sentence)]
                if zh_units:
                    # "位于蕺溪县鹬湾镇" for 哪个县: the unit asked, however the segmenter cut the
                    # rare characters of its name
                    spans += [
                        (m.start("n"), m.end("n"), "LOCATION", None)
                        for m in _zh_unit_names(zh_units).finditer(sentence)
                    ]
                if zh_attribute and any(w in sentence for w in attribute_words):
                    # "X的馆址原来是什么地方" and "馆址在县城药王庙旧址，…": what the attribute is
                    # said to be (在/位于/为/是) is its value, a common noun phrase as it may be;
                    # a site (馆址, 厂址) is also where the subject itself is said to be
                    for said in _ZH_ATTRIBUTE_SAID.finditer(sentence):
                        if sentence[: said.start()].endswith(attribute_words):
                            kind = "LOCATION" if expected == "LOCATION" else "NAME"
                            spans.append((said.start("value"), said.end("value"), kind, None))
                if renaming:
                    # "改名为沙汀大戏院": the new name is the whole run after the verb.
                    for m in _ZH_RENAMED.finditer(sentence):
                        spans.append((m.start("name"), m.end("name"), "NAME", None))
                        renamed.add((m.start("name"), m.end("name")))
                if zh_head:
                    spans += [
                        (a, b, k, None)
                        for a, b, k in _head_compounds(sentence, zh_head, known_names)
                    ]
                # "董事一人": a count, however a name or the asked noun (人) took it in
                spans = [
                    sp
                    for sp in spans
                    if sp[2] == "NUMBER" or not _ZH_COUNT_ONLY.fullmatch(sentence[sp[0] : sp[1]])
                ]
            else:
                # read once, used three times; a run of capitals is a heading or a shout
                # ("ANNUAL REPORT 2019", "I LEARNED TO CUT"), no name
                names = [
                    m
                    for m in _cap_names(sentence)
                    if not _CAPITALS_RUN.fullmatch(m.group(0))
                    and not sentence.startswith("$", m.end())  # "US$": a currency's sign
                    and not _shouted_word(m.group(0), sentence, m.start(), lower_words)
                ]
                for m in names:
                    # No English name ends in an article or a demonstrative: "the floor of
                    # Parliament The current leader" (a full stop lost) gives "Parliament".
                    end = m.start() + _without_determiner(m.group(0))
                    kind = _kind_of_span(sentence[m.start() : end], sentence[: m.start()], expected)
                    if kind == "NAME" and _person_appositive(sentence, m.start(), end):
                        kind = "PERSON"  # "Nadia Ferrow, guitarist of the band …"
                    spans.append((m.start(), end, kind, None))
                if expected == "PERSON":
                    spans = _split_people(sentence, names, spans, expected)
                # "She wrote *A Primer of the Straw Skep*": a work's title, whatever a part
                # of it was taken for
                spans = [
                    (a, b, "TITLE", e)
                    if k in ("NAME", "PERSON") and e is None and _in_italics(sentence, a)
                    else (a, b, k, e)
                    for a, b, k, e in spans
                ]
                for m in names:
                    # "the Philbrook Museum of Tulsa" for a question about the Philbrook
                    # Museum: the name after "of" places or owns it and is a candidate.
                    left, of, right = m.group(0).rpartition(" of ")
                    if of and right[:1].isupper() and normalize_name(left) in linked_norms:
                        start = m.start() + len(left) + len(of)
                        attached.add((start, m.end()))
                        spans.append((start, m.end(), _kind_of_span(right, "in ", expected), None))
                if field_asked is not None and (
                    (label := _FIELD.match(sentence)) is not None
                    and field_asked(label["label"].lower().split()[-1])
                ):
                    # "Colours: maroon and gold." for the colours of X: the value of the field
                    # the step asks is a candidate, in whatever case it is written
                    # (in a list, the field is of the item its line names: "- **X.** …
                    # Colours: …"; a line of another item gives another's value)
                    line_start = text.rfind("\n", 0, s_start) + 1
                    line_end = text.find("\n", s_end)
                    line = text[line_start : line_end if line_end >= 0 else len(text)]
                    value = _FIELD_VALUE.match(sentence, label.end())
                    if (
                        value is not None
                        and value.end() > value.start()
                        and any(n and n in line for n in linked_names)
                    ):
                        spans.append((value.start(), value.end(), "NAME", None))
                if place_head in _ADDRESS_RANK:
                    # "in Varn, Westmark": each place of an address is a candidate of its own,
                    # and the address as a whole is none (it answers no one level).
                    items = _address_items(sentence)
                    spans = [
                        sp
                        for sp in spans
                        if not any(sp[0] <= s < e <= sp[1] for s, e in items)
                        or (sp[0], sp[1]) in items
                    ]
                    spans += [(s, e, "LOCATION", None) for s, e in items]
            low = sentence.lower()
            wanted = {t for t in (shared_rel or shared_name) if len(t) > 1}
            anchors = [a for a in (low.find(t) for t in wanted) if a >= 0]
            if cjk_query:
                # a verb said with another of its group (建于 for 建成, 买下 for 收购) is where
                # the sentence says it; not in a clause of time ("建成后", after it was built),
                # which dates something else
                anchors += [
                    a
                    for t in wanted
                    if t not in low
                    for w in _ZH_VERB_GROUP.get(t, ())
                    if (a := low.find(w)) >= 0 and not _ZH_AFTER_CLAUSE.match(low, a + len(w))
                ]
            elif any(low.find(t) < 0 for t in wanted):
                # A term matched through its stem: "born" for "birth", "wrote" for "write".
                anchors += [
                    m.start() for m in _EN_WORD.finditer(low) if _stem(m.group(0)) in wanted
                ]
            # A relation word ends where its word does: "drummer Ola Brenn" for "plays drums"
            # (the agent noun made from it introduces the name).
            rel_ends = [
                _word_end(low, end)
                for t in shared_rel
                if len(t) > 1
                for _, end in _occurrences(t, low)
            ]
            if head:
                # The asked-for noun standing on its own ("小说《北渡》", "guitarist Lee Marr"),
                # not the end of another name (松城大学中文系).
                rel_ends += [
                    end
                    for start, end in _occurrences(head, sentence)
                    if start == 0
                    or (
                        sentence[start - 1] in "的，,。、 《（(是为"
                        and (cjk_query or sentence[start : start + 1].islower())
                    )
                ]
            # "the province of Westmark": a place or organisation class noun, then "of"
            # and its name.
            class_ends = (
                [m.end() for m in _rx(rf"\b{re.escape(head)}\b").finditer(sentence)]
                if head and not cjk_query and head_noun_type(head) in ("LOCATION", "ORGANIZATION")
                else []
            )
            # "she became the pupil of Y" for "the teacher of X": the converse noun, then
            # "of" and the name, in a passage about the subject.
            converse_ends = (
                [
                    m.end()
                    for m in _rx(
                        rf"\b(?:{'|'.join(CONVERSE_ROLES[head])})s?\b", re.IGNORECASE
                    ).finditer(sentence)
                ]
                if converse_terms
                and (subject_here or subject_in_sentence or ev.doc_id in topic_docs)
                else []
            )
            teaching = zh_teacher or zh_pupil
            teacher_spans = _slot_spans(_ZH_TOOK_AS_TEACHER, sentence) if teaching else []
            pupil_spans = _slot_spans(_ZH_TOOK_AS_PUPIL, sentence) if teaching else []
            # "In 2015 the studio was bought by …" in the document about Marlwick Owl Studio
            # ("… is a studio"): the class noun the document calls its own subject by names
            # it (the subject is the title; the question's own names are no answer).
            aliases: dict[tuple[int, int], str] = {}
            if ev.doc_id in own_subjects:
                own_title, own_class = own_subjects[ev.doc_id]
                for m in _THE_NOUN.finditer(sentence):
                    if m.group(1).lower() in own_class:
                        aliases[m.span()] = own_title
                        spans.append((m.start(), m.end(), own_class[m.group(1).lower()], None))
            # One candidate per stretch of text: the first generator's (graph entities first).
            seen_spans: set[tuple[int, int]] = set()
            unique_spans = []
            # No place follows a person's name with nothing between: 宋立川入门晚了五年,
            # 邵青禾上岛之前 are a subject and its verb, whatever tag the dictionary gives the
            # verb (入门, 上岛: ns) or the extraction took from it. A place the dictionary
            # lacks stays (a rare name glued to another).
            people_end: set[int] = set()
            if cjk_query:
                place_spans = {(a, b) for a, b, k, _ in spans if k == "LOCATION"}
                people_end = {
                    b
                    for a, b, k, _ in spans
                    if k == "PERSON"
                    and (a, b) not in place_spans  # 蘅溪县: a place another reading took for a name
                    and sentence[b - 1 : b] not in CHINESE_ADMIN_UNITS
                }
            for a, b, kind, eid in spans:
                if kind == "LOCATION" and a in people_end and _zh_in_lexicon(sentence[a:b]):
                    continue
                if sentence[max(a, b - 2) : b] in ("'s", "’s") and b - a > 3:
                    b -= 2  # "singer Ilsa Varn's debut album": the owner's name, not "'s"
                if (
                    expected == "PERSON"
                    and (hon := _HONORIFIC.match(sentence, a))
                    and hon.end() < b
                ):
                    a = hon.end()  # "Hon. Ama Quell": the person is Ama Quell
                if not cjk_query:
                    a = _particle_start(sentence, a)  # "joined de Vries & Co"
                    if kind in ("PERSON", "NAME") and (
                        gen := _GENERATION_SUFFIX.match(sentence, b)
                    ):
                        b = gen.end()  # "Silas Creed junior": the son, another person
                if _CJK.match(sentence[a : a + 1]) and b - a >= 3 and sentence[a] in "于在从向自":
                    a += 1  # a preposition the segmenter glued to the name: 于雁岭山
                if _CJK.match(sentence[a : a + 1]) and a > 0 and sentence[a - 1] == "《":
                    kind = "TITLE" if sentence[b : b + 1] == "》" else kind
                if kind == "PERSON" and cjk_query and sentence[b - 1 : b] in CHINESE_ADMIN_UNITS:
                    kind = "LOCATION"  # 岭州, 石桥镇: an administrative unit closes a place name
                if (
                    kind == "NAME"
                    and expected == "LOCATION"
                    and cjk_query
                    and _zh_landform_name(sentence[a:b])
                ):
                    kind = "LOCATION"  # a place the step asks for: 雀嘴岭 for 哪座茶山
                if (
                    cjk_query
                    and kind in ("LOCATION", "NAME")
                    and b - a >= 2
                    and sentence[b - 1 : b] not in CHINESE_ADMIN_UNITS
                    and sentence[b : b + 1] in CHINESE_ADMIN_UNITS
                    and (kind == "LOCATION" or not _freq(sentence[b : b + 2]))
                ):
                    # 生于槎川县柳湾村 where the name was read as 柳湾: the unit written right
                    # after a place's name closes it (柳湾村), as one place of the address.
                    b, kind = b + 1, "LOCATION"
                if (
                    zh_firm
                    and kind in ("ORGANIZATION", "NAME", "LOCATION")  # 柏川: a firm's place
                    and b - a >= 2
                    and not sentence[a:b].endswith(zh_head)
                    and (j := sentence.find(zh_head, b, b + 2 + len(zh_head))) >= 0
                    and (j == b or _HAN_ONLY.fullmatch(sentence[b:j]) is not None)
                    and not _ZH_NAME_BREAK & set(sentence[b:j])
                ):
                    # 星汀出版集团 read as 星汀 for "哪家出版集团": the asked noun written right
                    # after the name, with at most one two-character word of its trade between
                    # (no function word: 夜莺音乐出版是另一家公司 is a clause), closes it
                    b = j + len(zh_head)
                if (
                    zh_head
                    and _names_head(sentence[a:b], zh_head)
                    and (
                        kind in ("PERSON", "LOCATION", "ORGANIZATION")
                        # a name of no known type whose words before the noun hold a proper
                        # name (澜汀雄狮足球俱乐部), not a common phrase (全资子公司, 首任主席)
                        or (kind == "NAME" and _zh_proper_stem(sentence[a : b - len(zh_head)]))
                        # a word the lexicon lacks is a name, not the common noun jieba
                        # tagged it (砾城 for "哪座城"; 县城 is in the lexicon)
                        or (kind == "NOUN" and not _zh_in_lexicon(sentence[a:b]))
                    )
                ):
                    # 望云桥 for "…修建的桥": a name ending in the asked noun is one of that class,
                    # whatever the segmenter guessed (a person's name).
                    kind = zh_noun_type(zh_head)
                if (a, b) not in seen_spans:
                    seen_spans.add((a, b))
                    unique_spans.append((a, b, kind, eid))
            if cjk_query:
                # Whole names only: 雁岭 goes when 雁岭山 is a candidate too.
                unique_spans = [
                    sp
                    for sp in unique_spans
                    if not any(
                        o[0] <= sp[0]
                        and sp[1] <= o[1]
                        and (o[1] - o[0]) > (sp[1] - sp[0])
                        and o[2] not in ("NOUN", "DATE", "NUMBER")
                        for o in unique_spans
                    )
                ]
            else:
                # "the Tamsey Valley Light Railway" where the graph knows "Tamsey Valley Light":
                # the text writes the longer name right there, so the graph's cut one goes
                # (a person's name may run into a title after it, and stays)
                unique_spans = [
                    sp
                    for sp in unique_spans
                    if sp[3] is None
                    or sp[2] == "PERSON"
                    or not any(
                        o[3] is None
                        and o[0] == sp[0]
                        and o[1] > sp[1]
                        and _NAME_RUN.fullmatch(sentence, sp[1], o[1]) is not None
                        for o in unique_spans
                    )
                ]
            if relative is not None:
                # The words the construction gives compete as a name of unknown type (jieba's
                # guess of 金帆唱片 as a person's name is dropped); they never hide the names
                # inside them (与律师韩柏共同创立 ends in an adverb and gives none).
                for a0, b0 in _zh_marked(sentence, relative):
                    if _ZH_COUNT_ONLY.fullmatch(sentence[a0:b0]):
                        continue  # "设董事一人": a count, no name
                    same = [i for i, sp in enumerate(unique_spans) if sp[:2] == (a0, b0)]
                    # An organisation named inside stays whole (签约松城大学中文系 keeps 松城大学);
                    # a person's name inside is jieba's guess and goes (金帆唱片).
                    inside = any(
                        a0 <= sp[0] and sp[1] <= b0 and sp[2] == "ORGANIZATION"
                        for sp in unique_spans
                    )
                    if not same and not inside:
                        unique_spans.append((a0, b0, "NAME", None))
                    elif same and unique_spans[same[0]][3] is None:
                        unique_spans[same[0]] = (a0, b0, "NAME", None)
            # Birth and death places: the other people of the sentence and the places a birth or
            # death verb takes, read once per sentence.
            life_others: list[tuple[int, int]] = []
            life_slots: set[int] = set()
            if cjk_query and life_event is not None:
                life_others = [
                    (x, y)
                    for x, y, k, e in unique_spans
                    if k == "PERSON"
                    and e not in linked_ids
                    and normalize_name(sentence[x:y]) not in linked_norms
                ]
                life_slots = _zh_life_slots(sentence, life_event, unique_spans, life_others)
            # Chinese administrative units (县, 镇, …) in the sentence, for addresses: a unit
            # written right before another holds it (澜平县澜口镇).
            admin_units = (
                [
                    (x, y, k)
                    for x, y, k, _ in unique_spans
                    if sentence[x:y][-1:] in CHINESE_ADMIN_UNITS
                ]
                if cjk_query
                else []
            )
            for x, y, _ in admin_units:
                for x2, y2, _ in admin_units:
                    if x2 == y:  # 澜平县 + 澜口镇: the first holds the second
                        holds.add((normalize_name(sentence[x:y]), normalize_name(sentence[x2:y2])))
            # An era year ("同治八年") is a date: no name starts inside it or runs over it.
            eras = [(s0, e0) for s0, e0, _ in sentence_dates if _CJK.match(sentence[s0])]
            if eras:
                unique_spans = [
                    sp
                    for sp in unique_spans
                    if sp[2] == "DATE" or not any(sp[0] < e0 and sp[1] > s0 for s0, e0 in eras)
                ]
            if cjk_query:
                # No candidate starts inside a name the question links, or a stretch it writes,
                # and runs on past it (奖金奖 of 金鼎厨艺奖金奖).
                written = [(x, x + len(n)) for n in zh_written for x in _offsets(sentence, n)]
                unique_spans = [
                    sp
                    for sp in unique_spans
                    if not any(x < sp[0] < y < sp[1] or sp[0] < x < sp[1] < y for x, y in written)
                ]
            for a, b, kind, eid in unique_spans:
                span = aliases.get((a, b)) or sentence[a:b].strip(" ,.;:'\"“”()（）")
                if (
                    (a, b) not in aliases
                    and not cjk_query
                    and (
                        not sentence[:a].strip(" '\"“(")
                        or _SPEAKER_TAG.fullmatch(sentence, 0, a) is not None
                    )
                ):
                    # A sentence's first word is capitalised by position only: "Unlike
                    # Calcutta", "Profits are low" — drop it when the evidence writes it in
                    # lower case elsewhere.
                    if " " not in span:
                        if span.lower() in lower_words:
                            continue
                    else:
                        first, _, rest = span.partition(" ")
                        if first.rstrip(",").lower() in lower_words and rest[:1].isupper():
                            span = rest
                        elif first.lower() in NON_NAME_WORDS and first.lower() not in _ARTICLES:
                            # "When the Light Railway was finished": a function word opens the
                            # sentence, the name follows it (and its article).
                            span = _LEADING_ARTICLE.sub("", rest)
                if (
                    (len(span) < 2 and not _digit_counts(sentence, b, kind, zh_measure, counted))
                    or header_row
                    or span in _CAP_STOP
                    or (span.split()[0] in ("The",) and len(span.split()) == 1)
                    # a number word a sentence opens with is capitalised, no name ("Eighteen.")
                    or (
                        not cjk_query
                        and kind != "NUMBER"
                        and _NUMBER_WORDS.fullmatch(span) is not None
                    )
                    # the speaker of a transcript's turn ("INTERVIEWER: …") says it, no answer
                    or (not cjk_query and _SPEAKER_TAG.fullmatch(sentence, 0, b + 1) is not None)
                    # "the Society's medal", "up the River": a class noun with the article
                    # stands for a longer name written elsewhere; it is no name itself
                    or (not cjk_query and _short_form(sentence, a, span))
                    or _ZH_ANAPHOR.fullmatch(span)
                ):
                    continue
                norm = normalize_name(span)
                if not norm:
                    continue
                if (
                    norm in q_norm or any(norm in ln or ln == norm for ln in linked_norms if ln)
                ) and not (norm in other_generation and not _GENERATION_AFTER.match(sentence, b)):
                    continue
                if eid is not None and eid in linked_ids:
                    continue
                if span.isupper() and span.isalpha() and span in asked_initials:
                    continue  # the initials of a name the question gives: that name again
                if _gloss_of(sentence, a, b, linked_names):
                    continue
                modifier = expected not in ("NAME", "TEXT") and _attributive(
                    sentence, a, b, span, kind
                )
                if modifier and (kind == "NAME" or place_head == "city"):
                    # "an American singer" for where she was born: an adjective, no town
                    # (which country she is from may be answered "American")
                    continue
                if kind == "NAME" and _indefinite_head(sentence, a, b, span):
                    continue
                if kind in ("NAME", "NOUN") and _ZH_INDEFINITE.search(sentence, max(0, a - 2), a):
                    continue  # "一家中药铺": a count and a classifier make a common noun of it
                if cjk_query and kind != "DATE" and _ZH_ERA_YEAR.match(sentence, b):
                    continue  # "咸丰元年", "民国二十年": a name before a year's count is an era
                if expected == "PERSON" and _office_title(span):
                    continue
                span_terms = _term_set(span)
                if (
                    span_terms
                    and span_terms <= own_terms
                    and not (
                        _names_head(span, head)
                        and (
                            kind == "TITLE"
                            # a name made of a linked one and the asked noun: "Ravensike Branch
                            # Preservation Society" for the preservation society that bought
                            # the Ravensike Branch
                            or any(ln and ln in norm and ln != norm for ln in linked_norms)
                        )
                    )
                    and norm not in other_generation
                ):
                    continue  # the question's own words, except a title that carries the asked
                    # noun: 《栎川评论·周末版》 for 栎川评论的周末版
                learned_from = (
                    en_teacher
                    and kind in ("NAME", "PERSON", "LOCATION")
                    and _EN_LEARNED_FROM.search(sentence, max(0, a - 80), a) is not None
                )
                if learned_from:
                    kind = "PERSON"  # "learned the trade from Y": Y is a person, not a place
                fit = _fit(expected, kind)
                if work_asked and kind in ("PERSON", "LOCATION") and not _names_head(span, head):
                    fit = min(fit, _WORK_MISFIT)  # "which book": no person, no place
                if (
                    expected == "NUMBER"
                    and kind == "DATE"
                    and (priced or not re.fullmatch(r"\d{3,4}", span))
                ):
                    fit = 0.02  # "1913年", "May 1913", "同治八年": a date, no count (and
                    # a price is no bare year either)
                if (
                    place_head in _ADDRESS_RANK
                    and not cjk_query
                    and (kind == "ORGANIZATION" or _carries_org_noun(span))
                ):
                    fit = min(fit, 0.08)  # "which city": a college in it is no city
                if (
                    kind == "NAME"
                    and not cjk_query
                    and _names_head(span, head)
                    and head.rstrip("s") in (span.split()[0].lower(), span.split()[-1].lower())
                ):
                    # "River Tallow" and "Tallow River" name a river ("Best Director Award"
                    # names an award): the class of the name is the asked noun's.
                    fit = max(fit, _fit(expected, head_noun_type(head)))
                if (
                    firm_agent
                    and kind in ("ORGANIZATION", "LOCATION", "NAME")
                    and (kind == "ORGANIZATION" or _carries_org_noun(span))
                ):
                    fit = max(fit, _FIRM_FIT)  # "Who bought the mill": a firm may have
                if work_head and kind in ("PERSON", "LOCATION", "ORGANIZATION"):
                    fit *= 0.4  # "which novel": a title, not its author
                if work_head and kind in ("DATE", "NUMBER"):
                    fit *= 0.15  # "…的杂志", "which album": a thing the noun names, no date
                if normalize_name(span) in defined_as_head:
                    # "The Tin Wicks are an indie rock band": the evidence defines the
                    # name as the noun asked for, whatever type extraction gave it.
                    fit = max(fit, _fit(expected, head_noun_type(head)))

                dist = min((abs(x - a) for x in anchors), default=120)
                if not cjk_query and wanted:
                    clause = _APPOSITIVE_RELATIVE.match(sentence, b)
                    if clause is not None and any(
                        _stem(w) in wanted or w in wanted
                        for w in _EN_WORD.findall(clause.group(0).lower())
                    ):
                        # "Ebbsworth, the coastal town where she was born": the relative
                        # clause of the appositive says it of the name before the comma.
                        dist = 0
                proximity = 1.0 / (1.0 + dist / 60.0)
                bonus = 1.0
                if eid is not None:
                    bonus *= 1.15
                    if eid in related:
                        bonus *= 1.6
                if subject_in_sentence:
                    bonus *= 1.6
                elif namesake_sentence:
                    bonus *= _NAMESAKE_FACTOR
                elif subject_here:
                    bonus *= 1.2
                shared_linked = span_terms & linked_terms
                if (
                    shared_linked
                    and not (
                        expected == "PERSON"
                        and kind in ("PERSON", "NAME")
                        and _surname_only(span, shared_linked, linked_names, linked_firms)
                    )
                    # "栎川评论·周末版" for X的周末版, "the Vale Prize" for the prize Orrin Vale
                    # set up: a name that carries the asked noun is another thing named after
                    # the subject, not a piece of it.
                    and not _names_head(span, head)
                    # … and so is the name a naming phrase gives, for a step that asks it
                    # (a station named "Sorrelby Lock" at Sorrelby)
                    and (a, b) not in renamed
                ):
                    bonus *= 0.3  # "Vexa Street" for a question about Vexa Labs (relatives
                    # share a surname, so a person sharing only the last name stays)
                if (
                    kind not in ("DATE", "NUMBER")
                    and (
                        any(
                            0 <= a - e <= 4
                            and _APPOSITION_GAP.match(sentence[e:a])
                            # "a farm practice in Larchmouth" for which practice: a place after
                            # "in" or "at" locates the noun, it is not its name
                            and not (
                                kind == "LOCATION"
                                and expected != "LOCATION"
                                and _LOCATIVE_GAP.search(sentence[e:a])
                            )
                            for e in rel_ends
                        )
                        or any(0 <= a - e <= 4 and sentence[e:a] == " of " for e in class_ends)
                        # "the daughter of Y"; of two ("son of A and B") the father is named
                        # first, unless a title says otherwise ("of Queen A and King B"), and
                        # which is a mother or a teacher the names must tell
                        or any(
                            0 <= a - e <= 4
                            and sentence[e:a] == " of "
                            and (
                                not _PAIR_AFTER.match(sentence, b)
                                or (kin_gender == "m" and _title_gender(span) != "f")
                            )
                            for e in converse_ends
                        )
                    )
                ):
                    bonus *= 2.0  # the role noun introduces this name
                if (a, b) in attached:
                    bonus *= 2.0  # part of the subject's own name: "the Museum of Tulsa"
                if (
                    not cjk_query
                    and kind in ("NAME", "ORGANIZATION")
                    and expected not in ("LOCATION", "DATE", "NUMBER")
                    and " " not in span
                    and _CUT_NAME_AFTER.match(sentence, b) is not None
                    and (run := _NAME_RUN.match(sentence, b)) is not None
                    and not any(
                        w == head or head_noun_type(w) == "ORGANIZATION"
                        for w in run.group(0).lower().split()
                    )
                ):
                    # "Pellory" of "Pellory Park" for a firm: a piece of another name (a name
                    # that runs on to the class asked is extended when it answers instead)
                    bonus *= 0.5
                if zh_head and kind in ("PERSON", "ORGANIZATION", "NAME"):
                    # The clause's subject holds the role: 苏映雪在片中饰演女主角.
                    bonus *= _zh_holds_role(sentence, a, b, zh_head, unique_spans)
                if cjk_query and any(
                    not _ZH_CLAUSE_BREAK.search(sentence[min(a, e) : max(b, e)]) for e in rel_ends
                ):
                    bonus *= 1.3  # in the clause of the asked verb: "1902年由士绅集资创建，"
                if (
                    relative is not None
                    and kind not in ("DATE", "NUMBER")
                    and (subject_here or subject_in_sentence)
                ):
                    if _zh_slot(sentence, a, b, relative, linked_names):
                        bonus *= _SLOT_BONUS  # 蓝海食品被奔腾光电收购 for 收购蓝海食品的公司
                        if kind == "NAME" and zh_head:
                            # The construction says what it is: the clause's head noun
                            # (公司), whatever type the segmenter gave the name.
                            fit = max(fit, _fit(expected, zh_noun_type(zh_head)))
                    elif _zh_slot(sentence, a, b, _other_role(relative), linked_names):
                        bonus /= _SLOT_BONUS  # the other role: 蓝海食品收购了Y for the buyer
                if en_relative is not None and kind not in ("DATE", "NUMBER"):
                    if _en_slot(sentence, a, b, en_relative, named):
                        bonus *= _SLOT_BONUS  # "X was acquired by Y" for "the company that
                        # acquired X"; the construction says what it is (the head noun)
                        if kind == "NAME" and head:
                            fit = max(fit, _fit(expected, head_noun_type(head)))
                    elif _en_slot(sentence, a, b, _other_role(en_relative, "patient"), named):
                        bonus /= _SLOT_BONUS
                if (
                    possessed_role is not None
                    and kind in ("NAME", "PERSON", "ORGANIZATION")
                    and possessed_role.match(sentence, b)
                ):
                    bonus *= _SLOT_BONUS  # "Vell remained her mentor" for "mentor of X"
                if kind in ("NAME", "PERSON") and (teacher_spans or pupil_spans):
                    # "拜药商邵鹤年为师", "师从Y" name X的师父; "收Y为徒", "Y（X弟子）" name
                    # X的徒弟; each slot is the other's converse.
                    taught = any(x <= a and b <= y for x, y in teacher_spans)
                    pupil = any(x <= a and b <= y for x, y in pupil_spans)
                    if taught != pupil:
                        bonus = bonus * _SLOT_BONUS if taught == zh_teacher else bonus / _SLOT_BONUS
                if learned_from:
                    bonus *= _SLOT_BONUS  # "he learned the ropes from Y" for X's teacher
                if (
                    role_before is not None
                    and kind in ("NAME", "PERSON", "ORGANIZATION")
                    and role_before.search(sentence, 0, a)
                ):
                    bonus *= _SLOT_BONUS  # "Its first president was the dyer Ada Moe"
                if ordinal_role is not None and kind not in ("DATE", "NUMBER"):
                    bonus *= ordinal_factor  # "the first principal": not one said later
                if _names_head(span, head):
                    bonus *= 1.5  # the name carries the noun asked for: "River Osk"
                if kind in ("LOCATION", "NAME") and head and not cjk_query:
                    bonus *= _address_factor(sentence, a, b, place_head)
                if (
                    kin_gender is not None
                    and (title := _title_gender(span) or _appositive_gender(sentence, b))
                    is not None
                    and title != kin_gender
                ):
                    bonus *= 0.3  # "the mother of X": not "King Orm", whoever is named near
                    # ("the father of X": not "Ada Moe, an actress")
                if (
                    expected == "LOCATION"
                    and kind in ("LOCATION", "NAME")
                    and not cjk_query
                    and _LANDMARK_BEFORE.search(sentence[max(0, a - 40) : a])
                ):
                    bonus *= 0.5  # "a village in eastern Varn, north of the border with Osk"
                if (measure or sale_price) and kind == "DATE":
                    bonus *= 0.1  # "How tall is X", "How much did X fetch": never a date
                elif measure and kind == "NUMBER":
                    # … and a measure is written with its unit ("38 metres"), a price with
                    # its currency ("£25", which is no length or weight)
                    money = _is_money(sentence, a)
                    if not re.search(r"[^\W\d_]", span) and not (priced and money):
                        bonus *= 0.5
                    if money and not priced:
                        bonus *= 0.5
                elif (
                    sale_price
                    and kind == "NUMBER"
                    and not _is_money(sentence, a)
                    and not _CURRENCY_AFTER.match(sentence, b)
                ):
                    bonus *= 0.5  # "ran 23 ships": a count, not the price asked
                if kind == "NUMBER" and not measure and _foreign_unit(sentence, b, terms):
                    bonus *= 0.4  # "82,278 sq mi", "102 °": a measure, not the count asked for
                if (
                    kind == "NUMBER"
                    and zh_measure
                    and _zh_other_measure(span, sentence[b : b + 1], zh_measure)
                ):
                    bonus *= 0.4  # "162丈" for 多少担: the measure of something else
                if kind == "NUMBER" and zh_money and _zh_not_money(sentence, b):
                    bonus *= 0.4  # "规划面积32平方公里" for 产值多少: no sum of money
                if kind == "NUMBER" and count and _DECIMAL.search(span):
                    bonus *= 0.4  # a count is a whole number: "35.1" is a density, a ratio
                # The name nearest before a value (or a Chinese organisation), when it is
                # another than the subject: what the value may be said of.
                owner = (
                    _owner_before(unique_spans, a)
                    if kind in ("DATE", "NUMBER") or (cjk_query and kind == "ORGANIZATION")
                    else None
                )
                if owner is not None and (
                    owner[3] in linked_ids
                    or any(
                        normalize_name(sentence[owner[0] : owner[1]]) in ln for ln in linked_norms
                    )
                ):
                    owner = None
                # A value, or (in Chinese) an organisation, in a sentence about someone else:
                # "但闻人朗后来一直在岑川镇中学教物理" is the brother's school.
                if (
                    owner is not None
                    and subject_kinds
                    and (kind != "ORGANIZATION" or subject_kinds == {"PERSON"})
                    and owner[2] in subject_kinds
                    and not _AGENT_BEFORE.search(sentence[max(0, owner[0] - 4) : owner[0]])
                ):
                    bonus *= 0.5  # said of another person or organisation named just before
                if kind in ("DATE", "NUMBER") and _said_of_the_latter(sentence, a, linked_names):
                    bonus *= 0.5
                if (
                    owner is not None
                    and kind in ("DATE", "NUMBER")
                    and not cjk_query
                    and _reduced_relative(sentence[owner[1] : a])
                ):
                    # "…rivals are Kelmoor Rovers, founded in 1923": a participle clause right
                    # after a name tells of that name, whatever kind of name it is.
                    bonus *= 0.4
                if zh_units and kind in ("LOCATION", "NAME") and span[-1:] in CHINESE_ADMIN_UNITS:
                    # 哪座城市 asks for a 市, not the 区 inside it (岑川市老城区).
                    bonus *= 1.5 if span[-1] in zh_units else 0.6
                elif (
                    cjk_query
                    and expected == "LOCATION"
                    and kind == "LOCATION"
                    and span[-1:] in CHINESE_ADMIN_UNITS
                    and any(x == b for x, _, _ in admin_units)
                ):
                    # 澜平县澜口镇人: a unit written right before another holds it; an
                    # address names the place asked by its last, smallest unit.
                    bonus *= 0.7
                if (
                    event_terms
                    and kind == "NUMBER"
                    and any(
                        _stem(w.group(0).lower()) in event_terms
                        for w in _EN_WORD.finditer(sentence, 0, a)
                    )
                ):
                    bonus *= _SLOT_BONUS  # the value after the event the question dates by
                if counted and kind == "NUMBER":
                    after = _WORD_AFTER_NUMBER.match(sentence, b)
                    if after is not None:
                        noun = after.group(1).lower()
                        if _stem(noun) == counted:
                            bonus *= 1.5  # "240 pages" for how many pages
                        elif noun.endswith("s") and not noun.endswith("ss"):
                            bonus *= 0.5  # "1,200 copies" for how many pages
                if kind == "NUMBER" and not (asked_at or year_at or dated_query):
                    # "奖金原为1万元，……提高到5万元", "originally 40 beds, increased to 120": a
                    # value said to be the former one answers only a question about the first;
                    # the one it was raised or changed to, any other.
                    before = sentence[max(0, a - 16) : a]
                    if _FORMER_VALUE.search(before):
                        bonus *= 1.5 if asks_original else 0.4
                    elif _CHANGED_TO.search(before):
                        bonus *= 0.4 if asks_original else 1.5
                if asked_at and kind == "NUMBER":
                    bonus *= _qualifier_factor(sentence, a, b, asked_at)
                elif year_at and kind in ("PERSON", "NAME", "ORGANIZATION", "TITLE"):
                    # "2013年丰稔育种奖授予了谁", "Who won the X Medal in 2016": the year the
                    # question asks at dates the fact asked; a name said in a clause of another
                    # year ("2006年的首届奖项授予孔令渊") is another holder.
                    bonus *= _qualifier_factor(sentence, a, b, year_at)
                    if not cjk_query and "|" in sentence:
                        # a table row is one statement: "| 2016 | Eluned Hartmoss |"
                        bonus *= _row_year_factor(sentence, a, year_at["year"], tenure)
                if founding_date and kind == "DATE":
                    # "1974 – Adopted the name Varn Ltd": a year a naming dates is not
                    # the founding's
                    lo = max(sentence.rfind(";", 0, a), sentence.rfind("；", 0, a), 0)
                    hi = min(x for x in (sentence.find(";", b), len(sentence)) if x >= 0)
                    near = sentence[max(lo, a - 50) : min(hi, b + 60)]
                    if _NAMING_EVENT.search(near) and not _FOUNDING_WORD.search(near):
                        bonus *= 0.4
                if clock and kind == "DATE":
                    bonus *= 2.0 if _CLOCK.fullmatch(span) else 0.5
                if kind == "DATE" and life_event is not None:
                    dated = _life_date_bonus(sentence, a, life_event)
                    dated *= _zh_life_bonus(sentence, a, b, life_event)
                    bonus *= 0.4 if others_life and dated > 1.0 else dated
                life = 1.0
                if kind == "LOCATION" and life_event is not None and cjk_query:
                    # 生于澜平县澜口镇: the verb's object is the whole address, the town too.
                    held = next((x for x, y, k in admin_units if y == a and k == "LOCATION"), a)
                    life = _zh_life_place_bonus(
                        sentence, held, b, life_event, life_others, life_slots
                    )
                elif kind in ("LOCATION", "NAME") and life_event is not None:
                    life = _en_life_place_bonus(sentence, a, life_event, b)
                bonus *= 0.4 if others_life and life > 1.0 else life
                if kind in ("LOCATION", "NAME", "DATE"):
                    bonus *= others_event
                if others_he and not others_life and kind in ("DATE", "NUMBER", "LOCATION"):
                    bonus *= _OTHERS_EVENT  # (the other person may be the one asked for)
                if (
                    expected == "PERSON"
                    and kind in ("NAME", "PERSON")
                    and _AGENTIVE.search(sentence[max(0, a - 6) : a])
                ):
                    bonus *= 1.2
                if kind == "DATE" and life_event is None and _in_life_span(sentence, a):
                    # "Ezra Vell (1797-1868)" for when he married or what he founded: a life
                    # span's years are a birth and a death
                    bonus *= _OTHER_EVENT
                if kind == "DATE" and step_event:
                    bonus *= _event_date_factor(
                        sentence, a, relation_terms, scan=life_event is not None, b=b
                    )
                elif kind == "DATE" and zh_event:
                    bonus *= _zh_event_date_factor(sentence, b, zh_event)
                elif kind == "DATE" and life_event is not None and not cjk_query:
                    # "the death of X": a date another verb of the sentence dates is not it
                    bonus *= _event_date_factor(sentence, a, _LIFE_VERBS[life_event], scan=True)
                if (
                    kind in ("PERSON", "NAME", "ORGANIZATION")
                    and not cjk_query
                    and _agent_of_another(sentence, a, linked_names, relation_terms)
                ):
                    # "X is often confused with Y, a smaller company founded in 1995 by Z": the
                    # participle's phrase is in apposition to Y, and Z is Y's founder
                    bonus *= 0.3
                if not cjk_query and _in_subject_appositive(
                    sentence, a, b, linked_names, relation_terms
                ):
                    bonus *= 0.3
                if role_asked is not None and kind in ("PERSON", "NAME"):
                    bonus *= _title_factor(sentence, a, role_asked)
                    if " as " in sentence:
                        bonus *= _as_role_factor(sentence, b, role_asked)
                if field_asked is not None and ":" in sentence:
                    bonus *= _field_factor(sentence, a, field_asked)
                if whose_noun and kind in ("PERSON", "NAME"):
                    bonus *= _whose_factor(sentence, a, b, whose_noun)
                if (a, b) in posts:
                    bonus *= 3.0  # the title a person's name is written with, for their post
                if (a, b) in renamed:
                    bonus *= 2.0  # the name a renaming verb gives, for a step that asks it
                if holder_now and kind in ("PERSON", "NAME"):
                    bonus *= _holder_now_factor(sentence, a, b)
                if (
                    tenure is not None
                    and kind in ("PERSON", "NAME")
                    and _SUCCESSOR_BEFORE.search(sentence, max(0, a - 40), a)
                    and _SUCCESSOR_AFTER.match(sentence, b)
                ):
                    # "… until 1991, when his daughter Y took over": Y came then, so Y is no
                    # answer for who held it until 1991, and the answer for who since 1991
                    bonus *= 1.5 if tenure == "start" else 0.3
                if (
                    kind in ("PERSON", "NAME")
                    and not cjk_query
                    and (kin_clause := _WHOSE_KIN_VERB.match(sentence, b)) is not None
                    and _relates(kin_clause.group(1).lower(), relation_terms)
                ):
                    # "Bryony Hebblewick, whose father had kept the lock": the clause's verb is
                    # the father's, and so is what it asks
                    bonus *= 0.3
                if (
                    kin_gender is not None
                    and head not in _SPOUSE_NOUNS
                    and kind in ("PERSON", "NAME")
                    and _MARRIED_BEFORE.search(sentence, max(0, a - 40), a)
                ):
                    bonus *= 0.3  # "she married Y" for "X's grandmother": Y is a spouse
                if merging and _MERGER_RESULT.search(sentence, max(0, a - 40), a):
                    bonus *= 0.3  # "… merged with Y to form Z": Z is what came of it, no party
                if _NEGATED_BEFORE.search(sentence[max(0, a - 50) : a]):
                    bonus *= 0.3  # "was not related to Y", "并非Y": the clause denies it of Y
                if kind in ("LOCATION", "NAME") and not cjk_query and _noun_adjunct(sentence, a, b):
                    bonus *= 0.3  # "two Varn shipowners": the name classes the shipowners
                if (
                    zh_firm
                    and kind in ("ORGANIZATION", "NAME")
                    and a >= len(zh_head)
                    and sentence[a - len(zh_head) : a] == zh_head
                ):
                    bonus *= 0.2  # 星汀出版集团版权部: a part of the firm named right before it
                if "|" in text:
                    bonus *= _table_factor(text, s_start + a, query, terms, expected)
                if by_table and "|" not in sentence:
                    bonus *= 0.3  # the table's order says it; a sentence at most hints
                score = (
                    (1.0 / (1.0 + 0.35 * rank)) * (overlap + 0.3) * fit * (0.6 + proximity) * bonus
                )
                key = norm
                cand = pool.get(key)
                if cand is None:
                    cand = pool[key] = _Candidate(text=span, kind=kind, entity_id=eid)
                cand.scores.append(score)
                cand.modifier = cand.modifier or modifier
                if subject_here:
                    cand.about.append(score)
                if score >= max(cand.scores):
                    cand.evidence_index = order[rank]  # an index into evidence
                    cand.sentence = (s_start, s_end)
                    if len(span) > len(cand.text) and normalize_name(span) == key:
                        cand.text = span
                if eid is not None and cand.entity_id is None:
                    cand.entity_id = eid
    for cand in pool.values():
        # Votes come from passages about the subject: a place every neighbouring village's
        # passage names ("…, United States") is no answer for this one.
        ordered = sorted(cand.scores, reverse=True)
        seconds = sorted(cand.about, reverse=True)
        if seconds and seconds[0] == ordered[0]:
            seconds = seconds[1:]
        cand.score = ordered[0] + 0.35 * sum(seconds[:3])
        cand.votes = len(ordered)
    if not pool:
        return None, best_overlap
    if head and not cjk_query and expected in ("PERSON", "LOCATION", "ORGANIZATION"):
        # The corpus says what a name is: a candidate typed otherwise whose descriptions
        # define it as the asked noun ("The Pellworth Philharmonic is the principal symphony
        # orchestra"), or whose own document calls its subject by that noun ("the orchestra has performed
        # at …" in the document titled with the name), fits as that noun does, whatever type
        # extraction gave it.
        head_fit = _fit(expected, head_noun_type(head))
        leaders = [
            c
            for c in sorted(pool.values(), key=lambda c: -c.score)[:_DEFINED_CHECK]
            if c.kind in _TYPED_KINDS and head_fit > _fit(expected, c.kind)
        ]
        if leaders:
            usage = view.usage([c.text for c in leaders], [c.entity_id for c in leaders])
            definite = _rx(rf"\b[Tt]he\s+{re.escape(head)}\b")
            for c in leaders:
                norm = normalize_name(c.text)
                own_texts = [
                    e.text for e in ranked if names_topic(titles.get(e.doc_id, ""), {norm})
                ]
                if norm in _defined_as(head, [*usage.get(c.text, []), *own_texts]) or any(
                    definite.search(t) for t in own_texts
                ):
                    c.score *= head_fit / _fit(expected, c.kind)
    nouns = [c.text.lower() for c in pool.values() if not c.modifier]
    for cand in pool.values():
        stem = cand.text[:4].lower()
        if cand.modifier and any(
            n != cand.text.lower() and any(w[:4] == stem for w in n.split()) for n in nouns
        ):
            # "a Chinese journalist … the Republic of China": the evidence names the noun the
            # adjective is made from, and that noun is the answer.
            cand.score *= 0.5
    if place_head in _ADDRESS_RANK and not cjk_query:
        places = [c for c in pool.values() if c.kind in ("LOCATION", "NAME")]
        texts = view.usage([c.text for c in places], [c.entity_id for c in places])
        read = [ev.text for ev in ranked]
        for c in places:
            classes, positions = _place_evidence(c.text, read + texts.get(c.text, []))
            c.score *= _size_factor(_size_from(classes, positions), place_head)
            if head in _ADDRESS_RANK and c.text.split()[-1].lower() in _STREET_NOUNS:
                # "Bridge Street" names a street: no town, county or country. The town the
                # evidence puts it in ("on Bridge Street in Varn", "Bridge Street, Varn") is
                # where the asked thing is, as much as the street was.
                where = evidence[c.evidence_index].text[c.sentence[0] : c.sentence[1]]
                at = where.find(c.text)
                town = _STREET_TOWN.match(where, at + len(c.text)) if at >= 0 else None
                if town is not None:
                    in_town = pool.get(normalize_name(town.group(1)))
                    if in_town is not None and in_town.kind in ("LOCATION", "NAME"):
                        in_town.score = max(in_town.score, c.score)
                c.score *= 0.2
            if classes and c.kind == "NAME":
                # The corpus calls it a state, a city …: a place, so it fits a place question
                # as one ("Maharashtra state").
                c.score *= _fit(expected, "LOCATION") / _fit(expected, "NAME")
                c.kind = "LOCATION"
    if expected == "PERSON" and not cjk_query:
        # "Ilse Quistal" beside the person Tobin Quistal: a first name and a family name
        # that names a person in the evidence is a person's name.
        families = {
            c.text.split()[-1] for c in pool.values() if c.kind == "PERSON" and " " in c.text
        }
        for c in pool.values():
            words = c.text.split()
            if (
                c.kind == "NAME"
                and 2 <= len(words) <= 3
                and words[-1] in families
                and all(w[:1].isupper() and w not in _CAP_STOP for w in words)
            ):
                c.score *= _fit(expected, "PERSON") / _fit(expected, "NAME")
                c.kind = "PERSON"
    best = max(pool.values(), key=lambda c: (c.score, len(c.text), c.text))
    if not cjk_query:
        best = _said_short(best, pool.values())
    if expected == "LOCATION" and cjk_query and not zh_units:
        # "哪里人" names no unit: an address names the place by its last, smallest unit, so a
        # unit that holds another candidate in the evidence's address (澜平县 in 澜平县澜口镇)
        # gives way to it when the evidence supports it half as well.
        key = normalize_name(best.text)
        inner = [
            c
            for k, c in pool.items()
            if (key, k) in holds
            and c.kind == "LOCATION"
            and (
                c.score >= 0.5 * best.score
                # … or, for where someone was born or died, read best in the very address that
                # reads the larger unit best (生于筼溪县漆坞村): the graph knows the county
                # better, but a birthplace is the village the address ends on
                or (
                    life_event is not None
                    and (c.evidence_index, c.sentence) == (best.evidence_index, best.sentence)
                )
            )
        ]
        if inner:
            best = max(inner, key=lambda c: (c.score, len(c.text), c.text))
    if zh_head and best.text.startswith(zh_head) and len(best.text) > len(zh_head):
        # "由茶商祁朔亭出资修建" for "…的茶商": the asked noun before a name is its apposition;
        # the name itself answers when it is a candidate of its own.
        rest = best.text[len(zh_head) :]
        apposed = pool.get(normalize_name(rest))
        if apposed is not None and apposed.kind in ("PERSON", "NAME"):
            best = apposed
        elif best.kind == "PERSON" and _HAN_NAME.fullmatch(rest):
            best = replace(best, text=rest, entity_id=None)
    if zh_head and best.kind in ("LOCATION", "NAME", "ORGANIZATION") and len(zh_head) >= 2:
        # "考入棠川烹饪学校" read as 棠川 for 哪所学校: a name the sentence runs on from to the
        # asked noun (over a few characters, no function word) is the whole name of that class.
        where = evidence[best.evidence_index].text[best.sentence[0] : best.sentence[1]]
        run = _rx(rf"{re.escape(best.text)}([{HAN}]{{1,4}}?){re.escape(zh_head)}").search(where)
        if run is not None and not any(c in _ZH_NAME_BREAK for c in run.group(1)):
            best = replace(best, text=run.group(0), kind=zh_noun_type(zh_head), entity_id=None)
    if cjk_query and best.kind in ("ORGANIZATION", "NAME"):
        best = _zh_whole_firm(best, evidence[best.evidence_index].text[slice(*best.sentence)])
    if cjk_query and best.kind in ("PERSON", "NAME"):
        best = _zh_full_name_of_title(
            best, [evidence[best.evidence_index].text, *(e.text for e in ranked)], zh_teacher
        )
    if _log.isEnabledFor(logging.DEBUG):
        ranked_pool = sorted(pool.values(), key=lambda c: -c.score)[:6]
        _log.debug("read %r: %s", query, [(c.text, c.kind, round(c.score, 2)) for c in ranked_pool])
    if best.kind == "DATE" and not YEAR_QUESTION.search(query):
        best = _precise_date(best, pool.values())
    if _ACRONYM.fullmatch(best.text):
        # "VOC" where the evidence writes "Veldane Ocean Carriers (VOC)": an abbreviation is
        # answered with the name whose initials it is, as the evidence writes it
        spelled = [
            m.group(0)
            for ev in ranked
            for m in _CAP_NAME.finditer(ev.text)
            if _initials(m.group(0)) == best.text
        ]
        if spelled:
            best.text = max(spelled, key=spelled.count)
            best.kind = "NAME"
    home = evidence[best.evidence_index]
    if best.kind == "NUMBER" and cjk_query:
        best.text = _zh_with_unit(best.text, home.text[best.sentence[0] : best.sentence[1]])
    elif best.kind == "DATE" and cjk_query:
        best.text = _zh_era_date(best.text, home.text[best.sentence[0] : best.sentence[1]])
    # a body's name runs on over its complement ("the Brindle School of Engraving"), a place
    # does not ("the University of Tulsa" is no name of Tulsa)
    over_of = best.kind in ("NAME", "ORGANIZATION") and expected not in ("LOCATION", "PERSON")
    full = _full_name(best.text, home.text, over_of)
    if full == best.text and best.kind not in ("PERSON", "DATE", "NUMBER"):
        # "played for Athletic": the document's other pieces may write the whole name
        # ("Kelmoor Bay Athletic is a football club"); people are left alone, since two
        # people of one document may share a surname.
        same_doc = " ".join(e.text for e in ranked if e.doc_id == home.doc_id and e is not home)
        full = _full_name(best.text, same_doc, over_of) if same_doc else full
    if full != best.text and normalize_name(full) not in q_norm:
        best.text = full
    elif best.kind in ("NAME", "ORGANIZATION") and expected not in ("LOCATION", "DATE", "NUMBER"):
        longer = _name_run(best.text, home.text)
        added = [w.lower() for w in longer[len(best.text) :].split()]
        last = best.text.split()[-1].lower()
        whole = pool.get(normalize_name(longer))
        if (
            whole is not None
            and (
                any(w == head or head_noun_type(w) == "ORGANIZATION" for w in added)
                # "Quillmoss" where the graph knows "Quillmoss Animal Health": a whole mention
                or whole.entity_id is not None
                or (
                    added[:1] in (["of"], ["for"])
                    # "the Guild of Ocean Masters" for "which organisation": the body the question
                    # asks for runs on over its complement, whatever its class noun
                    and (head_noun_type(last) == "ORGANIZATION" or expected == "ORGANIZATION")
                )
            )
        ):
            # "Vennowmouth" where the evidence writes "the Vennowmouth Brewery", itself a
            # candidate: the name runs on to its class noun (the one asked, or a body's), or
            # past a body's class noun over its complement ("Selwick Institute for Materials
            # Research").
            best.text = longer
    return best, best_overlap


def _precise_date(best: _Candidate, pool: Collection[_Candidate]) -> _Candidate:
    """A bare year's fuller date: "when" asks for the time as precisely as the evidence gives
    it, so "1817" (read in "In 1817 delegates wrote a constitution") gives way to the best
    candidate that writes a month or day of that same year ("On Dec. 10, 1817, … became the
    State"). A step asking for the year keeps it (the caller checks); a whole question asking
    for the year is answered with the year alone (:func:`year_only`)."""
    key = date_key(best.text)
    if key is None or BARE_YEAR.fullmatch(best.text.strip()) is None:
        return best
    fuller = [
        c
        for c in pool
        if c.kind == "DATE" and (k := date_key(c.text)) is not None and k[0] == key[0] and k[1]
    ]
    return max(fuller, key=lambda c: (c.score, len(c.text), c.text), default=best)


# The capitalised words that may continue a name: no comma, no "and" (two names).
_NAME_RUN = re.compile(r"(?:\s(?:(?:of|for)\s(?:the\s)?)?[A-Z][\w\-'’]*(?![\w\-'’]|\$))+")


def _name_run(short: str, text: str) -> str:
    """The longest capitalised name in ``text`` that starts with ``short`` ("Vennowmouth" →
    "Vennowmouth Brewery" in "…from the Vennowmouth Brewery, on draught")."""
    if _CJK.search(short) or not short[:1].isupper():
        return short
    best = short
    for m in _rx(rf"(?<![\w\-]){re.escape(short)}(?![\w\-])").finditer(text):
        run = _NAME_RUN.match(text, m.end())
        if run is not None and len(short) + len(run.group(0)) > len(best):
            best = short + run.group(0)
    return best


def _full_name(short: str, text: str, over_of: bool = False) -> str:
    """A one-word name's full form in the same text: "Hall" → "G. Stanley Hall" when the text
    names him so (the longest capitalised run ending in the word, possessive dropped); with
    ``over_of``, a body's name whose complement the word is too: "Engraving" → "Brindle School
    of Engraving" (not for a place, which "the University of Tulsa" only locates)."""
    if " " in short or _CJK.search(short) or not short[:1].isupper():
        return short
    # Only an initial carries a full stop ("G. Stanley Hall"): "…of Kelmoor Bay. Aldmore is"
    # ends a sentence before the name.
    # (no line break inside: "Centre-forward\nCurrent" is two cells of a table)
    joint = r"[^\S\n]+(?:(?:of|for)\s+(?:the\s+)?)?" if over_of else r"[^\S\n]+"
    run = rf"(?:(?:[A-Z]\.|[A-Z][\w\-’']*){joint}){{1,3}}"
    found = [m.group(0) for m in _rx(rf"\b{run}{re.escape(short)}\b(?!\s+[A-Z])").finditer(text)]
    found = [f for f in found if f.split()[0] not in _CAP_STOP]
    return max(found, key=len) if found else short


def _said_of_namesake(sentence: str, others: Sequence[str], terms: Collection[str]) -> bool:
    """Does the claim's relation word sit nearer a near-namesake of one of its names than the
    name itself — "the founder of Tessick Low Mill, … the overlooker of Tessick Mill"
    for "Did X found Tessick Mill"? A name with the same first and last word and more
    between them is another thing, and what is said beside it is said of that thing."""
    if _CJK.search(sentence):
        return False
    low = sentence.lower()
    at = [m.start() for m in _EN_WORD.finditer(low) if _stem(m.group(0)) in terms]
    if not at:
        return False
    for other in others:
        words = other.split()
        if len(words) < 2:
            continue
        mine = [m.start() for m in re.finditer(rf"(?<![\w-]){re.escape(other)}(?![\w-])", sentence)]
        namesakes = [
            m.start()
            for m in _CAP_NAME.finditer(sentence)
            if m.group(0) != other
            and m.group(0).split()[0] == words[0]
            and m.group(0).split()[-1] == words[-1]
            and len(m.group(0).split()) > len(words)
        ]
        if not namesakes or not mine:
            continue
        near_mine = min(abs(a - b) for a in at for b in mine)
        near_other = min(abs(a - b) for a in at for b in namesakes)
        if near_other < near_mine:
            return True
    return False


_NAMESAKE_FACTOR = 0.3
_LIFE_BRACKET = re.compile(r"\s*\(\s*(?:born\b|b\.|c\.|née\b|\d)")


def _names_namesake(sentence: str, names: Sequence[str], norms: Collection[str]) -> bool:
    """Does ``sentence`` open on a near-namesake of one of ``names``: a capitalised name with
    the same first and last word and a word more or fewer between them ("Varn Bell Foundry"
    beside "Varn Vale Bell Foundry", "Tessick Low Mill" beside "Tessick Mill"), which is none
    of ``names`` (``norms``: their normalized forms)? Only as the subject it opens with: "The
    company was sold to the Varn Salt Company" still speaks of its subject."""
    targets = [n.split() for n in names if n and len(n.split()) >= 2 and not _CJK.search(n)]
    if not targets:
        return False
    opening = sentence.lstrip(" \n\t*_#>\"“'")
    m = _CAP_NAME.match(opening, 0, 120)
    if m is None:
        return False
    found = re.sub(r"^The\s+", "", m.group(0)).split()
    if len(found) < 2 or normalize_name(" ".join(found)) in norms:
        return False
    return any(
        found[0].lower() == words[0].lower()
        and found[-1].lower() == words[-1].lower()
        and abs(len(found) - len(words)) == 1
        # "Orm Tobias Vell (3 May 1934 – …)": a person's full name, with the years of the
        # life after it, is the same person as Orm Vell
        and not (len(found) > len(words) and _LIFE_BRACKET.match(opening, m.end()))
        for words in targets
    )


# A capitalised word right before a name, itself no opening word: the name is the end of a
# longer one ("Upper Quillhaven").
_CAP_WORD_BEFORE = re.compile(r"([A-Z][\w\-'’]*) $")


def _names_alone(name: str, text: str) -> bool:
    """Does ``text`` write ``name`` once as a name of its own, neither the start nor the end of
    a longer capitalised name ("Quillhaven" is not named by "Upper Quillhaven" nor by
    "Quillhaven Tide Observatory")?"""
    for s0, e0 in _bounded(name, text):
        if _CUT_NAME_AFTER.match(text, e0) is not None:
            continue
        before = _CAP_WORD_BEFORE.search(text, max(0, s0 - 30), s0)
        if before is not None and before.group(1) not in _CAP_STOP:
            line_start = text.rfind("\n", 0, s0) + 1
            sentence_start = max(text.rfind(". ", 0, s0) + 2, line_start)
            if before.start() > sentence_start:
                continue
        return True
    return False


def _names_whole(name: str, text: str) -> bool:
    """Does ``text`` write ``name`` as a name of its own, not the start of a longer one
    ("Dunkerrow" is not named by "Dunkerrow Cross")? Chinese names are matched as written."""
    if _CJK.search(name):
        return name in text
    return any(_CUT_NAME_AFTER.match(text, e) is None for _, e in _bounded(name, text))


def _names_in_part(name: str, sentence: str) -> bool:
    """Does ``sentence`` write a capitalised word of the (non-Chinese) ``name`` without the
    rest of it ("Holm barrels" for Holm Cooperage)?"""
    if _CJK.search(name) or _names_whole(name, sentence):
        return False
    return any(
        len(w) > 2
        and w[0].isupper()
        and _term_set(w)  # not "The"
        and _rx(rf"\b{re.escape(w)}\b").search(sentence)
        for w in name.split()
    )


# The words of teaching and learning (the teacher and learner nouns of CONVERSE_ROLES and their
# verbs), as stems: a claim of one is stated by a sentence with any other.
_TEACHING = frozenset(
    _stem(w)
    for w in (
        *_EN_TEACHER_NOUNS,
        *(c for t in _EN_TEACHER_NOUNS for c in CONVERSE_ROLES[t]),
        *("teach", "taught", "learn", "learned", "learnt", "study", "studied", "apprenticed"),
    )
    # a master is also an owner or a ship's captain; an assistant is no learner
    if w not in ("master", "assistant")
)
_TEACHING_MARK = "<teaching>"


def _claim_share(sentence: str, terms: set[str]) -> float:
    """The share of a claim's ``terms`` that ``sentence`` holds (:data:`_TEACHING_MARK` stands
    for any word of teaching)."""
    held = _term_set(sentence)
    shared = len(held & terms) + (_TEACHING_MARK in terms and bool(held & _TEACHING))
    return shared / len(terms)


# The Chinese copula and particles (a closed class): a claim's form, not what it says ("X是Y的
# 徒弟" says 徒弟 of X and Y, as "Was X a pupil of Y" says pupil).
_ZH_FUNCTION_WORDS = frozenset(["的", "是", "了", "过", "着", "吗", "呢", "吧"])
_AUX_OPENING = re.compile(rf"^(?i:{'|'.join(sorted(AUXILIARIES))})\s+(?=[A-Z])")


def verify_claim(
    claim: str,
    evidence: Sequence[Evidence],
    linked: Sequence[Any],
    graph: GraphView | None = None,
    year: str = "",
) -> tuple[bool, str]:
    """Yes when one sentence about the claim's subject holds the claim's other names (or,
    without other names, two thirds of its content terms), and ``year`` when one is given.
    A piece about the subject names it, or belongs to a document titled with its name ("He
    was born in Varn" in the subject's own article)."""
    # The claim's auxiliary is no part of a name the linker read from its first words ("Was
    # Ada Moe" for Ada Moe).
    linked_names = [_AUX_OPENING.sub("", _get(le, "span") or _get(le, "name")) for le in linked]
    subject = linked_names[0] if linked_names else ""
    subject_names = {normalize_name(n) for le in linked[:1] for n in (_get(le, "name"), subject)}
    titles = (graph or GraphView()).doc_titles([e.doc_id for e in evidence[:4]])
    about = {d for d, title in titles.items() if names_topic(title, subject_names - {""})}
    # Other names the claim writes, apart from the subject's: a span that holds the subject
    # is the subject again ("Were Ada Moe" for a namesake the linker added).
    others = [
        n
        for n in linked_names[1:]
        if n
        and n.lower() not in subject.lower()
        and subject.lower() not in n.lower()
        and n.lower() in claim.lower()
    ]
    if not _CJK.search(claim):
        for m in _CAP_NAME.finditer(claim):
            name = _AUX_OPENING.sub("", m.group(0))
            if name.split()[0] in _CAP_STOP and len(name.split()) == 1:
                continue
            if subject and (name in subject or subject in name):
                continue
            if name not in others:
                others.append(name)
    else:
        # The claim's own names, as the reader finds them ("鹭川市第一人民医院", which the
        # linker may know only as 鹭川市): a name inside a longer one gives way to it.
        for a, b, kind in _cjk_candidates(claim):
            name = claim[a:b]
            if (
                kind in ("PERSON", "ORGANIZATION", "LOCATION")
                and len(name) >= 2
                and not (subject and (name in subject or subject in name))
                and name not in others
            ):
                others.append(name)
        others = [o for o in others if not any(o != p and o in p for p in others)]
    terms = _term_set(claim) - _term_set(subject)
    for other in others:
        terms -= _term_set(other)
    if others:
        # (a claim of names is said by the names and its content words, not by the copula and
        # particles, nor by a longer form of the subject's own name, cut by the linker (韩鹤 for
        # 韩鹤年); without other names the particles stay, since a name the reader does not
        # know is cut into them)
        terms = {
            t
            for t in terms
            if t not in _ZH_FUNCTION_WORDS and not (subject and _CJK.match(t) and subject in t)
        }
    if terms & _TEACHING:
        # "learned her trade from Y", "a pupil of Y", "studied under Y": one relation, which a
        # sentence may state by any of its words ("Y's first apprentice was X")
        terms = (terms - _TEACHING) | {_TEACHING_MARK}
    # a person is not "it": teaching is between people, whatever type the linker gave them
    person_subject = _TEACHING_MARK in terms or (
        bool(linked) and _get(linked[0], "type").upper() == "PERSON"
    )
    for ev in evidence[:4]:
        text = ev.text
        if subject and subject not in text and ev.doc_id not in about:
            continue
        # (a claim with content terms may find its other names anywhere in the piece, except a
        # claim of teaching, which names its two people in the sentence that states it: a
        # piece about a school names its teachers and its pupils, not who taught whom)
        whole_in_text = {
            o: bool(terms) and _TEACHING_MARK not in terms and _names_whole(o, text) for o in others
        }
        # (or in the title of its document, when the sentence names the subject: "Her
        # best-known pupil was X" in the article about Y)
        title = titles.get(ev.doc_id, "")
        by_title = {o for o in others if terms and names_topic(title, {normalize_name(o)} - {""})}
        for s, e in _sentences(text):
            sentence = text[s:e]
            if year and not any(str(k[0]) == year for _, _, k in find_dates(sentence)):
                continue
            if (
                subject
                and ev.doc_id not in about
                and subject not in sentence
                and not (_PERSON_PRONOUN_START if person_subject else _PRONOUN_START).search(
                    sentence
                )
            ):
                continue  # a sentence of a piece about something else, that names it in passing
            if others:
                if (
                    all(
                        _names_whole(o, sentence)
                        # (a claim of names alone, "Is X in Y", is stated by one sentence)
                        or (o not in sentence and whole_in_text[o])
                        or (
                            o in by_title
                            and bool(subject)
                            and _names_whole(subject, sentence)
                            # "bought Holm barrels" in the article about Holm Cooperage:
                            # a word of the title's name on another noun names something
                            # else
                            and not _names_in_part(o, sentence)
                        )
                        for o in others
                    )
                    and (not terms or _claim_share(sentence, terms) >= 0.34)
                    and not _said_of_namesake(sentence, others, terms)
                ):
                    return True, f"'{sentence[:120]}' names {', '.join(others)}"
            elif terms and _claim_share(sentence, terms) >= 0.67:
                return True, f"'{sentence[:120]}' states the claim"
    return False, "no sentence about the subject states the claim"


# A yes/no claim that closes on a preposition and a name: "Is X based in Y", "Did X learn to
# fly under Y", "Was X founded by Y".
_CLAIM_TAIL = re.compile(
    r"^(?P<aux>is|was|are|were|did|does|do|has|had)\s+(?P<body>[A-Z#][^?]*?)\s+"
    r"(?P<prep>in|at|from|under|by|with|for|after)\s+(?P<obj>[A-Z#][^,;?]*?)\s*\??$",
    re.IGNORECASE,
)


# The one year a claim gives, as it closes an English claim ("… in 2020") or anywhere in a
# Chinese one ("是2020年当上的").
_CLAIM_YEAR = re.compile(rf"(?:(?<=\bin\s)|(?<=[{HAN}]))(?P<y>1\d{{3}}|20\d\d)(?:年|\b)")
_CLAIM_IN_YEAR = re.compile(
    r"^(?P<aux>is|was|are|were|did|does|do)\s+(?P<body>[A-Z#][^?]*?)\s+in\s+(?:1\d{3}|20\d\d)\s*\??$",
    re.IGNORECASE,
)


def claim_as_question(claim: str, linked: Sequence[Any]) -> tuple[str, AnswerType, str, str] | None:
    """The wh-question a yes/no claim answers, its answer type, and the name the claim gives
    (normalized, and as written): "Is X based in Ostery" → ("Where is X based", LOCATION,
    "ostery", "Ostery"); "Did X learn to fly under Y" → ("Under whom did X learn to fly",
    PERSON, "y", "Y"). None for any other claim, or when the closing name is no linked entity
    of a known type."""
    types = {
        normalize_name(_get(le, n)): _TYPE_ALIASES.get(_get(le, "type").upper(), "NAME")
        for le in linked
        for n in ("name", "span")
    }
    year = _CLAIM_YEAR.search(claim)
    if year is not None:
        # "Did X become president in 2020", "X是2020年当上总裁的": when, and is it that year
        if _CJK.search(claim):
            asked_when = f"{claim[: year.start()]}哪一年{claim[year.end() :]}"
        else:
            m = _CLAIM_IN_YEAR.match(claim.strip())
            if m is None:
                return None
            asked_when = f"When {m['aux'].lower()} {m['body']}"
        return asked_when, "DATE", year["y"], year.group(0)
    if _CJK.search(claim):
        return _zh_claim_as_question(claim, linked, types)
    m = _CLAIM_TAIL.match(claim.strip())
    if m is None:
        return None
    name = normalize_name(m["obj"])
    kind = types.get(name)
    if kind not in ("PERSON", "LOCATION", "ORGANIZATION"):
        return None
    aux, body, prep = m["aux"].lower(), m["body"], m["prep"].lower()
    if prep == "after" and not re.search(r"\b(?:named|called)$", body):
        return None  # "after" orders in time, but for "named after Y"
    if kind == "LOCATION" and prep in ("in", "at", "from"):
        return f"Where {aux} {body}", "LOCATION", name, m["obj"]
    if kind == "LOCATION":
        return None
    asked: AnswerType = "PERSON" if kind == "PERSON" else "ORGANIZATION"
    wh = "whom" if asked == "PERSON" else "which organisation"
    return f"{prep.capitalize()} {wh} {aux} {body}", asked, name, m["obj"]


_ZH_WH_OF_KIND: dict[str, tuple[str, AnswerType]] = {
    "LOCATION": ("哪里", "LOCATION"),
    "PERSON": ("谁", "PERSON"),
    "ORGANIZATION": ("哪家机构", "ORGANIZATION"),
}


def _zh_claim_as_question(
    claim: str, linked: Sequence[Any], types: dict[str, str]
) -> tuple[str, AnswerType, str, str] | None:
    """A Chinese claim asks in place: the last typed name after its first one is replaced by
    the wh-word of its type ("沈亦舟是在澜阜市出生的" → "沈亦舟是在哪里出生的")."""
    spans = sorted(
        {
            (claim.find(text), text)
            for le in linked
            for text in (_get(le, "span"), _get(le, "name"))
            if len(text) >= 2 and text in claim
        }
    )
    if len(spans) < 2 or spans[-1][0] == spans[0][0] or "比" in claim:
        return None  # (a comparison "比Y早" asks no name in place)
    at, text = spans[-1]
    if any(
        a <= at and at + len(text) <= b and b - a > len(text) for a, b, _ in _cjk_candidates(claim)
    ):
        return None  # "鹭川市" inside "鹭川市第一人民医院": the name is part of a longer one
    wh = _ZH_WH_OF_KIND.get(types.get(normalize_name(text), ""))
    if wh is None:
        return None
    return f"{claim[:at]}{wh[0]}{claim[at + len(text) :]}", wh[1], normalize_name(text), text


def _longer_name_in(name: str, evidence: Sequence[Evidence]) -> bool:
    """Does a longer name that opens with ``name`` stand in ``evidence`` ("Dunkerrow Cross")?"""
    rx = _rx(rf"\b{re.escape(name)}\s+[A-Z]")
    return any(rx.search(ev.text) for ev in evidence)


def _same_year(found: str, year: str) -> bool:
    """Does the date ``found`` fall in ``year`` (however written: "1986", "一九八六年",
    "March 1986")?"""
    key = date_key(found)
    return key is not None and str(key[0]) == year


def _same_name(found: str, name: str) -> bool:
    """Is ``found`` the normalized ``name`` (not merely one holding it: "Dunkerrow Cross" is
    not Dunkerrow)?"""
    return bool(name) and normalize_name(found) == name


class OfflineStepReader:
    """Reads a step's evidence without a model (see the module docstring)."""

    name = "offline"

    def __init__(self, linker: Any = None, threshold: float = 0.35, store: Any = None) -> None:
        self.graph = GraphView(linker, store)
        self.threshold = threshold

    async def aread(
        self, ctx: StepContext, evidence: Sequence[Evidence], run: Any = None
    ) -> StepReading:
        """Answer and grade ``ctx``'s step from ``evidence``."""
        step = ctx.step
        if not evidence:
            return StepReading(
                grade=Grade(score=0.0, passed=False, reason="no evidence", grader="offline")
            )
        if step.answer_type == "YESNO":
            asked = claim_as_question(ctx.query, ctx.linked)
            dated = asked is not None and asked[1] == "DATE"
            if (
                asked is not None
                and not dated
                and not _CJK.search(asked[3])
                and _longer_name_in(asked[3], evidence)
            ):
                asked = None  # a longer name holds the claim's ("Dunkerrow Cross" for Dunkerrow)
            ok, why = (
                (False, "") if dated else verify_claim(ctx.query, evidence, ctx.linked, self.graph)
            )
            if asked is not None and (dated or not ok):
                # "Did X learn to fly under Y?" read as "Under whom did X learn to fly" when no
                # sentence states it: yes when the evidence gives the claim's name. "Was X
                # founded in 1987?" read as "When was X founded" first: the year the evidence
                # gives decides, whatever else a sentence shares with the claim; with none
                # read, one sentence must state the claim and give its year.
                query, kind, name, _ = asked
                rest = [le for le in ctx.linked if normalize_name(_get(le, "name")) != name]
                found, _ = read_evidence(query, kind, evidence, rest, self.graph)
                if found is None:
                    if dated:  # (for a name, the sentence check above already said no)
                        ok, why = verify_claim(
                            ctx.query, evidence, ctx.linked, self.graph, year=name
                        )
                elif _same_year(found.text, name) if dated else _same_name(found.text, name):
                    ok, why = True, f"'{query}' reads {found.text}"
                else:
                    ok, why = False, f"'{query}' reads {found.text}, not {asked[3]}"
            return StepReading(
                answer="yes" if ok else "no",
                grade=Grade(score=1.0 if ok else 0.5, passed=True, reason=why, grader="offline"),
                reader=self.name,
            )
        # An earlier step's answer bound into this one is its subject even when the linker
        # found no entity of that name (鸥门码头乐队所签约的唱片公司).
        named = [_get(le, "name") for le in ctx.linked] + [_get(le, "span") for le in ctx.linked]
        bound = [
            {"name": ans, "span": ans, "type": "", "entity_id": ""}
            for i in step.depends_on
            if (ans := ctx.answers.get(i, ""))
            and ans in ctx.query
            and not any(ans in n or n in ans for n in named if n)
        ]
        best, overlap = read_evidence(
            ctx.query,
            step.answer_type,
            evidence,
            [*ctx.linked, *bound],
            self.graph,
            question=ctx.question,
            related=ctx.related,
        )
        if best is None:
            return StepReading(
                grade=Grade(
                    score=round(0.5 * overlap, 4),
                    passed=False,
                    reason="no candidate",
                    grader="offline",
                ),
                reader=self.name,
            )
        fit = _fit(step.answer_type, best.kind)
        score = round(min(1.0, 0.6 * overlap + 0.4 * fit), 4)
        reason = (
            f"{best.text!r} ({best.kind}, {best.votes} mention(s)); "
            f"{overlap:.0%} of the step's terms in its best sentence"
        )
        return StepReading(
            answer=best.text,
            entity_id=best.entity_id,
            evidence_index=best.evidence_index,
            sentence=best.sentence,
            grade=Grade(
                score=score, passed=score >= self.threshold, reason=reason, grader="offline"
            ),
            reader=self.name,
        )
