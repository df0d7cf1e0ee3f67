"""Multi-granularity chunking: document → sections → paragraphs → sentences, with parent links.

* **Sections** come from Markdown headings (HTML is converted to Markdown-like text first); a
  section runs from its heading line to the next heading and keeps the path of headings above
  it. Text without headings is one section. Headings inside fenced code are not headings.
* **Paragraphs** are the blank-line-separated blocks of a section's body.
* **Sentences**: English splits after ``.``/``!``/``?`` followed by space, except after
  abbreviations (``Dr.``, ``e.g.``, ``U.S.``), initials (``J. K.``), before a lower-case word,
  and never inside numbers (``3.14``); Chinese splits after ``。！？；`` and keeps closing
  quotes with the sentence.
* A paragraph or sentence over ``max_tokens`` (see :func:`kg_rag.text.count_tokens`) is split:
  sentences into token windows with ``overlap_tokens`` overlap, paragraphs into runs of whole
  sentences that repeat up to ``overlap_tokens`` of trailing sentences. No paragraph or
  sentence chunk is longer than ``max_chunk_chars`` characters: longer spans are cut at a
  space (else hard), so text without sentence ends or tokens cannot make a giant chunk.

Every chunk's text is ``text[char_start:char_end]`` of the (cleaned) text given.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from extraction.language import split_sentences, trim_span
from kg_rag.config import ChunkingSettings
from kg_rag.models import Chunk, ChunkLevel, stable_id
from kg_rag.text import count_tokens, token_spans

__all__ = ["chunk_document", "split_sentences"]

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class _Section:
    start: int
    body_start: int
    end: int
    heading_path: tuple[str, ...]


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    ranges = []
    opened: int | None = None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = m.start()
        else:
            ranges.append((opened, m.end()))
            opened = None
    if opened is not None:
        ranges.append((opened, len(text)))
    return ranges


def _sections(text: str, fmt: str) -> list[_Section]:
    if fmt not in ("md", "html"):
        return [_Section(0, 0, len(text), ())]
    fences = _fenced_ranges(text)
    headings = [
        m for m in _HEADING.finditer(text) if not any(a <= m.start() < b for a, b in fences)
    ]
    if not headings:
        return [_Section(0, 0, len(text), ())]
    sections = []
    if text[: headings[0].start()].strip():
        sections.append(_Section(0, 0, headings[0].start(), ()))
    stack: list[tuple[int, str]] = []
    for i, m in enumerate(headings):
        level = len(m.group(1))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, m.group(2).strip()))
        end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
        if text[m.end() : end].strip():  # a heading with no body lives on in heading paths
            sections.append(_Section(m.start(), m.end(), end, tuple(h for _, h in stack)))
    return sections


def _windows(
    text: str, start: int, end: int, max_tokens: int, overlap: int
) -> list[tuple[int, int]]:
    spans = token_spans(text[start:end])
    step = max(1, max_tokens - overlap)
    out = []
    for w in range(0, len(spans), step):
        last = min(w + max_tokens, len(spans)) - 1
        out.append((start + spans[w][0], start + spans[last][1]))
        if w + max_tokens >= len(spans):
            break
    return out


def _char_split(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into spans of at most ``max_chars``: at the last space of each
    window when there is one in its second half, else hard."""
    out: list[tuple[int, int]] = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = max(text.rfind(" ", start + max_chars // 2, limit), text.rfind("\n", start, limit))
        if cut <= start + max_chars // 2:
            cut = limit
        s, e = trim_span(text, start, cut)
        if e > s:
            out.append((s, e))
        start = cut
    s, e = trim_span(text, start, end)
    if e > s:
        out.append((s, e))
    return out


def _paragraph_pieces(
    text: str, start: int, end: int, settings: ChunkingSettings
) -> tuple[list[tuple[int, int]], list[tuple[int, int, int]]]:
    """Paragraph pieces and sentence units ``(start, end, piece index)`` of one paragraph."""
    max_tokens = max(1, settings.max_tokens)
    max_chars = max(16, settings.max_chunk_chars)
    overlap = min(max(0, settings.overlap_tokens), max_tokens - 1)
    units: list[tuple[int, int]] = []
    for s, e in split_sentences(text, start, end):
        if e - s < settings.sentence_min_chars:
            continue
        if count_tokens(text[s:e]) > max_tokens:
            windows = _windows(text, s, e, max_tokens, overlap)
        else:
            windows = [(s, e)]
        for w_start, w_end in windows:
            units.extend(_char_split(text, w_start, w_end, max_chars))
    if not units:
        return _char_split(text, start, end, max_chars), []
    if end - start <= max_chars and count_tokens(text[start:end]) <= max_tokens:
        return [(start, end)], [(s, e, 0) for s, e in units]
    sizes = [count_tokens(text[s:e]) for s, e in units]
    pieces: list[tuple[int, int]] = []
    owner = [-1] * len(units)
    i = 0
    while i < len(units):
        j, total = i, 0
        while j < len(units) and (
            j == i or (total + sizes[j] <= max_tokens and units[j][1] - units[i][0] <= max_chars)
        ):
            total += sizes[j]
            j += 1
        for u in range(i, j):
            if owner[u] < 0:
                owner[u] = len(pieces)
        pieces.append((units[i][0], units[j - 1][1]))
        if j >= len(units):
            break
        k, carried = j, 0
        while k - 1 > i and carried + sizes[k - 1] <= overlap:
            carried += sizes[k - 1]
            k -= 1
        i = k
    return pieces, [(s, e, owner[u]) for u, (s, e) in enumerate(units)]


class _Builder:
    def __init__(self, doc_id: str, text: str, metadata: dict[str, str]) -> None:
        self.doc_id = doc_id
        self.text = text
        self.metadata = metadata
        self.chunks: list[Chunk] = []
        self._seen: Counter[tuple[str, str]] = Counter()

    def add(
        self,
        level: ChunkLevel,
        start: int,
        end: int,
        parent: Chunk | None,
        ordinal: int,
        heading_path: tuple[str, ...],
    ) -> Chunk:
        body = self.text[start:end]
        # Ids hash the content (and how often it already occurred at this level), not the
        # offsets: editing one paragraph leaves the other chunks' ids unchanged.
        key = (level, body)
        occurrence = self._seen[key]
        self._seen[key] += 1
        chunk = Chunk(
            chunk_id=stable_id(self.doc_id, level, body, str(occurrence), prefix="ch_"),
            doc_id=self.doc_id,
            level=level,
            parent_id=parent.chunk_id if parent else None,
            ordinal=ordinal,
            heading_path=list(heading_path),
            char_start=start,
            char_end=end,
            text=body,
            metadata=dict(self.metadata),
        )
        self.chunks.append(chunk)
        return chunk


def chunk_document(
    doc_id: str,
    text: str,
    *,
    fmt: str = "txt",
    settings: ChunkingSettings | None = None,
    metadata: dict[str, str] | None = None,
) -> list[Chunk]:
    """Cut a cleaned document into linked chunks at all four levels.

    Args:
        doc_id: The document's id (part of every chunk id).
        text: The cleaned text; chunk offsets point into it.
        fmt: ``"md"`` or ``"html"`` (already converted to Markdown-like text) make sections
            from headings; other formats give one section.
        settings: Token budget, overlap and minimum sentence length.
        metadata: Copied onto every chunk.

    Returns:
        Chunks in document order, parents before children: the document chunk, then each
        section followed by its paragraphs, each paragraph followed by its sentences. Empty
        text gives no chunks.
    """
    settings = settings or ChunkingSettings()
    start, end = trim_span(text, 0, len(text))
    if start == end:
        return []
    build = _Builder(doc_id, text, metadata or {})
    document = build.add("document", start, end, None, 0, ())
    for s_ord, section in enumerate(_sections(text, fmt)):
        s_start, s_end = trim_span(text, section.start, section.end)
        sec = build.add("section", s_start, s_end, document, s_ord, section.heading_path)
        p_ord = 0
        body_start = section.body_start
        boundaries = [m.start() for m in _PARAGRAPH_BREAK.finditer(text, body_start, section.end)]
        block_start = body_start
        for cut in [*boundaries, section.end]:
            b_start, b_end = trim_span(text, block_start, cut)
            block_start = cut
            if b_end <= b_start:
                continue
            pieces, units = _paragraph_pieces(text, b_start, b_end, settings)
            paragraphs = []
            for p_start, p_end in pieces:
                paragraphs.append(
                    build.add("paragraph", p_start, p_end, sec, p_ord, section.heading_path)
                )
                p_ord += 1
            ordinals = Counter[int]()
            for u_start, u_end, owner in units:
                parent = paragraphs[owner]
                build.add("sentence", u_start, u_end, parent, ordinals[owner], section.heading_path)
                ordinals[owner] += 1
    return _ordered(build.chunks)


def _ordered(chunks: list[Chunk]) -> list[Chunk]:
    """Pre-order: each paragraph directly followed by its sentences."""
    children: dict[str | None, list[Chunk]] = {}
    for c in chunks:
        children.setdefault(c.parent_id, []).append(c)
    out: list[Chunk] = []

    def visit(chunk: Chunk) -> None:
        out.append(chunk)
        for child in children.get(chunk.chunk_id, []):
            visit(child)

    for root in children.get(None, []):
        visit(root)
    return out
