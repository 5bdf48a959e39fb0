"""Operators' view of the proactive jobs: ``ella jobs`` (progress, batch items, failures), ``ella jobs run``,
and ``ella cost`` per job with the batch discount; the prompt kind -> job map.

What is pinned: a run's done/total figures, its requests, idle and failed users as the runner counted them
reach the operator; a user the planner could not plan and a batch item given up show as failures of their
job (and another purpose's dead letter does not); ``jobs run`` plans the due users in-process; a batched
digest call costs the batch factor of its list price in the per-job table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.db import session_scope
from adapters.dead_letters import record_dead_letter
from cli.main import cli
from ella.jobs import Job
from ella.llm.kinds import KINDS
from ella.llm.port import CallRecord
from ella.llm.types import Usage
from ella.usage import JOB_OF_KIND, OTHER_JOB, job_of
from models.usage import insert_usage, usage_row
from tasks import jobs as job_tasks
from tests.support.job_planner import SLOT_NOW, Planner, add_users


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args), terminal_width=200)
    assert result.exit_code == 0, result.output
    return result


def test_ella_jobs_shows_a_runs_progress_its_batch_items_and_its_failures(migrated_db: str, planner: Planner) -> None:
    ids = add_users(30)
    planner.fail_for = {ids[4]}  # an even id: the request it would have had is not queued
    report = job_tasks.run_inline(Job.DIGEST, SLOT_NOW)
    assert (report["users"], report["requests"], report["idle"], report["failed"]) == (30, 14, 15, 1)
    record_dead_letter("ella.model_batch_item", None, "dg-given-up: no answer after 3 submissions", [],
                       {"custom_id": "dg-given-up", "purpose": "digest", "user_id": ids[2]})  # fmt: skip
    record_dead_letter("ella.model_batch_item", None, "other-x: not a job's", [],
                       {"custom_id": "other-x", "purpose": "contested", "user_id": ids[6]})  # fmt: skip

    out = invoke("jobs").output
    run_line = next(line for line in out.splitlines() if "2026-11-30T07Z" in line)
    cells = [c.strip() for c in run_line.split("│") if c.strip()]
    assert cells[:5] == ["digest", "2026-11-30T07Z", "done", "30/30", "5/5"]
    assert cells[7:10] == ["14", "15", "1"]  # requests, idle, failed
    items_line = next(line for line in out.splitlines() if line.lstrip("│ ").startswith("digest") and "pending" not in
                      line and "2026" not in line)  # fmt: skip
    assert [c.strip() for c in items_line.split("│") if c.strip()][:2] == ["digest", "14"]  # all 14 pending
    assert ids[4] in out and "ella.job_user" in out and "bad row" in out
    assert "dg-given-up" in out and "ella.model_batch_item" in out
    assert "other-x" not in out  # a dead letter of a purpose that is no job is not the jobs' failure
    assert "1 of 7 users dead-lettered" in out  # the chunk that held the bad user


def test_ella_jobs_run_plans_the_due_slot_in_process_and_reports_the_totals(migrated_db: str, planner: Planner) -> None:
    add_users(20)
    add_users(3, zone="America/Los_Angeles", prefix="la")  # 23:10 there: not due
    result = invoke("jobs", "run", "digest", "--at", "2026-11-30T07:10:00")
    assert "3 chunks, 20 users, 10 requests queued, 10 idle, 0 failed" in result.output
    assert "3/3" in result.output  # the bar knew its total before the pass
    again = invoke("jobs", "run", "digest", "--at", "2026-11-30T07:20:00")
    assert "0 requests queued" in again.output  # the slot is planned already


def test_ella_cost_shows_each_jobs_spend_with_the_batch_discount(
    migrated_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELLA_PRICES", '{"small": {"input": 1.0, "output": 5.0}, "big": {"input": 3.0, "output": 15.0}}')
    monkeypatch.setenv("ELLA_BATCH_PRICE_FACTOR", "0.5")
    from adapters.settings import get_settings

    get_settings.cache_clear()

    def call(kind: str, model: str, tokens_in: int, tokens_out: int) -> CallRecord:
        usage = Usage(input_tokens=tokens_in, output_tokens=tokens_out)
        return CallRecord("ann", kind, "t", model, "anthropic", usage, 10.0, "ok", 1)

    with session_scope() as s:
        insert_usage(s, [usage_row(call("digest", "small", 1_000_000, 200_000), batch=True)])  # (1 + 1) / 2 = 1
        insert_usage(s, [usage_row(call("reply", "big", 1_000_000, 0))])  # 3, unbatched
    result = CliRunner().invoke(cli, ["cost"], terminal_width=200)
    get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    lines = {
        cells[0]: cells
        for line in result.output.splitlines()
        if (cells := [c.strip() for c in line.split("│") if c.strip()]) and cells[0] in ("digest", "live reply")
    }
    assert lines["digest"][1:] == ["1", "1", "1200000", "1.0000", "2.0000"]  # calls, batched, tokens, USD, list
    assert lines["live reply"][1:] == ["1", "0", "1000000", "3.0000", "3.0000"]


@pytest.mark.domain
def test_every_prompt_kind_belongs_to_a_job_and_an_unknown_kind_to_other() -> None:
    assert {kind: job_of(kind) for kind in ("digest", "chapter_distillation", "relationship_arc", "reply")} == {
        "digest": "digest", "chapter_distillation": "chapters", "relationship_arc": "arcs", "reply": "live reply"
    }  # fmt: skip
    assert job_of("contested_verdict") == "contested resolution"
    unmapped = [kind for kind in KINDS if kind not in JOB_OF_KIND]
    assert unmapped == [], f"kinds with no job in ella.usage.JOB_OF_KIND: {unmapped}"
    assert job_of("a_kind_from_next_year") == OTHER_JOB
    assert Counter(JOB_OF_KIND.values())["memory"] >= 5


BENCH = Path(__file__).resolve().parents[1] / "bench" / "proactive_jobs.py"
BENCH_KEYS = ["users", "active", "digest_submit_s", "requests_sent", "planner_peak_mb", "ours_s_1k", "seed_way_s_1k"]


def test_the_proactive_jobs_benchmark_runs_small_and_ends_with_its_json_line() -> None:
    """A smoke run (300 users on PostgreSQL, ours vs the seed's way at 50): it runs, sends requests for the
    active users only, and its last line is the JSON the README's figures come from."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--users", "300", "--compare", "50"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(summary) == BENCH_KEYS
    assert (summary["users"], summary["active"], summary["requests_sent"]) == (300, 30, 30)
    assert 0 < summary["planner_peak_mb"] < 300
