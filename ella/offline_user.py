"""The offline engine's words about the user: their name, what they just told, and their own past. Not AI: every
sentence is a hand-written template, and the only words of the user's it says are clean values the rules read.

Why: a newcomer who says "Hi Ella, I'm Jonas, I live in Bremen and I love cooking" was answered "Tell me more
about love cooking.": the template spliced the message's last words back as a topic. Here what the user tells is
answered through the facts the offline extraction read from the same message (``ella.llm.offline.facts``: a
name, a home, a like, a job, a person), each a clean noun phrase ("Bremen", "cooking"), never a fragment; the
name the user gave is used now and then (in a greeting, when they introduce themselves, once in a while after),
never in every reply; and "where did I live before?" is answered from the user's own past section
(``ella.core_profile.past_section``) the reply was given, in the message's language.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

NAME_EVERY = 3  # outside a greeting, the name is said in about one reply in three (never twice in a row)

INTRODUCED = "Nice to meet you, {name}!"
# What the user just told, asked back about by its clean value: the first that applies, in this order.
ASK_BACK: tuple[tuple[str, str], ...] = (
    ("likes", "What do you love most about {value}?"),
    ("moved", "How are you finding {value} so far?"),
    ("lives_in", "What's it like living in {value}?"),
    ("works_as", "What's a normal day like for you as {article} {value}?"),
    ("works_at", "What's it like working at {value}?"),
    ("works_in", "What's it like working in {value}?"),
    ("studies", "How are you finding {value}?"),
    ("studies_at", "How are you finding it at {value}?"),
    ("studies_in", "How are you finding it in {value}?"),
    ("person", "What's {value} like?"),
    ("lived_in", "What do you miss most about {value}?"),
    ("from", "How often do you get back to {value}?"),
    ("speaks", "How often do you get to use your {value}?"),
)
_MOVED = re.compile(r"\b(?:moved|relocated)\b", re.IGNORECASE)


def told_name(told: Sequence[Mapping[str, Any]]) -> str:
    """The name the user gives in this message (``user name X``), or ""."""
    return next((str(f["object"]) for f in told if f.get("subject") == "user" and f.get("predicate") == "name"), "")


def _told(told: Sequence[Mapping[str, Any]], text: str) -> dict[str, str]:
    """This message's facts by what ``ASK_BACK`` asks about: the first value of each."""
    out: dict[str, str] = {}
    for fact in told:
        subject, predicate, value = str(fact.get("subject")), str(fact.get("predicate")), str(fact.get("object"))
        if fact.get("action", "add") != "add" or not value:
            continue
        if subject == "user" and predicate == "lives_in" and _MOVED.search(text):
            predicate = "moved"
        elif subject != "user":
            predicate = "person" if predicate == "name" else ""
        out.setdefault(predicate, value)
    return out


def acknowledge(text: str, told: Sequence[Mapping[str, Any]], known_name: str = "") -> list[str]:
    """Sentences for what the user just told: "Nice to meet you, Jonas!" for a name not known before, then one
    question back about the first thing they told, by its clean value ("What do you love most about cooking?")."""
    said: list[str] = []
    name = told_name(told)
    if name and name.casefold() != known_name.casefold():
        said.append(INTRODUCED.format(name=name))
    items = _told(told, text)
    for key, template in ASK_BACK:
        value = items.get(key)
        if value:
            article = "an" if value[:1].lower() in "aeiou" else "a"
            said.append(template.format(value=value, article=article))
            break
    return said


def greet(reply: str, name: str) -> str:
    """A greeting template with the user's name in it: "Hi!" -> "Hi Jonas!", "Hey, welcome back." -> "Hey Jonas,
    welcome back."."""
    if reply.startswith("Hi!"):
        return f"Hi {name}!{reply[3:]}"
    if reply.startswith("Hey,"):
        return f"Hey {name},{reply[4:]}"
    return reply


def now_and_then(reply: str, name: str, text: str, ella_turns: Sequence[str]) -> str:
    """The reply with the name in its closing question, in about one reply in ``NAME_EVERY`` (a stable pick by the
    message), never when one of Ella's last two turns already said it; the reply as it is otherwise."""
    if not name or not reply.endswith("?") or any(name in turn for turn in ella_turns[-2:]):
        return reply
    if zlib.crc32(text.encode("utf-8", "surrogatepass")) % NAME_EVERY:
        return reply
    return f"{reply[:-1]}, {name}?"


# --- the user's own past ---------------------------------------------------------------------------------------

# "- they: lives in Hamburg, from 1 December 2026 until 2 December 2026; now Bremen" (``core_profile.past_lines``)
_SUPERSEDED = re.compile(
    r"^- they: (?P<verb>lives in|works as|works at|works in|studies at|studies in|studies|speaks|name) "
    r"(?P<old>.+?), from .+? until [^;]+?(?:; now (?P<now>.+?))?(?: \(no longer holds\))?$"
)
# "- they lived in Hamburg (said on 2 December 2026)": what they stated as their past
_STATED = re.compile(r"^- they (?P<verb>lived in|worked as|worked at|studied at|studied) (?P<old>.+?) \(said on .+\)$")
OWN_PAST: dict[str, dict[str, str]] = {
    "home_now": {
        "en": "You lived in {old} before; now you're in {now}. Do you miss it?",
        "de": "Vorher hast du in {old} gewohnt, jetzt bist du in {now}. Vermisst du es manchmal?",
        "es": "Antes vivías en {old}; ahora estás en {now}. ¿Lo echas de menos?",
        "fr": "Avant, tu habitais à {old} ; maintenant tu es à {now}. Ça te manque ?",
        "it": "Prima vivevi a {old}; adesso sei a {now}. Ti manca?",
    },
    "home": {
        "en": "You told me you used to live in {old}. Do you miss it?",
        "de": "Du hast mir erzählt, dass du früher in {old} gewohnt hast. Vermisst du es manchmal?",
        "es": "Me contaste que antes vivías en {old}. ¿Lo echas de menos?",
        "fr": "Tu m'as dit que tu habitais avant à {old}. Ça te manque ?",
        "it": "Mi hai detto che prima vivevi a {old}. Ti manca?",
    },
    "other_now": {
        "en": "Before, it was {old}; now it's {now}.",
        "de": "Früher war es {old}, jetzt ist es {now}.",
        "es": "Antes era {old}; ahora es {now}.",
        "fr": "Avant, c'était {old} ; maintenant c'est {now}.",
        "it": "Prima era {old}; adesso è {now}.",
    },
    "other": {
        "en": "Before, it was {old}.",
        "de": "Früher war es {old}.",
        "es": "Antes era {old}.",
        "fr": "Avant, c'était {old}.",
        "it": "Prima era {old}.",
    },
}
_ABOUT_WORK = re.compile(r"\b(?:job|work\w*|arbeit\w*|beruf|trabaj\w*|travail\w*|boulot|lavor\w*)\b", re.IGNORECASE)
_ABOUT_HOME = re.compile(r"\b(?:live|lived|home|city|town|wohn\w*|viv\w*|habit\w*|abit\w*)\b", re.IGNORECASE)


def own_past_answer(text: str, user_past: str, lang: str) -> str:
    """The answer to a question about the user's own past from its section (its first line about their home
    when the question is about where they lived, else its first line), in ``lang``; "" when it says nothing."""
    found = [m for line in user_past.splitlines() if (m := _SUPERSEDED.match(line) or _STATED.match(line))]
    if not found:
        return ""
    homes = [m for m in found if m.group("verb") in ("lives in", "lived in")]
    jobs = [m for m in found if m.group("verb").startswith(("works", "worked"))]
    m = homes[0] if homes and _ABOUT_HOME.search(text) else jobs[0] if jobs and _ABOUT_WORK.search(text) else found[0]
    kind = "home" if m.group("verb") in ("lives in", "lived in") else "other"
    now = m.groupdict().get("now") or ""
    templates = OWN_PAST[f"{kind}_now" if now else kind]
    return templates.get(lang, templates["en"]).format(old=m.group("old"), now=now)
