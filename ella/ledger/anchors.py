"""The narrative anchors every new user's world starts from, and the world's own clock (weather, the cat's age).

Why deterministic: an anchor is the first canon fact of an element and later facts must agree with it or
supersede it explicitly; the cat's name and the day's weather are Ella's choices, so they are picked from
lists by a stable hash of the user (and the day), never by a model that could be argued with.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import date, datetime

CAT_NAMES = ("Marmalade", "Bramble", "Pip", "Juniper", "Moss", "Clementine", "Tansy", "Biscuit", "Fennel", "Wren")
# A temperate coastal climate: mostly grey and mild, some rain, the odd bright day.
WEATHER = (
    "overcast",
    "overcast",
    "light rain",
    "drizzle and sea mist",
    "bright with high cloud",
    "sunny spells",
    "blustery showers",
    "calm and grey",
)
CAT_AGE_AT_ANCHOR = 3


@dataclass(frozen=True)
class Anchor:
    subject: str
    predicate: str
    object: str
    note: str


def _pick(options: tuple[str, ...], *key: str) -> str:
    return options[zlib.crc32("|".join(key).encode()) % len(options)]


def weather_for(user_id: str, day: date) -> str:
    return _pick(WEATHER, user_id, day.isoformat())


def cat_age(anchored_at: datetime, now: datetime) -> int:
    """The anchor's age rolled forward by whole years since the world was anchored."""
    years = now.year - anchored_at.year - ((now.month, now.day) < (anchored_at.month, anchored_at.day))
    return CAT_AGE_AT_ANCHOR + max(0, years)


WEATHER_SUBJECT = "world.weather_today"
AGE_SUBJECT = "companion.age_years"


def seed_anchors(user_id: str, today: date) -> list[Anchor]:
    """The seed's anchors, in its order."""
    return [
        Anchor("ellahome.exterior.door_color", "color", "red", "Initial narrative anchor: the front door"),
        Anchor("ellahome.interior.kitchen_layout", "layout", "galley, north wall", "Initial narrative anchor"),
        Anchor("companion.species", "species", "tabby cat", "Initial narrative anchor: Ella's companion"),
        Anchor("companion.name", "name", _pick(CAT_NAMES, user_id), "Ella chose the cat's name"),
        Anchor(AGE_SUBJECT, "age_years", str(CAT_AGE_AT_ANCHOR), "Rolled forward yearly by the world clock"),
        Anchor("world.biome", "biome", "temperate coastal", "Initial narrative anchor"),
        Anchor(WEATHER_SUBJECT, "weather", weather_for(user_id, today), "Rotates daily"),
    ]
