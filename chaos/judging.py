"""The suite's judgement: whether a fault's line passes, and whether the run does (pure functions).

Why a judgement at all: a report that reads the same whether workers died or not hides what an outside run
finds (issue 24: eight worker processes died over four Redis faults and the summary still read as a pass).
A fault fails when it lost, duplicated or stored garbage, when a worker or beat process exited while it ran
(``restarts``: compose's ``restart: unless-stopped`` hid it), when it recovered later than ``RECOVER_BOUND_S``
(the judged bound: every Redis or PostgreSQL return recovered within 30 s; counted from the fault's start,
less the ``outage_s`` a fault that keeps a server away on purpose declares), when it errored or timed out, or
when its own checks found something (``problems``: a turn without its memory, a canary on disk, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from chaos.counting import summary

RECOVER_BOUND_S = 30.0


def failures_of(line: Mapping[str, Any]) -> list[str]:
    """Why this fault's line is a failure, one reason each; empty when it passes."""
    reasons: list[str] = []
    if line.get("error"):
        reasons.append(f"error: {line['error']}")
    if line.get("timed_out"):
        reasons.append(f"timed out after {line['timed_out']} s")
    for key, what in (("lost", "lost"), ("duplicated", "duplicated"), ("garbage_stored", "garbage stored")):
        count = int(line.get(key) or 0)
        if count:
            reasons.append(f"{what}: {count}")
    for process, times in sorted(dict(line.get("restarts") or {}).items()):
        reasons.append(f"process exited: {process} ({times}x, restarted)")
    if line.get("all_alive") is False:
        reasons.append("a worker was not running at the end")
    recovered = line.get("recover_s")
    if isinstance(recovered, int | float) and not isinstance(recovered, bool):
        away = float(line.get("outage_s") or 0.0)  # a fault that keeps a server away on purpose says how long
        after = round(recovered - away, 2)
        if after > RECOVER_BOUND_S:
            since = f" after a {away:g} s outage" if away else ""
            reasons.append(f"recovered in {after} s{since} (bound {RECOVER_BOUND_S:g} s)")
    reasons.extend(str(p) for p in line.get("problems") or ())
    return reasons


def judged(line: Mapping[str, Any]) -> dict[str, Any]:
    """The line with ``pass`` and its ``failures`` (the reasons; empty on a pass)."""
    reasons = failures_of(line)
    return {**line, "pass": not reasons, "failures": reasons}


def judged_summary(lines: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The last line: the counts added up, ``result`` pass only when every fault passed, and which failed.

    A run with no fault at all is no evidence of anything: it is a fail too.
    """
    rows = [line if "pass" in line else judged(line) for line in lines]
    failed = [str(r.get("fault")) for r in rows if not r["pass"]]
    deaths = sum(int(n) for r in rows for n in dict(r.get("restarts") or {}).values())
    return {
        "result": "pass" if rows and not failed else "fail",
        **summary(rows),
        "passed": len(rows) - len(failed),
        "failed": len(failed),
        "failed_faults": failed,
        "process_deaths": deaths,
    }
