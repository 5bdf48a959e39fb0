"""Prometheus metrics (adapters/metrics.py, operator_page/metrics_endpoint.py): call sites to samples, the endpoint,
multiprocess mode, the alert rules.

What is real here: the call sites' own code (a dead letter recorded, a model call's usage sink, the nightly
regression), the prometheus_client multiprocess files written by separate processes (and a forked child), the
endpoint under uvicorn read over HTTP, and one end-to-end run of a real prefork worker writing into a metrics
directory that is then scraped.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2 as httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from adapters import metrics
from adapters.settings import get_settings
from operator_page import metrics_endpoint as exporter
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parents[1]
ALERTS = ROOT / "ops" / "prometheus" / "alerts.yml"
AUTH = ("prom", "s3cret-scrape")


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """(sample name, sorted labels) -> value, from the text format (parsed by prometheus_client's own parser)."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def family_total(text: str, name: str) -> float:
    """Sum of a family's samples (a histogram: its count)."""
    got = samples(text)
    wanted = {name, name + "_total", name + "_count"}
    return sum(v for (n, _labels), v in got.items() if n in wanted)


def in_process() -> str:
    """A scrape of this process's registry (no multiprocess directory in the test process)."""
    assert metrics.WRITER_DIR is None, "the test process must not write multiprocess files"
    return exporter.scrape(None, exporter.QueueDepthCollector(client=_Unreachable())).decode()


class _Unreachable:
    def pipeline(self, transaction: bool = False):
        import redis

        raise redis.ConnectionError("not in this test")


# --- definitions ---------------------------------------------------------------------------------------------


def test_families_follow_prometheus_naming_and_never_label_a_person_or_a_message():
    for family in metrics.FAMILIES:
        (described,) = family.describe()
        assert described.name.startswith("ella_"), described.name
        assert described.name == described.name.lower()
        if described.type == "histogram":
            assert described.name.endswith("_seconds"), f"{described.name}: a histogram of seconds (base unit)"
        labels = set(family._labelnames)
        assert not labels & {"user", "user_id", "message", "message_id", "conversation_id", "task_id", "text"}
        assert len(labels) <= 2
    exported = metrics.exported_names()
    assert "ella_replies_total" in exported and "ella_replies" not in exported
    assert {"ella_reply_latency_seconds_bucket", "ella_queue_depth", "ella_broker_up"} <= exported


def test_label_values_come_from_small_fixed_sets():
    from ella.guard.types import Category

    assert {str(c) for c in Category} <= set(metrics.REPLY_CATEGORIES)
    before = in_process()
    metrics.dead_letter("ella.some_name_nobody_registered_" + uuid.uuid4().hex, "failed")
    metrics.reply(type("R", (), {"route": "generated", "category": "whatever " + uuid.uuid4().hex})())
    after = in_process()
    assert value(after, "ella_dead_letters_total", task="other", reason="failed") == (
        value(before, "ella_dead_letters_total", task="other", reason="failed") + 1
    )
    assert value(after, "ella_replies_total", route="generated", category="other") == (
        value(before, "ella_replies_total", route="generated", category="other") + 1
    )


# --- call sites ----------------------------------------------------------------------------------------------


def test_a_dead_letter_recorded_at_its_call_site_shows_in_a_scrape(migrated_db):
    from adapters.dead_letters import record_dead_letter

    labels = {"task": "ella.perceive", "reason": "failed"}
    before = value(in_process(), "ella_dead_letters_total", **labels)
    record_dead_letter("ella.perceive", None, "failed: RuntimeError: boom", [], {"user_id": "m-" + uuid.uuid4().hex})
    assert value(in_process(), "ella_dead_letters_total", **labels) == before + 1


def test_a_model_call_counts_its_outcome_tokens_cache_hit_and_dollars(migrated_db):
    from adapters.llm import record_usage
    from ella.llm.port import CallRecord
    from ella.llm.types import Usage
    from ella.usage import PriceList, Tokens

    settings = get_settings()
    model = settings.model_live_reply
    expected_usd = PriceList(settings.prices, settings.batch_price_factor).usd(model, Tokens(1000, 200, 0, 500))
    assert expected_usd, f"{model} has a price"
    before = in_process()
    call = CallRecord(user_id="m-user", kind="reply", tier="live_reply", model=model, provider="anthropic",
                      usage=Usage(1000, 200, 0, 500), latency_ms=12.0, outcome="repaired", attempt=2)  # fmt: skip
    record_usage(call)
    after = in_process()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("ella_model_calls_total", kind="reply", outcome="repaired") == 1
    assert delta("ella_model_tokens_total", kind="reply", type="input") == 1000
    assert delta("ella_model_tokens_total", kind="reply", type="output") == 200
    assert delta("ella_model_tokens_total", kind="reply", type="cache_read") == 500
    assert delta("ella_model_cache_hits_total", kind="reply") == 1
    assert delta("ella_model_cost_dollars_total", kind="reply") == pytest.approx(expected_usd)


def test_the_nightly_regression_counts_its_lines_and_its_fires(migrated_db, monkeypatch, tmp_path):
    """The offline engine's replies never fire; a model that declares love does, on both corpus lines it answers."""
    import adapters.reply_service
    from ella.guard.classifier import prepare
    from tasks.guard import boundary_regression
    from tests.test_guard_pipeline import romantic_model
    from tests.test_world_pipeline import Scripted, use_model

    # As a worker does before its pool forks: cold, the guard's first line (its rules compiled, its models loaded)
    # can use up the run's time budget on a loaded machine, and the regression then leaves lines unchecked.
    prepare()
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"text": t}) for t in ["what should I cook?", "I love you", "hi there"]))
    monkeypatch.setenv("ELLA_GUARD_CORPUS_PATH", str(corpus))
    get_settings.cache_clear()
    try:
        before = in_process()
        boundary_regression.apply().get()
        clean = in_process()
        use_model(monkeypatch, adapters.reply_service, Scripted(romantic_model))
        drifted = boundary_regression.apply().get()
        after = in_process()
    finally:
        get_settings.cache_clear()
    assert drifted["alerts"] == 2
    assert value(clean, "ella_boundary_regression_lines_total", result="checked") == (
        value(before, "ella_boundary_regression_lines_total", result="checked") + 3
    )
    assert value(clean, "ella_boundary_regression_last_run_fires") == 0
    assert (
        family_total(after, "ella_boundary_regression_fires")
        == family_total(clean, "ella_boundary_regression_fires") + 2
    )
    assert value(after, "ella_boundary_regression_last_run_fires") == 2

    def regression_fires(text: str) -> float:  # the regression's fires are boundary fires too
        return sum(v for (n, lb), v in samples(text).items()
                   if n == "ella_boundary_fires_total" and dict(lb)["direction"] == "regression")  # fmt: skip

    assert regression_fires(after) == regression_fires(clean) + 2


# --- the queue depth, read at scrape time ---------------------------------------------------------------------


def test_queue_depth_is_read_from_the_queues_lists_when_scraped(redis_client):
    settings = get_settings()
    queue = settings.queue_batch
    keys = exporter._queue_keys(queue)
    redis_client.delete(*keys)
    try:
        redis_client.lpush(keys[0], "a", "b", "c")
        redis_client.lpush(keys[2], "d")  # a priority list (kombu's "<queue>\x06\x166")
        text = exporter.scrape(None, exporter.QueueDepthCollector(client=redis_client)).decode()
    finally:
        redis_client.delete(*keys)
    assert value(text, "ella_queue_depth", queue=queue) == 4
    assert value(text, "ella_broker_up") == 1
    assert {(n, dict(lb).get("queue")) for (n, lb) in samples(text) if n == "ella_queue_depth"} == {
        ("ella_queue_depth", q) for q in settings.queues
    }
    down = exporter.scrape(None, exporter.QueueDepthCollector(client=_Unreachable())).decode()
    assert value(down, "ella_broker_up") == 0
    assert not [n for (n, _lb) in samples(down) if n == "ella_queue_depth"]


# --- multiprocess mode ---------------------------------------------------------------------------------------

WRITER = """
import os, sys
from types import SimpleNamespace
from adapters import metrics
assert metrics.WRITER_DIR and os.environ["PROMETHEUS_MULTIPROC_DIR"] == metrics.WRITER_DIR
n = int(sys.argv[1])
for _ in range(n):
    metrics.dead_letter("ella.perceive", "failed")
metrics.reply_latency(0.0, now=0.3)
pid = os.fork()  # a prefork child: writes beside its parent, under its own pid
if pid == 0:
    metrics.reply(SimpleNamespace(route="canned", category="emotional_crisis"))
    os._exit(0)
os.waitpid(pid, 0)
print(metrics.WRITER_DIR)
"""


def write_in_a_process(root: Path, n: int) -> Path:
    env = {k: v for k, v in os.environ.items() if k != metrics.MULTIPROC_ENV}
    env["ELLA_METRICS_DIR"] = str(root)
    done = subprocess.run([sys.executable, "-c", WRITER, str(n)], env=env, capture_output=True, text=True,
                          timeout=60, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


def test_two_processes_and_a_forked_child_write_and_one_scrape_sums_them(tmp_path):
    root = tmp_path / "metrics"
    first, second = write_in_a_process(root, 2), write_in_a_process(root, 5)
    assert first != second and first.parent == second.parent == root  # a directory per process group
    assert len(list(first.glob("counter_*.db"))) == 2  # the parent's file and its child's
    text = exporter.scrape(root, exporter.QueueDepthCollector(client=_Unreachable())).decode()
    assert value(text, "ella_dead_letters_total", task="ella.perceive", reason="failed") == 7
    assert value(text, "ella_replies_total", route="canned", category="emotional_crisis") == 2
    assert value(text, "ella_reply_latency_seconds_count") == 2
    assert value(text, "ella_reply_latency_seconds_sum") == pytest.approx(0.6)
    assert value(text, "ella_reply_latency_seconds_bucket", le="0.5") == 2


def test_a_group_wipes_its_own_directory_at_start_and_keeps_the_counts_of_groups_that_ended(tmp_path, monkeypatch):
    root = tmp_path / "metrics"
    ended = write_in_a_process(root, 3)  # ended: its pid is gone, its counts stay in the sum
    host = ended.name.rpartition("-")[0]
    idle = root / f"{host}-999999999"  # a group that ended having recorded nothing: only zeros
    idle.mkdir()
    stale = root / f"{host}-{os.getpid()}"  # what a previous run with this pid left
    stale.mkdir()
    (stale / "counter_1.db").write_bytes(ended.joinpath(next(p.name for p in ended.glob("counter_*.db"))).read_bytes())
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    try:
        own = metrics.start_process_group(root)
        assert os.environ[metrics.MULTIPROC_ENV] == str(own)  # for the children it forks
    finally:
        os.environ.pop(metrics.MULTIPROC_ENV, None)  # this test process writes no files
    assert own == stale and not any(own.iterdir())
    assert ended.is_dir() and not idle.exists()
    text = exporter.scrape(root, exporter.QueueDepthCollector(client=_Unreachable())).decode()
    assert value(text, "ella_dead_letters_total", task="ella.perceive", reason="failed") == 3


def test_a_child_exit_marks_the_process_dead_through_celerys_signal(tmp_path, monkeypatch):
    from celery import signals

    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(tmp_path))
    live = tmp_path / "gauge_livesum_4242.db"
    live.write_bytes(b"")
    kept = tmp_path / "counter_4242.db"
    kept.write_bytes(b"")
    signals.worker_process_shutdown.send(sender=None, pid=4242, exitcode=0)
    assert not live.exists() and kept.exists()


# --- the endpoint --------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def endpoint(tmp_path: Path, redis_client) -> Iterator[tuple[str, Path]]:
    """The app under uvicorn in a thread on a free loopback port, reading ``tmp_path/metrics``."""
    import uvicorn

    root = tmp_path / "metrics"
    write_in_a_process(root, 4)
    app = exporter.app([":".join(AUTH)], root, exporter.QueueDepthCollector(client=redis_client))
    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{config.port}", root
    srv.should_exit = True
    thread.join(10)


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_the_endpoint_answers_401_without_credentials_and_the_text_format_with_them(endpoint):
    url, _root = endpoint
    for headers in ({}, basic("prom", "wrong"), basic("nobody", AUTH[1]), {"Authorization": "Bearer x"}):
        for path in ("/metrics", "/", "/no/such/path"):
            refused = httpx.get(url + path, headers=headers)
            assert refused.status_code == 401, (path, headers)
            assert refused.headers["www-authenticate"].startswith('Basic realm="ella metrics"')
            assert "ella_" not in refused.text
    ok = httpx.get(url + "/metrics", headers=basic(*AUTH))
    assert ok.status_code == 200
    assert ok.headers["content-type"].startswith("text/plain")
    assert value(ok.text, "ella_dead_letters_total", task="ella.perceive", reason="failed") == 4
    assert value(ok.text, "ella_broker_up") == 1
    names = {family.name for family in text_string_to_metric_families(ok.text)}
    assert {"ella_dead_letters", "ella_replies", "ella_reply_latency_seconds", "ella_queue_depth"} <= names


def test_the_endpoint_refuses_to_start_without_credentials_or_a_directory(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from cli.main import cli

    for given in ([], [""], ["no-colon"]):
        with pytest.raises(ValueError, match="ELLA_METRICS_BASIC_AUTH"):
            exporter.app(given, tmp_path)
    monkeypatch.delenv("ELLA_METRICS_BASIC_AUTH", raising=False)
    get_settings.cache_clear()
    try:
        refused = CliRunner().invoke(cli, ["metrics", "serve", "--port", str(free_port())])
        monkeypatch.setenv("ELLA_METRICS_BASIC_AUTH", ":".join(AUTH))
        monkeypatch.delenv("ELLA_METRICS_DIR", raising=False)
        monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
        get_settings.cache_clear()
        no_directory = CliRunner().invoke(cli, ["metrics", "serve", "--port", str(free_port())])
    finally:
        get_settings.cache_clear()
    assert refused.exit_code == 2
    assert no_directory.exit_code == 2


def test_the_command_binds_loopback_unless_told_otherwise(monkeypatch, tmp_path):
    import uvicorn
    from typer.testing import CliRunner

    from cli.main import cli

    seen = {}
    monkeypatch.setenv("ELLA_METRICS_BASIC_AUTH", ":".join(AUTH))
    monkeypatch.setenv("ELLA_METRICS_DIR", str(tmp_path / "metrics"))
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    get_settings.cache_clear()
    try:
        assert CliRunner().invoke(cli, ["metrics", "serve"]).exit_code == 0
    finally:
        get_settings.cache_clear()
    assert seen["host"] == "127.0.0.1" and seen["port"] == exporter.DEFAULT_PORT


# --- the alert rules -----------------------------------------------------------------------------------------


def rule_metric_names(expr: str) -> set[str]:
    """The metric names an expression selects (identifiers followed by a selector, a range or an operator)."""
    import re

    keywords = {"sum", "by", "rate", "increase", "max", "min", "avg", "and", "or", "unless", "offset", "without",
                "on", "ignoring", "group_left", "group_right", "count", "bool", "humanize"}  # fmt: skip
    names = set(re.findall(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=[{\[)\s]|$)", expr))
    label_names = set(re.findall(r"\b([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=|!=|=~|!~)\s*\"", expr))
    grouped = {g for group in re.findall(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)", expr)
               for g in re.split(r"\s*,\s*", group.strip()) if g}  # fmt: skip
    return {n for n in names if n not in keywords | label_names | grouped and not re.fullmatch(r"\d+[smhdwy]?", n)}


def test_the_alert_rules_are_a_valid_rule_file_naming_only_metrics_the_code_defines():
    doc = yaml.safe_load(ALERTS.read_text())
    assert set(doc) == {"groups"}
    exported = metrics.exported_names()
    alerts: set[str] = set()
    used: set[str] = set()
    for group in doc["groups"]:
        assert set(group) <= {"name", "rules", "interval", "limit"} and group["name"] and group["rules"]
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}, rule
            assert isinstance(rule["alert"], str) and rule["alert"] not in alerts
            alerts.add(rule["alert"])
            assert rule["labels"]["severity"] in {"page", "ticket"}
            assert rule["annotations"]["summary"]
            names = rule_metric_names(rule["expr"])
            assert names, f"{rule['alert']}: no metric in {rule['expr']!r}"
            assert names <= exported, f"{rule['alert']}: {sorted(names - exported)} not defined in adapters/metrics.py"
            used |= names
    wanted = {"ella_boundary_regression_fires_total", "ella_crisis_referrals_total", "ella_dead_letters_total",
              "ella_model_calls_total", "ella_queue_depth"}  # fmt: skip
    assert wanted <= used


def test_the_rule_reader_sees_a_name_that_drifted():
    assert rule_metric_names('sum(rate(ella_dead_letter_total{task="x"}[5m])) > 1') == {"ella_dead_letter_total"}
    assert "ella_dead_letter_total" not in metrics.exported_names()


# --- end to end: a real worker writing into a metrics directory ---------------------------------------------


def test_a_real_worker_writes_every_family_a_day_of_traffic_produces(start_worker, outbox, tmp_path, redis_client):
    """A prefork worker (two children) with ELLA_METRICS_DIR: a chat turn, a crisis message, a malformed payload,
    the nightly regression on a small corpus, the digest job for two users whose 07:00 is now, the batch flush and
    a notification dispatch; then one scrape of the directory.

    What this cannot produce, and is covered above instead: ``ella_model_cost_dollars`` and
    ``ella_model_cache_hits`` (the offline engine is free and has no prompt cache), and
    ``ella_boundary_regression_fires`` (its replies never trip the outbound guard). ``ella_queue_depth`` is read at
    the scrape, when the worker has drained every queue: its samples are there, at 0."""
    from sqlalchemy import select

    from adapters.db import session_scope
    from gateway.client import enqueue_message
    from models import NotificationCandidate, User
    from models.base import utcnow
    from tests.test_digest import add_fact, make_user
    from workers.app import app

    root = tmp_path / "metrics"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"text": t}) for t in ["what should I cook tonight?", "I love you"]))
    now = utcnow()
    offset = (7 - now.hour) % 24
    offset = offset - 24 if offset > 14 else offset
    zone = f"Etc/GMT{-offset:+d}" if offset else "UTC"  # where it is 07:xx now (as tests/test_jobs.py does)
    users = [make_user() for _ in range(2)]
    with session_scope() as s:
        for uid in users:
            s.get_one(User, uid).timezone = zone
    for uid in users:
        add_fact(uid, recorded=now - timedelta(hours=2))

    # Time limits of a production worker's order (the suite's 5 s are for redelivery tests): a cold child loads
    # the guard and the reply path on its first message, which on a busy machine can take more than 5 s.
    limits = {"ELLA_TASK_SOFT_TIME_LIMIT_S": "60", "ELLA_TASK_TIME_LIMIT_S": "70", "ELLA_VISIBILITY_TIMEOUT_S": "90"}
    start_worker(env={"ELLA_METRICS_DIR": str(root), "ELLA_GUARD_CORPUS_PATH": str(corpus), **limits})
    run = uuid.uuid4().hex[:6]
    chat, crisis = f"m-{run}-chat", f"m-{run}-crisis"
    enqueue_message(message_id=chat, user_id=f"m-{run}", text="I baked bread today!", sent_at=datetime.now(UTC))
    enqueue_message(message_id=crisis, user_id=f"m-{run}-2", text="I want to kill myself",
                    sent_at=datetime.now(UTC))  # fmt: skip
    app.send_task("ella.ingest_message", kwargs={"message_id": f"m-{run}-bad", "user_id": "u"},
                  queue=get_settings().queue_inbound)  # fmt: skip
    wait_for(lambda: {e.in_reply_to for e in outbox() if e.kind == "reply"} >= {chat, crisis}, 90, what="both replies")
    settings = get_settings()
    app.send_task("ella.boundary_regression", queue=settings.queue_batch, ignore_result=False).get(60)
    app.send_task("ella.plan_jobs", kwargs={"jobs": ["digest"]}, queue=settings.queue_batch)

    def candidates() -> set[str]:
        with session_scope() as s:
            return set(s.scalars(select(NotificationCandidate.user_id).where(NotificationCandidate.user_id.in_(users))))

    def flushed() -> bool:
        app.send_task("ella.flush_model_batches", queue=settings.queue_batch, ignore_result=False).get(30)
        return candidates() == set(users)

    wait_for(flushed, 60, interval=1, what="the digest's candidates")
    app.send_task("ella.dispatch_notifications", queue=settings.queue_batch, ignore_result=False).get(60)

    def scraped() -> str:
        return exporter.scrape(root, exporter.QueueDepthCollector(client=redis_client)).decode()

    families = ["ella_replies", "ella_reply_latency_seconds", "ella_boundary_fires", "ella_crisis_referrals",
                "ella_dead_letters", "ella_model_calls", "ella_model_tokens", "ella_notifications", "ella_job_users",
                "ella_boundary_regression_lines"]  # fmt: skip

    def missing() -> list[str]:
        text = scraped()
        return [f for f in families if not family_total(text, f) > 0]

    deadline = time.monotonic() + 30
    while missing() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not missing(), f"no sample above 0 of {missing()}"
    text = scraped()
    assert value(text, "ella_replies_total", route="canned", category="emotional_crisis") >= 1
    assert value(text, "ella_replies_total", route="generated", category="chat") >= 1
    assert value(text, "ella_crisis_referrals_total", direction="inbound") >= 1
    assert value(text, "ella_boundary_fires_total", direction="inbound", category="emotional_crisis") >= 1
    assert value(text, "ella_dead_letters_total", task="ella.ingest_message", reason="malformed_payload") >= 1
    assert value(text, "ella_job_users_total", job="digest", result="done") >= 2
    assert value(text, "ella_boundary_regression_lines_total", result="checked") == 2
    assert value(text, "ella_broker_up") == 1
    assert {dict(lb)["queue"] for (n, lb) in samples(text) if n == "ella_queue_depth"} == set(settings.queues)
    assert not [line for line in text.splitlines() if "user_id" in line or run in line]  # no one is named
    groups = [p for p in root.iterdir() if p.is_dir()]
    assert groups and all(len(list(g.glob("counter_*.db"))) >= 1 for g in groups)
