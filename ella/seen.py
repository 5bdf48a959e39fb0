"""What each reply saw: the ids of what went into its prompt, by the section that carried it.

Why: "why did she say that?" is answerable only if the reply remembers what it was shown. The map is small (a
few dozen ids), written once with the reply (``outbox_records.seen``), shown beside the turn on the operator's
page and included in the user's export. Ids only, never words: a memory forgotten later leaves no words here,
and ``drop`` takes its id out too.

Sections and what their ids name:
- ``memories``: memory nodes ranked for the message; ``thoughts``: memory nodes (Ella's newest thoughts);
- ``facts``: the user's live facts the turn touches; ``world``: the world-brief facts (canon first);
- ``past``: superseded canon shown because the message asked about her world's past; ``profile``: the user's
  core profile (``ella.core_profile``); ``user_past``: their own superseded facts, for a question about them;
- ``selflog``: self-log entries; ``chapter``: a story chapter; ``arc``: a relationship arc.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

SECTIONS: dict[str, str] = {
    "memories": "memory",
    "thoughts": "memory",
    "facts": "fact",
    "world": "fact",
    "past": "fact",
    "profile": "fact",
    "user_past": "fact",
    "selflog": "selflog",
    "chapter": "chapter",
    "arc": "arc",
}


def encode(sections: Mapping[str, Iterable[int]]) -> str:
    """The JSON stored on the reply: known sections only, empty ones left out, ids in the order shown."""
    out: dict[str, list[int]] = {}
    for name, ids in sections.items():
        if name not in SECTIONS:
            raise ValueError(f"unknown prompt section {name!r}")
        listed = list(dict.fromkeys(int(i) for i in ids))
        if listed:
            out[name] = listed
    return json.dumps(out, separators=(",", ":"))


def decode(value: str | None) -> dict[str, list[int]]:
    """The stored map; {} for a row written before replies recorded it (or a notification)."""
    if not value:
        return {}
    try:
        loaded: Any = json.loads(value)
    except ValueError:
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {str(k): [int(i) for i in v if isinstance(i, int)] for k, v in loaded.items() if isinstance(v, list)}


def drop(value: str | None, kind: str, ids: Iterable[int]) -> str | None:
    """``value`` without the given ids of ``kind`` (``memory``, ``fact``...); None when nothing is left."""
    gone = set(ids)
    kept = {name: [i for i in listed if not (SECTIONS.get(name) == kind and i in gone)]
            for name, listed in decode(value).items()}  # fmt: skip
    encoded = encode(kept)
    return None if encoded == "{}" else encoded
