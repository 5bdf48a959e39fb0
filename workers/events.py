"""The pipeline's events: what one step hands to the next, sent through the receiving task's own signature.

Why here and not in the task modules: a task module never imports another task module (each is one room and
can be read alone), yet ingest must hand a turn to perceive and extraction, and a closed conversation must
reach its memo. The derived effects of a commit are built here as ``Effect`` values that the commit records
(``models.pending_effects``: sent after it, or by the sweep); ``workers.effects`` sends each through its
registered task's ``apply_async``, so Celery checks the arguments against the task's signature at send time (a
renamed parameter fails in the sender, not later in a worker), and the queue comes from ``workers.routing``.

The flow: gateway → ``ingest_message`` → (outbox stream) and ``perceive`` + ``extract_facts`` per user turn;
``perceive`` → ``reflect`` when the importance trigger runs out; a new conversation or the minute sweep →
``close_conversation`` (chat node, memo, planning thought).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, NoReturn

from adapters.settings import get_settings
from models.pending_effects import Effect, PendingEffects, owe
from workers.routing import TaskName

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from workers.reliability import ReliableTask

FORGOTTEN_REASON = "the user was erased (right to be forgotten): refused, nothing stored, no reply (a rejected entry)"


def memory_of_turn(
    *,
    user_id: str,
    message_id: str,
    text: str,
    sent_at: str,
    perception: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
    quarantine: str | None = None,
    accessed: dict[str, Any] | None = None,
) -> Effect:
    """A user turn to ``ella.perceive`` (idempotent per message), with the perception the reply's call made and
    that call's provenance (``ella.provenance``), if any, the hold the guard put on it
    (``ella.memory.quarantine``), and the memories the reply used (``accessed``: marked by the task)."""
    kwargs = {
        "user_id": user_id,
        "description": text,
        "node_type": "event",
        "created_at": sent_at,
        "source_message_id": message_id,
        "perception": perception,
        "provenance": provenance,
        "quarantine": quarantine,
    }
    if accessed:
        kwargs["accessed"] = accessed
    return Effect(TaskName.PERCEIVE, kwargs, repr({"user_id": user_id, "source_message_id": message_id}))


def facts_of_turn(
    *,
    user_id: str,
    message_id: str,
    text: str,
    sent_at: str,
    statements: list[dict[str, Any]] | None = None,
    shown_ids: list[int] | None = None,
    provenance: dict[str, Any] | None = None,
) -> Effect:
    """A user turn (only theirs: Ella's replies never become facts) to ``ella.extract_facts``, with the fact
    statements the reply's call read from it against the facts ``shown_ids`` it showed, and that call's
    provenance, when it did (then extraction makes no call of its own)."""
    kwargs: dict[str, Any] = {"user_id": user_id, "message_id": message_id, "text": text, "sent_at": sent_at}
    if statements is not None:
        kwargs.update(statements=statements, shown_ids=shown_ids or [], provenance=provenance)
    return Effect(TaskName.EXTRACT_FACTS, kwargs, repr({"user_id": user_id, "message_id": message_id}))


def pictures_of(*, user_id: str, entities: list[str], prompts: dict[str, str] | None = None) -> Effect:
    """Ella's reply named entities of her world that have pictures: ``ella.draw_image_anchors`` draws each one
    not yet drawn (its first reference) and does nothing for the rest; ``prompts``: what a new thing of her
    world (none of the four with a look in the ledger) is drawn from."""
    kwargs: dict[str, Any] = {"user_id": user_id, "entities": entities}
    if prompts:
        kwargs["prompts"] = prompts
    return Effect(TaskName.DRAW_IMAGE_ANCHORS, kwargs)


def memo_of(conversation_id: int) -> Effect:
    """A conversation closed (new conversation, or the sweep): ``ella.close_conversation`` (once per
    conversation: its memo's dedupe key)."""
    return Effect(TaskName.CLOSE_CONVERSATION, {"conversation_id": conversation_id})


def owe_memos(session: Session, conversation_ids: list[int]) -> list[PendingEffects]:
    """Each conversation this transaction closed owes its memo (``ella.close_conversation``), recorded in it."""
    from models.conversation import Conversation

    grace = timedelta(seconds=get_settings().effects_grace_s)
    owed = []
    for conversation_id in conversation_ids:
        conv = session.get(Conversation, conversation_id)  # in the session already: this transaction closed it
        if conv is not None:
            row = owe(session, conv.user_id, f"conversation:{conversation_id}", [memo_of(conversation_id)], grace)
            if row is not None:
                owed.append(row)
    session.flush()
    return owed


def memory_of_notification(
    *, user_id: str, candidate_id: int, body: str, sent_at: str, conversation_id: int | None
) -> Effect:
    """A notification Ella sent to ``ella.perceive``, with its perception given (no model call), once per
    candidate (``source_message_id`` ``notification:<id>``): when the user answers, she remembers asking."""
    source = f"notification:{candidate_id}"
    kwargs = {
        "user_id": user_id,
        "description": f"Ella reached out: {body}",
        "node_type": "event",
        "created_at": sent_at,
        "source_message_id": source,
        "conversation_id": conversation_id,
        "perception": {"score": 3, "subject": "Ella", "predicate": "reached out to", "object": user_id},
    }
    return Effect(TaskName.PERCEIVE, kwargs, repr({"user_id": user_id, "source_message_id": source}))


def turn_to_memory(**kwargs: Any) -> None:
    """Send ``memory_of_turn`` now (a caller with no commit to record it in)."""
    from workers.effects import emit

    emit(memory_of_turn(**kwargs))


def trigger_ran_out(user_id: str) -> None:
    """The importance trigger reached zero: ``ella.reflect`` (it dedupes itself per user), sent by its
    registered name like every other effect, so this module imports no task module (no cycle)."""
    from workers.effects import emit

    emit(Effect(TaskName.REFLECT, {"user_id": user_id}))


def refuse_if_forgotten(task: ReliableTask, user_id: str, message_id: str | None = None) -> None:
    """The tombstone check of a task that would create or change a user (ingest, profile): an erased user's
    late message or profile is dead-lettered with a reason and the tombstone's key only (no id, no text),
    its inbox entry dropped, and the request's kwargs cleared so that no later log line names the user. The
    gateway is answered with a ``rejected`` entry, code ``user_erased``, ``in_reply_to`` the message or request
    id and no ``user_id`` (``adapters.dead_letters.publish_rejection``).

    Raises ``DeadLettered``; returns when the user was never erased (one primary-key lookup).
    """
    from adapters.db import autocommit_scope
    from models.erasure import is_forgotten

    with autocommit_scope() as session:
        if not is_forgotten(session, tombstone_of(user_id)):
            return
    refuse_forgotten(task, user_id, message_id)


def tombstone_of(user_id: str) -> str:
    """The key ``user_id``'s tombstone would have (``models.erasure.tombstone_key``, with the configured secret)."""
    from models.erasure import tombstone_key

    return tombstone_key(user_id, get_settings().forget_hmac_key.get_secret_value())


def refuse_forgotten(task: ReliableTask, user_id: str, message_id: str | None = None) -> NoReturn:
    """``refuse_if_forgotten`` once the tombstone was found: for a caller whose own read already looked it up
    (ingest's opening read, ``models.turn_opening``: the check costs no statement of its own there)."""
    from adapters.inbox_erasure import erase_inbox
    from ella.rejections import reply_key
    from models.erasure import Traces

    erase_inbox(Traces(user_id, message_ids={message_id} if message_id else set()))
    asked = task.request.kwargs if isinstance(task.request.kwargs, dict) else {}
    in_reply_to = reply_key(task.name, asked, task.request.id)  # for the rejected entry, which names no user
    task.request.kwargs = {}
    owe_disk_rewrite()  # the late message's words were in Redis (the queue, the inbox): its files too
    raise task.dead_letter(FORGOTTEN_REASON, [], {"tombstone": tombstone_of(user_id)}, in_reply_to=in_reply_to)


REWRITE_AFTER_S = 5  # after the refused task's ack: kombu's unacked hash held the message until then


def owe_disk_rewrite() -> None:
    """A late message (or request) of an erased user was refused: its words passed through Redis (the queue, the
    inbox entry, kombu's unacked hash), so they are in the AOF, and in the snapshot if one was written meanwhile.
    Owe the same rewrite an erasure ends with (``adapters.disk_erasure.owe_rewrite``: one marker, however many
    late messages), and send the sweep that runs it (``ella.forget_users_again``) a few seconds from now, after
    this task's ack; the sweep's beat run every minute does it if this send is lost. Redis down: the message
    is not in it either, nothing is owed."""
    from adapters.disk_erasure import owe_rewrite
    from adapters.redis_conn import get_redis
    from workers.effects import SEND_ERRORS, task_named
    from workers.routing import queue_for

    try:
        if not owe_rewrite(get_redis()):
            return  # already owed: the sweep that is on its way rewrites after this message too
        task_named(TaskName.FORGET_USERS_AGAIN).apply_async(
            kwargs={}, countdown=REWRITE_AFTER_S, queue=queue_for(TaskName.FORGET_USERS_AGAIN, get_settings())
        )
    except SEND_ERRORS:  # RedisError among them
        pass  # owed and not sent: beat's sweep runs it within a minute


def refuse_unsigned(task: ReliableTask, kwargs: Any) -> None:
    """A signed request (``ella.signing``: forget, export, correct, a memory page) whose signature is missing or
    wrong, on a deployment with a gateway signing key: dead-lettered before anything of the request is read or
    changed, and answered with a ``rejected`` entry (``unsigned`` or ``bad_signature``). The key and the
    expected signature are never logged nor stored; the dead letter keeps the kwargs without the signature.

    Raises ``DeadLettered``; returns when the request may run."""
    from ella.signing import FIELD, problem

    secret = get_settings().gateway_signing_key
    refusal = problem(secret.get_secret_value() if secret is not None else None, task.name, kwargs)
    if refusal is None:
        return
    shown = {k: v for k, v in kwargs.items() if k != FIELD} if isinstance(kwargs, dict) else {}
    raise task.dead_letter(refusal, [], shown)
