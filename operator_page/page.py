"""``ella inspect``: the operator's read-only page. One user's inner life on one page, and the fleet at a glance.

Why a page and not one more CLI table: the questions an operator gets at 3 a.m. (why did Ella say that, what
does she believe about this user and since when, why did she reach out or not, what did this user cost) cross
six tables; here they sit on one timeline where every id is an anchor (``#node-12``, ``#fact-7``...), so a
thought's evidence or a fact's supersession is one click away.

The pieces:
- ``render_user_page(user_id, static=...)`` and ``render_fleet_page()``: the HTML from the configured database
  (``make demo`` writes the static one to a file: no link in it needs the server, the stylesheet is inline).
- ``app()``: a Starlette app with two pages, the stylesheet, and basic auth in front of every path (a pure ASGI
  middleware, so a 404 or a static file is refused the same way); credentials from ``ELLA_INSPECT_BASIC_AUTH``,
  compared in constant time (``workers.flower_auth.authorized``).
- ``serve(host, port)``: uvicorn, on 127.0.0.1 unless told otherwise; it refuses to start without credentials.

What an operator acts on or asks about, beside the timeline: the contests waiting for a person (``fact_reviews``
with ``resolved_at`` NULL; the fleet page's count and oldest ``REVIEWS_SHOWN``, a user's own on their page, and
the ``ella review contested`` command that settles one: the page itself never writes); "what Ella saw" beside
each reply (``outbox_records.seen``, ``ella.seen``: every id resolved under the page's user, so an id that is
forgotten or not theirs shows as "(gone)", never as another user's words); and the audit trail of forgets and
corrections (``models.audit``).

Read-only by construction: the pages use ``autocommit_scope`` sessions and the loaders of ``models/inspect.py``
(and a few existing queries), none of which writes; every user query is scoped by the user's id. Every list has a
cap (the ``*_SHOWN`` constants) and says when it cut, so a user with 10,000 memories renders in a few hundred
milliseconds (``bench/inspect_page.py``). Jinja2 autoescapes everything; the one piece of markup built here, the
counter's SVG chart, is numbers and escaped titles only.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from adapters.settings import get_settings
from workers.flower_auth import authorized

TEMPLATES = Path(__file__).with_name("templates")
STYLESHEET = "inspect.css"
LOOPBACK = "127.0.0.1"
REALM = 'Basic realm="ella inspect", charset="UTF-8"'
REFUSAL = "refusing to start `ella inspect` without auth: set ELLA_INSPECT_BASIC_AUTH=user:password"

# What one page shows at most (newest first); the page says "showing N of M" when it cut.
CONVERSATIONS_SHOWN = 20
TURNS_SHOWN = 60  # per conversation
NODES_SHOWN = 200
CHAINS_SHOWN = 200
SELFLOG_SHOWN = 100
NOTIFICATIONS_SHOWN = 100
BOUNDARY_SHOWN = 100
CHAPTERS_SHOWN = 20
CHART_POINTS = 400  # the counter's last drains (and the reflections among them)
FLEET_DAYS = 30
FLEET_USERS_SHOWN = 50
DEAD_LETTERS_SHOWN = 20
RUNS_SHOWN = 20
REVIEWS_SHOWN = 50  # the oldest open contests (fleet page; and per user)
AUDIT_SHOWN = 200
# How the operator acts on the review queue (cli/world.py ``review_contested``); the page only reads.
REVIEW_LIST = "ella review contested"
REVIEW_RESOLVE = "ella review contested --resolve REVIEW --winner FACT"


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["made_by"] = made_by
    env.filters["age"] = age
    return env


def made_by(row: Any) -> str:
    """What made a row of Ella's inner life (``ella.provenance``): ``offline offline insights@af74688e67f2``,
    ``rules chat_node@rules``, ``unknown`` for a row stored before provenance was recorded."""
    from ella.provenance import label

    return label(*(getattr(row, key, None) for key in ("engine", "model_id", "prompt_kind", "prompt_version")))


def when(value: datetime | None) -> str:
    """A timestamp as the page shows it: UTC, to the second."""
    if value is None:
        return "—"
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%d %H:%M:%S")


def age(value: datetime | None, now: datetime) -> str:
    """How long ago, coarsely (``3d 4h``, ``2h 5m``, ``12m``, ``<1m``): what an operator needs to see which
    contest has waited longest."""
    if value is None:
        return "—"
    seconds = max(int((now - value).total_seconds()), 0)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m" if minutes else "<1m"


def stylesheet() -> str:
    return (TEMPLATES / STYLESHEET).read_text()


# --- the counter chart ---------------------------------------------------------------------------------------


def counter_chart(points: list[Any], trigger_max: int, width: int = 900, height: int = 180) -> Markup:
    """The importance counter as inline SVG: a step line falling by each node's poignancy, a marker where each
    reflection fired and reset it. Built from numbers; the only text (tooltips) is escaped."""
    if not points:
        return Markup('<p class="empty">No node has drained the counter yet.</p>')
    values = [p.value for p in points] + [0, trigger_max]
    low, high = min(values), max(values)
    span = max(high - low, 1)
    pad = 24
    step = (width - 2 * pad) / max(len(points) - 1, 1)

    def x(i: int) -> float:
        return pad + i * step

    def y(v: int) -> float:
        return pad + (high - v) * (height - 2 * pad) / span

    path = " ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(points))
    parts = [
        f'<svg class="chart" id="counter-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="importance counter over the last {len(points)} nodes">',
        f'<line class="zero" x1="{pad}" x2="{width - pad}" y1="{y(0):.1f}" y2="{y(0):.1f}"/>',
        f'<text x="2" y="{y(0) + 4:.1f}">0</text>',
        f'<text x="2" y="{y(trigger_max) + 4:.1f}">{int(trigger_max)}</text>',
        f'<path class="counter" d="{path}"/>',
    ]
    for i, p in enumerate(points):
        title = escape(f"node {p.node_id} at {when(p.at)}: counter {p.value}")
        if p.reflection:
            parts.append(
                f'<a href="#node-{int(p.node_id)}"><circle class="reflection" cx="{x(i):.1f}" cy="{y(p.value):.1f}" '
                f'r="5"><title>reflection fired: {title}</title></circle></a>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))


# --- one user ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cut:
    """How many rows a section shows of how many there are."""

    shown: int
    total: int

    @property
    def cut(self) -> bool:
        return self.shown < self.total


@dataclass(frozen=True)
class SawItem:
    """One id a reply saw, as the page shows it: its line (None when the page cannot resolve it: forgotten
    since, another user's, an unknown section) and the anchor of its row when that row is on this page."""

    id: int
    text: str | None
    anchor: str | None


@dataclass(frozen=True)
class Saw:
    """One prompt section of what a reply saw."""

    section: str
    rows: list[SawItem]


def what_ella_saw(seen: Any, resolved: dict[tuple[str, int], Any], anchors: set[str]) -> list[Saw]:
    """A reply's ``seen`` (``Turn.seen``) resolved against ``models.inspect.seen_items``: sections in the order
    stored, ids in the order shown to the model; a row's anchor is linked only if that row is on the page."""
    from ella.seen import SECTIONS

    out = []
    for section, ids in seen:
        kind = SECTIONS.get(section)
        items = []
        for i in ids:
            item = resolved.get((kind, i)) if kind is not None else None
            if item is None:
                items.append(SawItem(i, None, None))
            else:
                items.append(SawItem(i, item.text, item.anchor if item.anchor in anchors else None))
        out.append(Saw(section, items))
    return out


def user_context(session: Any, user_id: str, now: datetime | None = None) -> dict[str, Any] | None:
    """Everything the user page shows, loaded in one read-only session; None for an unknown user."""
    from ella.core_profile import profile_items
    from ella.ledger.rules import USER_SUBJECT
    from ella.usage import PriceList
    from models import inspect as q
    from models.audit import audit_trail
    from models.ledger import current
    from models.notifications import grounded_on, user_candidates
    from models.review import open_review_count
    from models.usage import spend_per_user_day
    from models.user import User

    settings = get_settings()
    user = session.get(User, user_id)
    if user is None:
        return None
    counts = q.node_counts(session, user_id)
    nodes = q.memory_nodes(session, user_id, NODES_SHOWN)
    shown_ids = {n.id for n in nodes}
    cited = {n.id: q.cited_ids(n.evidence) for n in nodes if n.node_type == "thought"}
    outside = sorted({i for ids in cited.values() for i in ids} - shown_ids)
    evidence_nodes = q.nodes_by_id(session, user_id, outside)
    history = q.counter_history(session, user_id, user.importance_trigger_max, CHART_POINTS)
    chains, chain_total = q.fact_chains(session, user_id, CHAINS_SHOWN)
    fact_ids = [f.id for chain in chains for f in chain]
    core = profile_items(current(session, user_id, USER_SUBJECT))
    candidates = user_candidates(session, user_id, NOTIFICATIONS_SHOWN)
    grounds = {
        c.id: {kind: grounded_on(c.based_on, kind) for kind in ("facts", "self_log", "thoughts")} for c in candidates
    }
    spend = spend_per_user_day(session, PriceList(settings.prices, settings.batch_price_factor), user_id=user_id)
    chapters = q.chapters(session, user_id, CHAPTERS_SHOWN)
    selflog = q.self_log(session, user_id, SELFLOG_SHOWN)
    arcs = q.arcs(session, user_id)
    views = q.conversations(session, user_id, CONVERSATIONS_SHOWN, TURNS_SHOWN)
    turns = [t for view in views for t in view.turns]
    resolved = q.seen_items(session, user_id, turns)
    anchors = (
        {f"node-{n.id}" for n in [*nodes, *evidence_nodes]}
        | {f"fact-{i}" for i in fact_ids}
        | {f"selflog-{e.id}" for e in selflog}
        | {f"chapter-{c.id}" for c in chapters}
        | {f"arc-{a.period}" for a in arcs}
    )
    audit = audit_trail(session, user_id, AUDIT_SHOWN)
    reviews = q.review_queue(session, REVIEWS_SHOWN, user_id=user_id)
    return {
        "user": user,
        "now": now or datetime.now(UTC),
        "conversations": views,
        "saw": {t.ref: what_ella_saw(t.seen, resolved, anchors) for t in turns if t.seen},
        "conversations_cut": Cut(
            min(CONVERSATIONS_SHOWN, q.conversation_count(session, user_id)), q.conversation_count(session, user_id)
        ),
        "nodes": nodes,
        "nodes_cut": Cut(len(nodes), sum(counts.values())),
        "node_counts": counts,
        "cited": cited,
        "evidence_nodes": evidence_nodes,
        "chart": counter_chart(history.points, user.importance_trigger_max),
        "chart_cut": Cut(min(history.drains, CHART_POINTS), history.drains),
        "reflections": history.reflections,
        "core_profile": core,
        "chains": chains,
        "chains_cut": Cut(len(chains), chain_total),
        "fact_events": q.fact_events(session, user_id, fact_ids),
        "selflog": selflog,
        "candidates": candidates,
        "grounds": grounds,
        "boundary": q.boundary_events(session, user_id, BOUNDARY_SHOWN),
        "boundary_text": settings.boundary_log_text,
        "spend": list(reversed(spend)),
        "calls": q.calls_per_day(session, user_id),
        "chapters": chapters,
        "chapter_moments": {c.id: _json_list(c.key_moments) for c in chapters},
        "arcs": arcs,
        "dead_letters": q.user_dead_letters(session, user_id, DEAD_LETTERS_SHOWN),
        "audit": audit,
        "audit_cut": Cut(len(audit), q.audit_count(session, user_id)),
        "reviews": reviews,
        "review_count": open_review_count(session, user_id),
        "review_list": REVIEW_LIST,
        "review_resolve": REVIEW_RESOLVE,
        "anchors": anchors,
    }


def _json_list(text: str) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def render_user_page(user_id: str, *, static: bool = False) -> str:
    """The full HTML of one user's timeline from the configured database.

    ``static=True`` makes a standalone file (``make demo``'s report): the stylesheet inline and no link that
    needs the server (the fleet link is left out; every other link is an anchor in the page itself).
    """
    from adapters.db import autocommit_scope

    with autocommit_scope() as session:
        context = user_context(session, user_id)
        template = "user.html" if context is not None else "missing.html"
        return _render(template, context or {"user_id": user_id}, static)


# --- the fleet -----------------------------------------------------------------------------------------------


def fleet_context(session: Any, now: datetime) -> dict[str, Any]:
    from ella.usage import PriceList
    from models import inspect as q
    from models.review import open_review_count
    from models.runs import progress, recent_runs

    settings = get_settings()
    since = now - timedelta(days=FLEET_DAYS)
    notifications: dict[str, dict[str, int]] = defaultdict(dict)
    for kind, status, n in q.notification_counts(session, since):
        notifications[kind][status] = n
    runs = recent_runs(session, RUNS_SHOWN)
    return {
        "now": now,
        "days": FLEET_DAYS,
        "user_count": q.user_count(session),
        "active": q.users_by_activity(session, since, FLEET_USERS_SHOWN),
        "reflections": q.reflections_per_day(session, since),
        "notifications": dict(notifications),
        "statuses": ("candidate", "sent", "skipped", "expired"),
        "boundary": q.boundary_counts(session, since),
        "spend": q.spend_per_day_job(session, PriceList(settings.prices, settings.batch_price_factor), since),
        "dead_letters": q.dead_letters(session, DEAD_LETTERS_SHOWN),
        "dead_letter_count": q.dead_letter_count(session),
        "runs": [progress(run, now) for run in runs],
        "review_count": open_review_count(session),
        "reviews": q.review_queue(session, REVIEWS_SHOWN),
        "review_list": REVIEW_LIST,
        "review_resolve": REVIEW_RESOLVE,
    }


def render_fleet_page(*, static: bool = False, now: datetime | None = None) -> str:
    """The full HTML of the fleet page from the configured database (the last ``FLEET_DAYS`` days)."""
    from adapters.db import autocommit_scope

    with autocommit_scope() as session:
        return _render("fleet.html", fleet_context(session, now or datetime.now(UTC)), static)


def _render(template: str, context: dict[str, Any], static: bool) -> str:
    css = Markup(stylesheet()) if static else None  # our own file, not user data
    return environment().get_template(template).render(**context, static=static, inline_css=css)


# --- the app -------------------------------------------------------------------------------------------------


class BasicAuth:
    """Pure ASGI middleware: a request without valid credentials gets 401 before any route is chosen, so every
    path (a page, the stylesheet, a 404) is refused alike. Lifespan events pass through."""

    def __init__(self, app: Any, credentials: list[str]) -> None:
        if not any(":" in c for c in credentials):
            raise ValueError(REFUSAL)
        self.app = app
        self.credentials = [c for c in credentials if ":" in c]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = ""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
        if authorized(header, self.credentials):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"www-authenticate", REALM.encode()),
                    (b"content-type", b"text/plain; charset=utf-8"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b"401: authentication required\n"})


def credentials() -> list[str]:
    secret = get_settings().inspect_basic_auth
    value = secret.get_secret_value() if secret is not None else ""
    return [value] if ":" in value else []


def app(auth: list[str] | None = None) -> Any:
    """The ASGI app: ``/`` the fleet, ``/users/{user_id}`` a timeline, ``/static/inspect.css``; all behind auth.

    Pages render in a worker thread (Starlette runs sync endpoints there), so a slow page never blocks another.
    Raises ``ValueError`` without credentials: the page is never served open.
    """
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route

    def fleet(request: Request) -> HTMLResponse:
        return HTMLResponse(render_fleet_page())

    def user(request: Request) -> HTMLResponse:
        user_id = request.path_params["user_id"]
        html = render_user_page(user_id)
        return HTMLResponse(html, status_code=200 if 'id="user-page"' in html else 404)

    def css(request: Request) -> Response:
        return Response(stylesheet(), media_type="text/css")

    routes = [
        Route("/", fleet),
        Route("/users/{user_id:path}", user),
        Route(f"/static/{STYLESHEET}", css),
    ]
    given = credentials() if auth is None else auth
    if not any(":" in c for c in given):
        raise ValueError(REFUSAL)
    return Starlette(routes=routes, middleware=[Middleware(BasicAuth, credentials=given)])


def serve(host: str = LOOPBACK, port: int = 8765) -> int:
    """Run the page with uvicorn until interrupted; 2 without credentials (nothing is started)."""
    import uvicorn

    given = credentials()
    if not given:
        print(REFUSAL, file=sys.stderr, flush=True)
        return 2
    uvicorn.run(app(given), host=host, port=port, log_level="info", access_log=False)
    return 0
