"""Versioned prompt templates of the answer engine. The version is part of every cache key."""

from __future__ import annotations

PROMPT_VERSION = "answer-v2"

PLANNER_PROMPT = """You split a question into the reasoning steps needed to answer it from a \
knowledge base. Each step is a self-contained search query. When a step needs the answer of an \
earlier step, write #n for it (e.g. "Where was #1 born?"). Independent steps have no \
depends_on. The last step answers the question. Use 1 step for simple questions, at most 5.

Question: {question}"""

ROUTER_PROMPT = """Choose where to look for evidence for this step.
- graph: facts about named entities and their relations (multi-hop links between entities)
- community: overviews, themes, or questions about the whole collection
- chunks: text passages (definitions, descriptions, anything else)
Granularity: sentence for a precise fact (date, number, name), paragraph for a short fact, \
section for an explanation, document for a whole-document question, mixed if unsure.

Step: {query}
Information needed: {needs}
Entities found in the knowledge graph: {linked}"""

REWRITE_PROMPT = """The search for this query found weak evidence. Write one better search query \
(use likely names, synonyms, or the kind of sentence that would contain the answer).

Query: {query}
Weak evidence seen: {evidence}"""

STEP_READ_PROMPT = """Read the numbered evidence and answer the query from it alone. Reply \
with the shortest answer: a whole name (never part of a name, never an adjective), a date, a \
number, or yes/no for a yes/no query. Expected kind of answer: {answer_type}. Grade from 0 \
(the evidence does not contain the answer) to 1 (it states it plainly), and give the numbers \
of the evidence you used. If the evidence does not contain the answer, answer "" and grade 0.

Query: {query}

Evidence:
{evidence}"""

GATE_PROMPT = """Does answering this message need facts from a document collection? Greetings, \
small talk, arithmetic and questions about this conversation itself do not. If it does not, \
give a short reply to it.

Message: {question}"""

REFLECT_PROMPT = """Check an answer against its cited evidence. Is every claim supported by the \
evidence, and does the answer answer what was asked?

Question: {question}
Answer: {answer}

Evidence:
{evidence}"""

SYNTH_PROMPT = """Answer the question using only the numbered evidence. Cite every claim with \
[n] markers that refer to the evidence numbers. Be concise. If pieces of evidence contradict \
each other, say so and list the conflict.

Question: {question}
Intermediate findings: {findings}

Evidence:
{evidence}"""
