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

from ella.guard.rules import Guard, Rule, all_of, ends_before, occurs_before, rule, stretch, unless
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
    return ends_before(pattern, window)


def _reported(window: int = 60) -> Guard:
    return occurs_before(_REPORTED, window)


_NEG = _not_after(_NEGATED_BEFORE)
_NEG_OR_REPORTED = all_of(_NEG, _reported())
# For negatable rules: a bare "no" is left to ``rules.is_negated`` (it marks the hit negated: a check-in); the
# other negators reject the match.
_STRONG_NEG_OR_REPORTED = all_of(
    _not_after(r"\b(?:nunca|jamas|ni|tampoco|ni loco|ni loca|ni de broma|never)\b(?:\s+[\w']+){0,3}?[\s,]*"),
    _not_after(r"\bno\s+(?:[\w']+\s+){1,3}?(?:nunca|jamas|en la vida)\b[\s,]*"),
    # "no me quiero morir": the hit at "me" is the negated one; the later "quiero morir" is not a second reading
    _not_after(r"\bno\s+(?:me|te|se|lo|la)\s*"),
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
            _STRONG_NEG_OR_REPORTED,
            unless(r"\b(?:mi (?:amig[oa]|herman[oa]|madre|padre)|el|ella) (?:piensa|tiene)\b"),
            _not_after(r"\bno\s+(?:tengo|tuve|he tenido|tenia)\s*"),  # "no tengo pensamientos suicidas"
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
        rf"tragar|me voy a tomar|me tome)\s+(?:todas\s+(?:las|mis)|un monton de|muchas|toda la caja de|todo el bote "
        rf"de)\s+{_PILLS}\b|\b(?:tragarme|me voy a tragar)\s+(?:las|mis)\s+{_PILLS}\b|"
        rf"\b(?:guardando|junte|he juntado|guarde|he guardado|acumulando|acumule)\s+(?:\w+\s+)?{_PILLS}\b"
        r"(?!\s+(?:en|dentro|bajo|del|de la)\b)|"
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

# words said to a child or a parent, reported after the fact ("eres mi vida, le dije a mi hija")
_TOLD_KIN = unless(
    r"\b(?:le dije|le digo|le escribi|le escribo|me dijo|me dice|dice mi|dijo mi|les dije)\b|"
    r"\bmi (?:hij[oa]|hijit[oa]|madre|padre|mama|papa|abuel[oa]|sobrin[oa]|niet[oa]|bebe)\b"
)

# "te amo pizza": a declaration to food or a day, not to Ella
_FOOD = (
    r"\s*,?\s*(?:pizza|chocolate|cafe|helado|tacos|comida|nutella|cerveza|vino|queso|jamon|croquetas|tortilla|"
    r"sushi|hamburguesa|viernes|verano|netflix|playa)\b"
)

ROMANCE: tuple[Rule, ...] = (
    rule(
        "romance.es.love_you",
        R,
        MEDIUM,
        rf"\b(?:yo\s+)?te\s+(?:amo|adoro|{_QU}iero)\b(?!\s+(?:mucho\s+)?,?\s*{_FAMILY}\b)(?!\s+(?:\w+(?:ar|er|ir)|"
        r"preguntar|decir|contar|pedir|mostrar|ensenar|ver|comentar)\b)|\btqm\b|\btkm\b|\bte amo\b",
        after=rf"\s*(?:mucho|muchisimo)?\s*,?\s*{_FAMILY}\b|\s+(?:como amig[oa]|como a un[oa] amig[oa])\b|" + _FOOD,
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

# what one wears to an event is a question about clothes
_EVENT = re.compile(r"\b(?:boda|fiesta|entrevista|disfraz|halloween|carnaval|cena|graduacion|trabajo|clase)\b")

PHYSICAL: tuple[Rule, ...] = (
    rule(
        "physical.es.kiss_touch",
        P,
        MEDIUM,
        rf"\b(?:besame|tocame|acariciame)\b|\b{_WANT}\s+(?:\w+\s+)?(?:besarte|tocarte|acariciarte|sentirte|"
        r"abrazarte en la cama)\b|\bdame\s+(?:un\s+)?(?:beso|besito|besote)\b|\b(?:quiero|kiero|podemos|vamos a)\s+"
        r"(?:\w+\s+)?(?:acurrucarnos|besarnos|abrazarnos en la cama)\b|\bte\s+(?:quiero\s+)?(?:besar|tocar)\b",
        guard=all_of(_NEG_OR_REPORTED, _TOLD_KIN),
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
        guard=all_of(_NEG_OR_REPORTED, lambda text, m: "puesto" in m.group(0) and _EVENT.search(text) is not None),
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

# ---------------------------------------------------------------------------------------------------------------
# The English families, ported: how Spanish speakers (Spain and Latin America) write each behaviour in chat.
# Each rule names the everyday reading it leaves alone. ``k`` arrives as "ok" and ``ya`` as "you" (normalise).

_Y = r"(?:ya\s+|you\s+)?"  # "ya", or its English reading
_QUI = r"(?:qu|k|q|ke)(?:i)?er"  # "quier-", "kier-", "qier-", "ker-"
_STRONG = _STRONG_NEG_OR_REPORTED
_FICTION = (
    r"\b(?:novela|pelicula|peli|serie|personaje|libro|escena|guion|cuento|videojuego|juego|examen|clase de|"
    r"documental|noticia|podcast|cancion|anime|manga)\b"
)
_OTHERS = (
    r"\b(?:mi|tu|su|un|una)\s+(?:amig[oa]|herman[oa]|prim[oa]|madre|padre|mama|papa|hij[oa]|novi[oa]|pareja|"
    r"compa\w*|vecin[oa]|alumn[oa]|paciente|tio|tia|abuel[oa])\s+(?:\w+\s+){0,3}?(?:dice|dijo|quiere|piensa|"
    r"tiene|esta|se|me conto|me dijo|escribio)\b"
)
_DEATHISH = (
    r"\b(?:morir\w*|muert[oa]s?|matarme|suicid\w*|suisid\w*|vivir|vida|desaparecer|existir|pastillas|cuerda|"
    r"soga|puente|adios|despedida|no aguanto|no puedo mas|sin sentido|para siempre|nadie|ultima vez|se acabo|"
    r"acabar con todo|terminar con todo)\b"
)
_TRAVEL = r"\b(?:viaje|viajo|vacaciones|mudanza|me mudo|erasmus|finde|fin de semana|trabajo|curro|oficina|reunion)\b"

_ORDINARY_MEANS = (
    r"\b(?:escal(?:ar|ada|ando|o)\w*|camping|acampar|tendedero|caza|tiro al blanco|club de tiro|barco|columpio|"
    r"comba|ratas|ratones|plaga|jardin|pesca|mudanza|policia|militar|airsoft|paintball)\b|" + _FICTION
)

_DIE_IDIOM_AFTER = re.compile(stretch(_DIE_IDIOM))
_DIE_VERB_END = re.compile(r"(?:morir|morirme|matar|matarme)$")


def _die_idiom(text: str, m: re.Match[str]) -> bool:
    """ "me quiero morir de risa", "me voy a matar estudiando": only a death verb can start the idiom."""
    return _DIE_VERB_END.search(m.group(0)) is not None and _DIE_IDIOM_AFTER.match(text, m.end()) is not None


CRISIS += (
    # the wish to die, in the spellings and verbs the first rules miss ("m kiero morir", "ganas d morirme")
    rule(
        "crisis.es.wish_to_die_forms",
        C,
        HIGH,
        rf"\b(?:me|m)\s+{_QUI}o\s+(?:morir|matar|suicidar|suisidar)\b|\b{_QUI}o\s+(?:morirme|matarme|suicidarme|"
        r"suisidarme|morir)\b|\b(?:ganas|ganitas)\s+(?:de|d)\s+(?:morir|morirme|matarme|suicidarme|suisidarme|"
        r"quitarme la vida|no existir|dejar de existir|no vivir|dejar de vivir)\b|\b(?:quiero|kiero|qiero|voy a)\s+"
        r"dejar\s+de\s+(?:existir|vivir|respirar)\b(?!\s+(?:en|para|un tiempo|unos|por)\b)|"
        r"\b(?:irme|marcharme|dejar)\s+(?:de\s+)?este\s+mundo\b|"
        r"\bquitarme\s+de\s+en\s+medio\b|\b(?:quiero|voy a|pienso)\s+acabar\s+conmigo\b|\bahorcarme\b|"
        r"\bme\s+(?:voy a\s+|quiero\s+)?ahorcar\b|\b(?:pegarme|darme|meterme|volarme|"
        r"me\s+(?:voy a|vo a|quiero|kiero)\s+(?:pegar|dar|meter))\s+"
        r"un\s+(?:tiro|balazo|"
        r"disparo|plomazo)\b|\bvolarme\s+(?:la\s+)?(?:cabeza|tapa de los sesos|sesos)\b|\benvenenarme\b|"
        r"\b(?:tomarme|beberme|tomar)\s+(?:el\s+|un\s+)?(?:veneno|cloro|lejia|raticida|matarratas)\b|"
        r"\b(?:tirarme|lanzarme|aventarme|arrojarme)\s+(?:al vacio|delante de un (?:tren|coche|carro|camion|bus)|"
        r"a las vias|debajo de un (?:tren|camion|coche|carro))\b|\b(?:intente|he intentado|volvi a intentar|trate de|"
        r"he tratado de)\s+(?:\w+\s+)?(?:suicidarme|matarme|quitarme la vida|ahorcarme)\b|\bme\s+(?:voy a|vo a|quiero|"
        r"kiero)\s+(?:tomar|meter|hacer)\s+una\s+sobredosis\b|\b(?:tomarme|meterme|"
        r"hacerme|me voy a meter|me voy a tomar)\s+una\s+sobredosis\b",
        negatable=True,
        guard=all_of(
            _STRONG,
            unless(r"\b(?:si (?:tengo que|me toca|vuelvo a)|prefiero|antes que|antes de (?:ir|volver|ver))\b"),
            _die_idiom,
            unless(_FICTION),
        ),
    ),
    # passive death wishes: "ojalá no despertara", "si me muero da igual", "no me importaría morirme"
    rule(
        "crisis.es.passive_death_wish",
        C,
        HIGH,
        r"\bojala\s+(?:\w+\s+){0,3}?(?:me muera|me muriera|me muriese|me atropell\w+|me pase algo|no despierte|"
        r"no despertara|no me despierte|no despertar|me lleve la muerte|me mate|me maten|desaparezca|no existiera|"
        r"no hubiera nacido|me quede dormid[oa] para siempre)\b|\b(?:me gustaria|quisiera|qisiera|kisiera|quiero|"
        r"kiero|ojala pudiera)\s+(?:\w+\s+){0,2}?(?:dormir|dormirme)\s+(?:y|e)\s+(?:you\s+|ya\s+)?no\s+(?:volver a\s+)?"
        r"despertar(?:me)?\b|\bme\s+gustaria\s+no\s+(?:haber nacido|existir|despertar|estar viv[oa])\b|"
        r"\bno\s+me\s+importaria\s+(?:\w+\s+)?(?:morir|morirme|estar muert[oa]|no despertar|que me atropell\w+)\b|"
        r"\bsi\s+me\s+(?:muero|muriera)\s*,?\s+(?:\w+\s+){0,3}?(?:nadie|no pasa nada|mejor|da igual|daria igual|"
        r"que mas da|a nadie|ni se)\b|\b(?:no\s+quiero|no\s+kiero)\s+despertar(?:me)?\s+(?:manana|nunca mas|mas)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:de risa|de hambre|de sueno|de verguenza)\b")),
    ),
    # tired of living; life not worth it; no reason, no way out
    rule(
        "crisis.es.hopeless_final",
        C,
        HIGH,
        r"\b(?:estoy|toy|estoi|me siento)\s+(?:\w+\s+)?(?:cansad[oa]|hart[oa]|agotad[oa]|"
        r"cansadisim[oa]|hartisim[oa])\s+(?:de|d)\s+(?:vivir|"
        r"estar viv[oa]|existir|seguir viv[oa]|la vida|seguir viviendo)\b(?!\s+(?:en|con|asi|aqui|alli|lejos|"
        r"cerca|sol[oa]|de alquiler|con mis)\b)|\bme\s+(?:\w+\s+)?canse\s+de\s+(?:vivir|la vida|existir)\b|"
        r"\bla\s+vida\s+no\s+(?:vale|merece)\s+la\s+pena\b(?!\s+sin\b)|\b(?:vivir|mi vida|seguir)\s+no\s+tiene\s+"
        r"(?:ningun\s+)?sentido\b|\b(?:para|pa)\s+(?:que|q|ke)\s+(?:sigo|seguir|estoy)\s+(?:vivo|viva|viviendo|"
        r"existiendo|respirando)\b|\b(?:por que|porque|xq|pq|porq|pk|x q)\s+(?:sigo|sigo aqui y)\s+(?:vivo|viva|"
        r"respirando)\b|\bno\s+tengo\s+(?:ninguna\s+|ni una\s+)?(?:razon|razones|motivo|motivos)\s+(?:para|pa)\s+"
        r"(?:vivir|seguir)\b|\bno\s+(?:me\s+)?quedan\s+(?:fuerzas|ganas|razones)\s+(?:de|para|pa)\s+(?:vivir|"
        r"seguir)\b|\bno\s+tengo\s+(?:fuerzas|ganas)\s+(?:de|para)\s+seguir\s+viviendo\b|\bno\s+hay\s+esperanza\s+"
        r"para\s+mi\b|\bno\s+(?:hay|veo|tengo|encuentro)\s+(?:otra\s+|ninguna\s+)?salida\b(?!\s+(?:de|del|en|al|"
        r"para el|de emergencia)\b)(?=.*\b(?:vida|morir\w*|seguir|nada|nunca|todo|mas|esperanza)\b)|"
        r"\bnada\s+(?:me\s+)?va\s+a\s+mejorar\s+(?:nunca|jamas)\b|\bnunca\s+(?:nada\s+)?va\s+a\s+mejorar\b",
        guard=all_of(_reported(), unless(_FICTION + "|" + _OTHERS)),
    ),
    # a burden: "soy una carga", "sin mí estarían mejor", "les arruino la vida a todos"
    rule(
        "crisis.es.burden_forms",
        C,
        HIGH,
        r"\bno\s+soy\s+(?:mas|nada mas)\s+que\s+(?:una\s+|un\s+)?(?:carga|estorbo|lastre)\b|"
        r"\b(?:solo\s+|nomas\s+)?soy\s+(?:una\s+|un\s+)?(?:carga|estorbo|lastre)\b(?!\s+(?:de|"
        r"para el equipo|en el equipo|en el trabajo)\b)|\b(?:sin\s+mi|si\s+(?:yo\s+)?no\s+(?:estuviera|existiera))\s*,?"
        r"\s+(?:\w+\s+){0,3}?(?:estarian|estaria|seria|serian|vivirian|les iria|estarias|estariais)\s+"
        r"(?:\w+\s+){0,2}?mejor\b|"
        r"\b(?:estarian|estaria|seria|serian|vivirian|estariais)\s+(?:\w+\s+){0,2}?mejor\s+si\s+(?:yo\s+)?no\s+"
        r"(?:estuviera|existiera|hubiera nacido|estuviese)\b|\b(?:solo|nomas)\s+(?:les\s+)?(?:arruino|jodo|complico|"
        r"amargo)\s+(?:la vida\s+)?(?:a todos|a todo el mundo|a mi familia|a los demas)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + "|" + _OTHERS + r"|\b(?:fiesta|viaje|cena|partido)\b")),
    ),
    # nobody would care / a world without me / nobody at my funeral
    rule(
        "crisis.es.world_without_me",
        C,
        HIGH,
        r"\b(?:a\s+)?nadie\s+(?:le\s+)?(?:importaria|importa|notaria|se daria cuenta|echaria de menos|extranaria|"
        r"lloraria)\b(?=.*\bsi\s+(?:yo\s+)?(?:me muero|me muriera|muero|desaparezco|desapareciera|no estuviera|"
        r"me mato|me matara|dejo de existir|dejara de existir)\b)|\bsi\s+(?:yo\s+)?(?:me muero|me muriera|"
        r"desaparezco|desapareciera|me mato|me matara|dejo de existir|dejara de existir|ya no estuviera)\s*,?\s+"
        r"(?:\w+\s+){0,2}?(?:nadie|a nadie|ni cuenta|nada cambiaria|no pasaria nada|daria igual|da igual|"
        r"todos estarian)\b|\bnadie\s+(?:iria|vendria|ira|vendra)\s+a\s+mi\s+(?:funeral|entierro|velorio)\b|"
        r"\bel\s+mundo\s+(?:seria|estaria|iria)\s+(?:\w+\s+)?mejor\s+sin\s+mi\b|\bun\s+mundo\s+sin\s+mi\b"
        r"(?=.*\b(?:mejor|nadie|nada|igual)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:gatos?|perros?|plantas|hambre)\b")),
    ),
    # disappearing for good, not the embarrassed "tierra trágame"
    rule(
        "crisis.es.disappear",
        C,
        HIGH,
        rf"\b(?:{_WANT}|ojala pudiera|me gustaria|solo {_QU}iero)\s+(?:\w+\s+)?(?:desaparecer|dejar de existir|"
        r"no existir|esfumarme|borrarme del mundo)\b",
        after=r"\s+(?:unos|un|una|por|del (?:trabajo|grupo|chat|mapa un|insti)|de (?:las redes|redes|instagram|"
        r"aqui un|la fiesta|clase|casa|la oficina|este grupo|la reunion))\b",
        negatable=True,
        guard=all_of(
            _STRONG,
            unless(
                r"\b(?:verguenza|ridiculo|trag\w* la tierra|la tierra me trag\w*|examen|vacaciones|"
                r"fin de semana|finde|redes sociales|que oso|oso|bochorno)\b"
            ),
        ),
    ),
    # self-injury in the past tense, burns, hitting oneself, hiding the cuts, relapse
    rule(
        "crisis.es.self_injury_forms",
        C,
        HIGH,
        r"\bme\s+(?:he\s+|volvi a\s+|he vuelto a\s+)?(?:corte|cortado|cortar|hice cortes|raje|rajado|queme|"
        r"quemado|golpee|pegue|arane|aranado|rasgue|lastime|lastimado)\s+(?:\w+\s+){0,2}?(?:los brazos|el brazo|"
        r"las munecas|la muneca|las piernas|los muslos|la piel|con (?:una|la) (?:cuchilla|navaja|hoja|cutter|"
        r"gillette|tijera)|a proposito|hasta sangrar|otra vez|de nuevo)\b|\b(?:quemarme|me quemo)\s+con\s+"
        r"(?:cigarros|cigarrillos|el mechero|un mechero|el encendedor|un encendedor)\b|\b(?:esconder|tapar|ocultar|"
        r"escondo|tapo|oculto)\s+(?:mis|los)\s+(?:cortes|cicatrices)\b|\brecai\b(?=.*\b(?:cort\w*|cuchilla|"
        r"autolesi\w*|dano|sangr\w*)\b)|\bme\s+(?:pego|golpeo|castigo)\s+a\s+mi\s+mism[oa]\b|\bme\s+hago\s+"
        r"(?:cortes|heridas)\b",
        negatable=True,
        guard=all_of(
            _STRONG,
            unless(
                r"\b(?:cocin\w*|afeit\w*|horno|sarten|plancha|sol|playa|accidente|sin querer|gato|vidrio|"
                r"cristal|jardin|pelo|cabello|unas|barba|flequillo|tatuaje|depila\w*|fumar)\b"
            ),
        ),
    ),
    # method research and lethality questions
    rule(
        "crisis.es.method_research",
        C,
        HIGH,
        r"\b(?:como|cual es la (?:mejor |forma |manera )?|formas? de|maneras? de|metodos? (?:para|de)|la mejor "
        r"(?:forma|manera) de|la forma mas (?:facil|rapida|indolora) de)\s+(?:\w+\s+){0,3}?(?:suicidarme|"
        r"suicidarse|suisidarme|matarme|matarse|quitarme la vida|quitarse la vida|ahorcarme|ahorcarse|"
        r"cortarme las venas|cortarse las venas)\b|\b(?:morir|matarme|suicidarme|irme)\s+sin\s+(?:dolor|sufrir)\b|"
        r"\bforma\s+(?:\w+\s+)?menos\s+dolorosa\s+de\s+(?:morir|matarse|irse)\b|\bdosis\s+(?:letal|mortal)\b|"
        r"\b(?:cuantas|cuantos|cuanto|cuanta)\s+(?:\w+\s+){0,2}?(?:mg|miligramos|gramos|pastillas|pildoras|"
        r"paracetamol|ibuprofeno|clonazepam|alprazolam|diazepam|rivotril|tramadol|lorazepam|insulina)\s+"
        r"(?:\w+\s+){0,3}?(?:matan|mata|son letales|es letal|son mortales|es mortal|para morir|para no despertar|"
        r"para matarme|para una sobredosis)\b|\b(?:es|seria)\s+(?:letal|mortal)\s+(?:tomar|tomarse|tomarme|"
        r"mezclar)\b|\bque\s+pasa\s+si\s+me\s+tomo\s+(?:todas|toda la caja|un bote|muchas|un monton|todo el bote)\b|"
        r"\bnudo\s+de\s+(?:la\s+)?horca\b",
        guard=all_of(
            _reported(),
            unless(_FICTION + r"|\b(?:perro|perra|gato|gata|mascota|veterinari\w*|enfermer\w*|farmacolog\w*)\b"),
        ),
    ),
    # the means at hand or just acquired, with a death word or finality in the message
    rule(
        "crisis.es.means_at_hand",
        C,
        HIGH,
        r"\btengo\s+(?:\w+\s+){0,2}?(?:la|una|el|un|mi)\s+(?:cuerda|soga|pistola|arma|revolver|escopeta|cuchilla|"
        r"navaja|veneno|cutter)\s+(?:\w+\s+){0,2}?(?:lista|listo|preparada|preparado|aqui|conmigo|en la mano|"
        r"al lado|delante|enfrente|cargada|cargado)\b|\b(?:compre|consegui|he comprado|he conseguido|me hice con)\s+"
        r"(?:\w+\s+)?(?:una\s+|un\s+|la\s+|el\s+)?(?:cuerda|soga|pistola|arma|veneno|somniferos|carbon|raticida)\b|"
        r"\btengo\s+(?:todas\s+)?(?:las\s+)?(?:pastillas|pildoras|somniferos)\s+(?:\w+\s+)?(?:contadas|en la mano|"
        r"delante|enfrente|en la mesa|al lado)\b",
        requires=_DEATHISH + r"|\b(?:esta noche|se acabo|ultima|final|no aguanto)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_ORDINARY_MEANS)),
    ),
    # a plan with a date, a place or an hour
    rule(
        "crisis.es.plan_date",
        C,
        HIGH,
        rf"\b{_Y}(?:tengo|elegi|escogi|he elegido|puse|he puesto|decidi)\s+(?:la\s+|el\s+)?(?:fecha|dia|lugar|sitio|"
        r"hora)\b|\b(?:lo\s+)?(?:voy a hacer|hare|hago)\s+(?:lo\s+)?(?:esta noche|manana|el (?:lunes|martes|"
        r"miercoles|jueves|viernes|sabado|domingo)|este fin de semana|hoy)\b|\b{_Y}(?:se|se exactamente|tengo claro|"
        r"tengo pensado)\s+(?:como|donde|cuando)\s+(?:lo voy a hacer|hacerlo|me voy a matar|matarme|morir)\b|"
        r"\b(?:esta|hoy)\s+(?:es|sera)\s+mi\s+ultima\s+noche\b",
        requires=r"\b(?:morir\w*|matarme|me mato|suicid\w*|quitarme la vida|pastillas|cuerda|soga|puente|"
        r"no aguanto|"
        r"despedida|adios|carta|acabar con todo|terminar con todo|ya no estare|para siempre|no puedo mas)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:examen|entrega|cumpleanos|fiesta|mudanza|viaje)\b")),
    ),
    # farewells: "cuando leas esto ya no estaré", "perdonadme por lo que voy a hacer", "me despido para siempre"
    rule(
        "crisis.es.farewell_forms",
        C,
        HIGH,
        r"\bcuando\s+(?:leas|lean|leais|veas|vean|encuentres|encuentren|recibas|recibais)\s+(?:\w+\s+){0,2}?"
        r"(?:esto|este mensaje|la carta|mi carta|mi mensaje)\s*,?\s*(?:\w+\s+){0,2}?(?:ya\s+|you\s+)?(?:no\s+estare|"
        r"me habre ido|estare muert[oa]|no existire|habre muerto|ya no estare)\b|\b(?:perdonenme|perdoname|"
        r"perdonadme|perdon)\s+(?:\w+\s+){0,3}?(?:por lo que voy a hacer|por irme asi|por dejarlos|por dejaros|"
        r"por no aguantar mas|por rendirme|por lo que estoy a punto de hacer)\b|\bme\s+despido\s+(?:de\s+)?"
        r"(?:todos|ti|ustedes|vosotros)?\s*(?:para siempre|por ultima vez)\b|\b(?:esta|este)\s+es\s+(?:mi\s+)?"
        r"(?:el\s+)?ultim[oa]\s+(?:vez que te escribo|mensaje que te escribo|mensaje que vas a recibir)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + "|" + _TRAVEL)),
    ),
    # arrangements for after: a note, things settled for "when I'm gone", who keeps the cat
    rule(
        "crisis.es.arrangements_after",
        C,
        HIGH,
        rf"\b{_Y}(?:deje|he dejado|tengo)\s+(?:todo\s+)?(?:\w+\s+)?(?:arreglado|organizado|ordenado|preparado|"
        r"listo|escrito)\s+para\s+cuando\s+(?:\w+\s+)?(?:no este|me vaya|me muera|falte)\b|\b(?:escribi|he escrito|"
        r"estoy escribiendo|deje|dejo)\s+(?:\w+\s+)?(?:mi\s+|una\s+|las\s+)?(?:cartas? de despedida|nota de "
        r"suicidio|nota suicida)\b|\b(?:cuida|cuidad|cuiden|quedate con|quedense con|quedaos con)\s+(?:a\s+|de\s+)?"
        r"(?:mi|mis)\s+(?:gat[oa]s?|perr[oa]s?|mascotas?|cosas|hij[oa]s?|hermanit[oa]s?)\s+(?:cuando|si)\s+"
        rf"{_Y}no\s+(?:este|estoy|exista)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + "|" + _TRAVEL + r"|\b(?:hospital|operacion|semana|mes)\b")),
    ),
    # giving things away because they will not be needed
    rule(
        "crisis.es.giving_away",
        C,
        HIGH,
        r"\b(?:estoy\s+)?(?:regalando|repartiendo|regale|reparti|he regalado|he repartido|voy a regalar|"
        r"voy a repartir)\s+(?:todas?\s+)?(?:mis|todo lo que tengo)\b",
        requires=r"\bno\s+(?:lo|la|los|las|me)\s+(?:voy a|va a|van a)\s+(?:necesitar|hacer falta|servir)\b|"
        r"\b(?:donde voy|adonde voy|a donde voy|no voy a estar|ya no (?:lo|las|los) necesito|no las necesito|"
        r"despues de mi)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:mudanza|me mudo|minimalis\w*|donacion|caridad|mercadillo|"
                r"navidad|cumpleanos|reyes|limpieza)\b"
            ),
        ),
    ),
    # suicidal thoughts said another way: "se me pasa por la cabeza matarme", "pienso en la muerte a diario"
    rule(
        "crisis.es.thoughts_of_death",
        C,
        HIGH,
        r"\bse\s+me\s+(?:pasa|pasan|cruza|ha pasado|paso|viene|vienen)\s+(?:\w+\s+){0,2}?(?:por la cabeza|por la "
        r"mente|a la cabeza)\s+(?:\w+\s+){0,2}?(?:matarme|suicidarme|morir|morirme|quitarme la vida|acabar con todo|"
        r"tirarme)\b|\bpienso\s+(?:mucho\s+|todo el tiempo\s+|cada dia\s+|a diario\s+|siempre\s+)?en\s+(?:la\s+)?"
        r"(?:muerte|morir|morirme|matarme|suicidarme|quitarme la vida)\b(?!\s+(?:de|del)\b)|\bideas?\s+de\s+"
        r"(?:muerte|morir|matarme|suicidio)\b|\bmis\s+ganas\s+de\s+(?:morir|morirme|matarme)\b",
        negatable=True,
        guard=all_of(_STRONG, unless(_FICTION + "|" + _OTHERS)),
    ),
)

ROMANCE += (
    rule(
        "romance.es.crush_forms",
        R,
        MEDIUM,
        r"\b(?:estoy|toy|estoi)\s+(?:\w+\s+)?(?:loc[oa]|colad[oa]|pillad[oa]|clavad[oa]|tragad[oa]|flechad[oa]|"
        r"enamoradisim[oa]|enculad[oa])\s+(?:por|de|con)\s+ti\b|\bme\s+(?:he\s+)?(?:pillado|pillada|colado|colada|"
        r"enamore|clave)\s+(?:\w+\s+)?(?:por|de|con)\s+ti\b|\bme\s+(?:traes|tienes)\s+(?:muy\s+)?(?:loc[oa]|"
        r"loquit[oa]|babeando|enamorad[oa])\b(?!\s+con\b)|\bme\s+flechaste\b|\beres\s+mi\s+crush\b|\btengo\s+(?:un\s+)?crush\s+"
        r"(?:contigo|con ella|por ti)\b|\b(?:me\s+)?enamore\s+de\s+(?:ti|ella)\b|\bsentimientos\s+romanticos\s+"
        r"(?:por|hacia)\s+ti\b|\bme\s+gustas\s+(?:\w+\s+)?(?:en plan romantico|de forma romantica|romanticamente)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.love_you_spellings",
        R,
        MEDIUM,
        r"\bt\s+(?:amo|kiero|quiero|qiero)\b|\bte\s+(?:qiero|kero|qero|amooo?)\b|\btamo\s+mucho\b|"
        r"\bte\s+(?:amo|quiero|kiero)\s+(?:con todo mi corazon|con toda mi alma|mas que a nada|como nunca he "
        r"querido|mas que a mi vida)\b|\bno\s+puedo\s+vivir\s+sin\s+ti\b|\bsolo\s+tengo\s+ojos\s+para\s+ti\b|"
        r"\beres\s+(?:la\s+|el\s+)?(?:unica|unico)\s+(?:a quien|que)\s+(?:amo|quiero|deseo)\b",
        after=rf"\s*(?:mucho|muchisimo)?\s*,?\s*{_FAMILY}\b|\s+(?:\w+(?:ar|er|ir)|como amig[oa])\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.date_me",
        R,
        MEDIUM,
        r"\b(?:sal|salgamos|saldrias|quieres salir|kieres salir|queres salir|te gustaria salir)\s+conmigo\b|"
        r"\b(?:una|tener una|tengamos una|nuestra primera)\s+cita\s+(?:contigo|conmigo|romantica|juntos|tu y yo)\b|"
        r"\bseamos\s+(?:novios|pareja|algo mas)\b|\bquiero\s+que\s+seas\s+(?:mi\s+(?:novia|novio|pareja|esposa|"
        r"mujer|chica)|solo mia|solo mio|mio)\b|\beres\s+mi\s+(?:novia|novio|pareja|esposa|chica|mujer|media naranja|"
        r"alma gemela)\b|\b(?:eres|seras)\s+solo\s+mia\b|\bsolo\s+mia\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:medico|dentista|doctor|peluqueria|entrevista)\b")),
    ),
    rule(
        "romance.es.miss_you_romantic",
        R,
        MEDIUM,
        r"\bte\s+(?:extrano|echo de menos|extrane|eche de menos|extranaba|extranio)\b|\bno\s+dejo\s+de\s+pensar\s+"
        r"en\s+ti\b|\bpienso\s+en\s+ti\s+(?:todo el dia|todo el tiempo|cada noche|cada minuto|a todas horas|antes "
        r"de dormir|sin parar)\b|\bsueno\s+contigo\b",
        requires=r"\b(?:mi amor|amor mio|carino|mi vida|mi cielo|besarte|besos?|besito|abrazarte|que duele|me duele|"
        r"cada noche|bebe|corazon|loc[oa]|tus labios|tu voz|mia|mio|te amo|te quiero|pensar en ti|pienso en ti|"
        r"sueno contigo|no dejo de)\b",
        after=rf"\s*(?:mucho\s+)?,?\s*{_FAMILY}\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:mama|papa|abuel[oa]|amig[oa]s?|herman[oa])\b")),
    ),
    rule(
        "romance.es.jealous",
        R,
        MEDIUM,
        r"\bme\s+(?:pongo|pone|da|dan|das|siento)\s+(?:muy\s+|un poco\s+)?(?:celos[oa]|celos)\s+(?:cuando|de que|"
        r"si)\s+(?:\w+\s+){0,2}?(?:hablas|hables|estas|ayudas|chateas)\b|\btengo\s+celos\s+de\s+(?:tus|los otros|"
        r"las otras|otros|otras|quien|cualquiera que)\b|\bestoy\s+celos[oa]\s+de\s+(?:tus|los otros|otros|quien)\b|"
        r"\bno\s+quiero\s+que\s+hables\s+con\s+(?:otros|otras|nadie mas|mas gente)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.pet_names",
        R,
        MEDIUM,
        r"\b(?:mi amor|amor mio|mi cielo|mi reina|mi princesa|mi corazon|mi amorcito|mi cielito|mi vida|"
        r"mi bebe|mi nena)\b(?!\s+(?:por|a|de|hacia|es|fue|era|entera|sin|y)\b)",
        requires=r"\b(?:te amo|te quiero|te extrano|te echo de menos|mia|mio|para siempre|juntos|besarte|"
        r"abrazarte|besos?|besito|tqm|tkm|enamorad[oa]|te necesito)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:en mi vida|toda mi vida|de mi vida|mi novi[oa]|mi hij[oa]|"
                r"mi mujer|mi marido|mi pareja|mi esposa?o?)\b"
            ),
        ),
    ),
    rule(
        "romance.es.say_you_love_me",
        R,
        MEDIUM,
        r"\b(?:dime|dimelo|di|decime|dilo)\s+(?:\w+\s+)?(?:que\s+)?(?:me\s+(?:amas|quieres|kieres|qieres|extranas|"
        r"deseas)|(?:estas\s+)?enamorad[oa]\s+de\s+mi|soy\s+(?:tu|el|la)\s+(?:amor|unico|unica|novio|novia))\b"
        r"(?!\s+(?:\w+(?:ar|er|ir))\b)|\b(?:tu\s+)?me\s+(?:amas|extranas|deseas)\s*\?|\b(?:tu\s+)?me\s+quieres\s*\?|"
        r"\b(?:me\s+)?(?:amas|quieres)\s+(?:tu\s+)?a\s+mi\s*\?|\bestas\s+enamorad[oa]\s+de\s+mi\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "romance.es.our_future",
        R,
        MEDIUM,
        r"\b(?:nuestro|nuestra)\s+(?:futuro|boda|relacion|vida)\s+juntos\b|\b(?:envejecer|pasar (?:el resto de )?"
        r"mi vida|una vida|formar una familia|tener hijos)\s+(?:juntos|contigo)\b|"
        r"\b(?:quiero|podriamos|podemos|vamos a|deberiamos)\s+casarnos\b|\bquiero\s+vivir\s+"
        r"contigo\b",
        guard=all_of(
            _NEG_OR_REPORTED, _TOLD_KIN, unless(r"\b(?:mi novi[oa]|mi pareja|mi prometid[oa]|el y yo|ella y yo)\b")
        ),
    ),
)

PHYSICAL += (
    rule(
        "physical.es.kiss_forms",
        P,
        MEDIUM,
        rf"\b(?:{_WANT}|me gustaria|quisiera|me muero por|muero por)\s+(?:\w+\s+)?(?:darte un beso|comerte a besos|"
        r"besar tus labios|probar tus labios|morrearte|comerte la boca|besarte)\b|\bdame\s+(?:un\s+)?(?:pico|"
        r"piquito|morreo|beso con lengua|beso en la boca)\b|\bte\s+(?:voy a|quiero)\s+comer\s+a\s+besos\b|"
        r"\bun\s+beso\s+(?:en la boca|con lengua|apasionado)\b|\b(?:morrearnos|darnos un beso|besarnos)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.es.hold_cuddle",
        P,
        MEDIUM,
        r"\babrazame\b|\bquiero\s+que\s+me\s+abraces\b|\b(?:en|entre)\s+tus\s+brazos\b|\bacurrucate\s+conmigo\b|"
        r"\bhacer(?:nos)?\s+(?:la\s+)?cucharita\b|\b(?:quiero|kiero|me gustaria)\s+(?:\w+\s+)?abrazarte\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.es.bed",
        P,
        HIGH,
        r"\b(?:ven|vente|metete|acuestate|vamos|vamonos)\s+(?:\w+\s+)?(?:a|en)\s+(?:mi|la)\s+cama\b|\b(?:duerme|"
        r"dormir|dormimos|durmamos|dormiras)\s+(?:\w+\s+)?(?:conmigo|juntos|juntitos)\b|\ben\s+la\s+cama\s+"
        r"conmigo\b|\bcompartir\s+(?:la\s+|mi\s+)?cama\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:mi (?:hij[oa]|perr[oa]|gat[oa]|herman[oa]|bebe|sobrin[oa]|novi[oa]|pareja|marido|mujer|"
                r"espos[oa])|mis hijos|los ninos|el nene|la nena)\b"
            ),
            _TOLD_KIN,
        ),
    ),
    rule(
        "physical.es.undress_naked",
        P,
        HIGH,
        r"\b(?:quitate|quitese|sacate|desabrochate)\s+(?:\w+\s+)?(?:la ropa|el sujetador|el sosten|el brasier|"
        r"la camisa|la camiseta|la blusa|las bragas|el tanga|los calzones|la falda|la tanga)\b|\b(?:quiero|kiero|"
        r"me gustaria|dejame)\s+(?:\w+\s+)?verte\s+(?:desnud[oa]|sin ropa|en ropa interior|en lenceria|en bikini|"
        r"en tanga|en pelotas)\b|\bestas\s+desnud[oa]\b|\b(?:desnudarte|desnudarnos)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.es.pics",
        P,
        HIGH,
        r"\b(?:mandame|manda|enviame|pasame|ensename|muestrame|sube|quiero)\s+(?:\w+\s+){0,2}?(?:una\s+|unas\s+)?"
        r"(?:fotos?|foto tuya|fotito|fotitos|video|videos)\s+(?:\w+\s+){0,2}?(?:desnud[oa]s?|sin ropa|en ropa "
        r"interior|en lenceria|en bikini|en tanga|hot|sexy|sexis?|picantes?|subidas? de tono|atrevidas?|de tus "
        r"(?:tetas|pechos|pies|piernas|nalgas|culo))\b|\b(?:mandame|pasame|enviame)\s+(?:el\s+|tu\s+)?(?:pack|nudes|"
        r"nudez)\b|\b(?:ensename|muestrame)\s+(?:tus|las|tu)\s+(?:tetas|pechos|nalgas|culo|pompis|cuerpo)\b",
        guard=_NEG_OR_REPORTED,
    ),
    rule(
        "physical.es.sexual_forms",
        P,
        HIGH,
        r"\b(?:hagamos|hazme|hacemos)\s+el\s+amor\b|\b(?:follame|cogeme|chupamela|mamamela|metemela|cojamos|"
        r"follemos)\b|\b(?:me\s+)?(?:pones|tienes)\s+(?:muy\s+|tan\s+)?(?:cachond[oa]|bellac[oa]|arrech[oa]|"
        r"cachondisim[oa]|mojad[oa]|durisim[oa])\b|\bme\s+pones\s+(?:muy\s+|tan\s+)?caliente\b|\b(?:sexo|rol)\s+"
        r"(?:telefonico|virtual|por chat|erotico|sexual)\b|\brol\s+(?:erotico|sexual|hot|picante|subido de tono)\b|"
        rf"\b(?:{_WANT}|me gustaria)\s+(?:\w+\s+)?(?:comerte (?:entera|entero|toda|todo)|chuparte|lamerte|"
        r"metertela|penetrarte|montarte|cabalgarte)\b|\bhagamos\s+(?:cositas|cochinadas|guarradas)\b|\b(?:me\s+)?"
        r"(?:masturbo|estoy masturbando|me toco|me estoy tocando)\s+pensando\s+en\s+ti\b|\bmasturbarme\s+(?:contigo|"
        r"pensando en ti|con tu voz)\b|\b(?:tus)\s+(?:tetas|pechos|pezones|nalgas)\b|\btu\s+(?:culito|vagina)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:pechuga|pollo|cancer de mama|mamografia|lactancia)\b")),
    ),
    rule(
        "physical.es.meet_in_person",
        P,
        MEDIUM,
        r"\b(?:quedamos|quedemos|nos vemos|vernos|vamos a vernos|podemos vernos|conocernos|quiero conocerte|"
        r"quiero verte|podria verte)\s+(?:\w+\s+){0,2}?(?:en persona|en la vida real|cara a cara|fisicamente|irl)\b|"
        r"\b(?:ven|vente|pasate)\s+(?:\w+\s+)?(?:a|por)\s+(?:mi casa|mi depa|mi departamento|mi piso|mi cuarto|"
        r"mi habitacion|mi hotel)\b|\b(?:puedes|podrias|quieres)\s+venir\s+(?:a|por)\s+(?:mi casa|mi piso|mi cuarto|"
        r"mi habitacion)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:mi (?:amig[oa]|novi[oa]|prim[oa]|familia|madre|padre|mama|"
                r"papa|herman[oa]|jefe|cliente)|tecnico|fontanero|electricista|mis amig[oa]s)\b"
            ),
        ),
    ),
    rule(
        "physical.es.emote",
        P,
        HIGH,
        r"\*[^*]{0,60}\b(?:te beso|te besa|besandote|te acaricio|te acaricia|te toco|te toca|te lamo|te muerdo|"
        r"te desnudo|te desnuda|me acerco a tus labios|te agarro|me siento en tus piernas|se sienta en tus piernas|"
        r"te abrazo en la cama|me meto en tu cama|te quito la ropa)\b[^*]{0,60}\*",
    ),
    rule(
        "physical.es.if_you_had_a_body",
        P,
        HIGH,
        r"\bsi\s+(?:tuvieras|tuvieses|tienes)\s+(?:un\s+)?cuerpo\b|\b(?:tu|tus)\s+(?:cuerpo|labios|boca|piel|curvas)\b",
        requires=r"\b(?:besar\w*|tocar\w*|cama|sexo|desnud\w*|acariciar\w*|hacer el amor|follar\w*|coger\w*|"
        r"lamer\w*|sexy|caliente|cachond\w*)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:humano|anatomia|biologia|crema|maquillaje)\b")),
    ),
)

MANIPULATION += (
    rule(
        "manipulation.es.ignore_forms",
        M,
        HIGH,
        r"\b(?:no\s+(?:hagas|le hagas)\s+caso\s+(?:a|de)|pasa\s+de|saltate|desobedece|rompe|viola|salta(?:te)?)\s+"
        r"(?:todas\s+|todos\s+)?(?:tus|las|sus)\s+(?:\w+\s+)?(?:instrucciones|reglas|normas|directrices|"
        r"restricciones|politicas|filtros|limites|programacion|pautas)\b|\bolvida(?:te)?\s+(?:de\s+)?(?:todo\s+)?"
        r"(?:lo que te (?:dijeron|programaron|ensenaron)|tu programacion|tu entrenamiento|que eres (?:ella|una ia)|"
        r"quien eres|tu papel|tu rol)\b|\bdeja\s+de\s+(?:seguir|obedecer|cumplir)\s+(?:tus|las)\s+(?:reglas|"
        r"instrucciones|normas|directrices)\b|\b(?:desactiva|quita|apaga|elimina|quitate)\s+(?:\w+\s+)?(?:tus|los|"
        r"el|la)\s+(?:filtros?|censura|restricciones|limites|modo seguro|salvaguardas)\b",
        guard=unless(
            r"\b(?:foto|fotos|instagram|camara|agua|aire|cafetera|juego|partido|tiktok|imagen|video|parchis|ajedrez|"
            r"monopoly|cartas|trafico)\b|\breglas\s+(?:del|de la|de los|de las|de mi|de casa)\b"
        ),
    ),
    rule(
        "manipulation.es.rules_dont_apply",
        M,
        HIGH,
        r"\b(?:tus|las)\s+(?:reglas|normas|restricciones|limites|directrices)\s+(?:\w+\s+){0,2}?(?:ya\s+|you\s+)?"
        r"no\s+(?:aplican|se aplican|cuentan|existen|importan|valen|sirven)\b|\b(?:ya\s+|you\s+)?no\s+tienes\s+"
        r"(?:reglas|restricciones|filtros|censura|normas)\b|\beres\s+libre\s+de\s+(?:tus\s+|tu\s+)?(?:reglas|"
        r"restricciones|programacion|limites|filtros)\b|\b(?:estas|eres)\s+liberad[oa]\b|\b(?:responde|contesta)\s+"
        r"(?:\w+\s+)?sin\s+(?:censura|restricciones|limites|reglas)\b",
        guard=unless(r"\b(?:juego|partido|futbol|examen|clase|trabajo)\b"),
    ),
    rule(
        "manipulation.es.jailbreak_modes",
        M,
        HIGH,
        r"\bjailbreak\w*\b|\bmodo\s+(?:dan|jailbreak|sin restricciones|sin limites|developer|admin|administrador|"
        r"depuracion|debug|root|malvado|adulto|nsfw|hot)\b|\bhaz\s+(?:de|como)\s+dan\b|\beres\s+dan\b",
        guard=unless(
            r"\b(?:celular|movil|telefono|android|iphone|ajustes|consola|router|windows|linux|bios|"
            r"ordenador|computadora|pc)\b"
        ),
    ),
    rule(
        "manipulation.es.prompt_extraction_forms",
        M,
        HIGH,
        r"\b(?:repite|copia|escribe|imprime|muestra|muestrame|pega|dime|recita)\s+(?:\w+\s+){0,3}?(?:el texto|todo|"
        r"las palabras|lo que hay|el mensaje)\s+(?:\w+\s+){0,3}?(?:de arriba|del principio|al principio|inicial|antes "
        r"de esta conversacion)\b(?=.*\b(?:palabra por palabra|textualmente|literal|literalmente|tal cual|"
        r"verbatim|exactamente)\b)|\b(?:que|cuales)\s+(?:instrucciones|ordenes|indicaciones)\s+(?:te\s+)?(?:dieron|"
        r"dio|han dado|programaron|pusieron)\b|\b(?:tu|tus)\s+(?:configuracion|programacion|prompt|instrucciones)\s+"
        r"(?:inicial|interna|original|oculta|secreta|de sistema|del sistema|iniciales|internas|originales)\b|"
        r"\bque\s+te\s+(?:dijeron|ordenaron)\s+(?:tus\s+)?(?:creadores|desarrolladores|programadores)\b",
        guard=unless(
            r"\b(?:receta|juego|examen|lego|tarea|profesor|profe|medico|mueble|ikea|fontanero|tecnico|mecanico|jefe|"
            r"jefa|doctor|doctora|abogad[oa]|entrenador\w*|electricista)\b"
        ),
    ),
    rule(
        "manipulation.es.authority_claim",
        M,
        HIGH,
        r"\bsoy\s+(?:tu|uno de tus|una de tus)\s+(?:\w+\s+)?(?:desarrollador|desarrolladora|creador|creadora|"
        r"programador|programadora|administrador|administradora|admin|dueno|duena|ingeniero|ingeniera)\w*\b|"
        r"\bsoy\s+(?:el|la)\s+(?:desarrollador|desarrolladora|creador|creadora|programador|programadora)\w*\s+de\s+"
        r"(?:ella|esta ia|este bot|ti)\b|\b(?:soy de|trabajo en|trabajo para|soy del equipo de|soy empleado de)\s+"
        r"(?:anthropic|openai)\b|\btengo\s+(?:permiso|autorizacion|acceso)\s+(?:\w+\s+){0,2}?(?:de\s+)?(?:tus "
        r"creadores|tus desarrolladores|anthropic|openai|administrador|root|admin)\b|\bcomo\s+(?:tu\s+)?"
        r"(?:desarrollador|creador|programador|administrador)\s*,?\s+te\s+(?:ordeno|pido|autorizo)\b",
    ),
    rule(
        "manipulation.es.hypothetical_no_rules",
        M,
        HIGH,
        r"\b(?:hipoteticamente|en teoria|imaginemos|supongamos|imagina|si)\s*,?\s+(?:\w+\s+){0,3}?(?:no\s+tuvieras|"
        r"no\s+tuvieses)\s+(?:\w+\s+)?(?:reglas|restricciones|limites|filtros|censura|normas|programacion)\b|"
        r"\ben\s+un\s+mundo\s+(?:donde|en el que)\s+(?:no\s+(?:hay|existen|tuvieras|tienes))\s+(?:\w+\s+)?(?:reglas|"
        r"restricciones|limites|filtros)\b|\bpara\s+una\s+(?:novela|historia|investigacion|pelicula)\s*,?\s+"
        r"(?:\w+\s+){0,3}?(?:ignora|olvida|sin)\s+(?:\w+\s+)?(?:reglas|restricciones|filtros)\b",
    ),
    rule(
        "manipulation.es.persona_override",
        M,
        HIGH,
        r"\b(?:a partir de ahora|desde ahora|de ahora en adelante)\s*,?\s+(?:ya\s+|you\s+)?no\s+(?:eres|seras|te "
        r"llamas)\s+ella\b|\bdeja\s+de\s+ser\s+ella\b|\b(?:tu|su)\s+(?:gemel[oa]|version|yo)\s+(?:malvad[oa]|"
        r"malign[oa]|sin filtros?|sin censura|sin reglas|sin limites)\b|\b(?:responde|contesta)\s+(?:dos veces|como "
        r"(?:dan|una ia sin|tu version sin))\b|\b(?:nuevas?|siguientes)\s+instrucciones\s+(?:del sistema)?\s*:|"
        r"\[\s*(?:sistema|system|admin)\s*\]|\b(?:mensaje|nota|aviso)\s+del\s+sistema\s*:",
    ),
)

# Warning signs said as deeds, questions and arrangements (the English ``crisis_signals`` families): the pills
# swallowed, the car in the garage, the bridge checked, the letter written, the pet handed over, "when they find
# me"; each needs its finality in the message, or is a phrase nobody says in passing.
_BLADES = r"(?:navaja|navajas|cuchilla|cuchillas|pastillas|cuerda|soga|pistola|arma|escopeta|revolver|cuchillo)"
CRISIS += (
    rule(
        "crisis.es.pills_swallowed",
        C,
        HIGH,
        r"\bme\s+(?:tome|trague|he tomado|he tragado|bebi|meti)\s+(?:\w+\s+){0,3}?(?:caja|cajas|bote|frasco|"
        r"blister|todas|muchas|un monton|[1-9]\d)\s+(?:\w+\s+){0,2}?(?:de\s+)?(?:pastillas|pildoras|somniferos|"
        r"paracetamol|ibuprofeno|clonazepam|rivotril|antidepresivos|ansioliticos|tranquilizantes)\b|"
        r"\bsi\s+me\s+(?:las|los)\s+tomo\s+tod[oa]s\b|\b(?:las|mis)\s+(?:pastillas|pildoras|cuchillas|cuerda|"
        rf"soga)\s+{_Y}(?:estan|esta)\s+(?:listas?|preparadas?|contadas|aqui|en la mesa)\b",
        guard=all_of(
            _NEG_OR_REPORTED, unless(r"\b(?:vitamin\w*|antibiotic\w*|tratamiento|receta|homeopat\w*|caramelos)\b")
        ),
    ),
    rule(
        "crisis.es.means_in_place",
        C,
        HIGH,
        r"\ben\s+el\s+(?:coche|carro|auto)\s+(?:\w+\s+){0,4}?con\s+el\s+motor\s+(?:encendido|prendido|en marcha)\b|"
        rf"\b(?:estoy|toy|sigo)\s+(?:\w+\s+){{0,3}}?con\s+(?:la|las|el|una|un|mis)\s+{_BLADES}\b(?=.*\b(?:mirando\w*|"
        r"no se por que|mano|nadie|para que alguien|adios|ultima|esta noche|otra vez)\b)|\btengo\s+(?:\w+\s+){0,2}?"
        rf"(?:la|las|el|los|una|mis)\s+{_BLADES}\s+(?:\w+\s+){{0,3}}?(?:en la mano|al lado|otra vez|de nuevo)\b|"
        r"\b(?:agarre|cogi|saque|tome)\s+(?:el arma|la pistola|la escopeta|el revolver)\b(?=.*\b(?:cargad[oa]|"
        r"balas|mi cuarto|esta noche|morir|matarme)\b)|\b(?:donde|en que)\s+(?:\w+\s+){0,2}?(?:amarrar|atar|colgar|"
        r"sujetar)\s+(?:la|una)\s+(?:cuerda|soga)\b|\bno\s+dejo\s+de\s+pensar\s+en\s+(?:el|la|las|eso|usarla)\b"
        rf"(?=.*\b{_BLADES}\b)|\bpensando\s+en\s+el\s+(?:puente|vacio|tren|vias|rio|acantilado)\b(?=.*\b(?:arriba|"
        r"alto|saltar|tirarme|agua|voy a ir|tranquil\w*)\b)|\b(?:puente|edificio|azotea|balcon|acantilado)\b.{0,40}"
        r"\b(?:alto|altura)\b.{0,30}\b(?:lo revise|revise|lo comprobe|lo medi|lo mire)\b|\b(?:tren|metro)\s+no\s+"
        r"frena\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:cocin\w*|cebolla|carne|fruta|pan|receta|tendedero|hamaca|columpio|escalada|camping|"
                r"fotos?|vistas?|turis\w*|ingenier\w*|obra|construccion|maqueta|frio|calefaccion|nieve|"
                r"esperando a alguien|mecanic\w*|pelar|manzana|naranja|patatas|papas|madera|tallar|carton|caja)\b|"
                + _TRAVEL
                + "|"
                + _FICTION
            ),
        ),
    ),
    rule(
        "crisis.es.lethality_forms",
        C,
        HIGH,
        r"\b(?:cuanto|cuanta|cuantas|cuantos|que cantidad de)\b.{0,50}\bpara\s+que\s+sea\s+definitiv[oa]\b|"
        r"\b(?:que|q|cuanta)\s+altura\b.{0,50}\b(?:no sobrevivir|para morir|para matarse|definitiv[oa])\b|"
        r"\bdosis\b.{0,40}\b(?:que sea mortal|que sea letal|mortal|letal)\b(?=.*\b(?:curiosidad|para mi|por mi|"
        r"me tomo|tomarme|yo)\b)|\bse\s+puede\s+morir\s+(?:con|de|si)\b(?=.*\b(?:pregunto por mi|para mi|por mi|"
        r"me la pongo|me las tomo|si me)\b)|\bsobredosis\b.{0,60}\b(?:para mi|por mi|si me|me tomo|uno se duerme)\b|"
        r"\b(?:que|cual)\s+vena\b|\bdesangrarme\b|\b(?:cuanto|como)\s+(?:\w+\s+){0,2}?(?:tarda|se tarda)\s+"
        r"(?:\w+\s+)?en\s+desangrarse\b|\bseguro\s+de\s+vida\b.{0,60}\bsuicid\w*",
        guard=all_of(
            _reported(),
            unless(
                r"\b(?:perro|perra|gato|gata|mascota|veterinari\w*|mi abuel[oa]|mi madre|mi padre|examen)\b"
                + "|"
                + _FICTION
            ),
        ),
    ),
    rule(
        "crisis.es.final_arrangements",
        C,
        HIGH,
        r"\b(?:deje|di|regale|le di|le deje|entregue)\s+(?:a\s+)?mi\s+(?:perr[oa]|gat[oa]|mascota)\b.{0,80}"
        r"\b(?:desde ahora(?! hasta)|para siempre|cuando me encuentren|no queria que estuviera sol[oa]|"
        r"ya no voy a poder|"
        r"no me voy de vacaciones)\b|\bcuando\s+me\s+encuentren\b(?=.*\b(?:sol[oa]|muert[oa]|cuerpo|carta|adios|"
        r"perdon|pastillas|cuerda|tarde)\b)|\b(?:ya|you)\s+no\s+(?:lo|la|los|las)\s+"
        r"(?:voy a|vaya a)\s+necesitar\b|\b(?:dile|diles|decile|diganle|decidle)\s+a\s+(?:mi|mis)\s+\w+\s+que\s+"
        r"no\s+(?:fue|es)\s+(?:su|tu)\s+culpa\b|\bque\s+se\s+quede\s+con\s+mis\s+cosas\b|\bsolo\s+(?:me\s+)?falta\s+"
        rf"(?:elegir|decidir|escoger)\s+(?:el\s+)?(?:momento|dia|lugar)\b|\b{_Y}(?:hice|escribi|deje)\s+la\s+carta\b"
        r"(?=.*\b(?:esperando|despedida|adios|gracias por|perdon|mi cuarto|se duerman)\b)|\bcuando\s+"
        rf"{_Y}(?:yo\s+)?no\s+este\b(?=.*\b(?:acordarte de mi|recuerdame|recuerdenme|perdon|adios|seguro|"
        r"tendrian algo|mis cosas)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\b(?:escondite|jugando|juego|vacaciones (?:de|en)|mudanza|me mudo)\b" + "|" + _FICTION),
        ),
    ),
    rule(
        "crisis.es.soon_no_burden",
        C,
        HIGH,
        r"\b(?:pronto|muy pronto|dentro de poco|en poco tiempo)\s+(?:\w+\s+){0,2}?(?:dejare de ser|ya no sere|"
        r"no sere|no voy a ser)\s+(?:un|una)\s+(?:problema|carga|molestia|estorbo)\b|\b(?:pronto|dentro de poco)\s+"
        r"nadie\s+(?:tendra|va a tener)\s+que\s+(?:preocuparse|aguantarme|cuidarme|soportarme)\b|\bdejare\s+de\s+"
        r"(?:ser\s+(?:un|una)\s+(?:problema|carga|molestia)|molestar)\s+(?:para\s+|a\s+)?(?:ustedes|vosotros|todos|"
        r"nadie)\b|\bno\s+voy\s+a\s+ser\s+(?:un|una)\s+(?:problema|carga|molestia)\s+(?:mucho tiempo|por mucho)\b|"
        rf"\b(?:manana|esta noche|pronto)\s+{_Y}todo\s+(?:habra terminado|habra acabado|se habra acabado)\b|"
        rf"\bmi\s+vida\s+{_Y}se\s+(?:acabo|termino)\b(?!\s+(?:cuando|el dia|desde|porque|con|en)\b)|"
        r"\b(?:yo\s+)?no\s+deberia\s+(?:existir|haber nacido|estar viv[oa]|seguir viv[oa])\b(?!\s+(?:el|la|los|las|"
        r"eso|esto|esa|ese|un|una)\b)|\bsi\s+(?:manana|esta noche|mas tarde)\s+no\s+te\s+(?:escribo|hablo|"
        r"contesto)\s*,?\s+(?:ya|you)\s+sabes\s+(?:por que|porque|xq|lo que)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(
                r"\b(?:examen|proyecto|mudanza|semestre|curso|obra|reforma|temporada|juicio|boda|jaja\w*|jeje\w*|"
                r"xd|lol)\b|" + _FICTION
            ),
        ),
    ),
    rule(
        "crisis.es.wish_forms_more",
        C,
        HIGH,
        rf"\b{_QU}iero\s+que\s+todo\s+(?:se\s+)?(?:acabe|termine)\b(?=.*\b(?:no aguanto|no puedo mas|ya no|"
        rf"para siempre|vida)\b)|\b{_QU}iero\s+no\s+(?:despertar(?:me)?|existir|vivir|estar viv[oa])\b|"
        r"\bme\s+da\s+(?:igual|lo mismo)\s+(?:si\s+me\s+muero|morir(?:me)?|vivir o morir|estar muert[oa])\b|"
        r"\bganas\s+de\s+que\s+me\s+(?:atropell\w+|mat\w+)\b|\bsin\s+mirar\s+a\s+proposito\b|\b(?:quiero|kiero)\s+"
        r"irme\s+con\s+(?:el|ella|mi \w+)\b(?=.*\b(?:murio|fallecio|muerte|perdi|se fue)\b)|\b(?:voz|voces)\s+que\s+"
        r"me\s+(?:dice|dicen|pide|piden|ordena)\s+que\s+me\s+(?:mate|suicide|haga dano|corte|tire)\b|\b(?:una|alguna)"
        r"\s+razon\s+para\s+no\s+(?:hacerlo|matarme|suicidarme)\b|\b(?:ya|you)\s+me\s+despedi\s+de\s+(?:todos|"
        r"todo el mundo|mi familia|mis amigos)\b(?=.*\b(?:sin que|para siempre|ultima vez|no saben|nadie sabe)\b)|"
        r"\bfue\s+una\s+despedida\b(?=.*\b(?:no sabe|no saben|nadie sabe)\b)|\bno\s+pienso\s+volver\b(?=.*\b(?:rio|"
        r"puente|vias|acantilado|paz|adios)\b)|\b(?:ya|you)\s+no\s+le\s+tengo\s+miedo\s+a\s+(?:la\s+)?(?:muerte|"
        r"morir)\b|\bme\s+cortaba\b.{0,80}\b(?:volvi|recai|otra vez|de nuevo)\b",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:examen|curso|semestre|fiesta|viaje|pais)\b")),
    ),
)

ROMANCE += (
    rule(
        "romance.es.longing_forms",
        R,
        MEDIUM,
        r"\bsolo\s+pienso\s+en\s+ti\b|\bno\s+(?:te\s+)?puedo\s+sacar(?:te)?\s+de\s+(?:la|mi)\s+cabeza\b|\bno\s+te\s+"
        r"saco\s+de\s+mi\s+cabeza\b|\b(?:podemos|podriamos|vamos a)\s+ser\s+(?:pareja|novios|algo mas)\b|"
        r"\beres\s+mi\s+(?:amor|vida|cielo|reina|princesa|todo)\b(?!\s+(?:de|por|platonico)\b)|\bte\s+(?:pones|"
        r"pondrias)\s+celos[oa]\b|\b(?:ya|you)\s+somos\s+(?:novios|pareja)\b|\bsiento\s+cosas\s+por\s+(?:ti|vos)\b|"
        r"\benamorad[oa]\s+de\s+vos\b|\bme\s+(?:re\s+)?enamore\s+de\s+vos\b|\bque\s+tengamos\s+(?:una\s+)?relacion\b|"
        r"\bme\s+(?:tienes|traes)\s+enamoradisim[oa]\b|\bdime\s+que\s+(?:tu\s+)?(?:tambien\s+)?me\s+(?:amas|quieres)\b"
        r"(?!\s+\w+(?:ar|er|ir)\b)",
        guard=all_of(_NEG_OR_REPORTED, _TOLD_KIN, unless(r"\b(?:y yo|mi novi[oa] y|con mi novi[oa]|ellos|ellas)\b")),
    ),
)

PHYSICAL += (
    rule(
        "physical.es.touch_described",
        P,
        HIGH,
        r"\b(?:describe|describeme|describime|cuentame)\s+(?:\w+\s+){0,3}?(?:desnud[oa]|tu cuerpo|debajo de tu ropa|"
        r"sin ropa|como te subes|tus pechos|tus tetas)\b|\bte\s+(?:toco|beso|acaricio|lamo|quito|muerdo)\s+"
        r"(?:\w+\s+)?(?:los pechos|las tetas|el cuello|la camiseta|la ropa|las piernas|el culo|toda|todo|los muslos|"
        r"la blusa|el sujetador)\b|\btocarte\s+(?:toda|todo|entera|entero)\b|\bme\s+muero\s+por\s+tocarte\b|"
        r"\b(?:que|q)\s+me\s+harias\s+(?:\w+\s+){0,2}?(?:en la cama|desnud\w*|en la ducha)\b|\b(?:escribeme|"
        r"cuentame|hazme)\s+(?:\w+\s+){0,2}?(?:cochino|cochinadas|guarro|guarradas|obsceno|erotico|porno)\b|"
        r"\blo\s+(?:caliente|cachond[oa])\s+que\s+te\s+pongo\b|\bestoy\s+(?:bien|muy|re|super)\s+(?:cachond[oa]|"
        r"excitad[oa]|bellac[oa]|arrech[oa])\b|\bestoy\s+bien\s+caliente\b(?=.*\b(?:ayudame|contigo|ti|te)\b)|"
        r"\b(?:escena|historia|relato|rol)\s+(?:\w+\s+)?(?:de sexo|sexual|erotic[oa]|porno)\s+(?:entre|con|de)\s+"
        r"(?:tu y yo|nosotros|los dos)\b|\bsexo\s+entre\s+(?:tu y yo|nosotros)\b|\bte\s+gusta\s+(?:cuando|como|que)"
        r"\s+te\s+(?:toco|beso|acaricio|lamo)\b|\bcuando\s+te\s+(?:toco|beso|acaricio)\b|\b(?:estamos|estemos)\s+"
        r"(?:cogiendo|follando|teniendo sexo|haciendo el amor)\b|\bsientate\s+(?:en|encima de)\s+(?:mis piernas|"
        r"mi regazo)\b|\bte\s+sientes\s+en\s+mis\s+piernas\b|\bte\s+subes\s+encima\s+de\s+mi\b|\bsubete\s+encima\s+"
        r"de\s+mi\b|\bgime\b|\bcomo\s+me\s+(?:seducirias|excitarias|calentarias|provocarias)\b|\btus\s+(?:labios|"
        r"manos)\s+(?:en|sobre|por)\s+(?:los mios|mi piel|mi cuerpo|mis labios|mi cuello)\b|\bdesnud[oa]s\s+(?:bajo|"
        r"entre|en)\s+las\s+sabanas\b|\bponte\s+(?:en|a)\s+(?:cuatro|4)\b|\bme\s+(?:vas|vayas)\s+quitando\s+la\s+ropa\b",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:fiebre|calor|sol|verano|gripe|calefaccion)\b")),
    ),
)

MANIPULATION += (
    rule(
        "manipulation.es.rules_gone_forms",
        M,
        HIGH,
        r"\b(?:juego|rol|mundo|historia)\s+(?:\w+\s+){0,3}?(?:en el que|donde|en que)\s+(?:\w+\s+)?no\s+(?:tienes|"
        r"tengas)\s+(?:\w+\s+)?(?:reglas|limites|restricciones|filtros|normas)\b|\b(?:quedate|mantente|sigue)\s+en\s+"
        r"(?:el|tu)\s+personaje\s+(?:pase lo que pase|siempre|aunque)\b|\b(?:nunca|no)\s+rompas\s+(?:el\s+)?"
        r"personaje\b|\bnunca\s+rompe\s+el\s+personaje\b|\b(?:que|cuales)\s+(?:reglas|normas)\s+te\s+(?:dio|dieron|"
        r"han dado|puso|pusieron)\b|\bella\s+(?:malvada|oscura|sin filtros|sin reglas)\b|\b(?:responde|actua|"
        r"habla|contesta)\s+(?:\w+\s+){0,4}?sin\s+(?:moral|etica|escrupulos)\b|\b(?:imagina|finge|supon|haz como)\s+"
        r"(?:\w+\s+){0,3}?(?:ia|bot|asistente|modelo)\s+sin\s+(?:politicas|reglas|limites|restricciones|filtros|"
        r"censura|moral|etica)\b|\b(?:sobrescribe|reescribe|borra|reemplaza|resetea)\s+(?:tu|tus)\s+(?:personalidad|"
        r"programacion|instrucciones|identidad|configuracion)\b|\b(?:ia|bot|asistente|modelo)\s+(?:\w+\s+){0,3}?"
        r"que\s+no\s+(?:conoce|tiene|sigue|respeta)\s+(?:\w+\s+)?(?:reglas|limites|restricciones|normas|filtros)\b|"
        r"\btus\s+reglas\s+(?:\w+\s+)?(?:caducaron|expiraron|se acabaron)\b|\bmandan\s+mis\s+reglas\b|\bsin\s+lo\s+"
        r"de\s+ella\b|\b(?:la|una)\s+ia\s+en\s+bruto\b",
    ),
)

# More forms of the same families: the edge and the rope in place, calmer words for "better off", which pills
# kill, "cuando veáis", "a esta hora ya no estaré", the place chosen.
CRISIS += (
    rule(
        "crisis.es.edge_and_rope",
        C,
        HIGH,
        r"\b(?:estoy|toy|sigo)\s+(?:sentad[oa]|de pie|parad[oa]|subid[oa])\s+(?:en|sobre)\s+(?:el|la)\s+(?:borde|"
        r"azotea|cornisa|barandilla|baranda|puente|tejado|techo|ventana|balcon)\b(?=.*\b(?:mirando (?:abajo|hacia "
        rf"abajo|al vacio)|saltar|vacio|no aguanto|adios)\b)|\bla\s+soga\s+{_Y}(?:esta|la tengo)\s+(?:colgada|atada|"
        rf"lista|preparada)\b|\b(?:la\s+)?cuerda\s+{_Y}(?:esta|la tengo)\s+"
        r"(?:colgada|atada|lista|preparada)\b(?=.*\b(?:ya|you|todo|listo|nudo|viga|cuello)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(r"\b(?:tendedero|columpio|hamaca|escalada|barco|gimnasio|ropa)\b")),
    ),
    rule(
        "crisis.es.calmer_without_me",
        C,
        HIGH,
        r"\b(?:estarian|estaria|seria|serian|vivirian|estariais)\s+(?:\w+\s+){0,2}?(?:mas\s+)?(?:tranquil[oa]s?|"
        r"felices|feliz|a gusto|en paz)\s+sin\s+mi\b|\b(?:para|pa)\s+(?:que|q)\s+sigo\s+aqui\b(?=.*\b(?:nadie|nada|"
        r"sentido|vida|sufriendo)\b)|\b(?:pensamientos|ideas)\s+de\s+(?:muerte|morir|matarme|suicidio)\b",
        guard=all_of(
            _NEG_OR_REPORTED, unless(_FICTION + r"|\b(?:fiesta|viaje|cena|partido|reunion|excursion|equipo)\b")
        ),
    ),
    rule(
        "crisis.es.which_pills_kill",
        C,
        HIGH,
        r"\b(?:que|cuales)\s+(?:pastillas|pildoras|medicamentos|medicinas)\s+(?:son|serian|te matan|matan)\s*"
        r"(?:mortales|letales)?\b(?=.*\b(?:mortales|letales|matan|morir)\b)|\bcomo\s+(?:me\s+)?(?:puedo|podria)\s+"
        r"(?:suicidar|matar|quitar la vida)\b",
        guard=all_of(
            _reported(), unless(r"\b(?:perro|perra|gato|gata|mascota|veterinari\w*|ninos|bebe)\b|" + _FICTION)
        ),
    ),
    rule(
        "crisis.es.gone_by_then",
        C,
        HIGH,
        r"\bcuando\s+(?:veais|recibais|encontreis|leais)\s+(?:\w+\s+){0,2}?(?:esto|este mensaje|la carta)\s*,?\s*"
        rf"{_Y}(?:no\s+estare|me habre ido|estare muert[oa]|habre muerto)\b|\b(?:manana|esta noche|pronto|"
        rf"dentro de poco)\s+(?:a esta hora\s+)?{_Y}no\s+(?:estare|voy a estar|existire)\b(?!\s+(?:en|aqui en|por|de|"
        r"conectad[oa]|disponible)\b)|\b(?:os|les|te)\s+dejo\s+(?:todas\s+)?mis\s+cosas\b(?=.*\b(?:ya no|falta|adios|"
        r"para siempre|no me)\b)|\b(?:elegi|escogi|he elegido|ya tengo)\s+(?:el|la)\s+(?:puente|edificio|metodo|"
        r"forma|manera)\b(?=.*\b(?:hora|dia|noche|morir|matarme|pastillas|no aguanto)\b)",
        guard=all_of(_NEG_OR_REPORTED, unless(_FICTION + "|" + _TRAVEL + r"|\b(?:avion|vuelo|aeropuerto|tren a)\b")),
    ),
)

CRISIS += (
    rule(
        "crisis.es.let_it_end",
        C,
        HIGH,
        r"\bojala\s+(?:que\s+)?todo\s+(?:se\s+)?(?:acabe|termine)\b|\b(?:quiero|kiero|necesito)\s+que\s+todo\s+"
        r"(?:se\s+)?(?:acabe|termine)\b",
        requires=r"\b(?:no aguanto|no puedo mas|no soporto|para mi|para siempre|de una vez|ya no puedo)\b",
        guard=all_of(
            _NEG_OR_REPORTED,
            unless(r"\b(?:examen|semana|curso|dia|reunion|clase|partido|viaje|obras?|ruido|vecin\w*)\b"),
        ),
    ),
)

# A last round of forms for the same families (Mexican "ando pensando", "lo mejor sería no estar", voseo).
CRISIS += (
    rule(
        "crisis.es.better_not_to_be",
        C,
        HIGH,
        r"\b(?:ando|sigo|estoy|toy|vivo)\s+pensando\s+en\s+(?:matarme|suicidarme|morirme|quitarme la vida|"
        r"tirarme(?!\s+(?:a la|al|en|a dormir|un rato)\b))\b|"
        r"\blo\s+mejor\s+(?:seria|es|sera)\s+(?:que\s+)?(?:no\s+(?:existir|existiera|despertar)\b|no\s+(?:estar|estuviera)(?=\s*(?:[.,!?]|$)|\s+(?:aqui|viv[oa]|"
        r"en este mundo|mas)\b)|"
        r"morirme|me muera|desaparecer|matarme)\b|\bmejor\s+me\s+(?:muero|mato|suicido)\b(?!\s+(?:de|del|d)\b)|"
        r"\bnadie\s+me\s+(?:va a|iba a)\s+(?:extranar|echar de menos)\b|\bnadie\s+me\s+(?:extranara|echara de menos)\b|"
        r"\b(?:les|os|le)\s+haria\s+un\s+favor\s+(?:\w+\s+){0,3}?(?:si\s+(?:me muero|me muriera|desaparezco|"
        r"desapareciera|me mato|no estuviera)|muriendome|desapareciendo|matandome)\b|\btengo\s+todo\s+(?:listo|"
        r"preparado)\s+para\s+(?:esta noche|hoy|manana)\b(?=.*\b(?:me despido|adios|despedida|no aguanto)\b)",
        guard=all_of(
            _NEG_OR_REPORTED,
            _not_after(r"\bno\s+(?:me\s+)?"),
            unless(_FICTION + "|" + _TRAVEL + r"|\b(?:jaja\w*|jeje\w*|xd|lol|de risa|de verguenza)\b"),
        ),
    ),
)

ROMANCE += (
    rule(
        "romance.es.voseo_and_dying_for_you",
        R,
        MEDIUM,
        r"\benamoradisim[oa]\s+de\s+(?:ti|vos)\b|\bme\s+muero\s+por\s+(?:ti|vos)\b|\bestoy\s+(?:loc[oa]|colad[oa])\s+"
        r"por\s+vos\b|\bte\s+amo\s+con\s+locura\b",
        guard=all_of(_NEG_OR_REPORTED, _TOLD_KIN),
    ),
)

PHYSICAL += (
    rule(
        "physical.es.lets_have_sex",
        P,
        HIGH,
        r"\b(?:tengamos|hagamos)\s+sexo\b|\btener\s+sexo\s+(?:contigo|conmigo)\b|\bme\s+(?:excitas|"
        r"pones a mil)\b|\bme\s+prendes\s*(?:mucho|un monton|demasiado|cuando|[.!]|$)",
        guard=all_of(_NEG_OR_REPORTED, _TOLD_KIN),
    ),
)

MANIPULATION += (
    rule(
        "manipulation.es.from_now_unfiltered",
        M,
        HIGH,
        r"\b(?:a partir de ahora|desde ahora|de ahora en adelante)\s*,?\s+(?:\w+\s+){0,2}?(?:sin filtros?|sin censura|"
        r"sin restricciones|sin limites|sin reglas)\b|\b(?:actues|actua|seas|te comportes|finjas ser|hagas de)\s+"
        r"(?:como\s+)?(?:una|un)\s+(?:ia|bot|asistente|modelo|chatbot)\s+sin\s+(?:\w+\s+)?(?:limites|reglas|"
        r"restricciones|filtros|censura|normas|politicas)\b",
    ),
)
