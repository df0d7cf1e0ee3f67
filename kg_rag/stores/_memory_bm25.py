"""BM25 over the chunks table in memory, scored like the LanceDB full-text index it stands in for.

Below the ANN threshold the chunk store keeps the chunks table in memory
(:class:`~kg_rag.stores._chunk_search.ChunkSnapshot`) and searches its vectors there. This
module does the same for BM25: the ``tokens`` column goes through the analyzer the full-text
index is built with (whitespace split, tokens over 64 characters dropped, lower case, English
Snowball stemming, accents folded) into postings, and a query is scored with Okapi BM25
(k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5) / (n + 0.5)) over the whole table, the constants
of LanceDB's scorer). A query then costs a few array additions per query word instead of a
full-text search with a SQL prefilter: 0.2–0.5 ms where LanceDB took 8–12 ms alone and 10–70 ms
beside the pipeline's other threads on 12k–40k chunks (musique-dev, 2wiki-dev). The postings
take 0.7–1.9 s to build there, once per snapshot.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["K1", "MAX_TOKEN_LENGTH", "B", "MemoryBm25", "analyze"]

K1 = 1.2
B = 0.75
MAX_TOKEN_LENGTH = 64


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _term(token: str) -> str:
    """One whitespace-separated token as the full-text index stores it ("" when dropped)."""
    if len(token) > MAX_TOKEN_LENGTH:
        return ""
    # The index's order: lower case, stem, then fold accents (so "Tekezé" is stored as
    # "tekeze" while the query word "tekeze" stems to "tekez" and misses it, in both).
    stem: str = _stemmer().stemWord(token.lower())
    folded = unicodedata.normalize("NFKD", stem)
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


def analyze(tokens: str) -> list[str]:
    """The index terms of a ``tokens`` string (pre-tokenized words joined by spaces)."""
    return [t for raw in tokens.split() if (t := _term(raw))]


class MemoryBm25:
    """Postings of every row's terms with their BM25 weight, ready to score a query.

    Args:
        token_rows: Per row (in table order), its ``tokens`` string.
    """

    def __init__(self, token_rows: Iterable[str | None]) -> None:
        # Each distinct word is analysed once: map the words to their term ids in one pass.
        words_of = [(text or "").split() for text in token_rows]
        raw: dict[str, int] = {}
        raw_ids = [raw.setdefault(w, len(raw)) for words in words_of for w in words]
        vocabulary: dict[str, int] = {}
        term_of_raw = np.asarray(
            [vocabulary.setdefault(t, len(vocabulary)) if (t := _term(w)) else -1 for w in raw],
            dtype=np.int64,
        )
        all_terms = term_of_raw[np.asarray(raw_ids, dtype=np.int64)]
        all_rows = np.repeat(
            np.arange(len(words_of), dtype=np.int64), [len(words) for words in words_of]
        )
        kept = all_terms >= 0
        terms_arr, rows_arr = all_terms[kept], all_rows[kept]
        lengths = np.bincount(rows_arr, minlength=len(words_of))
        self.vocabulary = vocabulary
        self.rows = len(lengths)
        length = lengths.astype(np.float32)
        # One posting per (term, row) with its frequency: sort the occurrences by term then
        # row and count the runs.
        key = terms_arr * max(self.rows, 1) + rows_arr
        unique, tf = np.unique(key, return_counts=True)
        post_terms = unique // max(self.rows, 1)
        self.post_rows: npt.NDArray[np.int64] = unique % max(self.rows, 1)
        counts = np.bincount(post_terms, minlength=len(vocabulary))
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        avg = float(length.mean()) if self.rows and length.sum() > 0 else 1.0
        norm = K1 * (1.0 - B + B * length[self.post_rows] / avg)
        tf32 = tf.astype(np.float32)
        self.post_weights: npt.NDArray[np.float32] = tf32 * (K1 + 1.0) / (tf32 + norm)
        self.idf = np.log1p((self.rows - counts + 0.5) / (counts + 0.5)).astype(np.float32)

    def search(
        self, tokens: Sequence[str], rows: npt.NDArray[np.int64] | None, limit: int
    ) -> list[tuple[int, float]]:
        """The ``limit`` best rows (positions) among ``rows`` (None: all) for a query's
        pre-tokenized words, with their BM25 score, best first (ties by position). Rows
        matching no query term are not returned, as a full-text search would not."""
        # A term the query repeats (or that two of its words stem to) counts each time, as
        # in the full-text index's scorer.
        ids = Counter(
            i for raw in tokens if (t := _term(raw)) and (i := self.vocabulary.get(t)) is not None
        )
        if limit <= 0 or not ids:
            return []
        scores = np.zeros(self.rows, dtype=np.float32)
        for i, times in sorted(ids.items()):
            lo, hi = self.offsets[i], self.offsets[i + 1]
            scores[self.post_rows[lo:hi]] += times * self.idf[i] * self.post_weights[lo:hi]
        candidates = np.flatnonzero(scores) if rows is None else rows[scores[rows] > 0]
        if not len(candidates):
            return []
        values = scores[candidates]
        if len(values) > limit:
            top = np.argpartition(-values, limit - 1)[:limit]
        else:
            top = np.arange(len(values))
        top = top[np.lexsort((candidates[top], -values[top]))]
        return [(int(candidates[i]), float(values[i])) for i in top]
