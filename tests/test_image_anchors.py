"""Image anchors: rendered on the first reference, never again, and redrawn only after a canon supersession.

Against the real database and Redis (``get_or_create``), a real loopback HTTP server (the HTTP provider) and
real files (the content-addressed store). Renders are counted with a counting generator.
"""

from __future__ import annotations

import base64
import http.server
import json
import struct
import threading
import uuid
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import event, select

from ella.ledger.facts import NewFact
from ella.ledger.rules import Tier, Writer
from ella.world.images import (
    PNG_SIGNATURE,
    ContentStore,
    Decision,
    ImageAnchor,
    ImageProviderError,
    OfflineImages,
    Successor,
    decide,
    draw,
    png_size,
    sha256_of,
)
from models.user import User

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DOOR = "ellahome.exterior.door"


# --- the offline picture and the rule (no services) ----------------------------------------------------------


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    at = len(PNG_SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, f"bad CRC in {kind!r}"
        yield kind, body
        at += 12 + length


@pytest.mark.domain
def test_the_offline_picture_is_a_valid_png_and_the_same_prompt_draws_the_same_bytes():
    picture = OfflineImages().render("the loch at dusk")

    assert picture.startswith(PNG_SIGNATURE)
    chunks = list(_chunks(picture))
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, *_ = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (width, height, depth, colour) == (64, 64, 8, 2) == (*png_size(picture), 8, 2)  # type: ignore[misc]
    rows = zlib.decompress(chunks[1][1])
    assert len(rows) == height * (1 + 3 * width)  # one filter byte and an RGB row per line
    assert len({rows[i : i + 3] for i in range(1, 1 + 3 * width, 3)}) > 1  # not a flat colour
    assert OfflineImages().render("the loch at dusk") == picture
    assert OfflineImages().render("the loch at dawn") != picture


def _anchor(fact_id: int | None) -> ImageAnchor:
    return ImageAnchor("u", "cottage_door", 1, "0" * 64, "a red door", fact_id, NOW)


@pytest.mark.domain
@pytest.mark.parametrize(
    ("anchor", "successor", "expected"),
    [
        (None, None, Decision.DRAW_FIRST),
        (_anchor(7), None, Decision.USE),  # the fact it was drawn from is still live
        (_anchor(7), Successor(8, Tier.CANON.value), Decision.REDRAW),
        (_anchor(7), Successor(8, Tier.OBSERVED.value), Decision.USE),
        (_anchor(7), Successor(8, Tier.RUMORED.value), Decision.USE),
        (_anchor(7), Successor(8, Tier.USER_CLAIM.value), Decision.USE),
        (_anchor(7), Successor(8, Tier.INFERRED.value), Decision.USE),
        (_anchor(None), Successor(8, Tier.CANON.value), Decision.USE),  # drawn from no fact: never changes
    ],
)
def test_only_a_canon_successor_of_the_fact_drawn_from_allows_a_new_version(anchor, successor, expected):
    assert decide(anchor, successor) is expected


@pytest.mark.domain
def test_the_store_names_a_file_by_the_sha256_of_its_bytes_and_keeps_no_partial_file(tmp_path):
    store = ContentStore(tmp_path / "images")
    data = draw("cottage door")

    sha = store.put(data)

    assert sha == sha256_of(data) and store.path(sha).name == sha
    assert store.get(sha) == data and store.put(data) == sha
    assert [p.name for p in (tmp_path / "images").iterdir()] == [sha]  # no temporary file left
    assert store.remove(sha) and not store.has(sha) and not store.remove(sha)
    with pytest.raises(ValueError):
        store.path("../etc/passwd")


# --- get_or_create against the database and Redis --------------------------------------------------------------


def _user(user_id: str | None = None) -> str:
    from adapters.db import session_scope

    user_id = user_id or f"img-{uuid.uuid4().hex[:10]}"
    with session_scope() as s:
        s.add(User(id=user_id))
    return user_id


def _fact(user_id: str, obj: str, tier: Tier = Tier.CANON) -> int:
    from adapters.db import session_scope
    from models.ledger import append

    writer = Writer.ANCHOR if tier is Tier.CANON else Writer.WORLD_TICK
    with session_scope() as s:
        fact = append(s, user_id, NewFact(DOOR, "color", obj, tier.value), writer, NOW)
        assert fact is not None
        return fact.id


def _supersede(user_id: str, old_id: int, obj: str, tier: Tier, writer: Writer) -> int:
    from adapters.db import session_scope
    from models.supersession import supersede

    with session_scope() as s:
        return supersede(s, user_id, old_id, NewFact(DOOR, "color", obj, tier.value), writer, NOW).id


@pytest.fixture
def store(tmp_path: Path) -> ContentStore:
    return ContentStore(tmp_path / "images")


def test_sixteen_concurrent_first_references_render_once_and_all_get_the_same_anchor(migrated_db, store):
    from adapters.images import CountingImages, get_or_create

    user = _user()
    counting = CountingImages(delay_s=0.3)  # a render long enough that every thread arrives during it
    start, results, errors = threading.Barrier(16), [], []

    def reference() -> None:
        start.wait()
        try:
            results.append(get_or_create(user, "loch", "the loch below the cottage", generator=counting, store=store))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=reference) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert errors == []
    assert counting.renders == 1
    assert len(results) == 16 and sum(r.rendered for r in results) == 1
    assert {(r.anchor.version, r.anchor.sha256) for r in results} == {(1, results[0].anchor.sha256)}
    assert store.get(results[0].anchor.sha256) == OfflineImages().render("the loch below the cottage")


def test_a_second_reference_renders_nothing_and_costs_one_query(migrated_db, store):
    from adapters.db import get_engine
    from adapters.images import CountingImages, get_or_create

    user, counting = _user(), CountingImages()
    first = get_or_create(user, "loch", "the loch", generator=counting, store=store)
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(get_engine(), "before_cursor_execute", count)
    try:
        again = get_or_create(user, "loch", "the loch, drawn differently", generator=counting, store=store)
    finally:
        event.remove(get_engine(), "before_cursor_execute", count)

    assert counting.renders == 1 and first.rendered and not again.rendered
    assert again.anchor == first.anchor and store.has(first.anchor.sha256)
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1, statements


def test_only_a_canon_supersession_of_the_fact_redraws_and_the_old_version_is_kept(migrated_db, store):
    from adapters.db import autocommit_scope
    from adapters.images import CountingImages, get_or_create
    from models.images import all_versions

    user, counting = _user(), CountingImages()
    red = _fact(user, "red")
    first = get_or_create(user, "cottage_door", "a red cottage door", red, generator=counting, store=store)

    # The world's clock observes a different colour: an observed supersession, not canon.
    seen = _supersede(user, red, "green", Tier.OBSERVED, Writer.WORLD_TICK)
    assert not get_or_create(user, "cottage_door", "a green door", seen, generator=counting, store=store).rendered
    # A user's claim sits beside the world and supersedes nothing of it; naming it as the fact forces nothing.
    claim = _fact_by_user(user, "purple")
    assert not get_or_create(user, "cottage_door", "a purple door", claim, generator=counting, store=store).rendered
    assert counting.renders == 1

    # Canon: the door was repainted blue.
    blue = _supersede(user, seen, "blue", Tier.CANON, Writer.OPERATOR)
    redrawn = get_or_create(user, "cottage_door", "a blue cottage door", blue, generator=counting, store=store)
    again = get_or_create(user, "cottage_door", "a blue cottage door", blue, generator=counting, store=store)

    assert counting.renders == 2 and redrawn.rendered and not again.rendered
    assert (redrawn.anchor.version, redrawn.anchor.fact_id) == (2, blue)
    with autocommit_scope() as s:
        versions = all_versions(s, user)
    assert [(v.version, v.fact_id, v.current) for v in versions] == [(1, red, False), (2, blue, True)]
    assert versions[0].sha256 == first.anchor.sha256 and store.has(first.anchor.sha256)  # the old one is kept
    assert store.get(versions[1].sha256) == OfflineImages().render("a blue cottage door")


def _fact_by_user(user_id: str, obj: str) -> int:
    from adapters.db import session_scope
    from models.ledger import append

    with session_scope() as s:
        fact = append(s, user_id, NewFact("user.door", "color", obj, Tier.USER_CLAIM.value), Writer.USER, NOW)
        assert fact is not None
        return fact.id


def test_erasure_removes_the_users_rows_and_bytes_but_not_bytes_another_user_shares(migrated_db, tmp_path, monkeypatch):
    from adapters.db import autocommit_scope
    from adapters.images import get_or_create, image_store
    from adapters.settings import get_settings
    from tasks.privacy import forget

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "store"))
    get_settings.cache_clear()
    try:
        gone, kept = _user(), _user()
        shared = get_or_create(gone, "loch", "the loch")  # the same prompt: the same offline bytes, one file
        own = get_or_create(gone, "cottage_door", f"a red door for {gone}")
        theirs = get_or_create(kept, "loch", "the loch")
        store = image_store()
        assert shared.anchor.sha256 == theirs.anchor.sha256
        assert store.has(shared.anchor.sha256) and store.has(own.anchor.sha256)

        counts = forget(gone)

        assert counts["image_anchors"] == 2 and counts["images"] == 1
        assert not store.has(own.anchor.sha256) and store.has(theirs.anchor.sha256)
        with autocommit_scope() as s:
            assert s.scalars(select(User.id).where(User.id == gone)).all() == []
            from models.images import all_versions

            assert all_versions(s, gone) == [] and len(all_versions(s, kept)) == 1
        assert forget(gone) == {}  # idempotent
        assert forget(kept)["images"] == 1 and not store.has(theirs.anchor.sha256)
    finally:
        get_settings.cache_clear()


def test_renders_under_concurrency_reports_one_render_for_sixteen_references(migrated_db, tmp_path, monkeypatch):
    """The bench's figure (``renders_16way``), measured the same way, leaves nothing behind."""
    from adapters.db import autocommit_scope
    from adapters.images import renders_under_concurrency
    from adapters.settings import get_settings
    from models.images import ImageAnchorRow

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "store"))
    get_settings.cache_clear()
    try:
        assert renders_under_concurrency(16) == 1
        with autocommit_scope() as s:
            assert s.scalars(select(ImageAnchorRow.id)).all() == []
        assert list((tmp_path / "store").iterdir()) == []
    finally:
        get_settings.cache_clear()


# --- the HTTP provider against a loopback server ---------------------------------------------------------------


class _Provider(http.server.BaseHTTPRequestHandler):
    """Answers by the prompt: ``png`` an image, ``json`` base64 JSON, ``html`` a 200 page, ``fail`` a 503."""

    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"body": body, "authorization": self.headers.get("Authorization")})
        prompt = body["prompt"]
        if prompt.startswith("png"):
            self._answer(200, "image/png", draw(prompt))
        elif prompt.startswith("json"):
            payload = {"data": [{"b64_json": base64.b64encode(draw(prompt)).decode()}]}
            self._answer(200, "application/json", json.dumps(payload).encode())
        elif prompt.startswith("html"):
            self._answer(200, "text/html", b"<html>quota page</html>")
        else:
            self._answer(503, "application/json", b'{"error": "overloaded"}')

    def _answer(self, status: int, media: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def provider_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Provider)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Provider.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/images"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.domain
def test_the_http_provider_posts_the_prompt_with_the_key_and_returns_the_image(provider_url):
    from adapters.image_http import HttpImages

    images = HttpImages(provider_url, SecretStr("sekrit-key"), timeout_s=5)

    assert images.render("png: the loch") == draw("png: the loch")
    assert images.render("json: the loch") == draw("json: the loch")
    assert [s["body"] for s in _Provider.seen] == [{"prompt": "png: the loch"}, {"prompt": "json: the loch"}]
    assert {s["authorization"] for s in _Provider.seen} == {"Bearer sekrit-key"}
    assert "sekrit" not in repr(images)


@pytest.mark.domain
@pytest.mark.parametrize(("prompt", "says"), [("fail", "HTTP 503"), ("html page", "text/html that is not an image")])
def test_the_http_provider_refuses_an_error_status_or_a_body_that_is_not_an_image(provider_url, prompt, says):
    from adapters.image_http import HttpImages

    with pytest.raises(ImageProviderError, match=says) as raised:
        HttpImages(provider_url, SecretStr("sekrit-key"), timeout_s=5).render(prompt)
    assert "sekrit" not in str(raised.value)


@pytest.mark.domain
def test_the_http_provider_is_chosen_by_the_settings_and_needs_a_url():
    from adapters.image_http import HttpImages
    from adapters.images import ImageSettingsError, image_generator
    from adapters.settings import Settings

    assert isinstance(image_generator(Settings(image_provider="offline", image_api_url="http://x")), OfflineImages)
    assert isinstance(image_generator(Settings(image_api_url="")), OfflineImages)  # compose's ${VAR:-}: unset
    assert isinstance(image_generator(Settings(image_api_url="http://127.0.0.1:9/x")), HttpImages)  # auto
    chosen = image_generator(Settings(image_provider="http", image_api_url="http://127.0.0.1:9/x", image_api_key="k"))
    assert isinstance(chosen, HttpImages) and chosen.url == "http://127.0.0.1:9/x"
    with pytest.raises(ImageSettingsError, match="ELLA_IMAGE_API_URL"):
        image_generator(Settings(image_provider="http"))
    assert Settings(image_api_key="k").masked()["image_api_key"] == "****"


def test_world_show_lists_every_version_with_the_current_one_and_whether_its_bytes_are_stored(
    migrated_db, tmp_path, monkeypatch
):
    from rich.console import Console

    from adapters.images import get_or_create, image_store
    from adapters.settings import get_settings
    from cli.world import print_image_anchors

    monkeypatch.setenv("ELLA_IMAGE_DIR", str(tmp_path / "store"))
    get_settings.cache_clear()
    try:
        user = _user()
        red = _fact(user, "red")
        get_or_create(user, "cottage_door", "a red cottage door", red)
        blue = _supersede(user, red, "blue", Tier.CANON, Writer.OPERATOR)
        redrawn = get_or_create(user, "cottage_door", "a blue cottage door", blue)
        image_store().remove(redrawn.anchor.sha256)  # a lost file shows as missing, not as stored
        console = Console(record=True, width=220)

        assert print_image_anchors(user, console) == 2
        lines = [line for line in console.export_text().splitlines() if "cottage_door" in line]
        assert len(lines) == 2
        assert "red" in lines[0] and "stored" in lines[0] and "yes" not in lines[0]
        assert "blue" in lines[1] and "MISSING" in lines[1] and "yes" in lines[1]
        assert print_image_anchors("nobody", Console(record=True)) == 0
    finally:
        get_settings.cache_clear()
