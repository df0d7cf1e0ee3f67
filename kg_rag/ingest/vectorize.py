"""Vectors for multi-granularity chunks with as few embedding-model passes as possible.

See :class:`ChunkVectorizer`. Both the ingest pipeline and
:meth:`kg_rag.stores.chunks.LanceChunkStore.rollback` use it, so a rolled-back version gets
exactly the vectors an ingest would have given it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_rag.embeddings import FloatArray, TokenStates, pool_span
from kg_rag.models import Chunk
from kg_rag.text import content_hash, count_tokens

__all__ = ["ChunkVectorizer", "VectorizedChunks", "chunk_context"]


def chunk_context(chunk: Chunk, title: str) -> str:
    """The context line embedded (and BM25-indexed) with a chunk: title and heading path.

    A paragraph that never names its subject ("It was completed in 1889.") is still found by
    the subject when the document title or section heading says it. Repeated parts (a title
    that is also the first heading) appear once.
    """
    parts: list[str] = []
    for part in [title, *chunk.heading_path]:
        part = " ".join(part.split())
        if part and (not parts or parts[-1].lower() != part.lower()):
            parts.append(part)
    return " > ".join(parts)


def _with_context(context: str, text: str) -> tuple[str, int]:
    """The text to embed and the offset of ``text`` inside it."""
    if not context:
        return text, 0
    return f"{context}\n{text}", len(context) + 1


@dataclass
class VectorizedChunks:
    """Vectors for the chunks of several documents.

    Attributes:
        vectors: Per document, an ``(n_chunks, dim)`` float32 array aligned with its chunks.
        keys: Per document, each chunk's vector key: equal keys mean equal vectors, so a key
            found among stored chunks lets a later ingest reuse the vector.
        computed: Texts that went through the embedding model.
    """

    vectors: list[FloatArray]
    keys: list[list[str]]
    computed: int = 0
    texts: list[list[str]] = field(default_factory=list)


_Step = tuple[str, str, int, int, str]
"""How one chunk gets its vector: (key, kind: plain | late | pool, span start, end, parent key)."""


class ChunkVectorizer:
    """Vectors for multi-granularity chunks with as few model passes as possible.

    * Paragraphs are embedded with their context line (:func:`chunk_context`), once per
      distinct text: a paragraph equal to another, or whose key is in ``known``, is not
      embedded again.
    * Sentences: with an embedder that offers ``embed_with_states`` (the local model) and
      ``late_chunking=True``, a sentence vector is the mean of its paragraph's token states
      over the sentence's span — no forward pass of its own. Otherwise sentences are embedded
      like paragraphs (a one-sentence paragraph reuses the paragraph's vector).
    * Sections and documents get the token-weighted mean of their paragraphs' vectors: no
      forward pass, and long sections are represented by all their text instead of the
      first 256 wordpieces.

    Args:
        embedder: Any LangChain ``Embeddings``.
        late_chunking: Use late chunking for sentences when the embedder supports it.
    """

    def __init__(self, embedder: Embeddings, *, late_chunking: bool = True) -> None:
        self.embedder = embedder
        self.late_chunking = late_chunking and hasattr(embedder, "embed_with_states")

    def _embed(self, texts: list[str]) -> FloatArray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        embed_array = getattr(self.embedder, "embed_array", None)
        if embed_array is not None:
            arr = np.asarray(embed_array(texts), dtype=np.float32)
        else:
            # Slices: a list of Python floats costs ~8x its float32 array, so a large document
            # embedded in one call would hold all its vectors that way at once.
            step = 512
            arr = np.concatenate(
                [
                    np.asarray(self.embedder.embed_documents(texts[i : i + step]), np.float32)
                    for i in range(0, len(texts), step)
                ]
            )
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out: FloatArray = arr / norms
        return out

    def vectorize(
        self,
        docs: Sequence[tuple[str, Sequence[Chunk]]],
        known: Mapping[str, FloatArray] | None = None,
    ) -> VectorizedChunks:
        """Compute vectors for the chunks of several documents in one batched model call.

        Args:
            docs: ``(title, chunks)`` per document, chunks as :func:`chunk_document` makes them.
            known: Vectors by key from earlier ingests; their texts are not embedded again.

        Returns:
            Vectors and keys aligned with each document's chunks, and the model call count.
        """
        known = dict(known or {})
        late = self.late_chunking
        # Pass 1: keys, and the texts the model must see.
        plans: list[list[_Step]] = []
        to_embed: dict[str, str] = {}  # key -> text (plain vectors)
        to_state: dict[str, str] = {}  # key -> paragraph text (token states for late chunking)
        all_texts: list[list[str]] = []
        for title, chunks in docs:
            by_id = {c.chunk_id: c for c in chunks}
            texts: list[str] = []
            offsets: list[int] = []
            for c in chunks:
                text, offset = _with_context(chunk_context(c, title), c.text)
                texts.append(text)
                offsets.append(offset)
            index = {c.chunk_id: i for i, c in enumerate(chunks)}
            plan: list[_Step] = []
            for i, c in enumerate(chunks):
                parent = by_id.get(c.parent_id or "")
                if (
                    c.level == "sentence"
                    and late
                    and parent is not None
                    and parent.level == "paragraph"
                ):
                    p = index[parent.chunk_id]
                    pkey = "t:" + content_hash(texts[p])
                    start = offsets[p] + c.char_start - parent.char_start
                    end = offsets[p] + c.char_end - parent.char_start
                    key = "l:" + content_hash(pkey, str(start), str(end))
                    plan.append((key, "late", start, end, pkey))
                    if key not in known:
                        to_state[pkey] = texts[p]
                elif c.level in ("paragraph", "sentence"):
                    key = "t:" + content_hash(texts[i])
                    plan.append((key, "plain", 0, 0, ""))
                    if key not in known:
                        to_embed[key] = texts[i]
                else:
                    plan.append(("m:", "pool", 0, 0, ""))
            plans.append(plan)
            all_texts.append(texts)
        # Pass 2: one model call for plain texts, one for paragraphs whose states are needed.
        computed = 0
        states: dict[str, TokenStates] = {}
        if to_state:
            keys = list(to_state)
            embed_with_states = self.embedder.embed_with_states  # type: ignore[attr-defined]
            results: list[TokenStates] = embed_with_states([to_state[k] for k in keys])
            computed += len(keys)
            for k, r in zip(keys, results, strict=True):
                states[k] = r
                known[k] = r.vector
                to_embed.pop(k, None)
        if to_embed:
            keys = list(to_embed)
            arr = self._embed([to_embed[k] for k in keys])
            computed += len(keys)
            for k, row in zip(keys, arr, strict=True):
                known[k] = row
        # Pass 3: late-chunked sentences, then pooled sections and documents.
        vectors: list[FloatArray] = []
        all_keys: list[list[str]] = []
        fallback: list[tuple[int, int, str]] = []  # sentences with no token in their span
        for d, ((_, chunks), plan) in enumerate(zip(docs, plans, strict=True)):
            dim = self._dimension(known)
            out = np.zeros((len(chunks), dim), dtype=np.float32)
            keys_out = []
            for i, (key, kind, start, end, pkey) in enumerate(plan):
                if kind == "plain":
                    out[i] = known[key]
                elif kind == "late":
                    vec = known.get(key)
                    if vec is None:
                        vec = pool_span(states[pkey], start, end)
                    if vec is None:
                        fallback.append((d, i, all_texts[d][i]))
                        key = "t:" + content_hash(all_texts[d][i])
                    else:
                        known[key] = vec
                        out[i] = vec
                keys_out.append(key)
            vectors.append(out)
            all_keys.append(keys_out)
        if fallback:
            arr = self._embed([t for _, _, t in fallback])
            computed += len(fallback)
            for (d, i, _), row in zip(fallback, arr, strict=True):
                vectors[d][i] = row
        for (_, chunks), out in zip(docs, vectors, strict=True):
            self._pool(chunks, out)
        return VectorizedChunks(vectors=vectors, keys=all_keys, computed=computed, texts=all_texts)

    @staticmethod
    def _dimension(known: Mapping[str, FloatArray]) -> int:
        for vec in known.values():
            return int(vec.shape[0])
        return 0

    @staticmethod
    def _pool(chunks: Sequence[Chunk], out: FloatArray) -> None:
        index = {c.chunk_id: i for i, c in enumerate(chunks)}
        sums: dict[str, FloatArray] = {}
        for i, c in enumerate(chunks):
            if c.level != "paragraph":
                continue
            weighted = out[i] * np.float32(max(1, count_tokens(c.text)))
            ancestor = c.parent_id
            while ancestor is not None and ancestor in index:
                if ancestor in sums:
                    sums[ancestor] = sums[ancestor] + weighted
                else:
                    sums[ancestor] = weighted.copy()
                ancestor = chunks[index[ancestor]].parent_id
        for chunk_id, total in sums.items():
            norm = float(np.linalg.norm(total))
            out[index[chunk_id]] = total / norm if norm > 0 else total
