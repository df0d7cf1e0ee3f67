"""Offline Chinese mention finding and relation cues, on jieba's part-of-speech tags.

jieba tags person names ``nr`` (``nrfg``/``nrt`` for others and transliterations), places
``ns``, organisations ``nt`` and other proper nouns ``nz``. That alone misses a lot: an unknown
full name comes out as a surname and a common word (王/nr + 海峰/n), a company as a name and an
industry word (蓝鲸/nr + 科技/n), and jieba's dictionary holds junk "names" (高水平/nr,
王先生/nr). On top of the tags, deterministically:

* **Persons**: a one-character surname (tagged ``nr``, or in
  :data:`~extraction.lexicon.CHINESE_SURNAMES`) or a two-character one (欧阳) joins the one- or
  two-character given name after it. The given name must read as one: not a title or kin word
  (先生, 老师), not a function word, not a frequent common word (水平), and the whole must not
  be a dictionary word of another kind. jieba's own ``nr`` tokens pass the same test, and its
  dictionary's place-like "names" (桂林: 桂林市 is a place word) become places.
* **Organisations**: a run of name-like tokens (names, places, ``nt``/``nz``, Latin words,
  words jieba does not know) followed by organisation words, industry words allowed in between
  (阿里巴巴 + 网络 + 技术 + 有限公司, 蓝鲸 + 科技, 浙江大学 + 医学院). A legal form (有限公司)
  makes even a common word a company name (百度 + 有限公司). A standalone mention of such a
  name's head (蓝鲸 after 蓝鲸科技) is a mention of the organisation.
* Places are ``ns`` (and a transliterated name right after a place: 德国特里尔); names joined by
  a middle dot are one person (卡尔·马克思); 《...》 is a WORK; ``2015年``, ``2015年3月`` is one
  DATE; capitalised Latin words (Google) are CONCEPT mentions.
* **Relation cues** (:func:`relation_cue`): a verb between two mentions, or around the second,
  gives the relation a type and a direction (蓝鲸科技的创始人是王海峰 → 蓝鲸科技 FOUNDED_BY
  王海峰; 王海峰毕业于浙江大学 → GRADUATED_FROM), when the two mentions' types fit the verb.

jieba is imported on first use: loading its dictionary takes about a second.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from extraction.english import Span
from extraction.language import HAN
from extraction.lexicon import (
    CHINESE_ADMIN_UNITS,
    CHINESE_AGENT_ENDS,
    CHINESE_COMPOUND_SURNAMES,
    CHINESE_KIN_WORDS,
    CHINESE_NOT_GIVEN,
    CHINESE_ORG_CLASS_NOUNS,
    CHINESE_ORG_LEGAL_FORMS,
    CHINESE_ORG_MIDDLES,
    CHINESE_ORG_SHORT_SUFFIXES,
    CHINESE_ORG_SUFFIXES,
    CHINESE_RELATION_CUES,
    CHINESE_SURNAMES,
    CHINESE_TITLE_WORDS,
)

__all__ = ["RelationCue", "find_chinese_spans", "glued_after_name", "pos_tags", "relation_cue"]

_FLAG_TYPES = {
    "nr": "PERSON",
    "nr1": "PERSON",
    "nr2": "PERSON",
    "nrj": "PERSON",
    "nrf": "PERSON",
    "nrfg": "PERSON",
    "nrt": "PERSON",
    "ns": "LOCATION",
    "nsf": "LOCATION",
    "nt": "ORGANIZATION",
    "nz": "CONCEPT",
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Prepositions, conjunctions, particles, numerals, measure words, pronouns, adverbs, punctuation.
_FUNCTION_FLAGS = _words("p c u uj ul uz ud ug uv y e o x m mq q r rr rz f d k h w zg df")
_VERBISH_FLAGS = _words("v vd vn vg vi vq a ad an ag d")
# Characters that are mostly function words (于, 向, 何, 曾, 莫) and only sometimes surnames.
_WEAK_SURNAME_TAGS = _words("p c u uj ul uz ud ug uv d r y e o")
# A two-character word this frequent in jieba's dictionary (of ~60M) is a word, not a given
# name (水平 13,880, 增长 20,465); given names that are words are rarer (建国 3,083, 海峰 11).
_COMMON_GIVEN_FREQ = 5000
_VERB_GIVEN_FREQ = 1000
# After a character that is only sometimes a surname (高, 马, 石), only a rare word is a name.
_WEAK_GIVEN_FREQ = 100

# Function characters that follow a name and that jieba glues to an unknown given name
# (闻人 + 涟是, 闻人 + 涟于): a two-character given name never ends in one of them.
_GLUED_AFTER_NAME = frozenset("是于在的也都被将把曾从")

_SENTENCE_END = re.compile(r"[。！？；!?;\n]+")
_TITLE = re.compile(r"《(?P<t>[^《》]{1,60})》")
_DATE = re.compile(
    r"(?:公元前?\s*\d{1,4}|(?<!\d)\d{4})\s*年(?:代|\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?"
)
_HAN = re.compile(f"^[{HAN}]+$")
_DOTS = ("·", "•", "・", "‧")


@dataclass(frozen=True)
class _Token:
    word: str
    flag: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.word)


def _posseg() -> Any:
    import jieba.posseg

    return jieba.posseg


def _dictionary() -> tuple[dict[str, int], dict[str, str]]:
    """jieba's word frequencies and part-of-speech tags (its dictionary loads on first use;
    looked up each time, since jieba may be re-initialised with another dictionary)."""
    tokenizer = _posseg().dt
    tokenizer.tokenizer.check_initialized()
    return tokenizer.tokenizer.FREQ, tokenizer.word_tag_tab


def _freq(word: str) -> int:
    """Frequency of ``word`` in jieba's dictionary (0: unknown, or only a prefix of a word)."""
    return _dictionary()[0].get(word) or 0


def _tag(word: str) -> str:
    """jieba's dictionary part of speech for ``word`` (``""`` when unknown)."""
    return _dictionary()[1].get(word, "")


def _is_han(word: str) -> bool:
    return _HAN.match(word) is not None


def _sentences(text: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if text[start : m.end()].strip():
            ranges.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        ranges.append((start, len(text)))
    return ranges


def pos_tags(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's (word, part-of-speech flag) pairs for ``text``, in order.

    Tagging runs an HMM over every unknown word and is the costliest step of reading Chinese;
    a sentence is tagged by the extractor and by the answer reader, and again for every step
    whose evidence holds it, so short texts (sentences) are memoised."""
    if len(text) <= _POS_MEMO_CHARS:
        return _pos_tags_memo(text)
    return _pos_tags(text)


_POS_MEMO_CHARS = 400


def _pos_tags(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(pair.word), str(pair.flag)) for pair in _posseg().cut(text))


_pos_tags_memo = lru_cache(maxsize=8192)(_pos_tags)


def _tagged(text: str) -> list[_Token]:
    """Every jieba token with its start offset."""
    out: list[_Token] = []
    pos = 0
    for word, flag in pos_tags(text):
        found = text.find(word, pos)
        if found < 0:
            continue
        out.append(_Token(word, flag, found))
        pos = found + len(word)
    return out


# -- persons --------------------------------------------------------------------------------
def _given_ok(given: str, surname: str) -> bool:
    """Whether ``given`` reads as a given name after ``surname``."""
    if not 1 <= len(given) <= 2 or not _is_han(given) or given in CHINESE_TITLE_WORDS:
        return False
    if len(given) == 1:
        return given not in CHINESE_NOT_GIVEN
    tag, freq = _tag(given), _freq(given)
    if freq == 0 or tag.startswith("nr"):
        return True
    if _tag(surname) in _WEAK_SURNAME_TAGS:
        return False  # 于 + 清华: a preposition before a known word, not a person
    if freq >= _COMMON_GIVEN_FREQ:
        return False
    return not (tag in _VERBISH_FLAGS and freq >= _VERB_GIVEN_FREQ)


def _surname_split(name: str) -> tuple[str, str] | None:
    if name[:2] in CHINESE_COMPOUND_SURNAMES and len(name) > 2:
        return name[:2], name[2:]
    if name[0] in CHINESE_SURNAMES or _tag(name[0]).startswith("nr"):
        return name[0], name[1:]
    return None


def closes_with_admin_unit(name: str) -> bool:
    """A name of three or more characters ending in an administrative unit (石桥镇, 柳溪村,
    江城市) is a place, whatever the segmenter made of it (a surname and a given name)."""
    return len(name) >= 3 and name[-1] in CHINESE_ADMIN_UNITS


def _person_kind(name: str, flag: str) -> str | None:
    """The type of a jieba ``nr`` token. Its dictionary holds ~73k "names", many of them not:
    高水平, 王先生, 成绩优秀 (no person), 绍兴人 (a demonym), 桂林, 石家庄 (cities: 石家庄市 is a
    place word). Names without a known surname (transliterations) pass."""
    if not _is_han(name):
        return "PERSON"
    if _tag(name + "市").startswith("ns") or _tag(name + "县").startswith("ns"):
        return "LOCATION"
    if closes_with_admin_unit(name):
        return "LOCATION"
    if len(name) > 2 and name.endswith("人") and _tag(name[:-1]).startswith("ns"):
        return None
    compound = name[:2] in CHINESE_COMPOUND_SURNAMES
    if len(name) >= 4 + compound and flag != "nrt":
        return None  # Chinese names have two or three characters (four with 欧阳)
    split = _surname_split(name)
    if split is None or len(split[1]) > 2 or _given_ok(split[1], split[0]):
        return "PERSON"
    return None


def glued_after_name(given: str) -> bool:
    """Does the two-character "given name" ``given`` end in a function character the
    segmenter glued to it (涟是 in 闻人涟是一名报人), so that the name ends one earlier?"""
    return len(given) == 2 and given[1] in _GLUED_AFTER_NAME and not _freq(given)


def _person_end(tokens: list[_Token], i: int) -> int | None:
    """Index after the given name when ``tokens[i]`` is a surname standing alone before one
    (王 + 海峰), else ``None``."""
    tok = tokens[i]
    if i + 1 >= len(tokens) or tokens[i + 1].start != tok.end:
        return None
    nxt = tokens[i + 1]
    if (
        len(tok.word) == 3
        and tok.word[:2] in CHINESE_COMPOUND_SURNAMES
        and len(nxt.word) == 1
        and (nxt.flag.startswith("nr") or _tag(nxt.word).startswith("nr"))
        and _given_ok(tok.word[2] + nxt.word, tok.word[:2])
    ):
        return i + 2  # 欧阳海/ns + 峰/nr: jieba cut the given name apart
    compound = tok.word in CHINESE_COMPOUND_SURNAMES
    strong = compound or (len(tok.word) == 1 and tok.flag.startswith("nr"))
    if not strong:
        if len(tok.word) != 1 or tok.word not in CHINESE_SURNAMES:
            return None
        if tok.flag in _FUNCTION_FLAGS and not (
            tok.flag == "q" and (i == 0 or tokens[i - 1].flag not in ("m", "mq"))
        ):
            return None  # 于/p, 何/r, 一张/m: the character is not a surname here
    han_unknown = nxt.flag == "x" and _is_han(nxt.word)  # 贺兰 + 芷/x: a rare character
    if (nxt.flag in _FUNCTION_FLAGS and not han_unknown) or not _given_ok(nxt.word, tok.word):
        return None
    nxt_tag, nxt_freq = _tag(nxt.word), _freq(nxt.word)
    name_tagged = nxt.flag.startswith("nr") or nxt_tag.startswith("nr")
    if len(nxt.word) == 1 and not name_tagged and not (han_unknown and strong):
        return None  # a one-character word after a surname is more often a word than a name
    if nxt_freq and not name_tagged:
        if nxt.flag in _VERBISH_FLAGS and not (compound and nxt_freq < _VERB_GIVEN_FREQ):
            return None  # 王 + 说好; a rare word after a compound surname is a given name
            # (夏侯 + 俊朗/a), a common one is not (慕容 + 认为)
        if not strong and nxt_freq >= _WEAK_GIVEN_FREQ:
            return None  # 高 + 水平
    merged = tok.word + nxt.word
    if _freq(merged) and not _tag(merged).startswith("nr"):
        return None
    return i + 2


# -- organisations ----------------------------------------------------------------------------
def _name_like(tok: _Token) -> bool:
    """Can this token be (part of) the name in front of an organisation word?"""
    if tok.flag.startswith(("nr", "ns", "nt", "nz")) or tok.flag == "eng":
        return True
    # A word jieba does not know (鲸灵): likely a name.
    return len(tok.word) >= 2 and _is_han(tok.word) and _freq(tok.word) == 0


def _is_middle(word: str) -> bool:
    """An industry word, or two of them in one token (科学 + 技术)."""
    return word in CHINESE_ORG_MIDDLES or (
        len(word) == 4 and word[:2] in CHINESE_ORG_MIDDLES and word[2:] in CHINESE_ORG_MIDDLES
    )


def _org_end(tokens: list[_Token], j: int, *, short_ok: bool, legal_only: bool) -> int | None:
    """Index after the organisation words that start at ``tokens[j]`` (industry words, then an
    organisation word), or ``None``.

    Args:
        tokens: The tokens.
        j: Where the organisation words would start.
        short_ok: Whether a one-character organisation word may end the name (after a place or
            an organisation: 上海 + 队, not 王海峰 + 所).
        legal_only: Whether only a legal form may end the name (after a common noun).
    """
    end: int | None = None
    k = j
    while 0 < k < len(tokens) and tokens[k].start == tokens[k - 1].end:
        word, flag = tokens[k].word, tokens[k].flag
        if word in CHINESE_ORG_SUFFIXES or _ends_in_org_word(word):
            ends = not legal_only or word in CHINESE_ORG_LEGAL_FORMS
        else:
            # One-character organisation words must be nouns here (会 is also "will").
            ends = (
                word in CHINESE_ORG_SHORT_SUFFIXES
                and short_ok
                and not legal_only
                and flag.startswith(("n", "j"))
            )
        if ends and _glued(tokens, k):
            break  # 科技 of 科技园内 (科技 + 园内): the word goes on, the name does not end here
        if ends:
            end = k + 1
        elif not _is_middle(word):
            break
        k += 1
    return end


_LONG_ORG_SUFFIXES = tuple(sorted((w for w in CHINESE_ORG_SUFFIXES if len(w) >= 2), key=len))


def _ends_in_org_word(word: str) -> bool:
    """A noun the segmenter made of a modifier and an organisation word (电影 + 学院 as
    电影学院, 音乐 + 学院): it ends an organisation name as the organisation word would."""
    return len(word) >= 3 and _is_han(word) and word.endswith(_LONG_ORG_SUFFIXES)


def _glued(tokens: list[_Token], k: int) -> bool:
    """Whether ``tokens[k]`` and the first character of the adjacent next token make a
    dictionary word that the segmenter cut (科技 + 园内 for 科技园 + 内)."""
    if k + 1 >= len(tokens) or tokens[k + 1].start != tokens[k].end:
        return False
    nxt = tokens[k + 1].word
    return len(nxt) > 1 and _is_han(nxt[:1]) and _freq(tokens[k].word + nxt[0]) > 0


def _org_head(name: str) -> str:
    """The naming part of an organisation: 清华大学 → 清华, 华为技术有限公司 → 华为."""
    head = name
    while True:
        for size in range(min(6, len(head) - 2), 1, -1):
            tail = head[-size:]
            if tail in CHINESE_ORG_SUFFIXES or _is_middle(tail):
                head = head[:-size]
                break
        else:
            return head


def _short_form(span: Span, heads: dict[str, set[str]]) -> Span:
    """清华 or 蓝鲸 alone, in a text that names 清华大学 or 蓝鲸科技: a short mention of that
    organisation. Never a place (浙江 is no short form of 浙江大学) nor a name with a common
    surname (王海峰基金会 does not make 王海峰 a foundation)."""
    names = heads.get(span.name)
    if (
        names is None
        or len(names) != 1
        or span.strong
        or span.type in ("ORGANIZATION", "LOCATION")
        or (
            span.type == "PERSON"
            and (span.name[0] in CHINESE_SURNAMES or span.name[:2] in CHINESE_COMPOUND_SURNAMES)
        )
    ):
        return span
    return Span(next(iter(names)), "ORGANIZATION", span.start, span.end)


@dataclass
class _Unit:
    """A name found at a token position: its span and the index after it."""

    kind: str | None  # None: name-like, but no entity by itself
    start: int
    end: int
    next: int
    flag: str


def _unread_run(tokens: list[_Token], i: int) -> _Unit | None:
    """Two or three single characters in a row that the segmenter could read as no word
    (砚/ng + 岭/n), right before an organisation word (工学院): the name of that
    organisation, which the caller extends over the organisation word."""
    j = i
    while (
        j < len(tokens)
        and j - i < 3
        and len(tokens[j].word) == 1
        and _is_han(tokens[j].word)
        and (tokens[j].flag == "x" or tokens[j].flag not in _FUNCTION_FLAGS)  # 荇/x: rare
        and tokens[j].flag not in _VERBISH_FLAGS
        and (j == i or tokens[j].start == tokens[j - 1].end)
    ):
        j += 1
    if j - i < 2 or _org_end(tokens, j, short_ok=False, legal_only=False) is None:
        return None
    return _Unit(None, tokens[i].start, tokens[j - 1].end, j, tokens[i].flag)


def _unit(tokens: list[_Token], i: int) -> _Unit | None:
    tok = tokens[i]
    if tok.word in CHINESE_KIN_WORDS:
        return None  # 哥哥, 妻子: a kinship noun names no one
    person = _person_end(tokens, i)
    if person is not None:
        end = tokens[person - 1].end
        if glued_after_name(tokens[person - 1].word):
            end -= 1  # 闻人 + 涟是: the segmenter glued the verb after the name to it
        return _Unit("PERSON", tok.start, end, person, "nr")
    kind = _FLAG_TYPES.get(tok.flag)
    if kind == "PERSON":
        kind = _person_kind(tok.word, tok.flag)
    if tok.flag == "eng":
        kind = "CONCEPT" if tok.word[:1].isupper() else None
    elif len(tok.word) < 2:
        kind = None
    if kind is None and not _name_like(tok):
        return _unread_run(tokens, i)
    end, j = tok.end, i + 1
    # "Larry Page": jieba cuts Latin names at spaces.
    while (
        kind == "CONCEPT"
        and tok.flag == "eng"
        and j + 1 < len(tokens)
        and tokens[j].word == " "
        and tokens[j + 1].flag == "eng"
        and tokens[j + 1].word[:1].isupper()
    ):
        end = tokens[j + 1].end
        j += 2
    # 卡尔·马克思: names joined by a middle dot.
    while (
        kind == "PERSON"
        and j + 1 < len(tokens)
        and tokens[j].word in _DOTS
        and _FLAG_TYPES.get(tokens[j + 1].flag) == "PERSON"
    ):
        end = tokens[j + 1].end
        j += 2
    return _Unit(kind, tok.start, end, j, tok.flag)


def _strong_spans(text: str) -> tuple[list[Span], list[tuple[int, int]]]:
    spans: list[Span] = []
    covered: list[tuple[int, int]] = []
    for m in _TITLE.finditer(text):
        spans.append(Span(m.group("t"), "WORK", m.start("t"), m.end("t"), strong=True))
        covered.append((m.start(), m.end()))
    for m in _DATE.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in covered):
            continue
        spans.append(Span(m.group(0).replace(" ", ""), "DATE", m.start(), m.end(), strong=True))
        covered.append((m.start(), m.end()))
    return spans, covered


# A definition: "秋蝉唱片是一家独立唱片公司", "司徒远舟是一位电影导演" — the subject before 是 +
# 一 + classifier names what the noun phrase after it classifies, however it segments.
_DEFINITION = re.compile(
    rf"(?:^|(?<=[。！？；\n]))\s*(?:[^，。！？；\n]{{0,12}}，)?"
    rf"(?P<x>[{HAN}A-Za-z0-9·《》]{{2,12}}?)是(?:另)?一(?P<cl>[家所支个座位名])"
    rf"(?P<np>[^，。！？；、\n]{{1,20}})"
)
_PRONOUN_SUBJECT = re.compile(r"^(?:它|他|她|这|那|该|其|此|我|你|您|们)")
# Last characters of an occupation after 一位/一名: the agent ends and 导演, 编剧, 编辑, 主编.
_OCCUPATION_ENDS = CHINESE_AGENT_ENDS | frozenset("演剧辑编")


def _without_title(name: str) -> str:
    """``name`` without a title or role before a person's name (首任院长闻人朗 → 闻人朗,
    主持人祁朔 → 祁朔): what follows the title has a surname and two to four characters."""
    for k in range(1, len(name) - 1):
        head, rest = name[:k], name[k:]
        titled = any(head.endswith(t) for t in CHINESE_TITLE_WORDS) or (
            len(head) >= 2 and head[-1] in CHINESE_AGENT_ENDS
        )
        if titled and 2 <= len(rest) <= 4 and _surname_split(rest) is not None:
            return rest
    return name


def _definition_spans(text: str) -> list[Span]:
    """Names defined by a classifying sentence: an organisation when the noun phrase ends in
    an organisation word (家/所/支 + …公司/大学/乐队), a person after 位/名 + an occupation noun
    (…导演, …报人), a place after 座 + 城市/镇/…; every other mention of the same name in
    ``text`` too."""
    out: list[Span] = []
    for m in _DEFINITION.finditer(text):
        name, cl, np = m.group("x"), m.group("cl"), m.group("np").strip()
        if _PRONOUN_SUBJECT.match(name) or "的" in name:
            continue
        name = name.strip("《》") if name.startswith("《") and name.endswith("》") else name
        if "《" in name or "》" in name:
            continue
        kind = None
        if cl in "家所支个" and (
            np.endswith(tuple(CHINESE_ORG_SUFFIXES | CHINESE_ORG_CLASS_NOUNS))
            or _ends_in_org_word(np)
        ):
            kind = "ORGANIZATION"
        elif cl in "位名" and np[-1:] in _OCCUPATION_ENDS:
            kind = "PERSON"
            name = _without_title(name)  # 首任院长闻人朗是一位工程师: the person is 闻人朗
        elif cl in "座个" and np.endswith(("城市", "城", "小镇", *CHINESE_ADMIN_UNITS)):
            kind = "LOCATION"
        if kind is None:
            continue
        for found in re.finditer(re.escape(name), text):
            out.append(Span(name, kind, found.start(), found.end(), strong=True))
    return out


# A place closed by an administrative unit after a locative preposition: 位于鸥门市, 创立于蔺溪市,
# 迁往蔺溪市, 在岑川市成立. jieba cuts invented place names anywhere (鸥/ng + 门市/n, 于蔺溪/nr +
# 市/n, a bound morpheme + the rest of the name); the preposition opens the place and the unit
# closes it.
_LOCATIVE = "于在往到至自"
_PLACE_DIRECTIONS = frozenset("上下东西南北中")
_ADMIN_PLACE = re.compile(
    rf"(?<=[{_LOCATIVE}])(?P<p>[{HAN}]{{2,3}}?[{''.join(sorted(CHINESE_ADMIN_UNITS))}])"
)


def _admin_places(text: str, tokens: list[_Token]) -> list[Span]:
    """Places opened by a locative preposition and closed by an administrative unit that ends
    a jieba token (so 市长 or 市场 is no unit), with no function word inside (在那个县)."""
    ends = {t.end for t in tokens}
    starts = {t.start: k for k, t in enumerate(tokens)}  # token index by start offset
    out: list[Span] = []
    for m in _ADMIN_PLACE.finditer(text):
        a, b = m.span("p")
        if b not in ends:
            continue
        # The preposition ends a word (生于, 在) or opens the token the place starts in (于蔺溪).
        opener = next((t for t in tokens if t.start < a < t.end), None)
        if opener is not None and opener.start != a - 1:
            continue
        inside = [t for t in tokens if t.start < b and a < t.end]
        if any(
            t.flag in _FUNCTION_FLAGS and not (t.start == a and t.word in _PLACE_DIRECTIONS)
            for t in inside
            if a <= t.start
        ):
            continue  # a direction may open the name: 生于上蕨溪村 (上/f), 迁往东柳镇
        if a in starts and all(t.flag.startswith("ns") for t in inside):
            continue  # jieba found the places (北京市, 浙江 + 杭州): the token path names them
        after = starts.get(b)
        org = (
            _org_end(tokens, after, short_ok=True, legal_only=False) if after is not None else None
        )
        if org is not None:
            # 隶属于岑川镇文化馆: the place heads an organisation's name.
            end = tokens[org - 1].end
            out.append(Span(text[a:end], "ORGANIZATION", a, end, strong=True))
            continue
        out.append(Span(m.group("p"), "LOCATION", a, b, strong=True))
    return out


def find_chinese_spans(text: str) -> tuple[list[Span], list[tuple[int, int]]]:
    """Find the mentions of Chinese ``text``.

    Args:
        text: Chinese text (Latin words inside it are handled too).

    Returns:
        ``(spans, sentences)``: mentions sorted by position, and sentence character ranges.

    Example:
        >>> spans, _ = find_chinese_spans("蓝鲸科技的创始人是王海峰。")
        >>> [(s.name, s.type) for s in spans]
        [('蓝鲸科技', 'ORGANIZATION'), ('王海峰', 'PERSON')]
    """
    spans, covered = _strong_spans(text)
    tokens = _tagged(text)
    for place in _definition_spans(text) + _admin_places(text, tokens):
        if not any(a < place.end and place.start < b for a, b in covered):
            spans.append(place)
            covered.append((place.start, place.end))

    def free(start: int, end: int) -> bool:
        return not any(a < end and start < b for a, b in covered)

    i = 0
    while i < len(tokens):
        found, i = _names_at(text, tokens, i, free)
        spans.extend(found)
    heads: dict[str, set[str]] = {}  # 蓝鲸 → {蓝鲸科技}
    for span in spans:
        head = _org_head(span.name) if span.type == "ORGANIZATION" else ""
        if len(head) >= 2 and head != span.name:
            heads.setdefault(head, set()).add(span.name)
    spans = [_short_form(s, heads) for s in spans]
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans, _sentences(text)


def _person_context(tokens: list[_Token], i: int, unit: _Unit) -> bool:
    """Does a place-tagged name of one token read as a person's from its neighbours: an
    occupation noun right before it (主持人祁朔, 作家贺兰苓) or 的 and a kinship noun after it
    (祁朔的弟弟)? Only a name that splits as a surname and a given name qualifies."""
    name = tokens[i].word
    if unit.next != i + 1 or not 2 <= len(name) <= 3 or not _is_han(name):
        return False
    if closes_with_admin_unit(name) or _freq(name) or _surname_split(name) is None:
        return False
    before = tokens[i - 1] if i > 0 else None
    if (
        before is not None
        and before.end == tokens[i].start
        and len(before.word) >= 2
        and before.word[-1] in CHINESE_AGENT_ENDS
        and before.flag.startswith(("n", "v"))
    ):
        return True
    after = tokens[i + 1 : i + 3]
    return len(after) == 2 and after[0].word == "的" and after[1].word in CHINESE_KIN_WORDS


def _names_at(
    text: str, tokens: list[_Token], i: int, free: Callable[[int, int], bool]
) -> tuple[list[Span], int]:
    """The mentions that start at ``tokens[i]`` and the index to go on from."""
    tok = tokens[i]
    unit = _unit(tokens, i) if free(tok.start, tok.end) else None
    if unit is None:
        # 百度 + 有限公司: a legal form makes a common noun a company name.
        if (
            tok.flag.startswith("n")
            and _is_han(tok.word)
            and tok.word not in CHINESE_ORG_SUFFIXES
            and not _is_middle(tok.word)
        ):
            org = _org_end(tokens, i + 1, short_ok=False, legal_only=True)
            if org is not None and free(tok.start, tokens[org - 1].end):
                end = tokens[org - 1].end
                return [Span(text[tok.start : end], "ORGANIZATION", tok.start, end)], org
        return [], i + 1
    # A run of name-like units (中国 + 红十字, IBM + 中国) may head an organisation.
    run = [unit]
    while run[-1].next < len(tokens) and tokens[run[-1].next].start == run[-1].end:
        nxt = _unit(tokens, run[-1].next)
        if nxt is None or not free(nxt.start, nxt.end):
            break
        run.append(nxt)
    for size in range(len(run), 0, -1):
        last = run[size - 1]
        if last.next >= len(tokens) or not free(last.end, tokens[last.next].end):
            continue
        short_ok = last.kind in ("LOCATION", "ORGANIZATION", "CONCEPT")
        org = _org_end(tokens, last.next, short_ok=short_ok, legal_only=False)
        if org is None:
            continue
        end = tokens[org - 1].end
        found = [Span(text[unit.start : end], "ORGANIZATION", unit.start, end)]
        if size == 1 and unit.kind == "ORGANIZATION":
            # 浙江大学 + 医学院: the university is a mention of its own too.
            found.append(Span(text[unit.start : unit.end], "ORGANIZATION", unit.start, unit.end))
        return found, org
    if unit.kind is None:
        return [], unit.next
    kind = unit.kind
    if kind == "LOCATION" and _person_context(tokens, i, unit):
        kind = "PERSON"  # 主持人祁朔, 祁朔的弟弟: jieba tagged an unknown name a place
    if (
        kind == "PERSON"
        and unit.flag == "nrt"
        and i > 0
        and _FLAG_TYPES.get(tokens[i - 1].flag) == "LOCATION"
    ):
        kind = "LOCATION"  # 德国 + 特里尔
    return [Span(text[unit.start : unit.end], kind, unit.start, unit.end)], unit.next


# -- relation cues ----------------------------------------------------------------------------
class RelationCue(NamedTuple):
    """A relation type read from the words around two mentions.

    Attributes:
        type: Relation type, e.g. ``"FOUNDED_BY"``.
        description: The cue words, e.g. ``"创始人"``.
        reverse: True when the second mention is the relation's source.
    """

    type: str
    description: str
    reverse: bool


@dataclass(frozen=True)
class _Cue:
    type: str
    gap: re.Pattern[str]
    after: re.Pattern[str] | None
    first: frozenset[str]
    second: frozenset[str]
    reverse: bool


_CUE_TYPES = {
    "PER": "PERSON",
    "ORG": "ORGANIZATION",
    "LOC": "LOCATION",
    "CON": "CONCEPT",
    "DATE": "DATE",
    "WORK": "WORK",
    "EVENT": "EVENT",
}


@lru_cache(maxsize=1)
def _cues() -> tuple[_Cue, ...]:
    cues: list[_Cue] = []
    for line in CHINESE_RELATION_CUES.strip().splitlines():
        type_, gap, after, first, second, direction = line.split()
        cues.append(
            _Cue(
                type_,
                re.compile(gap),
                None if after == "-" else re.compile(after),
                frozenset(_CUE_TYPES[t] for t in first.split(",")),
                frozenset(_CUE_TYPES[t] for t in second.split(",")),
                direction == "<",
            )
        )
    return tuple(cues)


_MAX_CUE_GAP = 40  # characters: farther apart, the verb is unlikely to join these two


def relation_cue(
    gap: str,
    after: str,
    first_type: str,
    second_type: str,
    gap_types: Collection[str] = (),
) -> RelationCue | None:
    """The typed relation that words around two mentions of one sentence state, if any.

    Args:
        gap: The text between the first and the second mention.
        after: The text after the second mention, to the end of its sentence.
        first_type: Type of the first mention's entity.
        second_type: Type of the second mention's entity.
        gap_types: Types of the other mentions inside ``gap``. A verb is not given to a pair
            with a mention of either one's type in between: the nearer one takes it.

    Returns:
        The cue, or ``None`` (a plain co-occurrence).

    Example:
        >>> relation_cue("的创始人是", "，", "ORGANIZATION", "PERSON")
        RelationCue(type='FOUNDED_BY', description='创始人', reverse=False)
    """
    gap = gap.strip()
    if len(gap) > _MAX_CUE_GAP or first_type in gap_types or second_type in gap_types:
        return None
    after = after.lstrip()
    for cue in _cues():
        if first_type not in cue.first or second_type not in cue.second:
            continue
        found = cue.gap.search(gap)
        if found is None:
            continue
        if cue.after is not None:
            found = cue.after.search(after)
            if found is None:
                continue
        described = found.groupdict().get("d") or found.group(0)
        return RelationCue(cue.type, described, cue.reverse)
    return None
