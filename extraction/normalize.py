"""Name and type normalization: the keys entity resolution and entity linking compare.

``normalize_name`` folds what varies between mentions of one name without changing which name
it is: Unicode width and compatibility forms (NFKC: full-width ``ＩＢＭ`` → ``ibm``), case,
Latin diacritics, dots and apostrophes (``I.B.M.`` → ``ibm``), other punctuation, spacing, and a
leading English article. Chinese text keeps its characters; spaces between Han characters are
dropped, since Chinese does not separate words.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

__all__ = [
    "TYPE_SYNONYMS",
    "WILDCARD_TYPES",
    "compact_name",
    "entity_id",
    "entity_key",
    "is_cjk",
    "normalize_name",
    "normalize_type",
]

TYPE_SYNONYMS: dict[str, str] = {
    "PER": "PERSON",
    "PEOPLE": "PERSON",
    "HUMAN": "PERSON",
    "ORG": "ORGANIZATION",
    "ORGANISATION": "ORGANIZATION",
    "COMPANY": "ORGANIZATION",
    "INSTITUTION": "ORGANIZATION",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "PLACE": "LOCATION",
    "COUNTRY": "LOCATION",
    "CITY": "LOCATION",
    "GEO": "LOCATION",
    "FACILITY": "LOCATION",
    "WORK_OF_ART": "WORK",
    "CREATIVE_WORK": "WORK",
    "TIME": "DATE",
    "YEAR": "DATE",
    "MISC": "CONCEPT",
    "OTHER": "CONCEPT",
    "UNKNOWN": "CONCEPT",
    "THING": "CONCEPT",
    "NORP": "CONCEPT",
}
"""Type spellings models use, mapped to the canonical type names."""

WILDCARD_TYPES: frozenset[str] = frozenset({"CONCEPT"})
"""Types that say "not known": such an entity may join a typed one of exactly the same name."""

_APOSTROPHES_DOTS = re.compile(r"['’‘`´]|(?<!\d)\.|\.(?!\d)")
_SPACES = re.compile(r"\s+")
_ASCII_PUNCT = re.compile(r"[^0-9a-z.]")
_HAN_GAP = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff])\s+(?=[\u3400-\u9fff\uf900-\ufaff])")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def _fold_latin_marks(text: str) -> str:
    # Only marks on Latin letters go: "Zürich" ~ "Zurich", while kana voicing marks survive.
    out: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch) and out and out[-1] < "\u0250":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=200_000)
def normalize_name(name: str) -> str:
    """Return the comparison form of an entity name.

    Args:
        name: A surface form, e.g. ``"The I.B.M. Corp."`` or ``"ＩＢＭ"``.

    Returns:
        Lower-case, single-spaced text without punctuation or leading article, e.g.
        ``"ibm corp"``; ``""`` when nothing is left.

    Example:
        >>> normalize_name("  The  Beatles ")
        'beatles'
        >>> normalize_name("I.B.M.") == normalize_name("ＩＢＭ")
        True
    """
    if name.isascii():
        # Fast path (most names): nothing to fold but case and punctuation.
        text = _APOSTROPHES_DOTS.sub("", name.lower().replace("&", " and "))
        text = _ASCII_PUNCT.sub(" ", text)
    else:
        text = unicodedata.normalize("NFKC", name).casefold()
        text = _fold_latin_marks(text)
        text = text.replace("&", " and ")
        text = _APOSTROPHES_DOTS.sub("", text)
        # Dots left at this point sit between digits ("3.5"): they are part of the number.
        text = "".join(
            " " if ch != "." and unicodedata.category(ch)[0] in "PSZC" else ch for ch in text
        )
    text = _SPACES.sub(" ", text).strip()
    text = _HAN_GAP.sub("", text)
    return _ARTICLE.sub("", text)


def compact_name(name: str) -> str:
    """``normalize_name`` without spaces: ``"Wal-Mart"`` and ``"Walmart"`` give ``"walmart"``."""
    return normalize_name(name).replace(" ", "")


@lru_cache(maxsize=4096)
def normalize_type(type_: str) -> str:
    """Canonical upper-case type: ``"org"`` → ``"ORGANIZATION"``, ``""`` → ``"CONCEPT"``."""
    cleaned = re.sub(r"[^0-9A-Z]+", "_", type_.strip().upper()).strip("_")
    if not cleaned:
        return "CONCEPT"
    return TYPE_SYNONYMS.get(cleaned, cleaned)


def entity_key(name: str, type_: str) -> str:
    """``"TYPE:normalized name"``: equal keys mean the same entity."""
    return f"{normalize_type(type_)}:{normalize_name(name)}"


def entity_id(name: str, type_: str) -> str:
    """Deterministic entity id: ``"e_"`` + 16 hex digits of sha1(:func:`entity_key`)."""
    digest = hashlib.sha1(entity_key(name, type_).encode("utf-8")).hexdigest()[:16]
    return f"e_{digest}"


def is_cjk(text: str) -> bool:
    """True when ``text`` contains a CJK character."""
    return _CJK.search(text) is not None
