"""``ella jobs``: the proactive jobs' runs, their progress and their failures; ``ella jobs run JOB``: one pass now.

Why an operator needs both: a digest at 100,000 users is a run of hundreds of chunks on beat; "how far is it,
how fast, how long still, what did it cost in requests, who failed" must be one command, not a SQL session.
``run`` plans one pass in this process (the runner's ``run_inline``) with a progress bar, to try a job on a
staging database or to catch up by hand; on a worker the same chunks run as ``ella.run_job_chunk`` tasks,
named in Flower with their job and period.
"""

from __future__ import annotations

import math
import sys
from datetime import UTC, datetime

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column, Table

from ella.jobs import Job

jobs_cli = typer.Typer(
    help="Proactive jobs (digest, chapters, arcs): runs, progress, failures; run one pass now.",
    invoke_without_command=True,
)

BATCH_STATUSES = ("pending", "submitted", "applied", "failsafe", "gave_up")


def _console() -> Console:
    return Console() if sys.stdout.isatty() else Console(width=200)


def _stamp(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if value else ""


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    return (
        f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"
    )


def register_job_modules() -> None:
    """Import the task modules, so this process knows every job's planner and batch handler (they register on
    import); the CLI runs no worker, so nothing else would import them."""
    from workers.app import app

    app.loader.import_default_modules()


@jobs_cli.callback()
def jobs_show(
    ctx: typer.Context,
    limit: int = typer.Option(10, help="Most recent runs, and failures."),
    job: str = typer.Option(None, "--job", help="Only this job (digest, chapters, arcs)."),
) -> None:
    """Recent runs with progress, the batch items of each job by status, and the last failures."""
    if ctx.invoked_subcommand is not None:
        return
    from adapters import db
    from models import job_ops, runs
    from models.base import utcnow

    names = [Job(job).value] if job else [j.value for j in Job]
    now = utcnow()
    console = _console()
    with db.autocommit_scope() as session:
        recent = [r for r in runs.recent_runs(session, limit, job=names[0] if job else None)]
        shown = [runs.progress(r, now) for r in recent]
        items = job_ops.batch_items_by_status(session, names)
        failures = [f for f in job_ops.failed_chunks(session, limit) if f.job in names]
        letters = job_ops.job_dead_letters(session, names, limit)
    table = Table(
        "job",
        Column("slot", no_wrap=True),
        "state",
        "users",
        "chunks",
        "users/s",
        "left",
        "requests",
        "idle",
        "failed",
        Column("started", no_wrap=True),
        title="runs",
    )
    for p in shown:
        r = p.run
        table.add_row(
            r.job,
            r.period,
            r.state,
            f"{r.users_done}/{r.users_total}",
            f"{r.chunks_done}/{r.chunks_total}",
            f"{p.rate_per_s:.1f}",
            _duration(p.remaining_s),
            str(r.requests),
            str(r.idle),
            str(r.failed),
            _stamp(r.started_at),
        )
    console.print(table if shown else "no runs yet")
    batches = Table("job", *BATCH_STATUSES, title="batch items by status")
    for name in names:
        counts = items.get(name)
        batches.add_row(name, *(str(counts[s]) if counts else "0" for s in BATCH_STATUSES))
    console.print(batches)
    problems = sorted(failures + letters, key=lambda f: f.at or now, reverse=True)[:limit]
    if not problems:
        console.print("no failures")
        return
    last = Table("job", "source", Column("when", no_wrap=True), "what", "reason", title="last failures")
    for f in problems:
        last.add_row(f.job, f.source, _stamp(f.at), f.what, f.reason[:200])
    console.print(last)


@jobs_cli.command("run")
def jobs_run(
    job: Job = typer.Argument(..., help="digest, chapters or arcs."),
    at: str = typer.Option(None, "--at", help="Plan as of this ISO time (default now; naive means UTC)."),
    flush: bool = typer.Option(False, "--flush", help="Then send the queued requests (flush_pending)."),
) -> None:
    """One planner pass of JOB in this process: the due slot's users, chunk after chunk, with a progress bar."""
    from adapters import db
    from adapters.settings import get_settings
    from models import job_ops, runs
    from models.base import utcnow
    from tasks.jobs import open_runs, run_inline

    if at:
        try:
            parsed = datetime.fromisoformat(at)
        except ValueError:
            raise typer.BadParameter(f"not an ISO time: {at!r}", param_hint="--at") from None
        now = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    else:
        now = utcnow()
    register_job_modules()
    console = _console()
    open_runs(job, now)  # plan() would open them too; opened here so the bar knows its total
    with db.autocommit_scope() as session:
        left = sum(
            job_ops.users_left(session, sorted(r.due_zones), r.cursor)
            for r in runs.unfinished_runs(session, job.value)
            if r.state == runs.PLANNING
        )
    chunks = math.ceil(left / get_settings().job_chunk_size)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn(), TextColumn("{task.fields[requests]} requests"))  # fmt: skip
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(f"{job.value} chunks", total=chunks or None, requests=0)
        requested = 0

        def on_chunk(counts: dict[str, int]) -> None:
            nonlocal requested
            requested += counts.get("requests", 0)
            bar.update(task, advance=1, requests=requested)

        totals = run_inline(job, now, on_chunk)
    console.print(
        f"{job.value} at {now.isoformat()}: {totals.get('runs_opened', 0)} runs opened, {totals.get('chunks', 0)} "
        f"chunks, {totals.get('users', 0)} users, {totals.get('requests', 0)} requests queued, "
        f"{totals.get('idle', 0)} idle, {totals.get('failed', 0)} failed"
    )
    skipped = {k: v for k, v in totals.items() if k not in {"runs_opened", "chunks", "resent", "users", "requests",
                                                            "idle", "failed", "already_run"}}  # fmt: skip
    if skipped:
        console.print("skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())))
    if flush:
        from adapters.model_batches import flush_pending

        report = flush_pending()
        console.print(f"flushed: {report.submitted} requests sent, outcomes {dict(report.outcomes)}")
