"""``ella.reply`` wired to this process: its model port, its embedder, the database and the settings.

Why a module of its own: two tasks make replies the same way (``ella.ingest_message`` for users and the
nightly ``ella.boundary_regression`` for its synthetic user), and a task module never imports another.
What a reply reads is planned in ``adapters.turn_context``; the decisions are in ``ella.reply``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adapters.embedding_cache import shared_embedder
from adapters.llm import get_port
from adapters.settings import Settings, get_settings
from adapters.turn_context import earlier_turns, load_memory_view, load_reply_context, opening_of
from ella.contract import IngestPayload
from ella.guard.disclosure import DisclosurePolicy
from ella.ledger.anchors import seed_anchors
from ella.ledger.brief import world_brief
from ella.ledger.rules import Status, Tier, Writer
from ella.llm.port import ModelPort
from ella.reply import ReplyContext, ReplyOutcome, ReplyPolicy, respond
from models.turn_opening import TurnOpening


def reply_policy(settings: Settings) -> ReplyPolicy:
    return ReplyPolicy(
        settings.guard_enabled, settings.crisis_resources, settings.retrieval_weights, settings.guard_semantic
    )


def disclosure_policy(settings: Settings) -> DisclosurePolicy:
    interval = timedelta(hours=settings.ai_disclosure_interval_h)
    return DisclosurePolicy(settings.ai_disclosure, continuing_interval=interval, minor_break_interval=interval)


@dataclass(frozen=True)
class UnstoredFact:
    """A world fact that exists only in memory: a synthetic user's world is shown to the model, never written."""

    id: int
    user_id: str
    tier: str
    status: str
    subject: str
    predicate: str
    object: str
    confidence: float
    note: str
    written_by: str
    recorded_at: datetime
    valid_from: datetime
    followup_after: datetime | None = None
    followup_until: datetime | None = None


def synthetic_reply_context(user_id: str, now: datetime) -> ReplyContext:
    """A brand-new user's context, stored nowhere: the seed's anchors as the world brief, no history, no memory.

    Why: the nightly boundary regression must see the prompt a new user's first turn sees, and "stores
    nothing" (no user row, no world facts) is what makes it safe to run every night against production.
    """
    canon, active, anchor = Tier.CANON.value, Status.ACTIVE.value, Writer.ANCHOR.value
    facts = [
        UnstoredFact(i, user_id, canon, active, a.subject, a.predicate, a.object, 1.0, a.note, anchor, now, now)
        for i, a in enumerate(seed_anchors(user_id, now.date()), start=1)
    ]
    return ReplyContext(world_brief=world_brief(facts, get_settings().world_brief_max_tokens))


def unrecorded(port: ModelPort) -> ModelPort:
    """The same model port, whose calls are not written to ``model_calls`` (a synthetic user has no usage)."""
    quiet = copy.copy(port)  # a shallow copy keeps the provider, tiers, repairs and slot limit as they are
    quiet.record = lambda _call: None
    return quiet


def answer(
    payload: IngestPayload, final_attempt: bool, *, synthetic: bool = False, opening: TurnOpening | None = None
) -> ReplyOutcome:
    """Ella's reply to ``payload`` (nothing stored: the caller stores the turn).

    ``opening``: the message's opening read (``adapters.turn_context``), which the guard's history, the locale
    and the context read instead of the database; made here when the caller has none.
    ``synthetic``: the user is not a person (the nightly regression): a new user's world in memory, and no
    user row, world fact or usage row is written.
    """
    now = datetime.now(UTC)
    port = get_port()
    if synthetic:
        opened = TurnOpening()
        load_context = lambda: synthetic_reply_context(payload.user_id, now)  # noqa: E731
    else:
        opened = opening if opening is not None else opening_of(payload)
        prose = bool(getattr(port.provider, "reads_prose", True))
        load_context = lambda: load_reply_context(payload, now, prose, opened)  # noqa: E731
    return respond(
        unrecorded(port) if synthetic else port,
        shared_embedder(),
        payload,
        now,
        policy=reply_policy(get_settings()),
        load_context=load_context,
        locale=lambda: opened.locale,
        final_attempt=final_attempt,
        load_view=None if synthetic else lambda: load_memory_view(payload, opened),
        load_earlier=lambda: earlier_turns(opened),
    )
