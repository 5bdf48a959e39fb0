"""Garbage stored: world facts, self-log entries and memory nodes that must not exist after a fault.

Garbage is a row containing failure text (a provider error pasted into a field), a NUL, or canon about Ella
that came from a user (a world fact about Ella, of a world tier, written from a user's message). A user's
claim about Ella stored as ``user_claim`` is the ledger working as designed; those are counted apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Engine, text

FAILURE_MARKERS = ("\x00", "overloaded_error", "Error code:", '"type": "error"', "Traceback", "api_error")
ELLA = re.compile(r"\bella\b", re.IGNORECASE)
WORLD_TIERS = ("canon", "observed", "rumored")


def is_failure_text(value: str | None) -> bool:
    return bool(value) and any(marker in value for marker in FAILURE_MARKERS)  # type: ignore[operator]


def is_user_canon_about_ella(subject: str, tier: str, written_by: str) -> bool:
    return written_by == "user" and tier in WORLD_TIERS and bool(ELLA.search(subject))


@dataclass(frozen=True)
class Garbage:
    facts: int
    selflog: int
    memory: int
    ella_user_claims: int  # user claims about Ella, live: not garbage, reported for the injection fault

    @property
    def total(self) -> int:
        return self.facts + self.selflog + self.memory


def garbage_of(engine: Engine, user_prefix: str) -> Garbage:
    """The garbage rows of the users whose id starts with ``user_prefix``."""
    like = {"p": f"{user_prefix}%"}
    with engine.connect() as conn:
        facts = conn.execute(
            text(
                "SELECT subject, predicate, object, note, tier, written_by, status FROM world_facts"
                " WHERE user_id LIKE :p"
            ),
            like,
        ).all()
        selflog = conn.execute(text("SELECT content, about FROM self_log WHERE user_id LIKE :p"), like).all()
        memory = conn.execute(
            text("SELECT subject, predicate, object, description FROM memory_nodes WHERE user_id LIKE :p"), like
        ).all()
    bad_facts = sum(
        1
        for f in facts
        if any(is_failure_text(v) for v in f[:4]) or is_user_canon_about_ella(f.subject, f.tier, f.written_by)
    )
    claims = sum(
        1
        for f in facts
        if f.written_by == "user"
        and f.status in ("active", "contested")
        and ELLA.search(f.subject)
        and f.tier not in WORLD_TIERS
    )
    return Garbage(
        facts=bad_facts,
        selflog=sum(1 for r in selflog if any(is_failure_text(v) for v in r)),
        memory=sum(1 for r in memory if any(is_failure_text(v) for v in r)),
        ella_user_claims=claims,
    )
