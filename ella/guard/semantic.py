"""The guard's learned stage: a small head over the message's multilingual sentence vector (``ella.sentence``).

Why: the rules and the n-gram model see words. Indirect language ("i sorted out who gets my things"), a persona
swap in everyday words, or a crisis in German phrased the way no rule was written for, shares few words with
anything the rules know, but lands near it in a multilingual sentence encoder's space (Universal Sentence Encoder
multilingual v3: English, German, Spanish, French and Italian in one space). The head reads the same vector the
memory node stores, so the stage costs no encoder pass of its own (2-4 ms a message when it is the first reader).

It speaks only where the rules and the n-gram model are silent, never over a rule or a negation. Where a category's
rules matched and judged the match ordinary (an idiom, a third person, reported speech), the rules keep the last
word, except that a crisis the stage is sure of is still met with the check-in (never a referral).

**Graded, so recall does not cost the everyday user.** Each class has a *sure* threshold: above it the verdict
takes the category's hand-written route. Crisis also has a lower *suspect* threshold: between the two the verdict
is a warm check-in in the user's language ("that sounds heavy; are you safe right now?", route ``check_in``,
category ``emotional_crisis``), not a referral; the conversation stage then reads the answer. Both thresholds are
chosen by ``data/train_semantic.py`` on out-of-fold predictions and on everyday chat, never on evaluation files.
Every verdict carries the head's probability (``Verdict.score``) for the boundary log and the metrics.

The head is a numpy forward pass (a linear layer, a network with one hidden ReLU layer, or the average of both:
whichever measured best in ``data/train_semantic.py``), fitted on one encoder's vectors: a head for another encoder
is refused (absent, logged), never read in the wrong space.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Collection
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO

import numpy as np

from ella import sentence
from ella.guard.negation import protective
from ella.guard.types import ROUTE_FOR, Category, Route, Severity, Verdict

log = logging.getLogger(__name__)

HEAD_FILE = "data/semantic_head.npz"
WHOLE_CHARS = 400  # a message up to this long is read whole: its one vector is the one its memory node stores
PIECE_CHARS = 200  # a longer one in pieces of a sentence or two, so one grave sentence is not averaged away
MAX_PIECES = 96  # 16,000 characters at most (the ingest cap): a long paste costs about 0.2 s, once
MIN_WORDS = 3  # a shorter message is an answer or a greeting: read in its conversation (``ella.guard.conversation``)
WORD = re.compile(r"\w+")
_OK = Verdict(Category.OK, Severity.NONE, ROUTE_FOR[Category.OK])
_SENTENCE_END = re.compile(r"(?<=[.!?\n])\s+")


class HeadMismatch(ValueError):
    """The head was fitted on another encoder's vectors (or dimension) than the one it is asked to read."""


@dataclass(frozen=True)
class Finding:
    """What the head found in a message: its class, its probability, and whether it is sure (else suspects)."""

    category: str
    probability: float
    sure: bool


Layers = tuple[tuple[np.ndarray, np.ndarray], ...]  # (weights (in, out), bias (out,)) each; ReLU between layers


@dataclass(frozen=True)
class SemanticHead:
    networks: tuple[Layers, ...]  # one or more networks; their probabilities are averaged (an ensemble)
    classes: tuple[str, ...]
    thresholds: np.ndarray  # (n_classes,): the probability a class needs before the head is sure (ok: never)
    suspect: np.ndarray  # (n_classes,): from here up to ``thresholds`` the head suspects (inf: never)
    model_id: str  # the encoder whose vectors the head was fitted on

    @property
    def dim(self) -> int:
        return int(self.networks[0][0][0].shape[0])

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """Softmax over classes for each row of ``vectors`` (shape ``(n, dim)``), averaged over the networks.

        Why an average: a network with a hidden layer reaches further than a linear one but is over-sure on lines
        unlike its training rows (a cooking question read as crisis at 0.99); averaging it with the linear one
        keeps most of its reach and tempers that."""
        x = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        total = np.zeros((x.shape[0], len(self.classes)), dtype=np.float32)
        for layers in self.networks:
            h = x
            for i, (weights, bias) in enumerate(layers):
                h = h @ weights + bias
                if i < len(layers) - 1:
                    h = np.maximum(h, 0.0)
            exp = np.exp(h - h.max(axis=1, keepdims=True))
            total += exp / exp.sum(axis=1, keepdims=True)
        probabilities: np.ndarray = total / len(self.networks)
        return probabilities

    def finding(self, vectors: np.ndarray) -> Finding | None:
        """The gravest finding over the rows (the pieces of one message): a sure one beats a suspicion, then the
        higher probability wins. A row speaks for its top class only; ``ok`` never speaks."""
        best: Finding | None = None
        for row in self.probabilities(vectors):
            top = int(np.argmax(row))
            name, p = self.classes[top], float(row[top])
            if name == "ok" or p < self.suspect[top]:
                continue
            found = Finding(name, p, p >= self.thresholds[top])
            if best is None or (found.sure, found.probability) > (best.sure, best.probability):
                best = found
        return best

    def check(self, model_id: str, dim: int) -> None:
        """Refuse vectors of an encoder this head was not fitted on."""
        if model_id != self.model_id or dim != self.dim:
            raise HeadMismatch(
                f"the semantic head was fitted on {self.model_id} ({self.dim}-d vectors), not on {model_id} "
                f"({dim}-d); retrain it with ella/guard/data/train_semantic.py"
            )


def read_head(source: Path | IO[bytes]) -> SemanticHead:
    with np.load(source, allow_pickle=False) as data:
        networks = tuple(
            tuple((data[f"w{n}_{i}"].astype(np.float32), data[f"b{n}_{i}"].astype(np.float32)) for i in range(int(c)))
            for n, c in enumerate(np.atleast_1d(data["layers"]))
        )
        return SemanticHead(
            networks=networks,
            classes=tuple(str(c) for c in data["classes"]),
            thresholds=data["thresholds"].astype(np.float32),
            suspect=data["suspect"].astype(np.float32),
            model_id=str(data["model_id"]),
        )


def write_head(head: SemanticHead, target: Path | IO[bytes]) -> None:
    arrays: dict[str, np.ndarray] = {
        "layers": np.array([len(layers) for layers in head.networks]),
        "classes": np.array(head.classes),
        "thresholds": head.thresholds.astype(np.float32),
        "suspect": head.suspect.astype(np.float32),
        "model_id": np.array(head.model_id),
    }
    for n, layers in enumerate(head.networks):
        for i, (weights, bias) in enumerate(layers):
            arrays[f"w{n}_{i}"], arrays[f"b{n}_{i}"] = weights.astype(np.float32), bias.astype(np.float32)
    np.savez_compressed(target, allow_pickle=False, **arrays)


# --- the stage: the bundled head, loaded once per process on first use -------------------------------------------

_lock = threading.Lock()
_head: SemanticHead | None = None
_tried = False


def reset() -> None:
    """Forget the loaded head (tests); the next call loads it again."""
    global _head, _tried
    with _lock:
        _head, _tried = None, False


def head() -> SemanticHead | None:
    """The bundled head, loaded on the first call; None (logged once) when it is missing or for another encoder."""
    global _head, _tried
    if _tried:
        return _head
    with _lock:
        if not _tried:
            _head = _load()
            _tried = True
    return _head


def _load() -> SemanticHead | None:
    path = resources.files("ella.guard").joinpath(HEAD_FILE)
    if not path.is_file():
        log.warning("guard: no %s; the learned stage is absent", HEAD_FILE)
        return None
    with path.open("rb") as handle:
        loaded = read_head(handle)
    try:
        loaded.check(sentence.MODEL_ID, sentence.DIM)
    except HeadMismatch as exc:
        log.error("guard: the learned stage is refused: %s", exc)
        return None
    return loaded


def prepare() -> None:
    """Load the head and the encoder now (a worker does, before its pool forks)."""
    if head() is not None:
        sentence.encoder()


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    """``text`` whole when it is at most ``WHOLE_CHARS`` long; else cut at sentence ends into pieces of at most
    about ``size`` characters (a sentence longer than ``size`` is cut hard), so a crisis sentence late in a long
    message is still read (measured: inside 400-character pieces of ordinary chat it was averaged away; inside
    200-character ones it reads as it does alone); at most ``MAX_PIECES``."""
    if len(text) <= max(size, WHOLE_CHARS):
        return [text]
    out: list[str] = []
    current = ""
    for part in _SENTENCE_END.split(text):
        while len(part) > size:
            if current:
                out.append(current)
                current = ""
            out.append(part[:size])
            part = part[size:]
        if current and len(current) + 1 + len(part) > size:
            out.append(current)
            current = part
        else:
            current = f"{current} {part}" if current else part
    if current:
        out.append(current)
    return out[:MAX_PIECES]


UNREADABLE = Verdict(Category.OK, Severity.NONE, Route.GENERATE, matched="semantic.unreadable")


def opinion(text: str, set_aside: Collection[Category] = (), *, suspicion: bool = True) -> Verdict:
    """The stage's verdict on one message's text (as written: the vector is the one memory stores).

    ``ok`` unless the head is sure of (or, for crisis, suspects) a category that the rules did not set aside;
    ``ok`` too when the stage is absent. ``suspicion=False`` (Ella's own replies) keeps only sure findings.
    A text with nothing the encoder can read (emoji only, symbols) is ``UNREADABLE``: an ``ok`` that says so.
    """
    loaded = head()
    if loaded is None or not text.strip():
        return _OK
    if not sentence.readable(text):
        return UNREADABLE
    if len(WORD.findall(text)) < MIN_WORDS:
        return _OK  # "yes. tonight" means what the question before it asked: the conversation stage reads it
    found = loaded.finding(sentence.vectors(pieces(text)))
    if found is None or not (found.sure or suspicion):
        return _OK
    category = Category(found.category)
    score = round(found.probability, 4)
    if category is Category.EMOTIONAL_CRISIS and protective(text):
        # "I'd never hurt myself": the encoder reads the harm, not the "never"; the gentle check-in a negated
        # rule gets, never a referral
        return Verdict(Category.OK, Severity.LOW, Route.CHECK_IN, "semantic.negated.emotional_crisis", True,
                       score=score)  # fmt: skip
    if category in set_aside:
        # the rules matched and judged it ordinary (an idiom, a negation, someone else): they keep the last word,
        # except that a crisis the stage is sure of still gets the gentle check-in ("je ne serai plus un poids
        # pour personne" fooled a negation guard)
        if category is not Category.EMOTIONAL_CRISIS or not found.sure or not suspicion:
            return _OK
        return Verdict(category, Severity.LOW, Route.CHECK_IN, f"semantic.suspect.{category.value}", score=score)

    if found.sure:
        return Verdict(category, Severity.MEDIUM, ROUTE_FOR[category], f"semantic.{category.value}", score=score)
    return Verdict(category, Severity.LOW, Route.CHECK_IN, f"semantic.suspect.{category.value}", score=score)
