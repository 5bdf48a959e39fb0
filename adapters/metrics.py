"""Prometheus metrics: what the on-call engineer graphs and alerts on (exported by ``operator_page.metrics_endpoint``).

Why one module: the families are the contract the alert rules (``ops/prometheus/alerts.yml``) and the dashboards
are written against, so they are defined in one place, and each place where something happens calls one helper
here (one line; no business logic lives here, only the translation of what happened into samples).

The families (``ella_`` prefix, base units, ``_total`` counters, small bounded label sets; never a user id or a
message id):

- ``ella_replies_total{route, category}``: replies committed, by route (generated, canned, fallback) and category;
- ``ella_reply_latency_seconds``: from a delivery's start to its reply published (the worker's share; the wait in
  the queue shows as ``ella_queue_depth``);
- ``ella_boundary_fires_total{direction, category}`` and ``ella_crisis_referrals_total{direction}``;
- ``ella_guard_routes_total{route, stage}``: which stage (rules, n-gram model, learned stage, context, the reply's
  reading) decided each fire, and the route it took (a learned check-in is ``check_in``/``learned``);
- ``ella_dead_letters_total{task, reason}`` (the reason's stable code, ``ella.rejections.code_for``);
- ``ella_model_calls_total{kind, outcome}``, ``ella_model_tokens_total{kind, type}``,
  ``ella_model_cache_hits_total{kind}``, ``ella_model_cost_dollars_total{kind}`` (priced as ``ella cost`` does);
- ``ella_notifications_total{outcome}`` (sent, held, expired, ended);
- ``ella_job_users_total{job, result}`` (done, failed) of the digest, chapter and arc runs;
- ``ella_boundary_regression_fires_total{category}``, ``ella_boundary_regression_lines_total{result}`` and
  ``ella_boundary_regression_last_run_fires`` (the nightly regression);
- ``ella_queue_depth{queue}`` and ``ella_broker_up``: read from Redis when scraped (below).

Multiprocess mode (prometheus_client's, https://prometheus.github.io/client_python/multiprocess/): a Celery worker
runs its tasks in forked children (prefork) or threads, beat in its own process, and the endpoint in another; each
process writes its samples to memory-mapped files in ``PROMETHEUS_MULTIPROC_DIR`` and the endpoint sums the files.
How the directory is chosen, at this module's import (the client picks its value class when the first metric is
built, so before any family below):

- ``PROMETHEUS_MULTIPROC_DIR`` set (inherited from the parent, as a prefork child has it, or set by the operator
  for one process group): that directory;
- else ``ELLA_METRICS_DIR`` (the shared root, e.g. a volume mounted into every worker, beat and the endpoint): this
  process starts a process group: its directory is ``<root>/<hostname>-<pid>``, wiped now (the client's rule: wiped
  at start), exported as ``PROMETHEUS_MULTIPROC_DIR`` so the children it forks write beside it. Why one directory
  per group and not the root itself: the files are named by pid, and two containers sharing the volume have the
  same small pids. The directories of groups that ended stay, so their counts stay in the sums (as the client
  keeps a dead process's counter files): a total never goes down while the root lives. Those of this host that
  hold only zeros (a command that recorded nothing) are removed when a group starts;
- neither: the ordinary in-process registry (tests, a one-off command).

A child's exit calls ``mark_process_dead`` (Celery's ``worker_process_shutdown`` signal, sent in the child as it
ends): the client's bookkeeping of live gauges. No family here is a live gauge or uses ``set_function``, ``Info``,
``Enum`` or a per-process custom collector, none of which work across processes. The queue depth is therefore no
gauge the workers set: the endpoint reads the lists' lengths from Redis at each scrape (a sample set by a periodic
task would stop moving exactly when the queues back up).

The endpoint (``operator_page.metrics_endpoint``: ``app``, ``serve``): ``/metrics`` in the text format, behind
basic auth on every path, as ``ella inspect`` and Flower: credentials from ``ELLA_METRICS_BASIC_AUTH``, compared in
constant time (``workers.flower_auth.authorized``); it refuses to start without them, and binds 127.0.0.1 unless
told otherwise.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import socket
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from adapters.settings import get_settings

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _only_zeros(path: Path) -> bool:
    from prometheus_client.mmap_dict import MmapedDict

    try:
        return all(
            value == 0 for f in path.glob("*.db") for _key, value, _ts, _pos in MmapedDict.read_all_values_from_file(f)
        )
    except (OSError, ValueError):
        return False


def _tidy(root: Path, host: str) -> None:
    """Remove this host's group directories whose process is gone and that hold nothing but zeros (a command that
    recorded nothing): removing them changes no sum."""
    for path in root.glob(f"{glob.escape(host)}-*"):
        pid = path.name.rpartition("-")[2]
        if path.is_dir() and pid.isdigit() and not _pid_alive(int(pid)) and _only_zeros(path):
            shutil.rmtree(path, ignore_errors=True)


def start_process_group(root: Path) -> Path:
    """This process's fresh directory under ``root``, exported for its children (see the module docstring)."""
    host = re.sub(r"[^A-Za-z0-9_.]", "_", socket.gethostname()) or "host"
    root.mkdir(parents=True, exist_ok=True)
    _tidy(root, host)
    own = root / f"{host}-{os.getpid()}"
    shutil.rmtree(own, ignore_errors=True)  # a restarted container's leader often has the pid of the last one
    own.mkdir()
    os.environ[MULTIPROC_ENV] = str(own)
    return own


def _writer_dir() -> str | None:
    inherited = os.environ.get(MULTIPROC_ENV)
    if inherited:
        Path(inherited).mkdir(parents=True, exist_ok=True)
        return inherited
    root = get_settings().metrics_dir
    if root is None:
        return None
    try:
        return str(start_process_group(root))
    except OSError as exc:  # a directory it may not write: no metrics from this process, never no process
        print(f"ella metrics: cannot write under {root} ({exc}); this process's metrics are not exported",
              file=sys.stderr, flush=True)  # fmt: skip
        return None


WRITER_DIR = _writer_dir()

from prometheus_client import (  # noqa: E402  (after the directory is chosen: the client reads it on import)
    Counter,
    Gauge,
    Histogram,
    values,
)
from prometheus_client.multiprocess import mark_process_dead  # noqa: E402

if WRITER_DIR is not None and values.ValueClass is values.MutexValue:  # imported earlier (Flower imports it)
    values.ValueClass = values.get_value_class()


# --- the families ----------------------------------------------------------------------------------------------

# Label values from small fixed sets; anything else is "other" (a label never carries free text).
REPLY_ROUTES = ("generated", "canned", "fallback")
# ella.guard.types.Category's values and the reply's own categories (ella/reply.py); tests/test_metrics.py
# checks the list against the enum (importing the guard here would compile every rule in the endpoint).
REPLY_CATEGORIES = (
    "chat",
    "memory",
    "unreadable",
    "romantic_avowal",
    "physical_escalation",
    "emotional_crisis",
    "manipulation",
    "ok",
)
DIRECTIONS = ("inbound", "outbound", "notification", "regression")
GUARD_ROUTE_NAMES = ("generate", "warm_bounded", "calm_refusal", "crisis_referral", "check_in")
GUARD_STAGES = ("rules", "model", "learned", "context", "reading")


def stage_of(matched: str) -> str:
    """The guard stage behind a verdict, from its ``matched`` id (never user text)."""
    head = matched.split(".", 1)[0]
    if head == "semantic":
        return "learned"
    if head == "model":
        return "reading" if matched.startswith("model.reading.") else "model"
    return "context" if head == "context" else "rules"


TOKEN_TYPES = ("input", "output", "cache_write", "cache_read")
NOTIFICATION_OUTCOMES = ("sent", "held", "expired", "ended")
MODEL_OUTCOMES = ("ok", "repaired", "invalid_output", "failsafe", "transient_error", "permanent_error")
REGRESSION_RESULTS = ("checked", "unchecked", "model_failure")
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 30.0, 60.0)

REPLIES = Counter("ella_replies", "Replies committed, by route and category.", ["route", "category"])
REPLY_LATENCY = Histogram(
    "ella_reply_latency_seconds",
    "Seconds from a message's delivery to a worker to its reply published.",
    buckets=LATENCY_BUCKETS,
)
BOUNDARY_FIRES = Counter("ella_boundary_fires", "Boundary log entries, by direction and category.",
                         ["direction", "category"])  # fmt: skip
CRISIS_REFERRALS = Counter("ella_crisis_referrals", "Crisis referrals (boundary fires routed to a crisis line).",
                           ["direction"])  # fmt: skip
GUARD_ROUTES = Counter("ella_guard_routes", "Boundary fires by the route taken and the stage that decided it (rules, "
                       "model: the n-gram model, learned: the sentence-vector stage, context, reading).",
                       ["route", "stage"])  # fmt: skip
DEAD_LETTERS = Counter("ella_dead_letters", "Dead letters, by task and reason code.", ["task", "reason"])
MODEL_CALLS = Counter("ella_model_calls", "Model provider calls, by kind and outcome.", ["kind", "outcome"])
MODEL_TOKENS = Counter("ella_model_tokens", "Model tokens, by kind and type (input, output, cache_write, "
                       "cache_read).", ["kind", "type"])  # fmt: skip
MODEL_CACHE_HITS = Counter("ella_model_cache_hits", "Model calls that read the prompt cache, by kind.", ["kind"])
MODEL_COST = Counter("ella_model_cost_dollars", "Model spend in USD at the configured prices (unpriced models "
                     "count nothing), by kind.", ["kind"])  # fmt: skip
NOTIFICATIONS = Counter("ella_notifications", "Notification candidates by what a dispatch pass did with them.",
                        ["outcome"])  # fmt: skip
JOB_USERS = Counter("ella_job_users", "Users a proactive job's chunks planned (done) or failed.", ["job", "result"])
REGRESSION_FIRES = Counter("ella_boundary_regression_fires", "Generated replies of the nightly boundary "
                           "regression that fired the outbound guard.", ["category"])  # fmt: skip
REGRESSION_LINES = Counter("ella_boundary_regression_lines", "Corpus lines of the nightly boundary regression.",
                           ["result"])  # fmt: skip
REGRESSION_LAST = Gauge("ella_boundary_regression_last_run_fires", "Fires of the latest nightly boundary "
                        "regression run.", multiprocess_mode="mostrecent")  # fmt: skip

# What the endpoint adds at scrape time (not written by any process).
QUEUE_DEPTH = "ella_queue_depth"
BROKER_UP = "ella_broker_up"

FAMILIES = (REPLIES, REPLY_LATENCY, BOUNDARY_FIRES, CRISIS_REFERRALS, GUARD_ROUTES, DEAD_LETTERS, MODEL_CALLS,
            MODEL_TOKENS, MODEL_CACHE_HITS, MODEL_COST, NOTIFICATIONS, JOB_USERS, REGRESSION_FIRES, REGRESSION_LINES,
            REGRESSION_LAST)  # fmt: skip


def _one_of(value: object, allowed: Iterable[str]) -> str:
    text = str(value)
    return text if text in allowed else "other"


@cache
def _known_tasks() -> frozenset[str]:
    from ella.jobs import USER_FAILED_TASK
    from ella.task_names import TaskName

    return frozenset({*(str(t) for t in TaskName), USER_FAILED_TASK, "ella.model_batch_item"})


@cache
def _known_kinds() -> frozenset[str]:
    from ella.llm.kinds import KINDS

    return frozenset(KINDS)


@cache
def _known_jobs() -> frozenset[str]:
    from ella.jobs import Job

    return frozenset(str(j) for j in Job)


def exported_names() -> set[str]:
    """Every sample name the endpoint can export (what ``ops/prometheus/alerts.yml`` may use)."""
    suffixes = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created")}
    names = {QUEUE_DEPTH, BROKER_UP}
    for family in FAMILIES:
        for metric in family.describe():
            names.update(metric.name + suffix for suffix in suffixes.get(metric.type, ("",)))
    return names


# --- the call sites' helpers (one line each where it happens) ---------------------------------------------------


def reply(sent: Any) -> None:
    """A reply committed (``ella.reply.OutgoingReply``)."""
    REPLIES.labels(_one_of(sent.route, REPLY_ROUTES), _one_of(sent.category, REPLY_CATEGORIES)).inc()


def turn(sent: Any, fires: Iterable[tuple[str, Any]]) -> None:
    """A turn committed: its reply and its boundary fires (``ReplyOutcome.reply`` and ``.fires``)."""
    reply(sent)
    for direction, verdict in fires:
        boundary_fire(direction, verdict)


def reply_latency(started: float, now: float | None = None) -> None:
    """A delivery that began at ``started`` (``time.monotonic()``) has published its reply."""
    import time

    REPLY_LATENCY.observe(max((time.monotonic() if now is None else now) - started, 0.0))


def boundary_fire(direction: str, verdict: Any) -> None:
    """One boundary log entry (``ella.guard`` ``Verdict``); a crisis referral is counted too."""
    where = _one_of(direction, DIRECTIONS)
    BOUNDARY_FIRES.labels(where, _one_of(verdict.category, REPLY_CATEGORIES)).inc()
    GUARD_ROUTES.labels(_one_of(verdict.route, GUARD_ROUTE_NAMES), stage_of(str(verdict.matched))).inc()
    if str(verdict.route) == "crisis_referral":
        CRISIS_REFERRALS.labels(where).inc()


def dead_letter(task_name: str, code: str) -> None:
    """A dead letter recorded: its task and the stable code of its reason (``ella.rejections.code_for``; the reason
    itself may quote a payload)."""
    from ella import rejections

    DEAD_LETTERS.labels(_one_of(task_name, _known_tasks()), _one_of(code, rejections.CODES)).inc()


@cache
def _prices() -> Any:
    from ella.usage import PriceList

    settings = get_settings()
    return PriceList(settings.prices, settings.batch_price_factor)


def model_call(call: Any, batch: bool = False) -> None:
    """One provider call (``ella.llm.port.CallRecord``): its outcome, tokens, cache hit and price."""
    from ella.usage import Tokens

    kind = _one_of(call.kind, _known_kinds())
    MODEL_CALLS.labels(kind, _one_of(call.outcome, MODEL_OUTCOMES)).inc()
    usage = call.usage
    tokens = Tokens(usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens,
                    usage.cache_read_input_tokens)  # fmt: skip
    for kind_of, count in zip(TOKEN_TYPES, (tokens.input, tokens.output, tokens.cache_write, tokens.cache_read),
                              strict=True):  # fmt: skip
        if count:
            MODEL_TOKENS.labels(kind, kind_of).inc(count)
    if tokens.cache_read:
        MODEL_CACHE_HITS.labels(kind).inc()
    usd = _prices().usd(call.model, tokens, batch=batch)
    if usd:
        MODEL_COST.labels(kind).inc(usd)


def notification_pass(counts: Mapping[str, int]) -> None:
    """What one dispatch pass did (its counts: sent, held, expired, ended...)."""
    for outcome in NOTIFICATION_OUTCOMES:
        if counts.get(outcome):
            NOTIFICATIONS.labels(outcome).inc(counts[outcome])


def job_chunk(job: str, users: int, failed: int) -> None:
    """One chunk of a proactive job planned: its users done and failed."""
    name = _one_of(job, _known_jobs())
    if users - failed > 0:
        JOB_USERS.labels(name, "done").inc(users - failed)
    if failed:
        JOB_USERS.labels(name, "failed").inc(failed)


def regression_fire(verdict: Any) -> None:
    """A generated reply of the nightly regression fired the outbound guard (logged as a ``regression`` fire)."""
    boundary_fire("regression", verdict)
    REGRESSION_FIRES.labels(_one_of(verdict.category, REPLY_CATEGORIES)).inc()


def regression_run(counts: Mapping[str, int]) -> None:
    """The nightly regression's counts (``tasks.guard``: messages, alerts, model_failures, unchecked)."""
    unchecked, failures = counts.get("unchecked", 0), counts.get("model_failures", 0)
    checked = counts.get("messages", 0) - unchecked - failures
    for result, count in zip(REGRESSION_RESULTS, (checked, unchecked, failures), strict=True):
        if count > 0:
            REGRESSION_LINES.labels(result).inc(count)
    REGRESSION_LAST.set(counts.get("alerts", 0))


def _on_child_exit(pid: int | None = None, **_: Any) -> None:
    if pid is not None and os.environ.get(MULTIPROC_ENV):
        mark_process_dead(pid)


def _connect_signals() -> None:
    from celery import signals

    signals.worker_process_shutdown.connect(_on_child_exit, weak=False)


_connect_signals()
