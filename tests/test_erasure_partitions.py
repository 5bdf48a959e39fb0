"""The operator's disk step after an erasure rewrites, of the partitioned ``memory_nodes``, only the partition the
erased user's rows were routed to (and every table not partitioned), so the rest of the memory stream stays
unlocked while it runs."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from adapters import db
from adapters.disk_erasure import postgres_rewrite_targets, rewrite_postgres_for
from models import User
from models.memory import insert_node
from tests.conftest import only_on

USERS = ["erased-1", "kept-2", "kept-3", "kept-4"]


def _plant() -> dict[str, str]:
    """A node for each user; the partition PostgreSQL routed each one to."""
    with db.session_scope() as session:
        session.add_all([User(id=u) for u in USERS])
        session.flush()
        for u in USERS:
            insert_node(session, dict(user_id=u, node_type="event", subject="user", predicate="said", object="x",
                                      description=f"{u} said x", embedding=b"\0" * 16, embedding_model="m",
                                      poignancy=3))  # fmt: skip
    with db.get_engine().connect() as conn:
        rows = conn.execute(text("SELECT user_id, tableoid::regclass::text FROM memory_nodes")).all()
    return {u: p for u, p in rows}


@only_on("postgresql")
def test_only_the_erased_users_partition_of_memory_nodes_is_rewritten(migrated_db):
    routed = _plant()
    with create_engine(migrated_db).connect() as conn:
        targets = postgres_rewrite_targets(conn, ["erased-1"])
    partitions = [t for t in targets if t.startswith("memory_nodes_p")]
    assert partitions == [routed["erased-1"]]  # the routing PostgreSQL did, before or after the delete
    assert "inbound_messages" in targets and "pg_catalog.pg_statistic" in targets  # not partitioned: whole
    assert "memory_nodes" not in targets  # the partitioned parent holds no rows of its own


@only_on("postgresql")
def test_the_step_rewrites_every_target_and_the_users_rows_are_gone_after_it(migrated_db):
    routed = _plant()
    with db.session_scope() as session:
        session.execute(text("DELETE FROM users WHERE id = 'erased-1'"))
    done = rewrite_postgres_for(migrated_db, ["erased-1"])
    assert routed["erased-1"] in done["rewritten"]
    others = {routed[u] for u in USERS[1:]} - {routed["erased-1"]}  # partitions of the kept users only
    assert others and not others & set(done["rewritten"])
    with db.get_engine().connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM memory_nodes")).scalar() == 3
