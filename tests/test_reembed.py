"""``ella.reembed_memories``: a change of embedder re-embeds the stored stream in pages, never mixing spaces."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from sqlalchemy import select

from adapters.db import session_scope
from ella.embeddings import HashingEmbedder
from ella.memory import vectors
from models import MemoryNode, User

OLD_MODEL = "some-retired-model-384"


def plant(user_id: str, texts: list[str]) -> None:
    with session_scope() as s:
        s.add(User(id=user_id))
        s.flush()
        now = datetime(2026, 5, 1, tzinfo=UTC)
        s.add_all(
            MemoryNode(
                user_id=user_id,
                node_type="event",
                created_at=now,
                last_accessed_at=now,
                subject=user_id,
                predicate="said",
                object=text,
                description=text,
                embedding=np.ones(384, np.float32).tobytes(),
                embedding_model=OLD_MODEL,
                poignancy=3,
            )
            for text in texts
        )


def test_reembedding_pages_through_every_node_of_another_model_and_reports_progress(migrated_db) -> None:
    from tasks.reembed import reembed_memories

    plant("a", [f"note {i} about the garden" for i in range(3)])
    plant("b", ["the tram to Lisbon", "a pottery class"])
    first = reembed_memories.apply(kwargs={"page": 3, "chain": False}).get()
    assert first["reembedded"] == 3 and first["remaining"] == 2
    second = reembed_memories.apply(kwargs={"after_id": first["after_id"], "page": 3, "chain": False}).get()
    assert second == {"reembedded": 2, "remaining": 0, "after_id": second["after_id"]}
    assert reembed_memories.apply(kwargs={"page": 3, "chain": False}).get()["reembedded"] == 0  # nothing left
    embedder = HashingEmbedder()
    with session_scope() as s:
        nodes = s.scalars(select(MemoryNode).order_by(MemoryNode.id)).all()
        assert {n.embedding_model for n in nodes} == {embedder.model_id}
        for node in nodes:  # each vector is its own description's, in the new model's space, stored compact
            assert node.embedding_format == vectors.FLOAT16
            expected = np.asarray(embedder.embed([node.description])[0], np.float32).astype(np.float16)
            np.testing.assert_array_equal(np.frombuffer(node.embedding, np.float32), expected.astype(np.float32))


def test_the_status_says_how_many_memories_are_left_to_reembed(migrated_db) -> None:
    from typer.testing import CliRunner

    from cli.main import cli
    from tasks.reembed import reembed_memories

    plant("c", ["the lighthouse", "a red door", "my sister's dog"])
    before = CliRunner().invoke(cli, ["memory", "reembed", "--status"])
    assert before.exit_code == 0 and "0 of 3 memories are hashing-ngram-v1-512 vectors (3 to re-embed)" in before.output
    reembed_memories.apply(kwargs={"page": 2, "chain": False}).get()
    after = CliRunner().invoke(cli, ["memory", "reembed", "--status"])
    assert "2 of 3 memories" in after.output and "(1 to re-embed)" in after.output
