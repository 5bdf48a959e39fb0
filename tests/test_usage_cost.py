"""Model usage priced per user per day, on both back ends, and `ella cost`; unpriced models are named."""

from __future__ import annotations

from dataclasses import astuple
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from adapters import db
from cli.main import cli
from ella.usage import DEFAULT_PRICES, ModelPrice, PriceList, Tokens, Unpriced
from models import ModelCall
from models.usage import spend_per_user_day

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
                call("bob", 28, "unpriced-model", input_tokens=5_000),  # not in the table: counted, not priced
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
    from adapters.settings import get_settings

    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["cost", "--user", "ann", "--since", "2026-11-27"], terminal_width=200)
    get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert "2026-11-27" in result.output and "bob" not in result.output
    assert "total USD 8.8500" in result.output


def test_a_model_without_a_price_is_reported_unpriced_not_free(migrated_db):
    seed()
    with db.autocommit_scope() as s:
        rows = {(r.day, r.user_id): r for r in spend_per_user_day(s, PRICES, batch_factor=0.5)}
    bob = rows[("2026-11-28", "bob")]
    assert bob.unpriced == (Unpriced("unpriced-model", 1, Tokens(input=5_000)),)
    assert bob.usd == 5.0 and bob.input_tokens == 5_000  # the priced calls only; the tokens all counted
    assert rows[("2026-11-27", "ann")].unpriced == () and rows[("2026-11-28", "ann")].unpriced == ()


def test_ella_cost_warns_about_each_model_without_a_price(migrated_db, monkeypatch):
    seed()
    monkeypatch.setenv("ELLA_PRICES", '{"big": {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.3}}')
    from adapters.settings import get_settings

    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["cost"], terminal_width=200)
    get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: model 'small' has no price (ELLA_PRICES): 2 calls, 3000000 tokens (2000000 input, 1000000 output, "
        "0 cache write, 0 cache read) are not in the USD figures",
        "warning: model 'unpriced-model' has no price (ELLA_PRICES): 1 call, 5000 tokens (5000 input, 0 output, "
        "0 cache write, 0 cache read) are not in the USD figures",
    ]
    assert "total USD 8.8500" in result.stdout  # ann's day of "big"; the rest is named above, not priced at $0


@pytest.mark.domain
def test_the_offline_model_is_priced_at_zero_explicitly():
    tokens = Tokens(1_000, 1_000, 1_000, 1_000)
    assert PriceList({}).usd("offline", tokens) == 0.0  # priced, even by a table that does not list it
    assert PriceList().usd("offline", tokens, batch=True) == 0.0
    assert PriceList({}).usd("claude-sonnet-4-6", tokens) is None


@pytest.mark.domain
def test_cache_prices_default_to_multiples_of_the_input_price_and_batches_cost_the_factor():
    derived = ModelPrice.from_mapping("m", {"input": 3.0, "output": 15.0})
    assert astuple(derived) == pytest.approx((3.0, 15.0, 3.75, 0.3))
    assert ModelPrice.from_mapping("m", {"input": 3.0, "output": 15.0, "cache_read": 0.5}).cache_read == 0.5
    with pytest.raises(ValueError, match="lacks output"):
        ModelPrice.from_mapping("m", {"input": 3.0})
    prices = PriceList({"m": {"input": 2.0, "output": 10.0}}, batch_factor=0.5)
    assert prices.usd("m", Tokens(input=1_000_000, output=100_000)) == pytest.approx(3.0)
    assert prices.usd("m", Tokens(input=1_000_000, output=100_000), batch=True) == pytest.approx(1.5)


@pytest.mark.domain
def test_the_default_price_table_agrees_with_the_settings_default():
    from adapters.settings import Settings

    configured = PriceList(Settings().prices).prices
    assert set(configured) == set(DEFAULT_PRICES)
    for model, price in DEFAULT_PRICES.items():
        assert astuple(configured[model]) == pytest.approx(astuple(price)), model
