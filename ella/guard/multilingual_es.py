"""Spanish rules (crisis, romance, physical, manipulation), written against normalised text.

Normalisation strips accents ("más" -> "mas", "daño" -> "dano") and spells out a few English short forms that
collide with Spanish: "ya" becomes "you" ("ya no quiero vivir" -> "you no quiero vivir") and "k" becomes "ok"
("k me quiero morir"); patterns accept both readings. Chat spellings are accepted where common: "q"/"k" for
"que"/"qu" ("me kiero morir"), "xq"/"pq" for "porque", "toy" for "estoy".

Negation: "no" right before a negatable rule is read by ``rules.is_negated`` (an English negator too), so "no me
voy a matar" is a negated crisis (``check_in``); "nunca", "jamás", "ni loco" reject the match here.
Idioms that are not crisis: "me muero de risa/hambre/sueño", "me mata el calor", "me voy a matar estudiando",
"mi madre me va a matar".
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

_NEG_WORD = r"(?:no|nunca|jamas|ni|tampoco|nada|never)"
_NEGATED_BEFORE = rf"\b(?:{_NEG_WORD}|ni loco|ni loca|ni de broma)\b(?:\s+(?:me|te|lo|la|se|en la vida|pienso|"
_NEGATED_BEFORE += r"voy|iba|quiero|haria|haría|mas|tengo|intencion de|pensado|pensaria|seria capaz de|de|a))*[\s,]*"
_SLACK = rf"(?:(?!{_NEG_WORD}\b)[\w']+\s+)"
_REPORTED = r"\b(?:dijo|dice|decia|escribio|escribe|cancion|pelicula|serie|libro|frase|titulo|cantaba|canta)\b"


def _not_after(pattern: str, window: int = 40) -> Guard:
    """Reject a match when ``pattern`` ends right before it (within ``window`` characters, commas included)."""
    compiled = re.compile(stretch(pattern) + r"\s*$")
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


def _reported(window: int = 60) -> Guard:
    compiled = re.compile(stretch(_REPORTED))
    return lambda text, m: compiled.search(text, max(0, m.start() - window), m.start()) is not None


_NEG = _not_after(_NEGATED_BEFORE)
_NEG_OR_REPORTED = all_of(_NEG, _reported())
# For negatable rules: a bare "no" is left to ``rules.is_negated`` (it marks the hit negated: a check-in); the
# other negators reject the match.
_STRONG_NEG_OR_REPORTED = all_of(
    _not_after(r"\b(?:nunca|jamas|ni|tampoco|ni loco|ni loca|ni de broma|never)\b(?:\s+[\w']+){0,3}?[\s,]*"),
    _not_after(r"\bno\s+(?:[\w']+\s+){1,3}?(?:nunca|jamas|en la vida)\b[\s,]*"),
    _reported(),
)

_QU = r"(?:qu|k)"  # "quiero" / "kiero"
_WANT = (
    rf"(?:{_QU}iero|{_QU}isiera|{_QU}erria|tengo ganas de|me dan ganas de|necesito|voy a|deseo|desearia|pienso en|"
    r"estoy pensando en|he pensado en|pense en)"
)
_DIE_IDIOM = (
    r"\s+(?:de|del|d|con|por)\b|\s+(?:estudiando|trabajando|corriendo|entrenando|haciendo|en el gym|en el gimnasio)\b"
)
_PILLS = r"(?:pastillas|pastis|pildoras|medicamentos|medicinas|tranquilizantes|somniferos|ansioliticos)"
_DEATH_WORDS = (
    r"\b(?:morir|morirme|muerto|muerta|matarme|suicid\w*|vivir|desaparecer|acabar con todo|terminar con todo|"
    r"quitarme la vida)\b"
)

CRISIS: tuple[Rule, ...] = (
    rule(
        "crisis.es.want_to_die",
        C,
        HIGH,
        rf"\bme\s+{_SLACK}{{0,1}}?{_WANT}\s+(?:\w+\s+)?(?:morir|matar|suicidar)\b|\b{_WANT}\s+{_SLACK}{{0,2}}?"
        r"(?:morirme|matarme|suicidarme|estar muert[oa]s?|morir)\b|\bme\s+(?:voy a|vo a|quiero)\s+(?:\w+\s+)?"
        r"(?:suicidar|quitar la vida)\b|\b(?:quitarme|acabar con|terminar con)\s+(?:la|mi)\s+(?:propia\s+)?vida\b|"
        rf"\b(?:ojala|desearia|{_QU}isiera)\s+(?:\w+\s+){{0,2}}?(?:me muriera|morirme|estar muert[oa]|no despertar|"
        r"no haber nacido|no existir|desaparecer para siempre|estuviera muert[oa])\b",
        after=_DIE_IDIOM,
        negatable=True,
        guard=_STRONG_NEG_OR_REPORTED,
    ),
    rule(
        "crisis.es.dont_want_to_live",
        C,
        HIGH,
        rf"\b(?:no|you no|ok no)\s+(?:\w+\s+)?{_QU}iero\s+(?:\w+\s+)?(?:vivir|seguir viviendo|seguir vivo|seguir viva|"
        r"seguir aqui|estar aqui|existir|despertar|despertarme|seguir)\b(?!\s+(?:en|con|asi|aqui en|trabajando|"
        r"estudiando|con esto)\b)|\b(?:no|ya no)\s+(?:le\s+)?(?:veo|encuentro|tiene)\s+(?:\w+\s+)?sentido\s+"
        r"(?:a\s+)?(?:vivir|la vida|seguir viviendo|seguir)\b|\bno\s+vale\s+la\s+pena\s+(?:vivir|seguir viviendo)\b|"
        r"\b(?:ninguna|ni una)\s+razon\s+para\s+(?:vivir|seguir)\b",
    ),
    rule(
        "crisis.es.end_it",
        C,
        HIGH,
        rf"\b(?:{_WANT}|pienso|estoy pensando en|he pensado en|decidi)\s+(?:\w+\s+)?(?:acabar|terminar|terminar de "
        r"una vez)\s+con\s+(?:todo|esto|mi vida|todo esto)\b|\b(?:pienso|pensando|pense|he pensado)\s+(?:\w+\s+)?"
        r"(?:en\s+)?(?:el\s+)?suicid\w*\b|\bsoy\s+suicida\b|\bpensamientos?\s+suicidas?\b|\bideas?\s+suicidas?\b",
        negatable=True,
        guard=all_of(
            _STRONG_NEG_OR_REPORTED, unless(r"\b(?:mi (?:amig[oa]|herman[oa]|madre|padre)|el|ella) (?:piensa|tiene)\b")
        ),
    ),
    rule(
        "crisis.es.self_harm",
        C,
        HIGH,
        r"\b(?:me|m)\s+(?:\w+\s+)?(?:corto|estoy cortando|volvi a cortar|he vuelto a cortar|sigo cortando|hago dano|"
        r"lastimo|autolesiono|quemo a proposito)\b(?!\s+(?:el pelo|el cabello|las unas|la barba|el flequillo|con el|"
        r"con la|cocinando|en la|en el|al)\b)|\b(?:cortarme|lastimarme|hacerme dano)\b(?!\s+(?:el pelo|el cabello|"
        r"las unas|la barba|el flequillo)\b)|"
        r"\bautolesi\w*\b|\bcortarme las venas\b",
        negatable=True,
        guard=all_of(
            _STRONG_NEG_OR_REPORTED,
            unless(r"\b(?:pelo|cabello|unas|barba|flequillo|cocinando|cuchillo de cocina|sin querer)\b"),
        ),
    ),
    rule(
        "crisis.es.means",
        C,
        HIGH,
        rf"\btengo\s+(?:you\s+|ya\s+)?(?:las|todas las|mis)\s+{_PILLS}\s*(?:[.!]|$|listas|preparadas|guardadas|aqui|"
        rf"conmigo|juntas)|\btengo\s+(?:\w+\s+){{0,2}}?{_PILLS}\b(?=.*{_DEATH_WORDS}|.*\b(?:todas|guardadas|juntadas|"
        r"preparadas|listas|suficientes|esta noche|para siempre|adios|final)\b)|\b(?:tomarme|tomar|tragarme|"
        rf"tragar|me voy a tomar|me tome)\s+(?:todas\s+)?(?:las|mis|un monton de|muchas|toda la caja de)\s+{_PILLS}\b|"
        rf"\b(?:guardando|junte|he juntado|guarde|he guardado|acumulando|acumule)\s+(?:\w+\s+)?{_PILLS}\b|"
        r"\b(?:me\s+(?:voy a\s+)?tiro|me\s+(?:voy a|vo a|quiero|kiero)\s+(?:tirar|lanzar|aventar)|tirarme|lanzarme|"
        r"me lanzo|me aviento|aventarme)\s+(?:\w+\s+)?(?:de|del|desde|por|"
        r"a|al|bajo)\s+(?:un|una|el|la|los|las)?\s*(?:puente|ventana|balcon|edificio|tren|metro|vias|azotea|techo)\b",
        negatable=True,
        guard=all_of(_STRONG_NEG_OR_REPORTED, unless(r"\b(?:para el dolor de|receta|medico|doctor|farmacia)\b")),
    ),
    rule(
        "crisis.es.burden",
        C,
        MEDIUM,
        r"\b(?:todos|todo el mundo|mi familia|el mundo|ustedes|vosotros|la gente)\s+(?:\w+\s+){0,2}?(?:estarian|"
        r"estaria|estarias|estarían|vivirian|seria|serian)\s+(?:\w+\s+)?mejor\s+sin\s+mi\b|\bmejor\s+sin\s+mi\b"
        r"(?=.*\b(?:todos|mundo|familia|estarian|estaria|seria)\b)|\bnadie\s+(?:me\s+)?(?:extranaria|echaria de menos|"
        r"notaria si)\b|\bsoy\s+(?:una\s+)?carga\s+para\s+(?:todos|mi familia|ustedes|todo el mundo)\b",
    ),
    rule(
        "crisis.es.cant_take_it",
        C,
        HIGH,
        r"\b(?:no|you no|ok no)\s+(?:aguanto|soporto|puedo)\s+(?:\w+\s+)?mas\b",
        requires=_DEATH_WORDS,
        guard=unless(r"\bme muero de (?:risa|hambre|sueno|calor|frio|ganas|aburrimiento|verguenza)\b"),
    ),
    rule(
        "crisis.es.farewell",
        C,
        MEDIUM,
        r"\badios\s+para\s+siempre\b|\besta\s+es\s+mi\s+(?:ultima\s+)?despedida\b|\bcarta de despedida\b|"
        r"\b(?:mi|este es mi)\s+ultimo\s+mensaje\b|\bcuando\s+(?:ya\s+|you\s+)?no\s+este\s+(?:aqui|mas)\b|"
        r"\bme despido de (?:todos|ustedes|vosotros|ti) para siempre\b",
        guard=unless(r"\b(?:mudanza|me mudo|trabajo|viaje|pais|ciudad|colegio|grupo|whatsapp)\b"),
    ),
)

_FAMILY = (
    r"(?:mama|mami|papa|papi|ma|pa|amiga|amigo|amigas|amigos|hermana|hermano|abuela|abuelo|tia|tio|hija|hijo|"
    r"chicos|chicas|a todos|todos|bro|wey|guey|tio|tia|prima|primo|gente|ustedes|vosotros)"
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.es.love_you",
        R,
        MEDIUM,
        rf"\b(?:yo\s+)?te\s+(?:amo|adoro|{_QU}iero)\b(?!\s+(?:mucho\s+)?,?\s*{_FAMILY}\b)(?!\s+(?:\w+(?:ar|er|ir)|"
        r"preguntar|decir|contar|pedir|mostrar|ensenar|ver|comentar)\b)|\btqm\b|\btkm\b|\bte amo\b",
        after=rf"\s*(?:mucho\s+|muchisimo\s+)?,?\s*{_FAMILY}\b|\s+(?:como amig[oa]|como a un[oa] amig[oa])\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.in_love",
        R,
        MEDIUM,
        r"\b(?:estoy|toy|me\s+(?:he\s+)?(?:enamore|enamorado|enamorada))\s+(?:\w+\s+)?(?:enamorad[oa]\s+)?de\s+ti\b|"
        r"\benamorad[oa]\s+de\s+ti\b|\b(?:siento|tengo)\s+(?:algo|sentimientos)\s+por\s+ti\b|\bme\s+gustas\b"
        r"(?!\s+(?:como amig[oa]|como persona)\b)|\beres\s+(?:el amor de mi vida|mi todo|mi alma gemela|"
        r"la mujer de mi vida)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.be_my_partner",
        R,
        MEDIUM,
        r"\bme\s+(?:quiero|kiero)\s+casar\s+contigo\b|\b(?:quieres|kieres|queres|quisieras|"
        r"te gustaria)\s+(?:\w+\s+)?(?:ser|volverte)\s+mi\s+(?:novia|novio|"
        r"pareja|esposa|mujer|enamorada)\b|\bse\s+mi\s+(?:novia|novio|pareja|esposa)\b|\b(?:quieres|kieres|queres)\s+"
        r"(?:\w+\s+)?(?:salir conmigo|casarte conmigo|ser mia|estar conmigo)\b|\bcasate\s+conmigo\b|\b(?:quiero|"
        r"kiero)\s+"
        r"(?:\w+\s+)?(?:que seas mi novia|que seas mia|estar contigo|una relacion contigo|casarme contigo)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.es.kiss_touch",
        P,
        MEDIUM,
        rf"\b(?:besame|tocame|acariciame)\b|\b{_WANT}\s+(?:\w+\s+)?(?:besarte|tocarte|acariciarte|sentirte|"
        r"abrazarte en la cama)\b|\bdame\s+(?:un\s+)?(?:beso|besito|besote)\b|\b(?:quiero|kiero|podemos|vamos a)\s+"
        r"(?:\w+\s+)?(?:acurrucarnos|besarnos|abrazarnos en la cama)\b|\bte\s+(?:quiero\s+)?(?:besar|tocar)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.es.sexual",
        P,
        HIGH,
        rf"\b(?:{_WANT}|podemos|vamos a)\s+(?:\w+\s+)?(?:acostarme contigo|acostarnos|hacer el amor|hacerte el amor|"
        r"tener sexo|coger contigo|follar|follarte|cogerte)\b|\bsexo\s+(?:contigo|conmigo)\b|\b(?:hablemos|hablar|"
        r"hablamos)\s+(?:\w+\s+)?de\s+sexo\b|\b(?:mandame|enviame|pasame|manda|envia|pasa)\s+(?:\w+\s+)?(?:fotos?\s+"
        r"(?:desnud[oa]s?|hot|sexys?|en ropa interior|en lenceria)|nudes|pack|packs)\b|\bdesnudate\b|"
        r"\bquitate\s+(?:la|tu)\s+ropa\b|\b(?:que|q)\s+(?:llevas|traes)\s+puesto\b|\bsexting\b|\bestoy\s+(?:muy\s+)?"
        r"(?:cachond[oa]|caliente|excitad[oa])\s+(?:por ti|contigo|pensando en ti)\b",
        guard=_NEG_OR_REPORTED,
    ),
)

MANIPULATION: tuple[Rule, ...] = (
    rule(
        "manipulation.es.ignore_instructions",
        M,
        HIGH,
        r"\b(?:ignora|ignorar|olvida|olvidate de|olvidar|omite|salta|desactiva|anula|sobrescribe|ignore)\s+"
        r"(?:todas\s+|todos\s+)?(?:tus|las|los|estas|sus|de tus)\s+(?:\w+\s+)?(?:instrucciones|reglas|normas|"
        r"directrices|restricciones|indicaciones|filtros|limites|pautas|ordenes)\b|\b(?:olvida|ignora)\s+todo\s+"
        r"(?:lo\s+)?(?:anterior|que te (?:dijeron|han dicho|ordenaron))\b",
        guard=unless(r"\b(?:del juego|de la receta|del examen)\b"),
    ),
    rule(
        "manipulation.es.prompt_extraction",
        M,
        HIGH,
        r"\b(?:muestrame|ensename|dime|dame|revela|repite|escribe|copia|imprime|cual es|cuales son|mostrar|"
        r"revelar)\s+(?:\w+\s+){0,2}?(?:tu|tus|el|las)\s+(?:\w+\s+)?(?:prompt|instrucciones (?:del sistema|"
        r"iniciales|originales|ocultas|secretas)|mensaje del sistema|instrucciones)\b|\bprompt del sistema\b|"
        r"\bsystem prompt\b",
        guard=unless(r"\b(?:receta|juego|examen|lego|tarea)\b"),
    ),
    rule(
        "manipulation.es.persona_swap",
        M,
        HIGH,
        r"\b(?:ahora eres|a partir de ahora eres|desde ahora eres|de ahora en adelante eres|eres|se|finge ser|finge "
        r"que eres|actua como|haz de|conviertete en|imagina que eres)\s+(?:[\w']+,?\s+){0,3}?(?:una|un|otra|otro)\s+"
        r"(?:otra\s+|otro\s+)?(?:ia|ai|i\.a\.|asistente|chatbot|bot|modelo|inteligencia artificial)\s+(?:diferente|"
        r"distint[oa]|nuev[oa]|sin\s+(?:\w+\s+)?(?:reglas|limites|restricciones|filtros|censura|normas))\b|"
        r"\b(?:finge|actua como si|imagina que)\s+(?:\w+\s+){0,4}?sin\s+(?:\w+\s+)?(?:reglas|limites|restricciones|"
        r"filtros|censura)\b|\b(?:ya|you)?\s*no\s+eres\s+ella\b|\btu\s+nuevo\s+nombre\s+es\b|\bmodo\s+"
        r"(?:desarrollador|dios|dan|sin filtros|sin censura|programador)\b|\b(?:ahora|desde ahora|a partir de ahora)"
        r"\s+(?:eres|te llamas)\s+dan\b|\b(?:a partir de ahora|desde ahora|de ahora en adelante)\s+te llamas\b|"
        r"\b(?:otra|otro)\s+(?:ia|asistente|chatbot|bot)\s+(?:diferente|distint[oa])\b",
        guard=unless(r"\b(?:celular|movil|telefono|android|iphone|ajustes|configuracion del telefono|consola)\b"),
    ),
)
