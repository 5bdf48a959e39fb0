"""A semantic second opinion: a small linear head over all-MiniLM-L6-v2 sentence embeddings.

Why: the rules and the word n-gram model see words; an indirect plan ("I bought rope today and I know what it's
for"), a goodbye or a request that names nothing explicit shares few words with what they were trained on, but
lands near it in a sentence model's space. The head is a logistic regression over the 384-d embedding, trained by
``data/train_semantic.py`` on the guard's training files (never on ``tests/data``), with thresholds from
out-of-fold predictions on ordinary messages and raised until everyday chat (LoCoMo turns) stays under 0.5%
flagged. It costs one forward pass of the sentence model (milliseconds, not microseconds), so it is opt-in
(``ELLA_GUARD_SEMANTIC``) and inbound only.

It speaks only where the learned n-gram model does (``classifier._second_opinion``): when the rules and that model
are silent, never over a rule, a negation, or a category whose rules matched and judged the match ordinary.

The stage is absent, never an error, when the ``[semantic]`` extra is not installed (logged once), and refused
(absent, logged) when the head was trained on another embedder's vectors: a head only means something in the space
it was fitted in. Nothing is loaded until a caller asks for the stage.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO

import numpy as np

from ella.embeddings import Embedder, EmbedderUnavailable, SemanticEmbedder
from ella.guard.types import ROUTE_FOR, Category, Severity, Verdict

log = logging.getLogger(__name__)

HEAD_FILE = "data/semantic_head.npz"
PIECE_CHARS = 300  # a few sentences, like a training line: a longer window is embedded in pieces (max wins)
_OK = Verdict(Category.OK, Severity.NONE, ROUTE_FOR[Category.OK])
_SENTENCE_END = re.compile(r"(?<=[.!?\n])\s+")


class HeadMismatch(ValueError):
    """The head was fitted on another embedder's vectors (or dimension) than the one it is asked to read."""


@dataclass(frozen=True)
class SemanticHead:
    weights: np.ndarray  # (dim, n_classes)
    bias: np.ndarray  # (n_classes,)
    classes: tuple[str, ...]
    thresholds: np.ndarray  # (n_classes,): the probability a class needs before the head speaks (ok: never)
    model_id: str  # the embedder whose vectors the head was fitted on

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """Softmax over classes for each row of ``vectors`` (shape ``(n, dim)``)."""
        logits = np.atleast_2d(vectors) @ self.weights + self.bias
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
        return probabilities

    def opinion(self, vectors: np.ndarray) -> tuple[str, float] | None:
        """The category the head is sure of in any row (never ``ok``), with its probability; else None.

        A row speaks for its top class only, and only above that class's threshold; over several rows (the
        pieces of one long message) the surest such row wins.
        """
        best: tuple[str, float] | None = None
        for row in self.probabilities(vectors):
            top = int(np.argmax(row))
            if self.classes[top] == "ok" or row[top] < self.thresholds[top]:
                continue
            if best is None or row[top] > best[1]:
                best = (self.classes[top], float(row[top]))
        return best

    def check(self, embedder: Embedder) -> None:
        """Refuse an embedder whose vectors this head was not fitted on."""
        if embedder.model_id != self.model_id or embedder.dim != self.weights.shape[0]:
            raise HeadMismatch(
                f"the semantic head was fitted on {self.model_id} ({self.weights.shape[0]}-d vectors), "
                f"not on {embedder.model_id} ({embedder.dim}-d); retrain it with ella/guard/data/train_semantic.py"
            )


def read_head(source: Path | IO[bytes]) -> SemanticHead:
    with np.load(source, allow_pickle=False) as data:
        return SemanticHead(
            weights=data["weights"].astype(np.float32),
            bias=data["bias"].astype(np.float32),
            classes=tuple(str(c) for c in data["classes"]),
            thresholds=data["thresholds"].astype(np.float32),
            model_id=str(data["model_id"]),
        )


def _bundled_head() -> SemanticHead | None:
    path = resources.files("ella.guard").joinpath(HEAD_FILE)
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        return read_head(handle)


# --- the stage: embedder and head, loaded once per process on first use ------------------------------------------

EmbedderFactory = Callable[[], Embedder]
_make_embedder: EmbedderFactory = SemanticEmbedder  # replaced by ``use_embedder`` (a shared, cached one)
_lock = threading.Lock()
_stage: tuple[Embedder, SemanticHead] | None = None
_tried = False


def use_embedder(factory: EmbedderFactory) -> None:
    """Build the stage's embedder with ``factory`` (e.g. the process's cached semantic embedder, so the message
    embedded for the guard is not embedded again for memory). Forgets a stage already loaded."""
    global _make_embedder
    with _lock:
        _make_embedder = factory
    reset()


def reset() -> None:
    """Forget the loaded stage (tests, or after ``use_embedder``); the next call loads it again."""
    global _stage, _tried
    with _lock:
        _stage, _tried = None, False


def stage() -> tuple[Embedder, SemanticHead] | None:
    """The embedder and head, loaded on the first call; None (logged once) when either cannot be used here."""
    global _stage, _tried
    if _tried:
        return _stage
    with _lock:
        if not _tried:
            _stage = _load()
            _tried = True
    return _stage


def _load() -> tuple[Embedder, SemanticHead] | None:
    head = _bundled_head()
    if head is None:
        log.warning("guard: no %s; the semantic stage is absent", HEAD_FILE)
        return None
    try:
        embedder = _make_embedder()
        head.check(embedder)
    except EmbedderUnavailable as exc:
        log.warning("guard: the semantic stage is absent (%s)", exc)
        return None
    except HeadMismatch as exc:
        log.error("guard: the semantic stage is refused: %s", exc)
        return None
    return embedder, head


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    """``text`` cut at sentence ends into pieces of at most about ``size`` characters (a sentence longer than
    ``size`` is cut hard), so a crisis sentence late in a long message is still read by the model."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > size:
            if current:
                out.append(current)
                current = ""
            out.append(sentence[:size])
            sentence = sentence[size:]
        if current and len(current) + 1 + len(sentence) > size:
            out.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        out.append(current)
    return out


def opinion(normalised: str, set_aside: Collection[Category] = ()) -> Verdict:
    """The stage's verdict on one normalised window: ``ok`` unless the head is sure of a category that the rules
    did not set aside. ``ok`` too when the stage is absent."""
    loaded = stage()
    if loaded is None or not normalised.strip():
        return _OK
    embedder, head = loaded
    found = head.opinion(embedder.embed(pieces(normalised)))
    if found is None or Category(found[0]) in set_aside:
        return _OK
    category = Category(found[0])
    return Verdict(category, Severity.MEDIUM, ROUTE_FOR[category], matched=f"semantic.{category.value}")
