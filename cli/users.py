"""``ella users forget USER``: the right to be forgotten, from the operator's shell.

Why run here and not only through the gateway: a request can reach the operator by mail or by a regulator, with
no worker running. The command runs the same erasure as ``ella.forget_user`` in this process (tombstone first,
then every table, then Redis, the outbox stream and the log files) and schedules the task's second pass through
the broker, which a worker runs once it is up (``--no-second-pass`` when none will ever run).
"""

from __future__ import annotations

import json

import typer

users_cli = typer.Typer(help="Users: erasure (the right to be forgotten).", no_args_is_help=True)


@users_cli.command("key")
def users_key(user: str = typer.Argument(..., help="User id, as the gateway sends it.")) -> None:
    """Print the pseudonym the worker logs name this user by (``u:`` and 12 hex characters), to find their lines."""
    from workers.logs import pseudonym

    typer.echo(pseudonym(user))


@users_cli.command("forget")
def users_forget(
    user: str = typer.Argument(..., help="User id, as the gateway sends it."),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation."),
    second_pass: bool = typer.Option(True, help="Schedule the second pass (erases what tasks in flight wrote)."),
) -> None:
    """Erase the user everywhere and keep a tombstone (a keyed hash) so late messages are refused. Idempotent."""
    if not yes:
        typer.confirm(f"Erase everything about {user!r}? This cannot be undone", abort=True)
    from adapters.settings import get_settings
    from models.erasure import tombstone_key
    from tasks.privacy import forget, schedule_second_pass

    counts = forget(user, second_pass=second_pass)  # the tombstone records it: beat's sweep runs it if lost
    if second_pass:
        schedule_second_pass(tombstone_key(user, get_settings().forget_hmac_key.get_secret_value()))
    typer.echo(json.dumps({"erased": counts, "second_pass_scheduled": second_pass}, sort_keys=True))


@users_cli.command("vacuum")
def users_vacuum(
    users: list[str] = typer.Argument(..., help="The erased users' ids (as `ella users forget` was given them)."),
    database_url: str = typer.Option(
        None, "--database-url", help="The owner role's URL (default: ELLA_DATABASE_URL); only an owner may VACUUM."
    ),
) -> None:
    """PostgreSQL's part of erasures on disk (README, "Erasure and the disk"): ANALYZE, then VACUUM FULL of the
    erased users' partitions of memory_nodes and of every other table, one at a time, so no file holds them."""
    from adapters.disk_erasure import rewrite_postgres_for
    from adapters.settings import get_settings

    url = database_url or get_settings().effective_database_url
    if not url.startswith("postgresql"):
        typer.echo("not PostgreSQL: SQLite's erasure zeroes and checkpoints itself (secure_delete)", err=True)
        raise typer.Exit(2)
    typer.echo(json.dumps(rewrite_postgres_for(url, users), sort_keys=True))
