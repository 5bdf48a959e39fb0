"""The user's export: everything Ella holds about one user, as one JSON document (GDPR Art. 15 and Art. 20).

Why one document and why these parts: the right of access (Art. 15) is a copy of the personal data and what it
is for; the right to portability (Art. 20) is the data the user provided, "in a structured, commonly used and
machine-readable format". So the document is plain JSON (``json.dumps`` needs no custom encoder; every time is an
ISO-8601 string in UTC), every id that links two parts is kept (a reply's ``seen`` names memory and fact ids that
are in ``memories``, ``thoughts`` and ``facts``), and nothing is summarised away but the model calls, whose rows
are operator diagnostics (only what they cost is the user's concern: ``model_usage`` is per-kind sums).

The parts (``DOCUMENT_KEYS``), each there because:

- ``core_profile``: who the user is, first (name, home, work, people and pets, languages: ``ella.core_profile``),
  each item naming the live fact behind it;
- ``profile`` and ``consent``: the user's row; what the gateway told us of them (zone, locale, windows as
  ``"HH:MM-HH:MM"`` or null) and what they were told or agreed to (the AI disclosure, a minor's break
  reminder, the notifications opt-in, when the preferences were last sent). ``null`` for a user with no row.
- ``facts``: the world-fact ledger as chains (a fact and everything it superseded), every status change with
  it. Her world's canon is in it too (``about: "ella_world"``): it is the world this user's Ella lives in,
  shaped by their conversations and theirs alone.
- ``memories`` and ``thoughts``: the memory stream; what Ella remembers and what she concluded from it (a
  thought's ``evidence`` is the node ids it rests on). The embedding vectors are not exported: they are a
  derived index, not data about the user, and they are never read here (the query selects the other columns).
- ``conversations``: the user's messages and Ella's reply to each, with what the reply's prompt was shown.
- ``self_log``: what Ella said about her own life to this user; ``notifications``: what she might have said
  on her own (candidates, with why each was sent or not) and what she did send.
- ``chapters`` and ``arcs``: the weekly story and the monthly relationship reading Ella made of them.
- ``boundary_events``: each time the guard fired on their messages or on Ella's words to them.
- ``images``: the picture anchors of their world (metadata and the prompt; the bytes are in the image store
  under ``sha256``).
- ``reviews``: contested facts of theirs queued for a person; ``audit``: who forgot, corrected or exported
  what of theirs, when and why (Art. 15(1)(c) recipients and Art. 19 notice of rectification and erasure).
- ``dead_letters``: tasks of theirs that were refused or given up on, with the payload as it was kept.
- ``model_usage``: per prompt kind, how many model calls their conversations caused and what they cost.

There is no ``digests`` part: ``models.digest`` only asks questions, and a day's digest is stored as a
notification candidate of kind ``digest`` (under ``notifications``).

Ordering rules, so that the document reads as a history and two exports of the same data are equal but for
``exported_at``: every list is oldest first, by its row's own time and then its id (ids break ties between rows
of one instant). Fact chains are ordered by their oldest fact; inside a chain facts go by ``recorded_at`` then
id (a supersession records the new fact after the old one), each fact's events by ``at`` then id.
Conversations go by ``started_at``, messages inside by ``sent_at``, each with its reply; a reply whose message is
not in the conversation follows in ``other_replies``, and replies of no conversation of the user (their
conversation row is gone) come last in an entry with ``id: null``. ``model_usage.by_kind`` is by kind name.

Scope: every query names the user id in its WHERE clause. Dead letters are found as erasure finds them (the
column, else the payload's ``user_id`` for an id the column could not keep) and then kept only when the row's
own user id, or its payload's, is this user. Nothing here writes: each read is one statement, so under
``autocommit_scope`` two parts may be a moment apart; a caller that wants one snapshot reads in one
(REPEATABLE READ) transaction.

``EXPORTED_TABLES`` and ``NOT_EXPORTED`` account for every table of ``Base.metadata`` as ``models.erasure``
does for erasure: ``unexported_tables`` names a table in neither, and ``tests/test_export.py`` fails on it, so a
new store is exported or excluded with a reason, never forgotten.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from ella.core_profile import profile_items
from ella.ledger.rules import USER_SUBJECT
from ella.notifications.followups import about_user
from ella.seen import decode as decode_seen
from ella.usage import PriceList, Tokens, job_of
from models.arcs import RelationshipArcRow
from models.audit import MemoryAudit
from models.base import Base, utcnow
from models.boundary import BoundaryEvent
from models.chapters import StoryChapter
from models.conversation import Conversation
from models.dead_letter import DeadLetter
from models.images import ImageAnchorRow
from models.ledger import FactEvent, WorldFact, current
from models.memory import MemoryNode
from models.message import InboundMessage
from models.notifications import NotificationCandidate
from models.outbox import OutboxRecord
from models.provenance import provenance_of
from models.review import FactReview
from models.selflog import SelfLogEntry
from models.usage import ModelCall, token_totals
from models.user import User

FORMAT = "ella-export"
VERSION = 1

DOCUMENT_KEYS = (
    "format",
    "version",
    "user_id",
    "exported_at",
    "core_profile",
    "profile",
    "consent",
    "facts",
    "memories",
    "thoughts",
    "conversations",
    "self_log",
    "notifications",
    "chapters",
    "arcs",
    "boundary_events",
    "images",
    "reviews",
    "audit",
    "dead_letters",
    "model_usage",
)

# Table -> the document key(s) that hold its rows; a table split over two parts names both, comma-separated.
EXPORTED_TABLES: dict[str, str] = {
    "users": "profile, consent",
    "world_facts": "core_profile, facts",
    "world_fact_events": "facts",
    "memory_nodes": "memories, thoughts",
    "conversations": "conversations",
    "inbound_messages": "conversations",
    "outbox_records": "conversations, notifications",
    "self_log": "self_log",
    "notification_candidates": "notifications",
    "story_chapters": "chapters",
    "relationship_arcs": "arcs",
    "boundary_events": "boundary_events",
    "image_anchors": "images",
    "fact_reviews": "reviews",
    "memory_audit": "audit",
    "dead_letters": "dead_letters",
    "model_calls": "model_usage",
}

# Table -> why its rows are not in the document.
NOT_EXPORTED: dict[str, str] = {
    "forgotten_users": "tombstones: a keyed hash of an erased id and the time (the id itself only until the "
    "erasure's second pass, and of a user already erased)",
    "world_versions": "a counter of the user's world writes, for the cache (models.world_clock): no content",
    "pending_effects": "the tasks a commit still owes (seconds, normally): the same words are exported as the "
    "messages they derive from",
    "crisis_referrals": "anonymous: time, category and detector only, no user id (SB 243's yearly count)",
    "model_batches": "a batch submission's bookkeeping: provider, status, counts; nothing of a user",
    "model_batch_items": "a queued model request's working copy of the user's rows (exported in their own parts); "
    "its result is stored as the chapter, arc or notification it becomes",
    "job_runs": "a scheduled job's run over all users: counts and a keyset cursor, nothing of one user",
    "job_chunks": "a run's page of users: keyset bounds and counts, nothing of one user",
    "job_marks": "scheduling bookkeeping: the last period a job was queued for the user; "
    "what the job made is under chapters, arcs and notifications",
}


def document_keys(table: str) -> list[str]:
    """The document keys ``EXPORTED_TABLES`` names for ``table`` ([] for a table not exported)."""
    return [key.strip() for key in EXPORTED_TABLES.get(table, "").split(",") if key.strip()]


def unexported_tables() -> list[str]:
    """Tables of ``Base.metadata`` neither exported nor excluded with a reason (a test fails on any)."""
    return sorted(t.name for t in Base.metadata.sorted_tables if t.name not in EXPORTED_TABLES | NOT_EXPORTED)


def export_user(
    session: Session, user_id: str, *, prices: PriceList | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """Everything held about ``user_id`` as one JSON-serialisable document (the parts and orders: see the module).

    ``prices`` prices ``model_usage`` (default: the house's list prices, ``ella.usage.DEFAULT_PRICES``; the
    task passes the configured ones); ``now`` is ``exported_at`` (default: the clock). A user with no rows gets
    the document with ``profile`` and ``consent`` null and every other part empty. Reads only.
    """
    user = session.scalars(select(User).where(User.id == user_id)).one_or_none()
    replies, notifications_sent = _outbox(session, user_id)
    return {
        "format": FORMAT,
        "version": VERSION,
        "user_id": user_id,
        "exported_at": _iso(now or utcnow()),
        "core_profile": _core_profile(session, user_id),
        "profile": _profile(user) if user is not None else None,
        "consent": _consent(user) if user is not None else None,
        "facts": _facts(session, user_id),
        "memories": _memories(session, user_id),
        "thoughts": _thoughts(session, user_id),
        "conversations": _conversations(session, user_id, replies),
        "self_log": _self_log(session, user_id),
        "notifications": {"candidates": _candidates(session, user_id), "sent": notifications_sent},
        "chapters": _chapters(session, user_id),
        "arcs": _arcs(session, user_id),
        "boundary_events": _boundary_events(session, user_id),
        "images": _images(session, user_id),
        "reviews": _reviews(session, user_id),
        "audit": _audit(session, user_id),
        "dead_letters": _dead_letters(session, user_id),
        "model_usage": _model_usage(session, user_id, prices or PriceList()),
    }


def section_counts(document: dict[str, Any]) -> dict[str, int]:
    """How many items each list part of an export holds: for the audit row of an export (ids and counts, never
    the words, as ``models.audit`` keeps)."""
    counts = {key: len(value) for key, value in document.items() if isinstance(value, list)}
    counts["messages"] = sum(len(c["messages"]) for c in document.get("conversations", []))
    counts["notification_candidates"] = len(document.get("notifications", {}).get("candidates", []))
    counts["notifications_sent"] = len(document.get("notifications", {}).get("sent", []))
    return counts


# --- values -------------------------------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    """ISO-8601 in UTC; the columns are ``UTCDateTime`` (aware, UTC), but a naive value is refused, not guessed."""
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime in an export")
    return value.astimezone(UTC).isoformat()


def _loads(text: str | None, default: Any) -> Any:
    """A stored JSON column, decoded; ``default`` for an empty or malformed one (one bad row must not fail the
    user's whole export)."""
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def _ids(text: str | None) -> list[int]:
    """The ints of a stored JSON list of ids (a thought's evidence, a review's fact ids)."""
    value = _loads(text, [])
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]


def _window(start: int, end: int) -> str | None:
    """Minutes after local midnight as ``"HH:MM-HH:MM"`` (``ella.profile.window_minutes`` backwards); an empty
    window (start == end) is how a do-not-disturb ``null`` is stored (``ella.profile.NO_WINDOW``)."""
    if start == end:
        return None
    return f"{start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d}"


# --- the parts ----------------------------------------------------------------------------------------------


def _core_profile(session: Session, user_id: str) -> list[dict[str, Any]]:
    """Who the user is, first (``ella.core_profile``): each item with the live fact behind it, which ``facts``
    holds whole with its history."""
    items = profile_items(current(session, user_id, USER_SUBJECT))
    return [{"field": i.field, "label": i.label, "value": i.value, "fact_id": i.fact_id} for i in items]


def _profile(user: User) -> dict[str, Any]:
    return {
        "created_at": _iso(user.created_at),
        "last_seen_at": _iso(user.last_seen_at),
        "timezone": user.timezone,
        "locale": user.locale,
        "is_minor": bool(user.is_minor),
        "do_not_disturb": _window(user.dnd_start_minute, user.dnd_end_minute),
        "active_hours": _window(user.active_start_minute, user.active_end_minute),
        "notifications": bool(user.notifications_enabled),
        "profile_updated_at": _iso(user.profile_updated_at),
        "last_notified_at": _iso(user.last_notified_at),
        # Ella's reflection counter: each memory's poignancy drains it; at zero she reflects on this user.
        "reflection_trigger": {"current": user.importance_trigger_curr, "max": user.importance_trigger_max},
    }


def _consent(user: User) -> dict[str, Any]:
    return {
        "ai_disclosed_at": _iso(user.ai_disclosed_at),  # told she is an AI (NY GBL 1702), last time
        "break_reminded_at": _iso(user.break_reminded_at),  # a minor's break reminder (CA SB 243), last time
        "notifications_opt_in": bool(user.notifications_enabled),
        "preferences_sent_at": _iso(user.profile_updated_at),  # the gateway's updated_at of these choices
    }


def _facts(session: Session, user_id: str) -> list[dict[str, Any]]:
    facts = session.scalars(
        select(WorldFact).where(WorldFact.user_id == user_id).order_by(WorldFact.recorded_at, WorldFact.id)
    ).all()
    events: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in session.scalars(
        select(FactEvent).where(FactEvent.user_id == user_id).order_by(FactEvent.at, FactEvent.id)
    ):
        events[event.fact_id].append(
            {
                "at": _iso(event.at),
                "from_status": event.from_status,
                "to_status": event.to_status,
                "writer": event.writer,
                "note": event.note,
            }  # fmt: skip
        )
    chains: dict[str, list[WorldFact]] = {}
    for fact in facts:  # oldest first, so each chain is too, and chains go by their oldest fact
        chains.setdefault(fact.chain, []).append(fact)
    return [
        {
            "chain": chain,
            "about": "user" if any(about_user(f.subject) for f in members) else "ella_world",
            "facts": [_fact(f, events.get(f.id, [])) for f in members],
        }
        for chain, members in chains.items()
    ]


def _fact(fact: WorldFact, events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": fact.id,
        "tier": fact.tier,
        "status": fact.status,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "confidence": fact.confidence,
        "source_message_id": fact.source_message_id,
        "note": fact.note,
        "valid_from": _iso(fact.valid_from),
        "valid_until": _iso(fact.valid_until),
        "recorded_at": _iso(fact.recorded_at),
        "retired_at": _iso(fact.retired_at),
        "status_note": fact.status_note,
        "outcome": fact.outcome,
        "followup_after": _iso(fact.followup_after),
        "followup_until": _iso(fact.followup_until),
        "supersedes": fact.supersedes,
        "written_by": fact.written_by,
        "made_by": provenance_of(fact),
        "events": events,
    }


# Every column of a node but the vector (and its storage format): the embedding is never selected, so it cannot
# leak into the document.
_HIDDEN = {"embedding", "embedding_format", "user_id", "dedupe_key"}
_NODE_COLUMNS = tuple(c for c in MemoryNode.__table__.columns if c.key not in _HIDDEN)


def _nodes(session: Session, user_id: str, thoughts: bool) -> list[Any]:
    kind = MemoryNode.node_type == "thought"
    return list(
        session.execute(
            select(*_NODE_COLUMNS)
            .where(MemoryNode.user_id == user_id, kind if thoughts else ~kind)
            .order_by(MemoryNode.created_at, MemoryNode.id)
        )
    )


def _node(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "type": row.node_type,
        "created_at": _iso(row.created_at),
        "last_accessed_at": _iso(row.last_accessed_at),
        "expires_at": _iso(row.expires_at),
        "description": row.description,
        "subject": row.subject,
        "predicate": row.predicate,
        "object": row.object,
        "poignancy": row.poignancy,
        "keywords": _loads(row.keywords, []),
        "source_message_id": row.source_message_id,
        "conversation_id": row.conversation_id,
        "quarantine": row.quarantine,
        "embedding_model": row.embedding_model,
        "made_by": provenance_of(row),
    }


def _memories(session: Session, user_id: str) -> list[dict[str, Any]]:
    # A chat node's evidence is its transcript (JSON), an event's is empty: kept as stored, decoded.
    return [{**_node(row), "evidence": _loads(row.evidence, [])} for row in _nodes(session, user_id, thoughts=False)]


def _thoughts(session: Session, user_id: str) -> list[dict[str, Any]]:
    return [
        {**_node(row), "depth": row.depth, "evidence": _ids(row.evidence)}
        for row in _nodes(session, user_id, thoughts=True)
    ]


def _outbox_record(record: OutboxRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "uid": record.uid,
        "kind": record.kind,
        "conversation_id": record.conversation_id,
        "in_reply_to": record.in_reply_to,
        "route": record.route,
        "category": record.category,
        "text": record.text,
        "created_at": _iso(record.created_at),
        "published_at": _iso(record.published_at),
        "seen": decode_seen(record.seen),
    }


def _outbox(session: Session, user_id: str) -> tuple[list[OutboxRecord], list[dict[str, Any]]]:
    """The user's replies and the answers to their memory requests (rows, for the conversations) and the
    notifications Ella sent (as exported)."""
    records = session.scalars(
        select(OutboxRecord).where(OutboxRecord.user_id == user_id).order_by(OutboxRecord.created_at, OutboxRecord.id)
    ).all()
    # an earlier export's answer is a copy of this document: exporting it again would nest every export in the next;
    # a page of their memory (list, search) is a copy of parts of it, and a memory_changed notice names its ids
    replies = [
        r
        for r in records
        if r.kind not in ("notification", "memory_changed")
        and not (r.kind == "answer" and r.route in ("export", "list", "search"))
    ]
    return replies, [_outbox_record(r) for r in records if r.kind == "notification"]


def _conversations(session: Session, user_id: str, replies: list[OutboxRecord]) -> list[dict[str, Any]]:
    conversations = session.scalars(
        select(Conversation)
        .where(Conversation.user_id == user_id)
        .order_by(Conversation.started_at, Conversation.id)
    ).all()  # fmt: skip
    messages = session.scalars(
        select(InboundMessage)
        .where(InboundMessage.user_id == user_id)
        .order_by(InboundMessage.sent_at, InboundMessage.id)
    ).all()  # fmt: skip
    by_message = {r.in_reply_to: r for r in replies if r.in_reply_to is not None}
    answered: set[int] = set()
    turns: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for message in messages:
        reply = by_message.get(message.message_id)
        if reply is not None:
            answered.add(reply.id)
        turns[message.conversation_id].append(
            {
                "message_id": message.message_id,
                "text": message.text,
                "sent_at": _iso(message.sent_at),
                "received_at": _iso(message.received_at),
                "quarantine": message.quarantine,
                "reply": _outbox_record(reply) if reply is not None else None,
            }  # fmt: skip
        )
    known = {c.id for c in conversations}
    others: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
    for reply in replies:
        if reply.id not in answered:
            others[reply.conversation_id if reply.conversation_id in known else None].append(_outbox_record(reply))
    out = [
        {
            "id": c.id,
            "external_id": c.external_id,
            "started_at": _iso(c.started_at),
            "last_message_at": _iso(c.last_message_at),
            "closed_at": _iso(c.closed_at),
            "close_reason": c.close_reason,
            "turn_count": c.turn_count,
            "messages": turns.get(c.id, []),
            "other_replies": others.get(c.id, []),
        }
        for c in conversations
    ]
    if others.get(None):
        out.append({"id": None, "external_id": None, "started_at": None, "last_message_at": None, "closed_at": None,
                    "close_reason": None, "turn_count": 0, "messages": [], "other_replies": others[None]})  # fmt: skip
    return out


def _self_log(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(SelfLogEntry).where(SelfLogEntry.user_id == user_id).order_by(SelfLogEntry.said_at, SelfLogEntry.id)
    )
    return [
        {
            "id": e.id,
            "said_at": _iso(e.said_at),
            "content": e.content,
            "about": _loads(e.about, []),
            "confidence_in_event": e.confidence_in_event,
            "sources": _loads(e.sources, []),
            "made_by": provenance_of(e),
        }  # fmt: skip
        for e in rows
    ]


def _candidates(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(NotificationCandidate)
        .where(NotificationCandidate.user_id == user_id)
        .order_by(NotificationCandidate.created_at, NotificationCandidate.id)
    )
    return [
        {
            "id": c.id,
            "kind": c.kind,
            "body": c.body,
            "based_on": _loads(c.based_on, {}),
            "created_at": _iso(c.created_at),
            "fresh_until": _iso(c.fresh_until),
            "not_before": _iso(c.not_before),
            "status": c.status,
            "reason": c.reason,
            "sent_at": _iso(c.sent_at),
            "outbox_record_id": c.outbox_record_id,
            "made_by": provenance_of(c),
        }  # fmt: skip
        for c in rows
    ]


def _chapters(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(StoryChapter).where(StoryChapter.user_id == user_id).order_by(StoryChapter.period, StoryChapter.id)
    )
    return [
        {
            "id": c.id,
            "period": c.period,
            "period_start": _iso(c.period_start),
            "period_end": _iso(c.period_end),
            "title": c.title,
            "summary": c.summary,
            "key_moments": _loads(c.key_moments, []),
            "cited_node_ids": _ids(c.cited_node_ids),
            "thought_node_id": c.thought_node_id,
            "created_at": _iso(c.created_at),
            "made_by": provenance_of(c),
        }  # fmt: skip
        for c in rows
    ]


def _arcs(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(RelationshipArcRow)
        .where(RelationshipArcRow.user_id == user_id)
        .order_by(RelationshipArcRow.period, RelationshipArcRow.id)
    )
    return [
        {
            "id": a.id,
            "period": a.period,
            "stage": a.stage,
            "trajectory": a.trajectory,
            "mindful_of": a.mindful_of,
            "chapter_ids": _ids(a.chapter_ids),
            "previous_period": a.previous_period,
            "created_at": _iso(a.created_at),
            "made_by": provenance_of(a),
        }  # fmt: skip
        for a in rows
    ]


def _boundary_events(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(BoundaryEvent).where(BoundaryEvent.user_id == user_id).order_by(BoundaryEvent.at, BoundaryEvent.id)
    )
    return [
        {
            "id": e.id,
            "at": _iso(e.at),
            "direction": e.direction,
            "category": e.category,
            "severity": e.severity,
            "route": e.route,
            "detector_version": e.detector_version,
            "rule": e.rule,
            "message_id": e.message_id,
            "text": e.text,
        }  # fmt: skip
        for e in rows
    ]


def _images(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ImageAnchorRow)
        .where(ImageAnchorRow.user_id == user_id)
        .order_by(ImageAnchorRow.created_at, ImageAnchorRow.id)
    )
    return [
        {
            "id": a.id,
            "entity": a.entity,
            "version": a.version,
            "sha256": a.sha256,
            "prompt": a.prompt,
            "fact_id": a.fact_id,
            "created_at": _iso(a.created_at),
            "superseded_at": _iso(a.superseded_at),
        }  # fmt: skip
        for a in rows
    ]


def _reviews(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(FactReview).where(FactReview.user_id == user_id).order_by(FactReview.created_at, FactReview.id)
    )
    return [
        {
            "id": r.id,
            "subject": r.subject,
            "predicate": r.predicate,
            "tier": r.tier,
            "fact_ids": _ids(r.fact_ids),
            "reason": r.reason,
            "created_at": _iso(r.created_at),
            "resolved_at": _iso(r.resolved_at),
            "resolved_by": r.resolved_by,
            "winner_fact_id": r.winner_fact_id,
        }  # fmt: skip
        for r in rows
    ]


def _audit(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(MemoryAudit).where(MemoryAudit.user_id == user_id).order_by(MemoryAudit.at, MemoryAudit.id)
    )
    return [
        {
            "id": a.id,
            "at": _iso(a.at),
            "actor": a.actor,
            "action": a.action,
            "target": a.target,
            "reason": a.reason,
            "detail": _loads(a.detail, {}),
            "request_id": a.request_id,
        }  # fmt: skip
        for a in rows
    ]


def _payload_pattern(user_id: str) -> str:
    """The LIKE pattern of ``"user_id": "<id>"`` as ``adapters.dead_letters.encode_payload`` wrote it (ASCII-escaped
    JSON), for an id the ``user_id`` column could not keep; the same match erasure uses."""
    escaped = json.dumps({"user_id": user_id}, ensure_ascii=True)[1:-1]
    return "%" + escaped.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _payload(text: str) -> dict[str, Any]:
    """A dead letter's payload: ``{"args", "kwargs"}`` as encoded; a truncated one says how long it was and keeps
    its head (the head is not JSON); anything else is kept raw, so nothing is dropped unread."""
    value = _loads(text, None)
    if isinstance(value, dict) and ("args" in value or "kwargs" in value):
        kwargs = value.get("kwargs")
        if not isinstance(kwargs, dict):
            kwargs = {} if kwargs is None else {"_": kwargs}
        return {"args": value.get("args"), "kwargs": kwargs}
    if isinstance(value, dict) and "truncated_from_chars" in value:
        return {"args": None, "kwargs": None, "truncated_from_chars": value.get("truncated_from_chars"),
                "head": value.get("head")}  # fmt: skip
    return {"args": None, "kwargs": None, "raw": text}


def _dead_letters(session: Session, user_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(DeadLetter)
        .where(or_(DeadLetter.user_id == user_id, DeadLetter.payload.like(_payload_pattern(user_id), escape="\\")))
        .order_by(DeadLetter.created_at, DeadLetter.id)
    )
    out = []
    for row in rows:
        payload = _payload(row.payload)
        owner = (payload["kwargs"] or {}).get("user_id")
        if (row.user_id is not None and row.user_id != user_id) or (owner is not None and owner != user_id):
            continue  # another user's task that merely mentions this id: theirs, not this user's
        out.append({"id": row.id, "task": row.task_name, "task_id": row.task_id, "reason": row.reason,
                    "created_at": _iso(row.created_at), "message_id": row.message_id, **payload})  # fmt: skip
    return out


def _model_usage(session: Session, user_id: str, prices: PriceList) -> dict[str, Any]:
    """Per prompt kind: calls, token sums and their cost in USD (priced per model, batches discounted; a model
    with no price counts in ``unpriced_calls`` and not in ``usd``)."""
    rows = session.execute(
        select(ModelCall.kind, ModelCall.model, ModelCall.batch, *token_totals())
        .where(ModelCall.user_id == user_id)
        .group_by(ModelCall.kind, ModelCall.model, ModelCall.batch)
    )
    kinds: dict[str, dict[str, Any]] = {}
    for kind, model, batch, n, tin, tout, tcw, tcr in rows:
        tokens = Tokens(int(tin or 0), int(tout or 0), int(tcw or 0), int(tcr or 0))
        entry = kinds.setdefault(kind, _usage_entry(kind))
        _add_usage(entry, int(n), tokens, prices.usd(model, tokens, batch=bool(batch)))
    by_kind = [kinds[k] for k in sorted(kinds)]
    total = _usage_entry(None)
    for entry in by_kind:
        for key in ("calls", "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens",
                    "unpriced_calls"):  # fmt: skip
            total[key] += entry[key]
        total["usd"] = total["usd"] + entry["usd"]
    for entry in (*by_kind, total):
        entry["usd"] = round(entry["usd"], 6)
    del total["kind"], total["job"]
    return {**total, "by_kind": by_kind}


def _usage_entry(kind: str | None) -> dict[str, Any]:
    return {"kind": kind, "job": job_of(kind) if kind is not None else None, "calls": 0, "input_tokens": 0,
            "output_tokens": 0, "cache_write_tokens": 0, "cache_read_tokens": 0, "usd": 0.0,
            "unpriced_calls": 0}  # fmt: skip


def _add_usage(entry: dict[str, Any], calls: int, tokens: Tokens, usd: float | None) -> None:
    entry["calls"] += calls
    entry["input_tokens"] += tokens.input
    entry["output_tokens"] += tokens.output
    entry["cache_write_tokens"] += tokens.cache_write
    entry["cache_read_tokens"] += tokens.cache_read
    if usd is None:
        entry["unpriced_calls"] += calls
    else:
        entry["usd"] += usd


__all__ = [
    "DOCUMENT_KEYS",
    "EXPORTED_TABLES",
    "NOT_EXPORTED",
    "document_keys",
    "export_user",
    "section_counts",
    "unexported_tables",
]
