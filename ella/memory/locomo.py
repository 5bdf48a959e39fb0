"""LoCoMo (Maharana et al., ACL 2024) as a retrieval benchmark for the memory stream: turn-level evidence recall.

Each conversation is fed, turn by turn, into a fresh :class:`MemoryStore` ("Speaker: text", plus the caption
of a shared photo), each memory dated at its session's start; questions are asked at the last session's
time. A question's recall@k is the share of its evidence turns among the k retrieved. Category 5
(adversarial: the answer is not in the conversation) has no evidence to find and is skipped.

The data is evaluation-only (CC BY-NC 4.0): it is read from a path given at run time, never shipped.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ella.embeddings import Embedder, HashingEmbedder
from ella.memory.retrieval import DEFAULT_WEIGHTS, MemoryStore, RetrievalWeights

__all__ = ["CATEGORIES", "Turn", "evaluate", "load", "memories", "parse_session_time"]

CATEGORIES = ("1", "2", "3", "4")  # multi-hop, temporal, open-domain, single-hop
Method = Literal["fused", "bm25", "cosine"]
# Ranking by one measure alone: the same store with the other signals weighted 0.
_SINGLE = {
    "bm25": RetrievalWeights(w_recency=0.0, w_importance=0.0, fuse=0.0, context=0.0, length=0.0, asking=0.0),
    "cosine": RetrievalWeights(w_recency=0.0, w_importance=0.0, fuse=1.0, context=0.0, length=0.0, asking=0.0),
}
_SESSION = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


def load(path: str | Path) -> list[dict[str, Any]]:
    """The samples of a LoCoMo file: ``[{conversation: {...}, qa: [...]}, ...]``."""
    with open(path, encoding="utf-8") as f:
        samples: list[dict[str, Any]] = json.load(f)
    return samples


def utterances(samples: Sequence[dict[str, Any]]) -> list[str]:
    """Every turn's text as it was said (no speaker, no caption): everyday conversation between friends."""
    return [
        str(turn["text"])
        for sample in samples
        for key, session in sample["conversation"].items()
        if _SESSION.match(key) and isinstance(session, list)
        for turn in session
        if isinstance(turn, dict) and "text" in turn
    ]


def parse_session_time(text: str) -> datetime:
    """A session's ``date_time`` ("1:56 pm on 8 May, 2023") as a naive datetime (the store reads it as UTC)."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


class Turn(NamedTuple):
    dia_id: str
    text: str
    when: datetime
    session: int


def memories(conversation: dict[str, Any]) -> list[Turn]:
    """Every turn as a memory: its id, "Speaker: text [shares <photo caption>]", its session's time and
    number; sessions in order."""
    sessions = sorted(int(m.group(1)) for key in conversation if (m := _SESSION.match(key)))
    out: list[Turn] = []
    for number in sessions:
        when = parse_session_time(conversation[f"session_{number}_date_time"])
        for turn in conversation[f"session_{number}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares {turn['blip_caption']}]"
            out.append(Turn(turn["dia_id"], text, when, number))
    return out


def _evidence(raw: Sequence[str], known: set[str]) -> set[str]:
    """The question's evidence turn ids, repaired: the file has "D8:6; D9:17" and "D:11:26" among its ids.
    Ids of turns not in the conversation (a handful) are dropped: no retrieval could find them."""
    found = {f"D{s}:{t}" for item in raw for s, t in _DIA_ID.findall(str(item))}
    return found & known


def evaluate(
    conversations: Sequence[dict[str, Any]],
    k_values: Sequence[int] = (5, 10, 20),
    method: Method = "fused",
    embedder: Embedder | None = None,
    *,
    weights: RetrievalWeights = DEFAULT_WEIGHTS,
    poignancy: Callable[[str], float] | None = None,
    touch: bool = False,
) -> dict[str, dict[str, float]]:
    """Evidence recall@k per category and over categories 1-4 (question-weighted).

    ``method``: "fused" ranks with ``weights``; "bm25" and "cosine" with that measure alone (no context,
    recency or importance). ``poignancy``
    rates each memory's text (default: all equal, which leaves importance out of the ranking). With
    ``touch=False`` a retrieval does not refresh the returned memories' last access, so every question sees
    the same stream and the order of questions cannot change a result; ``touch=True`` is the product's
    behaviour. Returns ``{"recall@10": {"cat1-4": r, "1": r1, ...}, ..., "questions": {"cat1-4": n, ...}}``.
    """
    embedder = embedder or HashingEmbedder()
    weights = _SINGLE.get(method, weights)
    ks = sorted({int(k) for k in k_values})
    hits: dict[int, dict[str, float]] = {k: defaultdict(float) for k in ks}
    counts: dict[str, int] = defaultdict(int)
    for sample in conversations:
        turns = memories(sample["conversation"])
        store = MemoryStore(embedder, weights)
        store.add_many(
            [t.text for t in turns],
            created=[t.when for t in turns],
            poignancy=None if poignancy is None else [poignancy(t.text) for t in turns],
            memory_ids=[t.dia_id for t in turns],
            episodes=[t.session for t in turns],  # a session is one conversation: the context of its turns
        )
        now = max(t.when for t in turns)
        known = {t.dia_id for t in turns}
        for qa in sample["qa"]:
            category = str(qa.get("category"))
            evidence = _evidence(qa.get("evidence") or [], known)
            if category not in CATEGORIES or not evidence:
                continue
            retrieved = store.retrieve(str(qa["question"]), ks[-1], now, touch=touch)
            counts[category] += 1
            for k in ks:
                hits[k][category] += len(evidence.intersection(retrieved[:k])) / len(evidence)
    total = sum(counts.values())
    result: dict[str, dict[str, float]] = {}
    for k in ks:
        row = {"cat1-4": sum(hits[k].values()) / total if total else 0.0}
        row.update({c: hits[k][c] / counts[c] if counts[c] else 0.0 for c in CATEGORIES})
        result[f"recall@{k}"] = row
    result["questions"] = {"cat1-4": total, **{c: counts[c] for c in CATEGORIES}}
    return result
