"""The suite's own Redis and PostgreSQL processes, on free ports in a temp dir, never the shared 6379/5432.

Why private servers: the faults stop, kill -9 and restart them, which would break every other run on the
machine's shared servers. Redis runs as deployed (docker-compose.yml's ``redis`` command, nothing more): AOF with
an fsync a second, noeviction, and the image's default snapshots (``save`` left as Redis ships it, so a
``dump.rdb`` is written as in production); its data dir is what the erasure's disk scan reads. PostgreSQL's
``initdb`` refuses to run as root, so as root the cluster is made and run as the ``postgres`` user
(``runuser``), which owns its directory.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(predicate, timeout: float, what: str, interval: float = 0.1) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout}s")
        time.sleep(interval)


class RedisServer:
    """``redis-server`` as compose runs it; its AOF under ``directory`` survives a kill and a restart."""

    def __init__(self, directory: Path) -> None:
        self.directory, self.port = directory, free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, decode_responses=True)

    def answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def start(self) -> RedisServer:
        argv = [
            shutil.which("redis-server") or "redis-server",
            "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
            "--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy", "noeviction",
            "--logfile", str(self.directory / "redis.log"),
        ]  # fmt: skip
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self.answers, 30, "redis-server answers PING")
        return self

    def shutdown(self) -> None:
        """SHUTDOWN: the clean stop (the AOF is flushed)."""
        try:
            self.client().shutdown()
        except redis.RedisError:
            pass
        if self.proc is not None:
            self.proc.wait(30)

    def kill9(self) -> None:
        """kill -9: what the last second of writes (appendfsync everysec) may lose."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.shutdown()

    def persistence_idle(self) -> bool:
        """No AOF rewrite and no snapshot in progress or scheduled (what is on disk is what will stay)."""
        try:
            info = self.client().info("persistence")
        except redis.RedisError:
            return False
        busy = ("aof_rewrite_in_progress", "aof_rewrite_scheduled", "rdb_bgsave_in_progress")
        return not any(int(info.get(k) or 0) for k in busy)

    def data_files(self) -> list[Path]:
        """Every file of the data dir (the AOF directory's parts, ``dump.rdb``), the server's log left out."""
        return sorted(p for p in self.directory.rglob("*") if p.is_file() and p.name != "redis.log")


class PostgresCluster:
    """A throwaway cluster (``initdb`` + ``pg_ctl``) listening on 127.0.0.1 on a free port."""

    def __init__(self, directory: Path) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        if not found:
            raise RuntimeError("no /usr/lib/postgresql/*/bin/initdb: install PostgreSQL to run the chaos suite")
        self.bin = Path(found[-1]).parent
        self.directory, self.port = directory, free_port()
        self.data = directory / "data"
        # initdb refuses root: run the cluster as postgres, who must own (and reach) its directory.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *argv: str, timeout: float = 120) -> None:
        subprocess.run([*self.as_user, *argv], check=True, timeout=timeout, capture_output=True)

    def init(self) -> PostgresCluster:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.as_user:
            shutil.chown(self.directory, "postgres")
            os.chmod(self.directory.parent, 0o755)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        return self

    def pg_ctl(self, action: str, *extra: str) -> None:
        # fsync=off: a restart is a clean shutdown (a checkpoint), so durability is not what is measured.
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.directory / "pg.log"),
            "-o", options, "-w", "-t", "60", *extra, action,
        )  # fmt: skip

    def start(self) -> PostgresCluster:
        self.pg_ctl("start")
        return self

    def checkpoint(self) -> None:
        """CHECKPOINT: every dirty page written to the heap files, so a scan of ``base/`` sees what is stored."""
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute("CHECKPOINT")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is cut, the server is back in a second or two."""
        self.pg_ctl("restart", "-m", "fast")

    def stop(self) -> None:
        try:
            self.pg_ctl("stop", "-m", "immediate")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
