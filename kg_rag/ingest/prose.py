"""Keep prose, drop what is not: base64 blobs, data URIs, hex dumps, minified code.

Extraction turns every "word" of a chunk into candidate entities, so a 2 MB base64 paragraph
becomes tens of thousands of junk entities. This filter runs on the cleaned text, before
chunking, and measures shape, not vocabulary:

* **Long runs**: a run of non-space characters longer than ``max_run_chars`` whose characters
  are nearly all ASCII letters, digits and symbols (the alphabets of base64, hex, URIs and
  code) is cut out. Scripts written without spaces (Chinese, Japanese, Thai, ...) make long
  runs too, but of non-ASCII letters, so they stay.
* **Word-like share**: a paragraph of at least ``min_tokens`` space-separated tokens where
  fewer than ``min_word_share`` of the tokens are words (letters of any script, inner
  hyphens, apostrophes and dots allowed) is dropped: hex dumps (``4f 6c 0a``), base64 broken
  into lines, number grids. A Markdown pipe table (a header row, then a rule row) is kept:
  its header names the numbers below it.

What was removed is counted, so the ingest report can say so for the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["ProseFilterResult", "filter_non_prose", "is_prose_paragraph"]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_EDGE_PUNCT = "\"'“”‘’«»()[]{}<>.,;:!?¡¿…-–—*_#>|/`~"
_INNER = re.compile(r"['’.\-·]")
# A Markdown pipe table: a header row, a rule row of dashes (colons for alignment), body rows.
_PIPE_TABLE = re.compile(
    r"[ \t]*\|[^\n]*\|[ \t]*\n[ \t]*\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*"
    r"(?:\n[ \t]*\|[^\n]*\|[ \t]*)*"
)


@dataclass
class ProseFilterResult:
    """The filtered text and what was taken out."""

    text: str
    dropped_paragraphs: int = 0
    dropped_runs: int = 0
    dropped_chars: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when anything was removed."""
        return bool(self.dropped_paragraphs or self.dropped_runs)

    def describe(self) -> str:
        """One line for the ingest report."""
        parts = []
        if self.dropped_paragraphs:
            parts.append(f"{self.dropped_paragraphs} paragraph(s)")
        if self.dropped_runs:
            parts.append(f"{self.dropped_runs} run(s) without spaces")
        sample = f" (e.g. {self.examples[0]!r})" if self.examples else ""
        return (
            f"non-prose text dropped: {' and '.join(parts)}, {self.dropped_chars:,} characters"
            f"{sample}; set chunking.drop_non_prose=false to keep it"
        )


@lru_cache(maxsize=8)
def _long_run(max_run_chars: int) -> re.Pattern[str]:
    return re.compile(rf"\S{{{max_run_chars + 1},}}")


def _ascii_share(run: str) -> float:
    return sum(1 for c in run if c < "\x80") / len(run)


def _is_word(token: str) -> bool:
    core = _INNER.sub("", token.strip(_EDGE_PUNCT))
    if core.isalpha():
        return True
    # Scripts written without spaces carry their punctuation inside the token (北京，上海。).
    return sum(1 for c in core if c >= "\x80" and c.isalpha()) >= 0.5 * len(core)


def is_prose_paragraph(paragraph: str, *, min_tokens: int = 8, min_word_share: float = 0.3) -> bool:
    """True unless the paragraph has ``min_tokens`` tokens or more and too few are words.

    Args:
        paragraph: One blank-line-separated block.
        min_tokens: Shorter paragraphs are always kept (a date, a phone number, a heading).
        min_word_share: Lowest share of word tokens a kept paragraph has.
    """
    raw = paragraph.split()
    if len(raw) < min_tokens:
        return True
    if _PIPE_TABLE.fullmatch(paragraph.strip()):
        return True  # a table's header names its numbers: data, not a number grid
    # Fast path: in prose most tokens are bare words already.
    if sum(1 for t in raw if t.isalpha()) >= min_word_share * len(raw):
        return True
    # Tokens of punctuation only (table rules, bullets, dashes) are layout: not counted.
    tokens = [t for t in raw if t.strip(_EDGE_PUNCT)]
    if len(tokens) < min_tokens:
        return True
    words = sum(1 for t in tokens if _is_word(t))
    return words >= min_word_share * len(tokens)


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def filter_non_prose(
    text: str,
    *,
    max_run_chars: int = 120,
    min_tokens: int = 8,
    min_word_share: float = 0.3,
) -> ProseFilterResult:
    """Remove non-prose runs and paragraphs from cleaned text (paragraph breaks kept).

    Args:
        text: Cleaned text (paragraphs separated by blank lines).
        max_run_chars: Longest run of mostly-ASCII non-space characters kept.
        min_tokens: Paragraphs with fewer tokens skip the word-share test.
        min_word_share: Lowest share of word tokens in a kept paragraph.

    Returns:
        The filtered text and counts of what was dropped.
    """
    result = ProseFilterResult(text=text)
    kept_paragraphs: list[str] = []
    changed = False
    for paragraph in _PARAGRAPH_BREAK.split(text):
        kept = _drop_runs(paragraph, max_run_chars, result)
        changed = changed or kept is not paragraph
        if kept.strip() and not is_prose_paragraph(
            kept, min_tokens=min_tokens, min_word_share=min_word_share
        ):
            result.dropped_paragraphs += 1
            result.dropped_chars += len(kept)
            if len(result.examples) < 3:
                result.examples.append(_shorten(kept))
            kept, changed = "", True
        if kept.strip():
            kept_paragraphs.append(kept.strip())
    if changed:
        result.text = "\n\n".join(kept_paragraphs)
    return result


def _drop_runs(paragraph: str, max_run_chars: int, result: ProseFilterResult) -> str:
    if len(paragraph) <= max_run_chars:
        return paragraph
    pieces: list[str] = []
    last = 0
    for m in _long_run(max_run_chars).finditer(paragraph):
        run = m.group()
        if _ascii_share(run) < 0.9:
            continue
        pieces.append(paragraph[last : m.start()])
        last = m.end()
        result.dropped_runs += 1
        result.dropped_chars += len(run)
        if len(result.examples) < 3:
            result.examples.append(_shorten(run))
    if not pieces:
        return paragraph
    pieces.append(paragraph[last:])
    # Collapse the spaces the cut leaves behind, but keep the paragraph's line breaks.
    joined = "".join(pieces)
    return re.sub(r"[ \t]{2,}", " ", joined).strip()
