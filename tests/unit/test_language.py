"""The language module: one source for scripts, word classes, sentences and name keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extraction import language
from extraction.language import (
    cjk_ratio,
    contains_cjk,
    contains_han,
    generation,
    normalize_name,
    split_sentences,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Ada Moe left in 2008. She moved on.", ["Dr. Ada Moe left in 2008.", "She moved on."]),
        ("她去了杭州。然后回来了。", ["她去了杭州。", "然后回来了。"]),
        ("He paid $3.50 for it. Then he left.", ["He paid $3.50 for it.", "Then he left."]),
        ("J. R. R. Tolkien wrote it. It sold.", ["J. R. R. Tolkien wrote it.", "It sold."]),
        ("Is it? Yes! Fine.", ["Is it?", "Yes!", "Fine."]),
        ("他说：“好。”随后离开。", ["他说：“好。”", "随后离开。"]),
        ("See No. 5 on the list. Done.", ["See No. 5 on the list.", "Done."]),
        ("The U.S. team won. Mixed 中文句子。English again.", None),
        ("no end mark at all", ["no end mark at all"]),
        ("   ", []),
        ("Items:\n- first\n- second", ["Items:", "- first", "- second"]),
        ("e.g. this one stays whole. Next.", ["e.g. this one stays whole.", "Next."]),
    ],
)
def test_split_sentences(text: str, expected: list[str] | None) -> None:
    spans = split_sentences(text)
    pieces = [text[s:e] for s, e in spans]
    assert all(p == p.strip() and p for p in pieces)
    assert spans == sorted(spans)
    if expected is None:
        assert pieces[0] == "The U.S. team won."
        assert "中文句子。" in pieces[1]
        assert pieces[-1] == "English again."
    else:
        assert pieces == expected


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("The Beatles", "beatles", True),
        ("I.B.M.", "ＩＢＭ", True),
        ("Zürich", "Zurich", True),
        ("Wal-Mart", "Wal Mart", True),
        ("北京 大学", "北京大学", True),
        ("AT&T", "AT and T", True),
        ("3.5 Inch", "35 inch", False),
        ("陆清和", "陆清", False),
        ("カタカナ", "かたかな", False),
        ("Anna", "Hanna", False),
    ],
)
def test_normalize_name_keys(a: str, b: str, same: bool) -> None:
    assert (normalize_name(a) == normalize_name(b)) is same


@pytest.mark.parametrize(
    ("text", "cjk", "han", "ratio"),
    [
        ("abc", False, False, 0.0),
        ("北京", True, True, 1.0),
        ("かな", True, False, 1.0),
        ("한국", True, False, 1.0),
        ("AB北京", True, True, 0.5),
        ("", False, False, 0.0),
        ("㐀", True, True, 1.0),  # extension A
    ],
)
def test_script_predicates(text: str, cjk: bool, han: bool, ratio: float) -> None:
    assert contains_cjk(text) is cjk
    assert contains_han(text) is han
    assert cjk_ratio(text) == pytest.approx(ratio)


def test_word_classes_nest() -> None:
    assert language.AUXILIARIES - {"can", "could", "may", "might", "must", "shall", "should"} <= (
        language.ENGLISH_STOPWORDS
    )
    assert language.ENGLISH_STOPWORDS <= language.NON_NAME_WORDS
    assert "born" in language.NON_NAME_WORDS and "born" not in language.ENGLISH_STOPWORDS


_RANGE = re.compile(r"\\u4e00-\\u9fff|\\u3400-\\u9fff|\\u3040-\\u30ff|\\uac00-\\ud7af")


def test_script_ranges_are_defined_once() -> None:
    # Every other module builds its patterns from language.HAN / language.CJK, so the chunker,
    # the extractors, the linkers and the reader cannot disagree on what a CJK character is.
    offenders = []
    for package in ("kg_rag", "extraction", "communities"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "language.py":
                continue
            if _RANGE.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_one_normalize_name() -> None:
    from extraction import normalize
    from kg_rag.stores import ppr

    assert normalize.normalize_name is normalize_name
    assert ppr.normalize_name is normalize_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Orm Tessick the younger", "younger"),
        ("the elder Orm Tessick", "elder"),
        ("Orm Tessick The Elder", "elder"),
        ("Ada Moe Jr.", "younger"),
        ("Ada Moe Sr.", "elder"),
        ("Ada Moe junior", "younger"),
        ("Orm Tessick", None),
        ("Srinagar", None),  # a word that merely starts like "Sr"
        ("Juniper Moe", None),
    ],
)
def test_generation_words(name: str, expected: str | None) -> None:
    assert generation(name) == expected


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("同治八年", 1869),
        ("民国元年", 1912),
        ("民国十八年", 1929),
        ("光绪二十一年", 1895),
        ("光绪廿一年", 1895),
        ("康熙六十一年", 1722),
        ("道光十年秋", 1830),
        ("乾隆5年", 1740),
        ("同治", None),  # no year count
        ("八年", None),  # no era
        ("同治零年", None),
    ],
)
def test_zh_era_years(text: str, year: int | None) -> None:
    """An era title and its year count give the Western year (the first year is 元年)."""
    from extraction.language import zh_era_year

    assert zh_era_year(text) == year


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("同治八年蓼川纸业公所成立。", [("同治八年", 1869)]),
        # the Western year in brackets is the date read, not the era year before it
        ("光绪五年（1879年）苇汀码头建成。", [("1879年", 1879)]),
        ("民国十年和民国二十年各修一次。", [("民国十年", 1921), ("民国二十年", 1931)]),
    ],
)
def test_era_years_are_dates(text: str, dates: list[tuple[str, int]]) -> None:
    from kg_rag.answer.question import find_dates

    assert [(text[a:b], key[0]) for a, b, key in find_dates(text)] == dates


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("七十五", 75),
        ("十八", 18),
        ("十", 10),
        ("一百零三", 103),
        ("两百", 200),
        ("一百一十", 110),
        ("一", 1),
        # no numeral as the language writes one
        ("二二", None),
        ("十十", None),
        ("七十五岁", None),
        ("", None),
    ],
)
def test_zh_numerals(text: str, value: int | None) -> None:
    """A Chinese numeral under a thousand, written whole, and its value."""
    from extraction.language import zh_numeral

    assert zh_numeral(text) == value
