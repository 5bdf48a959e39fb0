"""The provenance columns every table of Ella's inner life carries, and the SQL form of the prompt rule.

Why a mixin: six tables (memory_nodes, world_facts, self_log, story_chapters, relationship_arcs,
notification_candidates) say what made each row the same way (``ella.provenance``); one definition keeps their
widths and meaning from drifting, and migration 0014 adds exactly these columns. NULL everywhere on a row
stored before 0014: nothing was recorded then, and the readers show it as ``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import String, and_, literal, not_, or_
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.elements import ColumnElement

from ella.provenance import INTERPRETATIONS, MODEL_ENGINES, OFFLINE, label


class Provenanced:
    """``engine`` / ``model_id`` / ``prompt_kind`` / ``prompt_version``: what made the row (``ella.provenance``)."""

    engine: Mapped[str | None] = mapped_column(String(16), comment="anthropic | offline | rules | operator")
    model_id: Mapped[str | None] = mapped_column(String(64), comment="the model that answered; empty for rules")
    prompt_kind: Mapped[str | None] = mapped_column(String(32), comment="the prompt kind, or the rule's name")
    prompt_version: Mapped[str | None] = mapped_column(String(16), comment="short hash of the kind's prompt")

    @property
    def provenance_label(self) -> str:
        return label(self.engine, self.model_id, self.prompt_kind, self.prompt_version)


def provenance_of(row: Any) -> dict[str, str | None]:
    """The four columns of a row (an ORM object or a ``Row``) as a dict, for JSON output."""
    return {key: getattr(row, key, None) for key in ("engine", "model_id", "prompt_kind", "prompt_version")}


def _nobody_said() -> str | None:
    return None


_prompt_engine: Callable[[], str | None] = _nobody_said


def use_prompt_engine(source: Callable[[], str | None]) -> None:
    """Say where the loaders learn the engine their rows are for (``adapters.db`` passes this process's
    configured provider). Why a source and not an argument: the engine is the process's, fixed by its settings,
    and every loader that feeds a prompt would otherwise take and pass it along unchanged."""
    global _prompt_engine
    _prompt_engine = source


def prompt_engine() -> str | None:
    """The engine this process's prompts go to (``anthropic``, ``offline``); None when nobody said."""
    return _prompt_engine()


def in_prompts(model: Any, running_engine: str | None = None) -> ColumnElement[bool]:
    """The rows of ``model`` (a ``Provenanced`` table) that may be put in a prompt of ``running_engine`` (by
    default this process's, ``prompt_engine()``).

    ``ella.provenance.shown_in_prompts`` as SQL: under a model engine, an interpretation the offline engine made
    (a thought node, a chapter, an arc) is left out. Every loader that feeds a prompt ANDs this into its WHERE
    clause (for memory nodes through ``models.memory.shown_to_model``); operators' views do not.
    """
    running_engine = running_engine or prompt_engine()
    if running_engine is None or running_engine not in MODEL_ENGINES:
        return literal(True)
    made_offline = model.engine == OFFLINE
    if model.__tablename__ in INTERPRETATIONS:
        return or_(model.engine.is_(None), not_(made_offline))
    if model.__tablename__ == "memory_nodes":
        return or_(model.engine.is_(None), not_(and_(made_offline, model.node_type == "thought")))
    return literal(True)
