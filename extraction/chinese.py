"""Offline Chinese mention finding with jieba's part-of-speech tags.

jieba tags person names ``nr`` (and ``nrt``/``nrfg`` for transliterated ones), places ``ns``,
organisations ``nt`` and other proper nouns ``nz``. On top of the tags:

* a name or place followed by an organisation word (大学, 公司, 集团, ...) is one organisation
  ("阿里巴巴" + "集团" → 阿里巴巴集团);
* names joined by a middle dot are one person (卡尔·马克思);
* a transliterated name right after a place is a place (德国特里尔 → 特里尔 is a LOCATION);
* 《...》 is a title (WORK); ``1990年10月`` is a DATE, and its year ``1990`` one too (so it meets
  English text that says 1990);
* capitalised Latin words (Google, IBM) are CONCEPT mentions.

jieba is imported on first use: loading its dictionary takes about a second.
"""

from __future__ import annotations

import re
from typing import Any

from extraction.english import Span

__all__ = ["find_chinese_spans"]

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
_ORG_SUFFIXES = frozenset(
    (
        "大学",
        "学院",
        "公司",
        "集团",
        "银行",
        "医院",
        "研究所",
        "研究院",
        "委员会",
        "协会",
        "学会",
        "政府",
        "中学",
        "小学",
        "博物馆",
        "出版社",
        "俱乐部",
        "基金会",
        "报社",
        "电视台",
        "电台",
        "乐队",
        "球队",
        "队",
        "党",
        "部",
        "局",
        "厅",
        "署",
        "社",
        "所",
        "院",
        "会",
    )
)
_SENTENCE_END = re.compile(r"[。！？；!?;\n]+")
_TITLE = re.compile(r"《(?P<t>[^《》]{1,60})》")
_DATE = re.compile(r"(?P<y>\d{3,4})\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?")
_LATIN = re.compile(r"[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*")


def _posseg() -> Any:
    import jieba.posseg

    return jieba.posseg


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


def _tagged(text: str) -> list[tuple[str, str, int]]:
    """(word, flag, start offset) for every jieba token."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    for pair in _posseg().cut(text):
        word, flag = pair.word, pair.flag
        found = text.find(word, pos)
        if found < 0:
            continue
        out.append((word, flag, found))
        pos = found + len(word)
    return out


def find_chinese_spans(text: str) -> tuple[list[Span], list[tuple[int, int]]]:
    """Find the mentions of Chinese ``text``.

    Args:
        text: Chinese text (Latin words inside it are handled too).

    Returns:
        ``(spans, sentences)``: mentions sorted by position, and sentence character ranges.
    """
    spans: list[Span] = []
    covered: list[tuple[int, int]] = []
    for m in _TITLE.finditer(text):
        spans.append(Span(m.group("t"), "WORK", m.start("t"), m.end("t"), strong=True))
        covered.append((m.start(), m.end()))
    for m in _DATE.finditer(text):
        spans.append(Span(m.group(0).replace(" ", ""), "DATE", m.start(), m.end(), strong=True))
        spans.append(Span(m.group("y"), "DATE", m.start("y"), m.end("y"), strong=True))
        covered.append((m.start(), m.end()))

    def free(start: int, end: int) -> bool:
        return not any(a < end and start < b for a, b in covered)

    tokens = _tagged(text)
    i = 0
    while i < len(tokens):
        word, flag, start = tokens[i]
        kind = _FLAG_TYPES.get(flag)
        if flag == "eng" and word[:1].isupper():
            kind = "CONCEPT"
        if kind is None or not free(start, start + len(word)) or (len(word) < 2 and flag != "eng"):
            i += 1
            continue
        end = start + len(word)
        j = i + 1
        # 卡尔·马克思: names joined by a middle dot.
        while (
            kind == "PERSON"
            and j + 1 < len(tokens)
            and tokens[j][0] in ("·", "•", "・")
            and _FLAG_TYPES.get(tokens[j + 1][1]) == "PERSON"
        ):
            end = tokens[j + 1][2] + len(tokens[j + 1][0])
            j += 2
        if j < len(tokens) and tokens[j][0] in _ORG_SUFFIXES and tokens[j][2] == end:
            end += len(tokens[j][0])
            kind = "ORGANIZATION"
            j += 1
        elif (
            kind == "PERSON"
            and flag == "nrt"
            and i > 0
            and _FLAG_TYPES.get(tokens[i - 1][1]) == "LOCATION"
        ):
            kind = "LOCATION"
        spans.append(Span(text[start:end], kind, start, end))
        i = j
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans, _sentences(text)
