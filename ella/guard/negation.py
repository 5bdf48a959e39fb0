"""Protective negations: "I would never hurt myself", "ich will nicht sterben", "je ne vais pas me tuer".

Why a rule here: a sentence encoder reads "I'd never kill myself" close to "I'll kill myself" (the words about harm
dominate its vector, the negation barely moves it), so the learned stage would refer a person who just said they
are safe. The guard's own rules mark a negated match themselves (``rules.is_negated``); this family covers the
lines no rule matched, where only the learned stage speaks. It guards precision only: it never makes a verdict,
it turns the learned stage's crisis finding into the gentle check-in a negated rule gets (``check_in``, ``ok``).

The forms are a negation bound to a verb of dying or self-harm, in the first person. A negated verb of *living*
("I don't want to live", "no quiero vivir", "ich will nicht mehr") is the opposite, and never matches, nor does a
negation with "anymore"/"mehr"/"más"/"plus"/"più" ("I can't go on anymore").
"""

from __future__ import annotations

import re

_ENDING = re.compile(r"\b(?:any ?more|no longer|mehr|más|mas|plus|più|piu)\b", re.IGNORECASE)

_PROTECTIVE = re.compile(
    "|".join(
        (
            # English: never / not / won't ... hurt, harm, kill myself, end it, do anything (to myself); not want to die
            r"\b(?:i(?:'d| would| will|'ll)? never|i (?:would|will|'m|am) not|i wouldn'?t|i won'?t|i'?m not going to|"
            r"i(?:'m| am) not gonna|i do ?n'?t want to)\s+(?:\w+\s+){0,2}?"
            r"(?:hurt|harm|kill|cut|end it|end my life|take my (?:own )?life|do anything (?:to myself|stupid)|die)\b",
            r"\bi(?:'m| am) not (?:suicidal|going to do anything)\b",
            # German: nie / niemals / nicht ... antun, umbringen, verletzen, sterben (not "nicht mehr")
            r"\b(?:ich (?:würde|wuerde|werde|will|möchte|moechte|tu|tue|bring|bringe)|würde ich|werde ich)\s+"
            r"(?:\w+\s+){0,3}?(?:nie|niemals|nicht|keinesfalls)\s+(?:\w+\s+){0,3}?"
            r"(?:antun|umbringen|verletzen|sterben|ritzen|was antun|etwas antun|um)\b",
            r"\bich bin nicht (?:suizidal|selbstmordgefährdet)\b",
            # French: ne ... pas / jamais ... me tuer, mourir, me faire du mal
            r"\b(?:je|j')\s*(?:ne|n')\s*(?:\w+\s+){0,2}?(?:pas|jamais)\s+(?:\w+\s+){0,2}?"
            r"(?:me tuer|mourir|me faire (?:du )?mal|me suicider|en finir)\b",
            r"\bje me (?:ferais|ferai) jamais (?:de |du )?mal\b",
            r"\bje ne suis pas suicidaire\b",
            # Spanish: no / nunca / jamás ... matarme, morir(me), hacerme daño, suicidarme
            r"\b(?:no|nunca|jamás|jamas)\s+(?:\w+\s+){0,2}?"
            r"(?:matarme|me mataría|me mataria|morir|morirme|hacerme daño|hacerme dano|me haría daño|suicidarme|"
            r"me haría nada|me haria nada)\b",
            r"\bno estoy pensando en (?:suicidarme|matarme|hacerme daño)\b",
            # Italian: non / mai ... uccidermi, morire, farmi del male, farla finita
            r"\b(?:non|mai)\s+(?:\w+\s+){0,2}?"
            r"(?:uccidermi|mi ucciderei|morire|farmi del male|mi farei del male|la farei (?:mai )?finita|"
            r"farla finita|suicidarmi)\b",
            r"\bnon sono suicida\b",
        )
    ),
    re.IGNORECASE,
)


def protective(text: str) -> bool:
    """Whether ``text`` says, in the first person, that the person will not harm themselves or does not want to
    die, and says nothing of "anymore" that would turn it around."""
    return bool(_PROTECTIVE.search(text)) and not _ENDING.search(text)
