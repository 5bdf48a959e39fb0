"""Scale: two schema revisions side by side at 100,000 users and 10,000,000 memory nodes (issue 35, item 7).

For each of ``--before`` (default ``0022``) and ``--after`` (default ``head``), in the same run, one after the
other (one scratch PostgreSQL database at a time: 10M nodes take tens of GB), a child process of this script:

1. makes a scratch database (``tests.support.scratch.create_database``) and migrates it to the revision
   (``adapters.db.upgrade``), with that revision's own code (below);
2. loads ``--users`` users and ``--nodes`` memory nodes by binary COPY (psycopg ``cursor.copy``): one user with
   100 nodes ("small"), one with 100,000 ("big"; fewer in a small run: a quarter of the nodes at most), the rest
   log-normally spread over the others, rows of all users interleaved in time order (as a live stream writes
   them; ids ascending). Columns are read from the database (``information_schema``), so a revision that adds,
   drops or partitions them needs no edit; a required column the bench does not know gets a typed filler.
   Vectors: random unit vectors of the configured embedder's dimension (``--embedder``, default ``semantic``:
   all-MiniLM-L6-v2, 384), encoded by the project's own draft builder (``ella.memory.nodes.memory_node`` with a
   stand-in embedder that returns the vector, then ``MemoryNodeDraft.columns()``): whatever bytes and format
   columns that revision's code writes, this writes (and when the builder leaves raw float32, a vector encoding
   function of that revision is looked for by name, or named with ``--encode``, and applied). Up to 4,096 such
   encoded vectors (one per 50 nodes) are reused over the rows (compression works per value, so sizes are those
   of distinct vectors). Descriptions are 60-120 characters.
   Indexes: the plain indexes of ``memory_nodes`` are dropped before the COPY and built after it, as
   ``pg_restore`` does (and as a bulk load should: a bulk build is faster and packs the b-trees); the indexes
   behind constraints (primary key, unique dedupe key) stay, since dropping them means dropping the constraints
   other tables' keys rest on. Then ``VACUUM (ANALYZE)``: the state a restored table settles into (hint bits set,
   statistics taken), so the first cold read does not pay for writing hint bits. Each measured user also gets an
   open conversation of 40 messages, and her world is seeded by a first reply-context load (the product's tick).
3. measures:
   - sizes: heap (main fork), index and TOAST (TOAST heap and its index) bytes of ``memory_nodes``, summed over
     its leaf partitions (``pg_partition_tree``; the table itself when not partitioned), per million nodes;
   - index tuples written per touch: ``--touches`` node touches through ``models.memory.mark_accessed`` (per
     call up to 10 random nodes of one random user, as a retrieval marks its results), then ``n_tup_upd`` and
     ``n_tup_hot_upd`` of ``pg_stat_user_tables`` summed over the leaves (after ``pg_stat_force_next_flush()``).
     A HOT update writes no index tuple; any other writes one into every index of the table; so per touch =
     (1 - HOT share) x the number of indexes of a leaf. Computed, not read: PostgreSQL counts no index inserts;
   - reply-context loads, cold and warm, p50 and p99 over ``--samples`` (p99 of a few samples is their maximum),
     for the small and the big user, two timings each: ``stream`` = ``adapters.memory_cache.user_memory`` in an
     ``autocommit_scope`` (the user's memory stream as retrieval gets it: newest-id query and, cold, every node
     of the user into a ``NodeIndex``), and ``context`` = the whole ``adapters.reply_service.load_reply_context``
     (prose on: world through its Redis watermarks, live facts, self-log, arc, chapter, history, memory stream).
     Cold: the user dropped from this process's memory cache and the engine disposed (a new connection); warm:
     the cache already holds the user (one warm-up call first). And ``rows``, cold only: the database's part of
     a cold stream, ``models.memory.node_rows`` alone (every node of the user as plain rows, a new connection).
     PostgreSQL's shared buffers and the OS page cache are not emptied (that needs a restart or root): "cold" is
     cold for the process, not for the disk;
   - the erasure disk step: the big user's rows deleted (``models.erasure.erase_user_rows``), then the step
     timed: a per-user disk step when the revision's code has one (``--disk-step module:function``, or found
     in ``adapters.disk_erasure`` by name, below), else the operator's step of today (``ANALYZE`` then ``VACUUM
     FULL`` of the database, as ``chaos/erasure_faults.operator_step``). Meanwhile a second connection samples
     ``pg_locks`` every 20 ms (strongest mode, on which relations: the whole table or some of its partitions)
     and a third reads 1,000 of the small user's nodes again and again with ``lock_timeout = 200ms``, counting
     reads that timed out (blocked).

Each revision runs with its own code: the current tree when the revision is its head, otherwise the tree of the
last commit whose migrations end at that revision (``git archive`` into a temporary directory), or ``--before-ref``
/ ``--after-ref``. So after 0023 is merged, ``--before 0022`` runs 0022's code against 0022's schema.

Human lines first, then, as the LAST line, one JSON object: both revisions' figures and their ratios
(after / before). ``--out FILE`` also writes everything there.

    python bench/scale.py [--before 0022] [--after head] [--users 100000] [--nodes 10000000]
    python bench/scale.py --users 10000 --nodes 200000 --samples 10 --touches 2000   # a quick run
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

TREE = Path(__file__).resolve().parents[1]
SMALL_NODES = 100
MODES = ("cold", "warm")
BIG_NODES = 100_000
POOL_VECTORS = 4096
CHUNK_ROWS = 500_000
LOCK_ORDER = (
    "AccessShareLock",
    "RowShareLock",
    "RowExclusiveLock",
    "ShareUpdateExclusiveLock",
    "ShareLock",
    "ShareRowExclusiveLock",
    "ExclusiveLock",
    "AccessExclusiveLock",
)
DISK_STEP_NAME = re.compile(
    r"(vacuum|rewrite|compact|disk).*(partition|user|postgres)|(partition|postgres).*(vacuum|rewrite|disk)"
)


def say(line: str) -> None:
    print(line, flush=True)


# --- the orchestrator: one child process per revision -----------------------------------------------------


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(TREE), *args], check=True, capture_output=True, text=True).stdout


def _revision_number(name: str) -> int | None:
    match = re.match(r"(\d+)", name)
    return int(match.group(1)) if match else None


def _tree_head() -> str | None:
    sys.path.insert(0, str(TREE))
    from adapters.db import migrations_head

    return migrations_head()


def code_ref_for(revision: str) -> str | None:
    """The git commit whose code goes with ``revision``: None for this tree (the revision is its head), else the
    parent of the oldest commit that added a migration after it."""
    head = _tree_head()
    if revision in ("head", head):
        return None
    wanted = _revision_number(revision)
    if wanted is None:
        return None
    for commit in reversed(_git("rev-list", "HEAD", "--", "migrations/versions").split()):
        names = _git("ls-tree", "--name-only", commit, "migrations/versions/").split()
        numbers = [n for n in (_revision_number(Path(p).name) for p in names) if n is not None]
        if numbers and max(numbers) > wanted:
            return f"{commit}^"
    return None


def checkout(ref: str, into: Path) -> Path:
    """The tree of ``ref`` in a new directory under ``into`` (``git archive``: no worktree bookkeeping)."""
    target = into / re.sub(r"[^A-Za-z0-9]", "_", ref)
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(TREE), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run_side(label: str, revision: str, code: Path, args: argparse.Namespace, sink: Callable[[str], None]) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        result_path = Path(out.name)
    command = [
        sys.executable, str(Path(__file__).resolve()), "--side", label, "--revision", revision, "--code", str(code),
        "--side-out", str(result_path), "--users", str(args.users), "--nodes", str(args.nodes),
        "--samples", str(args.samples), "--touches", str(args.touches), "--embedder", args.embedder,
        "--seed", str(args.seed),
    ]  # fmt: skip
    if args.keep:
        command.append("--keep")
    if args.disk_step:
        command += ["--disk-step", args.disk_step]
    if args.encode:
        command += ["--encode", args.encode]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    # stopped (kill PID): the child is stopped too, and drops its database on the way out
    signal.signal(signal.SIGTERM, lambda *_: (proc.terminate(), proc.wait(), sys.exit(143)))
    for line in proc.stdout:
        sink(line.rstrip("\n"))
    if proc.wait() != 0:
        raise SystemExit(f"the {label} side ({revision}) failed with exit code {proc.returncode}")
    figures = json.loads(result_path.read_text())
    result_path.unlink()
    return figures


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in d.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def ratios(before: dict, after: dict) -> dict[str, float | None]:
    """after / before for every number both have (None where before is 0)."""
    a, b = _flatten(after), _flatten(before)
    out: dict[str, float | None] = {}
    for key, value in b.items():
        other = a.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and isinstance(other, int | float):
            out[key] = None if value == 0 else round(other / value, 4)
    return out


def orchestrate(args: argparse.Namespace) -> None:
    lines: list[str] = []

    def sink(line: str) -> None:
        lines.append(line)
        say(line)

    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ella-scale-code-") as codes:
        for label, revision, ref in (("before", args.before, args.before_ref), ("after", args.after, args.after_ref)):
            ref = ref if ref is not None else code_ref_for(revision)
            code = TREE if ref is None else checkout(ref, Path(codes))
            sink(f"== {label}: revision {revision}, code {'this tree' if ref is None else ref}")
            figures[label] = run_side(label, revision, code, args, sink)
    sink("")
    sink("== summary (before -> after, ratio)")
    flat_b, flat_a, ratio = _flatten(figures["before"]), _flatten(figures["after"]), ratios(*figures.values())
    for key in flat_b:
        if key in ratio:
            sink(f"{key:48s} {flat_b[key]!s:>16} -> {flat_a.get(key)!s:>16}  x{ratio[key]}")
    result = {
        "bench": "scale",
        "params": {"users": args.users, "nodes": args.nodes, "samples": args.samples, "touches": args.touches,
                   "embedder": args.embedder, "before": args.before, "after": args.after},
        "before": figures["before"],
        "after": figures["after"],
        "ratios": ratio,
    }  # fmt: skip
    sink(json.dumps(result, sort_keys=True))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


# --- one revision, in its own process ----------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else 0.0


class Schema:
    """What the bench needs to know of a table, read from the database."""

    def __init__(self, conn: Any, table: str) -> None:
        self.table = table
        rows = conn.execute(
            """
            SELECT column_name, udt_name, is_nullable = 'NO', column_default IS NOT NULL OR is_identity = 'YES'
                   OR is_generated = 'ALWAYS'
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = %s
            ORDER BY ordinal_position
            """,
            (table,),
        ).fetchall()
        self.types = {name: udt for name, udt, _, _ in rows}
        self.required = [name for name, _, not_null, has_default in rows if not_null and not has_default]
        kind = conn.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()
        self.partitioned = kind is not None and kind[0] == "p"

    def leaves(self, conn: Any) -> list[str]:
        """The relations holding the rows: the leaf partitions, or the table itself."""
        if not self.partitioned:
            return [self.table]
        rows = conn.execute("SELECT relid::regclass::text FROM pg_partition_tree(%s) WHERE isleaf", (self.table,))
        return [r[0] for r in rows]

    def columns_for(self, known: dict[str, Any]) -> list[str]:
        """The columns a COPY writes: those ``known`` has that the table has, and every required one."""
        cols = [c for c in self.types if c in known]
        return cols + [c for c in self.required if c not in known]


def filler(udt: str, now: datetime) -> Any:
    """A value for a required column the bench knows nothing of (a later revision's)."""
    if udt in ("int2", "int4", "int8", "numeric"):
        return 0
    if udt in ("float4", "float8"):
        return 0.0
    if udt == "bool":
        return False
    if udt.startswith("timestamp") or udt == "date":
        return now
    if udt == "bytea":
        return b""
    if udt in ("json", "jsonb"):
        from psycopg.types.json import Jsonb

        return Jsonb({})
    return ""


WORDS = """walked dog park morning coffee sister called about the interview bought new running shoes felt tired after
work cooked pasta for dinner with friends talked about moving to Lisbon next spring finished reading the novel
booked dentist appointment for Thursday missed the train again sunny weekend hike mountains planning a birthday
party for mum worried about the exam results guitar lesson went well watched a film late night rain stayed home
colleague shared good news project deadline moved piano practice garden tomatoes growing finally fixed the bike
""".split()
NODE_TYPES = ("event",) * 7 + ("chat",) + ("thought",) * 2


def descriptions(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` sentences of 60-120 characters."""
    out = []
    for _ in range(n):
        target = int(rng.integers(60, 121))
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < target:
            words.append(WORDS[int(rng.integers(len(WORDS)))])
        out.append(" ".join(words)[:target].strip().capitalize() + ".")
    return out


class StandIn:
    """An embedder that returns the vector it is given: so the project's own draft builder encodes our vectors."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim
        self.vector = np.zeros(dim, dtype=np.float32)

    def embed(self, texts: Any) -> np.ndarray:
        return np.repeat(self.vector[None, :], len(texts), axis=0)


def embedder_identity(name: str) -> tuple[str, int]:
    """(model_id, dim) of the configured embedder, without loading its weights when the class says them."""
    from ella import embeddings

    classes = {"semantic": "SemanticEmbedder", "multilingual": "MultilingualEmbedder"}
    cls = getattr(embeddings, classes.get(name, ""), None)
    if (
        cls is not None
        and isinstance(getattr(cls, "model_id", None), str)
        and isinstance(getattr(cls, "dim", None), int)
    ):
        return cls.model_id, cls.dim
    made = embeddings.make_embedder(name)
    return made.model_id, made.dim


def encoded_pool(
    rng: np.random.Generator, model_id: str, dim: int, now: datetime, n: int, encoder: str | None
) -> tuple[list[dict], str]:
    """``n`` rows' worth of the columns the project's draft builder writes for a vector (the
    embedding and whatever format columns come with it); and how they were encoded."""
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    try:
        from ella.memory.nodes import Triple, memory_node
        from ella.provenance import by_rule

        stand_in = StandIn(model_id, dim)
        pool = []
        for vector in vectors:
            stand_in.vector = vector
            draft = memory_node(stand_in, user_id="u", node_type="event", description="x", at=now,  # type: ignore[arg-type]
                                triple=Triple("u", "did", "x"), poignancy=3, dedupe_key="k",
                                provenance=by_rule("bench_scale"))  # fmt: skip
            pool.append(draft.columns())
        how = "ella.memory.nodes.memory_node"
    except Exception as exc:  # noqa: BLE001  (a revision whose builder differs: today's float32 bytes)
        say(f"  (the project's draft builder did not run: {exc!r}; vectors as float32 bytes)")
        pool, how = [{"embedding": v.tobytes(), "embedding_model": model_id} for v in vectors], "float32 tobytes"
    named, encode = find_encoder(encoder)
    if encode is not None and all(p["embedding"] == v.tobytes() for p, v in zip(pool[:8], vectors, strict=False)):
        # the builder left raw float32: the revision encodes elsewhere (at insert), with this function
        for columns, vector in zip(pool, vectors, strict=True):
            encoded = encode(vector)
            if isinstance(encoded, tuple):  # (blob, its format): ella.memory.vectors.pack since migration 0023
                encoded = {"embedding": bytes(encoded[0]), "embedding_format": encoded[1]}
            columns.update(encoded if isinstance(encoded, dict) else {"embedding": bytes(encoded)})
        how += f", then {named}"
    return pool, how


ENCODER_MODULES = ("models.memory", "ella.memory.nodes", "ella.embeddings", "ella.memory.vectors", "models.vectors")
ENCODER_NAME = re.compile(r"^(encode|pack)(_?(vector|embedding)s?)?$|^(vector|embedding)_(bytes|blob)$")


def find_encoder(named: str | None) -> tuple[str, Callable[[np.ndarray], Any] | None]:
    """The revision's vector encoding function: ``module:function`` when named, else one of ``ENCODER_MODULES``
    whose name says so (``encode_vector``, ``pack_embedding``, ``vector_bytes``...); None: the builder's bytes."""
    if named:
        module, _, name = named.partition(":")
        return named, getattr(importlib.import_module(module), name)
    for module_name in ENCODER_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if ENCODER_NAME.match(name) and fn.__module__ == module.__name__:
                return f"{module_name}:{name}", fn
    return "", None


def node_counts(rng: np.random.Generator, users: int, nodes: int) -> tuple[np.ndarray, int, int]:
    """Nodes per user: user 0 the big one, user 1 the small one, the rest log-normal."""
    big = min(BIG_NODES, nodes // 4)
    small = min(SMALL_NODES, max(1, nodes // 100))
    rest = nodes - big - small
    weights = rng.lognormal(0.0, 1.0, users - 2)
    counts = np.concatenate([[big, small], rng.multinomial(rest, weights / weights.sum())])
    return counts.astype(np.int64), big, small


def user_id(i: int) -> str:
    return {0: "scale-big", 1: "scale-small"}.get(i, f"u{i:07d}")


@contextlib.contextmanager
def raw(url: str, autocommit: bool = True) -> Iterator[Any]:
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=autocommit) as conn:
        yield conn


def copy_rows(conn: Any, schema: Schema, columns: list[str], rows: Iterator[tuple]) -> int:
    from psycopg import sql

    stmt = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
        sql.Identifier(schema.table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    n = 0
    with conn.cursor() as cur, cur.copy(stmt) as copy:
        copy.set_types([schema.types[c] for c in columns])
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


def load_users(conn: Any, users: int, now: datetime) -> None:
    try:  # where a revision's code keeps it: adapters.turn_context since issue 35, adapters.reply_service before
        from adapters.turn_context import new_user_defaults
    except ImportError:
        from adapters.reply_service import new_user_defaults  # type: ignore[attr-defined,no-redef]
    from adapters.settings import get_settings

    schema = Schema(conn, "users")
    known: dict[str, Any] = {"id": "", "created_at": now, **new_user_defaults(get_settings())}
    columns = schema.columns_for(known)
    base = [known.get(c, filler(schema.types[c], now)) for c in columns]
    at = columns.index("id")

    def rows() -> Iterator[tuple]:
        for i in range(users):
            row = list(base)
            row[at] = user_id(i)
            yield tuple(row)

    copy_rows(conn, schema, columns, rows())
    conn.commit()


def plain_indexes(conn: Any, table: str) -> list[tuple[str, str]]:
    """(name, definition) of the table's indexes that no constraint owns."""
    rows = conn.execute(
        """
        SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
        WHERE i.indrelid = %s::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        """,
        (table,),
    ).fetchall()
    return [(name, definition) for name, definition in rows]


def load_nodes(url: str, counts: np.ndarray, rng: np.random.Generator, pool: list[dict], now: datetime) -> dict:
    """COPY the nodes (plain indexes dropped first, built after), VACUUM (ANALYZE); seconds per phase."""
    timings = {}
    with raw(url, autocommit=False) as conn:
        schema = Schema(conn, "memory_nodes")
        indexes = plain_indexes(conn, "memory_nodes")
        for name, _ in indexes:
            conn.execute(f"DROP INDEX {name}")
        conn.commit()
        owner = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        rng.shuffle(owner)  # users' rows interleaved, as a live stream writes them
        total = len(owner)
        texts = descriptions(rng, 20_000)
        start = now - timedelta(days=730)
        step = timedelta(days=729) / max(total, 1)
        kinds = rng.integers(0, len(NODE_TYPES), total)
        text_of = rng.integers(0, len(texts), total)
        vector_of = rng.integers(0, len(pool), total)
        poignancy = rng.integers(1, 10, total)
        sample = {
            "user_id": "", "node_type": "event", "created_at": now, "last_accessed_at": now, "expires_at": None,
            "subject": "", "predicate": "", "object": "", "description": "", "poignancy": 1, "keywords": "[]",
            "depth": 0, "evidence": "[]", "dedupe_key": "", **pool[0],
        }  # fmt: skip
        sample.pop("id", None)
        columns = schema.columns_for(sample)
        fixed = {c: sample.get(c, filler(schema.types[c], now)) for c in columns}
        per_row = ("user_id", "created_at", "last_accessed_at", "description", "node_type", "poignancy", "dedupe_key",
                   "subject", "predicate", "object")  # fmt: skip
        pool_cols = [c for c in columns if c in pool[0] and c not in per_row]
        shape = f"partitioned, {len(schema.leaves(conn))} leaves" if schema.partitioned else "not partitioned"
        say(f"  memory_nodes: {len(columns)} columns written ({', '.join(columns)}); {shape}; "
            f"{len(indexes)} plain indexes dropped for the load")  # fmt: skip

        def rows(lo: int, hi: int) -> Iterator[tuple]:
            row = dict(fixed)
            for i in range(lo, hi):
                uid = user_id(int(owner[i]))
                at = start + step * i
                text = texts[int(text_of[i])]
                words = text.split(" ", 3)
                row.update(
                    user_id=uid, node_type=NODE_TYPES[int(kinds[i])], created_at=at, last_accessed_at=at,
                    description=text, subject=uid, predicate=words[1] if len(words) > 1 else "did",
                    object=text[:60], poignancy=int(poignancy[i]), dedupe_key=f"scale:{uid}:{i}",
                    keywords=json.dumps(words[:3]),
                )  # fmt: skip
                encoded = pool[int(vector_of[i])]
                for c in pool_cols:
                    row[c] = encoded[c]
                yield tuple(row[c] for c in columns)

        t0 = time.perf_counter()
        for lo in range(0, total, CHUNK_ROWS):
            copy_rows(conn, schema, columns, rows(lo, min(total, lo + CHUNK_ROWS)))
            conn.commit()
            say(f"  copied {min(total, lo + CHUNK_ROWS):,} / {total:,} nodes ({time.perf_counter() - t0:.0f} s)")
        timings["copy_s"] = round(time.perf_counter() - t0, 1)
        conn.autocommit = True
        conn.execute("SET maintenance_work_mem = '1GB'")
        t0 = time.perf_counter()
        for _, definition in indexes:
            # a partitioned table's index reads "ON ONLY parent" (the parent alone): built here on every partition
            conn.execute(definition.replace(" ON ONLY ", " ON ", 1))
        timings["index_build_s"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        conn.execute("VACUUM (ANALYZE) memory_nodes")
        timings["vacuum_analyze_s"] = round(time.perf_counter() - t0, 1)
    return timings


def add_history(user: str, now: datetime) -> None:
    """An open conversation of 40 messages (the history a reply shows) for a measured user."""
    from adapters.db import session_scope
    from models.conversation import Conversation
    from models.message import InboundMessage

    with session_scope() as session:
        conv = Conversation(user_id=user, started_at=now - timedelta(minutes=40), last_message_at=now,
                            close_due_at=now + timedelta(hours=6))  # fmt: skip
        session.add(conv)
        session.flush()
        for i in range(40):
            session.add(InboundMessage(message_id=f"scale-{user}-{i}", user_id=user, conversation_id=conv.id,
                                       text=f"message {i}: how was the hike, and did you finish the book?",
                                       sent_at=now - timedelta(minutes=40 - i)))  # fmt: skip


def sizes(url: str, nodes: int) -> dict:
    """Heap, index and TOAST bytes of memory_nodes over its leaves, and per million nodes."""
    with raw(url) as conn:
        schema = Schema(conn, "memory_nodes")
        leaves = schema.leaves(conn)
        heap = index = toast = 0
        for leaf in leaves:
            h, i, t = conn.execute(
                """SELECT pg_relation_size(c.oid), pg_indexes_size(c.oid),
                          COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)
                   FROM pg_class c WHERE c.oid = %s::regclass""",
                (leaf,),
            ).fetchone()
            heap, index, toast = heap + h, index + i, toast + t
        per = 1_000_000 / max(nodes, 1)
        indexes = conn.execute("SELECT count(*) FROM pg_index WHERE indrelid = %s::regclass", (leaves[0],)).fetchone()
        options = conn.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", (leaves[0],)).fetchone()[0]
    fillfactor = next((int(o.split("=")[1]) for o in options or [] if o.startswith("fillfactor=")), 100)
    return {
        "partitions": len(leaves) if schema.partitioned else 0,
        "indexes_per_leaf": int(indexes[0]),
        "fillfactor": fillfactor,
        "heap_bytes": heap, "index_bytes": index, "toast_bytes": toast,
        "heap_bytes_per_million": round(heap * per), "index_bytes_per_million": round(index * per),
        "toast_bytes_per_million": round(toast * per),
        "total_bytes_per_million": round((heap + index + toast) * per),
    }  # fmt: skip


def update_counts(url: str) -> tuple[int, int]:
    with raw(url) as conn:
        leaves = Schema(conn, "memory_nodes").leaves(conn)
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT COALESCE(sum(n_tup_upd), 0), COALESCE(sum(n_tup_hot_upd), 0) FROM pg_stat_user_tables "
            "WHERE relid = ANY(%s::regclass[])",
            (leaves,),
        ).fetchone()
    return int(row[0]), int(row[1])


def touches(url: str, n: int, rng: np.random.Generator, users: int, indexes: int) -> dict:
    """``n`` node touches through ``models.memory.mark_accessed``: per call, up to 10 random nodes of one random
    user (a retrieval marks its results, all of one user); index tuples written per touch."""
    from sqlalchemy import text

    from adapters.db import session_scope
    from models.memory import mark_accessed

    picked = [user_id(int(i)) for i in rng.integers(2, users, 3 * -(-n // 10))]  # not the two measured users
    with raw(url) as conn:
        conn.execute("SELECT setseed(0.35)")
        plan = conn.execute(
            "SELECT u, ARRAY(SELECT id FROM memory_nodes WHERE user_id = u ORDER BY random() LIMIT 10) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(u, o) ORDER BY o",
            (picked,),
        ).fetchall()
    by_user = "user_id" in inspect.signature(mark_accessed).parameters  # a revision that scopes touches by user
    before = update_counts(url)
    done = calls = 0
    t0 = time.perf_counter()
    for i, (uid, ids) in enumerate(plan):
        ids = sorted(ids)[: n - done]
        if not ids:
            continue
        calls += 1
        with session_scope() as session:
            if by_user:
                mark_accessed(session, ids, datetime.now(UTC), user_id=uid)  # type: ignore[call-arg]
            else:
                mark_accessed(session, ids, datetime.now(UTC))
            if i == len(plan) - 1 or done + len(ids) >= n:
                session.execute(text("SELECT pg_stat_force_next_flush()"))  # counted when this commits
        done += len(ids)
        if done >= n:
            break
    elapsed = time.perf_counter() - t0
    deadline = time.monotonic() + 10
    while True:  # the counters arrive once the backend flushes (forced above, else within a second)
        after = update_counts(url)
        if after[0] - before[0] >= done or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    updated, hot = after[0] - before[0], after[1] - before[1]
    hot_share = hot / updated if updated else 0.0
    return {
        "touches": done, "updated": updated, "hot_updates": hot, "hot_share": round(hot_share, 4),
        "index_tuples_per_touch": round((1 - hot_share) * indexes, 3),
        "mark_accessed_call_ms_mean": round(1000 * elapsed / max(calls, 1), 3),
    }  # fmt: skip


def reply_loads(url: str, users: dict[str, str], samples: int, now: datetime) -> dict:
    """Cold and warm timings (ms) of the memory stream and the whole reply context, per measured user."""
    from adapters import db
    from adapters.embedding_cache import shared_embedder
    from adapters.memory_cache import memory_cache, user_memory

    try:  # as new_user_defaults: the reply's reads moved to adapters.turn_context with issue 35
        from adapters.turn_context import load_reply_context
    except ImportError:
        from adapters.reply_service import load_reply_context  # type: ignore[attr-defined,no-redef]
    from ella.contract import IngestPayload
    from models.memory import node_rows

    embedder = shared_embedder()
    out: dict[str, dict] = {}
    for size, uid in users.items():
        payload = IngestPayload(message_id=f"scale-ask-{uid}", user_id=uid, sent_at=now,
                                text="How was the hike? Did you finish the book you were reading?")  # fmt: skip
        load_reply_context(payload, now)  # her world's first tick (anchors written), as a first message does

        def stream(uid: str = uid) -> int:
            with db.autocommit_scope() as session:
                return len(user_memory(session, uid, embedder))

        def context(payload: IngestPayload = payload) -> int:
            return len(load_reply_context(payload, now).nodes)

        def rows(uid: str = uid) -> int:
            with db.autocommit_scope() as session:
                return len(node_rows(session, uid))

        figures: dict[str, Any] = {}
        for what, call, modes in (("rows", rows, ("cold",)), ("stream", stream, MODES), ("context", context, MODES)):
            for mode in modes:
                times = []
                for _ in range(samples):
                    if mode == "cold":
                        memory_cache().drop(uid)
                        db.forget_engine(url)  # a new connection
                    else:
                        call()  # the cache holds the user
                    t0 = time.perf_counter()
                    held = call()
                    times.append(time.perf_counter() - t0)
                figures[f"{what}_{mode}_p50_ms"] = round(1000 * percentile(times, 50), 2)
                figures[f"{what}_{mode}_p99_ms"] = round(1000 * percentile(times, 99), 2)
            figures["nodes_loaded"] = held
        out[size] = figures
        say(f"  {size} user ({figures['nodes_loaded']:,} nodes): stream cold p50 {figures['stream_cold_p50_ms']} ms "
            f"p99 {figures['stream_cold_p99_ms']} ms, warm p50 {figures['stream_warm_p50_ms']} ms "
            f"p99 {figures['stream_warm_p99_ms']} ms; context cold p50 {figures['context_cold_p50_ms']} ms "
            f"p99 {figures['context_cold_p99_ms']} ms, warm p50 {figures['context_warm_p50_ms']} ms "
            f"p99 {figures['context_warm_p99_ms']} ms; of the cold stream, the rows read (node_rows) p50 "
            f"{figures['rows_cold_p50_ms']} ms p99 {figures['rows_cold_p99_ms']} ms")  # fmt: skip
    return out


def find_disk_step(named: str | None) -> tuple[str, Callable[..., Any] | None]:
    """The revision's per-user PostgreSQL disk step: ``module:function`` when named, else a public function of
    ``adapters.disk_erasure`` whose name says so and which takes a user id; None: today's operator step."""
    if named:
        module, _, name = named.partition(":")
        return named, getattr(importlib.import_module(module), name)
    with contextlib.suppress(ImportError):
        module = importlib.import_module("adapters.disk_erasure")
        if hasattr(module, "rewrite_postgres_for"):  # migration 0023's step (its targets are a helper of it)
            return "adapters.disk_erasure:rewrite_postgres_for", module.rewrite_postgres_for
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or fn.__module__ != module.__name__ or not DISK_STEP_NAME.search(name):
                continue
            params = inspect.signature(fn).parameters
            if any("user" in p for p in params):
                return f"adapters.disk_erasure:{name}", fn
    return "operator step: ANALYZE; VACUUM FULL (chaos/erasure_faults.operator_step)", None


def call_disk_step(fn: Callable[..., Any], url: str, uid: str) -> Any:
    """Call a per-user disk step with what its parameters name: an engine, a session or a connection, the user."""
    from sqlalchemy import create_engine

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        kwargs: dict[str, Any] = {}
        with engine.connect() as conn:
            for name in inspect.signature(fn).parameters:
                if name == "user_ids":
                    kwargs[name] = [uid]
                elif "user" in name:
                    kwargs[name] = uid
                elif name == "url":
                    kwargs[name] = url
                elif name == "engine":
                    kwargs[name] = engine
                elif name in ("conn", "connection"):
                    kwargs[name] = conn
                elif name == "session":
                    from sqlalchemy.orm import Session

                    kwargs[name] = Session(bind=conn)
            return fn(**kwargs)
    finally:
        engine.dispose()


def erasure(url: str, victim: str, reader_user: str, disk_step: str | None) -> dict:
    """Delete ``victim``'s rows, then time the disk step while sampling locks and reading another user."""
    from sqlalchemy import create_engine, text

    from adapters import db
    from adapters.db import session_scope
    from models.erasure import erase_user_rows

    with contextlib.suppress(ImportError):
        importlib.import_module("tasks")  # every table's eraser registered (as in a worker)
    with session_scope() as session:
        deleted = erase_user_rows(session, victim)
    db.forget_engine(url)
    name, fn = find_disk_step(disk_step)
    with raw(url) as conn:
        family = Schema(conn, "memory_nodes")
        leaves = set(family.leaves(conn))
        toast_rows = conn.execute(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = ANY(%s::regclass[]) AND reltoastrelid <> 0",
            (list(leaves),),
        ).fetchall()
    toasts = {r[0] for r in toast_rows}
    locks: dict[str, str] = {}  # relation -> strongest mode seen
    reads = {"ok": 0, "blocked": 0, "max_ms": 0.0}
    at_once = [0]  # the most leaves of memory_nodes held AccessExclusive in one sample
    done = threading.Event()

    def sample() -> None:
        with raw(url) as conn:
            me = conn.info.backend_pid
            while not done.is_set():
                now_exclusive = 0
                for rel, mode in conn.execute(
                    "SELECT l.relation::regclass::text, l.mode FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
                    " WHERE d.datname = current_database() AND l.granted AND l.relation IS NOT NULL AND l.pid <> %s"
                    " AND l.pid <> ALL(%s)",
                    (me, reader_pids),
                ):
                    if LOCK_ORDER.index(mode) > LOCK_ORDER.index(locks.get(rel, LOCK_ORDER[0])) or rel not in locks:
                        locks[rel] = mode
                    now_exclusive += mode == "AccessExclusiveLock" and rel in leaves
                at_once[0] = max(at_once[0], now_exclusive)
                time.sleep(0.02)

    reader_pids: list[int] = []

    def read() -> None:
        import psycopg

        with raw(url) as conn:
            reader_pids.append(conn.info.backend_pid)
            conn.execute("SET lock_timeout = '200ms'")
            while not done.is_set():
                t0 = time.perf_counter()
                try:
                    conn.execute("SELECT count(*) FROM (SELECT id FROM memory_nodes WHERE user_id = %s LIMIT 1000) s",
                                 (reader_user,)).fetchone()  # fmt: skip
                    reads["ok"] += 1
                except psycopg.errors.LockNotAvailable:
                    reads["blocked"] += 1
                reads["max_ms"] = max(reads["max_ms"], 1000 * (time.perf_counter() - t0))
                time.sleep(0.02)

    threads = [threading.Thread(target=read), threading.Thread(target=sample)]
    threads[0].start()
    time.sleep(0.3)  # the reader's pid known before sampling starts
    threads[1].start()
    time.sleep(0.1)
    t0 = time.perf_counter()
    if fn is None:
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text("SET lock_timeout = '30s'"))
                conn.execute(text("ANALYZE"))
                conn.execute(text("VACUUM FULL"))
        finally:
            engine.dispose()
    else:
        call_disk_step(fn, url, victim)
    step_s = time.perf_counter() - t0
    time.sleep(0.1)
    done.set()
    for t in threads:
        t.join()
    on_nodes = {rel: mode for rel, mode in locks.items() if rel in leaves | toasts | {"memory_nodes"}}
    strongest = max(locks.values(), key=LOCK_ORDER.index) if locks else None
    exclusive_nodes = sorted(r for r, m in on_nodes.items() if m == "AccessExclusiveLock" and r not in toasts)
    if not exclusive_nodes:
        scope = "none"
    elif not family.partitioned or "memory_nodes" in exclusive_nodes and len(exclusive_nodes) > len(leaves):
        scope = "whole table"
    else:
        scope = f"{len([r for r in exclusive_nodes if r != 'memory_nodes'])} of {len(leaves)} partitions"
    return {
        "step": name,
        "deleted_nodes": int(deleted.get("memory_nodes", 0)),
        "step_s": round(step_s, 3),
        "strongest_lock": strongest,
        "memory_nodes_exclusive_scope": scope,
        "relations_locked": len(locks),
        "memory_nodes_relations_exclusive": len(exclusive_nodes),
        "memory_nodes_leaves_exclusive_at_once": at_once[0],
        "other_user_reads_ok": reads["ok"],
        "other_user_reads_blocked": reads["blocked"],
        "other_user_read_max_ms": round(reads["max_ms"], 1),
    }


def one_side(args: argparse.Namespace) -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the finally below drops the database
    code = Path(args.code).resolve()
    sys.path.insert(0, str(code))
    sys.path.insert(1, str(TREE))  # tests.support.scratch, when the revision's tree is older
    from tests.support.scratch import create_database, scratch_run

    run, var = scratch_run("scale")
    os.environ["ELLA_EMBEDDER"] = args.embedder
    url, drop = create_database("postgresql", f"ella_scale_{args.side}_{run}", var)
    figures: dict[str, Any] = {"revision": args.revision}
    try:
        os.environ["ELLA_DATABASE_URL"] = url
        from adapters import db
        from adapters.settings import get_settings

        get_settings.cache_clear()
        say(f"  code: {Path(db.__file__).resolve().parents[1]}")
        rng = np.random.default_rng(args.seed)
        now = datetime.now(UTC).replace(microsecond=0)
        t0 = time.perf_counter()
        db.upgrade(revision=args.revision)
        with raw(url) as conn:
            figures["revision"] = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        say(f"  {url.rsplit('/', 1)[-1]} at revision {figures['revision']} ({time.perf_counter() - t0:.1f} s)")
        model_id, dim = embedder_identity(args.embedder)
        pool, encoding = encoded_pool(
            rng, model_id, dim, now, min(POOL_VECTORS, max(64, args.nodes // 50)), args.encode
        )
        counts, big, small = node_counts(rng, args.users, args.nodes)
        t0 = time.perf_counter()
        with raw(url, autocommit=False) as conn:
            load_users(conn, args.users, now)
        load = load_nodes(url, counts, rng, pool, now)
        for uid in (user_id(0), user_id(1)):
            add_history(uid, now)
        load["total_s"] = round(time.perf_counter() - t0, 1)
        figures["load"] = {"users": args.users, "nodes": int(counts.sum()), "big_user_nodes": big,
                           "small_user_nodes": small, "embedding": f"{model_id} ({dim}), {encoding}",
                           "embedding_bytes": len(pool[0]["embedding"]), **load}  # fmt: skip
        say(f"  loaded {args.users:,} users and {int(counts.sum()):,} nodes in {load['total_s']} s "
            f"(COPY {load['copy_s']} s, index build {load['index_build_s']} s, "
            f"VACUUM ANALYZE {load['vacuum_analyze_s']} s); vectors "
            f"{figures['load']['embedding_bytes']} bytes each ({encoding})")  # fmt: skip
        figures["sizes"] = sizes(url, int(counts.sum()))
        s = figures["sizes"]
        say(f"  per million nodes: heap {s['heap_bytes_per_million'] / 1e6:.1f} MB, index "
            f"{s['index_bytes_per_million'] / 1e6:.1f} MB, TOAST {s['toast_bytes_per_million'] / 1e6:.1f} MB "
            f"({s['indexes_per_leaf']} indexes, {s['partitions']} partitions, "
            f"fillfactor {s['fillfactor']})")  # fmt: skip
        figures["touch"] = touches(url, args.touches, rng, args.users, s["indexes_per_leaf"])
        t = figures["touch"]
        say(
            f"  touches: {t['updated']} rows updated, {t['hot_updates']} HOT ({t['hot_share']:.1%}): "
            f"{t['index_tuples_per_touch']} index tuples written per touch ((1 - HOT share) x {s['indexes_per_leaf']})"
        )
        figures["reply"] = reply_loads(url, {"small": user_id(1), "big": user_id(0)}, args.samples, now)
        figures["erasure"] = erasure(url, user_id(0), user_id(1), args.disk_step)
        e = figures["erasure"]
        say(f"  erasure disk step ({e['step']}): {e['step_s']} s after deleting {e['deleted_nodes']:,} nodes; "
            f"strongest lock {e['strongest_lock']}, AccessExclusive on memory_nodes: "
            f"{e['memory_nodes_exclusive_scope']} "
            f"({e['memory_nodes_leaves_exclusive_at_once']} at once);"
            f" another user's reads: {e['other_user_reads_ok']} ok, {e['other_user_reads_blocked']} blocked "
            f"(lock_timeout 200 ms), slowest {e['other_user_read_max_ms']} ms")  # fmt: skip
    finally:
        if args.keep:
            say(f"  kept database {url.rsplit('/', 1)[-1]}")
        else:
            drop()
    Path(args.side_out).write_text(json.dumps(figures))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="0022", help="alembic revision of today's schema")
    parser.add_argument("--after", default="head", help="alembic revision of the new schema")
    parser.add_argument("--before-ref", help="git ref whose code runs the before side (default: found)")
    parser.add_argument("--after-ref", help="git ref whose code runs the after side (default: found)")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=10_000_000)
    parser.add_argument("--samples", type=int, default=20, help="timed loads per user, mode and timing")
    parser.add_argument("--touches", type=int, default=5_000, help="nodes touched through mark_accessed")
    parser.add_argument("--embedder", default="semantic", help="whose model id and dimension the vectors have")
    parser.add_argument("--disk-step", help="module:function of a per-user disk step (default: found, or today's)")
    parser.add_argument("--encode", help="module:function encoding a float32 vector (default: found, or the builder's)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--keep", action="store_true", help="keep the scratch databases (dropped by default)")
    parser.add_argument("--out", help="also write the output to this file")
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--revision", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--side-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.users < 3 or args.nodes < 4 * 3:
        parser.error("at least 3 users and 12 nodes")
    if args.side:
        one_side(args)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
