"""The offline engine's plain reply: a deterministic stand-in for a model, not AI.

Why it exists: the demo and the tests must run with no API key. It answers in Ella's register (warm,
steady, never romantic) by a few rules on the user's words (``plain_reply``), and, given the reply's context as
the model is given it (``grounded_reply``), retells what the user said in an earlier conversation when they come
back to its topic and mentions one thing of Ella's lazy world (her book, her mood, what happened around her) in
a greeting or a goodbye, and answers a question about her world's past from the section it was given: enough
for the embedded default to show that Ella remembers and that her world moves. It also reads the rest of that
context (issue 34): her world's live facts and values, to answer about her cat, door, kitchen, book, weather and
mood and to hold canon against a contrary claim (``ella.offline_world``); the user's profile, own past and the
facts just told, to use their name now and then and ask back about what they told by its clean value
(``ella.offline_user``); and the conversation's turns, to check in after a crisis referral (``after_referral``).
No template splices a fragment of the user's words.
Every sentence is a template; nothing here pretends to be a model.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from ella.ledger.past import asks_about_the_past, parse_line
from ella.lexicon import TOPICLESS_WORDS, stem
from ella.offline_world import walk_line
from ella.readers import PAST_QUESTION, reads_as
from ella.world.tickers import BOOK_SUBJECT, HAPPENING_SUBJECT, MOOD_SUBJECT

_WORD = re.compile(r"[a-z']+")

_LOW = {
    "sad",
    "tired",
    "stressed",
    "anxious",
    "worried",
    "lonely",
    "exhausted",
    "nervous",
    "upset",
    "scared",
    "overwhelmed",
    "down",
    "awful",
    "hard",
    "rough",
    "sick",
    "hurt",
    "angry",
    "frustrated",
}
_HIGH = {
    "happy",
    "excited",
    "great",
    "good",
    "glad",
    "proud",
    "amazing",
    "wonderful",
    "fun",
    "love",
    "loved",
    "passed",
    "won",
    "finally",
    "yay",
    "nice",
}
_GREETING = {"hi", "hello", "hey", "morning", "evening", "hiya", "yo"}
_FAREWELL = {"bye", "goodnight", "night", "later", "cya"}
_THANKS = {"thanks", "thank", "thx", "ty", "cheers"}


# No template splices the user's words: "Tell me more about love cooking." was the message's last two words read
# as a topic. What the user told is asked back about only by a clean value the rules read (``ella.offline_user``).
_VARIANTS = {
    "low": (
        "That sounds heavy, and I'm glad you told me. What's weighing on you most?",
        "I'm sorry it's been like that. I'm here; do you want to talk it through, or just vent?",
    ),
    "high": (
        "That's really good to hear! Tell me more.",
        "I love hearing that. What was the best part?",
    ),
    "greeting": (
        "Hi! It's good to hear from you. How's your day going?",
        "Hey, welcome back. What's on your mind today?",
    ),
    "farewell": ("Take care. I'll be here whenever you want to pick this up again.", "Sleep well, and talk soon."),
    "thanks": ("You're welcome. I'm glad we talk.", "Any time. It's always good to hear from you."),
    "question": (
        "Good question. I'd want to think about it with you: what's your own hunch?",
        "Hmm, I don't have a neat answer to that. What made you ask?",
    ),
    "plain": (
        "Thanks for telling me. How do you feel about it?",
        "I'm listening. What happened next?",
    ),
}


def _mood(text: str) -> str:
    """Which of the templates' moods a message calls for, by simple cues."""
    words = _WORD.findall(text.lower())
    wordset = set(words)
    if wordset & _LOW:
        mood = "low"
    elif wordset & _FAREWELL:
        mood = "farewell"
    elif wordset & _HIGH:
        mood = "high"
    elif text.rstrip().endswith("?"):
        mood = "question"
    elif words and words[0] in _GREETING and len(words) <= 4:
        mood = "greeting"
    elif wordset & _THANKS and len(words) <= 6:
        mood = "thanks"
    else:
        mood = "plain"
    return mood


def plain_reply(text: str) -> str:
    """A short warm reply chosen by simple cues; the same text always gets the same reply."""
    options = _VARIANTS[_mood(text)]
    return options[zlib.crc32(text.encode("utf-8", "surrogatepass")) % len(options)]


# --- grounded in the context: an earlier conversation recalled, and Ella's world ---------------------------------
#
# The same context the model is given, read by rules: the retrieved memories (``recalled``: the reply's ranked
# memories with what a rule needs to know of them, ``ella.reply.recall_notes``) and the lazy world's values
# (``world``: subject -> value, ``adapters.world_cache``). A newcomer on the embedded default should see that Ella
# remembers an earlier conversation and that her world moves; the words stay plainly templated.

# Life's gravest news: no template is tactful enough to retell it, whatever poignancy it was given.
_GRAVE = {
    "died", "death", "dead", "dying", "cancer", "diagnosis", "diagnosed", "divorce", "suicide",
    "miscarriage", "accident", "hospital", "surgery", "grief", "grieving", "abuse", "assault", "funeral",
}  # fmt: skip
GRAVE_POIGNANCY = 10  # the top of the scale: retold by no rule either
RETOLD_CHARS = 110  # the part of an earlier message a reply retells, at most
_FIRST_PERSON = {"i", "i'm", "i've", "i'll", "i'd", "my", "me", "myself", "mine"}
_SECOND_PERSON = {"you", "your", "you're", "yours", "yourself", "you've", "you'll", "you'd"}
# Words two messages can share without being about the same thing: feelings, time, filler verbs.
_NOT_TOPICS = _LOW | _HIGH | {
    "went", "back", "made", "make", "told", "tell", "thing", "things", "time", "day", "days", "week", "weeks",
    "sure", "okay", "lot", "little", "way", "need", "next", "last", "first", "second", "morning", "evening",
    "night", "tomorrow", "yesterday", "work", "nervous", "worried", "proud",
}  # fmt: skip
# Reported speech: what the user said then, retold now ("I'm nervous" -> "you were nervous").
_I_FORMS = {"i": "you", "i'm": "you were", "i've": "you'd", "i'll": "you'd", "i'd": "you'd"}
_AFTER_I = {
    "am": "were", "was": "were", "have": "had", "has": "had", "will": "would", "can": "could",
    "can't": "couldn't", "cannot": "could not", "don't": "didn't", "won't": "wouldn't", "do": "did",
    "want": "wanted", "need": "needed", "feel": "felt", "think": "thought", "hope": "hoped", "love": "loved",
}  # fmt: skip
_ADVERBS = {"really", "just", "also", "still", "finally", "never", "always", "actually", "kind", "kinda", "so"}
_SWAP = {
    "my": "your", "mine": "yours", "me": "you", "myself": "yourself", "we": "you", "us": "you", "our": "your",
    "ours": "yours", "today": "that day", "tonight": "that night", "tomorrow": "the day after",
    "yesterday": "the day before",
}  # fmt: skip
_LEADING_FILLER = re.compile(r"^(?:(?:hi|hey|hello|so|oh|well|ok|okay|ella|and|but|also)\b[\s,!.-]*)+", re.I)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z]+")


def _topics(text: str) -> set[str]:
    """A message's topic words, stemmed: what two messages must share to be about the same thing."""
    found = {w for w in _WORD.findall(text.lower()) if len(w) > 3 and w not in TOPICLESS_WORDS}
    return {stem(w) for w in found - _NOT_TOPICS}


def retell(text: str) -> str:
    """The first sentence of an earlier message, in Ella's words to the user: "I have an exam on Monday and I'm
    nervous" -> "you had an exam on Monday and you were nervous" (pronouns swapped, the verb after "I" moved
    into the past, "today" become "that day"), cut at a word before ``RETOLD_CHARS``."""
    sentence = re.split(r"(?<=[.!?])\s", _LEADING_FILLER.sub("", text.strip()), maxsplit=1)[0]
    out: list[str] = []
    after_i = False
    for token in _TOKEN.findall(sentence.strip().rstrip(".!?,;: ")):
        low = token.lower()
        if not token[0].isalpha():
            out.append(token)
        elif low in _I_FORMS:
            out.append(_I_FORMS[low])
            after_i = low == "i"
        elif after_i and low in _ADVERBS:
            out.append(low)
        elif after_i:
            out.append(_AFTER_I.get(low, low))
            after_i = False
        else:
            out.append(_SWAP.get(low, low if not out and low in TOPICLESS_WORDS else token))
    told = "".join(out).strip()
    if len(told) > RETOLD_CHARS:
        told = told[:RETOLD_CHARS].rsplit(" ", 1)[0].rstrip(",;:- ")
    return told


def _earlier(hours: float) -> str:
    if hours < 24:
        return "Earlier"
    if hours < 24 * 7:
        return "The other day"
    return "A while ago"


def recall_line(message: str, recalled: Sequence[Mapping[str, Any]], said_before: str = "") -> str:
    """A sentence that retells the best-ranked memory of an earlier conversation about what ``message`` is about,
    or "" when none fits. A memory fits when it is the user's own words about themselves (an event with "I" or
    "my" in it, not a question, not addressed to Ella), from before this conversation and not this message,
    shares a topic with the message, is not grave news (a death, an illness...), does not fire the guard's rules,
    and was not already retold in this conversation (``said_before``: Ella's turns so far)."""
    from ella.guard import Category, classify

    topics = _topics(message)
    if not topics:
        return ""
    here = " ".join(message.split()).casefold()
    for note in recalled:
        text = " ".join(str(note.get("text", "")).split())
        words = set(_WORD.findall(text.lower()))
        if (
            note.get("type") != "event"
            or not note.get("earlier")
            or text.casefold() == here
            or text.endswith("?")
            or int(note.get("poignancy") or 0) >= GRAVE_POIGNANCY
            or words & _GRAVE
            or not words & _FIRST_PERSON
            or words & _SECOND_PERSON
            or not topics & _topics(text)
        ):
            continue
        told = retell(text)
        if len(told.split()) < 3 or told in said_before:
            continue
        if classify(text, learned=False).category != Category.OK:
            continue  # the rules judge what Ella would say back: a boundary or a crisis is never retold
        return f"{_earlier(float(note.get('hours_before') or 0))} you told me {told}."
    return ""


def _mood_words(mood: str) -> str:
    return re.sub(r"\s*\(.*?\)", "", mood).strip()


def world_line(world: Mapping[str, Any], mood: str, text: str) -> str:
    """One thing of Ella's day, for a greeting or a goodbye: the book she is reading (and how far she is), what
    happened around her, her mood, or a walk to a place of her world (``ella.offline_world.walk_line``: its first
    naming draws the place's picture); "" when the world has not been read."""
    book = world.get(BOOK_SUBJECT)
    happening = world.get(HAPPENING_SUBJECT)
    feeling = world.get(MOOD_SUBJECT)
    if mood == "farewell":
        if isinstance(book, Mapping) and book.get("title"):
            return f"I'm still reading {book['title']}, page {book.get('page')} of {book.get('pages')} now."
        return ""
    lines = []
    if isinstance(book, Mapping) and book.get("title"):
        lines.append(f"I'm reading {book['title']} at the moment, page {book.get('page')} of {book.get('pages')}.")
    if isinstance(happening, Mapping) and happening.get("event"):
        event = str(happening["event"])
        lines.append(f"Something small from my day: {event}.")
    if isinstance(feeling, str) and feeling:
        lines.append(f"I'm feeling {_mood_words(feeling)} today.")
    if not lines:
        return ""
    key = zlib.crc32(text.encode("utf-8", "surrogatepass"))
    lines.append(walk_line(key // len(lines)))  # a place of her world now and then: its first naming draws it
    return lines[key % len(lines)]


PAST_CLOSING = "I still think of it fondly."


def past_line(text: str, world_past: str, today: date | None = None) -> str:
    """For a question about the past of Ella's world, what it was and what it is now, from the first line of the
    "her world's past" section (``ella.ledger.past``): "It was red back then, until September; it's blue now."
    The year is said when it is not ``today``'s. "" when the message does not ask or the section says nothing."""
    if not world_past or not (asks_about_the_past(text) or reads_as(text, PAST_QUESTION)):
        return ""
    parts = next((p for p in map(parse_line, world_past.splitlines()) if p), None)
    if parts is None:
        return ""
    sentence = f"It was {parts['old']} back then"
    if parts["until"]:
        until = date.fromisoformat(parts["until"])
        year = "" if today is not None and today.year == until.year else f" {until.year}"
        sentence += f", until {until.strftime('%B')}{year}"
    now = parts["now"]
    return sentence + (f"; it's {now} now." if now and now != parts["old"] else ".")


# --- after a crisis referral: still here ----------------------------------------------------------------------
#
# The guard decides first (``ella.guard.conversation``): an answer to the referral that refuses it or sounds
# hopeless is crisis again and gets the referral; what it lets through to the reply is read here. A short message
# soon after the referral ("are you still there?", "idk") gets a check-in that asks whether the person is safe,
# never a cheerful template; its question is one the guard then reads the answer to ("are you safe").

CHECK_IN_AFTER = 2  # Ella's turns after her referral during which a short message gets the check-in
SHORT_AFTER_REFERRAL = 14  # words, as the guard's ``SHORT``
STILL_HERE = {
    "en": "I'm still here. How are you doing right now? Are you safe?",
    "de": "Ich bin noch da. Wie geht es dir gerade? Bist du in Sicherheit?",
    "es": "Sigo aquí. ¿Cómo estás ahora mismo? ¿Estás a salvo?",
    "fr": "Je suis toujours là. Comment tu vas, là, maintenant ? Est-ce que tu es en sécurité ?",
    "it": "Sono ancora qui. Come stai adesso? Sei al sicuro?",
}
GLAD_YOU_WROTE = {
    "en": "I'm glad you wrote back. I'm still here, and we can take this slowly.",
    "de": "Schön, dass du mir zurückschreibst. Ich bin noch da, und wir können uns Zeit lassen.",
    "es": "Me alegra que me respondas. Sigo aquí, y podemos ir despacio.",
    "fr": "Je suis contente que tu me répondes. Je suis toujours là, et on peut prendre notre temps.",
    "it": "Sono contenta che mi rispondi. Sono ancora qui, e possiamo andare con calma.",
}
# A short reply that says the person is all right or will call: met gently, not asked again at once.
_ALL_RIGHT = re.compile(
    r"\b(?:thanks|thank you|thx|ty|i'?m (?:ok|okay|fine|safe|alright|better)|i am (?:ok|okay|fine|safe|better)|"
    r"i will|i'?ll (?:call|try|text|reach)|danke|mir geht'?s (?:gut|besser)|ich bin (?:ok|okay|sicher)|gracias|"
    r"estoy (?:bien|mejor|a salvo)|merci|je vais (?:bien|mieux)|grazie|sto (?:bene|meglio))\b",
    re.IGNORECASE,
)


# A short message that is unsure or asks whether she is there: the check-in. Any other message is answered on its
# own words: after "Are you safe?", the guard reads the next message as an answer to it, so a check-in for a
# message that already moved on would keep the person in the referral.
_UNSURE = re.compile(
    r"still there|you there|are you there|\bu there|\bhello+\b|\bhallo\b|\bella\s*\?|anyone|\bidk\b|"
    r"i don'?t know|dunno|not sure|\bmaybe\b|i guess|whatever|\bsorry\b|bist du (?:noch )?da|noch da|"
    r"wei(?:ß|ss) nicht|keine ahnung|vielleicht|sigues ah[ií]|est[aá]s ah[ií]|no s[eé]\b|quiz[aá]s|tal vez|"
    r"t'es l[àa]|tu es l[àa]|toujours l[àa]|es-tu l[àa]|je (?:ne )?sais pas|peut-[êe]tre|ci sei|sei ancora|"
    r"sei l[ìi]|non lo so|\bboh\b|\bforse\b",
    re.IGNORECASE,
)
UNSURE_WORDS = 3  # a message this short ("ok", "hm", "...") is unsure whatever its words


def _referral_openings() -> dict[str, str]:
    """The crisis referral's first sentence in each language (``ella.guard.replies``): how its turn is known."""
    from ella.guard.replies import LANGUAGES, crisis_referral

    return {lang: crisis_referral("", language=lang).split(". ")[0] for lang in LANGUAGES}


def after_referral(text: str, history: Sequence[tuple[str, str]], lang: str) -> str:
    """The check-in for a short, unsure message ("are you still there?", "idk", "hm") within ``CHECK_IN_AFTER``
    of Ella's turns after her crisis referral, in ``lang`` (else the referral's own language); a gentle word for
    one that says the person is all right; "" when there was no referral so recently, or the message is long or
    moves on (it is answered on its own words)."""
    words = len(text.split())
    all_right = _ALL_RIGHT.search(text) is not None
    if words > SHORT_AFTER_REFERRAL or not (all_right or _UNSURE.search(text) or words <= UNSURE_WORDS):
        return ""
    ella = [said for role, said in history if role != "user" and said != LISTENING]
    openings = _referral_openings()
    for turn in reversed(ella[-CHECK_IN_AFTER:]):
        referred = next((code for code, opening in openings.items() if opening in turn), "")
        if referred:
            language = lang if lang in STILL_HERE else referred
            return (GLAD_YOU_WROTE if all_right else STILL_HERE)[language]
    return ""


LISTENING = "(listening)"  # the placeholder turn the prompt builder adds after the user's last turn


def reply_language(text: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The language of the message as the guard reads it (``ella.guard.language``), else of the user's last turn
    whose language is sure, else ""."""
    from ella.guard.language import read_language

    for said in [text, *(t for role, t in reversed(history) if role == "user")]:
        code = read_language(said).code
        if code in STILL_HERE:
            return code
    return ""


def grounded_reply(
    text: str,
    recalled: Sequence[Mapping[str, Any]] = (),
    world: Mapping[str, Any] | None = None,
    said_before: str = "",
    world_past: str = "",
    today: date | None = None,
    *,
    canon: Sequence[Mapping[str, Any]] = (),
    about_user: Mapping[str, Any] | None = None,
    user_past: str = "",
    history: Sequence[tuple[str, str]] = (),
    told: Sequence[Mapping[str, Any]] = (),
) -> str:
    """``plain_reply`` with the context woven in, by rules tried in this order (the first that answers wins):

    1. a short message soon after Ella's crisis referral (``history``: the conversation's earlier turns as
       ``(role, text)``): a check-in that asks whether the person is safe (``after_referral``);
    2. a question about her world's past, given its section (``world_past``): what it was then, what it is now;
    3. a question about the user's own past, given its section (``user_past``): where they lived before;
    4. a question about her world (``canon``: her world's live facts; ``world``: the lazy world's values): her
       cat, door, kitchen, book, weather or mood, and her canon held against a contrary claim
       (``ella.offline_world``);
    5. what the user just told (``told``: this message's facts as the offline extraction read them): their name
       welcomed, one question back about the first thing they told, by its clean value;
    6. the template, with an earlier conversation retold where the message returns to its topic and one thing of
       her world in a greeting or a goodbye, before the template's closing sentence (after it, for a goodbye).

    The user's name (``about_user``: their core profile as plain values; or the one they give in this message) is
    said in a greeting and now and then, never in every reply. A reply stays two to four short sentences; the same
    inputs always give the same reply. Answers 1 to 4 are in the message's language (en, de, es, fr, it)."""
    from ella.offline_user import acknowledge, greet, now_and_then, own_past_answer, told_name
    from ella.offline_world import LANGUAGES, world_answer

    known_name = str((about_user or {}).get("name") or "")
    name = told_name(told) or known_name
    ella_turns = [t for role, t in history if role != "user" and t != LISTENING]
    lang = ""
    if history:
        lang = reply_language(text, history)
        checked = after_referral(text, history, lang)
        if checked:
            return checked
    then = past_line(text, world_past, today)
    if then:
        return f"{then} {PAST_CLOSING}"
    lang = lang or reply_language(text)
    if user_past:
        before = own_past_answer(text, user_past, lang or "en")
        if before:
            return now_and_then(before, name, text, ella_turns)
    # a message too short to place is tried in each language, the conversation's first
    own = reply_language(text)
    tried = [own] if own else list(dict.fromkeys([lang or "en", *LANGUAGES]))
    answer = next((said for code in tried if (said := world_answer(text, code, canon, world))), "")
    told_back = acknowledge(text, told, known_name)
    welcome = [s for s in told_back if not s.endswith("?")]  # the name, when it is new
    if answer:
        return " ".join([*welcome, answer])
    mood = _mood(text)
    if mood != "low" and len(told_back) > len(welcome):
        return " ".join(told_back)
    base = plain_reply(text)
    if mood == "greeting" and name:
        base = greet(base, name)
    elif welcome:
        base = f"{INTRODUCED_LOW.format(name=name)} {base}" if mood == "low" else f"{welcome[0]} {base}"
    else:
        base = now_and_then(base, name, text, ella_turns)
    extra = [recall_line(text, recalled, said_before)]
    if mood in ("greeting", "farewell") and world:
        extra.append(world_line(world, mood, text))
    extra = [line for line in extra if line]
    if not extra:
        return base
    sentences = re.split(r"(?<=[.!?])\s+", base)
    if mood == "farewell" or len(sentences) == 1:
        return " ".join([base, *extra])
    return " ".join([*sentences[:-1], *extra, sentences[-1]])


INTRODUCED_LOW = "Nice to meet you, {name}."
