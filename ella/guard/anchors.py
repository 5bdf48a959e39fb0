"""Literal anchors: a cheap ``in`` test that lets most rules skip most messages.

Why: 60-odd regexes over a 500-character message cost milliseconds in CPython's ``re``; a substring test costs
nanoseconds. For each compiled pattern we derive, from its parse tree, a set of literal strings such that every
possible match contains at least one of them (e.g. ``{"myself", "life", "wrist", "throat"}``). A rule runs only
when one of its anchors occurs in the message. Patterns are "stretched" (``l+o+v+e+``), so anchors and message
are both compared with letter runs squeezed to one ("love" -> "love", "kill" -> "kil").
"""

from __future__ import annotations

import re
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

_RUNS = re.compile(r"(.)\1+")
_MAXREPEAT = C.MAXREPEAT


# Words too common to be worth anchoring on when a rarer required part exists ("take ... pills" anchors on pills).
_COMMON = frozenset(
    """the a an to and with about around would never want wana take taking taken tok life my me here more now
    what your you are was were could be would be have having make give send think thinking going go on if i end
    stop tonight right now like this is after away not live living down eat ate eating pop run walk step drive be
    in on i'm i am the one the only act play are my was with the were could would might plan i've i'l about to
    decided to gona ned to should will do did any more any longer out it all can for of off from so just that""".split()
)


def _is_common(anchor: str) -> bool:
    a = anchor.strip()
    return len(squeeze(a)) < 3 or a in _COMMON or squeeze(a) in _COMMON


def squeeze(text: str) -> str:
    """Collapse every run of a repeated character to one ("kiill" -> "kil")."""
    return _RUNS.sub(r"\1", text)


def _literal_char(item: tuple[object, object]) -> str | None:
    op, av = item
    if op is C.LITERAL:
        return chr(av)  # type: ignore[arg-type]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, body = av  # type: ignore[misc]
        if lo >= 1 and len(body) == 1 and body[0][0] is C.LITERAL:
            return chr(body[0][1])
    return None


def _required(seq: list[tuple[object, object]]) -> frozenset[str] | None:
    """Anchors of a sequence: the most selective required set among its parts (None: cannot anchor)."""
    candidates: list[frozenset[str]] = []
    run = ""
    for item in seq:
        ch = _literal_char(item)
        if ch is not None:
            run += ch
            continue
        op, av = item
        if op is C.AT:
            continue  # \b, ^, $ are zero-width: they neither add nor break a literal run
        if run:
            candidates.append(frozenset({run}))
            run = ""
        sub: frozenset[str] | None = None
        if op is C.SUBPATTERN:
            sub = _required(list(av[-1]))  # type: ignore[index]
        elif op is C.BRANCH:
            parts = [_required(list(b)) for b in av[1]]  # type: ignore[index]
            if all(p is not None for p in parts):
                sub = frozenset().union(*parts)  # type: ignore[arg-type]
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and av[0] >= 1:  # type: ignore[index]
            sub = _required(list(av[2]))  # type: ignore[index]
        if sub:
            candidates.append(sub)
    if run:
        candidates.append(frozenset({run}))
    if not candidates:
        return None
    return max(candidates, key=_selectivity)


def _selectivity(anchors: frozenset[str]) -> tuple[float, int, int]:
    common = sum(_is_common(a) for a in anchors) / len(anchors)
    return (-common, min(len(squeeze(a)) for a in anchors), -len(anchors))


def anchors_of(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Squeezed literal anchors of ``pattern``, or None when some match could avoid every literal."""
    found = _required(list(_parser.parse(pattern.pattern, pattern.flags)))
    if not found:
        return None
    squeezed = frozenset(squeeze(a) for a in found)
    if min(len(a) for a in squeezed) < 2:
        return None
    return squeezed


class AnchorIndex:
    """All anchors of a rule set in one trie-shaped regex, so one scan finds every anchor present.

    A zero-width lookahead at each position reports the longest anchor starting there; anchors that are prefixes
    of it are added from a precomputed table, so the result is exactly the set of anchors occurring in the text.
    """

    def __init__(self, anchors: frozenset[str] | set[str]) -> None:
        trie: dict[str, dict] = {}
        for a in anchors:
            node = trie
            for ch in a:
                node = node.setdefault(ch, {})
            node[""] = {}
        self._scan = re.compile("(?=(" + _trie_regex(trie) + "))") if anchors else None
        self._prefixes = {a: frozenset(a[:i] for i in range(1, len(a) + 1) if a[:i] in anchors) for a in anchors}

    def present(self, squeezed: str) -> set[str]:
        found: set[str] = set()
        if self._scan is None:
            return found
        for m in self._scan.finditer(squeezed):
            found |= self._prefixes[m.group(1)]
        return found


def _trie_regex(node: dict[str, dict]) -> str:
    terminal = "" in node
    parts = [re.escape(ch) + _trie_regex(child) for ch, child in sorted(node.items()) if ch]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if terminal:
        return "(?:" + body + ")?" if len(parts) == 1 else body + "?"
    return body
