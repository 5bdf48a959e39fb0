"""The user's profile through the gateway: the contract, the ordering rule, and every field's effect."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from adapters.db import autocommit_scope, session_scope
from adapters.settings import get_settings
from adapters.turn_context import new_user_defaults
from ella.contract import MalformedPayload, ProfilePayload, parse_profile
from ella.guard.disclosure import BREAK_REMINDER
from ella.ledger.anchors import WEATHER_SUBJECT
from ella.notifications.policy import MINUTES_PER_DAY, Window
from ella.profile import NO_WINDOW, profile_columns, window_minutes
from models import DeadLetter, User, WorldFact
from models.ledger import current, history
from models.user import apply_profile
from models.world_clock import advance_world
from tests.test_guard_pipeline import say
from workers.reliability import DeadLettered
from workers.routing import TaskName

ROOT = Path(__file__).resolve().parent.parent
SUNDAY = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CRISIS = "honestly everyone would be better off without me"


def profile(user_id: str = "u-1", **changes: Any) -> dict[str, Any]:
    """A good payload, as the gateway sends it over JSON."""
    base = {
        "user_id": user_id,
        "updated_at": "2026-11-29T10:00:00+01:00",
        "timezone": "Europe/London",
        "locale": "en_GB",
        "is_minor": False,
        "do_not_disturb": "22:30-07:15",
        "active_hours": "09:00-21:00",
        "notifications": True,
    }
    return {**base, **changes}


def refused(kwargs: dict[str, Any]) -> str:
    with pytest.raises(MalformedPayload) as caught:
        parse_profile((), kwargs)
    return caught.value.reason


def new_user() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


def update(**kwargs: Any) -> str:
    from tasks.profile import update_profile

    return update_profile.apply(kwargs=kwargs).get()


def stored(user_id: str) -> User:
    with autocommit_scope() as s:
        return s.get_one(User, user_id)


# --- the contract (no services) ---------------------------------------------------------------------------


@pytest.mark.domain
def test_a_full_profile_is_accepted_with_every_field_kept():
    payload = parse_profile((), profile())
    assert payload.updated_at == datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    assert (payload.timezone, payload.locale, payload.is_minor, payload.notifications) == (
        "Europe/London",
        "en_GB",
        False,
        True,
    )
    assert (payload.do_not_disturb, payload.active_hours) == ("22:30-07:15", "09:00-21:00")


@pytest.mark.domain
@pytest.mark.parametrize("field", list(ProfilePayload.model_fields))
def test_every_profile_field_is_required_and_a_missing_one_is_named(field):
    kwargs = profile()
    del kwargs[field]
    assert refused(kwargs).startswith(f"{field}: Field required")


@pytest.mark.domain
@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("updated_at", "2026-11-29T10:00:00", "timezone info"),  # naive
        ("updated_at", 1764410400, "ISO-8601"),  # epoch seconds: a unit guess
        ("updated_at", "1764410400", "ISO-8601"),
        ("updated_at", "2026-11-29", "ISO-8601"),
        ("timezone", "Mars/Olympus_Mons", "unknown IANA time zone"),
        ("timezone", "localtime", "unknown IANA time zone"),
        ("timezone", "../../etc/passwd", "unknown IANA time zone"),
        ("timezone", "europe/london", "unknown IANA time zone"),
        ("locale", "english", "pattern"),
        ("locale", "EN_gb", "pattern"),
        ("locale", "en_GB.UTF-8", "pattern"),
        ("is_minor", "yes", "valid boolean"),
        ("is_minor", 1, "valid boolean"),
        ("notifications", "true", "valid boolean"),
        ("notifications", None, "valid boolean"),
        ("do_not_disturb", "22:00-22:00", "empty window"),
        ("do_not_disturb", "10pm-7am", "pattern"),
        ("active_hours", "9:00-21:00", "pattern"),
        ("active_hours", "09:00-24:00", "pattern"),
        ("active_hours", None, "valid string"),
        ("active_hours", "09:00-09:00", "empty window"),
        ("user_id", 42, "must be a string"),
        ("user_id", "", "at least 1 character"),
    ],
)
def test_a_bad_profile_field_is_refused_with_a_reason_naming_it(field, value, says):
    reason = refused(profile(**{field: value}))
    assert reason.startswith(f"{field}: ") and says in reason


@pytest.mark.domain
@pytest.mark.parametrize("locale", ["en_GB", "de_DE", "en", "fil_PH"])
def test_a_locale_is_a_language_with_an_optional_country(locale):
    assert parse_profile((), profile(locale=locale)).locale == locale


@pytest.mark.domain
def test_unknown_keys_and_positional_arguments_are_refused():
    assert refused(profile(email="a@example.com")).startswith("email: Extra inputs are not permitted")
    with pytest.raises(MalformedPayload, match="positional"):
        parse_profile(("u-1",), profile())


@pytest.mark.domain
def test_windows_become_minutes_after_local_midnight_and_may_wrap_midnight():
    assert window_minutes("09:00-21:00") == (540, 1260)
    assert window_minutes("22:30-07:15") == (1350, 435)
    columns = profile_columns(parse_profile((), profile(do_not_disturb="23:00-06:00", active_hours="00:00-23:59")))
    assert (columns["dnd_start_minute"], columns["dnd_end_minute"]) == (1380, 360)
    assert (columns["active_start_minute"], columns["active_end_minute"]) == (0, 1439)
    wrapped = Window(columns["dnd_start_minute"], columns["dnd_end_minute"])
    assert wrapped.contains(0) and wrapped.contains(23 * 60) and not wrapped.contains(12 * 60)


@pytest.mark.domain
def test_no_do_not_disturb_is_stored_as_a_window_the_sending_rules_read_as_empty():
    columns = profile_columns(parse_profile((), profile(do_not_disturb=None)))
    assert (columns["dnd_start_minute"], columns["dnd_end_minute"]) == NO_WINDOW
    assert not any(Window(*NO_WINDOW).contains(minute) for minute in range(MINUTES_PER_DAY))


@pytest.mark.domain
def test_the_profile_schema_is_documented_once_in_the_spec_and_the_readme_points_there():
    """docs/gateway.md is the source (issue 36): the README's copy of the schema had drifted from it once, so the
    README keeps a summary and the spec's schema file is the one the task validates."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## The gateway contract", 1)[1].split("\n## ", 1)[0]
    schema = json.loads((ROOT / "docs" / "schemas" / "update_profile.kwargs.schema.json").read_text())
    assert schema == ProfilePayload.model_json_schema()
    assert "`schemas/update_profile.kwargs.schema.json`" in (ROOT / "docs" / "gateway.md").read_text()
    assert "docs/gateway.md" in section and "```json" not in section  # a pointer, not a second copy
    assert "ella.update_profile" in section and "update_profile(" in section


class Recorder:
    """A Celery app that only records what it is asked to send."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_task(self, name: str, args: Any = None, kwargs: Any = None, **options: Any) -> Any:
        self.sent.append({"name": name, "args": args, "kwargs": kwargs, **options})
        return type("Result", (), {"id": "task-1"})()


@pytest.mark.domain
def test_the_client_sends_the_profile_by_name_as_kwargs_and_never_shows_it_in_the_task_repr():
    from gateway.client import update_profile

    app = Recorder()
    fields = {k: v for k, v in profile().items() if k != "updated_at"}
    at = datetime(2026, 11, 29, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    assert update_profile(**fields, updated_at=at, app=app) == "task-1"  # type: ignore[arg-type]
    (sent,) = app.sent
    assert sent["name"] == TaskName.UPDATE_PROFILE == "ella.update_profile" and sent["args"] is None
    assert sent["queue"] == get_settings().queue_inbound
    assert parse_profile((), sent["kwargs"]).updated_at == at  # what the client sends is a valid payload
    assert json.loads(json.dumps(sent["kwargs"])) == sent["kwargs"]  # plain JSON on the wire
    assert "Europe/London" not in sent["kwargsrepr"] and "is_minor" not in sent["kwargsrepr"]


# --- storing it: the ordering rule ----------------------------------------------------------------------


def test_a_profile_creates_a_new_user_with_every_field_in_its_column(migrated_db):
    user = new_user()
    assert update(**profile(user, locale="de_DE", is_minor=True, notifications=False)) == "applied"
    row = stored(user)
    assert (row.timezone, row.locale, row.is_minor, row.notifications_enabled) == (
        "Europe/London",
        "de_DE",
        True,
        False,
    )
    assert (row.dnd_start_minute, row.dnd_end_minute) == (22 * 60 + 30, 7 * 60 + 15)
    assert (row.active_start_minute, row.active_end_minute) == (9 * 60, 21 * 60)
    assert row.profile_updated_at == datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    settings = get_settings()  # the columns a profile does not set start as any new user's do
    assert row.importance_trigger_max == row.importance_trigger_curr == settings.importance_trigger_max
    assert row.last_seen_at is None and row.ai_disclosed_at is None


def test_an_older_profile_never_overwrites_a_newer_one(migrated_db):
    user = new_user()
    assert update(**profile(user, updated_at="2026-11-29T12:00:00Z", timezone="Asia/Tokyo")) == "applied"
    assert update(**profile(user, updated_at="2026-11-29T11:59:59Z", timezone="America/Chicago")) == "stale"
    assert stored(user).timezone == "Asia/Tokyo"
    assert update(**profile(user, updated_at="2026-11-29T12:00:01Z", timezone="America/Chicago")) == "applied"
    assert stored(user).timezone == "America/Chicago"


def test_profiles_are_ordered_by_their_instant_not_by_the_text_of_their_offsets(migrated_db):
    user = new_user()
    assert update(**profile(user, updated_at="2026-11-29T10:00:00+01:00", locale="en_GB")) == "applied"  # 09:00Z
    assert update(**profile(user, updated_at="2026-11-29T09:30:00+00:00", locale="en_IE")) == "applied"  # later
    assert update(**profile(user, updated_at="2026-11-29T04:15:00-05:00", locale="en_US")) == "stale"  # 09:15Z
    assert stored(user).locale == "en_IE"


def test_a_redelivered_profile_changes_nothing(migrated_db):
    user = new_user()
    kwargs = profile(user, is_minor=True)
    assert update(**kwargs) == "applied"
    before = stored(user)
    assert update(**kwargs) == "stale"
    after = stored(user)
    columns = [c.key for c in User.__table__.columns]
    assert {c: getattr(after, c) for c in columns} == {c: getattr(before, c) for c in columns}


def test_a_profile_updates_a_user_who_already_talked_and_keeps_their_state(migrated_db):
    user = new_user()
    say(user, "hi Ella", SUNDAY)  # the user's row is made by their first message, with no profile yet
    assert stored(user).profile_updated_at is None
    assert update(**profile(user, timezone="Asia/Tokyo")) == "applied"
    row = stored(user)
    assert (row.timezone, row.last_seen_at, row.ai_disclosed_at) == ("Asia/Tokyo", SUNDAY, SUNDAY)


def race(user: str, updates: list[tuple[dict[str, Any], datetime]]) -> list[bool]:
    """Apply the updates at once, each in its own thread and transaction; what each one returned."""
    defaults = new_user_defaults(get_settings())
    barrier = threading.Barrier(len(updates))
    outcomes: list[bool | None] = [None] * len(updates)
    errors: list[BaseException] = []

    def apply(i: int) -> None:
        columns, at = updates[i]
        try:
            barrier.wait(5)
            with session_scope() as s:
                outcomes[i] = apply_profile(s, user, columns, at, defaults)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=apply, args=(i,)) for i in range(len(updates))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == [] and None not in outcomes
    return [bool(o) for o in outcomes]


def test_of_two_concurrent_profile_updates_the_newer_one_is_stored(migrated_db):
    older = profile_columns(parse_profile((), profile(timezone="America/Chicago")))
    newer = profile_columns(parse_profile((), profile(timezone="Asia/Tokyo")))
    t0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    for _ in range(6):
        user = new_user()  # a new user each round: two first updates race on the INSERT too
        _, newer_applied = race(user, [(older, t0), (newer, t0 + timedelta(seconds=1))])
        assert newer_applied and stored(user).timezone == "Asia/Tokyo"
        assert stored(user).profile_updated_at == t0 + timedelta(seconds=1)


def test_a_malformed_profile_is_dead_lettered_with_its_reason_and_the_task_fails(migrated_db):
    from tasks.profile import update_profile

    user = new_user()
    result = update_profile.apply(kwargs=profile(user, updated_at="2026-11-29T10:00:00"))
    assert result.state == "FAILURE" and isinstance(result.result, DeadLettered)
    assert "updated_at" in str(result.result)
    with autocommit_scope() as s:
        (letter,) = s.scalars(select(DeadLetter).where(DeadLetter.user_id == user))
        assert letter.task_name == TaskName.UPDATE_PROFILE
        assert letter.reason == "malformed payload: updated_at: Input should have timezone info"
        assert s.scalar(select(func.count()).select_from(User).where(User.id == user)) == 0


def test_the_profile_log_names_the_outcome_but_not_the_profile(migrated_db, caplog):
    user = new_user()
    with caplog.at_level("INFO", logger="tasks.profile"):
        update(**profile(user, timezone="Pacific/Auckland", locale="de_DE", is_minor=True))
        update(**profile(user, timezone="Pacific/Auckland", locale="de_DE", is_minor=True))
    lines = [r.getMessage() for r in caplog.records if r.name == "tasks.profile"]
    assert [line.rsplit(": ", 1)[1] for line in lines] == ["applied", "stale"]
    assert not any(secret in line for line in lines for secret in ("Auckland", "de_DE", "minor", "True"))


# --- every field has its effect, through the real paths --------------------------------------------------


def test_the_locale_picks_the_crisis_line(migrated_db):
    british, german, bare = new_user(), new_user(), new_user()
    update(**profile(british, locale="en_GB"))
    update(**profile(german, locale="de_DE"))
    update(**profile(bare, locale="en"))
    uk, de, none = say(british, CRISIS).text, say(german, CRISIS).text, say(bare, CRISIS).text
    assert "Samaritans" in uk and "116 123" in uk and "988" not in uk
    assert "TelefonSeelsorge" in de and "0800 111 0 111" in de and "988" not in de
    assert "local crisis line" in none and "988" not in none and "findahelpline.com" in none


def test_a_profile_that_says_minor_brings_the_break_reminder_and_an_adult_gets_none(migrated_db, monkeypatch):
    monkeypatch.setenv("ELLA_CONVERSATION_INACTIVITY_TIMEOUT_S", str(4 * 3600))
    get_settings.cache_clear()
    minor, adult = new_user(), new_user()
    update(**profile(minor, is_minor=True))
    update(**profile(adult, is_minor=False))
    try:
        replies = {}
        for user in (minor, adult):
            turns = [say(user, f"still chatting {i}", SUNDAY + timedelta(hours=i)) for i in range(3)]
            turns.append(say(user, "one more thing", SUNDAY + timedelta(hours=3, minutes=1)))
            replies[user] = [BREAK_REMINDER in t.text for t in turns]
    finally:
        get_settings.cache_clear()
    assert replies[minor] == [False, False, False, True]
    assert replies[adult] == [False, False, False, False]


def extract(user: str, text: str, at: datetime = SUNDAY) -> dict[str, int]:
    from tasks.ledger import extract_facts

    kwargs = {"user_id": user, "message_id": uuid.uuid4().hex, "text": text, "sent_at": at.isoformat()}
    return extract_facts.apply(kwargs=kwargs).get()


def zone_on_another_day() -> tuple[str, date]:
    """A zone whose local date is not UTC's right now (UTC-11 before 11:00 UTC, UTC+14 from 10:00)."""
    now = datetime.now(UTC)
    name = "Pacific/Pago_Pago" if now.hour < 10 else "Pacific/Kiritimati"
    local = now.astimezone(ZoneInfo(name)).date()
    assert local != now.date()
    return name, local


def test_the_time_zone_sets_the_local_day_of_the_world_clocks_weather(migrated_db):
    zone, expected = zone_on_another_day()
    user = new_user()
    update(**profile(user, timezone=zone))
    with session_scope() as s:  # the world was anchored yesterday
        advance_world(s, user, datetime.now(UTC) - timedelta(days=1))
    extract(user, "My sister is called Anna", datetime.now(UTC))  # a turn's extraction catches the clock up
    local_after = datetime.now(ZoneInfo(zone)).date()
    with autocommit_scope() as s:
        (weather,) = [f for f in current(s, user) if f.subject == WEATHER_SUBJECT]
    assert weather.note in {f"weather for {expected}", f"weather for {local_after}"}  # local midnight may pass
    assert weather.note != f"weather for {datetime.now(UTC).date()}"


def interview(user: str) -> WorldFact:
    assert extract(user, "My interview is on Thursday and I'm so nervous") == {"appended": 1}
    with autocommit_scope() as s:
        (fact,) = [f for f in history(s, user) if f.subject == "user"]
    return fact


def test_the_time_zone_sets_the_follow_up_window_of_a_dated_event(migrated_db):
    tokyo, unset = new_user(), new_user()
    update(**profile(tokyo, timezone="Asia/Tokyo"))
    with session_scope() as s:
        s.add(User(id=unset))  # no profile: the default zone
    assert get_settings().default_timezone == "UTC"
    in_tokyo, in_utc = interview(tokyo), interview(unset)
    assert in_tokyo.followup_after == datetime(2026, 12, 4, 0, 0, tzinfo=ZoneInfo("Asia/Tokyo"))  # after Thu 3 Dec
    assert in_utc.followup_after == datetime(2026, 12, 4, 0, 0, tzinfo=UTC)
    assert in_utc.followup_after - in_tokyo.followup_after == timedelta(hours=9)


@pytest.mark.domain
@pytest.mark.parametrize("locale", ["en_GB", "de_DE", "en", "ca", "US"])
def test_every_crisis_line_a_locale_picks_passes_the_outbound_guard(locale):
    from ella.guard import classify
    from ella.guard.replies import crisis_referral

    assert classify(crisis_referral(locale), learned=False).category == "ok"


@pytest.mark.domain
def test_a_bare_language_names_no_country_but_a_bare_country_code_does():
    from ella.guard.replies import crisis_referral

    assert "local crisis line" in crisis_referral("ca") and "Canada" not in crisis_referral("ca")  # Catalan
    assert "Canada" in crisis_referral("fr_CA") and "988" in crisis_referral("US")
