"""Bad and hostile input: every bad file is a skipped file with a reason while the rest
ingests with its graph; caps on chunk length, chunks per document and characters per file;
non-prose text (base64, data URIs, hex dumps) is dropped and prose in any script is kept."""

from __future__ import annotations

import base64
import os
import random
from pathlib import Path

import pytest

from kg_rag.config import ChunkingSettings
from kg_rag.engine import KnowledgeEngine
from kg_rag.ingest import loaders
from kg_rag.ingest.chunking import chunk_document
from kg_rag.ingest.loaders import SourceDocument, load_file, read_text_capped
from kg_rag.ingest.pipeline import ChunkIngestor
from kg_rag.ingest.prose import filter_non_prose, is_prose_paragraph
from kg_rag.stores.chunks import LanceChunkStore
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit

_RNG = random.Random(5)
BLOB = base64.b64encode(_RNG.randbytes(30_000)).decode()

EN = (
    "The harbour of Valmora was rebuilt in 1871 by the engineer Ada Brenner. She later "
    "founded the Brenner Institute, which trained a generation of bridge builders."
)
ZH = (
    "北京是中华人民共和国的首都，也是全国的政治、文化和国际交往中心。北京有三千多年的建城史和"
    "八百多年的建都史。明朝永乐皇帝于1420年迁都北京，修建了紫禁城，清朝继续以北京为首都。"
)
ZH_NO_PUNCT = "北京大学创办于一八九八年是中国最早的国立综合性大学之一鲁迅曾在北京大学任教" * 4
JA = "東京は日本の首都であり、世界最大級の都市圏を形成している。江戸時代には江戸と呼ばれた。" * 3
KO = "서울은 대한민국의 수도이며 가장 큰 도시이다. 조선 시대에는 한양이라고 불렸다. " * 3
MIXED = "我们在2021年使用Python 3.11和PyTorch训练了模型，准确率达到了百分之九十五。" * 3
URL = (
    "The report is at https://example.org/reports/2024/harbour-history-and-engineering.html "
    "and was written by the Brenner Institute staff."
)
CODE = "def add(x, y):\n    return x + y\n\nresult = add(1, 2)\nprint(result)"
TABLE = (
    "| City | Population | Area |\n|---|---|---|\n| Paris | 2,100,000 | 105 |\n"
    "| Lyon | 520,000 | 48 |\n| Nice | 340,000 | 72 |"
)
YEAR_TABLE = (
    "| Year | Choirs | Audience |\n|------|--------|----------|\n| 1862 | 5 | 1,400 |\n"
    "| 1880 | 14 | 3,200 |\n| 1900 | 21 | 4,100 |\n| 1913 | 17 | 3,600 |"
)
PIPED_HEX = "\n".join(
    "| " + " | ".join(f"{_RNG.randrange(256):02x}" for _ in range(8)) + " |" for _ in range(12)
)
HEX = " ".join(f"{_RNG.randrange(256):02x}" for _ in range(600))
XXD = "\n".join(
    f"{i * 16:08x}: " + " ".join(f"{_RNG.randrange(65536):04x}" for _ in range(8)) + "  ........"
    for i in range(40)
)
B64_LINES = "\n".join(BLOB[i : i + 76] for i in range(0, 8000, 76))
MINIFIED = '[{"id":1,"name":"a","tags":["x","y"]},' * 40 + "{}]"
NUMBERS = " ".join(str(_RNG.randrange(10**6)) for _ in range(80))
URLSAFE = base64.urlsafe_b64encode(_RNG.randbytes(3000)).decode().replace("=", "")


@pytest.mark.parametrize(
    ("name", "text", "kept"),
    [
        ("english", EN, True),
        ("chinese", ZH, True),
        ("chinese without punctuation", ZH_NO_PUNCT, True),
        ("japanese", JA, True),
        ("korean", KO, True),
        ("chinese with latin", MIXED, True),
        ("prose with a url", URL, True),
        ("code", CODE, True),
        ("markdown table", TABLE, True),
        # a table of numbers under a header row of words is data, not a number grid
        ("markdown table of numbers", YEAR_TABLE, True),
        ("hex between pipes, no header rule", PIPED_HEX, False),
        ("short number", "1871", True),
        ("base64 run", BLOB, False),
        ("urlsafe base64 run", URLSAFE, False),
        ("base64 in 76-char lines", B64_LINES, False),
        ("hex bytes", HEX, False),
        ("xxd dump", XXD, False),
        ("minified json", MINIFIED, False),
        ("number grid", NUMBERS, False),
    ],
)
def test_non_prose_filter(name: str, text: str, kept: bool) -> None:
    result = filter_non_prose(text)
    if kept:
        assert not result.changed, name
        assert result.text == text
    else:
        assert result.changed, name
        assert result.text == ""
        assert result.dropped_chars >= len(text) * 0.9
        assert "non-prose" in result.describe()


def test_a_data_uri_is_cut_out_of_its_paragraph() -> None:
    text = (
        f'{EN}\n\nSee the map <img src="data:image/png;base64,{BLOB[:4000]}"> in the hall.\n\n{ZH}'
    )
    result = filter_non_prose(text)
    assert result.dropped_runs == 1 and result.dropped_paragraphs == 0
    assert result.text.split("\n\n") == [EN, "See the map <img in the hall.", ZH]


def test_word_share_thresholds() -> None:
    assert is_prose_paragraph("a1 b2 c3")  # too short to judge
    assert not is_prose_paragraph("a1 b2 c3 d4 e5 f6 g7 h8")
    assert is_prose_paragraph("a1 b2 c3 d4 e5 f6 g7 h8", min_word_share=0.0)
    assert is_prose_paragraph("| --- | --- | --- | --- | --- | --- | --- | --- |")  # layout


# -- chunk length -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("words, no sentence end", " ".join(["harbour"] * 3000)),
        ("one long token", "x" * 9000),
        ("chinese, no punctuation", ZH_NO_PUNCT * 20),
        ("lines without blank lines", "\n".join(EN for _ in range(60))),
        ("long sentences", " ".join(EN.replace(".", ",") for _ in range(40)) + "."),
    ],
)
def test_no_paragraph_or_sentence_chunk_exceeds_max_chunk_chars(name: str, text: str) -> None:
    settings = ChunkingSettings(max_chunk_chars=500, max_tokens=10_000)
    chunks = chunk_document("d", text, settings=settings)
    small = [c for c in chunks if c.level in ("paragraph", "sentence")]
    assert small, name
    assert max(len(c.text) for c in small) <= 500, name
    for c in chunks:
        assert c.text == text[c.char_start : c.char_end]
    # The paragraphs still cover the text (nothing is lost by the cut).
    covered = "".join(c.text for c in chunks if c.level == "paragraph")
    assert len(covered.replace(" ", "").replace("\n", "")) >= len(
        text.replace(" ", "").replace("\n", "")
    )


# -- ingest-level caps ---------------------------------------------------------------------
def _ingestor(tmp_path: Path, **chunking: object) -> ChunkIngestor:
    store = LanceChunkStore(tmp_path / "kb", HashEmbeddings(32))
    store.open()
    return ChunkIngestor(store, ChunkingSettings(**chunking), progress=False)  # type: ignore[arg-type]


def test_chunks_per_document_cap(tmp_path: Path) -> None:
    text = "".join(f"## Part {i}\n\nPart {i} was written in {1800 + i}.\n\n" for i in range(400))
    ingestor = _ingestor(tmp_path, max_chunks_per_document=100)
    report = ingestor.ingest_documents([SourceDocument(doc_id="h.md", text=text, format="md")])
    assert sum(report.chunks_per_level.values()) <= 100
    assert [n.path for n in report.notes] == ["h.md"]
    assert "chunk cap: 1,201 chunks cut to" in report.notes[0].reason
    stored = ingestor.store.get_document("h.md")
    assert stored is not None and text.startswith(stored.text)
    chunks = ingestor.store.chunks_for_documents(["h.md"])
    assert all(c.text == stored.text[c.char_start : c.char_end] for c in chunks)
    assert "Part 0 was written" in stored.text and "Part 399" not in stored.text


def test_document_chars_cap_for_documents_given_in_memory(tmp_path: Path) -> None:
    text = "\n\n".join(f"{EN} ({i})" for i in range(200))
    ingestor = _ingestor(tmp_path, max_document_chars=5000)
    report = ingestor.ingest_documents([SourceDocument(doc_id="m", text=text)])
    stored = ingestor.store.get_document("m")
    assert stored is not None and len(stored.text) <= 5000 and text.startswith(stored.text)
    assert stored.text.endswith(")")  # cut at a paragraph break
    assert "truncated: only the first" in report.notes[0].reason


@pytest.mark.parametrize(
    ("encoding", "paragraph"),
    [("utf-8", ZH), ("utf-8", EN), ("utf-16", ZH), ("gb18030", ZH), ("cp1252", "Café à Zürich. ")],
)
def test_large_files_are_read_in_blocks_up_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str, paragraph: str
) -> None:
    monkeypatch.setattr(loaders, "_BLOCK", 4099)  # odd: multi-byte characters cross blocks
    text = "\n\n".join(f"{paragraph} {i}" for i in range(400))
    path = tmp_path / "big.txt"
    path.write_bytes(text.encode(encoding))
    capped, truncated = read_text_capped(path, 6000)
    assert truncated and text.startswith(capped) and 4800 <= len(capped) <= 6000
    assert text[len(capped) : len(capped) + 2] == "\n\n"
    whole, truncated = read_text_capped(path, 10**7)
    assert not truncated and whole == text
    doc = load_file(path, max_chars=6000)
    assert doc.text == capped and "truncated" in doc.notes[0]


def test_invalid_bytes_after_the_first_block_are_an_ingest_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loaders, "_BLOCK", 1024)
    path = tmp_path / "late.txt"
    path.write_bytes(EN.encode() * 20 + b"\xff\xfe\xfd" + EN.encode() * 20)
    with pytest.raises(loaders.IngestError, match="undecodable: invalid UTF-8-SIG after"):
        read_text_capped(path, 10**6)


# -- the bad-file folder -------------------------------------------------------------------
GOOD = {
    "harbour.md": f"# Valmora harbour\n\n{EN}\n\nAda Brenner was born in Valmora in 1840.",
    "institute.txt": "The Brenner Institute was founded by Ada Brenner in Valmora in 1880. "
    "Its first director was Tomas Weller, a student of Ada Brenner.",
    "beijing.md": f"# 北京\n\n{ZH}",
}


def _bad_folder(root: Path) -> dict[str, str]:
    """Bad files → the reason the report must give."""
    root.mkdir()
    for name, text in GOOD.items():
        (root / name).write_text(text, encoding="utf-8")
    os.symlink("loop.txt", root / "loop.txt")
    os.symlink("loop_b.md", root / "loop_a.md")
    os.symlink("loop_a.md", root / "loop_b.md")
    os.symlink("nowhere.txt", root / "broken.txt")
    os.symlink(".", root / "self_dir")  # a directory loop: not followed
    (root / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + _RNG.randbytes(4000))
    (root / "empty.md").write_bytes(b"")
    (root / "blank.txt").write_text(" \n\n\t\n", encoding="utf-8")
    (root / "undecodable.txt").write_bytes(bytes([0x81, 0x8D, 0x8F, 0x90, 0x9D]) * 20)
    (root / "slides.pptx").write_bytes(b"PK\x03\x04")
    (root / "blob.html").write_text(f"<html><body><p>{BLOB}</p></body></html>", encoding="utf-8")
    (root / "boom.txt").write_text("this one makes the loader crash", encoding="utf-8")
    return {
        "loop.txt": "symlink loop",
        "loop_a.md": "symlink loop",
        "loop_b.md": "symlink loop",
        "broken.txt": "broken symlink",
        "binary.txt": "binary file",
        "empty.md": "empty file",
        "blank.txt": "empty file",
        "undecodable.txt": "undecodable",
        "slides.pptx": "unsupported file type '.pptx'",
        "blob.html": "empty after cleaning (non-prose text dropped",
        "boom.txt": "RuntimeError: disk on fire",
    }


def test_bad_file_folder_reports_every_bad_file_and_builds_the_graph_of_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    expected = _bad_folder(folder)
    real_load = loaders.load_file

    def load(path: Path, **kwargs: object) -> SourceDocument:
        if path.name == "boom.txt":
            raise RuntimeError("disk on fire")
        return real_load(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("kg_rag.ingest.pipeline.load_file", load)
    from kg_rag.config import EmbeddingSettings, LLMSettings, Settings

    settings = Settings(
        graph_backend="embedded",
        llm=LLMSettings(),
        embedding=EmbeddingSettings(provider="hash", dimensions=64),
    )
    with KnowledgeEngine.open(
        tmp_path / "kb", settings=settings, embedder=HashEmbeddings(64), progress=False
    ) as kg:
        report = kg.ingest([folder])
        reasons = {Path(s.path).name: s.reason for s in report.skipped}
        assert set(reasons) == set(expected), reasons
        for name, reason in expected.items():
            assert reason in reasons[name], (name, reasons[name])
        assert report.documents_added == len(GOOD)
        assert sorted(d.doc_id for d in kg.chunk_store.list_documents()) == sorted(GOOD)
        assert report.graph is not None and report.graph.chunks_extracted > 0
        assert report.communities is not None
        names = {e.name for e in kg.graph_store.all_entities()}
        assert {"Ada Brenner", "Valmora", "Brenner Institute"} <= names
        assert any("北京" in n for n in names)
        mentioned = {m.doc_id for m in kg.graph_store.all_mentions()}
        assert mentioned == set(GOOD)
        answer = kg.ask("Who founded the Brenner Institute?")
        assert "Ada Brenner" in answer.text
        # Given directly (not found in a folder), a symlink loop gets its reason too.
        direct = kg.ingest([folder / "loop.txt"])
        assert [(s.path, s.reason) for s in direct.skipped] == [
            (str(folder / "loop.txt"), "symlink loop")
        ]


def test_html_page_with_a_base64_paragraph_keeps_its_prose(tmp_path: Path) -> None:
    page = (
        f"<html><head><title>Harbour</title></head><body><h1>Harbour</h1><p>{EN}</p>"
        f'<p>{BLOB}</p><p>Map: <img src="data:image/png;base64,{BLOB[:3000]}"> {EN}</p></body>'
        "</html>"
    )
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    ingestor = _ingestor(tmp_path)
    report = ingestor.ingest_paths([path])
    assert report.documents_added == 1
    assert len(report.notes) == 1 and "non-prose text dropped" in report.notes[0].reason
    chunks = ingestor.store.chunks_for_documents(["page.html"])
    assert all(len(c.text) < 1000 for c in chunks)
    assert any("Ada Brenner" in c.text for c in chunks)
    assert not any(BLOB[:50] in c.text for c in chunks)
