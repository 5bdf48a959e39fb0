"""Celery's worker consumer, reconnecting to a Redis that came back within seconds instead of up to 30.

Why: Celery's consumer reconnects through kombu's ``Connection.ensure_connection`` with kombu's default
intervals (2 s, then 2 s more each attempt, up to 30 s), and Celery passes no way to change them. After a Redis
outage of 10-20 s the next attempt came 6-10 s after Redis was back, and on a loaded host ``make chaos``'s
Redis faults recovered in 30.3 and 30.7 s, past the 30 s the product promises. Here the attempts start at
``broker_reconnect_start_s`` and grow by it up to ``broker_reconnect_max_s`` (settings): one cheap TCP connect
every second or two per worker while Redis is away. Configured as Celery's ``worker_consumer``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from celery.worker.consumer import Consumer

from adapters.settings import get_settings


class EllaConsumer(Consumer):  # type: ignore[misc]
    def ensure_connected(self, conn: Any) -> Any:
        settings = get_settings()
        start, most = settings.broker_reconnect_start_s, settings.broker_reconnect_max_s
        if not isinstance(conn.ensure_connection, partial):  # once per connection object
            conn.ensure_connection = partial(
                conn.ensure_connection, interval_start=start, interval_step=start, interval_max=most
            )
        return super().ensure_connected(conn)
