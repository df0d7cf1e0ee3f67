"""The offline step reader on a table of invented passages, English and Chinese: the answer is
a whole entity mention of the type the step asks for, found beside the step's relation words,
never a name the question already gives (no graph, no vectors: the text alone decides)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg_rag.answer.offline import _term_set
from kg_rag.answer.reader import (
    GraphView,
    OfflineStepReader,
    _another_is_born,
    _appositive_gender,
    _asks_now,
    _attributive,
    _by_surname,
    _cap_names,
    _cjk_candidates,
    _defined_as,
    _en_relative,
    _event_date_factor,
    _full_name,
    _gloss_of,
    _head_compounds,
    _head_noun,
    _holder_now_factor,
    _indefinite_head,
    _name_occurrences,
    _name_run,
    _names_alone,
    _names_head,
    _noun_adjunct,
    _office_title,
    _person_appositive,
    _place_head,
    _shouted_word,
    _zh_landform_name,
    _zh_life_bonus,
    _zh_relative,
    _zh_said_otherwise,
    names_topic,
    place_size,
    read_evidence,
    verify_claim,
)
from kg_rag.answer.stages import StepContext
from kg_rag.models import AnswerType, Evidence, PlanStep
from kg_rag.retrieval.graph import LinkedEntity

pytestmark = pytest.mark.unit


def _ev(*texts: str, doc: str | None = None, level: str = "paragraph") -> list[Evidence]:
    """Evidence pieces, best first: one document each, or all of ``doc``."""
    return [
        Evidence(
            chunk_id=f"c{i}",
            doc_id=doc or f"d{i}",
            text=t,
            score=1.0 - i / 10,
            level=level,
            char_end=len(t),
        )
        for i, t in enumerate(texts)
    ]


def _linked(*names: str, type: str = "") -> list[LinkedEntity]:
    return [
        LinkedEntity(entity_id=f"e{i}", name=n, type=type, method="exact", span=n, weight=1.0)
        for i, n in enumerate(names)
    ]


_TARRANT_ORIGIN = [
    "Ivo Tarrant was a cheese factor of Morwen. He was a native of Quellby, where he was born "
    "in 1819.",
    "Ivo Tarrant married Ann Fennimore of Morwen in 1847.",
]

CASES: list[tuple[str, AnswerType, list[str], list[str], str]] = [
    # (step query, expected type, passages, linked names, answer)
    # "When" asks for the time as precisely as the evidence writes it: a bare year gives way
    # to a day or month of the same year; a question asking for the year keeps the year.
    (
        "When did Varnland join the union",
        "DATE",
        ["In 1817 Varnland asked to join the union. The union admitted it on Dec. 10, 1817."],
        ["Varnland"],
        "Dec. 10, 1817",
    ),
    (
        "When was the song Blue Road recorded",
        "DATE",
        ["The song Blue Road was recorded by the band in 1967.", "Recorded August 16, 1967."],
        ["Blue Road"],
        "August 16, 1967",
    ),
    (
        "When did the Osk Bridge open",
        "DATE",
        ["The Osk Bridge opened in 1932. Work on the Osk Bridge began on 4 May 1929."],
        ["Osk Bridge"],
        "1932",
    ),
    (
        "What year did Varnland write its constitution",
        "DATE",
        [
            "In 1817 delegates of Varnland wrote a constitution and asked for statehood. "
            "On Dec. 10, 1817, the territory became the State of Varnland."
        ],
        ["Varnland"],
        "1817",
    ),
    (
        "青石乐队是什么时候成立的",
        "DATE",
        ["青石乐队于2005年在江城组建。2005年3月8日，青石乐队正式成立。"],
        ["青石乐队"],
        "2005年3月8日",
    ),
    (
        "青石乐队是哪一年组建的",
        "DATE",
        ["青石乐队于2005年在江城组建。2005年3月8日，青石乐队正式成立。"],
        ["青石乐队"],
        "2005年",
    ),
    # No English name ends in an article or a demonstrative (a full stop lost in the source).
    (
        "Who designed the Harbour Museum",
        "PERSON",
        ["The Harbour Museum was designed by Orla Fenn The building opened in 1990."],
        ["Harbour Museum"],
        "Orla Fenn",
    ),
    (
        "Which company built the Tarn Bridge",
        "ORGANIZATION",
        ["The Tarn Bridge was built by Kessel Works These days it carries trains."],
        ["Tarn Bridge"],
        "Kessel Works",
    ),
    (
        "Where was Ilse Morrow born",
        "LOCATION",
        ["Ilse Morrow was born in Varn Heights That year her family moved away."],
        ["Ilse Morrow"],
        "Varn Heights",
    ),
    (
        "city where the Marren Gallery is located",
        "LOCATION",
        [
            "Westmark has many museums. The Marren Gallery of Dovreby ranks among the best in "
            "Kestria, and Kestria funds it."
        ],
        ["Marren Gallery"],
        "Dovreby",
    ),
    (
        "Who is the sister of Oren Vale",
        "PERSON",
        ["Oren Vale toured with Tom Reed in 1970. His sister Mira Vale sang on Grey Tide."],
        ["Oren Vale"],
        "Mira Vale",
    ),
    (
        "Who is the sibling of Oren Vale",
        "PERSON",
        ["Oren Vale and his sibling Mira Vale were raised by Tom Reed in Tollby."],
        ["Oren Vale"],
        "Mira Vale",
    ),
    (
        "What kind of ship sank off Varkholm",
        "NAME",
        ["Off Varkholm in 1912 the Osk Line lost a ship, the Grey Heron, in a storm."],
        ["Varkholm"],
        "Grey Heron",
    ),
    (
        "What is the name of the harbour in Brenna",
        "NAME",
        ["Brenna, a town in Westmark, is served by the harbour of Lund Quay, built in 1850."],
        ["Brenna"],
        "Lund Quay",
    ),
    (
        "city where the Marren Gallery is located",
        "LOCATION",
        ["The Marren Gallery is an art museum in Dovreby, Halland Province, Kestria."],
        ["Marren Gallery"],
        "Dovreby",
    ),
    (
        "province where the Marren Gallery is located",
        "LOCATION",
        ["The Marren Gallery is an art museum in Dovreby, Halland Province, Kestria."],
        ["Marren Gallery"],
        "Halland Province",
    ),
    (
        "country where the Marren Gallery is located",
        "LOCATION",
        ["The Marren Gallery is an art museum in Dovreby, Halland, Kestria."],
        ["Marren Gallery"],
        "Kestria",
    ),
    (
        "state where Tollby Bridge is located",
        "LOCATION",
        ["Tollby Bridge crosses the Osk near Varn, Westmark. It opened in 1911."],
        ["Tollby Bridge"],
        "Westmark",
    ),
    (
        "Where was Ada Lind born",
        "LOCATION",
        ["Ada Lind was born in Varkholm, a fishing port. She later moved to Brenna."],
        ["Ada Lind"],
        "Varkholm",
    ),
    (
        "When was Ada Lind born",
        "DATE",
        ["Ada Lind (3 May 1931 – 9 June 2004) was a chemist who taught in Brenna from 1960."],
        ["Ada Lind"],
        "3 May 1931",
    ),
    (
        "When did Ada Lind die",
        "DATE",
        ["Ada Lind (3 May 1931 – 9 June 2004) was a chemist who taught in Brenna from 1960."],
        ["Ada Lind"],
        "9 June 2004",
    ),
    (
        "Who founded Corvel Instruments",
        "PERSON",
        [
            "Corvel Instruments was founded in 1972 by Piet Harmsen, an engineer from Oude Brug.",
            "Its current chief executive is Mara Quist.",
        ],
        ["Corvel Instruments"],
        "Piet Harmsen",
    ),
    (
        "How many people live in Varkholm",
        "NUMBER",
        ["Varkholm is a port town founded in 1412. It has a population of 48,300."],
        ["Varkholm"],
        "48,300",
    ),
    (
        "river that runs through Brenna",
        "LOCATION",
        ["Brenna lies in the Osk valley. The River Osk runs through the old town from Dalby."],
        ["Brenna"],
        "River Osk",
    ),
    (
        "Who directed The Salt Road",
        "PERSON",
        ["The Salt Road is a 1998 drama film directed by Ines Valder and produced by Ola Berg."],
        ["The Salt Road"],
        "Ines Valder",
    ),
    (
        "Who was the guitarist of The Gray Tides",
        "PERSON",
        ["The Gray Tides were a band from Dalby: singer Tom Reyes and guitarist Lee Marr."],
        ["The Gray Tides"],
        "Lee Marr",
    ),
    (
        "Which company did Mara Quist join",
        "ORGANIZATION",
        ["In 2001 Mara Quist joined Halden Optics as head of research, leaving Brenna."],
        ["Mara Quist"],
        "Halden Optics",
    ),
    (
        "Who was the first president of the Osk Society",
        "PERSON",
        [
            "The founding of the society followed a lecture by G. Harold Venn in 1880. Venn, who "
            "was the first president of the Osk Society, wrote on river fish."
        ],
        ["Osk Society"],
        "G. Harold Venn",
    ),
    (
        "青岚乐队的吉他手是谁",
        "PERSON",
        ["青岚乐队成立于2004年，成员有主唱林墨、吉他手何北川和鼓手程远。"],
        ["青岚乐队"],
        "何北川",
    ),
    (
        "白河发源于哪里",
        "LOCATION",
        ["白河是省内第二长河，它发源于雁岭山北麓，向东流经松城、柳城，注入东海。"],
        ["白河"],
        "雁岭山",
    ),
    (
        "方静远出生于哪一年",
        "DATE",
        ["方静远，物理学家，1931年4月生，2009年在松城逝世。"],
        ["方静远"],
        "1931年4月",
    ),
    # An address names the place by its last, smallest unit; a name before a year counted in
    # Chinese numerals is an era, no place.
    (
        "戚砚秋出生在哪里",
        "LOCATION",
        ["戚砚秋，字子墨，松城县柳溪镇人，咸丰元年（1851年）生。"],
        ["戚砚秋"],
        "柳溪镇",
    ),
    (
        "戚砚秋出生在哪里",
        "LOCATION",
        [
            "戚砚秋，女，光绪十七年（1891年）生于松城县柳溪镇。",
            "她后来在松城县城教书，松城县的藏书楼也由她整理。",
        ],
        ["戚砚秋"],
        "柳溪镇",
    ),
    (
        "戚砚秋出生在哪里",
        "LOCATION",
        ["戚砚秋，字子墨，咸丰元年（1851年）生于苕东镇。"],
        ["戚砚秋"],
        "苕东镇",
    ),
    (
        "方静远在哪一年去世",
        "DATE",
        ["方静远，物理学家，1931年4月生，2009年在松城逝世。"],
        ["方静远"],
        "2009年",
    ),
    (
        "《远山》获得过什么文学奖",
        "NAME",
        ["长篇小说《远山》出版于1996年，次年获得白鹭文学奖，作者林墨因此成名。"],
        ["远山"],
        "白鹭文学奖",
    ),
    (
        "松城大学的校长是谁",
        "PERSON",
        ["松城大学创办于1902年。现任校长为欧阳明哲，2015年上任。"],
        ["松城大学"],
        "欧阳明哲",
    ),
    (
        "《远山》改编自哪部小说",
        "NAME",
        ["电影《远山》由程远执导，改编自林墨的小说《北渡》。"],
        ["远山"],
        "北渡",
    ),
    (
        "林墨曾就读的大学",
        "ORGANIZATION",
        ["林墨本科就读于松城大学中文系，毕业后在报社工作，后来移居柳城。"],
        ["林墨"],
        "松城大学",
    ),
    (
        "松城的常住人口有多少",
        "NUMBER",
        ["松城位于白河下游，常住人口约286万，是省内第二大城市。"],
        ["松城"],
        "286万",
    ),
    (
        "青岚乐队是在哪座城市成立的",
        "LOCATION",
        ["青岚乐队2004年成立于柳城，2010年签约白鹭唱片。"],
        ["青岚乐队"],
        "柳城",
    ),
    # The asked noun's size on the address scale: a country is none of the districts.
    (
        "country where the Varn River is found",
        "LOCATION",
        [
            "The Varn River is a tributary of the Osk River in Tollby District and Marka District, Kestria."
        ],
        ["Varn River"],
        "Kestria",
    ),
    # A class noun after the name places it: "Marelia state".
    (
        "state where Ostby is located",
        "LOCATION",
        ["Ostby is a small village in Varn district, Kovan, Marelia state, Kestria."],
        ["Ostby"],
        "Marelia",
    ),
    # Votes come from passages about the subject, not from its neighbours' passages.
    (
        "county in which Dovreby, Westmark is located",
        "LOCATION",
        [
            "Dovreby is a village in Harlan County, Westmark, Kestria.",
            "Tollby is a village in Orne County, Westmark, Kestria.",
            "Varby is a village in Pell County, Westmark, Kestria.",
            "Ostby is a village in Linn County, Westmark, Kestria.",
        ],
        ["Dovreby, Westmark"],
        "Harlan County",
    ),
    # A name that carries the asked noun first or last is of its class ("River Tallow").
    (
        "river that runs through Merrowick",
        "LOCATION",
        [
            "Locks were built between Merrowick and Tollmere in the 1780s.",
            "The River Tallow flows through Merrowick to the sea; Tollmere lies upstream.",
        ],
        ["Merrowick"],
        "River Tallow",
    ),
    # A Chinese comma clause holds its verb's arguments: the year of 创建 is in its clause.
    (
        "柳城大学创建于哪一年",
        "DATE",
        ["学校前身为柳城学堂，1902年由地方士绅集资创建，最初只设两科。1928年改名为柳城大学。"],
        ["柳城大学"],
        "1902年",
    ),
    # A measure is answered with its unit; an ordinal rank is no quantity.
    (
        "How long is the River Tallow",
        "NUMBER",
        ["The River Tallow, ranked 35th in length, runs 214 kilometres from Greyfell Tor."],
        ["River Tallow"],
        "214 kilometres",
    ),
    (
        "What is the population of Varn",
        "NUMBER",
        ["Varn Population Ranked 35th Total 2,913,123 (2017 est.)"],
        ["Varn"],
        "2,913,123",
    ),
    # A count is a bare whole number: not a measure with a unit, not a decimal.
    (
        "What is the population of Ostmark",
        "NUMBER",
        ["Ostmark Longitude 94 ° W to 102 ° W Population Ranked 35th Total 912,000 (2017 est.)"],
        ["Ostmark"],
        "912,000",
    ),
    (
        "How many districts does Ostmark have",
        "NUMBER",
        ["Ostmark districts average 2.5 towns each; there are 11 in all."],
        ["Ostmark"],
        "11",
    ),
    # A name the text calls a state is a place, above a country named beside it.
    (
        "state where Ostby is located",
        "LOCATION",
        ["Ostby is a small village in Marl district, Westmark state, Kestria."],
        ["Ostby"],
        "Westmark",
    ),
    # A capitalised first word that the evidence writes in lower case elsewhere is no name.
    (
        "Who founded Brenna Mills",
        "PERSON",
        [
            "Founders of Brenna Mills were honoured in 1990. The mill's founders included "
            "Oskar Lind, who founded Brenna Mills in 1871."
        ],
        ["Brenna Mills"],
        "Oskar Lind",
    ),
    # A lower-case particle opens a name ("de", "van"): it stays with the name it opens.
    (
        "Which foundry did Orvella Dane cast bells for",
        "ORGANIZATION",
        [
            "From 1902 Orvella Dane cast bells for de Ruyter Foundry in the river quarter of Kestrow."
        ],
        ["Orvella Dane"],
        "de Ruyter Foundry",
    ),
    (
        "Which company bought Sallow Brook Dairy",
        "ORGANIZATION",
        ["In 1931 Sallow Brook Dairy was bought by van Hennet Foods, a grocer's chain."],
        ["Sallow Brook Dairy"],
        "van Hennet Foods",
    ),
    # An appositive after a name says what it is: "Corvell Iskarn, a shipowner".
    (
        "Who is the shipowner who funded the Lanthorn Cup",
        "PERSON",
        [
            "Corvell Iskarn, a shipowner from Kestrow, funded the Lanthorn Cup in 1911 for "
            "rowing crews of the estuary.",
            "| Year | Award | Winner |\n|---|---|---|\n| 1911 | Lanthorn Cup | Mirela Stanwyck |",
        ],
        ["Lanthorn Cup"],
        "Corvell Iskarn",
    ),
]


@pytest.mark.parametrize(
    ("sentence", "word", "kind", "modifier"),
    [
        ("Ilse Varga was a Kestrian painter.", "Kestrian", "LOCATION", True),
        ("He was the Dovrian ambassador in Varn.", "Dovrian", "LOCATION", True),
        ("She was Kestrian.", "Kestrian", "NAME", True),  # a predicate adjective
        ("the Norwegian-born conductor", "Norwegian-born", "NAME", True),
        ("a Norwegian-born and Kestrian-trained conductor", "Norwegian-born", "NAME", True),
        ("Japan is an island country.", "Japan", "NAME", False),  # a function word follows
        ("Trade with Japan and Korea grew.", "Japan", "NAME", False),
        ("He moved to Japan in 1990.", "Japan", "LOCATION", False),
        ("He played for the Japan national team.", "Japan", "LOCATION", True),
        ("Oskar Lind was a Kestria resident.", "Kestria", "LOCATION", False),  # no ending
        ("He worked in Milan with Varga.", "Milan", "LOCATION", False),  # no article before
        # A demonym's own ending needs no article before the noun it modifies.
        ("It changed Kestrian industry for good.", "Kestrian", "LOCATION", True),
        ("Dovrese settlers came later.", "Dovrese", "LOCATION", True),
        ("He sailed to Vellish in 1990.", "Vellish", "LOCATION", False),  # a function word
        ("Adrian wrote the score.", "Adrian", "PERSON", False),  # a person, not a place
        # Two or three capitalised words, the last with the ending, between an article
        # and a lower-case noun.
        ("Orla Venn is a Northern Kestrian actor.", "Northern Kestrian", "NAME", True),
        ("She joined the South Dovrian team.", "South Dovrian", "LOCATION", True),
        ("Port Vellian is a town on the coast.", "Port Vellian", "LOCATION", False),
        ("He moved to New Dovrian in 1990.", "New Dovrian", "LOCATION", False),
        ("the Upper Vell Kestrian Rowing Club", "Upper Vell Kestrian", "NAME", False),
    ],
)
def test_adjectives_are_no_names(sentence: str, word: str, kind: str, modifier: bool) -> None:
    a = sentence.index(word)
    assert _attributive(sentence, a, a + len(word), word, kind) is modifier


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("Kestrian", "many middle-class Kestrians could afford one", []),  # a longer word
        ("Ford", "Fordism spread", []),
        ("Vell", "Vellish towns on the Vell", ["Vell"]),
        ("Varn", "a Varn-based firm", ["Varn"]),  # a hyphen still ends the name
        ("Ford", "Ford's plant at Varn", ["Ford"]),
        ("Ford", "Ford and Fordism", ["Ford"]),
        ("Ford", "(Ford)", ["Ford"]),
        ("岑川", "岑川中学建于1956年", ["岑川"]),  # Chinese words touch without spaces
        ("锦帆传媒", "该报隶属于锦帆传媒", ["锦帆传媒"]),
    ],
)
def test_an_alphabetic_name_is_found_only_as_whole_words(
    name: str, text: str, found: list[str]
) -> None:
    assert [text[a:b] for a, b in _name_occurrences(name, text)] == found


@pytest.mark.parametrize(
    ("noun", "text", "names"),
    [
        ("town", "Harwick was a small port town.", {"harwick"}),
        ("merchant", "It was endowed by Orm Vell, a salt merchant.", {"orm vell"}),
        # a bracket between the name and its copula keeps the definition
        (
            "airport",
            "Karsby Regional Airport (IATA: KRB, ICAO: KKRB) is a public airport near Karsby.",
            {"karsby regional airport"},
        ),
        ("merchant", "Orm Vell (1801–1877) was a salt merchant of Varn.", {"orm vell"}),
        ("airport", "Karsby (pop. 4,000) lies near an old airport.", set()),
    ],
)
def test_names_a_text_defines_as_a_noun(noun: str, text: str, names: set[str]) -> None:
    assert _defined_as(noun, [text]) == names


@pytest.mark.parametrize(
    ("sentence", "name", "gender"),
    [
        ("In 1991 he married Ada Moe, an actress, in Varn.", "Ada Moe", "f"),
        ("Orm Vell, her husband, died in 1950.", "Orm Vell", "m"),
        ("Ada Moe, his second wife, survived him.", "Ada Moe", "f"),
        ("Orm Vell, the Duke of Varn, built it.", "Orm Vell", "m"),
        ("Ada Moe, an heiress to the fortune, paid.", "Ada Moe", "f"),
        ("Orm Vell, a witness, spoke.", "Orm Vell", None),  # -ness is no woman
        ("Varn, a fortress town in Osk", "Varn", None),  # the noun is "town"
        ("Orm Vell was born in Varn.", "Orm Vell", None),
    ],
)
def test_the_gender_an_appositive_gives_a_name(
    sentence: str, name: str, gender: str | None
) -> None:
    a = sentence.index(name)
    assert _appositive_gender(sentence, a + len(name)) == gender


@pytest.mark.parametrize(
    ("sentence", "name", "adjunct"),
    [
        ("with the backing of two Castlemere shipowners, he set up a firm", "Castlemere", True),
        ("Several Varn merchants signed it.", "Varn", True),
        ("He met two Varn men in Osk.", "Varn", False),  # "men": no plural in -s
        ("with two Varn shipowners' money", "Varn", True),
        ("He was born in Varn in 1802.", "Varn", False),
        ("Two of them came from Varn.", "Varn", False),
        ("the two Varn Bay boats", "Varn Bay", True),
    ],
)
def test_a_name_between_a_count_and_a_plural_noun_classes_it(
    sentence: str, name: str, adjunct: bool
) -> None:
    a = sentence.index(name)
    assert _noun_adjunct(sentence, a, a + len(name)) is adjunct


@pytest.mark.parametrize(
    ("sentence", "name", "person"),
    [
        (
            "It was established in 1838 by Orm Vell, a former chief clerk at the mill.",
            "Orm Vell",
            True,
        ),
        ("It was bought by Ada Moe, a salt merchant of Varn.", "Ada Moe", True),
        ("He moved to Varn, a small port town.", "Varn", False),
        ("It was sold to Osk Labs, a maker of sensors.", "Osk Labs", False),
        ("He worked for the Varn Gazette, a weekly paper.", "Varn Gazette", False),
    ],
)
def test_an_appositive_person_noun_makes_a_name_a_persons(
    sentence: str, name: str, person: bool
) -> None:
    a = sentence.index(name)
    assert _person_appositive(sentence, a, a + len(name)) is person


@pytest.mark.parametrize(
    ("terms", "sentence", "said"),
    [
        ({"收购"}, "2012年，萱湾数据买下了苇川软件。", {"收购"}),
        ({"创办"}, "该厂1950年由周岚创建。", {"创办"}),
        ({"创办", "银行"}, "周岚开办了一家钱庄。", {"创办"}),
        ({"迁往"}, "1930年报社搬到汀泽镇。", {"迁往"}),
        ({"收购"}, "2012年，萱湾数据收购了苇川软件。", set()),  # the verb itself: matched as such
        ({"收购"}, "2012年，萱湾数据创办了苇川软件。", set()),  # another relation
        ({"毕业"}, "周岚1950年就读于汀泽中学。", set()),  # no group
        ({"建成"}, "岛顶的白色灯塔建于1893年。", {"建成"}),
        ({"建成"}, "这座桥1958年落成通车。", {"建成"}),
    ],
)
def test_a_chinese_relation_said_with_another_verb_of_its_group(
    terms: set[str], sentence: str, said: set[str]
) -> None:
    assert _zh_said_otherwise(terms, sentence) == said


@pytest.mark.parametrize(
    ("query", "texts", "linked", "answer"),
    [
        # the verb asked is said with another of its group, and the value stands by that verb,
        # not by a date nearer the name in a sentence that says nothing of it
        (
            "牛角屿灯塔建成于哪一年",
            [
                "灯塔早年由外籍雇员看守。1962年，他把灯塔交给了儿子邝继潮，1975年去世。",
                "牛角屿位于鹳澳岛以东约三海里。岛顶的白色圆柱形灯塔建于1893年，塔高14米。",
            ],
            "牛角屿灯塔",
            "1893年",
        ),
        (
            "苇川软件是哪一年被收购的",
            [
                "苇川软件的创始人周岚2010年离开公司，2015年退休。",
                "萱湾数据是一家数据公司，在2012年买下了苇川软件的全部股份。",
            ],
            "苇川软件",
            "2012年",
        ),
        # a clause of time (建成后, after it was built) dates something else
        (
            "青岫水库哪一年竣工",
            [
                "青岫水库建成后先由县水利局管理，1983年起移交流域管理局。",
                "青岫水库工程于一九五八年动工，一九六二年竣工蓄水。",
            ],
            "青岫水库",
            "一九六二年",
        ),
    ],
)
def test_a_chinese_value_stands_by_the_verb_said_otherwise(
    query: str, texts: list[str], linked: str, answer: str
) -> None:
    best, _ = read_evidence(query, "DATE", _ev(*texts, doc="d0"), _linked(linked))
    assert best is not None and best.text == answer, best


@pytest.mark.parametrize(
    ("head", "expected", "place"),
    [
        ("place", "LOCATION", "city"),  # "the place of birth of X"
        ("", "LOCATION", "city"),  # "Where was X born"
        ("birthplace", "LOCATION", "city"),
        ("town", "LOCATION", "town"),
        ("country", "LOCATION", "country"),
        ("place", "NUMBER", "place"),  # "what place did she finish in"
    ],
)
def test_the_place_an_address_answers(head: str, expected: AnswerType, place: str) -> None:
    assert _place_head(head, expected) == place


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Marsh was born in Kessford.", True),
        ("In 2008 Marsh left Harlow Dynamics.", True),
        ("Then Marsh returned.", True),  # a sentence-initial function word
        ("Clara Marsh lives in Ashgrave.", False),  # another person of that name
        ("the Marsh Foundation for Coastal Research", False),  # a name it begins
        ("G. Marsh said so.", False),
    ],
)
def test_a_person_goes_by_the_surname_after_the_first_mention(text: str, named: bool) -> None:
    assert _by_surname(text, "Marsh") is named


def test_surname_mentions_make_a_passage_about_the_subject() -> None:
    texts = [
        "The sonar fair was born in Brantley, a market town on the River Osk.",
        "Varley was born in Kessford, a market town on the River Quell.",
    ]
    linked = _linked("Edwin Varley", type="PERSON")
    best, _ = read_evidence("birthplace of Edwin Varley", "LOCATION", _ev(*texts), linked)
    assert best is not None and best.text == "Kessford"


@pytest.mark.parametrize(
    ("name", "texts", "size"),
    [
        ("Tollby District", [], 1 / 3),  # the name carries its class
        ("Eastern Region of Kestria", [], 2 / 3),  # … before "of" the larger place
        ("Kestria", ["Kestria is a landlocked country in the north."], 1.0),
        ("Kestria", ["Kestria, officially the Republic of Kestria, is a country."], 1.0),
        ("Dovreby", ["It lies in the city of Dovreby, Kestria."], 0.0),
        ("Marelia", ["a village in Marelia state, Kestria"], 2 / 3),
        ("Westmark", ["Varn, Westmark, Kestria", "Ostby, Westmark"], 0.75),  # addresses
        ("Osk", ["Osk is a river in Kestria."], None),  # no place class, in no address
    ],
)
def test_place_size_from_how_the_corpus_uses_a_name(
    name: str, texts: list[str], size: float | None
) -> None:
    got = place_size(name, texts)
    assert got == pytest.approx(size) if size is not None else got is None


@pytest.mark.parametrize(("query", "kind", "texts", "linked", "answer"), CASES)
def test_reader_finds_whole_typed_mentions(
    query: str, kind: AnswerType, texts: list[str], linked: list[str], answer: str
) -> None:
    best, overlap = read_evidence(query, kind, _ev(*texts), _linked(*linked))
    assert best is not None and best.text.removeprefix("The ") == answer
    assert overlap > 0


ZH_ROLES: list[tuple[str, AnswerType, list[str], list[str], str]] = [
    # "X是谁创立的" asks the founder, not a word after another noun of X's name (起家).
    (
        "鹭川瓷业集团是谁创立的",
        "PERSON",
        ["鹭川瓷业集团由唐振远于1981年创立，总部设在苇城，以卫浴陶瓷起家，现有员工两千人。"],
        ["鹭川"],
        "唐振远",
    ),
    # A Chinese relative clause: the asked noun is the verb's agent (verb before the name) or
    # its object / other party (verb after the name); the construction of the sentence says
    # which name fills that role.
    (
        "收购蓝海食品的公司",
        "ORGANIZATION",
        [
            "蓝海食品创立于1998年，总部在江城。1999年，蓝海食品搬到了河口市的工业园。",
            "收购前，蓝海食品与江南实业公司合作多年。2012年，蓝海食品被华丰集团收购。",
        ],
        ["蓝海食品"],
        "华丰集团",
    ),
    (
        "收购蓝海食品的公司",
        "ORGANIZATION",
        ["2012年，华丰集团收购了位于河口市的蓝海食品。"],
        ["蓝海食品"],
        "华丰集团",
    ),
    (
        "收购蓝海食品的公司",
        "ORGANIZATION",
        ["蓝海食品收购了华丰集团的饮料工厂。", "2015年，蓝海食品被江南实业收购。"],
        ["蓝海食品"],
        "江南实业",
    ),
    # The name in the agent's slot is the company the clause asks for, even where its own
    # words carry no organisation suffix and an organisation elsewhere shares the passage.
    (
        "收购蓝海食品的公司",
        "ORGANIZATION",
        [
            "蓝海食品于2001年创办于河口市。公司最初设在河口大学科技园内，蓝海食品只有六名员工。",
            "蓝海食品是河口大学孵化的公司之一。",
            "2007年，蓝海食品被奔腾光电收购，成为其全资子公司。",
        ],
        ["蓝海食品"],
        "奔腾光电",
    ),
    (
        "收购蓝海食品的公司",
        "ORGANIZATION",
        [
            "蓝海食品公司最初设在河口大学科技园内。蓝海食品是河口大学孵化的公司。",
            "2012年，蓝海食品被远帆万象收购，成为其子公司。",
        ],
        ["蓝海食品"],
        "远帆万象",
    ),
    (
        "白鹭合唱团签约的唱片公司",
        "ORGANIZATION",
        ["白鹭合唱团成立于江城。2010年，合唱团与金帆唱片签约，次年在河口市发行首张专辑。"],
        ["白鹭合唱团"],
        "金帆唱片",
    ),
    (
        "创办北辰软件的人",
        "PERSON",
        ["北辰软件的总经理是周明。北辰软件由林远舟于1995年创办。"],
        ["北辰软件"],
        "林远舟",
    ),
]


# -- constructions that say which name or value the step asks for -------------------------


CONSTRUCTIONS: list[tuple[str, AnswerType, list[str], list[str], str]] = [
    # An agent noun made from a verb (创办人, 设计者) asks for that verb's agent: between 由
    # and the verb, or before it with the subject (or 这家/该 + noun for it) after it.
    (
        "萱湾书局的创办人",
        "PERSON",
        [
            "萱湾书局设在芦沙镇北街，1911年由郗岚创办，主要刊印地方志和医书。蓼川的书商樊绮"
            "常来进货。"
        ],
        ["萱湾书局"],
        "郗岚",
    ),
    (
        "栾岭船行是由谁创办的",
        "PERSON",
        ["栾岭船行经营内河客运，总行在蓼川。1927年，船主严墨棠创办了这间船行。"],
        ["栾岭船行"],
        "严墨棠",
    ),
    # An English relative clause: "the company that acquired X" asks for the agent of
    # "X was acquired by Y" / "Y acquired X", never the company X acquired itself.
    (
        "company that acquired Grey Tide Foods",
        "ORGANIZATION",
        [
            "In 2010 Grey Tide Foods acquired Lund Bakeries, a family firm.",
            "In 2004 Grey Tide Foods was acquired by Holm Industries, its largest customer.",
        ],
        ["Grey Tide Foods"],
        "Holm Industries",
    ),
    # ... and "the company (that was) bought by X" asks for the patient.
    (
        "company that was bought by Holm Industries in 2004",
        "ORGANIZATION",
        [
            "In 2004 Holm Industries was bought by Varn Capital, which kept the name.",
            "The same year Holm Industries bought Grey Tide Foods.",
        ],
        ["Holm Industries"],
        "Grey Tide Foods",
    ),
    # The subject of a Chinese clause that ends in the asked role noun holds the role; a name
    # in a modifier before it (周明执导的) does not.
    (
        "《晚潮》的女主角",
        "PERSON",
        [
            "2001年，她在周明执导的《晚潮》中担任女主角。",
            "《晚潮》由周明执导，林秋在片中饰演女主角，英国演员Tom Hale饰演男主角。",
        ],
        ["晚潮"],
        "林秋",
    ),
    # "the latter" (后者) points past the subject: its value is the other entity's.
    (
        "云江足球俱乐部成立于哪一年",
        "DATE",
        [
            "俱乐部的同城对手是云江海燕足球俱乐部，后者成立于1960年。",
            "云江足球俱乐部是一家职业足球俱乐部。俱乐部于1952年成立，最初由码头工人组建。",
        ],
        ["云江足球俱乐部"],
        "1952年",
    ),
    (
        "When was Grey Tide Athletic founded",
        "DATE",
        [
            "Grey Tide Athletic's rival is Grey Tide Rovers; the latter was founded in 1923.",
            "Grey Tide Athletic is a football club. It was founded in 1911 by dock workers.",
        ],
        ["Grey Tide Athletic"],
        "1911",
    ),
    # 哪座城市 asks for the 市, not the district inside it.
    (
        "晨星唱片的总部设在哪座城市",
        "LOCATION",
        ["晨星唱片是一家独立唱片公司，总部位于江城市老城区的一座旧厂房内。"],
        ["晨星唱片"],
        "江城市",
    ),
    # "What time" asks for a time of day, not a date.
    (
        "What time does the Lund market close",
        "DATE",
        ["The Lund market opened in May 2017 and now closes at 3 a.m. on Saturdays."],
        ["Lund market"],
        "3 a.m",
    ),
    # A name ending in the asked noun is made of nominal words: a verb before the noun is
    # its governing verb (担任女主角), a verb further in is part of the name (澄明/v); this
    # row guards the second half (the old reader read it right too).
    (
        "周明创建了哪个实验室",
        "NAME",
        ["1985年，周明创建了澄明光学实验室，并担任主任。"],
        ["周明"],
        "澄明光学实验室",
    ),
    # A name in brackets beside the subject is the subject again, not who founded it.
    (
        "鹊桥唱片是由谁创立的",
        "PERSON",
        ["鹊桥唱片（Magpie Records）是一家独立唱片公司，2001年由电台主持人祁朔创立于蔺溪市。"],
        ["鹊桥唱片"],
        "祁朔",
    ),
    (
        "Who founded Harrow Lane Press",
        "PERSON",
        ["Harrow Lane Press (Harrow Lane) was founded in 1931 by the printer Edda Voss."],
        ["Harrow Lane Press"],
        "Edda Voss",
    ),
    # The relative clause of an appositive says it of the name before the comma.
    (
        "Where was Juno Pell born",
        "LOCATION",
        [
            "Juno Pell (born 1982) is a singer. She grew up in Ebbsworth, the coastal town "
            "where she was born, and moved to Tallbridge at eighteen to study voice."
        ],
        ["Juno Pell"],
        "Ebbsworth",
    ),
    # A year in brackets after a title dates it: the title is no gloss of a linked year.
    (
        "Which album did The Brass Lanterns release in 2011",
        "NAME",
        [
            "The band signed with Harbour Records in 2006. Their debut, Salt Roads (2008), was "
            "recorded in a week. The second album, Salt Meridian (2011), reached number two in "
            "the national chart.",
            "The band took a break from 2013 to 2015 and returned with a third album, Quiet "
            "Years, in 2016.",
        ],
        ["Brass Lanterns", "2011"],
        "Salt Meridian",
    ),
    # ... and a Latin gloss of a Chinese name is that name, which answers itself.
    (
        "白帆乐队的吉他手是谁",
        "PERSON",
        ["白帆乐队的创始成员为主唱韦川和吉他手彼得·韦恩（Peter Wayne）。"],
        ["白帆乐队"],
        "彼得·韦恩",
    ),
    # A bracket of other names right after a linked name glosses it: no answer about it.
    (
        "performer of Velmora",
        "ORGANIZATION",
        ["Velmora (Вельмора, Wildfire) - is a studio album by Kessa released in 2005."],
        ["Velmora"],
        "Kessa",
    ),
    # The object of the birth verb is the birthplace; the sentence's other places and a
    # place said of another person (her brother) are not.
    (
        "闻人素出生在哪里",
        "LOCATION",
        [
            "闻人素是一位作家。1949年，她生于上蕨溪村——一个位于岑川镇北面山坡上的小村子。"
            "四年后全家搬到山下的岑川镇，她的弟弟闻人朗便出生在镇上。"
        ],
        ["闻人素"],
        "上蕨溪村",
    ),
    # A title that carries the asked noun answers "X的周末版" although it repeats X.
    (
        "栎川评论的周末版",
        "NAME",
        ["2001年，编辑部另行创办了《栎川评论·周末版》，以书评和随笔为主，每周六出版。"],
        ["栎川评论"],
        "栎川评论·周末版",
    ),
    # A classifier after a number makes it a count, even one that looks like a year.
    (
        "柳岸医院有多少张床位",
        "NUMBER",
        ["柳岸医院创办于1921年，现有床位1200张。"],
        ["柳岸医院"],
        "1200张",
    ),
    (
        "岑川中学有多少名学生",
        "NUMBER",
        ["岑川中学建于1956年，现有学生1800名，教师120名。"],
        ["岑川中学"],
        "1800名",
    ),
    # A birthplace, or where someone was born or died, is the most specific place of an
    # address ("from Karsby, Veltland"), not the address as a whole.
    (
        "birthplace of Oda Venn",
        "LOCATION",
        ["Oda Venn (born 3 May 1960) is a former wrestler from Karsby, Veltland."],
        ["Oda Venn"],
        "Karsby",
    ),
    # A sentence naming a near-namesake (a word more or fewer between the same first and
    # last word) and not the subject speaks of the other thing.
    (
        "When was Varn Vale Bell Foundry founded",
        "DATE",
        [
            "The Varn Bell Foundry was founded in 1762 by Orm Vell, a brazier of Varn.",
            "In 1839 Ada Moe set up the Varn Vale Bell Foundry on the south bank.",
        ],
        ["Varn Vale Bell Foundry"],
        "1839",
    ),
    (
        "When did Tessick Mill open",
        "DATE",
        [
            "Tessick Low Mill opened in 1788 on the lower weir.",
            "Tessick Mill, the older of the two, began work in 1761.",
        ],
        ["Tessick Mill"],
        "1761",
    ),
    # A person's full name with the years of the life after it is the same person.
    (
        "When was Orm Vell born",
        "DATE",
        [
            "Orm Tobias Vell (7 March 1934 – 12 July 1995) was a Kestrian film director.",
            "It was followed by a sequel (1966).",
        ],
        ["Orm Vell"],
        "7 March 1934",
    ),
    # ... only as the sentence's subject: a namesake later in it is another participant.
    (
        "In which year was the Varn Bay Salt Company wound up",
        "DATE",
        [
            "From 1838 the firm had a rival in the Varn Bay Salt Company.",
            "The company was wound up in 1889, and its pans were sold to the Varn Salt Company.",
        ],
        ["Varn Bay Salt Company"],
        "1889",
    ),
    # A Chinese verb of the same relation answers the step's: 买下 for 收购, 创建 for 创办.
    (
        "收购苇川软件的公司是哪家",
        "ORGANIZATION",
        [
            "2012年，萱湾数据公司买下了苇川软件，交易金额约为三亿元。",
            "在汀泽印刷公司的撮合下，收购苇川软件一事一度传得沸沸扬扬。",
        ],
        ["苇川软件"],
        "萱湾数据公司",
    ),
    # "the place of birth" is a birthplace: the bare noun "place" asks for the town.
    (
        "What is the place of birth of Oda Venn",
        "LOCATION",
        ["Oda Venn (born 3 May 1960) is a former wrestler from Karsby, Veltland."],
        ["Oda Venn"],
        "Karsby",
    ),
    (
        "Where is Osk Labs headquartered",
        "LOCATION",
        ["Osk Labs is a maker of sensors. It is headquartered in Karsby, Veltland."],
        ["Osk Labs"],
        "Karsby",
    ),
    (
        "Where did Oda Venn die",
        "LOCATION",
        ["Oda Venn (3 May 1960 – 4 June 2001) was a wrestler. He died in Karsby, Veltland."],
        ["Oda Venn"],
        "Karsby",
    ),
    # A place named as a landmark ("12 km from X", "north of the border with X") does not
    # hold the subject.
    (
        "country of Tarvik",
        "LOCATION",
        ["Tarvik is a hill village in Veltland, 12 km from Osklund.", "Osklund lies below Tarvik."],
        ["Tarvik"],
        "Veltland",
    ),
    # A name carrying an institution's noun is no city, whatever preposition leads to it.
    (
        "city where Oda Venn was born",
        "LOCATION",
        ["Oda Venn was born at Tollby General Hospital near Karsby."],
        ["Oda Venn"],
        "Karsby",
    ),
    (
        "city where Oda Venn was born",
        "LOCATION",
        [
            "Oda Venn was a Veltish politician.",
            "Oda Venn went to Tollby University in 1950.",
            "Born in Karsby, he studied law.",
        ],
        ["Oda Venn"],
        "Karsby",
    ),
    # Kin nouns and titles carry a gender: "the father of X" is not "Lady …".
    (
        "Who is the father of Halvek Bredvik",
        "PERSON",
        [
            "Halvek Bredvik is an actor. His mother, Lady Maudra Bredvik, raised him in Karsby.",
            "His father was the pilot Ostryn Bredvik.",
        ],
        ["Halvek Bredvik"],
        "Ostryn Bredvik",
    ),
    # A bracket after a name qualifies it: the names inside may answer the step.
    (
        "performer of Hollow Bells (Ilsa Varn Song)",
        "PERSON",
        [
            '"Hollow Bells" is the second single from singer Ilsa Varn’s debut album. First '
            "recorded by Mara Quell for her album, the song was then given to Ilsa Varn."
        ],
        ["Hollow Bells", "Ilsa Varn"],
        "Ilsa Varn",
    ),
    # The owner of "Ilsa Varn's debut album" is Ilsa Varn, without the "'s".
    (
        "performer of Hollow Bells",
        "PERSON",
        ['"Hollow Bells" is the second single from singer Ilsa Varn’s debut album.'],
        ["Hollow Bells"],
        "Ilsa Varn",
    ),
    # Two full (or titled) names joined by "and" are two people.
    (
        "father of Princess Ylsa",
        "PERSON",
        ["Princess Ylsa (1905–1970) was the daughter of Queen Brisolde and King Ostryn II."],
        ["Princess Ylsa"],
        "King Ostryn II",
    ),
    # An honorific is no part of the name; "A B of the Party" names a person A B.
    (
        "Who is the current opposition leader in Veltland",
        "PERSON",
        [
            "The Leader of Opposition in Veltland is the title of the leader of the largest "
            "party outside government. The current Leader of the Opposition is Hon. Ama "
            "Quell of the Forum for Reform."
        ],
        ["Veltland"],
        "Ama Quell",
    ),
    # An agent noun is made from the verb or noun it does: "drummer" for "plays drums",
    # "director" for "directed", "composer" for "composed", "guitarist" for "the guitar".
    (
        "Who plays drums in The Quill Lamps",
        "PERSON",
        [
            "The Quill Lamps were formed by singer Ada Voss in 1990. Ada Voss wrote the songs, "
            "and the bassist Orm Tell joined at once.",
            "Ada Voss later hired drummer Ilse Varn.",
        ],
        ["Quill Lamps"],
        "Ilse Varn",
    ),
    (
        "Who directed Grey Tide",
        "PERSON",
        [
            "Grey Tide is a 1950 film starring Ada Voss and Orm Bask. Ada Voss won a prize for it.",
            "Its director, Lina Marr, cast Ada Voss after a stage play.",
        ],
        ["Grey Tide"],
        "Lina Marr",
    ),
    (
        "Who composed the music of Grey Tide",
        "PERSON",
        [
            "Grey Tide is a 1950 film starring Ada Voss. Ada Voss sang two songs in it.",
            "The composer Lina Marr wrote them for Ada Voss.",
        ],
        ["Grey Tide"],
        "Lina Marr",
    ),
    (  # and the other way round: "directed by" for "the director of"
        "director of Grey Tide",
        "PERSON",
        [
            "Grey Tide is a 1950 film starring Ada Voss and Orm Bask, with songs by Ada Voss. "
            "Ada Voss later married Orm Bask.",
            "The film was directed by Lina Marr.",
        ],
        ["Grey Tide"],
        "Lina Marr",
    ),
    (
        "Who plays the guitar in Saltmoor",
        "PERSON",
        [
            "Saltmoor is a trio led by Ada Voss, who sings. Ada Voss founded it in 2001 with "
            "guitarist Orm Tell."
        ],
        ["Saltmoor"],
        "Orm Tell",
    ),
    # … but a bracket that names a kinsman says how he is related: he answers no other kin
    # noun ("(Grandson Of Orm Quorvan)" for the father).
    (
        "father of Lucan Quorvan (Grandson Of Orm Quorvan)",
        "PERSON",
        ["Lucan Quorvan was a senator, the son of Iulo Quorvan and a grandson of Orm Quorvan."],
        ["Lucan Quorvan", "Orm Quorvan"],
        "Iulo Quorvan",
    ),
]


READING_RULES: list[tuple[str, AnswerType, list[str], list[str], str]] = [
    # Where someone is from (老家, 故乡, "a native of", "hometown") is where they were born.
    (
        "檀立山的老家是哪个镇",
        "LOCATION",
        [
            "同治七年（1868年），檀立山病逝于芦沙镇，葬于城北。",
            "嘉庆六年（1801年），檀立山生于苇汀镇一户佃农家中，少年时便跟随同乡挑盐贩卖。",
        ],
        ["檀立山"],
        "苇汀镇",
    ),
    (
        "Ivo Tarrant was a native of which village",
        "LOCATION",
        [
            "In 1838 Ivo Tarrant moved to Tansby, where he set up a rope works.",
            "Ivo Tarrant was born in 1802 at Corlby, where his father kept a fishing boat.",
        ],
        ["Ivo Tarrant"],
        "Corlby",
    ),
    (
        "What is the hometown of Ivo Tarrant",
        "LOCATION",
        [
            "In 1838 Ivo Tarrant moved to Tansby, where he set up a rope works.",
            "Ivo Tarrant was born in 1802 at Corlby, where his father kept a fishing boat.",
        ],
        ["Ivo Tarrant"],
        "Corlby",
    ),
    # A Chinese count is answered in the measure word it is asked in, also in Chinese numerals.
    (
        "光绪九年鹤眠井每天能产卤多少担",
        "NUMBER",
        ["光绪九年（1883年），鹤眠井井深已达210丈，每天产卤85担。"],
        ["鹤眠井"],
        "85担",
    ),
    (
        "《渌水杂记》全书分为几卷",
        "NUMBER",
        ["《渌水杂记》刊行于1921年，初印三百部，全书共六卷。"],
        ["渌水杂记"],
        "六卷",
    ),
    (
        "泓记栈有多少名伙计",
        "NUMBER",
        ["泓记栈开设于1902年，店面三间，伙计十二名，掌柜一人。"],
        ["泓记栈"],
        "十二名",
    ),
    # The head noun is an agent noun: the clause asks who did it, not what was done to.
    (
        "鹤鸣寺嘉庆五年那次重修的出资人",
        "PERSON",
        ["嘉庆五年（1800年），鹤鸣寺年久失修，盐商祁敬舟独自出资重修大殿。"],
        ["鹤鸣寺"],
        "祁敬舟",
    ),
    # A name, a copula and a possessive before the asked noun: "Orm Vell remained her mentor".
    (
        "mentor of Ada Moe",
        "PERSON",
        [
            "Ada Moe studied seeds at Kellford with her cousin Ivo Tarrant, and Orm Vell "
            "remained her mentor until his death."
        ],
        ["Ada Moe"],
        "Orm Vell",
    ),
    (
        "owner of the Kell Works",
        "ORGANIZATION",
        ["The Kell Works made bottles for Varn Brewing. In 1901 Harl Glass became its owner."],
        ["Kell Works"],
        "Harl Glass",
    ),
    # A renaming verb gives the new name whole (the segmenter cuts it: 沙汀 + 大戏院).
    (
        "望江戏园在1931年改成了什么名字",
        "NAME",
        ["1931年，望江戏园加装了电灯和座椅，改名为沙汀大戏院，此后也放映电影。"],
        ["望江戏园"],
        "沙汀大戏院",
    ),
    (
        "鸥门书局后来更名为什么",
        "NAME",
        ["鸥门书局创办于1921年，1952年更名为“鸥门人民出版社”，总部仍在鸥门市。"],
        ["鸥门书局"],
        "鸥门人民出版社",
    ),
    # 该 + a noun refers back: the name it stands for answers, never the anaphor.
    (
        "沙汀剧社常驻的戏园",
        "NAME",
        ["1893年望江戏园落成以后，沙汀剧社便常驻该园，几乎天天开锣。"],
        ["沙汀剧社"],
        "望江戏园",
    ),
    (
        "祁朔亭任教的学校",
        "ORGANIZATION",
        ["祁朔亭1920年起在鸥门中学任教，此校后来并入鸥门大学。"],
        ["祁朔亭"],
        "鸥门中学",
    ),
    # "N由Y担任" gives the role N to Y.
    (
        "青芷书局的总编辑",
        "PERSON",
        [
            "1930年起，青芷书局的总编辑由邵启明担任，邵启钧则为书局写稿二十多年。",
        ],
        ["青芷书局"],
        "邵启明",
    ),
    (
        "栎川电子的总经理",
        "PERSON",
        ["2015年起，栎川电子的总经理一职由韩柏出任，此前由周明兼任。"],
        ["栎川电子"],
        "韩柏",
    ),
    # The role, the copula, then the name (a class noun may stand before it): the name
    # holds the role, not the one named in the next clause.
    (
        "Who was the first president of the Tessick Institute",
        "PERSON",
        [
            "The Tessick Institute was founded in 1849. Its first president was the dyer Ivo "
            "Quarrie, and Orm Vellby junior, the worsted spinner, was one of its trustees."
        ],
        ["Tessick Institute"],
        "Ivo Quarrie",
    ),
    # A measure is a number with its unit, never a date.
    (
        "What does the tenor bell of Tessick weigh",
        "NUMBER",
        [
            "The tenor bell of Tessick was cast in 1788 and recast in 1843. It weighs 24 "
            "hundredweight and hangs with seven others."
        ],
        ["Tessick"],
        "24 hundredweight",
    ),
    (
        "How tall is the Kell Light",
        "NUMBER",
        [
            "The Kell Light was first lit on 1 October 1872. It is 38 metres high, and 181 steps "
            "lead up to its lantern."
        ],
        ["Kell Light"],
        "38 metres",
    ),
    (
        "How long is the Osk",
        "NUMBER",
        [
            "The Osk rises at Tarn Moss and was canalised in 1790. It is 214 kilometres long and "
            "has 22 locks."
        ],
        ["Osk"],
        "214 kilometres",
    ),
    (
        "How deep is Lake Varn",
        "NUMBER",
        ["Lake Varn was dammed in 1931 and has 12 islands. It is 82 metres deep at its centre."],
        ["Lake Varn"],
        "82 metres",
    ),
    (
        "What is the length of the Holm Bridge",
        "NUMBER",
        ["The Holm Bridge opened in 1902 with 9 arches; its length is 410 metres."],
        ["Holm Bridge"],
        "410 metres",
    ),
    # An event word of the question counts however jieba cuts around it (伞铺开张)
    (
        "泓纪伞铺开张于哪一年",
        "DATE",
        [
            "民国二十四年（1935年），泓纪伞铺因欠账收不回来而歇业，比泓记伞铺还早关了几年。"
            "泓纪伞铺的作坊闲置了两年。",
            "泓纪伞铺在苇汀镇西街，咸丰元年（1851年）开张。",
        ],
        ["泓纪伞铺"],
        "咸丰元年（1851年）",
    ),
    # 病故 says 去世
    (
        "墨棠去世于哪一年",
        "DATE",
        [
            "咸丰元年（1851年），女婿离开墨棠的铺子，墨棠心里颇不痛快。",
            "三年后，即咸丰四年（1854年），墨棠病故于苇汀镇。",
        ],
        ["墨棠"],
        "咸丰四年（1854年）",
    ),
    # "first" written 头一/第一/首/初 before the counted noun: 头一版 is 初版
    (
        "《苇汀杂记》头一版印了多少部",
        "NUMBER",
        [
            "此书初版于1936年，石印200部，分送各学校；1947年再版，改为铅印，印数增至800部，"
            "补入了公会的章程。"
        ],
        ["苇汀杂记"],
        "200部",
    ),
    (
        "《苇汀杂记》第一版印了多少部",
        "NUMBER",
        ["此书再版于1947年，印数增至800部；首版于1936年，石印200部。"],
        ["苇汀杂记"],
        "200部",
    ),
    # 生在 asks the birth as 出生 and 生于 do
    (
        "墨棠生在哪一年",
        "DATE",
        [
            "咸丰元年（1851年），墨棠离开了泓记伞铺，到苇汀镇另开伞铺。",
            "墨棠，嘉庆二十二年生于苇汀村。",
        ],
        ["墨棠"],
        "嘉庆二十二年",
    ),
    # "设董事一人" is a count, no name, wherever the role noun puts it
    (
        "墨棠死后接任苇汀伞业公所董事的人",
        "PERSON",
        [
            "公所设董事一人，由入会铺户公推。第一任董事是泓纪伞铺东家墨棠。光绪六年（1880年）"
            "墨棠去世，泓记伞铺的东家岑望舒接任董事。"
        ],
        ["墨棠", "苇汀伞业公所"],
        "岑望舒",
    ),
    # The measure noun as the wh-word's noun; a sum of money is no measure …
    (
        "What length was the barge called the Tessick Swan",
        "NUMBER",
        [
            "The parish voted £40 toward the Tessick Swan, a barge for the Osk trade.",
            "| Item | Detail | |---|---| | Length | 70 feet | | Crew | 3 |",
        ],
        ["Tessick Swan"],
        "70 feet",
    ),
    (
        "What height was the Kell Light",
        "NUMBER",
        ["The Kell Light cost $900 to build. It stood 38 metres above the quay, with 181 steps."],
        ["Kell Light"],
        "38 metres",
    ),
    # … unless a price is asked.
    (
        "What did the Tessick Swan cost",
        "NUMBER",
        ["The Tessick Swan was 70 feet long and cost £40 when the parish bought her."],
        ["Tessick Swan"],
        "£40",  # a price with its currency
    ),
    # A class noun for the subject ("The hall …") goes on about it, as "It …" does.
    (
        "orchestra that plays at Marlow Hall",
        "ORGANIZATION",
        [
            "Marlow Hall is a concert hall in Dunmere, beside Cobb's Wharf. The hall is the home "
            "of the Dunmere Symphonia, which plays there every winter."
        ],
        ["Marlow Hall"],
        "Dunmere Symphonia",
    ),
    (
        "company that owns the Vell Building",
        "ORGANIZATION",
        [
            "The Vell Building is an office block on Tern Street near Quill Yard. The block is "
            "owned by Harrow Dunn, which bought it in 1990."
        ],
        ["Vell Building"],
        "Harrow Dunn",
    ),
    # Chinese names of the asked class; a given name jieba split from its surname.
    # A name ending in the asked noun is one of that class, whatever the segmenter guessed:
    # the bridge, not the town it stands in.
    (
        "苏世仁主持修建的桥",
        "NAME",
        ["沙汀镇的望云桥由苏世仁主持修建，1883年建成，代替了年年被山洪冲毁的木桥。"],
        ["苏世仁"],
        "望云桥",
    ),
    (
        "柯子平设计的塔",
        "NAME",
        ["1910年，柯子平在霁川县城为县里设计了文峰塔，塔高七层。"],
        ["柯子平"],
        "文峰塔",
    ),
    # … a name of no known type too: the club, not the youth team (队) in the same sentence
    (
        "苏既白执教的俱乐部",
        "ORGANIZATION",
        ["苏既白现任蓼汀雄鹰足球俱乐部主教练，他十二岁进入棠坞青年队。"],
        ["苏既白"],
        "蓼汀雄鹰足球俱乐部",
    ),
    # … but a common phrase ending in the noun is no name of it (全资子公司)
    (
        "蓼汀集团2019年并购的公司",
        "ORGANIZATION",
        ["2019年，蓼汀集团并购了甘棠数据，甘棠数据成为蓼汀集团的全资子公司。"],
        ["蓼汀集团"],
        "甘棠数据",
    ),
    # A lone surname takes a two-character given name jieba read as a verb (谭 + 启明).
    (
        "青芷书局的总编辑",
        "NAME",
        ["1930年起，青芷书局的总编辑由邵启明担任，他主持编辑工作二十多年。"],
        ["青芷书局"],
        "邵启明",
    ),
    # A unit of time with no numeral before it ends a three-character name (岑伯 + 年/m);
    # 年轻 after the name is a word of its own.
    (
        "岑望舒的父亲是谁",
        "PERSON",
        ["岑望舒，光绪二十九年生于澜桥镇。她的父亲岑伯年是澜桥镇的塾师。"],
        ["岑望舒"],
        "岑伯年",
    ),
    (
        "岑望舒的父亲是谁",
        "PERSON",
        ["岑望舒生于澜桥镇。她的父亲岑伯年轻时在镇上教书。"],
        ["岑望舒"],
        "岑伯",
    ),
    # Namesakes and life events decide a person's place.
    # A namesake told apart by a generation word is another person: his birthplace is not
    # the subject's.
    (
        "Where was Orm Vell born",
        "LOCATION",
        [
            "Orm Vell the younger (1869–1944) was a naval architect, the son of the engineer. "
            "He was born in Tarnby, in a house on Tanner Street.",
            "Orm Vell (1838–1901) was a lighthouse engineer. He was born in Hulmby, a village "
            "on the Osk.",
        ],
        ["Orm Vell"],
        "Hulmby",
    ),
    # A quantity dated by an event ("after the gallery went in"): the value the evidence gives
    # after telling of that event.
    (
        "After the gallery went in, how many people could the Orrick Hall seat",
        "NUMBER",
        [
            "When it opened the hall seated 1,800. A gallery was added round three sides in "
            "1897, after which it held 2,400."
        ],
        ["Orrick Hall"],
        "2,400",
    ),
    (
        "How many rooms did the Orrick Hall have once its third floor was added",
        "NUMBER",
        [
            "The hall was built with 148 rooms on two floors. A third floor was added in 1809, "
            "bringing the number of rooms to 214."
        ],
        ["Orrick Hall"],
        "214",
    ),
    # A life event asked by its noun: a date another verb of the sentence dates is not it.
    (
        "What year saw the death of Ivo Tarrant",
        "DATE",
        [
            "Ivo Tarrant was a slate merchant of Morwen.",
            "He retired from the firm in 1872 and died at his house on Dray Street on "
            "2 October 1884.",
        ],
        ["Ivo Tarrant"],
        "2 October 1884",
    ),
    (
        "What year saw the birth of Ivo Tarrant",
        "DATE",
        ["Ivo Tarrant was born in 1809 at Quellby and married Ann Fennimore in 1836."],
        ["Ivo Tarrant"],
        "1809",
    ),
    # "come from" asks where one was born, as "a native of" says it.
    (
        "From which village did Ivo Tarrant come",
        "LOCATION",
        _TARRANT_ORIGIN,
        ["Ivo Tarrant"],
        "Quellby",
    ),
    (
        "Where did Ivo Tarrant come from",
        "LOCATION",
        _TARRANT_ORIGIN,
        ["Ivo Tarrant"],
        "Quellby",
    ),
    # ... and so is one told apart by a lower-case "junior"
    (
        "Where was Orm Vell born",
        "LOCATION",
        [
            "Orm Vell junior was born in 1834 at Tarnby, the row of cottages under the quarry.",
            "Orm Vell, the quarry agent, was born in 1801 at Hulmby, the son of a hedger.",
        ],
        ["Orm Vell"],
        "Hulmby",
    ),
    (
        "Where did Ines Marr die",
        "LOCATION",
        [
            "Ines Marr, Sr., the founder of the firm, died at Westmere in 1950.",
            "Ines Marr (1901–1980) was a surveyor. She died at Osterby after a short illness.",
        ],
        ["Ines Marr"],
        "Osterby",
    ),
    # The place the asked event's verb introduces, not the other event's.
    (
        "Where was Ada Moe born",
        "LOCATION",
        [
            "Ada Moe (1838–1901) was a lighthouse engineer whose towers still mark the "
            "approaches to Westmere. She was born in Tarnby, a village up the valley.",
            "Ada Moe retired in 1898 and died at Westmere in 1901.",
        ],
        ["Ada Moe"],
        "Tarnby",
    ),
    (
        "Where did Ivo Tarrant die",
        "LOCATION",
        [
            "Ivo Tarrant was born at Kell Bay in 1840 and went to sea at Kell Bay as a boy.",
            "Ivo Tarrant died in Osterby in 1911.",
        ],
        ["Ivo Tarrant"],
        "Osterby",
    ),
    # A name the clause denies is no answer.
    (
        "林墨的老师",
        "PERSON",
        ["林墨并非韩柏的学生，两人只是同乡。", "后来林墨拜画家苏映雪为师。"],
        ["林墨"],
        "苏映雪",
    ),
    (
        "mentor of Ada Moe",
        "PERSON",
        [
            "Ada Moe was not related to Captain Orm Moe, the ferry master, though both were "
            "well known in Tarnby.",
            "When her mentor Ivo Tarrant died in 1909, she took over the observatory.",
        ],
        ["Ada Moe"],
        "Ivo Tarrant",
    ),
    # A date another event's participle dates is not the asked event's.
    (
        "In which year was the Osk Packet Company merged with its rival",
        "DATE",
        [
            "The Osk Packet Company was founded in 1856 by Barnabas Pell, a shipowner.",
            "From 1874 the Osk Packet Company faced competition from another line. In 1931, "
            "weakened by falling traffic, they were merged to form Osk Ferries.",
        ],
        ["Osk Packet Company"],
        "1931",
    ),
    # A Chinese name defined as the asked noun answers; a counted common noun does not.
    # "一家中药铺" is a count of a common noun, no name; the name defined as one answers.
    (
        "望云桥的桥东头有一家什么药铺",
        "NAME",
        ["仁和斋是沙汀镇的一家中药铺，店面位于望云桥东头的桥头。"],
        ["望云桥"],
        "仁和斋",
    ),
    (
        "松城有一所什么大学",
        "NAME",
        ["岑川学院是松城的一所师范大学，创办于1902年。"],
        ["松城"],
        "岑川学院",
    ),
    # The agent after "VERBed by" may carry an article and modifiers.
    # The agent after "VERBed by" may carry an article and modifiers: "by the rival X".
    (
        "ferry line that ordered the Petrel",
        "ORGANIZATION",
        [
            "In 1903 Ivo Tarrant followed her with the smaller Petrel, which had been ordered by "
            "the rival Osk & Varn Steam Navigation Company for its summer run."
        ],
        ["Petrel"],
        "Osk & Varn Steam Navigation Company",
    ),
    (
        "company that built the Kell Viaduct",
        "ORGANIZATION",
        [
            "The Kell Viaduct, designed by Mara Quill, was built by the engineering firm Harrow Works "
            "in 1871."
        ],
        ["Kell Viaduct"],
        "Harrow Works",
    ),
]


@pytest.mark.parametrize(
    ("query", "kind", "texts", "linked", "answer"), ZH_ROLES + CONSTRUCTIONS + READING_RULES
)
def test_constructions_say_which_mention_answers(
    query: str, kind: AnswerType, texts: list[str], linked: list[str], answer: str
) -> None:
    best, _ = read_evidence(query, kind, _ev(*texts), _linked(*linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "names", "role"),
    [
        ("收购蓝海食品的公司", ["蓝海食品"], ("收购", "agent")),
        ("白鹭合唱团签约的唱片公司", ["白鹭合唱团"], ("签约", "partner")),
        ("流经河口市的那条河", ["河口市"], ("流经", "agent")),
        # An agent noun as the head asks who did it, whatever side the verb is on.
        ("鹤鸣寺重修的出资人", ["鹤鸣寺"], ("重修", "agent")),
        ("鹤鸣寺重修的捐资者", ["鹤鸣寺"], ("重修", "agent")),
        # The cleft "X是谁V的" asks the verb's agent; "X是和谁V的" its partner.
        ("鹭川瓷业集团是谁创立的", ["鹭川瓷业集团"], ("创立", "agent")),
        ("鹭川瓷业集团是哪家公司收购的", ["鹭川瓷业集团"], ("收购", "agent")),
        ("鹭川瓷业集团是和谁合资的", ["鹭川瓷业集团"], ("合资", "partner")),
        # Nouns written on to a name linked only in part are the rest of the name, no verbs.
        ("鹭川瓷业集团是谁创立的", ["鹭川"], ("创立", "agent")),
        ("蓝海食品的总部", ["蓝海食品"], None),  # no verb in the clause
        ("河口市", ["河口市"], None),  # no clause
    ],
)
def test_chinese_relative_clause_parse(
    query: str, names: list[str], role: tuple[str, str] | None
) -> None:
    got = _zh_relative(query, names, _term_set(query))
    assert (got[0][0], got[1]) == role if role is not None else got is None


def test_names_of_the_whole_question_are_never_the_answer() -> None:
    texts = ["Dalby Harbour was directed by Ines Valder; she later married Ola Berg."]
    best, _ = read_evidence(
        "Who is the spouse of Ines Valder",
        "PERSON",
        _ev(*texts),
        _linked("Ines Valder"),
        question="Who is the spouse of the director of Dalby Harbour?",
    )
    assert best is not None and best.text == "Ola Berg"


@pytest.mark.parametrize(
    ("short", "text", "run"),
    [
        (
            "Quellmouth",
            "the bars serve it from the Quellmouth Brewery, on draught",
            "Quellmouth Brewery",
        ),
        (
            "Dunmarrow",
            "bought by the Dunmarrow Valley Rowing Society in 1930",
            "Dunmarrow Valley Rowing Society",
        ),
        ("Tarvey Museum", "run by the Tarvey Museum of Print since 1961", "Tarvey Museum of Print"),
        ("Tarvey Museum", "at the Tarvey Museum of the Book", "Tarvey Museum of the Book"),
        (
            "Tarvey Institute",
            "at the Tarvey Institute for Glass Research before",
            "Tarvey Institute for Glass Research",
        ),
        ("Ostwick", "from Ostwick, Marlshire", "Ostwick"),  # a comma ends the name
        ("Ostwick", "Ostwick and Marlby were", "Ostwick"),  # "and" joins two names
        ("Ostwick", "in Ostwick. Later", "Ostwick"),
        ("Ostwick", "Lower Ostwick Mill", "Ostwick Mill"),  # the run starts at the short name
        ("ostwick", "the ostwick Mill", "ostwick"),  # no name
    ],
)
def test_a_name_runs_over_its_capitalised_words(short: str, text: str, run: str) -> None:
    assert _name_run(short, text) == run


@pytest.mark.parametrize(
    ("short", "text", "full"),
    [
        ("Venn", "a lecture by G. Harold Venn in 1880. Venn, who was", "G. Harold Venn"),
        ("Marsh", "Edwin Marsh left. Later Marsh returned.", "Edwin Marsh"),
        ("Marsh", "Marsh returned alone.", "Marsh"),
        ("Ashby", "north of Grey Bay. Ashby is a village", "Ashby"),  # a full stop ends a name
        ("Ada Lind", "Dr Ada Lind", "Ada Lind"),  # already a full name
        ("林墨", "作家林墨", "林墨"),  # Chinese names are whole already
    ],
)
def test_one_word_answers_take_their_full_form(short: str, text: str, full: str) -> None:
    assert _full_name(short, text) == full


@pytest.mark.parametrize(
    ("query", "head", "name", "carries"),
    [
        ("river that runs through Brenna", "river", "River Osk", True),
        ("Which prize did Ines Valder win", "prize", "Halden Prize", True),
        ("label that signed The Gray Tides", "label", "Halden Optics", False),
        ("《远山》获得过什么文学奖", "文学奖", "白鹭文学奖", True),
        ("Who directed #1", "", "Ines Valder", False),
        ("state where Ostby is located", "state", "United Kestrian States", False),  # number
        ("Which rivers cross Varn", "rivers", "River Osk", True),
        ("栎川评论的周末版", "周末版", "栎川评论·周末版", True),  # 周末 + 版: one-character head
        ("苏世仁主持修建的桥", "桥", "望云桥", True),  # a one-character noun heads it alone
        ("他出生的村", "村", "石门村", True),
        ("她创办的学校", "学校", "沙塘小学", False),
        # a naming predicate (叫什么, 的名字是什么, 是哪家) asks the name of the noun before it
        ("1921年开办的船坊叫什么", "船坊", "永泰船坊", True),
        ("镇上最早的那座桥的名字是什么", "桥", "望云桥", True),
        ("他收的第一个徒弟叫什么名字", "徒弟", "邝继潮", False),
        ("最早开张的那家绸庄是哪家", "绸庄", "瑞纶绸庄", True),
        # a preposition that opens the question, or stands before "which", is no noun
        ("Under which teacher did Ada Moe study", "teacher", "Orm Vell", False),
        ("From which port did the Kell Star sail", "port", "Port Osk", True),
        ("the club with which Ada Moe won", "club", "Varn Rowing Club", True),
        ("After which war was the Osk treaty signed", "war", "Varn War", True),
        # a verb that classes the nouns after it modifies them: 出版 + 集团 is headed by 集团
        ("蒋砚秋此前在哪家出版集团工作", "集团", "柏川出版集团", True),
        ("哪家公司收购了柏川唱片", "公司", "锦岭传媒公司", True),
        # up to two words before the head; a past participle after a noun does not head it
        ("head office town of Brenmoor Mills", "town", "Tansby", False),
        ("the first woman mayor of Tansby", "mayor", "Ada Moe", False),
        ("year founded of Brenmoor Mills", "", "Brenmoor Mills", False),
        ("building that won the Osk Medal", "building", "Tansby Corn Exchange", False),
    ],
)
def test_head_noun_of_a_step(query: str, head: str, name: str, carries: bool) -> None:
    assert _head_noun(query) == head
    assert _names_head(name, head) is carries


@pytest.mark.parametrize(
    ("claim", "texts", "linked", "supported"),
    [
        (
            "Was Ines Valder born in Dalby",
            ["Ines Valder was born in Dalby in 1950."],
            ["Ines Valder", "Dalby"],
            True,
        ),
        (
            "Was Ines Valder born in Brenna",
            ["Ines Valder was born in Dalby in 1950."],
            ["Ines Valder", "Brenna"],
            False,
        ),
        ("林墨毕业于松城大学", ["林墨本科毕业于松城大学中文系。"], ["林墨", "松城大学"], True),
        ("林墨毕业于柳城大学", ["林墨本科毕业于松城大学中文系。"], ["林墨", "柳城大学"], False),
        # What is said beside a near-namesake is said of that one ("Tessick Low Mill").
        (
            "Did Orm Vell found Tessick Mill",
            [
                "Orm Vell, the founder of Tessick Low Mill, was the son of Ada Vell, the "
                "overlooker of Tessick Mill."
            ],
            ["Orm Vell", "Tessick Mill"],
            False,
        ),
        (
            "Did Orm Vell found Tessick Low Mill",
            [
                "Orm Vell, the founder of Tessick Low Mill, was the son of Ada Vell, the "
                "overlooker of Tessick Mill."
            ],
            ["Orm Vell", "Tessick Low Mill"],
            True,
        ),
        (
            "Did Orm Vell found Tessick Mill",
            ["Orm Vell founded Tessick Mill in 1838; his son later built Tessick Low Mill."],
            ["Orm Vell", "Tessick Mill"],
            True,
        ),
        # "Varnley" of "Varnley Cross" is another place
        (
            "Is Hollisk Stadium in Varnley",
            ["In 1994 the club moved to Hollisk Stadium in Varnley Cross, where it has stayed."],
            ["Hollisk Stadium", "Varnley"],
            False,
        ),
        (
            "Is Hollisk Stadium in Varnley",
            ["In 1994 the club moved to Hollisk Stadium in Varnley, where it has stayed."],
            ["Hollisk Stadium", "Varnley"],
            True,
        ),
        # a piece that names the subject in passing: its other sentences are about the club
        (
            "Is Hollisk Stadium in Varnley",
            [
                "Founded in 1970 by players from Varnley, the club spent twenty years on a "
                "rented pitch. In 1994 it moved to Hollisk Stadium in Marl Cross."
            ],
            ["Hollisk Stadium", "Varnley"],
            False,
        ),
        (
            "Is Hollisk Stadium in Varnley",
            ["Hollisk Stadium opened in 1994. It stands in Varnley, by the river."],
            ["Hollisk Stadium", "Varnley"],
            True,
        ),
        # a Chinese claim is checked for the names it writes whole (the linker knows 蓼川市)
        (
            "邵景行创业前是在蓼川市第一人民医院工作的",
            [
                "邵景行出生在蓼川市。他年轻时在栖渔市第一人民医院的药剂科工作了十几年，后来辞职创业。"
            ],
            ["邵景行", "蓼川市"],
            False,
        ),
        (
            "邵景行创业前是在蓼川市第一人民医院工作的",
            [
                "邵景行出生在栖渔市。他年轻时在蓼川市第一人民医院的药剂科工作了十几年，后来辞职创业。"
            ],
            ["邵景行", "蓼川市"],
            True,
        ),
        # teaching is one relation, which a sentence may state by any of its words
        (
            "Did Ada Moe learn her trade from Orm Vell",
            ["In 1890 Ada Moe went to Tarnby, where Orm Vell took her on as an apprentice."],
            ["Ada Moe", "Orm Vell"],
            True,
        ),
        (
            "Was Ada Moe a pupil of Orm Vell",
            ["Ada Moe studied under Orm Vell at the Tarnby forge for six years."],
            ["Ada Moe", "Orm Vell"],
            True,
        ),
        (
            "Did Ada Moe learn her trade from Orm Vell",
            ["In 1890 Ada Moe went to Tarnby, where Orm Vell bought the forge."],
            ["Ada Moe", "Orm Vell"],
            False,
        ),
        # "Its" is the college's, not the person's: a person's claim is not stated there
        (
            "Did Ada Moe study under Orm Vell",
            [
                "Orm Vell led the forge school from 1880. The school has two halls. Its "
                "best-known teacher was Tam Brisk, whose pupils included Ada Moe."
            ],
            ["Orm Vell", "Ada Moe"],
            False,
        ),
        # the copula and 的 are the claim's form: 徒弟 is what it says of the two names
        ("蒋砚秋是柏川的徒弟", ["柏川一生只收过一个徒弟——蒋砚秋。"], ["柏川"], True),
        ("蒋砚秋是柏川的徒弟", ["柏川一生只收过一个徒弟——黎晚禾。"], ["柏川"], False),
        ("蒋砚秋是柏川的徒弟", ["柏川与蒋砚秋共事三十年，是同事。"], ["柏川"], False),
        # the subject's longer name (the linker cut it: 岑启) is no content word of the claim
        ("岑启年是柏川的师父", ["柏川与小生岑启年长期同台搭档。"], ["岑启", "柏川"], False),
    ],
)
def test_claims_are_verified_against_one_sentence(
    claim: str, texts: list[str], linked: list[str], supported: bool
) -> None:
    ok, _ = verify_claim(claim, _ev(*texts), _linked(*linked))
    assert ok is supported


@pytest.mark.parametrize(
    ("query", "names", "role"),
    [
        ("company that acquired Grey Tide Foods", ["Grey Tide Foods"], ("buy", "agent")),
        ("company that was bought by Holm Industries", ["Holm Industries"], ("buy", "patient")),
        ("film directed by Ada Berg", ["Ada Berg"], ("direct", "patient")),
        ("person who founded Holm Industries", ["Holm Industries"], ("found", "agent")),
        # An agent noun and "of" ask for who did it.
        ("director of Grey Tide", ["Grey Tide"], ("direct", "agent")),
        ("founder of Holm Industries", ["Holm Industries"], ("found", "agent")),
        ("capital of Grey Tide", ["Grey Tide"], None),  # no clause, no agent noun
        ("company that Ada Berg left", ["Holm Industries"], None),  # no linked name after it
    ],
)
def test_english_relative_clause_parse(
    query: str, names: list[str], role: tuple[str, str] | None
) -> None:
    assert _en_relative(query, names) == role


@pytest.mark.parametrize(
    ("title", "names", "about"),
    [
        ("Grey Tide Athletic", ["grey tide athletic"], True),
        ("About Holm Records", ["holm records"], True),
        ("Varrby (town)", ["varrby"], True),
        ("关于晨星唱片", ["晨星唱片"], True),
        ("grey_tide_athletic", ["grey tide athletic"], True),  # a file stem
        ("Grey Tide Athletic", ["grey tide"], False),  # the town in the club's name
        ("Holm Records Ltd", ["holm records"], False),
        ("", ["holm"], False),
        # a title listing after commas names its subject first; the place after is not it
        ("Holm & Sons, Rope Makers, Varrby", ["varrby"], False),
        ("HOLM & SONS, ROPE MAKERS, VARRBY (1884-1952)", ["holm and sons"], True),
        ("Business profile: Holm Cooperage, Varrby", ["holm cooperage"], True),
        ("Varrby, Oskland", ["oskland"], False),
        ("Varrby, Oskland", ["varrby oskland"], True),  # the whole title is the name
    ],
)
def test_a_document_title_names_its_topic(title: str, names: list[str], about: bool) -> None:
    assert names_topic(title, names) is about


class _Graph(GraphView):
    """Entities per chunk and document titles, as the graph and the chunk store would give."""

    def __init__(self, entities: dict[str, list[tuple[str, str, str]]], titles: dict[str, str]):
        super().__init__()
        self.entities, self.titles = entities, titles

    def chunk_entities(self, chunk_ids: Sequence[str]) -> dict[str, list[tuple[str, str, str]]]:
        return {c: self.entities[c] for c in chunk_ids if c in self.entities}

    def doc_titles(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {d: self.titles[d] for d in doc_ids if d in self.titles}


def test_a_piece_of_the_subjects_document_goes_on_about_it() -> None:
    """Sentence pieces of the document titled with the subject: "It was founded in 1911" is
    about the subject, and "Rovers, founded in 1923" says its date of the organisation named
    just before it."""
    texts = [
        "Athletic's local rivals are Grey Tide Rovers, founded in 1923.",
        "It was founded in 1911.",
    ]
    evidence = _ev(*texts, doc="d", level="sentence")
    linked = _linked("Grey Tide Athletic", type="ORGANIZATION")
    graph = _Graph(
        {"c0": [("e2", "Grey Tide Rovers", "ORGANIZATION")]}, {"d": "Grey Tide Athletic"}
    )
    best, _ = read_evidence(
        "In what year was Grey Tide Athletic founded", "DATE", evidence, linked, graph
    )
    assert best is not None and best.text == "1911"
    # Without the title the pronoun has nothing to go on about, but the participle clause
    # still dates the Rovers, not Athletic: 1923 is never the answer.
    best, _ = read_evidence(
        "In what year was Grey Tide Athletic founded", "DATE", evidence, linked, _Graph({}, {})
    )
    assert best is None or best.text != "1923"


def test_the_subjects_document_is_read_beyond_the_top_pieces() -> None:
    """Pieces ranked below the reader's top that belong to the document about the subject are
    read too (all of it is about the subject); other documents' pieces down there are not.
    The answer's evidence index points into the evidence as given."""
    top = [
        "Kestrel Optics makes lenses. Its first order came from the port of Brinmoor.",
        *(f"Kestrel Optics had {n} staff in {1990 + n}." for n in range(2, 7)),
    ]
    below = [
        "Osk Lenses, a rival maker, has its head office in Dunmere.",
        "The company's head office is in Quennholt, near the harbour.",
    ]
    evidence = _ev(*top, *below)
    for e in evidence[:6]:
        e.doc_id = "kestrel"
    evidence[7].doc_id = "kestrel"
    graph = _Graph({}, {"kestrel": "Kestrel Optics", "d6": "Osk Lenses"})
    query = "Where is the head office of Kestrel Optics"
    best, _ = read_evidence(query, "LOCATION", evidence, _linked("Kestrel Optics"), graph)
    assert best is not None and best.text == "Quennholt" and best.evidence_index == 7
    evidence[7].doc_id = "elsewhere"  # not the subject's document: not read
    best, _ = read_evidence(query, "LOCATION", evidence, _linked("Kestrel Optics"), graph)
    assert best is None or best.text != "Quennholt"


def test_an_earlier_answer_is_the_subject_even_when_no_entity_is_linked() -> None:
    """The bridge answer bound into a step plays the subject's part in the reader's
    constructions though the linker found no entity of that name."""
    step = PlanStep(index=2, query="#1签约的唱片公司", depends_on=[1], answer_type="ORGANIZATION")
    ctx = StepContext(step=step, query="白鹭合唱团签约的唱片公司", answers={1: "白鹭合唱团"})
    evidence = _ev(
        "白鹭合唱团成立于江城，最初在酒馆演出。2010年，合唱团签约金帆唱片。",
        "江城唱片公司众多，其中最大的是远山集团旗下的江城唱片。",
    )
    reading = asyncio.run(OfflineStepReader().aread(ctx, evidence))
    assert reading.answer == "金帆唱片"


def test_a_short_name_takes_the_whole_name_its_document_writes() -> None:
    """ "played for Athletic": another piece of the same document names the club in full; a
    person's surname is left alone (two people of one document may share it)."""
    texts = [
        "The winger Ada Berg played for Athletic from 1989 to 1994.",
        "Grey Tide Athletic is a football club in the port of Grey Tide.",
    ]
    best, _ = read_evidence(
        "For which club did Ada Berg play", "NAME", _ev(*texts, doc="d"), _linked("Ada Berg")
    )
    assert best is not None and best.text == "Grey Tide Athletic"
    # From another document the short name stays short.
    best, _ = read_evidence(
        "For which club did Ada Berg play", "NAME", _ev(*texts), _linked("Ada Berg")
    )
    assert best is not None and best.text == "Athletic"


@pytest.mark.parametrize(
    ("query", "kind", "texts", "linked", "answer"),
    [
        # The segmenter reads 锦帆/n + 传媒/n as common words; the graph knows the company.
        (
            "拥有《晚钟报》的传媒公司",
            "ORGANIZATION",
            ["《晚钟报》是在岑川市出版的日报。2006年起，该报隶属于锦帆传媒，总编辑为韦川。"],
            ["晚钟报"],
            "锦帆传媒",
        ),
        (
            "鸥门码头乐队签约的唱片公司",
            "ORGANIZATION",
            ["2001年，鸥门码头乐队签约秋蝉唱片，开始在岑川市巡演。"],
            ["鸥门码头乐队"],
            "秋蝉唱片",
        ),
    ],
)
def test_names_the_graph_knows_are_candidates_where_extraction_missed_them(
    tmp_path: Path, query: str, kind: AnswerType, texts: list[str], linked: list[str], answer: str
) -> None:
    from kg_rag.models import Entity
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        # Defined in another passage, never mentioned in this one's extraction.
        graph.upsert_entities(
            [
                Entity(entity_id="known", name=answer, type="ORGANIZATION"),
                Entity(entity_id="place", name="岑川市", type="LOCATION"),
            ]
        )
        view = GraphView(linker=EntityLinker(graph))
        assert ("known", answer, "ORGANIZATION") in view.names_in(texts)
        best, _ = read_evidence(query, kind, _ev(*texts), _linked(*linked), graph=view)
        assert best is not None and best.text == answer
    finally:
        graph.close()


@pytest.mark.parametrize(
    ("span", "kind"),
    [
        ("Tallow & Reed", "ORGANIZATION"),
        ("AT&T", "ORGANIZATION"),
        ("Tallow and Reed", "NAME"),
        ("Bram Oake", "NAME"),
        ("&", "NAME"),
    ],
)
def test_partners_joined_by_an_ampersand_name_a_firm(span: str, kind: str) -> None:
    from kg_rag.answer.reader import _kind_of_span

    assert _kind_of_span(span, "", "PERSON") == kind


def test_a_firm_named_by_an_ampersand_answers_no_person_noun(tmp_path: Path) -> None:
    """Extraction left "Tallow & Reed" a concept; an ampersand names partners' firm, so it
    does not answer "the teacher that X studied under" over the person the text names."""
    from kg_rag.models import Entity, Mention
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    texts = [
        "Quenna Hollis (born 1972) is the founder and creative director of **Tallow & Reed**, "
        "the knitwear label she set up in 1997 in a rented dye-house in Varn.",
        "Among his students, the best known is Quenna Hollis, who founded the knitwear label "
        "Tallow & Reed three years after leaving his course.",
        "She enrolled on the knitwear course at the Varn Institute in 1991. Her teacher there, "
        "Bram Oake, was famous for making first-years unpick their own swatches.",
    ]
    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        graph.upsert_entities(
            [
                Entity(entity_id="label", name="Tallow & Reed", type="CONCEPT"),
                Entity(entity_id="teacher", name="Bram Oake", type="PERSON"),
                Entity(entity_id="student", name="Quenna Hollis", type="PERSON"),
            ]
        )
        graph.upsert_mentions(
            [
                Mention(entity_id=e, chunk_id=f"c{i}", doc_id=f"d{i}")
                for e, i in [
                    ("label", 0),
                    ("label", 1),
                    ("student", 0),
                    ("student", 1),
                    ("teacher", 2),
                ]
            ]
        )
        view = GraphView(linker=EntityLinker(graph))
        best, _ = read_evidence(
            "knitwear teacher that Quenna Hollis studied under",
            "PERSON",
            _ev(*texts),
            _linked("Quenna Hollis"),
            graph=view,
        )
        assert best is not None and best.text == "Bram Oake"
    finally:
        graph.close()


def test_a_name_the_evidence_defines_as_the_asked_noun_takes_its_class(tmp_path: Path) -> None:
    """Extraction typed the band a person; "The Tin Wicks are an indie rock band" says what it
    is, so it answers "which band" over an organisation of the right type."""
    from kg_rag.models import Entity, Mention
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    texts = [
        "The label's roster has included the singer Mara Vell and, from 2006, The Tin Wicks. "
        "In 2017 the founder sold Harbour Records to Oakmere Media Group.",
        "The Tin Wicks are an indie rock band formed in Tallbridge in 2004.",
    ]
    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        graph.upsert_entities(
            [
                Entity(entity_id="band", name="The Tin Wicks", type="PERSON"),
                Entity(entity_id="media", name="Oakmere Media Group", type="ORGANIZATION"),
                Entity(entity_id="label", name="Harbour Records", type="ORGANIZATION"),
            ]
        )
        graph.upsert_mentions(
            [
                Mention(entity_id=e, chunk_id=c, doc_id=d)
                for e, c, d in [
                    ("band", "c0", "d0"),
                    ("media", "c0", "d0"),
                    ("label", "c0", "d0"),
                    ("band", "c1", "d1"),
                ]
            ]
        )
        view = GraphView(linker=EntityLinker(graph))
        best, _ = read_evidence(
            "band that Harbour Records signed in 2006",
            "ORGANIZATION",
            _ev(*texts),
            _linked("Harbour Records"),
            graph=view,
        )
        assert best is not None and best.text == "The Tin Wicks"
    finally:
        graph.close()


@pytest.mark.parametrize(
    ("sentence", "candidate", "gloss"),
    [
        ("Velmora (Вельмора, Wildfire) is an album by Kessa Drune.", "Вельмора", True),
        ("Velmora (Вельмора, Wildfire) is an album by Kessa Drune.", "Wildfire", True),
        ("Velmora (Polish: Wilmora; English: Wildfire) is an album.", "Wilmora", True),
        ("Velmora (Polish: Wilmora; English: Wildfire) is an album.", "Wildfire", True),
        ('Velmora, also known as "Lumenfall", is an album by Kessa Drune.', "Lumenfall", True),
        ("Velmora (a.k.a. Lumenfall) is an album by Kessa Drune.", "Lumenfall", True),
        # Statements about the name, not other names of it.
        ("Orrin Vale (born 1950, Tamsk) was a painter.", "Tamsk", False),
        ("Orrin Vale (born in Tamsk) was a painter.", "Tamsk", False),
        ("Velmora (Вельмора, Wildfire) is an album by Kessa Drune.", "Kessa Drune", False),
        # A bracket opening with a language label glosses any name before it.
        (
            "Tamsk Falls (Vell: Ostra-na-Vira, ``The Roaring Mist'') is a waterfall.",
            "Ostra-na-Vira",
            True,
        ),
        (
            "Tamsk Falls (Vell: Ostra-na-Vira, ``The Roaring Mist'') is a waterfall.",
            "The Roaring Mist",
            True,
        ),
        # Not after a linked name, and no label.
        ("Halvard Quist (Lumenfall) was a painter.", "Lumenfall", False),
        ("Tamsk, also known as Lumenfall, is a town.", "Lumenfall", False),
    ],
)
def test_glosses_of_a_linked_name(sentence: str, candidate: str, gloss: bool) -> None:
    a = sentence.index(candidate)
    assert _gloss_of(sentence, a, a + len(candidate), ["Velmora", "Orrin Vale"]) is gloss


@pytest.mark.parametrize(
    ("sentence", "word", "common"),
    [
        ("Sable Harbour is a live EP by the band Brindle Choir.", "EP", True),
        ("She was elected an MP for the county in 1990.", "MP", True),
        ("The album was released as an LP.", "LP", True),
        ("He worked as a DJ and producer.", "DJ", True),
        # A name after a preposition, a modifier before its noun, a name with no article.
        ("Sable Harbour is a studio album by Kessa released in 2005.", "Kessa", False),
        ("He bought an IBM computer.", "IBM", False),
        ("The album Sable Harbour was recorded by Kessa.", "Kessa", False),
        ("Orrin Vale married a Tamsk girl.", "Tamsk", False),
    ],
)
def test_the_head_of_an_indefinite_noun_phrase_is_no_name(
    sentence: str, word: str, common: bool
) -> None:
    a = sentence.index(word)
    assert _indefinite_head(sentence, a, a + len(word), word) is common


@pytest.mark.parametrize(
    ("span", "office"),
    [
        ("President of Velmora", True),
        ("Mayor of Tamsk", True),
        ("The Governor of Sable Harbour", True),
        ("Bank of Velmora", False),
        ("University of Tamsk", False),
        ("Orrin Vale", False),
        ("President Vale", False),
    ],
)
def test_an_office_names_the_post_not_its_holder(span: str, office: bool) -> None:
    assert _office_title(span) is office


@pytest.mark.parametrize(
    ("query", "text", "shared"),
    [
        ("founder of Tamsk Press", "Tamsk Press was established in 1911 by Orrin Vale.", "found"),
        ("Who co-founded Tamsk Press", "Orrin Vale founded Tamsk Press.", "found"),
        ("company that acquired Tamsk Press", "Tamsk Press was bought by Velmora Group.", "buy"),
        ("Who bought Tamsk Press", "Velmora Group's acquisition of Tamsk Press", "buy"),
        ("Who bought Tamsk Press", "Velmora Group purchased Tamsk Press in 1990.", "buy"),
        # an institution opens when it is founded
        ("When was the Tamsk School founded", "The Tamsk School was opened in 1849.", "found"),
    ],
)
def test_near_synonyms_of_an_event_share_its_stem(query: str, text: str, shared: str) -> None:
    assert shared in _term_set(query) & _term_set(text)


def test_the_agent_of_an_agent_noun_fills_the_verbs_slot() -> None:
    """ "director of X" reads the film's "directed by Y", not the art director named beside."""
    best, _ = read_evidence(
        "director of Tamsk Nights",
        "PERSON",
        _ev(
            "Tamsk Nights is a 1937 drama film directed by Orrin Vale and starring Kessa Drune. "
            "The film's sets were designed by the art director Halvard Quist."
        ),
        _linked("Tamsk Nights"),
    )
    assert best is not None and best.text == "Orrin Vale"


@pytest.mark.parametrize(
    ("noun", "text", "name"),
    [
        ("band", "The Tin Wicks are an indie rock band formed in 2004.", "tin wicks"),
        (
            "shipowner",
            "It was funded by Corvell Iskarn, a rich shipowner, in 1911.",
            "corvell iskarn",
        ),
        ("town", "She was born in Sallow Brook, a small mill town on the river.", "sallow brook"),
    ],
)
def test_a_copula_or_an_appositive_defines_a_name_as_a_noun(
    noun: str, text: str, name: str
) -> None:
    assert name in _defined_as(noun, [text])


def test_an_administrative_unit_closes_a_place_name_whatever_its_entity_type(
    tmp_path: Path,
) -> None:
    """Extraction typed the town 栾州 a person; the 州 that closes it says it is a place, so it
    is read as one (it may not answer "who" as a person would)."""
    from kg_rag.models import Entity, Mention
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        graph.upsert_entities(
            [
                Entity(entity_id="town", name="栾州", type="PERSON"),
                Entity(entity_id="her", name="郗岚", type="PERSON"),
            ]
        )
        graph.upsert_mentions(
            [Mention(entity_id=e, chunk_id="c0", doc_id="d0") for e in ("town", "her")]
        )
        view = GraphView(linker=EntityLinker(graph))
        best, _ = read_evidence(
            "郗岚的孙子是谁",
            "PERSON",
            _ev("1940年，郗岚的孙子陪她回到栾州。"),
            _linked("郗岚", type="PERSON"),
            graph=view,
        )
        assert best is None or best.text != "栾州" or best.kind == "LOCATION"
    finally:
        graph.close()


class _Titles:
    """A chunk store's document titles, and no sentence vectors."""

    def __init__(self, titles: dict[str, str]) -> None:
        self.titles = titles

    def document_titles(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {d: self.titles[d] for d in doc_ids if d in self.titles}

    def sentence_similarity(self, query: str, doc_ids: Sequence[str]) -> dict[str, list[Any]]:
        return {}


@pytest.mark.parametrize(
    ("query", "pieces", "titles", "entities", "linked", "answer"),
    [
        # The answer's own document calls it by the asked noun ("the orchestra has performed
        # at …" in the document titled with its name); extraction typed it a place.
        (
            "orchestra that plays at Marlow Hall",
            [
                (
                    "marlow",
                    "Marlow Hall is a concert hall in Dunmere, standing on the east bank "
                    "of the River Quell near the old corn market. It opened in 1908.",
                ),
                (
                    "marlow",
                    "The hall is the home of the Dunmere Symphonia, which has given its "
                    "winter concerts there since its first season.",
                ),
                (
                    "symph",
                    "From the beginning the orchestra has performed at Marlow Hall, and it "
                    "rehearses in a warehouse nearby.",
                ),
            ],
            {"marlow": "marlow_hall", "symph": "Dunmere Symphonia"},
            [
                ("Dunmere Symphonia", "LOCATION", "", ["c1", "c2"]),
                ("River Quell", "CONCEPT", "", ["c0"]),
                ("Dunmere", "LOCATION", "", ["c0", "c1"]),
            ],
            "Marlow Hall",
            "Dunmere Symphonia",
        ),
        # The graph's description of the name defines it as the asked noun.
        (
            "newspaper that Ivo Tarrant edited",
            [
                (
                    "ivo",
                    "In 1931 Ivo Tarrant moved to Harl Bay, where he edited the Kestrel "
                    "Gazette until his death.",
                ),
            ],
            {"ivo": "ivo_tarrant"},
            [
                (
                    "Kestrel Gazette",
                    "LOCATION",
                    "The Kestrel Gazette is a weekly newspaper printed in Harl Bay.",
                    ["c0"],
                ),
                ("Harl Bay", "CONCEPT", "", ["c0"]),
            ],
            "Ivo Tarrant",
            "Kestrel Gazette",
        ),
        (
            "school that Mara Quill founded",
            [
                (
                    "mq",
                    "Mara Quill founded Brisling Academy of Art on Tern Street in 1902, "
                    "and taught there until 1930.",
                ),
            ],
            {"mq": "mara_quill"},
            [
                (
                    "Brisling Academy of Art",
                    "PERSON",
                    "The Brisling Academy of Art was a small art school on Tern Street.",
                    ["c0"],
                ),
                ("Tern Street", "CONCEPT", "", ["c0"]),
            ],
            "Mara Quill",
            "Brisling Academy of Art",
        ),
        (
            "company that built the Osk Viaduct",
            [
                (
                    "osk",
                    "The Osk Viaduct was built in 1871 for Varn Rail by Harrow Dunn, whose "
                    "yard stood at Kell Ford.",
                ),
            ],
            {"osk": "Osk Viaduct"},
            [
                (
                    "Harrow Dunn",
                    "PERSON",
                    "Harrow Dunn was an engineering company founded at Kell Ford in 1840.",
                    ["c0"],
                ),
                ("Kell Ford", "CONCEPT", "", ["c0"]),
                ("Varn Rail", "CONCEPT", "", ["c0"]),
            ],
            "Osk Viaduct",
            "Harrow Dunn",
        ),
    ],
)
@pytest.mark.parametrize("checked", [True, False])
def test_the_corpus_definition_of_a_name_overrides_the_extracted_type(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    pieces: list[tuple[str, str]],
    titles: dict[str, str],
    entities: list[tuple[str, str, str, list[str]]],
    linked: str,
    answer: str,
    checked: bool,
) -> None:
    """A name extraction typed wrongly for the asked noun takes the noun's type when the corpus
    defines it as that noun; without the check (none of the leaders checked) a name of the
    wrong kind answers, so the definition is what decides."""
    from kg_rag.answer import reader
    from kg_rag.models import Entity, Mention
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    if not checked:
        monkeypatch.setattr(reader, "_DEFINED_CHECK", 0)
    evidence = [
        Evidence(
            chunk_id=f"c{i}", doc_id=d, text=t, score=1 - i / 10, level="paragraph", char_end=len(t)
        )
        for i, (d, t) in enumerate(pieces)
    ]
    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        graph.upsert_entities(
            [
                Entity(entity_id=f"g{i}", name=n, type=t, description=desc)
                for i, (n, t, desc, _) in enumerate(entities)
            ]
        )
        graph.upsert_mentions(
            [
                Mention(entity_id=f"g{i}", chunk_id=c, doc_id=evidence[int(c[1:])].doc_id)
                for i, (*_, chunks) in enumerate(entities)
                for c in chunks
            ]
        )
        view = GraphView(linker=EntityLinker(graph), store=_Titles(titles))
        best, _ = read_evidence(query, "ORGANIZATION", evidence, _linked(linked), graph=view)
        assert best is not None
        assert (best.text == answer) is checked
    finally:
        graph.close()


@pytest.mark.parametrize(
    ("names", "texts", "nouns"),
    [
        (["Marlow Hall"], ["Marlow Hall is a concert hall in Dunmere."], {"hall"}),
        (
            ["Harlow Dynamics"],
            ["Harlow Dynamics is a software company based in Tollmere."],
            {"dynamics", "company"},
        ),
        (
            ["Kell Light"],
            ["The tower is tall. Kell Light was the tallest lighthouse on the coast."],
            {"light", "lighthouse"},
        ),
        (["Ada Moe"], ["Ada Moe was a Norwegian engineer who built bridges."], {"moe", "engineer"}),
        (["Osk"], ["The Osk is a river in Varn."], {"osk", "river"}),
        (["Varn Rail"], ["Varn Rail ran the line until 1950."], {"rail"}),  # no definition
        (  # every occurrence of the name is read, not only the first
            ["Tarn Works"],
            [
                "Tarn Works burned in 1901; Tarn Works was a cotton mill in Orlowe. Tarn Works is an archive."
            ],
            {"works", "mill", "archive"},
        ),
        (["栎川电子"], ["栎川电子是一家公司。"], set()),  # English class nouns only
        # a closing emphasis and a bracket may stand between the name and its copula
        (["Ada Moe"], ["**Ada Moe** (1914–1998) was a mountain guide."], {"moe", "guide"}),
        (["Kell Light"], ["*Kell Light* is a lighthouse on the coast."], {"light", "lighthouse"}),
        (["Osk"], ["The Osk (Varnish: Oska) is a river in Varn."], {"osk", "river"}),
    ],
)
def test_subject_nouns_from_names_and_definitions(
    names: list[str], texts: list[str], nouns: set[str]
) -> None:
    from kg_rag.answer.reader import _subject_nouns

    assert _subject_nouns(names, texts) == nouns


@pytest.mark.parametrize(
    ("sentence", "place", "event", "factor"),
    [
        ("He was born in Varnford, a village.", "Varnford", "birth", 1.5),
        ("She died at Westmere in 1901.", "Westmere", "birth", 0.5),
        ("She died at Westmere in 1901.", "Westmere", "death", 1.5),
        ("Her birthplace was the port of Kell.", "Kell", "birth", 1.5),
        ("the town where she was born, and moved to Tallbridge", "Tallbridge", "birth", 1.0),
        ("He married a clerk's daughter from Osterby.", "Osterby", "birth", 1.0),
        (
            "Born in Tarnby, she died in Hulmby.",
            "Hulmby",
            "birth",
            0.5,
        ),  # "born" is another clause's
        ("Born in Tarnby, she died in Hulmby.", "Tarnby", "birth", 1.5),
        ("She was born and died in Hulmby.", "Hulmby", "birth", 1.0),  # both verbs: no say
        ("He was buried at Holm Cross.", "Holm Cross", "death", 1.5),
    ],
)
def test_a_life_event_verb_before_a_place(
    sentence: str, place: str, event: str, factor: float
) -> None:
    from kg_rag.answer.reader import _en_life_place_bonus

    assert _en_life_place_bonus(sentence, sentence.index(place), event) == factor


@pytest.mark.parametrize(
    ("sentence", "place", "event", "factor"),
    [
        # the place's own relative clause says it, whatever a verb before it says too
        (
            "Edda Rask, who died at home in Kelby, the valley village where she was born, "
            "was a guide.",
            "Kelby",
            "birth",
            1.5,
        ),
        ("She died in Hulmby, where she was born.", "Hulmby", "birth", 1.5),
        ("She died in Hulmby, where she was born.", "Hulmby", "death", 1.0),  # control: both
        ("She was born in Tarnby, where she died.", "Tarnby", "birth", 1.0),  # control: both
        ("She was born in Tarnby, where she died.", "Tarnby", "death", 1.5),
    ],
)
def test_a_relative_clause_on_a_place_tells_its_life_event(
    sentence: str, place: str, event: str, factor: float
) -> None:
    from kg_rag.answer.reader import _en_life_place_bonus

    a = sentence.index(place)
    assert _en_life_place_bonus(sentence, a, event, a + len(place)) == factor


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        # the asked firm noun written right after a name closes it (柏川 + 出版集团), and a
        # department written right after the firm is a part of it, not the firm
        (
            "蒋砚秋此前在哪家出版集团工作",
            "大学毕业后，蒋砚秋在柏川出版集团版权部工作了九年。",
            "蒋砚秋",
            "柏川出版集团",
        ),
        # control: a clause between the name and the noun does not join them
        (
            "柏川唱片属于哪家公司",
            "柏川唱片属于锦岭传媒公司。柏川音乐出版是另一家公司，与柏川唱片无关。",
            "柏川唱片",
            "锦岭传媒公司",
        ),
    ],
)
def test_a_chinese_firm_is_read_whole(query: str, text: str, linked: str, answer: str) -> None:
    best, _ = read_evidence(query, "ORGANIZATION", _ev(text), _linked(linked))
    assert best is not None and best.text == answer


_WORKS = "Brisk Lathe Works was founded in 1950 in Yorwick by Maddox Tirrel, a toolmaker."


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        # what someone learned, and from whom: the one learned from is the teacher (a person,
        # whatever "from" or "to" suggest)
        (
            "Who was the teacher of Edda Rask",
            "Edda Rask was born in Yorwick in 1901. She shared a bench with Hestrel Pellamy for "
            "years and learned the trade from Maddox Tirrel, a clockmaker.",
            "Edda Rask",
            "Maddox Tirrel",
        ),
        (
            "Who was the mentor of Edda Rask",
            "Edda Rask was born in Yorwick in 1901. She was apprenticed to Maddox Tirrel at "
            "sixteen and later worked with Hestrel Pellamy.",
            "Edda Rask",
            "Maddox Tirrel",
        ),
        (
            "Who taught Edda Rask",
            "Edda Rask met Hestrel Pellamy in 1920. She was taught by Maddox Tirrel at the "
            "Yorwick school.",
            "Edda Rask",
            "Maddox Tirrel",
        ),
        # control: the one taught is no teacher
        (
            "Who was the teacher of Edda Rask",
            "Edda Rask taught drawing to Maddox Tirrel in Yorwick. She was a pupil of Hestrel "
            "Pellamy.",
            "Edda Rask",
            "Hestrel Pellamy",
        ),
        # a teacher is as often called a mentor or a tutor: "his mentor was Y" for his teacher
        (
            "Under which teacher did Edda Rask study",
            "Edda Rask went to the Yorwick school, where her mentor was Maddox Tirrel, a friend "
            "of Hestrel Pellamy.",
            "Edda Rask",
            "Maddox Tirrel",
        ),
        (
            "Who was the teacher of Edda Rask",
            "Edda Rask worked beside Hestrel Pellamy; Maddox Tirrel remained her tutor.",
            "Edda Rask",
            "Maddox Tirrel",
        ),
        # the agent noun of the step's verb, then a copula, then the name: the name does it
        (
            "Who manages the works at Brisk Lathe Works",
            f"{_WORKS} Our works manager since 2011 has been Hestrel Pellamy, a fitter.",
            "Brisk Lathe Works",
            "Hestrel Pellamy",
        ),
        (
            "Who leads the crew at Brisk Lathe Works",
            f"{_WORKS} Its crew leader since 2019 has been Hestrel Pellamy.",
            "Brisk Lathe Works",
            "Hestrel Pellamy",
        ),
        # control: the founder is who the founding sentence names
        (
            "Who founded Brisk Lathe Works",
            f"{_WORKS} The crew leader is Hestrel Pellamy, a fitter from Yorwick.",
            "Brisk Lathe Works",
            "Maddox Tirrel",
        ),
    ],
)
def test_who_holds_a_role_as_a_text_writes_it(
    query: str, text: str, linked: str, answer: str
) -> None:
    """Teachers by the verbs of learning and the nouns of teaching; a role by the agent noun
    of the asked verb."""
    best, _ = read_evidence(query, "PERSON", _ev(text), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("text", "name", "mentioned"),
    [
        (
            "Alder Quayne the younger (1869) was a naval architect.",
            "Alder Quayne",
            False,
        ),
        ("Alder Quayne (1838–1901) was an engineer.", "Alder Quayne", True),
        ("Orm Vell Jr. sold the yard.", "Orm Vell", False),
        ("Orm Vell, Sr., founded the yard.", "Orm Vell", False),
        ("King Orm Vell II built it.", "Orm Vell", False),
        ("Orm Vell Ivory was a trader.", "Orm Vell", True),  # a word, no generation
        ("Orm Vell the younger met Orm Vell in 1900.", "Orm Vell", True),  # the second is him
    ],
)
def test_a_generation_word_names_another_person(text: str, name: str, mentioned: bool) -> None:
    from kg_rag.answer.reader import _mentioned

    assert _mentioned(text, name) is mentioned


@pytest.mark.parametrize(
    ("before", "negated"),
    [
        ("Kestley was not related to ", True),
        ("The Kell Bridge is not to be confused with ", True),
        ("She never worked for ", True),
        ("The firm was unrelated to ", True),
        ("He was born in Osk, not far from ", True),  # a negation in the clause: no say
        ("She worked for ", False),
        ("It is not large. It was built by ", False),  # another sentence
        ("Not a word was said, but ", False),  # the comma ends the negated clause
        ("林墨并非", True),
        ("两人从未见过", True),
        ("林墨不是韩柏的学生，她拜", False),  # the comma ends the negated clause
        ("林墨拜画家", False),
    ],
)
def test_a_negation_earlier_in_the_clause(before: str, negated: bool) -> None:
    from kg_rag.answer.reader import _NEGATED_BEFORE

    assert bool(_NEGATED_BEFORE.search(before)) is negated


@pytest.mark.parametrize(
    ("sentence", "date", "terms", "factor"),
    [
        ("The company was founded in 1856 by a shipowner.", "1856", {"merg", "rival"}, 0.3),
        ("The company was founded in 1856 by a shipowner.", "1856", {"found"}, 1.5),
        ("The two lines were merged in 1931.", "1931", {"merg"}, 1.5),
        ("In 1931 they were merged to form one line.", "1931", {"merg"}, 1.0),  # no participle
        ("The tower was completed on 4 May 1879.", "4 May 1879", {"lit"}, 0.3),
        ("She was born in 1871 in the port.", "1871", {"birth"}, 1.5),  # born → birth
        ("It was sold in the year 1903.", "1903", {"sell"}, 1.5),
        ("Her work in 1903 was praised.", "1903", {"merg"}, 1.0),  # "work" is no participle
    ],
)
def test_a_date_another_event_dates(
    sentence: str, date: str, terms: set[str], factor: float
) -> None:
    from kg_rag.answer.reader import _event_date_factor

    assert _event_date_factor(sentence, sentence.index(date), terms) == factor


@pytest.mark.parametrize(
    ("noun", "text", "names"),
    [
        ("药铺", "仁和斋是沙汀镇的一家中药铺，店面位于桥头。", {"仁和斋"}),
        ("大学", "松城大学是一所综合性大学，位于岑川市。", {"松城大学"}),
        ("桥", "望云桥是苎溪上的一座石拱桥。", {"望云桥"}),
        ("药铺", "他在镇上开了一家药铺。", set()),  # no name opens the clause
        ("乐队", "青石乐队于2005年在江城组建。", set()),  # no 是 + classifier
    ],
)
def test_chinese_names_defined_as_the_asked_noun(noun: str, text: str, names: set[str]) -> None:
    from kg_rag.answer.reader import _zh_defined_as

    assert _zh_defined_as(noun, [text]) == names


@pytest.mark.parametrize(
    ("sentence", "name", "head", "factor"),
    [
        ("1930年起，书局的总编辑由邵启明担任。", "邵启明", "总编辑", 2.0),
        ("栎川电子的总经理一职由韩柏出任。", "韩柏", "总经理", 2.0),
        ("总编辑由邵启明推荐的人担任。", "邵启明", "总编辑", 1.0),  # no verb of office after him
    ],
)
def test_a_role_is_given_to_the_name_after_by(
    sentence: str, name: str, head: str, factor: float
) -> None:
    from kg_rag.answer.reader import _zh_holds_role

    a = sentence.index(name)
    assert _zh_holds_role(sentence, a, a + len(name), head, []) == factor


@pytest.mark.parametrize(
    ("sentence", "name", "article"),
    [
        ("She founded the Kell Arboretum in 1894.", "Kell Arboretum", True),
        ("The Kell Light stands on a rock.", "Kell Light", False),  # capital The: sentence start
        ("He was the pupil of Edmund Rusk.", "Edmund Rusk", False),
        ("It was granted by the Duke of Orm in 1700.", "Duke of Orm", False),  # a title
        ("It was blessed by the Reverend Ada Moe.", "Reverend Ada Moe", False),
        ("They bathe Ada Moe's dog.", "Ada Moe", False),  # "the" inside a word
        ("the Osk Valley Railway opened in 1903.", "Osk Valley Railway", True),
    ],
)
def test_a_name_written_after_the_is_no_persons(sentence: str, name: str, article: bool) -> None:
    from kg_rag.answer.reader import _article_before

    assert _article_before(sentence, sentence.index(name), name) is article


@pytest.mark.parametrize(
    ("query", "text", "extracted", "answer"),
    [
        (
            "出资修建望江戏园的茶商",
            "望江戏园位于沙汀镇，1893年落成，由茶商祁朔亭出资修建。",
            "茶商祁朔亭",
            "祁朔亭",
        ),
        (
            "创办鸥门书局的出版商",
            "鸥门书局于1921年由出版商闻人涟创办，总部设在鸥门市。",
            "出版商闻人涟",
            "闻人涟",
        ),
    ],
)
def test_the_asked_noun_before_a_name_is_its_apposition(
    tmp_path: Path, query: str, text: str, extracted: str, answer: str
) -> None:
    """Extraction may keep the role noun with the name (茶商祁朔亭): the step asks for that
    noun, so the name after it answers."""
    from kg_rag.models import Entity, Mention
    from kg_rag.retrieval.graph import EntityLinker
    from kg_rag.stores.embedded import EmbeddedGraphStore

    evidence = [
        Evidence(
            chunk_id="c0", doc_id="d", text=text, score=1.0, level="paragraph", char_end=len(text)
        )
    ]
    graph = EmbeddedGraphStore(tmp_path / "kb")
    graph.open()
    try:
        graph.upsert_entities([Entity(entity_id="g0", name=extracted, type="PERSON")])
        graph.upsert_mentions([Mention(entity_id="g0", chunk_id="c0", doc_id="d")])
        view = GraphView(linker=EntityLinker(graph), store=_Titles({"d": "d"}))
        best, _ = read_evidence(query, "PERSON", evidence, _linked(text[:4]), graph=view)
        assert best is not None and best.text == answer
    finally:
        graph.close()


_TOWNS = (
    "| Town | River | 1861 | 1891 |\n"
    "|------|-------|------|------|\n"
    "| Corlby | Wenn Water | 4,120 | 7,310 |\n"
    "| Corlbridge | River Sade | 1,940 | 2,660 |\n"
    "| Hatchley | (none) | 210 | 180 |"
)
_EDITIONS = (
    "| Edition | Year | Printer | Copies |\n"
    "|---------|------|---------|--------|\n"
    "| First | 1894 | Tom Verity | 600 |\n"
    "| Second | 1903 | Tom Verity | 1,000 |"
)
_ZH_WORKS = (
    "| 年代 | 事项 | 出资者 |\n"
    "|---|---|---|\n"
    "| 乾隆三年（1738年） | 始建 | 镇中众商 |\n"
    "| 嘉庆五年（1800年） | 重修大殿 | 盐商祁敬舟 |"
)
_ZH_TOWNS = (
    "| 地名 | 所临河流 | 人口（1936年） |\n"
    "|---|---|---|\n"
    "| 苇城 | 渌水 | 3.4万人 |\n"
    "| 苇汀镇 | 渌水 | 8600人 |\n"
    "| 石埠村 | 青溪 | 540人 |"
)


@pytest.mark.parametrize(
    ("query", "kind", "linked", "table", "answer"),
    [
        ("How many people lived in 1891 in Corlbridge", "NUMBER", "Corlbridge", _TOWNS, "2,660"),
        ("How many people lived in Corlbridge in 1861", "NUMBER", "Corlbridge", _TOWNS, "1,940"),
        ("How many inhabitants did Corlby have in 1891", "NUMBER", "Corlby", _TOWNS, "7,310"),
        ("On which river does Corlbridge stand", "LOCATION", "Corlbridge", _TOWNS, "River Sade"),
        ("On which river does Corlby stand", "LOCATION", "Corlby", _TOWNS, "Wenn Water"),
        ("苇汀镇1936年的人口是多少", "NUMBER", "苇汀镇", _ZH_TOWNS, "8600人"),
        ("苇城1936年有多少人口", "NUMBER", "苇城", _ZH_TOWNS, "3.4万人"),
        ("石埠村临哪条河流", "LOCATION", "石埠村", _ZH_TOWNS, "青溪"),
        ("鹤鸣寺嘉庆五年重修的出资者是谁", "PERSON", "鹤鸣寺", _ZH_WORKS, "祁敬舟"),
    ],
)
def test_a_table_is_read_by_the_row_and_the_column_the_question_names(
    query: str, kind: AnswerType, linked: str, table: str, answer: str
) -> None:
    """A Markdown table's value is the cell where the row the question names (its label)
    meets the column whose header it names; the other rows and columns hold distractors."""
    intro = "Both towns grew with the mines." if table is _TOWNS else "两地都靠河运兴起。"
    best, _ = read_evidence(query, kind, _ev(table, intro), _linked(linked))
    assert best is not None and best.text == answer


# A record of one subject: labels in the first column, values of several kinds in the second.
_RECORD = (
    "| Item | Detail |\n|---|---|\n| Founded | 1974, Yorwick |\n| Founder | Maddox Tirrel |\n"
    "| Chief executive | Hestrel Pellamy |\n| Staff | about 240 |"
)
_ZH_RECORD = (
    "| 项目 | 内容 |\n|---|---|\n| 创办 | 1992年 |\n| 创办人 | 蒋砚秋 |\n| 员工 | 约300人 |"
)
# Lists of like things: one kind of value per column (controls).
_HEADS = "| Director | In office |\n|---|---|\n| Maddox Tirrel | 1950–1961 |\n| Hestrel Pellamy | 1961–1970 |"
_EVENTS = (
    "| Year | Event |\n|---|---|\n| 1950 | Founded by Maddox Tirrel |\n| 1961 | Moved to Yorwick |"
)


@pytest.mark.parametrize(
    ("text", "pos_of", "query", "factor"),
    [
        (_TOWNS, "2,660", "How many people lived in 1891 in Corlbridge", 3.0),
        (_TOWNS, "1,940", "How many people lived in 1891 in Corlbridge", 0.3),  # other column
        (_TOWNS, "7,310", "How many people lived in 1891 in Corlbridge", 0.3),  # other row
        (_TOWNS, "River Sade", "Who founded Corlbridge", 1.0),  # no header named
        (_TOWNS, "7,310", "How many people lived in Varn in 1891", 1.0),  # no row named
        ("Corlbridge had 2,660 people in 1891.", "2,660", "How many lived in Corlbridge", 1.0),
        # A label of words the terms leave out is named when the question writes them all.
        (_EDITIONS, "1894", "In what year was the Tessick Ring Book first published", 3.0),
        (_EDITIONS, "1903", "In what year was the Tessick Ring Book first published", 0.3),
        (_EDITIONS, "1,000", "How many copies of the second edition were printed", 3.0),
        (_ZH_TOWNS, "8600", "苇汀镇1936年的人口是多少", 3.0),
        (_ZH_TOWNS, "540", "苇汀镇1936年的人口是多少", 0.3),
        # A bracketed gloss in a row label is an aside; a header's word may sit inside a longer
        # word of the question (出资 in 出资人).
        (_ZH_WORKS, "祁敬舟", "鹤鸣寺嘉庆五年重修的出资人", 3.0),
        (_ZH_WORKS, "重修大殿", "鹤鸣寺嘉庆五年重修的出资人", 0.3),
        (_ZH_WORKS, "镇中众商", "鹤鸣寺嘉庆五年重修的出资人", 0.3),
        # a record's label names a field, not a value
        (_RECORD, "Founder", "For which company did Maddox Tirrel work", 0.1),
        (_RECORD, "Chief executive", "Which firm did Hestrel Pellamy run", 0.1),
        (_ZH_RECORD, "创办人", "蒋砚秋曾在哪家公司工作", 0.1),
        # controls: a record's value; a list's first column (names, years)
        (_RECORD, "Hestrel Pellamy", "Who runs Brisk Lathe Works", 1.0),
        (_HEADS, "Maddox Tirrel", "Who was the first director of Brisk Lathe Works", 1.0),
        (_EVENTS, "1961", "When did Brisk Lathe Works move to Yorwick", 1.0),
    ],
)
def test_table_factor(text: str, pos_of: str, query: str, factor: float) -> None:
    from kg_rag.answer.reader import _table_factor

    assert _table_factor(text, text.index(pos_of), query, _term_set(query)) == factor


@pytest.mark.parametrize(
    ("rows", "record"),
    [
        ((("Founded", "1974"), ("Founder", "Maddox Tirrel")), True),
        ((("Staff", "about 240"), ("Head office", "Yorwick"), ("Owner", "Ondry plc")), True),
        ((("员工", "约300人"), ("创办人", "蒋砚秋")), True),
        ((("Maddox Tirrel", "1950–1961"), ("Hestrel Pellamy", "1961–1970")), False),  # all dates
        ((("1950", "Founded"), ("1961", "Moved")), False),  # numbers label the rows
        ((("Founder", "Maddox Tirrel"), ("Owner", "Ondry plc")), False),  # one kind of value
        ((("Founded", "1974"),), False),  # one row
        ((("Founded", "1974", "x"), ("Founder", "Maddox Tirrel", "y")), False),  # three columns
    ],
)
def test_a_record_table_is_told_from_a_list(
    rows: tuple[tuple[str, ...], ...], record: bool
) -> None:
    from kg_rag.answer.reader import _is_key_value

    assert _is_key_value(rows) is record


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("人口3.1万人", ["3.1万"]),
        ("41万人", ["41万"]),
        ("3,200 ft high", ["3,200"]),
        ("35.1 per km", ["35.1"]),
        ("2.5 million people", ["2.5 million"]),
        ("620人", ["620"]),
    ],
)
def test_a_decimal_before_a_chinese_unit_is_one_number(text: str, numbers: list[str]) -> None:
    from kg_rag.answer.reader import _NUMBER

    assert [m.group(0) for m in _NUMBER.finditer(text)] == numbers


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        (
            "father of Orm Vell the younger",
            "He was born at Tarnby in 1850, the eldest son of the ferryman Orm Vell, and took "
            "his father's name.",
            "Orm Vell the younger",
            "Orm Vell",
        ),
        (
            "Who was the father of Ada Moe Jr.",
            "Ada Moe Jr. (1901-1960) was a boatbuilder. His father, the carpenter Ada Moe, taught "
            "him the trade.",
            "Ada Moe Jr.",
            "Ada Moe",
        ),
        (  # no generation word: the question's own name never answers
            "Who was the father of Orm Vell",
            "Orm Vell was the son of the ferryman Tam Vell. Orm Vell sailed in 1871.",
            "Orm Vell",
            "Tam Vell",
        ),
    ],
)
def test_the_name_without_its_generation_word_is_another_person(
    query: str, text: str, linked: str, answer: str
) -> None:
    """ "Orm Vell the younger" and "Orm Vell" are two people: the bare name may answer a step
    about the one with the generation word."""
    best, _ = read_evidence(query, "PERSON", _ev(text), _linked(linked, type="PERSON"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        (
            "town where Brenmoor Mills had its head office",
            "Brenmoor Mills kept its head office on Tanner Street in Tansby, near its bankers.",
            "Tansby",
        ),
        (
            "In which town was the office of Brenmoor Mills",
            "The office of Brenmoor Mills stood at Hay Lane, Tansby, from 1850.",
            "Tansby",
        ),
        (
            "head office town of Brenmoor Mills",
            "Brenmoor Mills has had its head office on Quillet Row in Tansby since 1990.",
            "Tansby",
        ),
        (
            "In which town is the head office of Brenmoor Mills",
            "The head office of Brenmoor Mills is at 4 Orrin Crescent, Tansby.",
            "Tansby",
        ),
    ],
)
def test_a_street_is_no_town(query: str, text: str, answer: str) -> None:
    """A name whose class noun is a street's ("Tanner Street") answers no town, county or
    country question; the town the evidence puts the street in does."""
    best, _ = read_evidence(query, "LOCATION", _ev(text), _linked("Brenmoor Mills"))
    assert best is not None and best.text == answer


_DIRECTORS = (
    "| Managing director | Years |\n|---|---|\n| Orm Pellander | 1951–1986 |\n"
    "| Tam Pellander (his son) | 1986–2012 |\n| Wenna Salt | 2012– |"
)


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("Who has been managing director of Brenmoor Mills since 2012", "Wenna Salt"),
        ("Who was managing director of Brenmoor Mills until 2012", "Tam Pellander"),
        ("Who was managing director of Brenmoor Mills until 1986", "Orm Pellander"),
        ("Who has been managing director of Brenmoor Mills since 1986", "Tam Pellander"),
    ],
)
def test_a_span_of_years_tells_who_came_and_who_left_at_the_year(query: str, answer: str) -> None:
    """ "since 2012" asks who came in 2012: the row whose span starts then, not the one that
    ends then; "until 2012" asks who left then."""
    best, _ = read_evidence(query, "PERSON", _ev(_DIRECTORS), _linked("Brenmoor Mills"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "texts", "answer"),
    [
        (
            "When did Brenmoor Mills close",
            [
                "Brenmoor Mills was formed in 1859, when two weavers bought the old fulling mill.",
                "Trade fell away after the war, and Brenmoor Mills closed in 1911, nine years on.",
            ],
            "1911",
        ),
        (
            "In which year did Brenmoor Mills move to Tansby",
            [
                "Brenmoor Mills was founded in 1859 by two weavers at Hebbly on the Tarn.",
                "After the flood the firm's looms were carried down the valley, and Brenmoor Mills "
                "moved to Tansby in 1872.",
            ],
            "1872",
        ),
    ],
)
def test_the_verb_after_did_is_the_event_asked_for(
    query: str, texts: list[str], answer: str
) -> None:
    """ "When did X close?" asks for the date the evidence writes with "closed", not the one
    another event's participle dates ("formed in 1859") in a better-ranked passage."""
    best, _ = read_evidence(query, "DATE", _ev(*texts), _linked("Brenmoor Mills"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("title", "text", "extra", "holds"),
    [
        ("Ada Moe", "She was born in Tarnby in 1842, the daughter of a miller.", [], True),
        ("Ada Moe", "Born in Tarnby in 1842, she was taught by her father.", [], True),
        ("Orm Vell", "He was born in Tarnby in 1850, the son of a ferryman.", [], False),
        ("Ada Moe", "She died in Tarnby in 1901, aged fifty-nine.", [], False),
        # a namesake the linker added, with a span holding the subject, asks nothing more
        ("Ada Moe", "She was born in Tarnby in 1842.", [("Lise Moe", "Was Ada Moe")], True),
    ],
)
def test_a_claim_holds_in_the_subjects_own_article(
    title: str, text: str, extra: list[tuple[str, str]], holds: bool
) -> None:
    """ "Was Ada Moe born in Tarnby?" holds on "She was born in Tarnby" in the article titled
    with her name, not in another person's article nor on another event."""
    from kg_rag.answer.reader import verify_claim

    linked = [
        LinkedEntity(entity_id=f"e{i}", name=n, type="", method="exact", span=sp, weight=1.0)
        for i, (n, sp) in enumerate([("Ada Moe", "Ada Moe"), *extra, ("Tarnby", "Tarnby")])
    ]
    view = GraphView(store=_Titles({"d0": title}))
    ok, _ = verify_claim("Was Ada Moe born in Tarnby", _ev(text, doc="d0"), linked, view)
    assert ok is holds


@pytest.mark.parametrize(
    ("query", "expected", "text", "name", "answer"),
    [
        # "1,200个" beside Chinese characters is 1,200, never 200
        (
            "鹤鸣戏院有多少个座位",
            "NUMBER",
            "鹤鸣戏院共有1,200个座位，另设包厢12间。",
            "鹤鸣戏院",
            "1,200个",
        ),
        ("鹤鸣戏院有多少个座位", "NUMBER", "| 座位 | 1,200个 |", "鹤鸣戏院", "1,200个"),
        (
            "How many seats does Osk Hall have",
            "NUMBER",
            "Osk Hall has 1,200 seats.",
            "Osk Hall",
            "1,200",
        ),
        (
            "What was the revenue of Osk Mills in 2023",
            "NUMBER",
            "In 2023 the revenue of Osk Mills was $412 million, up from $377 million.",
            "Osk Mills",
            "$412 million",
        ),
        # a name of the question's words only, which carries the asked noun and extends a
        # linked name, is the thing asked for, not the linked one again
        (
            "preservation society that bought the Tarnby Branch",
            "ORGANIZATION",
            "The Tarnby Branch Preservation Society was founded by Ada Moe in 1974 and bought "
            "the Tarnby Branch in 1979.",
            "Tarnby Branch",
            "Tarnby Branch Preservation Society",
        ),
        (
            "society that bought the Tarnby Branch",
            "ORGANIZATION",
            "The Tarnby Branch was bought in 1979 by the Osk Valley Society.",
            "Tarnby Branch",
            "Osk Valley Society",
        ),
    ],
)
def test_whole_numbers_and_names_made_of_the_questions_words(
    query: str, expected: AnswerType, text: str, name: str, answer: str
) -> None:
    best, _ = read_evidence(query, expected, _ev(text), _linked(name))
    assert best is not None and best.text.startswith(answer)


@pytest.mark.parametrize(
    ("query", "linked", "texts", "answer"),
    [
        # "the Society's medal": a class noun with the article is a short form, no name
        (
            "Who is Tam Brisk's grandmother",
            "Tam Brisk",
            [
                "Tam Brisk, whose grandmother was a member, was given the Society's medal.",
                "He learned the sky from his grandmother Ada Moe.",
            ],
            "Ada Moe",
        ),
        (
            "Who runs the Grey Mill",
            "Grey Mill",
            ["The Grey Mill stands on the River, and the Company has it run by Ada Moe."],
            "Ada Moe",
        ),
        # a firm named after a person: the person's surname is no mention of the firm
        (
            "Who founded Holm Instruments",
            "Holm Instruments",
            [
                "In 1921 Ada Vell sold her works to Holm Instruments.",
                "Holm Instruments began in a rented room where Tam Holm founded it in 1889.",
            ],
            "Tam Holm",
        ),
    ],
)
def test_short_forms_and_eponyms(query: str, linked: str, texts: list[str], answer: str) -> None:
    best, _ = read_evidence(query, "PERSON", _ev(*texts), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "expected", "subject", "texts", "answer"),
    [
        # "In 1846 he started …": a pronoun after a fronted phrase of time carries the subject
        (
            "Which business did Tam Vell start",
            "ORGANIZATION",
            "Tam Vell",
            [
                "Tam Vell started out in business as a hide dealer in Wrayside, the market town "
                "of Osk.",
                "In 1846 he started the Holm Boot Company.",
            ],
            "Holm Boot Company",
        ),
        # a fronted date dates its clause's verb: "In 1880 it owned" is no merger
        (
            "In which year was the Holm Steam Company merged",
            "DATE",
            "Holm Steam Company",
            [
                "The Holm Steam Company was a ferry line. In 1880 it owned five steamers and "
                "carried the mails of the Holm Steam Company.",
                "In 1931 the two companies were merged.",
            ],
            "1931",
        ),
        # "she" after "he married Ada Brisk" is Ada, not the subject
        (
            "teacher of Tam Vell",
            "PERSON",
            "Tam Vell",
            [
                "Tam Vell was a basket maker at Osk. In 1850 he married Ada Brisk. She learned "
                "weaving from Orm Pike.",
                "Later the basket maker Tam Vell said that he had been taught the trade by Jon "
                "Hale.",
            ],
            "Jon Hale",
        ),
        # the one a subject married is a spouse, not the kin asked for
        (
            "grandmother of Ada Moe",
            "PERSON",
            "Ada Moe",
            [
                "In 1955 Ada Moe married the oboist Orm Brisk, whom she had met on tour.",
                "Her mother's mother, Edna Vell, was a weaver.",
            ],
            "Edna Vell",
        ),
    ],
)
def test_what_a_pronoun_and_a_fronted_date_carry(
    query: str, expected: AnswerType, subject: str, texts: list[str], answer: str
) -> None:
    """In the document about the subject: who a pronoun is, and what a date dates."""
    view = GraphView(store=_Titles({"d0": subject}))
    best, _ = read_evidence(query, expected, _ev(*texts, doc="d0"), _linked(subject), view)
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "verbs"),
    [
        ("In 1931 the two companies were merged into Osk Ferries.", ["merged"]),
        ("By 1880 it owned five steamers.", ["owned"]),
        ("In 1931, weakened by falling traffic, they were merged.", ["merged"]),
        ("In 1846 he moved to Osk and founded the company.", ["moved", "founded"]),
        ("The firm was founded in 1856.", []),  # the date is not fronted
    ],
)
def test_a_fronted_date_dates_its_clauses_verbs(sentence: str, verbs: list[str]) -> None:
    from kg_rag.answer.reader import _fronted_date_verbs

    a = sentence.index("1")
    assert _fronted_date_verbs(sentence, a, a + 4) == verbs


@pytest.mark.parametrize(
    ("title", "text", "span", "holds"),
    [
        # the claim's other name is the subject of the article the sentence stands in
        ("Orm Vell", "Her best-known pupil was Ada Moe, who later ran the school.", "", True),
        ("Orm Vell", "His only pupil, Ada Moe, took over the forge in 1890.", "", True),
        # the linker read the subject with the claim's auxiliary: the name is the same
        ("Orm Vell", "Her best-known pupil was Ada Moe.", "Was Ada Moe", True),
        # in another person's article, without the claim's relation, or in a sentence that
        # does not name the subject, it does not hold
        ("Tam Brisk", "Her best-known pupil was Ada Moe, who later ran the school.", "", False),
        ("Orm Vell", "Ada Moe bought the forge in 1890.", "", False),
        ("Orm Vell", "She made every pupil carry loads. Ada Moe came in 1890.", "", False),
    ],
)
def test_a_claims_other_name_may_be_the_article_it_stands_in(
    title: str, text: str, span: str, holds: bool
) -> None:
    """ "Was Ada Moe a pupil of Orm Vell?" holds on "Her best-known pupil was Ada Moe" in the
    article titled Orm Vell: "her" is the article's subject."""
    from kg_rag.answer.reader import verify_claim

    linked = [
        LinkedEntity(
            entity_id=f"e{i}", name=n, type="PERSON", method="exact", span=sp or n, weight=1.0
        )
        for i, (n, sp) in enumerate([("Ada Moe", span), ("Orm Vell", "")])
    ]
    view = GraphView(store=_Titles({"d0": title}))
    ok, _ = verify_claim("Was Ada Moe a pupil of Orm Vell", _ev(text, doc="d0"), linked, view)
    assert ok is holds


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("In 2020 Tarn Estates bought the cooperage for $2 million.", True),
        # a word of the article's name on another noun names something else
        ("Its oldest customer is Tarn Estates, which has bought Holm barrels since 1971.", False),
    ],
)
def test_a_claims_other_name_in_part_is_not_the_article(text: str, holds: bool) -> None:
    """ "Did Tarn Estates acquire Holm Cooperage?" in the article titled Holm Cooperage: the
    sentence that writes "Holm barrels" speaks of the barrels, not of the cooperage."""
    from kg_rag.answer.reader import verify_claim

    linked = [
        LinkedEntity(
            entity_id=f"e{i}", name=n, type="ORGANIZATION", method="exact", span=n, weight=1.0
        )
        for i, n in enumerate(["Tarn Estates", "Holm Cooperage"])
    ]
    view = GraphView(store=_Titles({"d0": "Holm Cooperage"}))
    ok, _ = verify_claim(
        "Did Tarn Estates acquire Holm Cooperage", _ev(text, doc="d0"), linked, view
    )
    assert ok is holds


@pytest.mark.parametrize(
    ("text", "name", "only"),
    [
        ("He was born in 1823, the eldest son of the mine captain Orm Vell.", "Orm Vell", True),
        ("She was the widow of Orm Vell.", "Orm Vell", True),
        ("Orm Vell was born in 1790.", "Orm Vell", False),
        ("Ada is the daughter of Orm Vell. Orm Vell died in 1850.", "Orm Vell", False),
        ("The firm of Orm Vell built boats.", "Orm Vell", False),  # no kin noun
        # the son, told apart by a generation word, is no mention of the father
        ("Orm Vell junior was born in 1833, the only child of Orm Vell.", "Orm Vell", True),
        ("Orm Vell the younger was the son of Orm Vell.", "Orm Vell", True),
        ("Orm Vell junior was the son of Orm Vell, and Orm Vell died in 1850.", "Orm Vell", False),
        # Chinese writes the kin noun after the name: 林某的侄子 is the nephew
        ("聂文昭，1851年生于篙溪村，是龚守拙的侄子。", "龚守拙", True),
        ("他父亲是龚守拙的哥哥，龚守拙之女嫁到了河西。", "龚守拙", True),
        ("龚守拙生于1820年，是龚家的长子。", "龚守拙", False),
        ("龚守拙的侄子聂文昭后来接手了铺子，龚守拙则回了乡。", "龚守拙", False),
    ],
)
def test_a_name_after_a_kin_noun_is_someone_elses_relative(
    text: str, name: str, only: bool
) -> None:
    from kg_rag.answer.reader import _only_as_kin

    assert _only_as_kin(text, name) is only


def test_a_date_of_the_son_is_not_the_fathers() -> None:
    """ "When was Orm Vell born?": the son's article says "He was born in 1823, the eldest son
    of Orm Vell"; the father's own sentence, ranked lower, holds his year."""
    texts = [
        "He was born at Tarnby in 1823, the eldest son of the mine captain Orm Vell.",
        "He was born in 1790 at Wrayside, a hamlet of moorland farms.",
    ]
    evidence = [
        Evidence(chunk_id="c0", doc_id="d0", text=texts[0], score=1.0, char_end=len(texts[0])),
        Evidence(chunk_id="c1", doc_id="d1", text=texts[1], score=0.9, char_end=len(texts[1])),
    ]
    view = GraphView(store=_Titles({"d0": "Orm Vell the younger", "d1": "Orm Vell"}))
    best, _ = read_evidence("When was Orm Vell born", "DATE", evidence, _linked("Orm Vell"), view)
    assert best is not None and best.text == "1790"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Their elder son, known as Orm Vell junior, became a surveyor.", "Orm Vell junior"),
        ("Orm Vell the younger (1864-1931) was the elder son of Orm Vell.", "Orm Vell the younger"),
        ("Orm Vell had one son, Orm Vell Jr., who ran the yard after him.", "Orm Vell Jr"),
    ],
)
def test_a_name_with_a_generation_word_is_the_sons(text: str, answer: str) -> None:
    """ "son of Orm Vell": the name with its generation word is another person, the son, and
    not the question's own name cut short."""
    best, _ = read_evidence("son of Orm Vell", "PERSON", _ev(text), _linked("Orm Vell"))
    assert best is not None and best.text == answer


def test_a_function_word_opening_the_sentence_is_no_part_of_a_name() -> None:
    """ "When the Kell Light Railway was finished …": the name is "Kell Light Railway"."""
    text = "When the Kell Light Railway was finished he set up as a consulting engineer."
    best, _ = read_evidence("Which railway was finished", "NAME", _ev(text), [])
    assert best is not None and best.text == "Kell Light Railway"


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        ("青芷书局1920年迁到了哪座城", "青芷书局于1920年迁往苇城，在旧址只留下一个门市。", "苇城"),
        ("邵启明晚年住在哪座城", "邵启明晚年移居苇城，在那里度过了最后十年。", "苇城"),
        ("渌水流经哪座城", "渌水自西向东流经苇城，在石埠汇入青溪。", "苇城"),
    ],
)
def test_a_one_character_head_noun_and_a_name_the_lexicon_lacks(
    query: str, text: str, answer: str
) -> None:
    """ "哪座城" asks for a 城: a word ending in it that the segmenter's lexicon lacks (苇城) is
    a name of that class, though tagged a common noun; a river (青溪) is not one."""
    best, _ = read_evidence(query, "LOCATION", _ev(text), _linked(query[:4]))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "pieces", "subject", "answer"),
    [
        # (article title, text) best first
        (
            "甘立衡出生在哪里",
            [
                ("甘立衡", "甘立衡生于芦沙镇，那是苇溪汇入澄川的地方。"),
                ("祁慕远", "他出生在芦塘镇，父亲是河上撑船的船工。"),
            ],
            "甘立衡",
            "芦沙镇",
        ),
        (
            "柏云舟是在哪里出生的",
            [
                ("韦敬安", "她出生于栎城，十四岁进了绣坊。"),
                ("柏云舟", "柏云舟生于苇汀镇，少年时随父亲跑船。"),
            ],
            "柏云舟",
            "苇汀镇",
        ),
        (
            "Where was Ivo Tarrant born",
            [
                (
                    "Osric Pellow",
                    "He was born in Brackby and apprenticed to a printer at fourteen.",
                ),
                ("Ivo Tarrant", "Ivo Tarrant grew up at Corlby, where his father kept a ferry."),
            ],
            "Ivo Tarrant",
            "Corlby",
        ),
        (
            "In which town was Maud Quillen born",
            [
                ("Edda Brisk", "She was born in Harrowfold and trained as a weaver."),
                (
                    "Maud Quillen",
                    "Maud Quillen was raised in Sennock, the daughter of a lock-keeper.",
                ),
            ],
            "Maud Quillen",
            "Sennock",
        ),
    ],
)
def test_a_pronouns_birth_in_another_persons_article_is_theirs(
    query: str, pieces: list[tuple[str, str]], subject: str, answer: str
) -> None:
    """ "He was born in X" in a piece that does not name the subject, of an article titled
    with another person's name, tells that person's birth: the subject's own sentence wins."""
    evidence = _ev(*(t for _, t in pieces))
    view = GraphView(store=_Titles({f"d{i}": title for i, (title, _) in enumerate(pieces)}))
    best, _ = read_evidence(query, "LOCATION", evidence, _linked(subject, type="PERSON"), view)
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "expected", "subject_type", "texts", "subject", "answer"),
    [
        # "…rivals are Quarrow Rovers, founded in 1923": the participle clause right after a
        # name dates that name, whatever kind of name it is, not the subject of the sentence.
        (
            "In what year was Pellmoor Athletic founded",
            "DATE",
            "ORGANIZATION",
            [
                "Athletic's local rivals are Quarrow Rovers, founded in 1923.",
                "Pellmoor Athletic is a football club. It was founded in 1911 by dock workers.",
            ],
            "Pellmoor Athletic",
            "1911",
        ),
        (
            "When did the Tansy Hall open",
            "DATE",
            "ORGANIZATION",
            [
                "The Tansy Hall stands beside the Wool Market, opened in 1872.",
                "The Tansy Hall opened its doors in 1901.",
            ],
            "Tansy Hall",
            "1901",
        ),
        (
            "When was the Orrin Mill built",
            "DATE",
            "ORGANIZATION",
            [
                "The Orrin Mill drew its water from the Selby Weir, built in 1790 by monks.",
                "The Orrin Mill was built in 1835 for a corn miller.",
            ],
            "Orrin Mill",
            "1835",
        ),
        (
            "When was Keld Press established",
            "DATE",
            "ORGANIZATION",
            [
                "Keld Press printed the Wyber Almanac, established in 1850.",
                "Keld Press was established in 1866 at Wrayside.",
            ],
            "Keld Press",
            "1866",
        ),
        # "Quillby, the fishing town where she was born": the birth (death) verb comes after
        # the place, in a relative clause on it; the place counts as the one the verb takes.
        (
            "Where was Wenna Coyle born",
            "LOCATION",
            "PERSON",
            [
                "Wenna Coyle (born 1950) founded the Pellstow Players in Harrowgate in 1990.",
                "Wenna Coyle grew up in Quillby, the fishing town where she was born.",
            ],
            "Wenna Coyle",
            "Quillby",
        ),
        (
            "In which town was Tobiah Marsk born",
            "LOCATION",
            "PERSON",
            [
                "Tobiah Marsk, born 1801, ran a foundry in Derrowmouth for thirty years.",
                "Tobiah Marsk went to school in Varnmouth, where he had been born in 1801.",
            ],
            "Tobiah Marsk",
            "Varnmouth",
        ),
        (
            "Where did Lida Grell die",
            "LOCATION",
            "PERSON",
            [
                "Lida Grell, who died in 1902, taught at Cawsand for forty years.",
                "Lida Grell spent her last years at Hesketh, the village in which she died.",
            ],
            "Lida Grell",
            "Hesketh",
        ),
        # "was established in 1846": the date the step's own event verb dates counts more
        # than a date in a sentence that names the subject but tells of something else.
        (
            "Tamber Lifeboat Station was established in which year",
            "DATE",
            "ORGANIZATION",
            [
                "Orm Tell was coxswain of the Tamber Lifeboat Station. He held the post until "
                "1871.",
                "The Tamber Lifeboat Station got a motor boat in 1924.",
                "The lifeboat station at Tamber was established in 1846 after a winter of wrecks.",
            ],
            "Tamber Lifeboat Station",
            "1846",
        ),
        (
            "When was Corran Quay built",
            "DATE",
            "ORGANIZATION",
            [
                "Corran Quay saw its busiest year in 1902, with four hundred sailings.",
                "Corran Quay was rebuilt after a storm in 1881 and again in 1930.",
                "The quay at Corran was built in 1788 of local granite.",
            ],
            "Corran Quay",
            "1788",
        ),
        (
            "In what year was Yarrow Bank founded",
            "DATE",
            "ORGANIZATION",
            [
                "Yarrow Bank lent to the Keswold mills from 1850 to 1880.",
                "Yarrow Bank moved its office to Keswold in 1862.",
                "The bank at Yarrow was founded in 1819 by two drapers.",
            ],
            "Yarrow Bank",
            "1819",
        ),
    ],
)
def test_whose_value_a_sentence_tells(
    query: str,
    expected: AnswerType,
    subject_type: str,
    texts: list[str],
    subject: str,
    answer: str,
) -> None:
    """Which name a value in a sentence belongs to, and which event it tells of, decides
    whether it answers the step (see the groups of rows)."""
    best, _ = read_evidence(query, expected, _ev(*texts), _linked(subject, type=subject_type))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "date", "event", "factor"),
    [
        # A year in brackets glosses the reign year before it; the clause goes on after the
        # bracket, and after the comma of a time phrase that opens the sentence.
        ("道光十年（1830年）生于栎溪镇，父亲是机户。", "1830年", "birth", 2.0),
        ("光绪二十七年（1901年），戚砚秋病逝于苕东镇。", "1901年", "birth", 0.5),
        ("光绪二十七年（1901年），戚砚秋病逝于苕东镇。", "1901年", "death", 2.0),
        ("道光十年（1830年）生于栎溪镇。", "1830年", "death", 0.5),
        # … but a clause of its own before the date keeps the comma a clause break.
        ("戚砚秋在栎溪镇读书到1850年，后来去世于苕东镇。", "1850年", "death", 1.0),
        ("1931年4月生，2009年在松城逝世。", "2009年", "death", 2.0),
    ],
)
def test_chinese_life_verb_beside_a_date(
    sentence: str, date: str, event: str, factor: float
) -> None:
    start = sentence.index(date)
    assert _zh_life_bonus(sentence, start, start + len(date), event) == factor


@pytest.mark.parametrize(
    ("sentence", "head", "known", "name"),
    [
        # The run before the head noun, back to punctuation or 的 …
        ("机户戚阿桂长年承接栎丰绸庄的放料。", "绸庄", set(), "承接栎丰绸庄"),
        # … or to the known name it ends in: a verb and its object are no name.
        ("机户戚阿桂长年承接栎丰绸庄的放料。", "绸庄", {"栎丰绸庄"}, "栎丰绸庄"),
        # A known run stays whole, a verb inside a name included.
        ("他在澄明光学实验室工作。", "实验室", {"澄明光学实验室"}, "澄明光学实验室"),
    ],
)
def test_head_compounds_end_at_known_names(
    sentence: str, head: str, known: set[str], name: str
) -> None:
    names = [sentence[a:b] for a, b, _ in _head_compounds(sentence, head, known)]
    assert name in names


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        # No unit asked: the address's last, smallest unit, though the county is said more
        ("岑望舒是哪里人", "澜口镇"),
        # a unit asked: that unit
        ("岑望舒出生在哪个县", "澜平县"),
    ],
)
def test_an_address_names_the_place_by_its_smallest_unit(query: str, answer: str) -> None:
    """A unit an address writes right before another (澜平县澜口镇) holds it: when the question
    names no unit, the held one answers if the evidence supports it half as well."""
    texts = [
        "岑望舒，道光二十年生于澜平县澜口镇，是镇上一家车行的次子。",
        "岑望舒一生住在澜平县，晚年也没有离开澜平县。",
        "岑望舒是澜平县有名的镖师。",
    ]
    entities = {
        f"c{i}": [(f"e{n}", n, "LOCATION") for n in ("澜平县", "澜口镇") if n in t]
        for i, t in enumerate(texts)
    }
    evidence = _ev(*texts)
    for e in evidence:
        e.doc_id = "d"
    graph = _Graph(entities, {"d": "岑望舒"})
    best, _ = read_evidence(query, "LOCATION", evidence, _linked("岑望舒", type="PERSON"), graph)
    assert best is not None and best.text == answer


def test_a_family_name_of_a_person_in_the_evidence_makes_a_name_a_persons() -> None:
    """ "Ilse Quistal" beside the person Tobin Quistal is a person's name: a who-question
    weighs it as one, so the spouse "married" names beats the father the evidence says more."""
    texts = [
        "In 1860 Orm Vell married Ilse Quistal, the daughter of the rockman Tobin Quistal.",
        "Orm Vell and Tobin Quistal sang in the choir that Tobin Quistal led.",
        "Tobin Quistal, a friend of Orm Vell, taught the quarrymen to sing.",
    ]
    graph = _Graph({f"c{i}": [("e1", "Tobin Quistal", "PERSON")] for i in range(3)}, {})
    linked = _linked("Orm Vell", type="PERSON")
    best, _ = read_evidence("Who is the spouse of Orm Vell", "PERSON", _ev(*texts), linked, graph)
    assert best is not None and best.text == "Ilse Quistal"
    # a place named with the same last word stays a place (its first word is no given name
    # the evidence writes as a person's)
    texts = ["Orm Vell was born at Quistal Cross, a village near the quarry."]
    best, _ = read_evidence("Where was Orm Vell born", "LOCATION", _ev(*texts), linked, graph)
    assert best is not None and best.text == "Quistal Cross"


@pytest.mark.parametrize(
    ("query", "kind", "expected"),
    [
        ("蓼川纸业公所成立于哪一年", "DATE", "同治八年"),
        # no name is cut out of the era year ("治八年蓼川纸业")
        ("谁是蓼川纸业公所的首任董事", "PERSON", "墨棠"),
    ],
)
def test_an_era_year_is_a_date_and_no_name(query: str, kind: str, expected: str) -> None:
    text = "同治八年蓼川纸业公所成立，墨棠被公推为首任董事。"
    best, _ = read_evidence(query, kind, _ev(text), _linked("蓼川纸业公所"))
    assert best is not None and best.text == expected


def test_an_opening_dates_a_founding_not_a_closing() -> None:
    texts = (
        "The Tamsk School was opened in 1849 over the market.",
        "The Tamsk School closed in 1911.",
    )
    best, _ = read_evidence(
        "When was the Tamsk School founded", "DATE", _ev(*texts), _linked("Tamsk School")
    )
    assert best is not None and best.text == "1849"


@pytest.mark.parametrize(
    ("query", "texts", "answer"),
    [
        # a written date (年, a month) is no count, however well its sentence matches
        (
            "蓼川商业学堂首届招了多少学生",
            (
                "民国二年（1913年），蓼川商业学堂改为县立商业学校，招收学生，并开始兼收女生。",
                "首届学生入学时共40名，多是钱庄子弟。",
            ),
            "40名",
        ),
        (
            "How many pupils did the Tamsk School take in its first year",
            (
                "In May 1913 the Tamsk School took pupils for the first year of its new course.",
                "The first year brought 40 pupils.",
            ),
            "40",
        ),
    ],
)
def test_a_written_date_is_no_count(query: str, texts: tuple[str, str], answer: str) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(*texts), _linked("Tamsk School", "蓼川商业学堂"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "goes_on"),
    [
        ("He was born in 1790.", True),
        ("In 1854, he died at Tarnby.", True),
        ("三年后，即咸丰四年（1854年），他病故于苇汀镇。", True),
        ("他生于1790年。", True),
        ("该铺于1851年开张。", True),
        ("三年后，他们搬到了苇汀镇。", False),  # they: not the one subject
        ("三年后，他的儿子接手了铺子。", False),  # his son's doing, not his
        ("咸丰四年，墨启明接手了铺子。", False),
    ],
)
def test_a_sentence_goes_on_about_the_subject_by_a_pronoun(sentence: str, goes_on: bool) -> None:
    from kg_rag.answer.reader import _PRONOUN_START

    assert bool(_PRONOUN_START.search(sentence)) is goes_on


@pytest.mark.parametrize(
    ("sentence", "word", "person"),
    [
        ("他研究移动设备上的增量索引，2011年获得博士学位。", "索引", False),  # 索引/nr, no surname
        ("师从钟岚舟教授，研究移动设备。", "钟岚舟", True),
        ("他与岑明一起创办了书局。", "岑明", True),  # a rare surname, no dictionary word
    ],
)
def test_a_chinese_person_name_opens_with_a_surname(sentence: str, word: str, person: bool) -> None:
    kinds = {sentence[a:b]: k for a, b, k in _cjk_candidates(sentence)}
    assert (kinds.get(word) == "PERSON") is person, kinds


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        (
            "How much did Marl City pay for Ada Venn",
            "In July 2021 she was sold to Marl City for £6.2 million.",
            "£6.2 million",
        ),
        (
            "How much did Varnley Mills cost",
            "Varnley Mills was bought in 1998 for $14 million by a fund.",
            "$14 million",
        ),
        (
            "What price did Hollisk Hall fetch",
            "Hollisk Hall was sold in 2004; the price was €3.5 million.",
            "€3.5 million",
        ),
    ],
)
def test_a_price_is_an_amount_with_its_currency_never_a_year(
    query: str, text: str, answer: str
) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked("Marl City", "Varnley Mills"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        (
            "蓼汀医学院是哪一年创建的",
            "蓼汀医学院创建于一九七八年，附属医院于1983年开业。",
            "一九七八年",
        ),
        ("棠坞书局是哪一年成立的", "棠坞书局成立于二〇〇二年，2015年迁到栖渔市。", "二〇〇二年"),
        ("棠坞书局是哪一年成立的", "棠坞书局于1953年成立，一九八〇年改制。", "1953年"),
    ],
)
def test_a_year_written_in_chinese_digits_is_a_date(query: str, text: str, answer: str) -> None:
    best, _ = read_evidence(query, "DATE", _ev(text), _linked("蓼汀医学院", "棠坞书局"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("他现任蓼川市第一人民医院院长。", "蓼川市第一人民医院"),
        ("她毕业于蓼川市第二中学，后来考入大学。", "蓼川市第二中学"),
        ("该厂原名蓼川市第三制药厂。", "蓼川市第三制药厂"),
    ],
)
def test_a_numbered_institution_of_a_place_is_one_name(sentence: str, name: str) -> None:
    kinds = {sentence[a:b]: k for a, b, k in _cjk_candidates(sentence)}
    assert kinds.get(name) == "ORGANIZATION", kinds


@pytest.mark.parametrize(
    ("sentence", "cut", "kept"),
    [
        # an event word (or a time word) after a name is no part of it
        ("1968年，她在岑州去世。", "岑州去世", "岑州"),
        ("1950年，苇川在汀泽出生。", "汀泽出生", "苇川"),
        ("次年，周岚在汀泽病逝。", "汀泽病逝", "周岚"),
    ],
)
def test_no_chinese_candidate_runs_into_the_event_after_it(
    sentence: str, cut: str, kept: str
) -> None:
    spans = {sentence[a:b] for a, b, _ in _cjk_candidates(sentence)}
    assert cut not in spans and kept in spans, spans


@pytest.mark.parametrize(
    ("query", "texts", "answer"),
    [
        (
            # a name that runs on to the class asked still answers, whole
            "brewery that produces Tarvey Stout",
            (
                "Our best-known beer is Tarvey Stout, first brewed in 1908 at Hollisk.",
                "The bars serve Tarvey Stout from the Hollisk Brewery, on draught.",
            ),
            "Hollisk Brewery",
        ),
    ],
)
def test_a_piece_of_a_longer_name_is_no_answer_of_another_class(
    query: str, texts: tuple[str, ...], answer: str
) -> None:
    best, _ = read_evidence(
        query, "ORGANIZATION", _ev(*texts), _linked("Marl Athletic", "Tarvey Stout")
    )
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        (
            "#1 2017年有多少名员工",
            "蓼汀科技在2014年有员工180名，2017年增至1200名，2020年达到3400名。",
            "1200",
        ),
        (
            "蓼汀科技的B轮融资额是多少",
            "蓼汀科技于2017年完成A轮融资8000万元；2018年完成B轮融资3.5亿元。",
            "3.5亿",
        ),
        (
            "How much money did Varnley Labs raise in its Series A",
            "Varnley Labs raised a $22 million Series A in 2019 and a $60 million Series B "
            "in 2022.",
            "$22 million",
        ),
        (
            "How many staff did Varnley Labs have in 2022",
            "Varnley Labs had 30 staff in 2019, 90 in 2022 and 140 in 2024.",
            "90",
        ),
    ],
)
def test_a_value_is_read_at_the_year_or_round_asked(query: str, text: str, answer: str) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked("Varnley Labs", "蓼汀科技"))
    assert best is not None and best.text.startswith(answer), best


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        ("芷溪全长多少公里", "芷溪发源于雁屏山，全长412公里，流经三县。", "芷溪", "412公里"),
        ("芷溪全长多少", "芷溪发源于雁屏山，全长412公里，流经三县。", "芷溪", "412公里"),
        (
            "1936年苓埠镇有多少人口",
            "1936年，苓埠镇有人口5300人，多以制伞为业。",
            "苓埠镇",
            "5300人",
        ),
        ("苓城的人口是多少", "民国十九年，苓城人口约2.7万人。", "苓城", "2.7万人"),
        (
            "蕖川体育场有多少个座位",
            "蕖川体育场于2009年落成，共有41000个座位。",
            "蕖川体育场",
            "41000个",
        ),
        (
            "蓼汀科技的B轮融资额是多少",
            "2018年，蓼汀科技完成B轮融资3.5亿元。",
            "蓼汀科技",
            "3.5亿元",
        ),
        ("蘅屿灯塔的灯光射程是多少海里", "蘅屿灯塔的灯光射程为18海里。", "蘅屿灯塔", "18海里"),
        ("苍澜台风是几级", "苍澜台风登陆时风力达12级。", "苍澜台风", "12级"),
        ("汀石桥有几孔", "汀石桥建于清代，共有5孔。", "汀石桥", "5孔"),
        # a measure in Chinese numerals, in the unit asked
        ("陆苇舟享年多少岁", "陆苇舟生于苓埠镇，享年八十三岁。", "陆苇舟", "八十三岁"),
        ("蘅屿灯塔的塔身高多少米", "蘅屿灯塔建于1906年，塔身高二十四米。", "蘅屿灯塔", "二十四米"),
        # ... and not in another unit: the count asked is the only number
        (
            "蕖川渔业合作社有多少名社员",
            "蕖川渔业合作社有社员40名，最年轻的只有十八岁。",
            "蕖川渔业合作社",
            "40名",
        ),
    ],
)
def test_a_chinese_quantity_keeps_its_unit(query: str, text: str, linked: str, answer: str) -> None:
    """A Chinese number with the unit or measure word written after it is one quantity, and
    the answer carries the unit as the evidence writes it (563公里, 7200人, 3.1万人)."""
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("number", "sentence", "whole"),
    [
        ("7200", "棠镇人口7200人。", "7200人"),
        ("200", "人口7200人，另有船200条。", "200条"),  # not the tail of 7200
        ("3.1万", "人口3.1万人。", "3.1万人"),
        ("410万", "全年接待游客410万人次。", "410万人次"),
        ("3000", "鼎盛时有工匠3000余人。", "3000余人"),
        ("64", "桥长64米。", "64米"),
        ("18.5", "出货量达18.5吉瓦时。", "18.5吉瓦时"),
        ("六卷", "全书共六卷。", "六卷"),  # a count with its measure word already
        ("286万", "常住人口约286万，是第二大城市。", "286万"),  # no unit written
    ],
)
def test_the_unit_written_after_a_chinese_number(number: str, sentence: str, whole: str) -> None:
    from kg_rag.answer.reader import _zh_with_unit

    assert _zh_with_unit(number, sentence) == whole


@pytest.mark.parametrize(
    ("query", "texts", "linked", "answer"),
    [
        # a sum of money is written in a currency, not in square kilometres or shops
        (
            "苓溪产业园2023年实现工业总产值多少",
            [
                "苓溪产业园2023年度情况：苓溪产业园规划面积32平方公里，入驻企业86家。",
                "2023年园区全年实现产值620亿元。",
            ],
            "苓溪产业园",
            "620亿元",
        ),
        (
            "蘩川旅行社的收购价格是多少",
            [
                "蘩川旅行社旗下拥有48家门店，2016年被芷汀酒店集团收购。",
                "芷汀酒店集团以3.8亿元收购了蘩川旅行社。",
            ],
            "蘩川旅行社",
            "3.8亿元",
        ),
        # a share (78%) counts nothing in the measure word asked (多少家)
        (
            "2023年芷汀酒店集团旗下有多少家酒店",
            [
                "2023年芷汀酒店集团旗下酒店平均入住率达到78%，资产负债率约为46%。",
                "截至2023年底，芷汀酒店集团旗下共有酒店126家。",
            ],
            "芷汀酒店集团",
            "126家",
        ),
    ],
)
def test_the_unit_of_a_chinese_quantity_says_what_it_measures(
    query: str, texts: list[str], linked: str, answer: str
) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(*texts), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "number", "not_money"),
    [
        ("规划面积32平方公里。", "32", True),
        ("旗下拥有48家门店。", "48", True),
        ("入住率达到78%。", "78", True),
        ("作价3.8亿元。", "3.8亿", False),
        ("资本定为20万两。", "20万", False),
        ("作价约12.6亿。", "12.6亿", False),  # no unit: may still be a sum
    ],
)
def test_a_chinese_number_written_in_no_currency(
    sentence: str, number: str, not_money: bool
) -> None:
    from kg_rag.answer.reader import _zh_not_money

    assert _zh_not_money(sentence, sentence.index(number) + len(number)) is not_money


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        (
            "蓿川剪铺何时开设",
            "蓿川剪铺在荻埠镇北街，嘉庆十九年（1814年）开设。",
            "蓿川剪铺",
            "嘉庆十九年（1814年）",
        ),
        (
            "蓿川剪铺哪一年歇业",
            "民国二十六年(1937年)，蓿川剪铺歇业。",
            "蓿川剪铺",
            "民国二十六年(1937年)",
        ),
        (
            "萸城惜字会何时成立",
            "萸城惜字会成立于道光八年（公元1828年），由众纸商捐建。",
            "萸城惜字会",
            "道光八年（公元1828年）",
        ),
    ],
)
def test_an_era_year_with_its_western_year_in_brackets_answers_whole(
    query: str, text: str, linked: str, answer: str
) -> None:
    """ "嘉庆二十年（1815年）" writes one date twice, by the era and by the Western calendar;
    the answer is the date as the evidence writes it, both ways."""
    best, _ = read_evidence(query, "DATE", _ev(text), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("date", "sentence", "whole"),
    [
        ("1814年", "嘉庆十九年（1814年）开设。", "嘉庆十九年（1814年）"),
        ("1823", "道光三年（1823）重修。", "道光三年（1823）"),
        ("1814年", "1814年开设，民国元年歇业。", "1814年"),  # no era year before it
        ("1937年", "民国二十六年（1936年）迁址，1937年歇业。", "1937年"),  # another year's era
    ],
)
def test_the_era_year_written_before_a_western_year(date: str, sentence: str, whole: str) -> None:
    from kg_rag.answer.reader import _zh_era_date

    assert _zh_era_date(date, sentence) == whole


_ZH_PAPER_MERCHANT = [
    "宓敬亭十三岁到蘅溪县城学徒，后来在蘅溪县开设纸行。",
    "宓敬亭是蘅溪县最有名的纸商，蘅溪县纸业公所由他发起。",
    "宓敬亭晚年仍住在蘅溪县。",
]


@pytest.mark.parametrize(
    ("query", "born", "village"),
    [
        ("宓敬亭生于哪里", "宓敬亭，嘉庆十年（1805年）生于蘅溪县青山村，家中世代务农。", "青山村"),
        ("宓敬亭生于何处", "宓敬亭生于蘅溪县江口村。", "江口村"),
        ("宓敬亭出生在哪里", "宓敬亭，1921年出生在蘅溪县东湖村。", "东湖村"),
    ],
)
def test_a_village_read_without_its_unit_is_closed_by_it(
    query: str, born: str, village: str
) -> None:
    """ "生于蘅溪县青山村", where the segmenter reads the village as 青山: the unit written right
    after a place's name closes it, so the address holds the village, and a birthplace is the
    village it ends on, however often other passages name the county."""
    best, _ = read_evidence(query, "LOCATION", _ev(born, *_ZH_PAPER_MERCHANT), _linked("宓敬亭"))
    assert best is not None and best.text == village


@pytest.mark.parametrize(
    ("query", "text", "linked", "answer"),
    [
        # the name runs on from the candidate to the asked noun: 附属第二医院 for 哪家医院
        (
            "宓晓舟曾任哪家医院的院长",
            "宓晓舟1995年起担任鹤屿医学院附属第二医院院长，任期十年。",
            "宓晓舟",
            "鹤屿医学院附属第二医院",
        ),
        # a run of nouns is headed by its last (酒店集团 → 集团), and the name ends there
        (
            "荻川旅行社被哪家酒店集团收购",
            "2016年3月，荻川旅行社被芷汀酒店集团收购，成为后者的全资子公司。",
            "荻川旅行社",
            "芷汀酒店集团",
        ),
    ],
)
def test_a_chinese_name_runs_on_to_the_asked_noun(
    query: str, text: str, linked: str, answer: str
) -> None:
    best, _ = read_evidence(query, "ORGANIZATION", _ev(text), _linked(linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("荻川旅行社被哪家酒店集团收购", "集团"),
        ("远帆光伏收购了哪家硅片企业", "企业"),
        ("蕖溪乐队与哪家唱片公司签约", "公司"),
    ],
)
def test_a_run_of_chinese_nouns_is_headed_by_its_last(query: str, head: str) -> None:
    from kg_rag.answer.reader import _zh_head_noun

    assert _zh_head_noun(query) == head


@pytest.mark.parametrize(
    ("query", "texts"),
    [
        (
            "2015年蘩川文学奖授予了谁",
            ["2009年的首届蘩川文学奖授予宓敬亭。", "谷少川2015年凭长篇小说获得蘩川文学奖。"],
        ),
        (
            "2015年蘩川文学奖得主是谁",
            ["2009年蘩川文学奖的得主是宓敬亭。", "谷少川于2015年获得蘩川文学奖。"],
        ),
    ],
)
def test_the_year_a_chinese_question_opens_with_dates_the_holder(
    query: str, texts: list[str]
) -> None:
    """ "2015年X奖得主是谁": a name said in a clause of another year (2009年…宓敬亭) holds the
    prize for that year, not the one asked."""
    best, _ = read_evidence(query, "PERSON", _ev(*texts), _linked("蘩川文学奖"))
    assert best is not None and best.text == "谷少川"


@pytest.mark.parametrize(
    ("query", "texts", "teacher"),
    [
        # a surname with a title stands for the person the text names in full with a title
        (
            "谷少川的师父是谁",
            [
                "谷少川十五岁进窑场，拜邵怀川师傅学艺。邵师傅教他拉坯。",
                "谷少川常说，手艺是邵师傅给的。",
            ],
            "邵怀川",
        ),
        # the title closes a teacher's name the segmenter cut before 和 ("and")
        (
            "谷少川的硕士导师是谁",
            [
                "谷少川：1990年考进荻川农科所读硕士，导师是葛蔚和先生。葛先生教我的第一件事是认稻子。"
            ],
            "葛蔚和",
        ),
    ],
)
def test_a_chinese_teacher_is_answered_by_the_full_name(
    query: str, texts: list[str], teacher: str
) -> None:
    best, _ = read_evidence(query, "PERSON", _ev(*texts), _linked("谷少川"))
    assert best is not None and best.text == teacher


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("谷少川的导师是谁", "导师"),
        ("柯秋苇的师父是谁", "师父"),
        ("桐苇中学的校长是谁？", "校长"),
        ("苓城1930年的人口是多少", "人口"),
    ],
)
def test_the_copula_and_wh_word_after_a_chinese_head_noun(query: str, head: str) -> None:
    from kg_rag.answer.reader import _zh_head_noun

    assert _zh_head_noun(query) == head


def test_a_name_after_the_copula_modifies_the_asked_noun() -> None:
    """是蘩川剪铺创办人苗德顺的侄子: the name opens the predicate's noun phrase, so it does not
    hold the role 侄子 (the clause's subject does)."""
    from kg_rag.answer.reader import _zh_holds_role

    s = "苗德安，咸丰元年出生，是蘩川剪铺创办人苗德顺的侄子。"
    a = s.index("蘩川剪铺")
    assert _zh_holds_role(s, a, a + 4, "侄子", [(a, a + 4, "NAME", None)]) == 0.5


@pytest.mark.parametrize(
    "other",
    [
        "九十年代末，荻味轩开出第一家分店。2016年3月，荻味轩正式加入蘩和餐饮集团，品牌名称保持不变。",
        "2019年，荻味轩被蘩和餐饮集团收购。",
    ],
)
def test_a_chinese_date_of_another_event_is_not_the_founding(other: str) -> None:
    """The clause a date opens tells its event: 2016年3月，…加入… dates a joining, 2019年…收购
    a sale, and neither answers 创办于哪一年."""
    best, _ = read_evidence(
        "荻味轩创办于哪一年",
        "DATE",
        _ev(other, "荻味轩的首店1987年在苓川市开业。"),
        _linked("荻味轩"),
    )
    assert best is not None and best.text == "1987年"


@pytest.mark.parametrize(
    ("sentence", "date", "factor"),
    [
        ("2016年3月，荻味轩正式加入蘩和餐饮集团。", "2016年3月", 0.5),  # another event
        ("1987年，荻味轩在苓川市开业。", "1987年", 1.0),  # the asked event
        ("2010年，成立仅一年的荻川网络被收购。", "2010年", 1.0),  # both: no objection
        ("1987年，荻味轩的首店迎来第一位客人。", "1987年", 1.0),  # no event verb
    ],
)
def test_the_event_a_chinese_date_opens(sentence: str, date: str, factor: float) -> None:
    from kg_rag.answer.reader import _ZH_EVENT_FAMILIES, _zh_event_date_factor

    end = sentence.index(date) + len(date)
    assert _zh_event_date_factor(sentence, end, _ZH_EVENT_FAMILIES[0]) == factor


def test_a_firm_read_as_its_trade_and_legal_form_takes_its_name() -> None:
    """ "苓川蘩岭种业股份有限公司" read as 种业股份有限公司: the words before it are its name."""
    text = (
        "（2016年3月18日，苓川）苓川蘩岭种业股份有限公司今日宣布，已完成对荻汀种苗有限公司的收购。"
    )
    best, _ = read_evidence(
        "哪家公司收购了荻汀种苗", "ORGANIZATION", _ev(text), _linked("荻汀种苗")
    )
    assert best is not None and best.text == "苓川蘩岭种业股份有限公司"


@pytest.mark.parametrize(
    ("sentence", "read", "whole"),
    [
        (
            "（苓川）苓川蘩岭种业股份有限公司今日宣布收购。",
            "种业股份有限公司",
            "苓川蘩岭种业股份有限公司",
        ),
        # back to the verb or a function character (glued on: 了芡阳), no further
        (
            "2021年，蕖锂新能源收购了芡阳荻汀储能系统有限公司。",
            "系统有限公司",
            "芡阳荻汀储能系统有限公司",
        ),
        ("今日宣布收购蕖锂系统有限公司。", "系统有限公司", "蕖锂系统有限公司"),
        ("蕖锂新能源今日宣布收购。", "蕖锂新能源", "蕖锂新能源"),  # no legal form: as it is
    ],
)
def test_the_name_before_a_firms_legal_form(sentence: str, read: str, whole: str) -> None:
    from kg_rag.answer.reader import _Candidate, _zh_whole_firm

    assert _zh_whole_firm(_Candidate(text=read, kind="ORGANIZATION"), sentence).text == whole


def test_a_birthplace_is_the_last_unit_of_its_address_whatever_the_graph_knows() -> None:
    """The graph relates the person to the county (蘅溪县), not to the village; the address
    that says where he was born still ends on the village, and that is the birthplace."""
    graph = _Graph({"c0": [("e5", "蘅溪县", "LOCATION"), ("e6", "苕湾村", "LOCATION")]}, {})
    text = "宓敬亭，嘉庆十年（1805年）生于蘅溪县苕湾村，家中世代务农。"
    best, _ = read_evidence(
        "宓敬亭生于哪里", "LOCATION", _ev(text), _linked("宓敬亭"), graph, related={"e5"}
    )
    assert best is not None and best.text == "苕湾村"


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        (
            "How many pages did the 1931 edition of Hollisk Days run to",
            "The 1931 edition of Hollisk Days came out in 1,200 copies of 240 pages.",
            "240",
        ),
        (
            "How many copies of Hollisk Days were printed in 1931",
            "The 1931 edition of Hollisk Days came out in 1,200 copies of 240 pages.",
            "1,200",
        ),
    ],
)
def test_a_count_is_the_number_written_before_the_noun_counted(
    query: str, text: str, answer: str
) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked("Hollisk Days"))
    assert best is not None and best.text == answer, best


@pytest.mark.parametrize(
    ("query", "texts", "linked", "answer"),
    [
        (
            "company that took over Hollisk Aircraft Works",
            (
                "Hollisk Aircraft Works (HAW) is an aircraft maker based in Marlford.",
                "HAW's best-known aircraft is the HW-40, a turboprop designed by HAW's team.",
                "Like many small makers, HAW struggled. After years of losses it was taken "
                "over by Varnley Aviation in 2019.",
            ),
            "Hollisk Aircraft Works",
            "Varnley Aviation",
        ),
        (
            "fund that picked up Hollisk Records",
            ("In 2015 Varnley Capital picked up Hollisk Records for a small sum.",),
            "Hollisk Records",
            "Varnley Capital",
        ),
        (
            "label that was bought out by Varnley Capital",
            ("Hollisk Records was bought out by Varnley Capital in 2015.",),
            "Varnley Capital",
            "Hollisk Records",
        ),
    ],
)
def test_phrasal_verbs_and_initials_in_relative_clauses(
    query: str, texts: tuple[str, ...], linked: str, answer: str
) -> None:
    best, _ = read_evidence(query, "ORGANIZATION", _ev(*texts), _linked(linked))
    assert best is not None and best.text == answer, best


def test_a_chinese_time_clause_before_de_is_no_relative_clause() -> None:
    """卓暮云读硕士时的导师: the supervisor at the time she studied, so 学位 (the object of 读)
    is no answer; the teacher is read whole although jieba cuts 温承/和 before the pause."""
    best, _ = read_evidence(
        "卓暮云读硕士时的导师是谁",
        "PERSON",
        _ev(
            "卓暮云早年在稷宁市农业科学院攻读硕士学位，师从水稻育种专家温承和，毕业后回乡创业。",
            "温承和先后指导过二十多名硕士研究生，其中秦望川在他门下读完硕士，后来成为首席育种家。",
        ),
        _linked("卓暮云"),
    )
    assert best is not None and best.text == "温承和"


@pytest.mark.parametrize(
    ("sentence", "name", "found"),
    [
        ("师从水稻育种专家温承和，毕业后回乡创业。", "温承和", True),  # 和 before a pause
        ("导师是专家温承和。", "温承和", True),
        ("导师是专家温承和秦望川。", "温承", True),  # 和 joins two names
        ("导师是专家温承和秦望川。", "温承和", False),
    ],
)
def test_a_chinese_name_ends_before_a_conjunction_with_something_to_join(
    sentence: str, name: str, found: bool
) -> None:
    from kg_rag.answer.reader import _cjk_candidates

    people = {sentence[a:b] for a, b, kind in _cjk_candidates(sentence) if kind == "PERSON"}
    assert (name in people) is found


@pytest.mark.parametrize(
    ("sentence", "teachers", "pupils"),
    [
        ("她师从水稻育种专家温承和，毕业后回乡创业。", ["水稻育种专家温承和"], []),
        ("秦望川在他门下读完硕士。", [], ["秦望川"]),
        ("2005年我收秦望川为徒。", [], ["秦望川"]),
        ("| 2019 | 秦望川（卓暮云弟子） |", [], ["秦望川"]),
    ],
)
def test_chinese_teacher_and_pupil_slots(
    sentence: str, teachers: list[str], pupils: list[str]
) -> None:
    from kg_rag.answer.reader import _ZH_TOOK_AS_PUPIL, _ZH_TOOK_AS_TEACHER, _slot_spans

    assert [sentence[a:b] for a, b in _slot_spans(_ZH_TOOK_AS_TEACHER, sentence)] == teachers
    assert [sentence[a:b] for a, b in _slot_spans(_ZH_TOOK_AS_PUPIL, sentence)] == pupils


@pytest.mark.parametrize(
    ("sentence", "word", "italic"),
    [
        ("She wrote *A Primer of the Straw Skep* (1894), a handbook.", "A Primer", True),
        ("The _Merrow Queen_ was built at Varn.", "Merrow Queen", True),
        ("He founded **Tallow & Reed**, the label.", "Tallow & Reed", False),  # bold: no title
        ("The rate was 2 * Varn Mill * 3.", "Varn Mill", False),
        ("He wrote *A Primer", "A Primer", False),  # never closed
    ],
)
def test_a_name_in_single_asterisks_or_underscores_is_a_title(
    sentence: str, word: str, italic: bool
) -> None:
    from kg_rag.answer.reader import _in_italics

    assert _in_italics(sentence, sentence.index(word)) is italic


@pytest.mark.parametrize(
    ("query", "kind", "texts", "answer"),
    [
        # a work's title in italics is no person, whatever part of it looks like a name
        (
            "first apprentice of Quenna Hollis",
            "PERSON",
            [
                "In 1887 a sixteen-year-old village boy, Bram Oake, asked to work for Quenna "
                "Hollis.",
                "Quenna Hollis wrote *A Primer of the Straw Skep* (1894), a short practical "
                "handbook for her apprentices.",
            ],
            "Bram Oake",
        ),
        # a transcript's turn opens after the speaker's name, as a sentence does
        (
            "In which town did Quenna Hollis grow up",
            "LOCATION",
            [
                "INTERVIEWER: Where did you grow up?",
                "QUENNA HOLLIS: In Tolvercombe, right in the middle of town.",
            ],
            "Tolvercombe",
        ),
        # … and the speaker's name is no answer, nor a number word opening the turn
        (
            "Who taught Quenna Hollis",
            "PERSON",
            [
                "INTERVIEWER: How old were you when you started?",
                "QUENNA HOLLIS: Eighteen. I wrote to Bram Oake and asked to work for him, and he "
                "taught me.",
            ],
            "Bram Oake",
        ),
    ],
)
def test_titles_and_turn_openings_are_no_names(
    query: str, kind: AnswerType, texts: list[str], answer: str
) -> None:
    best, _ = read_evidence(query, kind, _ev(*texts, doc="d0"), _linked("Quenna Hollis"))
    assert best is not None and best.text == answer


def test_a_pronoun_in_another_persons_document_tells_that_persons_facts() -> None:
    """ "He won the Varn Cup twice, in 1971 and 1986" in a piece of Bram Oake's obituary that
    names no one asked about: the years are his, not Ada Moe's."""
    view = GraphView(store=_Titles({"d0": "Bram Oake, beekeeper, 1931-2012", "d1": "Varn Cup"}))
    evidence = [
        *_ev(
            "In 1958 he moved down to Tarnby. He won the Varn Cup twice, in 1971 and 1986.",
            doc="d0",
        ),
        Evidence(chunk_id="c9", doc_id="d1", text="| 1979 | Ada Moe | sack mead |", score=0.5),
    ]
    best, _ = read_evidence(
        "year that Ada Moe won the Varn Cup",
        "DATE",
        evidence,
        _linked("Ada Moe", type="PERSON"),
        graph=view,
    )
    assert best is not None and best.text == "1979"


@pytest.mark.parametrize(
    ("row", "name", "year", "factor"),
    [
        # a span of years in the row holds the year asked, or does not
        ("| Bram Oake | 1966–1983 |", "Bram Oake", "1979", 2.0),
        ("| Orm Vell | 1983–2001 |", "Orm Vell", "1979", 0.35),
        ("| Ada Moe | 2019– |", "Ada Moe", "2023", 2.0),
        ("| 1979 | Ada Moe |", "Ada Moe", "1979", 2.0),
        ("| 1971 | Ada Moe |", "Ada Moe", "1979", 0.35),
        ("| Ada Moe | clover honey |", "Ada Moe", "1979", 1.0),
    ],
)
def test_a_table_row_answers_for_the_year_it_holds(
    row: str, name: str, year: str, factor: float
) -> None:
    from kg_rag.answer.reader import _row_year_factor

    assert _row_year_factor(row, row.index(name), [(0, year)]) == factor


def test_a_tables_header_row_names_no_answer() -> None:
    table = (
        "The Varn Guild has been chaired by:\n\n| Chair | Term |\n|---|---|\n"
        "| Quenna Hollis | 1949–1966 |\n| Bram Oake | 1966–1983 |"
    )
    best, _ = read_evidence(
        "who chaired the Varn Guild in 1979", "PERSON", _ev(table), _linked("Varn Guild")
    )
    assert best is None or best.text not in ("Chair", "Term")


_RAISED = [
    "柏川奖是苇州市茶叶协会设立的制茶奖，奖金原为1万元，自2015年起由企业冠名赞助，奖金提高到5万元。",
    "Varn Cottage Hospital opened with originally 40 beds; in 1990 the number was increased "
    "to 120.",
]


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        # the value it was raised to is the one now; the former one answers only "originally"
        ("柏川奖的奖金是多少", _RAISED[0], "5万"),
        ("柏川奖原来的奖金是多少", _RAISED[0], "1万"),
        ("How many beds does Varn Cottage Hospital have", _RAISED[1], "120"),
        ("How many beds did Varn Cottage Hospital originally have", _RAISED[1], "40"),
        # a question dated by a year asks the value then, whichever it is
        (
            "How many beds did Varn Cottage Hospital have in 1950",
            "Varn Cottage Hospital had 40 beds in 1950; in 1990 the number was increased to 120.",
            "40",
        ),
    ],
)
def test_a_value_raised_or_changed_to_is_the_current_one(
    query: str, text: str, answer: str
) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked("柏川奖", "Varn Cottage Hospital"))
    assert best is not None and best.text.startswith(answer)


@pytest.mark.parametrize(
    "text",
    [
        "Quell Meadery merged with Tarnby Mead Works in 1974 to form the Varn Mead Company.",
        "In 1974 Tarnby Mead Works merged with Quell Meadery, a small hill brewery, and the "
        "combined business took the name Varn Mead Company.",
    ],
)
def test_what_a_merger_formed_is_no_party_to_it(text: str) -> None:
    best, _ = read_evidence(
        "company that Quell Meadery merged with",
        "ORGANIZATION",
        _ev(text),
        _linked("Quell Meadery"),
    )
    assert best is not None and best.text == "Tarnby Mead Works"


_HANDED_ON = (
    "Orm Vell, who has died aged 87, was keeper of Tarnby Lock from 1956 until 1991, when his "
    "daughter Ada Vell took over the lock cottage and the job."
)


@pytest.mark.parametrize(
    ("query", "texts", "answer"),
    [
        # a successor named in the clause of the year the tenure ended came then
        ("Who was keeper of Tarnby Lock until 1991", [_HANDED_ON], "Orm Vell"),
        ("Who has been keeper of Tarnby Lock since 1991", [_HANDED_ON], "Ada Vell"),
        # "whose father had kept the lock": the clause's verb is the father's
        (
            "Who was keeper of Tarnby Lock",
            [
                "Lock keeper Ada Vell, whose father had kept Tarnby Lock for thirty-five years, "
                "opened the top gate.",
                "Orm Vell was keeper of Tarnby Lock.",
            ],
            "Orm Vell",
        ),
    ],
)
def test_successors_and_kin_clauses_tell_who_held_a_post(
    query: str, texts: list[str], answer: str
) -> None:
    best, _ = read_evidence(query, "PERSON", _ev(*texts), _linked("Tarnby Lock"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("Who is the head coach of Tarnby City?", True),
        ("Who directs the Vell Institute?", True),
        ("Who heads the Orm Academy today?", True),
        ("Who has been chair of the Kell Trust?", True),
        ("the person who runs the Kell Trust", True),
        ("who currently runs the Varn Line", True),
        ("head coach of Tarnby City", True),  # a post named with no verb: its holder now
        ("current president of the Kell Society", True),
        ("瓯江研究所现任所长是谁", True),
        ("榫林家具现在的总经理是谁", True),
        # another time, or no post
        ("Who was the head coach of Tarnby City?", False),
        ("Who directed the Vell Institute?", False),
        ("Who was chair of the Kell Trust in 1990?", False),
        ("2016年瓯江研究所的所长是谁", False),
        ("Who is the founder of the Kell Trust?", False),
        ("first principal of the Orm Academy", False),
        ("founder of the Varn Line", False),
        ("wife of the Kell Trust's chair", False),
        ("瓯江研究所的首任所长是谁", False),
    ],
)
def test_a_question_about_who_holds_a_post_now(query: str, now: bool) -> None:
    assert _asks_now(query) is now


@pytest.mark.parametrize(
    ("sentence", "name", "factor"),
    [
        # a tenure that ended, or one a successor took over
        ("Orm Vell coached the club from 2011 to 2018, then left.", "Orm Vell", 0.4),
        ("She succeeded Ada Moe, who led it from 1994 to 2012.", "Ada Moe", 0.4),
        ("The former director Bram Oake opened the wing.", "Bram Oake", 0.4),
        ("Bram Oake stepped down in 2019.", "Bram Oake", 0.4),
        ("沈立言（2005—2017）曾任院长。", "沈立言", 0.4),
        ("2011年起，庞远舟转任名誉董事长。", "庞远舟", 0.4),
        # one that goes on, or a successor
        ("He was succeeded by Ida Lund, who has been head coach since 2018.", "Ida Lund", 1.5),
        ("The institute has been directed by Ida Lund since 2012.", "Ida Lund", 1.5),
        ("Since 2015 the line has been run by chief executive Ida Lund.", "Ida Lund", 1.5),
        ("Ida Lund succeeded him in 2018.", "Ida Lund", 1.5),
        ("The current president Ida Lund opened it.", "Ida Lund", 1.5),
        ("现任院长顾明远，1965年生。", "顾明远", 1.5),
        ("2020年，乔雨桐接替父亲出任总裁。", "乔雨桐", 1.5),
        ("总裁乔雨桐自2020年起负责经营。", "乔雨桐", 1.5),
        # nothing said of its time, a birth year, or the kin of the holder
        ("Ida Lund opened the new wing.", "Ida Lund", 1.0),
        ("**乔振声**（1955年—），教育企业家。", "乔振声", 1.0),
        ("2011年起，公司由裴守山之子裴嘉禾出任董事长。", "裴守山", 1.0),
        ("2011年起，公司由裴守山之子裴嘉禾出任董事长。", "裴嘉禾", 1.5),
    ],
)
def test_the_holder_now_by_the_time_its_clause_gives(
    sentence: str, name: str, factor: float
) -> None:
    a = sentence.index(name)
    assert _holder_now_factor(sentence, a, a + len(name)) == factor


_SUCCESSION = [
    "Ada Moe headed the Vell Institute from 1994 to 2012 and oversaw its move to Tarnby.",
    "She was succeeded by Ida Lund, who has been the institute's head since 2012.",
]


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("Who heads the Vell Institute?", "Ida Lund"),
        ("Who is the current head of the Vell Institute?", "Ida Lund"),
        ("Who was head of the Vell Institute when it moved to Tarnby?", "Ada Moe"),
    ],
)
def test_a_present_question_reads_the_holder_now(query: str, answer: str) -> None:
    best, _ = read_evidence(query, "PERSON", _ev(*_SUCCESSION, doc="d0"), _linked("Vell Institute"))
    assert best is not None and best.text == answer


_RENAMED_FIRM = [
    "In 1974 the firm was renamed Varn Timekeeping Ltd.",
    "Varn Timekeeping Ltd began in 1861 as a small workshop in Tarnby.",
]


@pytest.mark.parametrize(
    ("query", "texts", "answer"),
    [
        # a year a naming dates is not the founding's
        ("When was Varn Timekeeping Ltd founded", _RENAMED_FIRM, "1861"),
        ("When was Varn Timekeeping Ltd established", _RENAMED_FIRM, "1861"),
        # (controls: the founding said with its own verb wins either way)
        (
            "When was Varn Timekeeping Ltd founded",
            [
                "- 1974 – Adopted the name Varn Timekeeping Ltd, after the move to electronics.",
                "Varn Timekeeping Ltd traces its roots to 1861, when Orm Varn opened a workshop.",
            ],
            "1861",
        ),
        (
            "瓯川钟表公司成立于哪一年",
            [
                "1974年，瓯川钟表厂更名为瓯川钟表公司。",
                "瓯川钟表公司的前身瓯川钟表厂成立于1958年。",
            ],
            "1958年",
        ),
        # a naming and a founding said together: the year stays the founding's
        (
            "When was Kell Mill founded",
            ["Kell Mill was founded in 1850 and renamed Kell Works in 1900."],
            "1850",
        ),
    ],
)
def test_a_naming_dates_no_founding(query: str, texts: list[str], answer: str) -> None:
    linked = ["瓯川钟表公司"] if "瓯川" in query else [query.split(" was ")[1].rsplit(" ", 1)[0]]
    best, _ = read_evidence(query, "DATE", _ev(*texts, doc="d0"), _linked(*linked))
    assert best is not None and best.text == answer


# A relation said from the other side, or in a construction of its own, answers the step.
CONVERSE_ROWS = [
    (
        "mentor of Quenna Hollis",
        "PERSON",
        [
            "Quenna Hollis was born in Tarnby, where her father, Orm Hollis, kept the ferry.",
            "In 1890 she became the pupil of Bram Oake, the astronomer, who taught her to grind "
            "lenses.",
        ],
        ["Quenna Hollis"],
        "Bram Oake",
    ),
    (
        "teacher of Quenna Hollis",
        "PERSON",
        [
            "Quenna Hollis was born in Tarnby, where her father, Orm Hollis, kept the ferry.",
            "At sixteen she was taken on as an apprentice of Bram Oake at the observatory.",
        ],
        ["Quenna Hollis"],
        "Bram Oake",
    ),
    (
        "柯晚晴的师父",
        "PERSON",
        ["柯晚晴与画友郗远山同住一院，后来拜邴守拙为师，专攻针灸。"],
        ["柯晚晴"],
        "邴守拙",
    ),
    (
        "柯晚晴的老师",
        "PERSON",
        ["柯晚晴和郗远山同年进京，不久拜名医邴守拙为师。"],
        ["柯晚晴"],
        "邴守拙",
    ),
    # 收Y为徒 and "Y（X弟子）" name X's pupil, the converse of X's teacher
    (
        "祁暮秋的师父",
        "PERSON",
        [
            "祁暮秋十四岁进戏班，由邴守拙带着学戏。",
            "祁暮秋：1990年我收秦远山为徒，她肯吃苦。",
        ],
        ["祁暮秋"],
        "邴守拙",
    ),
    (
        "祁暮秋的师父",
        "PERSON",
        [
            "| 年份 | 得主 | 剧目 |\n|---|---|---|\n| 1988 | 邴守拙 | 《寒江月》 |\n"
            "| 2019 | 秦远山（祁暮秋弟子） | 《寒江月》（复排） |",
            "祁暮秋十四岁进戏班，由邴守拙带着学戏。",
        ],
        ["祁暮秋"],
        "邴守拙",
    ),
    (
        "祁暮秋的徒弟",
        "PERSON",
        ["岑怀素收祁暮秋为徒，那年她十四岁。", "1990年，祁暮秋收秦远山为弟子。"],
        ["祁暮秋"],
        "秦远山",
    ),
    (
        "祁暮秋的弟子",
        "PERSON",
        ["祁暮秋早年拜岑怀素为师，晚年只带过秦远山（祁暮秋弟子）一人。"],
        ["祁暮秋"],
        "秦远山",
    ),
    # kin said from the child's side: "X, son of Y" names X's father, not the "grandson of Z"
    (
        "father of Quenna Hollis",
        "PERSON",
        [
            "Quenna Hollis, son of Bram Oake, was a ferryman. He was killed by Orm Vell, "
            "grandson of Tarrant Moe."
        ],
        ["Quenna Hollis"],
        "Bram Oake",
    ),
    # of two parents named, the father is the first
    (
        "father of Quenna Hollis",
        "PERSON",
        ["Quenna Hollis was the daughter of Bram Oake and his wife, Isolde Varne."],
        ["Quenna Hollis"],
        "Bram Oake",
    ),
    (
        "蔺秋白的老师",
        "PERSON",
        ["蔺秋白与画友郗远山同住一院，早年师从邴守拙，专攻山水。"],
        ["蔺秋白"],
        "邴守拙",
    ),
]


@pytest.mark.parametrize(("query", "kind", "texts", "linked", "answer"), CONVERSE_ROWS)
def test_a_relation_said_from_the_other_side_answers(
    query: str, kind: AnswerType, texts: list[str], linked: list[str], answer: str
) -> None:
    best, _ = read_evidence(query, kind, _ev(*texts, doc="d0"), _linked(*linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "texts", "linked", "answer"),
    [
        # the subject is named only as another's kin: the birth told is that other one's
        (
            "邴守拙是哪一年出生的",
            [
                "郗远山，咸丰元年（1851年）生于苍梧镇，是邴守拙的长子。",
                "邴守拙，嘉庆二十二年生于苍梧镇。",
            ],
            ["邴守拙"],
            "嘉庆二十二年",
        ),
        (
            "In which year was Bram Oake born",
            [
                "Quenna Hollis, the niece of Bram Oake, was born in 1851 at Tarnby.",
                "Bram Oake was born in 1822 at Tarnby, the son of a ferryman.",
            ],
            ["Bram Oake"],
            "1822",
        ),
    ],
)
def test_a_birth_told_of_the_subjects_kin_is_not_the_subjects(
    query: str, texts: list[str], linked: list[str], answer: str
) -> None:
    best, _ = read_evidence(query, "DATE", _ev(*texts), _linked(*linked))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "names", "share"),
    [
        # a namesake told apart by a generation word: certainly another person
        (
            "Bram Oake junior was born in 1834 at Cradmoor, the row under the hill",
            ["Bram Oake"],
            0.1,
        ),
        ("Bram Oake the younger was born at Tarnby.", ["Bram Oake"], 0.1),
        ("Quenna Hollis was born in 1850.", ["Bram Oake"], 0.4),
        # someone's kin is the subject of the life event
        (
            "He lived at first in a cottage at Cradmoor, where his only son, who was given his "
            "own name, was born.",
            ["Bram Oake"],
            0.4,
        ),
        ("Her daughter was born at Tarnby in 1850.", ["Bram Oake"], 0.4),
        ("Quenna Hollis's son died at Tarnby.", ["Bram Oake"], 0.4),
        # … either way round: the father's birth for a question about the son
        (
            "Bram Oake, for thirty years the ferryman of Tarnby Quay, was born in 1781 at Varn.",
            ["Bram Oake junior"],
            0.1,
        ),
        # a name inside an appositive or a relative clause is no subject of the verb
        (
            "Bram Oake, the first foreman of the Tarnby Boot Company, was born in 1804 at Varn.",
            ["Bram Oake"],
            1.0,
        ),
        (
            "Bram Oake junior, who founded the Tarnby Boot Works, was born in 1831 at Varn.",
            ["Tarnby Boot Works"],
            1.0,
        ),
        (
            "Quenna Hollis, the first foreman of the Tarnby Boot Company, was born in 1804.",
            ["Bram Oake"],
            0.4,
        ),
        ("Bram Oake (1801-1874) was born at Tarnby.", ["Bram Oake"], 1.0),
        ("In 1801 Oake was born at Tarnby.", ["Bram Oake"], 1.0),
        ("Bram Oake junior was born in 1834.", ["Bram Oake junior"], 1.0),
        ("He was born in 1850.", ["Bram Oake"], 1.0),  # a pronoun: the sentence before says
        ("Bram Oake, the ferryman, was born at Tarnby.", ["Bram Oake"], 1.0),
        ("Bram Oake was born at Tarnby, the son of a hedger.", ["Bram Oake"], 1.0),
    ],
)
def test_whose_birth_a_sentence_tells(sentence: str, names: list[str], share: float) -> None:
    event = "death" if "died" in sentence else "birth"
    assert _another_is_born(sentence, event, names) == share


@pytest.mark.parametrize(
    ("query", "texts"),
    [
        (
            "Where was the elder Bram Oake born",
            [
                "Bram Oake junior was born in 1834 at Cradmoor, where his father, the ferryman "
                "Bram Oake, then lived.",
                "Bram Oake, the ferryman, was born in 1801 at Tarnby, the son of a hedger.",
            ],
        ),
        (
            "Where was the elder Bram Oake born",
            [
                "Bram Oake junior was born in 1834 at Cradmoor, where his father, the ferryman "
                "Bram Oake, then lived.",
                "The ferryman came to Cradmoor from Tarnby, the village where he was born.",
            ],
        ),
        (
            "Where was Bram Oake junior born",
            [
                "Bram Oake, for thirty years the ferryman of Varn Quay, was born in 1781 at "
                "Cradmoor, the son of a hedger.",
                "His son was raised at Varn. Bram Oake junior came from Tarnby.",
            ],
        ),
        (
            "Where was Bram Oake born",
            [
                "Bram Oake married in 1830 and lived at first in a cottage at Cradmoor, below "
                "the quarry, where his only son was born.",
                "Bram Oake, the ferryman, came from Tarnby.",
            ],
        ),
    ],
)
def test_a_namesakes_or_a_sons_birth_is_not_the_subjects(query: str, texts: list[str]) -> None:
    subject = "Bram Oake junior" if "junior" in query else "Bram Oake"
    best, _ = read_evidence(query, "LOCATION", _ev(*texts), _linked(subject))
    assert best is not None and best.text == "Tarnby"


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("郗记米行的总部在哪个县", "蕺溪县"),  # the unit asked, whatever jieba cut
        ("郗记米行的总部在哪个镇", "鹬湾镇"),
    ],
)
def test_a_chinese_address_answers_with_the_unit_asked(query: str, answer: str) -> None:
    text = "郗记米行创立于1990年。公司总部位于蕺溪县鹬湾镇，专营粮油。"
    best, _ = read_evidence(query, "LOCATION", _ev(text), _linked("郗记米行"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("query", "kind", "texts", "entities", "linked", "answer"),
    [
        # a sale price is an amount of money: not a count of the same subject, nor a year
        (
            "How much did Quellan Freight fetch when it was sold",
            "NUMBER",
            [
                "Quellan Freight was a shipping company that traded from 1976 until 2012.",
                "By 1995 Quellan Freight ran 23 ships, employed 1,900 people and carried "
                "410,000 tonnes a year.",
                "Fuel prices hurt the line after 2001, and in 2009 Quellan Freight was acquired "
                "by Gorsebrook Salvage for US$412 million.",
            ],
            [],
            "Quellan Freight",
            "$412 million",
        ),
        # a heading in capitals is no name, whatever the extraction made of it
        (
            "Which company did Quellan Freight acquire in 2018",
            "ORGANIZATION",
            [
                "QUELLAN FREIGHT — ANNUAL REPORT 2019\nChair's letter, by Ysmay Quorrel",
                "In 2018 we completed the acquisition of Gorsebrook Salvage Ltd, the tug operator.",
            ],
            [("e9", "ANNUAL REPORT", "ORGANIZATION")],
            "Quellan Freight",
            "Gorsebrook Salvage Ltd",
        ),
        # the body asked for runs on over "of" and its complement, whatever its class noun
        (
            "Which organisation hands out the Skelmarr Cup",
            "ORGANIZATION",
            [
                "The Skelmarr Cup is the highest honour given by the Guild of Harbour Pilots.",
                "The Guild's council decides each year whether a pilot deserves it.",
            ],
            [("e1", "Guild", "ORGANIZATION")],
            "Skelmarr Cup",
            "Guild of Harbour Pilots",
        ),
        # a place after "in" locates the asked noun: it is not the tannery's name
        (
            "Which tannery did Quellan Freight buy",
            "ORGANIZATION",
            [
                "Its finance officer, Ysmay Quorrel, came to Quellan Freight in 2006 from a "
                "tannery in Larrowby.",
                "In 2012 the group moved into leather for the first time with Marrisk Tannery, a "
                "works in Colbrey.",
            ],
            [("e2", "Larrowby", "LOCATION"), ("e3", "Marrisk Tannery", "ORGANIZATION")],
            "Quellan Freight",
            "Marrisk Tannery",
        ),
    ],
)
def test_prices_whole_names_of_bodies_and_no_headings(
    query: str,
    kind: AnswerType,
    texts: list[str],
    entities: list[tuple[str, str, str]],
    linked: str,
    answer: str,
) -> None:
    evidence = _ev(*texts, doc="d0")
    graph = _Graph({e.chunk_id: entities for e in evidence}, {})
    best, _ = read_evidence(query, kind, evidence, _linked(linked), graph)
    assert best is not None and best.text.endswith(answer)


def test_a_name_closing_on_an_award_noun_is_no_person() -> None:
    # typed a person by the extraction (named after one), the medal is read as a name
    texts = [
        "The Skelmarr Medal is awarded by the Guild of Harbour Pilots for seamanship.",
        "The Guild of Harbour Pilots was founded in 1963 by pilots of Colbrey.",
    ]
    evidence = _ev(*texts, doc="d0")
    graph = _Graph({e.chunk_id: [("e4", "Skelmarr Medal", "PERSON")] for e in evidence}, {})
    best, _ = read_evidence(
        "Who is the president of the Guild of Harbour Pilots",
        "PERSON",
        evidence,
        _linked("Guild of Harbour Pilots"),
        graph,
    )
    assert best is None or best.kind != "PERSON"


def test_the_text_writes_a_longer_name_than_the_graph_knows() -> None:
    # the graph's cut name ("Quarrowby Vale Light") gives way to the whole one the sentence writes
    texts = ["In 1903 Ysmay Quorrel engineered the Quarrowby Vale Light Railway, a short line."]
    evidence = _ev(*texts, doc="d0")
    graph = _Graph({e.chunk_id: [("e1", "Quarrowby Vale Light", "")] for e in evidence}, {})
    best, _ = read_evidence(
        "line that Ysmay Quorrel engineered",
        "NAME",
        evidence,
        _linked("Ysmay Quorrel"),
        graph,
        related={"e1"},  # the graph relates it to the subject: it scores above the whole name
    )
    assert best is not None and best.text == "Quarrowby Vale Light Railway"


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("The mill was set up in 1843.", "founded"),
        ("Gorsebrook Salvage took over the yard.", "bought"),
        ("She passed away in 1901.", "died"),
        ("The mine was shut down in 1911.", "closed"),
        ("The kettle was set on the stove.", None),  # no particle: no phrasal verb
    ],
)
def test_a_phrasal_verb_means_its_verb(text: str, verb: str | None) -> None:
    terms = _term_set(text)
    if verb is None:
        assert not terms & (_term_set("founded bought died closed") - _term_set(text))
    else:
        assert _term_set(verb) <= terms


@pytest.mark.parametrize(
    ("query", "text", "answer"),
    [
        # a count in words before the noun counted
        (
            "How many tons of cheese did Quellan Dairy make in its best year",
            "In its best year, 1882, Quellan Dairy took the milk of nineteen farms and made "
            "sixty-four tons of cheese.",
            "sixty-four",
        ),
        (
            "How many farms sent milk to Quellan Dairy in 1882",
            "In its best year, 1882, Quellan Dairy took the milk of nineteen farms and made "
            "sixty-four tons of cheese.",
            "nineteen",
        ),
        # a one-digit count, with the noun counted right after it ...
        (
            "How many kilns did Quellan Dairy fire in 1882",
            "In 1882 Quellan Dairy, founded 1861, fired 3 kilns and made sixty-four tons.",
            "3",
        ),
        # ... and a lone digit that counts nothing asked is no count ("No. 4 Quay")
        (
            "How many farms sent milk to Quellan Dairy in 1882",
            "Quellan Dairy, at No. 4 Quay, took the milk of nineteen farms in 1882.",
            "nineteen",
        ),
    ],
)
def test_a_count_written_in_words(query: str, text: str, answer: str) -> None:
    best, _ = read_evidence(query, "NUMBER", _ev(text), _linked("Quellan Dairy"))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        # a table's cells, one to a line: no name runs over their breaks
        (
            "Name\nOrm Quibbley\nPosition\nCentre-half\nCurrent club\nQuellan Rovers",
            ["Name", "Orm Quibbley", "Position", "Centre-half", "Current", "Quellan Rovers"],
        ),
        # prose wrapped at a long line: the name runs on over the break
        (
            "In the spring of 1902 the two brothers bought the old tannery buildings of Quellan\n"
            "Freight on the quay.",
            ["In", "Quellan\nFreight"],
        ),
        # a word right before "$" is a currency's
        (
            "It was bought by Gorsebrook Ocean Lines for US$412 million.",
            ["It", "Gorsebrook Ocean Lines", "US"],
        ),
        (
            "It was bought by Gorsebrook Ocean Lines for Tessick Mills in 2009",
            ["It", "Gorsebrook Ocean Lines for Tessick Mills"],
        ),
    ],
)
def test_where_a_name_run_stops(sentence: str, names: list[str]) -> None:
    assert [m.group(0) for m in _cap_names(sentence)] == names


@pytest.mark.parametrize(
    ("text", "alone"),
    [
        ("Do not confuse the town with Upper Tessick, a hill village.", False),
        ("The Tessick Tide Observatory was built in 1879.", False),
        ("It lies near Tessick, on the coast.", True),
        ("In Tessick the tide turns twice a day.", True),
        ("Fishermen of Tessick sold their catch at dawn.", True),
    ],
)
def test_a_name_inside_a_longer_name_does_not_name_it(text: str, alone: bool) -> None:
    assert _names_alone("Tessick", text) is alone


@pytest.mark.parametrize(
    ("noun", "text", "defined"),
    [
        # a title in emphasis, then the copula
        (
            "book",
            "*The Salt Roads of Tessick* is a book about the salt trade.",
            "salt roads of tessick",
        ),
        # an appositive with "the"
        (
            "book",
            "Her notes became The Salt Roads of Tessick, the book by which she is remembered.",
            "salt roads of tessick",
        ),
        ("service", "It was bought by Quellwave, the streaming service, in 2019.", "quellwave"),
    ],
)
def test_a_name_defined_as_the_noun_asked(noun: str, text: str, defined: str) -> None:
    assert defined in _defined_as(noun, [text])


@pytest.mark.parametrize(
    ("query", "kind", "texts", "linked", "entities", "answer"),
    [
        # a one-word entity runs on to the body whose complement it is
        (
            "Which school did Ysmay Quorrel graduate from",
            "ORGANIZATION",
            ["Quorrel graduated from the Larrowby School of Dairying in 1861."],
            "Ysmay Quorrel",
            [("e5", "Dairying", "CONCEPT")],
            "Larrowby School of Dairying",
        ),
        # an abbreviation is answered with the name whose initials it is
        (
            "Which company acquired Quellan Freight",
            "ORGANIZATION",
            [
                "In 2009 GOL acquired Quellan Freight, and GOL crews replaced the old ones.",
                "Gorsebrook Ocean Lines (GOL) is a container shipping company based in Tessick.",
            ],
            "Quellan Freight",
            [],
            "Gorsebrook Ocean Lines",
        ),
        # a place named inside another name ("Upper Tessick") is not the subject
        (
            "What is the population of Tessick",
            "NUMBER",
            [
                "Do not confuse the town with Upper Tessick, whose population is around 620.",
                "Tessick grew quickly after the railway came, and today it has a population of "
                "11,400.",
            ],
            "Tessick",
            [],
            "11,400",
        ),
        # "Whose daughter": the one she is the daughter of, not the daughter
        (
            "Whose daughter did Ysmay Quorrel marry",
            "PERSON",
            [
                "In 1838 Ysmay Quorrel married Tamsin Orle, the daughter of Bram Orle, the "
                "miller who kept the Quellan weir."
            ],
            "Ysmay Quorrel",
            None,
            "Bram Orle",
        ),
        # (control: the possessive form was read right before the rule)
        (
            "Whose daughter did Ysmay Quorrel marry",
            "PERSON",
            ["Ysmay Quorrel married Bram Orle's daughter Tamsin Orle at Colbrey in 1838."],
            "Ysmay Quorrel",
            None,
            "Bram Orle",
        ),
        # "Who bought X": a firm may have
        (
            "Who bought the Quellan Dairy",
            "PERSON",
            [
                "The Quellan Dairy was bought in 1911 by the Colbrey Creamery Company, whose "
                "manager Ysmay Quorrel had run it for a decade."
            ],
            "Quellan Dairy",
            None,
            "Colbrey Creamery Company",
        ),
        # a table row is one statement: the row of the asked year holds the winner (control:
        # read right before the rule too)
        (
            "Who won the Quellan Medal in 2016",
            "PERSON",
            [
                "The **Quellan Medal** is awarded by the Colbrey Dairy Society for "
                "outstanding cheese making.\n\n| Year | Recipient |\n|---|---|\n"
                "| 2010 | Orm Quibbley |\n| 2016 | Tamsin Orle |"
            ],
            "Quellan Medal",
            None,
            "Tamsin Orle",
        ),
        # a clause of another year speaks of another holder
        (
            "Who won the Quellan Medal in 2016",
            "PERSON",
            [
                "The Quellan Medal is won each year by a cheese maker of Colbrey. In 2010 the "
                "Quellan Medal was won by Orm Quibbley.",
                "Tamsin Orle was the 2016 winner.",
            ],
            "Quellan Medal",
            None,
            "Tamsin Orle",
        ),
        # a life span's years are the birth and the death, not the marriage
        (
            "When did Ysmay Quorrel marry",
            "DATE",
            [
                "Ysmay Quorrel (1811-1879) was a cheese factor of Colbrey.",
                "He married Tamsin Orle in 1838, the year the dairy opened.",
            ],
            "Ysmay Quorrel",
            None,
            "1838",
        ),
        # a generation word is part of the name the question's verb follows: "born in 1811"
        # dates another event than the one asked
        (
            "When did Ysmay Quorrel junior marry",
            "DATE",
            [
                "Ysmay Quorrel junior was born in 1811 at Colbrey, the son of a carter.",
                "He and Tamsin Orle were married in 1838.",
            ],
            "Ysmay Quorrel junior",
            None,
            "1838",
        ),
        # "died in 1876" dates the founder's death, whatever noun of the founding is near it
        (
            "When was Quellan Low Mill set up",
            "DATE",
            [
                "The founder of Quellan Low Mill died in 1876 and the business passed to his two "
                "sons.",
                "It was set up in 1843 by the overlooker's son.",
            ],
            "Quellan Low Mill",
            None,
            "1843",
        ),
        # "while she was principal" speaks of whoever held the role then, not of the first
        (
            "Who was the first principal of the Quellan Dairy School",
            "PERSON",
            [
                "Her book on cheese was written by Ysmay Quorrel while she was principal of the "
                "Quellan Dairy School.",
                "The first principal, Orm Quibbley, came from an agricultural college and stayed "
                "until 1899.",
            ],
            "Quellan Dairy School",
            None,
            "Orm Quibbley",
        ),
        # the agent in an appositive of another name is that name's
        (
            "Who founded Quellan Optics",
            "PERSON",
            [
                "Quellan Optics is often confused with Quellan Optical Works, a smaller company "
                "founded in 1995 in Colbrey by Orm Quibbley, the founder's younger brother.",
                "She left in 1986, and the following year Tamsin Orle founded Quellan Optics.",
            ],
            "Quellan Optics",
            None,
            "Tamsin Orle",
        ),
        # a measure written in two units is one measure
        (
            "What did the Quellan bell weigh when it was cast",
            "NUMBER",
            ["The Quellan bell weighed 2 tons 5 cwt when it was cast at Colbrey in 1840."],
            "Quellan bell",
            None,
            "2 tons 5 cwt",
        ),
        # "which book": a place is no book, whatever else the sentence says of it
        (
            "Which book did Ysmay Quorrel write",
            "NAME",
            [
                "Ysmay Quorrel wrote at Colbrey, where she lived for forty years.",
                "Her notes became The Whey Floor, the book by which she is remembered.",
            ],
            "Ysmay Quorrel",
            None,
            "The Whey Floor",
        ),
        # a line-up labels each name with its role
        (
            "Who plays bass in The Quellan Four",
            "PERSON",
            [
                "The Quellan Four were formed at Colbrey in 1978: keyboard player Edda Vell, "
                "singer Orm Quibbley, drummer Ysmay Quorrel and bassist Tamsin Orle."
            ],
            "The Quellan Four",
            None,
            "Tamsin Orle",
        ),
        # "as" gives a name its role: the role asked, not the one given to the other name
        (
            "Who was the first Master of the Quellan Guild",
            "PERSON",
            [
                "In 1868 the ringers elected Orm Quibbley, vicar of Colbrey, as the first Master "
                "of the Quellan Guild, and Tamsin Orle as its first Secretary.",
                "Tamsin Orle kept the Quellan Guild's books for a decade.",
            ],
            "Quellan Guild",
            None,
            "Orm Quibbley",
        ),
        # controls: the other role of the same sentence; the two in the other order
        (
            "Who was the first Secretary of the Quellan Guild",
            "PERSON",
            [
                "In 1868 the ringers elected Orm Quibbley, vicar of Colbrey, as the first Master "
                "of the Quellan Guild, and Tamsin Orle as its first Secretary."
            ],
            "Quellan Guild",
            None,
            "Tamsin Orle",
        ),
        (
            "Who was the first Master of the Quellan Guild",
            "PERSON",
            [
                "In 1868 the ringers elected Tamsin Orle as the first Secretary of the Quellan "
                "Guild, and Orm Quibbley as its first Master."
            ],
            "Quellan Guild",
            None,
            "Orm Quibbley",
        ),
        # a fact sheet's field names what its value is
        (
            "Who owns Quellan Yard",
            "PERSON",
            [
                "Quellan Yard\nFounder: Orm Quibbley, shipwright\nOwner: Tarnwick Maritime (since "
                "2004)\nWorkforce: 1,450"
            ],
            "Quellan Yard",
            None,
            "Tarnwick Maritime",
        ),
    ],
)
def test_an_answer_read_from_its_construction(
    query: str,
    kind: AnswerType,
    texts: list[str],
    linked: str,
    entities: list[tuple[str, str, str]] | None,
    answer: str,
) -> None:
    # entities None: no graph at all; a list: the graph's mentions in every piece
    evidence = _ev(*texts, doc="d0")
    graph = None if entities is None else _Graph({e.chunk_id: entities for e in evidence}, {})
    best, _ = read_evidence(query, kind, evidence, _linked(linked), graph)
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("sentence", "span", "names", "terms", "inside"),
    [
        (
            "Orm Quibbley junior, the first coxswain of the Colbrey lifeboat, was born in 1821 at "
            "Tarnwick.",
            "Colbrey",
            ["Orm Quibbley"],
            {"born"},
            True,
        ),
        # the verb's own argument, after the appositive
        (
            "Orm Quibbley junior, the first coxswain of the Colbrey lifeboat, was born in 1821 at "
            "Tarnwick.",
            "Tarnwick",
            ["Orm Quibbley"],
            {"born"},
            False,
        ),
        # the appositive holds the asked verb: it is what is asked
        (
            "Orm Quibbley, who was born at Colbrey, kept the light at Tarnwick.",
            "Colbrey",
            ["Orm Quibbley"],
            {"born"},
            False,
        ),
        # another name's appositive
        (
            "Ysmay Quorrel, the keeper of the Colbrey light, was born at Tarnwick.",
            "Colbrey",
            ["Orm Quibbley"],
            {"born"},
            False,
        ),
    ],
)
def test_a_name_in_the_subjects_appositive(
    sentence: str, span: str, names: list[str], terms: set[str], inside: bool
) -> None:
    from kg_rag.answer.reader import _in_subject_appositive

    a = sentence.index(span)
    assert _in_subject_appositive(sentence, a, a + len(span), names, terms) is inside


@pytest.mark.parametrize(
    ("best", "others", "answer"),
    [
        # one word of unknown type, the typed name it opens nearly as well supported
        (
            ("Tarnwick", "NAME", 10.0),
            [("Tarnwick Records", "ORGANIZATION", 8.0)],
            "Tarnwick Records",
        ),
        (("Tarnwick", "NAME", 10.0), [("Tarnwick Orle", "PERSON", 9.5)], "Tarnwick Orle"),
        # controls: far less supported; a typed word; two words; a name it does not open
        (("Tarnwick", "NAME", 10.0), [("Tarnwick Records", "ORGANIZATION", 5.0)], "Tarnwick"),
        (("Tarnwick", "LOCATION", 10.0), [("Tarnwick Records", "ORGANIZATION", 9.0)], "Tarnwick"),
        (("Tarnwick Cut", "NAME", 10.0), [("Tarnwick Cut Lock", "LOCATION", 9.0)], "Tarnwick Cut"),
        (("Tarnwick", "NAME", 10.0), [("Old Tarnwick Records", "ORGANIZATION", 9.0)], "Tarnwick"),
        (("Tarnwick", "NAME", 10.0), [("Tarnwickshire", "LOCATION", 9.0)], "Tarnwick"),
    ],
)
def test_a_name_said_short_answers_with_the_whole_name(
    best: tuple[str, str, float], others: list[tuple[str, str, float]], answer: str
) -> None:
    from kg_rag.answer.reader import _Candidate, _said_short

    top = _Candidate(text=best[0], kind=best[1], score=best[2])
    pool = [top, *(_Candidate(text=t, kind=k, score=v) for t, k, v in others)]
    assert _said_short(top, pool).text == answer


def _typed(*pairs: tuple[str, str]) -> list[LinkedEntity]:
    return [
        LinkedEntity(entity_id=f"e{i}", name=n, type=t, method="exact", span=n, weight=1.0)
        for i, (n, t) in enumerate(pairs)
    ]


@pytest.mark.parametrize(
    ("claim", "linked", "asked"),
    [
        (
            "Is Quellan Signals based in Tarnwick",
            [("Quellan Signals", "ORGANIZATION"), ("Tarnwick", "LOCATION")],
            ("Where is Quellan Signals based", "LOCATION", "tarnwick"),
        ),
        (
            "Did Orm Quibbley learn to fly under Tamsin Orle",
            [("Orm Quibbley", "PERSON"), ("Tamsin Orle", "PERSON")],
            ("Under whom did Orm Quibbley learn to fly", "PERSON", "tamsin orle"),
        ),
        (
            "Was Quellan Signals founded by Tarnwick Holdings",
            [("Quellan Signals", "ORGANIZATION"), ("Tarnwick Holdings", "ORGANIZATION")],
            (
                "By which organisation was Quellan Signals founded",
                "ORGANIZATION",
                "tarnwick holdings",
            ),
        ),
        # Chinese asks in place
        (
            "闻澜年是在澜汐市出生的",
            [("闻澜年", "PERSON"), ("澜汐市", "LOCATION")],
            ("闻澜年是在哪里出生的", "LOCATION", "澜汐市"),
        ),
        # a year: when, and is it that year
        (
            "Was Quellan Signals founded in 1902",
            [("Quellan Signals", "ORGANIZATION")],
            ("When was Quellan Signals founded", "DATE", "1902"),
        ),
        (
            "闻澜年是2020年当上澜汐集团总裁的",
            [("闻澜年", "PERSON")],
            ("闻澜年是哪一年当上澜汐集团总裁的", "DATE", "2020"),
        ),
        # "named after": after whom
        (
            "Is the Colbrey Medal named after Tamsin Orle",
            [("Colbrey Medal", "ORGANIZATION"), ("Tamsin Orle", "PERSON")],
            ("After whom is the Colbrey Medal named", "PERSON", "tamsin orle"),
        ),
        # none: a place after "under"; a name of unknown type; a comparison; one name only;
        # "after" in time
        (
            "Did Orm Quibbley train under Tarnwick",
            [("Orm Quibbley", "PERSON"), ("Tarnwick", "LOCATION")],
            None,
        ),
        (
            "Is Quellan Signals based in Tarnwick",
            [("Quellan Signals", "ORGANIZATION"), ("Tarnwick", "")],
            None,
        ),
        ("闻澜年比澜汐市的陈岚早", [("闻澜年", "PERSON"), ("陈岚", "PERSON")], None),
        ("Is Quellan Signals still trading", [("Quellan Signals", "ORGANIZATION")], None),
        (
            "Was Quellan Signals founded after Tamsin Orle",
            [("Quellan Signals", "ORGANIZATION"), ("Tamsin Orle", "PERSON")],
            None,
        ),
    ],
)
def test_a_claim_closing_on_a_name_is_asked_as_a_question(
    claim: str, linked: list[tuple[str, str]], asked: tuple[str, str, str] | None
) -> None:
    from kg_rag.answer.reader import claim_as_question

    got = claim_as_question(claim, _typed(*linked))
    assert (got[:3] if got is not None else None) == asked


@pytest.mark.parametrize(
    ("texts", "answer"),
    [
        (["In 1902 Orm Quibbley started Quellan Signals in a shed at Colbrey."], "yes"),
        # control: another year
        (["In 1907 Orm Quibbley started Quellan Signals in a shed at Colbrey."], "no"),
        # the claim's year beside the subject, but for another event: the founding's decides
        (
            [
                "Quellan Signals was founded in 1907 by Orm Quibbley, who had married Tamsin "
                "Orle in 1902."
            ],
            "no",
        ),
    ],
)
def test_a_dated_claim_is_checked_by_its_date(texts: list[str], answer: str) -> None:
    step = PlanStep(index=1, query="Was Quellan Signals founded in 1902", answer_type="YESNO")
    ctx = StepContext(
        step=step, query=step.query, linked=_typed(("Quellan Signals", "ORGANIZATION"))
    )
    reading = asyncio.run(OfflineStepReader().aread(ctx, _ev(*texts)))
    assert reading.answer == answer


@pytest.mark.parametrize(
    ("texts", "answer"),
    [
        # the claim's words are not the sentence's, the wh-question reads the teacher
        (["Orm Quibbley trained as a pilot under Tamsin Orle at Colbrey."], "yes"),
        (["Orm Quibbley was taught by Tamsin Orle at the Colbrey flying school."], "yes"),
        # controls: another teacher; the name as part of a longer one
        (
            [
                "Orm Quibbley trained as a pilot under Ysmay Quorrel at Colbrey, where Tamsin "
                "Orle ran the canteen."
            ],
            "no",
        ),
        (["Orm Quibbley trained as a pilot under Tamsin Orle Quorrel at Colbrey."], "no"),
    ],
)
def test_a_yes_no_claim_is_checked_by_its_question(texts: list[str], answer: str) -> None:
    step = PlanStep(
        index=1, query="Did Orm Quibbley learn to fly under Tamsin Orle", answer_type="YESNO"
    )
    ctx = StepContext(
        step=step,
        query=step.query,
        linked=_typed(("Orm Quibbley", "PERSON"), ("Tamsin Orle", "PERSON")),
    )
    reading = asyncio.run(OfflineStepReader().aread(ctx, _ev(*texts)))
    assert reading.answer == answer


@pytest.mark.parametrize(
    ("texts", "answer"),
    [
        (["1986年，钱澜舟在柘澜市创办了榫澜家具。"], "是"),
        # the year written in Chinese digits is the same year
        (["一九八六年，钱澜舟在柘澜市创办了榫澜家具。"], "是"),
        # controls: another year; the claim's year given to another event of the subject
        (["1988年，钱澜舟在柘澜市创办了榫澜家具。"], "否"),
        (["1988年，钱澜舟在柘澜市创办了榫澜家具。1986年他辞去了公职。"], "否"),
    ],
)
def test_a_chinese_dated_claim_is_checked_by_its_year(texts: list[str], answer: str) -> None:
    step = PlanStep(index=1, query="榫澜家具是1986年创办的", answer_type="YESNO")
    ctx = StepContext(
        step=step,
        query=step.query,
        linked=_typed(("榫澜家具", "ORGANIZATION"), ("钱澜舟", "PERSON")),
    )
    reading = asyncio.run(OfflineStepReader().aread(ctx, _ev(*texts)))
    assert reading.answer == {"是": "yes", "否": "no"}[answer]


def test_a_full_name_does_not_run_over_a_line_break() -> None:
    assert _full_name("Current", "Position\nCentre-forward\nCurrent club") == "Current"
    assert _full_name("Hall", "the psychologist G. Stanley Hall wrote") == "G. Stanley Hall"


@pytest.mark.parametrize(
    ("query", "expected", "pieces", "titles", "answer"),
    [
        # the class noun a document calls its own subject by names it: the answer is the
        # title (a page title's own word left out), defined with that noun in the document,
        # not the place another document's sentence gives
        (
            "Which studio did Ravelstow Games buy in 2015",
            "ORGANIZATION",
            [
                ("d1", "In 2015 Ravelstow Games bought a Dunmere developer, its first studio."),
                ("d0", "In 2015 the studio was bought by Ravelstow Games, which kept its name."),
                ("d0", "Marlwick Owl Studio is a studio that makes adventure games."),
            ],
            {"d0": "About Marlwick Owl Studio", "d1": "Ravelstow Games"},
            "Marlwick Owl Studio",
        ),
        # controls: the name written in the sentence, and a person asked
        (
            "Which studio did Ravelstow Games buy in 2015",
            "ORGANIZATION",
            [
                ("d1", "In 2015 Ravelstow Games bought a Dunmere developer, its first studio."),
                ("d0", "In 2015 Marlwick Owl Studio was bought by Ravelstow Games."),
            ],
            {"d0": "About Marlwick Owl Studio", "d1": "Ravelstow Games"},
            "Marlwick Owl Studio",
        ),
        (
            "Who ran the studio that Ravelstow Games bought",
            "PERSON",
            [
                ("d0", "In 2015 the studio was bought by Ravelstow Games; Ada Quell ran it."),
                ("d0", "Marlwick Owl Studio is a studio that makes adventure games."),
            ],
            {"d0": "Marlwick Owl Studio"},
            "Ada Quell",
        ),
    ],
)
def test_a_document_calls_its_own_subject_by_its_class_noun(
    query: str,
    expected: AnswerType,
    pieces: list[tuple[str, str]],
    titles: dict[str, str],
    answer: str,
) -> None:
    evidence = [
        Evidence(
            chunk_id=f"c{i}",
            doc_id=doc,
            text=text,
            score=1.0 - i / 10,
            level="sentence",
            char_end=len(text),
        )
        for i, (doc, text) in enumerate(pieces)
    ]
    linked = _linked("Ravelstow Games", type="ORGANIZATION")
    best, _ = read_evidence(query, expected, evidence, linked, _Graph({}, titles))
    assert best is not None and best.text == answer


@pytest.mark.parametrize(
    ("span", "sentence", "lower", "shouted"),
    [
        # a unit after a number
        ("TEU", "the MV Serrin Crest, a 4,200 TEU ship delivered in 1998", (), True),
        ("MW", "a plant of 12 MW opened", (), True),
        # a word of a heading in capitals, or one the evidence writes in lower case
        ("SONS", "LARKSPUR & SONS, HONEY MERCHANTS, TOLVERCOMBE", (), True),
        ("OBITUARY", "OBITUARY: Mr Ambrose Wetherlade", ("obituary",), True),
        # an acronym is written in capitals only; a heading's town after a comma is a name
        ("NASA", "NASA launched the probe in 1977.", ("probe",), False),
        ("TOLVERCOMBE", "LARKSPUR & SONS, HONEY MERCHANTS, TOLVERCOMBE", (), False),
        ("IBM", "In 1981 IBM sold its first personal computer.", (), False),
        ("Sons", "Larkspur & Sons was founded in 1884", ("sons",), False),  # not in capitals
    ],
)
def test_a_word_in_capitals_that_names_nothing(
    span: str, sentence: str, lower: tuple[str, ...], shouted: bool
) -> None:
    assert _shouted_word(span, sentence, sentence.index(span), set(lower)) is shouted


@pytest.mark.parametrize(
    ("query", "text", "verb"),
    [
        ("宋立川是在哪个村子出生的", "二徒宋立川入门晚了五年，生性沉稳，师父很器重他。", "入门"),
        ("邵青禾是哪里人", "邵青禾上岛之前从未见过老船长，两家不是亲戚。", "上岛"),
    ],
)
def test_a_word_right_after_a_persons_name_is_their_verb_not_a_place(
    query: str, text: str, verb: str
) -> None:
    # jieba's dictionary tags 入门 and 上岛 as places; after a name they are its predicate.
    best, _ = read_evidence(query, "LOCATION", _ev(text), _linked(query[:3]))
    assert best is None or best.text != verb


@pytest.mark.parametrize(
    ("query", "texts", "linked", "nickname"),
    [
        (
            "What nickname is the racing eight Kestle Star known by on the river",
            [
                "Kestle Star is a racing eight of the Ellerdale Rowing Club, built in 1931.",
                "The Ellerdale Rowing Club won the Sorrelby Cup in Kestle Star three times; on "
                'the river she has long been known as "the Old Brindle".',
            ],
            ["Kestle Star"],
            "Old Brindle",
        ),
        (
            "By what name was the Kestle Star usually known",
            [
                "The Ellerdale Rowing Club raced the Kestle Star for thirty years.",
                'The Kestle Star, nicknamed "Old Brindle" by the Ellerdale crews, now hangs in '
                "the boathouse.",
            ],
            ["Kestle Star"],
            "Old Brindle",
        ),
        (
            "蒲溪茶砖在县里有个俗称，叫什么",
            ["蒲溪茶砖是国营蒲溪茶厂1961年压制的茶砖，砖面印着双鹤，乡里人俗称“小雀舌”。"],
            ["蒲溪茶砖"],
            "小雀舌",
        ),
        # "What did X call Y": the quoted name a naming verb gives ("named it \"…\"")
        (
            "What did the railway call its station in Sorrelby",
            [
                "Sorrelby is a village on the Ellerdale road, with a mill and a lock.",
                "When the Ellerdale Light Railway opened a station at Sorrelby, it named it "
                '"Sorrelby Lock", after the lock below the mill.',
            ],
            ["Sorrelby"],
            "Sorrelby Lock",
        ),
        (
            "蒲溪茶砖的别名是什么",
            ["蒲溪茶砖由蒲溪茶厂压制，又名“老龙砖”，每块重五斤。"],
            ["蒲溪茶砖"],
            "老龙砖",
        ),
    ],
)
def test_a_nickname_is_the_quoted_name_a_naming_phrase_gives(
    query: str, texts: list[str], linked: list[str], nickname: str
) -> None:
    best, _ = read_evidence(query, "NAME", _ev(*texts), _linked(*linked))
    assert best is not None and best.text.removeprefix("the ") == nickname


@pytest.mark.parametrize(
    ("query", "texts", "linked", "post"),
    [
        (
            "郗承业公私合营时期担任什么职务",
            ["1956年米行公私合营，公方厂长韩定邦，私方副厂长郗承业。"],
            ["郗承业"],
            "私方副厂长",
        ),
        (
            "郗承业在米行担任什么职务",
            ["1956年，郗承业出任私方经理，负责采买。韩定邦是公方代表。"],
            ["郗承业"],
            "私方经理",
        ),
    ],
)
def test_a_post_is_the_title_written_with_the_name(
    query: str, texts: list[str], linked: list[str], post: str
) -> None:
    best, _ = read_evidence(query, "NAME", _ev(*texts), _linked(*linked))
    assert best is not None and best.text == post


@pytest.mark.parametrize(
    ("name", "place"),
    [
        ("雀嘴岭", True),
        ("荻溪", True),
        ("荻背岗", True),
        ("茶山", False),  # a common noun the dictionary holds
        ("小溪", False),
        ("山", False),
        ("蒲坳村", False),  # a village: no landform (an administrative unit types it)
    ],
)
def test_a_landform_closes_a_chinese_place_name(name: str, place: bool) -> None:
    assert _zh_landform_name(name) is place


def test_a_place_under_a_landform_answers_where_it_lies() -> None:
    texts = [
        "蒲坳村在北乡雀嘴岭南麓，山坡上都是茶园。",
        "尚蒲村在县城东南八公里的荻溪岸边，地势平坦。",
    ]
    best, _ = read_evidence("蒲坳村在哪座茶山脚下", "LOCATION", _ev(*texts), _linked("蒲坳村"))
    assert best is not None and best.text == "雀嘴岭"


_WINNER_TABLES = [
    (
        "第一届斗茶会的获奖者",
        "# 荻川县斗茶会历届金奖\n\n| 届次 | 年份 | 获奖茶品 | 制茶人 | 单位 |\n|---|---|---|---|---|\n"
        "| 第一届 | 1984 | 雀嘴毛尖 | 蒲仲明 | 国营荻川茶厂 |\n"
        "| 第二届 | 1987 | 荻溪白毫 | 龚石岩 | 尚蒲收购站 |\n",
        ["斗茶会"],
        "蒲仲明",
    ),
    (
        "winner of the Quillan Plate in 1987",
        "# Quillan Plate winners\n\n| Year | Plate boat | Skipper | Club |\n|---|---|---|---|\n"
        "| 1984 | Marsh Lark | Bellcombe Orrey | Thorrowby Sailing Club |\n"
        "| 1987 | Grey Heron | Edwin Pallister | Ellerdale Boat Club |\n",
        ["Quillan Plate"],
        "Edwin Pallister",
    ),
]


@pytest.mark.parametrize(("query", "table", "linked", "person"), _WINNER_TABLES)
def test_a_person_asked_of_a_table_is_in_the_column_a_person_noun_heads(
    query: str, table: str, linked: list[str], person: str
) -> None:
    # the header the question names ("获奖茶品" shares 获奖; "Plate boat") holds a thing, and the
    # winner is the maker, the skipper
    best, _ = read_evidence(query, "PERSON", _ev(table), _linked(*linked))
    assert best is not None and best.text == person


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("What are the colours of Thorrowby Boat Club", "colours"),
        ("What were the terms of the Bellcombe lease", "terms"),
        ("What is the motto of Thorrowby Boat Club", "motto"),  # control
        # the noun an owner's 's takes at the end of the step
        ("What was Bellcombe Line's flagship?", "flagship"),
        ("Who is Ada Orrey's husband", "husband"),
        ("What colours does the club row in", "colours"),  # control
    ],
)
def test_a_copula_after_the_wh_word_is_no_head_noun(query: str, head: str) -> None:
    assert _head_noun(query) == head


def test_the_value_of_the_field_asked_is_read_from_the_items_own_line() -> None:
    text = (
        "- **Thorrowby Boat Club.** Thorrowby. Founded 1889. Colours: maroon and gold. "
        "Boathouse below Bellcombe Weir.\n"
        "- **Bellcombe Sculling Club.** Bellcombe. Founded 1924. Colours: white and violet."
    )
    query = "What are the colours of Thorrowby Boat Club"
    best, _ = read_evidence(query, "NAME", _ev(text), _linked("Thorrowby Boat Club"))
    assert best is not None and best.text == "maroon and gold"


_KEEPERS = (
    "# Keepers of Thorrowby Light\n\n| Keeper | Term | Notes |\n|---|---|---|\n"
    "| Bellcombe Orrey | 1861–1890 | First keeper |\n"
    "| Edwin Pallister | 1890–1921 | Lost a hand in the 1903 gale |\n"
    "| Marian Dorsett | 1921–1958 | The first woman to keep it |\n"
    "| Hollis Vantreck | 1958–1984 | Last resident keeper |\n"
)
_KEEPERS_ZH = (
    "# 蒲屿灯塔历任守塔人\n\n| 守塔人 | 任期 | 备注 |\n|---|---|---|\n"
    "| 龚石岩（1890年生） | 1921–1948 | 首任 |\n"
    "| 蒲仲明 | 1948–1975 | 龚石岩的外甥 |\n"
    "| 尚秋禾 | 1975–1999 | 末任 |\n"
)
# the table's rows out of order: the years order them
_KEEPERS_UNORDERED = (
    "| Keeper | Term |\n|---|---|\n"
    "| Marian Dorsett | 1921–1958 |\n"
    "| Bellcombe Orrey | 1861–1890 |\n"
    "| Edwin Pallister | 1890–1921 |\n"
)
_PROSE = (
    "Marian Dorsett came to the light from Ellerdale, where her brother Hollis Vantreck kept the "
    "harbour lamp."
)


@pytest.mark.parametrize(
    ("query", "table", "linked", "person"),
    [
        ("predecessor of Marian Dorsett", _KEEPERS, "Marian Dorsett", "Edwin Pallister"),
        ("Marian Dorsett's predecessor as keeper", _KEEPERS, "Marian Dorsett", "Edwin Pallister"),
        ("Who preceded Marian Dorsett", _KEEPERS, "Marian Dorsett", "Edwin Pallister"),
        ("successor of Marian Dorsett", _KEEPERS, "Marian Dorsett", "Hollis Vantreck"),
        ("Who succeeded Edwin Pallister", _KEEPERS, "Edwin Pallister", "Marian Dorsett"),
        ("Whom did Edwin Pallister succeed", _KEEPERS, "Edwin Pallister", "Bellcombe Orrey"),
        ("蒲仲明的前任", _KEEPERS_ZH, "蒲仲明", "龚石岩"),
        ("接替龚石岩看守灯塔的人", _KEEPERS_ZH, "龚石岩", "蒲仲明"),  # a name with an aside
        ("接替蒲仲明的人", _KEEPERS_ZH, "蒲仲明", "尚秋禾"),
        ("蒲仲明的继任者是谁", _KEEPERS_ZH, "蒲仲明", "尚秋禾"),
        ("predecessor of Marian Dorsett", _KEEPERS_UNORDERED, "Marian Dorsett", "Edwin Pallister"),
    ],
)
def test_the_holder_before_or_after_someone_is_the_row_before_or_after_theirs(
    query: str, table: str, linked: str, person: str
) -> None:
    # the row asked shares no word with the step, and prose that names the subject beside
    # another person says nothing of who came before or after
    expected = "PERSON"
    best, _ = read_evidence(query, expected, _ev(_PROSE, table), _linked(linked))
    assert best is not None and best.text == person


def test_a_row_named_by_its_note_is_read_as_before() -> None:
    # control: no neighbour asked, the row the question names answers
    best, _ = read_evidence(
        "keeper who lost a hand in the gale", "PERSON", _ev(_KEEPERS), _linked("Thorrowby Light")
    )
    assert best is not None and best.text == "Edwin Pallister"


@pytest.mark.parametrize(
    ("sentence", "date", "factor"),
    [
        # a participle opening the sentence dates its clause's date: the birth
        ("Born in the mill house on 4 February 1862, the only son of a miller.", "4 Feb", 1.5),
        ("Born at Harnick in 1862, he was a miller's son.", "1862", 1.5),
        # controls: a gerund or another participle dates its own event, not the birth; no verb
        ("On leaving in 1931 he gave a cup to the town.", "1931", 0.3),
        ("After retiring in 1931, he gave a cup to the town.", "1931", 0.3),
        ("The cup was given in 1931 by the miller.", "1931", 0.3),
        ("He was a miller in 1862 and after.", "1862", 1.0),
    ],
)
def test_the_verb_a_birth_dates_is_found_before_the_date(
    sentence: str, date: str, factor: float
) -> None:
    a = sentence.index(date)
    got = _event_date_factor(sentence, a, {"born", "year", "miller"}, scan=True, b=a + len(date))
    assert got == factor


def test_a_birth_date_is_the_one_the_birth_dates() -> None:
    texts = [
        "Orvald Tessing gave the Tessing Cup. On leaving in 1931 he gave it to the town.",
        "Orvald Tessing. Born in the mill house on 4 February 1862, the only son of Sabra "
        "Tessing, he was carrying sacks before he could read.",
    ]
    best, _ = read_evidence(
        "In which year was Orvald Tessing born", "DATE", _ev(*texts), _linked("Orvald Tessing")
    )
    assert best is not None and "1862" in best.text


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        # a weight in hundredweights, quarters and pounds is one measure, and the smaller
        # units' numbers are no measures of their own
        ("Great Tom weighs 31 cwt 2 qr 9 lb and hangs in D.", "31 cwt 2 qr 9 lb"),
        ("Great Tom, cast in 1869, weighs 24 cwt 1 qr and hangs in E.", "24 cwt 1 qr"),
        # controls: units the measure already read in two
        ("Great Tom weighs 3 tons 2 cwt and hangs in C.", "3 tons 2 cwt"),
        ("Great Tom weighs 24 cwt and hangs in E.", "24 cwt"),
    ],
)
def test_a_measure_in_several_units_is_read_whole(text: str, measure: str) -> None:
    best, _ = read_evidence("How heavy is Great Tom", "NUMBER", _ev(text), _linked("Great Tom"))
    assert best is not None and best.text == measure


@pytest.mark.parametrize(
    ("query", "text", "value"),
    [
        # what a sentence says the asked attribute is (在/位于/为/是), a common noun phrase
        (
            "蒲溪县文化馆的馆址原来是什么地方",
            "蒲溪县文化馆于1983年开馆，馆址在县城药王庙旧址，大殿至今保存完好。",
            "县城药王庙旧址",
        ),
        # a site is also where the subject itself is said to be
        (
            "蒲溪县文化馆的馆址原来是什么地方",
            "蒲溪县文化馆位于蒲城药王庙旧址，1981年正式开馆。",
            "蒲城药王庙旧址",
        ),
        (
            "龚氏船行的行址在哪里",
            "龚氏船行创办于1921年，行址位于南门外老码头，后迁往新港。",
            "南门外老码头",
        ),
    ],
)
def test_the_value_said_of_the_attribute_asked_is_read(query: str, text: str, value: str) -> None:
    linked = query.split("的")[0]
    best, _ = read_evidence(query, "LOCATION", _ev(text), _linked(linked))
    assert best is not None and best.text == value


@pytest.mark.parametrize(
    ("text", "age"),
    [
        # an age in words after its verb, or the year of life it was; the day of a date is
        # no age
        (
            "Orvald Tessing died at his home in Harnick on the nineteenth of November. He was "
            "seventy-eight.",
            "seventy-eight",
        ),
        (
            "Orvald Tessing died at Harnick on 11 December 1829, in his seventy-second year.",
            "in his seventy-second year",
        ),
        ("Orvald Tessing died at Harnick in 1829, aged eighty-one.", "eighty-one"),
        # control: an age in digits
        ("Orvald Tessing died at Harnick on 11 December 1829, aged 71.", "71"),
    ],
)
def test_an_age_at_death_is_read_in_words_or_as_a_year_of_life(text: str, age: str) -> None:
    best, _ = read_evidence(
        "How old was Orvald Tessing when he died",
        "NUMBER",
        _ev(text),
        _linked("Orvald Tessing"),
    )
    assert best is not None and best.text == age
