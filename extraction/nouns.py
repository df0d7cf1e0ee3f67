"""English class nouns and the type of the thing a noun phrase names.

"the film's director" names a person, "the river" a place, "the label" an organisation, "the
year" a date. Closed classes of English plus the productive agent suffixes (-er, -or, -ist, …):
shared by the question analysis (what a step asks for) and offline extraction (what a name is,
from the noun the text classifies it by: "X is a regional airline").
"""

from __future__ import annotations

import re
from typing import Literal

NounClass = Literal["PERSON", "LOCATION", "ORGANIZATION", "DATE", "NUMBER", "NAME"]
"""The type a class noun gives; ``NAME`` when it gives none (or either of person and firm)."""

# Agent, kinship and role nouns: "which/what/the N" asks for a person. Closed classes of
# English plus the productive agent suffixes (-er, -or, -ist, -ian, -ant, -ent, -ess).
_PERSON_NOUNS = frozenset(
    [
        # occupations, offices and ranks that carry no agent suffix
        "pilot",
        "analyst",
        "chef",
        "cook",
        "entrepreneur",
        "tycoon",
        "magnate",
        "surgeon",
        "physician",
        "nurse",
        "midwife",
        "judge",
        "monk",
        "nun",
        "priest",
        "pastor",
        "rabbi",
        "imam",
        "cleric",
        "archbishop",
        "soprano",
        "baritone",
        "athlete",
        "diplomat",
        "envoy",
        "mechanic",
        "academic",
        "alumnus",
        "alumna",
        "veteran",
        "nominee",
        "trainee",
        "employee",
        "protégé",
        "protege",
        "disciple",
        "colleague",
        "friend",
        "fiancé",
        "fiancée",
        "bride",
        "groom",
        "orphan",
        "knight",
        "admiral",
        "colonel",
        "marshal",
        "sultan",
        "emir",
        "tsar",
        "cfo",
        "cto",
        "coo",
        "clerk",
        "steward",
        "bailiff",
        "reeve",
        "warden",
        "vicar",
        "curate",
        "sexton",
        "beadle",
        "squire",
        "rector",
        "deacon",
        "abbot",
        "abbess",
        "dean",
        "provost",
        "sheriff",
        "constable",
        "apprentice",
        "widow",
        "person",
        "individual",
        "people",
        "man",
        "woman",
        "men",
        "women",
        "boy",
        "girl",
        "child",
        "children",
        "son",
        "daughter",
        "father",
        "mother",
        "parent",
        "parents",
        "wife",
        "husband",
        "spouse",
        "partner",
        "brother",
        "sister",
        "sibling",
        "grandfather",
        "grandmother",
        "grandson",
        "granddaughter",
        "uncle",
        "aunt",
        "nephew",
        "niece",
        "cousin",
        "king",
        "queen",
        "prince",
        "princess",
        "emperor",
        "empress",
        "monarch",
        "ruler",
        "lord",
        "lady",
        "duke",
        "duchess",
        "count",
        "countess",
        "baron",
        "chief",
        "head",
        "leader",
        "member",
        "owner",
        "founder",
        "co-founder",
        "cofounder",
        "president",
        "chairman",
        "chairwoman",
        "chair",
        "ceo",
        "executive",
        "premier",
        "minister",
        "mayor",
        "governor",
        "senator",
        "general",
        "captain",
        "coach",
        "star",
        "artist",
        "actor",
        "actress",
        "author",
        "writer",
        "poet",
        "composer",
        "singer",
        "player",
        "director",
        "producer",
        "creator",
        "inventor",
        "designer",
        "architect",
        "editor",
        "publisher",
        "host",
        "presenter",
        "anchor",
        "student",
        "pupil",
        "teacher",
        "tutor",
        "mentor",
        "supervisor",
        "advisor",
        "adviser",
        "professor",
        "scholar",
        "scientist",
        "winner",
        "heir",
        "successor",
        "predecessor",
        "namesake",
        "pope",
        "bishop",
        "saint",
        "god",
        "goddess",
        "hero",
        "heroine",
        "character",
        "protagonist",
        "villain",
    ]
)
_PERSON_SUFFIX = re.compile(r"(?:er|or|ist|ian|ess|ant|ent)s?$")
_MAN_COMPOUND = re.compile(r"[a-z]{3,}(?:man|men|woman|women)$")
_NOT_PERSON_SUFFIXED = frozenset(
    [
        # -man compounds that are things
        "talisman",
        "ottoman",
        "german",
        "river",
        "center",
        "centre",
        "number",
        "paper",
        "tower",
        "border",
        "water",
        "letter",
        "order",
        "quarter",
        "chapter",
        "corner",
        "theater",
        "theatre",
        "meter",
        "metre",
        "member-state",
        "weather",
        "cancer",
        "winter",
        "summer",
        "october",
        "november",
        "december",
        "september",
        "computer",
        "film-maker",
        "manner",
        "matter",
        "power",
        "cluster",
        "register",
        "sector",
        "factor",
        "motor",
        "mirror",
        "error",
        "colour",
        "color",
        "floor",
        "door",
        "interior",
        "exterior",
        "territory",
        "monitor",
        "tenor",
        "junior",
        "senior",
        "elevator",
        "indicator",
        "calendar",
        "event",
        "agent",
        "talent",
        "element",
        "continent",
        "department",
        "government",
        "parliament",
        "tournament",
        "instrument",
        "movement",
        "settlement",
        "treatment",
        "apartment",
        "establishment",
        "segment",
        "moment",
        "document",
        "monument",
        "component",
        "percent",
        "cent",
        "plant",
        "giant",
        "restaurant",
        "variant",
        "tenant",
    ]
)
_PLACE_NOUNS = frozenset(
    [
        "place",
        "location",
        "city",
        "town",
        "village",
        "hamlet",
        "country",
        "nation",
        "state",
        "province",
        "county",
        "region",
        "district",
        "area",
        "territory",
        "continent",
        "island",
        "capital",
        "municipality",
        "borough",
        "suburb",
        "neighbourhood",
        "neighborhood",
        "prefecture",
        "canton",
        "parish",
        "republic",
        "kingdom",
        "empire",
        "birthplace",
        "hometown",
        "headquarters",
        "seat",
        "site",
        "venue",
        "port",
        "harbour",
        "harbor",
        "valley",
        "mountain",
        "river",
        "lake",
        "sea",
        "ocean",
        "street",
        "address",
    ]
)
_ORG_NOUNS = frozenset(
    [
        "company",
        "firm",
        "corporation",
        "business",
        "enterprise",
        "organization",
        "organisation",
        "institution",
        "university",
        "college",
        "school",
        "academy",
        "brewery",
        "distillery",
        "winery",
        "bakery",
        "clinic",
        "consultancy",
        "practice",
        "retailer",
        "wholesaler",
        "carmaker",
        "automaker",
        "conglomerate",
        "consortium",
        "cooperative",
        "subsidiary",
        "troupe",
        "ensemble",
        "regiment",
        "monastery",
        "convent",
        "institute",
        "museum",
        "library",
        "hospital",
        "church",
        "team",
        "club",
        "band",
        "group",
        "orchestra",
        "choir",
        "label",
        "studio",
        "network",
        "channel",
        "newspaper",
        "magazine",
        "publisher",
        "party",
        "agency",
        "ministry",
        "department",
        "government",
        "army",
        "navy",
        "airline",
        "bank",
        "brand",
        "manufacturer",
        "employer",
        "startup",
        "association",
        "society",
        "union",
        "league",
        "federation",
        "council",
        "committee",
        "foundation",
        "charity",
        "court",
        "parliament",
    ]
)
_DATE_NOUNS = frozenset(
    ["year", "date", "day", "month", "decade", "century", "era", "time", "period"]
)
# Quantities and measures, and the codes written in digits.
_NUMBER_NOUNS = frozenset(
    [
        "number",
        "amount",
        "population",
        "count",
        "total",
        "percentage",
        "height",
        "length",
        "depth",
        "width",
        "breadth",
        "tonnage",
        "acreage",
        "mileage",
        "circulation",
        "elevation",
        "distance",
        "weight",
        "capacity",
        "attendance",
        "budget",
        "revenue",
        "cost",
        "price",
        "salary",
        "code",
        "headcount",
        "workforce",
        "valuation",
        "turnover",
        "profit",
        "income",
        "enrolment",
        "enrollment",
    ]
)


def _content_words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z\-]*", text.lower())


_COMPOUND_PREPOSITIONS = frozenset(["in", "of", "at", "on", "to"])


def _compound_head(word: str) -> str:
    """The head of a hyphenated compound: the part before its preposition when it has one
    ("father-in-law", "editor-in-chief", "man-of-war"), else its last part ("co-founder",
    "great-grandson")."""
    parts = [p for p in word.split("-") if p]
    if len(parts) < 2:
        return word
    for n, part in enumerate(parts[1:], start=1):
        if part in _COMPOUND_PREPOSITIONS:
            return parts[n - 1]
    return parts[-1]


def head_noun_type(noun: str, productive: bool = True) -> NounClass:
    """The answer type of an English noun phrase's head ("the film's director" → PERSON).

    ``productive=False`` reads only the closed classes, not the agent suffixes (which
    comparatives share: "the older", "the latter").
    """
    words = _content_words(noun)
    if not words:
        return "NAME"
    head = _compound_head(words[-1])
    singular = head[:-1] if head.endswith("s") and head[:-1] in _PERSON_NOUNS else head
    if _person_or_firm(head):
        return "NAME"  # "the contractor", "the buyer": a person or a firm, either may answer
    if head in _DATE_NOUNS:
        return "DATE"
    if head in _NUMBER_NOUNS:
        return "NUMBER"
    if head in _PLACE_NOUNS or head.rstrip("s") in _PLACE_NOUNS:
        return "LOCATION"
    if head in _ORG_NOUNS or head.rstrip("s") in _ORG_NOUNS:
        return "ORGANIZATION"
    if singular in _PERSON_NOUNS:
        return "PERSON"
    if not productive:
        return "NAME"
    if len(head) > 5 and _MAN_COMPOUND.search(head) and head not in _NOT_PERSON_SUFFIXED:
        return "PERSON"  # rockman, ferryman, forewoman: a compound of -man names a person
    if (
        len(head) > 4
        and _PERSON_SUFFIX.search(head)
        and head not in _NOT_PERSON_SUFFIXED
        and head.rstrip("s") not in _NOT_PERSON_SUFFIXED
    ):
        return "PERSON"
    return "NAME"


# Agent nouns that name a firm as often as a person (a closed class of English): the answer
# may be either.
_PERSON_OR_ORG_NOUNS = frozenset(
    [
        "contractor",
        "developer",
        "supplier",
        "distributor",
        "broadcaster",
        "streamer",
        "operator",
        "manufacturer",
        "carrier",
        "retailer",
        "wholesaler",
        "lender",
        "insurer",
        "sponsor",
        "acquirer",
        "buyer",
        "purchaser",
        "investor",
        "backer",
        "employer",
        "builder",
        "maker",
        "publisher",
        "seller",
        "vendor",
        "licensee",
        "provider",
        "consultant",
    ]
)


def _person_or_firm(head: str) -> bool:
    """Is the head noun ``head`` (singular or plural) one of :data:`_PERSON_OR_ORG_NOUNS`?"""
    return head in _PERSON_OR_ORG_NOUNS or head.rstrip("s") in _PERSON_OR_ORG_NOUNS


def names_agent(noun: str) -> bool:
    """Does the English ``noun`` name a person or an organisation (whichever it may be)?"""
    words = _content_words(noun)
    return head_noun_type(noun) in ("PERSON", "ORGANIZATION") or (
        bool(words) and _person_or_firm(_compound_head(words[-1]))
    )


# Relational nouns that classify a firm, a place or a work as often as a person ("the winner
# of the 2009 prize", "a member of the league", "the host of the games", "the market leader"):
# they type no name they classify.
_RELATIONAL_NOUNS = frozenset(
    [
        "winner",
        "member",
        "head",
        "partner",
        "leader",
        "owner",
        "creator",
        "successor",
        "predecessor",
        "namesake",
        "host",
        "star",
        "general",
        "chief",
        "character",
        "hero",
        "villain",
        "protagonist",
        "individual",
        "parent",
        "sibling",
        "chair",
        "employer",
    ]
)


def class_noun_type(noun_phrase: str, productive: bool = True) -> NounClass:
    """The type of what a noun phrase classifies ("X is a regional airline" → ORGANIZATION,
    "X, a former bank analyst" → PERSON), or ``NAME`` when its head gives none or may
    classify things of several types (:data:`_RELATIONAL_NOUNS`, agents that may be firms).
    ``productive`` as in :func:`head_noun_type`."""
    words = _content_words(noun_phrase)
    if not words:
        return "NAME"
    head = _compound_head(words[-1])
    if head in _RELATIONAL_NOUNS or head.rstrip("s") in _RELATIONAL_NOUNS:
        return "NAME"
    kind = head_noun_type(noun_phrase, productive)
    return kind if kind in ("PERSON", "ORGANIZATION", "LOCATION") else "NAME"
