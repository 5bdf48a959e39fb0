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
- day: dollars per active user per day for a 20-message day, every kind included (reply, extraction,
  perception, reflection, close, digest, chapters and arcs amortised), at list prices (``ella.usage``, dated and
  sourced), counting as cached only prefixes at or over each model's minimum cacheable length, beside the floor
  (the live replies alone); and, per kind, whether lengthening its shared prefix to that minimum would pay.
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

from adapters.settings import Settings, get_settings  # noqa: E402
from ella.llm.anthropic_provider import AnthropicProvider  # noqa: E402
from ella.llm.kinds import Reply  # noqa: E402
from ella.llm.port import CallRecord, ModelPort  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic  # noqa: E402

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
            {
                "name": "Sam",
                "message": text,
                "memories": MEMORIES,
                "reflections": THOUGHTS,
                "today": "2026-11-30 (Monday)",
                "known": KNOWN,
            },
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
    from adapters import db
    from adapters.redis_conn import get_redis, redis_url
    from gateway.client import enqueue_message
    from workers.app import app
    from workers.procs import WorkerProcess

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

    from adapters import db
    from adapters.model_batches import flush_pending
    from ella.jobs import Job
    from ella.llm.kinds import KINDS
    from ella.usage import PriceList, Tokens
    from models import Conversation, InboundMessage, ModelCall, User
    from tasks.jobs import run_inline
    from workers.app import app

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


# --- dollars per active user per day ------------------------------------------------------------------------------

DAY_CONVERSATIONS = (USER_TURNS[:7], USER_TURNS[7:14], USER_TURNS[14:])  # a 20-message day, three conversations
BATCHED_KINDS = ("digest", "chapter_distillation", "relationship_arc")  # sent through Message Batches (tasks/jobs)
PER_DAY = {"digest": 1.0, "chapter_distillation": 1 / 7, "relationship_arc": 1 / 30}  # beat's schedule: daily,
# weekly, monthly
# The user's facts a reply shows with their ids (the volatile input: ``ella.ledger.consolidation.in_view``).
KNOWN = [
    {"id": 12, "subject": "user", "predicate": "has_upcoming", "object": "job interview at the city museum",
     "event_day": "2026-12-03 (Thursday), still ahead"},
    {"id": 14, "subject": "user.sister", "predicate": "name", "object": "Maya"},
    {"id": 15, "subject": "user.dog", "predicate": "name", "object": "Biscuit"},
]  # fmt: skip
WEEK_MEMOS = [
    "Ella talked with Sam about the museum interview on Thursday; Sam is nervous about the portfolio part.",
    "Ella heard that Maya helped Sam rehearse; Sam felt a bit more ready afterwards.",
    "Ella talked with Sam about leaving the call centre and wanting work Sam cares about.",
    "Ella listened to Sam worry about the interview and plan an early night on Wednesday.",
    "Ella heard the interview went well and Sam was offered the job at the museum.",
    "Ella talked with Sam about handing in notice and about Biscuit's sore paw.",
    "Ella heard Sam's friend Leo is moving to Berlin; Sam feels lonely about it.",
] * 3  # three conversations a day, seven days


def _filled(kind: str, given: dict[str, object]) -> dict[str, object]:
    """``given`` plus a plain value for any variable the kind's template names that the bench does not model."""
    from ella.llm.prompts import template

    names = set().union(*(part.get_identifiers() for part in template(kind))) - {"example"}
    return {**{name: f"({name})" for name in names}, **given}


def day_economy(fake: FakeAnthropic) -> dict[str, float]:
    """What one active user's day of 20 messages costs at list prices, every kind included, and the floor.

    Every request is the real one (``ModelPort.request``: the house's templates, breakpoints and sampling), sent by
    the SDK to the loopback server, whose cache emulation applies each model's own minimum cacheable prefix
    (``ella.usage.MIN_CACHEABLE_TOKENS``) and a 5-minute life: the cache is cleared between the day's three
    conversations (hours apart), and the prefixes every user shares (persona and instructions) are warmed first by
    another user's call, as they are at scale. Batched kinds are priced at the batch rate with no cache credit
    (a batch's cache hits are best effort). How often each kind runs:
    - reply: each message, reading the turn for facts against the user's facts shown with their ids (extraction
      folded into its call, ``Reply.facts``); perception: none (the reply's own call perceives the turn);
    - fact extraction: none in the day. A turn gets a call of its own only when the reply could not read it (a
      canned or fallback turn) or read it against facts an earlier turn stored meanwhile (a lagging back end,
      ``tasks.ledger.extract_facts``): how often depends on pace (``bench/model_calls.py`` measures it), so the
      price of one such turn is printed instead;
    - the memo and the planning thought: one call (``conversation_note``) at each conversation's close;
    - reflection (focal points, then insights per focal point): as often as the day's poignancy drains the
      importance trigger (the offline engine's poignancy of each message, against ``importance_trigger_max``);
    - digest daily, chapter weekly, arc monthly, batched.
    """
    from ella.llm.kinds import KINDS
    from ella.llm.offline import poignancy_score
    from ella.memory.reflection import FOCAL_INPUT, FOCAL_POINTS, RETRIEVE_PER_FOCAL
    from ella.usage import MIN_CACHEABLE_TOKENS, PRICES_AS_OF, PRICES_SOURCE, PriceList, Tokens

    settings = Settings()
    tiers = settings.model_tiers
    prices = PriceList(settings.prices, settings.batch_price_factor)
    fake.min_cacheable_by_model = dict(MIN_CACHEABLE_TOKENS)
    fake.clear_cache()
    records: list[CallRecord] = []
    provider = AnthropicProvider("bench-key", fake.base_url, timeout=10, max_retries=0)
    port = ModelPort(provider, tiers, record=records.append, sampling=settings.sampling)
    spent: dict[str, float] = {}
    calls: dict[str, float] = {}
    cached_kinds: set[str] = set()

    def ask(kind: str, variables: dict[str, object], weight: float = 1.0, **context: object) -> None:
        before = len(records)
        port.call(kind, _filled(kind, variables), user_id="sam", **context)  # type: ignore[arg-type]
        for record in records[before:]:
            u = record.usage
            batched = kind in BATCHED_KINDS
            tokens = (
                Tokens(u.prompt_tokens, u.output_tokens)
                if batched
                else Tokens(u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
            )
            if u.cache_read_input_tokens and not batched:
                cached_kinds.add(kind)
            spent[kind] = spent.get(kind, 0.0) + weight * (prices.usd(record.model, tokens, batch=batched) or 0.0)
            calls[kind] = calls.get(kind, 0.0) + weight

    def warm_shared_prefixes() -> None:
        """Another user's call of each live kind: the persona-and-instructions prefix is warm at scale."""
        for kind, variables in (
            ("reply", {"name": "Kim", "message": "hi", "memories": [], "reflections": "", "known": []}),
            ("fact_extraction", {"name": "Kim", "message": "hi", "today": "2026-11-30 (Monday)", "known": []}),
            ("conversation_note", {"name": "Kim", "transcript": ["Kim: hi"], "today": "2026-11-30"}),
        ):
            port.call(kind, _filled(kind, variables), user_id="kim")
        del records[:]

    poignancy = 0
    statements: list[str] = list(MEMORIES)
    for turns in DAY_CONVERSATIONS:
        fake.clear_cache()  # hours since the last conversation: nothing of it is still cached
        warm_shared_prefixes()
        history: list[tuple[str, str]] = []
        for text in turns:
            ask(
                "reply",
                {"name": "Sam", "message": text, "memories": MEMORIES, "reflections": THOUGHTS,
                 "today": "2026-11-30 (Monday)", "known": KNOWN},
                world_brief=WORLD_BRIEF,
                history=history,
                context={"known_ids": [k["id"] for k in KNOWN]},
            )  # fmt: skip
            history += [("user", text), ("assistant", "That sounds like a lot. How are you feeling about it?")]
            poignancy += poignancy_score(text)
            statements.append(f"Sam said: {text}")
        transcript = [f"{'Sam' if role == 'user' else 'Ella'}: {line}" for role, line in history]
        ask("conversation_note", {"name": "Sam", "transcript": transcript, "today": "2026-11-30"})
    # What one turn costs that the reply could not read for facts: its own extraction call (not in the day's sum).
    ask("fact_extraction", {"name": "Sam", "message": USER_TURNS[-1], "today": "2026-11-30 (Monday)", "known": KNOWN},
        context={"known_ids": [k["id"] for k in KNOWN]})  # fmt: skip
    reread, _ = spent.pop("fact_extraction"), calls.pop("fact_extraction")
    reflections = poignancy / settings.importance_trigger_max
    recent = (statements * (FOCAL_INPUT // len(statements) + 1))[:FOCAL_INPUT]
    ask("focal_points", {"name": "Sam", "statements": recent, "n": FOCAL_POINTS}, reflections)
    for _ in range(FOCAL_POINTS):
        ask(
            "insights",
            {
                "name": "Sam",
                "focal_point": "How does Sam feel about the new job?",
                "statements": recent[:RETRIEVE_PER_FOCAL],
            },
            reflections,
            context={"statement_count": RETRIEVE_PER_FOCAL},
        )
    ask(
        "digest",
        {"name": "Sam", "today": "2026-12-01", "facts": [{"id": 1, "topic": "job interview", "upcoming": False}],
         "plans": [{"id": 2, "plan": "ask Sam how the first week at the museum goes"}], "self_log": THOUGHTS,
         "chapter": WEEK_MEMOS[0], "arc_stage": "warming", "arc_mindful_of": "Sam opens up after work."},
        PER_DAY["digest"],
    )  # fmt: skip
    ask(
        "chapter_distillation",
        {"name": "Sam", "period": "2026-11-23 to 2026-11-29", "self_log": THOUGHTS,
         "memos": [{"id": i, "text": m, "poignancy": 5} for i, m in enumerate(WEEK_MEMOS, start=1)]},
        PER_DAY["chapter_distillation"],
    )  # fmt: skip
    ask(
        "relationship_arc",
        {"name": "Sam", "period": "November 2026", "chapter_count": 4, "previous_stage": "new",
         "previous": "new, rising", "chapters": ["The interview week", "A new job", "Leo leaves", "Settling in"]},
        PER_DAY["relationship_arc"],
    )  # fmt: skip

    floor = spent["reply"]
    total = sum(spent.values())
    inner = total - floor
    job = {"extraction": ("fact_extraction",), "close (memo+plan)": ("memo", "planning_thought", "conversation_note"),
           "reflection": ("focal_points", "insights"), "digest": ("digest",), "chapters": ("chapter_distillation",),
           "arcs": ("relationship_arc",), "perception": ("perception",)}  # fmt: skip
    by_job = {name: sum(spent.get(k, 0.0) for k in kinds) for name, kinds in job.items()}
    print(f"prices as of {PRICES_AS_OF} ({PRICES_SOURCE}); minimum cacheable prefix: {MIN_CACHEABLE_TOKENS}")
    print("kind                   model              calls/day   $/day      cached prefix read")
    for kind in sorted(spent, key=lambda k: -spent[k]):
        model = tiers[KINDS[kind].tier]
        where = "batched" if kind in BATCHED_KINDS else ("yes" if kind in cached_kinds else "no")
        print(f"{kind:<22} {model:<18} {calls[kind]:>9.3f}   {spent[kind]:.5f}    {where}")
    print(f"floor (the live replies alone): ${floor:.4f}/day; everything: ${total:.4f}/day; inner life on top: "
          f"${inner:.4f} = {inner / floor:.0%} of the floor (aim: at most 25%)")  # fmt: skip
    dominant = max(by_job, key=lambda name: by_job[name])
    print("inner life by job: " + ", ".join(f"{n} ${v:.4f}" for n, v in sorted(by_job.items(), key=lambda i: -i[1])))
    print(f"dominated by: {dominant} ({by_job[dominant] / inner:.0%} of the inner life)")
    print(f"fact extraction: folded into the reply; a turn read again by its own call costs ${reread:.5f} "
          f"({reread / (floor / 20):.0%} of a reply)")  # fmt: skip
    print(cache_padding_verdicts(port, tiers, cached_kinds))
    return {
        "usd_per_active_user_day": round(total, 5),
        "usd_floor_replies_per_day": round(floor, 5),
        "usd_inner_life_per_day": round(inner, 5),
        "inner_life_share_of_floor": round(inner / floor, 3),
        "inner_life_dominated_by": dominant,
        "day_calls": round(sum(calls.values()), 2),
        "usd_per_turn_extracted_by_its_own_call": round(reread, 6),
    }


def cache_padding_verdicts(port: ModelPort, tiers: dict[str, str], cached: set[str]) -> str:
    """For each kind whose shared prefix (persona and instructions) is under its model's minimum: would making it
    long enough to cache pay? Padded to the minimum M, a warm call reads M tokens at a tenth of the input price
    instead of P plain ones: it pays only when M / 10 < P, and then saves (P - M/10) input-price units a call,
    less a write of M at 1.25x each time the prefix goes cold (every 5 idle minutes across all users)."""
    from ella.llm.kinds import KINDS
    from ella.usage import CACHE_READ_MULTIPLIER, min_cacheable_tokens
    from tests.support.fake_anthropic import estimate_tokens

    lines = ["shared prefix (persona + instructions) per kind, against its model's minimum:"]
    for kind in sorted(KINDS):
        model = tiers[KINDS[kind].tier]
        request = port.request(kind, _filled(kind, {}))
        prefix = estimate_tokens(request.system[0].text)
        minimum = min_cacheable_tokens(model)
        if prefix >= minimum:
            verdict = "cached as it is"
        elif kind in cached:
            verdict = "cached at a later breakpoint (with the user's world brief and history): nothing to pad"
        else:
            saved = prefix - minimum * CACHE_READ_MULTIPLIER  # input-price token units saved per warm call
            verdict = (
                f"padding to {minimum} would save {saved:.0f} input tokens' price per warm call ({saved / prefix:.0%})"
                if saved > 0
                else f"padding to {minimum} would cost more than it saves ({-saved:.0f} tokens' price a call)"
            )
        lines.append(f"  {kind:<22} {model:<18} {prefix:>5} tokens: {verdict}")
    return "\n".join(lines)


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
    with FakeAnthropic() as fake:
        print("# day: dollars per active user per day, 20 messages, every kind, list prices")
        day = day_economy(fake)
        print(json.dumps(day))
    print(json.dumps({**port, **worker, **digest, **day}))


if __name__ == "__main__":
    main()
