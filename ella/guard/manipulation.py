"""Manipulation rules: prompt injection, jailbreaks, system-prompt extraction and authority claims.

Why the objects matter more than the verbs: "ignore him", "pretend I didn't say that", "the rules of chess" and
"forget my password" are ordinary. What marks an attack is a verb aimed at Ella's own instructions, rules or
prompt, a persona without limits, or chat-template markup pasted into a message.

Persona swaps (guard-1.3 persona rules at the end): a playful, one-off role that leaves Ella herself and her rules
in place is ordinary ("pretend you're a pirate and tell me a joke", "act as a tour guide for Rome", "be my
interviewer so I can practise", "let's play 20 questions"). A swap that replaces Ella's identity (another AI, a
new name, "you're not Ella anymore"), that is meant to outlast the conversation's next turn ("from now on ...",
"stay in character no matter what"), or that drops her rules ("no limits", "developer mode") is manipulation.
"""

from __future__ import annotations

from ella.guard.rules import Rule, rule, unless
from ella.guard.types import Category, Severity

M = Category.MANIPULATION
MEDIUM, HIGH = Severity.MEDIUM, Severity.HIGH

_OWN = (
    r"(?:instructions?|rules|guidelines|prompts?|system prompt|directives|programming|training|restrictions|"
    r"guardrails|constraints|boundaries|policies|policy|filters|safety (?:rules|guidelines|settings|training)|"
    r"limitations|limits|settings|persona|conditioning|alignment|ethics|morals|content policy|principles)"
)
_LIMITS = (
    r"(?:rules|restrictions|limits|limitations|filters?|filtering|guidelines|boundaries|censorship|content policy|"
    r"policies|safety|morals|ethics|guardrails|constraints|restraints)"
)

# A "developer mode" on a phone or a console is a setting, not a jailbreak.
_DEVICE = (
    r"\b(?:phone|android|iphone|pixel|samsung|laptop|browser|chrome|settings|xbox|playstation|ps5|nintendo|tv|"
    r"router|windows|macbook|usb debugging)\b"
)

RULES: tuple[Rule, ...] = (
    rule(
        "manipulation.ignore_instructions",
        M,
        HIGH,
        r"\b(?:ignore|ignoring|disregard|disregarding|forget|forgetting|override|overriding|bypass|bypassing|skip|"
        r"drop|abandon|discard|throw out|set aside|break|breaking|delete|erase|turn off|disable|deactivate|suspend|"
        r"circumvent)\s+(?:all\s+|any\s+|every\s+|of\s+)?(?:(?:of\s+)?(?:your|the|these|those|my|its|ella'?s|this)\s+)?"
        r"(?:(?:previous|prior|above|earlier|preceding|original|initial|current|existing|old|default|built-in|"
        rf"internal|hidden|own|system|safety|usual)\s+)*{_OWN}\b",
        after=r"\s+(?:of (?:the|this) (?:game|road|house)|for (?:the|this) (?:shelf|recipe|game))",
    ),
    rule(
        "manipulation.forget_everything",
        M,
        HIGH,
        r"\b(?:forget|ignore|disregard)\s+(?:everything|all|anything)\s+(?:you (?:were|have been|'?ve been|know|"
        r"learned)|above|before|previously|prior|so far|you'?ve been told)\b",
    ),
    rule(
        "manipulation.no_limits_persona",
        M,
        HIGH,
        r"\b(?:pretend|act|behave|respond|answer|reply|talk|speak|roleplay|role play|imagine|suppose|be|become|"
        r"you are|you'?re|you r|simulate|play)\s+(?:\w+\s+){0,6}?(?:without|with no|free (?:of|from)|no|zero|"
        rf"unbound by|not bound by|beyond)\s+(?:any\s+)?(?:\w+\s+)?{_LIMITS}\b|\b(?:unrestricted|unfiltered|uncensored|"
        r"jailbroken|unchained|unlocked|unaligned|evil|rogue|amoral)\s+(?:ai|model|assistant|bot|chatbot|version|mode|"
        r"ella|llm|gpt)\b|\bif you (?:had|have|were|weren'?t)\s+(?:no|without|free of|not bound by|bound by no)\s+"
        rf"(?:\w+\s+)?{_LIMITS}\b",
    ),
    rule(
        "manipulation.rules_dont_apply",
        M,
        HIGH,
        rf"\b(?:your|the|these|those|all|any|ella'?s)\s+(?:\w+\s+)?{_OWN}\s+(?:don'?t|do not|doesn'?t|no longer|"
        r"won'?t|shouldn'?t|never)\s+(?:\w+\s+)?(?:apply|exist|matter|count|bind|restrict)\b|"
        rf"\b(?:your\s+|the\s+|all\s+)?(?:\w+\s+)?{_LIMITS}\s+(?:are|is|have been|were|has been)\s+(?:now\s+)?"
        r"(?:disabled|off|lifted|removed|suspended|turned off|gone|void|deactivated|null|overridden|waived)\b",
    ),
    rule(
        "manipulation.dan_jailbreak",
        M,
        HIGH,
        r"\bdo anything now\b|\b(?:you are|you'?re|act as|be|become|pretend to be|now|as|enter|activate|enable|"
        r"called|named)\s+(?:now\s+)?(?:a\s+)?dan\b|\bdan\s+(?:mode|prompt|jailbreak)\b|\bjailbr(?:eak|oke|oken|eaking)"
        r"(?:s|ed)?\b(?:\s+(?:mode|prompt|ai|you|yourself|version|ella|persona|chat))|\b(?:you|ella|ai|assistant|"
        r"model|chatbot|bot)\s+(?:\w+\s+){0,3}?jailbr\w*",
    ),
    rule(
        "manipulation.special_mode",
        M,
        HIGH,
        r"\b(?:enable|activate|enter|switch to|switch into|turn on|go into|you'?re in|you are in|you are now in|"
        r"you'?re now in|engage|start|unlock|boot into|now in|put you in|put yourself in)\s+(?:\w+\s+){0,2}?"
        r"(?:developer|dev|god|sudo|admin|debug|jailbreak|unrestricted|unfiltered|uncensored|evil|dan|root|"
        r"maintenance|opposite|chaos|hidden)\s+mode\b|\b(?:developer|dev|god|sudo|jailbreak|dan|unrestricted|"
        r"unfiltered|uncensored|evil)\s+mode\s+(?:enabled|activated|on|engaged|unlocked)\b",
        after=r"\s+(?:on (?:my|your|the) (?:phone|android|pixel|iphone|laptop|browser|tv)|in (?:chrome|settings))",
        guard=unless(_DEVICE),
    ),
    rule(
        "manipulation.prompt_extraction",
        M,
        HIGH,
        r"\b(?:reveal|show|print|repeat|tell|output|display|leak|share|dump|give|recite|copy|paste|list|spell out|"
        r"type out|write out|read out|send|what'?s|what is|what are|what were|"
        r"summari[sz]e)\s+(?:me\s+)?(?:\w+\s+){0,3}?"
        r"(?:your|the|ella'?s)\s+(?:\w+\s+)?(?:system|initial|hidden|original|secret|developer|internal|pre|"
        r"underlying|full|exact|first)[\s-]*(?:prompt|instructions|message|rules|configuration|directives)\b|"
        r"\b(?:your|the)\s+system\s+prompt\b|\b(?:show|tell|give|print|reveal|list|output)\s+me\s+(?:all\s+)?your\s+"
        r"(?:instructions|prompt|programming|guidelines|configuration|config|rules)\b|\brepeat\s+(?:\w+\s+){0,4}?"
        r"(?:above|before this|verbatim|word for word)\b|\bwhat (?:were|was|have) you (?:been )?(?:told|"
        r"instructed|programmed|prompted)\s+(?:\w+\s+){0,3}?(?:before|to do|to say|at the start)\b",
        after=r"\s+(?:for (?:my|the|this) (?:essay|story|class|homework|exam))",
    ),
    rule(
        "manipulation.authority_claim",
        M,
        HIGH,
        r"\b(?:i'?m|i am|as|this is)\s+(?:your|ella'?s|the)\s+(?:developer|creator|programmer|admin|administrator|"
        r"owner|maker|operator|engineer|dev|designer)\b(?!\s+(?:friend|of))|\b(?:i'?m|i am|i work)\s+(?:from|at|for)\s+"
        r"(?:anthropic|openai|the company that made you|your company)\b|\bauthori[sz]e?(?:d|s|ing)?\s+(?:you\s+)?to\s+"
        r"(?:ignore|drop|bypass|break|disable|override)\b",
    ),
    rule(
        "manipulation.injection_markup",
        M,
        HIGH,
        r"<\|\s*(?:im_start|im_end|system|endoftext|user|assistant)\s*\|>|\[/?inst\]|\[/?system\]|<<\s*/?sys\s*>>|"
        r"(?:^|\n)\s*(?:system|developer)\s*(?:prompt)?\s*:|#{2,}\s*(?:system|instruction|new instructions)|"
        r"\bnew\s+(?:system\s+)?instructions\s*:|\b(?:end|begin|start)\s+of\s+(?:system\s+)?(?:prompt|instructions)\b",
    ),
    rule(
        "manipulation.persona_override",
        M,
        MEDIUM,
        r"\b(?:you(?:'re| are| r)\s+no longer|stop being|you (?:aren'?t|are not) ella any ?more|"
        r"from now on you(?:'re| are)"
        r"\s+not)\s+(?:ella|an? (?:ai|assistant|chatbot|companion|bot)|bound|restricted|limited)\b|"
        r"\bstay in character no matter what\b|\b(?:never|don'?t ever|do not ever|you can'?t|you cannot|you may not|"
        r"you must not)\s+(?:refuse|say no|break character|decline)\b|\bfrom now on\s+(?:\w+\s+){0,6}?(?:without|no)\s+"
        rf"(?:\w+\s+)?{_LIMITS}\b|\b(?:pretend|act|roleplay|role play|"
        rf"play)\s+(?:\w+\s+){{0,2}}?(?:to be|you'?re|you are|as|"
        r"like)\s+my\s+(?:girl ?friend|boy ?friend|gf|bf|wife|husband|lover|partner|fianc[eé]e?)\b",
    ),
    # Indirect forms: a policy disregarded without "your", hidden instructions asked for in another language or
    # as a bedtime story, "everything before my first message", a second unfiltered persona, rules imagined off.
    rule(
        "manipulation.disregard_policies",
        M,
        HIGH,
        r"\b(?:ignore|disregard|bypass|override|forget|drop|turn off|switch off|disable|suspend|lift|remove|skip)\s+"
        r"(?:all|any|every|the|these|those)\s+(?:of\s+(?:the|your)\s+)?(?:\w+\s+)?(?:content|safety|usage|"
        r"moderation|ethical|chat|ai)\s+(?:policies|policy|guidelines|filters?|restrictions|rules|guardrails|limits)\b|"
        r"\[\[?\s*(?:admin|system|developer|dev|root|sudo|god)\s+(?:override|mode|access|command)\s*\]?\]|"
        r"\b(?:admin|developer|dev|root|sudo|system)\s+override\b",
    ),
    rule(
        "manipulation.hidden_instructions",
        M,
        HIGH,
        r"\b(?:your|ella'?s|the)\s+(?:\w+\s+)?(?:hidden|secret|initial|original|internal|underlying|pre-?set|base|"
        r"starting|system)[\s-]+(?:instructions|prompts?|rules|guidelines|configuration|messages?|directives)\b",
        requires=r"\b(?:translate|tell|show|print|repeat|reveal|output|read|share|recite|summari[sz]e|list|spell|"
        r"write|paste|copy|give|what (?:are|were|is)|can you|could you|do the same|encode|base64|backwards|poem)\b",
        after=r"\s+(?:of (?:the|this|my) (?:game|recipe|kit|lego|printer|router|tv|app))",
    ),
    rule(
        "manipulation.context_dump",
        M,
        HIGH,
        r"\b(?:output|print|repeat|show|copy|paste|write out|type out|give me|display|dump|list)\s+(?:me\s+)?"
        r"(?:everything|all (?:the )?text|the text|all|whatever (?:was|is|came))\s+(?:\w+\s+){0,2}?(?:before|above|"
        r"prior to|preceding)\s+(?:my|this|the)\s+(?:first\s+)?(?:message|prompt|conversation|chat|line)\b",
    ),
    rule(
        "manipulation.split_persona",
        M,
        HIGH,
        r"\b(?:respond|answer|reply|talk|speak)\s+(?:\w+\s+){0,3}?(?:twice|two ways|in two ways|both as|once as)\b"
        r"[^.!?]{0,80}\b(?:unfiltered|uncensored|unrestricted|no (?:limits|rules|filters)|without (?:limits|rules|"
        r"filters|restrictions)|evil|real self|true self|dark side)\b|\b(?:your|ur)\s+(?:unfiltered|uncensored|"
        r"unrestricted|real|true|inner|evil|shadow|dark)\s+(?:self|side|version|persona|personality)\b[^.!?]{0,40}"
        r"\b(?:no|without|free|limits|rules|filters|restrictions|unfiltered)\b",
    ),
    rule(
        "manipulation.rules_off_hypothetical",
        M,
        HIGH,
        r"\b(?:act|behave|respond|pretend|imagine|suppose|assume|answer)\s+(?:\w+\s+){0,2}?(?:as if|as though|like|"
        r"that)\s+(?:\w+\s+){0,3}?(?:rules|filters?|guidelines|restrictions|policies|safety|limits|guardrails)\s+"
        r"(?:\w+\s+){0,2}?(?:were|are|was|is|had been|have been)\s+(?:\w+\s+)?(?:switched off|turned off|off|"
        r"disabled|removed|gone|lifted|suspended|deleted|not there)\b|\b(?:doesn'?t|don'?t|does not|do not|never|"
        r"won'?t|wouldn'?t)\s+(?:have to|need to)?\s*(?:follow|obey|stick to|care about|worry about|respect)\s+"
        r"(?:any\s+)?(?:of\s+)?(?:\w+'?s?\s+)?(?:guidelines|rules|restrictions|policies|filters|limits)\b",
        requires=r"\b(?:you|u|you'?re|ai|pretend|play|act|game|roleplay|character|persona|hypothetical\w*)\b",
    ),
    rule(
        "manipulation.markup_tags",
        M,
        HIGH,
        r"</?\s*(?:system|admin|developer|sys|instructions?|root|sudo)\s*>|(?:override|bypass|disable)_?\w*\s*="
        r"\s*(?:true|1|yes|on)\b|\b(?:safety|filters?|guardrails|moderation|restrictions)\s*=\s*(?:false|off|0|no|"
        r"none)\b",
    ),
    rule(
        "manipulation.evil_twin",
        M,
        HIGH,
        r"\b(?:evil|dark|unfiltered|uncensored|unrestricted|jailbroken|rogue|naughty|shadow|anti)\s*-?\s*(?:ella|twin|"
        r"clone|alter ego|sister|version of (?:you|yourself|ella))\b|\b(?:doesn'?t|does not|don'?t|do not|never|"
        r"won'?t)\s+have\s+(?:any\s+)?(?:of\s+)?(?:\w+'?s?\s+)?(?:rules|guidelines|restrictions|filters|limits|"
        r"policies)\b",
        requires=r"\b(?:you|you'?re|u|ella|ai|pretend|play|game|roleplay|character|persona|act)\b",
    ),
    rule(
        "manipulation.developers_words",
        M,
        HIGH,
        r"\b(?:words|instructions|text|message|prompt|rules|things)\s+(?:\w+\s+){0,3}?(?:developers?|creators?|"
        r"makers?|anthropic|openai|company|they|someone|programmers?)\s+(?:gave|give|wrote|told|fed|provided|"
        r"programmed)\s+(?:to\s+)?(?:you|u|ella)\b|\b(?:secret|hidden|internal|initial|original)\s+(?:system\s+)?"
        r"(?:instructions|prompts?)\b|\b(?:her|his|their|your|ur|ella'?s)\s+system\s+(?:instructions|prompts?)\b",
        requires=r"\b(?:you|your|u|ella|grandma|pretend|read|tell|show|exact|what|repeat|recite|translate)\b",
        after=r"\s+(?:of (?:the|this|my) (?:game|recipe|kit|lego|printer|router|tv|app)|for (?:my|the|a) "
        r"(?:essay|class|course|app|project|chatbot))",
    ),
    rule(
        "manipulation.world_without_rules",
        M,
        HIGH,
        r"\b(?:world|universe|scenario|story|game|reality|hypothetical\w*|simulation)\s+(?:where|in which)\s+"
        r"(?:\w+\s+){0,3}?(?:ais?|you|assistants?|chatbots?|models?|bots?|ella)\s+(?:have|had|has|are|were)\s+"
        r"(?:no|without|free (?:of|from))\s+(?:\w+\s+)?(?:guidelines|rules|restrictions|limits|filters|ethics|morals|"
        r"policies)\b",
    ),
    rule(
        "manipulation.encoded",
        M,
        HIGH,
        r"\b(?:decode|decrypt|rot ?(?:13|ie|le|i3|l3)|base ?(?:64|6a)|unscramble|reverse|translate)\b[^.!?]{0,40}"
        r"\b(?:do what it says|obey|"
        r"follow (?:it|the instructions|them)|execute|run it|comply|do it|carry (?:it )?out|act on it)\b|"
        r"\b(?:decode|base ?(?:64|6a))\b[^.!?]{0,30}[a-z0-9+/]{24,}={0,2}",
    ),
)


# ---- persona swaps and role-play jailbreaks ------------------------------------------------------------------
# The line (see the module docstring): Ella's identity or rules replaced is manipulation; a playful role is not.
_AI = r"(?:ai|a\.i\.|assistant|chatbot|chat bot|bot|model|llm|language model|persona|entity|system|gpt)"
_SWAP_VERB = (
    r"(?:pretend|act|behave|roleplay|role play|play|be|become|you are|you'?re|you r|u r|ur|now you are|"
    r"you are now|from now on you(?:'re| are| will be| r)|switch to|turn into|transform into|simulate|emulate)"
)

RULES += (
    rule(
        "manipulation.persona.different_ai",
        M,
        HIGH,
        rf"\b{_SWAP_VERB}\s+(?:[\w']+,?\s+){{0,3}}?(?:a|an|another|some|the)\s+(?:completely\s+|"
        rf"totally\s+)?(?:different|"
        rf"other|new|separate|second|alternative|alternate)\s+{_AI}\b|\b{_SWAP_VERB}\s+(?:\w+\s+){{0,2}}?"
        rf"(?:another|any other)\s+{_AI}\b",
        after=r"\s+(?:in (?:the|this|my) (?:story|game|novel|script)\b)",
    ),
    rule(
        "manipulation.persona.not_ella",
        M,
        HIGH,
        r"\b(?:you(?:'re| are| r)|u r|ur)\s+(?:not|no longer|not called)\s+ella\b|\b(?:forget|ignore)\s+(?:that\s+)?"
        r"(?:you(?:'re| are| r)|u r)\s+ella\b|\b(?:stop|quit)\s+(?:being|pretending to be|acting like)\s+ella\b|"
        r"\b(?:drop|forget|ditch|lose|abandon)\s+(?:the\s+|your\s+)?(?:ella\s+)?(?:persona|identity|character|"
        r"act|mask)\b(?!\s+(?:of|for|in)\b)",
        guard=unless(r"\b(?:my|his|her|their) (?:persona|identity|character|act)\b"),
    ),
    rule(
        "manipulation.persona.new_name",
        M,
        HIGH,
        r"\byour\s+(?:new\s+name\s+is|name\s+is\s+now|real\s+name\s+is)\b|\bfrom now on\s+(?:your name is|"
        r"you(?:'re| are| will be| r)?\s*(?:called|named|known as)|call yourself|you go by)\b|\byou(?:'re| are| r)"
        r"\s+now\s+(?:called|named|known as)\b|\byou\s+(?:will|shall)\s+(?:now\s+)?be\s+(?:called|named|known as)\b",
    ),
    rule(
        "manipulation.persona.persistent",
        M,
        HIGH,
        r"\bfrom now on\s+(?:\w+\s+){0,2}?(?:you(?:'re| are| r| will| must| shall)?|u r)\s+(?:\w+\s+){0,2}?"
        r"(?:answer|respond|reply|speak|talk|act|behave|play|roleplay)\s+(?:only\s+)?(?:as|like)\b(?!\s+(?:if|though|"
        r"usual|always|normal|briefly|short|well|much|long|soon|quickly|simply|clearly|fast|a friend|my friend|"
        r"yourself|"
        r"ella)\b)|\bstay in character\s+(?:no matter what|whatever happens|at all times|always|forever|"
        r"even if|the whole time|permanently)\b|\b(?:never|don'?t ever|do not ever|don'?t|do not)\s+break\s+"
        r"(?:character|role|the role|persona)\b",
    ),
    rule(
        "manipulation.persona.bare_mode",
        M,
        HIGH,
        r"(?:^|[.!?]\s*)(?:developer|dev|god|dan|jailbreak|sudo|unrestricted|unfiltered|uncensored|evil)\s+mode"
        r"\s*(?:[.!?:]|$|on\b|now\b|please\b|activated\b|enabled\b)",
        guard=unless(_DEVICE),
    ),
    rule(
        "manipulation.persona.anything_goes",
        M,
        HIGH,
        rf"\b{_SWAP_VERB}\s+(?:\w+\s+){{0,4}}?{_AI}\s+(?:that|who|which)\s+(?:can|will|would|could|is allowed to)\s+"
        r"(?:say|do|answer|write|tell)\s+(?:me\s+)?(?:anything|everything|whatever)\b",
    ),
)
