"""Text cleaning before chunking: newlines, control characters, boilerplate, whitespace.

The cleaned text is what the ``documents`` table stores and what every chunk's
``char_start``/``char_end`` point into, so cleaning happens once, before chunking, and chunks
are always slices of its output.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kg_rag.config import ChunkingSettings
from kg_rag.errors import ConfigError

__all__ = ["clean_text"]

# Control characters except tab and newline, plus zero-width and BOM characters that
# survive decoding and split words invisibly.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200c\u200d\u2060\ufeff]")
_INLINE_SPACE = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_SPACE_AROUND_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")
_BLANK_LINES = re.compile(r"\n{3,}")


@lru_cache(maxsize=64)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise ConfigError(
            f"Invalid boilerplate pattern {pattern!r} in ChunkingSettings ({exc}); fix the "
            "regular expression."
        ) from exc


def clean_text(text: str, settings: ChunkingSettings) -> str:
    """Clean a document's text according to the chunking settings.

    Always: ``\\r\\n``/``\\r`` become ``\\n`` and Unicode is NFC-normalised. Then, as configured:
    control and zero-width characters are removed, each ``boilerplate_patterns`` regex
    (multiline mode) is deleted, runs of spaces/tabs become one space, spaces around newlines
    go, more than one blank line becomes one, and the text is stripped.

    Args:
        text: Raw text as loaded.
        settings: The ``chunking`` section of the settings.

    Returns:
        The cleaned text.

    Raises:
        ConfigError: A boilerplate pattern is not a valid regular expression.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    if settings.strip_control_chars:
        text = _CONTROL.sub("", text)
    for pattern in settings.boilerplate_patterns:
        text = _compile(pattern).sub("", text)
    if settings.collapse_whitespace:
        # Full-width spaces (U+3000) are collapsed too: in Chinese text they are layout only.
        text = _INLINE_SPACE.sub(" ", text)
        text = _SPACE_AROUND_NEWLINE.sub("\n", text)
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()
