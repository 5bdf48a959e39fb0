"""The weekly contest resolution's decisions: which contests to ask about, what to ask, what the answer means.

Two live facts of one tier that disagree are both contested (``models.ledger`` marks them). Once a week the
contested-resolution tier is asked to pick a winner. Why a human queue beside it: a model that cannot decide,
or a call that failed, must not pick a winner by default; the pair waits in ``fact_reviews`` instead, and a
contest already waiting there is not asked about again. ``tasks.ledger`` loads the facts, calls the model,
and stores what ``decide`` returns.

Why a model error is decided here too: the weekly run goes through every user with contests, and one user's
request must never stop it for the others. A refused request (a 400) would be refused again next week, so it
waits for a person (``refused``); an API that stays overloaded (a 529 past its retries) says nothing about the
contest, so the user's contests are left as they are for the next run.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ella.ledger.brief import contested_groups
from ella.ledger.facts import StoredFact
from ella.llm.kinds import ContestedVerdict
from ella.llm.port import ModelResult

Candidate = StoredFact  # what a contest shows the model of each contested fact


@dataclass(frozen=True)
class Contest:
    subject: str
    predicate: str
    tier: str
    facts: tuple[Candidate, ...]

    @property
    def fact_ids(self) -> list[int]:
        return [f.id for f in self.facts]

    def variables(self) -> dict[str, Any]:
        """The contested-verdict prompt's variables: the candidates in order (the verdict names one by number)."""
        candidates = [
            {
                "tier": f.tier,
                "object": f.object,
                "confidence": f.confidence,
                "created_at": f.recorded_at.isoformat(),
                "note": f.note,
            }
            for f in self.facts
        ]
        return {"subject": self.subject, "predicate": self.predicate, "candidates": candidates}

    def context(self) -> dict[str, Any]:
        """What validates the verdict: its winner must be one of the candidates' numbers."""
        return {"candidate_count": len(self.facts)}


def open_contests(live: Sequence[Candidate], in_review: Collection[int]) -> tuple[list[Contest], int]:
    """The contests among the live facts that are not waiting for a person, and how many are (skipped)."""
    contests: list[Contest] = []
    skipped = 0
    for (subject, predicate, tier), group in contested_groups(live).items():
        facts = tuple(group)
        if any(f.id in in_review for f in facts):
            skipped += 1
            continue
        contests.append(Contest(subject, predicate, tier, facts))
    return contests, skipped


@dataclass(frozen=True)
class Resolve:
    """The model picked a winner: it stays active, the losers are superseded with the reason in their note."""

    winner_id: int
    loser_ids: list[int]
    reason: str


@dataclass(frozen=True)
class Review:
    """Nobody decided: the contest waits for a person, with why."""

    fact_ids: list[int]
    reason: str


def decide(contest: Contest, result: ModelResult[ContestedVerdict]) -> Resolve | Review:
    """What the verdict means. A fail-safe's "undecided" is not the model's judgement: the reason says which."""
    verdict = result.value
    if result.failsafe:
        return Review(contest.fact_ids, f"model failed: {result.error[:200]}")
    if verdict.winner == 0:
        return Review(contest.fact_ids, f"undecided: {verdict.reason}")
    winner = contest.facts[verdict.winner - 1]
    return Resolve(winner.id, [f.id for f in contest.facts if f.id != winner.id], verdict.reason)


def refused(contest: Contest, error: str) -> Review:
    """The model refused the request (not retried): asking again would fail the same way, so a person decides."""
    return Review(contest.fact_ids, f"model refused: {error[:200]}")
