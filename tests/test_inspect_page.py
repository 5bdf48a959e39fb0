"""``ella inspect``: the operator's page, served for real (uvicorn on a free port) and read by a real browser.

Why a browser and not only HTML assertions: the page's promise is that an operator can *follow* things (a
thought to the evidence it cites, a fact to the one it replaced), which is anchors resolving and the target
scrolled into view; only a browser shows that. The user is built by the real pipeline, in process with the
offline engine: ingest (turn, reply, usage), perceive (nodes, counter drain), fact extraction (a claim and the
newer claim that supersedes it) and a reflection once the counter ran out. Auth is checked on every path with
plain HTTP, since a page that forgot it on one path (the stylesheet, a 404) would leak that it exists.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2 as httpx
import pytest
from sqlalchemy import select

from adapters.db import session_scope
from adapters.settings import get_settings
from models import MemoryNode, User, WorldFact
from models.boundary import BoundaryEvent
from tests.test_memory_perceive import perceive_now
from tests.test_memory_reflection import reflect_now

CHROMIUM = Path("/usr/bin/chromium")
AUTH = ("ops", "s3cret-pass")
T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
MESSAGES = [
    "I live in Leeds",
    "I have a job interview at the museum on Thursday and I'm nervous",
    "My sister Maya is helping me practise for the interview",
    "My grandma died last month and I still miss her",
    "I live in York now",
    "The interview went great and they offered me the job",
]


def build_user(user: str, messages: list[str] = MESSAGES, trigger_max: int = 12) -> None:
    """A user through the real pipeline, one message at a time, as a worker would run it (in process)."""
    from tasks.ingest import ingest_message
    from tasks.ledger import extract_facts

    for i, text in enumerate(messages):
        at = T0 + timedelta(minutes=5 * i)
        kwargs = {"message_id": f"{user}-m{i}", "user_id": user, "text": text, "sent_at": at.isoformat()}
        ingest_message.apply(kwargs=kwargs).get()
        if i == 0:  # a low trigger, so a handful of messages makes the counter run out
            with session_scope() as s:
                u = s.get(User, user)
                u.importance_trigger_max = u.importance_trigger_curr = trigger_max
        perceive_now(user_id=user, description=text, source_message_id=kwargs["message_id"], created_at=at.isoformat())
        extract_facts.apply(kwargs=kwargs).get()
    reflect_now(user)


def reflection_thoughts(user: str) -> list[MemoryNode]:
    with session_scope() as s:
        rows = s.scalars(
            select(MemoryNode).where(MemoryNode.user_id == user, MemoryNode.dedupe_key.like("reflect:%"))
        ).all()
        s.expunge_all()
        return list(rows)


def superseding_fact(user: str) -> WorldFact:
    with session_scope() as s:
        fact = s.scalars(select(WorldFact).where(WorldFact.user_id == user, WorldFact.supersedes.is_not(None))).first()
        assert fact is not None, "the pipeline wrote no supersession"
        s.expunge(fact)
        return fact


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(migrated_db: str) -> Iterator[str]:
    """The app under uvicorn in a thread on a free loopback port; its base URL."""
    import uvicorn

    from operator_page.page import app

    config = uvicorn.Config(app([":".join(AUTH)]), host="127.0.0.1", port=free_port(), log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{config.port}"
    srv.should_exit = True
    thread.join(10)


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


# --- auth on every path, plain HTTP ---------------------------------------------------------------------------

PATHS = ["/", "/users/nobody", "/static/inspect.css", "/no/such/path", "/users/a%2Fb"]


def test_every_path_refuses_a_request_without_valid_credentials(server):
    bad = [
        {},
        basic(AUTH[0], "wrong"),
        basic("wrong", AUTH[1]),
        {"Authorization": "Basic not-base64!!"},
        {"Authorization": "Bearer " + base64.b64encode(":".join(AUTH).encode()).decode()},
        basic(AUTH[0], AUTH[1] + "x"),
    ]
    for path in PATHS:
        for headers in bad:
            for method in ("GET", "HEAD", "POST"):
                response = httpx.request(method, server + path, headers=headers)
                assert response.status_code == 401, (path, headers, method)
                assert response.headers["www-authenticate"].startswith("Basic ")
                assert "fleet" not in response.text.lower() and "user" not in response.text.lower()


def test_valid_credentials_reach_the_pages_and_nothing_writes(server):
    ok = basic(*AUTH)
    assert httpx.get(server + "/", headers=ok).status_code == 200
    assert httpx.get(server + "/static/inspect.css", headers=ok).headers["content-type"].startswith("text/css")
    assert httpx.get(server + "/users/nobody", headers=ok).status_code == 404
    assert httpx.get(server + "/no/such/path", headers=ok).status_code == 404
    assert httpx.post(server + "/", headers=ok).status_code == 405  # read only: no method but GET


def test_the_app_and_the_command_refuse_to_start_without_credentials(monkeypatch):
    from typer.testing import CliRunner

    from cli.main import cli
    from operator_page.page import app

    for given in ([], [""], ["no-colon"]):
        with pytest.raises(ValueError, match="ELLA_INSPECT_BASIC_AUTH"):
            app(given)
    monkeypatch.delenv("ELLA_INSPECT_BASIC_AUTH", raising=False)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["inspect", "--port", str(free_port())])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2


def test_the_command_binds_loopback_unless_told_otherwise(monkeypatch):
    import uvicorn

    from cli.main import cli

    seen = {}
    monkeypatch.setenv("ELLA_INSPECT_BASIC_AUTH", ":".join(AUTH))
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    get_settings.cache_clear()
    try:
        from typer.testing import CliRunner

        assert CliRunner().invoke(cli, ["inspect"]).exit_code == 0
    finally:
        get_settings.cache_clear()
    assert seen["host"] == "127.0.0.1"


# --- what the pages show ---------------------------------------------------------------------------------------


def test_a_users_page_shows_only_that_users_rows_and_escapes_what_they_wrote(migrated_db):
    from operator_page.page import render_user_page

    mine, theirs = f"me-{uuid.uuid4().hex[:6]}", f"them-{uuid.uuid4().hex[:6]}"
    build_user(mine, ["<script>alert('x')</script> I live in Leeds"], trigger_max=150)
    build_user(theirs, ["My dog Zorblax and I live in Quetzaltown"], trigger_max=150)
    html = render_user_page(mine)
    assert "&lt;script&gt;alert(" in html and "<script>" not in html
    for trace in (theirs, "Zorblax", "Quetzaltown"):
        assert trace not in html


def test_boundary_text_is_shown_only_when_text_logging_is_on(migrated_db, monkeypatch):
    from operator_page.page import render_user_page

    user = f"b-{uuid.uuid4().hex[:6]}"
    with session_scope() as s:
        s.add(User(id=user))
        s.flush()
        fire = {"direction": "inbound", "category": "self_harm", "severity": "high", "route": "canned"}
        s.add(BoundaryEvent(user_id=user, detector_version="v1", rule="rule-42", text="the words they typed", **fire))
    off = render_user_page(user)
    assert "rule-42" in off and "self_harm" in off and "canned" in off and "the words they typed" not in off
    monkeypatch.setenv("ELLA_BOUNDARY_LOG_TEXT", "true")
    get_settings.cache_clear()
    assert "the words they typed" in render_user_page(user)


def test_the_counter_replayed_over_a_window_matches_the_whole_replay_and_ends_at_the_stored_value(migrated_db):
    """The chart reads only its last drains and starts from a SUM; a wrong start (a reflection straddling the
    window's edge, a run counted twice) would shift every point. Checked against the full replay for each window,
    and the full replay against the counter the pipeline stored."""
    from models.inspect import counter_history

    user = f"c-{uuid.uuid4().hex[:6]}"
    build_user(user, MESSAGES, trigger_max=12)  # reflects once at the end
    for i, text in enumerate(["My grandma's funeral is on Friday and I'm dreading it", "I adopted a kitten today"]):
        perceive_now(user_id=user, description=text, source_message_id=f"{user}-after-{i}")  # drains after the reset
    from models import Conversation
    from tasks.conversations import close_conversation

    with session_scope() as s:  # the conversation closes: its chat node is written without draining the counter
        conversation = s.scalars(select(Conversation).where(Conversation.user_id == user)).one()
        conversation.closed_at = T0 + timedelta(hours=2)
        conversation_id = conversation.id
    assert close_conversation.apply(kwargs={"conversation_id": conversation_id}).get() >= 1
    with session_scope() as s:
        assert s.scalar(select(MemoryNode.id).where(MemoryNode.dedupe_key == f"chat:{conversation_id}"))
        stored = s.get(User, user).importance_trigger_curr
        whole = counter_history(s, user, 12, 10_000)
        assert whole.reflections >= 1 and any(p.reflection for p in whole.points)
        assert whole.points[-1].value == stored
        for last in range(1, whole.drains + 1):
            window = counter_history(s, user, 12, last)
            drains = [p for p in window.points if not p.reflection]
            assert len(drains) == last
            assert window.points == whole.points[-len(window.points) :], last


def cells(html: str, row_id: str) -> list[str]:
    """The text of each cell of the table row with this id."""
    import re

    row = re.search(rf'<tr id="{re.escape(row_id)}">(.*?)</tr>', html, re.S)
    assert row, f"no row {row_id}"
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)]


def test_the_fleet_page_counts_reflections_notifications_fires_cost_and_dead_letters(migrated_db):
    from models.dead_letter import DeadLetter
    from models.notifications import NotificationCandidate
    from operator_page.page import render_fleet_page

    user = f"f-{uuid.uuid4().hex[:6]}"
    build_user(user)
    now = datetime.now(UTC)
    with session_scope() as s:
        for i, (status, reason) in enumerate([("sent", None), ("skipped", "quiet hours"), ("expired", "expired"),
                                              ("skipped", "cap")]):  # fmt: skip
            s.add(NotificationCandidate(user_id=user, kind="followup", body="How did it go?", based_on="{}",
                                        fresh_until=now, not_before=now, status=status, reason=reason,
                                        dedupe_key=f"{user}-{i}"))  # fmt: skip
        for category in ("romance", "romance", "medical"):
            s.add(BoundaryEvent(user_id=user, direction="inbound", category=category, severity="high",
                                route="canned", detector_version="v1", rule="r"))  # fmt: skip
        s.add(DeadLetter(task_name="ella.perceive", reason="bad payload", payload="{}", user_id=user))
    html = render_fleet_page()
    today = now.strftime("%Y-%m-%d")
    assert cells(html, f"user-{user}")[:2] == [user, str(len(MESSAGES))]
    assert cells(html, f"reflections-{today}") == [today, str(len(reflection_thoughts_runs(user)))]
    assert cells(html, "notifications-followup") == ["followup", "0", "1", "2", "1"]
    assert '<td>romance</td><td>inbound</td><td class="num">2</td>' in html
    assert '<td>medical</td><td>inbound</td><td class="num">1</td>' in html
    assert f'href="/users/{user}"' in html and "bad payload" in html
    cost = html.split('id="cost"', 1)[1].split("</table>", 1)[0]
    assert f'<td>{today}</td><td>live reply</td><td class="num">{len(MESSAGES)}</td>' in cost


def reflection_thoughts_runs(user: str) -> set[str]:
    return {t.dedupe_key.split(":")[1] for t in reflection_thoughts(user)}


def test_the_static_page_needs_no_server(migrated_db):
    from operator_page.page import render_user_page

    user = f"s-{uuid.uuid4().hex[:6]}"
    build_user(user, MESSAGES[:2], trigger_max=150)
    html = render_user_page(user, static=True)
    assert 'id="user-page"' in html and "<style>" in html
    assert 'href="/' not in html and 'src="/' not in html  # only anchors in the page itself


# --- in a real browser -------------------------------------------------------------------------------------------


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is missing: `make browser` installs it")
def test_in_a_browser_the_reflection_leads_to_its_evidence_and_a_fact_to_the_one_it_replaced(server, tmp_path):
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright

    user = f"insp-{uuid.uuid4().hex[:6]}"
    build_user(user)
    thoughts = reflection_thoughts(user)
    assert thoughts, "the pipeline did not reflect"
    thought = next(t for t in thoughts if json.loads(t.evidence))
    evidence = json.loads(thought.evidence)[0]
    newer = superseding_fact(user)
    from ella.seen import encode
    from models.outbox import OutboxRecord
    from models.review import queue_review

    with session_scope() as s:  # what the last reply saw (the cited node), and one contest waiting for a person
        reply = s.scalars(
            select(OutboxRecord).where(OutboxRecord.user_id == user, OutboxRecord.kind == "reply")
            .order_by(OutboxRecord.id.desc())
        ).first()  # fmt: skip
        assert reply is not None
        reply.seen = encode({"memories": [evidence]})
        reply_ref, seen_text = f"outbox-{reply.id}", s.get(MemoryNode, evidence).description
        review = queue_review(s, user, newer.subject, newer.predicate, newer.tier, [newer.id], "in the browser")

    shots = tmp_path
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            anonymous = browser.new_page()
            try:  # headless Chromium, with no credentials to offer, aborts the 401 challenge instead of showing it
                refused = anonymous.goto(f"{server}/users/{user}")
                assert refused is not None and refused.status == 401
            except PlaywrightError as exc:
                assert "ERR_INVALID_AUTH_CREDENTIALS" in str(exc)
            assert anonymous.request.get(f"{server}/users/{user}").status == 401

            context = browser.new_context(
                http_credentials={"username": AUTH[0], "password": AUTH[1]}, viewport={"width": 1280, "height": 900}
            )
            page = context.new_page()
            response = page.goto(f"{server}/users/{user}")
            assert response is not None and response.status == 200

            row = page.locator(f"#node-{thought.id}")
            expect(row).to_contain_text(thought.description[:40])
            expect(row.locator("td").nth(3)).to_have_text(str(thought.depth))
            expect(page.locator("#counter-chart circle.reflection")).not_to_have_count(0)
            page.screenshot(path=str(shots / "inspect-user.png"), full_page=True)

            row.locator(f'a[href="#node-{evidence}"]').click()
            target = page.locator(f"#node-{evidence}")
            expect(target).to_be_in_viewport()
            assert page.url.endswith(f"#node-{evidence}")

            fact = page.locator(f"#fact-{newer.id}")
            fact.scroll_into_view_if_needed()
            expect(fact).to_contain_text("active")
            fact.locator("a.supersedes").click()
            old = page.locator(f"#fact-{newer.supersedes}")
            expect(old).to_be_in_viewport()
            expect(old).to_contain_text("superseded")
            expect(old.locator("xpath=..")).to_contain_text(newer.object)  # the same chain's list

            saw = page.locator(f"#saw-{reply_ref}")  # what Ella saw: folded until the operator opens it
            saw.scroll_into_view_if_needed()
            expect(saw.locator("dd").first).not_to_be_visible()
            saw.locator("summary").click()
            expect(saw.locator("dd").first).to_be_visible()
            expect(saw).to_contain_text(seen_text)
            saw.locator(f'a[href="#node-{evidence}"]').click()
            expect(page.locator(f"#node-{evidence}")).to_be_in_viewport()

            fleet = page.goto(f"{server}/")
            assert fleet is not None and fleet.status == 200
            expect(page.locator(f"#user-{user} a")).to_have_text(user)
            expect(page.locator("#review-count")).to_have_text("1")
            expect(page.locator("#summary-review-count")).to_have_text("1")
            expect(page.locator(f"#review-{review}")).to_contain_text(newer.object)
            page.screenshot(path=str(shots / "inspect-fleet.png"), full_page=True)
            page.locator(f"#user-{user} a").click()
            expect(page.locator("#user-page h1")).to_contain_text(user)
        finally:
            browser.close()

    for name in ("inspect-user.png", "inspect-fleet.png"):
        assert (shots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("ELLA_INSPECT_SCREENSHOTS"):  # to refresh docs/: ELLA_INSPECT_SCREENSHOTS=docs
            shutil.copy(shots / name, Path(os.environ["ELLA_INSPECT_SCREENSHOTS"]) / name)


@pytest.mark.domain
def test_every_template_file_is_package_data_so_an_installed_ella_finds_it():
    """The page reads its templates and stylesheet from the package directory; a file no package-data pattern
    covers works from a checkout and is missing from the wheel (and the Docker image's install)."""
    import fnmatch
    import tomllib

    from operator_page.page import TEMPLATES

    root = Path(__file__).resolve().parents[1]
    package_data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = package_data["operator_page"]
    files = [p.relative_to(root / "operator_page").as_posix() for p in TEMPLATES.rglob("*") if p.is_file()]
    assert {"templates/user.html", "templates/fleet.html", "templates/inspect.css"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), f"{name} is not package data"


def test_the_users_page_says_what_made_each_node_fact_and_arc(migrated_db):
    """Provenance on the operator's page (issue 21): a reflection's thought was made by the offline engine's
    answer to the insights prompt of this version; a fact by the extraction prompt; the anchors by a rule."""
    from ella.llm.prompts import prompt_version
    from operator_page.page import render_user_page

    user = f"pv-{uuid.uuid4().hex[:6]}"
    build_user(user)
    thought = reflection_thoughts(user)[0]
    html = render_user_page(user)
    import re

    row = re.search(rf'<tr id="node-{thought.id}"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None
    made = re.findall(r'<td class="made-by">(.*?)</td>', row.group(1))
    assert made == [f"offline insights@{prompt_version('insights')}"]
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    assert f"made by offline fact_extraction@{prompt_version('fact_extraction')}" in text
    assert "made by rules anchor@rules" in text


# --- the review queue, what each reply saw, the audit trail ---------------------------------------------------


def add_fact(session, user: str, subject: str, predicate: str, obj: str, status: str = "contested") -> int:
    """A fact row of its own chain, as a contest leaves two (models/review.py queues their ids)."""
    fact = WorldFact(user_id=user, chain=uuid.uuid4().hex[:16], tier="observed", status=status, subject=subject,
                     predicate=predicate, object=obj, written_by="model", valid_from=T0)  # fmt: skip
    session.add(fact)
    session.flush()
    return fact.id


def test_the_fleet_page_counts_the_open_reviews_and_lists_them_but_not_the_resolved_one(migrated_db):
    """The queue is what a person must act on: the open count in the heading and the summary, the oldest open
    contests with their facts' objects (each read under its own user: another user's fact id shows as gone),
    how long each has waited, and the command that settles one."""
    from models.review import FactReview, queue_review
    from operator_page.page import REVIEW_RESOLVE, render_fleet_page

    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    one, two = f"ra-{uuid.uuid4().hex[:6]}", f"rb-{uuid.uuid4().hex[:6]}"
    with session_scope() as s:
        s.add_all([User(id=one), User(id=two)])
        s.flush()
        cafe = [add_fact(s, one, "ellahome.cafe", "opens_at", o) for o in ("7am", "8am")]
        hers = add_fact(s, two, "ellahome.cat", "name", "Pebble")
        settled = add_fact(s, two, "ellahome.dog", "name", "Rex-the-settled")
        first = queue_review(s, one, "ellahome.cafe", "opens_at", "observed", cafe, "two sightings disagree")
        second = queue_review(s, two, "ellahome.cat", "name", "observed", [hers, cafe[0]], "undecided")
        resolved = queue_review(s, two, "ellahome.dog", "name", "observed", [settled], "settled-already")
        for review_id, waited in ((first, timedelta(days=3, hours=2)), (second, timedelta(hours=5, minutes=7)),
                                  (resolved, timedelta(days=9))):  # fmt: skip
            s.get(FactReview, review_id).created_at = now - waited
        s.get(FactReview, resolved).resolved_at = now - timedelta(days=1)
    html = render_fleet_page(now=now)
    assert '<span id="review-count">2</span>' in html
    assert '<strong id="summary-review-count">2</strong>' in html
    assert html.index(f'id="review-{first}"') < html.index(f'id="review-{second}"')  # oldest first
    row = cells(html, f"review-{first}")
    assert row[:5] == [str(first), one, "ellahome.cafe", "opens_at", "observed"]
    assert f"fact {cafe[0]}: 7am" in row[5] and f"fact {cafe[1]}: 8am" in row[5]
    assert row[6:] == ["two sightings disagree", "3d 2h"]
    row = cells(html, f"review-{second}")
    assert row[1] == two and f"fact {hers}: Pebble" in row[5] and row[7] == "5h 7m"
    assert f"fact {cafe[0]} (gone)" in row[5]  # user one's fact, named by user two's review: not shown as theirs
    assert f'href="/users/{one}"' in html and f'href="/users/{two}#fact-{hers}"' in html
    assert f'id="review-{resolved}"' not in html and "Rex-the-settled" not in html and "settled-already" not in html
    assert REVIEW_RESOLVE in html


def test_a_users_page_shows_only_that_users_open_reviews(migrated_db):
    from models.review import FactReview, queue_review
    from operator_page.page import render_user_page

    mine, theirs = f"rm-{uuid.uuid4().hex[:6]}", f"rt-{uuid.uuid4().hex[:6]}"
    with session_scope() as s:
        s.add_all([User(id=mine), User(id=theirs)])
        s.flush()
        ids = [add_fact(s, mine, "ellahome.lamp", "colour", o) for o in ("amber", "teal")]
        other = add_fact(s, theirs, "ellahome.boat", "name", "Quetzalboat")
        open_one = queue_review(s, mine, "ellahome.lamp", "colour", "observed", ids, "undecided")
        done = queue_review(s, mine, "ellahome.lamp", "colour", "observed", ids[:1], "done-before")
        s.get(FactReview, done).resolved_at = datetime.now(UTC)
        queue_review(s, theirs, "ellahome.boat", "name", "observed", [other], "theirs")
    html = render_user_page(mine)
    assert '<span id="review-count">1</span>' in html
    row = cells(html, f"review-{open_one}")
    assert row[1:4] == ["ellahome.lamp", "colour", "observed"] and "amber" in row[4] and "teal" in row[4]
    assert "done-before" not in html and "Quetzalboat" not in html and "ellahome.boat" not in html


def saw_block(html: str, ref: str) -> str:
    import re

    block = re.search(rf'<details class="seen" id="saw-{re.escape(ref)}">(.*?)</details>', html, re.S)
    assert block, f"no 'what Ella saw' for {ref}"
    return block.group(1)


def test_a_reply_shows_what_ella_saw_and_an_id_not_the_users_as_gone(migrated_db):
    """The reply's map resolved under the page's user: the memory's description (linked to its row), the fact
    line, the self-log entry; another user's node id placed in the map is "(gone)" and none of their words show.
    A reply stored without a map shows nothing."""
    from html import escape

    from ella.seen import encode
    from models.outbox import OutboxRecord
    from models.selflog import SelfLogEntry
    from operator_page.page import render_user_page

    mine, theirs = f"w-{uuid.uuid4().hex[:6]}", f"x-{uuid.uuid4().hex[:6]}"
    build_user(mine, ["I live in Leeds", "My sister Maya is helping me practise"], trigger_max=150)
    build_user(theirs, ["My dog Zorblax and I live in Quetzaltown"], trigger_max=150)
    with session_scope() as s:
        node = s.scalars(select(MemoryNode).where(MemoryNode.user_id == mine).order_by(MemoryNode.id)).first()
        their_node = s.scalars(select(MemoryNode).where(MemoryNode.user_id == theirs)).first()
        fact = s.scalars(select(WorldFact).where(WorldFact.user_id == mine)).first()
        assert node is not None and their_node is not None and fact is not None
        entry = SelfLogEntry(user_id=mine, content="I sketched <herons> by the canal", about="[]", sources="[]")
        s.add(entry)
        s.flush()
        replies = s.scalars(
            select(OutboxRecord).where(OutboxRecord.user_id == mine, OutboxRecord.kind == "reply")
            .order_by(OutboxRecord.id)
        ).all()  # fmt: skip
        assert len(replies) == 2
        replies[1].seen = encode({"memories": [node.id, their_node.id], "facts": [fact.id], "selflog": [entry.id]})
        replies[0].seen = None
        ref, bare = f"outbox-{replies[1].id}", f"outbox-{replies[0].id}"
        description, line = (
            node.description,
            f"{fact.subject}: {fact.predicate}={fact.object} [{fact.tier}, {fact.status}]",
        )
        their_id = their_node.id
    html = render_user_page(mine)
    block = saw_block(html, ref)
    assert "<dt>memories</dt>" in block and "<dt>facts</dt>" in block and "<dt>selflog</dt>" in block
    assert f'<a class="id" href="#node-{node.id}">#{node.id}</a> {escape(description)}' in block
    assert escape(line) in block
    assert "I sketched &lt;herons&gt; by the canal" in block and "<herons>" not in html
    assert f'<span class="id">#{their_id}</span> <span class="gone">(gone)</span>' in block
    for trace in (theirs, "Zorblax", "Quetzaltown"):
        assert trace not in html
    row = html.split(f'<tr id="{bare}"', 1)[1].split("</tr>", 1)[0]
    assert "<details" not in row


def test_the_users_page_shows_their_audit_trail_and_says_so_when_empty(migrated_db):
    from models.audit import MemoryAudit
    from operator_page.page import render_user_page

    mine, theirs, quiet = (f"{p}-{uuid.uuid4().hex[:6]}" for p in ("au", "av", "aq"))
    with session_scope() as s:
        s.add_all([User(id=mine), User(id=theirs), User(id=quiet)])
        s.flush()
        fact = add_fact(s, mine, "user", "lives_in", "Leeds", status="retired")
        rows = [
            MemoryAudit(user_id=mine, at=T0, actor="user", action="forget_memory", target="memory:41",
                        reason="please forget the funeral"),
            MemoryAudit(user_id=mine, at=T0 + timedelta(hours=1), actor="operator:sam", action="retire_fact",
                        target=f"fact:{fact}", reason="wrong city"),
            MemoryAudit(user_id=theirs, at=T0, actor="user", action="export", target="user", reason="their-reason"),
        ]  # fmt: skip
        s.add_all(rows)
        s.flush()
        forget, retire = rows[0].id, rows[1].id
    assert "Nothing forgotten, retired, corrected or exported." in render_user_page(quiet)
    html = render_user_page(mine)
    assert cells(html, f"audit-{forget}") == ["2026-11-20 09:00:00", "user", "forget_memory", "memory:41",
                                              "please forget the funeral"]  # fmt: skip
    assert cells(html, f"audit-{retire}") == ["2026-11-20 10:00:00", "operator:sam", "retire_fact", f"fact:{fact}",
                                              "wrong city"]  # fmt: skip
    assert f'<a class="id" href="#fact-{fact}">fact:{fact}</a>' in html  # the retired fact's row is on the page
    assert html.index(f'id="audit-{retire}"') < html.index(f'id="audit-{forget}"')  # newest first
    assert "their-reason" not in html and "Nothing forgotten" not in html
