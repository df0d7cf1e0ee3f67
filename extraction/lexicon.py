"""Word lists behind the offline English extractor's span and type heuristics.

Small closed-class lists and name-shape cues, no gazetteer of names: the extractor must work on
any corpus and stay deterministic.
"""

from __future__ import annotations

__all__ = [
    "ABBREVIATIONS",
    "ADJECTIVE_MODIFIERS",
    "CALENDAR_WORDS",
    "CONNECTORS",
    "CORPORATE_SUFFIXES",
    "EVENT_FIRST",
    "EVENT_HEADS",
    "HONORIFICS",
    "HONORIFICS_STRIPPED",
    "LOCATION_CUES",
    "LOCATION_FIRST",
    "LOCATION_HEADS",
    "ORG_FIRST",
    "ORG_HEADS",
    "PERSON_CUES_BEFORE",
    "STOPWORDS",
    "WORK_CUES",
    "WORK_FIRST",
    "WORK_HEADS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    """
    a an the this that these those there here it its it's he she they we you i him her them us
    me my our your his their hers theirs ours yours who whom whose which what when where why how
    whatever whichever whoever is are was were be been being am has have had having do does did
    doing done can could will would shall should may might must ought and or nor but yet so if
    then else than as because since while although though unless until whether once of in on at
    by for with without from to into onto upon about above below over under between among amid
    through throughout during before after against within along around across behind beyond
    near toward towards via per like unlike despite except including following according due
    prior also however today currently originally later earlier eventually finally initially
    subsequently previously recently meanwhile moreover furthermore additionally nevertheless
    nonetheless instead therefore thus hence indeed otherwise overall generally usually
    typically often sometimes always never only even still just now soon again already almost
    nearly approximately roughly about all any both each every either neither few many much more
    most other another some such same own several various certain one two three four five six
    seven eight nine ten first second third last next no not yes born located based founded
    released named known called considered described see note notes both although thereafter
    together further many most upon whereas whilst amongst inside outside according
    following besides apart whereby wherein whereof
    """
)
"""Function and common words: never a name on their own (checked lower-cased)."""

CONNECTORS = _words(
    "of the de del della dei des der den van von da di du la le y al bin ibn & 'n und et"
)
"""Lower-case words that may join the capitalised parts of one name ("Bank of America")."""

ABBREVIATIONS = _words(
    "Mr Mrs Ms Dr St Mt Ft Jr Sr Gen Col Capt Lt Sgt Rev Prof Gov Sen Rep Co Corp Inc Ltd Bros "
    "No Vol Ave Blvd Adm Cmdr Hon Pres Univ Dept Est"
)
"""Abbreviations whose dot does not end a sentence."""

HONORIFICS = _words(
    "mr mrs ms miss dr sir dame lord lady prof professor president senator governor general "
    "captain colonel admiral judge justice rev reverend father bishop archbishop pope king queen "
    "prince princess emperor empress duke duchess count countess baron baroness chancellor "
    "minister mayor chief coach saint sheikh sultan tsar czar pharaoh shah imam rabbi "
    "lieutenant sergeant commander marshal ambassador"
)
"""Titles before a person's name (lower-cased, without dots)."""

HONORIFICS_STRIPPED = _words(
    "mr mrs ms miss dr prof professor sir dame president senator governor general captain "
    "colonel admiral judge rev reverend lieutenant sergeant commander ambassador mayor "
    "minister chancellor coach"
)
"""Titles dropped from a name ("President Lincoln" → "Lincoln"); royal ones stay ("King
Albert I")."""

PERSON_CUES_BEFORE = _words(
    "singer actor actress writer author poet painter composer politician director producer "
    "player footballer goalkeeper guitarist rapper drummer musician artist architect scientist "
    "physicist chemist philosopher founder son daughter wife husband brother sister father "
    "mother uncle aunt nephew niece widow cousin novelist playwright journalist economist "
    "mathematician historian sculptor photographer comedian dancer pianist violinist "
    "screenwriter lyricist songwriter vocalist bassist boxer wrestler cricketer jockey"
)
"""Lower-case role words often right before a person's name ("the composer X")."""

LOCATION_CUES = _words("in near at across throughout outside inside towards toward into")
"""Prepositions that, right before a capitalised run, suggest a place ("born in X")."""

ORG_HEADS = _words(
    "inc corp corporation company co ltd llc plc group holdings industries enterprises "
    "airlines airways motors bank university college institute institution academy school "
    "seminary conservatory association society federation confederation league union council "
    "committee commission board agency bureau department ministry office authority service "
    "services party club fc team foundation trust fund church parliament senate congress "
    "assembly court army navy force forces corps police guard records studios studio pictures "
    "entertainment media network broadcasting press publishing publications laboratories labs "
    "orchestra band choir ensemble hospital museum library gallery organization organisation "
    "alliance coalition order brotherhood cooperative consortium systems technologies software "
    "electronics pharmaceuticals railway railways railroad brewery"
)
"""Last words of organisation names (lower-cased)."""

ORG_FIRST = _words(
    "university bank council church institute ministry department academy college society "
    "association federation board commission committee league"
)
"""First words of organisation names followed by "of" ("University of X")."""

LOCATION_HEADS = _words(
    "river creek brook lake sea ocean bay gulf strait channel canal falls island islands isle "
    "peninsula mountain mountains hill hills valley desert forest park glacier coast beach "
    "plateau plain plains basin delta county parish province region district territory "
    "prefecture municipality township borough city town village republic kingdom empire street "
    "road avenue square bridge tower castle palace cathedral airport station harbor harbour "
    "port stadium arena highway boulevard heights springs reservoir dam volcano range pass "
    "states emirates oblast governorate county"
)
"""Last words of place names (lower-cased)."""

LOCATION_FIRST = _words("mount lake cape fort port isle gulf bay republic kingdom state sea strait")
"""First words of place names ("Mount X", "Republic of X")."""

EVENT_HEADS = _words(
    "war battle revolution rebellion uprising siege massacre crisis olympics olympiad games "
    "championship championships cup tournament festival election elections conference summit "
    "expedition campaign protests riots strike treaty agreement awards award prize marathon "
    "bowl season series grand prix"
)
"""Last words of event names (lower-cased)."""

EVENT_FIRST = _words("battle siege treaty war")
"""First words of event names ("Battle of X")."""

WORK_HEADS = _words(
    "journal review magazine times post gazette herald tribune chronicle quarterly bulletin "
    "symphony concerto sonata trilogy saga show"
)
"""Last words of titles of works (lower-cased)."""

WORK_FIRST = _words("journal annals proceedings")
"""First words of titles of works ("Journal of X")."""

WORK_CUES = _words(
    "album single song film movie novel book series sitcom episode play musical opera poem "
    "painting sculpture magazine journal newspaper game documentary ep soundtrack track "
    "anthology comic manga anime programme program titled entitled"
)
"""Lower-case words right before a title ("the album X")."""

ADJECTIVE_MODIFIERS = _words(
    "united national royal great northern southern eastern western north south east west new "
    "old central upper lower greater little big grand high first second international general "
    "state city county federal imperial supreme democratic republican catholic christian "
    "protestant socialist communist liberal conservative labour labor people peoples holy "
    "saint st free independent public metropolitan municipal regional provincial official "
    "summer winter olympic world"
)
"""Words that, alone, are no name even when they open one ("*United* States")."""

CALENDAR_WORDS = _words(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday bc ad bce ce"
)
"""Month and day names and era marks: alone they are no entity (dates are found apart)."""

CORPORATE_SUFFIXES = _words("inc inc. ltd ltd. co co. corp corp. llc plc gmbh ag sa")
"""Legal-form suffixes: alone (after a comma) they are no entity."""
