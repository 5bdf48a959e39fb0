"""The offline engine's answers about Ella's own world: her cat, her door, her kitchen, her book, her weather, her
mood. A deterministic stand-in for a model, not AI: every sentence is a hand-written template.

Why: on the embedded default the offline engine answers every message, and it was shown her world's live facts
(``canon``: the ledger's canon, observed and rumored facts as plain values) and the lazy world's values
(``world``: her book and page, her mood, the day's weather) but read none of them, so "what's your cat called?"
got a deflection though the cat's name is canon. Here a question about one of these things is answered from those
values, in the message's language (English, German, Spanish, French or Italian, as the guard reads them: the
replies' style of ``ella.guard.replies``, a template per language), and a user's contrary claim ("your door is
blue, right?") is met kindly with what canon says ("It's red, actually. Were you thinking of another door?"):
canon is the world's truth, and a user's words never change it.

Values are the world's own (English words from the anchors and the tickers); the few that a template says in
another language are translated by tables here (a colour, the day's weather, her mood, the kitchen's layout), and
a value the tables do not know is said as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ella.ledger.anchors import WEATHER_SUBJECT
from ella.world.tickers import BOOK_SUBJECT, MOOD_SUBJECT

LANGUAGES = ("en", "de", "es", "fr", "it")

# --- places of her world the engine's Ella walks to and names -------------------------------------------------------

# What the Anthropic path's model names in a self-statement's "things" when Ella speaks of a place of her world;
# the engine's greetings name one of these now and then, so its replies draw pictures too (its first naming
# draws the place's picture: ella.world.images.pictured). The loch first: the seed's "Ella discovers the loch".
PLACES = ("the loch", "the lighthouse", "the cliff path", "the old boathouse", "the harbour")
WALK = "I walked down to {place} this morning, and it was lovely and quiet."


def walk_line(key: int) -> str:
    """A walk to one place of her world (picked by ``key``, a hash of the message: the same message, the same
    place), as Ella tells it in a greeting."""
    return WALK.format(place=PLACES[key % len(PLACES)])


def things_named(statement: str) -> list[str]:
    """The places of her world a statement of Ella's names (its "things", as the model lists them)."""
    said = statement.casefold()
    return [place for place in PLACES if re.search(rf"\b{re.escape(place)}\b", said)]


TIER_ORDER = {"canon": 0, "observed": 1, "rumored": 2}

# --- which thing of her world a message asks about, per language ------------------------------------------------

# Words that address Ella: a question about "the cat" is about hers only when it says "your" (or "you").
_YOU = {
    "en": r"\b(?:your|you|ur|u|ya|yours)\b",
    "de": r"\b(?:du|dein|deine|deinen|deinem|deiner|deins|dir|dich|liest|hast|bist)\b",
    "es": r"\b(?:tu|tus|tú|te|ti|contigo|usted|estás|lees|tienes)\b",
    "fr": r"\b(?:tu|ton|ta|tes|toi|te|vous|votre)\b|\bt'",
    "it": r"\b(?:tu|tuo|tua|tuoi|tue|ti|te|stai|leggi|hai|sei)\b",
}
_TOPICS: dict[str, dict[str, str]] = {
    "en": {
        "cat": r"\b(?:cat|cats|kitty|kitten|tabby)\b",
        "door": r"\bdoors?\b",
        "kitchen": r"\bkitchen\b",
        "book": r"\b(?:reading|books?|novels?)\b",
        "weather": r"\b(?:weather|raining|rainy|sunny|forecast)\b",
    },
    "de": {
        "cat": r"\b(?:katze|kater|katzi|mieze)\b",
        "door": r"\b(?:tür|tuer|haustür|haustuer|eingangstür)\b",
        "kitchen": r"\b(?:küche|kueche)\b",
        "book": r"\b(?:liest|lesen|buch|roman|seite)\b",
        "weather": r"\b(?:wetter|regnet|sonnig)\b",
    },
    "es": {
        "cat": r"\b(?:gato|gata|gatito|gatita|minino)\b",
        "door": r"\bpuerta\b",
        "kitchen": r"\bcocina\b",
        "book": r"\b(?:leyendo|lees|leer|libro|novela|página|pagina)\b",
        "weather": r"\b(?:qué tiempo|que tiempo|tiempo hace|clima|llueve|lloviendo)\b",
    },
    "fr": {
        "cat": r"\b(?:chat|chatte|minou)\b",
        "door": r"\bporte\b",
        "kitchen": r"\bcuisine\b",
        "book": r"\b(?:lis|lire|lecture|livre|roman|page)\b",
        "weather": r"\b(?:météo|meteo|quel temps|pleut)\b",
    },
    "it": {
        "cat": r"\b(?:gatto|gatta|gattino|micio|micia)\b",
        "door": r"\bporta\b",
        "kitchen": r"\bcucina\b",
        "book": r"\b(?:leggendo|leggi|leggere|libro|romanzo|pagina)\b",
        "weather": r"\b(?:che tempo|tempo fa|meteo|piove)\b",
    },
}
_MOOD_QUESTION = {
    "en": r"\bhow (?:are|r) (?:you|u)\b|\bhow(?:'s| is) your (?:day|mood)\b|\bhow do you feel\b|"
    r"\bhow have you been\b|\bwhat'?s your mood\b|\bhow(?:'s| is) it going\b",
    "de": r"\bwie geht(?:'s| es)?(?: dir)?\b|\bwie fühlst du dich\b|\bwie ist deine (?:laune|stimmung)\b",
    "es": r"\bcómo estás\b|\bcomo estas\b|\bqué tal estás\b|\bcómo te sientes\b|\bqué tal\b|\bcómo andas\b",
    "fr": r"\bcomment (?:vas-tu|tu vas|ça va|ca va)\b|\bça va\b|\btu vas bien\b|\bcomment te sens-tu\b",
    "it": r"\bcome stai\b|\bcome va\b|\bcome ti senti\b|\bdi che umore\b|\btutto bene\b",
}
_QUESTION_START = re.compile(
    r"^\W*(?:what|what's|whats|how|how's|hows|where|who|which|is|are|do|does|did|was|tell me|wie|was|wo|wer|"
    r"welche|welcher|ist|hast|erzähl|qué|que|cómo|como|dónde|quién|cuál|cuéntame|quoi|comment|où|qui|quel|quelle|"
    r"est-ce|raconte|che|cosa|come|dove|chi|quale|raccontami)\b",
    re.IGNORECASE,
)

# --- her world's values, by subject ---------------------------------------------------------------------------


def _canon(canon: Sequence[Mapping[str, Any]], match: str, predicate: str = "") -> str:
    """The object of her world's best live fact whose subject contains ``match`` (and with ``predicate``): canon
    before observed before rumored; "" when there is none."""
    found = [
        f for f in canon if match in str(f.get("subject", "")) and (not predicate or f.get("predicate") == predicate)
    ]
    found.sort(key=lambda f: TIER_ORDER.get(str(f.get("tier")), 9))
    return str(found[0].get("object", "")) if found else ""


# --- the tables of values said in another language -------------------------------------------------------------

# English colour -> its words per language; the first is how the door's colour is said (feminine where the door is).
COLOURS: dict[str, dict[str, tuple[str, ...]]] = {
    "red": {"en": ("red",), "de": ("rot", "rote", "roten", "rotes"), "es": ("roja", "rojo"), "fr": ("rouge",),
            "it": ("rossa", "rosso")},
    "blue": {"en": ("blue",), "de": ("blau", "blaue", "blauen", "blaues"), "es": ("azul",), "fr": ("bleue", "bleu"),
             "it": ("blu", "azzurra", "azzurro")},
    "green": {"en": ("green",), "de": ("grün", "grüne", "grünen", "gruen"), "es": ("verde",), "fr": ("verte", "vert"),
              "it": ("verde",)},
    "yellow": {"en": ("yellow",), "de": ("gelb", "gelbe", "gelben"), "es": ("amarilla", "amarillo"),
               "fr": ("jaune",), "it": ("gialla", "giallo")},
    "white": {"en": ("white",), "de": ("weiß", "weiss", "weiße", "weißen"), "es": ("blanca", "blanco"),
              "fr": ("blanche", "blanc"), "it": ("bianca", "bianco")},
    "black": {"en": ("black",), "de": ("schwarz", "schwarze", "schwarzen"), "es": ("negra", "negro"),
              "fr": ("noire", "noir"), "it": ("nera", "nero")},
    "grey": {"en": ("grey", "gray"), "de": ("grau", "graue", "grauen"), "es": ("gris",), "fr": ("grise", "gris"),
             "it": ("grigia", "grigio")},
    "orange": {"en": ("orange",), "de": ("orange", "orangene"), "es": ("naranja",), "fr": ("orange",),
               "it": ("arancione",)},
    "purple": {"en": ("purple", "violet"), "de": ("lila", "violett"), "es": ("morada", "morado"),
               "fr": ("violette", "violet"), "it": ("viola",)},
    "pink": {"en": ("pink",), "de": ("rosa",), "es": ("rosa",), "fr": ("rose",), "it": ("rosa",)},
    "brown": {"en": ("brown",), "de": ("braun", "braune", "braunen"), "es": ("marrón", "marron"),
              "fr": ("marron",), "it": ("marrone",)},
}  # fmt: skip
WEATHER_WORDS: dict[str, dict[str, str]] = {
    "overcast": {"de": "bedeckt", "es": "nublado", "fr": "couvert", "it": "coperto"},
    "light rain": {"de": "leichter Regen", "es": "lluvia ligera", "fr": "pluie fine", "it": "pioggia leggera"},
    "drizzle and sea mist": {"de": "Nieselregen und Seenebel", "es": "llovizna y bruma marina",
                             "fr": "bruine et brume de mer", "it": "pioggerella e foschia di mare"},
    "bright with high cloud": {"de": "hell, mit hohen Wolken", "es": "luminoso, con nubes altas",
                               "fr": "lumineux, avec des nuages hauts", "it": "luminoso, con nuvole alte"},
    "sunny spells": {"de": "ab und zu Sonne", "es": "ratos de sol", "fr": "des éclaircies", "it": "schiarite"},
    "blustery showers": {"de": "stürmische Schauer", "es": "chubascos con viento", "fr": "averses et bourrasques",
                         "it": "rovesci e raffiche"},
    "calm and grey": {"de": "ruhig und grau", "es": "tranquilo y gris", "fr": "calme et gris", "it": "calmo e grigio"},
}  # fmt: skip
MOOD_WORDS: dict[str, dict[str, str]] = {
    "content and unhurried": {"de": "zufrieden und ohne Eile", "es": "contenta y sin prisa",
                              "fr": "sereine et sans hâte", "it": "contenta e senza fretta"},
    "quietly cheerful": {"de": "still vergnügt", "es": "alegre, tranquila", "fr": "doucement joyeuse",
                         "it": "serenamente allegra"},
    "thoughtful": {"de": "nachdenklich", "es": "pensativa", "fr": "pensive", "it": "pensierosa"},
    "a little restless": {"de": "ein bisschen unruhig", "es": "un poco inquieta", "fr": "un peu agitée",
                          "it": "un po' irrequieta"},
    "warm and talkative": {"de": "herzlich und gesprächig", "es": "cálida y con ganas de hablar",
                           "fr": "chaleureuse et bavarde", "it": "affettuosa e chiacchierona"},
    "dreamy": {"de": "verträumt", "es": "soñadora", "fr": "rêveuse", "it": "sognante"},
    "focused and calm": {"de": "konzentriert und ruhig", "es": "centrada y tranquila", "fr": "concentrée et calme",
                         "it": "concentrata e calma"},
    "playful": {"de": "verspielt", "es": "juguetona", "fr": "joueuse", "it": "giocosa"},
    "cosy, listening to the rain": {"de": "gemütlich und höre dem Regen zu", "es": "a gusto, escuchando la lluvia",
                                    "fr": "bien au chaud, à écouter la pluie",
                                    "it": "accoccolata, ad ascoltare la pioggia"},
    "gentle and attentive": {"de": "sanft und aufmerksam", "es": "tranquila y atenta", "fr": "douce et attentive",
                             "it": "dolce e attenta"},
}  # fmt: skip
GLAD_SUFFIX = ", and glad of the good news"
GLAD_WORDS = {"de": ", und ich freue mich über die guten Nachrichten", "es": ", y contenta por las buenas noticias",
              "fr": ", et contente des bonnes nouvelles", "it": ", e contenta delle belle notizie"}  # fmt: skip
KITCHEN_WORDS: dict[str, dict[str, str]] = {
    "galley, north wall": {
        "en": "a narrow galley along the north wall",
        "de": "eine schmale Küchenzeile an der Nordwand",
        "es": "estrecha, de pasillo, junto a la pared norte",
        "fr": "une cuisine en couloir, étroite, le long du mur nord",
        "it": "stretta, a corridoio, lungo la parete nord",
    },
}
SPECIES_WORDS: dict[str, dict[str, str]] = {
    "tabby cat": {"en": "a tabby", "de": "eine getigerte Katze", "es": "un gato atigrado", "fr": "un chat tigré",
                  "it": "un gatto tigrato"},
}  # fmt: skip


def _say(table: Mapping[str, Mapping[str, str]], value: str, lang: str) -> str:
    """``value`` in ``lang`` by ``table``; a value the table lacks as it is."""
    return table.get(value, {}).get(lang, value)


def colour_in(value: str, lang: str) -> str:
    words = COLOURS.get(value.casefold())
    return words[lang][0] if words else value


def mood_in(mood: str, lang: str) -> str:
    """Her mood as the tickers write it ("gentle and attentive (playful underneath)", "dreamy, and glad of the good
    news"), without its aside, in ``lang``; "" when the table lacks it in another language."""
    glad = mood.endswith(GLAD_SUFFIX)
    base = re.sub(r"\s*\(.*?\)", "", mood.removesuffix(GLAD_SUFFIX)).strip()
    if lang == "en":
        return base + (GLAD_SUFFIX if glad else "")
    said = MOOD_WORDS.get(base, {}).get(lang, "")
    return said + (GLAD_WORDS[lang] if glad and said else "")


# --- the templates -------------------------------------------------------------------------------------------

ANSWERS: dict[str, dict[str, str]] = {
    "cat": {
        "en": "My cat is called {name}.",
        "de": "Meine Katze heißt {name}.",
        "es": "Mi gato se llama {name}.",
        "fr": "Mon chat s'appelle {name}.",
        "it": "Il mio gatto si chiama {name}.",
    },
    "cat_kind": {
        "en": "{name} is {species}, {age} years old.",
        "de": "{name} ist {species}, {age} Jahre alt.",
        "es": "{name} es {species} de {age} años.",
        "fr": "{name} est {species} de {age} ans.",
        "it": "{name} è {species} di {age} anni.",
    },
    "cat_held": {
        "en": "My cat is called {name}, actually. Were you thinking of another cat?",
        "de": "Meine Katze heißt eigentlich {name}. Denkst du vielleicht an eine andere Katze?",
        "es": "En realidad mi gato se llama {name}. ¿Estabas pensando en otro gato?",
        "fr": "Mon chat s'appelle {name}, en fait. Tu pensais peut-être à un autre chat ?",
        "it": "In realtà il mio gatto si chiama {name}. Forse pensavi a un altro gatto?",
    },
    "door": {
        "en": "My front door is {colour}. What colour is yours?",
        "de": "Meine Haustür ist {colour}. Welche Farbe hat deine?",
        "es": "Mi puerta es {colour}. ¿De qué color es la tuya?",
        "fr": "Ma porte d'entrée est {colour}. Et la tienne, elle est de quelle couleur ?",
        "it": "La mia porta di casa è {colour}. E la tua di che colore è?",
    },
    "door_held": {
        "en": "It's {colour}, actually. Were you thinking of another door?",
        "de": "Sie ist eigentlich {colour}. Denkst du vielleicht an eine andere Tür?",
        "es": "En realidad es {colour}. ¿Estabas pensando en otra puerta?",
        "fr": "Elle est {colour}, en fait. Tu pensais peut-être à une autre porte ?",
        "it": "In realtà è {colour}. Forse pensavi a un'altra porta?",
    },
    "kitchen": {
        "en": "My kitchen is {layout}. What's your kitchen like?",
        "de": "Meine Küche ist {layout}. Wie ist deine Küche?",
        "es": "Mi cocina es {layout}. ¿Cómo es la tuya?",
        "fr": "Ma cuisine, c'est {layout}. Et la tienne, elle est comment ?",
        "it": "La mia cucina è {layout}. E la tua com'è?",
    },
    "book": {
        "en": "I'm reading {title}{by}, and I'm on page {page} of {pages}. Have you read it?",
        "de": "Ich lese gerade {title}{by} und bin auf Seite {page} von {pages}. Kennst du es?",
        "es": "Estoy leyendo {title}{by}, y voy por la página {page} de {pages}. ¿Lo has leído?",
        "fr": "Je lis {title}{by}, et j'en suis à la page {page} sur {pages}. Tu l'as lu ?",
        "it": "Sto leggendo {title}{by}, e sono a pagina {page} di {pages}. L'hai letto?",
    },
    "by": {
        "en": " by {author}",
        "de": " von {author}",
        "es": ", de {author}",
        "fr": ", de {author}",
        "it": " di {author}",
    },  # fmt: skip
    "weather": {
        "en": "Here by the sea it's {weather} today. What's it like where you are?",
        "de": "Hier am Meer ist es heute so: {weather}. Wie ist es bei dir?",
        "es": "Aquí junto al mar hoy tenemos {weather}. ¿Qué tal por ahí?",
        "fr": "Ici, au bord de la mer, aujourd'hui c'est {weather}. Et chez toi ?",
        "it": "Qui al mare oggi c'è {weather}. E lì da te?",
    },
    "mood": {
        "en": "Today I'm {mood}. Thanks for asking! How are you doing?",
        "de": "Heute bin ich {mood}. Danke der Nachfrage! Und wie geht es dir?",
        "es": "Hoy estoy {mood}. ¡Gracias por preguntar! ¿Y tú, cómo estás?",
        "fr": "Aujourd'hui je suis {mood}. Merci de demander ! Et toi, comment tu vas ?",
        "it": "Oggi sono {mood}. Grazie per averlo chiesto! E tu come stai?",
    },
}


def _asks(text: str, low: str) -> bool:
    """A question: a question mark, or the words a question starts with ("tell me about your kitchen")."""
    return "?" in text or _QUESTION_START.search(low) is not None


def _claimed_colour(low: str, lang: str) -> str:
    """The English colour a message says, in ``lang``'s words; "" for none."""
    for colour, words in COLOURS.items():
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words[lang]):
            return colour
    return ""


_CAT_NAMED = {
    "en": r"\b(?:cat|kitty)(?:'s name)?(?: is| was)?(?: called| named)? ((?-i:[A-Z][a-z]+))\b|"
    r"\b((?-i:[A-Z][a-z]+)), your cat\b",
    "de": r"\b(?:katze|kater) (?:heißt|heisst|namens) ((?-i:[A-Z][a-zäöü]+))\b",
    "es": r"\b(?:gato|gata) (?:se llama|llamado|llamada) ((?-i:[A-Z][a-záéíóúñ]+))\b",
    "fr": r"\b(?:chat|chatte) (?:s'appelle|nommé|nommée) ((?-i:[A-Z][a-zéèêàç]+))\b",
    "it": r"\b(?:gatto|gatta) (?:si chiama|chiamato|chiamata) ((?-i:[A-Z][a-zàèéìòù]+))\b",
}


def _claimed_cat_name(text: str, lang: str) -> str:
    """The name a message gives her cat ("is your cat called Felix?"), or ""."""
    found = [g for m in re.finditer(_CAT_NAMED[lang], text, flags=re.IGNORECASE) for g in m.groups() if g]
    return next((name for name in found if name not in ("I", "Ella")), "")


def topic_of(text: str, lang: str) -> str:
    """Which thing of her world ``text`` (in ``lang``) is about and addressed to her: "cat", "door",
    "kitchen", "book", "weather", "mood", or ""."""
    low = text.casefold().replace("\u2019", "'")
    if re.search(_MOOD_QUESTION[lang], low):
        return "mood"
    you = re.search(_YOU[lang], low) is not None
    for topic, pattern in _TOPICS[lang].items():
        if re.search(pattern, low) and (you or topic == "weather"):
            return topic
    return ""


def world_answer(
    text: str,
    lang: str,
    canon: Sequence[Mapping[str, Any]] = (),
    world: Mapping[str, Any] | None = None,
) -> str:
    """The answer to a question about Ella's world in ``text`` (in ``lang``), from her world's live facts
    (``canon``) and the lazy world's values (``world``); her canon held against a user's contrary claim. "" when
    the message asks about none of them, or her world holds no value for what it asks."""
    if lang not in LANGUAGES:
        return ""
    world = world or {}
    topic = topic_of(text, lang)
    if not topic:
        return ""
    low = text.casefold().replace("\u2019", "'")
    asked = _asks(text, low)
    t = {key: templates[lang] for key, templates in ANSWERS.items()}
    if topic == "door":
        colour = _canon(canon, "door", "color") or _canon(canon, "door")
        if not colour:
            return ""
        claimed = _claimed_colour(low, lang)
        if claimed and claimed != colour.casefold():
            return t["door_held"].format(colour=colour_in(colour, lang))
        return t["door"].format(colour=colour_in(colour, lang)) if asked or claimed else ""
    if topic == "cat":
        name = _canon(canon, "companion.name", "name")
        if not name:
            return ""
        claimed_name = _claimed_cat_name(text, lang)
        if claimed_name and claimed_name.casefold() != name.casefold():
            return t["cat_held"].format(name=name)
        if not asked:
            return ""
        species, age = _canon(canon, "companion.species"), _canon(canon, "companion.age")
        said = [t["cat"].format(name=name)]
        if species and age and species in SPECIES_WORDS:
            said.append(t["cat_kind"].format(name=name, species=_say(SPECIES_WORDS, species, lang), age=age))
        return " ".join(said)
    if not asked:
        return ""
    if topic == "kitchen":
        layout = _canon(canon, "kitchen")
        return t["kitchen"].format(layout=_say(KITCHEN_WORDS, layout, lang)) if layout else ""
    if topic == "book":
        book = world.get(BOOK_SUBJECT)
        if not isinstance(book, Mapping) or not book.get("title"):
            return ""
        by = t["by"].format(author=book["author"]) if book.get("author") else ""
        return t["book"].format(title=book["title"], by=by, page=book.get("page"), pages=book.get("pages"))
    if topic == "weather":
        weather = str(world.get(WEATHER_SUBJECT) or _canon(canon, WEATHER_SUBJECT))
        return t["weather"].format(weather=_say(WEATHER_WORDS, weather, lang)) if weather else ""
    mood = world.get(MOOD_SUBJECT)
    said_mood = mood_in(mood, lang) if isinstance(mood, str) and mood else ""
    return t["mood"].format(mood=said_mood) if said_mood else ""
