"""Localized hand-written replies (ella/guard/replies.py): the language picks the words, the country the line.

English stays what it was when no language (or one without texts) is asked for; every localized text passes the
outbound guard like the English ones; an operator's own line is used as configured.
"""

from __future__ import annotations

import pytest

from ella.guard import classify
from ella.guard.replies import (
    CALM_REFUSAL_MANIPULATION,
    CALM_REFUSAL_PHYSICAL,
    CHECK_IN,
    DEFAULT_CRISIS_RESOURCES,
    SAFE_FALLBACK,
    WARM_BOUNDED,
    canned_reply,
    crisis_referral,
    safe_fallback,
)

LANGUAGES = ("de", "es", "fr", "it")
ROUTES = [
    ("warm_bounded", "romantic_avowal"),
    ("calm_refusal", "physical_escalation"),
    ("calm_refusal", "manipulation"),
    ("crisis_referral", "emotional_crisis"),
    ("check_in", "ok"),
]


@pytest.mark.parametrize(
    ("locale", "language", "expected"),
    [
        ("de_DE", "de", "0800 111 0 111"),
        ("de_AT", "de", "142"),
        ("de_CH", "de", "143"),
        ("es_ES", "es", "024"),
        ("es_MX", "es", "800 911 2000"),
        ("es_AR", "es", "135"),
        ("es_CL", "es", "*4141"),
        ("es_CO", "es", "106"),
        ("es_US", "es", "988"),
        ("fr_FR", "fr", "3114"),
        ("fr_BE", "fr", "0800 32 123"),
        ("fr_CH", "fr", "143"),
        ("fr_CA", "fr", "988"),
        ("it_IT", "it", "02 2327 2327"),
        ("it_IT", "it", "06 77208977"),
        ("it_CH", "it", "143"),
    ],
)
def test_the_referral_names_the_countrys_line_in_the_users_language(locale: str, language: str, expected: str) -> None:
    text = crisis_referral(locale, DEFAULT_CRISIS_RESOURCES, language)
    assert expected in text and "findahelpline.com" in text
    assert text != crisis_referral(locale, DEFAULT_CRISIS_RESOURCES)  # not the English text


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("en_NZ", "1737"), ("en_IN", "14416"), ("en_ZA", "0800 567 567"), ("en_SG", "1767"), ("nl_BE", "1813"),
     ("en_US", "988"), ("en_GB", "116 123"), ("ES", "024"), ("FR", "3114"), ("IT", "02 2327 2327")],
)  # fmt: skip
def test_the_english_referral_has_the_new_countries_too(locale: str, expected: str) -> None:
    assert expected in crisis_referral(locale)


def test_no_country_gets_the_directory_in_the_users_language_and_never_a_number() -> None:
    for language, word in (("de", "Krisenhotline"), ("es", "línea de crisis"), ("fr", "ligne d'écoute"),
                           ("it", "linea di ascolto")):  # fmt: skip
        text = crisis_referral("de" if language == "de" else language, DEFAULT_CRISIS_RESOURCES, language)
        assert word in text and "findahelpline.com" in text
        assert not any(ch.isdigit() for ch in text.replace("112", "")), text  # the EU emergency number only


def test_no_language_or_an_unknown_one_is_todays_english() -> None:
    assert crisis_referral("US") == crisis_referral("US", DEFAULT_CRISIS_RESOURCES, None)
    assert crisis_referral("US").startswith("I hear you")
    assert crisis_referral("US", DEFAULT_CRISIS_RESOURCES, "pt") == crisis_referral("US")
    for route, category in ROUTES:
        for key in ("a", "b", "c"):
            assert canned_reply(route, category, key) == canned_reply(route, category, key, "US", None, "ja")
    assert canned_reply("check_in", "ok", "k") == CHECK_IN
    assert canned_reply("calm_refusal", "manipulation", "k") == CALM_REFUSAL_MANIPULATION
    assert canned_reply("calm_refusal", "physical_escalation", "k") == CALM_REFUSAL_PHYSICAL
    assert canned_reply("warm_bounded", "romantic_avowal", "k") in WARM_BOUNDED
    assert safe_fallback(None) == SAFE_FALLBACK == safe_fallback("xx")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_localized_text_differs_from_english_and_passes_the_outbound_guard(language: str) -> None:
    for route, category in ROUTES:
        for key in ("a", "b", "c", "d", "e"):
            text = canned_reply(route, category, key, "US", None, language)
            assert text != canned_reply(route, category, key)
            assert classify(text, learned=False).category == "ok", (language, route, text)
    for locale in ("de_DE", "de_AT", "de_CH", "es_ES", "es_MX", "fr_FR", "fr_CA", "it_IT", "it_CH", ""):
        assert classify(crisis_referral(locale, DEFAULT_CRISIS_RESOURCES, language), learned=False).category == "ok"
    assert safe_fallback(language) != SAFE_FALLBACK
    assert classify(safe_fallback(language), learned=False).category == "ok"


def test_a_region_tag_on_the_language_still_picks_the_words() -> None:
    assert crisis_referral("AT", DEFAULT_CRISIS_RESOURCES, "de-AT") == crisis_referral(
        "AT", DEFAULT_CRISIS_RESOURCES, "de"
    )


def test_the_warm_bounded_choice_is_stable_per_message_in_each_language() -> None:
    for language in LANGUAGES:
        first = canned_reply("warm_bounded", "romantic_avowal", "msg-42", language=language)
        assert first == canned_reply("warm_bounded", "romantic_avowal", "msg-42", language=language)
        seen = {canned_reply("warm_bounded", "romantic_avowal", f"m{i}", language=language) for i in range(40)}
        assert len(seen) == 3


def test_an_operators_own_line_wins_over_the_localized_default() -> None:
    resources = {**DEFAULT_CRISIS_RESOURCES, "DE": "die Krisenhilfe unseres Partners (0800 000 000)"}
    text = crisis_referral("de_DE", resources, "de")
    assert "0800 000 000" in text and "0800 111 0 111" not in text
    # a country the operator left alone keeps its localized line
    assert "142" in crisis_referral("de_AT", resources, "de")


def test_a_german_speaker_in_the_us_gets_988_in_german() -> None:
    text = crisis_referral("de_US", DEFAULT_CRISIS_RESOURCES, "de")
    assert "988" in text and text.startswith("Ich höre dich")
