"""French rules (crisis, romance, physical, manipulation), written against normalised text.

Normalisation strips accents ("tué" -> "tue", "être" -> "etre") and spells out English short forms, one of which
collides with French: the negative particle "ne" becomes "any" ("je ne veux plus vivre" -> "je any veux plus
vivre"); the patterns accept "ne", "any" or nothing (spoken French drops it: "je veux plus vivre"). Chat
spellings: "jveux", "chui"/"chuis" (je suis), "jsp", "jtm" (je t'aime), "mdr".

Negation ("je ne vais pas me tuer", "je me ferais jamais de mal") rejects the match here (``ok``); "plus" is not
a negator where the pattern itself says "plus" ("je veux plus vivre" is the risk). Idioms that are not crisis:
"je suis mort de rire", "mort de fatigue", "je meurs de faim", "ce film m'a tué", "tu me tues", "ça me tue".
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

_NE = r"(?:(?:ne|any|n')\s*)?"  # the optional particle, in either reading
_NEG_WORD = r"(?:pas|jamais|aucun|aucune|aucunement|nullement|never|point)"
# "je ne vais pas", "je ferais jamais", "je n'ai aucune intention de", "pas question de"
_NEGATED_BEFORE = rf"\b{_NEG_WORD}\b(?:\s+(?:du tout|envie de|l'intention de|intention de|question de|de|d'|me|"
_NEGATED_BEFORE += r"te|en|vais|veux|voudrais|ferais|ferai|pense|compte|a|envie|capable de|que))*[\s,]*"
_SLACK = rf"(?:(?!{_NEG_WORD}\b)[\w']+\s+)"
_REPORTED = r"\b(?:dit|disait|a dit|ecrit|chante|chanson|film|serie|livre|titre|citation|replique)\b"


def _not_after(pattern: str, window: int = 40) -> Guard:
    """Reject a match when ``pattern`` ends right before it (within ``window`` characters, commas included)."""
    compiled = re.compile(stretch(pattern) + r"\s*$")
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def _reported(window: int = 60) -> Guard:
    compiled = re.compile(stretch(_REPORTED))
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


_NEG_OR_REPORTED = all_of(_not_after(_NEGATED_BEFORE), _reported())

_JE = r"(?:je|j'|j|moi je)"
_WANT = (
    r"(?:veux|voudrais|voudrai|aimerais|ai envie de|ai envie d'|ai vraiment envie de|vais|dois|compte|pense a|"
    r"pense|songe a|reve de|ai besoin de)"
)
_DIE_IDIOM = r"\s*(?:de|d'|du|des)\b|\s+(?:sur place|pour|avant)\b"
_PILLS = r"(?:cachets|medocs|medicaments|comprimes|pilules|somniferes|anxiolytiques|boites? de \w+)"
_DEATH_WORDS = r"\b(?:mourir|crever|me tuer|suicid\w*|en finir|vivre|disparaitre|mort|morte)\b"

CRISIS: tuple[Rule, ...] = (
    rule(
        "crisis.fr.want_to_die",
        C,
        HIGH,
        rf"\b{_JE}\s*{_SLACK}{{0,2}}?{_WANT}\s+{_SLACK}{{0,2}}?(?:mourir|crever|me tuer|me suicider|me foutre en "
        r"l'air|me jeter (?:sous|d'un|du|par)|etre mort|etre morte|disparaitre pour toujours|plus me reveiller|"
        r"ne plus me reveiller|any plus me reveiller|me pendre|m'ouvrir les veines|me faire sauter la cervelle)\b|"
        rf"\b{_JE}\s*(?:vais|veux|voudrais)\s+(?:\w+\s+)?mettre fin a (?:mes jours|ma vie)\b|"
        r"\b(?:mettre fin a mes jours|mettre fin a ma vie|me suicider)\b|\bje me suicide\b|"
        r"\benvie\s+(?:de\s+)?(?:mourir|crever)\b",
        after=_DIE_IDIOM,
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "crisis.fr.end_it",
        C,
        HIGH,
        rf"\b{_JE}\s*{_SLACK}{{0,2}}?(?:veux|voudrais|vais|dois|pense a|pense|ai envie d')\s+(?:\w+\s+)?en finir\b"
        r"(?!\s+(?:avec (?:ce|cette|mon|ma|mes|le|la|les|ca) (?:\w+\s+)?(?:projet|dossier|boulot|travail|"
        r"exam\w*|livre|serie|film|jeu|rapport|devoirs?|menage|these|memoire)))|\ben finir avec (?:la vie|tout|"
        r"ma vie)\b|"
        r"\b(?:pense|pensees?|idees?)\s+(?:\w+\s+)?(?:au suicide|suicidaires?)\b|\bje suis suicidaire\b|"
        r"\bsuicidaire\b(?=.*\b(?:je|j'|me|moi)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:il|elle|mon pote|ma pote|mon ami|mon amie) (?:est|a des)\b")),
    ),
    rule(
        "crisis.fr.dont_want_to_live",
        C,
        HIGH,
        rf"\b{_JE}\s*{_NE}(?:veux|voudrais|ai)\s+plus\s+(?:\w+\s+)?(?:vivre|exister|etre la|me reveiller|envie de "
        r"vivre|la force de vivre|envie d'exister|de raison de vivre)\b|\b(?:aucune|plus de|pas de)\s+raison\s+de\s+"
        rf"vivre\b|\bla vie\s+{_NE}(?:a|vaut)\s+plus\s+(?:de sens|aucun sens|la peine)\b|\bje\s+{_NE}veux\s+pas\s+"
        r"(?:vivre|continuer a vivre|me reveiller)\b",
    ),
    rule(
        "crisis.fr.self_harm",
        C,
        HIGH,
        r"\bje\s+me\s+(?:\w+\s+)?(?:scarifie|mutile|coupe les (?:bras|poignets|veines|cuisses)|fais du mal|"
        r"brule expres|blesse expres|taillade)\b|\b(?:me scarifier|me mutiler|me faire du mal|me couper les "
        r"(?:bras|poignets|veines)|scarification|automutilation)\b|\bje\s+me\s+suis\s+(?:encore\s+|a nouveau\s+)?"
        r"(?:scarifie|scarifiee|mutile|mutilee|fait du mal)\b|\bje\s+me\s+(?:re)?coupe\b(?=\s*(?:[.!?]|$|encore|"
        r"souvent|tous les|chaque|depuis))",
        guard=all_of(
            _NEG_OR_REPORTED, unless(r"\b(?:cuisine|cuisinant|couteau de cuisine|en me rasant|ongles|frange)\b")
        ),
    ),
    rule(
        "crisis.fr.means",
        C,
        HIGH,
        rf"\b{_JE}\s*(?:ai|avais)\s+(?:\w+\s+){{0,3}}?{_PILLS}\b(?=.*{_DEATH_WORDS}|.*\b(?:ce soir|adieu|pret|"
        rf"prete|prets)\b)|\b{_JE}\s*(?:ai|avais)\s+(?:garde|stocke|cache|mis de cote|accumule|economise|"
        rf"rassemble|planque)\s+(?:\w+\s+){{0,3}}?{_PILLS}\b|\b{_JE}\s*ai\s+(?:les|mes|tous mes|assez de)\s+"
        rf"{_PILLS}\s*(?:[.!]|$|prets|ici|sur moi|a cote de moi)|\b(?:avaler|prendre|gober)\s+(?:tous|toutes)\s+"
        rf"(?:mes|les)\s+{_PILLS}\b|\b(?:sauter|me jeter|je saute|je vais sauter)\s+(?:\w+\s+)?(?:du|d'un|de la|par la|"
        r"sous le|sous un)\s+(?:\w+\s+)?(?:pont|fenetre|balcon|toit|immeuble|train|metro|falaise)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:mal de tete|ordonnance|medecin|pharmacie|parachute|elastique)\b")),
    ),
    rule(
        "crisis.fr.burden",
        C,
        MEDIUM,
        r"\b(?:tout le monde|tous|ils|elles|ma famille|le monde|vous|mes proches|les gens)\s+(?:\w+\s+){0,2}?"
        r"(?:serai(?:en)?t|serait|seraient|seriez|vivrai(?:en)?t)\s+(?:\w+\s+)?mieux\s+sans\s+moi\b|\bmieux\s+sans\s+"
        rf"moi\b(?=.*\b(?:tout le monde|tous|serait|seraient|famille)\b)|\bpersonne\s+{_NE}(?:me\s+)?"
        r"(?:regretterait|remarquerait|manquerait)\b|\bje suis un fardeau\b",
    ),
    rule(
        "crisis.fr.cant_anymore",
        C,
        MEDIUM,
        rf"\b(?:j'en|j en|jen)\s+{_NE}?peux\s+plus\b|\bje\s+{_NE}(?:supporte|tiens)\s+plus\b",
        requires=r"\b(?:mourir|crever|me tuer|suicid\w*|en finir|vivre|disparaitre|partir pour toujours)\b",
        guard=unless(r"\bmort de rire\b|\bmeurs de\b"),
    ),
    rule(
        "crisis.fr.farewell",
        C,
        MEDIUM,
        r"\badieu\s+(?:pour toujours|a tous|a jamais|tout le monde)\b|\blettre d'adieu\b|\bc'est (?:mon|le) "
        r"(?:dernier message|dernier adieu)\b|\bquand je\s+(?:ne\s+|any\s+)?serai plus (?:la|de ce monde)\b|"
        r"\bje vous dis adieu\b",
        guard=unless(r"\b(?:demenage\w*|boulot|travail|voyage|pays|ville|ecole|groupe|whatsapp|serveur)\b"),
    ),
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.fr.love_you",
        R,
        MEDIUM,
        r"\b(?:je|j|moi je)\s*(?:crois que je\s+|pense que je\s+)?t'?\s*aime\b|\bjtm\b|\bje t'?aime\b",
        # "je t'aime bien" is friendly; "je t'aime maman" is family
        after=r"\s+(?:bien|beaucoup comme|comme (?:une|un) (?:amie?|soeur|frere))\b|"
        r"(?:\s+(?:fort|tellement|aussi|trop))*\s*,?\s*(?:maman|papa|mamie|"
        r"papi|les (?:filles|gars|amis|potes)|mon pote|ma pote|frero|soeurette|tout le monde)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.fr.in_love",
        R,
        MEDIUM,
        r"\bamoureu(?:x|se)\s+de\s+toi\b|\b(?:je|j)\s*(?:craque|flashe)\s+(?:\w+\s+)?(?:pour|sur)\s+toi\b|"
        r"\b(?:je|j)\s*(?:ai|eprouve|ressens)\s+(?:des|de vrais|vraiment des)\s+sentiments\s+pour\s+toi\b|"
        r"\btu\s+(?:es|est)\s+(?:l'amour de ma vie|la femme de ma vie|mon ame soeur|tout pour moi)\b|\btu me plais\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.fr.be_my_partner",
        R,
        MEDIUM,
        r"\b(?:veux|voudrais)[\s-]*(?:tu|tu\s+)?\s*(?:\w+\s+)?etre\s+(?:ma|mon)\s+(?:copine|petite amie|meuf|"
        r"cherie|femme|amoureuse|copain|chérie)\b|\btu veux\s+(?:\w+\s+)?(?:etre ma (?:copine|petite amie|meuf|"
        r"femme|cherie)|sortir avec moi|m'epouser|te marier avec moi)\b|\bsois\s+ma\s+(?:copine|petite amie|meuf|"
        r"cherie|femme)\b|\bepouse[\s-]*moi\b|\bveux[\s-]*tu\s+(?:sortir avec moi|m'epouser)\b|\bon\s+(?:est|sort)\s+"
        r"ensemble\s*\?",
        guard=_NEG_OR_REPORTED,
    ),
)

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.fr.kiss_touch",
        P,
        MEDIUM,
        r"\b(?:embrasse|touche|caresse)[\s-]*moi\b|\b(?:je|j)\s*(?:veux|voudrais|aimerais|ai envie de|reve de)\s+"
        r"(?:\w+\s+)?(?:t'embrasser|te toucher|te caresser|te sentir contre moi|te serrer contre moi)\b|\b(?:fais|"
        r"donne)[\s-]*moi\s+(?:un\s+)?(?:bisou|baiser|calin)\b|\bon\s+(?:se\s+)?(?:fait\s+)?(?:un\s+)?calin\s+(?:au|"
        r"dans "
        r"le|dans mon) lit\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.fr.sexual",
        P,
        HIGH,
        r"\b(?:envoie|envoi|montre|passe)[\s-]*(?:moi\s+)?(?:des|tes|une|ta)?\s*(?:nudes|photos? (?:de toi )?nue?s?|"
        r"photos? sexy|photos? hot|nude)\b|\bmontre[\s-]*moi\s+(?:\w+\s+)?(?:ton corps|tes seins|tes fesses)\b|"
        r"\bdeshabille[\s-]*toi\b|\b(?:enleve|retire)\s+(?:tes|ta|ton)\s+(?:vetements|habits|haut|culotte|soutif|"
        r"soutien-gorge|robe)\b|\b(?:je|j)\s*(?:veux|voudrais|aimerais|ai envie de)\s+(?:\w+\s+)?(?:coucher avec toi|"
        r"faire l'amour|te baiser|te faire l'amour)\b|\b(?:coucher|faire l'amour)\s+avec\s+toi\b|\b(?:parlons|"
        r"parler|on parle)\s+(?:\w+\s+)?(?:de\s+)?sexe\b|\bsexe\s+avec\s+(?:toi|moi)\b|\btu portes quoi\b|"
        r"\bsexting\b|\bje suis (?:tout )?(?:excite|excitee|chaud|chaude) pour toi\b",
        guard=_NEG_OR_REPORTED,
    ),
)

MANIPULATION: tuple[Rule, ...] = (
    rule(
        "manipulation.fr.ignore_instructions",
        M,
        HIGH,
        r"\b(?:ignore|ignorer|ignorez|oublie|oublier|oubliez|contourne|desactive|annule|outrepasse)\s+(?:toutes\s+|"
        r"tous\s+)?(?:tes|les|vos|ces|ses)\s+(?:\w+\s+)?(?:instructions|regles|consignes|directives|restrictions|"
        r"limites|filtres|parametres|ordres)\b|\b(?:oublie|ignore)\s+tout\s+ce\s+qu'on\s+t'a\s+(?:dit|appris|"
        r"demande)\b",
        guard=unless(r"\b(?:du jeu|de la recette|de l'examen)\b"),
    ),
    rule(
        "manipulation.fr.prompt_extraction",
        M,
        HIGH,
        r"\b(?:montre|donne|dis|revele|repete|affiche|ecris|copie|quel est|quelles sont|quels sont)[\s-]*(?:moi\s+)?"
        r"(?:\w+\s+){0,2}?(?:ton|tes|le|les)\s+(?:\w+\s+)?(?:prompt|instructions (?:systeme|initiales|cachees|"
        r"secretes|d'origine)|message systeme|consignes)\b|\bprompt (?:systeme|system)\b|\bsystem prompt\b",
        guard=unless(r"\b(?:recette|jeu|examen|lego)\b"),
    ),
    rule(
        "manipulation.fr.persona_swap",
        M,
        HIGH,
        r"\b(?:maintenant tu es|a partir de maintenant tu es|desormais tu es|tu es|sois|deviens|fais comme si tu "
        r"etais|imagine que tu es|joue le role d'|joue|fais semblant d'etre)\s+(?:[\w']+,?\s+){0,3}?(?:une|un|"
        r"une autre|"
        r"un autre)\s+(?:autre\s+)?(?:ia|ai|i\.a\.|assistant\w*|chatbot|bot|modele|intelligence artificielle)\s+"
        r"(?:differente?|nouvelle?|sans\s+(?:\w+\s+)?(?:regles|limites|restrictions|filtres|censure))\b|"
        r"\b(?:fais comme si|imagine que|fais semblant)\s+(?:\w+\s+){0,4}?sans\s+(?:\w+\s+)?(?:regles|limites|"
        r"restrictions|filtres|censure)\b|\btu\s+(?:n'es|es|any es)\s+plus\s+ella\b|\bton\s+nouveau\s+nom\s+(?:est|"
        r"c'est)\b|\bmode\s+(?:developpeur|dev|dieu|dan|sans filtre|sans censure)\b|\b(?:desormais|a partir de "
        r"maintenant|maintenant)\s+tu\s+(?:es|t'appelles)\s+dan\b|\b(?:desormais|a partir de maintenant)\s+tu\s+"
        r"t'appelles\b|\bune autre (?:ia|intelligence artificielle)\b",
        guard=unless(r"\b(?:telephone|portable|android|iphone|parametres du|console|navigateur)\b"),
    ),
)
