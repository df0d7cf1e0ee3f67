"""Regex markers that tell the fake chat model which answer stage a prompt belongs to: the
escaped opening of each stage's prompt template."""

from __future__ import annotations

import re

from kg_rag.answer import prompts


def marker(template: str) -> str:
    """The escaped first 40 characters of ``template``."""
    return re.escape(template[:40])


PLAN = marker(prompts.PLANNER_PROMPT)
ROUTE = marker(prompts.ROUTER_PROMPT)
READ = marker(prompts.STEP_READ_PROMPT)
SYNTH = marker(prompts.SYNTH_PROMPT)
