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
        "AT_BEGINNING", "AT_BEGINNING_STRING",
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
            boundary = False
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
        if sub:
            candidates.append(sub)
        boundary = False
    if run:
        candidates.append(frozenset({WORD_START + run if run_anchored else run}))
    return candidates


def _selectivity(literals: frozenset[str]) -> tuple[bool, float, float, int]:
    """Sort key, rarest set last: a set is as common as its most common literal, so a set with no common
    literal wins, then the longest shortest literal (a marked word start counts as half a character more)."""
    common = [_is_common(a) for a in literals]
    shortest = min(len(squeeze(a.lstrip(WORD_START)).strip()) + 0.5 * (a[0] == WORD_START) for a in literals)
    return (not any(common), shortest, -sum(common) / len(literals), -len(literals))


def prefilter_of(pattern: re.Pattern[str], most: int = 3) -> tuple[frozenset[str], ...] | None:
    """Squeezed prefilter literal sets of ``pattern``: every match contains a literal of each set. None when
    some match could avoid every literal (or the regex internals are unavailable): the rule always runs.

    Up to ``most`` sets, rarest first: a rule runs only when each set has a literal in the message, so even a set
    of everyday words ("can't", "this", "anymore") rules out most messages when it must come with the others."""
    internals = _regex_internals()
    if internals is None:
        return None
    parser, constants = internals
    sets = [
        frozenset(squeeze(a) for a in found)
        for found in _candidates(list(parser.parse(pattern.pattern, pattern.flags)), constants)
    ]
    usable = [
        found for found in sets if not any(len(a.lstrip(WORD_START)) < 2 and a.isascii() for a in found)
    ]  # an emoji is rare enough alone; a single ASCII letter is not
    if not usable:
        return None
    usable.sort(key=_selectivity, reverse=True)
    return tuple(usable[:most])


# A trie of literals: character -> subtree; the key "" marks the end of a literal.
_Trie = dict[str, "_Trie"]


class PrefilterIndex:
    """All prefilter literals of a rule set in one trie-shaped regex, so one scan finds every literal present.

    A zero-width lookahead at each position reports the longest literal starting there; literals that are
    prefixes of it are added from a precomputed table, so the result is exactly the set of literals occurring in
    the text. Where the position begins a word, the same literals marked with :data:`WORD_START` are added too.
    """

    def __init__(self, literals: frozenset[str] | set[str]) -> None:
        plain = {a.lstrip(WORD_START) for a in literals}
        trie: _Trie = {}
        for a in plain:
            node = trie
            for ch in a:
                node = node.setdefault(ch, {})
            node[""] = {}
        self._scan = re.compile("(?=(" + _trie_regex(trie) + "))") if plain else None
        self._prefixes = {a: frozenset(a[:i] for i in range(1, len(a) + 1) if a[:i] in plain) for a in plain}
        self._anchored = {a: ps | {WORD_START + p for p in ps} for a, ps in self._prefixes.items()}

    def present(self, squeezed: str) -> set[str]:
        found: set[str] = set()
        if self._scan is None:
            return found
        prefixes, anchored = self._prefixes, self._anchored
        for m in self._scan.finditer(squeezed):
            start = m.start()
            if start == 0 or not _is_word_char(squeezed[start - 1]):
                found |= anchored[m.group(1)]
            else:
                found |= prefixes[m.group(1)]
        return found


def _trie_regex(node: _Trie) -> str:
    terminal = "" in node
    parts = [re.escape(ch) + _trie_regex(child) for ch, child in sorted(node.items()) if ch]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if terminal:
        return "(?:" + body + ")?" if len(parts) == 1 else body + "?"
    return body
