"""Tiers, statuses and the trust rules: who may write which tier.

Why in code and not in a prompt: "a user's words can never become canon" is a security rule. A model that
extracts facts from a user's message can be talked into calling anything canon, so the ledger refuses the
write whatever the model said; the check sits in the one function every write goes through.
"""

from __future__ import annotations

from enum import StrEnum


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
