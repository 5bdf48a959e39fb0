"""Counting what came back: answered once, duplicated, lost, seconds to recover (pure functions).

Why apart from the harness: the counts are the suite's verdict, so they are plain functions over the outbox
stream's entries, tested without any service (tests/test_chaos_counting.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Tally:
    """A message is answered once when exactly one reply for its message_id is in the stream."""

    sent: int
    answered_once: int
    lost: int
    duplicated: int
    stray: int  # replies to message ids that were never sent (a fuzzed envelope answered, say)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def tally(sent_ids: Iterable[str], replied_to: Iterable[str]) -> Tally:
    """Count ``sent_ids`` against the ``in_reply_to`` of every stream entry (notifications have none)."""
    sent = set(sent_ids)
    counts = Counter(r for r in replied_to if r)
    return Tally(
        sent=len(sent),
        answered_once=sum(1 for m in sent if counts[m] == 1),
        lost=sum(1 for m in sent if counts[m] == 0),
        duplicated=sum(1 for m in sent if counts[m] > 1),
        stray=sum(1 for r in counts if r not in sent),
    )


def first_landing(entries: Iterable[tuple[str, str]]) -> dict[str, float]:
    """message_id -> when its first reply landed, in seconds, from (stream id, in_reply_to) pairs.

    A stream id is ``<ms>-<seq>`` on the Redis server's clock; here the server runs on this host.
    """
    landed: dict[str, float] = {}
    for stream_id, in_reply_to in entries:
        if in_reply_to and in_reply_to not in landed:
            landed[in_reply_to] = int(stream_id.split("-")[0]) / 1000
    return landed


def recovery_seconds(
    fault_at: float, sent_at: Mapping[str, float], landed: Mapping[str, float], cleared_at: float
) -> float | None:
    """Seconds from the fault's start until every message sent before it cleared had its reply.

    The backlog the fault caused is drained then. None when one of them was never answered (it never
    recovered for that message: it is counted as lost). A fault that delayed nothing recovers in the time
    its slowest affected message took.
    """
    affected = [m for m, t in sent_at.items() if t <= cleared_at]
    if not affected:
        return 0.0
    if any(m not in landed for m in affected):
        return None
    return round(max(0.0, max(landed[m] for m in affected) - fault_at), 2)


def summary(lines: Iterable[Mapping[str, object]]) -> dict[str, object]:
    """The suite's last line: the per-fault lines added up; max_recover_s over the faults that recovered."""
    rows = list(lines)
    recovered = [r["recover_s"] for r in rows if isinstance(r.get("recover_s"), int | float)]

    def total(key: str) -> int:
        return sum(int(r.get(key) or 0) for r in rows)  # type: ignore[call-overload]

    return {
        "faults": len(rows),
        "sent": total("sent"),
        "answered_once": total("answered_once"),
        "lost": total("lost"),
        "duplicated": total("duplicated"),
        "garbage_stored": total("garbage_stored"),
        "max_recover_s": max(recovered) if recovered else None,
    }
