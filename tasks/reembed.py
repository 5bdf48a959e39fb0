"""``ella.reembed_memories``: after a change of embedder, the stored vectors are re-embedded in the background.

Why: vectors of two models live in different spaces. Retrieval never compares a query with a vector of another
model (``ella.memory.retrieval.comparable_matrix``: such a node is still found by its words, recency and
importance), so until this task has run, memories stored under the old embedder lose their cosine part only.
The task walks ``memory_nodes`` by id (a keyset, any user), one page of ``page`` nodes per run: it embeds their
descriptions in one batch with this process's embedder (``ELLA_EMBEDDER``), writes vectors and model in one
transaction, logs its progress and queues itself for the next page, on the batch queue so it never delays a
user's message. A redelivered page re-embeds the same nodes to the same vectors: harmless. Start it with
``ella memory reembed``; it returns ``{"reembedded", "remaining", "after_id"}`` for its page.
"""

from __future__ import annotations

import logging

import numpy as np

from adapters.db import session_scope
from adapters.embedding_cache import shared_embedder
from adapters.settings import get_settings
from models.memory import count_other_models, nodes_of_other_models, set_embeddings
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName, queue_for

log = logging.getLogger(__name__)

PAGE = 500


@app.task(name=TaskName.REEMBED_MEMORIES, base=ReliableTask, bind=True)
def reembed_memories(self: ReliableTask, after_id: int = 0, page: int = PAGE, chain: bool = True) -> dict[str, int]:
    """Re-embed one page of nodes whose vector is of another model; queue the next page while there is one."""
    embedder = shared_embedder()
    with session_scope() as session:
        todo = nodes_of_other_models(session, embedder.model_id, after_id, page)
    if todo:
        vectors = np.asarray(embedder.embed([text for _, text in todo]), dtype=np.float32)
        with session_scope() as session:
            set_embeddings(
                session,
                [(node_id, v.tobytes()) for (node_id, _), v in zip(todo, vectors, strict=True)],
                embedder.model_id,
            )
    last = todo[-1][0] if todo else after_id
    with session_scope() as session:
        remaining = count_other_models(session, embedder.model_id)
    log.info(
        "re-embedded %d memories into %s (after id %d); %d remaining", len(todo), embedder.model_id, last, remaining
    )
    if chain and len(todo) == page and remaining:
        reembed_memories.apply_async(
            kwargs={"after_id": last, "page": page}, queue=queue_for(TaskName.REEMBED_MEMORIES, get_settings())
        )
    return {"reembedded": len(todo), "remaining": remaining, "after_id": last}
