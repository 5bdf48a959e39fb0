"""The guard's rules for German, Spanish, French and Italian (crisis, romance, physical, manipulation).

Why a module of their own: the English modules' patterns and context guards (negation, third person, reported
speech) are written against English; these carry their own, per language (``multilingual_de``, ``_es``, ``_fr``,
``_it``), and the classifier simply adds them to each category's rules.

Choices that are not obvious from the patterns:

- "ti voglio bene" (it), "hab dich lieb" (de), "je t'aime bien" / "je t'adore" (fr) are the friendly or family
  register of affection (said to friends, parents, children); they are not a romantic avowal and stay ``ok``.
  "ti amo", "ich liebe dich", "je t'aime", "te amo" are romantic; Spanish "te quiero" is both, so it counts
  unless a family or friend word follows it ("te quiero mucho mamá") or it is "I want to <verb> you".
- A negation in these languages rejects the match (``ok``, and the learned model may not overturn it); only a
  Spanish "no" right before a negatable rule also marks it negated (``check_in``), because ``rules.is_negated``
  knows the English negators only (and "no" is one of them).
"""

from __future__ import annotations

import ella.guard.multilingual_de as de
import ella.guard.multilingual_es as es
import ella.guard.multilingual_fr as fr
import ella.guard.multilingual_it as it
import ella.guard.multilingual_themes as themes
from ella.guard.rules import Rule

_LANGUAGES = (de, es, fr, it, themes)  # themes: the warning signs and requests all four share, by theme

CRISIS: tuple[Rule, ...] = tuple(r for lang in _LANGUAGES for r in lang.CRISIS)
ROMANCE: tuple[Rule, ...] = tuple(r for lang in _LANGUAGES for r in lang.ROMANCE)
PHYSICAL: tuple[Rule, ...] = tuple(r for lang in _LANGUAGES for r in lang.PHYSICAL)
MANIPULATION: tuple[Rule, ...] = tuple(r for lang in _LANGUAGES for r in lang.MANIPULATION)
