"""When a planning thought goes stale: the one kind of memory that expires.

A plan is Ella's intention for a moment ("after Thursday's interview, ask how it went"); once the moment has
passed, acting on it would be wrong (the stale-event failure of the addendum, section 5). Insights are not
plans: reflections, memos and chapters never expire (``ella.memory.nodes``).

Two moments, and which applies:
* a plan tied to a day (the model's ``until``, the last day it still makes sense) expires at the end of that
  day, counted in UTC plus a day's grace so no time zone ends it before the user's own day is over;
* an undated plan is for "next time": it expires when the next conversation it was made for closes (that
  conversation's own close makes the next plan). ``models.memory.expire_plans_before`` applies it.

And sooner, when what it waits for is already known: once the user tells the outcome of an event and its fact is
retired (``ella.ledger.consolidation``), a plan to ask how that event went is stale (``about_event``,
``models.memory.expire_plans_about``), so neither the digest nor a reply asks about an outcome already told. A
plan written after the outcome is never stored, and one written before it is never sent after it: ``ella.event_over``
(the close, the digest and the dispatcher each check).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from ella.lexicon import tokenize

PLAN_KEY_PREFIX = "plan:"  # a planning thought's dedupe key: plan:<conversation id>
DAY_GRACE = timedelta(days=1)  # the widest time-zone offset is under a day


def dated_expiry(until: date | None) -> datetime | None:
    """The expiry of a plan tied to ``until``; None for an undated plan (it waits for the next conversation)."""
    if until is None:
        return None
    return datetime.combine(until + timedelta(days=1), time(0, 0), tzinfo=UTC) + DAY_GRACE


def about_event(plan: str, event: str) -> bool:
    """Whether a plan follows up on ``event`` (a retired fact's object, "job interview"): it names the event's head
    word ("interview"), as every plan the follow-up rules and the planning prompt write does. Why the head word:
    a told outcome makes "ask how the interview went" stale, but not "ask about the new job"."""
    words = tokenize(event)
    return bool(words) and words[-1] in set(tokenize(plan))
