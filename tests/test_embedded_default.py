"""The embedded default, end to end: `ella demo` and `ella chat` with nothing configured."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from workers.embedded import ensure_embedded_redis, stop_embedded_redis
from workers.settings import Settings

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
        [sys.executable, "-m", "workers.cli", *args],
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


def test_demo_plays_the_script_through_the_broker_and_stops_everything(tmp_path):
    result = ella(["demo"], tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
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


def test_demo_talks_to_claude_through_the_sdk_when_a_key_and_base_url_are_set(tmp_path):
    from tests.support.fake_anthropic import FakeAnthropic

    with FakeAnthropic() as fake:
        result = ella(["demo"], tmp_path, env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.base_url})
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert "Claude through the anthropic SDK" in result.stdout
        kinds = [re.search(r'<task kind="(\w+)">', r["body"]["system"][0]["text"])[1] for r in fake.message_requests]
        from ella.ledger.extraction import worth_extracting
        from workers.demo import SCRIPT
        from workers.demo_story import STORY

        # The story goes as far as the model takes it (the fake's example extraction has no dated event).
        told = [text for _day, _at, text in STORY if f": {text}" in result.stdout.replace("\n", " ")]
        assert told, result.stdout[-2000:]
        assert kinds.count("reply") == 10 + len(told)  # one per exchange; the rest is memory and ledger work
        said = [text for _day, _at, text in SCRIPT] + told
        said_about_themselves = sum(worth_extracting(text) for text in said)
        assert kinds.count("fact_extraction") == said_about_themselves  # one per user turn that says "I"/"my"
        assert set(kinds) <= {"reply", "memo", "planning_thought", "focal_points", "insights", "perception",
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
            "from workers.embedded import ensure_embedded_redis, _owned; from workers.settings import Settings; "
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
