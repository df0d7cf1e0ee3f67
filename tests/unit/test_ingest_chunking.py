"""Chunking and cleaning: sections from headings, sentence splitting, budgets, offsets."""

from __future__ import annotations

import itertools

import pytest

from kg_rag.config import ChunkingSettings
from kg_rag.errors import ConfigError
from kg_rag.ingest.chunking import chunk_document, split_sentences
from kg_rag.ingest.clean import clean_text
from kg_rag.ingest.loaders import html_to_text
from kg_rag.models import Chunk

pytestmark = pytest.mark.unit

MARKDOWN = """Preface line before any heading.

# Eiffel Tower

The tower stands in Paris. It opened in 1889.

It is 330 m tall.

## Construction

Gustave Eiffel's company built it.

```
# a comment, not a heading
```

# Empty heading

# Visitors

Millions visit every year.
"""


def _by_level(chunks: list[Chunk], level: str) -> list[Chunk]:
    return [c for c in chunks if c.level == level]


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_markdown_headings_make_sections_with_heading_paths() -> None:
    chunks = chunk_document("doc", MARKDOWN, fmt="md")
    sections = _by_level(chunks, "section")
    assert [s.heading_path for s in sections] == [
        [],
        ["Eiffel Tower"],
        ["Eiffel Tower", "Construction"],
        ["Visitors"],
    ]
    assert sections[1].text.startswith("# Eiffel Tower")
    paragraphs = _by_level(chunks, "paragraph")
    assert [p.text for p in paragraphs if p.heading_path == ["Eiffel Tower"]] == [
        "The tower stands in Paris. It opened in 1889.",
        "It is 330 m tall.",
    ]
    # Sentences inherit the heading path of their section.
    sentence = next(c for c in chunks if c.text == "It opened in 1889.")
    assert sentence.heading_path == ["Eiffel Tower"]


def test_plain_text_is_one_section() -> None:
    chunks = chunk_document("doc", "# not a heading in txt\n\nSecond paragraph.", fmt="txt")
    assert len(_by_level(chunks, "section")) == 1
    assert len(_by_level(chunks, "paragraph")) == 2


def test_parent_links_form_a_tree_in_document_order() -> None:
    chunks = chunk_document("doc", MARKDOWN, fmt="md")
    by_id = {c.chunk_id: c for c in chunks}
    expected_parent = {"section": "document", "paragraph": "section", "sentence": "paragraph"}
    assert chunks[0].level == "document" and chunks[0].parent_id is None
    for c in chunks[1:]:
        parent = by_id[c.parent_id or ""]
        assert parent.level == expected_parent[c.level]
        assert parent.char_start <= c.char_start and c.char_end <= parent.char_end
    assert len(by_id) == len(chunks)  # ids are unique


def test_offsets_round_trip_after_cleaning() -> None:
    raw = "  Title\r\n\r\n\r\n\r\nFirst\tline   with  spaces.\x07 Second sentence!\r\n\r\n中文句子。第二句？  "
    text = clean_text(raw, ChunkingSettings())
    chunks = chunk_document("doc", text)
    assert chunks
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text


def test_chinese_paragraph_splits_at_sentence_marks_and_keeps_quotes() -> None:
    text = "他说：“今天天气很好。”我们出去吧！你去吗？我不去；他去。最后一句"
    assert _sentences(text) == [
        "他说：“今天天气很好。”",
        "我们出去吧！",
        "你去吗？",
        "我不去；",
        "他去。",
        "最后一句",
    ]
    chunks = chunk_document("zh", text)
    assert len(_by_level(chunks, "sentence")) == 6


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith moved to the U.S. in 1990. He left.",
            ["Dr. Smith moved to the U.S. in 1990.", "He left."],
        ),
        ("Pi is 3.14 exactly. Really.", ["Pi is 3.14 exactly.", "Really."]),
        ("Fruit, e.g. apples, is good. Eat it.", ["Fruit, e.g. apples, is good.", "Eat it."]),
        (
            "J. R. R. Tolkien wrote it. See No. 5 too.",
            ["J. R. R. Tolkien wrote it.", "See No. 5 too."],
        ),
        ('She said "Stop." Then left?', ['She said "Stop."', "Then left?"]),
        ("Wait... Yes! No?", ["Wait...", "Yes!", "No?"]),
    ],
)
def test_english_sentence_splitting(text: str, expected: list[str]) -> None:
    assert _sentences(text) == expected


def test_units_over_the_budget_are_split_with_overlap() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(40))  # 6 tokens each
    settings = ChunkingSettings(max_tokens=30, overlap_tokens=6)
    chunks = chunk_document("doc", text, settings=settings)
    paragraphs = _by_level(chunks, "paragraph")
    assert len(paragraphs) > 1
    for first, second in itertools.pairwise(paragraphs):
        assert second.char_start < first.char_end  # overlapping pieces
    # Every sentence belongs to exactly one paragraph piece that contains it.
    ids = {p.chunk_id for p in paragraphs}
    assert all(s.parent_id in ids for s in _by_level(chunks, "sentence"))

    long_sentence = "word " * 100
    windows = _by_level(
        chunk_document("d", long_sentence.strip() + ".", settings=settings), "sentence"
    )
    assert len(windows) >= 3
    assert all(len(w.text.split()) <= 30 for w in windows)
    assert windows[1].char_start < windows[0].char_end


def test_chunk_ids_do_not_depend_on_offsets() -> None:
    before = chunk_document("doc", "Alpha para.\n\nBeta para.")
    after = chunk_document("doc", "New first para.\n\nAlpha para.\n\nBeta para.")
    ids_before = {c.text: c.chunk_id for c in before if c.level == "paragraph"}
    ids_after = {c.text: c.chunk_id for c in after if c.level == "paragraph"}
    assert ids_before["Beta para."] == ids_after["Beta para."]


def test_cleaning_is_configurable() -> None:
    raw = "Page 1 of 3\nReal   text\there.\x00\u200b\n\n\n\nMore."
    settings = ChunkingSettings(boilerplate_patterns=[r"^Page \d+ of \d+\n"])
    assert clean_text(raw, settings) == "Real text here.\n\nMore."
    kept = ChunkingSettings(collapse_whitespace=False, strip_control_chars=False)
    assert "\x00" in clean_text(raw, kept) and "   " in clean_text(raw, kept)
    with pytest.raises(ConfigError, match="boilerplate"):
        clean_text("x", ChunkingSettings(boilerplate_patterns=["("]))


def test_html_headings_become_sections() -> None:
    page = """<html><head><title>Tower</title><style>p {}</style></head><body>
    <h1>Eiffel Tower</h1><p>It stands
    in Paris.</p><h2>History</h2><p>Built in 1889.</p><script>var x;</script></body></html>"""
    text, title = html_to_text(page)
    assert title == "Eiffel Tower"  # the page's own heading, not the tab title
    assert "var x" not in text
    chunks = chunk_document("h", clean_text(text, ChunkingSettings()), fmt="html")
    assert [s.heading_path for s in _by_level(chunks, "section")] == [
        ["Eiffel Tower"],
        ["Eiffel Tower", "History"],
    ]
    assert [p.text for p in _by_level(chunks, "paragraph")] == [
        "It stands in Paris.",
        "Built in 1889.",
    ]


@pytest.mark.parametrize(
    ("body", "kept", "dropped"),
    [
        # site navigation, the page's banner and its footer are no facts of the page
        (
            "<header><p>Orrin Valley Trust</p></header><nav><a href='/'>Home</a> | "
            "<a href='/m'>Mills</a></nav><main><h1>Hobsett Mill</h1><p>Built in 1843.</p>"
            "</main><footer><p>(c) Orrin Valley Trust</p></footer>",
            ["Hobsett Mill", "Built in 1843."],
            ["Home", "Mills", "Orrin Valley Trust"],
        ),
        # a header or footer inside an article belongs to the article
        (
            "<article><header><h1>Pellick Wharf</h1><p>By Ada Pell</p></header>"
            "<p>Opened in 1790.</p><footer>Filed under wharves</footer></article>"
            "<div role='navigation'>Next page</div>",
            ["Pellick Wharf", "By Ada Pell", "Opened in 1790.", "Filed under wharves"],
            ["Next page"],
        ),
        # the ARIA landmarks say the same as the elements
        (
            "<div role='banner'>Lathe Gazette</div><div><h1>Corvey</h1><p>A hamlet.</p></div>"
            "<div role='contentinfo'>All rights reserved</div>",
            ["Corvey", "A hamlet."],
            ["Lathe Gazette", "All rights reserved"],
        ),
        # a page that is nothing but navigation keeps it: it is all the page says
        ("<nav><a href='/'>Brisk Lane index</a></nav>", ["Brisk Lane index"], []),
        # Chinese pages alike
        (
            "<header><p>澜沧古迹网</p></header><nav><a href='/'>首页</a></nav>"
            "<h1>溪桥书院</h1><p>书院建于道光三年。</p><footer>转载请注明出处</footer>",
            ["溪桥书院", "书院建于道光三年。"],
            ["澜沧古迹网", "首页", "转载请注明出处"],
        ),
    ],
)
def test_html_page_chrome_is_dropped(body: str, kept: list[str], dropped: list[str]) -> None:
    """Navigation and the page's own banner and footer (HTML's landmarks, not a word list)
    are dropped; a header or footer inside a sectioning element is the section's own."""
    text, _ = html_to_text(f"<html><head><title>t</title></head><body>{body}</body></html>")
    for piece in kept:
        assert piece in text
    for piece in dropped:
        assert piece not in text


def test_html_tables_keep_rows_and_columns() -> None:
    """An HTML table becomes one paragraph of Markdown pipe rows, header first, so a cell stays
    under its column; a one-row table is left as text."""
    page = """<html><body><h1>Towns</h1><p>Two towns on the moor.</p>
    <table><tr><th>Town</th><th>1861</th></tr>
    <tr><td>Corlby</td><td>4,120</td></tr><tr><td>Tansby | East</td><td>1,940</td></tr></table>
    <p>Both grew.</p><table><tr><td>lone</td><td>row</td></tr></table></body></html>"""
    text, _ = html_to_text(page)
    chunks = chunk_document("h", clean_text(text, ChunkingSettings()), fmt="html")
    assert [p.text for p in _by_level(chunks, "paragraph")] == [
        "Two towns on the moor.",
        "| Town | 1861 |\n|---|---|\n| Corlby | 4,120 |\n| Tansby / East | 1,940 |",
        "Both grew.",
        "lone row",
    ]
