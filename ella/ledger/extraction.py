"""Which user turns are worth a fact-extraction call.

Why a gate: extraction is one model call per user turn, and most turns of a chat ("haha", "that's so nice",
"what about you?") say nothing about the speaker. A fact about the user is, with rare exceptions, said in the
first person ("my sister", "I start Monday", "we moved"), so a turn without any first-person word is skipped.
The cost of a miss is small (the next turn that mentions it is read); the saving is most small talk.
"""

from __future__ import annotations

import re

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b")


def worth_extracting(text: str) -> bool:
    return _FIRST_PERSON.search(text.casefold().replace("\u2019", "'")) is not None
