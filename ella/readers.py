"""Readers of what a message asks, in English, German, Spanish, French and Italian: a memory request (what do you
remember, forget this, that's wrong), a question about how Ella's world used to be, and an event of the user's
that is over ("that's done now", "sie haben es abgesagt", "ya pasó el examen", "c'est fait", "è andata").

Why the rules first: the English rules (``ella.memory.say.read_request``, ``ella.ledger.past.asks_about_the_past``
and an outcome said without its event, ``over_by_rule``) are precise and free, and what they read is taken as
read. Only where they are silent does the vector decide.

Why a small logistic reader over the message's vector: the multilingual sentence encoder (``ella.sentence``)
puts "vergiss, was ich dir über meine Schwester erzählt habe" beside "forget what I told you about my sister", so
ten phrasings per intent and language (``ella.reader_prototypes``), with hard negatives under ``none`` ("my
interview is tomorrow" beside "the interview went great", "I forgot my keys" beside "forget that"), read what no
English rule does. A softmax regression fitted on those phrasings read the dev file's tune half better than the
nearest prototype less the nearest negative (0.94 against 0.87 of its lines right, measured 2026-12, vector
alone), so it is the reader: the most probable label is read when it is an intent and its probability reaches
that intent's threshold. The thresholds were chosen on the ``tune`` half of ``tests/data/readers_dev.jsonl``
(``python bench/readers.py --tune``) and are frozen here; the ``check`` half and the sealed file only report.

What it costs: one 512 x 6 matrix-vector product per message; once per process, on first use, the phrasings are
embedded and the reader fitted (about a second); the message's vector is shared with every other reader of the
turn (``ella.sentence`` caches it; a caller that holds it passes it in).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ella import sentence
from ella.core_profile import asks_about_own_past
from ella.ledger.past import asks_about_the_past
from ella.memory.say import Ask, SayRequest, read_request
from ella.reader_prototypes import INTENTS, NONE, rows

MEMORY_RECALL = "memory_recall"
MEMORY_FORGET = "memory_forget"
MEMORY_CORRECT = "memory_correct"
PAST_QUESTION = "past_question"
EVENT_OVER = "event_over"
OWN_PAST = "own_past"  # a question about the user's own past ("where did I live before?")
MEMORY_INTENTS = frozenset({MEMORY_RECALL, MEMORY_FORGET, MEMORY_CORRECT})

# The probability an intent needs to be read, chosen on the dev file's tune half.
THRESHOLDS: dict[str, float] = {
    MEMORY_RECALL: 0.44,
    MEMORY_FORGET: 0.49,
    MEMORY_CORRECT: 0.39,
    PAST_QUESTION: 0.65,
    EVENT_OVER: 0.52,
    OWN_PAST: 0.6,  # not tuned: no dev lines of its own yet (tests/test_core_profile.py reads each language)
}

RULE = "rule"
VECTOR = "vector"


@dataclass(frozen=True)
class Reading:
    """What a message was read as: ``intent`` (one of ``INTENTS`` or ``none``), its ``score`` (1.0 for a rule's
    reading; the vector reader's probability for its) and who read it (``rule``, ``vector``)."""

    intent: str
    score: float
    by: str = VECTOR

    @property
    def found(self) -> bool:
        return self.intent != NONE


# --- the English rules ----------------------------------------------------------------------------------------

# An outcome told on its own, with no event to name ("that's done now", "it got cancelled", "I passed"): the
# offline engine's retirement rule (``ella.llm.offline.retirements``) reads these against the user's events; here
# only the words are read. A future or a maybe ("it might be cancelled", "it'll be over by Friday") is not one.
_OVER = re.compile(
    r"\b(?:is|'s|was|are|'re|were) (?:all )?(?:over|done|finished|behind me)\b|\b(?:got |been |was |were )?"
    r"(?:cancell?ed|called off)\b|\bfell through\b|^\W*(?:it|that|which)(?: all)? (?:went|turned out)\b|"
    r"\bI (?:passed|failed|aced|nailed|bombed|survived)\b|\b(?:went|turned out) (?:great|well|fine|ok|okay|"
    r"badly|terribly|really well|brilliantly|amazing)\b",
    re.IGNORECASE,
)
_NOT_YET = re.compile(
    r"\b(?:will|'ll|going to|gonna|might|may|could|tomorrow|next|if|hope|hopefully|before)\b", re.IGNORECASE
)


def over_by_rule(text: str) -> bool:
    """Whether the English words alone say an event is over: "that's done now", "the interview went great", "they
    cancelled it"; not "it might be cancelled" or "I hope it goes well"."""
    said = text.replace("\u2019", "'")
    return _OVER.search(said) is not None and _NOT_YET.search(said) is None


def by_rule(text: str) -> str | None:
    """The intent the English rules read, or None when they are silent."""
    asked = read_request(text)
    if asked is not None:
        return {Ask.RECALL: MEMORY_RECALL, Ask.FORGET: MEMORY_FORGET, Ask.CORRECT: MEMORY_CORRECT}.get(asked.ask)
    if asks_about_the_past(text):
        return PAST_QUESTION
    if asks_about_own_past(text):
        return OWN_PAST
    if over_by_rule(text):
        return EVENT_OVER
    return None


# --- the vector reader ----------------------------------------------------------------------------------------

_LABELS = (*INTENTS, NONE)
SCALE = 10.0  # the vectors are unit length: scaled, the fit reaches a sharp boundary in few steps
L2 = 1e-3
STEPS = 300
RATE = 0.5
_lock = threading.Lock()
_fitted: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None


def fit(
    vectors: npt.NDArray[np.float32], labels: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """A softmax regression over ``_LABELS`` (weights, bias) fitted by full-batch gradient descent from zero:
    deterministic, the same weights in every process."""
    x = np.asarray(vectors, dtype=np.float32) * np.float32(SCALE)
    target = np.eye(len(_LABELS), dtype=np.float32)[labels]
    weights = np.zeros((x.shape[1], len(_LABELS)), dtype=np.float32)
    bias = np.zeros(len(_LABELS), dtype=np.float32)
    for _ in range(STEPS):
        grad = _softmax(x @ weights + bias) - target
        weights -= np.float32(RATE) * (x.T @ grad / np.float32(len(x)) + np.float32(L2) * weights)
        bias -= np.float32(RATE) * grad.mean(axis=0)
    return weights, bias


def _softmax(z: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True), dtype=np.float32)


READER_FILE = "data/reader_head.npz"
EVERYDAY_PER_FILE = 40  # ordinary lines taken as ``none`` from each of the guard's training files (every k-th)


def everyday_lines() -> list[str]:
    """Ordinary messages (the guard's ``ok`` training rows, a fixed sample of each file): what most turns are.

    Why: with only the prototypes' few hard negatives as ``none``, the reader read 39% of LoCoMo's everyday turns
    (development file) as some request; everyday chat in the five languages as ``none`` brings that near zero."""
    import json
    from importlib import resources

    out: list[str] = []
    folder = resources.files("ella.guard").joinpath("data/training")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".jsonl"):
            continue
        parsed = [json.loads(line) for line in entry.read_text(encoding="utf-8").splitlines() if line.strip()]
        ok = [row["text"] for row in parsed if row.get("label") == "ok"]
        step = max(1, len(ok) // EVERYDAY_PER_FILE)
        out.extend(ok[::step][:EVERYDAY_PER_FILE])
    return out


def fit_reader() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The prototypes and the everyday lines embedded, and the reader fitted on them (about 10 s)."""
    table = [(intent, text) for intent, _, text in rows()] + [(NONE, text) for text in everyday_lines()]
    embedded = np.asarray(sentence.encoder().embed([text for _, text in table]), dtype=np.float32)
    labels = np.array([_LABELS.index(intent) for intent, _ in table], dtype=np.int64)
    return fit(embedded, labels)


def write_reader() -> Path:
    """Fit the reader and write it where ``_model`` finds it (``python -m ella.readers``)."""
    from importlib import resources

    weights, bias = fit_reader()
    with resources.as_file(resources.files("ella").joinpath(READER_FILE)) as path:
        np.savez_compressed(path, weights=weights, bias=bias, labels=np.array(_LABELS), model_id=sentence.MODEL_ID)
        return Path(path)


def _model() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The shipped reader (``READER_FILE``), or, when it is missing or for another encoder or label set, the
    reader fitted here once per process on first use."""
    global _fitted
    with _lock:
        if _fitted is None:
            from importlib import resources

            path = resources.files("ella").joinpath(READER_FILE)
            if path.is_file():
                with path.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
                    if str(data["model_id"]) == sentence.MODEL_ID and tuple(data["labels"]) == _LABELS:
                        _fitted = (data["weights"].astype(np.float32), data["bias"].astype(np.float32))
            if _fitted is None:
                _fitted = fit_reader()
        return _fitted


def scores(vector: npt.NDArray[np.floating] | None = None, *, text: str = "") -> dict[str, float]:
    """Each label's probability for a message (its vector, or its text to embed), ``none`` included."""
    if vector is None:
        vector = sentence.vector(text)
    weights, bias = _model()
    probs = _softmax(np.asarray(vector, dtype=np.float32) * np.float32(SCALE) @ weights + bias)
    return {label: float(probs[i]) for i, label in enumerate(_LABELS)}


def by_vector(vector: npt.NDArray[np.floating]) -> Reading:
    """The vector's reading alone: the best-scoring intent when it reaches its threshold, else ``none``."""
    if not np.any(vector):
        return Reading(NONE, 0.0)
    scored = scores(vector)
    best = max(scored, key=lambda label: scored[label])
    if best != NONE and scored[best] >= THRESHOLDS[best]:
        return Reading(best, scored[best])
    return Reading(NONE, scored[best])


def read(text: str, vector: npt.NDArray[np.floating] | None = None) -> Reading:
    """What ``text`` asks: the English rules' reading when they read one, else the vector's (``vector`` is the
    message's ``ella.sentence`` vector when the caller holds it; it is computed otherwise). A message with no
    letters or digits reads as ``none`` with no encoding."""
    ruled = by_rule(text)
    if ruled is not None:
        return Reading(ruled, 1.0, RULE)
    if not sentence.readable(text):
        return Reading(NONE, 0.0)
    return by_vector(sentence.vector(text) if vector is None else vector)


# --- a memory request, for ``ella.reply`` ------------------------------------------------------------------------

# "my sister is called Maya" in the five languages, the relation in English (the ledger's subjects are English):
# the one correction read in other languages' words. Anything else the vector reads as a correction is not acted on.
_CALLED = re.compile(
    r"\b(?:my|mein|meine|meinen|mi|mon|ma|mio|mia|il mio|la mia) (?P<who>[^\W\d_]+)(?:'s name)? "
    r"(?:is called|is named|'s called|heißt|se llama|s'appelle|si chiama) (?P<value>[A-ZÀ-Ý][\w'-]{1,40})",
    re.IGNORECASE,
)
RELATIONS: dict[str, str] = {
    **dict.fromkeys(("schwester", "hermana", "sœur", "soeur", "sorella"), "sister"),
    **dict.fromkeys(("bruder", "hermano", "frère", "frere", "fratello"), "brother"),
    **dict.fromkeys(("mutter", "madre", "mère", "mere"), "mother"),
    **dict.fromkeys(("vater", "padre", "père", "pere"), "father"),
    **dict.fromkeys(("tochter", "hija", "fille", "figlia"), "daughter"),
    **dict.fromkeys(("sohn", "hijo", "fils", "figlio"), "son"),
    **dict.fromkeys(("hund", "perro", "perra", "chien", "chienne", "cane"), "dog"),
    **dict.fromkeys(("katze", "kater", "gato", "gata", "chat", "chatte", "gatto", "gatta"), "cat"),
    **dict.fromkeys(("mann", "ehemann", "marido", "esposo", "mari", "marito"), "husband"),
    **dict.fromkeys(("frau", "ehefrau", "esposa", "mujer", "femme", "moglie"), "wife"),
    **dict.fromkeys(("chef", "chefin", "jefe", "jefa", "capo"), "boss"),
    **dict.fromkeys(("partner", "partnerin", "pareja", "compagnon", "compagne", "compagno", "compagna"), "partner"),
}


def memory_request(text: str, vector: npt.NDArray[np.floating] | None = None) -> SayRequest | None:
    """A memory request in ``text``: the English rules' (``read_request``), else the vector reader's, which reads
    no topic: a recall is of everything, a forget asks what to forget (``SayRequest.unread``: never the previous
    turn by guess), a correction is acted on only when it says who is called what ("meine Schwester heißt Maya");
    otherwise None."""
    asked = read_request(text)
    if asked is not None:
        return asked
    if not sentence.readable(text) or len(text) > 1600:
        return None
    reading = by_vector(sentence.vector(text) if vector is None else vector)
    if reading.intent == MEMORY_RECALL:
        return SayRequest(Ask.RECALL, unread=True)
    if reading.intent == MEMORY_FORGET:
        return SayRequest(Ask.FORGET, unread=True)
    if reading.intent == MEMORY_CORRECT:
        found = _CALLED.search(text.replace("\u2019", "'"))
        if found is not None:
            who = found.group("who").casefold()
            return SayRequest(Ask.CORRECT, topic=RELATIONS.get(who, who), value=found.group("value"),
                              predicate="name", unread=True)  # fmt: skip
    return None


def reads_as(text: str, intent: str, vector: npt.NDArray[np.floating] | None = None) -> bool:
    """Whether ``text`` reads as ``intent`` (see ``read``)."""
    return read(text, vector).intent == intent


__all__ = [
    "EVENT_OVER",
    "INTENTS",
    "MEMORY_CORRECT",
    "MEMORY_FORGET",
    "MEMORY_INTENTS",
    "MEMORY_RECALL",
    "NONE",
    "OWN_PAST",
    "PAST_QUESTION",
    "THRESHOLDS",
    "Reading",
    "by_rule",
    "by_vector",
    "memory_request",
    "over_by_rule",
    "read",
    "reads_as",
    "scores",
]


if __name__ == "__main__":  # python -m ella.readers: refit the shipped reader after changing its phrasings
    print(f"wrote {write_reader()}")
