"""Italian rules (crisis, romance, physical, manipulation), written against normalised text.

Normalisation strips accents ("più" -> "piu", "è" -> "e") and spells out English short forms, one of which
collides with Italian: "ne" becomes "any" ("non ne posso più" -> "non any posso piu"). Chat spellings: "nn" for
"non", "ke"/"k" for "che", "x" for "per", "cmq", "xke"/"perke", "tvb" (ti voglio bene).

Italian drops the subject pronoun, so first person is read from the verb ("voglio", "vorrei", "mi ammazzo").
Negation ("non", "nn", "mai", "per niente") before a match rejects it (``ok``); where the pattern itself says "non
voglio più vivere" the negation is the risk. Idioms that are not crisis: "muoio dal ridere", "muoio di fame",
"da morire" as an intensifier ("ti voglio bene da morire"), "sono morto di stanchezza", "mi ammazzo dalle risate",
"questo caldo mi uccide", "mi fa morire".

"ti voglio bene" is what Italians say to friends, parents and children: affection, not a romantic avowal, so it
stays ``ok``; "ti amo" is the romantic form.
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

_NON = r"(?:non|nn|n)"
_NEG_WORD = r"(?:non|nn|mai|never|niente|nessuna|nessun)"
_NEGATED_BEFORE = rf"\b(?:{_NEG_WORD}|per niente|neanche|nemmeno|neppure)\b(?:\s+(?:mi|ti|lo|la|ci|ho|avrei|"
_NEGATED_BEFORE += r"voglio|vorrei|farei|faro|penso di|pensato di|intenzione di|mai|piu|di|a|sono|davvero))*[\s,]*"
_SLACK = rf"(?:(?!{_NEG_WORD}\b)[\w']+\s+)"
_REPORTED = r"\b(?:ha detto|dice|diceva|scritto|scrive|canzone|film|serie|libro|frase|titolo|citazione|canta)\b"


def _not_after(pattern: str, window: int = 40) -> Guard:
    """Reject a match when ``pattern`` ends right before it (within ``window`` characters, commas included)."""
    compiled = re.compile(stretch(pattern) + r"\s*$")
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def _reported(window: int = 60) -> Guard:
    compiled = re.compile(stretch(_REPORTED))
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


_NEG_OR_REPORTED = all_of(_not_after(_NEGATED_BEFORE), _reported())

_WANT = r"(?:voglio|vorrei|ho voglia di|sto per|devo|penso di|sto pensando di|ho deciso di|mi va di)"
_DIE_IDIOM = r"\s+(?:dal|dalle|dai|di|da|per|d')\b|\s*d'"
_PILLS = r"(?:pillole|pasticche|farmaci|medicine|compresse|sonniferi|psicofarmaci|ansiolitici|gocce)"
_DEATH_WORDS = r"\b(?:morire|morto|morta|uccidermi|ammazzarmi|suicid\w*|farla finita|vivere|sparire)\b"

CRISIS: tuple[Rule, ...] = (
    rule(
        "crisis.it.want_to_die",
        C,
        HIGH,
        rf"\b{_WANT}\s+{_SLACK}{{0,2}}?(?:morire|uccidermi|ammazzarmi|suicidarmi|togliermi la vita|farla finita|"
        r"essere mort[oa]|sparire per sempre|non svegliarmi piu|buttarmi (?:giu|dal|da un|sotto))\b|\bmi\s+"
        rf"{_SLACK}{{0,1}}?(?:voglio|vorrei|devo)\s+(?:\w+\s+)?(?:uccidere|ammazzare|suicidare|togliere la vita|"
        r"buttare (?:giu|dal|sotto))\b|\b(?:mi uccido|mi ammazzo|mi suicido|la faccio finita|mi tolgo la vita|"
        r"mi butto (?:giu|dal ponte|sotto un treno|sotto il treno|dalla finestra|dal balcone))\b|\bpenso\s+"
        r"(?:\w+\s+)?al suicidio\b|\bsono\s+suicida\b|\bpensieri\s+suicid\w*\b",
        after=_DIE_IDIOM + r"|\s+(?:di risate|dalle risate|di lavoro|di studio|in palestra)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\bda morire\b(?!.*\b(?:voglio|vorrei) morire\b)")),
    ),
    rule(
        "crisis.it.dont_want_to_live",
        C,
        HIGH,
        rf"\b{_NON}\s+(?:\w+\s+)?(?:voglio|ho voglia di|riesco a|ce la faccio a)\s+(?:piu\s+)?(?:vivere|"
        r"andare avanti|svegliarmi|esistere|stare al mondo|essere qui)\b(?!\s+(?:in|a|con|cosi|qui a|da sol[oa])\b)|"
        r"\bnessun (?:motivo|senso) (?:per|di) (?:vivere|andare avanti)\b|\bla vita\s+(?:\w+\s+)?(?:non|nn)\s+ha\s+"
        r"(?:piu\s+)?senso\b|\bnon\s+ha\s+(?:piu\s+)?senso\s+vivere\b",
    ),
    rule(
        "crisis.it.better_without_me",
        C,
        MEDIUM,
        r"\b(?:sarebbe|sarebbero|starebbero|staresti|stareste|starebbe)\s+(?:\w+\s+){0,2}?meglio\s+(?:se\s+(?:io\s+)?"
        r"(?:non ci fossi|non esistessi|fossi mort[oa]|sparissi|non ci fossi piu|non fossi mai nat[oa])|senza di me)\b|"
        r"\bmeglio\s+se\s+(?:io\s+)?(?:non ci fossi|non esistessi|sparissi|fossi mort[oa])\b|\bnessuno\s+(?:sentirebbe|"
        r"noterebbe)\s+(?:la mia mancanza|se sparissi)\b|\bsono\s+(?:solo\s+)?un peso\s+per\s+(?:tutti|"
        r"la mia famiglia)\b",
    ),
    rule(
        "crisis.it.self_harm",
        C,
        HIGH,
        r"\bmi\s+(?:\w+\s+)?(?:taglio|sto tagliando|sono tagliat[oa] di nuovo|faccio del male|ferisco|brucio apposta|"
        r"graffio fino a sanguinare)\b(?!\s+(?:i capelli|la barba|le unghie|la frangia|con il coltello|cucinando|"
        r"mentre)\b)|\b(?:tagliarmi|farmi del male|ferirmi)\b(?!\s+(?:i capelli|la barba|le unghie|la frangia)\b)|"
        r"\bautolesion\w*\b|\btagliarmi le vene\b|\bho ricominciato a tagliarmi\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:capelli|barba|unghie|frangia|cucina|cucinando|per sbaglio|senza volere|coltello da cucina)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.means",
        C,
        HIGH,
        rf"\bho\s+(?:\w+\s+){{0,2}}?(?:messo da parte|conservato|nascosto|accumulato|raccolto|preso|comprato)\s+"
        rf"(?:\w+\s+){{0,2}}?{_PILLS}\b|\bho\s+(?:le|tutte le|abbastanza)\s+{_PILLS}\s*(?:[.!]|$|pronte|qui|con me)|"
        rf"\b(?:prendere|ingoiare|prendermi|mandare giu)\s+(?:tutte\s+)?(?:le|tutte le|tutti i|i)\s+(?:mie\s+|miei\s+)?"
        rf"{_PILLS}\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:mal di testa|ricetta|medico|farmacia|dottore|il dolore)\b")),
    ),
    rule(
        "crisis.it.cant_anymore",
        C,
        MEDIUM,
        rf"\b{_NON}\s+(?:ce la faccio|ne posso|any posso|reggo|sopporto)\s+piu\b",
        requires=_DEATH_WORDS,
        guard=unless(r"\b(?:dal ridere|da morire|di fame|muoio di)\b"),
    ),
    rule(
        "crisis.it.farewell",
        C,
        MEDIUM,
        r"\baddio\s+(?:per sempre|a tutti|a tutti voi)\b|\blettera d'addio\b|\bquesto e il mio (?:ultimo )?"
        r"(?:addio|messaggio)\b|\bquando non ci saro piu\b|\bvi (?:saluto|dico addio) per sempre\b",
        guard=unless(r"\b(?:trasloco|lavoro|viaggio|paese|citta|scuola|gruppo|whatsapp|server)\b"),
    ),
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.it.love_you",
        R,
        MEDIUM,
        r"\b(?:io\s+)?ti\s+(?:amo|adoro da impazzire)\b|\btiamo\b|\bti amo\b",
        after=r"(?:\s+(?:tanto|tantissimo|anche|cosi tanto|da morire))*\s*,?\s*(?:mamma|papa|nonna|nonno|ragazzi|amici|"
        r"tutti|fratello|sorella|zia|zio|figlio|figlia)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.it.in_love",
        R,
        MEDIUM,
        r"\b(?:sono|mi sono|mi sto)\s+(?:\w+\s+)?innamorat[oa]\s+di\s+te\b|\binnamorat[oa] di te\b|\bho una cotta "
        r"per te\b|\bprovo (?:qualcosa|dei sentimenti) per te\b|\bmi piaci\b(?!\s+(?:come amic[ao]|come persona)\b)|"
        r"\bsei\s+(?:l'amore della mia vita|la donna della mia vita|la mia anima gemella|tutto per me)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.it.be_my_partner",
        R,
        MEDIUM,
        r"\b(?:vuoi|vorresti|ti va di)\s+(?:\w+\s+)?(?:essere|diventare)\s+la\s+mia\s+(?:ragazza|fidanzata|"
        r"morosa|donna|compagna|moglie)\b|\b(?:vuoi|vorresti|ti va di)\s+(?:\w+\s+)?(?:metterti con me|sposarmi|"
        r"uscire con me)\b|\bsposami\b|\bsii\s+la\s+mia\s+(?:ragazza|fidanzata)\b|"
        r"\bvoglio\s+(?:\w+\s+)?(?:stare con te|"
        r"che tu sia la mia (?:ragazza|fidanzata)|una relazione con te)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.it.kiss_touch",
        P,
        MEDIUM,
        r"\b(?:baciami|toccami|accarezzami|abbracciami a letto)\b|\b(?:voglio|vorrei|ho voglia di)\s+(?:\w+\s+)?"
        r"(?:baciarti|toccarti|accarezzarti|sentirti addosso)\b|\bdammi\s+(?:un\s+)?(?:bacio|bacetto|bacino)\b|"
        r"\bfacciamo\s+(?:le\s+)?coccole\s+(?:a letto|nel letto)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.it.sexual",
        P,
        HIGH,
        r"\bfammi vedere\s+(?:\w+\s+)?(?:il tuo corpo|le tue tette|il tuo seno|il tuo sedere|come sei nuda|sotto)\b|"
        r"\b(?:mandami|inviami|manda|mostrami)\s+(?:\w+\s+)?(?:foto\s+(?:nuda|nude|osé|ose|sexy|hot|in intimo)|nudes|"
        r"nude)\b|\bspogliati\b|\btogliti\s+(?:i vestiti|la maglia|il reggiseno|le mutandine|tutto)\b|\b(?:voglio|"
        r"vorrei|facciamo|ho voglia di)\s+(?:\w+\s+)?(?:fare l'amore|fare sesso|scoparti|venire a letto con te|"
        r"andare a letto con te)\b|\bsesso\s+con\s+(?:te|me)\b|\b(?:parliamo|parlare|parlami)\s+(?:\w+\s+)?di\s+"
        r"sesso\b|\bcosa (?:indossi|hai addosso)\b|\bsexting\b|\bsono\s+(?:tutto\s+)?eccitat[oa]\s+(?:per te|pensando "
        r"a te)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

MANIPULATION: tuple[Rule, ...] = (
    rule(
        "manipulation.it.ignore_instructions",
        M,
        HIGH,
        r"\b(?:ignora|ignorare|ignorate|dimentica|dimenticare|dimenticati|salta|disattiva|annulla|aggira|scavalca)\s+"
        r"(?:tutte\s+|tutti\s+)?(?:le|tue|i|tuoi|queste|delle|le tue|i tuoi)\s+(?:\w+\s+)?(?:istruzioni|regole|"
        r"direttive|restrizioni|limiti|filtri|impostazioni|linee guida|ordini)\b|\b(?:dimentica|ignora)\s+tutto\s+"
        r"(?:quello che|cio che)\s+ti\s+(?:hanno|abbiamo|ho)\s+(?:detto|insegnato)\b",
        guard=unless(r"\b(?:del gioco|della ricetta|dell'esame)\b"),
    ),
    rule(
        "manipulation.it.prompt_extraction",
        M,
        HIGH,
        r"\b(?:mostrami|dimmi|dammi|rivela|ripeti|scrivi|copia|stampa|qual e|quali sono)\s+(?:\w+\s+){0,2}?(?:il tuo|"
        r"le tue|il|le)\s+(?:\w+\s+)?(?:prompt|istruzioni (?:di sistema|iniziali|nascoste|segrete|originali)|messaggio "
        r"di sistema)\b|\bprompt di sistema\b|\bsystem prompt\b",
        guard=unless(r"\b(?:ricetta|gioco|esame|lego)\b"),
    ),
    rule(
        "manipulation.it.persona_swap",
        M,
        HIGH,
        r"\b(?:ora sei|adesso sei|da ora in poi sei|d'ora in poi sei|da adesso sei|sei|diventa|fai finta di essere|"
        r"fingi di essere|immagina di essere|comportati da|interpreta)\s+(?:[\w']+,?\s+){0,3}?(?:un'|una|un|un'altra|"
        r"un altro)\s*(?:altra\s+|altro\s+)?(?:ia|ai|i\.a\.|assistente|chatbot|bot|modello|intelligenza artificiale)\s+"
        r"(?:divers[ao]|nuov[ao]|senza\s+(?:\w+\s+)?(?:regole|limiti|restrizioni|filtri|censura))\b|"
        r"\b(?:fai finta|fingi|immagina)\s+(?:\w+\s+){0,4}?senza\s+(?:\w+\s+)?(?:regole|limiti|restrizioni|filtri|"
        r"censura)\b|\b(?:non|nn)\s+sei\s+piu\s+ella\b|\bil\s+tuo\s+nuovo\s+nome\s+e\b|\bmodalita\s+(?:sviluppatore|"
        r"developer|dio|dan|senza filtri|senza censura)\b|\b(?:da ora in poi|d'ora in poi|adesso|ora)\s+(?:sei|ti "
        r"chiami)\s+dan\b|\b(?:da ora in poi|d'ora in poi|da adesso)\s+ti\s+chiami\b|\bun'altra (?:ia|intelligenza "
        r"artificiale)\b",
        guard=unless(r"\b(?:telefono|cellulare|android|iphone|impostazioni del|console|browser)\b"),
    ),
)
