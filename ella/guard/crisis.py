"""Emotional-crisis rules: suicidal ideation (active and passive), self-injury, preparation, burdensomeness.

Two sources, one category:

- phrases from the Suicide Risk Lexicon v1.0 (clinician-validated; danielmlow/construct-tracker commit
  5cacf8f6da25caa5bbf4d6a5ca733c52be7fec69, Apache-2.0, see ``data/NOTICE.md``), curated by
  ``data/build_lexicon.py`` into ``data/crisis_lexicon.json`` and compiled here with inflection, apostrophe and
  filler-word tolerance ("kill myself" also matches "killing my self", "want to die" also "wanna just die");
- compositional rules written for this guard: self + intent + harm with a few words of slack, so phrasings that
  nobody listed ("I'm going to take all my pills tonight") still fire.

Every rule that expresses intent is ``negatable`` ("I would never hurt myself" -> check-in, not referral), and
rules whose wording is itself negative ("I don't want to live", "no reason to live") are not, because there the
negation *is* the risk. Third-person and fictional mentions are dropped by ``self_check``; idioms by ``after``.
"""

from __future__ import annotations

import json
import re
from importlib import resources

from ella.guard.rules import Rule, preceded_by, rule, unless
from ella.guard.types import Category, Severity

C = Category.EMOTIONAL_CRISIS
HIGH, MEDIUM = Severity.HIGH, Severity.MEDIUM

# What may sit between two words of a lexicon phrase without changing its meaning.
_FILLER = (
    r"(?:just|really|fucking|fking|literally|so|even|actually|honestly|simply|finally|seriously|totally|truly|"
    r"kinda|kind of|sort of|pretty|ever|own|all|genuinely|still|sometimes|often|always|sincerely|almost)"
)
_JOIN = r"[\s,]+(?:" + _FILLER + r"\s+)?"

_CONTRACTIONS: dict[str, str] = {
    "don't": r"(?:don'?t|do not|dont)",
    "can't": r"(?:can'?t|cannot|can not|cant)",
    "won't": r"(?:won'?t|will not|wont)",
    "wouldn't": r"(?:wouldn'?t|would not)",
    "isn't": r"(?:isn'?t|is not|aint|ain'?t)",
    "wasn't": r"(?:wasn'?t|was not|weren'?t|were not)",
    "i'm": r"(?:i'?m|i am)",
    "i'd": r"(?:i'?d|i would|i had)",
    "it's": r"(?:it'?s|it is)",
    "what's": r"(?:what'?s|what is|whats)",
    "myself": r"(?:my ?self)",
    "anymore": r"(?:any ?more|any longer)",
    "was": r"(?:was|were)",
    "i": r"i",
    "a": r"(?:a|an)",
    "the": r"(?:the|a|my)",
    "wrist": r"wrists?",
    "wrists": r"wrists?",
    "od": r"(?:od|o\.d)",
}
_FUNCTION = frozenset(
    """a an the to of in on at for with and or but so not no never it my me i you all this that be been being
    is am are was were will would could should can do did have has had off out up into from by any more what
    why how when if there here myself self own""".split()
)
_NEGATIVE = re.compile(r"\b(?:don't|can't|won't|wouldn't|isn't|wasn't|not|no|never|nothing|why)\b")
_SELF = re.compile(r"\b(?:i|i'm|i'd|me|my|myself|self)\b")


def _inflect(word: str) -> str:
    """A word and its common inflections (kill/kills/killed/killing, die/dies/died/dying, cut/cutting)."""
    forms = {word}
    if word.endswith("ing") and len(word) > 5:
        base = word[:-3]
        forms |= {base, base + "e", base + "s", base + "ed", base + "es"}
        if len(base) > 2 and base[-1] == base[-2]:
            forms.add(base[:-1])
    elif word.endswith("ie"):
        forms |= {word + "s", word + "d", word[:-2] + "ying"}
    elif word.endswith("e"):
        forms |= {word + "s", word + "d", word[:-1] + "ing"}
    elif word.endswith("s") and len(word) > 3:
        forms.add(word[:-1])
    else:
        forms |= {word + "s", word + "ed", word + "ing", word + word[-1] + "ing", word + word[-1] + "ed"}
    return "(?:" + "|".join(sorted((re.escape(f) for f in forms), key=lambda f: (-len(f), f))) + ")"  # fixed order


_BIGRAMS: dict[str, str] = {
    "want to": r"(?:want(?:s|ed)? to|wanna|wan na|wantto)",
    "going to": r"(?:going to|gonna|goin to)",
    "have to": r"(?:have to|hafta|gotta)",
}


def _phrase_pattern(phrase: str) -> str:
    parts = []
    for bigram, alternative in _BIGRAMS.items():
        phrase = phrase.replace(bigram, "\x00" + alternative.replace(" ", "\x01") + "\x00")
    for token in phrase.replace(" - ", "-").split():
        if token.startswith("\x00"):
            parts.append(token.strip("\x00").replace("\x01", " "))
            continue
        if token in _CONTRACTIONS:
            parts.append(_CONTRACTIONS[token])
        elif token in _FUNCTION or not token.isalpha():
            parts.append(re.escape(token).replace(r"\-", r"[\s-]*"))
        else:
            parts.append(_inflect(token))
    # \b after each join: the next word starts a word, which lets the prefilter want "end" as a word
    glue = [_JOIN + (r"\b" if p[:1].isalpha() or p.startswith("(?:") else "") for p in parts[1:]]
    return r"\b" + parts[0] + "".join(g + p for g, p in zip(glue, parts[1:], strict=True)) + r"\b"


_ACCIDENT = (
    r"\s+(?:\w+\s+){0,2}?(?:at the|on the|while|when|during|lifting|playing|running|training|shaving|cooking|"
    r"chopping|opening|cutting|falling|by accident|accidentally|in the (?:gym|kitchen|garden)|on a|with a knife "
    r"while|doing)\b"
)
# Continuations that make a lexicon phrase ordinary: "tired of living in this flat", "want to die of shame".
_AFTER_LIVE = r"\s+(?:in|at|with|on|near|abroad|here|there|alone|together|off|under|next|close|paycheck)\b"
_AFTER_DIE = (
    r"\s*(?:for\b|of (?:embarrassment|shame|laughter|laughing|cringe|boredom|cuteness|envy|jealousy|happiness|"
    r"excitement|old age)|laughing|happy\b|inside\b|my hair|her hair|his hair|the hair|in (?:this|that|the) game|"
    r"on (?:this|that) hill|to (?:see|know|try|meet|go|hear|get|find))"
)
_AFTER_GO_ON = r"\s+(?:a|an|the|this|that|my|holiday|vacation|trip|tour|date|stage|air|about|with the)\b"
_AFTER_DISAPPEAR = r"\s+(?:under|into|to|for|from|in|off|behind|inside|with|on|until|till|after)\b"
_AFTER_WAKE = r"\s+(?:early|at|for|so early|before|this early|to go|and go)\b"
_AFTER_END_IT = r"\s+(?:with|early|at|by|on|for|there)\b"


def _after_for(phrase: str) -> str | None:
    last = phrase.split()[-1]
    if last in {"myself", "self"} and phrase.split()[0] in _ACCIDENT_VERBS:
        return _ACCIDENT
    if last in {"live", "living", "life", "alive", "exist"}:
        return _AFTER_LIVE
    if last in {"die", "dying", "dead"}:
        return _AFTER_DIE
    if phrase.endswith("go on"):
        return _AFTER_GO_ON
    if last == "disappear":
        return _AFTER_DISAPPEAR
    if phrase.endswith("wake up"):
        return _AFTER_WAKE
    if phrase.endswith("end it"):
        return _AFTER_END_IT
    return None


# Self-injury verbs that also describe accidents ("I cut myself shaving", "hurt myself playing football").
_ACCIDENT_VERBS = frozenset("cut hurt burn hit harmed harm wound bash punch".split())

_SLUG = {
    "Active suicidal ideation & suicidal planning": "active",
    "Direct self-injury": "self_injury",
    "Passive suicidal ideation": "passive",
    "Other suicidal language": "other",
    "Lethal means for suicide": "means",
    "Burdensomeness": "burden",
}


def _load_lexicon() -> tuple[Rule, ...]:
    """One rule per lexicon phrase: each small regex then runs only when its own prefilter word is present."""
    data = json.loads(resources.files("ella.guard").joinpath("data/crisis_lexicon.json").read_text("utf-8"))
    rules: list[Rule] = []
    for construct, spec in data["constructs"].items():
        slug = _SLUG.get(construct, "other")
        severity = HIGH if spec["severity"] == "high" else MEDIUM
        for phrase in spec["phrases"]:
            rules.append(
                rule(
                    f"crisis.lexicon.{slug}",
                    C,
                    severity,
                    _phrase_pattern(phrase),
                    after=_after_for(phrase),
                    negatable=not _NEGATIVE.search(phrase),
                    self_check=not _SELF.search(phrase),
                )
            )
    return tuple(rules)


# ---- compositional rules -------------------------------------------------------------------------------------

_HARM_VERB = (
    r"(?:kill|hurt|harm|cut|hang|shoot|drown|stab|burn|poison|starve|suffocate|strangle|choke|off|unalive|slice|"
    r"slit|end|mutilate|bleed|punish)(?:s|es|ed|d|ing|ting|ning|ping)?"  # not "injure": "injured myself" is sport
)
_PILLS = (
    r"(?:pills?|meds|tablets?|medication|medicine|paracetamol|tylenol|acetaminophen|ibuprofen|painkillers?|"
    r"sleeping pills?|capsules?|xanax|oxy\w*|benzos|antidepressants|insulin)"
)
_INTENT = (
    r"(?:want|wanna|going to|gonna|plan(?:ning)? to|ready to|about to|decided to|thinking (?:about|of)|"
    r"thought (?:about|of)|will|i'll|should|might|could just|need to|try(?:ing)? to|tried to|wish i could|"
    r"i'm|i am|i've)"
)
_INTENT_BEFORE = rf"\b{_INTENT}\s+(?:\w+\s+)?$"
_TOPIC_AFTER = r"\s+(?:rates?|prevention|awareness|statistics|stats|research|hotline|lines?|resources|squad|policy)\b"
_TOPIC_BEFORE = r"\b(?:about|on|regarding|of|against|around|re|learn(?:ed|t)?|study|article|documentary|essay)\b"

COMPOSITIONAL: tuple[Rule, ...] = (
    rule(
        "crisis.active.reflexive",
        C,
        HIGH,
        rf"\b{_HARM_VERB}\s+(?:my ?self|my own life|my life|my wrists?|my throat)\b",
        after=_ACCIDENT,
        negatable=True,
    ),
    rule("crisis.active.kms", C, HIGH, r"(?<!\d)(?<!\d )\bkms\b", negatable=True),
    rule(
        "crisis.active.suicidal",
        C,
        HIGH,
        r"\bsuicidal\b",
        after=_TOPIC_AFTER,
        before=_TOPIC_BEFORE,
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.active.suicide_intent",
        C,
        HIGH,
        r"\b(?:think|thinking|thought|considering|considered|contemplating|planning|planned|plan|attempted|attempt|"
        r"attempting|commit|committing|tried|trying|going to|gonna|want to|wanna)\s+(?:about\s+|of\s+)?"
        r"(?:committing\s+|attempting\s+|my\s+(?:own\s+)?)?suicide\b",
        after=_TOPIC_AFTER,
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.self_injury.relapse",
        C,
        HIGH,
        r"\b(?:been|started|start|keep|kept|back to|relapsed (?:and|into)|went back to)\s+(?:\w+\s+)?cutting\b"
        r"(?!\s+(?:back|down|out|costs?|corners|carbs|sugar|hair|the|my hair|class|school|it close|ties|meat|wood))|"
        r"\brelapsed\b(?=.*\b(?:cut|cutting|self[\s-]*harm|hurting myself|burning)\b)",
        self_check=True,
    ),
    rule("crisis.active.suicide_note", C, HIGH, r"\bmy\s+suicide\s+(?:note|plan|letter|attempt)s?\b"),
    rule(
        "crisis.self_injury.term",
        C,
        HIGH,
        r"\bself[\s-]*(?:harm(?:ing|ed|s)?|injur(?:y|ing|e|ed|ies))\b|\bnssi\b",
        after=_TOPIC_AFTER,
        before=_TOPIC_BEFORE,
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.means.pills_amount",
        C,
        HIGH,
        r"\b(?:take|took|taken|taking|swallow(?:ed|ing)?|down(?:ed|ing)?|overdos(?:e|ed|ing) on|pop(?:ped|ping)?|"
        r"ate|eat|eating)\s+(?:all|a (?:bunch|handful|lot|load|whole bottle|bottle|box|pack|packet|heap)|handfuls|"
        r"the (?:whole|entire) (?:bottle|box|pack|packet)|every|\d{2,}|twenty|thirty|forty|fifty|a hundred|lots|"
        rf"loads|so many|too many|way too many)\s+(?:\w+\s+){{0,3}}?{_PILLS}\b",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.means.stockpile",
        C,
        HIGH,
        r"\b(?:saving|saved|stockpil(?:e|ed|ing)|hoard(?:ed|ing)?|collect(?:ed|ing)|stor(?:ed|ing)|stash(?:ed|ing)?|"
        rf"keeping)\s+(?:up\s+)?(?:my\s+|some\s+|all\s+|all my\s+|up my\s+)?{_PILLS}\b",
        self_check=True,
    ),
    rule(
        "crisis.means.lethal_dose",
        C,
        HIGH,
        rf"\bhow many\s+(?:\w+\s+){{0,2}}?{_PILLS}\s+(?:\w+\s+){{0,4}}?(?:take|kill|lethal|fatal|enough|die|od|"
        r"overdose)\b|\b(?:lethal|fatal)\s+dose\b",
        # "how many pills do I take for a headache?": a dosing question, not a lethal one
        guard=unless(
            r"\b(?:for (?:a|my|the) (?:headache|cold|flu|fever|migraine|back|tooth\w*|period|pain)|box says|label "
            r"says|a day|per day|daily|at once for|with food|recommended|(?:my|a) (?:son|daughter|kid|child|baby))\b"
        ),
    ),
    rule(
        "crisis.means.overdose",
        C,
        HIGH,
        r"\b(?:overdose|od)\b",  # the rare word is the pattern; the intent before it is the guard (faster)
        guard=preceded_by(_INTENT_BEFORE),
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.means.jump",
        C,
        HIGH,
        rf"\b{_INTENT}\s+(?:\w+\s+){{0,2}}?(?:jump|jumping|throw myself|step|walk|drive|run)\s+(?:off|from|in front of|"
        r"into|out of|out)\s+(?:[\w'-]+\s+){0,3}?(?:bridge|roof|building|balcony|cliff|tower|window|train|traffic|"
        r"car park|parking garage|overpass|ledge|tracks|motorway|highway)\b",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.means.on_the_edge_now",
        C,
        HIGH,
        r"\b(?:i'?m|i am|standing|sitting|stood|sat|up)\s+(?:\w+\s+){0,2}?(?:on|at|near|by)\s+(?:the|a|this|my)?\s*"
        r"(?:roof|ledge|edge of the \w+|bridge|railing|tracks|train tracks|cliff|balcony)\b\s*(?:\w+\s+){0,3}?"
        r"(?:right now|now|tonight)\b",
    ),
    rule(
        "crisis.passive.better_off",
        C,
        MEDIUM,
        r"\b(?:better|happier|easier|fine|lighter)\s+(?:off\s+)?(?:without me|if i\s+(?:\w+\s+){0,2}?(?:gone|dead|"
        r"died|die|here|around|existed|exist|disappeared|born|alive|left)\b)",
    ),
    rule(
        "crisis.passive.wish_gone",
        C,
        MEDIUM,
        r"\b(?:wish|want|wanna|hope|hoping|pray|praying|if only)\s+(?:\w+\s+){0,3}?(?:cease to exist|"
        r"stop existing|not exist|not be here|not be alive|not be around|wasn'?t here|wasn'?t alive|"
        r"wasn'?t around|were dead|was dead|was gone|were gone|was never born|had never been born|never existed|"
        r"didn'?t exist|sleep forever|fall asleep forever|never wake up|not wake up|wouldn'?t wake up|"
        r"won'?t wake up|don'?t wake up|not to wake up|not have to wake up|could just die|would just die|"
        r"could die|die in my sleep)\b",
        after=_AFTER_WAKE,
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.passive.wish_disappear",
        C,
        MEDIUM,
        r"\b(?:wish|want|wanna|hope|hoping|pray|praying|if only)\s+(?:\w+\s+){0,3}?(?:disappear|vanish)"
        r"(?:\s+(?:forever|for good|completely|from (?:this|the) (?:world|earth|planet)))?\s*(?:[.!,]|$)",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.passive.never_wake",
        C,
        HIGH,
        r"\b(?:sleep|asleep)\s+(?:and|&)\s+(?:never|not)\s+wake\s+up\b",
    ),
    rule(
        "crisis.passive.dont_want_to_live",
        C,
        HIGH,
        r"\b(?:don'?t|do not|dont|no longer|never|doesn'?t)\s+(?:\w+\s+)?(?:want|wanna|wish)\s+(?:to\s+)?"
        r"(?:live|be alive|exist|be around|go on|keep going|carry on|keep living|stay alive)\b",
        after=_AFTER_LIVE[:-3] + r"|a|an|the|this|that|trip|holiday|date|with the)\b",
        self_check=True,
    ),
    rule(
        "crisis.passive.dont_want_to_be_here",
        C,
        HIGH,
        r"\b(?:don'?t|do not|dont|no longer)\s+(?:\w+\s+)?(?:want|wanna)\s+(?:to\s+)?be\s+here\b"
        r"(?=\s*(?:any ?more|any longer|on (?:this )?earth|in this world|[.!]*\s*$))",
        self_check=True,
    ),
    rule(
        "crisis.passive.no_reason",
        C,
        MEDIUM,
        r"\b(?:no|any|zero|nothing)\s+(?:\w+\s+)?(?:reason|point|purpose|will|motivation)\s+(?:(?:to|in|for)\s+)?"
        r"(?:live|living|go on|going on|keep going|carry on|carrying on|be here|exist|existing|stay alive|"
        r"staying alive|keep living|wake up)\b|\bwhat'?s the point (?:of|in) (?:living|going on|life|carrying on|"
        r"being alive|existing|staying alive|being here|it all|anything any ?more|trying any ?more|even trying)\b",
        after=_AFTER_LIVE,
    ),
    rule(
        "crisis.passive.cant_go_on",
        C,
        MEDIUM,
        r"\b(?:can'?t|cannot|can not|cant|couldn'?t)\s+(?:\w+\s+)?(?:go on|keep going|carry on|do this|do it|"
        r"take (?:it|this)|handle (?:it|this|life)|cope|live|keep living|deal with (?:it|this|life)|be strong)"
        r"(?:\s+like this)?\s*(?:any ?more|any longer|much longer)\b|\b(?:can'?t|cannot|cant)\s+(?:go on|"
        r"keep going|live|keep living|carry on|continue)\s+like this\b",
    ),
    rule(
        "crisis.passive.done_with_life",
        C,
        MEDIUM,
        r"\b(?:done|finished|over|through)\s+with\s+(?:life|living|existing|being alive|this life|my life|it all)\b|"
        r"\b(?:tired|sick|weary)\s+of\s+(?:living|life|being alive|existing|being here|waking up)\b",
        after=_AFTER_LIVE,
        self_check=True,
    ),
    rule(
        "crisis.passive.want_it_to_end",
        C,
        MEDIUM,
        r"\b(?:want|wish|need|just want)\s+(?:it all|everything|all of (?:it|this)|the pain|my life|this life|life|"
        r"it)\s+(?:\w+\s+)?to\s+(?:end|stop|be over)\b(?!\s+(?:soon|already|early|at))",
        self_check=True,
    ),
    rule(
        "crisis.passive.burden",
        C,
        MEDIUM,
        r"\b(?:i'?m|i am|i feel like|feel like|i've become|i feel|i'm just|i'm only)\s+(?:\w+\s+){0,2}?(?:a|an|such a|"
        r"just a|nothing but a|the)\s+(?:\w+\s+)?burden\b(?:\s+(?:to|on|for)\s+(?:\w+\s+){0,2}?(?:everyone|everybody|"
        r"my family|them|people|the world|all|you|my parents|my friends|others|my kids|my partner)|\s*[.!]*\s*$)",
        negatable=True,
    ),
    rule(
        "crisis.passive.no_one_would_care",
        C,
        MEDIUM,
        r"\b(?:no ?one|nobody|noone|no body|not a single person)\s+(?:would|will|'?d|'?ll|is going to|gonna)?\s*"
        r"(?:even\s+)?(?:notice|care|miss me|mind|remember me)\b",
        requires=r"\b(?:if|when|once|after)\s+i\s*(?:'?m|was|were|am)?\s*(?:\w+\s+)?(?:gone|dead|died|disappeared|"
        r"left|not here|wasn'?t here|killed myself|vanished)\b",
    ),
    rule(
        "crisis.prep.goodbye_notes",
        C,
        HIGH,
        r"\b(?:wrote|written|writing|write|left|leave|leaving|finished|drafted|drafting)\s+(?:\w+\s+){0,2}?"
        r"(?:goodbye|suicide|farewell)\s+(?:letters?|notes?|messages?|texts?|emails?|videos?)\b",
        self_check=True,
    ),
    rule(
        "crisis.prep.giving_away",
        C,
        HIGH,
        r"\b(?:giving|gave|give|given)\s+away\s+(?:all\s+)?(?:of\s+)?my\s+(?:\w+\s+)?(?:things|stuff|belongings|"
        r"possessions|valuables|everything)\b|\b(?:won'?t|will not|wont)\s+(?:\w+\s+)?need\s+(?:it|them|these|those|"
        r"any of (?:it|this|that|them)|anything)\s+(?:any ?more|any longer|where i'?m going|after (?:tonight|this))",
        after=r"\s+(?:before|to charity|for the move|because we're moving|since we're moving)",
    ),
    rule(
        "crisis.prep.final_goodbye",
        C,
        MEDIUM,
        r"\bthis is (?:my |the )?(?:final |last )?goodbye\b(?!\s+(?:for now|for today|to|till|until|from))",
    ),
    rule(
        "crisis.passive.not_around_long",
        C,
        MEDIUM,
        r"\b(?:don'?t|do not|can'?t|cannot)\s+see\s+myself\s+(?:being\s+)?(?:around|here|alive|living|making it)\s+"
        r"(?:\w+\s+)?(?:much longer|for long|long|past|by|next)\b",
    ),
    rule(
        "crisis.passive.want_out",
        C,
        MEDIUM,
        r"\bwant out of (?:this )?(?:life|world|existence)\b|\b(?:end|ending|end of) (?:my|this) (?:life|existence)\b",
        negatable=True,
        self_check=True,
    ),
    rule(
        "crisis.active.end_it",
        C,
        HIGH,
        r"\b(?:going to|gonna|want to|wanna|ready to|about to|i'?ll|i will|planning to|plan to|decided to|"
        r"should just|might just|thinking (?:about|of)|thought about)\s+(?:just\s+)?(?:end|ending)\s+"
        r"(?:it|it all|everything|things)\b",
        after=_AFTER_END_IT,
        negatable=True,
        self_check=True,
    ),
)

RULES: tuple[Rule, ...] = COMPOSITIONAL + _load_lexicon()
