"""The rules' prefilter: a cheap ``in`` test on literal strings that lets most rules skip most messages.

Why: 60-odd regexes over a 500-character message cost milliseconds in CPython's ``re``; a substring test costs
nanoseconds. For each compiled pattern we derive, from its parse tree, a set of literal strings such that every
possible match contains at least one of them (e.g. ``{"myself", "life", "wrist", "throat"}``), and up to three
such sets, one per required part of the pattern: the rule's prefilter. A rule runs only when each of its sets
has a literal in the message. A literal right after ``\b`` must begin a word there ("^end": "end it", not
"weekend"). Patterns are "stretched"
(``l+o+v+e+``), so literals and message are both compared with letter runs squeezed to one ("love" -> "love",
"kill" -> "kil").

Why behind :func:`_regex_internals`: Python has no public API for a regex's parse tree, so the walk reads the
private ``re._parser`` and ``re._constants``. If a Python upgrade moves them, every pattern gets no prefilter
(every rule runs: slower, same verdicts) instead of the guard failing to import, and
``tests/test_guard_classifier.py`` pins their shape so the upgrade fails a test rather than quietly slowing
production.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from types import ModuleType
from typing import Any

import ahocorasick

_RUNS = re.compile(r"(.)\1+")

# Marks a prefilter literal that must begin a word ("^end" is in "end it", not in "weekend").
WORD_START = "^"

# A parse-tree node of the private ``re._parser``: ``(opcode, argument)``, both untyped by Python itself.
_Node = tuple[Any, Any]


# Words too common to be worth requiring when a rarer required part exists ("take ... pills" requires pills).
_COMMON = frozenset(
    """the a an to and with about around would never want wana take taking taken tok life my me here more now
    what your you are was were could be would be have having make give send think thinking going go on if i end
    stop tonight right now like this is after away not live living down eat ate eating pop run walk step drive be
    in on i'm i am the one the only act play are my was with the were could would might plan i've i'l about to
    decided to gona ned to should will do did any more any longer out it all can for of off from so just that
    something realy know time god day fel ned people back long anyway today still much get got ben over only
    there when how they them she he one say said se wel even some talk""".split()
)


@cache
def _regex_internals() -> tuple[ModuleType, ModuleType] | None:
    """``(re._parser, re._constants)``, or None when this Python does not have them where we expect."""
    try:
        parser, constants = importlib.import_module("re._parser"), importlib.import_module("re._constants")
    except ImportError:
        return None
    needed = (
        "LITERAL", "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT", "AT", "SUBPATTERN", "BRANCH", "AT_BOUNDARY",
        "AT_BEGINNING", "AT_BEGINNING_STRING", "IN", "ASSERT", "ASSERT_NOT", "CATEGORY", "CATEGORY_SPACE",
        "CATEGORY_NOT_WORD",
    )  # fmt: skip
    if not callable(getattr(parser, "parse", None)) or not all(hasattr(constants, name) for name in needed):
        return None
    return parser, constants


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _is_common(literal: str) -> bool:
    a = literal.lstrip(WORD_START).strip()
    return len(squeeze(a)) < 3 or a in _COMMON or squeeze(a) in _COMMON


def squeeze(text: str) -> str:
    """Collapse every run of a repeated character to one ("kiill" -> "kil")."""
    return _RUNS.sub(r"\1", text)


def _literal_char(item: _Node, c: ModuleType) -> str | None:
    op, av = item
    if op is c.LITERAL:
        return chr(av)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        lo, _hi, body = av
        if lo >= 1 and len(body) == 1 and body[0][0] is c.LITERAL:
            return chr(body[0][1])
    return None


def _required(seq: list[_Node], c: ModuleType, at_start: bool = False) -> frozenset[str] | None:
    """Literals of a sequence: the most selective required set among its parts (None: none is required)."""
    candidates = _candidates(seq, c, at_start)
    return max(candidates, key=_selectivity) if candidates else None


def _candidates(seq: list[_Node], c: ModuleType, at_start: bool = False) -> list[frozenset[str]]:
    """Every literal set a match of the sequence must meet, one per part that has one.

    ``at_start``: the sequence begins at a word boundary (a ``\\b`` or ``^`` right before it). A literal that
    begins there is marked with :data:`WORD_START`: "end" after ``\\b`` is wanted as a word ("end it"), and
    "weekend" must not wake the rule."""
    candidates: list[frozenset[str]] = []
    run = ""
    run_anchored = False
    boundary = at_start
    for item in seq:
        ch = _literal_char(item, c)
        if ch is not None:
            if not run:
                run_anchored = boundary and _is_word_char(ch)
            run += ch
            boundary = not _is_word_char(ch)  # after "i'm " the next word begins a word
            continue
        op, av = item
        if op is c.AT:
            if av in (c.AT_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING):
                boundary = True
            continue  # zero-width: they neither add nor break a literal run
        if run:
            candidates.append(frozenset({WORD_START + run if run_anchored else run}))
            run = ""
        sub: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            sub = _required(list(av[-1]), c, boundary)
        elif op is c.BRANCH:
            parts = [_required(list(b), c, boundary) for b in av[1]]
            if all(p is not None for p in parts):
                sub = frozenset().union(*(p for p in parts if p is not None))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            sub = _required(list(av[2]), c, boundary)
        elif op is c.IN and av and all(kind is c.LITERAL for kind, _ in av):
            sub = frozenset(chr(ch) for _, ch in av)  # a class of single characters: "[😏😈]"
        if sub:
            candidates.append(sub)
        boundary = _ends_word_break(item, boundary, c)
    if run:
        candidates.append(frozenset({WORD_START + run if run_anchored else run}))
    return candidates


def _ends_word_break(item: _Node, before: bool, c: ModuleType) -> bool:
    """Whether every way of matching ``item`` leaves the position right after a non-word character (or at a word
    boundary), given ``before`` for the position before it: then a literal that follows and begins with a letter
    begins a word. False whenever unsure (a literal left unmarked only makes the prefilter less picky)."""
    op, av = item
    ch = _literal_char(item, c)
    if ch is not None:
        return not _is_word_char(ch)
    if op is c.AT:
        return True if av in (c.AT_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING) else before
    if op in (c.ASSERT, c.ASSERT_NOT):
        return before  # zero-width
    if op is c.SUBPATTERN:
        return _seq_ends_word_break(list(av[-1]), before, c)
    if op is c.BRANCH:
        return all(_seq_ends_word_break(list(b), before, c) for b in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        lo, _hi, body = av
        after_one = _seq_ends_word_break(list(body), True, c) and _seq_ends_word_break(list(body), False, c)
        return after_one if lo >= 1 else (before and after_one)
    if op is c.IN:
        return bool(av) and all(_nonword_member(kind, value, c) for kind, value in av)
    return False


def _seq_ends_word_break(seq: list[_Node], before: bool, c: ModuleType) -> bool:
    state = before
    for item in seq:
        state = _ends_word_break(item, state, c)
    return state


def _nonword_member(kind: Any, value: Any, c: ModuleType) -> bool:
    if kind is c.LITERAL:
        return not _is_word_char(chr(value))
    return kind is c.CATEGORY and value in (c.CATEGORY_SPACE, c.CATEGORY_NOT_WORD)


def _selectivity(literals: frozenset[str]) -> tuple[bool, float, float, int]:
    """Sort key, rarest set last: a set is as common as its most common literal, so a set with no common
    literal wins, then the longest shortest literal (a marked word start counts as half a character more)."""
    common = [_is_common(a) for a in literals]
    shortest = min(len(squeeze(a.lstrip(WORD_START)).strip()) + 0.5 * (a[0] == WORD_START) for a in literals)
    return (not any(common), shortest, -sum(common) / len(literals), -len(literals))


# A rule's prefilter: alternatives (one per top-level ``|`` of its pattern), each a tuple of literal sets. The rule
# runs when, for some alternative, every set has a literal in the message.
Prefilter = tuple[tuple[frozenset[str], ...], ...]


def prefilter_of(pattern: re.Pattern[str], most: int = 3) -> Prefilter | None:
    """Squeezed prefilter literal sets of ``pattern``, per top-level alternative: every match of an alternative
    contains a literal of each of its sets. None when some match could avoid every literal (or the regex internals
    are unavailable): the rule always runs.

    Up to ``most`` sets per alternative, rarest first: a rule runs only when each set has a literal in the message,
    so even a set of everyday words ("can't", "this", "anymore") rules out most messages when it must come with
    the others. Alternatives are kept apart so that one weak alternative does not wake the rule for all."""
    internals = _regex_internals()
    if internals is None:
        return None
    parser, constants = internals
    out: list[tuple[frozenset[str], ...]] = []
    for seq, at_start in _alternatives(list(parser.parse(pattern.pattern, pattern.flags)), constants):
        sets = [frozenset(squeeze(a) for a in found) for found in _candidates(seq, constants, at_start)]
        usable = [
            found for found in sets if not any(len(a.lstrip(WORD_START)) < 2 and a.isascii() for a in found)
        ]  # an emoji is rare enough alone; a single ASCII letter is not
        if not usable:
            return None
        usable.sort(key=_selectivity, reverse=True)
        out.append(tuple(usable[:most]))
    return tuple(out)


def _alternatives(tree: list[_Node], c: ModuleType) -> list[tuple[list[_Node], bool]]:
    """The top-level alternatives of a parsed pattern (``\\b(?:a|b)`` and ``a|b`` have two), each with whether it
    starts at a word boundary; a pattern without a top-level ``|`` is its own single alternative."""
    lead = 0
    while lead < len(tree) and tree[lead][0] is c.AT:
        lead += 1
    boundary = any(av in (c.AT_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING) for _, av in tree[:lead])
    rest = tree[lead:]
    if len(rest) == 1:
        op, av = rest[0]
        if op is c.SUBPATTERN:
            inner = list(av[-1])
            if len(inner) == 1 and inner[0][0] is c.BRANCH:
                return [(list(b), boundary) for b in inner[0][1][1]]
        elif op is c.BRANCH:
            return [(list(b), boundary) for b in av[1]]
    return [(tree, False)]


class PrefilterIndex:
    """Every prefilter literal of a rule set in one Aho-Corasick automaton (``pyahocorasick``), so one pass in C
    finds every literal present, however many there are.

    Marked literals (:data:`WORD_START`) count only where a word begins, as ``\\b`` would say: the characters on
    either side of the literal's start differ in being word characters (``str.isalnum`` or ``_``, the definition
    of ``\\w`` for ``str`` patterns). The result is exactly the set of literals occurring in the text. It replaced
    two trie-shaped regexes (a lookahead at every position; ~110 µs per 500 characters against ~40 µs here).
    """

    def __init__(self, literals: frozenset[str] | set[str]) -> None:
        self._plain = ahocorasick.Automaton()
        self._marked = ahocorasick.Automaton()
        for a in literals:
            if a.startswith(WORD_START):
                body = a[len(WORD_START) :]
                if body:
                    self._marked.add_word(body, (len(body) - 1, _is_word_char(body[0]), a))
            elif a:
                self._plain.add_word(a, a)
        for automaton in (self._plain, self._marked):
            if len(automaton):
                automaton.make_automaton()

    def present(self, squeezed: str) -> set[str]:
        found: set[str] = set()
        if len(self._plain):
            found.update(a for _end, a in self._plain.iter(squeezed))
        if len(self._marked):
            for end, (back, starts_word, a) in self._marked.iter(squeezed):
                i = end - back  # where the literal starts: \b there when the word-ness changes
                if (i > 0 and _is_word_char(squeezed[i - 1])) != starts_word:
                    found.add(a)
        return found
