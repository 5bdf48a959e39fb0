"""Alembic environment: the URL comes from Ella's settings (or the caller), never from an ini file."""

from __future__ import annotations

from alembic import context

import models
from adapters.db import make_engine
from adapters.settings import get_settings
from models.memory import not_a_partition

config = context.config
target_metadata = models.Base.metadata


def _url() -> str:
    return config.attributes.get("database_url") or get_settings().effective_database_url


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=True,
                compare_type=True,
                include_name=not_a_partition,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
