"""Versioned prompt templates of the answer engine. The version is part of every cache key."""

from __future__ import annotations

PROMPT_VERSION = "answer-v1"

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

GRADER_PROMPT = """Does the evidence contain what is needed to answer the query? Score 0 (nothing \
relevant) to 1 (answer clearly stated).

Query: {query}

Evidence:
{evidence}"""

REWRITE_PROMPT = """The search for this query found weak evidence. Write one better search query \
(use likely names, synonyms, or the kind of sentence that would contain the answer).

Query: {query}
Weak evidence seen: {evidence}"""

STEP_ANSWER_PROMPT = """Answer the query from the numbered evidence only, with the shortest \
span (a name, date or number). Give the numbers of the evidence you used. If the evidence does \
not contain the answer, answer "unknown".

Query: {query}

Evidence:
{evidence}"""

SYNTH_PROMPT = """Answer the question using only the numbered evidence. Cite every claim with \
[n] markers that refer to the evidence numbers. Be concise. If pieces of evidence contradict \
each other, say so and list the conflict.

Question: {question}
Intermediate findings: {findings}

Evidence:
{evidence}"""
