"""``python -m chaos``: every fault (or ``CHAOS_FAULTS=a,b``) against one private stack; a JSON line per
fault, then the summary line. Each line says ``"pass"`` and its ``failures`` (``chaos.judging``: lost,
duplicated, garbage, a worker or beat process that exited, recovery over 30 s, the fault's own checks); the
summary says ``"result": "pass"`` or ``"fail"``. Exits 1 on a fail (2 when the stack did not start), so
``make chaos`` is a gate one can run; it is still not part of ``make test``."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from chaos import effect_faults, envelope_faults, erasure_faults, infra_faults, model_fault_runs
from chaos.harness import Chaos, dumps, log, run_bounded
from chaos.judging import judged, judged_summary

ALL: dict[str, Callable[[Chaos], dict[str, Any]]] = {
    **infra_faults.FAULTS,
    **model_fault_runs.FAULTS,
    **envelope_faults.FAULTS,
    **effect_faults.FAULTS,
    **erasure_faults.FAULTS,
}
# One fault never takes longer: it is reported as timed out (a failure) and the suite goes on. Most take under a
# minute; 16 faults stay under ~12 minutes on a 2-core machine.
FAULT_BOUND_S = 150.0


def selected(spec: str | None) -> list[str]:
    if not spec:
        return list(ALL)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise SystemExit(f"unknown fault(s) {unknown}; known: {', '.join(ALL)}")
    return names


def died_during(chaos: Chaos) -> dict[str, int]:
    """Every process that exited during the fault just run, restarted now (compose would): its line names them.

    Looked at twice, 2 s apart: ``revive`` leaves a process alone for 2 s after it was started, so one that
    died right after a restart is counted here rather than against the next fault.
    """
    chaos.revive()
    if any(not p.alive for p in chaos.procs.values()):
        time.sleep(2.1)
        chaos.revive()
    died = dict(chaos.restarts)
    chaos.restarts.clear()
    return died


def main() -> int:
    names = selected(os.environ.get("CHAOS_FAULTS"))
    chaos = Chaos()
    t0 = time.monotonic()
    lines: list[dict[str, Any]] = []
    started_ok = False
    try:
        log(f"starting private Redis, PostgreSQL and the compose workers in {chaos.tmp}")
        try:
            chaos.up()
        except Exception as exc:  # noqa: BLE001  (a stack that cannot start is the finding: every fault says so)
            lines = [judged({"fault": name, "error": f"stack did not start: {exc}"}) for name in names]
            for line in lines:
                print(dumps(line), flush=True)
            names, started_ok = [], False
        else:
            started_ok = True
        log(f"stack up in {time.monotonic() - t0:.0f}s; faults: {', '.join(names)}")
        for name in names:
            started = time.monotonic()
            line = run_bounded(lambda name=name: ALL[name](chaos), name, FAULT_BOUND_S)  # type: ignore[misc]
            line["seconds"] = round(time.monotonic() - started, 1)
            died = died_during(chaos)
            if died:  # merged with what the fault's own verdict saw
                restarts = dict(line.get("restarts") or {})
                for process, times in died.items():
                    restarts[process] = restarts.get(process, 0) + times
                line["restarts"] = restarts
            line = judged(line)
            lines.append(line)
            print(dumps(line), flush=True)
    finally:
        chaos.down()
        log(f"done in {time.monotonic() - t0:.0f}s")
    total = judged_summary(lines)
    print(dumps(total), flush=True)
    if not started_ok:
        return 2
    return 0 if total["result"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
