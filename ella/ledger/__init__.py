"""Ella's world: the tiered fact ledger's rules (tiers, trust, the brief, anchors, contested facts).

Plain Python: the tables and their queries are in ``models.ledger``; this package says what may be written,
by whom, and how the world is shown to the model.
"""
