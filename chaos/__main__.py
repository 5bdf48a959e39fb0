"""``python -m chaos``: every fault (or ``CHAOS_FAULTS=a,b``) against one private stack; a JSON line per
fault, then the summary line. Exits 0 whatever it finds: it reports what the code does, it is no gate."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from chaos import envelope_faults, infra_faults, model_fault_runs
from chaos.counting import summary
from chaos.harness import Chaos, dumps, log, run_bounded

ALL: dict[str, Callable[[Chaos], dict[str, Any]]] = {
    **infra_faults.FAULTS,
    **model_fault_runs.FAULTS,
    **envelope_faults.FAULTS,
}
FAULT_BOUND_S = 180.0  # one fault never takes longer: it is reported as timed out and the suite goes on


def selected(spec: str | None) -> list[str]:
    if not spec:
        return list(ALL)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise SystemExit(f"unknown fault(s) {unknown}; known: {', '.join(ALL)}")
    return names


def main() -> None:
    names = selected(os.environ.get("CHAOS_FAULTS"))
    chaos = Chaos()
    t0 = time.monotonic()
    lines = []
    try:
        log(f"starting private Redis, PostgreSQL and the compose workers in {chaos.tmp}")
        try:
            chaos.up()
        except Exception as exc:  # noqa: BLE001  (a stack that cannot start is the finding: every fault says so)
            lines = [{"fault": name, "error": f"stack did not start: {exc}"} for name in names]
            for line in lines:
                print(dumps(line), flush=True)
            names = []
        log(f"stack up in {time.monotonic() - t0:.0f}s; faults: {', '.join(names)}")
        for name in names:
            started = time.monotonic()
            line = run_bounded(lambda name=name: ALL[name](chaos), name, FAULT_BOUND_S)  # type: ignore[misc]
            line["seconds"] = round(time.monotonic() - started, 1)
            lines.append(line)
            print(dumps(line), flush=True)
            chaos.revive()
            chaos.restarts.clear()  # a fault's line already says what died during it
    finally:
        chaos.down()
        log(f"done in {time.monotonic() - t0:.0f}s")
    print(dumps(summary(lines)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
