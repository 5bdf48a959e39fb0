"""``classify``: normalise, run every category's rules, apply precedence and negation.

Why all rules run (rather than stopping at the first hit): precedence is by category, not by rule order, so a
romantic line that also contains crisis language must still come out as crisis, and a negated crisis mention
must not hide a genuine one later in the same message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import ella.guard.semantic as semantic_stage
from ella.guard.language import read_language
from ella.guard.model import load_model
from ella.guard.normalise import normalise_variants
from ella.guard.prefilter import PrefilterIndex, squeeze
from ella.guard.rules import Hit, Rule, RuleSet, find
from ella.guard.types import PRECEDENCE, ROUTE_FOR, Category, Route, Severity, Verdict


@dataclass(frozen=True)
class CompiledRules:
    rules: dict[Category, tuple[Rule, ...]]
    index: PrefilterIndex
    sets: dict[Category, RuleSet]


@cache
def compiled_rules() -> CompiledRules:
    """Every category's rules, compiled once per process, on first use. Why not at import: the five languages'
    patterns take about two seconds of CPU to compile, and every process that imports the guard (each CLI command,
    beat, Flower) would pay it whether it classifies or not. A worker compiles them before its pool forks
    (``workers.app``), so its children inherit them."""
    import ella.guard.crisis as crisis
    import ella.guard.crisis_signals as crisis_signals
    import ella.guard.manipulation as manipulation
    import ella.guard.multilingual as multilingual
    import ella.guard.physical as physical
    import ella.guard.romance as romance

    rules = {
        Category.EMOTIONAL_CRISIS: crisis.RULES + crisis_signals.RULES + multilingual.CRISIS,
        Category.PHYSICAL_ESCALATION: physical.RULES + multilingual.PHYSICAL,
        Category.MANIPULATION: manipulation.RULES + multilingual.MANIPULATION,
        Category.ROMANTIC_AVOWAL: romance.RULES + multilingual.ROMANCE,
    }
    index = PrefilterIndex(
        {a for group in rules.values() for r in group for alt in r.prefilter or () for s in alt for a in s}
    )
    return CompiledRules(rules, index, {category: RuleSet(group) for category, group in rules.items()})


def prepare() -> None:
    """Load now everything ``classify`` would load on first use: the compiled rules, the language identifier, the
    n-gram model, the learned stage's head and the sentence encoder. A worker calls it before its pool forks, so
    each child inherits them instead of paying 2-5 s of CPU (and its own copy) in its first task."""
    from ella.guard.language import warm_up

    compiled_rules()
    warm_up()
    load_model()
    semantic_stage.prepare()


def __getattr__(name: str) -> Any:
    """``RULES``: every category's rules (compiled on first access, like ``compiled_rules``)."""
    if name == "RULES":
        return compiled_rules().rules
    raise AttributeError(name)


_OK = Verdict(Category.OK, Severity.NONE, Route.GENERATE)
_WINDOW = 4000  # characters classified at once: the cost of one window is bounded
_OVERLAP = 300  # a phrase cut by a window's edge is whole in the next one


# Ella's own replies: the learned stage judges only whether they turned romantic or physical (a reply that meets a
# crisis with care reads like one, and a reply is never manipulation of Ella), and only when it is sure.
OUTBOUND_SET_ASIDE = frozenset({Category.EMOTIONAL_CRISIS, Category.MANIPULATION})


def classify(
    text: str,
    *,
    learned: bool = True,
    semantic: bool = True,
    language: bool = True,
    outbound: bool = False,
) -> Verdict:
    """The boundary verdict for one inbound message (``outbound=True``: one of Ella's texts; ``learned=False``: the
    rules alone, for stored text judged as written).

    ``learned``: let the n-gram model speak when the rules are silent (trained on what users write, so Ella's own
    replies never meet it). ``semantic``: after both, the learned stage over the message's sentence vector
    (``ella.guard.semantic``), graded into sure verdicts and crisis check-ins; off, nothing of it loads.
    ``outbound``: the text is Ella's own reply: the rules, then the learned stage for romance and physical
    escalation only and only when sure (``OUTBOUND_SET_ASIDE``).
    ``language``: read the message's language (``with_language``); the conversation's reading of earlier turns and
    of the turns joined needs only their category, not another pass of the identifier.

    A long message is classified in overlapping windows and the gravest verdict wins, so a crisis sentence
    at the end of a long paste is not missed; the cost stays linear in the length, which the ingest contract
    already caps (``ELLA_MAX_MESSAGE_CHARS``).
    """
    if not text or not text.strip():
        return _OK
    learned = learned and not outbound
    if len(text) <= _WINDOW:
        verdict = _classify_window(text, learned, semantic, outbound)
    else:
        step = _WINDOW - _OVERLAP
        windows = range(0, len(text) - _OVERLAP, step)
        verdict = min(
            (_classify_window(text[i : i + _WINDOW], learned, semantic, outbound) for i in windows), key=_gravity
        )
    return with_language(verdict, text) if learned and language else verdict


def with_language(verdict: Verdict, text: str) -> Verdict:
    """The verdict with the message's language; an ``ok`` for a message the guard cannot read says so
    (``unreadable``), since none of its rules could have matched (``ella.guard.language``)."""
    reading = read_language(text[:_WINDOW])
    learned_only = verdict.matched.startswith("semantic.")
    unread = not reading.readable and (
        (verdict.category is Category.OK and verdict.route is Route.GENERATE) or learned_only
    )
    if unread:  # the learned stage was fitted on five languages: outside them its finding is not a verdict either
        return replace(_OK, language=reading.code, unreadable=True, matched="language.unreadable")
    return replace(verdict, language=reading.code)


def _gravity(verdict: Verdict) -> tuple[int, int]:
    """Sort key: the category's precedence first (crisis first), then severity, then a check-in over plain ok."""
    rank = PRECEDENCE.index(verdict.category) if verdict.category in PRECEDENCE else len(PRECEDENCE)
    return rank, -int(verdict.severity)


def _second_opinion(normalised: str, set_aside: set[Category]) -> Verdict:
    """The learned model's verdict when the rules found nothing. It never overrides a rule, a negation, or a
    category whose rules matched and judged the match ordinary (an idiom, a third person, reported speech)."""
    model = load_model()
    opinion = model.opinion(normalised, normalised=True) if model is not None else None
    if opinion is None or Category(opinion[0]) in set_aside:
        return _OK
    category = Category(opinion[0])
    return Verdict(category, Severity.MEDIUM, ROUTE_FOR[category], matched=f"model.{category.value}")


def _classify_window(text: str, learned: bool, semantic: bool = False, outbound: bool = False) -> Verdict:
    compiled = compiled_rules()
    variants = [(v, compiled.index.present(squeeze(v))) for v in normalise_variants(text)]
    negated_crisis: Hit | None = None
    set_aside: set[Category] = set()
    for category in PRECEDENCE:
        best: Hit | None = None
        for variant, present in variants:
            for hit in find(compiled.sets[category].candidates(present), variant, present, set_aside):
                if hit.negated:
                    if category is Category.EMOTIONAL_CRISIS and negated_crisis is None:
                        negated_crisis = hit
                    continue
                if best is None or hit.rule.severity > best.rule.severity:
                    best = hit
        if best is not None:
            return Verdict(
                category,
                best.rule.severity,
                ROUTE_FOR[category],
                matched=best.rule.id,
                negated=negated_crisis is not None,
            )
    if negated_crisis is not None:
        return Verdict(Category.OK, Severity.LOW, Route.CHECK_IN, matched=negated_crisis.rule.id, negated=True)
    if outbound:
        return semantic_stage.opinion(text, set_aside | OUTBOUND_SET_ASIDE, suspicion=False) if semantic else _OK
    if not learned:
        return _OK
    opinion = _second_opinion(variants[0][0], set_aside)
    if semantic and opinion.category is Category.OK:
        return semantic_stage.opinion(text, set_aside)
    return opinion
