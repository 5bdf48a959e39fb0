"""``ella.reply`` wired to this process: its model port, its embedder, the database and the settings.

Why a module of its own: two tasks make replies the same way (``ella.ingest_message`` for users and the
nightly ``ella.boundary_regression`` for its synthetic user), and a task module never imports another.
Loading is here (the lazy world, ``adapters.world_cache``, which touches no database while its watermarks are
fresh and otherwise ticks in one write transaction that first makes sure of the user's row; then the history,
memory nodes, the ledger's live facts and the self-log in one autocommit read, the prose parts only for a
provider that reads prose; her world's past only for a message that asks about it); the decisions are in ``ella.reply``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from adapters.db import autocommit_scope
from adapters.embedding_cache import shared_embedder
from adapters.llm import get_port
from adapters.memory_cache import user_memory
from adapters.settings import Settings, get_settings
from adapters.world_cache import read_world
from ella.arcs import relationship_block
from ella.contract import IngestPayload
from ella.core_profile import profile_items
from ella.guard.disclosure import DisclosurePolicy
from ella.ledger.anchors import seed_anchors
from ella.ledger.brief import world_brief, world_brief_with_ids
from ella.ledger.consolidation import in_view
from ella.ledger.rules import Status, Tier, Writer, about_the_user
from ella.llm.port import ModelPort
from ella.memory.say import MemoryView
from ella.profile import window_minutes
from ella.reply import ReplyContext, ReplyOutcome, ReplyPolicy, respond
from ella.selflog import recent_thoughts
from ella.world.tickers import tone_of
from models.arcs import current_arc_with_id
from models.chapters import latest_chapter_with_id
from models.ledger import WorldFact, current, past_view, user_past_view, user_zone
from models.memory_view import memory_view
from models.selflog import recent_entries
from models.turns import open_conversation_history
from models.user import User, touch_user


def new_user_defaults(settings: Settings) -> dict[str, Any]:
    """The columns a user's row starts with, from the ``ELLA_DEFAULT_*`` settings."""
    dnd = window_minutes(settings.default_do_not_disturb)
    active = window_minutes(settings.default_active_hours)
    return {
        "timezone": settings.default_timezone,
        "dnd_start_minute": dnd[0],
        "dnd_end_minute": dnd[1],
        "active_start_minute": active[0],
        "active_end_minute": active[1],
        "is_minor": False,
        "importance_trigger_curr": settings.importance_trigger_max,
        "importance_trigger_max": settings.importance_trigger_max,
    }


def reply_policy(settings: Settings) -> ReplyPolicy:
    return ReplyPolicy(
        settings.guard_enabled, settings.crisis_resources, settings.retrieval_weights, settings.guard_semantic
    )


def disclosure_policy(settings: Settings) -> DisclosurePolicy:
    interval = timedelta(hours=settings.ai_disclosure_interval_h)
    return DisclosurePolicy(settings.ai_disclosure, continuing_interval=interval, minor_break_interval=interval)


def load_reply_context(payload: IngestPayload, now: datetime, prose: bool = True) -> ReplyContext:
    """What the reply model is shown of this user: history, memory nodes, world brief, recent thoughts, and
    where the two of them are (the current arc and the latest chapter: the cached system side); and the lazy
    world's values the brief was written from, which the offline engine's rules read instead of the brief's text.

    ``prose=False`` (a provider whose ``reads_prose`` is False: the offline engine) leaves out the three parts
    that are prose for a model (the brief, the self-log, the relationship block): its rules read none of them,
    and their four queries were a third of what the context costs a reply. The rest is loaded the same way.
    """
    settings = get_settings()
    user_id = payload.user_id
    # The lazy world: fresh subjects cost one Redis read and no database; a stale one is ticked once (a new
    # world is anchored, the clock rolls on) and written to the ledger, which the brief below reads, canon first.
    # The user's row, which a world's facts refer to, is made sure of in the tick's own transaction: a warm read
    # writes nothing (storing the turn touches the row anyway).
    defaults = new_user_defaults(settings)
    world = read_world(user_id, now, tone=tone_of([payload.text]),
                       prepare=lambda session: touch_user(session, user_id, payload.sent_at, defaults))  # fmt: skip
    with autocommit_scope() as session:
        brief = thoughts = relationship = ""
        world_ids: list[int] = []
        selflog_ids: list[int] = []
        chapter_ids: list[int] = []
        arc_ids: list[int] = []
        # the user's own facts the turn touches, with ids (``in_view`` keeps only theirs): the reply reads the turn
        # for facts against them, extraction folded into its call
        # (one read of every live fact: the user's for the profile and the turn's facts, her world's for the brief
        # or, on the offline engine, for its rules)
        live = current(session, user_id)
        mine = [f for f in live if about_the_user(f.subject)]
        facts = in_view(mine, payload.text, payload.sent_at, user_zone(session, user_id))
        if prose:
            brief, world_ids = world_brief_with_ids(live, settings.world_brief_max_tokens)
            entries = recent_entries(session, user_id, settings.selflog_in_reply)
            thoughts, selflog_ids = recent_thoughts(entries), [e.id for e in entries]
            arc, arc_id = current_arc_with_id(session, user_id)
            chapter, chapter_id = latest_chapter_with_id(session, user_id)
            relationship = relationship_block(arc, chapter)
            arc_ids = [arc_id] if arc_id is not None else []
            chapter_ids = [chapter_id] if chapter_id is not None else []
        # what used to be true in her world, for a message that asks about its past (no query otherwise)
        past, past_ids = past_view(session, user_id, payload.text, now)
        # and what used to be true of the user, for a message that asks about their own past
        own_past, own_past_ids = user_past_view(session, user_id, payload.text, live)
        return ReplyContext(
            world_past=past,
            past_ids=past_ids,
            profile=profile_items(mine),
            user_past=own_past,
            user_past_ids=own_past_ids,
            canon=[] if prose else [world_values(f) for f in live if not about_the_user(f.subject)],
            history=open_conversation_history(session, user_id, at=payload.sent_at),
            nodes=user_memory(session, user_id, shared_embedder()),
            world_brief=brief,
            recent_thoughts=thoughts,
            relationship=relationship,
            world={subject: entry.value for subject, entry in world.entries.items()},
            facts=facts,
            world_ids=world_ids,
            selflog_ids=selflog_ids,
            chapter_ids=chapter_ids,
            arc_ids=arc_ids,
        )


def world_values(fact: WorldFact) -> dict[str, str]:
    """A fact of her world as the offline engine's rules read it (``ReplyContext.canon``)."""
    return {"subject": fact.subject, "predicate": fact.predicate, "object": fact.object, "tier": fact.tier}


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


def load_memory_view(payload: IngestPayload) -> MemoryView:
    """What Ella holds about the user, for a turn that asks about it (``ella.memory.say``)."""
    with autocommit_scope() as session:
        return memory_view(session, payload.user_id, payload.message_id, payload.sent_at)


def earlier_turns(payload: IngestPayload) -> list[tuple[str, str]]:
    """The open conversation's last turns before this message, for the guard's reading in context
    (``ella.guard.conversation``); one query, made only when the message alone is ``ok``."""
    with autocommit_scope() as session:
        return open_conversation_history(session, payload.user_id, limit=8, at=payload.sent_at)


def user_locale(user_id: str) -> str:
    with autocommit_scope() as session:
        return session.scalar(select(User.locale).where(User.id == user_id)) or "en_US"


def answer(payload: IngestPayload, final_attempt: bool, *, synthetic: bool = False) -> ReplyOutcome:
    """Ella's reply to ``payload`` (nothing stored: the caller stores the turn).

    ``synthetic``: the user is not a person (the nightly regression): a new user's world in memory, and no
    user row, world fact or usage row is written.
    """
    now = datetime.now(UTC)
    port = get_port()
    if synthetic:
        load_context = lambda: synthetic_reply_context(payload.user_id, now)  # noqa: E731
    else:
        prose = bool(getattr(port.provider, "reads_prose", True))
        load_context = lambda: load_reply_context(payload, now, prose)  # noqa: E731
    return respond(
        unrecorded(port) if synthetic else port,
        shared_embedder(),
        payload,
        now,
        policy=reply_policy(get_settings()),
        load_context=load_context,
        locale=lambda: user_locale(payload.user_id),
        final_attempt=final_attempt,
        load_view=None if synthetic else lambda: load_memory_view(payload),
        load_earlier=(lambda: ()) if synthetic else lambda: earlier_turns(payload),
    )
