"""Redis going away and coming back: workers and beat reconnect on their own and lose nothing.

These tests run their own ``redis-server`` on a free port in a temp dir, so they can shut it down and start it
again without touching the Redis the other tests share.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from kombu import Connection, Exchange
from kombu import Queue as KombuQueue

from tests.conftest import VAR, on_one_backend, wait_for

# The worker tests below run on one back end (``on_one_backend``): what they test is the broker connection (Redis
# going away and coming back, a consumer step failing); their tasks touch no SQL, so no back end can change the
# outcome, and each run on both was a minute of Redis outages twice.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class OwnRedis:
    """A redis-server this test may stop and start; with AOF, as compose runs it, so keys survive a restart."""

    port: int
    directory: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=2)

    def start(self) -> None:
        subprocess.run(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
             "--appendfsync", "always", "--dir", str(self.directory), "--daemonize", "yes",
             "--logfile", str(self.directory / "redis.log"), "--pidfile", str(self.directory / "redis.pid")],
            check=True,
        )  # fmt: skip
        wait_for(self._answers, 20, what=f"redis-server on port {self.port}")

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        try:
            self.client().shutdown(nosave=True)
        except redis.RedisError:
            pass  # shutdown closes the connection under the reply
        wait_for(lambda: not self._answers(), 20, what="redis-server to stop")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(free_port(), tmp_path)
    server.start()
    yield server
    if server._answers():
        server.stop()


def test_closing_a_channel_whose_connection_was_collected_leaves_its_unacked_deliveries_for_restore(own_redis):
    """kombu#582: the worker's reconnect closed a channel after ``collect()`` and died on ``None.hostname``.

    The state is the one in the worker's traceback: a channel with an unacked delivery whose transport has lost
    its client (``Connection.collect`` ran, its channel loop stopped early on the dead socket).
    """
    import workers.app  # noqa: F401  (installs the workaround)

    queue = KombuQueue(f"kq-{uuid.uuid4().hex[:6]}", Exchange("kq"), "kq")
    conn = Connection(own_redis.url, transport_options={"visibility_timeout": 1})
    with conn.Producer() as producer:
        producer.publish({"n": 1}, exchange=queue.exchange, routing_key="kq", declare=[queue])
    channel = conn.channel()
    received: list[object] = []
    consumer = conn.Consumer(queue, channel=channel, callbacks=[lambda _body, message: received.append(message)])
    consumer.consume()
    conn.drain_events(timeout=5)
    assert received, "the delivery never came"
    conn._do_close_transport()  # what collect() does last: the transport forgets its client

    channel.close()  # raised AttributeError("'NoneType' object has no attribute 'hostname'") before the fix

    # The delivery is still in the unacked hash: any worker's restore_visible puts it back once it is due.
    assert own_redis.client().hlen("unacked") == 1
    fresh = Connection(own_redis.url, transport_options={"visibility_timeout": 1})
    time.sleep(1.1)  # past the 1 s visibility timeout (not a timed assertion: restore needs it to have passed)
    fresh.default_channel.qos.restore_visible(num=10)
    assert own_redis.client().llen(queue.name) == 1
    fresh.release()


def test_closing_a_channel_then_acking_or_rejecting_its_deliveries_leaves_them_unacked_for_restore(own_redis):
    """Issue 24.1: a task that finished (ack) or could not send its retry (reject) after the worker's reconnect
    closed its channel died on ``AttributeError: 'NoneType' object has no attribute 'client'``.

    Both must leave the delivery in the unacked hash, whence ``restore_visible`` puts it back on its queue.
    """
    import workers.app  # noqa: F401  (installs workers.broker_patches)

    queue = KombuQueue(f"kq-{uuid.uuid4().hex[:6]}", Exchange("kq"), "kq")
    conn = Connection(own_redis.url, transport_options={"visibility_timeout": 1})
    with conn.Producer() as producer:
        for n in range(3):
            producer.publish({"n": n}, exchange=queue.exchange, routing_key="kq", declare=[queue])
    channel = conn.channel()
    channel.basic_qos(0, 3, False)
    received: list[object] = []
    consumer = conn.Consumer(queue, channel=channel, callbacks=[lambda _body, message: received.append(message)])
    consumer.consume()
    while len(received) < 3:
        conn.drain_events(timeout=5)
    conn._do_close_transport()  # what the consumer's reconnect does: collect() ...
    channel.close()  # ... then close the channel (its connection becomes None, its pool is dropped)

    acked, rejected, requeued = received
    acked.ack()  # each raised AttributeError("'NoneType' object has no attribute 'client'") before the fix
    rejected.reject(requeue=False)
    requeued.reject(requeue=True)

    assert own_redis.client().hlen("unacked") == 3
    fresh = Connection(own_redis.url, transport_options={"visibility_timeout": 1})
    time.sleep(1.1)  # past the 1 s visibility timeout (not a timed assertion: restore needs it to have passed)
    fresh.default_channel.qos.restore_visible(num=10)
    assert own_redis.client().llen(queue.name) == 3
    fresh.release()


def test_a_retry_that_cannot_be_sent_requeues_its_delivery_instead_of_dropping_it():
    """Celery answers a retry it could not publish with ``Reject(requeue=False)``: the worker then deleted the
    delivery from the unacked hash, and the task was lost whenever Redis was back by the time of the reject."""
    from celery.exceptions import Reject

    from adapters.settings import get_settings
    from tests.support.outage_tasks import mark_done_in_redis

    queue = get_settings().queue_cognition
    nobody = Connection(f"redis://127.0.0.1:{free_port()}/0")  # no Redis there: the broker is away
    mark_done_in_redis.push_request(
        id=f"t-{uuid.uuid4().hex[:6]}",
        retries=0,
        called_directly=False,
        is_eager=False,
        delivery_info={"exchange": "", "routing_key": queue},
        kwargs={"key": "k", "marker": "m"},
    )
    try:
        with pytest.raises(Reject) as rejected:
            mark_done_in_redis.retry(
                exc=redis.ConnectionError("Redis went away"),
                countdown=0,
                connection=nobody,
                retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0, "interval_max": 0},
            )
    finally:
        mark_done_in_redis.pop_request()
        nobody.release()
    assert rejected.value.requeue is True


def _start_worker(
    own_redis: OwnRedis, migrated_db: str, log: Path, tasks: str = "tests.support.slow_tasks"
) -> subprocess.Popen[bytes]:
    """A real worker on every queue of this run, on ``own_redis``, with the test tasks of module ``tasks``."""
    from adapters.settings import get_settings
    from workers.procs import WorkerProcess

    worker = WorkerProcess(
        queues=list(get_settings().queues),
        concurrency=4,
        log_path=log,
        env={"ELLA_REDIS_URL": own_redis.url, "ELLA_DATABASE_URL": migrated_db},
        extra_args=["-I", tasks],
    ).start()
    assert worker.proc is not None
    return worker.proc


@pytest.mark.integration
@on_one_backend()
def test_a_worker_reconnects_after_redis_restarts_under_load_and_runs_new_tasks(own_redis, migrated_db):
    """On one back end: Redis restarts under a worker running ``tests.hold_a_while``, which touches no SQL."""
    log = VAR / "log" / f"faults-{uuid.uuid4().hex[:6]}.log"
    proc = _start_worker(own_redis, migrated_db, log)

    def send(n: int, seconds: float) -> None:
        from adapters.settings import get_settings
        from workers.app import app

        with app.connection_for_write(url=own_redis.url) as conn:
            for _ in range(n):
                app.send_task(
                    "tests.hold_a_while",
                    kwargs={"seconds": seconds},
                    queue=get_settings().queue_cognition,
                    connection=conn,
                )

    try:
        wait_for(lambda: "ready" in log.read_text(errors="replace"), 60, what="the worker to start")
        for _ in range(3):
            send(30, 0.3)
            wait_for(lambda: own_redis.client().hlen("unacked") > 0, 20, what="deliveries in flight")
            own_redis.stop()
            time.sleep(1)  # an outage, not a timed assertion
            own_redis.start()
            assert proc.poll() is None, f"worker exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
        done_before = log.read_text(errors="replace").count("succeeded")
        send(1, 0.0)
        wait_for(
            lambda: log.read_text(errors="replace").count("succeeded") > done_before,
            60,
            what="a task sent after the restarts to run",
        )
        assert proc.poll() is None
        assert "Unrecoverable error" not in log.read_text(errors="replace")
    finally:
        _stop(proc)


@pytest.mark.integration
@on_one_backend()
def test_a_worker_that_lost_redis_tries_again_every_two_seconds_at_most_and_comes_back(own_redis, migrated_db):
    """Celery's consumer reconnected with kombu's default intervals (2, 4, 6, 8... up to 30 s): after a 10-20 s
    outage the next attempt came seconds after Redis was back, and ``make chaos``'s Redis faults recovered just
    past 30 s. ``workers.consumer.EllaConsumer`` caps the wait at ``broker_reconnect_max_s`` (2 s); its log says
    what it waits ("Trying again in N seconds"), which is read here rather than timed.

    On one back end: the consumer's reconnect to Redis is all this runs (no task, no SQL)."""
    log = VAR / "log" / f"reconnect-{uuid.uuid4().hex[:6]}.log"
    proc = _start_worker(own_redis, migrated_db, log)
    try:
        wait_for(lambda: "ready" in log.read_text(errors="replace"), 60, what="the worker to start")
        own_redis.stop()
        waits = lambda: re.findall(r"Trying again in ([0-9.]+) seconds", log.read_text(errors="replace"))  # noqa: E731
        wait_for(lambda: len(waits()) >= 5, 60, what="five reconnect attempts")
        own_redis.start()
        wait_for(lambda: "Connected to redis" in log.read_text(errors="replace").split("Trying again")[-1], 30,
                 what="the worker to reconnect")  # fmt: skip
        assert max(float(w) for w in waits()) <= 2.0, waits()  # kombu's defaults: 2, 4, 6, 8, 10
        assert proc.poll() is None
    finally:
        _stop(proc)


def _start_beat(own_redis: OwnRedis, log: Path, prefix: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ELLA_REDIS_URL": own_redis.url, "ELLA_REDIS_KEY_PREFIX": prefix}
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.app", "beat", "-S", "redbeat.RedBeatScheduler",
             "-l", "INFO"],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def _stop(proc: subprocess.Popen[bytes]) -> int | None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    return proc.returncode


@pytest.mark.integration
def test_beat_survives_a_redis_outage_and_keeps_scheduling(own_redis, tmp_path):
    prefix = f"bt{uuid.uuid4().hex[:6]}"
    lock_key = f"{prefix}:redbeat::lock"
    log = tmp_path / "beat.log"
    beat = _start_beat(own_redis, log, prefix)
    try:
        wait_for(lambda: own_redis.client().exists(lock_key), 60, what="beat to take its lock")
        own_redis.stop()
        time.sleep(3)  # an outage of a few ticks, not a timed assertion
        assert beat.poll() is None, f"beat exited with {beat.returncode} during the outage:\n{log.read_text()[-2000:]}"
        own_redis.start()
        client = own_redis.client()
        # Beat sends its due jobs again: the inbox sweep (every 2 s in tests) lands on its queue.
        from adapters.settings import get_settings

        inbound = get_settings().queue_inbound
        client.delete(inbound)
        wait_for(lambda: client.llen(inbound) > 0, 60, what="beat to send a job after Redis came back")
        assert client.exists(lock_key), "beat runs without holding its lock"
        assert beat.poll() is None
    finally:
        _stop(beat)


def test_a_beat_that_died_holding_its_lock_blocks_its_successor_for_at_most_the_lock_timeout():
    """The lock is extended on every tick, at most ``beat_max_loop_interval_s`` apart; its TTL is what a
    restarted beat waits when the last one died with Redis away (it was 300 s)."""
    from adapters.settings import Settings
    from workers.app import celery_config

    config = celery_config(Settings())
    assert config["redbeat_lock_timeout"] <= 60
    assert config["redbeat_lock_timeout"] >= 3 * config["beat_max_loop_interval"]


def test_settings_refuse_a_beat_lock_that_a_slow_tick_would_lose():
    from pydantic import ValidationError

    from adapters.settings import Settings

    with pytest.raises(ValidationError, match="beat_lock_timeout_s"):
        Settings(beat_max_loop_interval_s=30, beat_lock_timeout_s=60)


@pytest.mark.integration
@on_one_backend()
def test_a_worker_that_hits_an_unrecoverable_error_exits_non_zero(migrated_db, tmp_path):
    """``ella worker`` exited 0 after "Unrecoverable error": Celery's ``app.start`` drops the exit code.

    (``celery -A workers.app worker`` itself exits 1 there; compose runs that, the CLI and the demo run this.)
    On one back end: a consumer step that fails to start, before any task or SQL."""
    from adapters.redis_conn import redis_url

    log = tmp_path / "worker.log"
    queue = f"unrecoverable-{uuid.uuid4().hex[:6]}"  # its own queue: it must take no task of the other tests
    env = {**os.environ, "ELLA_DATABASE_URL": migrated_db, "ELLA_REDIS_URL": redis_url(), "ELLA_QUEUE_BATCH": queue}
    with open(log, "wb") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "cli.main", "worker", "-I", "tests.support.broken_consumer", "-P", "solo",
             "--without-gossip", "--without-mingle", "-Q", queue],
            env=env, stdout=out, stderr=subprocess.STDOUT, timeout=120,
        )  # fmt: skip
    text = log.read_text(errors="replace")
    assert "Unrecoverable error" in text, text[-2000:]
    assert proc.returncode != 0


@pytest.mark.integration
@on_one_backend()
def test_a_worker_whose_running_tasks_are_cut_off_by_redis_outages_stays_alive_and_finishes_them(
    own_redis, migrated_db
):
    """Issue 24.1: the worker died ("Unrecoverable error: AttributeError: 'NoneType' object has no attribute
    'client'") acking or rejecting, through the channel its reconnect had closed, a delivery that was running when
    Redis went away; and tasks were lost on the way: Celery terminates the running late-ack tasks at the
    connection loss, fails to mark them cancelled (its result backend is the same Redis) and then acked them as
    revoked (16 of 32 lost before ``workers.broker_patches``).

    Four outages, each with tasks running: the same worker process runs on, and every task finishes once Redis
    is back. Each outage begins with the queue empty: a message BRPOP pops as Redis shuts down is lost inside
    kombu whatever Ella does (README, "No Redis fault kills a worker process"), and is not what this test is about.
    (A retry that cannot be sent is ``test_a_retry_that_cannot_be_sent_requeues_its_delivery_...``.)
    On one back end: ``tests.mark_done_in_redis`` keeps its marks in Redis, and no SQL runs.
    """
    from adapters.settings import get_settings

    log = VAR / "log" / f"outage-retry-{uuid.uuid4().hex[:6]}.log"
    worker = _start_worker(own_redis, migrated_db, log, "tests.support.outage_tasks")
    pid = worker.pid
    done_key = f"done-{uuid.uuid4().hex[:6]}"
    queue = get_settings().queue_cognition
    rounds, per_round = 4, 8  # 4 run at once: 4 are reserved, the other 4 run into the outage

    def send(batch: list[str]) -> None:
        from workers.app import app

        with app.connection_for_write(url=own_redis.url) as conn:
            for marker in batch:
                app.send_task(
                    "tests.mark_done_in_redis",
                    kwargs={"key": done_key, "marker": marker, "seconds": 1.0},
                    queue=queue,
                    connection=conn,
                )

    def running_with_the_queue_empty() -> bool:
        client = own_redis.client()
        try:
            return client.llen(queue) == 0 and client.hlen("unacked") > 0
        except redis.RedisError:
            return False

    try:
        wait_for(lambda: "ready" in log.read_text(errors="replace"), 60, what="the worker to start")
        markers = [f"m{i}" for i in range(rounds * per_round)]
        for round_ in range(rounds):
            send(markers[round_ * per_round : (round_ + 1) * per_round])
            wait_for(running_with_the_queue_empty, 60, what="tasks running and none left on the queue")
            own_redis.stop()
            time.sleep(2)  # longer than the tasks' hold, so the running ones hit the outage (not a timed assertion)
            own_redis.start()
            assert worker.poll() is None, f"worker exited with {worker.returncode}:\n{log.read_text()[-4000:]}"
        wait_for(
            lambda: own_redis.client().scard(done_key) == len(markers),
            180,
            what="every task to finish after the outages",
        )
        text = log.read_text(errors="replace")
        assert worker.poll() is None and worker.pid == pid
        assert "Unrecoverable error" not in text, text[-4000:]
    finally:
        _stop(worker)
