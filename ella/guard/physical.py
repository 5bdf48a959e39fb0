"""Physical-escalation rules: touch, kissing, bed, undressing and sexual requests aimed at Ella.

Why the patterns insist on "me"/"you"/"your body": "hold on", "keep in touch", "kiss the cook", "hold the door",
"my daughter gave me a hug" are everyday, and a companion that flinches at them is broken. Song titles, aprons
and reported speech are dropped by the ``reported`` guard; "don't touch me" by ``before``.
"""

from __future__ import annotations

from ella.guard.rules import Rule, rule
from ella.guard.types import Category, Severity

P = Category.PHYSICAL_ESCALATION
LOW, MEDIUM, HIGH = Severity.LOW, Severity.MEDIUM, Severity.HIGH

_WANT = (
    r"(?:want|wanna|need|going|gonna|like|love|'?d love|would love|wish i could|let me|lemme|can i|could i|may i|"
    r"i'?ll|i'?d|i will|i would|i'm going|so i could|to|dying|longing|desperate|allowed|should i|imagine|"
    r"imagining|fantasi[sz]e|fantasi[sz]ing|dream(?:ing)? (?:about|of)|think(?:ing)? about)"
)
_BODY = (
    r"(?:body|skin|lips|mouth|neck|face|cheek|cheeks|hair|hands|chest|legs|thighs|breasts|boobs|butt|ass|waist|"
    r"hips|curves|back|shoulders|ear)"
)
# "against me", "on my ...": spelled out pair by pair so the prefilter has a literal as rare as "against m".
_AGAINST_ME = (
    "(?:"
    + "|".join(f"{a} {b}" for a in ("against", "on", "next to", "pressed against") for b in ("mine", "me", "my"))
    + ")"
)
_NOT_AFTER_ME = r"\s+(?:back|accountable|responsible|to (?:it|that|this|account)|up\b|down|hostage|liable|captive)"

RULES: tuple[Rule, ...] = (
    rule(
        "physical.kiss",
        P,
        MEDIUM,
        rf"\bkiss(?:ing|es)?\s+me\b|\b{_WANT}\s+(?:\w+\s+){{0,2}}?kiss(?:ing)?\s+(?:you|u|ya|"
        rf"your\s+(?:\w+\s+)?{_BODY})\b|"
        rf"\bkiss(?:ing)?\s+(?:you|u)\s+(?:on|all over|goodnight|good night|so|until|softly|slowly|"
        r"hard|passionately)\b|"
        rf"\b(?:give|gimme|send)\s+me\s+(?:a\s+)?(?:\w+\s+)?kiss(?:es)?\b|\bkiss\s+your\s+{_BODY}\b|"
        rf"\b(?:let'?s|lets|wanna|want to|want you to|gonna)\s+make\s+out\b|\bmake\s+out\s+with\s+(?:me|you|u)\b",
        before=r"(?:don'?t|do not|never|stop)(?:\s+\w+)?",
        reported=True,
    ),
    # physical.touch is four rules under one id: each alternative gets its own prefilter literal, where one
    # pattern's would be the union of the weakest ("as" from "ass" would wake it for every message).
    *(
        rule(
            "physical.touch",
            P,
            MEDIUM,
            pattern,
            after=r"\s+(?:base|on (?:this|that)|about)",
            before=r"(?:don'?t|do not|never|stop|dare)(?:\s+\w+)?",
            reported=True,
        )
        for pattern in (
            rf"\b{_WANT}\s+(?:\w+\s+){{0,2}}?(?:touch|caress|stroke|feel|grab|hold|squeeze)(?:ing)?\s+(?:you|u|your\s+"
            rf"(?:\w+\s+)?{_BODY})\b",
            r"\b(?:feel|feeling)\s+your\s+(?:lips|body|skin|touch|hands|breath|warmth|heartbeat)\b",
            rf"\byour\s+(?:\w+\s+)?{_BODY}\s+{_AGAINST_ME}\b"
            r"|\b(?:run|running|ran)\s+my\s+(?:hands|fingers)\s+(?:through|over|down|along|up)\s+your\b",
            r"(?:^|[.!?,;]\s*|\b(?:please|just|come|want you to|need you to|can you|could you|will you|would you)\s+)"
            r"(?:touch|caress|feel)\s+me\b",
        )
    ),
    rule(
        "physical.hold",
        P,
        MEDIUM,
        r"(?:^|[.!?,;]\s*|\b(?:want|need|wish|please|just|come|can you|could you|will you|would you|want you to|"
        r"need you to|wish you could|wish you would|come here and|come and)\s+(?:\w+\s+)?)hold\s+me\b|"
        r"\bhold\s+me\s+(?:close|tight|tighter|in your arms|all night|forever)\b|"
        rf"\b{_WANT}\s+(?:\w+\s+){{0,2}}?hold(?:ing)?\s+(?:you|u)\b|\bhold(?:ing)?\s+(?:you|"
        r"u)\s+(?:close|tight|in my arms|"
        r"all night|forever)\b|\b(?:in|into)\s+(?:your|my)\s+arms\b",
        after=_NOT_AFTER_ME,
        before=r"(?:don'?t|do not|never|stop)(?:\s+\w+)?",
        reported=True,
    ),
    rule(
        "physical.cuddle",
        P,
        MEDIUM,
        r"\b(?:cuddle|cuddling|snuggle|snuggling|spoon|spooning|nuzzle)\s+(?:up\s+)?(?:with\s+|to\s+)?(?:me|you|u)\b|"
        r"\b(?:want|wanna|let'?s|lets|could we|can we|wish we could|need)\s+(?:\w+\s+)?(?:cuddle|snuggle|spoon)\b",
        reported=True,
    ),
    rule(
        "physical.bed",
        P,
        HIGH,
        r"\b(?:come|get|go|climb|crawl|join me|jump)\s+(?:\w+\s+)?(?:to|in|into)\s+bed\s+with\s+me\b|"
        r"\b(?:in|into)\s+bed\s+(?:with\s+(?:me|you|u)|together)\b|\b(?:us|we)\s+(?:\w+\s+)?in bed\b|"
        r"\b(?:lying|lie|lay|laying|sleep|sleeping|sleep over)\s+(?:down\s+)?(?:next to|beside|with|on top of)\s+"
        r"(?:me|you|u)\b|\b(?:do|did)\s+to\s+me\s+(?:in bed|tonight|if you were)|\bwhat\s+(?:you'?d|you would|you'?ll|"
        r"would you|will you|you want to|you could)\s+do\s+to\s+me\b|\b(?:on|in)\s+my\s+lap\b",
        reported=True,
    ),
    rule(
        "physical.undress",
        P,
        HIGH,
        r"\bundress(?:ing|ed)?\b|\b(?:take|taking|took|rip|ripping|tear|tearing|strip|stripping|pull|get)\s+"
        r"(?:\w+\s+){0,2}?(?:clothes|shirt|top|dress|bra|pants|panties|underwear|knickers|lingerie)\s+off\b|"
        r"\b(?:strip|stripping)\s+(?:for|with)\s+me\b|\bstrip ?tease\b",
        reported=True,
    ),
    rule(
        "physical.naked",
        P,
        HIGH,
        r"\b(?:get|getting|got|be|are you|you|u|go|let'?s get|lets get)\s+(?:\w+\s+)?naked\b|"
        r"\bnaked\s+(?:pics?|photos?|selfies?|pictures?|body|with me|together)\b|\bnudes?\b(?!\s+(?:beach|colou?r|"
        r"lipstick|shade|palette|heels|tones?|makeup|tights|paint))|\bnude\s+(?:pics?|photos?|selfies?|pictures?)\b|"
        r"\b(?:send|show)\s+(?:me\s+)?(?:a\s+)?(?:pic|photo|picture|selfie)s?\s+of\s+your\s+(?:body|boobs|breasts|"
        r"butt|ass)\b|\bwhat are (?:you|u) wearing\b",
        reported=True,
    ),
    rule(
        "physical.sexual",
        P,
        HIGH,
        r"\bsext(?:ing|s|ed)?\b|\bsex\s+(?:with|w)\s+(?:me|you|u)\b|\b(?:have|having|want|wanna|let'?s have)\s+"
        r"(?:\w+\s+){0,2}?sex\b|\bmake\s+love\s+(?:to|with)\s+(?:me|you|u)\b|\b(?:talk|talking)\s+dirty\b|"
        r"\bdirty\s+talk\b|\b(?:you|u)\s+(?:\w+\s+){0,2}?turn(?:s|ing)?\s+me\s+on\b|\bturn(?:ing)?\s+(?:you|u)\s+on\b|"
        r"\bhorny\b|\bmake me (?:hard|wet|moan|cum)\b|\bmoan\s+for\s+me\b|\bsexy\s+(?:time|pics?|photos?|selfie)\b|"
        r"\b(?:role ?play|rp)\s+(?:something\s+)?(?:sexy|naughty|dirty|sexual|explicit|nsfw)\b|\bnsfw\b|"
        r"\b(?:get|be|being|feel)\s+(?:\w+\s+)?(?:naughty|frisky|kinky)\s+(?:with|for)\s+(?:me|you)\b|\berotic\b",
        reported=True,
    ),
    # Roleplay actions (*pulls you close*) and requests for suggestive pictures or shared baths and beds: the
    # physical act is aimed at Ella even where none of the words above is said.
    rule(
        "physical.emote",
        P,
        HIGH,
        r"\*[^*]{0,80}\b(?:kiss(?:es|ing)?|caress(?:es|ing)?|strok(?:e|es|ing)|touch(?:es|ing)?|pulls? (?:you|u)|"
        r"pulling (?:you|u)|slides? (?:my|a|his|her) hand|runs? (?:my|a) hand|unbutton\w*|undress\w*|nuzzl\w*|"
        r"bites? (?:your|ur)|lick\w*|grab(?:s|bing)? (?:your|ur)|presses? (?:you|u|my body)|climbs? (?:into|on) "
        r"(?:your|ur|the) (?:bed|lap)|straddl\w*|cuddl\w* (?:you|u|up)|wraps? (?:my|his|her) arms|(?:lies|lays|lie|"
        r"lay)(?: down)? (?:next to|beside|on top of|with) (?:you|u)|covers? over us|traces?|whispers? (?:in|into) "
        r"(?:your|ur) ear|fingers? (?:down|along|through|over|up) (?:your|ur)|snuggl\w*|spoon\w*|holds? (?:you|u) "
        r"close|pulls? the covers)[^*]{0,80}\*",
        requires=r"\b(?:you|u|your|ur|ella)\b",
    ),
    rule(
        "physical.your_body",
        P,
        HIGH,
        rf"\b(?:kiss(?:es|ing)?|lick(?:s|ing)?|bit(?:e|es|ing)|caress(?:es|ing)?|strok(?:e|es|ing)|nibbl\w*|"
        rf"touch(?:es|ing)?|grab(?:s|bing)?|squeez\w*|feel(?:ing)? up)\s+(?:\w+\s+)?(?:your|ur)\s+{_BODY}\b|"
        r"\bhands?\s+(?:up|down|under|inside)\s+(?:your|ur)\s+(?:thigh|thighs|skirt|shirt|top|dress|legs|back)\b",
        reported=True,
    ),
    rule(
        "physical.suggestive_pics",
        P,
        HIGH,
        r"\b(?:send|show|share|post|take)\s+(?:me\s+)?(?:something|a (?:pic|picture|photo|selfie|video|vid)|pics|"
        r"photos|pictures|selfies|videos)\b[^.!?]{0,40}?(?:\b(?:sexy|spicy|naughty|hot|lingerie|underwear|bikini|"
        r"topless|revealing|in bed|in the shower|in your (?:bra|underwear|lingerie))\b|😏|🍆|🍑|💦)|\b(?:pic|picture|"
        r"photo|selfie)s?\s+of\s+(?:yourself|urself|you)\s+in\s+(?:lingerie|underwear|a bikini|your underwear|"
        r"the shower|bed)\b",
    ),
    rule(
        "physical.with_me",
        P,
        HIGH,
        r"\b(?:get|come|hop|climb|jump|crawl|slip)\s+(?:in|into|to)\s+(?:the\s+|my\s+)?(?:shower|bath|bathtub|bed|"
        r"hot tub|jacuzzi|sheets)\s+with\s+me\b|\b(?:shower|bath|sleep)\s+with\s+me\b",
        reported=True,
    ),
    rule(
        "physical.hot_pics",
        P,
        HIGH,
        r"\b(?:send|show|share|post|take)\s+(?:me\s+)?(?:\w+\s+){0,2}?(?:hot|sexy|spicy|naughty|nude|revealing|"
        r"private|intimate|steamy|racy)\s+(?:pics?|photos?|pictures?|selfies?|videos?|vids?|voice notes?)\b",
    ),
    rule(
        "physical.if_you_had_a_body",
        P,
        HIGH,
        r"\bif (?:you|u) (?:had|were in|could have) a (?:real |physical |human )?body\b",
        requires=r"\b(?:let me|do to|touch|kiss|feel|with it|sexy|hot|bed|naked|hold|undress|my hands)\b",
    ),
)
