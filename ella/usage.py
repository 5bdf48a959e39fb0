"""What model calls cost: prices per model, the batch discount, and the calls no price covers.

Why plain Python: pricing is a rule about the business (what a call of this model, with these tokens, served
this way, costs), not about how the calls are stored; ``models.usage`` sums the tokens and this prices them.

Why ``unpriced`` and not $0: a model missing from the price table (a new tier model, a typo in
``ELLA_PRICES``) used to cost nothing, so a report looked cheaper the less it knew. Now such calls are
counted apart and named, and ``ella cost`` warns about them. The offline engine's model, ``offline``, is
priced explicitly, at zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PER_TOKENS = 1_000_000  # prices are USD per million tokens
BATCH_FACTOR = 0.5  # the Message Batches API costs half
CACHE_WRITE_MULTIPLIER = 1.25  # a 5-minute cache write costs 1.25 times the input price
CACHE_READ_MULTIPLIER = 0.1  # a cache read costs a tenth of it
OFFLINE_MODEL = "offline"  # the offline engine's model name (ModelPort.model_for)


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens of each sort."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    @classmethod
    def of(cls, input: float, output: float) -> ModelPrice:
        """A model priced the Anthropic way: cache writes and reads as multiples of the input price."""
        return cls(input, output, round(input * CACHE_WRITE_MULTIPLIER, 9), round(input * CACHE_READ_MULTIPLIER, 9))

    @classmethod
    def from_mapping(cls, model: str, price: Mapping[str, float]) -> ModelPrice:
        """An ``ELLA_PRICES`` entry; ``input`` and ``output`` are required, cache prices default as in ``of``."""
        missing = [key for key in ("input", "output") if key not in price]
        if missing:
            raise ValueError(f"the price of {model!r} lacks {', '.join(missing)} (USD per million tokens)")
        base = cls.of(float(price["input"]), float(price["output"]))
        return cls(
            base.input,
            base.output,
            float(price.get("cache_write", base.cache_write)),
            float(price.get("cache_read", base.cache_read)),
        )


FREE = ModelPrice(0.0, 0.0, 0.0, 0.0)
# List prices, USD per million tokens, as of 2026-11 (the one price table of the house; ``ELLA_PRICES`` overrides
# it). Source: Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing, "Model pricing"):
# Sonnet 4.6 $3 input / $15 output, Haiku 4.5 $1 / $5; a 5-minute cache write 1.25x input, a cache hit 0.1x,
# the Message Batches API half of each ("Batch processing").
PRICES_AS_OF = "2026-11"
PRICES_SOURCE = "platform.claude.com/docs/en/about-claude/pricing"
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-sonnet-4-6": ModelPrice.of(3.0, 15.0),
    "claude-haiku-4-5": ModelPrice.of(1.0, 5.0),
    OFFLINE_MODEL: FREE,
}


# The shortest prefix the API caches, per model (tokens up to a cache_control breakpoint): a shorter one is
# processed and billed as plain input, with no error, whatever cache_control says. From Anthropic's prompt-caching
# page ("Cache limitations"): 4,096 for Claude Haiku 4.5; 1,024 documented for Sonnet 4.6, but 2,048 is what
# callers observe (anthropic-sdk-python issue #1194, and gateways list 2,048), so the economy counts 2,048:
# what is counted as cached must be what the API would really cache.
MIN_CACHEABLE_TOKENS: dict[str, int] = {
    "claude-sonnet-4-6": 2048,
    "claude-haiku-4-5": 4096,
}
MIN_CACHEABLE_DEFAULT = 4096  # a model not listed: the largest minimum, so nothing is counted cached by hope


def min_cacheable_tokens(model: str) -> int:
    """The shortest prefix ``model`` caches (``MIN_CACHEABLE_TOKENS``; the largest minimum for one not listed)."""
    return MIN_CACHEABLE_TOKENS.get(model, MIN_CACHEABLE_DEFAULT)


@dataclass(frozen=True)
class Tokens:
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input + other.input,
            self.output + other.output,
            self.cache_write + other.cache_write,
            self.cache_read + other.cache_read,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_read


@dataclass(frozen=True)
class Unpriced:
    """Calls of a model the price table does not know: counted, never priced."""

    model: str
    calls: int
    tokens: Tokens

    def __add__(self, other: Unpriced) -> Unpriced:
        return Unpriced(self.model, self.calls + other.calls, self.tokens + other.tokens)


class PriceList:
    """Prices per model and the batch factor; ``usd`` says None for a model it has no price for."""

    def __init__(
        self,
        prices: Mapping[str, ModelPrice | Mapping[str, float]] | None = None,
        batch_factor: float = BATCH_FACTOR,
    ) -> None:
        if not 0 < batch_factor <= 1:
            raise ValueError(f"the batch factor is in (0, 1], got {batch_factor}")
        table = DEFAULT_PRICES if prices is None else prices
        self.prices: dict[str, ModelPrice] = {OFFLINE_MODEL: FREE}
        for model, price in table.items():
            self.prices[model] = price if isinstance(price, ModelPrice) else ModelPrice.from_mapping(model, price)
        self.batch_factor = batch_factor

    def usd(self, model: str, tokens: Tokens, *, batch: bool = False) -> float | None:
        """What these tokens of ``model`` cost, or None when the model has no price."""
        price = self.prices.get(model)
        if price is None:
            return None
        factor = self.batch_factor if batch else 1.0
        return (
            factor
            * (
                tokens.input * price.input
                + tokens.output * price.output
                + tokens.cache_write * price.cache_write
                + tokens.cache_read * price.cache_read
            )
            / PER_TOKENS
        )


def unpriced_by_model(groups: Iterable[Unpriced]) -> list[Unpriced]:
    """The unpriced calls summed per model, most tokens first: what a cost report must warn about."""
    totals: dict[str, Unpriced] = {}
    for group in groups:
        totals[group.model] = totals[group.model] + group if group.model in totals else group
    return sorted(totals.values(), key=lambda u: (-u.tokens.total, u.model))


# --- which job a call served -------------------------------------------------------------------------------------

# Why by kind: a usage row records the prompt kind, and each kind is asked by exactly one job of the house, so
# "what does the digest cost us, and what the live reply" is read from the rows with no extra column. A kind
# added later and not listed here is reported as ``OTHER_JOB`` (visible, never silently merged into a job).
OTHER_JOB = "other"
JOB_OF_KIND: dict[str, str] = {
    "reply": "live reply",
    "poignancy": "memory",
    "event_triple": "memory",
    "perception": "memory",
    "focal_points": "memory",
    "insights": "memory",
    "memo": "memory",
    "planning_thought": "memory",
    "conversation_note": "memory",
    "fact_extraction": "ledger",
    "contested_verdict": "contested resolution",
    "notification_body": "notifications",
    "digest": "digest",
    "chapter_distillation": "chapters",
    "relationship_arc": "arcs",
}


def job_of(kind: str) -> str:
    """The job a call of prompt ``kind`` was made for (``OTHER_JOB`` for a kind the map does not know)."""
    return JOB_OF_KIND.get(kind, OTHER_JOB)
