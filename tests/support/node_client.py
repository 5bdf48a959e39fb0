"""The Node gateway client (``clients/node``) with its dependencies installed, for the tests that run it.

Why here and not in one test file: ``tests/test_node_gateway.py`` and ``tests/test_signed_requests.py`` both
``require`` its modules, and a test that relied on the other file having run ``npm ci`` first failed on a clean
clone whenever the files were handed out in the other order. Installed once per lock, across xdist processes (a
file lock: two processes must not both rebuild ``node_modules``). Without ``node`` or ``npm`` the tests that need
it fail under CI=true, like a missing service, and elsewhere skip saying what is missing.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"
MARKER = NODE_DIR / "node_modules" / ".ella-npm-ci"


def _lock_digest() -> str:
    return hashlib.sha256((NODE_DIR / "package-lock.json").read_bytes()).hexdigest()


def installed_node_package() -> Path:
    """``clients/node`` with its dependencies installed from the lock (``npm ci``, once per lock)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        message = f"{' and '.join(missing)} not found: the Node gateway client's tests need Node.js 20 and npm"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {message}", pytrace=False)
        pytest.skip(message)
    lock_path = Path(tempfile.gettempdir()) / f"ella-npm-ci-{hashlib.sha256(bytes(NODE_DIR)).hexdigest()[:12]}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digest = _lock_digest()
        if not (MARKER.exists() and MARKER.read_text() == digest):
            started = time.monotonic()
            run = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True, timeout=300
            )
            if run.returncode != 0:
                pytest.fail(f"npm ci in {NODE_DIR} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
            MARKER.write_text(digest)
            print(f"npm ci in {NODE_DIR}: {time.monotonic() - started:.1f} s")  # shown with -s or on failure
    return NODE_DIR
