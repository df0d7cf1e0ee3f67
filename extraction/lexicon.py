"""Word lists behind the offline extractor's span and type heuristics (English and Chinese).

Small closed-class lists and name-shape cues, no gazetteer of names: the extractor must work on
any corpus and stay deterministic.
"""

from __future__ import annotations

from extraction.language import NON_NAME_WORDS

__all__ = [
    "ABBREVIATIONS",
    "ADJECTIVE_MODIFIERS",
    "CALENDAR_WORDS",
    "CHINESE_ADMIN_UNITS",
    "CHINESE_COMPOUND_SURNAMES",
    "CHINESE_NOT_GIVEN",
    "CHINESE_ORG_LEGAL_FORMS",
    "CHINESE_ORG_MIDDLES",
    "CHINESE_ORG_SHORT_SUFFIXES",
    "CHINESE_ORG_SUFFIXES",
    "CHINESE_RELATION_CUES",
    "CHINESE_SURNAMES",
    "CHINESE_TITLE_WORDS",
    "CONNECTORS",
    "CORPORATE_SUFFIXES",
    "EVENT_FIRST",
    "EVENT_HEADS",
    "HONORIFICS",
    "HONORIFICS_STRIPPED",
    "LOCATION_CUES",
    "LOCATION_FIRST",
    "LOCATION_HEADS",
    "ORG_FIRST",
    "ORG_HEADS",
    "PERSON_CUES_BEFORE",
    "STOPWORDS",
    "WORK_CUES",
    "WORK_FIRST",
    "WORK_HEADS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = NON_NAME_WORDS
"""Function and common words: never a name on their own (see :mod:`extraction.language`)."""

CONNECTORS = _words(
    "of the de del della dei des der den van von da di du la le y al bin ibn & 'n und et"
)
"""Lower-case words that may join the capitalised parts of one name ("Bank of America")."""

ABBREVIATIONS = _words(
    "Mr Mrs Ms Dr St Mt Ft Jr Sr Gen Col Capt Lt Sgt Rev Prof Gov Sen Rep Co Corp Inc Ltd Bros "
    "No Vol Ave Blvd Adm Cmdr Hon Pres Univ Dept Est"
)
"""Abbreviations whose dot does not end a sentence."""

HONORIFICS = _words(
    "mr mrs ms miss dr sir dame lord lady prof professor president senator governor general "
    "captain colonel admiral judge justice rev reverend father bishop archbishop pope king queen "
    "prince princess emperor empress duke duchess count countess baron baroness chancellor "
    "minister mayor chief coach saint sheikh sultan tsar czar pharaoh shah imam rabbi "
    "lieutenant sergeant commander marshal ambassador"
)
"""Titles before a person's name (lower-cased, without dots)."""

HONORIFICS_STRIPPED = _words(
    "mr mrs ms miss dr prof professor sir dame president senator governor general captain "
    "colonel admiral judge rev reverend lieutenant sergeant commander ambassador mayor "
    "minister chancellor coach"
)
"""Titles dropped from a name ("President Lincoln" → "Lincoln"); royal ones stay ("King
Albert I")."""

PERSON_CUES_BEFORE = _words(
    "singer actor actress writer author poet painter composer politician director producer "
    "player footballer goalkeeper guitarist rapper drummer musician artist architect scientist "
    "physicist chemist philosopher founder son daughter wife husband brother sister father "
    "mother uncle aunt nephew niece widow cousin novelist playwright journalist economist "
    "mathematician historian sculptor photographer comedian dancer pianist violinist "
    "screenwriter lyricist songwriter vocalist bassist boxer wrestler cricketer jockey"
)
"""Lower-case role words often right before a person's name ("the composer X")."""

LOCATION_CUES = _words("in near at across throughout outside inside towards toward into")
"""Prepositions that, right before a capitalised run, suggest a place ("born in X")."""

ORG_HEADS = _words(
    "inc corp corporation company co ltd llc plc group holdings industries enterprises "
    "airlines airways motors bank university college institute institution academy school "
    "seminary conservatory association society federation confederation league union council "
    "committee commission board agency bureau department ministry office authority service "
    "services party club fc team foundation trust fund church parliament senate congress "
    "assembly court army navy force forces corps police guard records studios studio pictures "
    "entertainment media network broadcasting press publishing publications laboratories labs "
    "orchestra band choir ensemble hospital museum library gallery organization organisation "
    "alliance coalition order brotherhood cooperative consortium systems technologies software "
    "electronics pharmaceuticals railway railways railroad brewery"
)
"""Last words of organisation names (lower-cased)."""

ORG_FIRST = _words(
    "university bank council church institute ministry department academy college society "
    "association federation board commission committee league"
)
"""First words of organisation names followed by "of" ("University of X")."""

LOCATION_HEADS = _words(
    "river creek brook lake sea ocean bay gulf strait channel canal falls island islands isle "
    "peninsula mountain mountains hill hills valley desert forest park glacier coast beach "
    "plateau plain plains basin delta county parish province region district territory "
    "prefecture municipality township borough city town village republic kingdom empire street "
    "road avenue square bridge tower castle palace cathedral airport station harbor harbour "
    "port stadium arena highway boulevard heights springs reservoir dam volcano range pass "
    "states emirates oblast governorate county"
)
"""Last words of place names (lower-cased)."""

LOCATION_FIRST = _words("mount lake cape fort port isle gulf bay republic kingdom state sea strait")
"""First words of place names ("Mount X", "Republic of X")."""

EVENT_HEADS = _words(
    "war battle revolution rebellion uprising siege massacre crisis olympics olympiad games "
    "championship championships cup tournament festival election elections conference summit "
    "expedition campaign protests riots strike treaty agreement awards award prize marathon "
    "bowl season series grand prix"
)
"""Last words of event names (lower-cased)."""

EVENT_FIRST = _words("battle siege treaty war")
"""First words of event names ("Battle of X")."""

WORK_HEADS = _words(
    "journal review magazine times post gazette herald tribune chronicle quarterly bulletin "
    "symphony concerto sonata trilogy saga show"
)
"""Last words of titles of works (lower-cased)."""

WORK_FIRST = _words("journal annals proceedings")
"""First words of titles of works ("Journal of X")."""

WORK_CUES = _words(
    "album single song film movie novel book series sitcom episode play musical opera poem "
    "painting sculpture magazine journal newspaper game documentary ep soundtrack track "
    "anthology comic manga anime programme program titled entitled"
)
"""Lower-case words right before a title ("the album X")."""

ADJECTIVE_MODIFIERS = _words(
    "united national royal great northern southern eastern western north south east west new "
    "old central upper lower greater little big grand high first second international general "
    "state city county federal imperial supreme democratic republican catholic christian "
    "protestant socialist communist liberal conservative labour labor people peoples holy "
    "saint st free independent public metropolitan municipal regional provincial official "
    "summer winter olympic world"
)
"""Words that, alone, are no name even when they open one ("*United* States")."""

CALENDAR_WORDS = _words(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday bc ad bce ce"
)
"""Month and day names and era marks: alone they are no entity (dates are found apart)."""

CORPORATE_SUFFIXES = _words("inc inc. ltd ltd. co co. corp corp. llc plc gmbh ag sa")
"""Legal-form suffixes: alone (after a comma) they are no entity."""


# -- Chinese ----------------------------------------------------------------------------------
# Word lists behind :mod:`extraction.chinese`. Single characters are listed in one string each.

CHINESE_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾"
    "毛郝龚邵万钱严覃武戴莫孔向汤"
    # Less common but frequent in news and history text.
    "鲁乔欧左柳邢施温洪葛康庞聂殷詹倪蒲翁卜阮桂柯舒奚纪岳童耿阎霍凌邬樊郎祁傅穆裴屈"
)
"""Common one-character Chinese surnames (a one-character token jieba leaves alone before a
given name: 王 + 海峰)."""

CHINESE_COMPOUND_SURNAMES = _words(
    "欧阳 司马 诸葛 上官 东方 皇甫 尉迟 公孙 慕容 令狐 夏侯 长孙 宇文 司徒 端木 独孤 南宫 "
    "西门 轩辕 澹台 钟离 呼延 万俟 申屠 闻人 贺兰 赫连 拓跋 鲜于 闾丘 太史 百里 东郭 南门 "
    "羊舌 微生 公羊 公冶 宗政 濮阳 太叔 仲孙 乐正 漆雕 壤驷 公良 夹谷 宰父 谷梁 段干 东门 "
    "公西 梁丘 左丘 第五 司寇 子车 颛孙 巫马 亓官 单于"
)
"""Two-character surnames."""

CHINESE_TITLE_WORDS = _words(
    "先生 女士 小姐 太太 夫人 老师 教授 博士 医生 大夫 律师 记者 同学 同志 师傅 阿姨 叔叔 "
    "大爷 老板 总裁 经理 董事长 主席 书记 市长 省长 县长 镇长 村长 区长 部长 局长 处长 科长 "
    "厅长 校长 院长 所长 队长 厂长 社长 会长 行长 总理 总统 主任 委员 代表 将军 司令 教练 "
    "老总 总监 编辑 作家 诗人 画家 演员 导演 一家 一行 等人 家族 父子 兄弟 姐妹 夫妇"
)
"""Titles and kin words after a surname (王先生, 张老师): a way to refer to someone, not a
given name."""

CHINESE_KIN_WORDS = _words(
    "父亲 母亲 爸爸 妈妈 哥哥 弟弟 姐姐 妹妹 兄长 妻子 丈夫 儿子 女儿 侄子 侄女 外甥 祖父 祖母 "
    "孙子 孙女 叔叔 伯父 舅舅 姑姑 阿姨 岳父 岳母 女婿 儿媳 遗孀 未婚妻 未婚夫 "
    "长子 次子 幼子 独子 长女 次女 幼女 独女 养子 养女 继子 继女 继父 继母 养父 养母 "
    "叔父 舅父 姑父 姨父 外孙 外孙女 曾孙 长孙 堂兄 堂弟 表兄 表弟 内兄 内弟 胞兄 胞弟"
)
"""Kinship nouns: "X的弟弟" makes X a person."""

CHINESE_AGENT_ENDS = frozenset("人家者员师手")
"""Last characters of an occupation noun (主持人, 作家, 记者, 演员, 律师, 鼓手): one right
before a name stands in apposition to it (主持人祁朔), so the name is a person's."""

CHINESE_NOT_GIVEN = frozenset("家氏某总姐哥弟妹叔伯姨婶嫂爷奶公婆老们等说称道和与及的是在也都")
"""Single characters after a surname that are not a one-character given name (王家, 李某)."""

CHINESE_ORG_SUFFIXES = _words(
    "公司 有限公司 股份有限公司 有限责任公司 集团 控股 科技 大学 学院 医学院 商学院 "
    "法学院 中学 小学 学校 银行 医院 研究院 研究所 研究中心 实验室 科学院 工程院 委员会 协会 "
    "学会 基金会 联合会 商会 出版社 报社 杂志社 通讯社 电视台 广播电台 电台 博物馆 图书馆 "
    "俱乐部 乐队 乐团 剧团 球队 政府 法院 检察院 事务所 工作室 联盟 组织 中心 航空 "
    "证券 保险 文化馆 纪念馆 美术馆 科技馆 档案馆 艺术馆 展览馆 体育馆 天文馆 文化站 剧院 "
    "音乐厅"
)
"""Words that end an organisation name (蓝鲸 + 科技, 阿里巴巴 + 集团, 浙江大学 + 医学院)."""

CHINESE_ORG_CLASS_NOUNS = _words("企业 机构 单位 团体 厂商 制造商 工厂 商行 门店 品牌 高校 院校")
"""Nouns that class an organisation but rarely end its name (一家电子设备制造企业): after
一家 in a defining sentence they make the subject an organisation."""

CHINESE_ORG_SHORT_SUFFIXES = frozenset("队党部局厅署社院会所")
"""One-character organisation words: only after a place or an organisation name (上海 + 队),
never after a person's name (王海峰 + 所 is "what 王海峰 ...")."""

CHINESE_ADMIN_UNITS = frozenset("省市县区镇乡村州")
"""The characters that close the name of an administrative unit (province, city, county,
district, town, township, village, prefecture): 石桥镇, 柳溪村 are places."""

CHINESE_ORG_LEGAL_FORMS = _words("有限公司 股份有限公司 有限责任公司")
"""Legal forms: always after a name, so even a common word before them is a company name
(百度 + 有限公司), where 公司 alone after a common noun is generic (软件公司)."""

CHINESE_ORG_MIDDLES = _words(
    "科技 网络 在线 技术 信息 软件 电子 通信 通讯 传媒 文化 投资 控股 股份 实业 贸易 电气 汽车 "
    "航空 医药 生物 能源 国际 工业 商业 建设 发展 证券 保险 人寿 电力 石油 化工 钢铁 机械 "
    "智能 数据 互联网 教育 科学 师范 理工 农业 工商 交通 金融 财经 外国语 艺术 音乐 美术 "
    "体育 电影 新闻 人民 计算机 电脑 数码 物流 地产 房地产 置业 食品 服装 传播 咨询 管理 "
    "环境 环保 新能源 半导体 光电 制药 健康 医疗"
)
"""Industry words between a name and its organisation word (阿里巴巴 + 网络 + 技术 +
有限公司)."""

CHINESE_RELATION_CUES = r"""
FOUNDED_BY (?P<d>创始人|创办人|创建者|创立者|缔造者|奠基人)(?:之一)?[是为]?$ - ORG,CON PER,ORG,CON >
FOUNDED_BY ^[是为]$ ^的?(?:联合|主要)?(?P<d>创始人|创办人|创建者|创立者) PER,ORG ORG,CON <
FOUNDED_BY 由$ ^[^，,。；]{0,24}?(?P<d>共同创立|共同创办|创立|创办|创建|建立|组建|成立) ORG,CON PER,ORG >
FOUNDED_BY (?P<d>共同创立|共同创办|创立|创办|创建|建立|组建|成立|创始)了?$ - PER,ORG ORG,CON <
FOUNDED_IN (?P<d>成立于|创立于|创办于|创建于|始建于|建于|成立在)$ - ORG,CON,LOC DATE,LOC >
HEADQUARTERED_IN (?P<d>总部(?:位于|设在|设于|在))$ - ORG,CON LOC >
LOCATED_IN (?P<d>位于|坐落于|坐落在|地处|设在|设于)$ - ORG,CON,LOC,EVENT,WORK LOC >
BORN_IN (?P<d>出生于|出生在|生于|诞生于|出生)$ - PER LOC,DATE >
DIED_IN (?P<d>逝世于|去世于|病逝于|死于|卒于)$ - PER LOC,DATE >
GRADUATED_FROM (?P<d>毕业于|毕业自)$ - PER ORG,CON >
GRADUATED_FROM 从$ ^(?P<d>毕业) PER ORG,CON >
STUDIED_AT (?P<d>就读于|求学于|就学于|留学于|进修于)$ - PER ORG,CON,LOC >
STUDIED_AT [在到赴]$ ^(?P<d>学习|读书|就读|求学|留学|深造|进修) PER ORG,CON,LOC >
WORKED_AT (?P<d>任职于|就职于|工作于|供职于|受雇于|效力于|任教于)$ - PER ORG,CON,LOC >
WORKED_AT [在于]$ ^(?P<d>工作|任职|就职|任教|执教|供职|上班) PER ORG,CON,LOC >
MEMBER_OF (?P<d>加入|加盟)了?$ - PER,ORG ORG,CON >
ACQUIRED (?P<d>收购|并购)了?$ - ORG,CON ORG,CON >
PART_OF (?P<d>隶属于|隶属|属于)$ - ORG,LOC,CON ORG,LOC,CON >
CAPITAL_OF 的(?P<d>首都|省会|首府)[是为]$ - LOC LOC <
CAPITAL_OF ^[是为]$ ^的(?P<d>首都|省会|首府) LOC LOC >
CREATED 的(?P<d>小说|作品|著作|专辑|歌曲|电影|诗集|诗作|散文|剧本|画作|代表作)《$ - PER,ORG WORK >
CREATED (?P<d>创作|撰写|编写|写|著|出版|发表|发行|推出)了?《$ - PER,ORG WORK >
DIRECTED (?P<d>执导|导演)了?《$ - PER WORK >
CREATED 》的(?P<d>作者|作曲|作词)[是为]$ - WORK PER <
DIRECTED 》的(?P<d>导演)[是为]$ - WORK PER <
SPOUSE_OF 的(?P<d>妻子|丈夫|夫人|太太|配偶)[是为]?$ - PER PER >
PARENT_OF 的(?P<d>儿子|女儿|长子|次子|长女|次女)[是为]?$ - PER PER >
PARENT_OF 的(?P<d>父亲|母亲)[是为]?$ - PER PER <
"""
"""Verbs that type a relation between two mentions of a sentence (:func:`extraction.chinese.
relation_cue`). One cue a line, columns split on spaces: the relation type; a pattern searched
in the text between the two mentions; a pattern matched at the start of the text after the
second one ("-": none); the types the first and the second mention may have (PER, ORG, LOC,
CON, DATE, WORK, EVENT); ">" (first → second) or "<" (second → first). The group ``d`` is the
description. The first matching line wins, so specific lines come first."""
