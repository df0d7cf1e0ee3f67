"""A paragraph extracted through the real local LLM server (llama.cpp, tiny base model).

Quality is not asserted (the model is a 270M base model): the output must be schema-valid, or
the failure recorded, and the calls must have gone over HTTP.
"""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from extraction.llm import LLMExtractor
from extraction.schema import ChunkExtraction, ChunkInput
from extraction.structured import ResponseCache

pytestmark = [pytest.mark.integration, pytest.mark.llm]

PARAGRAPH = (
    "Marie Curie was a physicist and chemist who worked at the University of Paris. "
    "She was born in Warsaw in 1867 and won the Nobel Prize in Physics in 1903."
)


@pytest.mark.timeout(600)
def test_paragraph_through_the_local_llm_server(llm_base_url: str) -> None:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        base_url=llm_base_url,
        api_key=SecretStr("sk-local"),
        model="local",
        temperature=0,
        extra_body={"max_tokens": 512},
    )
    cache = ResponseCache()
    extractor = LLMExtractor(model, max_retries=1, concurrency=1, cache=cache, backoff_s=0)
    (result,) = extractor.extract([ChunkInput(chunk_id="p1", doc_id="d1", text=PARAGRAPH)])

    # Round-trips through the schema: valid output, or a recorded error with nothing else.
    assert ChunkExtraction.model_validate(result.model_dump()) == result
    assert result.chunk_id == "p1" and result.doc_id == "d1"
    if result.error is None:
        names = {e.name for e in result.entities}
        assert all(r.source in names and r.target in names for r in result.relations)
    else:
        assert result.entities == [] and result.relations == []
    assert extractor.usage.calls >= 1
    assert result.llm_calls == extractor.usage.calls
    if result.error is None:
        assert extractor.usage.completion_tokens > 0
        # A second run is served from the cache: no more HTTP calls.
        (again,) = extractor.extract([ChunkInput(chunk_id="p1", doc_id="d1", text=PARAGRAPH)])
        assert again.cached and again.entities == result.entities
        assert extractor.usage.cache_hits == 1
