"""Planners turn a question into typed reasoning steps.

:class:`RulePlanner` works offline from general constructions of English and Chinese, never
from a corpus's words:

* comparisons — "Who was born earlier, A or B?", "Between A and B, which ...?", "A和B谁更早…",
  "X与Y哪家…更大": one value step per option and a comparison that picks one of the names;
* yes/no — "Are A and B both …?", "Do A and B have the same …?", "Is A …?", "A和B是否都…",
  "…是同一个…吗": value or verification steps and a yes/no decision;
* conjunctions — "Which X did P found, and where is it based?" (the pronoun becomes ``#1``);
* bridges — relative clauses ("the company that P left"), possessives ("P's supervisor"),
  "the N of X" chains, and in Chinese X的Y的Z chains, relative clauses (由X创办的公司), agent
  nouns after a name (X创始人) and two clauses joined by a comma (…，其…).

Every step carries its ``answer_type`` (from the wh-word or the head noun), so the reader
keeps only candidates of the right kind. :class:`LLMPlanner` (in :mod:`kg_rag.answer.llm_stages`)
asks a chat model for the same typed :class:`~kg_rag.models.Plan`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from extraction.chinese import pos_tags
from extraction.language import (
    BARE_PARTICIPLES,
    ENGLISH_STOPWORDS,
    GENERATION_WORDS,
    HAN,
    STRANDED_PARTICLES,
    is_participle,
    split_sentences,
)
from extraction.lexicon import CHINESE_KIN_WORDS
from kg_rag.answer.offline import IRREGULAR_PAST, past_of_participle
from kg_rag.answer.question import (
    AUXILIARIES,
    DATE_RX,
    KIN_GENDER,
    TITLED_WORKS,
    ZH_CLASSIFIERS,
    ZH_EVENT_WORDS,
    ZH_FORMER_TIME,
    ZH_GRADABLE,
    ZH_TERM_OF_OFFICE,
    ZH_TIME_CLOSERS,
    answer_type,
    comparison_order,
    head_noun_type,
    is_past_participle,
    is_yes_no,
    names_agent,
    zh_a_not_a,
    zh_noun_type,
)
from kg_rag.models import AnswerType, Comparison, Plan, PlanStep

__all__ = ["RulePlanner", "bind_query"]

_PLACEHOLDER = re.compile(r"#(\d+)")
# The planning planner's ``known_name`` (see :class:`RulePlanner`), for the grammar's helpers.
_KNOWN_NAME: ContextVar[Callable[[str], bool] | None] = ContextVar("known_name", default=None)
_PRONOUN = re.compile(r"\b(it|he|she|they|him|her|them|its|his|their)\b", re.IGNORECASE)
_MAX_BRIDGES = 3
# A full stop after a lower-case word or a capitalised one of five letters or more: no
# abbreviation ("Co.", "Bros.", "U.S." keep theirs).
_FULL_STOP = re.compile(r"(?<![\w.])(?P<word>[a-z]{2,}|[A-Za-z][a-z]{4,})\.$")
_CJK = re.compile(f"[{HAN}]")


def bind_query(query: str, answers: dict[int, str]) -> str:
    """Replace ``#n`` placeholders with the answers of earlier steps (unknown ones stay)."""
    return _PLACEHOLDER.sub(lambda m: answers.get(int(m.group(1)), m.group(0)), query)


def _clean(text: str) -> str:
    text = re.sub(r"(#\d+)\s+,\s*", r"\1 ", text)  # "#1 , became" → "#1 became"
    return re.sub(r"\s+", " ", text).strip(" ,，?？:：")


def _deps(query: str) -> list[int]:
    return sorted({int(n) for n in _PLACEHOLDER.findall(query)})


_FOUNDED_FORM = {
    "come": "get founded",
    "came": "was founded",
    "comes": "is founded",
    "coming": "getting founded",
}


class RulePlanner:
    """Deterministic planning from the question's grammar (English and Chinese).

    Args:
        known_name: says whether the knowledge base holds a phrase as an entity's name. Where
            the grammar reads two ways ("the Dunmore refractor": an instrument's name, or the
            refractor of someone called Dunmore, as "the Quillby Pottery founder" is the
            founder of Quillby Pottery), a phrase the knowledge base holds whole is a name.
            Without it the grammar alone decides.
    """

    name = "rules"

    def __init__(self, known_name: Callable[[str], bool] | None = None) -> None:
        self.known_name = known_name

    async def aplan(self, question: str, run: Any = None) -> Plan:
        """Plan ``question`` (async face of :meth:`plan`; ``run`` is unused offline)."""
        return self.plan(question)

    def plan(self, question: str) -> Plan:
        """Split ``question`` into typed steps."""
        token = _KNOWN_NAME.set(self.known_name)
        try:
            return self._plan(question)
        finally:
            _KNOWN_NAME.reset(token)

    def _plan(self, question: str) -> Plan:
        q = _clean(question)
        zh = bool(_CJK.search(q))
        if zh:
            q = _ZH_REQUEST.sub("", q)  # "请问X获得过Y吗": the question the request wraps
        fronted = _fronted_phrase(q) if not zh else None
        if fronted is not None:
            # "Since 2005, who has been the head of X?": the question is planned without the
            # phrase, which then frames its last step (no bridge inside it takes the phrase).
            phrase, rest = fronted
            framed = self.plan(rest)
            last = framed.steps[-1]
            if last.kind != "compare":
                steps = [
                    *framed.steps[:-1],
                    last.model_copy(update={"query": f"{last.query} {phrase}"}),
                ]
                framed = framed.model_copy(update={"steps": steps})
            return framed.model_copy(update={"question": question})
        if not zh:
            # "Name the architect of X's flagship.": a request closes with a full stop, which
            # is no part of its last word (an abbreviation's is: "… of Varn Bros.")
            q = _FULL_STOP.sub(r"\g<word>", q)
            # "come into being / existence" is the founding of what comes into being
            q = re.sub(
                r"\b(come|came|comes|coming)\s+into\s+(?:being|existence)\b",
                lambda m: _FOUNDED_FORM[m.group(1).lower()],
                q,
                flags=re.IGNORECASE,
            )
            # "The man hired in 1849 to mow the green came from which hamlet?": a participle
            # after the subject's noun, with the main verb after it, is a reduced relative.
            reduced = _REDUCED_SUBJECT.match(q)
            if (
                reduced is not None
                and is_participle(reduced["part"])
                and _in_situ_verb(q, reduced.end()) is not None
            ):
                q = f"{q[: reduced.start('part')]}who was {q[reduced.start('part') :]}"
            # "What tonnage of cheese did X make", "What amount of …": how much of it
            q = _AMOUNT_OF.sub(lambda m: "How many " if m["noun"].endswith("s") else "How much ", q)
            # "A and B are based in the same city, right?": a statement with a tag asks yes/no;
            # "Can you tell me where X was born": the question the request wraps.
            if question.rstrip().endswith(("?", "？")):
                q = _declarative_question(_positive(q))
            # "Is X's chief winemaker, Ada Moe, a native of Y?": a role with the name of its
            # holder beside it asks about the named person (after an opening auxiliary)
            lead = re.match(r"(?:\w+\s+){0,2}?(?:is|was|are|were|did|does|do|has|had)\s+", q, re.I)
            at = lead.end() if lead is not None else 0
            q = q[:at] + _NAMED_ROLE.sub(r"\g<name> ", q[at:])
            q = _tag_question(_positive(_unwrapped(q)))
            # "X's first secretary was whom?": the copula's subject asked in question order
            closing = _CLOSING_COPULA_WH.match(q)
            if closing is not None:
                # (a name's "The" goes with its possessive: "the X Society's secretary")
                subject = re.sub(r"^The\s+(?=[A-Z][^'’]*['’]s\s)", "", closing["s"])
                subject = re.sub(r"^The\s", "the ", subject)
                wh = "Who" if closing["wh"].lower() in ("who", "whom") else "What"
                q = f"{wh} {closing['be']} {subject}"
            # "A former student of X is now head of which firm?": in a question in statement
            # order, an indefinite relational subject is asked as a definite one.
            if _IN_SITU_WH.search(q):
                q = re.sub(r"^An?\s+(?=(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*\s+of\s)", "The ", q)
            if is_yes_no(q):
                # "Did X already exist when Y was founded?": already so when E is so before E.
                q = re.sub(
                    r"\balready\s+((?:been\s+)?[a-z][^,?]*?)\s+(?:by\s+the\s+time|when)\b",
                    r"\1 before",
                    q,
                )
                # "Had X been sold by the time Y …": a perfect done by then was done before
                if re.match(r"(?:Had|Has|Have)\s", q):
                    q = re.sub(r"\s+by\s+the\s+time\s+", " before ", q)
                # "Had X become head before Y …": the past perfect of an active verb orders
                # its event as the simple past does
                q = re.sub(
                    rf"^Had\s+({_NAMED_SUBJECT})\s+(?!been\b)([a-z]+)\b(?=.*\s(?:before|after)\s)",
                    lambda m: f"Did {m[1]} {m[2]}" if is_participle(m[2]) else m[0],
                    q,
                )
                # "Had X been sold before Y …": the past perfect's passive dates the event as
                # the simple past does
                q = re.sub(
                    r"^(?:Had|Has|Have)\s+(.+?)\s+been\s+([a-z]+)\s+(before|after)\b",
                    r"Was \1 \2 \3",
                    q,
                )
                # (with what the participle governs: "Had X been made a partner … before")
                q = re.sub(
                    rf"^(?:Had|Has|Have)\s+({_NAMED_SUBJECT})\s+been\s+([a-z]+\s.*?\s(?:before|after)\s)",
                    lambda m: f"Was {m[1]} {m[2]}" if is_participle(m[2].split()[0]) else m[0],
                    q,
                )
                # "one and the same village" is the same village; of two named together, "based
                # in one city" / "from a single village" says the same of both.
                q = re.sub(r"\bone\s+and\s+the\s+same\b", "the same", q)
                if re.search(r"\s(?:and|as)\s", q):
                    q = _ONE_PLACE.sub(r"\g<prep> the same \g<noun>", q)
            # "Give the number of pupils X had in 1875", "What was the number of boats at X":
            # the number of N is how many N.
            q = _NUMBER_OF.sub(lambda m: f"How many {m['noun']} ", q)
            # "What was the sum X paid for Y": a contact relative on a noun of money
            paid = _SUM_PAID.match(q)
            if paid is not None:
                verb = _BARE_OF_PAST.get(paid["verb"].lower(), paid["verb"])
                q = _clean(f"How much did {paid['s']} {verb} {paid['rest'].strip()}")
            q = _en_phrasings(q)
            q = _GENERATION_WORD.sub(  # Vell Junior ("Were the elder X" has no name before it)
                lambda m: (
                    m.group(0) if m["name"].lower() in _FUNCTION else m["name"] + m["gen"].title()
                ),
                q,
            )
        if zh:
            # "你知道X的创办人是谁吗": the request wraps a wh-question; 吗 asks whether you know.
            known = re.search(r"(?:你|您)(?:知道|知不知道|清楚|晓得|记得)", q)
            if known is not None and _ZH_WH_CHARS.search(q, known.end()):
                q = re.sub(r"[吗么呢]$", "", q[: known.start()] + q[known.end() :])
        if zh and question.rstrip().endswith(("?", "？")) and _zh_statement_asked(q):
            q = f"{q}吗"  # "X是由Y创办的？": a statement asked with a question mark
        if zh and (negated := _ZH_NEGATED_QUESTION.match(q)) is not None:
            # "X不是由Y创办的吗", "X没有获得过Y吗": a negative question asks whether the
            # positive claim holds, as "Isn't X …?" does
            q = f"{negated['s']}{'是' if negated['neg'].endswith('是') else ''}{negated['rest']}"
        if zh and (tag := _ZH_TAG.match(q)) is not None and not _ZH_WH_CHARS.search(tag["stmt"]):
            # "韦正岚是在X工作的，是不是": a statement with a confirmation tag asks yes/no.
            q = tag["stmt"] + "吗"
        if zh and (inverted := _ZH_WH_FIRST_COPULA.match(q)) is not None:
            # "哪所大学是X的母校": the copula's two sides in the other order, "X的母校是哪所大学"
            q = f"{inverted['x']}的{inverted['m']}是{inverted['wh']}"
        if zh and (ana := zh_a_not_a(q)) is not None and ana.group(1) not in "是有对":
            # "X在不在Y市": the affirmative-negative verb asks as "X在Y市吗" does
            q = f"{q[: ana.start()]}{ana.group(1)}{q[ana.end() :]}".rstrip("？?") + "吗"
        if zh and q.endswith("吧") and not _ZH_WH_CHARS.search(q):
            q = q[:-1] + "吗"  # "…是同一个地方出生的吧": a question asking to confirm
        if zh:
            # "鸿岭奖得主曾任…": the winner of a prize is its 得主, a noun of the prize's
            # (the segmenter cuts 奖得主 as one word), written with the 的 it leaves out
            q = re.sub(r"(?<=[奖杯赛])(?=得主|获得者|获奖者)", "的", q)
        if zh and (asked := _zh_noun_phrase_asked(q)) is not None:
            q = asked  # "X 主办出版社 创办人", "请说出X的师父": the value of the noun phrase
        strategies = (
            (
                _zh_passive_party,
                _zh_two_questions,
                _zh_statement_question,
                _zh_times_than,
                _zh_compare,
                _zh_context_compare,
                _zh_by_then,
                _zh_yes_no,
                _zh_kinship,
                _zh_event_year,
                _zh_bridge,
                _zh_role_subject,
            )
            if zh
            else (
                _en_path,
                _en_two_questions,
                _en_fronted,
                _en_topic,
                _en_framed_topic,
                _en_statement,
                _en_referent,
                _en_compare,
                _en_yes_no,
                _en_kinship,
                _en_conjunction,
                _en_someone_wh,
                _en_passive_chain,
                _en_bridge,
            )
        )
        for strategy in strategies:
            plan = strategy(q, question)
            if plan is not None:
                return _zh_seat_lookup(plan) if zh else plan
        kind = answer_type(q)
        return Plan(
            question=question,
            steps=[PlanStep(index=1, query=q, answer_type=kind)],
            strategy="single",
            answer_type=kind,
        )


def _en_phrasings(q: str) -> str:
    """The English question with the phrasings users type put the way the planner reads them:
    a title before a name, "vs", informal kin words, a closing possessive, "the name of",
    "whoever", "which of the two", "who has been", "the N behind X"."""
    # "the Kestwick City striker Tobias Culverhay": a title before a person's name is
    # apposition; the name alone is the noun phrase (and ends where it ends).
    q = _TITLED_NAME.sub(
        lambda m: m["name"] if head_noun_type(m["role"]) == "PERSON" else m.group(0), q
    )
    # "A and B are both tenors. Which of the two is older?": the pair a statement opens with is
    # what the question's "the two" / "them" refers back to ("A and B: which … ?").
    # "… than Abel Moe, who founded the foundry?": a relative clause set off by commas after
    # a name says more of the one the name already picks; it asks nothing.
    if _NAME_ASIDE_HOST.match(q):  # (not "Out of A and B, who died first?": its question)
        q = _NAME_ASIDE.sub(r"\g<name>", q)
    q = _PAIR_REFERRED.sub(lambda m: f"{m['pair']}: {_PAIR_LEAD.sub('', m['q'])}", q)
    # "A vs B: which opened earlier?": versus offers the two options as "or" does.
    q = re.sub(r"\s+(?:vs\.?|versus)\s+(?=[A-Z#])", " or ", q)
    # "Which one goes back further?", "… dates back farther", "has the longer history": the
    # idioms of age are "is older"
    q = re.sub(
        r"\b(?P<verb>go|goes|went|date|dates|dated)\s+back\s+(?:further|farther)\b"
        r"|\b(?P<have>has|have|had)\s+(?:the\s+)?longer\s+history\b",
        lambda m: (
            "was older"
            if (m["verb"] or m["have"]).lower() in ("went", "dated", "had")
            else "is older"
        ),
        q,
        flags=re.IGNORECASE,
    )
    q = _LONGER_LIFE.sub(_longer_life, q)  # "Did A reach a greater age than B": lived longer
    # Informal kin words are the kin terms the evidence writes ("Ivo's dad").
    q = _INFORMAL_KIN.sub(lambda m: _INFORMAL_KIN_TERMS[m.group(0).lower()], q)
    # "… attended by X's founder?": a possessive that closes the question is the
    # noun of its owner, which the bridges read ("the founder of X").
    q = _CLOSING_POSSESSIVE.sub(_closing_possessive, q)
    q = _INNER_POSSESSIVE.sub(_inner_possessive, q)
    # "What is the name of the studio X set up" asks for the studio; "whoever directs
    # X" is the person who directs X.
    if not _STRANDED_END.search(q):  # ("… the ship X sailed on": left as it is)
        q = re.sub(
            r"^((?i:what)\s+(?:is|was)\s+)the\s+name\s+of\s+the\s+"
            r"((?:(?!(?:where|when|which|who|whom|whose|that)\s)[a-z]+\s+){1,2})(?=[A-Z])",
            r"\1the \2that ",
            q,
        )
        q = re.sub(
            r"^(what\s+(?:is|was)\s+)the\s+name\s+of\s+(?=the\s|whoever\s)",
            r"\1",
            q,
            flags=re.IGNORECASE,
        )
    q = re.sub(
        r"^what\s+(?:is|was)\s+(?:whoever|the\s+(?:man|woman|person)\s+who)\s+",
        "Who ",
        q,
        flags=re.IGNORECASE,
    )
    q = re.sub(r"\bwhoever\s+(?=[a-z]+s\b)", "the person who ", q)
    # "which of the two opened earlier" asks which one
    q = re.sub(
        r"\bwhich\s+of\s+(?:the\s+)?(?:two|both|them|these|those)\b",
        "which",
        q,
        flags=re.IGNORECASE,
    )
    # "Who has been the head of X": the present perfect of the copula asks who is.
    q = re.sub(r"^(who|what|which)\s+(?:has|have)\s+been\s+(?=the\s)", r"\1 is ", q, flags=re.I)
    # "the developer behind the building that won X": behind, after a noun of a
    # person or an organisation, names who made the thing (not where it stands).
    q = _BEHIND.sub(
        lambda m: f"{m['np']} of " if names_agent(m["noun"]) else m.group(0),
        q,
    )
    # "the 2016 Dunmarra Medal winner", "the Quillby Pottery founder": a name before a role noun
    # is that role's complement ("the winner of the 2016 Dunmarra Medal").
    return _PRENOMINAL_ROLE.sub(_prenominal_role, q)


_PRENOMINAL_ROLE = re.compile(
    r"\bthe\s+(?P<year>(?:1[5-9]|20)\d\d\s+)?"
    r"(?P<name>[A-Z][\w'’\-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'’\-]*)*)(?<!['’]s)\s+"
    r"(?P<noun>[a-z][a-z\-]+)\b(?!\s+(?:of\b|than\b|[A-Z]))"
)


def _prenominal_role(m: re.Match[str]) -> str:
    noun = m["noun"]
    if re.search(r"\b(?:did|does|do)\s+$", m.string[: m.start()], re.IGNORECASE):
        return m.group(0)  # "Did the X Club exist …": the do-question's bare verb
    role = noun in ("winner", "owner", "creator", "founder", "head", "leader", "chair") or (
        head_noun_type(noun) == "PERSON" and noun not in KIN_GENDER
    )
    if not role:
        return m.group(0)
    known = _KNOWN_NAME.get()
    if known is not None and known(f"{m['name']} {noun}"):
        return m.group(0)  # "the Dunmore refractor", a name the knowledge base holds whole
    return f"the {noun} of {'the ' + m['year'] if m['year'] else ''}{m['name']}"


# A Chinese confirmation tag after a statement and its comma: "…，是吗", "…，对不对", "…，没错吧".
_ZH_TAG = re.compile(
    r"^(?P<stmt>.+?)[，,]\s*(?:是吗|是么|是不是|是吧|对吗|对么|对不对|对吧|没错吧|没错吗|不是吗)$"
)
# A question tag after a statement: "…, right?", "…, isn't it?", "…, didn't she?".
_TAG = re.compile(
    r"^(?P<stmt>[^,].*?),?\s*(?:right|correct|true|"
    r"(?:is|are|was|were|has|have|had|do|does|did|can|could|will|would)(?:n['’]t)?"
    r"(?:\s+not)?\s+(?:it|he|she|they|there|that|this|we|you))\s*[?？]?$",
    re.IGNORECASE,
)
_WH_FIRST = re.compile(r"^(?:who|whom|whose|what|which|where|when|why|how)\b", re.IGNORECASE)
_TAG_AUX = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "did",
        "does",
        "do",
    ]
)


# A negative auxiliary: "isn't", "wasn't", "don't", "won't", "can't", "was not".
_NEGATIVE_AUX = re.compile(
    r"\b(?P<aux>is|are|was|were|has|have|had|do|does|did|could|would|should)(?:n['’]t|\s+not)\b"
    r"|\b(?P<irr>won['’]t|can['’]t|cannot)",
    re.IGNORECASE,
)
_IRREGULAR_NEGATIVE = {"won't": "will", "won’t": "will", "can't": "can", "can’t": "can"}


def _positive(q: str) -> str:
    """A negative yes/no question as the claim it asks about: "Isn't X based in Y?" → "Is X
    based in Y?", "X wasn't founded by Y, was it?" → "X was founded by Y, was it?". Either
    asks whether the positive claim holds, and the answer says that ("No, it is in Z"). Only
    the first auxiliary is read, and only in a question that opens with it or closes on a
    tag; any other question is returned as it is."""
    m = _NEGATIVE_AUX.search(q)
    if m is None:
        return q
    opens = m.start() == 0
    if not opens and _TAG.match(q) is None:
        return q
    if opens and m.group(0).lower().endswith(" not"):
        return q  # "Is not X …" is rare and "Is X not …" keeps its negation as asked
    word = m["aux"] or _IRREGULAR_NEGATIVE.get(m["irr"].lower(), "can")
    if m.group(0)[0].isupper():
        word = word.capitalize()
    return f"{q[: m.start()]}{word}{q[m.end() :]}"


# A role noun phrase (a possessive or "the N of X") and its holder's name between commas.
_NAMED_ROLE = re.compile(
    r"(?:(?:the\s+)?(?:[A-Z][\w'’&.\-]*\s+)*[A-Z][\w&.\-]*['’]s?\s+(?:[a-z][\w\-]*\s+){0,2}"
    r"[a-z][\w\-]*|\bthe\s+(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*\s+of\s+(?:the\s+)?"
    r"(?:[A-Z][\w'’&.\-]*\s*)+?),\s+(?P<name>[A-Z][\w'’.\-]*(?:\s+[A-Z][\w'’.\-]*){1,3}),\s+"
)
_ANY_WH = re.compile(r"\b(?:who|whom|whose|what|which|where|when|why|how)\b", re.IGNORECASE)
# A participle that a passive or place phrase follows: "X founded by Y?", "X born in Y?".
_ELLIPTIC_PASSIVE = re.compile(
    r"^(?P<s>.+?)\s+(?P<part>[a-z]+)\s+(?P<rest>(?:by|in|at|on|as|after|from)\s.+)$"
)


def _declarative_question(q: str) -> str:
    """A statement asked with a question mark and no wh-word is a yes/no question, in
    question order: "X founded by Y?" → "Was X founded by Y" (a participle without its
    auxiliary), "X runs Y?" → "Does X run Y", "X was born in Y?" → "Was X born in Y". Any
    other question is returned as it is."""
    first = q.split()[0].lower() if q.split() else ""
    if (
        not q
        or first in AUXILIARIES
        or _ANY_WH.search(q)
        or not re.search(r"\s", q)
        or re.search(r"[,;:]", q)  # (a fronted phrase, a tag, an appositive: read elsewhere)
        or _TAG.match(q)
    ):
        return q
    passive = _ELLIPTIC_PASSIVE.match(q)
    if (
        passive is not None
        and is_past_participle(passive["part"])
        and not re.search(r"\b(?:that|who|which|whose)\b", passive["s"], re.IGNORECASE)
        and not any(_finite_verb(w) for w in passive["s"].split()[1:])
    ):
        return f"Was {passive['s']} {passive['part']} {passive['rest']}"
    # "X runs Y?": a name, then the first lower-case word is its verb
    words = q.split()
    if q == q.lower():
        return _lower_case_statement(words) or q
    at = next((i for i, w in enumerate(words) if w[0].islower() and w != "the"), None)
    if at is None or at == 0 or not all(w[0].isupper() or w == "the" for w in words[:at]):
        return q
    verb = words[at].lower()
    if not (_finite_verb(verb) or (verb.endswith("s") and not verb.endswith("ss"))):
        return q
    return _inverted(q) or q


def _lower_case_statement(words: list[str]) -> str | None:
    """A search-box statement typed in lower case, "romilda kestevan runs the merrowfield
    festival": a name of two or three words with no function word in it, then a present
    or past verb form; in question order, the name capitalised (None for anything else)."""
    for at in (2, 3):
        if len(words) <= at + 1 or any(w in _FUNCTION for w in words[:at]):
            continue
        verb = words[at]
        if verb in _FUNCTION and verb not in _TAG_AUX:
            return None
        name = " ".join(w.capitalize() for w in words[:at])
        rest = " ".join(words[at + 1 :])
        if verb in _TAG_AUX and verb not in ("has", "have", "had"):
            return f"{verb.capitalize()} {name} {rest}"
        if verb.endswith("s") and not verb.endswith(("ss", "us", "is")) and len(verb) > 3:
            return f"Does {name} {verb[:-1]} {rest}"
        if _finite_verb(verb) and verb not in _TAG_AUX:
            return f"Did {name} {verb} {rest}"
    return None


def _tag_question(q: str) -> str:
    """A statement with a question tag as the yes/no question it asks: the statement's
    auxiliary goes first ("X was born in Y, right?" → "Was X born in Y"), a lexical verb takes
    do ("A and B have offices in Y, right?" → "Do A and B have offices in Y", "X founded Y,
    didn't she?" → "Did X founded Y": the verb's form is kept, its stem is what is matched).
    Any other question is returned as it is."""
    m = _TAG.match(q)
    if m is None or q.split()[0].lower() in AUXILIARIES or _WH_FIRST.match(q):
        return q
    return _inverted(m["stmt"].rstrip(" ,.")) or q  # ("X was so. True?": a sentence of its own)


def _inverted(stmt: str) -> str | None:
    """A clause in statement order in question order (see :func:`_tag_question`): its first
    auxiliary before the subject, else do-support; None when it has no verb."""
    out = _invert(stmt)
    return re.sub(r"\s+(?=[?？.!,])", "", out) if out is not None else None


def _invert(stmt: str) -> str | None:
    stmt = re.sub(r"^(The|A|An)\s", lambda d: d.group(0).lower(), stmt.strip())
    words = list(re.finditer(r"[A-Za-z][\w'’\-]*", stmt))
    for n, w in enumerate(words[1:], start=1):
        low = w.group(0).lower()
        if w.group(0)[0].isupper():
            continue
        after = words[n + 1].group(0).lower() if n + 1 < len(words) else ""
        subject, rest = stmt[: w.start()].strip(), stmt[w.end() :].strip()
        if low in _TAG_AUX and not (
            low in ("have", "has", "had") and not (is_participle(after) or after == "been")
        ):
            return f"{low.capitalize()} {subject} {rest}".strip()
        if low in ("have", "has", "had"):
            do = {"have": "Do", "has": "Does", "had": "Did"}[low]
            return f"{do} {subject} have {rest}".strip()
        if _finite_verb(low) or low in IRREGULAR_PAST:
            return f"Did {subject} {w.group(0)} {rest}".strip()
        if (
            low.endswith("s")
            and not low.endswith("ss")
            and all(v.group(0)[0].isupper() or v.group(0) in ("and", "of", "&") for v in words[:n])
        ):
            return f"Does {subject} {w.group(0)[:-1]} {rest}".strip()  # "X owns Y, right?"
    return None


def _zh_statement_asked(q: str) -> bool:
    """Is ``q`` a Chinese statement (a verb or a copula in it, no wh-word, no question
    particle), not a noun phrase asking its value ("X的创始人？", "X成立的年份？")?"""
    if (
        not q
        or _ZH_WH_CHARS.search(q)
        or is_yes_no(q)
        or re.search(r"[吗么呢吧]$|没有?$|多[长高大远重久宽深少]|几", q)
    ):
        return False  # (a wh-word, 了没有, 有多长: a question already)
    words = _zh_words(q)
    if len(words) < 2:
        return False
    if words[-1][1].startswith("n") and words[-2][0] == "的":
        return False  # "…成立的年份": a noun phrase
    return any(flag == "v" or word in ("是", "在", "由", "于") for word, flag in words[1:])


# A Chinese negative yes/no question: 不是/并不是/没有/没 before the predicate, 吗 at the end
# (not 是不是, 有没有, nor 还没 "not yet").
_ZH_NEGATED_QUESTION = re.compile(
    r"^(?P<s>[^，,]*?[^是有还])(?P<neg>并不是|不是|没有|没)(?P<rest>[^，,]+[吗么])$"
)
# A Chinese request before the question: 请问, 请告诉我, 我想知道, 想问一下.
_ZH_REQUEST = re.compile(
    r"^(?:请问一下|请问|请告诉我|告诉我|我想知道|想知道|想问一下|想问|问一下)[，,：:\s]*"
)
# A request that wraps the question: "Can you tell me …", "Do you know …", "I'd like to know …".
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|show)\s+me|"
    r"(?:can|could|would|will)\s+you\s+(?:please\s+)?let\s+me\s+know|tell\s+me|"
    r"let\s+me\s+know|(?:do|does)\s+(?:you|anyone|anybody)\s+know|"
    r"i(?:'d|’d|\s+would)\s+(?:like|love)\s+to\s+know|i\s+(?:want|need)\s+to\s+know|"
    r"i(?:'m|’m|\s+am)\s+(?:wondering|curious)|i\s+wonder)\s*,?\s+"
    r"(?P<wh>who|whom|whose|what|which|where|when|how|whether|if)\b(?P<rest>.*)$",
    re.IGNORECASE,
)
# A request for a noun phrase: "I need the founding year of X", "Give me the name of …".
_REQUEST_NP = re.compile(
    r"^(?:please\s+)?(?:i\s+(?:need|want)|give\s+me|tell\s+me|find\s+me|"
    r"i(?:'m|’m|\s+am)\s+looking\s+for|i(?:'d|’d|\s+would)\s+like)\s+(?P<np>the\s+.+)$",
    re.IGNORECASE,
)
_BARE_NP = re.compile(
    r"^(?!(?i:the|a|an|this|that|its|his|her|their)\s)"
    r"(?P<year>\d{4}\s+)?(?P<noun>[A-Za-z][a-z]+(?:\s+[a-z]+)?)\s+"
    r"(?P<rest>(?:of|at|in|for)\s+\S.*)$"
)
_TOPIC_THEN_WH = re.compile(
    r"(?:\s[-—–]\s*|[—–:;,]\s*)(?i:who|whom|whose|where|when|what|which|how)\b"
)
_CONTRACTED_WH = re.compile(r"\b(what|where|who|when|how|which)['’]s\b", re.IGNORECASE)


_INFORMAL_KIN_TERMS = {
    "dad": "father",
    "daddy": "father",
    "papa": "father",
    "mum": "mother",
    "mom": "mother",
    "mummy": "mother",
    "mommy": "mother",
    "mama": "mother",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "grandpa": "grandfather",
    "grandma": "grandmother",
    "granny": "grandmother",
    "hubby": "husband",
}
_INFORMAL_KIN = re.compile(
    r"(?<![A-Z][a-z])\b(?:" + "|".join(_INFORMAL_KIN_TERMS) + r")\b(?=['’]s\b|\s|[?.,]|$)"
)
_STRANDED_END = re.compile(r"\s(?:on|in|at|from|with|to|for|by|under|into|of)\s*[?.!]?\s*$")
# A preposition and the name of an owner (its possessive follows).
_PREP_OWNER = (
    r"\b(?P<prep>by|of|at|to|from|with|for|under)\s+(?P<name>(?:[A-Z][\w\-]*\s+){0,4}[A-Z][\w\-]*)"
)
_PAIR_NAME = r"(?:the\s+)?(?:[A-Z][\w'’\-]*\s+){0,4}[A-Z][\w'’\-]*"
_PAIR_REFERRED = re.compile(
    rf"^(?P<pair>{_PAIR_NAME}\s+and\s+{_PAIR_NAME})\s+[a-z][^.?!]*[.!]\s+"
    r"(?P<q>(?=[^.?!]*\b(?i:which|who)\b)[^.?!]*\b(?i:of|between)\s+"
    r"(?:(?:the|these|those)\s+two(?:\s+[a-z]+)?|the\s+pair|them|both)\b[^.!]*\??)$"
)
_NAME_ASIDE = re.compile(
    r"(?P<name>\b[A-Z][\w'’\-]*),\s+who\s+[^,?!;]+?(?:,(?=\s)|(?=\s*[?!.]?\s*$))"
)
_NAME_ASIDE_HOST = re.compile(
    r"(?i:who|whom|whose|what|which|where|when|how|did|does|do|is|was|are|were|has|have|had)\b"
)
_PAIR_LEAD = re.compile(r"^(?i:of|between)\s+[^,]*,\s*")  # "Of the two, who …"
_CLOSING_POSSESSIVE = re.compile(rf"{_PREP_OWNER}['’]s\s+(?P<noun>[a-z][a-z\-]+)(?=\s*[?.!]?\s*$)")
# … and one inside the question, its noun phrase closed by a verb or a function word: "the
# film directed by X's husband shot?", "founded by X's former postdoc in 2015".
_INNER_POSSESSIVE = re.compile(
    rf"{_PREP_OWNER}(?:['’]s|(?<=s)['’])\s+"
    r"(?P<np>[a-z][a-z\-]+(?:\s+[a-z][a-z\-]+)?)(?P<rest>\s+[a-z]+\b|\s*[?.!,]?\s*$)"
)


# A saint's name with its possessive names a place called after the saint ("St Orvald's", a
# church; "Saint Anne's", a school): it is whole, no owner of the noun after it.
_SAINTS_PLACE = re.compile(r"(?:St\.?|Saint|Ste\.?)\s+[A-Z]")


def _closing_possessive(m: re.Match[str]) -> str:
    """ "by X's founder?" → "by the founder of X" (see :data:`_CLOSING_POSSESSIVE`); the match
    unchanged when the word after the possessive is a verb ("of St Orvald's born?") or the
    owner a saint's place."""
    noun = m["noun"]
    if is_participle(noun) or _finite_verb(noun) or _SAINTS_PLACE.match(m["name"]):
        return m.group(0)
    return f"{m['prep']} the {noun} of {m['name']}"


def _inner_possessive(m: re.Match[str]) -> str:
    """ "by X's [adj] N <verb>" → "by the [adj] N of X <verb>" (see :data:`_INNER_POSSESSIVE`);
    the match unchanged when its words are no noun phrase closed by a verb or function word."""
    words = m["np"].split()
    rest = m["rest"]
    # In a do-question the bare verb may follow the noun: "did … X's son-in-law employ".
    do_verb = _DO_AUX.search(m.string, 0, m.start()) is not None
    after = rest.strip(" ?.!,").split(" ", 1)[0]
    if len(words) == 2 and (
        is_participle(words[1])
        or words[1] in _FUNCTION
        or (do_verb and (not after or after in _FUNCTION))
    ):
        # "X's husband shot": the noun is one word, the second the verb after it
        rest = f" {words[1]}{rest}"
        words = words[:1]
    if any(is_participle(w) or w in _FUNCTION for w in words) or _SAINTS_PLACE.match(m["name"]):
        return m.group(0)
    after = rest.strip(" ?.!,").split(" ", 1)[0]
    if after and not (is_participle(after) or after in _FUNCTION or do_verb):
        return m.group(0)  # "X's record label deal": the noun phrase runs on
    return f"{m['prep']} the {' '.join(words)} of {m['name']}{rest}"


_TITLED_NAME = re.compile(
    r"\bthe\s+(?:[A-Z][\w'’\-]*\s+){1,3}(?P<role>[a-z][a-z\-]+)\s+"
    r"(?P<name>[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)+)"
)
_BEHIND = re.compile(
    r"(?P<np>\bthe\s+(?:[a-z][\w\-]*\s+)?(?P<noun>[a-z][\w\-]*))\s+behind\s+(?=the\s|[A-Z])"
)
# A fronted prepositional phrase of time before a wh-question: "Since 2005, who has been …".
_FRONTED_PP = re.compile(
    r"^(?P<pp>(?:since|in|by|after|before|during|until|as\s+of|from|between)\s+[^,]{1,40}?),\s*"
    r"(?P<q>(?:who|whom|whose|what|which|where)\b.+)$",
    re.IGNORECASE,
)


_ONE_PLACE = re.compile(
    r"\b(?P<prep>in|at|from|of)\s+(?:one|a\s+single)\s+(?P<noun>[a-z]+)(?=\s*[?？]?$)"
)


_ZH_WH_FIRST_COPULA = re.compile(
    rf"^(?P<wh>哪(?:一)?(?:{ZH_CLASSIFIERS})[{HAN}]{{1,4}}?)是(?P<x>[^，,？?]+)的(?P<m>[{HAN}]{{1,4}})[？?]?$"
)


def _fronted_phrase(q: str) -> tuple[str, str] | None:
    """ "Since 2005, who has been the head of X" → ("since 2005", "Who has been the head of
    X"): a fronted phrase without a verb of its own, and the question it frames (a fronted
    clause, "After X was built, …", is left to :func:`_en_fronted`; a quantity or a date
    asked "In 1870, how many …" keeps its time phrase in front, where the reader dates it)."""
    m = _FRONTED_PP.match(q)
    if m is None or any(
        w.lower() in AUXILIARIES or _finite_verb(w.lower()) for w in m["pp"].split()[1:]
    ):
        return None
    if _EN_BETWEEN.match(q) is not None and comparison_order(m["q"]) is not None:
        return None  # "Between A and B, which is older?": the options, not a frame
    rest = m["q"].rstrip(" ?？")
    return f"{m['pp'][0].lower()}{m['pp'][1:]}", f"{rest[0].upper()}{rest[1:]}"


_OWNER_WORDS = frozenset(["his", "her", "its", "their", "my", "your", "our"])
# The object of a noun phrase's last preposition, closing it, without an article.
_LOWER_NAME_TAIL = re.compile(
    r"\b(?:of|behind|at|for|by|from|in|on|with)\s+(?P<name>[a-z][\w'\-]*(?:\s+[a-z][\w'\-]*){0,3})"
    r"\s*\??$"
)


def _unwrapped(q: str) -> str:
    """The question a request wraps, in question order: "Can you tell me where the founder of
    X was born" → "Where was the founder of X born", "Do you know whether X is based in Y" →
    "Is X based in Y", "I need the founding year of X" → "What is the founding year of X";
    "What's" is "What is". Any other question is returned as it is."""
    q = _CONTRACTED_WH.sub(lambda m: f"{m.group(1)} is", q)
    np = _REQUEST_NP.match(q)
    if np is not None:
        return f"What is {np['np']}"
    bare = _BARE_NP.match(q)
    if (
        bare is not None
        and bare["noun"].lower() not in _TAG_AUX
        and head_noun_type(bare["noun"].lower()) != "NAME"
        # "founder of X — where was she born?": a topic and a question about it, no noun
        # phrase alone
        and not _TOPIC_THEN_WH.search(bare["rest"])
    ):
        # "Headcount at Tamberlyn Films?", "founder of X", "2023 revenue of X": a noun phrase
        # alone asks its value.
        rest = bare["rest"]
        if not any(c.isupper() for c in q):
            # "founder of the studio behind thimble kings", typed in lower case: the words
            # after the last preposition, with no article or function word, are the name
            tail = _LOWER_NAME_TAIL.search(rest)
            if tail is not None and not any(
                w in _FUNCTION or _finite_verb(w) for w in tail["name"].split()
            ):
                name = " ".join(w.capitalize() for w in tail["name"].split())
                rest = f"{rest[: tail.start('name')]}{name}"
        return f"What is the {bare['year'] or ''}{bare['noun'].lower()} {rest}"
    m = _REQUEST.match(q)
    if m is None:
        return q
    wh, rest = m["wh"].lower(), m["rest"].strip().rstrip(".!")
    if wh in ("whether", "if"):
        return _inverted(re.sub(r"\s+or\s+not$", "", rest)) or q
    # The wh-phrase: the wh-word with up to two words after it ("which company", "how many
    # staff"). A verb right after it makes it the subject ("who founded X", "which company
    # bought X"); a subject after it puts the clause in statement order ("where X was born").
    words = rest.split()
    for n in range(min(3, len(words)) + 1):
        nxt = words[n] if n < len(words) else ""
        low = nxt.lower()
        if not nxt or low in _TAG_AUX or _finite_verb(low) or low in IRREGULAR_PAST:
            return f"{wh.capitalize()} {rest}"
        if n == 0 and wh == "who" and nxt.islower() and low not in _DETERMINERS | _OWNER_WORDS:
            # "who currently runs X", "who owns X": "who" determines no noun, so a lower-case
            # word after it is its verb (or an adverb before it)
            return f"Who {rest}"
        if nxt[0].isupper() or low in ("the", "a", "an", "his", "her", "its", "their"):
            inverted = _inverted(" ".join(words[n:]))
            if inverted is None:
                return q
            head = " ".join(words[:n])
            return (
                f"{wh.capitalize()} {head + ' ' if head else ''}{inverted[0].lower()}{inverted[1:]}"
            )
    return q


_CLOSING_COPULA_WH = re.compile(
    r"^(?P<s>(?:The\s|[A-Z])[^?]*?)\s+(?P<be>is|was|are|were)\s+(?P<wh>whom|who|what)\s*\??$"
)
_REDUCED_SUBJECT = re.compile(r"^The\s+(?:[a-z][\w\-]*\s+){0,2}?[a-z][\w\-]*\s+(?P<part>[a-z]+)\s")
_AMOUNT_OF = re.compile(
    r"^(?:what|which)\s+(?:amount|quantity|volume|tonnage|weight)\s+of\s+(?=(?P<noun>[A-Za-z]+))",
    re.IGNORECASE,
)
_SUM_PAID = re.compile(
    r"^(?:what|which)\s+(?:was|is)\s+the\s+(?:sum|amount|price|fee)\s+(?:that\s+)?"
    r"(?P<s>(?:the\s+)?[A-Z#][^?]*?)\s+(?P<verb>paid|spent|charged|received|raised|earned)"
    r"\b(?P<rest>[^?]*)\??$",
    re.IGNORECASE,
)
_BARE_OF_PAST = {
    "paid": "pay", "spent": "spend", "charged": "charge", "received": "receive",
    "raised": "raise", "earned": "earn",
}  # fmt: skip
_NUMBER_OF = re.compile(
    r"^(?:(?:what|which)\s+(?:is|was|were|are)\s+|(?:please\s+)?(?:give|state|tell\s+me|find|"
    r"say)\s+)the\s+(?:total\s+)?number\s+of\s+(?P<noun>[a-z][\w\-]*s)\s+(?:that\s+|which\s+)?",
    re.IGNORECASE,
)
# A generation word after a person's name is part of the name ("Orm Vell junior",
# "Ada Moe the younger"): written capitalised, it stays with the name in every step.
_GENERATION_WORD = re.compile(rf"(?P<name>\b[A-Z][\w'-]*)(?P<gen>\s+(?:{GENERATION_WORDS}))\b")


# -- shared building blocks -----------------------------------------------------------------


def _value_plan(
    question: str,
    options: list[str],
    queries: list[str],
    value_type: AnswerType,
    order: Any,
    strategy: str,
    attribute: str = "",
    decompose: bool = True,
) -> Plan:
    """One value step per option (bridges inside an option become their own steps), then a
    decision step that compares the values."""
    steps: list[PlanStep] = []
    value_steps: list[int] = []
    for option, query in zip(options, queries, strict=True):
        final = _decompose(query, steps) if decompose and not _CJK.search(query) else query
        steps.append(
            PlanStep(
                index=len(steps) + 1,
                query=_clean(final),
                needs=f"{attribute or 'value'} of {option}",
                depends_on=_deps(final),
                kind="verify" if value_type == "YESNO" else "lookup",
                answer_type=value_type,
                subject=option,
            )
        )
        value_steps.append(len(steps))
    final_type: AnswerType = "YESNO" if order in ("same", "all", "equal") else "NAME"
    steps.append(
        PlanStep(
            index=len(steps) + 1,
            query=_clean(question),
            needs="decide between the options" if final_type == "NAME" else "decide yes or no",
            depends_on=value_steps,
            kind="compare",
            answer_type=final_type,
        )
    )
    return Plan(
        question=question,
        steps=steps,
        strategy=strategy,
        answer_type=final_type,
        comparison=Comparison(
            options=options, value_steps=value_steps, order=order, attribute=attribute
        ),
    )


def _verify_plan(question: str, claim: str) -> Plan:
    """A yes/no question about one claim: one verification step, yes when it is supported."""
    return Plan(
        question=question,
        steps=[PlanStep(index=1, query=claim, kind="verify", answer_type="YESNO")],
        strategy="yesno",
        answer_type="YESNO",
        comparison=Comparison(options=[], value_steps=[1], order="all"),
    )


def _equal_after(
    question: str,
    steps: list[PlanStep],
    value_query: str,
    name: str,
    kind: AnswerType | None = None,
    options: Sequence[str] = (),
) -> Plan:
    """``steps`` (bridges), one value step ``value_query`` (of type ``kind``, else its
    wh-word's), and yes when its value names ``name``."""
    value = PlanStep(
        index=len(steps) + 1,
        query=_clean(value_query),
        needs="the value the claim names",
        depends_on=_deps(value_query),
        answer_type=kind or answer_type(value_query),
    )
    decide = PlanStep(
        index=len(steps) + 2,
        query=_clean(question),
        needs="decide yes or no",
        depends_on=[value.index],
        kind="compare",
        answer_type="YESNO",
    )
    comparison = Comparison(
        options=list(options), value_steps=[value.index], order="equal", threshold=name
    )
    return Plan(
        question=question,
        steps=[*steps, value, decide],
        strategy="equal-yesno",
        answer_type="YESNO",
        comparison=comparison,
    )


def _equal_plan(
    question: str, options: list[str], queries: list[str], kind: AnswerType, name: str, attr: str
) -> Plan:
    """Yes when every query's answer names ``name``: "Is X the birthplace of both A and B?",
    "X是不是Y创办的" (who founded X, and is it Y)."""
    plan = _value_plan(question, options, queries, kind, "equal", "equal-yesno", attr)
    assert plan.comparison is not None
    comparison = plan.comparison.model_copy(update={"threshold": name})
    return plan.model_copy(update={"comparison": comparison})


_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\"“'")
# "Is X #n", "Was X #n": the claim says a name is what a bridge finds.
_IDENTITY_CLAIM = re.compile(r"^(?i:is|was|are|were)\s+(?P<x>[A-Z0-9\"“][^#]*?)\s+#(?P<n>\d+)$")


def _verify_after(question: str, steps: list[PlanStep], claim: str) -> Plan:
    """A yes/no question whose claim is about the entities the bridge ``steps`` find: the
    steps, then one verification of ``claim`` (``#n`` for their answers). A claim that a name
    is what the last bridge found ("Is Varn the birthplace of Ada Moe?") compares the two."""
    ident = _IDENTITY_CLAIM.match(claim)
    if (
        ident is not None
        and int(ident["n"]) == len(steps)
        and steps
        and ident["x"].split()[-1][:1] in _NAME_START  # "Was Ada Moe one of #1": no identity
    ):
        last = steps[-1]
        return _equal_after(
            question, steps[:-1], last.query, _clean(ident["x"]), kind=last.answer_type
        )
    steps.append(
        PlanStep(
            index=len(steps) + 1,
            query=claim,
            kind="verify",
            depends_on=_deps(claim),
            answer_type="YESNO",
        )
    )
    return Plan(
        question=question,
        steps=steps,
        strategy="yesno",
        answer_type="YESNO",
        comparison=Comparison(options=[], value_steps=[len(steps)], order="all"),
    )


# Lower-case particles that open a name ("de Vries & Co"): they stay with it.
_NAME_PARTICLES = r"(?:de|del|della|van|von|du|da|di|der|den|ten|ter)"


def _strip_option(option: str) -> str:
    """ "the physicist Ada Berg" → "Ada Berg": descriptors before a name go; a generation word
    stays ("the elder Ada Berg" is not her daughter of the same name)."""
    option = option.strip()
    if re.match(r"(?i)the\s+(?:elder|younger)\s+[A-Z]", option):
        return _clean(option)
    stripped = re.sub(
        r"^(?:(?:the|a|an)\s+)?(?:(?!of\b)(?!" + _NAME_PARTICLES + r"\s+[A-Z])[a-z][\w\-]*\s+){0,3}"
        r"(?=[A-Z0-9\"'“]|" + _NAME_PARTICLES + r"\s+[A-Z])",
        "",
        option,
    )
    clause = re.match(rf"(?:{_NAME})\s+(?P<verb>[a-z]+)\b", stripped)
    if stripped != option and clause is not None and _finite_verb(clause["verb"]):
        # "the clinic Marlowgate bought in 2012": a clause follows the name, which is its
        # subject, not the option; the noun before it is what the option names
        return _clean(option)
    return _clean(stripped or option)


# -- English ----------------------------------------------------------------------------------

# An option is a name: a title may hold a subtitle after a colon ("Harbor Days: The Return")
# and, last in the question, a comma before a capitalised word ("Die Laughing, Marten").
# "or" between options is lower-case: "Harbor Or Bust" is one title.
_EN_OPTION = r"(?:[^,:;]|:(?=\s+[A-Z0-9]))+?"
_EN_LAST_OPTION = r"(?:[^,:;]|[:,](?=\s+[A-Z0-9]))+?"
_EN_OPTIONS_AFTER = re.compile(
    r"^(?P<pre>.+?)\s*(?:[,:;]|\s[-–—]+)\s*(?:the\s+(?=\w+\s+[A-Z]))?"
    rf"(?P<a>{_EN_OPTION})\s*,?\s+(?-i:or)\s+(?P<b>{_EN_LAST_OPTION})$",
    re.IGNORECASE,
)
_EN_BETWEEN = re.compile(
    r"^between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*,\s*(?P<pre>.+)$", re.IGNORECASE
)
# "Who was born first out of A and B", "… between A and B", "… among A and B".
_EN_AMONG = re.compile(
    r"^(?P<pre>.+?)\s+(?:out\s+of|between|among)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)$",
    re.IGNORECASE,
)
# "Of A and B, which was founded first?", "Of the two towns, A and B, which is older?"
_EN_OF_PAIR = re.compile(
    r"^(?:of|out\s+of)\s+(?:the\s+two(?:\s+[a-z]+)?\s*,\s*)?(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*,\s*"
    r"(?P<pre>(?:which|who|what)\b.+)$",
    re.IGNORECASE,
)
# "A or B: which …?", "A and B — which one …?": the options listed before the question.
_EN_OPTIONS_FIRST = re.compile(
    rf"^(?P<a>{_EN_OPTION})\s+(?-i:or|and)\s+(?P<b>{_EN_OPTION})\s*(?:[:;,]|\s[-–—]+)\s*"
    r"(?P<pre>(?:which|who|what)\b.+)$",
    re.IGNORECASE,
)
_EN_OPTIONS_INSIDE = re.compile(
    r"^(?P<aux>(?i:did|was|is|were|does|do|has|had))\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s+"
    r"(?P<rest>(?:[a-z]+\b\s*){1,5})$"
)
_EN_WHICH_OF = re.compile(
    r"^(?P<wh>which|who)\s+of\s+(?:the\s+two\s*,?\s*)?(?P<a>[A-Z].*?)\s+and\s+(?P<b>[A-Z].*?)\s+"
    r"(?P<pred>(?:is|was|were|are|did|does|has|had|came|went|[a-z]+ed)\b.*)$",
    re.IGNORECASE,
)
_HAS_THE_R_WHO = re.compile(
    r"^(?:which|what)\s+(?P<noun>[a-z]+(?:\s+[a-z]+)?)\s+(?:has|had|have)\s+(?:the|a|an)\s+"
    r"(?P<role>[a-z]+(?:\s+(?!who\b|that\b|which\b|whose\b)[a-z]+)?)\s+(?:who|that|which|whose)?\s*"
    r"(?P<pred>.+)$",
    re.IGNORECASE,
)
_WHOSE_R = re.compile(
    r"^(?:which|what)\s+(?P<noun>[a-z]+(?:\s+[a-z]+)?)\s+whose\s+(?P<role>[a-z]+(?:\s+[a-z]+)?)\s+"
    r"(?P<pred>(?:was|is|were|did|had|has|died|born)\b.*)$",
    re.IGNORECASE,
)
_COMPARATIVE_WORDS = re.compile(
    r"\b(?:first|earlier|earliest|later|latest|older|oldest|younger|youngest|more recently|"
    r"more|most|less|least|fewer|larger|largest|bigger|biggest|smaller|smallest|longer|longest|"
    r"shorter|shortest|higher|highest|lower|lowest|taller|tallest|greater|sooner|last|wider|"
    r"widest|deeper|deepest|heavier|heaviest)\b",
    re.IGNORECASE,
)
_WH_LEAD = re.compile(
    r"^(?:which|what|who|whom)(?:\s+(?:one|person|of\s+(?:the|these|them|the\s+two)))?\b\s*",
    re.IGNORECASE,
)


_AGE = re.compile(r"\b(?:older|oldest|younger|youngest|elder|eldest)\b", re.IGNORECASE)
# "… the bigger city by population", "… larger in terms of area": what a comparative measures.
_EN_MEASURED_BY = re.compile(
    r"\s(?:by|in\s+terms\s+of)\s+(?:the\s+|its\s+|their\s+)?(?P<noun>[a-z]+(?:\s+[a-z]+)?)$",
    re.IGNORECASE,
)


def _en_predicate(pre: str) -> str:
    """The predicate of a comparison without its wh-lead and comparative: "Who was born
    earlier" → "was born"; "Which film came out first" → "came out"."""
    pred = _WH_LEAD.sub("", pre.strip())
    pred = re.sub(r"^(?:[a-z]+\s+)?(?=(?:is|was|were|are|did|does|has|had|came|come)\b)", "", pred)
    words = pred.split()
    if len(words) > 2 and not _finite_verb(words[0]) and _finite_verb(words[1]):
        pred = " ".join(words[1:])  # "Which company paid more": the noun only classes them
    pred = _COMPARATIVE_WORDS.sub("", pred)
    pred = re.sub(r"\bthan\s+(?:the\s+)?other(?:s|\s+one)?\b", "", pred)  # "older than the other"
    pred = re.sub(r"\b(?:than|the|of the two)\b\s*$", "", pred.strip())
    return _clean(pred)


def _copula_only(pred: str) -> str:
    """ "is the business" → "is": in "Which is the older business" or "… the longer river"
    the noun after the comparative only classes the options."""
    return re.sub(r"^(is|was|are|were)\s+(?:the|an?)\s+[a-z][\w\-]*$", r"\1", pred.strip())


_VERB_THE_AMOUNT = re.compile(r"^(?P<verb>[a-z]+)\s+(?:the|a|an)\s+(?P<noun>[a-z]+)\b(?P<rest>.*)$")
_VERB_COUNTED = re.compile(
    r"^(?P<verb>[a-z]+)\s+(?P<noun>[a-z]+s|people|men|women|children)\b(?P<rest>.*)$"
)


def _en_value_query(option: str, pred: str, kind: AnswerType) -> str:
    if re.fullmatch(r"(?:lived|live|lives|did\s+live|has\s+lived)", pred.strip()):
        return _age_at_death_query(option)  # "Who lived longer": the age at death
    wh = {"DATE": "When", "NUMBER": "How many"}.get(kind, "What")
    have = re.match(r"^(has|have|had)\s+(.+)$", pred, re.IGNORECASE)
    if have and kind == "NUMBER":  # "has more inhabitants" → "How many inhabitants does X have"
        aux = "did" if have.group(1).lower() == "had" else "does"
        return _clean(f"How many {have.group(2)} {aux} {option} have")
    m = re.match(r"^(is|was|were|are|did|does|do|has|had)\s+(.*)$", pred, re.IGNORECASE)
    if m:
        return _clean(f"{wh} {m.group(1)} {option} {m.group(2)}")
    paid = _VERB_THE_AMOUNT.match(pred)
    if (
        kind == "NUMBER"
        and paid is not None
        and _finite_verb(paid["verb"])
        and head_noun_type(paid["noun"]) == "NUMBER"
    ):
        # "Which fetched the higher price when it was sold": how much each fetched (the noun
        # of amount only names the value; as an object it reads as a thing to find first)
        return _clean(f"How much {option} {paid['verb']}{paid['rest']}")
    counted = _VERB_COUNTED.match(pred)
    if kind == "NUMBER" and counted is not None and _finite_verb(counted["verb"]):
        # "Which sold more copies": how many copies each sold (the counted noun is what
        # "how many" asks, the option the verb's subject)
        return _clean(f"How many {counted['noun']} {option} {counted['verb']}{counted['rest']}")
    return _clean(f"{wh} {option} {pred}")


def _age_predicate(pred: str, pre: str, kind: AnswerType, person: bool) -> str:
    """An age comparison with no verb of its own ("Who is older", "the director who is
    older") compares births, or foundings when the options are no people ("which is older")."""
    if kind == "DATE" and _copula_only(pred).lower() in _BE | {""} and _AGE.search(pre):
        return "was born" if person else "was founded"
    return pred


def _en_compare(q: str, question: str) -> Plan | None:
    m = _EN_BETWEEN.match(q) or _EN_OF_PAIR.match(q) or _EN_OPTIONS_FIRST.match(q)
    which_of = _EN_WHICH_OF.match(q) if m is None else None
    if which_of is not None:
        # "Which of A and B was born first?": as "Which was born first, A or B?"
        m = _EN_OPTIONS_AFTER.match(
            f"{which_of['wh']} {which_of['pred']}, {which_of['a'].strip(' ,')} or "
            f"{which_of['b'].strip(' ,')}"
        )
    if m:
        # a first option opening the question is capitalised there: "The X Mill or …"
        pre, a, b = m["pre"], re.sub(r"^The\s+", "the ", m["a"]), m["b"]
    else:
        m = _EN_OPTIONS_AFTER.match(q) or _EN_AMONG.match(q)
        if m is not None:
            pre, a, b = m["pre"], m["a"], m["b"]
        else:
            m = _EN_OPTIONS_INSIDE.match(q)
            if m is None:
                return None
            pre, a, b = f"who {m['aux'].lower()} {m['rest']}", m["a"], m["b"]
    if is_yes_no(pre) and not _EN_OPTIONS_INSIDE.match(q):
        return None
    decided = comparison_order(pre)
    if decided is None or len(a.split()) > 14 or len(b.split()) > 14:
        return None
    order, kind = decided
    options = [_strip_option(a), _strip_option(b)]
    rel = _HAS_THE_R_WHO.match(pre) or _WHOSE_R.match(pre)
    if rel is not None:
        # "Which film has the director who was born later, X or Y?": the value belongs to the
        # option's director (a bridge per option), the answer is the option itself.
        role, pred = rel["role"], _en_predicate(rel["pred"])
        role_words = role.split()
        if len(role_words) > 1 and (is_participle(role_words[-1]) or role_words[-1] in _FUNCTION):
            # "has the director born later": the participle is the predicate, not the role
            # (a reduced passive: "born" → "was born"); "whose director was born": so is "was".
            verb = role_words[-1]
            role = role_words[0]
            pred = _clean(f"{'' if verb in _FUNCTION else 'was'} {verb} {pred}")
        pred = _age_predicate(pred, pre, kind, person=True)  # "the director who is older"
        queries = [_en_value_query(f"the {role} of {o}", pred, kind) for o in options]
    else:
        person = re.match(r"\s*who\b", pre, re.IGNORECASE) is not None
        pred = _age_predicate(_en_predicate(pre), pre, kind, person)
        measure = _MEASURE_COMPARATIVE.search(pre)
        by = _EN_MEASURED_BY.search(pre)
        if kind == "NUMBER" and by is not None:
            # "Which is the bigger city by population?": the noun after "by" is the quantity.
            queries = [_clean(f"What is the {by['noun']} of {o}") for o in options]
            pred = by["noun"]
        elif kind == "NUMBER" and _copula_only(pred).lower() in _BE and measure is not None:
            # "Which lighthouse is taller, A or B?": each option's measure, "How tall is A".
            adj = _COMPARATIVE_ADJ[measure.group(0).lower()]
            be = _copula_only(pred).lower()
            queries = [_clean(f"How {adj} {be} {o}") for o in options]
        else:
            queries = [_en_value_query(o, pred, kind) for o in options]
    return _value_plan(question, options, queries, kind, order, "compare", pred)


_EN_BOTH = re.compile(
    r"^(?P<aux>(?i:are|were|is|was|do|did|does|have|had|has))\s+(?:both\s+)?(?P<a>.+?)\s+and\s+"
    r"(?P<b>.+?)\s+(?:both\s+)?(?P<rest>(?:from|of|in|the|a|an|born|located|based|same|"
    r"both|[a-z]+ed|[a-z]+s|have|has|had|share|come|"
    # any verb whose phrase asks for "the same" thing: "study at the same university"
    r"[a-z]+(?=\s+(?:[a-z]+\s+){0,2}the\s+same\b))\b.*)$"
)
# "both" before a coordination closing a yes/no question distributes what precedes it over
# the two: "Did X play for both A and B?" asks "Did X play for A" and "Did X play for B";
# "Was X both a poet and a painter?", "Is X the birthplace of both A and B?" alike.
_EN_BOTH_OBJECT = re.compile(
    r"^(?P<head>(?i:are|were|is|was|do|did|does|have|had|has)\s+\S.*?)\s+both\s+"
    r"(?P<a>[^,]+?)\s+and\s+(?P<b>[^,]+?)$"
)
# "Is X the birthplace of" before "both A and B": the name and the noun each option is asked.
_EN_IS_THE_N_OF = re.compile(
    r"^(?i:is|was|are|were)\s+(?P<x>[A-Z0-9\"“].*?)\s+the\s+(?P<np>[a-z][\w\-]*"
    r"(?:\s+[a-z][\w\-]*){0,2})\s+of$"
)
# "born in Varn", "born in Bergen, Norway": a named place, not a year.
_BORN_IN = re.compile(r"(?:both\s+)?born\s+in\s+(?P<place>[A-Z][^?]*?)")
# (the attribute's second word is a noun, never a preposition: "the same teacher at film school")
_EN_SAME = re.compile(
    r"\bsame\s+(?P<attr>[a-z]+(?:\s+(?!(?:at|in|on|of|for|from|with|as|by|to|during)\b)[a-z]+)?)",
    re.IGNORECASE,
)


# "Did A come from the same village as B?", "Was A born in the same town as B?": one option
# before the verb phrase, the other after "as".
_EN_SAME_AS = re.compile(
    r"^(?P<aux>(?i:are|were|is|was|do|did|does|have|had|has))\s+(?P<a>.+?)\s+"
    r"(?P<vp>(?:[a-z]+\s+){1,3}?)the\s+same\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+as\s+"
    r"(?P<b>\S.*?)$"
)
_SINGULAR_AUX = {"were": "was", "are": "is", "do": "does", "have": "has"}


def _same_value_query(aux: str, option: str, verb_phrase: str, attr: str) -> str:
    """One option's question for "Were A and B born in the same town?": the verb phrase before
    "the same" asks it of the option ("In which town was A born"); without one, the attribute
    itself ("Are A and B of the same nationality?" → "What is the nationality of A")."""
    words = verb_phrase.split()
    if words and words[-1].lower() == "the":
        words = words[:-1]
    prep = words[-1] if words and words[-1].lower() in STRANDED_PARTICLES else ""
    verb = words[:-1] if prep else words
    if not verb or any(w.lower() in _FUNCTION for w in verb):
        return f"What is the {attr} of {option}"
    aux = _SINGULAR_AUX.get(aux.lower(), aux.lower())
    lead = f"{prep.capitalize()} which" if prep else "Which"
    return _clean(f"{lead} {attr} {aux} {option} {' '.join(verb)}")


# "Did the same architect design both A and B?": the same agent of one verb for two objects.
_EN_SAME_SUBJECT = re.compile(
    r"^(?P<aux>(?i:did|does|do))\s+(?:the\s+)?same\s+(?P<attr>[a-z]+)\s+(?P<vp>[a-z]+)\s+"
    r"(?:both\s+)?(?P<a>\S.*?)\s+and\s+(?P<b>\S.*?)\s*\??$"
)


# "Did A share a birthplace with B?", "Do A and B share a surname?": sharing a N is having the
# same N.
_EN_SHARE = re.compile(
    r"^(?P<lead>(?i:did|do|does)\s+.+?)\s+share\s+(?:a|an|one|the\s+same)\s+"
    r"(?P<attr>[a-z]+(?:\s+[a-z]+)?)(?P<with>\s+with\s+\S.*?)?\s*\??$"
)


def _en_yes_no(q: str, question: str) -> Plan | None:
    share = _EN_SHARE.match(q)
    if share is not None and (share["with"] or re.search(r"\sand\s", share["lead"])):
        with_b = f" as {share['with'].split(None, 1)[1]}" if share["with"] else ""
        q = f"{share['lead']} have the same {share['attr']}{with_b}"
    if not is_yes_no(q):
        # "At the 1901 census, did A have more N than B?": a yes/no question after a phrase.
        led = re.match(r"^[^,]+,\s+(.+)$", q)
        return _en_two_quantities(q, question) if led and is_yes_no(led.group(1)) else None
    subj = _EN_SAME_SUBJECT.match(q)
    if subj is not None and names_agent(subj["attr"]):
        # "Did the same contractor build both A and B?": who did it for each, the same one?
        a, b, attr = _strip_option(subj["a"]), _strip_option(subj["b"]), subj["attr"]
        aux = subj["aux"].lower()
        queries = [_clean(f"Which {attr} {aux} {subj['vp']} {o}") for o in (a, b)]
        return _value_plan(
            question, [a, b], queries, head_noun_type(attr), "same", "same-yesno", attr
        )
    both = _EN_BOTH_OBJECT.match(q)
    if both is not None:
        options = [_strip_option(both["a"]), _strip_option(both["b"])]
        head = both["head"]
        ident = _EN_IS_THE_N_OF.match(head)
        if ident is not None:
            # "Is X the birthplace of both A and B?": each one's birthplace, and is it X.
            noun = ident["np"]
            queries = [_clean(f"{noun} of {both[k].strip()}") for k in ("a", "b")]
            kind = head_noun_type(noun)
            return _equal_plan(question, options, queries, kind, _clean(ident["x"]), noun)
        queries = [_clean(f"{head} {both[k].strip()}") for k in ("a", "b")]
        return _value_plan(question, options, queries, "YESNO", "all", "both-yesno", head)
    m = _EN_BOTH.match(q)
    if m is not None:
        a, b, rest = _strip_option(m["a"]), _strip_option(m["b"]), _clean(m["rest"])
        born = _BORN_IN.fullmatch(rest)
        if born is not None:  # "Were A and B both born in X?": where each was born, is it X
            queries = [f"Where was {o} born" for o in (a, b)]
            return _equal_plan(question, [a, b], queries, "LOCATION", born["place"], "born")
        same = _EN_SAME.search(rest)
        if same is not None:
            attr = same["attr"]
            kind = head_noun_type(attr)
            if kind == "NAME" and re.search(r"national|citizen|country|origin|from", attr + rest):
                kind = "LOCATION"
            queries = [_same_value_query(m["aux"], o, rest[: same.start()], attr) for o in (a, b)]
            return _value_plan(question, [a, b], queries, kind, "same", "same-yesno", attr)
        rest = re.sub(r"^both\s+", "", rest)
        queries = [_clean(f"{m['aux']} {o} {rest}") for o in (a, b)]
        return _value_plan(question, [a, b], queries, "YESNO", "all", "both-yesno", rest, False)
    m = _EN_SAME_AS.match(q)
    if m is not None:  # "Did A come from the same village as B?": as "Did A and B come from…"
        a, b, attr = _strip_option(m["a"]), _strip_option(m["b"]), m["attr"]
        owned = re.match(r"(?i)(?:his|her|its|their)\s+(?P<noun>\S.*)$", m["b"].strip())
        if owned is not None:  # "… as his father": the father of the first option
            b = f"the {owned['noun']} of {a}"
        kind = head_noun_type(attr)
        queries = [_same_value_query(m["aux"], o, m["vp"], attr) for o in (a, b)]
        return _value_plan(question, [a, b], queries, kind, "same", "same-yesno", attr)
    threshold = _en_threshold(q, question)
    if threshold is not None:
        return threshold
    single = (
        re.match(r"^(?:was|is)\s+(?P<s>.+?)\s+(?P<born>(?:both\s+)?born\s+in\s+.+)$", q, re.I)
        if _EN_SOMEONE.match(q) is None
        else None
    )
    born = _BORN_IN.fullmatch(single["born"]) if single is not None else None
    if single is not None and born is not None:
        # "Was the founder of X born in Varn?": where they were born (after any bridges), and
        # is it Varn.
        steps: list[PlanStep] = []
        final = _decompose(f"Where was {single['s']} born", steps)
        return _equal_after(question, steps, final, born["place"])
    return _en_verify(q, question)  # "Is A P?": verification, after any bridges inside it


# "Is X more than 200 kilometres long?", "Was X longer than 200 km?", "Does X have fewer than
# 300 employees?", "Was X founded before 1950?": one value step and a threshold.
_COMPARATIVE_ADJ = {
    "longer": "long",
    "shorter": "long",
    "taller": "tall",
    "higher": "high",
    "lower": "high",
    "older": "old",
    "younger": "old",
    "larger": "large",
    "bigger": "big",
    "smaller": "large",
    "deeper": "deep",
    "wider": "wide",
    "heavier": "heavy",
}
_MEASURE_ADJ = frozenset(_COMPARATIVE_ADJ.values())
_MEASURE_COMPARATIVE = re.compile(rf"\b(?:{'|'.join(_COMPARATIVE_ADJ)})\b", re.IGNORECASE)
_EN_THRESHOLD = re.compile(
    r"^(?P<aux>is|was|are|were)\s+(?P<subj>.+?)\s+(?:(?P<more>more|less|fewer|over|under)"
    r"(?:\s+than)?|(?P<adjer>[a-z]+er)\s+than|at\s+(?P<least>least|most))\s+"
    r"(?P<num>\d[\d,.]*(?:\s+(?:million|billion|thousand))?)\s*(?P<unit>[a-z]+)?\s*"
    r"(?P<adj>long|tall|high|old|wide|deep|large|big|heavy)?\s*$",
    re.IGNORECASE,
)
_EN_HAVE_THRESHOLD = re.compile(
    r"^(?P<aux>does|did|do|has|had)\s+(?P<subj>.+?)\s+(?:have\s+|has\s+|had\s+)?"
    r"(?P<more>more|fewer|less|over|under)(?:\s+than)?\s+(?P<num>\d[\d,.]*"
    r"(?:\s+(?:million|billion|thousand))?)\s+(?P<noun>[a-z][a-z\s]*?)\s*$",
    re.IGNORECASE,
)
_EN_DATE_THRESHOLD = re.compile(
    r"^(?P<aux>is|was|are|were|did|does)\s+(?P<subj>.+?)\s+(?P<verb>[a-z]+(?:ed|en|t|n))?\s*"
    r"(?P<rel>before|after|earlier\s+than|later\s+than|prior\s+to)\s+(?P<when>.+?)\s*$",
    re.IGNORECASE,
)
_LESS = re.compile(r"^(?:less|fewer|under|most|shorter|lower|younger|smaller|before|earlier|prior)")


def _threshold_plan(
    question: str, subject: str, query: str, kind: AnswerType, order: Any, limit: str
) -> Plan:
    plan = _value_plan(question, [subject], [query], kind, order, "threshold-yesno", query)
    assert plan.comparison is not None
    steps = [
        s.model_copy(update={"answer_type": "YESNO"}) if s.kind == "compare" else s
        for s in plan.steps
    ]
    comparison = plan.comparison.model_copy(update={"threshold": limit})
    return plan.model_copy(
        update={"steps": steps, "answer_type": "YESNO", "comparison": comparison}
    )


def _en_threshold(q: str, question: str) -> Plan | None:
    m = _EN_THRESHOLD.match(q)
    if m is not None and (m["adj"] or m["adjer"] in _COMPARATIVE_ADJ or m["unit"]):
        word = (m["more"] or m["adjer"] or m["least"] or "").lower()
        order = "lt" if _LESS.match(word) else "gt"
        adj = m["adj"] or _COMPARATIVE_ADJ.get((m["adjer"] or "").lower())
        subj = m["subj"]
        aux = m["aux"].lower()
        query = f"How {adj} {aux} {subj}" if adj else f"How many {m['unit']} {aux} {subj}"
        return _threshold_plan(question, subj, query, "NUMBER", order, m["num"])
    m = _EN_HAVE_THRESHOLD.match(q)
    if m is not None:
        order = "lt" if _LESS.match(m["more"].lower()) else "gt"
        subj, verb = m["subj"], "have"
        last = subj.split()[-1]
        if m["aux"].lower() in ("do", "does", "did") and len(subj.split()) > 1 and last.islower():
            # "Does X make more than 10,000 barrels": the verb that counts them ("have" is
            # read with the number)
            subj, verb = subj[: -len(last)].rstrip(), last
        query = f"How many {m['noun']} {m['aux'].lower()} {subj} {verb}"
        return _threshold_plan(question, subj, query, "NUMBER", order, m["num"])
    m = _EN_DATE_THRESHOLD.match(q)
    if m is not None and DATE_RX.search(m["when"]) and m["verb"]:
        order = "lt" if _LESS.match(m["rel"].lower()) else "gt"
        query = f"When {m['aux'].lower()} {m['subj']} {m['verb']}"
        return _threshold_plan(question, m["subj"], query, "DATE", order, m["when"])
    two = _en_two_quantities(q, question)
    if two is not None:
        return two
    m = _EN_ALIVE.match(q)
    if m is not None:
        # "Was A (still) alive to see B open?", "… alive when B opened?": A died after it.
        subj, event = m["subj"], _clean(m["event"])
        seen = _EN_SEEN_EVENT.match(event) if m["see"] else None
        if seen is not None:
            option, other_query = _strip_option(seen["np"]), f"When did {event}"
        elif (passive := _EN_PASSIVE_CLAUSE.match(event)) is not None:
            option = _strip_option(passive["np"])
            other_query = f"When {passive['be'].lower()} {passive['np']} {passive['verb']}"
        elif (past := _EN_PAST_CLAUSE.match(event)) is not None:
            option, other_query = _strip_option(past["np"]), f"When {event}"
        else:
            return None
        queries = [f"When did {subj} die", other_query]
        return _order_plan(question, [_strip_option(subj), option], queries, "DATE", "gt", "die")
    m = _EN_EVENT_ORDER.match(q)
    if m is not None and m["verb"].lower() in ("named", "called") and m["rel"].lower() == "after":
        return None  # "named after Y" names, it does not date
    phrase = _EN_PHRASE_ORDER.match(q)
    if phrase is not None:
        # "Did X become chief executive before …", "Was X made a partner at Y before …": the
        # verb's object stays with the event; "Was X music director of Y before …": being it
        # dates from becoming it
        aux, subj, when = phrase["aux"].lower(), phrase["subj"], phrase["when"]
        vp = phrase["vp"]
        if aux not in ("did", "does", "do") and not is_participle(phrase["head"]):
            aux, vp = "did", f"become {vp}"
        if DATE_RX.fullmatch(when.strip()):
            order = "lt" if _LESS.match(phrase["rel"].lower()) else "gt"
            return _threshold_plan(question, subj, f"When {aux} {subj} {vp}", "DATE", order, when)
        return _en_event_order(question, aux, subj, vp, phrase["rel"], when)
    if m is not None and (m["aux"].lower() in ("did", "does", "do") or is_participle(m["verb"])):
        aux, subj, verb, rel, when = m["aux"].lower(), m["subj"], m["verb"], m["rel"], m["when"]
        if DATE_RX.fullmatch(when.strip()):
            order = "lt" if _LESS.match(rel.lower()) else "gt"
            return _threshold_plan(question, subj, f"When {aux} {subj} {verb}", "DATE", order, when)
        return _en_event_order(question, aux, subj, verb, rel, when)
    return None


# Two named sides of one quantity: "Did A have more inhabitants than B?", "Is A taller than
# B?", after an optional phrase that dates or qualifies both ("At the 1901 census, …").
_EN_LEAD = r"^(?:(?P<lead>[^,]+),\s+)?"
_EN_HAVE_THAN = re.compile(
    _EN_LEAD + r"(?P<aux>does|did|do|has|had)\s+(?P<a>.+?)\s+(?:have\s+|has\s+|had\s+)?"
    r"(?P<more>more|fewer|less)\s+(?P<noun>[a-z][a-z\s]*?)\s+than\s+(?P<b>.+?)\s*$",
    re.IGNORECASE,
)
# A longer life, said of two people (after _LONGER_LIFE's rewrite): "Did A live longer than B?"
_EN_LIVED_LONGER = re.compile(
    r"^(?:did|does|do)\s+(?P<a>.+?)\s+live\s+longer\s+than\s+(?P<b>.+?)\s*$", re.IGNORECASE
)
# The idioms of a longer life, as "live longer": "reach a greater age", "live to a greater
# age", "die older", "die at a greater age" ("outlive" is no such idiom: it says who died
# later).
_LONGER_LIFE = re.compile(
    r"\b(?:(?:reach|live)(?P<past1>ed|d)?(?:\s+to)?\s+(?:a\s+)?(?:greater|higher|older)\s+age"
    r"|die(?P<past2>d)?\s+(?:at\s+(?:a\s+)?(?:greater|higher|older)\s+age|older))\b",
    re.IGNORECASE,
)


def _longer_life(m: re.Match[str]) -> str:
    """The longer-life idiom ``m`` as "live(d) longer" (see :data:`_LONGER_LIFE`)."""
    return "lived longer" if m["past1"] or m["past2"] else "live longer"


def _age_at_death_query(option: str) -> str:
    """The value step of a longer life: the age at death ("How old was X when X died")."""
    return f"How old was {option} when {option} died"


_EN_ADJ_THAN = re.compile(
    _EN_LEAD
    + r"(?P<aux>is|was|are|were)\s+(?P<a>.+?)\s+(?P<adjer>[a-z]+er)\s+than\s+(?P<b>.+?)\s*$",
    re.IGNORECASE,
)


# "Did A have more than twice as many N as B?": the second side's quantity times a factor.
_EN_TIMES_AS = re.compile(
    _EN_LEAD + r"(?P<aux>does|did|do|has|had)\s+(?P<a>.+?)\s+(?:have\s+|has\s+|had\s+)?"
    r"(?P<more>more|fewer|less)\s+than\s+(?P<factor>twice|thrice|half|(?:two|three|four|five|"
    r"six|seven|eight|nine|ten|\d+(?:\.\d+)?)\s+times)\s+as\s+(?:many|much)\s+"
    r"(?P<noun>[a-z][a-z\s]*?)\s+as\s+(?P<b>.+?)\s*$",
    re.IGNORECASE,
)
# The verbs that say "more than" of their subject ("Did A outnumber B in population in 1871?",
# "Does A exceed B in length?"): one quantity, named after "in", and when it was counted.
_EN_EXCEED = re.compile(
    _EN_LEAD + r"(?P<aux>does|did|do)\s+(?P<a>.+?)\s+(?:outnumber|exceed|surpass|outstrip)\s+"
    r"(?P<b>.+?)\s+in\s+(?P<noun>[a-z][a-z\s]*?)(?:\s+(?P<when>(?:in|at|by|during)\s+.+?))?\s*$",
    re.IGNORECASE,
)
_FACTOR_WORDS = {
    "twice": 2.0, "thrice": 3.0, "half": 0.5, "two": 2.0, "three": 3.0, "four": 4.0,
    "five": 5.0, "six": 6.0, "seven": 7.0, "eight": 8.0, "nine": 9.0, "ten": 10.0,
}  # fmt: skip


_EN_TWO_TIMES = re.compile(
    r"^(?P<aux>did|were|was|do|does)\s+(?:there\s+)?(?P<more>more|fewer|less)\s+"
    r"(?P<noun>[a-z]+(?:\s+[a-z]+)?)(?:\s+(?P<rest>.+?))?\s+in\s+(?P<t1>\d{3,4})\s+than\s+"
    r"(?:in\s+)?(?P<t2>\d{3,4})$",
    re.IGNORECASE,
)
# "Did the N of X fall between T1 and T2?": a verb of change over a span of time.
_RISE_VERBS = ("rise", "grow", "increase", "climb", "go up")
_FALL_VERBS = ("fall", "drop", "decline", "decrease", "shrink", "go down")
_EN_CHANGE_BETWEEN = re.compile(
    r"^(?i:did|has|had|does)\s+(?:the\s+)?(?P<np>.+?)\s+"
    rf"(?P<verb>(?i:{'|'.join(_RISE_VERBS + _FALL_VERBS)}))\s+"
    r"(?i:between|from)\s+(?P<t1>\d{3,4})\s+(?i:and|to)\s+(?P<t2>\d{3,4})$"
)


def _en_two_quantities(q: str, question: str) -> Plan | None:
    """ "Did A have more N than B?" / "Is A longer than B?": each side's quantity, and yes when
    the first is above (below, for fewer/shorter) the second; "more than twice as many N as
    B" sets the bar at twice the second. A number after "than" is a threshold, read before
    this."""
    two = _EN_TWO_TIMES.match(q)
    if two is not None:
        # "Did more choirs compete at X in 1900 than in 1880?": one quantity at two times.
        order = "lt" if _LESS.match(two["more"].lower()) else "gt"
        options = [two["t1"], two["t2"]]
        queries = [_clean(f"How many {two['noun']} {two['rest'] or ''} in {t}") for t in options]
        return _order_plan(question, options, queries, "NUMBER", order, two["noun"])
    change = _EN_CHANGE_BETWEEN.match(q)
    if change is not None:
        # "Did the number of hands at X fall between 1871 and 1901?": the later value against
        # the earlier one.
        verb = change["verb"].lower()
        order = "lt" if verb.startswith(_FALL_VERBS) else "gt"
        options = [change["t2"], change["t1"]]
        noun = _clean(change["np"])
        queries = [_clean(f"What was the {noun} in {t}") for t in options]
        return _order_plan(question, options, queries, "NUMBER", order, noun)
    exceed = _EN_EXCEED.match(q)
    if exceed is not None:
        # The quantity is a noun ("population", "length"): "What was the population of A".
        lead = exceed["lead"] or ""
        when = exceed["when"] or f"{lead[:1].lower()}{lead[1:]}"
        be = "is" if exceed["aux"].lower() in ("does", "do") else "was"
        noun = re.sub(r"^(?:the|its|their)\s+", "", exceed["noun"], flags=re.IGNORECASE)
        options = [_strip_option(exceed["a"]), _strip_option(exceed["b"])]
        queries = [_clean(f"What {be} the {noun} of {o} {when}") for o in options]
        return _order_plan(question, options, queries, "NUMBER", "gt", noun)
    times = _EN_TIMES_AS.match(q)
    if times is not None:
        word = times["factor"].lower().split()[0]
        factor = _FACTOR_WORDS.get(word) or float(word)
        plan = _en_two_quantities(
            f"{times['lead'] + ', ' if times['lead'] else ''}{times['aux']} {times['a']} "
            f"{times['more']} {times['noun']} than {times['b']}",
            question,
        )
        if plan is None or plan.comparison is None:
            return None
        comparison = plan.comparison.model_copy(update={"factor": factor})
        return plan.model_copy(update={"comparison": comparison})
    longer = _EN_LIVED_LONGER.match(q)
    if longer is not None:
        # "Did A live longer than B?": each one's age at death, the first against the second
        options = [_strip_option(longer["a"]), _strip_option(longer["b"])]
        queries = [_age_at_death_query(o) for o in options]
        return _order_plan(question, options, queries, "NUMBER", "gt", "age")
    m = _EN_HAVE_THAN.match(q)
    adj = None
    if m is None:
        m = _EN_ADJ_THAN.match(q)
        adj = _COMPARATIVE_ADJ.get(m["adjer"].lower()) if m is not None else None
        if m is not None and adj == "old" and not m["lead"]:
            return _en_age_than(question, m["a"], m["b"], m["adjer"].lower())
        if adj in (None, "old"):  # older/younger compare dates, not a quantity
            return None
    assert m is not None
    if re.match(r"\d", m["b"]) or not re.search(r"[A-Z]", m["a"] + m["b"]):
        return None
    lead = m["lead"] or ""
    tail = f" {lead[:1].lower()}{lead[1:]}" if lead else ""
    aux = m["aux"].lower()
    word = (m.groupdict().get("more") or m.groupdict().get("adjer") or "").lower()
    order = "lt" if _LESS.match(word) else "gt"
    a, b = _strip_option(m["a"]), _strip_option(m["b"])
    if adj is not None:
        queries = [_clean(f"How {adj} {aux} {o}{tail}") for o in (a, b)]
    else:
        queries = [_clean(f"How many {m['noun']} {aux} {o} have{tail}") for o in (a, b)]
    return _order_plan(
        question, [a, b], queries, "NUMBER", order, m["noun"] if adj is None else adj
    )


def _en_age_than(question: str, a: str, b: str, adjer: str) -> Plan | None:
    """ "Is A older than B?", "Was A younger than B?": two births (foundings when an option is
    a thing: "the X Brewery", a name ending in an organisation or place noun), and yes when
    A's comes first for "older", last for "younger"."""
    options = [_strip_option(a), _strip_option(b)]
    if re.match(r"\d", options[1]) or not all(re.search(r"[A-Z]", o) for o in options):
        return None  # "older than 50", "older than the others": no second name
    things = any(
        re.match(r"(?i)the\s", side.strip())
        or head_noun_type(o.split()[-1].lower()) in ("ORGANIZATION", "LOCATION")
        for side, o in zip((a, b), options, strict=True)
    )
    verb = "founded" if things else "born"
    queries = [f"When was {o} {verb}" for o in options]
    order = "lt" if adjer == "older" else "gt"
    return _order_plan(question, options, queries, "DATE", order, verb)


# "Was A founded before B?", "Did A open after B was founded?", "Did A die before 1950?": an
# auxiliary, a subject, a lower-case verb, and the event or date it is ordered against.
# "Was A still alive to see B open?", "Was A alive when B was founded?"
_EN_ALIVE = re.compile(
    r"^(?:is|was|were)\s+(?P<subj>.+?)\s+(?:still\s+)?(?:alive|living)\s+"
    r"(?:(?P<see>to\s+(?:see|witness))\s+|when\s+|at\s+the\s+time\s+(?:when\s+|that\s+)?)"
    r"(?P<event>.+?)\s*$",
    re.IGNORECASE,
)
# What is seen: a noun phrase and its bare verb ("the new bridge open").
_EN_SEEN_EVENT = re.compile(r"^(?P<np>.+?)\s+(?P<verb>[a-z]+)(?:\s+(?:up|down|out))?$")
# The same with a named subject and a verb phrase of several words: "Did X become chief
# executive before …", "Was X music director of Y before …".
_NAMED_SUBJECT = (
    r"(?:the\s+)?[A-Z#][\w'’\-.&]*(?:\s+(?:of\s+|&\s+|de\s+|van\s+)?[A-Z#][\w'’\-.&]*)*"
    r"(?<!['’]s)"  # (a possessive opens a longer noun phrase: "X's purchase of Y")
)
_EN_PHRASE_ORDER = re.compile(
    r"^(?P<aux>(?i:is|was|were|did|does|do))\s+"
    rf"(?P<subj>{_NAMED_SUBJECT})\s+"
    r"(?P<vp>(?P<head>[a-z]+)(?:\s+[\w'’\-.&]+){1,6}?)\s+"
    r"(?P<rel>(?i:before|after))\s+(?P<when>.+?)\s*$"
)
_EN_EVENT_ORDER = re.compile(
    r"^(?P<aux>(?i:is|was|are|were|did|does|do|had|has))\s+(?P<subj>.+?)\s+(?P<verb>[a-z]+)\s+"
    r"(?P<rel>(?i:before|after|earlier\s+than|later\s+than|prior\s+to))\s+(?P<when>.+?)\s*$"
)


# The other side of "before"/"after" as a clause of its own: "… before the band was formed",
# "… after Ada Moe died".
# (a phrasal verb keeps its particle: "… was set up", "… wound up")
_EN_PASSIVE_CLAUSE = re.compile(
    r"^(?P<np>.+?)\s+(?P<be>was|were|is|are)\s+(?P<verb>[a-z]+(?:\s+(?:up|out|down|off|over))?)$",
    re.IGNORECASE,
)
_EN_PAST_CLAUSE = re.compile(r"^(?P<np>.+?)\s+(?P<verb>[a-z]+(?:\s+(?:up|out|down|off|over))?)$")
# A clause with its object: a name or a subject pronoun, a verb, what it governs.
_EN_PAST_OBJECT_CLAUSE = re.compile(
    r"^(?P<np>(?:the\s+)?[A-Z#][\w'’\-.&]*(?:\s+[A-Z#&][\w'’\-.&]*)*|he|she|they|it)\s+"
    r"(?P<verb>[a-z]+)\s+(?P<obj>(?:the\s+|a\s+|an\s+|its\s+|his\s+|her\s+|their\s+)?[\w#].*)$"
)
_SUBJECT_PRONOUNS = frozenset(["he", "she", "they", "it"])


def _past_form(verb: str) -> bool:
    """An irregular past or an -ed form: the verb of a past clause ("Y bought Z")."""
    return verb in IRREGULAR_PAST or verb.endswith("ed")


def _en_event_order(
    question: str, aux: str, subj: str, verb: str, rel: str, other: str
) -> Plan | None:
    """ "Was A founded before B?", "Did A open before B was founded?", "Did A die after B?":
    two events ordered in time, decided by their two dates (yes when A's comes first for
    "before", last for "after"). B alone takes A's verb; a clause of its own keeps its verb."""
    other = _clean(other)
    clause = _EN_PASSIVE_CLAUSE.match(other)
    past = _EN_PAST_CLAUSE.match(other)
    if clause is not None and clause["verb"].islower() and is_participle(clause["verb"].split()[0]):
        option = _strip_option(clause["np"])
        other_query = f"When {clause['be'].lower()} {clause['np']} {clause['verb']}"
    elif (
        past is not None
        and _past_form(past["verb"].split()[0])
        and re.match(r"(?:the\s+)?[A-Z#]", past["np"])
    ):
        option = _strip_option(past["np"])
        other_query = f"When {past['np']} {past['verb']}"
    elif (transitive := _EN_PAST_OBJECT_CLAUSE.match(other)) is not None and _past_form(
        transitive["verb"]
    ):
        # "… before Y bought Z", "… by the time she won the Z Prize": a clause with its
        # object; a pronoun subject is the claim's own subject
        np = subj if transitive["np"].lower() in _SUBJECT_PRONOUNS else transitive["np"]
        option = _strip_option(transitive["obj"] if np == subj else np)
        other_query = f"When {np} {transitive['verb']} {transitive['obj']}"
    elif re.search(r"\b(?:was|were|is|are|did|does|do|has|had)\b", other) or not re.search(
        r"[A-Z0-9#]", other
    ):
        return None  # a clause this does not read, or no name at all
    else:
        option = _strip_option(other)
        other_query = f"When {aux} {other} {verb}"
    order = "lt" if _LESS.match(rel.lower()) else "gt"
    queries = [f"When {aux} {subj} {verb}", other_query]
    if verb.lower() in ("exist", "exists", "existed"):
        queries[0] = f"When was {subj} founded"  # a thing exists from its founding on
    return _order_plan(question, [_strip_option(subj), option], queries, "DATE", order, verb)


# "Was X directed by someone born in P?": the someone is a bridge ("Who directed X"), and the
# claim is verified about that answer.
_EN_SOMEONE = re.compile(
    r"^(?P<aux>is|was|are|were)\s+(?P<obj>.+?)\s+(?P<verb>[a-z]+(?:ed|en|t|n))\s+by\s+"
    r"(?:someone|somebody|a\s+person|anyone|a\s+man|a\s+woman)\s+(?:who\s+(?:is|was|were)\s+)?"
    r"(?P<rest>.+)$",
    re.IGNORECASE,
)


# "The organ in X was built by someone born in which town?": who built it, then the question
# about them.
_EN_SOMEONE_WH = re.compile(
    r"^(?P<obj>.+?)\s+(?P<aux>is|was|are|were)\s+(?P<verb>[a-z]+(?:ed|en|t|n))\s+by\s+"
    r"(?:someone|somebody|an?\s+(?P<noun>[a-z][\w\-]*))\s+(?:who\s+(?:is|was|were)\s+)?"
    r"(?P<part>[a-z]+)\s+(?:(?P<prep>in|at|on|from|to|for)\s+)?"
    r"(?P<wh>where|when|(?:which|what)\s+[a-z]+)$",
    re.IGNORECASE,
)


# "The 2021 X Medal went to someone who is now director of which clinic?": an indefinite
# person closing a clause, then a relative clause that asks.
_EN_SOMEONE_WHO = re.compile(
    r"^(?P<main>.+?)\s+(?:(?:someone|somebody)\s+(?:who|that)|an?\s+(?:[a-z][\w\-]*\s+)?"
    r"[a-z][\w\-]*\s+who)\s+"
    r"(?P<rest>.+)$",
    re.IGNORECASE,
)


def _en_someone_wh(q: str, question: str) -> Plan | None:
    rel = _EN_SOMEONE_WHO.match(q)
    if (
        rel is not None
        and _IN_SITU_WH.search(rel["rest"])
        and not re.match(r"(?i)(?:who|whom|what|which|where|when|how)\b", rel["main"])
    ):
        # The clause names the person (who the medal went to); the relative clause asks of them.
        who = PlanStep(
            index=1, query=_clean(f"{rel['main']} whom"), kind="bridge", answer_type="PERSON"
        )
        final = _clean(f"#1 {rel['rest']}")
        return _bridge_plan(question, [who], final, answer_type(final))
    m = _EN_SOMEONE_WH.match(q)
    if m is None or not is_participle(m["part"]):
        return None
    obj = m["obj"]
    obj = f"{obj[:1].lower()}{obj[1:]}" if re.match(r"(?:The|A|An)\b", obj) else obj
    # "… by an engineer born where": the noun says what the agent is ("a firm" is no person)
    kind = head_noun_type(m["noun"]) if m["noun"] else "NAME"
    lead = "Who" if kind in ("NAME", "PERSON") else f"Which {m['noun']}"
    who = PlanStep(
        index=1,
        query=_clean(f"{lead} {m['verb']} {obj}"),
        kind="bridge",
        answer_type="PERSON" if kind == "NAME" else kind,
    )
    lead = f"{m['prep'].capitalize()} {m['wh']}" if m["prep"] else m["wh"].capitalize()
    final = _clean(f"{lead} was #1 {m['part']}")
    return _bridge_plan(question, [who], final, answer_type(final))


# "X was built on an engine licensed from a company based in which town?": a passive verb
# and its preposition, then an indefinite noun that a participle of its own goes on about (a
# reduced relative clause), down to the wh-phrase that asks.
_EN_PASSIVE_LINK = re.compile(
    r"^(?P<obj>.+?)\s+(?P<aux>is|was|are|were)\s+(?P<verb>[a-z]+)\s+"
    r"(?P<prep>on|in|at|from|for|with|to|into|under|by|after)\s+(?:an?|some)\s+"
    r"(?P<noun>[a-z][\w\-]*)\s+(?P<part>[a-z]+)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
# "The engine X was built on was licensed from which company?": a noun and the clause that
# says which one it is, without a relative pronoun (a contact clause), as the subject.
_EN_CONTACT_SUBJECT = re.compile(
    r"^The\s+(?P<noun>[a-z][\w\-]*)\s+(?P<subj>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)\s+"
    r"(?P<aux>is|was|are|were)\s+(?P<verb>[a-z]+)\s+"
    r"(?P<prep>on|in|at|from|for|with|to|into|under|by|after)\s+"
    r"(?P<aux2>is|was|are|were)\s+(?P<rest>.+)$"
)


def _en_passive_chain(q: str, question: str) -> Plan | None:
    """A passive clause whose complement is an indefinite noun described by a participle,
    link after link, down to the wh-phrase ("X was built on an engine licensed from a
    company based in which town?": which engine, which company, which town), or a noun
    with a contact clause as the subject ("The engine X was built on was licensed from
    which company?": which engine, then the question of it)."""
    text = q.rstrip("?").strip()
    steps: list[PlanStep] = []

    def which(m: re.Match[str], obj: str) -> None:
        """The step naming ``m``'s noun: "Which engine was X built on"."""
        query = _clean(f"Which {m['noun']} {m['aux']} {obj} {m['verb']} {m['prep']}")
        steps.append(
            PlanStep(
                index=len(steps) + 1,
                query=query,
                depends_on=_deps(query),
                kind="bridge",
                answer_type=head_noun_type(m["noun"]),
            )
        )

    contact = _EN_CONTACT_SUBJECT.match(text)
    if (
        contact is not None
        and is_participle(contact["verb"])
        and _IN_SITU_WH.search(f" {contact['rest']}")
    ):
        which(contact, contact["subj"])
        text = f"#1 {contact['aux2']} {contact['rest']}"
    while (link := _EN_PASSIVE_LINK.match(text)) is not None:
        if not (
            is_participle(link["verb"])
            and is_participle(link["part"])
            and _IN_SITU_WH.search(f" {link['rest']}")
        ):
            break
        which(link, link["obj"])
        text = f"#{len(steps)} {link['aux']} {link['part']} {link['rest']}"
    if not steps:
        return None
    return _bridge_plan(question, steps, text, answer_type(text))


def _en_verify(q: str, question: str) -> Plan:
    m = _EN_SOMEONE.match(q)
    steps: list[PlanStep] = []
    if m is not None:
        who = f"Who {m['verb']} {m['obj']}" if m["verb"].lower() != "born" else q
        steps.append(PlanStep(index=1, query=_clean(who), kind="bridge", answer_type="PERSON"))
        claim = f"{m['aux']} #1 {m['rest']}"
        born = _BORN_IN.fullmatch(m["rest"])
        if born is not None and m["verb"].lower() != "born":
            # "Was X directed by someone born in Oslo?": where the director was born, is it Oslo
            return _equal_after(question, steps, "Where was #1 born", born["place"])
    else:
        claim = _decompose(q, steps)
    if not steps:
        return _verify_plan(question, q)
    return _verify_after(question, steps, _clean(claim))


_CONJ = re.compile(
    r"^(?P<q1>(?:who|what|when|where|which|how)\b.+?)\s*,?\s+and\s+"
    r"(?P<q2>(?:who|what|when|where|which|how|in\s+which|in\s+what)\b.+)$",
    re.IGNORECASE,
)


def _en_conjunction(q: str, question: str) -> Plan | None:
    m = _CONJ.match(q)
    if not m:
        return None
    q2 = _PRONOUN.sub("#1", _clean(m["q2"]), count=1)
    t1, t2 = answer_type(m["q1"]), answer_type(q2)
    steps = [
        PlanStep(index=1, query=_clean(m["q1"]), answer_type=t1, kind="bridge"),
        PlanStep(index=2, query=q2, depends_on=_deps(q2), answer_type=t2),
    ]
    return Plan(question=question, steps=steps, strategy="conjunction", answer_type=t2)


# A statement, then a question that refers back to the new thing it introduced: "Ada's
# teacher married a painter. Where was he born?", "X had a daughter named after her. Which
# school did that daughter found?". The indefinite noun phrase is the new referent.
# The indefinite noun phrase both statement patterns end in: "a [mods] N [rest]".
# The modifiers may hold a name and its possessive ("a former St Orvald's captain").
_INDEFINITE_NP = (
    r"\s+(?:an?|one)\s+(?P<mods>(?:[a-z][\w\-]*\s+){0,2}?(?:(?:[A-Z][\w\-]*\s+)*"
    r"[A-Z][\w\-]*['’]s\s+)?)"
    r"(?P<noun>[a-z][\w\-]*)(?!(?:\s+[A-Z][\w\-]*)+['’]s\s)(?P<rest>(?:\s+.*)?)$"
)
# A particle before the preposition is part of the verb ("came out of", "grew up in").
_EN_INDEFINITE = re.compile(
    r"^(?P<subj>.+?)\s+(?P<verb>[a-z]+)(?P<obj>\s+(?:his|her|its|their)\s+[a-z]+)?"
    r"(?P<prep>\s+(?:(?:out|up|back|away|down|off)\s+(?:of|from|in|at|on|to|with)|"
    r"at|in|for|with|from|on|into|under|to|up|out|over|off|back))?" + _INDEFINITE_NP
)
_EN_INDEFINITE_OBJECT = re.compile(
    r"^(?P<subj>.+?)\s+(?P<verb>[a-z]+ed)(?P<obj>\s+[a-z]+)"
    r"(?P<prep>\s+(?:at|in|for|with|from|on|into|under|to))" + _INDEFINITE_NP
)
# Adverbs that stand between an auxiliary and its verb (a closed class).
_VERB_ADVERBS = frozenset(
    ["already", "also", "just", "still", "once", "then", "later", "soon", "recently", "never"]
)
_EN_BACK_PRONOUN = re.compile(r"\b(?:he|she|it|they|him|them|his|its|their|her)\b", re.IGNORECASE)


_REFERENT = "\x00"
# Subordinating conjunctions open a clause of their own ("a research institute before she …").
_SUBORDINATORS = frozenset(
    [
        "before",
        "after",
        "until",
        "since",
        "because",
        "although",
        "though",
        "once",
        "unless",
        "whereas",
    ]
)
# A later indefinite noun phrase after a preposition: "… a foreword by a boat builder".
_EN_LATER_INDEFINITE = re.compile(
    r"(?P<prep>\s(?:by|for|from|with|to|of|under)\s+)(?:an?)\s+"
    r"(?P<noun>(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*)(?=\s*$|\s*[,;])"
)
_SUBJECT = "\x01"
# A subject that carries its own relative clause: "the woman who founded X", "the firm that
# built Y".
_SUBJECT_RELATIVE = re.compile(
    r"^the\s+(?P<head>(?:[a-z][\w\-]*\s+){0,2}?[a-z][\w\-]*)\s+(?:who|that|which)\s+\S"
)
# A statement joined to a question inside one sentence: by a semicolon or a colon, or by ",
# and" before the question's wh-word or auxiliary.
_STATEMENT_JOINT = re.compile(
    r"(?:[;:]|,\s+and)\s+(?=(?:who|whom|whose|what|which|where|when|how|in\s+(?:which|what)"
    r"|did|does|do|is|was|are|were|has|have|had|can|could)\b)",
    re.IGNORECASE,
)


def _en_two_sentences(q: str) -> tuple[str, str, str, str] | None:
    """ "S V a N. Which … did he …?": (the statement's subject S, the referent "the N that
    :data:`_SUBJECT` V …" — after "had": "the N of :data:`_SUBJECT`" —, its noun N, the
    question with :data:`_REFERENT` where it refers back to it by a pronoun or "that/this/the
    N")."""
    spans = split_sentences(q)
    joint = _STATEMENT_JOINT.search(q) if len(spans) == 1 else None
    if joint is None and len(spans) == 1:
        # "S V a N; his father died in what year?": the question in statement order
        joint = next(
            (j for j in re.finditer(r"[;:]\s+", q) if _IN_SITU_WH.search(q, j.end())), None
        )
    if joint is not None:  # "S V a N; how many … it …?", "S V a N, and where is it …?"
        first, second = q[: joint.start()].strip(), _clean(q[joint.end() :])
    elif len(spans) == 2:
        first = q[spans[0][0] : spans[0][1]].strip().rstrip(".")
        second = _clean(q[spans[1][0] : spans[1][1]])
    else:
        return None
    if is_yes_no(first) or re.match(r"(?i)(?:who|what|which|where|when|how)\b", first):
        return None  # two questions, not a statement and a question
    # "X studied composition with someone": an indefinite pronoun is an indefinite person
    first = re.sub(r"\b(?:someone|somebody)\b", "a person", first)
    m = _EN_INDEFINITE.match(first)
    if m is not None and not _finite_verb(m["verb"]):
        # "X studied composition with a person": a bare noun object between the verb and its
        # preposition
        m = _EN_INDEFINITE_OBJECT.match(first) or m
    have = m is not None and m["verb"] in ("had", "has", "have")
    if m is None or (m["verb"] in _FUNCTION and not have) or m["noun"] in _FUNCTION:
        return None
    subj, verb, noun, rest = m["subj"], m["verb"], f"{m['mods']}{m['noun']}", m["rest"]
    if re.match(r"\s+(?:that|which|who)\s", rest):
        rest = ""  # "a foundry that was later sold": the statement's verb says which one
    # "X had already picked up a N": the auxiliaries and adverbs before the verb are no part
    # of the subject (the relative keeps the verb alone: "the N that X picked up").
    words = subj.split()
    while len(words) > 1 and (words[-1] in AUXILIARIES or words[-1] in _VERB_ADVERBS):
        words.pop()
    subj = " ".join(words)
    # The noun phrase goes on over plain nouns ("a dairy company"), up to a function word or a
    # participle ("a daughter named after her").
    while (w := re.match(r"\s+([a-z][\w\-]*)(?=\s|$)", rest)) and not (
        w.group(1) in _FUNCTION
        or w.group(1) in _SUBORDINATORS
        or is_participle(w.group(1))
        or _finite_verb(w.group(1))
    ):
        noun, rest = f"{noun} {w.group(1)}", rest[w.end() :]
    if not re.search(r"[A-Z0-9]", subj[1:]):
        return None
    lead = f"the{subj[3:]}" if subj.startswith("The ") else subj
    # A free relative is a noun phrase: "Whoever succeeded X" is the person who succeeded X.
    lead = re.sub(r"^Whoever\s+", "the person who ", lead)
    # "S worked at a N …": the preposition strands after the verb ("the N that S worked at …").
    prep = m["prep"] or ""
    if m["obj"] and not prep:
        return None  # "S sold his house a year later": no noun phrase of the statement's
    phrase = (
        f"the {noun} of {_SUBJECT}"
        if have and not prep
        else f"the {noun} that {_SUBJECT} {verb}{m['obj'] or ''}{prep}{rest}"
    )
    back_ref = _refer_back(second, noun)
    if back_ref is None:
        # "X has a foreword by a boat builder. When did that man's father die?": a later
        # indefinite noun phrase of the statement is the referent, its gap a stranded
        # preposition ("the boat builder that X has a foreword by").
        for later in reversed(list(_EN_LATER_INDEFINITE.finditer(first, m.end("noun")))):
            later_noun = later["noun"]
            back_ref = _refer_back(second, later_noun)
            if back_ref is not None and later["prep"]:
                gapped = _clean(f"{first[: later.start()]}{later['prep']}{first[later.end() :]}")
                gapped = re.sub(r"^The\s", "the ", gapped)
                return _SUBJECT, f"the {later_noun} that {gapped}", later_noun, back_ref
        return None
    return lead, phrase, noun, back_ref


def _refer_back(second: str, noun: str) -> str | None:
    """``second`` with :data:`_REFERENT` where it refers back to an earlier noun phrase headed
    by ``noun``: "that/this/the N" ("that man" for a person noun), a subject or object pronoun,
    or a possessive pronoun and its nouns ("its headquarters" → "the headquarters of …")."""
    # "that man", "this woman": a person noun refers back to a person of any role
    last = noun.split()[-1]
    # an agent noun may name a firm or a person ("manufacturer"); "that man" says which
    agent = head_noun_type(last) == "PERSON" or bool(re.search(r"(?:er|or|ist)$", last))
    person = r"|man|woman|person|one" if agent else ""
    back = re.search(
        rf"\b(?:that|this|the)\s+(?:{re.escape(noun)}|{re.escape(noun.split()[-1])}{person})\b",
        second,
        re.IGNORECASE,
    )
    if back is None and agent:
        # "X studied with someone. When was that teacher born?": a demonstrative before any
        # person noun refers back to a person introduced without one
        back = next(
            (
                m
                for m in re.finditer(r"\b(?:that|this)\s+([a-z][\w\-]*)\b", second, re.IGNORECASE)
                if head_noun_type(m.group(1)) == "PERSON"
            ),
            None,
        )
    if back is not None:
        return f"{second[: back.start()]}{_REFERENT}{second[back.end() :]}"
    pronoun = _EN_BACK_PRONOUN.search(second)
    if pronoun is None:
        return None
    word = pronoun.group(0).lower()
    if (word in ("he", "she", "him", "his", "her") and not agent) or (
        word in ("it", "its") and head_noun_type(last) == "PERSON"
    ):
        return None  # a personal pronoun refers back to a person, "it" to a thing
    nouns: list[re.Match[str]] = []
    for w in _WORD_AT.finditer(second, pronoun.end()):
        if len(nouns) == 3 or not re.fullmatch(r"[a-z][\w\-]*", w.group(0)):
            break
        if w.group(0) in _FUNCTION or (nouns and _verb_form(w.group(0))):
            break  # "its founder born", "his father died": the verb, not the noun's
        nouns.append(w)
    if (
        len(nouns) >= 2
        and re.search(r"\b(?:did|does|do)\s+$", second[: pronoun.start()], re.IGNORECASE)
        and all(
            w in STRANDED_PARTICLES or w in _DETERMINERS or w[:1].isupper() or w.endswith("ing")
            for w in second[nouns[-1].end() :].rstrip(" ?.").split()
        )
    ):
        # "how many copies did its first printing run to?", "when did its founder retire from
        # teaching?": the do-question's subject ends before its bare verb, the clause's last
        # verb-like word (what follows is a particle or a prepositional phrase).
        nouns.pop()
    if word in ("his", "its", "their") or (word == "her" and nouns):
        if not nouns:
            return None
        # "its headquarters" → "the headquarters of <referent>"
        owned = " ".join(w.group(0) for w in nouns)
        after = second[nouns[-1].end() :]
        return f"{second[: pronoun.start()]}the {owned} of {_REFERENT}{after}"
    return f"{second[: pronoun.start()]}{_REFERENT}{second[pronoun.end() :]}"


# A subordinate clause before the question: "Once X had closed, who bought its buildings?",
# "By the time A married, did B already have …?" (its subordinators are a closed class).
_EN_FRONTED = re.compile(
    r"^(?P<sub>once|after|when|whenever|before|since|as\s+soon\s+as|by\s+the\s+time|"
    r"at\s+the\s+time|although|though|because|while|until)\s+(?P<clause>[^,]+?),\s*"
    r"(?P<q>(?:who|whom|whose|what|which|where|when|how|in\s+(?:which|what)|did|does|do|is|was"
    r"|are|were|has|have|had)\b.+)$",
    re.IGNORECASE,
)
_EN_TIME_SUBORDINATOR = re.compile(r"(?i)by\s+the\s+time|at\s+the\s+time|when|once")


def _en_fronted(q: str, question: str) -> Plan | None:
    """A fronted subordinate clause: with a yes/no question about the time ("By the time A
    V, had B already V?"), the two events ordered (B before A); else, when the question refers
    back to the clause's subject, that subject is found first. A clause that only dates or
    frames the question is left to the other strategies (None)."""
    m = _EN_FRONTED.match(q)
    if m is None:
        return None
    clause, main = _clean(m["clause"]), _clean(m["q"])
    if is_yes_no(main):
        already = re.search(r"\s+already\b", main, re.IGNORECASE)
        if already is None or not _EN_TIME_SUBORDINATOR.fullmatch(m["sub"]):
            return None
        # "did B already have X" holds when B's event came before the clause's
        ordered = f"{main[: already.start()]}{main[already.end() :]} before {clause}"
        return _replan(ordered, question)
    words = clause.split()
    cut = next(
        (
            i
            for i, w in enumerate(words)
            if i > 0 and w.islower() and (w in AUXILIARIES or _finite_verb(w))
        ),
        None,
    )
    if cut is None:
        return None
    subject = " ".join(words[:cut])
    topic = _en_topic(f"{subject} - {main}", question)
    if topic is not None:
        return topic
    # a bare name is a person's or a thing's: the pronoun says which ("her mill", "its hall")
    back = _refer_back(main, "person") or _refer_back(main, "thing")
    if subject[:1].isupper() and back is not None:
        main = back.replace(_REFERENT, subject)  # "Once Ada Moe had died, who … her mill?"
        return _replan(main, question)
    return None  # the clause dates or frames the question ("After X was built, how many …")


def _add_bridge(steps: list[PlanStep], query: str, noun: str, kind: AnswerType) -> str:
    """Append a bridge step for ``query`` (the phrase naming ``noun``); returns ``#n`` for it."""
    steps.append(
        PlanStep(
            index=len(steps) + 1,
            query=query,
            needs=f"the {noun}",
            depends_on=_deps(query),
            kind="bridge",
            answer_type=kind,
        )
    )
    return f"#{len(steps)}"


def _owned_np(np: str) -> tuple[str, str, str] | None:
    """ "X's successor at the school" → ("successor of X at the school", "successor", "at the
    school"): a possessive noun phrase as an "of" phrase, what follows the possessed noun kept
    after the owner; None when ``np`` is no possessive of a name."""
    owner = re.match(r"(.+?)['’]s\s+", np)
    if owner is None or not re.fullmatch(_NAME, owner.group(1)):
        return None
    words = np[owner.end() :].split()
    nouns = _noun_phrase(words)
    if not words or not nouns:
        return None
    tail = " ".join(words[len(nouns) :])
    noun = " ".join(nouns)
    return _clean(f"{noun} of {owner.group(1)} {tail}"), noun, tail


# A path given as directions: "Go from X to its owner, then to her son's wife: where was that
# last woman born?", "Start with X, move on to its owner, then to her son; …".
_EN_PATH = re.compile(
    r"^(?:go|start|begin|move)\s+(?:from|with|at)\s+(?P<start>.+?),?\s+(?:go\s+|move\s+)?"
    r"(?:on\s+)?to\s+(?P<hops>.+?)\s*[:;]\s*(?P<q>.+)$",
    re.IGNORECASE,
)
_EN_PATH_HOP = re.compile(
    r",?\s+(?:and\s+)?(?:then\s+)?(?:go\s+|move\s+)?(?:on\s+)?to\s+(?=(?:his|her|its|their)\s)",
    re.IGNORECASE,
)


def _en_path(q: str, question: str) -> Plan | None:
    """Directions from a named start through possessive hops ("to its founder, then to his
    wife's father"): one step per noun, each of the previous answer; then the question, whose
    "that (last) man" or pronoun is the path's end."""
    m = _EN_PATH.match(q)
    if m is None:
        return None
    hops = [h.strip() for h in _EN_PATH_HOP.split(m["hops"]) if h.strip()]
    steps: list[PlanStep] = []
    owner = _clean(m["start"])
    for hop in hops:
        owned = re.match(r"(?i)(?:his|her|its|their)\s+(?P<nouns>.+)$", hop)
        if owned is None:
            return None
        for noun in re.split(r"['’]s\s+", owned["nouns"]):
            noun = _clean(noun)
            if not re.fullmatch(r"[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}", noun):
                return None
            query = f"{noun} of {owner}"
            _add_bridge(steps, query, noun, head_noun_type(noun.split()[-1]))
            owner = f"#{len(steps)}"
    if not steps:
        return None
    last = steps[-1].query.split(" of ")[0]
    asked = re.sub(r"(?i)\b(that|this)\s+(?:last|final)\s+", r"\1 ", _clean(m["q"]))
    back = _refer_back(asked, last)
    if back is None:
        return None
    asked = back.replace(_REFERENT, owner)
    return _bridge_plan(question, steps, _decompose(asked, steps), answer_type(asked))


def _answer_as_bridge(text: str) -> tuple[Plan, list[PlanStep]]:
    """The plan of a question whose answer a later question uses, and its steps with the
    lookups made bridges."""
    plan = RulePlanner().plan(text)
    return plan, [
        s.model_copy(update={"kind": "bridge"}) if s.kind == "lookup" else s for s in plan.steps
    ]


def _replan(text: str, question: str) -> Plan:
    """The plan of ``text``, a rewording of ``question``, kept under ``question``."""
    return RulePlanner().plan(text).model_copy(update={"question": question})


def _en_two_questions(q: str, question: str) -> Plan | None:
    """ "In which town was X born? How many people lived in that town?", "Who founded X? When
    did he die?": the first question's steps, then the second with ``#n`` where it refers back
    to the first's answer ("that town", a pronoun)."""
    parts = [p for p in re.split(r"\?\s*", q) if p.strip()]
    if len(parts) != 2 or not all(
        re.match(r"(?i)(?:in\s+|at\s+|from\s+)?(?:who|whom|what|which|where|when|how)\b", p)
        for p in parts
    ):
        return None
    first, second = _clean(parts[0]), _clean(parts[1])
    asked = re.match(r"(?i)(?:in\s+|at\s+|from\s+)?(?:which|what)\s+(?P<noun>[a-z]+)", first)
    noun = asked["noun"] if asked is not None else None
    if noun is None:
        noun = (
            "person"
            if re.match(r"(?i)who", first)
            else "place"
            if re.match(r"(?i)where", first)
            else "thing"
        )
    back = _refer_back(second, noun)
    if back is None:
        return None
    plan, steps = _answer_as_bridge(first)
    if plan.comparison is not None:
        return None
    asked_q = back.replace(_REFERENT, f"#{len(steps)}")
    final = _decompose(asked_q, steps)
    return _bridge_plan(question, steps, final, answer_type(asked_q))


def _relative_np_step(np: str, steps: list[PlanStep]) -> str:
    """ "the woman who founded X": a noun phrase with its own relative clause becomes a step
    (after the bridges inside it); returns ``#n`` for it, or ``np`` unchanged when it has no
    relative clause."""
    rel = _SUBJECT_RELATIVE.match(np)
    if rel is None or any(w in _FUNCTION for w in rel["head"].split()):
        owned = _owned_np(np)
        if owned is None or not owned[2]:
            return np  # no phrase after the possessed noun: the possessive decomposes itself
        query, noun, _ = owned
        inner = _clean(_decompose(query, steps))
        return _add_bridge(steps, inner, noun, head_noun_type(noun.split()[-1]))
    inner = _clean(re.sub(r"^the\s+", "", _decompose(np, steps)))
    return _add_bridge(steps, inner, rel["head"], head_noun_type(rel["head"].split()[-1]))


def _np_step(np: str, noun: str, steps: list[PlanStep]) -> str:
    """The steps that find what the noun phrase ``np`` (headed by ``noun``: "X's successor at
    the school", "the founder of X", "the woman who founded X") names; returns ``#n`` for
    it."""
    lead = _relative_np_step(np, steps)
    if re.fullmatch(r"#\d+", lead):
        return lead
    owned = _owned_np(np) if not np.startswith("the ") else None
    if owned is not None:  # "X's successor at the school" → "successor of X at the school"
        np = owned[0]
    rest = _clean(re.sub(r"^the\s+", "", _decompose(np, steps)))
    if re.fullmatch(r"#\d+", rest):
        return rest
    return _add_bridge(steps, rest, noun, head_noun_type(noun))


def _en_topic(q: str, question: str) -> Plan | None:
    """A topic noun phrase, then a question with a pronoun for it: the phrase's steps first,
    then the question with ``#n`` for the pronoun."""
    m = _EN_TOPIC.match(q)
    if m is None:
        return None
    np = re.sub(r"^The\s", "the ", m["np"])
    head = re.split(r"\s(?:who|whom|whose|that|which)\s", np, maxsplit=1)[0]
    owner = re.match(rf"{_NAME}['’]s\s+", head) if not np.startswith("the ") else None
    if owner:
        words = head[owner.end() :].split()
    else:  # after "the"; a noun phrase with no determiner ("founder of X — …") from its start
        words = head.split()[1:] if np.startswith("the ") else head.split()
    if not words or any(_finite_verb(w) for w in words):
        return None  # "The mill closed in 1900, when …" is a statement, not a noun phrase
    nouns = _noun_phrase(words)
    noun = nouns[-1] if nouns else words[-1]
    second = _refer_back(_clean(m["q"]), noun)
    if second is None:
        return None
    if not owner and not re.match(r"[a-z]", words[0]):  # "The Ulm Mill — who owned it?"
        named = second.replace(_REFERENT, np)
        plan = _en_yes_no(named, question) or _en_bridge(named, question)
        kind = answer_type(named)
        return plan or Plan(
            question=question,
            steps=[PlanStep(index=1, query=named, answer_type=kind)],
            strategy="single",
            answer_type=kind,
        )
    steps: list[PlanStep] = []
    asked = second.replace(_REFERENT, _np_step(np, noun, steps))
    final = _decompose(asked, steps)
    return _bridge_plan(question, steps, final, answer_type(asked))


# A first-person statement that names what the asker is after: "I'm looking into the
# engineer who …", "We are curious about X's mentor", "I'm reading about …".
_EN_FRAME = re.compile(
    r"^(?:I|we)(?:['’]m|['’]re|\s+am|\s+are|\s+was|\s+were)\s+(?:[a-z]+ing)\s+"
    r"(?:into|about|on|up\s+on)\s+(?P<np>.+?)\.?$",
    re.IGNORECASE,
)


def _en_framed_topic(q: str, question: str) -> Plan | None:
    """ "I'm looking into the engineer who built X. What year was he born?": the statement
    only frames its noun phrase, which the question then refers back to (a topic)."""
    spans = split_sentences(q)
    if len(spans) != 2:
        return None
    m = _EN_FRAME.match(q[spans[0][0] : spans[0][1]].strip())
    if m is None:
        return None
    return _en_topic(f"{m['np']} - {_clean(q[spans[1][0] : spans[1][1]])}", question)


def _en_referent(q: str, question: str) -> Plan | None:
    """A statement that introduces something, then a question about it: the referent's steps
    first (its own bridges, then the phrase), then the question with ``#n`` for it."""
    found = _en_two_sentences(q)
    if found is None:
        return None
    lead, phrase, noun, second = found
    steps: list[PlanStep] = []
    if lead == _SUBJECT:  # "the boat builder that X has a foreword by": one step
        query = _clean(re.sub(r"^the\s+", "", phrase))
        kind = head_noun_type(noun.split()[-1])
        if re.search(r"(?i)\b(?:that|this)\s+(?:man|woman|person)\b|\b(?:he|she|his|him)\b", q):
            kind = "PERSON"  # "that man" says the manufacturer is a person, not a firm
        _add_bridge(steps, query, noun, kind)
        asked = second.replace(_REFERENT, "#1")
        return _bridge_plan(question, steps, _decompose(asked, steps), answer_type(asked))
    lead = _relative_np_step(lead, steps)
    phrase = phrase.replace(_SUBJECT, lead)
    rest = _clean(re.sub(r"^the\s+", "", _decompose(phrase, steps)))
    kin = _EN_KIN_STEP.match(rest)
    if kin is not None:  # "X's founder had a father-in-law": the spouse, then the father
        person = re.sub(r"^the\s+(?=#)", "", _clean(kin["x"]))
        steps.extend(_kin_steps(person, _EN_KIN[kin["kin"].lower()], len(steps) + 1))
    elif not re.fullmatch(r"#\d+", rest):
        _add_bridge(steps, rest, noun, head_noun_type(noun))
    asked = second.replace(_REFERENT, f"#{len(steps)}")
    final = _decompose(asked, steps)
    return _bridge_plan(question, steps, final, answer_type(asked))


# A statement joined to its question by a dash: "X wrote a book - how big was its first print
# run?" (a semicolon, a colon or ", and" is :data:`_STATEMENT_JOINT`'s).
_DASH_JOINT = re.compile(
    r"\s+[-–—]+\s+(?=(?:who|whom|whose|what|which|where|when|how|in\s+(?:which|what)|did|does"
    r"|do|is|was|are|were|has|have|had)\b)",
    re.IGNORECASE,
)
_ANCHOR = "\x02"
_RELATIVE_WORDS = frozenset(["who", "that", "which"])
_PERSON_WORDS = frozenset(["man", "woman", "person", "one", "boy", "girl", "lady", "gentleman"])
_PRONOUN_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f"}
_PRONOUN_SUBJECTS = frozenset(
    ["there", "it", "he", "she", "they", "this", "that", "these", "those", "we", "i", "you"]
)


@dataclass(frozen=True)
class _Referent:
    """A noun phrase a statement introduces: its noun, its description (``_ANCHOR`` standing
    for the referent it hangs on, ``anchor``), whether it names a person (None: a person or a
    thing, as an agent noun or a bare name may), and its gender when its noun gives one.
    ``anchor`` None: the statement's subject, whose description is the subject phrase."""

    noun: str
    phrase: str
    anchor: int | None
    person: bool | None
    gender: str | None = None


def _person_noun(noun: str) -> bool | None:
    """Whether ``noun`` names a person; None for an agent noun of no known type, which may
    name a person or a firm ("manufacturer", "publisher")."""
    last = noun.split()[-1]
    if head_noun_type(last) == "PERSON" or last in _PERSON_WORDS or last in KIN_GENDER:
        return True
    if head_noun_type(last) == "NAME" and re.search(r"(?:er|or|ist|ian)$", last):
        return None
    return False


def _noun_gender(noun: str) -> str | None:
    last = noun.split()[-1]
    return KIN_GENDER.get(last) or {"man": "m", "woman": "f", "boy": "m", "girl": "f"}.get(last)


def _np_words(words: Sequence[str]) -> list[str]:
    """The noun phrase after an indefinite article: plain words (a possessive among them: "a
    clicker's daughter") up to a function word, a relative word or a participle."""
    out: list[str] = []
    for w in words[:4]:
        bare = w.rstrip(",;:.")
        if not re.fullmatch(r"[a-z][\w\-]*(?:['’]s)?", bare) or bare in _NP_STOP:
            break
        if out and (bare.endswith(("ed", "ing")) or _finite_verb(bare)):
            break  # "whose mother ran a kiln", "a daughter named after her"
        out.append(bare)
        if bare != w:
            break  # punctuation closes the phrase
    return out


_HAVE_DO = frozenset(["has", "have", "had", "does", "do", "did"])
# Quantifiers and units of time after "a" make no referent: "a few years later", "a decade".
_QUANTIFIERS = frozenset(["few", "little", "lot", "couple", "bit", "number", "dozen", "half"])
_TIME_NOUNS = frozenset(
    [
        *("year", "years", "decade", "decades", "month", "months", "week", "weeks"),
        *("day", "days", "century", "centuries", "while", "time"),
    ]
)


def _indefinite_at(words: Sequence[str], i: int) -> list[str]:
    """The noun phrase of an indefinite article at ``words[i]`` ("a", "an", "one"), else []."""
    if words[i] not in ("a", "an", "one"):
        return []
    np = _np_words(words[i + 1 :])
    if np and (np[0] in _QUANTIFIERS or np[-1] in _TIME_NOUNS):
        return []
    return np


_PASSIVE_BY = re.compile(
    r"(?:was|were|is|are|had\s+been|has\s+been|have\s+been)\s+(?:[a-z]+ly\s+)?"
    r"(?P<verb>[a-z]+)\s+by"
)


def _clause_referents(words: Sequence[str], anchor: int, refs: list[_Referent]) -> None:
    """The noun phrases that the clause ``words`` (its subject, referent ``anchor``, left
    out: "later wrote a book", "has a daughter with a podcast") introduces, appended to
    ``refs``: an indefinite noun phrase is "the N that <subject> <words before it>" ("the
    basket manufacturer that X has a preface by"), after a bare have-form "the N of
    <subject>"; a relative clause on it adds its own ("a woman who later wrote a book",
    "a firm whose founder has …")."""
    i = 0
    while i < len(words):
        np = _indefinite_at(words, i)
        if not np:
            i += 1
            continue
        noun = " ".join(np)
        before = list(words[:i])
        if (
            len(before) > 1
            and before[0] in _HAVE_DO
            and (before[1] in _VERB_ADVERBS or _verb_form(before[1]))
        ):
            # "had already picked up a mill": the mill that X picked up
            before.pop(0)
            while len(before) > 1 and before[0] in _VERB_ADVERBS:
                before.pop(0)
        gap = " ".join(before)
        j = i + 1 + len(np)
        closed = words[j - 1].endswith((",", ";", ":"))
        # what follows the noun phrase, when no other one does: "… a mill a few years earlier"
        tail = (
            ""
            if closed
            or j >= len(words)
            or words[j] in _RELATIVE_WORDS | {"whose"}
            or any(_indefinite_at(words, k) for k in range(j, len(words)))
            else " " + " ".join(words[j:])
        )
        agent = _PASSIVE_BY.fullmatch(gap)
        if gap in ("has", "have", "had"):
            phrase = f"the {noun} of {_ANCHOR}{tail}"
        elif agent is not None and is_participle(agent["verb"]):
            # "X was ordered by a ferry line": the ferry line that ordered X (the agent of a
            # passive, said in the active voice the evidence uses more often)
            phrase = f"the {noun} that {past_of_participle(agent['verb'])} {_ANCHOR}{tail}"
        else:
            phrase = f"the {noun} that {_ANCHOR} {gap}{tail}"
        refs.append(_Referent(noun, phrase, anchor, _person_noun(noun), _noun_gender(noun)))
        here = len(refs) - 1
        if closed:
            return  # a comma closes the clause ("…, and …" is another statement)
        if j < len(words) and words[j] in _RELATIVE_WORDS:
            clause = words[j + 1 :]
            first = clause[0] if clause else ""
            second = clause[1] if len(clause) > 1 else ""
            subject_gap = (
                first in AUXILIARIES
                or _finite_verb(first)
                or (first in _VERB_ADVERBS and _finite_verb(second))
            )
            if subject_gap:
                # the clause says more of the referent: "a woman who died a few years before
                # he did" is found with it
                refs[here] = replace(refs[here], phrase=f"{phrase} who {' '.join(clause)}")
                _clause_referents(clause, here, refs)  # "who later wrote a book"
            return  # the rest belongs to the relative clause
        if j < len(words) and words[j] == "whose":
            owned = _np_words(words[j + 1 :])
            if owned:
                noun2 = " ".join(owned)
                refs.append(
                    _Referent(
                        noun2,
                        f"the {noun2} of {_ANCHOR}",
                        here,
                        _person_noun(noun2),
                        _noun_gender(noun2),
                    )
                )
                _clause_referents(words[j + 1 + len(owned) :], len(refs) - 1, refs)
            return
        i = j


_FRONTED_TIME = re.compile(
    r"^(?P<pp>(?:In|On|During|By|After|Before|From|Until|Since)\s+(?:the\s+)?"
    r"(?:(?:[A-Z][a-z]+\s+)?\d{3,4}s?|(?:spring|summer|autumn|winter)\s+of\s+\d{3,4})),?\s+(?=[A-Z])"
)


def _statement_referents(statement: str) -> list[_Referent] | None:
    """The referents of a statement, its subject first (a name, "X's basket firm", "the founder
    of X"), then what its clause introduces (:func:`_clause_referents`); None when it has no
    subject before a finite verb."""
    # A free relative is a noun phrase: "Whoever succeeded X" is the person who succeeded X.
    statement = re.sub(r"^Whoever\s+", "The person who ", statement)
    # "In 1977 Ada Moe set up a studio": a fronted time phrase goes to the clause's end.
    fronted = _FRONTED_TIME.match(statement)
    if fronted is not None:
        clause = statement[fronted.end() :]
        statement = f"{clause} {fronted['pp'][0].lower()}{fronted['pp'][1:]}"
    words = statement.split()
    verbs = [
        i
        for i, w in enumerate(words)
        if i > 0 and w.islower() and (w in AUXILIARIES or _finite_verb(w))
    ]
    cut, relative = None, False
    for n, i in enumerate(verbs):
        if any(
            w in _RELATIVE_WORDS | {"whom", "whose"} for w in words[verbs[n - 1] if n else 1 : i]
        ):
            relative = True  # "The person who created X was …": the first verb is the clause's
        if relative:
            relative = False
            continue
        following = words[i + 1] if i + 1 < len(words) else ""
        if (
            n + 1 < len(verbs)
            and words[i].endswith("ed")
            and words[i - 1] not in AUXILIARIES
            and following in STRANDED_PARTICLES | {"by", "as"}
        ):
            continue  # "The architect honoured with the X Award in 2011 learned …": reduced
        cut = i
        break
    if cut is None or words[0].lower() in _PRONOUN_SUBJECTS:
        return None  # "There is a …", "It was …": no noun phrase to refer back to
    while cut > 1 and words[cut - 1] in _VERB_ADVERBS:
        cut -= 1  # "The person who founded X later ran a gallery": "later" is the verb's
    subject = " ".join(words[:cut])
    if re.fullmatch(_NAME, subject) and not re.match(r"The\s+[a-z]", subject):
        refs = [_Referent("", subject, None, False)]  # a name: person or thing unknown
    else:
        subject = re.sub(r"^The\s", "the ", subject)
        owner = re.match(rf"{_NAME}['’]s\s+", subject) if not subject.startswith("the ") else None
        if owner is None and not subject.startswith("the "):
            return None
        head = re.split(r"\s(?:who|whom|whose|that|which)\s", subject, maxsplit=1)[0]
        rest = head[owner.end() :].split() if owner else head.split()[1:]
        nouns = _noun_phrase(rest)
        if not nouns:
            return None
        noun = " ".join(nouns)
        refs = [_Referent(noun, subject, None, _person_noun(noun), _noun_gender(noun))]
    _clause_referents(words[cut:], 0, refs)
    return refs


def _statement_predicate(statement: str, refs: Sequence[_Referent]) -> str:
    """What follows the statement's subject ("was wound up in 1927"), or "" when the statement
    introduces noun phrases of its own (they are steps, not context); ``refs`` are the
    statement's referents (:func:`_statement_referents`)."""
    if len(refs) > 1:
        return ""
    subject = refs[0].phrase
    at = statement.lower().find(subject.lower())
    return statement[at + len(subject) :].strip(" ,") if at == 0 else ""


def _resolve_referent(second: str, refs: Sequence[_Referent]) -> tuple[int, str] | None:
    """Which referent ``second`` points back to, and ``second`` with :data:`_REFERENT` for it:
    "that/this N" names its noun; a pronoun takes the last referent it agrees with ("it" a
    thing, "she" a person who is no man)."""
    for idx in reversed(range(len(refs))):
        noun = refs[idx].noun
        if noun and re.search(rf"(?i)\b(?:that|this)\s+{re.escape(noun.split()[-1])}\b", second):
            back = _refer_back(second, noun)
            if back is not None:
                return idx, back
    pronoun = _EN_BACK_PRONOUN.search(second)
    if pronoun is None:
        return None
    word = pronoun.group(0).lower()
    personal = word in _PRONOUN_GENDER
    for idx in reversed(range(len(refs))):
        ref = refs[idx]
        if (ref.person is not None and personal != ref.person) or (
            personal and ref.gender not in (None, _PRONOUN_GENDER[word])
        ):
            continue
        back = _refer_back(second, "person" if personal else "thing")
        if back is not None:
            return idx, back
    return None


def _en_statement(q: str, question: str) -> Plan | None:
    """A statement, then a question about one of the noun phrases it introduced: its subject
    ("X's basket firm was wound up in 1927. Who bought the barn it had worked in?"), or a noun
    phrase further in ("X handed her workshop over to a woman who later wrote a book. How
    many copies of its first edition were printed?", "Y was led by a firm whose founder has a
    daughter with a podcast. What year did her show launch?"). The referents on the way to
    the one the question means become steps, each hanging on the one before."""
    spans = split_sentences(q)
    if len(spans) == 2:
        first = q[spans[0][0] : spans[0][1]].strip().rstrip(".")
        second = _clean(q[spans[1][0] : spans[1][1]])
    else:
        joint = _DASH_JOINT.search(q) or _STATEMENT_JOINT.search(q)
        if len(spans) != 1 or joint is None:
            return None
        first, second = q[: joint.start()].strip(), _clean(q[joint.end() :])
    if is_yes_no(first) or re.match(r"(?i)(?:who|what|which|where|when|how)\b", first):
        return None
    refs = _statement_referents(first)
    if refs is None:
        return None
    predicate = _statement_predicate(first, refs)
    found = _resolve_referent(second, refs)
    if found is None:
        return None
    target, asked = found
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", second)}
    chain = [target]
    while (up := refs[chain[-1]].anchor) is not None:
        chain.append(up)
    steps: list[PlanStep] = []
    token = ""
    for idx in reversed(chain):
        ref = refs[idx]
        if ref.anchor is None:
            token = (
                re.sub(r"^The\s", "the ", ref.phrase)
                if not ref.noun
                else _np_step(ref.phrase, ref.noun, steps)
            )
            continue
        phrase = _clean(re.sub(r"^the\s+", "", ref.phrase.replace(_ANCHOR, token)))
        rest = _clean(_decompose(phrase, steps))
        kin = _EN_KIN_STEP.match(rest)
        if kin is not None:  # "X had a father-in-law": the spouse, then the spouse's father
            steps.extend(_kin_steps(_clean(kin["x"]), _EN_KIN[kin["kin"].lower()], len(steps) + 1))
            token = f"#{len(steps)}"
            continue
        # an agent noun the question calls "he" or "she" names a person, not a firm
        person = ref.person or (idx == target and bool(_PRONOUN_GENDER.keys() & words))
        token = (
            rest
            if re.fullmatch(r"#\d+", rest)
            else _add_bridge(
                steps,
                rest,
                ref.noun,
                "PERSON" if person else head_noun_type(ref.noun.split()[-1]),
            )
        )
    if not steps:
        return None  # a question about the statement's named subject: planned as it stands
    final = asked.replace(_REFERENT, token)
    kind = answer_type(final)
    final = _decompose(final, steps)
    if target == 0 and refs[0].noun and predicate:
        # What the statement says of its subject finds the passage: "#1 was wound up in
        # 1927. Who bought the barn #1 had worked in"
        final = f"{token} {predicate}. {final}"
    return _bridge_plan(question, steps, final, kind)


_NAME_OF_STEP = re.compile(
    r"(?i)^(?:what|how)\s+(?:was|is|were|are)\s+#(?P<n>\d+)\s+(?:called|named|known\s+as)$"
    r"|^(?:what|which)\s+(?:was|is)\s+(?:the\s+name\s+of\s+#(?P<m>\d+)|#(?P<k>\d+)['’]s\s+name)$"
)


def _bridge_plan(question: str, steps: list[PlanStep], final: str, kind: AnswerType) -> Plan:
    """A bridge plan: ``steps``, then the lookup of ``final`` (which names earlier answers)."""
    final = _clean(final)
    named = _NAME_OF_STEP.match(final)
    if named is not None and steps and (named["n"] or named["m"] or named["k"]) == str(len(steps)):
        # "… set up a studio. What was it called?": the name asked is the last bridge's answer
        # itself, not a lookup about it.
        last = steps[-1].model_copy(update={"kind": "lookup"})
        return Plan(
            question=question,
            steps=[*steps[:-1], last],
            strategy="bridge",
            answer_type=last.answer_type,
        )
    where = _WHERE_IS_STEP.match(final)
    if (
        where is not None
        and steps
        and where["n"] == str(len(steps))
        # (a seat is written as its town, its street or quay: a larger unit, "which province",
        # is one hop more)
        and not re.search(
            r"\b(?:province|state|country|county|region|district|nation|continent|prefecture)\b",
            where["lead"],
            re.IGNORECASE,
        )
    ):
        seat = _SEAT_OF.match(steps[-1].query)
        if seat is not None:
            # "In which town is the headquarters of #1": where an organisation sits is one
            # lookup, not its seat first and then the town that holds it.
            final = f"{where['lead']}the {steps[-1].query}{where['tail']}"
            steps.pop()
    aspect = _ORDINAL_ASPECT.fullmatch(steps[-1].query) if steps else None
    if (
        aspect is not None
        and kind in ("NUMBER", "DATE")
        and head_noun_type(aspect["noun"].split()[-1]) == "NAME"
        and re.search(rf"#{len(steps)}\b", final)
    ):
        # "How many copies of #2 were printed", #2 the first edition of a book: an edition, a
        # first peal, has no name of its own to find first; the value is asked of it as the
        # question describes it.
        final = re.sub(rf"#{len(steps)}\b", f"the {steps[-1].query}", final)
        steps.pop()
    steps.append(
        PlanStep(
            index=len(steps) + 1,
            query=_clean(final),
            needs="the final answer",
            depends_on=_deps(final),
            kind="lookup",
            answer_type=kind,
        )
    )
    strategy = "bridge" if len(steps) > 1 else "single"
    return Plan(question=question, steps=steps, strategy=strategy, answer_type=kind)


# An ordinal and an untyped noun of something ("first edition of #1", "the second peal of X").
_ORDINAL_ASPECT = re.compile(
    r"(?:the\s+)?(?:first|second|third|fourth|fifth|last|original|earliest|final|latest)\s+"
    r"(?P<noun>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:of|that|which)\s+\S.*",
    re.IGNORECASE,
)
# "which city is #2 in", "where is #2 based": a place asked of the last step's answer …
_WHERE_IS_STEP = re.compile(
    r"^(?P<lead>(?:(?:in|on|at)\s+)?(?:which|what)\s+[a-z]+\s+(?:is|was|are|were)\s+"
    r"|where\s+(?:is|was)\s+)"
    r"#(?P<n>\d+)(?P<tail>(?:\s+(?:located|based|situated))?(?:\s+in)?)$",
    re.IGNORECASE,
)
# … when that step is the seat of an organisation ("headquarters of #1", "head office of X").
_SEAT_OF = re.compile(
    r"^(?:head\s+office|headquarters|main\s+office|registered\s+office|seat|base|home\s+base)"
    r"\s+of\s+\S.*$",
    re.IGNORECASE,
)


def _en_bridge(q: str, question: str) -> Plan | None:
    steps: list[PlanStep] = []
    final = _decompose(q, steps)
    if not steps:
        return None
    kind = answer_type(q)
    if re.fullmatch(
        rf"(?:(?:what|who)\s+(?:is|was|are|were|became|becomes)|name|identify|give|state|list|"
        rf"find)\s+(?:the\s+name\s+of\s+|the\s+)?#{len(steps)}\.?",
        final,
        re.I,
    ):
        # "What is X's date of birth?", "What is the name of the southern tip of X?", "Name
        # the painter who …": the last phrase is what is asked, not a bridge to a further
        # question about it.
        last = steps.pop()
        if not steps and not re.match(r"(?i)(?:what|who)\b", final):
            # "Name the painter who …": the phrase itself is the one step.
            step = last.model_copy(update={"kind": "lookup", "needs": "the final answer"})
            return Plan(question=question, steps=[step], strategy="single", answer_type=kind)
        if not steps:
            return None
        final = last.query
        kind = kind if kind != "NAME" else last.answer_type
    return _bridge_plan(question, steps, final, kind)


_REL_WORD = re.compile(r"\b(?:that|which|who|whom|whose|where|when)\b")
_DET_WORD = re.compile(r"\b(?:the|a|an)\s", re.IGNORECASE)
# A name, with the parenthetical that qualifies it ("Merry-Go-Round (Osk Song)", "Power of
# Women (1923 Film)"): the bracket is part of the name it follows, not a step of its own.
_NAME = (
    r"(?:[A-Z0-9\"“][\w\-.’'”\"]*)(?:(?:\s+|,\s*)(?:(?:of|the|and|de|von|van|du|la|le|for|in|on|"
    # a year after "in" or "on" dates the clause, it is no part of the name ("X in 1875")
    r"No|a|&)\s+)*(?!(?<=\b[io]n\s)\d)[A-Z0-9\"“][\w\-.’'”\"]*)*(?:\s+\([^()?]{1,60}\))?"
)
# A noun phrase set before the question that refers back to it: "The man who built X - where
# was he born?", "The founder of Y, when did she die?".
_EN_TOPIC = re.compile(
    rf"^(?P<np>(?:the\s+|{_NAME}['’]s\s+|(?=(?:[a-z]+\s+){{1,2}}(?:of|at|in|for|behind)\s))"
    r"[^,;:?]+?)"
    r"\s*(?:\s[-–—]+|[,:]|[–—])\s+"
    r"(?P<q>(?:who|whom|whose|what|which|where|when|how|in\s+(?:which|what)|did|does|do|is|was"
    r"|are|were|has|have|had)\b.+)$",
    re.IGNORECASE,
)


_OF_NAME = re.compile(
    # a year may date the noun as an ordinal ranks it: "the 1997 winner of X", "the first …"
    rf"(?:\bthe|^The)\s+(?P<noun>(?:1\d{{3}}\s+|20\d\d\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}})"
    rf"\s+(?P<prep>of|by)\s+"
    rf"(?P<the>the\s+)?"
    # up to three lower-case words before the name, a relative word apart ("the first clerk
    # of the scales at the X")
    rf"(?P<mid>(?:(?!(?:of|which|that|who|whom|whose|where|when)\b)[a-z]+\s+){{0,3}}?)"
    rf"(?P<name>{_NAME}|#\d+)"
    # "the maker of the Tollby violin": after "the", a name and a common noun (the head)
    rf"(?P<tail>\s+[a-z][\w\-]*)?"
)
# Nouns of events (a closed class of deverbal nouns): "the death of X" names no other entity.
_EVENT_NOUNS = frozenset(
    [
        "death",
        "birth",
        "marriage",
        "wedding",
        "founding",
        "foundation",
        "opening",
        "closing",
        "closure",
        "retirement",
        "burial",
        "funeral",
        "election",
        "coronation",
        "baptism",
        "dissolution",
        "demolition",
        "completion",
        "establishment",
    ]
)
# Complex prepositions of the form "at/in the N of": the noun names a relation to X, not an
# entity of its own ("succeeded Ada Moe at the head of the X", "in the employ of Y").
_COMPLEX_PREP_NOUNS = frozenset(["head", "helm", "service", "employ", "pay"])
_SUBJECT_PREP_NAME = re.compile(
    rf"^The\s+(?P<noun>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)\s+"
    rf"(?P<prep>behind|at|in|for|from|with|on)\s+(?P<the>the\s+)?(?P<name>{_NAME})"
    rf"(?=\s+(?P<verb>[a-z]+)\b)"
)
_DO_AUX = re.compile(r"\b(?:do|does|did)\b", re.IGNORECASE)
_POSS = re.compile(
    rf"(?<!#)(?P<owner>{_NAME}|#\d+)['’]s?\s+"
    # a title after an ordinal is capitalised as often as not: "the Guild's first Master"
    r"(?P<noun>(?:first|second|third|last|current|founding|present)\s+[A-Z][a-z]+\b"
    r"|[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})"
)
# Words that end a noun phrase: auxiliaries, prepositions, pronouns, determiners, wh-words.
_FUNCTION = AUXILIARIES | ENGLISH_STOPWORDS | {"not"}
# Where a noun phrase ends: a function word, a preposition or particle, a subordinator.
_NP_STOP = (
    _FUNCTION
    | STRANDED_PARTICLES
    | _SUBORDINATORS
    | {"between", "during", "near", "beside", "behind", "beyond", "despite", "like", "upon"}
    | {"via", "per", "than", "whose", "whom"}
)
_DET_WINDOW = 5
_PARTICLE_OR_AS = STRANDED_PARTICLES | {"as"}
_MAIN_VERB = re.compile(
    r"\s(?:is|was|are|were|has|had|lies|lay|stands|stood|became|remains|located|based)\s"
)
# "the east of X", "the rest of X": spatial and partitive nouns locate, they name no entity.
_PARTITIVE = frozenset(
    [
        "north",
        "south",
        "east",
        "west",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
        "centre",
        "center",
        "middle",
        "rest",
        "part",
        "end",
        "beginning",
        "top",
        "bottom",
        "side",
        "edge",
        "half",
        "majority",
    ]
)


# "the city of Tollby", "the province of Westmark": a class noun and "of" before a name is an
# apposition (the city *is* Tollby), not a relation to it as in "the capital of Westmark".
_APPOSITIVE_CLASS = frozenset(
    [
        "city",
        "town",
        "village",
        "hamlet",
        "borough",
        "municipality",
        "commune",
        "province",
        "county",
        "parish",
        "state",
        "island",
        "isle",
        "kingdom",
        "republic",
        "duchy",
        "principality",
        "emirate",
        "prefecture",
    ]
)


def _noun_phrase(words: list[str]) -> list[str]:
    """The noun phrase a possessive or determiner opens: up to 3 words, stopping at function
    words and verbs, ending at the last word with a known type when there is one."""
    phrase: list[str] = []
    for w in words[:3]:
        low = w.lower()
        if low in _FUNCTION or not re.fullmatch(r"[a-z][\w\-]*", w):
            break
        if phrase and ((low.endswith("ed") and len(low) > 4) or low.endswith("ing")):
            break  # a participle ("the mill built …"), not "shed" or "bed"
        phrase.append(w)
    typed = [i for i in range(len(phrase)) if head_noun_type(phrase[i]) != "NAME"]
    return phrase[: typed[-1] + 1] if typed else phrase[:1]


def _relative_head(words: list[str]) -> list[str]:
    """The noun phrase a relative clause modifies: every word between the determiner and the
    relative word when they are all plain words of no known type (a compound: "the ferry line
    that …"), else :func:`_noun_phrase` ("the company headquartered in X that …" → company)."""
    plain = len(words) <= 3 and all(
        re.fullmatch(r"[a-z][\w\-]*", w)
        and w not in _FUNCTION
        # a participle closing the words is the clause's ("the mill built …"); before another
        # word it modifies it ("the shipping line that …", "the ruined abbey that …")
        and (i < len(words) - 1 or not w.endswith(("ed", "ing")))
        and head_noun_type(w) == "NAME"
        for i, w in enumerate(words)
    )
    return list(words) if plain and words else _noun_phrase(words)


# Ordinals and the adjectives that work like them modify a noun; they head no noun phrase
# ("the first Pan-Osk congress was held": no contact relative on "first").
_ORDINAL_LIKE = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|next|only|same|"
    r"former|latter|original|final"
)
_PREP = r"(?:of|in|on|at|by|for|to|from|with|and|or|as)"
# An adjective of age or generation right before a name modifies the name ("the elder Orm
# Vell", "the late Ada Moe", "the young Ivo Lund"): no noun that a contact relative could head.
_NAME_ADJECTIVE = r"elder|younger|eldest|youngest|late|young|old"
_CONTACT = re.compile(
    rf"(?:\bthe|^The)\s+(?!(?:{_ORDINAL_LIKE})\b)(?!(?:{_NAME_ADJECTIVE})\s+{_NAME})"
    # one noun or a compound of two ("the record label Ada Moe signed with")
    rf"(?P<noun>(?:(?!{_PREP}\b)[a-z][\w\-]*\s+(?!{_PREP}\b))?"
    rf"[a-z][\w\-]*)\s+(?P<name>(?:the\s+(?:{_NAME_ADJECTIVE})\s+)?{_NAME})"
    rf"\s+(?P<rest>[a-z][^,?]*)$"
)
# A be-auxiliary right before a noun phrase makes it the subject of a question whose main verb
# follows it: "When was the band Queen formed?", "Was the film released in 1990?".
_BE_SUBJECT = re.compile(
    r"(?:^|\b(?:when|where|how|why|what|which|who))\s*(?:is|was|are|were)\s+$", re.IGNORECASE
)
_DETERMINERS = frozenset(["the", "a", "an", "this", "that", "these", "those"])
_OF_COMPOUND = re.compile(r"\s+of\s+(?!the\b|a\b|an\b)[a-z][\w\-]*(?=\s+[a-z]|\s*$|[,?])")
_WORD_AT = re.compile(r"\S+")
_AUX_BEFORE = re.compile(r"\b(?:was|were|is|are|been|be)\s*$")
_PASSIVE_AFTER_NAME = re.compile(
    r"(?<=[A-Za-z0-9’'])\s+(?P<verb>[a-z]+)\b(?=\s+(?:by|in|on|at|to|from|as|into|after|for)\b|\s*\??$)"
)
_NAME_AT = re.compile(rf"{_NAME}|#\d+")


_DO_SUBJECT = re.compile(
    r"(?:^|\b(?:when|where|how|why|what|which|who)(?:\s+\S+){0,3}?)\s*(?:do|does|did)\s+$",
    re.IGNORECASE,
)
_CLAUSE_TOKEN = re.compile(r"\"[^\"]+\"|“[^”]+”|\S+")
_BE = frozenset(["is", "was", "are", "were"])


def _do_clause_end(text: str, start: int, whose: bool) -> int | None:
    """Where a relative clause inside the subject of a do-question ends: after a participle
    ("where the Olympics will be held"), a name or a quoted title ("who prepared "X""), a
    stranded copula ("where X is"), a whose-clause's complement ("whose sport is jousting") or
    a possessive's noun ("that carried the ore of X's company"), when the next word is a bare
    verb (lower-case, neither a function word nor a participle)."""
    toks = [(m.group(0), m.end()) for m in _CLAUSE_TOKEN.finditer(text, start)]
    for i in range(len(toks) - 1):
        word = toks[i][0]
        prev = toks[i - 1][0] if i > 0 else ""
        before_prev = toks[i - 2][0] if i > 1 else ""
        if word.endswith(",") and len(word) > 1:
            word = word[:-1]
            toks[i] = (word, toks[i][1] - 1)
        # "that carried the ore of X's company open?": the possessed noun, then the question's
        # last word, its bare verb: the clause ends after the noun, not after the owner.
        owner_of_last = word.endswith(("'s", "’s")) and i + 3 == len(toks)
        ends = not owner_of_last and (
            word[0] in '"“'
            or is_participle(word)
            or (word[0].isupper() or word[0].isdigit() or word[0] == "#")
            or (prev.endswith(("'s", "’s")) and i + 2 == len(toks))
            or (word in _BE and prev[:1].isupper())
            or (whose and prev in _BE and word not in _FUNCTION)
            or (prev in _DETERMINERS and before_prev in _BE and word not in _FUNCTION)
        )
        nxt = toks[i + 1][0]
        if (
            ends
            and i > 0
            and nxt.isalpha()
            and nxt.islower()
            and nxt not in _FUNCTION
            and (not is_participle(nxt) or nxt in BARE_PARTICIPLES)
        ):
            return toks[i][1]
    return None


_CLAUSE_WH = frozenset(["what", "which", "where", "who", "when", "how", "whose"])
_FINITE = _BE | {"has", "had", "did", "does", "do"}


def _verb_form(word: str) -> bool:
    """A participle or a simple past, "died" included (too short for :func:`is_participle`;
    "speed", "breed" are nouns)."""
    low = word.lower()
    return (
        is_participle(low)
        or _finite_verb(low)
        or (low.endswith("ed") and not low.endswith("eed") and len(low) >= 4)
    )


def _finite_verb(word: str) -> bool:
    """A verb form that heads a clause of its own: a be-, have- or do-form, a simple past."""
    low = word.lower()
    return low in _FINITE or low in IRREGULAR_PAST or (low.endswith("ed") and is_participle(low))


# "Which country is …", "What city was …": a wh-phrase and the main clause's copula first.
_COPULA_WH_FIRST = re.compile(r"(?i)(?:which|what)(?:\s+[a-z]+){1,2}\s+(?:is|was|are|were)\s")


def _has_verb(clause: str) -> bool:
    """Does ``clause`` (what follows a relative word) hold a lower-case finite verb or
    participle? A lower-case content word right after the relative word is its verb too
    ("that supplies X"; the relative word is then the subject)."""
    words = re.findall(r"[A-Za-z][\w\-]*", clause)
    if words and words[0].islower() and words[0] not in _FUNCTION:
        return True
    return any(w.islower() and (_finite_verb(w) or is_participle(w)) for w in words)


def _clause_close(text: str, start: int) -> int | None:
    """Where a relative clause opening at ``start`` gives way to the clause around it: at a
    comma that a verb or a question follows ("Peak Q, in the state where Tollby is located, is
    part of what range", "the river which the Osk turns into, where did …") or that comes
    before the question's last word ("…, die?"); after a participle that a finite verb follows
    ("the area where Tollby is located became a state", "the city where Ada Moe was born is
    located …"); before a second be-verb once the clause has its own verb ("the school where
    Ada got her degree is located"). None when none of these happens."""
    toks = [(m.group(0), m.start(), m.end()) for m in _CLAUSE_TOKEN.finditer(text, start)]
    verb = bool(toks) and (_finite_verb(toks[0][0]) or is_participle(toks[0][0]))
    for i in range(1, len(toks) - 1):
        word, _, end = toks[i]
        nxt = toks[i + 1][0].lower()
        if word.endswith(","):
            after = toks[i + 2][0].lower() if i + 2 < len(toks) else ""
            last = i + 2 == len(toks) and nxt.rstrip("?").isalpha()
            if (
                nxt in _FINITE - {"do", "does", "did"}
                or (nxt in _CLAUSE_WH and (after in AUXILIARIES or nxt in ("what", "which", "how")))
                or (last and nxt.rstrip("?") not in _FUNCTION)  # "…, die?": the main verb
            ):
                return end - 1
        elif is_past_participle(word) and _finite_verb(nxt):
            return end
        elif (
            verb
            and i + 2 == len(toks)
            and _COPULA_WH_FIRST.match(text)
            and word.islower()
            and is_past_participle(word)
            and nxt.rstrip("?") in STRANDED_PARTICLES
        ):
            # "which country is the company that bought X based in?": a participle and its
            # stranded preposition close the question; they are the main clause's
            return toks[i][1]
        elif (
            verb
            and nxt in _BE
            and word.islower()
            and (word not in _FUNCTION or word in STRANDED_PARTICLES)
        ):
            return end  # "the school where Ada got her degree is located": a second verb
        verb = verb or (word.islower() and (_finite_verb(word) or is_participle(word)))
    return None


_HAVE_QUESTION = re.compile(
    r"^(?:what|which|how)\b[^?,]*?\s(?:had|has|have)\s+the\s", re.IGNORECASE
)


def _participial_bridge(text: str) -> tuple[int, int, str, str, str] | None:
    """The innermost "the N <participle> [particle] X": "the film directed by Ada Moe", "the
    country containing Tollby", "the actor born in 1970", "the book named after #1"."""
    found: tuple[int, int, str, str, str] | None = None
    for det in re.finditer(r"\bthe\s+", text):
        words = [(w.group(0), w.start(), w.end()) for w in _WORD_AT.finditer(text, det.end())]
        head: list[str] = []
        k = 0
        while k < min(3, len(words)):
            w = words[k][0]
            if not re.fullmatch(r"[a-z][\w\-]*", w) or w in _FUNCTION or is_participle(w):
                break
            head.append(w)
            k += 1
        if not head or k >= len(words) or not is_participle(words[k][0]):
            continue
        if head[-1] in _PARTITIVE:
            continue
        if _BE_SUBJECT.search(text[: det.start()]):
            # "When was the book compiled by X printed?": the subject's participle, when a
            # passive main verb closes the question after it ("When was the band Queen
            # formed?" has none: its participle is the main verb).
            main_at = _main_participle(text)
            if main_at is None or main_at <= words[k][1]:
                continue
        j = k + 1
        while j < len(words) and j <= k + 2 and words[j][0] in _PARTICLE_OR_AS:
            j += 1
        if j >= len(words):
            continue
        obj_start = words[j][1]
        name = _NAME_AT.match(text, obj_start)
        if name is not None and (text[obj_start].isupper() or text[obj_start] in "#0123456789"):
            end = name.end()
        elif words[j][0] in _DETERMINERS:
            end = len(text.rstrip(" ?"))  # "the artist known as the creator of X": to the end
            main_verb = _main_participle(text)
            if main_verb is None and _HAVE_QUESTION.match(text):
                # "What depth had the shaft of the mine managed by the father of X reached by
                # 1870?": the perfect's participle after the last name is the main verb.
                main = _PASSIVE_AFTER_NAME.search(text, obj_start)
                if main is not None and is_participle(main["verb"]):
                    main_verb = main.start("verb")
            if main_verb is not None and obj_start < main_verb:
                end = len(text[:main_verb].rstrip())  # … but not the question's own verb
            elif _DO_AUX.search(text, 0, det.start()) and (
                owner := _NAME_AT.search(text, obj_start)
            ):
                # "How many hands did the mill founded by the son of X employ?": a
                # do-question's bare verb follows the object, which ends with its name.
                end = owner.end()
        else:
            continue
        step = _clean(f"{' '.join(head)} {text[words[k][1] : end]}")
        found = (det.start(), end, step, " ".join(head), "")
    return found


# An ordinal before a noun and an infinitive after it make a relative clause: "the first
# woman to captain X" is the woman who first captained X (the ordinals are a closed class).
_INFINITIVAL = re.compile(
    r"\bthe\s+(?P<head>(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"last|only|next|sole|final)(?:\s+[a-z][\w\-]*){1,2}?)\s+to\s+(?P<verb>[a-z]+)\s+"
)


def _infinitival_bridge(text: str) -> tuple[int, int, str, str, str] | None:
    """The last "the <ordinal> N to <verb> X": "the first woman to captain the Tollby
    Rowing Club" → the step "first woman to captain the Tollby Rowing Club"."""
    found: tuple[int, int, str, str, str] | None = None
    for m in _INFINITIVAL.finditer(text):
        if any(w in _FUNCTION for w in m["head"].split()[1:]) or m["verb"] in _FUNCTION:
            continue
        obj_start = m.end()
        name = _NAME_AT.match(text, obj_start)
        if name is not None and (text[obj_start].isupper() or text[obj_start] == "#"):
            end = name.end()
        elif text[obj_start:].split(" ", 1)[0] in _DETERMINERS:
            end = len(text.rstrip(" ?"))
        else:
            continue
        main_at = _main_participle(text)
        if main_at is not None and obj_start < main_at < end:
            end = len(text[:main_at].rstrip())  # the question's own verb closes the object
        if end >= len(text.rstrip(" ?")) and _COPULA_LEAD.match(text[: m.start()]):
            continue  # "Who was the first woman to captain X?" asks the phrase itself
        head = " ".join(m["head"].split()[1:])
        step = _clean(text[m.start() + len("the ") : end])
        found = (m.start(), end, step, head, "")
    return found


# A wh-question whose verb is a form of "be": a participle closing it is its main verb.
_BE_QUESTION = re.compile(
    r"(?i)^(?:(?:in|at|from|on|to|for|by)\s+)?(?:where|when|what|which|who|how)\b(?:\s+[a-z]+){0,2}?"
    r"\s+(?:is|was|are|were)\s"
)


def _contact_subject(text: str, m: re.Match[str]) -> int | None:
    """Where the main verb begins after a contact relative clause in the question's subject
    ("The company X bought in 2018 | was founded where?"), or None when there is none."""
    first = m["rest"].split()[0]
    main = _MAIN_VERB.search(text, m.start("rest"))
    if main is None or first in _FINITE or not _finite_verb(first):
        return None
    return main.start()


def _contact_relative(text: str) -> tuple[int, int, str, str, str] | None:
    """A relative clause without "that": "the country Ada Moe is from", "the band Ada Moe put
    together", "the company X is part of (dissolve)"; the gap shows as a stranded particle, or
    as a transitive verb closing an object noun phrase ("who managed the band Ada Moe formed")."""
    m = _CONTACT.search(text)
    if m is not None and m.start() == 0 and _contact_subject(text, m) is None:
        m = _CONTACT.search(text, 1)  # no clause in the subject: a later noun phrase may hold one
    if m is None:
        return None
    if m.start() == 0:
        # "The company X bought in 2018 was founded where?": the subject's clause (a past verb
        # after the name) runs to the main verb
        main_at = _contact_subject(text, m)
        if main_at is None:
            return None
        clause = _clean(text[m.start("rest") : main_at])
        return 0, main_at, _clean(f"{m['noun']} that {_clean(m['name'])} {clause}"), m["noun"], ""
    if re.search(r"\b(?:that|which|whom)\s*$", text[: m.start()]):
        return None  # "the ship that the engineer Ada Moe designed": the clause's subject
    words = m["rest"].split()
    gap = None
    for i in range(len(words) - 1, 0, -1):
        after = words[i + 1 :]
        if (
            words[i] in STRANDED_PARTICLES
            and len(after) <= 2
            and all(w.isalpha() and w.islower() and w not in _DETERMINERS for w in after)
        ):
            gap = i
            break
    noun, name = m["noun"], _clean(m["name"])
    if gap is not None:
        clause = " ".join(words[: gap + 1])
        end = m.start("rest") + m["rest"].index(clause) + len(clause) if clause else m.end()
        return m.start(), end, _clean(f"{noun} that {name} {clause}"), noun, ""
    if words[0] in _FUNCTION:
        return None
    if (
        _DO_AUX.search(text[: m.start()])
        and not _finite_verb(words[0])
        and not is_participle(words[0])
    ):
        # "In what year did the producer Ada Moe die?": after "did", the bare verb after the
        # name is the question's own; the name is in apposition to the noun
        return None
    if _BE_SUBJECT.search(text[: m.start()]) or _BE_QUESTION.match(text):
        # "When was the band Queen formed?", "Where was the author of the novel Tollby born?":
        # apposition and the main verb; "When was the mill Ada Moe built demolished?": the
        # clause's verb, then the main one closing the question.
        main_at = _main_participle(text)
        if (
            main_at is None
            and re.search(r"\b(?:is|are)\s*$", text[: m.start()], re.IGNORECASE)
            and len(words) >= 2
            and words[0] not in _FINITE
            and _finite_verb(words[0])
        ):
            # "Where is the clinic X bought in 2012?": a present copula takes no past passive,
            # so the past verb after the name is a clause's of its own, X its subject
            return m.start(), m.end(), _clean(f"{noun} that {name} {m['rest']}"), noun, ""
        if main_at is None or main_at <= m.start("rest"):
            return None
        clause = _clean(text[m.start("rest") : main_at])
        return m.start(), main_at, _clean(f"{noun} that {name} {clause}"), noun, ""
    return m.start(), m.end(), _clean(f"{noun} that {name} {m['rest']}"), noun, ""


_QUESTION_LEAD = re.compile(
    r"^(?:who|whom|whose|what|when|where|which|why|how|in|on|at|from|to|for|is|was|are|were|"
    r"do|does|did|has|have|had|can|could|will|would|name|list|tell|give)\b",
    re.IGNORECASE,
)


# A be-question whose subject is a long noun phrase ends in its passive main verb: "Where was
# the founder of the company that was bought by X in 2016 born?", "In which city is the
# company founded by the sister of X headquartered?".
_BE_QUESTION = re.compile(
    r"^(?:(?:in|at|on|from|to|for)\s+)?(?:(?:which|what)\s+[a-z]+|where|when|who|how\s+[a-z]+)?\s*"
    r"(?:is|was|are|were)\s+the\s",
    re.IGNORECASE,
)
_LAST_WORD = re.compile(r"(?<=\s)(?P<word>[a-z]+)\s*\??\s*$")


# An adverb of time or manner right before the main participle goes with it: "first
# published", "originally built", "later renamed".
_ADVERB_BEFORE = re.compile(
    r"\s((?:first|once|later|originally|formerly|subsequently|finally|eventually|last|"
    r"then|also|still|again|[a-z]{3,}ly))\s+$"
)


def _main_participle(text: str) -> int | None:
    """Where the passive main verb closing a be-question starts, when there is one."""
    if not _BE_QUESTION.match(text):
        return None
    if re.match(r"(?i)who\s+(?:is|was|are|were)\s", text) and _REL_WORD.search(text):
        # "Who is the director of the film that Ada produced": asking who someone is, the
        # closing participle is the relative clause's verb, not a passive main verb.
        return None
    how = re.match(r"(?i)how\s+(?P<adj>[a-z]+)\s+(?P<be>is|are|was|were)\s", text)
    if (
        how is not None
        and how["adj"].lower() in _MEASURE_ADJ
        and (how["be"].lower() in ("is", "are") or how["adj"].lower() != "long")
    ):
        # "How long is the quay that … the company X founded?": the adjective is the copula's
        # complement, so the closing participle belongs to a relative clause ("How long was
        # the bridge closed?" keeps its passive: a duration).
        return None
    last = _LAST_WORD.search(text)
    if last is None or not is_participle(last["word"]):
        return None
    before = text[: last.start()].split()
    # It closes the subject noun phrase ("…Holdings in 2016 born", "…X's director
    # headquartered"), not a preposition or auxiliary ("the city it is located in").
    if not before or before[-1].lower() in _FUNCTION:
        return None
    adverb = _ADVERB_BEFORE.search(text, 0, last.start())
    if adverb is not None and len(before) >= 2 and before[-2].lower() not in _FUNCTION:
        return adverb.start(1)  # "…from 1885 first published": the adverb is the verb's
    return last.start()


# A question asked in statement order ends on its wh-phrase: "… came from which hamlet?",
# "… married whom?", "… died in what year?".
_IN_SITU_WH = re.compile(
    r"\s(?:(?:in|at|from|to|of|for|by|with|on|into|under)\s+)?"
    r"(?:(?:which|what)(?:\s+[a-z][\w\-]*){0,2}|whom|who|where|when|how\s+many(?:\s+[a-z]+)?)"
    r"\s*\??\s*$",
    re.IGNORECASE,
)
_AUXILIARY = _BE | {"has", "had", "have", "been", "being", "be"}


def _in_situ_verb(text: str, start: int) -> int | None:
    """Where the main verb of a statement-order question begins: the last finite verb before
    its closing wh-phrase, with the auxiliaries before it ("The man who kept the boats came
    from which hamlet?" → "came"; "… who built X was later sold to whom?" → "was"), after at
    least two words of the relative clause opening at ``start``; None when the question does
    not end on a wh-phrase."""
    wh = _IN_SITU_WH.search(text, start)
    if wh is None:
        return None
    words = list(re.finditer(r"[A-Za-z][\w'\-]*", text[start : wh.start()]))
    for n in range(len(words) - 1, 1, -1):
        low = words[n].group(0).lower()
        if words[n].group(0)[0].isupper():
            continue
        # the word right before the wh-phrase in -s is the verb in the present ("… holds how
        # many volumes?"): a noun there would take a preposition before the wh-phrase
        present = (
            n == len(words) - 1
            and low.endswith("s")
            and not low.endswith(("ss", "us", "is"))
            and low not in _FUNCTION
        )
        if (
            _finite_verb(low)
            or present
            or (low.endswith("ed") and len(low) >= 4)
            or low in _AUXILIARY
        ):
            while n > 2 and words[n - 1].group(0).lower() in _AUXILIARY | {"later", "first"}:
                n -= 1
            return start + words[n].start()
    return None


_IN_SITU_NP = re.compile(r"\s+(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*\s*\??\s*")


def _find_bridge(text: str) -> tuple[int, int, str, str, str] | None:
    """The innermost bridge in ``text``: (start, end, step query, head noun, text that
    replaces the span besides ``#n``), or None."""
    in_phrase = not _QUESTION_LEAD.match(text)  # a noun phrase (an outer bridge's own query)
    for rel in reversed(list(_REL_WORD.finditer(text))):
        if re.match(r"\s+(?:do|does|did)\b", text[rel.end() :]):
            continue  # "…, where did Germany have …": a question's inversion, no relative
        in_place = _IN_SITU_NP.fullmatch(text, rel.end())
        if (
            rel.group(0).lower() == "which"
            and in_place is not None
            and re.search(rf"\b{_PREP}\s+$", text[: rel.start()])
            and not any(w in _FUNCTION for w in in_place.group(0).split())
            and not _verb_form(in_place.group(0).split()[-1].rstrip("?"))  # "… which burned"
        ):
            continue  # "… took a seat at which streaming service?": the wh-phrase asks in place
        before = text[: rel.start()]
        dets = list(_DET_WORD.finditer(before))
        if not dets:
            continue
        det = dets[-1]
        head = before[det.end() :].strip(" ,")
        words = head.split()
        if not head[:1].islower() or len(words) > _DET_WINDOW:
            continue
        clause_end = len(text)
        extraposed = any(is_participle(w) for w in words[len(_relative_head(words)) :])
        if _BE_SUBJECT.search(before[: det.start()]) and not extraposed:
            # (An extraposed clause runs to the end: in "When was the school built where X
            # taught?" the main participle comes before the relative word.)
            # "When was the country that produced X taken by the British?": the subject's
            # clause ends where a participle follows its last name, the passive main verb.
            # The last such participle: "Where was the company that X acquired in 2018
            # founded?" — "acquired" is the clause's own verb, "founded" the main one.
            passives = [
                m
                for m in _PASSIVE_AFTER_NAME.finditer(text, rel.end())
                if is_participle(m["verb"])
                # "the town where #1 was born": an auxiliary before it makes the participle
                # the clause's own
                and not _AUX_BEFORE.search(text, 0, m.start("verb"))
            ]
            if passives and _has_verb(text[rel.end() : passives[-1].start("verb")]):
                # (a clause left without a verb keeps it: "What is the school where X
                # studied?" asks for the school, "studied" is the clause's)
                clause_end = passives[-1].start("verb")
        elif _DO_SUBJECT.search(before[: det.start()]):
            # "When did the state whose official sport is jousting make X its religion?": the
            # subject's clause ends where the bare main verb of the do-question begins.
            end = _do_clause_end(text, rel.end(), rel.group(0).lower() == "whose")
            if end is not None:
                clause_end = end
        main_verb = None if extraposed else _main_participle(text)
        if main_verb is not None and rel.end() < main_verb < clause_end:
            clause_end = main_verb
        close = _clause_close(text, rel.end())
        if close is not None and close < clause_end:
            clause_end = close
        if det.start() > 0 and in_phrase and _IN_SITU_WH.search(text):
            # "A former student of the man who ran X from 1975 is now head of which firm?":
            # in a question in statement order, a relative clause inside the subject ends
            # where the main verb begins.
            at = _in_situ_verb(text, rel.end())
            if at is not None and at < clause_end:
                clause_end = at
        if det.start() == 0:
            # "The shipyard that built X was located in which city?": the relative clause of
            # the subject ends at the main verb.
            main = _MAIN_VERB.search(text, rel.end())
            if main is not None and len(text[rel.end() : main.start()].split()) < 1:
                main = _MAIN_VERB.search(text, main.end() - 1)  # "who was hired …": the clause's
            situ = _in_situ_verb(text, rel.end())
            at = main.start() if main is not None else situ
            if main is not None and situ is not None and situ > main.start():
                at = situ  # "The library that X founded holds how many …": the verb before
                # the wh-phrase is the main one, the earlier past form the clause's
            if at is None:
                continue
            clause_end = at
        clause = _clean(text[rel.end() : clause_end])
        if len(clause.split()) < 2:
            continue
        head_words = _relative_head(words)
        trailing = " ".join(words[len(head_words) :])
        rel_word = rel.group(0)
        np_words = words[:-1]
        if (
            len(words) >= 3
            and words[-1] in STRANDED_PARTICLES
            and all(re.fullmatch(r"[a-z][\w\-]*", w) and w not in _FUNCTION for w in np_words)
        ):
            # "the salt works of which X was pan-reeve": the noun phrase before the
            # preposition is the head, whole; the preposition goes with the clause.
            head_words, trailing = np_words, words[-1]
        if trailing in STRANDED_PARTICLES:
            # "the country in which X is a citizen": the preposition goes with the clause.
            rel_word, trailing = f"{trailing} {rel_word}", ""
        step = _clean(f"{' '.join(head_words)} {rel_word} {clause}")
        return det.start(), clause_end, step, " ".join(head_words), trailing
    infinitival = _infinitival_bridge(text)
    if infinitival is not None:
        return infinitival
    post = _participial_bridge(text)
    if post is not None:
        return post
    contact = _contact_relative(text)
    if contact is not None:
        return contact
    m = _POSS.search(text)
    if m and (
        _SAINTS_PLACE.match(m["owner"].strip())
        or (is_participle(w := m["noun"].split()[0]) and not w.endswith("ing"))
    ):
        m = None  # "St Orvald's": a place, whole; "X's born": no noun owned
    if (
        m
        and _COPULA_LEAD.match(text[: m.start()])
        and _ADJUNCT_ONLY.fullmatch(text, m.end("owner"))
    ):
        # "Who was X's mentor at Y?", "What was X's revenue in 2023?": the possessed noun is
        # what the copula asks, an adjunct after it only narrows it
        m = None
    if (
        m
        and _WH_SUBJECT_VERB.match(text[: m.start()]) is not None
        and (
            not text[m.end() :].strip(" ?.")
            or _ADJUNCT_ONLY.fullmatch(text, m.end("owner")) is not None
        )
        and (owned := _noun_phrase(m["noun"].split()))
        and _no_class_of_its_own(owned[-1])
    ):
        # "Which mill weaves X's cloth?", as "… the cloth of X" (:data:`_WH_SUBJECT_VERB`):
        # a thing of X with no class of its own is no entity to find first
        m = None
    if m and (m.start() > 0 or len(text[m.end() :].split()) >= 2):
        phrase = " ".join(_noun_phrase(m["noun"].split()))
        if not m["noun"].islower():
            phrase = m["noun"]  # "first Master": an ordinal and a capitalised title, whole
        owned = m["noun"].split()
        if (
            not text[m.end() :].strip(" ?.")
            and not any(w in _FUNCTION or is_participle(w) for w in owned)
            and len(owned) > len(phrase.split())
            # "Which college did X's husband attend?": a do-question ends in its bare verb.
            and not _DO_AUX.search(text[: m.start()])
        ):
            # "X's timber subsidiary" closing the question: the compound ends at its last noun.
            phrase = m["noun"]
        elif (
            len(closing := text[m.start("noun") :].strip(" ?.").split()) >= 2
            and all(re.fullmatch(r"[a-z][\w\-]*", w) and w not in _FUNCTION for w in closing)
            and _DO_AUX.search(text[: m.start()])
        ):
            # "How many people does X's main auditorium seat?": a do-question closes on its
            # bare verb, so the noun phrase is every word before it, whatever else each word
            # could be ("weaving shed employ": shed is a noun here).
            phrase = " ".join(closing[:-1])
        end = m.start("noun") + len(phrase)
        compound = _OF_COMPOUND.match(text, end)
        if compound is not None:  # "X's city of birth", "X's country of origin"
            phrase += compound.group(0)
            end = compound.end()
        owner = _clean(m["owner"])
        return m.start(), end, f"{phrase} of {owner}", phrase, ""
    for m2 in _OF_NAME.finditer(text):
        # "the X of Y" closing the question is the question itself ("Who is the father of
        # Y?"), unless a real question precedes it around an earlier answer.
        if m2["noun"].split()[-1] in _PARTITIVE or m2["noun"] in _APPOSITIVE_CLASS:
            continue  # "the east of X" locates; "the village of X" is X itself
        if m2["noun"].split(" of ")[0].split()[-1] in _EVENT_NOUNS:  # ("place of birth": place)
            continue  # "the death of X" is an event of X, asked about X itself
        if m2["noun"][:1].isdigit() and head_noun_type(m2["noun"].split(None, 1)[1]) == "NAME":
            continue  # "the 1926 edition of X" dates X itself; "the 1997 winner of X" is one
        if m2["noun"] in _COMPLEX_PREP_NOUNS and re.search(r"\b(?:at|in)\s+$", text[: m2.start()]):
            continue  # "at the head of X" leads X, "in the service of X" serves it: no entity
        tail = (m2["tail"] or "").strip()
        after = text[m2.end() :].split()
        joined = bool(
            tail
            and m2["the"]
            and m2["name"][:1] != "#"
            and tail not in _FUNCTION
            and not _finite_verb(tail)
            and not is_participle(tail)
            # the noun phrase ends there: a verb, a participle or the end follows
            and (not after or after[0] in AUXILIARIES or is_participle(after[0]))
            # "When did the winner of the X Prize die?": a do-question closes on its bare verb
            and not (not after and _DO_AUX.search(text[: m2.start()]))
        )
        end = m2.end() if joined else m2.end("name")
        closes = end >= len(text.rstrip(" ?"))
        if closes and re.search(r"\bof\s*$", text[: m2.start()]):
            closes = False  # "the hometown of the director of F": the inner "of" is a bridge
        if closes and m2["name"].startswith("#") and len(text[: m2.start()].split()) >= 3:
            closes = False
        if closes and in_phrase:
            closes = False  # "film whose score was composed by the guitarist of X"
        if closes and not _COPULA_LEAD.match(text[: m2.start()]):
            # "What movie stars A, B and the producer of X": the phrase is the object of
            # another verb, an entity to find first; only "Who is the father of Y" asks it.
            closes = False
        # "The founder of X was born where?": the question's subject, before its verb.
        dated = _YEAR_ADJUNCT.match(text, end) if m2.start() == 0 else None
        if dated is not None:
            end = dated.end()  # "The bell cast by X in 1857 was hung …": the date is the subject's
        verb = text[end:].split()
        subject = (
            m2.start() == 0
            and len(verb) >= 2
            and (verb[0] in AUXILIARIES or _finite_verb(verb[0]))
            # "The capital of X is which city?" asks the phrase itself
            and not (verb[0] in _BE and verb[1].lower() in _CLAUSE_WH)
        )
        if (
            not closes
            and (
                _WH_SUBJECT_VERB.match(text[: m2.start()]) is not None
                or _REL_SUBJECT_VERB.search(text[: m2.start()]) is not None
            )
            and _no_class_of_its_own(m2["noun"])
        ):
            # "Who bought the barn of X?", "Which canal carried the ore of X?": the wh-word is
            # the subject of a verb whose object is a thing of X with no class of its own (a
            # barn, the ore): no entity to find first, the one sentence that tells it names X
            continue
        if (m2.start() > 0 or subject) and not closes:
            noun, name = _clean(m2["noun"]), _clean(m2["name"])
            if joined:
                name = f"the {name} {tail}"  # "the Tollby violin": the name modifies the noun
            elif re.search(rf"\b{_PREP}\s", m2["mid"]):  # "the clerk of the scales at X"
                name = f"{m2['the'] or ''}{m2['mid']}{name}"
            if dated is not None:
                name += dated.group(0)
            return m2.start(), end, f"{noun} {m2['prep']} {name}", noun, ""
    m3 = _SUBJECT_PREP_NAME.match(text)
    if m3 is not None and (m3["verb"] in AUXILIARIES or _finite_verb(m3["verb"])):
        # "The man behind X was born in which hamlet?": the question's subject, a noun and
        # a name joined by another preposition than "of".
        noun = _clean(m3["noun"])
        return 0, m3.end("name"), f"{noun} {m3['prep']} {m3['the'] or ''}{m3['name']}", noun, ""
    return None


# A prepositional adjunct and nothing else, to the end of the question: " at Stellcombe?",
# " in 2023?".
_ADJUNCT_ONLY = re.compile(
    r"['’]s?\s+(?:[a-z][\w\-]*\s+){0,2}?[a-z][\w\-]*"
    r"\s+(?:at|in|on|during|from|for|before|after|until)\s+(?!(?:the\s+)?\w+\s+(?:where|who|which|that)\b)"
    r"[^,;]*?\s*\??\s*",
    re.IGNORECASE,
)


def _no_class_of_its_own(noun: str) -> bool:
    """Is ``noun`` a thing with no class of its own and no title (a barn, the ore, cloth),
    which a wh-subject's verb reaches through its owner ("Who bought the barn of X")?"""
    return head_noun_type(noun) == "NAME" and noun.split()[-1].lower() not in TITLED_WORKS


# A year after "in" or "on", which dates a clause (no name runs over it, :data:`_NAME`).
_YEAR_ADJUNCT = re.compile(r"\s+(?:in|on)\s+\d{3,4}\b")
# A wh-subject and its past or present verb, right before "the N of X" (its object): "Who
# bought ", "Which canal carried ", "Which firm carried out ".
_SUBJECT_VERB = (
    r"(?:first\s+|later\s+|once\s+)?(?P<verb>[a-z]+(?:ed|es|s)|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")(?:\s+(?:out|up|over|on|off|in))?\s+(?:the\s+)?$"
)
_WH_SUBJECT_VERB = re.compile(
    r"^\s*(?:who|(?:which|what)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+" + _SUBJECT_VERB,
    re.IGNORECASE,
)
# … and a relative pronoun as the subject: "the engineer who worked out the structure of X".
_REL_SUBJECT_VERB = re.compile(r"\b(?:who|that|which)\s+" + _SUBJECT_VERB)


# A wh-word and a copula right before a noun phrase: the phrase is what the question asks.
# … or a verb that assigns a role as the copula does ("Who served as the first secretary of
# X?", "Who became the president of X?", "Who was appointed the N of X?").
_COPULA_LEAD = re.compile(
    r"^\s*(?:who|what|which|where|when)\b(?:\s+[a-z]+){0,2}?\s+"
    r"(?:(?:is|was|are|were)(?:\s+(?:appointed|named|elected|made)(?:\s+as)?)?"
    r"|(?:became|becomes|become|remained|remains)"
    r"|(?:served|serves|serve|acted|acts|act|worked|works)\s+as)\s*$",
    re.IGNORECASE,
)


# A relative clause that only says its head is an earlier answer, with the copula or a verb that
# assigns a role: "the man who served as #1", "the woman who became #2".
_COPULAR_RELATIVE = re.compile(
    r"[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}\s+(?:who|that|which)\s+"
    r"(?:was|is|were|are|became|becomes|remained|(?:served|serves|acted|acts)\s+as)\s+"
    r"(?:the\s+)?(?P<ref>#\d+)"
)


# "the N of (the)" right before a bridge: the noun phrase a group of people belongs to.
_OUTER_OF = re.compile(
    r"(?:\bthe\s+|^)(?P<noun>(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*)\s+of\s+(?:the\s+)?"
)


# Nouns that end in -s and name one thing ("the headquarters of X", "the works of Y").
_SINGULAR_IN_S = frozenset(
    ["headquarters", "works", "premises", "series", "species", "means", "news", "arms"]
)


# Collective nouns of the people a body counts or lists ("the payroll of X", "the staff of X"):
# a group, no one entity to find first.
_COLLECTIVE_NOUNS = frozenset(
    ["payroll", "staff", "roll", "roster", "register", "membership", "workforce", "personnel"]
)


def _plural_things(noun: str) -> bool:
    """A plural noun of things ("buildings", "crews", "papers"), or a collective noun ("the
    payroll of X"): several, no one entity."""
    word = noun.split()[-1] if noun else ""
    if word.lower() in _COLLECTIVE_NOUNS:
        return True
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "'s", "’s"))
        and word not in _SINGULAR_IN_S
        and head_noun_type(word[:-1]) not in ("PERSON", "DATE", "NUMBER")
    )


def _plural_people(noun: str) -> bool:
    """A plural noun of people ("governors", "members"): a group, no one person."""
    word = noun.split()[-1] if noun else ""
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
        and head_noun_type(word[:-1]) == "PERSON"
    )


def _decompose(text: str, steps: list[PlanStep], depth: int = 0) -> str:
    """Append the bridge steps of ``text`` to ``steps``; return ``text`` with ``#n``."""
    if len(steps) >= _MAX_BRIDGES or depth > 2 * _MAX_BRIDGES:
        return text
    found = _find_bridge(text)
    if found is None:
        return text
    start, end, step_query, head, trailing = found
    if _plural_things(head) and (start > 0 or end < len(text.rstrip(" ?"))):
        # "who bought its buildings", "coached the crews of X": a plural noun names several
        # things, no one entity to find first; the phrase stays in the question.
        phrase = _clean(f"the {_decompose(step_query, steps, depth + 1)} {trailing}")
        held = f"\x03{depth}"
        outer = _decompose(f"{text[:start]}{held}{text[end:]}", steps, depth + 1)
        return outer.replace(held, phrase, 1)
    group_of = _OUTER_OF.search(text, 0, start) if _plural_people(head) else None
    if group_of is not None and group_of.end() == start:
        # "the first chairman of the X's governors": a plural noun names a group, no one
        # entity to find first; the role of the group is the step ("first chairman of the
        # governors of X").
        if group_of.start() == 0 and end >= len(text.rstrip(" ?")):
            return text  # the phrase is that step itself
        start, head = group_of.start(), group_of["noun"].split()[-1]
        step_query = f"{group_of['noun']} of the {step_query}"
    inner = _decompose(step_query, steps, depth + 1)
    if len(steps) >= _MAX_BRIDGES + 1:
        return text
    same = _COPULAR_RELATIVE.fullmatch(_clean(inner))
    if same is not None:  # "the man who served as #1" is #1
        outer = _clean(f"{text[:start]} {same['ref']} {trailing} {text[end:]}")
        return _decompose(outer, steps, depth + 1)
    kin = _EN_KIN_STEP.match(_clean(inner))
    if kin is not None:  # "the father-in-law of #1": the spouse of #1, then that one's father
        steps.extend(_kin_steps(_clean(kin["x"]), _EN_KIN[kin["kin"].lower()], len(steps) + 1))
        index = len(steps)
    else:
        index = len(steps) + 1
        steps.append(
            PlanStep(
                index=index,
                query=_clean(inner),
                needs=f"the {head}",
                depends_on=_deps(inner),
                kind="bridge",
                answer_type=head_noun_type(head),
            )
        )
    outer = _clean(f"{text[:start]} #{index} {trailing} {text[end:]}")
    return _decompose(outer, steps, depth + 1)


# -- Kinship --------------------------------------------------------------------------------
# A compound kinship term is a path of basic relations (the language's own definitions):
# a paternal grandmother is the father's mother, a father-in-law the spouse's father, a
# stepmother the father's spouse. Terms whose path is ambiguous (uncle, grandfather without a
# side, sibling-in-law) are not expanded.
_EN_KIN = {
    "paternal grandfather": ("father", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"),
    "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"),
    "mother-in-law": ("spouse", "mother"),
    "stepmother": ("father", "spouse"),
    "stepfather": ("mother", "spouse"),
}
_ZH_KIN = {
    "祖父": ("父亲", "父亲"),
    "爷爷": ("父亲", "父亲"),
    "祖母": ("父亲", "母亲"),
    "奶奶": ("父亲", "母亲"),
    "外祖父": ("母亲", "父亲"),
    "外公": ("母亲", "父亲"),
    "外祖母": ("母亲", "母亲"),
    "外婆": ("母亲", "母亲"),
    "岳父": ("妻子", "父亲"),
    "岳母": ("妻子", "母亲"),
    "继母": ("父亲", "妻子"),
    "继父": ("母亲", "丈夫"),
}
_EN_KIN_TERM = "|".join(re.escape(k) for k in sorted(_EN_KIN, key=len, reverse=True))
_EN_KIN_OF = re.compile(
    rf"^who\s+(?:is|was)\s+the\s+(?P<kin>{_EN_KIN_TERM})\s+of\s+(?P<x>.+)$", re.I
)
_EN_KIN_STEP = re.compile(rf"^(?:the\s+)?(?P<kin>{_EN_KIN_TERM})\s+of\s+(?P<x>.+)$", re.I)
_EN_KIN_POSS = re.compile(rf"^who\s+(?:is|was)\s+(?P<x>.+?)['’]s?\s+(?P<kin>{_EN_KIN_TERM})$", re.I)


def _kin_steps(person: str, path: tuple[str, str], first: int, zh: bool = False) -> list[PlanStep]:
    """The bridge steps of a kinship path from ``person``, numbered from ``first``."""
    steps: list[PlanStep] = []
    subject = person
    for i, rel in enumerate(path, start=first):
        query = f"{subject}的{rel}是谁" if zh else f"Who is the {rel} of {subject}"
        steps.append(
            PlanStep(
                index=i,
                query=query,
                needs=f"the {rel}",
                depends_on=_deps(query),
                kind="bridge",
                answer_type="PERSON",
            )
        )
        subject = f"#{i}"
    return steps


def _kin_plan(question: str, person: str, path: tuple[str, str], zh: bool) -> Plan:
    steps = _kin_steps(person, path, 1, zh)
    steps[-1] = steps[-1].model_copy(update={"needs": "the final answer", "kind": "lookup"})
    return Plan(question=question, steps=steps, strategy="bridge", answer_type="PERSON")


def _en_kinship(q: str, question: str) -> Plan | None:
    m = _EN_KIN_OF.match(q) or _EN_KIN_POSS.match(q)
    if m is None:
        return None
    return _kin_plan(question, _clean(m["x"]), _EN_KIN[m["kin"].lower()], zh=False)


def _zh_kinship(q: str, question: str) -> Plan | None:
    terms = "|".join(sorted(_ZH_KIN, key=len, reverse=True))
    m = re.match(rf"^(?P<x>.+?)的(?P<kin>{terms})是谁$", q)
    if m is None:
        return None
    return _kin_plan(question, _clean(m["x"]), _ZH_KIN[m["kin"]], zh=True)


# -- Chinese ----------------------------------------------------------------------------------

_ZH_COMPARE = re.compile(
    r"^(?P<pre>[^，,]+?)(?:相比较?|相较|比较)?[，,]?\s*"
    rf"(?P<wh>谁|哪一?(?P<cl>{ZH_CLASSIFIERS}))(?P<rest>.*)$"
)
_ZH_COMPARATIVE = re.compile(
    r"(?:得)?(?:更|较|最|比较)(?:早|晚|大|小|多|少|长|短|高|低|宽|窄|深|浅|重|轻|远|年长|年轻|老|新)"
    r"|得(?:早|晚|大|小|多|少|长|短|高|低)|在前|在先|居前|在后|居后|先|得"
    rf"|[{ZH_GRADABLE}]$"  # bare: "谁的人口多"
)
# "论X，" / "就X而言，" / "以X论，" before a comparison: the topic names what the two are
# compared by ("论开业时间，A与B谁在前").
_ZH_COMPARE_BY = re.compile(r"^(?:论|就|按|以)(?P<by>[^，,]{1,10}?)(?:而言|来说|来看|论)?[，,]\s*")
_ZH_TIME_NOUN = re.compile(r"(?:的)?(?:时间|日期|年份|年代|先后|早晚)$")


_ZH_HISTORY = re.compile(r"历史|悠久")
_ZH_MEASURE_ADJ = re.compile(r"(长|高|深|宽|重|远)[？?]?$")
_ZH_CLASS_NOUNS = frozenset(
    [
        "公司",
        "企业",
        "大学",
        "学校",
        "乐队",
        "电影",
        "城市",
        "人",
        "个",
        "位",
        "家",
        "部",
        "所",
        "座",
    ]
)


def _zh_pair(text: str) -> tuple[str, str] | None:
    """Split "A和B" at its conjunction: 与/跟/同/及 first (和 also ends names: 周清和), a doubled
    和和 between its two characters, else the first 和."""
    text = re.sub(r"^(?:请问|在)", "", text.strip())
    # "在A和B之间", "A和B两者之中": the frame around the pair goes.
    text = re.sub(
        r"(?:两者|二者|[二两](?:人|位)|这两[个家所座位部条]?)?(?:之间|之中|当中|中间)$", "", text
    )
    text = re.sub(r"(?<=[^两二])(?:这)?[二两](?:人|位)中?$", "", text)  # "A与B二人中": the two
    # "A、B两家伞铺": the count and class noun after the pair class both, no option's name
    text = re.sub(rf"(?<=[^两])(?:这)?两[个家所座位部条间][{HAN}]{{0,4}}$", "", text)
    pair = None
    for conj in ("、", "还是", "与", "跟", "同", "及"):  # 、 lists two names as 和 does
        if conj in text[1:-1]:
            i = text.index(conj, 1)
            pair = _clean(text[:i]), _clean(text[i + len(conj) :])
            break
    else:
        if "和和" in text:
            i = text.index("和和") + 1
            pair = _clean(text[:i]), _clean(text[i + 1 :])
        elif "和" in text[1:-1]:
            i = text.index("和", 1)
            pair = _clean(text[:i]), _clean(text[i + 1 :])
    if pair is not None and pair[1].endswith("中") and not pair[0].endswith("中"):
        # "A和B中，哪个…": 中 closes the pair, unless both names end in it (杭州一中和杭州二中)
        pair = pair[0], pair[1][:-1]
    if pair is not None:
        pair = pair[0], _zh_apposed_name(pair[1])
    return pair


def _zh_apposed_name(option: str) -> str:
    """ "他的侄子费雨棠" → "费雨棠": a pronoun's kin or role noun before a name is an apposition;
    the name is the option."""
    words = _zh_words(option)
    if len(words) >= 3 and words[0][0] in ("他", "她", "其"):
        # 他的侄子X, 其侄子X, 他外甥X
        k = 2 if words[1][0] == "的" else 1
        noun, rest = words[k][0], "".join(w for w, _ in words[k + 1 :])
        if zh_noun_type(noun) == "PERSON" and len(rest) >= 2 and words[-1][1] == "nr":
            return rest
    owner = option.rfind("的")
    if owner > 0:
        # "《某书》的编者X": a role noun of something, then the person's name
        after = _zh_words(option[owner + 1 :])
        rest = "".join(w for w, _ in after[1:])
        if (
            len(after) >= 2
            and zh_noun_type(after[0][0]) == "PERSON"
            and 2 <= len(rest) <= 4
            and re.fullmatch(f"[{HAN}]+", rest)
            and zh_noun_type(rest) == "NAME"
        ):
            return rest
    return option


# "哪家公司成立得更早，A还是B": the options after the question.
_ZH_OPTIONS_AFTER = re.compile(
    rf"^(?P<ask>(?:谁|哪一?(?:{ZH_CLASSIFIERS}))[^，,]+)[，,]\s*(?P<a>[^，,]+?)还是(?P<b>[^，,]+?)$"
)


def _zh_context_compare(q: str, question: str) -> Plan | None:
    """ "同样师从沈书衡，唐逸舟和莫嘉禾谁先拿到博士学位": a clause that asks nothing, then a
    comparison that names both options, is that comparison (the first clause is context).
    "A和B名字只差一个字，两人谁出生得更早": the comparison refers back to the pair the first
    clause opens with (两人, 二者, 她们), which are its options."""
    context, sep, last = q.rpartition("，") if "，" in q else q.rpartition(",")
    if not sep or not context or _ZH_WH_CHARS.search(context):
        return None
    back = _ZH_BACK_TO_PAIR.match(last.strip())
    if back is not None:
        pair = _zh_opening_pair(context)
        events: tuple[str, str] | None = None
        if pair is None:
            # "周岚办夜校、林墨开书铺，两人谁先创业": two clauses, each a person and
            # what the person did; "who first" compares when each did it
            clauses = _zh_clause_pair(context)
            if clauses is None:
                return None
            (a, event_a), (b, event_b) = clauses
            pair, events = (a, b), (event_a, event_b)
        return _zh_compare(f"{pair[0]}和{pair[1]}，{last.strip()[back.end() :]}", question, events)
    if _ZH_PRONOUN.match(last):
        return None
    return _zh_compare(last.strip(), question)


# What refers back to two things named before: 两人, 二者, 这两家, 她们, 他俩 (then the
# wh-word of a comparison).
_ZH_BACK_TO_PAIR = re.compile(
    rf"^(?:(?:这|那)?[两二俩](?:{ZH_CLASSIFIERS}|人|者)?|他们|她们|它们|他俩|她俩)(?=谁|哪)"
)


def _zh_opening_pair(clause: str) -> tuple[str, str] | None:
    """The two names a clause opens with, joined by 和/与/跟/同 ("祝延庚和祝延赓名字只差一个字"
    → 祝延庚, 祝延赓): two titles in 《》, or two words the segmenter tags as names (an
    unknown name it cuts in pieces is not found)."""
    titles = re.match(r"(《[^《》]+》)(?:和|与|跟|同)(《[^《》]+》)", clause)
    if titles is not None:
        return titles.group(1), titles.group(2)
    words = _zh_words(clause)[:3]
    if (
        len(words) == 3
        and words[1][0] in ("和", "与", "跟", "同")
        and all(f in _ZH_NAME_FLAGS for _, f in (words[0], words[2]))
    ):
        return words[0][0], words[2][0]
    return None


def _zh_clause_pair(context: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """Two clauses listed with 、, ； or a comma, each opening with a person's name and going
    on with what the person did ("周岚办夜校、林墨开书铺" → (周岚, 办夜校), (林墨, 开书铺));
    the name is the words before the first verb, two to four characters from a surname."""
    parts = re.split(r"[、；;，,]", context)
    if len(parts) != 2:
        return None
    out = []
    for part in parts:
        part = part.strip()
        words = _zh_words(part)
        verb = next((k for k, (_, f) in enumerate(words) if f.startswith(("v", "l"))), 0)
        name = "".join(w for w, _ in words[:verb])  # (the verb's words are left after it)
        if (
            words
            and words[0][1] == "nr"
            and not (2 <= len(name) <= 4 and _opens_with_surname(name))
        ):
            # no verb the segmenter knows ("当上" cut as 当/上县): the name it tags, or a
            # surname and the given name it cut off (龚/石岩)
            name = words[0][0]
            if len(name) == 1 and len(words) > 1 and len(words[1][0]) <= 2:
                name += words[1][0]
        if not (
            2 <= len(name) <= 4 and _opens_with_surname(name) and re.fullmatch(f"[{HAN}]+", name)
        ):
            return None
        out.append((name, part[len(name) :]))
    return out[0], out[1]


# jieba's tags of names: people, places, organisations, other proper nouns.
_ZH_NAME_FLAGS = frozenset(["nr", "nrt", "ns", "nt", "nz"])


def _zh_compare(q: str, question: str, events: tuple[str, str] | None = None) -> Plan | None:
    """A Chinese comparison of two options; ``events`` are what each option did, when the
    question said it of each (then "谁先" compares when each did it)."""
    after = _ZH_OPTIONS_AFTER.match(re.sub(r"[？?。]$", "", q))
    if after is not None:
        q = f"{after['a']}和{after['b']}，{after['ask']}"
    by = _ZH_COMPARE_BY.match(q)
    m = _ZH_COMPARE.match(q[by.end() :] if by else q)
    if not m:
        return None
    decided = comparison_order(m["rest"])
    if decided is None:
        return None
    order, kind = decided
    pair = _zh_pair(m["pre"])
    if pair is None:
        return None
    a, b = (_zh_strip_option(o) for o in pair)
    pred = _clean(_ZH_COMPARATIVE.sub("", m["rest"]))
    if by is not None and not pred:
        pred = _ZH_TIME_NOUN.sub("", by["by"])  # 论开业时间: compared by the opening
    wh = "哪一年" if kind == "DATE" else "多少"
    # The noun after 哪 classifies the options ("哪家公司成立得更早"): not part of the predicate;
    # nor is the head noun the two options share after a classifier ("通江井和通海井…哪口井").
    first = _zh_words(pred)[:1]
    if first and first[0][0] in _ZH_CLASS_NOUNS:
        pred = pred[len(first[0][0]) :]  # a whole word: 哪个人口更多 keeps 人口
    if m["cl"]:
        shared = 0
        while shared < min(len(a), len(b)) and a[-1 - shared] == b[-1 - shared]:
            shared += 1
        tail = a[len(a) - shared :]  # 青苔井, 白苔井: 苔井
        head = next((tail[k:] for k in range(len(tail)) if pred.startswith(tail[k:])), "")
        if head:
            pred = pred[len(head) :]
    if _ZH_AGE_AT_DEATH.search(m["rest"]):
        # "谁去世时年纪更大", "谁更长寿": each one's age at death (享年), the greater wins
        queries = [f"{o}享年多少岁" for o in (a, b)]
        kind, order = "NUMBER", ("min" if re.search(r"更?(?:小|轻|短)", m["rest"]) else "max")
    elif events is not None and kind == "DATE":
        queries = [f"{o}{e}是在哪一年" for o, e in zip((a, b), events, strict=True)]
    elif re.fullmatch(r"(?:的?(?:年纪|年龄|岁数))?", pred) and re.search(
        r"年长|年轻|年纪|岁数|年龄", m["rest"]
    ):
        queries = [f"{o}出生于哪一年" for o in (a, b)]  # age compares birth dates
    elif _ZH_HISTORY.search(m["rest"]) or pred in ("有", "出现", "存在"):
        # 哪个先有 / 先出现: which came into being first, i.e. which began earlier
        queries = [f"{o}创立于哪一年" for o in (a, b)]  # a longer history began earlier
    elif kind == "DATE" and pred and _zh_event(f"某{pred}")[1]:
        queries = [f"{o}{pred}于哪一年" for o in (a, b)]  # "哪家成立得早": 成立于哪一年
    elif not pred and (measure := _ZH_MEASURE_ADJ.search(m["rest"])) is not None:
        queries = [f"{o}有多{measure.group(1)}" for o in (a, b)]  # 哪座更长: X有多长
    else:
        queries = [f"{o}{pred}是{wh}" if pred else f"{o}是{wh}" for o in (a, b)]
    return _value_plan(question, [a, b], queries, kind, order, "compare", pred, False)


# A Chinese comparison of ages at death: 去世时年纪更大, 更长寿, 享年更高.
_ZH_AGE_AT_DEATH = re.compile(
    r"(?:去世|逝世|过世|死|离世)(?:时|的时候)的?(?:年纪|年龄|岁数)|长寿|享年"
)


def _opens_with_surname(text: str) -> bool:
    """Does ``text`` open with a Chinese surname (欧阳 before 欧)?"""
    from extraction.lexicon import CHINESE_COMPOUND_SURNAMES, CHINESE_SURNAMES

    return text[:2] in CHINESE_COMPOUND_SURNAMES or text[:1] in CHINESE_SURNAMES


def _zh_strip_option(option: str) -> str:
    """ "物理学家欧阳明哲" → "欧阳明哲": a role noun before a name goes (the name stays whole)."""
    option = re.sub(rf"^(?:他|她|它|其)的?(?=[{HAN}]{{3}})", "", option)  # 她的丈夫X
    words = _zh_words(option)
    if len(words) >= 2 and zh_noun_type(words[0][0]) == "PERSON" and len(words[0][0]) >= 2:
        rest = option[len(words[0][0]) :]
        if 2 <= len(rest) <= 4 and _opens_with_surname(rest):
            return rest
    return option


_ZH_BOTH = re.compile(r"^(?P<pre>[^，,]+?)(?:是否|是不是)?(?:都|均|同样)(?P<rest>.+)$")
_ZH_SAME = re.compile(
    rf"^(?P<pre>[^，,]+?)(?:是否|是不是)?是?(?P<verb>(?:(?![和与及跟同是])[{HAN}]){{0,4}}?)"
    rf"(?:同一(?P<cl>[个座家所位条部支])?|相同的?)(?P<tail>[{HAN}]{{1,12}}?)(?:的人|的)?(?:吗|么)?$"
)


# 同 + a noun says two share it (a closed set of compounds): 同乡 share a home town (asked as
# the birthplace, which is how a biography gives it), 同学 a school; each side is asked it.
_ZH_SAME_WORDS: dict[str, tuple[str, AnswerType]] = {
    "同乡": ("{}出生在哪里", "LOCATION"),
    "老乡": ("{}出生在哪里", "LOCATION"),
    "同学": ("{}在哪所学校读书", "ORGANIZATION"),
    "校友": ("{}在哪所学校读书", "ORGANIZATION"),
}
_ZH_SAME_WORD = re.compile(
    rf"^(?P<pre>.+?)(?:是不是|是否是|是否|都是|是)(?P<word>{'|'.join(_ZH_SAME_WORDS)})[吗么]?$"
)


# A change over a span of time: "从T1到T2，X的人口是不是减少了/有没有增加".
_ZH_SPAN_CHANGE = re.compile(
    r"^(?:从|自)(?P<t1>[^到至，,]+?)(?:到|至)(?P<t2>[^，,]+?)[，,]?(?P<np>[^，,]+?)"
    r"(?:是不是|是否|有没有)?(?P<chg>减少|下降|变少|增加|增长|上升|变多)(?:了)?(?:没有|吗|么)?$"
)


def _zh_times_than(q: str, question: str) -> Plan | None:
    """ "民国十年澜口镇的人口，比光绪十年时少吗": one quantity at two times."""
    if not is_yes_no(q):
        return None
    span = _ZH_SPAN_CHANGE.match(re.sub(r"[？?。]$", "", q))
    if span is not None:
        # "从T1到T2，X的人口是不是减少了": the later value against the earlier one
        times = [_clean(span["t2"]), _clean(span["t1"])]
        queries = [f"{t}{span['np']}是多少" for t in times]
        order = "lt" if span["chg"] in ("减少", "下降", "变少") else "gt"
        return _order_plan(question, times, queries, "NUMBER", order, span["np"])
    m = _ZH_TIMES_THAN.match(re.sub(r"[吗么]?[？?。]?$", "", q))
    if m is None:
        return None
    options = [m["t1"], m["t2"]]
    queries = [f"{t}{m['np']}是多少" for t in options]
    order = "lt" if m["cmp"].lstrip("更还") in _ZH_LESS_WORDS else "gt"
    return _order_plan(question, options, queries, "NUMBER", order, m["np"])


# "A成立的时候，B开张了没有？", "A开张那年，B已经不在人世了吧？": a time clause, then a
# yes/no question whether B's event had come by then.
_ZH_TIME_CLAUSE = re.compile(
    r"^(?P<a>[^，,]+?)(?:的时候|之时|那一?年|时)[，,](?P<b>[^，,]+?)"
    r"(?:已经|早已|就已经|就)?(?P<b2>[^，,]*?)(?:了没有|了吗|了吧|没有|了么|了)[？?]?$"
)
_ZH_STILL_ALIVE = re.compile(
    r"^(?P<a>[^，,]+?)(?:的时候|之时|那一?年|时)[，,](?P<b>[^，,]+?)(?:是否|是不是)?"
    r"(?:还|仍|仍然|尚|依然)?(?:在世|活着|健在)(?:吗|么|没有|吧)?$"
)
_ZH_DIED = re.compile(r"不在人世|不在了|过世|去世|故去|逝世|亡故")


# The same with the time clause inside B's sentence: "B在A开张时还活着吗".
_ZH_ALIVE_AT = re.compile(
    r"^(?P<b>[^，,]+?)在(?P<a>[^，,]+?)(?:的时候|之时|时)(?:是否|是不是)?"
    r"(?:还|仍|仍然|尚|依然)?(?:在世|活着|健在)(?:吗|么|没有|吧)?$"
)


def _zh_by_then(q: str, question: str) -> Plan | None:
    """ "A成立的时候，B开张了没有": whether B's event came before A's (B's date against A's);
    "A开张的时候，B还在世吗" / "B在A开张时还活着吗": whether B died after it."""
    alive = _ZH_STILL_ALIVE.match(q) or _ZH_ALIVE_AT.match(q)
    if alive is not None:
        return _zh_order(question, f"{alive['b']}去世是否晚于{alive['a']}")
    m = _ZH_TIME_CLAUSE.match(q)
    if m is None or _ZH_NOT_YET.match(m["b"]):
        return _zh_clause_order(q, question)
    b = re.sub(r"(?:已经|早已|就)", "", f"{m['b']}{m['b2']}")
    b = _ZH_DIED.sub("去世", b)
    return _zh_order(question, f"{b}是否早于{m['a']}") or _zh_clause_order(q, question)


# "A以前，B就V了吗", "A的时候，B已经V了吗": B's event came first; "A的时候，B还没V吧": it
# came after. B without a subject of its own ("聂某当上院长以前，就获得过X了吗") is A's.
_ZH_BY_THEN_CLAUSE = re.compile(
    r"^(?P<a>[^，,]+?)(?P<t>的时候|之时|那一?年|时|以前|之前)[，,](?P<b>[^，,]+?)[？?]?$"
)
_ZH_NOT_YET = re.compile(
    r"^(?P<s>[^，,]*?)(?:还没有|还没|尚未|还未|仍未)(?P<v>[^，,]+?)(?:吧|吗|呢|么)?$"
)
# The particles that close such a yes/no question (了 alone closes a statement).
_ZH_ASKING_TAIL = r"(?:了没有|了吗|了吧|了么|吗|吧|么)"
_ZH_ALREADY = re.compile(
    r"^(?P<s>[^，,]*?)(?:就已经|已经|早已|早就|就|便|已)(?P<v>[^，,]+?)"
    rf"(?:{_ZH_ASKING_TAIL}|了)?$"
)
# Tags that end a Chinese subject: a verb, an adverb, a preposition (and jieba's 当上 "s").
_ZH_PREDICATE_TAGS = ("v", "d", "p", "s")


def _zh_subject(clause: str) -> str:
    """The words before a Chinese clause's predicate ("甘鹤年卸任系主任" → "甘鹤年")."""
    out: list[str] = []
    words = _zh_words(clause)
    for i, (word, flag) in enumerate(words):
        person = i == 1 and words[0][1].startswith("nr") and len(words[0][0]) == 2
        if person and len(word) == 1 and i + 1 < len(words) and len(words[i + 1][0]) >= 2:
            out.append(word)  # 聂远 + 澄: a surname and a two-character given name
            continue
        if out and flag.startswith(_ZH_PREDICATE_TAGS):
            break
        out.append(word)
    return "".join(out) if len(out) < len(clause) else ""


def _zh_clause_order(q: str, question: str) -> Plan | None:
    """See :data:`_ZH_BY_THEN_CLAUSE`: the two clauses' dates, B's against A's."""
    m = _ZH_BY_THEN_CLAUSE.match(q)
    if m is None or _ZH_WH_CHARS.search(q) or "。" in q:
        return None  # (a wh-question about the time before A asks something else)
    a, b = m["a"], m["b"]
    if (not_yet := _ZH_NOT_YET.match(b)) is not None:
        subject, verb, order = not_yet["s"], not_yet["v"], "gt"
    elif (done := _ZH_ALREADY.match(b)) is not None:
        subject, verb, order = done["s"], done["v"], "lt"
    elif m["t"] in ("以前", "之前"):
        subject, verb, order = "", re.sub(rf"{_ZH_ASKING_TAIL}$", "", b), "lt"
    else:
        return None
    if re.search(r"[\d一二三四五六七八九十百几]+多?年", verb):
        return None  # "已经办了二十年": how long, not when
    own = _zh_subject(a)
    # "他的导师还没当上院长": the pronoun is A's subject
    subject = re.sub(r"^[他她它]的", f"{own}的", subject) if own else subject
    subject = subject or own
    if not subject or not verb:
        return None
    event = f"{subject}{verb}"
    queries = [f"{event}是哪一年", f"{a}是哪一年"]
    return _order_plan(question, [event, a], queries, "DATE", order, "")


# "X的作者是在哪个镇出生的？那个镇…有多少人？": a second question that points back at the
# first one's answer with a demonstrative and the noun it asked for (or a pronoun).
_ZH_POINT_BACK = r"(?:那|这|该)(?:一)?(?:{cl})?{noun}|^(?:他|她|它)(?=[^们])"


# "X刚成立那年有多少会员": a quantity in the year of the subject's own event; the year
# first, then the quantity in it.
_ZH_EVENT_YEAR = re.compile(
    r"^(?P<x>[^，,的]{2,}?)(?:刚|初|最初)?(?P<ev>成立|创办|创立|开张|开业|建成|落成|开办|通车)"
    r"(?:的时候|的?(?:那一?年|当年|之初|时))[，,]?(?P<rest>.+)$"
)


def _zh_event_year(q: str, question: str) -> Plan | None:
    """ "X刚成立那年有多少…": when X's event happened, then the question in that year."""
    m = _ZH_EVENT_YEAR.match(q)
    if m is None or is_yes_no(q) or answer_type(m["rest"]) in ("DATE", "NAME"):
        return None
    year = PlanStep(index=1, query=f"{m['x']}{m['ev']}于哪一年", kind="bridge", answer_type="DATE")
    return _bridge_plan(question, [year], f"#1{m['x']}{m['rest']}", answer_type(m["rest"]))


# "…在一家研究所做研究员。这家研究所…": an indefinite (一 + classifier + noun) and, in a later
# clause, a demonstrative with its classifier and the same noun pointing back at it.
_ZH_INDEFINITE = re.compile(rf"一(?=(?P<cl>{ZH_CLASSIFIERS})(?P<run>[{HAN}]+))")  # overlapping
_ZH_DEMONSTRATIVE_NP = re.compile(
    rf"(?<=[，,。；;！!—])\s*(?:那么|于是|所以)?"  # a connective may come first: "，那么这个外甥"
    rf"(?P<dem>(?:这|那|该)(?:一)?(?:{ZH_CLASSIFIERS})?)(?P<run>[{HAN}]+)"
)


def _zh_statement_question(q: str, question: str) -> Plan | None:
    """A statement that introduces something with 一 + classifier + noun, then a clause about
    it that points back with 这/那/该 + the noun: the statement asked as the question 哪 +
    classifier + noun ("曾在一家研究所做研究员" → "曾在哪家研究所做研究员"), then the clause with
    ``#n`` for what it points back to."""
    for back in _ZH_DEMONSTRATIVE_NP.finditer(q):
        first = q[: back.start()].rstrip("，,。；;！!— ")
        for intro in reversed(list(_ZH_INDEFINITE.finditer(first))):
            run, later = intro["run"], back["run"]
            n = 0
            while n < min(len(run), len(later)) and run[n] == later[n]:
                n += 1
            if n < 2:
                continue
            if first[: intro.start()].endswith("有"):
                return None  # "X有一个女儿，这个女儿…": X的女儿, a possession (the bridge rules')
            asked = f"{first[: intro.start()]}哪{intro['cl']}{first[intro.start('run') :]}"
            if is_yes_no(first) or answer_type(asked) == "YESNO":
                return None
            _, steps = _answer_as_bridge(_clean(asked))
            if not steps or any(st.kind == "compare" for st in steps):
                return None
            second = q[back.start("dem") :]
            rest = second[len(back["dem"]) + n :]
            final = _clean(f"#{len(steps)}{rest}")
            chained = _zh_chained(rest, steps, question)
            if chained is not None:
                return chained
            return _bridge_plan(question, steps, final, answer_type(final))
        kin_plan = _zh_kin_back(q, first, back, question)
        if kin_plan is not None:
            return kin_plan
    return _zh_pronoun_back(q, question)


# What stands for an earlier step's answer while a clause about it is planned (a name the
# segmenter keeps whole; no question writes it).
_ZH_HELD = "甲乙丙"


def _zh_chained(rest: str, steps: list[PlanStep], question: str) -> Plan | None:
    """The plan of a clause about the last of ``steps``' answers ("这座石桥设计者的师父生在哪个
    村" → "#n设计者", "#n+1的师父", "#n+2生在哪个村"), its steps after ``steps``; None when
    the clause is one lookup of that answer."""
    base = len(steps)
    sub = _zh_bridge(_clean(f"{_ZH_HELD}{rest}"), question)
    if (
        sub is None
        or len(sub.steps) < 2
        or not sub.steps[0].query.startswith(_ZH_HELD)
        # a bridge to a date or a number is a time phrase or a measure cut off, no entity
        or any(st.answer_type in ("DATE", "NUMBER") for st in sub.steps[:-1])
    ):
        return None
    shifted = [
        st.model_copy(
            update={
                "index": st.index + base,
                "query": re.sub(r"#(\d+)", lambda m: f"#{int(m[1]) + base}", st.query).replace(
                    _ZH_HELD, f"#{base}"
                ),
                "depends_on": [d + base for d in st.depends_on]
                + ([base] if _ZH_HELD in st.query else []),
            }
        )
        for st in sub.steps
    ]
    return Plan(
        question=question,
        steps=[*steps, *shifted],
        strategy="bridge",
        answer_type=sub.answer_type,
    )


_ZH_KIN_BY_LENGTH = sorted(CHINESE_KIN_WORDS, key=len, reverse=True)


# Where an organisation sits, as Chinese names it: its seat's address answers "在哪个县/城市".
_ZH_SEAT = re.compile(r"(?:总部|总店|总行|总公司|厂址|校址|会址|馆址|驻地|所在地)$")
_ZH_WHERE_IS = re.compile(
    rf"^#(?P<n>\d+)(?P<rest>(?:{ZH_FORMER_TIME}|如今|现在|目前)?(?:在|位于|设在)(?:哪|什么).*)$"
)


def _zh_seat_lookup(plan: Plan) -> Plan:
    """ "X的总部" then "#1在哪个县": where an organisation sits is one lookup (its seat is
    written as an address, 总部位于蕺溪县鹬湾镇), not its seat first and then what holds it."""
    steps = plan.steps
    if len(steps) < 2:
        return plan
    last, seat = steps[-1], steps[-2]
    m = _ZH_WHERE_IS.match(last.query)
    if m is None or int(m["n"]) != seat.index or not _ZH_SEAT.search(seat.query):
        return plan
    merged = last.model_copy(
        update={
            "index": seat.index,
            "query": f"{seat.query}{m['rest']}",
            "depends_on": list(seat.depends_on),
        }
    )
    kept = [*steps[:-2], merged]
    return plan.model_copy(
        update={"steps": kept, "strategy": plan.strategy if len(kept) > 1 else "single"}
    )


def _zh_noun_topic(topic: str) -> bool:
    """Is ``topic`` a noun phrase: no verb after its last 的 ("X的创办人" is one, "X的创办人第一次
    执掌一线队" a clause)?"""
    words = _zh_words(topic)
    last_de = max((i for i, (w, _) in enumerate(words) if w == "的"), default=-1)
    return not any(f.startswith("v") for _, f in words[last_de + 1 :])


# A predicate that only asks who its subject is: "…是谁", "…是哪位", "…叫什么名字".
_ZH_WHO_IS = re.compile(r"(?:是|为)(?:谁|哪位|哪一位|什么人)|叫什么(?:名字)?")


def _zh_role_subject(q: str, question: str) -> Plan | None:
    """ "2013年丰稔育种奖得主在哪家公司任职", "X种苗创始人读硕士时的导师是谁": a subject that
    ends in a role noun without 的 before it, then the predicate that asks: the subject is
    found first, then the predicate asked of it."""
    words = _zh_words(q)
    wh = next((i for i, (w, _) in enumerate(words) if _ZH_WH_CHARS.search(w)), None)
    if wh is None:
        return None
    for i in range(1, wh):
        flag = words[i][1]
        prev, prev_flag = words[i - 1]
        if not flag.startswith(("v", "p", "d")) or not prev_flag.startswith("n"):
            continue
        if zh_noun_type(prev) != "PERSON":
            continue
        subject = "".join(x for x, _ in words[:i])
        if "的" in subject or len(subject) < 4 or i < 2:
            return None  # the bridge rules' (…的N), or a bare role word
        if _ZH_WHO_IS.fullmatch("".join(x for x, _ in words[i:]).rstrip("？?。 ")):
            return None  # "X现任总裁是谁": the predicate asks the subject itself, one step
        steps = [_zh_step(1, subject, "PERSON")]
        final = _clean(f"#1{''.join(x for x, _ in words[i:])}")
        return _bridge_plan(question, steps, final, answer_type(q))
    return None


def _zh_kin_back(q: str, first: str, back: re.Match[str], question: str) -> Plan | None:
    """ "X的创办人没有儿子，铺子传给了外甥，那么这个外甥的女婿是谁": a kin noun the statement
    uses bare is the kin of its topic (the first clause's subject), and 这个 + that noun
    points back to it: X的创办人的外甥, then the rest asked of it."""
    kin = next((k for k in _ZH_KIN_BY_LENGTH if back["run"].startswith(k)), None)
    if kin is None or kin not in first:
        return None
    words = _zh_words(re.split(r"[，,。；;]", first)[0])
    verb = next(
        (
            i
            for i, (_, f) in enumerate(words)
            if f.startswith("v") and "的" in "".join(w for w, _ in words[:i])
        ),
        None,
    )
    if verb is None:
        return None
    topic = "".join(w for w, _ in words[:verb])
    chain = _zh_chain(f"{topic}的{kin}", include_last=True)
    if not chain:
        return None
    steps = _zh_steps(chain)
    rest = f"{back['run'][len(kin) :]}{q[back.end() :]}"
    kind = answer_type(q)
    more = _zh_predicate_steps(_clean(f"#{rest}"), kind, steps)  # "…的独生女嫁给了谁"
    if more is not None:
        return Plan(question=question, steps=more, strategy="bridge", answer_type=kind)
    final = _clean(f"#{len(steps)}{rest}")
    return _bridge_plan(question, steps, final, answer_type(final))


# A clause that opens with a personal pronoun after a statement: "…，出钱最多的是一位剪铺东家。
# 他当学徒是…": 他 is the one the statement introduced.
_ZH_PRONOUN_CLAUSE = re.compile(r"(?<=[，,。；;！!—])\s*(?P<pro>他|她|它)(?P<de>的)?")


def _zh_pronoun_back(q: str, question: str) -> Plan | None:
    """A statement that introduces someone or something with 一 + classifier + noun, then a
    clause that refers back to it with 他 / 她 (a person) or 它 (a thing): the statement
    asked with 哪 + classifier (one lookup, the context clauses kept), then the clause with
    ``#1`` for the pronoun."""
    back = _ZH_PRONOUN_CLAUSE.search(q)
    if back is None or re.search(r"[，,。；;]", q[back.end() :].rstrip("？?。")):
        return None  # a longer chain after the pronoun is the bridge rules' to plan
    first = q[: back.start()].rstrip("，,。；;！!— ")
    intros = list(_ZH_INDEFINITE.finditer(first))
    if not intros or first[: intros[-1].start()].endswith("有"):
        return None  # "X有一个女儿，她…": X的女儿, a possession (the bridge rules')
    intro = intros[-1]
    person = zh_noun_type(intro["run"]) == "PERSON"
    if person != (back["pro"] != "它"):
        return None  # 他 / 她 stand for a person, 它 for a thing
    asked = _clean(f"{first[: intro.start()]}哪{intro['cl']}{first[intro.start('run') :]}")
    if is_yes_no(first) or answer_type(asked) == "YESNO":
        return None
    steps = [
        PlanStep(
            index=1,
            query=asked,
            needs=f"the {intro['run']}",
            kind="bridge",
            answer_type="PERSON" if person else answer_type(asked),
        )
    ]
    final = _clean(f"#1{back['de'] or ''}{q[back.end() :]}")
    return _bridge_plan(question, steps, _zh_owned_without_de(final), answer_type(final))


def _zh_two_questions(q: str, question: str) -> Plan | None:
    """Two questions, the second about the first's answer: the first's steps, then the second
    with ``#n`` where it points back."""
    parts = [p for p in re.split(r"[？?]", q) if p.strip()]
    if len(parts) != 2:
        return None
    first, second = _clean(parts[0]), _clean(parts[1])
    # the noun the first question asks for, the word after 哪 + classifier (哪个镇 → 镇,
    # 哪家出版社 → 出版社), whole or its last character (该社)
    words = [w for w, _ in _zh_words(first)]
    nouns: list[str] = []
    for i, w in enumerate(words):
        if w.startswith(("哪", "什么")):
            j = i + 1
            if j < len(words) and re.fullmatch(ZH_CLASSIFIERS, words[j]):
                j += 1
            if j < len(words) and re.fullmatch(f"[{HAN}]+", words[j]):
                nouns = [words[j], words[j][-1]]
            break
    back = next(
        (
            found
            for noun in [*nouns, ""]
            if (
                found := re.search(
                    _ZH_POINT_BACK.format(
                        cl=ZH_CLASSIFIERS, noun=re.escape(noun) if noun else "(?!)"
                    ),
                    second,
                )
            )
        ),
        None,
    )
    if back is None and "谁" in first:
        # "X是谁开的？这个人/这位井主的老家在哪": a person asked, pointed back to as 这个人, or
        # 这位 and the role noun the second question gives him
        back = re.search(rf"(?:那|这|该)(?:一)?(?:位|个人|人)(?:[{HAN}]{{0,3}}?(?=的))?", second)
    if back is None:
        return None
    _, steps = _answer_as_bridge(first)
    if any(s.kind == "compare" for s in steps):
        return None
    k = len(steps)
    final = _clean(f"{second[: back.start()]}#{k}{second[back.end() :]}")
    return _bridge_plan(question, steps, final, answer_type(second))


# The nouns of a time two things may share (同一年, 同一天), longest first.
_ZH_SHARED_TIMES = ("年份", "年", "天", "日", "月")
_ZH_SHARED_TIME = re.compile(rf"(?:{'|'.join(_ZH_SHARED_TIMES)})(?=.)")


def _zh_yes_no(q: str, question: str) -> Plan | None:
    if not is_yes_no(q):
        return None
    # "A跟B，是不是同一个村子出生的", "X的首席执行官，是在Y出生的吗": the comma only sets the
    # topic off from its predicate.
    q = re.sub(r"[，,](?=是)", "", q)
    m = _ZH_SAME_WORD.match(re.sub(r"[？?。]$", "", q))
    pair = _zh_pair(m["pre"]) if m is not None else None
    if m is not None and pair is not None:
        template, kind = _ZH_SAME_WORDS[m["word"]]
        queries = [template.format(o) for o in pair]
        return _value_plan(
            question, list(pair), queries, kind, "same", "same-yesno", m["word"], False
        )
    m = _ZH_SAME.match(q)
    split = _zh_same_split(q, m["pre"], m["verb"]) if m is not None else None
    if m is not None and split is not None:
        pair, verb = split
        (a, b), attr = pair, _zh_shared_noun(m["tail"])
        timed_tail = _ZH_SHARED_TIME.match(m["tail"])
        if timed_tail is not None:
            attr = timed_tail.group(0)  # 同一年出生: the time, then the verb
        owned = b.rpartition("的")
        if owned[1] and "的" not in a:
            a = f"{a}的{owned[2]}"  # A和B的总部: the noun after 的 is both options'
        kind = zh_noun_type(attr)
        rest = m["tail"][len(attr) :]
        # 同一年 / 同一天: a time, asked 哪一年 (a date), not 哪个年.
        timed = attr in _ZH_SHARED_TIMES
        if timed:
            kind = "DATE"
        if kind == "LOCATION" and not verb and re.search(r"的人[吗么]?$", q):
            # "同一个地方的人", "同一个村的人": people of one place are from there, as 同乡 says
            queries = [f"{o}出生在哪里" for o in (a, b)]
        elif verb or rest:
            # The verb stays in each option's question: 出生在同一个地方 → X出生在哪个地方,
            # 在同一所大学获得学位 → X在哪所大学获得学位; 同一个镇上出生 → X在哪个镇上出生.
            at = "在" if not verb and rest[:1] in ("上", "里", "中") else ""
            which = "哪一" if timed else f"哪{m['cl'] or '个'}"
            queries = [f"{o}{verb or at}{which}{attr}{rest}" for o in (a, b)]
        else:
            queries = [
                f"{o}的{attr}是哪里" if kind == "LOCATION" else f"{o}的{attr}" for o in (a, b)
            ]
        return _value_plan(question, [a, b], queries, kind, "same", "same-yesno", attr, False)
    m = _ZH_BOTH.match(q)
    both = _zh_pair(m["pre"]) if m is not None else None
    if m is not None and both is not None:
        a, b = both
        rest = re.sub(r"[吗么]$", "", _clean(m["rest"]))
        owner, de, noun = b.rpartition("的")
        if de and owner and noun and "的" not in a:
            # "A、B二人的出生地都是Z": the noun after 的 is both options' (a count of them, 二人,
            # only classes the pair), and "是Z" says its value.
            b = re.sub(r"(?:这)?[二两](?:人|者|位|家|个|所|座)$", "", owner) or owner
            value = re.fullmatch(r"是(?P<x>[^，,的]{2,})", rest)
            kind = zh_noun_type(noun)
            if value is not None and kind in ("LOCATION", "ORGANIZATION", "PERSON"):
                which = "哪里" if kind == "LOCATION" else "什么" if kind != "PERSON" else "谁"
                queries = [f"{o}的{noun}是{which}" for o in (a, b)]
                return _equal_plan(question, [a, b], queries, kind, value["x"], noun)
            a, b = f"{a}的{noun}", f"{b}的{noun}"
        born = re.fullmatch(r"(?:出生|生)(?:在|于)(?P<place>[^，,的]{2,})", rest)
        if born is not None:  # "A和B是不是都出生在Z": where each was born, and is it Z
            queries = [f"{o}出生在哪里" for o in (a, b)]
            return _equal_plan(question, [a, b], queries, "LOCATION", born["place"], "出生地")
        queries = [f"{o}{rest}" for o in (a, b)]
        return _value_plan(question, [a, b], queries, "YESNO", "all", "both-yesno", rest, False)
    bare = re.sub(r"[吗么]$", "", q)  # the claim without its question particle
    ordered = _zh_order(question, bare)
    if ordered is not None:
        return ordered
    m = _ZH_THAN.match(bare)
    if m is not None and not re.match(r"\d", m["b"]):
        # "按1935年的调查，A的人口比B多吗": each side's quantity, yes when A's is above B's.
        lead = m["lead"] or ""
        queries = [f"{lead}{o}的{m['noun']}是多少" for o in (m["a"], m["b"])]
        order = "lt" if m["cmp"].lstrip("更还") in _ZH_LESS_WORDS else "gt"
        return _order_plan(question, [m["a"], m["b"]], queries, "NUMBER", order, m["noun"])
    m = _ZH_THRESHOLD.match(bare)
    if m is not None:
        order = "lt" if m["rel"] in _ZH_LESS else "gt"
        subject = m["subj"]
        query = f"{subject}是多少" if "的" in subject else f"{subject}有多少"
        limit = m["num"] + (m["unit"] or "")
        return _threshold_plan(question, subject, query, "NUMBER", order, limit)
    ident = _ZH_NOUN_IS.match(bare)
    if (
        ident is not None
        and zh_noun_type(ident["n"]) == "PERSON"
        and "的" not in ident["y"]
        # a name, not a predicate ("是不是出生在X"): nouns only
        and all(flag.startswith(("n", "x", "eng")) for _, flag in _zh_words(ident["y"]))
    ):
        # "X的创办人是不是Y": who X's founder is, and is it Y
        subject = ident["x"]
        plan = _zh_equal_after(question, subject, f"{subject}的{ident['n']}是谁", ident["y"])
        if plan is not None:
            return plan
    cleft = _zh_cleft(question, bare, particle=bare != q)
    if cleft is not None:
        return cleft
    claim = _clean(re.sub(r"[吗么]$", "", re.sub(r"是否|是不是", "", q)))
    return _zh_claim_plan(question, claim) or _verify_plan(question, claim)


# "X的创办人是不是Y": a claim that a person noun of X names Y.
_ZH_NOUN_IS = re.compile(
    rf"^(?P<x>[^，,]{{2,}}?)的(?P<n>[{HAN}]{{1,4}})(?:是不是|是否|就是)(?P<y>[^，,]{{2,8}})$"
)
# "X是不是Y创办的", "X是否由Y修建": a cleft that names the agent of X's making.
_ZH_CLEFT = re.compile(
    r"^(?P<x>[^，,]{2,}?)(?:是不是|是否|(?P<plain>是))(?P<by>由|被)?(?P<rest>[^，,]{3,}?)(?P<de>的)?$"
)
_ZH_NAME_TAGS = ("nr", "ns", "nt", "nz")
_ZH_BIRTH_CLAIM = re.compile(
    r"^(?P<s>[^，,]{2,}?)(?:是不是|是否)(?:出生|生)(?:在|于)(?P<place>[^，,的]{2,})$"
)


def _zh_equal_after(question: str, subject: str, value_query: str, name: str) -> Plan | None:
    """The steps that find ``subject`` (a 的-chain's bridges, none for a name), one value
    step ``value_query`` about it, and yes when its value names ``name``."""
    steps: list[PlanStep] = []
    parts = [p for p in subject.split("的") if p]
    if len(parts) >= 2 and not any(_zh_is_relative(p) for p in parts):
        steps = _zh_steps(_zh_chain(subject, include_last=True))
        if not steps:
            return None
        value_query = value_query.replace(subject, f"#{len(steps)}", 1)
    return _equal_after(question, steps, value_query, name, options=[subject])


# "祁敬舟是不是泓记栈的创办人": is the name what the 的-phrase finds.
_ZH_IDENTITY = re.compile(
    r"^(?P<x>[^的，,]{2,}?)(?:是不是|是否)(?![与和跟同在比被由对向从])(?P<np>[^，,]+的[^，,的]{2,})$"
)


def _zh_cleft(question: str, bare: str, particle: bool = False) -> Plan | None:
    """Who made X, and is it the agent the question names: "泓记栈是不是祁敬舟创办的" asks
    "泓记栈是由谁创办的" and compares the answer with 祁敬舟; so does "泓记栈是祁敬舟创办的吗"
    (``particle``: the question ended in 吗)."""
    birth = _ZH_BIRTH_CLAIM.match(bare)
    if birth is not None and "，" not in bare and "," not in bare:
        # "X是不是出生在Z": where X was born, and is it Z (X may be a 的-chain).
        return _zh_equal_after(question, birth["s"], f"{birth['s']}出生在哪里", birth["place"])
    ident = _ZH_IDENTITY.match(bare)
    noun = ident["np"].rpartition("的")[2] if ident is not None else ""
    if ident is not None and len(_zh_words(noun)) == 1:  # "…的创办人", not "…的老师X同乡"
        kind = zh_noun_type(noun)
        wh = {"PERSON": "谁", "LOCATION": "哪里", "DATE": "哪一年"}.get(kind, "什么")
        if len(noun) >= 2 and kind in ("PERSON", "LOCATION", "ORGANIZATION"):
            query = f"{ident['np']}是{wh}"
            return _equal_plan(question, [ident["np"]], [query], kind, ident["x"], noun)
    m = _ZH_CLEFT.match(bare)
    if m is None or not (m["de"] or m["by"]) or "的" in m["x"] or (m["plain"] and not particle):
        return None
    words = _zh_words(m["rest"])
    verb = next((i for i, (_, f) in enumerate(words) if f.startswith("v") and i > 0), None)
    if verb is None or not (words[0][1].startswith(_ZH_NAME_TAGS) or words[0][0][:1] == "《"):
        return None
    agent = "".join(w for w, _ in words[:verb])
    action = "".join(w for w, _ in words[verb:])
    head = words[verb - 1][0] if verb > 1 and words[verb - 1][1] == "n" else ""
    kind = zh_noun_type(head) if head else "PERSON"
    if len(agent) < 2 or kind not in ("PERSON", "ORGANIZATION"):
        return None
    wh = "谁" if kind == "PERSON" else f"哪个{head}"
    query = f"{m['x']}是由{wh}{action}的"
    return _equal_plan(question, [m["x"]], [query], kind, agent, action)


def _zh_claim_plan(question: str, claim: str) -> Plan | None:
    """A claim whose subject is a chain of 的-nouns ("栎川电子的创办人出生在岑川镇"): the
    chain's steps find the entity, then one step verifies the predicate of it."""
    words = _zh_words(claim)
    verb = next((i for i, (_, f) in enumerate(words) if f.startswith("v") and i > 0), None)
    if verb is None or "，" in claim or "," in claim:
        return None
    subject = "".join(w for w, _ in words[:verb])
    parts = [p for p in subject.split("的") if p]
    if len(parts) < 2 or subject.endswith("的") or any(_zh_is_relative(p) for p in parts):
        return None
    steps = _zh_steps(_zh_chain(subject, include_last=True))
    if not steps:
        return None
    rest = "".join(w for w, _ in words[verb:])
    return _verify_after(question, steps, f"#{len(steps)}{rest}")


def _zh_same_split(q: str, pre: str, verb: str) -> tuple[tuple[str, str], str] | None:
    """The two options and the verb before 同一 in ``q``, which reads ``pre``, an optional
    是否, then ``verb``: the options end where jieba starts a word in the whole question, and
    what is left of the verb starts with a verbal word (张三和李四|来自同一个国家, never
    周明和赵|一鸣来自)."""
    starts, pos = {}, 0
    for w, f in _zh_words(q):
        starts[pos] = f
        pos += len(w)
    verb_at = q.find(verb, len(pre)) if verb else len(pre)
    for k in range(len(verb) + 1):
        end = len(pre) if k == 0 else verb_at + k  # where the options end
        # the copula ends them whatever jieba makes of the name before it (温淑仪是)
        copula = k == 0 and q.startswith("是", end)
        if end not in starts and end != len(q) and not copula:
            continue
        if 0 < k < len(verb) and not starts[end].startswith(("v", "p", "d")):
            continue
        pair = _zh_pair(pre + verb[:k])
        if pair is not None:
            return pair, verb[k:]
    return None


def _zh_shared_noun(tail: str) -> str:
    """The noun after 同一 (its leading nouns by jieba's tags): 大学 in 同一所大学获得学位, a
    verb phrase after it goes."""
    words = _zh_words(tail)
    nouns: list[str] = []
    for w, f in words:
        if (
            not nouns
            and len(w) > 1
            and w[-1] in "上里中"
            and (f.startswith("s") or zh_noun_type(w[:-1]) != "NAME")
        ):
            # a place word with its localizer (镇上, 村里): the noun is the place's
            nouns.append(w[:-1])
            break
        if not f.startswith("n") and nouns:
            break
        if f.startswith("n"):
            nouns.append(w)
        elif not nouns:
            break
    typed = [i for i in range(len(nouns)) if zh_noun_type("".join(nouns[: i + 1])) != "NAME"]
    nouns = nouns[: typed[-1] + 1] if typed else nouns
    if nouns and not typed:  # one word for noun and verb (大学毕业): its typed beginning
        word = "".join(nouns)
        return next(
            (word[:k] for k in range(len(word) - 1, 1, -1) if zh_noun_type(word[:k]) != "NAME"),
            word,
        )
    return "".join(nouns) or tail[:4]


# Two events or two quantities ordered: "A的创立是否早于B的成立", "A是否晚于B成立",
# "A比B成立得早吗", "按1950年的面积计，A比B大吗" (按…计 names what is measured).
_ZH_ORDER = re.compile(
    r"^(?P<a>[^，,]+?)(?:是否|是不是)?(?P<rel>早于|晚于|先于|迟于)(?P<b>[^，,]+)$"
)
_ZH_BI = re.compile(
    r"^(?:按(?:照)?(?P<by>[^，,]+?)(?:计算?|来算|来看)[，,])?(?P<a>[^，,]+?)(?:是否|是不是)?比"
    r"(?P<b>[^，,]+?)得?(?:更|还|要)?(?P<cmp>年长|年轻|早|晚|大|小|多|少|长|短|高|低)"
    r"(?P<after>[^，,]{0,3})$"
)
_ZH_EARLIER = frozenset(["早于", "先于", "早", "年长"])
# "A成立于B之后", "A是否在B之前开张": the event's own verb, then the other side and a word of
# before or after.
_ZH_AROUND = re.compile(
    r"^(?P<a>[^，,]+?)(?:是否|是不是)?(?:于(?P<b1>[^，,]+?)(?P<rel1>之前|以前|之后|以后)|"
    r"在(?P<b2>[^，,]+?)(?P<rel2>之前|以前|之后|以后)(?:就已经|已经|早已|就|便|已)?"
    r"(?P<v>[^，,]{1,4}?)(?:了|的)?)$"
)
# A time noun after an event names the event's date: "A的成立时间是否早于B".
_ZH_EVENT_TIME = re.compile(r"的?(?:时间|日期|年份|年代|时候)$")


def _zh_event(side: str) -> tuple[str, str]:
    """ "甲窑的创立" → ("甲窑", "创立"), "某厂成立" → ("某厂", "成立"), a bare name → (name, "")."""
    timed = _ZH_EVENT_TIME.sub("", side)
    if timed != side and timed:
        side = timed  # 成立时间: the date of the founding, ordered as the founding is
    # An event word at the end is the event however jieba cuts before it (伞铺开张 → 铺开/张).
    for word in ZH_EVENT_WORDS:
        if side.endswith(word) and len(side) > len(word):
            owner = side[: -len(word)]
            return (owner[:-1] if owner.endswith(("的", "得")) else owner) or side, word
    words = _zh_words(side)
    if len(words) >= 2:
        word, flag = words[-1]
        if len(word) >= 2 and flag.startswith("v"):  # (an event word returned above)
            owner = side[: len(side) - len(word)]
            owner = owner[:-1] if owner.endswith(("的", "得")) else owner
            if owner:
                return owner, word
    return side, ""


def _zh_order(question: str, q: str) -> Plan | None:
    """Yes/no questions that order two events in time or two quantities: one value step per
    side, and the first side's value against the second's (a date on the right is a
    threshold)."""
    around = _ZH_AROUND.match(q)
    if around is not None and _ZH_ORDER.match(q) is None:
        # "A成立于B之后" is "A成立晚于B"; "A在B之前开张" is "A开张早于B".
        rel = around["rel1"] or around["rel2"]
        a_side = around["a"] + (around["v"] or "")
        ordered = _zh_order(
            question,
            f"{a_side}{'早于' if rel in ('之前', '以前') else '晚于'}{around['b1'] or around['b2']}",
        )
        if ordered is not None:
            return ordered
    m = _ZH_ORDER.match(q)
    if m is not None:
        (a, va), (b, vb) = _zh_event(m["a"]), _zh_event(m["b"])
        order = "lt" if m["rel"] in _ZH_EARLIER else "gt"
        verb = va or vb
        if DATE_RX.fullmatch(b):
            if not verb:
                return None
            return _threshold_plan(question, a, f"{a}{verb}于哪一年", "DATE", order, b)
        if not verb:
            return None
        sides = [(a, va or verb), (b, vb or verb)]
        queries = [f"{x}{v}于哪一年" for x, v in sides]
        return _order_plan(question, [a, b], queries, "DATE", order, verb)
    m = _ZH_BI.match(q)
    if m is None:
        return None
    cmp, after = m["cmp"], _clean(m["after"])
    (a, va), (b, vb) = _zh_event(m["a"]), _zh_event(m["b"])
    verb = va or vb or after
    if cmp in ("年长", "年轻") or (cmp in ("早", "晚") and verb):
        verb = "出生" if cmp in ("年长", "年轻") else verb
        order = "lt" if cmp in _ZH_EARLIER else "gt"
        queries = [f"{x}{verb}于哪一年" for x in (a, b)]
        return _order_plan(question, [a, b], queries, "DATE", order, verb)
    if cmp in ("早", "晚") or va or vb:
        return None
    order = "lt" if cmp in ("小", "少", "短", "低") else "gt"
    owned = m["a"].rpartition("的")
    if m["by"]:
        # "按1950年的面积计，A比B大吗": the measure is said once for both.
        queries = [f"{x}{m['by']}是多少" for x in (a, b)]
        attr = m["by"]
    elif owned[1] and owned[2] and "的" not in m["b"]:
        # "A的人口比B多吗": the attribute is written once, after the first option.
        a, attr = owned[0], owned[2]
        queries = [f"{x}的{attr}是多少" for x in (a, b)]
    else:
        return None
    return _order_plan(question, [a, b], queries, "NUMBER", order, attr)


def _order_plan(
    question: str,
    options: list[str],
    queries: list[str],
    kind: AnswerType,
    order: Any,
    attribute: str,
) -> Plan:
    """Value steps for two options, and a yes/no decision of the first value against the
    second (``order`` "lt": yes when the first is smaller or earlier)."""
    plan = _value_plan(question, options, queries, kind, order, "order-yesno", attribute, False)
    steps = [
        s.model_copy(update={"answer_type": "YESNO"}) if s.kind == "compare" else s
        for s in plan.steps
    ]
    return plan.model_copy(update={"steps": steps, "answer_type": "YESNO"})


# "X的长度是不是超过了500公里": one value step and a threshold.
_ZH_THRESHOLD = re.compile(
    r"^(?P<subj>.+?)(?:是不是|是否|有没有)?(?P<rel>超过|多于|大于|高于|长于|不止|少于|不到|低于|"
    r"小于|不足|短于)了?(?P<num>\d[\d,.]*(?:万|亿)?)(?P<unit>[^\d，,]{0,4})$"
)
_ZH_LESS = frozenset(["少于", "不到", "低于", "小于", "不足", "短于"])
# "A的人口比B多", "A的长度比B的长度短", after an optional phrase before a comma.
_ZH_THAN = re.compile(
    r"^(?:(?P<lead>[^，,]+)[，,])?(?P<a>[^，,的]+)的(?P<noun>[^，,的比]+)比(?P<b>[^，,的]+?)"
    r"(?:的(?P=noun))?(?P<cmp>[更还]?(?:多|少|高|低|大|小|长|短|宽|窄|深|浅|重|轻))(?:一些|得多)?$"
)
_ZH_LESS_WORDS = frozenset("少低小短窄浅轻")
# A year (a reign's or the Western one) that dates a quantity.
_ZH_YEAR = (
    rf"(?:[{HAN}]{{2}}(?=[〇零一二三四五六七八九十元]))?[〇零一二三四五六七八九十百千元\d]+年"
)
_ZH_TIMES_THAN = re.compile(
    rf"^(?P<t1>{_ZH_YEAR})(?:时|的时候)?[，,]?(?P<np>[^，,比]+的[^，,比]+?)[，,]?比"
    rf"(?P<t2>{_ZH_YEAR})(?:时|的时候)?(?P<cmp>[更还]?(?:多|少|高|低|大|小|长|短|宽|窄|深|浅|重|轻))"
    r"(?:一些|得多)?$"
)


_ZH_WH_PRED = re.compile(
    r"(?:是|为|在|位于|叫|叫做|有)?(?:谁|哪里|哪儿|何处|什么|哪|多少|几|何时|何年|怎样|如何)"
)
# The classifiers (measure words) a demonstrative takes before a noun: a closed class.
_ZH_CL = "个部家所座位条本首支名间只幅件种篇张项届艘辆架台份封栋块片"
_ZH_PRONOUN = re.compile(
    # (所在的/所属的 opening the clause: a zero pronoun, "…的实验室，所在的大学" is the
    # university the lab is in)
    rf"^(?:其|它的|他的|她的|它|他|她|(?=所在的|所属的)|该[{HAN}]{{0,3}}?(?=的|$)|"
    # "这家书局的创办人": a demonstrative, a classifier and the noun it points back with
    rf"(?:这|那|此)(?:一)?[{_ZH_CL}][{HAN}]{{1,3}}?(?=的))"
)


# 首任 / 现任 / 第二任 … say which holder of an office: with the office after them they make one
# noun ("首任监督", jieba tags 监督 a verbal noun).
_ZH_TERM_OF_OFFICE = re.compile(rf"^{ZH_TERM_OF_OFFICE}$")


def _zh_words(text: str) -> list[tuple[str, str]]:
    words = list(pos_tags(text))
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        word, flag = words[i]
        if (
            _ZH_TERM_OF_OFFICE.match(word)
            and i + 1 < len(words)
            and words[i + 1][1] in ("vn", "n", "v")
        ):
            out.append((word + words[i + 1][0], "n"))
            i += 2
            continue
        if (
            len(word) == 1
            and flag.startswith("n")
            and i + 2 < len(words)
            and len(words[i + 1][0]) == 1
            and words[i + 1][1] == "v"
            and words[i + 2][0] in _ZH_COPULA
        ):
            # "营收是多少": the subject of a copula is a noun, so a single-character noun and
            # verb before it are one word the segmenter does not know (营收, not 营 + 收).
            out.append((word + words[i + 1][0], "n"))
            i += 2
            continue
        if (
            len(word) >= 2
            and flag.startswith("n")
            and i + 1 < len(words)
            and len(words[i + 1][0]) == 1
            and not words[i + 1][1].startswith("n")
            and zh_noun_type(word + words[i + 1][0]) == "ORGANIZATION"
            and zh_noun_type(word) != "ORGANIZATION"
            and (
                i + 2 == len(words)
                or words[i + 2][0] in ("的", *_ZH_COPULA)
                or words[i + 2][1] == "x"
            )
        ):
            # "石料行的创办人", "那家石料行，…": a one-character trade suffix after a noun
            # makes an organisation's noun, whatever the segmenter tagged it (行/v).
            out.append((word + words[i + 1][0], "n"))
            i += 2
            continue
        if (
            word in _ZH_BIRTH_ORDER
            and i + 1 < len(words)
            and words[i + 1][1].startswith("n")
            and zh_noun_type(words[i + 1][0]) == "PERSON"
        ):
            # "龚某的二徒弟", "三女儿": a numeral of order before a person noun is part of it
            # (the second apprentice), not a quantity of its own
            out.append((word + words[i + 1][0], "n"))
            i += 2
            continue
        out.append((word, flag))
        i += 1
    return out


# Numerals of order among siblings, pupils, wives (二徒弟, 三女儿, 四姨太).
_ZH_BIRTH_ORDER = frozenset("二三四五六七八九十")


# A demonstrative with its classifier before a noun ("的那部小说" → "的小说"): the classifiers
# are a closed class of the language.
_ZH_DEMONSTRATIVE = re.compile(
    # ("的那位，…": with no noun after it the classifier is the head, "the one", and stays)
    rf"(?<=的)(?:那|这|该|此)(?:一)?(?:[{_ZH_CL}](?=[{HAN}《])|(?![{_ZH_CL}])(?=[{HAN}《]))"
)
# Predicate words walked over from the wh-word back to the subject's head noun.
_ZH_PRED_FLAGS = ("v", "d", "p", "u", "c", "f", "t")  # t: time adverbials (此前, 当时)
# Words of time the segmenter tags as localizers (以前/f) that stand as adverbs.
_ZH_TIME_ADVERBS = frozenset(
    ["以前", "之前", "以后", "之后", "当初", "起初", "最初", "原先", "早先"]
)
# Copular or possessive verbs: "X的校长是谁", "X的人口约有多少" ask for the value of X's attribute.
_ZH_COPULA = frozenset(["是", "为", "叫", "叫做", "有", "约有", "达", "约为", "共有"])
_ZH_WH_CHARS = re.compile(r"谁|哪|什么|多少|几|何")
# A request to name something: "请说出X", "列出X", "给出X" (its object is a noun phrase).
_ZH_NAME_REQUEST = re.compile(r"^(?:请)?(?:说出|列出|给出|指出|写出|找出)")
# What each answer type is asked with after 是 (the wh-word of a copular question).
_ZH_WH_OF_TYPE = {"PERSON": "谁", "LOCATION": "哪里", "DATE": "哪一年", "NUMBER": "多少"}


def _zh_noun_phrase_asked(q: str) -> str | None:
    """A Chinese noun phrase written as a query asks its value: the words of a search box
    joined by spaces are a 的-chain ("鸿岭奖 设立单位 理事长" → "鸿岭奖的设立单位的理事长是谁"),
    and so is the object of a request to name it ("请说出X的师父所创办的系的系主任"); a chain
    without a wh-word, a verb's aspect (了/过), a copula or a closing 的 is a noun phrase too
    ("X的主办出版社的创办人？"). The wh-word comes from the head noun (谁, 哪里, 哪一年, 多少,
    什么). None for anything else (a question, a statement, a single noun)."""
    request = _ZH_NAME_REQUEST.match(q)
    text = q[request.end() :] if request is not None else q
    text = text.strip().rstrip("。？?！!").strip()
    parts = text.split()
    if len(parts) >= 2 and all(_CJK.search(p) and not p.startswith("的") for p in parts):
        text = "的".join(p.rstrip("的") for p in parts)  # search-box words, one chain
    elif len(parts) != 1 or (request is None and "的" not in text):
        return None
    if (
        not text
        or _ZH_WH_CHARS.search(text)
        or re.search(r"[了过是吗呢吧么，,、：:；;]|多[长高大远深重宽久厚]", text)
        or text.endswith("的")
        or not _CJK.search(text[-1])
    ):
        return None
    head = text.rsplit("的", 1)[-1]
    words = _zh_words(head)
    if not words or not words[-1][1].startswith("n"):
        return None  # the chain ends in no noun ("X的Y成立"): no noun phrase
    return f"{text}是{_ZH_WH_OF_TYPE.get(zh_noun_type(head), '什么')}"


_ZH_RELATIONAL = ("所在", "所属")


# The modifiers of a title (a closed class): 首席执行官, 副校长, 总经理, 常务董事, 联合创始人.
_ZH_TITLE_MODIFIERS = frozenset(
    [
        "首席",
        "副",
        "总",
        "常务",
        "执行",
        "行政",
        "名誉",
        "荣誉",
        "联合",
        "创始",
        "首任",
        "现任",
        "前任",
        "第一任",
        "末任",
        "代理",
    ]
)


def _zh_split_agent(np: str) -> tuple[str, str] | None:
    """A name followed by a relational noun: "蓝海科技创始人" → ("蓝海科技", "创始人") (an agent
    or kinship noun), "松城大学所在城市" → ("松城大学", "所在城市") (所在/所属 + a noun)."""
    words = _zh_words(np)
    if len(words) < 2:
        return None
    last = words[-1][0]
    owner = "".join(w for w, _ in words[:-1])
    if words[-2][0] in _ZH_RELATIONAL and len(words) >= 3:
        owner = "".join(w for w, _ in words[:-2])
        last = words[-2][0] + last
    else:
        # A one-character noun suffix the segmenter cut off its noun ("技术/官") joins it, and
        # a title's modifiers before it belong to the title (首席技术官, 联合创始人).
        k = 1
        if len(last) == 1 and len(words) >= 3 and words[-2][1].startswith("n"):
            k = 2
        while len(words) > k + 1 and words[-k - 1][0] in _ZH_TITLE_MODIFIERS:
            k += 1
        owner = "".join(w for w, _ in words[:-k])
        last = "".join(w for w, _ in words[-k:])
    if len(owner) < 2 or len(last) < 2:
        return None
    if zh_noun_type(last) == "PERSON" or last.startswith(_ZH_RELATIONAL):
        return owner, last
    return None


def _zh_relational_np(part: str) -> tuple[str, str] | None:
    """A part ending in 所在/所属 + a noun names a place or an owner whatever tags the words of
    the name before it get (jieba tags the 奔腾 of a company name as a verb): "松城大学所在城市"
    → ("", "松城大学所在城市"). A two-character verb (or preposition) opening the part makes the
    phrase its object when a proper name (or a 《title》) follows it: "收购北辰软件所在城市" →
    ("收购", "北辰软件所在城市"); before a common noun it starts the name ("奔腾电子总部")."""
    if part.startswith(("由", "被", "所", "#")):
        return None
    split = _zh_split_agent(part)
    if split is None or not split[1].startswith(_ZH_RELATIONAL):
        return None
    words = _zh_words(split[0])
    if (
        len(words) >= 2
        and len(words[0][0]) >= 2
        and words[0][1].startswith(("v", "p"))
        and (words[1][1] in ("nr", "ns", "nt", "nz") or words[1][0].startswith("《"))
    ):
        return words[0][0], part[len(words[0][0]) :]
    return "", part


def _zh_subject_predicate(q: str) -> tuple[str, str, bool] | None:
    """Split a Chinese wh-question into its subject noun phrase and its predicate, and say
    whether the predicate asks for the value of the subject's last noun (a copular or
    possessive predicate with nothing verbal after the wh-word: "…的校长是谁", "…的人口约有
    多少") rather than something about the entity the subject names ("…的乐队是在哪座城市成立
    的", "…的公司是由谁创办的").

    The predicate is what follows the subject's head noun: from the wh-word back over verbs,
    adverbs, prepositions and particles (jieba's tags), stopping at a noun or at 的."""
    words = _zh_words(q)
    wh = next((i for i, (w, _) in enumerate(words) if _ZH_WH_CHARS.search(w)), None)
    if wh is None or wh == 0:
        return None
    start = wh
    while start > 0:
        w, f = words[start - 1]
        # A word before 于, or one ending in it, is verbal whatever its tag ("毕业于", "发源于",
        # 隶属于/n), and so is a bound morpheme before it, which heads no noun phrase: the
        # classical verbs of 卒于/ng and 殁于/g.
        verbal = (
            f.startswith(_ZH_PRED_FLAGS)
            or (words[start][0] == "于" and (len(w) >= 2 or f in ("g", "ng", "vg")))
            or (len(w) >= 3 and w.endswith("于"))
            # After a time word or an adverb, a word is the verb they modify, whatever its tag
            # ("早年师从/n 哪位学者", "曾经师从").
            or (start >= 2 and words[start - 2][1].startswith(("t", "d")) and len(w) >= 2)
        )
        if (
            start == wh
            and f.startswith("n")
            and start >= 3
            and words[start - 2][0] in ("有", "共有", "约有", "计有")
        ):
            start -= 2  # "…有学员几名": the counted noun between 有 and the wh-word
            continue
        if w == "的" or not verbal or (f.startswith("v") and start - 1 == 0):
            break
        if start >= 2 and words[start - 2][0] == "的" and words[start][0] != "的":
            break  # the word after 的 heads its noun phrase, whatever its tag: 的导演毕业于
        if (
            f.startswith("v")
            and words[start][0] in _ZH_COPULA
            and start >= 2
            and words[start - 2][1].startswith("n")
        ):
            break  # "的营业收入是多少": after a noun, a verb-tagged word before the copula is
            # the head of the subject's compound noun
        start -= 1
    owner = max((i for i in range(start) if words[i][0] == "的"), default=None)
    if owner is not None:
        # "X的女儿在京城求学时拜哪位…为师": a preposition after the noun that 的 opens starts
        # the predicate (an adverbial of the verb), whatever the words after it are tagged.
        start = next(
            (
                i
                for i in range(owner + 2, start)
                if words[i][1] == "p" and words[i - 1][1].startswith("n")
            ),
            start,
        )
    subject = "".join(w for w, _ in words[:start])
    predicate = "".join(w for w, _ in words[start:])
    if not subject or not predicate:
        return None
    # (an adverb or a word of time before the copula is none of its head: "X的馆址原来是什么
    # 地方" asks the value of 馆址 as "X的馆址是什么地方" does)
    head = [
        w
        for w, f in words[start:wh]
        if w not in ("大约", "约", "大概", "共", "一共", "总共")
        and not (f.startswith(("d", "t")) or w in _ZH_TIME_ADVERBS)
    ]
    after_verbal = any(f.startswith("v") for _, f in words[wh + 1 :])
    # "…的创始人是哪所学校的校友": the wh-word names the owner of a noun after it, so the
    # predicate says something about the entity the subject names.
    owner_asked = any(w == "的" for w, _ in words[wh + 1 :])
    joined = "".join(head)
    # A verb fused with 为 says what the value was set or changed to, as the copula does:
    # "X的资本定为多少", "…改为什么".
    copular = joined in _ZH_COPULA or (len(joined) == 2 and joined.endswith("为"))
    value = not after_verbal and not owner_asked and (not head or copular)
    if re.search(r"是(?:哪里|哪儿|哪国|哪地|何地|何处|何方)人$", predicate):
        value = False  # "X的创办人是哪里人": the person's origin, not the attribute's value
    return subject, predicate, value


def _zh_relative(part: str, head: str) -> list[tuple[str, AnswerType]]:
    """Steps of a relative clause ``part`` + 的 + ``head``: "由青岚乐队鼓手担任配乐的电影"
    → the agent "青岚乐队鼓手" first when the clause's subject is itself a relational noun
    phrase, then the clause with ``#`` for it."""
    m = re.match(rf"^(由|被)(.+?)(?=[{HAN}]{{2}})", part)
    if m is not None:
        words = _zh_words(part[1:])
        # The clause's verb: the first verb after a relational noun phrase (jieba tags some
        # agent nouns as verbs too, so each verb position is tried in turn).
        for verb in (i for i, (_, f) in enumerate(words) if f.startswith("v") and i > 0):
            agent = "".join(w for w, _ in words[:verb])
            if _zh_split_agent(agent) is not None:
                rest = "".join(w for w, _ in words[verb:])
                return [(agent, "PERSON"), (f"{m.group(1)}#{rest}的{head}", zh_noun_type(head))]
    elif not part.startswith(("#", "所")):
        # "栎川电子创始人就读的大学": a subject that is an organisation's person noun is found
        # first ("栎川电子创始人"), then the clause of its answer ("#就读的大学").
        words = _zh_words(part)
        verb = next((i for i, (_, f) in enumerate(words) if f.startswith("v")), 0)
        agent = "".join(w for w, _ in words[:verb])
        if verb > 0 and _zh_named_role(agent) is not None:
            rest = "".join(w for w, _ in words[verb:])
            return [(agent, "PERSON"), (f"#{rest}的{head}", zh_noun_type(head))]
    return [(f"{part}的{head}", zh_noun_type(head))]


def _zh_is_relative(part: str) -> bool:
    """Does ``part`` (text before a 的, ``#`` for an earlier answer) hold a verb, i.e. is it a
    relative clause?"""
    part = part.lstrip("#")
    if not part:
        return False
    if part.startswith(("由", "被", "所")):
        return True
    words = _zh_words(part)
    return any(
        (f.startswith("v") and (i > 0 or len(w) >= 2))
        # a verb fused with its aspect particle (当过, 做了), whatever its tag
        or (i > 0 and len(w) == 2 and w[1] in "过了着" and f in ("p", "d", "u", "ul", "ug"))
        for i, (w, f) in enumerate(words)
    )


def _zh_owned_agent(part: str) -> bool:
    """Is ``part`` a work's or an organisation's agent noun ("《北渡》导演", "青岚乐队鼓手")
    although jieba tags the noun a verb? A work or an organisation directs or drums nothing,
    so the noun is the person's role, not a relative clause's verb."""
    split = _zh_split_agent(part)
    if split is None or zh_noun_type(split[1]) != "PERSON":
        return False
    owner = split[0]
    words = _zh_words(owner)
    if any(
        f.startswith("v") and any(g == "nr" for _, g in words[:i]) for i, (_, f) in enumerate(words)
    ):
        return False  # "X死后接任书院董事": a person and a verb, a clause, not a name
    return bool(re.fullmatch(r"《[^《》]+》", owner)) or zh_noun_type(owner) == "ORGANIZATION"


def _zh_agent_phrase(parts: list[str]) -> tuple[str, str, str, list[str]] | None:
    """When a subject's first 的-part is 由/被 and a noun phrase with no verb ("由《北渡》
    导演") and the next part is a noun and a verb ("弟弟一手打造"), the 的 joins the agent's own
    noun phrase: (agent phrase, marker, verb phrase, the parts after)."""
    first = parts[0]
    if len(parts) < 3 or first[:1] not in ("由", "被") or len(first) < 3:
        return None
    inner = first[1:]
    if _zh_is_relative(inner) and not _zh_owned_agent(inner):
        return None
    head, verb = _zh_head(parts[1], last=False)
    if not verb or not _zh_is_relative(verb) or zh_noun_type(head) != "PERSON":
        return None
    return f"{inner}的{head}", first[0], verb, parts[2:]


def _zh_suo_np(part: str) -> tuple[str, AnswerType, str] | None:
    """A noun phrase "X所V + N" after a verb inside ``part`` ("收购了夏侯俊朗所创公司": the
    company 夏侯俊朗 founded): (its query "夏侯俊朗所创的公司", the noun's type, ``part`` with ``#``
    for it), or ``None``."""
    words = _zh_words(part)
    at = next((i for i, (w, _) in enumerate(words) if w == "所"), None)
    if at is None or at + 2 >= len(words):
        return None
    outer = max((i for i in range(at) if words[i][1].startswith("v")), default=None)
    if outer is None:
        return None
    first = outer + 1 + (words[outer + 1][0] in ("了", "过") if outer + 1 < at else 0)
    agent = "".join(w for w, _ in words[first:at])
    verb, nouns = words[at + 1][0], words[at + 2 :]
    noun = "".join(n for n, _ in nouns)
    if (
        len(agent) < 2
        or len(verb) > 2
        or any(f.startswith("v") for _, f in words[first:at])
        or not all(f.startswith("n") for _, f in nouns)
        or zh_noun_type(noun) == "NAME"
    ):
        return None
    before = "".join(w for w, _ in words[:first])
    return f"{agent}所{verb}的{noun}", zh_noun_type(noun), f"{before}#"


def _zh_head(part: str, last: bool) -> tuple[str, str]:
    """The head noun of a relative clause at the start of ``part``, and what follows it
    ("乐队签约" → ("乐队", "签约")); the last part of a subject is its head whole."""
    if last:
        return part, ""
    words = _zh_words(part)
    n = 0
    while n < len(words) and words[n][1].startswith(("n", "x")):
        n += 1
    head = "".join(w for w, _ in words[: max(n, 1)])
    return head, part[len(head) :]


def _zh_names(owner: str) -> bool:
    """Whether ``owner`` reads as a proper name before a person noun (栎川电子 in 栎川电子创始人,
    《北渡》), not a common noun that makes one compound with it (铁轨诗人 is a band's name):
    it holds a name's tag, a title, or runs to three characters or more."""
    words = _zh_words(owner)
    return (
        owner.startswith("《")
        or len(owner) >= 3
        or any(f in ("nr", "ns", "nt", "nz") for _, f in words)
    )


def _zh_named_role(np: str) -> tuple[str, str] | None:
    """(owner, person noun) when ``np`` is a named owner's person noun ("栎川电子创始人" →
    ("栎川电子", "创始人")); None for a common noun before it (铁轨诗人) or no person noun."""
    split = _zh_split_agent(np)
    if split is None or zh_noun_type(split[1]) != "PERSON" or not _zh_names(split[0]):
        return None
    return split


def _zh_role_split(part: str) -> tuple[str, str] | None:
    """A part that ends in a person noun and then a word of no class, before 的: the word is
    the relative clause's verb whatever its tag (jieba tags 毕业 and 师从 as nouns), and the
    person noun phrase its subject: "青芷书局创办人毕业" → ("青芷书局创办人", "毕业"),
    "设计者师从" → ("设计者", "师从")."""
    words = _zh_words(part)
    for k in range(len(words) - 2, -1, -1):
        word = words[k][0]
        after = words[k + 1 :]
        head = "".join(w for w, _ in words[: k + 1])
        # The person noun is a word of its own, or a title the segmenter cut (行政/总/厨).
        person = (len(word) >= 2 and zh_noun_type(word) == "PERSON") or (
            (agent := _zh_split_agent(head)) is not None and zh_noun_type(agent[1]) == "PERSON"
        )
        # … and an adverb may stand before the clause's verb (负责人/曾经/执掌).
        verbs = after[1:] if after[0][1] == "d" and len(after) > 1 else after
        if (
            person
            and all(
                # (a verb of one character only as tagged: 收的徒弟, 娶的妻子, 办的瓷厂)
                f in ("n", "v", "vn") and (len(w) >= 2 or f == "v") and zh_noun_type(w) == "NAME"
                for w, f in verbs
            )
            and sum(len(w) for w, _ in verbs) <= 4
        ):
            return head, "".join(w for w, _ in after)
    return None


def _zh_is_name_like(text: str) -> bool:
    """Is ``text`` a bare name (no verb, no 的, no wh-word): "松城大学", "邵岷川"?"""
    if not text or "的" in text or _ZH_WH_CHARS.search(text):
        return False
    return not any(flag.startswith("v") for _, flag in _zh_words(text)[1:])


def _zh_np_parts(subject: str) -> list[str]:
    """The 的-parts of a noun phrase, with "N所在的M" one part when N is a common noun for
    where something is: "X的总部所在的城市" asks where X's head office is, one attribute of X
    (a head office has no name of its own to find first, as "X的第一家酒店" has)."""
    parts = [p for p in subject.split("的") if p]
    if len(parts) >= 3 and parts[-2].endswith(_ZH_RELATIONAL):
        words = _zh_words(parts[-2][:-2])
        if (
            len(words) == 1
            and words[0][1] in ("n", "s")
            and zh_noun_type(words[0][0]) == "LOCATION"
        ):
            parts = [*parts[:-2], f"{parts[-2]}的{parts[-1]}"]
    if len(parts) >= 3 and parts[-1] in _ZH_THE_ONE:
        # "石桥的督造的人": 人 is no attribute of anything; what it follows says what the
        # person did ("督造的人", the one who oversaw the building), one part with it
        parts = [*parts[:-2], f"{parts[-2]}的{parts[-1]}"]
    return parts


# A head noun that says only "the one (who)": 人, 那个人, 那位.
_ZH_THE_ONE = frozenset(["人", "那人", "那个人", "那位", "这个人", "这人", "这位"])


def _zh_chain(subject: str, include_last: bool) -> list[tuple[str, AnswerType]]:
    """Bridge queries of a Chinese subject noun phrase, innermost first, each with the type of
    what it names (``#`` stands for the previous step's answer). With ``include_last`` the
    whole phrase names an entity; otherwise its last 的-part is the attribute the question
    asks about and gets no step of its own.

    Each 的 joins what precedes it to a noun: a relative clause (it holds a verb: "林墨担任主唱
    的乐队", "#签约的唱片公司") makes a step naming the clause's head; an owner followed by a
    noun ("#的母校") makes a step naming the owner's attribute."""
    parts = _zh_np_parts(subject)
    out: list[tuple[str, AnswerType]] = []
    if not parts:
        return out
    if (
        include_last
        and len(parts) == 2
        and parts[0].endswith(_ZH_RELATIONAL)
        and len(parts[0]) > 2
        and not parts[0].startswith("#")
        and _zh_is_name_like(parts[0][:-2])
    ):
        # "松城大学所在的城市": a name and the place (or owner) it is in, one entity
        place_kind = zh_noun_type(parts[-1])
        return [(f"{parts[0]}的{parts[1]}", "LOCATION" if place_kind == "NAME" else place_kind)]
    if (
        include_last
        and len(parts) >= 3
        and parts[-2].endswith(_ZH_RELATIONAL)
        and len(parts[-2]) > 2
        and not parts[-2].startswith("#")
    ):
        # "X的第一家酒店所在的古镇": what 所在 follows is an entity of its own (X的第一家酒店),
        # found first; then the place it is in.
        owner_chain = _zh_chain("的".join([*parts[:-2], parts[-2][:-2]]), include_last=True)
        if owner_chain:
            place_kind = zh_noun_type(parts[-1])
            return [
                *owner_chain,
                (
                    f"#{parts[-2][-2:]}的{parts[-1]}",
                    "LOCATION" if place_kind == "NAME" else place_kind,
                ),
            ]
    phrase = _zh_agent_phrase(parts)
    if phrase is not None:
        # "由《北渡》导演的弟弟一手打造的公司": the agent after 由 is a noun phrase with a
        # 的 of its own; its chain comes first, then the clause with # for the agent.
        agent_np, marker, clause_verb, after = phrase
        out = _zh_chain(agent_np, include_last=True)
        parts = [f"{marker}#{clause_verb}", *after]
    cur = parts[0]
    inner = _zh_suo_np(cur) if phrase is None else None
    if inner is not None:
        # "收购了夏侯俊朗所创公司的企业": the 所-phrase names the verb's object, found first.
        np, kind, cur = inner
        out.append((np, kind))
    relational = _zh_relational_np(cur) if phrase is None else None
    if relational is not None and (len(parts) >= 2 or include_last):
        verb, np = relational
        kind = zh_noun_type(np)
        out.append((np, "LOCATION" if kind == "NAME" and "所在" in np else kind))
        cur = f"{verb}#"
    # A verb jieba tagged a noun after the subject's person noun (see _zh_role_split).
    verb_after_role = False
    if phrase is None and (not _zh_is_relative(cur) or _zh_owned_agent(cur)):
        agent = _zh_split_agent(cur)
        last_word = _zh_words(cur)[-1] if cur else ("", "")
        if agent is not None and len(last_word[0]) == 1 and last_word[1] == "v":
            agent = None  # "…社长收的徒弟": a verb of one character closes the clause
        role = _zh_role_split(cur) if agent is None and len(parts) >= 2 else None
        role_agent = _zh_named_role(role[0]) if role is not None else None
        if agent is not None and (len(parts) >= 2 or include_last):
            out.append((cur, zh_noun_type(agent[1])))
            cur = "#"
        elif role is not None and role_agent is not None:
            # "青芷书局创办人毕业的学堂": the founder first, then where # graduated.
            out.append((role[0], zh_noun_type(role_agent[1])))
            cur, verb_after_role = f"#{role[1]}", True
    elif phrase is None and len(parts) >= 2 and not cur.startswith(("由", "被", "所", "#")):
        # "澄光研究负责人曾经执掌的医院": a clause whose subject is a named owner's person
        # noun finds that person first, then what # did.
        role = _zh_role_split(cur)
        if role is not None and (role_agent := _zh_named_role(role[0])) is not None:
            out.append((role[0], zh_noun_type(role_agent[1])))
            cur = f"#{role[1]}"
    for i in range(1, len(parts)):
        last = i == len(parts) - 1
        if last and not include_last:
            break
        if verb_after_role or _zh_is_relative(cur):
            head, rest = _zh_head(parts[i], last)
            out.extend(_zh_relative(cur, head))
            cur = f"#{rest}"
            verb_after_role = False
            if rest and not _zh_is_relative(cur):
                out.append((f"#的{rest}", zh_noun_type(rest)))
                cur = "#"
        else:
            head, rest = _zh_head(parts[i], last)
            role = None if last else _zh_role_split(parts[i])
            if not rest and role is not None:
                head, rest = role  # "潆水船闸的设计者师从的教授": 师从 is the verb
                verb_after_role = True
            if (
                rest
                and (verb_after_role or _zh_is_relative(rest))
                and not rest.startswith(_ZH_RELATIONAL)
            ):
                # "闻人素的丈夫创办的剧团": the owner's noun (丈夫) is the subject of the
                # relative clause that follows it (创办的剧团).
                out.append((f"{cur}的{head}", zh_noun_type(head)))
                cur = f"#{rest}"
            else:
                out.append((f"{cur}的{parts[i]}", zh_noun_type(parts[i])))
                cur = "#"
    return out


def _zh_steps(
    chain: list[tuple[str, AnswerType]], before: Sequence[PlanStep] = ()
) -> list[PlanStep]:
    steps: list[PlanStep] = list(before)
    for query, t in chain:
        bound = query.replace("#", f"#{len(steps)}", 1) if "#" in query else query
        steps.append(_zh_step(len(steps) + 1, bound, t))
    return steps


# "《北渡》改编自哪位作家的小说": the wh-word asks for the owner of the verb's object.
_ZH_WH_OWNER = re.compile(
    rf"^(?P<pre>.*[{HAN}》])(?<!是)(?<!为)哪一?[位个家所部座本支条首名](?P<owner>[{HAN}]{{1,4}}?)的"
    rf"(?P<obj>[{HAN}]{{1,4}})$"
)


# Verbs that give their subject a role (做, 担任, 出任, 成为 …): their object is a role of the
# subject's, as after the copula.
_ZH_ROLE_VERB_END = re.compile(r"(?:做|当|担任|出任|任|成为|充任|兼任|接任|继任)(?:了|过)?$")


# "X的创办人收过一位女弟子，那位女弟子…": a clause introduces a noun with a numeral and a
# classifier, and the next clause points back to it with a demonstrative.
_ZH_INTRODUCES = re.compile(
    rf"^(?P<np>.+?的[{HAN}]{{1,4}}?)(?:有|收|收过|收了|生有|育有|娶了|带过|教过)"
    rf"(?:一|两)(?P<cl>[个位名家所座])(?P<noun>[{HAN}]{{1,4}})$"
)


# "X于2015年被收购。收购方的董事长是谁": a passive event told first, then its party (V方,
# the one who did V) asked about.
_ZH_PASSIVE_PARTY = re.compile(
    rf"^(?P<x>[^，,。；;]+?)被(?P<v>[{HAN}]{{2}})了?[。；;，,]\s*(?P<rest>[^。；;]+)$"
)


def _zh_passive_party(q: str, question: str) -> Plan | None:
    """A passive event, then a question about its party: "X于2015年被收购。收购方的董事长是谁"
    finds who bought X in 2015 (the agent the passive leaves out), then asks of it."""
    m = _ZH_PASSIVE_PARTY.match(q.rstrip("？?"))
    if m is None or f"{m['v']}方" not in m["rest"] or not _ZH_WH_CHARS.search(m["rest"]):
        return None
    kind = answer_type(m["rest"])
    # who did it, planned as a question of its own ("由X创办的公司后来被哪一方收购" finds the
    # company first)
    _, steps = _answer_as_bridge(f"{m['x']}被哪一方{m['v']}")
    before, _, after = m["rest"].partition(f"{m['v']}方")
    owned = bool(after) and not after.startswith("的") and _zh_words(after)[0][1].startswith("n")
    final = f"{before}#{len(steps)}{'的' if owned else ''}{after}"  # 收购方总部 → #1的总部
    return Plan(
        question=question,
        steps=[*steps, _zh_step(len(steps) + 1, final, kind, final=True)],
        strategy="bridge",
        answer_type=kind,
    )


def _zh_introduced(clauses: list[str], kind: AnswerType) -> list[PlanStep] | None:
    """Steps for a noun one clause introduces and the next points back to: the noun phrase
    owning it, then "#的N", then the rest of the second clause asked of that N."""
    m = _ZH_INTRODUCES.match(clauses[0].strip())
    if m is None:
        return None
    second = clauses[1].strip()
    back = re.match(rf"^(?:这|那|此)(?:一)?{m['cl']}?{re.escape(m['noun'])}", second)
    rest = second[back.end() :] if back is not None else ""
    if back is None or not rest or not _ZH_WH_CHARS.search(rest):
        return None
    chain = _zh_chain(m["np"], include_last=True) or [(m["np"], zh_noun_type(m["np"]))]
    steps = _zh_steps([*chain, (f"#的{m['noun']}", zh_noun_type(m["noun"]))])
    return [*steps, _zh_step(len(steps) + 1, f"#{len(steps)}{rest}", kind, final=True)]


# An ordinal count of times, an adverbial of the verb after it: 第二次, 头一回, 首次, 再次.
_ZH_TIMES_COUNTED = re.compile(r"(?:第[一二三四五六七八九十百\d]+|头一?|首|初|再|又一)[次回遭趟]")


def _zh_bridge(q: str, question: str) -> Plan | None:
    kind = answer_type(q)
    q = _zh_owned_without_de(_ZH_DEMONSTRATIVE.sub("", q))
    m = _ZH_WH_OWNER.match(q)
    if m is not None and _ZH_ROLE_VERB_END.search(m["pre"]):
        m = None  # "X做了哪个组织的首任董事": the role is the subject's own; its owner is asked
    if m is not None and "，" not in q and "," not in q:
        # The object first ("《北渡》改编自的小说"), then its owner of the asked class.
        owner = m["owner"]
        steps = _zh_steps(
            [(f"{m['pre']}的{m['obj']}", zh_noun_type(m["obj"])), (f"#的{owner}", kind)]
        )
        last = steps[-1]
        steps[-1] = _zh_step(last.index, last.query, kind, final=True)
        return Plan(question=question, steps=steps, strategy="bridge", answer_type=kind)
    clauses = re.split(r"[，,？?]", q, maxsplit=1)
    inner = _zh_inner_time(q) if not re.search(r"[，,]", q) else None
    if inner is not None:
        # "X的家乡在民国十年有多少人口": the time phrase between the subject and its verb
        # dates the predicate; the question is planned without it and it goes back before the
        # last step's verb.
        plan = _zh_bridge(f"{q[: inner[0]]}{q[inner[1] :]}", question)
        if plan is not None:
            return plan.model_copy(
                update={"steps": _dated_last(plan.steps, q[inner[0] : inner[1]])}
            )
    time_clause = _zh_time_clause(clauses[0]) if len(clauses) == 2 else None
    if time_clause and _ZH_WH_CHARS.search(clauses[1]):
        # A clause that is a time phrase alone ("光绪五年时，X…多少") dates the whole question:
        # an adverbial of its last step, not a topic.
        rest = clauses[1].strip()
        plan = _zh_bridge(rest, question) or Plan(
            question=question,
            steps=[_zh_step(1, rest, kind, final=True)],
            strategy="single",
            answer_type=kind,
        )
        return plan.model_copy(update={"steps": _dated_last(plan.steps, time_clause)})
    introduced = _zh_introduced(clauses, kind) if len(clauses) == 2 else None
    if introduced is not None:
        return Plan(question=question, steps=introduced, strategy="bridge", answer_type=kind)
    if len(clauses) == 2 and _ZH_PRONOUN.match(clauses[1].strip()):
        # Two clauses, the second referring back: "P就读的大学，其校长是谁"; the first may be a
        # question of its own ("X是由哪家书局出版的？这家书局的创办人是谁").
        first, second = clauses[0].strip(), clauses[1].strip()
        if _ZH_WH_CHARS.search(second):
            kind = answer_type(second)  # the last clause asks what the question asks
        asked = _ZH_WH_CHARS.search(first) is not None
        asked_steps = _zh_predicate_steps(first, answer_type(first), []) if asked else None
        if asked_steps is not None:
            steps = asked_steps
        else:
            nouns = [p for p in first.split("的") if p]
            chain = _zh_chain(first, include_last=True) if len(nouns) >= 2 else []
            if not chain:
                chain = [(first, zh_noun_type(nouns[-1]) if nouns else "NAME")]
            steps = _zh_steps(chain)
        pronoun = _ZH_PRONOUN.match(second)
        assert pronoun is not None  # (the branch's condition)
        rest = second[pronoun.end() :]
        rest_words = _zh_words(rest)
        # A noun after the pronoun is what it owns, whatever the segmenter tagged a class noun
        # it does not know (发起人/l).
        owned = (
            bool(rest_words)
            and not rest.startswith(("所在", "所属"))
            and (
                rest_words[0][1].startswith("n")
                # (a verb is no noun it owns: "他出生的镇子" is the town where he was born)
                or (
                    zh_noun_type(rest_words[0][0]) != "NAME"
                    and not rest_words[0][1].startswith("v")
                )
                # a possessive (其, 它的) before a modifier and its noun: a compound noun it
                # owns ("其主办出版社后来并入了哪家集团": its sponsoring publisher), not a
                # clause of its own ("其创办的公司")
                or (
                    pronoun.group(0) in ("其", "它的", "他的", "她的")
                    and len(rest_words) >= 3
                    and rest_words[0][1].startswith(("v", "b", "a"))
                    and rest_words[1][1].startswith("n")
                    and rest_words[2][1].startswith(("v", "d", "t", "p"))
                )
            )
        )
        # "…，其主唱出生在哪个镇" reads "#的主唱出生在哪个镇", itself a bridge question.
        more = _zh_predicate_steps(f"#的{rest}", kind, steps) if owned else None
        if more is None and not owned and "的" in rest:
            # "…，他出生的镇子在光绪十年有多少人口": a relative clause of the pronoun's, a
            # bridge of its own (a time phrase before the verb set aside and put back).
            body, dated = f"#{rest}", ""
            inner = _zh_inner_time(body)
            if inner is not None:
                body, dated = body[: inner[0]] + body[inner[1] :], body[inner[0] : inner[1]]
            more = _zh_predicate_steps(body, kind, steps)
            if more is not None and dated and len(more) > len(steps) + 1:
                more = _dated_last(more, dated)
            elif more is not None and len(more) <= len(steps) + 1:
                more = None  # nothing of its own: the pronoun's step asks it whole
        if more is None:
            rest = f"#{len(steps)}" + ("的" if owned else "") + rest
            more = [*steps, _zh_step(len(steps) + 1, rest, kind, final=True)]
        return Plan(question=question, steps=more, strategy="bridge", answer_type=kind)
    adverbial = ""
    if (
        len(clauses) == 2
        and not _ZH_WH_CHARS.search(clauses[0])
        and _ZH_WH_CHARS.search(clauses[1])
    ):
        # A topic and a comment about it: "由X担任配乐的电影，导演是谁" reads "…电影的导演是谁";
        # a comment that opens with a verb is the topic's predicate ("…的教授，是哪一年来的").
        comment = clauses[1].strip()
        words = _zh_words(comment)
        first_word = words[:1]
        verbal = bool(first_word) and (
            first_word[0][0] in _ZH_COPULA
            or first_word[0][1].startswith(("p", "d"))
            # a verb that is no copula's subject (成立于哪一年, 位于哪里; not 导演是谁)
            or (
                first_word[0][1].startswith("v")
                and len(words) > 1
                and (words[1][1].startswith("p") or _ZH_WH_CHARS.match(words[1][0]) is not None)
            )
        )
        # The topic's own event opens the comment: a relative clause ("…的导师，育成的第一个
        # 品种叫什么": the first variety the teacher bred) or an event and when ("…的父亲，
        # 创业之前在哪里工作"): the topic is found, and the comment asked of it as it stands.
        event = len(words) > 1 and (
            (first_word[0][1].startswith("v") and words[1][0] == "的")
            or (not _zh_time_adverbial(words) and words[1][0] in ZH_TIME_CLOSERS)
            # … or how often it happened, then the verb ("…的茶社，第二次改名后叫什么")
            or (
                _ZH_TIMES_COUNTED.fullmatch(first_word[0][0]) is not None
                and words[1][1].startswith("v")
            )
        )
        chain = (
            _zh_chain(clauses[0].strip(), include_last=True)
            if event and _zh_noun_topic(clauses[0].strip())
            else []
        )
        if chain:
            steps = _zh_steps(chain)
            final = _zh_step(len(steps) + 1, f"#{len(steps)}{comment}", kind, final=True)
            return Plan(
                question=question, steps=[*steps, final], strategy="bridge", answer_type=kind
            )
        # … or a time phrase that is no noun's modifier (光绪末年迁到了…, 1920年迁往…, 后来…):
        # an adverbial of the topic's predicate, not an attribute of the topic. It is set
        # aside while the topic is planned and goes back before the last step's verb.
        timed = words[: _zh_time_adverbial(words)]
        verbal = verbal or bool(timed)
        if not all(f.startswith("t") for _, f in timed):  # time words alone (后来, 早年)
            adverbial = "".join(w for w, _ in timed)  # the predicate walks over itself
        comment = comment[len(adverbial) :]
        attributed = _zh_time_attribute(words) if not timed else 0
        if attributed:
            # "…的医院，现在的院长是谁", "…，2023年的营收是多少": a time phrase with its 的
            # dates the attribute; it is set aside like an adverbial (现在 alone is dropped).
            phrase = "".join(w for w, _ in words[: attributed - 1])
            comment = comment[len(phrase) + 1 :]
            if not all(f.startswith("t") for _, f in words[: attributed - 1]):
                adverbial = phrase
        q = f"{clauses[0].strip()}{'' if verbal else '的'}{comment}"
    planned = _zh_predicate_steps(q, kind, [])
    if planned is None:
        return None
    if adverbial:
        planned = _dated_last(planned, adverbial)
    return Plan(question=question, steps=planned, strategy="bridge", answer_type=kind)


def _dated_last(steps: Sequence[PlanStep], phrase: str) -> list[PlanStep]:
    """``steps`` with the time phrase set aside while they were planned put back before the
    last step's verb, after its leading ``#n`` ("#1 1920年…", never "#11920年")."""
    last = steps[-1]
    ref = re.match(r"#\d+", last.query)
    at = ref.end() if ref else 0
    gap = " " if at and phrase[:1].isdigit() else ""
    query = f"{last.query[:at]}{gap}{phrase}{last.query[at:]}"
    return [*steps[:-1], last.model_copy(update={"query": query})]


def _zh_inner_time(q: str) -> tuple[int, int] | None:
    """The offsets of a time phrase right after a noun and right before a verb ("X的家乡/在民国
    二十四年/有多少人口", "X的故乡/1920年/有多少人口"), or None."""
    words = _zh_words(q)
    at = 0
    for i, (w, f) in enumerate(words):
        if i > 0 and not f.startswith("v") and words[i - 1][1].startswith("n"):
            n = _zh_time_adverbial(words[i:])
            if n and i + n < len(words) and words[i + n][1].startswith("v"):
                return at, at + sum(len(x) for x, _ in words[i : i + n])
        at += len(w)
    return None


def _zh_time_clause(clause: str) -> str | None:
    """The time phrase a clause consists of, without its closer ("光绪五年时" → "光绪五年"),
    or None when the clause says more than a time."""
    words = _zh_words(clause.strip())
    n = _zh_time_adverbial([*words, ("。", "x")])
    if n == 0 or not all(w in ZH_TIME_CLOSERS for w, _ in words[n:]):
        return None
    return "".join(w for w, _ in words[:n])


def _zh_time_attribute(words: Sequence[tuple[str, str]]) -> int:
    """How many words a time phrase of numbers and its 的 take at the start of a clause
    (现在/的, 2023/年/的), or 0."""
    end = _zh_time_end(words)
    if (
        end is None
        or words[end + 1][0] != "的"
        or not all(f.startswith("m") for _, f in words[:end])
    ):
        return 0
    return end + 2


def _zh_time_adverbial(words: Sequence[tuple[str, str]]) -> int:
    """How many words the time phrase the clause opens with takes (up to three, ending in a
    time word, a year 年 or 年间: 光绪/末年, 民国初年, 1920/年, 后来) when anything but 的
    follows it; 0 when there is none. A preposition of time before it goes with it
    (在民国十年, 于1920年)."""
    end = _zh_time_end(words)
    return 0 if end is None or words[end + 1][0] == "的" else end + 1


def _zh_time_end(words: Sequence[tuple[str, str]]) -> int | None:
    """The index of the word that closes the time phrase a clause opens with (a time word, a
    year 年 or 年间, within the first three words, a preposition of time before them aside),
    when a word follows it; None when the clause opens with none."""
    lead = 1 if words and words[0][0] in ("在", "于") and len(words) > 2 else 0
    for end in range(lead, min(3 + lead, len(words) - 1)):
        word, flag = words[end]
        if flag.startswith(("v", "p", "d", "r", "u", "c")) or _ZH_WH_CHARS.search(word):
            return None  # a verb, a pronoun, a wh-word … before any time word: none opens it
        if flag.startswith("t") or word.endswith(("年", "年间")) or word in _ZH_TIME_NOUNS:
            return end
    return None


# Nouns and localizers that close a time phrase (公私合营/时期, 抗战/期间, 1950/年代).
_ZH_TIME_NOUNS = frozenset(
    ["时期", "期间", "时代", "年代", "时候", "初期", "中期", "末期", "前期", "后期", "之际"]
)


# A copula or a verb of being somewhere before the wh-word: "X的总部设在哪座城市" asks where
# the headquarters is; "X的故乡靠近哪座山" asks about another place near the home town.
_ZH_BE_AT = re.compile(
    r"^(?:是|为|在|设在|设于|位于|坐落于|坐落在|地处|处于|建于|建在|有|约有|共有|达|约为)?"
    r"(?:在|于)?(?:哪|什么|多少|几|何)"
)
# A person noun right after 的 and a noun it owns, without a second 的: "X的创始人故乡" is
# "X的创始人的故乡".
_ZH_PERSON_THEN_NOUN_FLAGS = ("n", "nr", "ns", "nt", "nz")


# Academic degrees (a closed class) modify the person noun after them: 博士导师 is one noun,
# a doctoral supervisor, not the doctor's supervisor.
_ZH_DEGREES = frozenset(["博士", "硕士", "学士", "博士生", "硕士生", "本科生", "博士后"])


def _zh_owned_without_de(q: str) -> str:
    """ "X的创始人故乡在哪" → "X的创始人的故乡在哪": a person noun after 的 followed by a
    common noun of a known class owns it (a name after the role noun is apposition, not this)."""
    words = _zh_words(q)
    out: list[str] = []
    for i, (w, f) in enumerate(words):
        out.append(w)
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (
            i > 0
            and words[i - 1][0] == "的"
            and f == "n"
            and len(w) >= 2
            and zh_noun_type(w) == "PERSON"
            and w not in _ZH_DEGREES
            and nxt is not None
            and nxt[1] == "n"
            and len(nxt[0]) >= 2
            and zh_noun_type(nxt[0]) != "NAME"
        ):
            out.append("的")
    return "".join(out)


# A number word and the noun it counts: 多少名员工, 几座城市.
_ZH_COUNTED_NOUN = re.compile(rf"(?:多少|几)[个名位家座所张人项本部条种间]?[{HAN}]")


def _zh_predicate_steps(
    q: str, kind: AnswerType, before: Sequence[PlanStep]
) -> list[PlanStep] | None:
    """The steps of a Chinese wh-question read as a subject noun phrase and a predicate,
    after the steps ``before`` (``#`` at the start of ``q`` is the last of them)."""
    split = _zh_subject_predicate(q)
    if split is None:
        return None
    subject, predicate, value = split
    parts = _zh_np_parts(subject)
    if (
        not value
        and not subject.endswith("的")
        and len(parts) >= 2
        and kind in ("LOCATION", "DATE", "NUMBER")
        and zh_noun_type(parts[-1]) == kind
        and _ZH_BE_AT.match(predicate)
        # (a relative clause's head is an entity of its own: "X出生的古镇在哪个市" finds the
        # town first, then the city that holds it)
        and not _zh_is_relative(parts[-2])
    ):
        # "X的总部设在哪座城市": the last noun is of the class asked for, so the predicate
        # asks for its value, not for something about another entity it names.
        value = True
    if (
        value
        and kind == "NUMBER"
        and len(parts) >= 2
        and zh_noun_type(parts[-1]) in ("ORGANIZATION", "PERSON", "LOCATION")
        and _ZH_COUNTED_NOUN.search(predicate)
    ):
        # "…的公司有多少名员工" counts something the company has: the company is an entity of
        # its own to find first, not the value asked for.
        value = False
    if subject.endswith("的"):
        # "…的导演是谁": the predicate opens with the attribute itself.
        subject, predicate, value = subject[:-1], f"的{predicate}", False
        chain = _zh_chain(subject, include_last=True)
    else:
        chain = _zh_chain(subject, include_last=not value)
    if not chain:
        return None
    steps = _zh_steps(chain, before)
    last = f"#{len(steps)}"
    parts = _zh_np_parts(subject)
    relational = _zh_relational_np(parts[0]) if value and len(parts) == 2 else None
    if relational is not None and relational[0]:
        # "穿过X所在城市的河流叫什么": the clause's verb stays with its head noun.
        final = f"{relational[0]}{last}的{parts[-1]}{predicate}"
    elif value and len(parts) >= 2:
        final = f"{last}的{parts[-1]}{predicate}"
    elif value and len(parts) == 1 and chain[-1][0] != parts[0]:
        final = f"{last}{predicate}"
    else:
        final = f"{last}{predicate}"
    steps.append(_zh_step(len(steps) + 1, final, kind, final=True))
    return steps


def _zh_step(index: int, query: str, kind: AnswerType, final: bool = False) -> PlanStep:
    q = _clean(query)
    return PlanStep(
        index=index,
        query=q,
        needs="the final answer" if final else "a bridge entity",
        depends_on=_deps(q),
        kind="lookup" if final else "bridge",
        answer_type=kind,
    )
