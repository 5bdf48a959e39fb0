"""Image anchors drawn on their first reference: Ella's reply names the cottage door or the loch, its picture is
drawn then.

The ingest task draws a reply's pictures before it stores the reply, so the reply carries them
(``tasks.ingest.draw_named_pictures``); this task, owed by the turn and sent after its commit, is the backstop: it
draws what that could not (a render that failed, a user created by that very turn). Idempotent: most calls find
the picture already drawn (one indexed lookup, no render). The
rule of when to draw (first reference, or a canon supersession of what the picture shows) is
``ella.world.images.decide``; single flight across workers is ``adapters.images.get_or_create``.
"""

from __future__ import annotations

import logging

from adapters.images import draw
from ella.world import images
from workers.app import app
from workers.reliability import ReliableTask
from workers.routing import TaskName

log = logging.getLogger(__name__)


@app.task(name=TaskName.DRAW_IMAGE_ANCHORS, base=ReliableTask, bind=True)
def draw_image_anchors(
    self: ReliableTask, user_id: str, entities: list[str], prompts: dict[str, str] | None = None
) -> dict[str, int]:
    """Pictures for the entities a reply named (idempotent: a drawn picture is never drawn again). ``prompts``:
    for a thing of her world that is none of the ``VISUALS``, the prompt her words made of it."""
    prompts = prompts or {}
    known = [e for e in entities if images.is_visual(e) or prompts.get(e)]
    counts = draw(user_id, [images.Named(e, "" if images.is_visual(e) else prompts[e]) for e in known])
    counts["unknown_entity"] += len(entities) - len(known)
    return {key: value for key, value in counts.items() if value}
