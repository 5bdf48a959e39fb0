"""Raw and fuzzed broker envelopes pushed straight onto the queues, between real messages.

Why raw: a gateway bug, a stale client or an attacker with broker access sends what ``send_task`` never
would. Kinds: a body that is JSON but not Celery's ``[args, kwargs, embed]``, an envelope that is not JSON,
a body that is not base64, an unknown task name, a known task on the wrong queue (a perceive with nonsense
arguments on inbound; a valid ingest on cognition),
ingest kwargs of the wrong types, and seeded byte flips of a valid envelope. The real messages around them
must all be answered once and every worker must still be running. ``deep_json_envelope``: JSON nested 100,000
deep, in a task's body and in the envelope itself (issue 24: one such body killed a worker, leaving no dead
letter); each must be dead-lettered and no worker may exit.
"""

from __future__ import annotations

import base64
import json
import random
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from chaos.harness import Chaos, Window


def envelope(task: str, kwargs: Any, queue: str, *, body: bytes | None = None) -> dict[str, Any]:
    """A kombu Redis-transport message as ``send_task`` writes it (protocol 2, JSON, base64 body)."""
    task_id = str(uuid.uuid4())
    raw = body if body is not None else json.dumps([[], kwargs, {"callbacks": None, "errbacks": None}]).encode()
    return {
        "body": base64.b64encode(raw).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py", "task": task, "id": task_id, "root_id": task_id, "parent_id": None, "group": None,
            "retries": 0, "eta": None, "expires": None, "timelimit": [None, None], "argsrepr": "()",
            "kwargsrepr": "{}", "origin": "chaos", "ignore_result": True,
        },
        "properties": {
            "correlation_id": task_id, "reply_to": "", "delivery_mode": 2, "priority": 0,
            "delivery_info": {"exchange": "", "routing_key": queue}, "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }  # fmt: skip


def bad_envelopes(inbound: str, cognition: str, user: str, seed: int = 11) -> list[tuple[str, str, str]]:
    """(kind, queue, raw envelope) of every bad kind; fuzzed ones are seeded byte flips."""
    ingest = "ella.ingest_message"
    good_kwargs = {"message_id": "x", "user_id": user, "text": "hi", "sent_at": datetime.now(UTC).isoformat()}
    out = [
        ("json_wrong_shape", inbound, json.dumps(envelope(ingest, None, inbound, body=b'{"hello": "world"}'))),
        ("json_wrong_shape", inbound, json.dumps(envelope(ingest, None, inbound, body=b"[1, 2]"))),
        ("non_json", inbound, "this is not json at all"),
        ("non_json", inbound, '{"body": "truncated'),
        ("bad_base64", inbound, json.dumps({**envelope(ingest, good_kwargs, inbound), "body": "!!!not base64@@"})),
        ("unknown_task", inbound, json.dumps(envelope("ella.no_such_task", {}, inbound))),
        ("wrong_queue", inbound, json.dumps(envelope("ella.perceive", {"nonsense": [1, 2]}, inbound))),
        ("bad_kwargs", inbound, json.dumps(envelope(ingest, {**good_kwargs, "text": ["not", "text"]}, inbound))),
        ("bad_kwargs", inbound, json.dumps(envelope(ingest, {"message_id": 7}, inbound))),
        ("bad_kwargs", inbound, json.dumps(envelope(ingest, {**good_kwargs, "sent_at": "yesterday"}, inbound))),
    ]
    rng = random.Random(seed)
    valid = json.dumps(envelope(ingest, {**good_kwargs, "message_id": "fuzz"}, inbound)).encode()
    for _ in range(10):
        data = bytearray(valid)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        out.append(("fuzzed", inbound, data.decode("utf-8", "replace")))
    return out


def envelopes(chaos: Chaos) -> dict[str, Any]:
    from adapters.settings import get_settings

    settings = get_settings()
    name = "envelopes"
    bad = bad_envelopes(settings.queue_inbound, settings.queue_cognition, f"{name}-u0")
    client = chaos.redis.client()

    def fault(window: Window) -> None:
        for _, queue, raw in bad:
            client.lpush(queue, raw)
            time.sleep(0.1)
        window.cleared_at = time.time()

    sent, window = chaos.traffic(name, 30, rate=6.0, fault_at_index=5, fault=fault)
    # A valid ingest on the wrong queue: not a gateway message (send_task routes by name), so not counted as
    # sent; were it answered, its reply would show as ``stray``.
    mid = f"{name}-wrongqueue-{uuid.uuid4().hex[:4]}"
    kwargs = {"message_id": mid, "user_id": f"{name}-u1", "text": "hello on the wrong queue",
              "sent_at": datetime.now(UTC).isoformat()}  # fmt: skip
    client.lpush(
        settings.queue_cognition, json.dumps(envelope("ella.ingest_message", kwargs, settings.queue_cognition))
    )
    chaos.wait_answered(set(sent), bound=60, settle=4)
    alive = {s: p.alive for s, p in chaos.procs.items()}
    kinds: dict[str, int] = {}
    for kind, _, _ in bad:
        kinds[kind] = kinds.get(kind, 0) + 1
    kinds["wrong_queue"] += 1
    left = {q: client.llen(q) for q in settings.queues}
    return chaos.verdict(name, sent, window, bad_envelopes=kinds, all_alive=all(alive.values()),
                         left_in_queues=left)  # fmt: skip


DEEP = 100_000  # nesting of the deep-JSON envelopes: far past any recursion limit


def deep_envelopes(inbound: str, user: str) -> list[tuple[str, str, str]]:
    """(kind, task id, raw envelope): a body nested ``DEEP`` deep, and the envelope itself nested that deep (a
    header holds the nest: kombu's own ``json.loads`` of the envelope meets it before any task code runs)."""
    deep = "[" * DEEP + "]" * DEEP
    body = envelope("ella.ingest_message", None, inbound, body=deep.encode())
    kwargs = {"message_id": "deep", "user_id": user, "text": "hi", "sent_at": datetime.now(UTC).isoformat()}
    outer = envelope("ella.ingest_message", kwargs, inbound)
    outer["headers"]["chaos_nest"] = "__DEEP__"
    return [
        ("deep_body", body["headers"]["id"], json.dumps(body)),
        ("deep_envelope", outer["headers"]["id"], json.dumps(outer).replace('"__DEEP__"', deep)),
    ]


def deep_json_envelope(chaos: Chaos) -> dict[str, Any]:
    """Both deep envelopes LPUSHed onto the inbound queue between real messages: no worker may die (a
    ``RecursionError`` in a decoder is one exception, not an exit), each must leave a dead letter, and the real
    messages around them must be answered once."""
    from sqlalchemy import create_engine, text

    from adapters.settings import get_settings

    settings = get_settings()
    name = "deep_json_envelope"
    deep = deep_envelopes(settings.queue_inbound, f"{name}-u0")
    client = chaos.redis.client()
    engine = create_engine(chaos.db_url)
    with engine.connect() as conn:
        before = int(conn.scalar(text("SELECT coalesce(max(id), 0) FROM dead_letters")) or 0)

    def fault(window: Window) -> None:
        for _, _, raw in deep:
            client.lpush(settings.queue_inbound, raw)
            time.sleep(0.2)
        window.cleared_at = time.time()

    try:
        sent, window = chaos.traffic(name, 20, rate=6.0, fault_at_index=5, fault=fault)
        chaos.wait_answered(set(sent), bound=60, settle=4)
        deadline = time.monotonic() + 20
        while True:
            with engine.connect() as conn:
                letters = conn.execute(text("SELECT task_id, reason FROM dead_letters WHERE id > :b"),
                                       {"b": before}).all()  # fmt: skip
            ids = {r.task_id for r in letters}
            body_letter = deep[0][1] in ids
            # The envelope's own nest may hide its task id from whatever records it: any other new dead letter
            # counts for it (no other fault runs meanwhile, and the real messages leave none).
            envelope_letter = deep[1][1] in ids or len([r for r in letters if r.task_id != deep[0][1]]) > 0
            if (body_letter and envelope_letter) or time.monotonic() > deadline:
                break
            time.sleep(1)
    finally:
        engine.dispose()
    alive = all(p.alive for p in chaos.procs.values())
    left = client.llen(settings.queue_inbound)
    problems = []
    if not body_letter:
        problems.append("no dead letter for the envelope whose body is nested 100,000 deep")
    if not envelope_letter:
        problems.append("no dead letter for the envelope nested 100,000 deep itself")
    return chaos.verdict(name, sent, window, deep_envelopes=[k for k, _, _ in deep], all_alive=alive,
                         dead_letters=[r.reason[:120] for r in letters], left_in_inbound=left,
                         problems=problems)  # fmt: skip


FAULTS = {"envelopes": envelopes, "deep_json_envelope": deep_json_envelope}
