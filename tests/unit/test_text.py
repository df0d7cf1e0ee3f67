"""kg_rag.text: CJK detection, BM25 tokens (jieba for Chinese), token counts and hashes."""

from __future__ import annotations

import pytest

from kg_rag.text import (
    bm25_tokens,
    cjk_ratio,
    contains_cjk,
    content_hash,
    count_tokens,
    token_spans,
)

pytestmark = pytest.mark.unit


def test_contains_cjk_and_ratio() -> None:
    assert contains_cjk("Paris 是法国的首都")
    assert not contains_cjk("Paris is the capital of France, café")
    assert cjk_ratio("中文") == 1.0
    assert cjk_ratio("ab 中文") == pytest.approx(0.5)
    assert cjk_ratio("   ") == 0.0


def test_latin_tokens_are_lowercased_words_without_stopwords() -> None:
    assert bm25_tokens("The Eiffel Tower, in Paris!") == ["eiffel", "tower", "paris"]
    assert bm25_tokens("The tower", remove_stopwords=False) == ["the", "tower"]


def test_chinese_is_segmented_into_words() -> None:
    tokens = bm25_tokens("北京是中华人民共和国的首都")
    assert "北京" in tokens
    assert "首都" in tokens
    # Search mode also emits the parts of long words, so a differently segmented query
    # still matches.
    assert "中华人民共和国" in tokens and "人民" in tokens


def test_mixed_script_keeps_both() -> None:
    tokens = bm25_tokens("GPT-4 模型在北京发布")
    assert tokens[:2] == ["gpt", "4"]
    assert "北京" in tokens and "发布" in tokens


def test_count_tokens_and_spans_agree() -> None:
    text = "Hello, world 你好"
    spans = token_spans(text)
    assert count_tokens(text) == len(spans) == 5  # Hello , world 你 好
    assert [text[a:b] for a, b in spans] == ["Hello", ",", "world", "你", "好"]


def test_content_hash_is_stable_and_separates_parts() -> None:
    assert content_hash("a", "b") == content_hash("a", "b")
    assert content_hash("a", "b") != content_hash("ab")
    assert len(content_hash("x")) == 64
