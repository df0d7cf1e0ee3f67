"""Shared text utilities: BM25 tokens (jieba for Chinese), token counts, hashes.

Language facts (scripts, stopwords, sentences, names) live in :mod:`extraction.language`.

BM25 needs words. Latin-script text is split on word characters and lower-cased; runs of CJK
characters go through jieba's search mode, which emits a long word *and* its shorter parts
(``中华人民共和国`` → ``中华``, ``华人``, ``人民``, ``共和``, ``共和国``, ``中华人民共和国``), so a
query segmented differently from the document still matches. jieba loads its dictionary on
first use (~1 s), never at import.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
from collections.abc import Iterator
from typing import Any

from extraction.language import CJK, ENGLISH_STOPWORDS, cjk_ratio, contains_cjk

__all__ = [
    "ENGLISH_STOPWORDS",
    "bm25_tokens",
    "cjk_ratio",
    "contains_cjk",
    "content_hash",
    "count_tokens",
    "token_spans",
]

logger = logging.getLogger(__name__)

_CJK_RUN = re.compile(f"[{CJK}]+")
# A "token" for budgets: one CJK character, a run of other word characters, or one symbol.
_TOKEN = re.compile(f"[{CJK}]|[^\\W{CJK}]+|[^\\w\\s]")
_WORD = re.compile(f"[^\\W_{CJK}]+")

_jieba_lock = threading.Lock()
_jieba: Any = None


def _jieba_module() -> Any:
    global _jieba
    with _jieba_lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)  # it prints "Building prefix dict" otherwise
            jieba.initialize()
            _jieba = jieba
    return _jieba


def content_hash(*parts: str) -> str:
    """sha256 hex digest of the parts (joined by an unprintable separator)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def count_tokens(text: str) -> int:
    """Approximate token count: words, CJK characters and symbols (model-independent)."""
    return sum(1 for _ in _TOKEN.finditer(text))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens :func:`count_tokens` counts, in order."""
    return [m.span() for m in _TOKEN.finditer(text)]


def _latin_words(text: str, stopwords: frozenset[str]) -> Iterator[str]:
    for match in _WORD.finditer(text):
        word = match.group().lower()
        if word not in stopwords:
            yield word


def bm25_tokens(text: str, *, remove_stopwords: bool = True) -> list[str]:
    """Words for BM25: lower-cased Latin words and jieba-segmented Chinese.

    Args:
        text: Any text, mixed scripts allowed.
        remove_stopwords: Drop :data:`ENGLISH_STOPWORDS`.

    Returns:
        Tokens in text order (Chinese runs contribute jieba search-mode words).
    """
    text = unicodedata.normalize("NFKC", text)
    stop = ENGLISH_STOPWORDS if remove_stopwords else frozenset()
    if not contains_cjk(text):
        return list(_latin_words(text, stop))
    jieba = _jieba_module()
    tokens: list[str] = []
    pos = 0
    for run in _CJK_RUN.finditer(text):
        tokens.extend(_latin_words(text[pos : run.start()], stop))
        tokens.extend(w for w in jieba.cut_for_search(run.group()) if w.strip())
        pos = run.end()
    tokens.extend(_latin_words(text[pos:], stop))
    return tokens
