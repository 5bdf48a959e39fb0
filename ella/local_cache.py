"""Where parsed model files are kept between processes: ``ELLA_CACHE_DIR`` (default ``~/.cache/ella``).

Why: some dependencies ship their models in a form that is slow to read (the sentence encoder's SentencePiece
model parsed in pure Python, the language identifier's LZMA-compressed tables), and every worker process, CLI
command and test worker paid that on start. Each reader keeps its parsed or decompressed form here, keyed by the
dependency's version and file size, and falls back to the slow path on any failure (no home, a read-only disk, a
damaged file). Nothing here is ever executed: only plain data (``marshal``, ``npz`` without pickles) is kept.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache folder (not created here)."""
    return Path(os.environ.get("ELLA_CACHE_DIR") or Path.home() / ".cache" / "ella")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a concurrent reader sees the old file, the new one or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(path)
