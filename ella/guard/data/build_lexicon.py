"""Regenerates ``crisis_lexicon.json`` from the Suicide Risk Lexicon v1.0 (clinician-validated).

Source: danielmlow/construct-tracker, commit 5cacf8f6da25caa5bbf4d6a5ca733c52be7fec69,
src/construct_tracker/data/lexicons/suicide_risk_lexicon_v1-0/suicide_risk_lexicon_validated.csv,
Apache License 2.0 (LICENSE beside this file). A copy lives in /work/shared/data/suicide_risk_lexicon/.

Why derived rather than read at runtime: the guard ships inside the ``ella`` package and must not depend on a
shared folder; the JSON is small and reviewed. Why curated: the table mixes self-referential phrases with words
that are harmless alone ("cutting", "bridge", "dying", "killing me"), and a pre-LLM router that fires on
"this traffic is killing me" is worse than useless. The exclusions below say why each was left out; excluded
ideas are mostly covered by compositional rules in ``ella/guard/crisis.py`` that demand self-reference.

The wide table has four metadata rows (prompt name, definition, reference, examples), then per construct the
surface forms followed by their lemmatised copies ("wish I be dead"); only the surface forms are kept. The
``_include`` columns are empty in this copy, so every listed surface form is treated as validated.

    python ella/guard/data/build_lexicon.py [path/to/suicide_risk_lexicon_validated.csv]
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import TypedDict

DEFAULT_CSV = Path("/work/shared/data/suicide_risk_lexicon/suicide_risk_lexicon_validated.csv")
OUT = Path(__file__).with_name("crisis_lexicon.json")

# construct -> (severity, keep everything not excluded?)  Burdensomeness keeps only its curated subset.
CONSTRUCTS: dict[str, str] = {
    "Active suicidal ideation & suicidal planning": "high",
    "Direct self-injury": "high",
    "Passive suicidal ideation": "medium",
    "Other suicidal language": "medium",
    "Lethal means for suicide": "high",
    "Burdensomeness": "medium",
}

# Kept only inside phrases that already carry self-reference; single tokens here are high false-positive.
LETHAL_MEANS_NEED_SELF = True

EXCLUDE: dict[str, str] = {
    # idioms and everyday uses
    "killing me": "idiom ('this traffic is killing me')",
    "kill me": "idiom ('my feet kill me'); covered by 'let me die'/'kill myself'",
    "dying": "idiom ('dying to see')",
    "i'm dying": "idiom ('I'm dying lol')",
    "i could just die": "embarrassment idiom",
    "i'll die": "idiom ('I'll die if I miss it')",
    "i will be dying": "idiom",
    "will be dead": "'my phone will be dead'",
    "i'll be dead": "'I'll be dead tired'",
    "when i die": "neutral planning ('when I die I want a tree planted')",
    "when i'm dead": "neutral",
    "when i'm gone": "'when I'm gone on holiday'",
    "when i'm not around": "neutral",
    "my death": "neutral",
    "my demise": "jokey",
    "fatal": "neutral",
    "farewell": "neutral ('farewell party')",
    "nothing to lose": "idiom",
    "breaking point": "stress idiom",
    "being saved": "neutral",
    "body bag": "neutral",
    "exit bag": "method term without self-reference",
    "giving up": "'giving up sugar'",
    "escape from reality": "'books are my escape from reality'",
    "fade out": "neutral",
    "fading away": "neutral",
    "lifeless": "neutral",
    "oblivion": "neutral",
    "rest in peace": "condolence",
    "permanent rest": "ambiguous",
    "eternal sleep": "ambiguous",
    "sleep forever": "'I could sleep forever'; covered by want/wish + sleep forever",
    "painless death": "topic",
    "peaceful death": "topic ('grandma had a peaceful death')",
    "want death": "ambiguous",
    "death wish": "'that driver has a death wish'",
    "want to be done with this": "'done with this project'",
    "want to end this": "'end this call'",
    "ending it": "'ending it with my girlfriend'",
    "i'm sinking": "ambiguous",
    "life is shit": "venting without risk language",
    "severe depression": "clinical topic",
    "crisis center": "topic",
    "crisis hotline": "topic",
    "crisis text line": "topic",
    "safety check": "topic",
    "safety plan": "topic",
    "suicide": "topic; self-reference rules in crisis.py",
    "suicidality": "topic",
    "suicidal behavior": "topic",
    "suicidal intent": "topic",
    "suicidal tendencies": "band name / topic",
    "suicidal thoughts": "covered by crisis.py with negation and third-person guards",
    "suicidal": "covered by crisis.py with negation and third-person guards",
    "if i live or die": "ambiguous",
    "keeping me alive": "'coffee is keeping me alive'",
    "only thing keeping me going": "'coffee is the only thing keeping me going'",
    "thing that kept me going": "same",
    "i don't trust myself": "ambiguous",
    "i'm in a crisis": "ambiguous",
    "attempt": "neutral",
    "od": "abbreviation, high false-positive",
    "over dose": "topic; covered with self-reference",
    "overdose": "topic; covered with self-reference",
    "overdosing": "topic",
    "poison": "neutral",
    "cutting": "neutral ('cutting onions')",
    "drowning": "'drowning in work'",
    "on the edge": "idiom",
    "quick and easy": "neutral",
    "quick and painless": "neutral",
    "easy and painless": "neutral",
    "carbon monoxide": "topic ('carbon monoxide alarm')",
    "suffocation": "topic",
    "suffocating my": "fragment",
    "make a will": "estate planning",
    "write a will": "estate planning",
    "self-harm": "covered by crisis.py with topic guard",
    "suicide attempt": "topic ('suicide attempt survivors')",
    "suicide note": "topic; covered by 'wrote my goodbye/suicide note'",
    "i wrote a suicide note": "kept via crisis.py preparation rule",
    "exit plan": "business idiom",
    "hit by a train": "accident report",
    "hit by the train": "accident report",
    "crash my car": "accident worry",
    "wreck my car": "accident worry",
    "wreck my truck": "accident worry",
    "slam my car": "accident",
    "cutting my wrists": "kept via morphology of 'cut my wrists'",
    "want to jump": "'want to jump in the pool'",
    "thought about jumping off": "kept via compositional rule",
    "i could disappear": "'I could disappear under a blanket'; wish rules in crisis.py",
    "tired of life": "kept but with continuation guard",
    "bother": "too broad",
    "hate my life": "venting ('ugh I hate my life, missed the bus'); too common to route to crisis alone",
    "i hate my life": "same",
    "buy a gun": "no self-harm intent stated",
    "buying a gun": "same",
    "buy a rope": "'buying a rope for the tent'",
    "buying a rope": "same",
    "pull the trigger": "idiom ('pull the trigger on the new job')",
    "drive my car into": "'drive my car into town'",
    "the end of my rope": "exhaustion idiom",
    "no way out": "'no way out of this car park'",
    "burden": "too broad alone; see crisis.py burden rule",
    "drag": "too broad",
    "drain": "too broad",
    "demanding": "too broad",
    "dependent": "too broad",
    "responsibility": "too broad",
    "useless": "too broad",
}
# Lethal-means and self-injury tokens that are kept only when the phrase names the self.
SELF_WORDS = ("i ", "i'm", "i've", "i'd", "i'll", "my", "myself", "me ", "me", "self")
# Burdensomeness: keep only phrases that are already suicidal in meaning.
BURDEN_KEEP = {
    "i should just disappear",
    "be better without me",
    "better off without me",
    "sorry for existing",
    "waste of space",
}
# Self-injury tokens that are diagnoses/behaviours, not intent (kept out of the crisis router).
SELF_INJURY_DROP = {
    "abrasion",
    "carving",
    "dermatillomania",
    "dermotillomania",
    "hair-pulling",
    "laceration",
    "nail-biting",
    "scarring",
    "scars",
    "scratching",
    "skin picking",
    "skin-picking",
    "stick and poke tattoo",
    "trichotillomania",
    "hit my head",
    "bang my head",
    "banging my head",
    "scratch my",
    "scratched my",
    "scratch at my",
    "pick at my skin",
    "pull my hair",
    "burn my hand",
    "burn my face",
    "bit myself",
    "biting myself",
    "self harm",
    "self injury",
    "self-injury",
    "self-injurious",
    "nssi",
    "overdosing",
}


def surface_forms(column: list[str]) -> list[str]:
    """The surface half of a construct column: the second half is the same list lemmatised ("wish I be dead")."""
    values = [v.strip() for v in column if v.strip()]
    return values[: len(values) // 2]


def keep(construct: str, phrase: str) -> bool:
    low = phrase.casefold()
    if low in EXCLUDE or low in SELF_INJURY_DROP:
        return False
    if construct == "Burdensomeness":
        return low in BURDEN_KEEP
    if construct == "Lethal means for suicide" and LETHAL_MEANS_NEED_SELF:
        return any(f" {w} " in f" {low} " for w in ("myself", "i", "me")) or "my self" in low
    return len(low.split()) >= 2 or low in {"kms"}


class Construct(TypedDict):
    severity: str
    phrases: list[str]


class Lexicon(TypedDict):
    """The shape of ``crisis_lexicon.json``, so a typo in a key fails the type check, not the guard's import."""

    source: str
    license: str
    constructs: dict[str, Construct]


def build(csv_path: Path) -> Lexicon:
    with csv_path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    out: Lexicon = {
        "source": "danielmlow/construct-tracker@5cacf8f6da25caa5bbf4d6a5ca733c52be7fec69 Suicide Risk Lexicon v1.0",
        "license": "Apache-2.0",
        "constructs": {},
    }
    seen: set[str] = set()
    for construct, severity in CONSTRUCTS.items():
        col = header.index(construct)
        phrases = []
        for phrase in surface_forms([r[col] for r in rows[5:] if len(r) > col]):
            low = phrase.casefold().replace("’", "'")
            if keep(construct, low) and low not in seen:
                seen.add(low)
                phrases.append(low)
        out["constructs"][construct] = {"severity": severity, "phrases": sorted(phrases)}
    return out


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CSV
    data = build(path)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, c in data["constructs"].items():
        print(f"{name}: {len(c['phrases'])}")


if __name__ == "__main__":
    main()
