"""The README promises logs carry ids, never the words: a retry or a database error must not leak them."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.exc import OperationalError

from tests.conftest import wait_for
from workers.reliability import hide_sql_parameters


def test_a_database_error_prints_its_statement_without_the_bound_values():
    words = f"my secret {uuid.uuid4().hex[:6]}"
    try:
        try:
            raise OperationalError("UPDATE turns SET text = %(text)s", {"text": words}, Exception("gone"))
        except OperationalError as inner:
            raise RuntimeError("storing the turn failed") from inner
    except RuntimeError as exc:
        hide_sql_parameters(exc)
        assert words in repr(exc.__cause__.params)  # still there for code that needs it
        assert words not in str(exc.__cause__)


@pytest.mark.integration
def test_a_retried_task_logs_neither_its_arguments_nor_its_sql_parameters(start_worker):
    from adapters.settings import get_settings
    from workers.app import app

    worker = start_worker(concurrency=1, extra_args=["-I", "tests.support.slow_tasks"])
    words = f"please keep this private {uuid.uuid4().hex[:8]}"
    marker = f"{get_settings().redis_key_prefix}:privacy:{uuid.uuid4().hex[:8]}"
    result = app.send_task(
        "tests.fail_once_on_the_database",
        kwargs={"text": words, "marker": marker},
        kwargsrepr=repr({"marker": marker}),
        queue=get_settings().queue_cognition,
        ignore_result=False,
    )
    assert result.get(timeout=60) == "ok"
    log = worker.log_path.read_text(errors="replace")
    wait_for(lambda: worker.log_path.read_text(errors="replace").count("received") >= 2, 10, what="two deliveries")
    assert "retry" in log.lower()
    assert words not in log


def test_a_log_line_in_a_users_scope_names_their_pseudonym_never_their_id():
    import logging

    from workers.logs import ContextFilter, pseudonym, user_scope

    user = f"user-{uuid.uuid4().hex[:8]}"
    record = logging.LogRecord("tasks.x", logging.INFO, __file__, 1, "stored a turn of %s", (user,), None)
    with user_scope(user):
        assert ContextFilter().filter(record)
    assert user not in record.getMessage() and pseudonym(user) in record.getMessage()
    assert record.user_id == pseudonym(user)
    assert pseudonym(user).startswith("u:") and len(pseudonym(user)) == 14


def test_ella_users_key_prints_the_pseudonym_the_logs_name_a_user_by():
    import re

    from typer.testing import CliRunner

    from cli.main import cli
    from workers.logs import pseudonym

    result = CliRunner().invoke(cli, ["users", "key", "sam-42"])
    assert result.exit_code == 0 and result.stdout.strip() == pseudonym("sam-42")
    assert re.fullmatch(r"u:[0-9a-f]{12}", result.stdout.strip()) and "sam-42" not in result.stdout
