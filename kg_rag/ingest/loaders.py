"""Loading files into :class:`SourceDocument` s: ``.txt``, ``.md``, ``.html``, ``.pdf``, folders.

A file that cannot be used (binary, empty, undecodable, corrupt PDF, unsupported type) raises
:class:`~kg_rag.errors.IngestError` with a short reason; the pipeline records it in the
report and goes on with the other files.

HTML becomes Markdown-like text: headings turn into ``#`` lines (so the chunker makes sections
from them, exactly as for Markdown), block elements into paragraphs and tables into Markdown
pipe tables (one paragraph each, so a cell stays under its column).
"""

from __future__ import annotations

import codecs
import errno
import fnmatch
import logging
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from extraction.language import contains_han
from kg_rag.errors import IngestError
from kg_rag.text import cjk_ratio, contains_cjk

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DiscoveredFile",
    "SkippedFile",
    "SourceDocument",
    "decode_text",
    "discover_files",
    "html_to_text",
    "load_file",
    "read_text_capped",
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
        notes: Set by the loaders when a cap cut the file short (not part of the content).
    """

    doc_id: str | None = None
    text: str
    title: str = ""
    source: str = ""
    format: DocFormat = "txt"
    metadata: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    """What loading left out (a size cap hit); the ingest report lists it for the file."""


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


def _common_han_share(text: str) -> float:
    """Share of the CJK characters of ``text`` (its first 20,000) that GB2312 can encode."""
    chars = [c for c in text[:20_000] if contains_cjk(c)]
    if not chars:
        return 0.0
    common = 0
    for c in chars:
        try:
            c.encode("gb2312")
            common += 1
        except UnicodeEncodeError:
            pass
    return common / len(chars)


def _encoding_of(head: bytes, *, whole: bool) -> str:
    """The codec for a file starting with ``head`` (the whole file when ``whole``)."""
    if not head.strip():
        raise IngestError("empty file")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if b"\x00" in head[:8192]:
        raise IngestError("binary file (NUL bytes)")
    try:
        codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=whole)
        return "utf-8-sig"
    except UnicodeDecodeError:
        pass
    # GB18030 decodes many byte strings; only trust it when the result is mostly Chinese
    # made of common characters (random bytes decode to rare ones outside GB2312).
    try:
        text = codecs.getincrementaldecoder("gb18030")().decode(head, final=whole)
        if cjk_ratio(text) > 0.3 and _common_han_share(text) >= 0.8:
            return "gb18030"
    except UnicodeDecodeError:
        pass
    try:
        text = head.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise IngestError("undecodable: not UTF-8, GB18030 or Windows-1252 text") from exc
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\n\r\t\f")
    if controls > max(4, len(text) // 100):
        raise IngestError("binary file (control bytes)")
    return "cp1252"


def decode_text(data: bytes) -> str:
    """Decode file bytes: UTF-8 (with or without BOM), UTF-16 with BOM, GB18030, Windows-1252.

    Raises:
        IngestError: The bytes look binary or fit none of the encodings.
    """
    encoding = _encoding_of(data, whole=True)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise IngestError(f"undecodable: broken {encoding.upper()}") from exc


_BLOCK = 1 << 20


def read_text_capped(path: Path, max_chars: int) -> tuple[str, bool]:
    """Decode a text file, reading it in blocks and stopping after ``max_chars`` characters.

    The encoding is chosen from the first block (as :func:`decode_text` does for a whole
    file); a file cut short ends at the last paragraph break (else line break, else space)
    before the cap, so no paragraph is cut in the middle when it can be helped.

    Returns:
        ``(text, truncated)``.

    Raises:
        IngestError: Unreadable, binary, empty or undecodable.
        OSError: The file cannot be opened or read.
    """
    with path.open("rb") as handle:
        head = handle.read(_BLOCK)
        if len(head) < _BLOCK and len(head) <= max_chars:
            return decode_text(head), False
        encoding = _encoding_of(head, whole=False)
        decoder = codecs.getincrementaldecoder(encoding)()
        parts: list[str] = []
        size = 0
        block = head
        truncated = False
        try:
            while block:
                piece = decoder.decode(block, final=False)
                parts.append(piece)
                size += len(piece)
                if size > max_chars:
                    truncated = True
                    break
                block = handle.read(_BLOCK)
            if not truncated:
                parts.append(decoder.decode(b"", final=True))
        except UnicodeDecodeError as exc:
            raise IngestError(
                f"undecodable: invalid {encoding.upper()} after {size:,} characters"
            ) from exc
    text = "".join(parts)
    if not truncated:
        return text, False
    text = text[:max_chars]
    floor = max_chars * 4 // 5
    for sep in ("\n\n", "\n", " "):
        cut = text.rfind(sep, floor)
        if cut > 0:
            return text[:cut], True
    return text, True


# "Page | Site", "Page - Site", "Page — Site", "Page_Site": what browsers show as a tab title.
_SITE_SEPARATOR = re.compile(r"\s+[|\-–—·]\s+|\s*[|｜_]\s*")


# Elements that are sections of their own: a <header> or <footer> inside one belongs to it.
_SECTIONING = ("article", "aside", "main", "nav", "section")
# ARIA landmarks of the page around the content (site banner, navigation, site footer).
_CHROME_ROLES = {"banner", "navigation", "contentinfo", "search"}


def _drop_page_chrome(soup: Any) -> None:
    """Remove what a page repeats around its content, as HTML defines it: navigation
    (``<nav>``, ``role="navigation"``), and the page's own banner and footer — a ``<header>``
    or ``<footer>`` outside every sectioning element, or an element with the ``banner`` /
    ``contentinfo`` role. "Home | About | Contact" and a copyright line are no facts of the
    page. A page that is nothing but chrome keeps it (it has nothing else to say)."""
    chrome = [
        tag
        for tag in soup.find_all(True)
        if tag.name == "nav"
        or str(tag.get("role", "")).strip().lower() in _CHROME_ROLES
        or (tag.name in ("header", "footer") and tag.find_parent(_SECTIONING) is None)
    ]
    if not chrome:
        return
    body = soup.body or soup
    total = len(" ".join(body.get_text(" ").split()))
    ids = {id(tag) for tag in chrome}
    outermost = [tag for tag in chrome if not any(id(p) in ids for p in tag.parents)]
    if sum(len(" ".join(tag.get_text(" ").split())) for tag in outermost) >= total:
        return
    for tag in outermost:
        tag.decompose()


def html_to_text(html: str) -> tuple[str, str]:
    """Convert HTML to Markdown-like text: headings as ``#`` lines, blocks as paragraphs.

    Returns:
        ``(text, title)``; the title is the page's first ``<h1>``, else its ``<title>`` without
        a site name after a separator ("River Osk | Rivers of …" → "River Osk").
    """
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString

    soup = BeautifulSoup(html, "html.parser")
    head_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    title = ""
    for tag in soup(["script", "style", "noscript", "template", "head", "svg", "iframe"]):
        tag.decompose()
    _drop_page_chrome(soup)
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
    # A table keeps its rows and columns as a Markdown pipe table (the first row its header),
    # so a cell is read under its column, not as words run together.
    for table in [t for t in soup.find_all("table") if t.find_parent("table") is None]:
        rows = [
            [" ".join(c.get_text(" ").split()).replace("|", "/") for c in cells]
            for tr in table.find_all("tr")
            if (cells := tr.find_all(["th", "td"]))
        ]
        if len(rows) < 2:  # one row: its cells as words, apart
            words = " ".join(cell for row in rows for cell in row)
            table.replace_with(NavigableString(f"\n\n{words}\n\n"))
            continue
        width = max(len(r) for r in rows)
        lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
        lines.insert(1, "|" + "---|" * width)
        table.replace_with(NavigableString("\n\n" + "\n".join(lines) + "\n\n"))
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
    # Table rows stay lines of one paragraph.
    paragraphs: list[str] = []
    current: list[str] = []
    table_lines: list[str] = []
    for line in lines:
        if line.startswith("|") and line.endswith("|"):
            if current:
                paragraphs.append(" ".join(current))
                current = []
            table_lines.append(line)
            continue
        if table_lines:
            paragraphs.append("\n".join(table_lines))
            table_lines = []
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
    if table_lines:
        paragraphs.append("\n".join(table_lines))
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs), title


def _load_pdf(path: Path, max_chars: int | None = None) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError("encrypted PDF (needs a password)")
        pages: list[str] = []
        size = 0
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            size += len(pages[-1])
            if max_chars is not None and size >= max_chars:
                break
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
    if max_chars is not None:
        text = text[:max_chars]
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
    cjk = sum(1 for ch in first if contains_han(ch))
    short = len(first) <= 40 if cjk else (len(first) <= 100 and len(first.split()) <= 12)
    if not short or first[-1] in ".。!！?？;；:：,，、" or not any(lines[1:]):
        return ""
    return first.lstrip("#").strip()


def _resolved(path: Path) -> Path:
    """``path.resolve(strict=True)`` with the failure said as a reason."""
    try:
        return path.resolve(strict=True)
    except RuntimeError as exc:  # Python < 3.13: "Symlink loop from ..."
        raise IngestError("symlink loop") from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise IngestError("symlink loop") from exc
        if path.is_symlink():
            raise IngestError("broken symlink (its target does not exist)") from exc
        raise IngestError(f"unreadable: {exc.strerror or exc}") from exc


def _truncation_note(path: Path, kept: int, max_chars: int) -> str:
    try:
        size = f" of a {path.stat().st_size:,}-byte file"
    except OSError:
        size = ""
    return (
        f"truncated: only the first {kept:,} characters{size} were ingested "
        f"(chunking.max_document_chars={max_chars:,}; raise it to ingest more)"
    )


def load_file(
    path: Path, *, doc_id: str | None = None, max_chars: int | None = None
) -> SourceDocument:
    """Load one file.

    Args:
        path: A ``.txt``, ``.md``, ``.html`` or ``.pdf`` file.
        doc_id: Id to give the document (default: chosen by the pipeline).
        max_chars: Read at most this many characters of text (``.txt``/``.md`` are read in
            blocks, never whole; HTML markup up to eight times this, PDF page by page); a
            file cut short carries a note saying so. ``None``: no cap.

    Returns:
        The document, with ``source`` = the absolute path; HTML is kept as markup here and
        converted by the pipeline.

    Raises:
        IngestError: Unsupported type, symlink loop, broken symlink, unreadable, binary,
            empty, undecodable, corrupt PDF.
    """
    fmt = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise IngestError(f"unsupported file type {path.suffix or '(no extension)'!r}")
    resolved = _resolved(path)
    if not resolved.is_file():
        raise IngestError("not a regular file")
    source = str(resolved)
    notes: list[str] = []
    if fmt == "pdf":
        text, title = _load_pdf(resolved, max_chars)
        if max_chars is not None and len(text) >= max_chars:
            notes.append(_truncation_note(path, len(text), max_chars))
        return SourceDocument(
            doc_id=doc_id,
            text=text,
            title=title or path.stem,
            source=source,
            format="pdf",
            notes=notes,
        )
    # Markup is mostly tags: allow more of it than of text.
    cap = None if max_chars is None else (max_chars * 8 if fmt == "html" else max_chars)
    try:
        if cap is None:
            text, truncated = decode_text(resolved.read_bytes()), False
        else:
            text, truncated = read_text_capped(resolved, cap)
    except OSError as exc:
        raise IngestError(f"unreadable: {exc.strerror or exc}") from exc
    if not text.strip():
        raise IngestError("empty file")
    if truncated and cap is not None:
        notes.append(_truncation_note(path, len(text), cap))
    title = path.stem
    if fmt == "md":
        title = _markdown_title(text) or title
    elif fmt == "html":
        title = html_to_text(text)[1] or title
    elif fmt == "txt":
        title = _text_title(text) or title
    return SourceDocument(
        doc_id=doc_id, text=text, title=title, source=source, format=fmt, notes=notes
    )
