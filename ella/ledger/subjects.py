"""Subjects converge: one key for one person of the user's, however the user names them.

Why: the ledger scopes every rule to (subject, predicate): a fact is known, superseded or contested only
against facts of its own subject. Matched as exact strings, "my sister Maya" (``user.sister``) and "my sibling
Maya" (``user.sibling``) were two people with two facts, and "my mum" and "my mother" two mothers. So before a
user's fact is placed its subject goes through ``subject_key`` (spelling: relation words to one canonical
word) and ``converge`` (who: a known person of the user's the new subject names).

The rules, in order:

- Only the user's own subjects are touched (``user`` and ``user.*``); anything else is returned as it came, so
  the trust rules downstream (``ella.ledger.rules.user_may_claim``) judge what the model actually said.
- Spelling: the segment after ``user`` is lower-cased, its words joined by ``_``, possessives and articles
  dropped ("user.my_big_sis" -> ``user.sister``), and each relation word replaced by its canonical word
  (``RELATION_WORDS``). Size and age words ("big", "little", "older") are dropped: "my big sister" is nearly
  always "my sister" told warmly, and a user with two sisters tells them apart by name.
- Names: words left over that are not relation words are the person's name ("user.sister_maya": sister, maya).
  A person is known by the subject that first named them (a ``name`` fact, ``NAMING``): a later subject of the
  same family with the same name is that person ("user.sibling_maya" and "user.sister" named Maya are one), and
  a bare name is too ("user.maya").
- Neutral words (sibling, parent, child, spouse, grandparent) name a family, not a person: with no name they
  converge on the one known person of that family, when there is exactly one; otherwise they stay as they are.

Plain Python over plain values: ``tasks.ledger`` hands in the user's live facts, nothing here reads a database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ella.ledger.rules import USER_SUBJECT, about_the_user

# Relation words -> canonical word. The neutral words are families of their own (``FAMILIES``).
RELATION_WORDS: dict[str, str] = {
    **dict.fromkeys(["sister", "sis", "sissy"], "sister"),
    **dict.fromkeys(["brother", "bro"], "brother"),
    **dict.fromkeys(["sibling", "siblings"], "sibling"),
    **dict.fromkeys(["mother", "mom", "mum", "mommy", "mummy", "mama", "mam", "ma"], "mother"),
    **dict.fromkeys(["father", "dad", "daddy", "papa", "pa", "pop", "pops"], "father"),
    **dict.fromkeys(["parent", "parents"], "parent"),
    **dict.fromkeys(["daughter"], "daughter"),
    **dict.fromkeys(["son"], "son"),
    **dict.fromkeys(["child", "kid", "children", "kids"], "child"),
    **dict.fromkeys(["wife"], "wife"),
    **dict.fromkeys(["husband", "hubby"], "husband"),
    **dict.fromkeys(["spouse"], "spouse"),
    **dict.fromkeys(["partner", "other_half"], "partner"),
    **dict.fromkeys(["girlfriend", "gf"], "girlfriend"),
    **dict.fromkeys(["boyfriend", "bf"], "boyfriend"),
    **dict.fromkeys(["grandmother", "grandma", "granny", "gran", "nan", "nana", "nanna"], "grandmother"),
    **dict.fromkeys(["grandfather", "grandpa", "granddad", "grandad", "gramps"], "grandfather"),
    **dict.fromkeys(["grandparent", "grandparents"], "grandparent"),
    **dict.fromkeys(["aunt", "auntie", "aunty"], "aunt"),
    **dict.fromkeys(["uncle"], "uncle"),
    **dict.fromkeys(["cousin"], "cousin"),
    **dict.fromkeys(["friend", "mate", "pal", "buddy", "bestie", "best_friend", "bff"], "friend"),
    **dict.fromkeys(["boss", "manager"], "boss"),
    **dict.fromkeys(["colleague", "coworker", "co_worker", "workmate"], "colleague"),
    **dict.fromkeys(["roommate", "flatmate", "housemate"], "roommate"),
    **dict.fromkeys(["dog", "puppy", "doggo", "pup"], "dog"),
    **dict.fromkeys(["cat", "kitten", "kitty"], "cat"),
    **dict.fromkeys(["pet"], "pet"),
}
# A neutral word's family: the canonical words it may stand for (and itself).
FAMILIES: dict[str, frozenset[str]] = {
    "sibling": frozenset({"sibling", "sister", "brother"}),
    "parent": frozenset({"parent", "mother", "father"}),
    "child": frozenset({"child", "daughter", "son"}),
    "spouse": frozenset({"spouse", "wife", "husband", "partner"}),
    "partner": frozenset({"partner", "spouse", "wife", "husband", "girlfriend", "boyfriend"}),
    "grandparent": frozenset({"grandparent", "grandmother", "grandfather"}),
    "pet": frozenset({"pet", "dog", "cat"}),
}
# Words that say nothing about who: possessives, articles, size and age.
FILLER = frozenset(
    {"my", "the", "a", "an", "user", "users", "user's", "s", "of", "big", "little", "older", "younger", "elder",
     "eldest", "oldest", "youngest", "baby", "lil", "dear"}
)  # fmt: skip
# Relations a user usually has several of: "my friend" with no name may be any of them, so it converges on nobody.
MANY = frozenset({"friend", "colleague", "cousin", "aunt", "uncle", "roommate"})
# Predicates that give a person's name; ``name`` is the canonical one.
NAMING = frozenset({"name", "named", "is_named", "called", "is_called", "name_is", "names", "goes_by", "nickname"})
_WORD_JOIN = re.compile(r"[\s\-]+")
_NOT_KEY = re.compile(r"[^a-z0-9_']+")
_PROPER_NAME = re.compile(r"^(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*)){0,2}$")


@dataclass(frozen=True)
class Person:
    """Someone of the user's the ledger knows: the subject that names them, its relation, its names."""

    subject: str
    relation: str | None
    names: frozenset[str]


def _segment_words(segment: str) -> list[str]:
    text = _WORD_JOIN.sub("_", segment.strip().casefold().replace("\u2019", "'"))
    text = text.replace("'s_", "_").removesuffix("'s")
    return [w for w in _NOT_KEY.sub("_", text).split("_") if w]


def _relation_and_name(words: list[str]) -> tuple[str | None, list[str]]:
    """The canonical relation among ``words`` (the last one: "sister_in_law" is not handled as a relation of its
    own) and the words left for a name."""
    relation: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(words):
        pair = f"{words[i]}_{words[i + 1]}" if i + 1 < len(words) else ""
        if pair in RELATION_WORDS:
            relation, i = RELATION_WORDS[pair], i + 2
            continue
        word = words[i]
        if word in RELATION_WORDS:
            relation = RELATION_WORDS[word]
        elif word not in FILLER:
            rest.append(word)
        i += 1
    return relation, rest


def subject_key(subject: str) -> str:
    """The subject's spelling made canonical: ``user.My Big Sis`` -> ``user.sister``; ``user.sister.job`` keeps
    its tail. Not the user's: returned unchanged."""
    if not about_the_user(subject):
        return subject
    segments = subject.strip().split(".")
    if len(segments) == 1:
        return USER_SUBJECT
    relation, rest = _relation_and_name(_segment_words(segments[1]))
    head = "_".join(([relation] if relation else []) + rest) or "someone"
    tail = ["_".join(_segment_words(s)) for s in segments[2:] if _segment_words(s)]
    return ".".join([USER_SUBJECT, head, *tail])


def predicate_key(predicate: str) -> str:
    """The predicate's spelling made canonical: lower case, words joined by ``_``; a naming predicate is ``name``."""
    key = "_".join(_segment_words(predicate)) or predicate.strip().casefold()
    return "name" if key in NAMING else key


def looks_like_a_name(obj: str) -> bool:
    """ "Maya", "Anna Lee": capitalised words, at most three (what "my sister is Maya" gives as its object)."""
    return _PROPER_NAME.match(obj.strip()) is not None


def is_naming(subject: str, predicate: str, obj: str) -> bool:
    """Whether a fact gives a person's name: a naming predicate, or "is" a proper name on a person's subject."""
    key = predicate_key(predicate)
    if key == "name":
        return True
    return key == "is" and subject_key(subject) != USER_SUBJECT and looks_like_a_name(obj)


class SubjectFact(Protocol):
    """What ``people`` reads of a fact (``ella.ledger.facts.StoredFact`` has it)."""

    @property
    def id(self) -> int: ...
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...


def _split(key: str) -> tuple[str, str]:
    """A canonical user subject's person segment and the rest: ``user.sister.job`` -> (``sister``, ``job``)."""
    head, _, tail = key[len(USER_SUBJECT) + 1 :].partition(".")
    return head, tail


def _names(obj: str) -> set[str]:
    return {w.casefold() for w in obj.split()}


def people(facts: Iterable[SubjectFact]) -> list[Person]:
    """The user's people as the live facts know them, one per canonical subject, with every name a naming fact
    gave them (oldest fact first)."""
    found: dict[str, Person] = {}
    for fact in sorted(facts, key=lambda f: f.id):
        key = subject_key(fact.subject)
        if key == USER_SUBJECT or not about_the_user(key):
            continue
        head, tail = _split(key)
        relation, rest = _relation_and_name(head.split("_"))
        # the words beside a relation are a name ("sister_maya"); without one they are a topic ("favourite_food")
        person = found.get(f"{USER_SUBJECT}.{head}") or Person(
            f"{USER_SUBJECT}.{head}", relation, frozenset(rest if relation else ())
        )
        if not tail and is_naming(fact.subject, fact.predicate, fact.object):
            person = Person(person.subject, relation, person.names | _names(fact.object))
        found[person.subject] = person
    return list(found.values())


def _kin(relation: str | None, other: str | None) -> bool:
    """Whether two relation words may name one person: equal, or one is the other's neutral family word."""
    if relation is None or other is None:
        return True
    return relation == other or other in FAMILIES.get(relation, ()) or relation in FAMILIES.get(other, ())


def converge(subject: str, predicate: str = "", obj: str = "", known: Iterable[Person] = ()) -> str:
    """The canonical subject of a new fact: the known person (``people`` of the live facts) it names, else its
    own canonical spelling (``subject_key``). A name decides when one is given (in the subject, or as the
    object of a naming fact); without one, a relation the ledger does not hold under its own key converges on
    the one known person it may stand for, and stays its own when there are none or several."""
    key = subject_key(subject)
    if key == USER_SUBJECT or not about_the_user(key):
        return key
    head, tail = _split(key)
    relation, rest = _relation_and_name(head.split("_"))
    names = set(rest)
    if not tail and is_naming(subject, predicate, obj):
        names |= _names(obj)
    own = f"{USER_SUBJECT}.{head}"
    pool = [p for p in known if _kin(relation, p.relation)]
    if names:
        match = {p.subject for p in pool if names & p.names}
        if not match and relation is not None and relation not in MANY:
            # named as nobody known: a nameless person it may stand for may be them ("my sister", then "my sister
            # Maya"); one such person only, else nobody
            match = {p.subject for p in pool if not p.names and p.relation is not None and p.relation not in MANY}
    elif relation is not None and relation not in MANY and own not in {p.subject for p in known}:
        match = {p.subject for p in pool if p.relation is not None and p.relation not in MANY}
    else:
        match = set()
    if len(match) != 1:
        return key
    (person,) = match
    return f"{person}.{tail}" if tail else person


def relation_of(subject: str) -> str | None:
    """The canonical relation word of a user's subject (``user.big_sis`` -> ``sister``), or None."""
    key = subject_key(subject)
    if key == USER_SUBJECT or not about_the_user(key):
        return None
    return _relation_and_name(_split(key)[0].split("_"))[0]
