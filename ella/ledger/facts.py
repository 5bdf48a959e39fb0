"""What a writer asks the ledger to record: a fact as a plain value, before it has an id, a time or a chain.

Why here and not beside the table: the world clock (``ella.ledger.world_clock``) and extraction
(``ella.ledger.extraction``) decide which facts to write without touching the database, so the value they hand
to ``models.ledger`` must be plain Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class NewFact:
    """The ledger adds the ids, the times and the chain."""

    subject: str
    predicate: str
    object: str
    tier: str
    confidence: float = 1.0
    note: str = ""
    source_message_id: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    followup_after: datetime | None = None
    followup_until: datetime | None = None
    dedupe_key: str | None = None
