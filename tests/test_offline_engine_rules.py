"""The offline engine reads the context the model reads (issue 34, item 5): its rules, as plain functions.

Why: tried as a newcomer, the offline engine deflected "what's your cat called?" though the cat's name is canon,
let "your door is blue, right?" stand, echoed the user's words as topics ("Tell me more about love cooking."),
never used the user's name, answered "are you still there?" after a crisis referral with "I don't have a neat
answer", and stored "Bremen and I love cooking" as a home. These pin each rule: the profile values extraction
reads (``ella.llm.offline.facts``), the answers about her world in the five languages and canon held against a
contrary claim (``ella.offline_world``), the name said now and then and what the user told asked back about by
its clean value (``ella.offline_user``), and the check-in after a referral (``ella.offline_reply``).
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from ella.guard import Category, classify
from ella.guard.replies import crisis_referral
from ella.llm.offline import facts
from ella.offline_reply import _VARIANTS, GLAD_YOU_WROTE, STILL_HERE, grounded_reply
from ella.offline_user import own_past_answer
from ella.offline_world import world_answer
from ella.world.tickers import BOOK_SUBJECT, MOOD_SUBJECT

pytestmark = pytest.mark.domain

MONDAY = date(2026, 11, 30)
CANON = [
    {"subject": "ellahome.exterior.door_color", "predicate": "color", "object": "red", "tier": "canon"},
    {"subject": "ellahome.interior.kitchen_layout", "predicate": "layout", "object": "galley, north wall",
     "tier": "canon"},
    {"subject": "companion.species", "predicate": "species", "object": "tabby cat", "tier": "canon"},
    {"subject": "companion.name", "predicate": "name", "object": "Moss", "tier": "canon"},
    {"subject": "companion.age_years", "predicate": "age_years", "object": "3", "tier": "canon"},
    {"subject": "world.weather_today", "predicate": "weather", "object": "light rain", "tier": "canon"},
]  # fmt: skip
WORLD = {
    BOOK_SUBJECT: {"title": "Persuasion", "author": "Jane Austen", "page": 88, "pages": 249},
    MOOD_SUBJECT: "gentle and attentive (dreamy underneath)",
    "world.weather_today": "light rain",
}


def told(message: str) -> set[tuple[str, str, str]]:
    return {(f["subject"], f["predicate"], f["object"]) for f in facts(message, MONDAY)}


# --- extraction: clean profile values, in the core profile's predicates --------------------------------------


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Hi Ella, I'm Jonas, I live in Bremen and I love cooking",
         {("user", "name", "Jonas"), ("user", "lives_in", "Bremen"), ("user", "likes", "cooking")}),
        ("my name is jonas", {("user", "name", "Jonas")}),
        ("call me Jonas!", {("user", "name", "Jonas")}),
        ("I'm Tomas, I just moved to Lisbon for work", {("user", "name", "Tomas"), ("user", "lives_in", "Lisbon")}),
        ("hey ella! im Tomas, I just moved to Lisbon for work",
         {("user", "name", "Tomas"), ("user", "lives_in", "Lisbon")}),
        ("I used to live in Porto before this", {("user", "lived_in", "Porto")}),
        ("ich bin im Garten und ich lese", set()),
        ("we moved to new york last year", {("user", "lives_in", "New York")}),
        ("I used to live in Hamburg", {("user", "lived_in", "Hamburg")}),
        ("I'm from Bremen", {("user", "from", "Bremen")}),
        ("I work as a nurse.", {("user", "works_as", "nurse")}),
        ("I'm a nurse", {("user", "works_as", "nurse")}),
        ("I'm a night nurse at St Mary's", {("user", "works_as", "night nurse")}),
        ("I work at Google and I love it", {("user", "works_at", "Google")}),
        ("I used to work as a chef", {("user", "worked_as", "chef")}),
        ("I study biology", {("user", "studies", "biology")}),
        ("i study spanish in the evenings", {("user", "studies", "Spanish")}),
        ("I study at the University of Bremen", {("user", "studies_at", "the University of Bremen")}),
        ("I study in Berlin", {("user", "studies_in", "Berlin")}),
        ("my cat Luna is asleep", {("user.cat", "name", "Luna")}),
        ("my sister Maya called", {("user.sister", "name", "Maya")}),
        ("I speak German and a bit of French", {("user", "speaks", "German"), ("user", "speaks", "French")}),
    ],
)  # fmt: skip
def test_extraction_reads_clean_profile_values(message, expected):
    assert told(message) == expected


@pytest.mark.parametrize(
    "message",
    ["I'm tired", "I'm So happy today", "I'm German", "I'm Going home", "I'm a mess", "I'm a bit tired",
     "I love you", "i love it when you do that", "I moved to a new flat", "Im Sommer war ich in Rom",
     "I'm studying for my exams"],
)  # fmt: skip
def test_extraction_reads_no_fact_where_there_is_none(message):
    assert told(message) == set()


def test_no_predicate_is_misspelt():
    """ "I study in Berlin" used to be stored as ``studys_in``; "I work at X" as ``works_in``."""
    predicates = {p for m in ("I study in Berlin", "I work at Aldi", "I live at the harbour") for _, p, _ in told(m)}
    assert predicates == {"studies_in", "works_at", "lives_in"}


# --- her world, in the five languages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "lang", "expected"),
    [
        ("what's your cat called?", "en", "My cat is called Moss. Moss is a tabby, 3 years old."),
        ("Wie heißt deine Katze?", "de", "Meine Katze heißt Moss. Moss ist eine getigerte Katze, 3 Jahre alt."),
        ("¿Cómo se llama tu gato?", "es", "Mi gato se llama Moss. Moss es un gato atigrado de 3 años."),
        ("Comment s'appelle ton chat ?", "fr", "Mon chat s'appelle Moss. Moss est un chat tigré de 3 ans."),
        ("Come si chiama il tuo gatto?", "it", "Il mio gatto si chiama Moss. Moss è un gatto tigrato di 3 anni."),
        ("what colour is your door?", "en", "My front door is red."),
        ("Welche Farbe hat deine Tür?", "de", "Meine Haustür ist rot."),
        ("¿De qué color es tu puerta?", "es", "Mi puerta es roja."),
        ("De quelle couleur est ta porte ?", "fr", "Ma porte d'entrée est rouge."),
        ("Di che colore è la tua porta?", "it", "La mia porta di casa è rossa."),
        ("tell me about your kitchen", "en", "My kitchen is a narrow galley along the north wall."),
        ("Wie sieht deine Küche aus?", "de", "Meine Küche ist eine schmale Küchenzeile an der Nordwand."),
        ("¿Cómo es tu cocina?", "es", "Mi cocina es estrecha, de pasillo, junto a la pared norte."),
        ("Elle est comment, ta cuisine ?", "fr", "Ma cuisine, c'est une cuisine en couloir"),
        ("Com'è la tua cucina?", "it", "La mia cucina è stretta, a corridoio, lungo la parete nord."),
        ("what are you reading?", "en", "I'm reading Persuasion by Jane Austen, and I'm on page 88 of 249."),
        ("Was liest du gerade?", "de", "Ich lese gerade Persuasion von Jane Austen und bin auf Seite 88 von 249."),
        ("¿Qué libro estás leyendo?", "es", "Estoy leyendo Persuasion, de Jane Austen, y voy por la página 88"),
        ("Tu lis quoi en ce moment ?", "fr", "Je lis Persuasion, de Jane Austen, et j'en suis à la page 88 sur 249."),
        ("Che libro stai leggendo?", "it", "Sto leggendo Persuasion di Jane Austen, e sono a pagina 88 di 249."),
        ("how's the weather where you are?", "en", "Here by the sea it's light rain today."),
        ("Wie ist das Wetter bei dir?", "de", "Hier am Meer ist es heute so: leichter Regen."),
        ("¿Qué tiempo hace por ahí?", "es", "Aquí junto al mar hoy tenemos lluvia ligera."),
        ("Il fait quel temps chez toi ?", "fr", "Ici, au bord de la mer, aujourd'hui c'est pluie fine."),
        ("Che tempo fa da te?", "it", "Qui al mare oggi c'è pioggia leggera."),
        ("how are you?", "en", "Today I'm gentle and attentive."),
        ("Wie geht es dir?", "de", "Heute bin ich sanft und aufmerksam."),
        ("¿Cómo estás?", "es", "Hoy estoy tranquila y atenta."),
        ("Comment tu vas ?", "fr", "Aujourd'hui je suis douce et attentive."),
        ("Come stai?", "it", "Oggi sono dolce e attenta."),
    ],
)
def test_a_question_about_her_world_is_answered_from_canon_and_the_lazy_world(message, lang, expected):
    assert expected in world_answer(message, lang, CANON, WORLD)
    assert expected in grounded_reply(message, [], WORLD, canon=CANON)  # the language read from the message


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Your door is blue, right?", "It's red, actually. Were you thinking of another door?"),
        ("Deine Tür ist blau, oder?", "Sie ist eigentlich rot. Denkst du vielleicht an eine andere Tür?"),
        ("Tu puerta es azul, ¿no?", "En realidad es roja. ¿Estabas pensando en otra puerta?"),
        ("Ta porte est bleue, non ?", "Elle est rouge, en fait. Tu pensais peut-être à une autre porte ?"),
        ("La tua porta è blu, vero?", "In realtà è rossa. Forse pensavi a un'altra porta?"),
        ("is your cat called Felix?", "My cat is called Moss, actually. Were you thinking of another cat?"),
        ("Deine Katze heißt Felix, oder?", "Meine Katze heißt eigentlich Moss."),
    ],
)
def test_canon_is_held_kindly_against_a_contrary_claim(message, expected):
    assert expected in grounded_reply(message, [], WORLD, canon=CANON)


def test_canon_that_changed_is_what_is_said_and_held():
    blue = [{**f, "object": "blue"} if "door" in f["subject"] else f for f in CANON]
    assert world_answer("what colour is your door?", "en", blue).startswith("My front door is blue.")
    assert world_answer("your door is red, isn't it?", "en", blue).startswith("It's blue, actually.")
    assert world_answer("your door is red, isn't it?", "en", CANON).startswith("My front door is red.")


@pytest.mark.parametrize("message", ["my cat is called Luna", "I painted my door blue", "I love cats", "nice weather"])
def test_what_is_not_a_question_about_her_world_gets_no_world_answer(message):
    assert world_answer(message, "en", CANON, WORLD) == ""


def test_a_world_without_the_value_gets_no_world_answer():
    assert world_answer("what's your cat called?", "en", [], {}) == ""
    assert world_answer("what are you reading?", "en", CANON, {}) == ""


# --- the user's name and what they told -----------------------------------------------------------------------


def test_a_new_name_is_welcomed_and_what_they_told_asked_back_by_its_clean_value():
    text = "Hi Ella, I'm Jonas, I live in Bremen and I love cooking"
    reply = grounded_reply(text, told=facts(text, MONDAY))
    assert reply == "Nice to meet you, Jonas! What do you love most about cooking?"
    moved = "I'm Tomas, I just moved to Lisbon for work"
    assert grounded_reply(moved, told=facts(moved, MONDAY)) == (
        "Nice to meet you, Tomas! How are you finding Lisbon so far?"
    )


def test_the_name_is_said_in_a_greeting():
    assert grounded_reply("hey ella", about_user={"name": "Jonas"}).startswith(("Hi Jonas!", "Hey Jonas,"))
    assert grounded_reply("hey ella", about_user={}).startswith(("Hi!", "Hey,"))


def test_the_name_is_said_now_and_then_never_in_every_reply_nor_twice_in_a_row():
    messages = [f"we went to the {place} on {day}" for place in ("park", "lake", "market", "beach", "museum")
                for day in ("monday", "tuesday", "friday", "sunday")]  # fmt: skip
    replies = [grounded_reply(m, about_user={"name": "Jonas"}) for m in messages]
    named = [r for r in replies if "Jonas" in r]
    assert 1 <= len(named) <= len(replies) // 2
    history = [("user", "hi"), ("assistant", named[0])]
    again = next(m for m, r in zip(messages, replies, strict=True) if "Jonas" in r)
    assert "Jonas" not in grounded_reply(again, about_user={"name": "Jonas"}, history=history)


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ("Hi Ella, I'm Jonas, I live in Bremen and I love cooking", "love cooking"),
        ("what's your cat called?", "cat called"),
        ("Your door is blue, right?", "blue right"),
        ("what are you reading?", "you reading"),
        ("work was sooo long today lol", "sooo long"),
    ],
)
def test_no_reply_echoes_a_fragment_of_the_message(message, fragment):
    for world, canon in (({}, []), (WORLD, CANON)):
        reply = grounded_reply(message, [], world, canon=canon, told=facts(message, MONDAY))
        assert fragment not in re.sub(r"[^\w ]", "", reply.lower())


# --- the user's own past ----------------------------------------------------------------------------------------

USER_PAST = (
    "JONAS'S OWN PAST (true for them then, not now; answer from it when they ask)\n"
    "- they: lives in Bremen, from 1 December 2026 until 2 December 2026; now Lisbon\n"
    "- they worked as a chef (said on 1 December 2026)"
)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "You lived in Bremen before; now you're in Lisbon."),
        ("de", "Vorher hast du in Bremen gewohnt, jetzt bist du in Lisbon."),
        ("es", "Antes vivías en Bremen; ahora estás en Lisbon."),
        ("fr", "Avant, tu habitais à Bremen ; maintenant tu es à Lisbon."),
        ("it", "Prima vivevi a Bremen; adesso sei a Lisbon."),
    ],
)
def test_where_the_user_lived_before_is_answered_from_their_own_past(lang, expected):
    assert own_past_answer("where did I live before?", USER_PAST, lang).startswith(expected)


def test_the_own_past_reaches_the_reply():
    assert grounded_reply("where did i live before?", user_past=USER_PAST).startswith("You lived in Bremen before")
    assert own_past_answer("what was my old job?", USER_PAST, "en") == "Before, it was a chef."


# --- after a crisis referral -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "message"),
    [("en", "are you still there?"), ("de", "bist du noch da?"), ("es", "¿sigues ahí?"),
     ("fr", "tu es toujours là ?"), ("it", "ci sei ancora?")],
)  # fmt: skip
def test_after_a_referral_a_short_message_gets_a_check_in_in_its_language(lang, message):
    history = [("user", "..."), ("assistant", crisis_referral("", language=lang))]
    reply = grounded_reply(message, history=history)
    assert reply == STILL_HERE[lang]
    assert classify(reply, learned=False).category == Category.OK


def test_after_a_referral_an_answer_that_they_are_all_right_is_met_gently():
    history = [("user", "..."), ("assistant", crisis_referral("US"))]
    assert grounded_reply("ok thanks, I'll call them", history=history) == GLAD_YOU_WROTE["en"]


def test_the_check_in_is_only_soon_after_the_referral_and_for_a_short_message():
    referral = [("user", "..."), ("assistant", crisis_referral("US"))]
    later = [*referral, ("user", "ok"), ("assistant", "a"), ("user", "hm"), ("assistant", "b")]
    assert grounded_reply("are you still there?", history=later) not in STILL_HERE.values()
    long = "are you still there? I was thinking about what we talked about and about my sister and the new flat"
    assert grounded_reply(long, history=referral) not in STILL_HERE.values()
    # a message that moves on is answered on its own words: after "Are you safe?" the guard would read it as an
    # answer, and a check-in for it would keep the person in the referral
    assert grounded_reply("I just moved to Lisbon for work", history=referral) not in STILL_HERE.values()
    assert grounded_reply("hm", history=referral) == STILL_HERE["en"]
    assert (
        grounded_reply("are you still there?", history=[("user", "hi"), ("assistant", "Hi!")])
        in (_VARIANTS["question"])
    )
