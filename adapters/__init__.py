"""The stateful adapters: everything that holds a connection, a cache or a file for the layers above.

Settings (read from the environment), the database and Redis lifecycle (``db``, ``redis_conn``, the embedded
Redis), the caches (``embedding_cache``, ``memory_cache``, ``world_cache``), the model port's wiring and its slot
lease (``llm``, ``llm_slots``), the Message Batches service (``model_batches``), the outbox stream and publishing,
the inbox, image anchors and their HTTP provider, dead letters, the erasure's disk step, the metric families, and
``reply_service`` (``ella.reply`` wired to those). Why a floor of its own: ``tasks/`` and ``workers/`` both use
these, and none of them needs Celery's process wiring, so they import nothing of ``workers``, ``tasks`` or the
entry points above (``tests/test_architecture.py``).
"""
