"""What a question (or a step) asks for, read from the grammar of English and Chinese.

Everything here is a construction of the language, not of any corpus: the wh-word and the head
noun of "which/what N" decide the answer type (a person for "who" and for agent and kinship
nouns, a place for "where" and place nouns, ...); auxiliary-first questions and 是否/吗 are
yes/no; comparatives (earlier, larger, 更早, 更大) decide which value wins a comparison. Dates
are parsed into sortable (year, month, day) tuples, in both languages.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

from extraction.language import (
    AUXILIARIES,
    HAN,
    ZH_ERA_YEAR,
    is_participle,
    zh_era_year,
    zh_numeral,
)
from extraction.nouns import NounClass, names_agent
from extraction.nouns import head_noun_type as _noun_class
from kg_rag.models import AnswerType

__all__ = [
    "AUXILIARIES",
    "BARE_YEAR",
    "CONVERSE_ROLES",
    "KIN_GENDER",
    "YEAR_QUESTION",
    "ZH_EVENT_WORDS",
    "answer_type",
    "comparison_order",
    "date_key",
    "find_dates",
    "head_noun_type",
    "is_yes_no",
    "names_agent",
    "number_value",
    "year_only",
    "zh_noun_type",
]

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTH_RX = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
# "7 March 1934", "March 7, 1934", "March 1934", "1934", "1934年3月7日", "公元前221年".
# The digits of a year written in Chinese (〇 and 零 both write nought).
_ZH_DIGIT_VALUE = {
    "〇": "0",
    "零": "0",
    **{c: str(i) for i, c in enumerate("一二三四五六七八九", 1)},
}
_ZH_DIGITS = "".join(_ZH_DIGIT_VALUE)
DATE_RX = re.compile(
    rf"\b(?:\d{{1,2}}\s+{_MONTH_RX}\s+\d{{3,4}}|{_MONTH_RX}\s+\d{{1,2}},?\s+\d{{3,4}}|"
    rf"{_MONTH_RX}\s+\d{{3,4}}|(?:1[0-9]|20)\d{{2}}s?)\b|"
    r"(?:公元前)?\d{3,4}年(?:\d{1,2}月(?:\d{1,2}日)?)?|"
    # a Western year written in Chinese digits: 一九七八年, 二〇〇二年
    rf"(?<![{_ZH_DIGITS}])[{_ZH_DIGITS}]{{4}}年|"
    # an era year ("同治八年"), unless its Western year follows in brackets (that one is read)
    rf"{ZH_ERA_YEAR}(?!\s*[（(]\s*(?:公元)?\d{{3,4}})"
)
_NUMBER_RX = re.compile(r"\d[\d,]*(?:\.\d+)?")

# Chinese: the last characters of a noun carry its class (创始人, 作者, 校长, 画家, 演员 are
# people; 城市, 省, 国家, 出生地 are places; 公司, 大学, 乐队 are organisations).
_ZH_PERSON_END = re.compile(
    # 子 ends kin and person nouns (儿子, 妻子, 弟子) but also things (电子, 种子, 日子): only the
    # person nouns count.
    r"(?:人|者|长|家|师|员|手|生|父|母|亲|妻|夫|儿子|妻子|孙子|侄子|弟子|男子|女子|太子|王子|公子|"
    r"学子|才子|女|兄|弟|哥|姐|妹|叔|舅|姑|婿|侄|甥|王|帝|后|主|官|厨|"
    r"将|星|友|徒|士|"
    r"总裁|董事|经理|导演|主席|书记|老板|继任|前任|主角|配角|主唱|主演|编辑|主编|教授|掌柜|"
    r"师傅|师父)$"
)
_ZH_PLACE_END = re.compile(
    r"(?:城市|城|市|省|州|县|区|镇|村|国|国家|地区|地|处|乡|岛|河|江|湖|山|海|街|路|总部|首都|"
    r"故乡|家乡|老家|籍贯|地点|位置|地方|所在地|村子|镇子|寨子)$"
)
_ZH_ORG_END = re.compile(
    r"(?:公司|企业|集团|大学|学院|学校|中学|小学|研究所|研究院|实验室|医院|银行|乐队|乐团|团队|"
    r"球队|俱乐部|协会|学会|基金会|委员会|出版社|报社|电视台|机构|组织|单位|政府|工厂|厂|馆|社|"
    r"党|部|局|院|所|队|团|会|店|台|校|行|铺)$"
)
# 任 counts the holders of an office: 首任 (the first), 第二任, 前任, 现任, 历任 + the office.
ZH_TERM_OF_OFFICE = r"(?:首|现|前|历|继|末|第[一二三四五六七八九十两\d]+)任"
# Chinese words for the events that begin or end something (a closed class of the language):
# a step or a reader finds them in a question however jieba cuts around them (伞铺开张 is cut
# 铺开/张).
ZH_EVENT_WORDS = frozenset(
    [
        "去世",
        "逝世",
        "开业",
        "诞生",
        "开馆",
        "通车",
        "成立",
        "创办",
        "创立",
        "开张",
        "建成",
        "落成",
        "开办",
        "歇业",
        "关门",
        "倒闭",
        "停业",
        "出生",
        "重修",
        "重建",
        "改组",
    ]
)
# Chinese classifiers (量词) that count or point at things: 哪口井, 哪家公司, 几卷 (a closed class
# of the language; 年, 天 and other units of time are not among them).
ZH_CLASSIFIERS = (
    r"(?:个|家|部|位|所|座|条|本|支|口|间|艘|只|种|项|张|首|幅|件|台|辆|架|栋|块|片|处|门|尊|"
    r"盏|株|棵|头|匹|届|场|篇|份|封|名|层|枚|颗|卷|册|堂)"
)
# What closes a time phrase into a time adverbial: 光绪五年时, 1920年以后, 民国初年间,
# 读硕士时 (a closed class of the language).
ZH_TIME_CLOSERS = frozenset(["时", "时候", "之时", "期间", "间", "以后", "之后", "以前", "之前"])
_ZH_OFFICE_HOLDER = re.compile(rf"^{ZH_TERM_OF_OFFICE}")
_ZH_DATE_END = re.compile(r"(?:年份|年代|年|日期|时间|时候|时期|月份|世纪)$")

Order = Literal["min", "max"]


_ZH_CLASS_ENDS: tuple[tuple[re.Pattern[str], AnswerType], ...] = (
    (_ZH_ORG_END, "ORGANIZATION"),
    (_ZH_PLACE_END, "LOCATION"),
    (_ZH_PERSON_END, "PERSON"),
)


def zh_noun_type(noun: str) -> AnswerType:
    """The answer type of a Chinese noun from its last characters (创始人 → PERSON)."""
    noun = noun.strip()
    if not noun:
        return "NAME"
    if _ZH_DATE_END.search(noun):
        return "DATE"
    if _ZH_OFFICE_HOLDER.match(noun) and len(noun) > 2:
        return "PERSON"  # 首任监督, 第二任山长: the holder of an office, whatever the office
    if re.fullmatch(r"(?:那|这|该|此|哪)(?:一)?位", noun):
        return "PERSON"  # "得奖的那位": 位 counts people, and with no noun it is the one
    # The longest known ending classifies: 总部 is a place (部 alone ends 外交部).
    ends = [
        (len(m.group(0)), i, kind)
        for i, (rx, kind) in enumerate(_ZH_CLASS_ENDS)
        if (m := rx.search(noun)) is not None
    ]
    if ends:
        return min(ends, key=lambda e: (-e[0], e[1]))[2]
    if re.search(r"(?:数量|人数|数目|数|多少)$", noun):
        return "NUMBER"
    return "NAME"


_ZH_A_NOT_A = re.compile(rf"([{HAN}])[不没]\1")
_ZH_WH_AFTER = re.compile(r"谁|哪|什么|多少|几|何")


def zh_a_not_a(question: str) -> re.Match[str] | None:
    """The verb asked in its affirmative-negative form (在不在, 去没去, 是不是): a yes/no
    question, unless a wh-word follows it ("你知不知道X是谁" asks who)."""
    m = _ZH_A_NOT_A.search(question)
    if m is None or _ZH_WH_AFTER.search(question, m.end()):
        return None
    return m


# Nouns of works and establishments (a closed class): one is a business, so a question about
# one asks for an organisation ("Which factory won the cup?"). The extraction's noun classes
# leave them untyped, since a text may use one as a place ("at the mill").
_ESTABLISHMENTS = frozenset(
    [
        "factory",
        "mill",
        "foundry",
        "works",
        "shipyard",
        "tannery",
        "pottery",
        "creamery",
        "dairy",
        "colliery",
        "quarry",
        "ironworks",
        "glassworks",
        "brickworks",
        "sawmill",
        "forge",
        "workshop",
        "chandlery",
    ]
)


# Sums paid and measures a question asks for by their noun ("What fee did X pay", "at what
# age"), beside the extraction's quantity nouns (a closed class).
_QUANTITY_NOUNS = frozenset(["fee", "fare", "wage", "rent", "sum", "payment", "age", "speed"])


# Nouns of events and their results that end like agent nouns (-ent, -er): a question's
# "the first ascent of X" asks about a climb, not a person (a closed class; -ment nouns are
# never agents).
_EVENT_NOUNS = frozenset(
    ["ascent", "descent", "accident", "incident", "merger", "takeover", "current", "torrent"]
)


@functools.lru_cache(maxsize=65536)
def head_noun_type(noun: str, productive: bool = True) -> NounClass:
    """The answer type of an English noun phrase's head, as the extraction classes it
    (:func:`extraction.nouns.head_noun_type`), with an establishment ("the cheese factory",
    "the mill") an organisation, a sum paid ("the fee", "the wage") a quantity, and an event
    ("the first ascent", "the shipment") no person."""
    words = noun.lower().split()
    if words and (words[-1] in _ESTABLISHMENTS or words[-1].rstrip("s") in _ESTABLISHMENTS):
        return "ORGANIZATION"
    if words and (words[-1] in _QUANTITY_NOUNS or words[-1].rstrip("s") in _QUANTITY_NOUNS):
        return "NUMBER"
    kind = _noun_class(noun, productive)
    if kind == "PERSON" and words:
        last = words[-1].rstrip("s")
        if last in _EVENT_NOUNS or last.endswith("ment"):
            return "NAME"
    return kind


# a wh-word that asks ("How long, in pages, was …"); "when" asks only before an auxiliary
# ("When was it built, …"), otherwise it opens a clause ("When it was built, did …")
_WH_OPENING = re.compile(
    r"^\s*(?:who|whom|whose|what|which|where|why|how|when\s+(?:is|was|are|were|did|does|do|"
    r"has|had|have|will|would|could|can)\b)",
    re.IGNORECASE,
)
_WH_WORD = re.compile(r"\b(?:who|whom|whose|what|which|where|when|why|how)\b", re.IGNORECASE)
_FRONTED_THEN_AUX = re.compile(r"^[^?]{3,160}[,:;]\s*([A-Za-z]+)\s[^,:;]*$")


def is_yes_no(question: str) -> bool:
    """Auxiliary-first English questions and 是否/是不是/…吗 Chinese ones."""
    q = question.strip()
    if re.search(rf"[{HAN}]", q):
        return bool(re.search(r"是否|是不是|有没有|对不对|吗[？?]?\s*$", q)) or (
            zh_a_not_a(q) is not None
        )
    first = q.split()[0].lower() if q.split() else ""
    if first not in AUXILIARIES:
        # "When the society was founded, did the family still own the works?", "In 1900, was
        # it …?", "X, the one running Y: is she …?": a fronted clause or phrase, then the
        # auxiliary that opens the question
        fronted = _FRONTED_THEN_AUX.match(q)
        if (
            fronted is None
            or fronted.group(1).lower() not in AUXILIARIES
            or _WH_OPENING.match(q)  # "How long, in pages, was it?" asks how long
            # "X, in Colorado, is part of what range?": the wh-word asks in its place
            or _WH_WORD.search(q, fronted.end(1))
        ):
            return False
        q = q[fronted.start(1) :]
    # "Is it X or Y?" offers options: not yes/no.
    return not re.search(r",\s*\w[^,]*\bor\b[^,]*\?*$", q)


_ZH_WH = [
    (re.compile(r"哪一年|哪年|何年|何时|什么时候|几时|哪一天|哪天|什么时间|几月|何日"), "DATE"),
    (
        re.compile(rf"多少|几(?:{ZH_CLASSIFIERS}|次|岁|人|户)|多大|多高|多长|多重|多远|多久"),
        "NUMBER",
    ),
    (
        re.compile(r"哪家|哪所|哪个公司|什么公司|哪支|哪个组织|什么机构|哪个机构|哪个团队"),
        "ORGANIZATION",
    ),
    (re.compile(r"谁|哪位|哪个人|何人"), "PERSON"),
    (
        re.compile(
            r"哪里|哪儿|何处|何地|哪一?国(?!的)|何国(?!的)|什么地方|哪个地方|在哪(?![所家个座部本位支条种一])"
        ),
        "LOCATION",
    ),
]


# A "what" question whose verb measures (a closed class): "What does the bell weigh?", "What
# did the bridge cost?", "What does the hall measure?".
MEASURE_VERB_Q = re.compile(
    r"^\s*what\s+(?:do|does|did|will|would)\s+.+?\s+(?:weigh|cost|measure)\b"
    # a particle makes another verb ("measure up to"); "in all", "in total" sum the measure,
    # "in the end" dates it
    r"(?!\s+(?:up|on|down|out)\b|\s+in\b(?!\s+(?:all|total|the\s+end)\b))",
    re.IGNORECASE,
)


_MONEY_VERB_Q = re.compile(
    r"^\s*what\s+(?:do|does|did|will|would)\s+.+?\s+(?:raise|earn|fetch|pay|spend|charge)"
    r"(?=\s*\??\s*$|\s+(?:in|for|on|from|at|by|when|during|after|before|to)\b)",
    re.IGNORECASE,
)


# Verbs whose doer is a firm as often as a person (the verbs of the extraction's
# person-or-firm agent nouns: buyer, acquirer, investor, sponsor, publisher, supplier …, and
# owning): "Who bought X?" asks a person, whom a firm may stand for.
FIRM_OR_PERSON_VERB = re.compile(
    r"^\s*who\s+(?:(?:has|had|have|first|later|eventually|finally|then)\s+)*"
    r"(?:bought|buys|acquired|acquires|purchased|purchases|owns|owned|took\s+over|takes\s+over|"
    r"invested|backed|funded|financed|sponsored|sponsors|published|publishes|supplied|"
    r"supplies|distributed|distributes|manufactured|manufactures)\b",
    re.IGNORECASE,
)


# "Where did X study / train / earn her doctorate / work as a researcher?": the place of
# schooling or of work is a body (a university, a school, an institute), as an answer says.
# "earn", "take", "get", "receive" say schooling only with its object ("earn her doctorate").
_OBJECT_VERBS = r"earn|earned|take|took|get|got|receive|received"
_SCHOOLING_NOUNS = r"degree|doctorate|phd|diploma|training|master's|bachelor's|qualification"
_WHERE_INSTITUTION = re.compile(
    # the subject holds no clause of its own: "Where was the woman who taught X born?" asks a
    # birthplace
    r"^\s*where\s+(?:did|does|do|was|is|were|has|had)\s+(?:(?!who\b|whom\b|which\b|that\b)\S+\s+)+?"
    rf"(?:study|studied|train|trained|graduate|graduated|educated|{_OBJECT_VERBS}|"
    r"work|worked|research|researched|teach|taught|lecture|"
    r"lectured|qualify|qualified|enrol|enroll|enrolled|apprentice|apprenticed)\b"
    rf"(?:\s+(?:her|his|their|a|an|the)\s+(?:[a-z]+\s+)?(?:{_SCHOOLING_NOUNS})\b)?",
    re.IGNORECASE,
)
_SCHOOLING_OBJECT = re.compile(rf"\b(?:{_SCHOOLING_NOUNS})\b", re.I)
_OBJECT_VERB = re.compile(rf"\b(?:{_OBJECT_VERBS})\b")


def is_past_participle(word: str) -> bool:
    """A past participle ("founded", "built"), not a present one: "building" is a noun as
    often as a verb form."""
    return is_participle(word) and not word.endswith("ing")


# The noun phrase a question without a wh-word or an auxiliary opens with, up to its first "of"
# ("year founded of", "the birthplace of", "name the founder of").
_FRAGMENT_HEAD = re.compile(
    r"\s*(?!(?:who|whom|whose|what|which|where|when|why|how)\b)"
    r"((?:[a-z][a-z\-]*\s+){0,2}?[a-z][a-z\-]*)\s+of\b"
)


_CLOSING_WH: dict[str, AnswerType] = {
    "where": "LOCATION",
    "when": "DATE",
    "who": "PERSON",
    "whom": "PERSON",
}


# A Chinese predicate that asks a name: "…叫什么", "…的名字是什么", "…称为什么".
ZH_NAME_ASKED = re.compile(
    r"(?:的?(?:名字|名称)(?:是|叫)?什么|(?:叫做|叫作|名叫|称为|称作|叫)什么(?:名字|名称)?)[？?]?$"
)


# Adverbs of an earlier time that may stand before a copula: "X的馆址原来是…", "总部以前在…".
ZH_FORMER_TIME = "原来|原先|本来|最初|起初|当初|以前"
# Localizers of place that follow a noun: 山脚下, 附近, 一带, 南麓, 以东 …
_ZH_PLACE_LOCALIZER = re.compile(
    r"脚下|附近|一带|旁边|周边|周围|边上|[东西南北]麓|[东西南北]侧|以[东西南北]|之[东西南北]"
)


def answer_type(question: str) -> AnswerType:
    """What ``question`` asks for, from its wh-word and head noun (English or Chinese)."""
    q = question.strip()
    if is_yes_no(q):
        return "YESNO"
    if re.search(rf"[{HAN}]", q):
        for rx, kind in _ZH_WH:
            if rx.search(q):
                return kind  # type: ignore[return-value]
        named = ZH_NAME_ASKED.search(q)
        if named is not None:
            # "X的徒弟叫什么", "那座桥的名字是什么": the name of the noun before the naming
            # predicate, of that noun's type; after a verb or a localizer ("改名后叫什么")
            # a name of no class
            from extraction.chinese import pos_tags

            tagged = [(w, f) for w, f in pos_tags(q[: named.start()]) if w.strip() and w != "的"]
            if tagged:
                return zh_noun_type(tagged[-1][0]) if tagged[-1][1].startswith("n") else "NAME"
        m = re.search(rf"(?:哪个|哪一个|哪座|哪条|哪部|哪本|什么|哪种|何种|哪)([{HAN}]{{1,4}})", q)
        if m:
            # The head noun is the first word after the wh-word and its classifier:
            # "哪座城市成立的" → 城市.
            import jieba

            # A localizer after the noun is no part of it (哪座茶山脚下: the segmenter reads
            # 茶/山脚下)
            noun = _ZH_PLACE_LOCALIZER.split(m.group(1))[0] or m.group(1)
            words = [w for w in jieba.lcut(noun) if w.strip()]
            return zh_noun_type(words[0] if words else noun)
        return "NAME"
    low = q.lower()
    if re.search(r"\bhow\s+(many|much|old|long|far|tall|high|large|big|heavy|deep|wide)\b", low):
        return "NUMBER"
    if MEASURE_VERB_Q.search(low) or _MONEY_VERB_Q.search(low):
        # "What does the tenor weigh?", "What did X raise in its Series A?": a verb of measure
        # or of money with no object of its own asks a quantity
        return "NUMBER"
    if re.search(r"^\s*(?:in|on|at|during|since|by|from|until)?\s*when\b", low):
        return "DATE"
    schooled = _WHERE_INSTITUTION.match(low)
    if schooled is not None and (
        # "earn", "take", "get", "receive" are schooling only with its object: "Where did she
        # earn her doctorate", not "Where did the firm get its name"
        not _OBJECT_VERB.search(schooled[0]) or _SCHOOLING_OBJECT.search(schooled[0])
    ):
        return "ORGANIZATION"
    # "The rockman who conducted X was born where?": a wh-word closing the question asks; a
    # "who" after the subject's noun is a relative pronoun.
    closing = re.search(r"\b(where|when|whom|who)\s*\??\s*$", low)
    if closing is not None:
        return _CLOSING_WH[closing.group(1)]
    first = re.search(r"\b(?:which|what)\s+([a-z][a-z\-]*)\b", low)
    if first and head_noun_type(first.group(1)) != "NAME":
        return head_noun_type(first.group(1))
    m = re.search(
        r"\b(?:which|what)\s+((?:[a-z][a-z\-]*\s+){0,2}?[a-z][a-z\-]*)\b(?=\s+(?:is|was|are|were|"
        r"did|does|do|has|had|have|can|could|will|would|of|in|on|at|for|from|to|by|that|who|"
        r"which|where|when|hosted|held|\w+ed)\b|\s*\??$)",
        low,
    )
    if m:
        kind = head_noun_type(m.group(1))
        if kind != "NAME":
            return kind
    m = re.match(
        r"\s*what\s+(?:is|was|are|were)\s+the\s+(?:\d{4}\s+)?"
        r"((?:[a-z][a-z\-]*\s+){0,2}?[a-z][a-z\-]*)\s+of\b",
        low,
    )
    if m:
        # "What is the native language of the person who …": the head noun after the
        # question's own wh-word decides, not a relative "who" or "where" further on.
        return head_noun_type(m.group(1))
    # "What is X's date of birth?": the possessed noun (before any "of") says what is asked.
    m = re.search(
        r"\bwhat\s+(?:is|was|are|were)\s+.+?['’]s?\s+([a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2}?)"
        # an adjunct may follow: "What was X's revenue in 2023?"
        r"(?:\s+(?:in|on|at|during|by|from|after|before|as)\s+[^?]*)?\s*\??$",
        low,
    )
    possessed = head_noun_type(m.group(1).split(" of ")[0]) if m else "NAME"
    if possessed != "NAME":
        return possessed
    if re.match(r"\s*(?:in|on|at|from|to|for|of|by|with)?\s*(?:what|which)\b", low):
        return "NAME"  # a "what" question whose head noun says nothing: no later "who" decides
    fragment = _FRAGMENT_HEAD.match(low)
    if fragment is not None:
        # A search-box fragment opens with the noun phrase it asks for ("year founded of X",
        # "birthplace of the founder of Y"): its head decides, not a relative "where" or "who"
        # further on. A past participle after the noun says which one ("year founded"), so
        # the noun before it is the head.
        words = fragment.group(1).split()
        while len(words) > 1 and is_past_participle(words[-1]):
            words.pop()
        kind = head_noun_type(" ".join(words))
        if kind != "NAME":
            return kind
    if re.match(r"\s*(?:who|whom)\b", low):
        return "PERSON"  # "Who was governor when X became a state?": the opening wh-word asks
    if re.search(r"\bwhen\b", low):
        return "DATE"
    if re.search(r"^\s*(?:\w+\s+){0,3}?(?:who|whom)\b", low):
        return "PERSON"
    if re.search(r"\bwhere\b", low):
        return "LOCATION"
    if re.search(r"\bwhose\b", low):
        return "PERSON"
    if re.search(r"\bwho\b", low):
        return "PERSON"
    m = re.search(r"\bwhat\s+is\s+the\s+((?:[a-z][a-z\-]*\s+){0,2}?[a-z][a-z\-]*)\s+of\b", low)
    if m:
        return head_noun_type(m.group(1))
    return "NAME"


# Chinese gradable adjectives by the order they ask for (a closed class): written bare at the
# end of a comparison ("A和B哪个早", "谁的人口多") they compare as 更早 / 更多 do.
ZH_EARLY_ADJ, ZH_LATE_ADJ = "早", "晚"
ZH_SMALL_ADJ, ZH_LARGE_ADJ = "少小短低窄浅轻", "多大长高宽深重"
ZH_GRADABLE = ZH_EARLY_ADJ + ZH_LATE_ADJ + ZH_SMALL_ADJ + ZH_LARGE_ADJ


def _bare_adjective(adjectives: str) -> str:
    """One of ``adjectives`` after a Chinese character, closing the question."""
    return rf"(?<=[{HAN}])[{adjectives}][？?]?$"


_EARLY = re.compile(
    r"\b(first|earlier|earliest|older|oldest|sooner|elder|eldest)\b|"
    r"更早|最早|早些|较早|得早|在前|在先|居前|先|更年长|年长|更老|(?:更|最|较)悠久|历史(?:更|最|较)长|"
    r"(?:年纪|年龄|岁数)(?:更|最|较|比较|要)?大|"  # age: the older was born first
    + _bare_adjective(ZH_EARLY_ADJ)  # a bare adjective closing the question: "哪个早"
)
_LATE = re.compile(
    r"\b(later|latest|last|younger|youngest|(?:more|most) recent(?:ly)?|newer|newest)\b|"
    r"更晚|最晚|较晚|得晚|在后|居后|更年轻|年轻|更新|(?:年纪|年龄|岁数)(?:更|最|较|比较|要)?(?:小|轻)|"
    + _bare_adjective(ZH_LATE_ADJ)
)
_SMALL = re.compile(
    r"\b(less|least|fewer|fewest|smaller|smallest|shorter|shortest|lower|lowest|"
    r"cheaper|lighter|narrower|shallower)\b|更少|更小|更短|更低|较少|较小|"
    + _bare_adjective(ZH_SMALL_ADJ)
)
_LARGE = re.compile(
    r"\b(more|most|larger|largest|bigger|biggest|longer|longest|higher|highest|taller|"
    r"tallest|greater|greatest|heavier|wider|deeper)\b|更多|更大|更长|更高|较多|较大|最多|最大|"
    + _bare_adjective(ZH_LARGE_ADJ)
)


_ORDERS: tuple[tuple[re.Pattern[str], tuple[Order, Literal["DATE", "NUMBER"]]], ...] = (
    (_EARLY, ("min", "DATE")),
    (_LATE, ("max", "DATE")),
    (_SMALL, ("min", "NUMBER")),
    (_LARGE, ("max", "NUMBER")),
)


def comparison_order(question: str) -> tuple[Order, Literal["DATE", "NUMBER"]] | None:
    """Which value wins a comparison and whether it compares dates or quantities."""
    q = question.lower()
    # Date cues first: "born later" / "died first" compare dates even with a quantity word near.
    for rx, decided in _ORDERS:
        if rx.search(q):
            return decided
    return None


# A question asking for a year, not a date: "what year", "the year of", 哪一年, 何年, 年份.
YEAR_QUESTION = re.compile(r"\b(?:what|which)\s+year\b|\byear\s+of\b|哪一?年|何年|年份", re.I)
# A year written alone: "1817", "2005年" (not the day of "10, 1817", not a part of "18170").
BARE_YEAR = re.compile(r"(?<!\d)\d{3,4}(?:年|(?!\d))")


def year_only(answer: str) -> str:
    """The year of a date answer, as written: "Dec. 10, 1817" → "1817", "2005年3月8日" →
    "2005年"; anything else (a bare year, a name, a decade) is returned as it is."""
    key = date_key(answer)
    if key is None or not key[1] or not DATE_RX.fullmatch(answer.strip()):
        return answer
    found = BARE_YEAR.search(answer)
    return found.group(0) if found else answer


def find_dates(text: str) -> list[tuple[int, int, tuple[int, int, int]]]:
    """(start, end, sortable key) of each date in ``text``."""
    out = []
    for m in DATE_RX.finditer(text):
        key = date_key(m.group(0))
        if key is not None:
            out.append((m.start(), m.end(), key))
    return out


def date_key(text: str) -> tuple[int, int, int] | None:
    """A sortable (year, month, day) for a date string; None when it holds no year."""
    t = re.sub(
        rf"[{_ZH_DIGITS}]{{4}}(?=年)",
        lambda m: "".join(_ZH_DIGIT_VALUE[c] for c in m.group(0)),
        text.strip(),
    )
    era = zh_era_year(t)
    if era is not None:
        return era, 0, 0
    zh = re.search(r"(公元前)?(\d{3,4})年(?:(\d{1,2})月)?(?:(\d{1,2})日)?", t)
    if zh:
        year = int(zh.group(2)) * (-1 if zh.group(1) else 1)
        return year, int(zh.group(3) or 0), int(zh.group(4) or 0)
    year_m = re.search(r"\b(\d{3,4})s?\b", t)
    if year_m is None:
        return None
    year = int(year_m.group(1))
    month = 0
    mm = re.search(r"[A-Za-z]+", t)
    if mm and mm.group(0).lower()[:3] in _MONTHS:
        month = _MONTHS[mm.group(0).lower()[:3]]
    day = 0
    dm = re.search(r"\b(\d{1,2})\b", t.replace(year_m.group(1), " "))
    if dm and month:
        day = int(dm.group(1))
    return year, month, day


_EN_ONES = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_EN_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
    if w != "_"
}
_EN_ORDINAL_ONES = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
}
# A cardinal or ordinal under a hundred in words: "seventy-eight", "seventy-second".
_EN_NUMBER_WORD = re.compile(
    r"\b(?P<tens>twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?P<unit>[a-z]+))?\b"
    r"|\b(?P<ones>" + "|".join(_EN_ONES) + r")\b",
    re.IGNORECASE,
)
# The year of life an age is said by: "in his seventy-second year", "in her 72nd year" (the
# age then is one less than the year's ordinal).
IN_NTH_YEAR = re.compile(
    r"\bin\s+(?:his|her|their)\s+(?P<nth>(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty"
    r"|ninety)[-\s]?)?[a-z]+(?:st|nd|rd|th)|\d+(?:st|nd|rd|th))\s+year\b",
    re.IGNORECASE,
)


def _word_number(text: str) -> float | None:
    """A number under a hundred written in words (see :data:`_EN_NUMBER_WORD`); ordinals of
    a year of life ("in his seventy-second year") give the age completed (71)."""
    low = text.lower()
    nth = IN_NTH_YEAR.search(low)
    if nth is not None:
        word = nth["nth"]
        digits = re.match(r"\d+", word)
        if digits is not None:
            return float(int(digits.group(0)) - 1)
        parts = re.split(r"[-\s]+", word.strip())
        value = _EN_TENS.get(parts[0], 0) + _EN_ORDINAL_ONES.get(parts[-1], 0)
        if parts[-1].endswith("ieth"):
            value = _EN_TENS.get(parts[-1][:-4] + "y", 0)
        return float(value - 1) if value > 1 else None
    m = _EN_NUMBER_WORD.search(low)
    if m is None:
        return None
    if m["ones"]:
        # ("one" and "zero" alone are as often pronouns and idioms as numbers: no value)
        return float(_EN_ONES[m["ones"]]) if _EN_ONES[m["ones"]] > 1 else None
    return float(_EN_TENS[m["tens"]] + _EN_ONES.get(m["unit"] or "", 0))


# A run of Chinese numeral characters (see :func:`~extraction.language.zh_numeral`).
_ZH_NUMERAL_RUN = re.compile(r"[零〇一二两三四五六七八九十百]+")


def number_value(text: str) -> float | None:
    """The first number in ``text`` (commas allowed; million/billion scale words applied); a
    text with no digits may write it in words ("seventy-eight", "in his seventy-second year")."""
    m = _NUMBER_RX.search(text)
    if m is None and (zh := _ZH_NUMERAL_RUN.search(text)) is not None:
        zh_value = zh_numeral(zh.group(0))  # 七十五岁 (一 alone is as often "a" as one)
        return float(zh_value) if zh_value is not None and zh_value > 1 else None
    if m is None or IN_NTH_YEAR.search(text):
        return _word_number(text)
    value = float(m.group(0).replace(",", ""))
    tail = text[m.end() : m.end() + 12].lower()
    if tail.lstrip().startswith("billion") or "亿" in tail[:2]:
        value *= 1e9 if "billion" in tail else 1e8
    elif tail.lstrip().startswith("million"):
        value *= 1e6
    elif tail.lstrip().startswith("thousand") or "万" in tail[:2]:
        value *= 1e3 if "thousand" in tail else 1e4
    return value


# Nouns of works that carry a title of their own (a closed class): "the sequel of X" is a
# film to find first, "the barn of X" has no name.
TITLED_WORKS = frozenset(
    [
        "film",
        "movie",
        "sequel",
        "prequel",
        "remake",
        "novel",
        "book",
        "album",
        "song",
        "single",
        "play",
        "opera",
        "musical",
        "series",
        "episode",
        "poem",
        "painting",
        "symphony",
        "game",
        "show",
        "magazine",
        "newspaper",
        "journal",
        "anthem",
        "debut",
        "adaptation",
        "translation",
    ]
)


# Kin nouns carry a gender in English (a closed class of the language): "the mother of X"
# is no King, "her father" no daughter.
KIN_GENDER = {
    **dict.fromkeys(
        [
            "father",
            "grandfather",
            "son",
            "grandson",
            "brother",
            "husband",
            "uncle",
            "nephew",
            "stepfather",
        ],
        "m",
    ),
    **dict.fromkeys(
        [
            "mother",
            "grandmother",
            "daughter",
            "granddaughter",
            "sister",
            "wife",
            "aunt",
            "niece",
            "stepmother",
        ],
        "f",
    ),
}


_LEARNERS = ("pupil", "student", "apprentice", "protégé", "protege", "disciple", "trainee")
_TEACHERS = ("teacher", "mentor", "master", "tutor", "instructor")
CONVERSE_ROLES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_TEACHERS, _LEARNERS),
    **dict.fromkeys(("supervisor", "adviser", "advisor"), ("student", "assistant")),
    **dict.fromkeys(_LEARNERS, _TEACHERS),
    "employer": ("employee",),
    "employee": ("employer",),
    "successor": ("predecessor",),
    "predecessor": ("successor",),
    **dict.fromkeys(("father", "mother", "parent"), ("son", "daughter", "child")),
    **dict.fromkeys(("son", "daughter", "child"), ("father", "mother")),
    "husband": ("wife", "widow"),
    "wife": ("husband", "widower"),
}
"""Relational nouns and their converses (a closed class of the language): "X became the pupil
of Y" says that Y is X's teacher, "X was Y's successor" that Y is X's predecessor, "X, son of
Y" that Y is X's father or mother."""
