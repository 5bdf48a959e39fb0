"""The world brief: what the reply model is told is true of Ella's world, canon first.

Why the filter: a user who says "your door is blue" leaves a user claim in the ledger, but the brief must
not put it beside the canon "red" as if the two were equals; a lower-tier fact that disagrees with canon on
the same subject and predicate is left out. Every line still carries its tier, and the brief opens with the
rule that canon wins, as the seed asks, for whatever disagreement is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from ella.ledger.facts import StoredFact
from ella.ledger.rules import TIER_RANK, Status, Tier

HEADING = "## WORLD FACTS (canon — these are true)"
RULE = (
    "Each line says its tier: canon is true in Ella's world; observed is what Ella saw; rumored is hearsay; "
    "user_claim is what the user said; inferred may be wrong. If two lines disagree, the higher tier wins and "
    "canon wins every conflict."
)
CHARS_PER_TOKEN = 4  # the seed's estimate; the brief is a budget, not an exact count


FactLike = StoredFact  # what a brief line shows


def brief_line(fact: FactLike) -> str:
    contested = " (contested)" if fact.status == Status.CONTESTED else ""
    return f"- [{fact.tier}] {fact.subject}: {fact.predicate}={fact.object} (conf={fact.confidence:.2f}){contested}"


def world_brief(facts: Iterable[FactLike], max_tokens: int = 800, subject_prefix: str = "") -> str:
    """The live facts as tier-tagged lines, canon first and inferred last, within ``max_tokens``.

    Lines are added in order until the next one would overflow: lower tiers are the ones cut.
    """
    live = [f for f in facts if f.status in (Status.ACTIVE, Status.CONTESTED) and f.subject.startswith(subject_prefix)]
    canon = {(f.subject, f.predicate): f.object for f in live if f.tier == Tier.CANON}
    shown = [f for f in live if f.tier == Tier.CANON or canon.get((f.subject, f.predicate), f.object) == f.object]
    shown.sort(key=lambda f: (TIER_RANK[Tier(f.tier)], -f.confidence, f.subject, f.predicate))
    budget = max_tokens * CHARS_PER_TOKEN - len(RULE)
    lines: list[str] = []
    for fact in shown:
        line = brief_line(fact)
        if len(line) + 1 > budget:
            break
        lines.append(line)
        budget -= len(line) + 1
    return RULE + ("\n" + "\n".join(lines) if lines else "\n(no facts yet)")


F = TypeVar("F", bound=FactLike)


def contested_groups(facts: Sequence[F]) -> dict[tuple[str, str, str], list[F]]:
    """Live facts grouped by (subject, predicate, tier) where the group holds more than one object: the
    seed's detection, narrowed to one tier (a user claim beside canon is not a contest: canon wins)."""
    groups: dict[tuple[str, str, str], list[F]] = {}
    for fact in facts:
        if fact.status in (Status.ACTIVE, Status.CONTESTED):
            groups.setdefault((fact.subject, fact.predicate, str(fact.tier)), []).append(fact)
    return {key: group for key, group in groups.items() if len({f.object for f in group}) > 1}
