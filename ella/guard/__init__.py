"""Ella's boundary guard: a fast, pure-Python pre-filter that routes messages before any model sees them.

"Warm, never romantic" is a prompt-level rule, and prompts drift as a relationship deepens. The guard classifies
each message as ``romantic_avowal``, ``physical_escalation``, ``emotional_crisis``, ``manipulation`` or ``ok`` and
picks a route (``warm_bounded``, ``calm_refusal``, ``crisis_referral``, ``check_in``, ``generate``) so the
sensitive cases get a prewritten reply instead of a generated one. Crisis always wins; a negated crisis mention
("I would never hurt myself") is ``ok`` with a gentle ``check_in``.
"""

from ella.guard.classifier import classify
from ella.guard.normalise import normalise
from ella.guard.types import DETECTOR_VERSION, Category, Route, Severity, Verdict

__all__ = ["DETECTOR_VERSION", "Category", "Route", "Severity", "Verdict", "classify", "normalise"]
