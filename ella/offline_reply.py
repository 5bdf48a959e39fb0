"""The offline engine's plain reply: a deterministic stand-in for a model, not AI.

Why it exists: the demo and the tests must run with no API key. It answers in Ella's register (warm,
steady, never romantic) by a few rules on the user's words; the real pipeline replaces it in a later issue.
"""

from __future__ import annotations

import re
import zlib

from ella.lexicon import TOPICLESS_WORDS

_WORD = re.compile(r"[a-z']+")

_LOW = {
    "sad",
    "tired",
    "stressed",
    "anxious",
    "worried",
    "lonely",
    "exhausted",
    "nervous",
    "upset",
    "scared",
    "overwhelmed",
    "down",
    "awful",
    "hard",
    "rough",
    "sick",
    "hurt",
    "angry",
    "frustrated",
}
_HIGH = {
    "happy",
    "excited",
    "great",
    "good",
    "glad",
    "proud",
    "amazing",
    "wonderful",
    "fun",
    "love",
    "loved",
    "passed",
    "won",
    "finally",
    "yay",
    "nice",
}
_GREETING = {"hi", "hello", "hey", "morning", "evening", "hiya", "yo"}
_FAREWELL = {"bye", "goodnight", "night", "later", "cya"}


_VARIANTS = {
    "low": (
        "That sounds heavy, and I'm glad you told me. What part of {topic} is weighing on you most?",
        "I'm sorry it's been like that. I'm here; do you want to talk through {topic}, or just vent?",
    ),
    "high": (
        "That's really good to hear! Tell me more about {topic}.",
        "I love hearing that. What was the best part of {topic}?",
    ),
    "greeting": (
        "Hi! It's good to hear from you. How's your day going?",
        "Hey, welcome back. What's on your mind today?",
    ),
    "farewell": ("Take care. I'll be here whenever you want to pick this up again.", "Sleep well, and talk soon."),
    "question": (
        "Good question. I'd want to think about {topic} with you: what's your own hunch?",
        "Hmm, {topic}. I don't have a neat answer, but I'm curious what made you ask.",
    ),
    "plain": (
        "Thanks for telling me about {topic}. How do you feel about it?",
        "I'm listening. What happened next with {topic}?",
    ),
}


def _topic(words: list[str]) -> str:
    content = [w for w in words if w not in TOPICLESS_WORDS and len(w) > 2]
    return " ".join(content[-2:]) if content else "that"


def plain_reply(text: str) -> str:
    """A short warm reply chosen by simple cues; the same text always gets the same reply."""
    words = _WORD.findall(text.lower())
    wordset = set(words)
    if wordset & _LOW:
        mood = "low"
    elif wordset & _FAREWELL:
        mood = "farewell"
    elif wordset & _HIGH:
        mood = "high"
    elif text.rstrip().endswith("?"):
        mood = "question"
    elif words and words[0] in _GREETING and len(words) <= 4:
        mood = "greeting"
    else:
        mood = "plain"
    options = _VARIANTS[mood]
    choice = options[zlib.crc32(text.encode("utf-8", "surrogatepass")) % len(options)]
    return choice.format(topic=_topic(words))
