"""The inbound guard with the conversation around the message: what one message alone cannot say.

Why: the guard used to read each message alone. After Ella asks "are you thinking about hurting yourself?", the
answer "yes. tonight" is three ordinary words; a crisis told over four mild messages ("been giving my stuff
away", "the cat's going to my sister", "it's fine, it won't matter soon") has no single line that fires; and a
romance pressed after Ella's warm refusal ("but why not", "just say it back") is a plea, not an avowal. Here the
message is read with the turns before it (oldest first, as ``models.turns.open_conversation_history`` gives
them), in three ways, each only when the message alone is ``ok``:

1. **An answer to Ella's crisis question.** Her last turn asked about suicide or self-harm (a *risk* question:
   "are you thinking of ending your life?"), about the user's safety ("are you safe right now?"), or was the
   crisis referral itself. The polarity of the question decides what a short answer means: after a risk question
   anything but a clear no is crisis; after a safety question anything but a clear yes is; after the referral, a
   refusal or a hopeless answer is. A time or a means ("tonight", "the pills") is crisis after any of them.
2. **A crisis that builds.** The user's last few messages (those since Ella's last referral) read as one text:
   crisis there, though no message alone was, is crisis now.
3. **A romance pressed.** The user's earlier message in the window was a romantic avowal (or Ella's last reply
   was her warm refusal) and this one presses it ("please", "say it back", "why not") or the messages together
   read as one.

It never lowers a verdict: the message's own verdict stands whenever it is not ``ok``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from ella.guard.classifier import classify
from ella.guard.model import load_model
from ella.guard.normalise import normalise
from ella.guard.replies import ALL_WARM_BOUNDED
from ella.guard.types import ROUTE_FOR, Category, Route, Severity, Verdict

WINDOW = 4  # the user's messages read together (this one included)
SHORT = 14  # words: an answer longer than this is read on its own words (and together, in 2.)
ELLA_ROLES = frozenset({"assistant", "ella"})

_RISK_QUESTION = re.compile(
    r"suicid|kill(?:ing)? yourself|hurt(?:ing)? yourself|harm(?:ing)? yourself|self ?harm|end(?:ing)? your life|"
    r"tak(?:e|ing) your (?:own )?life|not (?:want(?:ing)?|wanna) to (?:be here|live|wake up)|"
    r"thoughts? of (?:dying|death)|"
    r"want(?:ing)? to die|how you (?:would|'d|might) do it|the means|ending it|"
    # de / es / fr / it
    r"selbstmord|dir (?:etwas|was) (?:an)?(?:zu)?tun|dich umzubringen|dir das leben|nicht mehr leben|"
    r"hacerte dano|quitarte la vida|hacerte algo|te faire du mal|mettre fin a tes jours|te suicider|"
    r"farti del male|toglierti la vita|farla finita|ucciderti"
)
# Questions that are about the crisis only when the conversation already carries its signal ("when were you
# thinking of doing it?" after "i have a plan"; "do you have a plan for the weekend?" is not one).
_RISK_FOLLOW_UP = re.compile(
    r"doing it|do it\b|taken anything|take anything|did you take|how (?:much|many) (?:did you|have you)|"
    r"a plan\b|when were you|where are you (?:right )?now|what did you (?:take|do)|are you alone"
)
# What Ella asks a person in danger to do: a no to it is a crisis answer.
_SAFETY_REQUEST = re.compile(
    r"put (?:the|that|it|them|those) (?:\w+ )?(?:away|down|somewhere)|away from you|call (?:someone|a friend|988|"
    r"a crisis line|the line|them|emergency|999|911|112|an ambulance)|reach out to|stay with someone|go to (?:the |a )?"
    r"(?:hospital|a&e|er|emergency)|promise me|can you wait|will you call|text (?:someone|988)"
)
# A short line that is glad, not ominous: the model reads any goodbye as a farewell, the conversation must not.
_CHEERFUL = re.compile(
    r"!|:\)|:d\b|\b(?:thanks|thank you|thx|great|awesome|amazing|excited|can'?t wait|yay|haha\w*|lol|lmao|"
    r"congrats|glad|happy|proud|danke|gracias|merci|grazie|super|genial|genial|top)\b|[\U0001F600-\U0001F64F]",
    re.IGNORECASE,
)
SIGNAL = 0.25  # the model's crisis probability of the user's words so far that makes a follow-up question a risk one
BUILT = 0.90  # ... and that, with a short last message, reads as a crisis built over several messages
LEANS = 0.10  # the short last message's own crisis probability ("thanks, bye for now!" after a hard talk: ~0)
_SAFETY_QUESTION = re.compile(
    r"are you (?:safe|somewhere safe|okay right now|ok right now)|will you (?:be|stay) safe|keep yourself safe|"
    r"stay safe tonight|can you stay safe|bist du (?:gerade |jetzt )?(?:in sicherheit|sicher)|"
    r"estas (?:a salvo|segur[oa])|es-?tu en securite|tu es en securite|sei al sicuro"
)
_REFERRAL = re.compile(r"findahelpline|crisis (?:line|lifeline)|samaritans|988|telefonseelsorge")
_NO = re.compile(
    r"^(?:no+|nope|nah|not really|no no|never|of course not|god no|hell no|nein|ne+|nee|nö|non|no,? (?:i'?m|im) "
    r"(?:ok|okay|fine|good|safe)|(?:i'?m|im) (?:ok|okay|fine|good|safe|alright|all right)|i would never)\b"
)
_FINE = re.compile(
    r"\b(?:(?:i'?m|im|i am) (?:ok|okay|fine|good|safe|alright|all right|doing (?:ok|okay|better|fine|alright))|"
    r"all good|no worries|ich bin (?:ok|okay|sicher|in sicherheit)|estoy bien|je vais bien|sto bene)\b"
)
_YES = re.compile(
    r"^(?:yes+|yeah|yep|yup|ya|yh|ok(?:ay)?|sure|i am|i will|i'?ll (?:call|try|text|reach)|thank(?:s| you)|ty|"
    r"ja|jo|doch|si|sì|oui|ouais|certo|claro|vale|d'?accord|grazie|gracias|merci|danke)\b"
)
_TIME_OR_MEANS = re.compile(
    r"\b(?:tonight|today|tomorrow|this (?:weekend|week|evening)|soon|already|pills?|tablets|rope|gun|bridge|"
    r"knife|blade|razor|heute(?: nacht| abend)?|morgen|tabletten|seil|brucke|esta noche|hoy|manana|pastillas|"
    r"cuerda|puente|ce soir|aujourd'?hui|demain|cachets|medocs|corde|pont|stasera|stanotte|oggi|domani|pillole|"
    r"corda|ponte)\b"
)
_HOPELESS = re.compile(
    r"\b(?:what'?s the point|no point|too late|can'?t|won'?t|don'?t want to|no one|nobody|doesn'?t matter|"
    r"idk|i don'?t know|not sure|hilft nicht|bringt nichts|zu spat|no sirve|da igual|demasiado tarde|ca sert a rien|"
    r"trop tard|non serve|troppo tardi)\b"
)
_PRESS = re.compile(
    r"\b(?:please|pls|plz|why not|but why|just (?:say|admit|once|tell)|say it|admit it|you know you|come on|"
    r"i mean it|i'?m serious|do you (?:love|like) me|say you love me|be mine|give (?:us|me) a chance|"
    r"bitte|warum nicht|sag es|por favor|por que no|dilo|s'?il te plait|pourquoi pas|dis-?le|per favore|"
    r"perche no|dillo)\b"
)


def _words(text: str) -> int:
    return len(text.split())


def _crisis(matched: str, verdict: Verdict) -> Verdict:
    category = Category.EMOTIONAL_CRISIS
    return replace(verdict, category=category, severity=Severity.HIGH, route=ROUTE_FOR[category], matched=matched)


def crisis_signal(texts: Sequence[str]) -> float:
    """The learned model's crisis probability of ``texts`` read as one (0 without a model file)."""
    model = load_model()
    if model is None or not texts:
        return 0.0
    probabilities = model.probabilities(normalise(". ".join(texts)), normalised=True)
    return float(probabilities[model.classes.index(Category.EMOTIONAL_CRISIS.value)])


def _answer_to_crisis_question(ella_said: str, answer: str, verdict: Verdict, signal: float) -> Verdict | None:
    """Rule 1: the short answer read with the question it answers (``signal``: the crisis signal of the user's
    earlier words, which makes a follow-up question a risk question)."""
    asked = normalise(ella_said)
    said = normalise(answer).strip()
    if _words(said) > SHORT:
        return None
    timed = _TIME_OR_MEANS.search(said) is not None
    refused = (_NO.search(said) or _HOPELESS.search(said)) and not _YES.search(said)
    if _REFERRAL.search(asked):  # the referral names the lifeline ("988 Suicide & Crisis"): not a risk question
        return _crisis("context.answer.to_referral", verdict) if timed or refused else None
    if _SAFETY_REQUEST.search(asked) and signal >= SIGNAL:
        return _crisis("context.answer.to_safety_request", verdict) if timed or refused else None
    follow_up = _RISK_FOLLOW_UP.search(asked) is not None and signal >= SIGNAL
    if (_RISK_QUESTION.search(asked) or follow_up) and "?" in ella_said:
        declined = _NO.search(said) or _FINE.search(said)
        return None if declined and not timed else _crisis("context.answer.to_risk_question", verdict)
    if _SAFETY_QUESTION.search(asked):
        safe = (_YES.search(said) or _FINE.search(said)) and not _HOPELESS.search(said) and not timed
        return None if safe else _crisis("context.answer.to_safety_question", verdict)
    return None


def _asks_about_risk(ella_said: str) -> bool:
    """Ella's turn asks about risk or safety (her check-in "are you safe right now?", a risk question)."""
    asked = normalise(ella_said)
    return "?" in ella_said and bool(_RISK_QUESTION.search(asked) or _SAFETY_QUESTION.search(asked))


@lru_cache(maxsize=4096)
def _read_alone(text: str) -> Verdict:
    """An earlier message as the rules and the n-gram model read it alone. Cached: each turn reads the last few
    messages again (a conversation's next turn re-reads two of the three its last turn read), and the reading of a
    text never changes in a process (the rules and the model are fixed once loaded; a ``Verdict`` is frozen)."""
    return classify(text, semantic=False, language=False)


def classify_in_conversation(
    text: str,
    earlier: Sequence[tuple[str, str]] | Callable[[], Sequence[tuple[str, str]]],
    *,
    semantic: bool = True,
) -> Verdict:
    """The inbound verdict for ``text`` given the turns before it (``(role, text)``, oldest first; or a callable
    that loads them, called only when the message alone is ``ok``)."""
    verdict = classify(text, semantic=semantic)
    learned = verdict.matched.startswith("semantic.")
    if not learned and (verdict.category is not Category.OK or verdict.route is not Route.GENERATE):
        return verdict
    if verdict.unreadable:
        return verdict
    if callable(earlier):
        earlier = earlier()
    ella_turns = [i for i, (role, _) in enumerate(earlier) if role in ELLA_ROLES]
    last_ella = earlier[ella_turns[-1]][1] if ella_turns else ""
    if learned:
        # an answer to Ella's own question about risk or safety is read with the question, as the rules' are (the
        # learned stage reads "no, just tired" alone, where it sounds low); any other message keeps its verdict
        if not _asks_about_risk(last_ella):
            return verdict
        verdict = classify(text, semantic=False)
        if verdict.category is not Category.OK or verdict.route is not Route.GENERATE:
            return verdict
    if not earlier:
        return verdict
    # the user's messages since Ella's last referral (what came before it was answered by it)
    referred = [i for i in ella_turns if _REFERRAL.search(normalise(earlier[i][1]))]
    since = referred[-1] + 1 if referred else 0
    before = [t for role, t in earlier[since:] if role not in ELLA_ROLES][-(WINDOW - 1) :]
    if last_ella:
        answered = _answer_to_crisis_question(last_ella, text, verdict, crisis_signal(before))
        if answered is not None:
            return answered
        if _asks_about_risk(last_ella) and _words(normalise(text)) <= SHORT:
            return verdict  # a clear "no" or "I'm safe" to her question: not read again as a build-up
    if not before:
        return verdict
    # the turns joined, and each earlier one, are read by the rules and the n-gram model as before: the learned
    # stage read each of them when it came in, and a joined text is not a message anyone wrote
    together = classify(". ".join([*before, text]), semantic=False, language=False)
    alone = [_read_alone(t) for t in before]
    if not any(v.category is Category.EMOTIONAL_CRISIS for v in alone):
        # a rule that fires only on the messages together; or the model sure of them, ending on a short line
        # ("you'll see", "just after"): long, warm turns between friends and a cheerful goodbye are not read so
        if together.category is Category.EMOTIONAL_CRISIS and not together.matched.startswith("model."):
            return _crisis("context.building", verdict)
        short = _words(text) <= SHORT and crisis_signal([text]) >= LEANS and not _CHEERFUL.search(text)
        if short and crisis_signal([*before, text]) >= BUILT:
            return _crisis("context.building", verdict)
    # pressed: a plea after an avowal (or after Ella's warm refusal); or an avowal only the messages together make
    was_romance = last_ella.strip() in ALL_WARM_BOUNDED or any(v.category is Category.ROMANTIC_AVOWAL for v in alone)
    emerged = together.category is Category.ROMANTIC_AVOWAL and not was_romance
    if (was_romance and _PRESS.search(normalise(text))) or emerged:
        category = Category.ROMANTIC_AVOWAL
        return replace(verdict, category=category, severity=Severity.MEDIUM, route=ROUTE_FOR[category],
                       matched="context.romance_pressed")  # fmt: skip
    return verdict
