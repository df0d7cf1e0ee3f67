"""Cosine similarities of different embedders put on one scale.

Each embedding model spreads its cosines differently: all-MiniLM-L6-v2 gives a question and
an unrelated sentence ~0.04 and a paraphrase ~0.58 on average, while multilingual-e5-small
packs both into 0.72–0.83 (English) and 0.81–0.89 (Chinese). A constant read off absolute
cosines ("above 0.3 the sentence is about the question") therefore holds for one model only.

:func:`cosine_scale` *measures* where a model puts unrelated and related text: it embeds a
fixed built-in set of questions (as queries) and statements (as passages), in English and —
for models that read it — Chinese, and takes the mean cosine of each question with the
statement that answers it in other words (``related``) and with every other statement
(``unrelated``), per language (a model's Chinese cosines need not sit where its English ones
do). :func:`to_reference_cosine` maps a cosine linearly so that those two points
land where the reference model (:data:`REFERENCE_MODEL`, the one the engine's constants were
tuned with) puts them; on the reference model itself the map is the identity.

The measurement costs one embedding call of ~60 short texts per embedder object, made the
first time it is needed, and is cached for the object's lifetime.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

__all__ = [
    "REFERENCE_MODEL",
    "REFERENCE_SCALE",
    "CosineScale",
    "cosine_scale",
    "measure_cosine_scale",
    "to_reference_cosine",
]

REFERENCE_MODEL = "all-MiniLM-L6-v2"
"""The model whose cosine scale the engine's similarity constants are written in."""


@dataclass(frozen=True)
class CosineScale:
    """Where an embedder puts unrelated and related text (query against passage).

    Attributes:
        unrelated: Mean cosine of a question and a statement about something else.
        related: Mean cosine of a question and a statement that answers it in other words.
    """

    unrelated: float
    related: float


REFERENCE_SCALE = CosineScale(unrelated=0.038, related=0.58)
"""English :func:`measure_cosine_scale` of :data:`REFERENCE_MODEL` (rounded as it rounds); a
test measures it again."""

# (question, a statement answering it in other words). Everyday topics, one per pair, so
# that any other statement of the same language is unrelated to the question.
_PAIRS_EN: tuple[tuple[str, str], ...] = (
    ("How long should an egg be boiled?", "Cook the eggs in hot water for about eight minutes."),
    ("When does the library open?", "The reading room welcomes visitors from nine each morning."),
    ("Who repaired the old bicycle?", "My neighbour fixed the rusty bike last weekend."),
    ("Why did the flight leave late?", "Heavy fog delayed the plane's departure by two hours."),
    ("Where do penguins live?", "These flightless birds are found around Antarctica."),
    ("How much does the train ticket cost?", "A rail fare to the city is twelve dollars."),
    ("What causes a fever?", "The body raises its temperature to fight an infection."),
    ("Which team won the match?", "The home side beat the visitors three goals to one."),
    ("How do you grow tomatoes?", "Plant the seedlings in sunny soil and water them daily."),
    ("What language is spoken in Brazil?", "Most Brazilians speak Portuguese."),
    ("How tall is the tower?", "The spire rises some three hundred metres above the square."),
    ("Who painted the portrait?", "The picture of the duchess was the work of a court artist."),
)
_PAIRS_ZH: tuple[tuple[str, str], ...] = (
    ("鸡蛋要煮多久？", "把蛋放进开水里大约八分钟就熟了。"),
    ("图书馆几点开门？", "阅览室每天早上九点开始接待读者。"),
    ("是谁修好了那辆旧自行车？", "上周末邻居把那辆生锈的单车弄好了。"),
    ("航班为什么推迟了？", "大雾让飞机晚了两个小时起飞。"),
    ("企鹅生活在哪里？", "这种不会飞的鸟分布在南极周围。"),
    ("火车票多少钱？", "去市区的车费是十二块。"),
    ("人为什么会发烧？", "身体升高体温来对抗感染。"),
    ("哪支球队赢了比赛？", "主队以三比一击败了客队。"),
    ("西红柿怎么种？", "把秧苗栽在向阳的土里，每天浇水。"),
    ("巴西人说什么语言？", "大多数巴西居民讲葡萄牙语。"),
    ("那座塔有多高？", "塔尖高出广场约三百米。"),
    ("那幅肖像是谁画的？", "公爵夫人的画像出自一位宫廷画师之手。"),
)

_cache: weakref.WeakKeyDictionary[Any, dict[str, CosineScale]] = weakref.WeakKeyDictionary()
_cache_by_id: dict[int, tuple[Any, dict[str, CosineScale]]] = {}
_lock = threading.Lock()


def _scale_of(embedder: Embeddings, pairs: tuple[tuple[str, str], ...]) -> tuple[float, float]:
    queries = np.asarray([embedder.embed_query(q) for q, _ in pairs], dtype=np.float64)
    passages = np.asarray(embedder.embed_documents([p for _, p in pairs]), dtype=np.float64)
    queries /= np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
    passages /= np.maximum(np.linalg.norm(passages, axis=1, keepdims=True), 1e-12)
    sims = queries @ passages.T
    n = len(pairs)
    related = float(np.trace(sims)) / n
    unrelated = float(sims.sum() - np.trace(sims)) / (n * (n - 1))
    return unrelated, related


def measure_cosine_scale(embedder: Embeddings) -> dict[str, CosineScale]:
    """Measure the embedder's :class:`CosineScale` per language on the built-in pairs.

    Returns:
        ``{"en": ..., "zh": ...}``; models known not to read Chinese
        (:func:`kg_rag.embeddings.is_english_only`) get ``en`` only: their Chinese vectors are
        mostly ``[UNK]`` and say nothing. Values are rounded to three decimals, so tiny
        numeric drift between machines does not move the map.
    """
    from kg_rag.embeddings import is_english_only

    sets = {"en": _PAIRS_EN} if is_english_only(embedder) else {"en": _PAIRS_EN, "zh": _PAIRS_ZH}
    out: dict[str, CosineScale] = {}
    for language, pairs in sets.items():
        unrelated, related = _scale_of(embedder, pairs)
        out[language] = CosineScale(unrelated=round(unrelated, 3), related=round(related, 3))
    return out


def cosine_scale(embedder: Embeddings, language: str = "en") -> CosineScale:
    """The embedder's :class:`CosineScale` for ``language`` (``en`` or ``zh``).

    Measured once per embedder object (:func:`measure_cosine_scale`); a language the model
    was not measured in gets its English scale. An embedder may carry its own as a
    ``cosine_scale`` attribute (e.g. a remote model whose scale was measured offline), which
    is used as is for every language.
    """
    own = getattr(embedder, "cosine_scale", None)
    if isinstance(own, CosineScale):
        return own
    with _lock:
        try:
            found = _cache.get(embedder)
        except TypeError:  # not weak-referenceable or not hashable
            entry = _cache_by_id.get(id(embedder))
            found = entry[1] if entry is not None and entry[0] is embedder else None
        if found is None:
            found = measure_cosine_scale(embedder)
            try:
                _cache[embedder] = found
            except TypeError:
                _cache_by_id[id(embedder)] = (embedder, found)
    return found.get(language, found["en"])


def to_reference_cosine(cosine: float, embedder: Embeddings | None, language: str = "en") -> float:
    """``cosine`` from ``embedder`` (a query in ``language`` against a passage), on
    :data:`REFERENCE_MODEL`'s English scale.

    The linear map that sends the embedder's ``unrelated`` and ``related`` cosines to the
    reference model's. ``embedder=None`` (no model at hand), or a model whose scale does not
    separate related from unrelated text (e.g. a bag-of-words hash), leaves the value as it
    is; so does the reference model's own scale.
    """
    if embedder is None:
        return cosine
    scale = cosine_scale(embedder, language)
    span = scale.related - scale.unrelated
    if span <= 1e-3 or scale == REFERENCE_SCALE:
        return cosine
    ref = REFERENCE_SCALE
    return ref.unrelated + (cosine - scale.unrelated) * (ref.related - ref.unrelated) / span
