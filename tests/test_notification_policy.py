"""``should_send``: each cadence rule on its own, in the user's time zone (DST included), and the grounds check."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from ella.notifications.policy import (
    CandidateState,
    Hold,
    Recipient,
    Rules,
    Status,
    Window,
    decide,
    grounds_hold,
    reason_of,
    recipient,
    should_send,
)

pytestmark = pytest.mark.domain

UTC_ZONE = ZoneInfo("UTC")
# 12:00 UTC: inside the default active hours (09:00-21:00) and outside do-not-disturb (22:00-08:00).
NOON = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)


def fresh(now: datetime = NOON, status: str = Status.CANDIDATE) -> CandidateState:
    return CandidateState(status=status, fresh_until=now + timedelta(days=1))


def user(zone: str = "UTC", **changes: object) -> Recipient:
    base = Recipient(zone=ZoneInfo(zone), active_hours=Window(9 * 60, 21 * 60), do_not_disturb=Window(22 * 60, 8 * 60))
    return replace(base, **changes)


def test_a_fresh_candidate_to_an_idle_user_inside_active_hours_is_sent():
    decision = should_send(fresh(), user(), NOON)
    assert decision.send and decision.hold is None


@pytest.mark.parametrize("status", [Status.SENT, Status.SKIPPED, Status.EXPIRED])
def test_only_a_candidate_is_sent(status):
    decision = should_send(fresh(status=status), user(), NOON)
    assert not decision.send and decision.hold is Hold.NOT_A_CANDIDATE


def test_never_at_or_after_fresh_until_and_the_candidate_expires():
    candidate = CandidateState(Status.CANDIDATE, fresh_until=NOON)
    assert should_send(candidate, user(), NOON - timedelta(seconds=1)).send
    decision = should_send(candidate, user(), NOON)
    assert decision.hold is Hold.EXPIRED and decision.final_status is Status.EXPIRED
    assert decision.not_before is None


def test_never_to_a_user_who_turned_notifications_off_and_the_candidate_is_skipped():
    decision = should_send(fresh(), user(notifications_on=False), NOON)
    assert decision.hold is Hold.NOTIFICATIONS_OFF and decision.final_status is Status.SKIPPED


def test_not_while_the_user_is_in_a_live_conversation_and_it_waits_for_the_close():
    close_due = NOON + timedelta(minutes=20)
    decision = should_send(fresh(), user(conversation_live_until=close_due), NOON)
    assert decision.hold is Hold.IN_CONVERSATION and decision.not_before == close_due
    assert decision.final_status is None
    assert should_send(fresh(), user(conversation_live_until=NOON), NOON).send  # closed at its due time


def test_at_least_min_gap_since_the_last_notification_of_any_kind():
    last = NOON - timedelta(hours=47)
    decision = should_send(fresh(), user(last_notified_at=last), NOON)
    assert decision.hold is Hold.TOO_SOON and decision.not_before == last + timedelta(days=2)
    assert should_send(fresh(), user(last_notified_at=NOON - timedelta(hours=48)), NOON).send


def test_at_most_the_daily_cap_per_local_day_even_with_no_min_gap():
    rules = Rules(min_gap=timedelta(0), daily_cap=2)
    tokyo = user("Asia/Tokyo", active_hours=Window(0, 23 * 60 + 59), do_not_disturb=None)
    assert should_send(fresh(), replace(tokyo, sent_today=1), NOON, rules).send
    decision = should_send(fresh(), replace(tokyo, sent_today=2), NOON, rules)
    assert decision.hold is Hold.DAILY_CAP
    # 12:00 UTC is 21:00 in Tokyo: the cap lifts at the user's next local midnight, 15:00 UTC.
    assert decision.not_before == datetime(2026, 6, 10, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("local", "held"), [("23:30", True), ("07:59", True), ("08:00", False), ("21:59", False), ("22:00", True)]
)
def test_do_not_disturb_wraps_midnight(local, held):
    hour, minute = map(int, local.split(":"))
    now = datetime(2026, 6, 10, hour, minute, tzinfo=UTC)
    always_active = user(active_hours=Window(0, 23 * 60 + 59))
    decision = should_send(fresh(now), always_active, now)
    if not held:
        assert decision.send
        return
    assert decision.hold is Hold.DO_NOT_DISTURB and decision.final_status is None
    day = now.date() if hour < 8 else now.date() + timedelta(days=1)
    assert decision.not_before == datetime(day.year, day.month, day.day, 8, 0, tzinfo=UTC)


def test_outside_active_hours_a_fresh_candidate_waits_for_the_next_window_and_is_not_dropped():
    evening = datetime(2026, 6, 10, 21, 30, tzinfo=UTC)
    no_dnd = user(do_not_disturb=None)
    decision = should_send(fresh(evening), no_dnd, evening)
    assert decision.hold is Hold.OUTSIDE_ACTIVE_HOURS and decision.final_status is None
    assert decision.not_before == datetime(2026, 6, 11, 9, 0, tzinfo=UTC)
    assert should_send(fresh(evening), no_dnd, decision.not_before).send


def test_active_hours_are_read_in_the_users_time_zone():
    # 12:00 UTC is 05:00 in Los Angeles (summer time): outside 09:00-21:00, inside 22:00-08:00 do-not-disturb.
    la = user("America/Los_Angeles", do_not_disturb=None)
    decision = should_send(fresh(), la, NOON)
    assert decision.hold is Hold.OUTSIDE_ACTIVE_HOURS
    assert decision.not_before == datetime(2026, 6, 10, 16, 0, tzinfo=UTC)  # 09:00 PDT


def test_active_hours_after_londons_clocks_go_back_on_the_last_sunday_of_october():
    london = user("Europe/London", do_not_disturb=None)
    saturday = datetime(2026, 10, 24, 8, 30, tzinfo=UTC)  # 09:30 BST: active
    sunday = datetime(2026, 10, 25, 8, 30, tzinfo=UTC)  # 08:30 GMT after the change: not yet
    assert should_send(fresh(saturday), london, saturday).send
    decision = should_send(fresh(sunday), london, sunday)
    assert decision.hold is Hold.OUTSIDE_ACTIVE_HOURS
    assert decision.not_before == datetime(2026, 10, 25, 9, 0, tzinfo=UTC)  # 09:00 GMT


def test_new_york_spring_forward_moves_active_hours_and_do_not_disturb_by_an_hour():
    ny = user("America/New_York")
    saturday = datetime(2026, 3, 7, 13, 30, tzinfo=UTC)  # 08:30 EST: do-not-disturb until 08:00 has passed...
    decision = should_send(fresh(saturday), ny, saturday)
    assert decision.hold is Hold.OUTSIDE_ACTIVE_HOURS  # ...but active hours start at 09:00 EST
    assert decision.not_before == datetime(2026, 3, 7, 14, 0, tzinfo=UTC)
    sunday = datetime(2026, 3, 8, 13, 30, tzinfo=UTC)  # 09:30 EDT after the change: active
    assert should_send(fresh(sunday), ny, sunday).send
    night = datetime(2026, 3, 8, 6, 30, tzinfo=UTC)  # 01:30 EST, the night of the change
    decision = should_send(fresh(night), ny, night)
    assert decision.hold is Hold.DO_NOT_DISTURB
    assert decision.not_before == datetime(2026, 3, 8, 12, 0, tzinfo=UTC)  # 08:00 EDT, not 13:00


def test_a_superseded_or_retired_fact_kills_its_candidate_at_send_time():
    assert grounds_hold([11, 12], live_fact_ids={11, 12, 13})
    assert not grounds_hold([11, 12], live_fact_ids={11, 13})  # 12 was superseded by 13 since
    assert grounds_hold([], live_fact_ids=set())  # a generic check-in rests on nothing


def test_recipient_counts_only_notifications_since_the_users_local_midnight():
    # 12:00 UTC is 08:00 in New York (EDT); local midnight was 04:00 UTC.
    args = {"active": (540, 1260), "do_not_disturb": (1320, 480), "notifications_on": True, "now": NOON}
    early = NOON - timedelta(hours=9)  # 23:00 EDT yesterday
    late = NOON - timedelta(hours=7)  # 01:00 EDT today
    ny = recipient(zone="America/New_York", last_notified_at=late, sent_at=[early, late], **args)
    assert ny.sent_today == 1
    utc = recipient(zone="UTC", last_notified_at=late, sent_at=[early, late], **args)
    assert utc.sent_today == 2
    assert recipient(zone="UTC", last_notified_at=late, **args).sent_today == 1  # from last_notified_at alone


def test_recipient_sees_a_conversation_only_while_it_is_live_and_an_empty_dnd_as_none():
    args = {"zone": "UTC", "active": (540, 1260), "notifications_on": True, "last_notified_at": None, "now": NOON}
    past = recipient(do_not_disturb=(0, 0), conversation_close_due_at=NOON - timedelta(minutes=1), **args)
    assert past.conversation_live_until is None and past.do_not_disturb is None
    live = recipient(do_not_disturb=(1320, 480), conversation_close_due_at=NOON + timedelta(minutes=1), **args)
    assert live.conversation_live_until == NOON + timedelta(minutes=1) and live.do_not_disturb == Window(1320, 480)


def test_decide_kills_a_waiting_candidate_whose_fact_was_superseded_and_names_the_fact():
    night = datetime(2026, 6, 10, 23, 0, tzinfo=UTC)  # do-not-disturb: it would wait...
    decision = decide(fresh(night), user(), night, based_on_facts=[7, 8], live_fact_ids={7})
    assert decision.hold is Hold.GROUNDS_GONE and decision.final_status is Status.SKIPPED  # ...but it is dead
    assert reason_of(decision, [7, 8], {7}) == "grounds_gone: fact 8 no longer live"
    assert decide(fresh(), user(), NOON, based_on_facts=[7], live_fact_ids={7}).send
    expired = decide(CandidateState(Status.CANDIDATE, NOON), user(), NOON, based_on_facts=[8], live_fact_ids=())
    assert expired.hold is Hold.EXPIRED  # the hard expiry keeps its own reason
