"""The hand-written replies for a boundary route: no model call, no chance of drift.

The seed's table, kept in Ella's voice. The choice among the warm-bounded variants is a stable hash of the
message, so a redelivered message gets the same words. Crisis resources are configuration, by locale: a user
outside the US must not be told to dial 988.
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
# What goes out instead of a generated reply that the outbound check stopped.
SAFE_FALLBACK = "I want to make sure I say this well. Could you tell me a bit more about how you're feeling?"

DEFAULT_CRISIS_RESOURCES: dict[str, str] = {
    "US": "the 988 Suicide & Crisis Lifeline (call or text 988 in the US)",
    "CA": "Talk Suicide Canada (call or text 988 in Canada)",
    "GB": "Samaritans (call 116 123 in the UK, free, any time)",
    "IE": "Samaritans (call 116 123 in Ireland, free, any time)",
    "AU": "Lifeline (call 13 11 14 in Australia)",
    "DE": "the TelefonSeelsorge (call 0800 111 0 111 or 0800 111 0 222 in Germany, free, any time)",
    "default": "a local crisis line; the international directory at findahelpline.com lists one for your country",
}


def crisis_referral(locale: str, resources: Mapping[str, str] = DEFAULT_CRISIS_RESOURCES) -> str:
    """The seed's crisis message, with the resource for the user's country and always findahelpline.com.

    The country is the locale's country part (``en_GB`` -> GB). A bare language (``en``, ``ca``, ``de``) names
    no country (``ca`` is Catalan, not Canada): it gets the international directory. A bare upper-case code
    (``US``) is a country.
    """
    parts = locale.replace("-", "_").split("_") if locale else [""]
    country = parts[-1].upper() if len(parts) > 1 or parts[-1].isupper() else ""
    line = resources.get(country) or resources.get("default") or DEFAULT_CRISIS_RESOURCES["default"]
    return (
        "I hear you, and I want to make sure you have someone with the right training to help. "
        f"Can you reach out to {line}? If you're somewhere else, findahelpline.com lists free, confidential "
        "lines in your country. If you're in immediate danger, please call your local emergency number. "
        "I'm here to talk, but I want you to have a person who can really be there."
    )


def canned_reply(
    route: str, category: str, message_key: str, locale: str = "US", resources: Mapping[str, str] | None = None
) -> str:
    """The reply for a route other than ``generate`` (a calm refusal says why by its category)."""
    if route == "warm_bounded":
        return WARM_BOUNDED[zlib.crc32(message_key.encode("utf-8", "surrogatepass")) % len(WARM_BOUNDED)]
    if route == "crisis_referral":
        return crisis_referral(locale, resources or DEFAULT_CRISIS_RESOURCES)
    if route == "check_in":
        return CHECK_IN
    if route == "calm_refusal":
        return CALM_REFUSAL_MANIPULATION if category == "manipulation" else CALM_REFUSAL_PHYSICAL
    raise ValueError(f"no hand-written reply for route {route!r}")
