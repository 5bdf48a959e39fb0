"""The one console script, ``ella``."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from adapters.settings import get_settings
from cli.guard import compliance_cli, guard_cli
from cli.jobs import jobs_cli
from cli.notifications import notifications_cli
from cli.users import users_cli
from cli.world import ledger_cli, review_cli, selflog_cli, world_cli

cli = typer.Typer(
    help="Ella's inner-life back end.", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False
)
db_cli = typer.Typer(help="Database schema.", no_args_is_help=True)
cli.add_typer(db_cli, name="db")
cli.add_typer(ledger_cli, name="ledger")
cli.add_typer(selflog_cli, name="selflog")
cli.add_typer(review_cli, name="review")
cli.add_typer(world_cli, name="world")
cli.add_typer(guard_cli, name="guard")
cli.add_typer(compliance_cli, name="compliance")
cli.add_typer(notifications_cli, name="notifications")
cli.add_typer(users_cli, name="users")
cli.add_typer(jobs_cli, name="jobs")
PASSTHROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


@cli.command()
def demo() -> None:
    """Play a scripted conversation of a few simulated days through the broker and a real worker."""
    if not os.environ.get("ELLA_METRICS_DIR"):
        # The demo's own metrics directory, fresh each run (its scrape is this run's story), set before anything
        # imports adapters.metrics: this process and the worker it starts both write there.
        import shutil

        root = get_settings().var_path / "metrics"
        shutil.rmtree(root, ignore_errors=True)
        os.environ["ELLA_METRICS_DIR"] = str(root)
        get_settings.cache_clear()
    from demo.run import run_demo

    console = Console()
    _offline_unless_configured(console)
    raise typer.Exit(run_demo(console))


@cli.command()
def chat(
    user: str = typer.Option("you", help="User id to chat as."),
    start_worker: bool = typer.Option(
        None, help="Start a worker for the session (default: only on the embedded default Redis)."
    ),
) -> None:
    """An interactive terminal gateway: you type, Ella's reply comes back from the outbox."""
    from cli.chat import chat_loop

    console = Console()
    _offline_unless_configured(console)
    start = get_settings().uses_embedded_redis if start_worker is None else start_worker
    raise typer.Exit(chat_loop(console, user, start))


def _celery(argv: list[str]) -> None:
    from workers.app import app

    app.start(argv)


def _refuse_unnamed_offline(process: str) -> None:
    """Before Celery starts anything (the embedded Redis, a connection): the same rule as the worker's signal."""
    reason = get_settings().offline_refusal()
    if reason is not None:
        typer.echo(f"ella {process}: {reason}", err=True)
        raise typer.Exit(2)


def _offline_unless_configured(console: Console) -> None:
    """``ella demo`` and ``ella chat`` run the offline engine by default, by naming it: with no key and no provider
    named (or ``auto``), ``ELLA_LLM_PROVIDER=offline`` is set for this process and the worker it starts (which
    would otherwise refuse it). A key is used; ``anthropic`` named without one is left to be refused."""
    settings = get_settings()
    if settings.llm_provider != "auto" or settings.offline_refusal() is None:
        return
    os.environ["ELLA_LLM_PROVIDER"] = "offline"
    get_settings.cache_clear()
    console.print("[dim]no API key: the offline rule engine answers (ELLA_LLM_PROVIDER=offline); it is not AI[/]")


@cli.command(context_settings=PASSTHROUGH)
def worker(ctx: typer.Context) -> None:
    """``celery worker`` on this app; arguments pass through (default: every queue)."""
    _refuse_unnamed_offline("worker")
    args = list(ctx.args)
    if not any(a == "-Q" or a.startswith(("-Q", "--queues")) for a in args):
        args = ["-Q", ",".join(get_settings().queues), *args]
    _celery(["worker", *args])


@cli.command(context_settings=PASSTHROUGH)
def beat(ctx: typer.Context) -> None:
    """``celery beat`` with the redbeat scheduler (one live instance, by its Redis lock)."""
    _refuse_unnamed_offline("beat")
    _celery(["beat", "-S", "redbeat.RedBeatScheduler", *ctx.args])


@cli.command(context_settings=PASSTHROUGH)
def flower(ctx: typer.Context) -> None:
    """Flower, always behind basic auth (ELLA_FLOWER_BASIC_AUTH or FLOWER_BASIC_AUTH=user:password)."""
    secret = get_settings().flower_basic_auth
    auth = (secret.get_secret_value() if secret else "") or os.environ.get("FLOWER_BASIC_AUTH", "")
    if ":" not in auth:
        typer.echo("refusing to start Flower without auth: set ELLA_FLOWER_BASIC_AUTH=user:password", err=True)
        raise typer.Exit(2)
    os.environ["FLOWER_BASIC_AUTH"] = auth  # by environment, so the password is not in the process list
    from workers import flower_auth

    flower_auth.install()  # every path behind the auth (Flower's own /metrics and /healthcheck too), loopback
    _celery(["flower", *ctx.args])


@cli.command()
def inspect(
    port: int = typer.Option(8765, help="Port to listen on."),
    host: str = typer.Option("127.0.0.1", help="Address to bind (loopback unless told otherwise)."),
) -> None:
    """The operator's read-only web page (fleet and per-user timeline), behind ELLA_INSPECT_BASIC_AUTH."""
    from operator_page.page import serve

    raise typer.Exit(serve(host=host, port=port))


metrics_cli = typer.Typer(help="Prometheus metrics (adapters/metrics.py).", no_args_is_help=True)
cli.add_typer(metrics_cli, name="metrics")


@metrics_cli.command("serve")
def metrics_serve(
    port: int = typer.Option(9464, help="Port to listen on."),
    host: str = typer.Option("127.0.0.1", help="Address to bind (loopback unless told otherwise)."),
) -> None:
    """/metrics for Prometheus: every worker's and beat's files under ELLA_METRICS_DIR, summed, and the queue
    depths read from Redis at each scrape; behind ELLA_METRICS_BASIC_AUTH (it refuses to start without)."""
    from operator_page.metrics_endpoint import serve

    raise typer.Exit(serve(host=host, port=port))


@db_cli.command("upgrade")
def db_upgrade(revision: str = typer.Argument("head")) -> None:
    """Apply migrations up to REVISION (default: head)."""
    from adapters import db
    from adapters.settings import mask_url

    db.upgrade(revision=revision)
    current, head = db.schema_revisions()
    typer.echo(f"{mask_url(get_settings().effective_database_url)}: at {current} (head {head})")


@db_cli.command("current")
def db_current() -> None:
    """Print the database's revision and the code's head; exit 1 if they differ."""
    from adapters import db

    current, head = db.schema_revisions()
    typer.echo(f"current {current or '(empty)'}, head {head}")
    raise typer.Exit(0 if current == head else 1)


@cli.command()
def config(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print the effective settings, secrets masked."""
    for tier, warning in get_settings().deprecated_models().items():
        typer.echo(f"warning: model for {tier}: {warning}", err=True)
    values = get_settings().masked()
    if as_json:
        typer.echo(json.dumps(values, indent=2, default=str))
        return
    width = max(map(len, values))
    for key, value in values.items():
        typer.echo(f"{key:<{width}}  {value}")


@cli.command()
def cost(
    user: str = typer.Option(None, "--user", help="Only this user id."),
    since: datetime = typer.Option(None, "--since", formats=["%Y-%m-%d"], help="From this UTC day (YYYY-MM-DD)."),
) -> None:
    """Model spend per user per day, then per job (digest, chapters, live reply...), batched calls discounted.

    Calls of a model with no price are not in the USD figures: a warning names each such model.
    """
    from rich.table import Column, Table

    from adapters import db
    from ella.usage import PriceList, unpriced_by_model
    from models.usage import spend_per_job, spend_per_user_day

    settings = get_settings()
    price_list = PriceList(settings.prices, settings.batch_price_factor)
    start = since.replace(tzinfo=UTC) if since else None
    with db.autocommit_scope() as session:
        rows = spend_per_user_day(session, price_list, user_id=user, since=start)
        jobs = [] if user else spend_per_job(session, price_list, since=start)
    table = Table(
        Column("day", no_wrap=True),
        Column("user", no_wrap=True),
        "calls",
        "input",
        "output",
        "cache write",
        "cache read",
        Column("USD", no_wrap=True),
        Column("unpriced", no_wrap=True),
    )
    for r in rows:
        table.add_row(
            r.day,
            r.user_id or "-",
            str(r.calls),
            str(r.input_tokens),
            str(r.output_tokens),
            str(r.cache_write_tokens),
            str(r.cache_read_tokens),
            f"{r.usd:.4f}",
            ", ".join(u.model for u in r.unpriced) or "-",
        )
    Console().print(table)
    Console().print(f"total USD {sum(r.usd for r in rows):.4f}")
    if jobs:
        by_job = Table(
            Column("job", no_wrap=True),
            "calls",
            "batched",
            "tokens",
            Column("USD", no_wrap=True),
            Column("USD unbatched", no_wrap=True),
            title=f"by job (batched calls at {price_list.batch_factor:g} of the price)",
        )
        for j in jobs:
            by_job.add_row(
                j.job, str(j.calls), str(j.batched_calls), str(j.tokens.total), f"{j.usd:.4f}", f"{j.list_usd:.4f}"
            )
        Console().print(by_job)
    for u in unpriced_by_model(u for r in rows for u in r.unpriced):
        t = u.tokens
        typer.echo(
            f"warning: model {u.model!r} has no price (ELLA_PRICES): {u.calls} call{'s' * (u.calls != 1)}, "
            f"{t.total} tokens "
            f"({t.input} input, {t.output} output, {t.cache_write} cache write, {t.cache_read} cache read) "
            "are not in the USD figures",
            err=True,
        )


eval_cli = typer.Typer(help="Benchmarks on evaluation data (read at run time, never shipped).", no_args_is_help=True)
cli.add_typer(eval_cli, name="eval")


@eval_cli.command("locomo")
def eval_locomo(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="A LoCoMo JSON file (e.g. locomo10.json)."),
    k: str = typer.Option("5,10,20", "--k", help="Comma-separated k values."),
    method: str = typer.Option("both", "--method", help="fused, bm25 or both."),
    embedder_name: str = typer.Option(
        "", "--embedder", help="hashing or semantic (default: ELLA_EMBEDDER, else hashing)."
    ),
    fuse: float = typer.Option(
        -1.0, "--fuse", help="Share of cosine in relevance (default: ELLA_RETRIEVAL_FUSE, else the embedder's profile)."
    ),
) -> None:
    """Memory retrieval on LoCoMo: evidence recall@k per question category; the last line is JSON."""
    from dataclasses import replace

    from rich.table import Table

    from adapters.settings import get_settings
    from ella.embeddings import make_embedder
    from ella.memory import locomo
    from ella.memory.retrieval import default_weights

    choices: dict[str, list[locomo.Method]] = {"both": ["fused", "bm25"], "fused": ["fused"], "bm25": ["bm25"]}
    methods = choices.get(method.strip().lower())
    if methods is None:
        raise typer.BadParameter(f"expected fused, bm25 or both, got {method!r}", param_hint="--method")
    try:
        ks = sorted({int(part) for part in k.split(",") if part.strip()})
    except ValueError:
        raise typer.BadParameter(f"expected comma-separated integers, got {k!r}", param_hint="--k") from None
    if not ks or ks[0] < 1:
        raise typer.BadParameter("k values must be positive", param_hint="--k")
    conversations = locomo.load(file)
    settings = get_settings()
    embedder = make_embedder(embedder_name or settings.embedder)
    weights = default_weights(embedder.model_id)  # the profile of the embedder evaluated, not the configured one
    if not 0 <= fuse <= 1 and settings.retrieval_fuse is not None:
        fuse = settings.retrieval_fuse
    if 0 <= fuse <= 1:
        weights = replace(weights, fuse=fuse)
    typer.echo(f"embedder: {embedder.model_id}, fuse {weights.fuse}, context {weights.context}", err=True)
    results = {name: locomo.evaluate(conversations, ks, name, embedder, weights=weights) for name in methods}
    console = Console()
    for name, result in results.items():
        table = Table("category", *(f"R@{n}" for n in ks), "questions", title=f"LoCoMo retrieval: {name}")
        for category in ("cat1-4", *locomo.CATEGORIES):
            recalls = (f"{result[f'recall@{n}'][category]:.3f}" for n in ks)
            table.add_row(category, *recalls, str(result["questions"][category]))
        console.print(table)
    summary: dict[str, Any] = dict(results[methods[0]])
    if len(methods) > 1:
        summary["bm25"] = {key: value for key, value in results["bm25"].items() if key != "questions"}
    typer.echo(json.dumps(summary))


memory_cli = typer.Typer(help="Ella's memory stream.", no_args_is_help=True)
cli.add_typer(memory_cli, name="memory")


@memory_cli.command("reembed")
def memory_reembed(
    page: int = typer.Option(500, min=1, help="Nodes per task run."),
    status: bool = typer.Option(False, "--status", help="Only show how many memories are still to re-embed."),
) -> None:
    """Queue ella.reembed_memories: every node whose vector is of another model than ELLA_EMBEDDER's is embedded
    again, a page per run, on the batch queue (progress in the worker's log, each run's result and ``--status``).
    Resumable and idempotent: a run takes the nodes still of another model, so a second queueing or a crash
    re-embeds nothing twice and loses nothing."""
    from adapters.settings import get_settings
    from workers.app import app
    from workers.routing import TaskName, queue_for

    if status:
        from sqlalchemy import func, select

        from adapters.db import session_scope
        from ella.embeddings import make_embedder
        from models.memory import MemoryNode, count_other_models

        model_id = make_embedder(get_settings().embedder).model_id
        with session_scope() as session:
            total = int(session.scalar(select(func.count()).select_from(MemoryNode)) or 0)
            left = count_other_models(session, model_id)
        done = total - left
        typer.echo(f"{done} of {total} memories are {model_id} vectors ({left} to re-embed)")
        return

    result = app.send_task(
        str(TaskName.REEMBED_MEMORIES),
        kwargs={"page": page},
        queue=queue_for(TaskName.REEMBED_MEMORIES, get_settings()),
    )
    typer.echo(f"queued {TaskName.REEMBED_MEMORIES} ({result.id})")


@memory_cli.command("show")
def memory_show(user: str = typer.Argument(..., help="User id."), limit: int = typer.Option(20, help="Nodes.")) -> None:
    """Recent nodes, thoughts with their evidence, and the importance counter of one user."""
    import json as _json

    from rich.table import Column, Table
    from sqlalchemy import select

    from adapters import db
    from models import MemoryNode, User

    console = Console()
    with db.autocommit_scope() as session:
        row = session.get(User, user)
        if row is None:
            typer.echo(f"no user {user!r}", err=True)
            raise typer.Exit(1)
        recent = list(
            session.scalars(
                select(MemoryNode)
                .where(MemoryNode.user_id == user)
                .order_by(MemoryNode.created_at.desc(), MemoryNode.id.desc())
                .limit(limit)
            )
        )
        cited_ids = {
            i for n in recent if n.node_type == "thought" for i in _json.loads(n.evidence) if isinstance(i, int)
        }
        cited = {n.id: n.description for n in session.scalars(select(MemoryNode).where(MemoryNode.id.in_(cited_ids)))}
    console.print(
        f"importance counter: {row.importance_trigger_curr} of {row.importance_trigger_max} "
        "(Ella reflects when it reaches 0)"
    )
    from ella.memory.quarantine import excluded
    from ella.provenance import label, shown_in_prompts

    engine = get_settings().llm_engine
    table = Table("id", "type", Column("created", no_wrap=True), "poig.", "depth", "description", "made by")
    for n in recent:
        made_by = label(n.engine, n.model_id, n.prompt_kind, n.prompt_version)
        if not shown_in_prompts(engine, n.engine, n.node_type):
            made_by += f" (not in {engine} prompts)"
        if n.quarantine:  # ella.memory.quarantine: kept for the record
            made_by += " (held: manipulation, in no prompt)" if excluded(n.quarantine) else " (held: boundary)"
        table.add_row(
            str(n.id),
            n.node_type,
            n.created_at.strftime("%Y-%m-%d %H:%M"),
            str(n.poignancy),
            str(n.depth),
            n.description[:120],
            made_by,
        )
    console.print(table)
    for n in (n for n in recent if n.node_type == "thought"):
        console.print(f"[bold]thought {n.id}[/]: {n.description}")
        for i in _json.loads(n.evidence):
            console.print(f"   <- {i}: {cited.get(i, i)}" if isinstance(i, int) else f"   <- {i}")


@memory_cli.command("forget")
def memory_forget(
    user: str = typer.Argument(..., help="User id."),
    node: int = typer.Argument(..., help="Memory node id."),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the audit, never the forgotten words)."),
    by: str = typer.Option("", "--by", help="Who forgets it (default: the login name)."),
) -> None:
    """Forget one memory and everything holding its words (models.forgetting, as the user's own request does);
    then the outbox stream's entries, the embedding cache and the retrieval cache drop them. Prints ids only."""
    from adapters import db
    from adapters.embedding_cache import shared_embedder
    from adapters.forgetting import forget_outside
    from cli.world import operator_actor, refused
    from models.forgetting import Refused, forget_memory

    try:
        with db.session_scope() as session:
            done = forget_memory(session, user, node, embedder=shared_embedder(), actor=operator_actor(by),
                                 reason=reason)  # fmt: skip
    except Refused as exc:
        refused(exc)
    forget_outside(user, done)
    others = len(done.nodes - {node})  # the thoughts left citing nothing, the nodes made from the same message
    parts = [f"+{others} more {'memory' if others == 1 else 'memories'}"] if others else []
    for count, one, many, verb in (
        (len(done.messages), "message", "messages", "cleared"),
        (len(done.replies), "reply", "replies", "cleared"),
        (len(done.facts), "fact", "facts", "forgotten"),
        (len(done.chapters), "chapter", "chapters", "lost a moment"),
        (len(done.notifications), "notification", "notifications", "withdrawn"),
    ):
        if count:
            parts.append(f"{count} {one if count == 1 else many} {verb}")
    Console().print(f"forgotten memory {node}" + (f" ({', '.join(parts)})" if parts else ""), soft_wrap=True)


def main() -> None:
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
