"""Loading files into :class:`SourceDocument` s: ``.txt``, ``.md``, ``.html``, ``.pdf``, folders.

A file that cannot be used (binary, empty, undecodable, corrupt PDF, unsupported type) raises
:class:`~kg_rag.errors.IngestError` with a short reason; the pipeline records it in the
report and goes on with the other files.

HTML becomes Markdown-like text: headings turn into ``#`` lines (so the chunker makes sections
from them, exactly as for Markdown) and block elements into paragraphs.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from kg_rag.errors import IngestError
from kg_rag.text import cjk_ratio

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DiscoveredFile",
    "SkippedFile",
    "SourceDocument",
    "decode_text",
    "discover_files",
    "html_to_text",
    "load_file",
]

logger = logging.getLogger(__name__)

DocFormat = Literal["txt", "md", "html", "pdf"]

SUPPORTED_SUFFIXES: dict[str, DocFormat] = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}


class SourceDocument(BaseModel):
    """A document to ingest, from a file or from the caller.

    Attributes:
        doc_id: Stable id; ``None`` derives it from ``source`` (or from the text when there is
            no source).
        text: Raw text (HTML markup for ``format="html"``; it is converted on ingest).
        title: Shown with hits and used as embedding context.
        source: Where it came from (an absolute path for files).
        format: How to read ``text``: Markdown and HTML headings become sections.
        metadata: String key/values; searchable with ``where=`` filters.
    """

    doc_id: str | None = None
    text: str
    title: str = ""
    source: str = ""
    format: DocFormat = "txt"
    metadata: dict[str, str] = Field(default_factory=dict)


class SkippedFile(BaseModel):
    """A file that was not ingested, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class DiscoveredFile:
    """A file found under an ingest root; ``relative`` (POSIX) becomes its doc_id."""

    path: Path
    root: Path
    relative: str


def _matches(relative: str, patterns: Sequence[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in patterns)


def discover_files(
    paths: Sequence[Path], *, include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> Iterator[DiscoveredFile]:
    """Files under ``paths`` (recursively, sorted; hidden files and folders are left out).

    Args:
        paths: Files or folders. A file's doc_id is its name; a folder's files are named by
            their path relative to the folder.
        include: Glob patterns (matched against the relative path and the file name); when
            given, only matching files are yielded.
        exclude: Glob patterns of files to leave out.

    Yields:
        Discovered files, in a deterministic order.

    Raises:
        IngestError: A path does not exist.
    """
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise IngestError(f"{path} does not exist; check the path to ingest.")
        path = path.resolve()
        if path.is_file():
            candidates = [(path.parent, path)]
        else:
            found: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                found.extend(Path(dirpath) / f for f in filenames if not f.startswith("."))
            candidates = [(path, f) for f in sorted(found)]
        for root, file in candidates:
            relative = file.relative_to(root).as_posix()
            if include and not _matches(relative, include):
                continue
            if exclude and _matches(relative, exclude):
                continue
            yield DiscoveredFile(path=file, root=root, relative=relative)


def decode_text(data: bytes) -> str:
    """Decode file bytes: UTF-8 (with or without BOM), UTF-16 with BOM, GB18030, Windows-1252.

    Raises:
        IngestError: The bytes look binary or fit none of the encodings.
    """
    if not data.strip():
        raise IngestError("empty file")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise IngestError("undecodable: broken UTF-16") from exc
    if b"\x00" in data[:8192]:
        raise IngestError("binary file (NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    # GB18030 decodes many byte strings; only trust it when the result is mostly Chinese.
    try:
        text = data.decode("gb18030")
        if cjk_ratio(text) > 0.3:
            return text
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise IngestError("undecodable: not UTF-8, GB18030 or Windows-1252 text") from exc
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\n\r\t\f")
    if controls > max(4, len(text) // 100):
        raise IngestError("binary file (control bytes)")
    return text


# "Page | Site", "Page - Site", "Page — Site", "Page_Site": what browsers show as a tab title.
_SITE_SEPARATOR = re.compile(r"\s+[|\-–—·]\s+|\s*[|｜_]\s*")


def html_to_text(html: str) -> tuple[str, str]:
    """Convert HTML to Markdown-like text: headings as ``#`` lines, blocks as paragraphs.

    Returns:
        ``(text, title)``; the title is the page's first ``<h1>``, else its ``<title>`` without
        a site name after a separator ("River Tallow | Rivers of …" → "River Tallow").
    """
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString

    soup = BeautifulSoup(html, "html.parser")
    head_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    title = ""
    for tag in soup(["script", "style", "noscript", "template", "head", "svg", "iframe"]):
        tag.decompose()
    for level in range(1, 7):
        for heading in soup.find_all(f"h{level}"):
            words = " ".join(heading.get_text(" ").split())
            if not title and level == 1:
                title = words
            marker = f"\n\n{'#' * level} {words}\n\n" if words else "\n\n"
            heading.replace_with(NavigableString(marker))
    if not title:
        title = _SITE_SEPARATOR.split(head_title, maxsplit=1)[0].strip() or head_title
    for br in soup.find_all("br"):
        br.replace_with(NavigableString("\n"))
    blocks = [
        "p", "div", "li", "ul", "ol", "table", "tr", "blockquote", "pre", "section",
        "article", "header", "footer", "nav", "aside", "main", "dl", "dt", "dd", "figure",
        "figcaption", "hr", "form",
    ]  # fmt: skip
    for block in soup.find_all(blocks):
        block.insert_before(NavigableString("\n\n"))
        block.insert_after(NavigableString("\n\n"))
    lines = []
    for line in soup.get_text().split("\n"):
        lines.append(" ".join(line.split()))
    # Source newlines inside a block are soft: join consecutive non-empty lines of a block.
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line:
            if line.startswith("#"):
                if current:
                    paragraphs.append(" ".join(current))
                    current = []
                paragraphs.append(line)
            else:
                current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs), title


def _load_pdf(path: Path) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError("encrypted PDF (needs a password)")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = ""
        if reader.metadata is not None and reader.metadata.title:
            meta_title = str(reader.metadata.title)
    except IngestError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise IngestError(f"corrupt PDF: {exc}") from exc
    except Exception as exc:  # pypdf raises many internal types on damaged files
        raise IngestError(f"corrupt PDF: {type(exc).__name__}: {exc}") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise IngestError("PDF has no extractable text (scanned images?)")
    return text, meta_title


def _markdown_title(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _text_title(text: str) -> str:
    """A plain-text file's title: its first line when that line is short, ends without
    sentence punctuation and is followed by more text (the common "title, blank line, body"
    layout); otherwise ""."""
    lines = [ln.strip() for ln in text.strip().splitlines()]
    if len(lines) < 2 or not lines[0]:
        return ""
    first = lines[0]
    cjk = sum(1 for ch in first if "\u4e00" <= ch <= "\u9fff")
    short = len(first) <= 40 if cjk else (len(first) <= 100 and len(first.split()) <= 12)
    if not short or first[-1] in ".。!！?？;；:：,，、" or not any(lines[1:]):
        return ""
    return first.lstrip("#").strip()


def load_file(path: Path, *, doc_id: str | None = None) -> SourceDocument:
    """Load one file.

    Args:
        path: A ``.txt``, ``.md``, ``.html`` or ``.pdf`` file.
        doc_id: Id to give the document (default: chosen by the pipeline).

    Returns:
        The document, with ``source`` = the absolute path; HTML is kept as markup here and
        converted by the pipeline.

    Raises:
        IngestError: Unsupported type, unreadable, binary, empty, undecodable, corrupt PDF.
    """
    fmt = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise IngestError(f"unsupported file type {path.suffix or '(no extension)'!r}")
    source = str(path.resolve())
    if fmt == "pdf":
        text, title = _load_pdf(path)
        return SourceDocument(
            doc_id=doc_id, text=text, title=title or path.stem, source=source, format="pdf"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"unreadable: {exc.strerror or exc}") from exc
    text = decode_text(data)
    if not text.strip():
        raise IngestError("empty file")
    title = path.stem
    if fmt == "md":
        title = _markdown_title(text) or title
    elif fmt == "html":
        title = html_to_text(text)[1] or title
    elif fmt == "txt":
        title = _text_title(text) or title
    return SourceDocument(doc_id=doc_id, text=text, title=title, source=source, format=fmt)
