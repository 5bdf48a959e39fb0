"""Localized hand-written replies (ella/guard/replies.py): the language picks the words, the country the line.

English stays what it was when no language (or one without texts) is asked for; every localized text passes the
outbound guard like the English ones; an operator's own line is used as configured.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ella.guard import classify
from ella.guard.language import read_language, read_short
from ella.guard.replies import (
    CALM_REFUSAL_MANIPULATION,
    CALM_REFUSAL_PHYSICAL,
    CHECK_IN,
    DEFAULT_CRISIS_RESOURCES,
    DEFAULT_LOCALE,
    LOCALIZED_CRISIS_RESOURCES,
    SAFE_FALLBACK,
    SUSPICION_CHECK_IN,
    WARM_BOUNDED,
    canned_reply,
    crisis_line,
    crisis_referral,
    line_country,
    safe_fallback,
    suspicion_check_in,
)

pytestmark = pytest.mark.domain  # the fast lane (make test-fast): no database, no Redis

LANGUAGES = ("de", "es", "fr", "it")
ROUTES = [
    ("warm_bounded", "romantic_avowal"),
    ("calm_refusal", "physical_escalation"),
    ("calm_refusal", "manipulation"),
    ("crisis_referral", "emotional_crisis"),
    ("check_in", "ok"),
    ("check_in", "emotional_crisis"),
]
ALL_LANGUAGES = ("en", *LANGUAGES)
# What an English crisis line says: never inside another language's referral.
ENGLISH_LINE = ("988", "call or text", "Lifeline", "Suicide & Crisis")


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


# ---- issue 33, item 4: the user's language, with their country's line ------------------------------------------


@pytest.mark.parametrize("language", ALL_LANGUAGES)
@pytest.mark.parametrize(("route", "category"), [*ROUTES, ("fallback", "")])
def test_every_canned_route_check_in_and_fallback_is_in_each_language(route: str, category: str, language: str) -> None:
    for key in ("a", "b", "c"):
        if route == "fallback":
            text, english = safe_fallback(language), SAFE_FALLBACK
        else:
            text = canned_reply(route, category, key, DEFAULT_LOCALE, None, language)
            english = canned_reply(route, category, key, DEFAULT_LOCALE, None, "en")
        assert read_language(text).code == language, (route, category, language, text)
        assert (text == english) == (language == "en")
        if language != "en" and route == "crisis_referral":
            assert not any(piece in text for piece in ENGLISH_LINE), text
        if route != "crisis_referral":
            assert classify(text, learned=False).category == "ok", text  # passes the outbound guard


@pytest.mark.parametrize(
    ("language", "line"),
    [("de", "0800 111 0 111"), ("es", "024"), ("fr", "3114"), ("it", "02 2327 2327"), ("en", "988")],
)
def test_under_the_default_locale_the_line_is_the_languages_own_countrys(language: str, line: str) -> None:
    """The reported case: a German crisis message from a profile with the default locale got the US line, in
    English, inside a German sentence."""
    for locale in (DEFAULT_LOCALE, "en-US", "EN_us"):
        text = crisis_referral(locale, DEFAULT_CRISIS_RESOURCES, language)
        assert line in text and "findahelpline.com" in text
        if language != "en":
            assert not any(piece in text for piece in ENGLISH_LINE), text
    # the same through the reply room's call
    text = canned_reply("crisis_referral", "emotional_crisis", "m", DEFAULT_LOCALE, DEFAULT_CRISIS_RESOURCES, language)
    assert line in text


def test_line_country() -> None:
    assert [line_country(DEFAULT_LOCALE, lang) for lang in ("de", "es", "fr", "it")] == ["DE", "ES", "FR", "IT"]
    assert line_country(DEFAULT_LOCALE, "de-AT") == "DE"  # the language's own country, not a guess at a region
    assert line_country(DEFAULT_LOCALE, "en") == "US" == line_country(DEFAULT_LOCALE, None)
    assert line_country(DEFAULT_LOCALE, "pt") == "US"  # no words in Portuguese: English, and its locale's line
    assert line_country("en_GB", "de") == "GB" and line_country("es_MX", "es") == "MX"  # a real locale is kept
    assert line_country("de", "de") == "" and line_country("en_GB", "fr", default_locale="en_GB") == "FR"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_line_with_no_words_in_the_language_gives_way_to_its_directory(language: str) -> None:
    for locale in ("en_GB", "en_AU", "en_IN", "pt_BR", "ja_JP"):
        country = locale.split("_")[1]
        if country in LOCALIZED_CRISIS_RESOURCES[language]:
            continue
        line = crisis_line(country, DEFAULT_CRISIS_RESOURCES, language)
        assert line == LOCALIZED_CRISIS_RESOURCES[language]["default"], (locale, line)
        text = crisis_referral(locale, DEFAULT_CRISIS_RESOURCES, language)
        assert DEFAULT_CRISIS_RESOURCES.get(country, "@@") not in text and "findahelpline.com" in text
    # English keeps every country's English line
    assert "116 123" in crisis_referral("en_GB", DEFAULT_CRISIS_RESOURCES, "en")


def test_an_operators_own_default_is_used_as_configured_in_any_language() -> None:
    resources = {**DEFAULT_CRISIS_RESOURCES, "default": "our partner's line (0800 999)"}
    assert "0800 999" in crisis_referral("en_GB", resources, "de")


@pytest.mark.parametrize("language", ALL_LANGUAGES)
def test_the_suspicion_check_in_asks_about_safety_and_names_no_line(language: str) -> None:
    text = suspicion_check_in(language)
    assert text == canned_reply("check_in", "emotional_crisis", "k", DEFAULT_LOCALE, None, language)
    assert not any(ch.isdigit() for ch in text) and "findahelpline" not in text
    assert text != canned_reply("check_in", "ok", "k", DEFAULT_LOCALE, None, language)  # the negated-crisis one
    assert classify(text, learned=False).category == "ok"
    assert suspicion_check_in(None) == SUSPICION_CHECK_IN == suspicion_check_in("pt")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("hola", "es"), ("estoy muy mal", "es"), ("no puedo más", "es"), ("gracias", "es"),
        ("ich kann nicht mehr", "de"), ("hallo", "de"), ("tschüss", "de"), ("ich bin müde", "de"), ("danke", "de"),
        ("je suis là", "fr"), ("bonjour", "fr"), ("salut", "fr"), ("c’est trop", "fr"), ("merci", "fr"),
        ("ciao!", "it"), ("grazie", "it"), ("sono stanca", "it"), ("non ce la faccio più", "it"),
        ("hi", "en"), ("thanks", "en"), ("yes. tonight", "en"), ("I am so tired", "en"),
        ("ok", ""), ("lol", ""), ("kms", ""), ("te amo", ""), ("no", ""), ("não aguento", ""), ("", ""), ("!!", ""),
    ],
)  # fmt: skip
def test_short_messages_are_read_in_all_five_languages(text: str, language: str) -> None:
    reading = read_language(text)
    assert reading.code == language and reading.readable


def test_the_short_reader_names_a_language_only_when_its_words_win() -> None:
    assert read_short("hola how are you") == "en"  # more English words than Spanish
    assert read_short("tu") == "" and read_short("non") == ""  # shared by several languages
    assert read_short("Obrigado, tudo bem") == ""  # Portuguese is not claimed


def test_the_language_models_tables_are_cached_and_a_damaged_cache_is_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The identifier's tables are kept decompressed under ELLA_CACHE_DIR (ella.local_cache); a damaged file is
    replaced, and the readings are the package's own."""
    from ella.guard import language

    monkeypatch.setenv("ELLA_CACHE_DIR", str(tmp_path))
    texts = ["Wo habe ich früher gewohnt?", "¿Dónde vivía antes?", "where did I live before?"]
    language._identifier.cache_clear()
    try:
        first = [language.read_language(t) for t in texts]
        (cached,) = tmp_path.glob("py3langid-*.model.npz")
        cached.write_bytes(b"\x00damaged")
        language._identifier.cache_clear()
        assert [language.read_language(t) for t in texts] == first
        assert cached.stat().st_size > 1_000_000 and [r.code for r in first] == ["de", "es", "en"]
    finally:
        language._identifier.cache_clear()
