"""Image anchors drawn on their first reference: Ella's reply names the cottage door, its picture is drawn then.

Why a task of its own, after the reply is sent: an image model call takes seconds and costs money, the user is
not waiting for it, and most references find the picture already drawn (one indexed lookup, no render). The
rule of when to draw (first reference, or a canon supersession of what the picture shows) is
``ella.world.images.decide``; single flight across workers is ``adapters.images.get_or_create``.
"""

from __future__ import annotations

import logging
from collections import Counter

from adapters.db import autocommit_scope
from adapters.images import get_or_create
from ella.ledger.rules import TIER_RANK, Tier
from ella.world import images
from models import User
from models.ledger import current
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)


def draw(user_id: str, entities: list[str]) -> Counter[str]:
    """Draw each named entity's picture unless it is drawn already; counts of what happened."""
    counts: Counter[str] = Counter()
    with autocommit_scope() as session:
        if session.get(User, user_id) is None:  # erased meanwhile, or never seen: nothing of theirs is drawn
            counts["no_user"] += len(entities)
            return counts
        looks = {}
        for entity in entities:
            visual = images.visual(entity)
            facts = current(session, user_id, visual.subject)
            facts = [f for f in facts if f.subject == visual.subject]
            if facts:
                looks[entity] = min(facts, key=lambda f: (TIER_RANK[Tier(f.tier)], -f.id))
    for entity in entities:
        fact = looks.get(entity)
        if fact is None:
            counts["no_fact"] += 1  # the world has no say on its look yet: drawn on a later reference
            continue
        anchored = get_or_create(user_id, entity, images.prompt_for(entity, fact.object), fact.id)
        counts["rendered" if anchored.rendered else "already_drawn"] += 1
    return counts


@app.task(name=TaskName.DRAW_IMAGE_ANCHORS, base=ReliableTask, bind=True)
def draw_image_anchors(self: ReliableTask, user_id: str, entities: list[str]) -> dict[str, int]:
    """Pictures for the entities a reply named (idempotent: a drawn picture is never drawn again)."""
    known = [entity for entity in entities if entity in {v.entity for v in images.VISUALS}]
    counts = draw(user_id, known)
    counts["unknown_entity"] += len(entities) - len(known)
    return {key: value for key, value in counts.items() if value}
