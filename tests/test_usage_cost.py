"""The usage ledger priced per user per day, on both back ends, and `ella cost`."""

from __future__ import annotations

from datetime import UTC, datetime

from typer.testing import CliRunner

from models import ModelCall
from models.usage import spend_per_user_day
from workers import db
from workers.cli import cli

PRICES = {
    "big": {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30},
    "small": {"input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.10},
}


def call(user: str, day: int, model: str, batch: bool = False, **tokens: int) -> ModelCall:
    return ModelCall(
        created_at=datetime(2026, 11, day, 23, 30, tzinfo=UTC),
        user_id=user,
        kind="reply",
        tier="live_reply",
        model=model,
        provider="anthropic",
        batch=batch,
        outcome="ok",
        **tokens,
    )


def seed() -> None:
    with db.session_scope() as s:
        s.add_all(
            [
                call("ann", 27, "big", input_tokens=1_000_000, output_tokens=100_000),  # 3 + 1.5
                call("ann", 27, "big", cache_read_tokens=2_000_000, cache_write_tokens=1_000_000),  # 0.6 + 3.75
                call("ann", 28, "small", batch=True, input_tokens=2_000_000),  # half of 2
                call("bob", 28, "small", output_tokens=1_000_000),  # 5
                call("bob", 28, "unpriced-model", input_tokens=5_000),  # not in the table: counted, priced 0
            ]
        )


def test_spend_is_priced_per_model_per_user_per_day_and_batches_cost_half(migrated_db):
    seed()
    with db.autocommit_scope() as s:
        rows = spend_per_user_day(s, PRICES, batch_factor=0.5)
    got = {(r.day, r.user_id): (r.calls, round(r.usd, 6)) for r in rows}
    assert got == {("2026-11-27", "ann"): (2, 8.85), ("2026-11-28", "ann"): (1, 1.0), ("2026-11-28", "bob"): (2, 5.0)}


def test_spend_filters_by_user_and_since(migrated_db):
    seed()
    with db.autocommit_scope() as s:
        only_bob = spend_per_user_day(s, PRICES, 0.5, user_id="bob")
        since = spend_per_user_day(s, PRICES, 0.5, since=datetime(2026, 11, 28, tzinfo=UTC))
    assert {r.user_id for r in only_bob} == {"bob"}
    assert {r.day for r in since} == {"2026-11-28"}


def test_ella_cost_prints_the_table_and_the_total(migrated_db, monkeypatch):
    seed()
    monkeypatch.setenv("ELLA_PRICES", '{"big": {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.3}}')
    from workers.settings import get_settings

    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["cost", "--user", "ann", "--since", "2026-11-27"], terminal_width=200)
    get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert "2026-11-27" in result.output and "bob" not in result.output
    assert "total USD 8.8500" in result.output
