"""``ella ledger``, ``ella selflog`` and ``ella review``: operators' view of Ella's world, and the review queue.

``ella ledger retire`` and ``ella ledger correct`` change one fact through ``models.forgetting``, the code the
user's request in conversation and the gateway's tasks run, so an operator's change is checked and audited the
same way (the audit's actor is ``operator:<name>``); the commands only parse, call and print.
"""

from __future__ import annotations

import getpass
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from models.forgetting import Refused

ledger_cli = typer.Typer(help="Ella's world-fact ledger.", no_args_is_help=True)
selflog_cli = typer.Typer(help="Ella's self-log (what she said about herself; never facts).", no_args_is_help=True)
review_cli = typer.Typer(help="The human review queue.", no_args_is_help=True)
world_cli = typer.Typer(help="Ella's lazy world: weather, mood, book, happenings.", no_args_is_help=True)


def _when(value: str) -> datetime:
    try:
        at = datetime.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(f"not an ISO-8601 time: {value!r}") from exc
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _console() -> Console:
    """Full-width tables when piped (rich would squeeze them into 80 columns and cut the ids)."""
    return Console() if sys.stdout.isatty() else Console(width=220)


def _stamp(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def operator_actor(by: str) -> str:
    """The audit's actor for an operator's command: ``operator:<by>``, else the login name the environment
    gives (``getpass.getuser``), so the trail names a person even when ``--by`` is left out."""
    name = by.strip()
    if not name:
        try:
            name = getpass.getuser().strip()
        except (KeyError, OSError, ImportError):  # no LOGNAME/USER and no passwd entry (a bare container)
            name = ""
    return f"operator:{name or 'unknown'}"


def refused(exc: Refused) -> NoReturn:
    """A refused request changed nothing (its transaction rolled back): say why on stderr, exit 1."""
    typer.echo(f"refused: {exc.code}: {exc.detail}", err=True)
    raise typer.Exit(1)


@ledger_cli.command("show")
def ledger_show(
    user: str = typer.Argument(..., help="User id."),
    subject: str = typer.Option("", "--subject", help="Subject or subject prefix (ellahome, user.sister)."),
    as_of: str = typer.Option("", "--as-of", help="The world as the ledger held it at this ISO-8601 time."),
    show_history: bool = typer.Option(False, "--history", help="Every fact ever recorded, with status changes."),
    brief: bool = typer.Option(False, "--brief", help="Print the world brief the reply model is shown."),
    anchors: bool = typer.Option(False, "--anchors", help="The narrative anchors: each element's first canon fact."),
) -> None:
    """Current facts of one user's world (or as of a time, its whole history, or its narrative anchors)."""
    from adapters import db
    from adapters.settings import get_settings
    from ella.ledger.brief import world_brief
    from models import ledger

    with db.autocommit_scope() as session:
        if brief:
            typer.echo(world_brief(ledger.current(session, user), get_settings().world_brief_max_tokens))
            return
        if anchors:
            facts, changes = ledger.narrative_anchors(session, user), []
        elif show_history:
            facts = ledger.history(session, user, subject or None)
            changes = ledger.events(session, user, [f.id for f in facts])
        elif as_of:
            facts, changes = ledger.as_of(session, user, _when(as_of), subject or None), []
        else:
            facts, changes = ledger.current(session, user, subject or None), []
    if not facts:
        typer.echo(f"no facts for {user!r}" + (f" under {subject!r}" if subject else ""), err=True)
        raise typer.Exit(1)
    table = Table("id", "tier", "status", "subject", "predicate", "object", "conf", "recorded", "retired", "supersedes")
    for f in facts:
        table.add_row(str(f.id), f.tier, f.status, f.subject, f.predicate, f.object[:60], f"{f.confidence:.2f}",
                      _stamp(f.recorded_at), _stamp(f.retired_at), str(f.supersedes or ""))  # fmt: skip
    console = _console()
    console.print(table)
    for change in changes:
        console.print(f"{_stamp(change.at)}  fact {change.fact_id}: {change.from_status} -> {change.to_status}"
                      f" by {change.writer}: {change.note}")  # fmt: skip


@ledger_cli.command("retire")
def ledger_retire(
    user: str = typer.Argument(..., help="User id."),
    fact: int = typer.Argument(..., help="Fact id (a live one)."),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the fact's status note and the audit)."),
    by: str = typer.Option("", "--by", help="Who retires it (default: the login name)."),
) -> None:
    """Withdraw one live fact, keeping its words in the history (a lifecycle retirement, not a forget)."""
    from adapters import db
    from models.forgetting import Refused, retire_fact

    try:
        with db.session_scope() as session:
            retired = retire_fact(session, user, fact, actor=operator_actor(by), reason=reason)
            retired_id = retired.id
    except Refused as exc:
        refused(exc)
    _console().print(f"retired fact {retired_id}")


@ledger_cli.command("correct")
def ledger_correct(
    user: str = typer.Argument(..., help="User id."),
    fact: int = typer.Argument(..., help="Fact id (a live one)."),
    value: str = typer.Argument(..., help="The corrected object (1 to 400 characters)."),
    reason: str = typer.Option(..., "--reason", help="Why (kept on the superseded fact and the audit)."),
    by: str = typer.Option("", "--by", help="Who corrects it (default: the login name)."),
) -> None:
    """Supersede one live fact with VALUE (same subject, predicate and tier; an operator may correct canon)."""
    from adapters import db
    from models.forgetting import Refused, correct_fact

    try:
        with db.session_scope() as session:
            corrected = correct_fact(session, user, fact, value, actor=operator_actor(by), reason=reason)
            new_id = corrected.id
    except Refused as exc:
        refused(exc)
    _console().print(f"fact {fact} corrected: new fact {new_id}")


@selflog_cli.command("show")
def selflog_show(user: str = typer.Argument(..., help="User id."), limit: int = typer.Option(20)) -> None:
    """Ella's recent first-person statements to one user, newest last."""
    from adapters import db
    from models.selflog import all_entries

    with db.autocommit_scope() as session:
        entries = all_entries(session, user)[-limit:]
    if not entries:
        typer.echo(f"no self-log entries for {user!r}", err=True)
        raise typer.Exit(1)
    table = Table("id", "said", "content", "about", "conf.", "sources")
    for e in entries:
        table.add_row(str(e.id), _stamp(e.said_at), e.content, ", ".join(e.topics), f"{e.confidence_in_event:.2f}",
                      ", ".join(json.loads(e.sources)))  # fmt: skip
    _console().print(table)


@review_cli.command("contested")
def review_contested(
    resolve: int = typer.Option(0, "--resolve", help="Review id to resolve."),
    winner: int = typer.Option(0, "--winner", help="Fact id that stands (with --resolve)."),
    by: str = typer.Option("operator", "--by", help="Who resolves (kept on the review)."),
    note: str = typer.Option("", "--note", help="Why (kept in the losers' status note)."),
) -> None:
    """List the contests the model could not decide; ``--resolve ID --winner FACT`` settles one."""
    from adapters import db
    from ella.ledger.rules import FactConflict
    from models import ledger
    from models.review import FactReview, open_reviews
    from models.supersession import resolve_contest

    if resolve:
        with db.session_scope() as session:
            review = session.get(FactReview, resolve)
            if review is None or review.resolved_at is not None:
                typer.echo(f"no open review {resolve}", err=True)
                raise typer.Exit(1)
            if winner not in review.ids:
                typer.echo(f"fact {winner} is not part of review {resolve} (facts {review.ids})", err=True)
                raise typer.Exit(2)
            losers = [i for i in review.ids if i != winner]
            try:
                resolve_contest(session, review.user_id, winner, losers, "operator", note or f"resolved by {by}")
            except FactConflict as exc:
                typer.echo(f"cannot resolve review {resolve}: {exc}", err=True)
                raise typer.Exit(3) from exc
            review.resolved_at, review.resolved_by, review.winner_fact_id = datetime.now(UTC), by, winner
        typer.echo(f"review {resolve}: fact {winner} stands; {len(losers)} superseded")
        return
    with db.autocommit_scope() as session:
        reviews = open_reviews(session)
        facts = {f.id: f for r in reviews for f in ledger.history(session, r.user_id, r.subject) if f.id in r.ids}
    if not reviews:
        typer.echo("no contests waiting for review")
        return
    table = Table("review", "user", "subject", "predicate", "tier", "candidates (fact id: object)", "reason")
    for r in reviews:
        candidates = "; ".join(f"{i}: {facts[i].object}" if i in facts else str(i) for i in r.ids)
        table.add_row(str(r.id), r.user_id, r.subject, r.predicate, r.tier, candidates, r.reason[:80])
    _console().print(table)


@world_cli.command("show")
def world_show(user: str = typer.Argument(..., help="User id.")) -> None:
    """Each world subject: its value, when it was last ticked, until when it holds, and whether the Redis cache
    holds it (warm) or the next read will take it from the ledger (cold). Reads only: nothing is ticked."""
    from adapters import db
    from adapters.world_cache import get_world_cache
    from ella.world.lazy import fresh_until, is_fresh
    from ella.world.tickers import WorldView, tickers
    from models import ledger

    now = datetime.now(UTC)
    cached = get_world_cache().cached(user)
    with db.autocommit_scope() as session:
        view = WorldView(user, ledger.user_zone(session, user), ledger.current(session, user))
    table = Table("subject", "value", "tier", "last ticked", "fresh until", "cache")
    for ticker in tickers():
        entry, fact = cached.get(ticker.subject), view.live(ticker.subject)
        if entry is not None:
            state = "warm" if is_fresh(entry.until, now) else "stale"
            table.add_row(ticker.subject, entry.text, entry.tier, _stamp(entry.touched), _stamp(entry.until), state)
        elif fact is not None:
            until = fresh_until(ticker.staleness, fact.valid_from, view.zone)
            table.add_row(ticker.subject, fact.object, fact.tier, _stamp(fact.valid_from), _stamp(until),
                          "cold (ledger)" + ("" if is_fresh(until, now) else ", stale"))  # fmt: skip
        else:
            table.add_row(ticker.subject, "", "", "", "", "cold (never ticked)")
    _console().print(table)
    print_image_anchors(user)


def print_image_anchors(user: str, console: Console | None = None) -> int:
    """The user's image anchors, every version (the current one marked), each with whether its bytes are in the
    image store; the number of versions. Part of ``ella world show``."""
    from adapters import db
    from adapters.images import image_store
    from models.images import all_versions

    with db.autocommit_scope() as session:
        versions = all_versions(session, user)
    console = console or _console()
    if not versions:
        console.print(f"no image anchors for {user!r} (none referenced yet)")
        return 0
    store = image_store()
    table = Table("entity", "version", "current", "sha256", "bytes", "drawn from fact", "created", "superseded",
                  "prompt", title="image anchors")  # fmt: skip
    for a in versions:
        table.add_row(a.entity, str(a.version), "yes" if a.current else "", a.sha256[:16],
                      "stored" if store.has(a.sha256) else "MISSING", str(a.fact_id or ""), _stamp(a.created_at),
                      _stamp(a.superseded_at), a.prompt[:60])  # fmt: skip
    console.print(table)
    return len(versions)
