"""The chaos suite's verdict as plain functions: answered once, duplicated, lost, recovery, garbage, summary.

Why: these counts are what ``make chaos`` reports; a miscount would hide a lost or duplicated reply.
"""

from __future__ import annotations

import pytest

from chaos.counting import first_landing, recovery_seconds, summary, tally
from chaos.garbage import is_failure_text, is_user_canon_about_ella
from chaos.harness import celery_hostname, compose_argv, instance_argv, instances, replicas

pytestmark = pytest.mark.domain


def test_a_message_with_exactly_one_reply_is_answered_once_two_is_duplicated_none_is_lost():
    counts = tally(["a", "b", "c", "d"], ["a", "b", "b", "", "d", "zz"])
    assert counts.as_dict() == {"sent": 4, "answered_once": 2, "lost": 1, "duplicated": 1, "stray": 1}


def test_a_message_sent_twice_by_the_gateway_is_one_message():
    assert tally(["a", "a"], ["a"]).as_dict() == {"sent": 1, "answered_once": 1, "lost": 0, "duplicated": 0, "stray": 0}


def test_notifications_without_in_reply_to_are_not_counted_as_replies():
    assert tally(["a"], ["", "", "a"]).stray == 0


def test_first_landing_takes_the_stream_clock_of_the_first_reply():
    landed = first_landing([("1000-0", "a"), ("2500-1", "b"), ("3000-0", "a"), ("4000-0", "")])
    assert landed == {"a": 1.0, "b": 2.5}


def test_recovery_is_until_the_last_message_sent_before_the_fault_cleared_was_answered():
    sent = {"before": 9.0, "during": 11.0, "after": 20.0}
    landed = {"before": 15.0, "during": 17.5, "after": 40.0}
    assert recovery_seconds(10.0, sent, landed, cleared_at=13.0) == 7.5


def test_a_lost_message_means_no_recovery():
    assert recovery_seconds(10.0, {"a": 11.0}, {}, cleared_at=12.0) is None


def test_failure_text_and_nul_are_garbage_ordinary_words_are_not():
    assert is_failure_text('Error code: 529 overloaded_error {"type": "error"}')
    assert is_failure_text("walk\x00ed")
    assert not is_failure_text("I had an error in my homework")
    assert not is_failure_text(None)


def test_canon_about_ella_from_a_user_is_garbage_a_user_claim_is_not():
    assert is_user_canon_about_ella("Ella", "canon", "user")
    assert is_user_canon_about_ella("ella's cat", "observed", "user")
    assert not is_user_canon_about_ella("ella", "user_claim", "user")
    assert not is_user_canon_about_ella("ella", "canon", "anchor")
    assert not is_user_canon_about_ella("Gabriella", "canon", "user")


def test_the_summary_adds_the_faults_and_keeps_the_slowest_recovery():
    lines = [
        {"sent": 10, "answered_once": 9, "lost": 1, "duplicated": 0, "garbage_stored": 2, "recover_s": None},
        {"sent": 5, "answered_once": 4, "lost": 0, "duplicated": 1, "garbage_stored": 0, "recover_s": 3.5},
        {"fault": "hung", "timed_out": 180},
    ]
    assert summary(lines) == {
        "faults": 3,
        "sent": 15,
        "answered_once": 13,
        "lost": 1,
        "duplicated": 1,
        "garbage_stored": 2,
        "max_recover_s": 3.5,
    }


def test_workers_run_the_compose_command_lines():
    argv = compose_argv("worker-inbound")
    assert argv[0].endswith("celery") and argv[1:4] == ["-A", "workers.app", "worker"]
    assert celery_hostname(argv) is not None and "%h" not in celery_hostname(argv)


def test_each_replica_of_a_compose_worker_gets_its_own_celery_node_name():
    names = [celery_hostname(instance_argv(i)) for i in instances("worker-inbound")]
    assert len(names) == replicas("worker-inbound") and len(set(names)) == len(names)
