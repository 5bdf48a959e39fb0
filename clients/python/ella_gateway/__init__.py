"""The gateway's client of Ella's back end: send the gateway tasks, read the outbox stream (docs/gateway.md).

Why a package of its own: a gateway must not install the back end (SQLAlchemy, the model SDK, the guard's data)
to talk to it. This imports only ``celery`` (to send protocol-2 task messages) and ``redis`` (the inbox and the
stream); names and URLs come from the same environment variables the back end reads, or from ``GatewayConfig``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import redis
from celery import Celery

__all__ = ["Gateway", "GatewayConfig", "OutboxReader"]


@dataclass(frozen=True)
class GatewayConfig:
    redis_url: str = "redis://127.0.0.1:6379/0"
    queue: str = "inbound"
    outbox_stream: str = "ella:outbox"
    key_prefix: str = "ella"
    inbox_recheck_after_s: float = 20.0
    # The deployment's gateway signing key (ELLA_GATEWAY_SIGNING_KEY): forgets, exports and corrections are signed
    # with it (docs/gateway.md, signed requests). None: sent unsigned, which only a deployment without a key runs.
    signing_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> GatewayConfig:
        env = os.environ if environ is None else environ
        return cls(
            redis_url=env.get("ELLA_REDIS_URL", cls.redis_url),
            queue=env.get("ELLA_QUEUE_INBOUND", cls.queue),
            outbox_stream=env.get("ELLA_OUTBOX_STREAM", cls.outbox_stream),
            key_prefix=env.get("ELLA_REDIS_KEY_PREFIX", cls.key_prefix),
            inbox_recheck_after_s=float(env.get("ELLA_INBOX_RECHECK_AFTER_S", cls.inbox_recheck_after_s)),
            signing_key=env.get("ELLA_GATEWAY_SIGNING_KEY") or None,
        )


SIGNED_TASKS = frozenset({"ella.forget_user", "ella.export_user", "ella.forget_memory", "ella.correct_fact",
                          "ella.list_memory", "ella.search_memory"})  # fmt: skip


def signature(key: str, task: str, kwargs: dict[str, Any]) -> str:
    """HMAC-SHA256 (hex) over "ella-request-v1", the task name and each kwarg but ``signature``, sorted by name, as
    ``name=value`` (strings as they are, integers in decimal, true/false; null left out), joined by NUL: the
    canonical form of docs/gateway.md, the same as the back end's ella/signing.py."""

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | str):
            return str(value)
        raise TypeError(f"a {type(value).__name__} cannot be signed")

    parts = ["ella-request-v1", task]
    parts += [
        f"{name}={text(kwargs[name])}" for name in sorted(kwargs) if name != "signature" and kwargs[name] is not None
    ]
    return hmac.new(key.encode(), "\x00".join(parts).encode("utf-8"), hashlib.sha256).hexdigest()


def _iso(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


@dataclass
class Gateway:
    """Send the gateway's tasks (all on the inbound queue, kwargs only) and read Ella's outbox."""

    config: GatewayConfig = field(default_factory=GatewayConfig.from_env)

    def __post_init__(self) -> None:
        self.redis = redis.Redis.from_url(self.config.redis_url, decode_responses=True)
        self.celery = Celery("ella-gateway", broker=self.config.redis_url)
        self.celery.conf.update(task_serializer="json", accept_content=["json"], task_protocol=2)

    @classmethod
    def from_env(cls) -> Gateway:
        return cls(GatewayConfig.from_env())

    def _send(self, task: str, kwargs: dict[str, Any], shown: dict[str, Any]) -> str:
        if self.config.signing_key and task in SIGNED_TASKS:
            kwargs = {**kwargs, "signature": signature(self.config.signing_key, task, kwargs)}
        result = self.celery.send_task(
            task, kwargs=kwargs, queue=self.config.queue, routing_key=self.config.queue, kwargsrepr=repr(shown)
        )
        return str(result.id)

    def remember(self, kwargs: dict[str, Any]) -> None:
        """Record a message in Ella's inbox before sending it (the re-send protocol, docs/gateway.md section 4)."""
        key = json.dumps([kwargs.get("user_id"), kwargs["message_id"]], ensure_ascii=True)
        now = time.time()
        prefix = f"{self.config.key_prefix}:inbox"
        pipe = self.redis.pipeline()
        pipe.hset(f"{prefix}:payloads", key, json.dumps(kwargs, ensure_ascii=True))
        pipe.zadd(f"{prefix}:due", {key: now})
        pipe.zadd(f"{prefix}:checks", {key: now + self.config.inbox_recheck_after_s})
        pipe.execute()

    def enqueue_message(
        self,
        *,
        message_id: str,
        user_id: str,
        text: str,
        sent_at: datetime | str,
        conversation_id: str | None = None,
    ) -> str:
        kwargs = {"message_id": message_id, "user_id": user_id, "text": text, "sent_at": _iso(sent_at)}
        if conversation_id is not None:
            kwargs["conversation_id"] = conversation_id
        self.remember(kwargs)
        return self._send("ella.ingest_message", kwargs, {"message_id": message_id, "text": f"<{len(text)} chars>"})

    def update_profile(
        self,
        *,
        user_id: str,
        updated_at: datetime | str,
        timezone: str,
        locale: str,
        is_minor: bool,
        do_not_disturb: str | None,
        active_hours: str,
        notifications: bool,
    ) -> str:
        kwargs = {"user_id": user_id, "updated_at": _iso(updated_at), "timezone": timezone, "locale": locale,
                  "is_minor": is_minor, "do_not_disturb": do_not_disturb, "active_hours": active_hours,
                  "notifications": notifications}  # fmt: skip
        return self._send("ella.update_profile", kwargs, {"updated_at": kwargs["updated_at"]})

    def forget_user(self, *, user_id: str) -> str:
        return self._send("ella.forget_user", {"user": user_id}, {"user": "<erased>"})

    def export_user(self, *, request_id: str, user_id: str, reason: str = "") -> str:
        kwargs = {"request_id": request_id, "user_id": user_id, "reason": reason}
        return self._send("ella.export_user", kwargs, {"request_id": request_id})

    def forget_memory(self, *, request_id: str, user_id: str, item: str, reason: str = "") -> str:
        kwargs = {"request_id": request_id, "user_id": user_id, "item": item, "reason": reason}
        return self._send("ella.forget_memory", kwargs, {"request_id": request_id, "item": item})

    def correct_fact(self, *, request_id: str, user_id: str, item: str, value: str, reason: str = "") -> str:
        kwargs = {"request_id": request_id, "user_id": user_id, "item": item, "value": value, "reason": reason}
        return self._send("ella.correct_fact", kwargs, {"request_id": request_id, "item": item})

    def outbox_reader(self, group: str, consumer: str, *, start_id: str = "0") -> OutboxReader:
        return OutboxReader(self.redis, self.config.outbox_stream, group, consumer, start_id=start_id)


class OutboxReader:
    """A consumer in the gateway's consumer group of the outbox stream: pending entries first, then new ones."""

    def __init__(self, client: redis.Redis, stream: str, group: str, consumer: str, *, start_id: str = "0") -> None:
        self.client, self.stream, self.group, self.consumer = client, stream, group, consumer
        self._pending_first = True
        try:
            client.xgroup_create(stream, group, id=start_id, mkstream=True)
        except redis.exceptions.NoPermissionError:
            pass  # the gateway's Redis user may not create groups: Ella's workers made it (ELLA_OUTBOX_GROUPS)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    def read(self, count: int = 100, block_ms: int | None = 1000) -> list[dict[str, str]]:
        """Entries as dicts of strings, each with its ``stream_id``; an id with no fields is acknowledged and
        skipped (the spec's empty-entry case)."""
        start = "0" if self._pending_first else ">"
        response = self.client.xreadgroup(self.group, self.consumer, {self.stream: start}, count=count,
                                          block=None if self._pending_first else block_ms)  # fmt: skip
        pairs = response.items() if isinstance(response, dict) else (response or [])
        out: list[dict[str, str]] = []
        empty: list[str] = []
        for _stream, items in pairs:
            for stream_id, fields in items:
                if fields:
                    out.append({**fields, "stream_id": stream_id})
                else:
                    empty.append(stream_id)
        if empty:
            self.client.xack(self.stream, self.group, *empty)
        if self._pending_first and not out:
            self._pending_first = False
            return self.read(count, block_ms)
        return out

    def ack(self, *entries: dict[str, str]) -> int:
        ids = [e["stream_id"] for e in entries]
        return int(self.client.xack(self.stream, self.group, *ids)) if ids else 0
