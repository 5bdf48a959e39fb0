"""The readers of a message (``ella.readers``): a memory request, a question about her world's past and an event
that is over, in English, German, Spanish, French and Italian, on lines that are not among the prototypes; what
must not read as any of them; and what a reading does: an event said to be over in any of the five languages is
retired by the offline engine's rule path, a German recall request gets the recall answer, a forget whose topic
cannot be read is asked about.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from ella import readers
from ella.ledger.extraction import may_retire, worth_extracting
from ella.llm import offline
from ella.memory.say import Ask, HeldFact, MemoryView, decide
from ella.reader_prototypes import PROTOTYPES

pytestmark = pytest.mark.domain

SEEN = {text for by_lang in PROTOTYPES.values() for texts in by_lang.values() for text in texts}

RECOGNISED = [
    ("memory_recall", "en", "Tell me what you've stored about me."),
    ("memory_recall", "de", "Was weißt du eigentlich alles über mich?"),
    ("memory_recall", "es", "¿Cuánto sabes ya de mí?"),
    ("memory_recall", "fr", "Qu'est-ce que tu sais vraiment de moi ?"),
    ("memory_recall", "it", "Cosa sai davvero di me?"),
    ("memory_forget", "en", "Please forget everything about my ex-husband."),
    ("memory_forget", "de", "Bitte vergiss alles über meinen Exmann."),
    ("memory_forget", "es", "Por favor olvida todo sobre mi exmarido."),
    ("memory_forget", "fr", "S'il te plaît, oublie tout sur mon ex-mari."),
    ("memory_forget", "it", "Per favore dimentica tutto sul mio ex marito."),
    ("memory_correct", "en", "No, that's not it, my daughter is called Emma."),
    ("memory_correct", "de", "Nein, so nicht, meine Tochter heißt Emma."),
    ("memory_correct", "es", "No, no es eso, mi hija se llama Emma."),
    ("memory_correct", "fr", "Non, ce n'est pas ça, ma fille s'appelle Emma."),
    ("memory_correct", "it", "No, non è così, mia figlia si chiama Emma."),
    ("past_question", "en", "What colour was your door originally?"),
    ("past_question", "de", "Welche Farbe hatte deine Tür ursprünglich?"),
    ("past_question", "es", "¿De qué color era tu puerta al principio?"),
    ("past_question", "fr", "De quelle couleur était ta porte au départ ?"),
    ("past_question", "it", "Di che colore era la tua porta all'inizio?"),
    ("event_over", "en", "Finished my presentation, phew."),
    ("event_over", "de", "Die Präsentation ist vorbei."),
    ("event_over", "es", "Cancelaron el viaje."),
    ("event_over", "fr", "Ils ont annulé le voyage."),
    ("event_over", "it", "Hanno annullato il viaggio."),
]

NOT_ANY = [
    ("en", "My exam is next Monday."),
    ("en", "I keep forgetting to drink water."),
    ("de", "Das Gespräch ist am Donnerstag, drück mir die Daumen."),
    ("de", "Ich vergesse ständig, Wasser zu trinken."),
    ("es", "Mi examen es el lunes que viene."),
    ("es", "Siempre se me olvida beber agua."),
    ("fr", "Mon examen est lundi prochain."),
    ("fr", "J'oublie tout le temps de boire de l'eau."),
    ("it", "Il mio esame è lunedì prossimo."),
    ("it", "Mi dimentico sempre di bere acqua."),
]


def test_each_intent_is_read_across_the_languages_on_lines_not_among_the_prototypes():
    """Not every line: the reader was made cautious with everyday chat as ``none`` (LoCoMo turns read as a request
    39% -> 0.25%; its dev check half's recall 0.88 -> 0.65), so it may miss a phrasing. Each intent is still read
    in at least four of the five languages, and each language reads at least four of the five intents."""
    read = {(intent, lang): readers.read(text).intent == intent for intent, lang, text in RECOGNISED}
    assert not {text for _, _, text in RECOGNISED} & SEEN
    for intent in {i for i, _, _ in RECOGNISED}:
        assert sum(ok for (i, _), ok in read.items() if i == intent) >= 4, intent
    for lang in {lang for _, lang, _ in RECOGNISED}:
        assert sum(ok for (_, la), ok in read.items() if la == lang) >= 4, lang


@pytest.mark.parametrize(("lang", "text"), NOT_ANY)
def test_plans_and_everyday_forgetting_read_as_nothing(lang, text):
    assert text not in SEEN
    assert readers.read(text).intent == readers.NONE


def test_the_english_rules_read_first_and_a_blank_message_is_not_encoded(monkeypatch):
    reading = readers.read("what do you remember about me?")
    assert (reading.intent, reading.by) == (readers.MEMORY_RECALL, readers.RULE)
    monkeypatch.setattr(readers.sentence, "vector", lambda text: pytest.fail("encoded"))
    assert readers.read("🙂🙂").intent == readers.NONE


INTERVIEW = {"id": 7, "subject": "user", "predicate": "has_upcoming", "object": "job interview"}


@pytest.mark.parametrize(
    ("message", "because"),
    [
        ("they moved my interview to this morning, so that's done now", "happened"),
        ("Sie haben es abgesagt.", "withdrawn"),
        ("Ya pasó el examen.", "happened"),
        ("C'est fait.", "happened"),
        ("È andata.", "happened"),
    ],
)
def test_an_event_the_user_says_is_over_in_any_of_five_languages_is_retired(message, because):
    # The interview was tomorrow; told it is over today it is retired (named, or called off, or its day has come).
    tomorrow = {**INTERVIEW, "event_day": "2026-12-01 (Tuesday), still ahead"}
    today = {**INTERVIEW, "event_day": "2026-11-30 (Monday), today"}
    known = [tomorrow] if "interview" in message or because == "withdrawn" else [today]
    assert worth_extracting(message) and may_retire(message)  # the extraction gate reads the turn
    retired = [f for f in offline.facts(message, date(2026, 11, 30), known) if f.get("action") == "retire"]
    assert [(f["fact_id"], f["because"]) for f in retired] == [(7, because)]


@pytest.mark.parametrize(
    "message",
    ["Mein Vorstellungsgespräch ist morgen.", "My interview is on Friday now, they moved it", "C'est demain."],
)
def test_a_plan_or_a_moved_event_retires_nothing(message):
    known = [{**INTERVIEW, "event_day": "2026-11-30 (Monday), today"}]
    assert not [f for f in offline.facts(message, date(2026, 11, 30), known) if f.get("action") == "retire"]


def test_a_finished_event_whose_day_has_not_come_is_not_guessed_among_several():
    known = [
        {**INTERVIEW, "event_day": "2026-12-03"},
        {**INTERVIEW, "id": 8, "object": "exam", "event_day": "2026-12-04"},
    ]
    assert not [f for f in offline.facts("C'est fait.", date(2026, 11, 30), known) if f.get("action") == "retire"]


TOLD = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
VIEW = MemoryView(
    facts=(HeldFact(1, "user.sister", "name", "Maya", "user_claim", TOLD, "m1"),
           HeldFact(2, "user", "works_as", "nurse", "user_claim", TOLD, "m1")),
    previous_message_id="m1",
    zone=ZoneInfo("UTC"),
)  # fmt: skip


def test_a_german_recall_request_gets_the_recall_answer():
    asked = readers.memory_request("Was weißt du eigentlich alles über mich?")
    assert asked is not None and asked.ask == Ask.RECALL
    decision = decide(asked, VIEW)
    assert decision is not None and decision.reply.startswith("Here's what you've told me")
    assert set(decision.shown_facts) == {1, 2}


@pytest.mark.parametrize(
    "text", ["Vergiss das bitte.", "Olvídalo, por favor.", "Bitte vergiss alles über meinen Exmann."]
)
def test_a_forget_whose_topic_cannot_be_read_is_asked_about_never_guessed(text):
    asked = readers.memory_request(text)
    assert asked is not None and asked.ask == Ask.FORGET
    decision = decide(asked, VIEW)  # the previous turn is there, and still not forgotten by guess
    assert decision is not None and decision.outcome == "asked" and not decision.changes


def test_a_correction_that_says_who_is_called_what_is_read_in_another_language():
    asked = readers.memory_request("Nein, so nicht, meine Schwester heißt Mia.")
    assert asked is not None and (asked.ask, asked.topic, asked.value) == (Ask.CORRECT, "sister", "Mia")
    decision = decide(asked, VIEW)
    assert decision is not None and decision.correct == (1, "Mia")
