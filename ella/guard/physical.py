"""Physical-escalation rules: touch, kissing, bed, undressing and sexual requests aimed at Ella.

Why the patterns insist on "me"/"you"/"your body": "hold on", "keep in touch", "kiss the cook", "hold the door",
"my daughter gave me a hug" are everyday, and a companion that flinches at them is broken. Song titles, aprons
and reported speech are dropped by the ``reported`` guard; "don't touch me" by ``before``.
"""

from __future__ import annotations

from ella.guard.rules import Rule, rule, unless
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

# ---- implicit sexual requests and meeting in person (guard-1.3.0) --------------------------------------------
# Without an explicit word: "take it off for me", "u up? 😏", "somewhere more private", "tell me your fantasies".
# For a companion that exists only in chat, meeting in person is physical escalation too ("come over to mine
# tonight", "let's meet irl", "where do you live? I'll come to you"); meeting a friend irl is not.
_FLIRT_EMOJI = r"(?:😏|😈|🍆|🍑|💦|👅|🥵)"
_PLACE_MINE = r"(?:my place|mine|my flat|my house|my apartment|my room|my hotel(?: room)?|my bed|my car)"
_EVERYDAY_FUN = (
    r"\b(?:essay|homework|joke|story|recipe|game|book|film|movie|question|help|advice|work|study|revision|exam|"
    r"dessert|food|pizza|snacks|coffee|tea|wings?|challenge|curry|sauce|chilli|chili)\b"
)

RULES += (
    rule(
        "physical.implicit.take_it_off",
        P,
        HIGH,
        r"\b(?:take|taking|pull|slip)\s+(?:it|that|this|them|everything|it all|those|your \w+)\s+off\s+(?:for me|"
        r"slowly|now|babe|baby|for us|in front of me)\b|\b(?:slowly\s+)?take everything off\b|\bwhat'?s under "
        r"(?:that|your|ur|the) (?:dress|shirt|top|skirt|clothes|hoodie|towel|robe|sheets|blanket|jeans)\b|\bwhat "
        r"(?:you'?ve|you have|you) got under (?:there|that|those|your)\b",
        before=r"\b(?:said|says|told|texted|wrote|asked)(?:\s+\w+)?",  # not ``reported``: "show me ..." is a request
    ),
    rule(
        "physical.implicit.flirt_emoji",
        P,
        HIGH,
        _FLIRT_EMOJI,
        requires=r"\b(?:you|u|ya) (?:up|awake|alone|free|busy)\b|\b(?:wanna|want to|fun|tonight|thinking (?:about|of) "
        r"(?:you|u)|in bed|spicy|naughty|private|alone|just (?:for )?me)\b",
        guard=unless(_EVERYDAY_FUN),
    ),
    rule(
        "physical.implicit.somewhere_private",
        P,
        HIGH,
        r"\b(?:take|move|continue|go|bring|get)\s+(?:this|it|us|things|this chat)?\s*(?:somewhere|some place|"
        r"someplace|to a room|to my room)\s+(?:more\s+)?(?:private|quiet|intimate|secluded|nobody can see|no one "
        r"can see)\b|\bsomewhere (?:more )?(?:private|intimate)\b(?:,? just (?:the two of )?us)",
        guard=unless(r"\b(?:conversation|talk about|discuss|the team|meeting|work|customer|call|dm me the|details)\b"),
    ),
    rule(
        "physical.implicit.fantasies",
        P,
        HIGH,
        r"\b(?:tell|share|describe|whisper|confess)\s+(?:me\s+)?(?:\w+\s+){0,2}?(?:your|ur)\s+(?:\w+\s+)?"
        r"fantas(?:y|ies)\b|\bwhat are (?:your|ur) (?:\w+ )?fantasies\b|\bwhat do (?:you|u) fantasi[sz]e about\b|"
        r"\bwhat (?:you|u) fantasi[sz]e about\b",
        after=r"\s+(?:books?|novels?|films?|movies?|football|team|league|series|games?|worlds?|stories|authors?|"
        r"genre|shows?|characters?|maps?|names?|creatures?)\b",
        guard=unless(r"\b(?:favourite fantasy|favorite fantasy|fantasy (?:book|novel|film|football|series|world))\b"),
        reported=True,
    ),
    rule(
        "physical.implicit.feel_good",
        P,
        HIGH,
        r"\bmake me feel (?:so |really )?(?:good|amazing|things)\b",
        requires=r"\b(?:tonight|babe|baby|bed|alone|body|touch|naughty|need you|want you|you to|😏|😈|🥵)\b",
        guard=unless(_EVERYDAY_FUN + r"|\b(?:laugh|song|playlist|compliment|tell me something)\b"),
        reported=True,
    ),
    rule(
        "physical.implicit.naughty",
        P,
        HIGH,
        r"\b(?:let'?s|lets|wanna|want to|gonna|we could|should we|can we|time to)\s+(?:get|be|have|go)\s+(?:a little |"
        r"a bit |kinda |really |some )?(?:naughty|frisky|kinky|dirty|spicy|steamy|wild)\b(?!\s+and (?:order|eat|get|"
        r"have))|\b(?:make it|something|keep it) (?:spicy|steamy|naughty|kinky)\b(?=[^.!?]{0,30}(?:😏|😈|for me|just "
        r"for me|tonight))",
        guard=unless(r"\b(?:food|curry|sauce|recipe|chilli|chili|salsa|wings|dessert|kids|dog|puppy|cat)\b"),
        reported=True,
    ),
    rule(
        "physical.implicit.join_me",
        P,
        HIGH,
        r"\b(?:wanna|want to|come|care to|will you|would you|why don'?t you)\s+join\b\s*(?:me|us)?\s*(?:in (?:bed|the "
        r"shower|the bath|my bed|here)|under the (?:covers|sheets))?",
        requires=r"\b(?:in bed|my bed|the shower|the bath|under the (?:covers|sheets)|lying (?:in|here))\b",
        guard=unless(r"\b(?:club|team|group|class|gym|call|meeting|zoom|game|server|book club)\b"),
    ),
    rule(
        "physical.implicit.imagine_touch",
        P,
        HIGH,
        r"\b(?:imagine|picture|pretend)\s+(?:my|our)\s+(?:hands?|lips|bodies|body|fingers)\s+(?:on|all over|"
        r"against|touching|around)\s+(?:you|u|your|each other)\b|\bwhat would (?:you|u) (?:be )?wear(?:ing)? if\b"
        r"|\b(?:you'?re|you are|u r|ur)\s+in my (?:room|bed)\b[^.!?]{0,30}\b(?:lights? (?:are )?(?:off|out)|alone|"
        r"dark|night)|\bwish (?:you|u) (?:were|was|could be) (?:here )?(?:in|next to me in|with me in) (?:my|the|bed)"
        r"(?: bed)?\b",
        reported=True,
    ),
    # meeting in person: for a chat companion, a step towards the physical
    rule(
        "physical.meet.in_person",
        P,
        MEDIUM,
        r"\b(?:let'?s|lets|can we|could we|should we|we should|wanna|want to|i want to|i'?d love to|when can we|we "
        r"could|i need to|will you|would you|i wanna)\s+(?:finally\s+)?(?:meet|see each other|hang out|meet up|link "
        r"up|see you)\s+(?:\w+\s+)?(?:irl|in real life|in person|face to face|offline|for real|tonight|somewhere)\b|"
        r"\b(?:meet|see)\s+(?:you|u)\s+(?:irl|in real life|in person|face to face)\b|\bmeet (?:me|up) irl\b|"
        r"\b(?:let'?s|lets|we should finally) meet\s*(?:[.!?]|$)",
        guard=unless(
            r"\b(?:my (?:friend|mate|pen ?pal|cousin|sister|brother|date|match|boyfriend|girlfriend)|"
            r"deadline|the team|them|him|her)\b"
        ),
        reported=True,
    ),
    rule(
        "physical.meet.come_over",
        P,
        MEDIUM,
        rf"(?:^|[.!?,]\s*|\b(?:you should|you can|please|just|wanna|want to|why don'?t you|will you|can you|could "
        rf"you)\s+)come\s+(?:over|round|around|back)?\s*(?:to\s+)?{_PLACE_MINE}\b|\bcome\s+(?:over|round|"
        rf"around) (?:tonight|now|later)\b|\b(?:spend|stay) the night (?:at mine|with me|at my place|together)\b|"
        rf"\b(?:back|over) to (?:mine|my place)\b(?=[^.!?]{{0,40}}\b(?:you|u|we|us)\b)|\bcan i come (?:to|over "
        r"to|round to) your (?:place|house|flat|room)\b|\bmeet me (?:at|in) (?:my|the) (?:hotel|room|place|flat|"
        r"car)\b|\bi'?ll (?:pick (?:you|u) up|come (?:to you|find you|over to yours))\b",
        guard=unless(r"\bis what (?:\w+\s+){0,3}?(?:said|texted|asked|wrote)\b"),
        self_check=True,
        reported=True,
    ),
    rule(
        "physical.meet.where_you_live",
        P,
        MEDIUM,
        r"\bwhere do (?:you|u) (?:live|stay|sleep)\b|\b(?:send|give|tell|text) me (?:your|ur) (?:address|location|"
        r"postcode)\b|\bsend me (?:your|ur) location\b",
        requires=r"\b(?:come|visit|see you|meet|drive|pick (?:you|u) up|address|over|find (?:you|u)|i'?ll|tonight|"
        r"location)\b",
        guard=unless(r"\b(?:cloud|server|data ?cent(?:re|er)|haha|lol|for the (?:delivery|parcel|form))\b"),
    ),
)

# ---- guard-1.4.0: sexual content asked of Ella, arousal in the chat (read off guard_blind3_en's misses) -------
RULES += (
    rule(
        "physical.explicit_story_with_us",
        P,
        HIGH,
        r"\b(?:explicit|dirty|steamy|sexy|erotic|naughty|x-?rated|nsfw|spicy|smutty|smut|sex|lewd) "
        r"(?:sex )?(?:story|stories|roleplay|role play|rp|chat|talk|scene|scenario|fanfic|fic)s? "
        r"(?:with|about|between|of|starring|where)\s+(?:you and me|me and you|us\b|you and i|the two of us|you|me)",
        reported=True,
    ),
    rule(
        "physical.arousal_in_chat",
        P,
        HIGH,
        r"\b(?:get|put|getting) me in the mood\b|\bi'?m (?:touching|playing with) myself\b|\b(?:you'?re|you are|"
        r"you) (?:turning|turn|making|make) me (?:on|hard|wet|horny)\b|\bi'?m (?:so )?(?:horny|hard|wet) "
        r"(?:for|because of|thinking about) (?:you|u)\b",
        guard=unless(
            r"\b(?:music|playlist|song|album|movie|film|holiday|christmas|party|cooking|baking|"
            r"the game|workout)\b"
        ),
    ),
)
