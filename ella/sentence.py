"""The message's meaning as one vector: the multilingual sentence encoder every cheap decision reads.

Why one place: the guard's learned stage, the readers of the user's requests (``ella.readers``) and the memory node
all read the same message. Embedding it once and handing the same vector to each keeps the encoder's cost at one
pass per message (2-4 ms), whichever of them asks first. The learned heads were fitted in this encoder's space, so
they always read its vectors, whatever embedder memory retrieval is configured with (``ELLA_EMBEDDER``: a test may
run memory on the hashing embedder and the guard still reads meaning).

A process wires its own cached embedder in with ``use`` when it is the same encoder (``adapters.embedding_cache``:
an in-process LRU, then Redis), so the vector the guard computed is the one the memory node stores. Otherwise a
small LRU of its own keeps a message from being encoded twice in one turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ella.embeddings import Embedder, MultilingualEmbedder, multilingual_embedder

MODEL_ID = MultilingualEmbedder.model_id
DIM = MultilingualEmbedder.dim
_LRU_SIZE = 512

_lock = threading.Lock()
_factory: Callable[[], Embedder] = multilingual_embedder
_recent: OrderedDict[str, np.ndarray] = OrderedDict()


def use(factory: Callable[[], Embedder]) -> None:
    """Encode through ``factory``'s embedder from now on (it must be this encoder: same ``model_id``)."""
    global _factory
    with _lock:
        _factory = factory
        _recent.clear()


def reset() -> None:
    """Back to the plain encoder and an empty LRU (tests)."""
    use(multilingual_embedder)


def encoder() -> Embedder:
    embedder = _factory()
    if embedder.model_id != MODEL_ID:
        raise ValueError(f"ella.sentence needs {MODEL_ID} vectors, not {embedder.model_id}")
    return embedder


def vectors(texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text (the zero vector for a blank one), shape ``(len(texts), DIM)``, float32."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    missing: list[int] = []
    with _lock:
        for i, text in enumerate(texts):
            hit = _recent.get(text)
            if hit is None:
                missing.append(i)
            else:
                _recent.move_to_end(text)
                out[i] = hit
    if missing:
        computed = encoder().embed([texts[i] for i in missing])
        with _lock:
            for row, i in enumerate(missing):
                out[i] = computed[row]
                _recent[texts[i]] = computed[row]
                if len(_recent) > _LRU_SIZE:
                    _recent.popitem(last=False)
    return out


def vector(text: str) -> np.ndarray:
    """The vector of one text (see ``vectors``)."""
    out: np.ndarray = vectors([text])[0]
    return out


def readable(text: str) -> bool:
    """Whether the encoder has anything to read: some letters or digits (an emoji-only or blank message has none,
    and its vector means nothing)."""
    return any(ch.isalnum() for ch in text)
