"""The seed's notification story, played by ``ella demo``: "my interview is on Thursday" → "how did it go?".

Why a simulated week: follow-ups wait for days, so the story feeds the real pipeline messages dated last week
(through the gateway client and the worker, as a gateway would) and then runs the follow-up and dispatch
passes at chosen moments of that week, in this process, against the same database and Redis. What it shows:
- the user's profile (London, active 09:00-21:00, do-not-disturb 22:00-08:00) arrives through the gateway;
- Sunday "my interview is on Thursday", Monday "it's on Friday now": the Thursday event is superseded;
- Friday 10:00: nothing is brought up (the Thursday follow-up died with its fact);
- Saturday 00:30: the follow-up for Friday exists but waits (do-not-disturb), with its rule;
- Saturday 09:00: it goes out in the user's active hours, opening with the AI notice;
- the user's answer continues the conversation that holds Ella's question.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from rich.console import Console
from sqlalchemy import select

from adapters.db import autocommit_scope
from demo.stack import Stack
from demo.world import settle
from ella.contract import OutboxEntry
from gateway.client import enqueue_message, outbox_reader, update_profile
from models import NotificationCandidate, User, WorldFact

LONDON = ZoneInfo("Europe/London")


def last_weeks_sunday(today: date) -> date:
    """The Sunday of the week before this one (so the whole story lies in the past)."""
    return today - timedelta(days=(today.weekday() + 1) % 7 + 7)


STORY = [
    (0, "10:00", "My interview is on Thursday and I'm nervous about it"),
    (1, "18:00", "My interview is on Friday now, they moved it"),
    (6, "09:40", "It went great! They offered me the job"),
]


def wait_until(predicate, timeout: float, what: str) -> object:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.2)
    raise TimeoutError(f"the demo waited {timeout:.0f}s for {what}")


def soon(predicate, timeout: float) -> object:  # type: ignore[no-untyped-def]
    """What ``predicate`` found within ``timeout``, or None: a real model may tell the story otherwise."""
    try:
        return wait_until(predicate, timeout, "")
    except TimeoutError:
        return None


def play_reaching_out(console: Console, stack: Stack, run: str) -> None:
    from tasks.followups import make_followups
    from tasks.notifications import dispatch

    user = f"robin-{run}"
    sunday = last_weeks_sunday(datetime.now(LONDON).date())

    def at(days: int, hhmm: str) -> datetime:
        hour, minute = map(int, hhmm.split(":"))
        return datetime(sunday.year, sunday.month, sunday.day, hour, minute, tzinfo=LONDON) + timedelta(days=days)

    console.rule("[bold]Ella reaches out (the seed's story, on last week's calendar)")
    update_profile(
        user_id=user,
        updated_at=datetime.now(UTC),
        timezone="Europe/London",
        locale="en_GB",
        is_minor=False,
        do_not_disturb="22:00-08:00",
        active_hours="09:00-21:00",
        notifications=True,
    )
    reader = outbox_reader(f"story-{run}", "demo", start_id="$")

    def say(when: datetime, text: str) -> OutboxEntry:
        message_id = f"story-{run}-{when:%a%H%M}"
        enqueue_message(message_id=message_id, user_id=user, text=text, sent_at=when)
        console.print(f"[dim]{when:%a %H:%M}[/] [cyan]{user}:[/] {text}")
        entry = wait_until(lambda: next((e for e in read(reader) if e.in_reply_to == message_id), None), 30, "a reply")
        console.print(f"[dim]{when:%a %H:%M}[/] [magenta]ella:[/] {entry.text}")  # type: ignore[attr-defined]
        return entry  # type: ignore[return-value]

    def dated() -> list[WorldFact]:
        """The user's dated events (facts with a follow-up window), oldest first."""
        with autocommit_scope() as s:
            query = select(WorldFact).where(WorldFact.user_id == user, WorldFact.followup_after.is_not(None))
            return list(s.scalars(query.order_by(WorldFact.id)))

    wait_until(lambda: _profile_applied(user), 30, "the profile")
    (sun, sun_at, sun_text), (mon, mon_at, mon_text), (answer_day, answer_at, answer_text) = STORY
    say(at(sun, sun_at), sun_text)
    settle(stack.settings)  # the fact extraction has run: what it found is in the ledger, or never will be
    if not dated():
        console.print("  The model found no dated event there, so there is nothing to follow up: the story ends.")
        return
    say(at(mon, mon_at), mon_text)
    settle(stack.settings)
    moved = any(f.status == "superseded" for f in dated())
    if not moved:
        console.print("  (the model did not read the second message as the same event moved)")
    for fact in dated():
        window = f"{fact.followup_after.astimezone(LONDON):%a %d %b}" if fact.followup_after else "-"
        console.print(f"  ledger: {fact.subject} {fact.predicate} {fact.object!r}, {fact.status}; "
                      f"follow-up window opens {window}")  # fmt: skip

    def run_passes(when: datetime) -> dict[str, int]:
        made = make_followups.apply(kwargs={"at": when.isoformat()}).get()
        sent = dispatch(when)
        console.print(f"[dim]{when:%a %H:%M}[/] follow-up pass {made}; dispatch pass {sent or 'nothing to do'}")
        return dict(sent or {})

    run_passes(at(5, "10:00"))
    if moved:
        console.print("  Friday: nothing about Thursday is brought up: that follow-up died with its superseded fact.")
    run_passes(at(6, "00:30"))
    with autocommit_scope() as s:
        waiting = s.scalars(select(NotificationCandidate).where(NotificationCandidate.user_id == user)).all()
        for cand in waiting:
            console.print(f"  candidate {cand.id} ({cand.kind}): {cand.status}, held by {cand.reason}; "
                          f"looked at again {cand.not_before.astimezone(LONDON):%a %H:%M}")  # fmt: skip
    sent = run_passes(at(6, "09:00")).get("sent", 0)
    # Only a sent notification is waited for: the dispatch pass says whether one went out.
    note = soon(lambda: next((e for e in read(reader) if e.kind == "notification"), None), 30) if sent else None
    if note is None:
        console.print("  Nothing went out on Saturday morning.")
        return
    console.print(f"[dim]{at(6, '09:00'):%a %H:%M}[/] [magenta]ella (notification):[/] {note.text}")  # type: ignore[attr-defined]
    answer = say(at(answer_day, answer_at), answer_text)
    same = answer.conversation_id == note.conversation_id  # type: ignore[attr-defined]
    console.print(f"  the answer continues the conversation that holds Ella's question: {same}")


def read(reader) -> list[OutboxEntry]:  # type: ignore[no-untyped-def]
    entries = reader.read(count=50, block_ms=200)
    for entry in entries:
        reader.ack(entry)
    return entries


def _profile_applied(user: str) -> bool:
    with autocommit_scope() as s:
        return s.scalar(select(User.profile_updated_at).where(User.id == user)) is not None
