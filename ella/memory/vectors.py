"""How a memory's vector is stored: float16, named by a format marker beside it.

Why float16: a memory's vector is L2-normalised, so each component is well inside float16's range and its 11
significant bits keep the cosine to about 1e-3, far below the gap between two memories' scores; it halves the
largest column of ``memory_nodes`` (512 dimensions: 1,024 bytes instead of 2,048, which also keeps the row under
PostgreSQL's 2 KB TOAST threshold, so a node is read from its heap page alone). Retrieval's recall was measured
unchanged (README, "Memory at scale"). int8 with a per-vector scale would halve it again at a visible cost in
ranking ties; not worth it at this size.

Why a marker and not the byte length: a float32 vector of 256 dimensions and a float16 one of 512 are the same
length. Rows written before the change (and by a worker not yet upgraded) carry the column's default, ``f32``;
every row written now is ``f16``. Readers always get float32 bytes back, whatever the row holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FLOAT32 = "f32"
FLOAT16 = "f16"
WRITTEN = FLOAT16
"""The format every new vector is stored in."""

_DTYPES = {FLOAT32: np.float32, FLOAT16: np.float16}


def pack(vector: bytes) -> tuple[bytes, str]:
    """float32 bytes (as an embedder's ``tobytes()`` gives them) as the stored blob and its format."""
    return np.frombuffer(vector, dtype=np.float32).astype(np.float16).tobytes(), WRITTEN


def unpack(blob: bytes, fmt: str | None) -> bytes:
    """The stored blob back as float32 bytes; a missing marker is a row from before the marker (float32)."""
    if fmt in (None, FLOAT32):
        return bytes(blob)
    return np.frombuffer(blob, dtype=_DTYPES[fmt]).astype(np.float32).tobytes()


def unpack_many(blobs: Sequence[bytes], formats: Sequence[str | None]) -> list[bytes]:
    """:func:`unpack` for many rows with one conversion per format (a cache building 100,000 rows would spend more
    on 100,000 small conversions than on reading them)."""
    out: list[bytes] = [b""] * len(blobs)
    pending: list[int] = []
    for i, (blob, fmt) in enumerate(zip(blobs, formats, strict=True)):
        if fmt in (None, FLOAT32):
            out[i] = bytes(blob)
        elif fmt == FLOAT16:
            pending.append(i)
        else:
            raise ValueError(f"unknown vector format {fmt!r}")
    if pending:
        lengths = [len(blobs[i]) for i in pending]
        wide = np.frombuffer(b"".join(blobs[i] for i in pending), dtype=np.float16).astype(np.float32).tobytes()
        start = 0
        for i, length in zip(pending, lengths, strict=True):
            out[i] = wide[start * 2 : (start + length) * 2]
            start += length
    return out
