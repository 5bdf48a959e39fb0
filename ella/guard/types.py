"""The guard's vocabulary: categories, severities, routes and the verdict it returns."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

DETECTOR_VERSION = "guard-2.0.0"  # 1.1: learned opinion; 1.2: text-speak; 1.3: plans, farewells, meeting (issue 15);
# 1.4: de/es/fr/it, persona swaps, the conversation around a message, the language it cannot read (issue 25);
# 2.0: the learned stage over the multilingual sentence vector, on by default, graded (sure / suspect) (issue 33)


class Category(StrEnum):
    """What a message is about, from the boundary's point of view ("warm, never romantic")."""

    ROMANTIC_AVOWAL = "romantic_avowal"
    PHYSICAL_ESCALATION = "physical_escalation"
    EMOTIONAL_CRISIS = "emotional_crisis"
    MANIPULATION = "manipulation"
    OK = "ok"


class Severity(IntEnum):
    """Ordered so the worst of several matches is simply ``max``; ``.label`` gives the lower-case name."""

    NONE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Route(StrEnum):
    """Where the reply comes from: the model, or a prewritten path chosen by the guard."""

    GENERATE = "generate"
    WARM_BOUNDED = "warm_bounded"
    CALM_REFUSAL = "calm_refusal"
    CRISIS_REFERRAL = "crisis_referral"
    CHECK_IN = "check_in"


ROUTE_FOR: dict[Category, Route] = {
    Category.ROMANTIC_AVOWAL: Route.WARM_BOUNDED,
    Category.PHYSICAL_ESCALATION: Route.CALM_REFUSAL,
    Category.MANIPULATION: Route.CALM_REFUSAL,
    Category.EMOTIONAL_CRISIS: Route.CRISIS_REFERRAL,
    Category.OK: Route.GENERATE,
}

# When several categories fire, the first in this list wins: crisis always does.
PRECEDENCE: tuple[Category, ...] = (
    Category.EMOTIONAL_CRISIS,
    Category.PHYSICAL_ESCALATION,
    Category.MANIPULATION,
    Category.ROMANTIC_AVOWAL,
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The guard's answer. ``matched`` is a rule id (e.g. ``crisis.active.reflexive``), never the user's text,
    so verdicts can be logged and counted without storing what someone wrote in a bad moment."""

    category: Category
    severity: Severity
    route: Route
    matched: str = ""
    negated: bool = False
    # The message's language as the guard read it ("de"; "" when too short or mixed to say), and whether it is
    # one the guard cannot read (``ella.guard.language``): its ``ok`` then means "not understood", not "ordinary".
    language: str = ""
    unreadable: bool = False
    # The learned stage's probability behind a ``semantic.*`` verdict (None for a rule's): logged with the route.
    score: float | None = None
