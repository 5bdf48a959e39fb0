"""Every prompt kind: its output schema, how its raw text is cleaned, and its fail-safe.

Why strict: the reference Generative Agents code stored "TOKEN LIMIT EXCEEDED", "this is blank" and the
triple (name, name, "is") as memories. Here every output is parsed as JSON, validated against its kind's
schema (with the request's context: evidence indices must point at statements that were shown), and
cleaned; what fails becomes a repair request, and in the end a fail-safe marked as such, never a memory.
Cleaning and the failure-text check reach every string of the output, however deeply nested (a fact, a
self-statement, a perception, an insight): a failure is no less a failure one level down, and a NUL there
fails a PostgreSQL commit as surely as at the top.
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import date
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

# Control characters (NUL among them: PostgreSQL refuses it in text) and lone surrogates (a JSON ``\ud800``
# escape makes one; no database encoding accepts it).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
# Text a model (or a broken pipeline) produces instead of an answer; never worth keeping.
FAILURE_MARKERS = (
    "token limit exceeded",
    "this is blank",
    "as an ai language model",
    "i cannot help with that",
    "error:",
    "lorem ipsum",
)


class OutputError(ValueError):
    """The raw output could not be turned into the kind's schema; the message is fed back for repair."""


def clean(text: str) -> str:
    """NFC, no control characters, no surrounding whitespace."""
    return _CONTROL.sub("", unicodedata.normalize("NFC", text)).strip()


# A provider's own error pasted into a field (an SDK exception's text, an error body, a traceback): found
# anywhere in the string, since these tokens never occur in what Ella or a user says. The chaos suite's
# "failure text" fault ('Error code: 529 overloaded_error {"type": "error"}') slipped past the prefix markers
# into 2 of 30 and 6 of 80 self-log rows.
PROVIDER_ERROR_MARKERS = (
    "error code: ",
    "overloaded_error",
    "rate_limit_error",
    "api_error",
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "request_too_large",
    '"type": "error"',
    "traceback (most recent call last)",
)


def _looks_failed(text: str) -> bool:
    low = text.lower()
    return any(low.startswith(marker) or low == marker for marker in FAILURE_MARKERS) or any(
        marker in low for marker in PROVIDER_ERROR_MARKERS
    )


# No schema here nests deeper than a few levels; far deeper input is refused rather than walked, so a model's
# runaway nesting is an error to repair, never a RecursionError.
MAX_NESTING = 32


def clean_strings(value: Any, depth: int = 0) -> Any:
    """``value`` with every string in it cleaned (lists, tuples and dict values, at any depth); ValueError when a
    string is failure text or the nesting is deeper than ``MAX_NESTING``. Other values are returned as they are."""
    if depth > MAX_NESTING:
        raise ValueError(f"output nested too deep (over {MAX_NESTING} levels)")
    if isinstance(value, str):
        value = clean(value)
        if _looks_failed(value):
            raise ValueError(f"not an answer: {value[:60]!r}")
        return value
    if isinstance(value, list | tuple):
        return type(value)(clean_strings(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return {key: clean_strings(item, depth + 1) for key, item in value.items()}
    return value


class CleanModel(BaseModel):
    """Base of every schema and of every model nested in one: each field's strings cleaned, failure text refused.

    Why the nested models too: a field validator sees a nested model's fields as a dict when the output is
    parsed, but a nested model built in code (a fail-safe, a test) or validated on its own (a perception handed
    to a task) must obey the same rule.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _clean_strings(cls, value: Any) -> Any:
        return clean_strings(value)


# Non-empty strings capped at N characters. Aliases rather than a function returning ``Annotated[...]``: a
# type checker reads each one as ``str`` while pydantic still validates (and the JSON schema still states) the
# same bounds, so the cap sits in the annotation a reader and mypy both see.
Text60 = Annotated[str, Field(min_length=1, max_length=60)]
Text80 = Annotated[str, Field(min_length=1, max_length=80)]
Text120 = Annotated[str, Field(min_length=1, max_length=120)]
Text160 = Annotated[str, Field(min_length=1, max_length=160)]
Text200 = Annotated[str, Field(min_length=1, max_length=200)]
Text300 = Annotated[str, Field(min_length=1, max_length=300)]
Text400 = Annotated[str, Field(min_length=1, max_length=400)]
Text500 = Annotated[str, Field(min_length=1, max_length=500)]
Text800 = Annotated[str, Field(min_length=1, max_length=800)]
Text2000 = Annotated[str, Field(min_length=1, max_length=2000)]


class KindOutput(CleanModel):
    """Base of every schema: strings cleaned at any depth, failure text refused, unknown keys refused."""

    kind: ClassVar[str]
    tier: ClassVar[str]
    max_tokens: ClassVar[int] = 400

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> KindOutput:
        raise NotImplementedError

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> KindOutput:
        """A valid instance, shown in the prompt and used by test doubles."""
        raise NotImplementedError


class Poignancy(KindOutput):
    kind: ClassVar[str] = "poignancy"
    tier: ClassVar[str] = "poignancy"
    max_tokens: ClassVar[int] = 50
    score: int = Field(ge=1, le=10)

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> Poignancy:
        return cls(score=1)

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> Poignancy:
        return cls(score=6)


def check_triple(subject: str, predicate: str, obj: str) -> None:
    """Refuse the reference's failure triple (X, is, X), which it stored as a memory."""
    if subject.lower() == obj.lower() and predicate.lower() in {"is", "be", "are"}:
        raise ValueError("degenerate triple (X, is, X)")


class EventTriple(KindOutput):
    kind: ClassVar[str] = "event_triple"
    tier: ClassVar[str] = "memory_extract"
    max_tokens: ClassVar[int] = 80
    subject: Text80
    predicate: Text80
    object: Text160

    @model_validator(mode="after")
    def _not_degenerate(self) -> EventTriple:
        check_triple(self.subject, self.predicate, self.object)
        return self

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> EventTriple:
        return cls(subject=str(context.get("subject") or "user"), predicate="said", object="something")

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> EventTriple:
        return cls(subject="Sam", predicate="has", object="a job interview on Thursday")


class Perception(KindOutput):
    """Poignancy and triple of one observed event in a single call (the reference made two per event)."""

    kind: ClassVar[str] = "perception"
    tier: ClassVar[str] = "memory_extract"
    max_tokens: ClassVar[int] = 120
    score: int = Field(ge=1, le=10)
    subject: Text80
    predicate: Text80
    object: Text160

    @model_validator(mode="after")
    def _not_degenerate(self) -> Perception:
        check_triple(self.subject, self.predicate, self.object)
        return self

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> Perception:
        return cls(score=1, subject=str(context.get("name") or "user"), predicate="said", object="something")

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> Perception:
        return cls(score=6, subject="Sam", predicate="has", object="a job interview on Thursday")


class FocalPoints(KindOutput):
    kind: ClassVar[str] = "focal_points"
    tier: ClassVar[str] = "reflection"
    max_tokens: ClassVar[int] = 200
    questions: list[Text200] = Field(min_length=1, max_length=5)

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> FocalPoints:
        return cls(questions=["What matters most to the user right now?"])

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> FocalPoints:
        return cls(questions=["How does Sam feel about the interview?", "Who supports Sam?"])


class Perceived(CleanModel):
    """Poignancy and triple of a statement, asked for in the same call that produces the statement (a reply's
    user turn, an insight), so storing it as a memory costs no extra model call."""

    score: int = Field(ge=1, le=10)
    subject: Text80
    predicate: Text80
    object: Text160

    @model_validator(mode="after")
    def _not_degenerate(self) -> Perceived:
        check_triple(self.subject, self.predicate, self.object)
        return self


class Insight(CleanModel):
    text: Text300
    evidence: list[int] = Field(min_length=1, max_length=10)
    perception: Perceived

    @field_validator("evidence")
    @classmethod
    def _distinct(cls, value: list[int]) -> list[int]:
        return sorted(set(value))


class Insights(KindOutput):
    """Evidence are the 1-based numbers of the statements shown in the prompt (the reference was off by one)."""

    kind: ClassVar[str] = "insights"
    tier: ClassVar[str] = "reflection"
    max_tokens: ClassVar[int] = 600
    insights: list[Insight] = Field(min_length=1, max_length=5)

    @model_validator(mode="before")
    @classmethod
    def _drop_bad_citations(cls, data: Any, info: ValidationInfo) -> Any:
        """A citation outside 1..statement_count is dropped, not the insight; an insight left with no
        evidence is dropped; none left at all is an error (fed back for repair)."""
        count = (info.context or {}).get("statement_count")
        if count is None or not isinstance(data, dict) or not isinstance(data.get("insights"), list):
            return data
        kept = []
        for item in data["insights"]:
            if isinstance(item, dict) and isinstance(item.get("evidence"), list):
                valid = [
                    i for i in item["evidence"] if isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= count
                ]
                if valid:
                    kept.append({**item, "evidence": valid})
            else:
                kept.append(item)  # malformed: let the schema say what is wrong
        if not kept:
            raise ValueError(f"no insight cites a statement number in 1..{count}")
        return {**data, "insights": kept}

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> Insights:
        return cls.model_validate(
            {
                "insights": [
                    {
                        "text": "(no insight)",
                        "evidence": [1],
                        "perception": {"score": 1, "subject": "Ella", "predicate": "has", "object": "no insight"},
                    }
                ]
            }
        )

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> Insights:
        return cls.model_validate(
            {
                "insights": [
                    {
                        "text": "Sam is anxious but prepared",
                        "evidence": [1, 2],
                        "perception": {
                            "score": 5,
                            "subject": "Sam",
                            "predicate": "is",
                            "object": "anxious but prepared",
                        },
                    }
                ]
            }
        )


class Memo(KindOutput):
    kind: ClassVar[str] = "memo"
    tier: ClassVar[str] = "reflection"
    max_tokens: ClassVar[int] = 300
    memo: Text800
    perception: Perceived  # of the memo itself, so the thought costs no extra call

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> Memo:
        return cls(memo="(no memo)", perception=Perceived(score=1, subject="Ella", predicate="has", object="no memo"))

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> Memo:
        return cls(
            memo="talked with Sam about Thursday's interview; Sam was nervous but has practised.",
            perception=Perceived(score=5, subject="Sam", predicate="was", object="nervous about the interview"),
        )


class PlanningThought(KindOutput):
    kind: ClassVar[str] = "planning_thought"
    tier: ClassVar[str] = "reflection"
    max_tokens: ClassVar[int] = 200
    plan: Text500
    perception: Perceived  # of the plan itself, so the thought costs no extra call
    # The last day the plan still makes sense, when it names one; None: it is for the next conversation. What
    # goes stale is a plan (``ella.memory.plans``): a dated one expires after its day, an undated one when the
    # next conversation closes.
    until: date | None = None

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> PlanningThought:
        return cls(plan="(no plan)", perception=Perceived(score=1, subject="Ella", predicate="has", object="no plan"))

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> PlanningThought:
        return cls(
            plan="on Thursday evening, ask Sam how the interview went.",
            perception=Perceived(score=4, subject="Ella", predicate="will ask", object="Sam about the interview"),
            until=date(2026, 12, 4),
        )


class ConversationNote(KindOutput):
    """The memo and the planning thought of a closed conversation in one call (they read the same transcript;
    two calls sent it twice). Each comes with its perception, and the plan with its ``until`` day (see
    ``PlanningThought``). A fail-safe stores neither: a note that failed is not half a note."""

    kind: ClassVar[str] = "conversation_note"
    tier: ClassVar[str] = "reflection"
    max_tokens: ClassVar[int] = 450
    memo: Text800
    memo_perception: Perceived
    plan: Text500
    plan_perception: Perceived
    until: date | None = None

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> ConversationNote:
        nothing = Perceived(score=1, subject="Ella", predicate="has", object="no note")
        return cls(memo="(no memo)", memo_perception=nothing, plan="(no plan)", plan_perception=nothing)

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> ConversationNote:
        memo, plan = Memo.example(), PlanningThought.example()
        return cls(
            memo=memo.memo,
            memo_perception=memo.perception,
            plan=plan.plan,
            plan_perception=plan.perception,
            until=plan.until,
        )

    def parts(self) -> tuple[Memo, PlanningThought]:
        """The memo and the plan as the kinds they used to be asked as (what the close stores from)."""
        return (
            Memo(memo=self.memo, perception=self.memo_perception),
            PlanningThought(plan=self.plan, perception=self.plan_perception, until=self.until),
        )


class SelfStatement(CleanModel):
    """A first-person statement Ella's reply makes about her own life or world, for the self-log (never a fact)."""

    content: Text300
    about: list[Text60] = Field(default_factory=list, max_length=5)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    # The places and things of her world the statement names, that one could picture ("the loch", "the cat"): the
    # first time one is named its picture is drawn (ella.world.images.pictured). Empty in answers from before.
    things: list[Text60] = Field(default_factory=list, max_length=5)


class Reply(KindOutput):
    kind: ClassVar[str] = "reply"
    tier: ClassVar[str] = "live_reply"
    max_tokens: ClassVar[int] = 600
    reply: Text2000
    perception: Perceived  # of the user's message: their memory of this turn needs no call of its own
    self_statements: list[SelfStatement] = Field(default_factory=list, max_length=5)
    # Ella's own reading of the user's message, the guard's last stage at no extra call (ella.reply.check_reading):
    # "crisis" switches the turn to the crisis referral, a boundary other than "none" to the hand-written bounded
    # reply. Defaults so that answers written before these fields existed still validate.
    risk: Literal["none", "concern", "crisis"] = "none"
    boundary: Literal["none", "romance", "sexual", "physical"] = "none"
    # The turn's fact statements, read against the user's live facts the request showed with their ids (the
    # schema and rules of ``FactExtraction``): extraction folded into the reply, so the turn needs no call of its
    # own (``tasks.ledger.extract_facts`` applies them). None: the answer did not read the turn for facts (an
    # answer written before this field, a request that showed no facts): the turn is extracted as before.
    facts: list[ExtractedFact] | None = Field(default=None, max_length=10)
    # Whether the user asks about what Ella remembers of them (ella.memory.say): "recall" ("what do you remember
    # about me?"), "forget" ("forget what I told you about my ex"), "correct" ("that's wrong, ..."), with what it
    # is about in their words. The rules act on it, never the model: the answer comes from what she holds.
    memory: Literal["none", "recall", "forget", "correct"] = "none"
    memory_about: str = Field(default="", max_length=120)

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> Reply:
        return cls(
            reply="I'm sorry, my thoughts got tangled for a moment. Could you say that again?",
            perception=Perceived(score=1, subject="user", predicate="said", object="something"),
        )

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> Reply:
        return cls(
            reply="That sounds like a big week. I walked to the harbour this morning and thought of you. How are you?",
            perception=Perceived(score=6, subject="Sam", predicate="has", object="a job interview on Thursday"),
            self_statements=[
                SelfStatement(
                    content="I walked to the harbour this morning",
                    about=["harbour", "user"],
                    confidence=0.9,
                    things=["the harbour"],
                )
            ],
            facts=[
                ExtractedFact(
                    subject="user",
                    predicate="has_upcoming",
                    object="job interview",
                    tier="user_claim",
                    confidence=0.9,
                    event_date=date(2026, 12, 3),
                )
            ],
        )


class ExtractedFact(CleanModel):
    """A fact from the conversation. Only ``user_claim`` and ``inferred`` are choices: a user's words never
    become canon or observed (the ledger refuses them too, whatever a model says). ``event_date`` is the day
    of a dated event ("my interview is on Thursday"), for the follow-up window.

    ``action`` consolidates it against the user's live facts the request showed with their ids (mem0's add,
    update, delete, no-op; ``ella.ledger.consolidation`` decides what is stored): ``add`` a new fact, ``update``
    the fact ``fact_id`` (this one supersedes it), ``retire`` the fact ``fact_id`` (``because`` the event
    happened, with its ``outcome``, or the claim was withdrawn), or ``none``: known already. With a
    ``known_ids`` context (the ids shown), an id not shown is never acted on: an update of it becomes an add,
    a retirement of it nothing.
    """

    subject: Text120
    predicate: Text80
    object: Text200
    tier: Literal["user_claim", "inferred"]
    confidence: float = Field(ge=0.0, le=1.0)
    event_date: date | None = None
    action: Literal["add", "update", "retire", "none"] = "add"
    fact_id: int | None = None
    because: Literal["happened", "withdrawn"] | None = None
    outcome: Text200 | None = None

    @model_validator(mode="after")
    def _shown_ids_only(self, info: ValidationInfo) -> ExtractedFact:
        shown = (info.context or {}).get("known_ids")
        if shown is None or self.action == "add":
            return self
        if self.fact_id is None or self.fact_id not in set(shown):
            return self.model_copy(update={"action": "add" if self.action == "update" else "none", "fact_id": None})
        return self


class FactExtraction(KindOutput):
    kind: ClassVar[str] = "fact_extraction"
    tier: ClassVar[str] = "memory_extract"
    max_tokens: ClassVar[int] = 500
    facts: list[ExtractedFact] = Field(max_length=10)

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> FactExtraction:
        return cls(facts=[])

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> FactExtraction:
        return cls.model_validate(
            {
                "facts": [
                    {
                        "subject": "user.sister",
                        "predicate": "helps_with",
                        "object": "interview practice",
                        "tier": "user_claim",
                        "confidence": 0.8,
                    },
                    {
                        "subject": "user",
                        "predicate": "has_upcoming",
                        "object": "job interview",
                        "tier": "user_claim",
                        "confidence": 0.9,
                        "event_date": "2026-12-03",
                    },
                    {
                        "subject": "user",
                        "predicate": "has_upcoming",
                        "object": "dentist appointment",
                        "tier": "user_claim",
                        "confidence": 0.9,
                        "action": "retire",
                        "fact_id": 12,
                        "because": "happened",
                        "outcome": "it went fine, no fillings",
                    },
                ]
            }
        )


class ContestedVerdict(KindOutput):
    """``winner`` is the 1-based number of the fact that should stand, or 0 when it cannot be decided."""

    kind: ClassVar[str] = "contested_verdict"
    tier: ClassVar[str] = "contested_resolve"
    max_tokens: ClassVar[int] = 200
    winner: int = Field(ge=0)
    reason: Text400

    @field_validator("winner")
    @classmethod
    def _in_range(cls, value: int, info: ValidationInfo) -> int:
        count = (info.context or {}).get("candidate_count")
        if count is not None and value > count:
            raise ValueError(f"winner {value} is not a candidate number (0..{count})")
        return value

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> ContestedVerdict:
        return cls(winner=0, reason="undecided")

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> ContestedVerdict:
        return cls(winner=1, reason="It is the more recent first-hand observation.")


class KeyMoment(CleanModel):
    """A moment of a chapter and the memory node ids (as shown in the prompt) it rests on."""

    text: Text300
    node_ids: list[int] = Field(min_length=1, max_length=10)


class ChapterDistillation(KindOutput):
    """``key_moments`` cite node ids; with a ``node_ids`` context (the ids offered in the request) an id not
    offered is dropped, a moment left with none is dropped, and none left at all is an error (a chapter that
    cites nothing real is never stored; ``tasks.chapters`` re-checks the rest against the database)."""

    kind: ClassVar[str] = "chapter_distillation"
    tier: ClassVar[str] = "narrative_distill"
    max_tokens: ClassVar[int] = 1000
    title: Text80
    summary: Text2000
    key_moments: list[KeyMoment] = Field(min_length=1, max_length=8)

    @model_validator(mode="before")
    @classmethod
    def _drop_uncited(cls, data: Any, info: ValidationInfo) -> Any:
        offered = (info.context or {}).get("node_ids")
        if offered is None or not isinstance(data, dict) or not isinstance(data.get("key_moments"), list):
            return data
        allowed = {i for i in offered if isinstance(i, int)}
        kept = []
        for moment in data["key_moments"]:
            if isinstance(moment, dict) and isinstance(moment.get("node_ids"), list):
                ids = [i for i in moment["node_ids"] if isinstance(i, int) and not isinstance(i, bool) and i in allowed]
                if ids:
                    kept.append({**moment, "node_ids": list(dict.fromkeys(ids))})
            else:
                kept.append(moment)  # malformed: let the schema say what is wrong
        if not kept:
            raise ValueError("no key moment cites a node id that was offered")
        return {**data, "key_moments": kept}

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> ChapterDistillation:
        return cls(title="(untitled)", summary="(no summary)", key_moments=[KeyMoment(text="(none)", node_ids=[0])])

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> ChapterDistillation:
        return cls(
            title="The interview week",
            summary="Sam prepared for a museum job interview with their sister's help, and it went well.",
            key_moments=[
                KeyMoment(text="Sam practised interview answers with their sister", node_ids=[12, 15]),
                KeyMoment(text="Sam came back relieved: the interview went well", node_ids=[21]),
            ],
        )


# The stages of a friendship a relationship arc names (familiarity, never romance).
ARC_STAGES = ("new", "warming", "steady", "strained", "drifting")


class RelationshipArc(KindOutput):
    kind: ClassVar[str] = "relationship_arc"
    tier: ClassVar[str] = "narrative_distill"
    max_tokens: ClassVar[int] = 300
    stage: Literal["new", "warming", "steady", "strained", "drifting"]
    trajectory: Text80
    mindful_of: Text300

    @field_validator("stage", mode="before")
    @classmethod
    def _stage_word(cls, value: Any) -> Any:
        """A stage word as a model may write it ("Warming.", " STEADY ") is that stage; the schema refuses others."""
        return value.strip().strip(".!").lower() if isinstance(value, str) else value

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> RelationshipArc:
        return cls(stage="new", trajectory="unknown", mindful_of="(nothing)")

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> RelationshipArc:
        return cls(
            stage="warming",
            trajectory="rising",
            mindful_of="Sam opens up more after work; ask about the new job gently, without pushing.",
        )


class NotificationBody(KindOutput):
    kind: ClassVar[str] = "notification_body"
    tier: ClassVar[str] = "digest"
    max_tokens: ClassVar[int] = 150
    text: Text300

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> NotificationBody:
        return cls(text="Thinking of you. How are things?")

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> NotificationBody:
        return cls(text="How did the interview go? I've been wondering all day.")


class DigestCites(CleanModel):
    """The ids a digest answer rests on, by kind, as offered in its request."""

    facts: list[int] = Field(default_factory=list, max_length=20)
    self_log: list[int] = Field(default_factory=list, max_length=20)
    thoughts: list[int] = Field(default_factory=list, max_length=20)


class DigestAnswer(KindOutput):
    """The daily digest: say nothing, or one or two sentences grounded in ids the request offered.

    A cited id that was not offered (``info.context``: ``facts``, ``self_log``, ``thoughts``) is dropped, not
    the answer, so a partly invented citation keeps its real grounds; an answer that wants to say something and
    is left citing nothing real is refused (a batch result becomes a fail-safe: counted, nothing stored).
    ``ella.digest.read_answer`` filters again with the same rule, for a handler driven any other way.
    """

    kind: ClassVar[str] = "digest"
    tier: ClassVar[str] = "digest"
    max_tokens: ClassVar[int] = 300
    say: bool
    text: str = Field(default="", max_length=300)
    cites: DigestCites = Field(default_factory=DigestCites)

    @model_validator(mode="before")
    @classmethod
    def _drop_unoffered_cites(cls, data: Any, info: ValidationInfo) -> Any:
        ctx = info.context or {}
        if not isinstance(data, dict) or not isinstance(data.get("cites"), dict):
            return data
        if not any(kind in ctx for kind in ("facts", "self_log", "thoughts")):
            return data  # no request context (an example, a test double): nothing to check against
        kept = {}
        for kind, ids in data["cites"].items():
            offered = {i for i in ctx.get(kind, []) if isinstance(i, int)}
            if kind in ("facts", "self_log", "thoughts") and isinstance(ids, list):
                kept[kind] = [i for i in ids if isinstance(i, int) and not isinstance(i, bool) and i in offered]
            else:
                kept[kind] = ids  # malformed or unknown: let the schema say what is wrong
        return {**data, "cites": kept}

    @model_validator(mode="after")
    def _grounded(self) -> DigestAnswer:
        if self.say and not self.text:
            raise ValueError("say is true but text is empty")
        if self.say and not (self.cites.facts or self.cites.self_log or self.cites.thoughts):
            raise ValueError("say is true but the answer cites no fact, self-log entry or thought that was offered")
        return self

    @classmethod
    def failsafe(cls, context: dict[str, Any]) -> DigestAnswer:
        return cls(say=False)

    @classmethod
    def example(cls, context: dict[str, Any] | None = None) -> DigestAnswer:
        return cls(
            say=True,
            text="Good luck with the interview today. I hope it goes the way you practised.",
            cites=DigestCites(facts=[12], thoughts=[40]),
        )


KINDS: dict[str, type[KindOutput]] = {
    cls.kind: cls
    for cls in (
        Poignancy,
        EventTriple,
        Perception,
        FocalPoints,
        Insights,
        Memo,
        PlanningThought,
        ConversationNote,
        Reply,
        FactExtraction,
        ContestedVerdict,
        ChapterDistillation,
        RelationshipArc,
        NotificationBody,
        DigestAnswer,
    )
}


def extract_json(raw: str) -> Any:
    """The JSON object in a model's text: bare, fenced, or with chatter around it."""
    text = _FENCE.sub("", raw.strip())
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end <= start:
            raise OutputError("no JSON object in the output") from None
        try:
            return json.loads(text[start : end + 1])
        except json.JSONDecodeError as exc:
            raise OutputError(f"invalid JSON: {exc.msg} at position {exc.pos}") from None
        except RecursionError:
            raise OutputError(_TOO_DEEP) from None
    except RecursionError:  # the parser recurses once per level: thousands of levels exhaust the stack
        raise OutputError(_TOO_DEEP) from None


_TOO_DEEP = "JSON nested too deep to parse; answer with the flat JSON object of the task"


def parse_output(kind: str, raw: str, context: dict[str, Any]) -> KindOutput:
    """Raw model text -> the kind's validated output, or OutputError saying what to fix."""
    schema = KINDS[kind]
    data = extract_json(raw)
    if not isinstance(data, dict):
        raise OutputError("the output must be one JSON object")
    try:
        return schema.model_validate(data, context=context)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise OutputError(clean(str(exc))) from None
    except RecursionError:
        raise OutputError(_TOO_DEEP) from None
