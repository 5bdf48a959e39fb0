"""A small learned second opinion beside the rules: word unigrams and bigrams into a linear model.

Why: rules catch what they were written for, and on blind corpora (written by people who had not seen the
rules) they missed a third or more of indirect crisis messages. Language that reads as hopeless or final
without any listed phrase ("nobody will need to deal with me soon") is spread over many words; a linear model
over word unigrams and bigrams weighs all of them at once. It only speaks when the rules stay silent, and only
above a per-category threshold chosen on held-out folds so that it adds no more than about one false alarm in
a hundred ordinary messages (see ``data/train_model.py``, which trains it from ``data/training/``).

Inference is a dict lookup per word and word pair, then one numpy gather and sum (about 20 µs for 500
characters). No model file means no second opinion (the rules still run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from ella.guard.normalise import normalise

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+")
MAX_WORDS = 400  # the classifier windows long texts; this bounds one window's features


STEM = 5  # the first letters of a longer word, as a feature of their own


def tokens(text: str, normalised: bool = False) -> list[str]:
    """Unigrams and bigrams of the normalised text (the same normalisation the rules see), plus each longer word's
    stem (``~morir`` from "morirme", "morire", "morirse"): in German, Spanish, French and Italian a word takes many
    endings, and a phrase the training rows wrote with one ending must still weigh when a user writes another."""
    words = _WORD.findall(text if normalised else normalise(text))[:MAX_WORDS]
    stems = [f"~{w[:STEM]}" for w in words if len(w) > STEM]
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)] + stems


@dataclass(frozen=True)
class LinearModel:
    vocabulary: dict[str, int]  # unigram or bigram -> row of ``weights``
    weights: np.ndarray  # (len(vocabulary), n_classes)
    bias: np.ndarray  # (n_classes,)
    classes: tuple[str, ...]
    thresholds: np.ndarray  # (n_classes,): the probability a class needs before the model speaks

    def probabilities(self, text: str, normalised: bool = False) -> np.ndarray:
        rows = {self.vocabulary[t] for t in tokens(text, normalised) if t in self.vocabulary}
        logits = self.bias + (self.weights[list(rows)].sum(axis=0) if rows else 0.0)
        exp = np.exp(logits - logits.max())
        probabilities: np.ndarray = exp / exp.sum()
        return probabilities

    def opinion(self, text: str, normalised: bool = False) -> tuple[str, float] | None:
        """The category the model is confident about (never ``ok``), with its probability; else None."""
        probs = self.probabilities(text, normalised)
        best = int(np.argmax(probs))
        if self.classes[best] == "ok" or probs[best] < self.thresholds[best]:
            return None
        return self.classes[best], float(probs[best])


@cache
def load_model() -> LinearModel | None:
    path = resources.files("ella.guard").joinpath("data/model.npz")
    if not path.is_file():
        return None
    with path.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        return LinearModel(
            vocabulary={str(token): row for row, token in enumerate(data["vocabulary"])},
            weights=data["weights"].astype(np.float32),
            bias=data["bias"].astype(np.float32),
            classes=tuple(str(c) for c in data["classes"]),
            thresholds=data["thresholds"].astype(np.float32),
        )
