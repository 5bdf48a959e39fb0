"""The chaos suite's judgement as plain functions: which fault lines fail, and when the run does.

Why: ``make chaos`` is read by its summary line; a worker that died during a fault, or a recovery past the
judged 30 s, must turn that line into a fail (issue 24: eight worker deaths were reported as a pass). The
harness itself (servers, workers) is not run by ``make test``; these are.
"""

from __future__ import annotations

import base64

import pytest

from chaos.erasure_faults import needles, occurrences
from chaos.judging import failures_of, judged, judged_summary

pytestmark = pytest.mark.domain

CLEAN = {"fault": "redis_kill9", "sent": 40, "answered_once": 40, "lost": 0, "duplicated": 0, "stray": 0,
         "recover_s": 12.5, "garbage_stored": 0}  # fmt: skip


def test_a_fault_that_lost_nothing_and_killed_nothing_passes():
    line = judged(CLEAN)
    assert line["pass"] is True and line["failures"] == []


def test_a_worker_that_exited_during_a_fault_fails_it_even_when_nothing_was_lost():
    line = judged({**CLEAN, "restarts": {"worker-inbound": 2, "worker-cognition": 1}})
    assert line["pass"] is False
    assert line["failures"] == [
        "process exited: worker-cognition (1x, restarted)",
        "process exited: worker-inbound (2x, restarted)",
    ]


def test_a_recovery_of_31_s_fails_and_30_s_passes():
    assert judged({**CLEAN, "recover_s": 31.0})["failures"] == ["recovered in 31.0 s (bound 30 s)"]
    assert judged({**CLEAN, "recover_s": 30.0})["pass"] is True


def test_a_deliberate_outage_is_not_counted_against_the_recovery_after_the_return():
    assert judged({**CLEAN, "recover_s": 38.0, "outage_s": 10.0})["pass"] is True
    assert judged({**CLEAN, "recover_s": 41.0, "outage_s": 10.0})["failures"] == [
        "recovered in 31.0 s after a 10 s outage (bound 30 s)"
    ]


def test_lost_duplicated_garbage_errors_timeouts_and_a_faults_own_problems_each_fail_it():
    line = {**CLEAN, "lost": 1, "duplicated": 2, "garbage_stored": 3, "problems": ["2 turns without their memory"]}
    assert failures_of(line) == ["lost: 1", "duplicated: 2", "garbage stored: 3", "2 turns without their memory"]
    assert failures_of({"fault": "x", "timed_out": 150.0}) == ["timed out after 150.0 s"]
    assert failures_of({"fault": "x", "error": "TimeoutError: boom"}) == ["error: TimeoutError: boom"]
    assert failures_of({**CLEAN, "all_alive": False}) == ["a worker was not running at the end"]


def test_the_summary_fails_when_any_fault_fails_and_names_it():
    total = judged_summary([judged(CLEAN), judged({**CLEAN, "fault": "worker_kill9", "restarts": {"beat": 1}})])
    assert total["result"] == "fail"
    assert (total["passed"], total["failed"], total["failed_faults"], total["process_deaths"]) == (
        1, 1, ["worker_kill9"], 1,
    )  # fmt: skip
    assert total["sent"] == 80 and total["max_recover_s"] == 12.5


def test_the_summary_passes_only_when_every_fault_passed_and_there_was_one():
    assert judged_summary([judged(CLEAN), judged({**CLEAN, "fault": "model_30"})])["result"] == "pass"
    assert judged_summary([])["result"] == "fail"
    assert judged_summary([CLEAN, {**CLEAN, "recover_s": 45}])["result"] == "fail"  # unjudged lines are judged


def test_the_disk_scan_finds_a_word_as_written_and_inside_any_base64_text(tmp_path):
    word = "zircon1a2b3c4dquill"
    for pad in range(3):  # each alignment of the word in a kombu body's base64
        body = base64.b64encode(("x" * pad + '{"text": "' + word + '"}').encode())
        (tmp_path / f"aof.{pad}").write_bytes(b"*3\r\n$5\r\nLPUSH\r\n" + body)
    (tmp_path / "dump.rdb").write_bytes(b"REDIS0011" + word.encode() + b"\x00")
    (tmp_path / "clean").write_bytes(b"nothing of hers here " + base64.b64encode(b"zircon"))
    found = occurrences(sorted(tmp_path.iterdir()), {"canary": word})["canary"]
    assert sorted(found) == sorted(str(tmp_path / n) for n in ("aof.0", "aof.1", "aof.2", "dump.rdb"))
    assert all(len(n) >= 8 for n in needles(word)["base64"])
