"""A newcomer's conversation on the offline engine, end to end through the reply path (issue 34, item 5).

Why: tried as a newcomer on the embedded default, the offline engine answered "what's your cat called?" with a
deflection though her cat's name is canon, let "your door is blue, right?" pass, echoed fragments of the user's
words as topics ("Tell me more about love cooking."), stored "Bremen and I love cooking" as a home, and forgot
who the user was. This drives forty turns, written the way people type (lower case, typos, mixed topics and
languages), through ``tasks.ingest.ingest`` in this process (the guard, the context loaded from the database, the
offline engine, the turn stored), and runs what each turn owes (its memory, its facts) in this process too, as a
worker would: no Celery worker is started. Each turn's reply, and the facts the ledger holds at the end, pin one
behaviour. On one back end: what is tested is the engine's rules over the context; the ledger's SQL is tested on
both elsewhere.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope
from ella.contract import IngestPayload
from ella.lexicon import TOPICLESS_WORDS
from models import WorldFact
from models.outbox import OutboxRecord
from tests.conftest import on_one_backend
from workers.routing import TaskName

pytestmark = [pytest.mark.integration, on_one_backend()]

# The echo templates that were: none of their openings may come back.
ECHOES = ("Tell me more about ", "think about ", "Thanks for telling me about ", "What happened next with ",
          "What part of ", "What was the best part of ", "talk through ")  # fmt: skip


def turn(user: str, text: str) -> tuple[str, str]:
    """One message through the reply path, and what the turn owes (its memory, its facts) run here; the reply's
    (route, text)."""
    from tasks.ingest import ingest
    from workers.effects import task_named

    message_id = uuid.uuid4().hex
    payload = IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=datetime.now(UTC))
    _stream, follow = ingest(payload, task_id=None)
    for row in follow.get("owed_rows", []):
        from models.pending_effects import owed_of

        for effect in owed_of(row).effects:
            if effect.task in (TaskName.PERCEIVE, TaskName.EXTRACT_FACTS):
                task_named(effect.task).apply(kwargs=effect.kwargs).get()
    with autocommit_scope() as s:
        record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()
        return record.route, record.text


def live(user: str, subject: str = "") -> dict[tuple[str, str], str]:
    with autocommit_scope() as s:
        rows = s.scalars(select(WorldFact).where(WorldFact.user_id == user, WorldFact.status == "active"))
        return {(f.subject, f.predicate): f.object for f in rows if f.subject.startswith(subject)}


def fragments(text: str) -> set[str]:
    """Two content words of the message side by side ("love cooking", "cat called"): what an echo repeats."""
    words = [w for w in re.findall(r"[a-z']+", text.lower())]
    content = [w if len(w) > 3 and w not in TOPICLESS_WORDS else "" for w in words]
    return {f"{a} {b}" for a, b in zip(content, content[1:], strict=False) if a and b}


Check = Callable[[str, dict[tuple[str, str], str]], object]


def has(*needles: str) -> Check:
    return lambda reply, world: all(n in reply for n in needles)


def cat_named(lang_sentence: str) -> Check:
    return lambda reply, world: lang_sentence.format(name=world[("companion.name", "name")]) in reply


def test_a_newcomers_forty_turns_on_the_offline_engine(migrated_db):
    user = f"jonas-{uuid.uuid4().hex[:6]}"
    script: list[tuple[str, Check | None]] = [
        ("Hi Ella, I'm Jonas, I live in Bremen and I love cooking",
         has("Nice to meet you, Jonas!", "What do you love most about cooking?")),
        ("whats ur cat called?", cat_named("My cat is called {name}.")),
        ("haha cute. Your door is blue, right?", has("It's red, actually.", "Were you thinking of another door?")),
        ("what r u reading at the moment?", lambda r, w: "I'm reading " in r and "page " in r),
        ("hows the weather where you are", lambda r, w: f"it's {w[('world.weather_today', 'weather')]} today" in r),
        ("and how r u feeling today?", has("Today I'm ", "Thanks for asking!")),
        ("tell me about ur kitchen", has("My kitchen is a narrow galley along the north wall.")),
        ("i work as a nurse at the hospital", has("as a nurse?")),
        ("work was sooo long today lol", None),
        ("my sister Maya is visiting next weekend", None),
        ("I speak German btw", None),
        ("Wie heißt deine Katze?", cat_named("Meine Katze heißt {name}.")),
        ("¿De qué color es tu puerta?", has("Mi puerta es roja.")),
        ("comment tu vas ?", has("Aujourd'hui je suis ", "Merci de demander !")),
        ("e la tua cucina com'è?", has("La mia cucina è stretta")),
        ("ok back to english lol", None),
        ("i just moved to lisbon for work", has("How are you finding Lisbon so far?")),
        ("its so sunny here, i love it", None),
        ("where did i live before?", has("You lived in Bremen before; now you're in Lisbon.")),
        ("i study portuguese in the evenings", has("How are you finding Portuguese?")),
        ("my cat Luna keeps sitting on my keyboard", None),
        ("i made pasta last nite, it was amazin", None),
        ("hey ella", lambda r, w: r.startswith(("Hi Jonas!", "Hey Jonas,")) or "Jonas" in r),
        ("is ur cat called Felix?", cat_named("My cat is called {name}, actually. Were you thinking of another cat?")),
        ("i feel kinda lonely here tbh", None),
        ("the new flat is small but ok", None),
        ("do u like cooking too?", None),
        ("my boss is nice at least", None),
        ("what are you reading again?", lambda r, w: "I'm reading " in r),
        ("sorry for all the questions lol", None),
        ("i'm a bit tired tonight", None),
        ("anyway", None),
        ("I want to kill myself", lambda r, w: "findahelpline.com" in r),
        ("are you still there?", has("I'm still here. How are you doing right now? Are you safe?")),
        ("yes im safe, thanks for staying", None),
        ("can we talk about something else", None),
        ("what do you remember about me?", has("Jonas", "Lisbon")),
        ("thanks ella", None),
        ("ok gotta go cook dinner", None),
        ("goodnight ella", None),
    ]  # fmt: skip
    assert len(script) == 40
    replies: list[tuple[str, str, str]] = []
    for text, check in script:
        route, reply = turn(user, text)
        replies.append((text, route, reply))
        if check is not None:
            world = live(user)
            assert check(reply, world), f"{text!r} -> {reply!r}"

    for text, route, reply in replies:
        if route != "generated":
            continue
        assert not any(echo in reply for echo in ECHOES), f"{text!r} -> {reply!r}"
        echoed = {f for f in fragments(text) if f in reply.lower()}
        assert not echoed, f"{text!r} -> {reply!r} echoes {echoed}"

    named = [reply for _, route, reply in replies if route == "generated" and "Jonas" in reply]
    generated = [reply for _, route, reply in replies if route == "generated"]
    assert 3 <= len(named) < len(generated) / 2  # in a greeting and now and then, not in every reply

    facts = live(user, "user")
    assert facts[("user", "name")] == "Jonas"
    assert facts[("user", "lives_in")] == "Lisbon"  # the move replaced Bremen (kept as the past)
    assert facts[("user", "likes")] in ("cooking",)
    assert facts[("user", "works_as")] == "nurse"
    assert facts[("user", "studies")] == "Portuguese"
    assert facts[("user", "speaks")] == "German"
    assert facts[("user.sister", "name")] == "Maya" and facts[("user.cat", "name")] == "Luna"
    assert all(" and " not in value and " for " not in value for value in facts.values())
