"""The gateway's requests over one user's memory: ``ella.export_user``, ``ella.forget_memory``, ``ella.correct_fact``,
and a product's pages of it: ``ella.list_memory``, ``ella.search_memory`` (with ``ella.publish_memory_changed``,
the sweep's way to publish a change notice its committing path could not: ``models.memory_changes``).

Each carries the gateway's ``request_id`` and is answered once on the outbox stream: an entry of kind
``answer``, ``in_reply_to`` the request id, ``route`` the request (``export``, ``forget``, ``correct``),
``category`` ``done`` or ``refused``, and ``text`` a JSON object (``status``, ``error`` code and ``detail`` for a
refusal, what was changed for a forget or a correction, the whole document for an export). The answer is
committed with what the request changed (one transaction, the transactional outbox as for replies) and then
published; a redelivery or a repeated request id publishes the same answer again, which the stream's script makes
a no-op, and changes nothing. A request Ella must refuse (``models.forgetting.Refused``: an unknown id, another
user's id, something already forgotten, a correction into her world) changes nothing and is answered so. A
payload that is not a request at all is dead-lettered with the reason, and, when its user and request id can be
read and the user exists, answered ``refused``/``malformed`` too, so the gateway never waits on silence.

The work is ``models.forgetting``'s and ``models.export``'s: the same code the user's words in conversation
and the operator's commands run. Logs name the request id and the outcome, never the words.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import redis
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from adapters.db import autocommit_scope, session_scope
from adapters.embedding_cache import shared_embedder
from adapters.forgetting import forget_outside
from adapters.outbox_stream import publish_once
from adapters.publishing import publish
from adapters.redis_conn import get_redis
from adapters.settings import get_settings
from ella.contract import (
    MalformedPayload,
    MemoryPageRequest,
    MemoryRequest,
    OutboxEntry,
    parse_memory_page,
    parse_memory_request,
)
from ella.memory_pages import BadCursor, PageRequest
from ella.usage import PriceList
from models.base import utcnow
from models.erasure import is_forgotten, tombstone_key
from models.export import export_user as export_document
from models.export import section_counts
from models.forgetting import Forgetting, Refused, audit, correct_fact, forget_fact, forget_memory
from models.memory_changes import KIND as MEMORY_CHANGED
from models.memory_pages import page
from models.outbox import OutboxRecord
from models.user import User
from workers import events
from workers.app import app
from workers.logs import user_scope
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)

PUBLISH_WAIT_S = 30.0
Work = Callable[[Session, MemoryRequest], tuple[dict[str, Any], Forgetting | None]]


def answered(session: Session, request: MemoryRequest) -> OutboxRecord | None:
    """The answer already recorded for this request id (a redelivery); refuses an id another user used."""
    found = session.scalar(select(OutboxRecord).where(OutboxRecord.in_reply_to == request.request_id))
    if found is not None and (found.user_id != request.user_id or found.kind != "answer"):
        raise MalformedPayload(f"request_id {request.request_id!r} was already used by another request")
    return found


def handle(request: MemoryRequest, route: str, work: Work) -> str | None:
    """Do ``work`` and record its answer in one transaction, then publish it; the answer's stream id. A
    concurrent delivery of the same request id that committed first wins: its answer is published, once."""
    try:
        return _handle(request, route, work)
    except IntegrityError:
        with session_scope() as session:
            record = answered(session, request)
        if record is None:
            raise  # not a duplicate request id: a real integrity problem, let it fail loudly
        log.info("%s request %s was answered by a concurrent delivery", route, request.request_id)
        return publish(record, PUBLISH_WAIT_S)


def _handle(request: MemoryRequest, route: str, work: Work) -> str | None:
    done: Forgetting | None = None
    with session_scope() as session:
        record = answered(session, request)
        if record is None:
            if session.get(User, request.user_id) is None:
                return refuse_unrecorded(request, route, "unknown_user", "no such user")
            try:
                with session.begin_nested():  # a refusal rolls back what the work had begun, nothing else
                    body, done = work(session, request)
                body = {"status": "done", **body}
            except Refused as exc:
                body, done = {"status": "refused", "error": exc.code, "detail": exc.detail}, None
            record = answer_record(request, route, body)
            session.add(record)
            session.flush()
            log.info("%s request %s: %s %s", route, request.request_id, body["status"], body.get("error", ""))
    if done is not None:
        forget_outside(request.user_id, done)
    return publish(record, PUBLISH_WAIT_S)


def answer_record(request: MemoryRequest | dict[str, str], route: str, body: dict[str, Any]) -> OutboxRecord:
    user_id, request_id = _ids(request)
    return OutboxRecord(
        kind="answer",
        user_id=user_id,
        in_reply_to=request_id,
        route=route,
        category="done" if body["status"] == "done" else "refused",
        text=json.dumps({"request": route, "request_id": request_id, **body}, default=str),
    )


def _ids(request: MemoryRequest | dict[str, str]) -> tuple[str, str]:
    if isinstance(request, MemoryRequest):
        return request.user_id, request.request_id
    return request["user_id"], request["request_id"]


def refuse_unrecorded(request: MemoryRequest | dict[str, str], route: str, code: str, detail: str) -> str | None:
    """A refusal for a user Ella does not hold: published once (keyed by the request id), stored nowhere."""
    user_id, request_id = _ids(request)
    body = {"request": route, "request_id": request_id, "status": "refused", "error": code, "detail": detail}
    entry = OutboxEntry(kind="answer", user_id=user_id, text=json.dumps(body), route=route, category="refused",
                        outbox_id="refusal-" + hashlib.sha256(f"{user_id}\0{request_id}".encode()).hexdigest()[:32],
                        in_reply_to=request_id, created_at=utcnow().isoformat())  # fmt: skip
    log.info("%s request %s: refused (%s)", route, request_id, code)
    try:
        return publish_once(get_redis(), entry)
    except redis.RedisError:
        log.warning("%s request %s: its refusal could not be published (Redis unreachable)", route, request_id)
        return None


def user_erased(user_id: str) -> bool:
    with autocommit_scope() as session:
        return is_forgotten(session, tombstone_key(user_id, get_settings().forget_hmac_key.get_secret_value()))


def refuse_malformed(kwargs: Any, route: str, reason: str) -> None:
    """Answer a malformed request on the stream when its user and request id can be read, then let it be
    dead-lettered: the gateway sees the refusal instead of silence."""
    if not isinstance(kwargs, dict):
        return
    try:
        ids = MemoryRequest.model_validate({k: kwargs.get(k) for k in ("user_id", "request_id")})
    except ValueError:
        return
    if user_erased(ids.user_id):  # an erased user's late request leaves no trace naming them
        refuse_unrecorded({"user_id": "", "request_id": ids.request_id}, route, "malformed", reason)
        return
    with session_scope() as session:
        if session.get(User, ids.user_id) is None:
            refuse_unrecorded(ids, route, "malformed", reason)
            return
        if session.scalar(select(OutboxRecord.id).where(OutboxRecord.in_reply_to == ids.request_id)) is not None:
            return  # that id was answered (or used) before: a malformed repeat changes nothing
        record = answer_record(ids, route, {"status": "refused", "error": "malformed", "detail": reason})
        session.add(record)
        session.flush()
    publish(record, PUBLISH_WAIT_S)


def _export(session: Session, request: MemoryRequest) -> tuple[dict[str, Any], Forgetting | None]:
    settings = get_settings()
    document = export_document(session, request.user_id, prices=PriceList(settings.prices, settings.batch_price_factor))
    audit(session, request.user_id, actor="gateway", action="export", target="user", reason=request.reason,
          detail=section_counts(document), request_id=request.request_id, now=utcnow())  # fmt: skip
    return {"export": document}, None


def _forget(session: Session, request: MemoryRequest) -> tuple[dict[str, Any], Forgetting | None]:
    kind, item_id = request.kind_and_id
    forget = forget_memory if kind == "memory" else forget_fact
    done = forget(session, request.user_id, item_id, embedder=shared_embedder(), actor="gateway",
                  reason=request.reason or "the user asked to forget it", request_id=request.request_id)  # fmt: skip
    return {"item": request.item, "forgotten": done.summary()}, done


def _correct(session: Session, request: MemoryRequest) -> tuple[dict[str, Any], Forgetting | None]:
    _, fact_id = request.kind_and_id
    why = request.reason or "corrected at the user's request"
    new = correct_fact(session, request.user_id, fact_id, request.value or "", actor="gateway", reason=why,
                       request_id=request.request_id)  # fmt: skip
    return {"item": request.item, "new_item": f"fact:{new.id}", "value": new.object}, None


def _run(task: ReliableTask, route: str, work: Work, args: Any, kwargs: Any, **needs: bool) -> str | None:
    events.refuse_unsigned(task, kwargs)  # first: an unsigned request reads and changes nothing, not even an answer
    try:
        request = parse_memory_request(args, kwargs, **needs)
    except MalformedPayload as exc:
        refuse_malformed(kwargs, route, exc.reason)
        raise
    events.refuse_if_forgotten(task, request.user_id)  # an erased user's late request finds nobody
    with user_scope(request.user_id):
        return handle(request, route, work)


@app.task(name=TaskName.EXPORT_USER, base=ReliableTask, bind=True)
def export_user(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{request_id, user_id, reason?}``; the answer's ``export`` is everything Ella
    holds about the user (``models.export``). Returns the answer's stream id."""
    return _run(self, "export", _export, args, kwargs)


@app.task(name=TaskName.FORGET_MEMORY, base=ReliableTask, bind=True)
def forget_memory_task(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{request_id, user_id, item: "memory:<id>" | "fact:<id>", reason?}``."""
    return _run(self, "forget", _forget, args, kwargs, item=True)


@app.task(name=TaskName.CORRECT_FACT, base=ReliableTask, bind=True)
def correct_fact_task(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{request_id, user_id, item: "fact:<id>", value, reason?}``."""
    return _run(self, "correct", _correct, args, kwargs, item=True, value=True)


# --- a product's pages of the user's memory, and the change notices the sweep publishes ---------------------------
# ``ella.list_memory`` and ``ella.search_memory`` are memory requests in every way the gateway sees (the same
# request id idempotency, the same answer, the same refusals of a malformed payload, an unknown or an erased
# user), so they share ``handle`` here; a cursor Ella did not give for this user, kind and search is refused
# ``bad_cursor`` (``ella.memory_pages``). A page changes nothing, and is still recorded: the request id is the
# gateway's idempotency key, and only a recorded answer makes "answered once" hold across redeliveries. The
# recorded page holds the items' words, so a later forget clears it as it clears an export.


def _page_work(page_request: MemoryPageRequest) -> Any:
    """The memory request's work for one page: read it, or refuse the cursor."""
    wanted = PageRequest(page_request.user_id, page_request.kind, page_request.include_past, page_request.query)

    def work(session: Session, _request: MemoryRequest) -> tuple[dict[str, Any], Forgetting | None]:
        try:
            after = wanted.after(page_request.cursor)
        except BadCursor as exc:
            raise Refused(exc.code, exc.detail) from None
        items, last = page(session, wanted, after, page_request.limit)
        next_cursor = wanted.cursor(last) if last is not None else None
        return {"kind": wanted.kind, "include_past": wanted.include_past, "items": items,
                "next_cursor": next_cursor}, None  # fmt: skip

    return work


def _run_page(task: ReliableTask, route: str, args: Any, kwargs: Any, *, search: bool) -> str | None:
    events.refuse_unsigned(task, kwargs)
    try:
        page_request = parse_memory_page(args, kwargs, search=search)
    except MalformedPayload as exc:
        refuse_malformed(kwargs, route, exc.reason)
        raise
    events.refuse_if_forgotten(task, page_request.user_id)  # an erased user's late request finds nobody
    ids = MemoryRequest(request_id=page_request.request_id, user_id=page_request.user_id)
    with user_scope(page_request.user_id):
        return handle(ids, route, _page_work(page_request))


@app.task(name=TaskName.LIST_MEMORY, base=ReliableTask, bind=True)
def list_memory(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{request_id, user_id, kind, limit?, cursor?, include_past?}``; the answer's
    ``items`` are one page, newest first, and ``next_cursor`` asks for the next (null: no more). Returns the
    answer's stream id."""
    return _run_page(self, "list", args, kwargs, search=False)


@app.task(name=TaskName.SEARCH_MEMORY, base=ReliableTask, bind=True)
def search_memory(self: ReliableTask, *args: Any, **kwargs: Any) -> str | None:
    """Gateway contract: kwargs ``{request_id, user_id, kind, query, limit?, cursor?, include_past?}``: the
    items of the kind whose text holds ``query`` (case-insensitive), paged as ``ella.list_memory``."""
    return _run_page(self, "search", args, kwargs, search=True)


@app.task(name=TaskName.PUBLISH_MEMORY_CHANGED, base=ReliableTask, bind=True)
def publish_memory_changed(self: ReliableTask, user_id: str, outbox_id: str) -> str | None:
    """Publish one recorded ``memory_changed`` notice (``models.memory_changes``), once: the stream's marker
    makes a notice the committing path did publish a no-op. Nothing when the notice is gone (the user was
    erased meanwhile)."""
    with user_scope(user_id), autocommit_scope() as session:
        record = session.scalar(
            select(OutboxRecord).where(
                OutboxRecord.user_id == user_id, OutboxRecord.uid == outbox_id, OutboxRecord.kind == MEMORY_CHANGED
            )
        )
    if record is None:
        return None
    return publish(record, PUBLISH_WAIT_S)
