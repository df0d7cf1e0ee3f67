"""Language facts shared by every package: scripts, English word classes, sentences, names.

One module so the chunker, the extractors, the stores' linkers, the planner and the reader agree
on what a CJK character is, which English words are function words, where a sentence ends and
when two names are the same. It imports nothing from the project, so ``kg_rag``, ``extraction``
and ``communities`` can all use it without breaking the one-way arrows.

* **Scripts**: :data:`HAN` (CJK unified ideographs, extension A, compatibility ideographs) and
  :data:`CJK` (Han plus kana and hangul) as regex character-class bodies, with
  :func:`contains_cjk`, :func:`contains_han` and :func:`cjk_ratio`.
* **English word classes**: :data:`AUXILIARIES` (a question opening with one is a yes/no
  question), :data:`ENGLISH_STOPWORDS` (closed-class words dropped from BM25 terms and query
  terms), :data:`NON_NAME_WORDS` (function and common words that are never a name alone).
* **Sentences**: :func:`split_sentences` (English and Chinese end marks, abbreviations,
  initials, numbers, list lines).
* **Names**: :func:`normalize_name`, the comparison form of an entity name used by resolution,
  linking and the stores alike; :func:`compact_name`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "AUXILIARIES",
    "BARE_PARTICIPLES",
    "CJK",
    "ENGLISH_STOPWORDS",
    "GENERATION_WORDS",
    "HAN",
    "HANGUL",
    "IRREGULAR_PARTICIPLES",
    "KANA",
    "NON_NAME_WORDS",
    "STRANDED_PARTICLES",
    "ZH_ERA_YEAR",
    "cjk_ratio",
    "compact_name",
    "contains_cjk",
    "contains_han",
    "generation",
    "is_participle",
    "normalize_name",
    "split_sentences",
    "trim_span",
    "zh_era_year",
    "zh_numeral",
]

# -- scripts ---------------------------------------------------------------------------------

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han ideographs (unified, extension A, compatibility) as a regex character-class body."""
KANA = "\u3040-\u30ff"
"""Hiragana and katakana as a regex character-class body."""
HANGUL = "\uac00-\ud7af"
"""Hangul syllables as a regex character-class body."""
CJK = HAN + KANA + HANGUL
"""Han, kana and hangul as a regex character-class body: ``re.compile(f"[{CJK}]")``."""

_CJK_CHAR = re.compile(f"[{CJK}]")
_HAN_CHAR = re.compile(f"[{HAN}]")


def contains_cjk(text: str) -> bool:
    """True when the text has at least one CJK (Han, kana or hangul) character."""
    return _CJK_CHAR.search(text) is not None


def contains_han(text: str) -> bool:
    """True when the text has at least one Han character (Chinese, or kanji)."""
    return _HAN_CHAR.search(text) is not None


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the non-space characters of ``text`` (0 for empty)."""
    chars = sum(1 for c in text if not c.isspace())
    if chars == 0:
        return 0.0
    return len(_CJK_CHAR.findall(text)) / chars


# -- English word classes --------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


AUXILIARIES = _words(
    "is are was were do does did has have had can could will would should shall may might must"
)
"""Auxiliary and modal verbs: an English question that starts with one is a yes/no question."""

ENGLISH_STOPWORDS = _words(
    """
    a an and are as at be been being but by did do does for from had has have he her his how i
    if in into is it its me my of on or our she so than that the their them then there these
    they this those to us was we were what when where which while who whom whose why will with
    would you your
    """
)
"""Closed-class words (articles, pronouns, prepositions, conjunctions, auxiliaries, wh-words):
dropped from BM25 terms and from query terms; they carry no signal and make postings long."""

NON_NAME_WORDS = _words(
    """
    a an the this that these those there here it its it's he she they we you i him her them us
    me my our your his their hers theirs ours yours who whom whose which what when where why how
    whatever whichever whoever is are was were be been being am has have had having do does did
    doing done can could will would shall should may might must ought and or nor but yet so if
    then else than as because since while although though unless until whether once of in on at
    by for with without from to into onto upon about above below over under between among amid
    through throughout during before after against within along around across behind beyond
    near toward towards via per like unlike despite except including following according due
    prior also however today currently originally later earlier eventually finally initially
    subsequently previously recently meanwhile moreover furthermore additionally nevertheless
    nonetheless instead therefore thus hence indeed otherwise overall generally usually
    typically often sometimes always never only even still just now soon again already almost
    nearly approximately roughly about all any both each every either neither few many much more
    most other another some such same own several various certain one two three four five six
    seven eight nine ten first second third last next no not yes born located based founded
    released named known called considered described see note notes both although thereafter
    together further many most upon whereas whilst amongst inside outside according
    following besides apart whereby wherein whereof
    """
)
"""Function and common words: never a name on their own (checked lower-cased)."""


IRREGULAR_PARTICIPLES = _words(
    """
    arisen awoken beaten become begun bent bitten blown born borne bought bound broken brought
    built burnt caught chosen come cut dealt done drawn dreamt driven drunk dug eaten fallen fed
    felt fled flown forbidden forgotten forgiven found frozen given gone got gotten grown heard
    held hidden hit hung hurt kept knelt known laid led lent let lit lost made meant met mistaken
    overseen paid put quit read rebuilt rewritten ridden risen run rung said sat seen sent set
    sewn shaken shed shone shot shown shrunk shut slain slept slid sought sold spent split
    spoken spread sprung spun stood stolen struck stuck stung sung sunk sworn swept swum taken
    taught thought thrown told torn understood undertaken upheld withdrawn withheld woken won
    worn wound written
    """
)
"""Past participles that do not end in *-ed*: with the regular *-ed* forms, what opens a
participial postmodifier ("the film *written* by X", "the city *founded* by Y")."""

BARE_PARTICIPLES = _words(
    "become come run put set cut hit hurt let quit read shed shut split spread overcome"
)
"""Irregular participles that are also the verb's bare form: after "did" they are the main
verb ("When did X *become* part of Y?")."""

STRANDED_PARTICLES = _words(
    "about across after against along among around at by for from in into of off on onto out "
    "over through to toward towards under up with within without together down away back"
)
"""Prepositions and particles that can end a clause whose object moved away ("the country X is
*from*", "the band X put *together*"): a stranded one marks the gap of a relative clause."""


# Closed-class words in -ing that are no verb forms: a preposition and the indefinite pronouns.
_ING_FUNCTION_WORDS = frozenset(["during", "nothing", "something", "anything", "everything"])


def is_participle(word: str) -> bool:
    """True for an English past or present participle: *-ed* / *-ing* forms of four letters or
    more, or an irregular past participle (``written``, ``born``)."""
    low = word.lower()
    if low in IRREGULAR_PARTICIPLES:
        return True
    if not low.isalpha() or low in ENGLISH_STOPWORDS or low in _ING_FUNCTION_WORDS:
        return False
    stem = low[:-3] if low.endswith("ing") else low[:-2] if low.endswith("ed") else ""
    # The stem must be a syllable of its own: "bring", "thing", "red", "bed" are not forms.
    return len(stem) >= 3 and any(v in stem for v in "aeiouy")


# -- sentences -------------------------------------------------------------------------------

_CJK_END = re.compile(r"(?:[。！？；]+|…{1,2}|！|？)[”’」』）》〉】\"']*")
_LATIN_END = re.compile(r"(?:[.!?]+|…)[\"'”’)\]]*(?=\s|$)")
_LIST_LINE = re.compile(r"\n(?=[ \t]*(?:[-*+•]\s|\d+[.)]\s|#|>|\|))")
_WORD_BEFORE = re.compile(r"(\S+)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")

# Never sentence ends when followed by a space (titles, Latin abbreviations, company forms).
# fmt: off
_ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "mx", "dr", "prof", "sr", "jr", "st", "mt", "ft", "vs", "etc", "e.g",
        "i.e", "cf", "al", "inc", "ltd", "co", "corp", "dept", "univ", "est", "approx", "gen",
        "col", "lt", "sgt", "capt", "cmdr", "adm", "gov", "sen", "rep", "rev", "hon", "messrs",
        "mme", "mlle", "u.s", "u.k", "u.n", "a.m", "p.m", "ph.d", "b.a", "m.a", "b.sc", "m.sc",
        "d.c", "n.y", "l.a",
    }
)
# fmt: on
# Abbreviations that are only abbreviations before a number ("No. 5", "Fig. 2", "Jan. 3").
# fmt: off
_NUMERIC_ABBREVIATIONS = frozenset(
    {
        "no", "nos", "p", "pp", "vol", "vols", "fig", "figs", "sec", "ch", "art", "eq", "jan",
        "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)
# fmt: on
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` moved inward past whitespace at both ends."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_latin_boundary(text: str, match: re.Match[str], end: int) -> bool:
    following = _NEXT_CHAR.match(text, match.end(), end)
    nxt = following.group(1) if following else ""
    if nxt and nxt.islower():
        return False
    if not match.group().startswith("."):
        return True
    if match.group().startswith(".."):
        return True  # an ellipsis followed by a capital starts a new sentence
    # Look back a bounded distance: words are short, and a search from 0 would be quadratic.
    window = text[max(0, match.start() - 40) : match.start()]
    before = _WORD_BEFORE.search(window)
    if before is None:
        return True
    word = before.group(1).lstrip("\"'“‘([{").lower()
    if word in _ABBREVIATIONS or _DOTTED.fullmatch(word):
        return False
    if word in _NUMERIC_ABBREVIATIONS and nxt.isdigit():
        return False
    # A single capital letter is an initial ("J. R. R. Tolkien").
    return not (len(word) == 1 and before.group(1)[-1].isupper())


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans of ``text[start:end]`` (absolute offsets, trimmed, non-empty).

    Args:
        text: The full text.
        start: Where the passage to split starts.
        end: Where it ends (default: end of text).

    Returns:
        ``(char_start, char_end)`` pairs in order.
    """
    end = len(text) if end is None else end
    cuts: set[int] = set()
    for m in _CJK_END.finditer(text, start, end):
        cuts.add(m.end())
    for m in _LATIN_END.finditer(text, start, end):
        if _is_latin_boundary(text, m, end):
            cuts.add(m.end())
    for m in _LIST_LINE.finditer(text, start, end):
        cuts.add(m.start())
    spans = []
    prev = start
    for cut in [*sorted(cuts), end]:
        if cut <= prev:
            continue
        s, e = trim_span(text, prev, cut)
        if e > s:
            spans.append((s, e))
        prev = cut
    return spans


# -- names -----------------------------------------------------------------------------------

_APOSTROPHES_DOTS = re.compile(r"['’‘`´]|(?<!\d)\.|\.(?!\d)")
_SPACES = re.compile(r"\s+")
_ASCII_PUNCT = re.compile(r"[^0-9a-z.]")
_HAN_GAP = re.compile(f"(?<=[{HAN}])\\s+(?=[{HAN}])")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)")


def _fold_latin_marks(text: str) -> str:
    # Only marks on Latin letters go: "Zürich" ~ "Zurich", while kana voicing marks survive.
    out: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch) and out and out[-1] < "\u0250":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=200_000)
def normalize_name(name: str) -> str:
    """Return the comparison form of an entity name.

    Args:
        name: A surface form, e.g. ``"The I.B.M. Corp."`` or ``"ＩＢＭ"``.

    Returns:
        Lower-case, single-spaced text without punctuation or leading article, e.g.
        ``"ibm corp"``; ``""`` when nothing is left.

    Example:
        >>> normalize_name("  The  Beatles ")
        'beatles'
        >>> normalize_name("I.B.M.") == normalize_name("ＩＢＭ")
        True
    """
    if name.isascii():
        # Fast path (most names): nothing to fold but case and punctuation.
        text = _APOSTROPHES_DOTS.sub("", name.lower().replace("&", " and "))
        text = _ASCII_PUNCT.sub(" ", text)
    else:
        text = unicodedata.normalize("NFKC", name).casefold()
        text = _fold_latin_marks(text)
        text = text.replace("&", " and ")
        text = _APOSTROPHES_DOTS.sub("", text)
        # Dots left at this point sit between digits ("3.5"): they are part of the number.
        text = "".join(
            " " if ch != "." and unicodedata.category(ch)[0] in "PSZC" else ch for ch in text
        )
    text = _SPACES.sub(" ", text).strip()
    text = _HAN_GAP.sub("", text)
    return _ARTICLE.sub("", text)


def compact_name(name: str) -> str:
    """``normalize_name`` without spaces: ``"Wal-Mart"`` and ``"Walmart"`` give ``"walmart"``."""
    return normalize_name(name).replace(" ", "")


# The words after (or before) a name that tell two people of one name apart, a father from a
# son (a closed class): "Orm Vell junior", "Ada Moe the younger", "the elder Orm Vell".
_YOUNGER_WORDS = r"the\s+younger|junior"
_ELDER_WORDS = r"the\s+elder|senior"
GENERATION_WORDS = f"{_YOUNGER_WORDS}|{_ELDER_WORDS}"
"""The generation words as a regex alternation (the answer stages add capitalised and short
forms of their own)."""
_YOUNGER = re.compile(rf"\b(?:{_YOUNGER_WORDS}|jr)\b", re.IGNORECASE)
_ELDER = re.compile(rf"\b(?:{_ELDER_WORDS}|sr)\b", re.IGNORECASE)


def generation(name: str) -> str | None:
    """``"younger"`` or ``"elder"`` when ``name`` carries a generation word ("Orm Vell the
    younger", "the elder Orm Vell", "Ada Moe Jr."), else ``None``."""
    younger, elder = _YOUNGER.search(name), _ELDER.search(name)
    if younger and not elder:
        return "younger"
    if elder and not younger:
        return "elder"
    return None


# -- Chinese era years -----------------------------------------------------------------------
# The first Western year of each Ming and Qing reign title and of the Republic (民国元年 is
# 1912): a closed class of the calendar. "同治八年" is 1862 + 8 - 1 = 1869.
ZH_ERA_START = {
    "洪武": 1368,
    "建文": 1399,
    "永乐": 1403,
    "洪熙": 1425,
    "宣德": 1426,
    "正统": 1436,
    "景泰": 1450,
    "天顺": 1457,
    "成化": 1465,
    "弘治": 1488,
    "正德": 1506,
    "嘉靖": 1522,
    "隆庆": 1567,
    "万历": 1573,
    "泰昌": 1620,
    "天启": 1621,
    "崇祯": 1628,
    "顺治": 1644,
    "康熙": 1662,
    "雍正": 1723,
    "乾隆": 1736,
    "嘉庆": 1796,
    "道光": 1821,
    "咸丰": 1851,
    "同治": 1862,
    "光绪": 1875,
    "宣统": 1909,
    "民国": 1912,
}
_ZH_ERA_NAME = "|".join(ZH_ERA_START)
_ZH_ERA_COUNT = r"元|[一二三四五六七八九十廿]{1,4}|\d{1,2}"
ZH_ERA_YEAR = rf"(?:{_ZH_ERA_NAME})(?:{_ZH_ERA_COUNT})年"
_ZH_ERA_RX = re.compile(rf"({_ZH_ERA_NAME})({_ZH_ERA_COUNT})年")
_ZH_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_DIGIT = "一二两三四五六七八九"
# A Chinese numeral under a thousand, as the language writes it: 七十五, 十八, 一百零三, 两百.
_ZH_NUMERAL_FORM = re.compile(
    rf"(?:(?P<h>[{_ZH_DIGIT}])?(?P<hundred>百))?(?:零?(?P<t>[{_ZH_DIGIT}])?(?P<ten>十))?"
    rf"(?:零?(?P<u>[{_ZH_DIGIT}零〇]))?"
)


def zh_numeral(text: str) -> int | None:
    """The value of a Chinese numeral under a thousand written whole in ``text`` (七十五 → 75,
    十八 → 18, 一百零三 → 103, 两百 → 200), or None when ``text`` is no such numeral."""
    m = _ZH_NUMERAL_FORM.fullmatch(text)
    if not text or m is None:
        return None

    def digit(ch: str | None, default: int) -> int:
        return default if ch is None else 2 if ch == "两" else _ZH_DIGITS.get(ch, 0)

    value = 0
    if m["hundred"]:
        value += digit(m["h"], 1) * 100
    if m["ten"]:
        value += digit(m["t"], 1) * 10
    return value + digit(m["u"], 0)


def zh_era_year(text: str) -> int | None:
    """The Western year of an era year ("同治八年" → 1869, "民国元年" → 1912, "光绪二十一年"
    → 1895), or None when ``text`` starts with none."""
    m = _ZH_ERA_RX.match(text)
    if m is None:
        return None
    count = m.group(2)
    if count == "元":
        n = 1
    elif count.isdigit():
        n = int(count)
    else:
        n = zh_numeral(count.replace("廿", "二十")) or 0
    if n <= 0:
        return None
    return ZH_ERA_START[m.group(1)] + n - 1
