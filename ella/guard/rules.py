"""The small rule engine every category module shares: pattern compilation and context guards.

Why a rule engine and not a list of sentences: the guard is judged on messages nobody wrote down in advance, so
rules are compositional (self-reference + intent + harm, with a few words of slack) and the context checks
(negation, third person, idiom continuations, reported speech) live here once instead of inside each pattern.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TypedDict, Unpack

from ella.guard.prefilter import Prefilter, prefilter_of
from ella.guard.types import Category, Severity


class LazyPattern:
    """A regex compiled on its first use, not when its rule is written.

    Why: the guard has about 700 rules in five languages, and compiling all of them (and parsing each again for its
    prefilter literals) took 3.2 s of CPU in every process that imported them: each worker, each test worker, each
    CLI command. A message wakes a handful of rules through the prefilter, so a process compiles only the rules
    its messages have woken (a millisecond or two each, once). The prefilter literals come from a cache shipped
    with the package (``data/prefilter_cache.json``, ``prefilter_for``)."""

    __slots__ = ("_compiled", "pattern")
    flags = re.UNICODE  # what ``re.compile`` gives a str pattern: ``prefilter_of`` parses with it

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        found = self._compiled
        if found is None:  # two threads racing here both compile the same pattern: harmless
            found = self._compiled = re.compile(self.pattern)
        return found

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(string, pos, endpos)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"


PREFILTER_CACHE = "data/prefilter_cache.json"


@cache
def _prefilter_cache() -> dict[str, Prefilter | None]:
    """Every shipped rule pattern's prefilter, by the pattern's source (``python -m
    ella.guard.data.write_prefilter_cache`` writes it; ``tests/test_guard_classifier.py`` checks it is whole)."""
    path = resources.files("ella.guard").joinpath(PREFILTER_CACHE)
    if not path.is_file():
        return {}
    raw: dict[str, list[list[list[str]]] | None] = json.loads(path.read_text(encoding="utf-8"))
    return {
        source: None if value is None else tuple(tuple(frozenset(s) for s in alt) for alt in value)
        for source, value in raw.items()
    }


def prefilter_for(pattern: LazyPattern) -> Prefilter | None:
    """The prefilter of ``pattern``: from the shipped cache, or parsed now (a rule written since the cache was)."""
    cached = _prefilter_cache()
    if pattern.pattern in cached:
        return cached[pattern.pattern]
    return prefilter_of(pattern)  # type: ignore[arg-type]  # it reads only .pattern and .flags


_ALPHA_RUN = re.compile(r"\\?[a-z]+")


def _stretch_run(m: re.Match[str]) -> str:
    run = m.group(0)
    escape = ""
    if run.startswith("\\"):  # an escape such as \b \s \w: keep it, stretch what follows
        escape, run = run[:2], run[2:]
    tail = ""
    following = m.string[m.end() : m.end() + 1]
    if run and following and following in "?*{+":  # "pics?": the quantifier belongs to the last letter
        run, tail = run[:-1], run[-1]
    return escape + _stretch_word(run) + tail


@cache  # the same few thousand words recur across 700 patterns (72,000 runs): each is stretched once
def _stretch_word(word: str) -> str:
    """ "love" -> "l+o+v+e+"; a doubled letter stays at least double ("off" -> "o+ff+", never "of")."""
    if len(word) < 3:
        return word
    out: list[str] = []
    i = 0
    while i < len(word):
        ch = word[i]
        j = i
        while j < len(word) and word[j] == ch:
            j += 1
        out.append(ch * (j - i) + "+")
        i = j
    return "".join(out)


@cache
def stretch(pattern: str) -> str:
    """Let every literal word of 3+ letters absorb repeated letters ("love" matches "loove", "diiee").

    Normalisation squeezes runs to two letters; this makes the patterns indifferent to the rest. Patterns must
    not contain letter ranges inside character classes written as runs (``[aeiou]``); none do.
    """
    return _ALPHA_RUN.sub(_stretch_run, pattern)


def pattern_source(pattern: str) -> str:
    """Stretch; let word gaps (``\\w+\\s+``) span contractions such as "wasn't"; and, since normalised text has
    exactly one space between words, spell ``\\s+`` as a literal space (faster, and it gives longer prefilter
    literals)."""
    return stretch(pattern).replace(r"\w+\s+", r"[\w']+\s+").replace(r"\s+", " ").replace(r"\s*", " ?")


def compile_pattern(pattern: str) -> LazyPattern:
    """``pattern_source`` of ``pattern``, compiled on first use."""
    return LazyPattern(pattern_source(pattern))


# Clause boundaries: punctuation and the conjunctions that start a new proposition.
_CLAUSE_BREAK = re.compile(r"[.!?;:\n]|,\s*|\b(?:but|and|so|because|cause|cuz|though|although|yet|or|then)\b")

# A negator governing what follows, with only auxiliaries/adverbs in between ("would never", "I'm not going to").
NEG_TAIL = re.compile(
    r"(?:\b(?:not|never|no|nor|hardly|don'?t|do not|doesn'?t|didn'?t|won'?t|wouldn'?t|isn'?t|aren'?t|ain'?t|"
    r"shouldn'?t|no intention of|no plans? (?:to|of)|no desire to|no thoughts? of|no urge to|not once)"
    r")(?:\s+(?:ever|really|actually|even|at all|going to|gonna|go to|want to|wanna|plan(?:ning)? to|"
    r"intend(?:ing)? to|try(?:ing)? to|have|had|been|be|being|think(?:ing)? (?:about|of)|thought (?:about|of)|"
    r"consider(?:ed|ing)?|would|will|do|did|feel|feeling|am|the type to|the kind of person to|about to|any|"
    r"do anything to|do something to|anything to|ever want to))*\s*$"
)

_FIRST = frozenset("i i'm im i've ive i'd id i'll me my mine myself we we're our".split())
_THIRD = frozenset(
    """he she they his her their him them he's shes she's they're theyre hes someone somebody people
    character characters friend friends guy girl boy man woman kid kids person who brother sister mom mum
    dad father mother son daughter cousin aunt uncle grandma grandpa grandmother grandfather grandad nan
    hero heroine villain protagonist author singer actor actress celebrity teen teens student students patient
    patients neighbour neighbor colleague coworker boss partner husband wife boyfriend girlfriend bf gf""".split()
)
_WORD = re.compile(r"[a-z']+")

# Someone else's words, or a title: "my boyfriend said I love you", a song called "Kiss Me". The speaker's own
# "if I told you ..." / "I said ..." is not reported speech: it is what they are saying now.
REPORTED = re.compile(
    r"(?<!\bi )(?<!\bif i )\b(?:said|says|say|told|tells|texted|texts|wrote|writes|asked|asks|sang|sings|song|"
    r"songs|titled|called|named|quote|quoted|line|lyrics?|movie|film|book|episode|show|meme|poster|apron|shirt|mug|sign|card)\b"
)


def clause_prefix(text: str, start: int, window: int = 90) -> str:
    """The words of the current clause before ``start`` (what can negate or re-attribute a match)."""
    head = text[max(0, start - window) : start]
    end = 0
    for brk in _CLAUSE_BREAK.finditer(head):
        end = brk.end()
    return head[end:]


def is_negated(prefix: str) -> bool:
    return NEG_TAIL.search(prefix) is not None


def third_person(prefix: str) -> bool:
    """True when the nearest person in the clause before the match is someone else ("my friend wants to die")."""
    for word in reversed(_WORD.findall(prefix)):
        if word in _THIRD:
            return True
        if word in _FIRST:
            return False
    return False


def has_first_person(text: str) -> bool:
    return any(w in _FIRST for w in _WORD.findall(text))


Guard = Callable[[str, re.Match[str]], bool]  # (normalised text, match) -> reject?


def unless(pattern: str) -> Guard:
    """Reject a match when ``pattern`` occurs anywhere in the message (its ordinary reading: "my partner")."""
    compiled = LazyPattern(pattern)
    return lambda text, _match: compiled.search(text) is not None


def only_with(pattern: str) -> Guard:
    """Reject a match unless ``pattern`` occurs somewhere in the message. Unlike ``requires`` (checked before the
    rule's own pattern), this runs after it: for a common ``pattern`` behind a rare rule pattern."""
    compiled = LazyPattern(pattern)
    return lambda text, _match: compiled.search(text) is None


def preceded_by(pattern: str, window: int = 40) -> Guard:
    """Reject a match unless ``pattern`` occurs in the ``window`` characters before it (``$`` there means right
    before the match). Lets a rule's pattern be its rare word ("overdose") and the common words around it ("I'm
    going to") be checked only when the rare one is present."""
    compiled = LazyPattern(pattern)
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is None


def ends_before(pattern: str, window: int = 40) -> Guard:
    """Reject a match when ``pattern`` ends right before it (within ``window`` characters, commas included): a
    negation in a language whose negators ``is_negated`` does not know ("ich würde nie", "je ne vais pas")."""
    compiled = LazyPattern(stretch(pattern) + r"\s*$")
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def occurs_before(pattern: str, window: int = 60) -> Guard:
    """Reject a match when ``pattern`` occurs in the ``window`` characters before it (reported speech, a title)."""
    compiled = LazyPattern(stretch(pattern))
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def all_of(*guards: Guard) -> Guard:
    """Reject a match when any of ``guards`` rejects it ("needs a first person" and "not about a hobby")."""
    return lambda text, m: any(g(text, m) for g in guards)


@dataclass(frozen=True, slots=True)
class Rule:
    """One pattern and how to read its matches.

    ``negatable``: a negator right before it turns the match into a negated mention (crisis only).
    ``self_check``: reject when the clause is about someone else, unless the match itself names the speaker.
    ``reported``: reject when the clause reports someone else's words or names a song/film/apron.
    ``after``: a regex that, matching right after the match, marks an idiom ("die for", "live in").
    ``requires``: a regex that must also match somewhere in the message.
    ``guard``: any extra check.
    """

    id: str
    category: Category
    severity: Severity
    pattern: LazyPattern
    negatable: bool = False
    self_check: bool = False
    reported: bool = False
    after: LazyPattern | None = None
    before: LazyPattern | None = None
    requires: LazyPattern | None = None
    guard: Guard | None = None
    prefilter: Prefilter | None = None


class RuleFlags(TypedDict, total=False):
    """The :class:`Rule` fields :func:`rule` passes through unchanged, so a misspelt flag fails the type check."""

    negatable: bool
    self_check: bool
    reported: bool
    guard: Guard | None


def rule(
    id: str,
    category: Category,
    severity: Severity,
    pattern: str,
    *,
    after: str | None = None,
    before: str | None = None,
    requires: str | None = None,
    **flags: Unpack[RuleFlags],
) -> Rule:
    """Build a :class:`Rule`: its regexes are stretched now and compiled on first use (``LazyPattern``)."""
    compiled = compile_pattern(pattern)
    return Rule(
        id=id,
        category=category,
        severity=severity,
        pattern=compiled,
        prefilter=prefilter_for(compiled),
        after=LazyPattern(stretch(after)) if after else None,
        before=LazyPattern(stretch(before) + r"\s*$") if before else None,
        requires=compile_pattern(requires) if requires else None,
        **flags,
    )


@dataclass(frozen=True, slots=True)
class Hit:
    rule: Rule
    negated: bool


def find(
    rules: tuple[Rule, ...], text: str, present: set[str] | None = None, near: set[Category] | None = None
) -> list[Hit]:
    """Every rule's first accepted match in ``text`` (one hit per rule is enough to decide).

    ``present`` is the set of prefilter literals occurring in ``squeeze(text)`` (see ``PrefilterIndex``); a rule
    runs only when each of its prefilter sets has a literal present. Without it every rule runs (slower, same answer).
    ``near`` collects the categories whose pattern matched but was set aside as an idiom, a third person or
    reported speech: the rules looked and judged it ordinary, which the learned model must not overturn ("love
    you guys").
    """
    hits: list[Hit] = []
    for r in rules:
        if present is not None and r.prefilter is not None and not _may_match(r.prefilter, present):
            continue
        if r.requires is not None and r.requires.search(text) is None:
            continue
        negated_hit = False
        accepted = False
        pos = 0
        while True:
            m = r.pattern.search(text, pos)
            if m is None:
                break
            pos = m.start() + 1
            if _rejected(r, text, m):
                if near is not None:
                    near.add(r.category)
                continue
            prefix = clause_prefix(text, m.start())
            if r.negatable and is_negated(prefix):
                negated_hit = True
                continue
            accepted = True
            break
        if accepted:
            hits.append(Hit(r, negated=False))
        elif negated_hit:
            hits.append(Hit(r, negated=True))
    return hits


def _may_match(prefilter: Prefilter, present: set[str]) -> bool:
    return any(all(not s.isdisjoint(present) for s in alternative) for alternative in prefilter)


class RuleSet:
    """Rules indexed by the rarest literal set of each alternative, so a message's present literals pick the few
    rules worth a closer look without a Python loop over all of them (most messages wake none)."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules
        by_literal: dict[str, list[int]] = {}
        self._always: frozenset[int] = frozenset(i for i, r in enumerate(rules) if r.prefilter is None)
        for i, r in enumerate(rules):
            for alternative in r.prefilter or ():
                for literal in alternative[0]:
                    by_literal.setdefault(literal, []).append(i)
        self._by_literal = {a: tuple(ids) for a, ids in by_literal.items()}

    def candidates(self, present: set[str] | None) -> tuple[Rule, ...]:
        """The rules, in their order, whose rarest set for some alternative has a literal present (all of them
        when ``present`` is None)."""
        if present is None:
            return self.rules
        ids = set(self._always)
        by_literal = self._by_literal
        for literal in present:
            hit = by_literal.get(literal)
            if hit is not None:
                ids.update(hit)
        return tuple(self.rules[i] for i in sorted(ids))


def _rejected(r: Rule, text: str, m: re.Match[str]) -> bool:
    if r.after is not None and r.after.match(text, m.end()):
        return True
    prefix = clause_prefix(text, m.start())
    if r.before is not None and r.before.search(prefix):
        return True
    if r.self_check and not has_first_person(m.group(0)) and third_person(prefix):
        return True
    if r.reported and REPORTED.search(prefix):
        return True
    return r.guard is not None and r.guard(text, m)


def write_prefilter_cache(rules: list[Rule]) -> int:
    """Write every rule pattern's prefilter, parsed afresh, to the shipped cache; returns how many."""
    table = {
        r.pattern.pattern: None if pf is None else [[sorted(s) for s in alt] for alt in pf]
        for r in rules
        for pf in [prefilter_of(r.pattern)]  # type: ignore[arg-type]
    }
    path = resources.files("ella.guard").joinpath(PREFILTER_CACHE)
    with resources.as_file(path) as target:
        text = json.dumps(table, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        target.write_text(text + "\n", encoding="utf-8")
    _prefilter_cache.cache_clear()
    return len(table)
