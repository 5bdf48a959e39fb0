"""Migration 0023 on a populated database: every row survives with its content, a copy killed midway finishes on
a rerun (no row lost, none twice, the writes made meanwhile kept), and the downgrade brings the old shape back."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import numpy as np
from alembic import command
from sqlalchemy import inspect, text

from adapters import db
from ella.memory import vectors
from migrations import __file__ as migrations_init
from models import Conversation, User
from models.memory import PARTITION, MemoryNode, node_rows
from tests.conftest import only_on

T0 = datetime(2026, 11, 1, tzinfo=UTC)
USERS = [f"u-{i}" for i in range(7)]
MIGRATIONS_OWN = {"alembic_version", "memory_nodes_new", "memory_nodes_copy_progress"}


def _migration() -> ModuleType:
    path = migrations_init.replace("__init__.py", "versions/0023_memory_at_scale.py")
    spec = importlib.util.spec_from_file_location("m0023", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _vector(i: int) -> bytes:
    v = np.random.default_rng(i).standard_normal(512).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32).tobytes()


def _populate(nodes_per_user: int = 12) -> None:
    """Users, conversations, nodes (every user, some with the same dedupe key text in another user), a chapter
    naming a thought node, and a pending effect: plain inserts of 0022's columns."""
    with db.session_scope() as session:  # the project's own models: tables 0023 leaves as they are
        session.add_all([User(id=u, created_at=T0) for u in USERS])
        session.flush()
        for u in USERS:
            session.add(Conversation(user_id=u, started_at=T0, last_message_at=T0, close_due_at=T0))
    with db.get_engine().begin() as conn:
        n = 0
        for u in USERS:
            for j in range(nodes_per_user):
                n += 1
                conn.execute(
                    text(
                        "INSERT INTO memory_nodes (user_id, node_type, created_at, last_accessed_at, subject,"
                        " predicate, object, description, embedding, embedding_model, poignancy, keywords, depth,"
                        " evidence, dedupe_key) VALUES (:u, :k, :t, :t, 'user', 'said', :o, :d, :e, 'm', :p,"
                        " '[]', 0, '[]', :key)"
                    ),
                    {
                        "u": u,
                        "k": "thought" if j % 3 == 0 else "event",
                        "t": T0 + timedelta(minutes=n),
                        "o": f"thing {n}",
                        "d": f"{u} said thing {n}",
                        "e": _vector(n),
                        "p": 1 + n % 9,
                        "key": f"perceive:{u}:{j}",
                    },
                )
        thought = conn.execute(text("SELECT id FROM memory_nodes WHERE node_type = 'thought' ORDER BY id")).scalar()
        conn.execute(
            text(
                "INSERT INTO story_chapters (user_id, period, period_start, period_end, title, summary, key_moments,"
                " cited_node_ids, thought_node_id, created_at) SELECT user_id, '2026-W45', :t, :t, 'A week', 'It"
                " rained', '[]', '[]', id, :t FROM memory_nodes WHERE id = :i"
            ),
            {"t": T0, "i": thought},
        )
        conn.execute(
            text(
                "INSERT INTO pending_effects (user_id, source, effects, created_at, next_at, attempts)"
                " VALUES ('u-0', 'm-1', '[]', :t, :t, 0)"
            ),
            {"t": T0},
        )


def _everything() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (memory_nodes without the column 0023 adds), ordered."""
    names = [
        t for t in inspect(db.get_engine()).get_table_names() if t not in MIGRATIONS_OWN and not PARTITION.fullmatch(t)
    ]
    out = {}
    with db.get_engine().connect() as conn:
        for table in names:
            cols = [c["name"] for c in inspect(conn).get_columns(table) if c["name"] != "embedding_format"]
            rows = conn.execute(text(f"SELECT {', '.join(cols)} FROM {table}")).all()
            out[table] = sorted(
                (tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows), key=repr
            )
    return out


def test_every_row_survives_the_upgrade_and_old_vectors_read_as_they_were(database_url):
    db.upgrade(revision="0022")
    _populate()
    before = _everything()
    db.upgrade()
    after = _everything()
    assert after == before
    assert sum(len(rows) for rows in before.values()) > len(USERS) * 12
    with db.session_scope() as session:
        rows = node_rows(session, "u-3")
        stored = {n.id: n for n in session.query(MemoryNode).filter(MemoryNode.user_id == "u-3")}
    assert len(rows) == 12
    assert {n.embedding_format for n in stored.values()} == {vectors.FLOAT32}
    old = {r[0]: r[10] for r in before["memory_nodes"]}  # column 10: embedding, in 0022's column order
    assert all(r.embedding == old[r.id] for r in rows)  # a float32 row reads back byte for byte


def test_new_rows_are_written_compact_and_read_back_as_float32(migrated_db):
    _populate(nodes_per_user=0)
    from models.memory import insert_node

    vector = _vector(1)
    with db.session_scope() as session:
        values = dict(user_id="u-1", node_type="event", subject="user", predicate="said", object="x",
                      description="the user said x", embedding=vector, embedding_model="m", poignancy=3,
                      dedupe_key="perceive:m-1")  # fmt: skip
        node_id = insert_node(session, values)
        assert insert_node(session, values) is None  # the same key for the same user: stored once
        assert insert_node(session, {**values, "user_id": "u-2"}) is not None  # another user's own key
    with db.session_scope() as session:
        node = session.get(MemoryNode, node_id)
        assert node is not None
        assert node.embedding_format == vectors.FLOAT16 and len(node.stored_embedding) == 1024
        got = np.frombuffer(node.embedding, dtype=np.float32)
        assert float(got @ np.frombuffer(vector, dtype=np.float32)) > 0.9999
        assert node_rows(session, "u-1")[0].embedding == node.embedding


@only_on("postgresql")
def test_a_copy_killed_midway_finishes_on_a_rerun_with_the_writes_made_meanwhile(database_url):
    """The preparation committed, two batches of ten copied, then the migration dies (here: stops); meanwhile
    old code writes to the old table (the mirror trigger repeats it). The rerun of ``upgrade`` skips the
    preparation, copies from the third batch on, and swaps: every row once, the delete and the update kept."""
    db.upgrade(revision="0022")
    _populate()
    m = _migration()
    engine = db.get_engine()
    with engine.begin() as conn:
        m._prepare(conn, 4)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        assert m.copy_rows(conn, batch=10, stop_after=2) == 2
        copied = conn.execute(text("SELECT count(*) FROM memory_nodes_new")).scalar()
    assert copied == 20
    with engine.begin() as conn:  # the old code's writes while the copy is away: a delete of a copied row,
        conn.execute(text("DELETE FROM memory_nodes WHERE id = 5"))  # an update of an uncopied one, an insert
        conn.execute(text("UPDATE memory_nodes SET last_accessed_at = :t WHERE id = 50"), {"t": T0 + timedelta(days=9)})
        conn.execute(
            text(
                "INSERT INTO memory_nodes (user_id, node_type, created_at, last_accessed_at, subject, predicate,"
                " object, description, embedding, embedding_model, poignancy, keywords, depth, evidence)"
                " VALUES ('u-6', 'event', :t, :t, 'user', 'said', 'late', 'a late one', :e, 'm', 2, '[]', 0, '[]')"
            ),
            {"t": T0, "e": _vector(999)},
        )
    before = _everything()
    db.forget_engine(database_url)
    db.upgrade()
    after = _everything()
    assert after == before
    ids = [r[0] for r in after["memory_nodes"]]
    assert len(ids) == len(set(ids)) == len(USERS) * 12
    assert 5 not in ids
    with db.get_engine().connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM pg_inherits WHERE inhparent = 'memory_nodes'::regclass")).scalar()
            == 4
        )
        assert conn.execute(text("SELECT to_regclass('memory_nodes_copy_progress')")).scalar() is None
        touched = conn.execute(text("SELECT last_accessed_at FROM memory_nodes WHERE id = 50")).scalar()
    assert touched == T0 + timedelta(days=9)


def test_the_downgrade_restores_0022_with_every_row_and_float32_vectors(database_url):
    db.upgrade(revision="0022")
    _populate()
    before = _everything()
    db.upgrade()
    with db.get_engine().begin() as conn:  # a row written compact after the upgrade
        blob, fmt = vectors.pack(_vector(7))
        conn.execute(
            text("UPDATE memory_nodes SET embedding = :b, embedding_format = :f WHERE id = 7"), {"b": blob, "f": fmt}
        )
    command.downgrade(db.alembic_config(), "0022")
    widened = vectors.unpack(blob, fmt)  # float32 again, as float16 rounded it
    expected = [r if r[0] != 7 else (*r[:10], widened, *r[11:]) for r in before["memory_nodes"]]
    assert _everything() == {**before, "memory_nodes": expected}
    assert "embedding_format" not in {c["name"] for c in inspect(db.get_engine()).get_columns("memory_nodes")}
