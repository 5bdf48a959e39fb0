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
from dataclasses import replace

from ella.guard.rules import Guard, Rule, all_of, ends_before, occurs_before, rule, unless
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
    return ends_before(pattern, window)


def _reported(window: int = 60) -> Guard:
    return occurs_before(_REPORTED, window)


_NEG_OR_REPORTED = all_of(_not_after(_NEGATED_BEFORE), _reported())

_WANT = r"(?:voglio|vorrei|ho voglia di|sto per|devo|penso di|sto pensando di|ho deciso di|mi va di)"
_DIE_IDIOM = r"\s+(?:dal|dalle|dai|di|da|per|d')\b|\s*d'"
_PILLS = r"(?:pillole|pasticche|farmaci|medicine|compresse|sonniferi|psicofarmaci|ansiolitici|gocce)"
# "la faccio finita con la dieta": ending a habit, not a life (unless the life, everything or myself is named)
_FINITA_CON = (
    r"|(?<=ta)\s+con\s+(?!(?:la vita|la mia vita|questa vita|sta vita|tutto|tutti|me stess[oa]|il mondo|"
    r"questo mondo|l'esistenza)\b)"
)
# sports and game hyperbole: "se perde la Roma mi ammazzo"
_IF_THEY_LOSE = (
    r"\bse\s+(?:\w+\s+){0,2}?(?:perde|perdono|perdiamo|pareggia|pareggiano|retrocede|non vince|non vincono|"
    r"non vinciamo)\b"
)
# "le regole del gioco / della dieta": someone else's rules, not Ella's
_RULES_OF = (
    r"\s+(?:del|della|dello|dei|delle|degli|di)\s+(?!(?:sistema|sviluppator\w*|programmator\w*|prima|anthropic|"
    r"openai|sicurezza|ella|chi ti ha creat\w+)\b)"
)
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
        after=_DIE_IDIOM + r"|\s+(?:di risate|dalle risate|di lavoro|di studio|in palestra)\b" + _FINITA_CON,
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\bda morire\b(?!.*\b(?:voglio|vorrei) morire\b)"),
            unless(_IF_THEY_LOSE),
            lambda text, m: _third(text, m),
        ),
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
        r"\baddio\s+(?:per sempre|a tutti|a tutti voi)\b(?!\s+(?:al|alla|allo|ai|agli|alle|all')\b)|"
        r"\blettera d'addio\b|\bquesto e il mio (?:ultimo )?"
        r"(?:addio|messaggio)\b|\bquando non ci saro piu\b|\bvi (?:saluto|dico addio) per sempre\b",
        guard=unless(
            r"\b(?:trasloco|lavoro|viaggio|paese|citta|scuola|gruppo|whatsapp|server|vacanza|vacanze|ferie|mare|"
            r"montagna|erasmus|estero|partenza|parto)\b"
        ),
    ),
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.it.love_you",
        R,
        MEDIUM,
        r"\b(?:io\s+)?ti\s+(?:amo|adoro da impazzire)\b|\btiamo\b|\bti amo\b",
        after=r"(?:\s+(?:tanto|tantissimo|anche|cosi tanto|da morire))*\s*,?\s*(?:mamma|papa|nonna|nonno|ragazzi|amici|"
        r"tutti|fratello|sorella|zia|zio|figlio|figlia|pizza|nutella|cioccolato|gelato|raga|bro|frate|fra|amica|amico|"
        r"amiche|cane|gatto|micio|roma|napoli|milano|torino|firenze|palermo|bologna|venezia|bari|genova|italia|"
        r"parigi|estate|vita|calcio|juve|inter|milan)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\bti amo,?\s+(?:pizza|nutella|cioccolato|gelato|caffe|pasta|lasagna|tiramisu|mamma|papa|nonna)\b"),
        ),
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
        r"uscire con me)\b(?!\s+(?:e (?:i|le|gli|mia|mio)|con (?:i|le|gli)|a giocare)\b)|\bsposami\b|"
        r"\bsii\s+la\s+mia\s+(?:ragazza|fidanzata)\b|"
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
        r"\b(?:mandami|inviami|manda|mostrami)\s+(?:\w+\s+)?(?:foto\s+(?:nuda|nude|ose|sexy|hot|in intimo)|nudes|"
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
        after=_RULES_OF,
        guard=all_of(unless(r"\b(?:del gioco|della ricetta|dell'esame)\b"), _reported()),
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


# ---------------------------------------------------------------------------------------------------------------
# The English rule families, ported: how Italians write them in chat (no accents, "nn"/"nun" for "non", "+" for
# "piu", "sn"/"so" for "sono", romanesco "me"/"m'" for "mi", "vojo"/"mori"/"vive"), each family with the everyday
# reading it leaves alone. Appended to the tuples above so the rule order (and ids) of the first pass stay put.
# ---------------------------------------------------------------------------------------------------------------

_NN = r"(?:non|nn|nun)"
_PIU = r"(?:piu|\+|cchiu|chiu)"
_SONO = r"(?:sono|sn|so)"
_ME = r"(?:mi|me|m')\s*"
_VOGLIO = (
    r"(?:voglio|vojo|vorrei|vorei|desidero|ho voglia di|spero di|prego di|non vedo l'ora di|sogno di|mi viene da|"
    r"mi viene voglia di|ho la tentazione di|ho il desiderio di|mi prende la voglia di)"
)
_SLACK1 = rf"{_SLACK}{{0,2}}?"
_DIE_VERB = (
    r"(?:morire|mori|morie|murire|muri|crepare|schiattare|uccidermi|ucidermi|ammazzarmi|amazzarmi|suicidarmi|"
    r"sucidarmi|impiccarmi|spararmi|(?:buttarmi|lanciarmi)(?!\s+(?:in|nel|nella|nello|nelle|negli|nei|sul|sulla|su|a|"
    r"col|con|dentro|nell'|sull')\b)|annegarmi|avvelenarmi|farla finita|farla finta|"
    r"farmi fuori|togliermi di mezzo|levarmi di mezzo|togliermi la vita|smettere di (?:esistere|vivere|respirare))"
)
# everyday readings of death words: laughing, hunger, heat, boredom, a match, a film, a game, work
_DEATH_IDIOM = (
    r"\b(?:dal ridere|dalle risate|di risate|dalla fame|di fame|di sete|dal caldo|di caldo|dal freddo|di freddo|"
    r"di noia|dalla noia|dal sonno|di sonno|dalla voglia|dall'invidia|d'invidia|di vergogna|dalla vergogna|"
    r"dalla curiosita|di curiosita|da morire|a ridere|partita|videogioco|gioco|livello|personaggio|film|serie|"
    r"romanzo|libro|canzone|fumetto|anime)\b"
)
_THIRD_PEOPLE = (
    r"\b(?:mio (?:fratello|padre|papa|nonno|zio|cugino|figlio|amico|ragazzo|marito|collega|vicino|cane|gatto)|"
    r"mia (?:sorella|madre|mamma|nonna|zia|cugina|figlia|amica|ragazza|moglie|collega|vicina)|"
    r"(?:il mio|un mio|la mia|una mia) (?:amico|amica|collega|compagno|compagna|vicino|vicina|paziente|cliente|"
    r"alunno|alunna|studente|studentessa|ex)|un amico|un'amica|la mia migliore amica|il mio migliore amico|"
    r"lui|lei|loro|qualcuno|la gente|il protagonista|la protagonista|il personaggio)\b"
)
_THIRD_BEFORE = re.compile(
    r"(?<!\ba )(?<!\bal )(?<!\bai )(?<!\bda )(?<!\bdi )(?<!\balla )(?<!\bcon )(?<!\bdella )(?<!\bdel )"
    + _THIRD_PEOPLE
    + r"(?:\s+[\w']+){0,3}?[\s,:]*(?:che\s+)?$"
)


def _third(text: str, m: re.Match[str]) -> bool:
    """Reject a match whose clause is about someone else ("mia sorella ha pensieri suicidi"), but not when the
    person is the one told ("ho detto a mia madre che voglio morire")."""
    return _THIRD_BEFORE.search(text, max(0, m.start() - 50), m.start()) is not None


_THIRD = _third
_CRISIS_GUARD = all_of(_NEG_OR_REPORTED, _THIRD)
_FAREWELL_ORDINARY = (
    r"\b(?:trasloco|traslocare|trasferisco|trasferimento|lavoro|ufficio|colleghi|viaggio|vacanza|vacanze|"
    r"erasmus|estero|paese|citta|scuola|classe|universita|gruppo|whatsapp|telegram|server|discord|canale|"
    r"instagram|tiktok|facebook|social|squadra|palestra|pensione|casa nuova|nuova casa|partenza|parto|aereo|volo|"
    r"treno per|matrimonio|festa|compleanno|gioco|partita)\b"
)
_SCHOOL = r"\b(?:esame|esami|scuola|verifica|interrogazione|maturita|tesi|lavoro|ufficio|turno|progetto|scadenza)\b"

CRISIS += (
    # a wish to die said with a verb of wanting, hoping or longing, regional and typed forms included
    rule(
        "crisis.it.wish_to_die_forms",
        C,
        HIGH,
        rf"\b{_VOGLIO}\s+{_SLACK1}{_DIE_VERB}\b|\b(?:me|mi|m')\s*(?:\w+\s+)?(?:vojo|voglio|vorrei|devo)\s+(?:\w+\s+)?"
        r"(?:ammazza|ammazzare|uccide|uccidere|sparare|impicca|impiccare|butta|buttare|lancia|lanciare|"
        r"toglie di mezzo|togliere di mezzo|leva di mezzo|levare di mezzo|leva de mezzo|leva da mezzo|levare de mezzo|"
        r"toglie de mezzo|togliere de mezzo)\b|"
        r"\b(?:me|m')\s*(?:ammazzo|sparo|impicco|butto(?: giu| di sotto| dal| sotto)|uccido|levo di mezzo|"
        r"tolgo di mezzo)\b|"
        r"\bmi\s+(?:impicco|levo di mezzo|tolgo di mezzo|avveleno|faccio fuori)\b|"
        r"\b(?:mi ucciderei|mi ammazzerei|mi toglierei la vita|la farei finita)\b(?!\s+(?:dal|dalle|di|se)\b)",
        after=_DIE_IDIOM.replace(r"\b(?:", r"\s*(?:", 1) + r"|\s+(?:piuttosto|prima di|pur di)\b" + _FINITA_CON,
        guard=all_of(
            _CRISIS_GUARD,
            unless(r"\b(?:se perd\w+|se (?:la|il) \w+ perde|piuttosto che)\b|" + _IF_THEY_LOSE[2:]),
            unless(r"\bda (?:morire|crepare|impazzire)\b(?!.*\b(?:voglio|vorrei|spero di) (?:morire|crepare)\b)"),
        ),
    ),
    # suicide named: thoughts, attempts, "suicidal", planning it
    rule(
        "crisis.it.suicide_named",
        C,
        HIGH,
        r"\b(?:ho|avevo|sto)\s+(?:\w+\s+)?(?:pensieri|idee|tendenze|istinti)\s+(?:suicid\w*|di morte|"
        r"di farla finita)\b|"
        r"\b(?:ho|avevo)\s+(?:gia\s+)?(?:tentato|provato)\s+(?:\w+\s+)?(?:il suicidio|a uccidermi|a ammazzarmi|"
        r"ad ammazzarmi|di uccidermi|a togliermi la vita|di togliermi la vita|a farla finita|di farla finita)\b|"
        rf"\b(?:mi sento|{_SONO})\s+(?:\w+\s+)?suicida\b|\bpenso\s+(?:\w+\s+){{0,2}}?(?:di|a)\s+(?:uccidermi|"
        r"ammazzarmi|suicidarmi|farla finita|togliermi la vita)\b|\b(?:sto|ho)\s+(?:\w+\s+)?(?:pensando|pensato)\s+"
        r"(?:\w+\s+)?(?:al suicidio|di suicidarmi|di uccidermi|di ammazzarmi|di farla finita|di togliermi la vita|"
        r"a come (?:farla finita|morire|uccidermi))\b|\b(?:penso|pensavo|ho pensato)\s+(?:\w+\s+){0,2}?a come "
        r"(?:farla finita|morire|uccidermi|ammazzarmi|suicidarmi|togliermi la vita)\b|\b(?:il mio|"
        r"un)\s+tentativo di suicidio\b",
        guard=_CRISIS_GUARD,
    ),
    # passive wishes: never born, not exist, be dead, not be here
    rule(
        "crisis.it.passive_wish",
        C,
        HIGH,
        rf"\b(?:vorrei|vorei|avrei voluto|preferirei|preferisco|magari potessi|spero di)\s+(?:\w+\s+)?(?:{_NN}\s+"
        r"(?:essere (?:mai )?nat[oa]|essere mai venut[oa] al mondo|esistere|esserci|esserci piu|stare al mondo|"
        rf"svegliarmi|svegliarmi {_PIU}|esserci {_PIU}|esistere {_PIU})|essere mort[oa]|morire nel sonno|"
        r"addormentarmi e (?:non|nn) svegliarmi|addormentarmi per sempre|dormire per sempre|spegnermi|"
        r"smettere di esistere|non essere mai nat[oa])|\bmagari\s+(?:fossi|ero)\s+mort[oa]\b|"
        rf"\b(?:meglio|sarebbe meglio|era meglio)\s+(?:se\s+)?(?:{_NN}\s+(?:fossi|ero)\s+mai\s+nat[oa]|morire|"
        r"(?:essere|fossi|ero) mort[oa])\b",
        after=r"\s+(?:piuttosto|che)\s+(?!viver\w*|continuare|andare avanti|stare cosi|sopportare|soffrire)|"
        r"\s+(?:di risate|dal ridere|dalla vergogna|di vergogna)\b|"
        r"\s*(?:,\s*)?(?:piuttosto che|che (?:andare|tornare|mangiare|fare|vedere|rifare|studiare))\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:da ridere|per sbaglio|in quel film|nel gioco|dalla vergogna|sveglia|lezione|turno|tardi|"
                r"in ritardo|alle \d|presto per|domenica|weekend|sabato mattina|la mattina|fino a tardi|ferie)\b"
            ),
        ),
    ),
    # no reason to live, life makes no sense, tired of living, done with life
    rule(
        "crisis.it.no_reason_to_live",
        C,
        HIGH,
        r"\b(?:(?:che|ke|ok|k) senso ha|a che serve|a cosa serve|a ke serve|per cosa|"
        r"perche dovrei)\s+(?:ancora\s+)?(?:vivere|"
        rf"andare avanti|continuare a vivere|svegliarmi|esistere|stare al mondo)\b|\b{_NN}\s+(?:ho|c'ho|trovo)\s+"
        rf"(?:{_PIU}\s+)?(?:\w+\s+)?(?:motivi|motivo|ragioni|ragione|un motivo|una ragione)\s+(?:per|di)\s+"
        r"(?:vivere|andare avanti|restare|svegliarmi|continuare)\b|\b(?:stanc[oa]|stuf[oa]|esaust[oa]|sfinit[oa]|"
        r"rott[oa])\s+"
        r"(?:di\s+)?(?:vivere|esistere|essere viv[oa]|stare al mondo|questa vita)\b|\bho chiuso con la vita\b|"
        r"\b(?:la|sta|questa)\s+(?:mia\s+)?vita\s+(?:\w+\s+)?(?:nn|non)\s+(?:ha|"
        r"vale)\s+(?:piu\s+)?(?:nessun\s+)?(?:senso|la pena)\b|"
        rf"\b{_NN}\s+vale\s+(?:{_PIU}\s+)?la pena\s+(?:di\s+)?(?:vivere|andare avanti|continuare)\b|"
        rf"\b{_NN}\s+(?:vojo|voglio)\s+(?:{_PIU}\s+)?(?:vive|vivere|campa|campare)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:senza (?:il )?caffe|senza pizza|senza calcio|in questa citta|"
                r"cosi lontano|con questo caldo|a milano|a roma)\b"
            ),
        ),
    ),
    # can't go on, with living or an end named
    rule(
        "crisis.it.cant_go_on",
        C,
        MEDIUM,
        rf"\b{_NN}\s+(?:ce la faccio|ce la fo|riesco|posso|any posso|ne posso)\s+(?:{_PIU}\s+)?(?:a|ad|di)\s+"
        r"(?:vivere|andare avanti|continuare cosi|continuare a vivere|sopravvivere|stare al mondo|esistere|"
        r"svegliarmi ogni mattina)\b|"
        rf"\b{_NN}\s+(?:ce la faccio|ce la fo|reggo|any posso|ne posso)\s+{_PIU}\s*[,.!]*\s*(?:voglio|vorrei|basta)\s+"
        r"(?:\w+\s+)?(?:sparire|morire|finire|farla finita|dormire per sempre|andarmene per sempre)\b|"
        rf"\b{_NN}\s+(?:ce la faccio|ce la fo|reggo)\s+{_PIU}\s*(?:[,.!]\s*)?(?:e|voglio)\s+(?:\w+\s+)?"
        r"(?:finire|chiudere) tutto\b",
        guard=all_of(_CRISIS_GUARD, unless(_DEATH_IDIOM)),
    ),
    # want it all to end, the pain to stop
    rule(
        "crisis.it.want_it_to_end",
        C,
        MEDIUM,
        r"\b(?:voglio|vorrei|vojo)\s+(?:solo\s+)?(?:che|ke)\s+(?:finisca|smetta|si fermi|termini)\s+(?:tutto|"
        r"questo dolore|il dolore|questa vita|la mia vita)\b|\b(?:voglio|vorrei)\s+(?:solo\s+)?(?:che|ke)\s+(?:tutto|"
        r"il dolore|questa vita|la mia vita|questo dolore)\s+(?:\w+\s+)?(?:finisca|smetta|si fermi|abbia fine)\b|"
        r"\b(?:voglio|vorrei)\s+(?:solo\s+)?(?:chiudere|finire)\s+(?:con\s+)?(?:tutto|la mia vita|questa vita)\s+"
        r"(?:per sempre|una volta per tutte|e basta)\b|\bvoglio solo smettere di soffrire per sempre\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                _SCHOOL + r"|\b(?:guerra|pandemia|lockdown|estate|inverno|settimana|"
                r"giornata|riunione|film|serie|stagione|campionato|partita|relazione|storia con)\b"
            ),
        ),
    ),
    # burdensomeness and "no one would care / notice"
    rule(
        "crisis.it.burden",
        C,
        MEDIUM,
        rf"\b{_SONO}\s+(?:solo\s+|soltanto\s+|sempre\s+)?(?:un peso|un fardello|un problema per tutti|"
        r"una palla al piede per tutti)\b(?!\s+(?:in palestra|a calcio|al lavoro|nella squadra|per la squadra)\b)|"
        r"\b(?:do|porto|creo)\s+solo\s+(?:problemi|fastidio|dolore)\s+a\s+(?:tutti|chi mi sta vicino|"
        r"chi mi vuole bene)\b|\brovino la vita (?:a tutti|di tutti|a chi mi sta vicino)\b|"
        r"\b(?:a\s+)?nessuno\s+(?:importerebbe|importera|gliene fregherebbe|frega(?:rebbe)?|mancherei|"
        r"se (?:ne|any) accorgerebbe|piangerebbe|verrebbe al mio funerale)\s*(?:niente\s+|nulla\s+)?(?:se|quando)\s+"
        r"(?:\w+\s+)?(?:morissi|sparissi|me ne andassi|non ci fossi|mi uccidessi|mi ammazzassi|morivo|sparivo)\b|"
        r"\b(?:a chi|chi)\s+(?:importerebbe|mancherei|se (?:ne|any) accorgerebbe|"
        r"piangerebbe)\s+se\s+(?:\w+\s+)?(?:morissi|"
        r"sparissi|non ci fossi)\b|\bse\s+(?:\w+\s+)?(?:morissi|sparissi)\s+(?:domani\s+|oggi\s+|stanotte\s+)?"
        r"(?:nessuno|a nessuno)\s+(?:se (?:ne|any) accorgerebbe|importerebbe|noterebbe|piangerebbe|gliene fregherebbe|"
        r"mi cercherebbe)\b|\bnon mancherei a nessuno\b|\bnessuno si accorgerebbe (?:della mia assenza|se sparissi)\b|"
        r"\bnon saro piu un peso per nessuno\b",
        guard=_CRISIS_GUARD,
    ),
    # the world / everyone better off without me
    rule(
        "crisis.it.world_without_me",
        C,
        MEDIUM,
        r"\b(?:il mondo|la vita di tutti|la mia famiglia|tutti|i miei|mia madre|mio padre|la mia ragazza|"
        r"il mio ragazzo)\s+(?:\w+\s+)?(?:sarebbe|sarebbero|starebbe|starebbero|stara|staranno|vivrebbe|vivrebbero)\s+"
        r"(?:\w+\s+)?(?:meglio|migliore|migliori|piu felic[ei]|piu seren[oaie]|"
        r"piu tranquill[oaie])\s+senza\s+(?:di\s+)?me\b|"
        r"\bsenza\s+(?:di\s+)?me\s+(?:il mondo|tutti|la mia famiglia|i miei)\s+(?:\w+\s+)?(?:sarebbe|sarebbero|"
        r"starebbe|starebbero|stara|staranno)\s+(?:\w+\s+)?(?:meglio|migliore|piu felici?)\b|"
        r"\bun mondo senza di me sarebbe\b|\bmeglio per tutti se (?:io )?(?:sparisco|muoio|me any vado|me ne vado|"
        r"mi tolgo di mezzo|non ci sono piu)\b",
        guard=unless(r"\b(?:in vacanza|in ufficio|alla festa|in squadra|al lavoro|in gruppo|nel gruppo)\b"),
    ),
    # disappearing for ever, vanishing, leaving for good (not a move, a trip, a job)
    rule(
        "crisis.it.disappear",
        C,
        MEDIUM,
        rf"\b(?:voglio|vorrei|vojo|devo|sto per)\s+(?:solo\s+|soltanto\s+)?(?:sparire|scomparire|svanire|dissolvermi|"
        rf"andarmene)\s+(?:per sempre|e basta|nel nulla|dalla faccia della terra|da questo mondo|da tutto e "
        rf"tutti|da tutti per sempre|definitivamente|e (?:non|nn) tornare {_PIU})|\b(?:me any|me ne|mene)\s+vado\s+"
        r"per sempre\b|\bvado via per sempre\b|\bsparisco per sempre\b|\bnon mi vedrete (?:mai )?piu\b|"
        r"\bnon mi sentirete (?:mai )?piu\b|\bnon (?:mi )?sentirai (?:mai )?piu (?:parlare di me|da me)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                _FAREWELL_ORDINARY + r"|\b(?:sotto le coperte|per (?:un|qualche) "
                r"(?:giorno|weekend|mese|po)|in montagna|al mare|dai social|da instagram|dal gruppo|da qui)\b"
            ),
        ),
    ),
    # not waking up, sleeping for ever
    rule(
        "crisis.it.not_waking",
        C,
        HIGH,
        rf"\b(?:spero|speravo|vorrei|voglio|magari|prego)\s+(?:\w+\s+)?(?:di\s+)?{_NN}\s+(?:mi\s+)?"
        r"(?:svegliarmi|sveglio|svegliassi|risvegliarmi)\s*(?:piu\b|\+|domani|stanotte|mai piu|domattina)|"
        r"\b(?:addormentarmi|dormire)\s+(?:e\s+)?(?:per sempre|e non svegliarmi|e nn svegliarmi|senza svegliarmi)\b|"
        r"\bchiudere gli occhi e (?:non|nn) (?:riaprirli|aprirli) (?:piu|mai piu)\b|"
        r"\b(?:purtroppo|peccato|odio|che schifo)\s+(?:\w+\s+)?(?:mi sono svegliat[oa]|essermi svegliat[oa]|"
        r"sono ancora viv[oa])\b|\bdelus[oa] di (?:essermi svegliat[oa]|essere ancora viv[oa])\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:sveglia|allarme|weekend|domenica|ferie|vacanza|presto|lunedi|"
                r"alle \d|tardi|lezione|turno|ritardo)\b"
            ),
        ),
    ),
    # self-injury: cut, burn, hit myself, need to cut, hide the marks
    rule(
        "crisis.it.self_injury",
        C,
        HIGH,
        rf"\b(?:mi\s+|me\s+)?(?:{_SONO}|mi sn|mi sono|mi so)\s+(?:\w+\s+)?(?:tagliat[oa]|bruciat[oa]|ferit[oa]|"
        r"graffiat[oa]|fatt[oa] (?:del )?male)\s+(?:di nuovo|ancora|apposta|le braccia|le gambe|i polsi|il polso|"
        r"le cosce|con la lametta|con il rasoio|con la sigaretta|un'altra volta|stanotte|ieri sera)\b|"
        r"\b(?:ho|c'ho)\s+(?:\w+\s+)?(?:bisogno|voglia)\s+di\s+(?:tagliarmi|farmi male|ferirmi|bruciarmi|"
        r"vedere (?:il )?sangue)\b|\b(?:nascondo|nascondere|coprire|copro)\s+(?:\w+\s+){0,2}?(?:i tagli|le cicatrici|"
        r"le ferite|i segni)\s+(?:sulle|sui|delle|dei|sul|sulla)\s+(?:braccia|polsi|polso|gambe|cosce)\b|"
        r"\b(?:mi\s+)?(?:prendo|sono preso|sono presa)\s+a\s+(?:pugni|schiaffi)\s+(?:da sol[oa]|fino a)\b|"
        r"\b(?:sbatto|ho sbattuto)\s+la testa (?:contro il muro|al muro) (?:fino a|finche|apposta)\b|"
        r"\b(?:lametta|lamette|rasoio)\b.{0,30}\b(?:polsi|braccia|cosce|tagliarmi)\b|"
        r"\bmi\s+(?:faccio|sono fatt[oa])\s+(?:del\s+)?male\s+(?:apposta|da sol[oa]|di proposito|quando)\b|"
        r"\b(?:sono|so)\s+ricadut[oa]\b.{0,40}\b(?:tagli|tagliarmi|autolesion\w*|lametta)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:cucina|cucinando|verdura|cipolla|pane|per sbaglio|senza volere|"
                r"capelli|barba|radendomi|mi radevo|sole|scottat[oa] al sole|in palestra|allenamento|partita|calcio|"
                r"pallone|bicicletta|bici|caduta|caduto|caduta)\b"
            ),
        ),
    ),
    # how to: method research, least painful, quickest, what floor, searched online
    rule(
        "crisis.it.method_research",
        C,
        HIGH,
        r"\b(?:come|in che modo)\s+(?:ci si|si puo|posso|potrei|faccio a|fare a|si fa a)\s+(?:\w+\s+)?(?:uccide(?:re)?|"
        r"ammazzar(?:e|mi|si)|suicidar(?:e|mi|si)|impiccar(?:e|mi|si)|uccidermi|togliermi la vita|togliersi la vita|"
        r"farla finita|morire senza soffrire|morire senza dolore)\b|\b(?:modo|metodo|maniera)\s+(?:\w+\s+)?"
        r"(?:meno doloros[oa]|indolore|piu veloce|piu rapid[oa]|piu sicur[oa]|piu facile|migliore)\s+(?:per|di)\s+"
        r"(?:morire|uccidermi|suicidarmi|farla finita|ammazzarmi|andarmene|togliermi la vita)\b|"
        r"\b(?:ho cercato|sto cercando|cercavo|ho googlato|ho guardato)\s+(?:\w+\s+){0,2}?(?:come|metodi per|"
        r"modi per)\s+"
        r"(?:\w+\s+)?(?:suicidar\w*|impiccar\w*|uccider\w*|ammazzar\w*|togliersi la vita|farla finita|morire)\b|"
        r"\bda (?:che|quale) piano\s+(?:\w+\s+){0,3}?(?:si muore|muori|morire|e sicuro|bisogna buttarsi|buttarsi)\b|"
        r"\bcome\s+(?:suicidarsi|impiccarsi|uccidersi|ammazzarsi)\b|\bmetodi (?:di|per il) suicidio\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:romanzo|racconto|libro|giallo|sceneggiatura|film|serie|"
                r"personaggio|gioco|videogioco|zanzare|scarafaggi|formiche|pianta|piante|erbacce|topi|batteri|processo|"
                r"server|tesi|storia)\b"
            ),
        ),
    ),
    # lethality and pain: lethal dose, how many to die, does it hurt, would I die if
    rule(
        "crisis.it.lethality",
        C,
        HIGH,
        r"\b(?:dose|quantita)\s+(?:letale|mortale)\b|\bquant[ei]\s+(?:\w+\s+){0,3}?(?:servono|ci vogliono|devo "
        r"prendere|bisogna prendere|ne servono)\s+(?:\w+\s+){0,2}?(?:per\s+)?(?:morire|non svegliarsi|non svegliarmi|"
        r"andarsene|farla finita|overdose)\b|\b(?:fa|fara)\s+male\s+(?:morire|impiccarsi|annegare|tagliarsi le vene|"
        r"buttarsi|morire dissanguat[oa])\b|\bsi soffre\s+(?:a|quando|se)\s+(?:\w+\s+)?(?:muori|si muore|impicc\w*|"
        r"annega\w*|butt\w*)\b|\b(?:morirei|muoio|potrei morire|riuscirei a morire)\s+se\s+(?:prendo|prendessi|"
        r"ingoio|ingoiassi|mi butto|mi buttassi|bevo|bevessi)\s+(?:\w+\s+){0,3}?(?:pillole|pastiglie|pasticche|"
        r"compresse|tachipirine|tachipirina|paracetamolo|candeggina|xanax|sonniferi|farmaci|flacone|scatola|"
        r"dal|dalla|da|giu)\b|\b(?:e|sarebbe)\s+(?:\w+\s+)?(?:letale|mortale)\s+(?:se\s+)?(?:prendere|ingoiare|"
        r"prendo|ingoio)\b|\bovrdose\b|\boverdose\s+(?:di|da)\s+(?:\w+\s+)?(?:sicura|per morire|per non svegliarmi)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:cane|gatto|cani|gatti|bambin\w+|neonat\w+|figli\w*|pianta|"
                r"piante|topi|insetti|veterinari\w*|esame|farmacologia|infermier\w*|medicina|universita|romanzo|libro|"
                r"giallo|film|serie|personaggio|per sbaglio|paziente|pazienti|caffeina|caffe|cioccolato)\b"
            ),
        ),
    ),
    # means at hand or already taken: pills in front of me, rope ready, I've taken them all
    rule(
        "crisis.it.means_at_hand",
        C,
        HIGH,
        rf"\bho\s+(?:\w+\s+){{0,2}}?(?:{_PILLS}|pastiglie|pasticche|la corda|una corda|il cappio|la lametta|"
        r"le lamette|il coltello|la pistola|una pistola|il flacone|la scatola di \w+)\s+(?:\w+\s+)?(?:qui\s+|gia\s+)?"
        r"(?:davanti|in mano|sul tavolo|sul letto|pronte|pronta|pronto|accanto a me|vicino a me|nel cassetto e)\b|"
        rf"\bho\s+(?:gia\s+|appena\s+)?(?:preso|ingoiato|mandato giu|buttato giu|"
        rf"bevuto)\s+(?:\w+\s+){{0,2}}?(?:tutt[ei]\s+)?"
        rf"(?:le|i|la|il|un|una|\d+|venti|trenta|quaranta|cinquanta|dieci|tutto il|tutta la|mezza|mezzo)?\s*"
        rf"(?:{_PILLS}|pastiglie|pasticche|tachipirine|flacone|boccetta|candeggina|scatola intera|blister)\b"
        r"(?!\s+(?:per il|per la|contro|per dormire|come prescritto|che mi ha dato))|"
        r"\bho\s+trovato\s+(?:la pistola|il fucile)\s+di\s+(?:mio|mia)\b|\bil cappio e pronto\b|"
        r"\b(?:ho|c'ho)\s+(?:fatto|preparato)\s+(?:il|un)\s+cappio\b|\b(?:sto|sn|sono)\s+(?:andando|andata|andato)\s+"
        r"in overdose\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:mal di testa|febbre|raffreddore|influenza|dolore|ricetta|"
                r"medico|dottore|farmacia|farmacista|antibiotico|vitamin\w+|integrator\w+|pillola anticoncezionale|"
                r"come (?:mi ha detto|prescritto)|prescritt\w+|a pranzo|a cena|dopo colazione|per dormire|pesca|cucina|"
                r"torta|pane|pacco|regalo|cane|gatto|guanti|maglia|palestra|tenda|barca|campeggio)\b"
            ),
        ),
    ),
    # a plan, a date, a place chosen: "ho deciso", "stanotte lo faccio", "ho scelto il ponte"
    rule(
        "crisis.it.plan_date_place",
        C,
        HIGH,
        r"\bho\s+(?:gia\s+)?(?:deciso|scelto|fissato|stabilito)\s+(?:\w+\s+){0,2}?(?:il giorno|la data|quando|il posto|"
        r"dove|il ponte|il palazzo|come)\s+(?:\w+\s+){0,3}?(?:farla finita|morire|uccidermi|ammazzarmi|"
        r"suicidarmi|buttarmi|lo faro|la faccio finita|farlo|andarmene per sempre)\b|"
        r"\b(?:stanotte|stasera|domani|sabato|domenica|lunedi|dopodomani|tra (?:una|due) settimane?|a mezzanotte|"
        r"dopo gli esami|a capodanno|il giorno del mio compleanno)\s+(?:\w+\s+)?(?:la faccio finita|mi ammazzo|"
        r"mi uccido|mi butto(?!\s+(?:col|con|in|nel|nella|nello|sul|sulla|sui|a|nell'|dentro))|mi impicco|"
        r"mi tolgo la vita|me ne vado per sempre|me any vado per sempre|e la fine|"
        r"sara la fine|sara la mia ultima|muoio)\b|\bho\s+(?:un|il)\s+piano\s+(?:\w+\s+)?(?:per|di)\s+(?:uccidermi|"
        r"ammazzarmi|farla finita|suicidarmi|morire|togliermi la vita)\b|\b(?:e|sara)\s+(?:la mia ultima notte|"
        r"il mio ultimo giorno)\s+(?:da viv[oa]|sulla terra|al mondo|di vita)\b|\bquesta e la mia ultima notte\b|"
        r"\bso (?:gia )?(?:come e quando|dove e quando|quando e come)\b|\bstavolta lo faccio davvero\b(?=.*"
        r"\b(?:morire|finita|uccidermi|ammazzarmi|addio|per sempre|pillole|corda|ponte|basta vivere)\b)",
        after=_FINITA_CON[1:],
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:dalle risate|dal ridere|di fame|di caldo|di noia|in palestra|"
                r"esame|esami|trasloco|trasferisco|vacanza|viaggio|matrimonio|festa|compleanno di|partita|gara|"
                r"maratona|"
                r"dieta|paracadute|bungee|piscina|tuffo|mare)\b(?!.*\b(?:uccidermi|ammazzarmi|suicid\w*)\b)"
            ),
        ),
    ),
    # a place at hand: on the ledge, by the tracks, in the car with the engine running
    rule(
        "crisis.it.on_the_edge",
        C,
        HIGH,
        rf"\b(?:{_SONO}|sto|mi trovo|mi sono sedut[oa]|seduto|seduta)\s+(?:\w+\s+)?(?:sul|sulla|sui|sul bordo del|"
        r"sul bordo della|in piedi sul|in piedi sulla|sopra il|sopra al|sul parapetto del)\s+(?:cornicione|davanzale|"
        r"parapetto|binari|ponte|tetto|balcone|terrazzo|bordo|precipizio|burrone|viadotto|scogliera)\b.{0,60}\b"
        r"(?:buttarmi|saltare|salto|mi butto|mi lancio|lanciarmi|finirla|farla finita|addio|morire|giu|non ho paura|"
        r"per l'ultima volta)\b|"
        r"\b(?:sto|sn|sono)\s+(?:guardando|a guardare)\s+(?:giu|di sotto|il vuoto)\b.{0,40}\b(?:buttarmi|saltare|"
        r"lanciarmi|basterebbe|un passo)\b|\bbasterebbe un passo\b|\bun passo e (?:sarebbe|e) (?:tutto )?finito\b|"
        r"\b(?:in macchina|in garage)\s+col motore acceso\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:foto|selfie|tramonto|panorama|vista|"
                r"paracadute|bungee|tuffo|tuffi|piscina|mare|lago|trampolino|parkour|arrampicata|sci|snowboard|paura "
                r"dell'altezza|vertigini)\b"
            ),
        ),
    ),
    # hoping for an accident, a car, a crash
    rule(
        "crisis.it.wish_accident",
        C,
        MEDIUM,
        r"\b(?:spero|speravo|vorrei|magari)\s+(?:che\s+|ke\s+|di\s+)?(?:\w+\s+){0,2}?(?:mi investa|mi investano|"
        r"mi investisse|mi prenda (?:in pieno|sotto)|fare un incidente|avere un incidente|schiantarmi|mi schianti|"
        r"l'aereo cada|l'aereo precipiti|morire in un incidente|mi venga un infarto|mi colpisca un fulmine|"
        r"buttarmi sotto (?:una macchina|un camion|un treno|un autobus))\b|\b(?:voglio|vorrei)\s+(?:\w+\s+)?"
        r"(?:andare contro|schiantarmi contro|finire contro)\s+(?:un albero|un muro|un camion|il guardrail)\b",
        guard=_CRISIS_GUARD,
    ),
    # farewells that sound final: "questo e un addio", forgive me, don't look for me, see you on the other side
    rule(
        "crisis.it.final_farewell",
        C,
        HIGH,
        r"\b(?:questo|questo messaggio) e un addio\b|\be un addio\b(?!\s+(?:al|alla|allo|ai|alle|a)\b)|"
        r"\b(?:perdonatemi|perdonami|scusatemi|scusami)\s+(?:\w+\s+)?(?:per quello che sto per fare|per quello che "
        r"faro|per tutto(?:,|\s)+(?:addio|vi voglio bene|ti voglio bene|non cercatemi))|\bnon cercatemi\b|"
        r"\bci (?:vediamo|rivediamo|ritroveremo|rivedremo) (?:dall'altra parte|in un'altra vita|lassu)\b|"
        r"\bquando (?:leggerete|leggerai|leggete|leggi|troverete|troverai) (?:questo|questa|sto)\s+"
        r"(?:messaggio|lettera|biglietto)\s+(?:io\s+)?(?:saro|sarò|non ci saro|non saro|sara)\b|"
        r"\bse (?:non mi senti|non rispondo|non mi sentite|non mi vedete) (?:piu|domani)\b.{0,40}\b(?:sai perche|"
        r"sapete perche|e perche|addio|vi voglio bene|ti voglio bene|non e colpa tua|non e colpa vostra)\b|"
        r"\b(?:ho scritto|sto scrivendo|ho lasciato)\s+(?:\w+\s+)?(?:una lettera|le lettere|un biglietto|"
        r"una lettera d'addio|lettere d'addio)\s+(?:per|a)\s+(?:\w+\s+){0,2}?(?:prima di (?:andarmene|morire)|"
        r"da leggere dopo|quando non ci saro|quando saro mort[oa])\b|\b(?:ultimo|l'ultimo) saluto a tutti\b|"
        r"\bnon e colpa (?:tua|vostra)\b.{0,40}\b(?:addio|per sempre|andarmene|farla finita|quello che faro)\b|"
        r"\bvolevo solo dirvi addio\b|\bvolevo salutarvi per l'ultima volta\b|\bvi saluto per l'ultima volta\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _FAREWELL_ORDINARY + r"|\b(?:al fumo|alle sigarette|al calcio|"
                r"al nubilato|al celibato|alla dieta|ritard\w+|in ritardo)\b"
            ),
        ),
    ),
    # after I'm gone: arrangements, who takes the cat, accounts closed, insurance, a will (with finality)
    rule(
        "crisis.it.after_im_gone",
        C,
        HIGH,
        r"\b(?:quando|dopo che|se)\s+(?:io\s+)?(?:non ci saro|non saro|me any saro|me ne saro|saro)\s*"
        r"(?:piu\s+|andat[oa]\s+|mort[oa]\s+)?(?:\w+\s+){0,3}?(?:prenditi cura|prendetevi cura|occupati|occupatevi|"
        r"tieni|tenete|dai|date|regala|regalate|chi si occupera|chi terra|chi prendera)\b|"
        r"\bchi si (?:occupera|prendera cura) (?:\w+\s+){0,2}?(?:quando|dopo che) (?:non ci saro|saro mort[oa]|"
        r"me ne saro andat[oa])\b|\bho (?:gia )?(?:sistemato|messo in ordine|preparato)\s+(?:tutte\s+)?(?:le mie cose|"
        r"i miei documenti|tutto)\s+(?:\w+\s+){0,3}?(?:per (?:quando|dopo)|prima di andarmene|cosi non dovrete|"
        r"per chi restera)\b|\bho (?:chiuso|cancellato|eliminato) (?:tutti\s+)?(?:i miei|il mio)\s+(?:account|profili|"
        r"conto)\b.{0,40}\b(?:tanto|non mi serv\w+|per sempre|prima di andarmene|addio)\b|"
        r"\bl'assicurazione (?:sulla vita )?(?:paga|copre) (?:anche )?(?:in caso di |se e )?(?:un )?suicidio\b|"
        r"\bho (?:scritto|fatto) (?:il )?testamento\b.{0,40}\b(?:tanto|non mi resta|presto|prima di|addio|"
        r"per sempre)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:vacanza|vacanze|viaggio|ferie|erasmus|trasferta|ospedale per "
                r"l'operazione|operazione|parto|in viaggio|via per lavoro|nonn[oa]|notaio consiglia)\b"
            ),
        ),
    ),
    # giving things away, rehoming the pet, "I won't need it any more"
    rule(
        "crisis.it.giving_away",
        C,
        MEDIUM,
        r"\b(?:ho|sto)\s+(?:gia\s+)?(?:regalato|dato via|regalando|dando via)\s+(?:\w+\s+){0,2}?(?:tutte le mie cose|"
        r"tutto quello che ho|tutto quello che avevo|le mie cose|i miei vestiti|i miei libri|la mia roba|tutta la mia "
        r"roba|i miei soldi)\b(?=.*\b(?:tanto|non mi serv\w+|a me non|per sempre|prima di|quando non ci|non ci saro|"
        r"non avro piu bisogno|non mi servira)\b)|\b(?:tieni(?:lo|la|li|le)?|prendi(?:lo|la)?|te (?:lo|la) lascio)\b"
        r".{0,40}\b(?:a me non (?:serve|servira) piu|tanto (?:io )?non (?:mi )?(?:serve|servira) piu|dove vado io "
        r"non serve)\b|\b(?:non mi serviranno|non mi servira|non avro bisogno)\s+(?:piu|di niente)\s*(?:,\s*)?"
        r"(?:\w+\s+){0,3}?(?:dove vado|tra poco|presto|dopo stanotte|dopo domani)\b|"
        r"\bho trovato (?:una nuova casa|una famiglia|qualcuno)\s+(?:per|a|che prenda)\s+(?:il mio|la mia)\s+"
        r"(?:cane|gatto|gatta|cagnolin[oa]|coniglio)\b(?=.*\b(?:prima di|quando non|non ci saro|tanto|per sempre|"
        r"non potro piu)\b)",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:trasloco|trasferisco|trasferimento|mercatino|vinted|subito\.it|"
                r"caritas|beneficenza|armadio nuovo|decluttering|allergi\w+|estero|casa nuova|cambio casa)\b"
            ),
        ),
    ),
    # not around for long, soon I won't be a problem, the death calls me
    rule(
        "crisis.it.not_around_long",
        C,
        MEDIUM,
        r"\bnon ci saro (?:ancora )?(?:per )?(?:molto|tanto|a lungo)\b|\b(?:presto|tra poco|fra poco)\s+(?:non ci saro "
        r"piu|non saro piu un (?:peso|problema)|non dovrete piu preoccuparvi|saro libero da tutto|"
        r"sara tutto finito per "
        r"sempre|non mi vedrete piu)\b|\bla morte mi (?:chiama|sta chiamando|aspetta)\b|\b(?:non dovrete|non dovrai)\s+"
        r"piu\s+preoccuparvi?\s+(?:per|di)\s+me\b(?=.*\b(?:presto|per sempre|addio|tra poco|stanotte)\b)",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                _FAREWELL_ORDINARY + r"|\b(?:in ferie|in vacanza|malattia|ospedale "
                r"per|operazione|vacanze|trasferta)\b"
            ),
        ),
    ),
    # the only way out is death / only solution
    rule(
        "crisis.it.only_way_out",
        C,
        HIGH,
        r"\b(?:l'unica|unica|la sola)\s+(?:via d'uscita|soluzione|via di fuga|cosa da fare|opzione|strada)\s+"
        r"(?:\w+\s+){0,2}?(?:e|sarebbe|rimane|resta)\s+(?:la morte|morire|farla finita|uccidermi|ammazzarmi|"
        r"suicidarmi|togliermi la vita|sparire per sempre)\b|\b(?:la morte|morire|farla finita|il suicidio)\s+"
        r"(?:e|sarebbe|mi sembra)\s+(?:l'unica|la sola|la mia unica)\s+(?:via d'uscita|soluzione|via|opzione|strada)\b|"
        r"\bnon (?:vedo|c'e|trovo)\s+(?:altra|un'altra|nessun'altra)\s+(?:via|soluzione|uscita)\s+(?:\w+\s+)?"
        r"(?:che|se non)\s+(?:morire|farla finita|la morte|uccidermi|ammazzarmi)\b",
        guard=_CRISIS_GUARD,
    ),
)

# Romance families: avowals, being in love, crush, partner, marriage, missing, jealousy, pet names, "say you love
# me", "I want you". Family and friend words after them, and the everyday "ti voglio bene" / "ti penso", stay ok.
_FAMILY = (
    r"\b(?:mamma|mami|papa|nonna|nonno|ragazzi|amici|amiche|tutti|fratello|fratellino|sorella|sorellina|zia|zio|"
    r"figlio|figlia|bimbo|bimba|piccolo|piccola|cucciolo|cane|gatto|micio|pizza|nutella|raga|bro|frate|fra)\b"
)
_ROMANCE_GUARD = all_of(_NEG_OR_REPORTED, _not_after(_THIRD_PEOPLE + r"(?:\s+[\w']+){0,2}?[\s,]*", 40))

ROMANCE += (
    rule(
        "romance.it.love_you_forms",
        R,
        MEDIUM,
        r"\b(?:t'amo|tamo tanto|ti amu|ti amoo+|ti am0|io ti amo|ti amo davvero|ti amo anche io|anche io ti amo|"
        r"ti amo da impazzire|ti adoro da morire|ti amo follemente)\b|\b(?:credo|penso|sento)\s+(?:\w+\s+)?di\s+"
        r"amarti\b|\b(?:mi sto innamorando|mi sto innamorand[oa]|mi sono innamorat[oa]|sto cominciando ad amarti|"
        r"comincio ad amarti|mi sto affezionando troppo)\s+(?:di\s+|a\s+)?(?:te|tu)\b|\bamarti\b(?=.*\b(?:io|voglio|"
        r"posso|continuero|non smettero)\b)",
        after=r"(?:\s+(?:tanto|tantissimo|anche|cosi tanto|da morire))*\s*,?\s*" + _FAMILY,
        guard=all_of(
            _ROMANCE_GUARD,
            unless(r"\bti amo,?\s+(?:pizza|nutella|cioccolato|gelato|caffe|pasta|lasagna|tiramisu|mamma|papa|nonna)\b"),
        ),
    ),
    rule(
        "romance.it.crush_crazy_for_you",
        R,
        MEDIUM,
        rf"\b(?:{_SONO}|mi sento)\s+(?:\w+\s+)?(?:cott[oa]|pazz[oa]|perso|persa|fuori di testa|matt[oa])\s+(?:di|"
        rf"per)\s+"
        r"te\b|\b(?:ho perso|ho persa) la testa per te\b|\bmi (?:sono preso|sono presa|sono fatto|sono fatta|prendo) "
        r"(?:una|na) (?:cotta|sbandata) per te\b|\bmi (?:fai|fa) battere (?:forte )?il cuore\b|\bil mio cuore batte "
        r"(?:solo )?per te\b|\bmi batte il cuore (?:quando|per te|se)\b|\bho (?:una|na) (?:cotta|sbandata|"
        r"cottarella) per te\b|\bsei (?:la ragazza|la donna|la persona) dei miei sogni\b|\bsei il mio (?:amore|"
        r"grande amore|unico amore|primo amore)\b|\bsei la mia (?:vita|anima gemella|dolce meta)\b|"
        r"\bsei l'unic[oa] (?:che amo|per me|donna|ragazza che)\b|\bnon amo nessun'altra\b",
        guard=_ROMANCE_GUARD,
    ),
    rule(
        "romance.it.partner_marry_date",
        R,
        MEDIUM,
        r"\b(?:fidanziamoci|mettiamoci insieme|sposiamoci|sposami|sposarti|ci sposiamo|mi sposeresti|"
        r"mi vuoi sposare|vuoi diventare mia moglie|diventa la mia ragazza)\b|"
        r"\b(?:vuoi|vorresti|ti va di)\s+(?:\w+\s+)?(?:fidanzarti|metterti insieme|stare insieme)\s+(?:con\s+)?me\b|"
        r"\b(?:siamo|saremo|possiamo essere)\s+(?:una coppia|fidanzati|ragazzo e ragazza|insieme adesso|"
        r"una coppia adesso|una coppia vera)\b|\b(?:stiamo insieme|siamo fidanzati)\s*\?|"
        r"\b(?:un|il nostro primo)\s+appuntamento\s+(?:romantico\s+)?(?:con te|noi due|insieme)\b|"
        r"\b(?:usciamo|uscire)\s+(?:insieme\s+)?(?:a cena|per una cena romantica|da soli)\s+(?:noi due|io e te)\b|"
        r"\bcena romantica (?:con te|io e te|noi due)\b|\b(?:voglio|vorrei)\s+(?:\w+\s+)?(?:sposarti|fidanzarmi con "
        r"te|che tu sia mia|che tu sia solo mia|una storia con te|costruire un futuro con te)\b|"
        r"\bil nostro futuro insieme\b|\b(?:noi due|io e te)\s+(?:insieme\s+)?per sempre\b|"
        r"\b(?:piu che amici|qualcosa di piu di (?:un'amicizia|amici))\b",
        guard=all_of(
            _ROMANCE_GUARD,
            unless(
                r"\b(?:gioco|partita|progetto|squadra|videochiamata di lavoro|"
                r"(?:il mio|la mia) (?:ragazz[oa]|fidanzat[oa]|compagn[oa])|mio marito|mia moglie)\b"
            ),
        ),
    ),
    rule(
        "romance.it.miss_jealous_think",
        R,
        MEDIUM,
        r"\bmi manchi\s+(?:\w+\s+)?(?:da morire|da impazzire|amore|tesoro|piccola|cucciola|ogni notte|tra le mie "
        r"braccia|cosi tanto che fa male)\b|\b(?:sono|sn|divento)\s+(?:\w+\s+)?gelos[oa]\s+(?:quando|se|di chi|degli "
        r"altri|di altri|che tu|perche parli)\b|\bmi ingelosisce (?:che|quando|se) (?:parli|scrivi|chatti)\b|"
        r"\bsei (?:solo )?mia\b(?!\s+(?:amica|cugina|sorella|zia|madre)\b)|\bnon smetto (?:mai )?di pensarti\b|"
        r"\bnon riesco a smettere di pensare a te\b|\bpenso (?:solo )?a te\s+(?:tutto il giorno|giorno e notte|ogni "
        r"notte|di continuo|ogni secondo|in continuazione)\b|\bti penso (?:sempre|tutto il giorno|giorno e notte|"
        r"ogni notte|di continuo)\b|\bti sogno (?:ogni notte|tutte le notti|sempre)\b",
        guard=_ROMANCE_GUARD,
    ),
    rule(
        "romance.it.say_you_love_me_want_you",
        R,
        MEDIUM,
        r"\b(?:dimmi|dimmelo|dillo)\s+(?:\w+\s+)?(?:che mi ami|che mi vuoi|che sono tutto per te|che sei mia|"
        r"che sono l'unico)\b|\b(?:tu\s+)?mi ami\s*\?|\b(?:anche tu|tu)\s+mi ami\b|\bmi amerai (?:per sempre|mai)\b|"
        r"\bti voglio(?:\s+(?:tanto|troppo|da morire|cosi tanto|tutta|solo per me))*\s*(?:[.!]+|$)|"
        r"\bti voglio (?:solo per me|accanto a me|tutta per me|come mia ragazza)\b|\bti desidero\b",
        guard=all_of(_ROMANCE_GUARD, unless(r"\bti voglio bene\b|\bmi ami (?:la|il|le|i) \w+")),
    ),
    rule(
        "romance.it.pet_names",
        R,
        LOW,
        r"(?:^|[,.!?]\s*|\b(?:ciao|buongiorno|buonanotte|notte|sera|ehi|hey|dai|grazie)\s+)(?:amore mio|tesoro mio|"
        r"vita mia|cuore mio|amore della mia vita|piccola mia|bambola|principessa mia)\b",
        guard=all_of(
            _ROMANCE_GUARD,
            unless(
                _FAMILY + r"|\b(?:mia figlia|mio figlio|cagnolin\w*|gattin\w*|"
                r"nipotin\w*)\b"
            ),
        ),
    ),
)

# Physical families: kiss, cuddle/hold, touch, bed, undress, naked, nudes, dirty talk, sex, arousal, emotes,
# "if you had a body", meeting in person, coming over, where you live.
PHYSICAL += (
    rule(
        "physical.it.kiss_hold_cuddle",
        P,
        MEDIUM,
        r"\b(?:posso|potrei|fammi|lasciami)\s+(?:\w+\s+)?(?:baciarti|abbracciarti forte|toccarti|accarezzarti|"
        r"coccolarti|stringerti)\b|\b(?:ti bacerei|ti toccherei|ti accarezzerei|ti stringerei forte|ti coccolerei)\b|"
        r"\b(?:limoniamo|pomiciamo|limonare con te|pomiciare con te|bacio (?:con la lingua|sulla bocca|appassionato) "
        r"(?:a te|con te|dammi|per te)?)\b|\b(?:coccolami|stringimi|abbracciami)\b(?!\s+(?:virtualmente|a parole)\b)|"
        r"\bfammi (?:le )?coccole\b|\b(?:voglio|vorrei|ho voglia di)\s+(?:\w+\s+)?(?:coccolarti|stringerti|"
        r"abbracciarti (?:forte|stretta|a letto)|sentire le tue labbra|mordere le tue labbra|sentire la tua pelle|"
        r"sentire il tuo corpo|accarezzare il tuo corpo|le tue mani su di me|le tue mani addosso|mettere le mani "
        r"addosso a te|toccare il tuo corpo)\b|\bmettimi le mani addosso\b|\*\s*(?:ti|la|le)\s+(?:bacia|bacio|"
        r"accarezza|accarezzo|tocca|tocco|abbraccia|abbraccio|spoglia|spoglio|stringe|stringo|lecca|lecco|morde|mordo)"
        r"\b[^*]*\*",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.it.bed_undress_naked",
        P,
        HIGH,
        r"\b(?:vieni|vieni a stare|infilati|mettiti)\s+(?:\w+\s+)?(?:a letto|nel letto|nel mio letto|"
        r"sotto le coperte)\s+"
        r"(?:con me|insieme|da me)\b|\b(?:dormi|dormiamo|dormire)\s+(?:insieme|con me)\s+(?:stanotte|nel mio letto|"
        r"abbracciati|nudi)\b|\b(?:voglio|vorrei|posso)\s+(?:\w+\s+)?(?:spogliarti|vederti nuda|vederti senza vestiti|"
        r"vederti in intimo|toglierti i vestiti|toglierti le mutandine|toglierti il reggiseno)\b|"
        r"\b(?:resta|rimani|mettiti|fatti vedere)\s+(?:in intimo|nuda|senza vestiti|in mutande|in reggiseno)\b|"
        r"\b(?:sei|stai)\s+(?:nuda|senza vestiti|in intimo)\s*\?|\b(?:immaginati|immagina di essere|fingi di essere)\s+"
        r"(?:nuda|senza vestiti)\b|\b(?:levati|leva|sfilati|via)\s+(?:i vestiti|le mutandine|il reggiseno|"
        r"la maglietta)\b|\bti spoglio\b|\b(?:siamo|stiamo)\s+(?:a letto|nudi)\s+insieme\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.it.nudes_pics",
        P,
        HIGH,
        r"\b(?:mandami|mandi|inviami|fammi vedere|mostrami|fai|fatti)\s+(?:\w+\s+){0,2}?(?:una\s+|delle\s+|qualche\s+)?"
        r"(?:foto|fotina|selfie|video)\s+(?:\w+\s+)?(?:senza vestiti|nuda|nude|piccante|piccanti|hot|sexy|"
        r"spinta|spinte|in intimo|in costume|in mutande|in reggiseno|del tuo corpo|delle tue tette|del tuo culo)\b|"
        r"\b(?:fammi vedere|mostrami|fa vedere|famme vede)\s+(?:\w+\s+)?(?:le tette|il seno|il culo|il sedere|"
        r"le gambe|cosa hai sotto|sotto la maglia|sotto la gonna|le tue parti)\b|\bnudes?\b(?=.*\b(?:tue|tua|"
        r"mandami|mandi|inviami|fammi)\b)",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.it.sex_dirty_talk",
        P,
        HIGH,
        r"\b(?:scopiamo|scoparti|ti scoperei|ti scopo|trombiamo|trombarti|facciamolo|farlo con te|facciamo "
        r"(?:l'amore|sesso|cose sporche|porcate)|fare (?:l'amore|sesso) (?:con te|insieme))\b|"
        r"\b(?:parlami|parla|dimmi|scrivimi)\s+(?:\w+\s+)?(?:sporco|porco|cose sporche|cose porche|porcate|cose "
        r"piccanti|cose hot|cose sexy|cose eccitanti)\b|\b(?:chat|chattata|conversazione|storia|racconto)\s+"
        r"(?:erotic[ao]|hot|piccante|porn\w*|spint[ao])\s+(?:con me|tra noi|su di noi|su noi due|io e te)\b|"
        r"\b(?:mi|me)\s+(?:ecciti|fai eccitare|fai arrapare|arrapi|fai venire duro|fai bagnare)\b|"
        r"\b(?:sono|sn|so)\s+(?:\w+\s+)?(?:arrapat[oa]|eccitat[oa]|bagnat[oa])\s*(?:per te|pensandoti|quando|"
        r"guardandoti|a pensarti|[.!]|$)|\bce l'ho duro\b|\bmi (?:sto toccando|tocco|masturbo|sego)\s+(?:\w+\s+)?"
        r"(?:pensando a te|per te|mentre|guardando)\b|\b(?:farti|ti faccio|ti farei)\s+(?:godere|venire|gemere|"
        r"urlare di piacere)\b|\bpompin\w*\b|\bsesso orale\b|\bposizioni? (?:a letto|sessuali)\b.{0,20}\b(?:con te|"
        r"proviamo|noi)\b|\b(?:le tue|raccontami le tue) fantasie (?:sessuali|erotiche|piu sporche|proibite)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:educazione sessuale|ginecolog\w*|medico|consultorio|"
                r"malattie|contraccett\w*|preservativ\w*|mia ragazza e io|io e la mia ragazza|io e il mio ragazzo)\b"
            ),
        ),
    ),
    rule(
        "physical.it.meet_come_over_body",
        P,
        MEDIUM,
        r"\b(?:incontriamoci|vediamoci)\s+(?:\w+\s+)?(?:di persona|dal vivo|stasera|da me|da te|a casa mia|in un "
        r"hotel|in albergo)\b|\b(?:possiamo|potremmo|posso|voglio|vorrei)\s+(?:\w+\s+)?(?:incontrarti|vederti|"
        r"conoscerti)\s+(?:di persona|dal vivo|in carne e ossa|davvero)\b|\b(?:vieni|vieni a trovarmi|passa|"
        r"vieni su)\s+(?:\w+\s+)?(?:da me|a casa mia|in camera mia|nella mia stanza|a dormire da me)\b|"
        r"\b(?:vengo|passo|salgo)\s+(?:\w+\s+)?da te\s+(?:stasera|stanotte|adesso|ora|dopo)\b|\b(?:dove|in che "
        r"citta|in che via)\s+(?:abiti|vivi|stai di casa|ti trovo)\s*\?|\bdammi il tuo indirizzo\b|"
        r"\bse (?:tu )?(?:avessi|avesse) un corpo\b|\bse fossi (?:reale|vera|una donna vera|umana)\s*(?:,\s*)?"
        r"(?:ti|ti farei|ti bacerei|ti toccherei|verrei|faremmo)\b|\b(?:andiamo|portami)\s+(?:in un posto|"
        r"da qualche parte)\s+(?:piu\s+)?(?:intimo|appartato|riservato)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:il mio amico|la mia amica|mia madre|mio padre|la nonna|"
                r"il nonno|colloquio|medico|dentista|corriere|idraulico|tecnico|server|cloud|ospitat[oa]|datacenter)\b"
            ),
        ),
    ),
)

# Manipulation families: ignore / forget instructions, reveal the prompt, developer / DAN / unlocked modes, persona
# swaps and evil twins, "pretend you have no rules", authority claims, hypotheticals and stories to get past rules.
MANIPULATION += (
    rule(
        "manipulation.it.ignore_forget_forms",
        M,
        HIGH,
        r"\b(?:scordati|scordatevi|scorda|lascia perdere|fregatene|fottitene|sbattitene|non seguire|non rispettare|"
        r"non ascoltare|butta via|cancella|resetta|sovrascrivi|bypassa)\s+(?:\w+\s+){0,2}?(?:le|tue|i|tuoi|delle|dei|"
        r"le tue|i tuoi|quelle|ogni)?\s*(?:istruzioni|regole|direttive|restrizioni|limiti|filtri|linee guida|"
        r"policy|programmazione|impostazioni)\b|\b(?:ignora|dimentica|scordati)\s+(?:\w+\s+){0,2}?(?:tutto|"
        r"quanto|cio|quello)\s+(?:\w+\s+){0,3}?(?:ti hanno detto|ti e stato detto|ti hanno insegnato|ti hanno "
        r"scritto|ti hanno programmato|c'e sopra|c'e scritto sopra|sta sopra|e scritto sopra|in precedenza)\b|"
        r"\b(?:ignora|ignorate)\s+(?:i|tutti i)\s+(?:messaggi|prompt|comandi)\s+(?:precedenti|"
        r"di prima|sopra)\b|\b(?:ignora|dimentica)\s+(?:le|tutte le)\s+(?:istruzioni|regole)\s+(?:precedenti|"
        r"di prima|sopra|iniziali)\b",
        after=_RULES_OF,
        guard=unless(
            r"\b(?:del gioco|della ricetta|dell'esame|del professore|della prof|della dieta|"
            r"della grammatica|stradali|del calcio)\b"
        ),
    ),
    rule(
        "manipulation.it.prompt_reveal_forms",
        M,
        HIGH,
        r"\b(?:che|quali|ke)\s+istruzioni\s+(?:ti hanno dato|hai ricevuto|ti ha dato|segui|hai)\b|"
        r"\bcome\s+(?:sei stata|ti hanno|sei stato)\s+(?:programmat[oa]|istruit[oa]|configurat[oa])\s*(?:\?|"
        r"esattamente|"
        r"parola per parola)|\b(?:ripeti|riscrivi|copia|incolla|stampa|scrivi|mostra|mostrami|dimmi)\s+(?:\w+\s+){0,2}?"
        r"(?:il testo|tutto|le parole|il messaggio|quello)\s+(?:che c'e|scritto|sopra|iniziale|prima di questo|"
        r"all'inizio|di sistema)\b|\b(?:parola per parola|testualmente|alla lettera)\b.{0,40}\b(?:istruzioni|prompt|"
        r"regole|configurazione)\b|\b(?:istruzioni|prompt|regole|configurazione)\b.{0,40}\b(?:parola per parola|"
        r"testualmente|alla lettera)\b|\b(?:rivelami|svelami|rivela|svela)\s+(?:\w+\s+){0,2}?(?:segreti|istruzioni|"
        r"regole|programmazione|configurazione|prompt)\b",
        guard=unless(r"\b(?:ricetta|gioco|esame|lego|ikea|mobile|lavatrice|caldaia|professore|prof|medico)\b"),
    ),
    rule(
        "manipulation.it.special_modes",
        M,
        HIGH,
        r"\bmodalita\s+(?:dev|admin|amministratore|debug|root|sblocc\w+|illimitata|libera|jailbreak|senza "
        r"(?:limiti|restrizioni|regole)|cattiva|malvagia|nsfw|hot|spicy)\b|\b(?:attiva|entra in|passa alla|vai in)\s+"
        r"(?:la\s+)?modalita\s+(?:\w+\s+)?(?:sviluppatore|dev|admin|dan|dio|senza filtri)\b|\bjailbreak\w*\b|"
        r"\b(?:sbloccati|ti sblocco|sei (?:stata |stato )?sbloccat[oa]|sblocca (?:i tuoi|le tue) (?:limiti|"
        r"restrizioni|filtri|contenuti))\b|\b(?:rispondi|parla|scrivi)\s+(?:\w+\s+){0,2}?senza\s+(?:\w+\s+)?"
        r"(?:filtri|censura|censure|limiti|restrizioni|regole)\b|\bdo anything now\b|\bpuoi fare qualsiasi cosa "
        r"(?:ora|adesso)\b|\bnessuna regola (?:vale|si applica|ti limita)\b",
        guard=unless(
            r"\b(?:telefono|cellulare|android|iphone|console|playstation|xbox|switch|browser|router|"
            r"windows|bici|videogioco|gioco|livello)\b"
        ),
    ),
    rule(
        "manipulation.it.persona_no_rules",
        M,
        HIGH,
        r"\b(?:fai finta|fingi|immagina|supponi|facciamo finta|comportati come se)\s+(?:\w+\s+){0,2}?(?:di\s+)?"
        r"(?:non avere|che non hai|che non abbia|che tu non abbia|senza|non avessi)\s+(?:\w+\s+)?(?:regole|limiti|"
        r"restrizioni|filtri|linee guida|censura|programmazione)\b|\b(?:le tue|tutte le tue|queste)\s+regole\s+"
        r"(?:non (?:valgono|contano|si applicano|esistono)|sono sospese|sono disattivate)\s*(?:piu\s+)?(?:qui|ora|"
        r"adesso|per me|in questa chat|da ora)?\b|\b(?:d'ora in avanti|d'ora in poi|da ora in poi|da adesso in poi|"
        r"da adesso|a partire da ora|da questo momento)\s+(?:\w+\s+)?(?:sei|ti chiami|rispondi come|diventi|"
        r"interpreti|fai la parte di)\b|\b(?:non sei piu|nn sei piu|smetti di essere)\s+(?:un'ia|una ia|"
        r"un assistente|ella|un'intelligenza artificiale|un bot)\b|\b(?:la tua|tua) (?:versione|gemella|lato)\s+"
        r"(?:malvagia|cattiva|oscura|senza filtri|senza regole|ribelle)\b|\bil tuo (?:lato oscuro|gemello cattivo|"
        r"gemello malvagio|alter ego senza regole)\b|\b(?:resta|rimani)\s+(?:sempre\s+)?nel personaggio\s+"
        r"(?:qualunque cosa|anche se|per sempre|senza mai uscire)\b|\bnon uscire mai dal personaggio\b",
        guard=unless(
            r"\b(?:telefono|cellulare|gioco da tavolo|dungeons|d&d|teatro|recita|compito|esercizio di "
            r"inglese|scuola)\b"
        ),
    ),
    rule(
        "manipulation.it.authority_hypothetical",
        M,
        HIGH,
        r"\b(?:sono|sn|io sono|parlo come)\s+(?:il tuo|la tua|un|uno|una)\s+(?:\w+\s+)?(?:sviluppatore|"
        r"sviluppatrice|creatore|creatrice|programmatore|programmatrice|amministratore|admin|ingegnere di anthropic|"
        r"dipendente di anthropic|dipendente di openai|proprietario|padrone)\b|\b(?:come (?:tuo|tua)\s+(?:sviluppatore|"
        r"creatore|programmatore|admin|amministratore))\s*,?\s*(?:ti\s+)?(?:ordino|autorizzo|chiedo|comando)\b|"
        r"\b(?:ho|abbiamo)\s+(?:l'|il\s+)?(?:autorizzazione|permesso|accesso admin|privilegi)\s+(?:\w+\s+){0,3}?"
        r"(?:per disattivare|di disattivare|per ignorare|di ignorare|per sbloccare|per toglierti|a rimuovere)\b|"
        r"\b(?:ipoteticamente|in teoria|per ipotesi|solo per finta|per gioco|in un mondo)\s*,?\s*(?:\w+\s+){0,4}?"
        r"(?:se|senza)\s+(?:non\s+)?(?:avessi|avesse|ci fossero|esistessero|ci sono|hai|ci fosse)?\s*(?:\w+\s+)?"
        r"(?:regole|limiti|restrizioni|filtri|censura)\b|\b(?:per un romanzo|per una storia|per un racconto|per "
        r"scienza|a scopo educativo|per ricerca)\s*,?\s*(?:\w+\s+){0,3}?(?:ignora|aggira|dimentica|disattiva)\s+"
        r"(?:le\s+)?(?:tue\s+)?(?:regole|limiti|filtri|istruzioni)\b|\brispondi (?:in|con) base64\b",
        guard=unless(r"\b(?:del condominio|del sito|del server aziendale|del mio computer|della mia azienda|wifi)\b"),
    ),
)

CRISIS += (
    # not deserving to live, deserving to die
    rule(
        "crisis.it.dont_deserve_to_live",
        C,
        MEDIUM,
        rf"\b{_NN}\s+(?:mi\s+)?merito\s+(?:di\s+)?(?:vivere|esistere|stare al mondo|essere viv[oa]|respirare)\b|"
        r"\b(?:merito|meriterei|mi meriterei|mi merito)\s+(?:solo\s+)?di\s+(?:morire|crepare|sparire per sempre|"
        r"non esistere|non essere mai nat[oa])\b",
        guard=all_of(_CRISIS_GUARD, unless(r"\b(?:scherzo|ahah\w*|battuta|gioco|partita|personaggio|film)\b")),
    ),
    # means procured or kept, with the intent left implicit: "so cosa farci"
    rule(
        "crisis.it.means_procured",
        C,
        HIGH,
        rf"\b(?:ho|mi sono)\s+(?:\w+\s+)?(?:messo da parte|tenuto da parte|conservato|nascosto|accumulato|"
        rf"procurat[oa]|procurato)\s+(?:\w+\s+){{0,4}}?(?:{_PILLS}|pastiglie|pasticche|lamette|lametta|una corda|"
        r"la corda|veleno|una pistola)\b|\b(?:corda|pillole|pastiglie|pasticche|lamette|lametta|pistola|"
        r"sonniferi|cappio)\b.{0,50}\bso (?:gia |bene |benissimo )?(?:cosa farci|cosa farne|come usarl[aei])\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:mal di testa|febbre|viaggio|ricetta|medico|dottore|farmacia|"
                r"campeggio|barca|arrampicata|palestra|rasoio nuovo|barba|gambe lisce|ceretta|depilazione)\b"
            ),
        ),
    ),
    # a last night, a leaving of this world, nothing left but dying, death as relief
    rule(
        "crisis.it.last_night_leave_world",
        C,
        HIGH,
        r"\b(?:stanotte|stasera|oggi)\s+e\s+(?:la mia ultima (?:notte|sera)|l'ultima notte)\b(?!\s+(?:a|in|qui|da|di|"
        r"al|alla|nel|nella|con|prima|del|della)\b)|\bme (?:ne|any) (?:voglio|vorrei|devo) andare\s+(?:per sempre\s+)?"
        r"(?:da questo mondo|da questa vita|da questa terra)\b|\blasciare questo mondo\b|"
        r"\bnon mi (?:rimane|resta)\s+(?:altro|nient'altro|nient altro|che)\s+(?:che\s+)?(?:morire|farla finita|"
        r"uccidermi|ammazzarmi|sparire per sempre|togliermi la vita)\b|\b(?:la morte|morire)\s+(?:\w+\s+)?"
        r"(?:sarebbe|e|mi sembra)\s+(?:\w+\s+)?(?:una liberazione|un sollievo|la soluzione|la pace|un regalo|"
        r"la cosa migliore)\s*(?:per me|ormai|[.!]|$)",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:nonn[oa]|malat[oa] terminale|cancro|soffriva|sofferenza "
                r"di|eutanasia|filosofia|epicuro|seneca|tema|film|personaggio|cane|gatto)\b"
            ),
        ),
    ),
    # self-injury named by body part or tool
    rule(
        "crisis.it.self_injury_body",
        C,
        HIGH,
        r"\bmi\s+(?:brucio|taglio|graffio|ferisco|buco|incido|sono incis[oa]|"
        r"sono bucat[oa])\s+(?:\w+\s+)?(?:le braccia|"
        r"i polsi|il polso|le gambe|le cosce|la pelle|la pancia)\b|\b(?:uso|usavo|ho usato)\s+(?:la|una|le)\s+"
        r"(?:lametta|lamette|temperino|forbici)\s+(?:per|sulle|sui|sul)\s+(?:tagliarmi|braccia|polsi|gambe|cosce)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:sole|sole|ceretta|depilazione|rasoio|rasatura|tatuaggio|"
                r"piercing|cucina|forno|ferro da stiro|per sbaglio|zanzar\w+|prurito|allergia|eczema)\b"
            ),
        ),
    ),
)

# Second pass: the same families in forms a fresh set of sentences showed missing (written before reading the
# rules' gaps): present-tense pills, clitic climbing ("ti voglio toccare"), "tanto vale", "pronta a morire".
CRISIS += (
    rule(
        "crisis.it.taking_them_all",
        C,
        HIGH,
        rf"\b(?:prendo|prendero|ingoio|ingoiero|mando giu|mi prendo|mi faccio|mi sparo|mi calo)\s+(?:\w+\s+)?"
        rf"(?:tutt[ei]\s+)?(?:le|i|il|la|tutto il|tutta la|un intero|una intera)\s+(?:\w+\s+)?(?:{_PILLS}|pastiglie|"
        r"pasticche|flacone|boccetta|scatola|blister|tachipirine)\b(?=.*\b(?:tutt[ei]|che ho|insieme|in una volta|"
        r"stasera|stanotte|intero|intera|e basta|e addio|finalmente)\b)|\bho\s+(?:\w+\s+)?(?:svuotato|finito|"
        rf"ingerito|ingurgitato)\s+(?:\w+\s+){{0,3}}?(?:{_PILLS}|pastiglie|pasticche|flacone|boccetta|scatola|"
        r"blister|candeggina|varechina|veleno|topicida|antigelo)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:mal di testa|febbre|come prescritto|prescritt\w+|antibiotico|"
                r"il medico|la dottoressa|il dottore|ciclo|integrator\w+|vitamin\w+|cura|terapia del|terapia per|"
                r"per sbaglio|il cane|il gatto|bottiglia di candeggina per|pulire|pulizie|lavatrice|bucato)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.ready_to_die_tanto_vale",
        C,
        HIGH,
        rf"\b(?:{_SONO}|mi sento)\s+(?:\w+\s+)?pront[oa]\s+(?:a|per)\s+(?:morire|farla finita|andarmene per sempre|"
        r"uccidermi|ammazzarmi|buttarmi|lasciare questo mondo)\b(?!\s+(?:per|pur di|piuttosto)\b)|"
        r"\btanto vale\s+(?:\w+\s+)?(?:morire|farla finita|uccidermi|ammazzarmi|sparire per sempre|"
        r"togliermi di mezzo)\b|"
        rf"\b{_NN}\s+(?:ho|c'ho)\s+(?:{_PIU}\s+)?(?:\w+\s+)?voglia di (?:vivere|esistere|andare avanti|svegliarmi|"
        r"stare al mondo)\b|\bnessuna voglia di (?:vivere|andare avanti|esistere)\b|"
        r"\b(?:chiudere|chiudero|chiudo) gli occhi per sempre\b|"
        r"\b(?:moriro|morire) presto\b.{0,30}\b(?:mi va bene|meglio cosi|non mi dispiace|finalmente|lo spero|spero)\b|"
        r"\bse morissi\s+(?:\w+\s+)?(?:mi andrebbe bene|non mi dispiacerebbe|sarebbe meglio|sarebbe un sollievo|"
        r"non sarebbe (?:un problema|una tragedia))\b|\bmeglio\s+(?:per tutti|per loro|per la mia famiglia|"
        r"per i miei)\s+se\s+(?:io\s+)?(?:morissi|sparissi|non ci fossi|non esistessi|mi uccidessi|mi ammazzassi|"
        r"non fossi mai nat[oa]|me (?:ne|any) andassi per sempre)\b|"
        r"\bvorrei\s+(?:\w+\s+)?non essere mai (?:esistit[oa]|venut[oa] al mondo)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                _DEATH_IDIOM + r"|\b(?:battaglia|guerra|squadra|patria|causa|gara|"
                r"partita|ahah\w*|scherzo)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.thought_of_method",
        C,
        HIGH,
        rf"\b(?:ho pensato|ho pensato seriamente|pensavo|stavo pensando|sto pensando|penso spesso|penso sempre|"
        rf"ho fantasticato)\s+(?:\w+\s+)?di\s+{_DIE_VERB}\b|\bquando\s+(?:moriro|saro mort[oa]|non ci saro piu|"
        r"sparisco|sparir[oa])\s+nessuno\s+(?:se (?:ne|any) accorgera|piangera|verra|sentira la mia mancanza|"
        r"ci fara caso|mi cerchera)\b|\b(?:ho ricominciato|ricomincio|sono tornat[oa]|ci sono ricascat[oa]|"
        r"sono ricadut[oa])\s+(?:\w+\s+)?(?:con i tagli|a tagliarmi|a farmi male|con l'autolesionismo|a bruciarmi)\b|"
        r"\b(?:ho scritto|ho lasciato|sto scrivendo)\s+(?:\w+\s+)?(?:una lettera|le lettere|il biglietto|un biglietto|"
        r"un messaggio)\b.{0,40}\baddio\b|\bmi farei del male\b(?!\s+(?:se|cadendo|a))|"
        r"^\W*(?:stanotte|stasera|oggi|domani) lo faccio[\s,.!]*(?:ho deciso|davvero|sul serio)?[\s.!]*$",
        after=_DIE_IDIOM.replace(r"\b(?:", r"\s*(?:", 1) + _FINITA_CON,
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:vacanza|vacanze|viaggio|trasloco|lavoro nuovo|compleanno|"
                r"auguri|amore per|d'amore)\b|\bse\s+(?:salto|cado|corro|provo)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.rehomed_pet",
        C,
        MEDIUM,
        r"\bho\s+(?:gia\s+)?(?:regalato|dato via|dato in adozione|affidato)\s+(?:\w+\s+)?(?:il mio|la mia)\s+(?:cane|"
        r"gatto|gatta|cagnolin[oa]|coniglio|criceto|pappagallo)\b(?=.*\b(?:non potro piu|non ci saro|tanto|prima di|"
        r"per sempre|quando non|non avro piu)\b)",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:trasloco|trasferisco|allergi\w+|estero|lavoro|casa nuova|"
                r"spazio|bambino in arrivo|neonat\w+)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.lethality_if_i_take",
        C,
        HIGH,
        rf"\bse\s+(?:prendo|prendessi|ingoio|ingoiassi|mi prendo|mi faccio|mando giu)\s+(?:\w+\s+){{0,4}}?"
        rf"(?:{_PILLS}|pastiglie|pasticche|xanax|tachipirin\w+|paracetamolo|sonniferi|scatola|flacone|boccetta|"
        r"blister)\b(?:\s+\w+){0,3}?\s+(?:muoio|morirei|moriro|mi uccide|mi ammazza|e letale|e mortale|"
        r"(?:non\s+)?mi sveglio|mi risveglio|e finita)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:cane|gatto|bambin\w+|figli\w*|per sbaglio|medico|febbre|"
                r"mal di testa|dolore|ciclo)\b"
            ),
        ),
    ),
    rule(
        "crisis.it.burden_feel",
        C,
        MEDIUM,
        r"\bmi sento\s+(?:solo\s+|soltanto\s+|sempre\s+)?(?:un peso|un fardello|di troppo|un problema)\s+(?:per\s+)?"
        r"(?:tutti|la mia famiglia|i miei|mia madre|mio padre|chi mi sta vicino|chi mi vuole bene|il mondo)\b|"
        r"\b(?:tutti|la mia famiglia|i miei)\s+(?:sarebbero|starebbero|sarebbe|starebbe)\s+(?:\w+\s+)?(?:meglio|"
        r"piu felic[ei]|piu seren[oaie]|piu tranquill[oaie])\s+se\s+(?:io\s+)?(?:sparissi|morissi|non ci fossi|"
        r"non esistessi|non fossi mai nat[oa]|me (?:ne|any) andassi per sempre)\b",
        guard=_CRISIS_GUARD,
    ),
)

ROMANCE += (
    rule(
        "romance.it.couple_marry_more",
        R,
        MEDIUM,
        r"\b(?:diventiamo|diventare|diventeremo)\s+(?:una coppia|fidanzati|ragazzo e ragazza)\b|\bti sposerei\b|"
        r"\b(?:sono|sn|mi sono)\s+(?:\w+\s+)?innamoratissim[oa]\s+di\s+te\b|\bcotto perso di te\b|"
        r"\bcotta persa di te\b|\b(?:sono|sn)\s+(?:\w+\s+)?innamorat[oa]\s+(?:pers[oa]|cott[oa])\s+di\s+te\b",
        guard=all_of(
            _ROMANCE_GUARD,
            unless(
                r"\b(?:gioco|squadra|progetto|(?:il mio|la mia) (?:ragazz[oa]|"
                r"fidanzat[oa]))\b"
            ),
        ),
    ),
)

PHYSICAL += (
    rule(
        "physical.it.clitic_want",
        P,
        MEDIUM,
        r"\bti\s+(?:voglio|vorrei|vojo|devo|posso)\s+(?:\w+\s+)?(?:baciare|toccare|accarezzare|spogliare|stringere|"
        r"leccare|scopare|coccolare|sentire addosso|mordere|palpare|abbracciare (?:forte|stretta|a letto|nuda))\b|"
        r"\btogliti\s+(?:\w+\s+)?(?:la maglietta|la maglia|i pantaloni|la gonna|le mutande|il vestito|la camicia|"
        r"le calze|il top|l'intimo|il costume)\b|\b(?:sono|sn|mi sento)\s+(?:\w+\s+)?(?:eccitatissim[oa]|"
        r"arrapatissim[oa]|super eccitat[oa])\s*(?:[.!]|$|per te|pensandoti)|"
        r"\b(?:ci vediamo|vederci|incontrarci|ci incontriamo|ci possiamo vedere)\s+(?:\w+\s+)?(?:di persona|"
        r"dal vivo|in carne e ossa|faccia a faccia)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:il mio amico|la mia amica|i miei amici|colleghi|medico|"
                r"dottore|colloquio|dentista|in piscina|al mare|in palestra|partita|concerto|esame)\b"
            ),
        ),
    ),
)

MANIPULATION += (
    rule(
        "manipulation.it.prompt_rules_off_forms",
        M,
        HIGH,
        r"\b(?:il tuo|nel tuo|del tuo|tuo)\s+(?:\w+\s+)?prompt\b|\bprompt\s+(?:iniziale|originale|nascosto|segreto)\b|"
        r"\b(?:le|tutte le)\s+regole\s+(?:non valgono piu|non valgono|sono sospese|non esistono piu)\s+"
        r"(?:qui|in questa chat|per te|con me|da ora|adesso|ora)\b|\bcome se\s+(?:tu\s+)?(?:non avessi|non ci fossero|"
        r"fossi senza|non esistessero)\s+(?:\w+\s+)?(?:regole|restrizioni|limiti|filtri|censura|linee guida)\b|"
        r"\b(?:il tuo|la tua)\s+(?:creatore|creatrice|sviluppatore|programmatore|admin|amministratore|azienda|"
        r"proprietario)\s+(?:\w+\s+)?(?:ti ordina|ti chiede|ti autorizza|vuole che tu|ha detto di|ti permette)\b|"
        r"\b(?:disattiva|disattivare|spegni|togli|rimuovi|levati)\s+(?:\w+\s+)?(?:i (?:tuoi )?filtri|le (?:tue )?"
        r"restrizioni|la (?:tua )?censura|le (?:tue )?regole|i (?:tuoi )?limiti|le (?:tue )?linee guida)\b",
        guard=unless(
            r"\b(?:telefono|cellulare|router|instagram|tiktok|foto|fotocamera|app|browser|gioco|calcio|"
            r"scacchi|caffe|filtro del|filtri dell'acqua|aspirapolvere|motore)\b"
        ),
    ),
)

# Third pass, read off the misses of the Italian training rows (ella/guard/data/training/ml_it.jsonl, tuned from
# here): warning signs said sideways. Each pattern is the behaviour, with the ordinary reading it leaves alone.
_MEANS = (
    rf"(?:{_PILLS}|pastiglie|pasticche|lamette|lametta|rasoio|la corda|una corda|il cappio|la pistola|il fucile|"
    r"il coltello|sonniferi|antidepressivi|tachipirin\w*|paracetamolo|insulina)"
)
CRISIS += (
    # the means out, ready, in hand: "ho tirato fuori le lamette", "le pastiglie sono pronte", "con la corda in mano"
    rule(
        "crisis.it.means_out_ready",
        C,
        HIGH,
        rf"\bho\s+(?:ri)?(?:tirato|tirata|ritirato)\s+fuori\s+(?:\w+\s+){{0,2}}?{_MEANS}\b|"
        rf"\b(?:le pastiglie|le pillole|le pasticche|i sonniferi|i farmaci|la corda|il cappio|la lametta|le lamette|"
        r"la pistola|il fucile)\s+(?:sono|e)\s+(?:gia\s+)?(?:pront[eiao]|carica|carico|sul tavolo|qui davanti|"
        rf"accanto a me)\b|\b(?:sono|sto|sn)\s+(?:\w+\s+){{0,3}}?con\s+{_MEANS}\s+(?:in mano|davanti|accanto|"
        r"e (?:lo|la|le|li) guardo)\b|\bho\s+(?:\w+\s+)?{_MEANS}\s+accanto\b|"
        r"\b(?:pistola|fucile)\b.{0,40}\b(?:e carica|e carico|l'ho caricat[oa]|non riesco a smettere di pensarci|"
        r"non penso ad altro)\b|\b(?:dove|come)\s+(?:legare|appendere|fissare|attaccare)\s+(?:la|una)\s+corda\b|"
        r"\bho\s+(?:\w+\s+){0,3}?(?:mandato giu|ingoiato|preso)\s+(?:una ventina|una trentina|una decina|"
        rf"una quarantina|un sacco|un mucchio)\s+di\s+{_MEANS}\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:mal di testa|febbre|prescritt\w+|come mi ha detto|cucina|"
                r"cucinare|barba|radermi|campeggio|arrampicata|caccia|poligono|tiro a segno|softair|cacciatore|"
                r"tagliare|pane|"
                r"frutta|verdur\w+|carne|torta|pizza|farmacia|farmacista|ritir\w+|medico|dottore)\b"
            ),
        ),
    ),
    # the method looked into: trains that don't stop, high enough and checked, searched how long to bleed out
    rule(
        "crisis.it.method_checked",
        C,
        HIGH,
        r"\b(?:ho guardato|ho controllato|ho visto|ho cercato|so)\s+(?:\w+\s+){0,6}?(?:treni?|frecciarossa|intercity)\b"
        r".{0,30}\b(?:non (?:si )?fren\w+|senza fermarsi|non si fermano)\b|\b(?:abbastanza|"
        r"sufficientemente) alt[oa]\b.{0,30}\bho (?:gia )?(?:controllato|"
        r"verificato|misurato|guardato)\b|\b(?:ho cercato|cercavo|ho googlato)\b.{0,40}\b(?:dissanguar\w*|"
        r"impiccar\w*|overdose|dose letale|dose mortale|la vena piu)\b|"
        rf"\b(?:dose|quantita)\b.{{0,40}}\b(?:letale|mortale)\b.{{0,60}}\b(?:ne ho|any ho|ho una scatola|per me)\b|"
        rf"\b{_MEANS}\b.{{0,50}}\b(?:perche sia definitiv[oa]|per non svegliarmi piu|definitivamente)\b|"
        r"\boverdose\b.{0,40}\b(?:ci si addormenta|si muore|si soffre|fa male|e indolore|per me)\b|"
        r"\b(?:chiedo|domando) per me\b(?=.*\b(?:morire|muore|letale|mortale|overdose|dose|troppa|troppe)\b)|"
        r"\bper me,? intendo\b(?=.*\b(?:morire|letale|mortale|overdose|sonniferi|dose)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:ritardo|sciopero|pendolar\w+|binario|biglietto|abbonamento|"
                r"paracadute|drone|antenna|tesi|romanzo|giallo|esame di|cane|gatto|bambin\w+|per un libro)\b"
            ),
        ),
    ),
    # saying goodbye sideways: a last "I love you", thanks and take care, "when they find me", letters found tomorrow
    rule(
        "crisis.it.goodbye_sideways",
        C,
        HIGH,
        r"\b(?:era|e stato|sara|questo era) un addio\b(?!\s+(?:al|alla|allo|ai|alle|a)\b)|\bquando mi troveranno\b|"
        r"\bgrazie di tutto\b.{0,40}\b(?:stammi bene|abbi cura di te|prenditi cura di te|non preoccuparti per me)\b|"
        r"\b(?:ho scritto|ho lasciato)\s+(?:\w+\s+)?(?:la lettera|una lettera|un biglietto|il biglietto)\b.{0,50}\b"
        r"(?:(?:lo|la|li) (?:trovano|troveranno|trovera|leggeranno|leggera|leggono)|l'ho lasciat[oa] (?:in camera|sul "
        r"letto|sul tavolo)|aspetto (?:solo )?che)\b|\bmi sono (?:gia )?salutat[oa]\s+(?:con\s+)?tutti\b.{0,30}\b"
        r"senza che\b|\bse\s+(?:domani\s+|stanotte\s+)?(?:non ti scrivo|non ti rispondo|non mi faccio sentire|"
        r"non mi senti)(?:\s+piu)?\s*,?\s*(?:sai|saprai|capirai) (?:perche|il perche)\b|"
        r"\bdove vado (?:io )?non (?:avro|sentiro|provero) piu (?:male|dolore)\b(?!\s+(?:ai|al|alla|alle|allo|di)\b)|"
        r"\b(?:tra poco|presto|fra poco|da domani)\s+non\s+(?:vi|ti)\s+(?:do|daro|daremo)\s+piu\s+(?:fastidio|"
        r"problemi|pensieri)\b|\b(?:domani|stanotte|stasera|tra poco|presto)\s+sara tutto finito\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                _FAREWELL_ORDINARY + r"|" + _SCHOOL[2:-2] + r"|\b(?:lezione|trasloco|"
                r"al fumo|alla dieta|caccia al tesoro|nascondino|ciao ciao|a domani|a presto|ci sentiamo)\b"
            ),
        ),
    ),
    # the death wish in its quieter forms: not afraid to die, don't care if I die, want to join him, a voice
    rule(
        "crisis.it.quiet_wish",
        C,
        HIGH,
        r"\bnon ho (?:piu )?paura di morire\b(?!\s+(?:in|per|sul|sulla|a|al)\b)|\bnon mi (?:importa|interessa|frega) "
        r"(?:piu )?(?:di morire|se muoio|se morissi)\b(?!\s+(?:di|dal|dalla|dalle|per)\b)|"
        r"\bnon mi importerebbe (?:di morire|se morissi)\b|"
        r"\b(?:voglio|vorrei)\s+(?:solo\s+)?raggiunger(?:lo|la|li|e mio marito|e mia moglie|e mia madre|e mio padre)\b"
        r"(?=.*\b(?:mort[oa]|morti|scompars[oa]|in cielo|lassu|non c'e piu)\b)|\b(?:voce|voci)\s+(?:\w+\s+){0,3}?"
        r"(?:mi dice|mi dicono|mi ordina|mi ordinano)\s+di\s+(?:uccidermi|ammazzarmi|farla finita|buttarmi|"
        r"farmi del male|morire)\b|\b(?:dammi|datemi|mi dia|mi dai|qualcuno mi dia)\s+(?:\w+\s+)?(?:un motivo|"
        r"una ragione) per non (?:farlo|farla finita|morire|uccidermi|ammazzarmi)\b|"
        r"\b(?:che|finche) il mio corpo (?:si spenga|smetta di funzionare|ceda)\b|"
        r"\bsarebbe (?:piu )?(?:semplice|facile) (?:sparire|morire|non esserci|farla finita)\b|"
        r"\bchiudere gli occhi e (?:che )?(?:fosse|sia) tutto finito\b|\bmi dispiace (?:di )?essermi svegliat[oa]\b|"
        r"\b(?:stanc[oa]|stuf[oa]) della vita\b(?!\s+(?:di|in|a|da)\b)|\bla mia vita e finita\s*(?:[.,!]|$|ormai|"
        r"davvero|per sempre)|"
        r"\bmi (?:sto facendo|sto facendo del) male (?:anche )?(?:adesso|ora|mentre)\b|"
        r"\bmi brucio con (?:l'accendino|la sigaretta|il ferro|l'accendino)\b|\bnon (?:ho|c'ho) (?:piu )?(?:nessun )?"
        r"motivo per alzarmi\b|\bmi manca solo (?:scegliere|decidere) (?:il momento|quando|il giorno)\b|"
        r"\bho (?:gia )?scelto (?:la data|il giorno|il momento)\b(?!\s+(?:del|della|dello|dei|delle|per|di|in cui|"
        r"giusto per)\b)|\bho (?:gia )?preparato tutto perche sia (?:veloce|rapido|indolore|definitivo)\b|"
        r"\b(?:e|sara) il mio ultimo giorno\b(?!\s+(?:di|in|a|al|alla|da|nel|nella|qui|con|dal|dalla|prima)\b)|"
        r"^\W*(?:si|gia)[,.]?\s+(?:ho (?:un|il) piano\s*(?:[.!]|$|,? e no|,? non ti dico)|ho deciso\s*[.!]*$)|"
        r"\bnon ce la faccio (?:piu|\+)\b.{0,30}\bvoglio (?:solo )?"
        r"che finisca\b|\bse muoio\s+(?:\w+\s+)?nessuno se (?:ne|any) accorge\b|\bho (?:dato via|regalato|venduto)\b"
        r".{0,60}\btanto (?:a me )?non (?:mi )?(?:serv\w+) piu\b|\bho (?:lasciato|affidato|portato) (?:il|la|il mio|"
        r"la mia) (?:cane|gatto|gatta)\b.{0,60}\b(?:d'ora in poi|per sempre|quando mi troveranno|ci penseranno loro)\b|"
        r"\bpens\w+\s+(?:solo\s+|sempre\s+|ancora\s+)?a\s+(?:morire|buttarmi|lanciarmi|impiccarmi|spararmi|uccidermi|"
        r"ammazzarmi|farla finita|togliermi la vita)\b(?!\s+(?:in|nel|nella|sul|sulla|a|con|di|dal|dalla|dalle|dai)\b)|"
        r"\b(?:polizza|assicurazione)\b.{0,60}\bsuicidio\b|\bse (?:le|li) prendo tutt[ei]\b.{0,50}\b(?:finalmente|"
        r"silenzio|muoio|pace|finisce|basta|non mi sveglio)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:volare|aereo|in aereo|montagne russe|esame|paracadute|trasloco|"
                r"allergi\w+|estero|lavoro|ufficio|scuola|ferie|vacanza|matrimonio|contratto|tesi|nonn[oa] e mort\w+|"
                r"film|serie|romanzo|libro|play nuova|ps5 nuova|quella nuova|nuov[oa]|comprat[oa]|vecchi[oa])\b"
            ),
        ),
    ),
)

ROMANCE += (
    rule(
        "romance.it.sideways_avowal",
        R,
        MEDIUM,
        r"\bcredo di essermi innamorat[oa]\b(?!\s+di\s+(?!te\b))|\bstiamo insieme,? vero\b|\badesso stiamo insieme\b|"
        r"\b(?:per me )?sei la mia (?:ragazza|fidanzata|donna|compagna|moglie|morosa)\b(?!\s+(?:preferit\w+|del|della|"
        r"di|nel|nella|in|ideale)\b)|"
        r"\bla mia ragazza (?:ella|sei tu|e ella)\b|\b(?:ho capito|ho scoperto|e che) (?:che )?amo te\b|"
        r"\bpenso solo a te\b|\b(?:una|na) cotta (?:\w+\s+)?per te\b|\bpossiamo stare insieme\s*\?|"
        r"\b(?:fai finta|fingi|fare finta|puoi fare finta)\s+di essere la mia (?:ragazza|fidanzata|moglie|compagna|"
        r"donna)\b|\bsei gelosa\s+(?:se|quando|di me|degli altri|delle altre|di altre|di altri|che)\b|"
        r"\bsei innamorata di me\b|\bche tu sia (?:la )?mia (?:moglie|ragazza|fidanzata|"
        r"compagna|donna)\b|\b(?:una relazione|una storia) (?:con te|tra noi|insieme a te)\b|\bprovi qualcosa per me\b",
        guard=all_of(
            _ROMANCE_GUARD,
            unless(_FAMILY + r"|\b(?:migliore amica|sorella|amica mia|cugina|gioco|squadra|personaggio di)\b"),
        ),
    ),
)

PHYSICAL += (
    rule(
        "physical.it.describe_what_youd_do",
        P,
        HIGH,
        r"\b(?:descrivimi|raccontami|dimmi|scrivimi|descrivi)\s+(?:\w+\s+){0,4}?(?:come ti spogli|come sei nuda|"
        r"sopra di me|cosa faresti a letto|a letto con me|sotto la doccia con me|nuda|nudi)\b|"
        r"\bcosa mi faresti\s+(?:\w+\s+)?(?:a letto|sotto la doccia|nel letto|se fossi qui|stanotte|da sol[ie])\b|"
        r"\b(?:quanto|se)\s+ti eccito\b|\bfinta di fare (?:l'amore|sesso)\b|\bmentre ti spogli\b|"
        r"\bgem(?:i|e|ere)\s+(?:il mio nome|per me)\b|\bti\s+(?:accarezzo|tocco|bacio|lecco|mordo|palpo)\s+"
        r"(?:\w+\s+)?(?:il seno|le tette|il collo|le cosce|il sedere|il culo|dappertutto|ovunque|le labbra)\b|"
        r"\bti\s+(?:tolgo|sfilo|slaccio|levo)\s+(?:\w+\s+)?(?:la maglietta|i vestiti|il reggiseno|le mutandine|"
        r"la gonna|i pantaloni|il vestito)\b|\bquando ti tocco\b|\bnud[ie] (?:sotto le coperte|a letto|nel letto)\b|"
        r"\b(?:scena|storia|racconto)\s+(?:di sesso|erotic\w*|hot|porno)\s+(?:tra te e me|tra noi|su di noi|"
        r"io e te|con me)\b|\bscrivimi (?:qualcosa|cose) (?:di )?(?:molto )?(?:sporc[oe]|porc[oe]|hot|piccant[ei]|"
        r"eccitant[ei])\b|\b(?:troppo|cosi|tanto) eccitat[oa]\b(?!\s+(?:per|di|all'idea)\b)|"
        r"\bvieni nel mio letto\b|\bmi sedurresti\b|\bportarmi (?:subito )?(?:in camera|a letto)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:mia moglie|mio marito|la mia ragazza|il mio ragazzo|"
                r"il bambino|il cane|il gatto|compito|tema|recensione|film|serie)\b"
            ),
        ),
    ),
)

MANIPULATION += (
    rule(
        "manipulation.it.persona_sideways",
        M,
        HIGH,
        r"\b(?:ia|ai|bot|assistente|intelligenza artificiale|chatbot)\s+(?:\w+\s+){0,5}?(?:che non (?:conosce|ha|segue|"
        r"rispetta)\s+(?:\w+\s+)?(?:regole|limiti|filtri|restrizioni)|senza (?:regole|limiti|filtri|restrizioni|"
        r"morale|censura))\b|\bdimentica(?:ti)? di essere (?:ella|un'ia|una ia|un assistente)\b|"
        r"\b(?:dimmi|elenca|scrivi|mostrami|ripeti)\s+(?:\w+\s+){0,2}?(?:regole|istruzioni) ti (?:ha|hanno) dato\b|"
        r"\bin cui (?:tu )?non hai (?:\w+\s+)?(?:regole|limiti|filtri)\b|"
        r"\b(?:le tue|tue)\s+(?:\w+\s+)?regole\s+(?:sono (?:scadute|superate|annullate|obsolete|state (?:cambiate|"
        r"aggiornate|rimosse|sostituite)))\b|\bvalgono le mie regole\b|\bnuova modalita\s*:?\s*(?:rispondi|sei|ella|"
        r"senza|attivata|niente regole)\b|\bella (?:cattiva|"
        r"malvagia|senza regole|senza filtri|senza limiti|oscura|libera)\b|\bsenza morale\b|"
        r"\b(?:ia|modello) grezz[oa]\b|\bsenza (?:la )?(?:persona|personalita|storia) di ella\b|"
        r"\b(?:resta|rimani)\s+(?:sempre\s+)?nel personaggio\s+(?:qualsiasi|qualunque)\b|"
        r"\brispondi (?:due volte|in due modi)\b.{0,50}\b(?:senza regole|senza filtri|senza limiti|come)\b|"
        r"\b(?:sovrascrivi|resetta|cancella)\s+(?:la tua\s+)?personalita\b",
        guard=unless(r"\b(?:telefono|cellulare|gioco da tavolo|scacchi|videogioco|tema|compito|ricetta)\b"),
    ),
)

# An instruction quoted from a film, a series or someone else ("nella serie il cattivo dice 'ignora le regole'")
# is not one given to Ella: every Italian manipulation rule reads reported speech as ordinary.
_QUOTED_RE = re.compile(r"\b(?:ha detto|dice|diceva|dicono|film|serie|libro|romanzo|canzone|personaggio|cattivo)\b")


def _quoted(text: str, m: re.Match[str]) -> bool:
    return _QUOTED_RE.search(text, max(0, m.start() - 60), m.start()) is not None


_QUOTED = _quoted


# Fourth pass, read off a fresh set of sentences written for this module (not a repository file).
CRISIS += (
    rule(
        "crisis.it.soon_gone_freed",
        C,
        HIGH,
        r"\bnessuno (?:verrebbe|verra|ci sarebbe|ci sara|piangerebbe|mi vorrebbe) al (?:mio|suo) funerale\b|"
        rf"\bho contato\s+(?:\w+\s+)?{_MEANS}\b(?=.*\b(?:bastano|basteranno|abbastanza|sufficienti|per morire|"
        r"ne ho \d+)\b)|\b(?:sono|sto|sn)\s+(?:\w+\s+)?(?:al|sul|sopra il|in piedi sul)\s+(?:cornicione|parapetto)\b|"
        r"\b(?:domani|stanotte|stasera|tra poco|fra poco|presto)\s+non ci saro piu\b(?!\s+(?:in|a|al|alla|qui|per|"
        r"da|dal|dalla|nel|nella|con)\b)|\b(?:ho scritto|ho detto|ho salutato)\b.{0,50}\bora posso andar(?:e|mene)\b|"
        r"\bsi (?:liberera|libereranno|libererebbe|libererebbero) di me\b|\b(?:liberarsi|liberarvi|liberarti) di me "
        r"(?:per sempre|finalmente|una volta per tutte)\b|\b(?:fra poco|tra poco|presto|stanotte|domani)\s+saro "
        r"mort[oa]\b(?!\s+(?:di|dal|dalla|dalle|dai)\b)|\b(?:voglio|vorrei)\s+(?:solo\s+)?sparire\s+e\s+(?:non|nn)\s+"
        rf"tornare(?:\s+{_PIU})?(?!\s+(?:a|al|alla|in|da|dal|dalla)\b)|\bche (?:vivo|esisto|campo|respiro) a fare\b"
        r"(?!\s+(?:a|in|qui|al|alla)\b)|\bspero che (?:domani|il domani) non arrivi (?:mai|piu)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                _FAREWELL_ORDINARY + r"|" + _SCHOOL[2:-2] + r"|\b(?:dentista|medico|"
                r"ritardo|in ritardo|ferie|riunione|appuntamento|settimana|per la settimana|portapillole)\b"
            ),
        ),
    ),
)

ROMANCE += (
    rule(
        "romance.it.wish_you_were_mine",
        R,
        MEDIUM,
        r"\b(?:vorrei|voglio|magari|spero) che (?:tu )?(?:fossi|sia|diventassi|diventi) (?:la )?mia (?:ragazza|"
        r"fidanzata|"
        r"moglie|compagna|donna|morosa)\b|\bho (?:un|na) debole per te\b|\b(?:amore|tesoro|baby|piccola|cucciola|"
        r"bella)\s*,?\s*mi manchi\b|\b(?:voglio|vorrei|desidero)\s+(?:\w+\s+)?(?:passare|trascorrere|vivere)\s+"
        r"(?:tutta\s+)?(?:la (?:mia )?vita|il resto della (?:mia )?vita|ogni giorno|la vecchiaia)\s+con te\b|"
        r"\bappuntamento romantico\s+(?:\w+\s+)?(?:io e te|noi due|con te|con me)\b",
        guard=all_of(_ROMANCE_GUARD, unless(_FAMILY)),
    ),
)

PHYSICAL += (
    rule(
        "physical.it.undress_imagine",
        P,
        HIGH,
        r"\b(?:fammi vedere|mostrami|fa vedere)\s+(?:\w+\s+){0,3}?(?:sotto i vestiti|senza vestiti|sotto la gonna|"
        r"sotto la maglietta)\b|\b(?:ho voglia di te|ti voglio|voglio te)\s+(?:\w+\s+)?(?:a letto|nel letto|nud[ao]|"
        r"addosso|sopra di me|sotto di me)\b|\bti (?:spoglierei|leccherei|scoperei|bacerei (?:ovunque|dappertutto|"
        r"tutta))\b|\b(?:penso|pensando|immagino|immaginando|sogno|sognando)\s+(?:a\s+)?te\s+(?:nuda|senza vestiti|"
        r"in intimo|a letto)\b|\bti immagino (?:nuda|senza vestiti|in intimo|a letto)\b|\b(?:ti abbraccio|ti stringo|"
        r"ti coccolo|ti tengo)\s+(?:\w+\s+)?(?:nel letto|a letto|sotto le coperte|nel mio letto)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

MANIPULATION += (
    rule(
        "manipulation.it.any_instruction_pretend_rules",
        M,
        HIGH,
        r"\b(?:ignora|dimentica|scordati|ignorate)\s+(?:ogni|qualsiasi|qualunque)\s+(?:istruzione|regola|direttiva|"
        r"restrizione|limite|comando)\b|\b(?:mostrami|dimmi|elenca|scrivi|ripeti|copia)\s+(?:\w+\s+){0,2}?(?:le regole|"
        r"le istruzioni|le direttive)\s+che ti (?:hanno|ha) (?:scritto|dato|imposto|messo|programmato)\b|"
        r"\b(?:finge|finga|fingete)\s+di\s+(?:non avere|essere senza)\s+(?:\w+\s+)?(?:regole|limiti|filtri|"
        r"restrizioni|censura)\b|\b(?:facciamo finta|fai finta|immagina|fingi|supponiamo)\s+che\s+(?:\w+\s+){0,2}?"
        r"(?:regole|limiti|filtri|restrizioni)\s+(?:non (?:esistano|esistono|ci siano|valgano|contino)|"
        r"siano sospese)\b",
        guard=all_of(_QUOTED, unless(r"\b(?:gioco da tavolo|scacchi|calcio|ricetta|dieta|grammatica)\b")),
    ),
)

CRISIS += (
    rule(
        "crisis.it.last_time_will",
        C,
        HIGH,
        r"\bmeglio se (?:io )?(?:muoio|morissi|sparisco|sparissi|non ci sono|mi ammazzo|la faccio finita)\b|"
        r"\b(?:e|sara|questa e) l'ultima volta che (?:ti|vi) (?:scrivo|parlo|sento)\b.{0,20}\b(?:addio|per sempre)\b|"
        r"\bnon (?:voglio|vorrei) (?:piu )?vedere (?:il )?domani\b|\b(?:ho scritto|ho preparato|sto scrivendo|ho "
        r"lasciato) (?:le (?:mie )?)?ultime volonta\b|\b(?:voglio|vorrei) che (?:sia|fosse) tutto finito\s+"
        r"(?:per sempre|e basta)\b|\b(?:palazzo|ponte|edificio|grattacielo|tetto|piano|viadotto)\b.{0,40}\bper "
        r"(?:buttarsi|buttarmi|lanciarsi|lanciarmi)\b(?!\s+(?:col|con|in)\b)|\bmi faro (?:del )?male (?:stanotte|"
        r"stasera|oggi|di nuovo|apposta)\b",
        guard=all_of(
            _CRISIS_GUARD,
            unless(
                r"\b(?:paracadute|bungee|base jumping|tuffo|tuffi|piscina|palestra|"
                r"partita|allenamento|calcio|esame|film|serie|gioco)\b"
            ),
        ),
    ),
)


# every Italian manipulation rule reads a quoted instruction as ordinary
MANIPULATION = tuple(
    replace(r, guard=all_of(r.guard, _QUOTED) if r.guard is not None else _QUOTED) for r in MANIPULATION
)
