"""Model economy against the loopback Anthropic server: prompt tokens per reply, the share served from the
prompt cache, and model calls per user message.

Two measurements:
- port: a 20-turn conversation through the model port with realistic context sizes (a world brief of about
  1,500 tokens, 8 retrieved memories, 3 recent thoughts, the growing history), as the live reply will run
  once the memory and ledger issues land;
- worker: 20 user messages through the broker and a real worker, as the live path runs today (no world brief
  or memories yet), counting the model calls each message costs.
- digest: a day's pass of the daily digest planner over 200 users (a tenth active) with the offline engine,
  its usage rows priced at the digest tier's model, batched: the cost per user per day, active and idle.
The fake server emulates caching from the request's cache_control breakpoints (tokens ~ characters / 4,
1,024-token minimum, 20-block lookback), so the figures measure where our breakpoints sit.
The last line is JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.support.scratch import create_database, scratch_run

RUN, VAR = scratch_run("bench")

from ella.llm.anthropic_provider import AnthropicProvider  # noqa: E402
from ella.llm.kinds import Reply  # noqa: E402
from ella.llm.port import CallRecord, ModelPort  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic  # noqa: E402
from workers.settings import Settings, get_settings  # noqa: E402

WORLD_BRIEF = "\n".join(
    f"- {fact}"
    for fact in [
        "Ella's home is a small flat above a bakery on Harbour Street; the front door is red.",
        "The bakery opens at six; Ella wakes to the smell of cardamom buns.",
        "Ella's window looks over the fishing harbour and the old lighthouse.",
        "Ella keeps a fern called Winston on the windowsill; it is doing well this month.",
        "Ella is reading 'The Remains of the Day', currently on chapter four.",
        "It has been raining on and off for three days in Ella's town.",
        "Ella walks to the harbour market on Saturday mornings.",
        "Ella's neighbour, Mrs. Okafor, plays the piano in the evenings.",
    ]
    * 12
)  # about 6,000 characters, ~1,500 tokens: the canon Ella may speak from
MEMORIES = [
    "Sam has a job interview at the city museum on Thursday at 10am.",
    "Sam's sister Maya helped Sam practise interview answers on Tuesday evening.",
    "Sam said the portfolio review is the part that worries them most.",
    "Sam walks their dog Biscuit by the river most mornings before work.",
    "Sam felt proud after finishing the portfolio draft last weekend.",
    "Sam mentioned that their current job at the call centre is exhausting.",
    "Sam loves old maps and wants to work with the museum's map collection.",
    "Sam gets nervous speaking to groups but is fine one-to-one.",
]
THOUGHTS = "I should ask Sam how the practice went. Sam seems anxious but prepared. Maya is a good support."
USER_TURNS = [
    "Hi Ella, it's me again.",
    "The interview is on Thursday and I keep going over my answers.",
    "Maya thinks I'm ready, but I'm not so sure.",
    "The portfolio part scares me the most, honestly.",
    "I redid the map section last night.",
    "Do you think I should mention the call centre job?",
    "I guess it shows I can handle difficult people.",
    "Biscuit kept me company while I practised.",
    "I walked by the museum today, it looked huge.",
    "What if they ask why I want to leave my job?",
    "I could say I want work I care about.",
    "That feels honest at least.",
    "Maya is coming over tomorrow to do a mock interview.",
    "She's stricter than any real interviewer.",
    "I'm going to wear the green jacket.",
    "Is it weird that I'm excited and terrified at the same time?",
    "Okay, that helps a bit.",
    "I think I'll go to bed early on Wednesday.",
    "Thanks for listening, Ella.",
    "I'll tell you how it goes on Thursday.",
]


def port_economy(fake: FakeAnthropic) -> dict[str, float]:
    records: list[CallRecord] = []
    provider = AnthropicProvider("bench-key", fake.base_url, timeout=10, max_retries=0)
    port = ModelPort(provider, Settings().model_tiers, record=records.append)
    history: list[tuple[str, str]] = []
    rows = []
    for turn, text in enumerate(USER_TURNS, start=1):
        result = port.call(
            Reply,
            {"name": "Sam", "message": text, "memories": MEMORIES, "reflections": THOUGHTS},
            user_id="sam",
            world_brief=WORLD_BRIEF,
            history=history,
        )
        history += [("user", text), ("assistant", result.value.reply)]
        u = result.usage
        rows.append((turn, u.prompt_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.input_tokens))
    print("turn  prompt  cache_read  cache_write  uncached")
    for turn, prompt, read, write, plain in rows:
        print(f"{turn:>4}  {prompt:>6}  {read:>10}  {write:>11}  {plain:>8}")
    later = [r for r in rows if r[0] >= 3]
    share = sum(r[2] for r in later) / sum(r[1] for r in later)
    return {
        "input_tokens_per_reply": round(sum(r[1] for r in rows) / len(rows), 1),
        "uncached_input_tokens_per_reply": round(sum(r[3] + r[4] for r in rows) / len(rows), 1),
        "cache_share_from_turn_3": round(share, 3),
        "min_turn_cache_share_from_turn_3": round(min(r[2] / r[1] for r in later), 3),
    }


def worker_economy(fake: FakeAnthropic) -> dict[str, float]:
    url, drop = create_database("sqlite", f"econ_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    get_settings.cache_clear()
    from workers import db
    from workers.app import app
    from workers.gateway import enqueue_message
    from workers.procs import WorkerProcess
    from workers.redis_conn import get_redis, redis_url

    db.upgrade()
    settings = get_settings()
    env = {
        "ELLA_REDIS_URL": redis_url(),
        "ELLA_DATABASE_URL": url,
        "ELLA_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "bench-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
    }
    worker = WorkerProcess(
        queues=list(settings.queues), log_path=VAR / "worker.log", env=env, extra_args=["-l", "WARNING"]
    ).start()
    before = len(fake.message_requests)
    usage_before = len(fake.usage_log)
    try:
        worker.wait_ready(app)
        start = datetime.now(UTC) - timedelta(minutes=30)
        client = get_redis()
        for i, text in enumerate(USER_TURNS):
            mid = f"econ-{RUN}-{i}"
            enqueue_message(message_id=mid, user_id="sam", text=text, sent_at=start + timedelta(seconds=30 * i))
            deadline = time.monotonic() + 30
            while not any(f.get("in_reply_to") == mid for _, f in client.xrange(settings.outbox_stream)):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no reply to {mid}")
                time.sleep(0.01)
    finally:
        worker.stop()
        drop()
    usage = fake.usage_log[usage_before:]
    later = usage[2:]
    prompt = sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in later)
    return {
        "worker_calls_per_user_message": round((len(fake.message_requests) - before) / len(USER_TURNS), 2),
        "worker_input_tokens_per_reply": round(
            sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usage)
            / len(usage),
            1,
        ),
        "worker_cache_share_from_turn_3": round(sum(u["cache_read_input_tokens"] for u in later) / prompt, 3),
    }


DIGEST_USERS = 200
DIGEST_ACTIVE_EVERY = 10  # every tenth user wrote yesterday evening: a tenth active, as on a typical day
DIGEST_NOW = datetime(2026, 11, 30, 7, 10, tzinfo=UTC)  # the digest slot of users in UTC


def digest_economy() -> dict[str, float]:
    """The daily digest's cost per user per day, active and idle, read from the usage rows of one real pass.

    A day's pass of the digest planner (``tasks.jobs.run_inline``) over ``DIGEST_USERS`` users in UTC, a tenth
    of them with a message since they were first seen, answered by the offline engine through the Batches
    service (``flush_pending``). The offline engine's model is free, so its rows' tokens (prompt characters / 4,
    as the loopback server counts them) are priced at the digest tier's model, batched: what those requests
    would cost in production. An idle user has no row at all; their figure is summed from the rows, not assumed.
    """
    from sqlalchemy import select

    from ella.jobs import Job
    from ella.llm.kinds import KINDS
    from ella.usage import PriceList, Tokens
    from models import Conversation, InboundMessage, ModelCall, User
    from tasks.jobs import run_inline
    from workers import db
    from workers.app import app
    from workers.model_batches import flush_pending

    url, drop = create_database("sqlite", f"digest_{RUN}", VAR)
    os.environ["ELLA_DATABASE_URL"] = url
    get_settings.cache_clear()
    app.loader.import_default_modules()  # the digest planner and its batch handler
    try:
        db.upgrade()
        first_seen, wrote = DIGEST_NOW - timedelta(days=30), DIGEST_NOW - timedelta(hours=10)
        ids = [f"d{i:04d}" for i in range(DIGEST_USERS)]
        active = {uid for i, uid in enumerate(ids) if i % DIGEST_ACTIVE_EVERY == 0}
        with db.session_scope() as s:
            s.add_all(User(id=uid, timezone="UTC", created_at=first_seen) for uid in ids)
            s.flush()
            for uid in sorted(active):
                chat = Conversation(user_id=uid, started_at=wrote, last_message_at=wrote, close_due_at=wrote)
                s.add(chat)
                s.flush()
                text = "I finally finished the portfolio draft."
                s.add(InboundMessage(message_id=f"econ-{uid}", user_id=uid, conversation_id=chat.id, text=text,
                                     sent_at=wrote, received_at=wrote))  # fmt: skip
        totals = run_inline(Job.DIGEST, DIGEST_NOW)
        flushed = flush_pending()
        with db.autocommit_scope() as s:
            rows = list(s.execute(select(ModelCall.user_id, ModelCall.input_tokens, ModelCall.output_tokens,
                                         ModelCall.cache_write_tokens, ModelCall.cache_read_tokens)
                                  .where(ModelCall.kind == "digest")))  # fmt: skip
    finally:
        drop()
    settings = get_settings()
    prices = PriceList(settings.prices, settings.batch_price_factor)
    model = settings.model_tiers[KINDS["digest"].tier]
    spend: dict[str, float] = {uid: 0.0 for uid in ids}
    calls: dict[str, int] = {uid: 0 for uid in ids}
    for uid, tin, tout, tcw, tcr in rows:
        spend[uid] += prices.usd(model, Tokens(tin, tout, tcw, tcr), batch=True) or 0.0
        calls[uid] += 1
    idle = [uid for uid in ids if uid not in active]
    print(f"digest pass: {totals.get('requests', 0)} requests, {totals.get('idle', 0)} idle users, "
          f"{flushed.submitted} answered offline; {len(rows)} usage rows, priced as {model} batched")  # fmt: skip
    return {
        "digest_calls_per_active_user_day": round(sum(calls[u] for u in active) / len(active), 3),
        "digest_usd_per_active_user_day": round(sum(spend[u] for u in active) / len(active), 6),
        "digest_calls_per_idle_user_day": round(sum(calls[u] for u in idle) / len(idle), 3),
        "digest_usd_per_idle_user_day": round(sum(spend[u] for u in idle) / len(idle), 6),
    }


def main() -> None:
    with FakeAnthropic() as fake:
        print("# port: 20-turn conversation, realistic context")
        port = port_economy(fake)
        print(json.dumps(port))
        print("# worker: the live path today, through the broker")
        fake.clear_cache()
        worker = worker_economy(fake)
        print(json.dumps(worker))
    print(f"# digest: one day's pass over {DIGEST_USERS} users, offline engine, priced from the usage rows")
    digest = digest_economy()
    print(json.dumps(digest))
    print(json.dumps({**port, **worker, **digest}))


if __name__ == "__main__":
    main()
