"""Everything a reply reads of the database, gathered in one place, in one planned set of reads.

Why one module (issue 35): each feature used to add its own trip down to ``models/`` from wherever it was
needed (the guard's history, the ledger's time zone, the world's version, the language's locale, the memory
view), and ingest had grown to seven reads before its first write, two of them the same history. Here the plan
is written down once, and a new feature adds its part to it, not a trip of its own:

1. ``open_turn`` (before anything else, ``models.turn_opening``): one statement for whether the message is
   stored already, the user's row (time zone, locale), the lazy world's version and the open conversation's
   history. The guard's reading in context, the locale of a hand-written reply and the lazy world's warm check
   all read it instead of the database.
2. ``load_reply_context`` (only for a reply a model or the offline engine writes): the lazy world (one Redis read
   when warm: its version check is the opening's), the user's and her world's live facts (one read), the memory
   stream (one read when this process's cache holds the user, ``adapters.memory_cache``), and, only for a
   provider that reads prose, the self-log, the arc and the chapter; the past of her world or of the user only for
   a message that asks about it.
3. ``load_memory_view`` (only for a turn that asks what Ella remembers).

The writes are ``tasks.ingest.store_turn``'s, in the turn's one transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from adapters.db import autocommit_scope
from adapters.embedding_cache import shared_embedder
from adapters.memory_cache import user_memory
from adapters.settings import Settings, get_settings
from adapters.world_cache import read_world
from ella.arcs import relationship_block
from ella.contract import IngestPayload
from ella.core_profile import profile_items
from ella.ledger.brief import world_brief_with_ids
from ella.ledger.consolidation import in_view
from ella.ledger.rules import about_the_user
from ella.memory.say import MemoryView
from ella.profile import window_minutes
from ella.reply import ReplyContext
from ella.selflog import recent_thoughts
from ella.world.tickers import tone_of
from models.arcs import current_arc_with_id
from models.chapters import latest_chapter_with_id
from models.ledger import WorldFact, current, past_view, user_past_view
from models.memory_view import memory_view
from models.selflog import recent_entries
from models.turn_opening import TurnOpening, open_turn
from models.user import touch_user

GUARD_CONTEXT_TURNS = 8  # the turns before a message the guard reads it with (``ella.guard.conversation``)


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


def opening_of(payload: IngestPayload, tombstone: str | None = None) -> TurnOpening:
    """The message's opening read (step 1 of the module's plan): one statement. ``tombstone``: the user's tombstone
    key, so the same statement says whether they were erased (``TurnOpening.forgotten``)."""
    with autocommit_scope() as session:
        return open_turn(session, payload.user_id, payload.message_id, payload.sent_at, tombstone)


def load_reply_context(
    payload: IngestPayload, now: datetime, prose: bool = True, opening: TurnOpening | None = None
) -> ReplyContext:
    """What the reply model is shown of this user: history, memory nodes, world brief, recent thoughts, and
    where the two of them are (the current arc and the latest chapter: the cached system side); and the lazy
    world's values the brief was written from, which the offline engine's rules read instead of the brief's text.

    ``prose=False`` (a provider whose ``reads_prose`` is False: the offline engine) leaves out the three parts
    that are prose for a model (the brief, the self-log, the relationship block): its rules read none of them.
    ``opening``: the message's opening read, made now when the caller has none.
    """
    settings = get_settings()
    user_id = payload.user_id
    opening = opening if opening is not None else opening_of(payload)
    # The lazy world: fresh subjects cost one Redis read and no database (the opening read gave the version the
    # cache is checked against); a stale one is ticked once and written to the ledger, which the brief below
    # reads, canon first. The user's row, which a world's facts refer to, is made sure of in the tick's own
    # transaction: a warm read writes nothing (storing the turn touches the row anyway).
    defaults = new_user_defaults(settings)
    world = read_world(user_id, now, tone=tone_of([payload.text]),
                       prepare=lambda session: touch_user(session, user_id, payload.sent_at, defaults),
                       version=opening.world_version)  # fmt: skip
    with autocommit_scope() as session:
        brief = thoughts = relationship = ""
        world_ids: list[int] = []
        selflog_ids: list[int] = []
        chapter_ids: list[int] = []
        arc_ids: list[int] = []
        # one read of every live fact: the user's for the profile and the facts the turn touches (with ids,
        # ``in_view``: the reply reads the turn for facts against them, extraction folded into its call), her
        # world's for the brief or, on the offline engine, for its rules
        live = current(session, user_id)
        mine = [f for f in live if about_the_user(f.subject)]
        facts = in_view(mine, payload.text, payload.sent_at, opening.zone)
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
        past, past_ids = past_view(session, user_id, payload.text, now, live)
        # and what used to be true of the user, for a message that asks about their own past
        own_past, own_past_ids = user_past_view(session, user_id, payload.text, live)
        return ReplyContext(
            world_past=past,
            past_ids=past_ids,
            profile=profile_items(mine),
            user_past=own_past,
            user_past_ids=own_past_ids,
            canon=[] if prose else [world_values(f) for f in live if not about_the_user(f.subject)],
            history=list(opening.history),
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


def load_memory_view(payload: IngestPayload, opening: TurnOpening | None = None) -> MemoryView:
    """What Ella holds about the user, for a turn that asks about it (``ella.memory.say``)."""
    zone = opening.zone if opening is not None else None
    with autocommit_scope() as session:
        return memory_view(session, payload.user_id, payload.message_id, payload.sent_at, zone)


def earlier_turns(opening: TurnOpening) -> list[tuple[str, str]]:
    """The open conversation's last turns before this message, for the guard's reading in context
    (``ella.guard.conversation``): from the opening read, no query of its own."""
    return opening.earlier(GUARD_CONTEXT_TURNS)
