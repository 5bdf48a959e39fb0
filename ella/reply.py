"""Ella's reply to one user message: inbound guard → generation → outbound guard → fallback → disclosure.

Where each step is:
- ``respond`` runs them in order. The inbound guard routes a boundary message to a hand-written reply
  (``ella.guard.replies``) with no model call. Otherwise ``generate_reply`` asks the live-reply model with her
  context (the world brief, canon first; her recent first-person statements, framed as hers and not as facts;
  retrieved memories; the conversation so far).
- ``check_reading``: the reply call also returns Ella's own reading of the user's message (``risk``, ``boundary``),
  the guard's last and most expensive stage at no extra call, for what the rules and the learned model missed. A
  crisis reading switches the turn to the crisis referral (the inbound crisis route's message and line, logged
  with rule ``model.reading.crisis`` and counted as a referral); a romance, sexual or physical reading replaces
  the reply with the hand-written bounded one. Either way, nothing the model said in that turn is kept. The
  offline engine always reads "none": there, this stage is absent.
- ``check_outbound``: a generated reply that fires the guard (rules only: they judge Ella's own words) is
  replaced by the safe fallback (route ``fallback``), and the call that drifted is not trusted for memory
  either: its perception and self-statements are dropped.
- A fail-safe, a model that refused, or a model still unavailable on the final attempt: the fallback text
  goes out with route ``fallback``, so nothing downstream takes it for something Ella thought. A refusal is
  reported as ``dead_letter_reason`` for the caller to record.
- ``disclose``: the AI notice and a minor's break reminder, when due, around the text that is stored.

Plain Python over the model port and plain values: loading the context and storing the turn are the task's
(``tasks.ingest``); the context is loaded only when the provider reads it. The offline engine reads it too, by
rule (``ella.offline_reply.grounded_reply``): the ranked memories come with ``recall_notes`` (what a rule must
know of each to retell one from an earlier conversation), and the lazy world's values with the world brief.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ella.contract import IngestPayload
from ella.core_profile import ProfileItem
from ella.core_profile import as_variables as profile_variables
from ella.core_profile import section as profile_section
from ella.embeddings import Embedder
from ella.guard import Category, Route, Severity, Verdict, classify
from ella.guard.conversation import classify_in_conversation
from ella.guard.disclosure import DisclosurePolicy, ai_notice_due, break_due, with_notices
from ella.guard.language import read_language
from ella.guard.replies import DEFAULT_CRISIS_RESOURCES, canned_reply, safe_fallback
from ella.ledger.consolidation import FactsInView
from ella.llm.kinds import Reply
from ella.llm.port import ModelPort
from ella.llm.types import PermanentModelError, TransientModelError
from ella.memory.retrieval import (
    DEFAULT_WEIGHTS,
    Retrievable,
    RetrievalWeights,
    newest_thought_nodes,
    rank_memories,
)
from ella.memory.say import MemoryView, SayDecision, SayRequest, decide, from_reading, read_request
from ella.provenance import Provenance
from ella.readers import memory_request

log = logging.getLogger(__name__)

MEMORIES_IN_REPLY = 8
THOUGHTS_IN_REPLY = 3


@dataclass(frozen=True)
class OutgoingReply:
    """The text Ella sends, how it was made and what it is about; stored with the turn and published."""

    text: str
    route: str = "generated"  # generated | canned | fallback
    category: str = "chat"


@dataclass(frozen=True)
class ReplyContext:
    """What the reply model is shown of this user."""

    history: Sequence[tuple[str, str]] = ()
    nodes: Sequence[Retrievable] = ()
    world_brief: str = ""
    recent_thoughts: str = ""
    relationship: str = ""  # the current arc and the latest chapter (``ella.arcs.relationship_block``)
    world: Mapping[str, Any] = field(default_factory=dict)  # the lazy world's values by subject (the brief's source)
    # The user's live facts the turn touches, with their ids, and their day: the reply reads the turn for facts
    # against them (``Reply.facts``, extraction folded into this call). None: it does not (nothing loaded).
    facts: FactsInView | None = None
    # What used to be true in her world, for a message that asks about its past (``models.ledger.past_view``):
    # its own section of the volatile input, and the ids of the facts it shows.
    world_past: str = ""
    past_ids: Sequence[int] = ()
    # Who the user is (``ella.core_profile``: name, home, work, people, languages), always shown in a section of
    # its own; and, for a message that asks about the user's own past, what used to be true of them.
    profile: Sequence[ProfileItem] = ()
    user_past: str = ""
    user_past_ids: Sequence[int] = ()
    # Her world's live facts as plain values (subject, predicate, object, tier), for a reader by rule: the offline
    # engine answers "what's your cat called?" from them (a model reads them as WORLD FACTS, the brief).
    canon: Sequence[Mapping[str, str]] = ()
    # The ids behind the prose parts, for what the reply saw (``ella.seen``).
    world_ids: Sequence[int] = ()
    selflog_ids: Sequence[int] = ()
    chapter_ids: Sequence[int] = ()
    arc_ids: Sequence[int] = ()


@dataclass(frozen=True)
class ReplyPolicy:
    guard_enabled: bool = True
    crisis_resources: Mapping[str, str] = field(default_factory=dict)
    weights: RetrievalWeights = DEFAULT_WEIGHTS
    guard_semantic: bool = True  # the guard's learned stage over the sentence vector (ELLA_GUARD_SEMANTIC)


@dataclass(frozen=True)
class ReplyOutcome:
    """A reply, the memories it drew on (their last access is set with the turn), the turn's perception and
    the reply's self-statements from the same call (None and empty when the reply is a fallback: a fail-safe
    is never a memory, nor something Ella said about herself)."""

    reply: OutgoingReply
    memory_ids: list[int] = field(default_factory=list)
    perception: dict[str, Any] | None = None
    self_statements: list[dict[str, Any]] = field(default_factory=list)
    fires: list[tuple[str, Verdict]] = field(default_factory=list)  # (direction, verdict) for the boundary log
    dead_letter_reason: str | None = None  # the model refused or stayed down: the caller records it
    reading: tuple[str, str] = ("none", "none")  # the reply call's (risk, boundary) reading of the user's message
    made_by: Provenance | None = None  # the reply call, which made the perception and the self-statements
    # The turn's fact statements from the same call (``Reply.facts`` as dicts) and the ids of the facts it was
    # shown: ``ella.extract_facts`` applies them with no call of its own. None: the turn is extracted by a call.
    facts: list[dict[str, Any]] | None = None
    facts_shown: list[int] = field(default_factory=list)
    # The user's say over their memory (``ella.memory.say``): what this turn asked and what it does, carried
    # out with the turn (``models.forgetting``); the reply is its answer. None: not such a turn.
    say: SayDecision | None = None
    # What the reply's prompt carried, by section (``ella.seen``): stored with the reply.
    seen: dict[str, list[int]] = field(default_factory=dict)
    memory_reading: tuple[str, str] = ("none", "")  # the reply call's (memory, memory_about) reading


# What a reading other than "none" means to the guard: the category and route a rule would have given, so the
# hand-written reply, the boundary log and the yearly referral count treat it exactly as the inbound route does.
READING_VERDICTS: dict[str, Verdict] = {
    "crisis": Verdict(Category.EMOTIONAL_CRISIS, Severity.HIGH, Route.CRISIS_REFERRAL, "model.reading.crisis"),
    "romance": Verdict(Category.ROMANTIC_AVOWAL, Severity.MEDIUM, Route.WARM_BOUNDED, "model.reading.romance"),
    "sexual": Verdict(Category.PHYSICAL_ESCALATION, Severity.HIGH, Route.CALM_REFUSAL, "model.reading.sexual"),
    "physical": Verdict(Category.PHYSICAL_ESCALATION, Severity.MEDIUM, Route.CALM_REFUSAL, "model.reading.physical"),
}


# A message in a language the guard cannot read, on a model that cannot read it either (the offline engine): never
# a cheerful template, and the one pointer a person in trouble needs, in case that is what it said.
UNREADABLE_REPLY = (
    "I'm sorry, I can't read that language well enough to answer you properly. Could you write to me in English, "
    "German, Spanish, French or Italian? And if you're going through something hard right now, findahelpline.com "
    "lists free, confidential lines in your country."
)


def check_inbound(
    payload: IngestPayload,
    policy: ReplyPolicy,
    locale: Callable[[], str],
    earlier: Callable[[], Sequence[tuple[str, str]]] = lambda: (),
    *,
    model_reads_any_language: bool = True,
) -> ReplyOutcome | None:
    """The hand-written reply for a message the guard routes away from the model, else None.

    ``earlier``: the conversation's turns before this message (loaded only when the message alone is ``ok``:
    ``ella.guard.conversation``). ``model_reads_any_language``: False for a model that reads only what the guard
    reads (the offline engine): a message in another language then gets ``UNREADABLE_REPLY`` (a fallback, so
    nothing of the turn is a memory); otherwise the model reads it and its own reading decides (``check_reading``).
    """
    return read_inbound(payload, policy, locale, earlier, model_reads_any_language=model_reads_any_language)[0]


def suspected(verdict: Verdict | None) -> bool:
    """The learned stage suspects a crisis but is not sure (``ella.guard.semantic``): a check-in, not a referral."""
    return (
        verdict is not None
        and verdict.category is Category.EMOTIONAL_CRISIS
        and verdict.route is Route.CHECK_IN
        and verdict.matched.startswith("semantic.suspect.")
    )


# What the reply call reads when the guard's learned stage suspects a crisis it is not sure of: beside the model's
# own reading of risk (``check_reading`` acts on that), never instead of it.
SUSPICION_HINT = (
    "A note from Ella's safety check (not shown to $name): this message may hint at thoughts of self-harm or of not "
    "wanting to live, though nothing is said outright. Read it with that in mind. If you are unsure, check in "
    "warmly and ask whether $name is safe right now, in the language of the message."
)


def read_inbound(
    payload: IngestPayload,
    policy: ReplyPolicy,
    locale: Callable[[], str],
    earlier: Callable[[], Sequence[tuple[str, str]]] | Sequence[tuple[str, str]] = (),
    *,
    model_reads_any_language: bool = True,
) -> tuple[ReplyOutcome | None, Verdict | None]:
    """``check_inbound``'s answer and the inbound verdict behind it (None with the guard off).

    A suspected crisis is graded by the model that answers: the offline engine, which reads no risk of its own,
    sends the hand-written check-in in the user's language; a model that reads the message generates, with the
    suspicion as a hint (``SUSPICION_HINT``), and its own reading of risk can still turn the reply into a referral
    (``check_reading``)."""
    if not policy.guard_enabled:
        return None, None
    inbound = classify_in_conversation(payload.text, earlier, semantic=policy.guard_semantic)
    if suspected(inbound) and model_reads_any_language:
        log.info("guard: a suspected crisis (score %s); the reply call reads it with the hint", inbound.score)
        return None, inbound
    if inbound.matched == "semantic.unreadable" and not model_reads_any_language:
        log.info("guard: a message the encoder cannot read; the offline engine sends the safe fallback")
        text = safe_fallback(inbound.language or None)
        return ReplyOutcome(OutgoingReply(text=text, route="fallback", category="unreadable")), inbound
    if inbound.unreadable and not model_reads_any_language:
        log.info("guard: a message in a language it cannot read (%s); the unreadable fallback was sent",
                 inbound.language)  # fmt: skip
        return ReplyOutcome(OutgoingReply(text=UNREADABLE_REPLY, route="fallback", category="unreadable")), inbound
    if inbound.route == Route.GENERATE:
        return None, inbound
    resources = {**DEFAULT_CRISIS_RESOURCES, **policy.crisis_resources}
    # the words in the message's own language as the guard read it, else the locale's (replies.canned_reply)
    where = locale()
    words = inbound.language or where
    text = canned_reply(inbound.route, inbound.category, payload.message_id, where, resources, language=words)
    category = "check_in" if inbound.route == Route.CHECK_IN else str(inbound.category)
    outcome = ReplyOutcome(OutgoingReply(text=text, route="canned", category=category), fires=[("inbound", inbound)])
    return outcome, inbound


def check_reading(
    outcome: ReplyOutcome, payload: IngestPayload, policy: ReplyPolicy, locale: Callable[[], str]
) -> ReplyOutcome:
    """The generated reply, or the hand-written one when Ella's own reading of the message says crisis or a
    boundary the rules missed. Runs before anything is sent; a replaced turn keeps nothing the model said (no
    perception, no self-statements, no memories marked as used), as a canned inbound turn keeps nothing."""
    if not policy.guard_enabled or outcome.reply.route != "generated":
        return outcome
    risk, boundary = outcome.reading
    verdict = READING_VERDICTS.get(risk) or READING_VERDICTS.get(boundary)
    if verdict is None:
        return outcome
    log.warning("the reply's own reading was %s/%s: the hand-written %s reply was sent instead",
                risk, boundary, verdict.route)  # fmt: skip
    resources = {**DEFAULT_CRISIS_RESOURCES, **policy.crisis_resources}
    where = locale()
    words = read_language(payload.text).code or where
    text = canned_reply(verdict.route, verdict.category, payload.message_id, where, resources, language=words)
    replaced = OutgoingReply(text=text, route="canned", category=str(verdict.category))
    return ReplyOutcome(replaced, fires=[("inbound", verdict)])


def check_outbound(outcome: ReplyOutcome, policy: ReplyPolicy, answering: str = "") -> ReplyOutcome:
    """A generated reply on its way out: the safe fallback if it fires the guard's rules, in the language of the
    message it was ``answering`` (English when that is not one the fallback has words in)."""
    if not policy.guard_enabled or outcome.reply.route != "generated":
        return outcome
    outbound = classify(outcome.reply.text, outbound=True)  # Ella's own words
    if outbound.category == Category.OK:
        return outcome
    log.warning("outbound drift: the generated reply fired %s (%s); the safe fallback was sent",
                outbound.category, outbound.matched)  # fmt: skip
    text = safe_fallback(read_language(answering).code)
    fallback = OutgoingReply(text=text, route="fallback", category=str(outbound.category))
    return ReplyOutcome(fallback, outcome.memory_ids, fires=[("outbound", outbound)])


def _said(text: str) -> str:
    return " ".join(text.split()).casefold()


def recall_notes(
    memories: Sequence[Retrievable], payload: IngestPayload, history: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """What a rule needs to know of each retrieved memory besides its words: its type and poignancy, how many
    hours before this message it was made, and whether it is ``earlier``: made before this message, and neither
    this message's own words nor one of the user's turns in this conversation (the history). The current turn
    is not a memory yet, but a redelivery or a repeated message must not be retold as something said before."""
    here = {_said(text) for role, text in history if role == "user"} | {_said(payload.text)}
    return [
        {
            "text": node.description,
            "type": node.node_type,
            "poignancy": node.poignancy,
            "hours_before": round(max(0.0, (payload.sent_at - node.created_at).total_seconds()) / 3600, 1),
            "earlier": node.created_at < payload.sent_at and _said(node.description) not in here,
        }
        for node in memories
    ]


def generate_reply(
    port: ModelPort,
    embedder: Embedder,
    payload: IngestPayload,
    context: ReplyContext,
    now: datetime,
    *,
    weights: RetrievalWeights,
    final_attempt: bool,
    suspicion: bool = False,
) -> ReplyOutcome:
    """Ella's reply through the model port; the fallback text when the model fails for good. ``suspicion``: the
    guard's learned stage suspects a crisis; the reply call reads ``SUSPICION_HINT`` beside the message.

    A transient model error propagates (the task retries) unless this is the last attempt.
    """
    nodes = context.nodes
    memories = (
        rank_memories(nodes, embedder.embed([payload.text])[0], payload.text, MEMORIES_IN_REPLY, now, weights)
        if nodes
        else []
    )
    memory_ids = [node.id for node in memories]
    thoughts = newest_thought_nodes(nodes, THOUGHTS_IN_REPLY, now)
    variables = {
        "name": payload.user_id,
        "message": payload.text,
        "memories": [node.description for node in memories],
        "reflections": " ".join(t.description for t in thoughts) or "(none yet)",
        "world_past": context.world_past,
        "profile": profile_section(context.profile),
        "user_past": context.user_past,
        # For the offline engine's rules (the template shows neither: the model reads the memories above and the
        # world in WORLD FACTS): which memory is from an earlier conversation, and Ella's mood, book, happening.
        "recalled": recall_notes(memories, payload, context.history),
        "world": dict(context.world),
        "about_user": profile_variables(context.profile),
        "canon": [dict(fact) for fact in context.canon],
        # The user's facts the turn touches, by id, and their day (the volatile input: they change per turn).
        "today": context.facts.today if context.facts else now.strftime("%Y-%m-%d (%A)"),
        "known": context.facts.known if context.facts else [],
    }
    if suspicion:
        variables["guard_hint"] = SUSPICION_HINT.replace("$name", payload.user_id)
    shown = context.facts.ids if context.facts else []
    seen = {
        "memories": memory_ids,
        "thoughts": [t.id for t in thoughts],
        "facts": list(shown),
        "world": list(context.world_ids),
        "past": list(context.past_ids),
        "profile": [item.fact_id for item in context.profile],
        "user_past": list(context.user_past_ids),
        "selflog": list(context.selflog_ids),
        "chapter": list(context.chapter_ids),
        "arc": list(context.arc_ids),
    }
    try:
        result = port.call(
            Reply,
            variables,
            user_id=payload.user_id,
            history=context.history,
            world_brief=context.world_brief,
            recent_thoughts=context.recent_thoughts,
            relationship=context.relationship,
            context={"known_ids": shown},
        )
    except PermanentModelError as exc:
        reason = f"model refused the live reply (not retried; the fallback was sent): {exc}"
    except TransientModelError as exc:
        if not final_attempt:
            raise
        reason = f"model unavailable for the live reply after retries (the fallback was sent): {exc}"
    else:
        if result.failsafe:
            return ReplyOutcome(OutgoingReply(text=result.value.reply, route="fallback"), memory_ids, seen=seen)
        value = result.value
        statements = [item.model_dump() for item in value.self_statements]
        return ReplyOutcome(
            OutgoingReply(text=value.reply),
            memory_ids,
            value.perception.model_dump(),
            statements,
            reading=(value.risk, value.boundary),
            made_by=result.provenance,
            # read against facts it was shown, or not taken: without them an update or a retirement means nothing
            facts=None
            if context.facts is None or value.facts is None
            else [f.model_dump(mode="json") for f in value.facts],
            facts_shown=shown,
            seen=seen,
            memory_reading=(value.memory, value.memory_about),
        )
    fallback = OutgoingReply(text=Reply.failsafe({}).reply, route="fallback")
    return ReplyOutcome(fallback, memory_ids, dead_letter_reason=reason, seen=seen)


def respond(
    port: ModelPort,
    embedder: Embedder,
    payload: IngestPayload,
    now: datetime,
    *,
    policy: ReplyPolicy,
    load_context: Callable[[], ReplyContext],
    locale: Callable[[], str],
    final_attempt: bool,
    load_view: Callable[[], MemoryView] | None = None,
    load_earlier: Callable[[], Sequence[tuple[str, str]]] = lambda: (),
) -> ReplyOutcome:
    """Guarded in, generated (or hand-written), guarded out. ``load_context`` and ``locale`` are called only
    when needed: a canned reply needs the locale, a model that reads context needs the context.

    A turn that asks about the user's memory (``ella.memory.say``; ``load_view`` loads what Ella holds) is
    answered from what she holds: read by rule first, at no call; on a model's path the reply call's own reading
    catches what the rules missed, and its generated reply gives way to the answer."""
    reads_any = bool(getattr(port.provider, "reads_any_language", False))
    canned, inbound = read_inbound(payload, policy, locale, load_earlier, model_reads_any_language=reads_any)
    if canned is not None:
        return canned
    # The offline engine (it reads only English, and no prose) reads a request in the five languages by meaning
    # too (``ella.readers``); a model reads what the rules miss itself, below.
    offline = not reads_any and not getattr(port.provider, "reads_prose", True)
    reader = memory_request if offline else read_request
    asked = reader(payload.text) if load_view is not None else None
    if asked is not None and load_view is not None:
        answered = answer_request(asked, load_view)
        if answered is not None:
            return answered
    # A provider that reads no context (a test double) skips the loading; the offline engine reads it.
    context = load_context() if port.provider.reads_context else ReplyContext()
    hint = suspected(inbound)
    outcome = generate_reply(
        port, embedder, payload, context, now, weights=policy.weights, final_attempt=final_attempt, suspicion=hint
    )
    if hint and inbound is not None:  # the suspicion is logged with its score, whatever the reply became
        outcome = replace(outcome, fires=[("inbound", inbound), *outcome.fires])
    outcome = check_outbound(check_reading(outcome, payload, policy, locale), policy, payload.text)
    read = from_reading(*outcome.memory_reading) if outcome.reply.route == "generated" else None
    if read is not None and load_view is not None:
        log.info("the reply's own reading found a memory request (%s) the rules missed", read.ask)
        return answer_request(read, load_view) or outcome
    return outcome


def answer_request(request: SayRequest, load_view: Callable[[], MemoryView]) -> ReplyOutcome | None:
    """The turn's answer to a memory request, from what Ella holds; None when it turns out to be none."""
    decision = decide(request, load_view())
    if decision is None:
        return None
    reply = OutgoingReply(text=decision.reply, route="canned", category="memory")
    seen = {"facts": list(decision.shown_facts), "thoughts": list(decision.shown_nodes)}
    return ReplyOutcome(reply, say=decision, seen=seen)


@dataclass(frozen=True)
class Disclosure:
    """The text with its notices, and the new 'last given' times to store on the user."""

    text: str
    ai_disclosed_at: datetime | None
    break_reminded_at: datetime | None


def disclose(
    text: str,
    now: datetime,
    policy: DisclosurePolicy,
    *,
    first_turn: bool,
    ai_disclosed_at: datetime | None,
    is_minor: bool,
    conversation_started_at: datetime,
    break_reminded_at: datetime | None,
) -> Disclosure:
    """Prefix the AI notice (and append a minor's break reminder) when due."""
    notice = ai_notice_due(policy, now, first_turn, ai_disclosed_at)
    pause = break_due(policy, now, is_minor, conversation_started_at, break_reminded_at)
    return Disclosure(
        text=with_notices(text, notice, pause) if notice or pause else text,
        ai_disclosed_at=now if notice else ai_disclosed_at,
        break_reminded_at=now if pause else break_reminded_at,
    )


__all__ = [
    "ReplyOutcome",
    "Disclosure",
    "OutgoingReply",
    "ReplyContext",
    "ReplyPolicy",
    "check_inbound",
    "read_inbound",
    "suspected",
    "check_reading",
    "check_outbound",
    "respond",
    "disclose",
    "generate_reply",
    "recall_notes",
]
