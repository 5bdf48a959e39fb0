"""How Ella's self-log is shown to the model: as her own past words, never as facts.

The seed's framing, kept verbatim in spirit: a separate section after the world facts, each entry dated,
and the rule that a world fact wins over a recent thought. The entries come from ``models.selflog``; the
world brief (``ella.ledger.brief``) never sees them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

HEADING = "## YOUR RECENT THOUGHTS (first-person — what you said, not what is true)"
RULE = (
    "Rule: if a 'recent thought' contradicts a 'world fact', the world fact wins. You may have misremembered. "
    "You do not promote your own past statements to fact."
)


class EntryLike(Protocol):
    content: str
    said_at: datetime


def recent_thoughts(entries: Sequence[EntryLike]) -> str:
    """The section's lines, one dated line per entry (prompt assembly adds the heading and the rule)."""
    return "\n".join(f"- {e.content}  [said {e.said_at:%Y-%m-%d}]" for e in entries)
