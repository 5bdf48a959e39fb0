"""Forgetting one thing, and correcting one fact: the user's say over what Ella remembers, in the database.

One code path for every asker: the user in conversation (``tasks.ingest`` after ``ella.memory.say`` decided),
the gateway's requests (``tasks.memory_requests``) and the operator's commands (``ella memory forget``, ``ella
ledger retire``, ``ella ledger correct``). Each writes a ``memory_audit`` row (who, when, why, which ids) in
the same transaction, and never the forgotten words.

What "forgotten" means, and why it reaches this far: a forgotten memory must leave nothing, while the user's
other memories stay. Forgetting grows from what was asked to everything that holds the same words:
- a memory node goes; so does every node made from the same message (it holds that message's words);
- the message's text and Ella's reply to it are replaced by a stand-in line (``FORGOTTEN_TEXT``, ``FORGOTTEN_
  REPLY``), their stream entries are deleted (``Forgetting.stream_ids``, for the caller, after commit), the
  boundary log's copy of the text is cleared and the message's self-log entries and dead letters go;
- a conversation's chat node loses the transcript lines of that message and its reply (its description and
  vector are made again from what is left);
- a thought that cited it drops that evidence, and a thought left with none is forgotten too; a thought whose
  words repeat a forgotten fact's value or a forgotten memory's object is forgotten with it;
- a chapter's key moment that cited it goes; a reply's ``seen`` loses its id;
- a fact is retired with the user's reason and its whole chain (what it superseded) keeps its subject,
  predicate and dates but not its words; a notification built on it is withdrawn or cleared;
- a finished batch request's copy of the words (prompt variables, result) is cleared;
- another reply of the user that repeats a forgotten value word for word is cleared as well, and so is every
  earlier export answer and page of their memory (``ella.list_memory``, ``ella.search_memory``: copies, the
  forgotten thing too; the gateway delivered them already); a ``memory_changed`` notice that named it with its
  words keeps its ids only, and its stream entry is deleted;
- a ``memory_changed`` notice of the forget names what a product lists of it (ids and kinds, never words).
``Forgetting`` lists what stores outside the database must drop (the outbox stream's entries, the embedding
cache's texts); the user's ``memory_epoch`` moves, so every worker's retrieval cache rebuilds the user's index.

What a request may not do is refused with a ``Refused`` naming a stable ``code`` (the gateway's answer): an id
that is not this user's (``unknown_item``, the same for another user's id as for none, so no id is confirmed),
something already forgotten (``already_forgotten``), a fact no longer live (``not_live``), a correction that
would put a user's words into Ella's world (``user_words_into_canon``) or an empty one (``invalid``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import delete, or_, select, true, update
from sqlalchemy.orm import Session

from ella import seen as seen_map
from ella.embeddings import Embedder
from ella.ledger.facts import NewFact
from ella.ledger.rules import LIVE, USER_SUBJECT, FactConflict, TrustViolation, Writer
from ella.memory_pages import Changed, fact_text
from ella.provenance import by_operator, by_rule
from models.audit import MemoryAudit
from models.base import utcnow
from models.batch import PENDING as BATCH_PENDING
from models.batch import SUBMITTED as BATCH_SUBMITTED
from models.batch import ModelBatchItem
from models.boundary import BoundaryEvent
from models.chapters import StoryChapter
from models.dead_letter import DeadLetter
from models.ledger import FactEvent, WorldFact, lock_world, retire
from models.memory import MemoryNode
from models.memory_changes import KIND as NOTICE
from models.memory_changes import has_words, names_any, note_changed, strip_words
from models.message import InboundMessage
from models.notifications import NotificationCandidate
from models.outbox import OutboxRecord
from models.pending_effects import forget_sources
from models.review import FactReview
from models.selflog import SelfLogEntry
from models.supersession import supersede
from models.user import User

FORGOTTEN_TEXT = "(forgotten at the user's request)"
FORGOTTEN_REPLY = "(a reply about something forgotten at the user's request)"
FORGOTTEN_VALUE = "(forgotten)"
WORLD_TIERS = frozenset({"canon", "observed", "rumored"})
MIN_ECHO_CHARS = 3  # a forgotten value shorter than this is not searched for in other texts
# Answers that hold copies of the user's memory (an export, a page of it): a forget clears them all.
COPYING_ANSWERS = frozenset({"export", "list", "search"})


class Refused(Exception):
    """A request that changes nothing, with the stable ``code`` the gateway's answer carries."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class Forgetting:
    """What one forget changed: ids for the answer and the audit, and what stores outside the database drop."""

    nodes: set[int] = field(default_factory=set)
    facts: set[int] = field(default_factory=set)
    messages: set[str] = field(default_factory=set)
    replies: set[int] = field(default_factory=set)  # outbox records cleared
    stream_ids: set[str] = field(default_factory=set)  # their outbox stream entries, to XDEL after commit
    texts: set[str] = field(default_factory=set)  # texts whose embedding-cache entries go
    chapters: set[int] = field(default_factory=set)
    notifications: set[int] = field(default_factory=set)
    listed: dict[str, str] = field(default_factory=dict)  # item -> kind, for what a product lists (memory_changed)

    def summary(self) -> dict[str, Any]:
        """The ids, never the words (the audit row's detail and the gateway's answer)."""
        return {
            "memories": sorted(self.nodes),
            "facts": sorted(self.facts),
            "messages": sorted(self.messages),
            "replies": len(self.replies),
            "chapters": sorted(self.chapters),
            "notifications": sorted(self.notifications),
        }


def audit(
    session: Session,
    user_id: str,
    *,
    actor: str,
    action: str,
    target: str,
    reason: str,
    detail: dict[str, Any],
    request_id: str | None,
    now: datetime,
) -> None:
    session.add(
        MemoryAudit(
            user_id=user_id,
            at=now,
            actor=actor[:120],
            action=action,
            target=target[:64],
            reason=reason[:2000],
            detail=json.dumps(detail, separators=(",", ":")),
            request_id=request_id,
        )
    )


def was_forgotten(session: Session, user_id: str, target: str) -> bool:
    return (
        session.scalar(
            select(MemoryAudit.id).where(MemoryAudit.user_id == user_id, MemoryAudit.target == target).limit(1)
        )
        is not None
    )


def _echoes(text: str, needles: Iterable[str]) -> bool:
    folded = text.casefold()
    return any(re.search(rf"(?<!\w){re.escape(n.casefold())}(?!\w)", folded) for n in needles)


class _Forgetter:
    """One forget's closure, in the caller's transaction: grows from what was asked to what holds its words."""

    def __init__(self, session: Session, user_id: str, embedder: Embedder, now: datetime, writer: Writer) -> None:
        self.session, self.user_id, self.embedder, self.now, self.writer = session, user_id, embedder, now, writer
        self.done = Forgetting()
        self.needles: set[str] = set()  # forgotten values and objects, searched for in thoughts and replies

    # --- growing the closure ---

    def add_facts(self, fact_ids: Iterable[int], reason: str) -> None:
        s, uid = self.session, self.user_id
        asked = set(fact_ids) - self.done.facts
        if not asked:
            return
        chains = set(s.scalars(select(WorldFact.chain).where(WorldFact.user_id == uid, WorldFact.id.in_(asked))))
        facts = list(s.scalars(select(WorldFact).where(WorldFact.user_id == uid, WorldFact.chain.in_(chains))))
        for fact in facts:
            if fact.status in LIVE:
                retire(s, uid, fact.id, self.writer, reason, self.now)
        for fact in facts:
            if fact.object != FORGOTTEN_VALUE and len(fact.object) >= MIN_ECHO_CHARS:
                self.needles.add(fact.object)
            self.done.facts.add(fact.id)
            if _is_user_subject(fact.subject) and fact.object != FORGOTTEN_VALUE:  # an item a product could list
                self.done.listed[f"fact:{fact.id}"] = "fact"
            if fact.source_message_id:
                self.add_messages([fact.source_message_id])
            fact.object, fact.note, fact.outcome = FORGOTTEN_VALUE, "", None
            fact.status_note = reason[:2000]
        ids = [f.id for f in facts]
        s.execute(
            update(FactEvent)
            .where(FactEvent.user_id == uid, FactEvent.fact_id.in_(ids))
            .values(note=reason[:2000])
            .execution_options(synchronize_session=False)
        )
        for review in s.scalars(
            select(FactReview).where(
                FactReview.user_id == uid, FactReview.resolved_at.is_(None), _cites_any(FactReview.fact_ids, ids)
            )
        ):
            if set(review.ids) & set(ids):
                review.resolved_at, review.resolved_by, review.reason = self.now, "forgotten at the user's request", ""
        self._withdraw_notifications(ids)

    def add_nodes(self, node_ids: Iterable[int]) -> None:
        s, uid = self.session, self.user_id
        asked = set(node_ids) - self.done.nodes
        if not asked:
            return
        nodes = list(s.scalars(select(MemoryNode).where(MemoryNode.user_id == uid, MemoryNode.id.in_(asked))))
        for node in nodes:
            self.done.nodes.add(node.id)
            self.done.texts.add(node.description)
            if node.quarantine is None:
                self.done.listed[f"memory:{node.id}"] = "thought" if node.node_type == "thought" else "memory"
            if node.node_type == "event" and len(node.object) >= MIN_ECHO_CHARS and node.object != "something":
                self.needles.add(node.object)
            if node.source_message_id:
                self.add_messages([node.source_message_id])

    def add_messages(self, message_ids: Iterable[str]) -> None:
        s, uid = self.session, self.user_id
        asked = set(message_ids) - self.done.messages
        if not asked:
            return
        self.done.messages |= asked
        for message in s.scalars(
            select(InboundMessage).where(InboundMessage.user_id == uid, InboundMessage.message_id.in_(asked))
        ):
            if message.text != FORGOTTEN_TEXT:
                self.done.texts.add(message.text)
                self._scrub_chat_nodes(message.conversation_id, message.text, asked)
                message.text = FORGOTTEN_TEXT
        for reply in s.scalars(
            select(OutboxRecord).where(OutboxRecord.user_id == uid, OutboxRecord.in_reply_to.in_(asked))
        ):
            self._clear_record(reply)
        made = s.scalars(
            select(MemoryNode.id).where(
                MemoryNode.user_id == uid, MemoryNode.source_message_id.in_(asked), MemoryNode.node_type != "chat"
            )
        )
        self.add_nodes(list(made))
        s.execute(
            update(BoundaryEvent)
            .where(BoundaryEvent.user_id == uid, BoundaryEvent.message_id.in_(asked))
            .values(text=None)
            .execution_options(synchronize_session=False)
        )
        s.execute(
            delete(DeadLetter)
            .where(DeadLetter.user_id == uid, DeadLetter.message_id.in_(asked))
            .execution_options(synchronize_session=False)
        )
        for entry in s.scalars(select(SelfLogEntry).where(SelfLogEntry.user_id == uid, _sources_any(asked))):
            if set(_json_list(entry.sources)) & asked:
                s.delete(entry)
        forget_sources(s, uid, sorted(asked))  # its memory and facts not yet sent: they carry its words

    def _clear_record(self, record: OutboxRecord) -> None:
        if record.id in self.done.replies:
            return
        self.done.replies.add(record.id)
        if record.text not in (FORGOTTEN_REPLY, FORGOTTEN_TEXT):
            self.done.texts.add(record.text)
            record.text = FORGOTTEN_REPLY
        if record.stream_id:
            self.done.stream_ids.add(record.stream_id)

    def _scrub_chat_nodes(self, conversation_id: int | None, said: str, message_ids: set[str]) -> None:
        """The conversation's chat node without the lines of the forgotten message and of Ella's reply to it."""
        if conversation_id is None:
            return
        s, uid = self.session, self.user_id
        replies = set(
            s.scalars(
                select(OutboxRecord.text).where(OutboxRecord.user_id == uid, OutboxRecord.in_reply_to.in_(message_ids))
            )
        )
        gone = {f"{uid}: {said}", *(f"Ella: {text}" for text in replies)}
        for chat in s.scalars(
            select(MemoryNode).where(
                MemoryNode.user_id == uid, MemoryNode.conversation_id == conversation_id, MemoryNode.node_type == "chat"
            )
        ):
            lines = [str(line) for line in _json_list(chat.evidence)]
            kept = [line for line in lines if line not in gone]
            if len(kept) == len(lines):
                continue
            self.done.texts.add(chat.description)
            prefix = chat.description.split(": ", 1)[0] if ": " in chat.description else f"Ella and {uid} talked"
            chat.description = f"{prefix}: " + " / ".join(kept)[:600] if kept else f"{prefix}: {FORGOTTEN_TEXT}"
            chat.evidence = json.dumps(kept)
            vector = np.asarray(self.embedder.embed([chat.description])[0], dtype=np.float32)
            chat.embedding, chat.embedding_model = vector.tobytes(), self.embedder.model_id

    def _clear_batch_items(self) -> None:
        """A finished batch request's copy of the forgotten words (its prompt variables and its result). One
        still pending or submitted keeps them: its result is applied by its own job; the note says so."""
        s, uid = self.session, self.user_id
        wanted = [_escaped(t) for t in self.done.texts if len(t) >= MIN_ECHO_CHARS] + sorted(self.needles)
        if not wanted:
            return
        for item in s.scalars(
            select(ModelBatchItem).where(
                ModelBatchItem.user_id == uid, ModelBatchItem.status.not_in([BATCH_PENDING, BATCH_SUBMITTED])
            )
        ):
            blob = f"{item.variables} {item.result or ''}"
            if any(w in blob for w in wanted):
                item.variables, item.result = "{}", None

    def _withdraw_notifications(self, fact_ids: list[int]) -> None:
        s, uid = self.session, self.user_id
        for candidate in s.scalars(
            select(NotificationCandidate).where(
                NotificationCandidate.user_id == uid, _cites_any(NotificationCandidate.based_on, fact_ids)
            )  # fmt: skip
        ):
            based = _json_obj(candidate.based_on)
            if not set(based.get("facts", [])) & set(fact_ids):
                continue
            self.done.notifications.add(candidate.id)
            candidate.body = FORGOTTEN_REPLY
            if candidate.status == "candidate":
                candidate.status, candidate.reason = "skipped", "what it was about was forgotten at the user's request"
            if candidate.outbox_record_id is not None:
                record = s.get(OutboxRecord, candidate.outbox_record_id)
                if record is not None and record.user_id == uid:
                    self._clear_record(record)

    # --- what depends on the closure ---

    def settle(self) -> None:
        """Thoughts, chapters, other replies and ``seen`` maps, until nothing more is forgotten; then delete."""
        s, uid = self.session, self.user_id
        while True:
            before = len(self.done.nodes)
            thoughts = list(
                s.scalars(
                    select(MemoryNode).where(
                        MemoryNode.user_id == uid,
                        MemoryNode.node_type == "thought",
                        MemoryNode.id.not_in(self.done.nodes) if self.done.nodes else true(),
                    )
                )
            )
            for thought in thoughts:
                cited = [i for i in _json_list(thought.evidence) if isinstance(i, int)]
                left = [i for i in cited if i not in self.done.nodes]
                if (cited and not left) or (self.needles and _echoes(thought.description, self.needles)):
                    self.add_nodes([thought.id])
                elif len(left) < len(cited):
                    thought.evidence = json.dumps(left)
            if len(self.done.nodes) == before:
                break
        for chapter in s.scalars(select(StoryChapter).where(StoryChapter.user_id == uid)):
            moments = _json_list(chapter.key_moments)
            kept = [m for m in moments if not (set(_ints(m, "node_ids")) & self.done.nodes)]
            if len(kept) < len(moments):
                self.done.chapters.add(chapter.id)
                chapter.key_moments = json.dumps(kept)
                chapter.cited_node_ids = json.dumps(sorted({i for m in kept for i in _ints(m, "node_ids")}))
        forgotten_refs = {f"memory:{i}" for i in self.done.nodes} | {f"fact:{i}" for i in self.done.facts}
        for record in s.scalars(select(OutboxRecord).where(OutboxRecord.user_id == uid)):
            if record.id in self.done.replies:
                pass
            elif record.kind == "answer" and record.route in COPYING_ANSWERS:  # copies, the forgotten too
                self._clear_record(record)
            elif record.kind == NOTICE and has_words(record) and names_any(record, forgotten_refs):
                strip_words(record)  # the notice stays (its ids), its words go, and so does its stream entry
                if record.stream_id:
                    self.done.stream_ids.add(record.stream_id)
            elif self.needles and _echoes(record.text, self.needles):
                self._clear_record(record)
            elif record.category == "memory" and (
                set(seen_map.decode(record.seen).get("facts", [])) & self.done.facts
                or set(seen_map.decode(record.seen).get("thoughts", [])) & self.done.nodes
            ):  # a recall answer that listed it
                self._clear_record(record)
            if record.seen:
                record.seen = seen_map.drop(
                    seen_map.drop(record.seen, "memory", self.done.nodes), "fact", self.done.facts
                )
        self._clear_batch_items()
        if self.done.nodes:
            s.execute(  # a chapter's stored thought goes with its node (no foreign key to a partitioned table)
                update(StoryChapter)
                .where(StoryChapter.user_id == uid, StoryChapter.thought_node_id.in_(self.done.nodes))
                .values(thought_node_id=None)
                .execution_options(synchronize_session=False)
            )
            s.execute(
                delete(MemoryNode)
                .where(MemoryNode.user_id == uid, MemoryNode.id.in_(self.done.nodes))
                .execution_options(synchronize_session=False)
            )
        s.execute(
            update(User)
            .where(User.id == uid)
            .values(memory_epoch=User.memory_epoch + 1)
            .execution_options(synchronize_session=False)
        )
        s.flush()


def message_forgotten(session: Session, user_id: str, message_id: str | None) -> bool:
    """Whether the user asked to forget this message (its text is the stand-in). Locks the message's row, so a
    task storing what it made of the message (a perceive, an extraction) and a forget of it take turns: the one
    that comes second sees what the first did (the forget then finds the node, or the task sees the stand-in)."""
    if not message_id:
        return False
    text = session.scalar(
        select(InboundMessage.text)
        .where(InboundMessage.user_id == user_id, InboundMessage.message_id == message_id)
        .with_for_update()
    )
    return text == FORGOTTEN_TEXT


def _escaped(text: str) -> str:
    """``text`` as it appears inside a JSON string (a batch item's variables, a result)."""
    return json.dumps(text)[1:-1]


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _json_obj(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _ints(moment: Any, key: str) -> list[int]:
    if not isinstance(moment, dict):
        return []
    return [i for i in moment.get(key, []) if isinstance(i, int)]


def _cites_any(column: Any, ids: Iterable[int]) -> Any:
    """A coarse LIKE prefilter on a JSON text column (the rows are checked exactly after)."""
    listed = [str(i) for i in ids]
    return or_(*(column.like(f"%{i}%") for i in listed)) if listed else False


def _sources_any(message_ids: Iterable[str]) -> Any:
    return or_(*(SelfLogEntry.sources.like(f"%{json.dumps(m)[1:-1]}%") for m in message_ids))


def _is_user_subject(subject: str) -> bool:
    return subject == USER_SUBJECT or subject.startswith(USER_SUBJECT + ".")


def _writer_of(actor: str) -> Writer:
    return Writer.OPERATOR if actor.startswith("operator") else Writer.USER


# --- the requests -------------------------------------------------------------------------------------------


def forget_items(
    session: Session,
    user_id: str,
    *,
    nodes: Iterable[int] = (),
    facts: Iterable[int] = (),
    messages: Iterable[str] = (),
    embedder: Embedder,
    actor: str,
    reason: str,
    request_id: str | None = None,
    now: datetime | None = None,
) -> Forgetting:
    """Forget these items of the user and everything that holds their words (see the module's docstring); one
    audit row. Ids that are not the user's are skipped here (the single-item requests below refuse them)."""
    now = now or utcnow()
    writer = _writer_of(actor)
    lock_world(session, user_id)
    forgetter = _Forgetter(session, user_id, embedder, now, writer)
    fact_ids = set(facts)
    if fact_ids:
        world = set(
            session.scalars(
                select(WorldFact.id).where(
                    WorldFact.user_id == user_id, WorldFact.id.in_(fact_ids), WorldFact.tier.in_(WORLD_TIERS)
                )
            )
        )
        if world and writer != Writer.OPERATOR:
            raise Refused("user_words_into_canon", "a user's request cannot change Ella's world")
    reason = reason.strip() or (
        "forgotten by an operator" if writer == Writer.OPERATOR else "forgotten at the user's request"
    )
    forgetter.add_facts(fact_ids, reason)
    forgetter.add_nodes(nodes)
    forgetter.add_messages(messages)
    forgetter.settle()
    done = forgetter.done
    note_changed(session, user_id, "forgotten",
                 [Changed(kind, int(ref.split(":", 1)[1])) for ref, kind in sorted(done.listed.items())])  # fmt: skip
    target = ",".join([*(f"memory:{i}" for i in sorted(set(nodes))), *(f"fact:{i}" for i in sorted(fact_ids))])
    audit(session, user_id, actor=actor, action="forget", target=target or "message", reason=reason,
          detail=done.summary(), request_id=request_id, now=now)  # fmt: skip
    for node_id in done.nodes - set(nodes):  # what went with it is forgotten too: a later request says so
        audit(session, user_id, actor=actor, action="forget", target=f"memory:{node_id}", reason="went with "
              + (target or "a forgotten message"), detail={}, request_id=request_id, now=now)  # fmt: skip
    return done


def forget_memory(
    session: Session,
    user_id: str,
    node_id: int,
    *,
    embedder: Embedder,
    actor: str,
    reason: str,
    request_id: str | None = None,
    now: datetime | None = None,
) -> Forgetting:
    """Forget one memory node by id (the gateway's and the operator's request)."""
    exists = session.scalar(select(MemoryNode.id).where(MemoryNode.user_id == user_id, MemoryNode.id == node_id))
    if exists is None:
        if was_forgotten(session, user_id, f"memory:{node_id}"):
            raise Refused("already_forgotten", f"memory {node_id} was already forgotten")
        raise Refused("unknown_item", f"no memory {node_id} for this user")
    return forget_items(session, user_id, nodes=[node_id], embedder=embedder, actor=actor, reason=reason,
                        request_id=request_id, now=now)  # fmt: skip


def forget_fact(
    session: Session,
    user_id: str,
    fact_id: int,
    *,
    embedder: Embedder,
    actor: str,
    reason: str,
    request_id: str | None = None,
    now: datetime | None = None,
) -> Forgetting:
    """Forget one fact by id: retired with the reason, its chain's words gone."""
    fact = _fact_of(session, user_id, fact_id)
    if fact.object == FORGOTTEN_VALUE:
        raise Refused("already_forgotten", f"fact {fact_id} was already forgotten")
    return forget_items(session, user_id, facts=[fact_id], embedder=embedder, actor=actor, reason=reason,
                        request_id=request_id, now=now)  # fmt: skip


def _fact_of(session: Session, user_id: str, fact_id: int) -> WorldFact:
    fact = session.scalar(select(WorldFact).where(WorldFact.user_id == user_id, WorldFact.id == fact_id))
    if fact is None:
        raise Refused("unknown_item", f"no fact {fact_id} for this user")
    return fact


def retire_fact(
    session: Session,
    user_id: str,
    fact_id: int,
    *,
    actor: str,
    reason: str,
    request_id: str | None = None,
    now: datetime | None = None,
) -> WorldFact:
    """Withdraw one live fact with a reason, keeping its words in the history (an operator's lifecycle rule,
    ``ella ledger retire``); a user's "forget" is ``forget_fact``, which also lets the words go."""
    now = now or utcnow()
    if not reason.strip():
        raise Refused("invalid", "a retirement needs a reason")
    fact = _fact_of(session, user_id, fact_id)
    if fact.status not in LIVE:
        raise Refused("not_live", f"fact {fact_id} is {fact.status}, not live")
    writer = _writer_of(actor)
    try:
        retired = retire(session, user_id, fact_id, writer, reason, now)
    except TrustViolation as exc:
        raise Refused("user_words_into_canon", str(exc)) from exc
    except FactConflict as exc:
        raise Refused("not_live", str(exc)) from exc
    audit(session, user_id, actor=actor, action="retire_fact", target=f"fact:{fact_id}", reason=reason,
          detail={"facts": [fact_id]}, request_id=request_id, now=now)  # fmt: skip
    return retired


def correct_fact(
    session: Session,
    user_id: str,
    fact_id: int,
    value: str,
    *,
    actor: str,
    reason: str = "",
    source_message_id: str | None = None,
    request_id: str | None = None,
    now: datetime | None = None,
) -> WorldFact:
    """Supersede one live fact with the corrected value (same subject, predicate and tier). A user's correction
    (the user in conversation, the gateway) may correct only facts about the user: their words never become
    Ella's world. An operator may correct any tier."""
    now = now or utcnow()
    value = " ".join(str(value).split())
    if not value or len(value) > 400:
        raise Refused("invalid", "a correction needs a value of 1 to 400 characters")
    fact = _fact_of(session, user_id, fact_id)
    writer = _writer_of(actor)
    if writer != Writer.OPERATOR and (fact.tier in WORLD_TIERS or not _is_user_subject(fact.subject)):
        raise Refused("user_words_into_canon", f"fact {fact_id} is part of Ella's world, not something the user said")
    if fact.status not in LIVE:
        raise Refused("not_live", f"fact {fact_id} is {fact.status}, not live")
    if fact.object == value:
        raise Refused("unchanged", f"fact {fact_id} already says that")
    made_by = by_operator("ledger correct") if writer == Writer.OPERATOR else by_rule("user_correction")
    new = NewFact(
        subject=fact.subject,
        predicate=fact.predicate,
        object=value,
        tier=fact.tier,
        confidence=1.0,
        note="corrected by " + ("an operator" if writer == Writer.OPERATOR else "the user"),
        source_message_id=source_message_id,
        made_by=made_by,
    )
    why = reason.strip() or (
        "corrected by an operator" if writer == Writer.OPERATOR else "corrected at the user's request"
    )
    try:
        corrected = supersede(session, user_id, fact_id, new, writer, now, reason=why)
    except TrustViolation as exc:
        raise Refused("user_words_into_canon", str(exc)) from exc
    except FactConflict as exc:
        raise Refused("not_live", str(exc)) from exc
    audit(session, user_id, actor=actor, action="correct_fact", target=f"fact:{fact_id}", reason=why,
          detail={"facts": [fact_id], "new_fact": corrected.id}, request_id=request_id, now=now)  # fmt: skip
    if _is_user_subject(fact.subject):  # the old fact by its id (its words are the wrong value), the new one with its
        note_changed(session, user_id, "corrected", [Changed("fact", fact_id), Changed("fact", corrected.id,
                     fact_text(corrected.subject, corrected.predicate, corrected.object))])  # fmt: skip
    return corrected


__all__ = [
    "FORGOTTEN_REPLY",
    "FORGOTTEN_TEXT",
    "FORGOTTEN_VALUE",
    "Forgetting",
    "Refused",
    "correct_fact",
    "forget_fact",
    "forget_items",
    "forget_memory",
    "message_forgotten",
    "retire_fact",
]
