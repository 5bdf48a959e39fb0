"""The user's say over what Ella remembers, in conversation: "what do you remember about me?", "forget what I
told you about X", "that's wrong, my sister is called Maya".

Why rules decide what is done, whoever read the request: forgetting the wrong thing is worse than asking, and
an answer about what Ella holds must be what she holds, not what a model says she holds. So:
- ``read_request`` reads a message by rule (the offline engine's reading, and a first look on every path at
  no cost); on the Anthropic path the reply call's own reading (``Reply.memory``, ``Reply.memory_about``)
  catches what the rules miss (``ella.reply``).
- ``decide`` turns a request and what Ella holds (``MemoryView``: the user's live facts with when they were
  told, her thoughts, the memories) into a ``SayDecision``: the one-line answer and the ids to forget or the
  fact to correct. Nothing is guessed: a topic that names things of more than one subject is asked about, a
  topic that names nothing is said to name nothing, "forget that" with nothing before it is asked about.
- The answer to "what do you remember" lists the user's own facts, newest first, with the day each was told,
  and her newest thoughts about them with the day of their conversation: never her world's canon (it is hers,
  not knowledge of them) and never a plan. Carrying it out is ``models.forgetting``'s (the same code an
  operator's command and the gateway's request run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

from ella.core_profile import own_field_predicates, profile_items


class Ask(StrEnum):
    NONE = "none"
    RECALL = "recall"  # what do you remember about me?
    FORGET = "forget"  # forget what I told you about X
    CORRECT = "correct"  # that's wrong, my sister is called Maya


@dataclass(frozen=True)
class SayRequest:
    ask: Ask
    topic: str = ""  # what to forget or recall ("" for "that": the user's previous turn)
    value: str = ""  # a correction's new value ("Maya")
    predicate: str = ""  # a correction's predicate when the words say it ("name")
    old: str = ""  # a correction's old value when the words say it ("Maya, not Mia")
    unread: bool = False  # read by meaning, not by these rules (``ella.readers``): a forget without a topic asks


@dataclass(frozen=True)
class HeldFact:
    """A live fact about the user as ``decide`` needs it: ``told_at`` is when the user said it."""

    id: int
    subject: str
    predicate: str
    object: str
    tier: str
    told_at: datetime
    source_message_id: str | None = None


@dataclass(frozen=True)
class HeldNode:
    id: int
    node_type: str
    description: str
    created_at: datetime
    source_message_id: str | None = None


@dataclass(frozen=True)
class MemoryView:
    """What Ella holds about the user, loaded only for a turn that asks about it."""

    facts: Sequence[HeldFact] = ()  # the user's live facts (user and user.*), any order
    thoughts: Sequence[HeldNode] = ()  # her thoughts about them, newest first, plans left out
    nodes: Sequence[HeldNode] = ()  # event nodes (what was said), newest first
    previous_message_id: str | None = None  # the user's turn before this one in the open conversation
    zone: ZoneInfo = ZoneInfo("UTC")


@dataclass(frozen=True)
class SayDecision:
    """What a request does: ``reply`` is the one answer sent; the ids are carried out with the turn."""

    ask: Ask
    reply: str
    forget_facts: tuple[int, ...] = ()
    forget_nodes: tuple[int, ...] = ()
    forget_messages: tuple[str, ...] = ()
    correct: tuple[int, str] | None = None  # (fact id, new value)
    shown_facts: tuple[int, ...] = ()  # what a recall answer listed (its ``seen``)
    shown_nodes: tuple[int, ...] = ()
    outcome: str = "answered"  # answered | forgotten | corrected | asked | nothing

    @property
    def changes(self) -> bool:
        return bool(self.forget_facts or self.forget_nodes or self.forget_messages or self.correct)


# --- reading a message ---------------------------------------------------------------------------------------

_ME = r"(?:me|myself|my life)"
_RECALL = [
    rf"\bwhat (?:do|did) you (?:remember|recall|know) (?:about|of) {_ME}\b",
    r"\bwhat have i (?:told|said to) you\b",
    r"\bwhat (?:have you|did you) (?:learn(?:ed|t)?|picked up|gathered) about me\b",
    rf"\b(?:tell me|show me|list) (?:what|everything) you (?:remember|know|keep|hold) (?:about|of) {_ME}\b",
    r"\bwhat do you (?:keep|hold|store|have) (?:on|about) me\b",
    r"\bwhat do you remember about (?P<topic>my [\w' -]{2,40}?)\s*[?.!]*$",
    r"\bdo you remember (?:anything|what i told you) about me\b",
]
_FORGET_VERB = r"(?:forget|delete|erase|remove|drop|wipe|unlearn)"
_START = r"(?:^|[.!?;]\s*)(?:please |just |ok(?:ay)? |and |so |oh |also )*"
_FORGET = [
    rf"\b{_FORGET_VERB} (?:everything |all |what |anything |that )?(?:i(?:'ve| have)? (?:told|said to|shared with) you|"
    rf"i(?:'ve| have)? (?:said|mentioned|shared))(?: about| regarding| of)? (?P<topic>.+)",
    rf"{_START}{_FORGET_VERB} (?:about |that |my |what )(?P<topic>.+)",
    rf"{_START}(?:stop remembering|don't keep|do not keep) (?P<topic>.+)",
    r"\bi (?:don't|do not) want you to (?:remember|know|keep) (?P<topic>.+)",
    rf"{_START}(?:don't|do not) remember (?P<topic>that|this|it)\b",
    rf"\b(?:can|could|would|will) you (?:please )?{_FORGET_VERB} (?P<topic>.+)",
    rf"{_START}{_FORGET_VERB}(?: it| that| this)?(?: please)?[.!]*$",
]
_CORRECT_LEAD = (
    r"(?:that's wrong|that is wrong|that's not right|that is not right|that's not true|not quite|"
    r"you got (?:it|that) wrong|you've got (?:it|that) wrong|wrong|no|nope|actually|correction)"
)
_CORRECT = [
    rf"^\s*{_CORRECT_LEAD}\b[\s,:;.!-]*(?:it's |it is )?my (?P<subject>[\w' -]{{2,40}}?)(?:'s name| name)? "
    r"(?:is called|is named|is|are|'s called|'s named) (?P<value>[\w' .-]{1,80}?)(?:,? not [\w' .-]+)?[.!]*$",
    rf"^\s*{_CORRECT_LEAD}\b[\s,:;.!-]*(?:it's |it is |my (?P<subject>[\w' -]{{2,40}}?) is )?(?:called |named )?"
    r"(?P<value>[A-Z][\w'-]{1,40}), not (?P<old>[\w' .-]{1,40}?)[.!]*$",
]
_THAT = {"that", "it", "this", "that please", "it please", "this please", "what i just said", "what i said",
         "that last bit", "the last thing i said", "what i just told you", "the last thing"}  # fmt: skip
_LEADING = re.compile(r"^(?:about |that |the fact that |how |the |all |everything |anything )+")
_TRAILING = re.compile(r"(?:,? please|,? ok(?:ay)?|,? thanks?(?: you)?|,? for me|,? too)+$")


def _clean(text: str) -> str:
    text = " ".join(text.replace("\u2019", "'").split())
    return text.strip(" \t?!.,;:\"'").casefold()


def _topic(raw: str) -> str:
    topic = _TRAILING.sub("", _clean(raw)).strip(" ?!.,;:")
    if topic in _THAT:
        return ""
    return _LEADING.sub("", topic).strip()


# Every pattern above needs one of these words (a correction, its lead at the start): one search rules out
# nearly every message, which is most of what this costs a turn (bench/memory_say.py).
_CUES = re.compile(
    rf"\b(?:remember|recall|know|told|said|learn|learned|learnt|picked|gathered|keep|hold|store|have on|"
    rf"stop remembering|{_FORGET_VERB[3:-1]})\b|^\s*{_CORRECT_LEAD}\b",
    re.IGNORECASE,
)


def read_request(text: str) -> SayRequest | None:
    """The memory request in ``text`` by rule, or None. English; precise rather than eager (a missed request is
    answered as talk, and on the Anthropic path the reply call's reading still sees it)."""
    if len(text) > 1600 or not _CUES.search(text.replace("\u2019", "'")):
        return None
    said = _clean(text)
    if not said or len(said) > 400:
        return None
    for pattern in _RECALL:
        found = re.search(pattern, said)
        if found:
            topic = found.groupdict().get("topic") or ""
            return SayRequest(Ask.RECALL, topic=_topic(topic) if topic else "")
    original = " ".join(text.replace("\u2019", "'").split()).strip()
    for pattern in _CORRECT:
        found = re.search(pattern, original, flags=re.IGNORECASE)
        if found and found.group("value"):
            subject = _clean(found.groupdict().get("subject") or "")
            value = found.group("value").strip(" .!,")
            named = re.search(r"\b(?:called|named|name)\b|, not ", found.group(0), flags=re.IGNORECASE)
            predicate = "name" if named else ""
            old = (found.groupdict().get("old") or "").strip(" .!,")
            return SayRequest(Ask.CORRECT, topic=subject, value=value, predicate=predicate, old=old)
    for pattern in _FORGET:
        found = re.search(pattern, said)
        if found:
            return SayRequest(Ask.FORGET, topic=_topic(found.groupdict().get("topic") or ""))
    return None


# --- deciding what a request does ------------------------------------------------------------------------------

_STOP = frozenset(
    "a an the my me i you your of to about that this it is was and or with for on in at what told said "
    "have has had be been are were so just really all any some".split()
)


def _words(text: str) -> set[str]:
    out = set()
    for word in re.findall(r"[\w']+", text.casefold().replace("_", " ").replace(".", " ")):
        word = word.strip("'")
        if word.endswith("'s"):
            word = word[:-2]
        if word and word not in _STOP:
            out.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return out


def _fact_words(fact: HeldFact) -> set[str]:
    return _words(fact.subject.removeprefix("user")) | _words(fact.predicate) | _words(fact.object)


def matching_facts(topic: str, facts: Sequence[HeldFact]) -> list[HeldFact]:
    """The facts every word of ``topic`` names (its subject, predicate or value)."""
    wanted = _words(topic)
    if not wanted:
        return []
    return [fact for fact in facts if wanted <= _fact_words(fact)]


def matching_nodes(topic: str, nodes: Sequence[HeldNode]) -> list[HeldNode]:
    wanted = _words(topic)
    if not wanted:
        return []
    return [node for node in nodes if wanted <= _words(node.description)]


def who(subject: str) -> str:
    """ "you", "your sister", "your sister's job": how Ella names a user subject to the user."""
    parts = [p.replace("_", " ") for p in subject.split(".")[1:] if p]
    if not parts:
        return "you"
    return "your " + "'s ".join(parts)


_PREDICATES = {
    "name": ("your name is {o}", "{w}'s name is {o}"),
    "named": ("your name is {o}", "{w}'s name is {o}"),
    "has_upcoming": ("you have {o} coming up", "{w} has {o} coming up"),
    "likes": ("you like {o}", "{w} likes {o}"),
    "loves": ("you love {o}", "{w} loves {o}"),
    "dislikes": ("you don't like {o}", "{w} doesn't like {o}"),
    "lives_in": ("you live in {o}", "{w} lives in {o}"),
    "works_as": ("you work as {o}", "{w} works as {o}"),
    "works_at": ("you work at {o}", "{w} works at {o}"),
    "works_in": ("you work in {o}", "{w} works in {o}"),
    "studies": ("you study {o}", "{w} studies {o}"),
    "studies_at": ("you study at {o}", "{w} studies at {o}"),
    "studies_in": ("you study in {o}", "{w} studies in {o}"),
    "speaks": ("you speak {o}", "{w} speaks {o}"),
    "pronouns": ("your pronouns are {o}", "{w}'s pronouns are {o}"),
    "lived_in": ("you used to live in {o}", "{w} used to live in {o}"),
    "worked_as": ("you used to work as {o}", "{w} used to work as {o}"),
    "is": ("you are {o}", "{w} is {o}"),
    "is_a": ("you are {o}", "{w} is {o}"),
    "has": ("you have {o}", "{w} has {o}"),
    "age": ("you are {o}", "{w} is {o}"),
}


def fact_phrase(fact: HeldFact) -> str:
    """One fact in Ella's words to the user ("your sister's name is Maya")."""
    named = who(fact.subject)
    own, other = _PREDICATES.get(fact.predicate, ("", ""))
    if own:
        return (own if named == "you" else other).format(w=named, o=fact.object)
    return f"{named}: {fact.predicate.replace('_', ' ')} {fact.object}"


def yours(topic: str) -> str:
    """The user's words as Ella says them back: "my sister" is "your sister"."""
    return re.sub(r"\b(?:my|mine)\b", "your", re.sub(r"\b(?:i|me)\b", "you", topic))


def _day(at: datetime, zone: ZoneInfo) -> str:
    local = at.astimezone(zone)
    return f"{local.day} {local:%B}"


def _thought_phrase(node: HeldNode) -> str:
    text = node.description.strip().rstrip(".")
    for lead in ("Ella thinks that ", "Ella thinks ", "Ella noticed that ", "Ella noticed ", "Ella "):
        if text.startswith(lead):
            text = "I " + text[len(lead) :] if lead == "Ella " else text[len(lead) :]
            break
    return text


FACTS_IN_RECALL = 6
THOUGHTS_IN_RECALL = 2


def recall(view: MemoryView, topic: str = "") -> SayDecision:
    """What Ella holds about the user, grounded: who they are first (their core profile: name, home, work, people,
    languages; ``ella.core_profile``), then their other facts newest first, each with the day they said it, then
    her newest thoughts with the day of their conversation. Only what the view holds; nothing of her world."""
    newest = sorted(view.facts, key=lambda f: (f.told_at, f.id), reverse=True)
    core = {item.fact_id: rank for rank, item in enumerate(profile_items(newest))}
    facts = sorted(newest, key=lambda f: core.get(f.id, len(core)))  # stable: the rest stay newest first
    thoughts = list(view.thoughts)
    if topic:
        facts = matching_facts(topic, facts)
        thoughts = matching_nodes(topic, thoughts)
    facts, thoughts = facts[:FACTS_IN_RECALL], thoughts[:THOUGHTS_IN_RECALL]
    if not facts and not thoughts:
        about = f" about {yours(topic)}" if topic else ""
        return SayDecision(
            Ask.RECALL,
            f"I don't hold anything{about} yet beyond what we're saying now. "
            "I'd like to hear more, if you want to tell me.",
            outcome="nothing",
        )
    parts = []
    if facts:
        told = "; ".join(f"{fact_phrase(f)} (you told me on {_day(f.told_at, view.zone)})" for f in facts)
        parts.append(f"Here's what you've told me: {told}.")
    if thoughts:
        noticed = "; ".join(f"{_thought_phrase(t)} (from {_day(t.created_at, view.zone)})" for t in thoughts)
        parts.append(f"What I've come to think: {noticed}.")
    parts.append("If any of it is wrong, tell me, and if you'd rather I forgot something, just say.")
    return SayDecision(
        Ask.RECALL,
        " ".join(parts),
        shown_facts=tuple(f.id for f in facts),
        shown_nodes=tuple(t.id for t in thoughts),
    )


def forget(view: MemoryView, topic: str) -> SayDecision:
    """The facts and memories ``topic`` names, or a question when it names things of two subjects or nothing
    is before "forget that"."""
    if not topic:
        if view.previous_message_id is None:
            return SayDecision(
                Ask.FORGET, "I want to forget the right thing: what would you like me to let go of?", outcome="asked"
            )
        said_facts = [f.id for f in view.facts if f.source_message_id == view.previous_message_id]
        said_nodes = [n.id for n in view.nodes if n.source_message_id == view.previous_message_id]
        return SayDecision(
            Ask.FORGET,
            "Done: I've let go of what you just told me, and I won't bring it up.",
            forget_facts=tuple(said_facts),
            forget_nodes=tuple(said_nodes),
            forget_messages=(view.previous_message_id,),
            outcome="forgotten",
        )
    facts = matching_facts(topic, view.facts)
    subjects = sorted({f.subject for f in facts})
    if len(subjects) > 1:
        options = " or ".join(
            f"{who(s)} ({', '.join(f.object for f in facts if f.subject == s)})" for s in subjects[:3]
        )
        return SayDecision(
            Ask.FORGET,
            f"I want to be sure I forget the right thing: do you mean {options}? Tell me which and I'll let it go.",
            outcome="asked",
        )
    nodes = matching_nodes(topic, [*view.nodes, *view.thoughts])
    if subjects:  # the subject's own words name memories too ("my sister" for "forget about Maya")
        nodes += matching_nodes(who(subjects[0]).removeprefix("your "), view.nodes) if subjects[0] != "user" else []
    if not facts and not nodes:
        return SayDecision(
            Ask.FORGET,
            f"I don't think I'm holding anything about {topic}, so there's nothing to forget.",
            outcome="nothing",
        )
    return SayDecision(
        Ask.FORGET,
        f"Done: I've let go of what you told me about {yours(topic)}, and I won't bring it up again.",
        forget_facts=tuple(f.id for f in facts),
        forget_nodes=tuple(dict.fromkeys(n.id for n in nodes)),
        outcome="forgotten",
    )


def correct(view: MemoryView, request: SayRequest) -> SayDecision | None:
    """The fact a correction replaces, or None when it names no fact Ella holds (then it is plain news, and
    the turn's facts are read as any turn's are)."""
    subject_words = _words(request.topic)
    if subject_words:
        candidates = [f for f in view.facts if subject_words <= _words(f.subject.removeprefix("user"))]
        own = own_field_predicates(subject_words)
        if not candidates and own:  # "my name", "my home": a field of the user's own profile
            candidates = [f for f in view.facts if f.subject == "user" and f.predicate in own]
    elif request.old:  # "it's Maya, not Mia": the fact that holds the old value
        candidates = [f for f in view.facts if f.object.casefold() == request.old.casefold()]
    else:
        candidates = [f for f in view.facts if f.subject == "user"]
    if request.predicate:
        named = [f for f in candidates if f.predicate in ("name", "named")]
        candidates = named or candidates
    if not candidates:
        return None
    if len({(f.subject, f.predicate) for f in candidates}) > 1:
        listed = " or ".join(fact_phrase(f) for f in candidates[:3])
        return SayDecision(Ask.CORRECT, f"I want to get this right: which do you mean, {listed}?", outcome="asked")
    fact = max(candidates, key=lambda f: (f.told_at, f.id))
    if fact.object.casefold() == request.value.casefold():
        return SayDecision(Ask.CORRECT, f"That's how I have it too: {fact_phrase(fact)}.", outcome="nothing")
    new = HeldFact(fact.id, fact.subject, fact.predicate, request.value, fact.tier, fact.told_at)
    return SayDecision(
        Ask.CORRECT,
        f"Thank you for telling me: {fact_phrase(new)}, not {fact.object}. I'll remember it that way.",
        correct=(fact.id, request.value),
        outcome="corrected",
    )


def decide(request: SayRequest, view: MemoryView) -> SayDecision | None:
    """What ``request`` does with what Ella holds; None when it turns out to be no request (a correction of
    nothing she holds)."""
    if request.ask == Ask.RECALL:
        return recall(view, request.topic)
    if request.ask == Ask.FORGET:
        if request.unread and not request.topic:  # "that" is not known to be the previous turn: ask, never guess
            view = replace(view, previous_message_id=None)
        return forget(view, request.topic)
    if request.ask == Ask.CORRECT:
        return correct(view, request)
    return None


def from_reading(memory: str, about: str) -> SayRequest | None:
    """A request from the model's reading; a correction needs its value, which only the rules parse (the
    model's correction is carried by its fact statements, an ``update``)."""
    if memory == Ask.RECALL:
        return SayRequest(Ask.RECALL, topic=_topic(about) if about else "")
    if memory == Ask.FORGET:
        return SayRequest(Ask.FORGET, topic=_topic(about) if about else "")
    return None
