"""Every task name and the queue role it runs on: the names the gateway, beat, operators and the workers agree on.

Why in the domain and not with the routes (``workers.routing``): a task name is a contract (the gateway sends
``ella.ingest_message`` by name on the inbound queue, beat names its jobs, operators grep for them in Flower, the
metric families label dead letters by them), and the floors below the process wiring (the adapters' metrics, the
gateway's client) need the names without importing Celery's wiring. Plain values: no Celery here.
``workers.routing`` turns them into Celery's routes, and ``tests/test_architecture.py`` checks that every route
and every beat entry names a registered task and that every registered task has a queue.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol


class QueueNames(Protocol):
    """The broker names of the three roles (the settings' ``ELLA_QUEUE_<ROLE>``)."""

    @property
    def queue_inbound(self) -> str: ...
    @property
    def queue_cognition(self) -> str: ...
    @property
    def queue_batch(self) -> str: ...


class Queue(StrEnum):
    """A queue's role; its broker name comes from settings (``ELLA_QUEUE_<ROLE>``)."""

    INBOUND = "inbound"  # a user is waiting: ingest and the inbox sweep
    COGNITION = "cognition"  # memory, reflection, extraction: seconds late is fine
    BATCH = "batch"  # beat's long jobs and the Message Batches service

    def name_in(self, settings: QueueNames) -> str:
        return {Queue.INBOUND: settings.queue_inbound, Queue.COGNITION: settings.queue_cognition}.get(
            self, settings.queue_batch
        )


class TaskName(StrEnum):
    INGEST_MESSAGE = "ella.ingest_message"
    RESEND_UNANSWERED_MESSAGES = "ella.resend_unanswered_messages"
    SEND_PENDING_EFFECTS = "ella.send_pending_effects"
    CLOSE_DUE_CONVERSATIONS = "ella.close_due_conversations"
    CLOSE_CONVERSATION = "ella.close_conversation"
    PERCEIVE = "ella.perceive"
    REFLECT = "ella.reflect"
    EXTRACT_FACTS = "ella.extract_facts"
    RESOLVE_CONTESTED_FACTS = "ella.resolve_contested_facts"
    BOUNDARY_REGRESSION = "ella.boundary_regression"
    FLUSH_MODEL_BATCHES = "ella.flush_model_batches"
    POLL_MODEL_BATCHES = "ella.poll_model_batches"
    UPDATE_PROFILE = "ella.update_profile"
    MAKE_FOLLOWUPS = "ella.make_followups"
    MAKE_GENERIC_CHECKINS = "ella.make_generic_checkins"
    DISPATCH_NOTIFICATIONS = "ella.dispatch_notifications"
    FORGET_USER = "ella.forget_user"
    FORGET_USERS_AGAIN = "ella.forget_users_again"
    EXPORT_USER = "ella.export_user"
    FORGET_MEMORY = "ella.forget_memory"
    CORRECT_FACT = "ella.correct_fact"
    LIST_MEMORY = "ella.list_memory"
    SEARCH_MEMORY = "ella.search_memory"
    PUBLISH_MEMORY_CHANGED = "ella.publish_memory_changed"
    PLAN_JOBS = "ella.plan_jobs"
    RUN_JOB_CHUNK = "ella.run_job_chunk"
    DRAW_IMAGE_ANCHORS = "ella.draw_image_anchors"
    REEMBED_MEMORIES = "ella.reembed_memories"
    PRUNE_LOGS = "ella.prune_logs"


QUEUE_OF: dict[TaskName, Queue] = {
    TaskName.INGEST_MESSAGE: Queue.INBOUND,
    TaskName.RESEND_UNANSWERED_MESSAGES: Queue.INBOUND,
    TaskName.SEND_PENDING_EFFECTS: Queue.INBOUND,  # a turn's memory owed since a fault: seconds, not a backlog
    TaskName.CLOSE_DUE_CONVERSATIONS: Queue.COGNITION,
    TaskName.CLOSE_CONVERSATION: Queue.COGNITION,
    TaskName.PERCEIVE: Queue.COGNITION,
    TaskName.REFLECT: Queue.COGNITION,
    TaskName.EXTRACT_FACTS: Queue.COGNITION,
    TaskName.RESOLVE_CONTESTED_FACTS: Queue.BATCH,
    TaskName.BOUNDARY_REGRESSION: Queue.BATCH,
    TaskName.FLUSH_MODEL_BATCHES: Queue.BATCH,
    TaskName.POLL_MODEL_BATCHES: Queue.BATCH,
    TaskName.UPDATE_PROFILE: Queue.INBOUND,  # from the gateway, like a message: the next reply must see it
    TaskName.MAKE_FOLLOWUPS: Queue.BATCH,
    TaskName.MAKE_GENERIC_CHECKINS: Queue.BATCH,
    TaskName.DISPATCH_NOTIFICATIONS: Queue.BATCH,
    # From the gateway, behind the user's messages already queued: those are erased, the later ones refused.
    TaskName.FORGET_USER: Queue.INBOUND,
    TaskName.FORGET_USERS_AGAIN: Queue.INBOUND,  # an erasure's second pass the broker lost: behind the inbox
    # The user's say over one memory: from the gateway, behind their messages already queued, like an erasure.
    TaskName.EXPORT_USER: Queue.INBOUND,
    TaskName.FORGET_MEMORY: Queue.INBOUND,
    TaskName.CORRECT_FACT: Queue.INBOUND,
    # A product's page of what Ella remembers: a person is looking at it, and it is one indexed read.
    TaskName.LIST_MEMORY: Queue.INBOUND,
    TaskName.SEARCH_MEMORY: Queue.INBOUND,
    TaskName.PUBLISH_MEMORY_CHANGED: Queue.COGNITION,  # a change notice its committing path could not publish
    TaskName.PLAN_JOBS: Queue.BATCH,
    TaskName.RUN_JOB_CHUNK: Queue.BATCH,
    TaskName.DRAW_IMAGE_ANCHORS: Queue.BATCH,  # an image model call: never ahead of a user's message
    TaskName.REEMBED_MEMORIES: Queue.BATCH,  # after a change of embedder: paged, in the background
    TaskName.PRUNE_LOGS: Queue.BATCH,  # the retention job: bulk deletes, never ahead of a user's message
}
