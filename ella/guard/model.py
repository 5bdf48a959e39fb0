"""A small learned second opinion beside the rules: words, word pairs and character n-grams into a linear model.

Why: rules catch what they were written for, and on blind corpora (written by people who had not seen the
rules) they missed a third or more of indirect crisis messages. Language that reads as hopeless or final
without any listed phrase ("nobody will need to deal with me soon") is spread over many words; a linear model
over them weighs all of them at once. It is trained on English, German, Spanish, French and Italian rows
(``data/training/``, ``data/train_model.py``). It only speaks when the rules stay silent, and only above a
per-category threshold chosen on held-out folds so that it adds no more than about one false alarm in two
hundred and fifty ordinary messages the rules pass.

Inference is a dict lookup per feature, then one numpy gather and sum (tens of µs for 500 characters). No model
file means no second opinion (the rules still run).
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


GRAM = 4  # letters per character n-gram
LONG = 5  # words of this many letters or more also give their n-grams


def tokens(text: str, normalised: bool = False) -> list[str]:
    """Unigrams and bigrams of the normalised text (the same normalisation the rules see), plus each word's
    character 4-grams with its edges marked ("#<mor", "#orir", "#rir>" of "morir"). Why the n-grams: in German,
    Spanish, French and Italian a word takes many endings ("morir", "morirme", "muero"; "umbringen", "bringe mich
    um"), and a user writes a word the training rows wrote with another ending, or misspelt: the n-grams they share
    still weigh. Measured out-of-fold on the training rows once (the model alone, every row, 0.5% false alarms,
    C=4), against words and pairs alone: physical recall in de/es/fr/it 0.29/0.17/0.46/0.20 -> 0.43/0.46/0.49/0.43,
    manipulation 0.47/0.67/0.63/0.53 -> 0.83/0.87/0.90/0.77; crisis about the same (0.06-0.23 either way)."""
    words = _WORD.findall(text if normalised else normalise(text))[:MAX_WORDS]
    grams: list[str] = []
    for word in words:
        if len(word) < LONG:  # a short word is its own unigram already; its n-grams would only count it twice
            continue
        edged = f"<{word}>"
        grams.extend(f"#{edged[i : i + GRAM]}" for i in range(len(edged) - GRAM + 1))
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)] + grams


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
