"""memory_nodes at scale: partitioned by user on PostgreSQL, touches HOT, vectors float16, dedupe per user

- PostgreSQL: ``memory_nodes`` becomes HASH-partitioned by ``user_id`` (``ELLA_MEMORY_PARTITIONS``, 32 by
  default, read here once), every index local to a partition; the primary key is ``(id, user_id)`` (a
  partitioned table's keys must hold the partition key; ``id`` first, so a lookup by id alone, as the
  re-embedding's keyset and ``mark_accessed`` do, is one probe per partition). Each partition keeps 20% of its pages
  free (fillfactor 80) for HOT updates.
- ``last_accessed_at`` leaves every index (``ix_memory_nodes_user_id_last_accessed_at`` is gone): a touch changes
  no indexed column, so it is a HOT update (measured in the README, "Memory at scale").
- ``dedupe_key`` is unique per user, ``(user_id, dedupe_key)``, instead of across every user.
- ``embedding_format`` names the stored vector's format (``ella.memory.vectors``): rows from before say ``f32``
  (the column's default), every new row ``f16``.
- ``story_chapters.thought_node_id`` loses its foreign key (a key to a partitioned table would have to name
  ``user_id`` too); ``models.forgetting`` clears the column when it deletes the node, as ON DELETE SET NULL did.
- ``pending_effects`` (PostgreSQL) is vacuumed after every 1,000 dead rows, whatever its size: a queue's rows are
  inserted and deleted within seconds, so its live size says nothing about its churn, and the default (20% of the
  table) lets a table that once held a backlog grow dead index entries that every sweep walks past.

Online on PostgreSQL: the partitioned table is built beside the old one (``memory_nodes_new``), a trigger on the
old one repeats every insert, update and delete into it, the rows are copied in batches of ``BATCH`` ids with a
commit each (``autocommit_block``; the progress is kept in ``memory_nodes_copy_progress``), and the names are
swapped in the migration's last transaction, the only one that takes ACCESS EXCLUSIVE on the old table (a
catch-up of the rows past the copy's last batch, the drop and the renames: milliseconds, see the README). Killed
at any point, a rerun of the upgrade picks up where the copy stopped: the preparation is skipped when done, and
every copy is ``ON CONFLICT DO NOTHING``. SQLite (the embedded default) keeps a plain table, altered in place.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine import Connection

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5_000
NEW = "memory_nodes_new"
PROGRESS = "memory_nodes_copy_progress"
MIRROR = "memory_nodes_mirror"  # the trigger and its function
CHAPTER_FK = "fk_story_chapters_thought_node_id_memory_nodes"
FILLFACTOR = 80

# The columns both tables share, in order (``embedding_format`` is new: rows copied take its default, f32).
COLUMNS = (
    "id", "user_id", "node_type", "created_at", "expires_at", "last_accessed_at", "subject", "predicate", "object",
    "description", "embedding", "embedding_model", "poignancy", "keywords", "depth", "evidence", "source_message_id",
    "conversation_id", "dedupe_key", "quarantine", "engine", "model_id", "prompt_kind", "prompt_version",
)  # fmt: skip
INDEXES = {  # name on the new table -> (final name, columns)
    f"ix_{NEW}_user_id_created_at": ("ix_memory_nodes_user_id_created_at", "user_id, created_at"),
    f"ix_{NEW}_user_id_node_type_created_at": (
        "ix_memory_nodes_user_id_node_type_created_at",
        "user_id, node_type, created_at",
    ),
    f"ix_{NEW}_user_id_id": ("ix_memory_nodes_user_id_id", "user_id, id"),
}
CONSTRAINTS = {f"pk_{NEW}": "pk_memory_nodes", f"uq_{NEW}_user_id_dedupe_key": "uq_memory_nodes_user_id_dedupe_key"}
EMBEDDING_COMMENT = "L2-normalised, in embedding_format (ella.memory.vectors)"
FORMAT_COMMENT = "f16 | f32 (rows stored before 0023)"


def partition_count() -> int:
    """``ELLA_MEMORY_PARTITIONS`` (or ``-x memory_partitions=N`` on alembic's command line)."""
    from alembic import context

    from adapters.settings import get_settings

    asked = context.get_x_argument(as_dictionary=True).get("memory_partitions")
    return int(asked) if asked else get_settings().memory_partitions


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        _upgrade_sqlite()
        return
    bind = op.get_bind()
    bind.exec_driver_sql("SET lock_timeout = '10s'")  # waiting behind a long query would stall every writer
    _prepare(bind, partition_count())
    with op.get_context().autocommit_block():
        copy_rows(bind)
    _swap(bind)
    op.execute(
        "ALTER TABLE pending_effects SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,"
        " autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000,"
        " autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000)"
    )


def _exists(bind: Connection, name: str) -> bool:
    return bind.exec_driver_sql("SELECT to_regclass(%(n)s) IS NOT NULL", {"n": name}).scalar() is True


def _prepare(bind: Connection, partitions: int) -> None:
    """The partitioned table, its partitions and indexes, the progress row and the mirror trigger. One
    transaction; skipped when a killed run already committed it."""
    if _exists(bind, NEW):
        return
    bind.exec_driver_sql(
        f"""
        CREATE TABLE {NEW} (
            id bigint NOT NULL DEFAULT nextval('memory_nodes_id_seq'::regclass),
            user_id varchar(128) NOT NULL,
            node_type varchar(8) NOT NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz,
            last_accessed_at timestamptz NOT NULL,
            subject varchar(200) NOT NULL,
            predicate varchar(120) NOT NULL,
            object varchar(400) NOT NULL,
            description text NOT NULL,
            embedding bytea NOT NULL,
            embedding_format varchar(8) NOT NULL DEFAULT 'f32',
            embedding_model varchar(64) NOT NULL,
            poignancy smallint NOT NULL,
            keywords text NOT NULL,
            depth smallint NOT NULL,
            evidence text NOT NULL,
            source_message_id varchar(200),
            conversation_id bigint,
            dedupe_key varchar(200),
            quarantine varchar(16),
            engine varchar(16),
            model_id varchar(64),
            prompt_kind varchar(32),
            prompt_version varchar(16),
            CONSTRAINT pk_{NEW} PRIMARY KEY (id, user_id),
            CONSTRAINT uq_{NEW}_user_id_dedupe_key UNIQUE (user_id, dedupe_key),
            CONSTRAINT fk_memory_nodes_user_id_users FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
            CONSTRAINT fk_memory_nodes_conversation_id_conversations FOREIGN KEY (conversation_id)
                REFERENCES conversations (id) ON DELETE SET NULL
        ) PARTITION BY HASH (user_id)
        """
    )
    for i in range(partitions):
        bind.exec_driver_sql(
            f"CREATE TABLE memory_nodes_p{i:02d} PARTITION OF {NEW}"
            f" FOR VALUES WITH (MODULUS {partitions}, REMAINDER {i}) WITH (fillfactor = {FILLFACTOR})"
        )
    for name, (_, columns) in INDEXES.items():
        bind.exec_driver_sql(f"CREATE INDEX {name} ON {NEW} ({columns})")
    # the columns' comments, as the old table has them (alembic compares them with the models')
    bind.exec_driver_sql(
        f"""
        DO $$ DECLARE c record; BEGIN
          FOR c IN SELECT a.attname, col_description('memory_nodes'::regclass, a.attnum) AS note
                   FROM pg_attribute a WHERE a.attrelid = 'memory_nodes'::regclass AND a.attnum > 0
                   AND NOT a.attisdropped AND col_description('memory_nodes'::regclass, a.attnum) IS NOT NULL
          LOOP EXECUTE format('COMMENT ON COLUMN {NEW}.%%I IS %%L', c.attname, c.note); END LOOP;
        END $$
        """
    )
    bind.exec_driver_sql(f"COMMENT ON COLUMN {NEW}.embedding IS '{EMBEDDING_COMMENT}'")
    bind.exec_driver_sql(f"COMMENT ON COLUMN {NEW}.embedding_format IS '{FORMAT_COMMENT}'")
    bind.exec_driver_sql(f"CREATE TABLE {PROGRESS} (last_id bigint NOT NULL)")
    bind.exec_driver_sql(f"INSERT INTO {PROGRESS} VALUES (0)")
    cols = ", ".join(COLUMNS)
    news = ", ".join(f"NEW.{c}" for c in COLUMNS)
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in COLUMNS if c not in ("id", "user_id"))
    bind.exec_driver_sql(
        f"""
        CREATE FUNCTION {MIRROR}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN
            DELETE FROM {NEW} WHERE id = OLD.id AND user_id = OLD.user_id;
            RETURN OLD;
          END IF;
          IF TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id THEN
            DELETE FROM {NEW} WHERE id = OLD.id AND user_id = OLD.user_id;
          END IF;
          INSERT INTO {NEW} ({cols}) VALUES ({news}) ON CONFLICT (id, user_id) DO UPDATE SET {sets};
          RETURN NEW;
        END $$
        """
    )
    # SHARE ROW EXCLUSIVE on memory_nodes while it is created: it waits for writes in flight, so every row
    # written before it is committed when the copy starts, and every row written after it is mirrored
    bind.exec_driver_sql(
        f"CREATE TRIGGER {MIRROR} AFTER INSERT OR UPDATE OR DELETE ON memory_nodes"
        f" FOR EACH ROW EXECUTE FUNCTION {MIRROR}()"
    )


def copy_rows(bind: Connection, batch: int = BATCH, stop_after: int | None = None) -> int:
    """Copy the old table's rows into the new one, ``batch`` ids a transaction, from where the last run stopped;
    the number of batches run. ``FOR KEY SHARE``: a row deleted while its batch is read is not copied back to
    life (the delete's trigger found nothing to delete yet); an update meanwhile is the trigger's to repeat.
    ``stop_after`` stops early (a test's stand-in for a kill)."""
    last = int(bind.exec_driver_sql(f"SELECT last_id FROM {PROGRESS}").scalar_one())
    top = int(bind.exec_driver_sql("SELECT coalesce(max(id), 0) FROM memory_nodes").scalar_one())
    cols = ", ".join(COLUMNS)
    runs = 0
    while last < top and (stop_after is None or runs < stop_after):
        upto = last + batch
        bind.exec_driver_sql(
            f"INSERT INTO {NEW} ({cols}) SELECT {cols} FROM memory_nodes WHERE id > %(a)s AND id <= %(b)s"
            f" FOR KEY SHARE ON CONFLICT (id, user_id) DO NOTHING",
            {"a": last, "b": upto},
        )
        bind.exec_driver_sql(f"UPDATE {PROGRESS} SET last_id = %(b)s", {"b": upto})
        last, runs = upto, runs + 1
    return runs


def _swap(bind: Connection, attempts: int = 30) -> None:
    """The one ACCESS EXCLUSIVE step, in the migration's last transaction (with the version row): the rows past
    the copy's last batch, then the old table and the trigger go and the new names are taken. A lock not granted
    within ``lock_timeout`` (a long query holds the table) is asked again, ``attempts`` times."""
    cols = ", ".join(COLUMNS)
    for attempt in range(attempts):
        try:
            with bind.begin_nested():
                bind.exec_driver_sql("LOCK TABLE memory_nodes IN ACCESS EXCLUSIVE MODE")
                bind.exec_driver_sql("LOCK TABLE story_chapters IN ACCESS EXCLUSIVE MODE")
            break
        except sa.exc.OperationalError:
            if attempt == attempts - 1:
                raise
            time.sleep(1)
    last = int(bind.exec_driver_sql(f"SELECT last_id FROM {PROGRESS}").scalar_one())
    bind.exec_driver_sql(
        f"INSERT INTO {NEW} ({cols}) SELECT {cols} FROM memory_nodes WHERE id > %(a)s"
        f" ON CONFLICT (id, user_id) DO NOTHING",
        {"a": last},
    )
    bind.exec_driver_sql(f"DROP TRIGGER {MIRROR} ON memory_nodes")
    bind.exec_driver_sql(f"DROP FUNCTION {MIRROR}()")
    bind.exec_driver_sql(f"ALTER TABLE story_chapters DROP CONSTRAINT IF EXISTS {CHAPTER_FK}")
    bind.exec_driver_sql(f"ALTER SEQUENCE memory_nodes_id_seq OWNED BY {NEW}.id")
    bind.exec_driver_sql("DROP TABLE memory_nodes")
    bind.exec_driver_sql(f"DROP TABLE {PROGRESS}")
    bind.exec_driver_sql(f"ALTER TABLE {NEW} RENAME TO memory_nodes")
    for name, final in CONSTRAINTS.items():
        bind.exec_driver_sql(f"ALTER TABLE memory_nodes RENAME CONSTRAINT {name} TO {final}")
    for name, (final, _) in INDEXES.items():
        bind.exec_driver_sql(f"ALTER INDEX {name} RENAME TO {final}")


def _upgrade_sqlite() -> None:
    # the chapters' key first: SQLite's batch mode drops and recreates memory_nodes, and a drop deletes its rows,
    # which ON DELETE SET NULL would carry to every chapter's thought_node_id
    with op.batch_alter_table("story_chapters") as batch:
        batch.drop_constraint(CHAPTER_FK, type_="foreignkey")
    with op.batch_alter_table("memory_nodes") as batch:
        batch.add_column(
            sa.Column("embedding_format", sa.String(8), nullable=False, server_default="f32", comment=FORMAT_COMMENT)
        )
        batch.alter_column("embedding", existing_type=sa.LargeBinary(), comment=EMBEDDING_COMMENT)
        batch.drop_index("ix_memory_nodes_user_id_last_accessed_at")
        batch.drop_constraint("uq_memory_nodes_dedupe_key", type_="unique")
        batch.create_unique_constraint("uq_memory_nodes_user_id_dedupe_key", ["user_id", "dedupe_key"])


def _widen_vectors(bind: Connection) -> None:
    """Rows stored as float16 back to float32, the only format before 0023 (a downgrade's first step)."""
    while True:
        rows = bind.exec_driver_sql(
            "SELECT id, user_id, embedding FROM memory_nodes WHERE embedding_format = 'f16' LIMIT 1000"
        ).all()
        if not rows:
            return
        for node_id, user_id, blob in rows:
            wide = np.frombuffer(bytes(blob), dtype=np.float16).astype(np.float32).tobytes()
            bind.execute(
                sa.text(
                    "UPDATE memory_nodes SET embedding = :b, embedding_format = 'f32' WHERE id = :i AND user_id = :u"
                ),
                {"b": wide, "i": node_id, "u": user_id},
            )


def downgrade() -> None:
    """Back to one plain table (not online: a downgrade is for a database you can stop). Fails if two users now
    share a ``dedupe_key``, which 0022's global unique key forbids."""
    bind = op.get_bind()
    _widen_vectors(bind)
    bind.execute(
        sa.text(  # chapters whose thought is gone (no foreign key kept them straight meanwhile)
            "UPDATE story_chapters SET thought_node_id = NULL WHERE thought_node_id IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM memory_nodes n WHERE n.id = story_chapters.thought_node_id)"
        )
    )
    if bind.dialect.name != "postgresql":
        with op.batch_alter_table("memory_nodes") as batch:  # before the chapters' key (see _upgrade_sqlite)
            batch.drop_constraint("uq_memory_nodes_user_id_dedupe_key", type_="unique")
            batch.create_unique_constraint("uq_memory_nodes_dedupe_key", ["dedupe_key"])
            batch.create_index("ix_memory_nodes_user_id_last_accessed_at", ["user_id", "last_accessed_at"])
            batch.alter_column("embedding", existing_type=sa.LargeBinary(), comment="float32, L2-normalised")
            batch.drop_column("embedding_format")
        with op.batch_alter_table("story_chapters") as batch:
            batch.create_foreign_key(CHAPTER_FK, "memory_nodes", ["thought_node_id"], ["id"], ondelete="SET NULL")
        return
    op.execute(
        "ALTER TABLE pending_effects RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,"
        " autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold,"
        " autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)"
    )
    op.execute("CREATE TABLE memory_nodes_plain (LIKE memory_nodes INCLUDING DEFAULTS INCLUDING COMMENTS)")
    op.execute("INSERT INTO memory_nodes_plain SELECT * FROM memory_nodes")
    op.execute("ALTER TABLE memory_nodes_plain DROP COLUMN embedding_format")
    op.execute("ALTER SEQUENCE memory_nodes_id_seq OWNED BY memory_nodes_plain.id")
    op.execute("DROP TABLE memory_nodes")
    op.execute("ALTER TABLE memory_nodes_plain RENAME TO memory_nodes")
    op.execute("COMMENT ON COLUMN memory_nodes.embedding IS 'float32, L2-normalised'")
    op.execute("ALTER TABLE memory_nodes ADD CONSTRAINT pk_memory_nodes PRIMARY KEY (id)")
    op.execute("ALTER TABLE memory_nodes ADD CONSTRAINT uq_memory_nodes_dedupe_key UNIQUE (dedupe_key)")
    op.execute(
        "ALTER TABLE memory_nodes ADD CONSTRAINT fk_memory_nodes_user_id_users FOREIGN KEY (user_id)"
        " REFERENCES users (id) ON DELETE CASCADE"
    )
    op.execute(
        "ALTER TABLE memory_nodes ADD CONSTRAINT fk_memory_nodes_conversation_id_conversations"
        " FOREIGN KEY (conversation_id) REFERENCES conversations (id) ON DELETE SET NULL"
    )
    for final, columns in INDEXES.values():
        op.execute(f"CREATE INDEX {final} ON memory_nodes ({columns})")
    op.execute("CREATE INDEX ix_memory_nodes_user_id_last_accessed_at ON memory_nodes (user_id, last_accessed_at)")
    op.create_foreign_key(
        CHAPTER_FK, "story_chapters", "memory_nodes", ["thought_node_id"], ["id"], ondelete="SET NULL"
    )
