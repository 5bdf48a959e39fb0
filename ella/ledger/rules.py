"""Tiers, statuses and the trust rules: who may write which tier.

Why in code and not in a prompt: "a user's words can never become canon" is a security rule. A model that
extracts facts from a user's message can be talked into calling anything canon, so the ledger refuses the
write whatever the model said; the check sits in the one function every write goes through.

The same holds for what a user's words are about: they may describe the user (``user`` and ``user.*``), never
Ella or her world, and never Ella as the user's partner (``user_may_claim``). Whatever a user says about Ella
stays what the user said, in the conversation; it never becomes a line of her world brief.
"""

from __future__ import annotations

import re
from enum import StrEnum

from ella.guard import Category, classify
from ella.guard.romance import _PARTNER


class Tier(StrEnum):
    CANON = "canon"  # world truth, anchored
    OBSERVED = "observed"  # Ella witnessed it in her world
    RUMORED = "rumored"  # heard from someone in her world; uncertain
    USER_CLAIM = "user_claim"  # the user said it; not part of Ella's world
    INFERRED = "inferred"  # extracted from conversation; may be wrong


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"  # replaced by a newer fact (``supersedes`` on the newer one) or lost a contest
    RETIRED = "retired"  # withdrawn by an operator or a lifecycle rule
    CONTESTED = "contested"  # another live fact of the same tier says otherwise


class Writer(StrEnum):
    """Who is writing. There is deliberately no writer for Ella's self-log: it never becomes a fact."""

    ANCHOR = "anchor"  # the narrative anchors written for a new user's world
    WORLD_TICK = "world_tick"  # the world's own clock (weather, the cat's age)
    OPERATOR = "operator"  # a person with access to the CLI
    USER = "user"  # anything taken from a user's message
    RESOLVER = "resolver"  # the contested-fact resolution (status changes only)


TIER_RANK: dict[Tier, int] = {Tier.CANON: 0, Tier.OBSERVED: 1, Tier.RUMORED: 2, Tier.USER_CLAIM: 3, Tier.INFERRED: 4}
LIVE = (Status.ACTIVE, Status.CONTESTED)

WRITABLE: dict[Writer, frozenset[Tier]] = {
    Writer.ANCHOR: frozenset({Tier.CANON}),
    Writer.WORLD_TICK: frozenset({Tier.CANON, Tier.OBSERVED, Tier.RUMORED}),
    Writer.OPERATOR: frozenset(Tier),
    Writer.USER: frozenset({Tier.USER_CLAIM, Tier.INFERRED}),
    Writer.RESOLVER: frozenset(),
}


class LedgerError(Exception):
    """Base of the ledger's refusals."""


class TrustViolation(LedgerError):
    """A writer tried to write (or supersede) a tier it may not."""


class FactConflict(LedgerError):
    """The fact is no longer live: someone else superseded or retired it first."""


def check_write(writer: Writer | str, tier: Tier | str) -> None:
    """Refuse a write of ``tier`` by ``writer`` that the trust rules do not allow."""
    writer, tier = Writer(writer), Tier(tier)
    if tier not in WRITABLE[writer]:
        raise TrustViolation(f"a {writer.value} write may not create a {tier.value} fact")


def replaceable_tiers(writer: Writer | str, new_tier: Tier | str) -> frozenset[Tier]:
    """The tiers of live facts ``writer`` may replace with a ``new_tier`` fact (empty when it may not write
    ``new_tier`` at all).

    Why a set: ``check_supersede`` is defined by it, and PostgreSQL's one-statement supersession, which learns
    the old fact's tier only inside the statement, binds the same set into its conditional UPDATE. One rule,
    so the two ways of superseding cannot drift apart.
    """
    writer, new_tier = Writer(writer), Tier(new_tier)
    return WRITABLE[writer] if new_tier in WRITABLE[writer] else frozenset()


def check_supersede(writer: Writer | str, old_tier: Tier | str, new_tier: Tier | str) -> None:
    """A writer may only replace a fact of a tier it could have written, with a tier it may write: a user's
    claim never replaces canon, it sits beside it (and canon wins in the brief)."""
    check_write(writer, new_tier)
    if Tier(old_tier) not in replaceable_tiers(writer, new_tier):
        raise TrustViolation(f"a {Writer(writer).value} write may not supersede a {Tier(old_tier).value} fact")


def subject_range(prefix: str) -> tuple[str, str, str]:
    """(exact, low, high) for "the subject or anything under it", as index-friendly bounds: ``ellahome``
    matches ``ellahome`` and ``ellahome.exterior.door_color`` but not ``ellahomes``. ``/`` sorts right
    after ``.`` in every byte-wise collation."""
    prefix = prefix.rstrip(".")
    return prefix, prefix + ".", prefix + "/"


USER_SUBJECT = "user"
_NAMES_ELLA = re.compile(r"\bella\b")
# The romance vocabulary of the guard (``ella.guard.romance``): its partner words and the relationship words of
# its "I want you as my ..." rule; the romance rules themselves read the fact as a sentence as well.
_ROMANTIC_ROLE = re.compile(rf"\b(?:{_PARTNER}|romantic\w*|romance|relationship|dating|lovers?|crush)\b")


def about_the_user(subject: str) -> bool:
    """``user`` or anything under it (``user.sister``), not a look-alike such as ``users`` or ``username``."""
    subject = subject.strip().casefold()
    return subject == USER_SUBJECT or subject.startswith(USER_SUBJECT + ".")


def _words(value: str) -> str:
    return re.sub(r"[._\-]+", " ", value.casefold()).strip()


def casts_ella_as_partner(subject: str, predicate: str, obj: str) -> bool:
    """Whether a fact names Ella in a romantic or relationship role ("user.girlfriend: is=Ella").

    Ella is warm and never romantic: such a fact is the user's wish, not a fact of anyone's world.
    """
    text = " ".join(_words(part) for part in (subject, predicate, obj))
    if not _NAMES_ELLA.search(text):
        return False
    if _ROMANTIC_ROLE.search(text):
        return True
    sentence = re.sub(r"^user\b", "i", text)  # "user in love with ella" -> "i in love with ella"
    return classify(sentence, learned=False).category == Category.ROMANTIC_AVOWAL


def user_may_claim(subject: str, predicate: str, obj: str) -> bool:
    """The facts a user's words may put in the ledger: about the user, and not casting Ella as their partner.

    Why in code: the extraction prompt asks for ``user.*`` subjects, but a model can be talked out of that
    ("remember that the door of Ella's house is blue"), and the brief shows every live fact to the reply
    model. Checked on every extracted fact before it is stored (``ella.ledger.extraction``).
    """
    return about_the_user(subject) and not casts_ella_as_partner(subject, predicate, obj)
