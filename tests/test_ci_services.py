"""`.ci/services.sh`: under CI a missing PostgreSQL or Redis fails loudly; elsewhere the fallback is said out loud.

Why: CI used to fall back to SQLite without a word when PostgreSQL was missing, so the PostgreSQL code paths
(the ledger's one-statement supersession, advisory locks) could go untested while CI stayed green.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.domain
SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "services.sh"
UNREACHABLE = "127.0.0.2"  # loopback, but no server here listens on it


def closed_port() -> str:
    """A port nothing listens on (bound and released), in case a server listens on every address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def services(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ELLA_TEST_") and k != "CI"}
    return subprocess.run(["sh", str(SCRIPT)], env={**base, **env}, capture_output=True, text=True, timeout=60)


def test_ci_fails_loudly_when_postgresql_is_unreachable():
    run = services(CI="true", ELLA_TEST_PG_HOST=UNREACHABLE, ELLA_TEST_PG_PORT=closed_port())
    assert run.returncode != 0
    assert (
        "CI=true but PostgreSQL does not answer" in run.stderr and "refusing to run the tests on SQLite" in run.stderr
    )
    assert "ELLA_TEST_DATABASES" not in run.stdout


def test_ci_fails_loudly_when_redis_is_unreachable():
    run = services(CI="true", ELLA_TEST_REDIS_HOST=UNREACHABLE, ELLA_TEST_REDIS_PORT=closed_port())
    assert run.returncode != 0 and "CI=true but Redis does not answer" in run.stderr


def test_outside_ci_a_missing_postgresql_falls_back_to_sqlite_and_says_so():
    run = services(ELLA_TEST_PG_HOST=UNREACHABLE, ELLA_TEST_PG_PORT=closed_port())
    assert run.returncode == 0
    assert "PostgreSQL is not available here: running the tests on SQLite only" in run.stderr
    assert "export ELLA_TEST_DATABASES=sqlite\n" in run.stdout
