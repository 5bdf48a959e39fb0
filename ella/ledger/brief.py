"""The world brief: what the reply model is told is true of Ella's world, canon first, and, apart from it,
what the user has told her.

Why two sections: a user's words never become canon (the seed's own rule), yet the seed printed user claims
and inferences under "WORLD FACTS (canon — these are true)", where a model reads them as true of Ella's world.
Here the world section holds only Ella's world (canon, then what she observed, then hearsay) under the rule
that canon wins; the user's claims and Ella's inferences follow under their own heading, framed as true for
the user and never for her world. A lower-tier fact that disagrees with canon on the same subject and
predicate is left out of both, and every line still carries its tier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from ella.ledger.facts import StoredFact
from ella.ledger.rules import TIER_RANK, Status, Tier

HEADING = "## WORLD FACTS (canon — these are true)"
RULE = (
    "Each line says its tier: canon is true in Ella's world; observed is what Ella saw; rumored is hearsay. "
    "If two lines disagree, the higher tier wins and canon wins every conflict."
)
USER_HEADING = "## WHAT THE USER HAS TOLD YOU (true for them, not for your world)"
USER_RULE = (
    "user_claim is what the user said about their own life; inferred is your guess and may be wrong. Take them "
    "as the user's side, not as facts of your world: where one disagrees with a world fact above, the world fact "
    "stands."
)
WORLD_TIERS = frozenset({Tier.CANON, Tier.OBSERVED, Tier.RUMORED})
CHARS_PER_TOKEN = 4  # the seed's estimate; the brief is a budget, not an exact count


FactLike = StoredFact  # what a brief line shows


def brief_line(fact: FactLike) -> str:
    contested = " (contested)" if fact.status == Status.CONTESTED else ""
    return f"- [{fact.tier}] {fact.subject}: {fact.predicate}={fact.object} (conf={fact.confidence:.2f}){contested}"


def world_brief(facts: Iterable[FactLike], max_tokens: int = 800, subject_prefix: str = "") -> str:
    """Ella's world as tier-tagged lines, canon first, then the user's claims and inferences under their own
    heading, all within ``max_tokens``.

    Lines are added in order until the next one would overflow: the user's section and the lower tiers are the
    ones cut, never canon before them.
    """
    return world_brief_with_ids(facts, max_tokens, subject_prefix)[0]


def world_brief_with_ids(
    facts: Iterable[FactLike], max_tokens: int = 800, subject_prefix: str = ""
) -> tuple[str, list[int]]:
    """``world_brief`` and the ids of the facts its lines show, in order (what the reply saw: ``ella.seen``)."""
    live = [f for f in facts if f.status in (Status.ACTIVE, Status.CONTESTED) and f.subject.startswith(subject_prefix)]
    canon = {(f.subject, f.predicate): f.object for f in live if f.tier == Tier.CANON}
    shown = [f for f in live if f.tier == Tier.CANON or canon.get((f.subject, f.predicate), f.object) == f.object]
    shown.sort(key=lambda f: (TIER_RANK[Tier(f.tier)], -f.confidence, f.subject, f.predicate))
    budget = max_tokens * CHARS_PER_TOKEN - len(RULE)
    world: list[str] = []
    told: list[str] = []
    ids: list[int] = []
    for fact in shown:
        line = brief_line(fact)
        in_world = Tier(fact.tier) in WORLD_TIERS
        cost = len(line) + 1 + (0 if in_world or told else len(USER_HEADING) + len(USER_RULE) + 3)
        if cost > budget:
            break
        (world if in_world else told).append(line)
        ids.append(fact.id)
        budget -= cost
    text = RULE + ("\n" + "\n".join(world) if world else "\n(no facts yet)")
    if told:
        text += f"\n\n{USER_HEADING}\n{USER_RULE}\n" + "\n".join(told)
    return text, ids


F = TypeVar("F", bound=FactLike)


def contested_groups(facts: Sequence[F]) -> dict[tuple[str, str, str], list[F]]:
    """Live facts grouped by (subject, predicate, tier) where the group holds more than one object: the
    seed's detection, narrowed to one tier (a user claim beside canon is not a contest: canon wins)."""
    groups: dict[tuple[str, str, str], list[F]] = {}
    for fact in facts:
        if fact.status in (Status.ACTIVE, Status.CONTESTED):
            groups.setdefault((fact.subject, fact.predicate, str(fact.tier)), []).append(fact)
    return {key: group for key, group in groups.items() if len({f.object for f in group}) > 1}
