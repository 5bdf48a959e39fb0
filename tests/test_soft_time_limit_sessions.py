"""A soft time limit that fires while a statement runs ends the task as a soft time limit, not as a DB error.

Celery raises ``SoftTimeLimitExceeded`` from a signal handler; psycopg may be waiting for a statement's result
then. Cleaning the session up with a ROLLBACK on that busy connection failed with "another command is already in
progress", which replaced the soft time limit (issue 24.7: a dead letter in the notification dispatch's publish
step). Real PostgreSQL; the signal comes from a timer, as Celery's comes from its timer.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import text


@pytest.fixture
def soft_limit_in(database_url: str) -> Iterator[None]:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs a statement that waits on the server (pg_sleep)")

    def raise_soft_limit(*_: object) -> None:
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, raise_soft_limit)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("scope_name", ["autocommit_scope", "session_scope"])
def test_a_soft_time_limit_inside_a_statement_surfaces_as_itself_and_the_next_session_works(soft_limit_in, scope_name):
    from adapters import db

    scope = getattr(db, scope_name)
    with scope() as session:
        session.execute(text("SELECT 1"))  # connected before the timer starts

    with pytest.raises(SoftTimeLimitExceeded):  # was OperationalError: another command is already in progress
        with scope() as session:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            session.execute(text("SELECT pg_sleep(5)"))

    with scope() as session:
        assert session.execute(text("SELECT 42")).scalar() == 42
