"""Cosines of different embedders on one scale: measured scales and the linear map.

The real local models are used where the claim is about them (MiniLM *is* the reference;
e5's compressed cosines land on either side of the reader's floor); scripted fakes pin the
arithmetic of the map.
"""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from kg_rag.cosine_scale import (
    _PAIRS_EN,
    _PAIRS_ZH,
    REFERENCE_SCALE,
    CosineScale,
    cosine_scale,
    measure_cosine_scale,
    to_reference_cosine,
)
from kg_rag.embeddings import local_embedder
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit


class _Scripted(Embeddings):
    """Puts every query at cosine ``related`` with its own pair's passage and ``unrelated``
    with every other passage: exact, so the measured scale is known in advance."""

    def __init__(self, unrelated: float, related: float, english_only: bool = False) -> None:
        self.english_only = english_only
        self.calls = 0
        self._pair = {
            t: i for pairs in (_PAIRS_EN, _PAIRS_ZH) for i, pair in enumerate(pairs) for t in pair
        }
        self._k = unrelated  # every vector shares a component of weight k
        self._r = (related - unrelated) / (1 - unrelated)  # own-pair agreement of the rest
        self._n = len(_PAIRS_EN)

    def _row(self, text: str, query: bool) -> list[float]:
        # passage i: [sqrt k, sqrt(1-k) e_i]; query i: [sqrt k, sqrt(1-k) (r e_i + sqrt(1-r²) f_i)]
        i, n, k, r = self._pair[text], self._n, self._k, self._r
        row = np.zeros(1 + 2 * n)
        row[0] = np.sqrt(k)
        rest = np.sqrt(1 - k)
        if query:
            row[1 + i] = rest * r
            row[1 + n + i] = rest * np.sqrt(max(0.0, 1 - r * r))
        else:
            row[1 + i] = rest
        return [float(x) for x in row]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._row(t, query=False) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return self._row(text, query=True)


@pytest.mark.parametrize(
    ("unrelated", "related"),
    [(0.0, 0.5), (0.7, 0.85), (0.2, 0.3), (0.05, 0.95)],
)
def test_measured_scale_of_a_scripted_embedder(unrelated: float, related: float) -> None:
    scale = measure_cosine_scale(_Scripted(unrelated, related))
    assert set(scale) == {"en", "zh"}
    for lang in ("en", "zh"):
        assert scale[lang].unrelated == pytest.approx(unrelated, abs=2e-3)
        assert scale[lang].related == pytest.approx(related, abs=2e-3)


def test_english_only_models_are_measured_in_english_only() -> None:
    scale = measure_cosine_scale(_Scripted(0.1, 0.6, english_only=True))
    assert set(scale) == {"en"}
    emb = _Scripted(0.1, 0.6, english_only=True)
    assert cosine_scale(emb, "zh") == cosine_scale(emb, "en")


@pytest.mark.parametrize(
    ("unrelated", "related", "cosine", "expected"),
    [
        # the two measured points go to the reference's two points, linearly in between
        (0.7, 0.85, 0.7, REFERENCE_SCALE.unrelated),
        (0.7, 0.85, 0.85, REFERENCE_SCALE.related),
        (0.7, 0.85, 0.775, (REFERENCE_SCALE.unrelated + REFERENCE_SCALE.related) / 2),
        (0.2, 0.3, 0.2, REFERENCE_SCALE.unrelated),
        (0.05, 0.95, 0.95, REFERENCE_SCALE.related),
        # the reference's own scale: identity
        (REFERENCE_SCALE.unrelated, REFERENCE_SCALE.related, 0.4321, 0.4321),
        # no separation between related and unrelated text: left as it is
        (0.5, 0.5, 0.37, 0.37),
    ],
)
def test_map_to_reference(unrelated: float, related: float, cosine: float, expected: float) -> None:
    emb = _Scripted(unrelated, related)
    assert to_reference_cosine(cosine, emb) == pytest.approx(expected, abs=1e-2)


def test_no_embedder_and_pinned_scale() -> None:
    assert to_reference_cosine(0.42, None) == 0.42
    emb = _Scripted(0.0, 0.5)
    emb.cosine_scale = CosineScale(unrelated=0.5, related=0.9)  # type: ignore[attr-defined]
    assert to_reference_cosine(0.5, emb) == pytest.approx(REFERENCE_SCALE.unrelated)
    assert emb.calls == 0  # a pinned scale is not measured


def test_measured_once_per_embedder() -> None:
    emb = _Scripted(0.1, 0.7)
    for _ in range(3):
        to_reference_cosine(0.5, emb, "en")
        to_reference_cosine(0.5, emb, "zh")
    assert emb.calls == 2 * (len(_PAIRS_EN) + 1)  # one query call each + one passage call


def test_hash_embedder_is_left_alone() -> None:
    # A bag-of-words hash does not tell paraphrases from unrelated text.
    emb = HashEmbeddings()
    for cosine in (0.0, 0.3, 0.9):
        assert to_reference_cosine(cosine, emb) == cosine


def test_minilm_is_the_reference() -> None:
    scale = measure_cosine_scale(local_embedder("all-MiniLM-L6-v2"))
    assert set(scale) == {"en"}  # it maps Chinese to [UNK]
    assert scale["en"] == REFERENCE_SCALE


def test_e5_cosines_land_either_side_of_the_readers_floor() -> None:
    """e5 puts an unrelated pair at ~0.72–0.81 (above MiniLM's paraphrases): mapped, a
    paraphrase clears the reader's 0.3 floor and an unrelated pair does not."""
    e5 = local_embedder("multilingual-e5-small")
    for lang, pairs in (("en", _PAIRS_EN), ("zh", _PAIRS_ZH)):
        (q, p), (_, other) = pairs[0], pairs[1]
        qv = np.asarray(e5.embed_query(q))
        related = float(qv @ np.asarray(e5.embed_documents([p])[0]))
        unrelated = float(qv @ np.asarray(e5.embed_documents([other])[0]))
        assert unrelated > 0.6  # the raw cosine would pass any MiniLM-tuned floor
        assert to_reference_cosine(related, e5, lang) > 0.3
        assert to_reference_cosine(unrelated, e5, lang) < 0.3
