"""Image anchors, wired: ``get_or_create`` renders an entity's picture on its first reference and never again.

The rule (which version is current, when a new one may be drawn) is ``ella.world.images.decide``; the index is
``models.images``; the bytes are in the content-addressed image store (``image_store``: files under
``settings.image_path`` on the embedded default, an S3-compatible bucket in compose, ``adapters.image_s3``).

Single flight, so sixteen workers that reference the loch at once pay for one render:
1. a reference whose current anchor stands costs one indexed query (``models.images.current``), no lock;
2. otherwise a per-(user, entity) Redis lock; the holder looks again (a winner may have just committed), renders
   outside any transaction, stores the bytes and commits the row; the others wait on the lock, then find the
   winner's anchor in their second look and render nothing;
3. the database backs the lock: one current anchor per (user, entity) and unique versions, so if the lock is
   lost (Redis down, a render outliving its lease) a second render may happen but a second anchor cannot; the
   loser reads the winner's row and drops its own bytes if nothing references them.

The bytes of a hash are written, referenced and erased under a per-hash lock: two users' anchors may share a
file (the offline picture of one prompt is the same bytes), and erasing one user must not delete a file another
user's anchor is about to reference.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis
from redis.exceptions import LockError
from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from adapters.db import autocommit_scope, session_scope
from adapters.redis_conn import get_redis
from adapters.settings import Settings, get_settings
from ella.ledger.rules import TIER_RANK, Tier
from ella.world import images as world_images
from ella.world.images import (
    ContentStore,
    Decision,
    ImageAnchor,
    ImageGenerator,
    ImageStore,
    Named,
    OfflineImages,
    Successor,
    decide,
    next_version,
    sha256_of,
)
from models import images
from models.base import utcnow
from models.erasure import Traces, register_store
from models.images import ImageAnchorRow
from models.ledger import current
from models.user import User

log = logging.getLogger(__name__)

_BYTES_LOCK_S = 30.0


class ImageSettingsError(RuntimeError):
    """``image_provider=http`` without an ``image_api_url``, or ``image_store=s3`` without its endpoint and keys."""


def image_generator(settings: Settings | None = None) -> ImageGenerator:
    """This process's generator, from the settings (``auto``: http when ``image_api_url`` is set)."""
    settings = settings or get_settings()
    provider = settings.image_provider
    if provider == "offline" or (provider == "auto" and not settings.image_api_url):
        return OfflineImages()
    if not settings.image_api_url:
        raise ImageSettingsError("image_provider=http needs ELLA_IMAGE_API_URL")
    from adapters.image_http import HttpImages

    return HttpImages(settings.image_api_url, settings.image_api_key, settings.image_timeout_s)


_STORES: dict[tuple[Any, ...], ImageStore] = {}
_STORES_LOCK = threading.Lock()


def image_store(settings: Settings | None = None) -> ImageStore:
    """This process's image store, from the settings: the local files (``image_store`` local, the default) or the
    S3-compatible bucket (s3). One S3 client per process and configuration (its connection pool is not shared
    across a fork)."""
    settings = settings or get_settings()
    if settings.image_store == "local":
        return ContentStore(settings.image_path)
    if not (settings.s3_endpoint and settings.s3_access_key and settings.s3_secret_key):
        raise ImageSettingsError("image_store=s3 needs ELLA_S3_ENDPOINT, ELLA_S3_ACCESS_KEY and ELLA_S3_SECRET_KEY")
    access, secret = settings.s3_access_key.get_secret_value(), settings.s3_secret_key.get_secret_value()
    key = (os.getpid(), settings.s3_endpoint, settings.s3_public_endpoint, settings.s3_bucket, settings.s3_region,
           access, hashlib.sha256(secret.encode()).hexdigest(), settings.image_url_expiry_s)  # fmt: skip
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            from adapters.image_s3 import S3ImageStore

            store = S3ImageStore(settings.s3_endpoint, settings.s3_bucket, access, secret, region=settings.s3_region,
                                 public_endpoint=settings.s3_public_endpoint,
                                 expiry_s=settings.image_url_expiry_s)  # fmt: skip
            _STORES[key] = store
    return store


@dataclass(frozen=True)
class Anchored:
    """What a reference gets: the current anchor and whether this call rendered it."""

    anchor: ImageAnchor
    rendered: bool


def get_or_create(
    user_id: str,
    entity: str,
    prompt: str,
    fact_id: int | None = None,
    *,
    generator: ImageGenerator | None = None,
    store: ImageStore | None = None,
    now: datetime | None = None,
) -> Anchored:
    """The current anchor of ``entity`` for the user, rendered from ``prompt`` if this is the first reference.

    ``fact_id`` is the ledger fact the picture shows (first render only). A later reference renders again only
    when that fact was superseded and its chain's live fact is canon (``ella.world.images.decide``); the new
    version is drawn from ``prompt`` and records that canon fact, and the old version is kept.
    """
    store = store or image_store()
    found = _look(user_id, entity)
    if found is not None and decide(*found) is Decision.USE:
        return Anchored(found[0], False)
    with _render_lock(user_id, entity):
        found = _look(user_id, entity)
        current, successor = found if found is not None else (None, None)
        decision = decide(current, successor)
        if current is not None and decision is Decision.USE:
            return Anchored(current, False)
        data = (generator or image_generator()).render(prompt)
        drawn_from = successor.fact_id if decision is Decision.REDRAW and successor is not None else fact_id
        anchor = _keep(store, data, user_id, entity, prompt, drawn_from, current, now or utcnow())
        if anchor is not None:
            log.info("rendered image anchor %s v%d (%d bytes)", entity, anchor.version, len(data))
            return Anchored(anchor, True)
    # Lost to a writer the lock did not hold back: theirs is the anchor.
    found = _look(user_id, entity)
    if found is None:
        raise LookupError(f"no image anchor {entity!r} for this user after a conflicting write (user erased?)")
    return Anchored(found[0], True)


def _look(user_id: str, entity: str) -> tuple[ImageAnchor, Successor | None] | None:
    with autocommit_scope() as session:
        return images.current(session, user_id, entity)


def _keep(
    store: ImageStore,
    data: bytes,
    user_id: str,
    entity: str,
    prompt: str,
    fact_id: int | None,
    current: ImageAnchor | None,
    now: datetime,
) -> ImageAnchor | None:
    """Store the bytes and commit the next version (superseding ``current``); None when another writer won."""
    sha = sha256_of(data)
    with _bytes_lock(sha):
        store.put(data)
        try:
            with session_scope() as session:
                if current is not None and not images.supersede(session, user_id, entity, current.version, now):
                    raise _Lost
                return images.insert_version(session, user_id, entity, next_version(current), sha, prompt, fact_id,
                                             now)  # fmt: skip
        except (IntegrityError, _Lost):
            _drop_if_unreferenced(store, sha)
            return None


class _Lost(Exception):
    """The version this writer meant to supersede was superseded by another writer first."""


def _drop_if_unreferenced(store: ImageStore, sha: str) -> bool:
    """Delete the file of ``sha`` unless an anchor row references it (the caller holds the hash's lock)."""
    with autocommit_scope() as session:
        if images.referenced(session, [sha]):
            return False
    return store.remove(sha)


def _prefix() -> str:
    return get_settings().redis_key_prefix


@contextmanager
def _held(name: str, lease_s: float) -> Iterator[bool]:
    """A Redis lock, waited for up to its lease; yields whether it is held.

    Not held (Redis down, or the wait ran out behind a holder that died) is not an error: the database's
    unique indexes still allow one anchor only, at the price of a render that may be wasted.
    """
    lock = get_redis().lock(name, timeout=lease_s, blocking_timeout=lease_s)
    try:
        held = bool(lock.acquire())
    except redis.RedisError as exc:
        log.warning("image lock unavailable (%s): going on without it", type(exc).__name__)
        held = False
    try:
        yield held
    finally:
        if held:
            try:
                lock.release()
            except (LockError, redis.RedisError):
                pass  # the lease ran out, or Redis went away: nothing left to release


def _render_lock(user_id: str, entity: str) -> AbstractContextManager[bool]:
    """One render per (user, entity) at a time; the key is a hash, so no user id is in Redis."""
    key = hashlib.sha256(f"{user_id}\x00{entity}".encode()).hexdigest()[:32]
    return _held(f"{_prefix()}:image:render:{key}", get_settings().image_timeout_s + 30)


def _bytes_lock(sha: str) -> AbstractContextManager[bool]:
    return _held(f"{_prefix()}:image:bytes:{sha}", _BYTES_LOCK_S)


@register_store("images")
def erase_image_bytes(traces: Traces) -> int:
    """The image store's files of the user's anchors, each unless another user's anchor references the same
    bytes (a content-addressed file is shared). Under each hash's lock, so a concurrent ``get_or_create`` of
    another user either committed its reference first (the file stays) or writes the file again after."""
    store, removed = image_store(), 0
    for sha in sorted(traces.image_hashes):
        with _bytes_lock(sha):
            removed += _drop_if_unreferenced(store, sha)
    return removed


class CountingImages:
    """A generator that counts its renders (and can take its time, so concurrent callers really overlap)."""

    name = "counting"

    def __init__(self, inner: ImageGenerator | None = None, delay_s: float = 0.0) -> None:
        self.inner = inner or OfflineImages()
        self.delay_s = delay_s
        self.renders = 0
        self._lock = threading.Lock()

    def render(self, prompt: str) -> bytes:
        with self._lock:
            self.renders += 1
        time.sleep(self.delay_s)
        return self.inner.render(prompt)


def renders_under_concurrency(n: int = 16, delay_s: float = 0.2) -> int:
    """Renders when ``n`` threads reference one new entity at once (the bench's ``renders_16way``; aim: 1).

    Against the configured database, Redis and image store, with a scratch user removed afterwards.
    """
    user_id = f"bench-images-{uuid.uuid4().hex[:12]}"
    with session_scope() as session:
        session.add(User(id=user_id))
    counting = CountingImages(delay_s=delay_s)
    start = threading.Barrier(n)
    errors: list[BaseException] = []

    def reference() -> None:
        start.wait()
        try:
            get_or_create(user_id, "loch", f"the loch below the cottage, {user_id}", generator=counting)
        except BaseException as exc:  # noqa: BLE001  (reported below, after every thread is done)
            errors.append(exc)

    threads = [threading.Thread(target=reference) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with session_scope() as session:
        hashes = images.hashes_of(session, user_id)
        session.execute(delete(images.ImageAnchorRow).where(images.ImageAnchorRow.user_id == user_id))
        session.execute(delete(User).where(User.id == user_id))
    erase_image_bytes(Traces(user_id, image_hashes=hashes))
    if errors:
        raise errors[0]
    return counting.renders


def image_reference(
    row: ImageAnchorRow, store: ImageStore | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """What the gateway is given of a picture: its id, entity, version, content hash, media type, and the URL it
    fetches the bytes from (``url``: a ``file://`` URL of the local store's file, or a presigned GET URL of the
    S3 bucket) with when that URL stops working (``url_expires_at``, ISO-8601 UTC; "" for a file URL)."""
    store = store or image_store()
    link = store.link(row.sha256, now or utcnow())
    return {"id": f"image:{row.id}", "entity": row.entity, "version": row.version, "sha256": row.sha256,
            "media_type": store.media_type(row.sha256) or "application/octet-stream", "url": link.url,
            "url_expires_at": link.expires_at.isoformat() if link.expires_at else ""}  # fmt: skip


def draw(user_id: str, entities: Sequence[Named | str]) -> Counter[str]:
    """Draw each named entity's picture unless it is drawn already: one of the four ``VISUALS`` from the world's
    live look of it, any other thing of her world from the prompt her words made of it (``Named.prompt``);
    counts of what happened. Here, not in ``tasks.images``: the ingest task draws before it stores the reply (so
    the reply carries the picture), and the drawing task after it, and a task module imports no other."""
    named = [Named(item) if isinstance(item, str) else item for item in entities]  # a bare entity: one of VISUALS
    counts: Counter[str] = Counter()
    with autocommit_scope() as session:
        if session.get(User, user_id) is None:  # erased meanwhile, or never seen: nothing of theirs is drawn
            counts["no_user"] += len(named)
            return counts
        looks = {}
        for item in named:
            if not world_images.is_visual(item.entity):
                continue
            visual = world_images.visual(item.entity)
            facts = current(session, user_id, visual.subject)
            facts = [f for f in facts if f.subject == visual.subject]
            if facts:
                looks[item.entity] = min(facts, key=lambda f: (TIER_RANK[Tier(f.tier)], -f.id))
        # what the cap on new things counts, read only when a reply names one
        drawn = images.entities_of(session, user_id) if any(n.prompt for n in named) else set()
    limit = get_settings().image_max_entities
    for item in named:
        if world_images.is_visual(item.entity):
            fact = looks.get(item.entity)
            if fact is None:
                counts["no_fact"] += 1  # the world has no say on its look yet: drawn on a later reference
                continue
            prompt, fact_id = world_images.prompt_for(item.entity, fact.object), fact.id
        elif not item.prompt:
            counts["no_prompt"] += 1  # a thing named without her words about it (an old task): nothing to draw from
            continue
        elif item.entity not in drawn and len(drawn) >= limit:
            counts["over_limit"] += 1  # the user's world has as many pictures as a world may have
            continue
        else:
            prompt, fact_id = item.prompt, None
        anchored = get_or_create(user_id, item.entity, prompt, fact_id)
        drawn.add(item.entity)
        counts["rendered" if anchored.rendered else "already_drawn"] += 1
    return counts
