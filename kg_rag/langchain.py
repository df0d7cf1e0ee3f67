"""LangChain adapter: a ``BaseRetriever`` backed by a :class:`~kg_rag.engine.KnowledgeEngine`."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from kg_rag.models import Evidence

__all__ = ["KgRagRetriever"]


def _to_document(ev: Evidence) -> Document:
    return Document(
        page_content=ev.text,
        metadata={
            "chunk_id": ev.chunk_id,
            "doc_id": ev.doc_id,
            "source": ev.source,
            "score": ev.score,
            "route": ev.route,
            "char_start": ev.char_start,
            "char_end": ev.char_end,
            "entity_ids": ev.entity_ids,
        },
    )


class KgRagRetriever(BaseRetriever):
    """Multi-hop evidence from kg-rag as LangChain documents (best first)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Any
    top_k: int = 5

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [_to_document(e) for e in self.engine.retrieve(query, self.top_k)]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [_to_document(e) for e in await self.engine.aretrieve(query, self.top_k)]
