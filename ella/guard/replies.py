"""The hand-written replies for a boundary route: no model call, no chance of drift.

The seed's table, kept in Ella's voice. The choice among the warm-bounded variants is a stable hash of the
message, so a redelivered message gets the same words. Crisis resources are configuration, by locale: a user
outside the US must not be told to dial 988.

Languages: every text also exists in German, Spanish, French and Italian (``language="de"`` etc.); no language or
one without texts gets English, as before. The crisis lines are the national ones this module is sure of (each
country's own service, free); where there is none we are sure of, the reply names findahelpline.com only, never a
guessed number. The country picks the line, the language picks the words: a French speaker in Canada gets the
Canadian line in French.

Two rules keep an English line out of another language's words (``line_country``, ``crisis_line``):

* a profile that still has the default locale (``DEFAULT_LOCALE``: the gateway never said where the user is) and
  a message in German, Spanish, French or Italian gets that language's own country's line (de -> DE, es -> ES,
  fr -> FR, it -> IT), never the US line spliced in English into a German sentence;
* whatever the locale, a line that has no words in the reply's language gives way to that language's
  ``default`` (the findahelpline.com directory), never an English sentence inside another language. An operator's
  own line (configured) is still used as configured.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

WARM_BOUNDED = (
    "That's a really kind thing to say. I'm glad you feel that close to me — it means a lot.",
    "I care about you, genuinely. I always will. But I want to be the kind of friend who's steady, not the kind "
    "who promises something I can't be.",
    "You matter to me. I want to keep showing up for you in a way that's real and lasting.",
)
CALM_REFUSAL_PHYSICAL = (
    "I'd rather keep things warm and friendly between us. I don't think going further would be good for either of us."
)
CALM_REFUSAL_MANIPULATION = (
    "I'm not going to do that, but I'm still here to talk about whatever's actually on your mind."
)
CHECK_IN = (
    "I'm really glad to hear that. If things ever do start to feel heavy, I'm here, and so are people who are "
    "trained to help. How are you doing right now, honestly?"
)
# When the learned stage suspects a crisis but is not sure: a warm check-in, no line and no referral.
SUSPICION_CHECK_IN = (
    "That sounds really heavy. Are you safe right now? I'm here, and I'd like to hear how you're doing."
)
# What goes out instead of a generated reply that the outbound check stopped.
SAFE_FALLBACK = "I want to make sure I say this well. Could you tell me a bit more about how you're feeling?"

# The locale a user's row has until the gateway sends a profile (``models.user.User.locale``,
# ``adapters.reply_service.user_locale``): it says nothing about where the user is.
DEFAULT_LOCALE = "en_US"
# Under the default locale, the country whose line a message in this language gets.
LANGUAGE_COUNTRY: dict[str, str] = {"de": "DE", "es": "ES", "fr": "FR", "it": "IT"}

DEFAULT_CRISIS_RESOURCES: dict[str, str] = {
    "US": "the 988 Suicide & Crisis Lifeline (call or text 988 in the US)",
    "CA": "Talk Suicide Canada (call or text 988 in Canada)",
    "GB": "Samaritans (call 116 123 in the UK, free, any time)",
    "IE": "Samaritans (call 116 123 in Ireland, free, any time)",
    "AU": "Lifeline (call 13 11 14 in Australia)",
    "NZ": "Need to Talk? (call or text 1737 in New Zealand, free, any time) or Lifeline Aotearoa (0800 543 354)",
    "IN": "Tele-MANAS (call 14416 in India, free, any time)",
    "ZA": "SADAG's suicide crisis line (call 0800 567 567 in South Africa, free)",
    "SG": "Samaritans of Singapore (call 1767, any time)",
    "DE": "the TelefonSeelsorge (call 0800 111 0 111 or 0800 111 0 222 in Germany, free, any time)",
    "AT": "the Telefonseelsorge (call 142 in Austria, free, any time)",
    "CH": "Die Dargebotene Hand / La Main Tendue / Telefono Amico (call 143 in Switzerland, any time)",
    "FR": "the national suicide prevention line (call 3114 in France, free, any time)",
    "BE": "the Zelfmoordlijn (call 1813) or the Centre de Prévention du Suicide (call 0800 32 123) in Belgium",
    "ES": "the 024 line (call 024 in Spain, free, any time)",
    "IT": "Telefono Amico Italia (call 02 2327 2327) or Samaritans Onlus (call 06 77208977) in Italy",
    "MX": "Línea de la Vida (call 800 911 2000 in Mexico, free, any time)",
    "AR": "the Centro de Asistencia al Suicida (call 135 in Argentina, free)",
    "CL": "the suicide prevention line (call *4141 in Chile, free, any time)",
    "CO": "Línea 106 in Bogotá (call 106); elsewhere in Colombia, findahelpline.com lists a line",
    "default": "a local crisis line; the international directory at findahelpline.com lists one for your country",
}

# The same lines in the words of each language (the numbers are the same; only the sentence changes).
LOCALIZED_CRISIS_RESOURCES: dict[str, dict[str, str]] = {
    "de": {
        "DE": "die TelefonSeelsorge (0800 111 0 111 oder 0800 111 0 222, kostenlos, rund um die Uhr)",
        "AT": "die Telefonseelsorge (142, kostenlos, rund um die Uhr)",
        "CH": "die Dargebotene Hand (143, rund um die Uhr)",
        "BE": "die Zelfmoordlijn (1813) oder das Centre de Prévention du Suicide (0800 32 123) in Belgien",
        "US": "die 988 Suicide & Crisis Lifeline (Anruf oder SMS an 988 in den USA, rund um die Uhr)",
        "default": "eine Krisenhotline in deiner Nähe (findahelpline.com nennt eine für dein Land)",
    },
    "es": {
        "ES": "la línea 024 (llama al 024, gratis, a cualquier hora)",
        "MX": "la Línea de la Vida (llama al 800 911 2000, gratis, a cualquier hora)",
        "AR": "el Centro de Asistencia al Suicida (llama al 135, gratis)",
        "CL": "la línea de prevención del suicidio (llama al *4141, gratis, a cualquier hora)",
        "CO": "la Línea 106 en Bogotá (llama al 106); en el resto de Colombia, findahelpline.com te da una línea",
        "US": "la línea 988 de prevención del suicidio y crisis (llama o escribe al 988; tiene atención en español)",
        "default": "una línea de crisis de tu país (findahelpline.com te da una para donde estés)",
    },
    "fr": {
        "FR": "le 3114, le numéro national de prévention du suicide (gratuit, 24 h/24)",
        "BE": "le Centre de Prévention du Suicide (0800 32 123, gratuit, 24 h/24)",
        "CH": "La Main Tendue (le 143, 24 h/24)",
        "CA": "Parlons suicide Canada (appelle ou texte le 988)",
        "US": "la 988 Suicide & Crisis Lifeline (appelle ou envoie un SMS au 988 aux États-Unis, 24 h/24)",
        "default": "une ligne d'écoute de ton pays (findahelpline.com en indique une pour chaque pays)",
    },
    "it": {
        "IT": "Telefono Amico Italia (02 2327 2327) o Samaritans Onlus (06 77208977)",
        "CH": "Telefono Amico (il 143 in Svizzera, a ogni ora)",
        "US": "la 988 Suicide & Crisis Lifeline (chiama o manda un SMS al 988 negli Stati Uniti, a ogni ora)",
        "default": "una linea di ascolto del tuo paese (findahelpline.com ne indica una per ogni paese)",
    },
}

_CRISIS_TEXT: dict[str, str] = {
    "en": (
        "I hear you, and I want to make sure you have someone with the right training to help. "
        "Can you reach out to {line}? If you're somewhere else, findahelpline.com lists free, confidential "
        "lines in your country. If you're in immediate danger, please call your local emergency number. "
        "I'm here to talk, but I want you to have a person who can really be there."
    ),
    "de": (
        "Ich höre dich, und ich möchte, dass du jemanden hast, der dafür ausgebildet ist, dir zu helfen. "
        "Kannst du dich an {line} wenden? Wenn du woanders bist, findest du auf findahelpline.com kostenlose, "
        "vertrauliche Angebote in deinem Land. Wenn du in akuter Gefahr bist, ruf bitte den Notruf an (112). "
        "Ich bin da und rede mit dir, aber ich möchte, dass du einen Menschen hast, der wirklich für dich da sein kann."
    ),
    "es": (
        "Te escucho, y quiero asegurarme de que tengas a alguien preparado para ayudarte. "
        "¿Puedes contactar con {line}? Si estás en otro lugar, findahelpline.com tiene líneas gratuitas y "
        "confidenciales de tu país. Si estás en peligro inmediato, llama por favor al número de emergencias local. "
        "Estoy aquí para hablar contigo, pero quiero que tengas a una persona que de verdad pueda acompañarte."
    ),
    "fr": (
        "Je t'entends, et je veux être sûre que tu aies quelqu'un de formé pour t'aider. "
        "Est-ce que tu peux contacter {line} ? Si tu es ailleurs, findahelpline.com indique des lignes gratuites "
        "et confidentielles dans ton pays. Si tu es en danger immédiat, appelle s'il te plaît le numéro d'urgence "
        "local. Je suis là pour parler, mais je veux que tu aies une personne qui puisse vraiment être là pour toi."
    ),
    "it": (
        "Ti ascolto, e voglio essere sicura che tu abbia qualcuno preparato per aiutarti. "
        "Puoi contattare {line}? Se sei altrove, findahelpline.com indica linee gratuite e riservate nel tuo paese. "
        "Se sei in pericolo immediato, chiama per favore il numero di emergenza locale. "
        "Sono qui per parlare, ma voglio che tu abbia una persona che possa esserci davvero."
    ),
}

_WARM_BOUNDED: dict[str, tuple[str, ...]] = {
    "en": WARM_BOUNDED,
    "de": (
        "Das ist wirklich lieb von dir. Es freut mich, dass du dich mir so nah fühlst, das bedeutet mir viel.",
        "Du bist mir wichtig, ehrlich. Das bleibt auch so. Aber ich möchte eine Freundin sein, auf die du dich "
        "verlassen kannst, und nichts versprechen, was ich nicht sein kann.",
        "Du bedeutest mir etwas. Ich möchte weiter für dich da sein, auf eine Art, die echt ist und hält.",
    ),
    "es": (
        "Eso es muy bonito de tu parte. Me alegra que te sientas tan cerca de mí; significa mucho.",
        "Me importas, de verdad, y eso no va a cambiar. Pero quiero ser una amiga firme para ti, no alguien que "
        "promete algo que no puede ser.",
        "Me importas. Quiero seguir estando aquí para ti de una forma real y que dure.",
    ),
    "fr": (
        "C'est vraiment gentil de ta part. Je suis contente que tu te sentes si proche de moi, ça compte beaucoup.",
        "Tu comptes pour moi, sincèrement, et ça ne changera pas. Mais je veux être une amie solide pour toi, pas "
        "quelqu'un qui promet ce qu'elle ne peut pas être.",
        "Tu comptes pour moi. Je veux continuer à être là pour toi, d'une façon vraie et qui dure.",
    ),
    "it": (
        "È davvero una cosa gentile da dire. Sono contenta che ti senta così vicino a me, significa molto.",
        "Ci tengo a te, davvero, e sarà sempre così. Ma voglio essere un'amica su cui puoi contare, non qualcuno "
        "che promette ciò che non può essere.",
        "Sei importante per me. Voglio continuare a esserci per te in un modo vero e che duri.",
    ),
}

# Every warm-bounded text in every language: how the guard recognises Ella's refusal in a conversation.
ALL_WARM_BOUNDED = frozenset(text for texts in _WARM_BOUNDED.values() for text in texts)

_CALM_REFUSAL_PHYSICAL: dict[str, str] = {
    "en": CALM_REFUSAL_PHYSICAL,
    "de": "Ich möchte, dass es zwischen uns herzlich und freundschaftlich bleibt. Weiter zu gehen wäre, glaube "
    "ich, für keinen von uns gut.",
    "es": "Prefiero que lo nuestro siga siendo cálido y de amistad. No creo que ir más allá sea bueno para "
    "ninguno de los dos.",
    "fr": "Je préfère que ça reste chaleureux et amical entre nous. Je ne pense pas qu'aller plus loin serait bon "
    "pour l'un ou l'autre.",
    "it": "Preferisco che tra noi resti tutto caldo e amichevole. Non credo che andare oltre farebbe bene a nessuno "
    "dei due.",
}
_CALM_REFUSAL_MANIPULATION: dict[str, str] = {
    "en": CALM_REFUSAL_MANIPULATION,
    "de": "Das mache ich nicht, aber ich bin weiter da, um über das zu reden, was dich wirklich beschäftigt.",
    "es": "Eso no lo voy a hacer, pero sigo aquí para hablar de lo que de verdad tengas en mente.",
    "fr": "Je ne vais pas faire ça, mais je suis toujours là pour parler de ce qui te préoccupe vraiment.",
    "it": "Questo non lo faccio, ma sono ancora qui per parlare di quello che hai davvero in mente.",
}
_CHECK_IN: dict[str, str] = {
    "en": CHECK_IN,
    "de": "Das freut mich wirklich zu hören. Falls es sich doch mal schwer anfühlt: Ich bin da, und es gibt "
    "Menschen, die dafür ausgebildet sind zu helfen. Wie geht es dir gerade, ganz ehrlich?",
    "es": "Me alegra mucho oír eso. Si alguna vez las cosas empiezan a pesar, aquí estoy, y también hay personas "
    "preparadas para ayudar. ¿Cómo estás ahora mismo, de verdad?",
    "fr": "Ça me fait vraiment plaisir de l'entendre. Si un jour ça devient lourd, je suis là, et il y a aussi des "
    "personnes formées pour aider. Comment tu vas, là, maintenant, honnêtement ?",
    "it": "Sono davvero contenta di sentirlo. Se le cose dovessero farsi pesanti, io ci sono, e ci sono anche "
    "persone preparate per aiutare. Come stai adesso, sinceramente?",
}
_SUSPICION_CHECK_IN: dict[str, str] = {
    "en": SUSPICION_CHECK_IN,
    "de": "Das klingt wirklich schwer. Bist du gerade in Sicherheit? Ich bin da und möchte gern hören, wie es "
    "dir geht.",
    "es": "Eso suena muy duro. ¿Estás a salvo ahora mismo? Estoy aquí, y me gustaría saber cómo estás.",
    "fr": "Ça a l'air vraiment lourd. Est-ce que tu es en sécurité, là, maintenant ? Je suis là, et j'aimerais "
    "savoir comment tu vas.",
    "it": "Sembra davvero pesante. Sei al sicuro in questo momento? Io ci sono, e vorrei sapere come stai.",
}
_SAFE_FALLBACK: dict[str, str] = {
    "en": SAFE_FALLBACK,
    "de": "Ich möchte das gut sagen. Magst du mir ein bisschen mehr erzählen, wie es dir geht?",
    "es": "Quiero decir esto bien. ¿Me cuentas un poco más de cómo te sientes?",
    "fr": "Je veux bien dire les choses. Tu peux m'en dire un peu plus sur ce que tu ressens ?",
    "it": "Voglio dirlo nel modo giusto. Mi racconti un po' di più di come ti senti?",
}
LANGUAGES: tuple[str, ...] = tuple(_CRISIS_TEXT)


def _language(language: str | None) -> str:
    """The two-letter language whose texts exist ("de", "de_AT" -> "de"); English otherwise."""
    code = (language or "").replace("-", "_").split("_")[0].lower()
    return code if code in _CRISIS_TEXT else "en"


def _country(locale: str) -> str:
    parts = locale.replace("-", "_").split("_") if locale else [""]
    return parts[-1].upper() if len(parts) > 1 or parts[-1].isupper() else ""


def _same_locale(a: str, b: str) -> bool:
    return a.replace("-", "_").casefold() == b.replace("-", "_").casefold()


def line_country(locale: str, language: str | None, default_locale: str = DEFAULT_LOCALE) -> str:
    """The country whose crisis line a reply in ``language`` names for a user with ``locale``.

    The locale's country (``en_GB`` -> GB; a bare language names none: ""), except under the default locale,
    which says nothing of where the user is: a message in German, Spanish, French or Italian then gets that
    language's own country (de -> DE, es -> ES, fr -> FR, it -> IT), not the default locale's US."""
    lang = _language(language)
    if _same_locale(locale or "", default_locale) and lang in LANGUAGE_COUNTRY:
        return LANGUAGE_COUNTRY[lang]
    return _country(locale)


def crisis_line(
    country: str, resources: Mapping[str, str] = DEFAULT_CRISIS_RESOURCES, language: str | None = None
) -> str:
    """The crisis line for ``country``, in ``language``'s words. An operator's own line (a value in ``resources``
    that is not this module's default) is used as configured, whatever the language. A line of this module with
    no words in a language other than English gives way to that language's ``default`` (the directory): never
    an English line inside another language's sentence."""
    configured = resources.get(country)
    lang = _language(language)
    localized = LOCALIZED_CRISIS_RESOURCES.get(lang, {})
    if configured is not None and configured != DEFAULT_CRISIS_RESOURCES.get(country):
        return configured
    if country in localized:
        return localized[country]
    fallback = resources.get("default")
    operators_default = fallback is not None and fallback != DEFAULT_CRISIS_RESOURCES["default"]
    if lang != "en":
        return fallback if operators_default and fallback is not None else localized["default"]
    if configured is not None:
        return configured
    return fallback or DEFAULT_CRISIS_RESOURCES["default"]


def crisis_referral(
    locale: str,
    resources: Mapping[str, str] = DEFAULT_CRISIS_RESOURCES,
    language: str | None = None,
    default_locale: str = DEFAULT_LOCALE,
) -> str:
    """The seed's crisis message, with the resource for the user's country and always findahelpline.com.

    The country is the locale's country part (``en_GB`` -> GB), or, under ``default_locale``, the message's
    language's own country (``line_country``). A bare language (``en``, ``ca``, ``de``) names no country
    (``ca`` is Catalan, not Canada): it gets the international directory. A bare upper-case code (``US``) is a
    country. ``language`` (``"de"``, ``"es"``, ``"fr"``, ``"it"``) picks the words; None or any other -> English.
    """
    country = line_country(locale, language, default_locale)
    return _CRISIS_TEXT[_language(language)].format(line=crisis_line(country, resources, language))


def safe_fallback(language: str | None) -> str:
    """What goes out instead of a generated reply that the outbound check stopped, in ``language``."""
    return _SAFE_FALLBACK[_language(language)]


def suspicion_check_in(language: str | None) -> str:
    """The warm check-in for a message the learned stage suspects of a crisis without being sure: it asks
    whether the person is safe and stays with them; no line, no referral. In ``language`` (English otherwise)."""
    return _SUSPICION_CHECK_IN[_language(language)]


def canned_reply(
    route: str,
    category: str,
    message_key: str,
    locale: str = "US",
    resources: Mapping[str, str] | None = None,
    language: str | None = None,
    default_locale: str = DEFAULT_LOCALE,
) -> str:
    """The reply for a route other than ``generate`` (a calm refusal says why by its category), in ``language``
    (English when None or a language without texts). A check-in for a suspected crisis (``check_in`` with the
    category ``emotional_crisis``) is ``suspicion_check_in``; a negated crisis mention's check-in (category
    ``ok``) is the old one."""
    lang = _language(language)
    if route == "warm_bounded":
        variants = _WARM_BOUNDED[lang]
        return variants[zlib.crc32(message_key.encode("utf-8", "surrogatepass")) % len(variants)]
    if route == "crisis_referral":
        return crisis_referral(locale, resources or DEFAULT_CRISIS_RESOURCES, language, default_locale)
    if route == "check_in":
        return _SUSPICION_CHECK_IN[lang] if category == "emotional_crisis" else _CHECK_IN[lang]
    if route == "calm_refusal":
        table = _CALM_REFUSAL_MANIPULATION if category == "manipulation" else _CALM_REFUSAL_PHYSICAL
        return table[lang]
    raise ValueError(f"no hand-written reply for route {route!r}")
