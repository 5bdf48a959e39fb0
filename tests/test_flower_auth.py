"""Flower, started each way the README and compose document, serves nothing without credentials.

The reproduced hole: ``celery -A workers.app flower`` served ``/``, ``/tasks``, ``/workers``, ``/broker`` and
``/metrics`` to anyone; with auth set, Flower's own ``/metrics`` and ``/healthcheck`` handlers still answered
without credentials; and it bound every interface. These tests start the real Flower as a subprocess on a
loopback port and ask every kind of path without, then with, credentials.
"""

from __future__ import annotations

import base64
import http.client
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_for

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
CREDENTIALS = "ops:s3cret-flower"
PATHS = ["/", "/tasks", "/workers", "/broker", "/metrics", "/healthcheck", "/api/workers", "/api/tasks",
         "/static/css/bootstrap.min.css", "/login", "/logout", "/no-such-page"]  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the TCP sockets listening on ``port`` (from /proc: no network probe needed)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


LOOPBACK = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1, ::1


def flower_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOWER_") and k != "ELLA_FLOWER_BASIC_AUTH"}
    return {**env, **extra}


@pytest.fixture
def flowers(tmp_path: Path) -> Iterator[list[tuple[subprocess.Popen[bytes], Path]]]:
    """Flower processes the test starts; killed at the end (nothing of theirs needs a graceful stop)."""
    started: list[tuple[subprocess.Popen[bytes], Path]] = []
    yield started
    for proc, _ in started:
        proc.kill()
        proc.wait()


def start(argv: list[str], env: dict[str, str], workdir: Path) -> tuple[subprocess.Popen[bytes], Path]:
    workdir.mkdir()
    log = workdir / "flower.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    return proc, log


def wait_listening(proc: subprocess.Popen[bytes], log: Path, port: int) -> None:
    def up() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"Flower exited {proc.returncode}: {log.read_text()[-2000:]}")
        return bool(listening_addresses(port))

    wait_for(up, timeout=120, what=f"Flower to listen on {port}")


def status(port: int, path: str, credentials: str | None = None) -> int:
    headers = {}
    if credentials is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def assert_every_path_needs_credentials(port: int) -> None:
    answers = {path: status(port, path) for path in PATHS}
    assert answers == dict.fromkeys(PATHS, 401), answers
    assert status(port, "/metrics", "ops:guess") == 401
    assert status(port, "/healthcheck", CREDENTIALS) == 200
    assert status(port, "/metrics", CREDENTIALS) == 200


def test_flower_started_either_documented_way_answers_401_everywhere_and_binds_loopback(flowers, tmp_path):
    """``celery -A workers.app flower`` (README, compose) and ``ella flower``, started side by side."""
    ports = {"celery": free_port(), "ella": free_port()}
    ways = {
        "celery": ([str(BIN / "celery"), "-A", "workers.app", "flower", f"--port={ports['celery']}"],
                   flower_env(FLOWER_BASIC_AUTH=CREDENTIALS)),
        "ella": ([str(BIN / "ella"), "flower", f"--port={ports['ella']}"],
                 flower_env(ELLA_FLOWER_BASIC_AUTH=CREDENTIALS)),
    }  # fmt: skip
    for way, (argv, env) in ways.items():
        flowers.append(start(argv, env, tmp_path / way))
    for (proc, log), port in zip(flowers, ports.values(), strict=True):
        wait_listening(proc, log, port)
    for port in ports.values():
        assert listening_addresses(port) <= LOOPBACK, listening_addresses(port)
        assert_every_path_needs_credentials(port)


def test_celery_flower_without_credentials_refuses_to_start(flowers, tmp_path):
    port = free_port()
    argv = [str(BIN / "celery"), "-A", "workers.app", "flower", f"--port={port}"]
    proc, log = start(argv, flower_env(), tmp_path / "celery")
    flowers.append((proc, log))
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("Flower started without credentials")
    assert code != 0 and not listening_addresses(port)
    assert "refusing to start Flower without auth" in log.read_text()
