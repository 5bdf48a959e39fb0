"""The tests' forked workers (tests/support/worker_zygote.py) are real workers on the test's own environment.

Why these tests: a worker forked from the warmed zygote must be indistinguishable, for what a test observes, from
one started as ``python -m celery ... worker``: it reads the environment the test gave it (not the zygote's), its
exit code reaches the test, and a kill reaches its whole group.
"""

from __future__ import annotations

import signal
import uuid

import pytest

from tests.conftest import FORK_WORKERS, VAR, on_one_backend, zygote
from workers.procs import WorkerProcess

pytestmark = pytest.mark.skipif(not FORK_WORKERS, reason="ELLA_TEST_FORK_WORKERS=0: test workers are not forked")


def worker(env: dict[str, str]) -> WorkerProcess:
    from adapters.settings import get_settings

    return WorkerProcess(
        queues=list(get_settings().queues),
        concurrency=1,
        log_path=VAR / "log" / f"zygote-test-{uuid.uuid4().hex[:6]}.log",
        env=env,
    )


@on_one_backend()
def test_a_forked_worker_reads_the_tests_environment_and_its_exit_code_reaches_the_test(migrated_db):
    """A worker told to run the offline engine unnamed refuses to start (exit 2, ``refuse_unnamed_offline``):
    the zygote itself runs with ``ELLA_LLM_PROVIDER=offline``, so only the child's own environment refuses."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "ELLA_LLM_PROVIDER"}
    w = zygote().start(worker({}), {**env, "ELLA_DATABASE_URL": migrated_db})
    assert w.proc is not None and w.proc.wait(120) == 2, w.log_tail()
    assert "refusing to start on the offline rule engine" in w.log_tail()


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group ``pgid``, read from /proc."""
    from pathlib import Path

    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@on_one_backend()
def test_a_forked_worker_answers_pings_and_a_kill_reaches_its_pool(migrated_db):

    from tests.conftest import wait_for
    from workers.app import app

    w = zygote().start(worker({"ELLA_DATABASE_URL": migrated_db}))
    w.wait_ready(app)
    assert len(group_members(w.proc.pid)) >= 2, "the worker and its pool child, in the worker's own group"
    w.kill()
    assert w.proc.returncode == -signal.SIGKILL
    wait_for(lambda: not group_members(w.proc.pid), 30, what="the pool children gone with their worker")


def test_a_worker_that_sets_a_variable_read_at_import_is_not_forked(tmp_path):
    """The metrics directory is chosen when ``adapters.metrics`` is imported (prometheus_client's value class too):
    a worker forked from a zygote that imported it without one would export nothing, so it starts fresh."""
    import os

    env = dict(os.environ)
    assert zygote().serves(env)
    assert not zygote().serves({**env, "ELLA_METRICS_DIR": str(tmp_path)})
    assert not zygote().serves({**env, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)})
