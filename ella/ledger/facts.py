"""A fact as the rules see it: ``NewFact``, what a writer asks the ledger to record (before it has an id, a time
or a chain), and ``StoredFact``, what every rule reads of a recorded one.

Why here and not beside the table: the world clock (``ella.ledger.world_clock``), extraction
(``ella.ledger.extraction``), contests, the brief and follow-ups decide without touching the database, so the
values they take and hand to ``models.ledger`` must be plain Python. ``models.ledger.WorldFact`` is a
``StoredFact``; so is any test double with those attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ella.provenance import Provenance


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
    made_by: Provenance | None = None  # the call that extracted it; None: the writer's rule (ella.provenance)


class StoredFact(Protocol):
    """What the rules read of a recorded fact (``models.ledger.WorldFact``)."""

    @property
    def id(self) -> int: ...
    @property
    def user_id(self) -> str: ...
    @property
    def tier(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def note(self) -> str: ...
    @property
    def written_by(self) -> str: ...
    @property
    def recorded_at(self) -> datetime: ...
    @property
    def valid_from(self) -> datetime: ...
    @property
    def followup_after(self) -> datetime | None: ...
    @property
    def followup_until(self) -> datetime | None: ...
