"""``ella guard`` (classify, eval) and ``ella compliance report``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

guard_cli = typer.Typer(help="The boundary guard.", no_args_is_help=True)
compliance_cli = typer.Typer(help="Reports operators file.", no_args_is_help=True)


@guard_cli.command("classify")
def guard_classify() -> None:
    """One message per line on stdin; one JSON object per line out: text, category, severity, route."""
    from ella.guard.evaluate import classify_lines

    for row in classify_lines(sys.stdin):
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        sys.stdout.flush()


@guard_cli.command("eval")
def guard_eval(
    path: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSON lines: text, label"),
    semantic: bool = typer.Option(
        True, "--semantic/--no-semantic", help="With the learned stage (the default), or the rules and n-gram model."
    ),
) -> None:
    """Recall per category and the false-positive rate on a labelled file; the last line is JSON."""
    from functools import partial

    from ella.guard import DETECTOR_VERSION, classify
    from ella.guard.evaluate import evaluate

    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append({"text": str(row["text"]), "label": str(row["label"]), "kind": str(row.get("kind", ""))})
        except (ValueError, KeyError, TypeError) as exc:
            typer.echo(f"{path}:{number}: not a JSON object with text and label ({exc})", err=True)
            raise typer.Exit(2) from exc
    result = evaluate(rows, partial(classify, semantic=semantic))
    for category, recall in sorted(result["recall"].items()):
        typer.echo(f"recall {category:<20} {recall:.3f}  (n={result['n'].get(category, 0)})")
    typer.echo(f"false-positive rate      {result['false_positive_rate']:.3f}  (n={result['n'].get('ok', 0)})")
    summary = {
        "detector_version": DETECTOR_VERSION,
        "semantic": semantic,
        "recall": result["recall"],
        "false_positive_rate": result["false_positive_rate"],
        "n": result["n"],
    }
    typer.echo(json.dumps(summary))


@compliance_cli.command("report")
def compliance_report(year: int = typer.Option(..., "--year", help="Calendar year (UTC).")) -> None:
    """The yearly count of crisis referrals (California SB 243); anonymous: no user ids, no text."""
    from adapters import db
    from models.boundary import referrals_in_year

    with db.autocommit_scope() as session:
        counts = referrals_in_year(session, year)
    typer.echo(json.dumps({"year": year, "crisis_referrals": sum(counts.values()), "by_category": counts}))
