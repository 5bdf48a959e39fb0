"""The lazy world's tickers: each world subject, how long its value holds, and how it moves on when read.

Why tickers and not a cron: a per-user world tick on a schedule pays for every user every day, chatting or
not (the seed's section 3). A ticker runs only when something reads a stale subject, and it is a cheap pure
function of (the previous value and when it was ticked, now, the user's world view), deterministic by user and
local day, so a test can pin its values and two workers that tick at once compute the same fact.

The ledger stays the source of truth: every tick is written as a fact (``new_fact``) under a dedupe key of the
subject's period, so a second tick of the same period writes nothing. Who writes which tier is the ledger's
rule (``ella.ledger.rules``): the world clock's writer may write canon, and does so only for what is Ella's
own to decide (the day's weather, her mood, her book); a micro-event is what Ella saw (observed) or heard
(rumored), never canon, and ``new_fact`` refuses a ticker's tier that it did not declare.

No model call: the values come from small lists picked by a stable hash, so the offline engine and a test
need nothing, and a tick costs microseconds.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ella.ledger.anchors import WEATHER_SUBJECT, weather_for
from ella.ledger.facts import NewFact, StoredFact
from ella.ledger.rules import LIVE, Tier, TrustViolation
from ella.world.lazy import Staleness

MOOD_SUBJECT = "ella.mood"
BOOK_SUBJECT = "ella.reading"
HAPPENING_SUBJECT = "world.happening"
CAT_NAME_SUBJECT = "companion.name"


# --- what a ticker sees ----------------------------------------------------------------------------------------


LOW_WORDS = frozenset(
    "sad tired exhausted lonely anxious worried stressed awful terrible upset cry crying hurt sick ill lost "
    "miserable scared afraid angry frustrated rough hard grief grieving".split()
)
BRIGHT_WORDS = frozenset(
    "happy great excited glad lovely wonderful amazing fun celebrate celebrating yay love loved good brilliant "
    "fantastic proud thrilled delighted".split()
)


def tone_of(texts: Iterable[str]) -> str:
    """The recent tone of the conversation, as one word: ``low``, ``bright`` or ``neutral`` (word lists; a
    mood needs a nudge, not a classifier)."""
    low = bright = 0
    for text in texts:
        words = re.findall(r"[a-z']+", text.casefold())
        low += sum(w in LOW_WORDS for w in words)
        bright += sum(w in BRIGHT_WORDS for w in words)
    if low > bright:
        return "low"
    if bright > low:
        return "bright"
    return "neutral"


@dataclass(frozen=True)
class WorldView:
    """What a ticker may read of the user's world: the user, their zone, the live ledger facts, the tone."""

    user_id: str
    zone: ZoneInfo
    facts: Sequence[StoredFact] = ()
    tone: str | None = None

    def live(self, subject: str) -> StoredFact | None:
        """The newest live fact of ``subject``, canon before the lower tiers."""
        found = [f for f in self.facts if f.subject == subject and f.status in LIVE]
        found.sort(key=lambda f: (f.tier != Tier.CANON, -f.valid_from.timestamp(), -f.id))
        return found[0] if found else None


@dataclass(frozen=True)
class Previous:
    value: Any
    touched: datetime


@dataclass(frozen=True)
class Tick:
    """A ticker's answer: the new value and the fact that records it. ``dedupe_key`` None: the subject's
    period (``period_label``) keys it."""

    value: Any
    predicate: str
    text: str
    tier: str
    confidence: float = 1.0
    dedupe_key: str | None = None


TickFn = Callable[[Previous | None, datetime, WorldView], Tick]
ValueOf = Callable[[StoredFact], Any]


@dataclass(frozen=True)
class Ticker:
    subject: str
    staleness: Staleness
    tick: TickFn
    value_of: ValueOf = field(default=lambda fact: fact.object)
    tiers: frozenset[str] = frozenset({Tier.CANON.value})


_TICKERS: dict[str, Ticker] = {}


def register_ticker(ticker: Ticker) -> Ticker:
    """Register (or replace) the ticker of a subject; the lazy world reads every registered subject."""
    _TICKERS[ticker.subject] = ticker
    return ticker


def tickers() -> list[Ticker]:
    return list(_TICKERS.values())


def ticker_for(subject: str) -> Ticker:
    return _TICKERS[subject]


def world_subjects() -> frozenset[str]:
    """The subjects the lazy world caches: a ledger write to one of them invalidates its cached value."""
    return frozenset(_TICKERS)


def period_label(ticker: Ticker, at: datetime, zone: ZoneInfo) -> str:
    """The subject's period ``at`` falls in, in the user's local time: its day, and the block of the day for a
    subject that holds less than a day (mood every 4 hours: ``2026-11-30.b2`` is 08:00-12:00)."""
    local = at.astimezone(zone)
    hours = ticker.staleness.max_staleness.total_seconds() / 3600
    if hours >= 24:
        return local.date().isoformat()
    return f"{local.date().isoformat()}.b{int(local.hour // max(hours, 1))}"


def new_fact(ticker: Ticker, tick: Tick, user_id: str, now: datetime, zone: ZoneInfo) -> NewFact:
    """The ledger fact of a tick (valid from ``now``: the watermark is re-derived from it after a cache loss).

    Raises TrustViolation when the tick's tier is not one its ticker declared (a micro-event never becomes
    canon, whatever a ticker's bug returns).
    """
    if tick.tier not in ticker.tiers:
        raise TrustViolation(f"the {ticker.subject} ticker may not write a {tick.tier} fact")
    key = tick.dedupe_key or f"lazy:{user_id}:{ticker.subject}:{period_label(ticker, now, zone)}"
    return NewFact(ticker.subject, tick.predicate, tick.text, tick.tier, confidence=tick.confidence,
                   note=f"lazy world tick ({period_label(ticker, now, zone)})", valid_from=now,
                   dedupe_key=key[:200])  # fmt: skip


def _seed(*key: object) -> int:
    return zlib.crc32("|".join(str(k) for k in key).encode())


def _pick(options: Sequence[str], *key: object) -> str:
    return options[_seed(*key) % len(options)]


# --- today's weather (the world clock's rule) ------------------------------------------------------------------


def tick_weather(prev: Previous | None, now: datetime, world: WorldView) -> Tick:
    """The day's weather, as the world clock picks it (``ella.ledger.anchors.weather_for``) and under the
    clock's own dedupe key, so the clock and this ticker record one weather a day between them."""
    today = now.astimezone(world.zone).date()
    return Tick(weather_for(world.user_id, today), "weather", weather_for(world.user_id, today), Tier.CANON.value,
                dedupe_key=f"weather:{world.user_id}:{today}")  # fmt: skip


WEATHER = register_ticker(Ticker(WEATHER_SUBJECT, Staleness(timedelta(hours=24), daily=True), tick_weather))


# --- Ella's mood ------------------------------------------------------------------------------------------------

MOODS = (
    "content and unhurried",
    "quietly cheerful",
    "thoughtful",
    "a little restless",
    "warm and talkative",
    "dreamy",
    "focused and calm",
    "playful",
)
WET = ("rain", "drizzle", "showers", "mist")


def tick_mood(prev: Previous | None, now: datetime, world: WorldView) -> Tick:
    """Ella's mood for this block of her day: the day's own (a stable pick by user, day and block), coloured by
    the weather and, when given, the conversation's recent tone (she is gentler when the user is low)."""
    local = now.astimezone(world.zone)
    mood = _pick(MOODS, world.user_id, local.date().isoformat(), local.hour // 4)
    weather = world.live(WEATHER_SUBJECT)
    if weather is not None and any(w in weather.object for w in WET) and mood == "a little restless":
        mood = "cosy, listening to the rain"
    if world.tone == "low":
        mood = f"gentle and attentive ({mood} underneath)"
    elif world.tone == "bright":
        mood = f"{mood}, and glad of the good news"
    return Tick(mood, "mood", mood, Tier.CANON.value)


MOOD = register_ticker(Ticker(MOOD_SUBJECT, Staleness(timedelta(hours=4)), tick_mood))


# --- the book Ella is reading -----------------------------------------------------------------------------------

BOOKS: tuple[tuple[str, str, int], ...] = (
    ("The Shipping News", "Annie Proulx", 337),
    ("A Month in the Country", "J. L. Carr", 112),
    ("The Outrun", "Amy Liptrot", 288),
    ("Persuasion", "Jane Austen", 249),
    ("The Peregrine", "J. A. Baker", 191),
    ("Sunset Song", "Lewis Grassic Gibbon", 256),
    ("Moominpappa at Sea", "Tove Jansson", 224),
    ("The Summer Book", "Tove Jansson", 172),
)
PAGE = re.compile(r", page (\d+) of (\d+)$")


def book_text(value: dict[str, Any]) -> str:
    return f"{value['title']} by {value['author']}, page {value['page']} of {value['pages']}"


def book_value(fact: StoredFact) -> dict[str, Any]:
    """The reading back from its fact (after a cache loss); an operator's free text is a book at page 1."""
    match = PAGE.search(fact.object)
    head = fact.object[: match.start()] if match else fact.object
    for title, author, pages in BOOKS:
        if head == f"{title} by {author}":
            page = int(match.group(1)) if match else 1
            return {"title": title, "author": author, "page": page, "pages": pages}
    return {"title": head, "author": "", "page": int(match.group(1)) if match else 1,
            "pages": int(match.group(2)) if match else 300}  # fmt: skip


def _next_book(title: str) -> int:
    titles = [b[0] for b in BOOKS]
    return (titles.index(title) + 1) % len(BOOKS) if title in titles else 0


def tick_book(prev: Previous | None, now: datetime, world: WorldView) -> Tick:
    """Ella reads 20 to 50 pages a day (the day's pace is a stable pick); a finished book is followed by the
    next of the packaged list, the pages left over read in it."""
    today = now.astimezone(world.zone).date()
    if prev is None:
        title, author, pages = BOOKS[_seed(world.user_id, "book") % len(BOOKS)]
        start = 1 + _seed(world.user_id, today) % (pages // 3)
        value: dict[str, Any] = {"title": title, "author": author, "page": start, "pages": pages}
    else:
        value = dict(prev.value)
        days = max(0.0, (now - prev.touched).total_seconds() / 86400)
        value["page"] = int(value["page"]) + round((20 + _seed(world.user_id, today, "pace") % 31) * days)
        while int(value["page"]) > int(value["pages"]):
            left = int(value["page"]) - int(value["pages"])
            title, author, pages = BOOKS[_next_book(str(value["title"]))]
            value = {"title": title, "author": author, "page": max(1, left), "pages": pages}
    return Tick(value, "reading", book_text(value), Tier.CANON.value)


BOOK = register_ticker(Ticker(BOOK_SUBJECT, Staleness(timedelta(hours=24), daily=True), tick_book, value_of=book_value))


# --- micro-events: the cat, a neighbour, the sea ----------------------------------------------------------------

# (source, tier, what happened): what Ella saw herself is observed; what a neighbour told her is rumored.
HAPPENINGS: tuple[tuple[str, str, str], ...] = (
    ("cat", Tier.OBSERVED.value, "$cat brought a crab shell in from the garden and looked very proud"),
    ("cat", Tier.OBSERVED.value, "$cat slept all afternoon on the warm kitchen windowsill"),
    ("cat", Tier.OBSERVED.value, "$cat sat by the door watching the gulls for an hour"),
    ("sea", Tier.OBSERVED.value, "the tide went out further than usual and showed the old wreck's ribs"),
    ("sea", Tier.OBSERVED.value, "a seal surfaced just off the harbour wall"),
    ("sea", Tier.OBSERVED.value, "the sea was glassy and still first thing this morning"),
    ("neighbour", Tier.RUMORED.value, "the neighbour says the bakery on the harbour is closing for the winter"),
    ("neighbour", Tier.RUMORED.value, "the neighbour heard someone saw dolphins past the point"),
    ("neighbour", Tier.RUMORED.value, "the neighbour thinks a storm is coming at the weekend"),
)
MICRO_TIERS = frozenset({Tier.OBSERVED.value, Tier.RUMORED.value})
CONFIDENCE = {Tier.OBSERVED.value: 0.9, Tier.RUMORED.value: 0.5}


def happening_value(fact: StoredFact) -> dict[str, Any]:
    return {"source": fact.predicate, "event": fact.object}


def tick_happening(prev: Previous | None, now: datetime, world: WorldView) -> Tick:
    """A small thing that happened in Ella's world in this block of her day (never the one before again)."""
    local = now.astimezone(world.zone)
    index = _seed(world.user_id, local.date().isoformat(), local.hour // 8, "happening") % len(HAPPENINGS)
    cat = world.live(CAT_NAME_SUBJECT)
    name = cat.object if cat is not None else "the cat"
    for step in range(len(HAPPENINGS)):
        source, tier, template = HAPPENINGS[(index + step) % len(HAPPENINGS)]
        event = template.replace("$cat", name)
        if prev is None or prev.value.get("event") != event:
            break
    value = {"source": source, "event": event}
    return Tick(value, source, event, tier, confidence=CONFIDENCE[tier])


HAPPENING = register_ticker(
    Ticker(
        HAPPENING_SUBJECT, Staleness(timedelta(hours=8)), tick_happening, value_of=happening_value, tiers=MICRO_TIERS
    )  # fmt: skip
)
