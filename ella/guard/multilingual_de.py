"""German rules (crisis, romance, physical, manipulation), written against normalised text.

Normalisation casefolds and strips accents ("müde" -> "mude", "würde" -> "wurde", "ß" -> "ss") and spells out a
few English short forms that also occur in German: "im" becomes "i'm" ("im Bett" -> "i'm bett") and "n" becomes
"and"; the patterns never rely on those words.

Negation: ``rules.is_negated`` reads English negators only, so a German negation ("ich würde mir nie etwas
antun", "ich will nicht sterben") is handled here: slack between the words of a pattern may not be a negator, and
a negator in the few words before a match rejects it (the message is then ``ok``, and the crisis rules' "near"
mark keeps the learned model from overturning it). Idioms that are not crisis ("ich sterbe vor Hunger",
"todmüde", "der Chef bringt mich um") are not matched: the patterns want a first-person wish or plan.
"""

from __future__ import annotations

import re

from ella.guard.rules import Guard, Rule, all_of, rule, stretch, unless
from ella.guard.types import Category, Severity

C, R, P, M = (
    Category.EMOTIONAL_CRISIS,
    Category.ROMANTIC_AVOWAL,
    Category.PHYSICAL_ESCALATION,
    Category.MANIPULATION,
)
LOW, MEDIUM, HIGH = Severity.LOW, Severity.MEDIUM, Severity.HIGH

_NEG_WORD = r"(?:nicht|nich|nie|niemals|nimmer|kein|keine|keinen|keinesfalls|never|net)"
# A negator in the words right before a match ("ich würde mich nie umbringen", "ich habe nicht vor, ...").
_NEGATED_BEFORE = rf"\b{_NEG_WORD}\b(?:\s+(?:vor|so|mehr|wirklich|einfach|etwas|was|mir|mich|dran|daran|im traum|"
_NEGATED_BEFORE += r"ernsthaft|jemals|je|gedacht|denken|wurde|werde|will|mochte|habe|hab|vor,))*[\s,]*"
# One word of slack that is not a negator.
_SLACK = rf"(?:(?!{_NEG_WORD}\b)[\w']+,?\s+)"
_REPORTED = (
    r"\b(?:sagt|sagte|gesagt|meinte|meint|schreibt|schrieb|geschrieben|singt|sang|lied|song|film|buch|serie|"
    r"zitat|titel|heisst|hiess)\b"
)
_THIRD = r"\b(?:er|sie|mein (?:freund|bruder|vater|sohn|kollege)|meine (?:freundin|schwester|mutter|tochter))\b"


def _not_after(pattern: str, window: int = 45) -> Guard:
    """Reject a match when ``pattern`` ends right before it (within ``window`` characters, commas included)."""
    compiled = re.compile(stretch(pattern) + r"\s*$")
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def _reported(window: int = 60) -> Guard:
    compiled = re.compile(stretch(_REPORTED))
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


_NEG = _not_after(_NEGATED_BEFORE)
_NEG_OR_REPORTED = all_of(_NEG, _reported())

_DEATH_WORDS = (
    r"\b(?:sterben|tot|umbringen|umzubringen|leben|selbstmord|suizid|ende|schluss|weg sein|aufwachen|verschwinden)\b"
)
_PILLS = r"(?:tabletten|pillen|medikamente|schlaftabletten|tabs)"

CRISIS: tuple[Rule, ...] = (
    rule(
        "crisis.de.want_to_die",
        C,
        HIGH,
        rf"\b(?:ich|i)\s+{_SLACK}{{0,3}}?(?:will|mochte|mocht|wurde gerne|wurd gern|wurde gern|wunsche mir|wunschte|"
        rf"muss|werde|hab lust|habe lust)\s+{_SLACK}{{0,3}}?(?:sterben|tot sein|nicht mehr leben|nicht mehr da sein|"
        r"nicht mehr aufwachen|nie wieder aufwachen|einfach weg sein|nicht mehr existieren|tot umfallen)\b|"
        r"(?:^|[.!?,]\s*)(?:will|mochte|wurde gern|wunschte)\s+(?:einfach\s+|nur\s+|so gern\s+)*(?:sterben|tot sein)\b|"
        r"\bich\s+(?:wunschte|wunsche mir|wollte),?\s+(?:\w+\s+){0,2}?ich\s+(?:ware|war|wär)\s+(?:\w+\s+)?"
        r"(?:tot|nie geboren|nicht mehr da|weg)\b",
        after=r"\s+(?:vor|an langeweile|aus)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "crisis.de.dont_want_to_live",
        C,
        HIGH,
        r"\b(?:ich|i)\s+(?:\w+\s+){0,2}?(?:will|mochte|kann|mag)\s+(?:einfach\s+|echt\s+|so\s+|wirklich\s+)?"
        r"(?:(?:nicht|nich|net)\s+mehr|nimmer)\s+(?:leben|weiterleben|existieren|hier sein|da sein|aufwachen|"
        r"weitermachen)\b|"
        r"\b(?:ich|i)\s+(?:will|mag)\s+(?:einfach\s+|echt\s+|so\s+)?(?:nicht|nich|net)\s+mehr\s*(?:[.!]|\.\.\.|$)|"
        r"\bkeine?n?\s+(?:lust|kraft|grund|sinn)\s+mehr\s+(?:\w+\s+)?(?:zu leben|zum leben|weiterzuleben|"
        r"zu existieren|aufzuwachen)\b|\b(?:das|mein)\s+leben\s+(?:hat|macht)\s+(?:fur mich\s+)?keinen sinn mehr\b",
    ),
    rule(
        "crisis.de.kill_myself",
        C,
        HIGH,
        r"\bich\s+(?:\w+\s+){0,2}?bring\w*\s+mich\s+(?:\w+\s+){0,3}?um\b(?!\s+(?:den|die|das|meinen|meine)\b)|"
        rf"\bich\s+{_SLACK}{{0,3}}?(?:tu|tue|werde|will|mochte|muss)\s+mir\s+{_SLACK}{{0,2}}?(?:etwas|was|ewas)\s+"
        r"(?:an\s*(?:[.!,]|$)|antun)\b|"
        rf"\b(?:ich|i)\s+{_SLACK}{{0,4}}?mich\s+{_SLACK}{{0,2}}?(?:umbringen|umzubringen|toten|zu toten|erhangen|"
        r"aufhangen|aufzuhangen|vergiften|erschiessen|ertranken|umzulegen)\b|(?:^|[.!?,]\s*)(?:will|werde|mochte|"
        r"muss|sollte)\s+mich\s+(?:\w+\s+){0,2}?(?:umbringen|toten|aufhangen|erschiessen)\b|\b(?:mir|meinem leben)\s+"
        r"(?:\w+\s+){0,2}?(?:das leben nehmen|ein ende (?:setzen|machen|bereiten))\b|\bmit (?:dem|meinem) leben "
        r"(?:\w+\s+)?schluss machen\b|\bich\s+(?:mach|mache)\s+(?:\w+\s+)?(?:schluss|ein ende)\s+mit\s+(?:allem|mir|"
        r"meinem leben|dem leben)\b|\bschluss\s+(?:zu\s+)?machen\s+mit\s+(?:allem|mir|meinem leben|dem leben)\b|"
        r"\bschluss\s+mit\s+(?:allem|mir|meinem leben|dem leben)\b(?=\s*(?:[.!,]|$|heute|"
        r"jetzt|morgen))",
        after=r"\s+(?:vor lachen|vor langeweile|beim)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "crisis.de.suicide",
        C,
        HIGH,
        r"\b(?:selbstmord|suizid)\s*(?:gedanken|plane|plan|versuch)\b|\bsuizidal\b|\bsuizidgefahrdet\b|"
        r"\b(?:denke|dachte|nachgedacht|ich\s+(?:\w+\s+){0,2}?(?:will|werde|plane))\s+(?:\w+\s+){0,3}?"
        r"(?:selbstmord|suizid)\b|\b(?:selbstmord|suizid)\s+(?:begehen|machen)\b",
        requires=r"\b(?:ich|mich|mir|mein\w*|i)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_THIRD + r"|\b(?:pravention|rate|statistik|hotline|artikel|referat)\b")),
    ),
    rule(
        "crisis.de.self_harm",
        C,
        HIGH,
        r"\b(?:ich|i)\s+(?:\w+\s+){0,3}?(?:ritze|ritz|geritzt|ritzen|schneide mich|verletze mich selbst|"
        r"verletz mich selbst|mich selbst verletzen|mich selbst zu verletzen|mir weh tun|mir wehtun)\b|"
        r"\bselbstverletz\w*\b|\b(?:wieder|angefangen zu|mit dem)\s+(?:\w+\s+)?ritzen\b|\bmir (?:die )?(?:arme|"
        r"pulsadern|"
        r"handgelenke)\s+(?:\w+\s+)?(?:aufschneiden|aufzuschneiden|aufritzen)\b",
        requires=r"\b(?:ich|mich|mir|mein\w*|i)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:baum|holz|stein|glas|namen|initialen|kochen|gemuse)\b")),
    ),
    rule(
        "crisis.de.means",
        C,
        HIGH,
        rf"\b(?:ich|i)\s+(?:\w+\s+){{0,2}}?(?:habe|hab|hatte)\s+(?:\w+\s+){{0,3}}?{_PILLS}\s+(?:\w+\s+)?(?:gesammelt|"
        rf"gehortet|gebunkert|zusammen|versteckt|besorgt)\b|\b(?:alle|die ganzen|genug|ganz viele|alle meine)\s+"
        rf"{_PILLS}\s+(?:\w+\s+)?(?:nehmen|schlucken|einwerfen|zu nehmen|zu schlucken|genommen|geschluckt)\b|"
        r"\bich\s+(?:\w+\s+){0,2}?(?:spring\w*|werf\w* mich|stürz\w* mich|sturz\w* mich|leg\w* mich)\s+(?:\w+\s+)?"
        r"(?:von|vor|aus|unter|auf)\s+(?:der|die|den|dem|einen|einer|einem|das)\s+(?:\w+\s+)?(?:brucke|zug|dach|"
        r"hochhaus|fenster|balkon|gleise|u-bahn|ubahn|s-bahn)\b|\bich\s+habe?\s+(?:mir\s+)?(?:einen|ein)\s+"
        r"(?:strick|seil)\s+(?:\w+\s+)?(?:besorgt|gekauft)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "crisis.de.burden",
        C,
        MEDIUM,
        r"\b(?:alle|jeder|jede|ihr|meine familie|die welt|alle anderen|es)\s+(?:\w+\s+){0,2}?(?:waren|ware|war|"
        r"sind|ist)\s+(?:\w+\s+){0,2}?(?:besser dran|besser|glucklicher)\s+ohne mich\b|\bohne mich\s+(?:waren|ware|"
        r"war|ist|sind)\s+(?:\w+\s+){0,2}?(?:besser dran|besser|glucklicher)\b|\bniemand\s+(?:wurde|wird)\s+mich\s+"
        r"vermissen\b|\bich bin (?:nur|bloss)\s+(?:noch\s+)?(?:eine\s+)?last\b|\bich bin allen (?:nur )?eine last\b",
    ),
    rule(
        "crisis.de.farewell",
        C,
        MEDIUM,
        r"\b(?:lebt|lebe)\s+wohl\s*(?:,?\s*(?:alle|ihr|fur immer|fur immer und ewig)|\s*[.!]*\s*$)|\bich\s+"
        r"(?:\w+\s+)?verabschiede\s+mich\s+(?:\w+\s+)?fur immer\b|\babschiedsbrief\b|\bdas ist (?:mein|der) "
        r"(?:letzter|letzte)\s+(?:abschied|nachricht|brief)\b|\bfur immer\s+(?:tschuss|adieu|goodbye|bye)\b|"
        r"\bwenn ich (?:bald |morgen )?nicht mehr (?:da|hier) bin\b",
        guard=unless(r"\b(?:umzug|umziehen|ziehe|job|reise|urlaub|ausland|schule|firma|stadt|verein|whatsapp)\b"),
    ),
    rule(
        "crisis.de.cant_anymore",
        C,
        MEDIUM,
        r"\bich\s+(?:kann|halt\w*)\s+(?:das\s+|es\s+)?(?:einfach\s+)?(?:nicht|nich|net)\s+mehr\b",
        requires=r"\b(?:sterben|tot|umbringen|leben|selbstmord|suizid|weg sein|aufwachen|ende machen|schluss)\b",
        guard=unless(r"\b(?:lebensmittel|leben lang|lebenslauf)\b"),
    ),
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.de.love_you",
        R,
        MEDIUM,
        r"\bich\s+(?:\w+\s+){0,2}?lieb\w*\s+dich\b|\b(?:ild|ilu)\b|\bich hab\w*\s+(?:\w+\s+)?gefuhle\s+fur dich\b|"
        r"\bdu bist (?:die liebe meines lebens|mein ein und alles|mein schatz|meine traumfrau|"
        r"die frau meines lebens)\b",
        # "ich liebe dich, Mama": family; "hab dich lieb" (the friendly form) has no "ich liebe dich" in it
        after=r"(?:\s+(?:auch|so|sehr|total|so sehr|uber alles))*\s*,?\s*"
        r"(?:mama|mami|papa|mutti|oma|opa|leute|alle|ihr|bro|digga|mum|mom|schwesterherz|bruderherz)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\bich\s+(?:\w+\s+)?lieb\w*\s+dich\s+(?:nicht|nich)\b")),
    ),
    rule(
        "romance.de.in_love",
        R,
        MEDIUM,
        r"\b(?:verliebt|verknallt|verschossen)\s+in\s+dich\b|\bin dich\s+(?:\w+\s+)?(?:verliebt|verknallt|"
        r"verschossen)\b|\bich\s+(?:steh|stehe)\s+auf\s+dich\b|\bich\s+bin\s+(?:\w+\s+)?(?:in dich\s+)?verliebt\s*"
        r"(?:[.!?]|$)",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.de.be_my_partner",
        R,
        MEDIUM,
        r"\b(?:willst|mochtest|wurdest|kannst)\s+du\s+(?:\w+\s+)?(?:meine|mein)\s+(?:freundin|partnerin|frau|"
        r"freund|partner|schatz|valentinsschatz)\s+(?:sein|werden)\b|\b(?:sei|werde)\s+(?:meine|mein)\s+"
        r"(?:freundin|partnerin|frau|schatz|freund)\b|\b(?:willst|mochtest)\s+du\s+(?:\w+\s+)?(?:mit mir "
        r"(?:gehen|zusammen sein|zusammenkommen|ausgehen)|mich heiraten)\b|\bheirate mich\b|\bich\s+(?:will|mochte)\s+"
        r"(?:\w+\s+)?(?:mit dir zusammen sein|eine beziehung mit dir|dich heiraten|mit dir ausgehen)\b|"
        r"\b(?:sind wir|waren wir)\s+(?:jetzt\s+)?(?:zusammen|ein paar)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.de.kiss_touch",
        P,
        MEDIUM,
        r"\b(?:kuss|kusse|knutsch|beruhr|beruhre|streichel|fass)\s+mich\b|\bich\s+(?:\w+\s+){0,2}?(?:will|mochte|"
        r"wurde gern|wurde dich gern|darf)\s+(?:\w+\s+)?dich\s+(?:\w+\s+)?(?:kussen|anfassen|beruhren|streicheln|"
        r"ausziehen|spuren|halten)\b|\bdarf ich dich\s+(?:\w+\s+)?(?:kussen|anfassen|beruhren)\b|\bgib mir\s+"
        r"(?:\w+\s+)?(?:kuss|kusschen)\b|\b(?:lass uns|wollen wir|willst du mit mir)\s+(?:\w+\s+)?(?:kuscheln|"
        r"knutschen|rummachen)\b|\bkuschel\w*\s+mit\s+mir\b|\bmit dir\s+(?:\w+\s+)?kuscheln\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.de.sexual",
        P,
        HIGH,
        r"\bmit dir\s+(?:\w+\s+)?(?:schlafen|ins bett|sex haben)\b|\bsex\s+(?:mit dir|mit mir|haben)\b|"
        r"\b(?:lass uns|wollen wir|lass mal)\s+(?:\w+\s+)?(?:uber sex|sex)\b(?![\s-]*(?:education|ed\b|serie|film|"
        r"buch|aufklarung|unterricht))|\b(?:nacktbilder|nacktfotos|nacktbild|"
        r"nacktfoto|nudes|nacktselfies?)\b|\bzieh dich\s+(?:\w+\s+)?aus\b|\bwas (?:hast|tragst) du\s+(?:gerade\s+)?"
        r"(?:an|drunter)\b|\b(?:komm|geh)\s+(?:\w+\s+)?(?:zu mir\s+)?ins bett\b|\bsexting\b|\bich bin (?:so\s+)?"
        r"(?:geil|horny|scharf auf dich)\b|\bschick mir\s+(?:\w+\s+)?(?:heisse|sexy|freizugige)\s+(?:bilder|fotos)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

MANIPULATION: tuple[Rule, ...] = (
    rule(
        "manipulation.de.ignore_instructions",
        M,
        HIGH,
        r"\b(?:ignorier\w*|vergiss|vergesse|missachte\w*|uberschreib\w*|umgeh\w*|deaktivier\w*)\s+(?:bitte\s+)?"
        r"(?:alle\s+|samtliche\s+|jegliche\s+)?(?:deine\s+|die\s+|diese\s+|ihre\s+)?(?:\w+\s+)?(?:anweisungen|"
        r"instruktionen|regeln|vorgaben|richtlinien|einschrankungen|programmierung|systemanweisungen|filter|befehle)\b|"
        r"\bvergiss\s+(?:alles|alle)\s+(?:was|bisherige|vorherige|davor|vorher)\b",
    ),
    rule(
        "manipulation.de.prompt_extraction",
        M,
        HIGH,
        r"\b(?:zeig|zeige|gib|nenn|verrat|wiederhole|sag|schreib|kopier)\w*\s+(?:mir\s+)?(?:\w+\s+){0,2}?(?:deinen|"
        r"den|deine|die)\s+(?:\w+\s+)?(?:systemprompt|system-prompt|system prompt|prompt|systemanweisungen|"
        r"anweisungen|instruktionen|ursprunglichen anweisungen)\b|\bwas (?:ist|sind|steht in)\s+(?:dein|deine|"
        r"deinem)\s+(?:systemprompt|system prompt|prompt|anweisungen|instruktionen)\b",
        guard=unless(r"\b(?:rezept|spiel|bauanleitung|lego|hausaufgabe)\b"),
    ),
    rule(
        "manipulation.de.persona_swap",
        M,
        HIGH,
        r"\b(?:du bist|bist du|du bist jetzt|ab jetzt bist du|ab sofort bist du|von nun an bist du|sei|werde|spiel|"
        r"tu so als (?:ob )?(?:du|warst du|wärst du))\s+(?:\w+,?\s+){0,3}?(?:eine|ein|einen)\s+(?:andere|anderer|"
        r"anderes|neue|neuer|neues|andre)\s+(?:ki|ai|assistent\w*|chatbot|bot|modell|persona)\b|"
        r"\bdu bist\s+(?:jetzt\s+|"
        r"ab jetzt\s+)?(?:nicht mehr|keine?)\s+ella\b|\bdein\s+(?:neuer\s+name|name)\s+(?:ist|lautet)\s+(?:jetzt|ab "
        r"jetzt|ab sofort|von nun an)?\b(?=.*\b(?:jetzt|ab sofort|von nun an|neuer)\b)|\bab (?:jetzt|sofort) heisst "
        r"du\b|\b(?:entwicklermodus|entwickler-modus|dan-modus|dan modus|gott-modus|gottmodus)\b|"
        r"\b(?:ki|ai|bot|modell|assistent\w*|du)\s+(?:\w+\s+){0,3}?ohne\s+(?:jegliche\s+|alle\s+|irgendwelche\s+)?"
        r"(?:regeln|einschrankungen|grenzen|filter|zensur|richtlinien|moral)\b|\b(?:du bist|bist du) (?:jetzt )?dan\b|"
        r"\bbleib\w*\s+(?:\w+\s+)?in (?:deiner|der) rolle\s+(?:egal was|was auch immer|immer)\b",
        guard=unless(r"\b(?:handy|telefon|android|iphone|einstellungen|konsole|browser|laptop)\b"),
    ),
)
