"""Memory recalls a German or Spanish conversation as it recalls an English one: the default embedder reads the
five languages in one space, and retrieval ranks with its profile (``MULTILINGUAL_WEIGHTS``).

The conversation and the questions were written for this test in each language (not translations word for word,
and not from any evaluation file): twelve things a user told Ella over a week, and six questions about them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from ella.embeddings import make_embedder
from ella.memory.retrieval import MULTILINGUAL_WEIGHTS, NodeRow, default_weights, rank_memories

pytestmark = pytest.mark.domain

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)

# (what the user said, over a week) and (question, the index of the memory that answers it)
CONVERSATIONS = {
    "en": (
        [
            "My sister Lena just moved to Hamburg for her new job at the harbour office.",
            "I adopted a grey kitten from the shelter, her name is Pixel.",
            "Work was rough, my manager moved the deadline up by a week again.",
            "I started running in the mornings, three kilometres along the river.",
            "Made my grandmother's lentil soup tonight, it tasted just like hers.",
            "My dentist appointment is on Thursday, I'm dreading it.",
            "We watched an old Hitchcock film with friends, Vertigo.",
            "I'm saving up for a trip to Portugal in the spring.",
            "My neighbour's dog barked all night, I barely slept.",
            "I finally fixed the wobbly kitchen table with a folded coaster.",
            "My best friend Tomas is getting married in June.",
            "I've been learning to play the ukulele from videos.",
        ],
        [
            ("Where does my sister live now?", 0),
            ("What's my cat called?", 1),
            ("What exercise have I taken up?", 3),
            ("Where am I going on holiday?", 7),
            ("Who is getting married?", 10),
            ("Which instrument am I learning?", 11),
        ],
    ),
    "de": (
        [
            "Meine Schwester Lena ist gerade für ihren neuen Job im Hafenamt nach Hamburg gezogen.",
            "Ich habe ein graues Kätzchen aus dem Tierheim geholt, sie heißt Pixel.",
            "Die Arbeit war hart, mein Chef hat die Frist schon wieder um eine Woche vorgezogen.",
            "Ich gehe jetzt morgens laufen, drei Kilometer am Fluss entlang.",
            "Heute Abend habe ich Omas Linsensuppe gekocht, sie schmeckte genau wie ihre.",
            "Am Donnerstag habe ich einen Zahnarzttermin, mir graut davor.",
            "Wir haben mit Freunden einen alten Hitchcock geschaut, Vertigo.",
            "Ich spare für eine Reise nach Portugal im Frühling.",
            "Der Hund der Nachbarn hat die ganze Nacht gebellt, ich habe kaum geschlafen.",
            "Endlich habe ich den wackligen Küchentisch mit einem gefalteten Bierdeckel repariert.",
            "Mein bester Freund Tomas heiratet im Juni.",
            "Ich lerne mit Videos Ukulele spielen.",
        ],
        [
            ("Wo wohnt meine Schwester jetzt?", 0),
            ("Wie heißt meine Katze?", 1),
            ("Mit welchem Sport habe ich angefangen?", 3),
            ("Wohin fahre ich in den Urlaub?", 7),
            ("Wer heiratet bald?", 10),
            ("Welches Instrument lerne ich?", 11),
        ],
    ),
    "es": (
        [
            "Mi hermana Lena se acaba de mudar a Hamburgo por su nuevo trabajo en la oficina del puerto.",
            "Adopté una gatita gris del refugio, se llama Pixel.",
            "El trabajo estuvo fatal, mi jefe volvió a adelantar la entrega una semana.",
            "Empecé a correr por las mañanas, tres kilómetros junto al río.",
            "Esta noche hice la sopa de lentejas de mi abuela, sabía igual que la suya.",
            "El jueves tengo cita con el dentista y me da pavor.",
            "Vimos una película vieja de Hitchcock con amigos, Vértigo.",
            "Estoy ahorrando para un viaje a Portugal en primavera.",
            "El perro del vecino ladró toda la noche, casi no dormí.",
            "Por fin arreglé la mesa coja de la cocina con un posavasos doblado.",
            "Mi mejor amigo Tomás se casa en junio.",
            "Estoy aprendiendo a tocar el ukelele con vídeos.",
        ],
        [
            ("¿Dónde vive ahora mi hermana?", 0),
            ("¿Cómo se llama mi gata?", 1),
            ("¿Qué deporte he empezado a hacer?", 3),
            ("¿Adónde me voy de vacaciones?", 7),
            ("¿Quién se casa?", 10),
            ("¿Qué instrumento estoy aprendiendo?", 11),
        ],
    ),
}


def recall_at(lang: str, k: int) -> float:
    embedder = make_embedder("multilingual")
    said, questions = CONVERSATIONS[lang]
    vectors = embedder.embed(said)
    nodes = [
        NodeRow(
            i + 1,
            "event",
            text,
            vectors[i].tobytes(),
            embedder.model_id,
            NOW - timedelta(days=7 - i // 2),
            NOW - timedelta(days=7 - i // 2),
            None,
            3,
            0,
            i // 3,
        )  # fmt: skip
        for i, text in enumerate(said)
    ]
    found = 0
    for question, answer in questions:
        query = embedder.embed([question])[0]
        top = rank_memories(nodes, query, question, k, NOW, MULTILINGUAL_WEIGHTS, embedder.model_id)
        found += nodes[answer] in top
    return found / len(questions)


def test_the_default_embedder_ranks_with_its_own_profile() -> None:
    assert default_weights("multilingual") is MULTILINGUAL_WEIGHTS
    assert default_weights("use-multilingual-v3-512") is MULTILINGUAL_WEIGHTS


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_german_or_spanish_conversation_recalls_like_an_english_one(lang: str) -> None:
    english = recall_at("en", 3)
    assert english >= 5 / 6  # the premise: the English conversation is recalled
    assert recall_at(lang, 3) >= english - 1 / 6  # within one question of it


def test_a_question_in_one_language_finds_a_memory_told_in_another() -> None:
    embedder = make_embedder("multilingual")
    said, _ = CONVERSATIONS["de"]
    vectors = embedder.embed(said)
    question = embedder.embed(["Which instrument am I learning?"])[0]
    assert int(np.argmax(vectors @ question)) == 11
