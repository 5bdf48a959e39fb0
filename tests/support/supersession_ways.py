"""Run a supersession test on both ways ``models.supersession`` can supersede: in steps, and in one statement.

Why: PostgreSQL supersedes in one writable CTE for speed, every other database in steps, and the two must
mean the same. A test marked ``@on_both_ways`` runs on SQLite in steps,
on PostgreSQL in steps (the one-statement dialects emptied) and on PostgreSQL in one statement; the fixture
also checks that the way it names is the way every ``supersede`` of the test took.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

import models.supersession as supersession

BACKENDS = [b.strip() for b in os.environ.get("ELLA_TEST_DATABASES", "sqlite,postgresql").split(",") if b.strip()]
WAYS = [
    pytest.param(backend, way, id=f"{backend}-{way}")
    for backend in BACKENDS
    for way in ("steps", "one_statement")
    if way == "steps" or backend in supersession.ONE_STATEMENT_DIALECTS
]


def on_both_ways(test: Any) -> Any:
    """Mark a test to run on every way (the module must import the ``supersession_way`` fixture)."""
    marked = pytest.mark.parametrize(("database_url", "supersession_way"), WAYS, indirect=True)(test)
    return pytest.mark.usefixtures("supersession_way")(marked)


@pytest.fixture
def supersession_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    way: str = request.param
    if way == "steps":
        monkeypatch.setattr(supersession, "ONE_STATEMENT_DIALECTS", frozenset())
    taken: list[str] = []

    def spy(name: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            taken.append(name)
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(supersession, "_in_steps", spy("steps", supersession._in_steps))
    monkeypatch.setattr(supersession, "_in_one_statement", spy("one_statement", supersession._in_one_statement))
    yield way
    assert set(taken) <= {way}, f"a {way} test superseded {sorted(set(taken))}"
