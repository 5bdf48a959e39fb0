"""``ella notifications show USER`` and ``ella notifications why USER``: what Ella may say on her own, and why not yet.

``show`` lists a user's candidates with what became of each (status, reason) and what grounds it (the fact's
subject, predicate and object; the self-log entry's words), so an operator can tell a grounded message from a
generic one. ``why`` takes the next waiting candidate and runs the same decision the dispatcher runs, now: the
rule that holds it back and when it is looked at again, in the user's local time.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import typer
from rich.console import Console
from rich.table import Table

notifications_cli = typer.Typer(help="Notifications: candidates, what grounds them, and what holds them back.",
                                no_args_is_help=True)  # fmt: skip


def _console() -> Console:
    return Console() if sys.stdout.isatty() else Console(width=220)


def _stamp(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def _local(value: datetime, zone: str) -> str:
    try:
        return value.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z") + f" ({zone})"
    except (KeyError, ValueError):
        return value.strftime("%Y-%m-%d %H:%M UTC") + f" (unknown zone {zone!r})"


@notifications_cli.command("show")
def notifications_show(
    user: str = typer.Argument(..., help="User id."),
    limit: int = typer.Option(20, help="Most recent candidates."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The user's candidates, newest first: kind, status, reason, fresh until, sent, and what grounds each."""
    from adapters import db
    from models.notifications import grounds, user_candidates

    with db.autocommit_scope() as session:
        rows = user_candidates(session, user, limit)
        facts, entries = grounds(
            session, {f for r in rows for f in r.fact_ids}, {e for r in rows for e in r.self_log_ids}
        )
    out: list[dict[str, Any]] = []
    for r in rows:
        grounded: dict[str, list[dict[str, Any]]] = {
            "facts": [
                {"id": f, "subject": facts[f].subject, "predicate": facts[f].predicate, "object": facts[f].object,
                 "status": facts[f].status} if f in facts else {"id": f, "missing": True}
                for f in r.fact_ids
            ],
            "self_log": [{"id": e, "content": entries[e].content} if e in entries else {"id": e, "missing": True}
                         for e in r.self_log_ids],
        }  # fmt: skip
        out.append(
            {"id": r.id, "kind": r.kind, "status": r.status, "reason": r.reason, "body": r.body,
             "created_at": r.created_at.isoformat(), "fresh_until": r.fresh_until.isoformat(),
             "not_before": r.not_before.isoformat(), "sent_at": r.sent_at.isoformat() if r.sent_at else None,
             "outbox_record_id": r.outbox_record_id, "grounds": grounded}
        )  # fmt: skip
    if as_json:
        typer.echo(json.dumps(out, indent=2))
        return
    if not rows:
        typer.echo(f"no notification candidates for {user!r}", err=True)
        raise typer.Exit(1)
    table = Table("id", "kind", "status", "reason", "fresh until", "sent", "body", "grounds")
    for row, item in zip(rows, out, strict=True):
        lines = [
            f"fact {g['id']}: " + ("(gone)" if g.get("missing") else f"{g['subject']} {g['predicate']} {g['object']}"
                                   f" [{g['status']}]")
            for g in item["grounds"]["facts"]
        ] + [f"self-log {g['id']}: " + ("(gone)" if g.get("missing") else g["content"])
             for g in item["grounds"]["self_log"]]  # fmt: skip
        grounded_on = "\n".join(lines) or "(generic: grounded on nothing)"
        table.add_row(
            str(row.id), row.kind, row.status, row.reason or "", _stamp(row.fresh_until), _stamp(row.sent_at),
            row.body[:80], grounded_on,
        )  # fmt: skip
    _console().print(table)


@notifications_cli.command("why")
def notifications_why(user: str = typer.Argument(..., help="User id.")) -> None:
    """The next candidate and the rule that holds it back now (with when it is looked at again), or "nothing to
    send"."""
    from adapters import db
    from adapters.settings import get_settings
    from models.base import utcnow
    from models.notifications import waiting_candidates
    from tasks.notifications import decision_for, page_context, recipient_of, rules_of

    now = utcnow()
    with db.autocommit_scope() as session:
        waiting = waiting_candidates(session, user)
        if not waiting:
            typer.echo(f"nothing to send to {user!r}: no candidate is waiting")
            return
        due = waiting[0]
    page = page_context([due], now)  # what the dispatcher reads: live facts, recent sends, events over
    sent = page.sent.get(user, [])
    typer.echo(f"next: candidate {due.id} ({due.kind}) {due.body!r}")
    typer.echo(f"  fresh until {_local(due.fresh_until, due.timezone)}; {len(waiting) - 1} more waiting")
    if due.reason:
        typer.echo(f"  last held back by: {due.reason}")
    try:
        decision, reason = decision_for(due, recipient_of(due, now, sent), now, page, rules_of(get_settings()))
    except Exception as exc:  # an operator's view: say what is wrong with the profile
        typer.echo(f"  cannot decide: {type(exc).__name__}: {exc}")
        raise typer.Exit(1) from exc
    if decision.send:
        if due.not_before > now:
            typer.echo(
                f"  nothing holds it back now; the dispatcher looks at it from {_local(due.not_before, due.timezone)}"
            )
        else:
            typer.echo("  nothing holds it back: it goes out with the next dispatch pass")
        return
    if decision.final_status is not None:
        typer.echo(f"  held back by: {reason} (final: the next pass marks it {decision.final_status.value})")
        return
    again = min(decision.not_before or due.fresh_until, due.fresh_until)
    typer.echo(f"  held back by: {reason}, until {_local(again, due.timezone)}")
