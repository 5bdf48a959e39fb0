"""Image anchors: a picture of a world entity, drawn on its first reference and never drawn again.

The seed's anchor-first pattern (section 3): Ella "discovers" the loch, the loch's picture is rendered then and
becomes its anchor; until that first reference nothing is rendered and nothing is paid. Once it exists, a
reference costs a lookup. The image model is the only costly call, so everything here is about not calling it.

What may change a picture: only canon. An anchor records the ledger fact it was drawn from (the cottage door is
red); when that fact has been superseded and the live fact of its chain is canon (the door was repainted blue),
a new version may be drawn, and the old one is kept (history, and a user who saw the red door saw it). An
observed or rumored change, or a user's claim, never redraws: the seed's "canon gates visual regeneration".
An anchor drawn from no fact never changes.

What is drawn: the four entities whose look the ledger holds (her front door, kitchen, cat and the shore:
``VISUALS``, named by their words in her statements), and any other place or thing of her world her own
statement names for the first time (the statement's ``things``: "the loch"), drawn from her words about it then
and never again (``pictured``).

Here, in plain Python (no database, no network): the generator port, the offline generator (a deterministic
picture drawn from the prompt, a small PNG made with zlib and struct, so the demo and the tests need no
network), the storage port (``ImageStore``) and its local-file store (a file named by the sha256 of its bytes),
and the rules above.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from ella.ledger.rules import Tier

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Leading bytes of the image formats a provider may answer with.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (PNG_SIGNATURE, "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class ImageGenerator(Protocol):
    """The port to an image model: one prompt in, the image's bytes out (raises ImageProviderError)."""

    name: str

    def render(self, prompt: str) -> bytes: ...


class ImageProviderError(RuntimeError):
    """The image provider failed or answered with something that is not an image."""


def image_type(data: bytes) -> str | None:
    """The media type of ``data`` by its leading bytes (PNG, JPEG, GIF, WebP), None when it is none of them."""
    for magic, media in _MAGIC:
        if data.startswith(magic):
            return media
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


# --- the offline generator -------------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def encode_png(width: int, height: int, pixels: list[bytes]) -> bytes:
    """A truecolour 8-bit PNG of ``height`` rows of ``width`` RGB triples each (``pixels``: one bytes per row)."""
    if len(pixels) != height or any(len(row) != 3 * width for row in pixels):
        raise ValueError(f"need {height} rows of {3 * width} bytes")
    raw = b"".join(b"\x00" + row for row in pixels)  # filter type 0 (none) before each row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # depth 8, colour type 2 (RGB)
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, None when ``data`` is not a PNG that starts with one."""
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def draw(prompt: str, size: int = 64, cells: int = 8) -> bytes:
    """A ``size`` x ``size`` PNG of ``cells`` x ``cells`` colour blocks, every colour taken from a hash of the
    prompt: the same prompt always gives the same bytes, two prompts almost surely different ones."""
    if size % cells:
        raise ValueError("size must be a multiple of cells")
    colours: list[bytes] = []
    counter = 0
    while len(colours) < cells * cells:
        digest = hashlib.sha256(f"{counter}:{prompt}".encode()).digest()
        colours.extend(digest[i : i + 3] for i in range(0, 30, 3))
        counter += 1
    block = size // cells
    rows = []
    for y in range(cells):
        row = b"".join(colours[y * cells + x] * block for x in range(cells))
        rows.extend([row] * block)
    return encode_png(size, size, rows)


class OfflineImages:
    """The generator with no network: a deterministic picture of the prompt (``draw``)."""

    name = "offline"

    def render(self, prompt: str) -> bytes:
        return draw(prompt)


# --- the content-addressed byte store --------------------------------------------------------------------------


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_sha256(sha256: str) -> str:
    """``sha256`` when it is a lower-case hex digest (a store's key: never a path or a key of another shape)."""
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256 hex digest: {sha256!r}")
    return sha256


@dataclass(frozen=True)
class Link:
    """Where a gateway fetches a picture's bytes: a ``file://`` URL (the local store) or a presigned ``https://``
    one (an S3-compatible store), and until when it works (None: it does not expire)."""

    url: str
    expires_at: datetime | None = None


class ImageStore(Protocol):
    """The port to where the bytes are kept, content-addressed: one object per content, named by its sha256.

    Why content-addressed: an object never changes once written (a new version is a new object), two writers of
    the same bytes write the same object, and the index in the database holds only the hash."""

    name: str

    def put(self, data: bytes) -> str: ...  # its sha256; writing bytes that are there already is a no-op

    def get(self, sha256: str) -> bytes: ...

    def has(self, sha256: str) -> bool: ...

    def remove(self, sha256: str) -> bool: ...  # whether there was one

    def media_type(self, sha256: str) -> str | None: ...  # from the bytes' signature; None when unknown

    def link(self, sha256: str, now: datetime) -> Link: ...  # a URL a gateway can fetch the bytes from


class ContentStore:
    """The local-file store (the embedded default): image bytes in a directory, one file per content, named by the
    sha256 of its bytes (hex); its links are ``file://`` URLs of those files, which do not expire."""

    name = "local"

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        return self.root / check_sha256(sha256)

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically: a reader sees the whole file or none); its sha256."""
        sha = sha256_of(data)
        target = self.path(sha)
        if target.exists():
            return sha
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha

    def get(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def remove(self, sha256: str) -> bool:
        """Delete the file; whether there was one."""
        try:
            self.path(sha256).unlink()
        except FileNotFoundError:
            return False
        return True

    def media_type(self, sha256: str) -> str | None:
        try:
            with open(self.path(sha256), "rb") as handle:
                return image_type(handle.read(16))
        except OSError:
            return None

    def link(self, sha256: str, now: datetime) -> Link:
        """The file's absolute ``file://`` URL: readable by a gateway on this host or one that mounts the store
        at the same path."""
        return Link(self.path(sha256).absolute().as_uri())


# --- which version is current, and when a new one is allowed ---------------------------------------------------


@dataclass(frozen=True)
class ImageAnchor:
    """One version of an entity's picture for one user. The current one has no ``superseded_at``."""

    user_id: str
    entity: str
    version: int
    sha256: str
    prompt: str
    fact_id: int | None
    created_at: datetime
    superseded_at: datetime | None = None

    @property
    def current(self) -> bool:
        return self.superseded_at is None


@dataclass(frozen=True)
class Successor:
    """The live fact of the chain of the fact an anchor was drawn from, when that is another fact."""

    fact_id: int
    tier: str


class Decision(StrEnum):
    USE = "use"  # the current anchor stands: no render
    DRAW_FIRST = "draw_first"  # the first reference: render version 1
    REDRAW = "redraw"  # a canon supersession of what the picture shows: render the next version, keep the old


def decide(current: ImageAnchor | None, successor: Successor | None) -> Decision:
    """What a reference to an entity does, given its current anchor and the successor of its fact.

    Only a canon successor of the fact the anchor was drawn from allows a new version; anything else (no fact,
    the fact still live, a successor that is observed, rumored, a user's claim or inferred) uses the anchor.
    """
    if current is None:
        return Decision.DRAW_FIRST
    if current.fact_id is None or successor is None or successor.fact_id == current.fact_id:
        return Decision.USE
    return Decision.REDRAW if Tier(successor.tier) is Tier.CANON else Decision.USE


def next_version(current: ImageAnchor | None) -> int:
    return 1 if current is None else current.version + 1


# --- what a reference is: Ella's own words naming a visual entity of her world -------------------------------------


@dataclass(frozen=True)
class Visual:
    """An entity of Ella's world that has a picture: the words that name it, the ledger subject its look comes
    from (the picture shows that fact; a canon supersession of it redraws), and how to describe it."""

    entity: str
    words: frozenset[str]
    subject: str
    describe: str  # a str.format template over ``object`` (the fact's value)


VISUALS: tuple[Visual, ...] = (
    Visual("front_door", frozenset({"door", "doorway", "doorstep"}), "ellahome.exterior.door_color",
           "The front door of Ella's small coastal cottage, painted {object}, in soft morning light"),
    Visual("kitchen", frozenset({"kitchen", "stove", "kettle"}), "ellahome.interior.kitchen_layout",
           "Ella's cottage kitchen, a {object} layout, with a kettle on the stove"),
    Visual("cat", frozenset({"cat", "kitten", "tabby", "purring", "purred"}), "companion.species",
           "Ella's companion, a {object}, curled on a windowsill"),
    Visual("shore", frozenset({"sea", "shore", "beach", "harbour", "harbor", "waves", "tide"}), "world.biome",
           "The {object} shoreline a short walk from Ella's cottage"),
)  # fmt: skip
_BY_ENTITY = {visual.entity: visual for visual in VISUALS}


def referenced(texts: list[str]) -> list[str]:
    """The visual entities Ella's own statements name, in ``VISUALS`` order: the first reference of one is what
    draws its picture (a user's words are not a reference: they do not make Ella's world)."""
    from ella.lexicon import words

    said = {word for text in texts for word in words(text)}
    return [visual.entity for visual in VISUALS if visual.words & said]


def visual(entity: str) -> Visual:
    return _BY_ENTITY[entity]


def prompt_for(entity: str, fact_object: str) -> str:
    """The picture's prompt, from the live fact that says how the entity looks."""
    return visual(entity).describe.format(object=fact_object)


# --- any other place or thing of her world: drawn from her own words when she first names it -------------------

# Words that never make a thing's name: articles and possessives ("the loch", "her garden", "Ella's boat").
_NAME_SKIP = frozenset({"the", "a", "an", "my", "her", "our", "ella", "ella's", "ellas", "s", "old", "little", "small"})
# What ``things`` may hold that is no place or thing of her world: the user, people, feelings and the hours.
_NOT_A_THING = frozenset(
    {"user", "you", "me", "i", "we", "she", "he", "they", "mood", "feeling", "feelings", "day", "today", "morning",
     "evening", "night", "week", "weather", "time", "life", "work", "sleep", "dream", "thought", "thoughts"}
)  # fmt: skip
MAX_THING_WORDS = 3
MAX_NEW_THINGS_PER_REPLY = 2
THING_PROMPT = "{name} in Ella's world, near her small coastal cottage, as she first described it: {said}"


@dataclass(frozen=True)
class Named:
    """A picture a reply asks for: its entity, and for a thing of her world with no look in the ledger, the prompt
    her words make of it ("" for the four ``VISUALS``: their look is the ledger's live fact)."""

    entity: str
    prompt: str = ""


def thing_entity(name: str) -> str | None:
    """The entity a named place or thing is kept under ("the Loch" and "loch" are ``loch``; "her garden gate" is
    ``garden_gate``); a ``VISUALS`` entity when one of its words names it ("the harbour" is ``shore``); None
    for what is no thing (the user, a feeling) or not a short name of letters."""
    from ella.lexicon import words

    said = [w for w in words(name) if w not in _NAME_SKIP]
    if not said or len(said) > MAX_THING_WORDS or any(not w.isalpha() for w in said):
        return None
    for visual_ in VISUALS:
        if visual_.words & set(said):
            return visual_.entity
    if set(said) & _NOT_A_THING:
        return None
    return "_".join(said)


def pictured(statements: Sequence[Mapping[str, Any]]) -> list[Named]:
    """What Ella's own statements name that has a picture: the ``VISUALS`` their words name (``referenced``), then
    each place or thing of her world a statement lists in ``things`` (at most ``MAX_NEW_THINGS_PER_REPLY`` of
    those), drawn from that statement's words. Each entity once, the first statement naming it wins. A user's
    words are never a reference: they do not make Ella's world."""
    contents = [str(s.get("content", "")) for s in statements]
    found: dict[str, Named] = {entity: Named(entity) for entity in referenced(contents)}
    fresh = 0
    for statement in statements:
        things = statement.get("things") or []
        for thing in things if isinstance(things, list) else []:
            entity = thing_entity(str(thing))
            if entity is None or entity in found or fresh >= MAX_NEW_THINGS_PER_REPLY:
                continue
            if entity in _BY_ENTITY:
                found[entity] = Named(entity)
                continue
            said = " ".join(str(statement.get("content", "")).split())[:300]
            found[entity] = Named(entity, THING_PROMPT.format(name=str(thing).strip()[:60], said=said))
            fresh += 1
    return list(found.values())


def is_visual(entity: str) -> bool:
    """Whether the ledger holds the entity's look (one of ``VISUALS``)."""
    return entity in _BY_ENTITY
