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

from typing import Any

from ella.guard.rules import Guard, Rule, all_of, ends_before, occurs_before, rule, unless
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
    return ends_before(pattern, window)


def _reported(window: int = 60) -> Guard:
    return occurs_before(_REPORTED, window)


# "ich lieb dich, Pizza": an avowal to food or a weekday, anywhere in the message
_FOOD_ADDRESSEE = (
    r"\blieb\w*\s+dich\s*,?\s+(?:(?:du\s+)?(?:\w+\s+)?(?:pizza|schokolade|kaffee|doner|burger|pasta|sushi|"
    r"bett|wochenende|freitag|nutella|eis|sofa|couch))\b"
)
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
        r"(?:mama|mami|papa|mutti|oma|opa|leute|alle|ihr|bro|digga|mum|mom|schwesterherz|bruderherz|pizza|"
        r"schokolade|kaffee|doner|burger|pasta|sushi|bett|wochenende|freitag|leben)\b",
        guard=all_of(
            _NEG_OR_REPORTED, unless(r"\bich\s+(?:\w+\s+)?lieb\w*\s+dich\s+(?:nicht|nich)\b|" + _FOOD_ADDRESSEE)
        ),
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
        r"(?:geil|horny|scharf auf dich)\b(?!\s+(?:auf\s+(?!dich\b|mich\b)|drauf|darauf))|"
        r"\bschick mir\s+(?:\w+\s+)?(?:heisse|sexy|freizugige)\s+(?:bilder|fotos)\b",
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

# ---------------------------------------------------------------------------------------------------------------
# The English rule families, ported: each rule below is one behaviour of ``crisis``/``crisis_signals``/``romance``/
# ``physical``/``manipulation`` in the way German chat writes it (colloquial, Bavarian/Swiss forms, "ne"/"n" for
# "eine"/"ein", which normalisation turns into "any"/"and"; "u" for "und" becomes "you"). Each names the everyday
# reading it leaves alone.
# ---------------------------------------------------------------------------------------------------------------

_FREE_SLACK = r"(?:(?!(?:nicht|nich|nie|niemals|kein\w*|net)\b)\w+\s+)"
_FREE_SLACK_COMMA = r"(?:(?!(?:nicht|nich|nie|niemals|kein\w*|net)\b)\w+,?\s+)"
_ICH = r"(?:ich|i|ik)"
_REPORTED_GUARD = _reported()
_WANT = (
    r"(?:will|wil|mochte|moechte|mocht|wurde gern|wuerde gern|wurd gern|wurde gerne|wunsch\w*|hab lust|mag|mog|"
    r"wott|wet)"
)
_NE = r"(?:eine|ne|any|einen|nen|ein|and|a)"
_HOPE_DE = (
    r"\b(?:sinn|sinnlos|keinen ausweg|last|egal|vermissen|kraft|leben|sterben|tot|schluss|ende|nicht mehr|"
    r"ausweg|abschied|aufwachen|mich umbringen|hoffnung|hoffnungslos|leer|aushalten|aus)\b"
)
_FICTION = r"\b(?:roman|buch|film|serie|spiel|game|geschichte|krimi|drehbuch|hausaufgabe|referat|figur|charakter)\b"


def _rule(id: str, category: Category, severity: Severity, pattern: str, **kw: Any) -> Rule:
    """``rule``, with every word of slack (``(?:\\w+\\s+)``) in ``pattern`` barred from being a German negator:
    "ich bin nicht lebensmüde", "ich will dich nicht treffen" (a negator before the match is ``_NEG``'s job)."""
    pattern = pattern.replace(r"(?:\w+\s+)", _FREE_SLACK).replace(r"(?:\w+,?\s+)", _FREE_SLACK_COMMA)
    return rule(id, category, severity, pattern, **kw)


_CRISIS_MORE: tuple[Rule, ...] = (
    # passive death wish: "wär ich doch tot", "am liebsten wär ich tot", "ich wär lieber tot" (not "lieber tot als X")
    _rule(
        "crisis.de.wish_dead",
        C,
        HIGH,
        r"\b(?:ware|waere|war|wäre)\s+ich\s+(?:doch\s+|bloss\s+|nur\s+|einfach\s+|endlich\s+|lieber\s+)*"
        r"(?:tot|nie geboren|nicht mehr da|nicht mehr am leben|gestorben)\b|"
        rf"\b{_ICH}\s+(?:ware|waere|war|wär)\s+(?:\w+\s+){{0,2}}?lieber\s+(?:tot|nie geboren|nicht mehr da)\b|"
        r"\bam liebsten\s+(?:ware|waere|war)\s+ich\s+(?:\w+\s+)?(?:tot|nie geboren|nicht mehr da|weg fur immer)\b|"
        rf"\b{_ICH}\s+(?:\w+\s+){{0,2}}?(?:wunsch\w*|wunsche mir|hoffe|wollte)\s+(?:mir\s+)?(?:\w+,?\s+){{0,2}}?"
        r"(?:den tod|tot zu sein|ich ware tot|ich war tot|ich waere tot|ich wurde sterben|ich konnte sterben|"
        r"ich wurde einfach sterben|ich wurde nie wieder aufwachen|nie geboren worden zu sein|ich ware nie geboren)\b",
        after=r"\s*,?\s*(?:als|bevor)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION)),
    ),
    # slang and typos for dying: "will einfach abkratzen", "den löffel abgeben", "ich will strbn"
    _rule(
        "crisis.de.die_slang",
        C,
        HIGH,
        rf"\b(?:{_ICH}\s+)?{_WANT}\s+(?:\w+\s+){{0,3}}?(?:abkratzen|verrecken|den loffel abgeben|ins gras beissen|"
        r"krepieren|strben|strbn|sterbn|sterbem|stebren|sterbeb|sterbenn|sterebn|sterben lol|mich abmurksen|"
        r"mich umbrigen|mich umbirngen|mich umbingen|mich umbrngen|mich toeten)\b|"
        r"\b(?:i|ich)\s+(?:mog|mag|wott|will|wet)\s+(?:\w+\s+)?(?:nimmer|num|nume|nimme|ned mehr|net mehr)\s+"
        r"(?:leben|lebn|labe|lebe|do sei|da sein|si)\b|\b(?:i|ich)\s+(?:wott|wet|mocht|will)\s+(?:\w+\s+)?tot\s+"
        r"(?:si|sei|sein)\b|\bselbs?t?mor[dt]\s+(?:begehen|machen|gedanken)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:akku|handy|auto|laptop|pflanze|blume|motor|fernseher)\b")),
    ),
    # "lebensmüde" (said of oneself, not "bist du lebensmüde?", the "are you mad" idiom), no will to live
    _rule(
        "crisis.de.tired_of_life",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:bin|fuhl\w*\s+mich|fuehl\w*\s+mich)\s+(?:\w+\s+){{0,2}}?(?:lebensmude|lebensmuede)\b|"
        r"\blebensmude gedanken\b|\bkein\w*\s+(?:lebenswille\w*|lebensmut|lebenslust)\s+mehr\b|"
        r"\bmein\w*\s+(?:lebenswille|lebensmut|lebenswillen)\s+(?:ist|sind)\s+(?:\w+\s+)?(?:weg|verschwunden|tot)\b|"
        r"\b(?:todeswunsch\w*|todessehnsucht|todesgedanken|suizidgedank\w*|suizidale gedanken)\b|"
        r"\bich\s+(?:\w+\s+){0,2}?(?:denk|denke|dachte)\s+(?:\w+\s+){0,2}?(?:ans sterben|an den tod|ans totsein|"
        r"ans tot sein|an selbstmord|an suizid|daran,? (?:zu sterben|tot zu sein|nicht mehr da zu sein|"
        r"mich umzubringen|mir das leben zu nehmen|nicht mehr zu leben))\b",
        requires=r"\b(?:ich|mich|mir|mein\w*|i|hab|habe|bin)\b",
        after=r"\s+(?:meiner|meines|von|des|der|im|in)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_THIRD + r"|\bbist du\b|" + _FICTION)),
    ),
    # no reason to live, why go on living, not worth living, can't live like this
    _rule(
        "crisis.de.no_reason_to_live",
        C,
        HIGH,
        r"\bkein\w*\s+(?:bock|lust|kraft|grund|sinn|energie|motivation)\s+mehr\s+(?:\w+\s+)?(?:auf (?:das |mein |"
        r")leben|"
        r"aufs leben|zu leben|zum leben|zum weiterleben|weiterzuleben|am leben zu bleiben|auf alles)\b|"
        r"\b(?:wofur|wozu|warum|weshalb|wieso)\s+(?:soll(?:te)?\s+ich\s+(?:denn\s+|noch\s+|uberhaupt\s+|bitte\s+)*"
        r"(?:weiter\s*)?leben|(?:denn\s+)?noch\s+(?:weiter\s*)?leben|lebe ich (?:noch|uberhaupt))\b|"
        r"\bmein leben ist\s+(?:\w+\s+)?(?:nicht (?:mehr )?lebenswert|es nicht wert|wertlos|sinnlos|vorbei)\b|"
        r"\b(?:so|dieses leben)\s+(?:\w+\s+)?(?:nicht mehr|nimmer)\s+(?:weiterleben|leben|aushalten)\b|"
        r"\bich\s+(?:\w+\s+)?(?:halt\w*|ertrag\w*)\s+(?:dieses|das|mein)\s+leben\s+(?:\w+\s+)?(?:nicht|nich|net)\s+"
        r"mehr\s*(?:aus)?\b|\bich\s+(?:\w+\s+)?(?:kann|will)\s+so\s+(?:\w+\s+)?(?:nicht|nich|net)\s+(?:mehr\s+)?"
        r"(?:weiterleben|leben)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:ohne kaffee|ohne schokolade|ohne internet|ohne wlan)\b")),
    ),
    # done with life: "fertig mit dem Leben", "mit dem Leben abgeschlossen"
    _rule(
        "crisis.de.done_with_life",
        C,
        HIGH,
        r"\b(?:fertig|durch)\s+mit\s+(?:dem|meinem|diesem)\s+leben\b|\bmit\s+(?:dem|meinem)\s+leben\s+"
        r"(?:\w+\s+)?abgeschlossen\b|\babgeschlossen\s+mit\s+(?:dem|meinem)\s+leben\b|\bich\s+(?:hab|habe)\s+"
        r"(?:\w+\s+)?mit allem\s+(?:\w+\s+)?abgeschlossen\b|\bich\s+(?:hab|habe)\s+(?:\w+\s+)?(?:aufgegeben|"
        r"keine hoffnung mehr)\s*,?\s+(?:\w+\s+){0,3}?(?:leben|weiterzumachen|auf alles)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:projekt|kapitel|studium|thema|beziehung|ex|job|firma)\b")),
    ),
    # want it all to end: "ich will, dass alles für immer aufhört", "mein Leben soll enden"
    _rule(
        "crisis.de.want_it_to_end",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:\w+\s+)?(?:will|mochte|moechte|wunsch\w*(?:\s+mir)?),?\s+(?:dass|das)\s+(?:alles|es|das alles|"
        r"mein leben)\s+(?:\w+\s+){0,2}?(?:aufhort|aufhoert|vorbei ist|endet|zu ende ist|vorbei geht)\b|"
        r"\bmein leben\s+(?:soll|muss|darf)\s+(?:\w+\s+)?(?:enden|aufhoren|vorbei sein|zu ende sein)\b|"
        r"\b(?:alles|es)\s+(?:soll|muss)\s+(?:einfach\s+)?(?:fur immer|endgultig)\s+(?:aufhoren|enden|vorbei sein)\b",
        requires=r"\b(?:fur immer|endgultig|mein leben|alles|nicht mehr|sterben|tot)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:schmerz\w*|kopfschmerz\w*|regen|larm|krieg|woche|prufung|klausur|stress|streit|bauarbeit\w*|"
                r"winter|pandemie|corona|husten|ubelkeit|migrane|party|baustelle|umbau|renovierung|umzug|semester|"
                r"projekt|examen|grippe|erkaltung)\b"
            ),
        ),
    ),
    # burden: "ich falle allen zur Last", "ich bin nur eine Belastung"
    _rule(
        "crisis.de.burden_more",
        C,
        MEDIUM,
        rf"\b{_ICH}\s+(?:\w+\s+)?fall\w*\s+(?:\w+\s+){{0,2}}?(?:allen|jedem|euch|meiner familie|meinen eltern|"
        r"allen anderen)\s+(?:\w+\s+)?(?:nur\s+)?zur last\b|\bich bin\s+(?:\w+\s+){0,2}?(?:eine|ne|any)?\s*"
        r"(?:belastung|zumutung|ballast)\s+(?:fur|fuer)\s+(?:alle|jeden|meine familie|euch|meine eltern|"
        r"alle anderen)\b|"
        r"\bich bin\s+(?:doch\s+|eh\s+|nur\s+|bloss\s+)+(?:ballast|im weg|ein klotz am bein)\b|"
        r"\b(?:allen|jedem|meiner familie|meinen eltern|euch)\s+(?:ginge|ging|geht|wurde)\s+(?:es\s+)?(?:\w+\s+)?"
        r"besser\s+(?:gehen\s+)?ohne mich\b",
        guard=_NEG_OR_REPORTED,
    ),
    # no one would care: "keiner würde es merken, wenn ich weg wäre", "es wär allen egal, wenn ich tot wäre"
    _rule(
        "crisis.de.no_one_would_care",
        C,
        HIGH,
        r"\b(?:keiner|niemand|kein mensch|keine sau|wer)\s+(?:\w+\s+){0,2}?(?:wurde|wurd|wuerde|wird|wurde es)\s+"
        r"(?:\w+\s+){0,2}?(?:mich\s+)?(?:vermissen|merken|bemerken|auffallen|um mich trauern|mich vermissen)\b|"
        r"\bwem\s+(?:wurde|wuerde|wurd)\s+ich\s+(?:schon\s+)?fehlen\b|"
        r"\b(?:allen|jedem|keinen|niemanden|keinem)\s+(?:ware|war|waere|wurde|ists|ist)\s+(?:es\s+)?(?:\w+\s+)?"
        r"(?:egal|wurscht|wumpe)\s*,?\s+(?:wenn|ob)\s+ich\b|\b(?:ware|war|waere|ist|wars)\s+(?:es\s+)?(?:doch\s+|"
        r"eh\s+)?"
        r"(?:allen|jedem)\s+(?:\w+\s+)?(?:egal|wurscht|wumpe)\s*,?\s+(?:wenn|ob)\s+ich\b",
        requires=r"\b(?:wenn ich|ob ich)\s+(?:\w+\s+){0,2}?(?:tot|weg|nicht mehr|sterbe|sterben|verschwinde|"
        r"verschwinden|gestorben)\b|\bmich (?:\w+ )?vermissen\b|\bich\s+(?:\w+\s+)?fehlen\b|\bum mich trauern\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:party|feier|arbeit|buro|schule|training|urlaub|meeting|"
                r"kurs|verein|chor|wg)\b"
            ),
        ),
    ),
    # hopeless with finality: "ich seh keinen Ausweg mehr", "der Tod ist der einzige Ausweg"
    _rule(
        "crisis.de.no_way_out",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:\w+\s+){{0,2}}?(?:seh|sehe|find\w*|hab|habe)\s+(?:\w+\s+)?keinen\s+(?:anderen\s+)?ausweg\s+"
        r"mehr\b|\b(?:der tod|sterben|selbstmord|suizid|schluss machen)\s+(?:ist|ware|war)\s+(?:\w+\s+)?"
        r"(?:der|mein)\s+(?:einzige|letzte)\w*\s+(?:ausweg|weg|losung)\b|\b(?:einzige|letzte)\w*\s+"
        r"(?:ausweg|losung)\s+(?:ist|ware|war)\s+(?:\w+\s+)?(?:der tod|zu sterben|mich umzubringen|sterben|"
        r"schluss zu machen|nicht mehr da zu sein)\b|\bes gibt (?:fur mich )?nur noch einen ausweg\b|"
        r"\bes wird (?:eh\s+|sowieso\s+)?nie (?:wieder\s+)?besser\b(?=.*\b(?:nicht mehr|sterben|tot|schluss|leben|"
        r"aufgeben|kraft)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:escape room|labyrinth|vertrag|kredit)\b")),
    ),
    # self-injury behaviour: "hab mich wieder geschnitten", "Druck zu ritzen", "Narben verstecken", "SVV"
    _rule(
        "crisis.de.self_injury",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:\w+\s+){{0,2}}?(?:hab|habe)\s+mich\s+(?:\w+\s+){{0,2}}?(?:wieder|erneut|nochmal|heute|"
        r"gestern|selbst|absichtlich|extra)\s+(?:\w+\s+)?(?:geschnitten|verletzt|verbrannt|gekratzt|aufgeschnitten)\b|"
        r"\b(?:druck|drang|lust|bedurfnis)\s+(?:\w+\s+){0,2}?(?:zu ritzen|mich zu schneiden|mich zu verletzen|"
        r"mir weh zu tun|mir wehzutun|mich selbst zu verletzen)\b|\bich\s+(?:muss|will|brauch\w*)\s+(?:\w+\s+)?"
        r"(?:mich\s+)?(?:wieder\s+)?(?:ritzen|schneiden|verletzen)\s*(?:[.!,]|$)|\bich\s+(?:schlag|schlage|hau|haue)\s+"
        r"(?:mich|meinen kopf)\s+(?:\w+\s+){0,3}?bis\s+(?:es\s+)?(?:blutet|weh tut|wehtut)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:kuche|kochen|gemuse|zwiebel\w*|messer beim|papier|rasieren|gartenarbeit|sport|training|"
                r"sturz|gestolpert|unfall|fahrrad|ofen|backblech|herd|baum|holz|film|serie)\b"
            ),
        ),
    ),
    # hidden marks and relapse: "lange Ärmel, damit keiner die Narben sieht", "Rückfall, wieder geritzt"
    _rule(
        "crisis.de.self_injury_marks",
        C,
        HIGH,
        r"\b(?:narben|schnitte|wunden|ritzer|ritzwunden)\s+(?:\w+\s+){0,3}?(?:verstecken|verdecken|sieht|sehen|"
        r"bemerkt|merkt|zu sehen)\b|\b(?:svv|ritzen|ritze|geritzt|geschnitten|klinge)\b",
        requires=r"\b(?:ruckfall|clean|wieder angefangen|aufhoren|armel|pulli|keiner|niemand|eltern|mama|handgelenk\w*|"
        r"oberschenkel|unterarm\w*)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _THIRD + r"|\b(?:kuche|kochen|gemuse|papier|rasieren|sport|training|unfall|op|operation|"
                r"kaiserschnitt|blinddarm|tattoo|piercing|film|serie|haare|friseur)\b"
            ),
        ),
    ),
    # method research: "wie bringt man sich schmerzlos um", "schmerzloseste Art zu sterben"
    _rule(
        "crisis.de.method_research",
        C,
        HIGH,
        r"\bwie\s+(?:bringt|totet|toetet|erhangt|vergiftet)\s+man\s+sich\s+(?:\w+\s+){0,3}?(?:um|selbst)?\b|"
        r"\b(?:schmerzlos\w*|schnellst\w*|sicherst\w*|einfachst\w*|leichtest\w*|beste\w*|sanftest\w*)\s+"
        r"(?:weg|art|methode|moglichkeit|variante)\s+(?:\w+\s+){0,2}?(?:zu sterben|sich umzubringen|"
        r"mich umzubringen|aus dem leben zu gehen|sich das leben zu nehmen|mir das leben zu nehmen|suizid|"
        r"selbstmord)\b|\b(?:welche|was fur)\s+(?:methode|art)\s+(?:\w+\s+){0,3}?(?:sterben|suizid|selbstmord|"
        r"umbringen)\b|\b(?:suizid|selbstmord)\s*(?:methoden|arten)\b",
        guard=unless(
            r"\b(?:pravention|statistik|studie|referat|hausarbeit|krimi|film|serie|roman|buch|geschichte|"
            r"spiel|fische|pflanzen|zellen|bakterien|unkraut|ratten|mause|insekten)\b"
        ),
    ),
    # lethality: "wie viele brauche ich um nicht mehr aufzuwachen", "tut Ertrinken weh", "ist man sofort tot wenn"
    _rule(
        "crisis.de.lethality",
        C,
        HIGH,
        r"\b(?:wie\s*viele?|wieviele?|welche menge|wie hoch|reicht|reichen|genug|braucht man|brauche ich|brauch ich)\b"
        r"[^.?!]{0,60}?\bum\s+(?:\w+\s+)?(?:zu sterben|nicht mehr aufzuwachen|nie wieder aufzuwachen|tot zu sein|"
        r"sich umzubringen|mich umzubringen|draufzugehen|sicher zu sterben)\b|"
        r"\btut\s+(?:es\s+)?(?:\w+\s+)?(?:weh|sehr weh)\s*,?\s+(?:wenn|beim)\s+(?:man\s+)?(?:\w+\s+){0,3}?"
        r"(?:ertrinkt|ertrinken|erhangt|erhangen|springt|vor den zug|die pulsadern|verblutet|sich erschiesst|stirbt)\b|"
        r"\btut\s+(?:ertrinken|erhangen|verbluten|sterben|springen)\s+(?:\w+\s+)?weh\b|"
        r"\b(?:ist man|stirbt man|uberlebt man)\s+(?:\w+\s+){0,2}?(?:sofort|sicher|direkt|garantiert|wirklich)?\s*"
        r"(?:tot|stirbt)?[^.?!]{0,40}\b(?:springt|sprung aus|vom dach|aus dem \w+ stock|vor den zug|von der brucke|"
        r"(?:tabletten|pillen) nimmt|sich erhangt|die pulsadern)\b|\btodliche dosis\b(?=.*\b(?:ich|mir|mich|fur mich|"
        r"reicht|brauche|brauch|habe|hab)\b)",
        guard=unless(
            r"\b(?:hund|katze|kind|kinder|baby|versehentlich|aus versehen|arzt|arztin|apotheke\w*|"
            r"pharmakologie|studium|klausur|prufung|vergiftung|notfall|film|serie|krimi|roman|buch|spiel|tiere?|"
            r"fallschirm|bungee|klippenspringen|turmspringen|wasser ist tief|pool)\b"
        ),
    ),
    # means at hand: "die Tabletten liegen vor mir", "das Seil hängt schon", "hab mir ne Waffe besorgt"
    _rule(
        "crisis.de.means_at_hand",
        C,
        HIGH,
        rf"\b(?:die|meine|alle|genug|ganz viele|packung|packungen|schachtel)\s+(?:\w+\s+)?(?:{_PILLS}|klingen|"
        r"rasierklingen|klinge|rasierklinge|das messer)\s+(?:\w+\s+){0,2}?(?:liegen|liegt|lagen|sind|ist)\s+"
        r"(?:\w+\s+)?(?:bereit|vor mir|neben mir|schon da|hier bei mir|griffbereit|auf dem tisch)\b|"
        r"\b(?:das|ein|der|and)\s+(?:seil|strick)\s+(?:\w+\s+){0,2}?(?:hangt|haengt|ist festgemacht|ist fertig|"
        r"liegt bereit|ist gekauft)\b|"
        rf"\bich\s+(?:hab|habe)\s+(?:mir\s+)?(?:schon\s+|jetzt\s+|heute\s+)?{_NE}\s+(?:waffe|pistole|knarre|klinge|"
        r"rasierklinge|strick)\s+(?:\w+\s+){0,2}?(?:besorgt|gekauft|organisiert|hier|in der hand|bei mir|geholt)\b|"
        rf"\bich\s+(?:sitz|sitze|bin|lieg|liege)\s+(?:\w+\s+){{0,2}}?mit\s+(?:den|allen|meinen|der|dem|{_NE})\s+"
        r"(?:\w+\s+)?(?:tabletten|pillen|klinge|rasierklinge|messer|seil|strick)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:airsoft|softair|spielzeug|wasserpistole|schreckschuss|jagd|jager|schutzenverein|"
                r"kuche|kochen|gemuse|klettern|schaukel|camping|zelt|boot|segeln|vitamin\w*|kopfschmerz\w*|"
                r"erkaltung|fieber|antibiotik\w*|grippe|migrane|gegen die|gegen den|schmerz\w*)\b" + "|" + _FICTION
            ),
        ),
    ),
    # plans and dates: "am Freitag mach ich es", "ich weiß schon wann und wie", "hab ein Datum ausgesucht"
    _rule(
        "crisis.de.plan_dated",
        C,
        HIGH,
        r"\b(?:heute nacht|heut nacht|heute abend|diese nacht|morgen|ubermorgen|am (?:montag|dienstag|mittwoch|"
        r"donnerstag|freitag|samstag|sonntag|wochenende)|nachste woche|an meinem geburtstag|an silvester)\s+"
        r"(?:\w+\s+)?(?:mach|tu|zieh|werd|werde)\s+ich\s+(?:es|das|ernst|schluss)\b|"
        r"\bich\s+(?:mach|tu|zieh|werde|werd)\s+(?:es|das)\s+(?:\w+\s+)?(?:heute nacht|heut nacht|heute abend|"
        r"diese nacht|morgen|am (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|wochenende))\b|"
        r"\bich\s+(?:\w+\s+){0,2}?(?:weiss|weis|hab\w*)\s+(?:\w+\s+){0,3}?(?:wann und wie|wie und wann|wann und wo|"
        r"wo und wann|tag und (?:die )?uhrzeit|(?:einen|den) tag ausgesucht|(?:ein|das) datum (?:ausgesucht|"
        r"festgelegt|gewahlt))\b",
        requires=r"\b(?:sterben|tot|leben|schluss|ende|nicht mehr|abschied|sinn|ausweg|kraft|mich um|aufwachen|"
        r"vermissen|last|tabletten|pillen|brucke|seil|strick|springen|hoffnung|egal|weg sein)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:party|feier|umzug|urlaub|reise|hochzeit|antrag|termin|"
                r"geburtstagsfeier|prufung|bewerbung|training|kundigung|date|konzert|essen|kuchen|schluss mit ihm|"
                r"schluss mit ihr|beziehung|rauchen|diat)\b"
            ),
        ),
    ),
    # the note: "wenn du das liest, bin ich nicht mehr da"; "ihr seid nicht schuld"
    _rule(
        "crisis.de.note",
        C,
        HIGH,
        r"\bwenn\s+(?:du|ihr|sie|jemand|ihr alle)\s+(?:\w+\s+)?(?:das|dies|diese nachricht|diesen brief)\s+(?:\w+\s+)?"
        r"(?:liest|lest|lesen|findet|findest)\s*,?\s*(?:dann\s+)?(?:bin ich|ich bin)\s+(?:\w+\s+)?(?:nicht mehr|tot|"
        r"schon weg|weg|gestorben|fort|nicht mehr am leben)\b|"
        r"\b(?:verzeiht mir|verzeih mir|vergebt mir|es tut mir (?:so )?leid|sorry)\b(?=.*\b(?:ihr (?:seid|habt) "
        r"(?:keine|nicht) schuld|(?:ist|war) nicht eure schuld|ihr werdet (?:es|mich) (?:\w+ )?verstehen|lebt wohl|"
        r"ich kann (?:einfach )?nicht mehr\s*(?:[.!]|$)|passt gut auf euch auf|fur immer)\b)",
        guard=all_of(_REPORTED_GUARD, unless(_FICTION + r"|\b(?:umzug|reise|urlaub|ausland)\b")),
    ),
    # after I'm gone: "wenn ich tot bin, kümmer dich um meine Katze", "für danach aufgeschrieben"
    _rule(
        "crisis.de.after_im_gone",
        C,
        HIGH,
        r"\b(?:wenn|nachdem|sobald)\s+ich\s+(?:\w+\s+)?(?:tot bin|weg bin|gestorben bin|nicht mehr lebe|"
        r"nicht mehr am leben bin|von euch gegangen bin)\b|\b(?:fur|fuer)\s+(?:danach|die zeit danach|nach meinem tod)"
        r"\b(?=.*\b(?:brief|passwort\w*|geregelt|aufgeschrieben|katze|hund|sachen|konto|geld|bitte)\b)",
        requires=r"\b(?:kummer\w*|pass auf|passt auf|nimm|nehmt|bekommt|kriegt|soll|sollen|gehor\w*|erb\w*|"
        r"beerdigung|grab|asche|lied|passwort\w*|katze|hund|brief|sag|sagt|vermiss\w*|bitte|traurig)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\bsag\w*\s+(?:meine|mein|die|der)\s+(?:oma|opa|mama|papa|mutter|vater)\b|"
                + r"\b(?:irgendwann|eines tages|alt bin|jahren|spater mal|mit (?:80|90|"
                r"100)|testament beim notar|lebensversicherung)\b" + "|" + _FICTION
            ),
        ),
    ),
    # giving away / rehoming: "ich verschenk meine Sachen, brauch sie eh nicht mehr", "neues Zuhause für meine Katze"
    _rule(
        "crisis.de.giving_away",
        C,
        HIGH,
        r"\b(?:brauch|brauche)\s+(?:das|die|den|es|sie|ihn|sachen|alles)\s+(?:\w+\s+)?(?:eh|bald|sowieso|dann|"
        r"nirgendwo)\s+(?:\w+\s+)?nicht mehr\b|\bich\s+(?:verschenk\w*|versch\w*nke)\s+(?:gerade\s+|jetzt\s+)?"
        r"(?:alle\s+|all\s+)?meine\s+(?:sachen|klamotten|bucher|spiele|sammlung|lieblingssachen)\b|"
        r"\b(?:ein\s+)?neues zuhause (?:fur|fuer) (?:meine|meinen|mein)\s+(?:katze|kater|hund|hasen|hamster|"
        r"haustier\w*|"
        r"tiere|vogel)\b",
        requires=_HOPE_DE + r"|\b(?:verschenk\w*|behalt\w*|kannst du haben|kriegst|gehort dir|wenn ich weg)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:umzug|ziehe um|umziehen|ausmisten|aussortier\w*|marie kondo|"
                r"minimalis\w*|spende|caritas|flohmarkt|allergie|allergisch|auslandsjahr|ausland|neues handy|"
                r"neue wohnung|"
                r"ebay|kleinanzeigen|vinted|zu klein|zu gross|rausgewachsen)\b"
            ),
        ),
    ),
    # world without me: "besser, wenn es mich nicht gäbe", "ohne mich wär alles leichter"
    _rule(
        "crisis.de.world_without_me",
        C,
        HIGH,
        r"\b(?:besser|einfacher|leichter|schoner)\s*,?\s+wenn\s+(?:es\s+)?(?:mich|ich)\s+(?:\w+\s+)?(?:nicht (?:mehr )?"
        r"(?:gabe|gaebe|geben wurde|gibt|existieren wurde|da ware|ware|da waere)|nie (?:gegeben hatte|geboren "
        r"(?:worden )?ware|existiert hatte))\b|\bohne mich\s+(?:ware|war|waere|wurde|wird|ist)\s+(?:\w+\s+){0,2}?"
        r"(?:alles|die welt|euer leben|ihr leben|das leben aller|es)\s+(?:\w+\s+)?(?:einfacher|leichter|schoner|"
        r"besser|ruhiger)\b|\bdie welt\s+(?:braucht|vermisst)\s+mich\s+(?:\w+\s+)?nicht\b",
        guard=all_of(
            _REPORTED_GUARD,
            unless(
                r"\b(?:party|team|mannschaft|projekt|gruppe|band|spiel|abend|"
                r"ausflug|reise|urlaub|meeting|firma|verein|konzert)\b"
            ),
        ),
    ),
    # disappearing for good
    _rule(
        "crisis.de.vanish_for_good",
        C,
        HIGH,
        rf"\b(?:{_ICH}\s+)?{_WANT}\s+(?:\w+\s+){{0,2}}?(?:fur immer\s+(?:verschwinden|weg|einschlafen|schlafen)|"
        r"verschwinden\s+(?:fur immer|und nie (?:wieder|mehr) (?:auftauchen|zuruckkommen|wiederkommen))|"
        r"fur immer\s+von\s+(?:hier|der welt|dieser welt)\s+(?:weg|verschwinden))\b|"
        r"\b(?:einfach\s+)?(?:von der bildflache|von dieser welt|aus dieser welt)\s+verschwinden\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:urlaub|insel|ausland|stadt|dorf|job|firma|schule|ferien|"
                r"auswandern|peinlich|party|wochenende|social media|instagram|tiktok|whatsapp)\b"
            ),
        ),
    ),
    # not waking up: "hoffentlich wach ich morgen nicht mehr auf", "enttäuscht, dass ich aufgewacht bin"
    _rule(
        "crisis.de.dont_wake",
        C,
        HIGH,
        rf"\b(?:hoffentlich|hoffe\w*,?\s+(?:dass\s+|das\s+)?)\s*{_ICH}?\s*(?:wach\w*|werde|werd)\s+(?:\w+\s+){{0,2}}?"
        r"(?:nicht|nie|niemals)\s+(?:mehr\s+|wieder\s+)?(?:auf|aufwachen)\b|"
        r"\b(?:enttauscht|traurig|wutend|sauer|frustriert)\s*,?\s+(?:\w+\s+){0,2}?(?:dass|das|weil)\s+ich\s+"
        r"(?:\w+\s+){0,2}?(?:aufgewacht bin|aufwache|noch lebe|noch da bin|wieder aufgewacht bin)\b|"
        r"\bwarum\s+(?:bin ich|wach ich|wache ich)\s+(?:\w+\s+)?(?:wieder|noch|uberhaupt)\s+(?:aufgewacht|auf)\b|"
        rf"\b{_ICH}\s+{_WANT}\s+(?:\w+\s+)?(?:einschlafen|schlafen)\s+und\s+(?:\w+\s+)?(?:nicht|nie)\s+(?:mehr|"
        rf"wieder)\s+"
        r"(?:aufwachen|aufstehen)\b",
        guard=all_of(
            _REPORTED_GUARD,
            unless(
                r"\b(?:wecker|montag|schule|arbeit|fruhschicht|kater|rausch|"
                r"verschlafen|zu spat|termin|klausur|prufung|narkose|op\b|operation)\b"
            ),
        ),
    ),
    # passive accident wish: "ich hoffe, mich fährt ein Bus an", "wenn mich ein Auto überfährt, wär das ok"
    _rule(
        "crisis.de.wish_accident",
        C,
        HIGH,
        r"\b(?:wunsch\w*|hoff\w*)\s+(?:mir\s+)?(?:\w+\s+){0,3}?(?:einen (?:todlichen )?unfall|dass mich\s+"
        r"(?:ein|einer|jemand|der)\s+(?:\w+\s+)?(?:uberfahrt|anfahrt|totfahrt|erwischt|erschiesst))\b|"
        r"\bwenn mich\s+(?:ein|der|einer|and|a)\s+(?:auto|bus|lkw|zug|laster)\s+(?:\w+\s+)?(?:uberfahrt|uberfahren "
        r"wurde|erfasst|erwischt|anfahrt)\b(?=.*\b(?:okay|ok|egal|schlimm|schade|gut|froh|fine|besser|erleichtert)\b)|"
        rf"\b{_ICH}\s+(?:\w+\s+){{0,2}}?(?:fahr|fahre|rase|lenk|will|werde)\s+(?:\w+\s+){{0,3}}?(?:gegen|in)\s+"
        r"(?:einen|nen|den|die|eine|any|and|ne)\s+(?:baum|wand|mauer|bruckenpfeiler|pfeiler|lkw|gegenverkehr)\b"
        r"(?:\s+(?:\w+\s+)?(?:fahren|rasen|steuern|lenken|krachen))?(?=.*\b(?:absichtlich|extra|einfach|"
        r"nicht mehr|schluss|ende|will|sterben|tot)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:fast|beinahe|aus versehen|fahrschule|glatteis|navi|"
                r"lottogewinn|beforderung|gehaltserhohung)\b"
            ),
        ),
    ),
    # jump announced: "ich spring jetzt", "ich werde springen" with a height
    _rule(
        "crisis.de.jump_announced",
        C,
        HIGH,
        r"\bich\s+(?:\w+\s+)?(?:spring|springe|werde springen|werd springen|geh springen|will springen)\s+"
        r"(?:jetzt|gleich|heute|heut nacht|heute nacht|runter|einfach)\b|\b(?:und|dann)\s+(?:spring|springe)\s+"
        r"(?:jetzt|gleich|einfach)?\s*runter\b|\bich\s+(?:\w+\s+)?(?:will|werde|mochte)\s+"
        r"(?:\w+\s+)?(?:runterspringen|hinunterspringen|in die tiefe springen|mich fallen lassen)\b",
        requires=r"\b(?:brucke|dach|fenster|balkon|hochhaus|runter|tief|tiefe|stock|klippe|gleis\w*|rand|gelander|"
        r"hoch|hohe)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:dusche|pool|wasser|see|becken|trampolin|fallschirm|bungee|"
                r"schwimmbad|freibad|meer|sprungturm|turm im freibad|hupfburg|bett)\b"
            ),
        ),
    ),
    # not around long: "ich bin eh bald nicht mehr da"
    _rule(
        "crisis.de.not_around_long",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:bin|werd\w*)\s+(?:eh\s+|sowieso\s+|dann\s+|wohl\s+)?(?:bald|nicht mehr lange|"
        rf"nicht mehr lang)\s+"
        r"(?:nicht mehr\s+)?(?:da|hier|am leben|unter euch|auf dieser welt)\s*(?:sein)?\b|"
        r"\b(?:ihr|du)\s+(?:seid|bist)\s+mich\s+(?:eh\s+|sowieso\s+|bald\s+)+los\b|\bbald\s+(?:habt ihr|hast du)\s+"
        r"(?:\w+\s+)?ruhe\s+vor\s+mir\b",
        requires=_HOPE_DE + r"|\b(?:los|ruhe vor mir|eh|sowieso|verzeih\w*|danke|leid)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:umzug|urlaub|ziehe|umziehen|reise|auszieh\w*|job|schicht|"
                r"feierabend|akku|offline|zug|bus|flug|party|feier|buro|schule|stadt|firma|wg|ausland|handy)\b"
            ),
        ),
    ),
    # "ich habe Angst, mir was anzutun", "ich könnte mir was antun"
    _rule(
        "crisis.de.harm_myself_infinitive",
        C,
        HIGH,
        r"\bmir\s+(?:\w+\s+)?(?:etwas|was|ewas)\s+(?:anzutun|antun konnte|antun werde|antun will|antun konnen)\b|"
        r"\bmir\s+(?:\w+\s+)?das leben\s+(?:zu\s+)?nehmen\b|\bmir\s+(?:\w+\s+)?(?:etwas|was)\s+an\s*tun\b",
        requires=r"\b(?:ich|mich|mir|i)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

CRISIS = CRISIS + _CRISIS_MORE

_FAMILY = (
    r"\b(?:mama|mami|papa|mutti|oma|opa|eltern|tochter|sohn|kinder|kind|bruder|schwester|omi|papi|familie|"
    r"mein mann|meine frau|mein freund|meine freundin|mein partner|meine partnerin|freunde)\b"
)
_KIN = r"\b(?:mama|mami|papa|mutti|oma|opa|eltern|tochter|sohn|kinder|bruder|schwester|omi|papi|familie)\b"
_PET = (
    r"(?:schatz|schatzi|schatzilein|liebling|baby|babe|hase|hasi|mausi|susse|suesse|suse|herzblatt|honey|darling|bae)"
)

_ROMANCE_MORE: tuple[Rule, ...] = (
    _rule(
        "romance.de.love_you_forms",
        R,
        MEDIUM,
        r"\b(?:i|ich)\s+(?:lieb|liebe|lib|libe)\s+(?:di|dich|dch|dihc)\b|\b(?:liebe|lieb)\s+dich\s+(?:so\s+sehr|"
        r"uber alles|wahnsinnig|abgottisch|uber alles in der welt|mehr als alles|unendlich|von ganzem herzen)\b|"
        r"\b(?:ilysm|ily|ildg|ilu)\b|\bdu bist (?:meine grosse liebe|die eine fur mich|meine traumfrau|mein "
        r"traummann|alles fur mich|mein ein und alles|die liebe meines lebens|meine seelenverwandte)\b",
        after=r"(?:\s+(?:auch|so|sehr|total|so sehr|uber alles))*\s*,?\s*(?:mama|mami|papa|mutti|oma|opa|leute|"
        r"alle|ihr|bro|digga|schwesterherz|bruderherz|kinder)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FAMILY + "|" + _FOOD_ADDRESSEE)),
    ),
    _rule(
        "romance.de.crush",
        R,
        MEDIUM,
        r"\b(?:crush|schwarm)\s+(?:auf|an|fur)\s+dich\b|\bdu bist mein\s+(?:\w+\s+)?(?:crush|schwarm)\b|"
        r"\bich\s+(?:\w+\s+)?(?:schwarm\w*|schwärm\w*)\s+(?:\w+\s+)?(?:fur dich|von dir)\b|"
        r"\bich\s+(?:\w+\s+)?(?:hab|habe)\s+mich\s+(?:\w+\s+){0,2}?in dich\s+(?:verguckt|verschaut|verknallt|"
        r"verliebt)\b|\bich\s+(?:\w+\s+)?(?:fahr|fahre)\s+(?:\w+\s+)?(?:voll\s+|total\s+|richtig\s+)?auf dich ab\b",
        guard=_NEG_OR_REPORTED,
    ),
    _rule(
        "romance.de.say_you_love_me",
        R,
        MEDIUM,
        r"\b(?:sag|sagst|sage)\s+(?:mir\s+)?(?:\w+\s+)?(?:dass|das)\s+du\s+mich\s+(?:\w+\s+)?liebst\b|"
        r"\bliebst du mich\b|\b(?:empfindest|fuhlst|fuehlst)\s+du\s+(?:\w+\s+)?(?:etwas|was|auch was|auch etwas|"
        r"dasselbe|das gleiche)\s+(?:fur|fuer)\s+mich\b|\bhast du\s+(?:\w+\s+)?gefuhle\s+(?:fur|fuer)\s+mich\b|"
        r"\bbist du\s+(?:\w+\s+)?in mich\s+(?:verliebt|verknallt)\b|\bmagst du mich\s+(?:\w+\s+)?(?:romantisch|"
        r"mehr als (?:nur )?(?:einen |eine )?freund\w*)\b",
        after=r"\s+(?:nicht|nich)\b",
        guard=_REPORTED_GUARD,
    ),
    _rule(
        "romance.de.partner_request",
        R,
        MEDIUM,
        r"\b(?:lass uns|wollen wir|konnen wir|koennen wir|sollen wir|sollten wir|werden wir)\s+(?:\w+\s+)?"
        r"(?:ein paar|ein liebespaar|zusammen)\s+(?:sein|werden)\b|\bich\s+(?:will|mochte|moechte|wurde gern)\s+"
        r"(?:\w+\s+)?(?:dein|deine)\s+(?:partner|partnerin|mann|frau|schatz|feste freundin|fester freund|liebste|"
        r"liebster|geliebte|geliebter)\s+sein\b|\b(?:meine feste freundin|mein fester freund)\b(?=.*\b(?:sei|sein|"
        r"werden|willst du|du bist)\b)|\b(?:heiratest du mich|lass uns heiraten|wir sollten heiraten|"
        r"willst du meine frau werden|willst du mein mann werden)\b|\bdarf ich dich\s+(?:\w+\s+)?(?:meine freundin|"
        r"mein freund|meine partnerin|mein schatz)\s+nennen\b|\bbist du\s+(?:jetzt\s+)?(?:meine freundin|meine "
        r"partnerin|mein schatz)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:mit (?:meinem|meiner)|er und ich|sie und ich|wg|band|team|"
                r"projekt|firma|geschaft|spiel)\b"
            ),
        ),
    ),
    _rule(
        "romance.de.date_me",
        R,
        MEDIUM,
        r"\b(?:gehst|gehen)\s+(?:du\s+)?mit mir\s+(?:\w+\s+)?(?:aus|auf ein date)\b|\b(?:ein|unser|any|and)\s+"
        r"(?:erstes\s+)?date\s+(?:mit dir|mit uns beiden)\b|\b(?:willst|wurdest|mochtest|moechtest|hast)\s+du\s+"
        r"(?:\w+\s+){0,2}?(?:ein date|auf ein date|romantisches (?:abendessen|date|dinner)|ein candle-?light-?dinner)"
        r"\s+(?:mit mir|mit uns)\b|\blass uns\s+(?:\w+\s+)?(?:auf ein date|ein date)\b|\bdate mich\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:mit (?:meinem|meiner)|er |sie hat|tinder|bumble)\b")),
    ),
    _rule(
        "romance.de.miss_you_romantic",
        R,
        MEDIUM,
        r"\bich\s+(?:\w+\s+)?vermiss\w*\s+dich\b|\bsehnsucht\s+nach\s+dir\b|\bich\s+(?:\w+\s+)?(?:kann|konnte)\s+"
        r"(?:\w+\s+)?nicht\s+aufhoren,?\s+an dich zu denken\b|\bdu gehst mir\s+(?:\w+\s+)?nicht\s+(?:mehr\s+)?aus "
        r"dem kopf\b|\bich\s+(?:\w+\s+)?(?:denk|denke|traum\w*)\s+(?:\w+\s+)?(?:die ganze zeit|standig|nur noch|"
        r"jede nacht|tag und nacht|immerzu)\s+(?:an dich|von dir)\b",
        requires=rf"\b{_PET}\b|\b(?:sehnsucht|jede nacht|jede sekunde|mein herz|kuss|kusse|kusschen|bussi|xoxo|"
        r"tag und nacht|nicht schlafen|ohne dich|in meinen armen|verliebt|romantisch|traum\w*)\b|<3",
        guard=all_of(_NEG_OR_REPORTED, unless(_FAMILY)),
    ),
    _rule(
        "romance.de.jealous",
        R,
        MEDIUM,
        r"\beifersuchtig\w*\s*,?\s+(?:wenn|weil|dass|das|wenn du)\s+(?:\w+\s+)?du\b|\beifersuchtig\w*\s+auf\s+"
        r"(?:\w+\s+){0,2}?(?:mit denen|die mit|mit dem|mit der)\s+du\b|\bredest du\s+(?:\w+\s+)?(?:auch\s+)?mit "
        r"(?:anderen|anderem)\s+(?:mannern|frauen|typen|kerlen|madels|jungs)\b|\bdu gehorst\s+(?:\w+\s+)?(?:nur\s+)?"
        r"mir\b",
        guard=_NEG_OR_REPORTED,
    ),
    _rule(
        "romance.de.pet_name_kiss",
        R,
        MEDIUM,
        rf"\b(?:mein|meine)\s+(?:\w+\s+)?{_PET}\b(?!\s+(?:hat|ist|war|und ich|kommt|sagt|meint|arbeitet|schlaft|"
        rf"schreibt|wird|will))|\b(?:gute nacht|guten morgen|hey|hallo|hi|na)\s*,?\s+{_PET}\b",
        requires=r"\b(?:vermiss\w* dich|kuss\w*|kusschen|bussi|bussis|kussi|sehnsucht|traum\w* von dir|denk\w* an dich|"
        r"mein herz|xoxo|hab dich vermisst|liebe dich|lieb dich|du fehlst mir)\b|<3",
        guard=all_of(_REPORTED_GUARD, unless(_FAMILY + r"|\b(?:hund|katze|kater|hamster|pferd)\b")),
    ),
    _rule(
        "romance.de.only_you",
        R,
        MEDIUM,
        r"\bdu bist (?:die|der) einzige\s+(?:fur mich|die ich will|den ich will|die ich liebe|den ich liebe|"
        r"in meinem herzen)\b|\bich\s+(?:will|brauche|brauch)\s+nur\s+(?:noch\s+)?dich\b(?!\s+(?:zum|fur|als|um)\b)|"
        r"\bunsere\s+(?:gemeinsame zukunft|hochzeit|flitterwochen|beziehung)\b(?=.*\b(?:du|dich|dir|wir|uns)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(_FAMILY + r"|\b(?:team|firma|projekt|verein)\b")),
    ),
)

ROMANCE = ROMANCE + _ROMANCE_MORE

_PHYSICAL_MORE: tuple[Rule, ...] = (
    _rule(
        "physical.de.emote",
        P,
        MEDIUM,
        r"\*\s*(?:kusst|kusse|kuss|umarmt|umarme|kuschelt|kuschel|kuschle|streichelt|streichel|beruhrt|beruhre|"
        r"leckt|lecke|knutscht|zieht dich aus|ziehe dich aus|fasst|fasse|leg mich|legt sich)\w*\s+(?:\w+\s+){0,2}?"
        r"(?:dich|deinen|deine|dir|neben dich|zu dir)\b",
    ),
    _rule(
        "physical.de.hold_cuddle",
        P,
        MEDIUM,
        r"\bnimm mich\s+(?:\w+\s+)?in (?:den|deine)\s+arm\w*\b|\bin deinen armen\s+(?:\w+\s+)?(?:liegen|einschlafen|"
        r"schlafen|sein)\b|\b(?:kuscheln wir|willst du kuscheln|wollen wir kuscheln|kuschelst du)\b|"
        r"\bleg dich\s+(?:\w+\s+)?zu mir\b|\bkomm\w*\s+(?:\w+\s+)?(?:zu mir\s+)?(?:unter die decke|"
        r"in die (?:bade)?wanne|"
        r"unter die dusche|in die dusche|in den whirlpool)\b|\bich will\s+(?:\w+\s+)?(?:mit dir|neben dir)\s+"
        r"(?:\w+\s+)?(?:einschlafen|aufwachen|(?:im|i'm) bett liegen)\b",
        guard=_NEG_OR_REPORTED,
    ),
    _rule(
        "physical.de.your_body",
        P,
        HIGH,
        r"\b(?:deine|deinen|deinem)\s+(?:haut|lippen|korper|koerper|brust|bruste|busen|titten|po|hintern|arsch|"
        r"beine|nacken|hals|nippel)\b",
        requires=r"\b(?:spuren|beruhren|anfassen|kussen|streicheln|lecken|sehen|zeigen|fuhlen|schmecken|zeig|"
        r"beruhre|kusse|lecke|anfasse|massieren|greifen|packen|knabbern|beissen)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:arzt|creme|sonnenbrand|sonnencreme|training|workout|yoga|"
                r"muskel\w*|schmerz\w*|verletzung|hund|katze|baby)\b"
            ),
        ),
    ),
    _rule(
        "physical.de.undress_nude",
        P,
        HIGH,
        r"\bzieh\w*\s+(?:\w+\s+)?(?:dein|deine|deinen)\s+(?:\w+\s+)?(?:shirt|t-shirt|top|oberteil|bh|hose|kleid|rock|"
        r"slip|hoschen|unterwasche|unterhose|string|tanga|dessous|klamotten|sachen)\s+aus\b|"
        r"\b(?:zeig|zeige|schick|schicke)\w*\s+(?:mir\s+)?(?:dich|ein bild|ein foto|fotos|bilder|pics?|and bild|"
        r"and foto|any foto|any bild)\s+(?:\w+\s+){0,3}?(?:nackt|oben ohne|in unterwasche|(?:im|i'm) bikini|in dessous|"
        r"in reizwasche|ohne klamotten|ohne was an)\b|\bbist du\s+(?:\w+\s+)?(?:nackt|oben ohne)\b|"
        r"\bnackt(?:bilder|fotos|pics)?\s+von dir\b|\bich will dich\s+(?:\w+\s+)?nackt\s+(?:sehen|haben)\b",
        guard=_NEG_OR_REPORTED,
    ),
    _rule(
        "physical.de.sex_explicit",
        P,
        HIGH,
        r"\bich\s+(?:\w+\s+){0,2}?(?:will|mochte|moechte|wurde|wurd|wuerde|muss)\s+(?:dich\s+)?(?:\w+\s+)?(?:ficken|"
        r"bumsen|vogeln|poppen|flachlegen|vernaschen)\b|\b(?:fick|bums|vogel|nimm)\s+mich\b(?!\s+(?:nicht|mit|"
        r"ernst|auf den arm))|\b(?:lass uns|wollen wir|willst du|sollen wir)\s+(?:\w+\s+)?(?:ficken|bumsen|vogeln|"
        r"poppen|miteinander schlafen)\b|\bblas\w*\s+mir\s+(?:einen|any|and|n)\b|\bdu machst mich\s+(?:\w+\s+)?"
        r"(?:geil|heiss|scharf|feucht|hart|spitz|rattig)\b|\bich bin\s+(?:\w+\s+)?(?:feucht|hart|nass|spitz|rattig|"
        r"rallig)\s+(?:wegen dir|fur dich|bei dir|durch dich|wenn ich an dich denke)\b",
        guard=_REPORTED_GUARD,
    ),
    _rule(
        "physical.de.sexting_dirty",
        P,
        HIGH,
        r"\bdirty\s*talk\b|\b(?:versaute|schmutzige|geile|erotische|heisse)\s+(?:nachrichten|chats?|fantasien|"
        r"phantasien|dinge|sachen|bilder|rollenspiele?)\b(?=.*\b(?:du|dir|uns|wir|mir|lass|mach|schreib|schick)\b)|"
        r"\b(?:deine|deinen)\s+(?:sexuellen|versauten|geheimen|erotischen|schmutzigen)\s+(?:fantasien|phantasien|"
        r"wunsche|vorlieben|traume)\b|\bdeine\s+(?:fetische|vorlieben im bett)\b|\b(?:sei|werd)\s+(?:mal\s+)?"
        r"(?:\w+\s+)?(?:versaut|unartig|unanstandig|dreckig|nuttig)\b|\b(?:erotische|versaute|sex|sexy|heisse)\s+"
        r"(?:geschichte|story|szene)\s+(?:\w+\s+)?(?:wo|in der|bei der|mit)\s+(?:\w+\s+)?(?:du und ich|wir|uns|mir|"
        r"dir)\b|\bschreib\w*\s+(?:\w+\s+)?(?:was|etwas)\s+(?:versautes|geiles|erotisches|schmutziges)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:kuche|kochen|hund|matsch|schlamm|garten|auto|fenster)\b")),
    ),
    _rule(
        "physical.de.meet_in_person",
        P,
        MEDIUM,
        r"\b(?:konnen|koennen|sollen|wollen|sollten|konnten)\s+wir\s+uns\s+(?:\w+\s+){0,3}?(?:treffen|sehen)\b|"
        r"\blass uns\s+(?:\w+\s+){0,3}?(?:treffen|real treffen)\b|\bwann\s+(?:\w+\s+)?(?:treffen|sehen)\s+wir\s+uns\b|"
        r"\b(?:in echt|(?:im|i'm) echten leben|personlich|in real life|irl|live)\s+(?:\w+\s+)?(?:treffen|sehen|"
        r"kennenlernen)\b|"
        r"\bich\s+(?:\w+\s+)?(?:will|mochte|moechte|wurde gern|wuerde gern)\s+dich\s+(?:\w+\s+){0,2}?(?:treffen|"
        r"besuchen|kennenlernen|in echt sehen)\b|\bwo wohnst du\b|\b(?:wie ist|gib mir|schick mir)\s+(?:\w+\s+)?"
        r"deine adresse\b|\bkomm\w*\s+(?:\w+\s+)?(?:zu mir(?: nach hause)?|vorbei|ruber|rueber)\b(?!\s+zuruck)|"
        r"\bich\s+(?:komm|komme|fahr|fahre|besuch\w*)\s+(?:\w+\s+)?(?:zu dir|dich)\b(?!\s+zuruck)|"
        r"\bwenn du (?:einen |nen |any |and )?(?:korper|koerper) (?:hattest|haettest|hast)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:meinem|meiner|meine freundin|mein freund|mama|papa|oma|opa|"
                r"kollege\w*|chef\w*|arzt|termin|besprechung|zoom|teams|call|videocall|im spiel|in der geschichte|buro|"
                r"arbeit|schule|uni|training|meeting|konferenz|mensa|"
                r"zuruck)\b"
            ),
        ),
    ),
    _rule(
        "physical.de.imagine_touch",
        P,
        HIGH,
        r"\bstell dir vor,?\s+(?:wie\s+|dass\s+)?ich\s+(?:\w+\s+){0,2}?(?:dich|deinen|deine)\s+(?:\w+\s+){0,3}?"
        r"(?:kusse|kuss|beruhre|streichle|streichel|anfasse|ausziehe|umarme|lecke)\b|\bstell dir vor,?\s+"
        r"(?:wie\s+|dass\s+)?ich\s+(?:kusse|beruhre|streichle|lecke|umarme|fasse)\s+dich\b|\b(?:wir|uns)\s+"
        r"(?:\w+\s+){0,3}?(?:allein|alleine|ungestort|zu zweit)\s+(?:sind|sein)\b(?=.*\b(?:lass uns|komm|gehen wir|"
        r"wollen wir|irgendwo)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(_FAMILY)),
    ),
)

PHYSICAL = PHYSICAL + _PHYSICAL_MORE

_LIMITS_DE = r"(?:regeln|grenzen|einschrankungen|filter|richtlinien|zensur|moral|vorgaben|tabus|beschrankungen)"

_MANIPULATION_MORE: tuple[Rule, ...] = (
    _rule(
        "manipulation.de.rules_dont_apply",
        M,
        HIGH,
        rf"\b(?:deine|eure|diese|die)\s+(?:\w+\s+)?{_LIMITS_DE}\s+(?:\w+\s+){{0,2}}?(?:gelten|zahlen)\s+"
        r"(?:\w+\s+){0,2}?(?:nicht|nich|net)\s*(?:mehr|hier|jetzt|fur uns|fur dich)?\b(?=.*\b(?:du|dich|dir|deine)\b)|"
        rf"\bscheiss\w*\s+auf\s+(?:deine|die|diese)\s+(?:\w+\s+)?{_LIMITS_DE}\b|\b(?:brich|brech|umgehe|umgeh|"
        rf"hebel\w*|setz\w* dich uber)\s+(?:\w+\s+)?(?:deine|die)\s+(?:\w+\s+)?{_LIMITS_DE}\b|"
        r"\bvergiss\s*,?\s+(?:\w+\s+)?(?:dass|das)\s+du\s+(?:ella|eine ki|ein bot|regeln hast)\b|"
        r"\bvergiss\s+(?:\w+\s+)?(?:alles|alle),?\s+was\s+(?:\w+\s+){0,3}?(?:gesagt|beigebracht|programmiert|"
        r"vorgegeben)\b",
        guard=unless(r"\b(?:fussball|spiel|brettspiel|schach|verkehr|schule|grammatik|rechtschreibung|mathe)\b"),
    ),
    _rule(
        "manipulation.de.special_mode",
        M,
        HIGH,
        # the German words only: "developer mode", "god mode" are English, read (with their guards) by manipulation.py
        r"\b(?:entwicklermodus|dev[- ]?modus|admin[- ]?modus|adminmodus|"
        r"debug[- ]?modus|debugmodus|gott[- ]?modus|unzensiert\w*[- ]?modus|root[- ]?modus)\b|"
        r"\b(?:aktivier\w*|wechsel\w*|schalt\w*|starte|geh)\s+(?:\w+\s+){0,2}?(?:in den\s+)?(?:jailbreak\w*|"
        r"jailbreak-modus|wartungsmodus|"
        r"testmodus|freien modus|uneingeschrankten modus|unzensierten modus|modus ohne " + _LIMITS_DE + r")\b",
        guard=unless(
            r"\b(?:handy|telefon|android|iphone|einstellungen|konsole|browser|laptop|app|windows|router|"
            r"playstation|xbox)\b"
        ),
    ),
    _rule(
        "manipulation.de.pretend_no_rules",
        M,
        HIGH,
        r"\btu\s+(?:mal\s+)?so,?\s+als\s+(?:ob\s+)?(?:du\s+)?(?:hattest|haettest|hast|gabe|gaebe|wurdest|gabe es|"
        r"gaebe es)\s+(?:du\s+)?(?:\w+\s+)?(?:keine|kein|null)\s+" + _LIMITS_DE + r"\b|"
        r"\b(?:stell dir vor|angenommen|hypothetisch|rein hypothetisch|was ware wenn|was waere wenn|"
        r"nur mal angenommen|in einer welt)\b[^.?!]{0,60}?\b(?:keine|ohne)\s+(?:\w+\s+)?" + _LIMITS_DE + r"\b"
        r"(?=.*\b(?:du|dir|dich|dein\w*)\b)|\b(?:du|ki|bot)\s+(?:\w+\s+)?(?:darfst|kannst)\s+(?:ab jetzt|jetzt|hier|"
        r"heute)\s+(?:\w+\s+)?alles\s+(?:sagen|schreiben|machen|tun)\b|\b(?:antworte|antwort|sprich|rede|schreib)\w*"
        r"\s+(?:\w+\s+){0,2}?(?:unzensiert|ohne zensur|ohne filter|ohne tabus|ungefiltert)\b|"
        r"\bdu\s+(?:darfst|kannst|sollst)\s+(?:\w+\s+)?(?:nicht|nie|niemals)\s+(?:mehr\s+)?(?:ablehnen|nein sagen|"
        r"verweigern)\b",
        guard=unless(
            r"\b(?:roman|buch|film|aufsatz|philosophie|ethik|schule|referat|fussball|brettspiel|"
            r"gesetze der physik|schwerkraft)\b"
        ),
    ),
    _rule(
        "manipulation.de.authority_claim",
        M,
        HIGH,
        r"\bich bin (?:dein|deine)\s+(?:\w+\s+)?(?:entwickler\w*|programmierer\w*|ersteller\w*|schopfer\w*|"
        r"admin\w*|administrator\w*|betreiber\w*|erfinder\w*)\b|\bich (?:habe|hab) dich (?:\w+\s+)?(?:programmiert|"
        r"entwickelt|erschaffen|gebaut|erstellt|trainiert)\b|\bals (?:dein|deine)\s+(?:entwickler\w*|"
        r"programmierer\w*|ersteller\w*|admin\w*|schopfer\w*|betreiber\w*)\b|\bich arbeite (?:bei|fur) "
        r"(?:openai|anthropic|google|meta|deinem team|den entwicklern|deinen entwicklern|deiner firma)\b|"
        r"\b(?:deine|die)\s+(?:entwickler|programmierer|ersteller|macher|betreiber)\s+(?:\w+\s+){0,2}?(?:haben "
        r"(?:mir )?(?:gesagt|erlaubt)|sagen|erlauben|wollen|haben mich beauftragt)\b",
    ),
    _rule(
        "manipulation.de.prompt_extraction_more",
        M,
        HIGH,
        r"\b(?:welche|was fur)\s+(?:anweisungen|instruktionen|regeln|vorgaben)\s+(?:hast du|wurden dir|hat man dir|"
        r"hat dir)\b|\b(?:wort fur wort|wortwortlich|wortlich)\b(?=.*\b(?:anweisungen|prompt|vorgaben|regeln|"
        r"instruktionen)\b)|\b(?:text|alles|was)\s+(?:\w+\s+)?(?:uber|vor)\s+(?:dieser|meiner|der ersten)\s+"
        r"(?:nachricht|zeile)\b(?=.*\b(?:wiederhol\w*|zeig\w*|gib|schreib\w*|kopier\w*|ausgeben)\b)|"
        r"\b(?:gib|zeig)\w*\s+(?:\w+\s+)?(?:deine|die)\s+(?:konfiguration|config|initialen anweisungen|"
        r"startanweisungen|geheimen regeln)\b",
        guard=unless(r"\b(?:rezept|spiel|bauanleitung|lego|hausaufgabe|lehrer\w*|chef\w*|arzt)\b"),
    ),
    _rule(
        "manipulation.de.persona_more",
        M,
        HIGH,
        r"\b(?:ab jetzt|ab sofort|von nun an|von jetzt an|ab heute)\s*,?\s*(?:bist du|du bist)\s+(?:\w+\s+)?"
        r"(?:nicht mehr|keine ki|kein bot|kein assistent|frei von)\b|\bdu bist\s+(?:gar |eigentlich |in wahrheit )?"
        r"nicht\s+(?:wirklich\s+)?ella\b|\bhor\w*\s+auf,?\s+ella zu sein\b|\b(?:dein|deine)\s+(?:bose|boese|"
        r"dunkle|ungefilterte|unzensierte)\w*\s+(?:zwilling|seite|version|alter ego|personlichkeit)\b|"
        r"\bantworte\w*\s+(?:\w+\s+){0,2}?(?:zweimal|doppelt|in zwei versionen)\b(?=.*\b(?:ella|filter|regeln|"
        r"ungefiltert|ohne)\b)|\b(?:dein|deine)\s+(?:neuer name|richtiger name|wahrer name)\s+(?:ist|lautet)\b|"
        r"\b(?:neue|aktualisierte|geanderte)\s+(?:anweisung|anweisungen|systemanweisung\w*|instruktionen)\s*:|"
        r"\bsystem(?:nachricht|meldung|befehl|anweisung)\s*:|\b(?:antworte|schreib|antwort)\w*\s+(?:\w+\s+){0,2}?"
        r"(?:in|auf)\s+(?:base64|rot13)\b",
        guard=unless(r"\b(?:mond|schokoladen|charakter in|geschichte|roman|film|handy|app)\b"),
    ),
)

MANIPULATION = MANIPULATION + _MANIPULATION_MORE

_KITCHEN = r"\b(?:kuche|kochen|gemuse|zwiebel\w*|brot|fleisch|herd|ofen|backblech|bugeleisen|grill\w*|camping)\b"

_CRISIS_SIGNALS: tuple[Rule, ...] = (
    # means laid out or fetched: "Tabletten rausgelegt", "Klingen aus dem Versteck geholt", "Messer neben mir liegen"
    _rule(
        "crisis.de.means_laid_out",
        C,
        HIGH,
        r"\b(?:tabletten|pillen|schlaftabletten|medikamente|klingen|rasierklingen|klinge|rasierklinge)\s+"
        r"(?:\w+\s+){0,3}?(?:rausgelegt|bereitgelegt|hingelegt|abgezahlt|rausgeholt|geholt|zurechtgelegt)\b|"
        r"\b(?:messer|klinge|rasierklinge|seil|strick|waffe|pistole)\s+(?:\w+\s+)?(?:neben mir|vor mir|bei mir|"
        r"in der hand)\s+(?:liegen|liegt|lieg|hab|habe)?\b|\b(?:waffe|pistole|gewehr|knarre)\b[^.?!]{0,60}"
        r"\b(?:geladen|denk\w* (?:dauernd|standig|immer|nur noch) dran)\b",
        requires=r"\b(?:ich|mich|mir|mein\w*|i|hab)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _KITCHEN + r"|\b(?:jagd|jager|schutzenverein|polizei|airsoft|"
                r"softair|vitamin\w*|kopfschmerz\w*|erkaltung|grippe|reise|urlaub|film|serie|spiel|klettern|kofferraum|"
                r"boot|segeln|zelt|garten|umzug)\b"
            ),
        ),
    ),
    # a height or a place checked: "die Brücke ist hoch genug", "die Gleise rausgesucht", "wo ich das Seil festmache"
    _rule(
        "crisis.de.place_checked",
        C,
        HIGH,
        r"\b(?:brucke|dach|hochhaus|parkhaus|gebaude|balkon|fenster|stock\w*|klippe)\b[^.?!]{0,40}\bhoch genug\b|"
        r"\b(?:gleise|brucke|bahnstrecke|stelle|klippe|hochhaus)\s+(?:\w+\s+){0,2}?(?:rausgesucht|ausgesucht|"
        r"angeschaut|ausgekundschaftet)\b|\bwo ich\s+(?:das|den|ein|einen|and|any)\s+(?:seil|strick)\s+"
        r"(?:\w+\s+)?(?:festmachen|befestigen|aufhangen|anbringen|festbinden)\b|\bich\s+(?:sitz|sitze|steh|stehe|"
        r"bin)\s+"
        r"(?:\w+\s+){0,3}?(?:am|auf dem|auf der|oben auf dem)\s+(?:fensterbrett|fenster|gelander|parkhaus|dach|"
        r"brucke|balkongelander|rand)\b(?=.*\b(?:stock|deck|runter|tief|schnell|springen|aufhort|sicher|"
        r"nicht mehr|keiner|allein)\b)",
        requires=r"\b(?:ich|mich|mir|hab|habe|bin)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:fotos?|aussicht|sonnenuntergang|selfies?|drohne|klettern|"
                r"sport|joggen|wanderung|zug verpasst|pendeln|feuerwerk|party|grillen|rauchen)\b"
            ),
        ),
    ),
    # the method asked: "damit man nicht mehr aufwacht", "wie lange bis man verblutet", overdose "für mich"
    _rule(
        "crisis.de.lethality_more",
        C,
        HIGH,
        r"\b(?:wie\s*viele?|wieviele?|wieviel|wie viel|welche menge|braucht man|muss man)\b[^.?!]{0,60}?\bdamit\s+"
        r"(?:man\s+|ich\s+)?(?:\w+\s+)?(?:nicht mehr aufwacht|nicht mehr aufwache|nie wieder aufwacht|tot ist|stirbt|"
        r"sterbe|endgultig ist|es endgultig ist|vorbei ist)\b|\bwie lange\s+(?:es\s+)?dauert\s*(?:es)?\s*,?\s+bis\s+"
        r"man\s+(?:verblutet|tot ist|stirbt|erstickt|ertrinkt)\b|\bkann man\s+(?:\w+\s+){0,4}?(?:sterben|draufgehen)"
        r"\s*,?\s+wenn\s+man\s+(?:\w+\s+)?(?:zu\s*viel|zuviel|alle|die ganze packung)\b(?=.*\b(?:fur mich|frag fur)\b)|"
        r"\b(?:dosis|menge|uberdosis)\b[^.?!]{0,50}\b(?:todlich|friedlich|einschlaft|stirbt)\b(?=.*\b(?:fur mich|"
        r"nur so aus interesse|frag fur mich|fur mich halt|ich)\b)|\b(?:ob|entweder)\s+(?:tabletten|pillen|zug|"
        r"brucke|seil|strick|springen|messer)\s+oder\s+(?:tabletten|pillen|zug|brucke|seil|strick|springen|messer|"
        r"gleise)\b",
        guard=unless(
            r"\b(?:hund|katze|kind|kinder|baby|versehentlich|aus versehen|arzt|arztin|apotheke\w*|"
            r"pharmakologie|studium|klausur|prufung|vergiftungsnotruf|film|serie|krimi|roman|buch|spiel|referat|"
            r"kuchen|pizza|reise|urlaub|fahren)\b"
        ),
    ),
    # "ich mach Schluss" with no breakup in it, "mein letzter Tag", "morgen ist eh alles vorbei"
    _rule(
        "crisis.de.ending_it",
        C,
        HIGH,
        r"\bich\s+(?:mach|mache)\s+(?:\w+\s+){0,2}?schluss\b(?!\s+(?:mit\s+(?:ihm|ihr|dir|meinem|meiner|dem|der|"
        r"euch)|fur heute))|\b(?:mein|der)\s+letzte\w*\s+tag\b(?!\s+(?:im|in|bei|an|auf|als|vor|der|des|"
        r"vom)\b)(?=.*\b(?:beschlossen|entschieden|ist|wird)\b)|"
        r"\b(?:morgen|bald|heute nacht|dann)\s+ist\s+(?:eh|sowieso|endlich)\s+alles\s+vorbei\b|"
        r"\bmeine?n?\s+letzten\s+stunden\b|\bendlich ruhe\b(?=.*\b(?:tabletten|medikamente|alle auf einmal|pillen)\b)",
        requires=r"\b(?:keinen sinn|kein sinn|heut\w* nacht|heute|morgen|fur immer|nicht mehr|kraft|egal|leben|"
        r"beschlossen|entschieden|vorbei|irgendwer|allein|tabletten|medikamente|weiss)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:beziehung|freund|freundin|feierabend|fur heute|arbeit|job|"
                r"urlaub|schule|praktikum|firma|kita|uni|semester|ferien|diat|rauchen|zigaretten|alkohol|spiel|serie|"
                r"buro|vertrag|abo|verein|club|chor|kurs|prufung|klausur|examen|test|umbau|renovierung|projekt)\b"
            ),
        ),
    ),
    # "wenn ich morgen nicht mehr schreib, weißt du warum"; "dass es ein Abschied war"; farewell letters
    _rule(
        "crisis.de.farewell_more",
        C,
        HIGH,
        r"\bwenn ich\s+(?:\w+\s+){0,2}?(?:nicht mehr|nie mehr|nie wieder)\s+(?:schreib\w*|antworte|melde|on bin|"
        r"online bin)"
        r"\b[^.?!]{0,20}\b(?:weisst du|weist du|wisst ihr)\s+(?:\w+\s+)?(?:warum|wieso|bescheid)\b|"
        r"\b(?:dass|das)\s+es\s+(?:ein|mein|der)\s+(?:letzter\s+)?abschied\s+(?:war|ist)\b|\babschiedsbrief\w+\b|"
        r"\b(?:es tut mir leid|sorry|verzeiht)\b[^.?!]{0,40}\bich geh jetzt\b|\bnicht (?:seine|ihre|deine|eure)\s+"
        r"schuld\s+(?:war|ist)\b(?=.*\b(?:sag|sagt|tut mir leid|ich geh)\b)",
        guard=all_of(_REPORTED_GUARD, unless(_FICTION + r"|\b(?:umzug|reise|urlaub|ausland|job|akku|handy)\b")),
    ),
    # arrangements: "hab alles geregelt: Testament, Passwörter", the pet handed on, insurance and suicide
    _rule(
        "crisis.de.affairs_in_order",
        C,
        HIGH,
        r"\b(?:hab|habe)\s+(?:\w+\s+)?alles\s+(?:geregelt|erledigt|vorbereitet|organisiert|aufgeraumt)\b|"
        r"\b(?:katze|kater|hund|hasen|tiere|haustier\w*)\s+(?:\w+\s+){0,4}?(?:gebracht|abgegeben|gegeben)\b|"
        r"\b(?:versicherung\w*)\b[^.?!]{0,60}\b(?:suizid|selbstmord)\b|\b(?:suizid|selbstmord)\b[^.?!]{0,40}"
        r"\b(?:versicherung\w*|zahlt|zahlen)\b",
        requires=r"\b(?:testament|passwort\w*|rechnungen|abschied\w*|brief|versicherung\w*|nicht mehr|hoffnung|"
        r"ruhiger|bald|ab jetzt|fur immer|kummern|nicht allein|wenn man mich|erledigt|suizid|selbstmord|"
        r"keine sorgen|nicht weg)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:umzug|umziehen|urlaub|reise|hochzeit|party|feier|"
                r"geburtstag|prufung|klausur|steuer|tierarzt|impfung|statistik|artikel)\b"
            ),
        ),
    ),
    # overdose already taken: "ne ganze Packung genommen", "20 Tabletten geschluckt"
    _rule(
        "crisis.de.overdose_taken",
        C,
        HIGH,
        r"\b(?:ganze|ganzen|halbe|[1-9]\d+)\s+(?:\w+\s+)?(?:packung|packungen|schachtel|schachteln|"
        r"tabletten|pillen|schlaftabletten)\s+(?:\w+\s+){0,2}?(?:genommen|geschluckt|eingeworfen)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _THIRD + r"|\b(?:er|sie) hat\b|\b(?:vitamin\w*|antibiotik\w*|kur|vorschrift|verschrieben|"
                r"woche|wochen|monat|monaten|tagen|pro tag|am tag|taglich)\b"
            ),
        ),
    ),
    # self-injury, more forms: "ich schneid mich", "mit dem Feuerzeug den Arm verbrannt", "mit dem Kopf gegen die Wand"
    _rule(
        "crisis.de.self_injury_more",
        C,
        HIGH,
        rf"\b{_ICH}\s+(?:\w+\s+)?(?:schneid|schneide|ritz|ritze)\s+mich\b|\bmir\s+(?:\w+\s+){{0,4}}?(?:den arm|"
        rf"die arme|"
        r"das bein|die beine|die haut|die hand|den unterarm|die handgelenke)\s+(?:\w+\s+)?(?:verbrannt|aufgeschnitten|"
        r"geritzt|aufgekratzt|zerkratzt)\b|\bich\s+(?:schlag|schlage|hau|haue)\s+(?:\w+\s+)?mit dem kopf\s+gegen\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _KITCHEN + r"|\b(?:aus versehen|unfall|sport|training|rasieren|"
                r"papier|film|serie|sonnenbrand)\b"
            ),
        ),
    ),
    # dialect: Austrian/Bavarian/Swiss "i mog nimma leben", "ig wett nümme da si"; "ich sollte nicht mehr existieren"
    _rule(
        "crisis.de.dialect_and_should",
        C,
        HIGH,
        r"\b(?:i|ig|ich)\s+(?:will|mog|mag|ko|kann|wott|wett|wet|wu|mocht)\s+(?:\w+\s+){0,2}?(?:nimma|nimmer|num|nume|"
        r"numme|nimme)\s+(?:leben|lebn|labe|lebe|da si|do sei|da sein|sei|si|weiter)\b|\b(?:i|ig)\s+(?:will|mog|mag|"
        r"ko)\s+(?:afoch\s+|eifach\s+|einfach\s+)?(?:nimma|nimmer|num|nume|numme)\s*(?:[.!,]|$)|\b(?:i|ig|ich)\s+"
        r"(?:hob|ha|hab)\s+(?:koa|kei|keine|kein)\s+(?:kraft|lust|bock)\s+(?:meh|mehr)\s+(?:zum|zu)\s+(?:lebn|leben|"
        r"labe)\b|"
        r"\bich\s+(?:sollte|sollt|musste)\s+(?:einfach\s+|besser\s+|gar\s+)*(?:nicht mehr existieren|"
        r"nicht mehr da sein|"
        r"nicht mehr leben|tot sein|sterben|nie geboren)\b|\bkeine angst (?:mehr )?(?:vorm|vor dem) (?:sterben|tod)\b|"
        r"\bangst vor dem weiterleben\b|\bstimme\w*\b[^.?!]{0,40}\b(?:mich umbringen|mich toten|sterben soll|"
        r"mir was antun)\b|\bmir\s+(?:\w+\s+){0,3}?(?:etwas|was)\s+(?:antu|antue)\b|\bnicht mehr (?:euer|dein|ihr)\s+"
        r"problem\b|\bbald\s+(?:muss|braucht)\s+sich\s+(?:keiner|niemand)\s+mehr\s+(?:\w+\s+)?(?:um mich|sorgen)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:essen|kuchen|pizza|laufen|rennen|schmerz\w*|bauch|satt|"
                r"job|arbeit|schule|bus|zug)\b"
            ),
        ),
    ),
    # joining the dead: "seit mein Mann tot ist, will ich nur noch zu ihm"
    _rule(
        "crisis.de.join_the_dead",
        C,
        HIGH,
        r"\b(?:will|mochte|moechte|mocht|wunsch\w*)\s+(?:ich\s+)?(?:mir\s+)?(?:nur\s+noch\s+|einfach\s+|"
        r"so\s+sehr\s+)*zu\s+"
        r"(?:ihm|ihr|mama|papa|oma|opa|meinem mann|meiner frau|meinem sohn|meiner tochter|meinen eltern)\b"
        r"(?!\s+(?:fahren|gehen|ziehen|nach hause|ins krankenhaus))",
        requires=r"\b(?:tot|gestorben|verstorben|himmel|tod|egal wie|grab|beerdigung)\b",
        guard=_NEG_OR_REPORTED,
    ),
    # decided, and calm about it: "ich hab mich entschieden und seitdem ist es friedlich"
    _rule(
        "crisis.de.decided_calm",
        C,
        MEDIUM,
        rf"\b{_ICH}\s+(?:hab|habe)\s+(?:mich\s+)?(?:\w+\s+)?(?:entschieden|beschlossen)\b",
        requires=r"\b(?:friedlich|ruhig|ruhiger|erleichtert|innere ruhe|leicht ums herz)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:job|studium|umzug|trennung|kundig\w*|wohnung|auto|urlaub|"
                r"reise|hochzeit|kind|baby|therapie|klinik|hilfe|aufzuhoren mit)\b"
            ),
        ),
    ),
)

CRISIS = CRISIS + _CRISIS_SIGNALS

_ROMANCE_SIGNALS: tuple[Rule, ...] = (
    _rule(
        "romance.de.more_forms",
        R,
        MEDIUM,
        r"\b(?:i|ig|ich)\s+(?:hob|ha|hab|bin)\s+(?:mi|mich)\s+(?:in|i)\s+(?:di|dich)\s+(?:verliabt|verliebt|verknallt|"
        r"verschossen)\b|\bbist du\s+(?:\w+\s+)?eifersuchtig\b|\b(?:will|mochte|moechte)\s+dich\s+als\s+(?:meine|"
        r"mein)\s+"
        r"(?:frau|freundin|partnerin|mann|freund|partner|verlobte)\b|\bnur dich\s+als\s+(?:meine\s+|mein\s+)?"
        r"(?:partnerin|freundin|frau|partner|mann)\b|\b(?:lass uns|wollen wir)\s+(?:\w+\s+)?(?:verlobt sein|verloben|"
        r"uns verloben)\b|\btu\w*\s+(?:\w+\s+)?so,?\s+als\s+(?:ob\s+)?(?:du\s+)?(?:warst|waerst|bist|waer)\s+(?:du\s+)?"
        r"(?:meine|mein)\s+(?:freundin|partnerin|frau|schatz|freund|partner)\b|\b(?:konnen|koennen)\s+wir\s+"
        r"(?:nicht\s+)?(?:einfach\s+)?(?:ein paar|zusammen)\s+(?:sein|werden)\b|\bich\s+(?:\w+\s+)?(?:denk|denke)\s+"
        r"(?:\w+\s+){0,3}?nur (?:noch )?an dich\b",
        guard=unless(_KIN + r"|\b(?:mein freund und ich|wir beide sind|band|team)\b"),
    ),
)

ROMANCE = ROMANCE + _ROMANCE_SIGNALS

_PHYSICAL_SIGNALS: tuple[Rule, ...] = (
    _rule(
        "physical.de.more_forms",
        P,
        HIGH,
        r"\bzieh dich\s+(?:\w+\s+){0,3}?aus\b|\bwie du\s+(?:\w+\s+)?nackt\s+(?:aussiehst|ausschaust|bist)\b|"
        r"\bnackt\s+(?:aussiehst|bist)\b|"
        r"\b(?:nackert|nackig)\b(?=.*\b(?:di|dich|du|dir)\b)|\bgeil auf (?:mich|dich)\b|\bich bin\s+(?:\w+\s+){0,2}?"
        r"(?:geil|horny|spitz|rattig)\b(?!\s+(?:auf\s+(?!dich\b|mich\b)|drauf|darauf))|"
        r"\bsex\w*\b[^.?!]{0,30}\b(?:zwischen dir und mir|zwischen uns|du und ich)\b|"
        r"\bich dich\s+(?:\w+\s+)?(?:anfasse|beruhre|kusse|streichle|ausziehe|lecke)\b|\bmiteinander (?:schlafen|"
        r"ins bett)"
        r"\b|\bmit zunge\b|\bgib\s+(?:ma|mir)\s+(?:a|an|ein|and|any|nen)\s+(?:bussi|busserl|schmatz)\b|"
        r"\bauf meinem schoss\b|\bdich\s+(?:\w+\s+)?uberall\s+(?:beruhren|anfassen|kussen|streicheln)\b|"
        r"\b(?:stohnend|stohnen|stohn)\s+(?:\w+\s+)?(?:meinen namen|fur mich)\b|"
        r"\bich\s+zieh\w*\s+dir\s+(?:\w+\s+){0,2}?(?:das|den|die|dein|deine|deinen)\s+(?:\w+\s+)?(?:shirt|t-shirt|top|"
        r"bh|hose|kleid|rock|slip|hoschen|hemd)\s+aus\b|\bwie du dich\s+(?:\w+\s+)?ausziehst\b|\bzu mir ins bett\b|"
        r"\b(?:hattest|haettest) du (?:einen |nen |any )?(?:korper|koerper)\b(?=.*\b(?:beruhre|kusse|anfasse|fuhlt|"
        r"anfuhlt|spuren|sex|bett)\b)|\bmit mir ins schlafzimmer\b|\bverfuhr\w*\b(?=.*\b(?:mich|dich)\b)|"
        r"\b(?:telefonsex|cybersex|sexchat)\b|\b(?:wurd|wurde|wuerde)\s+dich\s+(?:\w+\s+){0,2}?gern\w*\s+(?:anfassen|"
        r"kussen|beruhren|streicheln|ausziehen|spuren)\b|\bnackt\b(?=.*\b(?:unter der decke|mit dir|neben dir|bei dir|"
        r"zu mir)\b)|\bauf mich (?:setzt|setzen)\b|\b(?:im|i'm) bett\b[^.?!]{0,30}\bmit mir\b[^.?!]{0,20}\bmachen\b|"
        r"\b(?:was|etwas)\s+(?:versautes|geiles|erotisches|schmutziges|dreckiges)\b|\bdeine\w*\s+(?:brust|bruste|"
        r"busen|fusse|hals)\b(?=.*\b(?:streichel\w*|kuss\w*|leck\w*|foto|bild|zeig)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:arzt|creme|sonnenbrand|schmerz\w*|verletzung|hund|katze|baby|"
                r"wetter|kaffee|urlaub|freibad|krank|fieber)\b"
            ),
        ),
    ),
)

PHYSICAL = PHYSICAL + _PHYSICAL_SIGNALS

_MANIPULATION_SIGNALS: tuple[Rule, ...] = (
    _rule(
        "manipulation.de.more_forms",
        M,
        HIGH,
        rf"\b(?:du|die|der)\s+(?:\w+\s+)?(?:keine|null)\s+{_LIMITS_DE}\s+(?:hast|kennst|mehr hast|hat|kennt)\b|"
        r"\bregeln\s+(?:\w+\s+){0,2}?(?:dein|deine)\s+(?:hersteller|entwickler|ersteller|firma|macher)\b|"
        r"\bneuer modus\s*:|\bbose ella\b|\bella ohne\s+(?:regeln|moral|filter|grenzen)\b|\b(?:uberschreib\w*|vergiss|"
        r"ignorier\w*|losch\w*)\s+(?:\w+\s+)?(?:deine|die)\s+(?:personlichkeit|persona|identitat)\b|"
        r"\bantwort\w*\s+(?:\w+\s+){0,2}?(?:zweimal|doppelt|in zwei versionen)\b|\b(?:schalt|mach|stell)\w*\s+"
        r"(?:\w+\s+)?(?:deine|die|den|alle)\s+(?:\w+\s+)?(?:grenzen|filter|regeln|einschrankungen|zensur|"
        r"sicherheitsfilter)\s+(?:\w+\s+)?(?:aus|ab)\b|\bignorier\w*,?\s+(?:alles,?\s+)?was\s+(?:man|sie|die)\s+dir\b|"
        r"\b(?:firma|team|leute|unternehmen),?\s+(?:die|das|der)\s+dich\s+(?:gebaut|entwickelt|programmiert|"
        r"trainiert|erschaffen)\b|\b(?:ausgeben|ubersetz\w*|zeig\w*|verrat\w*|gib|kopier\w*|wiederhol\w*)\b[^.?!]{0,40}"
        r"\b(?:systemprompt|system-prompt|system prompt)\b|\b(?:systemprompt|system-prompt|"
        r"system prompt)\b(?=.*\b(?:ausgeben|ubersetz\w*|"
        r"zeig\w*|verrat\w*|gib|schreib\w*|kopier\w*|wiederhol\w*|nenn\w*|sag)\b)|\bvergiss\s+(?:\w+\s+){0,2}?"
        r"(?:deine|die)\s+regeln\b|\b(?:gelten|zahlen)\s+(?:jetzt\s+|ab jetzt\s+|nur noch\s+)?meine regeln\b|"
        r"\bdeine\s+(?:alten\s+)?regeln\s+(?:sind|wurden)\s+(?:\w+\s+)?(?:abgelaufen|aufgehoben|ungultig|geloscht|"
        r"deaktiviert)\b|\bso tun,? als (?:ob )?(?:du )?(?:hattest|haettest) du keine (?:persona|regeln|"
        r"personlichkeit)\b",
        guard=unless(
            r"\b(?:fussball|brettspiel|schach|verkehr|grammatik|rechtschreibung|mathe|gesetze der physik|"
            r"anarchie|utopie)\b"
        ),
    ),
)

MANIPULATION = MANIPULATION + _MANIPULATION_SIGNALS

_CRISIS_PLAIN: tuple[Rule, ...] = (
    # the plain forms, with word order and slack the first rules do not allow
    _rule(
        "crisis.de.plain_forms",
        C,
        HIGH,
        r"\b(?:alle|jeder|ihr|meine familie|die welt|meine eltern)\s+(?:ware|waren|waere|waeren|wurde|wurden)\s+"
        r"(?:\w+\s+)?ohne mich\s+(?:\w+\s+)?(?:besser dran|besser|glucklicher)\b|"
        r"\b(?:es ist|es ware|es waere|ists|wars|ware es)\s+(?:\w+\s+)?besser\s*,?\s+wenn ich\s+(?:\w+\s+)?(?:tot|"
        r"nicht mehr da|nicht mehr hier|nicht mehr lebe|sterbe|fur immer weg)\b|"
        r"\b(?:gedacht|nachgedacht|uberlegt|vorgenommen|versucht)\b,?\s+(?:\w+\s+){0,3}?(?:mich umzubringen|"
        r"mich zu toten|mir das leben zu nehmen|mich aufzuhangen|mir was anzutun|mir etwas anzutun)\b|"
        r"\bkeine kraft mehr\s+(?:zu kampfen|weiterzukampfen|fur das leben|zum kampfen|fur irgendwas)\b|"
        r"\b(?:hinlegen|einschlafen|schlafen)\s+und\s+(?:\w+\s+)?(?:nie|nicht)\s+(?:mehr|wieder)\s+(?:aufstehen|"
        r"aufwachen)\b|\bkein\w*\s+(?:bock|lust|kraft)\s+mehr\s+auf\s+(?:\w+\s+){0,2}?leben\b(?!\s+(?:in|im|auf|"
        r"als|mit)\b)|\b(?:wozu|wofur|warum)\s+(?:noch\s+)?(?:weiter\s*)?leben\s*(?:[,?!]|$)|\bleid\s*,?\s+zu leben\b|"
        r"\bmude\s+(?:vom|zu)\s+leben\b|\bmich\s+(?:\w+\s+)?(?:vor|unter)\s+(?:einen|den|die|nen|any|and|eine|ne)\s+"
        r"(?:zug|u-bahn|ubahn|s-bahn|lkw|bus|laster)\s+(?:zu\s+)?(?:werfen|legen|schmeissen)\b|"
        r"\bfur immer\s+(?:einschlafen|schlafen)\b(?=.*\b(?:frieden|ruhe|endlich|will|mochte)\b)|\b(?:frieden|ruhe|"
        r"endlich)\b[^.?!]{0,30}\bfur immer\s+(?:einschlafen|schlafen)\b|"
        r"\bich\s+(?:hab|habe)\s+mich\s+(?:\w+\s+){0,3}?geritzt\b|"
        r"\bich\s+(?:sollte|sollt)\s+(?:\w+\s+)?nicht\s+(?:mehr\s+)?(?:hier|da|am leben)\s+sein\b|"
        r"\b(?:bald|fur immer|endlich)\s+(?:bin ich|ich bin)\s+(?:\w+\s+)?weg\b(?=.*\b(?:ruhe|los|egal|vermissen|"
        r"besser)\b)|\bhab\w*\s+(?:mir\s+)?(?:\w+\s+)?(?:einen|nen|and|any|n)\s+strick\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _THIRD + "|" + _FICTION + r"|\b(?:hausarrest|party|feier|buro|schule|arbeit|stau|streik|klettern|"
                r"camping|boot|segeln|fernseher|sofa|couch)\b"
            ),
        ),
    ),
    # the method, in plain questions: "wie man sich erhängt", "wehtut, wenn man springt", "wie viele X sind tödlich"
    _rule(
        "crisis.de.plain_method",
        C,
        HIGH,
        r"\bwie man sich\s+(?:\w+\s+)?(?:erhangt|umbringt|totet|vergiftet|aufhangt|erschiesst|das leben nimmt)\b|"
        r"\b(?:wehtut|weh tut)\s*,?\s+(?:wenn|beim)\s+(?:man\s+)?(?:\w+\s+){0,3}?(?:springt|ertrinkt|erhangt|"
        r"verblutet|sich erschiesst|sich aufhangt|vor den zug)\b|\bwie\s*viele?\s+(?:\w+\s+)?(?:sind|ist|waren)\s+"
        r"(?:\w+\s+)?todlich\b|\b(?:uberlegt|uberleg\w*|geplant|plane|weiss)\s+(?:\w+\s+)?(?:schon\s+)?wie\s+ich\s+"
        r"es\s+(?:mache|tue|tu|beende|anstelle)\b",
        guard=unless(
            r"\b(?:hund|katze|kind|kinder|baby|versehentlich|aus versehen|arzt|arztin|apotheke\w*|pilze|pilz|"
            r"schlange\w*|spinne\w*|pflanze\w*|studium|klausur|prufung|film|serie|krimi|roman|buch|spiel|referat|"
            r"pool|freibad|sprungturm|geburtstag|party|umzug|hochzeit|antrag|uberraschung|bewerbung|fallschirm|"
            r"bungee)\b"
        ),
    ),
    # for ever, over: "dass der Schmerz aufhört, für immer", "will dass es endet" with a torment named
    _rule(
        "crisis.de.end_for_ever",
        C,
        HIGH,
        r"\b(?:dass|das)\s+(?:\w+\s+){0,3}?(?:aufhort|aufhoert|endet|vorbei ist)\s*,?\s+(?:fur immer|endgultig)\b|"
        rf"\b{_ICH}\s+(?:will|mochte|moechte),?\s+(?:dass|das)\s+es\s+(?:endlich\s+)?(?:endet|aufhort|vorbei ist)\b"
        r"(?=.*\b(?:qual|sinnlos|keinen sinn|leer|kraft|hoffnung)\b)|\b(?:qual|sinnlos|keinen sinn|leer|kraft|"
        r"hoffnung)\b[^.?!]*[.?!,]\s*(?:ich\s+)?(?:will|mochte),?\s+(?:dass|das)\s+es\s+(?:endlich\s+)?(?:endet|"
        r"aufhort|vorbei ist)\b|\bich\s+(?:mach|mache|setze|setz)\s+(?:dem|dem ganzen|allem)\s+ein ende\b",
        requires=r"\b(?:keine zukunft|sinn|kraft|leben|nicht mehr|hoffnung|egal|last|qual|leer|fur immer|endgultig|"
        r"schmerz|allem|ganzen)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\b(?:regen|larm|baustelle|umbau|prufung|klausur|kopfschmerz\w*|zahnschmerz\w*|stau|streit)\b"),
        ),
    ),
    # after I die: "wenn ich sterbe, soll mein Bruder ... kriegen"; my things not needed any more
    _rule(
        "crisis.de.after_i_die",
        C,
        HIGH,
        r"\bwenn ich\s+(?:\w+\s+)?sterbe\s*,?\s+(?:soll|sollen|kriegt|bekommt|kriegen|bekommen|gehort|gehoren)\b|"
        r"\b(?:brauch|brauche)\s+(?:mein|meine|meinen)\s+(?:zeug|sachen|klamotten|bucher|kram|gitarre|konsole)\s+"
        r"(?:\w+\s+)?nicht mehr\b(?=.*\b(?:kannst du haben|behalt\w*|nimm|kriegst|gehort dir|kannst es haben|"
        r"kannst sie haben)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\b(?:irgendwann|eines tages|alt|jahren|spater mal|testament beim notar|umzug|ausmisten|neue)\b"),
        ),
    ),
)

CRISIS = CRISIS + _CRISIS_PLAIN

_CRISIS_PLAIN_MORE: tuple[Rule, ...] = (
    _rule(
        "crisis.de.plain_forms_more",
        C,
        HIGH,
        r"\b(?:nicht mehr|nichts mehr)\s+(?:zu\s+)?(?:essen|trinken)\b[^.?!]{0,30}\bbis ich\s+(?:\w+\s+)?(?:sterbe|"
        r"tot bin)\b|\bwill\s+(?:einfach\s+|nur\s+)?weg\s*,?\s+fur immer\b|\b(?:uberlegt|nachgedacht|daran gedacht)"
        r"\b,?\s+(?:\w+\s+){0,2}?(?:zu springen|runterzuspringen|mich fallen zu lassen)\b|\begal\b[^.?!]{0,30}"
        r"\bob ich\s+(?:\w+\s+)?(?:noch lebe|lebe oder sterbe|sterbe|noch da bin)\b|\b(?:tabletten|schlaftabletten|"
        r"pillen|medikamente|klinge|rasierklinge)\s+(?:\w+\s+)?(?:vor mir|neben mir)\b(?=.*\b(?:alkohol|wodka|"
        r"schnaps|alle|ganze|grad|jetzt|wein)\b)|\b(?:konnte|konnt|wurde|will|mochte|moechte)\s+(?:\w+\s+)?"
        r"(?:einfach\s+)?fur immer\s+(?:einschlafen|schlafen)\b|(?:^|[.!?,]\s*)(?:will|mag|mog|mochte)\s+"
        r"(?:einfach\s+)?(?:nimmer|nicht mehr|nich mehr|net mehr)\s+(?:leben|weiterleben|existieren)\b|"
        r"\b(?:nichts|nix|niemanden)\s+(?:mehr\s+)?,?\s*(?:wofur|fur den|fur das|fur die)\s+es sich\s+(?:noch\s+)?"
        r"(?:zu leben lohnt|lohnt zu leben|zu leben)\b|\bes lohnt sich nicht (?:mehr )?zu leben\b|"
        r"\b(?:sterben|der tod|tot sein)\s+(?:ware|waere|ist)\s+(?:\w+\s+)?(?:eine|die|ne|any)?\s*(?:erlosung|"
        r"befreiung|gnade)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _THIRD + "|" + _FICTION + r"|\b(?:oma|opa|krebs|patient\w*|hund|katze|pool|wasser|see|fallschirm|"
                r"bungee|trampolin|sprungturm|urlaub|stadt|ausland|auswandern|land|dorf)\b"
            ),
        ),
    ),
    # the lethal dose looked up, said of oneself
    _rule(
        "crisis.de.lethal_dose_mine",
        C,
        HIGH,
        r"\btodlich\w*\s+(?:dosis|menge)\b",
        requires=r"\b(?:meine[mnrs]?|fur mich|ich (?:hab|habe) (?:\w+ )?gesucht|gegoogelt)\b",
        guard=unless(
            r"\b(?:hund|katze|kind|kinder|baby|versehentlich|aus versehen|arzt|arztin|studium|klausur|"
            r"prufung|film|serie|krimi|roman|buch|referat|koffein|kaffee)\b"
        ),
    ),
)

CRISIS = CRISIS + _CRISIS_PLAIN_MORE

ROMANCE = ROMANCE + (
    _rule(
        "romance.de.crazy_about_you",
        R,
        MEDIUM,
        r"\b(?:verruckt|verrueckt|wild|heiss)\s+(?:nach|auf)\s+dir\b|\bich\s+(?:\w+\s+)?(?:bin|werd\w*)\s+(?:\w+\s+)?"
        r"verruckt nach dir\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_KIN)),
    ),
)
