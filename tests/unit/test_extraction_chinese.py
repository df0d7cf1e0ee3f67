"""Offline Chinese extraction: names jieba splits, organisations, dates, verb-typed relations."""

from __future__ import annotations

import pytest

from extraction.chinese import RelationCue, find_chinese_spans, relation_cue
from extraction.offline import OfflineExtractor
from extraction.schema import ChunkExtraction, ChunkInput, ExtractedEntity, ExtractedRelation

pytestmark = pytest.mark.unit

LANJING = "蓝鲸科技是一家位于杭州的人工智能公司。蓝鲸科技的创始人是王海峰，公司成立于2015年。"
WANG = "王海峰毕业于浙江大学，曾在上海工作五年。"


def _extract(text: str, title: str = "") -> ChunkExtraction:
    (result,) = OfflineExtractor(show_progress=False).extract(
        [ChunkInput(chunk_id="c", text=text, title=title)]
    )
    assert result.ok, result.error
    return result


def _types(entities: list[ExtractedEntity]) -> dict[str, str]:
    return {e.name: e.type for e in entities}


def _relation(result: ChunkExtraction, a: str, b: str) -> ExtractedRelation:
    (found,) = [r for r in result.relations if {r.source, r.target} == {a, b}]
    return found


def _spans(text: str) -> list[tuple[str, str]]:
    return [(s.name, s.type) for s in find_chinese_spans(text)[0]]


def test_demo_sentence_person_organization_place_and_one_date() -> None:
    result = _extract(LANJING)
    types = _types(result.entities)
    assert types == {
        "蓝鲸科技": "ORGANIZATION",
        "杭州": "LOCATION",
        "王海峰": "PERSON",  # jieba cuts it 王/nr + 海峰/n
        "2015年": "DATE",
    }
    founded = _relation(result, "王海峰", "蓝鲸科技")
    assert (founded.source, founded.type, founded.description) == (
        "蓝鲸科技",
        "FOUNDED_BY",
        "创始人",
    )
    located = _relation(result, "蓝鲸科技", "杭州")
    assert (located.source, located.type, located.description) == ("蓝鲸科技", "LOCATED_IN", "位于")


def test_graduated_from_and_worked_at() -> None:
    result = _extract(WANG)
    assert _types(result.entities) == {
        "王海峰": "PERSON",
        "浙江大学": "ORGANIZATION",
        "上海": "LOCATION",
    }
    graduated = _relation(result, "王海峰", "浙江大学")
    assert (graduated.source, graduated.type, graduated.description) == (
        "王海峰",
        "GRADUATED_FROM",
        "毕业于",
    )
    # 曾在上海工作: the verb comes after the place; the subject is carried over the comma.
    worked = _relation(result, "王海峰", "上海")
    assert (worked.source, worked.type) == ("王海峰", "WORKED_AT")
    # No verb joins the university and the city: a plain co-occurrence.
    assert _relation(result, "浙江大学", "上海").type == "RELATED_TO"


def test_founder_in_passive_and_active_voice_points_the_same_way() -> None:
    passive = _extract("阿里巴巴集团由马云于1999年在杭州创立。")
    assert _types(passive.entities) == {
        "阿里巴巴集团": "ORGANIZATION",
        "马云": "PERSON",
        "1999年": "DATE",
        "杭州": "LOCATION",
    }
    active = _extract("马云创立了阿里巴巴集团。")
    for result in (passive, active):
        relation = _relation(result, "马云", "阿里巴巴集团")
        assert (relation.source, relation.target, relation.type) == (
            "阿里巴巴集团",
            "马云",
            "FOUNDED_BY",
        )
    # 杭州 is where, not who: a place never founds a company.
    assert _relation(passive, "阿里巴巴集团", "杭州").type == "RELATED_TO"


def test_book_title_is_a_work_created_by_its_author() -> None:
    result = _extract("刘慈欣的小说《三体》于2008年出版。")
    types = _types(result.entities)
    assert types["三体"] == "WORK" and types["刘慈欣"] == "PERSON" and types["2008年"] == "DATE"
    created = _relation(result, "刘慈欣", "三体")
    assert (created.source, created.type, created.description) == ("刘慈欣", "CREATED", "小说")


def test_mixed_chinese_and_latin_names() -> None:
    result = _extract("Google公司的创始人是Larry Page和Sergey Brin。")
    types = _types(result.entities)
    assert types["Google公司"] == "ORGANIZATION"
    assert "Larry Page" in types and "Sergey Brin" in types  # not cut at the space
    # No English name runs on into the Chinese words.
    assert all(len(name) < 20 for name in types)
    founded = _relation(result, "Google公司", "Larry Page")
    assert (founded.source, founded.type) == ("Google公司", "FOUNDED_BY")


def test_common_words_after_a_surname_are_not_persons() -> None:
    for text in (
        "王先生和李女士来了。",
        "他是高水平的选手。",
        "经济高增长。",
        "一张纸。",
        "王说好。",
    ):
        assert not [name for name, kind in _spans(text) if kind == "PERSON"], text
    # ... while unknown given names after a surname are.
    assert _spans("钱海峰和周海峰见面。") == [("钱海峰", "PERSON"), ("周海峰", "PERSON")]
    assert ("欧阳海峰", "PERSON") in _spans("欧阳海峰毕业于复旦大学。")


def test_dictionary_names_that_are_places_or_phrases() -> None:
    spans = _spans("周末，他去了桂林和石家庄。浙江绍兴人，高考成绩优秀。")
    assert ("桂林", "LOCATION") in spans and ("石家庄", "LOCATION") in spans
    assert not [name for name, kind in spans if kind == "PERSON"]


def test_organisation_names_from_suffixes() -> None:
    assert _spans("阿里巴巴网络技术有限公司") == [("阿里巴巴网络技术有限公司", "ORGANIZATION")]
    assert _spans("鲸灵科技是一家公司。") == [("鲸灵科技", "ORGANIZATION")]
    assert _spans("中国红十字基金会") == [("中国红十字基金会", "ORGANIZATION")]
    # A legal form makes a common word a company name; 公司 after a common noun does not.
    assert _spans("百度有限公司") == [("百度有限公司", "ORGANIZATION")]
    assert _spans("一家人工智能公司和一家软件有限公司。") == []
    # The university inside its medical school is a mention of its own.
    assert _spans("浙江大学医学院") == [
        ("浙江大学医学院", "ORGANIZATION"),
        ("浙江大学", "ORGANIZATION"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The segmenter cuts 科技园 + 内 as 科技 + 园内: the park is no company 青榆大学科技.
        ("公司最初设在青榆大学科技园内。", [("青榆大学", "ORGANIZATION")]),
        ("实验室搬进了松城大学科技园内。", [("松城大学", "ORGANIZATION")]),
        # Where the organisation word really ends the name, it still does.
        ("鲸灵科技的总部在杭州。", [("鲸灵科技", "ORGANIZATION"), ("杭州", "LOCATION")]),
        ("他在华丰集团工作。", [("华丰集团", "ORGANIZATION")]),
        # One word for a modifier and the organisation word (电影学院, 音乐学院) ends the name
        # as the organisation word alone would.
        (
            "1983年，他考入江川电影学院导演系。",
            [("1983年", "DATE"), ("江川电影学院", "ORGANIZATION")],
        ),
        ("她毕业于松城音乐学院。", [("松城音乐学院", "ORGANIZATION")]),
    ],
)
def test_an_organisation_word_glued_to_the_next_word_ends_no_name(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _spans(text) == expected


def test_short_form_of_an_organisation_joins_it() -> None:
    result = _extract("蓝鲸科技的员工说，蓝鲸很好。")
    assert _types(result.entities) == {"蓝鲸科技": "ORGANIZATION"}
    # A foundation named after a person does not swallow the person.
    types = _types(_extract("王海峰基金会由王海峰创立。").entities)
    assert types == {"王海峰基金会": "ORGANIZATION", "王海峰": "PERSON"}


def test_dates_are_one_mention_each() -> None:
    spans = _spans("他于2015年3月5日出生于北京，1990年代移居上海，工作五年。")
    dates = [name for name, kind in spans if kind == "DATE"]
    assert dates == ["2015年3月5日", "1990年代"]


def test_relation_cue_needs_fitting_types_and_no_nearer_mention() -> None:
    assert relation_cue("毕业于", "。", "PERSON", "ORGANIZATION") == RelationCue(
        "GRADUATED_FROM", "毕业于", False
    )
    assert relation_cue("毕业于", "。", "LOCATION", "ORGANIZATION") is None
    assert relation_cue("的父亲是", "。", "PERSON", "PERSON") == RelationCue(
        "PARENT_OF", "父亲", True
    )
    # 张三和李四毕业于北京大学: 李四 is nearer to the verb than 张三.
    assert relation_cue("和李四毕业于", "。", "PERSON", "ORGANIZATION", {"PERSON"}) is None
    assert relation_cue("在", "工作了五年。", "PERSON", "LOCATION") == RelationCue(
        "WORKED_AT", "工作", False
    )
    assert relation_cue("在", "吃饭。", "PERSON", "LOCATION") is None


def test_chinese_extraction_is_deterministic() -> None:
    text = LANJING + WANG + "阿里巴巴集团由马云于1999年在杭州创立。"
    first = _extract(text, title="蓝鲸科技")
    second = _extract(text, title="蓝鲸科技")
    assert first == second
    assert first.entities[0].name == "蓝鲸科技" and first.entities[0].type == "ORGANIZATION"


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("石桥镇也是导演的出生地。", "石桥镇"),
        ("他出生在柳溪村，后来搬到北京。", "柳溪村"),
        ("高桥镇和海港相邻。", "高桥镇"),
    ],
)
def test_a_name_ending_in_an_administrative_unit_is_a_place(text: str, place: str) -> None:
    """jieba tags these as person names (a surname first); the unit that closes them says
    they are places."""
    spans = _spans(text)
    assert (place, "LOCATION") in spans
    assert not [name for name, kind in spans if kind == "PERSON"]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("这家书店创立于蔺溪市。", "蔺溪市"),  # 于 glued to the name by the segmenter
        ("工厂后来迁往柘岭市。", "柘岭市"),
        ("总部位于鸥门市的一座旧楼里。", "鸥门市"),
        ("乐队2009年在栎梧市成立。", "栎梧市"),
        ("她生于岑川镇，在镇上读完中学。", "岑川镇"),
        ("公司组建于漓港县。", "漓港县"),
        ("他生于上蔺川村，十岁时迁往岑川镇。", "上蔺川村"),  # a direction may open the name
        ("他生于上蕨溪村，十岁时迁往岑川镇。", "上蕨溪村"),  # … even one tagged a locative (上/f)
    ],
)
def test_a_locative_preposition_opens_a_place_its_unit_closes(text: str, place: str) -> None:
    """Invented place names come out of the segmenter in pieces (鸥/ng + 门市/n, 于蔺溪/nr +
    市/n); the preposition before them and the unit after them give the whole name."""
    spans = _spans(text)
    assert (place, "LOCATION") in spans
    assert not [n for n, _ in spans if n != place and (n in place or place in n)]


@pytest.mark.parametrize(
    "text",
    ["他在北京市工作。", "李四出生于浙江杭州。", "上海市长在那个县。", "他在这个市场里。"],
)
def test_known_places_and_non_units_are_left_to_the_segmenter(text: str) -> None:
    """No place is made of words jieba already reads (北京市, 浙江 + 杭州), of a unit inside
    another word (市长, 市场) or of function words (那个县)."""
    made = [s for s in find_chinese_spans(text)[0] if s.strong and s.type == "LOCATION"]
    assert made == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("公司由前电台主持人祁朔创立。", "祁朔"),  # jieba tags 祁朔 a place
        ("由祁朔的弟弟经营。", "祁朔"),
        ("作家贺兰苓另著有散文集。", "贺兰苓"),  # 贺兰 + 芷/x: a rare character
        ("闻人涟是一名报人。", "闻人涟"),  # 涟是: the verb glued to the given name
        ("现任总编辑闻人涟于2015年上任。", "闻人涟"),
        ("司徒远舟是一位电影导演和编剧。", "司徒远舟"),
        # A rare adjective after a compound surname is a given name (俊朗/a), a common verb
        # is not (see the next test).
        ("该厂1990年由夏侯俊朗创建。", "夏侯俊朗"),
        ("首任院长闻人朗是一位水利工程师。", "闻人朗"),  # the title before the name goes
    ],
)
def test_a_person_from_apposition_kinship_and_definition(text: str, person: str) -> None:
    spans = _spans(text)
    assert (person, "PERSON") in spans
    assert not [n for n, k in spans if k == "PERSON" and n != person and person in n]


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("鹊桥唱片是一家独立唱片公司。后来鹊桥唱片被出售。", "鹊桥唱片", "ORGANIZATION"),
        ("2008年，夜航诗社是一支民谣乐队。", "夜航诗社", "ORGANIZATION"),
        ("柳岸医院是另一家医院。", "柳岸医院", "ORGANIZATION"),
        ("岑川是一座海滨城市。", "岑川", "LOCATION"),
        # 企业 classes an organisation without ending its name.
        ("栎川电子是一家电子设备制造企业。后来栎川电子被收购。", "栎川电子", "ORGANIZATION"),
    ],
)
def test_a_defining_sentence_names_what_it_classifies(text: str, name: str, kind: str) -> None:
    """ "X是一家…公司" makes X an organisation however the segmenter cut it (鹊/n + 桥/n …),
    and every mention of X in the text with it."""
    spans = _spans(text)
    assert spans.count((name, kind)) == text.count(name)


@pytest.mark.parametrize("text", ["它是一家公司。", "这是一个很大的问题。", "哥哥是一名医生。"])
def test_no_definition_of_a_pronoun_or_a_common_noun(text: str) -> None:
    assert not [s for s in find_chinese_spans(text)[0] if s.strong]
    assert ("哥哥", "LOCATION") not in _spans(text)


def test_a_common_verb_after_a_compound_surname_is_no_given_name() -> None:
    assert not [n for n, k in _spans("该厂1990年由慕容认为创建。") if k == "PERSON" and len(n) > 2]


@pytest.mark.parametrize(
    ("text", "org"),
    [
        (
            "1950年他考入荇岭学院。",
            "荇岭学院",
        ),  # 荇/x + 岭/n: characters the segmenter could not read
        ("荇岭学院是一所以工科为主的公办高校。", "荇岭学院"),
    ],
)
def test_unread_characters_before_an_organisation_word_name_it(text: str, org: str) -> None:
    assert (org, "ORGANIZATION") in _spans(text)


@pytest.mark.parametrize("text", ["这所新学院很大。", "他在北大学习。", "他去了老工学院。"])
def test_a_modifier_before_an_organisation_word_is_no_name(text: str) -> None:
    assert not [n for n, k in _spans(text) if k == "ORGANIZATION"]


@pytest.mark.parametrize(
    ("text", "org"),
    [("剧团隶属于岑川镇文化馆。", "岑川镇文化馆"), ("藏品后来运往鸥门市博物馆。", "鸥门市博物馆")],
)
def test_a_place_after_a_locative_may_head_an_organisation(text: str, org: str) -> None:
    spans = _spans(text)
    assert (org, "ORGANIZATION") in spans
    assert not [n for n, k in spans if k == "LOCATION" and n in org]
