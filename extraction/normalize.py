"""Name and type normalization: the keys entity resolution and entity linking compare.

``normalize_name`` (defined in :mod:`extraction.language`, re-exported here) folds what varies between mentions of one name without changing which name
it is: Unicode width and compatibility forms (NFKC: full-width ``ＩＢＭ`` → ``ibm``), case,
Latin diacritics, dots and apostrophes (``I.B.M.`` → ``ibm``), other punctuation, spacing, and a
leading English article. Chinese text keeps its characters; spaces between Han characters are
dropped, since Chinese does not separate words.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from extraction.language import compact_name, contains_cjk, normalize_name

__all__ = [
    "TYPE_SYNONYMS",
    "WILDCARD_TYPES",
    "compact_name",
    "entity_id",
    "entity_key",
    "is_cjk",
    "normalize_name",
    "normalize_type",
    "subject_name",
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

_PARENTHESIS = re.compile(r"\s*[(（][^)）]*[)）]\s*")


def subject_name(title: str) -> str:
    """The name of what a document titled ``title`` is about: the title without its
    parenthesised qualifiers ("Mercury (planet)" → "Mercury", "甘棠（公司）" → "甘棠")."""
    return _PARENTHESIS.sub(" ", title).strip(" ,")


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


is_cjk = contains_cjk
"""True when ``text`` contains a CJK (Han, kana or hangul) character."""
