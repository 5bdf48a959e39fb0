"""Pictures reach the gateway with the reply that names them, on both engines (issue 36, item 4).

Ella "discovers" the loch (the seed's anchor-first pattern): the reply whose own statement first names it draws
its picture then, once, and that reply's outbox entry carries a reference with a URL the gateway fetches the bytes
from. On an S3-compatible store the URL is presigned and fetched here over HTTP from a real S3 server on loopback
(moto's, started as its own process: the same HTTP API and SigV4 presigning as compose's MinIO); on the embedded
default it is a ``file://`` URL of the local store's file. A later mention renders nothing; a brand-new user's
very first reply carries its picture; the offline engine names a place of her world now and then and so draws too;
erasure removes the user's pictures from the store.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from adapters.db import autocommit_scope, session_scope
from adapters.publishing import outbox_entry
from ella.contract import IngestPayload
from models import ImageAnchorRow, OutboxRecord, User
from tests.support.scripted import Scripted
from tests.test_world_pipeline import use_model

ACCESS, SECRET = "ella-test-access", "ella-test-secret-do-not-log"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def s3_server() -> Iterator[str]:
    """A real S3 HTTP server on loopback, in a process of its own (``python -m moto.server``)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).close()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        else:
            raise RuntimeError("the S3 server did not start")
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def s3_store(s3_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The workers' settings pointed at the S3 server: a bucket of this test's own (made on first use)."""
    from adapters.settings import get_settings

    bucket = f"ella-test-{uuid.uuid4().hex[:10]}"
    for key, value in {"ELLA_IMAGE_STORE": "s3", "ELLA_S3_ENDPOINT": s3_server, "ELLA_S3_BUCKET": bucket,
                       "ELLA_S3_ACCESS_KEY": ACCESS, "ELLA_S3_SECRET_KEY": SECRET,
                       "ELLA_IMAGE_URL_EXPIRY_S": "3600"}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    yield bucket
    get_settings.cache_clear()


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every render this test makes, counted (the offline generator underneath)."""
    import adapters.images

    counting = adapters.images.CountingImages()
    monkeypatch.setattr(adapters.images, "image_generator", lambda settings=None: counting)
    return counting


def _reply(text: str, statement: str, things: list[str]) -> Scripted:
    answer = {
        "reply": text,
        "perception": {"score": 2, "subject": "user", "predicate": "asked", "object": "about her day"},
        "self_statements": [{"content": statement, "about": ["walk"], "confidence": 1, "things": things}],
    }
    return Scripted(lambda request: json.dumps(answer))


LOCH = _reply("I walked down to the loch this morning. It was so still. How are you?",
              "I walked down to the loch this morning", ["the loch"])  # fmt: skip


def _send(user: str, text: str) -> tuple[OutboxRecord, list[dict[str, Any]]]:
    """One message through the real ingest; its reply's record and the image references its stream entry carries."""
    from tasks.ingest import ingest

    message_id = uuid.uuid4().hex
    ingest(IngestPayload(message_id=message_id, user_id=user, text=text, sent_at=datetime.now(UTC)), task_id=None)
    with autocommit_scope() as s:
        record = s.scalars(select(OutboxRecord).where(OutboxRecord.in_reply_to == message_id)).one()
    entry = outbox_entry(record)
    references = json.loads(entry.images) if entry.images else []
    _check_references(references)
    return record, references


def _check_references(references: list[dict[str, Any]]) -> None:
    """The references as the outbox entry's schema describes its ``images`` JSON (``contentSchema``)."""
    from jsonschema import Draft202012Validator

    schema = json.loads((Path(__file__).parents[1] / "docs" / "schemas" / "outbox_entry.schema.json").read_text())
    Draft202012Validator(schema["properties"]["images"]["contentSchema"]).validate(references)


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def _user() -> str:
    user = f"pic-{uuid.uuid4().hex[:8]}"
    with session_scope() as s:
        s.add(User(id=user, timezone="UTC"))
    return user


def test_the_reply_that_discovers_the_loch_carries_a_url_that_serves_its_picture_and_later_ones_render_nothing(
    migrated_db, s3_store, renders, monkeypatch
):
    import adapters.reply_service

    user = _user()
    use_model(monkeypatch, adapters.reply_service, LOCH)
    _, [reference] = _send(user, "What did you do today?")
    assert (reference["entity"], reference["version"], reference["media_type"]) == ("loch", 1, "image/png")
    assert reference["url"].startswith(f"http://127.0.0.1:{urllib.parse.urlsplit(reference['url']).port}/{s3_store}/")
    assert "X-Amz-Signature=" in reference["url"] and reference["url_expires_at"]
    data = _fetch(reference["url"])  # over HTTP from the S3 server, as a gateway fetches it
    assert data.startswith(b"\x89PNG") and hashlib.sha256(data).hexdigest() == reference["sha256"]
    with autocommit_scope() as s:
        anchor = s.scalars(select(ImageAnchorRow).where(ImageAnchorRow.user_id == user)).one()
    assert anchor.entity == "loch" and "the loch" in anchor.prompt and anchor.fact_id is None
    assert renders.renders == 1

    again, references = _send(user, "And the loch again?")  # a second mention: no render, nothing to carry
    assert references == [] and again.images is None and renders.renders == 1
    from tasks.images import draw_image_anchors

    owed = draw_image_anchors.apply(kwargs={"user_id": user, "entities": ["loch"],
                                            "prompts": {"loch": "the loch, drawn differently"}}).get()  # fmt: skip
    assert owed == {"already_drawn": 1} and renders.renders == 1  # never re-rendered, whatever the prompt


def test_a_new_users_very_first_reply_that_names_a_place_carries_its_picture(migrated_db, s3_store, renders,
                                                                            monkeypatch):  # fmt: skip
    import adapters.reply_service

    user = f"pic-new-{uuid.uuid4().hex[:8]}"  # no row yet: this message makes the user
    use_model(monkeypatch, adapters.reply_service, LOCH)
    record, [reference] = _send(user, "Hi, I'm new here!")
    assert reference["entity"] == "loch" and record.user_id == user
    assert hashlib.sha256(_fetch(reference["url"])).hexdigest() == reference["sha256"]
    assert renders.renders == 1


def test_erasure_removes_the_users_pictures_from_the_bucket(migrated_db, s3_store, monkeypatch):
    import adapters.reply_service
    from adapters.images import image_store
    from tasks.privacy import forget

    user = _user()
    use_model(monkeypatch, adapters.reply_service, _reply("I found an old boathouse by the water today.",
              "I found an old boathouse by the water today", ["the old boathouse"]))  # fmt: skip
    _, [reference] = _send(user, "Anything new?")
    assert reference["entity"] == "boathouse" and image_store().has(reference["sha256"])

    counts = forget(user)

    assert counts["image_anchors"] == 1 and counts["images"] == 1
    assert not image_store().has(reference["sha256"])
    with pytest.raises(urllib.error.HTTPError) as gone:
        _fetch(reference["url"])  # the URL it was given no longer serves anything
    assert gone.value.code == 404


def test_a_presigned_url_is_signed_for_the_gateways_endpoint_for_the_configured_time_and_no_key_is_logged(
    s3_server, caplog
):
    from adapters.image_s3 import S3ImageStore
    from ella.world.images import draw as draw_png

    public = s3_server.replace("127.0.0.1", "localhost")  # where the gateway reaches the same server
    store = S3ImageStore(s3_server, f"ella-test-{uuid.uuid4().hex[:10]}", ACCESS, SECRET, public_endpoint=public,
                         expiry_s=900)  # fmt: skip
    caplog.set_level(logging.DEBUG)
    data = draw_png("a lighthouse on a grey morning")
    sha = store.put(data)
    assert store.put(data) == sha and store.media_type(sha) == "image/png"
    now = datetime.now(UTC)
    link = store.link(sha, now)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link.url).query)
    assert link.url.startswith(f"{public}/") and query["X-Amz-Expires"] == ["900"]
    assert link.expires_at is not None and (link.expires_at - now).total_seconds() == 900
    assert _fetch(link.url) == data  # the signature holds for the host it was signed for
    assert SECRET not in repr(store) and SECRET not in caplog.text and SECRET not in link.url


def test_the_local_store_links_each_picture_by_a_file_url_the_gateway_can_read(tmp_path):
    from ella.world.images import ContentStore
    from ella.world.images import draw as draw_png

    store = ContentStore(tmp_path / "images")
    data = draw_png("the loch at dusk")
    sha = store.put(data)
    link = store.link(sha, datetime.now(UTC))
    assert link.url == (tmp_path / "images" / sha).as_uri() and link.expires_at is None
    assert Path(urllib.parse.unquote(urllib.parse.urlsplit(link.url).path)).read_bytes() == data
    assert _fetch(link.url) == data  # urllib reads file:// URLs too


def test_the_offline_engine_names_a_place_now_and_then_and_that_reply_carries_its_picture(
    migrated_db, tmp_path, renders, monkeypatch
):
    """On the embedded default (the offline engine, the local file store): greetings name a place of her world
    now and then; the first reply that names one carries its picture as a file URL, and a later reply naming the
    same place carries none and renders nothing."""
    from adapters.settings import get_settings
    from ella.offline_world import PLACES
    from ella.world.images import thing_entity

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "images"))
    get_settings.cache_clear()
    user = f"pic-offline-{uuid.uuid4().hex[:8]}"
    shown: dict[str, dict[str, Any]] = {}  # entity -> the reference that carried it
    named_places = 0
    for hello in ("Hi Ella", "Hello!", "Hey there", "Good morning", "Hi!", "Hello Ella", "Hey", "Morning Ella",
                  "Hi there", "Good evening", "Hello again", "Hey Ella!"):  # fmt: skip
        record, references = _send(user, hello)
        carried = {reference["entity"]: reference for reference in references}
        for place in (place for place in PLACES if f"I walked down to {place}" in record.text):  # her own walk
            named_places += 1
            entity = thing_entity(place)
            # the first reply naming it carries it (unless an earlier one carried it already), a later one never
            assert (entity in carried) == (entity not in shown), (hello, record.text, entity, sorted(shown))
        assert not set(carried) & set(shown)  # each picture is carried once
        shown.update(carried)
    assert named_places, "no greeting named a place of her world"
    assert {thing_entity(place) for place in PLACES} & set(shown), "no place's picture was carried"
    for reference in shown.values():
        assert reference["url"].startswith("file://") and reference["url_expires_at"] == ""
        assert hashlib.sha256(_fetch(reference["url"])).hexdigest() == reference["sha256"]
    assert renders.renders == len(shown)  # each drawn once, by the reply that first named it
    get_settings.cache_clear()


@pytest.mark.domain
def test_her_own_statements_name_new_places_and_things_and_what_is_no_thing_is_not_drawn():
    from ella.world.images import MAX_NEW_THINGS_PER_REPLY, Named, pictured, thing_entity

    said = [
        {"content": "I walked down to the Loch this morning", "things": ["the Loch"]},
        {"content": "The cat followed me past her garden gate", "things": ["the cat", "her garden gate", "you"]},
        {"content": "I sat by the harbour", "things": ["the harbour", "my mood", "the old boathouse"]},
    ]
    found = pictured(said)
    assert [n.entity for n in found] == ["cat", "shore", "loch", "garden_gate"]  # the four's words first, then things
    loch = next(n for n in found if n.entity == "loch")
    assert "the Loch" in loch.prompt and "I walked down to the Loch this morning" in loch.prompt
    assert next(n for n in found if n.entity == "cat") == Named("cat")  # its look is the ledger's, not her words
    assert len([n for n in found if n.prompt]) == MAX_NEW_THINGS_PER_REPLY  # the boathouse waits for a later reply
    assert [thing_entity(t) for t in ("user", "my mood", "a walk on 2 feet", "the lighthouse at the end of it")] == [
        None, None, None, None]  # fmt: skip
    assert pictured([{"content": "I love the loch"}]) == []  # a word alone is no thing: she names it in things
    assert pictured([{"content": "x", "things": "the loch"}]) == []  # not a list: nothing


def test_a_users_world_gets_at_most_the_configured_number_of_things(migrated_db, tmp_path, renders, monkeypatch):
    from adapters.images import draw
    from adapters.settings import get_settings
    from ella.world.images import Named

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "images"))
    monkeypatch.setenv("ELLA_IMAGE_MAX_ENTITIES", "1")
    get_settings.cache_clear()
    user = _user()
    assert draw(user, [Named("loch", "the loch at dawn")]) == {"rendered": 1}
    assert draw(user, [Named("lighthouse", "the lighthouse"), Named("loch", "the loch again")]) == {
        "over_limit": 1, "already_drawn": 1}  # fmt: skip
    assert renders.renders == 1
    get_settings.cache_clear()


def test_a_store_that_is_away_gives_no_media_type_instead_of_failing_the_turn_that_carries_the_picture():
    """The reference is built in the turn's transaction: an S3 server that went away after the drawing makes the
    media type unknown (``application/octet-stream``), never a failed reply; the URL is signed locally."""
    from adapters.image_s3 import S3ImageStore

    store = S3ImageStore(f"http://127.0.0.1:{_free_port()}", "ella-images", ACCESS, SECRET)  # nothing listens
    sha = hashlib.sha256(b"gone").hexdigest()
    assert store.media_type(sha) is None
    assert store.link(sha, datetime.now(UTC)).url.startswith("http://127.0.0.1:")
