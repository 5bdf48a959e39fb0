"""The world-fact ledger: supersession with history, trust rules, the brief, contests, isolation."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from typer.testing import CliRunner

from adapters.db import autocommit_scope, session_scope
from ella.ledger.brief import world_brief
from ella.ledger.rules import FactConflict, Status, Tier, TrustViolation, Writer, check_supersede
from models import FactEvent, User, WorldFact
from models.ledger import NewFact, append, as_of, current, events, history, narrative_anchors, retire
from models.review import open_reviews
from models.supersession import resolve_contest, supersede
from models.world_clock import advance_world
from tests.support.supersession_ways import on_both_ways, supersession_way  # noqa: F401  (a fixture)

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def make_user(user_id: str | None = None, timezone: str = "UTC") -> str:
    user_id = user_id or f"u-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user_id, timezone=timezone))
    return user_id


def door(colour: str, tier: str = "canon") -> NewFact:
    return NewFact("ellahome.exterior.door_color", "color", colour, tier)


def brief_of(user: str, now: datetime | None = None) -> str:
    with session_scope() as s:
        return world_brief(advance_world(s, user, now or datetime.now(UTC)))


@on_both_ways
def test_supersession_keeps_history_and_the_world_as_of_a_past_time(migrated_db):
    user = make_user()
    with session_scope() as s:
        red = append(s, user, door("red"), Writer.ANCHOR, T0)
    with session_scope() as s:
        blue = supersede(s, user, red.id, door("blue"), Writer.OPERATOR, T0 + timedelta(days=2), reason="repainted")
    with autocommit_scope() as s:
        now = {f.object for f in current(s, user, "ellahome")}
        then = {f.object for f in as_of(s, user, T0 + timedelta(days=1), "ellahome")}
        before = as_of(s, user, T0 - timedelta(seconds=1))
        past = history(s, user, "ellahome.exterior")
        old = s.get(WorldFact, red.id)
    assert now == {"blue"} and then == {"red"} and before == []
    assert [(f.object, f.status) for f in past] == [("red", "superseded"), ("blue", "active")]
    assert past[1].supersedes == red.id and past[1].chain == old.chain
    assert old.retired_at == T0 + timedelta(days=2) and old.valid_until == T0 + timedelta(days=2)
    assert old.status_note == "repainted" and blue.status == Status.ACTIVE


def test_a_subject_prefix_matches_the_subject_and_what_is_under_it_only(migrated_db):
    user = make_user()
    with session_scope() as s:
        for subject in ("ellahome", "ellahome.roof", "ellahomes.garden"):
            append(s, user, NewFact(subject, "is", "x", "canon"), Writer.OPERATOR)
    with autocommit_scope() as s:
        assert sorted(f.subject for f in current(s, user, "ellahome")) == ["ellahome", "ellahome.roof"]


@on_both_ways
def test_concurrent_supersessions_of_one_fact_have_exactly_one_winner(migrated_db):
    user = make_user()
    with session_scope() as s:
        fact_id = append(s, user, door("red"), Writer.ANCHOR).id
    barrier, outcomes = threading.Barrier(6), []

    def contender(colour: str) -> None:
        barrier.wait()
        try:
            with session_scope() as s:
                supersede(s, user, fact_id, door(colour), Writer.OPERATOR)
            outcomes.append("won")
        except FactConflict:
            outcomes.append("conflict")

    threads = [
        threading.Thread(target=contender, args=(c,)) for c in ("blue", "green", "black", "white", "teal", "ochre")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with autocommit_scope() as s:
        live = current(s, user)
        chain = history(s, user)
    assert sorted(outcomes) == ["conflict"] * 5 + ["won"]
    assert len(live) == 1 and len(chain) == 2 and live[0].supersedes == fact_id


def test_the_database_itself_refuses_a_second_live_fact_in_a_chain(migrated_db):
    user = make_user()
    with session_scope() as s:
        first = append(s, user, door("red"), Writer.ANCHOR)
        chain = first.chain
    with pytest.raises(IntegrityError), session_scope() as s:
        s.add(WorldFact(user_id=user, chain=chain, tier="canon", status="active", subject="x", predicate="p",
                        object="o", written_by="operator", valid_from=T0, recorded_at=T0))  # fmt: skip


@pytest.mark.parametrize("tier", ["canon", "observed", "rumored"])
def test_a_users_words_never_become_canon_or_observed(migrated_db, tier):
    user = make_user()
    with pytest.raises(TrustViolation), session_scope() as s:
        append(s, user, door("blue", tier), Writer.USER)


@on_both_ways
def test_a_user_claim_cannot_supersede_or_retire_canon(migrated_db):
    user = make_user()
    with session_scope() as s:
        red = append(s, user, door("red"), Writer.ANCHOR)
    with pytest.raises(TrustViolation), session_scope() as s:
        supersede(s, user, red.id, door("blue", "user_claim"), Writer.USER)
    with pytest.raises(TrustViolation), session_scope() as s:
        retire(s, user, red.id, Writer.USER, "the user said so")


def test_a_user_saying_the_door_is_blue_leaves_canon_red_in_the_brief(migrated_db):
    user = make_user()
    brief_of(user)  # a new world: the seed's anchors
    with session_scope() as s:
        append(s, user, door("blue", "user_claim"), Writer.USER)
    text = brief_of(user)
    assert "[canon] ellahome.exterior.door_color: color=red" in text
    assert "blue" not in text
    with autocommit_scope() as s:  # the claim is kept (the user did say it), beside canon, not over it
        assert {(f.tier, f.object) for f in current(s, user, "ellahome.exterior")} == {
            ("canon", "red"),
            ("user_claim", "blue"),
        }


def test_the_brief_lists_canon_first_and_inferred_last_within_its_budget(migrated_db):
    user = make_user()
    brief_of(user)
    with session_scope() as s:
        append(s, user, NewFact("user.sister", "name", "Anna", "user_claim", confidence=0.8), Writer.USER)
        append(s, user, NewFact("user.mood", "is", "tired", "inferred", confidence=0.4), Writer.USER)
        append(s, user, NewFact("world.harbour", "has", "a red lighthouse", "observed"), Writer.WORLD_TICK)
    lines = [line for line in brief_of(user).splitlines() if line.startswith("- [")]
    tiers = [line.split("]")[0][3:] for line in lines]
    assert tiers == sorted(tiers, key=lambda t: list(Tier).index(Tier(t)))
    assert tiers[0] == "canon" and tiers[-1] == "inferred" and "observed" in tiers
    assert "canon wins every conflict" in brief_of(user)
    with session_scope() as s:
        small = world_brief(advance_world(s, user, datetime.now(UTC)), max_tokens=120)
    assert len(small) <= 120 * 4 and "[canon]" in small and "[inferred]" not in small


@on_both_ways
def test_a_new_world_gets_the_seeds_anchors_and_the_clock_rolls_weather_and_age(migrated_db):
    user = make_user()
    with session_scope() as s:
        facts = {f.subject: f.object for f in advance_world(s, user, T0)}
    assert facts["ellahome.exterior.door_color"] == "red"
    assert facts["ellahome.interior.kitchen_layout"] == "galley, north wall"
    assert facts["companion.species"] == "tabby cat" and facts["companion.name"]
    assert facts["companion.age_years"] == "3" and facts["world.biome"] == "temperate coastal"
    assert facts["world.weather_today"]
    with session_scope() as s:
        anchors = narrative_anchors(s, user)
        assert advance_world(s, user, T0 + timedelta(hours=2)) and len(history(s, user)) == 7  # same day: no write
        later = {f.subject: f for f in advance_world(s, user, T0 + timedelta(days=366))}
        weather_chain = [f for f in history(s, user, "world.weather_today")]
    assert len(anchors) == 7 and all(a.tier == "canon" for a in anchors)
    assert later["companion.age_years"].object == "4" and later["companion.age_years"].written_by == "world_tick"
    assert len(weather_chain) == 2 and weather_chain[0].status == "superseded"


def test_two_disagreeing_facts_of_one_tier_are_contested_but_not_across_tiers(migrated_db):
    user = make_user()
    with session_scope() as s:
        append(s, user, NewFact("user.job", "is", "teacher", "inferred"), Writer.USER)
        append(s, user, NewFact("user.job", "is", "nurse", "inferred"), Writer.USER)
        append(s, user, NewFact("user.city", "is", "Leeds", "user_claim"), Writer.USER)
        append(s, user, NewFact("user.city", "is", "York", "inferred"), Writer.USER)
    with autocommit_scope() as s:
        status = {(f.subject, f.object): f.status for f in current(s, user)}
    assert status[("user.job", "teacher")] == status[("user.job", "nurse")] == "contested"
    assert status[("user.city", "Leeds")] == status[("user.city", "York")] == "active"


def test_resolving_a_contest_supersedes_the_loser_with_the_reason(migrated_db):
    user = make_user()
    with session_scope() as s:
        a = append(s, user, NewFact("user.job", "is", "teacher", "inferred"), Writer.USER).id
        b = append(s, user, NewFact("user.job", "is", "nurse", "inferred"), Writer.USER).id
    with session_scope() as s:
        resolve_contest(s, user, b, [a], Writer.RESOLVER, "the newer inference")
    with autocommit_scope() as s:
        loser, winner = s.get(WorldFact, a), s.get(WorldFact, b)
        assert (winner.status, loser.status) == ("active", "superseded")
        assert "the newer inference" in loser.status_note and loser.retired_at is not None
    with pytest.raises(FactConflict), session_scope() as s:  # resolved once: a second resolution conflicts
        resolve_contest(s, user, a, [b], Writer.RESOLVER, "again")


@on_both_ways
def test_one_users_facts_never_appear_in_another_users_brief(migrated_db):
    alice, bob = make_user(), make_user()
    marker = f"marker-{uuid.uuid4().hex}"
    with session_scope() as s:
        append(s, alice, NewFact("user.secret", "is", marker, "user_claim"), Writer.USER)
        append(s, alice, NewFact("ellahome.garden", "has", marker, "canon"), Writer.OPERATOR)
    assert marker in brief_of(alice)
    assert marker not in brief_of(bob)
    with autocommit_scope() as s:
        assert all(marker not in f.object for f in history(s, bob))
        alice_fact = current(s, alice, "user.secret")[0].id
    with pytest.raises(FactConflict), session_scope() as s:  # bob's world cannot touch alice's fact
        supersede(s, bob, alice_fact, NewFact("user.secret", "is", "x", "user_claim"), Writer.USER)


def test_operators_see_the_ledger_and_settle_a_queued_contest_from_the_cli(migrated_db):
    from cli.main import cli
    from models.review import queue_review

    user = make_user()
    with session_scope() as s:
        a = append(s, user, NewFact("user.pet", "name", "Rex", "inferred"), Writer.USER, T0).id
        b = append(s, user, NewFact("user.pet", "name", "Max", "inferred"), Writer.USER, T0).id
        review_id = queue_review(s, user, "user.pet", "name", "inferred", [a, b], "undecided")
    runner = CliRunner()
    shown = runner.invoke(cli, ["ledger", "show", user, "--subject", "user.pet"])
    assert shown.exit_code == 0 and "Rex" in shown.output and "contested" in shown.output
    listed = runner.invoke(cli, ["review", "contested"])
    assert listed.exit_code == 0 and "user.pet" in listed.output
    wrong = runner.invoke(cli, ["review", "contested", "--resolve", str(review_id), "--winner", "999999"])
    assert wrong.exit_code == 2
    done = runner.invoke(cli, ["review", "contested", "--resolve", str(review_id), "--winner", str(a), "--by", "kim"])
    assert done.exit_code == 0, done.output
    with autocommit_scope() as s:
        assert [f.object for f in current(s, user, "user.pet")] == ["Rex"]
        assert open_reviews(s) == []
    past = runner.invoke(cli, ["ledger", "show", user, "--history"])
    assert past.exit_code == 0 and "Max" in past.output and "lost a contest" in past.output
    earlier = runner.invoke(cli, ["ledger", "show", user, "--as-of", (T0 - timedelta(days=1)).isoformat()])
    assert earlier.exit_code == 1
    brief_of(user)  # anchor the world
    anchored = runner.invoke(cli, ["ledger", "show", user, "--anchors"])
    assert anchored.exit_code == 0 and "door_color" in anchored.output and "Rex" not in anchored.output


def test_retired_facts_leave_the_world_but_not_the_history(migrated_db):
    user = make_user()
    with session_scope() as s:
        fact = append(s, user, NewFact("user.hobby", "is", "chess", "user_claim"), Writer.USER)
    with session_scope() as s:
        retire(s, user, fact.id, Writer.OPERATOR, "the user asked to forget it")
    with autocommit_scope() as s:
        assert current(s, user) == [] and [f.status for f in history(s, user)] == ["retired"]
        assert s.scalar(select(WorldFact.status_note).where(WorldFact.id == fact.id)) == "the user asked to forget it"


@on_both_ways
def test_superseding_a_fact_that_is_no_longer_live_conflicts_and_changes_nothing(migrated_db):
    user = make_user()
    with session_scope() as s:
        red = append(s, user, door("red"), Writer.ANCHOR, T0)
    with session_scope() as s:
        supersede(s, user, red.id, door("blue"), Writer.OPERATOR, T0 + timedelta(days=1))
    with pytest.raises(FactConflict, match="no longer live"), session_scope() as s:
        supersede(s, user, red.id, door("green"), Writer.OPERATOR, T0 + timedelta(days=2))
    with autocommit_scope() as s:
        assert [(f.object, f.status) for f in history(s, user)] == [("red", "superseded"), ("blue", "active")]


@on_both_ways
def test_a_replacement_recorded_before_conflicts_and_the_old_fact_stays_live(migrated_db):
    user = make_user()
    with session_scope() as s:
        append(s, user, NewFact("user.city", "is", "Leeds", "user_claim", dedupe_key="said-once"), Writer.USER, T0)
        old = append(s, user, NewFact("user.pet", "is", "a cat", "user_claim"), Writer.USER, T0)
    again = NewFact("user.pet", "is", "a dog", "user_claim", dedupe_key="said-once")
    with pytest.raises(FactConflict, match="recorded before"), session_scope() as s:
        supersede(s, user, old.id, again, Writer.USER, T0 + timedelta(hours=1))
    with autocommit_scope() as s:
        assert [(f.object, f.status) for f in history(s, user, "user.pet")] == [("a cat", "active")]
        assert events(s, user, [old.id]) == []


@on_both_ways
def test_a_supersession_records_its_status_change_and_ends_the_contest_it_settles(migrated_db):
    user = make_user()
    with session_scope() as s:
        a = append(s, user, NewFact("user.job", "is", "teacher", "inferred"), Writer.USER, T0).id
        b = append(s, user, NewFact("user.job", "is", "nurse", "inferred"), Writer.USER, T0 + timedelta(hours=1)).id
    with session_scope() as s:
        c = supersede(s, user, a, NewFact("user.job", "is", "nurse", "inferred"), Writer.USER, T0 + timedelta(hours=2),
                      reason="the user said otherwise").id  # fmt: skip
    with autocommit_scope() as s:
        changes = [(e.fact_id, e.from_status, e.to_status) for e in events(s, user, [a, b, c])]
        note = s.scalar(select(FactEvent.note).where(FactEvent.fact_id == a, FactEvent.to_status == "superseded"))
        live = {f.id: f.status for f in current(s, user)}
    assert changes == [
        (a, "active", "contested"),
        (b, "active", "contested"),
        (a, "contested", "superseded"),
        (b, "contested", "active"),
    ]
    assert note == "the user said otherwise" and live == {b: "active", c: "active"}


@on_both_ways
def test_every_writer_supersedes_exactly_what_the_trust_rule_allows(migrated_db):
    user = make_user()
    refused, allowed = [], []
    for writer in Writer:
        for old_tier in Tier:
            for new_tier in Tier:
                subject = f"world.{writer}.{old_tier}.{new_tier}"
                with session_scope() as s:
                    old = append(s, user, NewFact(subject, "is", "before", old_tier), Writer.OPERATOR, T0).id
                try:
                    check_supersede(writer, old_tier, new_tier)
                    expected = "allowed"
                except TrustViolation:
                    expected = "refused"
                try:
                    with session_scope() as s:
                        supersede(s, user, old, NewFact(subject, "is", "after", new_tier), writer, T0)
                    (allowed if expected == "allowed" else refused).append((writer, old_tier, new_tier, "written"))
                except TrustViolation:
                    (refused if expected == "refused" else allowed).append((writer, old_tier, new_tier, "refused"))
    assert all(outcome == "written" for *_, outcome in allowed) and all(o == "refused" for *_, o in refused)
    # operator: every tier; world tick: canon, observed, rumored; user: claim, inferred; anchor: canon only
    assert len(allowed) == 5 * 5 + 3 * 3 + 2 * 2 + 1 and len(refused) == 125 - len(allowed)


def test_the_one_statement_inserts_every_column_the_table_gives_a_new_fact():
    from sqlalchemy.dialects import postgresql

    from models.ledger import INSERTED_COLUMNS
    from models.supersession import _one_statement

    sql = str(_one_statement().compile(dialect=postgresql.psycopg.dialect()))
    insert_list = sql.split("INSERT INTO world_facts (", 1)[1].split(")", 1)[0]
    not_given = {"id", "retired_at", "status_note", "outcome"}  # later: when and why it stopped, what came of it
    expected = [c.key for c in WorldFact.__table__.columns if c.key not in not_given]
    assert [c.key for c in INSERTED_COLUMNS] == expected
    assert insert_list.split(", ") == expected
    assert "__[POSTCOMPILE_replaceable]" in sql  # the trust rule is bound from Python, not written in SQL


def test_reading_the_world_never_writes_and_advance_world_catches_its_clock_up(migrated_db):

    user = make_user()
    with session_scope() as s:
        assert current(s, user) == [] and history(s, user) == []  # a new world: the read anchors nothing
    with session_scope() as s:
        assert len(advance_world(s, user, T0)) == 7
    with session_scope() as s:
        before = len(history(s, user))
        current(s, user)
        assert len(history(s, user)) == before == 7
        tomorrow = {f.subject: f for f in advance_world(s, user, T0 + timedelta(days=1))}
    assert tomorrow["world.weather_today"].note == "weather for 2026-11-02"


@on_both_ways
def test_two_callers_advancing_a_stale_world_at_once_tick_it_once(migrated_db):
    user = make_user()
    with session_scope() as s:
        advance_world(s, user, T0)
    barrier, errors = threading.Barrier(4), []

    def reader() -> None:
        barrier.wait()
        try:
            with session_scope() as s:
                advance_world(s, user, T0 + timedelta(days=1))
        except Exception as exc:  # noqa: BLE001  (the test reports any failure)
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with autocommit_scope() as s:
        weather = history(s, user, "world.weather_today")
    assert errors == [] and [f.status for f in weather] == ["superseded", "active"]
