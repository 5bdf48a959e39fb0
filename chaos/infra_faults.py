"""Faults of the infrastructure: Redis shut down and killed -9 (AOF everysec), PostgreSQL restarted, the
inbound worker killed -9. Each sends 40 messages at 8/s and strikes before the 11th.

A server's fault line carries ``outage_s``, how long it was away (until it answered again): the judged bound is
on the recovery after its return (``chaos.judging``), not on the time it was down on purpose."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from chaos.harness import Chaos, Window

N, AT = 40, 10
DOWN_S = 3.0  # how long a stopped server stays away before it is started again


def _redis(chaos: Chaos, name: str, stop: Callable[[], None]) -> dict[str, Any]:
    def fault(window: Window) -> None:
        stop()
        time.sleep(DOWN_S)
        chaos.redis.start()
        window.cleared_at = time.time()

    sent, window = chaos.traffic(name, N, fault_at_index=AT, fault=fault)
    chaos.wait_answered(set(sent), bound=90, settle=14)  # visibility 10 s + restore: duplicates show
    return chaos.verdict(name, sent, window, outage_s=round(window.cleared_at - window.fault_at, 2))


def redis_shutdown(chaos: Chaos) -> dict[str, Any]:
    return _redis(chaos, "redis_shutdown", chaos.redis.shutdown)


def redis_kill9(chaos: Chaos) -> dict[str, Any]:
    return _redis(chaos, "redis_kill9", chaos.redis.kill9)


def postgres_restart(chaos: Chaos) -> dict[str, Any]:
    def fault(window: Window) -> None:
        chaos.pg.restart()
        window.cleared_at = time.time()

    sent, window = chaos.traffic("postgres_restart", N, fault_at_index=AT, fault=fault)
    chaos.wait_answered(set(sent), bound=90, settle=14)
    return chaos.verdict("postgres_restart", sent, window, outage_s=round(window.cleared_at - window.fault_at, 2))


def worker_kill9(chaos: Chaos) -> dict[str, Any]:
    """kill -9 of the inbound worker's process group mid-traffic; compose restarts it (here after 1 s)."""

    def fault(window: Window) -> None:
        chaos.procs["worker-inbound"].kill9()
        time.sleep(1)
        chaos.start("worker-inbound")
        chaos.wait_ready("worker-inbound")
        window.cleared_at = time.time()

    sent, window = chaos.traffic("worker_kill9", N, fault_at_index=AT, fault=fault)
    chaos.wait_answered(set(sent), bound=90, settle=14)
    return chaos.verdict("worker_kill9", sent, window)


FAULTS = {
    "redis_shutdown": redis_shutdown,
    "redis_kill9": redis_kill9,
    "postgres_restart": postgres_restart,
    "worker_kill9": worker_kill9,
}
