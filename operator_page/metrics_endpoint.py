"""``ella metrics serve``: the Prometheus endpoint that sums every worker's, beat's and command's samples.

Why apart from the families (``adapters.metrics``): the families are counted in every process, from the adapters
and the tasks; reading them (the files of every process group, the queue depths from Redis at scrape time) and
serving them behind basic auth is the operator's side, beside ``ella inspect``'s page, whose auth middleware it
reuses. The multiprocess rules are in ``adapters.metrics``'s docstring.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

# adapters.metrics chooses the multiprocess directory even when the client was imported first (it resets the
# client's value class then), so the import order here does not matter.
from adapters.metrics import BROKER_UP, MULTIPROC_ENV, QUEUE_DEPTH
from adapters.settings import get_settings

# --- reading: the scrape --------------------------------------------------------------------------------------


def reader_root() -> Path | None:
    """Where the endpoint reads: ``ELLA_METRICS_DIR`` (every group under it), else ``PROMETHEUS_MULTIPROC_DIR``."""
    root = get_settings().metrics_dir
    if root is not None:
        return root
    single = os.environ.get(MULTIPROC_ENV)
    return Path(single) if single else None


class FilesCollector:
    """The sums of every process's files under ``root`` (its own ``*.db`` and those of each group directory)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[str]:
        return sorted(glob.glob(str(self.root / "*.db")) + glob.glob(str(self.root / "*" / "*.db")))

    def collect(self) -> Iterable[Metric]:
        try:
            return list(MultiProcessCollector.merge(self.files(), accumulate=True))
        except FileNotFoundError:  # a group started (and wiped its own directory) between the glob and the read
            return list(MultiProcessCollector.merge(self.files(), accumulate=True))


def _queue_keys(queue: str) -> list[str]:
    """A queue's lists in kombu's Redis transport: the queue and its priority lists (``"\\x06\\x16"`` + 3, 6, 9)."""
    return [queue, *(f"{queue}\x06\x16{p}" for p in (3, 6, 9))]


class QueueDepthCollector:
    """``ella_queue_depth{queue}`` from Redis list lengths at scrape time, and ``ella_broker_up``."""

    def __init__(self, client: Any = None) -> None:
        self.client = client

    def _client(self) -> Any:
        if self.client is not None:
            return self.client
        import redis

        settings = get_settings()
        # driver_info=None: no CLIENT SETINFO on connecting (Redis 7.2+), which the metrics user may not send; a
        # new connection per scrape would log two ACL refusals each time.
        if settings.redis_url:
            return redis.Redis.from_url(
                settings.redis_url, socket_timeout=2, socket_connect_timeout=2, driver_info=None
            )
        sock = settings.embedded_redis_socket
        if not sock.exists():
            return None
        return redis.Redis(unix_socket_path=str(sock), socket_timeout=2, driver_info=None)

    def collect(self) -> Iterator[Metric]:
        import redis

        queues = list(get_settings().queues)
        up = GaugeMetricFamily(BROKER_UP, "1 when the endpoint could read the queue lengths from Redis.")
        depth = GaugeMetricFamily(QUEUE_DEPTH, "Tasks waiting in a queue (its Redis lists), read at scrape time.",
                                  labels=["queue"])  # fmt: skip
        client = self._client()
        try:
            if client is None:
                raise redis.ConnectionError("no Redis configured and no embedded one running")
            pipe = client.pipeline(transaction=False)
            for queue in queues:
                for key in _queue_keys(queue):
                    pipe.llen(key)
            lengths = pipe.execute()
        except redis.RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        for i, queue in enumerate(queues):
            depth.add_metric([queue], sum(lengths[i * 4 : i * 4 + 4]))
        yield up
        yield depth


def registry(root: Path | None = None, queues: QueueDepthCollector | None = None) -> CollectorRegistry:
    """What a scrape reads: every process's files under ``root`` (else this process's own registry) and the
    queue depths."""
    from prometheus_client import REGISTRY

    reg = CollectorRegistry(auto_describe=False)
    if root is not None:
        reg.register(FilesCollector(root))  # type: ignore[arg-type]
    else:
        reg.register(_Delegate(REGISTRY))  # type: ignore[arg-type]
    reg.register(queues or QueueDepthCollector())  # type: ignore[arg-type]
    return reg


class _Delegate:
    def __init__(self, inner: CollectorRegistry) -> None:
        self.inner = inner

    def collect(self) -> Iterable[Metric]:
        return list(self.inner.collect())


def scrape(root: Path | None = None, queues: QueueDepthCollector | None = None) -> bytes:
    """The text format of one scrape."""
    return generate_latest(registry(root, queues))


# --- the endpoint ---------------------------------------------------------------------------------------------

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 9464
REALM = 'Basic realm="ella metrics", charset="UTF-8"'
REFUSAL = "refusing to start `ella metrics serve` without auth: set ELLA_METRICS_BASIC_AUTH=user:password"
NO_DIRECTORY = "refusing to start `ella metrics serve` without ELLA_METRICS_DIR (the workers' metrics directory)"


def credentials() -> list[str]:
    secret = get_settings().metrics_basic_auth
    value = secret.get_secret_value() if secret is not None else ""
    return [value] if ":" in value else []


def app(auth: list[str] | None = None, root: Path | None = None, queues: QueueDepthCollector | None = None) -> Any:
    """The ASGI app: ``/metrics`` (every path behind basic auth, as ``ella inspect``'s). Raises ``ValueError``
    without credentials: the metrics are never served open."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from operator_page.page import BasicAuth

    given = credentials() if auth is None else auth
    if not any(":" in c for c in given):
        raise ValueError(REFUSAL)
    where = root if root is not None else reader_root()

    def metrics(request: Request) -> Response:
        return Response(scrape(where, queues), media_type=CONTENT_TYPE_LATEST)

    class MetricsAuth(BasicAuth):
        """``ella inspect``'s middleware with this endpoint's realm."""

        async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
            async def send_with_realm(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and message["status"] == 401:
                    message = {**message, "headers": [(b"www-authenticate", REALM.encode()),
                                                      (b"content-type", b"text/plain; charset=utf-8")]}  # fmt: skip
                await send(message)

            await super().__call__(scope, receive, send_with_realm)

    return Starlette(routes=[Route("/metrics", metrics)], middleware=[Middleware(MetricsAuth, credentials=given)])


def serve(host: str = LOOPBACK, port: int = DEFAULT_PORT) -> int:
    """Run the endpoint with uvicorn until interrupted; 2 without credentials or a directory (nothing started)."""
    import uvicorn

    given = credentials()
    if not given:
        print(REFUSAL, file=sys.stderr, flush=True)
        return 2
    root = reader_root()
    if root is None:
        print(NO_DIRECTORY, file=sys.stderr, flush=True)
        return 2
    root.mkdir(parents=True, exist_ok=True)
    print(f"ella metrics: serving {root} on http://{host}:{port}/metrics ({datetime.now(UTC):%H:%M:%S} UTC)",
          file=sys.stderr, flush=True)  # fmt: skip
    uvicorn.run(app(given, root), host=host, port=port, log_level="info", access_log=False)
    return 0
