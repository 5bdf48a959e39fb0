"""A worker or beat started with no provider named and no API key exits at once, saying why (issue 21).

Why real subprocesses: the refusal is a Celery signal (``worker_init``, ``beat_init``) and a CLI check; only a
started process shows that it exits non-zero before taking a task, with the reason where an operator looks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.redis_conn import redis_url
from adapters.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
ELLA = Path(sys.executable).with_name("ella")
UNNAMED = (
    "ELLA_LLM_PROVIDER",
    "ANTHROPIC_API_KEY",
    "ELLA_ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ELLA_ANTHROPIC_BASE_URL",
)
REASON = "refusing to start on the offline rule engine"


def unnamed_environment() -> dict[str, str]:
    """This run's environment (its queues, database, Redis) with no provider named and no key."""
    env = {k: v for k, v in os.environ.items() if k not in UNNAMED}
    env["ELLA_REDIS_URL"] = redis_url()
    return env


COMMANDS = {
    "celery worker": [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool=solo", "-Q", "{queue}"],
    "celery beat": [sys.executable, "-m", "celery", "-A", "workers.app", "beat", "-S", "redbeat.RedBeatScheduler"],
    "ella worker": [str(ELLA), "worker", "--pool=solo"],
    "ella beat": [str(ELLA), "beat"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_process_with_no_provider_named_and_no_key_exits_at_once_saying_why(name):
    argv = [part.format(queue=get_settings().queue_cognition) for part in COMMANDS[name]]
    started = time.monotonic()
    done = subprocess.run(argv, env=unnamed_environment(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    assert done.returncode != 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert REASON in done.stderr, done.stderr[-2000:]
    assert "ELLA_LLM_PROVIDER=offline" in done.stderr  # the way out, named
    assert took < 30, f"{name} took {took:.1f}s to refuse"


def test_anthropic_named_without_a_key_is_refused_too():
    env = {**unnamed_environment(), "ELLA_LLM_PROVIDER": "anthropic"}
    done = subprocess.run([str(ELLA), "worker"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "ELLA_LLM_PROVIDER=anthropic and no API key" in done.stderr
