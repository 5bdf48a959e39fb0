"""The embedded default, end to end: `ella demo` and `ella chat` with nothing configured."""

from __future__ import annotations

import html
import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from adapters.embedded import ensure_embedded_redis, stop_embedded_redis
from adapters.settings import Settings

pytestmark = pytest.mark.integration


def embedded_env(var: Path) -> dict[str, str]:
    """This environment without any configured Redis or database: what a fresh machine has."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ELLA_")}
    env["ELLA_VAR_DIR"] = str(var)
    return env


def ella(
    args: list[str], var: Path, stdin: str = "", timeout: float = 180, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**embedded_env(var), **(env or {})},
        timeout=timeout,
        cwd=var,
    )


def socket_answers(socket: Path) -> bool:
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_timeout=1).ping())
    except (redis.ConnectionError, OSError):
        return False


@dataclass
class DemoRun:
    """One ``ella demo`` and what its database held right after it (the next run erases this run's users)."""

    result: subprocess.CompletedProcess[str]
    sam: str
    users: list[str]
    memos: int  # memo thoughts in the whole database
    reflections: list[tuple[int, str, list[int]]]  # the demo user's reflection thoughts: id, text, cited ids
    nodes: dict[int, str]  # every memory node of the demo user: id -> user id (to check the citations are theirs)
    # What made the demo user's rows, per table: (engine, model_id, prompt_kind, prompt_version) -> rows
    made_by: dict[str, dict[tuple[str | None, ...], int]] = field(default_factory=dict)
    # The memory part's user (demo.memory) right after the run: their sister's ledger rows (status,
    # object), their audit rows (actor, action, reason) and how many of their memory nodes name Mia.
    sister: list[tuple[str, str]] = field(default_factory=list)
    audit: list[tuple[str, str, str]] = field(default_factory=list)
    naming_mia: int = -1
    metrics: str = ""  # the demo's one scrape of its metrics directory (var/demo/metrics.prom)

    @property
    def out(self) -> str:
        return " ".join(self.result.stdout.split())


def play_demo(var: Path) -> DemoRun:
    result = ella(["demo"], var)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    users = json.loads((var / "demo" / "world.json").read_text())["users"]
    sam = next(u for u in users if u.startswith("sam-"))
    kim = next(u for u in users if u.startswith("kim-"))
    with closing(sqlite3.connect(var / "ella.db")) as db:
        sister = db.execute(
            "SELECT status, object FROM world_facts WHERE user_id = ? AND subject = 'user.sister' ORDER BY id", (kim,)
        ).fetchall()
        audit = db.execute("SELECT actor, action, reason FROM memory_audit WHERE user_id = ? ORDER BY id", (kim,))
        audit_rows = [tuple(row) for row in audit]
        descriptions = [d for (d,) in db.execute("SELECT description FROM memory_nodes WHERE user_id = ?", (kim,))]
        memos = db.execute("SELECT count(*) FROM memory_nodes WHERE dedupe_key LIKE 'memo:%'").fetchone()[0]
        rows = db.execute(
            "SELECT id, description, evidence FROM memory_nodes WHERE user_id = ? AND dedupe_key LIKE 'reflect:%'"
            " ORDER BY id",
            (sam,),
        ).fetchall()
        nodes = dict(db.execute("SELECT id, user_id FROM memory_nodes WHERE user_id = ?", (sam,)).fetchall())
        made_by = {
            table: {
                tuple(key): n
                for *key, n in db.execute(
                    f"SELECT engine, model_id, prompt_kind, prompt_version, count(*) FROM {table} WHERE user_id = ?"
                    " GROUP BY 1, 2, 3, 4",
                    (sam,),
                )
            }
            for table in PROVENANCED
        }
    reflections = [(i, d, json.loads(e)) for i, d, e in rows]
    naming_mia = sum(bool(re.search(r"\bMia\b", d)) for d in descriptions)
    scraped = (var / "demo" / "metrics.prom").read_text(encoding="utf-8")
    return DemoRun(result, sam, users, memos, reflections, nodes, made_by, sister, audit_rows, naming_mia, scraped)


PROVENANCED = (
    "memory_nodes",
    "world_facts",
    "self_log",
    "story_chapters",
    "relationship_arcs",
    "notification_candidates",
)


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory) -> tuple[Path, DemoRun, DemoRun]:
    """``ella demo`` twice in one var dir (one database, one embedded Redis socket path), as a newcomer would."""
    var = tmp_path_factory.mktemp("demo")
    first = play_demo(var)
    assert not socket_answers(var / "redis.sock"), "the embedded Redis outlived the demo"
    return var, first, play_demo(var)


def test_demo_plays_the_script_through_the_broker_and_stops_everything(demo_runs):
    tmp_path, first, _second = demo_runs
    result = first.result
    assert "10 exchanges through the broker" in result.stdout
    assert "ella:" in result.stdout and "Day 3" in result.stdout
    # The seed's notification story: nothing about the moved Thursday, the follow-up held at night, sent at 09:00
    # with the AI notice, and the answer continues the conversation that holds the question.
    assert "interview', superseded" in result.stdout and "held by do_not_disturb" in result.stdout
    assert "Sat 09:00 ella (notification): (A quick reminder: I'm Ella, an AI companion" in result.stdout.replace(
        "\n", " "
    )
    assert "holds Ella's question: True" in result.stdout.replace("\n", " ")
    assert "the offline engine" in result.stdout
    assert (tmp_path / "ella.db").exists()
    assert not socket_answers(tmp_path / "redis.sock"), "the embedded Redis outlived the demo"


def test_the_demos_metrics_scrape_counts_every_family_its_story_takes_and_only_this_runs(demo_runs):
    """The worker and the demo process write under var/metrics, wiped at each demo's start; one scrape at the
    end. Zero by design offline, and printed with why: cost, prompt-cache hits, the nightly regression."""
    from demo.metrics import family_totals

    _var, first, second = demo_runs
    produced = ("ella_replies", "ella_reply_latency_seconds", "ella_boundary_fires", "ella_crisis_referrals",
                "ella_dead_letters", "ella_model_calls", "ella_model_tokens", "ella_notifications", "ella_job_users",
                "ella_broker_up")  # fmt: skip
    for run in (first, second):
        totals = family_totals(run.metrics)
        assert {name: totals.get(name, 0) for name in produced if not totals.get(name)} == {}
        assert "What an operator's Prometheus would see" in run.out
        assert "988" in run.out and "rejected (malformed_payload)" in run.out  # the crisis line; the dead letter
    # The second run's scrape is its own story, not the sum of both runs.
    assert family_totals(second.metrics)["ella_replies"] == family_totals(first.metrics)["ella_replies"]


def test_demo_ends_with_a_reflection_of_the_real_pipeline_and_the_memories_it_cites(demo_runs):
    """The counter of the demo user runs out within one run, the worker's reflection stores thoughts citing the
    user's own memories, and the demo prints a thought with each of its citations."""
    _var, first, _second = demo_runs
    assert first.reflections, first.result.stdout[-3000:]
    assert "reflection(s)" in first.out and "What Ella remembered" in first.out
    thought_id, _text, cited = first.reflections[0]
    assert cited and all(first.nodes.get(i) == first.sam for i in cited)
    shown = first.out.split(f"thought #{thought_id} ", 1)
    assert len(shown) == 2, first.result.stdout[-3000:]
    tree = shown[1].split("thought #", 1)[0]  # up to the next thought
    for node_id in cited:
        assert f"evidence #{node_id} " in tree
    assert "What Ella believes about the world (canon first)" in first.out
    assert "What Ella plans to say next" in first.out and "planning thought #" in first.out


def test_demo_shows_a_reply_drawing_on_an_earlier_day_and_a_lazy_world_the_replies_ticked(demo_runs):
    """The loop on the embedded default: on day 3 the offline engine retells what the user said on day 1 (the
    memory the real pipeline stored), and ``ella world show`` for the demo user has mood, book and happening
    ticked, none of them "never ticked"."""
    var, _first, second = demo_runs
    day3 = second.out.split("Day 3", 1)[1].split("Summary", 1)[0]
    assert "The other day you told me you had a job interview at the museum on Thursday" in day3, day3
    assert f"ella world show {second.sam}" in second.out
    shown = ella(["world", "show", second.sam], var, timeout=60)
    assert shown.returncode == 0, shown.stdout[-2000:] + shown.stderr[-2000:]
    rows = {line.split()[1]: line for line in shown.stdout.splitlines() if line.startswith("│ ")}
    for subject in ("ella.mood", "ella.reading", "world.happening"):
        assert subject in rows and "never ticked" not in rows[subject], shown.stdout
    assert re.search(r"ella\.reading +│ \S.* page \d+ of \d+", rows["ella.reading"]), rows["ella.reading"]


def test_demo_writes_the_operators_page_of_the_demo_user_with_the_reflection(demo_runs):
    var, _first, second = demo_runs
    report = var / "demo" / f"{second.sam}.html"
    assert f"{second.sam}.html" in second.out and report.exists()
    page = report.read_text()
    thought_id, text, _cited = second.reflections[0]
    assert f'id="node-{thought_id}"' in page and html.escape(text, quote=False) in page


def test_demo_answers_what_she_remembers_and_forgets_the_sister_when_asked(demo_runs):
    """The memory part: the told sister is in the answer to "what do you remember about me?", "forget what I
    told you about my sister" is confirmed in one "Done:" line, and the ledger and memory show the change: the
    fact retired with its words gone, one audit row by the user, no memory node naming Mia left."""
    from demo.memory import FORGET, RECALL, TELL

    _var, first, _second = demo_runs
    part = first.out.split("Your say over her memory", 1)[1].split("Ella's inner life", 1)[0]
    assert f": {TELL} " in part, part
    answer = re.search(rf"{re.escape(RECALL)} \S+ ella: (.+?) \(route (\w+), category (\w+)\)", part)
    assert answer is not None, part
    assert "your sister's name is Mia" in answer[1] and answer.groups()[1:] == ("canned", "memory"), answer[0]
    assert re.search(r"ledger before: fact #\d+ user\.sister name 'Mia', active", part), part
    confirmed = re.search(rf"{re.escape(FORGET)} \S+ ella: (.+?) \(route canned, category memory\)", part)
    assert confirmed is not None and confirmed[1].startswith("Done:"), part
    assert re.search(r"ledger after: fact #\d+ user\.sister name '\(forgotten\)', retired", part), part
    assert "Mia" not in part.split("ledger after:", 1)[1].split("memory nodes mentioning", 1)[0]
    assert re.search(r"memory nodes mentioning Mia: [1-9]\d* before, 0 after", part), part
    # what the database held right after the run, not only what was printed
    assert first.sister == [("retired", "(forgotten)")], first.sister
    assert ("user", "forget", "the user asked in conversation") in first.audit, first.audit
    assert first.naming_mia == 0


def test_demo_makes_the_demo_users_daily_digest_through_the_batches_service(demo_runs):
    """The digest job's own planner and handler, answered at once by the offline engine: one candidate for today."""
    var, _first, second = demo_runs
    with closing(sqlite3.connect(var / "ella.db")) as db:
        made = db.execute(
            "SELECT id, body FROM notification_candidates WHERE user_id = ? AND kind = 'digest'", (second.sam,)
        ).fetchall()
    assert "through the Batches service: {'applied': 1}" in second.out
    # the demo's news is an interview the user said went great: a digest never looks forward to it (issue 34), so
    # the offline engine's answer says nothing, or what it says is not about the interview
    assert len(made) <= 1 and not any("interview" in str(body).lower() for _id, body in made)


def test_every_row_the_demo_stores_says_what_made_it_and_nothing_claims_a_model(demo_runs):
    """The demo names the offline engine (no key, no provider: ``ella demo`` sets ELLA_LLM_PROVIDER=offline) and
    every row of the six inner-life tables says so: the offline engine with the prompt kind and version it
    answered, or a rule (the chat node, the world's anchors and clock). None is unrecorded, none is anthropic."""
    from ella.llm.prompts import prompt_version

    _var, first, _second = demo_runs
    made = first.made_by
    assert made["memory_nodes"] and made["world_facts"], made  # (the digest about an over event is not made)
    for table, keys in made.items():
        for engine, model_id, kind, version in keys:
            assert engine in {"offline", "rules"}, (table, engine, kind)
            if engine == "offline":
                assert model_id == "offline" and version == prompt_version(kind), (table, kind, version)
            else:
                assert model_id == "" and kind and version == "rules", (table, kind)
    node_kinds = {kind for engine, _m, kind, _v in made["memory_nodes"]}
    assert {"reply", "insights", "conversation_note"} <= node_kinds, node_kinds  # events, reflection, close
    assert "chat_node" in node_kinds
    assert {k[2] for k in made["self_log"]} <= {"reply"}  # Ella's statements come with the reply that said them
    fact_kinds = {k[2] for k in made["world_facts"]}
    # the user's facts come from the call that read their turn: the reply (extraction folded into it), or an
    # extraction call of its own for a turn the reply could not read
    assert "anchor" in fact_kinds and "reply" in fact_kinds and fact_kinds <= {"anchor", "world_tick", "reply",
                                                                             "fact_extraction"}, fact_kinds  # fmt: skip
    digests = {k[2] for k in made["notification_candidates"]}
    assert digests <= {"digest", "notification_body", "generic_checkin"}, digests


def test_a_second_demo_run_starts_a_fresh_world_instead_of_piling_onto_the_first(demo_runs):
    var, first, second = demo_runs
    assert "a fresh demo world" in first.out and "a fresh demo world" in second.out
    assert not set(first.users) & set(second.users)
    assert all(u in second.out for u in first.users)  # named as erased
    assert second.memos == first.memos > 0  # the first world's memos are gone, not doubled
    with closing(sqlite3.connect(var / "ella.db")) as db:
        marks = ",".join("?" * len(first.users))
        for table, column in (("users", "id"), ("memory_nodes", "user_id"), ("world_facts", "user_id")):
            left = db.execute(f"SELECT count(*) FROM {table} WHERE {column} IN ({marks})", first.users)
            assert left.fetchone()[0] == 0, table
    assert not (var / "demo" / f"{first.sam}.html").exists()


def test_demo_talks_to_claude_through_the_sdk_when_a_key_and_base_url_are_set(tmp_path):
    from tests.support.fake_anthropic import FakeAnthropic

    with FakeAnthropic() as fake:
        result = ella(
            ["demo"],
            tmp_path,
            env={"ELLA_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.base_url},
        )
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert "Claude through the anthropic SDK" in result.stdout
        kinds = [re.search(r'<task kind="(\w+)">', r["body"]["system"][0]["text"])[1] for r in fake.message_requests]
        from demo.memory import SAY
        from demo.run import SCRIPT
        from demo.story import STORY
        from ella.ledger.extraction import worth_extracting
        from ella.memory.say import read_request

        # The story goes as far as the model takes it (the fake's example extraction has no dated event).
        told = [text for _day, _at, text in STORY if f": {text}" in result.stdout.replace("\n", " ")]
        assert told, result.stdout[-2000:]
        # The memory part's requests are read by rule and answered from what Ella holds, with no call.
        talk = [text for text in SAY if read_request(text) is None]
        assert len(talk) == 1 and "Your say over her memory" in result.stdout
        # one per exchange; the rest is memory and ledger work
        assert kinds.count("reply") == 10 + len(told) + len(talk)
        said = [text for _day, _at, text in SCRIPT] + told + talk
        said_about_themselves = sum(worth_extracting(text) for text in said)
        # The reply reads each turn for facts (extraction folded into its call); a turn gets a call of its own only
        # when its reply ran before an earlier turn's fact was stored (the demo waits for replies, not the ledger).
        assert kinds.count("fact_extraction") < said_about_themselves
        assert set(kinds) <= {"reply", "conversation_note", "focal_points", "insights", "perception",
                              "fact_extraction", "notification_body"}  # fmt: skip


def test_chat_answers_what_you_type_from_the_outbox(tmp_path):
    result = ella(["chat", "--user", "tester"], tmp_path, stdin="Hi Ella\nI feel a bit lonely tonight\n/quit\n")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    replies = [line for line in result.stdout.splitlines() if "ella:" in line]
    assert len(replies) == 2, result.stdout
    assert not socket_answers(tmp_path / "redis.sock")


def test_a_second_process_reuses_the_running_embedded_redis_instead_of_starting_another(tmp_path):
    settings = Settings(var_dir=tmp_path)
    url = ensure_embedded_redis(settings)
    try:
        code = (
            "from adapters.embedded import ensure_embedded_redis, _owned; from adapters.settings import Settings; "
            f"print(ensure_embedded_redis(Settings(var_dir={str(tmp_path)!r}))); print(len(_owned))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=embedded_env(tmp_path)
        ).stdout.split()
        assert out == [url, "0"]  # same socket, and the second process owns nothing it would stop
        assert socket_answers(tmp_path / "redis.sock")
    finally:
        stop_embedded_redis()
    assert not socket_answers(tmp_path / "redis.sock")
