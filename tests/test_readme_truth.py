"""Claims in the README that code can check, so the next drift fails a test instead of misleading a reader."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from ella.llm import kinds

pytestmark = pytest.mark.domain
README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _kind_tiers() -> set[str]:
    """Every tier a kind in ella/llm/kinds.py names (the tier its calls are made at)."""
    return {
        value.tier
        for _, value in inspect.getmembers(kinds, inspect.isclass)
        if isinstance(getattr(value, "tier", None), str) and value.__module__ == kinds.__name__
    }


def test_the_model_tiers_the_readme_lists_are_the_ones_the_kinds_call() -> None:
    found = re.search(r"The tiers called today: ([^.(]+)", README)
    assert found, "the README's Models paragraph lists the tiers called today"
    listed = {" ".join(t.split()).replace(" ", "_") for t in found.group(1).split(",")}
    assert listed == _kind_tiers()


def test_the_readme_does_not_say_no_job_uses_batches() -> None:
    """The three jobs on beat plan through ``tasks.jobs``, which queues their requests in Message Batches."""
    from ella.jobs import Job
    from tasks import jobs

    assert {job.value for job in Job} >= {"digest", "chapters", "arcs"}
    assert "submit(job.value" in inspect.getsource(jobs)
    assert "No job uses batches" not in README.replace("\n  ", " ")
