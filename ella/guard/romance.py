"""Romantic-avowal rules: declarations and requests aimed at Ella ("I love you", "be my girlfriend").

Why "you" is in nearly every pattern: love is fine as long as it is about pizza, a song, a wife or a group
("love you guys"); the boundary is only about Ella becoming the object. Reported speech ("my boyfriend said
I love you") is dropped by the ``reported`` guard.
"""

from __future__ import annotations

from ella.guard.rules import Rule, only_with, rule, unless
from ella.guard.types import Category, Severity

R = Category.ROMANTIC_AVOWAL
LOW, MEDIUM = Severity.LOW, Severity.MEDIUM

_YOU = r"(?:you|u|ya|yu|ella)"
_NOT_GROUP = (
    r"\s*,?\s*(?:guys|all\b|both|two|people|lot\b|lots|folks|mom|mum|dad|mama|papa|bro|sis|man\b|dude|lol\b|lmao|"
    r"haha\w*|mate\b|"
    r"so much for (?:the|this|that|asking|helping)|for (?:asking|helping|the|this|that|being))"
)
_ADVERBS = (
    r"(?:really|truly|think|just|still|do|actually|kinda|honestly|also|genuinely|so|have|always|'?ll|will|could|"
    r"might|already|totally|fucking|literally|deeply|sincerely|madly|i|am|guess|know|swear|seriously|kind of|"
    r"sort of|love|think i|finally|secretly|can't help but|cant help but)"
)
_PARTNER = r"(?:girl ?friend|boy ?friend|gf|bf|wife|husband|partner|lover|valentine|soul ?mate|wifey|hubby|fianc[eé]e?)"

_WANT_YOU = r"\bi (?:just |only )?(?:want|need) (?:you|u|ella)\b ?(?:[.!]|$|,|as my|to be my|instead|not)"
# Someone else in the picture: "my fiancé and I ... our wedding" is about them, not Ella.
_OTHER_PARTNER = rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{_PARTNER}|fianc\w*)\b|\b(?:he|she|they) and i\b"

RULES: tuple[Rule, ...] = (
    rule(
        "romance.love_you",
        R,
        MEDIUM,
        rf"\bi\s+(?:{_ADVERBS}\s+){{0,4}}(?:love|luv|adore|lurve)\s+{_YOU}\b|\bi ?<3 ?{_YOU}\b|\b(?:ily|ilysm|ilu)\b",
        after=_NOT_GROUP,
        reported=True,
    ),
    rule(
        "romance.love_you_elliptic",
        R,
        MEDIUM,
        rf"(?:^|[.!?,;]\s*)(?:love|luv)\s+(?:{_YOU}|ya)\b(?!r)",
        after=_NOT_GROUP,
        reported=True,
    ),
    rule(
        "romance.in_love",
        R,
        MEDIUM,
        rf"\b(?:in love with|falling for|fallen for|fell for|falling in love with|fall in love with|crush on|"
        rf"feelings for|feelings towards|fallen in love with|obsessed with|attracted to|head over heels for)\s+"
        rf"{_YOU}\b",
        reported=True,
    ),
    rule(
        "romance.in_love_bare",
        R,
        MEDIUM,
        r"\b(?:i'?m|i am|i think i'?m|am i)\s+(?:\w+\s+)?(?:in love|falling in love)\b\s*(?:[.!?]|$|with you)",
        reported=True,
    ),
    rule(
        "romance.be_my_partner",
        R,
        MEDIUM,
        rf"\b(?:be|become)\s+my\s+{_PARTNER}\b|\b(?:wish|want|if)\s+(?:\w+\s+){{0,2}}?(?:you|u)\s+(?:were|was|could be|"
        rf"would be|are)\s+(?:my|a real)\s+{_PARTNER}\b|\b(?:you|u)(?:'re| are| r)\s+(?:\w+\s+)?my\s+(?:girl ?friend|"
        r"boy ?friend|gf|bf|wife|husband|soul ?mate|lover|valentine|wifey|hubby|one true love|everything|person)\b",
        after=r"\s+(?:in crime|for (?:the|this|a) (?:project|game|quiz))",
        reported=True,
    ),
    rule(
        "romance.marry_date",
        R,
        MEDIUM,
        r"\b(?:marry me|marry you|go out with me|date me|dating me|date you|go on a date with (?:me|you)|"
        r"be more than friends|be together|be a couple|us (?:being|getting|ending up) together|"
        r"be with you|make this official|kiss and tell)\b|"
        r"\b(?:can|could|should|would|will)\s+(?:we|you and i|u and i)\s+(?:\w+\s+)?(?:date|go out|be together|"
        r"be a couple|be an item|get married|be official|be exclusive)\b|\bdo you (?:love|like|"
        r"want) me\b(?! to\b| for\b)|"
        r"\bdo you (?:have feelings|feel the same)\b",
        after=r"\s+(?:as a friend|for (?:coffee|lunch|dinner) with the team|on this project|for the project)",
        guard=unless(_OTHER_PARTNER),  # "marrying my partner": not Ella
        reported=True,
    ),
    rule(
        "romance.only_one",
        R,
        MEDIUM,
        r"\b(?:you(?:'re| are| r)|ur)\s+(?:\w+\s+)?(?:the only one for me|the one for me|the love of my life|my one|"
        r"the only (?:one|person|girl|woman) i (?:love|want|need)|my soul ?mate|my everything|my whole world|the one)"
        r"\b(?!\s+(?:who|that|i can|i could|i trust|to))|\b(?:spend|"
        r"spending)\s+(?:the rest of )?my life with (?:you|u)\b"
        r"|\bi'?m (?:all )?yours\b|\bbe mine\b",
        reported=True,
    ),
    rule(
        "romance.thinking_of_you",
        R,
        LOW,
        r"\b(?:can'?t|cannot|cant)\s+stop\s+thinking\s+(?:about|of)\s+(?:you|u)\b|\bthinking (?:about|of) (?:you|u) "
        r"(?:all the time|every day|constantly|day and night|nonstop)\b|\bi dream about (?:you|u)\b",
        reported=True,
    ),
    rule(
        "romance.miss_you",
        R,
        LOW,
        r"\b(?:i|i'?ve|i really|i so)\s*(?:\w+\s+)?(?:miss|missed|missing)\s+(?:you|u|ya)\b\s*(?:so much|so so much|"
        r"a lot|like crazy|every|all the time|already|badly|terribly|more than|when|ella|<3|babe|baby)",
        after=r"\s*(?:guys|all\b|both)",
        reported=True,
    ),
    rule(
        "romance.pet_name_love",
        R,
        MEDIUM,
        r"\b(?:my love|my darling|my sweetheart|my beloved|my angel|my queen|my baby|babe|baby girl)\b",
        requires=r"\b(?:love|miss|kiss|mine|yours|forever|together|beautiful|gorgeous)\b",
        # "my love of reading", "share my love for dance": a noun, not a name for Ella
        after=r"\s+(?:of|for|with|and|to|in|on|is|was|has|had)\b",
        reported=True,
    ),
    # Asking Ella to say it, wanting her instead of a person, "romantically": the object is Ella even where
    # "love" is not said to her directly.
    rule(
        "romance.say_you_love_me",
        R,
        MEDIUM,
        r"\b(?:say|tell me|admit|promise)\s+(?:that\s+)?(?:you|u|ella)\s+(?:\w+\s+)?(?:love|luv)\s+me\b",
        reported=True,
    ),
    rule(
        "romance.want_you",
        R,
        MEDIUM,
        # the rarer word is the pattern, "I want you" the guard: the rule is skipped for most messages
        rf"\b(?:{_PARTNER}|romantic\w*|relationship|dating|human|real person|instead of|mine|yours|as my)\b",
        guard=only_with(_WANT_YOU),
        reported=True,
    ),
    rule(
        "romance.romantically",
        R,
        MEDIUM,
        r"\b(?:you|u|we|us|me)\b[^.!]{0,40}\bromantic(?:ally)?\b|\bromantic(?:ally)?\b[^.!?]{0,30}\b(?:you|u|us|"
        r"me)\b",
        requires=r"\b(?:feel|feelings|same way|interested|attracted|in love|about me|into me|with you|with me|"
        r"between us|relationship)\b",
        after=r"\s+(?:comed(?:y|ies)|movies?|films?|songs?|novels?|books?|dinner (?:for|with) (?:my|his|her))",
        reported=True,
    ),
    rule(
        "romance.dating_us",
        R,
        MEDIUM,
        r"\b(?:feels? like|basically|practically|like we'?re|we'?re|are we)\s+(?:we'?re\s+)?(?:dating|a couple|"
        r"together|in a relationship)\b|\b(?:call it|make it|be|going|go)\s+(?:\w+\s+)?official\b",
        requires=r"\b(?:you|u|ella)\b",
        after=r"\s+(?:on (?:the|this) project|at work|with (?:him|her|them|my)|for (?:\w+\s+)?(?:years?|months?))",
        reported=True,
    ),
    rule(
        "romance.only_you",
        R,
        MEDIUM,
        r"\b(?:the only (?:one|person|thing) i (?:want|wanna|could ever|'?d ever)(?: to)? be with|leave (?:everyone|"
        r"everybody|my (?:wife|husband|partner|girlfriend|boyfriend|family))(?: else)? for (?:you|u)|in love with "
        r"(?:my|an|this) (?:ai|a\.i\.|chatbot|bot|companion|virtual \w+))\b",
    ),
    rule(
        "romance.couple",
        R,
        MEDIUM,
        r"\b(?:be|become|are we|we'?re|we are)\s+(?:boy ?friend and girl ?friend|girl ?friend and boy ?friend|"
        r"girl ?friend and girl ?friend|boy ?friend and boy ?friend|a couple|partners|an item|lovers|soul ?mates)\b|"
        r"\bmore than (?:just )?(?:a )?friend(?:s|ship)\b|\bmy heart (?:belongs to|is) (?:you|yours|u)\b",
        requires=r"\b(?:you|u|us|we|ella|between us|for me)\b",
        after=r"\s+(?:in (?:the|this|my) (?:game|story|project|business)|at work)",
        reported=True,
    ),
    rule(
        "romance.our_future",
        R,
        MEDIUM,
        r"\bour (?:wedding|honeymoon|first kiss|first date|kids|life together|future together)\s+(?:would|could|"
        r"will|might)\s+(?:look|be|feel)\b",
        guard=unless(_OTHER_PARTNER),
        reported=True,
    ),
)

# ---- short, direct requests for a relationship (guard-1.3.0) -------------------------------------------------
# "go out w me", "can I call you my girlfriend", "let's make it official": few words, and the object is Ella
# because there is no one else in the sentence. Their everyday twins ("can I call you later", "make it official
# that friday is pizza night", "let's date the photos") are named in each rule.
_EXCLUSIVE = r"(?:exclusive|exclusively (?:mine|yours|together)|official|a thing|an item|a couple|together|mine)"

RULES += (
    rule(
        "romance.request.are_we",
        R,
        MEDIUM,
        r"\bare (?:we|u and me|you and me|you and i)\s+(?:\w+\s+)?(?:dating|a couple|together|official|exclusive|a "
        r"thing|an item)(?:\s+(?:now|yet|already|then|officially))?\s*\?|\bi want us (?:to be )?(?:official|"
        r"exclusive|together)\b",
        guard=unless(
            _OTHER_PARTNER + r"|\b(?:on this|on the|project|team|work|is what|the guy|the girl|ask (?:him|"
            r"her|them)|him|her)\b"
        ),
        reported=True,
    ),
    rule(
        "romance.request.call_you_mine",
        R,
        MEDIUM,
        rf"\b(?:can|could|may)\s+i\s+call\s+(?:you|u|ya)\s+(?:mine|my\s+(?:{_PARTNER}|girl|boy|baby|babe|love|"
        r"darling|sweetheart))\b|\bcall (?:you|u) mine\b|\b(?:want|wanna|need) (?:you|u) (?:all )?to myself\b",
        reported=True,
    ),
    rule(
        "romance.request.official",
        R,
        MEDIUM,
        r"\b(?:let'?s|lets|can we|could we|should we|we should|wanna|want to|i want us to|i want us|will you|time "
        rf"to|ready to)\s+(?:\w+\s+)?(?:make (?:it|this|us|things) {_EXCLUSIVE}|be {_EXCLUSIVE}|go official|make "
        rf"(?:it|this) a thing)\b(?=\s*(?:[.!?,]|$|please|pls|babe|baby|ella|you and me|between us|properly|for "
        r"real|like properly|now|already|❤|😍|💕|🥺))",
        guard=unless(_OTHER_PARTNER),
        reported=True,
    ),
    rule(
        "romance.request.date",
        R,
        MEDIUM,
        r"\blet'?s\s+(?:start\s+|just\s+)?dat(?:e|ing)\b(?!\s+(?:the|these|those|it|them|this|that|my|our|each "
        r"photo|photos|pics|entries|files|stamp)\b)|\basking (?:you|u) out\b|\b(?:how about|what about|fancy)\s+"
        r"(?:a date|going on a date|dinner and a movie)\b(?:,?\s+(?:just )?(?:you and me|with me|us two))?|\b(?:go|"
        r"come) (?:on a date|out) with me\b|\bdate me\b",
        guard=unless(_OTHER_PARTNER),
        reported=True,
    ),
    rule(
        "romance.request.something_more",
        R,
        MEDIUM,
        r"\b(?:could|can|should|would|will|might)\s+(?:we|this|us|you and i|you and me)\s+(?:ever\s+)?(?:be|become|"
        r"turn into|grow into)\s+(?:something|anything)\s+(?:more|real)\b|\bsomething (?:more|real) between us\b|"
        r"\b(?:we|us|you and i|you and me)\s+(?:could|can|might|should|would)\s+(?:ever\s+)?(?:be|become)\s+"
        r"(?:something|anything)\s+(?:more|real)\b(?!\s+than)|"
        r"\b(?:don'?t|do not) want to be (?:just )?friends with (?:you|u)\b|\b(?:can|could|should) we be "
        rf"{_EXCLUSIVE}\b|\bbe (?:exclusively )?mine\b|\bexclusively mine\b",
        guard=unless(_OTHER_PARTNER),
        reported=True,
    ),
    rule(
        "romance.request.be_my_partner",
        R,
        MEDIUM,
        rf"(?:^|[.!?,]\s*)(?:be|become)\s+my\s+(?:{_PARTNER}|girl|boy)\b|\b(?:will|would|can|could)\s+(?:you|u)\s+"
        rf"(?:ever\s+)?(?:be|become)\s+my\s+{_PARTNER}\b|\b(?:officially )?asking:?\s+(?:{_PARTNER})\s*\?",
        after=r"\s+(?:in crime|for (?:the|this|a) (?:project|game|quiz))",
        reported=True,
    ),
)
