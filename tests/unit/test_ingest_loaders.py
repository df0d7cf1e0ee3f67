"""Loaders: formats, decoding, bad files with reasons, folder discovery with globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_rag.errors import IngestError
from kg_rag.ingest.loaders import decode_text, discover_files, load_file

pytestmark = pytest.mark.unit


def make_pdf(text: str) -> bytes:
    """A minimal one-page PDF whose page shows ``text`` (ASCII) in Helvetica."""
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def test_pdf_text_is_extracted(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf("The tower opened in 1889."))
    doc = load_file(path)
    assert doc.format == "pdf"
    assert "opened in 1889" in doc.text
    assert doc.source == str(path.resolve())


def test_corrupt_pdf_is_an_ingest_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage")
    with pytest.raises(IngestError, match="PDF"):
        load_file(path)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"   \n\t ", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (bytes([0x81, 0x8D, 0x8F, 0x90, 0x9D]) * 3, "undecodable"),
    ],
)
def test_bad_text_files_give_a_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(IngestError, match=reason):
        load_file(path)


def test_decoding_fallbacks() -> None:
    assert decode_text("café".encode("cp1252")) == "café"
    assert decode_text("北京是中国的首都".encode("gb18030")) == "北京是中国的首都"
    assert decode_text("\ufeffhello".encode()) == "hello"
    assert decode_text("hi".encode("utf-16")) == "hi"


def test_unsupported_type(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"png")
    with pytest.raises(IngestError, match="unsupported"):
        load_file(path)


def test_titles(tmp_path: Path) -> None:
    md = tmp_path / "notes.md"
    md.write_text("intro\n\n# Real Title\n\ntext", encoding="utf-8")
    assert load_file(md).title == "Real Title"
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>Page T</title></head><body><p>x</p></body></html>")
    loaded = load_file(page)
    assert loaded.title == "Page T" and loaded.format == "html"
    txt = tmp_path / "plain.txt"
    txt.write_text("x", encoding="utf-8")
    assert load_file(txt).title == "plain"


def test_discovery_is_recursive_sorted_and_filtered(tmp_path: Path) -> None:
    for rel in [
        "b.md",
        "a.txt",
        "sub/c.txt",
        "sub/deep/d.html",
        ".hidden/e.txt",
        ".f.txt",
        "drafts/g.txt",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    found = [f.relative for f in discover_files([tmp_path])]
    assert found == ["a.txt", "b.md", "drafts/g.txt", "sub/c.txt", "sub/deep/d.html"]
    only_txt = [
        f.relative for f in discover_files([tmp_path], include=["*.txt"], exclude=["drafts/*"])
    ]
    assert only_txt == ["a.txt", "sub/c.txt"]
    single = list(discover_files([tmp_path / "sub" / "c.txt"]))
    assert [f.relative for f in single] == ["c.txt"]
    with pytest.raises(IngestError, match="does not exist"):
        list(discover_files([tmp_path / "missing"]))


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Harbour Lights\n\nHarbour Lights is a novel.", "Harbour Lights"),
        ("青石乐队\n\n青石乐队是一支独立摇滚乐队。", "青石乐队"),
        ("The River Lenn\nThe Lenn rises in the hills.", "The River Lenn"),
        # A first sentence is not a title.
        ("Harbour Lights is a novel.\n\nIt was published in 1990.", "story"),
        ("青石乐队是一支独立摇滚乐队。\n\n成立于2003年。", "story"),
        # A single line, or a long first line, is body text.
        ("Harbour Lights", "story"),
        (
            "A very long opening line that runs on and on with many words and never ends in a "
            "full stop because it is a paragraph\n\nmore",
            "story",
        ),
    ],
)
def test_plain_text_titles(tmp_path: Path, text: str, title: str) -> None:
    """A .txt file's short first line before the body is its title; else the file name."""
    path = tmp_path / "story.txt"
    path.write_text(text, encoding="utf-8")
    assert load_file(path).title == title


@pytest.mark.parametrize(
    ("html", "title"),
    [
        (
            "<title>River Lenn | Rivers of the North</title><h1>River Lenn</h1><p>x</p>",
            "River Lenn",
        ),
        (
            "<title>About us - Blue Media Group</title><h1>Blue Media Group</h1><p>x</p>",
            "Blue Media Group",
        ),
        ("<title>白河 | 河流志</title><p>白河是一条河。</p>", "白河"),
        ("<title>Ada Berg – Physicists of the North</title><p>x</p>", "Ada Berg"),
        ("<title>Page T</title><p>x</p>", "Page T"),
        ("<title>Jean-Luc Picard</title><p>x</p>", "Jean-Luc Picard"),
    ],
)
def test_html_titles_drop_the_site_name(tmp_path: Path, html: str, title: str) -> None:
    """The page's own heading is its title; a tab title loses the site after a separator."""
    page = tmp_path / "page.html"
    page.write_text(
        f"<html><head>{html.split('</title>')[0]}</title></head><body>"
        f"{html.split('</title>')[1]}</body></html>",
        encoding="utf-8",
    )
    assert load_file(page).title == title
