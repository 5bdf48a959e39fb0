"""Read-only loaders for the operator's page (``ella inspect``, ``operator_page/page.py``).

Why a module of its own: the page asks questions no task asks (a user's boundary fires, the counter's whole
history, the fleet's counts per day), and each is one query here, named after the question. Every loader of a
user's rows is scoped by ``user_id`` in its WHERE clause, and every list a page shows has a cap, so a user with
10,000 memories renders in the same time as one with ten (``bench/inspect_page.py``); the page says when it cut.
Nothing here writes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from ella.seen import SECTIONS
from ella.seen import decode as decode_seen
from ella.usage import PriceList, Tokens, job_of
from models.arcs import RelationshipArcRow
from models.audit import MemoryAudit
from models.boundary import BoundaryEvent
from models.chapters import StoryChapter
from models.conversation import Conversation
from models.dead_letter import DeadLetter
from models.ledger import FactEvent, WorldFact
from models.ledger import events as ledger_events
from models.memory import MemoryNode
from models.message import InboundMessage
from models.notifications import NotificationCandidate
from models.outbox import OutboxRecord
from models.review import FactReview
from models.selflog import SelfLogEntry
from models.usage import ModelCall, day_of, token_totals
from models.user import User

REFLECT_KEY = "reflect:"  # ella/memory/reflection.py: dedupe_key=f"reflect:{run_id}:{focal}:{insight}"
# What drained the counter: perceived events (ella/memory/perceive.py DRAINS_TRIGGER; tasks/memory.py drains only
# what perceive stores). The chat node a conversation's close writes (tasks/conversations.py) never goes through
# perceive and never drains it; thoughts never do.
DRAINS = ("event",)


# --- one user -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    at: datetime
    role: str  # user | assistant
    text: str
    ref: str  # the row's anchor: message-<message_id> or outbox-<id>
    route: str | None = None  # a reply's route: generated | canned | fallback
    # What the reply's prompt carried (``outbox_records.seen``, ``ella.seen``): (section, ids) in the stored
    # order; empty for a user's turn, a notification, or a reply stored before migration 0016 recorded it.
    seen: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass
class ConversationView:
    conversation: Conversation
    turns: list[Turn] = field(default_factory=list)


def conversations(session: Session, user_id: str, limit: int, turn_limit: int) -> list[ConversationView]:
    """The user's ``limit`` newest conversations, newest first, each with up to ``turn_limit`` turns (oldest
    first): three queries whatever the number of conversations."""
    convs = list(
        session.scalars(
            select(Conversation)
            .where(Conversation.user_id == user_id)
            .order_by(Conversation.started_at.desc(), Conversation.id.desc())
            .limit(limit)
        )
    )
    views = {c.id: ConversationView(c) for c in convs}
    if not views:
        return []
    turns: dict[int, list[Turn]] = defaultdict(list)
    messages = session.execute(
        select(InboundMessage.conversation_id, InboundMessage.sent_at, InboundMessage.message_id, InboundMessage.text)
        .where(InboundMessage.user_id == user_id, InboundMessage.conversation_id.in_(views))
        .order_by(InboundMessage.sent_at.desc())
        .limit(turn_limit * len(views))
    ).all()
    sent_at = {mid: at for _, at, mid, _ in messages}
    for conv_id, at, mid, text in messages:
        turns[conv_id].append(Turn(at, "user", text, f"message-{mid}"))
    records = session.execute(
        select(
            OutboxRecord.conversation_id,
            OutboxRecord.created_at,
            OutboxRecord.id,
            OutboxRecord.text,
            OutboxRecord.in_reply_to,
            OutboxRecord.route,
            OutboxRecord.kind,
            OutboxRecord.seen,
        )
        .where(OutboxRecord.user_id == user_id, OutboxRecord.conversation_id.in_(views))
        .order_by(OutboxRecord.created_at.desc())
        .limit(turn_limit * len(views))
    ).all()
    for rec_conv, created, rid, text, in_reply_to, route, kind, seen in records:
        if rec_conv is None:
            continue
        # a reply sorts right after the message it answers (models/turns.py does the same)
        at = sent_at.get(in_reply_to or "", created) if kind == "reply" else created
        saw = tuple((section, tuple(ids)) for section, ids in decode_seen(seen).items() if ids)
        turns[rec_conv].append(Turn(at, "assistant", text, f"outbox-{rid}", route, saw))
    for conv_id, view in views.items():
        ordered = sorted(turns[conv_id], key=lambda t: (t.at, t.role == "assistant"))
        view.turns = ordered[-turn_limit:]
    return list(views.values())


def conversation_count(session: Session, user_id: str) -> int:
    return session.scalar(select(func.count()).where(Conversation.user_id == user_id)) or 0


def memory_nodes(session: Session, user_id: str, limit: int) -> list[MemoryNode]:
    """The user's ``limit`` newest memory nodes, newest first."""
    return list(
        session.scalars(
            select(MemoryNode)
            .where(MemoryNode.user_id == user_id)
            .order_by(MemoryNode.created_at.desc(), MemoryNode.id.desc())
            .limit(limit)
        )
    )


def nodes_by_id(session: Session, user_id: str, node_ids: Sequence[int]) -> list[MemoryNode]:
    """These nodes of this user (a thought's evidence outside the newest page), oldest first."""
    if not node_ids:
        return []
    return list(
        session.scalars(
            select(MemoryNode)
            .where(MemoryNode.user_id == user_id, MemoryNode.id.in_(sorted(set(node_ids))))
            .order_by(MemoryNode.created_at, MemoryNode.id)
        )
    )


def node_counts(session: Session, user_id: str) -> dict[str, int]:
    """How many nodes of each type the user has."""
    rows = session.execute(
        select(MemoryNode.node_type, func.count()).where(MemoryNode.user_id == user_id).group_by(MemoryNode.node_type)
    )
    return {node_type: n for node_type, n in rows}


def cited_ids(evidence: str) -> list[int]:
    """The node ids a thought cites (a chat's evidence is its transcript: no ids)."""
    return json_ids(evidence)


def json_ids(text: str | None) -> list[int]:
    """The ints of a stored JSON list (a thought's evidence, a review's fact ids); [] for anything else, so one
    malformed row shows as empty rather than failing the page."""
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)] if isinstance(value, list) else []


@dataclass(frozen=True)
class CounterPoint:
    """The importance counter right after one node drained it, or right after a reflection reset it."""

    node_id: int
    at: datetime
    value: int
    reflection: bool  # a reset: the reflection's first thought is ``node_id``


@dataclass(frozen=True)
class CounterHistory:
    """The counter's last ``points`` (oldest first), how many drains there were in all, and how many reflections."""

    points: list[CounterPoint]
    drains: int
    reflections: int


def _run_of(key: str) -> str:
    return key.split(":")[1] if key.count(":") >= 1 else key


def counter_history(session: Session, user_id: str, trigger_max: int, last: int) -> CounterHistory:
    """The counter replayed from the nodes in insert order over the last ``last`` drains: each perceived event
    lowers it by its poignancy (a conversation's chat node never drains it), each reflection (a run of
    ``reflect:`` thoughts) resets it to ``trigger_max``.

    A replay, not a log: the counter keeps only its current value (``users.importance_trigger_curr``), so a
    change of ``importance_trigger_max`` over the user's life shifts the curve. Only the window is read row by
    row: the value where it starts is ``trigger_max`` less the poignancy drained since the last reflection
    before it (one SUM), so a user with 10,000 nodes costs the same as one with ``last``.
    """
    drains = MemoryNode.node_type.in_(DRAINS)
    mine = MemoryNode.user_id == user_id
    reflected = MemoryNode.dedupe_key.like(f"{REFLECT_KEY}%")
    total = session.scalar(select(func.count()).where(mine, drains)) or 0
    runs = {_run_of(k) for k in session.scalars(select(MemoryNode.dedupe_key).where(mine, reflected)) if k}
    first = session.scalar(
        select(MemoryNode.id).where(mine, drains).order_by(MemoryNode.id.desc()).offset(max(last, 1) - 1).limit(1)
    )
    value, seen = trigger_max, set()
    window = select(
        MemoryNode.id, MemoryNode.created_at, MemoryNode.node_type, MemoryNode.poignancy, MemoryNode.dedupe_key
    ).where(mine, drains | reflected)
    if first is not None and total > last:
        reset = session.execute(
            select(MemoryNode.id, MemoryNode.dedupe_key)
            .where(mine, reflected, MemoryNode.id < first)
            .order_by(MemoryNode.id.desc())
            .limit(1)
        ).first()
        since = reset[0] if reset is not None else 0
        if reset is not None and reset[1]:
            seen.add(_run_of(reset[1]))
        drained = session.scalar(
            select(func.coalesce(func.sum(MemoryNode.poignancy), 0)).where(
                mine, drains, MemoryNode.id > since, MemoryNode.id < first
            )
        )
        value -= int(drained or 0)
        window = window.where(MemoryNode.id >= first)
    points = []
    for node_id, at, node_type, poignancy, key in session.execute(window.order_by(MemoryNode.id)):
        if node_type in DRAINS:
            value -= poignancy
            points.append(CounterPoint(node_id, at, value, False))
        elif key is not None and _run_of(key) not in seen:
            seen.add(_run_of(key))
            value = trigger_max
            points.append(CounterPoint(node_id, at, value, True))
    return CounterHistory(points, total, len(runs))


def fact_chains(session: Session, user_id: str, limit: int) -> tuple[list[list[WorldFact]], int]:
    """The user's ``limit`` most recently written fact chains, newest first, each oldest fact first, and how many
    chains there are in all. Two queries."""
    latest = func.max(WorldFact.recorded_at).label("latest")
    chains = session.execute(
        select(WorldFact.chain, latest)
        .where(WorldFact.user_id == user_id)
        .group_by(WorldFact.chain)
        .order_by(latest.desc(), WorldFact.chain)
        .limit(limit)
    ).all()
    total = session.scalar(select(func.count(func.distinct(WorldFact.chain))).where(WorldFact.user_id == user_id))
    names = [chain for chain, _ in chains]
    by_chain: dict[str, list[WorldFact]] = {name: [] for name in names}
    if names:
        rows = session.scalars(
            select(WorldFact)
            .where(WorldFact.user_id == user_id, WorldFact.chain.in_(names))
            .order_by(WorldFact.recorded_at, WorldFact.id)
        )
        for fact in rows:
            by_chain[fact.chain].append(fact)
    return [by_chain[name] for name in names], total or 0


def fact_events(session: Session, user_id: str, fact_ids: Sequence[int]) -> dict[int, list[FactEvent]]:
    """Status changes of these facts of this user (``models.ledger.events``), oldest first, by fact id."""
    out: dict[int, list[FactEvent]] = defaultdict(list)
    for event in ledger_events(session, user_id, fact_ids) if fact_ids else []:
        out[event.fact_id].append(event)
    return out


def self_log(session: Session, user_id: str, limit: int) -> list[SelfLogEntry]:
    """The user's ``limit`` newest self-log entries, newest first."""
    e = SelfLogEntry
    return list(
        session.scalars(select(e).where(e.user_id == user_id).order_by(e.said_at.desc(), e.id.desc()).limit(limit))
    )


def boundary_events(session: Session, user_id: str, limit: int) -> list[BoundaryEvent]:
    """The user's ``limit`` newest boundary fires, newest first."""
    b = BoundaryEvent
    return list(session.scalars(select(b).where(b.user_id == user_id).order_by(b.at.desc(), b.id.desc()).limit(limit)))


def chapters(session: Session, user_id: str, limit: int) -> list[StoryChapter]:
    """The user's ``limit`` newest story chapters, newest first."""
    c = StoryChapter
    return list(session.scalars(select(c).where(c.user_id == user_id).order_by(c.period_end.desc()).limit(limit)))


def arcs(session: Session, user_id: str) -> list[RelationshipArcRow]:
    """Every arc of the user, newest month first, as rows (their provenance with them)."""
    return list(
        session.scalars(
            select(RelationshipArcRow)
            .where(RelationshipArcRow.user_id == user_id)
            .order_by(RelationshipArcRow.period.desc())
        )
    )


def user_dead_letters(session: Session, user_id: str, limit: int) -> list[DeadLetter]:
    d = DeadLetter
    return list(session.scalars(select(d).where(d.user_id == user_id).order_by(d.created_at.desc()).limit(limit)))


@dataclass(frozen=True)
class SeenItem:
    """One id a reply's prompt carried, resolved to the line the page shows and the anchor of its own row."""

    kind: str  # memory | fact | selflog | chapter | arc (``ella.seen.SECTIONS``)
    id: int
    text: str
    anchor: str  # node-12, fact-7, selflog-3, chapter-2, arc-2026-11: present only if that row is on the page


IN_CHUNK = 500  # ids per IN (...): SQLite's bound-parameter limit is far above, and the plans stay small


def _chunks(ids: Iterable[int], size: int = IN_CHUNK) -> Iterable[list[int]]:
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def seen_items(session: Session, user_id: str, turns: Iterable[Turn]) -> dict[tuple[str, int], SeenItem]:
    """What the replies among ``turns`` saw, resolved by (kind, id): one query per kind (per 500 ids), each
    scoped to this user, so an id of another user's row, or of a row forgotten since, is simply absent (the page
    shows it as gone) and no other user's words can reach this page."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for turn in turns:
        for section, ids in turn.seen:
            kind = SECTIONS.get(section)
            if kind is not None:
                wanted[kind].update(ids)
    out: dict[tuple[str, int], SeenItem] = {}

    def put(kind: str, item_id: int, text: str, anchor: str) -> None:
        out[(kind, item_id)] = SeenItem(kind, item_id, text, anchor)

    for chunk in _chunks(wanted["memory"]):
        m = MemoryNode
        for i, description in session.execute(select(m.id, m.description).where(m.user_id == user_id, m.id.in_(chunk))):
            put("memory", i, description, f"node-{i}")
    for chunk in _chunks(wanted["fact"]):
        f = WorldFact
        rows = session.execute(
            select(f.id, f.subject, f.predicate, f.object, f.tier, f.status).where(
                f.user_id == user_id, f.id.in_(chunk)
            )
        )
        for i, subject, predicate, obj, tier, status in rows:
            put("fact", i, f"{subject}: {predicate}={obj} [{tier}, {status}]", f"fact-{i}")
    for chunk in _chunks(wanted["selflog"]):
        e = SelfLogEntry
        for i, content in session.execute(select(e.id, e.content).where(e.user_id == user_id, e.id.in_(chunk))):
            put("selflog", i, content, f"selflog-{i}")
    for chunk in _chunks(wanted["chapter"]):
        c = StoryChapter
        for i, period, title in session.execute(
            select(c.id, c.period, c.title).where(c.user_id == user_id, c.id.in_(chunk))
        ):
            put("chapter", i, f"{period}: {title}", f"chapter-{i}")
    for chunk in _chunks(wanted["arc"]):
        a = RelationshipArcRow
        for i, period, stage, trajectory in session.execute(
            select(a.id, a.period, a.stage, a.trajectory).where(a.user_id == user_id, a.id.in_(chunk))
        ):
            put("arc", i, f"{period}: {stage}, {trajectory}", f"arc-{period}")
    return out


def audit_count(session: Session, user_id: str) -> int:
    """How many audit rows (forgets, retirements, corrections, exports) the user has."""
    return session.scalar(select(func.count()).where(MemoryAudit.user_id == user_id)) or 0


@dataclass(frozen=True)
class KindDay:
    """Model calls of one kind on one UTC day (one user's or the fleet's)."""

    day: str
    kind: str
    calls: int
    failed: int


def calls_per_day(session: Session, user_id: str, since: datetime | None = None) -> list[KindDay]:
    """The user's model calls per UTC day and kind, newest day first;
    ``failed`` counts outcomes other than ok or repaired."""
    day = day_of(ModelCall.created_at, session.get_bind().dialect.name).label("day")
    ok = func.sum(case((ModelCall.outcome.in_(("ok", "repaired")), 1), else_=0))
    query = (
        select(day, ModelCall.kind, func.count(), ok)
        .where(ModelCall.user_id == user_id)
        .group_by(day, ModelCall.kind)
        .order_by(day.desc(), ModelCall.kind)
    )
    if since is not None:
        query = query.where(ModelCall.created_at >= since)
    return [KindDay(d, kind, n, n - int(good or 0)) for d, kind, n, good in session.execute(query)]


# --- the fleet ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Activity:
    user_id: str
    messages: int
    last_seen_at: datetime | None


def users_by_activity(session: Session, since: datetime, limit: int) -> list[Activity]:
    """The ``limit`` users with the most messages since ``since``, busiest first."""
    n = func.count(InboundMessage.id).label("n")
    rows = session.execute(
        select(User.id, n, User.last_seen_at)
        .join(InboundMessage, InboundMessage.user_id == User.id)
        .where(InboundMessage.sent_at >= since)
        .group_by(User.id, User.last_seen_at)
        .order_by(n.desc(), User.id)
        .limit(limit)
    )
    return [Activity(uid, count, seen) for uid, count, seen in rows]


def user_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User)) or 0


def reflections_per_day(session: Session, since: datetime) -> dict[str, int]:
    """Reflections (runs, not thoughts) per UTC day since ``since``: the distinct runs of ``reflect:`` keys."""
    day = day_of(MemoryNode.created_at, session.get_bind().dialect.name)
    rows = session.execute(
        select(day, MemoryNode.user_id, MemoryNode.dedupe_key).where(
            MemoryNode.node_type == "thought",
            MemoryNode.created_at >= since,
            MemoryNode.dedupe_key.like(f"{REFLECT_KEY}%"),
        )
    )
    runs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for d, uid, key in rows:
        runs[d].add((uid, (key or "").split(":")[1] if ":" in (key or "") else ""))
    return {d: len(r) for d, r in sorted(runs.items(), reverse=True)}


def notification_counts(session: Session, since: datetime) -> list[tuple[str, str, int]]:
    """(kind, status, count) of the candidates created since ``since``."""
    c = NotificationCandidate
    rows = session.execute(
        select(c.kind, c.status, func.count()).where(c.created_at >= since).group_by(c.kind, c.status).order_by(c.kind)
    )
    return [(kind, status, n) for kind, status, n in rows]


def boundary_counts(session: Session, since: datetime) -> list[tuple[str, str, int]]:
    """(category, direction, count) of the boundary fires since ``since``, most first."""
    b = BoundaryEvent
    n = func.count().label("n")
    rows = session.execute(
        select(b.category, b.direction, n)
        .where(b.at >= since)
        .group_by(b.category, b.direction)
        .order_by(n.desc(), b.category)
    )
    return [(category, direction, count) for category, direction, count in rows]


@dataclass(frozen=True)
class JobDay:
    day: str
    job: str
    calls: int
    usd: float
    unpriced_calls: int


def spend_per_day_job(session: Session, prices: PriceList, since: datetime) -> list[JobDay]:
    """Spend per UTC day and job (``ella.usage.job_of`` the kinds) since ``since``, newest day first, priced by
    ``prices`` with the batch discount; calls of an unpriced model are counted apart."""
    day = day_of(ModelCall.created_at, session.get_bind().dialect.name).label("day")
    query = (
        select(
            day,
            ModelCall.kind,
            ModelCall.model,
            ModelCall.batch,
            *token_totals(),
        )
        .where(ModelCall.created_at >= since)
        .group_by(day, ModelCall.kind, ModelCall.model, ModelCall.batch)
    )
    calls: Counter[tuple[str, str]] = Counter()
    unpriced: Counter[tuple[str, str]] = Counter()
    usd: dict[tuple[str, str], float] = defaultdict(float)
    for d, kind, model, batch, n, tin, tout, tcw, tcr in session.execute(query):
        key = (d, job_of(kind))
        calls[key] += n
        cost = prices.usd(model, Tokens(tin or 0, tout or 0, tcw or 0, tcr or 0), batch=bool(batch))
        if cost is None:
            unpriced[key] += n
        else:
            usd[key] += cost
    ordered = sorted(calls, key=lambda k: (k[0], k[1]), reverse=True)
    return [JobDay(d, job, calls[(d, job)], round(usd[(d, job)], 6), unpriced[(d, job)]) for d, job in ordered]


def dead_letters(session: Session, limit: int) -> list[DeadLetter]:
    d = DeadLetter
    return list(session.scalars(select(d).order_by(d.created_at.desc(), d.id.desc()).limit(limit)))


def dead_letter_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(DeadLetter)) or 0


@dataclass(frozen=True)
class ReviewView:
    """An open contest and its facts, in the review's order; a fact that is gone (or, defensively, is not the
    review's user's) is ``None`` beside its id."""

    review: FactReview
    facts: list[tuple[int, WorldFact | None]]


def review_queue(session: Session, limit: int, user_id: str | None = None) -> list[ReviewView]:
    """The ``limit`` oldest open contests (``resolved_at IS NULL``: the model could not decide, a person must),
    the fleet's or one user's, oldest first, each with its contested facts. Two queries: the facts are read in
    one, each review's ids under its own user's id (``user_id = u AND id IN (...)`` per user)."""
    query = select(FactReview).where(FactReview.resolved_at.is_(None))
    if user_id is not None:
        query = query.where(FactReview.user_id == user_id)
    reviews = list(session.scalars(query.order_by(FactReview.created_at, FactReview.id).limit(limit)))
    wanted: dict[str, set[int]] = defaultdict(set)
    for review in reviews:
        wanted[review.user_id].update(json_ids(review.fact_ids))
    clauses = [and_(WorldFact.user_id == uid, WorldFact.id.in_(sorted(ids))) for uid, ids in wanted.items() if ids]
    facts: dict[tuple[str, int], WorldFact] = {}
    if clauses:
        for fact in session.scalars(select(WorldFact).where(or_(*clauses))):
            facts[(fact.user_id, fact.id)] = fact
    return [ReviewView(r, [(i, facts.get((r.user_id, i))) for i in json_ids(r.fact_ids)]) for r in reviews]
