"""SQLAlchemy 2.0 models; importing this package registers every table on ``Base.metadata``."""

from models.arcs import RelationshipArcRow
from models.audit import MemoryAudit
from models.base import Base
from models.batch import ModelBatch, ModelBatchItem
from models.boundary import BoundaryEvent, CrisisReferral
from models.chapters import StoryChapter
from models.conversation import Conversation
from models.dead_letter import DeadLetter
from models.erasure import ForgottenUser
from models.images import ImageAnchorRow
from models.ledger import FactEvent, WorldFact
from models.memory import MemoryNode
from models.message import InboundMessage
from models.notifications import NotificationCandidate
from models.outbox import OutboxRecord
from models.pending_effects import PendingEffects
from models.review import FactReview
from models.runs import JobChunk, JobMark, JobRun
from models.selflog import SelfLogEntry
from models.usage import ModelCall
from models.user import User
from models.world_clock import WorldVersion

__all__ = [
    "MemoryAudit",
    "Base",
    "BoundaryEvent",
    "Conversation",
    "CrisisReferral",
    "DeadLetter",
    "FactEvent",
    "FactReview",
    "ForgottenUser",
    "ImageAnchorRow",
    "InboundMessage",
    "JobChunk",
    "JobMark",
    "JobRun",
    "MemoryNode",
    "NotificationCandidate",
    "ModelBatch",
    "ModelBatchItem",
    "ModelCall",
    "OutboxRecord",
    "PendingEffects",
    "RelationshipArcRow",
    "SelfLogEntry",
    "StoryChapter",
    "User",
    "WorldFact",
    "WorldVersion",
]
